#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whole-file pipeline benchmark helper for bench/pipeline_bench.sh.

make:   writes N 4K (3840x2160) JPEGs at quality 90 made from one sample image (upscaled, each
        shifted and flipped differently so that the files differ), like a folder of photos.
opencv: OpenCV's equivalent of `gip run 'gaussian 15' -i IN -o OUT`: cv2.imread, GaussianBlur
        15x15 (sigma 0: 2.6 as gip), cv2.imwrite q90, on a thread pool of --threads workers
        (cv2 releases the GIL), cv2.setNumThreads(1) inside so that the pool owns the cores;
        also the decode alone. Prints one JSON row per measurement.
"""
import argparse
import concurrent.futures as cf
import json
import os
import sys
import time


def make(args):
    import cv2
    import numpy as np
    src = cv2.imread(args.sample, cv2.IMREAD_COLOR)
    if src is None:
        sys.exit(f"pipeline_peer.py: cannot read {args.sample}")
    big = cv2.resize(src, (3840 + 64, 2160 + 64), interpolation=cv2.INTER_CUBIC)
    rng = np.random.default_rng(1)
    os.makedirs(args.dir, exist_ok=True)
    sizes = []
    for i in range(args.n):
        dx, dy = (i * 7) % 64, (i * 13) % 64
        img = big[dy:dy + 2160, dx:dx + 3840]
        if i % 2:
            img = img[:, ::-1]
        # film-grain-like noise so that q90 files have a photo's size (about 2 MB)
        noise = rng.normal(0, 6, img.shape).astype(np.float32)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        path = os.path.join(args.dir, f"img{i:03d}.jpg")
        cv2.imwrite(path, np.ascontiguousarray(img), [cv2.IMWRITE_JPEG_QUALITY, 90])
        sizes.append(os.path.getsize(path))
    print(json.dumps({"made": args.n, "width": 3840, "height": 2160, "quality": 90,
                      "mean_bytes": sum(sizes) / len(sizes)}))


def opencv(args):
    import cv2
    cv2.setNumThreads(1)
    files = sorted(os.path.join(args.dir, f) for f in os.listdir(args.dir) if f.endswith(".jpg"))
    os.makedirs(args.out, exist_ok=True)

    def one(path):
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        out = cv2.GaussianBlur(img, (15, 15), 0)
        cv2.imwrite(os.path.join(args.out, os.path.basename(path)), out,
                    [cv2.IMWRITE_JPEG_QUALITY, 90])

    def decode(path):
        cv2.imread(path, cv2.IMREAD_COLOR)

    rows = []
    for name, fn in (("opencv_pipeline", one), ("opencv_decode_only", decode)):
        best = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            with cf.ThreadPoolExecutor(args.threads) as ex:
                list(ex.map(fn, files))
            dt = time.perf_counter() - t0
            best = dt if best is None or dt < best else best
        rows.append({"name": name, "images": len(files), "threads": args.threads,
                     "seconds": best, "images_per_s": len(files) / best,
                     "opencv": cv2.__version__})
    for r in rows:
        print(json.dumps(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--sample", required=True)
    m.add_argument("--dir", required=True)
    m.add_argument("-n", type=int, default=16)
    o = sub.add_parser("opencv")
    o.add_argument("--dir", required=True)
    o.add_argument("--out", required=True)
    o.add_argument("--threads", type=int, default=os.cpu_count())
    o.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    make(args) if args.cmd == "make" else opencv(args)


if __name__ == "__main__":
    main()
