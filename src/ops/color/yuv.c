/* SPDX-License-Identifier: MIT */
/* The registry's yuv: YUV camera frames (NV12, NV21, I420, YV12, YUY2, UYVY, YVYU) to BGR, RGB,
 * BGRA, RGBA or gray, through gip_yuv_to_rgb(). */
#include "internal.h"
#include "ops/color/yuv_params.h"

static const gip_choice layouts[] = {{"nv12", GIP_YUV_NV12}, {"nv21", GIP_YUV_NV21},
                                     {"i420", GIP_YUV_I420}, {"iyuv", GIP_YUV_I420},
                                     {"yv12", GIP_YUV_YV12}, {"yuy2", GIP_YUV_YUY2},
                                     {"yuyv", GIP_YUV_YUY2}, {"uyvy", GIP_YUV_UYVY},
                                     {"yvyu", GIP_YUV_YVYU}, {NULL, 0}};

/* The output: channels * 10 + (1 for BGR order). */
static const gip_choice outputs[] = {{"bgr", 31},  {"rgb", 30},  {"bgra", 41},
                                     {"rgba", 40}, {"gray", 10}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("layout", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, layouts, "nv12",
                  "how the frame's bytes are laid out (cv2.COLOR_YUV2BGR_<layout>)", "i420"),
    GIP__PARAM_EX("to", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, outputs, "bgr",
                  "the result: BGR, RGB, with alpha 255, or the Y plane as gray", "rgb"),
    GIP__YUV_MATRIX_PARAMS,
};

typedef struct yuv_step {
    int32_t layout, to;
    gip_yuv_params yp;
} yuv_step;

static gip_status build(const gip_args *a, void *out)
{
    yuv_step *s = out;
    s->layout = (int32_t)gip_args_int(a, "layout");
    s->to = (int32_t)gip_args_int(a, "to");
    s->yp = gip__yuv_matrix(a);
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const yuv_step *s = params;
    (void)identity;
    if (s->layout >= GIP_YUV_YUY2) {
        if (in->width % 4)
            return gip__error(NULL, GIP_ERR_SHAPE_MISMATCH,
                              "yuv: a 4:2:2 frame is a (2 * W) x H one-channel image with W even; "
                              "got width %lld",
                              (long long)in->width);
        out->width = in->width / 2;
    } else {
        if (in->width % 2 || in->height % 3)
            return gip__error(NULL, GIP_ERR_SHAPE_MISMATCH,
                              "yuv: a 4:2:0 frame is a W x (H * 3 / 2) one-channel image with W "
                              "and H even; got %lldx%lld",
                              (long long)in->width, (long long)in->height);
        out->height = in->height / 3 * 2;
    }
    out->channels = s->to / 10;
    out->dtype = GIP_U8;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const yuv_step *s = p;
    return gip_yuv_to_rgb_ex(ctx, src, dst, (gip_yuv_layout)s->layout, s->to % 10, &s->yp);
}

const gip_op gip__op_yuv = {
    .name = "yuv",
    .family = "color",
    .summary = "Converts a YUV camera frame (NV12, NV21, I420, YV12, YUY2, UYVY, YVYU) to BGR, "
               "RGB or gray, as cv2.cvtColor's COLOR_YUV2*.",
    .doc = "The frame is a one-channel u8 image of its bytes as cv2 takes them: W x (H * 3 / 2) "
           "for the 4:2:0 layouts, (2 * W) x H for the packed 4:2:2 ones (W and H even). BT.601 "
           "limited range (the default) with OpenCV's fixed-point coefficients and rounding: "
           "results equal OpenCV's. standard=bt709 and range=full, which cv2 has no codes for, "
           "use the standards' matrices (Kr, Kb of BT.601 0.299, 0.114; BT.709 0.2126, 0.0722) "
           "in the same 20-bit fixed point. Reads the chroma planes across the frame, so it is "
           "never tiled.",
    .cv_name = "cv2.cvtColor",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8),
    .channels = GIP_CHANNELS_BIT(1),
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(yuv_step),
    .build = build,
    .shape = shape,
    .run = run,
};
