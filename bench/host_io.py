#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host arrays in, host arrays out (issue 45): numpy in and numpy out, as most Python users call
gip, on the GPU through the transfer engine, on the CPU, under device='auto', against the same
operation on device-resident data and OpenCV on the same host, with the bus rate measured in the
same run.

Per row (operation, size, format), median of --runs calls after warm-up, each call returning a
finished numpy array:
  gpu     gip.<op>(numpy, device='cuda')        host in, host out through the transfer engine
  cpu     gip.<op>(numpy, device='cpu')
  auto    gip.<op>(numpy)                       device='auto': the cost model's choice
  device  gip.<op>(gip.Image, dst=gip.Image)    device-resident, one synchronisation per call
  cv2     the OpenCV function on the host (all its threads)
  bound   bytes up / pinned upload rate + bytes down / pinned download rate (measured here with
          page-locked arrays, gip.empty_pinned)
The targets: gpu within 1.5x of bound at 1920x1080 and above; auto within 10% of the better of
gpu and cpu and at least as fast as cv2. Writes a markdown table on stdout, JSON with --json."""
import argparse
import json
import platform
import statistics
import sys
import time

import numpy as np

import gip

try:
    import cv2
except ImportError:  # the cv2 column is left empty
    cv2 = None

# name -> (format, gip call (src, device, dst), cv2 call (src) or None)
ROWS = {
    "gaussian15": ("u8c3", lambda s, dev, d=None: gip.gaussian_blur(s, (15, 15), 0, d, device=dev),
                   lambda s: cv2.GaussianBlur(s, (15, 15), 0)),
    "invert": ("u8c3", lambda s, dev, d=None: gip.invert(s, dst=d, device=dev),
               lambda s: cv2.bitwise_not(s)),
    "box3_f32": ("f32c1", lambda s, dev, d=None: gip.blur(s, (3, 3), d, device=dev),
                 lambda s: cv2.blur(s, (3, 3))),
    "median5": ("u8c1", lambda s, dev, d=None: gip.median_blur(s, 5, d, device=dev),
                lambda s: cv2.medianBlur(s, 5)),
    "hsv": ("u8c3", lambda s, dev, d=None: gip.cvt_color(s, gip.COLOR_BGR2HSV, d, device=dev),
            lambda s: cv2.cvtColor(s, cv2.COLOR_BGR2HSV)),
    "resize_d2": ("u8c3", lambda s, dev, d=None: gip.resize(s, (s.shape[1] // 2, s.shape[0] // 2),
                                                            d, device=dev),
                  lambda s: cv2.resize(s, (s.shape[1] // 2, s.shape[0] // 2))),
}
SIZES = ["7680x4320", "3840x2160", "1920x1080", "512x512"]


def median_ms(fn, runs, warm=3):
    for _ in range(warm):
        fn()
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return statistics.median(t) * 1e3


def make(fmt, w, h, rng):
    c = int(fmt[-1])
    shape = (h, w) if c == 1 else (h, w, c)
    if fmt.startswith("f32"):
        return rng.random(shape, dtype=np.float32)
    return rng.integers(0, 256, shape, dtype=np.uint8)


def bus_rates(nbytes, runs):
    """(upload, download) bytes/s between page-locked host arrays and the device."""
    dev = gip.Device("cuda")
    ctx = dev.context
    a = gip.empty_pinned((nbytes // 4096, 4096), np.uint8)
    a[:] = 7
    img = gip.upload(a)
    b = gip.empty_pinned(a.shape, np.uint8)

    def up():
        gip._gip.copy(ctx, a, img)
        ctx.sync()

    def down():
        gip._gip.copy(ctx, img, b)
    t_up = median_ms(up, runs)
    t_down = median_ms(down, runs)
    return a.nbytes / (t_up * 1e-3), a.nbytes / (t_down * 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--json")
    cfg = ap.parse_args()
    have_gpu = any(d["usable"] for d in gip.devices())
    rng = np.random.default_rng(1)
    doc = {"schema": "gip-bench/1", "tool": "bench/host_io.py", "host": platform.node(),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "gpu": gip.Device("cuda").describe if have_gpu else None,
           "cv2": cv2.__version__ if cv2 else None, "rows": []}
    if have_gpu:
        up, down = bus_rates(64 << 20, cfg.runs)
        doc["bus"] = {"upload_bytes_per_s": up, "download_bytes_per_s": down}
        print("bus (page-locked, 64 MiB): up %.1f GB/s, down %.1f GB/s" % (up / 1e9, down / 1e9))
    print("| row | size | bound ms | gpu ms (x bound) | cpu ms | auto ms (chose) | device ms | "
          "cv2 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name in cfg.rows.split(","):
        fmt, call, cv = ROWS[name]
        for size in cfg.sizes.split(","):
            w, h = (int(x) for x in size.split("x"))
            src = make(fmt, w, h, rng)
            out = call(src, "cpu")
            row = {"op": name, "format": fmt, "size": size, "bytes_in": src.nbytes,
                   "bytes_out": out.nbytes}
            row["cpu_ms"] = median_ms(lambda: call(src, "cpu"), cfg.runs)
            if cv2 is not None:
                row["cv2_ms"] = median_ms(lambda: cv(src), cfg.runs)
            if have_gpu:
                row["bound_ms"] = (src.nbytes / doc["bus"]["upload_bytes_per_s"] +
                                   out.nbytes / doc["bus"]["download_bytes_per_s"]) * 1e3
                row["gpu_ms"] = median_ms(lambda: call(src, "cuda"), cfg.runs)
                row["auto_ms"] = median_ms(lambda: call(src, None), cfg.runs)
                ea = _explain_args(name, src)
                row["auto_device"] = gip.explain(ea[0], src, **ea[1])["device"]
                dsrc = gip.upload(src)
                dout = call(dsrc, "cuda")

                def resident():
                    call(dsrc, "cuda", dout)
                    gip.sync()
                row["device_ms"] = median_ms(resident, cfg.runs)
                same = np.array_equal(np.asarray(dout.download()), call(src, "cuda"))
                row["gpu_equals_device"] = bool(same)
            doc["rows"].append(row)
            f = lambda k: "%.3f" % row[k] if k in row else "-"  # noqa: E731
            ratio = " (%.2fx)" % (row["gpu_ms"] / row["bound_ms"]) if "gpu_ms" in row else ""
            print("| %s %s | %s | %s | %s%s | %s | %s (%s) | %s | %s |" % (
                name, fmt, size, f("bound_ms"), f("gpu_ms"), ratio, f("cpu_ms"), f("auto_ms"),
                row.get("auto_device", "-"), f("device_ms"), f("cv2_ms")))
            sys.stdout.flush()
    if cfg.json:
        with open(cfg.json, "w") as fh:
            json.dump(doc, fh, indent=1)


def _explain_args(name, src):
    """(registered operation, parameters) behind a row's cv2-named call, for gip.explain."""
    return {"gaussian15": ("gaussian", {"ksize": 15}), "invert": ("invert", {}),
            "box3_f32": ("box", {"ksize": 3}), "median5": ("median", {"ksize": 5}),
            "hsv": ("cvt", {"code": "bgr2hsv"}),
            "resize_d2": ("resize", {"dsize": (src.shape[1] // 2, src.shape[0] // 2)})}[name]


if __name__ == "__main__":
    main()
