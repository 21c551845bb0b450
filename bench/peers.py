#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Peers of gip-bench: the same rows timed with OpenCV and numpy on the CPU and with CuPy and PyTorch
on the GPU, written as JSON in gip-bench's schema so that bench/report can put them side by side.

CPU rows: time.perf_counter per run, warm-up, median, cv2.setNumThreads(--threads).
GPU rows: CUDA events per run on a stream of the library's own, queued behind a spin kernel so
that Python's launch overhead does not show between runs, inputs rotated among buffer sets that
together exceed 4x the L2 cache. A peer that cannot be imported is reported as unavailable with the
reason; a row that fails is reported with the error; neither stops the run.
"""
import argparse
import datetime
import json
import math
import os
import platform
import signal
import socket
import sys
import time

FORMATS = {
    "u8c1": ("uint8", 1),
    "u8c3": ("uint8", 3),
    "u8c4": ("uint8", 4),
    "u16c1": ("uint16", 1),
    "f32c1": ("float32", 1),
    "f32c3": ("float32", 3),
}

# op -> (default formats, destination dtype: None = the source's, destination channels: None =
# the source's). The same rows as gip-bench's table (bench/ops.c); stencil_mean3 and map_invert
# are compared with gip's own box3 and invert rows by the report, and with CuPy's user kernels.
OPS = {
    "copy": (["u8c1", "u8c3", "f32c1"], None, None),
    "convert_f32": (["u8c1", "u8c3"], "float32", None),
    "rgb2gray": (["u8c3"], None, 1),
    "invert": (["u8c1", "u8c3", "f32c1"], None, None),
    "box3": (["u8c1", "u8c3", "f32c1"], None, None),
    "filter2d3": (["u8c1", "u8c3", "f32c1"], None, None),
    "sobel_s16": (["u8c1", "u8c3"], "int16", None),
    "sobel_f32": (["u8c1", "u8c3", "f32c1"], "float32", None),
    "sobel_u8": (["u8c1", "u8c3"], "uint8", None),
    "sobel_mag": (["u8c1", "u8c3", "f32c1"], "float32", None),
    "gaussian15": (["u8c1", "u8c3", "f32c1"], None, None),
    "conv2d_sobel": (["u8c3", "f32c3"], "float32", None),
    "spectrum": (["u8c1"], "uint8", 1),
    "fft2_r2c": (["f32c1"], "complex64", 1),
    "stencil_mean3": (["u8c1", "u8c3"], None, None),
    "map_invert": (["u8c1", "u8c3", "f32c1"], None, None),
    "erode3": (["u8c1", "u8c3"], None, None),
    "erode15": (["u8c1", "u8c3"], None, None),
    "open5_ellipse": (["u8c1", "u8c3"], None, None),
    "median3": (["u8c1", "u8c3"], None, None),
    "median5": (["u8c1", "u8c3"], None, None),
    "median15": (["u8c1", "u8c3"], None, None),
    "bilateral9": (["u8c1", "u8c3"], None, None),
    "laplacian3": (["u8c1", "u8c3"], None, None),
    "canny3_l2": (["u8c1", "u8c3"], "uint8", 1),
}
# Rows whose destination is the half spectrum of a real image: (W/2 + 1) x H.
HALF_WIDTH = {"fft2_r2c"}

# The families' rows live in bench/peers_<family>.py (the same rows as bench/ops_<family>.c).
# Each module has OPS (rows in the form above), DST_SIZE (op -> f(w, h) -> (dw, dh), for rows
# whose destination is not w x h), BYTES (op -> f(fmt, w, h) -> bytes read and written, where
# the source and destination alone do not say it) and one function per peer it has rows for:
# opencv(peer, op, fmt, src, dst), cupy(peer, op, fmt, src, dst), torch(peer, op, fmt, src,
# dst), each returning (run, note), or None where it has no such row. A GPU peer's src and dst
# are lists of buffer sets (torch: planar NCHW tensors); run(i) does one run on set i. A family may
# also time libraries built on torch (kornia) as rows of their own: TORCH_LIBS (op -> names) and
# torch_<name>(peer, op, fmt, src, dst), returning None where that library is not importable.
import peers_color  # noqa: E402
import peers_geometry  # noqa: E402
import peers_morph  # noqa: E402
import peers_stats  # noqa: E402

FAMILIES = [peers_geometry, peers_color, peers_morph, peers_stats]
for _fam in FAMILIES:
    OPS.update(_fam.OPS)


def family_make(peer, kind, op, fmt, src, dst):
    """(run, note) of the first family with this row for this peer, or None."""
    for fam in FAMILIES:
        fn = getattr(fam, kind, None)
        made = fn(peer, op, fmt, src, dst) if fn else None
        if made:
            return made
    return None

# The filter2d3 kernel (bench/ops.c): not separable, no zero tap, sum 1.
FILTER2D = [[0.05, 0.1, 0.05], [0.1, 0.4, 0.1], [0.05, 0.1, 0.05]]
SOBEL_X = [[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]
GAUSS_SIGMA = 0.3 * ((15 - 1) * 0.5 - 1) + 0.8  # OpenCV's sigma for ksize 15: 2.6
CHUNK = 128


class Unsupported(Exception):
    """The peer has no function for this row (no row is written)."""


class Stop(Exception):
    """SIGTERM (a time limit): stop timing, write what was measured."""


def on_term(signum, frame):
    raise Stop()


def gauss_taps():
    k = [math.exp(-((i - 7) ** 2) / (2 * GAUSS_SIGMA**2)) for i in range(15)]
    s = sum(k)
    return [v / s for v in k]


def stats(times):
    v = sorted(times)
    n = len(v)

    def pct(p):
        return v[min(n - 1, max(0, int(p * (n - 1) + 0.5)))]

    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    return {"ms": med, "min_ms": v[0], "p10_ms": pct(0.10), "p90_ms": pct(0.90), "runs": n}


def run_count(cfg, est_ms):
    if cfg.iters > 0:
        return cfg.iters
    want = cfg.time * 1e3 / est_ms if est_ms > 0 else cfg.max_runs
    return int(max(cfg.min_runs, min(cfg.max_runs, want)))


def time_cpu(run, cfg):
    est = 0.0
    for _ in range(max(cfg.warmup, 0 if cfg.iters > 0 else 1)):
        t0 = time.perf_counter()
        run(0)
        est = (time.perf_counter() - t0) * 1e3
    times = []
    for _ in range(run_count(cfg, est)):
        t0 = time.perf_counter()
        run(0)
        times.append((time.perf_counter() - t0) * 1e3)
    return stats(times)


def time_gpu(run, nsets, cfg, api):
    """The GPU timing of gip-bench (bench/timer.c) in Python: per-run events, chunks queued behind
    a spin kernel so that the runs of a chunk follow each other on the GPU without gaps."""
    warm = max(cfg.warmup, nsets) if cfg.warmup > 0 else 1
    for i in range(warm):
        run(i % nsets)
    api.sync()
    e0, e1 = api.event(), api.event()
    t0 = time.perf_counter()
    api.record(e0)
    for i in range(5):
        run(i % nsets)
    host_ms = (time.perf_counter() - t0) * 1e3 / 5
    api.record(e1)
    e1.synchronize()
    n = run_count(cfg, api.elapsed(e0, e1) / 5)
    ev = [api.event() for _ in range(CHUNK + 1)]
    times = []
    done = 0
    while done < n:
        k = min(CHUNK, n - done)
        api.spin(min(50.0, 2.0 * host_ms * k + 0.05))
        api.record(ev[0])
        for i in range(k):
            run((done + i) % nsets)
            api.record(ev[i + 1])
        ev[k].synchronize()
        times += [api.elapsed(ev[i], ev[i + 1]) for i in range(k)]
        done += k
    return stats(times)


def gpu_sets(set_bytes, l2_bytes):
    return max(2, min(64, int(4 * l2_bytes / set_bytes) + 1))


_host_cache = {}


def host_image(np, w, h, fmt, seed=1):
    """A random image, kept while rows of the same size follow each other (large ones take a
    second to make)."""
    key = (w, h, fmt, seed)
    if key not in _host_cache:
        if any(k[:2] != (w, h) for k in _host_cache):
            _host_cache.clear()
        _host_cache[key] = make_host_image(np, w, h, fmt, seed)
    return _host_cache[key]


def make_host_image(np, w, h, fmt, seed):
    dtype, ch = FORMATS[fmt]
    rng = np.random.default_rng(seed)
    shape = (h, w) if ch == 1 else (h, w, ch)
    if dtype == "uint8":
        return rng.integers(0, 256, size=shape, dtype=np.uint8)
    if dtype == "uint16":
        return rng.integers(0, 65536, size=shape, dtype=np.uint16)
    return (rng.integers(0, 25600, size=shape, dtype=np.int32) * 0.01).astype(np.float32)


def dst_spec(op, fmt):
    _, ddt, dch = OPS[op]
    sdt, sch = FORMATS[fmt]
    return ddt or sdt, dch or sch


def dst_size(op, w, h):
    """(width, height) of a row's destination for a w x h source."""
    if op in HALF_WIDTH:
        return w // 2 + 1, h
    for fam in FAMILIES:
        if op in getattr(fam, "DST_SIZE", {}):
            return fam.DST_SIZE[op](w, h)
    return w, h


def dst_shape(op, w, h, ch):
    dw, dh = dst_size(op, w, h)
    return (dh, dw) if ch == 1 else (dh, dw, ch)


def nbytes(w, h, dtype, ch):
    size = {"uint8": 1, "uint16": 2, "int16": 2, "int32": 4, "float32": 4, "float64": 8,
            "complex64": 8}[dtype]
    return w * h * ch * size


def row_bytes(op, fmt, w, h):
    """Input bytes + output bytes of one run of a row."""
    sdt, sch = FORMATS[fmt]
    ddt, dch = dst_spec(op, fmt)
    for fam in FAMILIES:
        if op in getattr(fam, "BYTES", {}):
            return fam.BYTES[op](fmt, w, h)
    dw, dh = dst_size(op, w, h)
    return nbytes(w, h, sdt, sch) + nbytes(dw, dh, ddt, dch)


# ---- OpenCV (CPU) ---------------------------------------------------------------------------


class OpenCVPeer:
    name = "opencv"
    backend = "cpu"

    def __init__(self, threads):
        import cv2
        import numpy as np

        self.cv2, self.np = cv2, np
        cv2.setNumThreads(threads)
        self.version = cv2.__version__
        self.threads = cv2.getNumThreads()
        self.f2d = np.array(FILTER2D, dtype=np.float32)

    def make(self, op, fmt, src, dst):
        """Returns (run, note) for one row; run(set) does one run."""
        cv2, np = self.cv2, self.np
        f32 = FORMATS[fmt][0] == "float32"
        if op == "copy":
            return (lambda i: np.copyto(dst, src)), "numpy.copyto (1 thread)"
        if op == "convert_f32":
            return (lambda i: np.copyto(dst, src, casting="unsafe")), "numpy.copyto (1 thread)"
        if op == "rgb2gray":
            return (lambda i: cv2.cvtColor(src, cv2.COLOR_RGB2GRAY, dst=dst)), "cv2.cvtColor"
        if op == "invert":
            if f32:
                one = np.float32(1.0)
                return (lambda i: np.subtract(one, src, out=dst)), "numpy 1 - x (1 thread)"
            return (lambda i: cv2.bitwise_not(src, dst=dst)), "cv2.bitwise_not"
        if op == "box3":
            return (lambda i: cv2.blur(src, (3, 3), dst=dst)), "cv2.blur"
        if op == "filter2d3":
            return (lambda i: cv2.filter2D(src, -1, self.f2d, dst=dst)), "cv2.filter2D"
        if op == "sobel_s16":
            return (lambda i: cv2.Sobel(src, cv2.CV_16S, 1, 0, dst=dst, ksize=3)), "cv2.Sobel"
        if op == "sobel_f32":
            return (lambda i: cv2.Sobel(src, cv2.CV_32F, 1, 0, dst=dst, ksize=3)), "cv2.Sobel"
        if op == "sobel_u8":

            def run(i):
                cv2.convertScaleAbs(cv2.Sobel(src, cv2.CV_16S, 1, 0, ksize=3), dst=dst)

            return run, "cv2.Sobel to s16 + cv2.convertScaleAbs"
        if op == "sobel_mag":

            def run(i):
                gx = cv2.Sobel(src, cv2.CV_32F, 1, 0, ksize=3)
                gy = cv2.Sobel(src, cv2.CV_32F, 0, 1, ksize=3)
                cv2.magnitude(gx, gy, dst)

            return run, "cv2.Sobel x2 + cv2.magnitude"
        if op == "gaussian15":
            return (lambda i: cv2.GaussianBlur(src, (15, 15), 0, dst=dst)), "cv2.GaussianBlur"
        if op in ("erode3", "erode15"):
            k = np.ones((3, 3) if op == "erode3" else (15, 15), np.uint8)
            return (lambda i: cv2.erode(src, k, dst=dst)), "cv2.erode"
        if op == "open5_ellipse":
            k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
            return (lambda i: cv2.morphologyEx(src, cv2.MORPH_OPEN, k, dst=dst)), "cv2.morphologyEx"
        if op in ("median3", "median5", "median15"):
            ks = int(op[6:])
            return (lambda i: cv2.medianBlur(src, ks, dst=dst)), "cv2.medianBlur"
        if op == "bilateral9":
            return (lambda i: cv2.bilateralFilter(src, 9, 75, 75, dst=dst)), "cv2.bilateralFilter"
        if op == "laplacian3":
            return (lambda i: cv2.Laplacian(src, -1, dst=dst, ksize=3)), "cv2.Laplacian"
        if op == "canny3_l2":
            return (lambda i: cv2.Canny(src, 50, 150, edges=dst, L2gradient=True)), "cv2.Canny"
        made = family_make(self, "opencv", op, fmt, src, dst)
        if made:
            return made
        raise Unsupported(op)

    def row(self, op, fmt, w, h, cfg):
        np = self.np
        ddt, dch = dst_spec(op, fmt)
        src = host_image(np, w, h, fmt)
        dst = np.zeros(dst_shape(op, w, h, dch), dtype=ddt)
        run, note = self.make(op, fmt, src, dst)
        return time_cpu(run, cfg), note, 1


# ---- numpy (CPU) ----------------------------------------------------------------------------


class NumpyPeer:
    """The seed's spectrum program as it ran on the CPU: numpy, one thread for the FFT."""

    name = "numpy"
    backend = "cpu"
    min_runs = 3  # the seed pipeline takes seconds at 7680x4320

    def __init__(self):
        import numpy as np

        self.np = np
        self.version = np.__version__

    def make(self, op, fmt, src, dst):
        np = self.np
        if op == "spectrum":

            def run(i):
                m = np.log(np.abs(np.fft.fftshift(np.fft.fft2(src))))
                lo, hi = m.min(), m.max()
                np.copyto(dst, ((m - lo) * (255.0 / (hi - lo))).astype(np.uint8))

            return run, ("the seed's spectrum: fft2 (complex128, numpy's own), fftshift, "
                         "log(abs), min-max to u8; one thread")
        if op == "fft2_r2c":
            return (lambda i: np.copyto(dst, np.fft.rfft2(src))), (
                "numpy.fft.rfft2 (+ copy into the output); one thread")
        raise Unsupported(op)

    def row(self, op, fmt, w, h, cfg):
        np = self.np
        ddt, dch = dst_spec(op, fmt)
        src = host_image(np, w, h, fmt)
        dst = np.zeros(dst_shape(op, w, h, dch), dtype=ddt)
        run, note = self.make(op, fmt, src, dst)
        slow = argparse.Namespace(**vars(cfg))
        slow.min_runs = min(cfg.min_runs, self.min_runs)
        return time_cpu(run, slow), note, 1


# ---- CuPy (GPU) -----------------------------------------------------------------------------

SPIN_SRC = r"""
extern "C" __global__ void gip_bench_spin(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}
"""


# The seed's 3x3 mean kernel (PyCUDA SourceModule in the seed), given its size and made correct at
# the borders (reflect101, as gip's stencil_mean3 and box3): the hand-written peer of stencil_mean3.
MEAN3_SRC = r"""
__device__ static int mirror(int i, int n)
{
    return n == 1 ? 0 : i < 0 ? -i : i >= n ? 2 * n - i - 2 : i;
}
extern "C" __global__ void mean3(const unsigned char *src, unsigned char *dst, int w, int h, int c)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    for (int k = 0; k < c; k++) {
        int sum = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                sum += src[((long long)mirror(y + dy, h) * w + mirror(x + dx, w)) * c + k];
        dst[((long long)y * w + x) * c + k] = (unsigned char)((sum + 4) / 9);
    }
}
"""


class CupyAPI:
    def __init__(self, cp, stream):
        self.cp, self.stream = cp, stream
        self.kernel = cp.RawKernel(SPIN_SRC, "gip_bench_spin")
        self.spin(0.001)  # compiles and loads the kernel now, not inside a timing
        self.sync()

    def event(self):
        return self.cp.cuda.Event()

    def record(self, ev):
        ev.record(self.stream)

    def elapsed(self, a, b):
        return self.cp.cuda.get_elapsed_time(a, b)

    def sync(self):
        self.stream.synchronize()

    def spin(self, ms):
        self.kernel((1,), (1,), (self.cp.uint64(int(ms * 1e6)),), stream=self.stream)


class CupyPeer:
    name = "cupy"
    backend = "cuda"

    def __init__(self):
        import cupy as cp
        import cupyx.scipy.ndimage as ndi
        import numpy as np

        self.cp, self.ndi, self.np = cp, ndi, np
        self.version = cp.__version__
        cp.cuda.Device(0).use()
        props = cp.cuda.runtime.getDeviceProperties(0)
        self.gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.l2 = props.get("l2CacheSize", 0) or 60e6
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.api = CupyAPI(cp, self.stream)
        self.elementwise = {}

    def weights(self, k, ch):
        w = self.cp.asarray(k, dtype=self.cp.float32)
        return w if ch == 1 else w[:, :, None]

    def make(self, op, fmt, src, dst, variant=None):
        cp, ndi = self.cp, self.ndi
        ch = FORMATS[fmt][1]
        f32 = FORMATS[fmt][0] == "float32"
        size = (3, 3) if ch == 1 else (3, 3, 1)
        if op == "copy":
            return (lambda i: cp.copyto(dst[i], src[i])), "cupy.copyto"
        if op == "convert_f32":
            return (lambda i: cp.copyto(dst[i], src[i])), "cupy.copyto (cast)"
        if op == "invert":
            top = cp.float32(1.0) if f32 else src[0].dtype.type(self.np.iinfo(src[0].dtype).max)
            return (lambda i: cp.subtract(top, src[i], out=dst[i])), "cupy.subtract(max, x)"
        if op == "box3":
            return (
                lambda i: ndi.uniform_filter(src[i], size=size, output=dst[i], mode="mirror")
            ), "cupyx.scipy.ndimage.uniform_filter, mode mirror (= reflect101)"
        if op == "filter2d3":
            wk = self.weights(FILTER2D, ch)
            return (
                lambda i: ndi.correlate(src[i], wk, output=dst[i], mode="mirror")
            ), "cupyx.scipy.ndimage.correlate, mode mirror"
        if op in ("sobel_s16", "sobel_f32"):
            if ch == 1:
                return (
                    lambda i: ndi.sobel(src[i], axis=1, output=dst[i], mode="mirror")
                ), "cupyx.scipy.ndimage.sobel, mode mirror"
            wk = self.weights(SOBEL_X, ch)
            return (
                lambda i: ndi.correlate(src[i], wk, output=dst[i], mode="mirror")
            ), "cupyx.scipy.ndimage.correlate with the Sobel kernel per channel, mode mirror"
        if op == "sobel_mag":
            wx = self.weights(SOBEL_X, ch)
            wy = self.weights([list(r) for r in zip(*SOBEL_X)], ch)

            def run(i):
                gx = ndi.correlate(src[i], wx, output=cp.float32, mode="mirror")
                gy = ndi.correlate(src[i], wy, output=cp.float32, mode="mirror")
                cp.hypot(gx, gy, out=dst[i])

            return run, "cupyx.scipy.ndimage.correlate x2 + cupy.hypot"
        if op == "gaussian15":
            sigma = (GAUSS_SIGMA, GAUSS_SIGMA) if ch == 1 else (GAUSS_SIGMA, GAUSS_SIGMA, 0)
            return (
                lambda i: ndi.gaussian_filter(
                    src[i], sigma, output=dst[i], mode="mirror", truncate=7.0 / GAUSS_SIGMA
                )
            ), "cupyx.scipy.ndimage.gaussian_filter sigma 2.6 radius 7, mode mirror"
        if op == "spectrum" and variant == "cufft_r2c":
            # cuFFT's real-to-complex transform alone, on float input converted beforehand: the
            # floor under any spectrum (the "cuFFT R2C alone").
            srcf = [x.astype(cp.float32) for x in src]

            def run(i):
                cp.fft.rfft2(srcf[i])

            return run, "cupy.fft.rfft2 alone (cuFFT R2C) on float32 input made before timing"
        if op == "spectrum":

            def run(i):
                m = cp.log(cp.abs(cp.fft.fftshift(cp.fft.fft2(src[i].astype(cp.float32)))))
                lo, hi = m.min(), m.max()
                cp.copyto(dst[i], ((m - lo) * (255.0 / (hi - lo))).astype(cp.uint8))

            return run, ("the seed's spectrum: astype(float32), fft2 (complex64), fftshift, "
                         "log(abs), min-max to u8")
        if op == "fft2_r2c":
            return (lambda i: cp.fft.rfft2(src[i])), "cupy.fft.rfft2 (cuFFT R2C, new output)"
        if op == "stencil_mean3":
            if f32:
                raise Unsupported(fmt)
            k = cp.RawKernel(MEAN3_SRC, "mean3")
            grid = ((src[0].shape[1] + 15) // 16, (src[0].shape[0] + 15) // 16)
            hh, ww = cp.int32(src[0].shape[0]), cp.int32(src[0].shape[1])

            def run(i):
                k(grid, (16, 16), (src[i], dst[i], ww, hh, cp.int32(ch)))  # current stream

            return run, ("the seed's 3x3 mean as a cupy.RawKernel on 16x16 blocks (NVRTC), "
                         "reflect101 borders added")
        if op == "map_invert":
            top = "1" if f32 else str(self.np.iinfo(src[0].dtype).max)
            k = self.elementwise.setdefault(top, cp.ElementwiseKernel(
                "T x", "T y", f"y = {top} - x", f"gip_bench_invert_{top}"))
            return (lambda i: k(src[i], dst[i])), f"cupy.ElementwiseKernel y = {top} - x"
        made = family_make(self, "cupy", op, fmt, src, dst)
        if made:
            return made
        raise Unsupported(op)

    def variants(self, op):
        return [("cupy", None), ("cufft_r2c", "cufft_r2c")] if op == "spectrum" else [
            ("cupy", None)]

    def row(self, op, fmt, w, h, cfg, variant=None):
        cp, np = self.cp, self.np
        ddt, dch = dst_spec(op, fmt)
        nsets = gpu_sets(row_bytes(op, fmt, w, h), self.l2)
        host = host_image(np, w, h, fmt)
        with self.stream:
            try:
                src = [cp.asarray(host) for _ in range(nsets)]
                dst = [cp.zeros(dst_shape(op, w, h, dch), dtype=ddt) for _ in src]
                run, note = self.make(op, fmt, src, dst, variant)
                st = time_gpu(run, nsets, cfg, self.api)
            finally:
                src = dst = run = None
                self.stream.synchronize()
                cp.get_default_memory_pool().free_all_blocks()
        return st, note, nsets


# ---- PyTorch (GPU) --------------------------------------------------------------------------


class TorchAPI:
    def __init__(self, torch, stream):
        self.torch, self.stream = torch, stream
        # torch.cuda._sleep spins for a number of GPU cycles: measure cycles per millisecond
        # (after one call, so that first-launch costs are not counted).
        with torch.cuda.stream(stream):
            torch.cuda._sleep(1000)
            a, b = self.event(), self.event()
            a.record(stream)
            torch.cuda._sleep(10_000_000)
            b.record(stream)
            b.synchronize()
            self.cycles_per_ms = 10_000_000 / max(a.elapsed_time(b), 1e-3)

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def record(self, ev):
        ev.record(self.stream)

    def elapsed(self, a, b):
        return a.elapsed_time(b)

    def sync(self):
        self.stream.synchronize()

    def spin(self, ms):
        self.torch.cuda._sleep(int(ms * self.cycles_per_ms))


class TorchPeer:
    name = "torch"
    backend = "cuda"

    def __init__(self):
        import numpy as np
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch, self.np = torch, np
        self.F = torch.nn.functional
        self.version = torch.__version__
        torch.backends.cudnn.benchmark = True
        props = torch.cuda.get_device_properties(0)
        self.gpu = props.name
        self.l2 = getattr(props, "L2_cache_size", 0) or 60e6
        self.stream = torch.cuda.Stream()
        self.api = TorchAPI(torch, self.stream)

    def kernel(self, k, ch):
        t = self.torch.tensor(k, dtype=self.torch.float32, device="cuda")
        return t.reshape(1, 1, *t.shape).repeat(ch, 1, 1, 1)

    def variants(self, op):
        """torch itself, then each library on top of it that a family times for this row (its
        TORCH_LIBS: op -> names; the family's torch_<name>() makes the row)."""
        libs = [lib for fam in FAMILIES for lib in getattr(fam, "TORCH_LIBS", {}).get(op, ())]
        return [("torch", None)] + [(lib, lib) for lib in libs]

    def make(self, op, fmt, src, dst, variant=None):
        if variant:
            made = family_make(self, "torch_" + variant, op, fmt, src, dst)
            if made:
                return made
            raise Unsupported(op)
        torch, F = self.torch, self.F
        ch = FORMATS[fmt][1]
        u8 = FORMATS[fmt][0] == "uint8"
        conv_note = " (u8 converted to f32 inside the run: torch convolves floats)" if u8 else ""

        def fl(x):
            return x.float() if u8 else x

        def to_u8(y, out):
            out.copy_(y.round_().clamp_(0, 255))

        if op == "copy":
            return (lambda i: dst[i].copy_(src[i])), "Tensor.copy_"
        if op == "convert_f32":
            return (lambda i: dst[i].copy_(src[i])), "Tensor.copy_ (cast)"
        if op == "invert":
            if u8:
                return (lambda i: torch.bitwise_not(src[i], out=dst[i])), (
                    "torch.bitwise_not (= 255 - x)")
            return (lambda i: torch.rsub(src[i], 1.0)), "torch.rsub(x, 1.0) (new tensor)"
        if op == "gaussian15":
            g = torch.tensor(gauss_taps(), dtype=torch.float32, device="cuda")
            kv = g.reshape(1, 1, 15, 1).repeat(ch, 1, 1, 1)
            kh = g.reshape(1, 1, 1, 15).repeat(ch, 1, 1, 1)

            def run(i):
                x = F.pad(fl(src[i]), (7, 7, 7, 7), mode="reflect")
                y = F.conv2d(F.conv2d(x, kv, groups=ch), kh, groups=ch)
                to_u8(y, dst[i]) if u8 else dst[i].copy_(y)

            return run, "separable conv2d 15 + 15 taps after reflect pad" + conv_note
        if op == "box3":

            def run(i):
                x = F.pad(fl(src[i]), (1, 1, 1, 1), mode="reflect")
                y = F.avg_pool2d(x, 3, stride=1)
                to_u8(y, dst[i]) if u8 else dst[i].copy_(y)

            return run, "avg_pool2d 3x3 after reflect pad" + conv_note
        if op in ("filter2d3", "sobel_f32", "sobel_mag"):
            kx = self.kernel(FILTER2D if op == "filter2d3" else SOBEL_X, ch)
            ky = self.kernel([list(r) for r in zip(*SOBEL_X)], ch)

            def run(i):
                x = F.pad(fl(src[i]), (1, 1, 1, 1), mode="reflect")
                y = F.conv2d(x, kx, groups=ch)
                if op == "sobel_mag":
                    y = torch.hypot(y, F.conv2d(x, ky, groups=ch))
                if op == "filter2d3" and u8:
                    to_u8(y, dst[i])
                else:
                    dst[i].copy_(y)

            return run, "conv2d 3x3 per channel after reflect pad" + conv_note
        if op == "conv2d_sobel":
            if ch != 3:
                raise Unsupported(fmt)
            wt = torch.tensor(SOBEL_X, dtype=torch.float32, device="cuda").repeat(3, 3, 1, 1)

            def run(i):
                dst[i].copy_(F.conv2d(fl(src[i]), wt, padding=1))

            return run, "the seed's Conv2d(3, 3, 3, padding=1)" + conv_note
        if op == "spectrum":

            def run(i):
                m = torch.log(torch.abs(torch.fft.fftshift(torch.fft.fft2(src[i].float()))))
                lo, hi = m.min(), m.max()
                dst[i].copy_(((m - lo) * (255.0 / (hi - lo))).to(torch.uint8))

            return run, ("the seed's spectrum: float(), fft2 (complex64), fftshift, log(abs), "
                         "min-max to u8")
        if op == "fft2_r2c":
            return (lambda i: torch.fft.rfft2(src[i], out=dst[i])), "torch.fft.rfft2 (cuFFT R2C)"
        made = family_make(self, "torch", op, fmt, src, dst)
        if made:
            return made
        raise Unsupported(op)

    def row(self, op, fmt, w, h, cfg, variant=None):
        torch, np = self.torch, self.np
        ddt, dch = dst_spec(op, fmt)
        sdt, sch = FORMATS[fmt]
        if sdt == "uint16":
            raise Unsupported(fmt)
        if op in ("stencil_mean3", "map_invert"):
            raise Unsupported(op)  # gip's own box3 and invert rows are the reference there
        nsets = gpu_sets(row_bytes(op, fmt, w, h), self.l2)
        host = host_image(np, w, h, fmt)
        # Planar NCHW, torch's own layout (interleaved HWC would need a permute per run).
        planar = host[None, None] if sch == 1 else host.transpose(2, 0, 1)[None].copy()
        tdt = {"uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32,
               "float32": torch.float32, "float64": torch.float64,
               "complex64": torch.complex64}[ddt]
        plain_2d = op in ("spectrum", "fft2_r2c")  # transforms of one 2-D gray image
        if plain_2d:
            planar = planar[0, 0]
        with torch.cuda.stream(self.stream):
            try:
                src = [torch.from_numpy(planar).to("cuda") for _ in range(nsets)]
                dw, dh = dst_size(op, w, h)
                dst = [torch.zeros((1, dch, dh, dw), dtype=tdt, device="cuda") for _ in src]
                if plain_2d:
                    dst = [d[0, 0] for d in dst]
                run, note = self.make(op, fmt, src, dst, variant)
                st = time_gpu(run, nsets, cfg, self.api)
            finally:
                src = dst = run = None
                self.stream.synchronize()
                torch.cuda.empty_cache()
        return st, note + "; planar NCHW", nsets


# ---- main -----------------------------------------------------------------------------------


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nvidia_driver():
    try:
        with open("/proc/driver/nvidia/version") as f:
            line = f.readline()
        return next(t for t in line.split() if t[0].isdigit() and "." in t)
    except (OSError, StopIteration):
        return ""


def parse_sizes(s):
    out = []
    for item in s.split(","):
        w, h = item.lower().split("x")
        out.append((int(w), int(h)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1920x1080,3840x2160,7680x4320")
    ap.add_argument("--formats", default=None, help="formats (default: each operation's own)")
    ap.add_argument("--ops", default=None, help="operations (default: all)")
    ap.add_argument("--peers", default="opencv,numpy,cupy,torch")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="OpenCV threads")
    ap.add_argument("--iters", type=int, default=0, help="exact timed runs (default adaptive)")
    ap.add_argument("--time", type=float, default=0.3, help="time budget per row, seconds")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one run per row")
    cfg = ap.parse_args()
    cfg.min_runs, cfg.max_runs = 10, 5000
    if cfg.smoke:
        cfg.sizes, cfg.iters, cfg.warmup = "64x48,33x17", 1, 0
    sizes = parse_sizes(cfg.sizes)
    ops = cfg.ops.split(",") if cfg.ops else list(OPS)
    # gip's own comparison rows have no peer anywhere: accepted (bench-gpu.sh passes one list
    # of rows to gip-bench and here) and left out.
    gip_only = {"gauss121_direct", "gauss121_fft"}
    for fam in FAMILIES:
        gip_only |= getattr(fam, "GIP_ONLY", set())
    ops = [op for op in ops if op not in gip_only]
    for op in ops:
        if op not in OPS:
            sys.exit(f"peers.py: unknown operation {op!r} (known: {', '.join(OPS)})")
    if cfg.formats:
        for f in cfg.formats.split(","):
            if f not in FORMATS:
                sys.exit(f"peers.py: unknown format {f!r} (known: {', '.join(FORMATS)})")

    doc = {
        "schema": "gip-bench/1",
        "tool": "peers.py",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"hostname": socket.gethostname(), "cpu": cpu_model(), "cores": os.cpu_count()},
        "threads": None,
        "gpu": None,
        "compiler": None,
        "python": platform.python_version(),
        "peers": {},
        "settings": {"target_s": cfg.time, "iters": cfg.iters, "warmup": cfg.warmup,
                     "smoke": cfg.smoke},
        "copy_bandwidth": {},
        "unavailable": [],
        "rows": [],
    }
    peers = []
    makers = {"opencv": lambda: OpenCVPeer(cfg.threads), "numpy": NumpyPeer, "cupy": CupyPeer,
              "torch": TorchPeer}
    for name in cfg.peers.split(","):
        if name not in makers:
            sys.exit(f"peers.py: unknown peer {name!r} (opencv, numpy, cupy, torch)")
        try:
            p = makers[name]()
        except Exception as e:  # an import or a driver problem: say so, go on with the others
            reason = f"{type(e).__name__}: {e}".splitlines()[0]
            print(f"peer {name} unavailable: {reason}")
            doc["unavailable"].append({"what": name, "reason": reason})
            continue
        peers.append(p)
        doc["peers"][name] = p.version
        if name == "opencv":
            doc["threads"] = p.threads
            print(f"peer opencv {p.version}, {p.threads} threads")
        elif name == "numpy":
            print(f"peer numpy {p.version}")
        else:
            doc["gpu"] = {"name": p.gpu, "driver": nvidia_driver()}
            print(f"peer {name} {p.version} on {p.gpu}")

    signal.signal(signal.SIGTERM, on_term)
    doc["interrupted"] = False
    try:
        run_rows(cfg, sizes, ops, peers, doc)
    except (Stop, KeyboardInterrupt):
        doc["interrupted"] = True
        print("\ninterrupted: the JSON holds the rows measured before the signal")
    if cfg.json:
        with open(cfg.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"\njson: {cfg.json}")
    return 0


def run_rows(cfg, sizes, ops, peers, doc):
    print(f"\n{'op':13} {'size':10} {'format':6} {'peer':9} {'ms':>10} {'p10':>9} {'p90':>9}"
          f" {'GB/s':>8}  note")
    for w, h in sizes:
        for p in peers:
            for op in ops:
                defaults = OPS[op][0]
                fmts = [f for f in cfg.formats.split(",")] if cfg.formats else defaults
                # A peer may time several implementations of one row (CuPy: the seed's
                # spectrum pipeline and cuFFT's R2C alone), each under its own impl name.
                variants = p.variants(op) if hasattr(p, "variants") else [(p.name, None)]
                for fmt in fmts:
                    for impl, variant in variants:
                        row_one(cfg, doc, p, impl, variant, op, fmt, w, h)


def row_one(cfg, doc, p, impl, variant, op, fmt, w, h):
    row = {"op": op, "size": f"{w}x{h}", "width": w, "height": h,
           "format": fmt, "backend": p.backend, "impl": impl}
    try:
        if variant is None:
            st, note, nsets = p.row(op, fmt, w, h, cfg)
        else:
            st, note, nsets = p.row(op, fmt, w, h, cfg, variant)
    except Unsupported:
        return
    except Stop:
        raise
    except Exception as e:
        row.update(status="error", reason=f"{type(e).__name__}: {e}".splitlines()[0][:300])
        doc["rows"].append(row)
        print(f"{op:13} {w}x{h:<6} {fmt:6} {impl:9} error: {row['reason']}")
        return
    b = row_bytes(op, fmt, w, h)
    row.update(status="ok", note=note, bytes=b, gbs=b / (st["ms"] * 1e6), sets=nsets, **st)
    doc["rows"].append(row)
    print(f"{op:13} {w}x{h:<6} {fmt:6} {impl:9} {st['ms']:10.4f}"
          f" {st['p10_ms']:9.4f} {st['p90_ms']:9.4f} {row['gbs']:8.1f}  {note}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
