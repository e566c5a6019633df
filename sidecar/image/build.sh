#!/usr/bin/env bash
# Builds what the codeloc image holds, for the Dockerfile at the repo root to
# assemble FROM scratch: three static binaries and the few files they need.
#
#   bash sidecar/image/build.sh && docker build -t codeloc .
#
# Output (default _out/image, printed as the last stdout line; logs go to
# stderr):
#   rootfs/      the image's root filesystem, staged as a tree to look at:
#                  /usr/local/bin/{codeloc,codeloc-jobs,codeloc-sidecar}
#                  /usr/local/lib/codeloc/wazero/   libpg_query's WebAssembly
#                                compiled by wazero for GOARCH (a read-only
#                                compilation cache: the migrations lint's
#                                first parse reads it instead of compiling,
#                                see validate/sqllint/wasm.go)
#                  /etc/passwd, /etc/group   root and argocd (999:999)
#                  /etc/ssl/certs/ca-certificates.crt   Debian's CA bundle
#                  /home/argocd/cmp-server/config/plugin.yaml
#                  /home/argocd/cmp-server/plugins/     the socket folder, 999
#                  /tmp                      mode 1777
#   rootfs.tar   the same tree as the Dockerfile ADDs it: owners set here
#                (root, and 999 for the socket folder) whoever runs the
#                script, names sorted, times set to SOURCE_DATE_EPOCH.
#   version      the version stamped into the binaries.
#
# Environment:
#   VERSION              default: git describe --always --dirty, else "dev"
#   GOARCH               default: go env GOARCH (GOOS is always linux)
#   SOURCE_DATE_EPOCH    file times; default: the last commit's, else 0
#   CODELOC_IMAGE_OUT    output folder (default _out/image; the Dockerfile
#                        reads _out/image/rootfs.tar)
#   CODELOC_QEMU         for a GOARCH other than the machine's: the qemu
#                        user-mode emulator that runs the staged codeloc to
#                        precompile (default qemu-<arch>-static or
#                        qemu-<arch> on PATH; Debian: qemu-user-static)
#   CODELOC_CA_BUNDLE    CA bundle to copy (default Debian's
#                        /etc/ssl/certs/ca-certificates.crt, installed with
#                        apt-get when missing)
set -euo pipefail
cd "$(dirname "$0")/../.."

# The Go string variable(s) -X stamps with the version, space-separated.
VERSION_VARS="github.com/codeloc/codeloc/internal/names.version"
# The main packages, as ./cmd/<name>; each lands in /usr/local/bin/<name>.
BINARIES="codeloc codeloc-jobs codeloc-sidecar"
# Argo CD's argocd user: it shares the plugin socket folder with the
# repo-server.
ARGOCD_UID=999

OUT=${CODELOC_IMAGE_OUT:-_out/image}
ROOTFS=$OUT/rootfs
# The socket folder, the only path the argocd user owns.
SOCKETS=home/argocd/cmp-server/plugins

log() { printf 'build.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

version() {
	if [ -n "${VERSION:-}" ]; then
		echo "$VERSION"
	else
		git describe --always --dirty 2>/dev/null || echo dev
	fi
}

source_date_epoch() {
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		echo "$SOURCE_DATE_EPOCH"
	else
		git log -1 --format=%ct 2>/dev/null || echo 0
	fi
}

# build_binaries VERSION: one go build for all, so packages are shared.
build_binaries() {
	local ldflags="-s -w" v pkgs=()
	for v in $VERSION_VARS; do ldflags+=" -X $v=$1"; done
	for v in $BINARIES; do
		[ -d "cmd/$v" ] || die "no main package ./cmd/$v"
		pkgs+=("./cmd/$v")
	done
	log "go build ${pkgs[*]} (GOARCH=$GOARCH, version $1)"
	mkdir -p "$ROOTFS/usr/local/bin"
	CGO_ENABLED=0 GOOS=linux GOFLAGS=-buildvcs=false \
		go build -trimpath -ldflags "$ldflags" -o "$ROOTFS/usr/local/bin/" "${pkgs[@]}"
	chmod 0755 "$ROOTFS"/usr/local/bin/*
}

# precompile: the staged codeloc lints fixtures/citation's migration with an
# empty cache folder, which makes wazero compile libpg_query's module and
# write its machine code there; the same twice, compared byte for byte
# (wazero's output depends on its version, the module, GOARCH and the CPU
# features it uses, SSE4.1/BMI1/ABM or LSE atomics: not on the machine
# otherwise). codeloc and codeloc-sidecar read it from
# /usr/local/lib/codeloc/wazero (../lib/codeloc/wazero from their folder).
precompile() {
	local bin=$ROOTFS/usr/local/bin/codeloc run=() host i
	host=$(go env GOHOSTARCH)
	if [ "$GOARCH" != "$host" ]; then
		local q=${CODELOC_QEMU:-}
		if [ -z "$q" ]; then
			local qa=$GOARCH
			case $GOARCH in amd64) qa=x86_64 ;; arm64) qa=aarch64 ;; esac
			q=$(command -v "qemu-$qa-static" || command -v "qemu-$qa" || true)
		fi
		[ -n "$q" ] || die "GOARCH=$GOARCH on a $host machine: the precompiled parser needs qemu user-mode emulation (apt-get install qemu-user-static, or CODELOC_QEMU)"
		run=("$q")
	fi
	local tmp
	tmp=$(mktemp -d)
	for i in 1 2; do
		CODELOC_CACHE_DIR=$tmp/$i "${run[@]}" "$bin" render fixtures/citation >/dev/null ||
			{ rm -rf "$tmp"; die "codeloc render fixtures/citation failed (precompiling the parser)"; }
	done
	if ! diff -r "$tmp/1/wazero" "$tmp/2/wazero" >&2; then
		rm -rf "$tmp"
		die "wazero compiled libpg_query's module to different bytes twice"
	fi
	local n
	n=$(find "$tmp/1/wazero" -type f | wc -l)
	[ "$n" -eq 1 ] || { rm -rf "$tmp"; die "the compilation cache holds $n files, want 1"; }
	install -d -m 0755 "$ROOTFS/usr/local/lib" "$ROOTFS/usr/local/lib/codeloc"
	cp -R "$tmp/1/wazero" "$ROOTFS/usr/local/lib/codeloc/wazero"
	rm -rf "$tmp"
	find "$ROOTFS/usr/local/lib/codeloc/wazero" -type d -exec chmod 0755 {} +
	find "$ROOTFS/usr/local/lib/codeloc/wazero" -type f -exec chmod 0644 {} +
	log "precompiled: $(cd "$ROOTFS" && find usr/local/lib/codeloc/wazero -type f) ($(du -h "$(find "$ROOTFS/usr/local/lib/codeloc/wazero" -type f)" | cut -f1))"
}

stage_users() {
	install -d -m 0755 "$ROOTFS/etc"
	printf '%s\n' "root:x:0:0:root:/root:/sbin/nologin" \
		"argocd:x:$ARGOCD_UID:$ARGOCD_UID:argocd:/home/argocd:/sbin/nologin" >"$ROOTFS/etc/passwd"
	printf '%s\n' "root:x:0:" "argocd:x:$ARGOCD_UID:" >"$ROOTFS/etc/group"
	chmod 0644 "$ROOTFS/etc/passwd" "$ROOTFS/etc/group"
}

ca_bundle() {
	local f=${CODELOC_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
	if [ ! -s "$f" ] && [ -z "${CODELOC_CA_BUNDLE:-}" ]; then
		command -v apt-get >/dev/null || die "no $f: install Debian's ca-certificates or set CODELOC_CA_BUNDLE"
		log "installing ca-certificates"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates >&2
	fi
	[ -s "$f" ] || die "no CA bundle at $f"
	echo "$f"
}

stage_files() {
	install -D -m 0644 "$(ca_bundle)" "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
	install -D -m 0644 plugin.yaml "$ROOTFS/home/argocd/cmp-server/config/plugin.yaml"
	install -d -m 0755 "$ROOTFS/$SOCKETS"
	install -d -m 1777 "$ROOTFS/tmp"
	chmod 0755 "$ROOTFS" "$ROOTFS"/usr "$ROOTFS"/usr/local "$ROOTFS"/etc/ssl \
		"$ROOTFS"/etc/ssl/certs "$ROOTFS"/home "$ROOTFS"/home/argocd \
		"$ROOTFS"/home/argocd/cmp-server "$ROOTFS"/home/argocd/cmp-server/config
}

# pack EPOCH: the tree as a tar, root-owned but for the socket folder.
# GNU tar (gtar on macOS) for --sort, --owner and --mtime.
pack() {
	local gnu=tar
	command -v gtar >/dev/null && gnu=gtar
	"$gnu" --version 2>/dev/null | grep -q 'GNU tar' || die "GNU tar is needed (macOS: brew install gnu-tar)"
	local tar=("$gnu" --format=gnu --sort=name --numeric-owner --mtime="@$1" -C "$ROOTFS")
	rm -f "$OUT/rootfs.tar"
	LC_ALL=C "${tar[@]}" --owner=0 --group=0 --exclude="./$SOCKETS" -cf "$OUT/rootfs.tar" .
	LC_ALL=C "${tar[@]}" --owner="$ARGOCD_UID" --group="$ARGOCD_UID" -rf "$OUT/rootfs.tar" "./$SOCKETS"
}

main() {
	local v epoch
	v=$(version)
	epoch=$(source_date_epoch)
	GOARCH=${GOARCH:-$(go env GOARCH)}
	rm -rf "$ROOTFS"
	mkdir -p "$ROOTFS"
	build_binaries "$v"
	precompile
	stage_users
	stage_files
	pack "$epoch"
	echo "$v" >"$OUT/version"
	log "staged $ROOTFS and $OUT/rootfs.tar ($(du -sh "$OUT/rootfs.tar" | cut -f1), version $v)"
	echo "$OUT"
}

main "$@"
