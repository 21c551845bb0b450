#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The jobs of the seed articles (shared/seeds) timed with gip and with the seeds' own libraries in
one process, on the same images, printed side by side (issue 7, performance part).

Jobs: 1 a custom 3x3 mean kernel (gip.stencil and a raw NVRTC module against PyCUDA's SourceModule,
or a CuPy RawKernel when PyCUDA is absent), 2 Sobel edges of an RGB image with the seed's 3->3
Conv2d weights (gip.conv2d and gip.sobel against torch.nn.Conv2d), 3 Gaussian blur 15x15 of u8c3
(against cv2.cuda, or CuPy and PyTorch when OpenCV has no CUDA devices; cv2 on the CPU), 4 the FFT
log-magnitude spectrum to 8 bits (against the seed's CuPy code and torch.fft), 5 colour inversion
(against a Numba CUDA kernel, or a CuPy ElementwiseKernel). Style transfer: bench/style_bench.sh.

Timing, the same for every library: the input is uploaded once, warm-up runs, then --reps
repetitions of N runs queued back to back with one device synchronize at the end (perf_counter
around the synced loop); a row's figure is the time of a repetition divided by N: median and
minimum over the repetitions. GPU rows have device-resident inputs (nothing crosses the bus in the
loop); each library's whole round trip (host array in, host array out) is a separate row. CPU rows
take N so that a repetition lasts about --cpu-time seconds. Every import is guarded: a library or
a GPU that is missing skips its rows with the reason printed, and the others still run.
Each row's result is compared with gip's (max abs difference) so that the same job is compared.
"""
import argparse
import datetime
import gc
import glob
import json
import math
import os
import platform
import socket
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data")

# The example images of python/examples, one per job.
JOB_IMAGE = {"mean3x3": "chelsea.png", "sobel_conv2d": "chelsea.png",
             "gaussian15": "chelsea.png", "spectrum": "hubble_deep_field.jpg",
             "invert": "astronaut.png"}
JOBS = list(JOB_IMAGE)

# The 3x3 mean as the seed writes it: one thread per pixel, nine loads from global memory,
# divided by 9.0f, 16x16 blocks, (in, out, width, height). Written anew with what the seed lacks:
# the size is passed and the neighbours are clamped to the image (the seed reads outside it),
# so it computes what gip.stencil does with BORDER_REPLICATE.
SEED_MEAN_SOURCE = r"""
extern "C" __global__ void image_processing(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int xl = max(x - 1, 0), xr = min(x + 1, width - 1);
        int yu = max(y - 1, 0), yd = min(y + 1, height - 1);
        out[y * width + x] = (in[yu * width + xl] + in[yu * width + x] + in[yu * width + xr] +
                              in[y * width + xl] + in[y * width + x] + in[y * width + xr] +
                              in[yd * width + xl] + in[yd * width + x] + in[yd * width + xr]) /
                             9.0f;
    }
}
"""

SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
SOBEL_WEIGHT = np.ascontiguousarray(np.tile(SOBEL_X, (3, 3, 1, 1)))  # (out, in, kh, kw)
GAUSS_SIGMA = 0.3 * ((15 - 1) * 0.5 - 1) + 0.8  # OpenCV's sigma for ksize 15, sigma 0: 2.6


def gauss_taps():
    k = np.exp(-((np.arange(15) - 7.0) ** 2) / (2 * GAUSS_SIGMA ** 2))
    return (k / k.sum()).astype(np.float32)


# ---- the libraries, each imported under a guard ---------------------------------------------------
class Libs:
    """What can run here: modules, versions, and for each missing piece the reason."""

    def __init__(self, want_gpu):
        self.reasons = {}
        self.versions = {"numpy": np.__version__}
        self.gip = self.gip_gpu = self.cv2 = self.cp = self.cpx_ndimage = None
        self.torch = self.torch_cuda = self.scipy_ndimage = None
        self.pycuda = self.numba_cuda = None
        self.cv2_cuda = False
        self.gpu_name = None
        try:
            import gip
            self.gip = gip
            self.versions["gip"] = gip.__version__
            reason = gip.unavailable_reason()
            usable = [d for d in gip.devices() if d.get("usable")]
            if not want_gpu:
                self.reasons["gip (GPU)"] = "--device cpu"
            elif usable:
                self.gip_gpu = gip.Device("cuda:%d" % usable[0]["index"])
                self.gpu_name = self.gip_gpu.describe
            else:
                self.reasons["gip (GPU)"] = reason or "no usable CUDA device"
        except Exception as e:  # noqa: BLE001 - any failure to import is reported, not fatal
            self.reasons["gip"] = "import gip failed: %s" % e
        try:
            import cv2
            self.cv2 = cv2
            self.versions["opencv"] = cv2.__version__
            try:
                n = cv2.cuda.getCudaEnabledDeviceCount()
            except (AttributeError, cv2.error) as e:
                n, why = 0, str(e)
            else:
                why = "cv2.cuda.getCudaEnabledDeviceCount() = 0 (OpenCV built without CUDA, " \
                      "as the pip wheels are, or no device)"
            self.cv2_cuda = want_gpu and n > 0
            if not self.cv2_cuda:
                self.reasons["cv2.cuda"] = why if want_gpu else "--device cpu"
        except Exception as e:  # noqa: BLE001
            self.reasons["opencv"] = "import cv2 failed: %s" % e
        try:
            import scipy
            import scipy.ndimage
            self.scipy_ndimage = scipy.ndimage
            self.versions["scipy"] = scipy.__version__
        except Exception as e:  # noqa: BLE001
            self.reasons["scipy"] = "import scipy.ndimage failed: %s" % e
        try:
            import torch
            torch.set_grad_enabled(False)
            self.torch = torch
            self.versions["torch"] = torch.__version__
            if not want_gpu:
                self.reasons["torch (GPU)"] = "--device cpu"
            elif torch.cuda.is_available():
                self.torch_cuda = torch.device("cuda:0")
            else:
                self.reasons["torch (GPU)"] = "torch.cuda.is_available() is False"
        except Exception as e:  # noqa: BLE001
            self.reasons["torch"] = "import torch failed: %s" % e
        if want_gpu:
            self._gpu_imports()

    def _gpu_imports(self):
        try:
            import cupy
            import cupyx.scipy.ndimage
            n = cupy.cuda.runtime.getDeviceCount()
            if n < 1:
                raise RuntimeError("no CUDA device")
            self.cp = cupy
            self.cpx_ndimage = cupyx.scipy.ndimage
            self.versions["cupy"] = cupy.__version__
        except Exception as e:  # noqa: BLE001
            self.reasons["cupy"] = "%s: %s" % (type(e).__name__, e)
        try:
            import pycuda.driver as drv
            from pycuda import gpuarray
            from pycuda.compiler import SourceModule
            drv.init()
            if drv.Device.count() < 1:
                raise RuntimeError("no CUDA device")
            self.pycuda = (drv, gpuarray, SourceModule)
            import pycuda
            self.versions["pycuda"] = pycuda.VERSION_TEXT
        except Exception as e:  # noqa: BLE001
            self.reasons["pycuda"] = "%s: %s" % (type(e).__name__, e)
        try:
            from numba import cuda
            if not cuda.is_available():
                raise RuntimeError("numba.cuda.is_available() is False")
            import numba
            self.numba_cuda = cuda
            self.versions["numba"] = numba.__version__
        except Exception as e:  # noqa: BLE001
            self.reasons["numba"] = "%s: %s" % (type(e).__name__, e)

    # Synchronizes: each library's own whole-device (or whole-stream) wait.
    def gip_sync(self):
        self.gip_gpu.sync()

    def cp_sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def torch_sync(self):
        self.torch.cuda.synchronize()


def nosync():
    pass


def to_host(x):
    """A numpy copy of a result of any of the libraries (gip.Image, GpuMat, CuPy, PyCUDA, Numba,
    PyTorch, numpy)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "download"):  # gip.Image, cv2.cuda.GpuMat
        return x.download()
    if hasattr(x, "copy_to_host"):  # numba
        return x.copy_to_host()
    if hasattr(x, "detach"):  # torch
        return x.detach().cpu().numpy()
    if hasattr(x, "get"):  # cupy, pycuda
        return x.get()
    return np.asarray(x)


# ---- timing and rows ------------------------------------------------------------------------------
class Bench:
    def __init__(self, cfg, libs):
        self.cfg = cfg
        self.libs = libs
        self.rows = []
        self.refs = {}  # (job, image) -> gip's result (numpy), the reference of the comparisons

    def time(self, fn, sync, gpu_device_row):
        cfg = self.cfg
        for _ in range(cfg.warmup):
            fn()
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        est = time.perf_counter() - t0
        if gpu_device_row:
            n = cfg.runs
        else:
            n = int(max(1, min(cfg.runs, round(cfg.cpu_time / max(est, 1e-9)))))
        reps = cfg.reps if est * n < 5.0 else max(2, min(cfg.reps, 3))
        per = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            sync()
            per.append((time.perf_counter() - t0) * 1e3 / n)
        return statistics.median(per), min(per), n * reps

    def row(self, job, image, library, device, kind, fn, sync=nosync, *, reference=False,
            compare=None, note=""):
        """Times fn (which returns the job's result) and records a row. kind: 'device' (GPU,
        device-resident input and output), 'roundtrip' (GPU, host in, host out) or 'host' (CPU).
        reference: this is gip's result for (job, image); compare(out, ref) -> float replaces
        the plain max abs difference (a row of a related but different job)."""
        r = {"job": job, "image": image, "library": library, "device": device, "kind": kind,
             "status": "ok", "ms_median": None, "ms_min": None, "runs": 0, "ratio_vs_gip": None,
             "max_abs_diff": None, "note": note}
        try:
            med, mn, runs = self.time(fn, sync, kind == "device")
            r.update(ms_median=med, ms_min=mn, runs=runs)
            out = to_host(fn())
            sync()
            key = (job, image)
            if reference and key not in self.refs:
                self.refs[key] = out
            ref = self.refs.get(key)
            if ref is not None:
                if compare is not None:
                    r["max_abs_diff"] = float(compare(out, ref))
                else:
                    r["max_abs_diff"] = max_abs_diff(out, ref)
        except Exception as e:  # noqa: BLE001 - a failing row is reported, the run goes on
            r["status"] = "error"
            r["note"] = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:200] + \
                ("; " + note if note else "")
        r["gip_ref"] = reference
        self.rows.append(r)
        self.print_row(r)
        return r

    def print_row(self, r):
        if r["status"] != "ok":
            print("  %-44s %-4s %-9s  error: %s" % (r["library"], dev_short(r["device"]),
                                                     r["kind"], r["note"]), flush=True)
            return
        d = "" if r["max_abs_diff"] is None else "%.3g" % r["max_abs_diff"]
        print("  %-44s %-4s %-9s %10.3f %10.3f %6d  %s%s" %
              (r["library"], dev_short(r["device"]), r["kind"], r["ms_median"], r["ms_min"],
               r["runs"], d, ("  (" + r["note"] + ")") if r["note"] else ""), flush=True)

    def finish_ratios(self):
        """ratio_vs_gip = row time / time of gip's reference row of the same job, image, device
        and kind (above 1: gip is faster)."""
        base = {}
        for r in self.rows:
            if r["gip_ref"] and r["status"] == "ok":
                base.setdefault((r["job"], r["image"], r["device"], r["kind"]), r["ms_median"])
        for r in self.rows:
            b = base.get((r["job"], r["image"], r["device"], r["kind"]))
            if b and r["status"] == "ok":
                r["ratio_vs_gip"] = r["ms_median"] / b


def dev_short(d):
    return "gpu" if d.startswith("cuda") else d


def max_abs_diff(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        a = np.squeeze(a)
        b = np.squeeze(b)
    if a.shape != b.shape:
        raise ValueError("result shape %s differs from gip's %s" % (a.shape, b.shape))
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    d = d[np.isfinite(d)]
    return float(d.max()) if d.size else 0.0


# ---- images ---------------------------------------------------------------------------------------
def parse_size(s):
    if s in ("", "0", "none", "off"):
        return None
    w, h = s.lower().split("x")
    return int(w), int(h)


def load_bgr(libs, path):
    if libs.gip is not None:
        return libs.gip.imread(path)
    return libs.cv2.imread(path)


def big_image(sample, size, fill, seed=1):
    """A WxH image: the sample tiled (mirrored so that the tiles meet without seams) or random."""
    w, h = size
    if fill == "random":
        rng = np.random.default_rng(seed)
        shape = (h, w) + sample.shape[2:]
        return rng.integers(0, 256, size=shape, dtype=np.uint8)
    tile = np.concatenate([sample, sample[::-1]], axis=0)
    tile = np.concatenate([tile, tile[:, ::-1]], axis=1)
    reps = (h // tile.shape[0] + 1, w // tile.shape[1] + 1) + (1,) * (sample.ndim - 2)
    return np.ascontiguousarray(np.tile(tile, reps)[:h, :w])


def images_for(job, cfg, libs):
    """[(label, BGR u8 image)]: the job's example image (or --image), then the --size image."""
    paths = cfg.image or [os.path.join(DATA, JOB_IMAGE[job])]
    out = []
    for p in paths:
        img = load_bgr(libs, p)
        if img is None:
            raise SystemExit("seeds_bench: cannot read %s" % p)
        if img.ndim == 2:
            img = np.repeat(img[:, :, None], 3, axis=2)
        out.append(("%s %dx%d" % (os.path.basename(p), img.shape[1], img.shape[0]), img[:, :, :3]))
    if cfg.size:
        big = big_image(out[0][1], cfg.size, cfg.fill)
        out.append(("%s %dx%d" % (cfg.fill, cfg.size[0], cfg.size[1]), big))
    return out


def bgr2gray(libs, bgr):
    if libs.cv2 is not None:
        return libs.cv2.cvtColor(bgr, libs.cv2.COLOR_BGR2GRAY)
    return libs.gip.cvt_color(bgr, libs.gip.COLOR_BGR2GRAY, device="cpu")


def gpu_skip(b, job, what):
    print("  [GPU rows of %s skipped: %s]" % (job, what))


# ---- job 1: the custom 3x3 mean kernel -------------------------------------------------------------
def job_mean3x3(b, label, bgr):
    libs, gip, job = b.libs, b.libs.gip, "mean3x3"
    img = (bgr2gray(libs, bgr).astype(np.float32) / 255.0)  # the seed: a float32 gray image
    h, w = img.shape
    if gip is not None:
        sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
        # gip's example: the same raw kernel and stencil expression
        from custom_kernel_blur import SOURCE, STENCIL
        rep = gip.BORDER_REPLICATE
    dev = libs.gip_gpu
    if dev is not None:
        src = gip.upload(img, dev)
        dst = gip.upload(np.zeros_like(img), dev)
        b.row(job, label, "gip.stencil", "cuda", "device",
              lambda: gip.stencil(STENCIL, src, borderType=rep, dst=dst), libs.gip_sync,
              reference=True, note="NVRTC-compiled expression; dst preallocated")
        mod = gip.compile(SOURCE, "mean3x3.cu", device=dev)
        kern = mod.get_function("mean3x3")

        def run_module():
            kern(src, dst, block=(16, 16))
            return dst
        b.row(job, label, "gip raw module (NVRTC, example kernel)", "cuda", "device",
              run_module, libs.gip_sync, note="python/examples/custom_kernel_blur.py SOURCE")
    else:
        gpu_skip(b, job, libs.reasons.get("gip (GPU)", "gip has no GPU"))
    bx, by = (w + 15) // 16, (h + 15) // 16
    if dev is not None and libs.pycuda is not None:
        drv, gpuarray, SourceModule = libs.pycuda
        pctx = drv.Device(dev.index).retain_primary_context()  # the runtime's context, shared
        pctx.push()
        s_g = d_g = fn = None
        try:
            fn = SourceModule(SEED_MEAN_SOURCE, no_extern_c=True).get_function("image_processing")
            s_g = gpuarray.to_gpu(img)
            d_g = gpuarray.empty_like(s_g)
            wh = (np.int32(w), np.int32(h))

            def run_pycuda():
                fn(s_g.gpudata, d_g.gpudata, *wh, block=(16, 16, 1), grid=(bx, by, 1))
                return d_g
            b.row(job, label, "pycuda SourceModule (seed kernel)", "cuda", "device", run_pycuda,
                  drv.Context.synchronize)

            def roundtrip_pycuda():  # the seed's process_image: alloc, copy in, run, copy out
                si = drv.mem_alloc(img.nbytes)
                drv.memcpy_htod(si, img)
                so = drv.mem_alloc(img.nbytes)
                fn(si, so, *wh, block=(16, 16, 1), grid=(bx, by, 1))
                out = np.empty_like(img)
                drv.memcpy_dtoh(out, so)
                si.free()
                so.free()
                return out
            b.row(job, label, "pycuda SourceModule (seed kernel)", "cuda", "roundtrip",
                  roundtrip_pycuda, drv.Context.synchronize, note="the seed's process_image")
        finally:
            s_g = d_g = fn = None  # freed while the context is current
            gc.collect()
            pctx.pop()
    elif dev is not None and libs.cp is not None:
        cp = libs.cp
        print("  [PyCUDA absent (%s): the seed's kernel runs as a CuPy RawKernel]"
              % libs.reasons.get("pycuda", "?"))
        kern_cp = cp.RawKernel(SEED_MEAN_SOURCE, "image_processing")
        s_c = cp.asarray(img)
        d_c = cp.empty_like(s_c)
        args = (s_c, d_c, np.int32(w), np.int32(h))

        def run_cupy():
            kern_cp((bx, by), (16, 16), args)
            return d_c
        b.row(job, label, "cupy RawKernel (seed kernel)", "cuda", "device", run_cupy, libs.cp_sync,
              note="PyCUDA absent")

        def roundtrip_cupy():
            si = cp.asarray(img)
            so = cp.empty_like(si)
            kern_cp((bx, by), (16, 16), (si, so, np.int32(w), np.int32(h)))
            return cp.asnumpy(so)
        b.row(job, label, "cupy RawKernel (seed kernel)", "cuda", "roundtrip", roundtrip_cupy,
              libs.cp_sync, note="PyCUDA absent")
    elif dev is not None:
        print("  [seed kernel skipped: neither PyCUDA (%s) nor CuPy (%s)]"
              % (libs.reasons.get("pycuda"), libs.reasons.get("cupy")))
    if dev is not None:
        b.row(job, label, "gip.stencil", "cuda", "roundtrip",
              lambda: gip.stencil(STENCIL, img, borderType=rep, device=dev), reference=True)
    # CPU
    if gip is not None:
        b.row(job, label, "gip.stencil", "cpu", "host",
              lambda: gip.stencil(STENCIL, img, borderType=rep, device="cpu"), reference=True)
    if libs.cv2 is not None:
        cv2 = libs.cv2
        b.row(job, label, "cv2.blur 3x3 (BORDER_REPLICATE)", "cpu", "host",
              lambda: cv2.blur(img, (3, 3), borderType=cv2.BORDER_REPLICATE))

    def numpy_mean():
        p = np.pad(img, 1, mode="edge")
        acc = np.zeros_like(img)
        for dy in range(3):
            for dx in range(3):
                acc += p[dy:dy + h, dx:dx + w]
        return acc / np.float32(9)
    b.row(job, label, "numpy (9 shifted slices)", "cpu", "host", numpy_mean, note="one thread")


# ---- job 2: Sobel edges with the seed's Conv2d --------------------------------------------------
def sobel_vs_conv(out, ref):
    """gip.sobel is per channel with reflect-101 borders; summed over the input channels it is
    each output channel of the seed's Conv2d: compared inside a 1-pixel margin."""
    s = out.astype(np.float64).sum(axis=2)[1:-1, 1:-1]
    return max(max_abs_diff(s, ref[1:-1, 1:-1, c]) for c in range(ref.shape[2]))


def job_sobel_conv2d(b, label, bgr):
    libs, gip, torch, job = b.libs, b.libs.gip, b.libs.torch, "sobel_conv2d"
    rgb = np.ascontiguousarray(bgr[:, :, ::-1])  # the seed converts to RGB
    h, w = rgb.shape[:2]
    wt = SOBEL_WEIGHT
    dev = libs.gip_gpu
    conv = None
    if torch is not None:
        conv = torch.nn.Conv2d(3, 3, 3, bias=False, padding=1)
        conv.weight.data = torch.from_numpy(wt.copy())
    if dev is not None:
        src = gip.upload(rgb, dev)
        dst = gip.upload(np.zeros((h, w, 3), np.float32), dev)
        b.row(job, label, "gip.conv2d (3->3 Sobel weights)", "cuda", "device",
              lambda: gip.conv2d(src, wt, padding=1, dst=dst), libs.gip_sync, reference=True,
              note="u8 HWC in, f32 HWC out; dst preallocated")
        dst2 = gip.upload(np.zeros((h, w, 3), np.float32), dev)
        b.row(job, label, "gip.sobel dx=1 per channel (CV_32F)", "cuda", "device",
              lambda: gip.sobel(src, gip.CV_32F, 1, 0, dst=dst2), libs.gip_sync,
              compare=sobel_vs_conv, note="cv2.Sobel's job; diff: sum over channels, inside")
    else:
        gpu_skip(b, job, libs.reasons.get("gip (GPU)", "gip has no GPU"))
    if dev is not None and libs.torch_cuda is not None:
        td = libs.torch_cuda
        conv_g = torch.nn.Conv2d(3, 3, 3, bias=False, padding=1).to(td)
        conv_g.weight.data = torch.from_numpy(wt.copy()).to(td)
        t_u8 = torch.from_numpy(rgb).to(td)
        t_f = t_u8.permute(2, 0, 1).unsqueeze(0).float().contiguous()
        b.row(job, label, "torch.nn.Conv2d (f32 NCHW in and out)", "cuda", "device",
              lambda: conv_g(t_f), libs.torch_sync,
              compare=lambda o, r: max_abs_diff(o[0].transpose(1, 2, 0), r),
              note="the convolution alone, input already float planar (the seed's tensor)")
        b.row(job, label, "torch.nn.Conv2d (u8 HWC in, f32 HWC out)", "cuda", "device",
              lambda: conv_g(t_u8.permute(2, 0, 1).unsqueeze(0).float())[0]
              .permute(1, 2, 0).contiguous(), libs.torch_sync,
              note="gip's input and output: with the layout conversions")

        def roundtrip_torch():  # the seed: float on the host, to the GPU, conv, back, HWC
            x = torch.from_numpy(rgb).float().permute(2, 0, 1).unsqueeze(0).to(td)
            return conv_g(x).squeeze(0).permute(1, 2, 0).cpu().numpy()
        b.row(job, label, "torch.nn.Conv2d (the seed's steps)", "cuda", "roundtrip",
              roundtrip_torch, libs.torch_sync, note="float conversion on the host, as the seed")
    elif dev is not None:
        gpu_skip(b, job + " (torch)", libs.reasons.get("torch (GPU)",
                                                      libs.reasons.get("torch", "?")))
    if dev is not None:
        b.row(job, label, "gip.conv2d (3->3 Sobel weights)", "cuda", "roundtrip",
              lambda: gip.conv2d(rgb, wt, padding=1, device=dev), reference=True)
    # CPU
    if gip is not None:
        b.row(job, label, "gip.conv2d (3->3 Sobel weights)", "cpu", "host",
              lambda: gip.conv2d(rgb, wt, padding=1, device="cpu"), reference=True)
        b.row(job, label, "gip.sobel dx=1 per channel (CV_32F)", "cpu", "host",
              lambda: gip.sobel(rgb, gip.CV_32F, 1, 0, device="cpu"), compare=sobel_vs_conv,
              note="cv2.Sobel's job")
    if conv is not None:
        def torch_cpu():
            x = torch.from_numpy(rgb).float().permute(2, 0, 1).unsqueeze(0)
            return conv(x).squeeze(0).permute(1, 2, 0).contiguous()
        b.row(job, label, "torch.nn.Conv2d (u8 HWC in, f32 HWC out)", "cpu", "host", torch_cpu)
    if libs.cv2 is not None:
        cv2 = libs.cv2

        def cv2_conv():  # every output channel: Sobel-x of the sum of the channels, zero padding
            s = rgb.astype(np.float32).sum(axis=2)
            e = cv2.filter2D(s, cv2.CV_32F, SOBEL_X, borderType=cv2.BORDER_CONSTANT)
            return cv2.merge([e, e, e])
        b.row(job, label, "cv2.filter2D of the channel sum", "cpu", "host", cv2_conv,
              note="numpy channel sum + filter2D + merge")
        b.row(job, label, "cv2.Sobel dx=1 (CV_32F)", "cpu", "host",
              lambda: cv2.Sobel(rgb, cv2.CV_32F, 1, 0), compare=sobel_vs_conv,
              note="gip.sobel's job")


# ---- job 3: Gaussian blur 15x15 of u8c3 -----------------------------------------------------------
def torch_gauss(torch, t_u8, kx, ky):
    """Separable 15x15 Gaussian of a u8 HWC tensor, reflect-101 borders, rounded to u8 HWC."""
    F = torch.nn.functional
    x = t_u8.permute(2, 0, 1).unsqueeze(0).float()
    x = F.pad(x, (7, 7, 7, 7), mode="reflect")
    x = F.conv2d(F.conv2d(x, kx, groups=3), ky, groups=3)
    return x.round_().clamp_(0, 255).to(torch.uint8)[0].permute(1, 2, 0).contiguous()


def job_gaussian15(b, label, img):
    libs, gip, torch, job = b.libs, b.libs.gip, b.libs.torch, "gaussian15"
    dev = libs.gip_gpu
    sig = (GAUSS_SIGMA, GAUSS_SIGMA, 0)
    trunc = 7 / GAUSS_SIGMA + 1e-6  # radius int(truncate * sigma + 0.5) = 7: 15 taps
    taps = gauss_taps()
    kx = ky = None
    if torch is not None:
        kx = torch.from_numpy(taps.copy()).view(1, 1, 1, 15).repeat(3, 1, 1, 1)
        ky = torch.from_numpy(taps.copy()).view(1, 1, 15, 1).repeat(3, 1, 1, 1)
    if dev is not None:
        src = gip.upload(img, dev)
        dst = gip.upload(np.zeros_like(img), dev)
        b.row(job, label, "gip.gaussian_blur", "cuda", "device",
              lambda: gip.gaussian_blur(src, (15, 15), 0, dst=dst), libs.gip_sync, reference=True,
              note="dst preallocated")
    else:
        gpu_skip(b, job, libs.reasons.get("gip (GPU)", "gip has no GPU"))
    if dev is not None and libs.cv2_cuda:
        cv2 = libs.cv2
        g_src = cv2.cuda_GpuMat()
        g_src.upload(img)
        g_dst = cv2.cuda_GpuMat(img.shape[0], img.shape[1], cv2.CV_8UC3)
        filt = cv2.cuda.createGaussianFilter(cv2.CV_8UC3, cv2.CV_8UC3, (15, 15), 0)

        def cv2_sync():  # OpenCV's null stream (its functions mostly wait on it already)
            null = getattr(cv2.cuda, "Stream_Null", None) or cv2.cuda_Stream.Null
            null().waitForCompletion()
        b.row(job, label, "cv2.cuda GaussianFilter", "cuda", "device",
              lambda: filt.apply(g_src, g_dst), cv2_sync)

        def roundtrip_cv2():
            g = cv2.cuda_GpuMat()
            g.upload(img)
            return filt.apply(g).download()
        b.row(job, label, "cv2.cuda GaussianFilter", "cuda", "roundtrip", roundtrip_cv2, cv2_sync)
    elif dev is not None:
        print("  [OpenCV's CUDA module is absent (%s): timing cupyx.scipy.ndimage.gaussian_filter"
              " and PyTorch (separable conv2d) instead]" % libs.reasons.get("cv2.cuda", "?"))
        if libs.cp is not None:
            cp, ndi = libs.cp, libs.cpx_ndimage
            c_src = cp.asarray(img)
            c_dst = cp.empty_like(c_src)
            b.row(job, label, "cupyx.scipy.ndimage.gaussian_filter", "cuda", "device",
                  lambda: ndi.gaussian_filter(c_src, sig, output=c_dst, mode="mirror",
                                              truncate=trunc), libs.cp_sync,
                  note="sigma 2.6, 15 taps, mode mirror = reflect-101")
            b.row(job, label, "cupyx.scipy.ndimage.gaussian_filter", "cuda", "roundtrip",
                  lambda: cp.asnumpy(ndi.gaussian_filter(cp.asarray(img), sig, mode="mirror",
                                                         truncate=trunc)), libs.cp_sync)
        else:
            gpu_skip(b, job + " (cupy)", libs.reasons.get("cupy", "?"))
        if libs.torch_cuda is not None:
            td = libs.torch_cuda
            t_u8 = torch.from_numpy(img).to(td)
            kxg, kyg = kx.to(td), ky.to(td)
            b.row(job, label, "torch separable conv2d (u8 HWC in and out)", "cuda", "device",
                  lambda: torch_gauss(torch, t_u8, kxg, kyg), libs.torch_sync,
                  note="float, reflect pad, 1x15 + 15x1 grouped conv, round")
            b.row(job, label, "torch separable conv2d (u8 HWC in and out)", "cuda", "roundtrip",
                  lambda: torch_gauss(torch, torch.from_numpy(img).to(td), kxg, kyg).cpu(),
                  libs.torch_sync)
        else:
            gpu_skip(b, job + " (torch)", libs.reasons.get("torch (GPU)",
                                                          libs.reasons.get("torch", "?")))
    if dev is not None:
        b.row(job, label, "gip.gaussian_blur", "cuda", "roundtrip",
              lambda: gip.gaussian_blur(img, (15, 15), 0, device=dev), reference=True)
    # CPU
    if gip is not None:
        b.row(job, label, "gip.gaussian_blur", "cpu", "host",
              lambda: gip.gaussian_blur(img, (15, 15), 0, device="cpu"), reference=True)
    if libs.cv2 is not None:
        b.row(job, label, "cv2.GaussianBlur", "cpu", "host",
              lambda: libs.cv2.GaussianBlur(img, (15, 15), 0))
    if kx is not None:
        b.row(job, label, "torch separable conv2d (u8 HWC in and out)", "cpu", "host",
              lambda: torch_gauss(torch, torch.from_numpy(img), kx, ky))
    if libs.scipy_ndimage is not None:
        b.row(job, label, "scipy.ndimage.gaussian_filter", "cpu", "host",
              lambda: libs.scipy_ndimage.gaussian_filter(img, sig, mode="mirror", truncate=trunc),
              note="one thread; the CPU twin of the cupyx row")


# ---- job 4: the FFT spectrum --------------------------------------------------------------------
def minmax_u8(xp, m):
    """min-max of the finite values to 0..255, rounded (cv2.normalize NORM_MINMAX, CV_8U); -inf
    (log 0) becomes 0. No host round trip: the extremes stay on the device."""
    fin = xp.isfinite(m)
    lo = xp.where(fin, m, xp.inf).min()
    hi = xp.where(fin, m, -xp.inf).max()
    scale = 255.0 / xp.maximum(hi - lo, 1e-30)
    v = xp.clip(xp.rint((m - lo) * scale), 0, 255)
    return xp.to_u8(v) if hasattr(xp, "to_u8") else v.astype(xp.uint8)


def spectrum_xp(xp, gray, dtype=None):
    """The seed's code with numpy or CuPy: fft2 (of uint8: complex128; dtype float32: complex64),
    fftshift, log|.|, then min-max to u8 on the same device."""
    a = gray if dtype is None else gray.astype(dtype)
    m = xp.log(xp.abs(xp.fft.fftshift(xp.fft.fft2(a))))
    return minmax_u8(xp, m)


def spectrum_numpy(gray, dtype=None):
    with np.errstate(divide="ignore"):
        return spectrum_xp(np, gray, dtype)


def spectrum_torch(torch, t_u8):
    F = torch.fft.fftshift(torch.fft.fft2(t_u8.float()))
    return minmax_u8(_TorchXp(torch), torch.log(torch.abs(F)))


class _TorchXp:
    """The few numpy names minmax_u8 uses, for torch tensors."""

    def __init__(self, torch):
        self.t = torch
        self.inf = math.inf

    def isfinite(self, x):
        return self.t.isfinite(x)

    def where(self, c, a, b):
        return a.masked_fill(~c, b)  # a Python scalar: no host-to-device copy

    def maximum(self, a, b):
        return self.t.clamp(a, min=b)

    def clip(self, x, lo, hi):
        return self.t.clamp(x, lo, hi)

    def rint(self, x):
        return self.t.round(x)

    def to_u8(self, x):
        return x.to(self.t.uint8)


def job_spectrum(b, label, bgr):
    libs, gip, torch, job = b.libs, b.libs.gip, b.libs.torch, "spectrum"
    gray = bgr2gray(libs, bgr)
    dev = libs.gip_gpu
    if dev is not None:
        src = gip.upload(gray, dev)
        dst = gip.upload(np.zeros_like(gray), dev)
        b.row(job, label, "gip.spectrum", "cuda", "device",
              lambda: gip.spectrum(src, dst=dst), libs.gip_sync, reference=True,
              note="single precision; dst preallocated")
    else:
        gpu_skip(b, job, libs.reasons.get("gip (GPU)", "gip has no GPU"))
    if dev is not None and libs.cp is not None:
        cp = libs.cp
        c_src = cp.asarray(gray)
        b.row(job, label, "cupy (the seed's code, complex128)", "cuda", "device",
              lambda: spectrum_xp(cp, c_src), libs.cp_sync, note="fft2 of uint8: double")
        b.row(job, label, "cupy (astype float32, complex64)", "cuda", "device",
              lambda: spectrum_xp(cp, c_src, np.float32), libs.cp_sync)
        b.row(job, label, "cupy (the seed's code, complex128)", "cuda", "roundtrip",
              lambda: cp.asnumpy(spectrum_xp(cp, cp.asarray(gray))), libs.cp_sync)
        b.row(job, label, "cupy (astype float32, complex64)", "cuda", "roundtrip",
              lambda: cp.asnumpy(spectrum_xp(cp, cp.asarray(gray), np.float32)), libs.cp_sync)
    elif dev is not None:
        gpu_skip(b, job + " (cupy)", libs.reasons.get("cupy", "?"))
    if dev is not None and libs.torch_cuda is not None:
        td = libs.torch_cuda
        t_src = torch.from_numpy(gray).to(td)
        b.row(job, label, "torch.fft (complex64)", "cuda", "device",
              lambda: spectrum_torch(torch, t_src), libs.torch_sync)
        b.row(job, label, "torch.fft (complex64)", "cuda", "roundtrip",
              lambda: spectrum_torch(torch, torch.from_numpy(gray).to(td)).cpu(), libs.torch_sync)
    elif dev is not None:
        gpu_skip(b, job + " (torch)", libs.reasons.get("torch (GPU)",
                                                      libs.reasons.get("torch", "?")))
    if dev is not None:
        b.row(job, label, "gip.spectrum", "cuda", "roundtrip",
              lambda: gip.spectrum(gray, device=dev), reference=True)
    # CPU
    if gip is not None:
        b.row(job, label, "gip.spectrum", "cpu", "host",
              lambda: gip.spectrum(gray, device="cpu"), reference=True)
    b.row(job, label, "numpy (the seed's code, complex128)", "cpu", "host",
          lambda: spectrum_numpy(gray), note="one thread")
    b.row(job, label, "numpy (astype float32)", "cpu", "host",
          lambda: spectrum_numpy(gray, np.float32), note="one thread; numpy>=2 keeps complex64")
    if torch is not None:
        b.row(job, label, "torch.fft (complex64)", "cpu", "host",
              lambda: spectrum_torch(torch, torch.from_numpy(gray)))


# ---- job 5: colour inversion --------------------------------------------------------------------
def job_invert(b, label, img):
    libs, gip, job = b.libs, b.libs.gip, "invert"
    h, w = img.shape[:2]
    dev = libs.gip_gpu
    if dev is not None:
        src = gip.upload(img, dev)
        dst = gip.upload(np.zeros_like(img), dev)
        b.row(job, label, "gip.invert", "cuda", "device",
              lambda: gip.invert(src, dst=dst), libs.gip_sync, reference=True,
              note="dst preallocated")
    else:
        gpu_skip(b, job, libs.reasons.get("gip (GPU)", "gip has no GPU"))
    if dev is not None and libs.numba_cuda is not None:
        cuda = libs.numba_cuda

        @cuda.jit
        def invert_kernel(a, out):  # the seed's kernel, out of place: x runs over the rows
            x, y = cuda.grid(2)
            if x < a.shape[0] and y < a.shape[1]:
                for c in range(a.shape[2]):
                    out[x, y, c] = 255 - a[x, y, c]
        grid = ((h + 15) // 16, (w + 15) // 16)
        n_src = cuda.to_device(img)
        n_dst = cuda.device_array_like(n_src)

        def run_numba():
            invert_kernel[grid, (16, 16)](n_src, n_dst)
            return n_dst
        b.row(job, label, "numba.cuda kernel (seed's)", "cuda", "device", run_numba,
              cuda.synchronize, note="seed's thread layout (threadIdx.x along the rows)")

        def roundtrip_numba():
            a = cuda.to_device(img)
            o = cuda.device_array_like(a)
            invert_kernel[grid, (16, 16)](a, o)
            return o.copy_to_host()
        b.row(job, label, "numba.cuda kernel (seed's)", "cuda", "roundtrip", roundtrip_numba,
              cuda.synchronize)
    elif dev is not None and libs.cp is not None:
        cp = libs.cp
        print("  [Numba CUDA absent (%s): CuPy ElementwiseKernel instead]"
              % libs.reasons.get("numba", "?"))
        k = cp.ElementwiseKernel("uint8 x", "uint8 y", "y = 255 - x", "seed_invert")
        c_src = cp.asarray(img)
        c_dst = cp.empty_like(c_src)
        b.row(job, label, "cupy ElementwiseKernel", "cuda", "device",
              lambda: k(c_src, c_dst), libs.cp_sync, note="Numba absent")
        b.row(job, label, "cupy ElementwiseKernel", "cuda", "roundtrip",
              lambda: cp.asnumpy(k(cp.asarray(img))), libs.cp_sync, note="Numba absent")
    elif dev is not None:
        print("  [invert peer skipped: neither Numba (%s) nor CuPy (%s)]"
              % (libs.reasons.get("numba"), libs.reasons.get("cupy")))
    if dev is not None:
        b.row(job, label, "gip.invert", "cuda", "roundtrip",
              lambda: gip.invert(img, device=dev), reference=True)
    # CPU
    if gip is not None:
        b.row(job, label, "gip.invert", "cpu", "host", lambda: gip.invert(img, device="cpu"),
              reference=True)
    if libs.cv2 is not None:
        b.row(job, label, "cv2.bitwise_not", "cpu", "host", lambda: libs.cv2.bitwise_not(img))
    b.row(job, label, "numpy 255 - x", "cpu", "host", lambda: 255 - img, note="one thread")


JOB_FUNCS = {"mean3x3": job_mean3x3, "sobel_conv2d": job_sobel_conv2d,
             "gaussian15": job_gaussian15, "spectrum": job_spectrum, "invert": job_invert}
JOB_TITLE = {"mean3x3": "1. custom kernel: 3x3 mean of a float32 gray image",
             "sobel_conv2d": "2. Sobel edges of an RGB image: the seed's 3->3 Conv2d (f32 out)",
             "gaussian15": "3. Gaussian blur 15x15 (sigma 0 -> 2.6) of u8c3",
             "spectrum": "4. FFT spectrum: fft2, fftshift, log|.|, min-max to u8",
             "invert": "5. colour inversion of u8c3"}


# ---- the table ---------------------------------------------------------------------------------
def print_table(rows):
    print("\n== side by side (ms per run; ratio = row / gip's row of the same job, image, device "
          "and kind: above 1, gip is faster)")
    hdr = "%-13s %-27s %-44s %-4s %-9s %9s %9s %6s %7s %9s" % (
        "job", "image", "library", "dev", "kind", "median", "min", "runs", "ratio", "max|diff|")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if r["status"] != "ok":
            print("%-13s %-27s %-44s %-4s %-9s error: %s" % (
                r["job"], r["image"][:27], r["library"][:44], dev_short(r["device"]), r["kind"],
                r["note"]))
            continue
        print("%-13s %-27s %-44s %-4s %-9s %9.3f %9.3f %6d %7s %9s" % (
            r["job"], r["image"][:27], r["library"][:44], dev_short(r["device"]), r["kind"],
            r["ms_median"], r["ms_min"], r["runs"],
            "" if r["ratio_vs_gip"] is None else "%.2f" % r["ratio_vs_gip"],
            "" if r["max_abs_diff"] is None else "%.3g" % r["max_abs_diff"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[2:]))
    p.add_argument("--jobs", default=",".join(JOBS),
                   help="comma-separated subset of: %s" % ", ".join(JOBS))
    p.add_argument("--image", action="append",
                   help="image file for every job (repeatable; default: each job's example "
                   "image in data/); 'all' for every image in data/")
    p.add_argument("--size", default="3840x2160",
                   help="also a WxH image made from the first one (0: none); default 3840x2160")
    p.add_argument("--fill", choices=("tiled", "random"), default="tiled",
                   help="the --size image: the sample image tiled (mirrored), or random pixels")
    p.add_argument("--device", choices=("all", "cpu"), default="all",
                   help="'cpu': CPU rows only, even where there is a GPU")
    p.add_argument("--runs", type=int, default=100,
                   help="runs per synced loop on the GPU (the seed's 100); the most on the CPU")
    p.add_argument("--reps", type=int, default=5, help="synced loops per row (median, min)")
    p.add_argument("--warmup", type=int, default=3, help="warm-up runs per row")
    p.add_argument("--cpu-time", type=float, default=0.25,
                   help="seconds per loop of a CPU or round-trip row (sets its run count)")
    p.add_argument("--threads", type=int, default=0,
                   help="CPU threads for gip, OpenCV and PyTorch (0: their defaults, all "
                   "cores); numpy and scipy use one")
    p.add_argument("--json", help="write the rows to this JSON file")
    cfg = p.parse_args()
    cfg.size = parse_size(cfg.size)
    if cfg.image == ["all"]:
        cfg.image = sorted(glob.glob(os.path.join(DATA, "*.png")) +
                           glob.glob(os.path.join(DATA, "*.jpg")))
    jobs = [j.strip() for j in cfg.jobs.split(",") if j.strip()]
    bad = [j for j in jobs if j not in JOB_FUNCS and j != "style"]
    if bad:
        p.error("unknown job(s) %s; known: %s" % (", ".join(bad), ", ".join(JOBS)))
    if min(cfg.runs, cfg.reps) < 1 or cfg.warmup < 0:
        p.error("--runs and --reps must be at least 1, --warmup at least 0")

    libs = Libs(cfg.device == "all")
    if libs.gip is None and libs.cv2 is None:
        raise SystemExit("seeds_bench: neither gip nor cv2 can be imported (%s)" % libs.reasons)
    if cfg.threads > 0:
        if libs.gip is not None:
            libs.gip.Device("cpu").context.threads = cfg.threads
        if libs.cv2 is not None:
            libs.cv2.setNumThreads(cfg.threads)
        if libs.torch is not None:
            libs.torch.set_num_threads(cfg.threads)
    print("seeds_bench: %s, %d CPU cores" % (platform.processor() or platform.machine(),
                                            os.cpu_count() or 0))
    print("versions: " + ", ".join("%s %s" % kv for kv in sorted(libs.versions.items())))
    if libs.gip is not None:
        print("gip CPU: " + libs.gip.Device("cpu").describe)
    print("GPU: %s" % (libs.gpu_name or "none; GPU rows skipped"))
    for k, v in sorted(libs.reasons.items()):
        print("  unavailable: %s: %s" % (k, v))

    b = Bench(cfg, libs)
    for job in jobs:
        if job == "style":
            continue
        print("\n== %s" % JOB_TITLE[job])
        print("  %-44s %-4s %-9s %10s %10s %6s  %s" % ("library", "dev", "kind", "median ms",
                                                       "min ms", "runs", "max|diff| vs gip"))
        for label, img in images_for(job, cfg, libs):
            print(" -- %s" % label)
            JOB_FUNCS[job](b, label, img)
            if libs.cp is not None:
                libs.cp.get_default_memory_pool().free_all_blocks()
            if libs.torch_cuda is not None:
                libs.torch.cuda.empty_cache()
    print("\n== 6. style transfer: not timed here; run bench/style_bench.sh (gip style against "
          "bench/style_torch.py, PyTorch's VGG19 L-BFGS, on the same problem)")
    b.finish_ratios()
    print_table(b.rows)
    if cfg.json:
        doc = {"schema": "seeds-bench/1", "tool": "seeds_bench.py",
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "machine": {"hostname": socket.gethostname(), "cpu": platform.processor(),
                           "cores": os.cpu_count()},
               "gpu": libs.gpu_name, "versions": libs.versions, "unavailable": libs.reasons,
               "settings": {"runs": cfg.runs, "reps": cfg.reps, "warmup": cfg.warmup,
                            "cpu_time": cfg.cpu_time, "threads": cfg.threads,
                            "size": cfg.size, "fill": cfg.fill,
                            "timing": "perf_counter around N back-to-back runs with one device "
                                      "synchronize; ms = loop time / N; median and min over reps"},
               "rows": [{k: v for k, v in r.items() if k != "gip_ref"} for r in b.rows]}
        with open(cfg.json, "w") as f:
            json.dump(doc, f, indent=1)
        print("wrote", cfg.json)
    return 1 if any(r["status"] != "ok" for r in b.rows) else 0


if __name__ == "__main__":
    sys.exit(main())
