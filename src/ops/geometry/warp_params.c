/* SPDX-License-Identifier: MIT */
/* The registry parameters of the warps (warp_params.h). */
#include <string.h>

#include "ops/geometry/warp.h"
#include "ops/geometry/warp_params.h"

const gip_choice gip__warp_interps[] = {
    {"nearest", GIP_INTER_NEAREST}, {"linear", GIP_INTER_LINEAR},     {"cubic", GIP_INTER_CUBIC},
    {"area", GIP_INTER_AREA},       {"lanczos4", GIP_INTER_LANCZOS4}, {NULL, 0}};

const gip_choice gip__warp_borders[] = {{"constant", GIP_BORDER_CONSTANT},
                                        {"replicate", GIP_BORDER_REPLICATE},
                                        {"reflect", GIP_BORDER_REFLECT},
                                        {"wrap", GIP_BORDER_WRAP},
                                        {"reflect101", GIP_BORDER_REFLECT_101},
                                        {"transparent", GIP__BORDER_TRANSPARENT},
                                        {NULL, 0}};

gip_status gip__warp_args(const gip_args *a, gip__warp_step *p, int n)
{
    const char *name = gip_args_op(a)->name;
    double v[16];
    const int32_t got = gip_args_list(a, "m", v, 16);
    if (got != n)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: m must have %d numbers (the %s matrix row by row), got %d", name, n,
                          n == 6 ? "2x3" : "3x3", (int)got);
    memcpy(p->m, v, (size_t)n * sizeof *v);
    gip_status st = gip__warp_args_out(a, &p->dw, &p->dh, &p->w);
    if (st)
        return st;
    if (gip_args_int(a, "inverse_map"))
        p->w.flags |= GIP_WARP_INVERSE_MAP;
    return GIP_OK;
}

gip_status gip__warp_args_out(const gip_args *a, int32_t *dw, int32_t *dh, gip_warp_params *w)
{
    const char *name = gip_args_op(a)->name;
    gip_args_size(a, "dsize", dw, dh);
    if ((*dw == 0) != (*dh == 0))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: dsize %dx%d: both sides > 0, or 0 for the source's size", name,
                          (int)*dw, (int)*dh);
    w->flags = (int32_t)gip_args_int(a, "interpolation");
    const int32_t b = (int32_t)gip_args_int(a, "border");
    w->transparent = b == GIP__BORDER_TRANSPARENT;
    w->border.mode = b == GIP__BORDER_TRANSPARENT ? GIP_BORDER_CONSTANT : (gip_border)b;
    double bv[4] = {0, 0, 0, 0};
    const int32_t nb = gip_args_list(a, "border_value", bv, 4);
    if (gip_args_is_set(a, "border_value") && b != GIP_BORDER_CONSTANT)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: border_value needs border=constant",
                          name);
    for (int c = 0; c < 4; c++)
        w->border.value[c] = (float)(nb <= 1 ? bv[0] : c < nb ? bv[c] : 0);
    return GIP_OK;
}

gip_status gip__warp_shape(const void *params, const gip_shape *in, gip_shape *out,
                           int32_t *identity)
{
    const gip__warp_step *p = params;
    (void)identity;
    if (p->dw > 0) {
        out->width = p->dw;
        out->height = p->dh;
    } else {
        out->width = in->width;
        out->height = in->height;
    }
    return GIP_OK;
}

int32_t gip__warp_reads_dst(const void *params)
{
    return ((const gip__warp_step *)params)->w.transparent != 0;
}
