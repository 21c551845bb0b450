# SPDX-License-Identifier: MIT
"""What every part of the gip package shares: cv2's constants, raising libgip's statuses, the
devices and their contexts, turning the arguments of a call into inputs and outputs on the right
device (host arrays in give host arrays out, device arrays give gip.Images), cv2's strict argument
types, and the methods of gip.Image written in Python."""
import functools as _functools
import numbers as _numbers
import os as _os
import threading as _threading

import numpy as _np

from . import _gip
from ._errors import (BY_CODE as _BY_CODE, InvalidArgument, InvalidType, LocationMismatch,
                      ShapeMismatch, Unsupported)

Image = _gip.Image
__version__ = _gip.version()

# ---- constants (cv2's values, so cv2's constants work too) --------------------------------------
IMREAD_UNCHANGED = -1
IMREAD_GRAYSCALE = 0
IMREAD_COLOR = 1
IMREAD_ANYDEPTH = 2
IMREAD_IGNORE_ORIENTATION = 128
IMREAD_REDUCED_GRAYSCALE_2 = 16
IMREAD_REDUCED_COLOR_2 = 17
IMREAD_REDUCED_GRAYSCALE_4 = 32
IMREAD_REDUCED_COLOR_4 = 33
IMREAD_REDUCED_GRAYSCALE_8 = 64
IMREAD_REDUCED_COLOR_8 = 65
IMWRITE_JPEG_QUALITY = 1
IMWRITE_JPEG_PROGRESSIVE = 2
IMWRITE_JPEG_SAMPLING_FACTOR = 7
IMWRITE_PNG_COMPRESSION = 16
IMWRITE_JPEG_SAMPLING_FACTOR_420 = 0x221111
IMWRITE_JPEG_SAMPLING_FACTOR_422 = 0x211111
IMWRITE_JPEG_SAMPLING_FACTOR_444 = 0x111111

BORDER_CONSTANT = 0
BORDER_REPLICATE = 1
BORDER_REFLECT = 2
BORDER_WRAP = 3
BORDER_REFLECT_101 = 4
BORDER_REFLECT101 = 4
BORDER_DEFAULT = 4
_BORDER_TO_GIP = {4: 0, 2: 1, 1: 2, 0: 3, 3: 4}
_BORDER_NAME = {4: "reflect101", 2: "reflect", 1: "replicate", 0: "constant", 3: "wrap"}

CV_8U = 0
CV_16U = 2
CV_16S = 3
CV_32F = 5
_DEPTH_TO_DTYPE = {0: _np.dtype(_np.uint8), 2: _np.dtype(_np.uint16), 3: _np.dtype(_np.int16),
                   5: _np.dtype(_np.float32)}

COLOR_BGR2BGRA = COLOR_RGB2RGBA = 0
COLOR_BGRA2BGR = COLOR_RGBA2RGB = 1
COLOR_BGR2RGBA = COLOR_RGB2BGRA = 2
COLOR_RGBA2BGR = COLOR_BGRA2RGB = 3
COLOR_BGR2RGB = COLOR_RGB2BGR = 4
COLOR_BGRA2RGBA = COLOR_RGBA2BGRA = 5
COLOR_BGR2GRAY = 6
COLOR_RGB2GRAY = 7
COLOR_GRAY2BGR = COLOR_GRAY2RGB = 8
COLOR_GRAY2BGRA = COLOR_GRAY2RGBA = 9
COLOR_BGRA2GRAY = 10
COLOR_RGBA2GRAY = 11
# cv2 code -> (gip_color_code, output channels)
_COLOR = {0: (3, 4), 1: (4, 3), 2: (5, 4), 3: (6, 3), 4: (1, 3), 5: (2, 4), 6: (8, 1), 7: (7, 1),
          8: (11, 3), 9: (12, 4), 10: (10, 1), 11: (9, 1)}

_DTYPE_CODE = {_np.dtype(_np.uint8): 1, _np.dtype(_np.uint16): 2, _np.dtype(_np.int16): 3,
               _np.dtype(_np.float32): 4, _np.dtype(_np.complex64): 5}
# numpy dtype <-> the registry's dtype names (gip_dtype_name)
_DTYPE_NAME = {_np.dtype(_np.uint8): "u8", _np.dtype(_np.uint16): "u16",
               _np.dtype(_np.int16): "s16", _np.dtype(_np.float32): "f32",
               _np.dtype(_np.complex64): "c32"}
_NAME_DTYPE = {v: k for k, v in _DTYPE_NAME.items()}
_CODE_DTYPE = {v: k for k, v in _DTYPE_CODE.items()}
_TYPESTR = {"|u1": _np.dtype(_np.uint8), "<u2": _np.dtype(_np.uint16),
            "<i2": _np.dtype(_np.int16), "<f4": _np.dtype(_np.float32),
            "<c8": _np.dtype(_np.complex64)}
_NORM = {None: 0, "backward": 0, "forward": 1, "ortho": 2}

_gip._register_errors(_BY_CODE, InvalidType)


def _raise(cls, msg):
    """Raises the gip exception class `cls` (status set as libgip would) with `msg`."""
    if _BY_CODE.get(cls.code) is not cls:
        raise cls(msg)  # a refinement of the Python layer (InvalidType); its class has the status
    _gip._raise(_code_of(cls), msg)


def _code_of(cls):
    for code, c in _BY_CODE.items():
        if c is cls:
            return code
    return 900


# ---- devices ---------------------------------------------------------------------------------
_contexts = {}
_contexts_lock = _threading.Lock()
_local = _threading.local()
_default_spec = _os.environ.get("GIP_DEVICE", "auto")
_auto = None


def devices():
    """The CUDA devices libgip sees: a list of dicts (index, name, compute_capability, sm_count,
    total_memory, usable, reason). Empty without a GPU (see :func:`unavailable_reason`)."""
    return _gip.devices()


def unavailable_reason():
    """Why no CUDA device is usable, '' when one is."""
    return _gip.unavailable_reason()


def build_info():
    """How libgip was built, e.g. 'gip 0.1.0 (CUDA 13.0, OpenMP, ...)'."""
    return _gip.build_info()


def _auto_target():
    global _auto
    if _auto is None:
        usable = [d["index"] for d in _gip.devices() if d["usable"]]
        _auto = ("cuda", usable[0]) if usable else ("cpu", -1)
    return _auto


def _parse_spec(spec):
    if isinstance(spec, Device):
        return spec.kind, spec.index
    if spec is None or spec == "auto":
        return _auto_target()
    if isinstance(spec, int) and not isinstance(spec, bool):
        return "cuda", spec
    if isinstance(spec, str):
        if spec == "cpu":
            return "cpu", -1
        if spec == "cuda":
            return "cuda", 0
        if spec.startswith("cuda:") and spec[5:].isdigit():
            return "cuda", int(spec[5:])
    _raise(InvalidArgument, "device %r: expected 'auto', 'cpu', 'cuda', 'cuda:N' or a gip.Device"
           % (spec,))


class Device:
    """A place to run: the CPU or CUDA device N, with its gip context (created on first use).

    ``with gip.Device('cuda:1'):`` makes it the default for host arrays in this thread.
    """
    __slots__ = ("kind", "index")

    def __init__(self, spec="auto"):
        self.kind, self.index = _parse_spec(spec)

    @property
    def context(self):
        """The _gip.Context of this device (one per device and process)."""
        key = (self.kind, self.index)
        ctx = _contexts.get(key)
        if ctx is None:
            with _contexts_lock:
                ctx = _contexts.get(key)
                if ctx is None:
                    if self.kind == "cpu":
                        ctx = _gip.Context(1, 0, 0)
                    else:
                        ctx = _gip.Context(2, self.index, 0)
                    _contexts[key] = ctx
        return ctx

    @property
    def name(self):
        return "cpu" if self.kind == "cpu" else "cuda:%d" % self.index

    @property
    def describe(self):
        """One line: 'CUDA device 0: NVIDIA H200 (...)' or 'CPU, 2 threads (...)'."""
        return self.context.describe

    @property
    def stream(self):
        """The device's gip CUDA stream as an int (0 for the CPU)."""
        return self.context.stream

    def sync(self):
        """Waits until the work gip queued on this device has finished."""
        self.context.sync()

    def set_memory_limit(self, nbytes):
        """Caps the device memory gip's allocations on this device may hold at once (images,
        scratch buffers; 0 removes the cap). Past it, calls raise MemoryError as if the GPU were
        full, change nothing, and the device stays usable. RuntimeError on the CPU."""
        self.context.set_memory_limit(_int(nbytes, "nbytes"))

    @property
    def memory_used(self):
        """Device memory gip's allocations on this device hold now, in bytes (0 on the CPU)."""
        return self.context.memory_used

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        return False

    def __eq__(self, other):
        return isinstance(other, Device) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def __repr__(self):
        return "gip.Device(%r)" % self.name


def set_default_device(spec):
    """Sets the process-wide device for host arrays ('auto', 'cpu', 'cuda', 'cuda:N')."""
    global _default_spec
    _parse_spec(spec)
    _default_spec = spec


_default_cache = {}  # spec -> Device: host arrays resolve it on every call


def default_device():
    """The Device host arrays run on now (innermost ``with Device``, else the default)."""
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    spec = _default_spec
    try:
        return _default_cache[spec]
    except (KeyError, TypeError):  # TypeError: an unhashable spec, resolved each time
        dev = Device(spec)
        try:
            _default_cache[spec] = dev
        except TypeError:
            pass
        return dev


def sync(device=None):
    """Waits for the work gip queued on `device` (default: every device gip has used)."""
    if device is not None:
        Device(device).sync()
        return
    for ctx in list(_contexts.values()):
        ctx.sync()


# ---- preparing calls ---------------------------------------------------------------------------
_ndarray = _np.ndarray


def _choose(device, gpu):
    """The Device for a call: `gpu` is the CUDA ordinal the inputs live on, or None."""
    if device is None or device == "auto":
        if gpu is not None:
            return Device(gpu)
        return default_device()
    dev = device if isinstance(device, Device) else Device(device)
    if gpu is not None and (dev.kind != "cuda" or dev.index != gpu):
        _raise(LocationMismatch, "the input is on cuda:%d but device=%r was asked for; move it "
               "with gip.Image.download() / gip.upload() first" % (gpu, dev.name))
    return dev


def _prep(device, srcs, host_run=False):
    """Resolves inputs. Returns (ctx, inputs, uploaded): inputs are numpy arrays for a CPU run
    and gip.Images for a GPU run; uploaded says the host inputs were copied to the device. With
    host_run (callers that run through _gip.op_apply), host inputs of a GPU run stay on the host
    and uploaded is None: the C library moves them through its transfer engine (pinned staging,
    copies overlapped with the computation) and writes the result into a host output."""
    gpu = None
    objs = []
    for i, s in enumerate(srcs):
        if isinstance(s, _ndarray):
            objs.append(s)
            continue
        if isinstance(s, Image):
            if s.closed:
                _raise(InvalidArgument, "the gip.Image is closed")
            if s.is_cuda:
                idx = s.device_index
            else:
                objs.append(s)  # a host Image (the C side refuses a closed one)
                continue
        else:
            what = "src" if len(srcs) == 1 else "input %d" % i
            _check_image_like(s, what)
            kind, idx = _gip.where(s)
            if kind != "cuda":
                objs.append(_host_array(s, what))
                continue
        if gpu is not None and gpu != idx:
            _raise(LocationMismatch, "inputs are on cuda:%d and cuda:%d" % (gpu, idx))
        gpu = idx
        objs.append(s)
    dev = _choose(device, gpu)
    ctx = dev.context
    if dev.kind == "cpu":
        return ctx, objs, False
    if host_run and gpu is None:
        return ctx, objs, None
    out = []
    for o in objs:
        if isinstance(o, Image) and not o.is_cuda:
            o = _np.asarray(o)
        if isinstance(o, _ndarray):
            out.append(_upload(ctx, o))
        else:
            out.append(_gip.asimage(ctx, o))
    return ctx, out, gpu is None


_ACCEPTED = ("a numpy array, a gip.Image or a CuPy/PyTorch array (anything with __dlpack__ or "
             "__cuda_array_interface__) of uint8, uint16, int16, float32 or complex64")


def _check_image_like(obj, what):
    """Refuses what cannot be an image (str, bytes, None, a scalar) with a message naming what is
    accepted, before numpy would turn it into an array of characters or objects."""
    if obj is None or isinstance(obj, (str, bytes, _numbers.Number, _np.generic)):
        _raise(Unsupported, "%s: expected an image: %s; got %s" % (what, _ACCEPTED,
                                                                   type(obj).__name__))


def _host_array(obj, what="src"):
    _check_image_like(obj, what)
    if hasattr(obj, "__dlpack__") and not hasattr(obj, "__array_interface__"):
        try:
            return _np.from_dlpack(obj)
        except (TypeError, BufferError, RuntimeError, AttributeError):
            pass
    a = _np.asarray(obj)
    if a.dtype.kind in "OUSVMm":  # objects, text, records, dates: nothing gip can read
        _raise(Unsupported, "%s: expected an image: %s; got %s converted to numpy dtype %s"
               % (what, _ACCEPTED, type(obj).__name__, a.dtype))
    return a


def _dtype_of(a):
    if isinstance(a, _ndarray):
        return a.dtype
    return _TYPESTR[a.typestr]


def _check_dtype(dt, what="src"):
    if dt not in _DTYPE_CODE:
        _raise(Unsupported, "%s: dtype %s is not supported; uint8, uint16, int16, float32 and "
               "complex64 are accepted" % (what, dt))


def _upload(ctx, arr):
    _check_dtype(arr.dtype)
    if arr.ndim not in (2, 3) or 0 in arr.shape:
        _raise(InvalidArgument, "expected a non-empty 2-D (H, W) or 3-D (H, W, C) array, got "
               "shape %s" % (arr.shape,))
    h, w = arr.shape[:2]
    c = arr.shape[2] if arr.ndim == 3 else 1
    img = _gip.empty(ctx, h, w, c, _DTYPE_CODE[arr.dtype], arr.ndim, True)
    _gip.copy(ctx, arr, img)
    return img


# Host outputs of GPU runs from this many bytes up are page-locked (gip.empty_pinned): the
# device writes them directly, and they do not fault page by page as fresh memory does. Freed
# blocks are cached by libgip and given to the next such output (GIP_PINNED_CACHE bytes).
_PINNED_MIN = 1 << 20
_pinned_outputs = _os.environ.get("GIP_PINNED_OUTPUT", "1") != "0"


def _pinned(ctx, shape, dtype):
    h, w = shape[:2]
    c = shape[2] if len(shape) == 3 else 1
    return _np.asarray(_gip.empty(ctx, h, w, c, _DTYPE_CODE[dtype], len(shape), 2))


def empty_pinned(shape, dtype=_np.uint8, device=None):
    """A numpy array in page-locked host memory (cudaMallocHost, as PyTorch's pin_memory()):
    gip's GPU runs copy from and into such arrays directly, without staging, and the array's
    pages never fault. shape (H, W) or (H, W, C) with C in 1..4; dtype uint8, uint16, int16,
    float32 or complex64; device: the CUDA device whose context allocates it (default: the
    first). Without a GPU, gip.NoDevice."""
    dtype = _np.dtype(dtype)
    _check_dtype(dtype, "dtype")
    shape = tuple(int(n) for n in shape)
    if len(shape) not in (2, 3) or min(shape) < 1:
        _raise(InvalidArgument, "empty_pinned: shape %s: expected (H, W) or (H, W, C) with "
               "sizes >= 1" % (shape,))
    dev = Device("cuda" if device is None else device)
    if dev.kind != "cuda":
        _raise(InvalidArgument, "empty_pinned: device must be a CUDA device, got %r" % (device,))
    return _pinned(dev.context, shape, dtype)


def _alloc(ctx, like, shape, dtype, dst, uploaded):
    """The output of a call: a numpy array for a CPU run (dst if given), a device Image
    otherwise (dst if given and the inputs were device arrays). uploaded None: a GPU run of host
    inputs through the transfer engine, whose new output is page-locked when large."""
    dtype = _np.dtype(dtype)
    on_device = isinstance(like, Image) and like.is_cuda
    if not on_device or (dst is not None and uploaded):
        if dst is None:
            n = dtype.itemsize
            for d in shape:
                n *= d
            if uploaded is None and _pinned_outputs and n >= _PINNED_MIN:
                try:
                    return _pinned(ctx, shape, dtype)
                except MemoryError:
                    pass  # no page-locked memory left: a plain array, staged
            return _np.empty(shape, dtype)
        host_image = isinstance(dst, Image) and not dst.is_cuda and not dst.closed
        if not (isinstance(dst, _ndarray) or host_image) or dst.shape != tuple(shape) or \
                dst.dtype != dtype:
            _raise(ShapeMismatch, "dst must be a numpy array or host gip.Image of shape %s and "
                   "dtype %s" % (tuple(shape), dtype))
        if not on_device:
            return dst
        # A host dst of a GPU run goes up with its pixels: an operation may keep some of them
        # (BORDER_TRANSPARENT, masks), as it does on the host.
        return _upload(ctx, _np.asarray(dst))
    if dst is not None:
        return dst
    h, w = shape[:2]
    c = shape[2] if len(shape) == 3 else 1
    return _gip.empty(ctx, h, w, c, _DTYPE_CODE[dtype], len(shape), True)


def _finish(ctx, out, uploaded, dst):
    if not uploaded:
        return out
    host = dst if dst is not None else _np.empty(out.shape, _dtype_of(out))
    _gip.copy(ctx, out, host)
    return host


def _host_image_in(values):
    for v in values:
        t = type(v)
        if t is _ndarray or t is int or t is float or v is None:
            continue  # the common arguments, decided without isinstance chains
        if isinstance(v, Image):
            if not v.is_cuda:
                return True
        elif isinstance(v, (list, tuple)) and any(isinstance(x, Image) and not x.is_cuda
                                                  for x in v):
            return True
    return False


def _image_out(fn):
    """Image in, Image out: when an image argument is a host gip.Image, the numpy result comes
    back as a host gip.Image viewing it (a dst the caller gave comes back as given). Device
    inputs give device Images already; numpy inputs give numpy results."""
    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if isinstance(out, _ndarray) and (_host_image_in(args) or
                                          (kwargs and _host_image_in(kwargs.values()))):
            values = args + tuple(kwargs.values())
            if not any(out is v for v in values):
                return _gip.asimage(None, out)
        return out
    return wrapper


def _ddepth(ddepth, src_dtype):
    if isinstance(ddepth, (bool, _np.bool_, float, _np.floating)):
        _raise(InvalidType, "ddepth %r: CV_8U, CV_16U, CV_16S, CV_32F, -1 or a numpy dtype"
               % (ddepth,))
    if ddepth is None or (isinstance(ddepth, _numbers.Integral) and ddepth == -1):
        return _np.dtype(src_dtype)
    if isinstance(ddepth, _numbers.Integral):
        ddepth = int(ddepth)
        if ddepth not in _DEPTH_TO_DTYPE:
            _raise(Unsupported, "ddepth %d is not supported: CV_8U, CV_16U, CV_16S, CV_32F or -1"
                   % ddepth)
        return _DEPTH_TO_DTYPE[ddepth]
    try:
        return _np.dtype(ddepth)
    except TypeError:
        _raise(InvalidType, "ddepth %r: CV_8U, CV_16U, CV_16S, CV_32F, -1 or a numpy dtype"
               % (ddepth,))


def _int(v, what):
    """An integer parameter as cv2 takes one: int or numpy integer. A float (1.5 and 3.0 alike),
    a bool or a str raises InvalidType (a TypeError) instead of being truncated."""
    if type(v) is int:  # the common case, without the ABC checks below
        return v
    if isinstance(v, (bool, _np.bool_)) or not isinstance(v, _numbers.Integral):
        _raise(InvalidType, "%s must be an integer, got %s %r" % (what, type(v).__name__, v))
    return int(v)


def _real(v, what):
    """A real parameter: int, float or a numpy number; a str or None raises InvalidType."""
    if type(v) is float or type(v) is int:
        return float(v)
    if isinstance(v, (bool, _np.bool_)) or not isinstance(v, _numbers.Real):
        _raise(InvalidType, "%s must be a number, got %s %r" % (what, type(v).__name__, v))
    return float(v)


def _pair(v, what, names="(width, height)"):
    if isinstance(v, (_numbers.Integral, _np.bool_)) or not hasattr(v, "__len__") or \
            isinstance(v, (str, bytes)):
        n = _int(v, what)
        return n, n
    if len(v) != 2:
        _raise(InvalidArgument, "%s must be an integer or a pair %s, got %r" % (what, names, v))
    return _int(v[0], what + "[0]"), _int(v[1], what + "[1]")


def _cv_border(borderType):
    b = _int(borderType, "borderType") & ~16  # cv2.BORDER_ISOLATED is a hint gip needs not
    if b not in _BORDER_TO_GIP:
        _raise(InvalidArgument, "borderType %r: BORDER_CONSTANT, REPLICATE, REFLECT, WRAP or "
               "REFLECT_101 are accepted" % (borderType,))
    return b


def _border(borderType):
    """cv2's borderType as libgip's gip_border (the typed calls)."""
    return _BORDER_TO_GIP[_cv_border(borderType)]


def _border_name(borderType):
    """cv2's borderType as the registry's border choice ('reflect101', 'constant', ...)."""
    return _BORDER_NAME[_cv_border(borderType)]


def _method(method):
    """A convolution method as the registry names it: 'auto', 'direct' or 'fft'."""
    if not isinstance(method, str) or method not in ("auto", "direct", "fft"):
        _raise(InvalidArgument, "method %r: 'auto', 'direct' or 'fft'" % (method,))
    return method


# ---- Image helpers (methods of gip.Image implemented in Python) -------------------------------
def _img_download(img, out=None):
    if img.closed:
        _raise(InvalidArgument, "the gip.Image is closed")
    if not img.is_cuda:
        arr = _np.asarray(img)
        if out is None:
            return arr.copy()
        out[...] = arr
        return out
    dt = _dtype_of(img)
    if out is None:
        out = _np.empty(img.shape, dt)
    _gip.copy(img.context, img, out)
    return out


def _img_upload(cls, array, device="cuda"):
    dev = device if isinstance(device, Device) else Device(device)
    if dev.kind != "cuda":
        _raise(InvalidArgument, "Image.upload: device must be a CUDA device, got %r" % (device,))
    return _upload(dev.context, _host_array(array))


def _img_device(img):
    return "cuda:%d" % img.device_index if img.is_cuda else "cpu"


def _img_repr(img):
    if img.closed:
        return "<gip.Image closed>"
    return "<gip.Image shape=%s dtype=%s device=%s>" % (img.shape, _dtype_of(img).name,
                                                         _img_device(img))


def _img_array(img, dtype=None, copy=None):
    """numpy's __array__: a view of a host image (through the buffer protocol, which keeps the
    memory alive past close()); device and closed images raise instead of becoming an object
    array."""
    if img.closed:
        _raise(InvalidArgument, "the gip.Image is closed")
    if img.is_cuda:
        _raise(LocationMismatch, "the gip.Image is in device memory (%s); download() it first"
               % _img_device(img))
    arr = _np.asarray(memoryview(img))
    if dtype is not None and _np.dtype(dtype) != arr.dtype:
        if copy is False:
            raise ValueError("__array__: a dtype change needs a copy but copy=False")
        return arr.astype(dtype)
    return arr.copy() if copy else arr


_gip._register_helpers({"download": _img_download, "upload": _img_upload,
                        "dtype": _dtype_of, "device": _img_device, "repr": _img_repr,
                        "array": _img_array})


def upload(array, device="cuda"):
    """Copies a host array to a new device Image (GpuMat.upload)."""
    return _img_upload(Image, array, device)


def asimage(obj, device=None):
    """A gip.Image viewing `obj` without a copy: a CuPy array, a PyTorch CUDA tensor, anything
    with __dlpack__/__cuda_array_interface__, a gip.Image, or a host array (a host Image)."""
    if isinstance(obj, Image):
        return obj
    kind, idx = _gip.where(obj)
    if kind == "cuda":
        return _gip.asimage(_choose(device, idx).context, obj)
    return _gip.asimage(None, _host_array(obj))


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and getattr(v, "__module__", "gip._core") in
           ("gip._core", "gip._gip") and not isinstance(v, type(_np))]
