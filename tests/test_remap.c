/* SPDX-License-Identifier: MIT */
/* gip_remap (and the remap step through gip_op_apply_inputs) against a double-precision
 * reference written here (nearest rounded half to even, bilinear, OpenCV's borders) on every
 * dtype, channel count, border, awkward size and padded stride; identity maps copy exactly; on
 * CUDA equal to the CPU bit for bit; bad input refused with the output untouched. */
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

static double tap(const gip_image *s, int64_t x, int64_t y, int32_t c, const gip_border_spec *b)
{
    if (x >= 0 && x < s->width && y >= 0 && y < s->height)
        return gt_get(s, x, y, c);
    if (b->mode == GIP_BORDER_CONSTANT)
        return b->value[c];
    return gt_get(s, ref_border_map(x, s->width, b->mode), ref_border_map(y, s->height, b->mode),
                  c);
}

typedef struct remap_case {
    const gip_image *mx, *my;
    gip_warp_params p;
} remap_case;

static gip_status run_remap(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    const remap_case *r = a;
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_remap(ctx, src, dst, r->mx, r->my, &r->p);
    /* the maps go where the images are */
    gip_image dx, dy;
    gip_status st =
        gip_image_alloc(ctx, &dx, r->mx->width, r->mx->height, 1, GIP_F32, GIP_MEM_CUDA, 0);
    if (st)
        return st;
    if ((st =
             gip_image_alloc(ctx, &dy, r->my->width, r->my->height, 1, GIP_F32, GIP_MEM_CUDA, 0))) {
        gip_image_free(ctx, &dx);
        return st;
    }
    if (!(st = gip_upload(ctx, r->mx, &dx)) && !(st = gip_upload(ctx, r->my, &dy)))
        st = gip_remap(ctx, src, dst, &dx, &dy, &r->p);
    if (!st)
        st = gip_context_sync(ctx);
    gip_image_free(ctx, &dy);
    gip_image_free(ctx, &dx);
    return st;
}

static void cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    uint64_t seed = 41;
    for (int s = 0; s < gt_nsizes; s++) {
        const gt_size sz = gt_sizes[s];
        if (sz.w * sz.h > 100000)
            continue;
        const int64_t dw = sz.w + 4, dh = sz.h + 1;
        gip_image mx, my;
        gt_alloc(&mx, dw, dh, 1, GIP_F32, 12);
        gt_alloc(&my, dw, dh, 1, GIP_F32, 0);
        uint64_t r = 77 + s;
        for (int64_t y = 0; y < dh; y++)
            for (int64_t x = 0; x < dw; x++) {
                gt_set(&mx, x, y, 0, gt_rand_unit(&r) * (sz.w + 6) - 3);
                gt_set(&my, x, y, 0, gt_rand_unit(&r) * (sz.h + 6) - 3);
            }
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t b = 0; b < sizeof borders / sizeof borders[0]; b++)
                    for (int nearest = 0; nearest < 2; nearest++, seed++) {
                        if (!gt_case())
                            continue;
                        remap_case rc = {&mx, &my, GIP_WARP_PARAMS_DEFAULT};
                        rc.p.flags = nearest ? GIP_INTER_NEAREST : GIP_INTER_LINEAR;
                        rc.p.border.mode = borders[b];
                        for (int k = 0; k < 4; k++)
                            rc.p.border.value[k] = (float)(3 + k);
                        gip_image src, dst, exp;
                        gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                        gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                        gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                        gt_fill_random(&src, seed, 0, 0);
                        char label[96];
                        snprintf(label, sizeof label, "remap %lldx%lld %s c%d %s %s",
                                 (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                                 (int)chans[c], gip_border_name(borders[b]),
                                 nearest ? "nearest" : "linear");
                        if (GT_OK(gt_run_unary(ctx, run_remap, &src, &dst, &rc, 0x5A))) {
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                            if (cpu) {
                                if (GT_OK(gip_remap(cpu, &src, &exp, &mx, &my, &rc.p)))
                                    gt_compare(&dst, &exp, 0, 0, label);
                            } else {
                                /* the maps hold single-precision positions: the reference reads
                                 * the same ones; bilinear weights differ by rounding only */
                                double worst = 0;
                                for (int64_t y = 0; y < dh; y++)
                                    for (int64_t x = 0; x < dw; x++)
                                        for (int32_t ch = 0; ch < chans[c]; ch++) {
                                            const double sx = gt_get(&mx, x, y, 0),
                                                         sy = gt_get(&my, x, y, 0);
                                            double v;
                                            if (nearest)
                                                v = tap(&src, (int64_t)nearbyint(sx),
                                                        (int64_t)nearbyint(sy), ch, &rc.p.border);
                                            else {
                                                const int64_t ix = (int64_t)floor(sx),
                                                              iy = (int64_t)floor(sy);
                                                const double fx = sx - ix, fy = sy - iy;
                                                v = (1 - fy) * ((1 - fx) * tap(&src, ix, iy, ch,
                                                                               &rc.p.border) +
                                                                fx * tap(&src, ix + 1, iy, ch,
                                                                         &rc.p.border)) +
                                                    fy * ((1 - fx) * tap(&src, ix, iy + 1, ch,
                                                                         &rc.p.border) +
                                                          fx * tap(&src, ix + 1, iy + 1, ch,
                                                                   &rc.p.border));
                                            }
                                            gt_set(&exp, x, y, ch, v);
                                            const double e = fabs(gt_get(&dst, x, y, ch) -
                                                                  gt_get(&exp, x, y, ch));
                                            if (e > worst)
                                                worst = e;
                                        }
                                /* u8/u16: a level (rounding at .5); f32: float weights */
                                const double tol = nearest ? 0 : dtypes[d] == GIP_F32 ? 1e-3 : 1;
                                GT_CHECK(worst <= tol, "%s: largest difference %g > %g", label,
                                         worst, tol);
                            }
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
        gt_free(&mx);
        gt_free(&my);
    }
    gip_context_destroy(cpu);
}

static void identity_registry_and_bad_input(gip_context *ctx)
{
    gip_image src, dst, mx, my, small;
    gt_alloc(&src, 21, 13, 3, GIP_U8, 3);
    gt_alloc(&dst, 21, 13, 3, GIP_U8, 0);
    gt_alloc(&mx, 21, 13, 1, GIP_F32, 0);
    gt_alloc(&my, 21, 13, 1, GIP_F32, 0);
    gt_alloc(&small, 20, 13, 1, GIP_F32, 0);
    gt_fill_random(&src, 3, 0, 0);
    for (int64_t y = 0; y < 13; y++)
        for (int64_t x = 0; x < 21; x++) {
            gt_set(&mx, x, y, 0, (double)x);
            gt_set(&my, x, y, 0, (double)y);
        }
    remap_case rc = {&mx, &my, GIP_WARP_PARAMS_DEFAULT};
    if (GT_OK(gt_run_unary(ctx, run_remap, &src, &dst, &rc, 0x11)))
        gt_compare(&dst, &src, 0, 0, "identity maps");
    gip_warp_params p = GIP_WARP_PARAMS_DEFAULT;
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
        gt_poison(&dst, 0x77);
        GT_STATUS(gip_remap(ctx, &src, &dst, &small, &my, &p), GIP_ERR_SHAPE_MISMATCH);
        GT_STATUS(gip_remap(ctx, &src, &dst, NULL, &my, &p), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_remap(ctx, &src, &dst, &src, &my, &p), GIP_ERR_UNSUPPORTED);
        p.flags = GIP_INTER_LINEAR | GIP_WARP_INVERSE_MAP;
        GT_STATUS(gip_remap(ctx, &src, &dst, &mx, &my, &p), GIP_ERR_INVALID_ARGUMENT);
        p.flags = GIP_INTER_LANCZOS4;
        GT_STATUS(gip_remap(ctx, &src, &dst, &mx, &my, &p), GIP_ERR_INVALID_ARGUMENT);
        for (int64_t i = 0; i < 21 * 3; i++)
            GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                     (long long)i);
        /* the registry: maps as inputs */
        const gip_op *op = gip_op_find("remap");
        gip_args *a = NULL;
        if (GT_CHECK(op && op->ninputs == 2, "remap is not registered with two inputs") &&
            GT_OK(gip_args_create(op, &a))) {
            GT_OK(gip_args_set_text(a, "interpolation", "nearest"));
            const gip_image *in[2] = {&mx, &my};
            if (GT_OK(gip_op_apply_inputs(ctx, a, &src, in, 2, &dst)))
                gt_compare(&dst, &src, 0, 0, "remap step, identity maps");
            const gip_image *missing[2] = {&mx, NULL};
            GT_STATUS(gip_op_apply_inputs(ctx, a, &src, missing, 2, &dst),
                      GIP_ERR_INVALID_ARGUMENT);
            gip_args_free(a);
        }
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&mx);
    gt_free(&my);
    gt_free(&small);
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_case())
        identity_registry_and_bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "remap", body);
}
