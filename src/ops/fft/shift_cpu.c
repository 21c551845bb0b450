/* SPDX-License-Identifier: MIT */
/* fftshift / ifftshift on the CPU: each destination row is a source row rotated, two copies. */
#include <string.h>

#include "shift.h"

typedef struct shift_arg {
    const gip_image *src;
    gip_image *dst;
    int64_t ox, oy; /* dst(x, y) = src((x + ox) mod W, (y + oy) mod H) */
} shift_arg;

static void shift_rows(void *arg, int64_t y0, int64_t y1)
{
    const shift_arg *a = arg;
    int64_t w = a->src->width, h = a->src->height;
    size_t px = (size_t)a->src->channels * gip_dtype_size(a->src->dtype);
    for (int64_t y = y0; y < y1; y++) {
        int64_t sy = y + a->oy;
        if (sy >= h)
            sy -= h;
        const char *s = (const char *)a->src->data + sy * a->src->stride;
        char *d = (char *)a->dst->data + y * a->dst->stride;
        memcpy(d, s + (size_t)a->ox * px, (size_t)(w - a->ox) * px);
        memcpy(d + (size_t)(w - a->ox) * px, s, (size_t)a->ox * px);
    }
}

gip_status gip__fftshift_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, bool inverse)
{
    int64_t w = src->width, h = src->height;
    shift_arg a = {src, dst, inverse ? w / 2 : w - w / 2, inverse ? h / 2 : h - h / 2};
    if (a.ox == w)
        a.ox = 0;
    if (a.oy == h)
        a.oy = 0;
    gip__parallel_for(ctx, h, 32, shift_rows, &a);
    return GIP_OK;
}
