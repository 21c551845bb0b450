#!/bin/sh
# SPDX-License-Identifier: MIT
# Whole-file benchmark of issue 9: N 4K JPEGs (q90) through a Gaussian 15x15 to JPEG q90, timed
# for `gip run 'gaussian 15'` (batch engine; --decoder auto uses nvJPEG on CUDA), OpenCV's
# equivalent on the same files, with --device cuda the torchvision peer (bench/pipeline_torch.py:
# batched nvJPEG decode, separable conv2d, GPU encode), and the CPU file-to-file case of one 4K JPEG:
# the whole `gip run` process against the whole `vips gaussblur` process (sigma 2.6), in one run.
# Writes JSON (gip-bench style) to stdout or --json FILE.
# Usage: bench/pipeline_bench.sh [--gip PATH] [-n N] [--device auto|cpu|cuda] [--jobs J]
#                                [--decoder auto|cpu|nvjpeg] [--work DIR] [--json FILE] [--repeat R]
# The issue's GPU case: bench/pipeline_bench.sh -n 64 --device cuda
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
GIP=${GIP:-$root/build/gip}
N=16
DEVICE=auto
JOBS=$(nproc)
GIP_JOBS= # gip's own default unless --jobs is given (at most 8 workers a GPU with nvJPEG)
WORK=${TMPDIR:-/tmp}/gip_pipeline_bench
JSON=
REPEAT=2
DECODER=auto
while [ $# -gt 0 ]; do
    case $1 in
    --gip) GIP=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --device) DEVICE=$2; shift 2 ;;
    --jobs) JOBS=$2; GIP_JOBS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --decoder) DECODER=$2; shift 2 ;;
    *) echo "pipeline_bench.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
# The sample, found as scripts/demo.sh finds data/: the repository's data/ folder.
SAMPLE=$root/data/hubble_deep_field.jpg
[ -f "$SAMPLE" ] || { echo "pipeline_bench.sh: no sample at $SAMPLE" >&2; exit 1; }
[ -x "$GIP" ] || { echo "pipeline_bench.sh: no gip at $GIP (build first)" >&2; exit 1; }

mkdir -p "$WORK"
if [ "$(ls "$WORK/in" 2>/dev/null | wc -l)" -ne "$N" ]; then
    rm -rf "$WORK/in"
    python3 "$here/pipeline_peer.py" make --sample "$SAMPLE" --dir "$WORK/in" -n "$N" >"$WORK/make.json"
fi

# gip: best of REPEAT runs; the summary line gives images/s and the time per stage.
best=
for r in $(seq "$REPEAT"); do
    rm -rf "$WORK/out_gip"
    "$GIP" run 'gaussian 15' -i "$WORK/in" -o "$WORK/out_gip" --format jpg --quality 90 \
        ${GIP_JOBS:+--jobs "$GIP_JOBS"} --device "$DEVICE" --decoder "$DECODER" >"$WORK/gip_$r.txt"
    rate=$(sed -n 's/.*: \([0-9.]*\) images\/s$/\1/p' "$WORK/gip_$r.txt")
    if [ -z "$best" ] || awk "BEGIN { exit !($rate > $best) }"; then best=$rate; bestf=$WORK/gip_$r.txt; fi
done
stages=$(sed -n 's/^time per image (summed over threads): //p' "$bestf")
device=$(sed -n 's/^device: //p' "$bestf")
python3 "$here/pipeline_peer.py" opencv --dir "$WORK/in" --out "$WORK/out_cv" --threads "$JOBS" \
    --repeat "$REPEAT" >"$WORK/cv.json"
: >"$WORK/torch.json"
if [ "$DEVICE" = cuda ]; then
    python3 "$here/pipeline_torch.py" --dir "$WORK/in" --out "$WORK/out_torch" \
        --repeat "$REPEAT" >"$WORK/torch.json" || echo "pipeline_bench.sh: torchvision peer failed" >&2
fi
# CPU file to file, one 4K JPEG, whole processes: gip run (CPU) against vips gaussblur (sigma 2.6,
# which is OpenCV's sigma for ksize 15); median of 7 runs each, alternating.
one=$(ls "$WORK/in" | head -n 1)
: >"$WORK/single.json"
if command -v vips >/dev/null 2>&1; then
    python3 - "$GIP" "$WORK/in/$one" "$WORK" >"$WORK/single.json" <<'PY'
import json, statistics, subprocess, sys, time
gip, src, work = sys.argv[1:4]
cmds = {"gip_run_file_cpu": [gip, "run", "gaussian 15", src, work + "/single_gip.jpg",
                             "--quality", "90", "--device", "cpu", "--max-memory", "16G"],
        "vips_gaussblur": ["vips", "gaussblur", src, work + "/single_vips.jpg[Q=90]", "2.6"]}
times = {k: [] for k in cmds}
for _ in range(7):
    for k, c in cmds.items():
        t = time.perf_counter()
        subprocess.run(c, check=True, stdout=subprocess.DEVNULL)
        times[k].append(time.perf_counter() - t)
for k, v in times.items():
    print(json.dumps({"name": k, "ms_median": statistics.median(v) * 1e3,
                      "ms_min": min(v) * 1e3, "runs": len(v)}))
PY
else
    echo "pipeline_bench.sh: vips not found (apt-get install libvips-tools); CPU single-file case skipped" >&2
fi

python3 - "$WORK" "$N" "${GIP_JOBS:-default}" "$best" "$stages" "$device" >"${JSON:-/dev/stdout}" <<'PY'
import datetime, json, os, platform, socket, sys
work, n, jobs, rate, stages, device = sys.argv[1:7]
def cpu():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
rows = [{"name": "gip_run_gaussian15", "images": int(n), "jobs": int(jobs) if jobs.isdigit() else jobs,
         "images_per_s": float(rate), "device": device,
         "ms_per_image_by_stage": {k.split()[0]: float(k.split()[1])
                                   for k in stages.split(", ") if k}}]
for extra in ("cv.json", "torch.json", "single.json"):
    rows += [json.loads(l) for l in open(os.path.join(work, extra)) if l.strip()]
cvp = next(r for r in rows if r["name"] == "opencv_pipeline")
byname = {r["name"]: r for r in rows}
doc = {"schema": "gip-bench/1", "tool": "pipeline_bench.sh",
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "machine": {"hostname": socket.gethostname(), "cpu": cpu(), "cores": os.cpu_count()},
       "input": json.load(open(os.path.join(work, "make.json"))),
       "rows": rows,
       "ratio_gip_over_opencv": float(rate) / cvp["images_per_s"]}
if "torchvision_pipeline" in byname:
    doc["ratio_gip_over_torchvision"] = float(rate) / byname["torchvision_pipeline"]["images_per_s"]
if "vips_gaussblur" in byname:
    doc["ratio_gip_single_file_time_over_vips"] = (byname["gip_run_file_cpu"]["ms_median"] /
                                                   byname["vips_gaussblur"]["ms_median"])
json.dump(doc, sys.stdout, indent=1)
print()
PY
