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
};

gip_status gip_cvt_color(gip_context *ctx, const gip_image *src, gip_image *dst,
                         gip_color_code code)
{
    static const char op[] = "gip_cvt_color";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((int)code < GIP_COLOR_RGB2BGR || (int)code > GIP_COLOR_GRAY2RGBA)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: colour code %d is unknown: GIP_COLOR_RGB2BGR (1) to "
                          "GIP_COLOR_GRAY2RGBA (12) are accepted",
                          op, (int)code);
    gip__cc_params p = {code, codes[code].kind, codes[code].scn, codes[code].dcn, codes[code].swap};
    const char *name = codes[code].name;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != src->dtype)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src is %s but dst is %s; cvt_color keeps the dtype (change it with "
                          "gip_convert)",
                          op, gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype));
    if (src->channels != p.scn || dst->channels != p.dcn)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: %s takes %d channels to %d, but src has %d and dst %d", op, name,
                          p.scn, p.dcn, (int)src->channels, (int)dst->channels);
    /* Each pixel is read whole before it is written, so the same view is safe for the swaps (the
     * only codes where src and dst can be the same view: equal channel counts); any other
     * overlap would read pixels already overwritten. */
    if (gip__images_overlap(src, dst) && !(gip__images_same(src, dst) && p.scn == p.dcn))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; only RGB2BGR and RGBA2BGRA may work in place, "
                          "with dst the same view as src",
                          op);

    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__cvt_color_cuda(ctx, src, dst, &p);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__cvt_color_cpu(ctx, src, dst, &p);
}
