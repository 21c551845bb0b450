/* SPDX-License-Identifier: MIT */
/* The YUV steps' shared declarations (yuv_params.h). */
#include "ops/color/yuv_params.h"

const gip_choice gip__yuv_standards[] = {
    {"bt601", GIP_YUV_BT601}, {"bt709", GIP_YUV_BT709}, {NULL, 0}};
const gip_choice gip__yuv_ranges[] = {{"limited", 0}, {"full", 1}, {NULL, 0}};
const gip_choice gip__yuv_orders[] = {{"bgr", 1}, {"rgb", 0}, {NULL, 0}};

gip_yuv_params gip__yuv_matrix(const gip_args *a)
{
    gip_yuv_params yp;
    yp.standard = (gip_yuv_standard)gip_args_int(a, "standard");
    yp.full_range = (int32_t)gip_args_int(a, "range");
    return yp;
}

gip_status gip__yuv_enc_build(const gip_args *a, void *out)
{
    gip__yuv_enc_step *s = out;
    s->layout = (int32_t)gip_args_int(a, "layout");
    s->bgr = (int32_t)gip_args_int(a, "order");
    s->yp = gip__yuv_matrix(a);
    return GIP_OK;
}

gip_status gip__yuv_enc_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *step)
{
    const gip__yuv_enc_step *s = step;
    return gip_rgb_to_yuv_ex(ctx, src, dst, (gip_yuv_layout)s->layout, s->bgr, &s->yp);
}
