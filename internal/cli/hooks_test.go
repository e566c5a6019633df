package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/codeloc/codeloc/internal/cli"
)

// preCommitHook is one hook of .pre-commit-hooks.yaml.
type preCommitHook struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	AlwaysRun     bool     `json:"always_run"`
	Entry         string   `json:"entry"`
	Language      string   `json:"language"`
	PassFilenames *bool    `json:"pass_filenames"`
	Stages        []string `json:"stages"`
}

// hookEntry is the codeloc-check hook's entry, split into words.
func hookEntry(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.UnmarshalStrict(data, &hooks); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(hooks, func(h preCommitHook) bool { return h.ID == "codeloc-check" })
	if i < 0 {
		t.Fatal("no hook codeloc-check")
	}
	h := hooks[i]
	if h.Language != "system" || h.PassFilenames == nil || *h.PassFilenames || !slices.Contains(h.Stages, "pre-commit") {
		t.Fatalf("hook %+v: want language system, pass_filenames false, stage pre-commit", h)
	}
	words := strings.Fields(h.Entry)
	if len(words) < 2 || words[0] != "codeloc" || words[1] != "check" {
		t.Fatalf("entry %q does not run codeloc check", h.Entry)
	}
	return words[1:]
}

// TestPreCommitHook runs the hook's entry, as pre-commit would (in the
// repo, the contract in $CODELOC_CONTRACT), on staged changes of a repo
// built like the e2e's atlas repo: a refused one fails the commit, a
// harmless one passes, and what is not staged is not checked.
func TestPreCommitHook(t *testing.T) {
	args := hookEntry(t)
	contract := exampleContractFile(t)
	a := newAtlasRepo(t)
	t.Chdir(a.dir)
	t.Setenv("CODELOC_CONTRACT", contract)

	a.write("citation/NOTES.md", "notes\n")
	a.git("add", "citation/NOTES.md")
	checkUndeclaredSecret := checkScenarios[0].change
	checkUndeclaredSecret(a) // not staged
	code, stdout, stderr := runCLI(t, args...)
	if code != cli.ExitOK || !strings.Contains(stdout, "`citation` (changed, `citation/`): accepted") {
		t.Fatalf("harmless staged change: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	a.git("add", "citation/deployment.yaml")
	code, stdout, stderr = runCLI(t, args...)
	if code != cli.ExitInvalid || !strings.Contains(stdout, "citation/deployment.yaml:46:19: consume-secret") {
		t.Fatalf("refused staged change: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// giteaWorkflow is the part of a Gitea Actions workflow the test reads.
type giteaWorkflow struct {
	On struct {
		PullRequest *struct {
			Types []string `json:"types"`
		} `json:"pull_request"`
	} `json:"on"`
	Jobs map[string]struct {
		RunsOn string `json:"runs-on"`
		Steps  []struct {
			Name string            `json:"name"`
			ID   string            `json:"id"`
			If   string            `json:"if"`
			Uses string            `json:"uses"`
			With map[string]any    `json:"with"`
			Env  map[string]string `json:"env"`
			Run  string            `json:"run"`
		} `json:"steps"`
	} `json:"jobs"`
}

// TestGiteaWorkflowExample checks docs/examples/gitea-codeloc-check.yaml:
// well-formed YAML, on pull_request, a full-history checkout, the contract
// fetched outside the checkout, codeloc check base..head, the report posted
// through Gitea's comments API, a failure when refused; then runs its
// codeloc check line on a pull request of a repo built like the e2e's atlas.
func TestGiteaWorkflowExample(t *testing.T) {
	data, err := os.ReadFile("../../docs/examples/gitea-codeloc-check.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.2 as Gitea reads it (act, go-yaml v3): "on" is a key, not true.
	node, err := kyaml.Parse(string(data))
	if err != nil {
		t.Fatal(err)
	}
	js, err := node.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var w giteaWorkflow
	if err := json.Unmarshal(js, &w); err != nil {
		t.Fatal(err)
	}
	job, ok := w.Jobs["check"]
	if w.On.PullRequest == nil || !ok || job.RunsOn == "" {
		t.Fatalf("want on.pull_request and a job check with runs-on: %+v", w)
	}
	var found struct{ checkout, contract, check, post, fail bool }
	var checkRun string
	for _, s := range job.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			found.checkout = s.With["fetch-depth"] == float64(0)
		case strings.Contains(s.Run, "CODELOC_CONTRACT=$RUNNER_TEMP/"):
			found.contract = true
		case strings.Contains(s.Run, "codeloc check"):
			found.check, checkRun = s.ID == "check", s.Run
		case strings.Contains(s.Run, "/api/v1/repos/${{ github.repository }}/issues/${{ github.event.pull_request.number }}/comments"):
			found.post = strings.Contains(s.Run, "jq -Rs '{body: .}'") && strings.Contains(s.Run, "Authorization: token")
		case s.If == "steps.check.outputs.exit != '0'":
			found.fail = s.Run == "exit 1"
		}
	}
	if !found.checkout || !found.contract || !found.check || !found.post || !found.fail {
		t.Fatalf("steps found %+v, want all", found)
	}
	runWorkflowCheck(t, checkRun)
}

// runWorkflowCheck runs the workflow's codeloc check command, its
// expressions replaced by a pull request's values, on a repo built like
// the e2e's atlas repo with a refused change.
func runWorkflowCheck(t *testing.T, script string) {
	t.Helper()
	contract := exampleContractFile(t)
	a := newAtlasRepo(t)
	base := strings.TrimSpace(a.git("rev-parse", "HEAD"))
	checkScenarios[0].change(a)
	a.commit("pull request")
	head := strings.TrimSpace(a.git("rev-parse", "HEAD"))
	line := strings.ReplaceAll(script, "\\\n", " ")
	i := strings.Index(line, "codeloc check")
	line = line[i : strings.Index(line[i:], ">")+i]
	line = strings.NewReplacer("${{ github.event.pull_request.base.sha }}", base, "${{ github.event.pull_request.head.sha }}", head, "$CODELOC_CONTRACT", contract).Replace(line)
	if regexp.MustCompile(`\$`).MatchString(line) {
		t.Fatalf("unreplaced expression in %q", line)
	}
	words := strings.Fields(strings.ReplaceAll(line, `"`, ""))
	t.Chdir(a.dir)
	code, stdout, stderr := runCLI(t, words[1:]...)
	if code != cli.ExitInvalid || !strings.HasPrefix(stdout, "## codeloc check: ❌") {
		t.Fatalf("%q: exit %d, stdout:\n%s\nstderr:\n%s", words, code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(a.dir, "report.md")); err == nil {
		t.Error("the report was written inside the checkout")
	}
}
