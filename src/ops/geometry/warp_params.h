/* SPDX-License-Identifier: MIT */
/* The registry parameters warp_affine and warp_perspective share: the matrix, dsize,
 * interpolation, inverse_map, border (with transparent) and border_value. */
#ifndef GIP_OPS_WARP_PARAMS_H
#define GIP_OPS_WARP_PARAMS_H

#include "gip/geometry.h"
#include "registry/registry.h"

extern const gip_choice gip__warp_interps[];
extern const gip_choice gip__warp_borders[];

#define GIP__WARP_PARAMS(n, example, doc)                                                          \
    GIP__PARAM_EX("m", GIP_PARAM_LIST, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e12, 1e12, n,  \
                  NULL, NULL, doc, example),                                                       \
        GIP__PARAM_EX("dsize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL, 0, 2147483647, 0, NULL, "0",  \
                      "the output size WxH; 0: the source's", "29x31"),                            \
        GIP__PARAM("interpolation", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__warp_interps, "linear",     \
                   "nearest, linear, cubic or lanczos4 (area is linear, as in OpenCV)"),           \
        GIP__PARAM("inverse_map", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",                           \
                   "1: m maps dst to src (cv2.WARP_INVERSE_MAP); 0: it is inverted first"),        \
        GIP__PARAM("border", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__warp_borders, "constant",          \
                   "cv2's borderMode: constant, replicate, reflect, wrap, reflect101, or "         \
                   "transparent (outside pixels keep dst's value)"),                               \
        GIP__PARAM("border_value", GIP_PARAM_LIST, 0, -3.4e38, 3.4e38, 4, NULL, "0",               \
                   "the value outside the image with border=constant: one number, or one per "     \
                   "channel")

typedef struct gip__warp_step {
    double m[9];
    int32_t dw, dh;
    gip_warp_params w;
} gip__warp_step;

/* Builds the step from the arguments (n = 6 or 9 matrix numbers). */
gip_status gip__warp_args(const gip_args *a, gip__warp_step *p, int n);

/* Reads the output's arguments that remap shares with the warps: dsize (both sides or neither),
 * interpolation into w->flags, border (transparent included) and border_value. */
gip_status gip__warp_args_out(const gip_args *a, int32_t *dw, int32_t *dh, gip_warp_params *w);

/* dsize, or the input's size. */
gip_status gip__warp_shape(const void *params, const gip_shape *in, gip_shape *out,
                           int32_t *identity);

/* Non-zero under the transparent border (dst keeps its pixels where the source is not read). */
int32_t gip__warp_reads_dst(const void *params);

/* What warp_affine and warp_perspective share beside their name and words: their file's `decl`,
 * `build` and `run`, the dtypes and channels, whole-image reading, the step and its shape. */
#define GIP__WARP_ENTRY                                                                            \
    .family = "geometry", GIP__PARAMS(decl),                                                       \
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),             \
    .channels = GIP__CHANNELS_134, .flags = GIP_OP_WHOLE, .params_size = sizeof(gip__warp_step),   \
    .build = build, .shape = gip__warp_shape, .run = run, .reads_dst = gip__warp_reads_dst

#endif
