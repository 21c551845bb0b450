/* SPDX-License-Identifier: MIT */
/* The registry's yuv422: a BGR or RGB image encoded as a packed YUV 4:2:2 frame (YUY2, UYVY,
 * YVYU) through gip_rgb_to_yuv(). */
#include "internal.h"
#include "ops/color/yuv_params.h"

static const gip_choice layouts[] = {
    {"yuy2", GIP_YUV_YUY2}, {"yuyv", GIP_YUV_YUY2}, {"yunv", GIP_YUV_YUY2}, {"uyvy", GIP_YUV_UYVY},
    {"uynv", GIP_YUV_UYVY}, {"y422", GIP_YUV_UYVY}, {"yvyu", GIP_YUV_YVYU}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("layout", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, layouts, "yuy2",
                  "the bytes of each pair of pixels: Y0 U Y1 V (yuy2), U Y0 V Y1 (uyvy) or Y0 V "
                  "Y1 U (yvyu)",
                  "uyvy"),
    GIP__YUV_ORDER_PARAM,
    GIP__YUV_MATRIX_PARAMS,
};

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)identity;
    if (in->width % 2)
        return gip__error(NULL, GIP_ERR_SHAPE_MISMATCH,
                          "yuv422: a 4:2:2 frame needs an even width, got %lldx%lld",
                          (long long)in->width, (long long)in->height);
    out->width = in->width * 2;
    out->channels = 1;
    return GIP_OK;
}

const gip_op gip__op_yuv422 = {
    .name = "yuv422",
    .summary = "Encodes a BGR or RGB image as a packed YUV 4:2:2 frame (YUY2, UYVY, YVYU), as "
               "cv2.cvtColor's COLOR_BGR2YUV_YUY2.",
    .doc = "The result is a one-channel u8 frame of twice the image's width (even) and its "
           "height: four bytes for each pair of pixels, the two Y and the pair's U and V (cv2 "
           "returns the same bytes as an (H, W, 2) array). BT.601 limited range with OpenCV's "
           "14-bit coefficients and rounding, U and V from the sum of the pair: results equal "
           "OpenCV's.",
    GIP__YUV_ENC_ENTRY,
};
