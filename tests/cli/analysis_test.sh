#!/bin/sh
# SPDX-License-Identifier: MIT
# gip components and gip match on images whose answers are known by hand (PGM written here): the
# text and JSON output, the label image, both backends alike, and bad command lines refused with
# a message and no file.
# Usage: analysis_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"

same() {
    checks=$((checks + 1))
    got=$(cat "$WORK/stdout")
    [ "$got" = "$1" ] || fail "stdout is '$got', expected '$1'"
}

# A 5x3 image:
#   0 0 0 7 0
#   9 5 5 0 0
#   0 5 5 0 1
# 8-connected: {(3,0), (1,1)..(2,2), (0,1)} meet through (3,0)-(2,1), and (4,2) alone: 2 components.
# 4-connected: (3,0) alone, {(0,1), (1,1), (2,1), (1,2), (2,2)}, (4,2) alone: 3 components.
printf 'P5\n5 3\n255\n\000\000\000\007\000\011\005\005\000\000\000\005\005\000\001' >"$WORK/cc.pgm"

run 0 components --json --device cpu "$WORK/cc.pgm" &&
    same '{"width": 5, "height": 3, "connectivity": 8, "labels": 3, "components": [{"label": 1, "left": 0, "top": 0, "width": 4, "height": 3, "area": 6, "centroid": [1.5, 1.1666666666666667]}, {"label": 2, "left": 4, "top": 2, "width": 1, "height": 1, "area": 1, "centroid": [4, 2]}]}'
run 0 components --connectivity 4 --device cpu "$WORK/cc.pgm" &&
    same "$WORK/cc.pgm: 5x3, 3 components (4-connected)
label   left    top  width height     area   centroid
    1      3      0      1      1        1   3 0
    2      0      1      3      2        5   1.2 1.4
    3      4      2      1      1        1   4 2"
run 0 components --labels "$WORK/l.png" --device cpu "$WORK/cc.pgm" && {
    checks=$((checks + 1))
    [ -s "$WORK/l.png" ] || fail "no label image"
    run 0 info "$WORK/l.png" && {
        checks=$((checks + 1))
        grep -q "16-bit" "$WORK/stdout" || fail "the label image is not 16-bit: $(cat "$WORK/stdout")"
    }
}

# A 6x4 image with a bright 2x2 spot; the spot as the template is found at (3, 1).
printf 'P5\n6 4\n255\n\001\002\003\004\005\006\006\005\004\310\311\001\002\003\004\312\313\002\001\002\003\004\005\006' >"$WORK/im.pgm"
printf 'P5\n2 2\n255\n\310\311\312\313' >"$WORK/t.pgm"
run 0 match --json --device cpu "$WORK/im.pgm" "$WORK/t.pgm" &&
    same '{"method": "ccoeff_normed", "result_width": 5, "result_height": 3, "x": 3, "y": 1, "score": 1}'
run 0 match --method sqdiff --device cpu "$WORK/im.pgm" "$WORK/t.pgm" &&
    same "$WORK/t.pgm in $WORK/im.pgm: best sqdiff at x=3 y=1, score 0"

# Both backends alike where a GPU is usable (AUTO picks it).
run 0 components --json "$WORK/cc.pgm" && cp "$WORK/stdout" "$WORK/auto.json"
run 0 components --json --device cpu "$WORK/cc.pgm" && {
    checks=$((checks + 1))
    cmp -s "$WORK/stdout" "$WORK/auto.json" || fail "components differ between devices"
}

expect 2 "--connectivity" components --connectivity 6 "$WORK/cc.pgm"
expect 2 "--method" match --method best "$WORK/im.pgm" "$WORK/t.pgm"
expect 2 "missing" match "$WORK/im.pgm"
expect 1 "larger" match "$WORK/t.pgm" "$WORK/im.pgm"
expect 1 "nope.png" components --labels "$WORK/p.png" "$WORK/nope.png"
absent "$WORK/p.png"

echo "analysis_test: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
