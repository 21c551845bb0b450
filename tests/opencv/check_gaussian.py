# SPDX-License-Identifier: MIT
"""Compares gip_gaussian_blur (CPU) with cv2.GaussianBlur on many random images and parameters.
u8 must be equal (gip reproduces OpenCV's 8-bit fixed-point path). u16: OpenCV 4.x/5 runs 16-bit
images through its own fixed-point path (kernels with 16 fraction bits, ufixedpoint32) while gip uses
float, so results may differ by a few units: accepted within 4 (of 65535). f32 within 1e-5 relative
+ 1e-4 absolute. cv2 refuses BORDER_WRAP for f32 (its float filter engine asserts); those cases are
counted and skipped.
Run: python3 tests/opencv/check_gaussian.py [--n N] [--lib path/to/libgip.so]
Exits 1 on any mismatch beyond those rules; prints a summary per case group."""
import argparse, sys
import numpy as np
import cv2

sys.path.insert(0, __import__("os").path.dirname(__file__))
import gipctypes

BORDERS = [cv2.BORDER_REFLECT_101, cv2.BORDER_REFLECT, cv2.BORDER_REPLICATE, cv2.BORDER_CONSTANT,
           cv2.BORDER_WRAP]
FIXED_SIZES = [(1, 1), (1, 17), (17, 1), (13, 42), (42, 13), (2, 3), (5, 5), (64, 48), (301, 77)]


def cases(rng, n):
    for i in range(n):
        w, h = FIXED_SIZES[i % len(FIXED_SIZES)] if i < 3 * len(FIXED_SIZES) else \
            (int(rng.integers(1, 200)), int(rng.integers(1, 120)))
        cn = [1, 3, 4][int(rng.integers(0, 3))]
        border = BORDERS[int(rng.integers(0, len(BORDERS)))]
        kind = int(rng.integers(0, 4))
        if kind == 0:  # ksize only (sigma from ksize, small tables)
            k = int(rng.integers(0, 16)) * 2 + 1
            ks, sx, sy = (k, int(rng.integers(0, 16)) * 2 + 1), 0.0, 0.0
        elif kind == 1:  # sigma only
            ks, sx, sy = (0, 0), float(rng.uniform(0.1, 5.0)), 0.0
        elif kind == 2:  # both, anisotropic
            ks = (int(rng.integers(0, 16)) * 2 + 1, int(rng.integers(0, 16)) * 2 + 1)
            sx, sy = float(rng.uniform(0.2, 6.0)), float(rng.uniform(0.2, 6.0))
        else:  # the benchmark case
            ks, sx, sy = (15, 15), 0.0, 0.0
        yield w, h, cn, border, ks, sx, sy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--lib")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    g = gipctypes.load(a.lib)
    rng = np.random.default_rng(a.seed)
    bad = 0
    stats = {}
    refused = {}
    for w, h, cn, border, ks, sx, sy in cases(rng, a.n):
        for dt in (np.uint8, np.uint16, np.float32):
            shape = (h, w, cn) if cn > 1 else (h, w)
            if dt == np.float32:
                img = rng.random(shape, dtype=np.float32) * 255
            else:
                img = rng.integers(0, np.iinfo(dt).max + 1, shape, dtype=dt)
            try:
                ref = cv2.GaussianBlur(img, ks, sx, sigmaY=sy, borderType=border)
            except cv2.error:
                # OpenCV refuses some combinations (BORDER_WRAP in its float filter engine).
                refused[(np.dtype(dt).name, border)] = refused.get((np.dtype(dt).name, border), 0) + 1
                continue
            got = g.gaussian_blur(img, ks, sx, sy, border)
            d = np.abs(got.astype(np.float64) - ref.astype(np.float64))
            if dt == np.uint8:
                ok = d.max() == 0
            elif dt == np.uint16:
                ok = d.max() <= 4
            else:
                ok = (d <= 1e-4 + 1e-5 * np.abs(ref)).all()
            key = np.dtype(dt).name
            s = stats.setdefault(key, [0, 0, 0.0])
            s[0] += 1
            s[2] = max(s[2], float(d.max()))
            if not ok:
                s[1] += 1
                bad += 1
                if bad <= 20:
                    print("MISMATCH %s %dx%dx%d border=%d ksize=%s sigma=%g/%g: max diff %g at %s"
                          % (key, w, h, cn, border, ks, sx, sy, d.max(),
                             np.unravel_index(np.argmax(d), d.shape)))
    for k, (n, nb, worst) in stats.items():
        print("%-8s %4d cases, %d mismatching, largest difference %g" % (k, n, nb, worst))
    for (k, b), n in sorted(refused.items()):
        print("cv2 refused %d %s cases with border %d" % (n, k, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
