#!/bin/sh
# SPDX-License-Identifier: MIT
# gip stats and gip hist on images whose numbers are known by hand (PGM and PPM written here),
# their JSON, the histogram picture, and bad command lines refused with a message and no file.
# Usage: stats_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"

# same TEXT: stdout is exactly TEXT.
same() {
    checks=$((checks + 1))
    got=$(cat "$WORK/stdout")
    [ "$got" = "$1" ] || fail "stdout is '$got', expected '$1'"
}

# A 4x1 gray image 0, 10, 20, 250: min 0, max 250, mean 70, std sqrt(10850) = 104.16333328...
printf 'P5\n4 1\n255\n\000\012\024\372' >"$WORK/g.pgm"
# A 2x1 RGB image (1, 2, 3) (5, 6, 255).
printf 'P6\n2 1\n255\n\001\002\003\005\006\377' >"$WORK/c.ppm"

run 0 stats --json --device cpu "$WORK/g.pgm" &&
    same "{\"file\": \"$WORK/g.pgm\", \"width\": 4, \"height\": 1, \"channels\": 1, \"dtype\": \"u8\", \"stats\": [{\"channel\": 0, \"min\": 0, \"max\": 250, \"mean\": 70, \"std\": 104.1633332799983}]}"
run 0 stats --device cpu "$WORK/c.ppm" &&
    same "$WORK/c.ppm: 2x1, 3 channels, u8
channel            min            max           mean            std
      0              1              5              3              2
      1              2              6              4              2
      2              3            255            129            126"
run 0 hist --json --bins 4 --device cpu "$WORK/g.pgm" &&
    same '{"width": 4, "height": 1, "channels": 1, "dtype": "u8", "bins": 4, "range": [0, 256], "hist": [[3, 0, 0, 1]]}'
run 0 hist --json --bins 2 --range 5,21 --device cpu "$WORK/c.ppm" &&
    same '{"width": 2, "height": 1, "channels": 3, "dtype": "u8", "bins": 2, "range": [5, 21], "hist": [[1, 0], [1, 0], [0, 0]]}'
run 0 hist --device cpu "$WORK/g.pgm" && {
    checks=$((checks + 1))
    [ "$(grep -c -v '^#' "$WORK/stdout")" -eq 256 ] || fail "gip hist printed no 256 bin lines"
    checks=$((checks + 1))
    grep -q '^250 250 1$' "$WORK/stdout" || fail "gip hist: bin 250 is not '250 250 1'"
}
run 0 hist --plot "$WORK/h.png" --device cpu "$WORK/c.ppm" && {
    checks=$((checks + 1))
    [ ! -s "$WORK/stdout" ] || fail "gip hist --plot printed the numbers too"
    run 0 info "$WORK/h.png" && {
        checks=$((checks + 1))
        grep -q '512x256, 3 channels' "$WORK/stdout" || fail "plot: $(cat "$WORK/stdout")"
    }
}
# Both backends give the same numbers where a GPU is usable (AUTO picks it).
run 0 stats --json "$WORK/c.ppm" && cp "$WORK/stdout" "$WORK/auto.json"
run 0 stats --json --device cpu "$WORK/c.ppm" && {
    checks=$((checks + 1))
    cmp -s "$WORK/stdout" "$WORK/auto.json" || fail "stats differ between devices"
}

expect 2 "--bins" hist --bins 0 "$WORK/g.pgm"
expect 2 "--range" hist --range 9,3 "$WORK/g.pgm"
expect 2 "--range" hist --range x "$WORK/g.pgm"
expect 2 "missing" stats
expect 1 "nope.png" stats "$WORK/nope.png"
expect 1 "nope.png" hist --plot "$WORK/p.png" "$WORK/nope.png"
absent "$WORK/p.png"

echo "stats_test: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
