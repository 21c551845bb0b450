/* SPDX-License-Identifier: MIT */
/* Tests of tiled pipeline runs: tiled equals untiled bit for bit for several chains, tile sizes
 * (below the halo included), image sizes and both kinds of views (host views, and device views
 * or host views through the two-lane upload path on CUDA); chains that cannot be tiled are
 * refused with a message naming the step; bad input. */
#include <stdlib.h>
#include <string.h>

#include "gip/pipeline.h"
#include "testing.h"

static gip_pipeline *make(gip_context *ctx, const char *text)
{
    gip_context_desc d = {0};
    d.backend = gip_context_backend(ctx);
    d.device = d.backend == GIP_BACKEND_CUDA ? gip_context_device(ctx) : 0;
    gip_pipeline *p = NULL;
    gip_parse_error err;
    if (!GT_OK(gip_pipeline_create(&d, &p)))
        return NULL;
    if (!GT_OK(gip_pipeline_parse(p, text, &err))) {
        printf("  parse '%s': at %d: %s\n", text, (int)err.position, err.message);
        gip_pipeline_free(p);
        return NULL;
    }
    return p;
}

/* Tiled run of host images through device views (upload, tiles on the device, download). */
static gip_status tiled_device(gip_pipeline *p, const gip_image *src, gip_image *dst,
                               const gip_tile_params *tp)
{
    gip_context *ctx = gip_pipeline_context(p);
    gip_image ds = {0}, dd = {0};
    gip_status st;
    if (!(st = gip_image_alloc(ctx, &ds, src->width, src->height, src->channels, src->dtype,
                               GIP_MEM_CUDA, 0)) &&
        !(st = gip_image_alloc(ctx, &dd, dst->width, dst->height, dst->channels, dst->dtype,
                               GIP_MEM_CUDA, 0)) &&
        !(st = gip_upload(ctx, src, &ds)) && !(st = gip_image_fill_bytes(ctx, &dd, 0x5A)) &&
        !(st = gip_pipeline_run_tiled(p, &ds, &dd, tp)) && !(st = gip_download(ctx, &dd, dst)))
        st = gip_context_sync(ctx);
    gip_image_free(ctx, &ds);
    gip_image_free(ctx, &dd);
    return st;
}

static const char *const chains[] = {
    "gaussian 15",
    "gaussian 5 sigma=1.3 | sobel dx=1 dy=0 | invert",
    "box 7x3 border=constant border_value=9 | edges",
    "filter '1,2,1;0,0,0;-1,-2,-1' border=replicate | gaussian 3x9 border=reflect",
    "convert f32 scale=0.0039 | gaussian 7 | convert u8 scale=255",
    "gray | stencil radius=2 'in(-2,0) + in(2,0) - in(0,-2) + in(0,2)'",
    "box 3 | invert | map 'in * 0.5 + 3'",
};

static void one(gip_context *ctx, const char *chain, int64_t w, int64_t h, int32_t c, int64_t tw,
                int64_t th)
{
    if (!gt_case())
        return;
    gip_pipeline *p = make(ctx, chain);
    if (!p)
        return;
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    int64_t ow, oh;
    int32_t oc;
    gip_dtype odt;
    gip_image src = {0}, ref = {0}, got = {0};
    gt_alloc(&src, w, h, c, GIP_U8, 5);
    gt_fill_random(&src, (uint64_t)(w * 131 + h * 7 + c), 0, 255);
    if (!GT_OK(gip_pipeline_output_shape(p, w, h, c, GIP_U8, &ow, &oh, &oc, &odt)))
        goto out;
    gt_alloc(&ref, ow, oh, oc, odt, 3);
    gt_alloc(&got, ow, oh, oc, odt, 7);
    /* Untiled reference on this backend (host views: upload/run/download on CUDA). */
    if (!GT_OK(gip_pipeline_run(p, &src, &ref)))
        goto out;
    gip_tile_params tp = {tw, th, 0};
    char what[256];
    snprintf(what, sizeof what, "'%s' %lldx%lld c%d tiles %lldx%lld (host views)", chain,
             (long long)w, (long long)h, (int)c, (long long)tw, (long long)th);
    gt_poison(&got, 0xA5);
    if (GT_OK(gip_pipeline_run_tiled(p, &src, &got, &tp)))
        GT_CHECK(gt_compare(&got, &ref, 0, 0, what) && gt_padding_intact(&got), "%s", what);
    if (cuda) {
        snprintf(what, sizeof what, "'%s' %lldx%lld c%d tiles %lldx%lld (device views)", chain,
                 (long long)w, (long long)h, (int)c, (long long)tw, (long long)th);
        gt_poison(&got, 0xA5);
        if (GT_OK(tiled_device(p, &src, &got, &tp)))
            GT_CHECK(gt_compare(&got, &ref, 0, 0, what), "%s", what);
    }
out:
    gt_free(&src);
    gt_free(&ref);
    gt_free(&got);
    gip_pipeline_free(p);
}

/* The memory limit chooses the tiles: the result is the same, and gip_pipeline_run() with a
 * pipeline limit below the image's footprint tiles on CUDA. */
static void limits(gip_context *ctx)
{
    gip_pipeline *p = make(ctx, "gaussian 9 | sobel dx=1 dy=1 | invert");
    if (!p)
        return;
    gip_image src = {0}, ref = {0}, got = {0};
    gt_alloc(&src, 301, 257, 3, GIP_U8, 0);
    gt_fill_random(&src, 42, 0, 255);
    gt_alloc(&ref, 301, 257, 3, GIP_U8, 0);
    gt_alloc(&got, 301, 257, 3, GIP_U8, 0);
    GT_OK(gip_pipeline_run(p, &src, &ref));
    const int64_t limits[] = {40000, 200000, 1000000};
    for (int k = 0; k < 3; k++) {
        gip_tile_params tp = {0, 0, limits[k]};
        gt_poison(&got, 0x11);
        if (GT_OK(gip_pipeline_run_tiled(p, &src, &got, &tp)))
            GT_CHECK(gt_compare(&got, &ref, 0, 0, "limit"), "limit %lld", (long long)limits[k]);
    }
    /* A limit too small for one tile with its halo (5 + 1 pixels each side). */
    gip_tile_params tiny = {0, 0, 500};
    gt_poison(&got, 0x11);
    GT_STATUS(gip_pipeline_run_tiled(p, &src, &got, &tiny), GIP_ERR_TOO_LARGE);
    GT_CHECK(strstr(gip_last_error(), "raise the limit") != NULL, "message: %s", gip_last_error());
    /* Through gip_pipeline_run with the pipeline's limit (tiles only on CUDA host views). */
    GT_OK(gip_pipeline_set_memory_limit(p, 100000));
    GT_CHECK(gip_pipeline_memory_limit(p) == 100000, "limit kept");
    gt_poison(&got, 0x11);
    if (GT_OK(gip_pipeline_run(p, &src, &got)))
        GT_CHECK(gt_compare(&got, &ref, 0, 0, "run with limit"), "run with limit");
    gip_pipeline *clone = NULL;
    if (GT_OK(gip_pipeline_clone(p, NULL, &clone))) {
        GT_CHECK(gip_pipeline_memory_limit(clone) == 100000, "clone inherits the limit");
        gt_poison(&got, 0x11);
        if (GT_OK(gip_pipeline_run(clone, &src, &got)))
            GT_CHECK(gt_compare(&got, &ref, 0, 0, "clone with limit"), "clone with limit");
        gip_pipeline_free(clone);
    }
    GT_STATUS(gip_pipeline_set_memory_limit(p, -1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_set_memory_limit(NULL, 0), GIP_ERR_INVALID_ARGUMENT);
    gt_free(&src);
    gt_free(&ref);
    gt_free(&got);
    gip_pipeline_free(p);
}

/* Chains that cannot be tiled are refused with the step named; dst stays as it was. */
static void refusals(gip_context *ctx)
{
    static const struct {
        const char *chain, *needle;
    } bad[] = {
        {"gaussian 3 | spectrum", "step 2 (spectrum) reads the whole image"},
        {"box 3 border=wrap", "border=wrap"},
        {"map 'in + x'", "uses x, y, width or height"},
        {"stencil radius=1 'in(0,1) * y'", "uses x, y, width or height"},
    };
    gip_image src = {0}, dst = {0}, keep = {0};
    gt_alloc(&src, 40, 30, 1, GIP_U8, 0);
    gt_fill_random(&src, 3, 0, 255);
    gt_alloc(&dst, 40, 30, 1, GIP_U8, 0);
    gt_alloc(&keep, 40, 30, 1, GIP_U8, 0);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gip_pipeline *p = make(ctx, bad[k].chain);
        if (!p)
            continue;
        gip_tile_params tp = {8, 8, 0};
        gt_poison(&dst, 0x3C);
        gt_poison(&keep, 0x3C);
        GT_STATUS(gip_pipeline_run_tiled(p, &src, &dst, &tp), GIP_ERR_UNSUPPORTED);
        GT_CHECK(strstr(gip_last_error(), bad[k].needle) != NULL, "'%s': message '%s' lacks '%s'",
                 bad[k].chain, gip_last_error(), bad[k].needle);
        GT_CHECK(gt_compare(&dst, &keep, 0, 0, "dst unchanged"), "'%s': dst changed", bad[k].chain);
        gip_pipeline_free(p);
    }
    /* Bad input: NULLs, negative sizes, shape mismatch. */
    gip_pipeline *p = make(ctx, "box 3");
    if (p) {
        gip_tile_params neg = {-1, 4, 0};
        GT_STATUS(gip_pipeline_run_tiled(NULL, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_pipeline_run_tiled(p, NULL, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_pipeline_run_tiled(p, &src, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_pipeline_run_tiled(p, &src, &dst, &neg), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_pipeline_run_tiled(p, &src, &src, NULL), GIP_ERR_ALIASING);
        gip_image small = {0};
        gt_alloc(&small, 39, 30, 1, GIP_U8, 0);
        GT_STATUS(gip_pipeline_run_tiled(p, &src, &small, NULL), GIP_ERR_SHAPE_MISMATCH);
        gt_free(&small);
        gip_pipeline_free(p);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&keep);
}

static void body(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{1, 1}, {1, 17}, {17, 1}, {13, 42}, {257, 131}};
    static const int64_t tiles[][2] = {{1, 1}, {3, 5}, {8, 8}, {64, 16}, {1000, 1000}};
    size_t nchains = sizeof chains / sizeof chains[0];
    for (size_t k = 0; k < nchains; k++)
        for (size_t s = 0; s < 5; s++)
            for (size_t t = 0; t < 5; t++) {
                /* 1x1 tiles only on the small images (one run per pixel); in the quick set
                 * (sanitizers) no tile under 64x16 on them either: thousands of runs each. */
                if ((t == 0 || (t < 3 && gt_quick())) && sizes[s][0] * sizes[s][1] > 1000)
                    continue;
                one(ctx, chains[k], sizes[s][0], sizes[s][1], k % 2 ? 3 : 1, tiles[t][0],
                    tiles[t][1]);
            }
    if (!gt_quick()) /* the quick set leaves out 1001x777, as gt_sizes does */
        one(ctx, chains[0], 1001, 777, 4, 100, 37);
    if (gt_case())
        limits(ctx);
    if (gt_case())
        refusals(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "tile", body);
}
