# SPDX-License-Identifier: MIT
"""imread/imwrite/imencode/imdecode, cvt_color, convert and invert against OpenCV (exact)."""
import os

import cv2
import numpy as np
import pytest

import gip
from conftest import DATA, SAMPLES, SHAPES, rand, sample


@pytest.mark.parametrize("name", SAMPLES + ["hubble_deep_field.jpg", "gravel.png"])
@pytest.mark.parametrize("flags", [gip.IMREAD_COLOR, gip.IMREAD_GRAYSCALE, gip.IMREAD_UNCHANGED,
                                   gip.IMREAD_ANYDEPTH, gip.IMREAD_COLOR | gip.IMREAD_ANYDEPTH,
                                   gip.IMREAD_GRAYSCALE | gip.IMREAD_IGNORE_ORIENTATION])
def test_imread_equals_cv2(name, flags):
    """Bit for bit, gray included: PNG through libpng's RGB-to-gray (was cvtColor's rule, one
    level off on about half the pixels), JPEG through libjpeg's luma, as cv2.imread."""
    path = os.path.join(DATA, name)
    got, ref = gip.imread(path, flags), cv2.imread(path, flags)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def test_imread_rgb_order():
    bgr = sample("chelsea.png")
    rgb = gip.imread(os.path.join(DATA, "chelsea.png"), bgr=False)
    np.testing.assert_array_equal(rgb, bgr[:, :, ::-1])


def test_imwrite_png_roundtrip(tmp_path):
    img = sample("coffee.png")
    p = tmp_path / "out.png"
    assert gip.imwrite(p, img, [gip.IMWRITE_PNG_COMPRESSION, 3])
    np.testing.assert_array_equal(cv2.imread(str(p)), img)
    u16 = rand((20, 30, 3), np.uint16)
    gip.imwrite(tmp_path / "u16.png", u16)
    np.testing.assert_array_equal(cv2.imread(str(tmp_path / "u16.png"), -1), u16)


def test_imwrite_jpeg_quality(tmp_path):
    img = sample("chelsea.png")
    gip.imwrite(tmp_path / "q.jpg", img, [gip.IMWRITE_JPEG_QUALITY, 95])
    back = cv2.imread(str(tmp_path / "q.jpg"))
    assert back.shape == img.shape
    assert np.abs(back.astype(int) - img).mean() < 3


def test_imencode_imdecode():
    img = sample("astronaut.png")
    ok, buf = gip.imencode(".png", img)
    assert ok and buf.dtype == np.uint8 and buf.ndim == 1
    np.testing.assert_array_equal(gip.imdecode(buf), img)
    np.testing.assert_array_equal(cv2.imdecode(buf, 1), img)


def test_io_errors(tmp_path):
    with pytest.raises(gip.NotFound) as e:
        gip.imread(tmp_path / "missing.png")
    assert isinstance(e.value, FileNotFoundError) and e.value.status == "GIP_ERR_NOT_FOUND"
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image at all")
    with pytest.raises(gip.CorruptData):
        gip.imread(bad)
    with pytest.raises(gip.Unsupported):
        gip.imwrite(tmp_path / "x.bmp", sample("coffee.png"))
    with pytest.raises(gip.IOError):
        gip.imwrite(tmp_path / "no" / "such" / "dir.png", sample("coffee.png"))
    assert not (tmp_path / "x.bmp").exists()
    with pytest.raises(gip.InvalidArgument):
        gip.imread(tmp_path / "missing.png", 77)


CODES = [("BGR2RGB", 3), ("BGR2BGRA", 3), ("BGRA2BGR", 4), ("BGR2RGBA", 3), ("RGBA2BGR", 4),
         ("BGRA2RGBA", 4), ("BGR2GRAY", 3), ("RGB2GRAY", 3), ("BGRA2GRAY", 4), ("RGBA2GRAY", 4),
         ("GRAY2BGR", 1), ("GRAY2BGRA", 1)]


@pytest.mark.parametrize("code,cn", CODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_cvt_color(code, cn, dtype):
    shape = (37, 53) if cn == 1 else (37, 53, cn)
    src = rand(shape, dtype, seed=cn)
    if dtype == np.float32:
        src = np.abs(src)
    c = getattr(gip, "COLOR_" + code)
    assert c == getattr(cv2, "COLOR_" + code)
    got, ref = gip.cvt_color(src, c), cv2.cvtColor(src, c)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if dtype == np.float32:
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)  # f32 rounding only
    else:
        np.testing.assert_array_equal(got, ref)


def test_cvt_color_sample():
    img = sample("astronaut.png")
    np.testing.assert_array_equal(gip.cvtColor(img, gip.COLOR_BGR2GRAY),
                                  cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))


def _normalize_coeffs(src, dmin, dmax, float_dst):
    """scale and shift as cv2.normalize(NORM_MINMAX) computes them before src.convertTo()."""
    smin, smax = float(src.min()), float(src.max())
    scale = (dmax - dmin) * (1.0 / (smax - smin))
    if float_dst:
        scale = float(np.float32(scale))
        shift = float(np.float32(dmin)) - float(np.float32(smin * scale))
    else:
        shift = dmin - smin * scale
    return scale, shift


DEPTH = {np.uint8: cv2.CV_8U, np.uint16: cv2.CV_16U, np.int16: cv2.CV_16S, np.float32: cv2.CV_32F}


@pytest.mark.parametrize("src_t", [np.uint8, np.uint16, np.int16, np.float32])
@pytest.mark.parametrize("dst_t", [np.uint8, np.uint16, np.int16, np.float32])
def test_convert_equals_convertTo(src_t, dst_t):
    """cv2.normalize(NORM_MINMAX) is Mat.convertTo with coefficients it derives: the Python
    binding's way to reach convertTo. Integer outputs exact."""
    src = rand((29, 31, 3), src_t, seed=7)
    for dmin, dmax in [(0.5, 100.5), (-7.25, 300.0), (0.0, 1.0)]:
        ref = cv2.normalize(src, None, dmin, dmax, cv2.NORM_MINMAX, DEPTH[dst_t])
        scale, shift = _normalize_coeffs(src, dmin, dmax, dst_t == np.float32)
        got = gip.convert(src, dst_t, scale, shift)
        assert got.dtype == ref.dtype
        if dst_t == np.float32:
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-5)  # one f32 rounding
        else:
            np.testing.assert_array_equal(got, ref)
    assert gip.convert(src, gip.CV_32F).dtype == np.float32


@pytest.mark.parametrize("shape", SHAPES)
def test_invert(shape):
    u8 = rand(shape, np.uint8)
    np.testing.assert_array_equal(gip.invert(u8), cv2.bitwise_not(u8).reshape(shape))
    u16 = rand(shape, np.uint16)
    np.testing.assert_array_equal(gip.invert(u16), 65535 - u16)
    f = rand(shape, np.float32)
    np.testing.assert_array_equal(gip.invert(f), np.float32(1.0) - f)
    np.testing.assert_array_equal(gip.invert(f, max=2.5), np.float32(2.5) - f)


def test_invert_into_dst_and_sample():
    img = sample("rocket.jpg")
    out = np.empty_like(img)
    assert gip.invert(img, out) is out
    np.testing.assert_array_equal(out, 255 - img)


def test_device_memory_limit_on_cpu():
    dev = gip.Device("cpu")
    assert dev.memory_used == 0
    with pytest.raises(gip.NoDevice, match="CPU context"):
        dev.set_memory_limit(1 << 20)
    with pytest.raises(gip.InvalidArgument, match=">= 0"):
        dev.set_memory_limit(-1)
