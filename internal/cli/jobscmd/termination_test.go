package jobscmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteTermination: the message is cut to what Kubernetes keeps (4096
// bytes, the newline included) without splitting a character, for both
// Job commands, which share the writer.
func TestWriteTermination(t *testing.T) {
	tests := []struct {
		name, msg string
		wantLen   int
	}{
		{"short", "preflight citation: ok", len("preflight citation: ok\n")},
		{"ascii over the limit", strings.Repeat("x", 5000), 4096},
		{"two-byte characters over the limit", strings.Repeat("é", 3000), 4096},
		{"three-byte characters over the limit", strings.Repeat("€", 2000), 4095},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "termination-log")
			writeTermination(path, tt.msg)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantLen || !utf8.Valid(got) || !strings.HasPrefix(tt.msg+"\n", string(got)) {
				t.Errorf("wrote %d bytes (valid UTF-8: %v), want %d bytes of the message's start", len(got), utf8.Valid(got), tt.wantLen)
			}
		})
	}
}

// TestWriteTerminationNeverCreatesTheDefault: on a laptop
// /dev/termination-log does not exist and must not be created.
func TestWriteTerminationNeverCreatesTheDefault(t *testing.T) {
	if _, err := os.Stat(defaultTerminationLog); err == nil {
		t.Skip(defaultTerminationLog + " exists here (in a pod)")
	}
	writeTermination(defaultTerminationLog, "x")
	if _, err := os.Stat(defaultTerminationLog); !os.IsNotExist(err) {
		os.Remove(defaultTerminationLog)
		t.Errorf("%s was created: %v", defaultTerminationLog, err)
	}
	writeTermination("", "x") // no file: nothing to do, no panic
}
