/* SPDX-License-Identifier: MIT */
/* The registry's yuv420: a BGR or RGB image encoded as a YUV 4:2:0 frame (I420, YV12, NV12,
 * NV21) through gip_rgb_to_yuv(). */
#include "internal.h"
#include "ops/color/yuv_params.h"

static const gip_choice layouts[] = {{"i420", GIP_YUV_I420}, {"iyuv", GIP_YUV_I420},
                                     {"yv12", GIP_YUV_YV12}, {"nv12", GIP_YUV_NV12},
                                     {"nv21", GIP_YUV_NV21}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX(
        "layout", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, layouts, "i420",
        "the planes: Y, U, V (i420); Y, V, U (yv12); Y, then interleaved U, V (nv12) or V, U "
        "(nv21)",
        "yv12"),
    GIP__YUV_ORDER_PARAM,
    GIP__YUV_MATRIX_PARAMS,
};

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)identity;
    if (in->width % 2 || in->height % 2)
        return gip__error(NULL, GIP_ERR_SHAPE_MISMATCH,
                          "yuv420: a 4:2:0 frame needs an even width and height, got %lldx%lld",
                          (long long)in->width, (long long)in->height);
    out->height = in->height * 3 / 2;
    out->channels = 1;
    return GIP_OK;
}

const gip_op gip__op_yuv420 = {
    .name = "yuv420",
    .summary = "Encodes a BGR or RGB image as a YUV 4:2:0 frame (I420, YV12, NV12, NV21), as "
               "cv2.cvtColor's COLOR_BGR2YUV_I420.",
    .doc = "The result is a one-channel u8 frame of the image's width and 3/2 of its height "
           "(width and height even): the Y plane, then the U and V planes at half resolution as "
           "half rows (i420, yv12) or one plane of interleaved pairs (nv12, nv21). BT.601 "
           "limited range with OpenCV's fixed-point coefficients and rounding, each 2x2 block's "
           "U and V from its top-left pixel: results equal OpenCV's (cv2 5.1 has codes for "
           "I420 and YV12; NV12 and NV21 carry the same bytes interleaved, as OpenCV's own "
           "two-plane encoder writes them).",
    GIP__YUV_ENC_ENTRY,
};
