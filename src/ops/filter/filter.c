/* SPDX-License-Identifier: MIT */
/* The registry's description of filter (gip_filter2d()). */
#include <stdlib.h>
#include <string.h>

#include "gip/filter.h"
#include "internal.h"
#include "registry/registry.h"

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
    size_t n = (size_t)s->ksize_w * (size_t)s->ksize_h;
    float *k = malloc(n * sizeof *k);
    if (!k) {
        d->kernel = NULL;
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "filter: out of memory");
    }
    memcpy(k, s->kernel, n * sizeof *k);
    d->kernel = k;
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_filter2d_params *f = params;
    *hx = gip__window_reach(f->ksize_w, f->has_anchor, f->anchor_x);
    *hy = gip__window_reach(f->ksize_h, f->has_anchor, f->anchor_y);
}

static int32_t border(const void *params)
{
    return (int32_t)((const gip_filter2d_params *)params)->border.mode;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)in;
    (void)identity;
    const int32_t dt = ((const step *)params)->dtype;
    if (dt >= 0)
        out->dtype = (gip_dtype)dt;
    return GIP_OK;
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
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .params_size = sizeof(step),
    .shape = shape,
    .build = build,
    .release = release,
    .copy = copy,
    .halo = halo,
    .border = border,
    .run = run,
};
