#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of what gip writes: channels, depth and alpha kept by default (gray, 16-bit and RGBA
# inputs) with notes where the output format cannot hold them and --color for 8-bit RGB; output
# modes (new files 0666 & ~umask, replaced files keep theirs) for whole, decoded-ahead, streamed
# and batch outputs; read-only outputs refused without --overwrite; and streamed runs killed with
# SIGKILL, which must leave no temporary file once the next run for the output is done.
# Usage: outputs_test.sh PATH/TO/gip DATA_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"

ok() {
    checks=$((checks + 1))
    if ! eval "$1"; then fail "$2"; fi
}

# kind FILE: "WxH C D" (size, channels, bits) as `gip info` reports them.
kind() {
    "$GIP" info "$1" 2>/dev/null |
        sed -n 's/^.*: [a-z]*, \([0-9]*x[0-9]*\), \([0-9]*\) channels* ([^)]*), \([0-9]*\)-bit.*$/\1 \2 \3/p'
}

# is FILE "WxH C D": the file exists and is of that kind.
is() {
    checks=$((checks + 1))
    got=$(kind "$1")
    [ "$got" = "$2" ] || fail "$1: gip info says '$got', expected '$2'"
}

# noted NEEDLE: the last command said NEEDLE in a note on stderr.
noted() {
    checks=$((checks + 1))
    grep -q "note: .*$1" "$WORK/stderr" || fail "no note mentioning '$1': $(cat "$WORK/stderr")"
}

# quiet: the last command printed nothing on stderr.
quiet() {
    checks=$((checks + 1))
    [ ! -s "$WORK/stderr" ] || fail "unexpected stderr: $(cat "$WORK/stderr")"
}

# mode FILE: its permission bits in octal.
mode() {
    stat -c %a "$1"
}

umask 022
IN=$DATA/astronaut.png
GRAY=$DATA/brick.png

# ---- inputs: 16-bit RGB and gray, RGBA 8 and 16 bits -------------------------------------------
I=$WORK/inputs
mkdir -p "$I"
run 0 run 'convert u16 scale=257' "$IN" "$I/rgb16.png" && is "$I/rgb16.png" "512x512 3 16"
run 0 run 'convert u16 scale=257' "$GRAY" "$I/gray16.png" && is "$I/gray16.png" "512x512 1 16"
have_rgba=0
if python3 -c 'import zlib, struct' 2>/dev/null; then
    # A 64x48 RGBA PNG (8 and 16 bits) with a varying alpha, written by Python's zlib.
    python3 - "$I/rgba.png" "$I/rgba16.png" <<'PY' && have_rgba=1
import struct, sys, zlib
def png(path, bits):
    w, h = 64, 48
    rows = b""
    for y in range(h):
        row = b"\0"
        for x in range(w):
            px = ((x * 4) % 256, (y * 5) % 256, ((x + y) * 3) % 256, (x * 255) // (w - 1))
            row += b"".join(struct.pack(">H", v * 257) if bits == 16 else bytes([v]) for v in px)
        rows += row
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    ihdr = struct.pack(">IIBBBBB", w, h, bits, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows))
                + chunk(b"IEND", b""))
png(sys.argv[1], 8)
png(sys.argv[2], 16)
PY
fi
if [ "$have_rgba" -eq 1 ]; then
    is "$I/rgba.png" "64x48 4 8"
    is "$I/rgba16.png" "64x48 4 16"
else
    echo "  no python3 with zlib: the RGBA cases are skipped"
fi

# ---- kept by default: every subcommand, gray, 16 bits and alpha --------------------------------
K=$WORK/kept
mkdir -p "$K"
run 0 gaussian --ksize 5 "$GRAY" "$K/g_gray.png" && is "$K/g_gray.png" "512x512 1 8" && quiet
run 0 gaussian --ksize 5 "$I/rgb16.png" "$K/g_16.png" && is "$K/g_16.png" "512x512 3 16"
run 0 gaussian --ksize 5 "$I/gray16.png" "$K/g_gray16.png" && is "$K/g_gray16.png" "512x512 1 16"
run 0 invert "$I/rgb16.png" "$K/i_16.png" && is "$K/i_16.png" "512x512 3 16"
run 0 box --ksize 3 "$GRAY" "$K/b_gray.png" && is "$K/b_gray.png" "512x512 1 8"
run 0 filter --kernel '0,1,0;1,1,1;0,1,0' "$I/gray16.png" "$K/f_16.png" &&
    is "$K/f_16.png" "512x512 1 16"
run 0 map 'out = in / 2' "$I/rgb16.png" "$K/m_16.png" && is "$K/m_16.png" "512x512 3 16"
run 0 stencil 'out = in(1, 0)' "$GRAY" "$K/s_gray.png" && is "$K/s_gray.png" "512x512 1 8"
run 0 gray "$I/rgb16.png" "$K/gr_16.png" && is "$K/gr_16.png" "512x512 1 16"
run 0 spectrum "$I/rgb16.png" "$K/sp.png" && is "$K/sp.png" "512x512 1 8"
# Sobel's 8-bit output comes from 8-bit data: a 16-bit input is reduced, and a note says so.
run 0 sobel "$I/rgb16.png" "$K/so_16.png" && is "$K/so_16.png" "512x512 3 8" && noted "16-bit"
run 0 sobel "$GRAY" "$K/so_gray.png" && is "$K/so_gray.png" "512x512 1 8"
# Asked for a 16-bit result, Sobel computes it from the 16-bit data.
run 0 sobel --dtype u16 "$I/rgb16.png" "$K/so_u16.png" && is "$K/so_u16.png" "512x512 3 16" && quiet
run 0 edges "$I/gray16.png" "$K/e_16.png" && is "$K/e_16.png" "512x512 1 8"
run 0 convert "$I/rgb16.png" "$K/c_16.ppm" && is "$K/c_16.ppm" "512x512 3 16"
# --color: the former default, 8-bit RGB.
run 0 gaussian --ksize 5 --color "$GRAY" "$K/g_color.png" && is "$K/g_color.png" "512x512 3 8"
run 0 invert --color "$I/rgb16.png" "$K/i_color.png" && is "$K/i_color.png" "512x512 3 8"
expect 2 "exclude each other" invert --color --unchanged "$IN" "$K/x.png"
# Gray + RGB inputs of map meet as 8-bit RGB, with a note.
run 0 map 'out = (a + b) / 2' "$IN" "$GRAY" "$K/m_mixed.png" && is "$K/m_mixed.png" "512x512 3 8" &&
    noted "differ"
if [ "$have_rgba" -eq 1 ]; then
    for c in invert gaussian box; do
        case $c in gaussian | box) o="--ksize 3" ;; *) o="" ;; esac
        # shellcheck disable=SC2086
        run 0 $c $o "$I/rgba.png" "$K/${c}_rgba.png" && is "$K/${c}_rgba.png" "64x48 4 8"
        # shellcheck disable=SC2086
        run 0 $c $o "$I/rgba16.png" "$K/${c}_rgba16.png" && is "$K/${c}_rgba16.png" "64x48 4 16"
    done
    run 0 map 'out = c == 3 ? in : 255 - in' "$I/rgba.png" "$K/m_rgba.png" &&
        is "$K/m_rgba.png" "64x48 4 8"
    run 0 sobel "$I/rgba.png" "$K/so_rgba.png" && is "$K/so_rgba.png" "64x48 4 8"
    run 0 edges "$I/rgba.png" "$K/e_rgba.png" && is "$K/e_rgba.png" "64x48 1 8"
    run 0 gray "$I/rgba16.png" "$K/gr_rgba16.png" && is "$K/gr_rgba16.png" "64x48 1 16"
    # Where the format cannot hold alpha or 16 bits: converted, and a note says what.
    run 0 gaussian --ksize 3 "$I/rgba.png" "$K/g_rgba.jpg" && is "$K/g_rgba.jpg" "64x48 3 8" &&
        noted "alpha"
    run 0 gaussian --ksize 3 "$I/rgba16.png" "$K/g_rgba16.jpg" &&
        is "$K/g_rgba16.jpg" "64x48 3 8" && noted "alpha nor 16 bits"
    run 0 invert "$I/rgba.png" "$K/i_rgba.ppm" && is "$K/i_rgba.ppm" "64x48 3 8" && noted "alpha"
    run 0 convert "$I/rgba16.png" "$K/c_rgba16.png" && is "$K/c_rgba16.png" "64x48 4 16" && quiet
    run 0 convert "$I/rgba16.png" "$K/c_rgba16.jpg" && is "$K/c_rgba16.jpg" "64x48 3 8" &&
        noted "16 bits"
    run 0 gaussian --ksize 3 --color "$I/rgba16.png" "$K/g_rgba_color.png" &&
        is "$K/g_rgba_color.png" "64x48 3 8"
fi
run 0 gaussian --ksize 5 "$I/rgb16.png" "$K/g_16.jpg" && is "$K/g_16.jpg" "512x512 3 8" &&
    noted "8 bits"

# gip run, one file: as stored, else without alpha / in 8 bits with a note.
run 0 run 'gaussian 5 | invert' "$GRAY" "$K/r_gray.png" && is "$K/r_gray.png" "512x512 1 8" && quiet
run 0 run 'gaussian 5 | invert' "$I/rgb16.png" "$K/r_16.png" && is "$K/r_16.png" "512x512 3 16"
run 0 run 'gaussian 5' "$I/rgb16.png" "$K/r_16.jpg" && is "$K/r_16.jpg" "512x512 3 8" &&
    noted "loaded as RGB, 8-bit"
run 0 run 'sobel' "$I/rgb16.png" "$K/r_so16.png" && is "$K/r_so16.png" "512x512 3 8"
run 0 run --color 'gaussian 5' "$GRAY" "$K/r_color.png" && is "$K/r_color.png" "512x512 3 8"
if [ "$have_rgba" -eq 1 ]; then
    run 0 run 'gaussian 3 | invert' "$I/rgba16.png" "$K/r_rgba16.png" &&
        is "$K/r_rgba16.png" "64x48 4 16" && quiet
    run 0 run 'gaussian 3' "$I/rgba.png" "$K/r_rgba.jpg" && is "$K/r_rgba.jpg" "64x48 3 8" &&
        noted "loaded as RGB, 8-bit"
fi
# gip run, a batch: each file as stored; converted where the format cannot hold it, with a note.
B=$WORK/batch_in
mkdir -p "$B"
cp "$GRAY" "$I/rgb16.png" "$B/"
[ "$have_rgba" -eq 1 ] && cp "$I/rgba16.png" "$B/"
run 0 run 'gaussian 3' -i "$B" -o "$WORK/batch_png" --quiet
is "$WORK/batch_png/brick.png" "512x512 1 8"
is "$WORK/batch_png/rgb16.png" "512x512 3 16"
[ "$have_rgba" -eq 1 ] && is "$WORK/batch_png/rgba16.png" "64x48 4 16"
run 0 run 'gaussian 3' -i "$B" -o "$WORK/batch_jpg" --format jpg --quiet
is "$WORK/batch_jpg/rgb16.jpg" "512x512 3 8"
noted "rgb16.png.*8 bits"
if [ "$have_rgba" -eq 1 ]; then
    is "$WORK/batch_jpg/rgba16.jpg" "64x48 3 8"
    noted "rgba16.png.*without alpha and in 8 bits"
fi
run 0 run 'gaussian 3' -i "$B" -o "$WORK/batch_color" --color --quiet
is "$WORK/batch_color/brick.png" "512x512 3 8"
is "$WORK/batch_color/rgb16.png" "512x512 3 8"

# ---- modes: 0666 & ~umask for new files, kept by replaced ones ---------------------------------
M=$WORK/modes
mkdir -p "$M"
# A 3000x3000 PPM streams by rows under --max-memory 32M.
BIG=$WORK/big.ppm
{
    printf 'P6\n3000 3000\n255\n'
    head -c 27000000 /dev/urandom
} >"$BIG"
run 0 run invert "$BIG" "$M/streamed.png" --max-memory 32M --time
ok 'grep -q "streamed by rows" "$WORK/stdout"' "the big image was not streamed"
run 0 run invert "$IN" "$M/ahead.png" --time --device cpu # decoding ahead is the CPU path
ok 'grep -q "decoded ahead" "$WORK/stdout"' "the image was not decoded ahead"
run 0 invert "$IN" "$M/whole.png"
run 0 fft "$IN" "$M/spec.npy"
run 0 run invert -i "$WORK/batch_in" -o "$M/batch" --quiet
for f in "$M/streamed.png" "$M/ahead.png" "$M/whole.png" "$M/spec.npy" "$M/batch/brick.png"; do
    ok '[ "$(mode "$f")" = 644 ]' "$f: new file mode $(mode "$f"), expected 644 (umask 022)"
    chmod 640 "$f"
done
run 0 run invert "$BIG" "$M/streamed.png" --max-memory 32M
run 0 run invert "$IN" "$M/ahead.png"
run 0 invert "$IN" "$M/whole.png"
run 0 fft "$IN" "$M/spec.npy"
run 0 run invert -i "$WORK/batch_in" -o "$M/batch" --quiet --overwrite
for f in "$M/streamed.png" "$M/ahead.png" "$M/whole.png" "$M/spec.npy" "$M/batch/brick.png"; do
    ok '[ "$(mode "$f")" = 640 ]' "$f: replaced file mode $(mode "$f"), expected 640 (kept)"
done

# ---- read-only outputs: refused without --overwrite, replaced (mode kept) with it --------------
R=$WORK/readonly
mkdir -p "$R"
for f in whole.png run.png streamed.png spec.npy; do
    cp "$IN" "$R/$f"
    chmod 444 "$R/$f"
done
expect 1 "read-only" gaussian --ksize 3 "$IN" "$R/whole.png"
expect 1 "read-only" run invert "$IN" "$R/run.png"
expect 1 "read-only" run invert "$BIG" "$R/streamed.png" --max-memory 32M
expect 1 "read-only" fft "$IN" "$R/spec.npy"
expect 1 "read-only" convert "$IN" "$R/whole.png"
for f in whole.png run.png streamed.png spec.npy; do
    ok 'cmp -s "$IN" "$R/$f"' "read-only $f was changed without --overwrite"
done
run 0 gaussian --ksize 3 --overwrite "$IN" "$R/whole.png"
run 0 run invert --overwrite "$IN" "$R/run.png"
run 0 run invert --overwrite "$BIG" "$R/streamed.png" --max-memory 32M
run 0 fft --overwrite "$IN" "$R/spec.npy"
for f in whole.png run.png streamed.png spec.npy; do
    ok '! cmp -s "$IN" "$R/$f"' "--overwrite did not replace read-only $f"
    ok '[ "$(mode "$R/$f")" = 444 ]' "$f: mode $(mode "$R/$f") after --overwrite, expected 444"
done
# The batch skips an existing output, read-only or not, unless --overwrite.
mkdir -p "$R/batch"
cp "$IN" "$R/batch/brick.png"
chmod 444 "$R/batch/brick.png"
run 0 run invert -i "$GRAY" -o "$R/batch" --quiet
ok 'cmp -s "$IN" "$R/batch/brick.png"' "the batch replaced a read-only output without --overwrite"
run 0 run invert -i "$GRAY" -o "$R/batch" --quiet --overwrite
ok '! cmp -s "$IN" "$R/batch/brick.png" && [ "$(mode "$R/batch/brick.png")" = 444 ]' \
    "the batch with --overwrite did not replace the read-only output (mode kept)"

# ---- streamed runs killed mid-write: nothing left once the next run is done --------------------
# GIP_NO_TMPFILE=1 takes the named temporary of file systems without O_TMPFILE.
for named in 0 1; do
    d=$WORK/killed$named
    mkdir -p "$d"
    GIP_NO_TMPFILE=$named "$GIP" run --threads 1 'gaussian 31 | gaussian 31 | gaussian 31' \
        "$BIG" "$d/out.png" --max-memory 32M >/dev/null 2>&1 &
    pid=$!
    # Wait until the output is being written: an unnamed file of the folder among the process's
    # descriptors (O_TMPFILE), or a temporary "out.png.*tmp" with some bytes in it.
    i=0
    while [ $i -lt 400 ]; do
        unnamed=0
        for fdl in /proc/"$pid"/fd/*; do
            case $(readlink "$fdl" 2>/dev/null) in "$d/#"*) unnamed=1 ;; esac
        done
        [ $unnamed -eq 1 ] && break
        [ -n "$(find "$d" -name 'out.png.*tmp' -size +0 2>/dev/null)" ] && break
        sleep 0.05
        i=$((i + 1))
    done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    checks=$((checks + 1))
    [ $i -lt 400 ] || fail "killed$named: the streamed run never showed its output file being written"
    ok '[ ! -e "$d/out.png" ]' "killed$named: a partial out.png appeared"
    if [ "$named" -eq 0 ]; then
        ok '[ -z "$(ls -A "$d")" ]' "killed$named: files left by the kill: $(ls -A "$d" | tr '\n' ' ')"
    fi
    export GIP_NO_TMPFILE=$named
    run 0 run invert "$IN" "$d/out.png"
    unset GIP_NO_TMPFILE
    ok '[ "$(ls -A "$d")" = out.png ]' \
        "killed$named: after the next run the folder holds $(ls -A "$d" | tr '\n' ' ')"
done

echo "outputs: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
