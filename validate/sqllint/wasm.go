package sqllint

import (
	"os"
	"path/filepath"

	"github.com/codeloc/codeloc/validate/sqllint/internal/pgwasm"
)

// PrecompiledDir is where, relative to the folder of the running binary,
// the image ships libpg_query's module compiled by wazero (a read-only
// compilation cache written by sidecar/image/build.sh): in the image,
// /usr/local/lib/codeloc/wazero beside /usr/local/bin/codeloc and
// codeloc-sidecar.
const PrecompiledDir = "../lib/codeloc/wazero"

// pg is the process's one instance of the parser, made on the first parse;
// guarded by parseMu.
var pg *pgwasm.Parser

// theParser returns pg, made on first use: its machine code is read from
// the image's precompiled folder when there is one, else from the cache
// folder's wazero/ (CacheDirEnv) where the first process wrote it, else
// compiled in memory (about 1.5 s of CPU and 250 MiB at peak). Called with
// parseMu held.
func theParser() (*pgwasm.Parser, error) {
	if pg == nil {
		p, err := pgwasm.New(compileCacheDir())
		if err != nil {
			return nil, err
		}
		pg = p
	}
	return pg, nil
}

// compileCacheDir is the compilation cache folder theParser uses ("":
// none). The image's precompiled folder wins when it exists: it is
// read-only, and a process that finds no entry in it for its CPU compiles
// in memory (only CPUs older than about 2013 lack the features wazero's
// machine code is built for: SSE4.1, BMI1 and ABM on amd64, LSE atomics
// on arm64).
func compileCacheDir() string {
	if d := precompiledDir(); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	if root := cacheRootFromEnv(); root != "" {
		return filepath.Join(root, "wazero")
	}
	return ""
}

// precompiledDir is PrecompiledDir for the running binary ("": unknown).
// A variable, for tests.
var precompiledDir = func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(exe), PrecompiledDir)
}
