#!/bin/sh
# SPDX-License-Identifier: MIT
# One call on the GPU machine: build gip-bench (Release, CUDA, NPP peers when found), time every
# row on the GPU and the CPU (and the run-time compilation of user kernels), time the peers (CuPy,
# PyTorch, OpenCV, numpy), then bench/report. Writes every JSON file, bench-report.md,
# bench-report.png and bench-logs.tgz (logs and summary) under $OUT (./out/bench when unset):
# eight files at most, what the device tool brings back. Each step has a time limit inside an
# overall budget (BENCH_BUDGET seconds, default 420)
# and a step that fails or is cut short never stops the others: its JSON says what it measured
# and the summary says why a peer is missing.
# Environment: OUT, BUILD (default build-bench; an existing CUDA build is reused), SIZES,
# THREADS (CPU threads for gip and OpenCV, default all cores), PYTHON, BENCH_BUDGET, ROW_TIME,
# STEPS (the steps to run, default all: gip-cuda peers-cupy peers-torch gip-cpu peers-cpu
# style py-overhead report), OPS (gip-bench operations, default all).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-out/bench}
BUILD=${BUILD:-build-bench}
SIZES=${SIZES:-1920x1080,3840x2160,7680x4320}
THREADS=${THREADS:-$(nproc)}
PYTHON=${PYTHON:-python3}
BUDGET=${BENCH_BUDGET:-420}
ROW_TIME=${ROW_TIME:-0.3}
mkdir -p "$OUT"
START=$(date +%s)
LOGS=$(mktemp -d /tmp/gip-bench-logs.XXXXXX)
SUMMARY="$LOGS/bench-summary.txt"
: >"$SUMMARY"
trap 'tar czf "$OUT/bench-logs.tgz" -C "$LOGS" . && rm -rf "$LOGS"' EXIT

say() { echo "$*" | tee -a "$SUMMARY"; }

# Seconds left of the budget, at most $1.
left() {
    l=$((BUDGET - ($(date +%s) - START)))
    [ "$l" -gt "$1" ] && l=$1
    [ "$l" -lt 0 ] && l=0
    echo "$l"
}

# step NAME CAP_SECONDS COMMAND...: prints and runs the command under a time limit, output to
# $LOGS/NAME.log and the terminal; SIGTERM first so that the harness writes what it measured.
step() {
    name=$1 cap=$2
    shift 2
    # STEPS (space-separated step names; default all) narrows a run, e.g. STEPS="gip-cuda".
    case " ${STEPS:-$name} " in *" $name "*) ;; *) return 0 ;; esac
    t=$(left "$cap")
    if [ "$t" -lt 5 ]; then
        say "$name: skipped: the time budget of ${BUDGET}s is spent"
        return 1
    fi
    echo "+ (limit ${t}s) $*"
    s0=$(date +%s)
    timeout -k 15 "$t" "$@" >"$LOGS/$name.log" 2>&1
    rc=$?
    tail -n 25 "$LOGS/$name.log"
    case $rc in
    0) say "$name: ok ($(($(date +%s) - s0))s)" ;;
    124 | 137) say "$name: cut short at ${t}s (rc $rc); its JSON holds the rows measured before" ;;
    *) say "$name: failed (rc $rc), see $name.log" ;;
    esac
    return $rc
}

say "bench-gpu: $(date -u +%Y-%m-%dT%H:%M:%SZ), sizes $SIZES, $THREADS CPU threads, budget ${BUDGET}s"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 |
    sed 's/^/gpu: /' | tee -a "$SUMMARY"

echo "+ cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DGIP_CUDA=ON -DGIP_BUILD_BENCH=ON"
if ! cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGIP_CUDA=ON -DGIP_BUILD_BENCH=ON \
    >"$LOGS/bench-configure.log" 2>&1; then
    say "configure: FAILED"
    tail -n 30 "$LOGS/bench-configure.log"
    exit 1
fi
grep -E "gip-bench: NPP|CUDA backend" "$LOGS/bench-configure.log" | tee -a "$SUMMARY"
echo "+ cmake --build $BUILD -j $(nproc) --target gip_bench gip_cli"
if ! cmake --build "$BUILD" -j "$(nproc)" --target gip_bench gip_cli >"$LOGS/bench-build.log" 2>&1; then
    say "build: FAILED"
    tail -n 40 "$LOGS/bench-build.log"
    exit 1
fi
say "build: ok"
BENCH="$BUILD/gip-bench"
"$BENCH" --list | tee "$LOGS/bench-ops.txt"

# GPU first: it is what this machine is for. Then the GPU peers, then the CPU side.
step gip-cuda 200 "$BENCH" --backend cuda --sizes "$SIZES" --time "$ROW_TIME" \
    ${OPS:+--ops "$OPS"} --json "$OUT/gip-cuda.json"
for peer in cupy torch; do
    step "peers-$peer" 120 "$PYTHON" bench/peers.py --peers "$peer" --sizes "$SIZES" \
        --time "$ROW_TIME" ${OPS:+--ops "$OPS"} --json "$OUT/peers-$peer.json"
    grep -h "unavailable" "$LOGS/peers-$peer.log" | tee -a "$SUMMARY"
done
step gip-cpu 120 "$BENCH" --backend cpu --threads "$THREADS" --sizes "$SIZES" \
    --time "$ROW_TIME" ${OPS:+--ops "$OPS"} --json "$OUT/gip-cpu.json"
# OpenCV, and the seed's spectrum in numpy (one thread, at least 3 runs per row).
step peers-cpu 120 "$PYTHON" bench/peers.py --peers opencv,numpy --threads "$THREADS" \
    --sizes "$SIZES" --time "$ROW_TIME" ${OPS:+--ops "$OPS"} --json "$OUT/peers-cpu.json"
grep -h "unavailable" "$LOGS/peers-cpu.log" | tee -a "$SUMMARY"

# Style transfer against PyTorch (issue 8): gip style and bench/style_torch.py, 300 iterations.
if [ -x "$BUILD/gip" ]; then
    step style 150 sh bench/style_bench.sh --device cuda --gip "$BUILD/gip" --out "$OUT/style.json"
fi

# The Python package's per-call overhead over the C call (issue 7), on the GPU and the CPU, when
# the package can be imported (gpu-check.sh puts the extension it built on PYTHONPATH).
if "$PYTHON" -c "import gip" 2>/dev/null; then
    step py-overhead 60 sh -c "$PYTHON bench/python_overhead.py --bench $BENCH --device cuda \
        --runs 5000 --json $OUT/python-overhead-cuda.json && $PYTHON bench/python_overhead.py \
        --bench $BENCH --device cpu --runs 5000 --json $LOGS/python-overhead-cpu.json"
else
    say "py-overhead: skipped: the gip package cannot be imported here"
fi

JSONS=""
for f in gip-cuda gip-cpu peers-cupy peers-torch peers-cpu; do
    [ -s "$OUT/$f.json" ] && JSONS="$JSONS $OUT/$f.json"
done
if [ -n "$JSONS" ]; then
    # shellcheck disable=SC2086 # JSONS is a list of paths without spaces
    step report 60 "$PYTHON" bench/report $JSONS --out "$OUT/bench-report"
else
    say "report: skipped: no JSON was written"
fi
say "bench-gpu: done in $(($(date +%s) - START))s; files in $OUT (logs in bench-logs.tgz):"
# shellcheck disable=SC2012 # a listing for the reader, not parsed
ls -l "$OUT" | tee -a "$SUMMARY"
