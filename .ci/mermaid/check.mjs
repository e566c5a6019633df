// Parses Mermaid diagrams with Mermaid's own parser (mermaid.parse), the
// way a Markdown viewer such as Gitea's would before drawing them.
//
//   node .ci/mermaid/check.mjs MODULES_DIR FILE...
//
// MODULES_DIR holds node_modules installed from this folder's
// package-lock.json (.ci/mermaid.sh prints it). A FILE ending in .mmd is
// one diagram; in any other FILE every ```mermaid block is one, and a file
// without a block is an error (nothing checked is no pass). Each diagram
// that parses is a line "ok FILE:LINE TYPE nodes=N edges=M", the nodes and
// edges as Mermaid's flowchart database holds them (so that a name that
// left its label, making nodes of its own, shows); exit 1 when any does
// not parse.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, ...files] = process.argv.slice(2);
if (!modules || files.length === 0) {
  console.error('usage: node check.mjs MODULES_DIR FILE...');
  process.exit(2);
}
const require = createRequire(join(modules, 'package.json'));

// Mermaid's flowchart parser sanitizes labels with DOMPurify, which needs
// a window: jsdom gives it one, as a browser would.
const { JSDOM } = require('jsdom');
const { window } = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import(pathToFileURL(join(modules, 'node_modules/mermaid/dist/mermaid.core.mjs')).href);

// diagrams are the Mermaid sources of file, each with where it starts.
function diagrams(file) {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.mmd')) return [{ line: 1, source: text }];
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```mermaid') continue;
    const start = i + 1;
    while (i + 1 < lines.length && lines[i + 1].trim() !== '```') i++;
    out.push({ line: start + 1, source: lines.slice(start, i + 1).join('\n') + '\n' });
  }
  return out;
}

// counts are a flowchart's nodes and edges, as " nodes=N edges=M".
async function counts(source) {
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
  if (typeof diagram.db.getVertices !== 'function') return '';
  const vertices = diagram.db.getVertices();
  const n = vertices instanceof Map ? vertices.size : Object.keys(vertices).length;
  return ` nodes=${n} edges=${diagram.db.getEdges().length}`;
}

let failed = false;
for (const file of files) {
  const found = diagrams(file);
  if (found.length === 0) {
    console.error(`${file}: no mermaid block`);
    failed = true;
  }
  for (const d of found) {
    try {
      const r = await mermaid.parse(d.source);
      console.log(`ok ${file}:${d.line} ${r.diagramType}${await counts(d.source)}`);
    } catch (e) {
      console.error(`${file}:${d.line}: ${e.message || e}`);
      failed = true;
    }
  }
}
process.exit(failed ? 1 : 0);
