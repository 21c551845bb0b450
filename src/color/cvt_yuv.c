/* SPDX-License-Identifier: MIT */
/* gip_yuv_to_rgb: the frame's geometry checked against the output, and the CPU backend (rows on
 * gip's thread pool); cvt_yuv_cuda.cu is the CUDA one. */
#include <string.h>

#include "color/cvt_yuv.h"
#include "internal.h"

gip_status gip__yuv_to_rgb_cuda(gip_context *ctx, const gip__yuv_frame *f, gip_image *dst);
gip_status gip__rgb_to_yuv_cuda(gip_context *ctx, const gip__yuv_enc *e, gip_image *dst);

typedef struct yuv_job {
    gip__yuv_frame f;
    gip_image *dst;
} yuv_job;

static void yuv_rows(void *arg, int64_t y0, int64_t y1)
{
    const yuv_job *j = arg;
    const int cn = j->f.dcn;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < j->f.width; x++)
            gip__yuv_pixel(&j->f, x, y, d + x * cn);
    }
}

/* 20-bit coefficients (Y, V to R, U to G, V to G, U to B) by [standard][full range]. BT.601
 * limited: OpenCV's (1.164, 1.596, -0.391, -0.813, 2.018); the others from the standards' Kr and
 * Kb (BT.601 0.299, 0.114; BT.709 0.2126, 0.0722), rounded to 20 bits: Y scaled by 255/219 and
 * chroma by 255/224 for limited range, R = Y + 2 (1 - Kr) V, B = Y + 2 (1 - Kb) U, and G from
 * Y = Kr R + Kg G + Kb B. */
static const int32_t yuv_coeffs[2][2][5] = {
    {{1220542, 1673527, -409993, -852492, 2116026}, {1048576, 1470104, -360853, -748826, 1858077}},
    {{1220945, 1879825, -223607, -558796, 2215014}, {1048576, 1651297, -196424, -490864, 1945738}},
};

/* The checks both directions share: a gip_yuv_layout, and the matrix (params, NULL: BT.601
 * limited) into *yp. */
static gip_status check_layout_matrix(gip_context *ctx, gip_yuv_layout layout,
                                      const gip_yuv_params *params, gip_yuv_params *yp,
                                      const char *op)
{
    *yp = params ? *params : (gip_yuv_params){GIP_YUV_BT601, 0};
    if ((int)layout < GIP_YUV_NV12 || (int)layout > GIP_YUV_YVYU)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: layout %d is not a gip_yuv_layout (GIP_YUV_NV12 0 .. GIP_YUV_YVYU "
                          "6)",
                          op, (int)layout);
    if ((int)yp->standard < GIP_YUV_BT601 || (int)yp->standard > GIP_YUV_BT709 ||
        (yp->full_range != 0 && yp->full_range != 1))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: standard %d, full_range %d: GIP_YUV_BT601 (0) or GIP_YUV_BT709 "
                          "(1), and 0 or 1",
                          op, (int)yp->standard, (int)yp->full_range);
    return GIP_OK;
}

static gip_status yuv_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params,
                             const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    gip_yuv_params ypv;
    if ((st = check_layout_matrix(ctx, layout, params, &ypv, op)))
        return st;
    const gip_yuv_params *yp = &ypv;
    if (src->dtype != GIP_U8 || src->channels != 1 || dst->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must be a 1-channel u8 frame and dst u8, got %d-channel %s and "
                          "%s",
                          op, (int)src->channels, gip_dtype_name(src->dtype),
                          gip_dtype_name(dst->dtype));
    const bool packed = layout >= GIP_YUV_YUY2;
    const int64_t w = dst->width, h = dst->height;
    const bool fits = packed
                          ? src->width == 2 * w && src->height == h && w % 2 == 0
                          : src->width == w && src->height * 2 == h * 3 && w % 2 == 0 && h % 2 == 0;
    if (!fits)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: a %s frame of %lldx%lld pixels (even sizes) is a %s u8 image, got "
                          "src %lldx%lld for dst %lldx%lld",
                          op, packed ? "4:2:2" : "4:2:0", (long long)w, (long long)h,
                          packed ? "(2 * W) x H" : "W x (H * 3 / 2)", (long long)src->width,
                          (long long)src->height, (long long)w, (long long)h);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    const int32_t *k = yuv_coeffs[yp->standard][yp->full_range];
    yuv_job j = {{(const uint8_t *)src->data, src->stride, w, h, (int32_t)layout, dst->channels,
                  bgr ? 0 : 2, k[0], k[1], k[2], k[3], k[4], yp->full_range ? 0 : 16},
                 dst};
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__yuv_to_rgb_cuda(ctx, &j.f, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    gip__parallel_for(ctx, h, w >= 8192 ? 1 : 8192 / w, yuv_rows, &j);
    return GIP_OK;
}

gip_status gip_yuv_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                          gip_yuv_layout layout, int32_t bgr)
{
    return yuv_to_rgb(ctx, src, dst, layout, bgr, NULL, "gip_yuv_to_rgb");
}

gip_status gip_yuv_to_rgb_ex(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params)
{
    return yuv_to_rgb(ctx, src, dst, layout, bgr, params, "gip_yuv_to_rgb_ex");
}

typedef struct enc_job {
    gip__yuv_enc e;
    gip_image *dst;
} enc_job;

static void enc_rows(void *arg, int64_t y0, int64_t y1)
{
    const enc_job *j = arg;
    const gip__yuv_enc *e = &j->e;
    if (e->layout >= GIP_YUV_YUY2) {
        /* 4:2:2: each pair of pixels once, its four bytes at their places */
        const int yo = e->layout == GIP_YUV_UYVY;
        const int uo = e->layout == GIP_YUV_UYVY ? 0 : e->layout == GIP_YUV_YUY2 ? 1 : 3;
        const int vo = e->layout == GIP_YUV_UYVY ? 2 : e->layout == GIP_YUV_YUY2 ? 3 : 1;
        for (int64_t y = y0; y < y1; y++) {
            uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
            for (int64_t x = 0; x < e->width; x += 2, d += 4) {
                d[yo] = gip__yuv422_enc_comp(e, x, y, 0);
                d[yo + 2] = gip__yuv422_enc_comp(e, x + 1, y, 0);
                d[uo] = gip__yuv422_enc_comp(e, x, y, 1);
                d[vo] = gip__yuv422_enc_comp(e, x, y, 2);
            }
        }
        return;
    }
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (y < e->height) /* the Y plane */
            for (int64_t x = 0; x < e->width; x++)
                d[x] = (uint8_t)gip__yuv_enc_comp(e, x, y, 0);
        else
            for (int64_t x = 0; x < j->dst->width; x++)
                d[x] = gip__yuv_enc_byte(e, x, y);
    }
}

/* The encoders' coefficients by [standard][full range]: rows Y, U, V by columns R, G, B, 20-bit
 * for 4:2:0 and 14-bit Y, 13-bit U and V for 4:2:2. BT.601 limited: OpenCV's (0.257, 0.504,
 * 0.098; -0.148, -0.291, 0.439; 0.439, -0.368, -0.071, and its 4:2:2 constants); the others from
 * the standards' Kr and Kb: Y = Kr R + Kg G + Kb B, U = (B - Y) / 2 (1 - Kb), V = (R - Y) /
 * 2 (1 - Kr), scaled by 219/255 (Y) and 224/255 (U, V) for limited range. */
static const int32_t enc20[2][2][9] = {
    {{269484, 528482, 102760, -155188, -305135, 460324, 460324, -385875, -74448},
     {313524, 615514, 119538, -176932, -347356, 524288, 524288, -439026, -85262}},
    {{191455, 644067, 65019, -105533, -355018, 460551, 460551, -418321, -42230},
     {222927, 749942, 75707, -120138, -404150, 524288, 524288, -476214, -48074}},
};
static const int32_t enc14[2][2][9] = {
    {{4211, 8258, 1606, -1212, -2384, 3596, 3596, -3015, -582},
     {4899, 9617, 1868, -1382, -2714, 4096, 4096, -3430, -666}},
    {{2991, 10064, 1016, -824, -2774, 3598, 3598, -3268, -330},
     {3483, 11718, 1183, -939, -3157, 4096, 4096, -3720, -376}},
};

static gip_status rgb_to_yuv(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params,
                             const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    gip_yuv_params ypv;
    if ((st = check_layout_matrix(ctx, layout, params, &ypv, op)))
        return st;
    const gip_yuv_params *yp = &ypv;
    if (src->dtype != GIP_U8 || src->channels < 3 || dst->dtype != GIP_U8 || dst->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must be u8 with 3 or 4 channels and dst u8 with one, got "
                          "%d-channel %s and %d-channel %s",
                          op, (int)src->channels, gip_dtype_name(src->dtype), (int)dst->channels,
                          gip_dtype_name(dst->dtype));
    const int64_t w = src->width, h = src->height;
    const bool packed = layout >= GIP_YUV_YUY2;
    if (packed ? w % 2 || dst->width != 2 * w || dst->height != h
               : w % 2 || h % 2 || dst->width != w || dst->height * 2 != h * 3)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: a %lldx%lld image (%s) makes a %lldx%lld %s frame, got dst "
                          "%lldx%lld",
                          op, (long long)w, (long long)h, packed ? "even width" : "even sizes",
                          (long long)(packed ? 2 * w : w), (long long)(packed ? h : h * 3 / 2),
                          packed ? "4:2:2" : "4:2:0", (long long)dst->width,
                          (long long)dst->height);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    enc_job j = {.e = {.data = (const uint8_t *)src->data,
                       .stride = src->stride,
                       .width = w,
                       .height = h,
                       .scn = src->channels,
                       .bidx = bgr ? 0 : 2,
                       .layout = (int32_t)layout,
                       .yoff = yp->full_range ? 0 : 16},
                 .dst = dst};
    memcpy(j.e.k20, enc20[yp->standard][yp->full_range], sizeof j.e.k20);
    memcpy(j.e.k14, enc14[yp->standard][yp->full_range], sizeof j.e.k14);
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__rgb_to_yuv_cuda(ctx, &j.e, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    gip__parallel_for(ctx, dst->height, dst->width >= 8192 ? 1 : 8192 / dst->width, enc_rows, &j);
    return GIP_OK;
}

gip_status gip_rgb_to_yuv(gip_context *ctx, const gip_image *src, gip_image *dst,
                          gip_yuv_layout layout, int32_t bgr)
{
    return rgb_to_yuv(ctx, src, dst, layout, bgr, NULL, "gip_rgb_to_yuv");
}

gip_status gip_rgb_to_yuv_ex(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params)
{
    return rgb_to_yuv(ctx, src, dst, layout, bgr, params, "gip_rgb_to_yuv_ex");
}
