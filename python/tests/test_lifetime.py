# SPDX-License-Identifier: MIT
"""Lifetime of gip.Image memory and its exports: no export (buffer protocol, numpy views,
__array_interface__, __dlpack__, __cuda_array_interface__) may outlive the memory it shows.
close() drops the Image's own reference; the memory goes when the last export does.

Each scenario runs in a child interpreter: before the owner model a consumer used after close()
read freed (unmapped) memory and the process died with SIGSEGV, which would take pytest down."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref
import zlib

import numpy as np
import pytest

import gip
from gip import _gip
from conftest import DATA, requires_cuda

# Large enough (4.5 MB) that freed memory goes back to the system (unmapped): a consumer that
# outlives its memory faults instead of reading stale bytes.
SHAPE = (1000, 1500, 3)

PRELUDE = """
import gc, sys, numpy as np, gip
from gip import _gip
SHAPE = %r
DATA = %r

def churn_host():
    # Allocations of the same size that would reuse freed memory.
    return [np.full(SHAPE, 77, np.uint8) for _ in range(4)]

def host_image(kind):
    a = (np.arange(np.prod(SHAPE)) %% 251).astype(np.uint8).reshape(SHAPE)
    if kind == "foreign":       # a view of a numpy array; the array is dropped right away
        im = gip.asimage(a); a = a.copy()
    elif kind == "tight":       # a non-interleaved view: gip copies it into its own memory
        im = gip.asimage(a[:, :, ::-1]); a = a[:, :, ::-1].copy()
    else:                       # memory gip allocated (a decoded file)
        im = _gip.imread(DATA + "/chelsea.png", 2, True, False); a = np.asarray(im).copy()
    return im, a

class Wrap:
    # A consumer of __array_interface__ that keeps the object it read it from, as the protocol
    # asks (numpy itself prefers the buffer protocol).
    def __init__(self, im):
        self.im = im
    @property
    def __array_interface__(self):
        return self.im.__array_interface__

class Legacy:
    # A DLPack producer before 1.0: numpy gets a legacy "dltensor" capsule from it.
    def __init__(self, im):
        self.im = im
    def __dlpack__(self, stream=None):
        return self.im.__dlpack__()
    def __dlpack_device__(self):
        return self.im.__dlpack_device__()

def host_export(im, how):
    if how == "asarray":
        return np.asarray(im)
    if how == "memoryview":
        return memoryview(im)
    if how == "array_interface":
        return np.asarray(Wrap(im))
    if how == "dlpack":
        return np.from_dlpack(im)
    if how == "dlpack_legacy":
        return np.from_dlpack(Legacy(im))
    raise ValueError(how)
""" % (SHAPE, DATA)


def run_child(body):
    """Runs PRELUDE + body in a fresh interpreter; fails with its output unless it exits 0."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, "child exited with %d (%s)\nstdout:\n%s\nstderr:\n%s" % (
        r.returncode, "SIGSEGV" if r.returncode == -11 else "error", r.stdout, r.stderr[-3000:])
    return r.stdout


HOST_EXPORTS = ["asarray", "memoryview", "array_interface", "dlpack", "dlpack_legacy"]


@pytest.mark.parametrize("kind", ["foreign", "tight", "owned"])
@pytest.mark.parametrize("how", HOST_EXPORTS)
def test_host_export_outlives_close_and_del(kind, how):
    out = run_child("""
        for end in ("close", "del", "close+del"):
            im, expect = host_image(%r)
            v = host_export(im, %r)
            if "close" in end:
                im.close()
                assert im.closed
            if "del" in end:
                del im
            gc.collect()
            junk = churn_host()
            got = np.asarray(v)
            assert got.shape == expect.shape, (end, got.shape)
            assert np.array_equal(got, expect), end
            if got.flags.writeable:
                got[0, 0] = 5  # writing through the export is still safe
            del junk, v, got
            gc.collect()
            print(end, "ok")
    """ % (kind, how))
    assert out.split() == ["close", "ok", "del", "ok", "close+del", "ok"]


@pytest.mark.parametrize("how", HOST_EXPORTS)
def test_foreign_base_lives_exactly_as_long_as_its_exports(how):
    """asimage(numpy array): the array stays alive while an export shows it, even after the
    array's own name and the Image are gone, and is released once the last export is."""
    ns = {}
    exec(PRELUDE, ns)  # the export helpers, in this process
    a = np.arange(60, dtype=np.uint8).reshape(4, 5, 3)
    r = weakref.ref(a)
    im = gip.asimage(a)
    del a
    v = ns["host_export"](im, how)
    im.close()
    gc.collect()
    assert r() is not None, "the array was released while an export still shows it"
    np.testing.assert_array_equal(np.asarray(v), np.arange(60, dtype=np.uint8).reshape(4, 5, 3))
    del v, im
    gc.collect()
    assert r() is None, "the array outlived the Image and every export"


def test_close_releases_memory_without_exports():
    a = np.zeros((4, 4), np.uint8)
    r = weakref.ref(a)
    im = gip.asimage(a)
    del a
    gc.collect()
    assert r() is not None
    im.close()
    gc.collect()
    assert r() is None, "close() did not let go of the borrowed array"


def test_closed_image_raises_on_every_export():
    im = gip.asimage(np.zeros((5, 6, 3), np.uint8))
    im.close()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        np.asarray(im)  # was an object array holding the Image
    with pytest.raises(gip.InvalidArgument, match="closed"):
        np.array(im)
    with pytest.raises(BufferError, match="closed"):
        memoryview(im)
    with pytest.raises(gip.InvalidArgument, match="closed"):
        im.__array_interface__
    with pytest.raises(gip.InvalidArgument, match="closed"):
        im.__dlpack__()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        im.__dlpack_device__()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        np.from_dlpack(im)
    with pytest.raises(gip.InvalidArgument, match="closed"):
        im.download()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        gip.invert(im)


def test_buffer_protocol_of_host_images():
    a = np.arange(2 * 7 * 3, dtype=np.uint16).reshape(2, 7, 3)
    m = memoryview(gip.asimage(a))
    assert m.format == "H" and m.shape == (2, 7, 3) and m.strides == a.strides
    assert not m.readonly and m.tolist() == a.tolist()
    big = np.zeros((10, 12), np.float32)
    crop = gip.asimage(big[2:5, 3:9])  # padded rows: a strided buffer
    m = memoryview(crop)
    assert m.shape == (3, 6) and m.strides == (48, 4) and m.format == "f"
    np.asarray(crop)[:] = 2.0
    assert big[2:5, 3:9].sum() == 36 and big.sum() == 36
    with pytest.raises(BufferError, match="padded"):
        zlib.crc32(crop)  # a simple (contiguous) buffer cannot show padded rows
    assert zlib.crc32(gip.asimage(big)) == zlib.crc32(big)
    ro = np.zeros((3, 3), np.uint8)
    ro.flags.writeable = False
    im = gip.asimage(ro)
    assert memoryview(im).readonly and not np.asarray(im).flags.writeable
    c = gip.asimage(np.ones((3, 4), np.complex64))
    assert memoryview(c).format == "Zf" and np.asarray(c).dtype == np.complex64


def test_imread_result_outlives_everything():
    """gip.imread returns a numpy view of gip-allocated memory: it owns that memory."""
    img = gip.imread(os.path.join(DATA, "chelsea.png"))
    ref = img.copy()
    gc.collect()
    junk = [np.full(img.shape, 3, np.uint8) for _ in range(4)]
    np.testing.assert_array_equal(img, ref)
    del junk


# ---- device memory: the same rules, with the per-device memory pool in the way ----------------
CUDA_PRELUDE = """
cp = torch = None
try:
    import cupy as cp
except ImportError:
    pass
try:
    import torch
except ImportError:
    pass

def device_export(im, how):
    if how == "cupy_cai":
        return cp.asarray(im)
    if how == "cupy_dlpack":
        return cp.from_dlpack(im)
    if how == "torch_dlpack":
        return torch.from_dlpack(im)
    if how == "torch_cai":
        return torch.as_tensor(im, device="cuda")
    raise ValueError(how)

def to_host(x):
    return cp.asnumpy(x) if cp is not None and isinstance(x, cp.ndarray) else x.cpu().numpy()

def churn_device():
    # Device images of the same size from the same pool: a block freed too early is reused
    # here and overwritten.
    return [gip.upload(np.full(SHAPE, 77, np.uint8)) for _ in range(4)]
"""


def _have(mod):
    try:
        __import__(mod)
        return True
    except ImportError:
        return False


DEVICE_EXPORTS = [pytest.param(h, marks=pytest.mark.skipif(not _have(h.split("_")[0]),
                                                           reason="%s is not installed"
                                                           % h.split("_")[0]))
                  for h in ["cupy_cai", "cupy_dlpack", "torch_dlpack", "torch_cai"]]


@requires_cuda
@pytest.mark.parametrize("kind", ["owned", "result"])
@pytest.mark.parametrize("how", DEVICE_EXPORTS)
def test_device_export_outlives_close_and_del(kind, how):
    out = run_child(CUDA_PRELUDE + textwrap.dedent("""
        for end in ("close", "del", "close+del"):
            a = (np.arange(np.prod(SHAPE)) %% 251).astype(np.uint8).reshape(SHAPE)
            if %r == "owned":
                im, expect = gip.upload(a), a
            else:  # an operation's result on a device input
                im, expect = gip.invert(gip.upload(a)), 255 - a
            x = device_export(im, %r)
            if "close" in end:
                im.close()
            if "del" in end:
                del im
            gc.collect()
            junk = churn_device()
            gip.sync()
            assert np.array_equal(to_host(x), expect), end
            del junk, x
            gc.collect()
            print(end, "ok")
    """ % (kind, how)))
    assert out.split() == ["close", "ok", "del", "ok", "close+del", "ok"]


@requires_cuda
@pytest.mark.skipif(not _have("cupy"), reason="cupy is not installed")
def test_device_image_of_foreign_array_keeps_it():
    """asimage(cupy array): the Image and its exports keep the CuPy array alive."""
    out = run_child(CUDA_PRELUDE + textwrap.dedent("""
        a = cp.asarray((np.arange(np.prod(SHAPE)) % 251).astype(np.uint8).reshape(SHAPE))
        expect = cp.asnumpy(a)
        im = gip.asimage(a)
        del a
        t = cp.from_dlpack(im)
        im.close()
        del im
        gc.collect()
        junk = [cp.full(SHAPE, 9, cp.uint8) for _ in range(4)]
        assert np.array_equal(cp.asnumpy(t), expect)
        print("ok")
    """))
    assert out.split() == ["ok"]


@requires_cuda
def test_closed_device_image_raises_on_every_export():
    im = gip.upload(np.zeros((5, 6), np.uint8))
    im.close()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        im.__cuda_array_interface__
    with pytest.raises(gip.InvalidArgument, match="closed"):
        im.__dlpack__()
    with pytest.raises(gip.InvalidArgument, match="closed"):
        np.asarray(im)


@requires_cuda
def test_numpy_refuses_device_images():
    im = gip.upload(np.zeros((5, 6), np.uint8))
    with pytest.raises(gip.LocationMismatch, match="download"):
        np.asarray(im)  # was an object array
    with pytest.raises(BufferError, match="device memory"):
        memoryview(im)


def test_device_interfaces_of_host_images_are_absent():
    im = gip.asimage(np.zeros((2, 2), np.uint8))
    assert not hasattr(im, "__cuda_array_interface__")
    assert _gip.where(im) == ("cpu", 0)
