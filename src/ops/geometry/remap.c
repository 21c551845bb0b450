/* SPDX-License-Identifier: MIT */
/* remap, as cv2.remap with float or fixed-point maps: dst(x, y) = src(mapx(x, y), mapy(x, y)),
 * nearest or bilinear with every border (the sampling of the warps, warp.h); gip_remap() and the
 * registry's description (an operation that reads two more images). The CPU backend is the
 * warps' rows (warp.c), fed by the maps. */
#include <stdbool.h>
#include <string.h>

#include "ops/geometry/remap.h"
#include "ops/geometry/warp_lanczos.h"
#include "ops/geometry/warp_params.h"
#include "ops/op_check.h"
#include "registry/registry.h"

/* A map of the output's size (`wide`: twice its width, x and y pairs) in dst's memory. */
static gip_status check_map(gip_context *ctx, const gip_image *m, const gip_image *dst,
                            gip_dtype dtype, int wide, const char *what, const char *op)
{
    gip_status st = gip__image_check_ctx(ctx, m, op, what);
    if (st)
        return st;
    if (m->dtype != dtype || m->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s is %d-channel %s; it must be 1-channel %s (%s)", op, what,
                          (int)m->channels, gip_dtype_name(m->dtype), gip_dtype_name(dtype),
                          dtype == GIP_F32   ? "float maps: map1 = x, map2 = y"
                          : dtype == GIP_S16 ? "fixed-point maps: map1 holds x, y pairs"
                                             : "fixed-point maps: map2 holds 32 fy + fx");
    if (m->width != dst->width * (wide ? 2 : 1) || m->height != dst->height)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: %s is %lldx%lld but dst is %lldx%lld; it must be %lldx%lld%s", op,
                          what, (long long)m->width, (long long)m->height, (long long)dst->width,
                          (long long)dst->height, (long long)dst->width * (wide ? 2 : 1),
                          (long long)dst->height, wide ? " (an x, y pair per pixel)" : "");
    if ((m->memory == GIP_MEM_CUDA) != (dst->memory == GIP_MEM_CUDA))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s and dst must both be host or both device memory", op, what);
    if (gip__images_overlap(m, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: %s and dst overlap", op, what);
    return GIP_OK;
}

/* The CPU rows of a fixed-point remap. */
typedef struct fixed_job {
    const gip__warp *w;
    const gip_image *src, *dst, *mxy, *mf;
} fixed_job;

static void fixed_rows(void *arg, int64_t y0, int64_t y1)
{
    const fixed_job *j = arg;
    const uint8_t *src = j->src->data;
    for (int64_t y = y0; y < y1; y++) {
        const int16_t *xy = (const int16_t *)((const uint8_t *)j->mxy->data + y * j->mxy->stride);
        const uint16_t *f =
            j->mf ? (const uint16_t *)((const uint8_t *)j->mf->data + y * j->mf->stride) : NULL;
        uint8_t *drow = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < j->dst->width; x++)
            gip__warp_sample_fixed(j->w, src, j->src->stride, drow, x, xy[2 * x], xy[2 * x + 1],
                                   f ? f[x] & 1023 : -1);
    }
}

gip_status gip_remap(gip_context *ctx, const gip_image *src, gip_image *dst, const gip_image *mapx,
                     const gip_image *mapy, const gip_warp_params *params)
{
    static const char op[] = "gip_remap";
    const gip_warp_params def = GIP_WARP_PARAMS_DEFAULT;
    const gip_warp_params *p = params ? params : &def;
    if (p->flags & GIP_WARP_INVERSE_MAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: GIP_WARP_INVERSE_MAP has no meaning for a map", op);
    const double identity[6] = {1, 0, 0, 0, 1, 0};
    gip__warp w;
    gip_status st = gip__warp_setup(ctx, &w, identity, 0, p->flags | GIP_WARP_INVERSE_MAP,
                                    &p->border, p->transparent, src, op);
    if (st)
        return st;
    bool on_device = false;
    if ((st = gip__check_pair(ctx, src, dst, op, &on_device)))
        return st;
    /* Float maps (f32 x and y), or fixed-point ones (s16 x, y pairs and u16 fractions or
     * none). */
    const bool fixed = mapx && mapx->dtype == GIP_S16;
    if (fixed) {
        if ((st = check_map(ctx, mapx, dst, GIP_S16, 1, "map1", op)) ||
            (mapy && (st = check_map(ctx, mapy, dst, GIP_U16, 0, "map2", op))))
            return st;
        if (w.interp == GIP_INTER_CUBIC)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: fixed-point maps take nearest, linear or lanczos4 "
                              "interpolation",
                              op);
    } else if ((st = check_map(ctx, mapx, dst, GIP_F32, 0, "map1", op)) ||
               (st = check_map(ctx, mapy, dst, GIP_F32, 0, "map2", op))) {
        return st;
    }
    if ((st = gip__warp_check_images(ctx, src, dst, op)))
        return st;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        if (w.interp == GIP_INTER_LANCZOS4)
            return gip__lanczos_cuda(ctx, src, dst, &w, mapx, mapy, fixed);
        return fixed ? gip__remap_fixed_cuda(ctx, src, mapx, mapy, dst, &w)
                     : gip__remap_cuda(ctx, src, mapx, mapy, dst, &w);
#else
        return gip__cuda_not_built(ctx, op);
#endif
    }
    if (fixed && w.interp == GIP_INTER_LANCZOS4) {
        gip__lanczos_cpu(ctx, src, dst, &w, mapx, mapy, 1);
        return GIP_OK;
    }
    if (fixed) {
        fixed_job j = {&w, src, dst, mapx, mapy};
        gip__parallel_for(ctx, dst->height, 8, fixed_rows, &j);
        return GIP_OK;
    }
    gip__warp_remap_cpu(ctx, src, dst, mapx, mapy, &w);
    return GIP_OK;
}

static const gip_param decl[] = {
    GIP__PARAM("dsize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL, 0, 2147483647, 0, NULL, "0",
               "the output size WxH, the maps' size; 0: the source's"),
    GIP__PARAM("interpolation", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__warp_interps, "linear",
               "nearest, linear, cubic or lanczos4 (area is linear; fixed-point maps: nearest, "
               "linear or lanczos4)"),
    GIP__PARAM("border", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__warp_borders, "constant",
               "cv2's borderMode: constant, replicate, reflect, wrap, reflect101, or transparent "
               "(outside pixels keep dst's value)"),
    GIP__PARAM("border_value", GIP_PARAM_LIST, 0, -3.4e38, 3.4e38, 4, NULL, "0",
               "the value outside the image with border=constant: one number, or one per "
               "channel"),
};

static const gip_input inputs[] = {
    {.name = "map1",
     .flags = 0,
     .dtypes = GIP_DTYPE_BIT(GIP_F32) | GIP_DTYPE_BIT(GIP_S16),
     .channels = GIP_CHANNELS_BIT(1),
     .doc = "the source x of each output pixel: one-channel f32 of the output's size; or "
            "fixed-point (cv2.convertMaps' CV_16SC2): s16 x, y pairs, twice the output's width"},
    {.name = "map2",
     .flags = GIP_INPUT_OPTIONAL,
     .dtypes = GIP_DTYPE_BIT(GIP_F32) | GIP_DTYPE_BIT(GIP_U16),
     .channels = GIP_CHANNELS_BIT(1),
     .doc = "the source y of each output pixel: one-channel f32 of the output's size; with a "
            "fixed-point map1, u16 32 fy + fx (CV_16UC1) or none (nearest, whole pixels)"},
};

typedef struct remap_step {
    int32_t dw, dh;
    gip_warp_params w;
} remap_step;

static gip_status build(const gip_args *a, void *out)
{
    remap_step *p = out;
    return gip__warp_args_out(a, &p->dw, &p->dh, &p->w);
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const remap_step *p = params;
    (void)identity;
    out->width = p->dw > 0 ? p->dw : in->width;
    out->height = p->dh > 0 ? p->dh : in->height;
    return GIP_OK;
}

static gip_status run_inputs(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                             gip_image *dst, const void *params)
{
    return gip_remap(ctx, src, dst, in[0], in[1], &((const remap_step *)params)->w);
}

static int32_t reads_dst(const void *params)
{
    return ((const remap_step *)params)->w.transparent != 0;
}

const gip_op gip__op_remap = {
    .name = "remap",
    .family = "geometry",
    .summary = "Samples the image at the positions two maps give, as cv2.remap.",
    .doc = "dst(x, y) = src(map1(x, y), map2(x, y)), nearest (rounded half to even) or "
           "bilinear with fused single-precision weights as OpenCV 5 computes them, so u8 "
           "results equal cv2.remap's; every border incl. transparent. The maps are one-channel "
           "f32 images of the output's size (dsize); a 2-channel map is given split. "
           "Fixed-point maps (cv2.convertMaps, gip_convert_maps()) are taken too: map1 s16 x, y "
           "pairs and map2 u16 fractions in 1/32 pixel, sampled with OpenCV's tables (u8 "
           "integer weights), nearest or linear; results equal cv2.remap's with such maps except "
           "where, under the transparent border, cv2 reads outside the source. CPU and CUDA "
           "give identical results. Reads the whole image (not tiled).",
    .cv_name = "cv2.remap",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(remap_step),
    .build = build,
    .shape = shape,
    GIP__INPUTS(inputs),
    .run_inputs = run_inputs,
    .reads_dst = reads_dst,
};
