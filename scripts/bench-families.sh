#!/bin/sh
# SPDX-License-Identifier: MIT
# The rows of the operation families (issues 39-42) on the GPU machine: gip-bench once per family
# (geometry, colour, morphology, statistics; an NPP peer that faults ends its own family's
# process, not the others'), then CuPy and PyTorch (bench/peers.py) on the same rows, then
# bench/report. JSON, report and logs under $OUT (./out/bench-families when unset).
# Environment: OUT, BUILD (default build-gpu; configured here with the benchmark on),
# SIZES (default 3840x2160,7680x4320), ROW_TIME (default 0.15), CAP (seconds per family, 60),
# PEER_CAP (seconds per peer library, 90), FAMILIES (default "mor geo col sta"), PEERS (default
# "cupy torch"; empty: gip and NPP only).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-out/bench-families}
BUILD=${BUILD:-build-gpu}
SIZES=${SIZES:-3840x2160,7680x4320}
ROW_TIME=${ROW_TIME:-0.15}
mkdir -p "$OUT"
LOGS=$(mktemp -d /tmp/gip-bench-families.XXXXXX)
trap 'tar czf "$OUT/logs.tgz" -C "$LOGS" . && rm -rf "$LOGS"' EXIT
T0=$(date +%s)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGIP_CUDA=ON -DGIP_BUILD_BENCH=ON \
    >"$LOGS/configure.log" 2>&1 || { tail -30 "$LOGS/configure.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target gip_bench >"$LOGS/build.log" 2>&1 ||
    { tail -30 "$LOGS/build.log"; exit 1; }
grep "NPP peers" "$LOGS/configure.log"
echo "build: $(($(date +%s) - T0))s"

# The rows of each family (bench/ops.c's morphology rows, ops_geometry.c, ops_color.c,
# ops_stats.c); copy gives each family's JSON the copy row beside the measured bandwidth.
rows_of() {
    case $1 in
    mor) echo erode3,erode15,open5_ellipse,median3,median5,median15,bilateral9,laplacian3,canny3_l2 ;;
    geo) echo resize_linear_d2,resize_linear_d17,resize_linear_u2,resize_area_d2,resize_area_d17,resize_area_u2,resize_cubic_d2,resize_cubic_d17,resize_cubic_u2,warp_affine_rot10,warp_perspective,remap_linear,flip_h,rotate90 ;;
    col) echo hsv,lab,nv12_bgr,bayer_bgr,threshold,addweighted,lut,normalize,point3,point3_nofuse,point3_cvt,point3_mad,point3_thr ;;
    sta) echo hist256,equalize_hist,clahe8,minmax_loc,meanstd,integral,match32,match256,ccl ;;
    esac
}
ALL=""
for f in ${FAMILIES:-mor geo col sta}; do
    o=$(rows_of "$f")
    ALL=${ALL:+$ALL,}$o
    timeout -k 10 "${CAP:-60}" "$BUILD/gip-bench" --backend cuda --sizes "$SIZES" --time "$ROW_TIME" \
        --ops "copy,$o" --json "$OUT/gip-$f.json" >"$LOGS/gip-$f.log" 2>&1
    echo "gip-$f: rc $? ($(($(date +%s) - T0))s)"
    grep -E " error| unavailable" "$LOGS/gip-$f.log" | head -8
done
for p in ${PEERS-cupy torch}; do
    timeout -k 10 "${PEER_CAP:-90}" python3 bench/peers.py --peers "$p" --sizes "$SIZES" \
        --time "$ROW_TIME" --ops "$ALL" --json "$OUT/peers-$p.json" >"$LOGS/peers-$p.log" 2>&1
    echo "peers-$p: rc $? ($(($(date +%s) - T0))s)"
    grep -E "error|unavailable" "$LOGS/peers-$p.log" | head -8
done
python3 bench/report "$OUT"/*.json --out "$OUT/report" >"$LOGS/report.log" 2>&1
echo "report: rc $?"
