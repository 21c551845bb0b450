# SPDX-License-Identifier: MIT
"""A 3x3 mean filter written as a custom kernel, twice: as raw CUDA source compiled at run time
(the PyCUDA SourceModule way, GPU only; here the kernel is given the image size and clamps at the
edges instead of reading outside the image) and as a gip stencil expression, which runs on the GPU
or the CPU. Both results are compared and saved."""
import os
import time

import numpy as np

import gip
from _common import parse

SOURCE = r"""
extern "C" __global__ void mean3x3(const float *src, int w, int h, long long sstride, int c,
                                   float *dst, int dw, int dh, long long dstride, int dc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        int yy = min(max(y + dy, 0), h - 1);
        const float *row = (const float *)((const char *)src + yy * sstride);
        for (int dx = -1; dx <= 1; dx++)
            sum += row[min(max(x + dx, 0), w - 1)];
    }
    ((float *)((char *)dst + y * dstride))[x] = sum / 9.0f;
}
"""

STENCIL = ("(in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in(0,0) + in(1,0) + in(-1,1) + "
           "in(0,1) + in(1,1)) / 9")


def main():
    args, dev = parse(__doc__.splitlines()[0], size=(int, 512, "side of the random test image"))
    rng = np.random.default_rng(0)
    image = rng.random((args.size, args.size), dtype=np.float32)

    t0 = time.perf_counter()
    by_stencil = gip.stencil(STENCIL, image, borderType=gip.BORDER_REPLICATE, device=dev)
    print("stencil on %s: %.2f ms (first call compiles on the GPU)" %
          (dev.name, (time.perf_counter() - t0) * 1e3))

    if dev.kind == "cuda":
        module = gip.compile(SOURCE, "mean3x3.cu", device=dev)
        kernel = module.get_function("mean3x3")
        src = gip.upload(image, dev)
        dst = gip.Image.upload(np.zeros_like(image), dev)
        kernel(src, dst, block=(16, 16), sync=True)  # grid: one thread per pixel of src
        by_module = dst.download()
        diff = np.abs(by_module - by_stencil).max()
        print("raw CUDA module (%s): max difference to the stencil %.2e" %
              (module.info["target"], diff))
        assert diff <= 1e-6
    else:
        print("raw CUDA module: skipped (runs on a GPU only)")
    inner = by_stencil[1:-1, 1:-1]
    ref = sum(image[1 + dy:image.shape[0] - 1 + dy, 1 + dx:image.shape[1] - 1 + dx]
              for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9
    assert np.abs(inner - ref).max() < 1e-5
    out = os.path.join(args.out, "mean3x3.png")
    gip.imwrite(out, gip.convert(by_stencil, np.uint8, 255.0))
    print("wrote", out)


if __name__ == "__main__":
    main()
