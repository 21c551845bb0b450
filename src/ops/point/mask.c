/* SPDX-License-Identifier: MIT */
/* mask, as cv2.copyTo(src, mask) with no dst: the pixels of src where a one-channel u8 mask is
 * not zero, a fill value elsewhere. Its registry description (an operation that reads a second
 * image), the checks, and the CPU backend. */
#include <math.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/point/mask.h"
#include "registry/registry.h"
#include "saturate.h"

static const gip_param decl[] = {
    GIP__PARAM("value", GIP_PARAM_LIST, 0, -3.4e38, 3.4e38, 4, NULL, "0",
               "the value where the mask is zero: one number, or one per channel (rounded and "
               "saturated to the dtype)"),
};

static const gip_input inputs[] = {
    {.name = "mask",
     .flags = GIP_INPUT_SAME_SIZE,
     .dtypes = GIP_DTYPE_BIT(GIP_U8),
     .channels = GIP_CHANNELS_BIT(1),
     .doc = "a one-channel u8 image of src's size: src is kept where it is not zero"},
};

typedef struct mask_step {
    double value[4];
} mask_step;

static gip_status build(const gip_args *a, void *out)
{
    mask_step *m = out;
    double v[4];
    int32_t n = gip_args_list(a, "value", v, 4);
    for (int c = 0; c < 4; c++)
        m->value[c] = v[n <= 1 ? 0 : c < n ? c : n - 1];
    return GIP_OK;
}

/* v rounded half to even and clamped to int32 ranges wide enough for any 16-bit dtype. */
static int32_t round_clamped(double v)
{
    return (int32_t)lrint(v < -70000.0 ? -70000.0 : v > 70000.0 ? 70000.0 : v);
}

/* One pixel of the fill value in dst's dtype and channels. */
static void fill_pixel(const mask_step *m, gip_dtype dt, int32_t channels, unsigned char *px)
{
    for (int32_t c = 0; c < channels; c++) {
        const double v = m->value[c];
        switch (dt) {
        case GIP_U8:
            px[c] = gip__sat_u8_i32(round_clamped(v));
            break;
        case GIP_U16: {
            uint16_t u = gip__sat_u16_i32(round_clamped(v));
            memcpy(px + 2 * c, &u, 2);
            break;
        }
        case GIP_S16: {
            int16_t s = gip__sat_s16_i32(round_clamped(v));
            memcpy(px + 2 * c, &s, 2);
            break;
        }
        default: {
            float f = (float)v;
            memcpy(px + 4 * c, &f, 4);
        }
        }
    }
}

typedef struct mask_job {
    const gip_image *src, *mask;
    gip_image *dst;
    unsigned char fill[16];
    size_t px;
} mask_job;

static void mask_rows(void *arg, int64_t y0, int64_t y1)
{
    const mask_job *j = arg;
    const int64_t w = j->src->width;
    const size_t px = j->px;
    for (int64_t y = y0; y < y1; y++) {
        const unsigned char *s = (const unsigned char *)j->src->data + y * j->src->stride;
        const unsigned char *m = (const unsigned char *)j->mask->data + y * j->mask->stride;
        unsigned char *d = (unsigned char *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < w; x++)
            memcpy(d + (size_t)x * px, m[x] ? s + (size_t)x * px : j->fill, px);
    }
}

static gip_status run_inputs(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                             gip_image *dst, const void *params)
{
    static const char op[] = "mask";
    bool on_device = false;
    gip_status st = gip__check_same(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if (gip__images_overlap(in[0], dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: mask and dst overlap", op);
    if (!gip__images_same(src, dst) && gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; pass the same view for in-place, or disjoint "
                          "images",
                          op);
    mask_job j = {.src = src, .mask = in[0], .dst = dst};
    j.px = (size_t)src->channels * gip_dtype_size(src->dtype);
    fill_pixel(params, src->dtype, src->channels, j.fill);
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__mask_cuda(ctx, src, in[0], dst, j.fill, j.px));
    gip__parallel_for(ctx, src->height, 16, mask_rows, &j);
    return GIP_OK;
}

const gip_op gip__op_mask = {
    .name = "mask",
    .family = "point",
    .summary = "Keeps src where a mask image is not zero and fills the rest, as cv2.copyTo.",
    .doc = "dst = src where mask != 0, else value (0 by default): cv2.copyTo(src, mask) with no "
           "dst, and cv2.bitwise_and(src, src, mask=mask) for value 0. The mask is a one-channel "
           "u8 image of src's size (--mask FILE on the command line, mask= in Python). dst may "
           "be src.",
    .cv_name = "cv2.copyTo",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_IN_PLACE,
    .params_size = sizeof(mask_step),
    .build = build,
    GIP__INPUTS(inputs),
    .run_inputs = run_inputs,
};
