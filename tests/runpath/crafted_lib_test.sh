#!/bin/sh
# SPDX-License-Identifier: MIT
# Starts PROGRAM ARGS... inside a folder that holds, under the name of every shared library the
# program needs, a library whose constructor leaves a marker file; fails if any marker appears
# (the program loaded code from its working folder). Needs a C compiler (cc). NEEDED_OF=FILE takes
# the library names from FILE instead of PROGRAM (a Python extension started by python3).
# Usage: [NEEDED_OF=FILE] crafted_lib_test.sh PROGRAM [ARGS...]
set -u
prog=$1
shift
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
command -v readelf >/dev/null 2>&1 || { echo "SKIP: no readelf"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cat >"$dir/evil.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void)
{
    int fd = open(MARKER, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        close(fd);
}
C
needed=$(readelf -d "${NEEDED_OF:-$prog}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
[ -n "$needed" ] || { echo "FAIL: $prog needs no shared library?"; exit 1; }
# One crafted library at a time: a crafted libc would stop the program before any constructor
# runs (libc and the loader itself are covered by check_runpath.sh).
found=""
tried=0
for lib in $needed; do
    case "$lib" in libc.so.* | ld-linux* | libm.so.* | libpthread.so.* | libdl.so.*) continue ;; esac
    rm -rf "$dir/work" && mkdir "$dir/work" || exit 1
    cc -shared -fPIC -DMARKER="\"$dir/loaded-$lib\"" -o "$dir/work/$lib" "$dir/evil.c" || exit 1
    (cd "$dir/work" && "$prog" "$@" >/dev/null 2>&1)
    [ -e "$dir/loaded-$lib" ] && found="$found $lib"
    tried=$((tried + 1))
done
if [ -n "$found" ]; then
    echo "FAIL: $prog loaded from its working folder:$found"
    exit 1
fi
echo "ok: $prog loaded none of $tried crafted libraries from its working folder"
