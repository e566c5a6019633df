#!/usr/bin/env bash
# Installs (once) the pinned command-line tools the benchmarks and checks
# compare against, and prints the directory holding them on stdout (last
# line); logs go to stderr.
#
#   bin=$(bash .ci/tools.sh) && "$bin/kustomize" version
#
# Tools are built from the Go module proxy with `go install pkg@version`,
# which resolves the tool's own go.mod: ours is never read nor touched. The
# cache is keyed by version under ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}:
#   kustomize-v5.4.3/kustomize
# A present binary is reused; delete the directory to rebuild.
set -euo pipefail

KUSTOMIZE_VERSION=${KUSTOMIZE_VERSION:-5.4.3}
TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
BIN_DIR=$TOOLS_DIR/kustomize-v$KUSTOMIZE_VERSION

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off

log() { printf 'tools.sh: %s\n' "$*" >&2; }

if [ -x "$BIN_DIR/kustomize" ]; then
	log "kustomize v$KUSTOMIZE_VERSION already in $BIN_DIR"
else
	log "installing kustomize v$KUSTOMIZE_VERSION into $BIN_DIR"
	mkdir -p "$BIN_DIR"
	# Run outside the repo so that no go.mod or go.work is in scope.
	(cd "$(mktemp -d)" && GOBIN=$BIN_DIR go install "sigs.k8s.io/kustomize/kustomize/v5@v$KUSTOMIZE_VERSION")
fi

# `kustomize version` says (devel) when built by go install: read the
# module version recorded in the binary instead.
got=$(go version -m "$BIN_DIR/kustomize" | awk '$1 == "mod" { print $3 }')
if [ "$got" != "v$KUSTOMIZE_VERSION" ]; then
	log "$BIN_DIR/kustomize is ${got:-of unknown version}, not v$KUSTOMIZE_VERSION: delete $BIN_DIR and rerun"
	exit 1
fi

echo "$BIN_DIR"
