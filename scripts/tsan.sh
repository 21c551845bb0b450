#!/bin/sh
# SPDX-License-Identifier: MIT
# ThreadSanitizer run of tests/test_concurrency.c, tests/test_stream.c (its decoding thread) and
# tests/test_batch.c (the batch engine's workers, decode gate and compute threads):
# clang -fsanitize=thread, CPU build (GIP_CUDA=OFF)
# into build-tsan, then the test; any TSan report fails the run.
# gip's own worker pool (src/core/parallel.c) is plain pthreads, which TSan sees. OpenMP remains
# under FFTW's threads: libgomp (GCC's) is not TSan-instrumented, so its barriers look like races.
# This build uses clang's libomp (-fopenmp=libomp, what CMake's FindOpenMP picks for clang) with its TSan
# tool, Archer (libarcher.so, loaded through OMP_TOOL_LIBRARIES), which tells TSan about OpenMP's
# synchronisation, so the contexts keep 2 OpenMP threads each. Without Archer the run falls back to
# one OpenMP thread per context (GIP_CONCURRENCY_OMP_THREADS=1, OMP_NUM_THREADS=1) and says so.
# FFTW's threading layer is not instrumented either; its plans are made under gip's cache lock.
#   TSAN_BUILD (build-tsan), TSAN_JOBS (2).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
TSAN_BUILD=${TSAN_BUILD:-build-tsan}
TSAN_JOBS=${TSAN_JOBS:-2}
CC=${CC:-clang}
CXX=${CXX:-clang++}
flags="-fsanitize=thread -fno-omit-frame-pointer -g -O1"
mkdir -p "$TSAN_BUILD"
cmake -S . -B "$TSAN_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGIP_CUDA=OFF \
  -DGIP_BUILD_BENCH=OFF -DGIP_BUILD_TOOLS=OFF -DGIP_BUILD_PYTHON=OFF \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  >"$TSAN_BUILD/configure.log" 2>&1 || { cat "$TSAN_BUILD/configure.log"; exit 1; }
cmake --build "$TSAN_BUILD" -j "$TSAN_JOBS" --target test_concurrency test_stream test_batch >/dev/null

archer=${ARCHER:-}
if [ -z "$archer" ]; then
  libdir=$("$CC" -print-resource-dir 2>/dev/null | sed 's|/lib/clang/.*|/lib|')
  for f in "$libdir/libarcher.so" /usr/lib/llvm-*/lib/libarcher.so; do
    [ -f "$f" ] && { archer=$f; break; }
  done
fi
if [ -n "$archer" ]; then
  export OMP_TOOL_LIBRARIES="$archer"
  export ARCHER_OPTIONS="${ARCHER_OPTIONS:-verbose=1}"
  echo "tsan.sh: OpenMP through libomp with Archer ($archer): 2 OpenMP threads per context"
else
  export OMP_NUM_THREADS=1 GIP_CONCURRENCY_OMP_THREADS=1
  echo "tsan.sh: no libarcher.so: one OpenMP thread per context (OMP_NUM_THREADS=1)"
fi
# scripts/tsan.supp silences only what libomp's own (uninstrumented) code does inside itself.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:exitcode=66:suppressions=$root/scripts/tsan.supp}"
"$TSAN_BUILD/tests/test_concurrency" cpu
GIP_TEST_NO_HUGE=1 "$TSAN_BUILD/tests/test_stream" cpu
"$TSAN_BUILD/tests/test_batch" cpu
