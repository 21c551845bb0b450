# SPDX-License-Identifier: MIT
"""gip on Dask: pipelines over many files on a ``distributed`` cluster, gip filters on chunked
dask arrays, and ``python -m gip.dask run`` (what ``gip run --scheduler`` executes).

Needs the optional extra: ``pip install 'gip[dask]'`` (dask[array] and distributed).

Files
    :func:`run_files` splits the inputs into tasks of several files; each task runs gip's batch
    engine (:func:`gip.run_batch`) on the worker that gets it, which writes the outputs itself,
    atomically (an unnamed temporary file linked into place when complete), so a worker killed
    mid-task leaves only complete images and Dask's retry of the task skips the outputs that
    exist. Each worker uses its own GPU when it has one (``device='auto'``; dask-cuda's
    LocalCUDACluster gives each worker one GPU through CUDA_VISIBLE_DEVICES), else the CPU.
    Results, failures (with their reasons) and timings come back as one :class:`gip.BatchResult`.

Arrays
    :func:`apply` runs any registered operation (``gip.dask.apply("gaussian", arr, ksize=15)``;
    every operation is also ``gip.dask.NAME``, generated from the registry, and
    :func:`gaussian_blur`, :func:`box_filter`, :func:`sobel`, :func:`filter2d`, :func:`invert`,
    :func:`edges` take cv2's arguments) and :func:`map_pipeline` a whole pipeline on every chunk
    of an (H, W) or (H, W, C) dask array chunked in H and W, through ``map_overlap`` with
    ``depth`` = the halo (the operation's, gip_op_halo, or the sum of the pipeline's) and
    ``boundary='none'``: the outer edges of the edge chunks are the image's edges, where gip's
    own border mode applies, and interior edges get real neighbours, so the result equals the
    operation on the whole image. Chunks smaller than the halo are merged with their neighbours
    first (map_overlap needs depth <= chunk size). Operations that change the size and declare
    row bands (resize, thumbnail: ``banded`` in :func:`gip.ops`) run by output row chunks, each
    computed from only the input rows it reads, equal to the whole-image result. Other
    operations that read the whole image (spectrum) are refused, or run on one chunk with
    ``single_chunk=True``. CuPy-backed arrays
    stay on the GPU: chunks go to gip without a copy (__cuda_array_interface__) and come back as
    CuPy arrays.
"""
import argparse
import math
import os
import sys
import threading
import time

try:
    import dask
    import dask.array as da
except ImportError as e:  # pragma: no cover - depends on the environment
    if __name__ == "__main__":  # python -m gip.dask (gip run --scheduler): a message, not a trace
        sys.stderr.write("gip run --scheduler: the gip.dask module needs dask[array] and "
                         "distributed: pip install 'gip[dask]' (%s)\n" % e)
        sys.exit(1)
    raise ImportError("gip.dask needs dask[array] and distributed: pip install 'gip[dask]' (or "
                      "pip install 'dask[array]' distributed): %s" % e) from e

import numpy as np

import gip
from gip import _cv2, _gip, _registry
from gip._core import _DTYPE_CODE, _upload
from gip._pipeline import _step_dtype

__all__ = ["run_files", "apply", "map_pipeline", "gaussian_blur", "box_filter", "sobel",
           "filter2d", "invert", "edges", "main"]


# ---- pipelines on workers ------------------------------------------------------------------------
_local = threading.local()


def _pipeline(recipe, device, threads):
    """The calling thread's pipeline for a recipe (a pipeline is used by one thread at a time;
    it keeps its buffers between chunks of one shape)."""
    cache = getattr(_local, "pipes", None)
    if cache is None:
        cache = _local.pipes = {}
    key = (recipe, device, threads)
    p = cache.get(key)
    if p is None:
        if len(cache) > 16:
            cache.clear()
        p = cache[key] = gip._pipeline_from_recipe(recipe, device, threads)
    return p


def _as_pipeline(pipeline):
    if isinstance(pipeline, gip.Pipeline):
        return pipeline
    return gip.Pipeline(str(pipeline), device="cpu")  # for checking and shapes only


# ---- arrays ------------------------------------------------------------------------------------
def _fit_chunks(chunks, depth):
    """Chunks of one axis merged so that each is >= depth (map_overlap's requirement); a single
    chunk needs no overlap. Returns (chunks, depth)."""
    chunks = tuple(int(c) for c in chunks)
    if depth == 0 or len(chunks) == 1:
        return chunks, (0 if len(chunks) == 1 else depth)
    if min(chunks) >= depth:
        return chunks, depth
    out, acc = [], 0
    for c in chunks:
        acc += c
        if acc >= depth:
            out.append(acc)
            acc = 0
    if acc:
        if out:
            out[-1] += acc
        else:
            out.append(acc)
    return tuple(out), (0 if len(out) == 1 else depth)


def _is_cupy(a):
    m = getattr(a, "_meta", a)
    return type(m).__module__.split(".")[0] == "cupy"


def _worker_host():
    """This worker's host as the scheduler names it, or None outside a distributed worker."""
    try:
        from distributed import get_worker
        return get_worker().address.split("://")[-1].rsplit(":", 1)[0]
    except (ImportError, ValueError):
        return None


def _share_cores(host_threads):
    """CPU threads for one task: the host's cores divided among its workers' threads."""
    threads = host_threads.get(_worker_host(), 1) if host_threads else 1
    return max(1, (os.cpu_count() or 1) // max(1, threads))


def _threads_and_hosts(threads):
    """threads as given, or None with the cluster's threads per host (the tasks divide each
    host's cores among them), or 1 without a cluster."""
    if threads is not None:
        return threads, None
    try:
        from distributed import default_client
        hosts = _host_threads(default_client())
    except (ImportError, ValueError):
        hosts = None
    return (1 if hosts is None else None), hosts


def _run_block(block, recipe=None, device="auto", threads=1, host_threads=None):
    if threads is None:
        threads = _share_cores(host_threads)
    if 0 in block.shape:  # an empty block: only its shape and dtype matter
        shape, dt = _pipeline(recipe, "cpu", threads).output_shape(
            (1, 1) + tuple(block.shape[2:]), block.dtype)
        return np.empty(tuple(block.shape[:2]) + tuple(shape[2:]), dt)
    if _is_cupy(block):
        import cupy
        dev = device
        if dev in (None, "auto"):
            dev = "cuda:%d" % block.device.id
        out = _pipeline(recipe, dev, threads)(block)
        return cupy.asarray(out)
    if not (block.flags.c_contiguous and block.flags.aligned):
        # Blocks deserialised from a frame can start at any byte; gip needs element alignment.
        block = np.array(block, order="C", copy=True)
    return _pipeline(recipe, device, threads)(block)


def _run_band(piece, name=None, params=None, s0=0, shape=None, y0=0, y1=0, out_shape=None,
              out_dtype=None, device="auto", threads=1, host_threads=None):
    """Output rows [y0, y1) of operation `name` on an image of `shape` from `piece`, its rows
    [s0, s0 + len(piece)) (gip_op_apply_band)."""
    if threads is None:
        threads = _share_cores(host_threads)
    if _is_cupy(piece):
        import cupy
        dev = device if device not in (None, "auto") else "cuda:%d" % piece.device.id
    else:
        cupy = None
        dev = device
        if not (piece.flags.c_contiguous and piece.flags.aligned):
            piece = np.array(piece, order="C", copy=True)
    p = _pipeline((("op", name, tuple(sorted(params.items()))),), dev, threads)
    a = _registry._args(name, dict(params))
    h, w = shape[:2]
    c = shape[2] if len(shape) == 3 else 1
    rows = (y1 - y0,) + tuple(out_shape[1:])
    if cupy is not None or p.device != "cpu":
        src = piece if cupy is not None else _upload(p._h, piece)
        oc = rows[2] if len(rows) == 3 else 1
        out = _gip.empty(p._h, rows[0], rows[1], oc, _DTYPE_CODE[np.dtype(out_dtype)], len(rows),
                         True)
        _gip.op_apply_band(p._h, a, src, int(s0), (w, h, c, _DTYPE_CODE[np.dtype(piece.dtype)]),
                           out, int(y0))
        if cupy is not None:
            return cupy.asarray(out)
        host = np.empty(rows, out_dtype)
        _gip.copy(p._h, out, host)
        return host
    out = np.empty(rows, out_dtype)
    _gip.op_apply_band(p._h, a, piece, int(s0), (w, h, c, _DTYPE_CODE[piece.dtype]), out,
                       int(y0))
    return out


def _banded(arr, name, params, device, threads, who):
    """An operation that changes the size and declares row bands (resize, thumbnail), cut by
    output rows: each output chunk is computed from just the input rows it reads."""
    if arr.ndim not in (2, 3):
        raise ValueError("%s: expected an (H, W) or (H, W, C) array, got shape %s"
                         % (who, arr.shape))
    arr = arr.rechunk({1: -1} if arr.ndim == 2 else {1: -1, 2: -1})
    a = _registry._args(name, params)
    p = gip.Pipeline(device="cpu").step(name, **params)
    out_shape, out_dtype = p.output_shape(arr.shape, arr.dtype)
    h, w = arr.shape[:2]
    c = arr.shape[2] if arr.ndim == 3 else 1
    code = _DTYPE_CODE[np.dtype(arr.dtype)]
    # about as many output row chunks as the input has
    n = max(1, min(len(arr.chunks[0]), out_shape[0]))
    cuts = [round(i * out_shape[0] / n) for i in range(n + 1)]
    threads, hosts = _threads_and_hosts(threads)
    parts = []
    for y0, y1 in zip(cuts[:-1], cuts[1:]):
        if y1 <= y0:
            continue
        s0, s1 = a.band_rows(w, h, c, code, y0, y1)
        d = dask.delayed(_run_band)(arr[s0:s1], name=name, params=dict(params), s0=s0,
                                    shape=tuple(arr.shape), y0=y0, y1=y1,
                                    out_shape=tuple(out_shape), out_dtype=out_dtype,
                                    device=device, threads=threads, host_threads=hosts)
        meta = None
        if _is_cupy(arr):
            import cupy
            meta = cupy.empty((0,) * len(out_shape), out_dtype)
        parts.append(da.from_delayed(d, shape=(y1 - y0,) + tuple(out_shape[1:]),
                                     dtype=out_dtype, meta=meta))
    return da.concatenate(parts, axis=0)


def map_pipeline(arr, pipeline, *, device="auto", threads=None):
    """Runs a gip pipeline (text, or a gip.Pipeline whose steps are used) on a dask array of
    shape (H, W) or (H, W, C),
    chunked in H and W (C is kept in one chunk), with map_overlap so that the result equals the
    pipeline run on the whole image. Returns a lazy dask array (CuPy-backed for CuPy input).

    device: where the chunks of a NumPy-backed array are computed on each worker ('auto': the
    worker's GPU when it has one, else its CPU); CuPy chunks run on their own GPU. threads: CPU
    threads per chunk call; None (default): on a distributed cluster the host's cores divided
    among the threads of its workers, else 1 (the local schedulers run one chunk per core);
    0 = OpenMP's default: OMP_NUM_THREADS where set (Dask's nannies set 1), else every core.
    Pipelines whose halo is the whole image (spectrum) are refused (ValueError)."""
    p = _as_pipeline(pipeline)
    halo = p.halo
    if halo is None:
        raise ValueError("gip.dask.map_pipeline: the pipeline reads the whole image (%s); it "
                         "cannot run on chunks" % p.describe())
    return _map(arr, p, halo, device, threads, "gip.dask.map_pipeline")


def _map(arr, p, halo, device, threads, who):
    """map_overlap of pipeline p over arr with depth halo = (rows, columns)."""
    if arr.ndim not in (2, 3):
        raise ValueError("%s: expected an (H, W) or (H, W, C) array, got shape %s"
                         % (who, arr.shape))
    if arr.ndim == 3 and len(arr.chunks[2]) > 1:
        arr = arr.rechunk({2: -1})
    out_shape, out_dtype = p.output_shape(arr.shape, arr.dtype)
    resized = tuple(out_shape[:2]) != tuple(arr.shape[:2])
    if resized and (len(arr.chunks[0]) > 1 or len(arr.chunks[1]) > 1):
        raise ValueError("%s: the pipeline changes the image size; it runs on one chunk only "
                         "(single_chunk=True)" % who)
    c0, d0 = _fit_chunks(arr.chunks[0], halo[0])
    c1, d1 = _fit_chunks(arr.chunks[1], halo[1])
    if (c0, c1) != tuple(arr.chunks[:2]):
        arr = arr.rechunk((c0, c1) + tuple(arr.chunks[2:]))
    depth = {0: d0, 1: d1}
    kw = {}
    if arr.ndim == 3:
        depth[2] = 0
        if len(out_shape) == 2:
            kw["drop_axis"] = 2
        elif out_shape[2] != arr.shape[2]:
            kw["chunks"] = arr.chunks[:2] + ((out_shape[2],),)
    if _is_cupy(arr):
        import cupy
        meta = cupy.empty((0,) * len(out_shape), out_dtype)
    else:
        meta = np.empty((0,) * len(out_shape), out_dtype)
    threads, hosts = _threads_and_hosts(threads)
    if resized:  # one chunk: the block is the whole image, its result another size
        chunks = tuple((n,) for n in out_shape)
        return arr.map_blocks(_run_block, chunks=chunks, dtype=out_dtype, meta=meta,
                              recipe=p.recipe[0], device=device,
                              threads=None if threads is None else gip._int(threads, "threads"),
                              host_threads=hosts,
                              **({"drop_axis": 2} if kw.get("drop_axis") == 2 else {}))
    return arr.map_overlap(_run_block, depth=depth, boundary="none", trim=True,
                           dtype=out_dtype, meta=meta, recipe=p.recipe[0], device=device,
                           threads=None if threads is None else gip._int(threads, "threads"),
                           host_threads=hosts, **kw)


def apply(name, arr, /, *, device="auto", threads=None, single_chunk=False, **params):
    """Runs the registered operation `name` (gip.ops(), docs/operations.md) with its parameters
    (as gip.apply takes them) on a dask array of shape (H, W) or (H, W, C) chunked in H and W;
    the result equals the operation on the whole image. The chunks overlap by the operation's
    halo (gip_op_halo: its kernel's reach for these parameters); point-wise operations need no
    overlap. An operation that changes the size and declares row bands (resize, thumbnail) runs
    by output row chunks (about as many as the input has; columns in one chunk), each from only
    the input rows it reads. Another operation that reads the whole image (spectrum) is refused
    (ValueError) unless single_chunk=True, which first makes the array one chunk in H and W. The arguments are
    checked here, by the registry (gip.InvalidArgument with its message). device and threads as
    for map_pipeline. Returns a lazy dask array."""
    a = _registry._args(name, params)
    # The step first: an operation that reads other images is refused as a step, whole or not.
    p = gip.Pipeline(device="cpu").step(name, **params)
    hx, hy = a.halo()
    if (hx < 0 or hy < 0) and not single_chunk and _registry._table()[name].get("banded"):
        return _banded(arr, name, params, device, threads, "gip.dask.apply")
    if hx < 0 or hy < 0:
        if not single_chunk:
            raise ValueError("gip.dask.apply: %s reads the whole image; it cannot run on "
                             "chunks (single_chunk=True makes the array one chunk)" % name)
        if arr.ndim in (2, 3):
            arr = arr.rechunk({0: -1, 1: -1})
        hx = hy = 0
    return _map(arr, p, (int(hy), int(hx)), device, threads, "gip.dask.apply")


def gaussian_blur(arr, ksize, sigmaX=0, sigmaY=0, borderType=gip.BORDER_DEFAULT, *,
                  device="auto", threads=None):
    """gip.gaussian_blur on a chunked dask array (equal to the whole-image result)."""
    return apply("gaussian", arr, device=device, threads=threads,
                 **_cv2._gaussian_params(ksize, sigmaX, sigmaY, borderType, "auto"))


def box_filter(arr, ksize=3, normalize=True, borderType=gip.BORDER_DEFAULT, *, device="auto",
               threads=None):
    """gip.box_filter (same dtype out) on a chunked dask array."""
    return apply("box", arr, device=device, threads=threads,
                 **_cv2._box_params(ksize, (-1, -1), normalize, borderType))


def filter2d(arr, kernel, delta=0, borderType=gip.BORDER_DEFAULT, *, device="auto",
             threads=None):
    """gip.filter2d (same dtype out) on a chunked dask array."""
    return apply("filter", arr, device=device, threads=threads,
                 **_cv2._filter_params(kernel, (-1, -1), delta, borderType, "auto"))


def sobel(arr, dx=1, dy=0, ksize=3, scale=1, delta=0, dtype="u8", borderType=gip.BORDER_DEFAULT,
          *, device="auto", threads=None):
    """The pipeline's Sobel step on a chunked dask array: dtype 'u8' (|x| saturated), 'u16',
    's16' or 'f32'."""
    return apply("sobel", arr, device=device, threads=threads, dx=gip._int(dx, "dx"),
                 dy=gip._int(dy, "dy"), dtype=_step_dtype(dtype),
                 **_cv2._sobel_params(ksize, scale, delta, borderType))


def edges(arr, ksize=3, *, device="auto", threads=None):
    """`gip edges` (gray for RGB input, then the uint8 Sobel magnitude) on a chunked array."""
    return apply("edges", arr, device=device, threads=threads, ksize=_cv2._sobel_ksize(ksize))


def invert(arr, max=None, *, device="auto", threads=None):  # noqa: A002
    """gip.invert on a dask array (point-wise: no overlap)."""
    return apply("invert", arr, device=device, threads=threads,
                 max=None if max is None else gip._real(max, "max"))


# Every registered operation is gip.dask.NAME too (those above keep cv2's arguments): made on
# first use, so that operation names never shadow the builtins this module uses.
def _dask_op(name, arr, params, device="auto", threads=None, single_chunk=False):
    return apply(name, arr, device=device, threads=threads, single_chunk=single_chunk, **params)


_generated = {}


def __getattr__(name):
    desc = _registry._table().get(name)
    if desc is None or name.startswith("_"):
        raise AttributeError("module 'gip.dask' has no attribute %r" % name)
    fn = _generated.get(name)
    if fn is None:
        fn = _registry._function(
            desc, _dask_op, first="arr",
            extras=(("device", "auto"), ("threads", None), ("single_chunk", False)),
            first_doc=["arr : dask.array.Array",
                       "    (H, W) or (H, W, C), chunked in H and W (NumPy or CuPy chunks)."],
            extras_doc=["device, threads : as for map_pipeline",
                        "single_chunk : bool, default False",
                        "    An operation that reads the whole image runs on one chunk."],
            returns=["A lazy dask array equal to the operation on the whole image."],
            call="gip.dask.apply(%r, arr, ...)" % name)
        fn.__module__ = __name__
        fn = _generated[name] = fn
    return fn


def __dir__():
    return sorted(set(globals()) | set(_registry._table()))


# ---- files -------------------------------------------------------------------------------------
def _host_threads(client):
    """{host: threads of all workers on that host}, to share each host's cores among them."""
    info = client.scheduler_info(n_workers=-1)["workers"] if _takes_n_workers(client) \
        else client.scheduler_info()["workers"]
    hosts = {}
    for addr, w in info.items():
        host = w.get("host") or addr.rsplit(":", 1)[0]
        hosts[host] = hosts.get(host, 0) + int(w.get("nthreads", 1))
    return hosts


def _takes_n_workers(client):
    import inspect
    try:
        return "n_workers" in inspect.signature(client.scheduler_info).parameters
    except (TypeError, ValueError):
        return False


def _run_chunk(recipe, files, out_dir, options, host_threads, hook):
    """One task: the batch engine on a chunk of files, on this worker's GPU or CPU."""
    if hook is not None:
        hook(files)
    options = dict(options)
    jobs = options.pop("jobs") or _share_cores(host_threads)
    t0 = time.perf_counter()
    p = _pipeline(recipe, options.pop("device"), options.pop("threads"))
    r = gip.run_batch(p, files, out_dir, jobs=jobs, **options)
    try:
        from distributed import get_worker
        worker = get_worker().address
    except (ImportError, ValueError):
        worker = ""
    r.tasks = [{"worker": worker, "files": len(files), "wall": time.perf_counter() - t0,
                "device": r.device, "jobs": jobs}]
    return r


def _stem(path):
    return os.path.splitext(os.path.basename(path))[0]


def _chunks_by_stem(paths, size):
    """Chunks of about `size` files; inputs with the same output stem stay in one chunk, so the
    batch engine's duplicate-name check applies across the whole list."""
    order = sorted(paths, key=lambda x: (_stem(x), x))
    out, cur = [], []
    for i, pth in enumerate(order):
        cur.append(pth)
        nxt = order[i + 1] if i + 1 < len(order) else None
        if len(cur) >= size and (nxt is None or _stem(nxt) != _stem(pth)):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def run_files(client, pipeline, inputs, out_dir, *, files_per_task=None, jobs=0, format=None,
              quality=0, overwrite=False, device="auto", streams=None, threads=0,
              cpu_mode="auto", unchanged=False, task_hook=None, progress=None):
    """Runs a gip pipeline over files on a distributed.Client and returns a gip.BatchResult
    (ok / skipped / failed with reasons, summed stage times, wall = elapsed time here, and
    .tasks: per task the worker, file count, wall time, device and jobs).

    pipeline: text or a gip.Pipeline (its steps; where they run is `device` on each worker).
    inputs: a list of paths, or a folder / glob pattern (listed on a worker, so the paths are
    those the workers see). out_dir: on storage the workers share (created if missing).
    files_per_task: default ceil(n / (4 x worker threads)), at most 64. jobs: batch-engine
    threads per task (0: the host's cores divided among the threads of its workers).
    device: 'auto' (each worker's own GPU, else its CPU), 'cpu', 'cuda', 'cuda:N'.
    format, quality, overwrite, streams, cpu_mode, unchanged: as gip.run_batch; threads: CPU
    threads of the pipeline on each worker (0: OMP_NUM_THREADS where set, else every core). A worker that dies mid-task loses
    nothing: outputs are linked into place only when complete and the scheduler runs the task
    again elsewhere, where the outputs that exist are skipped. task_hook: a callable run with
    the task's file list at the start of each task on the worker (instrumentation, tests).
    progress: a callable(done_files, total_files) called here as tasks complete."""
    from distributed import as_completed

    p = _as_pipeline(pipeline)
    recipe = p.recipe[0]
    if isinstance(inputs, (str, bytes, os.PathLike)):
        paths = client.submit(gip.list_inputs, os.fspath(inputs), pure=False).result()
    else:
        paths = [os.fspath(x) for x in inputs]
    out_dir = os.fspath(out_dir)
    if not paths:
        return gip.BatchResult()
    hosts = _host_threads(client)
    nthreads = max(1, sum(hosts.values()))
    if files_per_task is None:
        files_per_task = min(64, max(1, math.ceil(len(paths) / (4 * nthreads))))
    chunks = _chunks_by_stem(paths, gip._int(files_per_task, "files_per_task"))
    options = {"jobs": gip._int(jobs, "jobs"), "format": format,
               "quality": gip._int(quality, "quality"), "overwrite": bool(overwrite),
               "device": device, "streams": streams, "threads": gip._int(threads, "threads"),
               "cpu_mode": cpu_mode, "unchanged": bool(unchanged)}
    t0 = time.perf_counter()
    futures = [client.submit(_run_chunk, recipe, c, out_dir, dict(options), hosts, task_hook,
                             pure=False, key="gip-batch-%d-%s" % (i, dask.base.tokenize(
                                 recipe, c, out_dir, options, time.time())))
               for i, c in enumerate(chunks)]
    results, done = [], 0
    for fut in as_completed(futures):
        r = fut.result()
        results.append(r)
        done += r.total
        if progress is not None:
            progress(done, len(paths))
    merged = gip.BatchResult.merge(results, wall=time.perf_counter() - t0)
    merged.tasks = [t for r in results for t in getattr(r, "tasks", [])]
    return merged


# ---- python -m gip.dask run ----------------------------------------------------------------------
def main(argv=None):
    """`python -m gip.dask run PIPELINE -i INPUT -o OUTDIR --scheduler ADDRESS [...]`: the batch
    of `gip run` submitted to an existing Dask scheduler. Exit status 0 when every file was
    written (or skipped), 1 when some failed or the run failed, 2 for usage errors."""
    ap = argparse.ArgumentParser(prog="python -m gip.dask",
                                 description="Run gip pipelines on a Dask cluster.")
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("run", help="run a pipeline over files on a Dask scheduler")
    r.add_argument("pipeline", help="pipeline text, e.g. 'gaussian 15 | sobel dx=1'")
    r.add_argument("-i", "--input", required=True, help="folder or glob pattern of images")
    r.add_argument("-o", "--output", required=True, help="output folder (shared by workers)")
    r.add_argument("--scheduler", required=True, help="Dask scheduler address (tcp://host:8786)"
                   " or a scheduler file (JSON)")
    r.add_argument("--jobs", type=int, default=0, help="threads per task (default: share cores)")
    r.add_argument("--files-per-task", type=int, default=None)
    r.add_argument("--format", choices=["jpg", "jpeg", "png", "pnm"], default=None)
    r.add_argument("--quality", type=int, default=0, help="JPEG quality 1..100 (default 95)")
    r.add_argument("--overwrite", action="store_true")
    r.add_argument("--device", default="auto", help="auto (default), cpu, cuda, cuda:N")
    r.add_argument("--streams", type=int, default=None, help="CUDA pipelines per worker GPU")
    r.add_argument("--cpu-mode", choices=["inline", "staged"], default="auto")
    r.add_argument("--threads", type=int, default=0, help="CPU threads of each pipeline")
    r.add_argument("--unchanged", action="store_true", help="load channels and depth as stored")
    r.add_argument("--quiet", action="store_true")
    r.add_argument("--time", action="store_true", help="print the summary even with --quiet")
    r.add_argument("-v", "--verbose", action="store_true", help="one line per task")
    # Accepted for `gip run` compatibility; without effect here (each worker uses its own
    # device; a batch is not repeated).
    r.add_argument("--one-device", action="store_true", help=argparse.SUPPRESS)
    r.add_argument("--repeat", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.cmd != "run":
        ap.print_usage(sys.stderr)
        return 2
    try:
        pipe = gip.Pipeline(a.pipeline, device="cpu")
    except ValueError as e:
        pos = getattr(e, "position", 0)
        sys.stderr.write("gip run: %s\n" % e)
        if pos:
            sys.stderr.write("  %s\n  %s^\n" % (a.pipeline, " " * (pos - 1)))
        return 2
    if a.quality and not 1 <= a.quality <= 100:
        sys.stderr.write("gip run: --quality %d: 1..100\n" % a.quality)
        return 2
    try:
        from distributed import Client
    except ImportError as e:
        sys.stderr.write("gip run --scheduler: needs distributed: pip install 'gip[dask]' (%s)\n"
                         % e)
        return 1
    sched = a.scheduler
    kw = {"scheduler_file": sched} if os.path.isfile(sched) else {"address": sched}
    try:
        client = Client(timeout="30s", **kw)
    except (OSError, TimeoutError, ValueError) as e:
        sys.stderr.write("gip run: cannot connect to the Dask scheduler %s: %s\n" % (sched, e))
        return 1
    last = [0.0]

    def report(done, total):
        now = time.perf_counter()
        if not a.quiet and (now - last[0] > 1.0 or done == total):
            last[0] = now
            sys.stderr.write("  %d/%d files\n" % (done, total))

    try:
        res = run_files(client, pipe, a.input, a.output, files_per_task=a.files_per_task,
                        jobs=a.jobs, format=a.format, quality=a.quality, overwrite=a.overwrite,
                        device=a.device, streams=a.streams, threads=a.threads,
                        cpu_mode=a.cpu_mode, unchanged=a.unchanged, progress=report)
    except gip.Error as e:
        sys.stderr.write("gip run: %s\n" % e)
        return 1
    finally:
        client.close()
    if res.total == 0:
        sys.stderr.write("gip run: no image files in '%s' (.jpg .jpeg .png .ppm .pgm .pnm)\n"
                         % a.input)
        return 1
    for inp, why in res.failed:
        sys.stderr.write("gip run: failed '%s': %s\n" % (inp, why))
    if a.verbose:
        for t in res.tasks:
            print("task: %s, %d files, %.2f s, %s, %d jobs" % (t["worker"], t["files"], t["wall"],
                                                           t["device"], t["jobs"]))
    if not a.quiet or a.time:
        workers = sorted({t["worker"] for t in res.tasks})
        print("scheduler: %s, %d workers, %d tasks" % (sched, len(workers), len(res.tasks)))
        print("files: %d written, %d skipped, %d failed of %d in %.2f s (%.2f images/s)"
              % (len(res.ok), len(res.skipped), len(res.failed), res.total, res.wall,
                 res.images_per_second))
        n = max(1, res.total)
        print("per image: " + ", ".join("%s %.1f ms" % (k, 1e3 * v / n)
                                        for k, v in res.stages.items()))
    if res.failed:
        sys.stderr.write("gip run: %d of %d files failed\n" % (len(res.failed), res.total))
        return 1
    return 0


# ---- reductions combined across chunks -----------------------------------------------------------
# Each chunk is reduced by gip where it lives (a worker), the chunks' partial results are combined
# in one small task: sums and counts add, extremes keep the first position in the whole image's
# row order, deviations combine by Chan's parallel formula, histograms add their counts.

def _blocks(arr, what):
    if not isinstance(arr, da.Array) or arr.ndim not in (2, 3):
        raise gip.InvalidArgument("%s: expected an (H, W) or (H, W, C) dask array, got %r"
                                  % (what, type(arr).__name__))
    if arr.ndim == 3 and len(arr.chunks[2]) != 1:
        arr = arr.rechunk({2: -1})
    offs = [np.cumsum((0,) + c[:-1]) for c in arr.chunks[:2]]
    blocks = arr.to_delayed()
    if arr.ndim == 3:
        blocks = blocks[:, :, 0]
    return [(int(offs[0][i]), int(offs[1][j]), blocks[i, j])
            for i in range(blocks.shape[0]) for j in range(blocks.shape[1])]


def _reduce(arr, what, part, combine, compute):
    parts = [dask.delayed(part)(b, y, x) for y, x, b in _blocks(arr, what)]
    out = dask.delayed(combine)(parts)
    return out.compute() if compute else out


def _sum_part(b, y, x):
    a = np.asarray(b)
    return gip.sumElems(a, device="cpu"), a.shape[0] * a.shape[1]


def sum_elems(arr, *, compute=True):
    """cv2.sumElems of a dask array, combined across chunks: the sum of each channel (4-tuple).
    compute=False gives a dask.delayed of the value."""
    return _reduce(arr, "sumElems", _sum_part,
                   lambda ps: tuple(float(sum(p[0][c] for p in ps)) for c in range(4)), compute)


def mean(arr, *, compute=True):
    """cv2.mean of a dask array, combined across chunks: the mean of each channel (4-tuple)."""
    def combine(ps):
        n = sum(p[1] for p in ps)
        return tuple(float(sum(p[0][c] for p in ps)) / n if n else 0.0 for c in range(4))
    return _reduce(arr, "mean", _sum_part, combine, compute)


def _msd_part(b, y, x):
    a = np.asarray(b)
    m, sd = gip.meanStdDev(a, device="cpu")
    return a.shape[0] * a.shape[1], m[:, 0], sd[:, 0]


def mean_std_dev(arr, *, compute=True):
    """cv2.meanStdDev of a dask array, combined across chunks (Chan's parallel formula): (mean,
    stddev), float64 arrays of shape (channels, 1)."""
    def combine(ps):
        n, m, m2 = 0, None, None
        for k, mk, sk in ps:
            if not k:
                continue
            if m is None:
                n, m, m2 = k, mk.copy(), sk * sk * k
                continue
            d = mk - m
            t = n + k
            m = m + d * (k / t)
            m2 = m2 + sk * sk * k + d * d * (n * k / t)
            n = t
        if m is None:
            c = arr.shape[2] if arr.ndim == 3 else 1
            return np.zeros((c, 1)), np.zeros((c, 1))
        return m.reshape(-1, 1), np.sqrt(m2 / n).reshape(-1, 1)
    return _reduce(arr, "meanStdDev", _msd_part, combine, compute)


def _mml_part(b, y, x):
    mn, mx, lmn, lmx = gip.minMaxLoc(np.asarray(b), device="cpu")
    ok = lmn[0] >= 0
    return (mn, (lmn[1] + y, lmn[0] + x) if ok else None, mx,
            (lmx[1] + y, lmx[0] + x) if ok else None)


def min_max_loc(arr, *, compute=True):
    """cv2.minMaxLoc of a one-channel dask array, combined across chunks: (minVal, maxVal,
    minLoc, maxLoc), the locations (x, y) of the first extreme in the whole image's row order."""
    if arr.ndim != 2:
        raise gip.Unsupported("minMaxLoc: a one-channel (H, W) array is accepted, got shape %s"
                              % (arr.shape,))

    def combine(ps):
        ps = [p for p in ps if p[1] is not None]
        if not ps:
            return 0.0, 0.0, (-1, -1), (-1, -1)
        lo = min(ps, key=lambda p: (p[0], p[1]))
        hi = min(ps, key=lambda p: (-p[2], p[3]))
        return lo[0], hi[2], (lo[1][1], lo[1][0]), (hi[3][1], hi[3][0])
    return _reduce(arr, "minMaxLoc", _mml_part, combine, compute)


def count_non_zero(arr, *, compute=True):
    """cv2.countNonZero of a one-channel dask array, combined across chunks."""
    return _reduce(arr, "countNonZero",
                   lambda b, y, x: gip.countNonZero(np.asarray(b), device="cpu"),
                   lambda ps: int(sum(ps)), compute)


def calc_hist(arr, channels, histSize, ranges, *, uniform=True, compute=True):  # noqa: N803
    """cv2.calcHist([arr], channels, None, histSize, ranges) of a dask array, combined across
    chunks: each chunk's counts added (exactly, in float64) and returned as float32, as cv2."""
    def part(b, y, x):
        return gip.calcHist([np.asarray(b)], channels, None, histSize, ranges, uniform=uniform,
                            device="cpu").astype(np.float64)
    return _reduce(arr, "calcHist", part,
                   lambda ps: np.sum(ps, axis=0).astype(np.float32), compute)


sumElems = sum_elems
meanStdDev = mean_std_dev
minMaxLoc = min_max_loc
countNonZero = count_non_zero
calcHist = calc_hist
__all__ += ["sum_elems", "sumElems", "mean", "mean_std_dev", "meanStdDev", "min_max_loc",
            "minMaxLoc", "count_non_zero", "countNonZero", "calc_hist", "calcHist"]


if __name__ == "__main__":
    import gip.dask as _self  # functions sent to workers must be importable as gip.dask.*

    sys.exit(_self.main())
