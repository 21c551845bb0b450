# SPDX-License-Identifier: MIT
"""gip's colour and per-pixel functions against cv2 5.x: threshold (every rule, Otsu, triangle,
the retval), adaptiveThreshold, inRange and cvtColor's colour spaces, bit for bit on uint8 (odd
sizes, 1/3/4 channels), float32 within the tolerances stated by the operations, the registry
steps in pipelines (point-wise folding), GPU against CPU, and bad input."""
import cv2
import numpy as np
import pytest

import gip
from conftest import requires_cuda

SIZES = [(1, 1), (1, 17), (13, 42), (37, 91), (201, 333)]
RULES = [cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV, cv2.THRESH_TRUNC, cv2.THRESH_TOZERO,
         cv2.THRESH_TOZERO_INV]


def rand(shape, dtype=np.uint8, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    if dtype == np.uint16:
        return rng.integers(0, 65536, shape, dtype=np.uint16)
    if dtype == np.int16:
        return rng.integers(-32768, 32768, shape, dtype=np.int16)
    return (rng.random(shape) * 2 - 0.5).astype(np.float32)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("cn", [1, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_threshold_rules(size, cn, dtype):
    a = rand(size + ((cn,) if cn > 1 else ()), dtype, seed=size[1] * 7 + cn)
    scale = {np.uint8: 1, np.uint16: 200, np.int16: 100, np.float32: 1 / 255}[dtype]
    for t in (127.5 * scale, -3.0, 300.7 * scale, 70000.0):
        for rule in RULES:
            r1, e = cv2.threshold(a, t, 200.6 * scale, rule)
            r2, g = gip.threshold(a, t, 200.6 * scale, rule)
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_array_equal(g, e)
            assert r1 == r2


@pytest.mark.parametrize("size", SIZES[1:])
def test_threshold_histogram_methods(size):
    rng = np.random.default_rng(size[0])
    # two clusters: a clear Otsu level
    a = np.where(rng.random(size) < 0.4, rng.normal(70, 12, size),
                 rng.normal(170, 20, size)).clip(0, 255).astype(np.uint8)
    for img in (a, rand(size, seed=3), 255 - a // 3):
        for method in (cv2.THRESH_OTSU, cv2.THRESH_TRIANGLE):
            for rule in RULES:
                r1, e = cv2.threshold(img, 0, 255, rule | method)
                r2, g = gip.threshold(img, 0, 255, rule | method)
                assert r1 == r2, (method, rule)
                np.testing.assert_array_equal(g, e)


def test_threshold_pipeline_folds():
    a = rand((61, 77, 3), seed=9)
    p = gip.Pipeline("threshold 100 200 trunc | invert | threshold 50 255 tozero")
    assert "lut[" in p.describe(3, np.uint8)
    e = cv2.threshold(255 - cv2.threshold(a, 100, 200, cv2.THRESH_TRUNC)[1], 50, 255,
                      cv2.THRESH_TOZERO)[1]
    np.testing.assert_array_equal(p(a), e)


@pytest.mark.parametrize("size", SIZES)
def test_adaptive_threshold(size):
    a = rand(size, seed=size[1])
    for method in (cv2.ADAPTIVE_THRESH_MEAN_C, cv2.ADAPTIVE_THRESH_GAUSSIAN_C):
        for rule in (cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV):
            for bs in (3, 5, 11, 31):
                for c in (0, 2.5, -3.2, 7):
                    e = cv2.adaptiveThreshold(a, 200.6, method, rule, bs, c)
                    g = gip.adaptiveThreshold(a, 200.6, method, rule, bs, c)
                    np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("cn", [1, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_in_range(size, cn, dtype):
    a = rand(size + ((cn,) if cn > 1 else ()), dtype, seed=cn)
    s = {np.uint8: 1, np.uint16: 250, np.float32: 1 / 255}[dtype]
    bounds = [((20.5 * s, 10 * s, 0, 5 * s), (200.5 * s, 180 * s, 250 * s, 255 * s)),
              (30 * s, 220 * s), ((-1, -1, -1, -1), (1e6, 1e6, 1e6, 1e6))]
    for lo, hi in bounds:
        if isinstance(lo, tuple):
            lo, hi = lo[:cn], hi[:cn]
        np.testing.assert_array_equal(gip.inRange(a, lo, hi), cv2.inRange(a, lo, hi))


SPACE_U8 = ["BGR2HSV", "RGB2HSV", "BGR2HSV_FULL", "RGB2HSV_FULL", "HLS2BGR", "HLS2RGB",
            "BGR2YCrCb", "RGB2YCrCb", "YCrCb2BGR", "YCrCb2RGB", "BGR2YUV", "RGB2YUV", "YUV2BGR",
            "YUV2RGB", "BGR2XYZ", "RGB2XYZ", "XYZ2BGR", "XYZ2RGB"]
F32_ONLY = ["HSV2BGR", "HSV2RGB", "HSV2BGR_FULL", "HSV2RGB_FULL", "BGR2HLS", "RGB2HLS",
            "BGR2HLS_FULL", "RGB2HLS_FULL", "HLS2BGR_FULL", "HLS2RGB_FULL"]


def test_cvt_color_u8_cube():
    """Every u8 colour (the whole 256^3 cube) for the codes offered on u8."""
    cube = np.stack(np.meshgrid(np.arange(256), np.arange(256), np.arange(256), indexing="ij"),
                    -1).astype(np.uint8).reshape(4096, 4096, 3)
    for name in SPACE_U8:
        code = getattr(cv2, "COLOR_" + name)
        np.testing.assert_array_equal(gip.cvtColor(cube, code), cv2.cvtColor(cube, code),
                                      err_msg=name)


@pytest.mark.parametrize("size", SIZES)
def test_cvt_color_u8_sizes_alpha(size):
    a = rand(size + (4,), seed=size[0])
    for name in SPACE_U8:
        code = getattr(cv2, "COLOR_" + name)
        src = a if name.startswith(("BGR", "RGB")) else a[..., :3].copy()
        np.testing.assert_array_equal(gip.cvtColor(src, code), cv2.cvtColor(src, code),
                                      err_msg=name)
        if not name.startswith(("BGR", "RGB")):
            np.testing.assert_array_equal(gip.cvtColor(src, code, dstCn=4),
                                          cv2.cvtColor(src, code, dstCn=4), err_msg=name)


def test_cvt_color_f32():
    rgb = rand((97, 131, 3), np.float32, seed=4).clip(0, 1)
    for name in SPACE_U8 + F32_ONLY:
        code = getattr(cv2, "COLOR_" + name)
        if name.startswith(("BGR", "RGB")):
            src = rgb
        else:
            fw = name.split("2")[0]
            fw = fw[:3] + fw[3:].replace("_FULL", "") if "FULL" in name else fw
            src = cv2.cvtColor(rgb, getattr(cv2, "COLOR_BGR2" + fw))
        e, g = cv2.cvtColor(src, code), gip.cvtColor(src, code)
        hue = name.startswith(("BGR", "RGB")) and ("HSV" in name or "HLS" in name)
        # hue in degrees (0..360) to 4e-5, the other channels to 2e-7
        tol = np.array([4e-5, 2e-7, 2e-7]) if hue else 2e-7
        assert np.all(np.abs(g - e) <= tol), name


def test_cvt_pipeline_step():
    a = rand((33, 47, 3), seed=2)
    np.testing.assert_array_equal(gip.Pipeline("cvt bgr2hsv | threshold 100")(a),
                                  cv2.threshold(cv2.cvtColor(a, cv2.COLOR_BGR2HSV), 100, 255,
                                                cv2.THRESH_BINARY)[1])


def test_bad_input():
    a = rand((10, 12, 3))
    g = rand((10, 12))
    with pytest.raises(gip.InvalidArgument):
        gip.threshold(a, 1, 2, 5)
    with pytest.raises(gip.InvalidArgument):
        gip.threshold(a, 1, 2, 32)
    with pytest.raises(gip.Unsupported):
        gip.threshold(a, 0, 255, cv2.THRESH_OTSU)  # three channels
    with pytest.raises(gip.Unsupported):
        gip.threshold(g.astype(np.float32), 0, 255, cv2.THRESH_TRIANGLE)
    with pytest.raises(gip.InvalidType):
        gip.threshold(a, "1", 2, 0)
    with pytest.raises(gip.InvalidArgument):
        gip.adaptiveThreshold(g, 255, 0, 0, 4, 0)
    with pytest.raises(gip.InvalidArgument):
        gip.adaptiveThreshold(g, 255, 2, 0, 3, 0)
    with pytest.raises(gip.InvalidArgument):
        gip.adaptiveThreshold(g, 255, 0, cv2.THRESH_TRUNC, 3, 0)
    with pytest.raises(gip.Unsupported):
        gip.adaptiveThreshold(a, 255, 0, 0, 3, 0)
    with pytest.raises(gip.InvalidArgument):
        gip.inRange(a, (1, 2, 3, 4, 5), 3)
    with pytest.raises(gip.Unsupported):
        gip.cvtColor(a, cv2.COLOR_HSV2BGR)  # u8 HSV2BGR is f32 only
    with pytest.raises(gip.Error):
        gip.cvtColor(g, cv2.COLOR_BGR2HSV)
    with pytest.raises(gip.InvalidArgument):
        gip.cvtColor(a, cv2.COLOR_BGR2HSV, dstCn=4)
    dst = np.full((10, 12, 3), 7, np.uint8)
    with pytest.raises(gip.Error):
        gip.threshold(a, 1, 2, 9, dst)
    assert np.all(dst == 7)


@requires_cuda
def test_cuda_matches_cpu():
    a = rand((301, 257, 3), seed=11)
    g = a[..., 1].copy()
    f = rand((101, 67, 3), np.float32, seed=12)
    for fn in (lambda x, d: gip.threshold(x, 100.5, 200, cv2.THRESH_TRUNC, device=d)[1],
               lambda x, d: gip.inRange(x, (10, 20, 30), (200, 210, 220), device=d),
               lambda x, d: gip.cvtColor(x, cv2.COLOR_BGR2HSV, device=d),
               lambda x, d: gip.cvtColor(x, cv2.COLOR_YCrCb2BGR, device=d),
               lambda x, d: gip.cvtColor(x, cv2.COLOR_BGR2XYZ, device=d)):
        np.testing.assert_array_equal(fn(a, "cuda"), fn(a, "cpu"))
    for t in (cv2.THRESH_OTSU, cv2.THRESH_TRIANGLE):
        r1, e = gip.threshold(g, 0, 255, t, device="cpu")
        r2, d = gip.threshold(g, 0, 255, t, device="cuda")
        assert r1 == r2
        np.testing.assert_array_equal(d, e)
    for m in (0, 1):
        np.testing.assert_array_equal(gip.adaptiveThreshold(g, 255, m, 0, 11, 2, device="cuda"),
                                      gip.adaptiveThreshold(g, 255, m, 0, 11, 2, device="cpu"))
    np.testing.assert_allclose(gip.cvtColor(f, cv2.COLOR_BGR2HSV, device="cuda"),
                               gip.cvtColor(f, cv2.COLOR_BGR2HSV, device="cpu"), rtol=0, atol=0)
