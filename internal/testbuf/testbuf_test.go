package testbuf

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites writes from many goroutines while reading (run
// with -race): every write arrives whole.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				fmt.Fprintf(&b, "w%d-%d\n", i, j)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "w") || !strings.Contains(l, "-") {
			t.Errorf("torn line %q", l)
		}
	}
	var _ io.Writer = &b
	var _ fmt.Stringer = &b
}
