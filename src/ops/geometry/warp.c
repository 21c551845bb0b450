/* SPDX-License-Identifier: MIT */
/* The warps' shared half: OpenCV's matrix inversion (double), the checks, and the CPU backend
 * (rows on the worker pool, each pixel by warp.h). */
#include <math.h>
#include <string.h>

#include "ops/geometry/warp.h"

/* Single-precision products and sums must not be fused beyond those warp.h asks for. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

/* OpenCV's warpAffine inversion of a 2x3 matrix. */
static void invert_affine(const double *m, double *o)
{
    double d = m[0] * m[4] - m[1] * m[3];
    d = d != 0 ? 1. / d : 0;
    const double a11 = m[4] * d, a22 = m[0] * d;
    o[0] = a11;
    o[1] = m[1] * -d;
    o[3] = m[3] * -d;
    o[4] = a22;
    o[2] = -o[0] * m[2] - o[1] * m[5];
    o[5] = -o[3] * m[2] - o[4] * m[5];
}

/* OpenCV's invert() of a 3x3 matrix (cofactors over the determinant); 0 when singular. */
static int invert3(const double *m, double *o)
{
#define M(i, j) m[(i)*3 + (j)]
    double d = M(0, 0) * (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) -
               M(0, 1) * (M(1, 0) * M(2, 2) - M(1, 2) * M(2, 0)) +
               M(0, 2) * (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0));
    if (d == 0) {
        memset(o, 0, 9 * sizeof *o);
        return 0;
    }
    d = 1. / d;
    o[0] = (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) * d;
    o[1] = (M(0, 2) * M(2, 1) - M(0, 1) * M(2, 2)) * d;
    o[2] = (M(0, 1) * M(1, 2) - M(0, 2) * M(1, 1)) * d;
    o[3] = (M(1, 2) * M(2, 0) - M(1, 0) * M(2, 2)) * d;
    o[4] = (M(0, 0) * M(2, 2) - M(0, 2) * M(2, 0)) * d;
    o[5] = (M(0, 2) * M(1, 0) - M(0, 0) * M(1, 2)) * d;
    o[6] = (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0)) * d;
    o[7] = (M(0, 1) * M(2, 0) - M(0, 0) * M(2, 1)) * d;
    o[8] = (M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0)) * d;
#undef M
    return 1;
}

gip_status gip__warp_setup(gip_context *ctx, gip__warp *w, const double *mat, int32_t persp,
                           int32_t flags, const gip_border_spec *border, int32_t transparent,
                           const gip_image *src, const char *op)
{
    memset(w, 0, sizeof *w);
    if (!mat)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: the matrix must not be NULL", op);
    for (int i = 0; i < (persp ? 9 : 6); i++)
        if (!isfinite(mat[i]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: matrix element %d is not finite",
                              op, i);
    int32_t interp = flags & 7;
    if (flags & ~(7 | GIP_WARP_INVERSE_MAP))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: flags 0x%x: an interpolation (nearest, linear, cubic) with "
                          "GIP_WARP_INVERSE_MAP or not",
                          op, (unsigned)flags);
    if (interp == GIP_INTER_AREA) /* as OpenCV */
        interp = GIP_INTER_LINEAR;
    if (interp != GIP_INTER_NEAREST && interp != GIP_INTER_LINEAR && interp != GIP_INTER_CUBIC)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: interpolation %d is not supported: nearest (0), linear (1; area "
                          "is linear) or cubic (2)",
                          op, (int)interp);
    if (!border)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border must not be NULL", op);
    if ((unsigned)border->mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border mode %d is unknown", op,
                          (int)border->mode);
    if (interp == GIP_INTER_CUBIC && (transparent || (border->mode != GIP_BORDER_CONSTANT &&
                                                      border->mode != GIP_BORDER_REPLICATE)))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: cubic interpolation takes border constant or replicate only (%s "
                          "is not supported with cubic)",
                          op, transparent ? "transparent" : gip_border_name(border->mode));
    double inv[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (flags & GIP_WARP_INVERSE_MAP)
        memcpy(inv, mat, (persp ? 9 : 6) * sizeof *inv);
    else if (persp)
        invert3(mat, inv);
    else
        invert_affine(mat, inv);
    for (int i = 0; i < 9; i++)
        w->m[i] = (float)inv[i];
    w->persp = persp;
    w->interp = interp;
    w->border = transparent ? GIP__BORDER_TRANSPARENT : (int32_t)border->mode;
    if (src) {
        w->cn = src->channels;
        w->dtype = src->dtype;
        w->sw = src->width;
        w->sh = src->height;
        for (int c = 0; c < 4; c++)
            w->bval[c] = gip__border_value_as(src->dtype, border->value[c]);
    }
    return GIP_OK;
}

typedef struct warp_job {
    const gip__warp *w;
    const gip_image *src;
    gip_image *dst;
} warp_job;

#define WARP_ROWS_BODY                                                                             \
    const warp_job *j = arg;                                                                       \
    for (int64_t y = y0; y < y1; y++) {                                                            \
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;                                 \
        for (int64_t x = 0; x < j->dst->width; x++)                                                \
            gip__warp_px(j->w, j->src->data, j->src->stride, d, x, y);                             \
    }

static void warp_rows(void *arg, int64_t y0, int64_t y1)
{
    WARP_ROWS_BODY
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* The same with the FMA instructions where the CPU has them: fmaf() is correctly rounded either
 * way, so the results are the same bits, only faster than the library's software fmaf. */
__attribute__((target("fma"))) static void warp_rows_fma(void *arg, int64_t y0,
                                                         int64_t y1){WARP_ROWS_BODY}
#define WARP_HAVE_FMA_PATH 1
#endif

gip_status gip__warp_run(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                         const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != src->dtype || dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but src is %d-channel %s; they must be equal",
                          op, (int)dst->channels, gip_dtype_name(dst->dtype), (int)src->channels,
                          gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    if (src->width >= (1 << 30) || src->height >= (1 << 30))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: sides of 2^30 pixels and more are refused",
                          op);
    gip__warp wr = *w;
    wr.vec_end = dst->width / 16 * 16;
    w = &wr;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__warp_cuda(ctx, src, dst, w);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    warp_job j = {w, src, dst};
#ifdef WARP_HAVE_FMA_PATH
    if (__builtin_cpu_supports("fma")) {
        gip__parallel_for(ctx, dst->height, 8, warp_rows_fma, &j);
        return GIP_OK;
    }
#endif
    gip__parallel_for(ctx, dst->height, 8, warp_rows, &j);
    return GIP_OK;
}
