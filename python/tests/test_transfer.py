# SPDX-License-Identifier: MIT
"""Host arrays on the GPU (issue 45): numpy in and numpy out through the transfer engine give
what the device run and the CPU give; page-locked outputs and inputs; dst= reuse; device='auto'
and gip.explain()."""
import gc

import numpy as np
import pytest

import gip
from conftest import requires_cuda

rng = np.random.default_rng(45)


def u8(shape):
    return rng.integers(0, 256, shape, dtype=np.uint8)


CALLS = [
    ("gaussian 15", lambda s, **k: gip.gaussian_blur(s, (15, 15), 0, **k)),
    ("box 3", lambda s, **k: gip.blur(s, (3, 3), **k)),
    ("invert", lambda s, **k: gip.bitwise_not(s, **k)),
    ("median 5", lambda s, **k: gip.median_blur(s, 5, **k)),
    ("sobel", lambda s, **k: gip.sobel(s, gip.CV_16S, 1, 0, **k)),
    ("hsv", lambda s, **k: gip.cvt_color(s, gip.COLOR_BGR2HSV, **k)),
    ("resize", lambda s, **k: gip.resize(s, (301, 207), **k)),
    ("equalize", lambda s, **k: gip.equalize_hist(gip.cvt_color(s, gip.COLOR_BGR2GRAY, **k),
                                                  **k)),
]


@requires_cuda
@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("shape", [(1080, 1920, 3), (37, 501, 3), (2000, 3, 3)])
def test_host_on_gpu_equals_device_and_cpu(name, call, shape, monkeypatch):
    # A small chunk: the image moves in many chunks and filters run in many row bands.
    monkeypatch.setenv("GIP_TRANSFER_CHUNK", "65536")
    src = u8(shape)
    got = call(src, device="cuda")
    assert isinstance(got, np.ndarray)
    dev = call(gip.upload(src), device="cuda").download()
    cpu = call(src, device="cpu")
    np.testing.assert_array_equal(got, np.asarray(dev))
    np.testing.assert_array_equal(got, cpu)


@requires_cuda
def test_float_host_run_equals_device_run():
    src = rng.random((777, 1001), dtype=np.float32)
    got = gip.blur(src, (5, 5), device="cuda")
    dev = np.asarray(gip.blur(gip.upload(src), (5, 5)).download())
    np.testing.assert_array_equal(got, dev)
    np.testing.assert_allclose(got, gip.blur(src, (5, 5), device="cpu"), rtol=1e-5, atol=1e-5)


@requires_cuda
def test_strided_and_pinned_inputs_and_dst_reuse():
    base = u8((1200, 1700, 3))
    view = base[100:1100:1, 50:1650]  # rows with a stride wider than the row
    want = gip.gaussian_blur(view, (7, 7), 0, device="cpu")
    np.testing.assert_array_equal(gip.gaussian_blur(view, (7, 7), 0, device="cuda"), want)
    pinned = gip.empty_pinned(view.shape, np.uint8)
    pinned[:] = view
    np.testing.assert_array_equal(gip.gaussian_blur(pinned, (7, 7), 0, device="cuda"), want)
    dst = np.zeros_like(want)
    out = gip.gaussian_blur(view, (7, 7), 0, dst, device="cuda")
    assert out is dst
    np.testing.assert_array_equal(dst, want)
    pdst = gip.empty_pinned(want.shape, np.uint8)
    assert gip.gaussian_blur(pinned, (7, 7), 0, pdst, device="cuda") is pdst
    np.testing.assert_array_equal(pdst, want)


@requires_cuda
def test_large_outputs_are_page_locked_and_outlive_their_call():
    src = u8((1024, 1024, 3))
    outs = [gip.bitwise_not(src, device="cuda") for _ in range(3)]
    gc.collect()
    for o in outs:
        np.testing.assert_array_equal(o, 255 - src)
    # A view of gip's page-locked memory (a fresh numpy array would own its data).
    assert outs[0].base is not None
    del outs
    gc.collect()
    # Freed blocks are cached and given again: values stay right.
    np.testing.assert_array_equal(gip.bitwise_not(src, device="cuda"), 255 - src)


@requires_cuda
def test_transparent_warp_keeps_host_dst():
    src = u8((300, 400, 3))
    m = np.float32([[1, 0.1, -40], [0.05, 1, 30]])
    keep = u8((300, 400, 3))
    a, b = keep.copy(), keep.copy()
    gip.warp_affine(src, m, (400, 300), a, borderMode=gip.BORDER_TRANSPARENT, device="cuda")
    gip.warp_affine(src, m, (400, 300), b, borderMode=gip.BORDER_TRANSPARENT, device="cpu")
    np.testing.assert_array_equal(a, b)
    assert (a == keep).all(axis=2).any()  # some pixels kept dst's values


@requires_cuda
def test_extra_inputs_go_up():
    a, b = u8((513, 611, 3)), u8((513, 611, 3))
    mask = (u8((513, 611)) > 128).astype(np.uint8)
    np.testing.assert_array_equal(gip.add(a, b, mask=mask, device="cuda"),
                                  gip.add(a, b, mask=mask, device="cpu"))


@requires_cuda
def test_auto_decides_and_explains(monkeypatch):
    monkeypatch.setattr(gip._core._local, "stack", [])  # out of the suite's `with Device('cpu')`
    small = u8((16, 16, 3))
    why = gip.explain("gaussian", small, ksize=5)
    assert why["device"] == "cpu" and "bytes" in why["reason"]
    big = u8((2160, 3840, 3))
    why = gip.explain("gaussian", big, ksize=15)
    assert why["device"] in ("cpu", "cuda:0")
    assert why["cpu_estimate_s"] > 0 and why["gpu_estimate_s"] > 0
    assert why["bus_bytes_per_s"] > 1e8
    np.testing.assert_array_equal(gip.gaussian_blur(big, (15, 15), 0),
                                  gip.gaussian_blur(big, (15, 15), 0, device="cpu"))
    assert gip.explain("gaussian", big, device="cuda", ksize=15)["device"] == "cuda:0"


def test_explain_without_a_choice():
    src = u8((64, 64, 3))
    why = gip.explain("gaussian", src, device="cpu", ksize=5)
    assert why == {"operation": "gaussian", "device": "cpu", "reason": why["reason"]}
    if not any(d["usable"] for d in gip.devices()):
        assert "GPU" in gip.explain("gaussian", src, ksize=5)["reason"]


def test_empty_pinned_refuses_bad_arguments():
    with pytest.raises(gip.InvalidArgument):
        gip.empty_pinned((0, 4))
    with pytest.raises(gip.InvalidArgument):
        gip.empty_pinned((4, 4, 2, 1))
    with pytest.raises(gip.Unsupported):
        gip.empty_pinned((4, 4), np.float64)
    if not any(d["usable"] for d in gip.devices()):
        with pytest.raises(gip.Error):
            gip.empty_pinned((4, 4))


@requires_cuda
def test_empty_pinned_round_trip():
    a = gip.empty_pinned((64, 32, 3), np.uint16)
    assert a.shape == (64, 32, 3) and a.dtype == np.uint16 and a.flags.writeable
    a[:] = rng.integers(0, 65536, a.shape, dtype=np.uint16)
    np.testing.assert_array_equal(np.asarray(gip.upload(a).download()), a)
    np.testing.assert_array_equal(gip.bitwise_not(a, device="cuda"), 65535 - a)
