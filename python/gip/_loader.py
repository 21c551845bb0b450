# SPDX-License-Identifier: MIT
"""gip.Loader: JPEG files (or encoded bytes) in, batches of cropped, augmented and normalised
NCHW/NHWC tensors out, for training and inference (the C loader, gip/loader.h). The images reach
PyTorch, CuPy, JAX or numpy through DLPack without a copy."""
import os as _os

import numpy as _np

from . import _gip
from ._core import Device, InvalidArgument, InvalidType, _raise

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

_MODES = {"eval": 0, "train": 1, "letterbox": 2}
_LAYOUTS = {"NCHW": 0, "NHWC": 1}
_DTYPES = {"float16": 0, "bfloat16": 1, "float32": 2, "uint8": 3}
_OUTPUTS = ("torch", "cupy", "jax", "numpy", "gip")


def _dtype_name(dtype):
    """'float16' for 'float16', numpy.float16, torch.float16 ..."""
    if isinstance(dtype, str):
        name = dtype
    else:
        name = str(getattr(dtype, "name", None) or dtype)
        name = name.replace("torch.", "").replace("<class 'numpy.", "").rstrip("'>")
    name = {"half": "float16", "fp16": "float16", "f16": "float16", "bf16": "bfloat16",
            "float": "float32", "fp32": "float32", "f32": "float32", "u8": "uint8"}.get(name, name)
    if name not in _DTYPES:
        _raise(InvalidArgument, "dtype %r: expected 'float16', 'bfloat16', 'float32' or 'uint8'"
               % (dtype,))
    return name


def _sources(files):
    """A list of paths (str) or of bytes: from a folder, a glob pattern, or a sequence."""
    if isinstance(files, (str, bytes, _os.PathLike)) and not isinstance(files, bytes):
        return list(_gip.batch_list_inputs(_os.fspath(files)))
    try:
        items = list(files)
    except TypeError:
        _raise(InvalidType, "files: expected a folder, a glob pattern or a sequence of paths or "
               "bytes, not %s" % type(files).__name__)
    out = []
    for i, f in enumerate(items):
        if isinstance(f, (bytes, bytearray, memoryview)):
            out.append(bytes(f))
        elif isinstance(f, (str, _os.PathLike)):
            out.append(_os.fspath(f))
        else:
            _raise(InvalidType, "files[%d] is %s: expected a path or bytes" % (i, type(f).__name__))
    if out and len({isinstance(f, bytes) for f in out}) > 1:
        _raise(InvalidType, "files: mix of paths and bytes; give one kind")
    return out


def _triple(v, what):
    try:
        t = tuple(float(x) for x in v)
    except TypeError:
        t = (float(v),) * 3
    if len(t) != 3:
        _raise(InvalidArgument, "%s: expected 3 numbers (R, G, B), got %d" % (what, len(t)))
    return t


def _default_output():
    try:
        import torch  # noqa: F401
        return "torch"
    except ImportError:
        return "numpy"


class Loader:
    """Batches of images for training and inference, decoded, cropped, augmented and normalised
    by gip's C loader on worker threads (and, with device='cuda', normalised and laid out on the
    GPU), handed to PyTorch (or CuPy, JAX, numpy) through DLPack without a copy.

    Iterating gives ``(images, indices)`` per batch, or ``(images, labels, indices)`` when
    ``labels`` are given: images of shape (n, 3, size, size) for NCHW, (n, size, size, 3) for
    NHWC; indices (int64) of the files in ``files``. One pass is one epoch; the next pass is the
    next epoch (reshuffled when ``shuffle``), or the epoch named by :meth:`set_epoch`.

    files: a folder (its .jpg .jpeg .png .ppm .pgm .pnm files, sorted), a glob pattern, or a
    sequence of paths or of encoded bytes. train=True: RandomResizedCrop(size, scale, ratio) as
    torchvision defines it, flip with probability hflip (default 0.5), shuffle and drop_last on
    by default; train=False: Resize(resize) + CenterCrop(size) (resize default size * 256 / 224).
    mode='letterbox' fits the whole image on a `fill` background. brightness, contrast,
    saturation: torchvision's ColorJitter. mean, std: (pixel / 255 - mean) / std per RGB channel
    (ImageNet's by default; None for uint8 output). Resizing is bilinear with antialias (as
    torchvision's antialias=True). device: 'cpu', 'cuda', 'cuda:N' or None (the GPU when there
    is one). shard=(rank, world): torch DistributedSampler's split (padded by wrapping). seed:
    every random draw is keyed by (seed, epoch, file index): the same batches for any threads,
    prefetch depth and device. on_error='raise' raises the error naming the file (the next
    iteration goes on with the following batch); 'skip' leaves the file out of its batch.
    output: 'torch' (default when torch imports), 'cupy', 'jax', 'numpy', or 'gip' (the
    LoaderBatch, a DLPack exporter). decoder='nvjpeg' (device='cuda' only) decodes JPEGs with
    nvJPEG and crops and resizes on the GPU (pixels within nvJPEG's IDCT difference of the CPU
    decoder's; no colour jitter); 'cpu' (default) decodes with libjpeg-turbo on the threads. close() (or leaving a ``with`` block, or garbage collection)
    stops the worker threads."""

    def __init__(self, files, batch_size=256, size=224, train=True, mean=IMAGENET_MEAN,
                 std=IMAGENET_STD, device=None, dtype="float16", layout="NCHW", seed=0,
                 shard=(0, 1), *, shuffle=None, drop_last=None, hflip=None, scale=(0.08, 1.0),
                 ratio=(3.0 / 4.0, 4.0 / 3.0), resize=None, mode=None, fill=0, brightness=0.0,
                 contrast=0.0, saturation=0.0, labels=None, prefetch=2, threads=None,
                 on_error="raise", output=None, decoder="cpu"):
        self._c = None
        srcs = _sources(files)
        if not srcs:
            _raise(InvalidArgument, "files: no images found in %r" % (files,))
        self._nfiles = len(srcs)
        if mode is None:
            mode = "train" if train else "eval"
        if mode not in _MODES:
            _raise(InvalidArgument, "mode %r: expected 'train', 'eval' or 'letterbox'" % (mode,))
        train = mode == "train"
        dname = _dtype_name(dtype)
        if layout not in _LAYOUTS:
            _raise(InvalidArgument, "layout %r: expected 'NCHW' or 'NHWC'" % (layout,))
        if dname == "uint8":
            if mean not in (None, IMAGENET_MEAN) or std not in (None, IMAGENET_STD):
                _raise(InvalidArgument, "mean and std apply to float outputs; uint8 output "
                       "must leave them None")
            m, s = (0.0,) * 3, (0.0,) * 3
        else:
            m = (0.0,) * 3 if mean is None else _triple(mean, "mean")
            s = (1.0,) * 3 if std is None else _triple(std, "std")
            if any(not v > 0 for v in s):
                _raise(InvalidArgument, "std %r: every value must be > 0" % (std,))
        try:
            rank, world = (int(v) for v in shard)
        except (TypeError, ValueError):
            _raise(InvalidArgument, "shard %r: expected (rank, world)" % (shard,))
        if world < 1 or not 0 <= rank < world:
            _raise(InvalidArgument, "shard %r: need 0 <= rank < world" % (shard,))
        if decoder not in ("cpu", "nvjpeg"):
            _raise(InvalidArgument, "decoder %r: expected 'cpu' or 'nvjpeg'" % (decoder,))
        if on_error not in ("raise", "skip"):
            _raise(InvalidArgument, "on_error %r: expected 'raise' or 'skip'" % (on_error,))
        if output is None:
            output = _default_output()
        if output not in _OUTPUTS:
            _raise(InvalidArgument, "output %r: expected one of %s" % (output, ", ".join(_OUTPUTS)))
        if dname == "bfloat16" and output == "numpy":
            _raise(InvalidArgument, "numpy has no bfloat16: use output='torch' or another dtype")
        dev = Device(device)
        if output == "numpy" and dev.kind == "cuda":
            _raise(InvalidArgument, "output='numpy' needs device='cpu' (the batches are on %s)"
                   % dev.name)
        for name, v in (("batch_size", batch_size), ("size", size), ("prefetch", prefetch)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                _raise(InvalidArgument, "%s %r: expected an int >= 1" % (name, v))
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                    or threads < 1):
            _raise(InvalidArgument, "threads %r: expected an int >= 1 or None" % (threads,))
        if resize is not None and (isinstance(resize, bool) or not isinstance(resize, int)):
            _raise(InvalidArgument, "resize %r: expected an int or None" % (resize,))
        self._labels = None if labels is None else [int(v) for v in labels]
        self.output = output
        self.device = dev
        self.batch_size = batch_size
        self.dtype = dname
        self.layout = layout
        self.shuffle = train if shuffle is None else bool(shuffle)
        self.drop_last = train if drop_last is None else bool(drop_last)
        p_flip = (0.5 if train else 0.0) if hflip is None else float(hflip)
        self._c = _gip.Loader(
            1 if dev.kind == "cpu" else 2, max(dev.index, 0), srcs, self._labels, batch_size,
            size, resize or 0, _MODES[mode], tuple(float(v) for v in scale),
            tuple(float(v) for v in ratio), int(fill), p_flip,
            (float(brightness), float(contrast), float(saturation)), m, s, _LAYOUTS[layout],
            _DTYPES[dname], int(seed) & 0xFFFFFFFFFFFFFFFF, int(self.shuffle), rank, world,
            int(self.drop_last), prefetch, threads or 0, 1 if on_error == "skip" else 0,
            1 if decoder == "nvjpeg" else 0)
        self._started = 0      # the C loader's epoch (it prepares it from the start)
        self._fresh = True     # the C loader is at batch 0 of self._started, nothing taken
        self._epoch = 0        # the epoch the next pass runs
        self.last_skipped = []  # (batch number, message) of files left out in the last pass

    # ---- the user's API ----
    def __len__(self):
        """Batches per epoch on this shard."""
        return self._c_or_raise().lengths()[0]

    @property
    def samples(self):
        """Images per epoch on this shard (ceil(files / world))."""
        return self._c_or_raise().lengths()[1]

    @property
    def epoch(self):
        """The epoch the next pass runs."""
        return self._epoch

    def set_epoch(self, epoch):
        """Makes the next pass run `epoch` (as DistributedSampler.set_epoch)."""
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
            _raise(InvalidArgument, "epoch %r: expected an int >= 0" % (epoch,))
        self._epoch = epoch

    def stats(self):
        """Where the time went so far: images, skipped, batches, and seconds of read, decode,
        transform (summed over the worker threads) and handover (waiting in the iterator, upload
        and the device pass)."""
        return self._c_or_raise().stats()

    def close(self):
        """Stops the worker threads. Batches already handed out stay valid."""
        if self._c is not None:
            self._c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        c = getattr(self, "_c", None)
        if c is not None:
            c.close()

    def __iter__(self):
        c = self._c_or_raise()
        epoch = self._epoch
        if not (self._fresh and self._started == epoch):
            c.set_epoch(epoch)
        self._started, self._fresh = epoch, False
        self.last_skipped = []
        return _Pass(self, c, epoch)

    def __repr__(self):
        return ("gip.Loader(%d files, batch_size=%d, %s %s on %s, output=%r)"
                % (self._nfiles, self.batch_size, self.dtype, self.layout, self.device.name,
                   self.output))

    # ---- helpers ----
    def _c_or_raise(self):
        if self._c is None:
            _raise(InvalidArgument, "the loader is closed")
        return self._c

    def _converter(self):
        if self.output == "torch":
            import torch
            return torch.from_dlpack
        if self.output == "cupy":
            import cupy
            return cupy.from_dlpack
        if self.output == "jax":
            import jax.numpy as jnp
            return jnp.from_dlpack
        if self.output == "numpy":
            return _np.from_dlpack
        return lambda b: b


class _Pass:
    """One epoch of a Loader. A batch that fails (on_error='raise') raises from next(); calling
    next() again goes on with the following batch."""

    def __init__(self, loader, c, epoch):
        self._loader, self._c, self._epoch = loader, c, epoch
        self._convert = loader._converter()
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        ld = self._loader
        if self._done:
            raise StopIteration
        if ld._c is None:
            _raise(InvalidArgument, "the loader is closed")
        r = self._c.next()
        if r is not None and r[0] is None:  # the end, after skipped files
            ld.last_skipped.append((r[6], r[4]))
            r = None
        if r is None:
            self._done = True
            if ld._started == self._epoch:  # the C loader has begun the next epoch
                ld._epoch = self._epoch + 1
                ld._started, ld._fresh = self._epoch + 1, True
            raise StopIteration
        batch, idx, lab, skipped, msg, _, number = r
        if skipped:
            ld.last_skipped.append((number, msg))
        images = self._convert(batch)
        indices = _np.frombuffer(idx, dtype=_np.int64)
        labels = None if lab is None else _np.frombuffer(lab, dtype=_np.int64)
        if ld.output == "torch":
            import torch
            indices = torch.from_numpy(indices.copy())
            labels = None if labels is None else torch.from_numpy(labels.copy())
        return (images, indices) if labels is None else (images, labels, indices)
