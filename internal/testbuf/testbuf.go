// Package testbuf is a buffer for tests that collect what a server's
// goroutines write (its log), while the test reads it.
package testbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that is safe for concurrent use: writers append
// whole writes, String reads what was written so far. The zero value is an
// empty buffer ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
