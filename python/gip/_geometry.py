# SPDX-License-Identifier: MIT
"""Geometric transforms with cv2's names, arguments, defaults and constants (cv2.resize as
gip.resize ...). They translate cv2's arguments into the registry's and run the registered
operation, so that the checks and messages are the registry's."""
import math as _math
import os as _os

import numpy as _np

from . import _gip
from ._core import (BORDER_CONSTANT, Image, InvalidArgument, Unsupported, _alloc, _border_name,
                    _cv_border, _dtype_of, _finish, _image_out, _int, _prep, _raise, _real)
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

WARP_INVERSE_MAP = 16
BORDER_TRANSPARENT = 5

# The map types of cv2.convertMaps (OpenCV 5's CV_MAKETYPE values; OpenCV 4's CV_16SC2 = 11 and
# CV_32FC2 = 13 are taken too).
CV_16UC1 = 2
CV_32FC1 = 5
CV_16SC2 = 35
CV_32FC2 = 37
_MAP_TYPE = {CV_32FC1: CV_32FC1, CV_16SC2: CV_16SC2, CV_32FC2: CV_32FC2, 11: CV_16SC2,
             13: CV_32FC2}

ROTATE_90_CLOCKWISE = 0
ROTATE_180 = 1
ROTATE_90_COUNTERCLOCKWISE = 2

__all__ = ["INTER_NEAREST", "INTER_LINEAR", "INTER_CUBIC", "INTER_AREA", "INTER_LANCZOS4",
           "INTER_LINEAR_EXACT", "INTER_NEAREST_EXACT", "ROTATE_90_CLOCKWISE", "ROTATE_180",
           "ROTATE_90_COUNTERCLOCKWISE", "WARP_INVERSE_MAP", "BORDER_TRANSPARENT", "resize",
           "rotate", "transpose", "copy_make_border", "warp_affine", "warp_perspective",
           "get_rotation_matrix_2d", "get_affine_transform", "get_perspective_transform",
           "invert_affine_transform", "pyr_down", "pyr_up", "remap", "convert_maps", "thumbnail",
           "CV_16UC1", "CV_32FC1", "CV_16SC2", "CV_32FC2"]


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


# ---- warps -----------------------------------------------------------------------------------
_WARP_BORDER = {0: "constant", 1: "replicate", 2: "reflect", 3: "wrap", 4: "reflect101",
                5: "transparent"}


def _matrix(M, rows, what):
    m = _np.asarray(M, dtype=_np.float64)
    if m.shape != (rows, 3):
        _raise(InvalidArgument, "%s: M must be a %dx3 matrix, got shape %s" % (what, rows,
                                                                             m.shape))
    return [float(v) for v in m.ravel()]


def _warp_border(borderMode):
    """The borderMode of warp_affine, warp_perspective and remap (BORDER_ISOLATED ignored)."""
    b = _int(borderMode, "borderMode") & ~16
    if b not in _WARP_BORDER:
        _raise(InvalidArgument, "borderMode %r: BORDER_CONSTANT, REPLICATE, REFLECT, WRAP, "
               "REFLECT_101 or TRANSPARENT" % (borderMode,))
    return b


def _warp_border_value(name, params, b, borderValue, dst):
    """params with the border value of BORDER_CONSTANT; BORDER_TRANSPARENT keeps dst's pixels,
    so it needs dst."""
    if b == BORDER_TRANSPARENT and dst is None:
        _raise(InvalidArgument, "%s: BORDER_TRANSPARENT keeps dst's pixels: give dst" % name)
    if b == BORDER_CONSTANT:
        params["border_value"] = _scalar4(borderValue, "borderValue")
    return params


def _warp(name, rows, src, M, dsize, dst, flags, borderMode, borderValue, device):
    f = _int(flags, "flags")
    inter = f & 7
    if f & ~(7 | WARP_INVERSE_MAP) or inter not in (INTER_NEAREST, INTER_LINEAR, INTER_CUBIC,
                                                    INTER_AREA, INTER_LANCZOS4):
        _raise(InvalidArgument, "flags %r: INTER_NEAREST, INTER_LINEAR, INTER_CUBIC or "
               "INTER_LANCZOS4 (INTER_AREA is linear), optionally | WARP_INVERSE_MAP" % (flags,))
    b = _warp_border(borderMode)
    w, h = _dsize(dsize)
    if w < 0 or h < 0:
        _raise(InvalidArgument, "dsize (%d, %d) must not be negative" % (w, h))
    params = {"m": _matrix(M, rows, name), "dsize": (w, h) if w * h > 0 else (0, 0),
              "interpolation": _INTER_NAME[inter], "inverse_map": bool(f & WARP_INVERSE_MAP),
              "border": _WARP_BORDER[b]}
    return _run(name, src, dst, device, _warp_border_value(name, params, b, borderValue, dst))


@_image_out
def warp_affine(src, M, dsize, dst=None, flags=INTER_LINEAR, borderMode=BORDER_CONSTANT,
                borderValue=0, *, device=None):
    """cv2.warpAffine: dst(x, y) = src(M^-1 (x, y)) (M itself with WARP_INVERSE_MAP) into a
    dsize=(width, height) image; INTER_NEAREST, INTER_LINEAR or INTER_LANCZOS4 (uint8 results
    equal cv2's: OpenCV's arithmetic) or INTER_CUBIC (within a level of cv2's), with every
    borderMode incl. BORDER_TRANSPARENT (give dst); borderValue a Scalar."""
    return _warp("warp_affine", 2, src, M, dsize, dst, flags, borderMode, borderValue, device)


@_image_out
def warp_perspective(src, M, dsize, dst=None, flags=INTER_LINEAR, borderMode=BORDER_CONSTANT,
                     borderValue=0, *, device=None):
    """cv2.warpPerspective with a 3x3 M, as warp_affine."""
    return _warp("warp_perspective", 3, src, M, dsize, dst, flags, borderMode, borderValue,
                 device)


def _point(p, what):
    if not hasattr(p, "__len__") or len(p) != 2:
        _raise(InvalidArgument, "%s must be a point (x, y), got %r" % (what, p))
    return float(_np.float32(_real(p[0], what))), float(_np.float32(_real(p[1], what)))


def get_rotation_matrix_2d(center, angle, scale):
    """cv2.getRotationMatrix2D: the 2x3 float64 matrix rotating by angle degrees
    (counter-clockwise on screen) about center (rounded to float32, as cv2's Point2f) and
    scaling by scale."""
    cx, cy = _point(center, "center")
    a = _real(angle, "angle") * _math.pi / 180
    s = _real(scale, "scale")
    alpha, beta = _math.cos(a) * s, _math.sin(a) * s
    return _np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                      [-beta, alpha, beta * cx + (1 - alpha) * cy]], dtype=_np.float64)


def _points(p, n, what):
    a = _np.asarray(p, dtype=_np.float64)
    if a.size != 2 * n:
        _raise(InvalidArgument, "%s must hold %d points (x, y), got shape %s" % (what, n, a.shape))
    return a.reshape(n, 2).astype(_np.float32)


def _solve(a, b, what):
    """LU with partial pivoting in double, as OpenCV's solve(DECOMP_LU)."""
    a = a.copy()
    b = b.copy()
    n = len(b)
    for i in range(n):
        k = i + int(_np.argmax(_np.abs(a[i:, i])))
        if abs(a[k, i]) < 2.220446049250313e-15:
            _raise(InvalidArgument, "%s: the points are degenerate" % what)
        if k != i:
            a[[i, k], i:] = a[[k, i], i:]
            b[[i, k]] = b[[k, i]]
        d = -1 / a[i, i]
        for j in range(i + 1, n):
            alpha = a[j, i] * d
            a[j, i + 1:] += alpha * a[i, i + 1:]
            b[j] += alpha * b[i]
    for i in range(n - 1, -1, -1):
        b[i] = (b[i] - _np.dot(a[i, i + 1:], b[i + 1:])) / a[i, i]
    return b


def get_affine_transform(src, dst):
    """cv2.getAffineTransform: the 2x3 matrix mapping 3 points onto 3 (float32 points)."""
    s, d = _points(src, 3, "src"), _points(dst, 3, "dst")
    a = _np.zeros((6, 6))
    b = _np.zeros(6)
    for i in range(3):
        a[2 * i, 0:3] = (s[i, 0], s[i, 1], 1)
        a[2 * i + 1, 3:6] = (s[i, 0], s[i, 1], 1)
        b[2 * i], b[2 * i + 1] = d[i, 0], d[i, 1]
    return _solve(a, b, "get_affine_transform").reshape(2, 3)


def get_perspective_transform(src, dst, solveMethod=0):
    """cv2.getPerspectiveTransform: the 3x3 matrix mapping 4 points onto 4 (float32 points,
    LU)."""
    if _int(solveMethod, "solveMethod") != 0:
        _raise(InvalidArgument, "solveMethod: only DECOMP_LU (0) is supported")
    s, d = _points(src, 4, "src"), _points(dst, 4, "dst")
    a = _np.zeros((8, 8))
    b = _np.zeros(8)
    for i in range(4):
        a[i, 0:3] = (s[i, 0], s[i, 1], 1)
        a[i + 4, 3:6] = (s[i, 0], s[i, 1], 1)
        a[i, 6], a[i, 7] = -s[i, 0] * d[i, 0], -s[i, 1] * d[i, 0]  # float32 products
        a[i + 4, 6], a[i + 4, 7] = -s[i, 0] * d[i, 1], -s[i, 1] * d[i, 1]
        b[i], b[i + 4] = d[i, 0], d[i, 1]
    return _np.append(_solve(a, b, "get_perspective_transform"), 1.0).reshape(3, 3)


def invert_affine_transform(M):
    """cv2.invertAffineTransform of a 2x3 matrix (float64)."""
    m = _matrix(M, 2, "invert_affine_transform")
    d = m[0] * m[4] - m[1] * m[3]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22, a12, a21 = m[4] * d, m[0] * d, -m[1] * d, -m[3] * d
    return _np.array([[a11, a12, -a11 * m[2] - a12 * m[5]],
                      [a21, a22, -a21 * m[2] - a22 * m[5]]], dtype=_np.float64)


# ---- pyramids --------------------------------------------------------------------------------
def _pyr_dstsize(dstsize, want, what):
    if dstsize is None:
        return
    w, h = _dsize(dstsize)
    if (w, h) != (0, 0) and (w, h) != want:
        _raise(InvalidArgument, "%s: dstsize %r: only the default %r is supported"
               % (what, dstsize, want))


@_image_out
def pyr_down(src, dst=None, dstsize=None, borderType=4, *, device=None):
    """cv2.pyrDown: the 5x5 Gaussian at every second pixel, a ((w+1)//2, (h+1)//2) image;
    borderType BORDER_REFLECT_101 (default), REFLECT, REPLICATE or WRAP (not CONSTANT, as cv2).
    uint8 and uint16 results equal cv2's."""
    shape = _np.shape(src) if not hasattr(src, "width") else (src.height, src.width)
    _pyr_dstsize(dstsize, ((shape[1] + 1) // 2, (shape[0] + 1) // 2), "pyr_down")
    b = _int(borderType, "borderType") & ~16
    if b == BORDER_CONSTANT:
        _raise(InvalidArgument, "pyr_down: BORDER_CONSTANT is not supported (as in cv2)")
    return _run("pyr_down", src, dst, device, {"border": _border_name(b)})


@_image_out
def pyr_up(src, dst=None, dstsize=None, borderType=4, *, device=None):
    """cv2.pyrUp: a (2w, 2h) image, the zero-inserted source blurred by the 5x5 Gaussian times 4
    (BORDER_REFLECT_101 only, as cv2). uint8 and uint16 results equal cv2's."""
    shape = _np.shape(src) if not hasattr(src, "width") else (src.height, src.width)
    _pyr_dstsize(dstsize, (2 * shape[1], 2 * shape[0]), "pyr_up")
    if _int(borderType, "borderType") & ~16 != 4:
        _raise(InvalidArgument, "pyr_up: only BORDER_DEFAULT (BORDER_REFLECT_101) is supported")
    return _run("pyr_up", src, dst, device, {})


# ---- remap -----------------------------------------------------------------------------------
def _map_array(m, what):
    if isinstance(m, _np.ndarray) or not hasattr(m, "__cuda_array_interface__") and \
            not hasattr(m, "__dlpack__"):
        return _np.asarray(m)
    return m


def _elem_dtype(a):
    """The numpy dtype of an array (numpy, CuPy, PyTorch) or gip.Image; None if unknown."""
    if isinstance(a, Image):
        return _np.dtype(_dtype_of(a))
    try:
        return _np.dtype(str(getattr(a, "dtype", "")).replace("torch.", ""))
    except TypeError:
        return None


def _pair_map(m, dt, what):
    """A map of x, y pairs: (H, W, 2) as cv2 holds it, or (H, 2W) as gip does (one channel, the
    pairs side by side). Returns (the (H, 2W) map, H, W)."""
    shp = tuple(m.shape)
    if len(shp) == 3 and shp[2] == 2:
        h, w = shp[0], shp[1]
        if isinstance(m, _np.ndarray):
            m = _np.ascontiguousarray(m)
        return m.reshape(h, 2 * w), h, w
    if len(shp) == 2 and shp[1] % 2 == 0:
        return m, shp[0], shp[1] // 2
    _raise(InvalidArgument, "%s: a map of x, y pairs is (H, W, 2) %s (or (H, 2W)), got shape %s"
           % (what, dt, shp))


@_image_out
def remap(src, map1, map2, interpolation, dst=None, borderMode=BORDER_CONSTANT, borderValue=0, *,
          device=None):
    """cv2.remap with float maps: map1 (H, W, 2) float32 of (x, y) with map2 None, or map1 and
    map2 (H, W) float32 of x and y. INTER_NEAREST or INTER_LINEAR with every borderMode incl.
    BORDER_TRANSPARENT (give dst): uint8 results equal cv2's; INTER_LANCZOS4: uint8 equal to
    cv2's; INTER_CUBIC (every border): within a level. Fixed-point maps from cv2.convertMaps /
    gip.convertMaps are taken too: map1 (H, W, 2) int16 (x, y) and map2 (H, W) uint16 32 fy + fx
    or None (whole pixels), INTER_NEAREST, INTER_LINEAR or INTER_LANCZOS4, equal to cv2.remap
    with those maps (under
    BORDER_TRANSPARENT a pixel with a tap outside the source keeps dst, where cv2 reads outside
    the source)."""
    m1 = _map_array(map1, "map1")
    f = _int(interpolation, "interpolation")
    if f not in (INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, INTER_AREA, INTER_LANCZOS4):
        _raise(InvalidArgument, "interpolation %r: INTER_NEAREST, INTER_LINEAR, INTER_CUBIC or "
               "INTER_LANCZOS4" % (interpolation,))
    if _elem_dtype(m1) == _np.int16:
        mx, h, w = _pair_map(m1, "int16", "map1")
        my = None
        if map2 is not None:
            my = _map_array(map2, "map2")
            dt2 = _elem_dtype(my)
            if dt2 == _np.int16:  # cv2 takes CV_16SC1 fractions too: the same bits
                my = my.view(_np.uint16)
            elif dt2 != _np.uint16:
                _raise(InvalidArgument, "remap: with an int16 map1 (fixed-point), map2 must be "
                       "uint16 (H, W) fractions or None, got %s" % (dt2,))
            if tuple(my.shape) not in ((h, w), (h, w, 1)):
                _raise(InvalidArgument, "remap: map2 is %s; map1's pairs need (%d, %d)"
                       % (tuple(my.shape), h, w))
            my = my.reshape(h, w)
        if f == INTER_CUBIC:
            _raise(Unsupported, "remap: fixed-point maps take INTER_NEAREST, INTER_LINEAR or "
                   "INTER_LANCZOS4")
    else:
        if map2 is None:
            m1 = _np.asarray(m1)
            if m1.ndim != 3 or m1.shape[2] != 2 or m1.dtype != _np.float32:
                _raise(InvalidArgument, "remap: with map2 None, map1 must be (H, W, 2) float32 "
                       "(or int16 fixed-point), got %s %s" % (m1.dtype, m1.shape))
            mx, my = _np.ascontiguousarray(m1[:, :, 0]), _np.ascontiguousarray(m1[:, :, 1])
        else:
            mx, my = m1, _map_array(map2, "map2")
        shp = getattr(mx, "shape", None)
        if shp is None or len(shp) != 2:
            _raise(InvalidArgument, "remap: the maps must be (H, W) float32 (or map1 (H, W, 2))")
        h, w = int(shp[0]), int(shp[1])
    b = _warp_border(borderMode)
    params = {"dsize": (int(w), int(h)), "interpolation": _INTER_NAME[f],
              "border": _WARP_BORDER[b], "map1": mx, "map2": my}
    return _run("remap", src, dst, device,
                _warp_border_value("remap", params, b, borderValue, dst))


def convert_maps(map1, map2, dstmap1type, dstmap1=None, dstmap2=None, nninterpolation=False, *,
                 device=None):
    """cv2.convertMaps: remap's maps from one form into another. Forms: CV_32FC1 (two (H, W)
    float32 maps x and y), CV_32FC2 (one (H, W, 2) float32 map, map2 None), CV_16SC2 (an
    (H, W, 2) int16 map of whole pixels with an (H, W) uint16 map of 32 fy + fx fractions, or
    without it: nninterpolation=True rounds to whole pixels). Returns (dstmap1, dstmap2), dstmap2
    None where the form has none; results equal cv2's bit for bit. On the GPU (device maps or
    device=) the pair maps are gip.Images of shape (H, 2W) (gip images hold 1, 3 or 4
    channels), which gip.remap takes as they are."""
    t = _MAP_TYPE.get(_int(dstmap1type, "dstmap1type"))
    if t is None:
        _raise(InvalidArgument, "dstmap1type %r: CV_32FC1, CV_32FC2 or CV_16SC2" % (dstmap1type,))
    m1 = _map_array(map1, "map1")
    dt1 = _elem_dtype(m1)
    if dt1 not in (_np.float32, _np.int16):
        _raise(InvalidArgument, "convertMaps: map1 must be float32 or int16, got %s" % (dt1,))
    shp = tuple(m1.shape)
    pairs = dt1 == _np.int16 or map2 is None
    if pairs:
        m1, h, w = _pair_map(m1, dt1, "map1")
    elif len(shp) != 2:
        _raise(InvalidArgument, "convertMaps: float32 x and y maps are (H, W), got map1 %s" % (shp,))
    else:
        h, w = shp
    m2 = None
    if map2 is not None:
        m2 = _map_array(map2, "map2")
        dt2 = _elem_dtype(m2)
        if dt1 == _np.int16 and dt2 == _np.int16:
            m2 = m2.view(_np.uint16)
        elif (dt1, dt2) not in ((_np.float32, _np.float32), (_np.int16, _np.uint16)):
            _raise(InvalidArgument, "convertMaps: map1 %s with map2 %s is no map form" % (dt1, dt2))
        if tuple(m2.shape) not in ((h, w), (h, w, 1)):
            _raise(InvalidArgument, "convertMaps: map2 is %s; (%d, %d) expected"
                   % (tuple(m2.shape), h, w))
        m2 = m2.reshape(h, w)
    ins = (m1,) if m2 is None else (m1, m2)
    ctx, got, up = _prep(device, ins)
    s1, s2 = got[0], got[1] if m2 is not None else None
    on_host = not (isinstance(s1, Image) and s1.is_cuda)
    if t == CV_32FC1:
        shapes = [((h, w), _np.float32), ((h, w), _np.float32)]
    elif t == CV_32FC2:
        shapes = [((h, 2 * w), _np.float32)]
    else:
        shapes = [((h, 2 * w), _np.int16)] + ([] if nninterpolation else [((h, w), _np.uint16)])
    given = [dstmap1, dstmap2]
    outs = []
    for k, (shape, dt) in enumerate(shapes):
        d = given[k]
        if d is not None and on_host:
            d = _np.asarray(d)
            if d.dtype == dt and d.ndim == 3 and d.shape[2] == 2 and d.shape[:2] == (h, w):
                d = d.reshape(h, 2 * w)  # a (H, W, 2) dst written in place
        outs.append(_alloc(ctx, s1, shape, dt, d, up))
    _gip.convert_maps(ctx, s1, s2, outs[0], outs[1] if len(outs) > 1 else None)
    res = [_finish(ctx, o, up, None) for o in outs]
    if (on_host or up) and t != CV_32FC1:
        res[0] = res[0].reshape(h, w, 2)  # numpy results as cv2 shapes them
    return res[0], (res[1] if len(res) > 1 else None)


# ---- thumbnail -------------------------------------------------------------------------------
@_image_out
def thumbnail(src, size, dst=None, interpolation=INTER_AREA, *, antialias=False,
              shrink_only=False, shrink_on_load=True, device=None):
    """The image (an array, a gip.Image, or a file path, loaded as gip.imread loads it) scaled to
    fit the box size=N or (width, height), its aspect ratio kept (as vipsthumbnail): round(w * s)
    x round(h * s) with s = min(W / w, H / h). interpolation as resize's (INTER_AREA by default:
    equal to cv2.resize with INTER_AREA to that size); shrink_only=True keeps an image that
    already fits. A JPEG file is first decoded at 1/2, 1/4 or 1/8 of its size by libjpeg's DCT
    scaling where that still leaves at least the thumbnail's size (shrink_on_load=False: decoded
    whole). For a folder: gip.run_batch / `gip run 'thumbnail 256' -i DIR -o DIR`."""
    if hasattr(size, "__len__") and not isinstance(size, (str, bytes)):
        if len(size) != 2:
            _raise(InvalidArgument, "size must be N or (width, height), got %r" % (size,))
        bw, bh = _int(size[0], "size[0]"), _int(size[1], "size[1]")
    else:
        bw = bh = _int(size, "size")
    if bw < 1 or bh < 1:
        _raise(InvalidArgument, "size (%d, %d): each side must be at least 1" % (bw, bh))
    i = _int(interpolation, "interpolation")
    if i not in (INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, INTER_AREA, INTER_LANCZOS4):
        _raise(InvalidArgument, "interpolation %r: INTER_NEAREST, INTER_LINEAR, INTER_CUBIC, "
               "INTER_AREA or INTER_LANCZOS4" % (interpolation,))
    params = {"size": (bw, bh), "interpolation": _INTER_NAME[i], "antialias": bool(antialias),
              "shrink_only": bool(shrink_only), "shrink_on_load": bool(shrink_on_load)}
    if isinstance(src, (str, bytes, _os.PathLike)):
        from ._io import imread
        n = _gip.op_args("thumbnail", params).load_reduce(src)
        src = imread(src, {1: 1, 2: 17, 4: 33, 8: 65}[n])
    return _run("thumbnail", src, dst, device, params)


# cv2's own spellings
warpAffine = warp_affine
warpPerspective = warp_perspective
copyMakeBorder = copy_make_border
getRotationMatrix2D = get_rotation_matrix_2d
getAffineTransform = get_affine_transform
getPerspectiveTransform = get_perspective_transform
convertMaps = convert_maps
invertAffineTransform = invert_affine_transform
pyrDown = pyr_down
pyrUp = pyr_up
__all__ += ["convertMaps", "warpAffine", "warpPerspective", "copyMakeBorder", "getRotationMatrix2D",
            "getAffineTransform", "getPerspectiveTransform", "invertAffineTransform", "pyrDown",
            "pyrUp"]
