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
from ._errors import Aliasing, ShapeMismatch
from ._core import (InvalidArgument, Unsupported, _alloc, _dtype_of, _finish, _image_out, _int,
                    _prep, _raise, _real)
from ._registry import _args, _run

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
COLOR_BGR2Lab = 44
COLOR_RGB2Lab = 45
COLOR_Lab2BGR = 56
COLOR_Lab2RGB = 57
COLOR_BGR2Luv = 50
COLOR_RGB2Luv = 51
COLOR_Luv2BGR = 58
COLOR_Luv2RGB = 59
_SPACE = {
    COLOR_BGR2Luv: ("bgr2luv", 45, False),
    COLOR_RGB2Luv: ("rgb2luv", 46, False),
    COLOR_Luv2BGR: ("luv2bgr", 47, True),
    COLOR_Luv2RGB: ("luv2rgb", 48, True),
    COLOR_BGR2Lab: ("bgr2lab", 41, False),
    COLOR_RGB2Lab: ("rgb2lab", 42, False),
    COLOR_Lab2BGR: ("lab2bgr", 43, True),
    COLOR_Lab2RGB: ("lab2rgb", 44, True),
    COLOR_BGR2HSV: ("bgr2hsv", 13, False),
    COLOR_RGB2HSV: ("rgb2hsv", 14, False),
    COLOR_HSV2BGR: ("hsv2bgr", 15, True),
    COLOR_HSV2RGB: ("hsv2rgb", 16, True),
    COLOR_BGR2HSV_FULL: ("bgr2hsv_full", 17, False),
    COLOR_RGB2HSV_FULL: ("rgb2hsv_full", 18, False),
    COLOR_HSV2BGR_FULL: ("hsv2bgr_full", 19, True),
    COLOR_HSV2RGB_FULL: ("hsv2rgb_full", 20, True),
    COLOR_BGR2HLS: ("bgr2hls", 21, False),
    COLOR_RGB2HLS: ("rgb2hls", 22, False),
    COLOR_HLS2BGR: ("hls2bgr", 23, True),
    COLOR_HLS2RGB: ("hls2rgb", 24, True),
    COLOR_BGR2HLS_FULL: ("bgr2hls_full", 25, False),
    COLOR_RGB2HLS_FULL: ("rgb2hls_full", 26, False),
    COLOR_HLS2BGR_FULL: ("hls2bgr_full", 27, True),
    COLOR_HLS2RGB_FULL: ("hls2rgb_full", 28, True),
    COLOR_BGR2YCrCb: ("bgr2ycrcb", 29, False),
    COLOR_RGB2YCrCb: ("rgb2ycrcb", 30, False),
    COLOR_YCrCb2BGR: ("ycrcb2bgr", 31, True),
    COLOR_YCrCb2RGB: ("ycrcb2rgb", 32, True),
    COLOR_BGR2YUV: ("bgr2yuv", 33, False),
    COLOR_RGB2YUV: ("rgb2yuv", 34, False),
    COLOR_YUV2BGR: ("yuv2bgr", 35, True),
    COLOR_YUV2RGB: ("yuv2rgb", 36, True),
    COLOR_BGR2XYZ: ("bgr2xyz", 37, False),
    COLOR_RGB2XYZ: ("rgb2xyz", 38, False),
    COLOR_XYZ2BGR: ("xyz2bgr", 39, True),
    COLOR_XYZ2RGB: ("xyz2rgb", 40, True)}


# cv2's YUV frame codes: code -> (the registry's yuv layout, output)
COLOR_YUV2BGR_NV12 = 91
COLOR_YUV2BGR_NV21 = 93
COLOR_YUV2BGR_I420 = 101
COLOR_YUV2BGR_IYUV = 101
COLOR_YUV2BGR_YV12 = 99
COLOR_YUV2BGR_YUY2 = 116
COLOR_YUV2BGR_YUYV = 116
COLOR_YUV2BGR_YUNV = 116
COLOR_YUV2BGR_UYVY = 108
COLOR_YUV2BGR_UYNV = 108
COLOR_YUV2BGR_Y422 = 108
COLOR_YUV2BGR_YVYU = 118
COLOR_YUV2RGB_NV12 = 90
COLOR_YUV2RGB_NV21 = 92
COLOR_YUV2RGB_I420 = 100
COLOR_YUV2RGB_IYUV = 100
COLOR_YUV2RGB_YV12 = 98
COLOR_YUV2RGB_YUY2 = 115
COLOR_YUV2RGB_YUYV = 115
COLOR_YUV2RGB_YUNV = 115
COLOR_YUV2RGB_UYVY = 107
COLOR_YUV2RGB_UYNV = 107
COLOR_YUV2RGB_Y422 = 107
COLOR_YUV2RGB_YVYU = 117
COLOR_YUV2BGRA_NV12 = 95
COLOR_YUV2BGRA_NV21 = 97
COLOR_YUV2BGRA_I420 = 105
COLOR_YUV2BGRA_IYUV = 105
COLOR_YUV2BGRA_YV12 = 103
COLOR_YUV2BGRA_YUY2 = 120
COLOR_YUV2BGRA_YUYV = 120
COLOR_YUV2BGRA_YUNV = 120
COLOR_YUV2BGRA_UYVY = 112
COLOR_YUV2BGRA_UYNV = 112
COLOR_YUV2BGRA_Y422 = 112
COLOR_YUV2BGRA_YVYU = 122
COLOR_YUV2RGBA_NV12 = 94
COLOR_YUV2RGBA_NV21 = 96
COLOR_YUV2RGBA_I420 = 104
COLOR_YUV2RGBA_IYUV = 104
COLOR_YUV2RGBA_YV12 = 102
COLOR_YUV2RGBA_YUY2 = 119
COLOR_YUV2RGBA_YUYV = 119
COLOR_YUV2RGBA_YUNV = 119
COLOR_YUV2RGBA_UYVY = 111
COLOR_YUV2RGBA_UYNV = 111
COLOR_YUV2RGBA_Y422 = 111
COLOR_YUV2RGBA_YVYU = 121
COLOR_YUV2GRAY_NV12 = 106
COLOR_YUV2GRAY_NV21 = 106
COLOR_YUV2GRAY_I420 = 106
COLOR_YUV2GRAY_IYUV = 106
COLOR_YUV2GRAY_YV12 = 106
COLOR_YUV2GRAY_420 = 106
COLOR_YUV2GRAY_YUY2 = 124
COLOR_YUV2GRAY_YUYV = 124
COLOR_YUV2GRAY_YUNV = 124
COLOR_YUV2GRAY_UYVY = 123
COLOR_YUV2GRAY_UYNV = 123
COLOR_YUV2GRAY_Y422 = 123
COLOR_YUV2GRAY_YVYU = 124
_YUV = {
    COLOR_YUV2BGR_NV12: ("nv12", "bgr"),
    COLOR_YUV2BGR_NV21: ("nv21", "bgr"),
    COLOR_YUV2BGR_I420: ("i420", "bgr"),
    COLOR_YUV2BGR_YV12: ("yv12", "bgr"),
    COLOR_YUV2BGR_YUY2: ("yuy2", "bgr"),
    COLOR_YUV2BGR_UYVY: ("uyvy", "bgr"),
    COLOR_YUV2BGR_YVYU: ("yvyu", "bgr"),
    COLOR_YUV2RGB_NV12: ("nv12", "rgb"),
    COLOR_YUV2RGB_NV21: ("nv21", "rgb"),
    COLOR_YUV2RGB_I420: ("i420", "rgb"),
    COLOR_YUV2RGB_YV12: ("yv12", "rgb"),
    COLOR_YUV2RGB_YUY2: ("yuy2", "rgb"),
    COLOR_YUV2RGB_UYVY: ("uyvy", "rgb"),
    COLOR_YUV2RGB_YVYU: ("yvyu", "rgb"),
    COLOR_YUV2BGRA_NV12: ("nv12", "bgra"),
    COLOR_YUV2BGRA_NV21: ("nv21", "bgra"),
    COLOR_YUV2BGRA_I420: ("i420", "bgra"),
    COLOR_YUV2BGRA_YV12: ("yv12", "bgra"),
    COLOR_YUV2BGRA_YUY2: ("yuy2", "bgra"),
    COLOR_YUV2BGRA_UYVY: ("uyvy", "bgra"),
    COLOR_YUV2BGRA_YVYU: ("yvyu", "bgra"),
    COLOR_YUV2RGBA_NV12: ("nv12", "rgba"),
    COLOR_YUV2RGBA_NV21: ("nv21", "rgba"),
    COLOR_YUV2RGBA_I420: ("i420", "rgba"),
    COLOR_YUV2RGBA_YV12: ("yv12", "rgba"),
    COLOR_YUV2RGBA_YUY2: ("yuy2", "rgba"),
    COLOR_YUV2RGBA_UYVY: ("uyvy", "rgba"),
    COLOR_YUV2RGBA_YVYU: ("yvyu", "rgba"),
    COLOR_YUV2GRAY_NV12: ("nv12", "gray"),
    COLOR_YUV2GRAY_YUY2: ("yuy2", "gray"),
    COLOR_YUV2GRAY_UYVY: ("uyvy", "gray")}


# cv2's Bayer codes: code -> (the registry's bayer pattern, output)
COLOR_BayerBG2BGR = 46
COLOR_BayerBG2RGB = 48
COLOR_BayerBG2BGRA = 139
COLOR_BayerBG2RGBA = 141
COLOR_BayerBG2GRAY = 86
COLOR_BayerGB2BGR = 47
COLOR_BayerGB2RGB = 49
COLOR_BayerGB2BGRA = 140
COLOR_BayerGB2RGBA = 142
COLOR_BayerGB2GRAY = 87
COLOR_BayerRG2BGR = 48
COLOR_BayerRG2RGB = 46
COLOR_BayerRG2BGRA = 141
COLOR_BayerRG2RGBA = 139
COLOR_BayerRG2GRAY = 88
COLOR_BayerGR2BGR = 49
COLOR_BayerGR2RGB = 47
COLOR_BayerGR2BGRA = 142
COLOR_BayerGR2RGBA = 140
COLOR_BayerGR2GRAY = 89
_BAYER = {
    COLOR_BayerBG2BGR: ("bg", "bgr"),
    COLOR_BayerBG2RGB: ("bg", "rgb"),
    COLOR_BayerBG2BGRA: ("bg", "bgra"),
    COLOR_BayerBG2RGBA: ("bg", "rgba"),
    COLOR_BayerBG2GRAY: ("bg", "gray"),
    COLOR_BayerGB2BGR: ("gb", "bgr"),
    COLOR_BayerGB2RGB: ("gb", "rgb"),
    COLOR_BayerGB2BGRA: ("gb", "bgra"),
    COLOR_BayerGB2RGBA: ("gb", "rgba"),
    COLOR_BayerGB2GRAY: ("gb", "gray"),
    COLOR_BayerRG2GRAY: ("rg", "gray"),
    COLOR_BayerGR2GRAY: ("gr", "gray")}

# cv2's edge-aware Bayer codes (BGR or RGB only): code -> the registry's bayer pattern
COLOR_BayerBG2BGR_EA = 135
COLOR_BayerGB2BGR_EA = 136
COLOR_BayerRG2BGR_EA = 137
COLOR_BayerGR2BGR_EA = 138
COLOR_BayerBG2RGB_EA = 137
COLOR_BayerGB2RGB_EA = 138
COLOR_BayerRG2RGB_EA = 135
COLOR_BayerGR2RGB_EA = 136
_BAYER_EA = {COLOR_BayerBG2BGR_EA: "bg", COLOR_BayerGB2BGR_EA: "gb", COLOR_BayerRG2BGR_EA: "rg",
             COLOR_BayerGR2BGR_EA: "gr"}

# cv2's VNG Bayer codes (uint8, BGR or RGB only): code -> the registry's bayer pattern
COLOR_BayerBG2BGR_VNG = 62
COLOR_BayerGB2BGR_VNG = 63
COLOR_BayerRG2BGR_VNG = 64
COLOR_BayerGR2BGR_VNG = 65
COLOR_BayerBG2RGB_VNG = 64
COLOR_BayerGB2RGB_VNG = 65
COLOR_BayerRG2RGB_VNG = 62
COLOR_BayerGR2RGB_VNG = 63
_BAYER_VNG = {COLOR_BayerBG2BGR_VNG: "bg", COLOR_BayerGB2BGR_VNG: "gb",
              COLOR_BayerRG2BGR_VNG: "rg", COLOR_BayerGR2BGR_VNG: "gr"}


# cv2's YUV 4:2:0 encoding codes: code -> (the registry's yuv420 layout, source order)
COLOR_BGR2YUV_I420 = 128
COLOR_BGR2YUV_IYUV = 128
COLOR_BGR2YUV_YV12 = 132
COLOR_RGB2YUV_I420 = 127
COLOR_RGB2YUV_IYUV = 127
COLOR_RGB2YUV_YV12 = 131
COLOR_BGRA2YUV_I420 = 130
COLOR_BGRA2YUV_IYUV = 130
COLOR_BGRA2YUV_YV12 = 134
COLOR_RGBA2YUV_I420 = 129
COLOR_RGBA2YUV_IYUV = 129
COLOR_RGBA2YUV_YV12 = 133
_YUV_ENC = {
    COLOR_BGR2YUV_I420: ("i420", "bgr"),
    COLOR_BGR2YUV_YV12: ("yv12", "bgr"),
    COLOR_RGB2YUV_I420: ("i420", "rgb"),
    COLOR_RGB2YUV_YV12: ("yv12", "rgb"),
    COLOR_BGRA2YUV_I420: ("i420", "bgr"),
    COLOR_BGRA2YUV_YV12: ("yv12", "bgr"),
    COLOR_RGBA2YUV_I420: ("i420", "rgb"),
    COLOR_RGBA2YUV_YV12: ("yv12", "rgb")}


# cv2's YUV 4:2:2 encoding codes: code -> (the registry's yuv422 layout, source order)
COLOR_RGB2YUV_UYVY = 143
COLOR_RGB2YUV_UYNV = 143
COLOR_RGB2YUV_Y422 = 143
COLOR_BGR2YUV_UYVY = 144
COLOR_BGR2YUV_UYNV = 144
COLOR_BGR2YUV_Y422 = 144
COLOR_RGBA2YUV_UYVY = 145
COLOR_RGBA2YUV_UYNV = 145
COLOR_RGBA2YUV_Y422 = 145
COLOR_BGRA2YUV_UYVY = 146
COLOR_BGRA2YUV_UYNV = 146
COLOR_BGRA2YUV_Y422 = 146
COLOR_RGB2YUV_YUY2 = 147
COLOR_RGB2YUV_YUYV = 147
COLOR_RGB2YUV_YUNV = 147
COLOR_BGR2YUV_YUY2 = 148
COLOR_BGR2YUV_YUYV = 148
COLOR_BGR2YUV_YUNV = 148
COLOR_RGB2YUV_YVYU = 149
COLOR_BGR2YUV_YVYU = 150
COLOR_RGBA2YUV_YUY2 = 151
COLOR_RGBA2YUV_YUYV = 151
COLOR_RGBA2YUV_YUNV = 151
COLOR_BGRA2YUV_YUY2 = 152
COLOR_BGRA2YUV_YUYV = 152
COLOR_BGRA2YUV_YUNV = 152
COLOR_RGBA2YUV_YVYU = 153
COLOR_BGRA2YUV_YVYU = 154
_YUV422_ENC = {
    COLOR_RGB2YUV_UYVY: ("uyvy", "rgb"),
    COLOR_BGR2YUV_UYVY: ("uyvy", "bgr"),
    COLOR_RGBA2YUV_UYVY: ("uyvy", "rgb"),
    COLOR_BGRA2YUV_UYVY: ("uyvy", "bgr"),
    COLOR_RGB2YUV_YUY2: ("yuy2", "rgb"),
    COLOR_BGR2YUV_YUY2: ("yuy2", "bgr"),
    COLOR_RGB2YUV_YVYU: ("yvyu", "rgb"),
    COLOR_BGR2YUV_YVYU: ("yvyu", "bgr"),
    COLOR_RGBA2YUV_YUY2: ("yuy2", "rgb"),
    COLOR_BGRA2YUV_YUY2: ("yuy2", "bgr"),
    COLOR_RGBA2YUV_YVYU: ("yvyu", "rgb"),
    COLOR_BGRA2YUV_YVYU: ("yvyu", "bgr")}


@_image_out
def cvtColor(src, code, dst=None, dstCn=0, *, device=None):
    """cv2.cvtColor: channel order, alpha and gray (uint8, uint16, float32), HSV, HLS, YCrCb,
    YUV, XYZ, Lab and Luv both ways (uint8 and float32), and YUV camera
    frames (COLOR_YUV2*_NV12, NV21, I420, YV12, YUY2, UYVY, YVYU: a 4:2:2 frame as cv2's (H, W, 2) or its (H, 2 W) bytes), and
    Bayer mosaics (COLOR_Bayer*2BGR, RGB, BGRA, RGBA, GRAY, and the edge-aware *2BGR_EA,
    *2RGB_EA; uint8 and uint16; the VNG *2BGR_VNG, *2RGB_VNG, uint8), and BGR/RGB(A)
    to planar 4:2:0 frames (COLOR_BGR2YUV_I420, IYUV, YV12) and packed 4:2:2 frames
    (COLOR_BGR2YUV_YUY2, UYVY, YVYU: cv2's (H, W, 2) for numpy inputs, else the (H, 2 W)
    bytes). YCrCb, YUV and XYZ also take uint16. uint8 results
    equal OpenCV's (HSV2BGR and BGR2HLS as its AVX-512 code rounds them); the HSV _FULL inverse
    and the HLS _FULL codes take float32 only (cv2 computes them with Intel IPP). dstCn=4 adds
    alpha to the results of the inverse space codes."""
    c = _int(code, "cvtColor: code")
    if c in _YUV422_ENC:
        layout, order = _YUV422_ENC[c]
        packed = dst
        if isinstance(dst, _np.ndarray) and dst.ndim == 3 and dst.shape[2] == 2:
            packed = dst.reshape(dst.shape[0], dst.shape[1] * 2)  # cv2's (H, W, 2): its bytes
            if not _np.shares_memory(packed, dst):
                _raise(InvalidArgument, "cvtColor: dst must be C-contiguous")
        out = _run("yuv422", src, packed, device, {"layout": layout, "order": order})
        if dst is not None:
            return dst
        if isinstance(out, _np.ndarray) and isinstance(src, _np.ndarray):  # cv2's (H, W, 2)
            return out.reshape(out.shape[0], out.shape[1] // 2, 2)
        return out
    if c in _YUV_ENC:
        layout, order = _YUV_ENC[c]
        return _run("yuv420", src, dst, device, {"layout": layout, "order": order})
    if c in _BAYER_VNG:
        return _run("bayer", src, dst, device, {"pattern": _BAYER_VNG[c], "to": "bgr",
                                                "method": "vng"})
    if c in _BAYER_EA:
        return _run("bayer", src, dst, device, {"pattern": _BAYER_EA[c], "to": "bgr",
                                                "method": "ea"})
    if c in _BAYER:
        pattern, to = _BAYER[c]
        return _run("bayer", src, dst, device, {"pattern": pattern, "to": to})
    if c in _YUV:
        layout, to = _YUV[c]
        shape = getattr(src, "shape", ())
        if layout in ("yuy2", "uyvy", "yvyu") and len(shape) == 3 and shape[2] == 2:
            # cv2's (H, W, 2) packed frame: gip reads it as its (H, 2 W) bytes
            if not isinstance(src, _np.ndarray):
                _raise(Unsupported, "cvtColor: pass a 4:2:2 device frame as its (H, 2 W) bytes")
            src = src.reshape(shape[0], shape[1] * 2)
        return _run("yuv", src, dst, device, {"layout": layout, "to": to})
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


# ---- arithmetic --------------------------------------------------------------------------------
NORM_INF = 1
NORM_L1 = 2
NORM_L2 = 4
NORM_MINMAX = 32
_NORM_NAME = {1: "inf", 2: "l1", 4: "l2", 32: "minmax"}


def _is_image_like(v):
    return not isinstance(v, (_numbers.Number, _np.generic, tuple, list)) and v is not None


def _operand(src, other, broadcast, what):
    """cv2's second operand: an image of src's shape (returned as ('image', other)), or a scalar:
    a number is every channel's value for add, subtract, multiply, divide and absdiff (cv2 5.x),
    the first channel's (the others 0) for min, max and the bitwise operations; a sequence or a
    small array is padded with zeros."""
    cn = _channels(src)
    if isinstance(other, _np.ndarray) and other.shape == getattr(src, "shape", None):
        return "image", other
    if _is_image_like(other) and not (isinstance(other, _np.ndarray) and other.size <= 4):
        return "image", other
    if isinstance(other, (_numbers.Real, _np.number)) and not isinstance(other, (bool,
                                                                                 _np.bool_)):
        v = float(other)
        return "value", [v] * cn if broadcast else ([v] + [0.0] * 3)[:cn]
    return "value", _scalar4(other, what)[:cn]


def _dtype_arg(dtype, what):
    if dtype is None or (isinstance(dtype, int) and not isinstance(dtype, bool) and dtype == -1):
        return
    _raise(Unsupported, "%s: dtype %r: only -1 (the sources' dtype) is supported" % (what, dtype))


def _binary(name, src1, src2, dst, mask, device, broadcast, commutes, params=None):
    params = dict(params or {})
    if not _is_image_like(src1) and _is_image_like(src2):
        if commutes:
            src1, src2 = src2, src1
        else:
            kind, v = _operand(src2, src1, broadcast, "src1")
            params.update(value=v, reverse=True)
            return _run(name, src2, dst, device, dict(params, mask=mask))
    kind, v = _operand(src1, src2, broadcast, "src2")
    if kind == "image":
        params["src2"] = v
    else:
        params["value"] = v
    if mask is not None:
        params["mask"] = mask
    return _run(name, src1, dst, device, params)


@_image_out
def add(src1, src2, dst=None, mask=None, dtype=-1, *, device=None):
    """cv2.add: saturating src1 + src2 (an image, a number or a tuple), 0 outside the mask."""
    _dtype_arg(dtype, "add")
    return _binary("add", src1, src2, dst, mask, device, True, True)


@_image_out
def subtract(src1, src2, dst=None, mask=None, dtype=-1, *, device=None):
    """cv2.subtract: saturating src1 - src2 (either may be a number or a tuple)."""
    _dtype_arg(dtype, "subtract")
    return _binary("subtract", src1, src2, dst, mask, device, True, False)


@_image_out
def multiply(src1, src2, dst=None, scale=1, dtype=-1, *, device=None):
    """cv2.multiply: saturating (src1 * scale) * src2."""
    _dtype_arg(dtype, "multiply")
    return _binary("multiply", src1, src2, dst, None, device, True, True,
                   {"scale": _real(scale, "scale")})


@_image_out
def divide(src1, src2, dst=None, scale=1, dtype=-1, *, device=None):
    """cv2.divide: saturating (src1 * scale) / src2; src1 may be a number (scale * src1 / src2).
    Integer images: a zero divisor gives 0."""
    _dtype_arg(dtype, "divide")
    return _binary("divide", src1, src2, dst, None, device, True, False,
                   {"scale": _real(scale, "scale")})


@_image_out
def absdiff(src1, src2, dst=None, *, device=None):
    """cv2.absdiff: saturating |src1 - src2|."""
    return _binary("absdiff", src1, src2, dst, None, device, True, True)


@_image_out
def min(src1, src2, dst=None, *, device=None):  # noqa: A001 - cv2's name
    """cv2.min: element-wise minimum (a number applies to the first channel, as cv2)."""
    return _binary("min", src1, src2, dst, None, device, False, True)


@_image_out
def max(src1, src2, dst=None, *, device=None):  # noqa: A001 - cv2's name
    """cv2.max: element-wise maximum (a number applies to the first channel, as cv2)."""
    return _binary("max", src1, src2, dst, None, device, False, True)


@_image_out
def bitwise_and(src1, src2, dst=None, mask=None, *, device=None):
    """cv2.bitwise_and of integer images (0 outside the mask)."""
    return _binary("bitwise_and", src1, src2, dst, mask, device, False, True)


@_image_out
def bitwise_or(src1, src2, dst=None, mask=None, *, device=None):
    """cv2.bitwise_or of integer images (0 outside the mask)."""
    return _binary("bitwise_or", src1, src2, dst, mask, device, False, True)


@_image_out
def bitwise_xor(src1, src2, dst=None, mask=None, *, device=None):
    """cv2.bitwise_xor of integer images (0 outside the mask)."""
    return _binary("bitwise_xor", src1, src2, dst, mask, device, False, True)


_ALL_ONES = {_np.dtype(_np.uint8): 255.0, _np.dtype(_np.uint16): 65535.0,
             _np.dtype(_np.int16): -1.0}


@_image_out
def bitwise_not(src, dst=None, mask=None, *, device=None):
    """cv2.bitwise_not of an integer image (0 outside the mask)."""
    ones = _ALL_ONES.get(_np.dtype(_dtype_of(src)) if hasattr(src, "dtype") or
                         hasattr(src, "typestr") else None)
    if ones is None:
        _raise(Unsupported, "bitwise_not: uint8, uint16 or int16 images")
    params = {"value": [ones] * _channels(src)}
    if mask is not None:
        params["mask"] = mask
    return _run("bitwise_xor", src, dst, device, params)


@_image_out
def addWeighted(src1, alpha, src2, beta, gamma, dst=None, dtype=-1, *, device=None):
    """cv2.addWeighted: saturate(src1 * alpha + src2 * beta + gamma), computed as OpenCV's
    vector code (fused multiply-adds in single precision)."""
    _dtype_arg(dtype, "addWeighted")
    return _run("add_weighted", src1, dst, device,
                {"alpha": _real(alpha, "alpha"), "beta": _real(beta, "beta"),
                 "gamma": _real(gamma, "gamma"), "src2": src2})


@_image_out
def scaleAdd(src1, alpha, src2, dst=None, *, device=None):
    """cv2.scaleAdd: src1 * alpha + src2 (as fma(src1, alpha, src2))."""
    return _run("add_weighted", src1, dst, device,
                {"alpha": _real(alpha, "alpha"), "beta": 1.0, "gamma": 0.0, "src2": src2})


@_image_out
def convertScaleAbs(src, dst=None, alpha=1, beta=0, *, device=None):
    """cv2.convertScaleAbs: uint8 saturate(|src * alpha + beta|)."""
    return _run("convert_scale_abs", src, dst, device,
                {"alpha": _real(alpha, "alpha"), "beta": _real(beta, "beta")})


@_image_out
def LUT(src, lut, dst=None, *, device=None):
    """cv2.LUT for uint8 images and uint8 tables of 256 entries (one for every channel, or one
    per channel: shape (256,), (1, 256), (256, 1) or (1, 256, C))."""
    t = _np.asarray(lut)
    if t.dtype != _np.uint8:
        _raise(Unsupported, "LUT: the table must be uint8, got %s" % t.dtype)
    if t.size == 256:
        rows = t.reshape(1, 256)
    elif t.ndim == 3 and t.shape[:2] in ((1, 256), (256, 1)) and t.shape[2] in (3, 4):
        rows = t.reshape(256, t.shape[2]).T
    else:
        _raise(InvalidArgument, "LUT: the table must have 256 entries (per channel), got shape %s"
               % (t.shape,))
    return _run("lut", src, dst, device,
                {"table": _np.ascontiguousarray(rows, dtype=_np.float32)})


@_image_out
def normalize(src, dst=None, alpha=1, beta=0, norm_type=NORM_L2, dtype=-1, mask=None, *,
              device=None):
    """cv2.normalize: NORM_MINMAX onto [alpha, beta], or NORM_INF, NORM_L1, NORM_L2 to norm
    alpha; dtype -1 or CV_8U, CV_16U, CV_16S, CV_32F; 0 outside the mask."""
    n = _int(norm_type, "norm_type")
    if n not in _NORM_NAME:
        _raise(InvalidArgument, "normalize: norm_type %d: NORM_INF, NORM_L1, NORM_L2 or "
               "NORM_MINMAX" % n)
    params = {"alpha": _real(alpha, "alpha"), "beta": _real(beta, "beta"),
              "norm": _NORM_NAME[n], "dtype": _cv2._ddepth_name(dtype)}
    if dst is not None and hasattr(dst, "dtype") and params["dtype"] == "same":
        params["dtype"] = _cv2._ddepth_name(dst.dtype)
    if mask is not None:
        params["mask"] = mask
    return _run("normalize", src, dst, device, params)


# ---- channels ----------------------------------------------------------------------------------
@_image_out
def extractChannel(src, coi, dst=None, *, device=None):
    """cv2.extractChannel: channel coi as an (H, W) array."""
    return _run("extract_channel", src, dst, device, {"channel": _int(coi, "coi")})


@_image_out
def insertChannel(src, dst, coi, *, device=None):
    """cv2.insertChannel: dst's channel coi replaced by src (one channel); dst is written in
    place and returned."""
    return _run("insert_channel", dst, dst, device, {"channel": _int(coi, "coi"), "src2": src})


def split(m, *, device=None):
    """cv2.split: the channels as a tuple of (H, W) arrays."""
    n = _channels(m)
    return tuple(extractChannel(m, c, device=device) for c in range(n))


def mixChannels(src, dst, fromTo, *, device=None):
    """cv2.mixChannels: src and dst are an image or a list of images of one size and dtype (1, 3
    or 4 channels each), their channels numbered across the list; fromTo holds pairs (source
    channel or -1 for zeros, destination channel). Each destination is written in place and dst
    is returned. Destinations must not share memory with any other image. (The C API's
    gip_mix_channels() takes the same arguments; the registry's mix_channels step makes a new
    image from one.)"""
    srcs = list(src) if isinstance(src, (list, tuple)) else [src]
    dsts = list(dst) if isinstance(dst, (list, tuple)) else [dst]
    if not srcs or not dsts:
        _raise(InvalidArgument, "mixChannels: at least one source and one destination")
    pairs = [_int(v, "mixChannels: fromTo") for v in _np.asarray(fromTo).ravel().tolist()]
    if not pairs or len(pairs) % 2:
        _raise(InvalidArgument, "mixChannels: fromTo holds pairs (source, destination), got %d "
               "numbers" % len(pairs))
    first = srcs[0]
    for i, img in enumerate(srcs + dsts):
        if getattr(img, "shape", None) is None:
            _raise(InvalidArgument, "mixChannels: image %d is not an array" % i)
        if tuple(img.shape[:2]) != tuple(first.shape[:2]):
            _raise(ShapeMismatch, "mixChannels: image %d is %s, the first source %s"
                   % (i, tuple(img.shape[:2]), tuple(first.shape[:2])))
        if _dtype_of(img) != _dtype_of(first):
            _raise(Unsupported, "mixChannels: image %d is %s, the first source %s"
                   % (i, _dtype_of(img), _dtype_of(first)))
        if _channels(img) not in (1, 3, 4):
            _raise(Unsupported, "mixChannels: image %d has %d channels; 1, 3 or 4 are accepted"
                   % (i, _channels(img)))
    for i, d in enumerate(dsts):
        for j, o in enumerate(srcs + dsts):
            if j != len(srcs) + i and isinstance(d, _np.ndarray) and \
                    isinstance(o, _np.ndarray) and _np.shares_memory(d, o):
                _raise(Aliasing, "mixChannels: destination %d shares memory with image %d"
                       % (i, j))

    def where(imgs, index):
        for img in imgs:
            if index < _channels(img):
                return img, index
            index -= _channels(img)

    ns, nd = sum(_channels(x) for x in srcs), sum(_channels(x) for x in dsts)
    for k in range(0, len(pairs), 2):
        s, d = pairs[k], pairs[k + 1]
        if not -1 <= s < ns or not 0 <= d < nd:
            _raise(InvalidArgument, "mixChannels: pair %d (%d, %d): the source channel must be "
                   "in -1..%d (-1: zeros), the destination in 0..%d"
                   % (k // 2, s, d, ns - 1, nd - 1))
    for k in range(0, len(pairs), 2):
        out, oc = where(dsts, pairs[k + 1])
        if pairs[k] < 0:  # zeros where out lives: the registry's mix_channels from nothing
            chan = _run("mix_channels", out, None, device, {"from_to": [-1, 0]})
        else:
            img, ic = where(srcs, pairs[k])
            chan = extractChannel(img, ic, device=device)
        if _channels(out) == 1:
            if isinstance(out, _np.ndarray) and isinstance(chan, _np.ndarray):
                out[...] = chan.reshape(out.shape)
            else:
                extractChannel(chan, 0, out, device=device)
        else:
            insertChannel(chan, out, oc, device=device)
    return dst


@_image_out
def merge(mv, dst=None, *, device=None):
    """cv2.merge of 1, 3 or 4 one-channel images of the same size and dtype."""
    mv = list(mv)
    if len(mv) not in (1, 3, 4):
        _raise(Unsupported, "merge: 1, 3 or 4 images (gip images have 1, 3 or 4 channels), got %d"
               % len(mv))
    if len(mv) == 1:
        return _run("extract_channel", mv[0], dst, device, {"channel": 0})
    ctx, ins, up = _prep(device, mv)
    first = ins[0]
    h, w = first.shape[:2]
    dt = _dtype_of(first)
    out = _alloc(ctx, first, (h, w, len(mv)), dt, dst, up)
    start = 1
    if dt == _np.dtype(_np.int16):
        # gray-to-colour copies have no int16: every channel is inserted into zeros
        zeros = _np.zeros((h, w, len(mv)), dt)
        if isinstance(out, _np.ndarray):
            out[...] = 0
        else:
            _gip.copy(ctx, zeros, out)
        start = 0
    else:
        # channel 0 everywhere (GRAY2RGB / GRAY2RGBA), then the others in place
        _gip.cvt_color(ctx, first, out, 11 if len(mv) == 3 else 12)
    for c in range(start, len(mv)):
        _gip.op_apply(ctx, _args("insert_channel", {"channel": c}), out, out, [ins[c]])
    return _finish(ctx, out, up, dst)


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and (getattr(v, "__module__", "") == __name__
                                         or n.isupper() or n.startswith("COLOR_"))]
