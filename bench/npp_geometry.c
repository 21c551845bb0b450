/* SPDX-License-Identifier: MIT */
/* NPP peers of the geometry rows (see npp_peers.h): nppiResize, nppiWarpAffine,
 * nppiWarpPerspective, nppiRemap, nppiMirror and nppiTranspose on gip's buffers. One function per
 * operation serves u8c1 and u8c3 (the set's channel count picks NPP's C1R or C3R). */
#include "npp_peers.h"

/* The rows' matrices (ops_geometry.c): forward (src -> dst), as NPP's warps take them. */
void bench_geometry_rot10(int64_t w, int64_t h, double m[6]);
void bench_geometry_homography(int64_t w, int64_t h, double m[9]);

#define SSIZE ((NppiSize){(int)s->src.width, (int)s->src.height})
#define DSIZE ((NppiSize){(int)s->dst.width, (int)s->dst.height})
#define SRECT ((NppiRect){0, 0, (int)s->src.width, (int)s->src.height})
#define DRECT ((NppiRect){0, 0, (int)s->dst.width, (int)s->dst.height})
#define C1 (s->src.channels == 1)
#define SRC_DATA(T) ((const T *)s->src.data)

static NppStatus resize(const bench_set *s, int inter, NppStreamContext c)
{
    if (C1)
        return nppiResize_8u_C1R_Ctx(SRC(Npp8u), SSIZE, SRECT, DST(Npp8u), DSIZE, DRECT, inter, c);
    return nppiResize_8u_C3R_Ctx(SRC(Npp8u), SSIZE, SRECT, DST(Npp8u), DSIZE, DRECT, inter, c);
}

static NppStatus resize_linear(const bench_set *s, NppiBorderType b, const npp_taps *t,
                               NppStreamContext c)
{
    return resize(s, NPPI_INTER_LINEAR, c);
}

static NppStatus resize_super(const bench_set *s, NppiBorderType b, const npp_taps *t,
                              NppStreamContext c)
{
    return resize(s, NPPI_INTER_SUPER, c);
}

static NppStatus resize_cubic(const bench_set *s, NppiBorderType b, const npp_taps *t,
                              NppStreamContext c)
{
    return resize(s, NPPI_INTER_CUBIC, c);
}

static NppStatus warp_affine(const bench_set *s, NppiBorderType b, const npp_taps *t,
                             NppStreamContext c)
{
    double m[6];
    bench_geometry_rot10(s->src.width, s->src.height, m);
    const double k[2][3] = {{m[0], m[1], m[2]}, {m[3], m[4], m[5]}};
    if (C1)
        return nppiWarpAffine_8u_C1R_Ctx(SRC_DATA(Npp8u), SSIZE, (int)s->src.stride, SRECT,
                                         DST(Npp8u), DRECT, k, NPPI_INTER_LINEAR, c);
    return nppiWarpAffine_8u_C3R_Ctx(SRC_DATA(Npp8u), SSIZE, (int)s->src.stride, SRECT, DST(Npp8u),
                                     DRECT, k, NPPI_INTER_LINEAR, c);
}

static NppStatus warp_perspective(const bench_set *s, NppiBorderType b, const npp_taps *t,
                                  NppStreamContext c)
{
    double m[9];
    bench_geometry_homography(s->src.width, s->src.height, m);
    const double k[3][3] = {{m[0], m[1], m[2]}, {m[3], m[4], m[5]}, {m[6], m[7], m[8]}};
    if (C1)
        return nppiWarpPerspective_8u_C1R_Ctx(SRC_DATA(Npp8u), SSIZE, (int)s->src.stride, SRECT,
                                              DST(Npp8u), DRECT, k, NPPI_INTER_LINEAR, c);
    return nppiWarpPerspective_8u_C3R_Ctx(SRC_DATA(Npp8u), SSIZE, (int)s->src.stride, SRECT,
                                          DST(Npp8u), DRECT, k, NPPI_INTER_LINEAR, c);
}

/* The maps are the gip row's (set->aux[0], aux[1], made by its prepare step). */
static NppStatus remap(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c)
{
    const gip_image *mx = &s->aux[0], *my = &s->aux[1];
    if (!mx->data || !my->data)
        return NPP_NULL_POINTER_ERROR;
    if (C1)
        return nppiRemap_8u_C1R_Ctx(SRC_DATA(Npp8u), SSIZE, (int)s->src.stride, SRECT,
                                    (const Npp32f *)mx->data, (int)mx->stride,
                                    (const Npp32f *)my->data, (int)my->stride, DST(Npp8u), DSIZE,
                                    NPPI_INTER_LINEAR, c);
    return nppiRemap_8u_C3R_Ctx(SRC_DATA(Npp8u), SSIZE, (int)s->src.stride, SRECT,
                                (const Npp32f *)mx->data, (int)mx->stride, (const Npp32f *)my->data,
                                (int)my->stride, DST(Npp8u), DSIZE, NPPI_INTER_LINEAR, c);
}

static NppStatus mirror(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c)
{
    if (C1)
        return nppiMirror_8u_C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, NPP_VERTICAL_AXIS, c);
    return nppiMirror_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, NPP_VERTICAL_AXIS, c);
}

static NppStatus transpose(const bench_set *s, NppiBorderType b, const npp_taps *t,
                           NppStreamContext c)
{
    if (C1)
        return nppiTranspose_8u_C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c);
    return nppiTranspose_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c);
}

/* The rotation itself in two passes: transpose into set->aux[0] (dst's shape, made by the gip
 * row's prepare step), then mirror that around the vertical axis into dst. */
static NppStatus transpose_mirror(const bench_set *s, NppiBorderType b, const npp_taps *t,
                                  NppStreamContext c)
{
    const gip_image *a = &s->aux[0];
    const NppiSize at = {(int)a->width, (int)a->height};
    NppStatus st;
    if (!a->data)
        return NPP_NULL_POINTER_ERROR;
    if (C1) {
        st = nppiTranspose_8u_C1R_Ctx(SRC(Npp8u), (Npp8u *)a->data, (int)a->stride, ROI, c);
        return st < 0 ? st
                      : nppiMirror_8u_C1R_Ctx((const Npp8u *)a->data, (int)a->stride, DST(Npp8u),
                                              at, NPP_VERTICAL_AXIS, c);
    }
    st = nppiTranspose_8u_C3R_Ctx(SRC(Npp8u), (Npp8u *)a->data, (int)a->stride, ROI, c);
    return st < 0 ? st
                  : nppiMirror_8u_C3R_Ctx((const Npp8u *)a->data, (int)a->stride, DST(Npp8u), at,
                                          NPP_VERTICAL_AXIS, c);
}

#define RS "nppiResize, "
#define NOT_EXACT "; NPP's own coordinates and rounding (not bit-exact with OpenCV)"
#define LINEAR_NOTE RS "NPPI_INTER_LINEAR" NOT_EXACT
#define SUPER_NOTE RS "NPPI_INTER_SUPER (super-sampling, NPP's area shrink)" NOT_EXACT
#define AREA_UP_NOTE                                                                               \
    RS "NPPI_INTER_LINEAR: SUPER only shrinks, and OpenCV's area upscale is a bilinear of its "    \
       "own; not bit-exact"
#define CUBIC_NOTE RS "NPPI_INTER_CUBIC (NPP's cubic filter, not OpenCV's a = -0.75 bit for bit)"
#define OUTSIDE "; dst pixels that map outside the source are not written (gip writes 0)"
#define AFFINE_NOTE "nppiWarpAffine, the same forward matrix, linear" OUTSIDE
#define PERSP_NOTE "nppiWarpPerspective, the same forward matrix, linear" OUTSIDE
#define REMAP_NOTE "nppiRemap, the same f32 maps, linear" OUTSIDE
#define MIRROR_NOTE "nppiMirror NPP_VERTICAL_AXIS (left-right, as cv2.flip code 1)"
#define TRANSPOSE_NOTE                                                                             \
    "nppiTranspose alone: a transpose, not the rotation (rotate 90 clockwise = transpose + "       \
    "left-right flip), the same bytes moved"
#define TM_NOTE                                                                                    \
    "the rotation itself: nppiTranspose into a scratch image of dst's shape, then nppiMirror "     \
    "NPP_VERTICAL_AXIS into dst (two passes)"

/* clang-format off */
#define BOTH(OP, IMPL, FN, NOTE) {OP, "u8c1", IMPL, 0, FN, NOTE}, {OP, "u8c3", IMPL, 0, FN, NOTE}

const npp_peer bench_npp_geometry[] = {
    BOTH("resize_linear_d2", "npp_resize", resize_linear, LINEAR_NOTE),
    BOTH("resize_linear_d17", "npp_resize", resize_linear, LINEAR_NOTE),
    BOTH("resize_linear_u2", "npp_resize", resize_linear, LINEAR_NOTE),
    BOTH("resize_area_d2", "npp_resize_super", resize_super, SUPER_NOTE),
    BOTH("resize_area_d17", "npp_resize_super", resize_super, SUPER_NOTE),
    BOTH("resize_area_u2", "npp_resize", resize_linear, AREA_UP_NOTE),
    BOTH("resize_cubic_d2", "npp_resize", resize_cubic, CUBIC_NOTE),
    BOTH("resize_cubic_d17", "npp_resize", resize_cubic, CUBIC_NOTE),
    BOTH("resize_cubic_u2", "npp_resize", resize_cubic, CUBIC_NOTE),
    BOTH("warp_affine_rot10", "npp_warp_affine", warp_affine, AFFINE_NOTE),
    BOTH("warp_perspective", "npp_warp_persp", warp_perspective, PERSP_NOTE),
    BOTH("remap_linear", "npp_remap", remap, REMAP_NOTE),
    BOTH("flip_h", "npp_mirror", mirror, MIRROR_NOTE),
    BOTH("rotate90", "npp_transpose", transpose, TRANSPOSE_NOTE),
    BOTH("rotate90", "npp_transpose_mirror", transpose_mirror, TM_NOTE),
};
/* clang-format on */
const int bench_npp_ngeometry = (int)(sizeof bench_npp_geometry / sizeof bench_npp_geometry[0]);
