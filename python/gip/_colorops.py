# SPDX-License-Identifier: MIT
"""cv2's colour and per-pixel functions with cv2's names, arguments, defaults, constants and
return types: threshold, adaptiveThreshold, inRange, the colour conversions of cvtColor beyond
channel order and gray, arithmetic (add, subtract, multiply, divide, absdiff, addWeighted, min,
max, bitwise_*), convertScaleAbs, LUT, normalize, and split/merge/extractChannel/insertChannel.
Each translates cv2's arguments into the registry's (include/gip/op.h) and runs the registered
operation, so the checks and messages are the registry's."""
import numbers as _numbers

import numpy as _np

from . import _gip
from . import _cv2
from ._core import (InvalidArgument, _alloc, _dtype_of, _finish, _image_out, _int, _prep,
                    _raise, _real)
from ._registry import _run

THRESH_BINARY = 0
THRESH_BINARY_INV = 1
THRESH_TRUNC = 2
THRESH_TOZERO = 3
THRESH_TOZERO_INV = 4
THRESH_MASK = 7
THRESH_OTSU = 8
THRESH_TRIANGLE = 16
ADAPTIVE_THRESH_MEAN_C = 0
ADAPTIVE_THRESH_GAUSSIAN_C = 1

_THRESH_NAME = {0: "binary", 1: "binary_inv", 2: "trunc", 3: "tozero", 4: "tozero_inv"}


def _thresh_type(t, what="type"):
    t = _int(t, what)
    rule, method = t & 7, t & ~7
    if rule not in _THRESH_NAME or method not in (0, THRESH_OTSU, THRESH_TRIANGLE):
        _raise(InvalidArgument, "%s %d: THRESH_BINARY, THRESH_BINARY_INV, THRESH_TRUNC, "
               "THRESH_TOZERO or THRESH_TOZERO_INV, plus THRESH_OTSU or THRESH_TRIANGLE" % (what, t))
    return rule, method


@_image_out
def _threshold_image(name, src, dst, device, params):
    return _run(name, src, dst, device, params)


def threshold(src, thresh, maxval, type, dst=None, *, device=None):  # noqa: A002 - cv2's name
    """cv2.threshold: returns (retval, dst). Integer images compare with floor(thresh) (the
    retval) and take maxval rounded and saturated; float32 compares in single precision. With
    THRESH_OTSU or THRESH_TRIANGLE (uint8 with one channel) the level comes from the histogram
    and is the retval."""
    rule, method = _thresh_type(type)
    t, m = _real(thresh, "thresh"), _real(maxval, "maxval")
    if method:
        # The registry's threshold_auto finds the level and applies it; the level itself comes
        # from gip_threshold_value() on the same data.
        out = _threshold_image("threshold_auto", src, dst, device,
                               {"method": "otsu" if method == THRESH_OTSU else "triangle",
                                "maxval": m, "type": _THRESH_NAME[rule]})
        ctx, (s,), _ = _prep(device, (src,))
        return _gip.threshold_value(ctx, s, method), out
    out = _threshold_image("threshold", src, dst, device,
                           {"thresh": t, "maxval": m, "type": _THRESH_NAME[rule]})
    return (float(_np.floor(t)) if _dtype_of(out).kind in "ui" else t), out


@_image_out
def adaptiveThreshold(src, maxValue, adaptiveMethod, thresholdType, blockSize, C, dst=None, *,
                      device=None):
    """cv2.adaptiveThreshold of a uint8 one-channel image: ADAPTIVE_THRESH_MEAN_C or
    ADAPTIVE_THRESH_GAUSSIAN_C, THRESH_BINARY or THRESH_BINARY_INV, odd blockSize >= 3."""
    m = _int(adaptiveMethod, "adaptiveMethod")
    if m not in (0, 1):
        _raise(InvalidArgument, "adaptiveMethod %d: ADAPTIVE_THRESH_MEAN_C or "
               "ADAPTIVE_THRESH_GAUSSIAN_C" % m)
    t = _int(thresholdType, "thresholdType")
    if t not in (0, 1):
        _raise(InvalidArgument, "thresholdType %d: THRESH_BINARY or THRESH_BINARY_INV" % t)
    return _run("adaptive_threshold", src, dst, device,
                {"block_size": _int(blockSize, "blockSize"), "c": _real(C, "C"),
                 "method": "mean" if m == 0 else "gaussian",
                 "type": _THRESH_NAME[t], "maxval": _real(maxValue, "maxValue")})


def _channels(src):
    shape = getattr(src, "shape", None)
    if shape is None:
        return 1
    return shape[2] if len(shape) == 3 else 1


def _scalar4(v, what):
    """cv2's Scalar from a Python value: a number is (v, 0, 0, 0), a sequence is padded with
    zeros (cv2 reads a 1x1..1x4 array the same way)."""
    if isinstance(v, (_numbers.Real, _np.number)) and not isinstance(v, (bool, _np.bool_)):
        return [float(v), 0.0, 0.0, 0.0]
    a = _np.asarray(v, dtype=_np.float64).ravel()
    if not 1 <= a.size <= 4:
        _raise(InvalidArgument, "%s: a number or 1 to 4 numbers, got %d" % (what, a.size))
    return [float(x) for x in a] + [0.0] * (4 - a.size)


@_image_out
def inRange(src, lowerb, upperb, dst=None, *, device=None):
    """cv2.inRange with scalar bounds: uint8 (H, W), 255 where lowerb <= src <= upperb in every
    channel. As cv2, a number is the bound of the first channel (the others get 0)."""
    cn = _channels(src)
    lo, hi = _scalar4(lowerb, "lowerb")[:cn], _scalar4(upperb, "upperb")[:cn]
    return _run("inrange", src, dst, device, {"lower": lo, "upper": hi})

# cv2's colour-space codes (the channel-order and gray codes are gip._cv2's).
COLOR_BGR2HSV = 40
COLOR_RGB2HSV = 41
COLOR_HSV2BGR = 54
COLOR_HSV2RGB = 55
COLOR_BGR2HSV_FULL = 66
COLOR_RGB2HSV_FULL = 67
COLOR_HSV2BGR_FULL = 70
COLOR_HSV2RGB_FULL = 71
COLOR_BGR2HLS = 52
COLOR_RGB2HLS = 53
COLOR_HLS2BGR = 60
COLOR_HLS2RGB = 61
COLOR_BGR2HLS_FULL = 68
COLOR_RGB2HLS_FULL = 69
COLOR_HLS2BGR_FULL = 72
COLOR_HLS2RGB_FULL = 73
COLOR_BGR2YCrCb = 36
COLOR_RGB2YCrCb = 37
COLOR_YCrCb2BGR = 38
COLOR_YCrCb2RGB = 39
COLOR_BGR2YUV = 82
COLOR_RGB2YUV = 83
COLOR_YUV2BGR = 84
COLOR_YUV2RGB = 85
COLOR_BGR2XYZ = 32
COLOR_RGB2XYZ = 33
COLOR_XYZ2BGR = 34
COLOR_XYZ2RGB = 35
# cv2 code -> (the registry's cvt code, gip_color_code, inverse: the RGB side is the output)
_SPACE = {
    40: ("bgr2hsv", 13, False),
    41: ("rgb2hsv", 14, False),
    54: ("hsv2bgr", 15, True),
    55: ("hsv2rgb", 16, True),
    66: ("bgr2hsv_full", 17, False),
    67: ("rgb2hsv_full", 18, False),
    70: ("hsv2bgr_full", 19, True),
    71: ("hsv2rgb_full", 20, True),
    52: ("bgr2hls", 21, False),
    53: ("rgb2hls", 22, False),
    60: ("hls2bgr", 23, True),
    61: ("hls2rgb", 24, True),
    68: ("bgr2hls_full", 25, False),
    69: ("rgb2hls_full", 26, False),
    72: ("hls2bgr_full", 27, True),
    73: ("hls2rgb_full", 28, True),
    36: ("bgr2ycrcb", 29, False),
    37: ("rgb2ycrcb", 30, False),
    38: ("ycrcb2bgr", 31, True),
    39: ("ycrcb2rgb", 32, True),
    82: ("bgr2yuv", 33, False),
    83: ("rgb2yuv", 34, False),
    84: ("yuv2bgr", 35, True),
    85: ("yuv2rgb", 36, True),
    32: ("bgr2xyz", 37, False),
    33: ("rgb2xyz", 38, False),
    34: ("xyz2bgr", 39, True),
    35: ("xyz2rgb", 40, True)}


@_image_out
def cvtColor(src, code, dst=None, dstCn=0, *, device=None):
    """cv2.cvtColor: channel order, alpha and gray (uint8, uint16, float32), and HSV, HLS,
    YCrCb, YUV and XYZ both ways (uint8 and float32). uint8 results equal OpenCV's; HSV2BGR,
    HSV2RGB (and _FULL), BGR2HLS, RGB2HLS and the HLS _FULL codes take float32 only. dstCn=4 adds
    alpha to the results of the inverse space codes."""
    c = _int(code, "cvtColor: code")
    if c not in _SPACE:
        return _cv2.cvt_color(src, c, dst, dstCn, device=device)
    name, gcode, inverse = _SPACE[c]
    cn = _int(dstCn, "cvtColor: dstCn")
    if cn not in (0, 3, 4) or (cn == 4 and not inverse):
        _raise(InvalidArgument, "cvtColor: dstCn %d: 0 or 3%s for this code"
               % (cn, ", or 4 (alpha added)" if inverse else ""))
    if cn != 4:
        return _run("cvt", src, dst, device, {"code": name})
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, tuple(s.shape[:2]) + (4,), _dtype_of(s), dst, up)
    _gip.cvt_color(ctx, s, out, gcode)
    return _finish(ctx, out, up, dst)


cvt_color = cvtColor


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and (getattr(v, "__module__", "") == __name__
                                         or n.isupper())]
