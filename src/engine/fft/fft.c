/* SPDX-License-Identifier: MIT */
/* Public entries of the 2-D transforms (gip_fft2, gip_ifft2): argument checks, the transform kind
 * and its scale, dispatch to FFTW or cuFFT. */
#include <math.h>

#include "fft.h"

float gip__fft_scale(gip_fft_norm norm, bool inverse, int64_t n)
{
    double d = (double)n;
    switch (norm) {
    case GIP_FFT_NORM_ORTHO:
        return (float)(1.0 / sqrt(d));
    case GIP_FFT_NORM_FORWARD:
        return inverse ? 1.0f : (float)(1.0 / d);
    case GIP_FFT_NORM_BACKWARD:
    default:
        return inverse ? (float)(1.0 / d) : 1.0f;
    }
}

static gip_status check_params(gip_context *ctx, const gip_fft_params *params, const char *op,
                               gip_fft_params *out)
{
    gip_fft_params p = {0};
    if (params)
        p = *params;
    if (p.norm != GIP_FFT_NORM_BACKWARD && p.norm != GIP_FFT_NORM_FORWARD &&
        p.norm != GIP_FFT_NORM_ORTHO)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: norm %d is invalid: GIP_FFT_NORM_BACKWARD (0), FORWARD (1) or "
                          "ORTHO (2)",
                          op, (int)p.norm);
    if (p.flags & ~GIP_FFT_MEASURE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: flags 0x%x has unknown bits: only GIP_FFT_MEASURE is defined", op,
                          (unsigned)p.flags);
    *out = p;
    return GIP_OK;
}

/* GIP_ERR_SHAPE_MISMATCH unless b is want_w x want_h. fmt takes op, then a's size, the size
 * wanted and b's size (each as %lldx%lld). */
static gip_status check_size(gip_context *ctx, const char *op, const char *fmt, const gip_image *a,
                             int64_t want_w, int64_t want_h, const gip_image *b)
{
    if (b->width == want_w && b->height == want_h)
        return GIP_OK;
    return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH, fmt, op, (long long)a->width,
                      (long long)a->height, (long long)want_w, (long long)want_h,
                      (long long)b->width, (long long)b->height);
}

/* Checks shared by both directions; returns the transform kind in *kind. */
static gip_status check_transform(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                  bool inverse, const char *op, gip__fft_kind *kind,
                                  bool *on_device, int64_t *w, int64_t *h)
{
    gip_status st = gip__check_pair(ctx, src, dst, op, on_device);
    if (st)
        return st;
    if (src->channels != 1 || dst->channels != 1)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src has %d channels and dst %d; transforms take 1-channel images "
                          "(complex data is 1-channel c32)",
                          op, (int)src->channels, (int)dst->channels);
    if (!inverse) {
        if (src->dtype != GIP_U8 && src->dtype != GIP_U16 && src->dtype != GIP_F32 &&
            src->dtype != GIP_C32)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: src dtype %s is not supported: u8, u16, f32 (real) or c32", op,
                              gip_dtype_name(src->dtype));
        if (dst->dtype != GIP_C32)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: dst dtype %s must be c32", op,
                              gip_dtype_name(dst->dtype));
        *w = src->width;
        *h = src->height;
        if (src->dtype == GIP_C32) {
            *kind = GIP__FFT_C2C_FWD;
            st = check_size(ctx, op,
                            "%s: complex src is %lldx%lld, so dst must be %lldx%lld c32, not "
                            "%lldx%lld",
                            src, src->width, src->height, dst);
        } else {
            *kind = GIP__FFT_R2C;
            st = check_size(ctx, op,
                            "%s: real src is %lldx%lld, so dst must be its half spectrum "
                            "%lldx%lld c32 (width W/2+1), not %lldx%lld",
                            src, src->width / 2 + 1, src->height, dst);
        }
    } else {
        if (src->dtype != GIP_C32)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: src dtype %s must be c32", op,
                              gip_dtype_name(src->dtype));
        if (dst->dtype == GIP_C32) {
            *kind = GIP__FFT_C2C_INV;
            st = check_size(ctx, op,
                            "%s: src is %lldx%lld c32, so a complex dst must be %lldx%lld, "
                            "not %lldx%lld",
                            src, src->width, src->height, dst);
        } else if (dst->dtype == GIP_F32) {
            *kind = GIP__FFT_C2R;
            st = check_size(ctx, op,
                            "%s: a real dst of %lldx%lld needs the half spectrum %lldx%lld "
                            "as src (width W/2+1), not %lldx%lld",
                            dst, dst->width / 2 + 1, dst->height, src);
        } else {
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: dst dtype %s is not supported: c32 (complex) or f32 (real)", op,
                              gip_dtype_name(dst->dtype));
        }
        *w = dst->width;
        *h = dst->height;
    }
    if (st)
        return st;
    bool c2c = *kind == GIP__FFT_C2C_FWD || *kind == GIP__FFT_C2C_INV;
    if (!(c2c && gip__images_same(src, dst)) && gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap (only a complex transform may run in place, "
                          "with dst equal to src)",
                          op);
    return GIP_OK;
}

static gip_status transform(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip_fft_params *params, bool inverse, const char *op)
{
    gip__fft_kind kind = GIP__FFT_R2C; /* set by check_transform on success */
    bool on_device = false;
    int64_t w = 0, h = 0;
    gip_fft_params p = {0};
    gip_status st = check_transform(ctx, src, dst, inverse, op, &kind, &on_device, &w, &h);
    if (st)
        return st;
    if ((st = check_params(ctx, params, op, &p)))
        return st;
    float scale = gip__fft_scale(p.norm, inverse, w * h);
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__fft2_cuda(ctx, src, dst, kind, scale);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__fft2_cpu(ctx, src, dst, kind, scale, p.flags);
}

gip_status gip_fft2(gip_context *ctx, const gip_image *src, gip_image *dst,
                    const gip_fft_params *params)
{
    return transform(ctx, src, dst, params, false, "gip_fft2");
}

gip_status gip_ifft2(gip_context *ctx, const gip_image *src, gip_image *dst,
                     const gip_fft_params *params)
{
    return transform(ctx, src, dst, params, true, "gip_ifft2");
}
