# SPDX-License-Identifier: MIT
"""The statistics family against cv2: equalizeHist and CLAHE bit for bit (u8; CLAHE on u16 too),
calcHist counts exactly, integer reductions exactly, f32 reductions within a stated tolerance;
cv2's return types and shapes; bad input refused with a clear error; on a GPU the same results
as the CPU (integers exactly), the same every run."""
import cv2
import numpy as np
import pytest

import gip
from conftest import rand, requires_cuda, sample

SIZES = [(1, 1), (1, 17), (17, 1), (13, 42), (64, 48), (257, 199)]
# f32 against cv2: gip sums in double; cv2 sums short runs of f32 values in single precision
# before adding them in double, so its results carry float rounding: within F32_RTOL of the
# values' magnitude. (gip's CPU and GPU, both in double, agree within 1e-12: the GPU tests.)
F32_RTOL = 2e-6


def photo_gray():
    return cv2.cvtColor(sample("astronaut.png"), cv2.COLOR_RGB2GRAY)


def images(dtype, channels, seed):
    for i, (h, w) in enumerate(SIZES):
        shape = (h, w) if channels == 1 else (h, w, channels)
        a = rand(shape, dtype, seed + i)
        if a.size > 4:  # repeated extremes and zeros
            a.reshape(-1)[:: 7] = 0
        yield a


def masks(h, w, seed):
    rng = np.random.default_rng(seed)
    yield None
    yield (rng.random((h, w)) < 0.4).astype(np.uint8) * 255
    yield np.zeros((h, w), np.uint8)


# ---- equalizeHist and CLAHE -------------------------------------------------------------------
def test_equalize_hist_bit_exact():
    rng = np.random.default_rng(3)
    cases = [photo_gray(), photo_gray()[::3, 1::2].copy(), np.full((5, 7), 9, np.uint8)]
    for h, w in SIZES:
        cases.append(rng.integers(0, 256, (h, w), dtype=np.uint8))
        cases.append((rng.normal(60, 8, (h, w))).clip(0, 255).astype(np.uint8))
    for a in cases:
        got = gip.equalizeHist(a)
        assert got.dtype == np.uint8 and got.shape == a.shape
        np.testing.assert_array_equal(got, cv2.equalizeHist(a))
    # padded strides
    base = rng.integers(0, 256, (40, 70), dtype=np.uint8)
    np.testing.assert_array_equal(gip.equalize_hist(base[:, 3:60]),
                                  cv2.equalizeHist(base[:, 3:60]))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_clahe_bit_exact(dtype):
    rng = np.random.default_rng(5)
    bad = []
    for t in range(60):
        h, w = (int(v) for v in rng.integers(1, 200, 2))
        if dtype == np.uint8:
            a = rng.integers(0, 256, (h, w), dtype=np.uint8) if t % 2 else \
                rng.normal(90, 20, (h, w)).clip(0, 255).astype(np.uint8)
        else:
            a = rng.integers(0, 65536, (h, w), dtype=np.uint16) if t % 2 else \
                rng.normal(9000, 900, (h, w)).clip(0, 65535).astype(np.uint16)
        clip = float(rng.choice([0.0, -1.0, 0.5, 1.0, 2.0, 4.0, 40.0]))
        grid = (int(rng.integers(1, 13)), int(rng.integers(1, 13)))
        got = gip.createCLAHE(clip, grid).apply(a)
        exp = cv2.createCLAHE(clip, grid).apply(a)
        assert got.dtype == a.dtype and got.shape == a.shape
        if not np.array_equal(got, exp):
            bad.append((h, w, clip, grid))
    assert not bad, "CLAHE differs from cv2 on %s" % bad
    img = photo_gray() if dtype == np.uint8 else photo_gray().astype(np.uint16) * 257
    np.testing.assert_array_equal(gip.createCLAHE().apply(img), cv2.createCLAHE().apply(img))


def test_clahe_object():
    c = gip.createCLAHE(clipLimit=3.0, tileGridSize=(4, 6))
    assert c.getClipLimit() == 3.0 and c.getTilesGridSize() == (4, 6)
    c.setClipLimit(1.5)
    c.setTilesGridSize((3, 2))
    assert c.getClipLimit() == 1.5 and c.getTilesGridSize() == (3, 2)
    a = rand((31, 45), np.uint8, 9)
    np.testing.assert_array_equal(c.apply(a), cv2.createCLAHE(1.5, (3, 2)).apply(a))
    c.collectGarbage()
    with pytest.raises(gip.InvalidArgument):
        c.setTilesGridSize((0, 4))
    with pytest.raises(gip.InvalidType):
        c.setTilesGridSize((2.0, 4))
    with pytest.raises(gip.InvalidType):
        c.setClipLimit("2")
    assert c.getTilesGridSize() == (3, 2) and c.getClipLimit() == 1.5  # unchanged
    # the registry operation is the same computation
    np.testing.assert_array_equal(gip.apply("clahe", a, clip_limit=1.5, tiles=(3, 2)),
                                  c.apply(a))


def test_image_ops_bad_input():
    for bad in (rand((9, 8, 3), np.uint8, 1), rand((9, 8), np.float32, 1),
                rand((9, 8), np.int16, 1)):
        with pytest.raises(gip.Unsupported):
            gip.equalizeHist(bad)
        with pytest.raises(gip.Unsupported):
            gip.createCLAHE().apply(bad)
    with pytest.raises(gip.Unsupported):
        gip.equalizeHist(rand((9, 8), np.uint16, 1))
    with pytest.raises(gip.Unsupported):
        gip.equalizeHist(None)


# ---- reductions ---------------------------------------------------------------------------
def exact_norm(a, b, nt, m):
    """The INF, L1 or L2 norm of integer a (or a - b) where m is not zero, from Python integers:
    what gip gives for integer dtypes, bit for bit."""
    d = a.astype(np.int64) if b is None else a.astype(np.int64) - b.astype(np.int64)
    if m is not None:
        d = d[m.astype(bool)]
    d = [int(v) for v in np.abs(d).ravel()]
    if nt == cv2.NORM_INF:
        return float(max(d, default=0))
    if nt == cv2.NORM_L1:
        return float(sum(d))
    return float(np.sqrt(float(sum(v * v for v in d))))


def close(got, exp, integer, scale=0.0):
    """got == exp for integer sources; for f32 within F32_RTOL of |exp| + scale (the mean or
    sum of the magnitudes, which bounds cv2's float rounding)."""
    if integer:
        return got == exp
    return abs(got - exp) <= F32_RTOL * (abs(exp) + scale + 1e-30)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_reductions_match_cv2(dtype, channels):
    integer = dtype != np.float32
    for k, a in enumerate(images(dtype, channels, 20 + channels)):
        h, w = a.shape[:2]
        mag = float(np.abs(a.astype(np.float64)).max())  # bounds each mean's magnitude
        for m in masks(h, w, k):
            label = "%s c%d %dx%d mask %s" % (np.dtype(dtype), channels, w, h,
                                              None if m is None else int(m.sum() // 255))
            got, exp = gip.mean(a, m), cv2.mean(a, m)
            assert isinstance(got, tuple) and len(got) == 4
            assert all(close(g, e, integer, mag) for g, e in zip(got, exp)), (label, got, exp)
            gm, gs = gip.meanStdDev(a, mask=m)
            em, es = cv2.meanStdDev(a, mask=m)
            assert gm.shape == em.shape == (channels, 1) and gm.dtype == np.float64
            # cv2 takes var = E[x^2] - mean^2 as gip does; its f32 E[x^2] rounds otherwise
            np.testing.assert_allclose(gm, em, rtol=0, atol=0 if integer else F32_RTOL * mag,
                                       err_msg=label)
            # the standard deviation comes from E[x^2] - mean^2: cv2's float rounding of both
            # is amplified by the cancellation, by up to mag / std
            np.testing.assert_allclose(gs, es, rtol=0, atol=0 if integer else
                                       F32_RTOL * mag * (1 + mag / max(float(es.min()), 1e-3)),
                                       err_msg=label)
            if channels == 1:
                g, e = gip.minMaxLoc(a, m), cv2.minMaxLoc(a, m)
                assert g == e, (label, g, e)
                assert all(isinstance(v, int) for v in g[2] + g[3])
            for nt in (cv2.NORM_INF, cv2.NORM_L1, cv2.NORM_L2):
                g, e = gip.norm(a, nt, m), cv2.norm(a, nt, m)
                if integer:  # exact: the norm of Python integers, and cv2 to its own rounding
                    assert g == exact_norm(a, None, nt, m), (label, nt, g)
                    assert abs(g - e) <= 1e-12 * (e + 1), (label, nt, g, e)
                else:
                    assert close(g, e, False), (label, nt, g, e)
        g, e = gip.sumElems(a), cv2.sumElems(a)
        assert all(close(x, y, integer, mag * h * w) for x, y in zip(g, e)), (g, e)
        if channels == 1:
            assert gip.countNonZero(a) == cv2.countNonZero(a)
            assert isinstance(gip.countNonZero(a), int)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_norm_diff_relative_psnr(dtype):
    integer = dtype != np.float32
    for k, a in enumerate(images(dtype, 3, 40)):
        b = rand(a.shape, dtype, 77 + k)
        h, w = a.shape[:2]
        for m in masks(h, w, k):
            for nt in (cv2.NORM_INF, cv2.NORM_L1, cv2.NORM_L2):
                for rel in (0, cv2.NORM_RELATIVE):
                    g, e = gip.norm(a, b, nt | rel, m), cv2.norm(a, b, nt | rel, m)
                    if integer and not rel:
                        assert g == exact_norm(a, b, nt, m), (dtype, a.shape, nt, g)
                    # cv2 sums s16 differences' squares and masked L2 through float or double
                    # steps of its own (gip is exact, above): cv2 within 1e-9 of it
                    tol = 1e-9 if integer else F32_RTOL
                    assert abs(g - e) <= tol * (abs(e) + 1e-30), (dtype, a.shape, nt, rel, g, e)
        tol = 1e-9 if integer else F32_RTOL
        for r in (255.0, 1.0 if dtype == np.float32 else 65535.0):
            g, e = gip.PSNR(a, b, r), cv2.PSNR(a, b, r)
            if integer:  # exact squared sum, then cv2's formula in double
                sq = exact_norm(a, b, cv2.NORM_L2, None) ** 2
                ref = 20 * np.log10(r / (np.sqrt(sq / a.size) + np.finfo(np.float64).eps))
                assert abs(g - ref) <= 1e-13 * abs(ref), (g, ref)
            assert abs(g - e) <= tol * abs(e), (g, e)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_calc_hist_matches_cv2(dtype):
    top = {np.uint8: 256, np.uint16: 65536, np.float32: 3.0}[dtype]
    cases = [([0], [256], [0, top]), ([1], [17], [top * 0.1, top * 0.8]),
             ([2, 0], [30, 7], [0, top, top * 0.25, top * 0.5]),
             ([0, 1, 2], [5, 6, 7], [0, top, 0, top, 0, top]), ([0], [1], [0, top])]
    if dtype == np.float32:
        cases.append(([0], [64], [-2.0, 3.0]))
        cases.append(([0], [10], [-1.3, 2.7]))
    for k, a in enumerate(images(dtype, 3, 60)):
        h, w = a.shape[:2]
        for m in masks(h, w, k):
            for chans, bins, ranges in cases:
                g = gip.calcHist([a], chans, m, bins, ranges)
                e = cv2.calcHist([a], chans, m, bins, ranges)
                assert g.dtype == np.float32 and g.shape == e.shape
                np.testing.assert_array_equal(g, e, err_msg=str((a.shape, chans, bins, ranges)))
    # accumulate: cv2 adds to the counts it is given
    a, b = rand((20, 30), dtype, 1), rand((20, 30), dtype, 2)
    h1 = cv2.calcHist([a], [0], None, [16], [0, top])
    g1 = gip.calcHist([a], [0], None, [16], [0, top])
    e = cv2.calcHist([b], [0], None, [16], [0, top], h1, accumulate=True)
    g = gip.calcHist([b], [0], None, [16], [0, top], g1, accumulate=True)
    np.testing.assert_array_equal(g, e)


def test_calc_hist_f32_special_values_like_cv2():
    """NaN goes to the last bin (as cv2 5 counts it), infinities and values outside the range
    nowhere; one channel, widths around the vector step of 16, with and without a mask."""
    rng = np.random.default_rng(7)
    for w in (1, 15, 16, 17, 40):
        a = rng.uniform(-2, 3, (6, w)).astype(np.float32)
        pick = rng.random(a.shape)
        a[pick < 0.1] = np.nan
        a[(pick >= 0.1) & (pick < 0.15)] = np.inf
        a[(pick >= 0.15) & (pick < 0.2)] = -np.inf
        a[(pick >= 0.2) & (pick < 0.25)] = 2.5
        for m in (None, (rng.random(a.shape) < 0.6).astype(np.uint8)):
            for bins in (1, 7, 256):
                g = gip.calcHist([a], [0], m, [bins], [-1.25, 2.5])
                e = cv2.calcHist([a], [0], m, [bins], [-1.25, 2.5])
                np.testing.assert_array_equal(g, e, err_msg=str((w, bins, m is None)))


def test_calc_hist_non_uniform():
    a = rand((40, 50), np.float32, 3)
    edges = [-2.0, -1.0, 0.0, 0.5, 2.0, 2.9]
    g = gip.calcHist([a], [0], None, [5], [edges], uniform=False)
    v = a.reshape(-1)
    exp = np.array([((v >= edges[i]) & (v < edges[i + 1])).sum() for i in range(5)],
                   np.float32)
    np.testing.assert_array_equal(g, exp)
    u = rand((40, 50), np.uint8, 4)
    g = gip.calcHist([u], [0], None, [3], [[0, 10.5, 100, 256]], uniform=False)
    v = u.reshape(-1)
    np.testing.assert_array_equal(g.ravel(), [(v < 11).sum(), ((v >= 11) & (v < 100)).sum(),
                                              (v >= 100).sum()])


def test_reductions_bad_input():
    a = rand((9, 8), np.uint8, 1)
    c3 = rand((9, 8, 3), np.uint8, 1)
    for bad_mask, err in ((np.ones((9, 7), np.uint8), gip.ShapeMismatch),
                          (np.ones((9, 8, 3), np.uint8), gip.Unsupported),
                          (np.ones((9, 8), np.float32), gip.Unsupported)):
        for fn in (lambda: gip.mean(a, bad_mask), lambda: gip.meanStdDev(a, mask=bad_mask),
                   lambda: gip.minMaxLoc(a, bad_mask), lambda: gip.norm(a, gip.NORM_L1,
                                                                         bad_mask),
                   lambda: gip.calcHist([a], [0], bad_mask, [8], [0, 256])):
            with pytest.raises(err):
                fn()
    with pytest.raises(gip.Unsupported):
        gip.minMaxLoc(c3)
    with pytest.raises(gip.Unsupported):
        gip.countNonZero(c3)
    with pytest.raises(gip.Unsupported):
        gip.mean(None)
    with pytest.raises(gip.InvalidArgument):
        gip.norm(a, 3)
    with pytest.raises(gip.InvalidArgument):
        gip.norm(a, gip.NORM_L2 | gip.NORM_RELATIVE)
    with pytest.raises(gip.ShapeMismatch):
        gip.norm(a, rand((9, 8), np.uint16, 1))
    with pytest.raises(gip.ShapeMismatch):
        gip.PSNR(a, c3)
    with pytest.raises(gip.InvalidArgument):
        gip.PSNR(a, a, -1.0)
    with pytest.raises(gip.Unsupported):
        gip.calcHist([rand((9, 8), np.int16, 1)], [0], None, [8], [0, 256])
    for bins in ([0], [1 << 25]):
        with pytest.raises(gip.InvalidArgument):
            gip.calcHist([a], [0], None, bins, [0, 256])
    with pytest.raises(gip.InvalidArgument):
        gip.calcHist([a], [1], None, [8], [0, 256])  # no channel 1
    with pytest.raises(gip.InvalidArgument):
        gip.calcHist([a], [0], None, [8], [5, 5])
    with pytest.raises(gip.InvalidArgument):
        gip.calcHist([a], [0], None, [8], [0, 256, 3])
    with pytest.raises(gip.InvalidArgument):
        gip.calcHist([a], [0], None, [2], [[0, 10, 5]], uniform=False)
    with pytest.raises(gip.InvalidType):
        gip.calcHist([a], [0.0], None, [8], [0, 256])
    # a refused accumulate leaves the given histogram alone
    h = np.full((8, 1), 3, np.float32)
    with pytest.raises(gip.InvalidArgument):
        gip.calcHist([a], [0], None, [8], [9, 1], h, accumulate=True)
    assert (h == 3).all()


# ---- GPU --------------------------------------------------------------------------------------
@requires_cuda
def test_cuda_image_ops_equal_cpu():
    for a in [photo_gray(), rand((257, 199), np.uint8, 3), rand((13, 42), np.uint8, 4)]:
        with gip.Device("cuda"):
            ge = gip.equalizeHist(a)
            gc = gip.createCLAHE(2.0, (5, 3)).apply(a)
            g16 = gip.createCLAHE(3.0, (8, 8)).apply(a.astype(np.uint16) * 250)
        np.testing.assert_array_equal(ge, cv2.equalizeHist(a))
        np.testing.assert_array_equal(gc, cv2.createCLAHE(2.0, (5, 3)).apply(a))
        np.testing.assert_array_equal(g16, cv2.createCLAHE(3.0, (8, 8)).apply(
            a.astype(np.uint16) * 250))
    d = gip.upload(rand((64, 48), np.uint8, 5))
    out = gip.equalizeHist(d)
    assert isinstance(out, gip.Image) and out.is_cuda
    np.testing.assert_array_equal(out.download(), cv2.equalizeHist(rand((64, 48), np.uint8, 5)))
    # reductions of device images: numbers on the host, equal to the CPU's
    a3 = rand((61, 47, 3), np.uint16, 6)
    d3 = gip.upload(a3)
    assert gip.mean(d3) == gip.mean(a3) and gip.sumElems(d3) == gip.sumElems(a3)
    assert gip.minMaxLoc(d) == gip.minMaxLoc(rand((64, 48), np.uint8, 5))
    np.testing.assert_array_equal(gip.calcHist([d3], [0, 2], None, [16, 8], [0, 65536] * 2),
                                  cv2.calcHist([a3], [0, 2], None, [16, 8], [0, 65536] * 2))


def flat(results):
    """The numbers of a list of reduction results (tuples, arrays, floats) as Python floats."""
    out = []
    for r in results:
        out.extend(float(v) for v in np.ravel(np.asarray(r, dtype=np.float64)))
    return out


@requires_cuda
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_cuda_reductions_equal_cpu_and_deterministic(dtype):
    integer = dtype != np.float32
    for channels in (1, 3, 4):
        for k, a in enumerate(images(dtype, channels, 90)):
            h, w = a.shape[:2]
            b = rand(a.shape, dtype, 5 + k)

            def run(m):
                mean, std = gip.meanStdDev(a, mask=m)
                return flat([gip.mean(a, m), mean, std, gip.sumElems(a),
                             gip.norm(a, b, gip.NORM_L2, m), gip.norm(a, gip.NORM_L1, m),
                             gip.norm(a, b, gip.NORM_INF, m), gip.PSNR(a, b)])

            for m in masks(h, w, k):
                cpu = run(m)
                with gip.Device("cuda"):
                    gpu, again = run(m), run(m)
                assert gpu == again  # the same every run, bit for bit
                if integer:
                    assert gpu == cpu
                else:  # both sum in double, in different orders
                    np.testing.assert_allclose(gpu, cpu, rtol=1e-12, atol=1e-12)
                if channels == 1:
                    with gip.Device("cuda"):
                        gmm = gip.minMaxLoc(a, m)
                        gnz = gip.countNonZero(a)
                    assert gmm == gip.minMaxLoc(a, m) and gnz == gip.countNonZero(a)
                rng = [0, 256] if dtype == np.uint8 else [0, 65536] if integer else [-2, 3]
                if dtype != np.int16:
                    with gip.Device("cuda"):
                        gh = gip.calcHist([a], [0], m, [64], rng)
                        g3 = gip.calcHist([a], [0, channels - 1], m, [200, 90], rng + rng)
                    np.testing.assert_array_equal(gh, gip.calcHist([a], [0], m, [64], rng))
                    np.testing.assert_array_equal(
                        g3, gip.calcHist([a], [0, channels - 1], m, [200, 90], rng + rng))
