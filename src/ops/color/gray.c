/* SPDX-License-Identifier: MIT */
/* The registry's description of gray (gip_cvt_color() to one channel). */
#include "gip/color.h"
#include "ops/op_step.h"
#include "registry/registry.h"

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    *identity = in->channels == 1;
    out->channels = 1;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    (void)p;
    if (src->channels == 1)
        return gip_copy(ctx, src, dst);
    return gip_cvt_color(ctx, src, dst,
                         src->channels == 4 ? GIP_COLOR_RGBA2GRAY : GIP_COLOR_RGB2GRAY);
}

const gip_op gip__op_gray = {
    .name = "gray",
    .family = "color",
    .summary = "Converts to one gray channel, as cv2.cvtColor's RGB2GRAY.",
    .doc = "0.299 R + 0.587 G + 0.114 B with OpenCV's fixed-point rounding for u8 and u16 "
           "(channels in R, G, B order, alpha ignored); a gray image passes unchanged.",
    .cv_name = "cv2.cvtColor",
    .params = NULL,
    .nparams = 0,
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = 1,
    .build = gip__step_build_none,
    .shape = shape,
    .run = run,
};
