package dagster

import (
	"strings"
)

// runScript runs a `sh -c` line as far as codeloc can follow it: each
// simple command in turn, with the variables the line sets before it
// (export X=…, X=…, unset X), and the code servers they start. A
// here-document or an unterminated quote ends what codeloc reads; eval
// and source make every variable unknown.
func runScript(script word, env podEnv, depth int) []invocation {
	lx := &shellLexer{src: script.text, field: script.field}
	env = env.clone()
	var out []invocation
	for {
		words, more, ok := lx.command(env)
		if !ok {
			return out
		}
		out = append(out, shellCommand(words, &env, depth)...)
		if !more {
			return out
		}
	}
}

// shellCommand runs one simple command: assignments and the builtins
// that change variables change env; any other command may start a code
// server.
func shellCommand(words []word, env *podEnv, depth int) []invocation {
	n := 0
	for n < len(words) && assignment().MatchString(words[n].text) {
		n++
	}
	set := func(ws []word) {
		for _, w := range ws {
			if assignment().MatchString(w.text) {
				*env = withAssignments(*env, []word{w})
			}
		}
	}
	switch {
	case n == len(words):
		set(words)
		return nil
	case words[n].unknownAt == 0:
		return nil
	}
	switch words[n].text {
	case "export", "readonly", "declare", "typeset", "local":
		set(words[n+1:])
		return nil
	case "unset":
		*env = env.clone()
		for _, w := range words[n+1:] {
			delete(env.vars, w.text)
		}
		return nil
	case "eval", ".", "source":
		*env = env.clone()
		env.opaque = words[n].field + ": the shell line runs " + words[n].text + ", which may set any variable"
		return nil
	}
	return simpleCommand(words, *env, depth)
}

// shellLexer reads a POSIX shell line one simple command at a time
// (quotes, backslashes, parameter expansion, field splitting of
// unquoted expansions, redirections, ; & | && || newlines and
// parentheses as separators).
type shellLexer struct {
	src   string
	i     int
	field string
}

// command reads the next simple command's words with env's values:
// more false at the end of the line, ok false where codeloc stops
// reading (a here-document, an unterminated quote).
func (lx *shellLexer) command(env podEnv) (words []word, more, ok bool) {
	for {
		lx.skipBlanks()
		if lx.i >= len(lx.src) {
			return words, false, true
		}
		c := lx.src[lx.i]
		switch {
		case c == '#':
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.i++
			}
		case strings.IndexByte("\n;&|()", c) >= 0:
			for lx.i < len(lx.src) && strings.IndexByte("\n;&|()", lx.src[lx.i]) >= 0 {
				lx.i++
			}
			if len(words) > 0 {
				return words, true, true
			}
		case c == '<' || c == '>':
			if !lx.redirection(env) {
				return nil, false, false
			}
		default:
			ws, ok := lx.word(env)
			if !ok {
				return nil, false, false
			}
			if lx.i < len(lx.src) && (lx.src[lx.i] == '<' || lx.src[lx.i] == '>') && len(ws) == 1 && isDigits(ws[0].text) {
				continue // 2>&1: a file descriptor, not an argument
			}
			words = append(words, ws...)
		}
	}
}

func (lx *shellLexer) skipBlanks() {
	for lx.i < len(lx.src) {
		switch {
		case lx.src[lx.i] == ' ' || lx.src[lx.i] == '\t':
			lx.i++
		case strings.HasPrefix(lx.src[lx.i:], "\\\n"):
			lx.i += 2
		default:
			return
		}
	}
}

// redirection skips an operator (<, >, >>, >&, <>, &>...) and its
// target; a here-document stops the reading.
func (lx *shellLexer) redirection(env podEnv) bool {
	if strings.HasPrefix(lx.src[lx.i:], "<<") {
		return false
	}
	for lx.i < len(lx.src) && strings.IndexByte("<>&|", lx.src[lx.i]) >= 0 {
		lx.i++
	}
	lx.skipBlanks()
	if lx.i >= len(lx.src) {
		return true
	}
	_, ok := lx.word(env)
	return ok
}

// word reads one word and expands it: several words when an unquoted
// expansion holds blanks, none when it is empty.
func (lx *shellLexer) word(env podEnv) ([]word, bool) {
	b := wordBuilder{field: lx.field}
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || strings.IndexByte("\n;&|()<>", c) >= 0:
			return b.done(), true
		case c == '\'':
			end := strings.IndexByte(lx.src[lx.i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			b.quoted = true
			b.literal(lx.src[lx.i+1 : lx.i+1+end])
			lx.i += end + 2
		case c == '"':
			if !lx.doubleQuoted(&b, env) {
				return nil, false
			}
		case c == '\\':
			if lx.i+1 < len(lx.src) && lx.src[lx.i+1] != '\n' {
				b.literal(lx.src[lx.i+1 : lx.i+2])
			}
			lx.i += 2
		case c == '$' || c == '`':
			lx.expansion(&b, env, false)
		default:
			b.literal(lx.src[lx.i : lx.i+1])
			lx.i++
		}
	}
	return b.done(), true
}

// doubleQuoted reads "…": backslash escapes $ ` " \ and newline; $ and `
// expand, without field splitting.
func (lx *shellLexer) doubleQuoted(b *wordBuilder, env podEnv) bool {
	b.quoted = true
	lx.i++
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == '"':
			lx.i++
			return true
		case c == '\\' && lx.i+1 < len(lx.src) && strings.IndexByte("$`\"\\\n", lx.src[lx.i+1]) >= 0:
			if lx.src[lx.i+1] != '\n' {
				b.literal(lx.src[lx.i+1 : lx.i+2])
			}
			lx.i += 2
		case c == '$' || c == '`':
			lx.expansion(b, env, true)
		default:
			b.literal(lx.src[lx.i : lx.i+1])
			lx.i++
		}
	}
	return false
}

// expansion reads $NAME, ${NAME}, $(…), $((…)), `…`, ${…} with an
// operator and the special parameters: a variable codeloc knows gives its
// value; the others are unknown.
func (lx *shellLexer) expansion(b *wordBuilder, env podEnv, quoted bool) {
	rest := lx.src[lx.i:]
	switch {
	case rest[0] == '`':
		n := len(rest)
		if end := strings.IndexByte(rest[1:], '`'); end >= 0 {
			n = end + 2
		}
		lx.i += n
		b.unknown(rest[:n], "a command substitution", quoted)
	case strings.HasPrefix(rest, "$("):
		n := matchingParen(rest[1:])
		lx.i += 1 + n
		b.unknown(rest[:1+n], "a command substitution", quoted)
	case strings.HasPrefix(rest, "${"):
		end := strings.IndexByte(rest, '}')
		if end < 0 { // the shell refuses it: bad substitution
			lx.i += len(rest)
			b.unknown(rest, "an unterminated parameter expansion", quoted)
			return
		}
		lx.i += end + 1
		name := rest[2:end]
		if !isName(name) {
			b.unknown(rest[:end+1], "a parameter expansion codeloc does not evaluate", quoted)
			return
		}
		b.variable(rest[:end+1], name, env, quoted)
	case len(rest) > 1 && isNameStart(rest[1]):
		n := 2
		for n < len(rest) && isNameChar(rest[n]) {
			n++
		}
		lx.i += n
		b.variable(rest[:n], rest[1:n], env, quoted)
	case len(rest) > 1 && strings.IndexByte("@*#?$!-0123456789", rest[1]) >= 0:
		lx.i += 2
		b.unknown(rest[:2], "a special parameter of the shell", quoted)
	default:
		b.literal("$")
		lx.i++
	}
}

// matchingParen is the length of s up to its "(" 's matching ")".
func matchingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// wordBuilder builds the words one shell word expands to.
type wordBuilder struct {
	field  string
	quoted bool
	words  []word
	cur    strings.Builder
	any    bool // cur started
	unk    int  // unknownAt of cur
	why    string
	splits bool
}

func (b *wordBuilder) literal(s string) {
	if !b.any {
		b.any, b.unk = true, -1
	}
	b.cur.WriteString(s)
}

func (b *wordBuilder) unknown(ref, why string, quoted bool) {
	if !b.any {
		b.any, b.unk = true, -1
	}
	if b.unk < 0 {
		b.unk, b.why = b.cur.Len(), ref+": "+why
	}
	b.splits = b.splits || !quoted
	b.cur.WriteString(ref)
}

// variable expands $NAME: unset is empty; an unquoted value is split on
// blanks into words (IFS's default).
func (b *wordBuilder) variable(ref, name string, env podEnv, quoted bool) {
	v, ok := env.lookup(name)
	switch {
	case !ok:
		if quoted {
			b.literal("")
		}
	case v.unknown != "":
		b.unknown(ref, v.unknown, quoted)
	case quoted:
		b.literal(v.value)
	default:
		fields := strings.FieldsFunc(v.value, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
		if len(fields) > 0 && strings.IndexByte(" \t\n", v.value[0]) >= 0 {
			b.flush()
		}
		for i, f := range fields {
			if i > 0 {
				b.flush()
			}
			b.literal(f)
		}
		if len(fields) > 0 && strings.IndexByte(" \t\n", v.value[len(v.value)-1]) >= 0 {
			b.flush()
		}
	}
}

func (b *wordBuilder) flush() {
	if b.any {
		b.words = append(b.words, word{text: b.cur.String(), field: b.field, unknownAt: b.unk, why: b.why, splits: b.splits})
	}
	b.cur.Reset()
	b.any, b.unk, b.why, b.splits = false, -1, "", false
}

func (b *wordBuilder) done() []word {
	if b.quoted && !b.any && len(b.words) == 0 {
		b.any, b.unk = true, -1 // "" is a word
	}
	b.flush()
	return b.words
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameChar(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
