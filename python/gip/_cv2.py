# SPDX-License-Identifier: MIT
"""The functions with OpenCV's names, arguments and defaults (cv2.GaussianBlur as
gip.gaussian_blur, cv2.Sobel as gip.sobel ...), and those of numpy.fft and PyTorch. Where the
operation is registered (gip/op.h) they translate cv2's arguments into the registry's and run the
generic call, so that the checks and messages are the registry's; cv2's strict argument types stay
here (a float ksize raises gip.InvalidType, as cv2 refuses it)."""
import numpy as _np

from . import _gip
from ._core import (BORDER_CONSTANT, BORDER_DEFAULT, CV_32F, _COLOR, _DTYPE_NAME, _NORM, Image,
                    InvalidArgument, InvalidType, ShapeMismatch, Unsupported, _alloc, _border,
                    _border_name, _cv_border, _ddepth, _dtype_of, _finish, _image_out, _int,
                    _method, _ndarray, _pair, _prep, _raise, _real)
from ._registry import _args, _result, _run


def _apply(ctx, a, s, dst, up):
    """Runs the registered operation of Args `a` on the prepared input s (see _core._prep)."""
    shape, dt = _result(a, s.shape, _dtype_of(s))
    out = _alloc(ctx, s, shape, dt, dst, up)
    _gip.op_apply(ctx, a, s, out)
    return _finish(ctx, out, up, dst)


# ---- cv2's arguments as the registry's --------------------------------------------------------
def _ddepth_name(ddepth):
    """cv2's ddepth (-1, CV_8U, CV_16U, CV_16S, CV_32F or a numpy dtype) as the registry's dtype
    choice ('same', 'u8', 'u16', 's16', 'f32')."""
    if ddepth is None or (isinstance(ddepth, int) and not isinstance(ddepth, bool)
                          and ddepth == -1):
        return "same"
    dt = _ddepth(ddepth, None)
    name = _DTYPE_NAME.get(dt)
    if name is None or name == "c32":
        _raise(Unsupported, "ddepth %r is not supported: CV_8U, CV_16U, CV_16S, CV_32F or -1"
               % (ddepth,))
    return name


def _anchor(anchor, kw, kh):
    """cv2's anchor: -1 in a coordinate is the centre of that axis."""
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    if ax < 0 and ay < 0:
        return ax, ay
    return (kw // 2 if ax == -1 else ax), (kh // 2 if ay == -1 else ay)


def _sobel_ksize(ksize):
    k = _int(ksize, "ksize")
    return "scharr" if k == -1 else k


def _gaussian_params(ksize, sigmaX, sigmaY, borderType, method):
    kw, kh = _pair(ksize, "ksize")
    sx, sy = _real(sigmaX, "sigmaX"), _real(sigmaY, "sigmaY")
    # cv2 takes a sigma <= 0 as "derive it from ksize" (the registry's 0).
    return {"ksize": (kw, kh), "sigma": (0.0 if sx <= 0 else sx, 0.0 if sy <= 0 else sy),
            "border": _border_name(borderType), "method": _method(method)}


def _box_params(ksize, anchor, normalize, borderType, ddepth=-1):
    kw, kh = _pair(ksize, "ksize")
    return {"ksize": (kw, kh), "anchor": _anchor(anchor, kw, kh),
            "normalize": bool(normalize), "border": _border_name(borderType),
            "dtype": _ddepth_name(ddepth)}


def _kernel(kernel, what="filter2d", one_d=True):
    k = _np.ascontiguousarray(_np.asarray(kernel, dtype=_np.float32))
    if k.ndim == 1 and one_d:
        k = k.reshape(1, -1)
    if k.ndim != 2:
        _raise(InvalidArgument, "%s: kernel must be 2-D, got shape %s" % (what, k.shape))
    return k


def _filter_params(kernel, anchor, delta, borderType, method, ddepth=-1, what="filter2d",
                   one_d=True):
    k = _kernel(kernel, what, one_d)
    return {"kernel": k, "anchor": _anchor(anchor, k.shape[1], k.shape[0]),
            "delta": _real(delta, "delta"), "border": _border_name(borderType),
            "method": _method(method), "dtype": _ddepth_name(ddepth)}


def _sobel_params(ksize, scale, delta, borderType):
    return {"ksize": _sobel_ksize(ksize), "scale": _real(scale, "scale"),
            "delta": _real(delta, "delta"), "border": _border_name(borderType)}


def _border_value(borderType, border_value):
    """border_value for the registry: given with border=constant only (else its default)."""
    v = _real(border_value, "border_value")
    return v if _cv_border(borderType) == BORDER_CONSTANT or v != 0 else None


# ---- filters -------------------------------------------------------------------------------
@_image_out
def invert(src, dst=None, *, max=None, device=None):  # noqa: A002 - the C parameter's name
    """dst = max - src: 255 - x for uint8 (cv2.bitwise_not), 65535 - x for uint16, max - x for
    float32 (max defaults to 1.0)."""
    return _run("invert", src, dst, device, {"max": None if max is None else _real(max, "max")})


@_image_out
def box_filter(src, ddepth, ksize, dst=None, anchor=(-1, -1), normalize=True,
               borderType=BORDER_DEFAULT, *, device=None):
    """cv2.boxFilter: the mean (or sum with normalize=False) over a ksize=(w, h) window, into
    ddepth (-1: the source's dtype, CV_8U, CV_16U, CV_16S, CV_32F), rounded and saturated."""
    return _run("box", src, dst, device, _box_params(ksize, anchor, normalize, borderType, ddepth))


@_image_out
def blur(src, ksize, dst=None, anchor=(-1, -1), borderType=BORDER_DEFAULT, *, device=None):
    """cv2.blur: the normalised box filter."""
    return box_filter.__wrapped__(src, -1, ksize, dst, anchor, True, borderType, device=device)


@_image_out
def filter2d(src, ddepth, kernel, dst=None, anchor=(-1, -1), delta=0, borderType=BORDER_DEFAULT,
             *, method="auto", device=None):
    """cv2.filter2D: correlation with `kernel` (2-D, converted to float32). method 'auto' takes
    the FFT for float32 outputs with large kernels (f32 accuracy), 'direct' never, 'fft' always."""
    return _run("filter", src, dst, device,
                _filter_params(kernel, anchor, delta, borderType, method, ddepth))


@_image_out
def fft_convolve(src, ddepth, kernel, dst=None, anchor=(-1, -1), delta=0,
                 borderType=BORDER_DEFAULT, *, device=None):
    """filter2d through the frequency domain (cost independent of the kernel size)."""
    return _run("filter", src, dst, device,
                _filter_params(kernel, anchor, delta, borderType, "fft", ddepth, "fft_convolve",
                               one_d=False))


@_image_out
def conv2d(src, weight, bias=None, padding=0, out_dtype=_np.float32, *, dst=None, device=None):
    """torch.nn.functional.conv2d on an HWC image (stride 1, dilation 1, groups 1): weight of
    shape (out_channels, in_channels, kh, kw), in_channels = the image's channels, out_channels
    1, 3 or 4; bias (out_channels,) or None; padding int or (pad_h, pad_w) of zeros. The output
    is (H + 2 pad_h - kh + 1, W + 2 pad_w - kw + 1, out_channels), float32 or uint8/uint16
    (rounded and saturated)."""
    w = _np.ascontiguousarray(_np.asarray(weight, dtype=_np.float32))
    if w.ndim != 4:
        _raise(InvalidArgument, "conv2d: weight must be (out, in, kh, kw), got shape %s"
               % (w.shape,))
    b = None if bias is None else _np.ascontiguousarray(_np.asarray(bias, dtype=_np.float32))
    ph, pw = _pair(padding, "padding", "(pad_h, pad_w)")
    ctx, (s,), up = _prep(device, (src,))
    h, wd = s.shape[:2]
    oc, ic, kh, kw = w.shape
    oh, ow = h + 2 * ph - kh + 1, wd + 2 * pw - kw + 1
    if oh < 1 or ow < 1:
        _raise(InvalidArgument, "conv2d: the kernel (%d x %d) is larger than the padded image"
               % (kh, kw))
    shape = (oh, ow) if oc == 1 and len(s.shape) == 2 else (oh, ow, oc)
    out = _alloc(ctx, s, shape, _np.dtype(out_dtype), dst, up)
    _gip.conv2d(ctx, s, out, w, b, oc, ic, kh, kw, ph, pw)
    return _finish(ctx, out, up, dst)


@_image_out
def sobel(src, ddepth, dx, dy, dst=None, ksize=3, scale=1, delta=0, borderType=BORDER_DEFAULT,
          *, device=None):
    """cv2.Sobel (ksize 1, 3, 5, 7, or -1 for Scharr) into ddepth: -1 (the source's dtype),
    CV_8U, CV_16U, CV_16S or CV_32F where cv2 accepts the pair; CV_8U and CV_16U as cv2 gives
    them (the signed result rounded and saturated: negative values 0). (gip's own |v| is the
    registry's sobel with saturate=0, or sobel_magnitude.)"""
    params = dict(_sobel_params(ksize, scale, delta, borderType), dx=_int(dx, "dx"),
                  dy=_int(dy, "dy"), dtype=_ddepth_name(ddepth), saturate=True)
    return _run("sobel", src, dst, device, params)


@_image_out
def scharr(src, ddepth, dx, dy, dst=None, scale=1, delta=0, borderType=BORDER_DEFAULT, *,
           device=None):
    """cv2.Scharr: the 3x3 Scharr derivative."""
    return sobel.__wrapped__(src, ddepth, dx, dy, dst, -1, scale, delta, borderType,
                             device=device)


@_image_out
def sobel_magnitude(src, ddepth=CV_32F, ksize=3, scale=1, delta=0, borderType=BORDER_DEFAULT,
                    *, dst=None, device=None):
    """Edge map: sqrt(gx^2 + gy^2) of the first-order Sobel derivatives, times scale, plus
    delta; ddepth CV_32F or CV_8U (rounded and saturated)."""
    args = (_int(ksize, "ksize"), _real(scale, "scale"), _real(delta, "delta"),
            _border(borderType), 0.0)
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _ddepth(ddepth, _dtype_of(s)), dst, up)
    _gip.sobel_magnitude(ctx, s, out, *args)
    return _finish(ctx, out, up, dst)


@_image_out
def gaussian_blur(src, ksize, sigmaX=0, dst=None, sigmaY=0, borderType=BORDER_DEFAULT, *,
                  method="auto", device=None):
    """cv2.GaussianBlur: uint8 results equal OpenCV's; ksize (w, h) odd, or 0 to derive from
    sigma. method: 'auto' (FFT only for float32 with large kernels), 'direct', 'fft'."""
    return _run("gaussian", src, dst, device,
                _gaussian_params(ksize, sigmaX, sigmaY, borderType, method))


# ---- colour and depth ------------------------------------------------------------------------
_GRAY_RGB = {7: 3, 11: 4}  # COLOR_RGB2GRAY, COLOR_RGBA2GRAY: the input channels of gray's codes


@_image_out
def cvt_color(src, code, dst=None, dstCn=0, *, device=None):
    """cv2.cvtColor for channel swaps, alpha add/drop, to and from gray (COLOR_* constants);
    uint8/uint16 results equal OpenCV's."""
    code = _int(code, "cvt_color: code")
    _int(dstCn, "cvt_color: dstCn")
    if code not in _COLOR:
        _raise(InvalidArgument, "cvt_color: code %r is not supported (gip.COLOR_* constants)"
               % (code,))
    gcode, cn = _COLOR[code]
    ctx, (s,), up = _prep(device, (src,))
    if _GRAY_RGB.get(code) == (s.shape[2] if len(s.shape) == 3 else 1):
        return _apply(ctx, _args("gray", {}), s, dst, up)  # the registry's gray: R, G, B order
    h, w = s.shape[:2]
    shape = (h, w) if cn == 1 else (h, w, cn)
    out = _alloc(ctx, s, shape, _dtype_of(s), dst, up)
    _gip.cvt_color(ctx, s, out, gcode)
    return _finish(ctx, out, up, dst)


@_image_out
def convert(src, dtype, alpha=1.0, beta=0.0, *, dst=None, device=None):
    """Mat.convertTo: dst = saturate(src * alpha + beta) in `dtype` (numpy dtype or CV_ depth,
    -1 for the source's), rounded half to even for integer outputs."""
    a, b = _real(alpha, "alpha"), _real(beta, "beta")
    name = _ddepth_name(dtype)
    ctx, (s,), up = _prep(device, (src,))
    if name == "same":
        name = _DTYPE_NAME.get(_np.dtype(_dtype_of(s)), "same")
    return _apply(ctx, _args("convert", {"dtype": name, "scale": a, "offset": b}), s, dst, up)


# ---- Fourier transforms ------------------------------------------------------------------------
def _norm(norm):
    if norm not in _NORM:
        _raise(InvalidArgument, "norm %r: None, 'backward', 'forward' or 'ortho'" % (norm,))
    return _NORM[norm]


def _fft_input(a):
    """Host arrays of float64/complex128 are taken in single precision, like the rest of gip."""
    if isinstance(a, _ndarray):
        if a.dtype == _np.float64:
            return a.astype(_np.float32)
        if a.dtype == _np.complex128:
            return a.astype(_np.complex64)
    return a


def _two_d(s, what):
    if len(s.shape) == 3 and s.shape[2] != 1 or len(s.shape) not in (2, 3):
        _raise(InvalidArgument, "%s: takes a 2-D (H, W) array, got shape %s" % (what, s.shape))


def _as_complex(ctx, s, up):
    """A complex64 copy of a real 1-channel image (f32 first for u8/u16)."""
    dt = _dtype_of(s)
    if dt == _np.complex64:
        return s
    h, w = s.shape[:2]
    f = s
    if dt != _np.float32:
        f = _alloc(ctx, s, (h, w), _np.float32, None, False)
        _gip.op_apply(ctx, _args("convert", {"dtype": "f32"}), s, f)
    c = _alloc(ctx, s, (h, w), _np.complex64, None, False)
    _gip.real_to_complex(ctx, f, c)
    return c


def _complex_fft2(name, a, norm, device, inverse):
    """The complex64 (H, W) transform of a, forward or inverse, as fft2 and ifft2 take it."""
    ctx, (s,), up = _prep(device, (_fft_input(a),))
    _two_d(s, name)
    c = _as_complex(ctx, s, up)
    out = _alloc(ctx, s, c.shape[:2], _np.complex64, None, up)
    _gip.fft2(ctx, c, out, _norm(norm), inverse)
    return _finish(ctx, out, up, None)


@_image_out
def fft2(a, norm=None, *, device=None):
    """numpy.fft.fft2 in single precision: complex64 (H, W) spectrum of a 2-D real or complex
    array (uint8, uint16, float32, complex64; float64/complex128 host arrays are converted)."""
    return _complex_fft2("fft2", a, norm, device, False)


@_image_out
def ifft2(a, norm=None, *, device=None):
    """numpy.fft.ifft2 in single precision: complex64 result."""
    return _complex_fft2("ifft2", a, norm, device, True)


@_image_out
def rfft2(a, norm=None, *, device=None):
    """numpy.fft.rfft2: the (H, W//2 + 1) half spectrum of a real 2-D array, complex64."""
    ctx, (s,), up = _prep(device, (_fft_input(a),))
    _two_d(s, "rfft2")
    h, w = s.shape[:2]
    out = _alloc(ctx, s, (h, w // 2 + 1), _np.complex64, None, up)
    _gip.fft2(ctx, s, out, _norm(norm), False)
    return _finish(ctx, out, up, None)


@_image_out
def irfft2(a, s=None, norm=None, *, device=None):
    """numpy.fft.irfft2 with s=(H, W) (default W = 2 * (half width - 1)): float32 result."""
    ctx, (x,), up = _prep(device, (_fft_input(a),))
    _two_d(x, "irfft2")
    h, hw = x.shape[:2]
    shape = (h, 2 * (hw - 1)) if s is None else _pair(s, "irfft2: s", "(H, W)")
    if shape[0] != h or shape[1] // 2 + 1 != hw:
        _raise(ShapeMismatch, "irfft2: s=%s does not match a half spectrum of shape %s"
               % (shape, x.shape[:2]))
    out = _alloc(ctx, x, shape, _np.float32, None, up)
    _gip.fft2(ctx, x, out, _norm(norm), True)
    return _finish(ctx, out, up, None)


def _shift(x, axes, inverse, device):
    if axes not in (None, (0, 1), (-2, -1), [0, 1]):
        _raise(InvalidArgument, "fftshift: axes must be None or (0, 1) (image rows and columns)")
    if isinstance(x, Image) and not x.is_cuda and not x.closed:
        x = _np.asarray(x)  # a host Image shifts as its numpy view (the result is an Image again)
    if isinstance(x, _ndarray) and x.dtype not in (_np.float32, _np.complex64) and \
            device in (None, "auto", "cpu"):
        # numpy's own shift for the dtypes gip's kernels do not take (same semantics).
        fn = _np.fft.ifftshift if inverse else _np.fft.fftshift
        return fn(x, axes=(0, 1))
    ctx, (s,), up = _prep(device, (x,))
    dt = _dtype_of(s)
    if dt not in (_np.float32, _np.complex64):
        _raise(Unsupported, "fftshift: device arrays of float32 or complex64 only, got %s" % dt)
    out = _alloc(ctx, s, s.shape, dt, None, up)
    _gip.fftshift(ctx, s, out, inverse)
    return _finish(ctx, out, up, None)


@_image_out
def fftshift(x, axes=None, *, device=None):
    """numpy.fft.fftshift over the image axes (rows and columns; for an (H, W) array the same as
    numpy's default; for (H, W, C) numpy's axes=(0, 1))."""
    return _shift(x, axes, False, device)


@_image_out
def ifftshift(x, axes=None, *, device=None):
    """numpy.fft.ifftshift over the image axes (the inverse of fftshift for odd sizes too)."""
    return _shift(x, axes, True, device)


@_image_out
def magnitude(F, *, device=None):
    """numpy.abs of a complex64 image, float32."""
    ctx, (s,), up = _prep(device, (F,))
    out = _alloc(ctx, s, s.shape[:2], _np.float32, None, up)
    _gip.magnitude(ctx, s, out, False, False)
    return _finish(ctx, out, up, None)


@_image_out
def log_magnitude(F, log1p=False, *, device=None):
    """log|F| (or log(1 + |F|)) of a complex64 image, float32 (-inf where |F| = 0, as numpy)."""
    ctx, (s,), up = _prep(device, (F,))
    out = _alloc(ctx, s, s.shape[:2], _np.float32, None, up)
    _gip.magnitude(ctx, s, out, True, bool(log1p))
    return _finish(ctx, out, up, None)


@_image_out
def normalize_minmax(src, *, device=None):
    """cv2.normalize(src, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U) of a float32 image, ignoring
    non-finite values for the range."""
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _np.uint8, None, up)
    _gip.normalize_minmax(ctx, s, out)
    return _finish(ctx, out, up, None)


@_image_out
def spectrum(src, *, log1p=False, bgr=True, dst=None, device=None):
    """The centred log-magnitude spectrum as an 8-bit (H, W) image in one call:
    normalize_minmax(fftshift(log|fft2(gray)|)). Colour sources are converted to gray first
    (BGR order by default, as imread gives; bgr=False for RGB)."""
    a = _args("spectrum", {"log1p": bool(log1p)})
    ctx, (s,), up = _prep(device, (src,))
    c = s.shape[2] if len(s.shape) == 3 else 1
    if bgr and c in (3, 4):
        # The registry's gray takes R, G, B order: swap B and R first (exact).
        rgb = _alloc(ctx, s, s.shape, _dtype_of(s), None, False)
        _gip.cvt_color(ctx, s, rgb, _COLOR[4 if c == 3 else 5][0])
        s = rgb
    return _apply(ctx, a, s, dst, up)


# ---- expressions and raw CUDA kernels ----------------------------------------------------------
@_image_out
def map(expr, inputs, dtype=None, *, scalars=None, dst=None, device=None):  # noqa: A001
    """Evaluates an expression per pixel and channel (docs/expressions.md): inputs are an array
    or a sequence of up to 8 arrays of the same shape, named in0, in1 ... (also a, b, ...; in0 is
    `in`); scalars {name: value}; dtype of the result defaults to the first input's. One input
    into its own dtype is the registry's map; several inputs, or another dtype, gip_map()."""
    if isinstance(inputs, (list, tuple)):
        srcs = tuple(inputs)
    else:
        srcs = (inputs,)
    if not 1 <= len(srcs) <= 8:
        _raise(InvalidArgument, "map: inputs must be an array or a sequence of 1 to 8 arrays, "
               "got %d" % len(srcs))
    if scalars is not None and not isinstance(scalars, dict):
        _raise(InvalidType, "map: scalars must be a dict {name: number}, got %s"
               % type(scalars).__name__)
    ctx, ins, up = _prep(device, srcs)
    s0 = ins[0]
    dt = _np.dtype(dtype) if dtype is not None else _np.dtype(_dtype_of(s0))
    if len(ins) == 1 and dt == _dtype_of(s0) and "expr" not in (scalars or {}):
        return _apply(ctx, _args("map", dict(scalars or {}, expr=str(expr))), s0, dst, up)
    out = _alloc(ctx, s0, s0.shape, dt, dst, up)
    _gip.map(ctx, str(expr), tuple(ins), out, scalars)
    return _finish(ctx, out, up, dst)


@_image_out
def stencil(expr, src, dtype=None, *, radius=0, borderType=BORDER_DEFAULT, border_value=0.0,
            scalars=None, dst=None, device=None):
    """Evaluates a neighbourhood expression: in(dx, dy) is the pixel at offset (dx, dy) with the
    border rule applied outside the image (border_value with BORDER_CONSTANT); e.g. the 3x3 mean
    is '(in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in + in(1,0) + in(-1,1) + in(0,1) +
    in(1,1)) / 9'. Into the source's dtype it is the registry's stencil; into another dtype,
    gip_stencil()."""
    if scalars is not None and not isinstance(scalars, dict):
        _raise(InvalidType, "stencil: scalars must be a dict {name: number}, got %s"
               % type(scalars).__name__)
    r, bv = _int(radius, "radius"), _border_value(borderType, border_value)
    ctx, (s,), up = _prep(device, (src,))
    dt = _np.dtype(dtype) if dtype is not None else _np.dtype(_dtype_of(s))
    clash = set(scalars or {}) & {"expr", "radius", "border", "border_value"}
    if dt == _dtype_of(s) and not clash:
        params = dict(scalars or {}, expr=str(expr), radius=r, border=_border_name(borderType),
                      border_value=bv)
        return _apply(ctx, _args("stencil", params), s, dst, up)
    out = _alloc(ctx, s, s.shape, dt, dst, up)
    _gip.stencil(ctx, str(expr), s, out, r, _border(borderType),
                 _real(border_value, "border_value"), scalars)
    return _finish(ctx, out, up, dst)


# cv2-style aliases, for drop-in use.
boxFilter = box_filter
filter2D = filter2d
Sobel = sobel
Scharr = scharr
GaussianBlur = gaussian_blur
cvtColor = cvt_color

__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", "") == __name__]
