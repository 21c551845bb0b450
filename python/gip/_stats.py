# SPDX-License-Identifier: MIT
"""Statistics with OpenCV's names, arguments and return types: equalizeHist and CLAHE (registered
operations, run through the registry), calcHist and the reductions minMaxLoc, mean, meanStdDev,
sumElems, countNonZero, norm and PSNR (libgip's gip/stats.h). Each runs where the data lives, as
every gip function: host arrays on the default device, device arrays on their device. The
snake_case names are gip's; the camelCase ones are cv2's, for drop-in use."""
import numbers as _numbers

import numpy as _np

from . import _gip
from ._core import (InvalidArgument, InvalidType, Unsupported, _check_image_like, _image_out,
                    _prep, _raise)
from ._registry import _run

NORM_INF = 1
NORM_L1 = 2
NORM_L2 = 4
NORM_RELATIVE = 8


@_image_out
def equalizeHist(src, dst=None, *, device=None):  # noqa: N802 - cv2's name
    """cv2.equalizeHist(src): a one-channel uint8 image equalised through its cumulative
    histogram, bit for bit OpenCV's (gip.equalize_hist is the registered operation's own
    function, the same computation)."""
    return _run("equalize_hist", src, dst, device, {})


def _number(v, what):
    if isinstance(v, bool) or not isinstance(v, _numbers.Real):
        _raise(InvalidType, "%s must be a number, got %s %r" % (what, type(v).__name__, v))
    return float(v)


def _grid(size):
    if (not isinstance(size, (tuple, list)) or len(size) != 2 or
            any(isinstance(v, bool) or not isinstance(v, _numbers.Integral) for v in size)):
        _raise(InvalidType, "tileGridSize must be (width, height) of ints, got %r" % (size,))
    w, h = int(size[0]), int(size[1])
    if not (1 <= w <= 256 and 1 <= h <= 256):
        _raise(InvalidArgument, "tileGridSize is %dx%d; 1 to 256 tiles each way are accepted"
               % (w, h))
    return (w, h)


class CLAHE:
    """cv2.CLAHE: contrast limited adaptive histogram equalisation of one-channel uint8 and
    uint16 images, bit for bit OpenCV's. Made by :func:`createCLAHE`."""

    def __init__(self, clipLimit=40.0, tileGridSize=(8, 8)):
        self._clip = 40.0
        self._grid = (8, 8)
        self.setClipLimit(clipLimit)
        self.setTilesGridSize(tileGridSize)

    @_image_out
    def apply(self, src, dst=None, *, device=None):
        """The equalised image (same shape and dtype as src)."""
        # cv2 clips only for a positive limit: 0 and below mean no clipping (the registry's 0).
        return _run("clahe", src, dst, device,
                    {"clip_limit": max(self._clip, 0.0), "tiles": self._grid})

    def setClipLimit(self, clipLimit):
        clip = _number(clipLimit, "clipLimit")
        if clip != clip or clip > 1e6:
            _raise(InvalidArgument, "clipLimit is %r; a number up to 1e6 is accepted" % clip)
        self._clip = clip

    def getClipLimit(self):
        return self._clip

    def setTilesGridSize(self, tileGridSize):
        self._grid = _grid(tileGridSize)

    def getTilesGridSize(self):
        return self._grid

    def collectGarbage(self):
        """Nothing to free: gip keeps no buffers between calls."""

    def __repr__(self):
        return "gip.CLAHE(clipLimit=%r, tileGridSize=%r)" % (self._clip, self._grid)


def createCLAHE(clipLimit=40.0, tileGridSize=(8, 8)):
    """cv2.createCLAHE: a :class:`CLAHE` with that clip limit and tile grid."""
    return CLAHE(clipLimit, tileGridSize)


create_clahe = createCLAHE


def _prepared(device, src, src2=None, mask=None):
    _check_image_like(src, "src")
    given = [x for x in (src, src2, mask) if x is not None]
    ctx, prep, _ = _prep(device, given)
    it = iter(prep)
    s = next(it)
    s2 = next(it) if src2 is not None else None
    m = next(it) if mask is not None else None
    return ctx, s, s2, m


def _reduce(what, src, src2=None, mask=None, norm_type=0, r=0.0, device=None):
    ctx, s, s2, m = _prepared(device, src, src2, mask)
    return _gip.reduce(ctx, what, s, s2, m, norm_type, r)


def min_max_loc(src, mask=None, *, device=None):
    """cv2.minMaxLoc: (minVal, maxVal, minLoc, maxLoc) of a one-channel image where mask (uint8,
    src's size) is not zero; locations are (x, y), the first in row order; an empty mask gives
    (0.0, 0.0, (-1, -1), (-1, -1))."""
    return _reduce("minmaxloc", src, None, mask, device=device)


def mean(src, mask=None, *, device=None):
    """cv2.mean: the mean of each channel as a 4-tuple (zeros after the last channel)."""
    return _reduce("mean", src, None, mask, device=device)


def mean_std_dev(src, mean=None, stddev=None, mask=None, *, device=None):
    """cv2.meanStdDev: (mean, stddev), each a float64 array of shape (channels, 1)."""
    mv, sv = _reduce("meanstddev", src, None, mask, device=device)
    c = _channels(src)
    m = _np.array(mv[:c], dtype=_np.float64).reshape(c, 1)
    s = _np.array(sv[:c], dtype=_np.float64).reshape(c, 1)
    if mean is not None:
        mean[...] = m
    if stddev is not None:
        stddev[...] = s
    return m, s


def _into(out, result):
    """result written into out and out returned where out is a numpy array of result's shape and
    dtype (cv2's optional output arguments); else result."""
    if isinstance(out, _np.ndarray) and out.shape == result.shape and out.dtype == result.dtype:
        out[...] = result
        return out
    return result


def _channels(src):
    shape = getattr(src, "shape", None)
    if shape is None:
        shape = _np.asarray(src).shape
    return shape[2] if len(shape) == 3 else 1


def sum_elems(src, *, device=None):
    """cv2.sumElems: the sum of each channel as a 4-tuple."""
    return _reduce("sum", src, device=device)


def count_non_zero(src, *, device=None):
    """cv2.countNonZero: the number of non-zero elements of a one-channel image."""
    return _reduce("countnonzero", src, device=device)


def _is_int(v):
    return isinstance(v, _numbers.Integral) and not isinstance(v, bool)


def norm(src1, src2=None, normType=NORM_L2, mask=None, *, device=None):
    """cv2.norm: norm(src1, normType=NORM_L2, mask=None) or norm(src1, src2, normType, mask):
    NORM_INF, NORM_L1 or NORM_L2 of src1 or of src1 - src2 over all channels, where mask is not
    zero; NORM_RELATIVE | type (with src2) divides by src2's norm."""
    if _is_int(src2):  # cv2's first form: norm(src1, normType[, mask])
        if normType is not NORM_L2 and mask is None and not _is_int(normType):
            mask = normType
        src2, normType = None, src2
    if not _is_int(normType):
        _raise(InvalidType, "normType must be an int, got %s %r"
               % (type(normType).__name__, normType))
    return _reduce("norm", src1, src2, mask, int(normType), device=device)


def PSNR(src1, src2, R=255.0, *, device=None):  # noqa: N802 - cv2's name
    """cv2.PSNR: 20 log10(R / RMS(src1 - src2)) over all elements, in dB."""
    return _reduce("psnr", src1, src2, None, 0, _number(R, "R"), device=device)


psnr = PSNR


def calc_hist(images, channels, mask, histSize, ranges, hist=None, accumulate=False, *,
              uniform=True, device=None):
    """cv2.calcHist([image], channels, mask, histSize, ranges, hist, accumulate): the histogram
    of one image (uint8, uint16 or float32, 1 to 4 channels) over 1 to 3 of its channels, as a
    float32 array of shape tuple(histSize), as cv2 5 gives it.
    ranges: [low0, high0, low1, high1, ...] (cv2's flat form); with uniform=False (cv2's C++
    argument) one sequence of histSize[i] + 1 edges per dimension. accumulate adds to hist."""
    if isinstance(images, (list, tuple)):
        if len(images) != 1:
            _raise(InvalidArgument, "calcHist: one image is accepted (got %d); stack the "
                   "channels of several into one" % len(images))
        images = images[0]
    chans = list(channels) if isinstance(channels, (list, tuple)) else None
    bins = list(histSize) if isinstance(histSize, (list, tuple)) else None
    if chans is None or bins is None or not all(_is_int(v) for v in chans + bins):
        _raise(InvalidType, "calcHist: channels and histSize must be lists of ints")
    dims = len(chans)
    if not 1 <= dims <= 3 or len(bins) != dims:
        _raise(InvalidArgument, "calcHist: channels and histSize must have the same length, 1 "
               "to 3 (got %d and %d)" % (dims, len(bins)))
    if uniform:
        flat = [_number(v, "ranges") for v in ranges]
        if len(flat) != 2 * dims:
            _raise(InvalidArgument, "calcHist: ranges needs %d values (low, high per dimension),"
                   " got %d" % (2 * dims, len(flat)))
        rs = [flat[2 * d:2 * d + 2] for d in range(dims)]
    else:
        rs = [[_number(v, "ranges") for v in r] for r in ranges]
    shape = tuple(int(b) for b in bins)  # cv2 5: (bins,) for one dimension
    for b in bins:
        if not 1 <= b <= 1 << 24:
            _raise(InvalidArgument, "calcHist: histSize %d is out of range 1..16777216" % b)
    if _np.prod(shape, dtype=_np.int64) > 1 << 24:
        _raise(InvalidArgument, "calcHist: the histogram has more than 16777216 bins")
    if accumulate and hist is not None:
        h = _np.ascontiguousarray(_np.asarray(hist, dtype=_np.float32).reshape(shape)).copy()
    else:
        h = _np.zeros(shape, _np.float32)
    ctx, s, _, m = _prepared(device, images, None, mask)
    _gip.calc_hist(ctx, s, m, [int(c) for c in chans], [int(b) for b in bins], rs,
                   not uniform, h, bool(accumulate))
    return _into(hist, h)


# ---- analysis: minMaxIdx, compareHist, integral, moments, matchTemplate, components ----------

CV_32S = 4
CV_64F = 6
HISTCMP_CORREL = 0
HISTCMP_CHISQR = 1
HISTCMP_INTERSECT = 2
HISTCMP_BHATTACHARYYA = 3
HISTCMP_HELLINGER = 3
HISTCMP_CHISQR_ALT = 4
HISTCMP_KL_DIV = 5
TM_SQDIFF = 0
TM_SQDIFF_NORMED = 1
TM_CCORR = 2
TM_CCORR_NORMED = 3
TM_CCOEFF = 4
TM_CCOEFF_NORMED = 5
CC_STAT_LEFT = 0
CC_STAT_TOP = 1
CC_STAT_WIDTH = 2
CC_STAT_HEIGHT = 3
CC_STAT_AREA = 4

_NP_OF_DEPTH = {2: _np.uint16, 4: _np.int32, 5: _np.float32, 6: _np.float64}


def _host_ctx(objs, device):
    """(ctx, host arrays) for the operations computed on the CPU (integral, moments,
    matchTemplate, connected components): device inputs are downloaded first, as their results
    are host arrays (numpy), as cv2 gives them."""
    from ._core import Device, Image, _gip as _g, _host_array
    out = []
    for i, o in enumerate(objs):
        if isinstance(o, _np.ndarray):
            out.append(o)
            continue
        if isinstance(o, Image):
            if o.closed:
                _raise(InvalidArgument, "the gip.Image is closed")
            out.append(o.download() if o.is_cuda else _np.asarray(o))
            continue
        what = "src" if len(objs) == 1 else "input %d" % i
        _check_image_like(o, what)
        kind, idx = _g.where(o)
        if kind == "cuda":
            img = _g.asimage(Device(idx).context, o)
            out.append(img.download())
        else:
            out.append(_host_array(o, what))
    if device is not None and device != "auto" and str(device) != "cpu":
        dev = device if isinstance(device, Device) else Device(device)
        if dev.kind != "cpu":
            _raise(InvalidArgument, "this function runs on the CPU; device=%r cannot be used"
                   % (device,))
    return Device("cpu").context, out


def _depth(v, what):
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        if isinstance(v, type) or isinstance(v, _np.dtype):
            dt = _np.dtype(v)
            for d, t in _NP_OF_DEPTH.items():
                if _np.dtype(t) == dt:
                    return d
        _raise(InvalidType, "%s must be -1, CV_32S, CV_32F or CV_64F, got %r" % (what, v))
    return int(v)


def min_max_idx(src, mask=None, *, device=None):
    """cv2::minMaxIdx (C++; cv2 5's Python has none): (minVal, maxVal, minIdx, maxIdx) with the
    indices as (row, column) of the first extreme in row order; a multi-channel src (no mask)
    gives the extremes over all its elements and None for the indices."""
    return _reduce("minmaxidx", src, None, mask, device=device)


def compare_hist(H1, H2, method):  # noqa: N803 - cv2's names
    """cv2.compareHist(H1, H2, method): HISTCMP_CORREL, CHISQR, INTERSECT, BHATTACHARYYA
    (HELLINGER), CHISQR_ALT or KL_DIV of two histograms of the same shape, as a float."""
    if not _is_int(method):
        _raise(InvalidType, "method must be an int, got %s %r" % (type(method).__name__, method))
    a = _np.asarray(H1)
    b = _np.asarray(H2)
    if a.shape != b.shape or a.size == 0:
        _raise(InvalidArgument, "compareHist: H1 %s and H2 %s must have the same non-empty shape"
               % (a.shape, b.shape))
    a = _np.ascontiguousarray(a, dtype=_np.float32)
    b = _np.ascontiguousarray(b, dtype=_np.float32)
    return _gip.compare_hist(a, b, int(method))


def _integral(src, outs, sdepth, sqdepth, device):
    ctx, (s,) = _host_ctx([src], device)
    sd = _depth(sdepth, "sdepth")
    qd = _depth(sqdepth, "sqdepth")
    dt = s.dtype
    if sd == -1:
        sd = CV_32S if dt == _np.uint8 else CV_64F
    if qd == -1:
        qd = CV_64F
    h, w = s.shape[:2]
    shape = (h + 1, w + 1) + s.shape[2:]
    res = []
    for k, (given, depth) in enumerate(zip(outs, (sd, qd, sd))):
        if given is False:
            res.append(None)
            continue
        if depth not in _NP_OF_DEPTH or depth == 2:
            _raise(Unsupported, "integral: depth %d is not one of CV_32S, CV_32F, CV_64F" % depth)
        want = _np.dtype(_NP_OF_DEPTH[depth])
        if (isinstance(given, _np.ndarray) and given.dtype == want and given.shape == shape and
                given.flags.c_contiguous and given.flags.writeable):
            res.append(given)
        else:
            res.append(_np.empty(shape, want))
    _gip.integral(ctx, s, *res)
    return [r for r, g in zip(res, outs) if g is not False]


def integral(src, sum=None, sdepth=-1, *, device=None):  # noqa: A002 - cv2's name
    """cv2.integral(src, sum, sdepth): the (h + 1) x (w + 1) integral image (int32 for uint8
    by default, float64 otherwise; sdepth CV_32S, CV_32F or CV_64F where cv2 accepts it)."""
    return _integral(src, (sum, False, False), sdepth, -1, device)[0]


def integral2(src, sum=None, sqsum=None, sdepth=-1, sqdepth=-1, *,  # noqa: A002
              device=None):
    """cv2.integral2: (sum, sqsum), the sum and squared-sum integral images."""
    return tuple(_integral(src, (sum, sqsum, False), sdepth, sqdepth, device))


def integral3(src, sum=None, sqsum=None, tilted=None, sdepth=-1, sqdepth=-1, *,  # noqa: A002
              device=None):
    """cv2.integral3: (sum, sqsum, tilted), tilted being the 45-degree rotated sums."""
    return tuple(_integral(src, (sum, sqsum, tilted), sdepth, sqdepth, device))


_MOMENT_NAMES = ("m00", "m10", "m01", "m20", "m11", "m02", "m30", "m21", "m12", "m03",
                 "mu20", "mu11", "mu02", "mu30", "mu21", "mu12", "mu03",
                 "nu20", "nu11", "nu02", "nu30", "nu21", "nu12", "nu03")


def moments(array, binaryImage=False, *, device=None):  # noqa: N803 - cv2's names
    """cv2.moments(array, binaryImage): a dict of the spatial (m..), central (mu..) and
    normalised central (nu..) moments of a one-channel image (uint8, uint16, int16, float32) or
    of a contour given as an (N, 2) or (N, 1, 2) point array."""
    a = array
    if isinstance(a, _np.ndarray) and a.dtype in (_np.int32, _np.float32) and \
            ((a.ndim == 2 and a.shape[1] == 2) or (a.ndim == 3 and a.shape[2] == 2 and
                                                   1 in a.shape[:2])):
        # cv2's rule: int32 or float32 points (checkVector(2)) are a contour
        return _contour_moments(a.reshape(-1, 2).astype(_np.float64))
    ctx, (s,) = _host_ctx([a], device)
    return dict(zip(_MOMENT_NAMES, _gip.moments(ctx, s, bool(binaryImage))))


def _contour_moments(p):
    """Green's-theorem moments of a closed polygon, OpenCV's contourMoments."""
    names = _MOMENT_NAMES
    m = dict.fromkeys(names, 0.0)
    n = len(p)
    if n == 0:
        return m
    a00 = a10 = a01 = a20 = a11 = a02 = a30 = a21 = a12 = a03 = 0.0
    xi_1, yi_1 = p[-1]
    xi_12, yi_12 = xi_1 * xi_1, yi_1 * yi_1
    for xi, yi in p:
        xi2, yi2 = xi * xi, yi * yi
        dxy = xi_1 * yi - xi * yi_1
        xii_1, yii_1 = xi_1 + xi, yi_1 + yi
        a00 += dxy
        a10 += dxy * xii_1
        a01 += dxy * yii_1
        a20 += dxy * (xi_1 * xii_1 + xi2)
        a11 += dxy * (xi_1 * (yii_1 + yi_1) + xi * (yii_1 + yi))
        a02 += dxy * (yi_1 * yii_1 + yi2)
        a30 += dxy * xii_1 * (xi_12 + xi2)
        a03 += dxy * yii_1 * (yi_12 + yi2)
        a21 += dxy * (xi_12 * (3 * yi_1 + yi) + 2 * xi * xi_1 * yii_1 + xi2 * (yi_1 + 3 * yi))
        a12 += dxy * (yi_12 * (3 * xi_1 + xi) + 2 * yi * yi_1 * xii_1 + yi2 * (xi_1 + 3 * xi))
        xi_1, yi_1, xi_12, yi_12 = xi, yi, xi2, yi2
    if abs(a00) > 2.220446049250313e-16:
        if a00 > 0:
            db1_2, db1_6, db1_12, db1_24, db1_20, db1_60 = 0.5, 1 / 6, 1 / 12, 1 / 24, 1 / 20, 1 / 60
        else:
            db1_2, db1_6, db1_12, db1_24, db1_20, db1_60 = -0.5, -1 / 6, -1 / 12, -1 / 24, \
                -1 / 20, -1 / 60
        m.update(m00=a00 * db1_2, m10=a10 * db1_6, m01=a01 * db1_6, m20=a20 * db1_12,
                 m11=a11 * db1_24, m02=a02 * db1_12, m30=a30 * db1_20, m21=a21 * db1_60,
                 m12=a12 * db1_60, m03=a03 * db1_20)
    return _complete_moments(m)


def _complete_moments(m):
    cx = cy = inv = 0.0
    if abs(m["m00"]) > 2.220446049250313e-16:
        inv = 1.0 / m["m00"]
        cx, cy = m["m10"] * inv, m["m01"] * inv
    mu20 = m["m20"] - m["m10"] * cx
    mu11 = m["m11"] - m["m10"] * cy
    mu02 = m["m02"] - m["m01"] * cy
    m.update(mu20=mu20, mu11=mu11, mu02=mu02,
             mu30=m["m30"] - cx * (3 * mu20 + cx * m["m10"]),
             mu21=m["m21"] - cx * (2 * mu11 + cx * m["m01"]) - cy * mu20,
             mu12=m["m12"] - cy * (2 * mu11 + cy * m["m10"]) - cx * mu02,
             mu03=m["m03"] - cy * (3 * mu02 + cy * m["m01"]))
    s2 = inv * inv
    s3 = s2 * abs(inv) ** 0.5
    for k in ("20", "11", "02"):
        m["nu" + k] = m["mu" + k] * s2
    for k in ("30", "21", "12", "03"):
        m["nu" + k] = m["mu" + k] * s3
    return m


def hu_moments(m, hu=None):
    """cv2.HuMoments(m): the seven Hu invariants of a moments dict, a (7, 1) float64 array."""
    try:
        nu = [float(m[k]) for k in ("nu20", "nu11", "nu02", "nu30", "nu21", "nu12", "nu03")]
    except (KeyError, TypeError):
        _raise(InvalidType, "HuMoments: m must be the dict cv2.moments / gip.moments returns")
    n20, n11, n02, n30, n21, n12, n03 = nu
    t0, t1 = n30 + n12, n21 + n03
    q0, q1 = t0 * t0, t1 * t1
    n4 = 4 * n11
    s, d = n20 + n02, n20 - n02
    r = [0.0] * 7
    r[0] = s
    r[1] = d * d + n4 * n11
    r[3] = q0 + q1
    r[5] = d * (q0 - q1) + n4 * t0 * t1
    t0 *= q0 - 3 * q1
    t1 *= 3 * q0 - q1
    q0, q1 = n30 - 3 * n12, 3 * n21 - n03
    r[2] = q0 * q0 + q1 * q1
    r[4] = q0 * t0 + q1 * t1
    r[6] = q1 * t0 - q0 * t1
    out = _np.array(r, _np.float64).reshape(7, 1)
    if hu is not None:
        hu[...] = out
        return hu
    return out


def match_template(image, templ, method, result=None, mask=None, *, device=None):
    """cv2.matchTemplate(image, templ, method, result, mask): a float32 (H - h + 1, W - w + 1)
    map comparing templ (same dtype and channels as image: uint8 or float32, 1, 3 or 4 channels)
    with every window of image, by TM_SQDIFF, TM_SQDIFF_NORMED, TM_CCORR, TM_CCORR_NORMED,
    TM_CCOEFF or TM_CCOEFF_NORMED; mask (templ's size, one channel or templ's; uint8 binary or
    float32 weights) gives OpenCV's masked forms. Agrees with cv2 within single-precision
    rounding (docs/statistics.md)."""
    if not _is_int(method):
        _raise(InvalidType, "method must be an int, got %s %r" % (type(method).__name__, method))
    if mask is not None:
        ctx, (a, t, mk) = _host_ctx([image, templ, mask], device)
    else:
        ctx, (a, t) = _host_ctx([image, templ], device)
        mk = None
    if a.ndim < 2 or t.ndim < 2:
        _raise(InvalidArgument, "matchTemplate: image and templ must be 2-D or 3-D arrays")
    H, W = a.shape[:2]
    h, w = t.shape[:2]
    shape = (max(H - h + 1, 1), max(W - w + 1, 1))
    if (isinstance(result, _np.ndarray) and result.dtype == _np.float32 and
            result.shape == shape and result.flags.c_contiguous and result.flags.writeable):
        out = result
    else:
        out = _np.empty(shape, _np.float32)
    _gip.match_template(ctx, a, t, int(method), out, mk)
    return out


def _components(image, connectivity, ltype, device):
    if not _is_int(connectivity):
        _raise(InvalidType, "connectivity must be an int, got %r" % (connectivity,))
    lt = _depth(ltype, "ltype")
    if lt not in (2, 4):
        _raise(Unsupported, "ltype must be CV_32S or CV_16U, got %r" % (ltype,))
    ctx, (s,) = _host_ctx([image], device)
    if s.ndim != 2 and not (s.ndim == 3 and s.shape[2] == 1):
        _raise(Unsupported, "connectedComponents: a one-channel uint8 image is accepted, got "
               "shape %s" % (s.shape,))
    lab = _np.empty(s.shape[:2], _np.int32 if lt == 4 else _np.uint16)
    n = _gip.connected_components(ctx, s, int(connectivity), lab)
    return n, lab


def connected_components(image, labels=None, connectivity=8, ltype=CV_32S, *, device=None):
    """cv2.connectedComponents(image, labels, connectivity, ltype): (retval, labels): the number
    of labels (components + 1 for the background) and the label image (int32 or uint16), with
    OpenCV's numbering."""
    n, lab = _components(image, connectivity, ltype, device)
    return n, _into(labels, lab)


def connected_components_with_stats(image, labels=None, stats=None, centroids=None,
                                    connectivity=8, ltype=CV_32S, *, device=None):
    """cv2.connectedComponentsWithStats: (retval, labels, stats, centroids): stats an int32
    (retval, 5) array of left, top, width, height, area (CC_STAT_*), centroids float64
    (retval, 2) of (x, y)."""
    n, lab = connected_components(image, labels, connectivity, ltype, device=device)
    st = _np.empty((n, 5), _np.int32)
    ce = _np.empty((n, 2), _np.float64)
    _gip.cc_stats(lab, n, st, ce)
    return n, lab, _into(stats, st), _into(centroids, ce)


# cv2's names
minMaxLoc = min_max_loc
meanStdDev = mean_std_dev
sumElems = sum_elems
countNonZero = count_non_zero
calcHist = calc_hist
minMaxIdx = min_max_idx
compareHist = compare_hist
HuMoments = hu_moments
matchTemplate = match_template
connectedComponents = connected_components
connectedComponentsWithStats = connected_components_with_stats

__all__ = ["NORM_INF", "NORM_L1", "NORM_L2", "NORM_RELATIVE", "CLAHE", "createCLAHE",
           "create_clahe", "equalizeHist", "min_max_loc", "minMaxLoc", "mean",
           "mean_std_dev", "meanStdDev", "sum_elems", "sumElems", "count_non_zero",
           "countNonZero", "norm", "PSNR", "psnr", "calc_hist", "calcHist",
           "CV_32S", "CV_64F", "HISTCMP_CORREL", "HISTCMP_CHISQR", "HISTCMP_INTERSECT",
           "HISTCMP_BHATTACHARYYA", "HISTCMP_HELLINGER", "HISTCMP_CHISQR_ALT", "HISTCMP_KL_DIV",
           "TM_SQDIFF", "TM_SQDIFF_NORMED", "TM_CCORR", "TM_CCORR_NORMED", "TM_CCOEFF",
           "TM_CCOEFF_NORMED", "CC_STAT_LEFT", "CC_STAT_TOP", "CC_STAT_WIDTH", "CC_STAT_HEIGHT",
           "CC_STAT_AREA", "min_max_idx", "minMaxIdx", "compare_hist", "compareHist",
           "integral", "integral2", "integral3", "moments", "hu_moments", "HuMoments",
           "match_template", "matchTemplate", "connected_components", "connectedComponents",
           "connected_components_with_stats", "connectedComponentsWithStats"]
