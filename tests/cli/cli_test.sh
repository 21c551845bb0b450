#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of the gip command-line tool: help, devices, info, convert, every filter subcommand, the
# Fourier subcommands (spectrum, fft, ifft and their .npy files), map, stencil and kernel, usage
# errors (exit 2) and runtime errors (exit 1, no partial or clobbered output).
# Usage: cli_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"

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

# ---- help and version ----------------------------------------------------------------------
# has PATTERN WHAT: the last command's stdout matches PATTERN, else WHAT failed.
has() {
    checks=$((checks + 1))
    grep -q -e "$1" "$WORK/stdout" || fail "$2: stdout does not match '$1'"
}
run 0 --help && has "^Usage: gip" "gip --help"
run 0 -h && has "^Usage: gip" "gip -h"
run 0 --version && has "^gip [0-9]*\.[0-9]*\.[0-9]*$" "gip --version"
commands="devices info convert gray invert box filter sobel edges gaussian spectrum fft ifft map
stencil kernel"
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
# Every registered operation is a command, its help made from its descriptor (gip ops lists
# them; convert is the file conversion command, the operation runs in gip run).
"$GIP" ops | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p' >"$WORK/ops"
checks=$((checks + 1))
[ "$(wc -l <"$WORK/ops")" -ge 10 ] || fail "gip ops lists $(wc -l <"$WORK/ops") operations"
while read -r c; do
    [ "$c" = convert ] && continue
    run 0 "$c" --help && has "^Usage: gip $c \[options\]" "gip $c --help"
    has "gip run '$c" "gip $c --help names its pipeline step"
    checks=$((checks + 1))
    grep -q "^  $c " "$WORK/main_help" || fail "gip --help does not list the operation '$c'"
    echo "$checks $fails" >"$WORK/counts"
done <"$WORK/ops"
read -r checks fails <"$WORK/counts"
run 0 box --help && has "^  --ksize N|WxH " "gip box --help: --ksize from the registry"
has "each an integer in 1..1023" "gip box --help: what --ksize accepts, in the registry's words"
has "^  --unnormalized " "gip box --help: the --unnormalized alias"
has "^  --border-value " "gip box --help: border_value as --border-value"
run 0 map --help && has "^  --scalar NAME=V" "gip map --help: --scalar"
has "^Usage: gip map \[options\] EXPR IN \[IN2 \.\.\.\] OUT" "gip map --help: usage"

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
# Parameters by their registry names: BOOL as --NAME 0|1 (--unnormalized is --normalize 0),
# required ones also before IN, every value through the registry's checks.
run 0 box --ksize 5x3 --normalize 0 "$IN" "$F/box_sum.png"
run 0 box --ksize 5x3 --unnormalized "$IN" "$F/box_sum_alias.png"
run 0 box --ksize 5x3 --normalize=0 "$IN" "$F/box_sum_eq.png"
checks=$((checks + 1))
cmp -s "$F/box_sum.png" "$F/box_sum_alias.png" && cmp -s "$F/box_sum.png" "$F/box_sum_eq.png" ||
    fail "box --normalize 0, --normalize=0 and --unnormalized differ"
run 0 filter '0,-1,0;-1,5,-1;0,-1,0' "$IN" "$F/sharpen_pos.png"
run 0 filter --kernel '0,-1,0;-1,5,-1;0,-1,0' "$IN" "$F/sharpen_opt.png"
checks=$((checks + 1))
cmp -s "$F/sharpen_pos.png" "$F/sharpen_opt.png" || fail "filter KERNEL and --kernel KERNEL differ"
# A negative number is an argument, not an option: a kernel starting with '-' needs no '--'.
run 0 filter '-1,1;1,-1' "$IN" "$F/diff_pos.png"
run 0 filter --kernel=-1,1\;1,-1 "$IN" "$F/diff_opt.png"
checks=$((checks + 1))
cmp -s "$F/diff_pos.png" "$F/diff_opt.png" || fail "filter '-1,1;1,-1' and --kernel=-1,1;1,-1 differ"
run 0 spectrum --log1p 1 "$IN" "$F/spec_log1p.png"
run 0 spectrum --log1p "$IN" "$F/spec_log1p_flag.png"
checks=$((checks + 1))
cmp -s "$F/spec_log1p.png" "$F/spec_log1p_flag.png" || fail "spectrum --log1p 1 and --log1p differ"
run 0 sobel --dtype u16 --border-value 7 --border constant "$IN" "$F/sobel_u16.png"
run 0 gaussian --sigma 2 "$IN" "$F/gauss_sigma.png" && check_shape "$F/gauss_sigma.png" "512x512 3"

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
# The registry's message names the order's bound and the aperture.
expect 2 "below 3 for --ksize 3" sobel --dx 3 "$IN" "$o"
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
expect 2 "--normalize" box --normalize 2 "$IN" "$o"
expect 2 "--unnormalized and --normalize" box --unnormalized --normalize 1 "$IN" "$o"
expect 2 "--dtype" sobel --dtype u32 "$IN" "$o"
# Image files hold u8 and u16: an s16 or f32 result is refused before it is computed.
expect 2 "would be s16" sobel --dtype s16 "$IN" "$o"
expect 2 "--border-value needs --border=constant" gaussian --ksize 3 --border-value 1 "$IN" "$o"
expect 2 "unexpected" filter 1 "$IN" "$o" extra
expect 2 "unexpected" filter --kernel 1 "$IN" "$o" extra
expect 2 "--kernel" filter --kernel 'x' "$IN" "$o"
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

# ---- helpers for pixel checks on 8-bit gray PGM files ---------------------------------------
# pgm_data FILE: the pixel bytes of a gip-written binary PGM ("P5\nW H\n255\n" then the data).
pgm_data() {
    tail -n +4 "$1"
}

# pixel FILE.pgm X Y: the value of one pixel of a gip-written gray PGM.
pixel() {
    w=$(sed -n '2s/ .*//p' "$1")
    hdr=$(head -n 3 "$1" | wc -c)
    od -A n -t u1 -j $((hdr + $3 * w + $2)) -N 1 "$1" | tr -d ' '
}

# far_pixels A B: how many pixels of two gray images of one size differ by more than one level
# (counted in the difference image that gip map computes), or "error".
far_pixels() {
    rm -f "$WORK/far.pgm"
    if ! "$GIP" map --unchanged 'out = abs(a - b) > 1 ? 255 : 0' "$1" "$2" "$WORK/far.pgm" \
        2>"$WORK/far_stderr"; then
        echo error
        return
    fi
    pgm_data "$WORK/far.pgm" | tr -d '\000' | wc -c | tr -d ' '
}

# within1 A B: two gray images differ by at most one level everywhere.
within1() {
    checks=$((checks + 1))
    n=$(far_pixels "$1" "$2")
    [ "$n" = 0 ] || fail "$1 and $2 differ by more than one level at $n pixels $(cat "$WORK/far_stderr")"
}

# check_npy FILE H W: a gip-written complex64 .npy of shape (H, W): the exact header text, the
# header padded to 64 bytes, and H * W * 8 data bytes after it.
check_npy() {
    checks=$((checks + 1))
    if [ ! -f "$1" ]; then
        fail "$1 was not written"
        return 1
    fi
    want="{'descr': '<c8', 'fortran_order': False, 'shape': ($2, $3), }"
    if ! head -c 128 "$1" | grep -a -q -F "$want"; then
        fail "$1: header is not \"$want\": $(head -c 128 "$1" | tr -d '\000' | tr -c '[:print:]' '?')"
        return 1
    fi
    size=$(wc -c <"$1")
    if [ "$size" -ne $((128 + $2 * $3 * 8)) ]; then
        fail "$1: $size bytes, expected $((128 + $2 * $3 * 8))"
        return 1
    fi
    return 0
}

# mknpy FILE MAJOR 'HEADER' DATA_BYTES [nonl]: writes a version MAJOR.0 .npy file by hand: magic,
# version, the header length (2 bytes for 1.0, 4 for 2.0 and 3.0), the header (plus '\n' unless
# nonl), then DATA_BYTES zero bytes.
mknpy() {
    h=$3
    [ "${5:-}" = nonl ] || h="$h
"
    len=$(printf '%s' "$h" | wc -c)
    {
        printf '\223NUMPY'
        printf "\\$(printf %03o "$2")\\000"
        printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
        [ "$2" -ge 2 ] && printf '\000\000'
        printf '%s' "$h"
        head -c "$4" /dev/zero
    } >"$1"
}

# ---- spectrum, fft, ifft -------------------------------------------------------------------
X=$WORK/fourier
mkdir -p "$X"
"$GIP" convert --gray "$IN" "$X/gray.pgm"
"$GIP" convert --gray "$DATA/chelsea.png" "$X/chelsea_gray.pgm"
"$GIP" convert --gray "$JIN" "$X/rocket_gray.pgm"
# The checker itself can fail: an image and its inverse are far apart.
"$GIP" invert --unchanged "$X/gray.pgm" "$X/gray_inv.pgm"
checks=$((checks + 1))
case $(far_pixels "$X/gray.pgm" "$X/gray_inv.pgm") in
0 | error) fail "far_pixels cannot tell an image from its inverse" ;;
esac
for dev in $devices_to_test; do
    run 0 spectrum --device "$dev" "$IN" "$X/spec_$dev.png" &&
        check_shape "$X/spec_$dev.png" "512x512 1"
    # The seed's picture: the DC term, at (W/2, H/2), is the largest magnitude.
    "$GIP" convert "$X/spec_$dev.png" "$X/spec_$dev.pgm"
    checks=$((checks + 1))
    [ "$(pixel "$X/spec_$dev.pgm" 256 256)" = 255 ] ||
        fail "spectrum ($dev): the centre is $(pixel "$X/spec_$dev.pgm" 256 256), not 255"
    checks=$((checks + 1))
    [ "$(pixel "$X/spec_$dev.pgm" 100 100)" -lt 255 ] || fail "spectrum ($dev): flat image"
    run 0 spectrum --device "$dev" --log1p --unchanged "$DATA/hubble_deep_field.jpg" \
        "$X/hubble_spec_$dev.png" && check_shape "$X/hubble_spec_$dev.png" "1000x872 1"
    run 0 spectrum --device "$dev" "$DATA/brick.png" "$X/brick_spec_$dev.jpg" &&
        check_shape "$X/brick_spec_$dev.jpg" "512x512 1"
    # fft -> ifft reproduces the gray image: half and full spectra, odd widths, every norm.
    run 0 fft --device "$dev" "$IN" "$X/a_$dev.npy" && check_npy "$X/a_$dev.npy" 512 257
    run 0 ifft --device "$dev" "$X/a_$dev.npy" "$X/a_back_$dev.pgm" &&
        check_shape "$X/a_back_$dev.pgm" "512x512 1" && within1 "$X/a_back_$dev.pgm" "$X/gray.pgm"
    run 0 fft --device "$dev" --full "$IN" "$X/af_$dev.npy" && check_npy "$X/af_$dev.npy" 512 512
    run 0 ifft --device "$dev" --width 512 "$X/af_$dev.npy" "$X/af_back_$dev.png" &&
        check_shape "$X/af_back_$dev.png" "512x512 1" &&
        within1 "$X/af_back_$dev.png" "$X/gray.pgm"
    run 0 fft --device "$dev" --norm ortho "$DATA/chelsea.png" "$X/c_$dev.npy" &&
        check_npy "$X/c_$dev.npy" 300 226
    run 0 ifft --device "$dev" --norm ortho --width 451 "$X/c_$dev.npy" "$X/c_back_$dev.png" &&
        check_shape "$X/c_back_$dev.png" "451x300 1" &&
        within1 "$X/c_back_$dev.png" "$X/chelsea_gray.pgm"
    run 0 fft --device "$dev" --full --norm forward "$JIN" "$X/r_$dev.npy" &&
        check_npy "$X/r_$dev.npy" 427 640
    run 0 ifft --device "$dev" --norm forward --width 640 --depth 16 "$X/r_$dev.npy" \
        "$X/r_back_$dev.png" && check_shape "$X/r_back_$dev.png" "640x427 1"
    run 0 ifft --device "$dev" --norm forward --width 640 "$X/r_$dev.npy" "$X/r_back_$dev.pgm" &&
        within1 "$X/r_back_$dev.pgm" "$X/rocket_gray.pgm"
    # The wrong norm does not give the image back.
    run 0 ifft --device "$dev" --norm ortho "$X/a_$dev.npy" "$X/a_wrong_$dev.pgm"
    checks=$((checks + 1))
    case $(far_pixels "$X/a_wrong_$dev.pgm" "$X/gray.pgm") in
    0 | error) fail "ifft with the wrong --norm gave the image back" ;;
    esac
    run 0 ifft --device "$dev" "$X/a_$dev.npy" "$X/a_back_$dev.npy"
    checks=$((checks + 1))
    [ "$(wc -c <"$X/a_back_$dev.npy")" -eq $((128 + 512 * 512 * 4)) ] ||
        fail "ifft to .npy: $(wc -c <"$X/a_back_$dev.npy") bytes"
    head -c 128 "$X/a_back_$dev.npy" | grep -a -q "'descr': '<f4'" || fail "ifft .npy is not '<f4'"
    run 0 fft --device "$dev" --repeat 3 --time "$IN" "$X/timed_$dev.npy"
    has "over 3 runs of fft" "fft --time"
done
# numpy reads gip's .npy files and agrees with its own rfft2 (when numpy is installed).
if python3 -c "import numpy" 2>/dev/null; then
    checks=$((checks + 1))
    python3 - "$X/a_cpu.npy" "$X/af_cpu.npy" "$X/gray.pgm" >"$WORK/np_out" 2>&1 <<'PY' ||
import sys
import numpy as np
half, full, pgm = np.load(sys.argv[1]), np.load(sys.argv[2]), open(sys.argv[3], "rb").read()
g = np.frombuffer(pgm, np.uint8)[-512 * 512:].reshape(512, 512).astype(np.float64)
assert half.dtype == np.complex64 and half.shape == (512, 257), (half.dtype, half.shape)
assert full.dtype == np.complex64 and full.shape == (512, 512), (full.dtype, full.shape)
for got, want in ((half, np.fft.rfft2(g)), (full, np.fft.fft2(g))):
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 1e-5, err
PY
        fail "numpy disagrees with gip's .npy files: $(cat "$WORK/np_out")"
else
    echo "    (numpy not installed: the np.load check of .npy files is skipped)"
fi

# A corrupt or foreign .npy: exit 1 with a message naming what is wrong, nothing written.
N=$WORK/npy
mkdir -p "$N"
good="{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }"
mknpy "$N/good.npy" 1 "$good" 48
run 0 ifft "$N/good.npy" "$N/good.png" && check_shape "$N/good.png" "4x2 1"
mknpy "$N/good_v2.npy" 2 "$good" 48
run 0 ifft --width 5 "$N/good_v2.npy" "$N/good_v2.png" && check_shape "$N/good_v2.png" "5x2 1"
mknpy "$N/reordered.npy" 1 "{'shape': (2, 3), 'fortran_order': False, 'descr': '<c8'}" 48
run 0 ifft "$N/reordered.npy" "$N/reordered.png"
head -c 1000 "$X/a_cpu.npy" >"$N/truncated.npy"
cat "$X/a_cpu.npy" "$N/good.npy" >"$N/trailing.npy"
printf 'not a numpy file at all\n' >"$N/garbage.npy"
head -c 8 "$X/a_cpu.npy" >"$N/short.npy"
mknpy "$N/f8.npy" 1 "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }" 48
mknpy "$N/big_endian.npy" 1 "{'descr': '>c8', 'fortran_order': False, 'shape': (2, 3), }" 48
mknpy "$N/fortran.npy" 1 "{'descr': '<c8', 'fortran_order': True, 'shape': (2, 3), }" 48
mknpy "$N/3d.npy" 1 "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3, 1), }" 48
mknpy "$N/1d.npy" 1 "{'descr': '<c8', 'fortran_order': False, 'shape': (6,), }" 48
mknpy "$N/empty.npy" 1 "{'descr': '<c8', 'fortran_order': False, 'shape': (0, 3), }" 0
mknpy "$N/nokey.npy" 1 "{'descr': '<c8', 'shape': (2, 3), }" 48
mknpy "$N/extrakey.npy" 1 "{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}" 48
mknpy "$N/twice.npy" 1 "{'descr': '<c8', 'descr': '<c8', 'fortran_order': False, 'shape': (2, 3)}" 48
mknpy "$N/nonl.npy" 1 "$good" 48 nonl
mknpy "$N/notdict.npy" 1 "['<c8', False, (2, 3)]" 48
mknpy "$N/badshape.npy" 1 "{'descr': '<c8', 'fortran_order': False, 'shape': (2, x), }" 48
mknpy "$N/huge.npy" 1 "{'descr': '<c8', 'fortran_order': False, 'shape': (99999999999, 3), }" 48
mknpy "$N/v9.npy" 9 "$good" 48
cp "$N/good.png" "$N/existing.png"
for case in "truncated:truncated" "trailing:after the data" "garbage:magic" "short:magic" \
    "f8:<f8" "big_endian:>c8" "fortran:Fortran" "3d:dimensions" "1d:dimensions" \
    "empty:dimensions" "nokey:lacks" "extrakey:key other" "twice:twice" "nonl:newline" \
    "notdict:dict" "badshape:shape" "huge:shape" "v9:version 9.0"; do
    name=${case%%:*}
    expect 1 "$name.npy.*${case#*:}" ifft "$N/$name.npy" "$N/new.png"
    expect 1 "$name.npy" ifft --width 4 "$N/$name.npy" "$N/existing.png"
done
expect 1 "magic" ifft "$IN" "$N/new.png"
expect 1 "missing.npy" ifft "$N/missing.npy" "$N/new.png"
absent "$N/new.png"
checks=$((checks + 1))
cmp -s "$N/existing.png" "$N/good.png" || fail "a failed ifft changed an existing output"
# A failed fft leaves an existing .npy as it was; no temporary file is left behind.
cp "$N/good.npy" "$N/existing.npy"
expect 1 "missing.png" fft "$N/missing.png" "$N/existing.npy"
expect 1 "no_such_dir" fft "$IN" "$N/no_such_dir/out.npy"
checks=$((checks + 1))
cmp -s "$N/existing.npy" "$N/good.npy" || fail "a failed fft changed an existing output"
checks=$((checks + 1))
[ -z "$(find "$N" "$X" -name '*.tmp')" ] || fail "temporary files left: $(find "$N" "$X" -name '*.tmp')"
# Usage errors of the Fourier subcommands.
expect 2 "\.npy" fft "$IN" "$N/out.png"
expect 2 "--norm" fft --norm none "$IN" "$N/out.npy"
expect 2 "--norm" ifft --norm sideways "$N/good.npy" "$N/out.png"
expect 2 "--width" ifft --width 0 "$N/good.npy" "$N/out.png"
expect 2 "--width 7" ifft --width 7 "$N/good.npy" "$N/out.png"
expect 2 "--depth" ifft --depth 12 "$N/good.npy" "$N/out.png"
expect 2 "--depth" ifft --depth 16 "$N/good.npy" "$N/out.npy"
expect 2 "--log1p" spectrum --log1p=2 "$IN" "$N/out.png"
expect 2 "--border" spectrum --border wrap "$IN" "$N/out.png"
expect 2 "missing" fft "$IN"
absent "$N/out.png"
absent "$N/out.npy"

# ---- map and stencil -----------------------------------------------------------------------
M=$WORK/expr
mkdir -p "$M"
mean9='out = (in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in(0,0) + in(1,0) + in(-1,1) + in(0,1) + in(1,1)) / 9'
for dev in $devices_to_test; do
    "$GIP" invert --device "$dev" "$IN" "$M/invert_$dev.png"
    run 0 map --device "$dev" 'out = 255 - in' "$IN" "$M/map_invert_$dev.png" &&
        check_shape "$M/map_invert_$dev.png" "512x512 3"
    checks=$((checks + 1))
    cmp -s "$M/map_invert_$dev.png" "$M/invert_$dev.png" ||
        fail "map 'out = 255 - in' ($dev) differs from gip invert"
    "$GIP" box --device "$dev" --ksize 3 "$IN" "$M/box3_$dev.png"
    run 0 stencil --device "$dev" --radius 1 "$mean9" "$IN" "$M/mean3_$dev.png" &&
        check_shape "$M/mean3_$dev.png" "512x512 3"
    checks=$((checks + 1))
    cmp -s "$M/mean3_$dev.png" "$M/box3_$dev.png" ||
        fail "stencil 3x3 mean ($dev) differs from gip box --ksize 3"
    for b in replicate wrap constant; do
        "$GIP" box --device "$dev" --ksize 3 --border "$b" "$JIN" "$M/box3_${b}_$dev.png"
        run 0 stencil --device "$dev" --border "$b" "$mean9" "$JIN" "$M/mean3_${b}_$dev.png"
        checks=$((checks + 1))
        cmp -s "$M/mean3_${b}_$dev.png" "$M/box3_${b}_$dev.png" ||
            fail "stencil 3x3 mean --border $b ($dev) differs from gip box"
    done
    # The check can fail: the mean with the wrong divisor is not the box filter.
    run 0 stencil --device "$dev" "${mean9%9}8" "$IN" "$M/mean3_wrong_$dev.png"
    checks=$((checks + 1))
    cmp -s "$M/mean3_wrong_$dev.png" "$M/box3_$dev.png" && fail "a wrong stencil equals box"
    run 0 map --device "$dev" --scalar k=0.25,m=1 'out = clamp(a * k + b * (m - k), 0, 255)' "$IN" \
        "$DATA/brick.png" "$M/mix_$dev.png" && check_shape "$M/mix_$dev.png" "512x512 3"
    run 0 map --device "$dev" 'out = (a + b + in2) / 3' "$IN" "$DATA/grass.png" \
        "$DATA/gravel.png" "$M/three_$dev.png" && check_shape "$M/three_$dev.png" "512x512 3"
    run 0 map --device "$dev" --unchanged 'out = x < width / 2 ? in : 255 - in' \
        "$DATA/brick.png" "$M/half_$dev.png" && check_shape "$M/half_$dev.png" "512x512 1"
    run 0 stencil --device "$dev" --scalar gain=2 'out = 128 + gain * (in(1,0) - in(-1,0))' \
        --repeat 3 --time "$JIN" "$M/dx_$dev.jpg" && check_shape "$M/dx_$dev.jpg" "640x427 3"
    has "over 3 runs of stencil" "stencil --time"
done
if [ "$gpu" -eq 1 ]; then
    for f in "$M"/*_cpu.png; do
        g=${f%_cpu.png}_cuda.png
        checks=$((checks + 1))
        cmp -s "$f" "$g" || fail "$(basename "$f" _cpu.png): CPU and CUDA outputs differ"
    done
fi
o=$M/out.png
expect 2 "column 13" map 'out = 255 - * in' "$IN" "$o"
expect 2 "column" map 'out = nosuchname + 1' "$IN" "$o"
expect 2 "column" map 'out = min(in)' "$IN" "$o"
expect 2 "column" map 'out = in(1, 0)' "$IN" "$o"
expect 2 "column" stencil --radius 1 'out = in(2, 0)' "$IN" "$o"
expect 2 "column" stencil 'out = (in(-1,0) + in(1,0)' "$IN" "$o"
expect 2 "--scalar" map --scalar k "$IN" "$o" 'out = in'
expect 2 "--scalar" map --scalar k=abc 'out = in * k' "$IN" "$o"
# Numbers are decimal as docs/expressions.md writes them: no hex floats, inf or nan.
expect 2 "'0x1p3' is not a number" map 'out = in + 0x1p3' "$IN" "$o"
expect 2 "'1e' is not a number" map 'out = in * 1e' "$IN" "$o"
expect 2 "column 7" map 'out = 1.2.3' "$IN" "$o"
expect 2 "outside the float range" map 'out = in * 1e39' "$IN" "$o"
expect 2 "column" stencil 'out = in(0, 0) * 0X10' "$IN" "$o"
expect 2 "--scalar" map --scalar k=0x10 'out = in * k' "$IN" "$o"
expect 2 "--kernel" filter --kernel '0x1p-3,0x1p-3;0x1p-3,0x1p-3' "$IN" "$o"
expect 2 "--kernel" filter --kernel '1/0x9' "$IN" "$o"
expect 2 "--sigma" gaussian --ksize 3 --sigma 0x1p1 "$IN" "$o"
expect 2 "--delta" filter --kernel 1 --delta inf "$IN" "$o"
run 0 filter --kernel '1e0/9,.5/4.5,1./9;1/9,1/9,1/9;1/9,1/9,1/ 9' "$IN" "$o"
run 0 map 'out = in * 1.f + 0.e0 + 1e-2f - .01' "$IN" "$o"
rm -f "$o"
expect 2 "--radius" stencil --radius 33 'out = in' "$IN" "$o"
expect 2 "--border" map --border wrap 'out = in' "$IN" "$o"
expect 2 "missing" map 'out = 255 - in' "$IN"
expect 2 "unexpected" stencil 'out = in' "$IN" "$o" extra
expect 1 "chelsea" map 'out = (a + b) / 2' "$IN" "$DATA/chelsea.png" "$o"
expect 1 "missing.png" map 'out = (a + b) / 2' "$IN" "$M/missing.png" "$o"
expect 1 "missing.png" stencil 'out = in' "$M/missing.png" "$o"
absent "$o"

# ---- kernel --------------------------------------------------------------------------------
K=$WORK/kernel
mkdir -p "$K"
# The seed's 3x3 mean kernel, made correct at the borders (reflect101, as gip box).
cat >"$K/mean.cu" <<'CU'
#include "mirror.h"
extern "C" __global__ void mean3(const unsigned char *src, int w, int h, long long sstride,
                                 int c, unsigned char *dst, int dw, int dh, long long dstride,
                                 int dc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    for (int k = 0; k < c; k++) {
        int sum = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                sum += src[mirror(y + dy, h) * sstride + mirror(x + dx, w) * c + k];
        dst[y * dstride + x * c + k] = (unsigned char)((sum + 4) / 9);
    }
}
CU
cat >"$K/mirror.h" <<'CU'
__device__ static int mirror(int i, int n)
{
    return n == 1 ? 0 : i < 0 ? -i : i >= n ? 2 * n - i - 2 : i;
}
CU
printf 'extern "C" __global__ void broken(int *p) { p[0] = ; }
' >"$K/broken.cu"
expect 1 "needs a CUDA device" kernel --device cpu --source "$K/mean.cu" --name mean3 "$IN" "$K/out.png"
expect 2 "--source" kernel --name mean3 "$IN" "$K/out.png"
expect 2 "--name" kernel --source "$K/mean.cu" "$IN" "$K/out.png"
expect 2 "--block" kernel --source "$K/mean.cu" --name mean3 --block 64,64 "$IN" "$K/out.png"
expect 2 "--grid" kernel --source "$K/mean.cu" --name mean3 --grid 1,70000 "$IN" "$K/out.png"
expect 2 "--grid" kernel --source "$K/mean.cu" --name mean3 --grid 0,1 "$IN" "$K/out.png"
if [ "$gpu" -eq 0 ]; then
    expect 1 "needs a CUDA device" kernel --source "$K/mean.cu" --name mean3 "$IN" "$K/out.png"
else
    "$GIP" box --ksize 3 "$IN" "$K/box3.png"
    run 0 kernel --source "$K/mean.cu" --name mean3 "$IN" "$K/mean3.png" &&
        check_shape "$K/mean3.png" "512x512 3"
    checks=$((checks + 1))
    cmp -s "$K/mean3.png" "$K/box3.png" || fail "the mean kernel differs from gip box --ksize 3"
    run 0 kernel --source "$K/mean.cu" --name mean3 --block 32,8 --repeat 3 --time "$JIN" \
        "$K/mean3_rocket.png" && check_shape "$K/mean3_rocket.png" "640x427 3"
    expect 2 "broken.cu" kernel --source "$K/broken.cu" --name broken "$IN" "$K/out.png"
    expect 1 "nosuch" kernel --source "$K/mean.cu" --name nosuch "$IN" "$K/out.png"
    expect 1 "missing.cu" kernel --source "$K/missing.cu" --name mean3 "$IN" "$K/out.png"
fi
absent "$K/out.png"

echo "cli: $checks checks, $fails failed (GPU usable: $gpu)"
[ "$fails" -eq 0 ]
