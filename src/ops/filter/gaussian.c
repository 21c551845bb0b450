/* SPDX-License-Identifier: MIT */
/* The registry's description of gaussian (gip_gaussian_blur()). */
#include "gip/filter.h"
#include "internal.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX("ksize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL | GIP_PARAM_ODD, 0, 1023, 0, NULL,
                  "0", "kernel width and height, odd; 0 derives the size from sigma as OpenCV does",
                  "5"),
    GIP__PARAM(
        "sigma", GIP_PARAM_LIST, GIP_PARAM_POSITIONAL, 0, 10000, 2, NULL, "0",
        "standard deviation in x (and y); 0 derives it from ksize: 0.3*((ksize-1)*0.5-1)+0.8"),
    GIP__PARAM("method", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__method_choices, "auto",
               "auto: direct, or the FFT for f32 results of large kernels; direct: always direct "
               "(integer results exact); fft: always through the FFT (f32 accuracy)"),
    GIP__BORDER_PARAMS,
};

static gip_status build(const gip_args *a, void *out)
{
    gip_gaussian_params *p = out;
    gip_args_size(a, "ksize", &p->ksize_w, &p->ksize_h);
    double s[2] = {0, 0};
    int32_t n = gip_args_list(a, "sigma", s, 2);
    p->sigma_x = s[0];
    p->sigma_y = n == 2 ? s[1] : 0;
    p->method = (gip_conv_method)gip_args_int(a, "method");
    if ((p->ksize_w == 0 && p->sigma_x <= 0) ||
        (p->ksize_h == 0 && (p->sigma_y > 0 ? p->sigma_y : p->sigma_x) <= 0))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gaussian: needs a kernel size or a sigma: an odd ksize, or a sigma > 0 "
                          "(ksize 0 derives the size from sigma), e.g. 'gaussian 15' or "
                          "'gaussian sigma=2'");
    return gip__args_border(a, &p->border);
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    /* A size derived from sigma: OpenCV's larger (non-8-bit) rule, 4 sigma each side. */
    const gip_gaussian_params *g = params;
    double sy = g->sigma_y > 0 ? g->sigma_y : g->sigma_x;
    *hx = g->ksize_w ? g->ksize_w / 2 : (int64_t)(g->sigma_x * 4 + 1);
    *hy = g->ksize_h ? g->ksize_h / 2 : (int64_t)(sy * 4 + 1);
}

static int32_t border(const void *params)
{
    return (int32_t)((const gip_gaussian_params *)params)->border.mode;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_gaussian_blur(ctx, src, dst, p);
}

const gip_op gip__op_gaussian = {
    .name = "gaussian",
    .family = "filter",
    .summary = "Gaussian blur, as cv2.GaussianBlur.",
    .doc = "Separable Gaussian filter with OpenCV's kernel rules (ksize from sigma and sigma from "
           "ksize), its default border REFLECT_101 and, for u8, its fixed-point rounding: u8 "
           "results are bit-identical to cv2.GaussianBlur.",
    .cv_name = "cv2.GaussianBlur",
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .params_size = sizeof(gip_gaussian_params),
    .build = build,
    .halo = halo,
    .border = border,
    .run = run,
};
