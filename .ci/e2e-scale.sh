#!/usr/bin/env bash
# The scale figures of e2e/: the storm (TestStorm) with N code-locations on
# M KWOK nodes, run twice in one go on fresh harnesses — once through
# codeloc-sidecar, once through Argo CD's stock argocd-cmp-server running
# `codeloc generate` (plugin.yaml) — then a table and the stock/ours ratios.
#
#   bash .ci/e2e-scale.sh                 # N=200, M=300, on Argo CD v3.6.2
#   E2E_STORM_SIZE=50 E2E_NODES=50 bash .ci/e2e-scale.sh
#   ARGOCD_VERSION=3.5.8 E2E_SCALE_PLUGINS=sidecar bash .ci/e2e-scale.sh
#   E2E_REPO_SERVERS=2 OUT=_out/e2e-scale-x2 bash .ci/e2e-scale.sh   # two repo-servers
#
# E2E_REPO_SERVERS=N (default 1) runs N argocd-repo-servers, each with its
# own plugin server, behind one balancer (see e2e/lb.go).
# Tools as for .ci/e2e.sh (built or cached by .ci/e2e-tools.sh). Figures go
# to $OUT (default _out/e2e-scale): figures.jsonl, one go test log per run.
# Not part of .ci/run (CI runs the 20-storm as a test); it takes ~15-30 min.
set -euo pipefail

cd "$(dirname "$0")/.."
export E2E_STORM_SIZE=${E2E_STORM_SIZE:-200} E2E_NODES=${E2E_NODES:-300} E2E_REPO_SERVERS=${E2E_REPO_SERVERS:-1}
OUT=${OUT:-_out/e2e-scale}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/figures.jsonl"

env_file=$(bash .ci/e2e-tools.sh | tail -n1) # ARGOCD_VERSION selects the version
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
if [ -z "${CODELOC_E2E_BIN:-}" ]; then
	CODELOC_E2E_BIN=$OUT/bin
	CGO_ENABLED=0 go build -o "$CODELOC_E2E_BIN/" ./cmd/codeloc ./cmd/codeloc-jobs ./cmd/codeloc-sidecar
fi
export CODELOC_E2E_BIN

for plugin in ${E2E_SCALE_PLUGINS:-sidecar stock}; do
	echo "e2e-scale.sh: storm of $E2E_STORM_SIZE on $E2E_NODES nodes through $plugin, $E2E_REPO_SERVERS repo-server(s)" >&2
	log=$OUT/storm-$plugin-x$E2E_REPO_SERVERS.log
	E2E_PLUGIN=$plugin E2E_FIGURES=$OUT/figures.jsonl CODELOC_E2E=1 CI=true \
		go test -count=1 -timeout 60m -run '^TestStorm$' -v ./e2e/ >"$log" 2>&1 ||
		{ tail -40 "$log" >&2; exit 1; }
	grep -E 'storm_test.go.*((deploy|hard refresh) of|connections per repo-server)' "$log" >&2 || true
done

python3 - "$OUT/figures.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
# "without the stream": the call less the time spent receiving the
# repository, which only codeloc-sidecar logs (receive_ms).
# Several repo-servers: renders are merged across their plugin servers
# (each one's count in brackets); peak RSS is the largest server's / the sum.
print("| run | Argo CD | repo-servers | plugin server | seconds | renders | renders/s | p50 ms | p99 ms | without the stream p50/p99 ms | peak RSS MiB (max / sum) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    n = r.get('repoServers', 1)
    split = f"{r['renderP50ms']:.1f} / {r['renderP99ms']:.1f}" if r.get('renderP99ms') else "n/a"
    renders = f"{r['renders']} {r['rendersPerServer']}" if n > 1 else f"{r['renders']}"
    rss = f"{r['peakRssMiB']:.1f} / {r['peakRssSumMiB']:.1f}" if n > 1 else f"{r['peakRssMiB']:.1f}"
    print(f"| {r['what']} ({r['codeLocations']} code-locations, {r['nodes']} nodes) | v{r.get('argocd', '?')} | {n} | {r['plugin']} | {r['seconds']:.1f} | {renders} "
          f"| {r['rendersPerSec']:.1f} | {r['p50ms']:.1f} | {r['p99ms']:.1f} | {split} | {rss} |")
by = {(r['what'], r['plugin'].split()[0]): r for r in rows}
for what in ("deploy", "hard refresh"):
    ours, stock = by.get((what, "codeloc-sidecar")), by.get((what, "argocd-cmp-server"))
    if ours and stock:
        print(f"\n{what}: stock/ours time {stock['seconds'] / ours['seconds']:.2f}, "
              f"p50 {stock['p50ms'] / max(ours['p50ms'], 1e-9):.2f}, p99 {stock['p99ms'] / max(ours['p99ms'], 1e-9):.2f}")
EOF
