#!/bin/sh
# SPDX-License-Identifier: MIT
# The memory limit against decompression bombs: a 69-byte PNG declaring 20000x20000 RGB (1.2 GB
# decoded) is refused from its header by whole-image commands, with a message naming
# --max-memory, under a 1 GiB address-space limit that loading it would break; gip run streams it
# by rows within the limit (and stops at the missing rows). GIP_MAX_MEMORY sets the default;
# malformed values are usage errors; a whole-image run whose result would not fit beside its
# input is refused before the result exists.
# Usage: memory_test.sh GIP DATA_DIR WORK_DIR
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# The bomb, byte by byte: signature, IHDR 20000x20000 8-bit RGB, one IDAT of 64 zero bytes, IEND
# (CRCs included).
BOMB=$WORK/bomb.png
{
    printf '\211\120\116\107\015\012\032\012'
    printf '\000\000\000\015\111\110\104\122\000\000\116\040\000\000\116\040\010\002\000\000\000'
    printf '\154\022\321\156'
    printf '\000\000\000\014\111\104\101\124\170\234\143\140\240\014\000\000\000\100\000\001'
    printf '\267\064\174\357'
    printf '\000\000\000\000\111\105\116\104\256\102\140\202'
} >"$BOMB"
size=$(wc -c <"$BOMB")
checks=$((checks + 1))
[ "$size" -eq 69 ] || fail "bomb.png is $size bytes, expected 69"

# The header is all there is to read: info describes it.
run 0 info "$BOMB" && {
    checks=$((checks + 1))
    grep -q 20000 "$WORK/stdout" || fail "gip info bomb.png does not print its 20000x20000 size"
}

# limited CMD...: runs gip CMD under a 1 GiB address-space limit (ulimit -v, which dash and bash
# have), so that allocating the decoded image (1.2 GB) would fail whatever the budget said.
# Under AddressSanitizer (make test-sanitize sets ASAN_OPTIONS) the limit is left out: ASan
# reserves terabytes of address space for its shadow memory, which no such limit leaves room for;
# the statuses and messages are still checked, and ASan itself fails on a 1.2 GB allocation
# beyond its own limit.
limited() {
    if [ -n "${ASAN_OPTIONS:-}" ]; then
        "$GIP" "$@"
        return
    fi
    # shellcheck disable=SC3045 # ulimit -v: where the shell lacks it the checks still run
    (ulimit -v 1048576 2>/dev/null; exec "$GIP" "$@")
}

# Whole-image commands refuse the bomb before loading, naming the limit and the option.
for cmd in "invert" "gaussian --ksize 3" "sobel" "box"; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086 # $cmd holds the subcommand and its options
    limited $cmd --device cpu --max-memory 256M "$BOMB" "$WORK/out.png" >"$WORK/stdout" \
        2>"$WORK/stderr"
    got=$?
    if [ "$got" -ne 1 ]; then
        fail "gip $cmd --max-memory 256M bomb.png exited $got, expected 1"
        sed 's/^/    | /' "$WORK/stderr"
    elif ! grep -q -e "--max-memory" "$WORK/stderr" || ! grep -q "20000x20000" "$WORK/stderr" ||
        ! grep -q "268435456" "$WORK/stderr"; then
        fail "gip $cmd: the refusal does not name the size, the limit and --max-memory:"
        sed 's/^/    | /' "$WORK/stderr"
    fi
    absent "$WORK/out.png"
done

# The default limit from the environment, named in the message.
checks=$((checks + 1))
GIP_MAX_MEMORY=64M "$GIP" invert --device cpu "$BOMB" "$WORK/out.png" >"$WORK/stdout" \
    2>"$WORK/stderr"
got=$?
if [ "$got" -ne 1 ] || ! grep -q "GIP_MAX_MEMORY" "$WORK/stderr"; then
    fail "GIP_MAX_MEMORY=64M gip invert bomb.png: exit $got, expected 1 naming GIP_MAX_MEMORY:"
    sed 's/^/    | /' "$WORK/stderr"
fi
absent "$WORK/out.png"
checks=$((checks + 1))
GIP_MAX_MEMORY=plenty "$GIP" invert --device cpu "$BOMB" "$WORK/out.png" >"$WORK/stdout" \
    2>"$WORK/stderr"
got=$?
if [ "$got" -ne 1 ] || ! grep -q "GIP_MAX_MEMORY='plenty'" "$WORK/stderr"; then
    fail "GIP_MAX_MEMORY=plenty: exit $got, expected 1 naming the value:"
    sed 's/^/    | /' "$WORK/stderr"
fi

# gip run streams what does not fit: rows are read until the file runs out of them, within the
# limit (no 1.2 GB allocation under the 1 GiB address space), and nothing is left behind.
checks=$((checks + 1))
limited run --device cpu --max-memory 64M 'gaussian 3' "$BOMB" "$WORK/run.png" >"$WORK/stdout" \
    2>"$WORK/stderr"
got=$?
if [ "$got" -ne 1 ]; then
    fail "gip run --max-memory 64M bomb.png exited $got, expected 1 (the missing rows)"
    sed 's/^/    | /' "$WORK/stderr"
elif grep -q -i "out of memory\|cannot allocate" "$WORK/stderr"; then
    fail "gip run --max-memory 64M bomb.png ran out of memory instead of streaming:"
    sed 's/^/    | /' "$WORK/stderr"
fi
absent "$WORK/run.png"
# The same with a chain that changes the size: streamed in stages (thumbnail cut by output
# rows), within the limit, until the rows run out.
checks=$((checks + 1))
limited run --device cpu --max-memory 64M 'gaussian 3 | thumbnail 500 | invert' "$BOMB" \
    "$WORK/run.png" >"$WORK/stdout" 2>"$WORK/stderr"
got=$?
if [ "$got" -ne 1 ] || ! grep -q -i "truncated\|corrupt\|rows\|premature\|end" "$WORK/stderr"; then
    fail "gip run 'gaussian 3 | thumbnail 500 | invert' bomb.png: exit $got, expected 1 (the missing rows):"
    sed 's/^/    | /' "$WORK/stderr"
elif grep -q -i "out of memory\|cannot allocate\|whole image" "$WORK/stderr"; then
    fail "the thumbnail chain was not streamed:"
    sed 's/^/    | /' "$WORK/stderr"
fi
absent "$WORK/run.png"

# Malformed values are usage errors naming the option; a real image within the limit runs, and
# the same image above a tiny limit is refused.
expect 2 "--max-memory" invert --max-memory lots "$DATA/astronaut.png" "$WORK/out.png"
expect 2 "--max-memory" invert --max-memory 0 "$DATA/astronaut.png" "$WORK/out.png"
expect 2 "--max-memory" invert --max-memory -5M "$DATA/astronaut.png" "$WORK/out.png"
run 0 invert --device cpu --max-memory 1G "$DATA/astronaut.png" "$WORK/out.png"
rm -f "$WORK/out.png"
expect 1 "--max-memory" invert --device cpu --max-memory 4K "$DATA/astronaut.png" "$WORK/out.png"
absent "$WORK/out.png"
# astronaut.png decodes to 786432 bytes: within 1M, but the whole run also holds the result and
# its encoded file (about 2.4 MB in all), refused before they exist; 4M holds it.
expect 1 "whole-image run" box --device cpu --max-memory 1M "$DATA/astronaut.png" \
    "$WORK/out.png"
checks=$((checks + 1))
grep -q -e "--max-memory" "$WORK/stderr" || fail "the whole-image refusal does not name --max-memory"
absent "$WORK/out.png"
run 0 box --device cpu --max-memory 4M "$DATA/astronaut.png" "$WORK/out.png"

echo "memory limit: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
