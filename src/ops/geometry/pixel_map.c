/* SPDX-License-Identifier: MIT */
/* The checks and the CPU backend of the geometry family's whole-pixel moves (pixel_map.h). */
#include <string.h>

#include "ops/geometry/pixel_map.h"

typedef struct pm_job {
    const gip__pixmap *m;
    const gip_image *src;
    gip_image *dst;
} pm_job;

static void pm_rows(void *arg, int64_t y0, int64_t y1)
{
    const pm_job *j = arg;
    const gip__pixmap *m = j->m;
    const size_t px = (size_t)m->px;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (m->mode == GIP__PM_CROP) { /* rows of the source, whole */
            memcpy(d, (const uint8_t *)j->src->data + (y + m->oy) * j->src->stride + m->ox * px,
                   (size_t)j->dst->width * px);
            continue;
        }
        for (int64_t x = 0; x < j->dst->width; x++) {
            int64_t sx, sy;
            if (gip__pixmap_src(m, x, y, &sx, &sy))
                memcpy(d + x * (int64_t)px,
                       (const uint8_t *)j->src->data + sy * j->src->stride + sx * (int64_t)px, px);
            else
                memcpy(d + x * (int64_t)px, m->value, px);
        }
    }
}

gip_status gip__pixmap_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip__pixmap *m, const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if (dst->dtype != src->dtype || dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but src is %d-channel %s; they must be equal",
                          op, (int)dst->channels, gip_dtype_name(dst->dtype), (int)src->channels,
                          gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap; it needs a separate dst",
                          op);
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__pixmap_cuda(ctx, src, dst, m);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    pm_job j = {m, src, dst};
    gip__parallel_for(ctx, dst->height, 16, pm_rows, &j);
    return GIP_OK;
}
