/* SPDX-License-Identifier: MIT */
/* laplacian (gip_laplacian, as cv2.Laplacian): OpenCV's 3x3 kernels through gip_filter2d, the
 * second-order Sobel kernels (dxx + dyy as one integer 2-D kernel) through the 2-D engine, whose
 * integer sums are exact and identical on both backends; its registry entry. */
#include <math.h>
#include <string.h>

#include "gip/edges.h"
#include "gip/filter.h"
#include "engine/filter2d/filter2d.h"
#include "ops/filter/sobel.h"
#include "ops/op_check.h"
#include "registry/registry.h"

static const char OP[] = "gip_laplacian";

gip_status gip_laplacian(gip_context *ctx, const gip_image *src, gip_image *dst,
                         const gip_laplacian_params *params)
{
    bool on_device = false;
    gip_status st = gip__f2d_check_images_depths(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", OP);
    const int32_t k = params->ksize ? params->ksize : 1;
    if (k != 1 && k != 3 && k != 5 && k != 7)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %d is invalid: 1, 3, 5 or 7 are accepted", OP,
                          (int)params->ksize);
    if (!isfinite(params->scale) || !isfinite(params->delta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: scale and delta must be finite numbers", OP);
    if ((st = gip__f2d_check_border(ctx, &params->border, OP)))
        return st;
    if (params->border.mode == GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border wrap is not accepted (as by cv2.Laplacian)", OP);
    if ((st = gip__check_cuda_built(ctx, on_device, OP)))
        return st;
    const float scale = params->scale != 0.0f ? params->scale : 1.0f;
    if (k <= 3) {
        /* OpenCV: filter2D with the kernel times scale, and delta. */
        static const float k1[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0},
                           k3[9] = {2, 0, 2, 0, -8, 0, 2, 0, 2};
        float kern[9];
        for (int i = 0; i < 9; i++)
            kern[i] = (k == 1 ? k1 : k3)[i] * scale;
        gip_filter2d_params fp = {.kernel = kern,
                                  .ksize_w = 3,
                                  .ksize_h = 3,
                                  .delta = params->delta,
                                  .border = params->border,
                                  .method = GIP_CONV_DIRECT};
        return gip_filter2d(ctx, src, dst, &fp);
    }
    int32_t dxx[9], sy[9], sx[9], dyy[9], n1, n2, n3, n4;
    gip__sobel_factors(2, 0, k, dxx, &n1, sy, &n2);
    gip__sobel_factors(0, 2, k, sx, &n3, dyy, &n4);
    gip__f2d_plan plan = {0};
    if ((st = gip__f2d_plan_alloc(ctx, &plan, k * k, OP)))
        return st;
    plan.kw = plan.kh = k;
    plan.ax = plan.ay = k / 2;
    for (int32_t y = 0; y < k; y++)
        for (int32_t x = 0; x < k; x++) {
            const int32_t v = dxx[x] * sy[y] + sx[x] * dyy[y];
            if (v != 0)
                plan.taps[plan.ntaps++] = (gip__f2d_tap){x - k / 2, y - k / 2, (float)v, 0};
        }
    gip__f2d_plan_border(&plan, &params->border, src->dtype);
    gip__f2d_plan_choose_int(&plan, src->dtype);
    plan.init = 0.0f;
    plan.scale = scale;
    plan.delta = params->delta;
    plan.affine = scale != 1.0f || params->delta != 0.0f;
    plan.post = GIP__F2D_PLAIN;
#ifdef GIP_HAVE_CUDA
    if (on_device)
        st = gip__f2d_run_cuda(ctx, &plan, src, dst);
    else
#endif
        st = gip__f2d_run_cpu(ctx, &plan, src, dst);
    gip__f2d_plan_free(&plan);
    return st;
}

static const gip_choice ksizes[] = {{"1", 1}, {"3", 3}, {"5", 5}, {"7", 7}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM("ksize", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, ksizes, "1",
               "aperture: 1 and 3 (OpenCV's 3x3 kernels), 5 or 7 (second-order Sobel)"),
    GIP__PARAM("scale", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "1",
               "multiplies the result (not 0)"),
    GIP__PARAM("delta", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added to the result"),
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__ddepth_choices, "same",
               "the result's dtype (cv2's ddepth): same as the input, u8, u16, s16 or f32"),
    GIP__BORDER_PARAMS,
};

typedef struct step {
    gip_laplacian_params p;
    int32_t dtype;
} step;

static gip_status build(const gip_args *a, void *out)
{
    step *s = out;
    s->dtype = (int32_t)gip_args_int(a, "dtype");
    s->p.ksize = (int32_t)gip_args_int(a, "ksize");
    const double scale = gip_args_double(a, "scale");
    if (scale == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "laplacian: scale must not be 0");
    s->p.scale = (float)scale;
    s->p.delta = (float)gip_args_double(a, "delta");
    return gip__args_border(a, &s->p.border);
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const int32_t k = ((const step *)params)->p.ksize;
    *hx = *hy = k <= 3 ? 1 : k / 2;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_laplacian(ctx, src, dst, &((const step *)p)->p);
}

const gip_op gip__op_laplacian = {
    .name = "laplacian",
    .family = "filter",
    .summary = "Laplacian d2/dx2 + d2/dy2, as cv2.Laplacian.",
    .doc = "OpenCV's kernels (ksize 1 and 3: 3x3; 5 and 7: the second-order Sobel kernels) times "
           "scale plus delta, into the dtype asked for, rounded half to even and saturated. "
           "Integer sources are summed exactly: u8 results equal cv2.Laplacian's and are "
           "identical on CPU and CUDA.",
    .cv_name = "cv2.Laplacian",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(step),
    .dtype_at = GIP_OP_AT(step, dtype),
    .build = build,
    .halo = halo,
    .border_at = GIP_OP_AT(step, p.border),
    .run = run,
};
