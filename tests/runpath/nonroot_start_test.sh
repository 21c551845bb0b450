#!/bin/sh
# SPDX-License-Identifier: MIT
# A copy of PROGRAM, in a folder everyone may read, starts for an unprivileged user and runs
# ARGS: every library it needs at start is found where that user can read it (libraries that
# only the builder can read, such as the nvidia-* wheels under /root, are opened on first use).
# Needs root (to become the user) and setpriv (util-linux); skips otherwise.
# Usage: nonroot_start_test.sh PROGRAM [ARGS...]
set -u
prog=$1
shift
[ "$(id -u)" = 0 ] || { echo "SKIP: not root, cannot switch to an unprivileged user"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "SKIP: no setpriv"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$prog" "$dir/prog" && chmod 755 "$dir/prog" || exit 1
out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/prog" "$@" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: $prog as uid 65534 exited $rc:"
    echo "$out" | head -20
    exit 1
fi
echo "ok: $prog $* runs as uid 65534"
