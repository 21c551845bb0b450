/* SPDX-License-Identifier: MIT */
/* gaussian (gip_gaussian_blur, as cv2.GaussianBlur): OpenCV's kernel rules, then the separable
 * engine (u8 through OpenCV's 8-bit fixed-point arithmetic, u16 and f32 in float) or, for large
 * kernels, the FFT engine; its registry entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/fft.h"
#include "gip/filter.h"
#include "engine/fft/fft.h"
#include "engine/filter2d/filter2d.h"
#include "engine/separable/separable.h"
#include "registry/registry.h"

static const char OP[] = "gip_gaussian_blur";

gip_status gip_gaussian_kernel(int32_t ksize, double sigma, double *out)
{
    if (!out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_gaussian_kernel: out is NULL");
    if (ksize < 1 || ksize > GIP__SEP_MAX_K)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_gaussian_kernel: ksize %d is out of range: 1..%d", (int)ksize,
                          GIP__SEP_MAX_K);
    if (isnan(sigma))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_gaussian_kernel: sigma is NaN");
    /* OpenCV's fixed tables for small kernels when sigma is not given. */
    static const double t3[] = {0.25, 0.5, 0.25};
    static const double t5[] = {0.0625, 0.25, 0.375, 0.25, 0.0625};
    static const double t7[] = {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125};
    static const double t9[] = {4 / 256.0,  13 / 256.0, 30 / 256.0, 51 / 256.0, 60 / 256.0,
                                51 / 256.0, 30 / 256.0, 13 / 256.0, 4 / 256.0};
    if (sigma <= 0 && (ksize == 1 || ksize == 3 || ksize == 5 || ksize == 7 || ksize == 9)) {
        const double *t = ksize == 3 ? t3 : ksize == 5 ? t5 : ksize == 7 ? t7 : t9;
        if (ksize == 1)
            out[0] = 1.0;
        else
            memcpy(out, t, sizeof(double) * (size_t)ksize);
        return GIP_OK;
    }
    /* getGaussianKernelBitExact: x on a doubled grid, exp(-x^2 / (8 sigma^2)), centre 1, each
     * value times 1 / sum. sigma <= 0: 0.15 n + 0.35 (= 0.3 ((n - 1) / 2 - 1) + 0.8), fused. */
    double s = sigma > 0 ? sigma : fma((double)ksize, 0.15, 0.35);
    double scale2 = -0.125 / (s * s);
    int32_t half = (ksize - 1) / 2;
    double sum = 0;
    for (int32_t i = 0, x = 1 - ksize; i < half; i++, x += 2) {
        out[i] = exp((double)x * (double)x * scale2);
        sum += out[i];
    }
    sum = sum * 2 + 1;
    if ((ksize & 1) == 0)
        sum += 1;
    double mul = 1.0 / sum;
    for (int32_t i = 0; i < half; i++) {
        out[i] *= mul;
        out[ksize - 1 - i] = out[i];
    }
    out[half] = mul;
    if ((ksize & 1) == 0)
        out[half + 1] = mul;
    return GIP_OK;
}

/* OpenCV's size rule: cvRound(sigma * (3 for u8, else 4) * 2 + 1) | 1. */
static gip_status ksize_from_sigma(gip_context *ctx, double sigma, gip_dtype dt, const char *axis,
                                   int32_t *k)
{
    double v = sigma * (dt == GIP_U8 ? 3 : 4) * 2 + 1;
    if (!(v < GIP__SEP_MAX_K + 1))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: sigma_%s %g gives a kernel larger than %d", OP, axis, sigma,
                          GIP__SEP_MAX_K);
    *k = (int32_t)nearbyint(v) | 1;
    if (*k > GIP__SEP_MAX_K)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: sigma_%s %g gives a kernel larger than %d", OP, axis, sigma,
                          GIP__SEP_MAX_K);
    return GIP_OK;
}

static gip_status check_ksize(gip_context *ctx, int32_t k, const char *axis)
{
    if (k < 0 || (k > 0 && (k % 2 == 0 || k > GIP__SEP_MAX_K)))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize_%s %d is invalid: odd 1..%d, or 0 to derive it from sigma", OP,
                          axis, (int)k, GIP__SEP_MAX_K);
    return GIP_OK;
}

/* Checks the parameters against src and fills the engine plan (ksize from sigma, sigma from ksize,
 * OpenCV's small-image rule, float or fixed-point kernels). Sets a message on error. */
static gip_status gaussian_plan(gip_context *ctx, const gip_image *src,
                                const gip_gaussian_params *p, gip__sep_plan *plan)
{
    gip_status st;
    if (!p)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: params is NULL; a kernel size or a sigma is required", OP);
    if ((st = check_ksize(ctx, p->ksize_w, "w")) || (st = check_ksize(ctx, p->ksize_h, "h")))
        return st;
    if (isnan(p->sigma_x) || isnan(p->sigma_y))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: sigma is NaN", OP);
    if ((unsigned)p->border.mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: unknown border mode %d: reflect101, reflect, replicate, constant "
                          "or wrap",
                          OP, (int)p->border.mode);
    double sx = p->sigma_x, sy = p->sigma_y > 0 ? p->sigma_y : p->sigma_x;
    int32_t kw = p->ksize_w, kh = p->ksize_h;
    if ((kw == 0 && !(sx > 0)) || (kh == 0 && !(sy > 0)))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %dx%d with sigma %g/%g: give an odd ksize or a positive sigma",
                          OP, (int)kw, (int)kh, p->sigma_x, p->sigma_y);
    /* OpenCV: a one-pixel side is not blurred along that axis except with a constant border. */
    if (p->border.mode != GIP_BORDER_CONSTANT) {
        if (src->height == 1)
            kh = 1;
        if (src->width == 1)
            kw = 1;
    }
    if (kw == 0 && (st = ksize_from_sigma(ctx, sx, src->dtype, "x", &kw)))
        return st;
    if (kh == 0 && (st = ksize_from_sigma(ctx, sy, src->dtype, "y", &kh)))
        return st;

    memset(plan, 0, sizeof *plan);
    plan->kw = kw;
    plan->kh = kh;
    plan->ax = kw / 2;
    plan->ay = kh / 2;
    plan->scale = 1.0f;
    plan->symmetric = true;
    gip__sep_set_border(plan, &p->border, src->dtype);
    double kd[GIP__SEP_MAX_K];
    plan->mode = src->dtype == GIP_U8 ? GIP__SEP_FIXED_U8 : GIP__SEP_FLOAT;
    for (int axis = 0; axis < 2; axis++) {
        int32_t n = axis ? kh : kw;
        double sigma = axis ? sy : sx;
        if ((st = gip_gaussian_kernel(n, sigma > 0 ? sigma : 0, kd)))
            return st;
        if (plan->mode == GIP__SEP_FIXED_U8)
            gip__sep_fixed_kernel(kd, n, axis ? plan->kyi : plan->kxi);
        /* The float taps also serve the FFT path, whatever the dtype. */
        for (int32_t i = 0; i < n; i++)
            (axis ? plan->kyf : plan->kxf)[i] = (float)kd[i];
    }
    return GIP_OK;
}

/* The Gaussian through the FFT: gip_fft_convolve() of the outer product of the two 1-D kernels
 * with the same border, without forming it (the kernel's spectrum is the product of theirs). */
static gip_status gaussian_fft(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const gip_gaussian_params *p, const gip__sep_plan *plan)
{
    return gip__fft_convolve_sep(ctx, src, dst, plan->kxf, plan->kw, plan->kyf, plan->kh,
                                 &p->border, OP);
}

gip_status gip_gaussian_blur(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_gaussian_params *params)
{
    bool on_device = false;
    gip_status st = gip__f2d_check_images(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    if (dst->dtype != src->dtype)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: dst dtype %s must be src's (%s)", OP,
                          gip_dtype_name(dst->dtype), gip_dtype_name(src->dtype));
    gip__sep_plan plan;
    if ((st = gaussian_plan(ctx, src, params, &plan)))
        return st;
    bool use_fft = false;
    if ((st = gip__fft_conv_choose(ctx, params->method, dst->dtype, on_device, src->width,
                                   src->height, plan.kw, plan.kh, true, OP, &use_fft)))
        return st;
    if (use_fft)
        return gaussian_fft(ctx, src, dst, params, &plan);
    return gip__sep_run(ctx, &plan, src, dst, on_device);
}

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
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(gip_gaussian_params),
    .build = build,
    .halo = halo,
    .border_at = GIP_OP_AT(gip_gaussian_params, border),
    .run = run,
};
