/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine on CUDA (filter2d_cuda.cu): the box kernel (filter2d_box_cuda.cuh)
 * for plans whose taps all lie inside a 3x3 or 5x5 box: the plan's checks, and the instances for
 * u16 and f32 sources. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter2d_box_cuda.cuh"

/* Fills the box kernel's arguments when the plan fits it: every tap within 2 of the anchor, each
 * kernel's taps in row-major order, integer plans exact in float (each kernel's sum of |k| times
 * the largest source value below 2^24), rows and heights within int32 tiles. Returns the box side
 * (3 or 5), or 0 when the generic kernels must run the plan. */
static int32_t fb_prepare(const gip__f2d_plan *p, const gip_image *src, const gip_image *dst,
                          FbArgs *fa)
{
    const int64_t n = src->width * (int64_t)src->channels;
    if (n > ((int64_t)1 << 30) || src->height > ((int64_t)1 << 30))
        return 0;
    const gip_dtype sd = src->dtype, dd = dst->dtype;
    const bool mag = p->post == GIP__F2D_MAG;
    const bool pair_ok =
        mag ? ((sd == GIP_U8 && (dd == GIP_U8 || dd == GIP_F32)) ||
               ((sd == GIP_U16 || sd == GIP_F32) && dd == GIP_F32))
            : ((sd == GIP_U8 && (dd == GIP_U8 || dd == GIP_S16 || dd == GIP_F32)) ||
               (sd == GIP_U16 && (dd == GIP_U16 || dd == GIP_F32)) ||
               (sd == GIP_F32 && dd == GIP_F32));
    if (!pair_ok)
        return 0;
    const int32_t nk = mag ? 2 : 1;
    const int32_t total = p->ntaps + (mag ? p->ntaps2 : 0);
    int32_t r = 0;
    for (int32_t i = 0; i < total; i++) {
        const int32_t ax = abs(p->taps[i].dx), ay = abs(p->taps[i].dy);
        r = ax > r ? ax : r;
        r = ay > r ? ay : r;
    }
    if (r > 2)
        return 0;
    const int32_t K = r <= 1 ? 3 : 5, R = K / 2;
    const double maxval = sd == GIP_U8 ? 255.0 : 65535.0;
    memset(fa, 0, sizeof *fa);
    for (int32_t part = 0; part < nk; part++) {
        const int32_t b = part ? p->ntaps : 0, e = part ? total : p->ntaps;
        if (!gip__f2d_taps_row_major(p->taps, b, e))
            return 0;
        double sum = 0;
        for (int32_t i = b; i < e; i++) {
            const gip__f2d_tap *t = &p->taps[i];
            const int32_t pos = (t->dy + R) * K + (t->dx + R);
            fa->mask[part] |= 1u << pos;
            fa->k[part][pos] = p->int_acc ? (float)t->ki : t->kf;
            sum += fabs((double)t->ki);
        }
        if (p->int_acc && sum * maxval >= 16777216.0)
            return 0;
    }
    fa->src = (const char *)src->data;
    fa->sstride = src->stride;
    fa->dst = (char *)dst->data;
    fa->dstride = dst->stride;
    fa->W = (int32_t)src->width;
    fa->H = (int32_t)src->height;
    fa->n = (int32_t)n;
    fa->border = p->border;
    for (int c = 0; c < 4; c++)
        fa->bv[c] = p->border_value[c];
    fa->init = p->int_acc ? 0.0f : p->init;
    fa->scale = p->scale;
    fa->delta = p->delta;
    fa->affine = p->affine;
    fa->post = p->post;
    return K;
}

extern "C" gip_status gip__f2d_run_box_cuda(gip_context *ctx, const gip__f2d_plan *p,
                                            const gip_image *src, const gip_image *dst, bool *done)
{
    FbArgs fa;
    const int32_t K = fb_prepare(p, src, dst, &fa);
    *done = K != 0;
    if (!K)
        return GIP_OK;
    const int32_t C = src->channels;
    const gip_dtype sd = src->dtype, dd = dst->dtype;
    const bool mag = p->post == GIP__F2D_MAG;
    if (sd == GIP_U8)
        return dd == GIP_F32 ? gip__fb_run_u8f32(ctx, fa, C, K, mag)
                             : gip__fb_run_u8(ctx, fa, C, K, dd, mag);
    if (mag)
        return sd == GIP_U16 ? fb_dispatch<uint16_t, float, true>(ctx, fa, C, K)
                             : fb_dispatch<float, float, true>(ctx, fa, C, K);
    if (sd == GIP_U16)
        return dd == GIP_U16 ? fb_dispatch<uint16_t, uint16_t, false>(ctx, fa, C, K)
                             : fb_dispatch<uint16_t, float, false>(ctx, fa, C, K);
    return fb_dispatch<float, float, false>(ctx, fa, C, K);
}
