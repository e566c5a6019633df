package docs

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Operator guide": "operator-guide",
		"The sync hooks: `codeloc-jobs preflight`, `migrate` and `reload`": "the-sync-hooks-codeloc-jobs-preflight-migrate-and-reload",
		"Timeouts: lock_timeout and statement_timeout":                     "timeouts-lock_timeout-and-statement_timeout",
		"Dagster: the workspace and the chart's values":                    "dagster-the-workspace-and-the-charts-values",
		"Admission of the code-locations' pods":                            "admission-of-the-code-locations-pods",
		"Migrations lint (issue 22)":                                       "migrations-lint-issue-22",
		"YAML alias bombs (issue 20, item 1)":                              "yaml-alias-bombs-issue-20-item-1",
		"Whole process (`bash bench/compare.sh`)":                          "whole-process-bash-benchcomparesh",
		"A [linked](other.md#x) heading":                                   "a-linked-heading",
		"<code>tag</code> and *emphasis* and **strong**":                   "tag-and-emphasis-and-strong",
		"Café Ünïcode":                                                     "café-ünïcode",
		"  Two  spaces ":                                                   "two--spaces",
		"3.4 → 3.5":                                                        "34--35",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestHeadingAnchors(t *testing.T) {
	text := strings.Join([]string{
		"# Title",
		"## Same",
		"## Same",
		"### Same ###",
		"<a id=\"explicit\"></a>",
		"<a name='named'>x</a>",
		"```sh",
		"# not a heading",
		"```",
		"####### seven is not a heading",
		"#nospace is not a heading",
		"   ## indented three",
		"    ## indented four is code",
	}, "\n")
	got := keys(headingAnchors(text))
	want := []string{"explicit", "indented-three", "named", "same", "same-1", "same-2", "title"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}

func TestLinksParsing(t *testing.T) {
	text := strings.Join([]string{
		"See [a](a.md), [b](<b c.md> \"title\") and ![img](img.png).",
		"`[not](code.md)` but [yes](yes.md#frag) and ``[no](x.md)``.",
		"```",
		"[fenced](fenced.md)",
		"```",
		"[ref]: ref.md#r",
		`<a href="html.md">h</a> and [nested [brackets]](n.md) and [paren](p_(1).md)`,
		"[empty]()",
	}, "\n")
	var got []string
	for _, l := range links(text) {
		got = append(got, strings.Join([]string{itoa(l.line), l.target}, " "))
	}
	want := []string{"1 a.md", "1 b c.md", "1 img.png", "2 yes.md#frag", "6 ref.md#r", "7 n.md", "7 p_(1).md", "7 html.md", "8 #"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links =\n%q\nwant\n%q", got, want)
	}
}

// TestCheckLinks: the checker fails on each kind of broken link and passes
// the good ones.
func TestCheckLinks(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte(strings.Join([]string{
			"# Top",
			"[ok](docs/a.md) [ok](docs/a.md#section-one) [ok](#top) [ok](https://example.com/x#y)",
			"[ok](docs/) [ok](docs/data.txt#L3) [ok](docs/a.md#explicit) [ok](mailto:x@example.com)",
			"[missing file](docs/nope.md)",
			"[missing anchor](docs/a.md#section-two)",
			"[missing local anchor](#bottom)",
			"[outside](../elsewhere.md)",
			"[duplicate ok](docs/a.md#dup-1) [duplicate missing](docs/a.md#dup-2)",
		}, "\n"))},
		"docs/a.md": {Data: []byte(strings.Join([]string{
			"# A",
			"## Section one",
			"## Dup",
			"## Dup",
			`<a id="explicit"></a>`,
			"[ok](../README.md#top) [missing](b.md)",
		}, "\n"))},
		"docs/data.txt": {Data: []byte("x")},
	}
	got := checkLinks(fsys, []string{"README.md", "docs/a.md"})
	want := []string{
		`README.md:4: link docs/nope.md: no such file docs/nope.md`,
		`README.md:5: link docs/a.md#section-two: no heading or <a id> "section-two" in docs/a.md`,
		`README.md:6: link #bottom: no heading or <a id> "bottom" in README.md`,
		`README.md:7: link ../elsewhere.md: leaves the repository`,
		`README.md:8: link docs/a.md#dup-2: no heading or <a id> "dup-2" in docs/a.md`,
		`docs/a.md:6: link b.md: no such file docs/b.md`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
