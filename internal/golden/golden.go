// Package golden compares test outputs with the files that pin them, and
// rewrites those files when the tests run with -update. Only tests import
// it: the flag exists in test binaries alone.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files and pinned outputs instead of comparing")

// Check compares got with the content of file; under -update it writes got
// to file instead (creating its folder). rerun says how to update, for the
// failure message ("go test ./render -run Golden -update").
func Check(tb testing.TB, file string, got []byte, rerun string) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		tb.Fatalf("%v (run %s)", err, rerun)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		tb.Errorf("%s differs (-want +got); run %s if the change is meant:\n%s", file, rerun, diff)
	}
}
