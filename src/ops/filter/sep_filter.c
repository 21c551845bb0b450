/* SPDX-License-Identifier: MIT */
/* sep_filter (gip_sep_filter2d, as cv2.sepFilter2D): a row kernel then a column kernel through
 * the separable engine, delta and other destination dtypes through an f32 temporary and
 * gip_convert(); its registry entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/color.h"
#include "gip/edges.h"
#include "engine/filter2d/filter2d.h"
#include "engine/separable/separable.h"
#include "ops/op_check.h"
#include "ops/op_step.h"
#include "registry/registry.h"

static const char OP[] = "gip_sep_filter2d";

gip_status gip_sep_filter2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip_sep_filter_params *params)
{
    bool on_device = false;
    gip_status st = gip__f2d_check_images_depths(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    const gip_dtype dt = dst->dtype;
    if (!params || !params->kernel_x || !params->kernel_y)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", OP,
                          !params ? "params" : "a kernel");
    const int32_t kw = params->ksize_w, kh = params->ksize_h;
    if (kw < 1 || kh < 1 || kw > GIP__SEP_MAX_K || kh > GIP__SEP_MAX_K)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel sizes %d and %d are invalid: 1..%d each", OP, (int)kw,
                          (int)kh, GIP__SEP_MAX_K);
    int32_t ax = kw / 2, ay = kh / 2;
    if (params->has_anchor) {
        ax = params->anchor_x;
        ay = params->anchor_y;
        if (ax < 0 || ax >= kw || ay < 0 || ay >= kh)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: anchor (%d, %d) is outside the %dx%d kernel", OP, (int)ax,
                              (int)ay, (int)kw, (int)kh);
    }
    for (int32_t i = 0; i < kw + kh; i++)
        if (!isfinite(i < kw ? params->kernel_x[i] : params->kernel_y[i - kw]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: kernel coefficient %d is not a finite number", OP, (int)i);
    if (!isfinite(params->delta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: delta is not a finite number", OP);
    if ((st = gip__f2d_check_border(ctx, &params->border, OP)))
        return st;
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    if ((st = gip__check_cuda_built(ctx, on_device, OP)))
        return st;
    gip__sep_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", OP);
    plan->mode = GIP__SEP_FLOAT;
    plan->kw = kw;
    plan->kh = kh;
    plan->ax = ax;
    plan->ay = ay;
    plan->scale = 1.0f;
    plan->scale64 = 1.0;
    gip__sep_set_border(plan, &params->border, src->dtype);
    memcpy(plan->kxf, params->kernel_x, (size_t)kw * sizeof(float));
    memcpy(plan->kyf, params->kernel_y, (size_t)kh * sizeof(float));
    if (params->delta == 0.0f && (dt == src->dtype || dt == GIP_F32)) {
        st = gip__sep_run(ctx, plan, src, dst, on_device);
    } else {
        /* The float result, then + delta, rounded and saturated to dst. */
        gip_image tmp = {0};
        st = gip_image_alloc(ctx, &tmp, src->width, src->height, src->channels, GIP_F32,
                             on_device ? GIP_MEM_CUDA : GIP_MEM_HOST, 0);
        if (!st && !(st = gip__sep_run(ctx, plan, src, &tmp, on_device)))
            st = gip_convert(ctx, &tmp, dst, 1.0, params->delta);
        gip_image_free(ctx, &tmp);
    }
    free(plan);
    return st;
}

static const gip_param decl[] = {
    GIP__PARAM_EX("kernel_x", GIP_PARAM_MATRIX, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0,
                  255, NULL, NULL, "the row kernel: one row or one column of coefficients",
                  "1,2,1"),
    GIP__PARAM_EX("kernel_y", GIP_PARAM_MATRIX, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0,
                  255, NULL, NULL, "the column kernel: one row or one column of coefficients",
                  "-1,0,1"),
    GIP__PARAM("delta", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added to every result"),
    GIP__PARAM("anchor", GIP_PARAM_LIST, 0, -1, 254, 2, NULL, "-1",
               "the kernels' anchor as X,Y; -1 is the centre"),
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__ddepth_choices, "same",
               "the result's dtype (cv2's ddepth): same as the input, u8, u16, s16 or f32"),
    GIP__BORDER_PARAMS,
};

typedef struct step {
    gip_sep_filter_params p;
    int32_t dtype;
} step;

static gip_status vector(const gip_args *a, const char *name, const float **k, int32_t *n)
{
    int32_t rows, cols;
    const float *m = gip_args_matrix(a, name, &rows, &cols);
    if (rows != 1 && cols != 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "sep_filter: %s must be one row or one column, got %dx%d", name,
                          (int)rows, (int)cols);
    *n = rows * cols;
    float *copy = malloc((size_t)*n * sizeof *copy);
    if (!copy)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "sep_filter: out of memory");
    memcpy(copy, m, (size_t)*n * sizeof *copy);
    *k = copy;
    return GIP_OK;
}

static gip_status build(const gip_args *a, void *out)
{
    step *s = out;
    s->dtype = (int32_t)gip_args_int(a, "dtype");
    gip_status st;
    if ((st = vector(a, "kernel_x", &s->p.kernel_x, &s->p.ksize_w)) ||
        (st = vector(a, "kernel_y", &s->p.kernel_y, &s->p.ksize_h)))
        return st;
    s->p.delta = (float)gip_args_double(a, "delta");
    if ((st = gip__args_anchor(a, s->p.ksize_w, s->p.ksize_h, &s->p.has_anchor, &s->p.anchor_x,
                               &s->p.anchor_y)))
        return st;
    return gip__args_border(a, &s->p.border);
}

static void release(void *params)
{
    gip_sep_filter_params *p = &((step *)params)->p;
    free((void *)p->kernel_x);
    free((void *)p->kernel_y);
    p->kernel_x = p->kernel_y = NULL;
}

static gip_status copy(void *dst, const void *src)
{
    *(step *)dst = *(const step *)src;
    gip_sep_filter_params *d = &((step *)dst)->p;
    const gip_sep_filter_params *s = &((const step *)src)->p;
    d->kernel_y = NULL;
    gip_status st =
        gip__step_copy_floats(s->kernel_x, (size_t)s->ksize_w, "sep_filter", &d->kernel_x);
    if (!st &&
        (st = gip__step_copy_floats(s->kernel_y, (size_t)s->ksize_h, "sep_filter", &d->kernel_y))) {
        free((void *)d->kernel_x);
        d->kernel_x = NULL;
    }
    return st;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_sep_filter_params *f = &((const step *)params)->p;
    *hx = gip__window_reach(f->ksize_w, f->has_anchor, f->anchor_x);
    *hy = gip__window_reach(f->ksize_h, f->has_anchor, f->anchor_y);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_sep_filter2d(ctx, src, dst, &((const step *)p)->p);
}

const gip_op gip__op_sep_filter = {
    .name = "sep_filter",
    .family = "filter",
    .summary = "Separable correlation (a row kernel, then a column kernel), as cv2.sepFilter2D.",
    .doc = "The row pass with kernel_x then the column pass with kernel_y (no flip), plus delta, "
           "OpenCV's borders; float sums tap by tap, identical on CPU and CUDA, exact (and equal "
           "to OpenCV's) for integer kernels on integer sources; integer results rounded half to "
           "even and saturated.",
    .cv_name = "cv2.sepFilter2D",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(step),
    .dtype_at = GIP_OP_AT(step, dtype),
    .build = build,
    .release = release,
    .copy = copy,
    .halo = halo,
    .border_at = GIP_OP_AT(step, p.border),
    .run = run,
};
