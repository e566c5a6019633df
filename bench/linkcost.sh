#!/usr/bin/env bash
# What each group of linked modules adds to a process's start-up memory
# (issue 34, item 4: the start-up peak RSS against kustomize's).
#
# It builds one program per step, each blank-importing the packages
# codeloc's own packages import directly, group after group (their package
# inits run, nothing else), in this order:
#   1. kustomize and the CLI (kustomize/api, kyaml, sigs.k8s.io/yaml and
#      json, cobra, json/v2, go-difflib, protowire, k8s.io/utils)
#   2. + k8s.io/apimachinery ("machinery")
#   3. + k8s.io/api (the API groups the checks decode)
#   4. + k8s.io/pod-security-admission ("podsec")
#   5. + the migrations lint's WebAssembly runtime (wazero, go-pgquery)
#   6. + the Application template (sprig, DataDog's text/template)
# then `codeloc version` (all of the above, used, and codeloc's own code) and
# `kustomize version` (v5.4.3 of .ci/tools.sh). A step is a lower bound of
# what its group costs codeloc: the linker keeps only what the inits reach,
# so they sit close together, where in codeloc the code they sit among is
# used and spreads them over more of the binary's pages. The lists are read from
# `go list` at each run, so they follow the code. Every binary is built as
# the Dockerfile builds codeloc (static, -trimpath, -s -w) and run from a
# copy (bench/startup.sh says why), then split by bench/memsplit.py: peak
# RSS, the process's own (anonymous) memory and its binary's pages.
#
#   bash bench/linkcost.sh            # RUNS=10 interleaved runs each, ~1 minute
#
# Linux only (ptrace). Prints, judges nothing.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
log() { printf '%s\n' "$*" >&2; }
command -v go >/dev/null || { log "linkcost.sh: go not found"; exit 2; }

work=$(mktemp -d)
# The programs live in the module (their imports resolve through its go.mod
# and third_party copies); a directory starting with _ is outside ./... .
src=bench/_linkcost.$$
trap 'rm -rf "$work" "$src"' EXIT

imports=$(go list -deps -f '{{if and (not .Standard) (eq .Module.Path "github.com/codeloc/codeloc")}}{{join .Imports "\n"}}{{end}}' ./cmd/codeloc |
	grep '\.' | grep -v '^github.com/codeloc/' | sort -u)
group() { grep -E "$1" <<<"$imports" || true; }
groups=(
	"kustomize|^sigs\.k8s\.io/|^github\.com/spf13/|^github\.com/go-json-experiment/|^github\.com/pmezard/|^google\.golang\.org/protobuf/|^k8s\.io/utils/"
	"machinery|^k8s\.io/apimachinery/"
	"api|^k8s\.io/api/"
	"podsec|^k8s\.io/pod-security-admission/"
	"wasm|^github\.com/tetratelabs/|^github\.com/wasilibs/"
	"templates|^github\.com/Masterminds/|^github\.com/DataDog/"
)

# Every direct import must fall in a group, or the last step would not be
# "all of the above".
all=$(for g in "${groups[@]}"; do group "${g#*|}"; done | sort -u)
if left=$(comm -23 <(echo "$imports") <(echo "$all")) && [ -n "$left" ]; then
	log "linkcost.sh: imports in no group (add them to one):"
	log "$left"
	exit 1
fi

build() { # PACKAGE NAME: build PACKAGE as $work/NAME, a copy of what the linker wrote
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/$2.linked" "$1"
	cp "$work/$2.linked" "$work/$2"
	rm "$work/$2.linked"
}

cumulative=()
args=()
for g in "${groups[@]}"; do
	name=${g%%|*}
	mapfile -t members < <(group "${g#*|}")
	if [ ${#members[@]} -eq 0 ]; then
		log "linkcost.sh: codeloc imports nothing of group $name: skipped"
		continue
	fi
	cumulative+=("${members[@]}")
	mkdir -p "$src/$name"
	{
		printf '// Command %s blank-imports the modules of bench/linkcost.sh up to its group.\npackage main\n\nimport (\n' "$name"
		printf '\t_ "%s"\n' "${cumulative[@]}"
		printf ')\n\nfunc main() {}\n'
	} >"$src/$name/main.go"
	build "./$src/$name" "+$name"
	args+=("+$name" "$work/+$name")
done
build ./cmd/codeloc codeloc
cp "$(bash .ci/tools.sh)/kustomize" "$work/kustomize"
args+=(codeloc "$work/codeloc version" kustomize "$work/kustomize version")

for ((i = 0; i < ${#args[@]}; i += 2)); do
	bin=${args[i + 1]%% *}
	# shellcheck disable=SC2086 # a command line: the binary and its arguments
	printf '%-14s %6.1f MB  %3d package inits\n' "${args[i]}" "$(stat -c %s "$bin" | awk '{ print $1 / 1e6 }')" \
		"$(GODEBUG=inittrace=1 ${args[i + 1]} 2>&1 >/dev/null | grep -c '^init ')"
done
echo
# memsplit's medians, with what each step adds to the one before it.
python3 bench/memsplit.py --runs "$RUNS" "${args[@]}" | awk '
	NR == 1 { print $0 "   step adds (peak, own, binary)"; next }
	$1 ~ /^\+/ && prev != "" { printf "%s   %+5.1f %+5.1f %+5.1f\n", $0, $3 - p3, $4 - p4, $5 - p5 }
	$1 ~ /^\+/ && prev == "" { print }
	$1 ~ /^\+/ { prev = $1; p3 = $3; p4 = $4; p5 = $5; next }
	$1 == "codeloc" { printf "%s   %+5.1f %+5.1f %+5.1f (its own code)\n", $0, $3 - p3, $4 - p4, $5 - p5; next }
	$1 == "kustomize" { print; next }'
