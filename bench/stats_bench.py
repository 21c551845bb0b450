"""Times gip's CPU statistics reductions against cv2 on 3840x2160 u8 and f32 images (median of
several runs, milliseconds). Usage: PYTHONPATH=<dir holding the gip package> python3 stats_bench.py"""
import sys
import time

import cv2
import numpy as np

import gip


def med(fn, n=15):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2] * 1e3


def main():
    rng = np.random.default_rng(0)
    h, w = 2160, 3840
    imgs = {
        "u8": rng.integers(0, 256, (h, w), dtype=np.uint8),
        "u8 (1..254)": rng.integers(1, 255, (h, w), dtype=np.uint8),
        "f32": rng.random((h, w), dtype=np.float32),
    }
    cv2.setNumThreads(2)
    print("%-28s %9s %9s" % ("op", "gip ms", "cv2 ms"))
    for name, a in imgs.items():
        cases = [
            ("minMaxLoc", lambda m: m.minMaxLoc(a)),
            ("meanStdDev", lambda m: m.meanStdDev(a)),
            ("norm L1", lambda m: m.norm(a, m.NORM_L1)),
            ("norm L2", lambda m: m.norm(a, m.NORM_L2)),
            ("norm INF", lambda m: m.norm(a, m.NORM_INF)),
            ("sumElems", lambda m: m.sumElems(a)),
            ("countNonZero", lambda m: m.countNonZero(a)),
            ("calcHist 256", lambda m: m.calcHist([a], [0], None, [256], [0, 256 if a.dtype == np.uint8 else 1.0])),
        ]
        for op, fn in cases:
            g, c = med(lambda: fn(gip)), med(lambda: fn(cv2))
            print("%-28s %9.3f %9.3f" % (name + " " + op, g, c))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
