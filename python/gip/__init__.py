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

Operations
    Every operation of libgip's registry (``gip.ops()``, docs/operations.md) runs through
    ``gip.apply(name, img, **params)`` and is a function of its name in ``gip.op`` (also
    ``gip.NAME`` where no cv2-named function has that name), a ``gip.Pipeline`` step and a
    ``gip.dask`` function, each generated from the operation's description with its checks,
    messages and docstring. The cv2-named functions translate cv2's arguments into the
    registry's.

The package's modules: _core (constants, errors, devices, calls), _io (files), _cv2 (cv2-named
functions), _registry (the registry, apply, generated functions), op, _pipeline (pipelines and
batches), _kernels (runtime CUDA kernels), _style (style transfer).
"""

import builtins as _builtins

from . import _cudalibs  # noqa: F401 - where the CUDA libraries of NVIDIA's wheels are
from . import _gip, op
from ._core import *  # noqa: F401,F403 - constants, devices, upload, asimage, Image
from ._core import __all__ as _core_all
from ._core import _int, _raise, _real  # noqa: F401 - used by gip.dask
from ._cv2 import *  # noqa: F401,F403 - the cv2-named functions
from ._cv2 import __all__ as _cv2_all
from ._colorops import *  # noqa: F401,F403 - cv2's colour and per-pixel functions
from ._colorops import __all__ as _colorops_all
from ._errors import *  # noqa: F401,F403
from ._geometry import *  # noqa: F401,F403 - resize, warps ... with cv2's names
from ._geometry import __all__ as _geometry_all
from ._errors import __all__ as _errors_all
from ._io import imdecode, imencode, imread, imwrite
from ._loader import Loader  # noqa: F401 - the batch loader (gip/loader.h)
from ._morph import *  # noqa: F401,F403 - morphology with cv2's names
from ._morph import __all__ as _morph_all
from ._kernels import Kernel, Module, Pointer, cache_dir, compile  # noqa: A004
from ._pipeline import BatchResult, Pipeline, list_inputs, run_batch
from ._pipeline import _pipeline_from_recipe  # noqa: F401 - used by gip.dask
from ._registry import apply, explain, op_info, ops
from ._style import style_transfer
from ._stats import *  # noqa: F401,F403 - statistics (cv2's names)
from ._stats import __all__ as _stats_all

__version__ = _gip.version()

# Every registered operation whose name no function above has is gip.NAME as well (gip.gaussian,
# gip.box, gip.flip ...); the others are gip.op.NAME.
for _name in op.__all__:
    if _name not in globals():
        globals()[_name] = getattr(op, _name)
del _name

__all__ = sorted(set(_core_all + _cv2_all + _morph_all + _geometry_all + _colorops_all + _stats_all + list(_errors_all) + [
    "imdecode", "imencode", "imread", "imwrite", "Kernel", "Module", "Pointer", "cache_dir",
    "compile", "BatchResult", "Pipeline", "list_inputs", "run_batch", "apply", "explain", "op_info",
    "ops",
    "style_transfer", "op"] + [n for n in op.__all__ if globals().get(n) is getattr(op, n)
                               and not hasattr(_builtins, n)]))  # gip.filter, not import *
