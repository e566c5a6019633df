package check

import (
	"fmt"
	"io"
	"strings"

	"github.com/codeloc/codeloc/internal/problem"
)

// WriteMarkdown writes the report as a pull-request comment: a verdict, the
// contract, one section per touched code-location with its diffs folded
// in <details>, and the graph's moves. The same report gives the same
// bytes.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	verdict := "✅ Argo CD would accept the head"
	if r.Refused {
		verdict = "❌ Argo CD would refuse the head"
	}
	fmt.Fprintf(&b, "## codeloc check: %s\n\n", verdict)
	fmt.Fprintf(&b, "- contract: %s, contractVersions %s, sha256 `%s`\n", r.Contract.Origin, joinInts(r.Contract.ContractVersions), r.Contract.SHA256)
	fmt.Fprintf(&b, "- base `%s` (tree `%s`), head `%s` (tree `%s`)\n", r.Base.Rev, short(r.Base.Tree), r.Head.Rev, short(r.Head.Tree))
	fmt.Fprintf(&b, "- %d code-location(s) touched, %d moved in the graph\n", len(r.CodeLocations), len(r.Moved))
	if len(r.Problems) > 0 {
		b.WriteString("\n### Repository\n\n")
		writeProblems(&b, r.Problems)
	}
	for _, l := range r.CodeLocations {
		writeLocation(&b, l)
	}
	writeMoves(&b, r.Moved)
	_, err := io.WriteString(w, b.String())
	return err
}

// MaxMarkdownDiffLines bounds each object's diff in the Markdown report
// (a pull-request comment has a size limit); the JSON report has it whole.
const MaxMarkdownDiffLines = 150

// clip keeps the first n lines of diff, saying how many it left out.
func clip(diff string, n int) string {
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) <= n+1 {
		return diff
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… %d more lines (--format json has the whole diff)\n", len(lines)-n-1)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func writeLocation(b *strings.Builder, l Location) {
	state := "accepted"
	if l.Refused {
		state = "**refused**"
	}
	fmt.Fprintf(b, "\n### `%s` (%s, `%s/`): %s\n\n", l.CodeLocation, l.Change, l.Dir, state)
	writeProblems(b, l.Problems)
	writeConsumes(b, l.Consumes)
	if len(l.Fields) > 0 {
		b.WriteString("| field | base | head |\n|---|---|---|\n")
		for _, f := range l.Fields {
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.Field, cell(f.Base), cell(f.Head))
		}
		b.WriteString("\n")
	}
	for _, m := range l.Migrations {
		fmt.Fprintf(b, "Migration `%s` %s: ", m.Name, m.Change)
		if len(m.Findings) == 0 {
			b.WriteString("no lint findings.\n\n")
			continue
		}
		fmt.Fprintf(b, "%d lint finding(s):\n\n", len(m.Findings))
		for _, p := range m.Findings {
			fmt.Fprintf(b, "- `%s`\n", p.String())
		}
		b.WriteString("\n")
	}
	switch {
	case l.Refused:
		b.WriteString("Rendered objects: none, the render is refused.\n")
	default:
		writeObjects(b, l.Objects)
	}
}

func writeProblems(b *strings.Builder, ps []problem.Problem) {
	if len(ps) == 0 {
		return
	}
	errs, warns := problem.Problems(ps).Split()
	fmt.Fprintf(b, "%d problem(s), %d warning(s):\n\n", len(errs), len(warns))
	for _, p := range ps {
		fmt.Fprintf(b, "- `%s`\n", strings.ReplaceAll(p.String(), "`", "'"))
	}
	b.WriteString("\n")
}

func writeConsumes(b *strings.Builder, cs []Consumption) {
	for _, change := range []string{Added, Removed} {
		var items []string
		for _, c := range cs {
			if c.Change == change {
				items = append(items, fmt.Sprintf("%s `%s`", c.Field, c.Name))
			}
		}
		if len(items) == 0 {
			continue
		}
		what := "Now consumes"
		if change == Removed {
			what = "No longer consumes"
		}
		fmt.Fprintf(b, "%s: %s.\n\n", what, strings.Join(items, ", "))
	}
}

func writeObjects(b *strings.Builder, objs []ObjectChange) {
	if len(objs) == 0 {
		b.WriteString("Rendered objects: no change.\n")
		return
	}
	count := map[string]int{}
	for _, o := range objs {
		count[o.Change]++
	}
	fmt.Fprintf(b, "Rendered objects: %d added, %d removed, %d changed.\n\n", count[Added], count[Removed], count[Changed])
	for _, o := range objs {
		fmt.Fprintf(b, "<details><summary>%s %s <code>%s/%s</code></summary>\n\n", o.Change, o.Kind, o.Namespace, o.Name)
		diff := clip(o.Diff, MaxMarkdownDiffLines)
		fence := "```"
		for strings.Contains(diff, fence) {
			fence += "`"
		}
		fmt.Fprintf(b, "%sdiff\n%s%s\n\n</details>\n\n", fence, diff, fence)
	}
}

func writeMoves(b *strings.Builder, ms []Move) {
	if len(ms) == 0 {
		return
	}
	b.WriteString("\n### Waves and dependencies that move\n\n| code-location | wave | dependsOn.codeLocations |\n|---|---|---|\n")
	for _, m := range ms {
		fmt.Fprintf(b, "| `%s` | %s → %s | %s → %s |\n", m.CodeLocation, wave(m.BaseWave), wave(m.HeadWave), list(m.BaseDependsOn), list(m.HeadDependsOn))
	}
}

func wave(w *int) string {
	if w == nil {
		return "—"
	}
	return fmt.Sprint(*w)
}

func list(s []string) string {
	if len(s) == 0 {
		return "—"
	}
	return strings.Join(s, ", ")
}

func cell(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "|", "\\|") + "`"
}
