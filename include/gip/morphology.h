/* SPDX-License-Identifier: MIT */
/* Mathematical morphology with OpenCV's semantics: structuring elements
 * (cv2.getStructuringElement), erosion, dilation and their compositions (cv2.morphologyEx). */
#ifndef GIP_MORPHOLOGY_H
#define GIP_MORPHOLOGY_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Structuring element shapes, with cv2.MORPH_RECT ... MORPH_DIAMOND's values. */
typedef enum gip_morph_shape {
    GIP_MORPH_RECT = 0,
    GIP_MORPH_CROSS = 1,
    GIP_MORPH_ELLIPSE = 2,
    GIP_MORPH_DIAMOND = 3
} gip_morph_shape;

/** Morphological operations, with cv2.MORPH_ERODE ... MORPH_HITMISS's values. */
typedef enum gip_morph_op {
    GIP_MORPH_ERODE = 0,
    GIP_MORPH_DILATE = 1,
    GIP_MORPH_OPEN = 2,     /* dilate(erode(src)) */
    GIP_MORPH_CLOSE = 3,    /* erode(dilate(src)) */
    GIP_MORPH_GRADIENT = 4, /* dilate(src) - erode(src) */
    GIP_MORPH_TOPHAT = 5,   /* src - open(src) */
    GIP_MORPH_BLACKHAT = 6, /* close(src) - src */
    GIP_MORPH_HITMISS = 7   /* u8 1-channel: kernel 1 = foreground, -1 = background, 0 = any */
} gip_morph_op;

/** Largest structuring element side gip accepts. */
#define GIP_MORPH_MAX_KSIZE 1023

/**
 * Writes the structuring element of `shape` and size width x height into out (height rows of
 * width bytes, 1 inside, 0 outside), exactly as cv2.getStructuringElement: a rectangle; a cross
 * through the anchor (anchor_x/anchor_y -1: the centre; only the cross uses the anchor); the
 * ellipse inscribed in the rectangle (OpenCV's row widths, c * sqrt(1 - dy^2 / r^2) rounded); a
 * diamond |dx| + |dy| <= height/2 clipped to |dx| <= width/2. A 1x1 element is a rectangle.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (out NULL, a side outside 1..GIP_MORPH_MAX_KSIZE, an
 *         anchor outside the element, an unknown shape).
 */
GIP_API gip_status gip_structuring_element(gip_morph_shape shape, int32_t width, int32_t height,
                                           int32_t anchor_x, int32_t anchor_y, uint8_t *out);

/** Morphology parameters (cv2.erode, cv2.dilate, cv2.morphologyEx). Zero-initialise. */
typedef struct gip_morph_params {
    gip_morph_op op; /* gip_morphology() only; gip_erode() and gip_dilate() set it */
    /* The element: kernel (ksize_h rows of ksize_w values; non-zero values are in it, and for
     * HITMISS 1 and -1 as above), or NULL for the `shape` of ksize_w x ksize_h (0 means 3). */
    const float *kernel;
    int32_t ksize_w, ksize_h;
    gip_morph_shape shape;
    int32_t has_anchor; /* non-zero: anchor_x/anchor_y; otherwise the element's centre */
    int32_t anchor_x, anchor_y;
    /* Applications of each erosion and dilation: >= 1, 0 means 1; -1 copies src as cv2's
     * iterations=0 does. An all-ones element n times is one element n times as large, as
     * OpenCV computes it (the same away from a constant border). */
    int32_t iterations;
    /* 0: OpenCV's default border: constant, with the dtype's largest value for erosion and its
     * smallest for dilation (morphologyDefaultBorderValue), so that the outside never wins.
     * Non-zero: `border` as given (its value rounded and saturated to the dtype). Wrap is not
     * accepted (OpenCV refuses it for morphology). */
    int32_t has_border;
    gip_border_spec border;
} gip_morph_params;

/**
 * cv2.morphologyEx(src, op, kernel, anchor, iterations, borderType, borderValue): dst(x, y) =
 * min (erosion) or max (dilation) of src(x + i - anchor_x, y + j - anchor_y) over the element's
 * (i, j), composed as gip_morph_op says; differences saturate (u8, u16, s16). Results are exact:
 * identical on both backends and equal to OpenCV's. All-ones elements run as a row pass and a
 * column pass whose cost does not grow with the size (van Herk / Gil-Werman), other elements tap
 * by tap. src and dst: same size, dtype (u8, u16, s16, f32) and channels (1, 3, 4; HITMISS u8
 * 1-channel only); host or device; dst must not overlap src. params NULL: erosion with a 3x3
 * rectangle.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (bad ksize, anchor, iterations, border, an element
 *         without a non-zero value, an unknown op); GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED
 *         (dtype, channels); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_morphology(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  const gip_morph_params *params);

/** cv2.erode: gip_morphology() with op GIP_MORPH_ERODE (params->op is ignored). */
GIP_API gip_status gip_erode(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_morph_params *params);

/** cv2.dilate: gip_morphology() with op GIP_MORPH_DILATE (params->op is ignored). */
GIP_API gip_status gip_dilate(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip_morph_params *params);

#ifdef __cplusplus
}
#endif

#endif
