#!/bin/sh
# SPDX-License-Identifier: MIT
# gip's CPU threads on a busy machine: Sobel to s16 and Gaussian 15x15 at 3840x2160 u8c1, timed
# with gip's default threads, with one thread, and OpenCV with the same default, first on the idle
# machine, then with BUSY processes spinning in the background (as many as the cores by
# default), ROUNDS alternating rounds each. Prints the median ms of every row per round and a
# summary. Needs the build (gip-bench) and bench/peers.py's packages (numpy, opencv).
# OLD_BUILD=DIR also times another build's gip-bench (default threads) in the same rounds, for a
# before/after of a change.
# Usage: [BUILD=build] [OLD_BUILD=DIR] [ROUNDS=3] [BUSY=N] sh scripts/cpu-busy-bench.sh
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
BUSY=${BUSY:-$(nproc)}
OPS=sobel_s16,gaussian15
SIZE=3840x2160
out=$(mktemp -d) || exit 1
busy_pids=""
stop_busy() {
    # shellcheck disable=SC2086 # a list of process ids
    [ -n "$busy_pids" ] && kill $busy_pids 2>/dev/null
    busy_pids=""
}
trap 'stop_busy; rm -rf "$out"' EXIT
row() { # label json-file
    python3 - "$1" "$2" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
rows = d["rows"] if isinstance(d, dict) and "rows" in d else d
for r in rows:
    if r.get("format", "u8c1") != "u8c1":
        continue
    ms = r.get("median_ms", r.get("ms"))
    print(f"{label:16s} {r.get('impl', ''):7s} {r.get('op')}: {ms:.3f} ms")
PY
}
one_round() { # tag
    "$BUILD/gip-bench" --backend cpu --ops $OPS --formats u8c1 --sizes $SIZE --time 0.5 \
        --json "$out/gip-default.json" >/dev/null 2>&1 && row "$1 gip(auto)" "$out/gip-default.json"
    if [ -n "${OLD_BUILD:-}" ]; then
        "$OLD_BUILD/gip-bench" --backend cpu --ops $OPS --formats u8c1 --sizes $SIZE --time 0.5 \
            --json "$out/old.json" >/dev/null 2>&1 && row "$1 old(auto)" "$out/old.json"
    fi
    "$BUILD/gip-bench" --backend cpu --threads 1 --ops $OPS --formats u8c1 --sizes $SIZE \
        --time 0.5 --json "$out/gip-1.json" >/dev/null 2>&1 && row "$1 gip(1)" "$out/gip-1.json"
    python3 bench/peers.py --peers opencv --ops $OPS --formats u8c1 --sizes $SIZE --time 0.5 \
        --json "$out/cv.json" >/dev/null 2>&1 && row "$1 opencv" "$out/cv.json"
}
echo "== idle ($(nproc) cores, load $(cut -d' ' -f1-4 /proc/loadavg))"
r=1
while [ $r -le "$ROUNDS" ]; do one_round "idle#$r"; r=$((r + 1)); done
i=0
while [ $i -lt "$BUSY" ]; do
    sh -c 'while :; do :; done' &
    busy_pids="$busy_pids $!"
    i=$((i + 1))
done
sleep 1
echo "== busy: $BUSY spinning processes (load $(cut -d' ' -f1-4 /proc/loadavg))"
r=1
while [ $r -le "$ROUNDS" ]; do one_round "busy#$r"; r=$((r + 1)); done
stop_busy
