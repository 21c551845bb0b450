# SPDX-License-Identifier: MIT
"""Writes N ImageNet-like JPEGs (about 500x375, q90) cut from the bundled samples at varied crops,
sizes and aspects: the loader benchmark's data (bench/loader_bench.py, gip loader-bench).
Usage: python3 bench/make_loader_data.py OUT_DIR [N=2048]"""
import os
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    os.makedirs(out, exist_ok=True)
    folders = [os.path.join(ROOT, "..", "shared", "samples"), os.path.join(ROOT, "data")]
    folder = next(f for f in folders if os.path.isdir(f))
    srcs = [cv2.imread(os.path.join(folder, f), cv2.IMREAD_COLOR) for f in sorted(os.listdir(folder))
            if f.endswith((".png", ".jpg"))]
    srcs = [s for s in srcs if s is not None and min(s.shape[:2]) >= 200]
    rng = np.random.default_rng(2048)
    shapes = [(500, 375), (375, 500), (500, 333), (500, 400), (480, 360), (640, 427)]
    for i in range(n):
        s = srcs[i % len(srcs)]
        h, w = s.shape[:2]
        cw, ch = int(rng.integers(w // 3, w + 1)), int(rng.integers(h // 3, h + 1))
        x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        dw, dh = shapes[int(rng.integers(len(shapes)))]
        img = cv2.resize(s[y:y + ch, x:x + cw], (dw, dh), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.5:
            img = img[:, ::-1]
        cv2.imwrite(os.path.join(out, "img%05d.jpg" % i), img, [cv2.IMWRITE_JPEG_QUALITY, 90])


if __name__ == "__main__":
    main()
