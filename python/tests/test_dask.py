# SPDX-License-Identifier: MIT
"""gip.dask on a LocalCluster of worker processes: a folder batch (with corrupt files) equals the
local batch, chunked filters equal the whole-image results for every chunking (chunks smaller
than the halo included), a worker killed mid-task loses and corrupts nothing, and
`python -m gip.dask run` works against a running scheduler."""
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import gip
from conftest import rand, requires_cuda

try:
    import dask.array as da
    import distributed
except ImportError as e:  # pragma: no cover - CI: pip install 'dask[array]' distributed
    pytest.skip("gip.dask needs dask[array] and distributed (pip install 'gip[dask]'): %s" % e,
                allow_module_level=True)

import cloudpickle  # noqa: E402 - installed with distributed

import gip.dask as gd  # noqa: E402

# The task hook below runs on the workers, which cannot import this test module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _images(folder, n, size=(48, 64), seed=0):
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i in range(n):
        path = os.path.join(folder, "img%02d.png" % i)
        gip.imwrite(path, rng.integers(0, 256, size + (3,), dtype=np.uint8), bgr=False)
        paths.append(path)
    return paths


def _same_outputs(dir_a, dir_b):
    names = sorted(os.listdir(dir_a))
    assert names == sorted(os.listdir(dir_b))
    for n in names:
        np.testing.assert_array_equal(gip.imread(os.path.join(dir_a, n), bgr=False),
                                      gip.imread(os.path.join(dir_b, n), bgr=False))
    return names


def test_folder_batch(client, tmp_path):
    ind = str(tmp_path / "in")
    paths = _images(ind, 10)
    with open(os.path.join(ind, "corrupt.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    with open(os.path.join(ind, "trunc.jpg"), "wb") as f:
        f.write(b"\xff\xd8\xff\xe0 not a jpeg")
    text = "gaussian 7 | sobel dx=1"
    res = gd.run_files(client, text, ind, str(tmp_path / "dask"), files_per_task=3)
    assert res.total == 12 and len(res.ok) == 10 and not res.skipped
    assert sorted(os.path.basename(f) for f, _ in res.failed) == ["corrupt.png", "trunc.jpg"]
    assert all(why for _, why in res.failed)
    assert len(res.tasks) == 4 and res.wall > 0 and res.stages["compute"] > 0
    local = gip.run_batch(text, ind, str(tmp_path / "local"), device="cpu")
    assert len(local.ok) == 10
    assert len(_same_outputs(str(tmp_path / "dask"), str(tmp_path / "local"))) == 10
    # Again with a list of paths: every output exists, so all are skipped.
    again = gd.run_files(client, gip.Pipeline(text), paths, str(tmp_path / "dask"))
    assert len(again.skipped) == 10 and not again.ok and not again.failed


def test_same_stem_in_one_task(client, tmp_path):
    ind = str(tmp_path / "in")
    _images(ind, 4)
    gip.imwrite(os.path.join(ind, "img01.jpg"), rand((20, 20, 3), np.uint8))
    res = gd.run_files(client, "invert", ind, str(tmp_path / "out"), files_per_task=1,
                       format="png")
    # img01.jpg and img01.png map to one output name: the batch engine refuses the second.
    assert len(res.ok) == 4 and len(res.failed) == 1
    assert "img01" in res.failed[0][0]


OPS = [
    ("gaussian 15", lambda a: gip.gaussian_blur(a, (15, 15)),
     lambda d: gd.gaussian_blur(d, 15, device="cpu")),
    ("sobel dx=1 dtype=s16", lambda a: gip.sobel(a, gip.CV_16S, 1, 0),
     lambda d: gd.sobel(d, 1, 0, dtype="s16", device="cpu")),
    ("box 5x3", lambda a: gip.blur(a, (5, 3)),
     lambda d: gd.box_filter(d, (5, 3), device="cpu")),
    ("gaussian 9 | sobel dx=0 dy=1 ksize=5 dtype=f32",
     lambda a: gip.sobel(gip.gaussian_blur(a, (9, 9)), gip.CV_32F, 0, 1, ksize=5),
     lambda d: gd.map_pipeline(d, gip.Pipeline().gaussian(9).sobel(0, 1, 5, dtype="f32"),
                               device="cpu")),
]
# (image size, chunks): even and uneven chunkings, one chunk, and chunks smaller than every halo
# above (merged with their neighbours first) on a small image to keep the task count low.
CHUNKS = [((250, 190), (64, 64)), ((250, 190), (131, 19)), ((250, 190), (250, 190)),
          ((40, 37), (5, 7)), ((40, 37), (2, 37))]


@pytest.mark.parametrize("text,ref,fn", OPS, ids=[o[0] for o in OPS])
def test_chunked_filters(client, text, ref, fn):
    for i, (size, ch) in enumerate(CHUNKS):
        a = rand(size + (3,), np.uint8, seed=len(text) + i)
        want = ref(a)
        np.testing.assert_array_equal(gip.Pipeline(text, device="cpu")(a), want)
        d = da.from_array(a, chunks=ch + (3,))
        lazy = fn(d) if i % 2 == 0 else gd.map_pipeline(d, text, device="cpu")
        got = client.compute(lazy).result()
        assert got.shape == want.shape and got.dtype == want.dtype, ch
        np.testing.assert_array_equal(got, want, err_msg="chunks %s" % (ch,))


def test_chunked_gray_and_2d(client):
    a = rand((120, 90, 3), np.uint8, seed=4)
    d = da.from_array(a, chunks=(40, 33, 3))
    got = client.compute(gd.map_pipeline(d, "gray | gaussian 5")).result()
    np.testing.assert_array_equal(got, gip.Pipeline("gray | gaussian 5")(a))
    assert got.shape == (120, 90)
    e = client.compute(gd.edges(d)).result()
    np.testing.assert_array_equal(e, gip.Pipeline("edges")(a))
    g = rand((77, 51), np.float32, seed=5)
    dg = da.from_array(g, chunks=(10, 10))
    np.testing.assert_array_equal(client.compute(gd.invert(dg, 2.0)).result(),
                                  gip.invert(g, max=2.0))
    k = np.array([[1, 2, 1], [0, 0, 0], [-1, -2, -1]], np.float32)
    np.testing.assert_array_equal(client.compute(gd.filter2d(dg, k)).result(),
                                  gip.filter2d(g, -1, k, method="direct"))


def test_chunk_merging_and_refusals():
    assert gd._fit_chunks((5, 5, 5, 5), 7) == ((10, 10), 7)
    assert gd._fit_chunks((2, 2, 2), 7) == ((6,), 0)
    assert gd._fit_chunks((64, 3), 7) == ((67,), 0)
    assert gd._fit_chunks((10, 10), 7) == ((10, 10), 7)
    d = da.zeros((40, 40), np.uint8, chunks=10)
    with pytest.raises(ValueError, match="whole image"):
        gd.map_pipeline(d, "spectrum")
    with pytest.raises(ValueError, match="pipeline: at"):
        gd.map_pipeline(d, "gaussian 4")
    with pytest.raises(ValueError):
        gd.map_pipeline(da.zeros((4, 4, 3, 2), np.uint8), "invert")


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
def test_resize_and_thumbnail_by_row_chunks(dt):
    """Size-changing operations run by output row chunks, each from only the input rows it
    reads (gip_op_apply_band): equal to the whole-image result for shrinks, integer shrinks,
    enlargements and every interpolation."""
    a = rand((1001, 517, 3), dt, seed=21)
    d = da.from_array(a, chunks=(128, 100, 3))
    cases = [("resize", dict(dsize=(200, 300), interpolation="area")),
             ("resize", dict(dsize=(0, 0), fx=0.5, fy=0.5, interpolation="area")),
             ("resize", dict(dsize=(700, 1500), interpolation="cubic")),
             ("resize", dict(dsize=(0, 0), fx=0.37, fy=0.41, interpolation="lanczos4")),
             ("resize", dict(dsize=(300, 400), interpolation="linear", antialias=True)),
             ("resize", dict(dsize=(300, 400), interpolation="nearest_exact")),
             ("thumbnail", dict(size=(100, 100)))]
    for name, kw in cases:
        lazy = gd.apply(name, d, device="cpu", **kw)
        assert len(lazy.chunks[0]) > 1, (name, kw)  # really cut by rows
        got = lazy.compute(scheduler="threads")
        np.testing.assert_array_equal(got, gip.apply(name, a, device="cpu", **kw))
    g = gd.resize(da.from_array(a[:, :, 0], chunks=(100, 517)), dsize=(90, 70))
    np.testing.assert_array_equal(g.compute(scheduler="threads"),
                                  gip.apply("resize", a[:, :, 0], dsize=(90, 70), device="cpu"))


class KillOnce:
    """A task hook: the first task to run it kills its own worker process (SIGKILL) as soon as
    one of its outputs exists, i.e. in the middle of the task; the marker file records how many
    of the task's outputs existed then."""

    def __init__(self, marker, out_dir):
        self.marker, self.out_dir = marker, out_dir

    def __call__(self, files):
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        names = [os.path.splitext(os.path.basename(f))[0] + ".png" for f in files]

        def watch():
            while True:
                present = sum(os.path.exists(os.path.join(self.out_dir, n)) for n in names)
                if present:
                    os.write(fd, b"%d %d" % (present, len(names)))
                    os.fsync(fd)
                    os.kill(os.getpid(), signal.SIGKILL)
                time.sleep(0.0002)

        threading.Thread(target=watch, daemon=True).start()


def test_worker_killed_mid_task(client, tmp_path):
    ind, out = str(tmp_path / "in"), str(tmp_path / "out")
    _images(ind, 12, size=(320, 320), seed=3)
    text = "gaussian 31 | box 15 | gaussian 21"
    marker = str(tmp_path / "killed")
    res = gd.run_files(client, text, ind, out, files_per_task=6, jobs=1,
                       task_hook=KillOnce(marker, out))
    with open(marker, "rb") as f:
        present, chunk = (int(x) for x in f.read().split())
    assert 0 < present < chunk, "the kill was not in the middle of the task"
    assert not res.failed
    assert len(res.ok) + len(res.skipped) == 12 and len(res.skipped) >= present
    local = gip.run_batch(text, ind, str(tmp_path / "local"), device="cpu")
    assert len(local.ok) == 12
    _same_outputs(out, str(tmp_path / "local"))  # every output complete, no temporary left
    client.wait_for_workers(2, timeout=60)


def test_cli_run_on_scheduler(client, tmp_path):
    ind = str(tmp_path / "in")
    _images(ind, 4)
    with open(os.path.join(ind, "bad.png"), "wb") as f:
        f.write(b"garbage")
    addr = client.scheduler.address
    cmd = [sys.executable, "-m", "gip.dask", "run", "gaussian 5 | invert", "-i", ind, "-o",
           str(tmp_path / "out"), "--scheduler", addr, "--format", "png", "--jobs=1", "-v",
           "--cpu-mode", "inline", "--quality", "90"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr  # one file failed
    assert "bad.png" in r.stderr and "4 written" in r.stdout and "task: tcp://" in r.stdout
    assert len(os.listdir(str(tmp_path / "out"))) == 4
    r = subprocess.run(cmd[:4] + ["gaussian 14"] + cmd[5:], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "at 10" in r.stderr and "^" in r.stderr


@requires_cuda
def test_cupy_chunks_stay_on_gpu():
    cp = pytest.importorskip("cupy")
    a = rand((300, 200, 3), np.uint8, seed=8)
    d = da.from_array(cp.asarray(a), chunks=(64, 50, 3), asarray=False)
    lazy = gd.map_pipeline(d, "gaussian 15 | sobel dx=1")
    got = lazy.compute(scheduler="threads")
    assert isinstance(got, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got),
                                  gip.Pipeline("gaussian 15 | sobel dx=1", device="cpu")(a))
