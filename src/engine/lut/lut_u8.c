/* SPDX-License-Identifier: MIT */
/* The u8 table lookup (lut_u8.h). */
#include "engine/lut/lut_u8.h"

#include <string.h>

#include "tuning.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LUT_X86 1

/* 64 values at a time: bit 7 of each index chooses between the lookups in the lower and the
 * upper 128 entries, each a two-register permute by the index's low seven bits. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void
row_vbmi(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n, bool stream)
{
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    /* A masked first step up to dst's first 64-byte boundary: stores that straddle two cache
     * lines cost a fifth of the time on large rows. */
    const int64_t h = (int64_t)((64 - (uintptr_t)dst % 64) % 64);
    int64_t i = h < n ? h : n;
    if (i > 0) {
        const __mmask64 m = ~0ull >> (64 - i);
        const __m512i x = _mm512_maskz_loadu_epi8(m, src);
        const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1);
        const __m512i hi = _mm512_permutex2var_epi8(t2, x, t3);
        _mm512_mask_storeu_epi8(dst, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
    }
    if (stream)
        for (; i + 64 <= n; i += 64) {
            const __m512i x = _mm512_loadu_si512(src + i);
            const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1);
            const __m512i hi = _mm512_permutex2var_epi8(t2, x, t3);
            _mm512_stream_si512((void *)(dst + i),
                                _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
        }
    for (; i + 64 <= n; i += 64) {
        const __m512i x = _mm512_loadu_si512(src + i);
        const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1);
        const __m512i hi = _mm512_permutex2var_epi8(t2, x, t3);
        _mm512_storeu_si512(dst + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
    }
    if (i < n) {
        const __mmask64 m = ~0ull >> (64 - (n - i));
        const __m512i x = _mm512_maskz_loadu_epi8(m, src + i);
        const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1);
        const __m512i hi = _mm512_permutex2var_epi8(t2, x, t3);
        _mm512_mask_storeu_epi8(dst + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
    }
    if (stream)
        _mm_sfence();
}

/* Read on every row, so that GIP_NOSIMD and GIP_NOAVX512 (core/tuning.h) take effect when the
 * library reads its switches again; both reads are a load. */
static int have_vbmi(void)
{
    const gip__tuning *t = gip__tuning_get();
    return !t->nosimd && !t->noavx512 && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
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
