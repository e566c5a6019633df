package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/appofapps"
	"github.com/codeloc/codeloc/check"
	"github.com/codeloc/codeloc/plugin"
	"github.com/codeloc/codeloc/preflight"
	"github.com/codeloc/codeloc/reload"
	"github.com/codeloc/codeloc/render"
	"github.com/codeloc/codeloc/validate"
)

// TestPagesAreCurrent fails while a page of docs/codes (or
// docs/error-codes.md) differs from what the generator writes, or
// docs/codes holds a page it no longer writes: a code was added or its
// sentence changed without regenerating.
func TestPagesAreCurrent(t *testing.T) {
	root := filepath.Join("..", "..") // the module root, from cmd/<generator>
	files := renderAll(pages)
	for file, want := range files {
		got, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Errorf("%v: run `go generate ./docs`", err)
		} else if string(got) != string(want) {
			t.Errorf("%s is stale: run `go generate ./docs` and commit the result", file)
		}
	}
	onDisk, err := filepath.Glob(filepath.Join(root, outDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range onDisk {
		rel, _ := filepath.Rel(root, path)
		if _, ok := files[rel]; !ok {
			t.Errorf("%s is not generated any more: remove it", rel)
		}
	}
}

// TestEveryCodeIsDocumented requires a sentence for every code and the
// pages to hold every code the packages export (a code two stages check,
// like bucket-class-mismatch at render and sync time, is on both pages).
func TestEveryCodeIsDocumented(t *testing.T) {
	page := map[string]string{}
	for _, p := range pages {
		if p.file == "" || p.title == "" || p.about == "" || p.legacy == "" || len(p.codes) == 0 {
			t.Errorf("page %q: needs a file, a title, a sentence, its old section and codes", p.file)
		}
		for code, doc := range p.codes {
			if strings.TrimSpace(code) == "" || strings.TrimSpace(doc) == "" {
				t.Errorf("%s: code %q has no doc", p.file, code)
			}
			page[code] = p.file
		}
	}
	for _, docs := range []map[string]string{validate.CodeDocs(), render.CodeDocs(), plugin.CodeDocs(), preflight.CodeDocs(), reload.CodeDocs(), appofapps.CodeDocs(), check.CodeDocs()} {
		for _, code := range slices.Sorted(maps.Keys(docs)) {
			if page[code] == "" {
				t.Errorf("%s is on no page", code)
			}
		}
	}
}

// TestPagesAreSmall keeps every page readable: under 15 KB.
func TestPagesAreSmall(t *testing.T) {
	for file, data := range renderAll(pages) {
		if len(data) > 15_000 {
			t.Errorf("%s is %d bytes: split the stage", file, len(data))
		}
	}
}

// TestRenderPage checks the pages' shape on small inputs.
func TestRenderPage(t *testing.T) {
	p := page{"p.md", "P", "About p.", "old", map[string]string{"zeta": "Z.", "alpha": " one | two\nthree "}}
	q := page{"q.md", "Q", "About q.", "old", map[string]string{"x": "X."}}
	for _, tc := range []struct {
		name string
		got  []byte
		want []string // substrings, in this order
	}{{
		name: "contents, then codes sorted, each an anchor",
		got:  renderPage(p),
		want: []string{"# Error codes: P\n\nAbout p. All stages: [the index](README.md).\n\n", "- [`alpha`](#alpha)\n- [`zeta`](#zeta)\n", "\n## `alpha`\n\none | two three\n", "\n## `zeta`\n\nZ.\n"},
	}, {
		name: "index in the given order, pipes escaped",
		got:  renderIndex([]page{q, {"p.md", "P", "a | b", "old", p.codes}}),
		want: []string{"| [Q](q.md) | 1 | About q. |\n", "| [P](p.md) | 2 | a \\| b |\n"},
	}, {
		name: "legacy sections point to their pages",
		got:  renderLegacy([]page{p, q}),
		want: []string{"\n## old\n\nNow in [P](codes/p.md), [Q](codes/q.md).\n"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			page := string(tc.got)
			if !strings.HasPrefix(page, generated) {
				t.Fatalf("page does not start with the generated line:\n%s", page)
			}
			rest := page
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("missing (or out of order) %q in:\n%s", w, page)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
