/* SPDX-License-Identifier: MIT */
/* The point operations' shared machinery on the host: the u8 tables, the dispatch to a backend,
 * and the CPU loops (row bands on gip's thread pool). */
#include <string.h>

#include "engine/lut/lut_u8.h"
#include "tuning.h"

#include "pointwise.h"

/* Rounds and saturates v into an element of dtype dt at d (OpenCV's saturate_cast). */
static inline void store(gip_dtype dt, void *d, double v)
{
    switch (dt) {
    case GIP_U8:
        *(uint8_t *)d = gip__pw_u8(v);
        return;
    case GIP_U16:
        *(uint16_t *)d = gip__pw_u16(v);
        return;
    case GIP_S16:
        *(int16_t *)d = gip__pw_s16(v);
        return;
    default:
        *(float *)d = (float)v;
        return;
    }
}

static inline float load(gip_dtype dt, const void *s)
{
    switch (dt) {
    case GIP_U8:
        return (float)*(const uint8_t *)s;
    case GIP_U16:
        return (float)*(const uint16_t *)s;
    case GIP_S16:
        return (float)*(const int16_t *)s;
    default:
        return *(const float *)s;
    }
}

gip_status gip__pw_check(gip_context *ctx, const gip_image *src, const gip_image *dst,
                         const char *op, unsigned dtypes, int ddt, bool one_channel, bool in_place,
                         bool *on_device)
{
    gip_status st = gip__check_unary(ctx, src, dst, op, on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, dtypes, op, "src")))
        return st;
    gip_dtype want = ddt < 0 ? src->dtype : (gip_dtype)ddt;
    int32_t wc = one_channel ? 1 : src->channels;
    if (dst->dtype != want || dst->channels != wc)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but must be %d-channel %s for this src", op,
                          (int)dst->channels, gip_dtype_name(dst->dtype), (int)wc,
                          gip_dtype_name(want));
    bool same = gip__images_same(src, dst);
    if (gip__images_overlap(src, dst) && !(same && in_place))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          in_place ? "%s: src and dst overlap; pass the same view for in-place, "
                                     "or disjoint images"
                                   : "%s: dst must not overlap src",
                          op);
    return GIP_OK;
}

gip_status gip__pw_run(gip_context *ctx, const gip_image *src, const gip_image *mask,
                       gip_image *dst, gip__pw *p, bool on_device)
{
    if (src->dtype == GIP_U8 && dst->dtype == GIP_U8 && p->kind != GIP__PW_LUT) {
        for (int c = 0; c < src->channels; c++)
            for (int v = 0; v < 256; v++)
                p->table[c][v] = gip__pw_u8(gip__pw_eval(p, c, (float)v));
        p->kind = GIP__PW_LUT;
    }
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__pw_cuda(ctx, src, mask, dst, p);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "gip was built without CUDA");
#endif
    }
    gip__pw_cpu(ctx, src, mask, dst, p);
    return GIP_OK;
}

gip_status gip__pw_run2(gip_context *ctx, const gip_image *src, const gip_image *src2,
                        const gip_image *mask, gip_image *dst, const gip__pw *p, bool on_device)
{
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__pw2_cuda(ctx, src, src2, mask, dst, p);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "gip was built without CUDA");
#endif
    }
    gip__pw2_cpu(ctx, src, src2, mask, dst, p);
    return GIP_OK;
}

gip_status gip__pw_in_range(gip_context *ctx, const gip_image *src, gip_image *dst, const float *lo,
                            const float *hi, bool on_device)
{
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__pw_in_range_cuda(ctx, src, dst, lo, hi);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "gip was built without CUDA");
#endif
    }
    gip__pw_in_range_cpu(ctx, src, dst, lo, hi);
    return GIP_OK;
}

/* ---- CPU loops ----------------------------------------------------------------------------- */

/* ---- u8 tables of one step --------------------------------------------------------------------
 * The tables of u8 thresholds (every rule) are one step: v > t ? hi : lo, where lo and hi are
 * each a constant or v itself. Such a table runs as a compare and a blend, 32 bytes a step with
 * AVX2: on this memory-bound pass 32-byte accesses measured faster than the table engine's
 * 64-byte permutes (3840x2160 u8c1 binary 0.25 -> 0.21 ms on one thread, cv2 0.21). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

typedef struct pw_step {
    int t;            /* 0 .. 255: v > t takes hi */
    int lo_id, hi_id; /* the side is v itself */
    uint8_t lo, hi;   /* else its constant */
} pw_step;

/* Whether table is one step, and which. */
static bool pw_step_of(const uint8_t *tab, pw_step *s)
{
    int pc = 1, pi = 0, sc = 1, si = 0;
    while (pc < 256 && tab[pc] == tab[0])
        pc++;
    while (pi < 256 && tab[pi] == pi)
        pi++;
    while (sc < 256 && tab[255 - sc] == tab[255])
        sc++;
    while (si < 256 && tab[255 - si] == 255 - si)
        si++;
    for (int k = 0; k < 4; k++) {
        const int lo_id = k & 1, hi_id = k >> 1, p = lo_id ? pi : pc, q = hi_id ? si : sc;
        /* the first p entries are the low side's, the last q the high side's */
        if (p >= 1 && p + q >= 256) {
            *s = (pw_step){p - 1, lo_id, hi_id, tab[0], tab[255]};
            return true;
        }
    }
    return false;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
pw_step_span(const pw_step *st, const uint8_t *s, uint8_t *d, int64_t n, int lo_id, int hi_id)
{
    const __m256i x80 = _mm256_set1_epi8((char)0x80), tv = _mm256_set1_epi8((char)(st->t ^ 0x80));
    const __m256i lo = _mm256_set1_epi8((char)st->lo), hi = _mm256_set1_epi8((char)st->hi);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));
        const __m256i gt = _mm256_cmpgt_epi8(_mm256_xor_si256(v, x80), tv);
        _mm256_storeu_si256((__m256i *)(d + i),
                            _mm256_blendv_epi8(lo_id ? v : lo, hi_id ? v : hi, gt));
    }
    for (; i < n; i++)
        d[i] = s[i] > st->t ? (hi_id ? s[i] : st->hi) : (lo_id ? s[i] : st->lo);
}

/* n bytes of s through the step into d (d may be s). */
__attribute__((target("avx2"))) static void pw_step_row(const pw_step *st, const uint8_t *s,
                                                        uint8_t *d, int64_t n)
{
    switch (st->lo_id + 2 * st->hi_id) {
    case 0:
        pw_step_span(st, s, d, n, 0, 0);
        break;
    case 1:
        pw_step_span(st, s, d, n, 1, 0);
        break;
    case 2:
        pw_step_span(st, s, d, n, 0, 1);
        break;
    default:
        pw_step_span(st, s, d, n, 1, 1);
        break;
    }
}

static bool pw_step_ok(void)
{
    return (gip__simd() & GIP__SIMD_AVX2) != 0;
}
#endif

typedef struct pw_job {
    const gip_image *src, *src2, *mask;
    gip_image *dst;
    const gip__pw *p;
    const float *lo, *hi;
    bool stream; /* dst spans GIP__STREAM_BYTES or more and is not src */
    bool step;   /* u8 tables of one step, the same for every channel: st */
    pw_step st;
} pw_job;

static void unary_rows(void *arg, int64_t y0, int64_t y1)
{
    const pw_job *j = arg;
    const gip_image *s = j->src;
    gip_image *d = j->dst;
    const int cn = s->channels;
    const int64_t n = s->width * cn;
    const size_t ses = gip_dtype_size(s->dtype), des = gip_dtype_size(d->dtype);
    if (!j->mask && j->p->kind != GIP__PW_LUT &&
        gip__pw_rows_fast(j->p, s->dtype, d->dtype, cn, (const char *)s->data + y0 * s->stride,
                          s->stride, (char *)d->data + y0 * d->stride, d->stride, n, y1 - y0,
                          j->stream))
        return;
    for (int64_t y = y0; y < y1; y++) {
        const char *sr = (const char *)s->data + y * s->stride;
        char *dr = (char *)d->data + y * d->stride;
        const uint8_t *mr = j->mask ? (const uint8_t *)j->mask->data + y * j->mask->stride : NULL;
        if (mr) {
            for (int64_t x = 0; x < s->width; x++)
                for (int c = 0; c < cn; c++) {
                    size_t i = (size_t)(x * cn + c);
                    if (!mr[x])
                        memset(dr + i * des, 0, des);
                    else if (j->p->kind == GIP__PW_LUT)
                        ((uint8_t *)dr)[i] = j->p->table[c][((const uint8_t *)sr)[i]];
                    else
                        store(d->dtype, dr + i * des,
                              gip__pw_eval(j->p, c, load(s->dtype, sr + i * ses)));
                }
            continue;
        }
#if defined(__x86_64__) && defined(__GNUC__)
        if (j->step) {
            const bool one = s->stride == n && d->stride == n;
            pw_step_row(&j->st, (const uint8_t *)sr, (uint8_t *)dr, one ? n * (y1 - y0) : n);
            if (one)
                break;
            continue;
        }
#endif
        if (j->p->kind == GIP__PW_LUT) { /* u8 into u8 */
            const uint8_t *tables[4] = {j->p->table[0], j->p->table[1], j->p->table[2],
                                        j->p->table[3]};
            /* rows without gaps between them on both sides: the band as one row (the table
             * pass's start and end cost a fifth of a 3840-byte row) */
            const bool one = s->stride == n && d->stride == n;
            gip__lut_u8_row_cn_stream(tables, cn, (const uint8_t *)sr, (uint8_t *)dr,
                                      one ? s->width * (y1 - y0) : s->width, j->stream);
            if (one)
                break;
            continue;
        }
        for (int64_t i = 0; i < n; i += cn)
            for (int c = 0; c < cn; c++)
                store(d->dtype, dr + (size_t)(i + c) * des,
                      gip__pw_eval(j->p, c, load(s->dtype, sr + (size_t)(i + c) * ses)));
    }
}

void gip__pw_cpu(gip_context *ctx, const gip_image *src, const gip_image *mask, gip_image *dst,
                 const gip__pw *p)
{
    pw_job j = {.src = src, .mask = mask, .dst = dst, .p = p};
    j.stream = !gip__images_same(src, dst) && gip__image_span(dst) >= GIP__STREAM_BYTES;
#if defined(__x86_64__) && defined(__GNUC__)
    if (p->kind == GIP__PW_LUT && !mask && pw_step_ok()) {
        bool same = true;
        for (int c = 1; c < src->channels && same; c++)
            same = !memcmp(p->table[c], p->table[0], 256);
        j.step = same && pw_step_of(p->table[0], &j.st);
    }
#endif
    gip__parallel_for(ctx, src->height, 8, unary_rows, &j);
}

/* u8 rows of the integer-exact operations, one loop per operation, written in the forms the
 * compiler turns into saturating and min/max vector instructions (compiled for x86-64-v3 too);
 * false where the operation has no such loop. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static bool
binary_u8_fast(int op, const uint8_t *restrict a, const uint8_t *restrict b, uint8_t *restrict d,
               int64_t n)
{
    switch (op) {
    case GIP__OP_ADD:
        for (int64_t i = 0; i < n; i++) {
            const uint8_t v = (uint8_t)(a[i] + b[i]);
            d[i] = v < a[i] ? 255 : v;
        }
        return true;
    case GIP__OP_SUB:
        for (int64_t i = 0; i < n; i++) {
            const uint8_t v = (uint8_t)(a[i] - b[i]);
            d[i] = a[i] < b[i] ? 0 : v;
        }
        return true;
    case GIP__OP_ABSDIFF:
        for (int64_t i = 0; i < n; i++) {
            const uint8_t hi = a[i] > b[i] ? a[i] : b[i], lo = a[i] > b[i] ? b[i] : a[i];
            d[i] = (uint8_t)(hi - lo);
        }
        return true;
    case GIP__OP_MIN:
        for (int64_t i = 0; i < n; i++)
            d[i] = a[i] < b[i] ? a[i] : b[i];
        return true;
    case GIP__OP_MAX:
        for (int64_t i = 0; i < n; i++)
            d[i] = a[i] > b[i] ? a[i] : b[i];
        return true;
    case GIP__OP_AND:
        for (int64_t i = 0; i < n; i++)
            d[i] = a[i] & b[i];
        return true;
    case GIP__OP_OR:
        for (int64_t i = 0; i < n; i++)
            d[i] = a[i] | b[i];
        return true;
    case GIP__OP_XOR:
        for (int64_t i = 0; i < n; i++)
            d[i] = a[i] ^ b[i];
        return true;
    default:
        return false;
    }
}

static void binary_rows(void *arg, int64_t y0, int64_t y1)
{
    const pw_job *j = arg;
    const gip_image *s = j->src, *s2 = j->src2, *m = j->mask;
    gip_image *d = j->dst;
    const int cn = s->channels;
    const int64_t w = s->width;
    const size_t es = gip_dtype_size(s->dtype), des = gip_dtype_size(d->dtype);
    for (int64_t y = y0; y < y1; y++) {
        const char *a = (const char *)s->data + y * s->stride;
        const char *b = (const char *)s2->data + y * s2->stride;
        const uint8_t *mr = m ? (const uint8_t *)m->data + y * m->stride : NULL;
        char *dr = (char *)d->data + y * d->stride;
        /* dst may be src or src2 itself: the element loops read each element before writing
         * it, and so do these (restrict holds per element). */
        /* rows without gaps between them on all three: the band as one row */
        const bool one = s->stride == w * cn && s2->stride == w * cn && d->stride == w * cn;
        if (!mr && s->dtype == GIP_U8 && a != dr && b != dr &&
            binary_u8_fast(j->p->sub, (const uint8_t *)a, (const uint8_t *)b, (uint8_t *)dr,
                           one ? w * cn * (y1 - y0) : w * cn)) {
            if (one)
                break;
            continue;
        }
        if (!mr && gip__pw2_row_fast(j->p, s->dtype, d->dtype, a, b, dr, w * cn, j->stream))
            continue;
        for (int64_t x = 0; x < w; x++)
            for (int c = 0; c < cn; c++) {
                size_t i = (size_t)(x * cn + c);
                double v = mr && !mr[x] ? 0.0
                                        : gip__pw_eval2(j->p, load(s->dtype, a + i * es),
                                                        load(s->dtype, b + i * es));
                store(d->dtype, dr + i * des, v);
            }
    }
}

void gip__pw2_cpu(gip_context *ctx, const gip_image *src, const gip_image *src2,
                  const gip_image *mask, gip_image *dst, const gip__pw *p)
{
    pw_job j = {.src = src, .src2 = src2, .mask = mask, .dst = dst, .p = p};
    j.stream = !gip__images_same(src, dst) && !gip__images_same(src2, dst) &&
               gip__image_span(dst) >= GIP__STREAM_BYTES;
    gip__parallel_for(ctx, src->height, 8, binary_rows, &j);
}

static void in_range_rows(void *arg, int64_t y0, int64_t y1)
{
    const pw_job *j = arg;
    const gip_image *s = j->src;
    const int cn = s->channels;
    const size_t es = gip_dtype_size(s->dtype);
    for (int64_t y = y0; y < y1; y++) {
        const char *sr = (const char *)s->data + y * s->stride;
        uint8_t *dr = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (gip__pw_in_range_row_fast(s->dtype, cn, sr, dr, s->width, j->lo, j->hi))
            continue;
        for (int64_t x = 0; x < s->width; x++) {
            int in = 1;
            for (int c = 0; c < cn; c++) {
                float v = load(s->dtype, sr + (size_t)(x * cn + c) * es);
                in &= j->lo[c] <= v && v <= j->hi[c];
            }
            dr[x] = in ? 255 : 0;
        }
    }
}

void gip__pw_in_range_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const float *lo,
                          const float *hi)
{
    pw_job j = {.src = src, .dst = dst, .lo = lo, .hi = hi};
    gip__parallel_for(ctx, src->height, 8, in_range_rows, &j);
}
