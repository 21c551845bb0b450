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
# Each optimiser and step rule runs, and the summary line gives iterations and evaluations.
for opt in "--line-search none --history 100" "--line-search strong-wolfe" "--line-search armijo" \
    "--optimizer adam --lr 0.02"; do
    # shellcheck disable=SC2086 # the options are meant to split
    run 0 style --device cpu --size 16 --iters 3 $opt "$C" "$S" "$WORK/opt.png"
    checks=$((checks + 1))
    grep -q "^gip style: done: 3 iterations, [0-9]* evaluations, [0-9.]* s optimising" "$WORK/stderr" ||
        fail "no summary line with $opt"
done
checks=$((checks + 1))
grep -q "done: 3 iterations, 4 evaluations" "$WORK/stderr" || fail "Adam: 3 steps are 4 evaluations"

# Usage errors (exit 2) and runtime errors (exit 1) leave no output.
run 2 style --size 8 "$C" "$S" "$WORK/e1.png" && absent "$WORK/e1.png"
run 2 style --iters 0 "$C" "$S" "$WORK/e2.png" && absent "$WORK/e2.png"
run 2 style --pool median "$C" "$S" "$WORK/e3.png" && absent "$WORK/e3.png"
run 2 style --style-weight -1 "$C" "$S" "$WORK/e4.png" && absent "$WORK/e4.png"
run 2 style "$C" "$S"
run 2 style --optimizer sgd "$C" "$S" "$WORK/e7.png" && absent "$WORK/e7.png"
grep -q "lbfgs or adam" "$WORK/stderr" || fail "the --optimizer message lists the choices"
run 2 style --line-search wolfe "$C" "$S" "$WORK/e8.png" && absent "$WORK/e8.png"
run 2 style --lr -1 "$C" "$S" "$WORK/e9.png" && absent "$WORK/e9.png"
run 2 style --lr 0 "$C" "$S" "$WORK/e10.png" && absent "$WORK/e10.png"
run 2 style --optimizer adam --line-search none "$C" "$S" "$WORK/e11.png" && absent "$WORK/e11.png"
run 1 style --device cpu --size 32 --iters 1 "$WORK/missing.png" "$S" "$WORK/e5.png" && absent "$WORK/e5.png"
printf 'not a safetensors file' >"$WORK/bad.safetensors"
run 1 style --device cpu --size 32 --iters 1 --weights "$WORK/bad.safetensors" "$C" "$S" "$WORK/e6.png" &&
    absent "$WORK/e6.png"
grep -q "bad.safetensors" "$WORK/stderr" || fail "the weights error does not name the file"

echo "style CLI: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
