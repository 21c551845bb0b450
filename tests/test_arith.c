/* SPDX-License-Identifier: MIT */
/* Tests of the element-wise arithmetic (gip_arith with a second image, a scalar, a mask, the
 * reversed forms), gip_add_weighted, gip_convert_scale_abs, gip_lut, gip_gamma, gip_normalize and
 * the channel copies, against references written here from the documented rules (single or
 * double precision as each operation states), on every dtype and channel count, awkward sizes and
 * padded strides; CUDA runs against the same references; bad input. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static double sat(gip_dtype dt, double v)
{
    if (dt == GIP_F32)
        return (double)(float)v;
    if (v != v)
        return 0;
    double lo = dt == GIP_S16 ? -32768 : 0, hi = dt == GIP_U8 ? 255 : dt == GIP_U16 ? 65535 : 32767;
    v = v < lo ? lo : v > hi ? hi : v;
    return nearbyint(v);
}

/* The documented element rule of gip_arith. */
static double rule(gip_arith_op op, gip_dtype dt, double x, double s, bool image, double scale,
                   bool integral)
{
    const bool ints = dt != GIP_F32;
    const float fx = (float)x, fs = (float)s, fsc = (float)scale;
    switch (op) {
    case GIP_ARITH_ADD:
        return fx + fs;
    case GIP_ARITH_SUBTRACT:
        return fx - fs;
    case GIP_ARITH_MULTIPLY:
        return image || !ints ? (double)((fx * fsc) * fs) : (x * scale) * s;
    case GIP_ARITH_DIVIDE:
        if (ints && s == 0)
            return 0;
        return image || !ints ? (double)((fx * fsc) / fs) : (x * scale) / s;
    case GIP_ARITH_ABSDIFF:
        return fabsf(fx - fs);
    case GIP_ARITH_MIN:
        return x < s ? x : s;
    case GIP_ARITH_MAX:
        return x > s ? x : s;
    case GIP_ARITH_AND:
        return (double)((int32_t)x & (int32_t)s);
    case GIP_ARITH_OR:
        return (double)((int32_t)x | (int32_t)s);
    default:
        (void)integral;
        return (double)((int32_t)x ^ (int32_t)s);
    }
}

static gip_status run_arith(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_arith(ctx, s, d, p);
}

/* When set, arith() and misc() give every image rows whose data and stride are 16-byte aligned
 * (the CUDA backend's vector paths), else odd row paddings (its element paths). */
static int aligned_rows;

/* The row padding of a test image: `odd` bytes, or to 16 bytes (plus 16 when odd is not 0). */
static int64_t pad(int64_t w, int32_t cn, gip_dtype dt, int64_t odd)
{
    return aligned_rows ? gt_pad16(w, cn, dt) + (odd ? 16 : 0) : odd;
}

/* Uploads a host image to the context's device when it is a CUDA context (else returns it). */
static const gip_image *on_ctx(gip_context *ctx, const gip_image *h, gip_image *dev)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return h;
    if (!GT_OK(gip_image_alloc(ctx, dev, h->width, h->height, h->channels, h->dtype, GIP_MEM_CUDA,
                               0)) ||
        !GT_OK(gip_upload(ctx, h, dev)))
        return NULL;
    return dev;
}

static void arith(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    static const double values[] = {2.5, 7, 0.3, -1.5, 300.5};
    uint64_t seed = 11;
    for (int si = 0; si < gt_nsizes; si++)
        for (int d = 0; d < 4; d++)
            for (int c = 0; c < 3; c++) {
                gt_size sz = gt_sizes[si];
                if (sz.w * sz.h > 100000 && c != 1)
                    continue;
                gip_dtype dt = dts[d];
                int32_t cn = chans[c];
                gip_image a, b, m, dst, exp, db = {0}, dm = {0};
                gt_alloc(&a, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 6));
                gt_alloc(&b, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 0));
                gt_alloc(&m, sz.w, sz.h, 1, GIP_U8, pad(sz.w, 1, GIP_U8, 3));
                gt_alloc(&dst, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 10));
                gt_alloc(&exp, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 0));
                gt_fill_random(&a, seed++, -100, 300);
                gt_fill_random(&b, seed++, -100, 300);
                gt_fill_random(&m, seed++, 0, 0);
                for (int64_t x = 0; x < sz.w; x += 5) /* zero divisors */
                    gt_set(&b, x, 0, 0, 0);
                const gip_image *b_ctx = on_ctx(ctx, &b, &db), *m_ctx = on_ctx(ctx, &m, &dm);
                if (!b_ctx || !m_ctx)
                    goto out;
                for (int op = GIP_ARITH_ADD; op <= GIP_ARITH_XOR; op++) {
                    if (op >= GIP_ARITH_AND && dt == GIP_F32)
                        continue;
                    for (int form = 0; form < 4; form++) {
                        /* 0: src2; 1: src2 and mask; 2: a scalar; 3: the scalar reversed */
                        if (form == 3 && op != GIP_ARITH_SUBTRACT && op != GIP_ARITH_DIVIDE)
                            continue;
                        gip_arith_params p;
                        memset(&p, 0, sizeof p);
                        p.op = (gip_arith_op)op;
                        p.src2 = form < 2 ? b_ctx : NULL;
                        p.mask = form == 1 ? m_ctx : NULL;
                        p.scaled = op == GIP_ARITH_MULTIPLY || op == GIP_ARITH_DIVIDE;
                        p.scale = op == GIP_ARITH_MULTIPLY ? 0.37 : 1.7;
                        p.reverse = form == 3;
                        double v = values[(op + form + c) % 5];
                        for (int k = 0; k < 4; k++)
                            p.value[k] = v * (k + 1);
                        for (int64_t y = 0; y < sz.h; y++)
                            for (int64_t x = 0; x < sz.w; x++)
                                for (int32_t ch = 0; ch < cn; ch++) {
                                    double xa = gt_get(&a, x, y, ch), r;
                                    double sv = p.value[ch];
                                    if (op >= GIP_ARITH_MIN && dt != GIP_F32)
                                        sv = sat(dt, sv); /* converted to the dtype */
                                    if (form == 1 && gt_get(&m, x, y, 0) == 0)
                                        r = 0;
                                    else if (form < 2)
                                        r = rule(p.op, dt, xa, gt_get(&b, x, y, ch), true,
                                                 p.scaled ? p.scale : 1, true);
                                    else if (form == 2)
                                        r = rule(p.op, dt, xa, sv, false, p.scaled ? p.scale : 1,
                                                 true);
                                    else if (op == GIP_ARITH_SUBTRACT)
                                        r = (float)sv - (float)xa;
                                    else if (dt == GIP_F32)
                                        r = ((float)sv * (float)p.scale) / (float)xa;
                                    else if (xa == 0 && sv == floor(sv))
                                        r = 0;
                                    else
                                        r = (sv * p.scale) / xa;
                                    gt_set(&exp, x, y, ch, sat(dt, r));
                                }
                        char label[128];
                        snprintf(label, sizeof label, "arith op %d form %d %lldx%lld %s c%d", op,
                                 form, (long long)sz.w, (long long)sz.h, gip_dtype_name(dt), cn);
                        if (GT_OK(gt_run_unary(ctx, run_arith, &a, &dst, &p, 0x3C))) {
                            gt_compare(&dst, &exp, 0, 0, label);
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                        }
                    }
                }
            out:
                if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
                    gip_image_free(ctx, &db);
                    gip_image_free(ctx, &dm);
                }
                gt_free(&a);
                gt_free(&b);
                gt_free(&m);
                gt_free(&dst);
                gt_free(&exp);
            }
}

typedef struct misc_args {
    int kind; /* 0 add_weighted, 1 convert_scale_abs, 2 lut, 3 gamma, 4 normalize, 5 extract */
    const gip_image *src2, *mask;
    double a, b, c;
    const uint8_t *table;
    int32_t tcn;
    gip_norm_type norm;
} misc_args;

static gip_status run_misc(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const misc_args *m = p;
    switch (m->kind) {
    case 0:
        return gip_add_weighted(ctx, s, m->a, m->src2, m->b, m->c, d);
    case 1:
        return gip_convert_scale_abs(ctx, s, d, m->a, m->b);
    case 2:
        return gip_lut(ctx, s, d, m->table, m->tcn);
    case 3:
        return gip_gamma(ctx, s, d, m->a);
    case 4:
        return gip_normalize(ctx, s, d, m->a, m->b, m->norm, m->mask);
    default:
        return gip_extract_channel(ctx, s, d, (int32_t)m->a);
    }
}

static void misc(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    uint64_t seed = 900;
    uint8_t table[4 * 256];
    for (int i = 0; i < 4 * 256; i++)
        table[i] = (uint8_t)((i * 37 + 11) % 256);
    for (int si = 0; si < gt_nsizes; si++)
        for (int d = 0; d < 4; d++)
            for (int c = 0; c < 3; c++) {
                gt_size sz = gt_sizes[si];
                if (sz.w * sz.h > 100000 && c != 1)
                    continue;
                gip_dtype dt = dts[d];
                int32_t cn = chans[c];
                gip_image a, b, m, dst, d8, exp, e8, one, e1, db = {0}, dm = {0};
                gt_alloc(&a, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 6));
                gt_alloc(&b, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 0));
                gt_alloc(&m, sz.w, sz.h, 1, GIP_U8, pad(sz.w, 1, GIP_U8, 0));
                gt_alloc(&dst, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 4));
                gt_alloc(&d8, sz.w, sz.h, cn, GIP_U8, pad(sz.w, cn, GIP_U8, 4));
                gt_alloc(&exp, sz.w, sz.h, cn, dt, pad(sz.w, cn, dt, 0));
                gt_alloc(&e8, sz.w, sz.h, cn, GIP_U8, pad(sz.w, cn, GIP_U8, 0));
                gt_alloc(&one, sz.w, sz.h, 1, dt, pad(sz.w, 1, dt, 2));
                gt_alloc(&e1, sz.w, sz.h, 1, dt, pad(sz.w, 1, dt, 0));
                gt_fill_random(&a, seed++, -50, 300);
                gt_fill_random(&b, seed++, -50, 300);
                gt_fill_random(&m, seed++, 0, 0);
                const gip_image *b_ctx = on_ctx(ctx, &b, &db), *m_ctx = on_ctx(ctx, &m, &dm);
                char label[128];
                if (!b_ctx || !m_ctx)
                    goto out;
                /* addWeighted: fma(x, alpha, fma(y, beta, gamma)) in single precision */
                misc_args w = {0, b_ctx, NULL, 0.3, -0.7, 10.25, NULL, 0, 0};
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++)
                        for (int32_t ch = 0; ch < cn; ch++)
                            gt_set(&exp, x, y, ch,
                                   sat(dt, fmaf((float)gt_get(&a, x, y, ch), 0.3f,
                                                fmaf((float)gt_get(&b, x, y, ch), -0.7f, 10.25f))));
                snprintf(label, sizeof label, "add_weighted %lldx%lld %s c%d", (long long)sz.w,
                         (long long)sz.h, gip_dtype_name(dt), cn);
                if (GT_OK(gt_run_unary(ctx, run_misc, &a, &dst, &w, 0x3C)))
                    gt_compare(&dst, &exp, 0, 0, label);
                /* convertScaleAbs into u8 */
                misc_args sa = {1, NULL, NULL, -1.3, 20.5, 0, NULL, 0, 0};
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++)
                        for (int32_t ch = 0; ch < cn; ch++)
                            gt_set(&e8, x, y, ch,
                                   sat(GIP_U8,
                                       fabsf(fmaf((float)gt_get(&a, x, y, ch), -1.3f, 20.5f))));
                snprintf(label, sizeof label, "convert_scale_abs %lldx%lld %s c%d", (long long)sz.w,
                         (long long)sz.h, gip_dtype_name(dt), cn);
                if (GT_OK(gt_run_unary(ctx, run_misc, &a, &d8, &sa, 0x3C)))
                    gt_compare(&d8, &e8, 0, 0, label);
                /* normalize minmax onto [0, 255] into src's dtype, with a mask on one channel:
                 * OpenCV's scale and shift in double, applied as convert (fmaf). */
                for (int masked = 0; masked < 2; masked++) {
                    if (masked && cn != 1)
                        continue;
                    double mn = DBL_MAX, mx = -DBL_MAX;
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < cn; ch++) {
                                if (masked && gt_get(&m, x, y, 0) == 0)
                                    continue;
                                double v = gt_get(&a, x, y, ch);
                                mn = v < mn ? v : mn;
                                mx = v > mx ? v : mx;
                            }
                    double scale =
                        mn > mx ? 0 : 255.0 * (mx - mn > DBL_EPSILON ? 1.0 / (mx - mn) : 0);
                    double shift = mn > mx ? 0 : 0 - mn * scale;
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < cn; ch++) {
                                bool off = masked && gt_get(&m, x, y, 0) == 0;
                                double r =
                                    fmaf((float)gt_get(&a, x, y, ch), (float)scale, (float)shift);
                                gt_set(&exp, x, y, ch, off ? 0 : sat(dt, r));
                            }
                    misc_args nm = {4,    NULL, masked ? m_ctx : NULL, 255, 0, 0,
                                    NULL, 0,    GIP_NORM_MINMAX};
                    snprintf(label, sizeof label, "normalize%s %lldx%lld %s c%d",
                             masked ? " masked" : "", (long long)sz.w, (long long)sz.h,
                             gip_dtype_name(dt), cn);
                    if (GT_OK(gt_run_unary(ctx, run_misc, &a, &dst, &nm, 0x3C)))
                        gt_compare(&dst, &exp, dt == GIP_F32 ? 1e-4 : 0, 0, label);
                }
                /* extract each channel */
                for (int32_t ch = 0; ch < cn; ch++) {
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            gt_set(&e1, x, y, 0, gt_get(&a, x, y, ch));
                    misc_args ex = {5, NULL, NULL, ch, 0, 0, NULL, 0, 0};
                    snprintf(label, sizeof label, "extract_channel %d %lldx%lld %s c%d", ch,
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(dt), cn);
                    if (GT_OK(gt_run_unary(ctx, run_misc, &a, &one, &ex, 0x3C)))
                        gt_compare(&one, &e1, 0, 0, label);
                }
                if (dt == GIP_U8) {
                    for (int tcn = 1; tcn <= cn; tcn += cn > 1 ? cn - 1 : 1) {
                        misc_args lu = {2, NULL, NULL, 0, 0, 0, table, tcn, 0};
                        for (int64_t y = 0; y < sz.h; y++)
                            for (int64_t x = 0; x < sz.w; x++)
                                for (int32_t ch = 0; ch < cn; ch++)
                                    gt_set(&exp, x, y, ch,
                                           table[(tcn == 1 ? 0 : ch) * 256 +
                                                 (int)gt_get(&a, x, y, ch)]);
                        snprintf(label, sizeof label, "lut %d %lldx%lld c%d", tcn, (long long)sz.w,
                                 (long long)sz.h, cn);
                        if (GT_OK(gt_run_unary(ctx, run_misc, &a, &dst, &lu, 0x3C)))
                            gt_compare(&dst, &exp, 0, 0, label);
                    }
                    misc_args ga = {3, NULL, NULL, 2.2, 0, 0, NULL, 0, 0};
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < cn; ch++)
                                gt_set(&exp, x, y, ch,
                                       nearbyint(255 * pow(gt_get(&a, x, y, ch) / 255, 2.2)));
                    snprintf(label, sizeof label, "gamma %lldx%lld c%d", (long long)sz.w,
                             (long long)sz.h, cn);
                    if (GT_OK(gt_run_unary(ctx, run_misc, &a, &dst, &ga, 0x3C)))
                        gt_compare(&dst, &exp, 0, 0, label);
                }
            out:
                if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
                    gip_image_free(ctx, &db);
                    gip_image_free(ctx, &dm);
                }
                gt_free(&a);
                gt_free(&b);
                gt_free(&m);
                gt_free(&dst);
                gt_free(&d8);
                gt_free(&exp);
                gt_free(&e8);
                gt_free(&one);
                gt_free(&e1);
            }
}

static void bad_inputs(gip_context *ctx)
{
    gip_image a, b, f, small, dst, m3;
    gt_alloc(&a, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&b, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&f, 20, 10, 3, GIP_F32, 0);
    gt_alloc(&small, 20, 9, 3, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&m3, 20, 10, 3, GIP_U8, 0);
    gt_poison(&dst, 0x5A);
    gip_arith_params p;
    memset(&p, 0, sizeof p);
    GT_STATUS(gip_arith(ctx, &a, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_arith(NULL, &a, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.op = (gip_arith_op)10;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.op = GIP_ARITH_ADD;
    p.src2 = &small;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_SHAPE_MISMATCH);
    p.src2 = &f;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_SHAPE_MISMATCH);
    p.src2 = &b;
    p.mask = &m3;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_SHAPE_MISMATCH);
    p.mask = &dst;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_SHAPE_MISMATCH);
    p.mask = NULL;
    p.src2 = NULL;
    p.value[0] = NAN;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.value[0] = 1;
    p.reverse = 1;
    GT_STATUS(gip_arith(ctx, &a, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.reverse = 0;
    p.op = GIP_ARITH_AND;
    GT_STATUS(gip_arith(ctx, &f, &f, &p), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_add_weighted(ctx, &a, 1, &small, 1, 0, &dst), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_add_weighted(ctx, &a, NAN, &b, 1, 0, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_convert_scale_abs(ctx, &f, &f, 1, 0), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_lut(ctx, &a, &dst, NULL, 1), GIP_ERR_INVALID_ARGUMENT);
    uint8_t t[256] = {0};
    GT_STATUS(gip_lut(ctx, &a, &dst, t, 2), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_lut(ctx, &f, &f, t, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_gamma(ctx, &a, &dst, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_normalize(ctx, &a, &dst, 1, 0, (gip_norm_type)3, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_normalize(ctx, &a, &dst, 1, 0, GIP_NORM_L2, &m3), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_extract_channel(ctx, &a, &dst, 0), GIP_ERR_SHAPE_MISMATCH);
    bool untouched = true;
    for (int64_t i = 0; i < 600; i++)
        untouched &= ((uint8_t *)dst.data)[i] == 0x5A;
    GT_CHECK(untouched, "arith: a refused call wrote into dst");
    gt_free(&a);
    gt_free(&b);
    gt_free(&f);
    gt_free(&small);
    gt_free(&dst);
    gt_free(&m3);
}

/* u8 tables over rows whose data and strides are 16-byte aligned (the CUDA backend's 16-bytes-
 * a-thread path): widths around multiples of 16 elements, so that rows end in every tail length,
 * one table or one per channel, and a threshold (a table built from the rule). */
static void lut_aligned(gip_context *ctx)
{
    static const int64_t ws[] = {1, 5, 15, 16, 17, 31, 48, 100, 333, 1001};
    static const int32_t chans[] = {1, 3, 4};
    uint8_t table[4 * 256];
    for (int i = 0; i < 4 * 256; i++)
        table[i] = (uint8_t)((i * 73 + 5 + i / 256 * 101) % 256);
    uint64_t seed = 4242;
    for (int wi = 0; wi < (int)(sizeof ws / sizeof ws[0]); wi++)
        for (int c = 0; c < 3; c++)
            for (int tcn = 1; tcn <= chans[c]; tcn += chans[c] > 1 ? chans[c] - 1 : 1) {
                if (!gt_case())
                    continue;
                const int64_t w = ws[wi], h = 7;
                const int32_t cn = chans[c];
                gip_image a, dst, exp;
                gt_alloc(&a, w, h, cn, GIP_U8, gt_pad16(w, cn, GIP_U8) + 16 * (wi % 2));
                gt_alloc(&dst, w, h, cn, GIP_U8, gt_pad16(w, cn, GIP_U8));
                gt_alloc(&exp, w, h, cn, GIP_U8, 0);
                gt_fill_random(&a, seed++, 0, 256);
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++)
                        for (int32_t ch = 0; ch < cn; ch++)
                            gt_set(&exp, x, y, ch,
                                   table[(tcn == 1 ? 0 : ch) * 256 + (int)gt_get(&a, x, y, ch)]);
                char label[96];
                snprintf(label, sizeof label, "lut %d %lldx%lld c%d, aligned rows", tcn,
                         (long long)w, (long long)h, cn);
                misc_args lu = {2, NULL, NULL, 0, 0, 0, table, tcn, 0};
                if (GT_OK(gt_run_unary(ctx, run_misc, &a, &dst, &lu, 0x3C))) {
                    gt_compare(&dst, &exp, 0, 0, label);
                    GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                }
                gt_free(&a);
                gt_free(&dst);
                gt_free(&exp);
            }
}

static void body(gip_context *ctx)
{
    for (aligned_rows = 0; aligned_rows < 2; aligned_rows++) {
        arith(ctx);
        misc(ctx);
    }
    lut_aligned(ctx);
    bad_inputs(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "arith", body);
}
