# SPDX-License-Identifier: MIT
"""gip.resize against cv2.resize: bit for bit on uint8 and uint16 for every interpolation against
OpenCV's own code (cv2 with IPP off), bit for bit on uint8 against cv2 as shipped except
INTER_CUBIC, where cv2 hands uint8 to Intel IPP (within one level); float32 within 1e-6; awkward
sizes, fx/fy, strided views; antialias against a double-precision reference; CUDA equal to the
CPU; bad input refused."""
import contextlib
import os

import cv2
import numpy as np
import pytest

import gip
from conftest import requires_cuda

INTERS = [gip.INTER_NEAREST, gip.INTER_LINEAR, gip.INTER_CUBIC, gip.INTER_AREA,
          gip.INTER_LANCZOS4, gip.INTER_LINEAR_EXACT, gip.INTER_NEAREST_EXACT]
SIZES = [((1, 1), (3, 2)), ((1, 1), (1, 1)), ((13, 42), (7, 5)), ((13, 42), (29, 97)),
         ((101, 77), (50, 38)), ((64, 48), (32, 24)), ((37, 23), (74, 46)),
         ((100, 60), (33, 20)), ((7, 1), (3, 1)), ((1, 9), (1, 20)), ((97, 89), (41, 113)),
         ((120, 90), (40, 30)), ((41, 43), (17, 19)), ((5, 7), (1, 1)), ((31, 17), (31, 17)),
         ((60, 45), (20, 15)), ((2, 2), (200, 3)), ((211, 5), (67, 13))]


@contextlib.contextmanager
def no_ipp():
    was = cv2.ipp.useIPP()
    cv2.ipp.setUseIPP(False)
    try:
        yield
    finally:
        cv2.ipp.setUseIPP(was)


def image(shape, dt, seed):
    rng = np.random.default_rng(seed)
    if dt == np.uint8:
        return rng.integers(0, 256, shape).astype(dt)
    if dt == np.uint16:
        return rng.integers(0, 65536, shape).astype(dt)
    return rng.random(shape).astype(dt)


def shape_of(w, h, c):
    return (h, w) if c == 1 else (h, w, c)


def check(got, ref, dt, what):
    assert got.shape == ref.shape and got.dtype == ref.dtype, what
    if dt == np.float32:
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6, err_msg=what)
        return
    d = np.abs(got.astype(np.int64) - ref.astype(np.int64))
    if d.max(initial=0):
        y, x = np.argwhere(d.reshape(d.shape[0], d.shape[1], -1).max(axis=2))[0]
        raise AssertionError("%s: %d elements differ, max %d; first at x=%d y=%d: got %s, "
                             "expected %s" % (what, (d > 0).sum(), d.max(), x, y, got[y, x],
                                              ref[y, x]))


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("c", [1, 3, 4])
@pytest.mark.parametrize("inter", INTERS)
def test_resize_vs_opencv(dt, c, inter):
    """Every size of SIZES, by dsize and by fx/fy, against OpenCV's own code."""
    for i, ((sw, sh), (dw, dh)) in enumerate(SIZES):
        a = image(shape_of(sw, sh, c), dt, i * 7 + c)
        for kw in (dict(dsize=(dw, dh)), dict(dsize=None, fx=dw / sw * 1.01, fy=dh / sh * 0.99)):
            try:
                with no_ipp():
                    ref = cv2.resize(a, interpolation=inter, **kw)
            except cv2.error:
                with pytest.raises(gip.InvalidArgument):
                    gip.resize(a, interpolation=inter, device="cpu", **kw)
                continue
            got = gip.resize(a, interpolation=inter, device="cpu", **kw)
            check(got, ref, dt, "%s c%d %dx%d %s inter %d" % (np.dtype(dt).name, c, sw, sh, kw,
                                                               inter))


@pytest.mark.parametrize("inter", INTERS)
def test_resize_u8_vs_shipped_cv2(inter):
    """cv2 as shipped (IPP on): identical on uint8, except INTER_CUBIC that IPP computes with
    its own rounding (one level at most, on a few percent of the pixels)."""
    for i, ((sw, sh), (dw, dh)) in enumerate(SIZES):
        for c in (1, 3):
            a = image(shape_of(sw, sh, c), np.uint8, i + 100)
            ref = cv2.resize(a, (dw, dh), interpolation=inter)
            got = gip.resize(a, (dw, dh), interpolation=inter, device="cpu")
            d = np.abs(got.astype(int) - ref.astype(int))
            if inter == gip.INTER_CUBIC:
                assert d.max(initial=0) <= 1 and (d > 0).mean() < 0.1, (sw, sh, dw, dh)
            else:
                assert d.max(initial=0) == 0, (sw, sh, dw, dh, c)


def test_resize_large_and_strided():
    """A larger image and non-contiguous views (a column slice and a flipped view)."""
    a = image((731, 1013, 3), np.uint8, 9)
    view = a[5:700:2, 3:1000]  # strided rows, offset columns
    for inter in INTERS:
        with no_ipp():
            ref = cv2.resize(np.ascontiguousarray(view), (517, 289), interpolation=inter)
        check(gip.resize(view, (517, 289), interpolation=inter, device="cpu"), ref, np.uint8,
              "strided inter %d" % inter)
    ref = cv2.resize(a, None, fx=0.37, fy=0.41, interpolation=cv2.INTER_AREA)
    check(gip.resize(a, None, fx=0.37, fy=0.41, interpolation=gip.INTER_AREA, device="cpu"),
          ref, np.uint8, "area 0.37")


def test_identity_exact():
    """The same size is a copy for every interpolation and dtype."""
    for dt in (np.uint8, np.uint16, np.float32):
        a = image((17, 23, 3), dt, 3)
        for inter in INTERS:
            assert np.array_equal(gip.resize(a, (23, 17), interpolation=inter), a)
            assert np.array_equal(gip.resize(a, None, fx=1, fy=1, interpolation=inter), a)


def aa_reference(a, dw, dh, cubic):
    """Pillow's and torchvision's antialiased separable resampling in double precision."""
    def weights(sn, dn):
        scale = sn / dn
        ss = max(scale, 1.0)
        support = (2.0 if cubic else 1.0) * ss
        m = np.zeros((dn, sn))
        for d in range(dn):
            center = (d + 0.5) * scale
            lo = max(int(np.floor(center - support + 0.5)), 0)
            hi = min(int(np.floor(center + support + 0.5)), sn)
            x = (np.arange(lo, hi) - center + 0.5) / ss
            ax = np.abs(x)
            if cubic:
                w = np.where(ax < 1, (1.5 * ax - 2.5) * ax * ax + 1,
                             np.where(ax < 2, (((ax - 5) * ax + 8) * ax - 4) * -0.5, 0))
            else:
                w = np.maximum(0, 1 - ax)
            m[d, lo:hi] = w / w.sum()
        return m
    wx, wy = weights(a.shape[1], dw), weights(a.shape[0], dh)
    f = a.astype(np.float64).reshape(a.shape[0], a.shape[1], -1)
    out = np.einsum("yh,hwc,xw->yxc", wy, f, wx)
    return out.reshape((dh, dw) + a.shape[2:])


@pytest.mark.parametrize("cubic", [False, True])
def test_antialias(cubic):
    inter = gip.INTER_CUBIC if cubic else gip.INTER_LINEAR
    for (sw, sh), (dw, dh) in [((97, 61), (23, 17)), ((64, 64), (16, 32)), ((50, 40), (49, 13))]:
        a = image((sh, sw, 3), np.float32, sw)
        ref = aa_reference(a, dw, dh, cubic)
        got = gip.resize(a, (dw, dh), interpolation=inter, antialias=True)
        np.testing.assert_allclose(got, ref, atol=2e-6)
        u = image((sh, sw), np.uint8, sh)
        ref8 = np.clip(np.rint(aa_reference(u, dw, dh, cubic)), 0, 255)
        got8 = gip.resize(u, (dw, dh), interpolation=inter, antialias=True)
        assert np.abs(got8.astype(int) - ref8).max() <= 1
        assert (got8 != ref8).mean() < 0.01
    # enlarging only: antialias changes nothing
    a = image((20, 30), np.uint8, 1)
    assert np.array_equal(gip.resize(a, (45, 41), interpolation=inter, antialias=True),
                          gip.resize(a, (45, 41), interpolation=inter))


def test_pipeline_and_registry():
    a = image((40, 60, 3), np.uint8, 5)
    with no_ipp():
        ref = cv2.resize(a, (31, 17), interpolation=cv2.INTER_CUBIC)
    assert np.array_equal(gip.Pipeline("resize 31x17 interpolation=cubic", device="cpu")(a), ref)
    assert np.array_equal(gip.apply("resize", a, dsize=(31, 17), interpolation="cubic",
                                    device="cpu"), ref)
    half = gip.Pipeline("resize 0 fx=0.5 fy=0.5 | invert", device="cpu")(a)
    assert np.array_equal(half, 255 - cv2.resize(a, None, fx=0.5, fy=0.5))


def test_bad_input():
    a = image((10, 12, 3), np.uint8, 1)
    with pytest.raises(gip.InvalidArgument):
        gip.resize(a, None)  # neither dsize nor fx, fy
    with pytest.raises(gip.InvalidArgument):
        gip.resize(a, (0, 5), fx=0, fy=0)
    with pytest.raises(gip.InvalidArgument):
        gip.resize(a, (5, 5), interpolation=9)
    with pytest.raises(gip.InvalidArgument):
        gip.resize(a, (5, 5), interpolation=gip.INTER_AREA, antialias=True)
    with pytest.raises(gip.InvalidArgument):
        gip.resize(a, (-1, 5))
    with pytest.raises(gip.InvalidType):
        gip.resize(a, (5.5, 5))
    with pytest.raises(gip.InvalidArgument):
        gip.resize(a, None, fx=0.01, fy=0.01)  # an empty result
    with pytest.raises(gip.Unsupported):
        gip.resize(a.astype(np.int16), (5, 5))
    dst = np.full((5, 6, 3), 7, np.uint8)
    with pytest.raises(gip.ShapeMismatch):
        gip.resize(a, (5, 5), dst=dst)  # dst not dsize
    assert (dst == 7).all()


@requires_cuda
@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_resize_cuda_equals_cpu(dt):
    """Every interpolation and size on the GPU: identical to the CPU (floats too: the same
    single-precision operations in the same order, never fused)."""
    for i, ((sw, sh), (dw, dh)) in enumerate(SIZES):
        for c in (1, 3, 4):
            a = image(shape_of(sw, sh, c), dt, i + c)
            for inter in INTERS:
                cpu = gip.resize(a, (dw, dh), interpolation=inter, device="cpu")
                gpu = gip.resize(a, (dw, dh), interpolation=inter, device="cuda")
                assert np.array_equal(cpu, gpu), (np.dtype(dt).name, c, sw, sh, dw, dh, inter)
                dev = gip.resize(gip.upload(a), (dw, dh), interpolation=inter)
                assert np.array_equal(dev.download(), cpu)
            for cubic in (False, True):
                if dw < sw or dh < sh:
                    it = gip.INTER_CUBIC if cubic else gip.INTER_LINEAR
                    assert np.array_equal(
                        gip.resize(a, (dw, dh), interpolation=it, antialias=True, device="cpu"),
                        gip.resize(a, (dw, dh), interpolation=it, antialias=True, device="cuda"))


# ---- rotate, transpose, copy_make_border, crop -----------------------------------------------
MOVE_DTYPES = [np.uint8, np.uint16, np.int16, np.float32]
MOVE_SIZES = [(1, 1), (1, 7), (9, 1), (13, 42), (37, 23), (101, 64)]
BORDERS = [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_WRAP,
           cv2.BORDER_REFLECT_101]


def move_image(h, w, c, dt, seed):
    a = np.random.default_rng(seed).random((h, w, c) if c > 1 else (h, w)) * 1000 - 100
    return a.astype(dt)


@pytest.mark.parametrize("dt", MOVE_DTYPES)
@pytest.mark.parametrize("c", [1, 3, 4])
def test_rotate_transpose_vs_opencv(dt, c):
    for i, (h, w) in enumerate(MOVE_SIZES):
        a = move_image(h, w, c, dt, i)
        for code in (gip.ROTATE_90_CLOCKWISE, gip.ROTATE_180, gip.ROTATE_90_COUNTERCLOCKWISE):
            assert np.array_equal(gip.rotate(a, code, device="cpu"), cv2.rotate(a, code))
        assert np.array_equal(gip.transpose(a, device="cpu"), cv2.transpose(a))
        view = a[::-1, 1:]  # a strided, flipped view
        if view.shape[1]:
            assert np.array_equal(gip.rotate(view, 0, device="cpu"), cv2.rotate(view, 0))


@pytest.mark.parametrize("dt", MOVE_DTYPES)
@pytest.mark.parametrize("c", [1, 3, 4])
def test_copy_make_border_vs_opencv(dt, c):
    for i, (h, w) in enumerate(MOVE_SIZES):
        a = move_image(h, w, c, dt, i)
        for bt in BORDERS:
            for m in ((0, 0, 0, 0), (1, 2, 3, 4), (20, 17, 50, 3)):
                for val in (None, 7, (1.6, 300, -5, 2)):
                    if val is None:
                        ref = cv2.copyMakeBorder(a, *m, bt)
                        got = gip.copy_make_border(a, *m, bt, device="cpu")
                    else:
                        ref = cv2.copyMakeBorder(a, *m, bt, value=val)
                        got = gip.copy_make_border(a, *m, bt, value=val, device="cpu")
                    assert np.array_equal(got, ref), (np.dtype(dt).name, c, h, w, bt, m, val)


def test_crop_and_pipelines():
    a = move_image(40, 60, 3, np.uint8, 1)
    assert np.array_equal(gip.Pipeline("crop 5 7 20 11", device="cpu")(a), a[7:18, 5:25])
    assert np.array_equal(gip.apply("crop", a, x=0, y=0, w=60, h=40, device="cpu"), a)
    got = gip.Pipeline("copy_make_border 1 2 3 4 border=reflect | rotate 90 | transpose",
                       device="cpu")(a)
    ref = cv2.transpose(cv2.rotate(cv2.copyMakeBorder(a, 1, 2, 3, 4, cv2.BORDER_REFLECT), 0))
    assert np.array_equal(got, ref)
    with pytest.raises(gip.InvalidArgument):
        gip.apply("crop", a, x=50, y=0, w=20, h=5)  # outside
    with pytest.raises(gip.InvalidArgument):
        gip.rotate(a, 3)
    with pytest.raises(gip.InvalidArgument):
        gip.copy_make_border(a, -1, 0, 0, 0, cv2.BORDER_CONSTANT)
    with pytest.raises(gip.InvalidArgument):
        gip.copy_make_border(a, 1, 1, 1, 1, cv2.BORDER_TRANSPARENT)
    dst = np.zeros((60, 40, 3), np.uint16)
    with pytest.raises((gip.ShapeMismatch, gip.InvalidArgument)):
        gip.transpose(a, dst=dst)
    assert not dst.any()


@requires_cuda
def test_moves_cuda_equal_cpu():
    for dt in MOVE_DTYPES:
        for c in (1, 3, 4):
            for i, (h, w) in enumerate(MOVE_SIZES):
                a = move_image(h, w, c, dt, i)
                for code in range(3):
                    assert np.array_equal(gip.rotate(a, code, device="cuda"),
                                          gip.rotate(a, code, device="cpu"))
                assert np.array_equal(gip.transpose(a, device="cuda"), cv2.transpose(a))
                for bt in BORDERS:
                    assert np.array_equal(
                        gip.copy_make_border(a, 3, 20, 17, 2, bt, value=(5, 6, 7, 8),
                                             device="cuda"),
                        gip.copy_make_border(a, 3, 20, 17, 2, bt, value=(5, 6, 7, 8),
                                             device="cpu"))
                dev = gip.upload(a)
                assert np.array_equal(gip.apply("crop", dev, x=0, y=0, w=w, h=h).download(), a)


# ---- warps -----------------------------------------------------------------------------------
WARP_SIZES = [((37, 53), (41, 45)), ((1, 1), (5, 3)), ((1, 17), (9, 9)), ((64, 48), (64, 48)),
              ((120, 97), (131, 77)), ((13, 300), (287, 31))]
WARP_BORDERS = BORDERS + [gip.BORDER_TRANSPARENT]


def affine_mats(w, h):
    return [cv2.getRotationMatrix2D((w / 2, h / 2), 33, 0.9), np.array([[1.3, 0.2, -3.5],
                                                                        [-0.1, 0.8, 2.25]])]


PERSP = [np.array([[0.9, 0.1, 3], [-0.05, 1.1, -2], [0.001, -0.002, 1.0]]),
         np.array([[1.1, -0.2, 5], [0.1, 0.95, -4], [-0.0007, 0.0011, 1.02]])]


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_warps_vs_opencv(dt, c):
    """Every size, matrix, border (transparent into a given dst), nearest and linear, with and
    without WARP_INVERSE_MAP: equal to OpenCV's code bit for bit, every dtype."""
    rng = np.random.default_rng(c)
    for (h, w), (dw, dh) in WARP_SIZES:
        a = image(shape_of(w, h, c), dt, w + h)
        for kind, mats in (("affine", affine_mats(w, h)), ("perspective", PERSP)):
            f = cv2.warpAffine if kind == "affine" else cv2.warpPerspective
            g = gip.warp_affine if kind == "affine" else gip.warp_perspective
            for M in mats:
                for bt in WARP_BORDERS:
                    for fl in (cv2.INTER_NEAREST, cv2.INTER_LINEAR,
                               cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, cv2.INTER_AREA):
                        init = image(shape_of(dw, dh, c), dt, int(rng.integers(1000)))
                        with no_ipp():
                            ref = f(a, M, (dw, dh), dst=init.copy(), flags=fl, borderMode=bt,
                                    borderValue=(7, 8, 9, 10))
                        got = g(a, M, (dw, dh), dst=init.copy(), flags=fl, borderMode=bt,
                                borderValue=(7, 8, 9, 10), device="cpu")
                        check(got, ref, dt, "%s %s c%d %dx%d->%dx%d border %d flags %d"
                              % (kind, np.dtype(dt).name, c, w, h, dw, dh, bt, fl))


def test_warp_identity_and_shipped_cv2():
    """The identity warps copy; a shift by whole pixels moves pixels; cv2 as shipped (which
    hands some warps to Intel IPP, with its own rounding) is within a level on linear uint8."""
    a = image((40, 50, 3), np.uint8, 4)
    for fl in (cv2.INTER_NEAREST, cv2.INTER_LINEAR):
        assert np.array_equal(gip.warp_affine(a, np.eye(2, 3), (50, 40), flags=fl), a)
        assert np.array_equal(gip.warp_perspective(a, np.eye(3), (50, 40), flags=fl), a)
        shifted = gip.warp_affine(a, np.array([[1, 0, 3], [0, 1, -2]], float), (50, 40),
                                  flags=fl, borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(shifted[:38, 3:], a[2:, :47])
    for bt in BORDERS:
        for M in PERSP:
            ref = cv2.warpPerspective(a, M, (45, 41), borderMode=bt, borderValue=(1, 2, 3))
            got = gip.warp_perspective(a, M, (45, 41), borderMode=bt, borderValue=(1, 2, 3))
            assert np.abs(got.astype(int) - ref).max() <= 1
        for M in affine_mats(50, 40):
            ref = cv2.warpAffine(a, M, (45, 41), borderMode=bt, borderValue=(1, 2, 3))
            got = gip.warp_affine(a, M, (45, 41), borderMode=bt, borderValue=(1, 2, 3))
            assert np.abs(got.astype(int) - ref).max() <= 1


def test_transform_matrices():
    """The matrices against cv2's to 1e-9."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        c = tuple(rng.random(2) * 500)
        ang, sc = rng.random() * 720 - 360, rng.random() * 3
        np.testing.assert_allclose(gip.get_rotation_matrix_2d(c, ang, sc),
                                   cv2.getRotationMatrix2D(c, ang, sc), rtol=0, atol=1e-9)
        s3 = (rng.random((3, 2)) * 400).astype(np.float32)
        d3 = (rng.random((3, 2)) * 400).astype(np.float32)
        np.testing.assert_allclose(gip.get_affine_transform(s3, d3),
                                   cv2.getAffineTransform(s3, d3), rtol=1e-9, atol=1e-9)
        s4 = np.array([[0, 0], [300, 10], [310, 240], [5, 250]], np.float32) + \
            (rng.random((4, 2)) * 20).astype(np.float32)
        d4 = (rng.random((4, 2)) * 30).astype(np.float32) + \
            np.array([[10, 20], [290, 0], [280, 260], [0, 230]], np.float32)
        np.testing.assert_allclose(gip.get_perspective_transform(s4, d4),
                                   cv2.getPerspectiveTransform(s4, d4), rtol=1e-9, atol=1e-9)
        M = cv2.getRotationMatrix2D(c, ang, sc)
        np.testing.assert_allclose(gip.invert_affine_transform(M),
                                   cv2.invertAffineTransform(M), rtol=0, atol=1e-9)
    with pytest.raises(gip.InvalidArgument):
        gip.get_affine_transform([[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 0], [0, 1]])


def test_warp_bad_input():
    a = image((10, 12, 3), np.uint8, 1)
    M = np.eye(2, 3)
    with pytest.raises(gip.InvalidArgument):
        gip.warp_affine(a, np.eye(3), (5, 5))  # wrong shape
    with pytest.raises(gip.InvalidArgument):
        gip.warp_affine(a, M, (5, 5), flags=cv2.INTER_LINEAR_EXACT)
    with pytest.raises(gip.InvalidArgument):
        gip.warp_affine(a, M, (5, 5), borderMode=cv2.BORDER_TRANSPARENT)  # needs dst
    with pytest.raises(gip.InvalidArgument):
        gip.warp_affine(a, np.array([[np.nan, 0, 0], [0, 1, 0]]), (5, 5))
    with pytest.raises(gip.InvalidArgument):
        gip.warp_perspective(a, np.eye(2, 3), (5, 5))
    with pytest.raises(gip.Unsupported):
        gip.warp_affine(a.astype(np.int16), M, (5, 5))
    dst = np.full((5, 5, 3), 9, np.uint8)
    with pytest.raises(gip.ShapeMismatch):
        gip.warp_affine(a, M, (6, 5), dst=dst)
    assert (dst == 9).all()
    assert np.array_equal(gip.warp_affine(a, M, None), a)  # dsize None: the source's size
    out = gip.Pipeline("warp_affine 1,0,2,0,1,1 border=replicate interpolation=nearest",
                       device="cpu")(a)
    with no_ipp():
        assert np.array_equal(out, cv2.warpAffine(a, np.array([[1, 0, 2], [0, 1, 1]], float),
                                                  (12, 10), flags=cv2.INTER_NEAREST,
                                                  borderMode=cv2.BORDER_REPLICATE))


@requires_cuda
@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_warps_cuda_equal_cpu(dt):
    for (h, w), (dw, dh) in WARP_SIZES:
        for c in (1, 3, 4):
            a = image(shape_of(w, h, c), dt, w * c)
            for kind, mats in (("affine", affine_mats(w, h)), ("perspective", PERSP)):
                g = gip.warp_affine if kind == "affine" else gip.warp_perspective
                for M in mats:
                    for bt in WARP_BORDERS:
                        for fl in (cv2.INTER_NEAREST, cv2.INTER_LINEAR):
                            init = image(shape_of(dw, dh, c), dt, 5)
                            cpu = g(a, M, (dw, dh), dst=init.copy(), flags=fl, borderMode=bt,
                                    borderValue=(7, 8, 9, 10), device="cpu")
                            gpu = g(a, M, (dw, dh), dst=init.copy(), flags=fl, borderMode=bt,
                                    borderValue=(7, 8, 9, 10), device="cuda")
                            assert np.array_equal(cpu, gpu), (kind, np.dtype(dt).name, c, w, h,
                                                              bt, fl)


# ---- pyramids --------------------------------------------------------------------------------
PYR_SIZES = [(1, 1), (1, 2), (2, 1), (1, 7), (9, 1), (2, 2), (3, 3), (5, 4), (13, 42), (37, 23),
             (64, 48), (101, 77)]


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_pyramids_vs_opencv(dt, c):
    """cv2.pyrDown (every border it takes) and cv2.pyrUp: bit for bit on uint8 and uint16 (cv2
    as shipped), float32 within 1e-6."""
    for i, (h, w) in enumerate(PYR_SIZES):
        a = image(shape_of(w, h, c), dt, i + c)
        for bt in (cv2.BORDER_REFLECT_101, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT,
                   cv2.BORDER_WRAP):
            check(gip.pyr_down(a, borderType=bt, device="cpu"), cv2.pyrDown(a, borderType=bt), dt,
                  "pyr_down %dx%d border %d" % (w, h, bt))
        check(gip.pyr_up(a, device="cpu"), cv2.pyrUp(a), dt, "pyr_up %dx%d" % (w, h))
    view = image((50, 70, 3), np.uint8, 3)[::2, 5:]
    check(gip.pyr_down(view), cv2.pyrDown(np.ascontiguousarray(view)), np.uint8, "strided")


def test_pyramids_bad_input_and_pipeline():
    a = image((20, 30, 3), np.uint8, 1)
    with pytest.raises(gip.InvalidArgument):
        gip.pyr_down(a, borderType=cv2.BORDER_CONSTANT)
    with pytest.raises(gip.InvalidArgument):
        gip.pyr_down(a, dstsize=(14, 10))
    with pytest.raises(gip.InvalidArgument):
        gip.pyr_up(a, borderType=cv2.BORDER_REPLICATE)
    dst = np.zeros((9, 15, 3), np.uint8)
    with pytest.raises(gip.ShapeMismatch):
        gip.pyr_down(a, dst=dst)
    assert not dst.any()
    got = gip.Pipeline("pyr_down | pyr_up | pyr_down border=replicate", device="cpu")(a)
    assert np.array_equal(got, cv2.pyrDown(cv2.pyrUp(cv2.pyrDown(a)),
                                           borderType=cv2.BORDER_REPLICATE))


@requires_cuda
@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_pyramids_cuda_equal_cpu(dt):
    for i, (h, w) in enumerate(PYR_SIZES):
        for c in (1, 3, 4):
            a = image(shape_of(w, h, c), dt, i)
            for bt in (cv2.BORDER_REFLECT_101, cv2.BORDER_WRAP):
                assert np.array_equal(gip.pyr_down(a, borderType=bt, device="cuda"),
                                      gip.pyr_down(a, borderType=bt, device="cpu"))
            assert np.array_equal(gip.pyr_up(a, device="cuda"), gip.pyr_up(a, device="cpu"))


# ---- remap -----------------------------------------------------------------------------------
def remap_maps(h, w, dh, dw, seed):
    rng = np.random.default_rng(seed)
    mx = (rng.random((dh, dw)) * (w + 6) - 3).astype(np.float32)
    my = (rng.random((dh, dw)) * (h + 6) - 3).astype(np.float32)
    mx[0, :3] = [0.5, 1.5, -0.5][:dw]  # ties round half to even
    return mx, my


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_remap_vs_opencv(dt, c):
    """Split and 2-channel float maps, nearest and linear, every border (transparent into a given
    dst): equal to cv2.remap bit for bit, every dtype (cv2 as shipped)."""
    for (h, w), (dh, dw) in [((37, 53), (29, 41)), ((1, 1), (3, 5)), ((64, 48), (64, 48)),
                             ((13, 300), (31, 287))]:
        a = image(shape_of(w, h, c), dt, w)
        mx, my = remap_maps(h, w, dh, dw, h)
        for bt in WARP_BORDERS:
            for inter in (cv2.INTER_NEAREST, cv2.INTER_LINEAR):
                init = image(shape_of(dw, dh, c), dt, 9)
                ref = cv2.remap(a, mx, my, inter, dst=init.copy(), borderMode=bt,
                                borderValue=(7, 8, 9, 10))
                got = gip.remap(a, mx, my, inter, dst=init.copy(), borderMode=bt,
                                borderValue=(7, 8, 9, 10), device="cpu")
                check(got, ref, dt, "remap %dx%d border %d inter %d" % (w, h, bt, inter))
                two = gip.remap(a, np.dstack([mx, my]), None, inter, dst=init.copy(),
                                borderMode=bt, borderValue=(7, 8, 9, 10), device="cpu")
                assert np.array_equal(two, got)


def test_remap_identity_registry_and_bad_input():
    a = image((20, 30, 3), np.uint8, 2)
    ys, xs = np.mgrid[0:20, 0:30].astype(np.float32)
    for inter in (cv2.INTER_NEAREST, cv2.INTER_LINEAR):
        assert np.array_equal(gip.remap(a, xs, ys, inter), a)
    got = gip.apply("remap", a, dsize=(30, 20), map1=xs + 0.25, map2=ys, device="cpu")
    assert np.array_equal(got, cv2.remap(a, xs + 0.25, ys, cv2.INTER_LINEAR))
    with pytest.raises(gip.InvalidArgument):
        gip.remap(a, xs, ys, cv2.INTER_LINEAR_EXACT)
    assert np.array_equal(gip.remap(a, xs, ys, cv2.INTER_LANCZOS4), a)
    with pytest.raises(gip.InvalidArgument):
        gip.remap(a, xs, None, cv2.INTER_LINEAR)
    with pytest.raises(gip.InvalidArgument):
        gip.remap(a, xs, ys, cv2.INTER_LINEAR, borderMode=gip.BORDER_TRANSPARENT)
    with pytest.raises((gip.Unsupported, gip.InvalidArgument)):
        gip.remap(a, xs.astype(np.float64), ys, cv2.INTER_LINEAR)
    with pytest.raises((gip.ShapeMismatch, gip.InvalidArgument)):
        gip.remap(a, xs, ys[:10], cv2.INTER_LINEAR)
    with pytest.raises(gip.InvalidArgument):
        gip.Pipeline("remap", device="cpu")  # its maps cannot be given in a pipeline


def _fixed_inside(m1, m2, h, w):
    """Pixels whose four bilinear taps are all inside an h x w source (cv2's transparent border
    reads outside the source for some of the others)."""
    x, y = m1[..., 0].astype(int), m1[..., 1].astype(int)
    return (x >= 0) & (x < w - 1) & (y >= 0) & (y < h - 1)


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("c", [1, 3, 4])
def test_convert_maps_and_fixed_remap_vs_opencv(dt, c):
    """cv2.convertMaps (float to fixed-point, whole pixels, back, pairs and split, NaN and huge
    values) and cv2.remap with fixed-point maps (nearest with and without fractions, linear,
    every border; transparent where cv2's result is defined): equal bit for bit."""
    rng = np.random.default_rng(11 + c)
    for (h, w), (dh, dw) in [((37, 53), (29, 41)), ((1, 1), (3, 5)), ((13, 300), (31, 287))]:
        a = image(shape_of(w, h, c), dt, w)
        mx = (rng.random((dh, dw)) * (w + 8) - 4).astype(np.float32)
        my = (rng.random((dh, dw)) * (h + 8) - 4).astype(np.float32)
        if dw * dh < 16:
            # NaN and values beyond int32: saturated as cv2's scalar loop does (a map this small
            # is all scalar loop; cv2's vector loop gives -2^31 to them instead)
            mx[0, 0], my[0, 1], mx[-1, -1], my[-1, -1] = np.nan, 1e10, -3e9, np.inf
        for t in (cv2.CV_16SC2, cv2.CV_32FC2, cv2.CV_32FC1, 11, 13):
            for nn in ((False, True) if t in (cv2.CV_16SC2, 11) else (False,)):
                ref = cv2.convertMaps(mx, my, t if t not in (11, 13) else t + 24,
                                      nninterpolation=nn)
                got = gip.convertMaps(mx, my, t, nninterpolation=nn)
                for r, g in zip(ref, got):
                    assert (r is None) == (g is None)
                    if r is not None:
                        assert r.shape == g.shape and r.dtype == g.dtype
                        assert np.array_equal(r, g, equal_nan=True), (t, nn)
        m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        n1, _ = cv2.convertMaps(mx, my, cv2.CV_16SC2, nninterpolation=True)
        for t in (cv2.CV_32FC1, cv2.CV_32FC2):
            for r, g in zip(cv2.convertMaps(m1, m2, t), gip.convertMaps(m1, m2, t)):
                assert (r is None) == (g is None) and (r is None or np.array_equal(r, g))
        inside = _fixed_inside(m1, m2, h, w)
        for bt in WARP_BORDERS:
            for inter, maps in ((cv2.INTER_LINEAR, (m1, m2)), (cv2.INTER_NEAREST, (m1, m2)),
                                (cv2.INTER_NEAREST, (n1, None))):
                init = image(shape_of(dw, dh, c), dt, 9)
                ref = cv2.remap(a, maps[0], maps[1], inter, dst=init.copy(), borderMode=bt,
                                borderValue=(7, 8, 9, 10))
                got = gip.remap(a, maps[0], maps[1], inter, dst=init.copy(), borderMode=bt,
                                borderValue=(7, 8, 9, 10), device="cpu")
                what = "fixed remap %dx%d border %d inter %d%s" % (
                    w, h, bt, inter, "" if maps[1] is not None else " whole pixels")
                if bt == gip.BORDER_TRANSPARENT and inter == cv2.INTER_LINEAR:
                    keep = ~inside
                    assert np.array_equal(got[inside], ref[inside]), what
                    assert np.array_equal(got[keep], init[keep]), what
                else:
                    assert np.array_equal(got, ref), what
                if maps[1] is not None:  # cv2's CV_16SC1 fractions are the same bits
                    two = gip.remap(a, maps[0], maps[1].view(np.int16), inter, dst=init.copy(),
                                    borderMode=bt, borderValue=(7, 8, 9, 10), device="cpu")
                    assert np.array_equal(two, got)


def test_fixed_maps_bad_input():
    a = image((20, 30, 3), np.uint8, 2)
    ys, xs = np.mgrid[0:20, 0:30].astype(np.float32)
    m1, m2 = gip.convertMaps(xs, ys, gip.CV_16SC2)
    assert np.array_equal(gip.remap(a, m1, m2, cv2.INTER_LINEAR), a)
    assert np.array_equal(gip.remap(a, m1, None, cv2.INTER_NEAREST), a)
    with pytest.raises(gip.Unsupported):
        gip.remap(a, m1, m2, cv2.INTER_CUBIC)
    with pytest.raises(gip.InvalidArgument):
        gip.remap(a, m1, m2.astype(np.float32), cv2.INTER_LINEAR)
    with pytest.raises(gip.InvalidArgument):
        gip.remap(a, m1, m2[:5], cv2.INTER_LINEAR)
    with pytest.raises(gip.InvalidArgument):
        gip.remap(a, m1[:, :, :1], m2, cv2.INTER_LINEAR)
    with pytest.raises(gip.InvalidArgument):
        gip.convertMaps(xs, ys, cv2.CV_8UC1)
    with pytest.raises(gip.InvalidArgument):
        gip.convertMaps(xs.astype(np.float64), ys, gip.CV_16SC2)
    with pytest.raises(gip.InvalidArgument):
        gip.convertMaps(xs, ys[:3], gip.CV_16SC2)
    with pytest.raises(gip.InvalidArgument):
        gip.convertMaps(m1, xs, gip.CV_32FC1)


@requires_cuda
@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_fixed_remap_and_convert_maps_cuda_equal_cpu(dt):
    rng = np.random.default_rng(3)
    for (h, w), (dh, dw) in [((37, 53), (29, 41)), ((1, 1), (3, 5)), ((13, 300), (31, 287))]:
        mx = (rng.random((dh, dw)) * (w + 8) - 4).astype(np.float32)
        my = (rng.random((dh, dw)) * (h + 8) - 4).astype(np.float32)
        mx[0, 0] = np.nan
        for t in (gip.CV_16SC2, gip.CV_32FC2, gip.CV_32FC1):
            cpu = gip.convertMaps(mx, my, t, device="cpu")
            gpu = gip.convertMaps(mx, my, t, device="cuda")
            for r, g in zip(cpu, gpu):
                assert (r is None) == (g is None)
                assert r is None or np.array_equal(r, g, equal_nan=True)
        m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        for c in (1, 3, 4):
            a = image(shape_of(w, h, c), dt, w)
            for bt in WARP_BORDERS:
                for inter, maps in ((cv2.INTER_LINEAR, (m1, m2)), (cv2.INTER_NEAREST, (m1, m2)),
                                    (cv2.INTER_NEAREST, (m1, None))):
                    init = image(shape_of(dw, dh, c), dt, 9)
                    cpu = gip.remap(a, maps[0], maps[1], inter, dst=init.copy(), borderMode=bt,
                                    borderValue=(7, 8, 9, 10), device="cpu")
                    gpu = gip.remap(a, maps[0], maps[1], inter, dst=init.copy(), borderMode=bt,
                                    borderValue=(7, 8, 9, 10), device="cuda")
                    assert np.array_equal(cpu, gpu)


@requires_cuda
@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_remap_cuda_equal_cpu(dt):
    for (h, w), (dh, dw) in [((37, 53), (29, 41)), ((1, 1), (3, 5)), ((13, 300), (31, 287))]:
        for c in (1, 3, 4):
            a = image(shape_of(w, h, c), dt, w)
            mx, my = remap_maps(h, w, dh, dw, c)
            for bt in WARP_BORDERS:
                for inter in (cv2.INTER_NEAREST, cv2.INTER_LINEAR):
                    init = image(shape_of(dw, dh, c), dt, 9)
                    cpu = gip.remap(a, mx, my, inter, dst=init.copy(), borderMode=bt,
                                    borderValue=(7, 8, 9, 10), device="cpu")
                    gpu = gip.remap(a, mx, my, inter, dst=init.copy(), borderMode=bt,
                                    borderValue=(7, 8, 9, 10), device="cuda")
                    assert np.array_equal(cpu, gpu)


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_cubic_warps_near_opencv(dt):
    """INTER_CUBIC warps and remap, every border: uint8 within a level of cv2 and equal on all
    but a few pixels in 10^4; uint16 within 3 levels (8 under the borders that repeat the image,
    whose far positions carry larger coordinate rounding); float32 within 1e-3 of values up to
    1.
    Transparent (into a given dst): the same where the 4x4 taps are inside, dst kept where all
    are outside (cv2 5 gives values there that depend on other dst pixels)."""
    rng = np.random.default_rng(11)
    diff = total = 0
    for (h, w), (dw, dh) in WARP_SIZES:
        for c in (1, 3, 4):
            a = image(shape_of(w, h, c), dt, w + c)
            mx, my = remap_maps(h, w, dh, dw, c)
            init = image(shape_of(dw, dh, c), dt, 9)
            for bt in WARP_BORDERS:
                if bt == gip.BORDER_TRANSPARENT:
                    continue  # below
                outs = []
                kw = dict(borderMode=bt, borderValue=(7, 8, 9, 10))
                for M in affine_mats(w, h):
                    for fl in (cv2.INTER_CUBIC, cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP):
                        with no_ipp():
                            ref = cv2.warpAffine(a, M, (dw, dh), dst=init.copy(), flags=fl, **kw)
                        outs.append((gip.warp_affine(a, M, (dw, dh), dst=init.copy(), flags=fl,
                                                     **kw), ref))
                for M in PERSP:
                    with no_ipp():
                        ref = cv2.warpPerspective(a, M, (dw, dh), dst=init.copy(),
                                                  flags=cv2.INTER_CUBIC, **kw)
                    outs.append((gip.warp_perspective(a, M, (dw, dh), dst=init.copy(),
                                                      flags=cv2.INTER_CUBIC, **kw), ref))
                outs.append((gip.remap(a, mx, my, cv2.INTER_CUBIC, dst=init.copy(), **kw),
                             cv2.remap(a, mx, my, cv2.INTER_CUBIC, dst=init.copy(), **kw)))
                for got, ref in outs:
                    d = np.abs(got.astype(np.float64) - ref)
                    if dt == np.float32:
                        assert d.max(initial=0) <= 1e-3
                    elif dt == np.uint8:
                        assert d.max(initial=0) <= 1
                    else:
                        far = bt not in (cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE)
                        assert d.max(initial=0) <= (8 if far else 3), bt
                    diff += int((d > 0).sum())
                    total += d.size
    if dt == np.uint8:
        assert diff <= total * 5e-4, (diff, total)
    a = image((20, 30), dt, 1)
    for bt in WARP_BORDERS:
        assert np.array_equal(gip.warp_affine(a, np.eye(2, 3), (30, 20), dst=a.copy(),
                                              flags=cv2.INTER_CUBIC, borderMode=bt), a)
    (h, w), (dw, dh) = WARP_SIZES[0]
    for c in (1, 3):
        a = image(shape_of(w, h, c), dt, w + c)
        mx, my = remap_maps(h, w, dh, dw, c)
        init = image(shape_of(dw, dh, c), dt, 9)
        got = gip.remap(a, mx, my, cv2.INTER_CUBIC, dst=init.copy(),
                        borderMode=gip.BORDER_TRANSPARENT)
        ref = cv2.remap(a, mx, my, cv2.INTER_CUBIC, dst=init.copy(),
                        borderMode=gip.BORDER_TRANSPARENT)
        ix, iy = np.floor(mx).astype(int), np.floor(my).astype(int)
        inside = (ix >= 1) & (ix + 2 < w) & (iy >= 1) & (iy + 2 < h)
        outside = (ix + 2 < 0) | (ix - 1 >= w) | (iy + 2 < 0) | (iy - 1 >= h)
        assert inside.sum() > 100 and outside.sum() > 100
        d = np.abs(got[inside].astype(np.float64) - ref[inside])
        assert d.max(initial=0) <= (1e-3 if dt == np.float32 else 1 if dt == np.uint8 else 3)
        assert np.array_equal(got[outside], init[outside])


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_lanczos_warps_vs_opencv(dt):
    """INTER_LANCZOS4 warps (affine and perspective, with and without WARP_INVERSE_MAP) and
    remap (float and fixed-point maps), every border incl. transparent: uint8 equal to cv2 bit
    for bit (OpenCV's fixed-point positions and 15-bit tables); uint16 within a level; float32
    within 2e-5 of values up to 1."""
    for (h, w), (dw, dh) in WARP_SIZES:
        for c in (1, 3, 4):
            a = image(shape_of(w, h, c), dt, w + c)
            mx, my = remap_maps(h, w, dh, dw, c)
            m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
            init = image(shape_of(dw, dh, c), dt, 9)
            for bt in WARP_BORDERS:
                kw = dict(dst=init, borderMode=bt, borderValue=(7, 8, 9, 10))
                outs = []
                for M in affine_mats(w, h):
                    for fl in (cv2.INTER_LANCZOS4, cv2.INTER_LANCZOS4 | cv2.WARP_INVERSE_MAP):
                        with no_ipp():
                            ref = cv2.warpAffine(a, M, (dw, dh), flags=fl, **dict(kw, dst=init.copy()))
                        outs.append((gip.warp_affine(a, M, (dw, dh), flags=fl,
                                                     **dict(kw, dst=init.copy())), ref))
                for M in PERSP:
                    for fl in (cv2.INTER_LANCZOS4, cv2.INTER_LANCZOS4 | cv2.WARP_INVERSE_MAP):
                        ref = cv2.warpPerspective(a, M, (dw, dh), flags=fl,
                                                  **dict(kw, dst=init.copy()))
                        outs.append((gip.warp_perspective(a, M, (dw, dh), flags=fl,
                                                          **dict(kw, dst=init.copy())), ref))
                for p, q in ((mx, my), (m1, m2)):
                    outs.append((gip.remap(a, p, q, cv2.INTER_LANCZOS4, **dict(kw, dst=init.copy())),
                                 cv2.remap(a, p, q, cv2.INTER_LANCZOS4, **dict(kw, dst=init.copy()))))
                for got, ref in outs:
                    if dt == np.uint8:
                        assert np.array_equal(got, ref), (w, h, c, bt)
                    else:
                        d = np.abs(got.astype(np.float64) - ref).max(initial=0)
                        assert d <= (1 if dt == np.uint16 else 2e-5), (w, h, c, bt, d)


@requires_cuda
def test_lanczos_warps_cuda_equal_cpu():
    for dt in (np.uint8, np.uint16, np.float32):
        for (h, w), (dw, dh) in WARP_SIZES:
            a = image(shape_of(w, h, 3), dt, w)
            mx, my = remap_maps(h, w, dh, dw, 3)
            m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
            init = image(shape_of(dw, dh, 3), dt, 9)
            for bt in WARP_BORDERS:
                kw = dict(flags=cv2.INTER_LANCZOS4, borderMode=bt, borderValue=(7, 8, 9, 10))
                for M in affine_mats(w, h):
                    assert np.array_equal(
                        gip.warp_affine(a, M, (dw, dh), dst=init.copy(), device="cpu", **kw),
                        gip.warp_affine(a, M, (dw, dh), dst=init.copy(), device="cuda", **kw))
                for M in PERSP:
                    assert np.array_equal(
                        gip.warp_perspective(a, M, (dw, dh), dst=init.copy(), device="cpu", **kw),
                        gip.warp_perspective(a, M, (dw, dh), dst=init.copy(), device="cuda",
                                             **kw))
                for p, q in ((mx, my), (m1, m2)):
                    rk = dict(borderMode=bt, borderValue=(7, 8, 9, 10))
                    assert np.array_equal(
                        gip.remap(a, p, q, cv2.INTER_LANCZOS4, dst=init.copy(), device="cpu", **rk),
                        gip.remap(a, p, q, cv2.INTER_LANCZOS4, dst=init.copy(), device="cuda",
                                  **rk))


@requires_cuda
def test_cubic_warps_cuda_equal_cpu():
    for dt in (np.uint8, np.uint16, np.float32):
        for (h, w), (dw, dh) in WARP_SIZES:
            a = image(shape_of(w, h, 3), dt, w)
            init = image(shape_of(dw, dh, 3), dt, 9)
            for bt in WARP_BORDERS:
                for M in affine_mats(w, h):
                    assert np.array_equal(
                        gip.warp_affine(a, M, (dw, dh), dst=init.copy(), flags=cv2.INTER_CUBIC,
                                        borderMode=bt, device="cpu"),
                        gip.warp_affine(a, M, (dw, dh), dst=init.copy(), flags=cv2.INTER_CUBIC,
                                        borderMode=bt, device="cuda"))


# ---- thumbnail -------------------------------------------------------------------------------
def test_thumbnail(tmp_path):
    """Fits the box keeping the aspect ratio; equal to cv2.resize to that size; from a file; a
    folder through the batch engine; shrink_only."""
    a = image((300, 451, 3), np.uint8, 8)
    t = gip.thumbnail(a, 100)
    assert t.shape == (67, 100, 3)  # 451 x 300 * (100 / 451)
    assert np.array_equal(t, cv2.resize(a, (100, 67), interpolation=cv2.INTER_AREA))
    t = gip.thumbnail(a, (200, 50))
    assert t.shape == (50, 75, 3)
    with no_ipp():
        ref = cv2.resize(a, (75, 50), interpolation=cv2.INTER_CUBIC)
    assert np.array_equal(gip.thumbnail(a, (200, 50), interpolation=gip.INTER_CUBIC), ref)
    assert gip.thumbnail(a, 1000).shape == (665, 1000, 3)
    assert gip.thumbnail(a, 1000, shrink_only=True).shape == a.shape
    assert gip.thumbnail(image((1, 500), np.uint8, 1), 10).shape == (1, 10)
    p = tmp_path / "in.png"
    cv2.imwrite(str(p), a)
    assert np.array_equal(gip.thumbnail(str(p), 64), gip.thumbnail(gip.imread(str(p)), 64))
    src = tmp_path / "src"
    out = tmp_path / "out"
    src.mkdir()
    for k, (h, w) in enumerate([(40, 90), (120, 30), (64, 64)]):
        cv2.imwrite(str(src / ("%d.png" % k)), image((h, w, 3), np.uint8, k))
    gip.run_batch("thumbnail 32", str(src), str(out))
    for k, (h, w) in enumerate([(40, 90), (120, 30), (64, 64)]):
        got = cv2.imread(str(out / ("%d.png" % k)))
        s = min(32 / w, 32 / h)
        want = (max(1, round(w * s)), max(1, round(h * s)))
        assert got.shape[:2] == (want[1], want[0])
        assert np.array_equal(got, cv2.resize(cv2.imread(str(src / ("%d.png" % k))), want,
                                              interpolation=cv2.INTER_AREA))
    with pytest.raises(gip.InvalidArgument):
        gip.thumbnail(a, 0)
    with pytest.raises(gip.InvalidArgument):
        gip.thumbnail(a, 10, antialias=True)  # area has no antialias


def test_imread_reduced_and_shrink_on_load(tmp_path):
    """cv2's IMREAD_REDUCED_* flags (JPEG: libjpeg's DCT scaling; PNG: resized) equal cv2.imread
    bit for bit; a JPEG thumbnail decodes at the largest reduction that keeps the size."""
    rng = np.random.default_rng(4)
    for h, w in [(101, 77), (17, 9), (640, 480), (33, 1000)]:
        a = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3)).astype(np.uint8), (5, 5), 0)
        for ext in ("png", "jpg"):
            p = str(tmp_path / ("r." + ext))
            cv2.imwrite(p, a)
            for f in (gip.IMREAD_REDUCED_GRAYSCALE_2, gip.IMREAD_REDUCED_COLOR_2,
                      gip.IMREAD_REDUCED_GRAYSCALE_4, gip.IMREAD_REDUCED_COLOR_4,
                      gip.IMREAD_REDUCED_GRAYSCALE_8, gip.IMREAD_REDUCED_COLOR_8):
                if min(h, w) < 8 and ext == "png":
                    continue  # cv2 cannot resize to an empty side
                ref = cv2.imread(p, f)
                got = gip.imread(p, f)
                assert got.shape == ref.shape and np.array_equal(got, ref), (h, w, ext, f)
                with open(p, "rb") as fh:
                    assert np.array_equal(gip.imdecode(fh.read(), f), ref)
    with pytest.raises(gip.InvalidArgument):
        gip.imread(p, gip.IMREAD_REDUCED_COLOR_2 | gip.IMREAD_ANYDEPTH)
    photo = cv2.imread(os.path.join(os.path.dirname(__file__), "..", "..", "data",
                                    "astronaut.png"))
    big = cv2.resize(photo, (2048, 1536), interpolation=cv2.INTER_CUBIC)
    p = str(tmp_path / "big.jpg")
    cv2.imwrite(p, big)
    t = gip.thumbnail(p, 200)  # 2048 x 1536 -> 200 x 150: decoded at 1/8 (256 x 192)
    assert t.shape == (150, 200, 3)
    assert np.array_equal(t, cv2.resize(cv2.imread(p, cv2.IMREAD_REDUCED_COLOR_8), (200, 150),
                                        interpolation=cv2.INTER_AREA))
    whole = gip.thumbnail(p, 200, shrink_on_load=False)
    assert np.array_equal(whole, cv2.resize(cv2.imread(p), (200, 150),
                                            interpolation=cv2.INTER_AREA))
    assert np.abs(whole.astype(int) - t).mean() < 2
    t = gip.thumbnail(p, 600)  # 1/2 leaves 1024 x 768 >= 600 x 450; 1/4 would not
    assert np.array_equal(t, cv2.resize(cv2.imread(p, cv2.IMREAD_REDUCED_COLOR_2), (600, 450),
                                        interpolation=cv2.INTER_AREA))


# ---- the CPU's fast paths on large images ----------------------------------------------------
@pytest.mark.parametrize("dt, c", [(np.uint8, 1), (np.uint8, 3), (np.uint8, 4), (np.uint16, 1),
                                   (np.float32, 1), (np.float32, 3)])
def test_fast_paths_large_vs_opencv(dt, c):
    """Sizes where the CPU's register blocks, output strips, row caches and 64-pixel warp chunks
    (wholly inside, partly inside, outside) all run, odd so every edge case is met: bit for bit
    against OpenCV."""
    for h, w in ((1001, 777), (77, 1300)):
        a = image(shape_of(w, h, c), dt, h + c)
        for code in (gip.ROTATE_90_CLOCKWISE, gip.ROTATE_180, gip.ROTATE_90_COUNTERCLOCKWISE):
            assert np.array_equal(gip.rotate(a, code, device="cpu"), cv2.rotate(a, code))
        assert np.array_equal(gip.transpose(a, device="cpu"), cv2.transpose(a))
        for code in (0, 1, -1):
            assert np.array_equal(gip.flip(a, code, device="cpu"), cv2.flip(a, code))
        for bt in BORDERS:
            assert np.array_equal(
                gip.copyMakeBorder(a, 5, 17, 33, 2, bt, value=(3, 4, 5, 6), device="cpu"),
                cv2.copyMakeBorder(a, 5, 17, 33, 2, bt, value=(3, 4, 5, 6)))
        if dt != np.float32:  # cv2's float pyramids are checked within 1e-6 above
            check(gip.pyr_down(a, device="cpu"), cv2.pyrDown(a), dt, "pyr_down large")
            check(gip.pyr_up(a, device="cpu"), cv2.pyrUp(a), dt, "pyr_up large")
        if dt == np.float32:
            for inter in (cv2.INTER_LINEAR, cv2.INTER_AREA):
                with no_ipp():
                    ref = cv2.resize(a, (w // 2, h // 2), interpolation=inter)
                check(gip.resize(a, (w // 2, h // 2), interpolation=inter, device="cpu"), ref, dt,
                      "resize large")
    h, w = 333, 517
    a = image(shape_of(w, h, c), dt, 5)
    M = cv2.getRotationMatrix2D((w / 2, h / 2), 17, 0.9)
    P = np.array([[1, 0.05, 3], [0.02, 1, 5], [1e-4, 2e-4, 1]])
    init = image(shape_of(w + 3, h + 2, c), dt, 6)
    for bt in (cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_TRANSPARENT):
        for f, g, m in ((cv2.warpAffine, gip.warp_affine, M),
                        (cv2.warpPerspective, gip.warp_perspective, P)):
            with no_ipp():
                ref = f(a, m, (w + 3, h + 2), dst=init.copy(), flags=cv2.INTER_LINEAR,
                        borderMode=bt, borderValue=(7, 8, 9, 10))
            got = g(a, m, (w + 3, h + 2), dst=init.copy(), flags=cv2.INTER_LINEAR, borderMode=bt,
                    borderValue=(7, 8, 9, 10), device="cpu")
            check(got, ref, dt, "large warp border %d" % bt)
