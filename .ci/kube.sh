#!/usr/bin/env bash
# Builds (once) and caches the kube-apiserver and etcd binaries that the
# tests of internal/kubetest start. Prints the directory holding both
# binaries on stdout (last line); logs go to stderr.
#
#   bin=$(bash .ci/kube.sh) && export CODELOC_KUBE_BIN_DIR=$bin
#
# Binaries are built from the Go module proxy in throw-away modules under a
# temporary directory: our go.mod is never touched. The cache is keyed by
# version under ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}:
#   kube-v1.34.4/kube-apiserver   etcd-v3.6.4/etcd
# A present binary is reused; delete the directory to rebuild.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-1.34.4}
ETCD_VERSION=${ETCD_VERSION:-3.6.4}
TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
KUBE_DIR=$TOOLS_DIR/kube-v$KUBE_VERSION
ETCD_DIR=$TOOLS_DIR/etcd-v$ETCD_VERSION
BIN_DIR=$TOOLS_DIR/bin-kube-v$KUBE_VERSION-etcd-v$ETCD_VERSION

export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off

log() { printf 'kube.sh: %s\n' "$*" >&2; }

# is_binary PATH: an executable regular file.
is_binary() { [ -f "$1" ] && [ -x "$1" ]; }

# new_module DIR NAME: an empty throw-away module in DIR.
new_module() {
	mkdir -p "$1"
	(cd "$1" && go mod init "$2" >/dev/null 2>&1)
}

# staging_replaces VERSION: one "-replace" flag per k8s.io/* module that
# k8s.io/kubernetes@vVERSION requires at v0.0.0 (its staging repos), pointing
# at the published v0.MINOR.PATCH tag.
staging_replaces() {
	local gomod staging
	gomod=$(go mod download -json "k8s.io/kubernetes@v$1" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
	[ -f "$gomod" ] || { log "cannot download k8s.io/kubernetes@v$1"; exit 1; }
	staging="v0.${1#*.}"
	awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" { print $1 }' "$gomod" | sort -u |
		while read -r mod; do printf -- '-replace=%s=%s@%s\n' "$mod" "$mod" "$staging"; done
}

build_kube_apiserver() {
	local work=$1 out=$KUBE_DIR/kube-apiserver
	is_binary "$out" && { log "cached $out"; return; }
	log "building kube-apiserver v$KUBE_VERSION (cold: several minutes)"
	new_module "$work/mod-kube" codeloc.invalid/kube-tools
	local -a replaces
	mapfile -t replaces < <(cd "$work/mod-kube" && staging_replaces "$KUBE_VERSION")
	[ "${#replaces[@]}" -gt 0 ] || { log "no staging modules found in k8s.io/kubernetes go.mod"; exit 1; }
	local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION"
	ldflags+=" -X k8s.io/component-base/version.gitMajor=${KUBE_VERSION%%.*}"
	ldflags+=" -X k8s.io/component-base/version.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)"
	(
		cd "$work/mod-kube"
		go mod edit "${replaces[@]}" -require="k8s.io/kubernetes@v$KUBE_VERSION"
		go build -mod=mod -trimpath -ldflags "$ldflags" -o "$work/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
	)
	mkdir -p "$KUBE_DIR" && rm -rf "$out"
	mv -f "$work/kube-apiserver" "$out"
}

# build_kube_component NAME: builds k8s.io/kubernetes/cmd/NAME (kube-apiserver,
# kube-controller-manager, kube-scheduler) into $KUBE_DIR/NAME, once.
build_kube_component() {
	local work=$1 name=$2 out=$KUBE_DIR/$2
	is_binary "$out" && { log "cached $out"; return; }
	log "building $name v$KUBE_VERSION (cold: several minutes)"
	if [ ! -f "$work/mod-kube/go.mod" ] || ! grep -q "k8s.io/kubernetes v$KUBE_VERSION" "$work/mod-kube/go.mod"; then
		new_module "$work/mod-kube" codeloc.invalid/kube-tools
		local -a replaces
		mapfile -t replaces < <(cd "$work/mod-kube" && staging_replaces "$KUBE_VERSION")
		[ "${#replaces[@]}" -gt 0 ] || { log "no staging modules found in k8s.io/kubernetes go.mod"; exit 1; }
		(cd "$work/mod-kube" && go mod edit "${replaces[@]}" -require="k8s.io/kubernetes@v$KUBE_VERSION")
	fi
	local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$KUBE_VERSION"
	ldflags+=" -X k8s.io/component-base/version.gitMajor=${KUBE_VERSION%%.*}"
	ldflags+=" -X k8s.io/component-base/version.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)"
	(cd "$work/mod-kube" && go build -mod=mod -trimpath -ldflags "$ldflags" -o "$work/$name" "k8s.io/kubernetes/cmd/$name")
	mkdir -p "$KUBE_DIR" && rm -rf "$out"
	mv -f "$work/$name" "$out"
}

build_etcd() {
	local work=$1 out=$ETCD_DIR/etcd
	is_binary "$out" && { log "cached $out"; return; }
	log "building etcd v$ETCD_VERSION"
	new_module "$work/mod-etcd" codeloc.invalid/etcd-tools
	(
		cd "$work/mod-etcd"
		go mod edit -require="go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
		go build -mod=mod -trimpath -ldflags "-s -w" -o "$work/etcd" go.etcd.io/etcd/server/v3
	)
	mkdir -p "$ETCD_DIR" && rm -rf "$out"
	mv -f "$work/etcd" "$out"
}

main() {
	mkdir -p "$TOOLS_DIR"
	# Serialize concurrent builds (two test scripts starting at once).
	exec 9>"$TOOLS_DIR/.kube.lock"
	command -v flock >/dev/null && flock 9
	local start=$SECONDS
	# Global: the EXIT trap runs after main has returned.
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/codeloc-kube-build.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	build_etcd "$WORK"
	mkdir -p "$BIN_DIR"
	build_kube_apiserver "$WORK"
	# The e2e harness also needs the controller-manager and the scheduler
	# (KUBE_EXTRA="kube-controller-manager kube-scheduler"; .ci/e2e-tools.sh sets it).
	local extra
	for extra in ${KUBE_EXTRA:-}; do
		build_kube_component "$WORK" "$extra"
		ln -sfn "$KUBE_DIR/$extra" "$BIN_DIR/$extra"
	done
	# One directory holding both binaries (symlinks), for CODELOC_KUBE_BIN_DIR.
	ln -sfn "$KUBE_DIR/kube-apiserver" "$BIN_DIR/kube-apiserver"
	ln -sfn "$ETCD_DIR/etcd" "$BIN_DIR/etcd"
	log "ready in $((SECONDS - start))s"
	echo "$BIN_DIR"
}

main "$@"
