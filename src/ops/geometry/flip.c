/* SPDX-License-Identifier: MIT */
/* flip, as cv2.flip: mirror an image around the vertical axis (code 1), the horizontal axis
 * (code 0) or both (code -1). The registry's description, the argument checks, and the CPU
 * backend (rows taken in reversed order, their pixels reversed by gip__pixmap_reverse_row). */
#include <string.h>

#include "ops/geometry/flip.h"
#include "ops/geometry/pixel_map.h"
#include "ops/op_check.h"
#include "registry/registry.h"

static const gip_choice codes[] = {{"0", 0}, {"1", 1},   {"-1", -1}, {"x", 0},
                                   {"y", 1}, {"xy", -1}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("code", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0,
                  codes, NULL,
                  "cv2.flip's flipCode: 0 (or x) flips around the x axis (upside down), 1 (or y) "
                  "around the y axis (left-right), -1 (or xy) both",
                  "1"),
};

typedef struct flip_step {
    int32_t code;
} flip_step;

static gip_status build(const gip_args *a, void *out)
{
    ((flip_step *)out)->code = (int32_t)gip_args_int(a, "code");
    return GIP_OK;
}

typedef struct flip_job {
    const gip_image *src;
    gip_image *dst;
    int fx, fy;
    size_t px; /* bytes a pixel */
} flip_job;

static void flip_rows(void *arg, int64_t y0, int64_t y1)
{
    const flip_job *j = arg;
    const int64_t w = j->src->width, h = j->src->height;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *s = (const uint8_t *)j->src->data + (j->fy ? h - 1 - y : y) * j->src->stride;
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (!j->fx) {
            memcpy(d, s, (size_t)w * j->px);
            continue;
        }
        gip__pixmap_reverse_row(s, d, w, (int32_t)j->px);
    }
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    static const char op[] = "flip";
    const int32_t code = ((const flip_step *)params)->code;
    bool on_device = false;
    gip_status st = gip__check_same(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; flip needs a separate dst", op);
    const int fx = code != 0, fy = code != 1;
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__flip_cuda(ctx, src, dst, fx, fy));
    flip_job j = {src, dst, fx, fy, (size_t)src->channels * gip_dtype_size(src->dtype)};
    gip__parallel_for(ctx, src->height, 16, flip_rows, &j);
    return GIP_OK;
}

const gip_op gip__op_flip = {
    .name = "flip",
    .family = "geometry",
    .summary = "Mirrors the image left-right, upside down or both, as cv2.flip.",
    .doc = "dst(x, y) = src(w-1-x, y) for code 1, src(x, h-1-y) for code 0 and "
           "src(w-1-x, h-1-y) for code -1: whole pixels move, every dtype and channel count, "
           "results identical on every backend. Reads the mirrored side, so it is not tiled.",
    .cv_name = "cv2.flip",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(flip_step),
    .build = build,
    .run = run,
};
