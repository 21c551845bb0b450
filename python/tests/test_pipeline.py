# SPDX-License-Identifier: MIT
"""gip.Pipeline and gip.run_batch: results equal the operations called one by one, parse errors
name their position, batches report corrupt files and write only complete outputs."""
import os
import pickle
import threading

import numpy as np
import pytest

import gip
from conftest import rand, requires_cuda


def u8_abs(x):
    """|x| saturated to uint8: the pipeline's u8 Sobel (`gip sobel`'s convertScaleAbs)."""
    return np.clip(np.abs(x.astype(np.int32)), 0, 255).astype(np.uint8)


def rgb_gray(a):
    return gip.cvt_color(a, gip.COLOR_RGB2GRAY)


# (pipeline text, the same built with methods, one-by-one reference on the CPU)
CASES = [
    ("gaussian 15", lambda p: p.gaussian(15),
     lambda a: gip.gaussian_blur(a, (15, 15))),
    ("gaussian 7x3 sigma=1.5,0.8 border=replicate",
     lambda p: p.gaussian((7, 3), 1.5, 0.8, gip.BORDER_REPLICATE),
     lambda a: gip.gaussian_blur(a, (7, 3), 1.5, sigmaY=0.8, borderType=gip.BORDER_REPLICATE)),
    ("box 5", lambda p: p.box(5), lambda a: gip.blur(a, (5, 5))),
    ("box 3x5 border=reflect", lambda p: p.box((3, 5), borderType=gip.BORDER_REFLECT),
     lambda a: gip.blur(a, (3, 5), borderType=gip.BORDER_REFLECT)),
    ("filter kernel='0,-1,0;-1,5,-1;0,-1,0'",
     lambda p: p.filter2d([[0, -1, 0], [-1, 5, -1], [0, -1, 0]]),
     lambda a: gip.filter2d(a, -1, np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32))),
    ("sobel dx=1", lambda p: p.sobel(1, 0),
     lambda a: u8_abs(gip.sobel(a, gip.CV_16S, 1, 0))),
    ("sobel dx=0 dy=1 ksize=5 dtype=f32", lambda p: p.sobel(0, 1, 5, dtype="f32"),
     lambda a: gip.sobel(a, gip.CV_32F, 0, 1, ksize=5)),
    ("invert", lambda p: p.invert(), lambda a: gip.invert(a)),
    ("invert | invert", lambda p: p.invert().invert(), lambda a: a.copy()),
    ("gray", lambda p: p.gray(), rgb_gray),
    ("edges", lambda p: p.edges(),
     lambda a: gip.sobel_magnitude(rgb_gray(a), gip.CV_8U)),
    ("convert f32 scale=0.5 offset=3", lambda p: p.convert("f32", 0.5, 3),
     lambda a: gip.convert(a, np.float32, 0.5, 3)),
    ("map 'in * k + 1' k=0.75", lambda p: p.map("in * k + 1", k=0.75),
     lambda a: gip.map("in * k + 1", a, scalars={"k": 0.75})),
    ("stencil radius=1 '(in(-1,0) + in(1,0)) / 2'",
     lambda p: p.stencil("(in(-1,0) + in(1,0)) / 2", radius=1),
     lambda a: gip.stencil("(in(-1,0) + in(1,0)) / 2", a, radius=1)),
    ("gaussian 15 | sobel dx=1 | invert", lambda p: p.gaussian(15).sobel(1, 0).invert(),
     lambda a: gip.invert(u8_abs(gip.sobel(gip.gaussian_blur(a, (15, 15)), gip.CV_16S, 1, 0)))),
    ("invert | convert f32 | map 'in * 2'",
     lambda p: p.invert().convert(np.float32).map("in * 2"),
     lambda a: gip.map("in * 2", gip.convert(gip.invert(a), np.float32))),
    ("spectrum", lambda p: p.spectrum(), lambda a: gip.spectrum(a, bgr=False)),
]


@pytest.mark.parametrize("text,build,ref", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("shape", [(1, 1, 3), (13, 42, 3), (67, 45, 3)])
def test_equals_one_by_one(text, build, ref, shape):
    a = rand(shape, np.uint8, seed=len(text))
    want = ref(a)
    for p in (gip.Pipeline(text, device="cpu"), build(gip.Pipeline(device="cpu")),
              gip.Pipeline(text, device="cpu", fusion=False)):
        got = p(a)
        assert got.dtype == want.dtype and got.shape == want.shape, (p, got.shape, want.shape)
        np.testing.assert_array_equal(got, want)
        sh, dt = p.output_shape(a.shape, a.dtype)
        assert sh == want.shape and dt == want.dtype


def test_gray_input_and_dtypes():
    a = rand((31, 29), np.uint8, seed=3)
    p = gip.Pipeline("gaussian 5 | box 3")
    np.testing.assert_array_equal(p(a), gip.blur(gip.gaussian_blur(a, (5, 5)), (3, 3)))
    f = rand((31, 29, 4), np.float32, seed=4)
    p = gip.Pipeline().gaussian(5).invert(max=2.0)
    np.testing.assert_array_equal(p(f), gip.invert(gip.gaussian_blur(f, (5, 5)), max=2.0))
    u = rand((17, 23, 1), np.uint16, seed=5)
    out = gip.Pipeline("box 3")(u)
    assert out.shape == (17, 23, 1)
    np.testing.assert_array_equal(out, gip.blur(u, (3, 3)).reshape(out.shape))


def test_dst_and_errors():
    a = rand((20, 30, 3), np.uint8)
    p = gip.Pipeline("gaussian 3 | gray")
    dst = np.zeros((20, 30), np.uint8)
    assert p.run(a, dst) is dst
    np.testing.assert_array_equal(dst, rgb_gray(gip.gaussian_blur(a, (3, 3))))
    poisoned = np.full((20, 30, 3), 7, np.uint8)
    with pytest.raises(gip.ShapeMismatch):
        p.run(a, poisoned)
    assert (poisoned == 7).all()
    with pytest.raises(gip.Unsupported):
        gip.Pipeline("gray")(rand((4, 4, 3), np.int16))  # gray takes u8, u16, f32
    with pytest.raises(gip.InvalidArgument):
        gip.Pipeline("sobel")(np.zeros((0, 3), np.uint8))


def test_empty_pipeline_copies():
    a = rand((9, 11, 3), np.uint8)
    p = gip.Pipeline()
    assert len(p) == 0 and p.halo == (0, 0)
    out = p(a)
    assert out is not a
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("text,pos,words", [
    ("gaussian 14 | invert", 10, "ksize"),
    ("gaussian 15 | blur 3", 15, "blur"),
    ("invert |", 9, ""),
    ("sobel dx=1 wat=3", 12, "wat"),
    ("map 'in + ", 5, ""),
])
def test_parse_errors(text, pos, words):
    p = gip.Pipeline("invert")
    with pytest.raises(ValueError) as e:
        p.add(text)
    assert isinstance(e.value, gip.InvalidArgument)
    assert e.value.position == pos, str(e.value)
    assert ("at %d:" % pos) in str(e.value)
    assert words in str(e.value)
    assert len(p) == 1  # nothing appended
    with pytest.raises(ValueError):
        gip.Pipeline(text)


def test_bad_step_arguments():
    with pytest.raises(gip.InvalidArgument):
        gip.Pipeline().gaussian(4)
    with pytest.raises(gip.InvalidArgument):
        gip.Pipeline().box(3, borderType=99)
    with pytest.raises(gip.Unsupported):
        gip.Pipeline().convert(np.float64)
    with pytest.raises(gip.InvalidArgument):
        gip.Pipeline().filter2d(np.ones((2, 2, 2)))


def test_halo_describe_shape_pickle():
    p = gip.Pipeline("gaussian 15 | sobel dx=1 ksize=5 | box 3x7 | invert")
    assert p.halo == (7 + 2 + 3, 7 + 2 + 1)
    assert gip.Pipeline("gaussian 3 | spectrum").halo is None
    d = p.describe(3, np.uint8)
    assert d.startswith("gaussian") and "sobel" in d and "box" in d
    assert "lut" in gip.Pipeline("invert | convert u8 scale=2").describe()
    assert p.output_shape((10, 20, 3), np.uint8) == ((10, 20, 3), np.dtype(np.uint8))
    assert gip.Pipeline("gray | convert f32").output_shape((10, 20, 4)) == \
        ((10, 20), np.dtype(np.float32))
    q = pickle.loads(pickle.dumps(gip.Pipeline("gaussian 5").filter2d(
        [[1, 2, 1]], delta=1).map("in * s", s=2).stencil("in(1,0)", radius=1)))
    a = rand((21, 19, 3), np.uint8, seed=9)
    want = gip.Pipeline("gaussian 5 | filter kernel='1,2,1' delta=1 | map 'in * s' s=2 | "
                        "stencil radius=1 'in(1,0)'")(a)
    np.testing.assert_array_equal(q(a), want)
    assert hash(q.recipe) == hash(pickle.loads(pickle.dumps(q)).recipe)
    assert "gaussian" in repr(q)


def test_threads_release_gil():
    """Two threads run their own pipelines at once and get the single-thread results."""
    a = rand((300, 400, 3), np.uint8, seed=1)
    p1, p2 = gip.Pipeline("gaussian 15", threads=1), gip.Pipeline("sobel dx=1", threads=1)
    want1, want2 = p1(a), p2(a)
    out = {}

    def work(name, p):
        out[name] = [p(a) for _ in range(3)]

    ts = [threading.Thread(target=work, args=(n, p)) for n, p in (("g", p1), ("s", p2))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for x in out["g"]:
        np.testing.assert_array_equal(x, want1)
    for x in out["s"]:
        np.testing.assert_array_equal(x, want2)


def _write_images(folder, n, size=(48, 64)):
    rng = np.random.default_rng(0)
    paths = []
    for i in range(n):
        img = rng.integers(0, 256, size + (3,), dtype=np.uint8)
        path = os.path.join(folder, "img%02d.png" % i)
        gip.imwrite(path, img, bgr=False)
        paths.append(path)
    return paths


def test_run_file(tmp_path):
    (src,) = _write_images(str(tmp_path), 1)
    p = gip.Pipeline("gaussian 5 | sobel dx=1")
    out = str(tmp_path / "out.png")
    p.run_file(src, out)
    want = p(gip.imread(src, bgr=False))
    np.testing.assert_array_equal(gip.imread(out, bgr=False), want)
    with pytest.raises(gip.NotFound):
        p.run_file(str(tmp_path / "missing.png"), out)


def test_run_file_modes(tmp_path):
    """Whole, streamed by rows under a small max_memory, and (CPU) decoded ahead: one result."""
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (1200, 1500, 3), dtype=np.uint8)
    src = str(tmp_path / "tall.png")
    gip.imwrite(src, img, bgr=False)
    p = gip.Pipeline("gaussian 7 | invert", device="cpu")
    want = p(gip.imread(src, bgr=False))
    got = {}
    for name, limit in (("big", 1 << 30), ("small", 12 << 20)):
        out = str(tmp_path / ("%s.png" % name))
        got[name] = p.run_file(src, out, max_memory=limit)
        np.testing.assert_array_equal(gip.imread(out, bgr=False), want)
    assert got == {"big": "decoded ahead", "small": "streamed"}
    with pytest.raises(ValueError):
        p.run_file(src, str(tmp_path / "x.png"), max_memory=-1)


def test_run_batch(tmp_path):
    ind, outd = tmp_path / "in", tmp_path / "out"
    ind.mkdir()
    paths = _write_images(str(ind), 6)
    (ind / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    (ind / "trunc.jpg").write_bytes(b"\xff\xd8\xff\xe0garbage")
    text = "gaussian 7 | invert"
    r = gip.run_batch(text, str(ind), str(outd), jobs=2, device="cpu")
    assert r.total == 8 and len(r.ok) == 6 and len(r.failed) == 2 and not r.skipped
    reasons = dict(r.failed)
    assert set(os.path.basename(k) for k in reasons) == {"corrupt.png", "trunc.jpg"}
    assert all(v for v in reasons.values())
    assert r.wall > 0 and r.images_per_second > 0 and "compute" in r.stages
    # The CPU decoders, one call per file read (the two bad files included).
    assert r.decoder == "cpu" and r.decode_calls == 8 and r.setup == 0
    p = gip.Pipeline(text)
    for src in paths:
        got = gip.imread(str(outd / os.path.basename(src)), bgr=False)
        np.testing.assert_array_equal(got, p(gip.imread(src, bgr=False)))
    assert sorted(os.listdir(outd)) == sorted(os.path.basename(x) for x in paths)
    # Again: existing outputs are skipped; overwrite replaces them; a list of paths and a format.
    r2 = gip.run_batch(p, paths, str(outd))
    assert len(r2.skipped) == 6 and not r2.ok
    r3 = gip.run_batch(text, paths[:2], str(outd), overwrite=True, format="jpg", quality=90)
    assert len(r3.ok) == 2 and r3.ok[0][1].endswith(".jpg")
    assert gip.list_inputs(str(ind / "*.png")) == sorted(paths + [str(ind / "corrupt.png")])
    m = gip.BatchResult.merge([r, r2])
    assert m.total == 14 and len(m.ok) == 6 and len(m.skipped) == 6
    assert pickle.loads(pickle.dumps(m)).total == 14
    empty = gip.run_batch(text, [], str(tmp_path / "none"))
    assert empty.total == 0
    with pytest.raises(gip.InvalidArgument):
        gip.run_batch(text, paths, str(outd), format="tiff")
    with pytest.raises(ValueError):
        gip.run_batch("gaussian 4", paths, str(outd))
    with pytest.raises(gip.InvalidArgument, match="CUDA pipeline"):
        gip.run_batch(text, paths, str(outd), device="cpu", decoder="nvjpeg")
    with pytest.raises(gip.InvalidArgument):
        gip.run_batch(text, paths, str(outd), decoder="libjpeg")
    with pytest.raises(gip.InvalidArgument):
        gip.run_batch(text, paths, str(outd), decode_batch=65)


# ---- GPU -------------------------------------------------------------------------------------
@requires_cuda
@pytest.mark.parametrize("text", ["gaussian 15 | sobel dx=1 | invert", "edges",
                                  "invert | convert f32 | map 'in * 2'", "box 5 | gray"])
def test_cuda_equals_cpu(text):
    a = rand((97, 131, 3), np.uint8, seed=2)
    want = gip.Pipeline(text, device="cpu")(a)
    p = gip.Pipeline(text, device="cuda")
    assert p.device == "cuda:0"
    np.testing.assert_array_equal(p(a), want)  # host in, host out (upload, run, download)
    img = gip.upload(a)
    out = p(img)  # a device image on the pipeline's stream
    assert isinstance(out, gip.Image) and out.is_cuda
    np.testing.assert_array_equal(out.download(), want)
    dst = gip.Image.upload(np.zeros_like(want))
    assert p.run(img, dst) is dst
    np.testing.assert_array_equal(dst.download(), want)


@requires_cuda
def test_cuda_cupy_zero_copy():
    cp = pytest.importorskip("cupy")
    a = rand((64, 80, 3), np.uint8, seed=7)
    p = gip.Pipeline("gaussian 7 | sobel dx=1", device="cuda")
    out = p(cp.asarray(a))
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(out)),
                                  gip.Pipeline("gaussian 7 | sobel dx=1", device="cpu")(a))
    with pytest.raises(gip.LocationMismatch):
        gip.Pipeline("invert", device="cpu")(cp.asarray(a))


@requires_cuda
def test_cuda_batch(tmp_path):
    ind = tmp_path / "in"
    ind.mkdir()
    paths = _write_images(str(ind), 4)
    r = gip.run_batch("gaussian 7", str(ind), str(tmp_path / "out"), device="cuda")
    assert len(r.ok) == 4 and "CUDA" in r.device.upper()
    p = gip.Pipeline("gaussian 7", device="cpu")
    for src in paths:
        np.testing.assert_array_equal(
            gip.imread(str(tmp_path / "out" / os.path.basename(src)), bgr=False),
            p(gip.imread(src, bgr=False)))


@requires_cuda
def test_cuda_batch_nvjpeg(tmp_path):
    """JPEG files through nvJPEG in batches of 4 (5 files: two decode calls). nvJPEG's IDCT and
    encoder differ from libjpeg's, so outputs are compared with the CPU decoders' run by mean
    absolute difference (both are q95 JPEG round trips of the same blur)."""
    ind = tmp_path / "in"
    ind.mkdir()
    for i in range(5):
        a = rand((120 + 8 * i, 160, 3), np.uint8, seed=20 + i)
        gip.imwrite(str(ind / ("%d.jpg" % i)), gip.gaussian_blur(a, (9, 9)),
                    [gip.IMWRITE_JPEG_QUALITY, 95])
    try:
        r = gip.run_batch("gaussian 5", str(ind), str(tmp_path / "gpu"), device="cuda",
                          decoder="nvjpeg", decode_batch=4, quality=95)
    except gip.NotBuilt:
        pytest.skip("gip built without nvJPEG")
    assert len(r.ok) == 5 and not r.failed and r.decoder == "nvjpeg" and r.decode_calls == 2
    c = gip.run_batch("gaussian 5", str(ind), str(tmp_path / "cpu"), device="cpu", quality=95)
    assert len(c.ok) == 5 and c.decoder == "cpu"
    for i in range(5):
        g = gip.imread(str(tmp_path / "gpu" / ("%d.jpg" % i))).astype(np.int32)
        h = gip.imread(str(tmp_path / "cpu" / ("%d.jpg" % i))).astype(np.int32)
        assert g.shape == h.shape
        assert np.abs(g - h).mean() <= 3.0
