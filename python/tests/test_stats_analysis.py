# SPDX-License-Identifier: MIT
"""The statistics family's analysis functions against cv2 5.1: minMaxIdx, compareHist (every
method), integral/integral2/integral3 (every depth cv2 accepts), moments and HuMoments,
matchTemplate (every method, u8 and f32, 1/3/4 channels, small and large templates) and
connectedComponents(WithStats) (4 and 8 connectivity, int32 and uint16 labels); cv2's return
types and shapes; bad input refused with a clear error."""
import cv2
import numpy as np
import pytest

import gip
from conftest import rand, sample

SIZES = [(1, 1), (1, 17), (17, 1), (13, 42), (64, 48), (257, 199)]


def photo_gray():
    return cv2.cvtColor(sample("astronaut.png"), cv2.COLOR_RGB2GRAY)


# ---- minMaxIdx ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_min_max_idx_is_min_max_loc_as_row_col(dtype):
    for i, (h, w) in enumerate(SIZES):
        a = rand((h, w), dtype, i)
        mask = (rand((h, w), np.uint8, i + 50) > 100).astype(np.uint8)
        for m in (None, mask):
            mn, mx, lmn, lmx = cv2.minMaxLoc(a, m)
            got = gip.minMaxIdx(a, m)
            assert got == (mn, mx, (lmn[1], lmn[0]) if lmn[0] >= 0 else (-1, -1),
                           (lmx[1], lmx[0]) if lmx[0] >= 0 else (-1, -1))


def test_min_max_idx_multichannel_gives_values_only():
    a = rand((13, 42, 3), np.uint8, 3)
    assert gip.minMaxIdx(a) == (float(a.min()), float(a.max()), None, None)
    with pytest.raises(gip.Unsupported, match="one channel"):
        gip.minMaxIdx(a, np.ones((13, 42), np.uint8))


# ---- compareHist ----------------------------------------------------------------------------

def _hists(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, (97, 131), dtype=np.uint8)
    b = np.clip(a.astype(np.int32) + rng.integers(-40, 40, a.shape), 0, 255).astype(np.uint8)
    yield cv2.calcHist([a], [0], None, [256], [0, 256]), cv2.calcHist([b], [0], None, [256],
                                                                       [0, 256])
    yield (cv2.calcHist([a], [0], None, [17], [0, 256]),
           cv2.calcHist([b], [0], None, [17], [0, 256]))
    c = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    yield (cv2.calcHist([c], [0, 1, 2], None, [4, 5, 6], [0, 256] * 3),
           cv2.calcHist([np.sqrt(c * 255.0).astype(np.uint8)], [0, 1, 2], None, [4, 5, 6],
                        [0, 256] * 3))
    yield (rng.random(50).astype(np.float32), rng.random(50).astype(np.float32))
    z = np.zeros(10, np.float32)
    yield z, z                                   # flat: CORREL 1, zero denominators skipped
    yield np.eye(1, 10, 2, dtype=np.float32)[0], np.eye(1, 10, 7, dtype=np.float32)[0]


@pytest.mark.parametrize("method", range(6))
def test_compare_hist_equals_cv2(method):
    for h1, h2 in _hists(method):
        # cv2's Python reads a 3-D histogram array as a 2-D image of several channels, and its
        # CORREL then divides by the pixel count instead of the bin count; gip compares the
        # bins, which is cv2's result on the flattened histograms
        want = cv2.compareHist(h1.reshape(-1), h2.reshape(-1), method)
        got = gip.compareHist(h1, h2, method)
        assert isinstance(got, float)
        # cv2 accumulates some methods with SIMD lanes (another order of the same double sums)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (method, got, want)


def test_compare_hist_bad_input():
    h = np.ones(8, np.float32)
    with pytest.raises(gip.InvalidArgument, match="method 6"):
        gip.compareHist(h, h, 6)
    with pytest.raises(gip.InvalidArgument, match="same non-empty shape"):
        gip.compareHist(h, np.ones(9, np.float32), 0)
    with pytest.raises(gip.InvalidType):
        gip.compareHist(h, h, "correl")


# ---- integral -------------------------------------------------------------------------------

# (src dtype, sdepth, sqdepth): every combination cv2.integral2 accepts for gip's dtypes.
INTEGRAL_DEPTHS = [
    (np.uint8, -1, -1), (np.uint8, cv2.CV_32S, cv2.CV_32S), (np.uint8, cv2.CV_32S, cv2.CV_32F),
    (np.uint8, cv2.CV_32S, cv2.CV_64F), (np.uint8, cv2.CV_32F, cv2.CV_32F),
    (np.uint8, cv2.CV_32F, cv2.CV_64F), (np.uint8, cv2.CV_64F, cv2.CV_64F),
    (np.float32, -1, -1), (np.float32, cv2.CV_32F, cv2.CV_32F),
    (np.float32, cv2.CV_32F, cv2.CV_64F), (np.float32, cv2.CV_64F, cv2.CV_64F),
    (np.uint16, -1, -1), (np.uint16, cv2.CV_64F, cv2.CV_64F), (np.int16, -1, -1),
]


@pytest.mark.parametrize("dtype,sd,sq", INTEGRAL_DEPTHS)
@pytest.mark.parametrize("cn", [1, 3, 4])
def test_integral_equals_cv2(dtype, sd, sq, cn):
    for i, (h, w) in enumerate(SIZES):
        a = rand((h, w) if cn == 1 else (h, w, cn), dtype, i)
        s, q = gip.integral2(a, sdepth=sd, sqdepth=sq)
        S, Q = cv2.integral2(a, sdepth=sd, sqdepth=sq)
        assert s.dtype == S.dtype and q.dtype == Q.dtype and s.shape == S.shape
        assert q.shape == Q.shape
        if dtype != np.float32 and S.dtype != np.float32 and Q.dtype != np.float32:
            # integer sources into s32 (wrapping as cv2) and f64: exact
            np.testing.assert_array_equal(s, S)
            np.testing.assert_array_equal(q, Q)
        else:
            # f32 results: gip adds a row's running sum to the row above as cv2 does; cv2's
            # vectorised loops may add in another order: within f32 rounding of the total
            np.testing.assert_allclose(s, S, rtol=1e-6, atol=1e-6 * np.abs(S).max())
            np.testing.assert_allclose(q, Q, rtol=1e-6, atol=1e-6 * np.abs(Q).max())
        assert np.array_equal(gip.integral(a, sdepth=sd), cv2.integral(a, sdepth=sd)) or \
            S.dtype == np.float32 or dtype == np.float32


@pytest.mark.parametrize("dtype,sd", [(np.uint8, -1), (np.uint8, cv2.CV_32F),
                                      (np.uint8, cv2.CV_64F), (np.float32, cv2.CV_32F),
                                      (np.float32, cv2.CV_64F), (np.uint16, -1),
                                      (np.int16, -1)])
@pytest.mark.parametrize("cn", [1, 3])
def test_integral3_tilted_equals_cv2(dtype, sd, cn):
    for i, (h, w) in enumerate(SIZES + [(2, 2), (3, 1), (1, 3), (5, 9)]):
        a = rand((h, w) if cn == 1 else (h, w, cn), dtype, i + 7)
        s, q, t = gip.integral3(a, sdepth=sd)
        S, Q, T = cv2.integral3(a, sdepth=sd)
        assert t.dtype == T.dtype and t.shape == T.shape
        if dtype == np.float32 or T.dtype == np.float32:
            np.testing.assert_allclose(t, T, rtol=1e-5, atol=1e-5 * np.abs(T).max())
        else:
            np.testing.assert_array_equal(t, T)


def test_integral_tilted_definition():
    """The tilted sums against their definition, computed from scratch in Python."""
    a = rand((9, 11), np.uint8, 5).astype(np.int64)
    t = gip.integral3(a.astype(np.uint8), sdepth=cv2.CV_64F)[2]
    h, w = a.shape
    for Y in range(h + 1):
        for X in range(w + 1):
            want = sum(int(a[y, x]) for y in range(Y) for x in range(w)
                       if abs(x - X + 1) <= Y - y - 1)
            assert t[Y, X] == want, (X, Y)


def test_integral_photo_and_outputs():
    g = photo_gray()
    np.testing.assert_array_equal(gip.integral(g), cv2.integral(g))
    out = np.zeros((g.shape[0] + 1, g.shape[1] + 1), np.int32)
    r = gip.integral(g, out)
    assert r is out and np.array_equal(out, cv2.integral(g))


def test_integral_bad_input():
    a = rand((5, 6), np.uint8, 0)
    with pytest.raises(gip.Unsupported, match="combinations"):
        gip.integral2(a, sdepth=cv2.CV_64F, sqdepth=cv2.CV_32F)
    with pytest.raises(gip.Unsupported, match="combinations"):
        gip.integral(a.astype(np.uint16), sdepth=cv2.CV_32S)
    with pytest.raises(gip.Unsupported):
        gip.integral(a, sdepth=cv2.CV_16U)
    with pytest.raises(gip.InvalidType):
        gip.integral(a, sdepth="f64")
    with pytest.raises(gip.InvalidArgument, match="5 channels"):
        gip.integral(np.zeros((4, 4, 5), np.uint8))
    with pytest.raises(gip.Unsupported, match="complex64 are accepted"):
        gip.integral(np.zeros((4, 4), np.float64))
    with pytest.raises(gip.Unsupported, match="c32"):
        gip.integral(np.zeros((4, 4), np.complex64))


# ---- moments --------------------------------------------------------------------------------

def _close_moments(m, M, rtol):
    assert set(m) == set(M)
    scale = {k: max(abs(M[k]), 1e-300) for k in M}
    for k in M:
        # central moments are differences of large spatial ones: their error is relative to
        # the spatial moments they come from, not to their own (possibly tiny) value
        ref = scale[k]
        if k.startswith("mu"):
            ref = max(ref, abs(M["m" + k[2:]]))
        if k.startswith("nu"):
            ref = max(ref, abs(M["m" + k[2:]]) * abs(M["nu" + k[2:]] / M["mu" + k[2:]])
                      if M["mu" + k[2:]] else ref)
        assert abs(m[k] - M[k]) <= rtol * ref, (k, m[k], M[k])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
@pytest.mark.parametrize("binary", [False, True])
def test_moments_equal_cv2(dtype, binary):
    for i, (h, w) in enumerate(SIZES + [(300, 2100)]):
        a = rand((h, w), dtype, i)
        if a.size > 4:
            a.reshape(-1)[::5] = 0
        m = gip.moments(a, binary)
        M = cv2.moments(a, binary)
        # integer images: gip's sums are exact, cv2's too up to double rounding of its tiles
        _close_moments(m, M, 1e-12 if dtype != np.float32 else 1e-9)
        np.testing.assert_allclose(gip.HuMoments(m), cv2.HuMoments(M), rtol=1e-6,
                                   atol=1e-15)
        assert gip.HuMoments(m).shape == (7, 1)


def test_moments_photo_and_empty():
    g = photo_gray()
    _close_moments(gip.moments(g), cv2.moments(g), 1e-12)
    z = np.zeros((7, 9), np.uint8)
    assert gip.moments(z) == cv2.moments(z)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_moments_of_contour(dtype):
    pts = np.array([[1, 1], [10, 2], [12, 9], [4, 11], [0, 6]], dtype)
    for c in (pts, pts.reshape(-1, 1, 2)):
        _close_moments(gip.moments(c), cv2.moments(c), 1e-12)


def test_moments_bad_input():
    with pytest.raises(gip.Unsupported, match="one channel"):
        gip.moments(rand((5, 6, 3), np.uint8, 0))
    with pytest.raises(gip.InvalidType):
        gip.HuMoments({"m00": 1})


# ---- matchTemplate --------------------------------------------------------------------------

# Both gip and OpenCV correlate in single precision (OpenCV: an f32 DFT for u8, or IPP's f32
# sums; gip: filter2D's direct f32 sums or its f32 FFT), so neither is exact. The test holds both
# to the exact double-precision result: within TM_ULPS units of f32 rounding (2^-24) of the
# largest correlation a window could give, area * channels * max|image| * max|templ|, divided
# by the normalising denominator for the normed methods (so a nearly flat window, whose ratio is
# rounding noise in both libraries, gets a wide tolerance). Measured: gip within 3.4 units, cv2
# within 1.9.
TM_ULPS = 8


def ref_match(img, tpl, method):
    """matchTemplate in double precision (the correlation through a float64 FFT, window sums by
    float64 cumulative sums, OpenCV's clamping of the normed ratios) and each pixel's
    tolerance in units of the bound above; also a mask of the pixels whose ratio lies near
    OpenCV's clamping thresholds (1 and 1.125), where rounding decides the branch."""
    I = img.astype(np.float64)
    T = tpl.astype(np.float64)
    if I.ndim == 2:
        I, T = I[..., None], T[..., None]
    H, W, cn = I.shape
    h, w, _ = T.shape
    rh, rw = H - h + 1, W - w + 1
    fh, fw = H + h, W + w
    corr = np.zeros((rh, rw))
    for c in range(cn):
        F = np.fft.rfft2(I[..., c], (fh, fw)) * np.conj(np.fft.rfft2(T[..., c], (fh, fw)))
        corr += np.fft.irfft2(F, (fh, fw))[:rh, :rw]

    def wsum(a):
        s = np.zeros((a.shape[0] + 1, a.shape[1] + 1))
        s[1:, 1:] = a.cumsum(0).cumsum(1)
        return s[h:h + rh, w:w + rw] - s[:rh, w:w + rw] - s[h:h + rh, :rw] + s[:rh, :rw]

    S = [wsum(I[..., c]) for c in range(cn)]
    Q = sum(wsum(I[..., c] ** 2) for c in range(cn))
    area = h * w
    tsum = T.reshape(-1, cn).sum(0)
    tsq = (T ** 2).sum()
    unit = area * cn * max(np.abs(I).max(), 1) * max(np.abs(T).max(), 1) * 2.0 ** -24
    if method in (0, 1):
        num = np.maximum(Q - 2 * corr + tsq, 0)
        den = np.sqrt(Q * tsq)
    elif method in (2, 3):
        num = corr
        den = np.sqrt(Q * tsq)
    else:
        num = corr - sum(S[c] * tsum[c] / area for c in range(cn))
        tvar = tsq - (tsum ** 2).sum() / area
        den = np.sqrt(np.maximum(Q - sum(S[c] ** 2 for c in range(cn)) / area, 0) * tvar)
    if method % 2 == 0:
        return num, np.full(num.shape, unit), np.zeros(num.shape, bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        tol = unit / den
        r = num / den
        a = np.abs(r)
        near = (np.abs(a - 1) <= TM_ULPS * tol) | (np.abs(a - 1.125) <= TM_ULPS * tol) | (den == 0)
        out = np.where(a < 1, r, np.where(a < 1.125, np.sign(r), 1.0 if method == 1 else 0.0))
    return out, tol, near


def _check_match(img, tpl, method):
    got = gip.matchTemplate(img, tpl, method)
    want = cv2.matchTemplate(img, tpl, method)
    assert got.dtype == np.float32 and got.shape == want.shape
    ref, tol, near = ref_match(img, tpl, method)
    for name, res in (("gip", got), ("cv2", want)):
        err = np.abs(res - ref)
        bad = (err > TM_ULPS * tol) & ~near
        if bad.any():
            y, x = np.argwhere(bad)[0]
            raise AssertionError("%s: method %d image %s templ %s: at (%d, %d) %r, exact %r, "
                                 "tolerance %r" % (name, method, img.shape, tpl.shape, x, y,
                                                   float(res[y, x]), ref[y, x],
                                                   TM_ULPS * tol[y, x]))
    return got


@pytest.mark.parametrize("method", range(6))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("cn", [1, 3, 4])
def test_match_template_equals_cv2(method, dtype, cn):
    for i, ((H, W), (h, w)) in enumerate([((13, 42), (3, 5)), ((64, 48), (7, 7)),
                                          ((40, 37), (40, 1)), ((9, 9), (9, 9)),
                                          ((120, 97), (31, 20)), ((1, 1), (1, 1))]):
        shape = (H, W) if cn == 1 else (H, W, cn)
        img = rand(shape, dtype, i)
        y, x = H // 3, W // 4
        tpl = img[y:y + h, x:x + w].copy() if y + h <= H and x + w <= W else img[:h, :w].copy()
        if i % 2:
            tpl = rand(tpl.shape, dtype, i + 100)
        _check_match(img, tpl, method)


@pytest.mark.parametrize("method", range(6))
def test_match_template_photo_small_and_large(method):
    """Templates of 32x32 (direct), 160x180 (past the FFT crossover) and 256x256 (past
    filter2D's largest kernel: the FFT alone) cut from the photo are found where they were cut."""
    g = photo_gray()[::2, ::2].copy()
    for (y, x, h, w) in [(100, 120, 32, 32), (40, 30, 160, 180), (0, 0, 256, 256)]:
        tpl = g[y:y + h, x:x + w].copy()
        got = _check_match(g, tpl, method)
        pick = np.argmin if method in (cv2.TM_SQDIFF, cv2.TM_SQDIFF_NORMED) else np.argmax
        if method in (cv2.TM_CCORR,):
            continue  # unnormalised correlation peaks at bright windows, not at the match
        assert np.unravel_index(pick(got), got.shape) == (y, x)


def test_match_template_flat_template():
    img = rand((20, 30), np.uint8, 1)
    tpl = np.full((4, 5), 7, np.uint8)
    np.testing.assert_array_equal(gip.matchTemplate(img, tpl, cv2.TM_CCOEFF_NORMED),
                                  cv2.matchTemplate(img, tpl, cv2.TM_CCOEFF_NORMED))


def test_match_template_bad_input():
    img = rand((20, 30), np.uint8, 1)
    with pytest.raises(gip.ShapeMismatch, match="larger"):
        gip.matchTemplate(img[:5, :5], img, 0)
    with pytest.raises(gip.InvalidArgument, match="method 6"):
        gip.matchTemplate(img, img[:3, :3], 6)
    with pytest.raises(gip.Unsupported, match="equal"):
        gip.matchTemplate(img, img[:3, :3].astype(np.float32), 0)
    with pytest.raises(gip.Unsupported):
        gip.matchTemplate(img.astype(np.uint16), img[:3, :3].astype(np.uint16), 0)
    with pytest.raises(gip.InvalidType):
        gip.matchTemplate(img, img[:3, :3], None)


# ---- connected components -------------------------------------------------------------------

def _blobs(shape, density, seed):
    rng = np.random.default_rng(seed)
    return (rng.random(shape) < density).astype(np.uint8) * rng.integers(1, 256, shape,
                                                                         dtype=np.uint8)


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("ltype", [cv2.CV_32S, cv2.CV_16U])
def test_connected_components_equal_cv2(connectivity, ltype):
    cases = [np.zeros((1, 1), np.uint8), np.ones((1, 1), np.uint8), np.ones((3, 4), np.uint8)]
    for i, (h, w) in enumerate(SIZES + [(2, 2), (3, 3), (5, 1), (1, 5), (480, 640)]):
        for d in (0.2, 0.45, 0.6):
            cases.append(_blobs((h, w), d, i * 10 + int(d * 10)))
    for a in cases:
        n, lab = gip.connectedComponents(a, connectivity=connectivity, ltype=ltype)
        N, LAB = cv2.connectedComponents(a, connectivity=connectivity, ltype=ltype)
        assert n == N and lab.dtype == LAB.dtype
        np.testing.assert_array_equal(lab, LAB)  # OpenCV's own numbering, not only its partition
        r = gip.connectedComponentsWithStats(a, connectivity=connectivity, ltype=ltype)
        R = cv2.connectedComponentsWithStats(a, connectivity=connectivity, ltype=ltype)
        assert r[0] == R[0]
        np.testing.assert_array_equal(r[1], R[1])
        np.testing.assert_array_equal(r[2], R[2])
        assert r[2].dtype == R[2].dtype and r[3].dtype == R[3].dtype
        np.testing.assert_allclose(r[3], R[3], rtol=1e-15, atol=0, equal_nan=True)


def test_connected_components_large_and_text_like():
    g = photo_gray()
    for thr in (60, 128, 200):
        a = (g > thr).astype(np.uint8)
        for conn in (4, 8):
            n, lab = gip.connectedComponents(a, connectivity=conn)
            N, LAB = cv2.connectedComponents(a, connectivity=conn)
            assert n == N
            np.testing.assert_array_equal(lab, LAB)


def test_connected_components_bad_input():
    a = _blobs((20, 20), 0.5, 0)
    with pytest.raises(gip.InvalidArgument, match="connectivity"):
        gip.connectedComponents(a, connectivity=6)
    with pytest.raises(gip.Unsupported):
        gip.connectedComponents(a, ltype=cv2.CV_32F)
    with pytest.raises(gip.Unsupported):
        gip.connectedComponents(a.astype(np.float32))
    with pytest.raises(gip.Unsupported):
        gip.connectedComponents(np.dstack([a, a]))
    # more labels than uint16 holds
    big = np.zeros((600, 600), np.uint8)
    big[::2, ::2] = 1
    with pytest.raises(gip.TooLarge, match="u16"):
        gip.connectedComponents(big, ltype=cv2.CV_16U)


# ---- Dask: reductions combined across chunks -------------------------------------------------

@pytest.mark.parametrize("chunks", [(64, 100), (301, 257), (5, 50), (17, 13)])
def test_dask_reductions_equal_whole_image(chunks):
    da = pytest.importorskip("dask.array")
    import gip.dask as gd
    a = rand((301, 257), np.uint8, 4)
    a[::7] = 3  # repeated extremes in several chunks: the first in row order wins
    a[200, 3] = 0
    a[5, 250] = 255
    d = da.from_array(a, chunks=chunks)
    assert gd.minMaxLoc(d) == cv2.minMaxLoc(a)
    assert gd.countNonZero(d) == cv2.countNonZero(a)
    assert gd.sumElems(d) == cv2.sumElems(a)  # integer sums: exact
    np.testing.assert_allclose(gd.mean(d), cv2.mean(a), rtol=1e-14)
    m, s = gd.meanStdDev(d)
    M, S = cv2.meanStdDev(a)
    np.testing.assert_allclose(m, M, rtol=1e-12)
    np.testing.assert_allclose(s, S, rtol=1e-10)
    np.testing.assert_array_equal(gd.calcHist(d, [0], [32], [0, 256]),
                                  cv2.calcHist([a], [0], None, [32], [0, 256]))
    c = rand((99, 77, 3), np.uint8, 5)
    dc = da.from_array(c, chunks=(chunks[0] % 40 + 1, chunks[1] % 30 + 1, 3))
    assert gd.sumElems(dc) == cv2.sumElems(c)
    np.testing.assert_allclose(gd.meanStdDev(dc)[1], cv2.meanStdDev(c)[1], rtol=1e-10)
    np.testing.assert_array_equal(gd.calcHist(dc, [0, 2], [8, 4], [0, 256, 0, 256]),
                                  cv2.calcHist([c], [0, 2], None, [8, 4], [0, 256, 0, 256]))
    lazy = gd.mean(d, compute=False)
    assert lazy.compute() == gd.mean(d)


def test_dask_reductions_bad_input():
    da = pytest.importorskip("dask.array")
    import gip.dask as gd
    with pytest.raises(gip.InvalidArgument, match="dask array"):
        gd.mean(np.zeros((4, 4), np.uint8))
    with pytest.raises(gip.Unsupported, match="one-channel"):
        gd.minMaxLoc(da.zeros((4, 4, 3), np.uint8))


# ---- matchTemplate with a mask ---------------------------------------------------------------

def ref_match_masked(img, tpl, mask, method):
    """OpenCV's masked formulas in double precision, window by window (u8 masks binary), and the
    tolerance of single-precision correlations: TM_ULPS units of f32 rounding of
    area * channels * max(|image|, |templ|)^2 * max|mask|^2, divided by the normalising
    denominator for the normed methods."""
    I = img.astype(np.float64)
    T = tpl.astype(np.float64)
    M = (mask != 0).astype(np.float64) if mask.dtype == np.uint8 else mask.astype(np.float64)
    if I.ndim == 2:
        I, T = I[..., None], T[..., None]
    if M.ndim == 2:
        M = np.repeat(M[..., None], I.shape[2], axis=2)
    h, w, cn = T.shape
    rh, rw = I.shape[0] - h + 1, I.shape[1] - w + 1
    out = np.zeros((rh, rw))
    den = np.ones((rh, rw))
    sm = M.reshape(-1, cn).sum(0)
    tm = (M * T).reshape(-1, cn).sum(0) / sm
    for y in range(rh):
        for x in range(rw):
            win = I[y:y + h, x:x + w]
            if method in (0, 1):
                out[y, x] = (((T - win) * M) ** 2).sum()
            elif method in (2, 3):
                out[y, x] = (T * M * win * M).sum()
            else:
                im = (win * M).reshape(-1, cn).sum(0) / sm
                tp, ip = M * (T - tm), M * (win - im)
                out[y, x] = (tp * ip).sum()
                den[y, x] = np.sqrt((tp ** 2).sum() * (ip ** 2).sum())
            if method in (1, 3):
                den[y, x] = np.sqrt(((T * M) ** 2).sum() * ((win * M) ** 2).sum())
    unit = (h * w * cn * max(np.abs(I).max(), np.abs(T).max(), 1) ** 2 *
            max(np.abs(M).max(), 1) ** 2 * 2.0 ** -24)
    if method % 2:
        return out / den, unit / den
    return out, np.full(out.shape, unit)


@pytest.mark.parametrize("method", range(6))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("cn,mcn", [(1, 1), (3, 1), (3, 3)])
@pytest.mark.parametrize("mdt", [np.uint8, np.float32])
def test_match_template_masked_equals_cv2(method, dtype, cn, mcn, mdt):
    rng = np.random.default_rng(method * 7 + cn)
    for (H, W), (h, w) in [((20, 23), (5, 4)), ((13, 42), (3, 5)), ((9, 9), (9, 9))]:
        img = rand((H, W) if cn == 1 else (H, W, cn), dtype, H)
        tpl = rand((h, w) if cn == 1 else (h, w, cn), dtype, W)
        ms = (h, w) if mcn == 1 else (h, w, mcn)
        mask = ((rng.random(ms) < 0.6) * rng.integers(1, 256, ms)).astype(np.uint8) \
            if mdt == np.uint8 else rng.random(ms).astype(np.float32)
        mask.reshape(-1)[0] = 1  # at least one pixel counts
        got = gip.matchTemplate(img, tpl, method, mask=mask)
        want = cv2.matchTemplate(img, tpl, method, mask=mask)
        assert got.dtype == np.float32 and got.shape == want.shape
        ref, tol = ref_match_masked(img, tpl, mask, method)
        for name, res in (("gip", got), ("cv2", want)):
            bad = np.abs(res - ref) > TM_ULPS * tol
            assert not bad.any(), (name, method, np.argwhere(bad)[0], res[bad][0], ref[bad][0])


def test_match_template_masked_bad_input():
    img = rand((20, 30), np.uint8, 1)
    tpl = img[:4, :5].copy()
    with pytest.raises(gip.ShapeMismatch, match="mask"):
        gip.matchTemplate(img, tpl, 0, mask=np.ones((4, 4), np.uint8))
    with pytest.raises(gip.Unsupported, match="mask"):
        gip.matchTemplate(img, tpl, 0, mask=np.ones((4, 5), np.uint16))
    with pytest.raises(gip.InvalidArgument, match="method 7"):
        gip.matchTemplate(img, tpl, 7, mask=np.ones((4, 5), np.uint8))
