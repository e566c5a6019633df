#!/usr/bin/env bash
# Proves each module under third_party/ is its upstream release plus the
# patch beside it, byte for byte, and runs upstream's own tests on it.
#
#   bash third_party/check.sh
#
# A module here is named in go.mod's replace directives; its upstream
# release is downloaded from the module proxy (GOFLAGS and GOPROXY as set).
set -euo pipefail
cd "$(dirname "$0")/.."

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
	rm -rf "$work/a" && cp -R "$upstream" "$work/a" && chmod -R u+w "$work/a"
	# git apply, not patch(1): git is on every machine that cloned this.
	if ! git -C "$work/a" apply -p1 "$PWD/$patch"; then
		log "$patch does not apply to $module@$version"
		status=1
		continue
	fi
	if ! diff -r "$work/a" "$dir" >"$work/diff"; then
		log "$dir is not $module@$version with $patch applied:"
		head -40 "$work/diff" >&2
		status=1
		continue
	fi
	if ! (cd "$dir" && go vet ./... && go test -count=1 ./...) >"$work/test" 2>&1; then
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
	echo "$dir = $module@$version + $patch; upstream's tests pass"
done < <(go mod edit -json | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Replace") or []:
    new = r["New"]["Path"]
    if new.startswith("./third_party/"):
        print(r["Old"]["Path"], r["Old"].get("Version") or "", new)
')
exit $status
