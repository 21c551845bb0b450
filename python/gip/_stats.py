# SPDX-License-Identifier: MIT
"""Statistics with OpenCV's names, arguments and return types: equalizeHist and CLAHE (registered
operations, run through the registry), calcHist and the reductions minMaxLoc, mean, meanStdDev,
sumElems, countNonZero, norm and PSNR (libgip's gip/stats.h). Each runs where the data lives, as
every gip function: host arrays on the default device, device arrays on their device. The
snake_case names are gip's; the camelCase ones are cv2's, for drop-in use."""
import numbers as _numbers

import numpy as _np

from . import _gip
from ._core import (InvalidArgument, InvalidType, _check_image_like, _image_out, _prep,
                    _raise)
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
    if hist is not None and isinstance(hist, _np.ndarray) and hist.dtype == _np.float32 \
            and hist.shape == shape:
        hist[...] = h
        return hist
    return h


# cv2's names
minMaxLoc = min_max_loc
meanStdDev = mean_std_dev
sumElems = sum_elems
countNonZero = count_non_zero
calcHist = calc_hist

__all__ = ["NORM_INF", "NORM_L1", "NORM_L2", "NORM_RELATIVE", "CLAHE", "createCLAHE",
           "create_clahe", "equalizeHist", "min_max_loc", "minMaxLoc", "mean",
           "mean_std_dev", "meanStdDev", "sum_elems", "sumElems", "count_non_zero",
           "countNonZero", "norm", "PSNR", "psnr", "calc_hist", "calcHist"]
