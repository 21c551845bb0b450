/* SPDX-License-Identifier: MIT */
/* The u8 table lookup into 2- and 4-byte entries (lut_u8.h): 16 elements a gather on AVX-512,
 * 2 x 8 on AVX2, one at a time elsewhere. */
#include <string.h>

#include "engine/lut/lut_u8.h"
#include "tuning.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WIDE_X86 1
#endif

#define ALWAYS_INLINE __attribute__((always_inline)) inline

void gip__lut_wide_init(gip__lut_wide *w, const void *table, int32_t cn, int32_t esize)
{
    const uint8_t *t = table;
    memset(w, 0, sizeof *w);
    for (int32_t v = 0; v < 256; v++)
        for (int32_t k = 0; k < cn; k++) {
            const uint8_t *e = t + ((size_t)v * (size_t)cn + (size_t)k) * (size_t)esize;
            if (esize == 2) {
                uint16_t x;
                memcpy(&x, e, 2);
                w->t[k][v] = x;
            } else {
                memcpy(&w->t[k][v], e, 4);
            }
        }
    bool same = true;
    for (int32_t k = 1; k < cn; k++)
        same = same && !memcmp(w->t[k], w->t[0], sizeof w->t[0]);
    w->cn = same ? 1 : cn;
    w->esize = esize;
    w->level = 0;
#ifdef WIDE_X86
    const unsigned v = gip__simd();
    w->level = v & GIP__SIMD_AVX512 ? 2 : v & GIP__SIMD_AVX2 ? 1 : 0;
#endif
}

/* Elements [i0, i1) of a row one at a time; element i is of channel i % cn. */
static void wide_elems(const gip__lut_wide *w, const uint8_t *s, void *d, int64_t i0, int64_t i1)
{
    const int32_t cn = w->cn;
    int32_t k = (int32_t)(i0 % cn);
    uint8_t *o = d;
    if (w->esize == 4) {
        for (int64_t i = i0; i < i1; i++) {
            memcpy(o + 4 * i, &w->t[k][s[i]], 4);
            k = k + 1 == cn ? 0 : k + 1;
        }
    } else {
        for (int64_t i = i0; i < i1; i++) {
            const uint16_t v = (uint16_t)w->t[k][s[i]];
            memcpy(o + 2 * i, &v, 2);
            k = k + 1 == cn ? 0 : k + 1;
        }
    }
}

/* The first element from which stores of `align` bytes are aligned (d aligned to es), or n. */
static int64_t aligned_start(const void *d, int32_t es, uintptr_t align, int64_t n)
{
    int64_t h = 0;
    while (h < n && ((uintptr_t)d + (uintptr_t)(h * es)) % align)
        h++;
    return h;
}

/* lane L of pattern k: the table offset of element i + 16 k + L (its channel times 256). */
static void patterns(int32_t cn, int64_t i, int32_t pat[4][16])
{
    for (int32_t k = 0; k < cn; k++)
        for (int32_t l = 0; l < 16; l++)
            pat[k][l] = (int32_t)((i + 16 * k + l) % cn) * 256;
}

#ifdef WIDE_X86
__attribute__((target("avx512f"))) static ALWAYS_INLINE void
avx512_body(const gip__lut_wide *w, const uint8_t *s, void *d, int64_t n, const int32_t es,
            const int stream)
{
    const int32_t cn = w->cn;
    int64_t i = 0;
    if ((uintptr_t)d % (uintptr_t)es == 0) { /* whole-line stores (streaming ones need it) */
        i = aligned_start(d, es, (uintptr_t)(16 * es), n);
        wide_elems(w, s, d, 0, i);
    }
    int32_t p[4][16];
    patterns(cn, i, p);
    __m512i pat[4];
    for (int32_t k = 0; k < 4; k++)
        pat[k] = _mm512_loadu_si512(p[k]);
    const int *base = (const int *)w->t[0];
    for (; i + 16 * cn <= n; i += 16 * cn)
        for (int32_t k = 0; k < cn; k++) {
            const __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16 * k));
            const __m512i idx = _mm512_add_epi32(_mm512_cvtepu8_epi32(b), pat[k]);
            const __m512i v = _mm512_i32gather_epi32(idx, base, 4);
            char *o = (char *)d + (i + 16 * k) * es;
            if (es == 4) {
                if (stream)
                    _mm512_stream_si512((void *)o, v);
                else
                    _mm512_storeu_si512(o, v);
            } else {
                const __m256i h = _mm512_cvtepi32_epi16(v);
                if (stream)
                    _mm256_stream_si256((__m256i *)o, h);
                else
                    _mm256_storeu_si256((__m256i *)o, h);
            }
        }
    wide_elems(w, s, d, i, n);
    if (stream)
        _mm_sfence();
}

__attribute__((target("avx512f"))) static void row_avx512(const gip__lut_wide *w, const uint8_t *s,
                                                          void *d, int64_t n, bool stream)
{
    if (w->esize == 4) {
        if (stream)
            avx512_body(w, s, d, n, 4, 1);
        else
            avx512_body(w, s, d, n, 4, 0);
    } else {
        if (stream)
            avx512_body(w, s, d, n, 2, 1);
        else
            avx512_body(w, s, d, n, 2, 0);
    }
}

__attribute__((target("avx2"))) static ALWAYS_INLINE void avx2_body(const gip__lut_wide *w,
                                                                    const uint8_t *s, void *d,
                                                                    int64_t n, const int32_t es,
                                                                    const int stream)
{
    const int32_t cn = w->cn;
    int64_t i = 0;
    if ((uintptr_t)d % (uintptr_t)es == 0) { /* stores within a line (streaming ones need it) */
        i = aligned_start(d, es, 32, n);
        wide_elems(w, s, d, 0, i);
    }
    int32_t p[4][16];
    patterns(cn, i, p);
    __m256i pat[8];
    for (int32_t k = 0; k < 4; k++) {
        pat[2 * k] = _mm256_loadu_si256((const __m256i *)p[k]);
        pat[2 * k + 1] = _mm256_loadu_si256((const __m256i *)(p[k] + 8));
    }
    const int *base = (const int *)w->t[0];
    for (; i + 16 * cn <= n; i += 16 * cn)
        for (int32_t k = 0; k < cn; k++) {
            const __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16 * k));
            const __m256i i0 = _mm256_add_epi32(_mm256_cvtepu8_epi32(b), pat[2 * k]);
            const __m256i i1 =
                _mm256_add_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(b, 8)), pat[2 * k + 1]);
            const __m256i v0 = _mm256_i32gather_epi32(base, i0, 4);
            const __m256i v1 = _mm256_i32gather_epi32(base, i1, 4);
            __m256i *o = (__m256i *)((char *)d + (i + 16 * k) * es);
            if (es == 4) {
                if (stream) {
                    _mm256_stream_si256(o, v0);
                    _mm256_stream_si256(o + 1, v1);
                } else {
                    _mm256_storeu_si256(o, v0);
                    _mm256_storeu_si256(o + 1, v1);
                }
            } else {
                /* entries are under 2^16: the unsigned saturation keeps them */
                const __m256i h = _mm256_permute4x64_epi64(_mm256_packus_epi32(v0, v1), 0xD8);
                if (stream)
                    _mm256_stream_si256(o, h);
                else
                    _mm256_storeu_si256(o, h);
            }
        }
    wide_elems(w, s, d, i, n);
    if (stream)
        _mm_sfence();
}

__attribute__((target("avx2"))) static void row_avx2(const gip__lut_wide *w, const uint8_t *s,
                                                     void *d, int64_t n, bool stream)
{
    if (w->esize == 4) {
        if (stream)
            avx2_body(w, s, d, n, 4, 1);
        else
            avx2_body(w, s, d, n, 4, 0);
    } else {
        if (stream)
            avx2_body(w, s, d, n, 2, 1);
        else
            avx2_body(w, s, d, n, 2, 0);
    }
}
#endif

void gip__lut_wide_row(const gip__lut_wide *w, int32_t cn, const uint8_t *src, void *dst, int64_t n,
                       bool stream)
{
    const int64_t ne = n * cn;
    /* elements not aligned to their size never reach an aligned store */
    stream = stream && (uintptr_t)dst % (uintptr_t)w->esize == 0;
#ifdef WIDE_X86
    if (w->level == 2) {
        row_avx512(w, src, dst, ne, stream);
        return;
    }
    if (w->level == 1) {
        row_avx2(w, src, dst, ne, stream);
        return;
    }
#endif
    (void)stream;
    wide_elems(w, src, dst, 0, ne);
}
