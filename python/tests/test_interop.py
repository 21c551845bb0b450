# SPDX-License-Identifier: MIT
"""Arrays in and out on the host: strided views, the array interface, DLPack capsules, the
devices API, expressions, bad inputs and the GIL."""
import os
import subprocess
import sys
import threading

import cv2
import numpy as np
import pytest

import gip
from gip import _gip
from conftest import CUDA_REASON, rand, sample

MEAN3 = ("out = (in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in(0,0) + in(1,0) + in(-1,1) + "
         "in(0,1) + in(1,1)) / 9")


def views(a):
    """Non-contiguous views of a (H, W, 3) array: crop (row stride), flips, channel reversal,
    transposition, every other column."""
    return {"crop": a[5:-3, 7:-2], "vflip": a[::-1], "hflip": a[:, ::-1], "bgr2rgb": a[:, :, ::-1],
            "transpose": a.transpose(1, 0, 2), "step2": a[:, ::2], "gray_col": a[:, :, 1]}


@pytest.mark.parametrize("kind", list(views(np.zeros((4, 4, 3))).keys()))
def test_strided_inputs(kind):
    a = rand((40, 37, 3), np.uint8, seed=1)
    v = views(a)[kind]
    ref = cv2.GaussianBlur(np.ascontiguousarray(v), (5, 5), 0)
    np.testing.assert_array_equal(gip.gaussian_blur(v, (5, 5)), ref)
    np.testing.assert_array_equal(gip.invert(v), 255 - v)


def test_strided_output_and_readonly():
    a = rand((20, 30, 3), np.uint8)
    big = np.zeros((30, 40, 3), np.uint8)
    dst = big[3:23, 4:34]  # row stride of the big array: accepted as is
    gip.invert(a, dst)
    np.testing.assert_array_equal(big[3:23, 4:34], 255 - a)
    assert big[:3].sum() == 0 and big[23:].sum() == 0
    with pytest.raises(gip.InvalidArgument, match="interleaved"):
        gip.invert(a[:, :, ::-1], np.zeros((20, 30, 3), np.uint8)[:, :, ::-1])
    ro = np.zeros_like(a)
    ro.flags.writeable = False
    with pytest.raises(gip.InvalidArgument, match="read-only"):
        gip.invert(a, ro)
    with pytest.raises(gip.ShapeMismatch):
        gip.invert(a, np.zeros((20, 31, 3), np.uint8))


def test_host_image_exports():
    a = rand((12, 9, 3), np.float32)
    img = gip.asimage(a)
    assert isinstance(img, gip.Image) and not img.is_cuda and img.device == "cpu"
    assert img.shape == (12, 9, 3) and img.dtype == np.float32 and img.ptr == a.ctypes.data
    assert not hasattr(img, "__cuda_array_interface__")
    ai = img.__array_interface__
    assert ai["shape"] == (12, 9, 3) and ai["typestr"] == "<f4" and ai["data"][0] == a.ctypes.data
    assert img.__dlpack_device__() == (1, 0)
    b = np.from_dlpack(img)  # numpy asks for a versioned capsule
    assert np.shares_memory(a, b)
    np.testing.assert_array_equal(b, a)
    cap = img.__dlpack__()  # legacy capsule
    assert "dltensor" in repr(cap)
    del cap  # unconsumed: its destructor releases the image reference
    np.testing.assert_array_equal(img.download(), a)
    img.close()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        gip.invert(img)
    assert "closed" in repr(img)


class DLPackOnly:
    """An object offering only __dlpack__ / __dlpack_device__ (like a torch CPU tensor)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None, max_version=None, **kw):
        if max_version is None:
            return self.a.__dlpack__()
        return self.a.__dlpack__(max_version=max_version)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class LegacyDLPack(DLPackOnly):
    def __dlpack__(self, stream=None):  # before DLPack 1.0: no max_version keyword
        return self.a.__dlpack__()


@pytest.mark.parametrize("cls", [DLPackOnly, LegacyDLPack])
def test_dlpack_import_host(cls):
    a = rand((16, 11, 3), np.uint8, seed=4)
    img = _gip.asimage(None, cls(a))
    assert img.ptr == a.ctypes.data and img.shape == a.shape
    np.testing.assert_array_equal(gip.invert(cls(a)), 255 - a)
    np.testing.assert_array_equal(gip.invert(cls(a[:, ::-1])), 255 - a[:, ::-1])


class FakeCAI:
    """A CUDA array interface that points at host memory."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": "|u1",
                                         "data": (a.ctypes.data, False), "version": 3,
                                         "strides": None, "stream": None}


def test_cuda_array_interface_of_host_memory_is_refused():
    a = rand((8, 8), np.uint8)
    if CUDA_REASON:
        # Without a GPU the array cannot be device memory: where() and the op refuse it.
        with pytest.raises(gip.Error):
            gip.invert(FakeCAI(a), device="cpu")
    with pytest.raises(gip.LocationMismatch):
        _gip.asimage(gip.Device("cpu").context, FakeCAI(a))


def test_devices_api():
    ds = gip.devices()
    assert isinstance(ds, list)
    for d in ds:
        assert {"index", "name", "usable", "reason", "compute_capability"} <= set(d)
    cpu = gip.Device("cpu")
    assert cpu.kind == "cpu" and cpu.stream == 0 and "CPU" in cpu.describe
    cpu.sync()
    assert gip.Device("cuda:3").index == 3 and gip.Device(1).name == "cuda:1"
    assert gip.Device("auto") == gip.Device("cuda" if not CUDA_REASON else "cpu") or \
        not CUDA_REASON
    with gip.Device("cpu") as d:
        assert gip.default_device() is d
    with pytest.raises(gip.InvalidArgument):
        gip.Device("tpu")
    a = rand((10, 10), np.uint8)
    np.testing.assert_array_equal(gip.invert(a, device="cpu"), 255 - a)


def test_default_threads_follow_omp_num_threads():
    """The CPU context's default thread count is OpenMP's: OMP_NUM_THREADS where it is set, else
    every core the process may use (read when the process starts, hence new interpreters)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}

    def run(e):
        out = subprocess.run([sys.executable, "-c",
                              "import gip; print(gip.Device('cpu').context.threads)"],
                             env=e, check=True, capture_output=True, text=True).stdout
        return int(out)

    assert run(env) == len(os.sched_getaffinity(0))
    assert run(dict(env, OMP_NUM_THREADS="1")) == 1
    assert run(dict(env, OMP_NUM_THREADS="3")) == 3


@pytest.mark.skipif(not CUDA_REASON, reason="a GPU is present")
def test_cuda_requested_without_gpu():
    with pytest.raises((gip.NoDevice, gip.NotBuilt)) as e:  # NotBuilt: a CPU-only build
        gip.invert(rand((4, 4), np.uint8), device="cuda")
    assert e.value.status in ("GIP_ERR_NO_DEVICE", "GIP_ERR_NOT_BUILT")
    with pytest.raises((gip.NoDevice, gip.NotBuilt)):
        gip.compile('extern "C" __global__ void k() {}')


def test_bad_inputs():
    a = rand((10, 12, 3), np.uint8)
    cases = [
        (lambda: gip.invert(a.astype(np.float64)), gip.Unsupported, TypeError),
        (lambda: gip.invert(a.astype(np.int8)), gip.Unsupported, TypeError),
        (lambda: gip.invert(np.zeros(5, np.uint8)), gip.InvalidArgument, ValueError),
        (lambda: gip.invert(np.zeros((3, 4, 5, 1), np.uint8)), gip.InvalidArgument, ValueError),
        (lambda: gip.invert(np.zeros((4, 4, 2), np.uint8)), gip.InvalidArgument, ValueError),
        (lambda: gip.invert(np.zeros((0, 4), np.uint8)), gip.InvalidArgument, ValueError),
        (lambda: gip.gaussian_blur(a, (4, 4)), gip.InvalidArgument, ValueError),
        (lambda: gip.gaussian_blur(a, (0, 0), 0), gip.InvalidArgument, ValueError),
        (lambda: gip.box_filter(a, -1, (3, 3), borderType=77), gip.InvalidArgument, ValueError),
        (lambda: gip.sobel(a, gip.CV_16S, 0, 0), gip.InvalidArgument, ValueError),
        (lambda: gip.cvt_color(a, 999), gip.InvalidArgument, ValueError),
        (lambda: gip.cvt_color(a, gip.COLOR_BGRA2GRAY), gip.ShapeMismatch, ValueError),
        (lambda: gip.filter2d(a, -1, np.ones((3, 3, 3))), gip.InvalidArgument, ValueError),
        (lambda: gip.fft2(a), gip.InvalidArgument, ValueError),
        (lambda: gip.invert(object()), gip.Unsupported, TypeError),
        (lambda: gip.invert(a, device="cuda:x"), gip.InvalidArgument, ValueError),
        (lambda: gip.gaussian_blur(a, (3, 3), method="magic"), gip.InvalidArgument, ValueError),
        (lambda: gip.map("in +* 2", a), gip.InvalidArgument, ValueError),
    ]
    for fn, cls, base in cases:
        with pytest.raises(cls) as e:
            fn()
        assert isinstance(e.value, base) and isinstance(e.value, gip.Error)
        assert str(e.value) and e.value.status.startswith("GIP_ERR_")


def test_library_message_is_carried():
    with pytest.raises(gip.InvalidArgument) as e:
        gip.gaussian_blur(rand((8, 8), np.uint8), (4, 4))
    # the registry's message (gaussian's ksize is declared odd)
    assert str(e.value).startswith("gaussian: ksize must be") and e.value.code == 100
    with pytest.raises(gip.InvalidArgument, match="column"):
        gip.map("in +* 2", rand((4, 4), np.uint8))


def test_map_and_stencil():
    a = rand((33, 27, 3), np.uint8, seed=1)
    b = rand((33, 27, 3), np.uint8, seed=2)
    got = gip.map("a * k + b / 2", [a, b], scalars={"k": 0.5})
    ref = np.clip(np.rint(a.astype(np.float32) * np.float32(0.5) + b.astype(np.float32) /
                          np.float32(2)), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(got, ref)
    f = gip.map("in * 2", a, np.float32)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f, a.astype(np.float32) * 2)
    for border in (gip.BORDER_REFLECT_101, gip.BORDER_REPLICATE, gip.BORDER_REFLECT):
        np.testing.assert_array_equal(gip.stencil(MEAN3, a, borderType=border),
                                      cv2.blur(a, (3, 3), borderType=border))


def test_gil_released_threads_agree():
    img = sample("astronaut.png")
    ref = cv2.GaussianBlur(img, (15, 15), 0)
    out = [None] * 4

    def work(i):
        out[i] = gip.gaussian_blur(img, (15, 15), 0, device="cpu")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for o in out:
        np.testing.assert_array_equal(o, ref)
