/* SPDX-License-Identifier: MIT */
/* The checks and the CPU backend of the geometry family's whole-pixel moves (pixel_map.h). The
 * pixels move as typed elements of their size (1, 2, 3, 4, 6, 8, 12 or 16 bytes), chosen once a
 * call: quarter turns and the transpose in square tiles (a tile's source rows stay in cache while
 * its destination rows are written), a half turn as reversed rows, the border's interior as one
 * copy a row with only the margins looked up. Each destination pixel gets the bytes
 * gip__pixmap_src() names, as the CUDA kernel gives it. */
#include <stdlib.h>
#include <string.h>

#include "ops/geometry/pixel_map.h"
#include "ops/op_check.h"
#include "tuning.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PM_CLONES
#endif

/* The pixel types: 2-, 4- and 8-byte integers and structures of 3, 6, 12 and 16 bytes, all with
 * byte alignment and allowed to alias (a pixel is any dtype's bytes, at any address): fixed-size
 * moves, no calls, no alignment assumed. */
typedef uint16_t pm_u16 __attribute__((aligned(1), may_alias));
typedef uint32_t pm_u32 __attribute__((aligned(1), may_alias));
typedef uint64_t pm_u64 __attribute__((aligned(1), may_alias));
typedef struct __attribute__((packed, may_alias)) {
    uint8_t b[3];
} pm_px3;
typedef struct __attribute__((packed, may_alias)) {
    uint16_t b[3];
} pm_px6;
typedef struct __attribute__((packed, may_alias)) {
    uint32_t b[3];
} pm_px12;
typedef struct __attribute__((packed, may_alias)) {
    uint64_t b[2];
} pm_px16;

/* Rows [y0, y1) of a quarter turn or transpose: dst(x, y) = src column c0 + cs * y of source row
 * r0 + rs * x, written in tiles of PM_TILE x PM_TILE pixels. */
#define PM_TILE 32
#define PM_TURN(T)                                                                                 \
    static void pm_turn_##T(const uint8_t *s, int64_t sst, uint8_t *d, int64_t dst_, int64_t w,    \
                            int64_t y0, int64_t y1, int64_t r0, int64_t rs, int64_t c0,            \
                            int64_t cs)                                                            \
    {                                                                                              \
        for (int64_t yb = y0; yb < y1; yb += PM_TILE) {                                            \
            const int64_t ye = yb + PM_TILE < y1 ? yb + PM_TILE : y1;                              \
            for (int64_t xb = 0; xb < w; xb += PM_TILE) {                                          \
                const int64_t xe = xb + PM_TILE < w ? xb + PM_TILE : w;                            \
                const T *rows[PM_TILE];                                                            \
                for (int64_t x = xb; x < xe; x++)                                                  \
                    rows[x - xb] = (const T *)(s + (r0 + rs * x) * sst);                           \
                for (int64_t y = yb; y < ye; y++) {                                                \
                    T *restrict dr = (T *)(d + y * dst_) + xb;                                     \
                    const int64_t c = c0 + cs * y;                                                 \
                    for (int64_t i = 0; i < xe - xb; i++)                                          \
                        dr[i] = rows[i][c];                                                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* One row of w pixels in reversed order. */
#define PM_REV(T)                                                                                  \
    static void pm_rev_##T(const uint8_t *s, uint8_t *d, int64_t w)                                \
    {                                                                                              \
        const T *restrict sp = (const T *)s;                                                       \
        T *restrict dp = (T *)d;                                                                   \
        for (int64_t x = 0; x < w; x++)                                                            \
            dp[x] = sp[w - 1 - x];                                                                 \
    }

#define PM_TYPES(X)                                                                                \
    X(uint8_t) X(pm_u16) X(pm_px3) X(pm_u32) X(pm_px6) X(pm_u64) X(pm_px12) X(pm_px16)
PM_TYPES(PM_TURN)
PM_REV(pm_u16)
PM_REV(pm_px3)
PM_REV(pm_u32)
PM_REV(pm_px6)
PM_REV(pm_u64)
PM_REV(pm_px12)
PM_REV(pm_px16)

/* The 8-bit reversal, the commonest, compiled for AVX2 too (a byte shuffle a vector). */
PM_CLONES static void pm_rev_u8_fast(const uint8_t *restrict s, uint8_t *restrict d, int64_t w)
{
    for (int64_t x = 0; x < w; x++)
        d[x] = s[w - 1 - x];
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <tmmintrin.h>
#define PM_HAVE_SSSE3 1
/* 3-byte pixels reversed 5 at a time: 16 bytes loaded from one byte before the 5 source pixels
 * (so nothing past the row is read), shuffled, stored as 16 bytes whose last byte is the next
 * pixel's first (written again by the next step or the tail). */
__attribute__((target("ssse3"))) static void pm_rev3_ssse3(const uint8_t *s, uint8_t *d, int64_t w)
{
    const __m128i m = _mm_setr_epi8(13, 14, 15, 10, 11, 12, 7, 8, 9, 4, 5, 6, 1, 2, 3, 0);
    int64_t x = 0;
    for (; x + 5 < w; x += 5) /* source pixels w-5-x .. w-1-x, w-5-x >= 1 */
        _mm_storeu_si128(
            (__m128i *)(d + 3 * x),
            _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 3 * (w - 5 - x) - 1)), m));
    for (; x < w; x++)
        memcpy(d + 3 * x, s + 3 * (w - 1 - x), 3);
}
#endif

void gip__pixmap_reverse_row(const void *src, void *dst, int64_t w, int32_t px)
{
    const uint8_t *s = src;
    uint8_t *d = dst;
    switch (px) {
    case 1:
        pm_rev_u8_fast(s, d, w);
        return;
    case 2:
        pm_rev_pm_u16(s, d, w);
        return;
    case 3:
#ifdef PM_HAVE_SSSE3
        if (gip__simd() & GIP__SIMD_SSSE3) {
            pm_rev3_ssse3(s, d, w);
            return;
        }
#endif
        pm_rev_pm_px3(s, d, w);
        return;
    case 4:
        pm_rev_pm_u32(s, d, w);
        return;
    case 6:
        pm_rev_pm_px6(s, d, w);
        return;
    case 8:
        pm_rev_pm_u64(s, d, w);
        return;
    case 12:
        pm_rev_pm_px12(s, d, w);
        return;
    case 16:
        pm_rev_pm_px16(s, d, w);
        return;
    default:
        for (int64_t x = 0; x < w; x++)
            memcpy(d + x * px, s + (w - 1 - x) * px, (size_t)px);
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* 1-, 3- and 4-byte pixels: whole 16 x 16 (bytes) or 4 x 4 (3- and 4-byte pixels) blocks
 * transposed in registers, the output in strips of PM_STRIP bytes of each row (a strip's source
 * rows are read along, its destination rows written a cache line at a time), the blocks left at
 * the strip's or the range's edge as pm_turn_*. Block (x, y): dst(x + i, y + j) = source row
 * r0 + rs (x + i), column c0 + cs (y + j); with cs = -1 the block's columns are read from the
 * lowest one up and stored in reverse row order. */
#define PM_STRIP 64

/* B x B blocks of pixels of px bytes: LOAD(p) reads a block row, TRANSPOSE(a, v) transposes,
 * STORE(p, v) writes a block row. */
#define PM_TURN_BLOCKS(NAME, B, PX, ELEM, LOAD, TRANSPOSE, STORE)                                  \
    static void NAME(const uint8_t *s, int64_t sst, uint8_t *d, int64_t dst_, int64_t w,           \
                     int64_t y0, int64_t y1, int64_t r0, int64_t rs, int64_t c0, int64_t cs)       \
    {                                                                                              \
        const int64_t yb1 = y0 + (y1 - y0) / B * B; /* rows in whole blocks */                     \
        for (int64_t xs = 0; xs < w; xs += PM_STRIP / PX) {                                        \
            const int64_t xe = xs + PM_STRIP / PX < w ? xs + PM_STRIP / PX : w;                    \
            const int64_t xb1 = xs + (xe - xs) / B * B;                                            \
            for (int64_t y = y0; y < yb1; y += B) {                                                \
                const int64_t cmin = cs > 0 ? c0 + y : c0 - (y + B - 1);                           \
                for (int64_t x = xs; x < xb1; x += B) {                                            \
                    __m128i a[B], v[B];                                                            \
                    for (int i = 0; i < B; i++)                                                    \
                        a[i] = LOAD(s + (r0 + rs * (x + i)) * sst + cmin * PX);                    \
                    TRANSPOSE(a, v);                                                               \
                    for (int k = 0; k < B; k++)                                                    \
                        STORE(d + (y + (cs > 0 ? k : B - 1 - k)) * dst_ + x * PX, v[k]);           \
                }                                                                                  \
                for (int64_t yy = y; yy < y + B; yy++) /* the strip's last columns */              \
                    for (int64_t x = xb1; x < xe; x++)                                             \
                        memcpy(d + yy * dst_ + x * PX,                                             \
                               s + (r0 + rs * x) * sst + (c0 + cs * yy) * PX, PX);                 \
            }                                                                                      \
        }                                                                                          \
        if (yb1 < y1)                                                                              \
            ELEM(s, sst, d, dst_, w, yb1, y1, r0, rs, c0, cs);                                     \
    }

/* 16 x 16 bytes: four rounds of interleaving register i with register i + 8 (a perfect
 * shuffle) leave register k holding column k. */
#define PM_T16(a, v)                                                                               \
    do {                                                                                           \
        __m128i x_[16], y_[16];                                                                    \
        for (int i = 0; i < 16; i++)                                                               \
            x_[i] = a[i];                                                                          \
        for (int r = 0; r < 4; r++) {                                                              \
            for (int i = 0; i < 8; i++) {                                                          \
                y_[2 * i] = _mm_unpacklo_epi8(x_[i], x_[i + 8]);                                   \
                y_[2 * i + 1] = _mm_unpackhi_epi8(x_[i], x_[i + 8]);                               \
            }                                                                                      \
            for (int i = 0; i < 16; i++)                                                           \
                x_[i] = y_[i];                                                                     \
        }                                                                                          \
        for (int k = 0; k < 16; k++)                                                               \
            v[k] = x_[k];                                                                          \
    } while (0)
#define PM_LOAD16(p) _mm_loadu_si128((const __m128i *)(p))
#define PM_STORE16(p, v) _mm_storeu_si128((__m128i *)(p), v)
#define PM_T4(a, v)                                                                                \
    do {                                                                                           \
        const __m128i t0 = _mm_unpacklo_epi32(a[0], a[1]), t1 = _mm_unpacklo_epi32(a[2], a[3]),    \
                      t2 = _mm_unpackhi_epi32(a[0], a[1]), t3 = _mm_unpackhi_epi32(a[2], a[3]);    \
        v[0] = _mm_unpacklo_epi64(t0, t1);                                                         \
        v[1] = _mm_unpackhi_epi64(t0, t1);                                                         \
        v[2] = _mm_unpacklo_epi64(t2, t3);                                                         \
        v[3] = _mm_unpackhi_epi64(t2, t3);                                                         \
    } while (0)
PM_TURN_BLOCKS(pm_turn_u8_sse, 16, 1, pm_turn_uint8_t, PM_LOAD16, PM_T16, PM_STORE16)
PM_TURN_BLOCKS(pm_turn_u32_sse, 4, 4, pm_turn_pm_u32, PM_LOAD16, PM_T4, PM_STORE16)

#if defined(__GNUC__) && !defined(__clang__)
#include <tmmintrin.h>
/* 3-byte pixels: a block row's 12 bytes read exactly (8 + 4), spread to 4-byte lanes, transposed
 * as 4-byte pixels, packed back and written exactly. */
#define PM_LOAD12(p)                                                                               \
    _mm_shuffle_epi8(_mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(p)),                     \
                                        _mm_cvtsi32_si128(pm_load32((p) + 8))),                    \
                     _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1))
#define PM_STORE12(p, v)                                                                           \
    do {                                                                                           \
        const __m128i c = _mm_shuffle_epi8(                                                        \
            v, _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));             \
        _mm_storel_epi64((__m128i *)(p), c);                                                       \
        pm_store32((p) + 8, _mm_cvtsi128_si32(_mm_srli_si128(c, 8)));                              \
    } while (0)
static inline int32_t pm_load32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline void pm_store32(uint8_t *p, int32_t v)
{
    memcpy(p, &v, 4);
}
__attribute__((target("ssse3")))
PM_TURN_BLOCKS(pm_turn_u24_ssse3, 4, 3, pm_turn_pm_px3, PM_LOAD12, PM_T4, PM_STORE12)
#define PM_HAVE_SSSE3_TURN 1
#endif
#define PM_HAVE_SSE 1
#endif

    static void pm_turn(int32_t px, const uint8_t *s, int64_t sst, uint8_t *d, int64_t dst_,
                        int64_t w, int64_t y0, int64_t y1, int64_t r0, int64_t rs, int64_t c0,
                        int64_t cs)
{
#define PM_CALL(T) pm_turn_##T(s, sst, d, dst_, w, y0, y1, r0, rs, c0, cs)
    switch (px) {
    case 1:
#ifdef PM_HAVE_SSE
        pm_turn_u8_sse(s, sst, d, dst_, w, y0, y1, r0, rs, c0, cs);
#else
        PM_CALL(uint8_t);
#endif
        return;
    case 2:
        PM_CALL(pm_u16);
        return;
    case 3:
#ifdef PM_HAVE_SSSE3_TURN
        if (gip__simd() & GIP__SIMD_SSSE3) {
            pm_turn_u24_ssse3(s, sst, d, dst_, w, y0, y1, r0, rs, c0, cs);
            return;
        }
#endif
        PM_CALL(pm_px3);
        return;
    case 4:
#ifdef PM_HAVE_SSE
        pm_turn_u32_sse(s, sst, d, dst_, w, y0, y1, r0, rs, c0, cs);
#else
        PM_CALL(pm_u32);
#endif
        return;
    case 6:
        PM_CALL(pm_px6);
        return;
    case 8:
        PM_CALL(pm_u64);
        return;
    case 12:
        PM_CALL(pm_px12);
        return;
    case 16:
        PM_CALL(pm_px16);
        return;
    default:
        for (int64_t y = y0; y < y1; y++)
            for (int64_t x = 0; x < w; x++)
                memcpy(d + y * dst_ + x * px, s + (r0 + rs * x) * sst + (c0 + cs * y) * px,
                       (size_t)px);
    }
#undef PM_CALL
}

/* n copies of the pixel v. */
static void pm_fill(uint8_t *d, const uint8_t *v, int64_t n, size_t px)
{
    if (n <= 0)
        return;
    memcpy(d, v, px);
    int64_t have = 1; /* doubling copies */
    while (have < n) {
        const int64_t k = have < n - have ? have : n - have;
        memcpy(d + have * (int64_t)px, d, (size_t)k * px);
        have += k;
    }
}

typedef struct pm_job {
    const gip__pixmap *m;
    const gip_image *src;
    gip_image *dst;
} pm_job;

/* Margin pixels [x0, x1) of a border row whose source row is s. */
static void pm_margin(const gip__pixmap *m, const uint8_t *s, uint8_t *d, int64_t x0, int64_t x1)
{
    const size_t px = (size_t)m->px;
    for (int64_t x = x0; x < x1; x++) {
        const int64_t sx = gip__border_index(x - m->ox, m->sw, (gip_border)m->border);
        memcpy(d + x * (int64_t)px, sx >= 0 ? s + sx * (int64_t)px : m->value, px);
    }
}

/* Margin pixels of a border row from a column map (map[i]: the source column of pixel i, -1 for
 * the constant value), typed. */
#define PM_MARGIN(T)                                                                               \
    static void pm_margin_##T(const int32_t *map, int64_t n, const uint8_t *s, const uint8_t *val, \
                              uint8_t *d)                                                          \
    {                                                                                              \
        const T *sp = (const T *)s;                                                                \
        T *dp = (T *)d, v;                                                                         \
        memcpy(&v, val, sizeof v);                                                                 \
        for (int64_t i = 0; i < n; i++)                                                            \
            dp[i] = map[i] >= 0 ? sp[map[i]] : v;                                                  \
    }
PM_TYPES(PM_MARGIN)

static void pm_margin_map(int32_t px, const int32_t *map, int64_t n, const uint8_t *s,
                          const uint8_t *val, uint8_t *d)
{
#define PM_M(T) pm_margin_##T(map, n, s, val, d)
    switch (px) {
    case 1:
        PM_M(uint8_t);
        return;
    case 2:
        PM_M(pm_u16);
        return;
    case 3:
        PM_M(pm_px3);
        return;
    case 4:
        PM_M(pm_u32);
        return;
    case 6:
        PM_M(pm_px6);
        return;
    case 8:
        PM_M(pm_u64);
        return;
    case 12:
        PM_M(pm_px12);
        return;
    case 16:
        PM_M(pm_px16);
        return;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * px, map[i] >= 0 ? s + (int64_t)map[i] * px : val, (size_t)px);
    }
#undef PM_M
}

static void pm_rows(void *arg, int64_t y0, int64_t y1)
{
    const pm_job *j = arg;
    const gip__pixmap *m = j->m;
    const size_t px = (size_t)m->px;
    const uint8_t *s = j->src->data;
    uint8_t *d = j->dst->data;
    const int64_t sst = j->src->stride, dst_ = j->dst->stride, w = j->dst->width;
    switch (m->mode) {
    case GIP__PM_TRANSPOSE: /* dst(x, y) = src(y, x) */
        pm_turn(m->px, s, sst, d, dst_, w, y0, y1, 0, 1, 0, 1);
        return;
    case GIP__PM_ROT90CW: /* src(y, h-1-x) */
        pm_turn(m->px, s, sst, d, dst_, w, y0, y1, m->sh - 1, -1, 0, 1);
        return;
    case GIP__PM_ROT90CCW: /* src(w-1-y, x) */
        pm_turn(m->px, s, sst, d, dst_, w, y0, y1, 0, 1, m->sw - 1, -1);
        return;
    case GIP__PM_ROT180:
        for (int64_t y = y0; y < y1; y++)
            gip__pixmap_reverse_row(s + (m->sh - 1 - y) * sst, d + y * dst_, w, m->px);
        return;
    case GIP__PM_BORDER: {
        /* the margins' source columns, once (left then right); looked up per pixel without it */
        const int64_t nl = m->ox, nr = w - m->ox - m->sw;
        int32_t *map = nl + nr > 0 ? malloc((size_t)(nl + nr) * sizeof *map) : NULL;
        for (int64_t i = 0; map && i < nl + nr; i++)
            map[i] = (int32_t)gip__border_index((i < nl ? i : m->sw + i) - m->ox, m->sw,
                                                (gip_border)m->border);
        for (int64_t y = y0; y < y1; y++) {
            uint8_t *dr = d + y * dst_;
            const int64_t sy = gip__border_index(y - m->oy, m->sh, (gip_border)m->border);
            if (sy < 0) { /* a constant row */
                pm_fill(dr, m->value, w, px);
                continue;
            }
            const uint8_t *sr = s + sy * sst;
            if (map) {
                pm_margin_map(m->px, map, nl, sr, m->value, dr);
                pm_margin_map(m->px, map + nl, nr, sr, m->value,
                              dr + (m->ox + m->sw) * (int64_t)px);
            } else {
                pm_margin(m, sr, dr, 0, m->ox);
                pm_margin(m, sr, dr, m->ox + m->sw, w);
            }
            memcpy(dr + m->ox * (int64_t)px, sr, (size_t)m->sw * px);
        }
        free(map);
        return;
    }
    default: /* GIP__PM_CROP: rows of the source, whole */
        for (int64_t y = y0; y < y1; y++)
            memcpy(d + y * dst_, s + (y + m->oy) * sst + m->ox * (int64_t)px, (size_t)w * px);
    }
}

gip__pixmap gip__pixmap_of(const gip_image *src, int32_t mode)
{
    gip__pixmap m = {0};
    m.mode = mode;
    if (src) {
        m.sw = src->width;
        m.sh = src->height;
        m.px = src->channels * (int32_t)gip_dtype_size(src->dtype);
    }
    return m;
}

gip_status gip__pixmap_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip__pixmap *m, const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_same_type(ctx, src, dst, op)))
        return st;
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap; it needs a separate dst",
                          op);
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__pixmap_cuda(ctx, src, dst, m));
    pm_job j = {m, src, dst};
    gip__parallel_for(ctx, dst->height, 16, pm_rows, &j);
    return GIP_OK;
}
