/* SPDX-License-Identifier: MIT */
/* Public entry of the spectrum image: gray (or colour made gray) in, centred min-max normalised
 * log-magnitude u8 out, in one call. */
#include "engine/fft/fft.h"

gip_status gip_spectrum(gip_context *ctx, const gip_image *src, gip_image *dst,
                        const gip_spectrum_params *params)
{
    static const char op[] = "gip_spectrum";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != GIP_U8 || dst->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: dst is %d-channel %s; it must be 1-channel u8", op,
                          (int)dst->channels, gip_dtype_name(dst->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    int mode = params && params->log1p ? GIP__LOG1P : GIP__LOG;
    bool bgr = params && params->bgr;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__spectrum_cuda(ctx, src, dst, mode, bgr);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__spectrum_cpu(ctx, src, dst, mode, bgr);
}
