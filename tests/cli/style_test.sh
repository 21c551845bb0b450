#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of `gip style`: a small run writes an image of the expected size, is deterministic for a
# seed, and bad options, a missing input or a corrupt weights file fail without writing the output.
# Usage: style_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"

C="$DATA/chelsea.png"
S="$DATA/gravel.png"
O="$WORK/out.png"

run 0 style --help
run 0 style --device cpu --size 32 --iters 3 --seed 5 --tv-weight 0.1 "$C" "$S" "$O"
checks=$((checks + 1))
got=$("$GIP" info "$O" 2>/dev/null | sed -n 's/^.*: [a-z]*, \([0-9]*x[0-9]*\), \([0-9]*\) channels* .*$/\1 \2/p')
[ "$got" = "48x32 3" ] || fail "output is '$got', expected '48x32 3' (chelsea is 451x300)"
grep -q "iteration 3/3" "$WORK/stderr" || fail "no progress line for the last iteration"
cp "$O" "$WORK/first.png"
run 0 style --device cpu --size 32 --iters 3 --seed 5 --tv-weight 0.1 --quiet "$C" "$S" "$O"
checks=$((checks + 1))
cmp -s "$O" "$WORK/first.png" || fail "same seed gave a different image"
run 0 style --device cpu --size 24 --iters 2 --pool max --init noise "$C" "$DATA/brick.png" "$WORK/max.png"

# Usage errors (exit 2) and runtime errors (exit 1) leave no output.
run 2 style --size 8 "$C" "$S" "$WORK/e1.png" && absent "$WORK/e1.png"
run 2 style --iters 0 "$C" "$S" "$WORK/e2.png" && absent "$WORK/e2.png"
run 2 style --pool median "$C" "$S" "$WORK/e3.png" && absent "$WORK/e3.png"
run 2 style --style-weight -1 "$C" "$S" "$WORK/e4.png" && absent "$WORK/e4.png"
run 2 style "$C" "$S"
run 1 style --device cpu --size 32 --iters 1 "$WORK/missing.png" "$S" "$WORK/e5.png" && absent "$WORK/e5.png"
printf 'not a safetensors file' >"$WORK/bad.safetensors"
run 1 style --device cpu --size 32 --iters 1 --weights "$WORK/bad.safetensors" "$C" "$S" "$WORK/e6.png" &&
    absent "$WORK/e6.png"
grep -q "bad.safetensors" "$WORK/stderr" || fail "the weights error does not name the file"

echo "style CLI: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
