#!/bin/sh
# One call on the GPU machine: build with CUDA, run the whole test suite (GPU tests included), run
# the GPU tests again under compute-sanitizer (memcheck and initcheck; racecheck on the filters),
# then the GPU benchmarks. Logs are packed into $OUT/gpu-check.tgz (the device tool brings back at
# most 8 files) with summary.txt beside it. Prints a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
DEST=${OUT:-out/gpu-check}
OUT=$(mktemp -d /tmp/gip-gpu-check.XXXXXX)
mkdir -p "$DEST"
pack() {
    cp "$OUT/summary.txt" "$DEST/" 2>/dev/null
    cp "$OUT"/bench/*.md "$OUT"/bench/*.png "$DEST/" 2>/dev/null # the JSON files are in the tgz
    tar czf "$DEST/gpu-check.tgz" -C "$OUT" .
}
trap pack EXIT
BUILD=${BUILD:-build-gpu}
# The whole call ends inside TOTAL_BUDGET seconds (the device tool kills a call at 600 s, and a
# killed call would leave the logs unpacked): the sanitizer and the benchmarks get what is left.
TOTAL_BUDGET=${TOTAL_BUDGET:-560}
T0=$(date +%s)
remaining() { echo $((TOTAL_BUDGET - ($(date +%s) - T0))); }
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(cat "$OUT/gpu.txt")"
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"

# The Python extension is built too when this machine has CPython's headers (then the Python
# tests run on the GPU below); otherwise the library alone.
cfg="-DCMAKE_BUILD_TYPE=Release -DGIP_CUDA=ON -DGIP_BUILD_BENCH=ON"
# shellcheck disable=SC2086 # cfg is a list of options
if ! cmake -S . -B "$BUILD" $cfg -DGIP_BUILD_PYTHON=ON >"$OUT/configure.log" 2>&1; then
    cmake -S . -B "$BUILD" $cfg -DGIP_BUILD_PYTHON=OFF >>"$OUT/configure.log" 2>&1
fi
if ! cmake --build "$BUILD" -j "$(nproc)" >"$OUT/build.log" 2>&1; then
    say "BUILD FAILED"; tail -40 "$OUT/build.log" "$OUT/configure.log"; exit 1
fi
say "build: ok ($(($(date +%s) - T0))s)"

# CTEST_ARGS narrows the run (e.g. "-R _cuda"); the default is the whole suite.
# shellcheck disable=SC2086 # CTEST_ARGS is a list of options
ctest --test-dir "$BUILD" --output-on-failure -j 8 --timeout 120 ${CTEST_ARGS:-} >"$OUT/ctest.log" 2>&1
rc=$?
say "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1) (rc $rc, $(($(date +%s) - T0))s)"
grep -E "Failed|\*\*\*" "$OUT/ctest.log" | tee -a "$summary"

# The Python suite against the extension just built (GPU tests included: CuPy and PyTorch are
# on the GPU machine), through a package folder assembled in /tmp.
# shellcheck disable=SC2012 # the build names the extension _gip<suffix>.so: no odd characters
ext=$(ls "$BUILD"/python/_gip*.so 2>/dev/null | head -1)
if [ -n "$ext" ] && [ "${SKIP_PYTHON:-0}" != 1 ]; then
    pkg=$(mktemp -d /tmp/gip-py.XXXXXX)
    mkdir -p "$pkg/gip" && cp python/gip/*.py python/gip/py.typed "$pkg/gip/" && cp "$ext" "$pkg/gip/"
    PYTHONPATH="$pkg" timeout 180 python3 -m pytest -q -p no:cacheprovider python/tests \
        >"$OUT/pytest.log" 2>&1
    prc=$?
    say "pytest: $(tail -1 "$OUT/pytest.log") (rc $prc)"
    grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -20 | tee -a "$summary"
    [ $prc -eq 0 ] || rc=1
    export PYTHONPATH="$pkg" # the benchmarks below time the package too
else
    say "pytest: not run (no extension built: $(grep -m1 -i 'python' "$OUT/configure.log"))"
fi

# compute-sanitizer (memcheck, initcheck; racecheck on the filters) over every CUDA test but the
# one that faults on purpose, on the quick size
# set (GIP_TEST_QUICK=1 drops 1001x777), each run capped (SAN_CAP seconds) inside an overall budget
# (SAN_BUDGET) so that the script always ends inside the device tool's 10-minute call; SAN_JOBS
# runs at once. API errors
# are not reported: the tests provoke some on purpose (device out of memory) and check gip's
# statuses.
san_fail=0
SAN_CAP=${SAN_CAP:-90}
SAN_RACE_CAP=${SAN_RACE_CAP:-240} # racecheck on the filters takes minutes per test
SAN_BUDGET=${SAN_BUDGET:-200}
SAN_JOBS=${SAN_JOBS:-4} # sanitizer runs at once (the GPU machine has 16 cores)
san_start=$(date +%s)
# A sanitizer run in the background: its log and exit status under $OUT/san/.
san_one() { # tool test-binary cap
    base="$OUT/san/$(basename "$2").$1"
    GIP_TEST_QUICK=1 timeout "$3" compute-sanitizer --tool "$1" --report-api-errors no \
        --error-exitcode 99 "$2" cuda >"$base.log" 2>&1
    echo $? >"$base.rc"
}
if command -v compute-sanitizer >/dev/null 2>&1; then
    mkdir -p "$OUT/san"
    runs=""
    started=0
    for t in "$BUILD"/tests/test_*; do
        name=$(basename "$t")
        # SAN_TESTS narrows the sanitizer runs (e.g. "test_box test_gaussian").
        case " ${SAN_TESTS:-$name} " in *" $name "*) ;; *) continue ;; esac
        [ "$name" = test_sticky ] && continue
        [ -x "$t" ] || continue
        # SAN_TOOLS replaces the tools (e.g. "memcheck"); by default memcheck and initcheck
        # everywhere and racecheck on the shared-memory filters.
        tools="memcheck initcheck"
        # test_nvjpeg: memcheck only. The hardware JPEG decoder's writes are invisible to
        # initcheck, which then flags nvJPEG's own rgba2rgb kernel reading them (H200, 16:59 UTC
        # 2026-12-02: 100 reports, all in that kernel).
        case "$name" in
        test_gaussian|test_box|test_filter2d|test_sobel|test_invert) tools="memcheck initcheck racecheck" ;;
        test_nvjpeg) tools="memcheck" ;;
        esac
        tools=${SAN_TOOLS:-$tools}
        for tool in $tools; do
            cap=$SAN_CAP
            [ "$tool" = racecheck ] && cap=$SAN_RACE_CAP
            # Started only while the budget lasts and the run can end inside the call.
            if [ $(($(date +%s) - san_start)) -ge "$SAN_BUDGET" ] || [ "$(remaining)" -lt $((cap + 30)) ]; then
                say "compute-sanitizer $tool $name: not run (budget of ${SAN_BUDGET}s spent)"
                continue
            fi
            # Running = started minus finished (each run leaves its .rc file when it ends).
            # shellcheck disable=SC2010 # the folder holds only this script's <test>.<tool> files
            while [ $((started - $(ls "$OUT/san" | grep -c '\.rc$'))) -ge "$SAN_JOBS" ]; do sleep 1; done
            san_one "$tool" "$t" "$cap" &
            started=$((started + 1))
            runs="$runs $tool:$name:$cap"
        done
    done
    wait
    log="$OUT/sanitizer.log"
    for run in $runs; do
        tool=${run%%:*}; rest=${run#*:}; name=${rest%%:*}; cap=${rest#*:}
        one="$OUT/san/$name.$tool.log"
        r=$(cat "$OUT/san/$name.$tool.rc" 2>/dev/null || echo 1)
        { echo "== $tool $name"; cat "$one"; } >>"$log"
        # A CPU-only test skips its CUDA run before any CUDA call: the sanitizer then says
        # the target ended before the first instrumented API call (exit 255).
        if [ "$r" -eq 255 ] && grep -q "^SKIP:" "$one" &&
            grep -q "terminated before first instrumented API call" "$one"; then
            say "compute-sanitizer $tool $name: skipped ($(grep -m1 '^SKIP:' "$one"))"
            continue
        fi
        case $r in
        0) say "compute-sanitizer $tool $name: clean" ;;
        124) say "compute-sanitizer $tool $name: cut at ${cap}s (no error seen before)" ;;
        *) say "compute-sanitizer $tool $name: ERRORS rc $r (see sanitizer.log)"; san_fail=1 ;;
        esac
    done
    rm -rf "$OUT/san"
else
    say "compute-sanitizer: not found"
fi

if [ -x scripts/bench-gpu.sh ] && [ "${SKIP_BENCH:-0}" != 1 ]; then
    # The whole call must end inside the device tool's 10 minutes: the benchmarks get what is left.
    bb=${BENCH_BUDGET:-220}
    r=$(($(remaining) - 20))
    [ "$r" -lt "$bb" ] && bb=$r
    say "bench: budget ${bb}s"
    BENCH_BUDGET=$bb BUILD="$BUILD" OUT="$OUT/bench" sh scripts/bench-gpu.sh >"$OUT/bench.log" 2>&1
    say "bench: rc $? (bench.log)"
    tail -60 "$OUT/bench.log"
fi

echo "==== summary"
cat "$summary"
[ $rc -eq 0 ] && [ $san_fail -eq 0 ]
