#!/bin/sh
# SPDX-License-Identifier: MIT
# Every command's --help: its usage, the default of every option it lists, and one example that
# runs; errors in the command's own terms, never a C function's name or a C-level remedy.
# Usage: help_test.sh GIP DATA_DIR WORK_DIR
. "$(dirname "$0")/lib.sh"

# The commands: every line of `gip --help`'s two lists.
commands=$("$GIP" --help | awk '/^Operations \(|^Other commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}')
n=$(echo "$commands" | wc -w)
checks=$((checks + 1))
[ "$n" -ge 60 ] || fail "gip --help lists only $n commands"

for c in $commands; do
    run 0 "$c" --help || continue
    checks=$((checks + 1))
    grep -q "^Usage: gip $c" "$WORK/stdout" || fail "gip $c --help has no 'Usage: gip $c' line"
    checks=$((checks + 1))
    grep -A1 "^Example:" "$WORK/stdout" | grep -q "^  gip $c" || fail "gip $c --help has no example"
    # Each option line that takes a value says its default, its range or that it is required
    # (the line or its continuation lines up to the next option).
    checks=$((checks + 1))
    missing=$(awk '
        function done() { if (opt != "" && !ok) print opt; opt = ""; ok = 0 }
        /^  -/ { done(); if ($0 ~ /^  (-[a-z], )?--[a-z0-9-]+ [A-Za-z<]/) { opt = $1; if ($0 ~ /default|required|[0-9]\.\.[0-9]|optional|one of|without it/) ok = 1 } next }
        /^          / { if ($0 ~ /default|required|[0-9]\.\.[0-9]|optional|one of|without it/) ok = 1; next }
        { done() }
        END { done() }' "$WORK/stdout")
    [ -z "$missing" ] || fail "gip $c --help: no default or range for: $missing"
done

# The examples of the operations run on a sample (colour, else gray), apart from those whose
# example needs files a sample is not (a second image or a map: a third .png in the line), a
# table, a frame, or an output type no image file holds (scharr's s16 default).
IN=$WORK/in.png
GRAY=$WORK/gray.png
cp "$DATA/chelsea.png" "$IN"
"$GIP" gray "$IN" "$GRAY"
for c in $("$GIP" ops | awk '{print $1}'); do
    ex=$("$GIP" "$c" --help | grep -A1 "^Example:" | tail -1 | sed 's/^  gip //')
    case "$ex" in
    *.png\ *.png\ *.png* | *TABLE* | scharr* | yuv* | convert*) continue ;;
    esac
    checks=$((checks + 1))
    cmd=$(echo "$ex" | sed "s|in\.png|$IN|; s|out\.png|$WORK/out.png|")
    gcmd=$(echo "$ex" | sed "s|in\.png|$GRAY|; s|out\.png|$WORK/out.png|")
    if ! eval "\"\$GIP\" $cmd" 2>/dev/null && ! eval "\"\$GIP\" $gcmd" 2>"$WORK/stderr"; then
        fail "the example of gip $c --help failed: gip $ex"
        sed 's/^/    | /' "$WORK/stderr"
    fi
done

# Errors speak of the command's options, not of the C functions behind them.
plain() {
    checks=$((checks + 1))
    if grep -q -e 'gip_[a-z_]*:' -e 'params->' -e 'gip_load_params' "$WORK/stderr"; then
        fail "gip $*: the message names the C API:"
        sed 's/^/    | /' "$WORK/stderr"
    fi
}
expect 1 "nosuch.png" info "$WORK/nosuch.png" && plain info
expect 1 "nosuch.png" invert "$WORK/nosuch.png" "$WORK/out.png" && plain invert
expect 1 "out.xyz" invert "$IN" "$WORK/out.xyz" && plain invert .xyz
absent "$WORK/out.xyz"
expect 1 "--max-memory" gaussian --ksize 3 --max-memory 1K "$IN" "$WORK/big.png" && plain gaussian
absent "$WORK/big.png"
expect 1 "nosuch" run 'invert' -i "$WORK/nosuch" -o "$WORK/o" && plain run
expect 1 "nosuch.png" stats "$WORK/nosuch.png" && plain stats

# gip ops --json: every operation, with its parameters' examples.
if command -v python3 >/dev/null 2>&1; then
    checks=$((checks + 1))
    "$GIP" ops --json | python3 -c '
import json, sys
ops = json.load(sys.stdin)
assert len(ops) >= 60, len(ops)
for o in ops:
    assert o["name"] and o["summary"] and o["family"], o
    for p in o["params"]:
        assert p["default"] is not None or p["example"], (o["name"], p["name"])
' || fail "gip ops --json is not the registry"
fi
expect 2 "--json" ops --json gaussian

echo "cli_help: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
