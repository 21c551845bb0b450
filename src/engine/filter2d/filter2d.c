/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine's plan helpers (taps, border, integer accumulation) and the image
 * checks that filter2D, Sobel and the gradient magnitude share. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "filter2d.h"
#include "saturate.h"

gip_status gip__f2d_plan_alloc(gip_context *ctx, gip__f2d_plan *plan, int32_t n, const char *op)
{
    plan->taps = calloc(n > 0 ? (size_t)n : 1, sizeof *plan->taps);
    if (!plan->taps)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d kernel taps", op,
                          (int)n);
    return GIP_OK;
}

void gip__f2d_plan_free(gip__f2d_plan *plan)
{
    free(plan->taps);
    plan->taps = NULL;
}

gip_status gip__f2d_check_border(gip_context *ctx, const gip_border_spec *border, const char *op)
{
    if ((unsigned)border->mode > (unsigned)GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border mode %d is invalid: reflect101, reflect, replicate, "
                          "constant or wrap are accepted",
                          op, (int)border->mode);
    if (border->mode == GIP_BORDER_CONSTANT)
        for (int c = 0; c < 4; c++)
            if (!isfinite(border->value[c]))
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: constant border value %d is not a finite number", op, c);
    return GIP_OK;
}

void gip__f2d_plan_border(gip__f2d_plan *plan, const gip_border_spec *border, gip_dtype src)
{
    plan->border = border->mode;
    for (int c = 0; c < 4; c++) {
        plan->border_value[c] =
            gip__border_value_as(src, border->mode == GIP_BORDER_CONSTANT ? border->value[c] : 0);
    }
}

void gip__f2d_plan_choose_int(gip__f2d_plan *plan, gip_dtype src)
{
    plan->int_acc = false;
    if (src != GIP_U8 && src != GIP_U16)
        return;
    double maxval = src == GIP_U8 ? 255.0 : 65535.0;
    int32_t n = plan->ntaps + plan->ntaps2;
    int32_t first = plan->post == GIP__F2D_MAG ? 2 : 1;
    /* Each kernel's sum of |k| times the largest source value must stay below 2^31. */
    for (int32_t part = 0; part < first; part++) {
        int32_t b = part == 0 ? 0 : plan->ntaps, e = part == 0 ? plan->ntaps : n;
        double sum = 0;
        for (int32_t i = b; i < e; i++) {
            float k = plan->taps[i].kf;
            if (k != floorf(k) || fabsf(k) > 16777216.0f)
                return;
            sum += fabs((double)k);
        }
        if (sum * maxval >= 2147483647.0)
            return;
    }
    for (int32_t i = 0; i < n; i++)
        plan->taps[i].ki = (int32_t)plan->taps[i].kf;
    plan->int_acc = true;
}

bool gip__f2d_taps_row_major(const gip__f2d_tap *taps, int32_t b, int32_t e)
{
    for (int32_t i = b + 1; i < e; i++)
        if (taps[i].dy < taps[i - 1].dy ||
            (taps[i].dy == taps[i - 1].dy && taps[i].dx <= taps[i - 1].dx))
            return false;
    return true;
}

gip_status gip__f2d_check_images(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                 const char *op, bool *on_device)
{
    gip_status st = gip__check_unary(ctx, src, dst, op, on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst has %d channels but src has %d; they must be equal", op,
                          (int)dst->channels, (int)src->channels);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; the filter needs a separate destination", op);
    return GIP_OK;
}

gip_status gip__f2d_check_images_depths(gip_context *ctx, const gip_image *src,
                                        const gip_image *dst, const char *op, bool *on_device)
{
    gip_status st = gip__f2d_check_images(ctx, src, dst, op, on_device);
    return st ? st : gip__check_dtype(ctx, dst, GIP__DT_DEPTHS, op, "dst");
}
