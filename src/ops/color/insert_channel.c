/* SPDX-License-Identifier: MIT */
/* The registry's insert_channel (cv2.insertChannel): gip_insert_channel() with the channel as
 * the extra input src2. */
#include "gip/color.h"
#include "internal.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM("channel", GIP_PARAM_INT, GIP_PARAM_POSITIONAL, 0, 3, 0, NULL, "0",
               "the channel replaced (0 is the first)"),
};

static const gip_input inputs[] = {
    {"src2", GIP_INPUT_SAME_SIZE, 0, GIP_CHANNELS_BIT(1),
     "the new channel: one channel of src's size and dtype"},
};

static gip_status build(const gip_args *a, void *out)
{
    *(int32_t *)out = (int32_t)gip_args_int(a, "channel");
    return GIP_OK;
}

static gip_status run_inputs(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                             gip_image *dst, const void *p)
{
    return gip_insert_channel(ctx, src, in[0], dst, *(const int32_t *)p);
}

const gip_op gip__op_insert_channel = {
    .name = "insert_channel",
    .family = "color",
    .summary = "Replaces one channel by a one-channel image, as cv2.insertChannel.",
    .doc = "dst = src with channel `channel` taken from src2 (one channel, src's size and dtype).",
    .cv_name = "cv2.insertChannel",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_IN_PLACE,
    .params_size = sizeof(int32_t),
    .build = build,
    GIP__INPUTS(inputs),
    .run_inputs = run_inputs,
};
