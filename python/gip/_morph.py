# SPDX-License-Identifier: MIT
"""Morphology, rank and edge filters with cv2's names, arguments and defaults:
getStructuringElement, erode, dilate, morphologyEx, medianBlur, Laplacian, sepFilter2D, Canny (as
gip.get_structuring_element, gip.erode, gip.dilate, gip.morphology_ex, gip.median_blur,
gip.laplacian, gip.sep_filter2d, gip.canny and their cv2 spellings). They
translate cv2's arguments into the registry's operations (docs/operations.md), whose checks and
messages are the registry's."""
import math as _math

import numpy as _np

from ._core import (BORDER_CONSTANT, BORDER_DEFAULT, InvalidArgument, _border_name, _cv_border,
                    _image_out, _int,
                    _pair, _raise, _real)
from ._registry import _run

MORPH_RECT = 0
MORPH_CROSS = 1
MORPH_ELLIPSE = 2
MORPH_DIAMOND = 3
MORPH_ERODE = 0
MORPH_DILATE = 1
MORPH_OPEN = 2
MORPH_CLOSE = 3
MORPH_GRADIENT = 4
MORPH_TOPHAT = 5
MORPH_BLACKHAT = 6
MORPH_HITMISS = 7

_SHAPES = {0: "rect", 1: "cross", 2: "ellipse", 3: "diamond"}
_OPS = {0: "erode", 1: "dilate", 2: "open", 3: "close", 4: "gradient", 5: "tophat",
        6: "blackhat", 7: "hitmiss"}
_MAX_KSIZE = 1023


def get_structuring_element(shape, ksize, anchor=(-1, -1)):
    """cv2.getStructuringElement: a uint8 (height, width) array of 1 inside the element, 0
    outside; shape MORPH_RECT, MORPH_CROSS (through anchor, -1 the centre), MORPH_ELLIPSE or
    MORPH_DIAMOND; the same element as libgip's gip_structuring_element and cv2."""
    s = _int(shape, "shape")
    if s not in _SHAPES:
        _raise(InvalidArgument, "shape %r: MORPH_RECT, MORPH_CROSS, MORPH_ELLIPSE or "
               "MORPH_DIAMOND are accepted" % (shape,))
    w, h = _pair(ksize, "ksize")
    if not (1 <= w <= _MAX_KSIZE and 1 <= h <= _MAX_KSIZE):
        _raise(InvalidArgument, "ksize (%d, %d) is invalid: 1..%d each" % (w, h, _MAX_KSIZE))
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    ax, ay = (w // 2 if ax == -1 else ax), (h // 2 if ay == -1 else ay)
    if not (0 <= ax < w and 0 <= ay < h):
        _raise(InvalidArgument, "anchor (%d, %d) is outside the %dx%d element" % (ax, ay, w, h))
    if w == 1 and h == 1:
        s = MORPH_RECT
    e = _np.zeros((h, w), _np.uint8)
    r, c = h // 2, w // 2
    for i in range(h):
        j1 = j2 = 0
        if s == MORPH_RECT or (s == MORPH_CROSS and i == ay):
            j2 = w
        elif s == MORPH_CROSS:
            j1, j2 = ax, ax + 1
        else:
            dy = i - r
            if s == MORPH_ELLIPSE:
                inv = 1.0 / (r * r) if r else 0.0
                # OpenCV's saturate_cast<int>: round half to even, as Python's round.
                dx = round(c * _math.sqrt((r * r - dy * dy) * inv)) if abs(dy) <= r else -1
            else:
                dx = min(c, r - abs(dy))
            if dx >= 0:
                j1, j2 = max(c - dx, 0), min(c + dx + 1, w)
        e[i, j1:j2] = 1
    return e


def _border_value(borderType, borderValue):
    """border_value for the registry, or None for cv2's morphologyDefaultBorderValue (a constant
    border that never wins): borderValue None, or cv2's DBL_MAX scalar."""
    if borderValue is None or _cv_border(borderType) != BORDER_CONSTANT:
        return None
    vs = [borderValue] if not hasattr(borderValue, "__len__") else list(borderValue)
    if not 1 <= len(vs) <= 4:
        _raise(InvalidArgument, "borderValue must be a number or 1 to 4 numbers, got %r"
               % (borderValue,))
    vs = [_real(v, "borderValue") for v in vs]
    if all(v >= 1.7e308 for v in vs):
        return None
    # cv2 makes a Scalar of it: the channels not given are 0.
    return tuple(max(-3.4e38, min(3.4e38, v)) for v in vs + [0.0] * (4 - len(vs)))


def _params(kernel, anchor, iterations, borderType, borderValue, hitmiss=False):
    p = {"iterations": _int(iterations, "iterations"), "border": _border_name(borderType),
         "border_value": _border_value(borderType, borderValue)}
    if kernel is None:
        kw = kh = 3
        p["ksize"] = 3
    else:
        k = _np.asarray(kernel)
        if k.ndim == 1:
            k = k.reshape(1, -1)
        if k.ndim != 2 or k.size == 0:
            _raise(InvalidArgument, "kernel must be a non-empty 2-D array, got shape %s"
                   % (k.shape,))
        kh, kw = k.shape
        if not hitmiss and _np.all(k != 0):
            p["ksize"] = (kw, kh)  # a rectangle: any size, no matrix to pass
        else:
            p["kernel"] = _np.ascontiguousarray(k, dtype=_np.float32)
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    if ax != -1 or ay != -1:
        p["anchor"] = (kw // 2 if ax == -1 else ax, kh // 2 if ay == -1 else ay)
    return p


@_image_out
def erode(src, kernel, dst=None, anchor=(-1, -1), iterations=1, borderType=BORDER_CONSTANT,
          borderValue=None, *, device=None):
    """cv2.erode: the minimum over the element (kernel: its non-zero values; None: 3x3
    rectangle) at anchor, iterations times; borderValue None is cv2's default (the outside never
    wins). uint8, uint16, int16, float32; 1, 3, 4 channels; exact, equal to cv2."""
    return _run("erode", src, dst, device,
                _params(kernel, anchor, iterations, borderType, borderValue))


@_image_out
def dilate(src, kernel, dst=None, anchor=(-1, -1), iterations=1, borderType=BORDER_CONSTANT,
           borderValue=None, *, device=None):
    """cv2.dilate: the maximum over the element, as erode."""
    return _run("dilate", src, dst, device,
                _params(kernel, anchor, iterations, borderType, borderValue))


@_image_out
def morphology_ex(src, op, kernel, dst=None, anchor=(-1, -1), iterations=1,
                  borderType=BORDER_CONSTANT, borderValue=None, *, device=None):
    """cv2.morphologyEx: op MORPH_ERODE, MORPH_DILATE, MORPH_OPEN, MORPH_CLOSE, MORPH_GRADIENT,
    MORPH_TOPHAT, MORPH_BLACKHAT or MORPH_HITMISS (uint8 1-channel; kernel 1 set, -1 clear)."""
    o = _int(op, "op")
    if o not in _OPS:
        _raise(InvalidArgument, "op %r: MORPH_ERODE .. MORPH_HITMISS (0..7) are accepted" % (op,))
    params = _params(kernel, anchor, iterations, borderType, borderValue, o == MORPH_HITMISS)
    params["op"] = _OPS[o]
    return _run("morphology", src, dst, device, params)


# ---- rank filters ------------------------------------------------------------------------------
@_image_out
def median_blur(src, ksize, dst=None, *, device=None):
    """cv2.medianBlur: the median of each ksize x ksize window, replicated border; ksize odd, 3
    and 5 for uint8, uint16, int16 and float32, up to 255 for uint8. Equal to cv2."""
    return _run("median", src, dst, device, {"ksize": _int(ksize, "ksize")})


@_image_out
def bilateral_filter(src, d, sigmaColor, sigmaSpace, dst=None, borderType=BORDER_DEFAULT, *,
                     device=None):
    """cv2.bilateralFilter (uint8 or float32, 1 or 3 channels): uint8 results within one level of
    cv2's (float sums in another order) and identical on CPU and GPU."""
    return _run("bilateral", src, dst, device,
                {"d": _int(d, "d"), "sigma_color": _real(sigmaColor, "sigmaColor"),
                 "sigma_space": _real(sigmaSpace, "sigmaSpace"),
                 "border": _border_name(borderType)})


@_image_out
def unsharp_mask(src, ksize=(5, 5), sigma=0, amount=1.0, threshold=0, dst=None,
                 borderType=BORDER_DEFAULT, *, device=None):
    """Unsharp mask: src + amount * (src - GaussianBlur(src, ksize, sigma)), computed as
    cv2.addWeighted(src, 1 + amount, blur, -amount, 0) does; src is kept where |src - blur| <
    threshold. Integer results within one level of that cv2 recipe, identical on CPU and GPU."""
    kw, kh = _pair(ksize, "ksize")
    return _run("unsharp", src, dst, device,
                {"ksize": (kw, kh), "sigma": _real(sigma, "sigma"),
                 "amount": _real(amount, "amount"), "threshold": _real(threshold, "threshold"),
                 "border": _border_name(borderType)})


# ---- second derivatives and separable correlation ----------------------------------------------
def _ddepth_name(ddepth):
    from ._cv2 import _ddepth_name as f  # the cv2 module's translation of ddepth
    return f(ddepth)


@_image_out
def laplacian(src, ddepth, dst=None, ksize=1, scale=1, delta=0, borderType=BORDER_DEFAULT, *,
              device=None):
    """cv2.Laplacian: ksize 1, 3 (OpenCV's 3x3 kernels), 5, 7 (second-order Sobel), times scale
    plus delta, into ddepth (-1, CV_8U, CV_16U, CV_16S, CV_32F); uint8 results equal cv2's."""
    return _run("laplacian", src, dst, device,
                {"ksize": str(_int(ksize, "ksize")), "scale": _real(scale, "scale"),
                 "delta": _real(delta, "delta"), "border": _border_name(borderType),
                 "dtype": _ddepth_name(ddepth)})


def _vector(k, what):
    v = _np.ascontiguousarray(_np.asarray(k, dtype=_np.float32))
    if v.ndim == 2 and 1 in v.shape:
        v = v.reshape(1, -1)
    elif v.ndim == 1:
        v = v.reshape(1, -1)
    else:
        _raise(InvalidArgument, "%s must be a row or a column of coefficients, got shape %s"
               % (what, v.shape))
    return v


@_image_out
def sep_filter2d(src, ddepth, kernelX, kernelY, dst=None, anchor=(-1, -1), delta=0,
                 borderType=BORDER_DEFAULT, *, device=None):
    """cv2.sepFilter2D: the row pass with kernelX, then the column pass with kernelY (no flip),
    plus delta, into ddepth; exact for integer kernels on integer images."""
    kx, ky = _vector(kernelX, "kernelX"), _vector(kernelY, "kernelY")
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    p = {"kernel_x": kx, "kernel_y": ky, "delta": _real(delta, "delta"),
         "border": _border_name(borderType), "dtype": _ddepth_name(ddepth)}
    if ax != -1 or ay != -1:
        p["anchor"] = (kx.shape[1] // 2 if ax == -1 else ax, ky.shape[1] // 2 if ay == -1 else ay)
    return _run("sep_filter", src, dst, device, p)


# ---- Canny ------------------------------------------------------------------------------------
@_image_out
def canny(image, threshold1, threshold2, edges=None, apertureSize=3, L2gradient=False, *,
          device=None):
    """cv2.Canny, both forms: canny(image, threshold1, threshold2, edges=None, apertureSize=3,
    L2gradient=False) on a uint8 image (1, 3 or 4 channels), or canny(dx, dy, threshold1,
    threshold2, edges=None, L2gradient=False) on int16 derivatives. Returns the (H, W) uint8 edge
    map (0 or 255), equal to cv2's; on a GPU the hysteresis runs there too."""
    if not isinstance(threshold1, (int, float, _np.number)) or isinstance(threshold1, bool):
        # cv2.Canny(dx, dy, threshold1, threshold2, edges=None, L2gradient=False)
        # The arguments shift by one: (dx, dy, t1, t2, edges, L2gradient) arrive as (image,
        # threshold1, threshold2, edges, apertureSize, L2gradient).
        dx, dy, t1, t2 = image, threshold1, threshold2, edges
        out = None if apertureSize is None or isinstance(apertureSize, int) else apertureSize
        l2 = L2gradient
        return _run("canny_dxdy", dx, out, device,
                    {"threshold1": _real(t1, "threshold1"), "threshold2": _real(t2, "threshold2"),
                     "l2": bool(l2), "dy": dy})
    return _run("canny", image, edges, device,
                {"threshold1": _real(threshold1, "threshold1"),
                 "threshold2": _real(threshold2, "threshold2"),
                 "aperture": str(_int(apertureSize, "apertureSize")), "l2": bool(L2gradient)})


# cv2 spellings.
bilateralFilter = bilateral_filter
Canny = canny
Laplacian = laplacian
sepFilter2D = sep_filter2d
getStructuringElement = get_structuring_element
morphologyEx = morphology_ex
medianBlur = median_blur

__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and (n.startswith("MORPH_") or (
               callable(v) and getattr(v, "__module__", "") == __name__))]
