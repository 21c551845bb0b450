/* SPDX-License-Identifier: MIT */
/* gip_filter2d (cv2.filter2D): argument checks, the tap plan shared by both backends, and the
 * plan helpers that Sobel also uses. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "filter2d.h"
#include "engine/fft/fft.h"
#include "gip/fft.h"
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

gip_status gip_filter2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                        const gip_filter2d_params *params)
{
    static const char op[] = "gip_filter2d";
    bool on_device = false;
    gip_status st = gip__f2d_check_images(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    /* cv2.filter2D gives every destination depth from every source for kernels it correlates
     * through the DFT (13x13 and larger), and a subset for smaller ones (getLinearFilter: u8 to
     * any, others to their own depth or f32); the 2-D engine gives every pair for every kernel. */
    const gip_dtype dt = dst->dtype;
    if (dt != GIP_U8 && dt != GIP_U16 && dt != GIP_S16 && dt != GIP_F32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: dst dtype %s is not supported: u8, u16, s16 or f32 are accepted", op,
                          gip_dtype_name(dt));
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    if (!params->kernel)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params->kernel is NULL", op);
    int32_t kw = params->ksize_w, kh = params->ksize_h;
    if (kw < 1 || kh < 1 || kw > GIP__F2D_MAX_KSIZE || kh > GIP__F2D_MAX_KSIZE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel size %dx%d is invalid: each side must be 1 to %d", op,
                          (int)kw, (int)kh, GIP__F2D_MAX_KSIZE);
    int32_t ax = kw / 2, ay = kh / 2;
    if (params->has_anchor) {
        ax = params->anchor_x;
        ay = params->anchor_y;
        if (ax < 0 || ax >= kw || ay < 0 || ay >= kh)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: anchor (%d, %d) is outside the %dx%d kernel: 0 <= anchor_x < "
                              "%d and 0 <= anchor_y < %d are accepted",
                              op, (int)ax, (int)ay, (int)kw, (int)kh, (int)kw, (int)kh);
    }
    if (!isfinite(params->delta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: delta is not a finite number", op);
    int32_t nz = 0;
    for (int64_t i = 0; i < (int64_t)kw * kh; i++) {
        if (!isfinite(params->kernel[i]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: kernel coefficient %lld is not a finite number", op,
                              (long long)i);
        nz += params->kernel[i] != 0.0f;
    }
    if ((st = gip__f2d_check_border(ctx, &params->border, op)))
        return st;
#ifndef GIP_HAVE_CUDA
    if (on_device)
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    if (params->method != GIP_CONV_AUTO && params->method != GIP_CONV_DIRECT &&
        params->method != GIP_CONV_FFT)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: method %d is invalid: AUTO (0), DIRECT (1) or FFT (2)", op,
                          (int)params->method);
    if (params->method == GIP_CONV_FFT && dt != src->dtype && dt != GIP_F32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: method FFT gives the source's dtype (%s) or f32, not %s; DIRECT or "
                          "AUTO give it",
                          op, gip_dtype_name(src->dtype), gip_dtype_name(dt));
    if (params->method == GIP_CONV_FFT ||
        (params->method == GIP_CONV_AUTO && dst->dtype == GIP_F32 &&
         gip__fft_conv_worth(on_device ? GIP_BACKEND_CUDA : GIP_BACKEND_CPU, src->width,
                             src->height, kw, kh, false)))
        return gip_fft_convolve(ctx, src, dst, params);

    /* The plan: the non-zero coefficients in row-major order, as cv2.filter2D visits them. */
    gip__f2d_plan plan = {0};
    if ((st = gip__f2d_plan_alloc(ctx, &plan, nz, op)))
        return st;
    plan.kw = kw, plan.kh = kh, plan.ax = ax, plan.ay = ay;
    for (int32_t y = 0; y < kh; y++)
        for (int32_t x = 0; x < kw; x++) {
            float k = params->kernel[(int64_t)y * kw + x];
            if (k != 0.0f)
                plan.taps[plan.ntaps++] = (gip__f2d_tap){x - ax, y - ay, k, 0};
        }
    plan.post = GIP__F2D_PLAIN;
    plan.scale = 1.0f;
    gip__f2d_plan_border(&plan, &params->border, src->dtype);
    gip__f2d_plan_choose_int(&plan, src->dtype);
    if (plan.int_acc) {
        plan.delta = params->delta;
        plan.affine = params->delta != 0.0f;
    } else {
        plan.init = params->delta;
    }
#ifdef GIP_HAVE_CUDA
    if (on_device)
        st = gip__f2d_run_cuda(ctx, &plan, src, dst);
    else
#endif
        st = gip__f2d_run_cpu(ctx, &plan, src, dst);
    gip__f2d_plan_free(&plan);
    return st;
}
