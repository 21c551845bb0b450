#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PyTorch reference of `gip style`, for the benchmark of issue 8 (bench/style_bench.sh).

The same problem as gip's defaults: VGG19's convolutions up to conv5_1 with the random weights
gip_net_random(seed) makes (splitmix64 + Box-Muller, He's variance 2 / (9 cin), zero biases,
reproduced here bit for bit up to libm's last-ulp differences), average pooling, content conv4_2,
style conv1_1 .. conv5_1, each layer's loss normalised by its target's mean square, content weight
1, style weight 300; the images resized as gip resizes them (antialiased triangle filter) and
normalised with ImageNet's mean and std. Optimised with torch.optim.LBFGS(history_size=100,
max_iter=ITERS, tolerance_grad=0, tolerance_change=0, line_search_fn=None) in one step() call.

Timed with torch.cuda.synchronize around the optimisation (preparation excluded, as gip's summary
line): total seconds, evaluations (closure calls) and ms per evaluation; then the forward+backward
of the feature stack alone (median of --fb-runs). Prints a summary and writes JSON rows in
gip-bench's schema (bench/peers.py) with --json.
"""
import argparse
import datetime
import json
import math
import os
import platform
import socket
import sys
import time

import numpy as np

# VGG19 up to conv5_1: (cin, cout, pool after), gip's table (src/style/net.c).
LAYERS = [(3, 64, False), (64, 64, True), (64, 128, False), (128, 128, True),
          (128, 256, False), (256, 256, False), (256, 256, False), (256, 256, True),
          (256, 512, False), (512, 512, False), (512, 512, False), (512, 512, True),
          (512, 512, False)]
NAMES = ["conv1_1", "conv1_2", "conv2_1", "conv2_2", "conv3_1", "conv3_2", "conv3_3", "conv3_4",
         "conv4_1", "conv4_2", "conv4_3", "conv4_4", "conv5_1"]
CONTENT = [9]               # conv4_2
STYLE = [0, 2, 4, 8, 12]    # conv1_1, conv2_1, conv3_1, conv4_1, conv5_1
MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix(state, count):
    """The next `count` outputs of gip__style_rand_u64 from `state`, and the new state."""
    k = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(state) + k * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z, (state + count * GOLDEN) & M64


def gip_random_weights(seed):
    """gip__net_random_slim(seed, 1): per layer, cout*cin*9 normals * sqrt(2 / (9 cin))."""
    state = (seed ^ 0x5EEDF00DCAFEBABE) & M64
    out = []
    for cin, cout, _ in LAYERS:
        nw = cout * cin * 9
        z, state = splitmix(state, 2 * nw)
        u1 = ((z[0::2] >> np.uint64(11)).astype(np.float64) + 1.0) * (1.0 / 9007199254740992.0)
        u2 = (z[1::2] >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
        normal = np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)
        sd = math.sqrt(2.0 / (9.0 * cin))
        out.append((sd * normal).astype(np.float32).reshape(cout, cin, 3, 3))
    return out


def taps(n_in, n_out):
    """gip's resize weights (src/style/style.c taps_make) as an n_out x n_in matrix."""
    scale = n_in / n_out
    support = max(scale, 1.0)
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        center = (o + 0.5) * scale
        lo = max(int(math.floor(center - support)), 0)
        hi = min(int(math.ceil(center + support)), n_in)
        for i in range(lo, hi):
            d = abs((i + 0.5 - center) / support)
            m[o, i] = 1.0 - d if d < 1.0 else 0.0
        s = m[o].sum()
        if s <= 0:
            m[o, min(int(center), n_in - 1)] = 1.0
        else:
            m[o] /= s
    return m


def output_size(w, h, size):
    """gip_style_output_size: the shorter side becomes `size`."""
    s = size / min(w, h)
    if w < h:
        return size, int(math.floor(h * s + 0.5))
    return int(math.floor(w * s + 0.5)), size


def prepare(path, w, h):
    """Loads an image as RGB, resizes it to w x h as gip does, normalises: 3 x h x w float32."""
    import cv2
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit(f"style_torch.py: cannot read {path}")
    img = img[:, :, ::-1].astype(np.float64)  # RGB
    ih, iw = img.shape[:2]
    tmp = np.einsum("xi,yic->yxc", taps(iw, w), img)   # horizontal pass first, as gip
    out = np.einsum("yj,jxc->yxc", taps(ih, h), tmp)
    out = (out / 255.0 - MEAN) / STD
    return np.ascontiguousarray(out.transpose(2, 0, 1)).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "data")
    ap.add_argument("--content", default=os.path.join(data, "astronaut.png"))
    ap.add_argument("--style", default=os.path.join(data, "gravel.png"))
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--history", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cuda", help="cuda or cpu")
    ap.add_argument("--tf32", choices=["default", "on", "off"], default="default",
                    help="TF32 in cuDNN and cuBLAS: on (gip's default), off (gip's "
                         "GIP_STYLE_NO_TF32), default (PyTorch's: cuDNN convolutions only)")
    ap.add_argument("--fb-runs", type=int, default=20)
    ap.add_argument("--json", help="write the rows here")
    cfg = ap.parse_args()

    import torch
    import torch.nn.functional as F

    dev = torch.device(cfg.device)
    if dev.type == "cuda":
        if cfg.tf32 != "default":
            torch.backends.cuda.matmul.allow_tf32 = cfg.tf32 == "on"
            torch.backends.cudnn.allow_tf32 = cfg.tf32 == "on"
        torch.backends.cudnn.benchmark = True

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    t_prep = time.perf_counter()
    ws = [torch.from_numpy(w).to(dev) for w in gip_random_weights(cfg.seed)]
    ih, iw = __import__("cv2").imread(cfg.content).shape[:2]
    w, h = output_size(iw, ih, cfg.size)
    sh_, sw_ = __import__("cv2").imread(cfg.style).shape[:2]
    sw, sh = output_size(sw_, sh_, min(w, h))
    content = torch.from_numpy(prepare(cfg.content, w, h)).to(dev)[None]
    style = torch.from_numpy(prepare(cfg.style, sw, sh)).to(dev)[None]
    last = max(CONTENT + STYLE)

    def features(x):
        out = {}
        for l in range(last + 1):
            x = F.relu(F.conv2d(x, ws[l], padding=1))
            out[l] = x
            if LAYERS[l][2] and l < last:
                x = F.avg_pool2d(x, 2, 2)
        return out

    def gram(f):
        _, c, hh, ww = f.shape
        m = f.reshape(c, hh * ww)
        return (m @ m.t()) / (c * hh * ww)

    with torch.no_grad():
        fc = features(content)
        fs = features(style)
        targets_c = {l: fc[l] for l in CONTENT}
        targets_s = {l: gram(fs[l]) for l in STYLE}
        coef_c = {l: 1.0 / float(t.pow(2).mean()) for l, t in targets_c.items()}
        coef_s = {l: 300.0 / float(t.pow(2).mean()) for l, t in targets_s.items()}

    def loss_fn(x):
        f = features(x)
        lc = sum(coef_c[l] * (f[l] - targets_c[l]).pow(2).mean() for l in CONTENT)
        ls = sum(coef_s[l] * (gram(f[l]) - targets_s[l]).pow(2).mean() for l in STYLE)
        return lc + ls

    with torch.no_grad():
        initial = float(loss_fn(content))  # compare with gip's "iteration 0" line
    x = content.clone().requires_grad_(True)
    opt = torch.optim.LBFGS([x], lr=1, max_iter=cfg.iters, max_eval=None, tolerance_grad=0,
                            tolerance_change=0, history_size=cfg.history, line_search_fn=None)
    evals = [0]
    first = [None]

    def closure():
        opt.zero_grad(set_to_none=False)
        loss = loss_fn(x)
        loss.backward()
        evals[0] += 1
        return loss

    # Warm-up outside the timing: cuDNN's algorithm choice and allocator growth, on a copy.
    xw = content.clone().requires_grad_(True)
    for _ in range(2):
        loss_fn(xw).backward()
    del xw
    sync()
    prep_s = time.perf_counter() - t_prep

    t0 = time.perf_counter()
    opt.step(closure)
    sync()
    total_s = time.perf_counter() - t0
    with torch.no_grad():
        final = float(loss_fn(x))
    n_iter = opt.state[opt._params[0]]["n_iter"]

    # The feature stack's forward + backward alone (no loss arithmetic): a sum of the five style
    # features and the content feature, backward to the image.
    xf = content.clone().requires_grad_(True)
    times = []
    for k in range(cfg.fb_runs + 2):
        sync()
        t = time.perf_counter()
        f = features(xf)
        s = sum(f[l].sum() for l in set(CONTENT + STYLE))
        s.backward()
        sync()
        if k >= 2:
            times.append(time.perf_counter() - t)
    fb_ms = 1e3 * float(np.median(times))

    ms_eval = 1e3 * total_s / max(evals[0], 1)
    gpu = torch.cuda.get_device_name(dev) if dev.type == "cuda" else None
    print(f"torch {torch.__version__} on {gpu or 'cpu'}: {w}x{h}, LBFGS history {cfg.history}, "
          f"line search none, tf32 {cfg.tf32}")
    print(f"torch style: {n_iter} iterations, {evals[0]} evaluations, {total_s:.3f} s optimising "
          f"(preparation {prep_s:.2f} s excluded), {ms_eval:.3f} ms per evaluation; loss "
          f"{initial:.6g} -> {final:.6g}")
    print(f"torch style: feature stack forward+backward alone {fb_ms:.3f} ms (median of "
          f"{len(times)})")
    if cfg.json:
        common = {"size": f"{w}x{h}", "width": w, "height": h, "format": "f32c3",
                  "backend": dev.type, "impl": "torch", "status": "ok"}
        doc = {
            "schema": "gip-bench/1",
            "tool": "style_torch.py",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": {"hostname": socket.gethostname(), "cores": os.cpu_count()},
            "gpu": {"name": gpu} if gpu else None,
            "python": platform.python_version(),
            "peers": {"torch": torch.__version__},
            "settings": {"iters": cfg.iters, "history": cfg.history, "seed": cfg.seed,
                         "line_search": "none", "tf32": cfg.tf32,
                         "content": os.path.basename(cfg.content),
                         "style": os.path.basename(cfg.style)},
            "rows": [
                dict(common, op="style_lbfgs", ms=1e3 * total_s, iterations=n_iter,
                     evaluations=evals[0], ms_per_eval=ms_eval, initial_loss=initial, final_loss=final,
                     note="torch.optim.LBFGS, preparation excluded"),
                dict(common, op="style_vgg_fwd_bwd", ms=fb_ms, runs=len(times),
                     note="VGG19 to conv5_1, forward + backward to the image"),
            ],
        }
        with open(cfg.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"json: {cfg.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
