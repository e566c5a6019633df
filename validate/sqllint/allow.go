package sqllint

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// AllowPrefix starts an opt-out comment: `-- codeloc:allow <rule> <reason>`.
const AllowPrefix = "codeloc:allow"

// allow is one well-formed opt-out comment.
type allow struct {
	rule   string
	reason string
	line   int  // 1-based line of the comment
	alone  bool // the comment is alone on its line
}

// readAllows finds the opt-out comments among the scanner's tokens (so a
// comment-looking text inside a string is not one), and reports the
// malformed ones: no reason, or a rule that does not exist.
func (l *linter) readAllows(scan []token) {
	for _, tok := range scan {
		if tok.kind != tokSQLComment {
			continue
		}
		start, end := tok.start, tok.end
		if start < 0 || end > len(l.sql) || start >= end {
			continue
		}
		text := strings.TrimSpace(strings.TrimPrefix(l.sql[start:end], "--"))
		rest, ok := strings.CutPrefix(text, AllowPrefix)
		if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		fields := strings.Fields(rest)
		line, col := l.position(start)
		bad := func(code, msg, hint string) {
			l.out = append(l.out, Finding{Code: code, Severity: Error, Line: line, Column: col, Message: msg, Hint: hint})
		}
		switch {
		case len(fields) == 0:
			bad(CodeAllowWithoutReason, "a codeloc:allow comment names no rule and gives no reason", "write -- codeloc:allow <rule> <why the statement is safe here>")
			continue
		case !isRule(fields[0]):
			bad(CodeAllowUnknownRule, "a codeloc:allow comment names "+quoteShort(fields[0])+", which is not a rule of the migrations' lint", "name one of the lint's rules: "+ruleList())
			continue
		case len(fields) == 1:
			bad(CodeAllowWithoutReason, "codeloc:allow "+fields[0]+" gives no reason: an opt-out says why the statement is safe here", "write -- codeloc:allow "+fields[0]+" <why the statement is safe here>")
			continue
		}
		lineStart := strings.LastIndexByte(l.sql[:start], '\n') + 1
		l.allows = append(l.allows, allow{rule: fields[0], reason: strings.Join(fields[1:], " "), line: line,
			alone: strings.TrimSpace(l.sql[lineStart:start]) == ""})
	}
}

// allowFor returns the opt-out of rule that covers the current statement:
// on the comment lines directly above its first line, or after code on that
// first line; for a statement of a DO block, those of the DO too.
func (l *linter) allowFor(rule string) *allow {
	if a := l.allowAt(l.start, rule); a != nil || l.outer < 0 {
		return a
	}
	return l.allowAt(l.outer, rule) // a statement of a DO block: the DO's own
}

func (l *linter) allowAt(start int, rule string) *allow {
	first, _ := l.position(start)
	for i := range l.allows {
		if a := &l.allows[i]; a.line == first && !a.alone && a.rule == rule {
			return a
		}
	}
	for ln := first - 1; ln >= 1 && l.commentLine(ln); ln-- {
		for i := range l.allows {
			if a := &l.allows[i]; a.line == ln && a.alone && a.rule == rule {
				return a
			}
		}
	}
	return nil
}

// commentLine reports whether line n (1-based) holds only a -- comment.
func (l *linter) commentLine(n int) bool {
	start, end := l.lines[n-1], len(l.sql)
	if n < len(l.lines) {
		end = l.lines[n]
	}
	return strings.HasPrefix(strings.TrimSpace(l.sql[start:end]), "--")
}

func isRule(code string) bool {
	for _, r := range Rules {
		if r.Code == code {
			return true
		}
	}
	return false
}

// quoteShort quotes a word of the file, cut to a readable length.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "..."
	}
	return `"` + s + `"`
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(sql string) []int {
	starts := []int{0}
	for i := 0; i < len(sql); i++ {
		if sql[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position turns a byte offset into a 1-based line and a 1-based column
// counted in characters.
func (l *linter) position(off int) (line, col int) {
	off = min(max(off, 0), len(l.sql))
	line, _ = slices.BinarySearch(l.lines, off+1)
	return line, utf8.RuneCountInString(l.sql[l.lines[line-1]:off]) + 1
}

// ruleList names every rule, for a hint that stands on its own.
func ruleList() string {
	codes := make([]string, len(Rules))
	for i, r := range Rules {
		codes[i] = r.Code
	}
	return strings.Join(codes, ", ")
}
