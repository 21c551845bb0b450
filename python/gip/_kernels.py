# SPDX-License-Identifier: MIT
"""Runtime CUDA kernels (gip/kernel.h): CUDA C++ compiled by NVRTC into a Module, whose kernels
are called with gip.Images, CuPy and PyTorch arrays and scalars, PyCUDA-style."""
import numbers as _numbers

import numpy as _np

from . import _gip
from ._core import (Device, InvalidArgument, LocationMismatch, _int, _ndarray, _raise)


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
