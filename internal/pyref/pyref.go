// Package pyref runs Dagster's own Python as the reference the tests
// compare codeloc's Go readers against: the interpreter of .ci/dagster.sh's
// virtualenv, one process per test, one JSON line in and one out per input.
package pyref

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// VenvEnv names the virtualenv .ci/dagster.sh prints and .ci/run exports.
const VenvEnv = "CODELOC_DAGSTER_VENV"

// Python is the interpreter of the virtualenv VenvEnv names. Without it
// the test skips, and fails under CI=true, where .ci/run installs it.
func Python(t testing.TB) string {
	t.Helper()
	venv := os.Getenv(VenvEnv)
	msg := VenvEnv + " is not set: export " + VenvEnv + "=$(bash .ci/dagster.sh | tail -n1)"
	if venv != "" {
		py := filepath.Join(venv, "bin", "python")
		if _, err := os.Stat(py); err == nil {
			return py
		}
		msg = VenvEnv + "=" + venv + " has no bin/python: rerun .ci/dagster.sh"
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Request is one input of a reference script.
type Request struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Run runs script over reqs in one Python process and returns one answer
// per request, in order. The process's environment is PATH, a fresh HOME
// and env: nothing else of the test's, so {"env": NAME} sources are unset
// unless env sets them.
func Run[T any](t testing.TB, python, script string, reqs []Request, env ...string) []T {
	t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, r := range reqs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script)
	cmd.Stdin = &in
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PYTHONDONTWRITEBYTECODE=1"}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", python, script, err, stderr.String())
	}
	var answers []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var a T
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: answer %d: %v: %s", script, len(answers), err, sc.Text())
		}
		answers = append(answers, a)
	}
	if len(answers) != len(reqs) {
		t.Fatalf("%s answered %d of %d inputs\n%s", script, len(answers), len(reqs), stderr.String())
	}
	return answers
}

// Short is s on one line of at most 300 bytes, for messages.
func Short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
