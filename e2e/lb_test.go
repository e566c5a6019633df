package e2e

import (
	"bufio"
	"fmt"
	"net"
	"testing"
)

// TestBalancer: every connection through the balancer reaches one backend
// and carries both ways, the backend sees the client's end, and the
// connections spread over both backends.
func TestBalancer(t *testing.T) {
	backends := []string{namedEcho(t, "a"), namedEcho(t, "b")}
	lb, err := startBalancer(backends)
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	seen := map[string]int{}
	const dials = 64
	for i := range dials {
		seen[roundTrip(t, lb.Addr(), fmt.Sprintf("ping %d", i))]++
	}
	if seen["a"] == 0 || seen["b"] == 0 || seen["a"]+seen["b"] != dials {
		t.Errorf("replies per backend: %v, want both among %d", seen, dials)
	}
	conns := lb.Connections()
	if conns[0] != int64(seen["a"]) || conns[1] != int64(seen["b"]) {
		t.Errorf("Connections() = %v, replies %v", conns, seen)
	}
}

// roundTrip sends line, closes its side, and returns the backend's name
// from its reply "name: line".
func roundTrip(t *testing.T, addr, line string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := fmt.Fprintln(c, line); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	var name, got string
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if _, err := fmt.Sscanf(reply, "%s %s", &name, &got); err != nil {
		t.Fatalf("reply %q: %v", reply, err)
	}
	return name[:len(name)-1]
}

// namedEcho serves "name: " and each line it reads back, until the
// client's end; it returns its address.
func namedEcho(t *testing.T, name string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					fmt.Fprintf(c, "%s: %s\n", name, sc.Text())
				}
			}()
		}
	}()
	return ln.Addr().String()
}
