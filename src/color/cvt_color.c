/* SPDX-License-Identifier: MIT */
/* gip_cvt_color: checks the arguments once, looks up what the code does, and runs the CPU or
 * CUDA backend. */
#include "color/convert.h"
#include "color/cvt_color.h"

/* Indexed by code: kind, source channels, destination channels, swap/red first. */
static const struct {
    const char *name;
    gip__cc_kind kind;
    int scn, dcn;
    bool swap;
    int space, inverse, bidx; /* SPACE: gip__cs_params */
} codes[] = {
    [GIP_COLOR_RGB2BGR] = {"RGB2BGR", GIP__CC_REORDER, 3, 3, true},
    [GIP_COLOR_RGBA2BGRA] = {"RGBA2BGRA", GIP__CC_REORDER, 4, 4, true},
    [GIP_COLOR_RGB2RGBA] = {"RGB2RGBA", GIP__CC_REORDER, 3, 4, false},
    [GIP_COLOR_RGBA2RGB] = {"RGBA2RGB", GIP__CC_REORDER, 4, 3, false},
    [GIP_COLOR_RGB2BGRA] = {"RGB2BGRA", GIP__CC_REORDER, 3, 4, true},
    [GIP_COLOR_RGBA2BGR] = {"RGBA2BGR", GIP__CC_REORDER, 4, 3, true},
    [GIP_COLOR_RGB2GRAY] = {"RGB2GRAY", GIP__CC_TO_GRAY, 3, 1, true},
    [GIP_COLOR_BGR2GRAY] = {"BGR2GRAY", GIP__CC_TO_GRAY, 3, 1, false},
    [GIP_COLOR_RGBA2GRAY] = {"RGBA2GRAY", GIP__CC_TO_GRAY, 4, 1, true},
    [GIP_COLOR_BGRA2GRAY] = {"BGRA2GRAY", GIP__CC_TO_GRAY, 4, 1, false},
    [GIP_COLOR_GRAY2RGB] = {"GRAY2RGB", GIP__CC_FROM_GRAY, 1, 3, false},
    [GIP_COLOR_GRAY2RGBA] = {"GRAY2RGBA", GIP__CC_FROM_GRAY, 1, 4, false},
    [GIP_COLOR_BGR2HSV] = {"BGR2HSV", GIP__CC_SPACE, 3, 3, false, 0, 0, 0},
    [GIP_COLOR_RGB2HSV] = {"RGB2HSV", GIP__CC_SPACE, 3, 3, false, 0, 0, 2},
    [GIP_COLOR_HSV2BGR] = {"HSV2BGR", GIP__CC_SPACE, 3, 3, false, 0, 1, 0},
    [GIP_COLOR_HSV2RGB] = {"HSV2RGB", GIP__CC_SPACE, 3, 3, false, 0, 1, 2},
    [GIP_COLOR_BGR2HSV_FULL] = {"BGR2HSV_FULL", GIP__CC_SPACE, 3, 3, false, 1, 0, 0},
    [GIP_COLOR_RGB2HSV_FULL] = {"RGB2HSV_FULL", GIP__CC_SPACE, 3, 3, false, 1, 0, 2},
    [GIP_COLOR_HSV_FULL2BGR] = {"HSV_FULL2BGR", GIP__CC_SPACE, 3, 3, false, 1, 1, 0},
    [GIP_COLOR_HSV_FULL2RGB] = {"HSV_FULL2RGB", GIP__CC_SPACE, 3, 3, false, 1, 1, 2},
    [GIP_COLOR_BGR2HLS] = {"BGR2HLS", GIP__CC_SPACE, 3, 3, false, 2, 0, 0},
    [GIP_COLOR_RGB2HLS] = {"RGB2HLS", GIP__CC_SPACE, 3, 3, false, 2, 0, 2},
    [GIP_COLOR_HLS2BGR] = {"HLS2BGR", GIP__CC_SPACE, 3, 3, false, 2, 1, 0},
    [GIP_COLOR_HLS2RGB] = {"HLS2RGB", GIP__CC_SPACE, 3, 3, false, 2, 1, 2},
    [GIP_COLOR_BGR2HLS_FULL] = {"BGR2HLS_FULL", GIP__CC_SPACE, 3, 3, false, 3, 0, 0},
    [GIP_COLOR_RGB2HLS_FULL] = {"RGB2HLS_FULL", GIP__CC_SPACE, 3, 3, false, 3, 0, 2},
    [GIP_COLOR_HLS_FULL2BGR] = {"HLS_FULL2BGR", GIP__CC_SPACE, 3, 3, false, 3, 1, 0},
    [GIP_COLOR_HLS_FULL2RGB] = {"HLS_FULL2RGB", GIP__CC_SPACE, 3, 3, false, 3, 1, 2},
    [GIP_COLOR_BGR2YCRCB] = {"BGR2YCrCb", GIP__CC_SPACE, 3, 3, false, 4, 0, 0},
    [GIP_COLOR_RGB2YCRCB] = {"RGB2YCrCb", GIP__CC_SPACE, 3, 3, false, 4, 0, 2},
    [GIP_COLOR_YCRCB2BGR] = {"YCrCb2BGR", GIP__CC_SPACE, 3, 3, false, 4, 1, 0},
    [GIP_COLOR_YCRCB2RGB] = {"YCrCb2RGB", GIP__CC_SPACE, 3, 3, false, 4, 1, 2},
    [GIP_COLOR_BGR2YUV] = {"BGR2YUV", GIP__CC_SPACE, 3, 3, false, 5, 0, 0},
    [GIP_COLOR_RGB2YUV] = {"RGB2YUV", GIP__CC_SPACE, 3, 3, false, 5, 0, 2},
    [GIP_COLOR_YUV2BGR] = {"YUV2BGR", GIP__CC_SPACE, 3, 3, false, 5, 1, 0},
    [GIP_COLOR_YUV2RGB] = {"YUV2RGB", GIP__CC_SPACE, 3, 3, false, 5, 1, 2},
    [GIP_COLOR_BGR2XYZ] = {"BGR2XYZ", GIP__CC_SPACE, 3, 3, false, 6, 0, 0},
    [GIP_COLOR_RGB2XYZ] = {"RGB2XYZ", GIP__CC_SPACE, 3, 3, false, 6, 0, 2},
    [GIP_COLOR_XYZ2BGR] = {"XYZ2BGR", GIP__CC_SPACE, 3, 3, false, 6, 1, 0},
    [GIP_COLOR_XYZ2RGB] = {"XYZ2RGB", GIP__CC_SPACE, 3, 3, false, 6, 1, 2},
    [GIP_COLOR_BGR2LAB] = {"BGR2Lab", GIP__CC_SPACE, 3, 3, false, 7, 0, 0},
    [GIP_COLOR_RGB2LAB] = {"RGB2Lab", GIP__CC_SPACE, 3, 3, false, 7, 0, 2},
    [GIP_COLOR_LAB2BGR] = {"Lab2BGR", GIP__CC_SPACE, 3, 3, false, 7, 1, 0},
    [GIP_COLOR_LAB2RGB] = {"Lab2RGB", GIP__CC_SPACE, 3, 3, false, 7, 1, 2},
    [GIP_COLOR_BGR2LUV] = {"BGR2Luv", GIP__CC_SPACE, 3, 3, false, 8, 0, 0},
    [GIP_COLOR_RGB2LUV] = {"RGB2Luv", GIP__CC_SPACE, 3, 3, false, 8, 0, 2},
    [GIP_COLOR_LUV2BGR] = {"Luv2BGR", GIP__CC_SPACE, 3, 3, false, 8, 1, 0},
    [GIP_COLOR_LUV2RGB] = {"Luv2RGB", GIP__CC_SPACE, 3, 3, false, 8, 1, 2},
};

gip_status gip_cvt_color(gip_context *ctx, const gip_image *src, gip_image *dst,
                         gip_color_code code)
{
    static const char op[] = "gip_cvt_color";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((int)code < GIP_COLOR_RGB2BGR || (int)code > GIP_COLOR_LUV2RGB)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: colour code %d is unknown: GIP_COLOR_RGB2BGR (1) to "
                          "GIP_COLOR_LUV2RGB (%d) are accepted",
                          op, (int)code, (int)GIP_COLOR_LUV2RGB);
    gip__cc_params p = {code,
                        codes[code].kind,
                        codes[code].scn,
                        codes[code].dcn,
                        codes[code].swap,
                        {codes[code].space, codes[code].inverse, codes[code].bidx, 3, NULL}};
    const char *name = codes[code].name;
    const bool space = p.kind == GIP__CC_SPACE;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != src->dtype)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src is %s but dst is %s; cvt_color keeps the dtype (change it with "
                          "gip_convert)",
                          op, gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype));
    /* OpenCV offers u16 for its integer YCrCb, YUV and XYZ code only */
    if (space && src->dtype == GIP_U16 && p.cs.space != GIP__CS_YCRCB &&
        p.cs.space != GIP__CS_YUV && p.cs.space != GIP__CS_XYZ)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s takes u8 or f32 images; u16 is offered for YCrCb, YUV and XYZ "
                          "(as OpenCV)",
                          op, name);
    /* cv2 runs Intel IPP for these on x86 (the full hue range of u8), whose rounding gip does
     * not reproduce: they are offered for f32 only. */
    if (space && src->dtype == GIP_U8 &&
        (p.cs.space == GIP__CS_HLS_FULL || (p.cs.space == GIP__CS_HSV_FULL && p.cs.inverse)))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s is offered for f32 images only (OpenCV computes u8 with Intel "
                          "IPP, whose rounding gip does not reproduce): convert to f32 (scaled by "
                          "1/255) first",
                          op, name);
    if (space) {
        /* The RGB side may carry alpha: ignored going in, the dtype's maximum going out. */
        int32_t rgb = p.cs.inverse ? dst->channels : src->channels;
        if (rgb == 4)
            p.cs.rgb_cn = 4, p.scn = p.cs.inverse ? 3 : 4, p.dcn = p.cs.inverse ? 4 : 3;
    }
    if (src->channels != p.scn || dst->channels != p.dcn)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: %s takes %d channels to %d%s, but src has %d and dst %d", op, name,
                          p.scn, p.dcn, space ? " (or 4 on the RGB side)" : "", (int)src->channels,
                          (int)dst->channels);
    /* Each pixel is read whole before it is written, so the same view is safe for the swaps (the
     * only codes where src and dst can be the same view: equal channel counts); any other
     * overlap would read pixels already overwritten. */
    if (gip__images_overlap(src, dst) && !(gip__images_same(src, dst) && p.scn == p.dcn))
        return gip__error(
            ctx, GIP_ERR_ALIASING,
            "%s: src and dst overlap; only codes with equal channel counts may work in place, "
            "with dst the same view as src",
            op);

    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return space ? gip__cvt_space_cuda(ctx, src, dst, &p)
                     : gip__cvt_color_cuda(ctx, src, dst, &p);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return space ? gip__cvt_space_cpu(ctx, src, dst, &p) : gip__cvt_color_cpu(ctx, src, dst, &p);
}
