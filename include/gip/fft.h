/* SPDX-License-Identifier: MIT */
/* Fourier transforms with numpy's semantics: fft2/ifft2 (real and complex), fftshift, magnitude and
 * log-magnitude, min-max normalisation to u8, the centred spectrum image in one call, and
 * correlation through the frequency domain. CPU: FFTW3 (single precision, threaded); GPU: cuFFT. */
#ifndef GIP_FFT_H
#define GIP_FFT_H

#include "gip/core.h"
#include "gip/filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Conventions shared by every function below.
 * - Complex data is a 1-channel GIP_C32 image: interleaved (re, im) float pairs, any row stride
 *   that is a multiple of 4 bytes. Transforms are 2-D over (height, width); element (x, y) of a
 *   spectrum is the frequency (kx = x, ky = y) exactly as numpy.fft.fft2(a)[y, x].
 * - A real image of width W has the half spectrum of width W/2 + 1 (integer division) and the
 *   same height: numpy.fft.rfft2(a).
 * - Transforms, like every gip call, run where the data lives (host views on the CPU with FFTW,
 *   device views on the GPU with cuFFT on the context's stream; GPU calls return before the work
 *   is done: gip_context_sync() waits).
 * - Plans are built on first use of a (size, kind) on a context and reused by later calls; see
 *   GIP_FFT_MEASURE. The first call of a size is slower.
 * - Accuracy: single precision. Against an exact DFT each output element is within about
 *   2^-24 * log2(W*H) * sqrt(sum |x|^2) times a small constant; the CPU and GPU results differ
 *   within that bound (they are not bit-identical).
 */

/** Scaling of a transform pair, named and defined as numpy's norm= argument (N = W * H). */
typedef enum gip_fft_norm {
    GIP_FFT_NORM_BACKWARD = 0, /* forward unscaled, inverse 1/N (numpy's default; "none") */
    GIP_FFT_NORM_FORWARD = 1,  /* forward 1/N, inverse unscaled */
    GIP_FFT_NORM_ORTHO = 2     /* both 1/sqrt(N): the transform is unitary */
} gip_fft_norm;

/** CPU only: plan with FFTW_MEASURE (slow first call, possibly faster transforms afterwards)
 *  instead of FFTW_ESTIMATE. A measured plan is cached apart from an estimated one. Ignored on
 *  the GPU. */
#define GIP_FFT_MEASURE 1u

/** Transform parameters. Zero-initialise: zero means norm "backward" and estimated plans. */
typedef struct gip_fft_params {
    gip_fft_norm norm;
    uint32_t flags; /* 0 or GIP_FFT_MEASURE */
} gip_fft_params;

/**
 * Forward 2-D discrete Fourier transform, numpy.fft.fft2 / numpy.fft.rfft2.
 * - Real input: src 1 channel u8, u16 or f32 (u8/u16 converted to float on the fly), W x H;
 *   dst 1-channel c32 of (W/2 + 1) x H receives the half spectrum (rfft2).
 * - Complex input: src 1-channel c32 W x H; dst 1-channel c32 W x H (fft2). dst may be src itself
 *   (in place); any other overlap is refused.
 * Any size from 1x1 up, primes included. params may be NULL (defaults).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL ctx/src/dst, malformed view, bad norm or flags);
 *         GIP_ERR_SHAPE_MISMATCH (dst size not the one above, channels not 1);
 *         GIP_ERR_UNSUPPORTED (src s16, dst not c32); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_OUT_OF_MEMORY; GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE. On error dst is unchanged.
 */
GIP_API gip_status gip_fft2(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip_fft_params *params);

/**
 * Inverse 2-D discrete Fourier transform, numpy.fft.ifft2 / numpy.fft.irfft2(s=(H, W)).
 * - Complex to complex: src and dst 1-channel c32 of the same W x H; dst may be src (in place).
 * - Complex to real: src the 1-channel c32 half spectrum of (W/2 + 1) x H, dst 1-channel f32 of
 *   W x H (dst's width gives W, which resolves the odd/even ambiguity as irfft2's s= does). src
 *   is expected to be Hermitian, as gip_fft2 of a real image gives; only its Hermitian part is
 *   used (the imaginary parts of the self-conjugate bins are ignored). src is not modified.
 * params may be NULL (defaults).
 * @return as gip_fft2().
 */
GIP_API gip_status gip_ifft2(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_fft_params *params);

/**
 * numpy.fft.fftshift over both axes: moves frequency (0, 0) to (W/2, H/2), i.e.
 * dst(x, y) = src((x + ceil(W/2)) mod W, (y + ceil(H/2)) mod H).
 * src and dst: same W x H, channels (1, 3, 4) and dtype (f32 or c32); host or device; dst must
 * not overlap src (odd sizes make in-place shifting a cycle, so it is refused).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED (dtype
 *         other than f32/c32, or dtypes differ); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_fftshift(gip_context *ctx, const gip_image *src, gip_image *dst);

/** numpy.fft.ifftshift, the inverse of gip_fftshift (they differ for odd sizes):
 *  dst(x, y) = src((x + W/2) mod W, (y + H/2) mod H). Same arguments and statuses. */
GIP_API gip_status gip_ifftshift(gip_context *ctx, const gip_image *src, gip_image *dst);

/**
 * |F|: src 1-channel c32, dst 1-channel f32 of the same size (sqrt(re^2 + im^2) in float, as
 * numpy.abs within one ulp). Host or device.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED;
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_magnitude(gip_context *ctx, const gip_image *src, gip_image *dst);

/** Log-magnitude parameters. Zero-initialise. */
typedef struct gip_log_magnitude_params {
    int32_t log1p; /* 0: log|F| (the seed's numpy.log(numpy.abs(F))); non-zero: log(1 + |F|) */
} gip_log_magnitude_params;

/**
 * log|F| (or log(1 + |F|)) of a 1-channel c32 src into a 1-channel f32 dst of the same size.
 * Where |F| = 0, log|F| is -inf, as numpy gives (log1p gives 0 there); gip_normalize_minmax()
 * ignores non-finite values when it looks for the range. params may be NULL.
 * @return as gip_magnitude().
 */
GIP_API gip_status gip_log_magnitude(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     const gip_log_magnitude_params *params);

/**
 * Min-max normalisation to u8, cv2.normalize(src, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U):
 * lo and hi are the smallest and largest FINITE values of src over all pixels and channels;
 * a = (float)(255 / (hi - lo)), b = (float)(-lo * 255 / (hi - lo)) computed in double, and
 * dst = round_half_even(fmaf(v, a, b)) saturated to 0..255 (OpenCV's convertTo rounding, not
 * numpy's astype truncation: the seed's astype could only lose up to one level; gip follows
 * OpenCV, which defines this operation). Non-finite values: -inf and NaN write 0, +inf writes 255.
 * When hi == lo, or no value is finite, every finite pixel writes 0 (OpenCV's rule for a zero
 * range). src f32 with 1, 3 or 4 channels; dst u8 of the same shape; host or device. On the GPU
 * the two passes are queued on the context's stream.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED;
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_normalize_minmax(gip_context *ctx, const gip_image *src, gip_image *dst);

/** Spectrum parameters. Zero-initialise. */
typedef struct gip_spectrum_params {
    int32_t log1p; /* 0: log|F| as the seed; non-zero: log(1 + |F|) */
    int32_t bgr;   /* colour sources only: channels are B, G, R(, A) as cv2.imread gives;
                      0: R, G, B(, A) as gip_image_load gives by default */
} gip_spectrum_params;

/**
 * The centred log-magnitude spectrum image in one call: for a gray image it equals
 * gip_normalize_minmax(fftshift(log|fft2(src)|)) (the seed: cupy.fft.fft2, fftshift,
 * log(abs(.)), min-max to 0..255), without the full-size temporaries.
 * src: W x H, u8, u16 or f32, 1 channel, or 3/4 channels converted to gray first with
 * cv2.cvtColor's RGB2GRAY/BGR2GRAY rule (15-bit fixed-point weights for u8/u16, 0.299/0.587/0.114
 * for f32; alpha ignored) as gip_cvt_color computes it. dst: u8 W x H, 1 channel. Host or device.
 * params may be NULL. Note that in single precision the smallest bins of a large image are rounding
 * noise, so the darkest levels reflect f32 noise exactly as in the seed's complex64 pipeline.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED (s16, c32,
 *         dst not u8 1-channel); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE;
 *         GIP_ERR_OUT_OF_MEMORY; GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_spectrum(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const gip_spectrum_params *params);

/**
 * Correlation through the frequency domain with cv2.filter2D's semantics and parameters (kernel
 * not flipped, anchor default at the kernel's centre, delta added, border modes of the filters
 * including CONSTANT with its per-channel value): the image is padded by the kernel's extent with
 * the border rule, transformed (sizes rounded up to products of 2, 3, 5 and 7), multiplied by the
 * kernel's spectrum and transformed back. Equal to gip_filter2d() within f32 tolerance
 * (absolute error about 2^-24 * log2(size) * sum|k| * max|src| times a small constant); integer
 * destinations are rounded half to even and saturated, so they can differ from the direct path
 * by one level where the exact value lies near .5.
 * src: u8, u16 or f32, 1, 3 or 4 channels; dst: same size and channels, dtype the source's or
 * f32; host or device; dst must not overlap src. params as for gip_filter2d() (required).
 * Cost does not depend on the kernel size; gip_filter2d() and gip_gaussian_blur() switch to it
 * for large kernels.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad ksize/anchor/border, kernel NULL);
 *         GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED; GIP_ERR_ALIASING; GIP_ERR_TOO_LARGE;
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_fft_convolve(gip_context *ctx, const gip_image *src, gip_image *dst,
                                    const gip_filter2d_params *params);

#ifdef __cplusplus
}
#endif
#endif
