# SPDX-License-Identifier: MIT
"""gip.Loader: eval mode against a numpy reference of resize-shorter (antialiased bilinear) +
centre crop within 1 level of u8, normalisation, train crops reproducible from the seed across
threads and devices, epochs and reshuffling, shards, shutdown (break, close, garbage collection,
Ctrl-C) without hung threads, errors naming the file, and torchvision where it is installed."""
import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import cv2
import numpy as np
import pytest

import gip
from conftest import DATA, ROOT, requires_cuda

_SAMPLES = [os.path.join(ROOT, "..", "shared", "samples"), DATA]


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory):
    """~500x375 q90 JPEGs cut from the bundled samples at varied crops, sizes and aspects."""
    folder = next(d for d in _SAMPLES if os.path.isdir(d))
    names = sorted(n for n in os.listdir(folder) if n.endswith((".png", ".jpg")))
    srcs = [cv2.imread(os.path.join(folder, n), cv2.IMREAD_COLOR) for n in names]
    srcs = [s for s in srcs if s is not None and min(s.shape[:2]) >= 200]
    out = tmp_path_factory.mktemp("loader")
    rng = np.random.default_rng(43)
    paths = []
    for i in range(23):
        s = srcs[i % len(srcs)]
        h, w = s.shape[:2]
        cw, ch = int(rng.integers(w // 2, w + 1)), int(rng.integers(h // 2, h + 1))
        x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        dw, dh = [(500, 375), (375, 500), (481, 359), (333, 500), (512, 288)][i % 5]
        img = cv2.resize(s[y:y + ch, x:x + cw], (dw, dh), interpolation=cv2.INTER_AREA)
        p = str(out / ("img%02d.jpg" % i))
        cv2.imwrite(p, img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        paths.append(p)
    return paths


def _rgb(path):
    return cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION),
                        cv2.COLOR_BGR2RGB)


def _weights(sn, dn):
    """dn x sn matrix of an antialiased bilinear resize (triangle widened by the shrink factor,
    pixel centres, each row normalised), in double."""
    scale = sn / dn
    fs = max(scale, 1.0)
    m = np.zeros((dn, sn))
    for o in range(dn):
        c = (o + 0.5) * scale
        lo, hi = max(int(np.floor(c - fs + 0.5)), 0), min(int(np.floor(c + fs + 0.5)), sn)
        k = np.arange(lo, hi)
        w = np.clip(1 - np.abs((k - c + 0.5) / fs), 0, None)
        m[o, lo:hi] = w / w.sum()
    return m


def _resize_ref(img, dw, dh):
    h, w = img.shape[:2]
    wy, wx = _weights(h, dh), _weights(w, dw)
    rows = np.tensordot(wy, img.astype(np.float64), axes=(1, 0))  # dh, w, c
    return np.tensordot(rows, wx, axes=(1, 1)).transpose(0, 2, 1)  # dh, dw, c


def _eval_ref(img, size, resize):
    h, w = img.shape[:2]
    if w <= h:
        rw, rh = resize, int(resize * h / w)
    else:
        rw, rh = int(resize * w / h), resize
    full = _resize_ref(img, rw, rh)
    top, left = int(round((rh - size) / 2.0)), int(round((rw - size) / 2.0))
    return full[top:top + size, left:left + size]


def _epoch(loader):
    xs, idx = [], []
    for x, i in loader:
        xs.append(np.asarray(x))
        idx.append(np.asarray(i))
    return np.concatenate(xs), np.concatenate(idx)


def test_eval_matches_reference(jpegs):
    size = 96
    loader = gip.Loader(jpegs, batch_size=8, size=size, train=False, dtype="uint8", mean=None,
                        std=None, layout="NHWC", device="cpu", output="numpy")
    assert len(loader) == 3 and loader.samples == len(jpegs)
    x, idx = _epoch(loader)
    assert x.shape == (len(jpegs), size, size, 3) and x.dtype == np.uint8
    assert list(idx) == list(range(len(jpegs)))  # eval: no shuffle
    for k, i in enumerate(idx):
        ref = _eval_ref(_rgb(jpegs[i]), size, size * 256 // 224)
        diff = np.abs(x[k].astype(np.float64) - ref)
        assert diff.max() <= 1.0, "file %d: differs by %.3f at %s" % (
            i, diff.max(), np.unravel_index(diff.argmax(), diff.shape))


def test_normalisation_and_layouts(jpegs):
    base = dict(batch_size=5, size=48, train=True, seed=3, device="cpu", output="numpy")
    u8, i0 = _epoch(gip.Loader(jpegs, dtype="uint8", mean=None, std=None, layout="NHWC", **base))
    mean, std = np.array(gip._loader.IMAGENET_MEAN), np.array(gip._loader.IMAGENET_STD)
    want = (u8 / 255.0 - mean) / std
    f32, i1 = _epoch(gip.Loader(jpegs, dtype="float32", layout="NCHW", **base))
    f16, i2 = _epoch(gip.Loader(jpegs, dtype="float16", layout="NHWC", **base))
    assert (i0 == i1).all() and (i0 == i2).all()
    np.testing.assert_allclose(f32.transpose(0, 2, 3, 1), want, atol=4e-6, rtol=0)
    assert f16.dtype == np.float16
    assert (f16 == want.astype(np.float32).astype(np.float16)).mean() > 0.999
    np.testing.assert_allclose(f16.astype(np.float64), want, rtol=2 ** -11, atol=1e-5)


def test_seed_reproducible_across_threads(jpegs):
    kw = dict(batch_size=4, size=40, train=True, seed=11, brightness=0.3, contrast=0.3,
              saturation=0.3, device="cpu", output="numpy")
    a, ia = _epoch(gip.Loader(jpegs, threads=1, prefetch=1, **kw))
    b, ib = _epoch(gip.Loader(jpegs, threads=3, prefetch=4, **kw))
    assert (ia == ib).all() and np.array_equal(a.view(np.uint16), b.view(np.uint16))
    c, ic = _epoch(gip.Loader(jpegs, threads=2, **dict(kw, seed=12)))
    assert not (ia == ic).all()
    assert len(ia) == 20 and len(set(ia.tolist())) == 20  # drop_last: 23 -> 5 batches of 4


def test_epochs_reshuffle_and_set_epoch(jpegs):
    loader = gip.Loader(jpegs, batch_size=6, size=32, seed=5, device="cpu", output="numpy")
    assert loader.epoch == 0
    _, e0 = _epoch(loader)
    assert loader.epoch == 1
    _, e1 = _epoch(loader)
    assert not (e0 == e1).all()
    loader.set_epoch(0)
    x0, again = _epoch(loader)
    assert (again == e0).all()
    # a pass broken off restarts its epoch
    for _ in loader:
        break
    _, e1b = _epoch(loader)
    assert (e1b == e1).all()
    with pytest.raises(gip.InvalidArgument):
        loader.set_epoch(-1)


def test_shards_cover_every_file(jpegs):
    world = 4
    seen = []
    for rank in range(world):
        ld = gip.Loader(jpegs, batch_size=2, size=16, train=True, drop_last=False, seed=9,
                        shard=(rank, world), device="cpu", output="numpy")
        assert ld.samples == 6
        seen.extend(_epoch(ld)[1])
    counts = np.bincount(seen, minlength=len(jpegs))
    assert len(seen) == 24 and counts.min() == 1 and (counts == 2).sum() == 1


def test_labels_and_buffers(jpegs):
    blobs = [open(p, "rb").read() for p in jpegs]
    labels = list(range(100, 100 + len(jpegs)))
    a = gip.Loader(jpegs, batch_size=7, size=24, train=False, device="cpu", output="numpy",
                   labels=labels)
    b = gip.Loader(blobs, batch_size=7, size=24, train=False, device="cpu", output="numpy")
    for (xa, la, ia), (xb, ib) in zip(a, b):
        assert (ia == ib).all() and (la == ia + 100).all()
        assert np.array_equal(xa.view(np.uint16), xb.view(np.uint16))


def test_letterbox_and_flip(jpegs):
    kw = dict(batch_size=4, size=32, dtype="uint8", mean=None, std=None, layout="NHWC",
              device="cpu", output="numpy", train=False)
    plain, _ = _epoch(gip.Loader(jpegs, **kw))
    flipped, _ = _epoch(gip.Loader(jpegs, hflip=1.0, **kw))
    assert np.array_equal(flipped, plain[:, :, ::-1])
    box, idx = _epoch(gip.Loader(jpegs, mode="letterbox", fill=114, **kw))
    img = _rgb(jpegs[idx[0]])  # 500x375: 32x24 centred, rows 4..27
    assert (box[0, :4] == 114).all() and (box[0, 28:] == 114).all()
    ref = _resize_ref(img, 32, 24)
    assert np.abs(box[0, 4:28].astype(np.float64) - ref).max() <= 1.0


def _threads():
    return len(os.listdir("/proc/self/task"))


def test_shutdown_no_hung_threads(jpegs):
    before = _threads()
    loader = gip.Loader(jpegs, batch_size=2, size=32, device="cpu", output="numpy", threads=3)
    assert _threads() >= before + 3
    for x, _ in loader:
        break  # leaves prefetched work behind
    del loader, x
    gc.collect()
    assert _threads() == before
    with gip.Loader(jpegs, batch_size=2, size=32, device="cpu", output="numpy",
                    threads=2) as ld:
        it = iter(ld)
        x, _ = next(it)
    assert _threads() == before
    assert x.shape == (2, 3, 32, 32)  # a batch handed out outlives the loader
    with pytest.raises(gip.InvalidArgument, match="closed"):
        next(it)
    with pytest.raises(gip.InvalidArgument, match="closed"):
        len(ld)


def test_ctrl_c_stops_cleanly(jpegs, tmp_path):
    # The child takes Ctrl-C as Python does by default even where the tests run in a shell's
    # background job, which starts its children with SIGINT ignored (Python then installs no
    # handler, and the loop below would never stop).
    script = textwrap.dedent("""
        import signal, sys, gip
        signal.signal(signal.SIGINT, signal.default_int_handler)
        files = sys.argv[1:]
        ld = gip.Loader(files * 40, batch_size=8, size=64, device="cpu", output="numpy",
                        threads=2)
        print("started", flush=True)
        try:
            while True:
                for x, i in ld:
                    pass
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", script] + jpegs[:4], stdout=subprocess.PIPE,
                         text=True, env=env)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("the loader did not stop after SIGINT")
    assert "interrupted" in out and p.returncode == 0


def test_errors_name_the_file(jpegs, tmp_path):
    missing = str(tmp_path / "missing.jpg")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(open(jpegs[0], "rb").read()[:2000])
    files = [jpegs[0], missing, jpegs[1], str(corrupt), jpegs[2], jpegs[3]]
    kw = dict(batch_size=2, size=16, train=False, device="cpu", output="numpy")
    # batches: [0, missing], [1, corrupt], [2, 3]; a failed batch is dropped and the pass goes on
    it = iter(gip.Loader(files, **kw))
    with pytest.raises(gip.NotFound, match="missing.jpg"):
        next(it)
    with pytest.raises(gip.Error, match="corrupt.jpg") as e:
        next(it)
    assert isinstance(e.value, gip.CorruptData)
    x, i = next(it)
    assert list(i) == [4, 5]
    with pytest.raises(StopIteration):
        next(it)
    skip = gip.Loader(files, on_error="skip", **kw)
    x, idx = _epoch(skip)
    assert list(idx) == [0, 2, 4, 5] and x.shape[0] == 4
    assert [n for n, _ in skip.last_skipped] == [0, 1]
    assert "missing.jpg" in skip.last_skipped[0][1] and "corrupt.jpg" in skip.last_skipped[1][1]
    # a last batch of failed files only: reported at the end of the pass
    tail = gip.Loader([jpegs[0], jpegs[1], missing, str(corrupt)], on_error="skip", **kw)
    x, idx = _epoch(tail)
    assert list(idx) == [0, 1] and len(tail.last_skipped) == 1
    assert "missing.jpg" in tail.last_skipped[0][1]


@pytest.mark.parametrize("kw, exc", [
    (dict(batch_size=0), gip.InvalidArgument),
    (dict(size=-1), gip.InvalidArgument),
    (dict(dtype="int7"), gip.InvalidArgument),
    (dict(layout="CHW"), gip.InvalidArgument),
    (dict(shard=(2, 2)), gip.InvalidArgument),
    (dict(on_error="ignore"), gip.InvalidArgument),
    (dict(std=(1, 0, 1)), gip.InvalidArgument),
    (dict(dtype="uint8", mean=(0.5, 0.5, 0.5)), gip.InvalidArgument),
    (dict(scale=(0.5, 0.1)), gip.InvalidArgument),
    (dict(ratio=(0, 1)), gip.InvalidArgument),
    (dict(hflip=2.0), gip.InvalidArgument),
    (dict(brightness=-1), gip.InvalidArgument),
    (dict(resize=8, size=16, train=False), gip.InvalidArgument),
    (dict(output="tensorflow"), gip.InvalidArgument),
    (dict(dtype="bfloat16", output="numpy"), gip.InvalidArgument),
    (dict(decoder="pil"), gip.InvalidArgument),
    (dict(decoder="nvjpeg"), gip.InvalidArgument),  # device='cpu'
])
def test_bad_arguments(jpegs, kw, exc):
    args = dict(device="cpu", output="numpy")
    args.update(kw)
    with pytest.raises(exc):
        gip.Loader(jpegs, **args)


def test_bad_files_argument(tmp_path):
    with pytest.raises(gip.InvalidArgument):
        gip.Loader([], device="cpu")
    with pytest.raises(gip.InvalidArgument):
        gip.Loader(str(tmp_path), device="cpu")  # an empty folder
    with pytest.raises(gip.InvalidType):
        gip.Loader([1, 2], device="cpu")
    with pytest.raises(gip.InvalidType):
        gip.Loader(["a.jpg", b"xx"], device="cpu")


def test_folder_and_torch_output(jpegs):
    torch = pytest.importorskip("torch")
    folder = os.path.dirname(jpegs[0])
    ld = gip.Loader(folder, batch_size=8, size=32, device="cpu", dtype="bfloat16")
    x, i = next(iter(ld))
    assert isinstance(x, torch.Tensor) and x.dtype == torch.bfloat16 and x.shape == (8, 3, 32, 32)
    assert isinstance(i, torch.Tensor) and i.dtype == torch.int64


def test_torchvision_eval_within_one_level(jpegs):
    torchvision = pytest.importorskip("torchvision")
    torch = pytest.importorskip("torch")
    from torchvision.transforms import v2
    tf = v2.Compose([v2.Resize(256, antialias=True), v2.CenterCrop(224)])
    ld = gip.Loader(jpegs, batch_size=8, size=224, train=False, dtype="uint8", mean=None,
                    std=None, device="cpu", output="torch")
    for x, idx in ld:
        for k, i in enumerate(idx.tolist()):
            img = torchvision.io.decode_jpeg(torchvision.io.read_file(jpegs[i]))
            ref = tf(img)
            d = (x[k].to(torch.int16) - ref.to(torch.int16)).abs()
            assert d.max().item() <= 1, "file %d: torchvision differs by %d" % (i, d.max())


def test_torchvision_train_whole_image_crop(jpegs):
    """scale (1, 1) with the image's own ratio: RandomResizedCrop takes the whole image on its
    first try in torchvision and in gip, so the outputs agree within 1 level."""
    torchvision = pytest.importorskip("torchvision")
    torch = pytest.importorskip("torch")
    from torchvision.transforms import v2
    img = torchvision.io.decode_jpeg(torchvision.io.read_file(jpegs[0]))
    h, w = img.shape[1:]
    tf = v2.RandomResizedCrop(64, scale=(1.0, 1.0), ratio=(w / h, w / h), antialias=True)
    ref = tf(img)
    ld = gip.Loader(jpegs[:1], batch_size=1, size=64, train=True, hflip=0.0, dtype="uint8",
                    mean=None, std=None, scale=(1.0, 1.0), ratio=(w / h, w / h), device="cpu",
                    output="torch")
    x, _ = next(iter(ld))
    assert (x[0].to(torch.int16) - ref.to(torch.int16)).abs().max().item() <= 1


@requires_cuda
def test_cuda_equals_cpu(jpegs):
    kw = dict(batch_size=8, size=64, train=True, seed=21, brightness=0.2, saturation=0.2,
              output="gip")
    for dtype in ("float16", "bfloat16", "float32", "uint8"):
        extra = {} if dtype != "uint8" else dict(mean=None, std=None)
        cpu = gip.Loader(jpegs, device="cpu", dtype=dtype, **kw, **extra)
        gpu = gip.Loader(jpegs, device="cuda", dtype=dtype, **kw, **extra)
        for (xc, ic), (xg, ig) in zip(cpu, gpu):
            torch = pytest.importorskip("torch")
            a, b = torch.from_dlpack(xc), torch.from_dlpack(xg)
            assert b.is_cuda and (ic == ig).all()
            assert torch.equal(a.view(torch.uint8) if dtype == "uint8" else a,
                               b.cpu()), dtype


@pytest.mark.skipif(any(d["usable"] for d in gip.devices()), reason="a CUDA device is usable")
def test_cuda_requested_without_device(jpegs):
    with pytest.raises((gip.NoDevice, gip.NotBuilt)):
        gip.Loader(jpegs, device="cuda", output="gip")


@requires_cuda
def test_cuda_nvjpeg_decoder(jpegs):
    torch = pytest.importorskip("torch")
    if not gip.build_info() or "nvJPEG" not in gip.build_info():
        pytest.skip("gip was built without nvJPEG")
    kw = dict(batch_size=8, size=64, train=False, dtype="uint8", mean=None, std=None,
              output="torch", device="cuda")
    for (xc, ic), (xn, in_) in zip(gip.Loader(jpegs, **kw),
                                   gip.Loader(jpegs, decoder="nvjpeg", **kw)):
        assert xn.is_cuda and (ic == in_).all()
        d = (xc.to(torch.int16) - xn.to(torch.int16)).abs()
        assert d.max().item() <= 48 and d.float().mean().item() <= 1.5
    with pytest.raises(gip.Unsupported):
        gip.Loader(jpegs, decoder="nvjpeg", brightness=0.2, **kw)
