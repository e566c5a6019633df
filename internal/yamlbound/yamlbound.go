// Package yamlbound bounds a YAML file before anything expands it. YAML
// aliases let a file of a few hundred bytes stand for billions of nodes
// ("billion laughs"): kustomize copies every alias it meets (kyaml's
// DeAnchor), so a bomb costs gigabytes before any check runs. Check parses
// the file into its node tree, where an alias stays one node pointing at
// its anchor, and computes what expanding it would produce with one pass
// over that tree: nothing is copied.
package yamlbound

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Limits are the bounds of one file. A zero field takes its default.
type Limits struct {
	// Bytes bounds the file's size.
	Bytes int64
	// AliasNodes bounds the nodes that expanding the file's aliases adds,
	// over all its documents.
	AliasNodes int64
	// Depth bounds a document's nesting, aliases expanded.
	Depth int
}

// Defaults: far above what a Kubernetes manifest needs (the largest CRDs
// nest about 30 levels; anchors in manifests repeat a few env lists), far
// below what hurts a repo-server.
const (
	DefaultBytes      = 16 << 20
	DefaultAliasNodes = 100_000
	DefaultDepth      = 128
)

// Settings: environment variables a process reads its limits from, and the
// flags that set them on codeloc and codeloc-sidecar.
const (
	EnvBytes       = "CODELOC_MAX_YAML_BYTES"
	EnvAliasNodes  = "CODELOC_MAX_YAML_ALIAS_NODES"
	EnvDepth       = "CODELOC_MAX_YAML_DEPTH"
	FlagBytes      = "max-yaml-bytes"
	FlagAliasNodes = "max-yaml-alias-nodes"
	FlagDepth      = "max-yaml-depth"
)

// WithDefaults fills the zero fields of l.
func (l Limits) WithDefaults() Limits {
	if l.Bytes <= 0 {
		l.Bytes = DefaultBytes
	}
	if l.AliasNodes <= 0 {
		l.AliasNodes = DefaultAliasNodes
	}
	if l.Depth <= 0 {
		l.Depth = DefaultDepth
	}
	return l
}

// FromEnv reads the limits from the environment (unset: the defaults).
func FromEnv() (Limits, error) {
	var l Limits
	var errs []error
	read := func(name string, set func(int64)) {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a positive integer", name, v))
			return
		}
		set(n)
	}
	read(EnvBytes, func(n int64) { l.Bytes = n })
	read(EnvAliasNodes, func(n int64) { l.AliasNodes = n })
	read(EnvDepth, func(n int64) { l.Depth = int(min(n, 1<<20)) })
	return l.WithDefaults(), errors.Join(errs...)
}

// Exceeded is a limit a file goes past, and where.
type Exceeded struct {
	What         string // "bytes", "alias nodes" or "depth"
	Limit        int64
	Setting      string // the flag and variable that raise it
	Line, Column int    // 0 for the file's size
	Detail       string
}

func (e *Exceeded) Error() string {
	return fmt.Sprintf("%s: more than the %d %s allowed (%s)", e.Detail, e.Limit, e.What, e.Setting)
}

func setting(flag, env string) string { return "--" + flag + " or " + env }

// CheckSize bounds a file's size before it is read.
func CheckSize(size int64, l Limits) *Exceeded {
	l = l.WithDefaults()
	if size <= l.Bytes {
		return nil
	}
	return &Exceeded{What: "bytes", Limit: l.Bytes, Setting: setting(FlagBytes, EnvBytes),
		Detail: fmt.Sprintf("the file is %d bytes", size)}
}

// Check bounds data, a YAML stream: its size, and for each document the
// nodes its aliases add and its nesting once expanded. Data that does not
// parse as YAML is not its concern (nil): whoever parses it reports that,
// and a file kustomize only carries (a generator's source) need not be YAML.
func Check(data []byte, l Limits) *Exceeded {
	_, e := Parse(data, l)
	return e
}

// Parse is Check that also returns the documents it parsed, up to the
// first syntax error (none past a limit), for a caller that would parse
// data again: with their line numbers relative to the stream, aliases
// unexpanded.
func Parse(data []byte, l Limits) ([]*yaml.Node, *Exceeded) {
	l = l.WithDefaults()
	if e := CheckSize(int64(len(data)), l); e != nil {
		return nil, e
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	w := walk{limits: l, memo: map[*yaml.Node]expansion{}, open: map[*yaml.Node]bool{}}
	var docs []*yaml.Node
	for {
		doc := &yaml.Node{}
		if err := dec.Decode(doc); err != nil {
			return docs, nil // the end, or a syntax error: the parser's caller reports it
		}
		if e := w.document(doc); e != nil {
			return nil, e
		}
		docs = append(docs, doc)
	}
}

// expansion is what a node stands for once its aliases are expanded.
type expansion struct {
	nodes int64 // the node and everything under it
	depth int   // levels, the node's own included
	// endless: an alias under the node names the node itself or one
	// above it (`&a [*a]`). The parser builds such a tree without a word;
	// expanding it never ends (kyaml's DeAnchor recurses until the
	// goroutine's stack overflows, which kills the process).
	endless bool
}

// walk visits each parsed node once, in document order, counting what the
// aliases add as it meets them, so that the alias past a limit is the one
// reported.
type walk struct {
	limits Limits
	memo   map[*yaml.Node]expansion
	open   map[*yaml.Node]bool // the nodes expand is inside
	added  int64               // nodes the aliases met so far add
}

func (w *walk) document(doc *yaml.Node) *Exceeded {
	return w.visit(doc, 0)
}

func (w *walk) visit(n *yaml.Node, depth int) *Exceeded {
	depth++
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		x := w.expand(n.Alias)
		if x.endless {
			return &Exceeded{What: "alias nodes", Limit: w.limits.AliasNodes, Setting: setting(FlagAliasNodes, EnvAliasNodes),
				Line: n.Line, Column: n.Column,
				Detail: fmt.Sprintf("alias *%s expands without end (it names a node that holds it)", n.Value)}
		}
		w.added += x.nodes
		if w.added > w.limits.AliasNodes {
			return &Exceeded{What: "alias nodes", Limit: w.limits.AliasNodes, Setting: setting(FlagAliasNodes, EnvAliasNodes),
				Line: n.Line, Column: n.Column,
				Detail: fmt.Sprintf("alias *%s expands to %d nodes, %d for the file's aliases so far", n.Value, x.nodes, w.added)}
		}
		if d := depth - 1 + x.depth; d > w.limits.Depth {
			return w.tooDeep(n, d)
		}
		return nil
	}
	if depth > w.limits.Depth {
		return w.tooDeep(n, depth)
	}
	for _, c := range n.Content {
		if e := w.visit(c, depth); e != nil {
			return e
		}
	}
	return nil
}

func (w *walk) tooDeep(n *yaml.Node, depth int) *Exceeded {
	return &Exceeded{What: "levels of nesting", Limit: int64(w.limits.Depth), Setting: setting(FlagDepth, EnvDepth),
		Line: n.Line, Column: n.Column, Detail: fmt.Sprintf("the document nests %d levels here", depth)}
}

// expand is what n stands for, aliases expanded, computed once per node:
// linear in the parsed tree whatever the expansion. Sums saturate, so a
// bomb of any depth cannot overflow them. A node met again while it is
// being expanded is a cycle: endless, as is every node that reaches it.
func (w *walk) expand(n *yaml.Node) expansion {
	if x, ok := w.memo[n]; ok {
		return x
	}
	if w.open[n] {
		return expansion{nodes: 1, depth: 1, endless: true}
	}
	w.open[n] = true
	var x expansion
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		x = w.expand(n.Alias)
	} else {
		x = expansion{nodes: 1, depth: 1}
		for _, c := range n.Content {
			cx := w.expand(c)
			x.nodes = saturatingAdd(x.nodes, cx.nodes)
			x.depth = max(x.depth, cx.depth+1)
			x.endless = x.endless || cx.endless
		}
	}
	delete(w.open, n)
	w.memo[n] = x
	return x
}

func saturatingAdd(a, b int64) int64 {
	if a > (1<<62)-b {
		return 1 << 62
	}
	return a + b
}
