#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME each (default 10m; .ci/run: 45s) and
# prints each one's executions and new interesting inputs. A failing input
# is written by go test under the package's testdata/fuzz/<Target>/, fails
# the run, and is kept (commit it with the fix). New interesting inputs stay
# in go's cache ($GOCACHE/fuzz) for the next run; FUZZ_KEEP=1 copies them
# into testdata/fuzz/<Target>/ as well, to commit the grown corpus.
#
#   bash .ci/fuzz.sh                      # 10 minutes each
#   FUZZTIME=45s bash .ci/fuzz.sh         # what .ci/run does
#   FUZZTIME=30s bash .ci/fuzz.sh ./render FuzzRender
set -euo pipefail

cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10m}
targets=(
	"./validate FuzzParseDeclaration"
	"./validate FuzzParseContract"
	"./check FuzzContractParseOrder"
	"./plugin FuzzFromEnviron"
	"./render FuzzRender"
	"./validate/sqllint FuzzLint"
	"./render/policy/dagster FuzzContainerContext"
	"./render/policy/dagster FuzzCommandLine"
	"./render/policy/dagster FuzzKubeletExpansion"
	"./render/apijson FuzzAgreement"
	"./render/node FuzzAppendYAML"
)
[ $# -eq 2 ] && targets=("$1 $2")
OUT=${OUT:-_out/fuzz}
mkdir -p "$OUT"
cache=$(go env GOCACHE)/fuzz/$(go list -m)

# fuzz_once fuzzes one target into log. The deadline covers the build and
# the minimizing of a finding.
fuzz_once() {
	timeout 30m go test -run '^$' -fuzz "^$2\$" -fuzztime "$FUZZTIME" "$1" >"$3" 2>&1
}

# deadline_race reports a failure that is only the coordinator's own
# deadline: "context deadline exceeded" and no failing input, panic or
# test error in the log.
deadline_race() {
	grep -q '^    context deadline exceeded$' "$1" &&
		! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:|fuzz_test\.go' "$1"
}

status=0
summary=()
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	log=$OUT/$name.log
	echo "fuzz.sh: $pkg $name for $FUZZTIME" >&2
	if ! fuzz_once "$pkg" "$name" "$log"; then
		if deadline_race "$log"; then
			# go1.26's fuzzing coordinator can report its own -fuzztime deadline
			# as a failure when a worker is mid-call (golang/go#75804, fixed in
			# Go 1.27): no input was written, nothing to reproduce. Once more.
			echo "fuzz.sh: $name: the coordinator's deadline race, no failing input; running it again" >&2
			fuzz_once "$pkg" "$name" "$log" || { status=1; tail -30 "$log" >&2; }
		else
			status=1
			tail -30 "$log" >&2
		fi
	fi
	last=$(grep -E 'fuzz: elapsed: .*execs: ' "$log" | tail -n1 || true)
	summary+=("$name: ${last#*fuzz: }")
	if [ "${FUZZ_KEEP:-}" = 1 ] && [ -d "$cache/${pkg#./}/$name" ]; then
		mkdir -p "${pkg#./}/testdata/fuzz/$name"
		cp -n "$cache/${pkg#./}/$name"/* "${pkg#./}/testdata/fuzz/$name/" 2>/dev/null || true
	fi
done
printf '%s\n' "${summary[@]}"
exit $status
