package appofapps

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The code-location graph as a picture (issue 33): `codeloc graph` prints
// it as Mermaid or Graphviz DOT, and `codeloc application --output-dir`
// writes it into the cluster/apps repo's README.md with a table. The
// waves are the Applications' (Generate): one computation of the graph.
//
// Names reach the writers from declarations, which validate holds to
// DNS-1123 labels; the writers escape them all the same, so that no name
// leaves its label whatever it holds: node ids are derived, never the
// name itself, and each language's labels are escaped by a whitelist.

// Picture is the code-location graph as drawn: its code-locations, the
// databases and buckets they consume, and the code-locations they depend
// on that are not given themselves.
type Picture struct {
	// CodeLocations are sorted by wave then name.
	CodeLocations []PictureNode
	// Databases and Buckets are what the code-locations consume, sorted.
	Databases, Buckets []string
	// Outside are dependencies that are not among CodeLocations (a
	// `codeloc graph DIR...` of some code-locations only), sorted.
	Outside []string
}

// PictureNode is one code-location of a Picture.
type PictureNode struct {
	// Name is the code-location's name.
	Name string
	// Wave is its Application's sync wave.
	Wave int
	// Ready is the declaration's ready: atlas attests the revision; its
	// render refuses it otherwise, and its record tells dependents'
	// preflights.
	Ready bool
	// Revision is the declared revision (the image tag).
	Revision string
	// TargetRevision is its Application's spec.source.targetRevision
	// (the atlas revision Argo CD follows).
	TargetRevision string
	// DependsOn, Databases and Buckets are the declared
	// dependsOn.codeLocations, dependsOn.database and the names of
	// dependsOn.buckets, sorted.
	DependsOn, Databases, Buckets []string
	// Secrets, ConfigMaps and ServiceAccounts are the platform objects
	// declared, sorted.
	Secrets, ConfigMaps, ServiceAccounts []string
}

// PictureOf is the picture of apps, as Generate returns them (each with
// its Declaration).
func PictureOf(apps []Application) (Picture, error) {
	var p Picture
	drawn := map[string]bool{}
	for _, a := range apps {
		if a.Declaration == nil {
			return Picture{}, fmt.Errorf("the Application of %s has no declaration", a.Name)
		}
		n, err := pictureNode(a)
		if err != nil {
			return Picture{}, err
		}
		p.CodeLocations = append(p.CodeLocations, n)
		drawn[a.Name] = true
	}
	for _, n := range p.CodeLocations {
		p.Databases = append(p.Databases, n.Databases...)
		p.Buckets = append(p.Buckets, n.Buckets...)
		for _, dep := range n.DependsOn {
			if !drawn[dep] {
				p.Outside = append(p.Outside, dep)
			}
		}
	}
	p.Databases, p.Buckets, p.Outside = sortedSet(p.Databases), sortedSet(p.Buckets), sortedSet(p.Outside)
	slices.SortFunc(p.CodeLocations, func(a, b PictureNode) int {
		return cmp.Or(cmp.Compare(a.Wave, b.Wave), cmp.Compare(a.Name, b.Name))
	})
	return p, nil
}

// pictureNode is the node of one Application.
func pictureNode(a Application) (PictureNode, error) {
	d := a.Declaration
	target, err := targetRevision(a.YAML)
	if err != nil {
		return PictureNode{}, fmt.Errorf("the Application of %s: %w", a.Name, err)
	}
	var buckets []string
	for _, b := range d.DependsOn.Buckets {
		buckets = append(buckets, b.Name)
	}
	return PictureNode{
		Name: a.Name, Wave: a.Wave, Ready: d.Ready, Revision: d.Revision, TargetRevision: target,
		DependsOn: sortedSet(d.DependsOn.CodeLocations), Databases: sortedSet(d.DependsOn.Database), Buckets: sortedSet(buckets),
		Secrets: sortedSet(d.DependsOn.Secrets), ConfigMaps: sortedSet(d.DependsOn.ConfigMaps), ServiceAccounts: sortedSet(d.DependsOn.ServiceAccounts),
	}, nil
}

// targetRevision reads spec.source.targetRevision of an Application, or
// the distinct ones of spec.sources, joined by ", ".
func targetRevision(doc []byte) (string, error) {
	var app struct {
		Spec struct {
			Source struct {
				TargetRevision string `yaml:"targetRevision"`
			} `yaml:"source"`
			Sources []struct {
				TargetRevision string `yaml:"targetRevision"`
			} `yaml:"sources"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(doc, &app); err != nil {
		return "", err
	}
	var revs []string
	for _, s := range app.Spec.Sources {
		revs = append(revs, s.TargetRevision)
	}
	if app.Spec.Source.TargetRevision != "" {
		revs = append(revs, app.Spec.Source.TargetRevision)
	}
	return strings.Join(sortedSet(slices.DeleteFunc(revs, func(s string) bool { return s == "" })), ", "), nil
}

// sortedSet is names sorted without duplicates, in a new slice.
func sortedSet(names []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(names)))
}

// Node id prefixes: a code-location, a database, a bucket, a dependency
// outside the picture. An id never is a name (Mermaid keeps "end", and an
// id opening with "o" or "x" after "--" is an edge's head).
const (
	idCodeLocation = "cl_"
	idDatabase     = "db_"
	idBucket       = "bk_"
	idOutside      = "out_"
)

// nodeID is a safe identifier for name in both languages: its ASCII
// letters and digits kept, any other character as _<hex>_, so that two
// names never share an id.
func nodeID(prefix, name string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range name {
		if isAlnum(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_%x_", r)
		}
	}
	return b.String()
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// plainLabelRune says r may stand as itself in a label of either
// language; any other is written as a character reference.
func plainLabelRune(r rune) bool {
	return isAlnum(r) || strings.ContainsRune(" .-_:/,", r)
}

// escapeLabel writes s with every rune plainLabelRune refuses as ref(r).
func escapeLabel(s string, ref func(rune) string) string {
	var b strings.Builder
	for _, r := range s {
		if plainLabelRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(ref(r))
		}
	}
	return b.String()
}

// readiness is how a node's label says Ready.
func readiness(ready bool) string {
	if ready {
		return "ready"
	}
	return "not ready"
}

// edge is a line of the picture: from what is needed to what needs it
// (the deployment order), dashed for a database or a bucket.
type edge struct {
	from, to string // node ids
	consumed bool
}

// edges are the picture's lines, sorted: dependencies, then databases and
// buckets, each by the consumer's order then the name.
func (p Picture) edges() []edge {
	drawn := map[string]bool{}
	for _, n := range p.CodeLocations {
		drawn[n.Name] = true
	}
	var deps, consumed []edge
	for _, n := range p.CodeLocations {
		to := nodeID(idCodeLocation, n.Name)
		for _, dep := range n.DependsOn {
			prefix := idCodeLocation
			if !drawn[dep] {
				prefix = idOutside
			}
			deps = append(deps, edge{from: nodeID(prefix, dep), to: to})
		}
		for _, db := range n.Databases {
			consumed = append(consumed, edge{from: nodeID(idDatabase, db), to: to, consumed: true})
		}
		for _, bk := range n.Buckets {
			consumed = append(consumed, edge{from: nodeID(idBucket, bk), to: to, consumed: true})
		}
	}
	return append(deps, consumed...)
}

// waves groups the code-locations by wave, in order.
func (p Picture) waves() [][]PictureNode {
	var out [][]PictureNode
	for i, n := range p.CodeLocations {
		if i == 0 || n.Wave != p.CodeLocations[i-1].Wave {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], n)
	}
	return out
}

// Mermaid is the picture as a Mermaid flowchart, left to right: one
// subgraph per wave, a cylinder per database, a parallelogram per bucket,
// an arrow from what a code-location needs to it (dashed for what it
// consumes), and a dashed border for a code-location not ready. Labels are
// quoted, every character but letters, digits and " .-_:/," written as a
// Mermaid entity (#35;).
func (p Picture) Mermaid() []byte {
	var b bytes.Buffer
	b.WriteString("flowchart LR\n")
	if len(p.CodeLocations) == 0 {
		b.WriteString("  none[\"no code-location\"]\n")
		return b.Bytes()
	}
	for _, wave := range p.waves() {
		fmt.Fprintf(&b, "  subgraph wave_%d [\"wave %d\"]\n", wave[0].Wave, wave[0].Wave)
		for _, n := range wave {
			fmt.Fprintf(&b, "    %s[\"%s<br/>%s\"]\n", nodeID(idCodeLocation, n.Name), mermaidText(n.Name), readiness(n.Ready))
		}
		b.WriteString("  end\n")
	}
	for _, name := range p.Outside {
		fmt.Fprintf(&b, "  %s[\"%s<br/>not given\"]\n", nodeID(idOutside, name), mermaidText(name))
	}
	for _, name := range p.Databases {
		fmt.Fprintf(&b, "  %s[(\"database<br/>%s\")]\n", nodeID(idDatabase, name), mermaidText(name))
	}
	for _, name := range p.Buckets {
		fmt.Fprintf(&b, "  %s[/\"bucket<br/>%s\"/]\n", nodeID(idBucket, name), mermaidText(name))
	}
	for _, e := range p.edges() {
		arrow := "-->"
		if e.consumed {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "  %s %s %s\n", e.from, arrow, e.to)
	}
	p.mermaidClasses(&b)
	return b.Bytes()
}

// mermaidClasses styles the code-locations not ready and those outside
// the picture with dashed borders.
func (p Picture) mermaidClasses(b *bytes.Buffer) {
	var notReady []string
	for _, n := range p.CodeLocations {
		if !n.Ready {
			notReady = append(notReady, nodeID(idCodeLocation, n.Name))
		}
	}
	var outside []string
	for _, name := range p.Outside {
		outside = append(outside, nodeID(idOutside, name))
	}
	for _, c := range []struct {
		name string
		ids  []string
	}{{"notReady", notReady}, {"outside", outside}} {
		if len(c.ids) > 0 {
			fmt.Fprintf(b, "  classDef %s stroke-dasharray: 5 5\n  class %s %s\n", c.name, strings.Join(c.ids, ","), c.name)
		}
	}
}

// mermaidText escapes s for a quoted Mermaid label.
func mermaidText(s string) string {
	return escapeLabel(s, func(r rune) string { return fmt.Sprintf("#%d;", r) })
}

// DOT is the picture as a Graphviz digraph with the same nodes, edges and
// styles as Mermaid: one cluster per wave. Ids are quoted safe
// identifiers; labels are quoted, every character but letters, digits and
// " .-_:/," written as an HTML character reference (&#92;), which
// Graphviz decodes in labels: no name puts a quote or a backslash (which
// would escape the closing quote, or make \N the node's name) in a DOT
// string.
func (p Picture) DOT() []byte {
	var b bytes.Buffer
	b.WriteString("digraph codeloc {\n  rankdir=LR;\n  node [shape=box];\n")
	for _, wave := range p.waves() {
		fmt.Fprintf(&b, "  subgraph \"cluster_wave_%d\" {\n    label=\"wave %d\";\n", wave[0].Wave, wave[0].Wave)
		for _, n := range wave {
			style := ""
			if !n.Ready {
				style = ", style=dashed"
			}
			fmt.Fprintf(&b, "    %q [label=\"%s\\n%s\"%s];\n", nodeID(idCodeLocation, n.Name), dotText(n.Name), readiness(n.Ready), style)
		}
		b.WriteString("  }\n")
	}
	for _, name := range p.Outside {
		fmt.Fprintf(&b, "  %q [label=\"%s\\nnot given\", style=dashed];\n", nodeID(idOutside, name), dotText(name))
	}
	for _, name := range p.Databases {
		fmt.Fprintf(&b, "  %q [shape=cylinder, label=\"database\\n%s\"];\n", nodeID(idDatabase, name), dotText(name))
	}
	for _, name := range p.Buckets {
		fmt.Fprintf(&b, "  %q [shape=parallelogram, label=\"bucket\\n%s\"];\n", nodeID(idBucket, name), dotText(name))
	}
	for _, e := range p.edges() {
		style := ""
		if e.consumed {
			style = " [style=dashed]"
		}
		fmt.Fprintf(&b, "  %q -> %q%s;\n", e.from, e.to, style)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// dotText escapes s for a quoted DOT label.
func dotText(s string) string {
	return escapeLabel(s, func(r rune) string { return fmt.Sprintf("&#%d;", r) })
}

// ReadmeFile is the cluster/apps repo's README that `codeloc application
// --output-dir` writes: the picture and a table, which Gitea shows.
const ReadmeFile = "README.md"

// Readme is the README of the cluster/apps repo, after header: the
// picture in a ```mermaid block, then one table row per code-location.
func (p Picture) Readme() []byte {
	var b bytes.Buffer
	b.WriteString("\n## Code-locations\n\n")
	b.WriteString("The code-locations of atlas in this repo's Applications, by sync wave. An arrow goes from what a code-location needs to it:\n" +
		"a code-location it depends on (synced first), a database or a bucket it consumes (dashed). A dashed border is a code-location\n" +
		"whose declaration says ready: false (its render refuses its revision until atlas attests it).\n\n")
	b.WriteString("```mermaid\n")
	b.Write(p.Mermaid())
	b.WriteString("```\n\n")
	b.WriteString("| code-location | wave | target revision | revision | ready | consumes |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, n := range p.CodeLocations {
		ready := "no"
		if n.Ready {
			ready = "yes"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", markdownText(n.Name), n.Wave, markdownText(n.TargetRevision),
			markdownText(n.Revision), ready, consumes(n))
	}
	return b.Bytes()
}

// consumes says in a table cell what a code-location depends on.
func consumes(n PictureNode) string {
	var parts []string
	for _, kind := range []struct {
		what  string
		names []string
	}{
		{"code-locations", n.DependsOn}, {"databases", n.Databases}, {"buckets", n.Buckets},
		{"secrets", n.Secrets}, {"configMaps", n.ConfigMaps}, {"serviceAccounts", n.ServiceAccounts},
	} {
		if len(kind.names) == 0 {
			continue
		}
		escaped := make([]string, len(kind.names))
		for i, name := range kind.names {
			escaped[i] = markdownText(name)
		}
		parts = append(parts, kind.what+": "+strings.Join(escaped, ", "))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// markdownText escapes s for a Markdown table cell: every ASCII
// punctuation character but "-.,:/" behind a backslash (CommonMark's
// escapes, "\|" GFM's within a table), any control character as a space,
// any other character as an HTML character reference.
func markdownText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < ' ' || r == 0x7f:
			b.WriteByte(' ')
		case r >= 0x80:
			fmt.Fprintf(&b, "&#%d;", r)
		case !isAlnum(r) && !strings.ContainsRune(" -.,:/", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
