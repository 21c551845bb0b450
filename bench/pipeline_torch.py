#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The torchvision peer of issue 9's GPU benchmark: a folder of JPEGs decoded in batches with
torchvision.io.decode_jpeg(device='cuda') (nvJPEG), blurred with a separable 15x15 Gaussian
(two conv2d passes, sigma 2.6 as OpenCV derives it for ksize 15, reflect-101 padding), encoded with
torchvision.io.encode_jpeg on the GPU (quality 90) and written. Prints JSON lines (gip-bench rows):
the whole pipeline and decode alone, best of --repeat runs."""
import argparse, json, math, os, sys, time


def gaussian_1d(k, sigma, torch):
    xs = [math.exp(-((i - k // 2) ** 2) / (2 * sigma * sigma)) for i in range(k)]
    s = sum(xs)
    return torch.tensor([x / s for x in xs], dtype=torch.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    import torch
    import torch.nn.functional as F
    import torchvision
    from torchvision.io import decode_jpeg, encode_jpeg, read_file
    if not torch.cuda.is_available():
        print("pipeline_torch.py: no CUDA device", file=sys.stderr)
        return 2
    names = sorted(f for f in os.listdir(a.dir) if f.lower().endswith((".jpg", ".jpeg")))
    os.makedirs(a.out, exist_ok=True)
    g = gaussian_1d(15, 0.3 * ((15 - 1) * 0.5 - 1) + 0.8, torch).cuda()
    kx = g.view(1, 1, 1, 15).repeat(3, 1, 1, 1)
    ky = g.view(1, 1, 15, 1).repeat(3, 1, 1, 1)

    def blur(img):  # uint8 CHW on the GPU
        x = img.unsqueeze(0).float()
        x = F.conv2d(F.pad(x, (7, 7, 0, 0), mode="reflect"), kx, groups=3)
        x = F.conv2d(F.pad(x, (0, 0, 7, 7), mode="reflect"), ky, groups=3)
        return x.round().clamp(0, 255).to(torch.uint8)[0]

    def run(full):
        t0 = time.perf_counter()
        stage = {"read": 0.0, "decode": 0.0, "compute": 0.0, "encode": 0.0, "write": 0.0}
        for i in range(0, len(names), a.batch):
            chunk = names[i:i + a.batch]
            t = time.perf_counter()
            datas = [read_file(os.path.join(a.dir, n)) for n in chunk]
            stage["read"] += time.perf_counter() - t
            t = time.perf_counter()
            imgs = decode_jpeg(datas, device="cuda")
            torch.cuda.synchronize()
            stage["decode"] += time.perf_counter() - t
            if not full:
                continue
            t = time.perf_counter()
            outs = [blur(im) for im in imgs]
            torch.cuda.synchronize()
            stage["compute"] += time.perf_counter() - t
            t = time.perf_counter()
            encs = encode_jpeg(outs, quality=90)
            encs = [e.cpu() for e in encs]
            stage["encode"] += time.perf_counter() - t
            t = time.perf_counter()
            for n, e in zip(chunk, encs):
                with open(os.path.join(a.out, n), "wb") as f:
                    f.write(e.numpy().tobytes())
            stage["write"] += time.perf_counter() - t
        return time.perf_counter() - t0, stage

    run(True)  # warm-up: nvJPEG and cuDNN initialisation
    for full, name in ((True, "torchvision_pipeline"), (False, "torchvision_decode")):
        best = None
        for _ in range(a.repeat):
            wall, stage = run(full)
            if best is None or wall < best[0]:
                best = (wall, stage)
        row = {"name": name, "images": len(names), "batch": a.batch,
               "images_per_s": len(names) / best[0], "torch": torch.__version__,
               "torchvision": torchvision.__version__,
               "ms_per_image_by_stage": {k: v * 1e3 / len(names) for k, v in best[1].items()}}
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
