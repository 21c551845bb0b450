/* SPDX-License-Identifier: MIT */
/* The benchmark's color rows (see ops.h): issue 40's colour conversions and point operations,
 * and the three-step point-wise pipeline beside each of its steps. */
#include <stdlib.h>

#include "gip/pipeline.h"
#include "gip/point.h"
#include "ops.h"

#ifdef GIP_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

/* Referenced weakly, as in ops.c: a function missing from the linked libgip makes its rows
 * "unavailable". */
#pragma weak gip_convert
#pragma weak gip_cvt_color
#pragma weak gip_yuv_to_rgb
#pragma weak gip_rgb_to_yuv
#pragma weak gip_bayer_to_rgb
#pragma weak gip_threshold
#pragma weak gip_add_weighted
#pragma weak gip_lut
#pragma weak gip_normalize
#pragma weak gip_pipeline_create
#pragma weak gip_pipeline_free
#pragma weak gip_pipeline_parse
#pragma weak gip_pipeline_set_flags
#pragma weak gip_pipeline_context
#pragma weak gip_pipeline_run

static double image_bytes(const gip_image *img)
{
    return (double)img->width * (double)img->height * img->channels *
           (double)gip_dtype_size(img->dtype);
}

/* ---- colour spaces ----------------------------------------------------------------------------
 */

/* f32 colour rows take RGB in 0..1 (the harness fills f32 with 0..256): scaled in place. */
static gip_status prepare_unit_f32(gip_context *ctx, bench_set *set)
{
    if (set->src.dtype != GIP_F32)
        return GIP_OK;
    return gip_convert(ctx, &set->src, &set->src, 1.0 / 256.0, 0.0);
}

static gip_status op_hsv(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_cvt_color(ctx, src, dst, GIP_COLOR_BGR2HSV);
}

static gip_status op_lab(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_cvt_color(ctx, src, dst, GIP_COLOR_BGR2LAB);
}

/* NV12: the source (u8c3, BGR) is encoded once per set into aux[0], the w x h*3/2 frame (Y plane,
 * then interleaved U, V), by gip_rgb_to_yuv; the timed run decodes aux[0] into dst. Odd sizes
 * are cut to even ones (4:2:0 needs them). */
static void nv12_dst_size(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = w & ~(int64_t)1;
    *dh = h & ~(int64_t)1;
}

static gip_status nv12_prepare(gip_context *ctx, bench_set *set)
{
    gip_image even = set->src;
    even.width = set->dst.width;
    even.height = set->dst.height;
    gip_status s = gip_image_alloc(ctx, &set->aux[0], even.width, even.height * 3 / 2, 1, GIP_U8,
                                   set->src.memory, 0);
    return s ? s : gip_rgb_to_yuv(ctx, &even, &set->aux[0], GIP_YUV_NV12, 1);
}

static gip_status nv12_run(gip_context *ctx, bench_set *set)
{
    return gip_yuv_to_rgb(ctx, &set->aux[0], &set->dst, GIP_YUV_NV12, 1);
}

static double nv12_bytes(const bench_set *set)
{
    return image_bytes(&set->dst) * 1.5; /* the frame: w*h*1.5 in, w*h*3 out */
}

static gip_status op_bayer(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_bayer_to_rgb(ctx, src, dst, GIP_BAYER_BG, 1);
}

/* ---- point operations -------------------------------------------------------------------------
 */

static gip_status op_threshold(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_threshold(ctx, src, dst, 127.0, 255.0, GIP_THRESH_BINARY, NULL);
}

/* addWeighted's second image, aux[0]: 255 - src (saturated), made once per set. */
static gip_status addweighted_prepare(gip_context *ctx, bench_set *set)
{
    gip_status s = gip_image_alloc(ctx, &set->aux[0], set->src.width, set->src.height,
                                   set->src.channels, set->src.dtype, set->src.memory, 0);
    return s ? s : gip_convert(ctx, &set->src, &set->aux[0], -1.0, 255.0);
}

static gip_status addweighted_run(gip_context *ctx, bench_set *set)
{
    return gip_add_weighted(ctx, &set->src, 0.6, &set->aux[0], 0.4, 0.0, &set->dst);
}

static double addweighted_bytes(const bench_set *set)
{
    return 3.0 * image_bytes(&set->src);
}

/* The LUT rows' table: v * v / 255 rounded (a gamma of 2); peers_color.py and npp_color.c build
 * the same one. */
static const uint8_t *lut_table(void)
{
    static uint8_t t[256];
    static int made;
    if (!made) {
        for (int v = 0; v < 256; v++)
            t[v] = (uint8_t)((v * v + 127) / 255);
        made = 1;
    }
    return t;
}

static gip_status op_lut(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_lut(ctx, src, dst, lut_table(), 1);
}

static gip_status op_normalize(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_normalize(ctx, src, dst, 0.0, 255.0, GIP_NORM_MINMAX, NULL);
}

/* ---- the three-step point-wise pipeline --------------------------------------------------------
 */

/* The steps, each also a row of its own: u8 -> f32 scaled by 1/255, then x * 2 - 0.5, then
 * binary threshold at 0.5 to 1.0 (x > 127.5 on the u8 input gives 1, else 0). */
#define P3_SCALE (1.0 / 255.0)
#define P3_TEXT                                                                                    \
    "convert f32 scale=0.00392156862745098 | convert f32 scale=2 offset=-0.5 | threshold 0.5 1 "   \
    "binary"

/* One pipeline per backend and fusion setting, made at the first set of a row on a context (the
 * pipeline has a context of its own on the same backend, device and threads) and kept until the
 * harness changes contexts or exits. On CUDA the pipeline queues on its own stream: each run is
 * joined to the harness's stream by two events (the pipeline's stream waits for the harness's
 * work before the run, the harness's stream for the pipeline's after it), so the harness's
 * events bracket the run. */
typedef struct p3_cache {
    gip_context *owner; /* the harness context it was made for */
    gip_backend backend;
    gip_pipeline *p;
#ifdef GIP_BENCH_CUDA
    cudaEvent_t before, after;
#endif
} p3_cache;

static p3_cache p3[2][2]; /* [CUDA][unfused] */

static void p3_drop(p3_cache *c)
{
#ifdef GIP_BENCH_CUDA
    if (c->p && c->backend == GIP_BACKEND_CUDA) {
        cudaEventDestroy(c->before);
        cudaEventDestroy(c->after);
    }
#endif
    gip_pipeline_free(c->p);
    c->p = NULL;
    c->owner = NULL;
}

static void p3_free_all(void)
{
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            p3_drop(&p3[i][k]);
}

static p3_cache *p3_slot(gip_context *ctx, int unfused)
{
    return &p3[gip_context_backend(ctx) == GIP_BACKEND_CUDA][unfused];
}

static gip_status p3_make(gip_context *ctx, int unfused)
{
    static int registered;
    p3_cache *c = p3_slot(ctx, unfused);
    gip_backend be = gip_context_backend(ctx);
    if (c->p && c->owner == ctx && c->backend == be)
        return GIP_OK;
    p3_drop(c);
    if (!registered) {
        atexit(p3_free_all);
        registered = 1;
    }
    gip_context_desc d = {0};
    d.backend = be;
    d.device = be == GIP_BACKEND_CUDA ? gip_context_device(ctx) : 0;
    d.threads = gip_context_threads(ctx);
    gip_status s = gip_pipeline_create(&d, &c->p);
    if (!s)
        s = gip_pipeline_parse(c->p, P3_TEXT, NULL);
    if (!s && unfused)
        s = gip_pipeline_set_flags(c->p, GIP_PIPELINE_NO_FUSION);
#ifdef GIP_BENCH_CUDA
    if (!s && be == GIP_BACKEND_CUDA &&
        (cudaEventCreateWithFlags(&c->before, cudaEventDisableTiming) != cudaSuccess ||
         cudaEventCreateWithFlags(&c->after, cudaEventDisableTiming) != cudaSuccess))
        s = GIP_ERR_DEVICE;
#endif
    if (s) {
        gip_pipeline_free(c->p);
        c->p = NULL;
        return s;
    }
    c->owner = ctx;
    c->backend = be;
    return GIP_OK;
}

static gip_status p3_run(gip_context *ctx, bench_set *set, int unfused)
{
    p3_cache *c = p3_slot(ctx, unfused);
    if (!c->p || c->owner != ctx)
        return GIP_ERR_BAD_STATE;
#ifdef GIP_BENCH_CUDA
    if (c->backend == GIP_BACKEND_CUDA) {
        cudaStream_t mine = (cudaStream_t)gip_context_stream(ctx);
        cudaStream_t theirs = (cudaStream_t)gip_context_stream(gip_pipeline_context(c->p));
        if (cudaEventRecord(c->before, mine) != cudaSuccess ||
            cudaStreamWaitEvent(theirs, c->before, 0) != cudaSuccess)
            return GIP_ERR_DEVICE;
        gip_status s = gip_pipeline_run(c->p, &set->src, &set->dst);
        if (s)
            return s;
        if (cudaEventRecord(c->after, theirs) != cudaSuccess ||
            cudaStreamWaitEvent(mine, c->after, 0) != cudaSuccess)
            return GIP_ERR_DEVICE;
        return GIP_OK;
    }
#endif
    return gip_pipeline_run(c->p, &set->src, &set->dst);
}

static gip_status p3_prepare_fused(gip_context *ctx, bench_set *set)
{
    return p3_make(ctx, 0);
}
static gip_status p3_prepare_unfused(gip_context *ctx, bench_set *set)
{
    return p3_make(ctx, 1);
}
static gip_status p3_run_fused(gip_context *ctx, bench_set *set)
{
    return p3_run(ctx, set, 0);
}
static gip_status p3_run_unfused(gip_context *ctx, bench_set *set)
{
    return p3_run(ctx, set, 1);
}

/* The steps alone. */
static gip_status op_p3_convert(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_convert(ctx, src, dst, P3_SCALE, 0.0);
}
static gip_status op_p3_affine(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_convert(ctx, src, dst, 2.0, -0.5);
}
static gip_status op_p3_threshold(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_threshold(ctx, src, dst, 0.5, 1.0, GIP_THRESH_BINARY, NULL);
}

/* ---- availability ------------------------------------------------------------------------------
 */

static int have_cvt_color(void)
{
    return gip_cvt_color != NULL && gip_convert != NULL;
}
static int have_nv12(void)
{
    return gip_yuv_to_rgb != NULL && gip_rgb_to_yuv != NULL;
}
static int have_bayer(void)
{
    return gip_bayer_to_rgb != NULL;
}
static int have_threshold(void)
{
    return gip_threshold != NULL;
}
static int have_add_weighted(void)
{
    return gip_add_weighted != NULL && gip_convert != NULL;
}
static int have_lut(void)
{
    return gip_lut != NULL;
}
static int have_normalize(void)
{
    return gip_normalize != NULL;
}
static int have_convert(void)
{
    return gip_convert != NULL;
}
static int have_pipeline(void)
{
    return gip_pipeline_create && gip_pipeline_free && gip_pipeline_parse &&
           gip_pipeline_set_flags && gip_pipeline_context && gip_pipeline_run;
}

/* clang-format off */
const bench_op bench_ops_color[] = {
    {.name = "hsv",
     .what = "cvtColor BGR2HSV (u8: hue 0..180, OpenCV's fixed point; f32: RGB 0..1 in, hue "
             "0..360)",
     .symbol = "gip_cvt_color", .defaults = "u8c3,f32c3", .supported = "u8c3,f32c3",
     .dst = BENCH_DST_SAME, .run = op_hsv, .available = have_cvt_color,
     .prepare = prepare_unit_f32},
    {.name = "lab",
     .what = "cvtColor BGR2Lab, D65 (u8: OpenCV's integer code; f32: RGB 0..1 in, CIE formulas)",
     .symbol = "gip_cvt_color", .defaults = "u8c3,f32c3", .supported = "u8c3,f32c3",
     .dst = BENCH_DST_SAME, .run = op_lab, .available = have_cvt_color,
     .prepare = prepare_unit_f32},
    {.name = "nv12_bgr",
     .what = "cvtColor YUV2BGR_NV12: the w x h*3/2 u8 NV12 frame (made from the u8c3 source "
             "before timing) -> BGR u8c3; bytes: frame + BGR",
     .symbol = "gip_yuv_to_rgb", .defaults = "u8c3", .supported = "u8c3", .dst = BENCH_DST_U8,
     .dst_channels = 3, .available = have_nv12, .dst_size = nv12_dst_size,
     .prepare = nv12_prepare, .run_set = nv12_run, .bytes = nv12_bytes},
    {.name = "bayer_bgr", .what = "cvtColor BayerBG2BGR, bilinear, u8c1 mosaic -> u8c3",
     .symbol = "gip_bayer_to_rgb", .defaults = "u8c1", .supported = "u8c1,u16c1",
     .dst = BENCH_DST_SAME, .dst_channels = 3, .run = op_bayer, .available = have_bayer},
    {.name = "threshold", .what = "threshold THRESH_BINARY, thresh 127, maxval 255",
     .symbol = "gip_threshold", .defaults = "u8c1,u8c3,f32c1",
     .supported = "u8c1,u8c3,u8c4,u16c1,f32c1,f32c3", .dst = BENCH_DST_SAME, .run = op_threshold,
     .available = have_threshold},
    {.name = "addweighted",
     .what = "addWeighted src * 0.6 + src2 * 0.4 + 0 (src2 = 255 - src, made before timing); "
             "bytes: two inputs + output",
     .symbol = "gip_add_weighted", .defaults = "u8c1,u8c3,f32c1",
     .supported = "u8c1,u8c3,u8c4,u16c1,f32c1,f32c3", .dst = BENCH_DST_SAME,
     .available = have_add_weighted, .prepare = addweighted_prepare,
     .run_set = addweighted_run, .bytes = addweighted_bytes},
    {.name = "lut", .what = "LUT, one 256-entry u8 table (v*v/255) for every channel",
     .symbol = "gip_lut", .defaults = "u8c1,u8c3", .supported = "u8c1,u8c3,u8c4",
     .dst = BENCH_DST_SAME, .run = op_lut, .available = have_lut},
    {.name = "normalize",
     .what = "normalize NORM_MINMAX to 0..255, u8 -> u8: two passes (min/max reduction, whose "
             "result the host waits for, then the scaling); bytes: one read + write",
     .symbol = "gip_normalize", .defaults = "u8c1,u8c3", .supported = "u8c1,u8c3",
     .dst = BENCH_DST_SAME, .run = op_normalize, .available = have_normalize},
    {.name = "point3",
     .what = "pipeline 'convert f32 scale=1/255 | convert f32 scale=2 offset=-0.5 | threshold "
             "0.5 1 binary' u8 -> f32, fused into one table pass (gip_pipeline_run; CUDA: the "
             "pipeline's own stream joined to the harness's by two events a run)",
     .symbol = "gip_pipeline_run", .defaults = "u8c1,u8c3", .supported = "u8c1,u8c3,u8c4",
     .dst = BENCH_DST_F32, .available = have_pipeline, .prepare = p3_prepare_fused,
     .run_set = p3_run_fused},
    {.name = "point3_nofuse",
     .what = "point3's pipeline with GIP_PIPELINE_NO_FUSION: three passes, f32 intermediates "
             "from the pipeline's pool",
     .symbol = "gip_pipeline_run", .defaults = "u8c1,u8c3", .supported = "u8c1,u8c3,u8c4",
     .dst = BENCH_DST_F32, .available = have_pipeline, .prepare = p3_prepare_unfused,
     .run_set = p3_run_unfused},
    {.name = "point3_cvt", .what = "point3's step 1 alone: convert u8 -> f32, scale 1/255",
     .symbol = "gip_convert", .defaults = "u8c1,u8c3", .supported = "u8c1,u8c3,u8c4",
     .dst = BENCH_DST_F32, .run = op_p3_convert, .available = have_convert},
    {.name = "point3_mad", .what = "point3's step 2 alone: convert f32 -> f32, x * 2 - 0.5",
     .symbol = "gip_convert", .defaults = "f32c1,f32c3", .supported = "f32c1,f32c3",
     .dst = BENCH_DST_SAME, .run = op_p3_affine, .available = have_convert},
    {.name = "point3_thr",
     .what = "point3's step 3 alone: threshold f32 BINARY, thresh 0.5, maxval 1",
     .symbol = "gip_threshold", .defaults = "f32c1,f32c3", .supported = "f32c1,f32c3",
     .dst = BENCH_DST_SAME, .run = op_p3_threshold, .available = have_threshold},
};
/* clang-format on */
const int bench_nops_color = (int)(sizeof bench_ops_color / sizeof bench_ops_color[0]);
