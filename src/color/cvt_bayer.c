/* SPDX-License-Identifier: MIT */
/* gip_bayer_to_rgb: argument checks and the CPU backend (rows on gip's thread pool);
 * cvt_bayer_cuda.cu is the CUDA one. */
#include "color/cvt_bayer.h"
#include "internal.h"

gip_status gip__bayer_cuda(gip_context *ctx, const gip__bayer *b, gip_image *dst);

typedef struct bayer_job {
    gip__bayer b;
    gip_image *dst;
} bayer_job;

static void bayer_rows(void *arg, int64_t y0, int64_t y1)
{
    const bayer_job *j = arg;
    const int cn = j->b.dcn;
    const uint32_t amax = j->b.u16 ? 65535 : 255;
    for (int64_t y = y0; y < y1; y++) {
        char *row = (char *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < j->b.width; x++) {
            uint32_t v[3];
            gip__bayer_pixel(&j->b, x, y, v);
            for (int c = 0; c < cn; c++) {
                uint32_t e = c < 3 ? v[c] : amax;
                if (j->b.u16)
                    ((uint16_t *)row)[x * cn + c] = (uint16_t)e;
                else
                    ((uint8_t *)row)[x * cn + c] = (uint8_t)e;
            }
        }
    }
}

static gip_status bayer_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                            gip_bayer_pattern pattern, int32_t bgr, int32_t method, const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((int)pattern < GIP_BAYER_BG || (int)pattern > GIP_BAYER_GR)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: pattern %d is not a gip_bayer_pattern (GIP_BAYER_BG 0 .. "
                          "GIP_BAYER_GR 3)",
                          op, (int)pattern);
    if ((src->dtype != GIP_U8 && src->dtype != GIP_U16) || src->channels != 1 ||
        dst->dtype != src->dtype)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must be a 1-channel u8 or u16 mosaic and dst of its dtype, got "
                          "%d-channel %s into %s",
                          op, (int)src->channels, gip_dtype_name(src->dtype),
                          gip_dtype_name(dst->dtype));
    if (method && dst->channels != 3)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s demosaicing gives 3 channels (as OpenCV's %s codes), got a "
                          "%d-channel dst",
                          op, method == 1 ? "edge-aware" : "VNG", method == 1 ? "_EA" : "_VNG",
                          (int)dst->channels);
    if (method == 2 && src->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: VNG demosaicing takes u8 mosaics (as OpenCV), got %s", op,
                          gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    if (on_device) {
        size_t es = gip_dtype_size(src->dtype);
        if ((uintptr_t)src->data % es || src->stride % (int64_t)es || (uintptr_t)dst->data % es ||
            dst->stride % (int64_t)es)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: device images need data and stride aligned to the element "
                              "size",
                              op);
    }
    bayer_job j = {{src->data, src->stride, src->width, src->height, src->dtype == GIP_U16,
                    pattern == GIP_BAYER_BG || pattern == GIP_BAYER_GB ? -1 : 1,
                    pattern == GIP_BAYER_GB || pattern == GIP_BAYER_GR, dst->channels, !bgr,
                    method},
                   dst};
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__bayer_cuda(ctx, &j.b, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    gip__parallel_for(ctx, src->height, src->width >= 8192 ? 1 : 8192 / src->width, bayer_rows, &j);
    return GIP_OK;
}

gip_status gip_bayer_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                            gip_bayer_pattern pattern, int32_t bgr)
{
    return bayer_run(ctx, src, dst, pattern, bgr, 0, "gip_bayer_to_rgb");
}

gip_status gip_bayer_to_rgb_ea(gip_context *ctx, const gip_image *src, gip_image *dst,
                               gip_bayer_pattern pattern, int32_t bgr)
{
    return bayer_run(ctx, src, dst, pattern, bgr, 1, "gip_bayer_to_rgb_ea");
}

gip_status gip_bayer_to_rgb_vng(gip_context *ctx, const gip_image *src, gip_image *dst,
                                gip_bayer_pattern pattern, int32_t bgr)
{
    return bayer_run(ctx, src, dst, pattern, bgr, 2, "gip_bayer_to_rgb_vng");
}
