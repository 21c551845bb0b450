#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz and runs each for
# FUZZ_SECONDS (default 15), FUZZ_PAR at a time (default: the cores), then prints executions and
# coverage (cov, ft) from libFuzzer's final stats. A crash fails the run and its input is copied into
# tests/crashers/<target>/ (tests/test_crashers.c replays that folder in the normal test build).
#   FUZZ_SECONDS=600 scripts/fuzz.sh            every target, 10 minutes each
#   scripts/fuzz.sh png expr                    only these targets
# FUZZ_BUILD (build-fuzz), FUZZ_LOGS ($FUZZ_BUILD/logs), FUZZ_JOBS (build jobs, 2),
# FUZZ_TIMEOUT (seconds one input may take, 10): an input that runs longer is a finding (timeout-),
# like a crash, so that superlinear parsing fails the run instead of only slowing it down.
# The working corpus grows in $FUZZ_BUILD/corpus/<target> (seeded from fuzz/corpus/<target>), so
# the committed seeds stay small; `FUZZ_MERGE=1` merges new inputs back into fuzz/corpus (by
# coverage, -merge=1) for a maintainer to review and commit.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
FUZZ_SECONDS=${FUZZ_SECONDS:-15}
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_LOGS=${FUZZ_LOGS:-$FUZZ_BUILD/logs}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
CC=${CC:-clang}
CXX=${CXX:-clang++}
case "$CC" in *clang*) ;; *) echo "fuzz.sh: CC=$CC: libFuzzer needs clang" >&2; exit 2 ;; esac

# The library is instrumented too (coverage + sanitizers), OpenMP through clang's libomp.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
mkdir -p "$FUZZ_BUILD"
cmake -S fuzz -B "$FUZZ_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  >"$FUZZ_BUILD/configure.log" 2>&1 || { cat "$FUZZ_BUILD/configure.log"; exit 1; }
cmake --build "$FUZZ_BUILD" -j "$FUZZ_JOBS" >/dev/null

if [ $# -gt 0 ]; then
  targets="$*"
else
  targets=$(for f in fuzz/fuzz_*.c; do b=${f#fuzz/fuzz_}; echo "${b%.c}"; done | grep -v '^entries$')
fi

mkdir -p "$FUZZ_LOGS"
# Absolute paths: the CLI target runs in a scratch folder.
fuzz_abs=$(cd "$FUZZ_BUILD" && pwd)
export OMP_NUM_THREADS=1
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# One target (its result line into $FUZZ_LOGS/<target>.result; "FAILED" there fails the run).
run_one() {
  t=$1
  bin="$FUZZ_BUILD/fuzz_$t"
  res="$FUZZ_LOGS/$t.result"
  if [ ! -x "$bin" ]; then
    printf '%-12s %8s %12s %8s %8s %s\n' "$t" - - - - "FAILED (no target fuzz_$t)" >"$res"
    return
  fi
  corpus="$fuzz_abs/corpus/$t"
  artifacts="$fuzz_abs/artifacts/$t/"
  mkdir -p "$corpus" "$artifacts"
  rm -f "$artifacts"* # what an earlier run left
  if [ -d "fuzz/corpus/$t" ]; then cp -n "fuzz/corpus/$t"/* "$corpus/" 2>/dev/null || true; fi
  set -- -max_total_time="$FUZZ_SECONDS" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
         -print_final_stats=1 -artifact_prefix="$artifacts"
  [ -f "fuzz/dict/$t.dict" ] && set -- "$@" -dict="$root/fuzz/dict/$t.dict"
  case "$t" in
    cli) set -- "$@" -close_fd_mask=2 -max_len=512 ;; # the CLI prints every usage error
    expr) set -- "$@" -max_len=1024 ;;
    # Headers of tens of thousands of keys, where a parser's superlinear costs show (libFuzzer's
    # default, 4 KiB here, holds a few hundred).
    safetensors) set -- "$@" -max_len=1048576 ;;
  esac
  log="$FUZZ_LOGS/$t.log"
  start=$(date +%s)
  rc=0
  "$bin" "$@" "$corpus" >"$log" 2>&1 || rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  result=ok
  if [ "$rc" -ne 0 ]; then
    # crash- (signal, sanitizer report, abort), leak-, timeout- (FUZZ_TIMEOUT per input), oom-;
    # slow-unit- files are only informational and stay in the build folder.
    result="FAILED (rc $rc, log $log)"
    mkdir -p "tests/crashers/$t"
    for a in "$artifacts"crash-* "$artifacts"leak-* "$artifacts"timeout-* "$artifacts"oom-*; do
      [ -f "$a" ] || continue
      cp "$a" "tests/crashers/$t/"
      result="$result -> tests/crashers/$t/$(basename "$a")"
    done
  fi
  printf '%-12s %8s %12s %8s %8s %s\n' "$t" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$result" >"$res"
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    mkdir -p "fuzz/corpus/$t"
    "$bin" -merge=1 "fuzz/corpus/$t" "$corpus" >>"$log" 2>&1 || true
  fi
}

# The targets run FUZZ_PAR at a time (default: the cores; each is single-threaded), the results
# printed in the targets' order. (nproc answers OMP_NUM_THREADS when it is set, as it is above.)
FUZZ_PAR=${FUZZ_PAR:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 1)}
i=0
for t in $targets; do
  rm -f "$FUZZ_LOGS/$t.result"
  run_one "$t" &
  i=$((i + 1))
  [ $((i % FUZZ_PAR)) -eq 0 ] && wait
done
wait
failed=0
printf '%-12s %8s %12s %8s %8s %s\n' target seconds executions cov ft result
for t in $targets; do
  if [ -f "$FUZZ_LOGS/$t.result" ]; then cat "$FUZZ_LOGS/$t.result"; else echo "$t: no result"; failed=1; fi
  grep -q FAILED "$FUZZ_LOGS/$t.result" 2>/dev/null && failed=1
done
exit $failed
