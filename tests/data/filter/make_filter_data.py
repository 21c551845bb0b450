# SPDX-License-Identifier: MIT
"""Makes the stored cv2 outputs that tests/test_gaussian.c and tests/test_box.c compare exactly.
Crops of the sample images in data/ (read with cv2.imread: channels in BGR order, stored as-is in
binary PPM/PGM), filtered with opencv-python-headless 5.0.0. Run from the repository root:
    python3 tests/data/filter/make_filter_data.py"""
import os
import cv2

OUT = os.path.dirname(os.path.abspath(__file__))


def save(name, img):
    h, w = img.shape[:2]
    magic = b"P6" if img.ndim == 3 else b"P5"
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(b"%s\n%d %d\n255\n" % (magic, w, h))
        f.write(img.tobytes())


color = cv2.imread("data/chelsea.png", cv2.IMREAD_COLOR)[80:128, 100:164].copy()  # 64x48
gray = cv2.imread("data/astronaut.png", cv2.IMREAD_GRAYSCALE)[50:95, 120:181].copy()  # 61x45
save("chelsea_crop.ppm", color)
save("astronaut_crop.pgm", gray)
save("chelsea_gauss15.ppm", cv2.GaussianBlur(color, (15, 15), 0))
save("chelsea_gauss_s2_reflect.ppm", cv2.GaussianBlur(color, (0, 0), 2.0,
                                                      borderType=cv2.BORDER_REFLECT))
save("astronaut_gauss7x3_constant.pgm", cv2.GaussianBlur(gray, (7, 3), 0,
                                                         borderType=cv2.BORDER_CONSTANT))
save("astronaut_box3.pgm", cv2.blur(gray, (3, 3)))
save("chelsea_box5x3_replicate.ppm", cv2.blur(color, (5, 3), borderType=cv2.BORDER_REPLICATE))
