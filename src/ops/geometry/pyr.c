/* SPDX-License-Identifier: MIT */
/* The checks and the CPU backend of pyr_down and pyr_up (each element by pyr.h). */
#include "ops/geometry/pyr.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

typedef struct pyr_job {
    const gip__pyr *p;
    const gip_image *src;
    gip_image *dst;
} pyr_job;

static void pyr_rows(void *arg, int64_t y0, int64_t y1)
{
    const pyr_job *j = arg;
    const gip__pyr *p = j->p;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < j->dst->width; x++)
            for (int32_t c = 0; c < p->cn; c++) {
                if (p->up)
                    gip__pyr_up(p, j->src->data, j->src->stride, d, y, x, c);
                else
                    gip__pyr_down(p, j->src->data, j->src->stride, d, y, x, c);
            }
    }
}

gip_status gip__pyr_run(gip_context *ctx, const gip_image *src, gip_image *dst, gip__pyr *p,
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
    const int64_t w = p->up ? 2 * src->width : (src->width + 1) / 2;
    const int64_t h = p->up ? 2 * src->height : (src->height + 1) / 2;
    if (dst->width != w || dst->height != h)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %lldx%lld; a %lldx%lld source makes %lldx%lld", op,
                          (long long)dst->width, (long long)dst->height, (long long)src->width,
                          (long long)src->height, (long long)w, (long long)h);
    if (!p->up && (unsigned)p->border > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border %d is unknown", op,
                          (int)p->border);
    if (!p->up && p->border == GIP_BORDER_CONSTANT)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border constant is not supported (as in OpenCV): reflect101, "
                          "reflect, replicate or wrap",
                          op);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    p->cn = src->channels;
    p->dtype = src->dtype;
    p->sw = src->width;
    p->sh = src->height;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__pyr_cuda(ctx, src, dst, p);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    pyr_job j = {p, src, dst};
    gip__parallel_for(ctx, dst->height, 8, pyr_rows, &j);
    return GIP_OK;
}
