package docs

// The link and anchor check of the repository's Markdown: every relative
// link must name a file that exists, and every #anchor must be one that a
// heading (GitHub's slugs) or an explicit <a id>/<a name> of the target
// provides. External http(s) links are not fetched. Run alone with
//
//	go test -count=1 -run TestLinks ./docs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// TestLinks checks README.md and every *.md file of the repository.
func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, upstreamCopy)
	if len(files) < 5 {
		t.Fatalf("found %d Markdown files under %s: wrong root?", len(files), root)
	}
	for _, p := range checkLinks(os.DirFS(root), files) {
		t.Error(p)
	}
}

// upstreamCopy reports whether file is in a module third_party/ carries
// (third_party/NAME/...): upstream's pages, cut with the rest of the copy to
// what the build needs, so that their links may name files left out.
// third_party/README.md is ours.
func upstreamCopy(file string) bool {
	rest, ok := strings.CutPrefix(file, "third_party/")
	return ok && strings.Contains(rest, "/")
}

// markdownFiles lists the *.md files git tracks under root, slash-separated
// and relative to it. Without git (a source tree that is no clone) it walks
// root instead, skipping hidden and _-prefixed folders (.git, _out) and bin.
func markdownFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--", "*.md")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		sort.Strings(files)
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "bin" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// checkLinks returns one line per broken link of files, which are paths in
// fsys: "FILE:LINE: link TARGET: what is wrong".
func checkLinks(fsys fs.FS, files []string) []string {
	anchors := map[string]map[string]bool{} // file -> anchors, read once
	anchorsOf := func(file string) (map[string]bool, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(b))
		anchors[file] = a
		return a, nil
	}
	var problems []string
	for _, file := range files {
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		for _, l := range links(string(b)) {
			if msg := checkLink(fsys, file, l.target, anchorsOf); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %s: %s", file, l.line, l.target, msg))
			}
		}
	}
	return problems
}

// checkLink says what is wrong with one link target of file, or "".
func checkLink(fsys fs.FS, file, target string, anchorsOf func(string) (map[string]bool, error)) string {
	if u, err := url.Parse(target); err == nil && u.Scheme != "" {
		return "" // http(s), mailto: not fetched
	}
	if strings.HasPrefix(target, "//") {
		return ""
	}
	p, frag, _ := strings.Cut(target, "#")
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	dest := file
	if p != "" {
		if strings.HasPrefix(p, "/") {
			dest = path.Clean(strings.TrimPrefix(p, "/"))
		} else {
			dest = path.Join(path.Dir(file), p)
		}
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return "leaves the repository"
		}
		if _, err := fs.Stat(fsys, dest); err != nil {
			return "no such file " + dest
		}
	}
	if frag == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return "" // anchors into other files (line numbers, code) are not checked
	}
	a, err := anchorsOf(dest)
	if err != nil {
		return err.Error()
	}
	if !a[frag] {
		return fmt.Sprintf("no heading or <a id> %q in %s", frag, dest)
	}
	return ""
}

type link struct {
	line   int
	target string
}

var (
	// [text](target) and ![alt](target); the text may hold one level of
	// brackets, the target may be <...> and be followed by a "title".
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+"[^"]*")?\s*\)`)
	// [label]: target
	referenceDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	// <a href="target">
	htmlHref = regexp.MustCompile(`<a\s[^>]*href\s*=\s*["']([^"']*)["']`)
)

// links returns the link targets of a Markdown text with their lines,
// outside fenced code blocks and code spans.
func links(text string) []link {
	var out []link
	for i, line := range proseLines(text) {
		if line == "" {
			continue
		}
		line = stripCodeSpans(line)
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, strings.Trim(m[1], "<>")})
		}
		if m := referenceDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{i + 1, strings.Trim(m[1], "<>")})
		}
		for _, m := range htmlHref.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, m[1]})
		}
	}
	for i := range out {
		if out[i].target == "" {
			out[i].target = "#" // an empty target is broken too, reported as such below
		}
	}
	return out
}

// stripCodeSpans replaces each code span of a line (a run of backticks up
// to the next run of the same length) with an empty one.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		run := line[i:n]
		end := -1
		for j := n; j < len(line); {
			k := strings.Index(line[j:], run)
			if k < 0 {
				break
			}
			k += j
			m := k + len(run)
			if m == len(line) || line[m] != '`' {
				if k == 0 || line[k-1] != '`' {
					end = k
					break
				}
			}
			for m < len(line) && line[m] == '`' {
				m++
			}
			j = m
		}
		if end < 0 { // no closing run: the backticks are text
			b.WriteString(line[:n])
			line = line[n:]
			continue
		}
		b.WriteString(line[:i])
		b.WriteString("``")
		line = line[end+len(run):]
	}
}

// proseLines returns the lines of text with those inside fenced code blocks
// (``` or ~~~) blanked, so that line numbers stay right.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" \t") == "" {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if len(line)-len(trimmed) <= 3 {
			for _, f := range []string{"```", "~~~"} {
				if strings.HasPrefix(trimmed, f) {
					n := len(trimmed) - len(strings.TrimLeft(trimmed, f[:1]))
					fence = strings.Repeat(f[:1], n)
					lines[i] = ""
				}
			}
		}
	}
	return lines
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	explicitID = regexp.MustCompile(`<a\s[^>]*(?:id|name)\s*=\s*["']([^"']+)["']`)
	mdLink     = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// headingAnchors returns the anchors a Markdown text provides: the slug of
// each ATX heading, numbered as GitHub numbers duplicates, and the explicit
// <a id="..."> and <a name="..."> anchors.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		for _, m := range explicitID.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if n, ok := seen[s]; ok {
			seen[s] = n + 1
			anchors[fmt.Sprintf("%s-%d", s, n+1)] = true
			continue
		}
		seen[s] = 0
		anchors[s] = true
	}
	return anchors
}

// slug is GitHub's anchor for a heading: the heading's text (links and code
// spans reduced to their text, tags and emphasis dropped), lowercased,
// every character that is not a letter, a digit, a space, '-' or '_'
// dropped, and spaces turned into '-'.
func slug(heading string) string {
	s := mdLink.ReplaceAllString(heading, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
