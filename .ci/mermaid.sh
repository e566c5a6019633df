#!/usr/bin/env bash
# Checks the code-location graph's Mermaid with Mermaid itself (issue 33):
# installs (once) Mermaid and jsdom from npm, and Chromium from apt when
# missing, then
#   1. parses the pinned pictures (appofapps/testdata/graph/*.mmd, *.md,
#      output-dir.golden) and the README.md that `codeloc application
#      --output-dir` writes for the fixtures, with mermaid.parse
#      (.ci/mermaid/check.mjs);
#   2. runs the Go tests that need them (appofapps: TestMermaidParser,
#      TestMermaidParserRefuses, TestMermaidChromium, which draws pictures
#      once in headless Chromium from file:// only), failing if one skips.
# Prints the modules folder on stdout (last line); logs go to stderr.
#
#   dir=$(bash .ci/mermaid.sh | tail -n1)
#
# The set is pinned in .ci/mermaid/package-lock.json and installed with
# `npm ci --ignore-scripts` into
# ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}/mermaid-<version>-<lock sha>/;
# a complete one (its .complete marker written last) is reused; delete it
# to reinstall. Nothing of it goes into codeloc's image.
#
# CODELOC_CHROMIUM picks the browser (default: chromium on PATH, else
# installed with apt-get, which needs root).
set -euo pipefail

cd "$(dirname "$0")/.."
here=$PWD/.ci/mermaid
TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
export GOFLAGS=${GOFLAGS:--buildvcs=false} GOTOOLCHAIN=${GOTOOLCHAIN:-local}

log() { printf 'mermaid.sh: %s\n' "$*" >&2; }

# install: the modules folder, installed from the lock unless complete.
install() {
	local version sha dir
	version=$(node -p 'require(process.argv[1]).packages["node_modules/mermaid"].version' "$here/package-lock.json")
	sha=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-12)
	dir=$TOOLS_DIR/mermaid-$version-$sha
	mkdir -p "$TOOLS_DIR"
	# Serialize concurrent installs (two scripts starting at once).
	exec 8>"$TOOLS_DIR/.mermaid.lock"
	command -v flock >/dev/null && flock 8
	if [ -f "$dir/.complete" ]; then
		log "cached $dir"
	else
		log "installing mermaid $version into $dir"
		rm -rf "$dir" # a half-made install (killed) is started over
		mkdir -p "$dir"
		cp "$here/package.json" "$here/package-lock.json" "$dir/"
		(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
		touch "$dir/.complete"
	fi
	echo "$dir"
}

# find_chromium: the browser's path, installed with apt when missing.
find_chromium() {
	local bin=${CODELOC_CHROMIUM:-}
	[ -n "$bin" ] || bin=$(type -P chromium || type -P chromium-browser || true)
	if [ -z "$bin" ]; then
		command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] || { log "no chromium and no root apt-get to install it: set CODELOC_CHROMIUM"; exit 1; }
		local policy
		policy=$(apt-cache policy chromium)
		[[ $policy == *"Candidate: "[0-9]* ]] || { log "apt has no chromium candidate (apt-cache policy chromium)"; exit 1; }
		log "installing chromium with apt-get"
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2
		bin=$(type -P chromium)
	fi
	log "$("$bin" --version 2>/dev/null) at $bin"
	echo "$bin"
}

# readme: the README.md codeloc application --output-dir writes for the
# fixtures citation and mediawatch, in a temporary folder.
readme() {
	local tmp=$1
	mkdir -p "$tmp/atlas" "$tmp/apps"
	cp -r fixtures/citation fixtures/mediawatch "$tmp/atlas/"
	go run ./cmd/codeloc application --repo-url https://git.example/atlas.git --repo-root "$tmp/atlas" --output-dir "$tmp/apps" 2>/dev/null
	echo "$tmp/apps/README.md"
}

main() {
	local start=$SECONDS dir bin out
	dir=$(install)
	bin=$(find_chromium)
	tmp=$(mktemp -d) # global: the EXIT trap runs after main returns
	trap 'rm -rf "$tmp"' EXIT
	node "$here/check.mjs" "$dir" appofapps/testdata/graph/*.mmd appofapps/testdata/graph/*.md \
		appofapps/testdata/output-dir.golden "$(readme "$tmp")" >&2
	out=$(CODELOC_MERMAID_DIR=$dir CODELOC_CHROMIUM=$bin go test -count=1 -v -timeout 10m \
		-run '^(TestMermaidParser|TestMermaidParserRefuses|TestMermaidChromium)$' ./appofapps 2>&1) || { echo "$out" >&2; exit 1; }
	echo "$out" | grep -E '^(---|ok|PASS)' >&2
	if echo "$out" | grep -q -- '--- SKIP'; then
		log "a Mermaid test skipped"
		exit 1
	fi
	log "done in $((SECONDS - start)) s"
	echo "$dir"
}

main "$@"
