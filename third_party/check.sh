#!/usr/bin/env bash
# Proves each module under third_party/ is its upstream release plus the
# patch beside it, byte for byte, cut to what our build needs and run
# through gofmt, and runs
# upstream's own tests on the packages the patch changes.
#
#   bash third_party/check.sh           # check every copy
#   bash third_party/check.sh --write   # rewrite every copy from its release and patch
#
# A module here is named in go.mod's replace directives; its upstream
# release is downloaded from the module proxy (GOFLAGS and GOPROXY as set).
# A copy holds the release's files at the module's root and the non-test
# files of every package our packages or their tests import on the
# platforms below: nothing else, so a copy of a large module stays small,
# and a package the build starts to need fails here with what to run.
set -euo pipefail
cd "$(dirname "$0")/.."

write=false
case ${1:-} in
--write) write=true ;;
"") ;;
*)
	printf 'usage: bash third_party/check.sh [--write]\n' >&2
	exit 2
	;;
esac

# The platforms a copy must build on: the image's, and developers' machines.
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"

log() { printf '%s\n' "$*" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && go mod init codeloc.invalid/third-party >/dev/null 2>&1)

# download MODULE@VERSION: upstream's module cache directory and its hash
# (go.sum's h1:), on one line.
download() {
	(cd "$work" && go mod download -json "$1") | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(m.get("Dir", ""), m.get("Sum", ""))'
}

# list_imports: every package our packages and their tests import on any
# of the platforms, into $work/imports (go list runs once per platform, for
# all the copies; again only after --write changed one).
list_imports() {
	local p
	for p in $platforms; do
		GOOS=${p%/*} GOARCH=${p#*/} go list -e -deps -test -f '{{.ImportPath}}' ./...
	done | sort -u >"$work/imports"
}

# needed_dirs MODULE: the module's package directories (relative, "." for
# its root) in $work/imports.
needed_dirs() {
	awk -v m="$1" '$0 == m { print "."; next } index($0, m "/") == 1 { print substr($0, length(m) + 2) }' "$work/imports"
}

# expected_files TREE MODULE: the files of TREE a copy holds, one relative
# path a line: the root's files, and the non-test files of each needed
# package directory.
expected_files() {
	local d
	{
		(cd "$1" && find . -maxdepth 1 -type f ! -name '*_test.go')
		for d in $(needed_dirs "$2"); do
			if [ "$d" != . ] && [ -d "$1/$d" ]; then
				(cd "$1" && find "./$d" -maxdepth 1 -type f ! -name '*_test.go')
			fi
		done
	} | sed 's|^\./||' | sort -u
}

# format_cut TREE WANT: gofmt the Go files of TREE listed in WANT, so a
# copy passes the gofmt step every tracked .go file does (upstream's
# formatting predates gofmt's current doc-comment rules in places); it
# changes layout only, never what compiles. Twice: on some of those
# comments one gofmt pass leaves work for the next.
format_cut() {
	local _
	for _ in 1 2; do
		(cd "$1" && grep '\.go$' "$2" | xargs -r gofmt -w)
	done
}

# patched_dirs PATCH: the package directories the patch changes, adds to
# or deletes from (a deleted file's new name is /dev/null: read the old).
patched_dirs() {
	sed -n -e 's|^+++ b/||p' -e 's|^--- a/||p' "$1" | awk '{ print $1 }' | xargs -n1 dirname | sort -u
}

list_imports
status=0
# A copy no replace names is built by nothing and checked by nothing.
for d in third_party/*/; do
	d=./${d%/}
	go mod edit -json | grep -q "\"Path\": \"$d\"" || { log "$d: no replace in go.mod names it: drop it or add the replace"; status=1; }
done
# Each line: <module> <version> <directory>, from go.mod's replace block.
while read -r module version dir; do
	name=${dir#./third_party/}
	patch=third_party/$name.patch
	[ -f "$patch" ] || { log "$dir: no $patch: say what the copy changes"; status=1; continue; }
	[ -f "third_party/$name.sum" ] || { log "$dir: no third_party/$name.sum: pin upstream's hash"; status=1; continue; }
	read -r upstream sum < <(download "$module@$version")
	[ -d "$upstream" ] || { log "cannot download $module@$version"; status=1; continue; }
	# go.sum no longer pins a replaced module: third_party/NAME.sum does.
	if [ "$module $version $sum" != "$(cat "third_party/$name.sum" 2>/dev/null)" ]; then
		log "$module@$version downloads as $sum, not as third_party/$name.sum says"
		status=1
		continue
	fi
	a=$work/$name
	cp -R "$upstream" "$a" && chmod -R u+w "$a"
	# git apply, not patch(1): git is on every machine that cloned this.
	if ! git -C "$a" apply -p1 "$PWD/$patch"; then
		log "$patch does not apply to $module@$version"
		status=1
		continue
	fi
	expected_files "$a" "$module" >"$work/$name.want"
	format_cut "$a" "$work/$name.want"
	if $write; then
		# go list sees the imports of a package only once the copy holds it:
		# write until the files needed stop changing.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			rm -rf "$dir" && mkdir -p "$dir"
			(cd "$a" && tar -cf - -T "$work/$name.want") | tar -xf - -C "$dir"
			cp "$work/$name.want" "$work/$name.written"
			list_imports
			expected_files "$a" "$module" >"$work/$name.want"
			format_cut "$a" "$work/$name.want"
			cmp -s "$work/$name.want" "$work/$name.written" && break
		done
		log "$dir: written from $module@$version and $patch ($(wc -l <"$work/$name.want") files)"
	fi
	(cd "$dir" && find . -type f | sed 's|^\./||' | sort) >"$work/$name.have"
	if ! diff "$work/$name.want" "$work/$name.have" >"$work/diff"; then
		log "$dir does not hold the files our build needs of $module@$version (< missing, > not needed): run bash third_party/check.sh --write"
		head -20 "$work/diff" >&2
		status=1
		continue
	fi
	if ! (cd "$a" && tar -cf - -T "$work/$name.want") | (mkdir "$work/$name.cut" && tar -xf - -C "$work/$name.cut") ||
		! diff -r "$work/$name.cut" "$dir" >"$work/diff"; then
		log "$dir is not $module@$version with $patch applied:"
		head -40 "$work/diff" >&2
		status=1
		continue
	fi
	# Upstream's tests of what the patch changes, on the whole patched release
	# (-trimpath: the release is in a new temporary folder at each run, and
	# without it that folder is part of every compilation's cache key).
	pkgs=$(patched_dirs "$patch" | sed 's|^|./|')
	# shellcheck disable=SC2086 # one argument per package
	if ! (cd "$a" && go vet -trimpath $pkgs && go test -trimpath -count=1 $pkgs) >"$work/test" 2>&1; then
		log "$dir: upstream's tests fail:"
		tail -40 "$work/test" >&2
		status=1
		continue
	fi
	# A replace of one version stops applying, silently, once the build
	# list selects another: say so.
	selected=$(go list -m -f '{{.Version}} {{with .Replace}}{{.Path}}{{end}}' "$module")
	if [ "$selected" != "$version $dir" ]; then
		log "go.mod selects $module $selected, not $version => $dir: update the copy and its patch"
		status=1
		continue
	fi
	echo "$dir = $module@$version + $patch ($(wc -l <"$work/$name.want") files our build needs); upstream's vet and tests pass on $(patched_dirs "$patch" | paste -sd' ')"
done < <(go mod edit -json | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Replace") or []:
    new = r["New"]["Path"]
    if new.startswith("./third_party/"):
        print(r["Old"]["Path"], r["Old"].get("Version") or "", new)
')
exit $status
