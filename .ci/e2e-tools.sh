#!/usr/bin/env bash
# Builds or installs (once) every tool the e2e harness (e2e/) starts, cached
# by version under ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}, and
# writes an env file naming them; its path is the last stdout line:
#
#   env=$(bash .ci/e2e-tools.sh | tail -n1) && set -a && . "$env" && set +a
#
#   etcd, kube-apiserver,            .ci/kube.sh (throw-away module), with
#   kube-controller-manager,         KUBE_EXTRA for the last two
#   kube-scheduler v1.34.4
#   kwok v0.8.0                      go install in a throw-away module
#   argocd v2.14.21                  built INSIDE a writable copy of its
#                                    module directory (its go.mod replace
#                                    lines apply; the UI embed is a placeholder)
#   redis-server, postgresql-15      Debian packages (apt-get), when missing
#
# Each step has its own timeout (E2E_TOOLS_TIMEOUT_<STEP> in seconds). A
# present binary is reused; delete its directory to rebuild. Logs on stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
KWOK_VERSION=${KWOK_VERSION:-0.8.0}
ARGOCD_VERSION=${ARGOCD_VERSION:-2.14.21}
KWOK_DIR=$TOOLS_DIR/kwok-v$KWOK_VERSION
ARGOCD_DIR=$TOOLS_DIR/argocd-v$ARGOCD_VERSION
ENV_FILE=$TOOLS_DIR/e2e.env

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off

log() { printf 'e2e-tools.sh: %s\n' "$*" >&2; }
is_binary() { [ -f "$1" ] && [ -x "$1" ]; }

# timed NAME DEFAULT_SECONDS FUNCTION: runs an exported FUNCTION in a child
# bash under its step's timeout and logs how long it took.
timed() {
	local name=$1 def=$2 var start
	shift 2
	var="E2E_TOOLS_TIMEOUT_${name^^}"
	start=$SECONDS
	timeout "${!var:-$def}" bash -c "$*" || { log "$name failed or timed out (${!var:-$def}s)"; exit 1; }
	log "$name: $((SECONDS - start))s"
}

kube_tools() {
	KUBE_EXTRA="kube-controller-manager kube-scheduler" bash "$here/kube.sh" | tail -n1 >"$WORK/kube-bin"
}

kwok_tool() {
	is_binary "$KWOK_DIR/kwok" && { log "cached $KWOK_DIR/kwok"; return; }
	log "building kwok v$KWOK_VERSION (cold: ~4 min)"
	mkdir -p "$WORK/mod-kwok" "$KWOK_DIR"
	(cd "$WORK/mod-kwok" && go mod init codeloc.invalid/kwok-tools >/dev/null 2>&1 &&
		GOBIN=$WORK/bin go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION")
	mv -f "$WORK/bin/kwok" "$KWOK_DIR/kwok"
}

argocd_tool() {
	is_binary "$ARGOCD_DIR/argocd" && { log "cached $ARGOCD_DIR/argocd"; return; }
	log "building argocd v$ARGOCD_VERSION inside its module (cold: 10-15 min)"
	local dir
	mkdir -p "$WORK/mod-argocd"
	dir=$(cd "$WORK/mod-argocd" && go mod download -json "github.com/argoproj/argo-cd/v2@v$ARGOCD_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	[ -d "$dir" ] || { log "cannot download github.com/argoproj/argo-cd/v2@v$ARGOCD_VERSION"; exit 1; }
	cp -r "$dir" "$WORK/argo-cd" && chmod -R u+w "$WORK/argo-cd"
	mkdir -p "$ARGOCD_DIR"
	(cd "$WORK/argo-cd" && go build -trimpath -ldflags "-s -w" -o "$WORK/argocd" ./cmd)
	mv -f "$WORK/argocd" "$ARGOCD_DIR/argocd"
}

debian_tools() {
	local -a pkgs=()
	[ -x /usr/bin/redis-server ] || pkgs+=(redis-server)
	[ -x /usr/lib/postgresql/15/bin/postgres ] || pkgs+=(postgresql-15)
	[ "${#pkgs[@]}" -eq 0 ] && { log "cached redis-server, postgresql-15"; return; }
	[ "$(id -u)" = 0 ] || { log "installing ${pkgs[*]} needs root"; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2
	# The package starts a system-wide redis: the harness runs its own.
	command -v systemctl >/dev/null && systemctl disable --now redis-server >/dev/null 2>&1 || true
}

main() {
	mkdir -p "$TOOLS_DIR"
	exec 8>"$TOOLS_DIR/.e2e-tools.lock"
	command -v flock >/dev/null && flock 8
	local start=$SECONDS
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/codeloc-e2e-tools.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	export WORK here TOOLS_DIR KWOK_VERSION ARGOCD_VERSION KWOK_DIR ARGOCD_DIR
	export -f log is_binary kube_tools kwok_tool argocd_tool debian_tools
	timed debian 600 debian_tools
	# Sequential: each build takes both cores.
	timed argocd 1800 argocd_tool
	timed kube 1800 kube_tools
	timed kwok 900 kwok_tool
	{
		echo "CODELOC_KUBE_BIN_DIR=$(cat "$WORK/kube-bin")"
		echo "CODELOC_KWOK=$KWOK_DIR/kwok"
		echo "CODELOC_ARGOCD=$ARGOCD_DIR/argocd"
		echo "CODELOC_REDIS_SERVER=/usr/bin/redis-server"
	} >"$ENV_FILE"
	log "ready in $((SECONDS - start))s"
	echo "$ENV_FILE"
}

main "$@"
