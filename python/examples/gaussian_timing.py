# SPDX-License-Identifier: MIT
"""Gaussian blur 15x15 (sigma from the size, as cv2.GaussianBlur(img, (15, 15), 0)) timed over
100 runs; on a GPU the image is uploaded once and the runs are timed with a sync at the end, like
the OpenCV CUDA GpuMat loop; the result (equal to OpenCV's) is saved."""
import os
import time

import gip
from _common import parse


def main():
    args, dev = parse(__doc__.splitlines()[0], runs=(int, 100, "number of timed runs"))
    image = gip.imread(args.image)
    src = gip.upload(image, dev) if dev.kind == "cuda" else image
    blurred = gip.gaussian_blur(src, (15, 15), 0, device=dev)  # warm-up
    dev.sync()
    start = time.perf_counter()
    for _ in range(args.runs):
        blurred = gip.gaussian_blur(src, (15, 15), 0, device=dev)
    dev.sync()
    elapsed = time.perf_counter() - start
    print("%s time for %d runs: %.4f seconds (%.3f ms per run, %dx%d)" %
          (dev.name.upper(), args.runs, elapsed, elapsed / args.runs * 1e3, image.shape[1],
           image.shape[0]))
    result = blurred.download() if isinstance(blurred, gip.Image) else blurred
    out = os.path.join(args.out, "blur.jpg")
    gip.imwrite(out, result)
    print("wrote", out)


if __name__ == "__main__":
    main()
