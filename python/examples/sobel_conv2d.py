# SPDX-License-Identifier: MIT
"""Edge detection with a Conv2d: 3 input and 3 output channels, every weight the horizontal Sobel
kernel, padding 1 (PyTorch's nn.Conv2d semantics on an HWC image), clipped to 8 bits and saved;
plus gip's own Sobel magnitude for comparison."""
import os
import time

import numpy as np

import gip
from _common import parse


def main():
    args, dev = parse(__doc__.splitlines()[0])
    rgb = gip.imread(args.image, bgr=False)
    sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    weight = np.tile(sobel_x, (3, 3, 1, 1))  # (out, in, kh, kw)

    t0 = time.perf_counter()
    edges = gip.conv2d(rgb, weight, padding=1, device=dev)  # float32, (H, W, 3)
    print("conv2d %s on %s: %.2f ms" % (edges.shape, dev.name, (time.perf_counter() - t0) * 1e3))
    edges8 = gip.convert(edges, np.uint8, device=dev)  # saturate to 0..255 as np.clip + astype
    out = os.path.join(args.out, "edge_detection.jpg")
    gip.imwrite(out, edges8, bgr=False)
    print("wrote", out)

    magnitude = gip.sobel_magnitude(gip.cvt_color(rgb, gip.COLOR_RGB2GRAY), gip.CV_8U,
                                    device=dev)
    out = os.path.join(args.out, "sobel_magnitude.png")
    gip.imwrite(out, magnitude)
    print("wrote", out)


if __name__ == "__main__":
    main()
