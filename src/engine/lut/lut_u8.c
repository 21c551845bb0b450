/* SPDX-License-Identifier: MIT */
/* The u8 table lookup (lut_u8.h). */
#include "engine/lut/lut_u8.h"

#include <string.h>

#include "tuning.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LUT_X86 1

/* The lookup of 64 indices x: two-register permutes by the low seven bits, bit 7 choosing
 * between the lower and the upper 128 entries; or, for a step table, one compare. */
typedef struct vbmi_table {
    __m512i t0, t1, t2, t3; /* the entries */
    __m512i k, a, b;        /* a step table: a below index k, b from k on */
} vbmi_table;

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static inline __attribute__((always_inline))
__m512i
look(const vbmi_table *t, __m512i x, const int step)
{
    if (step)
        return _mm512_mask_blend_epi8(_mm512_cmpge_epu8_mask(x, t->k), t->a, t->b);
    const __m512i lo = _mm512_permutex2var_epi8(t->t0, x, t->t1);
    const __m512i hi = _mm512_permutex2var_epi8(t->t2, x, t->t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

/* 64 values at a time; a masked first step up to dst's first 64-byte boundary (stores that
 * straddle two cache lines cost a fifth of the time on large rows) and a masked last one. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static inline
    __attribute__((always_inline)) void
    vbmi_body(const vbmi_table *t, const uint8_t *src, uint8_t *dst, int64_t n, bool stream,
              const int step)
{
    const int64_t h = (int64_t)((64 - (uintptr_t)dst % 64) % 64);
    int64_t i = h < n ? h : n;
    if (i > 0) {
        const __mmask64 m = ~0ull >> (64 - i);
        _mm512_mask_storeu_epi8(dst, m, look(t, _mm512_maskz_loadu_epi8(m, src), step));
    }
    if (stream)
        for (; i + 64 <= n; i += 64)
            _mm512_stream_si512((void *)(dst + i), look(t, _mm512_loadu_si512(src + i), step));
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512(dst + i, look(t, _mm512_loadu_si512(src + i), step));
    if (i < n) {
        const __mmask64 m = ~0ull >> (64 - (n - i));
        _mm512_mask_storeu_epi8(dst + i, m, look(t, _mm512_maskz_loadu_epi8(m, src + i), step));
    }
    if (stream)
        _mm_sfence();
}

/* A table that changes value at most once along 0..255 (a threshold's) is a step: one compare
 * and one blend a vector instead of the permutes (at the speed of a copy). */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void
row_vbmi(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n, bool stream)
{
    vbmi_table t;
    t.t0 = _mm512_loadu_si512(table), t.t1 = _mm512_loadu_si512(table + 64);
    t.t2 = _mm512_loadu_si512(table + 128), t.t3 = _mm512_loadu_si512(table + 192);
    /* bit v of the masks: table[v] != table[v + 1], v < 255 */
    const __mmask64 c0 = _mm512_cmpneq_epi8_mask(t.t0, _mm512_loadu_si512(table + 1));
    const __mmask64 c1 = _mm512_cmpneq_epi8_mask(t.t1, _mm512_loadu_si512(table + 65));
    const __mmask64 c2 = _mm512_cmpneq_epi8_mask(t.t2, _mm512_loadu_si512(table + 129));
    const __mmask64 c3 = _mm512_mask_cmpneq_epi8_mask(
        ~0ull >> 1, t.t3, _mm512_maskz_loadu_epi8(~0ull >> 1, table + 193));
    const int changes = __builtin_popcountll(c0) + __builtin_popcountll(c1) +
                        __builtin_popcountll(c2) + __builtin_popcountll(c3);
    if (changes > 1) {
        vbmi_body(&t, src, dst, n, stream, 0);
        return;
    }
    int k = 0; /* the first index of the second value (0: one value throughout) */
    if (changes == 1)
        k = 1 + (c0   ? __builtin_ctzll(c0)
                 : c1 ? 64 + __builtin_ctzll(c1)
                 : c2 ? 128 + __builtin_ctzll(c2)
                      : 192 + __builtin_ctzll(c3));
    t.k = _mm512_set1_epi8((char)k);
    t.a = _mm512_set1_epi8((char)table[0]);
    t.b = _mm512_set1_epi8((char)table[255]);
    vbmi_body(&t, src, dst, n, stream, 1);
}

/* Read on every row, so that GIP_NOSIMD and GIP_NOAVX512 (core/tuning.h) take effect when the
 * library reads its switches again; both reads are a load. */
static int have_vbmi(void)
{
    return (gip__simd() & GIP__SIMD_VBMI) != 0;
}
#endif

/* Eight at a time through a 64-bit word: one load and one store for eight lookups. */
static void row_scalar(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y = 0;
        memcpy(&x, src + i, 8);
        for (int k = 0; k < 8; k++)
            y |= (uint64_t)table[(x >> (8 * k)) & 0xff] << (8 * k);
        memcpy(dst + i, &y, 8);
    }
    for (; i < n; i++)
        dst[i] = table[src[i]];
}

static void row_any(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n,
                    bool stream)
{
#ifdef LUT_X86
    if (have_vbmi()) {
        row_vbmi(table, src, dst, n, stream && src != dst);
        return;
    }
#endif
    (void)stream;
    row_scalar(table, src, dst, n);
}

void gip__lut_u8_row(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n)
{
    row_any(table, src, dst, n, false);
}

void gip__lut_u8_row_cn(const uint8_t *const tables[], int32_t cn, const uint8_t *src, uint8_t *dst,
                        int64_t n)
{
    gip__lut_u8_row_cn_stream(tables, cn, src, dst, n, false);
}

void gip__lut_u8_row_cn_stream(const uint8_t *const tables[], int32_t cn, const uint8_t *src,
                               uint8_t *dst, int64_t n, bool stream)
{
    bool same = true;
    for (int32_t k = 1; k < cn && same; k++)
        same = tables[k] == tables[0] || !memcmp(tables[k], tables[0], 256);
    if (same) {
        row_any(tables[0], src, dst, n * cn, stream);
        return;
    }
    if (cn == 3) {
        const uint8_t *t0 = tables[0], *t1 = tables[1], *t2 = tables[2];
        for (int64_t i = 0; i < n * 3; i += 3) {
            const uint8_t v0 = t0[src[i]], v1 = t1[src[i + 1]], v2 = t2[src[i + 2]];
            dst[i] = v0, dst[i + 1] = v1, dst[i + 2] = v2;
        }
        return;
    }
    for (int64_t i = 0; i < n * cn; i += cn)
        for (int32_t k = 0; k < cn; k++)
            dst[i + k] = tables[k][src[i + k]];
}
