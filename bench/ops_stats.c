/* SPDX-License-Identifier: MIT */
/* The benchmark's stats rows (see ops.h): issue 42's histograms, equalisation, CLAHE, reductions,
 * integral image, template matching and connected components.
 *
 * Destinations: hist256 writes its float counts into its `dst` (256 x 4 f32, a row per channel;
 * device memory on CUDA, where gip_calc_hist counts into it on the device without synchronising,
 * as NPP's histograms do). The reductions (minmax_loc, meanstd) return host values through gip's
 * API; their `dst` is a small buffer (device memory on CUDA) that only NPP's peers write into
 * (NPP returns results in device memory). The bytes of all three are the source's alone. gip's
 * dtypes have no s32, so the s32 results (integral sums, labels) live in a destination of f32
 * elements (the same 4 bytes each, the right size) that the run hands to gip as a gip_array of
 * depth s32. */
#include <string.h>

#include "ops.h"

/* Referenced weakly, as ops.c does: a function missing from libgip makes its rows unavailable. */
#pragma weak gip_calc_hist
#pragma weak gip_equalize_hist
#pragma weak gip_clahe
#pragma weak gip_min_max_loc
#pragma weak gip_mean_std_dev
#pragma weak gip_integral
#pragma weak gip_match_template
#pragma weak gip_connected_components

/* ---- destination sizes and byte counts ------------------------------------------------------ */

/* hist256: 256 s32 counts per channel, a row each (up to 4), for NPP's device histograms. */
static void dst_hist(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = 256;
    *dh = 4;
}

/* minmax_loc, meanstd: 64 bytes for NPP's device results (values, positions, doubles). */
static void dst_small(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = 16;
    *dh = 1;
}

/* integral: (W + 1) x (H + 1), row and column 0 zero, as cv2.integral. */
static void dst_integral(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = w + 1;
    *dh = h + 1;
}

/* The template's side: the row's, or the image's smaller side when the image is smaller (the
 * smoke sizes); the same rule as bench/peers_stats.py. */
static int64_t templ_side(int64_t t, int64_t w, int64_t h)
{
    if (t > w)
        t = w;
    if (t > h)
        t = h;
    return t;
}

static void dst_match32(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    int64_t t = templ_side(32, w, h);
    *dw = w - t + 1;
    *dh = h - t + 1;
}

static void dst_match256(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    int64_t t = templ_side(256, w, h);
    *dw = w - t + 1;
    *dh = h - t + 1;
}

static double view_bytes(const gip_image *v)
{
    return (double)v->width * (double)v->height * v->channels * (double)gip_dtype_size(v->dtype);
}

/* Reductions: what they must read, the source. */
static double bytes_source(const bench_set *s)
{
    return view_bytes(&s->src);
}

/* matchTemplate: the source, the template and the result. */
static double bytes_match(const bench_set *s)
{
    return view_bytes(&s->src) + view_bytes(&s->aux[0]) + view_bytes(&s->dst);
}

/* The 4-byte destination as the s32 array gip's integral and labelling functions write. */
static gip_array s32_array(gip_image *dst)
{
    gip_array a;
    memset(&a, 0, sizeof a);
    a.data = dst->data;
    a.width = dst->width;
    a.height = dst->height;
    a.channels = 1;
    a.depth = GIP_DEPTH_S32;
    a.stride = dst->stride;
    a.memory = dst->memory;
    return a;
}

/* ---- the synthetic text scan of the ccl rows ------------------------------------------------ */

/* A binary page of text-like glyphs (0 / 255), the same for every run and in bench/peers_stats.py
 * (text_scan there computes it pixel for pixel alike): a margin, lines 20 pixels apart of
 * 12-pixel character cells, each cell a space or a glyph of strokes (stems, bars, an i-dot, a
 * descender) chosen by a hash of its line and column, ragged line ends, blank lines between
 * paragraphs, and one pixel in 2048 of scanner specks. About an eighth of the pixels are ink and
 * most glyphs are one or two components: tens of thousands of labels at 4K. */
#define SCAN_CW 12u
#define SCAN_CH 20u

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static uint32_t scan_margin(int64_t w, int64_t h)
{
    int64_t m = (w < h ? w : h) / 16;
    return m > 32 ? 32u : (uint32_t)m;
}

static int in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v >= lo && v < hi;
}

static uint8_t scan_pixel(uint32_t x, uint32_t y, int64_t w, int64_t h, uint32_t m)
{
    if (x < m || y < m || x >= w - m || y >= h - m)
        return 0;
    uint32_t xx = x - m, yy = y - m;
    if ((mix32(yy * 0x9e3779b1u + xx) & 2047u) == 0)
        return 255; /* speck */
    uint32_t line = yy / SCAN_CH, col = xx / SCAN_CW, rx = xx % SCAN_CW, ry = yy % SCAN_CH;
    uint32_t ncols = (uint32_t)((w - 2 * (int64_t)m) / SCAN_CW);
    uint32_t hl = mix32(line ^ 0xa5a5a5a5u);
    if (hl % 9u == 0)
        return 0; /* blank line between paragraphs */
    if (col >= ncols - (hl >> 8) % (ncols / 3u + 1u))
        return 0; /* ragged right end */
    uint32_t hc = mix32((line << 16) ^ col ^ 0x3c6ef372u);
    if ((hc & 7u) == 0)
        return 0; /* space between words */
    uint32_t b = hc >> 3;
    int ink = 0;
    if ((b & 31u) == 0)
        ink |= in_range(rx, 5, 7) && in_range(ry, 5, 17);                     /* a lone stem */
    ink |= (b & 1u) && in_range(rx, 2, 4) && in_range(ry, 5, 17);             /* left stem */
    ink |= (b & 2u) && in_range(rx, 8, 10) && in_range(ry, 5, 17);            /* right stem */
    ink |= (b & 4u) && in_range(ry, 5, 7) && in_range(rx, 2, 10);             /* top bar */
    ink |= (b & 8u) && in_range(ry, 10, 12) && in_range(rx, 2, 10);           /* middle bar */
    ink |= (b & 16u) && in_range(ry, 15, 17) && in_range(rx, 2, 10);          /* bottom bar */
    ink |= (b & 96u) == 96u && in_range(rx, 5, 7) && in_range(ry, 1, 3);      /* i-dot */
    ink |= (b & 896u) == 896u && in_range(rx, 8, 10) && in_range(ry, 17, 20); /* descender */
    return ink ? 255 : 0;
}

/* The last size's scan on the host, copied into every set's source. */
static gip_image scan_host;

static gip_status prepare_ccl(gip_context *ctx, bench_set *set)
{
    gip_image *s = &set->src;
    if (scan_host.width != s->width || scan_host.height != s->height) {
        gip_status st;
        gip_image_free(NULL, &scan_host);
        if ((st = gip_image_alloc(NULL, &scan_host, s->width, s->height, 1, GIP_U8, GIP_MEM_HOST,
                                  0)))
            return st;
        uint32_t m = scan_margin(s->width, s->height);
        for (int64_t y = 0; y < s->height; y++) {
            uint8_t *row = (uint8_t *)scan_host.data + y * scan_host.stride;
            for (int64_t x = 0; x < s->width; x++)
                row[x] = scan_pixel((uint32_t)x, (uint32_t)y, s->width, s->height, m);
        }
    }
    return gip_copy(ctx, &scan_host, s);
}

/* ---- the source of the minmax_loc rows ------------------------------------------------------ */

/* Integer sources mapped to 1 .. max - 1 (v % (max - 1) + 1, as bench/peers_stats.py): random
 * pixels hold the dtype's limits within the first few hundred, and gip's CPU minMaxLoc stops
 * there (a saturated range cannot change), which would time a scan of a few rows. */
static gip_status prepare_minmax(gip_context *ctx, bench_set *set)
{
    gip_image *s = &set->src, host;
    gip_status st;
    if (s->dtype != GIP_U8 && s->dtype != GIP_U16)
        return GIP_OK;
    memset(&host, 0, sizeof host);
    if ((st = gip_image_alloc(NULL, &host, s->width, s->height, s->channels, s->dtype, GIP_MEM_HOST,
                              0)) ||
        (st = gip_copy(ctx, s, &host)) || (st = gip_context_sync(ctx)))
        goto out;
    for (int64_t y = 0; y < host.height; y++) {
        uint8_t *row = (uint8_t *)host.data + y * host.stride;
        int64_t n = host.width * host.channels;
        if (host.dtype == GIP_U8)
            for (int64_t i = 0; i < n; i++)
                row[i] = (uint8_t)(row[i] % 254u + 1u);
        else
            for (int64_t i = 0; i < n; i++)
                ((uint16_t *)row)[i] = (uint16_t)(((uint16_t *)row)[i] % 65534u + 1u);
    }
    if (!(st = gip_copy(ctx, &host, s)))
        st = gip_context_sync(ctx);
out:
    gip_image_free(NULL, &host);
    return st;
}

/* ---- the template of the match rows --------------------------------------------------------- */

/* aux[0]: a t x t template cut from the source's centre, in the source's memory. */
static gip_status prepare_templ(gip_context *ctx, bench_set *set, int64_t t)
{
    gip_image *s = &set->src, roi;
    gip_status st;
    t = templ_side(t, s->width, s->height);
    if ((st = gip_image_roi(s, (s->width - t) / 2, (s->height - t) / 2, t, t, &roi)) ||
        (st = gip_image_alloc(ctx, &set->aux[0], t, t, s->channels, s->dtype, s->memory, 0)))
        return st;
    return gip_copy(ctx, &roi, &set->aux[0]);
}

static gip_status prepare_match32(gip_context *ctx, bench_set *set)
{
    return prepare_templ(ctx, set, 32);
}

static gip_status prepare_match256(gip_context *ctx, bench_set *set)
{
    return prepare_templ(ctx, set, 256);
}

/* ---- the timed calls ------------------------------------------------------------------------ */

/* Host results of the reductions (kept static: nothing reads them). */
static double red_out[16];
static int64_t loc_out[4];

static gip_status op_hist256(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const float range[2] = {0, 256};
    gip_calc_hist_params p;
    memset(&p, 0, sizeof p);
    p.dims = 1;
    p.bins[0] = 256;
    p.ranges[0] = range;
    for (int c = 0; c < src->channels; c++) {
        p.channels[0] = c;
        float *row = (float *)((char *)dst->data + c * dst->stride);
        gip_status st = gip_calc_hist(ctx, src, NULL, &p, row);
        if (st)
            return st;
    }
    return GIP_OK;
}

static gip_status op_equalize_hist(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_equalize_hist(ctx, src, dst);
}

static gip_status op_clahe8(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_clahe_params p = {.clip_limit = 40, .tiles_x = 8, .tiles_y = 8};
    return gip_clahe(ctx, src, dst, &p);
}

static gip_status op_minmax_loc(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_min_max_loc(ctx, src, NULL, &red_out[0], &red_out[1], &loc_out[0], &loc_out[2]);
}

static gip_status op_meanstd(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_mean_std_dev(ctx, src, NULL, &red_out[0], &red_out[4]);
}

static gip_status op_integral(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_array sum = s32_array(dst);
    return gip_integral(ctx, src, &sum, NULL, NULL);
}

static gip_status op_match(gip_context *ctx, bench_set *set)
{
    return gip_match_template(ctx, &set->src, &set->aux[0], GIP_TM_CCOEFF_NORMED, &set->dst);
}

static gip_status op_ccl(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_array labels = s32_array(dst);
    int32_t n = 0;
    return gip_connected_components(ctx, src, 8, &labels, &n);
}

static int have_calc_hist(void)
{
    return gip_calc_hist != NULL;
}
static int have_equalize_hist(void)
{
    return gip_equalize_hist != NULL;
}
static int have_clahe(void)
{
    return gip_clahe != NULL;
}
static int have_min_max_loc(void)
{
    return gip_min_max_loc != NULL;
}
static int have_mean_std_dev(void)
{
    return gip_mean_std_dev != NULL;
}
static int have_integral(void)
{
    return gip_integral != NULL;
}
static int have_match_template(void)
{
    return gip_match_template != NULL;
}
static int have_connected_components(void)
{
    return gip_connected_components != NULL;
}

#define SYNC_NOTE "; host results: the timed call includes the API's own sync and copy"

/* clang-format off */
const bench_op bench_ops_stats[] = {
    {.name = "hist256",
     .what = "calcHist 256 bins over [0, 256) of each channel (one gip_calc_hist call per "
             "channel) into dst's rows of floats (device memory on CUDA, as NPP's: queued, no "
             "sync, no host copy)",
     .symbol = "gip_calc_hist", .defaults = "u8c1,u8c3", .supported = "u8c1,u8c3,u8c4",
     .dst = BENCH_DST_F32, .dst_channels = 1, .run = op_hist256, .available = have_calc_hist,
     .dst_size = dst_hist, .bytes = bytes_source},
    {.name = "equalize_hist", .what = "equalizeHist", .symbol = "gip_equalize_hist",
     .defaults = "u8c1", .supported = "u8c1", .dst = BENCH_DST_SAME, .run = op_equalize_hist,
     .available = have_equalize_hist},
    {.name = "clahe8", .what = "CLAHE clip limit 40, 8x8 tiles (cv2.createCLAHE(40, (8, 8)).apply)",
     .symbol = "gip_clahe", .defaults = "u8c1", .supported = "u8c1,u16c1", .dst = BENCH_DST_SAME,
     .run = op_clahe8, .available = have_clahe},
    {.name = "minmax_loc",
     .what = "minMaxLoc: both values and their first positions; u8/u16 sources hold 1 .. max-1 "
             "(no early stop at the dtype's limits)" SYNC_NOTE,
     .symbol = "gip_min_max_loc", .defaults = "u8c1,f32c1", .supported = "u8c1,u16c1,f32c1",
     .dst = BENCH_DST_F32, .dst_channels = 1, .run = op_minmax_loc,
     .available = have_min_max_loc, .dst_size = dst_small, .prepare = prepare_minmax,
     .bytes = bytes_source},
    {.name = "meanstd",
     .what = "meanStdDev: mean and population standard deviation of each channel" SYNC_NOTE,
     .symbol = "gip_mean_std_dev", .defaults = "u8c1,u8c3,f32c1",
     .supported = "u8c1,u8c3,u8c4,u16c1,f32c1,f32c3", .dst = BENCH_DST_F32, .dst_channels = 1,
     .run = op_meanstd, .available = have_mean_std_dev, .dst_size = dst_small,
     .bytes = bytes_source},
    {.name = "integral",
     .what = "integral: sum only, u8 -> s32 (cv2's default sdepth), (W+1) x (H+1)",
     .symbol = "gip_integral", .defaults = "u8c1", .supported = "u8c1", .dst = BENCH_DST_F32,
     .dst_channels = 1, .run = op_integral, .available = have_integral,
     .dst_size = dst_integral},
    {.name = "match32",
     .what = "matchTemplate TM_CCOEFF_NORMED, 32x32 template cut from the source's centre (the "
             "image's smaller side if that is less) -> f32 (W-31) x (H-31)",
     .symbol = "gip_match_template", .defaults = "u8c1", .supported = "u8c1,u8c3,f32c1",
     .dst = BENCH_DST_F32, .dst_channels = 1, .run = NULL, .available = have_match_template,
     .dst_size = dst_match32, .prepare = prepare_match32, .run_set = op_match,
     .bytes = bytes_match},
    {.name = "match256",
     .what = "matchTemplate TM_CCOEFF_NORMED, 256x256 template cut from the source's centre (the "
             "image's smaller side if that is less) -> f32 (W-255) x (H-255)",
     .symbol = "gip_match_template", .defaults = "u8c1", .supported = "u8c1,u8c3,f32c1",
     .dst = BENCH_DST_F32, .dst_channels = 1, .run = NULL, .available = have_match_template,
     .dst_size = dst_match256, .prepare = prepare_match256, .run_set = op_match,
     .bytes = bytes_match},
    {.name = "ccl",
     .what = "connectedComponents 8-connectivity -> s32 labels (OpenCV's numbering) of a "
             "synthetic binary text scan (0/255 glyphs, ~12% ink, specks); the label count is "
             "returned to the host, so the call is synchronous",
     .symbol = "gip_connected_components", .defaults = "u8c1", .supported = "u8c1",
     .dst = BENCH_DST_F32, .dst_channels = 1, .run = op_ccl,
     .available = have_connected_components, .prepare = prepare_ccl},
};
/* clang-format on */
const int bench_nops_stats = (int)(sizeof bench_ops_stats / sizeof bench_ops_stats[0]);
