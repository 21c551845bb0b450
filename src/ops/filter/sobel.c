/* SPDX-License-Identifier: MIT */
/* The registry's descriptions of sobel (gip_sobel()) and edges (gip_sobel_magnitude() of the
 * gray image). */
#include "gip/color.h"
#include "gip/filter.h"
#include "internal.h"
#include "registry/registry.h"

static const gip_choice ksizes[] = {{"1", 1}, {"3", 3}, {"5", 5}, {"7", 7}, {"scharr", GIP_SCHARR},
                                    {NULL, 0}};

#define SOBEL_COMMON                                                                               \
    GIP__PARAM("ksize", GIP_PARAM_CHOICE, 0, 0, 0, 0, ksizes, "3",                                 \
               "aperture: 1, 3, 5, 7, or scharr for the 3x3 Scharr kernel"),                       \
        GIP__PARAM("scale", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "1",                        \
                   "multiplies the derivative (not 0)"),                                           \
        GIP__PARAM("delta", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added to the result")

static const gip_choice sobel_dtypes[] = {
    {"u8", GIP_U8}, {"u16", GIP_U16}, {"s16", GIP_S16}, {"f32", GIP_F32}, {NULL, 0}};

static const gip_param sobel_params[] = {
    GIP__PARAM("dx", GIP_PARAM_INT, 0, 0, 6, 0, NULL, "1",
               "derivative order in x (0 when only dy is given)"),
    GIP__PARAM("dy", GIP_PARAM_INT, 0, 0, 6, 0, NULL, "0", "derivative order in y"),
    SOBEL_COMMON,
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, sobel_dtypes, "u8",
               "the result's dtype (cv2's ddepth); u8 and u16 keep |v| unless saturate=1"),
    GIP__PARAM("saturate", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "u8/u16 results: 1 gives v with negatives 0 (cv2.Sobel to CV_8U), 0 gives |v| "
               "(cv2.convertScaleAbs)"),
    GIP__BORDER_PARAMS,
};

typedef struct sobel_step {
    gip_sobel_params p;
    gip_dtype dtype;
} sobel_step;

static gip_status common(const gip_args *a, gip_sobel_params *p)
{
    p->ksize = (int32_t)gip_args_int(a, "ksize");
    double scale = gip_args_double(a, "scale");
    if (scale == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: scale must not be 0",
                          gip_args_op(a)->name);
    p->scale = (float)scale;
    p->delta = (float)gip_args_double(a, "delta");
    return gip__args_border(a, &p->border);
}

static gip_status sobel_build(const gip_args *a, void *out)
{
    sobel_step *s = out;
    gip_status st = common(a, &s->p);
    if (st)
        return st;
    s->p.dx = (int32_t)gip_args_int(a, "dx");
    s->p.dy = (int32_t)gip_args_int(a, "dy");
    if (!gip_args_is_set(a, "dx") && gip_args_is_set(a, "dy"))
        s->p.dx = 0;
    s->p.unsigned_out = gip_args_int(a, "saturate") ? GIP_SOBEL_SATURATE : GIP_SOBEL_ABS;
    s->dtype = (gip_dtype)gip_args_int(a, "dtype");
    const int32_t kmax = s->p.ksize == GIP_SCHARR || s->p.ksize == 1 ? 3 : s->p.ksize;
    if (s->p.dx + s->p.dy == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "sobel: dx or dy must be above 0");
    if (s->p.ksize == GIP_SCHARR && s->p.dx + s->p.dy != 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "sobel: ksize=scharr takes dx=1 dy=0 or dx=0 dy=1");
    if (s->p.dx >= kmax || s->p.dy >= kmax)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "sobel: derivative orders must be below %d for ksize %d", (int)kmax,
                          (int)s->p.ksize);
    return GIP_OK;
}

static gip_status sobel_shape(const void *params, const gip_shape *in, gip_shape *out,
                              int32_t *identity)
{
    (void)in;
    (void)identity;
    out->dtype = ((const sobel_step *)params)->dtype;
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    int32_t k = ((const gip_sobel_params *)params)->ksize;
    *hx = *hy = k == GIP_SCHARR || k <= 3 ? 1 : k / 2;
}

static int32_t border(const void *params)
{
    return (int32_t)((const gip_sobel_params *)params)->border.mode;
}

static gip_status sobel_run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_sobel(ctx, src, dst, &((const sobel_step *)p)->p);
}

#define ALL_DTYPES GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32)
#define ALL_CHANNELS GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4)

const gip_op gip__op_sobel = {
    .name = "sobel",
    .family = "filter",
    .summary = "Image derivative, as cv2.Sobel and cv2.Scharr.",
    .doc = "The dx-th derivative in x and dy-th in y with OpenCV's Sobel (or Scharr) kernels, "
           "times scale plus delta, in the dtype asked for: integer results rounded half to even "
           "and saturated, u8 and u16 as |v| (cv2.convertScaleAbs) unless saturate=1.",
    .cv_name = "cv2.Sobel",
    .params = sobel_params,
    .nparams = GIP__COUNT(sobel_params),
    .dtypes = ALL_DTYPES,
    .channels = ALL_CHANNELS,
    .params_size = sizeof(sobel_step),
    .build = sobel_build,
    .shape = sobel_shape,
    .halo = halo,
    .border = border,
    .run = sobel_run,
};

static const gip_param edges_params[] = {
    SOBEL_COMMON,
    GIP__BORDER_PARAMS,
};

static gip_status edges_build(const gip_args *a, void *out)
{
    return common(a, out);
}

static gip_status edges_shape(const void *params, const gip_shape *in, gip_shape *out,
                              int32_t *identity)
{
    (void)params;
    (void)in;
    (void)identity;
    out->channels = 1;
    out->dtype = GIP_U8;
    return GIP_OK;
}

static gip_status edges_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *params)
{
    const gip_sobel_params *p = params;
    if (src->channels == 1)
        return gip_sobel_magnitude(ctx, src, dst, p);
    gip_image gray;
    gip_status st = gip_image_alloc(ctx, &gray, src->width, src->height, 1, src->dtype,
                                    src->memory == GIP_MEM_CUDA ? GIP_MEM_CUDA : GIP_MEM_HOST, 0);
    if (st)
        return st;
    st = gip_cvt_color(ctx, src, &gray,
                       src->channels == 4 ? GIP_COLOR_RGBA2GRAY : GIP_COLOR_RGB2GRAY);
    if (!st)
        st = gip_sobel_magnitude(ctx, &gray, dst, p);
    gip_image_free(ctx, &gray);
    return st;
}

const gip_op gip__op_edges = {
    .name = "edges",
    .family = "filter",
    .summary = "Sobel gradient magnitude of the gray image, 8-bit.",
    .doc = "sqrt(dx^2 + dy^2) of the first derivatives (Sobel or Scharr) of the gray image "
           "(colour inputs are converted as cv2.cvtColor's RGB2GRAY), times scale plus delta, "
           "rounded and saturated to u8: the seed's Sobel edge detector.",
    .cv_name = NULL,
    .params = edges_params,
    .nparams = GIP__COUNT(edges_params),
    .dtypes = ALL_DTYPES,
    .channels = ALL_CHANNELS,
    .params_size = sizeof(gip_sobel_params),
    .build = edges_build,
    .shape = edges_shape,
    .halo = halo,
    .border = border,
    .run = edges_run,
};
