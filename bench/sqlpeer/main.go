// Command sqlpeer runs the peer corpus (corpus/*.sql: migrations written
// from squawk's and Atlas's rule docs and tests) through codeloc's
// migrations lint and prints, per family, how often codeloc and squawk
// give the verdict expected for PostgreSQL 15 under codeloc's migration
// Job (each file in its own transaction unless its first line is
// -- codeloc:no-transaction). Run it from the module root:
//
//	go run ./bench/sqlpeer [-v] [-dir bench/sqlpeer/corpus]
//
// It exits 1 when codeloc disagrees with an expected verdict. Offline, a
// few seconds (most of it the parser's start).
//
// A case file starts with comment lines: family (the codeloc rule the
// case is about), source, expect ("pass" or "flag RULE") and squawk
// ("pass" or "flag RULE ...": what squawk's docs and tests say, run with
// --pg-version 15 --assume-in-transaction); each "-- file" line starts the
// next migration of the case, linted in order in one session.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codeloc/codeloc/validate/sqllint"
)

type peerCase struct {
	name, family, source, expect, squawk string
	files                                []string
}

func main() {
	dir := flag.String("dir", "bench/sqlpeer/corpus", "the corpus folder")
	verbose := flag.Bool("v", false, "print every case")
	flag.Parse()
	cases, err := load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqlpeer:", err)
		os.Exit(2)
	}
	type tally struct{ n, codeloc, squawk int }
	families := map[string]*tally{}
	var total tally
	bad := 0
	for _, c := range cases {
		got := run(c)
		okC := agrees(c.expect, got)
		okS := verdict(c.squawk) == verdict(c.expect)
		t := families[c.family]
		if t == nil {
			t = &tally{}
			families[c.family] = t
		}
		for _, x := range []*tally{t, &total} {
			x.n++
			if okC {
				x.codeloc++
			}
			if okS {
				x.squawk++
			}
		}
		if !okC {
			bad++
		}
		if *verbose || !okC {
			fmt.Printf("%-40s expect %-36s codeloc %-36s squawk %s\n", c.name, c.expect, got, c.squawk)
		}
	}
	names := make([]string, 0, len(families))
	for f := range families {
		names = append(names, f)
	}
	sort.Strings(names)
	fmt.Println("| family (codeloc rule) | cases | codeloc agrees | squawk agrees |")
	fmt.Println("|---|---:|---:|---:|")
	for _, f := range names {
		t := families[f]
		fmt.Printf("| `%s` | %d | %d | %d |\n", f, t.n, t.codeloc, t.squawk)
	}
	fmt.Printf("| **all** | %d | %d (%.0f%%) | %d (%.0f%%) |\n", total.n, total.codeloc, pct(total.codeloc, total.n), total.squawk, pct(total.squawk, total.n))
	if bad > 0 {
		os.Exit(1)
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// run lints the case's files in order and returns codeloc's verdict:
// "pass", or "flag" and the codes of its findings (not allowed ones).
func run(c peerCase) string {
	s := sqllint.NewSession(sqllint.Config{LockTimeout: 5 * time.Second})
	var codes []string
	for _, f := range c.files {
		for _, fd := range s.Lint(f) {
			if fd.Allowed == "" {
				codes = append(codes, fd.Code)
			}
		}
	}
	if len(codes) == 0 {
		return "pass"
	}
	return "flag " + strings.Join(codes, ",")
}

// agrees: a pass is expected and none is found, or the expected rule is
// among the findings.
func agrees(expect, got string) bool {
	if expect == "pass" {
		return got == "pass"
	}
	rule := strings.TrimPrefix(expect, "flag ")
	for _, c := range strings.Split(strings.TrimPrefix(got, "flag "), ",") {
		if c == rule {
			return true
		}
	}
	return false
}

func verdict(s string) string { return strings.Fields(s + " x")[0] }

func load(dir string) ([]peerCase, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, fmt.Errorf("the corpus: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no case in %s (run from the module root)", dir)
	}
	var out []peerCase
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		c := peerCase{name: strings.TrimSuffix(filepath.Base(p), ".sql")}
		parts := strings.Split(string(b), "-- file\n")
		for _, line := range strings.Split(parts[0], "\n") {
			key, value, ok := strings.Cut(strings.TrimPrefix(line, "-- "), ": ")
			if !ok {
				continue
			}
			switch key {
			case "family":
				c.family = value
			case "source":
				c.source = value
			case "expect":
				c.expect = value
			case "squawk":
				c.squawk = value
			}
		}
		c.files = parts[1:]
		if c.family == "" || c.expect == "" || c.squawk == "" || len(c.files) == 0 {
			return nil, fmt.Errorf("%s: a case needs family, expect, squawk and at least one -- file", p)
		}
		out = append(out, c)
	}
	return out, nil
}
