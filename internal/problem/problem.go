// Package problem is the problem model every stage of codeloc shares: a
// Problem is one thing wrong with the input, with a stable code, a field
// path, a file position and a hint; Problems is a list of them that prints
// one line each. It is a leaf: it imports nothing of codeloc.
package problem

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with the input. It is a value: callers collect
// them, sort them and print one line each.
type Problem struct {
	Code    string `json:"code"`
	Path    string `json:"path,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	// Severity is SeverityWarning for a problem that does not fail the
	// render; "" is an error.
	Severity string `json:"severity,omitempty"`
}

// SeverityWarning marks a problem that is reported but fails nothing.
const SeverityWarning = "warning"

// IsWarning reports whether p is a warning.
func (p Problem) IsWarning() bool { return p.Severity == SeverityWarning }

// String renders the problem on one line: FILE:LINE:COL: CODE path:
// message (hint); a warning's code is preceded by "warning: ".
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
		}
		b.WriteString(": ")
	}
	if p.IsWarning() {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Code)
	if p.Path != "" {
		b.WriteString(" " + p.Path)
	}
	b.WriteString(": " + OneLine(p.Message))
	if p.Hint != "" {
		b.WriteString(" (" + OneLine(p.Hint) + ")")
	}
	return b.String()
}

// Problems is a list of problems; as an error it prints one problem per line.
type Problems []Problem

// Error joins the problems, one per line, in a stable order.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps.Sorted() {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Sorted returns a copy ordered by file, line, column, code and path, without
// exact duplicates.
func (ps Problems) Sorted() Problems {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b Problem) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.Compact(out)
}

// Pos is a position in a file.
type Pos struct {
	File   string
	Line   int
	Column int
}

// At builds a problem located at pos.
func (pos Pos) At(code, path, message, hint string) Problem {
	return Problem{Code: code, Path: path, File: pos.File, Line: pos.Line, Column: pos.Column, Message: message, Hint: hint}
}

// OneLine trims s and folds a multi-line text into one line, for messages
// shown one per line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", " ")), " ")
}

// Split separates the warnings from the errors.
func (ps Problems) Split() (errs, warnings Problems) {
	for _, p := range ps {
		if p.IsWarning() {
			warnings = append(warnings, p)
		} else {
			errs = append(errs, p)
		}
	}
	return errs, warnings
}
