#!/usr/bin/env bash
# Installs (once) a pinned Go command-line tool and prints the directory
# holding it on stdout (last line); logs go to stderr.
#
#   bin=$(bash .ci/tools.sh kustomize) && "$bin/kustomize" version
#   bin=$(bash .ci/tools.sh golangci-lint) && "$bin/golangci-lint" run
#
# Tools are built from the Go module proxy with `go install pkg@version`
# outside the repo, which resolves the tool's own go.mod: ours is never read
# nor touched. The cache is keyed by version under
# ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}/<tool>-v<version>/; a
# present binary is reused; delete the directory to rebuild.
set -euo pipefail

TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off

log() { printf 'tools.sh: %s\n' "$*" >&2; }

tool=${1:-kustomize}
case "$tool" in
	kustomize)
		version=v${KUSTOMIZE_VERSION:-5.4.3}
		pkg=sigs.k8s.io/kustomize/kustomize/v5 ;;
	golangci-lint)
		version=v${GOLANGCI_LINT_VERSION:-2.15.0}
		pkg=github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
	*) log "unknown tool $tool (kustomize, golangci-lint)"; exit 2 ;;
esac
BIN_DIR=$TOOLS_DIR/$tool-$version

if [ -x "$BIN_DIR/$tool" ]; then
	log "$tool $version already in $BIN_DIR"
else
	log "installing $tool $version into $BIN_DIR"
	mkdir -p "$BIN_DIR"
	(cd "$(mktemp -d)" && GOBIN=$BIN_DIR go install "$pkg@$version")
fi

# `kustomize version` says (devel) when built by go install: read the
# module version recorded in the binary instead.
got=$(go version -m "$BIN_DIR/$tool" | awk '$1 == "mod" { print $3 }')
if [ "$got" != "$version" ]; then
	log "$BIN_DIR/$tool is ${got:-of unknown version}, not $version: delete $BIN_DIR and rerun"
	exit 1
fi
echo "$BIN_DIR"
