package pgwasm

import (
	_ "unsafe" // go:linkname

	// The WebAssembly build of libpg_query is go-pgquery's: linking its
	// parser package links the module's bytes (libPGQuery), and go.mod's
	// version of go-pgquery stays the one that says which libpg_query
	// codeloc runs (and names the parse cache's entries).
	_ "github.com/wasilibs/go-pgquery/parser"
)

// libPGQuery is libpg_query compiled to WebAssembly (wasm32-wasi, with
// wasix_32v1's few imports), as go-pgquery embeds it. It is not exported
// by go-pgquery: its internal/wasm package holds it in LibPGQuery. Should a
// later go-pgquery rename it, the build fails at link time (TestModule
// also checks the bytes are a WebAssembly module).
//
//go:linkname libPGQuery github.com/wasilibs/go-pgquery/internal/wasm.LibPGQuery
var libPGQuery []byte
