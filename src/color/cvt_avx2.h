/* SPDX-License-Identifier: MIT */
/* The AVX2 shuffles the colour conversions share: 16 pixels of 3 (or 4) interleaved bytes split
 * into their channels, and 3 put back (x86-64 with GCC or clang only). */
#ifndef GIP_COLOR_CVT_AVX2_H
#define GIP_COLOR_CVT_AVX2_H

#include <stdint.h>

#include <immintrin.h>

#define GIP__CC_M(...) _mm_setr_epi8(__VA_ARGS__)

/* 16 pixels of 3 channels from s: the channels in memory order, 16 bytes each. */
__attribute__((target("avx2"))) static inline void gip__cc_avx2_load3(const uint8_t *s, __m128i *c0,
                                                                      __m128i *c1, __m128i *c2)
{
    const __m128i x0 = _mm_loadu_si128((const __m128i *)s),
                  x1 = _mm_loadu_si128((const __m128i *)(s + 16)),
                  x2 = _mm_loadu_si128((const __m128i *)(s + 32));
    const int8_t z = -1;
    *c0 = _mm_or_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(x0, GIP__CC_M(0, 3, 6, 9, 12, 15, z, z, z, z, z, z, z, z, z, z)),
            _mm_shuffle_epi8(x1, GIP__CC_M(z, z, z, z, z, z, 2, 5, 8, 11, 14, z, z, z, z, z))),
        _mm_shuffle_epi8(x2, GIP__CC_M(z, z, z, z, z, z, z, z, z, z, z, 1, 4, 7, 10, 13)));
    *c1 = _mm_or_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(x0, GIP__CC_M(1, 4, 7, 10, 13, z, z, z, z, z, z, z, z, z, z, z)),
            _mm_shuffle_epi8(x1, GIP__CC_M(z, z, z, z, z, 0, 3, 6, 9, 12, 15, z, z, z, z, z))),
        _mm_shuffle_epi8(x2, GIP__CC_M(z, z, z, z, z, z, z, z, z, z, z, 2, 5, 8, 11, 14)));
    *c2 = _mm_or_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(x0, GIP__CC_M(2, 5, 8, 11, 14, z, z, z, z, z, z, z, z, z, z, z)),
            _mm_shuffle_epi8(x1, GIP__CC_M(z, z, z, z, z, 1, 4, 7, 10, 13, z, z, z, z, z, z))),
        _mm_shuffle_epi8(x2, GIP__CC_M(z, z, z, z, z, z, z, z, z, z, 0, 3, 6, 9, 12, 15)));
}

/* The first three channels of 16 pixels of 4 channels from s, 16 bytes each in memory order. */
__attribute__((target("avx2"))) static inline void gip__cc_avx2_load4(const uint8_t *s, __m128i *c0,
                                                                      __m128i *c1, __m128i *c2)
{
    /* each 4 pixels to [c0 x4, c1 x4, c2 x4, c3 x4], then the 32-bit groups gathered */
    const __m128i m = GIP__CC_M(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m128i t0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)s), m),
                  t1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 16)), m),
                  t2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 32)), m),
                  t3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 48)), m);
    const __m128i a = _mm_unpacklo_epi32(t0, t1), b = _mm_unpacklo_epi32(t2, t3);
    *c0 = _mm_unpacklo_epi64(a, b);
    *c1 = _mm_unpackhi_epi64(a, b);
    *c2 = _mm_unpacklo_epi64(_mm_unpackhi_epi32(t0, t1), _mm_unpackhi_epi32(t2, t3));
}

/* 16 pixels of 3 channels (16 bytes each, in memory order) to d. */
__attribute__((target("avx2"))) static inline void gip__cc_avx2_store3(uint8_t *d, __m128i c0,
                                                                       __m128i c1, __m128i c2)
{
    const int8_t z = -1;
    const __m128i b0 = _mm_or_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(c0, GIP__CC_M(0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z, z, 5)),
            _mm_shuffle_epi8(c1, GIP__CC_M(z, 0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z, z))),
        _mm_shuffle_epi8(c2, GIP__CC_M(z, z, 0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z)));
    const __m128i b1 = _mm_or_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(c0, GIP__CC_M(z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z, 10, z)),
            _mm_shuffle_epi8(c1, GIP__CC_M(5, z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z, 10))),
        _mm_shuffle_epi8(c2, GIP__CC_M(z, 5, z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z)));
    const __m128i b2 = _mm_or_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(c0, GIP__CC_M(z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15, z, z)),
            _mm_shuffle_epi8(c1, GIP__CC_M(z, z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15, z))),
        _mm_shuffle_epi8(c2, GIP__CC_M(10, z, z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15)));
    _mm_storeu_si128((__m128i *)d, b0);
    _mm_storeu_si128((__m128i *)(d + 16), b1);
    _mm_storeu_si128((__m128i *)(d + 32), b2);
}

#undef GIP__CC_M
#endif
