# SPDX-License-Identifier: MIT
"""Pipelines and batches (include/gip/pipeline.h, docs/pipelines.md): gip.Pipeline, whose steps
are registered operations (one method per operation, generated where no cv2-style method exists),
and the batch engine over many files (run_batch, list_inputs, BatchResult)."""
import os as _os

import numpy as _np

from . import _gip
from ._core import (BORDER_DEFAULT, IMREAD_COLOR, _CODE_DTYPE, _DEPTH_TO_DTYPE, _DTYPE_CODE,
                    _DTYPE_NAME, Device, Image, InvalidArgument, LocationMismatch, Unsupported,
                    _check_dtype, _dtype_of, _host_array, _image_out, _int, _ndarray, _raise,
                    _real, default_device)
from ._cv2 import (_border_name, _border_value, _box_params, _filter_params, _gaussian_params,
                   _sobel_params)
from ._io import _load_mode
from ._registry import _args, _function, _table


_STEP_DTYPE = ("u8", "u16", "s16", "f32")
_FORMATS = {None: 0, "auto": 0, "jpg": 1, "jpeg": 1, "png": 2, "pnm": 3, "ppm": 3, "pgm": 3}


def _step_dtype(dtype):
    """A step's dtype as the registry names it: 'u8', 'u16', 's16', 'f32', a numpy dtype or a
    CV_ depth."""
    if isinstance(dtype, str) and dtype in _STEP_DTYPE:
        return dtype
    if isinstance(dtype, int) and not isinstance(dtype, bool) and dtype in _DEPTH_TO_DTYPE:
        dtype = _DEPTH_TO_DTYPE[dtype]
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or _DTYPE_NAME.get(dt) not in _STEP_DTYPE:
        _raise(Unsupported, "pipeline: dtype %r: 'u8', 'u16', 's16', 'f32' (or the numpy dtypes)"
               % (dtype,))
    return _DTYPE_NAME[dt]


def _frozen(v):
    """A parameter value as a hashable, picklable recipe entry."""
    if isinstance(v, _ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    if isinstance(v, _np.dtype):
        return v.name
    return v


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
    def step(self, name, /, **params):
        """Appends the registered operation `name` with its parameters, as gip.apply takes them
        (gip.ops() and docs/operations.md list them), e.g. ``p.step("gaussian", ksize=15)``.
        Every operation is also a method of its name: ``p.flip(1)``. The registry checks the
        arguments (gip.InvalidArgument with its message); nothing is added on an error."""
        a = _args(name, params)
        _gip.pipeline_add_op(self._h, a)
        self._recipe.append(("op", name, _frozen({k: v for k, v in params.items()
                                                  if v is not None})))
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
        return self.step("invert", max=None if max is None else _real(max, "max"))

    def gaussian(self, ksize, sigmaX=0, sigmaY=0, borderType=BORDER_DEFAULT, *, method="auto"):
        """cv2.GaussianBlur's step: ksize int or (w, h), odd or 0 (from sigma)."""
        return self.step("gaussian", **_gaussian_params(ksize, sigmaX, sigmaY, borderType,
                                                        method))

    gaussian_blur = gaussian

    def box(self, ksize=3, normalize=True, anchor=(-1, -1), borderType=BORDER_DEFAULT):
        """cv2.boxFilter's step (same dtype out)."""
        return self.step("box", **_box_params(ksize, anchor, normalize, borderType))

    box_filter = box

    def filter2d(self, kernel, anchor=(-1, -1), delta=0, borderType=BORDER_DEFAULT, *,
                 method="auto"):
        """cv2.filter2D's step (same dtype out); the kernel is copied."""
        return self.step("filter", **_filter_params(kernel, anchor, delta, borderType, method))

    def sobel(self, dx=1, dy=0, ksize=3, scale=1, delta=0, dtype="u8",
              borderType=BORDER_DEFAULT):
        """Sobel (ksize 1, 3, 5, 7, or -1 for Scharr) into dtype 'u8' (|x| saturated, as `gip
        sobel`; not cv2's CV_8U, which clips negatives), 'u16', 's16' or 'f32'."""
        return self.step("sobel", dx=_int(dx, "dx"), dy=_int(dy, "dy"), dtype=_step_dtype(dtype),
                         **_sobel_params(ksize, scale, delta, borderType))

    def edges(self, ksize=3, scale=1, delta=0, borderType=BORDER_DEFAULT):
        """`gip edges`: gray (colour images), then the uint8 Sobel magnitude."""
        return self.step("edges", **_sobel_params(ksize, scale, delta, borderType))

    def gray(self):
        """RGB(A) to gray; 1-channel images pass unchanged."""
        return self.step("gray")

    def convert(self, dtype, alpha=1.0, beta=0.0):
        """saturate(x * alpha + beta) in dtype ('u8', 'u16', 's16', 'f32' or numpy dtypes)."""
        return self.step("convert", dtype=_step_dtype(dtype), scale=_real(alpha, "alpha"),
                         offset=_real(beta, "beta"))

    def map(self, expr, **scalars):  # noqa: A003
        """A per-pixel expression of the current image (`in` / `a`); keywords are scalars."""
        return self.step("map", expr=str(expr), **scalars)

    def stencil(self, expr, radius=0, borderType=BORDER_DEFAULT, border_value=0.0, **scalars):
        """A neighbourhood expression (in(dx, dy)) of the current image; keywords are scalars."""
        return self.step("stencil", expr=str(expr), radius=_int(radius, "radius"),
                         border=_border_name(borderType),
                         border_value=_border_value(borderType, border_value), **scalars)

    def spectrum(self, log1p=False):
        """The centred log-magnitude spectrum (uint8, 1 channel); reads the whole image."""
        return self.step("spectrum", log1p=bool(log1p))

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
            return (h, w), _CODE_DTYPE[odt]
        return (h, w, oc), _CODE_DTYPE[odt]

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

        Host memory stays under `max_memory` bytes (0: the default limit, GIP_MAX_MEMORY or a
        quarter of the memory): a larger image
        is streamed by rows through the chain (PNG, JPEG, PPM/PGM). On the CPU an image of at
        least two bands is decoded on a second thread while the chain and the encoder work.
        Returns how the file ran: "whole", "streamed" or "decoded ahead" (the output is the same
        either way)."""
        mode, keep, ignore, reduce = _load_mode(flags)
        if reduce > 1:
            _raise(InvalidArgument, "run_file: the IMREAD_REDUCED_* flags are not taken here; "
                   "put a resize or thumbnail step in the chain")
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
        else:
            p.step(item[1], **dict(item[2]))
    return p


def _step_method(name, pipeline, params):
    return pipeline.step(name, **params)


# Every registered operation without a method of its own is a method of its name.
for _name, _desc in _table().items():
    if _name.isidentifier() and not hasattr(Pipeline, _name):
        _m = _function(_desc, _step_method, first="self", extras=(), first_doc=[],
                       extras_doc=[], returns=["The pipeline (calls chain)."],
                       call="Pipeline.step(%r, ...)" % _name)
        _m.__module__ = __name__
        _m.__qualname__ = "Pipeline." + _name
        setattr(Pipeline, _name, _m)
del _name, _desc


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
