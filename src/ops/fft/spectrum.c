/* SPDX-License-Identifier: MIT */
/* spectrum (gip_spectrum): gray (or colour made gray) in, centred min-max normalised
 * log-magnitude u8 out, in one call; its checks, its backends' dispatch and its registry entry. */
#include "gip/fft.h"
#include "ops/op_check.h"
#include "registry/registry.h"
#include "spectrum.h"

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
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__spectrum_cuda(ctx, src, dst, mode, bgr));
    return gip__spectrum_cpu(ctx, src, dst, mode, bgr);
}

static const gip_param decl[] = {
    GIP__PARAM("log1p", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "1: log(1 + |F|); 0: log|F| as the seed did"),
};

static gip_status build(const gip_args *a, void *out)
{
    gip_spectrum_params *p = out;
    p->log1p = (int32_t)gip_args_int(a, "log1p");
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_spectrum(ctx, src, dst, p);
}

const gip_op gip__op_spectrum = {
    .name = "spectrum",
    .family = "fft",
    .summary = "Centred log-magnitude spectrum as an 8-bit picture.",
    .doc = "The 2-D FFT of the gray image, shifted so that the zero frequency is in the centre "
           "(numpy's fftshift), log of the magnitude, min-max normalised to 0..255 (the seed's "
           "CuPy job). Reads the whole image.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE | GIP_OP_INEXACT,
    .params_size = sizeof(gip_spectrum_params),
    .build = build,
    .shape = gip__shape_u8c1,
    .run = run,
};
