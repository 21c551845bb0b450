/* SPDX-License-Identifier: MIT */
/* The registry's bayer: Bayer mosaics to BGR, RGB, BGRA, RGBA or gray through
 * gip_bayer_to_rgb(). */
#include "gip/color.h"
#include "internal.h"
#include "registry/registry.h"

static const gip_choice patterns[] = {{"bg", GIP_BAYER_BG},
                                      {"gb", GIP_BAYER_GB},
                                      {"rg", GIP_BAYER_RG},
                                      {"gr", GIP_BAYER_GR},
                                      {NULL, 0}};

/* The output: channels * 10 + (1 for BGR order). */
static const gip_choice outputs[] = {{"bgr", 31},  {"rgb", 30},  {"bgra", 41},
                                     {"rgba", 40}, {"gray", 10}, {NULL, 0}};

static const gip_choice methods[] = {{"bilinear", 0}, {"ea", 1}, {"vng", 2}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("pattern", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, patterns, "bg",
                  "the colours of the second row's second and third pixels "
                  "(cv2.COLOR_Bayer<pattern>2BGR)",
                  "gr"),
    GIP__PARAM_EX("to", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, outputs, "bgr",
                  "the result: BGR, RGB, with alpha, or gray", "bgr"),
    GIP__PARAM("method", GIP_PARAM_CHOICE, 0, 0, 0, 0, methods, "bilinear",
               "bilinear; ea: edge-aware green at red and blue sites (cv2's _EA codes); vng: "
               "variable number of gradients (cv2's _VNG codes, u8); ea and vng give bgr or rgb"),
};

typedef struct bayer_step {
    int32_t pattern, to, ea;
} bayer_step;

static gip_status build(const gip_args *a, void *out)
{
    bayer_step *s = out;
    s->pattern = (int32_t)gip_args_int(a, "pattern");
    s->to = (int32_t)gip_args_int(a, "to");
    s->ea = (int32_t)gip_args_int(a, "method");
    if (s->ea && s->to / 10 != 3)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "bayer: method=%s gives bgr or rgb (3 channels), as cv2's %s codes",
                          s->ea == 1 ? "ea" : "vng", s->ea == 1 ? "_EA" : "_VNG");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)in;
    (void)identity;
    out->channels = ((const bayer_step *)params)->to / 10;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const bayer_step *s = p;
    const gip_bayer_pattern pat = (gip_bayer_pattern)s->pattern;
    if (s->ea == 2)
        return gip_bayer_to_rgb_vng(ctx, src, dst, pat, s->to % 10);
    return s->ea ? gip_bayer_to_rgb_ea(ctx, src, dst, pat, s->to % 10)
                 : gip_bayer_to_rgb(ctx, src, dst, pat, s->to % 10);
}

const gip_op gip__op_bayer = {
    .name = "bayer",
    .family = "color",
    .summary = "Demosaics a Bayer image (bilinear or edge-aware) to BGR, RGB or gray, as "
               "cv2.cvtColor's COLOR_Bayer*.",
    .doc = "OpenCV's bilinear demosaicing with its integer rounding (gray with its 14-bit "
           "weights), or its edge-aware variant (method=ea, COLOR_Bayer*2BGR_EA: green at red "
           "and blue sites from the pair of neighbours that differs less); the outer rows and "
           "columns repeat their inner neighbours; or VNG (method=vng, COLOR_Bayer*2BGR_VNG, u8: "
           "gradients in eight directions over the mosaic padded by reflection, as cv2 5.1). u8 "
           "and u16 "
           "results equal OpenCV's. The pattern names the second row's second and third pixels, "
           "as OpenCV's codes do.",
    .cv_name = "cv2.cvtColor",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16),
    .channels = GIP_CHANNELS_BIT(1),
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(bayer_step),
    .build = build,
    .shape = shape,
    .run = run,
};
