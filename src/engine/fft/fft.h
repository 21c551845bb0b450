/* SPDX-License-Identifier: MIT */
/* Private prototypes of the FFT family shared by the entries (*.c) and the backends (*_cpu.c,
 * *_cuda.cu), plus the small inline rules both backends must apply identically. */
#ifndef GIP_FFT_PRIVATE_H
#define GIP_FFT_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "gip/fft.h"
#include "internal.h"
#include "saturate.h"
#include "fft_cache.h"
#include "color/cvt_color.h"

#if defined(__CUDACC__)
#define GIP__FFT_HD __host__ __device__ __forceinline__
#else
#define GIP__FFT_HD static inline
#include <math.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a log-magnitude pass computes from (re, im). */
typedef enum gip__mag_mode { GIP__MAG = 0, GIP__LOG = 1, GIP__LOG1P = 2 } gip__mag_mode;

GIP__FFT_HD float gip__mag_value(float re, float im, int mode)
{
    float p = re * re + im * im;
    if (mode == GIP__LOG)
        return 0.5f * logf(p); /* log(0) = -inf, as numpy */
    float m = sqrtf(p);
    return mode == GIP__LOG1P ? log1pf(m) : m;
}

/* Float <-> unsigned integer whose order is the floats' order (for atomic min/max). */
GIP__FFT_HD uint32_t gip__ordered_u32(float v)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.f = v;
    return (c.u & 0x80000000u) ? ~c.u : (c.u | 0x80000000u);
}
GIP__FFT_HD float gip__ordered_f32(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.u = (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
    return c.f;
}

/* Coefficients of the min-max normalisation (cv2.normalize NORM_MINMAX to 0..255): finite range
 * [lo, hi] or none (valid false). */
typedef struct gip__norm_coeffs {
    float a, b;
} gip__norm_coeffs;

GIP__FFT_HD gip__norm_coeffs gip__norm_make(float lo, float hi, bool valid)
{
    gip__norm_coeffs c = {0.0f, 0.0f};
    double range = (double)hi - (double)lo;
    if (valid && range > 2.220446049250313e-16) {
        double scale = 255.0 / range;
        c.a = (float)scale;
        c.b = (float)(0.0 - (double)lo * scale);
    }
    return c;
}

GIP__FFT_HD uint8_t gip__norm_apply(float v, gip__norm_coeffs c)
{
    if (v != v || v == -INFINITY)
        return 0;
    if (v == INFINITY)
        return 255;
    return gip__sat_u8_f32(fmaf(v, c.a, c.b));
}

/* Gray from colour with gip_cvt_color's rule (src/color/cvt_color.h: OpenCV's 15-bit fixed-point
 * weights for integer types; for f32 c0 * s0, then two fused multiply-adds in memory order).
 * s0..s2 are channels 0..2 in memory; red_first says channel 0 is red. */
GIP__FFT_HD float gip__gray_int(uint32_t s0, uint32_t s1, uint32_t s2, bool red_first)
{
    uint32_t c0 = red_first ? GIP__GRAY_R15 : GIP__GRAY_B15;
    uint32_t c2 = red_first ? GIP__GRAY_B15 : GIP__GRAY_R15;
    return (float)((s0 * c0 + s1 * GIP__GRAY_G15 + s2 * c2 + (1u << (GIP__GRAY_SHIFT - 1))) >>
                   GIP__GRAY_SHIFT);
}
GIP__FFT_HD float gip__gray_f32(float s0, float s1, float s2, bool red_first)
{
    float y = s0 * (red_first ? GIP__GRAY_RF : GIP__GRAY_BF);
    y = fmaf(s1, GIP__GRAY_GF, y);
    return fmaf(s2, red_first ? GIP__GRAY_BF : GIP__GRAY_RF, y);
}

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

/* ---- shifts, magnitude, normalisation ------------------------------------------------------ */
gip_status gip__fftshift_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, bool inverse);
gip_status gip__fftshift_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, bool inverse);
gip_status gip__magnitude_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode);
gip_status gip__magnitude_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int mode);
gip_status gip__normalize_cpu(gip_context *ctx, const gip_image *src, gip_image *dst);
gip_status gip__normalize_cuda(gip_context *ctx, const gip_image *src, gip_image *dst);

/* ---- spectrum ------------------------------------------------------------------------------ */
gip_status gip__spectrum_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                             bool bgr);
gip_status gip__spectrum_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                              bool bgr);
/* The CPU spectrum's log magnitude: out[i] = 0.5 ln(re^2 + im^2) of n interleaved complex values
 * (a vectorised logarithm: at most 1 ulp plus 3e-8 from ln; -inf for zero power, as logf), and
 * the finite results' range folded into *lo and *hi. */
void gip__spectrum_log_power(const float *s, float *out, int64_t n, float *lo, float *hi);
/* CPU SIMD switch of the spectrum passes: AVX2 + FMA when the CPU has them, unless GIP_NOSIMD=1
 * is set or gip__spectrum_set_simd(false) was called (the tests run both paths). Returns the
 * previous setting. */
bool gip__spectrum_set_simd(bool enable);
bool gip__spectrum_simd_active(void);

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
 * (the 121x121 Gaussian at 3840x2160 f32 through the FFT on 2 loaded cores: 154 ms with the
 * width padded to 3969 = 3^4 7^2, 107 ms with 4000 = 2^5 5^3). */
int64_t gip__fft_good_size(int64_t n);

/* Decision of the frequency-domain switch of filter2D (separable false) and the Gaussian blur
 * (separable true): non-zero when correlating a w x h image with a kw x kh kernel is expected to
 * be faster through gip_fft_convolve() than directly on `backend`. */
bool gip__fft_conv_worth(gip_backend backend, int64_t w, int64_t h, int32_t kw, int32_t kh,
                         bool separable);

#ifdef __cplusplus
}
#endif
#endif
