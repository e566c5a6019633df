package sidecar

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name       string
		files      map[string]string // under the cgroup root
		self       string            // /proc/self/cgroup
		gomemlimit string
		want       int64
		from       string // the file read, relative to the root
	}{
		{"v2, own cgroup", map[string]string{"kubepods/pod1/c1/memory.max": "536870912\n", "memory.max": "max\n"}, "0::/kubepods/pod1/c1\n", "", 512 * mib * 85 / 100, "kubepods/pod1/c1/memory.max"},
		{"v2, cgroup namespace", map[string]string{"memory.max": "536870912\n"}, "0::/\n", "", 512 * mib * 85 / 100, "memory.max"},
		{"v2, no limit", map[string]string{"memory.max": "max\n"}, "0::/\n", "", 0, "memory.max"},
		{"v1", map[string]string{"memory/memory.limit_in_bytes": "1073741824\n"}, "4:memory:/kubepods/x\n", "", 1024 * mib * 85 / 100, "memory/memory.limit_in_bytes"},
		{"v1, no limit", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, "", "", 0, "memory/memory.limit_in_bytes"},
		{"no cgroup", nil, "", "", 0, ""},
		{"GOMEMLIMIT wins", map[string]string{"memory.max": "536870912\n"}, "0::/\n", "400MiB", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, data := range tt.files {
				writeCgroupFile(t, filepath.Join(root, name), data)
			}
			self := filepath.Join(t.TempDir(), "cgroup")
			writeCgroupFile(t, self, tt.self)
			env := func(k string) string {
				if k == "GOMEMLIMIT" {
					return tt.gomemlimit
				}
				return ""
			}
			got, from := memoryLimit(env, root, self)
			var wantFrom string
			switch {
			case tt.gomemlimit != "":
				wantFrom = "GOMEMLIMIT"
			case tt.want > 0:
				wantFrom = filepath.Join(root, tt.from)
			default:
				wantFrom = ""
			}
			if got != tt.want || from != wantFrom {
				t.Errorf("memoryLimit = %d from %q, want %d from %q", got, from, tt.want, wantFrom)
			}
		})
	}
}

func writeCgroupFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
