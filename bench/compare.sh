#!/usr/bin/env bash
# Whole-process comparison of `codeloc render` with `kustomize build` (the
# CLI v5.4.3 of .ci/tools.sh) on the same kustomize roots, in one run:
#
#   1. start-up: `codeloc version` vs `kustomize version`
#   2. fixtures/citation: RUNS interleaved runs each (default 200)
#   3. generated code-locations of SIZES objects (default 100 1000 5000),
#      100 migrations each, written by bench/genrepos (the
#      generator of BenchmarkRender)
#
# CPU is user+sys of the whole process and peak RSS is ru_maxrss, both read
# by bench/runner.py from wait4(2). Targets (issue 2): cpu ratio
# codeloc/kustomize <= 1.10 and peak RSS <= 40 MiB on fixtures/citation;
# 1,000 objects in < 1 s; cost linear in objects.
#
#   bash bench/compare.sh                 # 2-3 minutes on 2 cores
#   RUNS=50 SIZES="100 1000" bash bench/compare.sh
#   FULL=1 bash bench/compare.sh          # also kustomize on >= 2,000 objects
#
# Environment: RUNS, SIZES, FULL, CSV (append every sample to this file),
# CODELOC_BIN (use this binary instead of building ./cmd/codeloc).
# Exit status: 0 when everything ran, whatever the verdicts; the verdict
# lines say PASS or MISS.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-200}
SIZES=${SIZES:-100 1000 5000}
FULL=${FULL:-0}
CSV=${CSV:-}

log() { printf '%s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null || { log "compare.sh: $1 not found ($2)"; exit 2; }; }
need go "the Go toolchain"
need python3 "apt-get install -y python3"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runner=(python3 bench/runner.py)
[ -n "$CSV" ] && runner+=(--csv "$CSV")

echo "== tools"
kustomize=$(bash .ci/tools.sh)/kustomize
if [ -n "${CODELOC_BIN:-}" ]; then
	codeloc=$CODELOC_BIN
else
	codeloc=$work/codeloc
	# As the Dockerfile builds it: static, no paths, no symbols.
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$codeloc" ./cmd/codeloc
fi
echo "codeloc:   $codeloc ($(du -h "$codeloc" | cut -f1), $(go version "$codeloc" | cut -d' ' -f2))"
echo "kustomize: $kustomize ($(du -h "$kustomize" | cut -f1), $(go version -m "$kustomize" | awk '$1 == "mod" { print $3 }'))"
echo "tree:      $(git rev-parse --short HEAD)$([ -z "$(git status --porcelain 2>/dev/null)" ] || echo ' + uncommitted changes')"
echo "machine:   $(nproc) cpus, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"

# The example contract allows 1,000 objects a code-location (limits.objects):
# these measure beyond it.
"$codeloc" contract | sed 's/^  objects: 1000$/  objects: 1000000/' >"$work/contract.yaml"
grep -q 'objects: 1000000' "$work/contract.yaml" || { echo "compare.sh: cannot raise limits.objects" >&2; exit 1; }

# Both tools must succeed and agree on the kustomize objects before any
# timing: codeloc prints them plus the objects it adds.
same_objects() {
	local dir=$1
	"$codeloc" render --contract "$work/contract.yaml" "$dir" >"$work/codeloc.yaml"
	"$kustomize" build "$dir" >"$work/kustomize.yaml"
	local ours theirs
	ours=$(grep -c '^kind:' "$work/codeloc.yaml")
	theirs=$(grep -c '^kind:' "$work/kustomize.yaml")
	if [ "$ours" -lt "$theirs" ]; then
		log "compare.sh: $dir: codeloc printed $ours objects, kustomize $theirs"
		exit 1
	fi
	printf '%s %s\n' "$theirs" "$ours"
}

echo "== start-up (nothing rendered): 50 interleaved runs each"
"${runner[@]}" --case startup --runs 50 --warmup 3 --json "$work/startup.json" \
	codeloc "$codeloc version" kustomize "$kustomize version"

read -r k c < <(same_objects fixtures/citation)
echo
echo "== fixtures/citation ($k kustomize objects, $c rendered): $RUNS interleaved runs each"
"${runner[@]}" --case citation --runs "$RUNS" --warmup 5 --json "$work/citation.json" \
	codeloc "$codeloc render fixtures/citation" kustomize "$kustomize build fixtures/citation"

echo
echo "== generated code-locations (100 migrations each)"
# shellcheck disable=SC2086 # SIZES is a list
go run ./bench/genrepos -out "$work/repos" -sizes "$(echo $SIZES | tr ' ' ',')"
for n in $SIZES; do
	dir=$work/repos/objects-$n
	if [ "$n" -le 100 ]; then runs=10; elif [ "$n" -le 1000 ]; then runs=3; else runs=1; fi
	if [ "$n" -ge 2000 ] && [ "$FULL" != 1 ]; then
		# kustomize's own cost grows with the square of the objects: at
		# 5,000 one build takes about a minute. FULL=1 measures it anyway.
		echo "-- $n objects: codeloc only, $runs run (FULL=1 adds kustomize)"
		"${runner[@]}" --case "objects-$n" --runs "$runs" --warmup 0 --json "$work/objects-$n.json" \
			codeloc "$codeloc render --contract $work/contract.yaml $dir"
	else
		read -r k c < <(same_objects "$dir")
		echo "-- $n objects ($k kustomize objects, $c rendered): $runs interleaved runs each"
		"${runner[@]}" --case "objects-$n" --runs "$runs" --warmup 1 --json "$work/objects-$n.json" \
			codeloc "$codeloc render --contract $work/contract.yaml $dir" kustomize "$kustomize build $dir"
	fi
done

echo
# shellcheck disable=SC2086
python3 bench/runner.py --report "$work" $SIZES
