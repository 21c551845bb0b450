# SPDX-License-Identifier: MIT
"""Morphology against cv2 5.x bit for bit: getStructuringElement for every shape and size,
erode/dilate/morphologyEx on every dtype cv2 and gip share, 1/3/4 channels, every border (and
cv2's default one), anchors, iterations, custom kernels, elements larger than the image, odd
sizes and strides; the registry entries (gip.apply, pipelines, gip.dask with their halos); bad
input refused; CUDA equal to the CPU."""
import cv2
import numpy as np
import pytest

import gip
from conftest import rand, requires_cuda

BORDERS = [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_REFLECT_101]


def same(got, exp):
    """Equal values and dtype; gip keeps an (H, W, 1) input's shape where cv2 drops the 1."""
    got = np.asarray(got)
    if got.ndim == 3 and got.shape[2] == 1 and exp.ndim == 2:
        got = got[:, :, 0]
    return got.dtype == exp.dtype and got.shape == exp.shape and np.array_equal(got, exp)


OPS = [cv2.MORPH_ERODE, cv2.MORPH_DILATE, cv2.MORPH_OPEN, cv2.MORPH_CLOSE, cv2.MORPH_GRADIENT,
       cv2.MORPH_TOPHAT, cv2.MORPH_BLACKHAT]


def test_structuring_element_equals_cv2():
    for shape in (cv2.MORPH_RECT, cv2.MORPH_CROSS, cv2.MORPH_ELLIPSE, cv2.MORPH_DIAMOND):
        for w in range(1, 34):
            for h in range(1, 34):
                for anchor in ((-1, -1), (0, 0), (w - 1, h // 3)):
                    got = gip.getStructuringElement(shape, (w, h), anchor)
                    exp = cv2.getStructuringElement(shape, (w, h), anchor=anchor)
                    assert got.dtype == np.uint8 and np.array_equal(got, exp), (shape, w, h,
                                                                                 anchor)
    for ksize in ((101, 57), (255, 255), (3, 200)):
        assert np.array_equal(gip.get_structuring_element(gip.MORPH_ELLIPSE, ksize),
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, ksize))


def _kernels():
    rng = np.random.default_rng(3)
    custom = rng.integers(0, 2, (4, 5)).astype(np.uint8)
    custom[1, 1] = 1
    return [None, np.ones((3, 3), np.uint8), np.ones((1, 7), np.uint8),
            np.ones((19, 23), np.uint8),
            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 5)),
            cv2.getStructuringElement(cv2.MORPH_CROSS, (5, 5)),
            cv2.getStructuringElement(cv2.MORPH_DIAMOND, (9, 9)), custom]


@pytest.mark.parametrize("shape", [(1, 1), (1, 17), (17, 1), (13, 42), (42, 13, 3), (31, 29, 4),
                                   (64, 48, 1), (5, 3)])
@pytest.mark.parametrize("border", BORDERS)
def test_erode_dilate_u8_equal_cv2(shape, border):
    src = rand(shape, np.uint8, seed=sum(shape) + border)
    for i, k in enumerate(_kernels()):
        for it in (1, 2):
            kw = dict(iterations=it, borderType=border)
            assert same(gip.erode(src, k, **kw), cv2.erode(src, k, **kw)), (i, it)
            assert same(gip.dilate(src, k, **kw), cv2.dilate(src, k, **kw)), (i, it)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_tall_rectangles_equal_cv2(dtype):
    """Rectangles of 8 rows and more on images taller than the CPU's blocks of output rows (the
    column pass's van Herk buffers are cut into blocks of max(64, 4 kh) rows)."""
    for shape, ksize, anchor in (((300, 97), (11, 9), (-1, -1)), ((211, 40, 3), (3, 17), (1, 2)),
                                 ((530, 33), (5, 64), (-1, 60))):
        src = rand(shape, dtype, seed=shape[0])
        k = np.ones(ksize[::-1], np.uint8)
        for border in BORDERS:
            for f in ("erode", "dilate"):
                got = getattr(gip, f)(src, k, anchor=anchor, borderType=border)
                exp = getattr(cv2, f)(src, k, anchor=anchor, borderType=border)
                assert same(got, exp), (shape, ksize, border, f)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_random_elements_equal_cv2(dtype):
    """Elements of random runs (rows of several runs, gaps, empty rows) with random anchors: the
    CPU takes their runs, the GPU their taps; both equal cv2."""
    rng = np.random.default_rng(11)
    for i in range(24):
        kh, kw = int(rng.integers(1, 10)), int(rng.integers(1, 12))
        k = (rng.random((kh, kw)) < rng.uniform(0.3, 0.9)).astype(np.uint8)
        k[rng.integers(0, kh), rng.integers(0, kw)] = 1
        anchor = (int(rng.integers(0, kw)), int(rng.integers(0, kh)))
        shape = [(29, 53), (31, 47, 3), (12, 9, 4)][i % 3]
        src = rand(shape, dtype, seed=100 + i)
        border = BORDERS[i % len(BORDERS)]
        for f in ("erode", "dilate"):
            got = getattr(gip, f)(src, k, anchor=anchor, borderType=border)
            exp = getattr(cv2, f)(src, k, anchor=anchor, borderType=border)
            assert same(got, exp), (i, f, k.tolist(), anchor, border)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_morphology_ex_equal_cv2(op, dtype):
    for j, shape in enumerate([(23, 37), (40, 33, 3), (9, 70, 4)]):
        src = rand(shape, dtype, seed=op * 10 + j)
        for i, k in enumerate(_kernels()):
            for border in BORDERS:
                kw = dict(iterations=1 + (i + j) % 2, borderType=border)
                got = gip.morphologyEx(src, op, k, **kw)
                exp = cv2.morphologyEx(src, op, k, **kw)
                assert same(got, exp), (shape, i, border)


def test_anchor_border_value_iterations():
    src = rand((37, 41, 3), np.uint8, seed=7)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 5))
    for anchor in ((0, 0), (8, 4), (3, -1), (-1, 1)):
        for it in (0, 1, 3):
            for bv in (None, 0, 200, (10, 100, 250)):
                kw = dict(anchor=anchor, iterations=it, borderType=cv2.BORDER_CONSTANT)
                if bv is not None:
                    kw["borderValue"] = bv
                for fn in ("erode", "dilate"):
                    got = getattr(gip, fn)(src, k, **kw)
                    exp = getattr(cv2, fn)(src, k, **kw)
                    assert np.array_equal(got, exp), (fn, anchor, it, bv)
    rect = np.ones((4, 6), np.uint8)  # an all-ones element iterated, anchor scaled as cv2
    for it in (2, 5):
        for bv in (None, 77):
            kw = dict(anchor=(1, 3), iterations=it)
            if bv is not None:
                kw["borderValue"] = bv
            assert np.array_equal(gip.erode(src, rect, **kw), cv2.erode(src, rect, **kw))
            assert np.array_equal(gip.dilate(src, rect, **kw), cv2.dilate(src, rect, **kw))


def test_large_and_larger_than_image():
    src = rand((203, 301, 3), np.uint8, seed=9)
    for k in (np.ones((61, 45), np.uint8), np.ones((1, 301), np.uint8),
              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (31, 31))):
        for border in BORDERS:
            for op in (cv2.MORPH_OPEN, cv2.MORPH_GRADIENT):
                got = gip.morphologyEx(src, op, k, borderType=border)
                assert np.array_equal(got, cv2.morphologyEx(src, op, k, borderType=border))
    tiny = rand((3, 4), np.uint8, seed=2)
    for border in BORDERS:
        for k in (np.ones((9, 11), np.uint8), cv2.getStructuringElement(cv2.MORPH_CROSS, (7, 9))):
            assert np.array_equal(gip.dilate(tiny, k, borderType=border),
                                  cv2.dilate(tiny, k, borderType=border))


def test_hitmiss_equal_cv2():
    src = (rand((45, 38), np.uint8, seed=4) > 100).astype(np.uint8) * 255
    kernels = [np.array([[0, 1, 0], [1, -1, 1], [0, 1, 0]]),
               np.array([[-1, -1, -1], [0, 1, 0], [1, 1, 1]]),
               np.array([[1, 1], [1, 1]]), np.array([[-1, 0, -1]]), np.zeros((3, 3), int)]
    for k in kernels:
        for border in BORDERS:
            for it in (1, 2):
                exp = cv2.morphologyEx(src, cv2.MORPH_HITMISS, k.astype(np.int32), iterations=it,
                                       borderType=border)
                got = gip.morphologyEx(src, gip.MORPH_HITMISS, k, iterations=it,
                                       borderType=border)
                assert np.array_equal(got, exp), (k, border, it)


def test_strided_views_and_dst():
    big = rand((60, 80, 4), np.uint8, seed=5)
    view = big[3:50:2, 5:70]  # row stride of two rows, a column offset
    k = cv2.getStructuringElement(cv2.MORPH_CROSS, (5, 3))
    exp = cv2.dilate(np.ascontiguousarray(view), k)
    assert np.array_equal(gip.dilate(view, k), exp)
    out = np.zeros((view.shape[0], view.shape[1] + 3, 4), np.uint8)[:, :view.shape[1]]
    r = gip.dilate(view, k, dst=out)
    assert r is out and np.array_equal(out, exp)


def test_registry_pipeline_and_dask():
    src = rand((57, 83, 3), np.uint8, seed=8)
    exp = cv2.morphologyEx(src, cv2.MORPH_CLOSE,
                           cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 5)),
                           borderType=cv2.BORDER_REFLECT)
    got = gip.apply("morphology", src, op="close", ksize=(7, 5), shape="ellipse",
                    border="reflect")
    assert np.array_equal(got, exp)
    assert np.array_equal(gip.Pipeline("morphology close 7x5 ellipse border=reflect")(src), exp)
    assert np.array_equal(gip.op.erode(src, kernel=[[0, 1, 0], [1, 1, 1], [0, 1, 0]]),
                          cv2.erode(src, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))))
    try:
        import dask.array as da
        import gip.dask as gd
    except ImportError:  # pragma: no cover
        pytest.skip("dask is not installed")
    big = rand((300, 260), np.uint8, seed=9)
    arr = da.from_array(big, chunks=(64, 70))
    for op, kw in (("erode", dict(ksize=9, shape="ellipse")),
                   ("morphology", dict(op="open", ksize=(5, 7), iterations=2)),
                   ("dilate", dict(ksize=(15, 3), border="reflect101", anchor=(14, 0)))):
        got = gd.apply(op, arr, device="cpu", **kw).compute()
        assert np.array_equal(got, gip.apply(op, big, **kw)), op


def test_bad_input():
    src = rand((20, 30), np.uint8)
    before = src.copy()
    with pytest.raises(gip.InvalidArgument, match="wrap"):
        gip.erode(src, None, borderType=cv2.BORDER_WRAP)
    with pytest.raises(gip.InvalidArgument, match="non-zero"):
        gip.erode(src, np.zeros((3, 3)))
    with pytest.raises(gip.InvalidArgument, match="anchor"):
        gip.dilate(src, np.ones((3, 3)), anchor=(3, 0))
    with pytest.raises(gip.InvalidArgument):
        gip.morphologyEx(src, 9, None)
    with pytest.raises(gip.Unsupported, match="hitmiss"):
        gip.morphologyEx(rand((9, 9, 3), np.uint8), gip.MORPH_HITMISS, np.ones((3, 3)))
    with pytest.raises(gip.InvalidType):
        gip.erode(src, None, iterations=1.5)
    with pytest.raises(gip.InvalidArgument):
        gip.erode(src, None, iterations=-1)
    with pytest.raises(gip.InvalidArgument):
        gip.getStructuringElement(5, (3, 3))
    with pytest.raises(gip.InvalidArgument):
        gip.getStructuringElement(gip.MORPH_RECT, (0, 3))
    with pytest.raises(gip.Unsupported):
        gip.erode(src.astype(np.float64), None)
    dst = np.full((20, 30), 7, np.uint8)
    with pytest.raises(gip.Error):
        gip.erode(src, None, dst=np.zeros((20, 31), np.uint8))
    with pytest.raises(gip.InvalidArgument):
        gip.apply("erode", src, kernel=[[1, 1], [1, 1]], ksize=3, dst=dst)
    assert np.array_equal(src, before) and np.all(dst == 7)


@requires_cuda
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_cuda_equals_cpu(dtype):
    for j, shape in enumerate([(1, 1), (1, 17), (13, 42), (42, 13, 3), (301, 203, 4),
                               (1001, 777)]):
        src = rand(shape, dtype, seed=j)
        for i, k in enumerate(_kernels() + [np.ones((41, 3), np.uint8)]):
            for op in OPS:
                border = BORDERS[(i + j + op) % 4]
                kw = dict(iterations=1 + (i + op) % 2, borderType=border)
                cpu = gip.morphologyEx(src, op, k, device="cpu", **kw)
                gpu = gip.morphologyEx(src, op, k, device="cuda", **kw)
                assert np.array_equal(cpu, gpu), (shape, i, op, border)
                if dtype == np.uint8:
                    assert np.array_equal(gpu, cv2.morphologyEx(src, op, k, **kw))
    src = (rand((64, 48), np.uint8) > 128).astype(np.uint8) * 255
    k = np.array([[0, 1, 0], [1, -1, 1], [0, 1, 0]])
    assert np.array_equal(gip.morphologyEx(src, gip.MORPH_HITMISS, k, device="cuda"),
                          cv2.morphologyEx(src, cv2.MORPH_HITMISS, k.astype(np.int32)))


# ---- medianBlur ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1), (1, 17), (17, 1), (13, 42), (42, 13, 3), (31, 29, 4),
                                   (64, 48, 1)])
def test_median_equal_cv2(shape):
    for dtype in (np.uint8, np.uint16, np.int16, np.float32):
        src = rand(shape, dtype, seed=len(shape))
        for k in (1, 3, 5):
            assert same(gip.medianBlur(src, k), cv2.medianBlur(src, k)), (dtype, k)
    src = rand(shape, np.uint8, seed=5)
    for k in (7, 9, 15, 31, 255):
        assert same(gip.median_blur(src, k), cv2.medianBlur(src, k)), k


def test_median_large_u8_and_ties():
    src = rand((203, 301, 3), np.uint8, seed=2)
    for k in (7, 21, 61):
        assert np.array_equal(gip.median_blur(src, k), cv2.medianBlur(src, k)), k
    ties = (rand((50, 70), np.uint8, seed=3) // 64 * 60).astype(np.uint8)
    for k in (3, 5, 11):
        assert np.array_equal(gip.median_blur(ties, k), cv2.medianBlur(ties, k)), k
    view = rand((80, 90, 4), np.uint8, seed=4)[5:70:3, 7:80]
    assert np.array_equal(gip.median_blur(view, 5), cv2.medianBlur(np.ascontiguousarray(view), 5))


def test_median_registry_and_bad_input():
    src = rand((100, 77), np.uint8, seed=6)
    assert np.array_equal(gip.Pipeline("median 7")(src), cv2.medianBlur(src, 7))
    try:
        import dask.array as da
        import gip.dask as gd
        got = gd.apply("median", da.from_array(src, chunks=(30, 40)), ksize=9, device="cpu")
        assert np.array_equal(got.compute(), cv2.medianBlur(src, 9))
    except ImportError:  # pragma: no cover
        pass
    with pytest.raises(gip.InvalidArgument, match="u8"):
        gip.median_blur(src.astype(np.float32), 7)
    with pytest.raises(gip.InvalidArgument):
        gip.median_blur(src, 4)
    with pytest.raises(gip.InvalidType):
        gip.median_blur(src, 3.0)


@requires_cuda
def test_median_cuda_equals_cpu():
    for dtype in (np.uint8, np.uint16, np.int16, np.float32):
        for shape in ((1, 1), (13, 42), (42, 13, 3), (777, 1001, 4)):
            src = rand(shape, dtype, seed=1)
            for k in (3, 5) + ((7, 15, 101) if dtype == np.uint8 else ()):
                cpu = gip.median_blur(src, k, device="cpu")
                assert np.array_equal(cpu, gip.median_blur(src, k, device="cuda")), (shape, k)


# ---- Laplacian, Scharr, sepFilter2D -------------------------------------------------------------
LIN_BORDERS = [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT,
               cv2.BORDER_REFLECT_101]


@pytest.mark.parametrize("shape", [(1, 1), (1, 17), (17, 1), (13, 42), (42, 13, 3), (31, 29, 4)])
def test_laplacian_u8_equal_cv2(shape):
    src = rand(shape, np.uint8, seed=3)
    for k in (1, 3, 5, 7):
        for ddepth in (-1, cv2.CV_16S, cv2.CV_32F):
            for border in LIN_BORDERS:
                # integer and dyadic scales (OpenCV's 11-bit fixed point of other scales may
                # round one level apart; gip's filter2d arithmetic is documented in filter.h)
                for scale, delta in ((1, 0), (2, 0), (0.5, 3), (-1, 128)):
                    kw = dict(ksize=k, scale=scale, delta=delta, borderType=border)
                    got = gip.Laplacian(src, ddepth, **kw)
                    assert same(got, cv2.Laplacian(src, ddepth, **kw)), (k, ddepth, border, scale)


def test_laplacian_u16_f32():
    src = rand((37, 41, 3), np.uint16, seed=1)
    for k in (1, 3, 5, 7):
        for ddepth in (-1, cv2.CV_32F):
            got, exp = gip.laplacian(src, ddepth, ksize=k), cv2.Laplacian(src, ddepth, ksize=k)
            if k == 7 and ddepth == cv2.CV_32F:  # past 2^24: OpenCV's float sums round, gip's
                # ... and their partial sums reach 65535 * 12 * 64: float steps of up to 4
                np.testing.assert_allclose(got, exp, rtol=0, atol=8)
            else:
                assert same(got, exp), (k, ddepth)
    f = rand((37, 41), np.float32, seed=2)
    for k in (1, 3, 5, 7):
        np.testing.assert_allclose(gip.laplacian(f, -1, ksize=k), cv2.Laplacian(f, -1, ksize=k),
                                   rtol=1e-5, atol=1e-4)


def test_scharr_entry_and_sep_filter_equal_cv2():
    src = rand((45, 38, 3), np.uint8, seed=5)
    for dx, dy in ((1, 0), (0, 1)):
        for dt, dd in (("s16", cv2.CV_16S), ("f32", cv2.CV_32F), ("u8", cv2.CV_8U)):
            assert np.array_equal(gip.apply("scharr", src, dx=dx, dy=dy, dtype=dt),
                                  cv2.Scharr(src, dd, dx, dy))
    kernels = [([1, 2, 1], [-1, 0, 1]), ([1, 4, 6, 4, 1], [1, -2, 1]), ([3], [1, 1, 1, 1, 1]),
               ([2, -1], [1, 1, 1, 1])]
    for shape in ((13, 42), (40, 33, 3), (1, 17), (17, 1), (9, 70, 4)):
        s = rand(shape, np.uint8, seed=len(shape))
        for kx, ky in kernels:
            for ddepth in (-1, cv2.CV_16S, cv2.CV_32F):
                for border in LIN_BORDERS:
                    for delta in (0, 5):
                        exp = cv2.sepFilter2D(s, ddepth, np.float32(kx), np.float32(ky),
                                              delta=delta, borderType=border)
                        got = gip.sepFilter2D(s, ddepth, kx, ky, delta=delta, borderType=border)
                        assert same(got, exp), (shape, kx, ky, ddepth, border, delta)
    exp = cv2.sepFilter2D(src, -1, np.float32([1, 2, 1]), np.float32([1, 1]), anchor=(0, 1))
    assert np.array_equal(gip.sepFilter2D(src, -1, [1, 2, 1], [1, 1], anchor=(0, 1)), exp)
    f = rand((30, 40), np.float32, seed=1)
    np.testing.assert_allclose(
        gip.sep_filter2d(f, -1, [0.25, 0.5, 0.25], [0.1, 0.2, 0.4, 0.2, 0.1]),
        cv2.sepFilter2D(f, -1, np.float32([0.25, 0.5, 0.25]), np.float32([0.1, 0.2, 0.4, 0.2,
                                                                           0.1])),
        rtol=1e-5, atol=1e-6)
    with pytest.raises(gip.InvalidArgument):
        gip.sep_filter2d(src, -1, np.ones((2, 2)), [1])
    with pytest.raises(gip.InvalidArgument):
        gip.laplacian(src, -1, ksize=4)


@requires_cuda
def test_laplacian_sep_filter_cuda_equal_cpu():
    for dtype in (np.uint8, np.uint16, np.float32):
        src = rand((301, 203, 3), dtype, seed=4)
        for k in (1, 3, 5, 7):
            for ddepth in (-1, cv2.CV_16S, cv2.CV_32F):
                a = gip.laplacian(src, ddepth, ksize=k, device="cpu")
                b = gip.laplacian(src, ddepth, ksize=k, device="cuda")
                if dtype == np.float32 or ddepth == cv2.CV_32F and dtype != np.uint8:
                    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-5)
                else:
                    assert np.array_equal(a, b), (dtype, k, ddepth)
        a = gip.sep_filter2d(src, -1, [1, 2, 1], [1, 4, 6, 4, 1], device="cpu")
        assert np.array_equal(a, gip.sep_filter2d(src, -1, [1, 2, 1], [1, 4, 6, 4, 1],
                                                  device="cuda"))


# ---- Canny --------------------------------------------------------------------------------------
def _canny_images():
    from conftest import sample
    astro = np.asarray(sample("astronaut.png"))
    return [rand((64, 48), np.uint8, 1), cv2.GaussianBlur(rand((120, 97), np.uint8, 2), (5, 5), 0),
            astro[:200, :260], cv2.GaussianBlur(rand((50, 70, 3), np.uint8, 3), (3, 3), 0),
            rand((1, 17), np.uint8, 4), rand((17, 1), np.uint8, 5), rand((1, 1), np.uint8, 6),
            cv2.GaussianBlur(rand((40, 40, 4), np.uint8, 6), (7, 7), 0)]


def test_canny_equal_cv2():
    for i, img in enumerate(_canny_images()):
        for ap in (3, 5, 7):
            for l2 in (False, True):
                for t1, t2 in ((50, 150), (100, 20), (10, 30), (300, 900), (1000, 3000), (0, 0),
                               (25.5, 80.7), (-5, 10), (5000, 40000)):
                    exp = cv2.Canny(img, t1, t2, apertureSize=ap, L2gradient=l2)
                    got = gip.Canny(img, t1, t2, apertureSize=ap, L2gradient=l2)
                    assert same(got, exp), (i, ap, l2, t1, t2)


def test_canny_dxdy_equal_cv2():
    img = cv2.GaussianBlur(rand((120, 97, 3), np.uint8, 2), (5, 5), 0)
    for border in (cv2.BORDER_DEFAULT, cv2.BORDER_REPLICATE):
        dx = cv2.Sobel(img, cv2.CV_16S, 1, 0, borderType=border)
        dy = cv2.Sobel(img, cv2.CV_16S, 0, 1, borderType=border)
        for l2 in (False, True):
            for t1, t2 in ((50, 150), (20, 60)):
                exp = cv2.Canny(dx, dy, t1, t2, L2gradient=l2)
                assert np.array_equal(gip.Canny(dx, dy, t1, t2, L2gradient=l2), exp)
                assert np.array_equal(gip.apply("canny_dxdy", dx, dy=dy, threshold1=t1,
                                                threshold2=t2, l2=l2), exp)
    big = np.full((30, 40), 30000, np.int16)  # large derivatives: OpenCV's int32 arithmetic
    big[::3] = -32768
    assert np.array_equal(gip.Canny(big, big[::-1].copy(), 100, 200, L2gradient=True),
                          cv2.Canny(big, big[::-1].copy(), 100, 200, L2gradient=True))


def test_canny_registry_and_bad_input():
    img = _canny_images()[2]
    assert np.array_equal(gip.Pipeline("canny 50 150 aperture=5 l2=1")(img),
                          cv2.Canny(img, 50, 150, apertureSize=5, L2gradient=True))
    with pytest.raises(gip.InvalidArgument):
        gip.Canny(img, 50, 150, apertureSize=4)
    with pytest.raises(gip.Unsupported):
        gip.Canny(img.astype(np.uint16), 50, 150)
    dx = np.zeros((10, 10), np.int16)
    with pytest.raises(gip.Error):
        gip.Canny(dx, np.zeros((10, 11), np.int16), 50, 150)
    try:
        import dask.array as da
        import gip.dask as gd
    except ImportError:  # pragma: no cover
        return
    with pytest.raises(ValueError):  # whole-image: refused unless single_chunk
        gd.apply("canny", da.from_array(img[:, :, 0], chunks=(50, 50)), threshold1=50,
                 threshold2=150)


@requires_cuda
def test_canny_cuda_equal_cpu_and_cv2():
    for img in _canny_images() + [cv2.GaussianBlur(rand((777, 1001, 3), np.uint8, 8), (5, 5), 0)]:
        for ap in (3, 5, 7):
            for l2 in (False, True):
                kw = dict(apertureSize=ap, L2gradient=l2)
                gpu = gip.Canny(img, 40, 120, device="cuda", **kw)
                assert np.array_equal(gpu, gip.Canny(img, 40, 120, device="cpu", **kw))
                assert same(gpu, cv2.Canny(img, 40, 120, **kw))
    # a spiral: one weak chain that crosses many 32x32 tiles back and forth
    yy, xx = np.mgrid[0:512, 0:512]
    ang = np.arctan2(yy - 256, xx - 256)
    spiral = ((np.hypot(yy - 256, xx - 256) + ang * 40 / np.pi) % 40 < 20).astype(np.uint8) * 60
    spiral[250:262, 250:262] = 255
    exp = cv2.Canny(spiral, 50, 2000)
    assert np.array_equal(gip.Canny(spiral, 50, 2000, device="cuda"), exp)


# ---- bilateralFilter ---------------------------------------------------------------------------
def test_bilateral_within_one_level_of_cv2():
    from conftest import sample
    astro = np.asarray(sample("astronaut.png"))[:200, :260].copy()
    imgs = [astro, astro[:, :, 0].copy(), rand((37, 41, 3), np.uint8, 1),
            rand((1, 17), np.uint8, 2), rand((17, 1, 3), np.uint8, 3)]
    for img in imgs:
        for d, sc, ss in ((9, 75, 75), (5, 20, 3), (0, 30, 2.5), (15, 150, 10), (-1, 10, 1)):
            for border in (0, 1, 2, 3, 4):
                exp = cv2.bilateralFilter(img, d, sc, ss, borderType=border)
                got = np.asarray(gip.bilateralFilter(img, d, sc, ss, borderType=border))
                # cv2 sums the floats in another order (and its 1-channel path differs again):
                # one level at most, the tolerance gip_bilateral_filter documents
                diff = np.abs(got.reshape(exp.shape).astype(int) - exp)
                assert diff.max() <= 1, (img.shape, d, sc, ss, border)
    f = astro.astype(np.float32) / 255
    for d, sc, ss in ((9, 0.3, 75), (5, 0.1, 3)):
        np.testing.assert_allclose(gip.bilateral_filter(f, d, sc, ss),
                                   cv2.bilateralFilter(f, d, sc, ss), atol=1e-4)
    with pytest.raises(gip.Unsupported):
        gip.bilateral_filter(rand((9, 9, 4), np.uint8), 5, 10, 10)


@requires_cuda
def test_bilateral_cuda_equal_cpu():
    for shape in ((37, 41, 3), (777, 1001), (1, 17)):
        img = rand(shape, np.uint8, 4)
        for d, sc, ss in ((9, 75, 75), (5, 20, 3)):
            assert np.array_equal(gip.bilateral_filter(img, d, sc, ss, device="cuda"),
                                  gip.bilateral_filter(img, d, sc, ss, device="cpu"))


# ---- unsharp mask -------------------------------------------------------------------------------
def test_unsharp_equals_cv2_recipe():
    from conftest import sample
    astro = np.asarray(sample("astronaut.png"))[:200, :260].copy()
    for img in (astro, rand((37, 41), np.uint8, 1), rand((1, 17, 4), np.uint8, 2)):
        for k, s, a in (((5, 5), 0, 1.0), ((9, 9), 2.0, 0.7), ((0, 0), 1.5, 2.5), ((3, 7), 0, 0.5),
                        ((5, 5), 0, 1.3)):
            for border in (0, 1, 2, 4):
                blur = cv2.GaussianBlur(img, k, s, borderType=border)
                exp = cv2.addWeighted(img, 1 + a, blur, -a, 0)
                got = gip.unsharp_mask(img, k, s, a, borderType=border)
                assert same(got, exp), (img.shape, k, s, a, border)
    img = rand((30, 40), np.uint8, 5)
    blur = cv2.GaussianBlur(img, (5, 5), 0)
    exp = np.where(np.abs(img.astype(int) - blur) < 10, img, cv2.addWeighted(img, 2, blur, -1, 0))
    assert np.array_equal(gip.unsharp_mask(img, threshold=10), exp)
    assert np.array_equal(gip.Pipeline("unsharp 5 amount=1")(img), cv2.addWeighted(img, 2, blur,
                                                                                    -1, 0))


@requires_cuda
def test_unsharp_cuda_equal_cpu():
    for dtype in (np.uint8, np.uint16, np.float32):
        img = rand((301, 203, 3), dtype, 6)
        a = gip.unsharp_mask(img, (9, 9), 2.0, 0.7, device="cpu")
        assert np.array_equal(a, gip.unsharp_mask(img, (9, 9), 2.0, 0.7, device="cuda"))
