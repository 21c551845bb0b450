# SPDX-License-Identifier: MIT
# Makes the stored cv2 outputs used by test_filter2d.c and test_sobel.c (see README.md).
import cv2
import numpy as np

img = cv2.imread("data/brick.png", cv2.IMREAD_GRAYSCALE)
crop = np.ascontiguousarray(img[100:148, 200:264])  # 48 rows x 64 columns
crop.tofile("tests/data/filter2d/brick_crop_gray_64x48.u8")

k = np.array([[0.0625, -0.3, 0.11], [0.2, 0.5, 0.2], [-0.05, 0.17, 0.1]], np.float32)
f = cv2.filter2D(crop, cv2.CV_8U, k, delta=2.5)  # default border: BORDER_REFLECT_101
f.tofile("tests/data/filter2d/brick_filter2d_float3x3.u8")

s = cv2.Sobel(crop, cv2.CV_16S, 1, 0, ksize=3)
s.astype("<i2").tofile("tests/data/filter2d/brick_sobel_dx1_k3.s16le")
s5 = cv2.Sobel(crop, cv2.CV_16S, 1, 1, ksize=5, borderType=cv2.BORDER_REPLICATE)
s5.astype("<i2").tofile("tests/data/filter2d/brick_sobel_dx1_dy1_k5_replicate.s16le")
print("cv2", cv2.__version__)
