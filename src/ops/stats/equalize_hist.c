/* SPDX-License-Identifier: MIT */
/* equalizeHist (gip_equalize_hist): the checks, OpenCV's table from the histogram, the CPU
 * backend, and its registry entry. On the CPU the histogram comes from the calcHist counter;
 * on CUDA the histogram, the table (the same arithmetic, calc_hist_cuda.cu) and the table pass
 * all run on the device. */
#include <math.h>
#include <string.h>

#include "engine/lut/lut_u8.h"
#include "ops/op_check.h"
#include "ops/op_step.h"
#include "ops/stats/stats.h"
#include "registry/registry.h"

/* OpenCV's equalisation table: 0 below the first used level, then the cumulative count past it
 * scaled to 255 in float; a one-level image maps everything to that level. */
static void equalize_table(const uint32_t *hist, int64_t total, uint8_t lut[256])
{
    int i = 0;
    while (i < 255 && !hist[i])
        i++;
    if ((int64_t)hist[i] == total) {
        memset(lut, i, 256);
        return;
    }
    float scale = 255.0f / (float)(total - (int64_t)hist[i]);
    int64_t sum = 0;
    memset(lut, 0, 256);
    for (lut[i++] = 0; i < 256; i++) {
        sum += hist[i];
        long v = lrintf((float)sum * scale);
        lut[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

typedef struct lut_job {
    const gip_image *src;
    gip_image *dst;
    const uint8_t *lut;
} lut_job;

static void lut_rows(void *arg, int64_t y0, int64_t y1)
{
    const lut_job *j = arg;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *s = (const uint8_t *)j->src->data + y * j->src->stride;
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        gip__lut_u8_row(j->lut, s, d, j->src->width);
    }
}

gip_status gip_equalize_hist(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const char op[] = "gip_equalize_hist";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT(GIP_U8), op, "src")))
        return st;
    if (src->channels != 1 || dst->channels != 1 || dst->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src is %d-channel and dst %d-channel %s; both must be one-channel "
                          "u8",
                          op, (int)src->channels, (int)dst->channels, gip_dtype_name(dst->dtype));
    if (!gip__images_same(src, dst) && gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; pass the same view for in-place, or disjoint "
                          "images",
                          op);
    if (on_device) /* histogram, table and table pass on the device, queued */
        return GIP__CUDA_CALL(ctx, op, gip__equalize_hist_cuda(ctx, src, dst));
    gip__hist_plan p;
    memset(&p, 0, sizeof p);
    int32_t ident[256];
    for (int v = 0; v < 256; v++)
        ident[v] = v;
    p.dims = 1;
    p.bins[0] = 256;
    p.stride[0] = 1;
    p.total = 256;
    p.lut[0] = ident;
    uint32_t hist[256] = {0};
    if ((st = gip__hist_count_cpu(ctx, src, NULL, &p, hist)))
        return st;
    uint8_t lut[256];
    equalize_table(hist, src->width * src->height, lut);
    lut_job j = {.src = src, .dst = dst, .lut = lut};
    gip__parallel_for(ctx, src->height, 16, lut_rows, &j);
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    (void)p;
    return gip_equalize_hist(ctx, src, dst);
}

const gip_op gip__op_equalize_hist = {
    .name = "equalize_hist",
    .family = "statistics",
    .summary = "Equalises the histogram of a grey image, as cv2.equalizeHist.",
    .doc = "Maps each level through the image's cumulative histogram scaled to 0..255, so that "
           "levels spread over the whole range: cv2.equalizeHist(src), bit for bit. One-channel "
           "u8 only (convert colour images to grey, or equalise a luma channel). Reads the whole "
           "image before writing, so it is never tiled.",
    .cv_name = "cv2.equalizeHist",
    .params = NULL,
    .nparams = 0,
    .dtypes = GIP_DTYPE_BIT(GIP_U8),
    .channels = GIP_CHANNELS_BIT(1),
    .flags = GIP_OP_WHOLE | GIP_OP_IN_PLACE,
    .params_size = 1,
    .build = gip__step_build_none,
    .run = run,
};
