package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPageIsCurrent fails while docs/error-codes.md differs from what the
// generator writes: a code was added or its sentence changed without
// regenerating the page.
func TestPageIsCurrent(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, outFile))
	if err != nil {
		t.Fatalf("%v: run `go generate ./docs`", err)
	}
	if want := renderPage(sources); string(got) != string(want) {
		t.Errorf("%s is stale: run `go generate ./docs` and commit the result", outFile)
	}
}

// TestEveryCodeIsDocumented requires a sentence for every code of every
// package, and a package name and introduction for every section.
func TestEveryCodeIsDocumented(t *testing.T) {
	for _, s := range sources {
		if s.pkg == "" || s.about == "" || len(s.codes) == 0 {
			t.Errorf("source %q: needs a package name, a sentence and codes", s.pkg)
		}
		for code, doc := range s.codes {
			if strings.TrimSpace(code) == "" || strings.TrimSpace(doc) == "" {
				t.Errorf("%s: code %q has no doc", s.pkg, code)
			}
		}
	}
}

// TestRenderPage checks the page's shape on small inputs.
func TestRenderPage(t *testing.T) {
	for _, tc := range []struct {
		name string
		srcs []source
		want []string // substrings, in this order
	}{{
		name: "codes sorted within a section",
		srcs: []source{{"p", "About p.", map[string]string{"zeta": "Z.", "alpha": "A."}}},
		want: []string{"- [p](#p): 2 codes\n", "\n## p\n\nAbout p.\n\n| code | what it means |\n|---|---|\n| `alpha` | A. |\n| `zeta` | Z. |\n"},
	}, {
		name: "sections in the given order",
		srcs: []source{{"b", "B.", map[string]string{"x": "X."}}, {"a", "A.", map[string]string{"y": "Y."}}},
		want: []string{"- [b](#b)", "- [a](#a)", "## b", "`x`", "## a", "`y`"},
	}, {
		name: "pipes and newlines cannot break the table",
		srcs: []source{{"p", "P.", map[string]string{"c": " one | two\nthree "}}},
		want: []string{"| `c` | one \\| two three |\n"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			page := string(renderPage(tc.srcs))
			if !strings.HasPrefix(page, header) {
				t.Fatalf("page does not start with the header:\n%s", page)
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
