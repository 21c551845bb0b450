/* SPDX-License-Identifier: MIT */
/* Whole-pixel moves of the geometry family (rotate, transpose, copy_make_border, crop): where
 * output pixel (x, y) comes from, written once for the CPU and the CUDA backend, and the two
 * backends that copy the pixels. */
#ifndef GIP_OPS_PIXEL_MAP_H
#define GIP_OPS_PIXEL_MAP_H

#include "border.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    GIP__PM_TRANSPOSE = 0, /* dst(x, y) = src(y, x) */
    GIP__PM_ROT90CW = 1,   /* dst(x, y) = src(y, h-1-x) */
    GIP__PM_ROT180 = 2,    /* dst(x, y) = src(w-1-x, h-1-y) */
    GIP__PM_ROT90CCW = 3,  /* dst(x, y) = src(w-1-y, x) */
    GIP__PM_BORDER = 4,    /* dst(x, y) = src(border(x - ox), border(y - oy)) or the value */
    GIP__PM_CROP = 5,      /* dst(x, y) = src(x + ox, y + oy) */
};

typedef struct gip__pixmap {
    int32_t mode;
    int32_t border;    /* GIP__PM_BORDER: a gip_border */
    int64_t sw, sh;    /* the source's size */
    int64_t ox, oy;    /* BORDER: left and top; CROP: x and y */
    int32_t px;        /* bytes a pixel (1 to 16) */
    uint8_t value[16]; /* BORDER constant: the pixel's bytes */
} gip__pixmap;

/* The source pixel of output (x, y); 0 when it is the constant border value. */
GIP__HD int gip__pixmap_src(const gip__pixmap *m, int64_t x, int64_t y, int64_t *sx, int64_t *sy)
{
    switch (m->mode) {
    case GIP__PM_TRANSPOSE:
        *sx = y, *sy = x;
        return 1;
    case GIP__PM_ROT90CW:
        *sx = y, *sy = m->sh - 1 - x;
        return 1;
    case GIP__PM_ROT180:
        *sx = m->sw - 1 - x, *sy = m->sh - 1 - y;
        return 1;
    case GIP__PM_ROT90CCW:
        *sx = m->sw - 1 - y, *sy = x;
        return 1;
    case GIP__PM_BORDER:
        *sx = gip__border_index(x - m->ox, m->sw, (gip_border)m->border);
        *sy = gip__border_index(y - m->oy, m->sh, (gip_border)m->border);
        return *sx >= 0 && *sy >= 0;
    default:
        *sx = x + m->ox, *sy = y + m->oy;
        return 1;
    }
}

/* A move of this mode from src: its size and bytes a pixel, the other fields 0 (all but the
 * mode 0 for a NULL src, which gip__pixmap_run() refuses). */
gip__pixmap gip__pixmap_of(const gip_image *src, int32_t mode);

/* Checks (views, location, same dtype and channels, no overlap) and runs the move; dst's size is
 * the caller's business (checked against what the mode makes). `op` names the function. */
gip_status gip__pixmap_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip__pixmap *m, const char *op);

/* CPU: one row of w pixels of px bytes in reversed order (dst(x) = src(w-1-x)); src and dst
 * apart. */
void gip__pixmap_reverse_row(const void *src, void *dst, int64_t w, int32_t px);

/* The move on device views, queued on the context's stream. */
gip_status gip__pixmap_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip__pixmap *m);

#ifdef __cplusplus
}
#endif
#endif
