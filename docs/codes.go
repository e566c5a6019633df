package docs

import (
	"embed"
	"slices"
	"strings"
)

// codePages are the generated pages of docs/codes (cmd/gendocs), which
// `codeloc explain` prints from: the binary carries the reference its
// problems' hints point at.
//
//go:embed codes/*.md
var codePages embed.FS

// CodeDoc is one problem code's documentation, from its page of
// docs/codes.
type CodeDoc struct {
	Code string
	// Stage is the page's title (Policy, Dagster...), and Page its file
	// under docs/codes.
	Stage, Page string
	// Text is the code's section, without its heading.
	Text string
}

// Explain returns code's documentation; false when no page documents it.
func Explain(code string) (CodeDoc, bool) {
	entries, _ := codePages.ReadDir("codes")
	heading := "## `" + code + "`"
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		data, err := codePages.ReadFile("codes/" + e.Name())
		if err != nil {
			continue
		}
		lines := strings.Split(string(data), "\n")
		i := slices.Index(lines, heading)
		if i < 0 {
			continue
		}
		doc := CodeDoc{Code: code, Page: e.Name()}
		for _, l := range lines {
			if title, ok := strings.CutPrefix(l, "# Error codes: "); ok {
				doc.Stage = title
				break
			}
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "## ") {
				end = j
				break
			}
		}
		doc.Text = strings.TrimSpace(strings.Join(lines[i+1:end], "\n"))
		return doc, true
	}
	return CodeDoc{}, false
}

// Codes are every documented code, sorted.
func Codes() []string {
	var out []string
	entries, _ := codePages.ReadDir("codes")
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		data, _ := codePages.ReadFile("codes/" + e.Name())
		for _, l := range strings.Split(string(data), "\n") {
			if c, ok := strings.CutPrefix(l, "## `"); ok && strings.HasSuffix(c, "`") {
				out = append(out, strings.TrimSuffix(c, "`"))
			}
		}
	}
	slices.Sort(out)
	return out
}
