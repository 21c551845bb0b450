/* SPDX-License-Identifier: MIT */
/* gip_bayer_to_rgb: argument checks and the CPU backend (rows on gip's thread pool);
 * cvt_bayer_cuda.cu is the CUDA one. */
#include <string.h>

#include "color/cvt_bayer.h"
#include "color/cvt_color_cpu.h"
#include "internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define BAYER_X86 1
#include <immintrin.h>
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

static void bayer_rows(void *arg, int64_t y0, int64_t y1)
{
    const bayer_job *j = arg;
    const gip__bayer *b = &j->b;
    const int64_t w = b->width, h = b->height;
    const int cn = b->dcn;
    const size_t es = b->u16 ? 2 : 1;
    const bool rows = b->method < 2 && w > 2 && h > 2;
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
