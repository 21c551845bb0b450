# SPDX-License-Identifier: MIT
"""Filters against OpenCV: exact where DESIGN.md and the C tests say so (Gaussian u8, box with
odd sizes, Sobel s16), tolerances written down otherwise."""
import cv2
import numpy as np
import pytest

import gip
from conftest import SAMPLES, SHAPES, rand, sample

BORDERS = [gip.BORDER_REFLECT_101, gip.BORDER_REFLECT, gip.BORDER_REPLICATE, gip.BORDER_CONSTANT]


def close_int(got, ref, levels):
    """Integer results within `levels` of OpenCV's."""
    assert got.shape == ref.shape and got.dtype == ref.dtype
    d = np.abs(got.astype(np.int64) - ref.astype(np.int64))
    assert d.max() <= levels, "max difference %d at %s" % (d.max(), np.unravel_index(d.argmax(),
                                                                                      d.shape))


@pytest.mark.parametrize("name", SAMPLES)
def test_gaussian_15_sample_exact(name):
    img = sample(name)
    np.testing.assert_array_equal(gip.gaussian_blur(img, (15, 15), 0),
                                  cv2.GaussianBlur(img, (15, 15), 0))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("ksize,sigma", [((3, 3), 0), ((7, 3), 0), ((5, 9), 1.7), ((0, 0), 2.0)])
def test_gaussian_u8_exact(shape, border, ksize, sigma):
    src = rand(shape, np.uint8, seed=3)
    ref = cv2.GaussianBlur(src, ksize, sigma, borderType=border)
    got = gip.gaussian_blur(src, ksize, sigma, borderType=border)
    np.testing.assert_array_equal(got, ref.reshape(got.shape))


@pytest.mark.parametrize("dtype", [np.uint16, np.float32])
def test_gaussian_u16_f32(dtype):
    src = rand((61, 47, 3), dtype, seed=5)
    for ksize, sigma in [((5, 5), 0), ((15, 15), 0), ((7, 11), 2.5)]:
        ref = cv2.GaussianBlur(src, ksize, sigma)
        got = gip.gaussian_blur(src, ksize, sigma)
        if dtype == np.uint16:
            # OpenCV runs u16 through 16-bit fixed-point kernels, gip in float: within 4 of
            # 65535 (tests/opencv/check_gaussian.py states the same rule).
            close_int(got, ref, 4)
        else:
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("ksize", [(3, 3), (5, 3), (1, 7), (9, 9)])
def test_box_odd_exact(shape, border, ksize):
    src = rand(shape, np.uint8, seed=11)
    ref = cv2.boxFilter(src, -1, ksize, borderType=border)
    np.testing.assert_array_equal(gip.box_filter(src, -1, ksize, borderType=border),
                                  ref.reshape(src.shape))
    np.testing.assert_array_equal(gip.blur(src, ksize, borderType=border), ref.reshape(src.shape))


def test_box_even_unnormalized_anchor_f32():
    src = rand((40, 33, 3), np.uint8, seed=2)
    # Even sizes: OpenCV multiplies by a rounded 1/(kw kh); gip's rule matches within one level.
    close_int(gip.box_filter(src, -1, (4, 2)), cv2.boxFilter(src, -1, (4, 2)), 1)
    s = gip.box_filter(src, cv2.CV_32F, (5, 5), normalize=False)
    np.testing.assert_allclose(s, cv2.boxFilter(src, cv2.CV_32F, (5, 5), normalize=False), atol=0)
    a = gip.box_filter(src, -1, (5, 3), anchor=(0, 2))
    np.testing.assert_array_equal(a, cv2.boxFilter(src, -1, (5, 3), anchor=(0, 2)))


@pytest.mark.parametrize("border", BORDERS)
def test_filter2d(border):
    src = rand((53, 71, 3), np.uint8, seed=4)
    k = np.array([[0.1, -0.3, 0.2], [0.05, 1.1, -0.4], [0.0, 0.25, 0.3]], np.float32)
    # u8: float accumulation; the rounded result may differ by one level at near-.5 values.
    close_int(gip.filter2d(src, -1, k, borderType=border),
              cv2.filter2D(src, -1, k, borderType=border), 1)
    got = gip.filter2d(src, cv2.CV_32F, k, delta=2.5, anchor=(0, 1), borderType=border)
    ref = cv2.filter2D(src, cv2.CV_32F, k, delta=2.5, anchor=(0, 1), borderType=border)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-3)  # |sum| <= 600, f32 order


def test_filter2d_large_kernel_fft():
    src = rand((90, 70), np.float32, seed=6)
    k = rand((21, 21), np.float32, seed=1) / 50
    ref = cv2.filter2D(src, -1, k)
    for method in ("auto", "direct", "fft"):
        got = gip.filter2d(src, -1, k, method=method)
        np.testing.assert_allclose(got, ref, rtol=0, atol=2e-4)  # sum|k|*max|src| ~ 15, f32
    np.testing.assert_allclose(gip.fft_convolve(src, -1, k), ref, atol=2e-4)


def test_conv2d_matches_torch_definition():
    src = rand((23, 19, 3), np.uint8, seed=8)
    w = rand((4, 3, 3, 5), np.float32, seed=9)
    b = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    got = gip.conv2d(src, w, b, padding=(1, 2))
    # Reference: cross-correlation with zero padding, in float64 (torch.nn.functional.conv2d).
    x = np.pad(src.astype(np.float64), ((1, 1), (2, 2), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(x, (3, 5), axis=(0, 1))  # H W C kh kw
    ref = np.einsum("hwcij,ocij->hwo", win, w.astype(np.float64)) + b
    assert got.shape == ref.shape == (23, 19, 4)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-3)
    u8 = gip.conv2d(src, w / 20, None, padding=1, out_dtype=np.uint8)
    assert u8.dtype == np.uint8 and u8.shape == (23, 17, 4)


def test_seed_sobel_conv2d():
    """The seed's Conv2d Sobel: 3 in, 3 out, every weight the horizontal Sobel, padding 1."""
    img = cv2.cvtColor(sample("chelsea.png"), cv2.COLOR_BGR2RGB)
    k = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    w = np.tile(k, (3, 3, 1, 1))
    got = gip.conv2d(img, w, padding=1)
    gray_sum = img.astype(np.float32).sum(axis=2)
    ref = cv2.filter2D(gray_sum, cv2.CV_32F, k, borderType=cv2.BORDER_CONSTANT)
    for c in range(3):
        np.testing.assert_array_equal(got[:, :, c], ref)  # integer sums: exact in f32


@pytest.mark.parametrize("dx,dy,ksize", [(1, 0, 3), (0, 1, 3), (1, 1, 5), (2, 0, 7), (1, 0, 1),
                                         (1, 0, -1), (0, 1, -1)])
@pytest.mark.parametrize("border", BORDERS)
def test_sobel_s16_exact(dx, dy, ksize, border):
    src = rand((37, 45, 3), np.uint8, seed=12)
    ref = cv2.Sobel(src, cv2.CV_16S, dx, dy, ksize=ksize, borderType=border)
    np.testing.assert_array_equal(gip.sobel(src, cv2.CV_16S, dx, dy, ksize=ksize,
                                            borderType=border), ref)


def test_sobel_f32_u8_scharr():
    src = rand((33, 40), np.uint8, seed=13)
    np.testing.assert_allclose(gip.Sobel(src, cv2.CV_32F, 1, 0, scale=0.5, delta=1),
                               cv2.Sobel(src, cv2.CV_32F, 1, 0, scale=0.5, delta=1), atol=1e-4)
    # CV_8U: cv2's saturation of the signed result (negative values become 0).
    np.testing.assert_array_equal(gip.sobel(src, cv2.CV_8U, 1, 0), cv2.Sobel(src, cv2.CV_8U, 1, 0))
    np.testing.assert_array_equal(gip.sobel(src, cv2.CV_8U, 0, 1, ksize=5),
                                  cv2.Sobel(src, cv2.CV_8U, 0, 1, ksize=5))
    np.testing.assert_array_equal(gip.scharr(src, cv2.CV_16S, 0, 1),
                                  cv2.Scharr(src, cv2.CV_16S, 0, 1))
    f = rand((33, 40), np.float32, seed=14)
    np.testing.assert_allclose(gip.sobel(f, cv2.CV_32F, 1, 1, ksize=5),
                               cv2.Sobel(f, cv2.CV_32F, 1, 1, ksize=5), atol=2e-4)


def test_sobel_magnitude():
    src = sample("brick.png", 0)
    gx = cv2.Sobel(src, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(src, cv2.CV_32F, 0, 1)
    ref = np.sqrt(gx * gx + gy * gy)
    got = gip.sobel_magnitude(src)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-4)  # one sqrt rounding
    u8 = gip.sobel_magnitude(src, gip.CV_8U)
    close_int(u8, np.clip(np.rint(ref), 0, 255).astype(np.uint8), 1)
