#!/usr/bin/env bash
# The per-render process (issue 34, item 4): what the stock argocd-cmp-server
# starts at every render, against kustomize's CLI (v5.4.3 of .ci/tools.sh).
#
#   1. start-up: `codeloc version` vs `kustomize version`
#   2. fixtures/mediawatch: `codeloc render DIR` vs `kustomize build DIR`
#   3. fixtures/citation: the same (its migrations are linted: the parse
#      cache is warmed first, so libpg_query's compilation is not measured)
#
# Same method as bench/compare.sh, through bench/runner.py: the two commands
# alternate (A B, B A, ...) after untimed warm-ups, RUNS each; CPU is user+sys
# and peak RSS is ru_maxrss, both from wait4(2). The verdicts judge the
# ratio of the MEDIANS (the machine is shared: medians resist the
# neighbours' bursts better than means); wall time is printed, not judged.
# Targets: start-up CPU <= kustomize's ("starts as fast as kustomize's"),
# render CPU <= 1.10x. Last, bench/memsplit.py splits each peak RSS into the
# process's own (anonymous) memory and its binary's pages (Linux, ptrace(2)):
# the start-up's own memory is judged (<= kustomize's: what each concurrent
# process adds), the peak RSS is printed, not judged: most of it is the
# binary's pages, shared by every process that runs it, and bench/linkcost.sh
# shows the Kubernetes libraries the checks use make its gap to kustomize's.
#
#   bash bench/startup.sh                  # ~2 minutes on 2 busy cores
#   RUNS=300 bash bench/startup.sh
#   CODELOC_BIN=/tmp/codeloc-old bash bench/startup.sh   # another build
#
# Environment: RUNS (default 150), CSV (append every sample to this file),
# CODELOC_BIN (use this binary instead of building ./cmd/codeloc), CASES
# (default "startup mediawatch citation").
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-150}
CSV=${CSV:-}
CASES=${CASES:-startup mediawatch citation}

log() { printf '%s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null || { log "startup.sh: $1 not found ($2)"; exit 2; }; }
need go "the Go toolchain"
need python3 "apt-get install -y python3"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runner=(python3 bench/runner.py)
[ -n "$CSV" ] && runner+=(--csv "$CSV")

# Both binaries run from copies made here: how a file got into the page
# cache changes what starting it costs (the one the linker wrote in pieces
# is mapped in smaller folios than a copy written at once: codeloc's
# start-up CPU moved by a sixth between the two, the same binary), so both
# sides get the same kind of file, as an image's would be.
cp "$(bash .ci/tools.sh)/kustomize" "$work/kustomize"
kustomize=$work/kustomize
codeloc=$work/codeloc
if [ -n "${CODELOC_BIN:-}" ]; then
	cp "$CODELOC_BIN" "$codeloc"
else
	# As the Dockerfile builds it: static, no paths, no symbols.
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/codeloc.linked" ./cmd/codeloc
	cp "$work/codeloc.linked" "$codeloc"
fi
echo "codeloc:   $codeloc ($(du -h "$codeloc" | cut -f1), $(go version "$codeloc" | cut -d' ' -f2))"
echo "kustomize: $kustomize ($(du -h "$kustomize" | cut -f1), $(go version -m "$kustomize" | awk '$1 == "mod" { print $3 }'))"
echo "tree:      $(git rev-parse --short HEAD)$([ -z "$(git status --porcelain 2>/dev/null)" ] || echo ' + uncommitted changes')"
echo "machine:   $(nproc) cpus, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"

# A warm parse cache of its own, so that neither the user's cache nor an
# empty one is measured.
export CODELOC_CACHE_DIR=$work/cache
for f in mediawatch citation; do
	"$codeloc" render "fixtures/$f" >"$work/$f.codeloc.yaml"
	"$kustomize" build "fixtures/$f" >"$work/$f.kustomize.yaml"
	ours=$(grep -c '^kind:' "$work/$f.codeloc.yaml")
	theirs=$(grep -c '^kind:' "$work/$f.kustomize.yaml")
	if [ "$ours" -lt "$theirs" ]; then
		log "startup.sh: fixtures/$f: codeloc printed $ours objects, kustomize $theirs"
		exit 1
	fi
done
entries=$(find "$CODELOC_CACHE_DIR/sqlparse" -type f 2>/dev/null | wc -l)
echo "cache:     $CODELOC_CACHE_DIR ($entries entries after one render of each fixture)"
# citation's migration is linted: without an entry its renders would
# measure libpg_query's compilation, not the render (a build whose
# information does not name go-pgquery's and wazero's releases has no cache).
if [ "$entries" -eq 0 ]; then
	log "startup.sh: $codeloc left no parse cache entry after rendering fixtures/citation: is its parse cache off?"
	exit 1
fi

for c in $CASES; do
	echo
	case $c in
	startup)
		echo "== start-up (nothing rendered): $RUNS interleaved runs each"
		"${runner[@]}" --case startup --runs "$RUNS" --warmup 3 --json "$work/startup.json" \
			codeloc "$codeloc version" kustomize "$kustomize version"
		;;
	mediawatch | citation)
		echo "== fixtures/$c: $RUNS interleaved runs each"
		"${runner[@]}" --case "$c" --runs "$RUNS" --warmup 3 --json "$work/$c.json" \
			codeloc "$codeloc render fixtures/$c" kustomize "$kustomize build fixtures/$c"
		;;
	*)
		log "startup.sh: unknown case $c"
		exit 2
		;;
	esac
done

echo
echo "== verdicts (ratios of medians, codeloc/kustomize)"
python3 - "$work" $CASES <<'PY'
import json, os, sys
d = sys.argv[1]
for case in sys.argv[2:]:
    with open(os.path.join(d, case + ".json")) as f:
        s = json.load(f)
    c, k = s["codeloc"], s["kustomize"]
    cpu = c["cpu_median"] / k["cpu_median"]
    rss = c["rss_median"] / k["rss_median"]
    target = 1.0 if case == "startup" else 1.10
    print("%-10s cpu %6.1f / %6.1f ms = %.3f   peak RSS %5.1f / %5.1f MiB = %.3f   (target cpu <= %.2f)  %s" % (
        case, c["cpu_median"] * 1e3, k["cpu_median"] * 1e3, cpu, c["rss_median"], k["rss_median"], rss,
        target, "PASS" if cpu <= target else "MISS"))
PY

# The peak RSS split into the process's own memory, paid again by each
# concurrent render, and its binary's pages, shared; the start-up's own
# memory is judged.
echo
echo "== peak RSS at exit, split (bench/memsplit.py, 20 interleaved runs each)"
for c in $CASES; do
	case $c in
	startup)
		python3 bench/memsplit.py --runs 20 codeloc "$codeloc version" kustomize "$kustomize version" >"$work/split"
		sed "s/^/$c: /" "$work/split"
		awk '$1 == "ratio" { own = $7; sub(",", "", own)
			printf "startup: own memory codeloc/kustomize = %s (target <= 1.00)  %s\n", own, (own + 0 <= 1.0 ? "PASS" : "MISS") }' "$work/split"
		;;
	*) python3 bench/memsplit.py --runs 20 codeloc "$codeloc render fixtures/$c" kustomize "$kustomize build fixtures/$c" | sed "s/^/$c: /" ;;
	esac
done
