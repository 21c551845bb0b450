#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the gip CLI on the sample images of data/ and writes the results to out/: devices, info,
# convert, gray, invert, box, filter, sobel, edges, the Fourier spectrum and an fft/ifft round trip,
# map and stencil expressions, resize, thumbnail, a warp, colour spaces, thresholds, morphology,
# Canny, median, CLAHE and statistics, and the Gaussian 15x15 timing loop on the CPU and, when one is
# usable, on the GPU. Builds nothing (`make demo` builds first).
# Usage: scripts/demo.sh [BUILD_DIR]   (default: build/ of the repository)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
GIP=$BUILD/gip
DATA=$ROOT/data
OUT=$ROOT/out
if [ ! -x "$GIP" ]; then
    echo "demo: $GIP does not exist: build first (make demo does)" >&2
    exit 1
fi
mkdir -p "$OUT"

# step ARGS...: prints and runs one gip command; the demo stops at the first failure.
step() {
    echo "+ gip $*"
    if ! "$GIP" "$@"; then
        echo "demo: failed: gip $*" >&2
        exit 1
    fi
}

echo "== devices"
step devices
gpu=0
if "$GIP" devices | grep -q ", usable$"; then
    gpu=1
fi

echo "== info on every sample"
for f in "$DATA"/*.png "$DATA"/*.jpg; do
    [ -f "$f" ] || continue
    step info "$f"
done

echo "== convert PNG -> JPEG"
for f in "$DATA"/*.png; do
    [ -f "$f" ] || continue
    step convert --quality 90 "$f" "$OUT/$(basename "$f" .png).jpg"
done

IN=$DATA/astronaut.png
echo "== filters on $(basename "$IN") (default device)"
step gray "$IN" "$OUT/astronaut_gray.png"
step invert "$IN" "$OUT/astronaut_invert.png"
step box --ksize 3 "$IN" "$OUT/astronaut_box3.png"
# The seed's hand-written 3x3 mean kernel, now with proper borders.
step filter --kernel '1/9,1/9,1/9;1/9,1/9,1/9;1/9,1/9,1/9' "$IN" "$OUT/astronaut_mean3.png"
step sobel --dx 1 --dy 0 "$IN" "$OUT/astronaut_sobel_dx.png"
step edges "$IN" "$OUT/astronaut_edges.png"

# The seed's spectrum program in one call, and the transforms underneath it.
BIG=$DATA/hubble_deep_field.jpg
echo "== Fourier spectrum of $(basename "$BIG") and of $(basename "$DATA/rocket.jpg")"
step spectrum --time "$BIG" "$OUT/hubble_spectrum.png"
step spectrum --log1p "$DATA/rocket.jpg" "$OUT/rocket_spectrum_log1p.png"
step fft "$DATA/rocket.jpg" "$OUT/rocket_rfft2.npy"
step ifft --width 640 "$OUT/rocket_rfft2.npy" "$OUT/rocket_fft_roundtrip.png"
echo "   (numpy: numpy.load('out/rocket_rfft2.npy') is numpy.fft.rfft2 of the gray image)"

# The seed's user kernels as expressions: invert, and the 3x3 mean made correct at the borders.
echo "== map and stencil expressions on $(basename "$IN")"
step map 'out = 255 - in' "$IN" "$OUT/astronaut_map_invert.png"
step stencil --radius 1 \
    'out = (in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in + in(1,0) + in(-1,1) + in(0,1) + in(1,1)) / 9' \
    "$IN" "$OUT/astronaut_stencil_mean3.png"
if cmp -s "$OUT/astronaut_stencil_mean3.png" "$OUT/astronaut_box3.png"; then
    echo "   stencil mean 3x3 == box 3x3, byte for byte"
else
    echo "demo: the stencil mean differs from the box filter" >&2
    exit 1
fi
step map 'out = clamp(a * k + b * (1 - k), 0, 255)' --scalar k=0.6 "$IN" "$DATA/brick.png" \
    "$OUT/astronaut_brick_blend.png"

# The everyday vocabulary: geometry, colour and thresholds, morphology and edges, statistics.
echo "== geometry, colour, morphology, edges and statistics on $(basename "$IN")"
step resize --dsize 256x256 --interpolation area "$IN" "$OUT/astronaut_resize256_area.png"
step thumbnail 128 "$BIG" "$OUT/hubble_thumb128.jpg"
step warp_affine '0.98,-0.17,50,0.17,0.98,-40' "$IN" "$OUT/astronaut_rotated.png"
step run 'cvt rgb2hsv' "$IN" "$OUT/astronaut_hsv.png"
step run 'gray | threshold_auto otsu' "$IN" "$OUT/astronaut_otsu.png"
step run 'gray | morphology open 5 ellipse | canny 50 150' "$IN" "$OUT/astronaut_canny.png"
step median 5 "$IN" "$OUT/astronaut_median5.png"
step run 'gray | clahe clip_limit=2' "$BIG" "$OUT/hubble_clahe.jpg"
step stats "$IN"
step hist "$IN" --plot "$OUT/astronaut_hist.png"

# The seed's timing loop: Gaussian 15x15, 100 runs, compute timed apart from transfers.
echo "== gaussian 15x15 x 100 on $(basename "$BIG"), CPU"
step gaussian --ksize 15 --repeat 100 --time --device cpu "$BIG" "$OUT/hubble_gaussian15_cpu.jpg"
if [ "$gpu" -eq 1 ]; then
    echo "== gaussian 15x15 x 100 on $(basename "$BIG"), GPU"
    step gaussian --ksize 15 --repeat 100 --time --device cuda "$BIG" \
        "$OUT/hubble_gaussian15_gpu.jpg"
else
    echo "== no usable CUDA device: the GPU run is skipped (see 'gip devices' above)"
fi
# Neural style transfer with the seeded random VGG19 (no download): a small CPU run, and the
# seed article's 512-pixel job on the GPU.
if [ "$gpu" -eq 1 ]; then
    echo "== style transfer: chelsea in the style of gravel, 512 px, 300 iterations, GPU"
    step style --device cuda --size 512 --iters 300 --progress 100 "$DATA/chelsea.png" \
        "$DATA/gravel.png" "$OUT/chelsea_gravel_style.png"
else
    echo "== style transfer: chelsea in the style of gravel, 128 px, 20 iterations, CPU"
    step style --device cpu --size 128 --iters 20 --progress 10 "$DATA/chelsea.png" \
        "$DATA/gravel.png" "$OUT/chelsea_gravel_style.png"
fi
echo "demo: outputs in $OUT"
