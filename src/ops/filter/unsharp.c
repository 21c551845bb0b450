/* SPDX-License-Identifier: MIT */
/* unsharp (gip_unsharp_mask): OpenCV's Gaussian blur, then the detail added back point by point
 * (the CPU loop here, the CUDA kernel in unsharp_cuda.cu, the same float operations); its
 * registry entry. */
#include <math.h>
#include <string.h>

#include "gip/filter.h"
#include "gip/smoothing.h"
#include "ops/filter/unsharp.h"
#include "ops/op_check.h"
#include "registry/registry.h"

static const char OP[] = "gip_unsharp_mask";

typedef struct unsharp_job {
    const gip_image *src, *blur;
    gip_image *dst;
    float alpha, beta, threshold;
} unsharp_job;

/* The value of one element, as cv2.addWeighted(src, alpha, blur, beta, 0) computes it and as the
 * CUDA kernel does: fma(s, alpha, b * beta). */
static inline float sharpen(float s, float b, float alpha, float beta, float t)
{
    if (fabsf(s - b) < t)
        return s;
    return fmaf(s, alpha, b * beta);
}

static void rows(void *arg, int64_t y0, int64_t y1)
{
    const unsharp_job *j = arg;
    const int64_t n = j->src->width * j->src->channels;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *s = (const uint8_t *)j->src->data + y * j->src->stride;
        const uint8_t *b = (const uint8_t *)j->blur->data + y * j->blur->stride;
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int64_t e = 0; e < n; e++)
            switch (j->src->dtype) {
            case GIP_U8:
                d[e] = gip__sat_u8_f32(sharpen(s[e], b[e], j->alpha, j->beta, j->threshold));
                break;
            case GIP_U16:
                ((uint16_t *)d)[e] =
                    gip__sat_u16_f32(sharpen(((const uint16_t *)s)[e], ((const uint16_t *)b)[e],
                                             j->alpha, j->beta, j->threshold));
                break;
            default:
                ((float *)d)[e] = sharpen(((const float *)s)[e], ((const float *)b)[e], j->alpha,
                                          j->beta, j->threshold);
            }
    }
}

gip_status gip_unsharp_mask(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip_unsharp_params *params)
{
    bool on_device = false;
    gip_status st = gip__check_unary_typed(ctx, src, dst, GIP__DT_IMAGE, OP, &on_device);
    if (st)
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", OP);
    if (!isfinite(params->amount) || !isfinite(params->threshold))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: amount and threshold must be finite numbers", OP);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    if ((st = gip__check_cuda_built(ctx, on_device, OP)))
        return st;
    gip_gaussian_params gp = {.ksize_w = params->ksize_w,
                              .ksize_h = params->ksize_h,
                              .sigma_x = params->sigma,
                              .sigma_y = params->sigma,
                              .border = params->border,
                              .method = GIP_CONV_DIRECT};
    gip_image blur = {0};
    if ((st = gip_image_alloc(ctx, &blur, src->width, src->height, src->channels, src->dtype,
                              on_device ? GIP_MEM_CUDA : GIP_MEM_HOST, 0)))
        return st;
    if ((st = gip_gaussian_blur(ctx, src, &blur, &gp)))
        goto out_free;
    const double amount = params->amount != 0 ? params->amount : 1.0;
    const float alpha = (float)(1.0 + amount), beta = (float)-amount;
    const float t = (float)params->threshold;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        st = gip__unsharp_cuda(ctx, src, &blur, dst, alpha, beta, t);
#endif
    } else {
        unsharp_job j = {src, &blur, dst, alpha, beta, t};
        gip__parallel_for(ctx, src->height, 16, rows, &j);
    }
out_free:
    gip_image_free(ctx, &blur);
    return st;
}

static const gip_param decl[] = {
    GIP__PARAM_EX("ksize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL | GIP_PARAM_ODD, 0, 1023, 0, NULL,
                  "0", "the Gaussian's width and height, odd, or 0 to derive them from sigma", "5"),
    GIP__PARAM("sigma", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, 0, 1e4, 0, NULL, "0",
               "the Gaussian's sigma; 0 derives it from ksize (as cv2.GaussianBlur)"),
    GIP__PARAM("amount", GIP_PARAM_DOUBLE, 0, -1e4, 1e4, 0, NULL, "1",
               "how much of the detail (src - blur) is added: dst = src + amount (src - blur)"),
    GIP__PARAM("threshold", GIP_PARAM_DOUBLE, 0, 0, 1e30, 0, NULL, "0",
               "where |src - blur| is below it, src is kept"),
    GIP__BORDER_PARAMS,
};

static gip_status build(const gip_args *a, void *out)
{
    gip_unsharp_params *p = out;
    gip_args_size(a, "ksize", &p->ksize_w, &p->ksize_h);
    p->sigma = gip_args_double(a, "sigma");
    p->amount = gip_args_double(a, "amount");
    if (p->amount == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "unsharp: amount 0 changes nothing; give another");
    p->threshold = gip_args_double(a, "threshold");
    if ((p->ksize_w == 0 || p->ksize_h == 0) && p->sigma <= 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "unsharp: give ksize or sigma (both are 0)");
    return gip__args_border(a, &p->border);
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_unsharp_params *p = params;
    *hx = p->ksize_w ? p->ksize_w / 2 : (int64_t)(p->sigma * 4 + 1);
    *hy = p->ksize_h ? p->ksize_h / 2 : (int64_t)(p->sigma * 4 + 1);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_unsharp_mask(ctx, src, dst, p);
}

const gip_op gip__op_unsharp = {
    .name = "unsharp",
    .family = "filter",
    .summary = "Unsharp mask: src + amount (src - Gaussian blur), the cv2 recipe.",
    .doc = "The Gaussian blur of cv2.GaussianBlur (u8 exact), then src (1 + amount) - blur amount "
           "as cv2.addWeighted computes it, rounded and saturated, keeping src where |src - "
           "blur| < threshold: u8 results equal the cv2 recipe's and are identical on CPU and "
           "CUDA.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(gip_unsharp_params),
    .build = build,
    .halo = halo,
    .border_at = GIP_OP_AT(gip_unsharp_params, border),
    .run = run,
};
