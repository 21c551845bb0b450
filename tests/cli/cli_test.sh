#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of the gip command-line tool: help, devices, info, convert, every filter subcommand, usage
# errors (exit 2) and runtime errors (exit 1, no partial or clobbered output).
# Usage: cli_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 GIP DATA_DIR WORK_DIR" >&2
    exit 2
fi
GIP=$1
DATA=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1

checks=0
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# run STATUS ARGS...: runs gip ARGS, keeps stdout and stderr in $WORK/stdout and $WORK/stderr, and
# checks the exit status, and that a failure printed a message on stderr.
run() {
    want=$1
    shift
    checks=$((checks + 1))
    "$GIP" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "gip $* exited $got, expected $want"
        sed 's/^/    | /' "$WORK/stderr"
        return 1
    fi
    if [ "$want" -ne 0 ] && ! grep -q "^gip" "$WORK/stderr"; then
        fail "gip $* exited $got without a 'gip ...' message on stderr"
        return 1
    fi
    return 0
}

# expect STATUS NEEDLE ARGS...: run, then check that stderr mentions NEEDLE (the option at fault).
expect() {
    want=$1
    needle=$2
    shift 2
    run "$want" "$@" || return 1
    if ! grep -q -e "$needle" "$WORK/stderr"; then
        fail "gip $*: message does not mention '$needle':"
        sed 's/^/    | /' "$WORK/stderr"
        return 1
    fi
    return 0
}

# shape FILE: prints "WxH C" (size and channels) as `gip info` reports them.
shape() {
    "$GIP" info "$1" 2>/dev/null |
        sed -n 's/^.*: [a-z]*, \([0-9]*x[0-9]*\), \([0-9]*\) channels* .*$/\1 \2/p'
}

# check_shape FILE "WxH C": the file exists and `gip info` describes it so.
check_shape() {
    checks=$((checks + 1))
    if [ ! -f "$1" ]; then
        fail "$1 was not written"
        return 1
    fi
    got=$(shape "$1")
    if [ "$got" != "$2" ]; then
        fail "$1: gip info says '$got', expected '$2'"
        return 1
    fi
    return 0
}

# absent FILE: a failed command left no file behind.
absent() {
    checks=$((checks + 1))
    if [ -e "$1" ]; then
        fail "$1 exists after a failed command"
    fi
}

# ---- help and version ----------------------------------------------------------------------
# has PATTERN WHAT: the last command's stdout matches PATTERN, else WHAT failed.
has() {
    checks=$((checks + 1))
    grep -q -e "$1" "$WORK/stdout" || fail "$2: stdout does not match '$1'"
}
run 0 --help && has "^Usage: gip" "gip --help"
run 0 -h && has "^Usage: gip" "gip -h"
run 0 --version && has "^gip [0-9]*\.[0-9]*\.[0-9]*$" "gip --version"
commands="devices info convert gray invert box filter sobel edges gaussian"
for c in $commands; do
    run 0 "$c" --help && has "^Usage: gip $c" "gip $c --help"
    run 0 "$c" -h && has "^Usage: gip $c" "gip $c -h"
    run 0 help "$c" && has "^Usage: gip $c" "gip help $c"
done
"$GIP" --help >"$WORK/main_help"
for c in $commands; do
    checks=$((checks + 1))
    grep -q "^  $c " "$WORK/main_help" || fail "gip --help does not list '$c'"
done
# Help wins over other mistakes on the line.
run 0 box --ksize abc --help

# ---- devices -------------------------------------------------------------------------------
gpu=0
if run 0 devices; then
    grep -q "^auto: " "$WORK/stdout" || fail "gip devices: no 'auto:' line"
    grep -q "^CUDA devices: " "$WORK/stdout" || fail "gip devices: no 'CUDA devices:' line"
    if grep -q ", usable$" "$WORK/stdout"; then
        gpu=1
    fi
    sed 's/^/    devices | /' "$WORK/stdout"
fi

# ---- info on every sample ------------------------------------------------------------------
expected_size() {
    case $(basename "$1") in
    astronaut.png | brick.png | grass.png | gravel.png) echo 512x512 ;;
    chelsea.png) echo 451x300 ;;
    coffee.png) echo 600x400 ;;
    hubble_deep_field.jpg) echo 1000x872 ;;
    rocket.jpg) echo 640x427 ;;
    *) echo "" ;;
    esac
}
nsamples=0
for f in "$DATA"/*.png "$DATA"/*.jpg "$DATA"/*.jpeg "$DATA"/*.ppm "$DATA"/*.pgm; do
    [ -f "$f" ] || continue
    nsamples=$((nsamples + 1))
    run 0 info "$f" || continue
    want=$(expected_size "$f")
    got=$(sed -n 's/^.*: [a-z]*, \([0-9]*x[0-9]*\), .*$/\1/p' "$WORK/stdout")
    if [ -z "$got" ]; then
        fail "gip info $f printed no size: $(cat "$WORK/stdout")"
    elif [ -n "$want" ] && [ "$got" != "$want" ]; then
        fail "gip info $f says $got, expected $want"
    fi
done
checks=$((checks + 1))
[ "$nsamples" -ge 2 ] || fail "fewer than 2 sample images in $DATA"
run 0 info "$DATA/astronaut.png" "$DATA/rocket.jpg"
checks=$((checks + 1))
[ "$(wc -l <"$WORK/stdout")" -eq 2 ] || fail "gip info with two files did not print two lines"
grep -q "png, 512x512, 3 channels (RGB), 8-bit" "$WORK/stdout" ||
    fail "gip info astronaut.png: $(head -1 "$WORK/stdout")"

IN=$DATA/astronaut.png
JIN=$DATA/rocket.jpg

# ---- convert -------------------------------------------------------------------------------
C=$WORK/convert
mkdir -p "$C"
run 0 convert "$IN" "$C/a.jpg" --quality 90 && check_shape "$C/a.jpg" "512x512 3"
run 0 convert "$C/a.jpg" "$C/a_back.png" && check_shape "$C/a_back.png" "512x512 3"
run 0 convert "$IN" "$C/a_prog.jpg" --progressive --subsampling 444 &&
    check_shape "$C/a_prog.jpg" "512x512 3"
run 0 info "$C/a_prog.jpg" && has "progressive" "info on a progressive JPEG"
run 0 convert --gray "$IN" "$C/a_gray.png" && check_shape "$C/a_gray.png" "512x512 1"
run 0 convert "$DATA/brick.png" "$C/brick.jpg" && check_shape "$C/brick.jpg" "512x512 1"
# Lossless round trip through PPM: the same pixels re-encoded give the same PNG bytes.
run 0 convert "$IN" "$C/direct.png"
run 0 convert "$IN" "$C/a.ppm" && check_shape "$C/a.ppm" "512x512 3"
run 0 convert "$C/a.ppm" "$C/via_ppm.png"
checks=$((checks + 1))
cmp -s "$C/direct.png" "$C/via_ppm.png" || fail "PNG -> PPM -> PNG changed the pixels"

# ---- every filter --------------------------------------------------------------------------
F=$WORK/filters
mkdir -p "$F"
# name|arguments|output channels
filters='invert||3
gray||1
box|--ksize 3|3
box_5x3|--ksize 5x3 --anchor 0,0 --unnormalized --border constant --border-value 10|3
filter|--kernel 1/9,1/9,1/9;1/9,1/9,1/9;1/9,1/9,1/9|3
filter_sharpen|--kernel 0,-1,0;-1,5,-1;0,-1,0 --delta 2 --border wrap|3
sobel|--dx 1 --dy 0|3
sobel_y5|--dy 1 --ksize 5 --scale 0.5 --border replicate|3
sobel_scharr|--dx 0 --dy 1 --ksize scharr|3
edges||1
edges_gray_input|--ksize 5|1
gaussian|--ksize 15|3
gaussian_sigma|--ksize 0 --sigma 2,3 --border reflect|3'
devices_to_test="cpu"
[ "$gpu" -eq 1 ] && devices_to_test="cpu cuda"
for dev in $devices_to_test; do
    echo "$filters" | while IFS='|' read -r name args ch; do
        op=${name%%_*}
        src=$IN
        [ "$name" = edges_gray_input ] && src=$DATA/brick.png
        # shellcheck disable=SC2086 # the arguments are words on purpose
        run 0 "$op" --device "$dev" $args "$src" "$F/${name}_$dev.png" &&
            check_shape "$F/${name}_$dev.png" "512x512 $ch"
        echo "$checks $fails" >"$WORK/counts"
    done
    read -r checks fails <"$WORK/counts"
done
# Integer outputs are identical on both backends.
if [ "$gpu" -eq 1 ]; then
    for f in "$F"/*_cpu.png; do
        g=${f%_cpu.png}_cuda.png
        checks=$((checks + 1))
        cmp -s "$f" "$g" || fail "$(basename "$f" _cpu.png): CPU and CUDA outputs differ"
    done
fi
# JPEG in and out, the default device, verbose and the timing loop.
run 0 gaussian --ksize 5 -v --quality 80 "$JIN" "$F/rocket.jpg" && check_shape "$F/rocket.jpg" "640x427 3"
grep -q "device: " "$WORK/stderr" || fail "-v did not print the device on stderr"
run 0 gaussian --ksize 15 --repeat 5 --time "$IN" "$F/timed.png"
for word in "^device " "^load " "^upload " "^compute .*median.*min" "^download " "^save "; do
    has "$word" "--time"
done
has "over 5 runs" "--repeat 5 --time"
run 0 invert --unchanged "$DATA/brick.png" "$F/brick_inv.png" && check_shape "$F/brick_inv.png" "512x512 1"
run 0 gray --unchanged "$DATA/brick.png" "$F/brick_gray.png" && check_shape "$F/brick_gray.png" "512x512 1"
run 0 box --ksize=7 --device=cpu --threads 1 -- "$IN" "$F/box_eq.png" && check_shape "$F/box_eq.png" "512x512 3"

# ---- usage errors: exit 2, a message naming what was wrong, no output ----------------------
U=$WORK/usage
mkdir -p "$U"
o=$U/out.png
expect 2 "command" bogus "$IN" "$o"
expect 2 "command"
expect 2 "--frobnicate" box --frobnicate "$IN" "$o"
expect 2 "--frobnicate" --frobnicate
expect 2 "--ksize" box "$IN" "$o" --ksize
expect 2 "--ksize" box --ksize abc "$IN" "$o"
expect 2 "--ksize" box --ksize 0 "$IN" "$o"
expect 2 "--ksize" box --ksize 3x "$IN" "$o"
expect 2 "--ksize" gaussian --ksize 0 "$IN" "$o"
expect 2 "--ksize" gaussian --ksize 4 "$IN" "$o"
expect 2 "--ksize" gaussian --ksize 3x4 "$IN" "$o"
expect 2 "--ksize" gaussian "$IN" "$o"
expect 2 "--sigma" gaussian --ksize 3 --sigma -1 "$IN" "$o"
expect 2 "--ksize" sobel --ksize 4 "$IN" "$o"
expect 2 "--dx" sobel --dx 3 "$IN" "$o"
expect 2 "--dx" sobel --dx 0 --dy 0 "$IN" "$o"
expect 2 "scharr" sobel --ksize scharr --dx 1 --dy 1 "$IN" "$o"
expect 2 "--scale" sobel --scale x "$IN" "$o"
expect 2 "--kernel" filter "$IN" "$o"
expect 2 "--kernel" filter --kernel "1,2;3" "$IN" "$o"
expect 2 "--kernel" filter --kernel "1,,2" "$IN" "$o"
expect 2 "--delta" filter --kernel 1 --delta nan "$IN" "$o"
expect 2 "--anchor" box --anchor 3,0 "$IN" "$o"
expect 2 "--device" box --device bogus "$IN" "$o"
expect 2 "--device" box --device cuda:x "$IN" "$o"
expect 2 "--threads" box --threads -1 "$IN" "$o"
expect 2 "--threads" box --threads 1.5 "$IN" "$o"
expect 2 "--repeat" box --repeat 0 "$IN" "$o"
expect 2 "--quality" box --quality 101 "$IN" "$o"
expect 2 "--border" box --border nope "$IN" "$o"
expect 2 "--border-value" box --border-value 3 "$IN" "$o"
expect 2 "--border" invert --border wrap "$IN" "$o"
expect 2 "--time" box --time=yes "$IN" "$o"
expect 2 "missing" box "$IN"
expect 2 "unexpected" box "$IN" "$o" extra
expect 2 "--subsampling" convert --subsampling 411 "$IN" "$U/out.jpg"
expect 2 "--progressive" convert --progressive "$IN" "$o"
expect 2 "missing" info
expect 2 "unexpected" devices extra
absent "$o"
absent "$U/out.jpg"

# ---- runtime errors: exit 1, a message, no new file, an existing output unchanged ----------
R=$WORK/runtime
mkdir -p "$R"
head -c 4000 "$IN" >"$R/truncated.png"
head -c 4000 "$JIN" >"$R/truncated.jpg"
printf 'not an image at all\n' >"$R/garbage.png"
cp "$DATA/rocket.jpg" "$R/existing.jpg"
cp "$IN" "$R/existing.png"
ls "$R" >"$WORK/listing_before"
expect 1 "missing.png" invert "$R/missing.png" "$R/new.png"
expect 1 "missing.png" info "$R/missing.png"
expect 1 "truncated" invert "$R/truncated.png" "$R/new.png"
expect 1 "truncated" invert "$R/truncated.png" "$R/existing.png"
expect 1 "truncated" gaussian --ksize 3 "$R/truncated.jpg" "$R/existing.jpg"
expect 1 "truncated" convert "$R/truncated.jpg" "$R/new.png"
expect 1 "garbage" edges "$R/garbage.png" "$R/existing.png"
expect 1 "garbage" info "$R/garbage.png"
expect 1 "no_such_dir" invert "$IN" "$R/no_such_dir/out.png"
expect 1 "no_such_dir" convert "$IN" "$R/no_such_dir/out.jpg"
# Info on several files describes the readable ones and still fails.
run 1 info "$IN" "$R/truncated.png" "$R/missing.png"
has "512x512" "gip info with bad files among good ones"
if [ "$gpu" -eq 0 ]; then
    expect 1 "CUDA" invert --device cuda "$IN" "$R/new.png"
    expect 1 "CUDA" gaussian --ksize 3 --device cuda:0 "$IN" "$R/new.png"
else
    run 0 invert --device cuda "$IN" "$F/invert_cuda_explicit.png"
    expect 1 "cuda:63\|device 63\|63" invert --device cuda:63 "$IN" "$R/new.png"
fi
absent "$R/new.png"
ls "$R" >"$WORK/listing_after"
checks=$((checks + 1))
cmp -s "$WORK/listing_before" "$WORK/listing_after" ||
    fail "failed commands left files behind: $(diff "$WORK/listing_before" "$WORK/listing_after")"
checks=$((checks + 1))
cmp -s "$R/existing.jpg" "$DATA/rocket.jpg" || fail "a failed command changed an existing output"
checks=$((checks + 1))
cmp -s "$R/existing.png" "$IN" || fail "a failed command changed an existing output"

echo "cli: $checks checks, $fails failed (GPU usable: $gpu)"
[ "$fails" -eq 0 ]
