#!/bin/sh
# SPDX-License-Identifier: MIT
# Fails when any ELF file (program, shared library, Python extension) under the given folders has
# an RPATH or RUNPATH entry that is empty or relative: the loader reads those against the current
# working directory, so a program started in a folder holding a crafted library would load it.
# Only absolute entries and entries starting with $ORIGIN are accepted.
# Usage: check_runpath.sh FOLDER_OR_FILE...
set -u
command -v readelf >/dev/null 2>&1 || { echo "readelf (binutils) is needed" >&2; exit 2; }
bad=0
checked=0
for root in "$@"; do
    # Regular files only; the ELF magic decides, not the name (programs have no suffix).
    find "$root" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) 2>/dev/null |
        grep -v '/CMakeFiles/' >"${TMPDIR:-/tmp}/runpath.$$"
    while IFS= read -r f; do
        [ "$(head -c 4 "$f" | od -An -c | tr -d ' \n')" = '177ELF' ] || continue
        checked=$((checked + 1))
        paths=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
        [ -n "$paths" ] || continue
        # Each entry of the colon-separated list; a leading, trailing or doubled colon is an empty
        # entry, which the loader treats as ".".
        rest="$paths:"
        while [ -n "$rest" ]; do
            entry=${rest%%:*}
            rest=${rest#*:}
            case "$entry" in
            /*) ;;
            '$ORIGIN' | '$ORIGIN/'* | '${ORIGIN}' | '${ORIGIN}/'*) ;;
            *)
                echo "FAIL $f: runpath [$paths] has the entry '$entry' (empty or relative)"
                bad=$((bad + 1))
                ;;
            esac
        done
    done <"${TMPDIR:-/tmp}/runpath.$$"
    rm -f "${TMPDIR:-/tmp}/runpath.$$"
done
if [ "$checked" -eq 0 ]; then
    echo "FAIL: no ELF file found under $*" >&2
    exit 1
fi
echo "$checked ELF files checked, $bad bad runpath entries"
[ "$bad" -eq 0 ]
