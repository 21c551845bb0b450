"""Times gip.resize against cv2.resize (IPP off and default) on 3840x2160 u8 images.

PYTHONPATH=<gip package dir> python3 bench/resize_bench.py [--cubic | --save DIR | --check DIR]
--cubic times INTER_CUBIC instead of INTER_LINEAR and INTER_AREA;
--save writes every gip output (plus cubic/lanczos/linear_exact/nearest and odd sizes) to DIR;
--check compares the outputs with those saved, bit for bit."""
import sys
import time

import cv2
import numpy as np

import gip


def med(fn, n=7):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[n // 2]


rng = np.random.default_rng(1)
imgs = {c: rng.integers(0, 256, (2160, 3840, c) if c > 1 else (2160, 3840), dtype=np.uint8)
        for c in (1, 3)}
scales = {"down2": 0.5, "down1.7": 1 / 1.7, "up2": 2.0}
inters = {"linear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA}
if "--cubic" in sys.argv:
    inters = {"cubic": cv2.INTER_CUBIC}

mode = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "--cubic" else None
if mode in ("--save", "--check"):
    import os
    d = sys.argv[2]
    os.makedirs(d, exist_ok=True)
    small = {c: rng.integers(0, 256, (217, 331, c) if c > 1 else (217, 331), dtype=np.uint8)
             for c in (1, 3, 4)}
    even = {20 + c: rng.integers(0, 256, (218, 332, c) if c > 1 else (218, 332), dtype=np.uint8)
            for c in (1, 3, 4)}
    u16 = {30 + c: rng.integers(0, 65536, (217, 331, c), dtype=np.uint16) for c in (1, 3, 4)}
    f32 = {40 + c: rng.standard_normal((218, 332, c), dtype=np.float32) * 100 for c in (1, 3, 4)}
    even.update(u16)
    even.update(f32)
    bad = 0
    for c, im in list(small.items()) + list(even.items()) + [(10 + c, v) for c, v in imgs.items()]:
        for s in (0.5, 1 / 1.7, 2.0, 1 / 3, 0.77, 1.3, 1 / 4):
            for it in range(5 if 10 < c < 20 else 7):
                dw, dh = max(1, round(im.shape[1] * s)), max(1, round(im.shape[0] * s))
                out = gip.resize(im, (dw, dh), interpolation=it)
                name = "%s/c%d_%g_%d.npy" % (d, c, s, it)
                outs = [(name, out)]
                if it in (1, 2) and c < 50:
                    outs.append((name[:-4] + "_aa.npy",
                                 gip.resize(im, (dw, dh), interpolation=it, antialias=True)))
                for name, out in outs:
                    if mode == "--save":
                        np.save(name, out)
                    elif not np.array_equal(np.load(name), out, equal_nan=True):
                        print("DIFF", name)
                        bad += 1
    print("bad", bad)
    sys.exit(1 if bad else 0)

print("%-8s %-8s %-6s %10s %10s %10s" % ("img", "scale", "inter", "gip ms", "cv2 noipp", "cv2 ipp"))
for c, im in imgs.items():
    for sn, s in scales.items():
        dw, dh = round(3840 * s), round(2160 * s)
        for iname, it in inters.items():
            g = med(lambda: gip.resize(im, (dw, dh), interpolation=it))
            cv2.ipp.setUseIPP(False)
            a = med(lambda: cv2.resize(im, (dw, dh), interpolation=it))
            cv2.ipp.setUseIPP(True)
            b = med(lambda: cv2.resize(im, (dw, dh), interpolation=it))
            print("u8c%d     %-8s %-6s %10.2f %10.2f %10.2f" % (c, sn, iname, g * 1e3, a * 1e3, b * 1e3))
