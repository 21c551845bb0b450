#!/bin/sh
# SPDX-License-Identifier: MIT
# The style-transfer benchmark of issue 8: `gip style` and the PyTorch script bench/style_torch.py
# on the same problem (random VGG19 of seed 0, content conv4_2, style conv1_1..conv5_1, 512x512
# astronaut in the style of gravel, L-BFGS history 100 without line search, 300 iterations), each
# timed by itself with preparation excluded, in one run; writes one JSON with both and the ratio.
# Usage: bench/style_bench.sh [--device cuda|cpu] [--size N] [--iters N] [--gip PATH] [--out FILE]
#        (defaults: cuda, 512, 300, build/gip, bench-style.json)
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEVICE=cuda
SIZE=512
ITERS=300
GIP=$ROOT/build/gip
OUT=bench-style.json
PY=${PYTHON:-python3}
while [ $# -gt 0 ]; do
    case $1 in
    --device) DEVICE=$2 ;;
    --size) SIZE=$2 ;;
    --iters) ITERS=$2 ;;
    --gip) GIP=$2 ;;
    --out) OUT=$2 ;;
    *)
        echo "style_bench.sh: unknown option $1" >&2
        exit 2
        ;;
    esac
    shift 2
done
CONTENT=$ROOT/data/astronaut.png
STYLE=$ROOT/data/gravel.png
TMP=${TMPDIR:-/tmp}/gip-style-bench.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

echo "== gip style ($DEVICE, ${SIZE} px, $ITERS iterations, history 100, no line search)"
"$GIP" style --device "$DEVICE" --size "$SIZE" --iters "$ITERS" --history 100 --line-search none \
    --progress 50 "$CONTENT" "$STYLE" "$TMP/gip.png" 2>"$TMP/gip.log" || {
    cat "$TMP/gip.log" >&2
    exit 1
}
cat "$TMP/gip.log"
echo "== PyTorch"
"$PY" "$ROOT/bench/style_torch.py" --device "$DEVICE" --size "$SIZE" --iters "$ITERS" \
    --history 100 --content "$CONTENT" --style "$STYLE" --json "$TMP/torch.json"

"$PY" - "$TMP/gip.log" "$TMP/torch.json" "$OUT" "$DEVICE" "$SIZE" "$ITERS" <<'EOF'
import json, re, sys
log, tj, out, device, size, iters = sys.argv[1:]
text = open(log).read()
m = re.search(r"done: (\d+) iterations, (\d+) evaluations, ([0-9.]+) s optimising.*?"
              r"([0-9.]+) ms per evaluation", text)
if not m:
    sys.exit("style_bench.sh: no summary line in gip's output")
last = re.findall(r"loss ([0-9.eE+-]+)", text)
doc = json.load(open(tj))
torch_row = next(r for r in doc["rows"] if r["op"] == "style_lbfgs")
w, h = torch_row["width"], torch_row["height"]
gip_row = {"op": "style_lbfgs", "size": f"{w}x{h}", "width": w, "height": h, "format": "f32c3",
           "backend": device, "impl": "gip", "status": "ok", "ms": 1e3 * float(m.group(3)),
           "iterations": int(m.group(1)), "evaluations": int(m.group(2)),
           "ms_per_eval": float(m.group(4)),
           "final_loss": float(last[-1]) if last else None,
           "note": "gip style --line-search none --history 100, preparation excluded"}
doc["tool"] = "style_bench.sh"
doc["rows"].insert(0, gip_row)
ratio = gip_row["ms"] / torch_row["ms"]
doc["ratio"] = {"gip_over_torch_total": ratio,
                "gip_over_torch_per_eval": gip_row["ms_per_eval"] / torch_row["ms_per_eval"],
                "goal": 0.7}
json.dump(doc, open(out, "w"), indent=1)
print(f"\ngip   {gip_row['ms'] / 1e3:8.3f} s, {gip_row['evaluations']} evaluations, "
      f"{gip_row['ms_per_eval']:.3f} ms each, final loss {gip_row['final_loss']}")
print(f"torch {torch_row['ms'] / 1e3:8.3f} s, {torch_row['evaluations']} evaluations, "
      f"{torch_row['ms_per_eval']:.3f} ms each, final loss {torch_row['final_loss']:.6g}")
print(f"gip / torch: {ratio:.3f} of the time (goal <= 0.7); json: {out}")
EOF
