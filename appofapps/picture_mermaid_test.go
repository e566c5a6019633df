package appofapps

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The pictures checked by Mermaid itself, from npm (.ci/mermaid.sh
// installs it and runs these tests):
//
//	dir=$(bash .ci/mermaid.sh | tail -n1)
//	CODELOC_MERMAID_DIR=$dir CODELOC_CHROMIUM=/usr/bin/chromium go test -run 'Mermaid' ./appofapps
const (
	// envMermaidDir is the folder holding node_modules installed from
	// .ci/mermaid/package-lock.json.
	envMermaidDir = "CODELOC_MERMAID_DIR"
	// envChromium is the Chromium binary that draws a picture.
	envChromium = "CODELOC_CHROMIUM"
	// mermaidCheck parses Mermaid diagrams with mermaid.parse.
	mermaidCheck = "../.ci/mermaid/check.mjs"
)

// needEnv is the value of env, or the test skips saying how to get it.
// It skips under CI=true too: .ci/run's go test step runs before
// .ci/mermaid.sh, which sets the variables, runs these tests and fails
// when one of them skips.
func needEnv(t *testing.T, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		t.Skip(env + " is unset: bash .ci/mermaid.sh installs Mermaid (npm) and Chromium (apt) and runs this test with them")
	}
	return v
}

// counts are the nodes and edges a picture draws, as Mermaid's flowchart
// database holds them: a name that left its label would change them.
func counts(p Picture) string {
	nodes := len(p.CodeLocations) + len(p.Outside) + len(p.Databases) + len(p.Buckets)
	if nodes == 0 {
		nodes = 1 // "no code-location"
	}
	return fmt.Sprintf("nodes=%d edges=%d", nodes, len(p.edges()))
}

// checkLine is a line of check.mjs for a diagram that parses.
var checkLine = regexp.MustCompile(`^ok (\S+):(\d+) flowchart-v2 (nodes=\d+ edges=\d+)$`)

// TestMermaidParser parses every pinned picture (the .mmd files and the
// README's mermaid block) and the output directory's README with
// Mermaid's own parser, and checks the nodes and edges it finds.
func TestMermaidParser(t *testing.T) {
	dir := needEnv(t, envMermaidDir)
	want := map[string]string{filepath.Join(pictureGoldens, "..", "output-dir.golden"): "nodes=4 edges=4"}
	for _, c := range pictureCases() {
		n := counts(c.picture(t))
		want[filepath.Join(pictureGoldens, c.name+".mmd")] = n
		want[filepath.Join(pictureGoldens, c.name+".md")] = n
	}
	var files []string
	for f := range want {
		files = append(files, f)
	}
	out, err := runCheck(t, dir, files...)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		m := checkLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("check.mjs says %q", line)
			continue
		}
		got[filepath.Clean(m[1])] = m[3]
	}
	for f, w := range want {
		if got[filepath.Clean(f)] != w {
			t.Errorf("%s: Mermaid finds %q, the picture draws %q", f, got[filepath.Clean(f)], w)
		}
	}
}

// TestMermaidParserRefuses: check.mjs fails on a diagram a name broke
// and on a file without one, so that TestMermaidParser can fail.
func TestMermaidParserRefuses(t *testing.T) {
	dir := needEnv(t, envMermaidDir)
	tmp := t.TempDir()
	for name, data := range map[string]string{
		"broken.mmd": "flowchart LR\n  cl_a[\"a\"] --> x[\"b\"]\"]\n",
		"none.md":    "no diagram here\n",
	} {
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := runCheck(t, dir, path); err == nil {
			t.Errorf("%s passes:\n%s", name, out)
		}
	}
}

// runCheck runs check.mjs on files with the modules of dir.
func runCheck(t *testing.T, dir string, files ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", append([]string{mermaidCheck, dir}, files...)...).CombinedOutput()
	return string(out), err
}

// TestMermaidChromium draws pinned pictures once in headless Chromium with
// Mermaid's browser bundle from the local install (file:// only, no
// network) and checks the page: an <svg>, one node per code-location,
// database and bucket, each code-location's name as its label's text (the
// hostile ones too), no <img> made of a name, no syntax error.
func TestMermaidChromium(t *testing.T) {
	dir := needEnv(t, envMermaidDir)
	chromium := needEnv(t, envChromium)
	bundle := filepath.Join(dir, "node_modules", "mermaid", "dist", "mermaid.min.js")
	if _, err := os.Stat(bundle); err != nil {
		t.Fatal(err)
	}
	for _, c := range pictureCases() {
		if c.name != "fixtures" && c.name != "hostile" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			p := c.picture(t)
			dom := drawInChromium(t, chromium, bundle, p.Mermaid())
			checkDrawn(t, dom, p)
		})
	}
}

// drawInChromium renders source with Mermaid in headless Chromium and
// returns the page's DOM once drawn.
func drawInChromium(t *testing.T, chromium, bundle string, source []byte) string {
	t.Helper()
	tmp := t.TempDir()
	src, err := json.Marshal(string(source)) // escapes <, > and &: no </script> inside
	if err != nil {
		t.Fatal(err)
	}
	page := `<!doctype html><html><head><meta charset="utf-8"><script src="file://` + filepath.ToSlash(bundle) + `"></script></head><body>
<div id="out"></div>
<script>
mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
mermaid.render("picture", ` + string(src) + `)
  .then(r => { document.getElementById("out").innerHTML = r.svg; document.body.dataset.drawn = "yes"; })
  .catch(e => { document.body.dataset.drawn = "no"; document.getElementById("out").textContent = "ERROR " + e; });
</script></body></html>`
	html := filepath.Join(tmp, "picture.html")
	if err := os.WriteFile(html, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(tmp, "profile"), "--allow-file-access-from-files",
		"--virtual-time-budget=20000", "--dump-dom", "file://"+filepath.ToSlash(html))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", chromium, err, stderr.String())
	}
	return string(dom)
}

// checkDrawn checks the DOM Chromium dumped for picture p.
func checkDrawn(t *testing.T, dom string, p Picture) {
	t.Helper()
	if !strings.Contains(dom, `data-drawn="yes"`) || !strings.Contains(dom, "<svg") || strings.Contains(dom, "Syntax error") {
		t.Fatalf("not drawn:\n%.3000s", dom)
	}
	var ids []string
	for _, n := range p.CodeLocations {
		ids = append(ids, nodeID(idCodeLocation, n.Name))
	}
	for _, name := range p.Databases {
		ids = append(ids, nodeID(idDatabase, name))
	}
	for _, name := range p.Buckets {
		ids = append(ids, nodeID(idBucket, name))
	}
	for _, id := range ids {
		if !regexp.MustCompile(`<g class="node[^"]*" id="[^"]*flowchart-` + id + `-\d+"`).MatchString(dom) {
			t.Errorf("no node %s in the drawing", id)
		}
	}
	if got, want := strings.Count(dom, `<g class="node `), len(ids)+len(p.Outside); got != want {
		t.Errorf("%d nodes drawn, want %d", got, want)
	}
	if strings.Contains(dom, "<img") {
		t.Error("a name became an <img> element")
	}
	// Each name is its label's text, as the DOM serializes text.
	text := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for _, n := range p.CodeLocations {
		if strings.ContainsFunc(n.Name, func(r rune) bool { return r < ' ' }) {
			continue // drawn as a line break
		}
		if want := "<p>" + text.Replace(n.Name) + "<br>"; !strings.Contains(dom, want) {
			t.Errorf("no label %q in the drawing", want)
		}
	}
}
