#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the same pipeline steps through two gip programs (e.g. the tree's and an older build's)
# on seeded random images of the benchmark sizes and compares the outputs' bytes: a refactor that
# must leave integer results unchanged shows every line "same".
# Usage: sh scripts/hash-outputs.sh NEW_GIP OLD_GIP [SIZES] [--device cpu|cuda]
set -u
new=$1
old=$2
sizes=${3:-1920x1080,3840x2160}
device=${4:-cpu}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$sizes" <<'PY' || exit 1
import sys, numpy as np, cv2
work, sizes = sys.argv[1], sys.argv[2].split(",")
rng = np.random.default_rng(7)
for s in sizes:
    w, h = map(int, s.split("x"))
    cv2.imwrite(f"{work}/in_{s}.png", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
PY
cat >"$work/steps" <<'STEPS'
invert
gaussian 15
gaussian 5 sigma=1.3 border=reflect
box 3
box 5 normalize=0 | convert u8 scale=0.04
filter '1/9,1/9,1/9;1/9,1/9,1/9;1/9,1/9,1/9'
filter '0,-1,0;-1,5,-1;0,-1,0' border=replicate
sobel dx=1
sobel dy=1 ksize=5
sobel dx=1 ksize=scharr
edges
gray
convert u8 scale=0.5 offset=3
map 'out = 255 - in'
stencil radius=1 'out = (in(-1,0) + in(1,0)) / 2'
spectrum
gaussian 15 | sobel dx=1 | invert
STEPS
diff=0
total=0
for s in $(echo "$sizes" | tr , ' '); do
    while IFS= read -r step; do
        total=$((total + 1))
        if ! "$new" run "$step" "$work/in_$s.png" "$work/new.png" --device "$device" \
            --overwrite >/dev/null 2>&1; then
            echo "NEW FAILED: $s $step"
            diff=$((diff + 1))
            continue
        fi
        if ! "$old" run "$step" "$work/in_$s.png" "$work/old.png" --device "$device" \
            >/dev/null 2>&1; then
            echo "OLD FAILED: $s $step"
            diff=$((diff + 1))
            continue
        fi
        if python3 -c "import sys,cv2; a=cv2.imread(sys.argv[1],-1); b=cv2.imread(sys.argv[2],-1); sys.exit(0 if a.shape==b.shape and (a==b).all() else 1)" "$work/new.png" "$work/old.png"; then
            echo "same      $s $step"
        else
            echo "DIFFERENT $s $step"
            diff=$((diff + 1))
        fi
        rm -f "$work/new.png" "$work/old.png"
    done <"$work/steps"
done
echo "$((total - diff)) of $total outputs identical"
[ "$diff" -eq 0 ]
