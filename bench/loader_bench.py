# SPDX-License-Identifier: MIT
"""The batch loader's benchmark (issue 43): gip.Loader against torchvision's CPU DataLoader with
the same number of workers, and on a GPU against torchvision's GPU path (batched
decode_jpeg(device='cuda') + transforms.v2 on the device), nvJPEG's decode-alone rate (the same
batched decode, nothing after it) and DALI where it is installed. Train mode: random-resized-crop
224, flip, normalise, float16 NCHW; eval mode: resize 256, centre crop 224. Images/s and ratios,
all measured in this run on this machine.

Usage: python3 bench/loader_bench.py FOLDER [--batch 256] [--size 224] [--workers N]
       [--epochs 2] [--modes train,eval] [--json OUT]
Data: python3 bench/make_loader_data.py FOLDER 2048 (about 500x375 q90 JPEGs)."""
import argparse
import json
import os
import sys
import time


MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def _cuda_ok():
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def _sync():
    if _cuda_ok():
        import torch
        torch.cuda.synchronize()


def timed(name, make_iter, epochs, n_per_epoch):
    """Runs one whole warm-up pass (decoder start-up, allocations, caches: nvJPEG's first batches
    alone ran several times slower than its later ones), then `epochs` full passes; images/s over
    the timed passes."""
    for _ in make_iter(0):
        pass
    _sync()
    images = 0
    t0 = time.perf_counter()
    for e in range(epochs):
        for batch in make_iter(e + 1):
            images += len(batch[0])
    _sync()
    dt = time.perf_counter() - t0
    rate = images / dt
    print("  %-44s %8.1f images/s  (%d images, %.2f s)" % (name, rate, images, dt), flush=True)
    return rate


# ---- gip ------------------------------------------------------------------------------------------
def gip_loader(files, args, train, device, decoder="cpu"):
    import gip
    out = "torch" if _cuda_ok() or device == "cpu" else "numpy"
    try:
        import torch  # noqa: F401
    except ImportError:
        out = "numpy"
    ld = gip.Loader(files, batch_size=args.batch, size=args.size, train=train, device=device,
                    dtype="float16", threads=args.workers, output=out, drop_last=False,
                    decoder=decoder)

    def make(epoch):
        ld.set_epoch(epoch)
        return ld
    return make


# ---- torchvision --------------------------------------------------------------------------------
def tv_transform(train, size, device=None):
    import torch
    from torchvision.transforms import v2
    crop = ([v2.RandomResizedCrop(size, antialias=True), v2.RandomHorizontalFlip()] if train else
            [v2.Resize(size * 256 // 224, antialias=True), v2.CenterCrop(size)])
    return v2.Compose(crop + [v2.ToDtype(torch.float32, scale=True), v2.Normalize(MEAN, STD),
                              v2.ToDtype(torch.float16)])


def tv_cpu_loader(files, args, train):
    import torch
    import torchvision

    tf = tv_transform(train, args.size)

    class Files(torch.utils.data.Dataset):
        def __len__(self):
            return len(files)

        def __getitem__(self, i):
            img = torchvision.io.decode_jpeg(torchvision.io.read_file(files[i]),
                                             mode=torchvision.io.ImageReadMode.RGB)
            return tf(img), i

    ds = Files()

    def make(epoch):
        torch.manual_seed(epoch)
        return torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=train,
                                           num_workers=args.workers, drop_last=False,
                                           persistent_workers=False)
    return make


def tv_gpu_loader(files, args, train):
    """torchvision's GPU path: files read on the CPU, decoded in batches on the GPU (nvJPEG),
    transformed per image on the GPU (sizes differ), stacked."""
    import torch
    import torchvision
    tf = tv_transform(train, args.size)
    blobs = [torchvision.io.read_file(f) for f in files]  # reading is not what is compared

    def make(epoch):
        g = torch.Generator().manual_seed(epoch)
        order = torch.randperm(len(files), generator=g) if train else torch.arange(len(files))

        def gen():
            for s in range(0, len(order), args.batch):
                idx = order[s:s + args.batch].tolist()
                imgs = torchvision.io.decode_jpeg([blobs[i] for i in idx], device="cuda",
                                                  mode=torchvision.io.ImageReadMode.RGB)
                yield torch.stack([tf(im) for im in imgs]), idx
        return gen()
    return make


def nvjpeg_alone(files, args):
    import torchvision
    blobs = [torchvision.io.read_file(f) for f in files]

    def make(epoch):
        def gen():
            for s in range(0, len(blobs), args.batch):
                yield torchvision.io.decode_jpeg(blobs[s:s + args.batch], device="cuda"), None
        return gen()
    return make


def dali_loader(files, args, train):
    from nvidia.dali import fn, pipeline_def, types
    from nvidia.dali.plugin.pytorch import DALIGenericIterator

    @pipeline_def(batch_size=args.batch, num_threads=args.workers, device_id=0)
    def pipe():
        jpegs, labels = fn.readers.file(files=files, random_shuffle=train, name="reader")
        if train:
            images = fn.decoders.image_random_crop(jpegs, device="mixed", output_type=types.RGB,
                                                   random_area=[0.08, 1.0],
                                                   random_aspect_ratio=[3 / 4, 4 / 3],
                                                   num_attempts=10)
            images = fn.resize(images, resize_x=args.size, resize_y=args.size, antialias=True)
            mirror = fn.random.coin_flip(probability=0.5)
        else:
            images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
            images = fn.resize(images, resize_shorter=args.size * 256 // 224, antialias=True)
            mirror = 0
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT16, output_layout="CHW",
                                          crop=(args.size, args.size),
                                          mean=[m * 255 for m in MEAN],
                                          std=[s * 255 for s in STD], mirror=mirror)
        return images, labels
    p = pipe()
    p.build()
    it = DALIGenericIterator(p, ["images", "labels"], reader_name="reader")

    def make(epoch):
        it.reset()

        def gen():
            for b in it:
                yield b[0]["images"], b[0]["labels"]
        return gen()
    return make


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--modes", default="train,eval")
    ap.add_argument("--json")
    args = ap.parse_args()
    import gip
    files = gip.list_inputs(args.folder)
    if not files:
        sys.exit("no images in %s (make some with bench/make_loader_data.py)" % args.folder)
    print("%d files, batch %d, size %d, %d workers, %s" % (len(files), args.batch, args.size,
                                                           args.workers, gip.build_info()))
    results = {}
    have_tv = True
    try:
        import torchvision  # noqa: F401
    except ImportError:
        have_tv = False
        print("torchvision is not installed: its rows are left out")
    cuda = _cuda_ok() and any(d["usable"] for d in gip.devices())
    for mode in args.modes.split(","):
        train = mode == "train"
        print("%s mode" % mode)
        r = results[mode] = {}
        r["gip_cpu"] = timed("gip.Loader device=cpu", gip_loader(files, args, train, "cpu"),
                             args.epochs, len(files))
        if have_tv:
            r["torchvision_cpu"] = timed("torchvision DataLoader (CPU, %d workers)" % args.workers,
                                         tv_cpu_loader(files, args, train), args.epochs,
                                         len(files))
            print("  gip cpu / torchvision cpu: %.2fx" % (r["gip_cpu"] / r["torchvision_cpu"]))
        if cuda:
            r["gip_cuda"] = timed("gip.Loader device=cuda", gip_loader(files, args, train, "cuda"),
                                  args.epochs, len(files))
            try:
                r["gip_cuda_nvjpeg"] = timed("gip.Loader device=cuda decoder=nvjpeg",
                                             gip_loader(files, args, train, "cuda", "nvjpeg"),
                                             args.epochs, len(files))
                r["gip_cuda"] = max(r["gip_cuda"], r["gip_cuda_nvjpeg"])
            except gip.Error as e:
                print("  gip decoder=nvjpeg: %s" % e)
            if have_tv:
                r["torchvision_gpu"] = timed("torchvision decode_jpeg(cuda) + v2 on the GPU",
                                             tv_gpu_loader(files, args, train), args.epochs,
                                             len(files))
                r["nvjpeg_decode_alone"] = timed("nvJPEG batched decode alone (torchvision)",
                                                 nvjpeg_alone(files, args), args.epochs,
                                                 len(files))
                print("  gip cuda / torchvision gpu: %.2fx   gip cuda / nvJPEG decode alone: "
                      "%.0f%%" % (r["gip_cuda"] / r["torchvision_gpu"],
                                  100 * r["gip_cuda"] / r["nvjpeg_decode_alone"]))
            try:
                r["dali"] = timed("DALI", dali_loader(files, args, train), args.epochs,
                                  len(files))
                print("  gip cuda / DALI: %.2fx" % (r["gip_cuda"] / r["dali"]))
            except ImportError:
                print("  DALI is not installed: left out")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"files": len(files), "batch": args.batch, "size": args.size,
                       "workers": args.workers, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
