/* SPDX-License-Identifier: MIT */
/* The fused 3x3 route of the CPU (fused3_cpu.c): u8 filters whose kernel is the product of two
 * small 3-tap integer factors, two output rows at a time straight from the source rows, with
 * AVX-512BW or AVX2. Sobel ksize 3 (sobel.c), the gradient magnitude of ksize 3, the 3x3 u8 box
 * (normalised or not) and the 3x3 u8 Gaussian of OpenCV's [64 128 64] kernel (separable_cpu.c)
 * run on it. Also the vector helpers that sobel_cpu.c's separable loops share with it. */
#ifndef GIP_FILTER_FUSED3_H
#define GIP_FILTER_FUSED3_H

#include <stdbool.h>
#include <stdint.h>

#include "gip/filter.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Factor kinds. */
enum { GIP__F3_DERIV = 1 /* [-1 0 1] */, GIP__F3_SMOOTH = 2 /* [1 2 1] */, GIP__F3_ONES = 3 };

typedef enum gip__f3_post {
    /* The sum (it fits in int16): dst s16 as is, f32 converted, u8 min(|sum|, 255) (Sobel; the
     * unnormalised box's saturated sum). */
    GIP__F3_SUM = 0,
    /* gip_sobel_magnitude: gx = [1 2 1]^T [-1 0 1], gy its transpose (hk and vk unused), dst f32
     * or u8 = sqrt(gx^2 + gy^2) * scale + delta with the 2-D engine's float operations. */
    GIP__F3_MAG = 1,
    /* dst u8 = min(((sum * qm) >> 16) + qr, 65535) >> qt, sums >= 0 (the u8 box's integer form of
     * its scaling, separable_cpu.c's box_q, or the 3x3 Gaussian's fixed-point rounding). */
    GIP__F3_QUANT = 2
} gip__f3_post;

typedef struct gip__fused3 {
    int hk, vk; /* horizontal (along rows) and vertical factor kinds */
    gip__f3_post post;
    gip_border border;
    float border_value[4]; /* constant border, already u8 values */
    float scale, delta;    /* MAG; scale 1 and delta 0 skip the affine step */
    uint16_t qm, qr;       /* QUANT */
    int qt;
} gip__fused3;

/* The factor kind of k (n taps), 0 for none. */
int gip__fused3_kind(const int32_t *k, int32_t n);

/* The widest vectors the route has on this CPU: 512 (x86 with AVX-512F and AVX-512BW), 256 (AVX2
 * and FMA) or 0 (neither: the route does not run). GIP_NOAVX512 set to a non-zero value caps it at
 * 256 (core/tuning.h; the tests run both widths); sobel_cpu.c's 512-bit separable loops follow the
 * same switch. */
int gip__fused3_width(void);

/* Runs f on host views of u8 src and dst (s16, f32 or u8 for SUM; f32 or u8 for MAG; u8 for
 * QUANT) of the same size and channels, where gip__fused3_width() is not 0. op names the entry in
 * errors (out of memory). */
gip_status gip__fused3_run_cpu(gip_context *ctx, const gip__fused3 *f, const gip_image *src,
                               gip_image *dst, const char *op);

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define GIP__F3_X86 1
#define GIP__AVX512 __attribute__((target("avx512f,avx512bw")))

/* kind 1 ([-1 0 1]), 2 ([1 2 1]) or 3 ([1 1 1]) of three vectors of 32 lanes, in wrapping 16-bit
 * arithmetic. */
GIP__AVX512 static inline __m512i gip__comb32(__m512i a, __m512i b, __m512i c, int kind)
{
    if (kind == GIP__F3_DERIV)
        return _mm512_sub_epi16(c, a);
    if (kind == GIP__F3_ONES)
        return _mm512_add_epi16(_mm512_add_epi16(a, b), c);
    return _mm512_add_epi16(_mm512_add_epi16(a, c), _mm512_add_epi16(b, b));
}

/* gip__comb32 on 16 lanes, with AVX2. */
__attribute__((target("avx2"))) static inline __m256i gip__comb16(__m256i a, __m256i b, __m256i c,
                                                                  int kind)
{
    if (kind == GIP__F3_DERIV)
        return _mm256_sub_epi16(c, a);
    if (kind == GIP__F3_ONES)
        return _mm256_add_epi16(_mm256_add_epi16(a, b), c);
    return _mm256_add_epi16(_mm256_add_epi16(a, c), _mm256_add_epi16(b, b));
}

/* 32 floats at o (a then b), or 32 bytes, past the caches when stream (o then 64- or 32-byte
 * aligned). */
GIP__AVX512 static inline void gip__store_f32x32(float *o, __m512 a, __m512 b, int stream)
{
    if (stream) {
        _mm512_stream_ps(o, a);
        _mm512_stream_ps(o + 16, b);
    } else {
        _mm512_storeu_ps(o, a);
        _mm512_storeu_ps(o + 16, b);
    }
}

GIP__AVX512 static inline void gip__store_u8x32(uint8_t *o, __m256i b, int stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)o, b);
    else
        _mm256_storeu_si256((__m256i *)o, b);
}

/* Stores 32 sums at element e of row d as dt: s16 as is, f32 converted, u8 as the saturated
 * absolute value (the sums fit in int16, so unsigned saturation of |s| is min(|s|, 255)). stream:
 * d + e is aligned for the streaming stores (64 bytes; 32 for u8). */
GIP__AVX512 static inline void gip__put32(void *d, int64_t e, __m512i s, gip_dtype dt, int stream)
{
    if (dt == GIP_S16) {
        int16_t *o = (int16_t *)d + e;
        if (stream)
            _mm512_stream_si512((__m512i *)o, s);
        else
            _mm512_storeu_si512(o, s);
    } else if (dt == GIP_F32) {
        gip__store_f32x32(
            (float *)d + e, _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(s))),
            _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(s, 1))), stream);
    } else {
        gip__store_u8x32((uint8_t *)d + e, _mm512_cvtusepi16_epi8(_mm512_abs_epi16(s)), stream);
    }
}

/* Two vectors of u8 values in 16-bit lanes (0..32767) as 64 bytes in element order, saturated to
 * 255: packus works within 128-bit lanes, so lanes 0, 2, 4, 6 hold a's and 1, 3, 5, 7 b's. */
GIP__AVX512 static inline __m512i gip__pack_u8x64(__m512i a, __m512i b)
{
    return _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0),
                                    _mm512_packus_epi16(a, b));
}
#endif

#ifdef __cplusplus
}
#endif
#endif
