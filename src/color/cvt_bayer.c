/* SPDX-License-Identifier: MIT */
/* gip_bayer_to_rgb: argument checks and the CPU backend (rows on gip's thread pool);
 * cvt_bayer_cuda.cu is the CUDA one. */
#include <stdlib.h>
#include <string.h>

#include "color/cvt_bayer.h"
#include "color/cvt_color_cpu.h"
#include "internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define BAYER_X86 1
#include "color/cvt_avx2.h"
#define BAYER_AVX2 __attribute__((target("avx2")))
#endif

gip_status gip__bayer_cuda(gip_context *ctx, const gip__bayer *b, gip_image *dst);

typedef struct bayer_job {
    gip__bayer b;
    gip_image *dst;
} bayer_job;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define BAYER_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define BAYER_CLONES
#endif
#define BAYER_INLINE static inline __attribute__((always_inline))

/* The bilinear and edge-aware rows: what gip__bayer_pixel() gives the inner pixels x = 1 .. 2 np
 * of a row whose source rows are n (above), c and s (below), two pixels a step with the site
 * colours, the output order and the channel count constants of the loop so that the compiler
 * vectorises it. The first pixel of each pair is green when green0; rc is the output index of
 * the colour of the row's other sites. A is wide enough for four samples plus 2. */
#define BAYER_ROWS(TN, T, A, AMAX)                                                                 \
    BAYER_INLINE void bayer_site_##TN(const T *restrict n, const T *restrict c,                    \
                                      const T *restrict s, T *restrict o, int64_t x, int green,    \
                                      int rc, int dcn, int ea)                                     \
    {                                                                                              \
        const A vn = n[x], vs = s[x], vw = c[x - 1], ve = c[x + 1];                                \
        if (green) {                                                                               \
            o[rc ^ 2] = (T)((A)(vn + vs + 1) >> 1);                                                \
            o[1] = c[x];                                                                           \
            o[rc] = (T)((A)(vw + ve + 1) >> 1);                                                    \
        } else {                                                                                   \
            const A dg = (A)(n[x - 1] + n[x + 1]) + (A)(s[x - 1] + s[x + 1]);                      \
            o[rc ^ 2] = (T)((A)(dg + 2) >> 2);                                                     \
            if (ea) {                                                                              \
                const A dh = vw > ve ? vw - ve : ve - vw, dv = vs > vn ? vs - vn : vn - vs;        \
                o[1] = (T)(dh > dv ? (A)(vn + vs + 1) >> 1 : (A)(vw + ve + 1) >> 1);               \
            } else {                                                                               \
                o[1] = (T)((A)(vn + vs + vw + ve + 2) >> 2);                                       \
            }                                                                                      \
            o[rc] = c[x];                                                                          \
        }                                                                                          \
        if (dcn == 4)                                                                              \
            o[3] = (T)(AMAX);                                                                      \
    }                                                                                              \
    BAYER_INLINE void bayer_pairs_##TN(const T *restrict n, const T *restrict c,                   \
                                       const T *restrict s, T *restrict d, int64_t np, int green0, \
                                       int rc, int dcn, int ea)                                    \
    {                                                                                              \
        for (int64_t k = 0; k < np; k++) {                                                         \
            const int64_t x = 1 + 2 * k;                                                           \
            bayer_site_##TN(n, c, s, d + x * dcn, x, green0, rc, dcn, ea);                         \
            bayer_site_##TN(n, c, s, d + (x + 1) * dcn, x + 1, !green0, rc, dcn, ea);              \
        }                                                                                          \
    }                                                                                              \
    /* Bayer2Gray_: 14-bit weights, bco the weight of the row's other sites' colour, rco the       \
     * column's; 32-bit sums that wrap as gip__bayer_pixel()'s do. */                              \
    BAYER_INLINE void bayer_gray_##TN(const T *restrict n, const T *restrict c,                    \
                                      const T *restrict s, T *restrict d, int64_t np, int green0,  \
                                      uint32_t rco, uint32_t bco)                                  \
    {                                                                                              \
        const uint32_t g2y = 9617;                                                                 \
        for (int64_t k = 0; k < np; k++) {                                                         \
            for (int i = 0; i < 2; i++) {                                                          \
                const int64_t x = 1 + 2 * k + i;                                                   \
                const uint32_t vn = n[x], vs = s[x], vw = c[x - 1], ve = c[x + 1], vc = c[x];      \
                if (i ^ green0) {                                                                  \
                    const uint32_t t = (vn + vs) * rco + (vw + ve) * bco + vc * (2 * g2y);         \
                    d[x] = (T)((t + (1u << 14)) >> 15);                                            \
                } else {                                                                           \
                    const uint32_t dg = (uint32_t)n[x - 1] + n[x + 1] + s[x - 1] + s[x + 1];       \
                    const uint32_t t = dg * rco + (vn + vs + vw + ve) * g2y + vc * (4 * bco);      \
                    d[x] = (T)((t + (1u << 15)) >> 16);                                            \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    BAYER_INLINE void bayer_dcn_##TN(const T *n, const T *c, const T *s, T *d, int64_t np,         \
                                     int green0, int rc, int dcn, int ea)                          \
    {                                                                                              \
        if (green0) {                                                                              \
            if (rc)                                                                                \
                bayer_pairs_##TN(n, c, s, d, np, 1, 2, dcn, ea);                                   \
            else                                                                                   \
                bayer_pairs_##TN(n, c, s, d, np, 1, 0, dcn, ea);                                   \
        } else {                                                                                   \
            if (rc)                                                                                \
                bayer_pairs_##TN(n, c, s, d, np, 0, 2, dcn, ea);                                   \
            else                                                                                   \
                bayer_pairs_##TN(n, c, s, d, np, 0, 0, dcn, ea);                                   \
        }                                                                                          \
    }                                                                                              \
    BAYER_CLONES static void bayer_row_##TN(const T *n, const T *c, const T *s, T *d, int64_t np,  \
                                            int green0, int rc, int dcn, int ea, uint32_t rco,     \
                                            uint32_t bco)                                          \
    {                                                                                              \
        if (dcn == 1) {                                                                            \
            if (green0)                                                                            \
                bayer_gray_##TN(n, c, s, d, np, 1, rco, bco);                                      \
            else                                                                                   \
                bayer_gray_##TN(n, c, s, d, np, 0, rco, bco);                                      \
        } else if (ea) {                                                                           \
            bayer_dcn_##TN(n, c, s, d, np, green0, rc, 3, 1);                                      \
        } else if (dcn == 3) {                                                                     \
            bayer_dcn_##TN(n, c, s, d, np, green0, rc, 3, 0);                                      \
        } else {                                                                                   \
            bayer_dcn_##TN(n, c, s, d, np, green0, rc, 4, 0);                                      \
        }                                                                                          \
    }

BAYER_ROWS(u8, uint8_t, uint16_t, 255)
BAYER_ROWS(u16, uint16_t, uint32_t, 65535)

#ifdef BAYER_X86
/* AVX2 for u8 colour rows: 16 pixels a step in 16-bit lanes, both sites' rules computed and the
 * lanes' own chosen (the same sums, roundings and comparisons as bayer_site_u8()). */
#define BAYER_M(...) _mm256_broadcastsi128_si256(_mm_setr_epi8(__VA_ARGS__))

BAYER_AVX2 static inline __m256i bayer_avx2_ld(const uint8_t *p)
{
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

BAYER_AVX2 static inline int64_t bayer_avx2_dcn(const uint8_t *n, const uint8_t *c,
                                                const uint8_t *s, uint8_t *d, int64_t np,
                                                int green0, int rc, int dcn, int ea)
{
    const __m256i two = _mm256_set1_epi16(2);
    /* lanes of green sites: the even ones (pixels 1, 3, ...) when green0 */
    const __m256i gm = green0 ? _mm256_set1_epi32(0xffff) : _mm256_set1_epi32((int)0xffff0000u);
    int64_t k = 0;
    for (; k + 8 <= np; k += 8) {
        const int64_t x = 1 + 2 * k;
        const __m256i n0 = bayer_avx2_ld(n + x), s0 = bayer_avx2_ld(s + x);
        const __m256i cw = bayer_avx2_ld(c + x - 1), c0 = bayer_avx2_ld(c + x),
                      ce = bayer_avx2_ld(c + x + 1);
        const __m256i dg =
            _mm256_add_epi16(_mm256_add_epi16(bayer_avx2_ld(n + x - 1), bayer_avx2_ld(n + x + 1)),
                             _mm256_add_epi16(bayer_avx2_ld(s + x - 1), bayer_avx2_ld(s + x + 1)));
        const __m256i vert = _mm256_avg_epu16(n0, s0), horz = _mm256_avg_epu16(cw, ce);
        const __m256i diag = _mm256_srli_epi16(_mm256_add_epi16(dg, two), 2);
        __m256i mid;
        if (ea) {
            const __m256i dh = _mm256_abs_epi16(_mm256_sub_epi16(cw, ce)),
                          dv = _mm256_abs_epi16(_mm256_sub_epi16(s0, n0));
            mid = _mm256_blendv_epi8(horz, vert, _mm256_cmpgt_epi16(dh, dv));
        } else {
            mid = _mm256_srli_epi16(
                _mm256_add_epi16(
                    _mm256_add_epi16(_mm256_add_epi16(n0, s0), _mm256_add_epi16(cw, ce)), two),
                2);
        }
        const __m256i o2 = _mm256_blendv_epi8(diag, vert, gm); /* at index rc ^ 2 */
        const __m256i o1 = _mm256_blendv_epi8(mid, c0, gm);
        const __m256i o0 = _mm256_blendv_epi8(c0, horz, gm); /* at index rc */
        /* per lane, bytes: P channels 0 and 1 of the lane's 8 pixels, Q channel 2 and alpha */
        const __m256i p = _mm256_packus_epi16(rc ? o2 : o0, o1);
        const __m256i q = _mm256_packus_epi16(rc ? o0 : o2, _mm256_set1_epi16(255));
        uint8_t *o = d + x * dcn;
        if (dcn == 4) {
            const __m256i lo =
                _mm256_or_si256(_mm256_shuffle_epi8(p, BAYER_M(0, 8, -1, -1, 1, 9, -1, -1, 2, 10,
                                                               -1, -1, 3, 11, -1, -1)),
                                _mm256_shuffle_epi8(q, BAYER_M(-1, -1, 0, 8, -1, -1, 1, 9, -1, -1,
                                                               2, 10, -1, -1, 3, 11)));
            const __m256i hi =
                _mm256_or_si256(_mm256_shuffle_epi8(p, BAYER_M(4, 12, -1, -1, 5, 13, -1, -1, 6, 14,
                                                               -1, -1, 7, 15, -1, -1)),
                                _mm256_shuffle_epi8(q, BAYER_M(-1, -1, 4, 12, -1, -1, 5, 13, -1, -1,
                                                               6, 14, -1, -1, 7, 15)));
            _mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256((__m256i *)(o + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
            continue;
        }
        const __m256i a = _mm256_or_si256(
            _mm256_shuffle_epi8(p, BAYER_M(0, 8, -1, 1, 9, -1, 2, 10, -1, 3, 11, -1, 4, 12, -1, 5)),
            _mm256_shuffle_epi8(
                q, BAYER_M(-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1)));
        const __m256i b =
            _mm256_or_si256(_mm256_shuffle_epi8(p, BAYER_M(13, -1, 6, 14, -1, 7, 15, -1, -1, -1, -1,
                                                           -1, -1, -1, -1, -1)),
                            _mm256_shuffle_epi8(q, BAYER_M(-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, -1,
                                                           -1, -1, -1, -1, -1)));
        _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(a));
        _mm_storel_epi64((__m128i *)(o + 16), _mm256_castsi256_si128(b));
        _mm_storeu_si128((__m128i *)(o + 24), _mm256_extracti128_si256(a, 1));
        _mm_storel_epi64((__m128i *)(o + 40), _mm256_extracti128_si256(b, 1));
    }
    return k;
}
#undef BAYER_M

/* The pairs of a u8 colour row it did (a multiple of 8). */
BAYER_AVX2 static int64_t bayer_avx2(const uint8_t *n, const uint8_t *c, const uint8_t *s,
                                     uint8_t *d, int64_t np, int green0, int rc, int dcn, int ea)
{
    if (ea)
        return bayer_avx2_dcn(n, c, s, d, np, green0, rc, 3, 1);
    if (dcn == 3)
        return bayer_avx2_dcn(n, c, s, d, np, green0, rc, 3, 0);
    return bayer_avx2_dcn(n, c, s, d, np, green0, rc, 4, 0);
}
#endif

/* Output pixel x of row y by the per-pixel rule, into row (cn elements a pixel). */
static void bayer_one(const gip__bayer *b, char *row, int64_t x, int64_t y)
{
    const int cn = b->dcn;
    const uint32_t amax = b->u16 ? 65535 : 255;
    uint32_t v[3];
    gip__bayer_pixel(b, x, y, v);
    for (int c = 0; c < cn; c++) {
        uint32_t e = c < 3 ? v[c] : amax;
        if (b->u16)
            ((uint16_t *)row)[x * cn + c] = (uint16_t)e;
        else
            ((uint8_t *)row)[x * cn + c] = (uint8_t)e;
    }
}

#ifdef BAYER_X86
/* ---- VNG with AVX2 -------------------------------------------------------------------------
 * gip__vng_pixel() over rows of the padded image (its source rows reflected once into 16-bit
 * rows, OpenCV's seven gradient planes computed once a row into a ring of three), 16 pixels a
 * step in 16-bit lanes: every lane takes the eight gradients of its own kind of site (green or
 * not), and the sums of both kinds are formed and the lane's kind kept. The sums stay below
 * 2^12; the averages are the same single-precision products rounded half to even. */

#define VNG_L(p, o) _mm256_loadu_si256((const __m256i *)((p) + (o)))
#define VNG_AD(a, b) _mm256_abs_epi16(_mm256_sub_epi16(a, b))

/* Padded row py (source row gip__vng_reflect(py - 2, h)) as 16-bit values, columns 0 .. w + 3. */
BAYER_AVX2 static void vng_src_row(const gip__bayer *b, int64_t py, int16_t *o)
{
    const int64_t w = b->width;
    const uint8_t *r = (const uint8_t *)b->data + gip__vng_reflect(py - 2, b->height) * b->stride;
    for (int64_t x = 0;; x += 16) {
        const int64_t at = x + 16 <= w ? x : w - 16;
        _mm256_storeu_si256((__m256i *)(o + 2 + at),
                            _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + at))));
        if (at != x || x + 16 == w)
            break;
    }
    o[0] = r[2], o[1] = r[1], o[w + 2] = r[w - 2], o[w + 3] = r[w - 3];
}

/* The seven planes of gip__vng_plane() at padded row r from its rows n, c, s (above, at, below),
 * columns 1 .. w + 2. */
BAYER_AVX2 static void vng_plane_row(const int16_t *n, const int16_t *c, const int16_t *s,
                                     int16_t *const p[7], int64_t w)
{
    for (int64_t x = 1;; x += 16) {
        const int64_t at = x + 16 <= w + 3 ? x : w + 3 - 16;
        const __m256i nw = VNG_L(n, at - 1), nn = VNG_L(n, at), ne = VNG_L(n, at + 1);
        const __m256i ww = VNG_L(c, at - 1), ee = VNG_L(c, at + 1);
        const __m256i sw = VNG_L(s, at - 1), ss = VNG_L(s, at), se = VNG_L(s, at + 1);
        const __m256i d_nesw = VNG_AD(ne, sw), d_nwse = VNG_AD(nw, se);
#define VNG_ST(k, v) _mm256_storeu_si256((__m256i *)(p[k] + at), v)
        VNG_ST(0, _mm256_add_epi16(_mm256_add_epi16(VNG_AD(nw, sw), VNG_AD(ne, se)),
                                   _mm256_slli_epi16(VNG_AD(nn, ss), 1)));
        VNG_ST(1, _mm256_add_epi16(_mm256_add_epi16(VNG_AD(nw, ne), VNG_AD(sw, se)),
                                   _mm256_slli_epi16(VNG_AD(ww, ee), 1)));
        VNG_ST(2, _mm256_slli_epi16(d_nesw, 1));
        VNG_ST(3, _mm256_slli_epi16(d_nwse, 1));
        VNG_ST(4, _mm256_add_epi16(_mm256_slli_epi16(d_nesw, 1),
                                   _mm256_add_epi16(VNG_AD(nn, ww), VNG_AD(ss, ee))));
        VNG_ST(5, _mm256_add_epi16(_mm256_slli_epi16(d_nwse, 1),
                                   _mm256_add_epi16(VNG_AD(nn, ee), VNG_AD(ss, ww))));
        VNG_ST(6, _mm256_srai_epi16(
                      _mm256_add_epi16(_mm256_add_epi16(nn, ww), _mm256_add_epi16(ee, ss)), 1));
#undef VNG_ST
        if (at != x || x + 16 == w + 3)
            break;
    }
}

/* gip__vng_scaled() of 8 differences (32-bit lanes) by the lanes' direction counts n (1 .. 8)
 * and the lanes in OpenCV's vector code (vec). */
BAYER_AVX2 static inline __m256i vng_scaled8(__m256i v, __m256i n, __m256i vec)
{
    const __m256 kv = _mm256_setr_ps(0.5f / 1.0f, 0.5f / 2.0f, 0.5f / 3.0f, 0.5f / 4.0f,
                                     0.5f / 5.0f, 0.5f / 6.0f, 0.5f / 7.0f, 0.5f / 8.0f);
    const __m256 ks = _mm256_setr_ps(0.5f, 0.25f, 0.1666666666667f, 0.125f, 0.1f, 0.08333333333f,
                                     0.0714286f, 0.0625f);
    const __m256i i = _mm256_sub_epi32(n, _mm256_set1_epi32(1));
    const __m256 k = _mm256_blendv_ps(_mm256_permutevar8x32_ps(ks, i),
                                      _mm256_permutevar8x32_ps(kv, i), _mm256_castsi256_ps(vec));
    return _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(v), k));
}

/* The same for 16 16-bit lanes. */
BAYER_AVX2 static inline __m256i vng_scaled16(__m256i v, __m256i n, __m256i vlo, __m256i vhi)
{
#define VNG_W(a, h)                                                                                \
    _mm256_cvtepi16_epi32(h ? _mm256_extracti128_si256(a, 1) : _mm256_castsi256_si128(a))
    const __m256i lo = vng_scaled8(VNG_W(v, 0), VNG_W(n, 0), vlo);
    const __m256i hi = vng_scaled8(VNG_W(v, 1), VNG_W(n, 1), vhi);
#undef VNG_W
    return _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
}

/* One output row (padded row y, source row y - 2): sr[0..4] its padded rows y - 2 .. y + 2,
 * pl[0..2] the planes of rows y - 1 .. y + 1. */
BAYER_AVX2 static void vng_row_avx2(const gip__bayer *b, int64_t y, const int16_t *const sr[5],
                                    int16_t *const pl[3][7], uint8_t *d)
{
    const int64_t w = b->width, i = y - 2;
    const int bidx0 = b->blue < 0 ? 0 : 2, bidx = (i & 1) ? bidx0 ^ 2 : bidx0;
    /* the output channel of the row's other colour (X: the centre of a non-green site) */
    const int fx = b->swap ? 2 - (bidx ^ 2) : (bidx ^ 2);
    /* OpenCV's vector span of this row: [vs, ve) */
    const int64_t vs = ((int)(i & 1) ^ (int)b->green) ? 3 : 2, last = w + 4 - 10;
    const int64_t ve = last < vs ? vs : vs + ((last - vs) / GIP__VNG_VEC + 1) * GIP__VNG_VEC;
    const __m256i one = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    const __m256i lane32 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i odd = _mm256_setr_epi16(0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1, 0, -1);
    for (int64_t x = 2;; x += 16) {
        const int64_t at = x + 16 <= w + 2 ? x : w + 2 - 16;
        /* green sites: the lanes whose (i ^ j ^ green) is odd, j = at - 2 + lane */
        const __m256i gm = ((int)(i & 1) ^ (int)((at - 2) & 1) ^ (int)b->green)
                               ? _mm256_xor_si256(odd, _mm256_set1_epi16(-1))
                               : odd;
#define S(dx, dy) VNG_L(sr[2 + (dy)], at + (dx))
#define P(k, dx, dy) VNG_L(pl[1 + (dy)][k], at + (dx))
#define ADD _mm256_add_epi16
        const __m256i p0 = P(0, 0, 0), p1 = P(1, 0, 0);
        const __m256i gn = ADD(P(0, 0, -1), p0), gs = ADD(p0, P(0, 0, 1));
        const __m256i gw = ADD(P(1, -1, 0), p1), ge = ADD(p1, P(1, 1, 0));
        const __m256i p4 = P(4, 0, 0), p5 = P(5, 0, 0), p2 = P(2, 0, 0), p3 = P(3, 0, 0);
        const __m256i gne = _mm256_blendv_epi8(
            ADD(P(4, 1, -1), p4), ADD(ADD(P(2, 0, -1), P(2, 1, -1)), ADD(p2, P(2, 1, 0))), gm);
        const __m256i gsw = _mm256_blendv_epi8(
            ADD(p4, P(4, -1, 1)), ADD(ADD(p2, P(2, -1, 0)), ADD(P(2, 0, 1), P(2, -1, 1))), gm);
        const __m256i gnw = _mm256_blendv_epi8(
            ADD(P(5, -1, -1), p5), ADD(ADD(P(3, 0, -1), P(3, -1, -1)), ADD(p3, P(3, -1, 0))), gm);
        const __m256i gse = _mm256_blendv_epi8(
            ADD(p5, P(5, 1, 1)), ADD(ADD(p3, P(3, 1, 0)), ADD(P(3, 0, 1), P(3, 1, 1))), gm);
        __m256i mn = _mm256_min_epi16(
            _mm256_min_epi16(_mm256_min_epi16(gn, gs), _mm256_min_epi16(gw, ge)),
            _mm256_min_epi16(_mm256_min_epi16(gne, gsw), _mm256_min_epi16(gnw, gse)));
        __m256i mx = _mm256_max_epi16(
            _mm256_max_epi16(_mm256_max_epi16(gn, gs), _mm256_max_epi16(gw, ge)),
            _mm256_max_epi16(_mm256_max_epi16(gne, gsw), _mm256_max_epi16(gnw, gse)));
        const __m256i t = ADD(mn, _mm256_max_epi16(_mm256_srai_epi16(mx, 1), one));
        const __m256i mN = _mm256_cmpgt_epi16(t, gn), mS = _mm256_cmpgt_epi16(t, gs);
        const __m256i mW = _mm256_cmpgt_epi16(t, gw), mE = _mm256_cmpgt_epi16(t, ge);
        const __m256i mNE = _mm256_cmpgt_epi16(t, gne), mSW = _mm256_cmpgt_epi16(t, gsw);
        const __m256i mNW = _mm256_cmpgt_epi16(t, gnw), mSE = _mm256_cmpgt_epi16(t, gse);
        /* n: minus the sum of the -1 masks; na: of the four axes' */
        const __m256i na = _mm256_sub_epi16(zero, ADD(ADD(mN, mS), ADD(mW, mE)));
        const __m256i n = _mm256_sub_epi16(na, ADD(ADD(mNE, mSW), ADD(mNW, mSE)));
#define A(m, v) _mm256_and_si256(m, v)
#define TW(v) _mm256_slli_epi16(v, 1)
        const __m256i s0 = S(0, 0);
        const __m256i s_n1 = S(0, -1), s_s1 = S(0, 1), s_w1 = S(-1, 0), s_e1 = S(1, 0);
        const __m256i s_nw = S(-1, -1), s_ne = S(1, -1), s_sw = S(-1, 1), s_se = S(1, 1);
        const __m256i s_n2 = S(0, -2), s_s2 = S(0, 2), s_w2 = S(-2, 0), s_e2 = S(2, 0);
        /* the centre once a direction taken (a green site's green sum: once an axis taken) */
        const __m256i cn = _mm256_mullo_epi16(n, s0), cna = _mm256_mullo_epi16(na, s0);
        const __m256i axis = ADD(ADD(A(mN, s_n2), A(mS, s_s2)), ADD(A(mW, s_w2), A(mE, s_e2)));
        /* non-green site */
        const __m256i rs_a = ADD(ADD(cn, axis), ADD(ADD(A(mNE, S(2, -2)), A(mSW, S(-2, 2))),
                                                    ADD(A(mNW, S(-2, -2)), A(mSE, S(2, 2)))));
        const __m256i gs_a =
            ADD(TW(ADD(ADD(A(mN, s_n1), A(mS, s_s1)), ADD(A(mW, s_w1), A(mE, s_e1)))),
                ADD(ADD(A(mNE, P(6, 1, -1)), A(mSW, P(6, -1, 1))),
                    ADD(A(mNW, P(6, -1, -1)), A(mSE, P(6, 1, 1)))));
        const __m256i bs_a =
            ADD(ADD(ADD(A(mN, ADD(s_nw, s_ne)), A(mS, ADD(s_sw, s_se))),
                    ADD(A(mW, ADD(s_nw, s_sw)), A(mE, ADD(s_ne, s_se)))),
                TW(ADD(ADD(A(mNE, s_ne), A(mSW, s_sw)), ADD(A(mNW, s_nw), A(mSE, s_se)))));
        /* green site */
        const __m256i s_nw2 = S(-1, -2), s_ne2 = S(1, -2), s_sw2 = S(-1, 2), s_se2 = S(1, 2);
        const __m256i s_wn = S(-2, -1), s_ws = S(-2, 1), s_en = S(2, -1), s_es = S(2, 1);
        const __m256i rs_b = ADD(ADD(ADD(A(mN, ADD(s_nw2, s_ne2)), A(mS, ADD(s_sw2, s_se2))),
                                     TW(ADD(A(mW, s_w1), A(mE, s_e1)))),
                                 ADD(ADD(A(mNE, ADD(s_ne2, s_e1)), A(mSW, ADD(s_sw2, s_w1))),
                                     ADD(A(mNW, ADD(s_nw2, s_w1)), A(mSE, ADD(s_se2, s_e1)))));
        const __m256i gs_b =
            ADD(ADD(cna, axis),
                TW(ADD(ADD(A(mNE, s_ne), A(mSW, s_sw)), ADD(A(mNW, s_nw), A(mSE, s_se)))));
        const __m256i bs_b = ADD(ADD(TW(ADD(A(mN, s_n1), A(mS, s_s1))),
                                     ADD(A(mW, ADD(s_wn, s_ws)), A(mE, ADD(s_en, s_es)))),
                                 ADD(ADD(A(mNE, ADD(s_n1, s_en)), A(mSW, ADD(s_s1, s_ws))),
                                     ADD(A(mNW, ADD(s_wn, s_n1)), A(mSE, ADD(s_es, s_s1)))));
#undef A
#undef TW
        const __m256i d1 =
            _mm256_blendv_epi8(_mm256_sub_epi16(gs_a, rs_a), _mm256_sub_epi16(rs_b, gs_b), gm);
        const __m256i d2 =
            _mm256_blendv_epi8(_mm256_sub_epi16(bs_a, rs_a), _mm256_sub_epi16(bs_b, gs_b), gm);
        /* OpenCV's vector span: lanes with at + lane in [vs, ve) */
        const __m256i xs = _mm256_set1_epi32((int32_t)at);
        const __m256i xlo = _mm256_add_epi32(xs, lane32),
                      xhi = _mm256_add_epi32(xs, _mm256_add_epi32(lane32, _mm256_set1_epi32(8)));
        const __m256i vsv = _mm256_set1_epi32((int32_t)vs - 1),
                      vev = _mm256_set1_epi32((int32_t)ve);
        const __m256i vlo =
            _mm256_and_si256(_mm256_cmpgt_epi32(xlo, vsv), _mm256_cmpgt_epi32(vev, xlo));
        const __m256i vhi =
            _mm256_and_si256(_mm256_cmpgt_epi32(xhi, vsv), _mm256_cmpgt_epi32(vev, xhi));
        const __m256i o1 = ADD(s0, vng_scaled16(d1, n, vlo, vhi));
        const __m256i o2 = ADD(s0, vng_scaled16(d2, n, vlo, vhi));
        const __m256i gch = _mm256_blendv_epi8(o1, s0, gm), xch = _mm256_blendv_epi8(s0, o1, gm);
        const __m256i g8 = _mm256_packus_epi16(gch, xch), y8 = _mm256_packus_epi16(o2, o2);
        /* packus interleaves the halves: g8 = [g 0-7, x 0-7, g 8-15, x 8-15] */
        const __m256i gx = _mm256_permute4x64_epi64(g8, 0xD8),
                      yy = _mm256_permute4x64_epi64(y8, 0xD8);
        const __m128i G = _mm256_castsi256_si128(gx), X = _mm256_extracti128_si256(gx, 1),
                      Y = _mm256_castsi256_si128(yy);
        gip__cc_avx2_store3(d + 3 * (at - 2), fx == 0 ? X : Y, G, fx == 0 ? Y : X);
#undef S
#undef P
#undef ADD
        if (at != x || x + 16 == w + 2)
            break;
    }
}

/* VNG rows y0 .. y1 of the source with AVX2 (width 16 and more): false where the buffers could
 * not be had (the caller runs the per-pixel rows). */
static bool vng_rows_avx2(const bayer_job *j, int64_t y0, int64_t y1)
{
    const gip__bayer *b = &j->b;
    const int64_t len = b->width + 4;
    int16_t *buf = malloc(sizeof(int16_t) * (size_t)len * (5 + 3 * 7));
    if (!buf)
        return false;
    int16_t *srow[5], *prow[3][7];
    for (int k = 0; k < 5; k++)
        srow[k] = buf + k * len;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 7; k++)
            prow[r][k] = buf + (5 + r * 7 + k) * len;
    /* padded rows: source row y is padded y + 2; ring slots by padded row mod 5 and mod 3 */
    for (int64_t py = y0; py < y0 + 4; py++)
        vng_src_row(b, py, srow[py % 5]);
    for (int64_t py = y0 + 1; py < y0 + 3; py++)
        vng_plane_row(srow[(py - 1) % 5], srow[py % 5], srow[(py + 1) % 5], prow[py % 3], b->width);
    for (int64_t y = y0; y < y1; y++) {
        const int64_t py = y + 2;
        vng_src_row(b, py + 2, srow[(py + 2) % 5]);
        vng_plane_row(srow[py % 5], srow[(py + 1) % 5], srow[(py + 2) % 5], prow[(py + 1) % 3],
                      b->width);
        const int16_t *const sr[5] = {srow[(py - 2) % 5], srow[(py - 1) % 5], srow[py % 5],
                                      srow[(py + 1) % 5], srow[(py + 2) % 5]};
        int16_t *const pl[3][7] = {
            {prow[(py - 1) % 3][0], prow[(py - 1) % 3][1], prow[(py - 1) % 3][2],
             prow[(py - 1) % 3][3], prow[(py - 1) % 3][4], prow[(py - 1) % 3][5],
             prow[(py - 1) % 3][6]},
            {prow[py % 3][0], prow[py % 3][1], prow[py % 3][2], prow[py % 3][3], prow[py % 3][4],
             prow[py % 3][5], prow[py % 3][6]},
            {prow[(py + 1) % 3][0], prow[(py + 1) % 3][1], prow[(py + 1) % 3][2],
             prow[(py + 1) % 3][3], prow[(py + 1) % 3][4], prow[(py + 1) % 3][5],
             prow[(py + 1) % 3][6]}};
        vng_row_avx2(b, py, sr, pl, (uint8_t *)j->dst->data + y * j->dst->stride);
    }
    free(buf);
    return true;
}
#undef VNG_L
#undef VNG_AD
#endif

static void bayer_rows(void *arg, int64_t y0, int64_t y1)
{
    const bayer_job *j = arg;
    const gip__bayer *b = &j->b;
    const int64_t w = b->width, h = b->height;
    const int cn = b->dcn;
    const size_t es = b->u16 ? 2 : 1;
    const bool rows = b->method < 2 && w > 2 && h > 2;
#ifdef BAYER_X86
    if (b->method == 2 && !b->u16 && w >= 16 && h >= 8 && gip__cc_simd_active() &&
        vng_rows_avx2(j, y0, y1))
        return;
#endif
    for (int64_t y = y0; y < y1; y++) {
        char *row = (char *)j->dst->data + y * j->dst->stride;
        if (!rows) {
            for (int64_t x = 0; x < w; x++)
                bayer_one(b, row, x, y);
            continue;
        }
        /* The outer rows and columns repeat their inner neighbours: row y computes row yc, and
         * the outer columns are copies. OpenCV walks rows from 1, the colours flipping each. */
        const int64_t yc = y < 1 ? 1 : y > h - 2 ? h - 2 : y, i = yc - 1;
        const int blue = (i & 1) ? -b->blue : b->blue;
        const int green0 = (int)((i & 1) ^ (int64_t)b->green);
        const int rc = 1 + (b->swap ? -blue : blue);
        const uint32_t rco = blue < 0 ? 4899 : 1868, bco = blue < 0 ? 1868 : 4899;
        const char *c = (const char *)b->data + yc * b->stride;
        const int64_t np = (w - 2) / 2;
        if (b->u16)
            bayer_row_u16((const uint16_t *)(c - b->stride), (const uint16_t *)c,
                          (const uint16_t *)(c + b->stride), (uint16_t *)row, np, green0, rc, cn,
                          b->method, rco, bco);
        else {
            const uint8_t *n8 = (const uint8_t *)(c - b->stride), *c8 = (const uint8_t *)c,
                          *s8 = (const uint8_t *)(c + b->stride);
            uint8_t *d8 = (uint8_t *)row;
            int64_t k = 0;
#ifdef BAYER_X86
            if (cn > 1 && gip__cc_simd_active())
                k = bayer_avx2(n8, c8, s8, d8, np, green0, rc, cn, b->method);
#endif
            bayer_row_u8(n8 + 2 * k, c8 + 2 * k, s8 + 2 * k, d8 + 2 * k * cn, np - k, green0, rc,
                         cn, b->method, rco, bco);
        }
        if ((w - 2) % 2)
            bayer_one(b, row, w - 2, yc);
        memcpy(row, row + cn * es, cn * es);
        memcpy(row + (w - 1) * cn * es, row + (w - 2) * cn * es, cn * es);
    }
}

static gip_status bayer_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                            gip_bayer_pattern pattern, int32_t bgr, int32_t method, const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((int)pattern < GIP_BAYER_BG || (int)pattern > GIP_BAYER_GR)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: pattern %d is not a gip_bayer_pattern (GIP_BAYER_BG 0 .. "
                          "GIP_BAYER_GR 3)",
                          op, (int)pattern);
    if ((src->dtype != GIP_U8 && src->dtype != GIP_U16) || src->channels != 1 ||
        dst->dtype != src->dtype)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must be a 1-channel u8 or u16 mosaic and dst of its dtype, got "
                          "%d-channel %s into %s",
                          op, (int)src->channels, gip_dtype_name(src->dtype),
                          gip_dtype_name(dst->dtype));
    if (method && dst->channels != 3)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s demosaicing gives 3 channels (as OpenCV's %s codes), got a "
                          "%d-channel dst",
                          op, method == 1 ? "edge-aware" : "VNG", method == 1 ? "_EA" : "_VNG",
                          (int)dst->channels);
    if (method == 2 && src->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: VNG demosaicing takes u8 mosaics (as OpenCV), got %s", op,
                          gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    if (on_device) {
        size_t es = gip_dtype_size(src->dtype);
        if ((uintptr_t)src->data % es || src->stride % (int64_t)es || (uintptr_t)dst->data % es ||
            dst->stride % (int64_t)es)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: device images need data and stride aligned to the element "
                              "size",
                              op);
    }
    bayer_job j = {{src->data, src->stride, src->width, src->height, src->dtype == GIP_U16,
                    pattern == GIP_BAYER_BG || pattern == GIP_BAYER_GB ? -1 : 1,
                    pattern == GIP_BAYER_GB || pattern == GIP_BAYER_GR, dst->channels, !bgr,
                    method},
                   dst};
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__bayer_cuda(ctx, &j.b, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    gip__parallel_for(ctx, src->height, src->width >= 8192 ? 1 : 8192 / src->width, bayer_rows, &j);
    return GIP_OK;
}

gip_status gip_bayer_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                            gip_bayer_pattern pattern, int32_t bgr)
{
    return bayer_run(ctx, src, dst, pattern, bgr, 0, "gip_bayer_to_rgb");
}

gip_status gip_bayer_to_rgb_ea(gip_context *ctx, const gip_image *src, gip_image *dst,
                               gip_bayer_pattern pattern, int32_t bgr)
{
    return bayer_run(ctx, src, dst, pattern, bgr, 1, "gip_bayer_to_rgb_ea");
}

gip_status gip_bayer_to_rgb_vng(gip_context *ctx, const gip_image *src, gip_image *dst,
                                gip_bayer_pattern pattern, int32_t bgr)
{
    return bayer_run(ctx, src, dst, pattern, bgr, 2, "gip_bayer_to_rgb_vng");
}
