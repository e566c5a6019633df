package cli_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/internal/cli"
	"github.com/codeloc/codeloc/render/policy"
	"github.com/codeloc/codeloc/render/policy/dagster"
	"github.com/codeloc/codeloc/validate"
)

func TestExplain(t *testing.T) {
	code, stdout, stderr := runCLI(t, "explain", dagster.CodeContextSidecar)
	if code != cli.ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := dagster.CodeContextSidecar + " (Dagster)\n\n" + dagster.CodeDocs()[dagster.CodeContextSidecar] + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}

	code, stdout, stderr = runCLI(t, "explain", "no-such-code")
	if code != cli.ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `unknown problem code "no-such-code"`) {
		t.Errorf("unknown code: exit %d, stdout %q, stderr %q; want exit %d and one line", code, stdout, stderr, cli.ExitUsage)
	}
	for _, args := range [][]string{{"explain"}, {"explain", "a", "b"}, {"explain", "--list", "a"}} {
		if code, _, _ := runCLI(t, args...); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cli.ExitUsage)
		}
	}

	// Every code the render's stages declare is explained, with its sentence.
	code, stdout, _ = runCLI(t, "explain", "--list")
	if code != cli.ExitOK {
		t.Fatalf("--list: exit %d", code)
	}
	listed := strings.Split(strings.TrimSpace(stdout), "\n")
	for _, docs := range []map[string]string{validate.CodeDocs(), policy.KubernetesCodeDocs(), dagster.CodeDocs()} {
		for _, c := range slices.Sorted(maps.Keys(docs)) {
			if !slices.Contains(listed, c) {
				t.Errorf("--list lacks %s", c)
			}
			sentence := strings.Join(strings.Fields(docs[c]), " ")
			if _, out, _ := runCLI(t, "explain", c); !strings.HasPrefix(out, c+" (") || !strings.Contains(out, sentence) {
				t.Errorf("explain %s: %q", c, out)
			}
		}
	}
}
