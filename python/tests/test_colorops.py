# SPDX-License-Identifier: MIT
"""gip's colour and per-pixel functions against cv2 5.x: threshold (every rule, Otsu, triangle,
the retval), adaptiveThreshold, inRange and cvtColor's colour spaces, bit for bit on uint8 (odd
sizes, 1/3/4 channels), float32 within the tolerances stated by the operations, the registry
steps in pipelines (point-wise folding), GPU against CPU, and bad input."""
import cv2
import numpy as np
import pytest

import gip
import conftest
from conftest import requires_cuda

SIZES = [(1, 1), (1, 17), (13, 42), (37, 91), (201, 333)]
RULES = [cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV, cv2.THRESH_TRUNC, cv2.THRESH_TOZERO,
         cv2.THRESH_TOZERO_INV]


def rand(shape, dtype=np.uint8, seed=0):
    return conftest.rand(shape, dtype, seed, lo=-0.5, hi=1.5)


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


SPACE_U8 = ["BGR2HSV", "RGB2HSV", "BGR2HSV_FULL", "RGB2HSV_FULL", "HSV2BGR", "HSV2RGB",
            "BGR2HLS", "RGB2HLS", "HLS2BGR", "HLS2RGB",
            "BGR2YCrCb", "RGB2YCrCb", "YCrCb2BGR", "YCrCb2RGB", "BGR2YUV", "RGB2YUV", "YUV2BGR",
            "YUV2RGB", "BGR2XYZ", "RGB2XYZ", "XYZ2BGR", "XYZ2RGB", "BGR2Lab", "RGB2Lab", "Lab2BGR",
            "Lab2RGB", "BGR2Luv", "RGB2Luv", "Luv2BGR", "Luv2RGB"]
F32_ONLY = ["HSV2BGR_FULL", "HSV2RGB_FULL", "BGR2HLS_FULL", "RGB2HLS_FULL", "HLS2BGR_FULL",
            "HLS2RGB_FULL"]


def test_cvt_color_u8_cube():
    """Every u8 colour (the whole 256^3 cube) for the codes offered on u8; Luv (OpenCV's
    interpolated table forward, its integer code back) also with 4 channels on the RGB side."""
    cube = np.stack(np.meshgrid(np.arange(256), np.arange(256), np.arange(256), indexing="ij"),
                    -1).astype(np.uint8).reshape(4096, 4096, 3)
    for name in SPACE_U8:
        code = getattr(cv2, "COLOR_" + name)
        np.testing.assert_array_equal(gip.cvtColor(cube, code), cv2.cvtColor(cube, code),
                                      err_msg=name)
    with_alpha = np.dstack([cube, (np.arange(1 << 24) % 251).astype(np.uint8).reshape(4096, 4096)])
    np.testing.assert_array_equal(gip.cvtColor(with_alpha, cv2.COLOR_BGR2Luv),
                                  cv2.cvtColor(with_alpha, cv2.COLOR_BGR2Luv), err_msg="BGRA2Luv")
    np.testing.assert_array_equal(gip.cvtColor(cube, cv2.COLOR_Luv2RGB, dstCn=4),
                                  cv2.cvtColor(cube, cv2.COLOR_Luv2RGB, dstCn=4),
                                  err_msg="Luv2RGBA")


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


@pytest.mark.parametrize("name", ["HSV2BGR", "HLS2BGR", "HSV2RGB_FULL", "HLS2RGB_FULL"])
def test_cvt_color_f32_hue_just_below_zero(name):
    """A hue just below 0 plus a whole turn rounds to 6 sixths itself, which is no sector: taken
    as 0, as cv2 takes it, in the vectors and in the row's tail (HLS once read past its table)."""
    a = np.full((3, 17, 3), 0.5, np.float32)
    a[:, :, 0] = [[-1e-7], [-1e-30], [-0.0]]
    code = getattr(cv2, "COLOR_" + name)
    np.testing.assert_array_equal(gip.cvtColor(a, code), cv2.cvtColor(a, code))


def test_cvt_color_f32():
    rgb = rand((97, 131, 3), np.float32, seed=4).clip(0, 1)
    for name in SPACE_U8 + F32_ONLY:
        if "Lab" in name or "Luv" in name:  # f32 by the CIE formulas: test_lab_luv_f32
            continue
        code = getattr(cv2, "COLOR_" + name)
        if name.startswith(("BGR", "RGB")):
            src = rgb
        else:
            fw = name.split("2")[0]
            fw = fw[:3] + fw[3:].replace("_FULL", "") if "FULL" in name else fw
            src = cv2.cvtColor(rgb, getattr(cv2, "COLOR_BGR2" + fw))
        e, g = cv2.cvtColor(src, code), gip.cvtColor(src, code)
        hue = name.startswith(("BGR", "RGB")) and ("HSV" in name or "HLS" in name)
        # hue in degrees (0..360) to 4e-5, the other channels (0..1) to 1e-6
        tol = np.array([4e-5, 1e-6, 1e-6]) if hue else 1e-6
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
        gip.cvtColor(a, cv2.COLOR_HSV2BGR_FULL)  # u8: f32 only (cv2 runs IPP)
    with pytest.raises(gip.Error):
        gip.cvtColor(g, cv2.COLOR_BGR2HSV)
    with pytest.raises(gip.InvalidArgument):
        gip.cvtColor(a, cv2.COLOR_BGR2HSV, dstCn=4)
    with pytest.raises(gip.Unsupported):
        gip.cvtColor(a.astype(np.uint16), cv2.COLOR_BGR2Luv)  # u8 and f32 only (as cv2)
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
               lambda x, d: gip.cvtColor(x, cv2.COLOR_BGR2XYZ, device=d),
               lambda x, d: gip.cvtColor(x, cv2.COLOR_RGB2Luv, device=d),
               lambda x, d: gip.cvtColor(x, cv2.COLOR_Luv2BGR, dstCn=4, device=d)):
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


# ---- arithmetic ----------------------------------------------------------------------------------
INT_DTYPES = [np.uint8, np.uint16, np.int16]


def pair(size, cn, dtype, seed):
    shape = size + ((cn,) if cn > 1 else ())
    a, b = rand(shape, dtype, seed), rand(shape, dtype, seed + 1)
    b.reshape(-1)[::7] = 0  # zero divisors
    m = (np.random.default_rng(seed).random(size) < 0.5).astype(np.uint8)
    return a, b, m


ARITH_SIZES = [(1, 17), (13, 42), (37, 91), (5, 3)]


@pytest.mark.parametrize("size", ARITH_SIZES)
@pytest.mark.parametrize("cn", [1, 3, 4])
@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float32])
def test_two_images(size, cn, dtype):
    a, b, m = pair(size, cn, dtype, seed=cn + size[1])
    fns = ["add", "subtract", "multiply", "divide", "absdiff", "min", "max"]
    if dtype != np.float32:
        fns += ["bitwise_and", "bitwise_or", "bitwise_xor"]
    for name in fns:
        np.testing.assert_array_equal(getattr(gip, name)(a, b), getattr(cv2, name)(a, b),
                                      err_msg=name)
    for name in ("add", "subtract") + (("bitwise_and", "bitwise_or", "bitwise_xor")
                                       if dtype != np.float32 else ()):
        np.testing.assert_array_equal(getattr(gip, name)(a, b, mask=m),
                                      getattr(cv2, name)(a, b, mask=m), err_msg=name)
    for scale in (0.5, 1.7, 0.01):
        np.testing.assert_array_equal(gip.multiply(a, b, scale=scale),
                                      cv2.multiply(a, b, scale=scale))
        np.testing.assert_array_equal(gip.divide(a, b, scale=scale),
                                      cv2.divide(a, b, scale=scale))
    if dtype != np.float32:
        np.testing.assert_array_equal(gip.bitwise_not(a), cv2.bitwise_not(a))
        np.testing.assert_array_equal(gip.bitwise_not(a, mask=m), cv2.bitwise_not(a, mask=m))
    for al, be, ga in ((0.3, 0.7, 0.5), (1.3, -0.4, 10.25), (0.5, 0.5, 0)):
        e, g = cv2.addWeighted(a, al, b, be, ga), gip.addWeighted(a, al, b, be, ga)
        if dtype == np.float32:  # OpenCV's scalar tail rounds otherwise: 1 ulp
            np.testing.assert_allclose(g, e, rtol=2e-7, atol=0)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("size", ARITH_SIZES)
@pytest.mark.parametrize("cn", [1, 3, 4])
@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float32])
def test_scalars(size, cn, dtype):
    a, _, m = pair(size, cn, dtype, seed=3 * cn + size[0])
    values = (2.5, 7, 0.3, 0.7, -1.5, 1 / 3, 300.5)
    for v in values:
        # a number: every channel for these (cv2 5.x); a tuple: per channel
        for name in ("add", "subtract", "multiply", "divide", "absdiff"):
            e = getattr(cv2, name)(a, v)
            if e.shape == a.shape:  # cv2 gives (4, 1) for some tiny arrays
                np.testing.assert_array_equal(getattr(gip, name)(a, v), e, err_msg=(name, v))
        if cn > 1:
            t = tuple(v * (k + 1) for k in range(cn)) + (0,) * (4 - cn)
            for name in ("add", "subtract", "multiply", "divide", "absdiff", "min", "max"):
                np.testing.assert_array_equal(getattr(gip, name)(a, t), getattr(cv2, name)(a, t),
                                              err_msg=(name, t))
        for name in ("min", "max"):  # a number: the first channel only, as cv2
            e = getattr(cv2, name)(a, v)
            if e.shape == a.shape:
                np.testing.assert_array_equal(getattr(gip, name)(a, v), e, err_msg=(name, v))
        for name in ("subtract", "divide"):  # the scalar on the left
            e = getattr(cv2, name)(v, a)
            if e.shape == a.shape:
                np.testing.assert_array_equal(getattr(gip, name)(v, a), e, err_msg=(name, v))
        e = cv2.add(a, v, mask=m)
        if e.shape == a.shape:
            np.testing.assert_array_equal(gip.add(a, v, mask=m), e)
    if dtype != np.float32:
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            e = getattr(cv2, name)(a, 77)
            if e.shape == a.shape:
                np.testing.assert_array_equal(getattr(gip, name)(a, 77), e, err_msg=name)


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.float32])
@pytest.mark.parametrize("cn", [1, 3, 4])
def test_convert_scale_abs_normalize(dtype, cn):
    a, _, m = pair((29, 61), cn, dtype, seed=cn)
    for al, be in ((1.7, -10.5), (0.3, 0.5), (-1.1, 7.25)):
        np.testing.assert_array_equal(gip.convertScaleAbs(a, alpha=al, beta=be),
                                      cv2.convertScaleAbs(a, alpha=al, beta=be))
    for nt, al, be in ((cv2.NORM_MINMAX, 250, 10), (cv2.NORM_INF, 1000, 0),
                       (cv2.NORM_L1, 1e6, 0), (cv2.NORM_L2, 5000, 0)):
        for ddepth in (-1, cv2.CV_8U, cv2.CV_32F):
            e = cv2.normalize(a, None, al, be, nt, ddepth)
            g = gip.normalize(a, None, al, be, nt, ddepth)
            if e.dtype == np.float32:
                np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6 * abs(al))
            else:
                np.testing.assert_array_equal(g, e, err_msg=(nt, ddepth))
        if cn == 1:
            e = cv2.normalize(a, None, al, be, nt, cv2.CV_8U, mask=m)
            np.testing.assert_array_equal(gip.normalize(a, None, al, be, nt, cv2.CV_8U, mask=m),
                                          e)


def test_lut_and_gamma():
    a = rand((37, 91, 3), seed=4)
    rng = np.random.default_rng(5)
    for t in (rng.integers(0, 256, 256, dtype=np.uint8),
              rng.integers(0, 256, (1, 256, 3), dtype=np.uint8)):
        np.testing.assert_array_equal(gip.LUT(a, t), cv2.LUT(a, t))
        np.testing.assert_array_equal(gip.LUT(a[..., 0].copy(), t[..., 0] if t.ndim == 3 else t),
                                      cv2.LUT(a[..., 0], t[..., 0] if t.ndim == 3 else t))
    for g in (0.45, 1.0, 2.2):
        ref = np.clip(np.rint(255 * (np.arange(256) / 255.0) ** g), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(gip.op.gamma(a, g), ref[a])
    p = gip.Pipeline("gamma 2.2 | add 10 | threshold 128")
    assert "lut[" in p.describe(3, np.uint8)
    ref = np.clip(np.rint(255 * (np.arange(256) / 255.0) ** 2.2), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(p(a), cv2.threshold(cv2.add(ref[a], 10), 128, 255, 0)[1])


def test_channels():
    a = rand((13, 42, 4), seed=6)
    for c in range(4):
        np.testing.assert_array_equal(gip.extractChannel(a, c), cv2.extractChannel(a, c))
    parts = cv2.split(a)
    assert all(np.array_equal(x, y) for x, y in zip(gip.split(a), parts))
    np.testing.assert_array_equal(gip.merge(parts), cv2.merge(parts))
    np.testing.assert_array_equal(gip.merge(parts[:3]), cv2.merge(parts[:3]))
    d1, d2 = a.copy(), a.copy()
    gip.insertChannel(parts[0], d1, 2)
    cv2.insertChannel(parts[0], d2, 2)
    np.testing.assert_array_equal(d1, d2)
    with pytest.raises(gip.Unsupported):
        gip.merge(parts[:2])
    with pytest.raises(gip.InvalidArgument):
        gip.extractChannel(a[..., :3].copy(), 3)
    for dt in (np.int16, np.uint16, np.float32):  # every dtype, int16 too (no gray-to-colour copy)
        b = rand((7, 11, 4), seed=7).astype(dt) * 3 - 100
        for n in (3, 4):
            parts = cv2.split(b[..., :n].copy())
            np.testing.assert_array_equal(gip.merge(parts), cv2.merge(parts))
            out = np.full((7, 11, n), 5, dt)
            gip.merge(parts, dst=out)
            np.testing.assert_array_equal(out, cv2.merge(parts))


def test_arith_bad_input():
    a = rand((10, 12, 3))
    with pytest.raises(gip.Error):
        gip.add(a, rand((10, 13, 3)))
    with pytest.raises(gip.Error):
        gip.add(a, rand((10, 12, 3), np.uint16))
    with pytest.raises(gip.Error):
        gip.add(a, a, mask=rand((10, 12, 3)))
    with pytest.raises(gip.Unsupported):
        gip.bitwise_and(a.astype(np.float32), 3)
    with pytest.raises(gip.InvalidArgument):
        gip.add(a, (1, 2, 3, 4, 5))
    with pytest.raises(gip.Unsupported):
        gip.add(a, a, dtype=cv2.CV_16U)
    with pytest.raises(gip.InvalidArgument):
        gip.normalize(a, None, 1, 0, 3)
    with pytest.raises(gip.Unsupported):
        gip.LUT(a, np.arange(256, dtype=np.uint16))
    with pytest.raises(gip.InvalidArgument):
        gip.LUT(a, np.arange(100, dtype=np.uint8))
    with pytest.raises(gip.InvalidArgument):
        gip.apply("add", a, src2=a, value=3)
    dst = np.full_like(a, 7)
    with pytest.raises(gip.Error):
        gip.add(a, rand((10, 13, 3)), dst)
    assert np.all(dst == 7)


@requires_cuda
def test_arith_cuda_matches_cpu():
    for dtype in INT_DTYPES + [np.float32]:
        a, b, m = pair((301, 257), 3, dtype, seed=21)
        for fn in (lambda d: gip.add(a, b, mask=m, device=d),
                   lambda d: gip.multiply(a, b, scale=0.3, device=d),
                   lambda d: gip.divide(a, b, scale=7, device=d),
                   lambda d: gip.divide(2.5, a, device=d),
                   lambda d: gip.multiply(a, 0.3, device=d),
                   lambda d: gip.absdiff(a, (3, 4, 5), device=d),
                   lambda d: gip.addWeighted(a, 0.3, b, 0.7, 0.5, device=d),
                   lambda d: gip.convertScaleAbs(a, alpha=1.3, beta=-5, device=d),
                   lambda d: gip.normalize(a, None, 255, 0, gip.NORM_MINMAX, cv2.CV_8U,
                                           device=d),
                   lambda d: gip.normalize(a[..., 0].copy(), None, 1000, 0, gip.NORM_L2,
                                           cv2.CV_8U, mask=m, device=d),
                   lambda d: gip.merge(gip.split(a, device=d), device=d)):
            np.testing.assert_array_equal(np.asarray(fn("cuda")), np.asarray(fn("cpu")))
    a = rand((301, 257, 3), seed=22)
    t = np.random.default_rng(1).integers(0, 256, 256, dtype=np.uint8)
    np.testing.assert_array_equal(gip.LUT(a, t, device="cuda"), gip.LUT(a, t, device="cpu"))
    np.testing.assert_array_equal(gip.op.gamma(a, 2.2, device="cuda"),
                                  gip.op.gamma(a, 2.2, device="cpu"))


# ---- camera formats ------------------------------------------------------------------------------
YUV420 = ["NV12", "NV21", "I420", "IYUV", "YV12"]
YUV422 = ["YUY2", "YUYV", "UYVY", "YVYU"]
OUTS = ["BGR", "RGB", "BGRA", "RGBA", "GRAY"]


@pytest.mark.parametrize("wh", [(2, 2), (36, 24), (98, 6), (640, 482)])
def test_yuv_frames(wh):
    w, h = wh
    rng = np.random.default_rng(w + h)
    frame = rng.integers(0, 256, (h * 3 // 2, w), dtype=np.uint8)
    strided = rng.integers(0, 256, (h * 3 // 2, w + 10), dtype=np.uint8)[:, :w]
    packed = rng.integers(0, 256, (h, w, 2), dtype=np.uint8)
    for lay in YUV420:
        for out in OUTS:
            code = getattr(cv2, "COLOR_YUV2%s_%s" % (out, lay))
            for f in (frame, strided):
                np.testing.assert_array_equal(gip.cvtColor(f, code), cv2.cvtColor(f, code),
                                              err_msg=(lay, out))
    for lay in YUV422:
        for out in OUTS:
            code = getattr(cv2, "COLOR_YUV2%s_%s" % (out, lay))
            e = cv2.cvtColor(packed, code)
            np.testing.assert_array_equal(gip.cvtColor(packed, code), e, err_msg=(lay, out))
            np.testing.assert_array_equal(gip.cvtColor(packed.reshape(h, 2 * w), code), e)


@pytest.mark.parametrize("wh", [(2, 2), (36, 24), (98, 6), (640, 482)])
def test_yuv420_encoding(wh):
    w, h = wh
    rng = np.random.default_rng(w * h)
    for cn, pre in ((3, ""), (4, "A")):
        a = rng.integers(0, 256, (h, w, cn), dtype=np.uint8)
        strided = rng.integers(0, 256, (h, w + 6, cn), dtype=np.uint8)[:, :w]
        for order in ("BGR", "RGB"):
            for lay in ("I420", "IYUV", "YV12"):
                code = getattr(cv2, "COLOR_%s%s2YUV_%s" % (order, pre, lay))
                for src in (a, strided):
                    np.testing.assert_array_equal(gip.cvtColor(src, code), cv2.cvtColor(src, code))
    with pytest.raises(gip.ShapeMismatch):
        gip.cvtColor(rand((25, 36, 3)), cv2.COLOR_BGR2YUV_I420)


def test_yuv_bad_frames():
    with pytest.raises(gip.ShapeMismatch):
        gip.cvtColor(rand((25, 36)), cv2.COLOR_YUV2BGR_NV12)  # 25 rows: not 3k
    with pytest.raises(gip.ShapeMismatch):
        gip.cvtColor(rand((24, 35)), cv2.COLOR_YUV2BGR_I420)  # odd width
    with pytest.raises(gip.ShapeMismatch):
        gip.apply("yuv", rand((24, 38)), layout="yuy2")  # 19 pixels
    with pytest.raises(gip.Unsupported):
        gip.apply("yuv", rand((24, 36), np.uint16))


@pytest.mark.parametrize("wh", [(1, 5), (2, 7), (3, 3), (13, 42), (100, 3), (333, 77),
                                (1920, 1080)])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_bayer(wh, dtype):
    w, h = wh
    m = rand((h, w), dtype, seed=w * h)
    for pat in ("BG", "GB", "RG", "GR"):
        for out in OUTS:
            code = getattr(cv2, "COLOR_Bayer%s2%s" % (pat, out))
            np.testing.assert_array_equal(gip.cvtColor(m, code), cv2.cvtColor(m, code),
                                          err_msg=(pat, out))


@requires_cuda
def test_camera_formats_cuda():
    frame = rand((720, 640), seed=3)
    packed = rand((480, 640, 2), seed=4)
    mosaic = rand((481, 639), seed=5)
    for code, src in ((cv2.COLOR_YUV2BGR_NV12, frame), (cv2.COLOR_YUV2RGBA_I420, frame),
                      (cv2.COLOR_YUV2BGR_YV12, frame), (cv2.COLOR_YUV2BGR_YUY2, packed),
                      (cv2.COLOR_BayerBG2BGR, mosaic), (cv2.COLOR_BayerGR2GRAY, mosaic),
                      (cv2.COLOR_BayerRG2RGBA, mosaic.astype(np.uint16) * 200)):
        np.testing.assert_array_equal(gip.cvtColor(src, code, device="cuda"),
                                      gip.cvtColor(src, code, device="cpu"))


@pytest.mark.parametrize("wh", [(2, 1), (8, 5), (34, 13), (202, 101)])
@pytest.mark.parametrize("cn", [3, 4])
def test_yuv422_encoding(wh, cn):
    w, h = wh
    a = rand((h, w, cn), seed=w * 3 + cn)
    codes = ([cv2.COLOR_BGR2YUV_YUY2, cv2.COLOR_RGB2YUV_YUY2, cv2.COLOR_BGR2YUV_UYVY,
              cv2.COLOR_RGB2YUV_UYVY, cv2.COLOR_BGR2YUV_YVYU, cv2.COLOR_RGB2YUV_YVYU]
             if cn == 3 else
             [cv2.COLOR_BGRA2YUV_YUY2, cv2.COLOR_RGBA2YUV_YUY2, cv2.COLOR_BGRA2YUV_UYVY,
              cv2.COLOR_RGBA2YUV_UYVY, cv2.COLOR_BGRA2YUV_YVYU, cv2.COLOR_RGBA2YUV_YVYU])
    for code in codes:
        e = cv2.cvtColor(a, code)
        g = gip.cvtColor(a, code)
        assert g.shape == e.shape == (h, w, 2) and g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
        out = np.zeros_like(e)
        assert gip.cvtColor(a, code, out) is out
        np.testing.assert_array_equal(out, e)


@pytest.mark.parametrize("wh", [(2, 2), (36, 24), (202, 100)])
def test_nv12_encoding(wh):
    w, h = wh
    a = rand((h, w, 3), seed=w)
    i420 = cv2.cvtColor(a, cv2.COLOR_BGR2YUV_I420).ravel()
    y, u, v = i420[:h * w], i420[h * w:h * w * 5 // 4], i420[h * w * 5 // 4:]
    for layout, pairs in (("nv12", (u, v)), ("nv21", (v, u))):
        g = gip.apply("yuv420", a, layout=layout)
        e = np.concatenate([y, np.stack(pairs, 1).ravel()]).reshape(h * 3 // 2, w)
        np.testing.assert_array_equal(g, e)
    # cv2 decodes gip's NV12 to what it decodes from its own I420
    np.testing.assert_array_equal(
        cv2.cvtColor(gip.apply("yuv420", a, layout="nv12"), cv2.COLOR_YUV2BGR_NV12),
        cv2.cvtColor(i420.reshape(h * 3 // 2, w), cv2.COLOR_YUV2BGR_I420))


U16_CODES = [cv2.COLOR_BGR2YCrCb, cv2.COLOR_RGB2YCrCb, cv2.COLOR_YCrCb2BGR, cv2.COLOR_YCrCb2RGB,
             cv2.COLOR_BGR2YUV, cv2.COLOR_RGB2YUV, cv2.COLOR_YUV2BGR, cv2.COLOR_YUV2RGB,
             cv2.COLOR_BGR2XYZ, cv2.COLOR_RGB2XYZ, cv2.COLOR_XYZ2BGR, cv2.COLOR_XYZ2RGB]


@pytest.mark.parametrize("size", SIZES)
def test_cvt_color_u16(size):
    for cn in (3, 4):
        a = rand(size + (cn,), np.uint16, seed=size[1] + cn)
        for code in U16_CODES:
            inverse = code in (cv2.COLOR_YCrCb2BGR, cv2.COLOR_YCrCb2RGB, cv2.COLOR_YUV2BGR,
                               cv2.COLOR_YUV2RGB, cv2.COLOR_XYZ2BGR, cv2.COLOR_XYZ2RGB)
            if inverse and cn == 4:
                e = cv2.cvtColor(a[..., :3], code, dstCn=4)
                g = gip.cvtColor(a[..., :3], code, dstCn=4)
            else:
                e = cv2.cvtColor(a, code)
                g = gip.cvtColor(a, code)
            assert g.dtype == e.dtype == np.uint16
            np.testing.assert_array_equal(g, e)
    a = rand(size + (3,), np.uint16)
    for code in (cv2.COLOR_BGR2HSV, cv2.COLOR_BGR2HLS, cv2.COLOR_BGR2Lab):
        with pytest.raises(gip.Unsupported):
            gip.cvtColor(a, code)


def test_yuv_encode_bad_input():
    with pytest.raises(gip.Error):
        gip.cvtColor(rand((4, 7, 3)), cv2.COLOR_BGR2YUV_YUY2)  # odd width
    with pytest.raises(gip.Error):
        gip.cvtColor(rand((4, 8)), cv2.COLOR_BGR2YUV_UYVY)  # one channel
    with pytest.raises(gip.Error):
        gip.cvtColor(rand((4, 8, 3), np.float32), cv2.COLOR_BGR2YUV_YUY2)
    with pytest.raises(gip.Error):
        gip.apply("yuv420", rand((5, 8, 3)), layout="nv12")  # odd height
    dst = np.full((4, 8, 2), 7, np.uint8)
    with pytest.raises(gip.Error):
        gip.cvtColor(rand((4, 6, 3)), cv2.COLOR_BGR2YUV_YUY2, dst)  # wrong size
    assert (dst == 7).all()


@requires_cuda
def test_color2_cuda_matches_cpu():
    a = rand((37, 90, 3), seed=5)
    for code in (cv2.COLOR_BGR2YUV_YUY2, cv2.COLOR_RGB2YUV_UYVY, cv2.COLOR_BGR2YUV_YVYU):
        np.testing.assert_array_equal(gip.cvtColor(a, code, device="cuda"),
                                      cv2.cvtColor(a, code))
    b = rand((36, 90, 3), seed=6)
    for layout in ("nv12", "nv21"):
        np.testing.assert_array_equal(gip.apply("yuv420", b, layout=layout, device="cuda"),
                                      gip.apply("yuv420", b, layout=layout, device="cpu"))
    c = rand((37, 91, 3), np.uint16, seed=7)
    for code in U16_CODES:
        np.testing.assert_array_equal(gip.cvtColor(c, code, device="cuda"),
                                      cv2.cvtColor(c, code))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_mix_channels(size, dtype):
    a, b = rand(size + (4,), dtype, seed=1), rand(size + (3,), dtype, seed=2)
    one = rand(size, dtype, seed=3)
    for srcs, shapes, pairs in (
            ([a, b], [(3,), (4,)], [0, 2, 5, 0, -1, 1, 6, 3, 2, 4, 3, 5]),
            ([a], [(3,)], [2, 0, 1, 1, 0, 2]),
            ([one, b], [(), (4,)], [0, 3, 3, 0, 1, 1]),
            ([a], [()], [3, 0])):
        want = [rand(size + s, dtype, seed=9) for s in shapes]
        got = [w.copy() for w in want]
        cv2.mixChannels(srcs, want, pairs)
        assert gip.mixChannels(srcs, got, pairs) is got
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    # the registry's step: a new image, unnamed channels zero
    r = gip.apply("mix_channels", b, from_to=[2, 0, 0, 2, 1, 3])
    np.testing.assert_array_equal(r, np.stack([b[..., 2], np.zeros_like(b[..., 0]), b[..., 0],
                                               b[..., 1]], -1))
    np.testing.assert_array_equal(gip.Pipeline("mix_channels 2,0,1,1,0,2")(b), b[..., ::-1])


def test_mix_channels_bad_input():
    a, d = rand((5, 6, 3)), np.full((5, 6, 3), 7, np.uint8)
    for pairs in ([0], [0, 3], [3, 0], [-2, 0], [0, 0, 9, 1]):
        with pytest.raises(gip.InvalidArgument):
            gip.mixChannels(a, d, pairs)
    with pytest.raises(gip.Error):
        gip.mixChannels(a, np.zeros((5, 7, 3), np.uint8), [0, 0])
    with pytest.raises(gip.Error):
        gip.mixChannels(a, np.zeros((5, 6, 3), np.float32), [0, 0])
    with pytest.raises(gip.Error):
        gip.mixChannels(a, a, [0, 1])
    with pytest.raises(gip.Error):
        gip.mixChannels(a, [d[:, :3]], [0, 0])  # another shape
    assert (d == 7).all()
    with pytest.raises(gip.Error):
        gip.apply("mix_channels", a, from_to=[0, 1])  # 2 channels
    with pytest.raises(gip.Error):
        gip.apply("mix_channels", a, from_to=[3, 0])


@requires_cuda
def test_mix_channels_cuda():
    a, b = rand((37, 91, 4), seed=1), rand((37, 91, 3), np.float32, seed=2)
    for src, pairs in ((a, [3, 0, -1, 1, 0, 2]), (b, [2, 0, 1, 1, 0, 2, -1, 3])):
        np.testing.assert_array_equal(gip.apply("mix_channels", src, from_to=pairs, device="cuda"),
                                      gip.apply("mix_channels", src, from_to=pairs, device="cpu"))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_scale_add(size, dtype):
    for cn in (1, 3, 4):
        shape = size + ((cn,) if cn > 1 else ())
        a, b = rand(shape, dtype, seed=cn), rand(shape, dtype, seed=cn + 10)
        for alpha in (0.37, -1.5, 2.0):
            np.testing.assert_array_equal(gip.scaleAdd(a, alpha, b), cv2.scaleAdd(a, alpha, b))


@requires_cuda
def test_scale_add_cuda():
    for dtype in (np.uint8, np.float32):
        a, b = rand((37, 91, 3), dtype, seed=1), rand((37, 91, 3), dtype, seed=2)
        np.testing.assert_array_equal(gip.scaleAdd(a, 0.37, b, device="cuda"),
                                      gip.scaleAdd(a, 0.37, b, device="cpu"))


def check_bayer_bgr_rgb(m, method):
    """gip.cvtColor against cv2's for the four patterns' COLOR_Bayer*2BGR and *2RGB codes of the
    demosaicing method (the codes' suffix: "_EA", "_VNG")."""
    for pat in ("BG", "GB", "RG", "GR"):
        for out in ("BGR", "RGB"):
            code = getattr(cv2, "COLOR_Bayer%s2%s%s" % (pat, out, method))
            np.testing.assert_array_equal(gip.cvtColor(m, code), cv2.cvtColor(m, code),
                                          err_msg=(pat, out))


@pytest.mark.parametrize("wh", [(1, 1), (2, 7), (3, 3), (13, 42), (42, 13), (641, 480)])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_bayer_edge_aware(wh, dtype):
    w, h = wh
    m = rand((h, w), dtype, seed=w + h)
    check_bayer_bgr_rgb(m, "_EA")
    np.testing.assert_array_equal(gip.Pipeline("bayer gr bgr method=ea")(m),
                                  cv2.cvtColor(m, cv2.COLOR_BayerGR2BGR_EA))
    with pytest.raises(gip.InvalidArgument):
        gip.apply("bayer", m, pattern="bg", to="gray", method="ea")


@requires_cuda
def test_bayer_edge_aware_cuda():
    for dtype in (np.uint8, np.uint16):
        m = rand((481, 639), dtype, seed=5)
        for code in (cv2.COLOR_BayerBG2BGR_EA, cv2.COLOR_BayerGR2RGB_EA):
            np.testing.assert_array_equal(gip.cvtColor(m, code, device="cuda"),
                                          cv2.cvtColor(m, code))


@pytest.mark.parametrize("standard", ["bt601", "bt709"])
@pytest.mark.parametrize("rng_", ["limited", "full"])
def test_yuv_standards(standard, rng_):
    """BT.709 and full range (no cv2 codes): the standards' matrices in double precision, within
    half a level (20-bit fixed point, halves rounded up); the default is cv2's BT.601 limited."""
    w, h = 98, 36
    frame = rand((h * 3 // 2, w), seed=7)
    got = gip.apply("yuv", frame, layout="nv12", to="rgb", standard=standard, range=rng_)
    if standard == "bt601" and rng_ == "limited":
        np.testing.assert_array_equal(got, cv2.cvtColor(frame, cv2.COLOR_YUV2RGB_NV12))
        return
    kr, kb = (0.299, 0.114) if standard == "bt601" else (0.2126, 0.0722)
    full = rng_ == "full"
    y = frame[:h].astype(float)
    uv = frame[h:].astype(float).reshape(h // 2, w // 2, 2).repeat(2, 0).repeat(2, 1)
    sy, sc = (1.0, 1.0) if full else (255 / 219, 255 / 224)
    yy = (y if full else np.maximum(y - 16, 0)) * sy
    u, v = (uv[..., 0] - 128) * sc, (uv[..., 1] - 128) * sc
    r = yy + 2 * (1 - kr) * v
    b = yy + 2 * (1 - kb) * u
    g = (yy - kr * r - kb * b) / (1 - kr - kb)
    want = np.clip(np.stack([r, g, b], -1), 0, 255)
    assert np.abs(got - want).max() <= 0.5 + 1e-3


@requires_cuda
def test_yuv_standards_cuda():
    frame = rand((540, 640), seed=8)
    for standard in ("bt601", "bt709"):
        for r in ("limited", "full"):
            np.testing.assert_array_equal(
                gip.apply("yuv", frame, layout="i420", standard=standard, range=r, device="cuda"),
                gip.apply("yuv", frame, layout="i420", standard=standard, range=r, device="cpu"))


def test_lab_luv_f32():
    """f32 Lab and Luv follow the CIE formulas (tested against them in tests/test_cvt_space.c).
    cv2's inverses follow them too, to 1.5e-4 (measured 8.5e-5 over the u8 cube); its forward
    codes interpolate a table: off by up to 0.25 in L and 0.6 in a and b (measured 0.19 and 0.47
    over the u8 cube), 0.02 in Luv (measured 0.016)."""
    cube = (np.stack(np.meshgrid(np.arange(0, 256, 3), np.arange(256), np.arange(256),
                                 indexing="ij"), -1).reshape(-1, 1024, 3) / 255).astype(np.float32)
    for fw, inv, tol in ((cv2.COLOR_BGR2Lab, cv2.COLOR_Lab2BGR, [0.25, 0.6, 0.6]),
                         (cv2.COLOR_RGB2Lab, cv2.COLOR_Lab2RGB, [0.25, 0.6, 0.6]),
                         (cv2.COLOR_BGR2Luv, cv2.COLOR_Luv2BGR, [0.02, 0.02, 0.02]),
                         (cv2.COLOR_RGB2Luv, cv2.COLOR_Luv2RGB, [0.02, 0.02, 0.02])):
        e, g = cv2.cvtColor(cube, fw), gip.cvtColor(cube, fw)
        assert np.all(np.abs(g - e).reshape(-1, 3).max(0) <= tol), fw
        ei, gi = cv2.cvtColor(e, inv), gip.cvtColor(e, inv)
        # cv2's Luv inverse clamps 1 / (v + 13 L v'n) and loses dark saturated blues (L < 1),
        # which gip takes back to their colours
        keep = e[..., 0] >= 1 if inv in (cv2.COLOR_Luv2BGR, cv2.COLOR_Luv2RGB) else \
            np.ones(e.shape[:2], bool)
        assert np.abs(gi - ei)[keep].max() <= 1.5e-4, inv
        assert np.abs(gip.cvtColor(g, inv) - cube).max() <= 1e-4  # gip's round trip


@requires_cuda
def test_lab_luv_f32_cuda():
    rgb = rand((37, 91, 3), np.float32, seed=3).clip(0, 1)
    for fw, inv in ((cv2.COLOR_BGR2Lab, cv2.COLOR_Lab2BGR), (cv2.COLOR_RGB2Luv, cv2.COLOR_Luv2RGB)):
        c, g = gip.cvtColor(rgb, fw, device="cpu"), gip.cvtColor(rgb, fw, device="cuda")
        np.testing.assert_allclose(g, c, rtol=2e-6, atol=2e-6)  # CUDA's powf, cbrtf
        np.testing.assert_allclose(gip.cvtColor(c, inv, device="cuda"),
                                   gip.cvtColor(c, inv, device="cpu"), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("wh", [(5, 5), (7, 20), (8, 8), (13, 42), (42, 13), (91, 37), (639, 481)])
def test_bayer_vng(wh):
    w, h = wh
    m = rand((h, w), seed=w * 3 + h)
    check_bayer_bgr_rgb(m, "_VNG")
    np.testing.assert_array_equal(gip.Pipeline("bayer rg rgb method=vng")(m),
                                  cv2.cvtColor(m, cv2.COLOR_BayerRG2RGB_VNG))
    with pytest.raises(gip.Unsupported):
        gip.cvtColor(m.astype(np.uint16), cv2.COLOR_BayerBG2BGR_VNG)
    with pytest.raises(gip.InvalidArgument):
        gip.apply("bayer", m, to="bgra", method="vng")


@requires_cuda
def test_bayer_vng_cuda():
    m = rand((481, 639), seed=5)
    for code in (cv2.COLOR_BayerBG2BGR_VNG, cv2.COLOR_BayerGR2RGB_VNG):
        np.testing.assert_array_equal(gip.cvtColor(m, code, device="cuda"),
                                      cv2.cvtColor(m, code))


@pytest.mark.parametrize("standard", ["bt601", "bt709"])
@pytest.mark.parametrize("rng_", ["limited", "full"])
def test_yuv_encode_standards(standard, rng_):
    """Encoding with a standard and range, decoded with the same: back within OpenCV's own error
    for BT.601 limited (4:2:0 takes each block's chroma from one pixel, so flat 2x2 blocks are
    used); the defaults are cv2's."""
    a = rand((18, 32, 3), seed=11).repeat(2, 0).repeat(2, 1)  # flat 2x2 blocks
    for enc, lay, dec in (("yuv420", "nv12", "nv12"), ("yuv422", "yuy2", "yuy2")):
        f = gip.apply(enc, a, layout=lay, standard=standard, range=rng_)
        if standard == "bt601" and rng_ == "limited":
            e = cv2.cvtColor(a, cv2.COLOR_BGR2YUV_I420 if enc == "yuv420" else
                             cv2.COLOR_BGR2YUV_YUY2)
            if enc == "yuv422":
                np.testing.assert_array_equal(f, e.reshape(f.shape))
        back = gip.apply("yuv", f, layout=dec, standard=standard, range=rng_)
        # limited range quantises to 219 (Y) and 224 (chroma) levels
        assert np.abs(back.astype(int) - a).max() <= (3 if rng_ == "limited" else 2), (enc, lay)


def test_color_codes_exported_with_cv2_values():
    """Every COLOR_ code of the colour module is a name of the package, with cv2's value (the
    mixed-case ones, COLOR_BGR2YCrCb or COLOR_Lab2BGR, were left out of the package once)."""
    from gip import _colorops
    codes = [n for n in dir(_colorops) if n.startswith("COLOR_")]
    assert "COLOR_BGR2YCrCb" in codes and "COLOR_Lab2BGR" in codes
    for n in codes:
        assert getattr(gip, n) == getattr(_colorops, n), n
        if hasattr(cv2, n):
            assert getattr(gip, n) == getattr(cv2, n), n
