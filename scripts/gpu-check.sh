#!/bin/sh
# One call on the GPU machine: build with CUDA, run the whole test suite (GPU tests included), run
# the GPU tests again under compute-sanitizer (memcheck, initcheck and racecheck, long tests in slices),
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
cfg="-DCMAKE_BUILD_TYPE=Release -DGIP_CUDA=ON -DGIP_BUILD_BENCH=${BUILD_BENCH:-ON}"
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
    # PYTEST_ARGS narrows the run (files); PYTEST_TIMEOUT caps it (180 s).
    # shellcheck disable=SC2086 # PYTEST_ARGS is a list of arguments
    # PYTEST_K selects tests by keyword expression (e.g. "cuda or lifetime"); skips are listed.
    PYTHONPATH="$pkg" timeout "${PYTEST_TIMEOUT:-180}" python3 -m pytest -q -rs -p no:cacheprovider \
        ${PYTEST_K:+-k "$PYTEST_K"} ${PYTEST_ARGS:-python/tests} \
        >"$OUT/pytest.log" 2>&1
    prc=$?
    say "pytest: $(tail -1 "$OUT/pytest.log") (rc $prc)"
    grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -20 | tee -a "$summary"
    [ $prc -eq 0 ] || rc=1
    export PYTHONPATH="$pkg" # the benchmarks below time the package too
elif [ "${SKIP_PYTHON:-0}" = 1 ]; then
    say "pytest: not run (SKIP_PYTHON=1)"
else
    say "pytest: not run (no extension built: $(grep -m1 -i 'python' "$OUT/configure.log"))"
fi

# compute-sanitizer (memcheck, initcheck and racecheck) over every CUDA test but the one that
# faults on purpose, on the quick set (GIP_TEST_QUICK=1, gt_quick(): no 1001x777 image, and no
# small tiles on test_tile's 257x131 image). The long tests run in slices (GIP_TEST_SLICE=i/n,
# tests/support/testing.h): n processes that together run each case once, SAN_JOBS at a time. Each run is capped (SAN_CAP seconds) inside an overall budget
# (SAN_BUDGET) so that the script always ends inside the device tool's 10-minute call. API errors
# are not reported: the tests provoke some on purpose (device out of memory) and check gip's
# statuses.
san_fail=0
SAN_CAP=${SAN_CAP:-150}
SAN_BUDGET=${SAN_BUDGET:-300}
SAN_JOBS=${SAN_JOBS:-8} # sanitizer runs at once (the GPU machine has 16 cores)
SAN_SLICES=${SAN_SLICES:-8}
# racecheck of the box, Gaussian, Sobel and tile tests: 32 slices (with 8, most of Sobel's slices
# outlast the per-run cap when many runs share the GPU; tile runs one launch per 1x1 tile).
SAN_RACE_SLICES=${SAN_RACE_SLICES:-32}
san_start=$(date +%s)
# How many slices a test runs in under `tool`: the tests whose sweeps take minutes under the
# sanitizer are cut into SAN_SLICES.
slices_of() { # tool test-name
    case "$1:$2" in
    racecheck:test_box | racecheck:test_gaussian | racecheck:test_sobel | racecheck:test_tile)
        echo "$SAN_RACE_SLICES"; return ;;
    # racecheck of these ran past 150 s whole on an H100
    racecheck:test_median | racecheck:test_resize | racecheck:test_match_template | \
        racecheck:test_style | racecheck:test_transfer | racecheck:test_loader)
        echo "$SAN_SLICES"; return ;;
    # initcheck of these ran past 100 s whole on an H100 (loader and nvjpeg past 170 s)
    initcheck:test_flip | initcheck:test_rotate | initcheck:test_resize | \
        initcheck:test_warp_affine | initcheck:test_remap | initcheck:test_copy_make_border | \
        initcheck:test_loader | initcheck:test_nvjpeg)
        echo "$SAN_SLICES"; return ;;
    esac
    case "$2" in
    test_sobel | test_filter2d | test_pipeline | test_gaussian | test_box | test_conv2d | \
        test_tile | test_stream) echo "$SAN_SLICES" ;;
    *) echo 1 ;;
    esac
}
# A sanitizer run in the background: its log and exit status under $OUT/san/.
san_one() { # tool test-binary cap slice (i/n)
    base="$OUT/san/$(basename "$2").$1.$(echo "$4" | tr / of)"
    # The hardware JPEG decoder (the NVJPG engine) writes its output by DMA, which initcheck does
    # not see: it reports every byte of each hardware decode as uninitialised, both where nvJPEG's
    # own colour-conversion kernel reads it and where the test copies it to the host, although
    # those bytes equal libjpeg's decode exactly. For test_nvjpeg initcheck therefore leaves out
    # that kernel and the copy checks; its kernel reads in gip's own kernels stay checked.
    excl=""
    [ "$1" = initcheck ] && [ "$(basename "$2")" = test_nvjpeg ] &&
        excl="--kernel-name-exclude kns=rgba2rgb --check-api-memory-access no"
    # shellcheck disable=SC2086 # excl is a list of options
    GIP_TEST_QUICK=1 GIP_TEST_SLICE=$4 timeout "$3" compute-sanitizer --tool "$1" \
        --report-api-errors no --error-exitcode 99 $excl "$2" cuda >"$base.log" 2>&1
    echo $? >"$base.rc"
}
if command -v compute-sanitizer >/dev/null 2>&1; then
    mkdir -p "$OUT/san"
    runs=""
    started=0
    for tool in ${SAN_TOOLS:-memcheck initcheck racecheck}; do
        for t in "$BUILD"/tests/test_*; do
            name=$(basename "$t")
            # SAN_TESTS narrows the sanitizer runs (e.g. "test_box test_gaussian").
            case " ${SAN_TESTS:-$name} " in *" $name "*) ;; *) continue ;; esac
            [ "$name" = test_sticky ] && continue
            [ -x "$t" ] || continue
            n=$(slices_of "$tool" "$name")
            i=0
            while [ $i -lt "$n" ]; do
                # Started only while the budget lasts and the run can end inside the call.
                if [ $(($(date +%s) - san_start)) -ge "$SAN_BUDGET" ] ||
                    [ "$(remaining)" -lt $((SAN_CAP + 30)) ]; then
                    say "compute-sanitizer $tool $name $i/$n: not run (budget of ${SAN_BUDGET}s spent)"
                    i=$((i + 1))
                    continue
                fi
                # Running = started minus finished (each run leaves its .rc file when it ends).
                # shellcheck disable=SC2010 # the folder holds only this script's files
                while [ $((started - $(ls "$OUT/san" | grep -c '\.rc$'))) -ge "$SAN_JOBS" ]; do sleep 1; done
                san_one "$tool" "$t" "$SAN_CAP" "$i/$n" &
                started=$((started + 1))
                runs="$runs $tool:$name:$i/$n"
                i=$((i + 1))
            done
        done
    done
    wait
    log="$OUT/sanitizer.log"
    for run in $runs; do
        tool=${run%%:*}; rest=${run#*:}; name=${rest%%:*}; slice=${rest#*:}
        one="$OUT/san/$name.$tool.$(echo "$slice" | tr / of).log"
        r=$(cat "$OUT/san/$name.$tool.$(echo "$slice" | tr / of).rc" 2>/dev/null || echo 1)
        { echo "== $tool $name slice $slice"; cat "$one"; } >>"$log"
        # A CPU-only test skips its CUDA run before any CUDA call: the sanitizer then says
        # the target ended before the first instrumented API call (exit 255).
        if [ "$r" -eq 255 ] && grep -q "^SKIP:" "$one" &&
            grep -q "terminated before first instrumented API call" "$one"; then
            say "compute-sanitizer $tool $name: skipped ($(grep -m1 '^SKIP:' "$one"))"
            continue
        fi
        checks=$(grep -m1 -E '^[a-z_0-9]+: [0-9]+ checks' "$one" | sed 's/^[a-z_0-9]*: //')
        case $r in
        0) say "compute-sanitizer $tool $name $slice: clean ($checks)" ;;
        124) say "compute-sanitizer $tool $name $slice: CUT at ${SAN_CAP}s (no error seen before)"; san_fail=1 ;;
        *) say "compute-sanitizer $tool $name $slice: ERRORS rc $r (see sanitizer.log)"; san_fail=1 ;;
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
