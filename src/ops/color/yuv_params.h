/* SPDX-License-Identifier: MIT */
/* What the YUV steps (yuv, yuv420, yuv422) declare alike: the matrix and range parameters, the
 * encoders' source order, and the encoders' step (layout, order, matrix) with its build and run
 * through gip_rgb_to_yuv_ex(). */
#ifndef GIP_OPS_COLOR_YUV_PARAMS_H
#define GIP_OPS_COLOR_YUV_PARAMS_H

#include "gip/color.h"
#include "registry/registry.h"

extern const gip_choice gip__yuv_standards[], gip__yuv_ranges[], gip__yuv_orders[];

/* The "standard" and "range" parameters (read by gip__yuv_matrix()). */
#define GIP__YUV_MATRIX_PARAMS                                                                     \
    GIP__PARAM("standard", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__yuv_standards, "bt601",              \
               "the matrix: bt601 (cv2's) or bt709"),                                              \
        GIP__PARAM("range", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__yuv_ranges, "limited",              \
                   "limited (Y 16..235, cv2's) or full (0..255)")

/* The encoders' positional "order" parameter (bgr: 1, rgb: 0). */
#define GIP__YUV_ORDER_PARAM                                                                       \
    GIP__PARAM_EX("order", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, gip__yuv_orders,       \
                  "bgr", "the source's channel order (alpha ignored)", "bgr")

/* The standard and range parameters' values. */
gip_yuv_params gip__yuv_matrix(const gip_args *a);

/* An encoder's step: gip_rgb_to_yuv_ex()'s arguments. */
typedef struct gip__yuv_enc_step {
    int32_t layout, bgr;
    gip_yuv_params yp;
} gip__yuv_enc_step;

gip_status gip__yuv_enc_build(const gip_args *a, void *out);
gip_status gip__yuv_enc_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *step);

/* What the encoders yuv420 and yuv422 share beside their name, words and layouts: their file's
 * `decl` and `shape`, the u8 three- or four-channel source, whole-image reading, the step with
 * its build and run. */
#define GIP__YUV_ENC_ENTRY                                                                         \
    .family = "color", .cv_name = "cv2.cvtColor", GIP__PARAMS(decl),                               \
    .dtypes = GIP_DTYPE_BIT(GIP_U8), .channels = GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),        \
    .flags = GIP_OP_WHOLE, .params_size = sizeof(gip__yuv_enc_step), .build = gip__yuv_enc_build,  \
    .shape = shape, .run = gip__yuv_enc_run

#endif
