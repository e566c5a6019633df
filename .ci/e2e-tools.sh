#!/usr/bin/env bash
# Builds or installs (once) every tool the e2e harness (e2e/) starts, cached
# by version under ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}, and
# writes an env file naming them; its path is the last stdout line:
#
#   env=$(bash .ci/e2e-tools.sh | tail -n1) && set -a && . "$env" && set +a
#   ARGOCD_VERSION=3.5.8 bash .ci/e2e-tools.sh    # another supported version
#   bash .ci/e2e-tools.sh --versions              # the supported versions
#
#   etcd, kube-apiserver,            .ci/kube.sh (throw-away module), with
#   kube-controller-manager,         KUBE_EXTRA for the last two
#   kube-scheduler v1.34.4
#   kwok v0.8.0                      go install in a throw-away module
#   argocd v$ARGOCD_VERSION           built INSIDE a writable copy of its
#     (3.6.2 by default; 3.5.8 and   module directory (its go.mod replace
#     3.4.14 selectable)             lines apply; the UI embed is a
#                                    placeholder), with that version's
#                                    manifests/ (CRDs, install.yaml); 3.6
#                                    needs Go 1.27: the go command fetches
#                                    $ARGOCD_GO_TOOLCHAIN from the module
#                                    proxy for that version's commands only
#   manifests/ of every supported    copied from the module cache, no build:
#     Argo CD version                the install bundle's tests render the
#                                    bundle over each stock install
#   redis-server, postgresql-15      Debian packages (apt-get), when missing
#   pgvector 0.8.0                   .ci/postgres.sh pgvector (Debian trixie's
#                                    source package, built once, cached)
#
# Each step has its own timeout (E2E_TOOLS_TIMEOUT_<STEP> in seconds). A
# present binary is reused; delete its directory to rebuild. Logs on stderr.
#
# Argo CD 3.x replaces its gitops-engine with the in-repo ./gitops-engine, a
# nested module the module zip leaves out. From 3.6 that module
# (github.com/argoproj/argo-cd/gitops-engine/v3) is tagged with each release
# and go.mod requires the release's own tag: the build copies that version.
# Before 3.6 (github.com/argoproj/argo-cd/gitops-engine, required at a
# pseudo-version the proxy does not serve) the build takes the pinned
# pseudo-version ARGOCD_GITOPS_ENGINE (the last one of that module path,
# master of 2026-09-14). Either way it writes what it used to
# $ARGOCD_DIR/BUILD_INFO.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
KWOK_VERSION=${KWOK_VERSION:-0.8.0}
ARGOCD_VERSION=${ARGOCD_VERSION:-3.6.2}
# The versions the docs call supported and tested (.ci/e2e-matrix.sh).
ARGOCD_VERSIONS="3.6.2 3.5.8 3.4.14"
# The Go toolchain for the modules of Argo CD 3.6 and later (go.mod: go
# 1.27.0), fetched by the go command from the module proxy (~76 MB, cached
# in the module cache); everything else here runs the local Go.
ARGOCD_GO_TOOLCHAIN=${ARGOCD_GO_TOOLCHAIN:-go1.27.3}
ARGOCD_GITOPS_ENGINE=${ARGOCD_GITOPS_ENGINE:-v0.0.0-20260914071520-c9c369efcc5b}
KWOK_DIR=$TOOLS_DIR/kwok-v$KWOK_VERSION
ARGOCD_DIR=$TOOLS_DIR/argocd-v$ARGOCD_VERSION
ENV_FILE=$TOOLS_DIR/e2e-argocd-v$ARGOCD_VERSION.env

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
	timeout "${!var:-$def}" bash -c "set -euo pipefail; $*" || { log "$name failed or timed out (${!var:-$def}s)"; exit 1; }
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

# argocd_toolchain VERSION: the GOTOOLCHAIN of the go commands that read
# that version's module (its go line): local up to 3.5, the pinned
# toolchain from 3.6.
argocd_toolchain() {
	case $1 in
	2.* | 3.[0-5].*) echo local ;;
	*) echo "$ARGOCD_GO_TOOLCHAIN" ;;
	esac
}

# argocd_module VERSION: the Go module of an Argo CD version.
argocd_module() {
	case $1 in
	2.*) echo "github.com/argoproj/argo-cd/v2@v$1" ;;
	*) echo "github.com/argoproj/argo-cd/v${1%%.*}@v$1" ;;
	esac
}

# module_dir MODULE@VERSION [GOTOOLCHAIN]: its read-only module cache
# directory (a module whose go line is newer than the local Go is extracted
# but not reported without that toolchain).
module_dir() {
	mkdir -p "$WORK/mod-dl"
	(cd "$WORK/mod-dl" && { [ -f go.mod ] || go mod init codeloc.invalid/dl >/dev/null 2>&1; } &&
		GOTOOLCHAIN=${2:-local} go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
}

# argocd_manifests: manifests/ (crds/, install.yaml) of every supported
# version, each under $TOOLS_DIR/argocd-vX/manifests.
argocd_manifests() {
	local v dir dest
	for v in $(printf '%s\n' $ARGOCD_VERSIONS "$ARGOCD_VERSION" | sort -u); do
		dest=$TOOLS_DIR/argocd-v$v/manifests
		[ -f "$dest/install.yaml" ] && [ -f "$dest/crds/application-crd.yaml" ] && continue
		dir=$(module_dir "$(argocd_module "$v")" "$(argocd_toolchain "$v")")
		[ -f "$dir/manifests/install.yaml" ] || { log "cannot download $(argocd_module "$v")"; exit 1; }
		rm -rf "$dest.tmp" && mkdir -p "$dest.tmp/crds"
		cp "$dir/manifests/install.yaml" "$dest.tmp/"
		cp "$dir"/manifests/crds/*.yaml "$dest.tmp/crds/"
		chmod -R u+w "$dest.tmp" && rm -rf "$dest" && mv "$dest.tmp" "$dest"
		log "manifests of argocd v$v in $dest"
	done
}

# argocd_tool builds argocd, and puts beside it the scripts the image
# installs next to it in /usr/local/bin (the repo-server of 3.5 runs
# git-verify-wrapper.sh on every revision, signature policy or not).
argocd_tool() {
	if is_binary "$ARGOCD_DIR/argocd"; then
		log "cached $ARGOCD_DIR/argocd"
	else
		argocd_build
	fi
	local s
	for s in gpg-wrapper.sh git-verify-wrapper.sh; do
		[ -x "$ARGOCD_DIR/$s" ] && continue
		install -m 0755 "$(module_dir "$(argocd_module "$ARGOCD_VERSION")" "$(argocd_toolchain "$ARGOCD_VERSION")")/hack/$s" "$ARGOCD_DIR/$s"
	done
}

argocd_build() {
	log "building argocd v$ARGOCD_VERSION inside its module (cold: 5-15 min)"
	local dir engine info path ver toolchain
	toolchain=$(argocd_toolchain "$ARGOCD_VERSION")
	dir=$(module_dir "$(argocd_module "$ARGOCD_VERSION")" "$toolchain")
	[ -d "$dir" ] || { log "cannot download $(argocd_module "$ARGOCD_VERSION")"; exit 1; }
	cp -r "$dir" "$WORK/argo-cd" && chmod -R u+w "$WORK/argo-cd"
	info="argocd v$ARGOCD_VERSION from $(argocd_module "$ARGOCD_VERSION") (GOTOOLCHAIN=$toolchain)"
	path=$(sed -n 's#^\(replace\)\{0,1\}[[:space:]]*\([^ ]*gitops-engine[^ ]*\) => \./gitops-engine.*#\2#p' "$WORK/argo-cd/go.mod" | head -n1)
	if [ -n "$path" ] && [ ! -d "$WORK/argo-cd/gitops-engine" ]; then
		# The version go.mod requires when it is a release tag (3.6 on),
		# else the pin.
		ver=$(sed -n "s#^[[:space:]]*$path \(v[^ ]*\).*#\1#p" "$WORK/argo-cd/go.mod" | head -n1)
		[[ $ver =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || ver=$ARGOCD_GITOPS_ENGINE
		engine=$(module_dir "$path@$ver" "$toolchain")
		[ -d "$engine" ] || { log "cannot download $path@$ver"; exit 1; }
		cp -r "$engine" "$WORK/argo-cd/gitops-engine" && chmod -R u+w "$WORK/argo-cd/gitops-engine"
		info="$info; ./gitops-engine from $path@$ver"
	fi
	mkdir -p "$ARGOCD_DIR"
	# The Makefile's version stamp: `argocd version` and the User-Agent say it.
	local stamp="-X $(argocd_module "$ARGOCD_VERSION" | cut -d@ -f1)/common.version=$ARGOCD_VERSION"
	(
		cd "$WORK/argo-cd"
		cp go.mod go.mod.release
		# The pinned gitops-engine requires newer modules than 3.4 does. The
		# release's replace lines keep k8s.io/* at its versions; pin
		# k8s.io/kubernetes to its own too, let the go command raise the rest,
		# and record what it raised.
		local kube
		kube=$(sed -n 's#^[[:space:]]*k8s.io/kubernetes \(v[^ ]*\).*#\1#p' go.mod | head -n1)
		if [ -n "$kube" ] && ! grep -q 'k8s.io/kubernetes =>' go.mod; then
			echo "replace k8s.io/kubernetes => k8s.io/kubernetes $kube" >>go.mod
		fi
		# The only command run with another toolchain (3.6: go 1.27.0).
		GOTOOLCHAIN=$toolchain go build -mod=mod -trimpath -ldflags "-s -w $stamp" -o "$WORK/argocd" ./cmd
		local mod
		{ diff go.mod.release go.mod || true; } | sed -n 's/^> [[:space:]]*\([^ ]*\) \(v[^ ]*\).*$/\1 \2/p' | while read -r mod v; do
			grep -Eq "^[[:space:]]*(replace[[:space:]]+)?$mod[[:space:]]+=>" go.mod || echo "go.mod raised for the build: $mod $v"
		done >"$WORK/mod-changes"
	)
	{
		echo "$info"
		cat "$WORK/mod-changes"
	} >"$ARGOCD_DIR/BUILD_INFO"
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
	export WORK here TOOLS_DIR KWOK_VERSION ARGOCD_VERSION ARGOCD_VERSIONS ARGOCD_GITOPS_ENGINE ARGOCD_GO_TOOLCHAIN KWOK_DIR ARGOCD_DIR
	export -f log is_binary kube_tools kwok_tool argocd_toolchain argocd_module module_dir argocd_manifests argocd_tool argocd_build debian_tools
	timed debian 600 debian_tools
	# The citation fixture's migration needs pgvector (built once, cached).
	timed pgvector 900 'bash "$here/postgres.sh" pgvector'
	timed manifests 600 argocd_manifests
	# Sequential: each build takes both cores.
	timed argocd 1800 argocd_tool
	timed kube 1800 kube_tools
	timed kwok 900 kwok_tool
	{
		echo "CODELOC_KUBE_BIN_DIR=$(cat "$WORK/kube-bin")"
		echo "CODELOC_KWOK=$KWOK_DIR/kwok"
		echo "CODELOC_ARGOCD=$ARGOCD_DIR/argocd"
		echo "CODELOC_ARGOCD_VERSION=$ARGOCD_VERSION"
		echo "CODELOC_ARGOCD_MANIFESTS=$ARGOCD_DIR/manifests"
		echo "CODELOC_REDIS_SERVER=/usr/bin/redis-server"
	} >"$ENV_FILE"
	log "ready in $((SECONDS - start))s"
	echo "$ENV_FILE"
}

if [ "${1:-}" = --versions ]; then
	echo "$ARGOCD_VERSIONS"
	exit 0
fi
main "$@"
