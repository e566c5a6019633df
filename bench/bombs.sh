#!/usr/bin/env bash
# YAML alias bombs ("billion laughs", 9 aliases a level) of 6 and 8 levels,
# and an alias inside its own anchor (a cycle: `&l0 ["lol", *l0]`, which
# kyaml expands until the goroutine's stack overflows and the process dies),
# each in a resource, a patch and a configMapGenerator source file of a copy
# of fixtures/mediawatch, rendered by `codeloc render` and by `kustomize
# build` (v5.4.3, .ci/tools.sh) for comparison. Prints each one's exit code,
# wall time and peak RSS (GNU time) and the line codeloc printed. codeloc
# must refuse each (yaml-limit) in < 1 s and < 100 MiB; kustomize is given
# KUSTOMIZE_LIMIT seconds (default 20) and 4 GiB of address space before it
# is stopped, so the comparison cannot take the machine down.
#
#   bash bench/bombs.sh
#   CODELOC_BIN=/path/to/codeloc SKIP_KUSTOMIZE=1 bash bench/bombs.sh
set -euo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
codeloc=${CODELOC_BIN:-$work/codeloc}
[ -n "${CODELOC_BIN:-}" ] || CGO_ENABLED=0 go build -trimpath -o "$codeloc" ./cmd/codeloc
kustomize=$(bash .ci/tools.sh kustomize | tail -n1)/kustomize
limit=${KUSTOMIZE_LIMIT:-20}
deployment=$(awk '/^kind: Deployment/ { d = 1 } d && /^  name:/ { print $2; exit }' fixtures/mediawatch/deployment.yaml)

# laughs LEVELS HEADER: a bomb of LEVELS levels after HEADER; LEVELS
# "cycle": an alias inside its own anchor.
laughs() {
	printf '%s' "$2"
	if [ "$1" = cycle ]; then
		echo 'l0: &l0 ["lol", *l0]'
		return
	fi
	echo 'l0: &l0 ["lol"]'
	local i j refs
	for ((i = 1; i <= $1; i++)); do
		refs=""
		for ((j = 0; j < 9; j++)); do refs+="${refs:+, }*l$((i - 1))"; done
		echo "l$i: &l$i [$refs]"
	done
}

# code_location DIR WHERE LEVELS: mediawatch with a bomb in WHERE.
code_location() {
	local dir=$1 where=$2 levels=$3
	cp -r fixtures/mediawatch "$dir"
	case $where in
	resource)
		laughs "$levels" $'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mediawatch-lol\n' >"$dir/lol.yaml"
		sed -i 's/^resources:$/resources:\n  - lol.yaml/' "$dir/kustomization.yaml"
		;;
	patch)
		# The patch names the fixture's Deployment, so that kustomize
		# applies it rather than stopping at a patch that matches nothing.
		laughs "$levels" $'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: '"$deployment"$'\n' >"$dir/patch.yaml"
		printf 'patches:\n  - path: patch.yaml\n' >>"$dir/kustomization.yaml"
		;;
	generator)
		laughs "$levels" "" >"$dir/lol.yaml"
		sed -i 's/^    files:$/    files:\n      - lol.yaml/' "$dir/kustomization.yaml"
		;;
	esac
}

# measure LABEL CMD...: exit code, seconds, peak RSS MiB, first stderr line.
measure() {
	local label=$1
	shift
	local code=0
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || code=$?
	read -r secs kib < <(tail -n1 "$work/time") || true
	printf '| %s | %s | %s s | %s MiB | %s |\n' "$label" "$code" "$secs" "$((${kib:-0} / 1024))" \
		"$(grep -v '^Command' "$work/err" | head -n1 | cut -c1-110)"
}

echo "| case | exit | wall | peak RSS | first line |"
echo "|---|---|---|---|---|"
for where in resource patch generator; do
	for levels in 6 8 cycle; do
		dir=$work/$where-$levels
		code_location "$dir" "$where" "$levels"
		what="$levels levels"
		[ "$levels" != cycle ] || what="an alias cycle"
		measure "codeloc, $what in a $where" "$codeloc" render "$dir"
		if [ -z "${SKIP_KUSTOMIZE:-}" ]; then
			measure "kustomize, $what in a $where" timeout "$limit" \
				bash -c 'ulimit -v 4194304; exec "$0" build "$1"' "$kustomize" "$dir"
		fi
	done
done
