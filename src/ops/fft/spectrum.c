/* SPDX-License-Identifier: MIT */
/* The registry's description of spectrum (gip_spectrum()). */
#include "gip/fft.h"
#include "registry/registry.h"

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

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)in;
    (void)identity;
    out->channels = 1;
    out->dtype = GIP_U8;
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
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .flags = GIP_OP_WHOLE | GIP_OP_INEXACT,
    .params_size = sizeof(gip_spectrum_params),
    .build = build,
    .shape = shape,
    .run = run,
};
