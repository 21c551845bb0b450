# SPDX-License-Identifier: MIT
"""FFT functions against numpy.fft (single precision: tolerances from fft.h's error bound) and
the seed's spectrum pipeline."""
import cv2
import numpy as np
import pytest

import gip
from conftest import SAMPLES, rand, sample

SIZES = [(1, 1), (1, 17), (13, 42), (64, 48), (97, 101)]


def bound(x):
    """fft.h: |error| <= about 2^-24 * log2(N) * sqrt(sum |x|^2) times a small constant (8)."""
    n = x.size
    return 8 * 2.0 ** -24 * max(1.0, np.log2(n)) * np.sqrt(np.sum(np.abs(x.astype(np.complex128))
                                                                   ** 2))


@pytest.mark.parametrize("shape", SIZES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("norm", [None, "forward", "ortho"])
def test_fft2_real(shape, dtype, norm):
    a = rand(shape, dtype, seed=21)
    got = gip.fft2(a, norm=norm)
    ref = np.fft.fft2(a.astype(np.float64), norm=norm)
    assert got.dtype == np.complex64 and got.shape == ref.shape
    scale = {None: 1.0, "forward": 1.0 / a.size, "ortho": 1.0 / np.sqrt(a.size)}[norm]
    np.testing.assert_allclose(got, ref, rtol=0, atol=bound(a) * scale + 1e-30)
    half = gip.rfft2(a, norm=norm)
    np.testing.assert_allclose(half, np.fft.rfft2(a.astype(np.float64), norm=norm), rtol=0,
                               atol=bound(a) * scale + 1e-30)


@pytest.mark.parametrize("shape", SIZES)
def test_fft2_ifft2_complex(shape):
    rng = np.random.default_rng(5)
    z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    np.testing.assert_allclose(gip.fft2(z), np.fft.fft2(z.astype(np.complex128)), atol=bound(z))
    np.testing.assert_allclose(gip.ifft2(z), np.fft.ifft2(z.astype(np.complex128)),
                               atol=bound(z) / z.size + 1e-30)
    back = gip.ifft2(gip.fft2(z))
    np.testing.assert_allclose(back, z, atol=2 * bound(z) / np.sqrt(z.size) + 1e-6)


@pytest.mark.parametrize("shape", [(13, 42), (64, 48), (7, 9)])
def test_irfft2(shape):
    a = rand(shape, np.float32, seed=2)
    h = gip.rfft2(a)
    np.testing.assert_allclose(gip.irfft2(h, s=shape), a, atol=1e-5 * np.abs(a).max() * 4)
    np.testing.assert_allclose(gip.irfft2(h, s=shape),
                               np.fft.irfft2(h.astype(np.complex128), s=shape), atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 1), (4, 6), (5, 7), (13, 42, 3), (9, 8, 4)])
def test_fftshift_numpy_semantics(shape):
    f = rand(shape, np.float32)
    np.testing.assert_array_equal(gip.fftshift(f), np.fft.fftshift(f, axes=(0, 1)))
    np.testing.assert_array_equal(gip.ifftshift(f), np.fft.ifftshift(f, axes=(0, 1)))
    if len(shape) == 2:
        z = (f + 1j * f[::-1, ::-1]).astype(np.complex64)
        np.testing.assert_array_equal(gip.fftshift(z), np.fft.fftshift(z))
        np.testing.assert_array_equal(gip.ifftshift(gip.fftshift(z)), z)
    u8 = rand(shape, np.uint8)  # other dtypes: numpy's own shift on the host
    np.testing.assert_array_equal(gip.fftshift(u8), np.fft.fftshift(u8, axes=(0, 1)))


def test_magnitude_log_normalize():
    rng = np.random.default_rng(1)
    z = (rng.standard_normal((31, 40)) + 1j * rng.standard_normal((31, 40))).astype(np.complex64)
    # fft.h: within one ulp of the exact value (numpy.abs of complex64 is within one too).
    np.testing.assert_allclose(gip.magnitude(z), np.abs(z.astype(np.complex128)), rtol=2 ** -23)
    np.testing.assert_allclose(gip.log_magnitude(z), np.log(np.abs(z)), atol=1e-6)
    np.testing.assert_allclose(gip.log_magnitude(z, log1p=True), np.log1p(np.abs(z)), atol=1e-6)
    f = rand((31, 40, 3), np.float32)
    np.testing.assert_array_equal(gip.normalize_minmax(f),
                                  cv2.normalize(f, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U))


@pytest.mark.parametrize("name", SAMPLES[:3])
def test_spectrum_matches_seed_pipeline(name):
    """The seed: fft2, fftshift, log(abs), cv2.normalize to 0..255. gip computes it in single
    precision and rounds as cv2.convertTo; against a float64 numpy pipeline every pixel is within
    2 levels and 99.5% within 1 (the darkest bins of f32 are rounding noise, fft.h)."""
    img = sample(name)
    got = gip.spectrum(img)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float64)
    mag = np.log(np.abs(np.fft.fftshift(np.fft.fft2(gray))))
    finite = np.isfinite(mag)
    lo, hi = mag[finite].min(), mag[finite].max()
    ref = np.clip(np.rint((mag - lo) * 255.0 / (hi - lo)), 0, 255)
    ref[~finite] = 0
    d = np.abs(got.astype(int) - ref.astype(int))
    assert got.shape == gray.shape and got.dtype == np.uint8
    assert d.max() <= 2 and (d <= 1).mean() >= 0.995
    np.testing.assert_array_equal(gip.spectrum(img[:, :, ::-1].copy(), bgr=False), got)
