#!/usr/bin/env bash
# Installs (once) Dagster, a test dependency of codeloc (issue 31), into a
# virtualenv and prints the virtualenv's directory on stdout (last line);
# logs go to stderr.
#
#   venv=$(bash .ci/dagster.sh | tail -n1) && export CODELOC_DAGSTER_VENV=$venv
#   "$CODELOC_DAGSTER_VENV/bin/dagster" --version
#
# The set is pinned, with the hash of every file, in .ci/dagster/requirements.txt
# (all transitive dependencies; how to regenerate it: docs/development.md),
# installed with `pip install --require-hashes --no-deps --only-binary :all:`:
# nothing is resolved nor built here. The virtualenv is keyed by the lock's
# hash under ${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}/dagster-<sha>/;
# a complete one (its .complete marker written last) is reused; delete the
# directory to reinstall. Nothing Python goes into codeloc's image.
#
# PYTHON picks the interpreter (default python3; the lock is for CPython 3.11
# on linux x86_64).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LOCK=$here/dagster/requirements.txt
TOOLS_DIR=${CODELOC_TOOLS_DIR:-$HOME/.cache/codeloc/tools}
PYTHON=${PYTHON:-python3}

log() { printf 'dagster.sh: %s\n' "$*" >&2; }

# want_version: the dagster version the lock pins.
want_version() { sed -n 's/^dagster==\([^ ]*\).*/\1/p' "$LOCK"; }

# check VENV: `dagster --version` answers the pinned version.
check() {
	local got want
	want=$(want_version)
	got=$("$1/bin/dagster" --version 2>&1) || { log "$1/bin/dagster --version failed: $got"; return 1; }
	case "$got" in
		*" $want") log "$got in $1" ;;
		*) log "$1/bin/dagster --version says '$got', not $want: delete $1 and rerun"; return 1 ;;
	esac
}

main() {
	[ -f "$LOCK" ] || { log "no lock $LOCK"; exit 1; }
	local sha venv start=$SECONDS
	sha=$(sha256sum "$LOCK" | cut -c1-12)
	venv=$TOOLS_DIR/dagster-$sha
	mkdir -p "$TOOLS_DIR"
	# Serialize concurrent installs (two test scripts starting at once).
	exec 7>"$TOOLS_DIR/.dagster.lock"
	command -v flock >/dev/null && flock 7
	if [ -f "$venv/.complete" ]; then
		log "cached $venv"
		check "$venv"
	else
		local pyver
		pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
		[ "$pyver" = 3.11 ] || log "warning: $PYTHON is Python $pyver, the lock is for 3.11"
		log "installing Dagster $(want_version) into $venv (cold: ~150 s measured, 370 MB)"
		# A half-made virtualenv (killed install) is started over.
		rm -rf "$venv"
		"$PYTHON" -m venv "$venv"
		# PIP_FIND_LINKS etc. of the caller's environment stay out: only PyPI
		# (or PIP_INDEX_URL) and the hashes in the lock decide what is installed.
		env -u PIP_FIND_LINKS -u PIP_NO_INDEX PIP_DISABLE_PIP_VERSION_CHECK=1 \
			"$venv/bin/python" -m pip install --quiet --require-hashes --no-deps \
			--only-binary :all: -r "$LOCK" >&2
		check "$venv"
		touch "$venv/.complete"
		log "ready in $((SECONDS - start))s ($(du -sh "$venv" | cut -f1))"
	fi
	echo "$venv"
}

main "$@"
