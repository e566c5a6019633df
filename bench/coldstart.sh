#!/usr/bin/env bash
# The migrations lint's cold start (issue 34, item 3): what the first parse
# of a process costs, each run with an empty parse cache (a fresh
# CODELOC_CACHE_DIR), interleaved, on fixtures/citation (one migration)
# beside fixtures/mediawatch (none), for `codeloc render DIR` and for
# `codeloc generate` as the stock argocd-cmp-server runs it (in the
# folder, contract and namespace from the environment). The options:
#
#   before     BASE (default: 6677037, main before this work): go-pgquery's
#              own wazero, compiling the module in every process
#   interp     BASE with wazero's interpreter instead of its compiler
#   nodebug    BASE compiling without the module's DWARF (WithDebugInfoEnabled(false))
#   filecache  BASE with a compilation cache folder (NewCompilationCacheWithDir),
#              already holding the module; debug info on, then off (nodebug+filecache)
#   after      this tree as the image stages it (/usr/local/bin/codeloc beside
#              /usr/local/lib/codeloc/wazero, precompiled as build.sh does)
#   after-cli  this tree without the precompiled folder (a `go install`ed
#              CLI): the first run compiles and writes CODELOC_CACHE_DIR/wazero,
#              a later run (wazero/ kept, parse cache empty) reads it
#
# The BASE variants build BASE against a copy of go-pgquery whose runtime
# configuration the environment picks (CS_ENGINE=interp, CS_NODEBUG=1,
# CS_FILECACHE=DIR): measurement only, nothing of it is shipped.
#
#   bash bench/coldstart.sh                 # RUNS=5: about 3 minutes on 2 cores
#   RUNS=10 CSV=/tmp/cold.csv bash bench/coldstart.sh
#
# CPU (user+sys) and peak RSS are read from wait4(2) by bench/coldstart.py;
# on a loaded machine CPU time holds, wall time does not.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
# The last commit whose lint ran go-pgquery's own runtime: the variants below
# patch that runtime, which later trees no longer call.
BASE=${BASE:-6677037}
root=$PWD

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
log() { printf 'coldstart.sh: %s\n' "$*" >&2; }
build() { CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" "$@"; }

log "BASE $BASE: building (go-pgquery as is, and a copy with switches)"
git archive "$BASE" | tar -x -C "$work" --one-top-level=base
pgq=$(cd "$work/base" && go list -m -f '{{.Dir}}' github.com/wasilibs/go-pgquery)
cp -R "$pgq" "$work/gopgq"
chmod -R u+w "$work/gopgq"
python3 - "$work/gopgq/parser/parser_wazero.go" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = """	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCompilationCache(wazero.NewCompilationCache()).
"""
new = """	base := wazero.NewRuntimeConfig()
	if os.Getenv("CS_ENGINE") == "interp" {
		base = wazero.NewRuntimeConfigInterpreter()
	}
	if os.Getenv("CS_NODEBUG") != "" {
		base = base.WithDebugInfoEnabled(false)
	}
	cc := wazero.NewCompilationCache()
	if d := os.Getenv("CS_FILECACHE"); d != "" {
		var err error
		if cc, err = wazero.NewCompilationCacheWithDir(d); err != nil {
			panic(err)
		}
	}
	rt := wazero.NewRuntimeWithConfig(ctx, base.
		WithCompilationCache(cc).
"""
assert old in s, "go-pgquery's newRT changed: update bench/coldstart.sh"
open(p, "w").write(s.replace(old, new))
PY
cp "$work/base/go.mod" "$work/base/go.sum" "$work/"
echo "replace github.com/wasilibs/go-pgquery => $work/gopgq" >>"$work/go.mod"
(cd "$work/base" && build -o "$work/before" ./cmd/codeloc && build -modfile="$work/go.mod" -o "$work/variant" ./cmd/codeloc)

log "this tree: building, staging as the image does"
mkdir -p "$work/img/usr/local/bin" "$work/img/usr/local/lib/codeloc" "$work/cli"
build -o "$work/img/usr/local/bin/codeloc" ./cmd/codeloc
cp "$work/img/usr/local/bin/codeloc" "$work/cli/codeloc"
t0=$(date +%s.%N)
CODELOC_CACHE_DIR="$work/pc" "$work/cli/codeloc" render fixtures/citation >/dev/null
cp -R "$work/pc/wazero" "$work/img/usr/local/lib/codeloc/wazero"
chmod -R a-w "$work/img/usr/local/lib/codeloc/wazero"
log "precompiled in $(echo "$(date +%s.%N) - $t0" | bc) s: $(du -sh "$work/img/usr/local/lib/codeloc/wazero" | cut -f1)"
# Warm compilation caches for the variants (seeded, then read-only).
CS_FILECACHE="$work/fc-debug" CODELOC_CACHE_DIR=off "$work/variant" render fixtures/citation >/dev/null
CS_NODEBUG=1 CS_FILECACHE="$work/fc-nodebug" CODELOC_CACHE_DIR=off "$work/variant" render fixtures/citation >/dev/null
for d in fc-debug fc-nodebug; do
	[ -d "$work/$d" ] || { log "BASE $BASE did not write $d: its lint does not run go-pgquery's runtime (BASE must be 6677037 or older)"; exit 2; }
done
chmod -R a-w "$work/fc-debug" "$work/fc-nodebug"

"$work/before" contract >"$work/contract.yaml"
gen="CODELOC_CONTRACT=$work/contract.yaml ARGOCD_APP_NAMESPACE=dagster ARGOCD_APP_NAME=x"

echo "== binaries"
for b in before variant img/usr/local/bin/codeloc; do
	echo "$b: $(du -b "$work/$b" | cut -f1) bytes"
done
echo "precompiled folder: $(du -sb "$work/img/usr/local/lib/codeloc/wazero" | cut -f1) bytes"
echo "tree: $(git rev-parse --short HEAD)$([ -z "$(git status --porcelain 2>/dev/null)" ] || echo ' + uncommitted changes'), BASE $(git rev-parse --short "$BASE")"
echo "machine: $(nproc) cpus, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"

cit=$root/fixtures/citation
med=$root/fixtures/mediawatch
py=(python3 bench/coldstart.py --runs "$RUNS")
[ -n "${CSV:-}" ] && py+=(--csv "$CSV")

echo "== render, each run with an empty parse cache ($RUNS interleaved runs)"
"${py[@]}" \
	"mediawatch (no migrations), before|$root||$work/before render $med" \
	"citation, before|$root||$work/before render $cit" \
	"citation, interp|$root|CS_ENGINE=interp|$work/variant render $cit" \
	"citation, nodebug (compiling)|$root|CS_NODEBUG=1|$work/variant render $cit" \
	"citation, filecache (debug info on)|$root|CS_FILECACHE=$work/fc-debug|$work/variant render $cit" \
	"citation, filecache + nodebug|$root|CS_NODEBUG=1 CS_FILECACHE=$work/fc-nodebug|$work/variant render $cit" \
	"mediawatch (no migrations), after|$root||$work/img/usr/local/bin/codeloc render $med" \
	"citation, after (image: precompiled)|$root||$work/img/usr/local/bin/codeloc render $cit" \
	"citation, after-cli first run|$root||$work/cli/codeloc render $cit" \
	"citation, after-cli later run|$root|SEED=$work/pc/wazero|$work/cli/codeloc render $cit"

echo "== generate (stock argocd-cmp-server), each run with an empty parse cache"
"${py[@]}" \
	"mediawatch (no migrations), before|$med|$gen|$work/before generate" \
	"citation, before|$cit|$gen|$work/before generate" \
	"mediawatch (no migrations), after|$med|$gen|$work/img/usr/local/bin/codeloc generate" \
	"citation, after (image: precompiled)|$cit|$gen|$work/img/usr/local/bin/codeloc generate"
