/* SPDX-License-Identifier: MIT */
/* gip_warp_affine and gip_warp_perspective against a double-precision reference written here
 * (the inverse map, nearest, bilinear, bicubic and Lanczos-4 sampling, OpenCV's borders) on every
 * dtype, channel count, border, awkward size and padded stride, within what single-precision
 * coordinates allow; identity matrices copy exactly; on CUDA equal to the CPU bit for bit; bad
 * input refused with the output untouched. (Bit-exactness against cv2 itself is
 * python/tests/test_geometry.py.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/geometry.h"
#include "ref_filter.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const gip_border borders[] = {GIP_BORDER_CONSTANT, GIP_BORDER_REPLICATE, GIP_BORDER_REFLECT,
                                     GIP_BORDER_WRAP, GIP_BORDER_REFLECT_101};

typedef struct warp_case {
    int persp;
    double m[9];
    gip_warp_params p;
} warp_case;

static gip_status run_warp(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    const warp_case *w = a;
    return w->persp ? gip_warp_perspective(ctx, src, dst, w->m, &w->p)
                    : gip_warp_affine(ctx, src, dst, w->m, &w->p);
}

static double tap(const gip_image *src, int64_t x, int64_t y, int32_t c, const gip_border_spec *b)
{
    if (x >= 0 && x < src->width && y >= 0 && y < src->height)
        return gt_get(src, x, y, c);
    if (b->mode == GIP_BORDER_CONSTANT)
        return b->value[c];
    return gt_get(src, ref_border_map(x, src->width, b->mode),
                  ref_border_map(y, src->height, b->mode), c);
}

/* OpenCV's fixed-point position (1/32 pixel) of output pixel (x, y) of a dw x dh Lanczos warp:
 * affine in integers (10 fraction bits, rounded, + 16, >> 5); perspective in double with the
 * column split at OpenCV's blocks of bw0 columns. */
static void lz_position(const double *m, int persp, int64_t dw, int64_t dh, int64_t x, int64_t y,
                        int64_t *X, int64_t *Y)
{
    if (!persp) {
        *X = ((int64_t)nearbyint((m[1] * y + m[2]) * 1024) + 16 +
              (int64_t)nearbyint(m[0] * x * 1024)) >>
             5;
        *Y = ((int64_t)nearbyint((m[4] * y + m[5]) * 1024) + 16 +
              (int64_t)nearbyint(m[3] * x * 1024)) >>
             5;
        return;
    }
    const int64_t bh0 = dh < 16 ? dh : 16, bw0 = 1024 / bh0 < dw ? 1024 / bh0 : dw;
    const int64_t bx = x / bw0 * bw0, x1 = x - bx;
    const double X0 = m[0] * bx + m[1] * y + m[2], Y0 = m[3] * bx + m[4] * y + m[5];
    double W = m[6] * bx + m[7] * y + m[8] + m[6] * x1;
    W = W != 0 ? 32 / W : 0;
    *X = (int64_t)nearbyint((X0 + m[0] * x1) * W);
    *Y = (int64_t)nearbyint((Y0 + m[3] * x1) * W);
}

/* The reference; *skip marks pixels whose nearest source is ambiguous (a coordinate within 1e-3
 * of a half) and are not compared. */
/* Keys' cubic weights (a = -0.75) of the taps at -1, 0, 1, 2 for fraction t. */
static void keys(double t, double *w)
{
    const double A = -0.75;
    for (int k = 0; k < 4; k++) {
        const double x = fabs(t + 1 - k);
        w[k] = x < 1   ? ((A + 2) * x - (A + 3)) * x * x + 1
               : x < 2 ? ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
                       : 0;
    }
}

static void reference(const gip_image *src, gip_image *exp, const double *inv, int persp,
                      int nearest, int cubic, const gip_border_spec *b, uint8_t *skip)
{
    for (int64_t y = 0; y < exp->height; y++)
        for (int64_t x = 0; x < exp->width; x++) {
            if (cubic == 2) { /* Lanczos-4 at OpenCV's 1/32-pixel positions */
                int64_t X, Y;
                lz_position(inv, persp, exp->width, exp->height, x, y, &X, &Y);
                double wx[8], wy[8];
                ref_lanczos4((X & 31) / 32.0, wx);
                ref_lanczos4((Y & 31) / 32.0, wy);
                skip[y * exp->width + x] = 0;
                for (int32_t c = 0; c < src->channels; c++) {
                    double v = 0;
                    for (int i = 0; i < 8; i++)
                        for (int j = 0; j < 8; j++)
                            v += wy[i] * wx[j] * tap(src, (X >> 5) - 3 + j, (Y >> 5) - 3 + i, c, b);
                    gt_set(exp, x, y, c, v);
                }
                continue;
            }
            double w = persp ? inv[6] * x + inv[7] * y + inv[8] : 1;
            const double sx = (inv[0] * x + inv[1] * y + inv[2]) / w;
            const double sy = (inv[3] * x + inv[4] * y + inv[5]) / w;
            skip[y * exp->width + x] = 0;
            for (int32_t c = 0; c < src->channels; c++) {
                double v;
                if (nearest) {
                    const double fx = sx - floor(sx), fy = sy - floor(sy);
                    if (fabs(fx - 0.5) < 1e-3 || fabs(fy - 0.5) < 1e-3)
                        skip[y * exp->width + x] = 1;
                    v = tap(src, (int64_t)nearbyint(sx), (int64_t)nearbyint(sy), c, b);
                } else if (cubic) {
                    /* OpenCV 5 holds the position within [-m, 2m], m the side or 16, under the
                     * borders that repeat the image */
                    double cx = sx, cy = sy;
                    if (b->mode != GIP_BORDER_CONSTANT) {
                        const double mx = src->width > 16 ? (double)src->width : 16,
                                     my = src->height > 16 ? (double)src->height : 16;
                        cx = cx < -mx ? -mx : cx > 2 * mx ? 2 * mx : cx;
                        cy = cy < -my ? -my : cy > 2 * my ? 2 * my : cy;
                    }
                    const int64_t ix = (int64_t)floor(cx), iy = (int64_t)floor(cy);
                    double wx[4], wy[4];
                    keys(cx - ix, wx);
                    keys(cy - iy, wy);
                    v = 0;
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++)
                            v += wy[i] * wx[j] * tap(src, ix - 1 + j, iy - 1 + i, c, b);
                } else {
                    const int64_t ix = (int64_t)floor(sx), iy = (int64_t)floor(sy);
                    const double fx = sx - ix, fy = sy - iy;
                    v = (1 - fy) *
                            ((1 - fx) * tap(src, ix, iy, c, b) + fx * tap(src, ix + 1, iy, c, b)) +
                        fy * ((1 - fx) * tap(src, ix, iy + 1, c, b) +
                              fx * tap(src, ix + 1, iy + 1, c, b));
                }
                gt_set(exp, x, y, c, v);
            }
        }
}

static void invert(const warp_case *w, double *inv)
{
    if (w->persp) {
        const double *m = w->m;
        double d = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                   m[2] * (m[3] * m[7] - m[4] * m[6]);
        d = 1 / d;
        inv[0] = (m[4] * m[8] - m[5] * m[7]) * d;
        inv[1] = (m[2] * m[7] - m[1] * m[8]) * d;
        inv[2] = (m[1] * m[5] - m[2] * m[4]) * d;
        inv[3] = (m[5] * m[6] - m[3] * m[8]) * d;
        inv[4] = (m[0] * m[8] - m[2] * m[6]) * d;
        inv[5] = (m[2] * m[3] - m[0] * m[5]) * d;
        inv[6] = (m[3] * m[7] - m[4] * m[6]) * d;
        inv[7] = (m[1] * m[6] - m[0] * m[7]) * d;
        inv[8] = (m[0] * m[4] - m[1] * m[3]) * d;
    } else {
        gip_invert_affine_transform(w->m, inv);
        inv[6] = inv[7] = 0;
        inv[8] = 1;
    }
}

static void cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    uint64_t seed = 21;
    for (int s = 0; s < gt_nsizes; s++) {
        const gt_size sz = gt_sizes[s];
        if (sz.w * sz.h > 100000)
            continue; /* the rotation below covers it at 64x48; keeps the run short */
        const int64_t dw = sz.w + 3, dh = sz.h + 2;
        double rot[6];
        gip_get_rotation_matrix_2d(sz.w / 2.0, sz.h / 2.0, 33, 0.9, rot);
        for (int kind = 0; kind < 3; kind++)
            for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
                for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                    for (size_t b = 0; b < sizeof borders / sizeof borders[0]; b++)
                        for (int nearest = 0; nearest < 4;
                             nearest++, seed++) { /* linear, nearest, cubic, lanczos4 */
                            if (!gt_case())
                                continue;
                            warp_case w = {0};
                            w.persp = kind == 2;
                            if (kind == 0)
                                memcpy(w.m, rot, sizeof rot);
                            else if (kind == 1) {
                                const double m[6] = {1.3, 0.2, -3.5, -0.1, 0.8, 2.25};
                                memcpy(w.m, m, sizeof m);
                            } else {
                                const double m[9] = {0.9, 0.1, 3, -0.05, 1.1, -2, 0.001, -0.002, 1};
                                memcpy(w.m, m, sizeof m);
                            }
                            w.p.flags = nearest == 3   ? GIP_INTER_LANCZOS4
                                        : nearest == 2 ? GIP_INTER_CUBIC
                                        : nearest      ? GIP_INTER_NEAREST
                                                       : GIP_INTER_LINEAR;
                            w.p.border.mode = borders[b];
                            for (int k = 0; k < 4; k++)
                                w.p.border.value[k] = (float)(7 + k);
                            gip_image src, dst, exp;
                            gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                            gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                            gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                            gt_fill_random(&src, seed, 0, 0);
                            char label[128];
                            snprintf(label, sizeof label, "%s %lldx%lld %s c%d %s %s",
                                     kind == 0   ? "rotation"
                                     : kind == 1 ? "affine"
                                                 : "perspective",
                                     (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                                     (int)chans[c], gip_border_name(borders[b]),
                                     nearest == 3   ? "lanczos4"
                                     : nearest == 2 ? "cubic"
                                     : nearest      ? "nearest"
                                                    : "linear");
                            if (GT_OK(gt_run_unary(ctx, run_warp, &src, &dst, &w, 0x5A))) {
                                GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                                if (cpu) {
                                    if (GT_OK(run_warp(cpu, &src, &exp, &w)))
                                        gt_compare(&dst, &exp, 0, 0, label);
                                } else {
                                    double inv[9];
                                    invert(&w, inv);
                                    uint8_t *skip = malloc((size_t)(dw * dh));
                                    reference(&src, &exp, inv, w.persp, nearest == 1,
                                              nearest == 3 ? 2 : nearest == 2, &w.p.border, skip);
                                    /* single-precision coordinates: about 2^-22 of their
                                     * size, times the gradient (values 0..255, u16 full) */
                                    /* Lanczos: the positions are the reference's, the
                                     * weights OpenCV's tables (u8 15-bit integers) */
                                    const double tol = nearest == 1           ? 0
                                                       : dtypes[d] == GIP_F32 ? 0.01
                                                       : dtypes[d] == GIP_U16
                                                           ? 2 + 2 * (nearest == 2)
                                                           : 1;
                                    int64_t bad = 0;
                                    for (int64_t y = 0; y < dh; y++)
                                        for (int64_t x = 0; x < dw; x++)
                                            for (int32_t ch = 0; ch < chans[c] && !skip[y * dw + x];
                                                 ch++)
                                                if (fabs(gt_get(&dst, x, y, ch) -
                                                         gt_get(&exp, x, y, ch)) > tol &&
                                                    !bad++)
                                                    GT_CHECK(0,
                                                             "%s: first miss at x=%lld y=%lld "
                                                             "c=%d: got %g, expected %g",
                                                             label, (long long)x, (long long)y,
                                                             (int)ch, gt_get(&dst, x, y, ch),
                                                             gt_get(&exp, x, y, ch));
                                    free(skip);
                                }
                            }
                            gt_free(&src);
                            gt_free(&dst);
                            gt_free(&exp);
                        }
    }
    gip_context_destroy(cpu);
}

static void identity_and_bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 23, 17, 3, GIP_U16, 6);
    gt_alloc(&dst, 23, 17, 3, GIP_U16, 0);
    gt_fill_random(&src, 5, 0, 0);
    for (int persp = 0; persp < 2; persp++)
        for (int nearest = 0; nearest < 2; nearest++) {
            warp_case w = {persp, {1, 0, 0, 0, 1, 0, 0, 0, 1}, GIP_WARP_PARAMS_DEFAULT};
            w.p.flags = nearest ? GIP_INTER_NEAREST : GIP_INTER_LINEAR;
            if (GT_OK(gt_run_unary(ctx, run_warp, &src, &dst, &w, 0x11)))
                gt_compare(&dst, &src, 0, 0, persp ? "identity perspective" : "identity affine");
        }
    const double m[6] = {1, 0, 0, 0, 1, 0};
    gip_warp_params p = GIP_WARP_PARAMS_DEFAULT;
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_warp_affine(ctx, &src, &dst, NULL, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_warp_affine(ctx, NULL, &dst, m, &p), GIP_ERR_INVALID_ARGUMENT);
    p.flags = GIP_INTER_LINEAR_EXACT; /* resize's only */
    GT_STATUS(gip_warp_affine(ctx, &src, &dst, m, &p), GIP_ERR_INVALID_ARGUMENT);
    p.flags = GIP_INTER_LINEAR | 64;
    GT_STATUS(gip_warp_affine(ctx, &src, &dst, m, &p), GIP_ERR_INVALID_ARGUMENT);
    p.flags = GIP_INTER_LINEAR;
    p.border.mode = (gip_border)7;
    GT_STATUS(gip_warp_affine(ctx, &src, &dst, m, &p), GIP_ERR_INVALID_ARGUMENT);
    p.border.mode = GIP_BORDER_CONSTANT;
    const double bad[6] = {1, 0, INFINITY, 0, 1, 0};
    GT_STATUS(gip_warp_affine(ctx, &src, &dst, bad, &p), GIP_ERR_INVALID_ARGUMENT);
    gip_image d8;
    gt_alloc(&d8, 23, 17, 3, GIP_U8, 0);
    GT_STATUS(gip_warp_affine(ctx, &src, &d8, m, &p), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_warp_affine(ctx, &src, &src, m, &p), GIP_ERR_ALIASING);
    for (int64_t i = 0; i < 23 * 3; i++)
        GT_CHECK(((uint16_t *)dst.data)[i] == 0x7777, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&d8);
    gt_free(&src);
    gt_free(&dst);
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *pl = NULL;
    if (GT_OK(gip_pipeline_create(&d, &pl))) {
        GT_OK(gip_pipeline_parse(pl, "warp_affine 1,0,2,0,1,3 40x30 border=transparent", NULL));
        GT_STATUS(gip_pipeline_parse(pl, "warp_affine 1,0,2", NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_pipeline_parse(pl, "warp_perspective 1,0,0,0,1,0", NULL),
                  GIP_ERR_INVALID_ARGUMENT);
        gip_pipeline_free(pl);
    }
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_case())
        identity_and_bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "warp_affine", body);
}
