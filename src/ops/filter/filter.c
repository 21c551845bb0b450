/* SPDX-License-Identifier: MIT */
/* filter (gip_filter2d, as cv2.filter2D): argument checks, the tap plan of the 2-D engine or,
 * for large kernels, the FFT engine; its registry entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/fft.h"
#include "gip/filter.h"
#include "engine/fft/fft.h"
#include "engine/filter2d/filter2d.h"
#include "ops/op_check.h"
#include "ops/op_step.h"
#include "registry/registry.h"

gip_status gip_filter2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                        const gip_filter2d_params *params)
{
    static const char op[] = "gip_filter2d";
    bool on_device = false;
    /* cv2.filter2D gives every destination depth from every source for kernels it correlates
     * through the DFT (13x13 and larger), and a subset for smaller ones (getLinearFilter: u8 to
     * any, others to their own depth or f32); the 2-D engine gives every pair for every kernel. */
    gip_status st = gip__f2d_check_images_depths(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    const gip_dtype dt = dst->dtype;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    if (!params->kernel)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params->kernel is NULL", op);
    int32_t kw = params->ksize_w, kh = params->ksize_h;
    if (kw < 1 || kh < 1 || kw > GIP__F2D_MAX_KSIZE || kh > GIP__F2D_MAX_KSIZE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel size %dx%d is invalid: each side must be 1 to %d", op,
                          (int)kw, (int)kh, GIP__F2D_MAX_KSIZE);
    int32_t ax = kw / 2, ay = kh / 2;
    if (params->has_anchor) {
        ax = params->anchor_x;
        ay = params->anchor_y;
        if (ax < 0 || ax >= kw || ay < 0 || ay >= kh)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: anchor (%d, %d) is outside the %dx%d kernel: 0 <= anchor_x < "
                              "%d and 0 <= anchor_y < %d are accepted",
                              op, (int)ax, (int)ay, (int)kw, (int)kh, (int)kw, (int)kh);
    }
    if (!isfinite(params->delta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: delta is not a finite number", op);
    int32_t nz = 0;
    for (int64_t i = 0; i < (int64_t)kw * kh; i++) {
        if (!isfinite(params->kernel[i]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: kernel coefficient %lld is not a finite number", op,
                              (long long)i);
        nz += params->kernel[i] != 0.0f;
    }
    if ((st = gip__f2d_check_border(ctx, &params->border, op)))
        return st;
    if ((st = gip__check_cuda_built(ctx, on_device, op)))
        return st;
    bool use_fft = false;
    if ((st = gip__fft_conv_choose(ctx, params->method, dt, on_device, src->width, src->height, kw,
                                   kh, false, op, &use_fft)))
        return st;
    if (params->method == GIP_CONV_FFT && dt != src->dtype && dt != GIP_F32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: method FFT gives the source's dtype (%s) or f32, not %s; DIRECT or "
                          "AUTO give it",
                          op, gip_dtype_name(src->dtype), gip_dtype_name(dt));
    if (use_fft)
        return gip_fft_convolve(ctx, src, dst, params);

    /* The plan: the non-zero coefficients in row-major order, as cv2.filter2D visits them. */
    gip__f2d_plan plan = {0};
    if ((st = gip__f2d_plan_alloc(ctx, &plan, nz, op)))
        return st;
    plan.kw = kw, plan.kh = kh, plan.ax = ax, plan.ay = ay;
    for (int32_t y = 0; y < kh; y++)
        for (int32_t x = 0; x < kw; x++) {
            float k = params->kernel[(int64_t)y * kw + x];
            if (k != 0.0f)
                plan.taps[plan.ntaps++] = (gip__f2d_tap){x - ax, y - ay, k, 0};
        }
    plan.post = GIP__F2D_PLAIN;
    plan.scale = 1.0f;
    gip__f2d_plan_border(&plan, &params->border, src->dtype);
    gip__f2d_plan_choose_int(&plan, src->dtype);
    if (plan.int_acc) {
        plan.delta = params->delta;
        plan.affine = params->delta != 0.0f;
    } else {
        plan.init = params->delta;
    }
#ifdef GIP_HAVE_CUDA
    if (on_device)
        st = gip__f2d_run_cuda(ctx, &plan, src, dst);
    else
#endif
        st = gip__f2d_run_cpu(ctx, &plan, src, dst);
    gip__f2d_plan_free(&plan);
    return st;
}

static const gip_param decl[] = {
    GIP__PARAM_EX(
        "kernel", GIP_PARAM_MATRIX, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 255, NULL,
        NULL,
        "the kernel's rows, e.g. '0,-1,0;-1,5,-1;0,-1,0' (correlation: no flip, as cv2.filter2D)",
        "0,-1,0;-1,5,-1;0,-1,0"),
    GIP__PARAM("delta", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added to every result"),
    GIP__PARAM("anchor", GIP_PARAM_LIST, 0, -1, 254, 2, NULL, "-1",
               "the kernel's anchor as X,Y inside it; -1 is the centre"),
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__ddepth_choices, "same",
               "the result's dtype (cv2's ddepth): same as the input, or u8, u16, s16, f32 where "
               "cv2 accepts the pair"),
    GIP__PARAM("method", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__method_choices, "auto",
               "auto: direct, or the FFT for f32 results of large kernels; direct: always direct "
               "(integer results exact); fft: always through the FFT (f32 accuracy)"),
    GIP__BORDER_PARAMS,
};

/* The parameters and the result's dtype (-1: the input's). */
typedef struct step {
    gip_filter2d_params p;
    int32_t dtype;
} step;

static gip_status build(const gip_args *a, void *out)
{
    gip_filter2d_params *p = &((step *)out)->p;
    ((step *)out)->dtype = (int32_t)gip_args_int(a, "dtype");
    int32_t rows, cols;
    const float *k = gip_args_matrix(a, "kernel", &rows, &cols);
    float *copy = malloc((size_t)rows * (size_t)cols * sizeof *copy);
    if (!copy)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "filter: out of memory");
    memcpy(copy, k, (size_t)rows * (size_t)cols * sizeof *copy);
    p->kernel = copy;
    p->ksize_w = cols;
    p->ksize_h = rows;
    p->delta = (float)gip_args_double(a, "delta");
    p->method = (gip_conv_method)gip_args_int(a, "method");
    gip_status st = gip__args_anchor(a, cols, rows, &p->has_anchor, &p->anchor_x, &p->anchor_y);
    if (st)
        return st;
    return gip__args_border(a, &p->border);
}

static void release(void *params)
{
    gip_filter2d_params *p = params;
    free((void *)p->kernel);
    p->kernel = NULL;
}

static gip_status copy(void *dst, const void *src)
{
    *(step *)dst = *(const step *)src;
    gip_filter2d_params *d = &((step *)dst)->p;
    const gip_filter2d_params *s = &((const step *)src)->p;
    return gip__step_copy_floats(s->kernel, (size_t)s->ksize_w * (size_t)s->ksize_h, "filter",
                                 &d->kernel);
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_filter2d_params *f = params;
    *hx = gip__window_reach(f->ksize_w, f->has_anchor, f->anchor_x);
    *hy = gip__window_reach(f->ksize_h, f->has_anchor, f->anchor_y);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_filter2d(ctx, src, dst, p);
}

const gip_op gip__op_filter = {
    .name = "filter",
    .family = "filter",
    .summary = "Correlation with any kernel, as cv2.filter2D.",
    .doc = "dst = the kernel's weighted sum around each pixel (no flip) plus delta, OpenCV's "
           "borders; integer results rounded half to even and saturated.",
    .cv_name = "cv2.filter2D",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(step),
    .dtype_at = GIP_OP_AT(step, dtype),
    .build = build,
    .release = release,
    .copy = copy,
    .halo = halo,
    .border_at = GIP_OP_AT(gip_filter2d_params, border),
    .run = run,
};
