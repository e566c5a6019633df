package sqllint

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A DO block runs its statements there and then: each is linted as if the
// file held it, at its own line, and an allow comment above the DO covers
// them all. PL/pgSQL's own parser (libpg_query's) finds them, with their
// text and line. What the lint cannot see is reported as sql-do-unchecked:
// a body in another language or that does not parse, and EXECUTE of a
// computed string. A function's body is read where a statement calls it
// (callsFunctions), not where it is defined: defining runs nothing.

// doBlock lints the statements of a DO block, n, each with its own
// lock_timeout finding.
func (l *linter) doBlock(n node) {
	body, lang, found := doBody(n)
	if !found {
		return
	}
	if !strings.EqualFold(lang, "plpgsql") {
		l.find(RuleDoUnchecked, -1, fmt.Sprintf("a DO block in the language %q: the lint does not read what it runs", lang),
			"write the statements in the file, or the block in PL/pgSQL, so that the lint checks them")
		return
	}
	l.lintBody("the DO block", body, l.bodyOffset(body))
}

// lintBody lints the statements a PL/pgSQL body runs: at their own
// positions when the body is at byte offset bodyAt of the file, else at the
// current statement's.
func (l *linter) lintBody(what, body string, bodyAt int) {
	if !l.countBody(what) {
		return
	}
	stmts, err := plpgsqlStatements(body)
	if err != nil {
		l.bodyUnread(what, err, "write the statements in the file, or fix the block so that PostgreSQL's PL/pgSQL parser reads it")
		return
	}
	start := l.start
	defer l.enterBody()()
	var queries []string
	var ats []int
	lines, prev := lineStarts(body), 0
	for _, st := range stmts {
		if st.execute {
			st.query, st.dynamic = l.executed(st.query)
		}
		at := start
		if bodyAt >= 0 {
			// From its line's start, or the previous statement's on that
			// line, to shortly after: a bounded search.
			from := max(lines[min(st.line, len(lines))-1], prev)
			q := strings.TrimPrefix(st.query, performed)
			if i := strings.Index(body[from:min(len(body), from+len(q)+1024)], q); i >= 0 {
				from += i
				prev = from + len(q)
			}
			at = bodyAt + from
		}
		if st.dynamic {
			l.start = at
			l.find(RuleDoUnchecked, -1, "EXECUTE of a computed string in "+what+": the lint does not see the statement it runs",
				"write the statement in the file, or EXECUTE a constant string, so that the lint checks it")
			continue
		}
		queries, ats = append(queries, st.query), append(ats, at)
	}
	l.innerStatements(queries, ats)
}

// countBody counts one more body read in the file, or reports that the
// lint reads no more.
func (l *linter) countBody(what string) bool {
	if l.bodies >= maxBodies {
		l.find(RuleDoUnchecked, -1, fmt.Sprintf("%s is past the %d DO blocks and function bodies the lint reads in one file: it does not check what it runs", what, maxBodies),
			"split the migration into several files, or write the statements in the file")
		return false
	}
	l.bodies++
	return true
}

// bodyUnread reports a body the lint could not read.
func (l *linter) bodyUnread(what string, err error, hint string) {
	l.find(RuleDoUnchecked, -1, what+"'s body was not read ("+syntaxMessage(err.Error())+"): the lint does not check what it runs", hint)
}

// enterBody marks the linter as inside a body (a DO block or a function,
// where an IF may skip a statement) and returns what restores the
// statement's own position and state.
func (l *linter) enterBody() (restore func()) {
	start, base, outer, reported := l.start, l.base, l.outer, l.reported
	if l.outer < 0 {
		l.outer = start
	}
	return func() { l.start, l.base, l.outer, l.reported = start, base, outer, reported }
}

// lintSQLBody lints the statements of a LANGUAGE sql function or
// procedure, at the call that runs them.
func (l *linter) lintSQLBody(what, body string) {
	if !l.countBody(what) {
		return
	}
	tree, _, err := parse(body)
	if err != nil {
		l.bodyUnread(what, err, "write the statements in the file, or fix the body so that PostgreSQL's parser reads it")
		return
	}
	start := l.start
	defer l.enterBody()()
	var queries []string
	var ats []int
	for _, raw := range tree {
		end := len(body)
		if n := raw.int("stmt_len", 0); n > 0 {
			end = min(raw.int("stmt_location", 0)+n, len(body))
		}
		queries, ats = append(queries, body[codeStart(raw, body):end]), append(ats, start)
	}
	l.innerStatements(queries, ats)
}

// maxBodies bounds the DO blocks and function bodies one file's lint reads:
// each costs a parse, and a file of many small ones would cost many.
const maxBodies = 100

// maxSeparateParses bounds the statements of one body parsed one by one
// when their joint parse fails.
const maxSeparateParses = 50

// defineFunction remembers a PL/pgSQL or SQL function or procedure the
// migrations define with a body string, by name: a later call runs its
// body. (A BEGIN ATOMIC body holds no DDL: PostgreSQL refuses utility
// statements there.)
func (l *linter) defineFunction(n node) {
	_, name := qualifiedName(n.list("funcname"))
	body, lang := "", ""
	for _, o := range n.list("options") {
		d := is(o, "DefElem")
		switch d.str("defname") {
		case "as":
			if items := is(d["arg"], "List").list("items"); len(items) == 1 {
				body = is(items[0], "String").str("sval")
			}
		case "language":
			lang = is(d["arg"], "String").str("sval")
		}
	}
	if name == "" || body == "" {
		return
	}
	switch {
	case strings.EqualFold(lang, "plpgsql"):
		l.s.functions[name] = function{body: body}
	case strings.EqualFold(lang, "sql"):
		l.s.functions[name] = function{body: body, sql: true}
	}
}

// callsFunctions lints the body of each PL/pgSQL function of the
// migrations the statement calls (SELECT f(), CALL p(), PERFORM f() in a
// DO block), at the call: a function's DROP TABLE runs when it is called,
// not where it is defined. A function is known by its name alone, in any
// schema, and read at its first call in a file only: that bounds the work
// of a file that calls a long body many times, and ends recursion.
func (l *linter) callsFunctions(stmt any) {
	if len(l.s.functions) == 0 {
		return
	}
	calls := func(k string, n node) {
		if k == "CallStmt" {
			n = n.get("funccall") // a typed field: no FuncCall key around it
		} else if k != "FuncCall" {
			return
		}
		_, name := qualifiedName(n.list("funcname"))
		f, ok := l.s.functions[name]
		if !ok || l.called[name] {
			return
		}
		l.called[name] = true
		what := fmt.Sprintf("the function %s() it calls", name)
		if f.sql {
			l.lintSQLBody(what, f.body)
		} else {
			l.lintBody(what, f.body, -1)
		}
	}
	walk(stmt, calls)
}

// doBody returns a DO statement's body and language (plpgsql when unsaid).
func doBody(n node) (body, lang string, found bool) {
	lang = "plpgsql"
	for _, a := range n.list("args") {
		d := is(a, "DefElem")
		switch d.str("defname") {
		case "as":
			body, found = is(d["arg"], "String").str("sval"), true
		case "language":
			lang = is(d["arg"], "String").str("sval")
		}
	}
	return body, lang, found
}

// bodyOffset is the byte offset of the DO block's body in the file, or -1
// when the file does not hold it verbatim (a quoted string with escapes).
func (l *linter) bodyOffset(body string) int {
	if i := strings.Index(l.sql[l.start:], body); i >= 0 && body != "" {
		return l.start + i
	}
	return -1
}

// innerStatements lints the SQL statements of a PL/pgSQL body, found at
// byte offsets ats of the file, as the file's own statements are linted.
// They are parsed together, in one parse (one cache entry), and one by one
// only when PostgreSQL refuses them together.
func (l *linter) innerStatements(queries []string, ats []int) {
	if len(queries) == 0 {
		return
	}
	noTx := l.noTx
	l.noTx = false // a DO block runs in one transaction, and its own guards make it re-runnable
	defer func() { l.noTx = noTx }()
	joined, starts := joinStatements(queries)
	if tree, _, err := parse(joined); err == nil {
		for _, raw := range tree {
			i := statementOf(raw, joined, starts)
			l.statementIn(raw, joined, ats[i]-starts[i])
		}
		return
	}
	if len(queries) > maxSeparateParses {
		l.start = ats[0]
		l.find(RuleDoUnchecked, -1, fmt.Sprintf("the %d statements of the block were not read (PostgreSQL refuses one of them): the lint does not check them", len(queries)),
			"fix the statement PostgreSQL refuses, or write the statements in the file")
		return
	}
	for i, q := range queries {
		tree, _, err := parse(q)
		if err != nil {
			l.start = ats[i]
			l.find(RuleDoUnchecked, -1, "a statement of the block was not read ("+syntaxMessage(err.Error())+"): the lint does not check it",
				"write the statement in the file, so that the lint checks it")
			continue
		}
		for _, raw := range tree {
			l.statementIn(raw, q, ats[i])
		}
	}
}

// joinStatements joins the statements into one text, each on lines of its
// own (a statement may end in a -- comment), and returns where each starts.
func joinStatements(queries []string) (string, []int) {
	var b strings.Builder
	starts := make([]int, len(queries))
	for i, q := range queries {
		if i > 0 {
			b.WriteString("\n;\n")
		}
		starts[i] = b.Len()
		b.WriteString(q)
	}
	return b.String(), starts
}

// statementOf is the index of the joined statement raw comes from.
func statementOf(raw node, joined string, starts []int) int {
	i, _ := slices.BinarySearch(starts, codeStart(raw, joined)+1)
	return max(i-1, 0)
}

// performed starts the query of PERFORM's statement, which the body writes
// PERFORM.
const performed = "SELECT "

// plStatement is one statement of a PL/pgSQL body that runs SQL.
type plStatement struct {
	query   string
	line    int  // 1-based, in the body
	execute bool // EXECUTE query: query is its expression
	dynamic bool // EXECUTE of a string the lint cannot know
}

// plpgsqlStatements reads a DO block's body with PL/pgSQL's parser and
// returns the SQL it runs, in order.
func plpgsqlStatements(body string) ([]plStatement, error) {
	if n := blockWords(body); n > MaxDepth {
		return nil, fmt.Errorf("it holds %d blocks, conditions and loops, more than the %d the lint reads", n, MaxDepth)
	}
	js, err := parsePlpgsql(wrapFunction(body))
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		return nil, err
	}
	var out []plStatement
	collectStatements(tree, &out)
	slices.SortStableFunc(out, func(a, b plStatement) int { return cmp.Compare(a.line, b.line) })
	return out, nil
}

// wrapFunction makes a DO block's body the body of a function, which is
// what libpg_query's PL/pgSQL parser reads; the body keeps its lines (its
// first line is the function's first).
func wrapFunction(body string) string {
	tag := "$codeloc$"
	for strings.Contains(body, tag) {
		tag = tag[:len(tag)-1] + "x$"
	}
	return "CREATE FUNCTION pg_temp.codeloc_do() RETURNS void LANGUAGE plpgsql AS " + tag + body + tag
}

// runsSQL names the PL/pgSQL statements that run SQL: the key of their
// query, and whether it is an EXECUTE's expression. CALL is also a DO
// inside the DO; PERFORM's query is performed+"f()"; FOR ... IN query and
// FOR ... IN EXECUTE also have a body.
var runsSQL = map[string]struct {
	key     string
	execute bool
}{
	"PLpgSQL_stmt_execsql": {"sqlstmt", false}, "PLpgSQL_stmt_call": {"expr", false},
	"PLpgSQL_stmt_perform": {"expr", false}, "PLpgSQL_stmt_fors": {"query", false},
	"PLpgSQL_stmt_dynexecute": {"query", true}, "PLpgSQL_stmt_dynfors": {"query", true},
}

// collectStatements walks PL/pgSQL's JSON tree in order, keeping the
// statements that run SQL (runsSQL) with their lines.
func collectStatements(v any, out *[]plStatement) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			s, ok := t[k].(map[string]any)
			if r, runs := runsSQL[k]; runs && ok {
				*out = append(*out, plStatement{query: exprQuery(s[r.key]), line: lineNo(s), execute: r.execute})
				collectStatements(s["body"], out)
				continue
			}
			collectStatements(t[k], out)
		}
	case []any:
		for _, item := range t {
			collectStatements(item, out)
		}
	}
}

// executed is what EXECUTE expr runs: a constant string (quoted,
// dollar-quoted, with escapes) is linted as the statement it holds;
// anything else, and any EXECUTE past the first maxConstants of a file
// (each costs a parse), is unknown (dynamic).
func (l *linter) executed(expr string) (sql string, dynamic bool) {
	if l.constants >= maxConstants {
		return expr, true
	}
	l.constants++
	if sql, ok := constantString(expr); ok {
		return sql, false
	}
	return expr, true
}

// maxConstants bounds the EXECUTEs one file's lint reads.
const maxConstants = 200

// constantString reads expr with PostgreSQL's grammar and returns its
// value when it is one string constant.
func constantString(expr string) (string, bool) {
	tree, _, err := parse("SELECT " + expr)
	if err != nil || len(tree) != 1 {
		return "", false
	}
	targets := is(tree[0]["stmt"], "SelectStmt").list("targetList")
	if len(targets) != 1 {
		return "", false
	}
	k, n := kind(is(targets[0], "ResTarget")["val"])
	if k != "A_Const" || n.get("sval") == nil {
		return "", false
	}
	return n.get("sval").str("sval"), true
}

func exprQuery(v any) string {
	e, _ := v.(map[string]any)
	pe, _ := e["PLpgSQL_expr"].(map[string]any)
	q, _ := pe["query"].(string)
	return q
}

func lineNo(s map[string]any) int {
	if n, ok := s["lineno"].(float64); ok && n >= 1 {
		return int(n)
	}
	return 1
}

// blockWords counts the words that open a block, a condition or a loop:
// an upper bound of how deep the body nests.
func blockWords(body string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(body), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_'
	}) {
		switch w {
		case "begin", "if", "elsif", "case", "when", "loop", "while", "for", "foreach", "exception":
			n++
		}
	}
	return n
}

// parsePlpgsql runs PL/pgSQL's parser on fn (a CREATE FUNCTION statement),
// through the parse cache: the JSON of its statements, or PostgreSQL's
// error. Its entries have keys no file's can have (parse keeps no file
// with a NUL byte).
func parsePlpgsql(fn string) (string, error) {
	c := envCache()
	var key [32]byte
	if c != nil {
		key = c.key(plpgsqlKey + fn)
		if r := c.load(key); r != nil {
			return r.plpgsqlResult()
		}
	}
	r, err := runPlpgsql(fn)
	if err != nil {
		return "", err
	}
	if c != nil {
		c.store(key, r)
	}
	return r.plpgsqlResult()
}

// plpgsqlKey starts the cache key of a PL/pgSQL parse.
const plpgsqlKey = "\x00plpgsql\x00"

func (r *rawParse) plpgsqlResult() (string, error) {
	if r.errKind != errNone {
		return "", errors.New(r.errMsg)
	}
	return r.json, nil
}

func runPlpgsql(fn string) (r *rawParse, err error) {
	parseMu.Lock()
	defer parseMu.Unlock()
	if broken {
		return nil, errors.New("PostgreSQL's parser broke on an earlier file in this process; restart codeloc")
	}
	defer func() {
		if v := recover(); v != nil {
			broken = true
			r, err = nil, fmt.Errorf("PostgreSQL's parser gave up on it (%s)", cut(fmt.Sprint(v), 80))
		}
	}()
	p, err := theParser()
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL's parser did not start (%s)", cut(err.Error(), 80))
	}
	r = &rawParse{}
	r.set(p.ParsePlpgsql(fn))
	return r, nil
}
