# SPDX-License-Identifier: MIT
"""The point operations' CPU paths for large images against cv2 5.x, bit for bit: destinations of
16 MiB and more (written with streaming stores), rows that start off a cache line (views one
element in), normalize's min and max where the extremes of the dtype are met early, late or never,
and the pipeline's fused table pass into float32 against the same steps run one by one."""
import cv2
import numpy as np
import pytest

import conftest
import gip

H, W = 1100, 1700  # u8c3 and f32 rows over 16 MiB; odd widths leave the vector steps a tail


def rand(shape, dtype=np.uint8, seed=0):
    return conftest.rand(shape, dtype, seed, lo=-0.5, hi=1.5)


def off_line(a):
    """The same values in a view whose rows start one element past a 64-byte boundary."""
    big = np.empty((a.shape[0], a.shape[1] + 1) + a.shape[2:], a.dtype)
    big[:, 1:] = a
    return big[:, 1:]


@pytest.mark.parametrize("shape,dtype", [((H, W * 4, 3), np.uint8), ((H, W * 3), np.float32),
                                         ((H, W * 3, 4), np.uint8), ((H, W), np.uint8)])
@pytest.mark.parametrize("shifted", [False, True])
def test_large_unary_and_pairs(shape, dtype, shifted):
    a, b = rand(shape, dtype, 1), rand(shape, dtype, 2)
    if shifted:
        a, b = off_line(a), off_line(b)
    t = 0.5 if dtype == np.float32 else 127
    for rule in (cv2.THRESH_BINARY, cv2.THRESH_TRUNC, cv2.THRESH_TOZERO_INV):
        np.testing.assert_array_equal(gip.threshold(a, t, 1, rule)[1],
                                      cv2.threshold(a, t, 1, rule)[1])
    np.testing.assert_array_equal(gip.convertScaleAbs(a, alpha=1.5, beta=3),
                                  cv2.convertScaleAbs(a, alpha=1.5, beta=3))
    np.testing.assert_array_equal(gip.absdiff(a, b), cv2.absdiff(a, b))
    np.testing.assert_array_equal(gip.add(a, b), cv2.add(a, b))
    for al, be, ga in ((0.6, 0.4, 0), (0.3, 0.7, 5), (1.3, -0.4, 10.25)):
        e, g = cv2.addWeighted(a, al, b, be, ga), gip.addWeighted(a, al, b, be, ga)
        if dtype == np.float32:  # OpenCV's scalar tail rounds twice: 1 ulp there
            np.testing.assert_allclose(g, e, rtol=2e-7, atol=0)
        else:
            np.testing.assert_array_equal(g, e)
    for scale in (1 / 255, 1.0, 2.5):
        np.testing.assert_array_equal(gip.multiply(a, b, scale=scale),
                                      cv2.multiply(a, b, scale=scale))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16])
@pytest.mark.parametrize("where", ["early", "late", "never"])
@pytest.mark.parametrize("cn", [1, 3])
def test_normalize_extremes(dtype, where, cn):
    info = np.iinfo(dtype)
    shape = (H, W) + ((cn,) if cn > 1 else ())
    rng = np.random.default_rng(7)
    a = rng.integers(int(info.min) + 3, int(info.max) - 3, shape, dtype=dtype)
    if where == "early":  # both ends in the first row: the min/max pass stops there
        a.flat[5], a.flat[17] = info.min, info.max
    elif where == "late":  # one end first, the other in the last row
        a.flat[3], a.flat[-2] = info.max, info.min
        a.flat[-1000] = info.min + 1
    for norm, al, be in ((cv2.NORM_MINMAX, 0, 255), (cv2.NORM_MINMAX, 250, 10),
                         (cv2.NORM_INF, 1000, 0)):
        for ddepth in (-1, cv2.CV_8U, cv2.CV_32F):
            e = cv2.normalize(a, None, al, be, norm, ddepth)
            g = gip.normalize(a, None, al, be, norm, ddepth)
            if e.dtype == np.float32:  # the range's size sets the rounding error near 0
                np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6 * max(abs(al), abs(be)))
            else:
                np.testing.assert_array_equal(g, e, err_msg=(norm, al, be, ddepth))


def test_normalize_in_place_and_off_line():
    a = rand((H, W * 4, 3), seed=11)
    a[0, 0, 0], a[-1, -1, 2] = 7, 201  # the range [7, 201] met in the first and last pixels
    a = np.clip(a, 7, 201)
    e = cv2.normalize(a, None, 0, 255, cv2.NORM_MINMAX)
    s = off_line(a)
    np.testing.assert_array_equal(gip.normalize(s, None, 0, 255, cv2.NORM_MINMAX), e)
    b = a.copy()
    gip.normalize(b, b, 0, 255, cv2.NORM_MINMAX)
    np.testing.assert_array_equal(b, e)


@pytest.mark.parametrize("cn", [1, 3, 4])
@pytest.mark.parametrize("text", [
    "convert f32 scale=0.00392156862745098 | convert f32 scale=2 offset=-0.5 | threshold 0.5 1 binary",
    "convert u16 scale=200 | add 7",
    "convert s16 scale=-100 offset=3 | subtract 5",
    "invert | convert u8 scale=0.5 offset=10"])
def test_pipeline_table_pass(cn, text):
    a = rand((H, W * 3) + ((cn,) if cn > 1 else ()), seed=cn)
    fused, steps = gip.Pipeline(text, device="cpu"), gip.Pipeline(text, device="cpu", fusion=False)
    assert "lut[" in fused.describe(cn, np.uint8)
    for src in (a, off_line(a)):
        np.testing.assert_array_equal(fused(src), steps(src))


@pytest.mark.parametrize("special", ["none", "nan", "inf", "all_nan"])
def test_normalize_f32_extremes_as_the_statistics(special):
    """float32 min and max in one vector pass skip NaN as the statistics do: the result equals the
    masked route's (an all-ones mask reads the extremes through the statistics' reduction)."""
    a = rand((H, W * 3), np.float32, seed=5) * 300 - 40
    if special == "nan":
        a[::7, ::5] = np.nan
        a[0, 0] = np.nan
    elif special == "inf":
        a[3, 9], a[-1, -4] = np.inf, -np.inf
    elif special == "all_nan":
        a[:] = np.nan
    ones = np.ones(a.shape, np.uint8)
    for norm, al, be in ((cv2.NORM_MINMAX, 0, 255), (cv2.NORM_MINMAX, 1, -1), (cv2.NORM_INF, 5, 0)):
        for ddepth in (-1, cv2.CV_8U):
            try:
                g = gip.normalize(a, None, al, be, norm, ddepth)
            except gip.InvalidArgument as e:  # infinite extremes: no finite scale, either way
                with pytest.raises(gip.InvalidArgument, match="must be finite"):
                    gip.normalize(a, None, al, be, norm, ddepth, mask=ones)
                assert special == "inf" and "must be finite" in str(e)
                continue
            m = gip.normalize(a, None, al, be, norm, ddepth, mask=ones)
            np.testing.assert_array_equal(g, m, err_msg=(special, norm, ddepth))
            if special == "none":
                e = cv2.normalize(a, None, al, be, norm, ddepth)
                if e.dtype == np.float32:
                    np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6 * max(abs(al), abs(be)))
                else:
                    np.testing.assert_array_equal(g, e)
