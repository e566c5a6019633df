#!/usr/bin/env bash
# The end-to-end step of .ci/run: builds (or reuses, cached by version) the
# tools of the e2e harness and Dagster's virtualenv, then runs e2e/ with
# CI=true, where a missing component fails instead of skipping. Extra arguments go to `go test`
# (e.g. -run TestFirstDeploy).
#
#   bash .ci/e2e.sh
#
# Budget: cold tool builds 5-25 min on 2 cores (measured here: argocd 143 s,
# controller-manager + scheduler 58 s, kwok 66 s), then the tests (-timeout
# 25m). With the real Dagster (issue 31: a webserver, a daemon and a code
# server per code-location) the scenarios before the storm took 17 min on a
# machine loaded by another e2e (load 20-57); see e2e/README.md.
set -euo pipefail

cd "$(dirname "$0")/.."
start=$SECONDS
env_file=$(bash .ci/e2e-tools.sh | tail -n1)
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
# The real Dagster (webserver, code servers) runs from .ci/dagster.sh's
# virtualenv (.ci/run exports it; cached by the lock's hash).
if [ -z "${CODELOC_DAGSTER_VENV:-}" ]; then
	CODELOC_DAGSTER_VENV=$(bash .ci/dagster.sh | tail -n1)
	export CODELOC_DAGSTER_VENV
fi
echo "e2e.sh: tools ready in $((SECONDS - start))s" >&2
CODELOC_E2E=1 CI=true go test -count=1 -timeout 25m -v "$@" ./e2e/
echo "e2e.sh: done in $((SECONDS - start))s" >&2
