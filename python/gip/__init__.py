# SPDX-License-Identifier: MIT
"""gip: GPU image processing with a CPU fallback, with OpenCV's names, defaults and results.

Arrays
    Images are HWC arrays (HW for one channel, returned as HW like cv2) of uint8, uint16, int16,
    float32 (and complex64 for the FFT). Any row stride is used as is. A view whose pixels are not
    interleaved (channel stride != itemsize, or pixel stride != channels * itemsize, a flipped or
    negative row stride) is copied into a tight temporary first, where it lives (host or device);
    outputs (``dst=``) must be interleaved.

Devices
    Every function takes ``device='auto'|'cpu'|'cuda'|'cuda:N'`` (or a :class:`Device`).
    ``'auto'`` (the default) runs where the data lives: arrays on a CUDA device run on that
    device; host arrays run on the default device, which is the first usable GPU when there is
    one, else the CPU (``gip.default_device()`` says which and why; ``with gip.Device('cpu'):`` or
    ``gip.set_default_device()`` or the environment variable GIP_DEVICE change it).
    Host arrays in give host arrays out: on a GPU they are uploaded, processed and downloaded
    (GpuMat-like); a host gip.Image in gives a host gip.Image out. Device arrays in (gip.Image,
    CuPy arrays, PyTorch CUDA tensors, anything with ``__dlpack__`` or
    ``__cuda_array_interface__``) are used without a copy and give gip.Image results, which CuPy
    (``cupy.asarray``) and PyTorch (``torch.from_dlpack``) take without a copy.

Streams
    Each device has one gip context with its own non-blocking CUDA stream; gip queues work there
    and returns without waiting (``Image.download()``, host results and ``Device.sync()`` wait).
    Importing: with ``__dlpack__`` gip passes its stream, so the producer orders its work before
    gip's (the DLPack protocol); with ``__cuda_array_interface__`` v3 gip makes its stream wait for
    the producer's ``stream`` entry (an event), and after each operation makes the producer's
    stream wait for gip's reads, so the producer may overwrite or free the array afterwards.
    Exporting: ``__cuda_array_interface__['stream']`` is gip's stream (the consumer waits on it);
    ``__dlpack__(stream=s)`` makes stream ``s`` wait for gip's queued work. Result images keep
    their input objects alive until they are freed.

Lifetime
    A gip.Image's memory (gip's own, or the array it views) lives as long as the Image or any
    export of it: numpy views and memoryviews (buffer protocol), DLPack tensors, and consumers
    of ``__array_interface__`` / ``__cuda_array_interface__`` (which keep the Image itself).
    ``Image.close()`` drops the Image's own hold: the memory is freed at once when nothing else
    shows it, else when the last export goes. A closed Image raises on every use and export.

Errors
    Every failure raises a subclass of :class:`gip.Error` carrying libgip's message (see
    gip._errors): InvalidArgument (ValueError), Unsupported (TypeError), OutOfMemory
    (MemoryError), DeviceError (RuntimeError), IOError (OSError) and their refinements.
    Integer parameters (ksize, anchor, dx, borderType, flags ...) take int or numpy integers
    only, as cv2's: a float (even 3.0), bool or str raises InvalidType, which is both an
    InvalidArgument and a TypeError. What is not an image (a str, None, a number) given as one
    raises Unsupported (a TypeError) naming what is accepted.
"""
import functools as _functools
import numbers as _numbers
import os as _os
import threading as _threading

import numpy as _np

from . import _gip
from ._errors import *  # noqa: F401,F403
from ._errors import BY_CODE as _BY_CODE
from ._errors import __all__ as _errors_all

Image = _gip.Image
__version__ = _gip.version()

# ---- constants (cv2's values, so cv2's constants work too) --------------------------------------
IMREAD_UNCHANGED = -1
IMREAD_GRAYSCALE = 0
IMREAD_COLOR = 1
IMREAD_ANYDEPTH = 2
IMREAD_IGNORE_ORIENTATION = 128
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
_TYPESTR = {"|u1": _np.dtype(_np.uint8), "<u2": _np.dtype(_np.uint16),
            "<i2": _np.dtype(_np.int16), "<f4": _np.dtype(_np.float32),
            "<c8": _np.dtype(_np.complex64)}
_METHOD = {"auto": 0, "direct": 1, "fft": 2}
_NORM = {None: 0, "backward": 0, "forward": 1, "ortho": 2}

_gip._register_errors(_BY_CODE)


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


def default_device():
    """The Device host arrays run on now (innermost ``with Device``, else the default)."""
    stack = getattr(_local, "stack", None)
    if stack:
        return stack[-1]
    return Device(_default_spec)


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


def _prep(device, srcs):
    """Resolves inputs. Returns (ctx, inputs, uploaded): inputs are numpy arrays for a CPU run
    and gip.Images for a GPU run; uploaded says the host inputs were copied to the device."""
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


def _alloc(ctx, like, shape, dtype, dst, uploaded):
    """The output of a call: a numpy array for a CPU run (dst if given), a device Image
    otherwise (dst if given and the inputs were device arrays)."""
    dtype = _np.dtype(dtype)
    on_device = isinstance(like, Image) and like.is_cuda
    if not on_device:
        if dst is None:
            return _np.empty(shape, dtype)
        host_image = isinstance(dst, Image) and not dst.is_cuda and not dst.closed
        if not (isinstance(dst, _ndarray) or host_image) or dst.shape != tuple(shape) or \
                dst.dtype != dtype:
            _raise(ShapeMismatch, "dst must be a numpy array or host gip.Image of shape %s and "
                   "dtype %s" % (tuple(shape), dtype))
        return dst
    if dst is not None and not uploaded:
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
        if isinstance(v, Image) and not v.is_cuda:
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(x, Image) and not x.is_cuda
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
        if isinstance(out, _ndarray):
            values = args + tuple(kwargs.values())
            if _host_image_in(values) and not any(out is v for v in values):
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
    if isinstance(v, (bool, _np.bool_)) or not isinstance(v, _numbers.Integral):
        _raise(InvalidType, "%s must be an integer, got %s %r" % (what, type(v).__name__, v))
    return int(v)


def _real(v, what):
    """A real parameter: int, float or a numpy number; a str or None raises InvalidType."""
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


def _border(borderType):
    b = _int(borderType, "borderType") & ~16  # cv2.BORDER_ISOLATED is a hint gip needs not
    if b not in _BORDER_TO_GIP:
        _raise(InvalidArgument, "borderType %r: BORDER_CONSTANT, REPLICATE, REFLECT, WRAP or "
               "REFLECT_101 are accepted" % (borderType,))
    return _BORDER_TO_GIP[b]


def _method(method):
    if method not in _METHOD:
        _raise(InvalidArgument, "method %r: 'auto', 'direct' or 'fft'" % (method,))
    return _METHOD[method]


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


# ---- files ---------------------------------------------------------------------------------
def _load_mode(flags):
    """(libgip load mode, keep depth, ignore orientation) of cv2 imread flags. As cv2.imread, the
    EXIF orientation is applied unless IMREAD_IGNORE_ORIENTATION is set or the flags are
    IMREAD_UNCHANGED."""
    table = {-1: (0, False), 0: (1, False), 1: (2, False), 2: (1, True), 3: (2, True)}
    flags = _int(flags, "imread flags")
    base = flags if flags == IMREAD_UNCHANGED else flags & ~IMREAD_IGNORE_ORIENTATION
    if base not in table:
        _raise(InvalidArgument, "imread flags %r: IMREAD_UNCHANGED, IMREAD_GRAYSCALE, "
               "IMREAD_COLOR, optionally | IMREAD_ANYDEPTH and | IMREAD_IGNORE_ORIENTATION"
               % (flags,))
    mode, keep = table[base]
    ignore = flags == IMREAD_UNCHANGED or bool(flags & IMREAD_IGNORE_ORIENTATION)
    return mode, keep, ignore


def imread(filename, flags=IMREAD_COLOR, *, bgr=True):
    """Reads an image file (JPEG, PNG, PPM/PGM) into a numpy array, as cv2.imread: BGR(A)
    channel order by default (bgr=False gives RGB(A)); gray images are (H, W); IMREAD_GRAYSCALE
    gives cv2's gray (libjpeg's luma, libpng's RGB-to-gray); the EXIF orientation of JPEG and PNG
    files is applied unless flags has IMREAD_IGNORE_ORIENTATION or is IMREAD_UNCHANGED. Raises
    gip.NotFound / gip.CorruptData / gip.UnknownFormat instead of returning None."""
    mode, keep, ignore = _load_mode(flags)
    return _np.asarray(_gip.imread(_os.fspath(filename), mode, bgr, keep, ignore))


def imdecode(buf, flags=IMREAD_COLOR, *, bgr=True):
    """Decodes an encoded image held in memory (bytes or a uint8 array), as cv2.imdecode."""
    mode, keep, ignore = _load_mode(flags)
    if isinstance(buf, _ndarray):
        buf = _np.ascontiguousarray(buf).tobytes()
    return _np.asarray(_gip.imdecode(buf, mode, bgr, keep, ignore))


_EXT = {".jpg": 1, ".jpeg": 1, ".jpe": 1, ".png": 2, ".ppm": 3, ".pgm": 3, ".pnm": 3}
_SAMPLING = {IMWRITE_JPEG_SAMPLING_FACTOR_444: 1, IMWRITE_JPEG_SAMPLING_FACTOR_422: 2,
             IMWRITE_JPEG_SAMPLING_FACTOR_420: 3}


def _save_params(fmt, params, bgr):
    q = sub = prog = png = 0
    params = list(params or [])
    if len(params) % 2:
        _raise(InvalidArgument, "params must be pairs (flag, value)")
    for flag, value in zip(params[::2], params[1::2]):
        flag = _int(flag, "params flag")
        value = _int(value, "params value")
        if flag == IMWRITE_JPEG_QUALITY:
            q = value
        elif flag == IMWRITE_JPEG_PROGRESSIVE:
            prog = int(bool(value))
        elif flag == IMWRITE_PNG_COMPRESSION:
            png = value
        elif flag == IMWRITE_JPEG_SAMPLING_FACTOR:
            if value not in _SAMPLING:
                _raise(InvalidArgument, "IMWRITE_JPEG_SAMPLING_FACTOR %r: 420, 422 or 444" % value)
            sub = _SAMPLING[value]
        else:
            _raise(Unsupported, "imwrite parameter %r is not supported (JPEG quality, progressive,"
                   " sampling factor; PNG compression)" % (flag,))
    return (fmt, q, sub, prog, png, int(bool(bgr)))


def _host_image(img):
    if isinstance(img, Image) and img.is_cuda:
        return img.download()
    if isinstance(img, _ndarray) or isinstance(img, Image):
        return img
    kind, _ = _gip.where(img)
    if kind == "cuda":
        return asimage(img).download()
    return _host_array(img)


def imwrite(filename, img, params=None, *, bgr=True):
    """Writes an image as cv2.imwrite (format from the extension; params as cv2's list of
    (flag, value) pairs). Device images are downloaded first. The file is replaced atomically:
    a failure never leaves a partial file. Returns True; raises gip.Error on failure."""
    path = _os.fspath(filename)
    _gip.imwrite(path, _host_image(img), _save_params(0, params, bgr))
    return True


def imencode(ext, img, params=None, *, bgr=True):
    """Encodes an image in memory as cv2.imencode: returns (True, 1-D uint8 array)."""
    fmt = _EXT.get(ext.lower() if ext.startswith(".") else "." + ext.lower())
    if fmt is None:
        _raise(Unsupported, "imencode: extension %r: .jpg, .png, .ppm, .pgm" % (ext,))
    data = _gip.imencode(_host_image(img), _save_params(fmt, params, bgr))
    return True, _np.frombuffer(data, _np.uint8)


# ---- filters -------------------------------------------------------------------------------
@_image_out
def invert(src, dst=None, *, max=None, device=None):  # noqa: A002 - the C parameter's name
    """dst = max - src: 255 - x for uint8 (cv2.bitwise_not), 65535 - x for uint16, max - x for
    float32 (max defaults to 1.0)."""
    mx = 0.0 if max is None else _real(max, "max")
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _dtype_of(s), dst, up)
    _gip.invert(ctx, s, out, mx)
    return _finish(ctx, out, up, dst)


@_image_out
def box_filter(src, ddepth, ksize, dst=None, anchor=(-1, -1), normalize=True,
               borderType=BORDER_DEFAULT, *, device=None):
    """cv2.boxFilter: the mean (or sum with normalize=False) over a ksize=(w, h) window. ddepth
    -1 (the source's dtype, rounded and saturated) or CV_32F."""
    kw, kh = _pair(ksize, "ksize")
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    border = _border(borderType)
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _ddepth(ddepth, _dtype_of(s)), dst, up)
    _gip.box_filter(ctx, s, out, kw, kh, ax, ay, bool(normalize), border, 0.0)
    return _finish(ctx, out, up, dst)


@_image_out
def blur(src, ksize, dst=None, anchor=(-1, -1), borderType=BORDER_DEFAULT, *, device=None):
    """cv2.blur: the normalised box filter."""
    return box_filter(src, -1, ksize, dst, anchor, True, borderType, device=device)


@_image_out
def filter2d(src, ddepth, kernel, dst=None, anchor=(-1, -1), delta=0, borderType=BORDER_DEFAULT,
             *, method="auto", device=None):
    """cv2.filter2D: correlation with `kernel` (2-D, converted to float32). method 'auto' takes
    the FFT for float32 outputs with large kernels (f32 accuracy), 'direct' never, 'fft' always."""
    k = _np.ascontiguousarray(_np.asarray(kernel, dtype=_np.float32))
    if k.ndim == 1:
        k = k.reshape(1, -1)
    if k.ndim != 2:
        _raise(InvalidArgument, "filter2d: kernel must be 2-D, got shape %s" % (k.shape,))
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    dl, border, meth = _real(delta, "delta"), _border(borderType), _method(method)
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _ddepth(ddepth, _dtype_of(s)), dst, up)
    _gip.filter2d(ctx, s, out, k, k.shape[1], k.shape[0], ax, ay, dl, border, 0.0, meth, False)
    return _finish(ctx, out, up, dst)


@_image_out
def fft_convolve(src, ddepth, kernel, dst=None, anchor=(-1, -1), delta=0,
                 borderType=BORDER_DEFAULT, *, device=None):
    """filter2d through the frequency domain (cost independent of the kernel size)."""
    k = _np.ascontiguousarray(_np.asarray(kernel, dtype=_np.float32))
    if k.ndim != 2:
        _raise(InvalidArgument, "fft_convolve: kernel must be 2-D, got shape %s" % (k.shape,))
    ax, ay = _pair(anchor, "anchor", "(x, y)")
    dl, border = _real(delta, "delta"), _border(borderType)
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _ddepth(ddepth, _dtype_of(s)), dst, up)
    _gip.filter2d(ctx, s, out, k, k.shape[1], k.shape[0], ax, ay, dl, border, 0.0, 2, True)
    return _finish(ctx, out, up, dst)


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
    """cv2.Sobel (ksize 1, 3, 5, 7, or -1 for Scharr). uint8 sources: ddepth CV_16S, CV_32F or
    CV_8U (as cv2: the signed result saturated, negative values 0); uint16/float32 sources:
    CV_32F. (libgip's own u8 output is the absolute value: sobel_magnitude or convertScaleAbs.)"""
    args = (_int(dx, "dx"), _int(dy, "dy"), _int(ksize, "ksize"), _real(scale, "scale"),
            _real(delta, "delta"), _border(borderType), 0.0, False)
    ctx, (s,), up = _prep(device, (src,))
    dt = _ddepth(ddepth, _dtype_of(s))
    if dt == _np.uint8:
        # cv2's CV_8U: the exact signed result (s16 for unit scale and zero delta, else f32)
        # rounded and saturated to 0..255.
        mid_t = _np.int16 if args[3:5] == (1.0, 0.0) else _np.float32
        mid = _alloc(ctx, s, s.shape, mid_t, None, False)
        _gip.sobel(ctx, s, mid, *args)
        out = _alloc(ctx, s, s.shape, dt, dst, up)
        _gip.convert(ctx, mid, out, 1.0, 0.0)
        return _finish(ctx, out, up, dst)
    out = _alloc(ctx, s, s.shape, dt, dst, up)
    _gip.sobel(ctx, s, out, *args)
    return _finish(ctx, out, up, dst)


@_image_out
def scharr(src, ddepth, dx, dy, dst=None, scale=1, delta=0, borderType=BORDER_DEFAULT, *,
           device=None):
    """cv2.Scharr: the 3x3 Scharr derivative."""
    return sobel(src, ddepth, dx, dy, dst, -1, scale, delta, borderType, device=device)


@_image_out
def sobel_magnitude(src, ddepth=CV_32F, ksize=3, scale=1, delta=0, borderType=BORDER_DEFAULT,
                    *, dst=None, device=None):
    """Edge map: sqrt(gx^2 + gy^2) of the first-order Sobel derivatives, times scale, plus
    delta; ddepth CV_32F or CV_8U (rounded and saturated)."""
    args = (1, 1, _int(ksize, "ksize"), _real(scale, "scale"), _real(delta, "delta"),
            _border(borderType), 0.0, True)
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _ddepth(ddepth, _dtype_of(s)), dst, up)
    _gip.sobel(ctx, s, out, *args)
    return _finish(ctx, out, up, dst)


@_image_out
def gaussian_blur(src, ksize, sigmaX=0, dst=None, sigmaY=0, borderType=BORDER_DEFAULT, *,
                  method="auto", device=None):
    """cv2.GaussianBlur: uint8 results equal OpenCV's; ksize (w, h) odd, or 0 to derive from
    sigma. method: 'auto' (FFT only for float32 with large kernels), 'direct', 'fft'."""
    kw, kh = _pair(ksize, "ksize")
    args = (kw, kh, _real(sigmaX, "sigmaX"), _real(sigmaY, "sigmaY"), _border(borderType), 0.0,
            _method(method))
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _dtype_of(s), dst, up)
    _gip.gaussian_blur(ctx, s, out, *args)
    return _finish(ctx, out, up, dst)


# ---- colour and depth ------------------------------------------------------------------------
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
    h, w = s.shape[:2]
    shape = (h, w) if cn == 1 else (h, w, cn)
    out = _alloc(ctx, s, shape, _dtype_of(s), dst, up)
    _gip.cvt_color(ctx, s, out, gcode)
    return _finish(ctx, out, up, dst)


@_image_out
def convert(src, dtype, alpha=1.0, beta=0.0, *, dst=None, device=None):
    """Mat.convertTo: dst = saturate(src * alpha + beta) in `dtype` (numpy dtype or CV_ depth),
    rounded half to even for integer outputs."""
    a, b = _real(alpha, "alpha"), _real(beta, "beta")
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _ddepth(dtype, _dtype_of(s)), dst, up)
    _gip.convert(ctx, s, out, a, b)
    return _finish(ctx, out, up, dst)


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
        _gip.convert(ctx, s, f, 1.0, 0.0)
    c = _alloc(ctx, s, (h, w), _np.complex64, None, False)
    _gip.real_to_complex(ctx, f, c)
    return c


@_image_out
def fft2(a, norm=None, *, device=None):
    """numpy.fft.fft2 in single precision: complex64 (H, W) spectrum of a 2-D real or complex
    array (uint8, uint16, float32, complex64; float64/complex128 host arrays are converted)."""
    ctx, (s,), up = _prep(device, (_fft_input(a),))
    _two_d(s, "fft2")
    c = _as_complex(ctx, s, up)
    out = _alloc(ctx, s, c.shape[:2], _np.complex64, None, up)
    _gip.fft2(ctx, c, out, _norm(norm), False)
    return _finish(ctx, out, up, None)


@_image_out
def ifft2(a, norm=None, *, device=None):
    """numpy.fft.ifft2 in single precision: complex64 result."""
    ctx, (s,), up = _prep(device, (_fft_input(a),))
    _two_d(s, "ifft2")
    c = _as_complex(ctx, s, up)
    out = _alloc(ctx, s, c.shape[:2], _np.complex64, None, up)
    _gip.fft2(ctx, c, out, _norm(norm), True)
    return _finish(ctx, out, up, None)


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
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape[:2], _np.uint8, dst, up)
    _gip.spectrum(ctx, s, out, bool(log1p), bool(bgr))
    return _finish(ctx, out, up, dst)


# ---- style transfer -----------------------------------------------------------------------------
_STYLE_POOL = {"avg": 2, "max": 1}
_STYLE_INIT = {"content": 0, "style": 1, "noise": 2}
_STYLE_OPT = {"lbfgs": 0, "adam": 1}
_STYLE_LS = {"armijo": 3, "none": 1, "strong_wolfe": 2, "strong-wolfe": 2}


def _style_choice(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        _raise(InvalidArgument, "%s %r is invalid: one of %s" % (what, value, ", ".join(table)))


@_image_out
def style_transfer(content, style, dst=None, *, size=512, iterations=300, content_weight=1.0,
                   style_weight=300.0, tv_weight=0.0, pool="avg", init="content", seed=0,
                   history=10, optimizer="lbfgs", line_search="armijo", lr=0.0, tf32=True,
                   layer_norm=True, weights=None, progress=None, progress_every=10, bgr=True,
                   device=None):
    """Gatys neural style transfer (gip_style_transfer): renders `content` in the style of
    `style` with VGG19 features (content conv4_2, style conv1_1..conv5_1, normalised Gram
    matrices). `weights` is a .safetensors VGG19 (torchvision names, see gip.convert_vgg19);
    without it a seeded random VGG19 is used. The content's shorter side becomes `size` (None:
    keep the content's size). optimizer 'lbfgs' (line_search 'armijo', 'none' as
    torch.optim.LBFGS, or 'strong_wolfe') or 'adam' (lr: step, 0 for the default).
    `progress(info)` is called every `progress_every` iterations with a dict (iteration,
    iterations, evaluations, loss, content, style, tv, seconds); a true result stops early and the
    best image so far is returned. Ctrl-C stops too (the KeyboardInterrupt is raised after dst is
    written). Images are uint8 with 1, 3 or 4 channels, BGR(A) order by default as imread gives
    (bgr=False for RGB); the result is a uint8 (H, W, 3) image in the same order."""
    nums = (_int(iterations, "iterations"), _real(content_weight, "content_weight"),
            _real(style_weight, "style_weight"), _real(tv_weight, "tv_weight"))
    ints = (_int(seed, "seed"), _int(history, "history"))
    lr, every = _real(lr, "lr"), _int(progress_every, "progress_every")
    size = None if size is None else _int(size, "size")
    ctx, (c, s), up = _prep(device, (content, style))
    if bgr:
        c = cvt_color(c, COLOR_BGR2RGB if c.shape[-1] == 3 else COLOR_BGRA2RGBA, device=device) \
            if len(c.shape) == 3 else c
        s = cvt_color(s, COLOR_BGR2RGB if s.shape[-1] == 3 else COLOR_BGRA2RGBA, device=device) \
            if len(s.shape) == 3 else s
    h, w = c.shape[:2]
    ow, oh = (w, h) if size is None else _gip.style_output_size(w, h, size)
    out = _alloc(ctx, c, (oh, ow, 3), _np.uint8, None if bgr else dst, up)
    flags = (0 if layer_norm else 1) | (0 if tf32 else 2)
    _gip.style_transfer(ctx, c, s, out, *nums,
                        _style_choice(_STYLE_POOL, pool, "pool"),
                        _style_choice(_STYLE_INIT, init, "init"), *ints,
                        _style_choice(_STYLE_OPT, optimizer, "optimizer"),
                        _style_choice(_STYLE_LS, line_search, "line_search"), lr, flags, every,
                        None if weights is None else _os.fspath(weights), progress)
    if bgr:
        out = cvt_color(out, COLOR_RGB2BGR, dst if not up else None, device=device)
    return _finish(ctx, out, up, dst)


# ---- expressions and raw CUDA kernels ----------------------------------------------------------
@_image_out
def map(expr, inputs, dtype=None, *, scalars=None, dst=None, device=None):  # noqa: A001
    """Evaluates an expression per pixel and channel (docs/expressions.md): inputs are an array
    or a sequence of up to 8 arrays of the same shape, named in0, in1 ... (also a, b, ...; in0 is
    `in`); scalars {name: value}; dtype of the result defaults to the first input's."""
    if isinstance(inputs, (list, tuple)):
        srcs = tuple(inputs)
    else:
        srcs = (inputs,)
    if not 1 <= len(srcs) <= 8:
        _raise(InvalidArgument, "map: inputs must be an array or a sequence of 1 to 8 arrays, "
               "got %d" % len(srcs))
    ctx, ins, up = _prep(device, srcs)
    s0 = ins[0]
    out = _alloc(ctx, s0, s0.shape, _np.dtype(dtype) if dtype is not None else _dtype_of(s0),
                 dst, up)
    _gip.map(ctx, str(expr), tuple(ins), out, scalars)
    return _finish(ctx, out, up, dst)


@_image_out
def stencil(expr, src, dtype=None, *, radius=0, borderType=BORDER_DEFAULT, border_value=0.0,
            scalars=None, dst=None, device=None):
    """Evaluates a neighbourhood expression: in(dx, dy) is the pixel at offset (dx, dy) with the
    border rule applied outside the image; e.g. the 3x3 mean is
    '(in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in + in(1,0) + in(-1,1) + in(0,1) + in(1,1)) / 9'."""
    args = (_int(radius, "radius"), _border(borderType), _real(border_value, "border_value"))
    ctx, (s,), up = _prep(device, (src,))
    out = _alloc(ctx, s, s.shape, _np.dtype(dtype) if dtype is not None else _dtype_of(s), dst, up)
    _gip.stencil(ctx, str(expr), s, out, *args, scalars)
    return _finish(ctx, out, up, dst)


class Pointer:
    """A raw device pointer kernel argument (passed as is)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = _int(value, "Pointer value")


class Kernel:
    """A `extern "C" __global__` function of a Module. Call it with its arguments:
    gip.Image / CuPy / PyTorch CUDA arrays expand to (T *data, int width, int height,
    long long stride_bytes, int channels); numpy.int32/int64/float32/float64 scalars pass as
    those types, Python int as int32, Python float as float32, gip.Pointer as a raw pointer.
    grid defaults to one thread per pixel of the first image (or `size_from`), block to 16x16.
    Launches are queued on the device's stream; sync=True waits."""

    def __init__(self, module, name):
        self.module = module
        self.name = name
        self._cap = _gip.module_kernel(module._handle, name)

    def __call__(self, *args, grid=None, block=None, shared=0, size_from=None, sync=False):
        ctx = self.module.device.context
        conv = []
        for i, a in enumerate(args):
            if isinstance(a, Pointer):
                conv.append((_gip.ARG_PTR, a.value))
            elif isinstance(a, (bool, _np.bool_)):
                conv.append((_gip.ARG_I32, int(a)))
            elif isinstance(a, _np.int32):
                conv.append((_gip.ARG_I32, int(a)))
            elif isinstance(a, _np.int64):
                conv.append((_gip.ARG_I64, int(a)))
            elif isinstance(a, _np.float32):
                conv.append((_gip.ARG_F32, float(a)))
            elif isinstance(a, _np.float64):
                conv.append((_gip.ARG_F64, float(a)))
            elif isinstance(a, int):
                if not -2 ** 31 <= a < 2 ** 31:
                    _raise(InvalidArgument, "kernel argument %d: %d does not fit an int; pass "
                           "numpy.int64" % (i, a))
                conv.append((_gip.ARG_I32, a))
            elif isinstance(a, float):
                conv.append((_gip.ARG_F32, a))
            elif isinstance(a, _ndarray):
                _raise(LocationMismatch, "kernel argument %d is a host array; upload it with "
                       "gip.upload()" % i)
            else:
                conv.append((_gip.ARG_IMAGE, a))
        sf = -1
        if size_from is not None:
            sf = next((i for i, a in enumerate(args) if a is size_from), -1)
            if sf < 0:
                _raise(InvalidArgument, "size_from must be one of the image arguments")
        _gip.launch(ctx, self._cap, conv, _dim3(grid, "grid"), _dim3(block, "block"),
                    _int(shared, "shared"), sf)
        if sync:
            ctx.sync()


def _dim3(v, what):
    if v is None:
        return None
    if isinstance(v, (_numbers.Integral, _np.bool_)) or not hasattr(v, "__len__"):
        return (_int(v, what), 1, 1)
    v = tuple(_int(x, what) for x in v) + (1, 1, 1)
    return v[:3]


class Module:
    """CUDA C++ source compiled by NVRTC for a device (cached on disk); see gip.compile."""

    def __init__(self, source, name="kernel.cu", options=(), include_paths=(), *, cache=True,
                 device=None):
        dev = Device("auto" if device is None else device)
        self.device = dev
        self._options = [str(o) for o in options]
        self._includes = [str(p) for p in include_paths]
        self._handle = _gip.module_compile(dev.context, source, name, self._options,
                                           self._includes, not cache)
        self._kernels = {}

    @property
    def info(self):
        """dict: cache_hit, compute_capability, is_ptx, target, compile_seconds, load_seconds."""
        return _gip.module_info(self._handle)

    def get_function(self, name):
        """The kernel `name` (PyCUDA's spelling)."""
        k = self._kernels.get(name)
        if k is None:
            k = self._kernels[name] = Kernel(self, name)
        return k

    kernel = get_function
    __getitem__ = get_function


def compile(source, name="kernel.cu", options=(), include_paths=(), *, cache=True,  # noqa: A001
            device=None):
    """Compiles CUDA source for a GPU (device 'auto' = the default GPU) and returns a Module.
    Raises gip.NoDevice on a machine without a usable GPU."""
    return Module(source, name, options, include_paths, cache=cache, device=device)


def cache_dir():
    """The folder of the disk cache of compiled kernels."""
    return _gip.cache_dir()


# ---- pipelines and batches (include/gip/pipeline.h, docs/pipelines.md) -------------------------
_GIP_DTYPE = {1: _np.dtype(_np.uint8), 2: _np.dtype(_np.uint16), 3: _np.dtype(_np.int16),
              4: _np.dtype(_np.float32), 5: _np.dtype(_np.complex64)}
_STEP_DTYPE = {"u8": 1, "u16": 2, "s16": 3, "f32": 4}
_FORMATS = {None: 0, "auto": 0, "jpg": 1, "jpeg": 1, "png": 2, "pnm": 3, "ppm": 3, "pgm": 3}


def _step_dtype(dtype):
    if isinstance(dtype, str) and dtype in _STEP_DTYPE:
        return _STEP_DTYPE[dtype]
    if isinstance(dtype, int) and not isinstance(dtype, bool) and dtype in _DEPTH_TO_DTYPE:
        dtype = _DEPTH_TO_DTYPE[dtype]
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt not in _DTYPE_CODE or dt == _np.complex64:
        _raise(Unsupported, "pipeline: dtype %r: 'u8', 'u16', 's16', 'f32' (or the numpy dtypes)"
               % (dtype,))
    return _DTYPE_CODE[dt]


def _device_spec(device):
    """(backend, ordinal) of a pipeline's context: 'auto' follows default_device()."""
    dev = default_device() if device is None or device == "auto" else Device(device)
    return (1, 0) if dev.kind == "cpu" else (2, dev.index)


class Pipeline:
    """A chain of gip operations run on one context without host round trips between them
    (C: gip_pipeline). Build it from text (docs/pipelines.md) and/or with the step methods,
    which return the pipeline so that calls chain::

        p = gip.Pipeline("gaussian 15 | sobel dx=1")
        p = gip.Pipeline().gaussian(15).sobel(1, 0)
        out = p(img)                       # numpy in, numpy out (GPU: upload, run, download)
        p.run_file("in.jpg", "out.png")    # load, run, save atomically

    device: 'auto' (the default device when the pipeline is made: the first usable GPU, else the
    CPU), 'cpu', 'cuda', 'cuda:N' or a gip.Device. The pipeline owns its own context (and CUDA
    stream); device arrays given to it must be on its device and give gip.Image results on its
    stream. threads: CPU threads (0: OMP_NUM_THREADS where set, else every core). fusion=False
    runs every step as added (GIP_PIPELINE_NO_FUSION). Steps that name channels (gray, edges) take RGB order, as files
    are loaded by run_file()/run_batch(); use gip.imread(..., bgr=False) for arrays.
    A pipeline is not thread-safe (calls are serialised by a lock); it pickles as its recipe
    (steps, device spec, threads, fusion), so it can be sent to other processes (gip.dask)."""

    def __init__(self, text=None, device="auto", *, threads=0, fusion=True):
        self._spec = device if isinstance(device, (str, int, type(None))) else Device(device).name
        self._threads = _int(threads, "threads")
        self._fusion = bool(fusion)
        backend, index = _device_spec(device)
        self._h = _gip.pipeline_create(backend, index, self._threads, not self._fusion)
        self._recipe = []
        if text is not None:
            self.add(text)

    # -- building ------------------------------------------------------------------------------
    def _add(self, kind, *args):
        _gip.pipeline_add(self._h, kind, *args)
        # Recorded hashable: kernels as nested tuples, scalars as sorted (name, value) pairs.
        self._recipe.append((kind,) + tuple(
            tuple(tuple(r) for r in a.tolist()) if isinstance(a, _ndarray) else
            tuple(sorted(a.items())) if isinstance(a, dict) else a for a in args))
        return self

    def add(self, text):
        """Parses pipeline text ('gaussian 15 | sobel dx=1 | invert') and appends its steps.
        A syntax error raises gip.InvalidArgument (a ValueError) whose message is 'pipeline: at
        N: ...' with N the 1-based character position (also in .position); nothing is added."""
        _gip.pipeline_parse(self._h, str(text))
        self._recipe.append(("text", str(text)))
        return self

    parse = add

    def invert(self, max=None):  # noqa: A002 - the C parameter's name
        """max - x (255 - x for uint8, 65535 - x for uint16, max (default 1.0) - x for float32)."""
        return self._add("invert", 0.0 if max is None else _real(max, "max"))

    def gaussian(self, ksize, sigmaX=0, sigmaY=0, borderType=BORDER_DEFAULT, *, method="auto"):
        """cv2.GaussianBlur's step: ksize int or (w, h), odd or 0 (from sigma)."""
        kw, kh = _pair(ksize, "ksize")
        return self._add("gaussian", kw, kh, _real(sigmaX, "sigmaX"), _real(sigmaY, "sigmaY"),
                         _border(borderType),
                         0.0, _method(method))

    gaussian_blur = gaussian

    def box(self, ksize=3, normalize=True, anchor=(-1, -1), borderType=BORDER_DEFAULT):
        """cv2.boxFilter's step (same dtype out)."""
        kw, kh = _pair(ksize, "ksize")
        ax, ay = _pair(anchor, "anchor", "(x, y)")
        return self._add("box", kw, kh, ax, ay, bool(normalize), _border(borderType), 0.0)

    box_filter = box

    def filter2d(self, kernel, anchor=(-1, -1), delta=0, borderType=BORDER_DEFAULT, *,
                 method="auto"):
        """cv2.filter2D's step (same dtype out); the kernel is copied."""
        k = _np.ascontiguousarray(_np.asarray(kernel, dtype=_np.float32))
        if k.ndim == 1:
            k = k.reshape(1, -1)
        if k.ndim != 2:
            _raise(InvalidArgument, "filter2d: kernel must be 2-D, got shape %s" % (k.shape,))
        ax, ay = _pair(anchor, "anchor", "(x, y)")
        return self._add("filter2d", k, k.shape[1], k.shape[0], ax, ay, _real(delta, "delta"),
                         _border(borderType), 0.0, _method(method))

    def sobel(self, dx=1, dy=0, ksize=3, scale=1, delta=0, dtype="u8",
              borderType=BORDER_DEFAULT):
        """Sobel (ksize 1, 3, 5, 7, or -1 for Scharr) into dtype 'u8' (|x| saturated, as `gip
        sobel`; not cv2's CV_8U, which clips negatives), 's16' or 'f32'."""
        return self._add("sobel", _int(dx, "dx"), _int(dy, "dy"), _int(ksize, "ksize"),
                         _real(scale, "scale"), _real(delta, "delta"), _border(borderType), 0.0,
                         _step_dtype(dtype))

    def edges(self, ksize=3, scale=1, delta=0, borderType=BORDER_DEFAULT):
        """`gip edges`: gray (colour images), then the uint8 Sobel magnitude."""
        return self._add("edges", 1, 1, _int(ksize, "ksize"), _real(scale, "scale"),
                         _real(delta, "delta"), _border(borderType), 0.0)

    def gray(self):
        """RGB(A) to gray; 1-channel images pass unchanged."""
        return self._add("gray")

    def convert(self, dtype, alpha=1.0, beta=0.0):
        """saturate(x * alpha + beta) in dtype ('u8', 'u16', 's16', 'f32' or numpy dtypes)."""
        return self._add("convert", _step_dtype(dtype), _real(alpha, "alpha"),
                         _real(beta, "beta"))

    def map(self, expr, **scalars):  # noqa: A003
        """A per-pixel expression of the current image (`in` / `a`); keywords are scalars."""
        return self._add("map", str(expr), {k: _real(v, k) for k, v in scalars.items()})

    def stencil(self, expr, radius=0, borderType=BORDER_DEFAULT, border_value=0.0, **scalars):
        """A neighbourhood expression (in(dx, dy)) of the current image; keywords are scalars."""
        return self._add("stencil", str(expr), {k: _real(v, k) for k, v in scalars.items()},
                         _int(radius, "radius"), _border(borderType),
                         _real(border_value, "border_value"))

    def spectrum(self, log1p=False):
        """The centred log-magnitude spectrum (uint8, 1 channel); reads the whole image."""
        return self._add("spectrum", bool(log1p))

    # -- what it does ----------------------------------------------------------------------------
    def __len__(self):
        return _gip.pipeline_info(self._h)[0]

    @property
    def halo(self):
        """(rows, columns): pixels around an output pixel that the chain reads (the sum of the
        steps' kernel radii), or None when a step reads the whole image (spectrum)."""
        _, hx, hy = _gip.pipeline_info(self._h)
        return None if hx < 0 or hy < 0 else (int(hy), int(hx))

    @property
    def context(self):
        """The pipeline's own _gip.Context (CUDA stream, describe, sync)."""
        return self._h

    @property
    def device(self):
        """'cpu' or 'cuda:N': where the pipeline runs."""
        return "cpu" if self._h.backend == "cpu" else "cuda:%d" % self._h.device

    def describe(self, channels=3, dtype=_np.uint8):
        """One line: the plan for images of `channels` and `dtype`, fusions shown."""
        return _gip.pipeline_describe(self._h, _int(channels, "channels"),
                                      _DTYPE_CODE[_np.dtype(dtype)])

    def output_shape(self, shape, dtype=_np.uint8):
        """(shape, dtype) of the result for an input of numpy `shape` (H, W) or (H, W, C) and
        `dtype`, without computing. 1-channel results are (H, W) unless the input was
        (H, W, 1). Raises the error with which a step refuses the input."""
        shape = tuple(_int(x, "output_shape: shape") for x in shape)
        if len(shape) not in (2, 3):
            _raise(InvalidArgument, "output_shape: expected (H, W) or (H, W, C), got %s"
                   % (shape,))
        dt = _np.dtype(dtype)
        _check_dtype(dt)
        c = shape[2] if len(shape) == 3 else 1
        w, h, oc, odt = _gip.pipeline_output_shape(self._h, shape[1], shape[0], c,
                                                   _DTYPE_CODE[dt])
        if oc == 1 and (len(shape) == 2 or c != 1):
            return (h, w), _GIP_DTYPE[odt]
        return (h, w, oc), _GIP_DTYPE[odt]

    # -- running ---------------------------------------------------------------------------------
    @_image_out
    def run(self, src, dst=None):
        """Runs the chain on one image. Host arrays (numpy, buffers) give a numpy result, a host
        gip.Image a host gip.Image (on a CUDA pipeline: uploaded, run, downloaded in one call);
        device arrays
        (gip.Image, CuPy, PyTorch, __dlpack__ / __cuda_array_interface__) on the pipeline's
        device give a gip.Image queued on the pipeline's stream, without copies. dst: an
        output of the result's shape and dtype in the same place as src. The GIL is released."""
        kind, idx = ("cpu", 0) if isinstance(src, _ndarray) else _gip.where(src)
        on_dev = kind == "cuda"
        if on_dev and (self._h.backend != "cuda" or self._h.device != idx):
            _raise(LocationMismatch, "Pipeline.run: the input is on cuda:%d but the pipeline runs "
                   "on %s; make the pipeline there or move the input" % (idx, self.device))
        if isinstance(src, (Image, _ndarray)):
            s = src if on_dev or isinstance(src, _ndarray) else _np.asarray(src)
        else:
            s = _gip.asimage(self._h, src) if on_dev else _host_array(src)
        shape, dt = self.output_shape(s.shape, _dtype_of(s))
        if dst is None:
            if on_dev:
                h, w = shape[:2]
                c = shape[2] if len(shape) == 3 else 1
                dst = _gip.empty(self._h, h, w, c, _DTYPE_CODE[dt], len(shape), True)
            else:
                dst = _np.empty(shape, dt)
        _gip.pipeline_run(self._h, s, dst)
        return dst

    __call__ = run

    def run_file(self, input, output, *, quality=0, flags=IMREAD_COLOR, max_memory=0):  # noqa: A002
        """Loads `input` (8-bit RGB by default; flags as imread), runs the chain and writes
        `output` atomically (format from its extension; JPEG quality 1..100, 0 = 95).

        Host memory stays under `max_memory` bytes (0: half the physical memory): a larger image
        is streamed by rows through the chain (PNG, JPEG, PPM/PGM). On the CPU an image of at
        least two bands is decoded on a second thread while the chain and the encoder work.
        Returns how the file ran: "whole", "streamed" or "decoded ahead" (the output is the same
        either way)."""
        mode, keep, ignore = _load_mode(flags)
        how = _gip.pipeline_run_file(self._h, _os.fspath(input), _os.fspath(output),
                                     (mode, False, keep, ignore),
                                     (0, _int(quality, "quality"), 0, 0, 0, 0),
                                     _int(max_memory, "max_memory"))
        return ("whole", "streamed", "decoded ahead")[how]

    def sync(self):
        """Waits for the work queued on the pipeline's stream."""
        self._h.sync()

    def __repr__(self):
        return "gip.Pipeline(%s, device=%r)" % (self.describe(), self.device)

    def __reduce__(self):
        return (_pipeline_from_recipe, (tuple(self._recipe), self._spec, self._threads,
                                        self._fusion))

    @property
    def recipe(self):
        """The construction record (hashable): what __reduce__ rebuilds the pipeline from."""
        return (tuple(self._recipe), self._spec, self._threads, self._fusion)


def _pipeline_from_recipe(recipe, device="auto", threads=0, fusion=True):
    p = Pipeline(None, device, threads=threads, fusion=fusion)
    for item in recipe:
        if item[0] == "text":
            p.add(item[1])
        elif item[0] == "filter2d":
            p._add("filter2d", _np.asarray(item[1], _np.float32), *item[2:])
        elif item[0] in ("map", "stencil"):
            p._add(item[0], item[1], dict(item[2]), *item[3:])
        else:
            p._add(*item)
    return p


class BatchResult:
    """What run_batch() returns. ok: [(input, output)] written; skipped: [(input, output)]
    outputs that existed (overwrite=False); failed: [(input, reason)] (reason: libgip's
    message and status name); total; wall (s); stages: summed seconds per stage (read,
    decode, upload, compute, download, encode, write); peak_in_flight / in_flight_bound;
    device: the context it ran on; decoder: 'nvjpeg' or 'cpu'; decode_calls: decoder calls
    (files / decode_calls is the mean nvJPEG batch); setup: seconds spent creating the
    decoder's handles and states before the clock (not in wall).
    images_per_second = (written + skipped + failed) / wall.
    Picklable; BatchResult.merge() combines several (gip.dask)."""

    def __init__(self, ok=(), skipped=(), failed=(), total=0, wall=0.0, stages=None,
                 peak_in_flight=0, in_flight_bound=0, device="", decoder="cpu",
                 decode_calls=0, setup=0.0):
        self.ok = list(ok)
        self.skipped = list(skipped)
        self.failed = list(failed)
        self.total = int(total)
        self.wall = float(wall)
        self.stages = dict(stages or {})
        self.peak_in_flight = int(peak_in_flight)
        self.in_flight_bound = int(in_flight_bound)
        self.device = device
        self.decoder = decoder
        self.decode_calls = int(decode_calls)
        self.setup = float(setup)

    @property
    def images_per_second(self):
        n = len(self.ok) + len(self.skipped) + len(self.failed)
        return n / self.wall if self.wall > 0 else 0.0

    @classmethod
    def merge(cls, results, wall=None):
        """One result of several (wall: the elapsed time of the whole, default their maximum)."""
        r = cls()
        for x in results:
            r.ok += x.ok
            r.skipped += x.skipped
            r.failed += x.failed
            r.total += x.total
            for k, v in x.stages.items():
                r.stages[k] = r.stages.get(k, 0.0) + v
            r.peak_in_flight = max(r.peak_in_flight, x.peak_in_flight)
            r.in_flight_bound = max(r.in_flight_bound, x.in_flight_bound)
            r.wall = max(r.wall, x.wall)
            r.decode_calls += x.decode_calls
            r.setup = max(r.setup, x.setup)
            if x.decoder == "nvjpeg":
                r.decoder = "nvjpeg"
            if x.device and x.device not in r.device.split("; "):
                r.device = x.device if not r.device else r.device + "; " + x.device
        if wall is not None:
            r.wall = float(wall)
        return r

    def __repr__(self):
        return ("<gip.BatchResult total=%d ok=%d skipped=%d failed=%d wall=%.3fs>"
                % (self.total, len(self.ok), len(self.skipped), len(self.failed), self.wall))


def list_inputs(pattern):
    """The image files named by `pattern`: a folder's .jpg .jpeg .png .ppm .pgm .pnm files (not
    recursing) or the files a glob pattern matches, sorted (gip_batch_list_inputs)."""
    return _gip.batch_list_inputs(_os.fspath(pattern))


def run_batch(pipeline, inputs, out_dir, *, jobs=0, format=None, quality=0,  # noqa: A002
              overwrite=False, device="auto", streams=None, queue_depth=0, cpu_mode="auto",
              unchanged=False, progress=False, decoder="auto", decode_batch=0):
    """Runs a pipeline over many files with the batch engine (reading, decoding, computing,
    encoding and writing overlapped; gip_batch_run) and returns a BatchResult.

    pipeline: text (made on `device`) or a gip.Pipeline (run where it is, or rebuilt on
    `device` when one other than 'auto' is given). inputs: a list of paths, or a folder / glob
    pattern (list_inputs()). Outputs: out_dir/<input name>.<ext>, ext from format ('jpg', 'png', 'pnm';
    None: the input's if JPEG/PNG/PNM, else PNG); each written to an unnamed temporary file and
    linked into place when complete, so a killed process leaves only complete files. Existing
    outputs are skipped unless overwrite. A file that fails (unreadable, corrupt, refused by a
    step) is listed in .failed with its reason; the others go on. jobs: worker threads (0: one
    per core); streams: pipelines (CUDA streams) on the device (default 2 on CUDA, 1 on CPU);
    cpu_mode 'auto'|'inline'|'staged'; progress=True draws gip's progress line on stderr.
    decoder: 'auto' (nvJPEG on a CUDA pipeline when gip was built with it: JPEG files decode on
    the GPU, in batches of decode_batch files, default 16, and JPEG outputs encode there), 'cpu'
    (libjpeg-turbo, libpng) or 'nvjpeg' (an error on the CPU or without nvJPEG).
    The GIL is released while the batch runs. out_dir is created if missing."""
    if isinstance(pipeline, Pipeline):
        p = pipeline if device in (None, "auto") else _pipeline_from_recipe(
            pipeline.recipe[0], device, pipeline._threads, pipeline._fusion)
    else:
        p = Pipeline(str(pipeline), device)
    if isinstance(inputs, (str, bytes, _os.PathLike)):
        paths = list_inputs(inputs)
    else:
        paths = [_os.fspath(x) for x in inputs]
    if format not in _FORMATS:
        _raise(InvalidArgument, "run_batch: format %r: 'jpg', 'png', 'pnm' or None" % (format,))
    decoders = {"auto": 0, "cpu": 1, "nvjpeg": 2}
    if decoder not in decoders:
        _raise(InvalidArgument, "run_batch: decoder %r: 'auto', 'cpu' or 'nvjpeg'" % (decoder,))
    if not isinstance(decode_batch, int) or not 0 <= decode_batch <= 64:
        _raise(InvalidArgument, "run_batch: decode_batch %r: 0 (default) or 1..64"
               % (decode_batch,))
    modes = {"auto": 0, "inline": 1, "staged": 2}
    if cpu_mode not in modes:
        _raise(InvalidArgument, "run_batch: cpu_mode %r: 'auto', 'inline' or 'staged'"
               % (cpu_mode,))
    if streams is None:
        streams = 2 if p.device != "cpu" else 1
    out_dir = _os.fspath(out_dir)
    _os.makedirs(out_dir, exist_ok=True)
    if not paths:
        return BatchResult(device=p.context.describe)
    r = _gip.batch_run(p._h, paths, out_dir, _int(jobs, "jobs"),
                       _int(queue_depth, "queue_depth"), _FORMATS[format],
                       _int(quality, "quality"), bool(overwrite), bool(unchanged),
                       modes[cpu_mode], _int(streams, "streams"), bool(progress),
                       decoders[decoder], _int(decode_batch, "decode_batch"))
    res = BatchResult(total=r["total"], wall=r["wall"], stages=r["stages"],
                      peak_in_flight=r["peak_in_flight"], in_flight_bound=r["in_flight_bound"],
                      device=r["device"], decoder=r["decoder"], decode_calls=r["decode_calls"],
                      setup=r["setup"])
    for inp, out, status, message, skipped in r["files"]:
        if status != "GIP_OK":
            res.failed.append((inp, "%s (%s)" % (message, status)))
        elif skipped:
            res.skipped.append((inp, out))
        else:
            res.ok.append((inp, out))
    return res


# cv2-style aliases, for drop-in use.
boxFilter = box_filter
filter2D = filter2d
Sobel = sobel
Scharr = scharr
GaussianBlur = gaussian_blur
cvtColor = cvt_color

__all__ = [n for n in dir() if not n.startswith("_")] + list(_errors_all)
