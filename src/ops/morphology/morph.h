/* SPDX-License-Identifier: MIT */
/* Private interface of the morphology operations (erode, dilate, morphology): one erosion or
 * dilation pass and the element-wise steps that compose them, on the CPU and on CUDA, and the
 * argument reading the three registry entries share. */
#ifndef GIP_OPS_MORPH_H
#define GIP_OPS_MORPH_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "gip/morphology.h"
#include "gip/op.h"
#include "registry/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lines at least this long (in taps) go through van Herk / Gil-Werman on the CPU: columns (whose
 * running min/max vectorise across the row) from 8, rows (whose running min/max is sequential
 * along the row, while direct passes vectorise) from 96, where they take over. */
#define GIP__MORPH_VHGW_CPU 8
#define GIP__MORPH_VHGW_CPU_ROW 96
/* ... and on CUDA. */
#define GIP__MORPH_VHGW_CUDA 16

/* One tap of an element: offsets from the anchor. */
typedef struct gip__morph_tap {
    int32_t dx, dy;
} gip__morph_tap;

/* One erosion (dilate false) or dilation pass. */
typedef struct gip__morph_pass {
    bool dilate;
    bool rect;      /* all ones: a row pass then a column pass */
    int32_t kw, kh; /* the element's size */
    int32_t ax, ay; /* its anchor */
    int32_t ntaps;  /* !rect: the element's taps, row by row */
    const gip__morph_tap *taps;
    gip_border border;     /* reflect101, reflect, replicate or constant */
    float border_value[4]; /* constant: per channel, as the dtype holds it */
} gip__morph_pass;

/* dst = the pass over src (same size, dtype and channels; u8, u16, s16, f32; 1/3/4 channels;
 * no overlap), checked by the caller. */
gip_status gip__morph_pass_cpu(gip_context *ctx, const gip__morph_pass *p, const gip_image *src,
                               gip_image *dst);

/* Element-wise steps of the compositions. */
typedef enum gip__morph_ew {
    GIP__MORPH_SUB = 0, /* dst = a - b, saturated (f32: plain) */
    GIP__MORPH_AND = 1, /* dst = a & b (u8) */
    GIP__MORPH_NOT = 2, /* dst = 255 - a (u8) */
    GIP__MORPH_COPY = 3 /* dst = a */
} gip__morph_ew;

gip_status gip__morph_ew_cpu(gip_context *ctx, gip__morph_ew op, const gip_image *a,
                             const gip_image *b, gip_image *dst);

#ifdef GIP_HAVE_CUDA
gip_status gip__morph_pass_cuda(gip_context *ctx, const gip__morph_pass *p, const gip_image *src,
                                gip_image *dst);
gip_status gip__morph_ew_cuda(gip_context *ctx, gip__morph_ew op, const gip_image *a,
                              const gip_image *b, gip_image *dst);
#endif

/* ---- the registry entries' shared part ---------------------------------------------------- */

/* The typed parameters of a step, owning its kernel copy. */
typedef struct gip__morph_step {
    gip_morph_params p;
} gip__morph_step;

extern const gip_choice gip__morph_shape_choices[];  /* rect, cross, ellipse, diamond */
extern const gip_choice gip__morph_border_choices[]; /* constant, reflect101, reflect, replicate */

/* The parameters the three entries share, after the op's own (morphology's `op`). */
#define GIP__MORPH_PARAMS                                                                          \
    GIP__PARAM("ksize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL, 1, GIP_MORPH_MAX_KSIZE, 0, NULL,     \
               "3", "the structuring element's width and height (with shape=)"),                   \
        GIP__PARAM("shape", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0,                       \
                   gip__morph_shape_choices, "rect",                                               \
                   "the element's shape, as cv2.getStructuringElement makes it"),                  \
        GIP__PARAM("kernel", GIP_PARAM_MATRIX, 0, 0, 0, 255, NULL, "1,1,1;1,1,1;1,1,1",            \
                   "the element itself, instead of shape= and ksize=: non-zero values are in it "  \
                   "(hitmiss: 1 must be set, -1 must be clear, 0 either)"),                        \
        GIP__PARAM("anchor", GIP_PARAM_LIST, 0, -1, GIP_MORPH_MAX_KSIZE - 1, 2, NULL, "-1",        \
                   "the element's anchor as X,Y inside it; -1 is the centre"),                     \
        GIP__PARAM("iterations", GIP_PARAM_INT, 0, 0, 100000, 0, NULL, "1",                        \
                   "how many times each erosion and dilation is applied (0: a copy, as cv2)"),     \
        GIP__PARAM("border", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__morph_border_choices, "constant",  \
                   "how pixels outside the image are made (OpenCV's BORDER_*; wrap is not "        \
                   "accepted, as by cv2)"),                                                        \
        GIP__PARAM("border_value", GIP_PARAM_LIST, 0, -3.4e38, 3.4e38, 4, NULL, "0",               \
                   "the value outside the image with border=constant, one number or one per "      \
                   "channel; when not given, the dtype's largest value for erosion and smallest "  \
                   "for dilation, so the outside never wins (cv2's morphologyDefaultBorderValue)")

gip_status gip__morph_build(const gip_args *a, gip__morph_step *s, gip_morph_op op);
void gip__morph_release(void *params);
gip_status gip__morph_copy(void *dst, const void *src);
void gip__morph_halo(const void *params, int64_t *hx, int64_t *hy);
int32_t gip__morph_border(const void *params);

#ifdef __cplusplus
}
#endif
/* What the erode, dilate and morphology entries share beside their name, words and cv_name:
 * their file's `decl`, `build` and `run`, the dtypes and channels, the element's halo and border,
 * and the element's copy and release. */
#define GIP__MORPH_ENTRY                                                                           \
    .family = "morphology", GIP__PARAMS(decl),                                                     \
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |            \
              GIP_DTYPE_BIT(GIP_F32),                                                              \
    .channels = GIP__CHANNELS_134, .params_size = sizeof(gip__morph_step), .build = build,         \
    .release = gip__morph_release, .copy = gip__morph_copy, .halo = gip__morph_halo,               \
    .border = gip__morph_border, .run = run

#endif
