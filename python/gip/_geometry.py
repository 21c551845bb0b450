# SPDX-License-Identifier: MIT
"""Geometric transforms with cv2's names, arguments, defaults and constants (cv2.resize as
gip.resize ...). They translate cv2's arguments into the registry's and run the registered
operation, so that the checks and messages are the registry's."""
from ._core import (BORDER_CONSTANT, InvalidArgument, _border_name, _cv_border, _image_out, _int,
                    _raise, _real)
from ._registry import _run

INTER_NEAREST = 0
INTER_LINEAR = 1
INTER_CUBIC = 2
INTER_AREA = 3
INTER_LANCZOS4 = 4
INTER_LINEAR_EXACT = 5
INTER_NEAREST_EXACT = 6

_INTER_NAME = {INTER_NEAREST: "nearest", INTER_LINEAR: "linear", INTER_CUBIC: "cubic",
               INTER_AREA: "area", INTER_LANCZOS4: "lanczos4",
               INTER_LINEAR_EXACT: "linear_exact", INTER_NEAREST_EXACT: "nearest_exact"}

ROTATE_90_CLOCKWISE = 0
ROTATE_180 = 1
ROTATE_90_COUNTERCLOCKWISE = 2

__all__ = ["INTER_NEAREST", "INTER_LINEAR", "INTER_CUBIC", "INTER_AREA", "INTER_LANCZOS4",
           "INTER_LINEAR_EXACT", "INTER_NEAREST_EXACT", "ROTATE_90_CLOCKWISE", "ROTATE_180",
           "ROTATE_90_COUNTERCLOCKWISE", "resize", "rotate", "transpose", "copy_make_border"]


def _inter_name(interpolation, allowed=None):
    i = _int(interpolation, "interpolation")
    name = _INTER_NAME.get(i)
    if name is None or (allowed is not None and i not in allowed):
        ok = allowed if allowed is not None else sorted(_INTER_NAME)
        _raise(InvalidArgument, "interpolation %r: one of %s" % (
            interpolation, ", ".join("INTER_%s (%d)" % (_INTER_NAME[k].upper(), k) for k in ok)))
    return name


def _dsize(dsize):
    if dsize is None:
        return 0, 0
    if not hasattr(dsize, "__len__") or isinstance(dsize, (str, bytes)) or len(dsize) != 2:
        _raise(InvalidArgument, "dsize must be None or a pair (width, height), got %r" % (dsize,))
    return _int(dsize[0], "dsize[0]"), _int(dsize[1], "dsize[1]")


@_image_out
def resize(src, dsize, dst=None, fx=0, fy=0, interpolation=INTER_LINEAR, *, antialias=False,
           device=None):
    """cv2.resize: the output is dsize=(width, height), or round(fx * width) x round(fy * height)
    when dsize is None or (0, 0). OpenCV's coordinate mapping and arithmetic for every
    interpolation (INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, INTER_AREA, INTER_LANCZOS4,
    INTER_LINEAR_EXACT, INTER_NEAREST_EXACT): uint8 results equal cv2.resize's. antialias=True
    (not in cv2) widens the linear or cubic filter when shrinking, as Pillow and torchvision's
    antialias=True do."""
    w, h = _dsize(dsize)
    if w < 0 or h < 0:
        _raise(InvalidArgument, "dsize (%d, %d) must not be negative" % (w, h))
    params = {"dsize": (w, h), "fx": _real(fx, "fx"), "fy": _real(fy, "fy"),
              "interpolation": _inter_name(interpolation), "antialias": bool(antialias)}
    if w * h > 0:  # cv2 ignores fx and fy when dsize is given
        params["fx"] = params["fy"] = 0.0
    return _run("resize", src, dst, device, params)


_ROTATE_NAME = {ROTATE_90_CLOCKWISE: "90_clockwise", ROTATE_180: "180",
                ROTATE_90_COUNTERCLOCKWISE: "90_counterclockwise"}


@_image_out
def rotate(src, rotateCode, dst=None, *, device=None):
    """cv2.rotate: ROTATE_90_CLOCKWISE, ROTATE_180 or ROTATE_90_COUNTERCLOCKWISE (whole pixels
    move; a quarter turn swaps width and height)."""
    code = _int(rotateCode, "rotateCode")
    if code not in _ROTATE_NAME:
        _raise(InvalidArgument, "rotateCode %r: ROTATE_90_CLOCKWISE (0), ROTATE_180 (1) or "
               "ROTATE_90_COUNTERCLOCKWISE (2)" % (rotateCode,))
    return _run("rotate", src, dst, device, {"code": _ROTATE_NAME[code]})


@_image_out
def transpose(src, dst=None, *, device=None):
    """cv2.transpose: dst[x, y] = src[y, x]."""
    return _run("transpose", src, dst, device, {})


def _scalar4(value, what="value"):
    """cv2's Scalar: a number is (v, 0, 0, 0), a sequence is padded with zeros."""
    if value is None:
        return [0.0] * 4
    if hasattr(value, "__len__") and not isinstance(value, (str, bytes)):
        v = [_real(x, what) for x in value]
        if len(v) > 4:
            _raise(InvalidArgument, "%s has %d numbers; at most 4" % (what, len(v)))
        return v + [0.0] * (4 - len(v))
    return [_real(value, what), 0.0, 0.0, 0.0]


@_image_out
def copy_make_border(src, top, bottom, left, right, borderType, dst=None, value=None, *,
                     device=None):
    """cv2.copyMakeBorder: the image inside a frame of top, bottom, left and right pixels made by
    borderType (BORDER_CONSTANT with value, a Scalar: one number fills the first channel, the
    others 0, as in cv2; BORDER_REPLICATE, BORDER_REFLECT, BORDER_WRAP, BORDER_REFLECT_101)."""
    params = {"top": _int(top, "top"), "bottom": _int(bottom, "bottom"),
              "left": _int(left, "left"), "right": _int(right, "right"),
              "border": _border_name(borderType)}
    if _cv_border(borderType) == BORDER_CONSTANT:
        params["border_value"] = _scalar4(value)
    return _run("copy_make_border", src, dst, device, params)
