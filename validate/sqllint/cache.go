package sqllint

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// The parse cache keeps, on disk, what libpg_query returned for one file's
// text (the scanner's tokens and the parse tree, or the parser's error), so
// that a process linting a file it has seen before, even in an earlier
// process, does not start libpg_query's module at all (about 30 ms and
// 20 MiB from the precompiled module, see wasm.go; 1.5 s of CPU and 250 MiB
// at peak where it must be compiled). Lint
// findings are not cached: the rules run in Go on every call, so a change
// of rule or of the contract's severities never reads a stale result.
//
// An entry is named by the sha256 of the versions of go-pgquery and wazero
// this binary was built with, the entry format, MaxDepth and the file's
// text: a repository cannot make another's lint read its entries, and a
// build with another parser never reads an older one's. The cache is an
// optimization only: any failure (no writable directory, a corrupt entry)
// falls back to the parser, silently.

// CacheDirEnv names codeloc's cache folder: the parse cache is its
// sqlparse/ folder. Unset: os.UserCacheDir()/codeloc. Empty, "off" or a
// relative path: no cache (a relative one would follow the working
// directory, which is the repository's checkout under Argo CD).
const CacheDirEnv = "CODELOC_CACHE_DIR"

const (
	// cacheFormat versions the entry's layout and meaning: bump it when
	// rawParse or its encoding changes.
	cacheFormat = 1
	// cacheMagic starts every entry.
	cacheMagic = "codeloc-sqlparse\n"

	maxEntryBytes   = 16 << 20  // a larger output is not cached
	maxCacheEntries = 2000      // the folder is pruned past this many entries
	maxCacheBytes   = 256 << 20 // or this many bytes
	// A process checks the folder's size on its first write, then after
	// every pruneEvery writes or pruneEveryBytes written.
	pruneEvery      = 64
	pruneEveryBytes = 32 << 20
	// touchAfter: a hit refreshes the entry's mtime (the pruning's age)
	// when it is older than this, so that entries in use stay.
	touchAfter = time.Hour
	// staleTemp: a temporary file this old was left by a killed writer.
	staleTemp = 10 * time.Minute
)

// rawParse is what go-pgquery returned for one file's text: the cached
// value. result turns it into what parse returns.
type rawParse struct {
	scanned bool   // ScanToProtobuf succeeded: scan is its output
	scan    []byte // libpg_query's protobuf ScanResult
	// deep: exprDepth over the tokens passed MaxDepth, and the parser was
	// not run (see MaxDepth).
	deep    bool
	errKind byte   // errNone: json is ParseToJSON's output; else its error
	json    string // libpg_query's JSON parse tree
	errMsg  string
	cursor  int // *parser.Error's Cursorpos (errParser)
}

const (
	errNone   byte = iota
	errParser      // a *parser.Error: PostgreSQL's message and cursor
	errOther       // another error of ParseToJSON
)

// result is what parse returns for r; ok is false when r does not hold
// what the file needs (an entry that does not fit this build).
func (r *rawParse) result(sql string) (tree []node, scan []token, ok bool, err error) {
	if r.scanned {
		if toks, err := scanTokens(r.scan); err == nil {
			scan = toks
			if depth, at := exprDepth(scan); depth > MaxDepth {
				return nil, nil, true, &syntaxError{Message: fmt.Sprintf("an expression chains or nests operators more than %d deep, more than the lint reads", MaxDepth), Offset: at}
			}
		}
	}
	switch {
	case r.deep:
		return nil, nil, false, nil
	case r.errKind == errParser:
		return nil, nil, true, &syntaxError{Message: r.errMsg, Offset: cursorOffset(sql, r.cursor)}
	case r.errKind != errNone:
		return nil, nil, true, &syntaxError{Message: cut(r.errMsg, 80), Offset: -1}
	}
	if tree, err = parseTree(r.json); err != nil {
		return nil, nil, true, &syntaxError{Message: cut(err.Error(), 80), Offset: -1}
	}
	return tree, scan, true, nil
}

// buildKey is what a cache key holds besides the file's text: the entry
// format, MaxDepth and the modules that produce the output. Empty when the
// build does not say which go-pgquery or wazero it has (a development
// build of one of them, a binary without build information): no cache.
// A module replaced by its copy under third_party/ (the release plus a
// patch third_party/check.sh proves) is named by its release and the copy.
var buildKey = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return buildKeyOf(bi.Deps)
})

func buildKeyOf(deps []*debug.Module) string {
	key := fmt.Sprintf("%sformat %d\nmaxdepth %d\n", cacheMagic, cacheFormat, MaxDepth)
	for _, path := range []string{"github.com/wasilibs/go-pgquery", "github.com/tetratelabs/wazero", "github.com/wasilibs/wazero-helpers"} {
		i := slices.IndexFunc(deps, func(m *debug.Module) bool { return m.Path == path })
		if i < 0 {
			if path == "github.com/wasilibs/wazero-helpers" {
				continue // a later go-pgquery may not use it
			}
			return ""
		}
		m := deps[i]
		if r := m.Replace; r != nil && carried(r) {
			key += fmt.Sprintf("%s %s %s carried in %s\n", path, m.Path, m.Version, r.Path)
			continue
		}
		if m.Replace != nil {
			m = m.Replace
		}
		if m.Version == "" || m.Version == "(devel)" {
			return ""
		}
		key += fmt.Sprintf("%s %s %s %s\n", path, m.Path, m.Version, m.Sum)
	}
	return key
}

// carried reports whether r, a module's replacement, is a folder under this
// module's third_party/ (however go.mod spells the path: ./third_party/x,
// ./third_party/../third_party/x), which third_party/check.sh proves is the
// release plus a patch; a folder anywhere else is a development build.
func carried(r *debug.Module) bool {
	if r.Version != "" && r.Version != "(devel)" {
		return false
	}
	if !strings.HasPrefix(r.Path, "./") {
		return false // ../x, /abs/x, or a module path
	}
	rest, ok := strings.CutPrefix(path.Clean(r.Path), "third_party/")
	return ok && rest != "" && !strings.Contains(rest, "..")
}

// diskCache is one cache folder.
type diskCache struct {
	dir        string
	maxEntry   int
	maxEntries int
	maxBytes   int64
	every      int   // pruneEvery
	everyBytes int64 // pruneEveryBytes

	mu        sync.Mutex
	checked   bool // the folder's size was checked by this process
	writes    int  // since the last check
	written   int64
	buildKey  string
	disabledW bool // a write failed: stop trying for this process
}

var (
	cachesMu sync.Mutex
	caches   = map[string]*diskCache{}
)

// envCache is the cache CacheDirEnv (or its default) names, nil when
// caching is off. The variable is read at every call, so that tests may set
// it; the folder's state is kept per folder for the process.
func envCache() *diskCache {
	dir := cacheDirFromEnv()
	key := buildKey()
	if dir == "" || key == "" {
		return nil
	}
	cachesMu.Lock()
	defer cachesMu.Unlock()
	c := caches[dir]
	if c == nil {
		c = newDiskCache(dir, key)
		caches[dir] = c
	}
	return c
}

func cacheDirFromEnv() string {
	root := cacheRootFromEnv()
	if root == "" {
		return ""
	}
	return filepath.Join(root, "sqlparse")
}

// cacheRootFromEnv is codeloc's cache folder ("": none), see CacheDirEnv.
func cacheRootFromEnv() string {
	root, set := os.LookupEnv(CacheDirEnv)
	if !set {
		d, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(d, "codeloc")
	}
	if root == "" || root == "off" || !filepath.IsAbs(root) {
		return ""
	}
	return root
}

func newDiskCache(dir, buildKey string) *diskCache {
	return &diskCache{dir: dir, buildKey: buildKey, maxEntry: maxEntryBytes, maxEntries: maxCacheEntries,
		maxBytes: maxCacheBytes, every: pruneEvery, everyBytes: pruneEveryBytes}
}

// key is the entry's name for sql.
func (c *diskCache) key(sql string) [sha256.Size]byte {
	h := sha256.New()
	io.WriteString(h, c.buildKey)
	io.WriteString(h, sql)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

func (c *diskCache) path(key [sha256.Size]byte) string {
	return filepath.Join(c.dir, hex.EncodeToString(key[:]))
}

// load returns the entry for key, nil when there is none or it does not
// decode to an entry for key.
func (c *diskCache) load(key [sha256.Size]byte) *rawParse {
	path := c.path(key)
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > int64(c.maxEntry+entryOverhead) {
		return nil
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil
	}
	r, err := decodeEntry(b, key)
	if err != nil {
		return nil
	}
	if now := time.Now(); now.Sub(fi.ModTime()) > touchAfter {
		_ = os.Chtimes(path, time.Time{}, now)
	}
	return r
}

// store writes r as key's entry: a temporary file in the folder, renamed
// over the entry, so that a reader sees a whole entry or none.
func (c *diskCache) store(key [sha256.Size]byte, r *rawParse) {
	b := encodeEntry(key, r)
	if len(b) > c.maxEntry+entryOverhead {
		return
	}
	c.mu.Lock()
	off := c.disabledW
	c.mu.Unlock()
	if off {
		return
	}
	if err := c.write(key, b); err != nil {
		// Read-only, full, or not ours: lint on without the cache, and
		// without paying for a failing write at every file.
		c.mu.Lock()
		c.disabledW = true
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	c.writes++
	c.written += int64(len(b))
	due := !c.checked || c.writes >= c.every || c.written >= c.everyBytes
	if due {
		c.checked, c.writes, c.written = true, 0, 0
	}
	c.mu.Unlock()
	if due {
		c.prune(time.Now())
	}
}

func (c *diskCache) write(key [sha256.Size]byte, b []byte) error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, ".tmp-") // mode 0600
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path(key))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// prune removes the oldest entries (by mtime) while the folder holds more
// than maxEntries entries or maxBytes, down to three quarters of each, so
// that the next check finds room; and temporary files left by killed
// writers. Other files are left alone.
func (c *diskCache) prune(now time.Time) {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		name  string
		size  int64
		mtime time.Time
	}
	var entries []entry
	var total int64
	for _, de := range des {
		name := de.Name()
		isEntry := len(name) == 2*sha256.Size && isHex(name)
		if !isEntry && !strings.HasPrefix(name, ".tmp-") {
			continue
		}
		fi, err := de.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if !isEntry {
			if now.Sub(fi.ModTime()) > staleTemp {
				os.Remove(filepath.Join(c.dir, name))
			}
			continue
		}
		entries = append(entries, entry{name, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if len(entries) <= c.maxEntries && total <= c.maxBytes {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mtime.Compare(b.mtime) })
	n := len(entries)
	for _, e := range entries {
		if n <= c.maxEntries*3/4 && total <= c.maxBytes*3/4 {
			break
		}
		if err := os.Remove(filepath.Join(c.dir, e.name)); err == nil || errors.Is(err, os.ErrNotExist) {
			n--
			total -= e.size
		}
	}
}

func isHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// An entry: cacheMagic, the key, a flags byte (1 scanned, 2 deep), the
// error kind, the cursor (zig-zag varint), then the scan, the tree and the
// error message, each as a uvarint length and its bytes, and last the
// sha256 of all that came before it.
const entryOverhead = len(cacheMagic) + 2*sha256.Size + 2 + 4*binary.MaxVarintLen64

func encodeEntry(key [sha256.Size]byte, r *rawParse) []byte {
	b := make([]byte, 0, entryOverhead+len(r.scan)+len(r.json)+len(r.errMsg))
	b = append(b, cacheMagic...)
	b = append(b, key[:]...)
	var flags byte
	if r.scanned {
		flags |= 1
	}
	if r.deep {
		flags |= 2
	}
	b = append(b, flags, r.errKind)
	b = binary.AppendVarint(b, int64(r.cursor))
	for _, field := range []string{string(r.scan), r.json, r.errMsg} {
		b = binary.AppendUvarint(b, uint64(len(field)))
		b = append(b, field...)
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

var errEntry = errors.New("not an entry of this key")

func decodeEntry(b []byte, key [sha256.Size]byte) (*rawParse, error) {
	if len(b) < len(cacheMagic)+2*sha256.Size+2 {
		return nil, errEntry
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, errEntry
	}
	rest, ok := bytes.CutPrefix(body, []byte(cacheMagic))
	if !ok || !bytes.Equal(rest[:sha256.Size], key[:]) {
		return nil, errEntry
	}
	rest = rest[sha256.Size:]
	if len(rest) < 2 {
		return nil, errEntry
	}
	r := &rawParse{scanned: rest[0]&1 != 0, deep: rest[0]&2 != 0, errKind: rest[1]}
	if rest[0]&^3 != 0 || r.errKind > errOther {
		return nil, errEntry
	}
	rest = rest[2:]
	cursor, n := binary.Varint(rest)
	if n <= 0 {
		return nil, errEntry
	}
	r.cursor, rest = int(cursor), rest[n:]
	var fields [3][]byte
	for i := range fields {
		l, n := binary.Uvarint(rest)
		if n <= 0 || l > uint64(len(rest)-n) {
			return nil, errEntry
		}
		fields[i], rest = rest[n:n+int(l)], rest[n+int(l):]
	}
	if len(rest) != 0 {
		return nil, errEntry
	}
	r.scan, r.json, r.errMsg = fields[0], string(fields[1]), string(fields[2])
	if !r.scanned {
		r.scan = nil
	}
	return r, nil
}
