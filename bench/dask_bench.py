# SPDX-License-Identifier: MIT
"""Throughput of gip.dask on a LocalCluster of 1, 2, 4 CPU worker processes (one thread each):
a folder batch (gip.dask.run_files vs gip.run_batch in one process) and a chunked Gaussian on a
large array (gip.dask.gaussian_blur vs dask_image.ndfilters.gaussian_filter on the same persisted
dask array). Prints one JSON object.

With --device cuda (the GPU machine) the workers run the batch on the GPU and the array is
CuPy-backed: gip's chunks stay on the GPU, and dask-image filters the same CuPy chunks through
cupyx.scipy.ndimage.

    python bench/dask_bench.py [--files 32] [--size 4096] [--workers 1,2,4] [--repeat 3]
                               [--device cpu|cuda]
"""
import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

import gip
import gip.dask as gd


def make_files(folder, n, side=1024):
    """n JPEGs (q90) of side x side made from the sample images (photographic content)."""
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    srcs = [gip.imread(os.path.join(root, f), bgr=False)
            for f in sorted(os.listdir(root)) if f.endswith(".png")]
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        s = srcs[i % len(srcs)]
        reps = (side // s.shape[0] + 1, side // s.shape[1] + 1, 1)
        img = np.ascontiguousarray(np.tile(s, reps)[:side, :side])
        img = np.roll(img, 37 * i, axis=1)
        gip.imwrite(os.path.join(folder, "f%03d.jpg" % i), img,
                    [gip.IMWRITE_JPEG_QUALITY, 90], bgr=False)


def timed(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=32)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    a = ap.parse_args()
    dev = a.device
    import dask.array as da
    import distributed
    from dask_image import ndfilters as dndi

    xp = np
    if dev == "cuda":
        import cupy as xp
    out = {"load_before": os.getloadavg(), "cores": os.cpu_count(), "files": a.files, "device": dev,
           "array": [a.size, a.size, 3], "chunk": a.chunk, "runs": []}
    tmp = tempfile.mkdtemp(prefix="gip-dask-bench-")
    ind = os.path.join(tmp, "in")
    make_files(ind, a.files)
    text = "gaussian 15"
    # Local reference: the batch engine in this process (all cores).
    n = [0]

    def local():
        n[0] += 1
        gip.run_batch(text, ind, os.path.join(tmp, "local%d" % n[0]), format="jpg", quality=90,
                      device=dev)

    t = timed(local, a.repeat)
    out["local_batch_images_per_s"] = a.files / t
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 256, (a.size, a.size, 3), dtype=np.uint8)
    src = xp.asarray(arr)  # a CuPy array on the GPU: gip works on it in place of a copy

    def whole():
        r = gip.gaussian_blur(src, (15, 15), device=dev)
        if dev == "cuda":
            gip.Device(dev).sync()
        return r

    t = timed(whole, a.repeat)
    out["local_gaussian_mpix_per_s"] = a.size * a.size / t / 1e6
    # sigma of OpenCV's 15-tap kernel; truncate so that scipy's radius is 7 as well.
    sigma = 0.3 * ((15 - 1) * 0.5 - 1) + 0.8
    truncate = 7.0 / sigma
    for nw in [int(x) for x in a.workers.split(",")]:
        cluster = distributed.LocalCluster(n_workers=nw, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
        client = distributed.Client(cluster)
        run = {"workers": nw}

        def files():
            n[0] += 1
            r = gd.run_files(client, text, ind, os.path.join(tmp, "d%d" % n[0]),
                             format="jpg", quality=90, device=dev)
            assert len(r.ok) == a.files, r

        run["batch_images_per_s"] = a.files / timed(files, a.repeat)
        # A fresh input (its own key) for each timed run, so that no result is reused.
        k = [0]

        def fresh():
            k[0] += 1
            x = client.persist(da.from_array(src, chunks=(a.chunk, a.chunk, 3), asarray=False,
                                             name="bench-input-%d-%d" % (nw, k[0])))
            distributed.wait(x)
            return x

        def run_timed(make):
            ts = []
            for _ in range(a.repeat):
                x = fresh()
                t0 = time.perf_counter()
                r = client.persist(make(x))
                distributed.wait(r)
                ts.append(time.perf_counter() - t0)
                del r, x
            return statistics.median(ts)

        def gip_gauss(x):
            return gd.gaussian_blur(x, 15, device=dev)

        def dask_image_gauss(x):
            return dndi.gaussian_filter(x, sigma=(sigma, sigma, 0), mode="mirror",
                                        truncate=truncate)

        run["gip_gaussian_mpix_per_s"] = a.size * a.size / run_timed(gip_gauss) / 1e6
        run["dask_image_gaussian_mpix_per_s"] = a.size * a.size / run_timed(dask_image_gauss) / 1e6
        d = fresh()
        # Same values? (dask-image computes in float and rounds differently: report the gap.)
        g = client.compute(gd.gaussian_blur(d, 15, device=dev)).result()
        s = client.compute(dndi.gaussian_filter(d, sigma=(sigma, sigma, 0), mode="mirror",
                                                truncate=truncate)).result()
        if dev == "cuda":
            g, s = xp.asnumpy(g), xp.asnumpy(s)
        run["max_abs_diff_vs_dask_image"] = int(np.abs(g.astype(int) - s.astype(int)).max())
        run["equal_to_whole_image"] = bool((g == gip.gaussian_blur(arr, (15, 15))).all())
        client.close()
        cluster.close()
        out["runs"].append(run)
        print(json.dumps(run), flush=True)
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
