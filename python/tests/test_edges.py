# SPDX-License-Identifier: MIT
"""Edges of the Python API: argument types as strict as cv2's (no silent truncation of
ksize=(1.5, 3)), clear errors for empty input lists and for what is not an image, and
gip.Image in giving gip.Image out for every function, on the host as on the device."""
import cv2
import numpy as np
import pytest

import gip
from conftest import rand, requires_cuda

A = rand((13, 17, 3), np.uint8, seed=5)
G = rand((13, 17), np.uint8, seed=6)
F = rand((12, 16), np.float32, seed=7)


# ---- gip.map with no inputs ---------------------------------------------------------------------
def test_map_without_inputs_is_an_invalid_argument():
    for inputs in ([], ()):
        with pytest.raises(gip.InvalidArgument, match="1 to 8") as e:
            gip.map("out = 1", inputs)  # was IndexError
        assert isinstance(e.value, ValueError)
    with pytest.raises(gip.InvalidArgument, match="1 to 8"):
        gip.map("in0", [G] * 9)


# ---- integer parameters: int or numpy integer, nothing else -----------------------------------
BAD_INTS = [
    ("gaussian_blur ksize", lambda: gip.gaussian_blur(A, (1.5, 3), 0),
     lambda: cv2.GaussianBlur(A, (1.5, 3), 0)),
    ("gaussian_blur ksize 3.0", lambda: gip.gaussian_blur(A, (3.0, 3), 0),
     lambda: cv2.GaussianBlur(A, (3.0, 3), 0)),
    ("gaussian_blur scalar ksize", lambda: gip.gaussian_blur(A, 3.0, 0), None),
    ("gaussian_blur bool ksize", lambda: gip.gaussian_blur(A, (True, 3), 0), None),
    ("gaussian_blur str ksize", lambda: gip.gaussian_blur(A, "33", 0),
     lambda: cv2.GaussianBlur(A, "33", 0)),
    ("box_filter ksize", lambda: gip.box_filter(A, -1, (2.5, 3)),
     lambda: cv2.boxFilter(A, -1, (2.5, 3))),
    ("box_filter anchor", lambda: gip.box_filter(A, -1, (3, 3), anchor=(1.0, 1)),
     lambda: cv2.boxFilter(A, -1, (3, 3), anchor=(1.0, 1))),
    ("blur ksize", lambda: gip.blur(A, (3, 3.5)), lambda: cv2.blur(A, (3, 3.5))),
    ("filter2d anchor", lambda: gip.filter2d(A, -1, np.ones((3, 3)), anchor=(0.5, 1)),
     lambda: cv2.filter2D(A, -1, np.ones((3, 3)), anchor=(0.5, 1))),
    ("sobel dx", lambda: gip.sobel(A, gip.CV_16S, 1.0, 0),
     lambda: cv2.Sobel(A, cv2.CV_16S, 1.0, 0)),
    ("sobel dy bool", lambda: gip.sobel(A, gip.CV_16S, 1, False),
     lambda: cv2.Sobel(A, cv2.CV_16S, 1, False)),
    ("sobel ksize", lambda: gip.sobel(A, gip.CV_16S, 1, 0, ksize=3.0),
     lambda: cv2.Sobel(A, cv2.CV_16S, 1, 0, ksize=3.0)),
    ("sobel ddepth", lambda: gip.sobel(A, 3.0, 1, 0), lambda: cv2.Sobel(A, 3.0, 1, 0)),
    ("scharr dx", lambda: gip.scharr(A, gip.CV_16S, 0.5, 0),
     lambda: cv2.Scharr(A, cv2.CV_16S, 0.5, 0)),
    ("sobel_magnitude ksize", lambda: gip.sobel_magnitude(A, ksize=5.0), None),
    ("borderType", lambda: gip.gaussian_blur(A, (3, 3), 0, borderType=4.0),
     lambda: cv2.GaussianBlur(A, (3, 3), 0, borderType=4.0)),
    ("cvt_color code", lambda: gip.cvt_color(A, 6.0), lambda: cv2.cvtColor(A, 6.0)),
    ("convert dtype", lambda: gip.convert(A, 5.0), None),
    ("convert dtype name", lambda: gip.convert(A, "no such dtype"), None),
    ("conv2d padding", lambda: gip.conv2d(G, np.ones((1, 1, 3, 3)), padding=1.0), None),
    ("conv2d padding pair", lambda: gip.conv2d(G, np.ones((1, 1, 3, 3)), padding=(1, 0.5)),
     None),
    ("stencil radius", lambda: gip.stencil("in(-1, 0)", G, radius=1.0), None),
    ("irfft2 s", lambda: gip.irfft2(gip.rfft2(F), s=(12.0, 16)), None),
    ("imread flags", lambda: gip.imread("x.png", 1.0), None),
    ("imwrite params", lambda: gip.imencode(".jpg", A, [gip.IMWRITE_JPEG_QUALITY, 90.5]),
     lambda: cv2.imencode(".jpg", A, [cv2.IMWRITE_JPEG_QUALITY, 90.5])),
    ("Pipeline gaussian", lambda: gip.Pipeline(device="cpu").gaussian((1.5, 3)), None),
    ("Pipeline sobel", lambda: gip.Pipeline(device="cpu").sobel(1.0, 0), None),
    ("Pipeline threads", lambda: gip.Pipeline(device="cpu", threads=2.0), None),
    ("Pipeline run_file quality",
     lambda: gip.Pipeline("invert", device="cpu").run_file("a.png", "b.jpg", quality=90.0),
     None),
]


@pytest.mark.parametrize("name,call,cv2_call", BAD_INTS, ids=[b[0] for b in BAD_INTS])
def test_non_integer_int_parameters_are_refused(name, call, cv2_call):
    with pytest.raises(gip.InvalidType) as e:
        call()  # was truncated (1.5 -> 1) or accepted (3.0, True)
    assert isinstance(e.value, TypeError) and isinstance(e.value, gip.InvalidArgument)
    assert e.value.status == "GIP_ERR_INVALID_ARGUMENT"
    assert "must be an integer" in str(e.value) or "ddepth" in str(e.value), str(e.value)
    if cv2_call is not None:
        with pytest.raises(cv2.error):
            cv2_call()  # cv2 refuses the same value


def test_real_parameters_refuse_text():
    with pytest.raises(gip.InvalidType, match="sigmaX"):
        gip.gaussian_blur(A, (3, 3), "1")
    with pytest.raises(cv2.error):
        cv2.GaussianBlur(A, (3, 3), "1")
    with pytest.raises(gip.InvalidType, match="delta"):
        gip.sobel(A, gip.CV_32F, 1, 0, delta="0")
    with pytest.raises(gip.InvalidType, match="alpha"):
        gip.convert(A, np.float32, alpha=None)


def test_dtype_names_stay_accepted():
    np.testing.assert_array_equal(gip.convert(A, "float32"), A.astype(np.float32))


def test_numpy_integers_are_integers():
    k = np.int64(5)
    np.testing.assert_array_equal(gip.gaussian_blur(A, (k, np.int32(3)), 0),
                                  cv2.GaussianBlur(A, (5, 3), 0))
    np.testing.assert_array_equal(gip.sobel(A, gip.CV_16S, np.uint8(1), np.int16(0)),
                                  cv2.Sobel(A, cv2.CV_16S, 1, 0))
    np.testing.assert_array_equal(gip.gaussian_blur(A, 5, np.float32(1.5)),
                                  cv2.GaussianBlur(A, (5, 5), 1.5))


# ---- what is not an image -----------------------------------------------------------------------
@pytest.mark.parametrize("obj", ["abc", b"abc", None, 5, 2.5, np.float32(1), ["a", "b"]],
                         ids=["str", "bytes", "None", "int", "float", "numpy scalar",
                              "list of str"])
def test_non_images_are_refused_with_what_is_accepted(obj):
    for call in (lambda: gip.invert(obj), lambda: gip.asimage(obj),
                 lambda: gip.gaussian_blur(obj, (3, 3)), lambda: gip.map("in", [G, obj])):
        with pytest.raises(gip.Unsupported) as e:
            call()
        msg = str(e.value)
        assert isinstance(e.value, TypeError)
        assert "numpy array" in msg and "gip.Image" in msg and "uint8" in msg, msg
        assert "'3w'" not in msg and "element type" not in msg, msg  # was "element type '3w'"


# ---- gip.Image in, gip.Image out --------------------------------------------------------------
CALLS = [
    ("invert", lambda x: gip.invert(x)),
    ("box_filter", lambda x: gip.box_filter(x, -1, (3, 5))),
    ("blur", lambda x: gip.blur(x, (3, 3))),
    ("filter2d", lambda x: gip.filter2d(x, -1, np.ones((3, 3), np.float32) / 9)),
    ("fft_convolve", lambda x: gip.fft_convolve(x, gip.CV_32F, np.ones((3, 3), np.float32))),
    ("sobel", lambda x: gip.sobel(x, gip.CV_16S, 1, 0)),
    ("sobel u8", lambda x: gip.sobel(x, gip.CV_8U, 0, 1)),
    ("scharr", lambda x: gip.scharr(x, gip.CV_32F, 1, 0)),
    ("sobel_magnitude", lambda x: gip.sobel_magnitude(x)),
    ("gaussian_blur", lambda x: gip.gaussian_blur(x, (5, 5), 0)),
    ("cvt_color", lambda x: gip.cvt_color(x, gip.COLOR_BGR2GRAY)),
    ("convert", lambda x: gip.convert(x, np.float32, 0.5, 1)),
    ("map", lambda x: gip.map("in * 2", x)),
    ("map list", lambda x: gip.map("a + b", [x, x])),
    ("stencil", lambda x: gip.stencil("in(-1, 0)", x, radius=1)),
    ("conv2d", lambda x: gip.conv2d(x, np.ones((1, 3, 3, 3), np.float32))),
    ("spectrum", lambda x: gip.spectrum(x)),
    ("pipeline", lambda x: gip.Pipeline("gaussian 3 | invert", device="cpu").run(x)),
]
GRAY_CALLS = [
    ("fft2", lambda x: gip.fft2(x)),
    ("rfft2", lambda x: gip.rfft2(x)),
    ("fftshift", lambda x: gip.fftshift(x)),
    ("ifftshift", lambda x: gip.ifftshift(x)),
    ("normalize_minmax", lambda x: gip.normalize_minmax(x)),
]


def _same(got, ref):
    np.testing.assert_allclose(np.asarray(got), np.asarray(ref), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name,call", CALLS + [(n, c) for n, c in GRAY_CALLS],
                         ids=[c[0] for c in CALLS + GRAY_CALLS])
def test_host_image_in_gives_host_image_out(name, call):
    src = F if any(name == n for n, _ in GRAY_CALLS) else A
    ref = call(src)
    assert isinstance(ref, np.ndarray), "numpy in must stay numpy out"
    got = call(gip.asimage(src))  # was a numpy array
    assert isinstance(got, gip.Image) and not got.is_cuda, type(got)
    _same(got, ref)


def test_complex_chain_of_host_images():
    F2 = gip.fft2(gip.asimage(F))
    assert isinstance(F2, gip.Image)
    for fn in (gip.magnitude, gip.log_magnitude, gip.ifft2):
        out = fn(F2)
        assert isinstance(out, gip.Image) and not out.is_cuda
    back = gip.irfft2(gip.rfft2(gip.asimage(F)), s=F.shape)
    assert isinstance(back, gip.Image)
    _same(back, F)


def test_dst_comes_back_as_given():
    im = gip.asimage(A)
    out = np.empty_like(A)
    assert gip.invert(im, out) is out  # a numpy dst stays the result
    np.testing.assert_array_equal(out, 255 - A)
    dst = gip.asimage(np.empty_like(A))
    assert gip.invert(A, dst) is dst  # a host Image dst is accepted too
    np.testing.assert_array_equal(np.asarray(dst), 255 - A)
    with pytest.raises(gip.ShapeMismatch):
        gip.invert(A, gip.asimage(np.empty((3, 3), np.uint8)))


def _close(got, ref):
    # GPU against CPU: the types are the point here; FFT-based and u8 spectrum results may
    # differ in the last bits or by one level.
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(ref, np.float64),
                               rtol=1e-3, atol=1.0)


@requires_cuda
@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_host_image_in_gives_host_image_out_on_cuda(name, call):
    ref = call(A)
    with gip.Device("cuda"):
        got = call(gip.asimage(A))  # uploaded, run, downloaded: a host Image again
        assert isinstance(got, gip.Image) and not got.is_cuda, type(got)
        _close(got, ref)
        if name == "pipeline":
            return  # a cpu pipeline refuses device inputs
        dev = call(gip.upload(A))
    assert isinstance(dev, gip.Image) and dev.is_cuda
    _close(dev.download(), ref)
