# SPDX-License-Identifier: MIT
# Writes the cv2 reference outputs that tests/test_cvt_color.c and tests/test_convert.c compare
# against (run from this folder: python3 make_color_data.py; needs numpy and opencv-python-headless).
import struct
import sys

import cv2
import numpy as np


def write_pnm(path, img):
    img = np.ascontiguousarray(img)
    magic = b"P6" if img.ndim == 3 else b"P5"
    maxval = 255 if img.dtype == np.uint8 else 65535
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n%d\n" % (magic, img.shape[1], img.shape[0], maxval))
        f.write(img.astype(">u2").tobytes() if maxval == 65535 else img.tobytes())


def normalize_coeffs(src, dmin, dmax, float_dst):
    """scale and shift as cv2.normalize(NORM_MINMAX) computes them before src.convertTo()."""
    smin, smax = float(src.min()), float(src.max())
    scale = (dmax - dmin) * (1.0 / (smax - smin))
    if float_dst:
        scale = float(np.float32(scale))
        shift = float(np.float32(dmin)) - float(np.float32(smin * scale))
    else:
        shift = dmin - smin * scale
    return scale, shift


def convert(src, dmin, dmax, depth, name, lines):
    out = cv2.normalize(src, None, dmin, dmax, cv2.NORM_MINMAX, depth)
    scale, shift = normalize_coeffs(src, dmin, dmax, depth == cv2.CV_32F)
    lines.append("%s scale=%s offset=%s" % (name, float(scale).hex(), float(shift).hex()))
    write_pnm(name, out)


astro = cv2.imread("../../../data/astronaut.png", cv2.IMREAD_COLOR_RGB)
rgb = np.ascontiguousarray(astro[100:148, 200:264])  # 64 x 48, RGB order
write_pnm("astronaut_64x48_rgb.ppm", rgb)
# 16-bit input derived in the test as well: min(v * 257 + (7x + 13y + 5c) % 257, 65535).
yy, xx, cc = np.mgrid[0:48, 0:64, 0:3]
rgb16 = np.minimum(rgb.astype(np.uint32) * 257 + (7 * xx + 13 * yy + 5 * cc) % 257, 65535)
rgb16 = rgb16.astype(np.uint16)
rgbf = rgb.astype(np.float32) * np.float32(1.0 / 255.0)

write_pnm("rgb2gray_u8.pgm", cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
write_pnm("bgr2gray_u8.pgm", cv2.cvtColor(rgb, cv2.COLOR_BGR2GRAY))
write_pnm("rgb2gray_u16.pgm", cv2.cvtColor(rgb16, cv2.COLOR_RGB2GRAY))
cv2.cvtColor(rgbf, cv2.COLOR_RGB2GRAY).astype("<f4").tofile("rgb2gray_f32.raw")

lines = []
convert(rgb, 0.5, 0.5 + 0.5 * (float(rgb.max()) - float(rgb.min())), cv2.CV_8U,
        "convert_u8_half.ppm", lines)
convert(rgb16, 0.0, (float(rgb16.max()) - float(rgb16.min())) / 257.0, cv2.CV_8U,
        "convert_u16_div257.ppm", lines)
halves = rgb.astype(np.float32) * np.float32(0.5)  # many values x.5: rounding half to even
convert(halves, float(halves.min()), float(halves.max()), cv2.CV_8U, "convert_f32_halves.ppm",
        lines)
convert(halves, 0.25, 0.25 + 1.5 * (float(halves.max()) - float(halves.min())), cv2.CV_8U,
        "convert_f32_x1p5.ppm", lines)
with open("convert_coeffs.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
print("cv2", cv2.__version__, "numpy", np.__version__, "python", sys.version.split()[0])
