# SPDX-License-Identifier: MIT
"""The centred log-magnitude Fourier spectrum of a gray image, saved as 8 bits: in one call
(gip.spectrum) and step by step as numpy/CuPy users write it (fft2, fftshift, log|.|, min-max)."""
import os
import time

import numpy as np

import gip
from _common import parse


def main():
    args, dev = parse(__doc__.splitlines()[0], default_image="hubble_deep_field.jpg")
    gray = gip.imread(args.image, gip.IMREAD_GRAYSCALE)

    t0 = time.perf_counter()
    spectrum = gip.spectrum(gray, device=dev)
    print("spectrum %s on %s: %.2f ms" % (gray.shape, dev.name, (time.perf_counter() - t0) * 1e3))

    F = gip.fft2(gray, device=dev)
    step = gip.normalize_minmax(gip.log_magnitude(gip.fftshift(F, device=dev), device=dev),
                                device=dev)
    diff = np.abs(step.astype(int) - spectrum.astype(int)).max()
    print("step by step vs one call: max difference %d level(s)" % diff)
    out = os.path.join(args.out, "fft_spectrum.jpg")
    gip.imwrite(out, spectrum)
    print("wrote", out)


if __name__ == "__main__":
    main()
