/* SPDX-License-Identifier: MIT */
/* The FFT engine: 2-D transforms on FFTW and cuFFT with cached plans (fft_cache.h), correlation
 * through the frequency domain, and the choice between it and direct correlation that filter2D
 * and the Gaussian blur share. Prototypes shared by the engine's entries (*.c) and backends
 * (*_cpu.c, *_cuda.cu), and by the FFT operations (src/ops/fft/). */
#ifndef GIP_ENGINE_FFT_H
#define GIP_ENGINE_FFT_H

#include <stdbool.h>
#include <stdint.h>

#include "gip/fft.h"
#include "internal.h"
#include "fft_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scale of a transform for a normalisation and direction (n = W * H). */
float gip__fft_scale(gip_fft_norm norm, bool inverse, int64_t n);

/* ---- transforms ------------------------------------------------------------------------------
 * kind says the transform; (w, h) is the size of the real/complex full image (for R2C and C2R the
 * spectrum side is (w/2 + 1) x h). The entry has checked everything. */
gip_status gip__fft2_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, gip__fft_kind kind,
                         float scale, uint32_t flags);
gip_status gip__fft2_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                          gip__fft_kind kind, float scale);

/* FFTW plan of a kind and size for out-of-place execution between 64-byte-aligned buffers. */
gip_status gip__fftw_plan(gip_context *ctx, gip__fft_kind kind, int64_t w, int64_t h,
                          uint32_t flags, void *in, void *out, uintptr_t *plan);
void gip__fftw_execute(uintptr_t plan, gip__fft_kind kind, void *in, void *out);
/* Single-threaded FFTW plan of a batch kind (GIP__FFT_ROWS_R2C, GIP__FFT_BATCH_C2C): `howmany`
 * transforms of length n, `stride` complex elements apart, in place in `buf` (64-byte aligned).
 * Execute it with gip__fftw_execute(plan, kind, p, p) on any p whose address is a multiple of 16
 * bytes, from several threads at once (FFTW's new-array execute is thread-safe). */
gip_status gip__fftw_plan_batch(gip_context *ctx, gip__fft_kind kind, int64_t n, int64_t howmany,
                                int64_t stride, void *buf, uintptr_t *plan);
/* cuFFT plan (a cufftHandle) of a kind and size on ctx's device. */
gip_status gip__cufft_plan(gip_context *ctx, gip__fft_kind kind, int64_t w, int64_t h,
                           uintptr_t *plan);
/* Queues a cuFFT plan on ctx's stream (unscaled; in and out tight device buffers). */
gip_status gip__cufft_exec(gip_context *ctx, uintptr_t plan, gip__fft_kind kind, void *in,
                           void *out);

/* Bytes of a tight buffer rounded up to 256 (keeps every sub-buffer aligned for FFTW and CUDA). */
static inline size_t gip__fft_round(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

/* ---- frequency-domain correlation ---------------------------------------------------------- */
/* The checked, resolved request: anchor filled in, FFT size (m x n) chosen. A separable kernel
 * comes as its two factors (kx, ky non-NULL, kernel NULL: k(i, j) = ky[j] kx[i]); its spectrum is
 * then the product of two 1-D spectra, so no 2-D transform of the kernel is needed. */
typedef struct gip__fftconv_plan {
    const float *kernel;
    const float *kx, *ky;
    int32_t kw, kh, ax, ay;
    float delta;
    gip_border_spec border;
    int64_t m, n; /* transform width and height (>= w + kw - 1, >= h + kh - 1) */
} gip__fftconv_plan;

gip_status gip__fft_convolve_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const gip__fftconv_plan *p);
gip_status gip__fft_convolve_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  const gip__fftconv_plan *p);

/* gip_fft_convolve() with the separable kernel k(i, j) = ky[j] kx[i], anchor at the centre,
 * without forming the 2-D kernel; `op` names the caller in messages. Same checks and results as
 * gip_fft_convolve() with the outer product. */
gip_status gip__fft_convolve_sep(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const float *kx, int32_t kw, const float *ky, int32_t kh,
                                 const gip_border_spec *border, const char *op);

/* The spectrum of `klen` taps placed flipped with wrap-around in a periodic signal of length
 * `len` (tap i at position (len - i) mod len), which is what correlation needs:
 * K[u] = sum_i k[i] exp(+2 pi i u i / len) for u in [0, count), computed in double, stored as
 * interleaved (re, im) floats. `table` holds len cos/sin pairs from gip__fft_twiddles(). */
void gip__fft_taps_spectrum(const float *k, int32_t klen, int64_t len, int64_t count,
                            const double *table, float *out);
/* cos and sin of 2 pi t / len for t in [0, len), interleaved, into table (2 len doubles). */
void gip__fft_twiddles(int64_t len, double *table);

/* Smallest n' >= n whose only prime factors are 2, 3 and 5, where FFTW and cuFFT are fastest
 * (the 121x121 Gaussian at 3840x2160 f32 through the FFT took 1.4 times as long with the width
 * padded to 3969 = 3^4 7^2 as with 4000 = 2^5 5^3). */
int64_t gip__fft_good_size(int64_t n);

/* The choice between direct correlation and correlation through the FFT, for filter2D (separable
 * false) and the Gaussian blur (separable true), in one place: checks `method` (a message naming
 * `op` when it is not AUTO, DIRECT or FFT) and sets *use_fft: always for FFT, never for DIRECT,
 * and for AUTO when the result is f32 (`out`) and correlating a w x h image with a kw x kh kernel
 * is expected to be faster through the FFT than directly on the device (on_device) or the CPU. */
gip_status gip__fft_conv_choose(gip_context *ctx, gip_conv_method method, gip_dtype out,
                                bool on_device, int64_t w, int64_t h, int32_t kw, int32_t kh,
                                bool separable, const char *op, bool *use_fft);

#ifdef __cplusplus
}
#endif
#endif
