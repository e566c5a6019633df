package sqllint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCompileCacheDir: the image's precompiled folder when it exists, else
// the cache folder's wazero/, else none.
func TestCompileCacheDir(t *testing.T) {
	old := precompiledDir
	t.Cleanup(func() { precompiledDir = old })
	shipped := filepath.Join(t.TempDir(), "lib", "codeloc", "wazero")
	precompiledDir = func() string { return shipped }
	root := t.TempDir()

	t.Setenv(CacheDirEnv, root)
	if got, want := compileCacheDir(), filepath.Join(root, "wazero"); got != want {
		t.Errorf("no precompiled folder: %q, want %q", got, want)
	}
	t.Setenv(CacheDirEnv, "off")
	if got := compileCacheDir(); got != "" {
		t.Errorf("no precompiled folder, cache off: %q, want none", got)
	}
	if err := os.MkdirAll(shipped, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"off", root} {
		t.Setenv(CacheDirEnv, env)
		if got := compileCacheDir(); got != shipped {
			t.Errorf("precompiled folder, %s=%s: %q, want %q", CacheDirEnv, env, got, shipped)
		}
	}
}
