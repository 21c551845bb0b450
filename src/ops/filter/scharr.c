/* SPDX-License-Identifier: MIT */
/* scharr, as cv2.Scharr: the 3x3 Scharr first derivative, gip_sobel() with ksize GIP_SCHARR
 * under its own name; its registry entry. */
#include "internal.h"
#include "gip/filter.h"
#include "registry/registry.h"

static const gip_choice dtypes[] = {
    {"u8", GIP_U8}, {"u16", GIP_U16}, {"s16", GIP_S16}, {"f32", GIP_F32}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM("dx", GIP_PARAM_INT, 0, 0, 1, 0, NULL, "1",
               "derivative order in x: 1, or 0 with dy=1 (0 when only dy is given)"),
    GIP__PARAM("dy", GIP_PARAM_INT, 0, 0, 1, 0, NULL, "0", "derivative order in y: 0 or 1"),
    GIP__PARAM("scale", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "1",
               "multiplies the derivative (not 0)"),
    GIP__PARAM("delta", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added to the result"),
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, dtypes, "s16",
               "the result's dtype (cv2's ddepth); u8 and u16 give v with negatives 0, as "
               "cv2.Scharr"),
    GIP__BORDER_PARAMS,
};

typedef struct step {
    gip_sobel_params p;
    gip_dtype dtype;
} step;

static gip_status build(const gip_args *a, void *out)
{
    step *s = out;
    s->p.ksize = GIP_SCHARR;
    s->p.dx = (int32_t)gip_args_int(a, "dx");
    s->p.dy = (int32_t)gip_args_int(a, "dy");
    if (!gip_args_is_set(a, "dx") && gip_args_is_set(a, "dy"))
        s->p.dx = 0;
    if (s->p.dx + s->p.dy != 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "scharr: dx=1 dy=0 or dx=0 dy=1 are accepted (got dx=%d dy=%d)",
                          (int)s->p.dx, (int)s->p.dy);
    const double scale = gip_args_double(a, "scale");
    if (scale == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "scharr: scale must not be 0");
    s->p.scale = (float)scale;
    s->p.delta = (float)gip_args_double(a, "delta");
    s->p.unsigned_out = GIP_SOBEL_SATURATE;
    s->dtype = (gip_dtype)gip_args_int(a, "dtype");
    return gip__args_border(a, &s->p.border);
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)in;
    (void)identity;
    out->dtype = ((const step *)params)->dtype;
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    (void)params;
    *hx = *hy = 1;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_sobel(ctx, src, dst, &((const step *)p)->p);
}

const gip_op gip__op_scharr = {
    .name = "scharr",
    .family = "filter",
    .summary = "The 3x3 Scharr derivative, as cv2.Scharr.",
    .doc = "dx=1 or dy=1 with the Scharr kernel ([-3 0 3; -10 0 10; -3 0 3] and its transpose), "
           "times scale plus delta, in the dtype asked for (s16 by default), rounded half to "
           "even and saturated; integer sources summed exactly, so u8 results equal cv2.Scharr's "
           "and are identical on CPU and CUDA.",
    .cv_name = "cv2.Scharr",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(step),
    .shape = shape,
    .build = build,
    .halo = halo,
    .border_at = GIP_OP_AT(step, p.border),
    .run = run,
};
