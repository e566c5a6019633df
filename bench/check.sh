#!/usr/bin/env bash
# `codeloc check` on a pull request that touches 1 of N code-locations
# (issue 33): a temporary atlas git repo holds N copies of
# fixtures/mediawatch (loc000, loc001...; loc<i> depends on loc<i-1> unless
# i is a multiple of 10, so waves run 0..9), one commit; the change raises
# one code-location's replicas and
# declared resources. Each run is the whole process: git reads,
# both revisions exported, every declaration read twice for the waves, the
# touched code-location rendered at base and head, the Markdown report.
#
#   bash bench/check.sh              # N=200, RUNS=20
#   N=500 RUNS=10 bash bench/check.sh
#   CODELOC_BIN=/tmp/codeloc bash bench/check.sh
#
# Prints each run's wall time and CPU (user+sys, from bash's times), then
# the median and the range.
set -euo pipefail

cd "$(dirname "$0")/.."
N=${N:-200}
RUNS=${RUNS:-20}
work=$(mktemp -d)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT

bin=${CODELOC_BIN:-}
if [[ -z $bin ]]; then
	bin=$work/codeloc
	go build -o "$bin" ./cmd/codeloc
fi
"$bin" contract >"$work/contract.yaml"

repo=$work/atlas
git init -q -b main "$repo"
for ((i = 0; i < N; i++)); do
	name=$(printf 'loc%03d' "$i")
	mkdir "$repo/$name"
	for f in fixtures/mediawatch/*; do
		sed "s/mediawatch/$name/g" "$f" >"$repo/$name/$(basename "$f")"
	done
	if ((i % 10 != 0)); then
		prev=$(printf 'loc%03d' $((i - 1)))
		sed -i "s/^dependsOn:$/dependsOn:\n  codeLocations: [$prev]/" "$repo/$name/code-location.manifest.yaml"
	fi
done
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
git -C "$repo" add -A
git -C "$repo" commit -qm "$N code-locations"
touched=$(printf 'loc%03d' $((N / 2 + 5)))
sed -i 's/^  replicas: 1$/  replicas: 2/' "$repo/$touched/deployment.yaml"
sed -i 's/^  cpu: 250m$/  cpu: 500m/; s/^  memory: 512Mi$/  memory: 1Gi/' "$repo/$touched/code-location.manifest.yaml"
git -C "$repo" commit -qam "$touched: 2 replicas, twice the resources"

# One run, checked: one code-location touched, accepted, its Deployment changed.
"$bin" check --repo "$repo" --base HEAD~1 --head HEAD --contract "$work/contract.yaml" --format json >"$work/report.json"
python3 - "$work/report.json" "$touched" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
locs = r["codeLocations"]
assert not r["refused"], r
assert [l["codeLocation"] for l in locs] == [sys.argv[2]], locs
assert ("Deployment", "changed") in [(o["kind"], o["change"]) for o in locs[0]["objects"]], locs[0]["objects"]
assert r["moved"] == [], r["moved"]
PY

walls=()
for ((r = 0; r < RUNS; r++)); do
	start=$(date +%s%N)
	"$bin" check --repo "$repo" --base HEAD~1 --head HEAD --contract "$work/contract.yaml" >/dev/null
	end=$(date +%s%N)
	walls+=($(((end - start) / 1000000)))
done
cpu=$( { time -p (for ((r = 0; r < RUNS; r++)); do "$bin" check --repo "$repo" --base HEAD~1 --head HEAD --contract "$work/contract.yaml" >/dev/null; done) ; } 2>&1 | awk '/^user|^sys/ {s += $2} END {printf "%.0f", s * 1000}')
sorted=$(printf '%s\n' "${walls[@]}" | sort -n)
median=$(echo "$sorted" | awk -v n="$RUNS" 'NR == int((n + 1) / 2) {print}')
echo "codeloc check, 1 of $N code-locations touched, $RUNS runs: wall median ${median} ms (min $(echo "$sorted" | head -1), max $(echo "$sorted" | tail -1)); CPU $((cpu / RUNS)) ms a run (user+sys, mean)"
