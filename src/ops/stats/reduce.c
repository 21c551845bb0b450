/* SPDX-License-Identifier: MIT */
/* The reductions (gip_min_max_loc, gip_channel_min_max, gip_mean, gip_mean_std_dev, gip_sum,
 * gip_count_non_zero, gip_norm, gip_psnr): their argument checks, the finishing arithmetic from one
 * per-channel reduction, and its CPU backend. The CPU reduces fixed blocks of rows and combines
 * them in order, so a result does not depend on the thread count. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/stats/stats.h"

void gip__red_init(gip__red *r)
{
    memset(r, 0, sizeof *r);
    for (int c = 0; c < 4; c++) {
        r->ch[c].mn = HUGE_VAL;
        r->ch[c].mx = -HUGE_VAL;
        r->ch[c].imn = r->ch[c].imx = -1;
    }
}

void gip__red_combine(gip__red *a, const gip__red *b, int32_t channels)
{
    a->count += b->count;
    for (int32_t c = 0; c < channels; c++) {
        gip__red_ch *x = &a->ch[c];
        const gip__red_ch *y = &b->ch[c];
        x->is += y->is;
        x->iq += y->iq;
        x->ia += y->ia;
        x->fs += y->fs;
        x->fq += y->fq;
        x->fa += y->fa;
        x->nz += y->nz;
        if (y->imn >= 0 && (x->imn < 0 || y->mn < x->mn || (y->mn == x->mn && y->imn < x->imn))) {
            x->mn = y->mn;
            x->imn = y->imn;
        }
        if (y->imx >= 0 && (x->imx < 0 || y->mx > x->mx || (y->mx == x->mx && y->imx < x->imx))) {
            x->mx = y->mx;
            x->imx = y->imx;
        }
    }
}

/* ---- CPU backend ------------------------------------------------------------------------- */

#define ROWS_PER_BLOCK 16

typedef struct red_job {
    const gip_image *a, *b, *mask;
    uint32_t want;
    gip__red *parts;
} red_job;

/* One row of one channel: a (minus b where given) at elements c, c + cn, ... of w pixels, where
 * the mask row m (NULL: all) is not zero, folded into ch. Integer dtypes sum in int64 (ACC
 * int64_t), f32 in double; extremes compare in the element type and keep the first position. */
#define RED_ROW(NAME, T, V, ACC, ABS, SUMS)                                                        \
    static void NAME(const T *pa, const T *pb, const unsigned char *m, int64_t w, int32_t cn,      \
                     int32_t c, int64_t base, gip__red_ch *ch)                                     \
    {                                                                                              \
        ACC s = 0, q = 0, a = 0;                                                                   \
        int64_t nz = 0, imn = -1, imx = -1;                                                        \
        V mn = 0, mx = 0;                                                                          \
        for (int64_t x = 0; x < w; x++) {                                                          \
            if (m && !m[x])                                                                        \
                continue;                                                                          \
            V v = (V)pa[x * cn + c];                                                               \
            if (pb)                                                                                \
                v = (V)(v - (V)pb[x * cn + c]);                                                    \
            s += (ACC)v;                                                                           \
            q += (ACC)v * (ACC)v;                                                                  \
            a += (ACC)ABS(v);                                                                      \
            nz += v != 0;                                                                          \
            if (imn < 0 || v < mn) {                                                               \
                if (v == v)                                                                        \
                    mn = v, imn = x;                                                               \
            }                                                                                      \
            if (imx < 0 || v > mx) {                                                               \
                if (v == v)                                                                        \
                    mx = v, imx = x;                                                               \
            }                                                                                      \
        }                                                                                          \
        SUMS;                                                                                      \
        ch->nz += nz;                                                                              \
        /* rows come in order: a later row's extreme replaces only a strictly better one */        \
        if (imn >= 0 && (ch->imn < 0 || (double)mn < ch->mn)) {                                    \
            ch->mn = (double)mn;                                                                   \
            ch->imn = base + imn;                                                                  \
        }                                                                                          \
        if (imx >= 0 && (ch->imx < 0 || (double)mx > ch->mx)) {                                    \
            ch->mx = (double)mx;                                                                   \
            ch->imx = base + imx;                                                                  \
        }                                                                                          \
    }

#define IABS(v) ((v) < 0 ? -(int64_t)(v) : (int64_t)(v))
#define INT_SUMS ch->is += s, ch->iq += q, ch->ia += a
#define FLT_SUMS ch->fs += s, ch->fq += q, ch->fa += a
RED_ROW(row_u8, uint8_t, int32_t, int64_t, IABS, INT_SUMS)
RED_ROW(row_u16, uint16_t, int32_t, int64_t, IABS, INT_SUMS)
RED_ROW(row_s16, int16_t, int32_t, int64_t, IABS, INT_SUMS)
RED_ROW(row_f32, float, float, double, fabsf, FLT_SUMS)

/* Unmasked rows, one quantity at a time so that the loops vectorise: the sums, then the
 * extremes (the row's smallest and largest value first, their first position only where they
 * improve on the earlier rows'). */
#define SUM_ROW(NAME, T, V, ACC, ABS, SUMS)                                                        \
    static void NAME(const T *pa, const T *pb, int64_t w, int32_t cn, int32_t c, gip__red_ch *ch)  \
    {                                                                                              \
        ACC s = 0, q = 0, a = 0;                                                                   \
        int64_t nz = 0;                                                                            \
        if (pb) {                                                                                  \
            for (int64_t x = 0; x < w; x++) {                                                      \
                V v = (V)((V)pa[x * cn + c] - (V)pb[x * cn + c]);                                  \
                s += (ACC)v;                                                                       \
                q += (ACC)v * (ACC)v;                                                              \
                a += (ACC)ABS(v);                                                                  \
                nz += v != 0;                                                                      \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t x = 0; x < w; x++) {                                                      \
                V v = (V)pa[x * cn + c];                                                           \
                s += (ACC)v;                                                                       \
                q += (ACC)v * (ACC)v;                                                              \
                a += (ACC)ABS(v);                                                                  \
                nz += v != 0;                                                                      \
            }                                                                                      \
        }                                                                                          \
        SUMS;                                                                                      \
        ch->nz += nz;                                                                              \
    }
#define EXT_ROW(NAME, T, V, LO, HI)                                                                \
    static void NAME(const T *pa, const T *pb, int64_t w, int32_t cn, int32_t c, int64_t base,     \
                     gip__red_ch *ch)                                                              \
    {                                                                                              \
        V mn = HI, mx = LO;                                                                        \
        if (pb) {                                                                                  \
            for (int64_t x = 0; x < w; x++) {                                                      \
                V v = (V)((V)pa[x * cn + c] - (V)pb[x * cn + c]);                                  \
                mn = v < mn ? v : mn;                                                              \
                mx = v > mx ? v : mx;                                                              \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t x = 0; x < w; x++) {                                                      \
                V v = (V)pa[x * cn + c];                                                           \
                mn = v < mn ? v : mn;                                                              \
                mx = v > mx ? v : mx;                                                              \
            }                                                                                      \
        }                                                                                          \
        if (!(mn <= mx)) /* nothing but NaNs */                                                    \
            return;                                                                                \
        if (ch->imn < 0 || (double)mn < ch->mn)                                                    \
            for (int64_t x = 0; x < w; x++) {                                                      \
                V v = (V)pa[x * cn + c];                                                           \
                if (pb)                                                                            \
                    v = (V)(v - (V)pb[x * cn + c]);                                                \
                if (v == mn) {                                                                     \
                    ch->mn = (double)mn;                                                           \
                    ch->imn = base + x;                                                            \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
        if (ch->imx < 0 || (double)mx > ch->mx)                                                    \
            for (int64_t x = 0; x < w; x++) {                                                      \
                V v = (V)pa[x * cn + c];                                                           \
                if (pb)                                                                            \
                    v = (V)(v - (V)pb[x * cn + c]);                                                \
                if (v == mx) {                                                                     \
                    ch->mx = (double)mx;                                                           \
                    ch->imx = base + x;                                                            \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
    }
SUM_ROW(sum_u8, uint8_t, int32_t, int64_t, IABS, INT_SUMS)
SUM_ROW(sum_u16, uint16_t, int32_t, int64_t, IABS, INT_SUMS)
SUM_ROW(sum_s16, int16_t, int32_t, int64_t, IABS, INT_SUMS)
SUM_ROW(sum_f32, float, float, double, fabsf, FLT_SUMS)
EXT_ROW(ext_u8, uint8_t, int32_t, INT32_MIN, INT32_MAX)
EXT_ROW(ext_u16, uint16_t, int32_t, INT32_MIN, INT32_MAX)
EXT_ROW(ext_s16, int16_t, int32_t, INT32_MIN, INT32_MAX)
EXT_ROW(ext_f32, float, float, -INFINITY, INFINITY)

static void red_rows(const red_job *j, int64_t y0, int64_t y1, gip__red *r)
{
    const gip_image *a = j->a, *b = j->b, *m = j->mask;
    const int32_t cn = a->channels;
    const int64_t w = a->width;
    for (int64_t y = y0; y < y1; y++) {
        const void *ra = (const unsigned char *)a->data + y * a->stride;
        const void *rb = b ? (const unsigned char *)b->data + y * b->stride : NULL;
        const unsigned char *rm = m ? (const unsigned char *)m->data + y * m->stride : NULL;
        if (rm) {
            for (int64_t x = 0; x < w; x++)
                r->count += rm[x] != 0;
        } else {
            r->count += w;
            for (int32_t c = 0; c < cn; c++) {
                gip__red_ch *ch = &r->ch[c];
                switch (a->dtype) {
                case GIP_U8:
                    if (j->want & GIP__RED_SUMS)
                        sum_u8(ra, rb, w, cn, c, ch);
                    if (j->want & GIP__RED_EXTREMES)
                        ext_u8(ra, rb, w, cn, c, y * w, ch);
                    break;
                case GIP_U16:
                    if (j->want & GIP__RED_SUMS)
                        sum_u16(ra, rb, w, cn, c, ch);
                    if (j->want & GIP__RED_EXTREMES)
                        ext_u16(ra, rb, w, cn, c, y * w, ch);
                    break;
                case GIP_S16:
                    if (j->want & GIP__RED_SUMS)
                        sum_s16(ra, rb, w, cn, c, ch);
                    if (j->want & GIP__RED_EXTREMES)
                        ext_s16(ra, rb, w, cn, c, y * w, ch);
                    break;
                default:
                    if (j->want & GIP__RED_SUMS)
                        sum_f32(ra, rb, w, cn, c, ch);
                    if (j->want & GIP__RED_EXTREMES)
                        ext_f32(ra, rb, w, cn, c, y * w, ch);
                }
            }
            continue;
        }
        for (int32_t c = 0; c < cn; c++) {
            switch (a->dtype) {
            case GIP_U8:
                row_u8(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
                break;
            case GIP_U16:
                row_u16(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
                break;
            case GIP_S16:
                row_s16(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
                break;
            default:
                row_f32(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
            }
        }
    }
}

static void red_blocks(void *arg, int64_t b0, int64_t b1)
{
    const red_job *j = arg;
    for (int64_t k = b0; k < b1; k++) {
        gip__red *r = &j->parts[k];
        gip__red_init(r);
        int64_t y0 = k * ROWS_PER_BLOCK, y1 = y0 + ROWS_PER_BLOCK;
        red_rows(j, y0, y1 < j->a->height ? y1 : j->a->height, r);
    }
}

gip_status gip__reduce_cpu(gip_context *ctx, const gip_image *a, const gip_image *b,
                           const gip_image *mask, uint32_t want, gip__red *r)
{
    int64_t nb = (a->height + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    red_job j = {
        .a = a, .b = b, .mask = mask, .want = want, .parts = malloc((size_t)nb * sizeof(gip__red))};
    if (!j.parts)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "reduction: out of host memory");
    gip__parallel_for(ctx, nb, 1, red_blocks, &j);
    gip__red_init(r);
    for (int64_t k = 0; k < nb; k++)
        gip__red_combine(r, &j.parts[k], a->channels);
    free(j.parts);
    return GIP_OK;
}

/* ---- checks and dispatch ---------------------------------------------------------------- */

#define STATS_DTYPES (GIP__DT(GIP_U8) | GIP__DT(GIP_U16) | GIP__DT(GIP_S16) | GIP__DT(GIP_F32))

/* Checks src (and src2, mask where given) for a reduction named op, and reduces them. one_channel:
 * src must have one channel. */
static gip_status reduce(gip_context *ctx, const char *op, const gip_image *a, const gip_image *b,
                         const gip_image *mask, bool one_channel, uint32_t want, gip__red *r)
{
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if ((st = gip__image_check_ctx(ctx, a, op, b ? "src1" : "src")))
        return st;
    if ((st = gip__check_dtype(ctx, a, STATS_DTYPES, op, b ? "src1" : "src")))
        return st;
    if (a->channels < 1 || a->channels > 4 || (one_channel && a->channels != 1))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: src has %d channels; %s accepted", op,
                          (int)a->channels, one_channel ? "only 1 is" : "1 to 4 are");
    const bool dev = a->memory == GIP_MEM_CUDA;
    if (b) {
        if ((st = gip__image_check_ctx(ctx, b, op, "src2")))
            return st;
        if (b->width != a->width || b->height != a->height || b->channels != a->channels ||
            b->dtype != a->dtype)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: src2 is %lldx%lld %d-channel %s but src1 is %lldx%lld "
                              "%d-channel %s; they must be equal",
                              op, (long long)b->width, (long long)b->height, (int)b->channels,
                              gip_dtype_name(b->dtype), (long long)a->width, (long long)a->height,
                              (int)a->channels, gip_dtype_name(a->dtype));
        if ((b->memory == GIP_MEM_CUDA) != dev)
            return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                              "%s: src1 and src2 must both be on the host or both on the device",
                              op);
    }
    if (mask) {
        if ((st = gip__image_check_ctx(ctx, mask, op, "mask")))
            return st;
        if (mask->dtype != GIP_U8 || mask->channels != 1)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: mask is %d-channel %s; a one-channel u8 mask is accepted", op,
                              (int)mask->channels, gip_dtype_name(mask->dtype));
        if (mask->width != a->width || mask->height != a->height)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: mask is %lldx%lld but src is %lldx%lld; they must be equal", op,
                              (long long)mask->width, (long long)mask->height, (long long)a->width,
                              (long long)a->height);
        if ((mask->memory == GIP_MEM_CUDA) != dev)
            return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                              "%s: src and mask must both be on the host or both on the device",
                              op);
    }
    if (dev) {
#ifdef GIP_HAVE_CUDA
        if ((st = gip__cuda_enter(ctx)))
            return st;
        size_t es = gip_dtype_size(a->dtype);
        if ((uintptr_t)a->data % es || a->stride % (int64_t)es ||
            (b && ((uintptr_t)b->data % es || b->stride % (int64_t)es)))
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: device images need data and stride aligned to the element "
                              "size (%zu bytes)",
                              op, es);
        return gip__reduce_cuda(ctx, a, b, mask, r);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__reduce_cpu(ctx, a, b, mask, want, r);
}

static double ch_sum(const gip_image *a, const gip__red_ch *c)
{
    return a->dtype == GIP_F32 ? c->fs : (double)c->is;
}
static double ch_sq(const gip_image *a, const gip__red_ch *c)
{
    return a->dtype == GIP_F32 ? c->fq : (double)c->iq;
}
static double ch_abs(const gip_image *a, const gip__red_ch *c)
{
    return a->dtype == GIP_F32 ? c->fa : (double)c->ia;
}

static gip_status need(gip_context *ctx, const char *op, const void *p, const char *what)
{
    if (!p)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
    return GIP_OK;
}

gip_status gip_min_max_loc(gip_context *ctx, const gip_image *src, const gip_image *mask,
                           double *min_val, double *max_val, int64_t min_loc[2], int64_t max_loc[2])
{
    gip__red r;
    gip_status st = reduce(ctx, "gip_min_max_loc", src, NULL, mask, true, GIP__RED_EXTREMES, &r);
    if (st)
        return st;
    const gip__red_ch *c = &r.ch[0];
    const bool none = c->imn < 0;
    if (min_val)
        *min_val = none ? 0.0 : c->mn;
    if (max_val)
        *max_val = none ? 0.0 : c->mx;
    if (min_loc) {
        min_loc[0] = none ? -1 : c->imn % src->width;
        min_loc[1] = none ? -1 : c->imn / src->width;
    }
    if (max_loc) {
        max_loc[0] = none ? -1 : c->imx % src->width;
        max_loc[1] = none ? -1 : c->imx / src->width;
    }
    return GIP_OK;
}

gip_status gip_channel_min_max(gip_context *ctx, const gip_image *src, const gip_image *mask,
                               double min_val[4], double max_val[4])
{
    static const char op[] = "gip_channel_min_max";
    gip_status st = need(ctx, op, min_val, "min_val");
    if (st || (st = need(ctx, op, max_val, "max_val")))
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, mask, false, GIP__RED_EXTREMES, &r)))
        return st;
    for (int c = 0; c < 4; c++) {
        const bool none = c >= src->channels || r.ch[c].imn < 0;
        min_val[c] = none ? 0.0 : r.ch[c].mn;
        max_val[c] = none ? 0.0 : r.ch[c].mx;
    }
    return GIP_OK;
}

gip_status gip_mean_std_dev(gip_context *ctx, const gip_image *src, const gip_image *mask,
                            double mean[4], double stddev[4])
{
    static const char op[] = "gip_mean_std_dev";
    gip_status st = need(ctx, op, mean, "mean");
    if (st || (st = need(ctx, op, stddev, "stddev")))
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, mask, false, GIP__RED_SUMS, &r)))
        return st;
    const double scale = r.count ? 1.0 / (double)r.count : 0.0;
    for (int c = 0; c < 4; c++) {
        if (c >= src->channels) {
            mean[c] = stddev[c] = 0.0;
            continue;
        }
        double s = ch_sum(src, &r.ch[c]) * scale;
        double q = ch_sq(src, &r.ch[c]) * scale;
        mean[c] = s;
        stddev[c] = sqrt(fmax(q - s * s, 0.0));
    }
    return GIP_OK;
}

gip_status gip_mean(gip_context *ctx, const gip_image *src, const gip_image *mask, double mean[4])
{
    static const char op[] = "gip_mean";
    gip_status st = need(ctx, op, mean, "mean");
    if (st)
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, mask, false, GIP__RED_SUMS, &r)))
        return st;
    const double scale = r.count ? 1.0 / (double)r.count : 0.0; /* OpenCV's rounding */
    for (int c = 0; c < 4; c++)
        mean[c] = c < src->channels ? ch_sum(src, &r.ch[c]) * scale : 0.0;
    return GIP_OK;
}

gip_status gip_sum(gip_context *ctx, const gip_image *src, double sum[4])
{
    static const char op[] = "gip_sum";
    gip_status st = need(ctx, op, sum, "sum");
    if (st)
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, NULL, false, GIP__RED_SUMS, &r)))
        return st;
    for (int c = 0; c < 4; c++)
        sum[c] = c < src->channels ? ch_sum(src, &r.ch[c]) : 0.0;
    return GIP_OK;
}

gip_status gip_count_non_zero(gip_context *ctx, const gip_image *src, int64_t *count)
{
    static const char op[] = "gip_count_non_zero";
    gip_status st = need(ctx, op, count, "count");
    if (st)
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, NULL, true, GIP__RED_SUMS, &r)))
        return st;
    *count = r.ch[0].nz;
    return GIP_OK;
}

/* The INF, L1 or L2 norm over all channels of a reduction. */
static double norm_of(const gip_image *a, const gip__red *r, int32_t type)
{
    double v = 0.0;
    for (int32_t c = 0; c < a->channels; c++) {
        const gip__red_ch *s = &r->ch[c];
        if (type == GIP_NORM_INF) {
            if (s->imn >= 0)
                v = fmax(v, fmax(fabs(s->mn), fabs(s->mx)));
        } else if (type == GIP_NORM_L1) {
            v += ch_abs(a, s);
        } else {
            v += ch_sq(a, s);
        }
    }
    return type == GIP_NORM_L2 ? sqrt(v) : v;
}

gip_status gip_norm(gip_context *ctx, const gip_image *src1, const gip_image *src2,
                    int32_t norm_type, const gip_image *mask, double *result)
{
    static const char op[] = "gip_norm";
    gip_status st = need(ctx, op, result, "result");
    if (st)
        return st;
    const int32_t type = norm_type & ~GIP_NORM_RELATIVE;
    const bool relative = (norm_type & GIP_NORM_RELATIVE) != 0;
    if (type != GIP_NORM_INF && type != GIP_NORM_L1 && type != GIP_NORM_L2)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: norm type %d is not supported: NORM_INF (1), NORM_L1 (2) or "
                          "NORM_L2 (4) are accepted, or-ed with NORM_RELATIVE (8) when src2 is "
                          "given",
                          op, (int)norm_type);
    if (relative && !src2)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: NORM_RELATIVE needs src2 (the norm is divided by src2's)", op);
    const uint32_t want = type == GIP_NORM_INF ? GIP__RED_EXTREMES : GIP__RED_SUMS;
    gip__red r;
    if ((st = reduce(ctx, op, src1, src2, mask, false, want, &r)))
        return st;
    double v = norm_of(src1, &r, type);
    if (relative) {
        gip__red r2;
        if ((st = reduce(ctx, op, src2, NULL, mask, false, want, &r2)))
            return st;
        v /= norm_of(src2, &r2, type) + DBL_EPSILON;
    }
    *result = v;
    return GIP_OK;
}

gip_status gip_psnr(gip_context *ctx, const gip_image *src1, const gip_image *src2, double r,
                    double *result)
{
    static const char op[] = "gip_psnr";
    gip_status st = need(ctx, op, result, "result");
    if (st || (st = need(ctx, op, src2, "src2")))
        return st;
    if (r == 0.0)
        r = 255.0;
    if (!(r > 0.0) || !isfinite(r))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: R must be a positive finite number (0 means 255), got %g", op, r);
    gip__red red;
    if ((st = reduce(ctx, op, src1, src2, NULL, false, GIP__RED_SUMS, &red)))
        return st;
    double sq = 0.0;
    for (int32_t c = 0; c < src1->channels; c++)
        sq += ch_sq(src1, &red.ch[c]);
    double diff = sqrt(sq / ((double)src1->width * (double)src1->height * src1->channels));
    *result = 20.0 * log10(r / (diff + DBL_EPSILON));
    return GIP_OK;
}
