/* SPDX-License-Identifier: MIT */
/* extract_channel and the channel copy it shares with insert_channel (gip_extract_channel,
 * gip_insert_channel): one channel seen as a strided view and copied by gip_copy_strided() on
 * the CPU threads or a device kernel; and extract_channel's registry entry. */
#include "gip/color.h"
#include "gip/interop.h"
#include "internal.h"
#include "ops/color/channel_view.h"
#include "registry/registry.h"

static gip_status check_channel(gip_context *ctx, const gip_image *multi, const gip_image *one,
                                int32_t channel, const char *op, bool *on_device)
{
    gip_status st = gip__check_unary(ctx, multi, one, op, on_device);
    if (st)
        return st;
    if (multi->dtype == GIP_C32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: c32 images are not accepted", op);
    if (one->dtype != multi->dtype || one->channels != 1)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: the one-channel image is %d-channel %s but must be 1-channel %s", op,
                          (int)one->channels, gip_dtype_name(one->dtype),
                          gip_dtype_name(multi->dtype));
    if (channel < 0 || channel >= multi->channels)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: channel %d is outside the image's 0..%d", op, (int)channel,
                          (int)multi->channels - 1);
    return GIP_OK;
}

gip_status gip_extract_channel(gip_context *ctx, const gip_image *src, gip_image *dst,
                               int32_t channel)
{
    static const char op[] = "gip_extract_channel";
    bool on_device = false;
    gip_status st = check_channel(ctx, src, dst, channel, op, &on_device);
    if (st)
        return st;
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    gip_strided s = gip__channel_view(src, channel), d = gip__channel_view(dst, 0);
    return gip_copy_strided(ctx, &s, &d);
}

gip_status gip_insert_channel(gip_context *ctx, const gip_image *src, const gip_image *src2,
                              gip_image *dst, int32_t channel)
{
    static const char op[] = "gip_insert_channel";
    bool on_device = false;
    gip_status st = check_channel(ctx, dst, src2, channel, op, &on_device);
    if (st || (st = gip__check_unary(ctx, src, dst, op, &on_device)))
        return st;
    if ((st = gip__check_same_type(ctx, src, dst, op)))
        return st;
    if (gip__images_overlap(src2, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src2 and dst overlap", op);
    if (!gip__images_same(src, dst)) {
        if (gip__images_overlap(src, dst))
            return gip__error(ctx, GIP_ERR_ALIASING,
                              "%s: src and dst overlap; pass the same view for in-place, or "
                              "disjoint images",
                              op);
        if ((st = gip_copy(ctx, src, dst)))
            return st;
    }
    gip_strided s = gip__channel_view(src2, 0), d = gip__channel_view(dst, channel);
    return gip_copy_strided(ctx, &s, &d);
}

static const gip_param decl[] = {
    GIP__PARAM("channel", GIP_PARAM_INT, GIP_PARAM_POSITIONAL, 0, 3, 0, NULL, "0",
               "the channel taken (0 is the first)"),
};

static gip_status build(const gip_args *a, void *out)
{
    *(int32_t *)out = (int32_t)gip_args_int(a, "channel");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const int32_t c = *(const int32_t *)params;
    if (c >= in->channels)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "extract_channel: channel %d is outside the image's 0..%d", (int)c,
                          (int)in->channels - 1);
    *identity = in->channels == 1;
    out->channels = 1;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_extract_channel(ctx, src, dst, *(const int32_t *)p);
}

const gip_op gip__op_extract_channel = {
    .name = "extract_channel",
    .family = "color",
    .summary = "One channel of the image, as cv2.extractChannel.",
    .doc = "dst (one channel) = channel `channel` of src; a one-channel image passes unchanged.",
    .cv_name = "cv2.extractChannel",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(int32_t),
    .build = build,
    .shape = shape,
    .run = run,
};
