package appofapps

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/golden"
)

// pictureGoldens is where the pictures' goldens are: NAME.mmd, NAME.dot
// and NAME.md (the README without its header). .ci/mermaid.sh parses the
// .mmd and .md files with Mermaid's own parser.
const pictureGoldens = "testdata/graph"

// pictureOf is the picture of the code-locations in dirs, generated under
// the repo root as `codeloc graph` does.
func pictureOf(t *testing.T, root string, dirs []string, opts Options) Picture {
	t.Helper()
	opts.RepoURL, opts.RepoRoot, opts.Contract = repoURL, root, exampleContract(t)
	apps, err := Generate(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PictureOf(apps)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hostileNames would leave a label that is not escaped: quotes, brackets,
// Mermaid's keywords, edges, entities and comments, DOT's escapes, HTML,
// Markdown's table and fence, control and non-ASCII characters.
var hostileNames = []string{
	`a"] --> x["b`, "end", "o", "x", `#quot;`, "%% comment", `<img src=x onerror=alert(1)>`,
	`back\`, `\N`, "new\nline", "|pipe|", "```", "`code`", "&lt;", `}; "x" -> "y"; {`, "é", "a-b", "a_b", "a.b",
}

// hostilePicture draws every hostile name as a code-location, a database,
// a bucket and a dependency outside.
func hostilePicture() Picture {
	var p Picture
	for i, name := range hostileNames {
		n := PictureNode{Name: name, Wave: i % 3, Ready: i%2 == 0, Revision: name, TargetRevision: name,
			Databases: []string{name}, Buckets: []string{name}, Secrets: []string{name}}
		if i > 0 {
			n.DependsOn = []string{hostileNames[i-1]}
		}
		p.CodeLocations = append(p.CodeLocations, n)
	}
	p.Databases, p.Buckets = sortedSet(hostileNames), sortedSet(hostileNames)
	p.Outside = []string{`out"side`}
	p.CodeLocations[0].DependsOn = []string{`out"side`}
	// The order PictureOf gives.
	slices.SortStableFunc(p.CodeLocations, func(a, b PictureNode) int { return a.Wave - b.Wave })
	return p
}

// pictureCase is a picture pinned in pictureGoldens under name.
type pictureCase struct {
	name    string
	picture func(t *testing.T) Picture
}

// pictureCases are the pictures pinned in pictureGoldens.
func pictureCases() []pictureCase {
	return []pictureCase{
		// citation depends on mediawatch; both use the bucket, citation
		// the database.
		{"fixtures", func(t *testing.T) Picture {
			return pictureOf(t, fixtures, in(fixtures, "citation", "mediawatch"), Options{})
		}},
		{"diamond", func(t *testing.T) Picture {
			return pictureOf(t, graphs, in(graphs, "diamond/report", "diamond/right", "diamond/left", "diamond/sources"), Options{Revision: "main"})
		}},
		// pending says ready: false.
		{"not-ready", func(t *testing.T) Picture {
			return pictureOf(t, graphs, in(graphs, "draft/pending", "draft/waiting"), Options{})
		}},
		// citation alone: mediawatch is a dependency outside the picture.
		{"citation-alone", func(t *testing.T) Picture { return pictureOf(t, fixtures, in(fixtures, "citation"), Options{}) }},
		{"empty", func(*testing.T) Picture { return Picture{} }},
		{"hostile", func(*testing.T) Picture { return hostilePicture() }},
	}
}

func TestPictureGolden(t *testing.T) {
	tests := pictureCases()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.picture(t)
			base := filepath.Join(pictureGoldens, tt.name)
			rerun := "go test ./appofapps -run TestPictureGolden -update"
			golden.Check(t, base+".mmd", p.Mermaid(), rerun)
			golden.Check(t, base+".dot", p.DOT(), rerun)
			golden.Check(t, base+".md", p.Readme(), rerun)
		})
	}
}

// Mermaid's lines, one per form the writer emits: a label holds no quote,
// so a name cannot close it.
var mermaidLine = regexp.MustCompile(`^(flowchart LR|  end|  subgraph wave_\d+ \["wave \d+"\]|` +
	` {2,4}[A-Za-z0-9_]+(\["[^"]*"\]|\[\("[^"]*"\)\]|\[/"[^"]*"/\])|` +
	`  [A-Za-z0-9_]+ -\.?-> [A-Za-z0-9_]+|  classDef [a-zA-Z]+ stroke-dasharray: 5 5|  class [A-Za-z0-9_,]+ [a-zA-Z]+)$`)

// DOT's lines: a quoted string holds no quote and no backslash but the
// writer's own \n.
const dotString = `"(?:[^"\\]|\\n)*"`

var dotLine = regexp.MustCompile(`^(digraph codeloc \{|  rankdir=LR;|  node \[shape=box\];|  \}|\}|` +
	`  subgraph "cluster_wave_\d+" \{|    label="wave \d+";|` +
	` {2,4}"[A-Za-z0-9_]+" \[(shape=[a-z]+, )?label=` + dotString + `(, style=dashed)?\];|` +
	`  "[A-Za-z0-9_]+" -> "[A-Za-z0-9_]+"( \[style=dashed\])?;)$`)

// TestPictureHostileNames checks every line of the hostile picture against
// the forms the writers emit, and that no name is a raw part of either
// language's text but its letters, digits and " .-_:/,".
func TestPictureHostileNames(t *testing.T) {
	p := hostilePicture()
	for _, tt := range []struct {
		lang string
		text []byte
		line *regexp.Regexp
	}{{"mermaid", p.Mermaid(), mermaidLine}, {"dot", p.DOT(), dotLine}} {
		lines := strings.Split(strings.TrimSuffix(string(tt.text), "\n"), "\n")
		for i, line := range lines {
			if !tt.line.MatchString(line) {
				t.Errorf("%s line %d is not one the writer emits: %q", tt.lang, i+1, line)
			}
		}
		if len(lines) < 3*len(hostileNames) {
			t.Errorf("%s: %d lines for %d names drawn thrice", tt.lang, len(lines), len(hostileNames))
		}
	}
	readme := string(p.Readme())
	for i, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 7 {
			t.Errorf("README line %d is not a row of 6 cells: %q", i+1, line)
		}
	}
	if got := strings.Count(readme, "```"); got != 2 {
		t.Errorf("README holds %d fences, want the mermaid block's 2", got)
	}
}

func TestNodeIDInjective(t *testing.T) {
	seen := map[string]string{}
	for _, name := range append(slices.Clone(hostileNames), "a_2d_b", "a2db", "") {
		id := nodeID(idCodeLocation, name)
		if other, ok := seen[id]; ok {
			t.Errorf("%q and %q share the id %s", name, other, id)
		}
		seen[id] = name
		if !regexp.MustCompile(`^cl_[A-Za-z0-9_]*$`).MatchString(id) {
			t.Errorf("id %q of %q is not a safe identifier", id, name)
		}
	}
}

func TestPictureOf(t *testing.T) {
	p := pictureOf(t, fixtures, in(fixtures, "citation"), Options{Revision: "v1"})
	if got := p.CodeLocations; len(got) != 1 || got[0].Name != "citation" || got[0].Wave != 1 || got[0].TargetRevision != "v1" || !got[0].Ready {
		t.Errorf("citation alone: %+v", got)
	}
	if want := []string{"mediawatch"}; !slices.Equal(p.Outside, want) {
		t.Errorf("outside %v, want %v", p.Outside, want)
	}
	if _, err := PictureOf([]Application{{Name: "x"}}); err == nil {
		t.Error("an Application without its declaration is drawn")
	}
}

func TestTargetRevision(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"spec: {source: {targetRevision: main}}", "main"},
		{"spec: {sources: [{targetRevision: b}, {targetRevision: a}, {targetRevision: b}]}", "a, b"},
		{"spec: {}", ""},
		{"spec: [", "error"},
	} {
		got, err := targetRevision([]byte(tt.doc))
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("targetRevision(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}
