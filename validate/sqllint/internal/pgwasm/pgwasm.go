// Package pgwasm runs PostgreSQL's parser, libpg_query compiled to
// WebAssembly (go-pgquery's build), under wazero with a configuration of
// its own: go-pgquery's parser package compiles the module at the first
// call of every process (about 1.5 s of CPU and 250 MiB at peak), with no
// way to keep the machine code. Here the compiler's output is read from a
// compilation cache folder when it holds it (about 30 ms and 20 MiB; see
// bench/coldstart.md), and written there otherwise.
//
// The module runs without its DWARF debug information: wazero would
// otherwise keep a source map of every instruction, which makes a cached
// module about as slow to read back (half a million small reads) as it is
// to compile. A trap's message loses the wasm source lines, nothing else.
package pgwasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/wasilibs/wazero-helpers/allocator"
)

var (
	errRead  = errors.New("pgwasm: read outside the module's memory")
	errWrite = errors.New("pgwasm: write outside the module's memory")
)

// Error is PostgreSQL's refusal of the text: its message and its 1-based
// character position (0: none).
type Error struct {
	Message   string
	Cursorpos int
}

func (e *Error) Error() string { return e.Message }

// Parser is one instance of the module. It is not safe for concurrent use,
// and after a call panicked (the module trapped) it must not be used again:
// the module's stack is left where the trap was.
type Parser struct {
	rt  wazero.Runtime
	mod api.Module
	mem api.Memory

	malloc, free, scan, freeScan, parse, freeParse, parsePlpgsql, freePlpgsql api.Function

	// Compiled is true when this process compiled the module (the cache
	// folder did not hold it, or there was none), false when its machine
	// code was read from the folder.
	Compiled bool
}

// runtimeConfig is the one configuration the module is compiled and
// cached with: a cache entry is named by the module, wazero's version and
// the CPU's features, not by this configuration.
func runtimeConfig() wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().
		WithDebugInfoEnabled(false).
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesThreads)
}

// New compiles and instantiates the module. dir is a compilation cache
// folder ("": none): when it holds the module compiled by this version of
// wazero for this CPU, its machine code is read from there; otherwise the
// module is compiled and written there, if dir is writable (a read-only
// folder, such as the image's precompiled one, is only read). A folder
// wazero cannot use, or an entry it cannot read, is ignored: the module is
// compiled in memory.
func New(dir string) (*Parser, error) {
	if dir != "" {
		if p, err := newWith(dir); err == nil {
			return p, nil
		}
	}
	return newWith("")
}

func newWith(dir string) (*Parser, error) {
	ctx := context.Background()
	cfg := runtimeConfig()
	var before int
	if dir != "" {
		before = countFiles(dir)
		cc, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, err
		}
		cfg = cfg.WithCompilationCache(cc)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	p, err := instantiate(ctx, rt, dir, before)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	return p, nil
}

func instantiate(ctx context.Context, rt wazero.Runtime, dir string, before int) (*Parser, error) {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, err
	}
	if err := instantiateWasix(ctx, rt); err != nil {
		return nil, err
	}
	p := &Parser{rt: rt, Compiled: dir == ""}
	code, err := rt.CompileModule(ctx, libPGQuery)
	if err != nil && dir != "" {
		// The module was compiled and kept in memory, but the folder
		// could not take it (read-only): the second call finds it in
		// memory. (An entry wazero could not read fails again: New
		// compiles without the folder.)
		p.Compiled = true
		code, err = rt.CompileModule(ctx, libPGQuery)
	} else if err == nil && dir != "" && countFiles(dir) != before {
		p.Compiled = true
	}
	if err != nil {
		return nil, fmt.Errorf("compile libpg_query: %w", err)
	}
	// go-pgquery's allocator: the memory is reserved once and never moves.
	ctx = experimental.WithMemoryAllocator(ctx, allocator.NewNonMoving())
	cfg := wazero.NewModuleConfig().WithSysNanotime().WithStartFunctions("_initialize")
	if p.mod, err = rt.InstantiateModule(ctx, code, cfg); err != nil {
		return nil, fmt.Errorf("instantiate libpg_query: %w", err)
	}
	p.mem = p.mod.Memory()
	for _, f := range []struct {
		fn   *api.Function
		name string
	}{
		{&p.malloc, "malloc"}, {&p.free, "free"},
		{&p.scan, "pg_query_scan"}, {&p.freeScan, "pg_query_free_scan_result"},
		{&p.parse, "pg_query_parse"}, {&p.freeParse, "pg_query_free_parse_result"},
		{&p.parsePlpgsql, "pg_query_parse_plpgsql"}, {&p.freePlpgsql, "pg_query_free_plpgsql_parse_result"},
	} {
		if *f.fn = p.mod.ExportedFunction(f.name); *f.fn == nil {
			return nil, fmt.Errorf("libpg_query exports no %s", f.name)
		}
	}
	init := p.mod.ExportedFunction("pg_query_init")
	if init == nil {
		return nil, errors.New("libpg_query exports no pg_query_init")
	}
	if _, err := init.Call(callContext()); err != nil {
		return nil, fmt.Errorf("pg_query_init: %w", err)
	}
	return p, nil
}

// Close frees the instance.
func (p *Parser) Close() error { return p.rt.Close(context.Background()) }

// Scan runs PostgreSQL's scanner: libpg_query's protobuf ScanResult.
func (p *Parser) Scan(sql string) ([]byte, error) {
	ctx := callContext()
	res := p.call(ctx, p.malloc, 16)
	in := p.cString(ctx, sql)
	p.call(ctx, p.scan, res, in)
	// struct PgQueryScanResult { PgQueryProtobuf pbuf { size_t len; char *data; };
	//   char *stderr_buffer; PgQueryError *error; }
	buf := p.read(res, 16)
	var out []byte
	var err error
	if e := binary.LittleEndian.Uint32(buf[12:]); e != 0 {
		err = p.error(e)
	} else {
		out = bytes.Clone(p.read(uint64(binary.LittleEndian.Uint32(buf[4:])), binary.LittleEndian.Uint32(buf)))
	}
	p.call(ctx, p.freeScan, res)
	p.call(ctx, p.free, in)
	p.call(ctx, p.free, res)
	return out, err
}

// Parse runs PostgreSQL's parser: libpg_query's JSON parse tree.
func (p *Parser) Parse(sql string) (string, error) {
	ctx := callContext()
	res := p.call(ctx, p.malloc, 12)
	in := p.cString(ctx, sql)
	p.call(ctx, p.parse, res, in)
	// struct PgQueryParseResult { char *parse_tree; char *stderr_buffer; PgQueryError *error; }
	buf := p.read(res, 12)
	var out string
	var err error
	if e := binary.LittleEndian.Uint32(buf[8:]); e != 0 {
		err = p.error(e)
	} else {
		out = p.cStringAt(uint32(res))
	}
	p.call(ctx, p.freeParse, res)
	p.call(ctx, p.free, in)
	p.call(ctx, p.free, res)
	return out, err
}

// ParsePlpgsql runs PL/pgSQL's parser on a CREATE FUNCTION ... LANGUAGE
// plpgsql statement: libpg_query's JSON of the function's statements.
func (p *Parser) ParsePlpgsql(sql string) (string, error) {
	ctx := callContext()
	res := p.call(ctx, p.malloc, 8)
	in := p.cString(ctx, sql)
	p.call(ctx, p.parsePlpgsql, res, in)
	// struct PgQueryPlpgsqlParseResult { char *plpgsql_funcs; PgQueryError *error; }
	buf := p.read(res, 8)
	var out string
	var err error
	if e := binary.LittleEndian.Uint32(buf[4:]); e != 0 {
		err = p.error(e)
	} else {
		out = p.cStringAt(uint32(res))
	}
	p.call(ctx, p.freePlpgsql, res)
	p.call(ctx, p.free, in)
	p.call(ctx, p.free, res)
	return out, err
}

// call calls f, and panics when the module traps (a *Parser is then
// unusable: its caller recovers and stops using it).
func (p *Parser) call(ctx context.Context, f api.Function, args ...uint64) uint64 {
	var stack [2]uint64
	copy(stack[:], args)
	if err := f.CallWithStack(ctx, stack[:]); err != nil {
		panic(err)
	}
	return stack[0]
}

func (p *Parser) read(ptr uint64, n uint32) []byte {
	b, ok := p.mem.Read(uint32(ptr), n)
	if !ok {
		panic(errRead)
	}
	return b
}

// cString copies s into the module's memory, NUL-terminated.
func (p *Parser) cString(ctx context.Context, s string) uint64 {
	ptr := p.call(ctx, p.malloc, uint64(len(s))+1)
	if !p.mem.WriteString(uint32(ptr), s) || !p.mem.WriteByte(uint32(ptr)+uint32(len(s)), 0) {
		panic(errWrite)
	}
	return ptr
}

// cStringAt reads the NUL-terminated string the pointer at ptrptr points to.
func (p *Parser) cStringAt(ptrptr uint32) string {
	ptr, ok := p.mem.ReadUint32Le(ptrptr)
	if !ok {
		panic(errRead)
	}
	if ptr == 0 {
		return ""
	}
	end := ptr
	for {
		b, ok := p.mem.ReadByte(end)
		if !ok {
			panic(errRead)
		}
		if b == 0 {
			break
		}
		end++
	}
	return string(p.read(uint64(ptr), end-ptr))
}

// error reads a PgQueryError { char *message; char *funcname; char
// *filename; int lineno; int cursorpos; char *context; }.
func (p *Parser) error(ptr uint32) *Error {
	cursor, ok := p.mem.ReadUint32Le(ptr + 16)
	if !ok {
		panic(errRead)
	}
	return &Error{Message: p.cStringAt(ptr), Cursorpos: int(int32(cursor))}
}

// countFiles counts the regular files under dir (-1: not readable).
func countFiles(dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	if err != nil {
		return -1
	}
	return n
}
