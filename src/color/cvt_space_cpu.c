/* SPDX-License-Identifier: MIT */
/* The colour spaces of gip_cvt_color on the CPU: the per-pixel functions of cvt_space.h over row
 * bands on gip's thread pool. */
#include "color/cvt_color.h"

typedef struct space_job {
    const gip_image *src;
    gip_image *dst;
    gip__cs_params cs;
} space_job;

/* One u16 row, the space and direction fixed per loop so that the compiler specialises each. */
static inline void u16_span(const gip__cs_params *cs, const uint16_t *s, uint16_t *d, int64_t w,
                            int scn, int dcn, int space, int inverse)
{
    const gip__cs_params p = {space, inverse, cs->bidx, cs->rgb_cn};
    for (int64_t x = 0; x < w; x++)
        gip__cs_pixel_u16(&p, s + x * scn, d + x * dcn);
}

static void u16_row(const gip__cs_params *cs, const uint16_t *s, uint16_t *d, int64_t w, int scn,
                    int dcn)
{
    switch (cs->space * 2 + cs->inverse) {
    case GIP__CS_YCRCB * 2:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YCRCB, 0);
        break;
    case GIP__CS_YCRCB * 2 + 1:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YCRCB, 1);
        break;
    case GIP__CS_YUV * 2:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YUV, 0);
        break;
    case GIP__CS_YUV * 2 + 1:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YUV, 1);
        break;
    case GIP__CS_XYZ * 2:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_XYZ, 0);
        break;
    default:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_XYZ, 1);
        break;
    }
}

/* One u8 row of a forward conversion from 3-channel pixels (what gip__cs_pixel_u8() does for
 * them), the space a constant of each loop so that its pixel function is inlined and the loop
 * vectorises (gathers for HSV's division tables); false for the others (the generic loop runs). */
static inline __attribute__((always_inline)) void
u8_span(const gip__cs_params *cs, const uint8_t *s, uint8_t *d, int64_t w, int space)
{
    const int bi = cs->bidx;
    for (int64_t x = 0; x < w; x++) {
        const uint8_t *q = s + x * 3;
        const int r = q[bi ^ 2], g = q[1], b = q[bi];
        if (space == GIP__CS_HSV || space == GIP__CS_HSV_FULL)
            gip__hsv_from_rgb_u8(r, g, b, space == GIP__CS_HSV_FULL, d + x * 3);
        else if (space == GIP__CS_YCRCB || space == GIP__CS_YUV)
            gip__ycc_from_rgb_u8(r, g, b, space == GIP__CS_YUV, d + x * 3);
        else
            gip__xyz_from_rgb_u8(r, g, b, d + x * 3);
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static bool
u8_row(const gip__cs_params *cs, const uint8_t *s, uint8_t *d, int64_t w, int scn, int dcn)
{
    if (cs->inverse || scn != 3 || dcn != 3)
        return false;
    switch (cs->space) {
    case GIP__CS_HSV:
        u8_span(cs, s, d, w, GIP__CS_HSV);
        return true;
    case GIP__CS_HSV_FULL:
        u8_span(cs, s, d, w, GIP__CS_HSV_FULL);
        return true;
    case GIP__CS_YCRCB:
        u8_span(cs, s, d, w, GIP__CS_YCRCB);
        return true;
    case GIP__CS_YUV:
        u8_span(cs, s, d, w, GIP__CS_YUV);
        return true;
    case GIP__CS_XYZ:
        u8_span(cs, s, d, w, GIP__CS_XYZ);
        return true;
    default:
        return false;
    }
}

static void space_rows(void *arg, int64_t y0, int64_t y1)
{
    const space_job *j = arg;
    const int scn = j->src->channels, dcn = j->dst->channels;
    const int64_t w = j->src->width;
    for (int64_t y = y0; y < y1; y++) {
        const char *s = (const char *)j->src->data + y * j->src->stride;
        char *d = (char *)j->dst->data + y * j->dst->stride;
        if (j->src->dtype == GIP_U8) {
            if (u8_row(&j->cs, (const uint8_t *)s, (uint8_t *)d, w, scn, dcn))
                continue;
            for (int64_t x = 0; x < w; x++)
                gip__cs_pixel_u8(&j->cs, (const uint8_t *)s + x * scn, (uint8_t *)d + x * dcn, x,
                                 w);
        } else if (j->src->dtype == GIP_U16) {
            u16_row(&j->cs, (const uint16_t *)s, (uint16_t *)d, w, scn, dcn);
        } else {
            for (int64_t x = 0; x < w; x++)
                gip__cs_pixel_f32(&j->cs, (const float *)s + x * scn, (float *)d + x * dcn, x, w);
        }
    }
}

gip_status gip__cvt_space_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip__cc_params *p)
{
    space_job j = {src, dst, p->cs};
    int64_t grain = src->width >= 8192 ? 1 : 8192 / src->width;
    gip__parallel_for(ctx, src->height, grain, space_rows, &j);
    return GIP_OK;
}
