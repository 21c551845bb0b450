#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/operations.md is what `gip ops --markdown` prints: fails with the difference (and the
# command that regenerates the file) when an operation's declaration changed without it.
# Usage: check_reference.sh GIP_PROGRAM SOURCE_DIR
set -u
gip=$1
src=$2
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$gip" ops --markdown >"$out" || { echo "FAIL: gip ops --markdown exited $?"; exit 1; }
if ! diff -u "$src/docs/operations.md" "$out"; then
    echo "FAIL: docs/operations.md is not current; regenerate it with"
    echo "  build/gip ops --markdown > docs/operations.md"
    exit 1
fi
echo "ok: docs/operations.md is current ($(grep -c '^## ' "$out") operations)"
