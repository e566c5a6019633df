#!/usr/bin/env bash
# The fault scenarios of e2e/, on one fresh harness, and their recovery
# times: migrate killed (SIGKILL) in a transactional and in a
# no-transaction file and PostgreSQL restarted during a migration
# (TestMigrateFaults), codeloc-sidecar killed in a 20-Application storm
# (TestSidecarKilledInStorm), the kube-apiserver restarted under a running
# preflight (TestAPIServerRestartedInPreflight), argocd-repo-server
# restarted while the root app-of-apps waits at a wave
# (TestRepoServerRestartedAtWave).
#
#   bash .ci/e2e-faults.sh
#   ARGOCD_VERSION=3.5.8 bash .ci/e2e-faults.sh
#
# Tools as for .ci/e2e.sh (built or cached by .ci/e2e-tools.sh). The go
# test log goes to $OUT (default _out/e2e-faults)/faults.log; the recovery
# lines are printed at the end. .ci/run runs the same scenarios among the
# others (bash .ci/e2e.sh); this runs them alone, in ~4-6 min.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${OUT:-_out/e2e-faults}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
start=$SECONDS

env_file=$(bash .ci/e2e-tools.sh | tail -n1) # ARGOCD_VERSION selects the version
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a

tests='^(TestMigrateFaults|TestSidecarKilledInStorm|TestAPIServerRestartedInPreflight|TestRepoServerRestartedAtWave)$'
status=0
CODELOC_E2E=1 CI=true go test -count=1 -timeout 30m -run "$tests" -v ./e2e/ >"$OUT/faults.log" 2>&1 || status=$?

echo "e2e-faults.sh: recovery times (log: $OUT/faults.log)"
grep -E '^(=== RUN|--- (PASS|FAIL|SKIP))|(faults|faults_restart|faults_restart_harness|stormkill)_test\.go:[0-9]+: .*(after the|killed|restarted|started again|hung|away|stopped)' "$OUT/faults.log" |
	sed -E 's/^ +//' || true
if [ "$status" -ne 0 ]; then
	tail -40 "$OUT/faults.log" >&2
	echo "e2e-faults.sh: FAILED in $((SECONDS - start))s" >&2
	exit "$status"
fi
echo "e2e-faults.sh: done in $((SECONDS - start))s"
