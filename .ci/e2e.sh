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
# 30m). With the real Dagster (a webserver, a daemon, the scenario fixtures'
# code servers and one shared by the others, run workers) the whole suite
# took 718 s and 761 s in two runs in a row on an otherwise idle machine;
# before it, a loaded machine (the cold .ci/run, load 20-36) doubled the e2e
# (936 s against 462 s idle): about 25 min, hence 30 (e2e/README.md).
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
CODELOC_E2E=1 CI=true go test -count=1 -timeout 30m -v "$@" ./e2e/
echo "e2e.sh: done in $((SECONDS - start))s" >&2
