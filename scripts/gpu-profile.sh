#!/bin/sh
# SPDX-License-Identifier: MIT
# Nsight Compute on gip's own kernels, one benchmark row at a time, on the GPU machine: each
# OP:FORMAT:SIZE runs gip-bench for that row under `ncu --set full` (clocks left alone, as the
# device notes ask), profiling one launch of gip's kernels after a warm-up, and writes the report
# as text to $OUT/ncu-OP-FORMAT-SIZE.txt.
# Usage: scripts/gpu-profile.sh [BUILD_DIR] OP:FORMAT:SIZE ...
#   e.g. scripts/gpu-profile.sh build-gpu box3:u8c3:7680x4320 sobel_s16:u8c1:7680x4320
# NPP=1 profiles the row's NPP peers beside gip: every kernel of the run (KERNELS default
# 'regex:.'), the first COUNT launches (default 80: gip's, then each peer's warm-up and runs)
# with ncu's basic set (SET=full for everything), and lists each kernel's name and duration.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=build-gpu
case ${1:-} in *:*) ;; "") ;; *) BUILD=$1; shift ;; esac
DEST=${OUT:-out/gpu-profile}
mkdir -p "$DEST"
bench=$BUILD/gip-bench
[ -x "$bench" ] || { echo "gpu-profile.sh: no $bench (build with -DGIP_BUILD_BENCH=ON)" >&2; exit 1; }
command -v ncu >/dev/null 2>&1 || { echo "gpu-profile.sh: ncu not found" >&2; exit 1; }
# gip's kernels only (NPP's rows are left out of the run).
if [ "${NPP:-0}" = 1 ]; then
    KERNELS=${KERNELS:-'regex:.'}
else
    KERNELS=${KERNELS:-'regex:sep_tiled|sep_direct|f2d_|conv_|invert_kernel|stencil|map_|spectrum'}
fi
rc=0
for item in "$@"; do
    op=${item%%:*}; rest=${item#*:}; fmt=${rest%%:*}; size=${rest#*:}
    log="$DEST/ncu-$op-$fmt-$size.txt"
    if [ "${NPP:-0}" = 1 ]; then
        ncu --clock-control none --set "${SET:-basic}" -k "$KERNELS" --launch-skip "${SKIP:-0}" \
            --launch-count "${COUNT:-80}" "$bench" --ops "$op" --formats "$fmt" --sizes "$size" \
            --backend cuda --iters 2 --warmup 2 >"$log" 2>&1
    else
        ncu --clock-control none --set full -k "$KERNELS" --launch-skip "${SKIP:-2}" \
            --launch-count 1 "$bench" --ops "$op" --formats "$fmt" --sizes "$size" --backend cuda \
            --iters 2 --warmup 2 --no-npp >"$log" 2>&1
    fi || {
        echo "gpu-profile.sh: ncu failed on $item (see $log)" >&2
        rc=1
    }
    if [ "${NPP:-0}" = 1 ]; then
        # One line a launch: the kernel's name (ncu's header line) and its duration.
        awk '/^  [^ ].*\)x\(/ { k = $0; sub(/^  /, "", k); sub(/, Context .*/, "", k) }
            /Duration/ { print k ": " $(NF-1) " " $NF }' "$log" | head -80
        continue
    fi
    grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible" "$log" | head -20
done
exit $rc
