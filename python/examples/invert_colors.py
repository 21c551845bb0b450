# SPDX-License-Identifier: MIT
"""Colour inversion (255 - x per channel) of an image, on the GPU when there is one, checked
against numpy and saved."""
import os
import time

import numpy as np

import gip
from _common import parse


def main():
    args, dev = parse(__doc__.splitlines()[0], default_image="astronaut.png")
    image = gip.imread(args.image)
    t0 = time.perf_counter()
    inverted = gip.invert(image, device=dev)
    print("%s invert time: %.6f seconds" % (dev.name.upper(), time.perf_counter() - t0))
    assert np.array_equal(inverted, 255 - image)
    out = os.path.join(args.out, "inverted.jpg")
    gip.imwrite(out, inverted)
    print("wrote", out)


if __name__ == "__main__":
    main()
