#!/usr/bin/env bash
# Builds the codeloc image the way users do (sidecar/image/build.sh, then the
# Dockerfile), with Debian's buildah instead of a Docker engine, then
# inspects it and runs it. As root, offline (FROM scratch pulls nothing).
#
#   bash .ci/image.sh                 build, inspect, run (CI)
#   bash .ci/image.sh serve SOCKDIR [codeloc-sidecar flags...]
#       runs codeloc-sidecar from the built image until SIGTERM/SIGINT,
#       serving SOCKDIR/codeloc-v1.sock on the host (SOCKDIR is bind-mounted
#       on the plugins folder and chowned to 999). The contract is
#       $CODELOC_IMAGE_CONTRACT (a file or a folder of contracts), else the
#       embedded example (`codeloc contract`). Argo CD's client code on the
#       host reaches it with ARGOCD_PLUGINSOCKFILEPATH=SOCKDIR.
#
# Images and containers live in their own store (vfs, $CODELOC_IMAGE_STORE,
# default /var/lib/codeloc-ci/storage): a re-run removes the previous
# image and check container first. Outputs (listing, config, renders, the
# OCI layout) go to _out/image/ci. Logs go to stderr; any mismatch exits 1
# with a FAIL line.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=localhost/codeloc:ci
CHECK_CTR=codeloc-ci-check
STORE=${CODELOC_IMAGE_STORE:-/var/lib/codeloc-ci/storage}
RUNROOT=${CODELOC_IMAGE_RUNROOT:-/run/codeloc-ci/storage}
OUT=_out/image
CI_OUT=$OUT/ci
# As buildah inspect's template prints it.
ENTRYPOINT='[/usr/local/bin/codeloc-sidecar]'
SOCKET=codeloc-v1.sock
BH=(buildah --root "$STORE" --runroot "$RUNROOT" --storage-driver vfs)
REF="containers-storage:[vfs@$STORE+$RUNROOT]$IMAGE"

export GOFLAGS=-buildvcs=false GOTOOLCHAIN=local

log() { printf 'image.sh: %s\n' "$*" >&2; }
step() { printf '\n== image: %s (%ss)\n' "$*" "$SECONDS" >&2; }
fail() {
	printf 'image.sh: FAIL: %s\n' "$*" >&2
	exit 1
}

install_tools() {
	local need=() t
	for t in buildah skopeo curl; do command -v "$t" >/dev/null || need+=("$t"); done
	[ ${#need[@]} -eq 0 ] && return
	log "installing ${need[*]} from Debian"
	timeout 300 apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive timeout 600 \
		apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
}

# run_in CTR [buildah run flags...] -- COMMAND...: runs a command in the
# container, as the image's user.
run_in() {
	local ctr=$1 flags=()
	shift
	while [ "$1" != -- ]; do
		flags+=("$1")
		shift
	done
	shift
	timeout 120 "${BH[@]}" run --isolation chroot "${flags[@]}" "$ctr" -- "$@"
}

clean() {
	timeout 60 "${BH[@]}" rm "$CHECK_CTR" >/dev/null 2>&1 || true
	timeout 60 "${BH[@]}" rmi -f "$IMAGE" >/dev/null 2>&1 || true
	rm -rf "$CI_OUT"
	mkdir -p "$CI_OUT"
}

build() {
	local t0=$SECONDS
	timeout 1800 bash sidecar/image/build.sh >/dev/null || fail "sidecar/image/build.sh failed"
	log "build.sh: $((SECONDS - t0))s"
	t0=$SECONDS
	timeout 300 "${BH[@]}" bud --isolation chroot \
		--build-arg VERSION="$(cat "$OUT/version")" -f Dockerfile -t "$IMAGE" . >&2 ||
		fail "buildah bud failed"
	log "buildah bud: $((SECONDS - t0))s"
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "image $1 is '$2', want '$3'"
	log "$1: $2"
}

inspect_config() {
	local f='{{.OCIv1.Config.User}}|{{.OCIv1.Config.Entrypoint}}|{{.OCIv1.Config.Cmd}}|{{.OCIv1.Config.WorkingDir}}'
	local got
	got=$(timeout 60 "${BH[@]}" inspect --type image --format "$f" "$IMAGE")
	expect "user|entrypoint|cmd|workdir" "$got" "999:999|$ENTRYPOINT|[]|/tmp"
	got=$(timeout 60 skopeo inspect --format '{{.Os}}/{{.Architecture}} {{len .Layers}} layer(s) {{index .Labels "org.opencontainers.image.version"}}' "$REF")
	expect "os/arch, layers, version label" "$got" "linux/${GOARCH:-$(go env GOARCH)} 1 layer(s) $(cat "$OUT/version")"
	timeout 60 skopeo inspect --config "$REF" >"$CI_OUT/config.json"
	grep -q '"PATH=/usr/local/bin"' "$CI_OUT/config.json" || fail "image env lacks PATH=/usr/local/bin: $CI_OUT/config.json"
	log "config: $CI_OUT/config.json"
}

# The image's one layer, as mode, owner and path: exactly what build.sh stages.
expected_listing() {
	cat <<-'EOF'
		drwxr-xr-x 0/0 etc/
		-rw-r--r-- 0/0 etc/group
		-rw-r--r-- 0/0 etc/passwd
		drwxr-xr-x 0/0 etc/ssl/
		drwxr-xr-x 0/0 etc/ssl/certs/
		-rw-r--r-- 0/0 etc/ssl/certs/ca-certificates.crt
		drwxr-xr-x 0/0 home/
		drwxr-xr-x 0/0 home/argocd/
		drwxr-xr-x 0/0 home/argocd/cmp-server/
		drwxr-xr-x 0/0 home/argocd/cmp-server/config/
		-rw-r--r-- 0/0 home/argocd/cmp-server/config/plugin.yaml
		drwxr-xr-x 999/999 home/argocd/cmp-server/plugins/
		drwxrwxrwt 0/0 tmp/
		drwxr-xr-x 0/0 usr/
		drwxr-xr-x 0/0 usr/local/
		drwxr-xr-x 0/0 usr/local/bin/
		-rwxr-xr-x 0/0 usr/local/bin/codeloc
		-rwxr-xr-x 0/0 usr/local/bin/codeloc-jobs
		-rwxr-xr-x 0/0 usr/local/bin/codeloc-sidecar
		drwxr-xr-x 0/0 usr/local/lib/
		drwxr-xr-x 0/0 usr/local/lib/codeloc/
		drwxr-xr-x 0/0 usr/local/lib/codeloc/wazero/
		drwxr-xr-x 0/0 usr/local/lib/codeloc/wazero/wazero-VERSION-GOARCH-linux/
		-rw-r--r-- 0/0 usr/local/lib/codeloc/wazero/wazero-VERSION-GOARCH-linux/ENTRY
	EOF
}

# precompiled_names: the layer listing with the precompiled parser's names
# (wazero's version, GOARCH, the sha256 that names the entry) generalized.
precompiled_names() {
	sed -E 's#^(.* usr/local/lib/codeloc/wazero/wazero-)v[^/]+-[a-z0-9]+-linux/#\1VERSION-GOARCH-linux/#; s#(wazero-VERSION-GOARCH-linux/)[0-9a-f]{64}$#\1ENTRY#'
}

# check_precompiled: the staged codeloc (the image's bytes) lints
# fixtures/citation's migration from the precompiled folder, without
# compiling: under 0.5 s of CPU (compiling takes 1.2 s or more, whatever
# the load) and nothing written to the folder. A miss would also mean a
# build machine whose CPU lacks a feature wazero uses (see build.sh).
check_precompiled() {
	local dir=$OUT/rootfs/usr/local/lib/codeloc/wazero before after cpu
	before=$(find "$dir" -type f | LC_ALL=C sort | xargs sha256sum)
	cpu=$(CODELOC_CACHE_DIR=off python3 -c '
import os, resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %d" % (r.ru_utime + r.ru_stime, r.ru_maxrss // 1024))
' "$OUT/rootfs/usr/local/bin/codeloc" render fixtures/citation) || fail "the staged codeloc render fixtures/citation failed"
	after=$(find "$dir" -type f | LC_ALL=C sort | xargs sha256sum)
	[ "$before" = "$after" ] || fail "the staged codeloc wrote to $dir: the precompiled parser missed"
	awk -v c="${cpu% *}" 'BEGIN { exit !(c < 0.5) }' ||
		fail "the staged codeloc render fixtures/citation took ${cpu% *} s of CPU: the precompiled parser was not used"
	log "precompiled parser: render fixtures/citation ${cpu% *} s CPU, ${cpu#* } MiB peak RSS, with an empty parse cache"
}

inspect_layers() {
	local oci=$CI_OUT/oci digest
	timeout 120 skopeo copy -q --dest-compress "$REF" "oci:$oci:ci" >&2
	: >"$CI_OUT/layers.txt"
	for digest in $(skopeo inspect --format '{{range .Layers}}{{println .}}{{end}}' "oci:$oci:ci"); do
		tar -tvf "$oci/blobs/sha256/${digest#sha256:}" | LC_ALL=C sort -k6 >>"$CI_OUT/layers.txt"
	done
	log "layer listing ($CI_OUT/layers.txt):"
	cat "$CI_OUT/layers.txt" >&2
	if grep -Eq '(^|/)(sh|bash|ash|dash|busybox)$' <(awk '{ print $6 }' "$CI_OUT/layers.txt"); then
		fail "the image holds a shell"
	fi
	diff -u <(expected_listing) <(awk '{ print $1, $2, $6 }' "$CI_OUT/layers.txt" | precompiled_names) >&2 ||
		fail "the layer listing differs from the expected one (- expected, + image)"
}

report_size() {
	local size blobs
	size=$(timeout 60 "${BH[@]}" images --format '{{.Size}}' "$IMAGE")
	blobs=$(du -cb "$CI_OUT"/oci/blobs/sha256/* | tail -1 | cut -f1)
	log "image size: $size unpacked, $((blobs / 1024)) KiB compressed (OCI layout, gzip)"
}

# same NAME WANT CTR [flags] -- COMMAND...: COMMAND's stdout in the image
# must be the file WANT (kept as $CI_OUT/NAME). buildah's chroot isolation
# relays the command's stdout through a poll loop and exits as soon as the
# command does: under load it can drop the tail of a short-lived command's
# output, all of it even, with exit status 0 (seen here about once in 40
# runs, buildah 1.28). A mismatch is retried twice before failing.
same() {
	local name=$1 want=$2 i
	shift 2
	for i in 1 2 3; do
		run_in "$@" >"$CI_OUT/$name" || fail "$name: failed in the image"
		if cmp -s "$want" "$CI_OUT/$name"; then
			log "$name: in the image = $want ($(wc -l <"$want") lines)"
			return
		fi
		log "$name: $(wc -c <"$CI_OUT/$name") bytes, differs from $want (attempt $i of 3)"
	done
	diff -u "$want" "$CI_OUT/$name" >&2
	fail "$name in the image differs from $want (- want, + image)"
}

# version_is CTR NAME COMMAND...: COMMAND prints the stamped version, in the
# image as on the host (the same staged binary).
version_is() {
	local ctr=$1 name=$2 v
	shift 2
	v=$(cat "$OUT/version")
	"$OUT/rootfs/usr/local/bin/$1" "${@:2}" >"$CI_OUT/want-$name" || fail "$* failed on the host"
	grep -qF -- "$v" "$CI_OUT/want-$name" || fail "$* says '$(cat "$CI_OUT/want-$name")', not version $v"
	same "$name" "$CI_OUT/want-$name" "$ctr" -- "$@"
}

# check_run CTR: the binaries start, as the image's user, and render a
# fixture exactly as the host does.
check_run() {
	version_is "$1" codeloc-version codeloc version
	version_is "$1" codeloc-jobs-version codeloc-jobs version
	version_is "$1" codeloc-sidecar-version codeloc-sidecar --version
	run_in "$1" -- codeloc-jobs --help >/dev/null || fail "codeloc-jobs --help failed in the image"
	run_in "$1" -- codeloc-sidecar --help >/dev/null 2>&1 || fail "codeloc-sidecar --help failed in the image"
	timeout 600 go run ./cmd/codeloc render fixtures/citation >"$CI_OUT/render-host.yaml" ||
		fail "go run ./cmd/codeloc render fixtures/citation failed on the host"
	same render-image.yaml "$CI_OUT/render-host.yaml" "$1" -v "$PWD/fixtures:/tmp/fixtures:ro" --workingdir /tmp -- \
		codeloc render fixtures/citation
}

# grpc SOCK METHOD: calls a gRPC method with an empty request over the
# unix socket and prints the response message's bytes in hex.
grpc() {
	printf '\0\0\0\0\0' | timeout 10 curl -sS --http2-prior-knowledge --unix-socket "$1" \
		-H 'content-type: application/grpc' -H 'te: trailers' --data-binary @- \
		"http://localhost/$2" | od -An -tx1 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}

# check_serve: the sidecar from the image serves a socket the host can call,
# as 999, and removes it on SIGTERM.
check_serve() {
	local dir=$CI_OUT/plugins pid i wd
	bash .ci/image.sh serve "$dir" &
	pid=$!
	SERVE_PID=$pid # stopped by main's EXIT trap if a check fails
	for i in $(seq 120); do
		[ -S "$dir/$SOCKET" ] && break
		kill -0 "$pid" 2>/dev/null || fail "serve exited before creating $dir/$SOCKET"
		sleep 0.5
	done
	[ -S "$dir/$SOCKET" ] || { kill -TERM "$pid"; fail "no socket $dir/$SOCKET after 60s"; }
	expect "socket owner" "$(stat -c %u:%g "$dir/$SOCKET")" "999:999"
	# Health: SERVING (field 1 = 1); the plugin: discovery configured.
	expect "grpc health from the host" "$(grpc "$dir/$SOCKET" grpc.health.v1.Health/Check)" "00 00 00 00 02 08 01"
	expect "CheckPluginConfiguration from the host" \
		"$(grpc "$dir/$SOCKET" plugin.ConfigManagementPluginService/CheckPluginConfiguration)" "00 00 00 00 02 08 01"
	kill -TERM "$pid"
	(sleep 60 && kill -KILL "$pid") 2>/dev/null &
	wd=$!
	wait "$pid" || fail "serve exited $? after SIGTERM, want 0 (137: still running 60s after)"
	kill "$wd" 2>/dev/null || true
	SERVE_PID=
	[ ! -e "$dir/$SOCKET" ] || fail "socket $dir/$SOCKET left after SIGTERM"
	log "sidecar from the image: socket served as 999, called from the host, removed on SIGTERM"
}

# contract_dir CTR DIR: the contract folder to mount, and the --contract path.
contract_dir() {
	local c=${CODELOC_IMAGE_CONTRACT:-}
	if [ -d "$c" ]; then
		echo "$(cd "$c" && pwd) /etc/codeloc/contract"
	elif [ -n "$c" ]; then
		[ -f "$c" ] || fail "CODELOC_IMAGE_CONTRACT=$c: no such file"
		cp "$c" "$2/" && echo "$2 /etc/codeloc/contract/$(basename "$c")"
	else
		run_in "$1" -- codeloc contract >"$2/contract.yaml" || fail "codeloc contract failed in the image"
		echo "$2 /etc/codeloc/contract/contract.yaml"
	fi
}

# descendant PID COMM: the first process named COMM under PID (children
# of every thread: Go forks from any).
descendant() {
	local p=$1
	while [ -n "$p" ]; do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ]; then
			echo "$p"
			return 0 # a bare return in a trap handler returns the interrupted wait's 143
		fi
		p=$(cat /proc/"$p"/task/*/children 2>/dev/null | awk '{ print $1; exit }')
	done
}

# stop PID: SIGTERM to the sidecar itself. buildah run forwards no signal:
# on SIGTERM it SIGKILLs the command, which then leaves its socket behind.
stop() {
	local p
	p=$(descendant "$1" codeloc-sidecar) || true
	kill -TERM "${p:-$1}" 2>/dev/null || true
}

serve() {
	[ $# -ge 1 ] || fail "usage: $0 serve SOCKDIR [codeloc-sidecar flags...]"
	local dir mount contract pid rc=0
	dir=$(mkdir -p "$1" && cd "$1" && pwd)
	shift
	timeout 60 "${BH[@]}" inspect --type image "$IMAGE" >/dev/null 2>&1 || fail "no image $IMAGE: run bash .ci/image.sh first"
	chown 999:999 "$dir"
	# Globals: the EXIT trap runs after serve returns.
	SERVE_CTR=codeloc-ci-serve-$$
	SERVE_TMP=$(mktemp -d)
	chmod 0755 "$SERVE_TMP" # read by 999
	trap 'timeout 60 "${BH[@]}" rm "$SERVE_CTR" >/dev/null 2>&1 || true; rm -rf "$SERVE_TMP"' EXIT
	timeout 60 "${BH[@]}" from --pull-never --name "$SERVE_CTR" "$IMAGE" >/dev/null
	read -r mount contract < <(contract_dir "$SERVE_CTR" "$SERVE_TMP")
	log "codeloc-sidecar from $IMAGE on $dir/$SOCKET (contract $contract)"
	"${BH[@]}" run --isolation chroot -v "$dir:/home/argocd/cmp-server/plugins" \
		-v "$mount:/etc/codeloc/contract:ro" "$SERVE_CTR" -- codeloc-sidecar --contract "$contract" "$@" &
	pid=$!
	trap 'stop "$pid"' TERM INT
	wait "$pid" || rc=$?
	if kill -0 "$pid" 2>/dev/null; then # wait was interrupted by the signal
		rc=0
		wait "$pid" || rc=$?
	fi
	return "$rc"
}

main() {
	step "tools: buildah, skopeo"
	install_tools
	log "$(buildah --version); $(skopeo --version)"
	step "build: sidecar/image/build.sh + buildah bud"
	clean
	build
	step "inspect: config, layer listing, size"
	inspect_config
	inspect_layers
	report_size
	check_precompiled
	step "run: codeloc, codeloc-jobs, codeloc-sidecar in the image"
	SERVE_PID=
	trap '[ -z "$SERVE_PID" ] || kill -TERM "$SERVE_PID" 2>/dev/null || true' EXIT
	timeout 60 "${BH[@]}" from --pull-never --name "$CHECK_CTR" "$IMAGE" >/dev/null
	check_run "$CHECK_CTR"
	check_serve
	timeout 60 "${BH[@]}" rm "$CHECK_CTR" >/dev/null
	step "image ok"
}

case ${1:-} in
serve)
	shift
	serve "$@"
	;;
"") main ;;
*) fail "usage: $0 [serve SOCKDIR [codeloc-sidecar flags...]]" ;;
esac
