#!/usr/bin/env bash
# The e2e scenarios (everything .ci/e2e.sh runs: the scenarios and the
# 20-storm) on the supported Argo CD versions other than the default (which
# .ci/run covers), one fresh harness each, then one table: version x
# scenario -> pass/fail and seconds.
#
#   bash .ci/e2e-matrix.sh                        # 3.5.8 3.4.14
#   E2E_MATRIX_VERSIONS="3.6.2 3.5.8 3.4.14" bash .ci/e2e-matrix.sh
#
# Each version's argocd is built once (.ci/e2e-tools.sh, cached by version;
# cold: 5-15 min each). Logs and the table go to $OUT (default
# _out/e2e-matrix). Not part of .ci/run, which runs the default version only.
# Exits 1 when any scenario failed on any version.
set -euo pipefail

cd "$(dirname "$0")/.."
# --versions lists the default first.
VERSIONS=${E2E_MATRIX_VERSIONS:-$(bash .ci/e2e-tools.sh --versions | cut -d' ' -f2-)}
OUT=${OUT:-_out/e2e-matrix}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

if [ -z "${CODELOC_E2E_BIN:-}" ]; then
	CODELOC_E2E_BIN=$OUT/bin
	CGO_ENABLED=0 go build -o "$CODELOC_E2E_BIN/" ./cmd/codeloc ./cmd/codeloc-jobs ./cmd/codeloc-sidecar
fi
export CODELOC_E2E_BIN

status=0
for v in $VERSIONS; do
	echo "e2e-matrix.sh: Argo CD v$v" >&2
	start=$SECONDS
	env_file=$(ARGOCD_VERSION=$v timeout 45m bash .ci/e2e-tools.sh | tail -n1)
	(
		set -a
		# shellcheck disable=SC1090
		. "$env_file"
		set +a
		# The scenarios only: e2e/'s unit tests (figures parsing) run in go test ./...
		CODELOC_E2E=1 CI=true timeout 35m go test -count=1 -timeout 30m -v -skip '^(TestRenderCalls|TestQuantile)$' ./e2e/
	) >"$OUT/e2e-v$v.log" 2>&1 || status=1
	echo "e2e-matrix.sh: Argo CD v$v done in $((SECONDS - start))s" >&2
	grep -E '^--- (PASS|FAIL|SKIP)' "$OUT/e2e-v$v.log" >&2 || tail -20 "$OUT/e2e-v$v.log" >&2
done

# One row a scenario (top-level tests, in the order the first log ran them),
# one column a version.
python3 - "$OUT" $VERSIONS >"$OUT/table.md" <<'PY'
import re, sys
out, versions = sys.argv[1], sys.argv[2:]
line = re.compile(r'^--- (PASS|FAIL|SKIP): (\S+) \(([\d.]+)s\)')
harness = re.compile(r'^e2e: harness started in ([\d.]+)(m?s)')
results, order = {}, ["(harness start)"]
for v in versions:
    text = open(f"{out}/e2e-v{v}.log", errors="replace").read()
    for m in filter(None, map(harness.match, text.splitlines())):
        secs = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
        results[(v, "(harness start)")] = f"{secs:.0f} s"
    for m in filter(None, map(line.match, text.splitlines())):
        status, name, secs = m.groups()
        if name not in order:
            order.append(name)
        results[(v, name)] = f"{status.lower()} {float(secs):.0f} s"
    if not any(k[0] == v and k[1] != "(harness start)" for k in results):
        results[(v, "(harness start)")] = "fail: no test ran (see the log)"
print("| scenario | " + " | ".join(f"Argo CD v{v}" for v in versions) + " |")
print("|---|" + "---|" * len(versions))
for name in order:
    print(f"| {name} | " + " | ".join(results.get((v, name), "not run") for v in versions) + " |")
PY
cat "$OUT/table.md"
exit $status
