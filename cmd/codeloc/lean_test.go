package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLeanCLI checks cmd/codeloc links no Argo CD package: the stock
// cmp-server starts it for every render.
func TestLeanCLI(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/argoproj/") {
			t.Errorf("cmd/codeloc depends on %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/codeloc/codeloc/plugin") {
		t.Error("cmd/codeloc does not link the plugin package: is generate wired?")
	}
}

// TestMethodDeadCodeElimination checks the linker still drops the exported
// methods nothing calls: one reachable call of text/template's method lookup
// by name (evalField) makes it keep every exported method of every type,
// 6 MB more of a binary started at every render (appofapps runs its
// templates on a copy of text/template without method calls).
func TestMethodDeadCodeElimination(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/codeloc")
	}
	bin := filepath.Join(t.TempDir(), "codeloc")
	// Static, as the image builds it: with cgo, kustomize's Go plugin
	// loader links package plugin and the linker keeps every method anyway.
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		if strings.HasSuffix(strings.TrimSpace(line), " text/template.(*state).evalField") {
			t.Fatalf("cmd/codeloc links text/template's method calls (%s): something executes a text/template template", strings.TrimSpace(line))
		}
	}
}

// TestNoRegexpAtInit checks that no package of this module that cmd/codeloc
// links compiles a regexp when the process starts, nor does the semver copy
// sprig links (third_party/semver; TestThirdPartyLinked checks it is the one
// linked): a package-level variable's initializer or an init function that
// calls regexp's Compile or MustCompile directly.
// Every process the stock cmp-server starts would pay it before reading a
// file; compile at first use (sync.OnceValue) instead.
func TestNoRegexpAtInit(t *testing.T) {
	checked := 0
	for _, pkg := range linkedPackages(t) {
		if !strings.HasPrefix(pkg.path, "github.com/codeloc/codeloc/") && pkg.path != "github.com/Masterminds/semver/v3" {
			continue
		}
		for _, name := range pkg.goFiles {
			checked++
			for _, pos := range regexpsAtInit(t, filepath.Join(pkg.dir, name)) {
				t.Errorf("%s: compiles a regexp when the process starts: compile it at first use (sync.OnceValue)", pos)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d files checked: go list's output changed?", checked)
	}
}

// TestThirdPartyLinked checks that cmd/codeloc links each module go.mod
// replaces with a copy under third_party/ from that copy: a replace names
// one release, and stops applying without a word once the build list
// selects another (third_party/check.sh proves each copy is its release
// plus its patch).
func TestThirdPartyLinked(t *testing.T) {
	edit, err := exec.Command("go", "mod", "edit", "-json").Output()
	if err != nil {
		t.Fatalf("go mod edit: %v", err)
	}
	var mod struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(edit, &mod); err != nil {
		t.Fatal(err)
	}
	copies := map[string]string{} // module path -> directory, slash-separated
	for _, r := range mod.Replace {
		if strings.HasPrefix(r.New.Path, "./third_party/") {
			copies[r.Old.Path] = strings.TrimPrefix(r.New.Path, "./")
		}
	}
	if len(copies) < 4 {
		t.Fatalf("go.mod replaces %d modules with a copy under third_party/, want semver's, kustomize/api's, wazero's and k8s.io/api's", len(copies))
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}\t{{.Dir}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		path, dir, _ := strings.Cut(strings.TrimSpace(line), "\t")
		want, ok := copies[path]
		if !ok {
			continue
		}
		linked[path] = true
		if !strings.HasSuffix(filepath.ToSlash(dir), want) {
			t.Errorf("cmd/codeloc links %s from %s, not from %s: go.mod's replace no longer applies", path, dir, want)
		}
	}
	for path, dir := range copies {
		if !linked[path] {
			t.Errorf("cmd/codeloc links nothing of %s: drop %s and its replace", path, dir)
		}
	}
}

// TestNoSwaggerMapsAtInit checks that no k8s.io/api package cmd/codeloc
// links builds its Swagger documentation maps when the process starts: each
// types_swagger_doc_generated.go holds one package-level map per type, built
// by the package's init for a SwaggerDoc method nothing here calls (8 % of
// the start-up's instructions for the 15 packages of 2026-12). The copy in
// third_party/k8s-api drops those files; a package the build starts to link
// brings its file back until k8s-api.patch deletes it too.
func TestNoSwaggerMapsAtInit(t *testing.T) {
	checked := 0
	for _, pkg := range linkedPackages(t) {
		if !strings.HasPrefix(pkg.path, "k8s.io/api/") {
			continue
		}
		checked++
		if slices.Contains(pkg.goFiles, "types_swagger_doc_generated.go") {
			t.Errorf("%s: cmd/codeloc links %s's Swagger maps, built at every start: delete the file in third_party/k8s-api.patch and run bash third_party/check.sh --write",
				filepath.Join(pkg.dir, "types_swagger_doc_generated.go"), pkg.path)
		}
	}
	if checked == 0 {
		t.Fatal("cmd/codeloc links no k8s.io/api package: go list's output changed?")
	}
}

// linkedPackage is a package cmd/codeloc links, as go list names it.
type linkedPackage struct {
	path, dir string
	goFiles   []string // the non-test Go files the build compiles
}

// linkedPackages lists the packages cmd/codeloc links on this platform.
func linkedPackages(t *testing.T) []linkedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []linkedPackage
	for line := range strings.Lines(string(out)) {
		path, rest, _ := strings.Cut(strings.TrimSpace(line), "\t")
		dir, files, _ := strings.Cut(rest, "\t")
		pkgs = append(pkgs, linkedPackage{path: path, dir: dir, goFiles: strings.Fields(files)})
	}
	return pkgs
}

// regexpsAtInit returns the positions of the regexp compilations in file
// that run when its package initializes: in a package-level variable's
// initializer or an init function, outside function literals that are not
// called there.
func regexpsAtInit(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	regexpName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"regexp"` {
			regexpName = "regexp"
			if imp.Name != nil {
				regexpName = imp.Name.Name
			}
		}
	}
	if regexpName == "" {
		return nil
	}
	var found []string
	var visit func(ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not when defined
		case *ast.CallExpr:
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, visit) // called right here
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == regexpName && strings.Contains(sel.Sel.Name, "Compile") {
					found = append(found, fset.Position(n.Pos()).String())
				}
			}
		}
		return true
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				ast.Inspect(d, visit)
			}
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil && d.Body != nil {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return found
}
