package sqllint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// useCache turns the parse cache on in a fresh folder for t and returns
// the folder of its entries.
func useCache(t *testing.T) string {
	t.Helper()
	EnableCacheForTest(t)
	root := t.TempDir()
	t.Setenv(CacheDirEnv, root)
	return filepath.Join(root, "sqlparse")
}

// lintOff lints sql without the cache.
func lintOff(t *testing.T, sql string) []Finding {
	t.Helper()
	t.Setenv(CacheDirEnv, "off")
	return Lint(sql, Config{})
}

const cachedSQL = "ALTER TABLE t ADD COLUMN c int NOT NULL;\nDROP TABLE u;\nSELECT (1;"

// TestCacheBadEntries spoils the entry of a file in each way a disk, a
// killed writer or a hand may: the lint reads the file again, as without
// the cache, and writes the entry anew.
func TestCacheBadEntries(t *testing.T) {
	for _, sql := range []string{cachedSQL, "DROP TABLE u;", "SELECT 1" + strings.Repeat(" + 1", 2000)} {
		want := lintOff(t, sql)
		other := encodeEntry(newDiskCache("", "test build\n").key("SELECT 1;"), &rawParse{errKind: errOther, errMsg: "x"})
		tests := []struct {
			name  string
			spoil func(good []byte, c *diskCache, key [32]byte) []byte
		}{
			{"truncated in half", func(b []byte, _ *diskCache, _ [32]byte) []byte { return b[:len(b)/2] }},
			{"last byte cut", func(b []byte, _ *diskCache, _ [32]byte) []byte { return b[:len(b)-1] }},
			{"one byte more", func(b []byte, _ *diskCache, _ [32]byte) []byte { return append(bytes.Clone(b), 0) }},
			{"a bit flipped", func(b []byte, _ *diskCache, _ [32]byte) []byte {
				b = bytes.Clone(b)
				b[len(b)/2] ^= 4
				return b
			}},
			{"empty", func([]byte, *diskCache, [32]byte) []byte { return nil }},
			{"not an entry", func([]byte, *diskCache, [32]byte) []byte { return []byte("codeloc-sqlparse\n{}") }},
			{"another file's entry", func([]byte, *diskCache, [32]byte) []byte { return other }},
			{"a whole entry that does not fit the file", func(_ []byte, _ *diskCache, key [32]byte) []byte {
				// deep without the tokens to show it: not a result
				return encodeEntry(key, &rawParse{deep: true})
			}},
		}
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%.12s/%s", sql, tt.name), func(t *testing.T) {
				dir := useCache(t)
				if got := Lint(sql, Config{}); !cmp.Equal(want, got) {
					t.Fatalf("cold: %v, want %v", got, want)
				}
				c := envCache()
				path := c.path(c.key(sql))
				good, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("no entry after a cold lint: %v", err)
				}
				if filepath.Dir(path) != dir {
					t.Fatalf("entry at %s, want it in %s", path, dir)
				}
				if err := os.WriteFile(path, tt.spoil(good, c, c.key(sql)), 0o600); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, Lint(sql, Config{})); diff != "" {
					t.Errorf("spoiled entry: findings (-want +got):\n%s", diff)
				}
				if after, _ := os.ReadFile(path); !bytes.Equal(after, good) {
					t.Errorf("the spoiled entry was not written anew")
				}
			})
		}
	}
}

// TestCacheHitSkipsParser checks a hit is read from the disk: with the
// parser out of order, a cached file still lints, and a new one does not.
func TestCacheHitSkipsParser(t *testing.T) {
	want := lintOff(t, cachedSQL)
	useCache(t)
	Lint(cachedSQL, Config{})
	parseMu.Lock()
	broken = true
	parseMu.Unlock()
	defer func() {
		parseMu.Lock()
		broken = false
		parseMu.Unlock()
	}()
	if diff := cmp.Diff(want, Lint(cachedSQL, Config{})); diff != "" {
		t.Errorf("cached file with the parser broken (-want +got):\n%s", diff)
	}
	if got := Lint("DROP TABLE v;", Config{}); len(got) != 1 || !strings.Contains(got[0].Message, "parser broke") {
		t.Errorf("a new file with the parser broken: %v, want the broken parser's problem", got)
	}
}

// TestCacheUnwritable: where the cache cannot be written, the lint works
// as without it.
func TestCacheUnwritable(t *testing.T) {
	want := lintOff(t, cachedSQL)
	tests := []struct {
		name  string
		setup func(t *testing.T) // sets the environment
	}{
		{"the folder is a file", func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "sqlparse"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv(CacheDirEnv, root)
		}},
		{"under a file", func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv(CacheDirEnv, file)
		}},
		{"the entry is a folder", func(t *testing.T) {
			root := t.TempDir()
			t.Setenv(CacheDirEnv, root)
			c := envCache()
			if err := os.MkdirAll(c.path(c.key(cachedSQL)), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"no home", func(t *testing.T) {
			t.Setenv(CacheDirEnv, "")
			os.Unsetenv(CacheDirEnv)
			t.Setenv("HOME", "")
			t.Setenv("XDG_CACHE_HOME", "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			EnableCacheForTest(t)
			tt.setup(t)
			for range 2 {
				if diff := cmp.Diff(want, Lint(cachedSQL, Config{})); diff != "" {
					t.Errorf("findings (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestCacheOff: CODELOC_CACHE_DIR empty, off or relative turns the cache
// off; unset, it is under the user's cache folder.
func TestCacheOff(t *testing.T) {
	for _, v := range []string{"", "off", "relative/cache"} {
		t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
			EnableCacheForTest(t)
			work := t.TempDir()
			t.Chdir(work)
			t.Setenv(CacheDirEnv, v)
			if c := envCache(); c != nil {
				t.Errorf("cache at %s", c.dir)
			}
			Lint(cachedSQL, Config{})
			if des, _ := os.ReadDir(work); len(des) != 0 {
				t.Errorf("the lint wrote %s in the working directory", des[0].Name())
			}
		})
	}
	t.Run("unset", func(t *testing.T) {
		EnableCacheForTest(t)
		home := t.TempDir()
		t.Setenv(CacheDirEnv, "")
		os.Unsetenv(CacheDirEnv)
		t.Setenv("HOME", home)
		t.Setenv("XDG_CACHE_HOME", "")
		Lint(cachedSQL, Config{})
		des, err := os.ReadDir(filepath.Join(home, ".cache", "codeloc", "sqlparse"))
		if err != nil || len(des) != 1 {
			t.Errorf("entries under HOME/.cache/codeloc/sqlparse: %d, %v", len(des), err)
		}
	})
	t.Run("no versions in the build", func(t *testing.T) {
		// the test binary's own build information: no module versions
		t.Setenv(CacheDirEnv, t.TempDir())
		if c := envCache(); c != nil {
			t.Errorf("cache at %s without versions of go-pgquery and wazero", c.dir)
		}
	})
}

// TestCacheModes: the folder and the entries are the user's alone.
func TestCacheModes(t *testing.T) {
	dir := useCache(t)
	Lint(cachedSQL, Config{})
	des, err := os.ReadDir(dir)
	if err != nil || len(des) != 1 {
		t.Fatalf("entries: %v, %v", des, err)
	}
	for _, p := range []string{dir, filepath.Join(dir, des[0].Name())} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s: mode %v", p, perm)
		}
	}
}

// TestCachePrune writes many entries: the folder stays within its bounds
// (plus the writes between two checks), the newest entries stay, stale
// temporary files go and other files are left alone.
func TestCachePrune(t *testing.T) {
	tests := []struct {
		name       string
		maxEntries int
		maxBytes   int64
		every      int
		everyBytes int64
		size       int // of each entry's tree
	}{
		{"by count", 10, 1 << 30, 4, 1 << 30, 100},
		{"by bytes", 1000, 20_000, 1000, 5_000, 1_000},
		{"checked at every write", 5, 1 << 30, 1, 1 << 30, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := newDiskCache(dir, "test build\n")
			c.maxEntries, c.maxBytes, c.every, c.everyBytes = tt.maxEntries, tt.maxBytes, tt.every, tt.everyBytes
			old := time.Now().Add(-time.Hour)
			for name, mtime := range map[string]time.Time{".tmp-old": old, ".tmp-new": time.Now(), "README": old} {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
				os.Chtimes(p, mtime, mtime)
			}
			entrySize := int64(len(encodeEntry(c.key(""), &rawParse{json: strings.Repeat("x", tt.size)})))
			base := time.Now().Add(-10 * time.Minute)
			const n = 200
			for i := range n {
				key := c.key(fmt.Sprint(i))
				c.store(key, &rawParse{json: strings.Repeat("x", tt.size)})
				// distinct ages, in order of writing
				os.Chtimes(c.path(key), base.Add(time.Duration(i)*time.Second), base.Add(time.Duration(i)*time.Second))
				count, total := entriesIn(t, dir)
				if count > tt.maxEntries+tt.every || total > tt.maxBytes+tt.everyBytes+entrySize {
					t.Fatalf("after %d writes: %d entries, %d bytes", i+1, count, total)
				}
			}
			count, _ := entriesIn(t, dir)
			for i := n - count; i < n; i++ {
				if _, err := os.Stat(c.path(c.key(fmt.Sprint(i)))); err != nil {
					t.Errorf("entry %d of the %d newest is gone: %v", i, count, err)
				}
			}
			for name, want := range map[string]bool{".tmp-old": false, ".tmp-new": true, "README": true} {
				if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
					t.Errorf("%s: present %v, want %v", name, err == nil, want)
				}
			}
		})
	}
}

func entriesIn(t *testing.T, dir string) (int, int64) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var total int64
	for _, de := range des {
		if len(de.Name()) == 64 {
			fi, err := de.Info()
			if err != nil {
				t.Fatal(err)
			}
			n++
			total += fi.Size()
		}
	}
	return n, total
}

// TestCacheEntryBound: an output larger than the bound is not written, and
// a file larger than it is not read.
func TestCacheEntryBound(t *testing.T) {
	dir := t.TempDir()
	c := newDiskCache(dir, "test build\n")
	c.maxEntry = 1000
	small, large := c.key("small"), c.key("large")
	c.store(small, &rawParse{json: strings.Repeat("x", 900)})
	c.store(large, &rawParse{json: strings.Repeat("x", 1100)})
	if c.load(small) == nil {
		t.Errorf("the small entry is not read back")
	}
	if _, err := os.Stat(c.path(large)); err == nil {
		t.Errorf("the large entry was written")
	}
	if err := os.WriteFile(c.path(large), encodeEntry(large, &rawParse{json: strings.Repeat("x", 1100)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if c.load(large) != nil {
		t.Errorf("a file larger than the bound was read")
	}
}

// TestBuildKey: the key names the parser's and wazero's versions; without
// them (a development build) there is no cache. A release carried under
// third_party/ (go.mod's replace by a folder of this module) is named by
// its version.
func TestBuildKey(t *testing.T) {
	mod := func(path, version, sum string) *debug.Module {
		return &debug.Module{Path: path, Version: version, Sum: sum}
	}
	pg := mod("github.com/wasilibs/go-pgquery", "v0.0.0-20260728010200-155ebad2880e", "h1:a")
	wz := mod("github.com/tetratelabs/wazero", "v1.12.0", "h1:b")
	replaced := mod("github.com/wasilibs/go-pgquery", "v0.0.0-20260728010200-155ebad2880e", "h1:a")
	replaced.Replace = mod("example.com/fork/go-pgquery", "v0.1.0", "h1:c")
	local := mod("github.com/wasilibs/go-pgquery", "v0.0.0-20260728010200-155ebad2880e", "h1:a")
	local.Replace = mod("../go-pgquery", "", "")
	// How go.mod's replace of wazero by its patched copy reads in a build.
	carried := mod("github.com/tetratelabs/wazero", "v1.12.0", "")
	carried.Replace = mod("./third_party/wazero", "(devel)", "")
	carriedNext := mod("github.com/tetratelabs/wazero", "v1.12.1", "")
	carriedNext.Replace = mod("./third_party/wazero", "", "")
	outside := mod("github.com/tetratelabs/wazero", "v1.12.0", "")
	outside.Replace = mod("../third_party/wazero", "(devel)", "")
	escaping := mod("github.com/tetratelabs/wazero", "v1.12.0", "")
	escaping.Replace = mod("./third_party/../../wazero", "(devel)", "")
	spelled := mod("github.com/tetratelabs/wazero", "v1.12.0", "")
	spelled.Replace = mod("./third_party/../third_party/wazero", "(devel)", "")
	tests := []struct {
		name string
		deps []*debug.Module
		want bool
	}{
		{"released", []*debug.Module{pg, wz}, true},
		{"replaced by a released fork", []*debug.Module{replaced, wz}, true},
		{"replaced by a local folder", []*debug.Module{local, wz}, false},
		{"wazero carried under third_party", []*debug.Module{pg, carried}, true},
		{"the next wazero carried under third_party", []*debug.Module{pg, carriedNext}, true},
		{"wazero replaced by a folder outside the module", []*debug.Module{pg, outside}, false},
		{"wazero replaced by a folder that leaves third_party", []*debug.Module{pg, escaping}, false},
		{"wazero carried, its path spelled another way", []*debug.Module{pg, spelled}, true},
		{"go-pgquery in development", []*debug.Module{mod(pg.Path, "(devel)", ""), wz}, false},
		{"no go-pgquery", []*debug.Module{wz}, false},
		{"no wazero", []*debug.Module{pg}, false},
		{"no modules", nil, false},
	}
	keys := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := buildKeyOf(tt.deps)
			if (key != "") != tt.want {
				t.Fatalf("key %q", key)
			}
			if key == "" {
				return
			}
			if other, ok := keys[key]; ok {
				t.Errorf("same key as %s", other)
			}
			keys[key] = tt.name
		})
	}
	if a, b := buildKeyOf([]*debug.Module{pg, wz}), buildKeyOf([]*debug.Module{pg, mod(wz.Path, "v1.12.1", "h1:d")}); a == b {
		t.Errorf("another wazero, the same key")
	}
}
