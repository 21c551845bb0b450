/* SPDX-License-Identifier: MIT */
/* Tests of gip_sobel and gip_sobel_magnitude: every ksize (1, 3, 5, 7, Scharr), derivative order,
 * dtype pair, channel count and border mode against the double reference; CPU and CUDA
 * identical; stored cv2.Sobel outputs; bad-input tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/fused3/fused3.h"
#include "ref_filter2d.h"
#include "testing.h"

static gip_context *cpu_ctx; /* CPU context for the CUDA-vs-CPU comparison (CUDA runs only) */

static gip_status run_sobel(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel(ctx, s, d, p);
}

static gip_status run_mag(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel_magnitude(ctx, s, d, p);
}

/* Set by packed_path: every image gets 16-byte row strides (the packed 3x3 CUDA path's case). */
static bool align16;

/* `pad`, or with align16 the padding that makes the row a multiple of 16 bytes. */
static int64_t row_pad(const gip_image *like, gip_dtype dt, int64_t pad)
{
    return align16 ? gt_pad16(like->width, like->channels, dt) : pad;
}

/* Runs one case and checks it against `ref` (final values before dtype conversion). */
static void check(gip_context *ctx, gt_unary_fn fn, const gip_image *src, gip_dtype dt,
                  const gip_sobel_params *p, const double *ref, double atol, const char *label)
{
    gip_image dst, exp;
    gt_alloc(&dst, src->width, src->height, src->channels, dt,
             row_pad(src, dt, dt == GIP_S16 ? 6 : 0));
    gt_alloc(&exp, src->width, src->height, src->channels, dt, 0);
    if (GT_OK(gt_run_unary(ctx, fn, src, &dst, p, 0xEE))) {
        ref2d_store(&exp, ref);
        gt_compare(&dst, &exp, atol, 2e-6, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
        if (cpu_ctx) {
            gip_image cpu;
            gt_alloc(&cpu, src->width, src->height, src->channels, dt, 0);
            if (GT_OK(fn(cpu_ctx, src, &cpu, p))) {
                char l2[240];
                snprintf(l2, sizeof l2, "%s (CUDA vs CPU)", label);
                gt_compare(&dst, &cpu, 0, 0, l2);
            }
            gt_free(&cpu);
        }
    }
    gt_free(&dst);
    gt_free(&exp);
}

static void sobel_case(gip_context *ctx, gt_size sz, gip_dtype st, gip_dtype dt, int32_t ch,
                       int32_t dx, int32_t dy, int32_t ksize, gip_border b, float scale,
                       float delta, uint64_t seed)
{
    if (!gt_case())
        return;
    gip_image src;
    gip_image shape = {.width = sz.w, .height = sz.h, .channels = ch};
    gt_alloc(&src, sz.w, sz.h, ch, st,
             row_pad(&shape, st, seed % 2 ? 3 * (int64_t)gip_dtype_size(st) : 0));
    gt_fill_random(&src, seed, 0, 0);
    gip_sobel_params p = {.dx = dx, .dy = dy, .ksize = ksize, .scale = scale, .delta = delta};
    p.border.mode = b;
    p.border.value[0] = 9, p.border.value[1] = 250, p.border.value[2] = 0.5f;
    p.border.value[3] = 77;
    double k[49];
    int32_t kw, kh;
    ref2d_sobel_kernel(dx, dy, ksize == 0 ? 3 : ksize, k, &kw, &kh);
    double ksum = 0;
    for (int i = 0; i < kw * kh; i++)
        ksum += fabs(k[i]);
    int64_t n = sz.w * sz.h * ch;
    double *ref = malloc((size_t)n * sizeof *ref);
    ref2d_correlate(&src, k, kw, kh, kw / 2, kh / 2, b, p.border.value, ref);
    double sc = scale == 0 ? 1.0 : scale;
    for (int64_t i = 0; i < n; i++) {
        ref[i] = ref[i] * sc + delta;
        if (dt == GIP_U8)
            ref[i] = fabs(ref[i]);
    }
    char label[200];
    snprintf(label, sizeof label, "sobel %lldx%lld %s->%s c%d dx%d dy%d k%d %s scale %g delta %g",
             (long long)sz.w, (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt), ch, dx, dy,
             ksize, gip_border_name(b), scale, delta);
    /* Integer sources accumulate exactly; f32 sources accumulate in float. */
    double maxv = st == GIP_U16 ? 65535 : 256;
    double atol = st == GIP_F32 ? 2e-6 * ksum * maxv * fabs(sc) : 1e-6 * fabs(delta);
    check(ctx, run_sobel, &src, dt, &p, ref, atol, label);
    free(ref);
    gt_free(&src);
}

static void mag_case(gip_context *ctx, gt_size sz, gip_dtype st, gip_dtype dt, int32_t ch,
                     int32_t ksize, gip_border b, float scale, float delta, uint64_t seed)
{
    if (!gt_case())
        return;
    gip_image src;
    gip_image shape = {.width = sz.w, .height = sz.h, .channels = ch};
    gt_alloc(&src, sz.w, sz.h, ch, st, row_pad(&shape, st, seed % 2 ? 0 : 8));
    gt_fill_random(&src, seed, 0, 0);
    gip_sobel_params p = {.ksize = ksize, .scale = scale, .delta = delta};
    p.border.mode = b;
    p.border.value[0] = 20, p.border.value[1] = 1, p.border.value[2] = 200;
    p.border.value[3] = 3;
    double kx[49], ky[49];
    int32_t kxw, kxh, kyw, kyh;
    ref2d_sobel_kernel(1, 0, ksize == 0 ? 3 : ksize, kx, &kxw, &kxh);
    ref2d_sobel_kernel(0, 1, ksize == 0 ? 3 : ksize, ky, &kyw, &kyh);
    int64_t n = sz.w * sz.h * ch;
    double *gx = malloc((size_t)n * sizeof *gx), *gy = malloc((size_t)n * sizeof *gy);
    ref2d_correlate(&src, kx, kxw, kxh, kxw / 2, kxh / 2, b, p.border.value, gx);
    ref2d_correlate(&src, ky, kyw, kyh, kyw / 2, kyh / 2, b, p.border.value, gy);
    double sc = scale == 0 ? 1.0 : scale, ksum = 0;
    for (int i = 0; i < kxw * kxh; i++)
        ksum += fabs(kx[i]);
    for (int64_t i = 0; i < n; i++)
        gx[i] = sqrt(gx[i] * gx[i] + gy[i] * gy[i]) * sc + delta;
    char label[200];
    snprintf(label, sizeof label, "sobel magnitude %lldx%lld %s->%s c%d k%d %s scale %g delta %g",
             (long long)sz.w, (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt), ch, ksize,
             gip_border_name(b), scale, delta);
    double maxv = st == GIP_U16 ? 65535 : 256;
    check(ctx, run_mag, &src, dt, &p, gx, 4e-6 * ksum * maxv * fabs(sc), label);
    free(gx);
    free(gy);
    gt_free(&src);
}

static void sweep(gip_context *ctx)
{
    static const gip_dtype pairs[][2] = {{GIP_U8, GIP_S16},
                                         {GIP_U8, GIP_F32},
                                         {GIP_U8, GIP_U8},
                                         {GIP_U16, GIP_F32},
                                         {GIP_F32, GIP_F32}};
    static const int32_t chans[] = {1, 3, 4};
    static const struct {
        int32_t dx, dy, ksize;
    } orders[] = {{1, 0, 3}, {0, 1, 3}, {1, 1, 3},          {2, 0, 3},         {0, 2, 0}, {1, 0, 1},
                  {0, 2, 1}, {1, 1, 1}, {1, 0, 5},          {2, 1, 5},         {0, 4, 5}, {1, 0, 7},
                  {3, 2, 7}, {0, 6, 7}, {1, 0, GIP_SCHARR}, {0, 1, GIP_SCHARR}};
    const int no = (int)(sizeof orders / sizeof orders[0]);
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++) {
        bool big = gt_sizes[s].w * gt_sizes[s].h > 10000;
        for (int o = 0; o < no; o++)
            for (int pi = 0; pi < 5; pi++)
                for (int ci = 0; ci < 3; ci++)
                    for (int b = 0; b <= GIP_BORDER_WRAP; b++) {
                        if (big && (b != (o + pi) % 5 || ci != (o + 2 * pi) % 3 || o % 4))
                            continue;
                        if (!big && gt_sizes[s].w * gt_sizes[s].h > 100 && (b + ci + o + pi) % 3)
                            continue;
                        /* Dyadic scale and delta keep the reference exact for integer dsts. */
                        float scale = seed % 4 == 0 ? 0.0f : seed % 4 == 1 ? 0.5f : 1.0f;
                        float delta = seed % 3 == 0 ? -3.25f : 0.0f;
                        if (pairs[pi][1] == GIP_F32 && seed % 5 == 0)
                            scale = 0.37f, delta = 1.1f;
                        sobel_case(ctx, gt_sizes[s], pairs[pi][0], pairs[pi][1], chans[ci],
                                   orders[o].dx, orders[o].dy, orders[o].ksize, (gip_border)b,
                                   scale, delta, seed++);
                    }
    }
    static const gip_dtype mpairs[][2] = {
        {GIP_U8, GIP_U8}, {GIP_U8, GIP_F32}, {GIP_U16, GIP_F32}, {GIP_F32, GIP_F32}};
    static const int32_t ks[] = {1, 3, 5, 7, GIP_SCHARR};
    for (int s = 0; s < gt_nsizes; s++) {
        bool big = gt_sizes[s].w * gt_sizes[s].h > 10000;
        for (int k = 0; k < 5; k++)
            for (int pi = 0; pi < 4; pi++)
                for (int ci = 0; ci < 3; ci++)
                    for (int b = 0; b <= GIP_BORDER_WRAP; b++) {
                        if (big && (b != (k + pi) % 5 || ci != (k + pi) % 3))
                            continue;
                        if (!big && gt_sizes[s].w * gt_sizes[s].h > 100 && (b + ci + k + pi) % 2)
                            continue;
                        bool exact = mpairs[pi][1] == GIP_U8;
                        float scale = exact ? (seed % 2 ? 1.0f : 0.0f) : 0.8f;
                        float delta = exact ? 0.0f : 2.0f;
                        mag_case(ctx, gt_sizes[s], mpairs[pi][0], mpairs[pi][1], chans[ci], ks[k],
                                 (gip_border)b, scale, delta, seed++);
                    }
    }
}

/* Sizes at the edges of the CUDA tiles (16-row tiles, 1024-byte and 512-element chunk rows):
 * every border mode on each, orders, dtypes and channels rotating, Sobel and magnitude. */
static const gt_size tile_sizes[] = {
    {31, 7},   {32, 8},   {33, 9},   {63, 15},  {64, 16},  {65, 17},  {129, 7},  {31, 17},
    {33, 15},  {64, 9},   {129, 16}, {4097, 3}, {1023, 8}, {1024, 9}, {1025, 7}, {341, 15},
    {342, 17}, {511, 16}, {512, 15}, {513, 17}, {256, 17}, {257, 8},  {2, 2},    {3, 33}};

/* u8 sources with 16-byte aligned rows (on CUDA the packed integer 3x3 kernel): every 3x3
 * order (Sobel, Scharr, ksize 1) to s16, u8 and f32, with and without scale and delta, every
 * border, 1, 3 and 4 channels, row lengths around the kernel's 16-element lanes and 512-element
 * warps. */
static void packed_path(gip_context *ctx)
{
    static const gt_size sizes[] = {{1, 1},    {5, 3},    {16, 2},   {13, 42}, {171, 5},
                                    {512, 17}, {513, 16}, {700, 33}, {2, 40},  {1024, 3}};
    static const gip_dtype dts[] = {GIP_S16, GIP_U8, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    static const struct {
        int32_t dx, dy, ksize;
    } orders[] = {{1, 0, 3},          {0, 1, 3}, {1, 1, 3}, {1, 0, GIP_SCHARR},
                  {0, 1, GIP_SCHARR}, {0, 1, 1}, {1, 0, 1}, {2, 0, 3}};
    align16 = true;
    uint64_t seed = 8100;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (int ci = 0; ci < 3; ci++, seed++) {
                const int o = (int)(seed % 8), d = (int)(seed / 8 % 3);
                float scale = seed % 5 == 0 ? 0.25f : 0.0f;
                float delta = seed % 7 == 0 ? 1.5f : 0.0f;
                sobel_case(ctx, sizes[s], GIP_U8, dts[d], chans[ci], orders[o].dx, orders[o].dy,
                           orders[o].ksize, (gip_border)b, scale, delta, seed);
            }
    align16 = false;
}

/* 16-byte aligned rows for the plans of the CUDA ring kernel with float accumulators (f2d_ringf):
 * Sobel of f32 sources, the magnitude of u8 and f32 sources, 3x3 orders, every border, 1, 3 and 4
 * channels, row lengths around its lanes (16 u8 or 4 f32 elements) and warps (512 or 128). */
static void ring_cases(gip_context *ctx)
{
    static const gt_size sizes[] = {{1, 1},    {3, 2},    {4, 5},    {5, 3},    {13, 42},
                                    {127, 9},  {128, 17}, {129, 16}, {171, 5},  {512, 17},
                                    {513, 16}, {700, 33}, {2, 40},   {1030, 20}};
    static const gip_dtype mpairs[][2] = {{GIP_U8, GIP_U8}, {GIP_U8, GIP_F32}, {GIP_F32, GIP_F32}};
    static const int32_t chans[] = {1, 3, 4};
    static const int32_t ks[] = {3, GIP_SCHARR, 1};
    static const struct {
        int32_t dx, dy, ksize;
    } orders[] = {{1, 0, 3}, {0, 1, 3}, {1, 1, 3}, {1, 0, GIP_SCHARR}, {0, 1, 1}, {2, 0, 3}};
    align16 = true;
    uint64_t seed = 8600;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (int ci = 0; ci < 3; ci++, seed++) {
                const int o = (int)(seed % 6), m = (int)(seed / 6 % 3);
                const float scale = seed % 5 == 0 ? 0.25f : 0.0f;
                const float delta = seed % 7 == 0 ? 1.5f : 0.0f;
                sobel_case(ctx, sizes[s], GIP_F32, GIP_F32, chans[ci], orders[o].dx, orders[o].dy,
                           orders[o].ksize, (gip_border)b, scale, delta, seed);
                const bool exact = mpairs[m][1] == GIP_U8;
                mag_case(ctx, sizes[s], mpairs[m][0], mpairs[m][1], chans[(ci + b) % 3],
                         ks[seed % 3], (gip_border)b, exact ? 1.0f : 0.8f, exact ? 0.0f : 2.0f,
                         seed);
            }
    align16 = false;
}

/* On CUDA twice: through f2d_ringf with its own band lengths, and with bands of 1 row (a band
 * length that the A/Bs try). */
static void ring_path(gip_context *ctx)
{
    printf("aligned rows, float accumulators: f2d_ringf\n");
    ring_cases(ctx);
    gt_cuda_with_env(ctx, "GIP_F2D_RING_ROWS", "1", "aligned rows, float accumulators: f2d_ringf",
                     ring_cases);
}

static void tile_edges(gip_context *ctx)
{
    static const gip_dtype pairs[][2] = {{GIP_U8, GIP_S16},
                                         {GIP_U8, GIP_F32},
                                         {GIP_U8, GIP_U8},
                                         {GIP_U16, GIP_F32},
                                         {GIP_F32, GIP_F32}};
    static const gip_dtype mpairs[][2] = {
        {GIP_U8, GIP_U8}, {GIP_U8, GIP_F32}, {GIP_U16, GIP_F32}, {GIP_F32, GIP_F32}};
    static const int32_t chans[] = {1, 3, 4};
    static const struct {
        int32_t dx, dy, ksize;
    } orders[] = {{1, 0, 3}, {0, 1, 3}, {1, 1, 3}, {1, 0, GIP_SCHARR}, {0, 1, 1}, {2, 1, 5}};
    static const int32_t ks[] = {3, 3, GIP_SCHARR, 1, 5};
    uint64_t seed = 7000;
    int idx = 0;
    for (int s = 0; s < (int)(sizeof tile_sizes / sizeof tile_sizes[0]); s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++, idx++) {
            const int o = idx % 6, pi = (idx / 2) % 5, ci = (idx / 3) % 3;
            float scale = seed % 4 == 0 ? 0.0f : seed % 4 == 1 ? 0.5f : 1.0f;
            float delta = seed % 3 == 0 ? -3.25f : 0.0f;
            sobel_case(ctx, tile_sizes[s], pairs[pi][0], pairs[pi][1], chans[ci], orders[o].dx,
                       orders[o].dy, orders[o].ksize, (gip_border)b, scale, delta, seed++);
            const int mk = idx % 5, mp = (idx / 2) % 4;
            bool exact = mpairs[mp][1] == GIP_U8;
            mag_case(ctx, tile_sizes[s], mpairs[mp][0], mpairs[mp][1], chans[(ci + 1) % 3], ks[mk],
                     (gip_border)b, exact ? 1.0f : 0.8f, exact ? 0.0f : 2.0f, seed++);
        }
}

/* Stored cv2.Sobel outputs (tests/data/filter2d/README.md says how they were made). Little-endian
 * s16 files, read on a little-endian host. */
static void stored_cv2(gip_context *ctx)
{
    static const struct {
        const char *file;
        int32_t dx, dy, ksize;
        gip_border b;
    } cases[] = {
        {"brick_sobel_dx1_k3.s16le", 1, 0, 3, GIP_BORDER_REFLECT_101},
        {"brick_sobel_dx1_dy1_k5_replicate.s16le", 1, 1, 5, GIP_BORDER_REPLICATE},
    };
    size_t n_in = 0;
    uint8_t *in = gt_read_file(GIP_TEST_DATA_DIR "/filter2d/brick_crop_gray_64x48.u8", &n_in);
    for (int i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/filter2d/%s", GIP_TEST_DATA_DIR, cases[i].file);
        size_t n_out = 0;
        int16_t *out = gt_read_file(path, &n_out);
        if (GT_CHECK(in && out && n_in == 64 * 48 && n_out == 64 * 48 * 2, "stored %s",
                     cases[i].file)) {
            gip_image src, exp, dst;
            gip_image_wrap(&src, in, 64, 48, 1, GIP_U8, 0, GIP_MEM_HOST, 0);
            gip_image_wrap(&exp, out, 64, 48, 1, GIP_S16, 0, GIP_MEM_HOST, 0);
            gt_alloc(&dst, 64, 48, 1, GIP_S16, 0);
            gip_sobel_params p = {.dx = cases[i].dx, .dy = cases[i].dy, .ksize = cases[i].ksize};
            p.border.mode = cases[i].b;
            if (GT_OK(gt_run_unary(ctx, run_sobel, &src, &dst, &p, 0)))
                gt_compare(&dst, &exp, 0, 0, cases[i].file);
            gt_free(&dst);
        }
        free(out);
    }
    free(in);
}

static void bad_inputs(gip_context *ctx)
{
    gip_image src, s16, f32, u16, small, f32src;
    gt_alloc(&src, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&s16, 20, 10, 3, GIP_S16, 0);
    gt_alloc(&f32, 20, 10, 3, GIP_F32, 0);
    gt_alloc(&u16, 20, 10, 3, GIP_U16, 0);
    gt_alloc(&small, 20, 11, 3, GIP_S16, 0);
    gt_alloc(&f32src, 20, 10, 3, GIP_F32, 0);
    gt_poison(&s16, 0x5A);
    gip_sobel_params p = {.dx = 1};
    gip_sobel_params q;
    GT_STATUS(gip_sobel(NULL, &src, &s16, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel(ctx, NULL, &s16, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel(ctx, &src, NULL, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel(ctx, &src, &s16, NULL), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = 0;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = -1, q.dy = 1;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = 3;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = 3, q.ksize = 1;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = 5, q.ksize = 5;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = 1, q.dy = 1, q.ksize = GIP_SCHARR;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.dx = 2, q.ksize = GIP_SCHARR;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.ksize = 4;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.ksize = 9;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.scale = INFINITY;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.border.mode = (gip_border)-1;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.border.mode = GIP_BORDER_CONSTANT, q.border.value[2] = NAN;
    GT_STATUS(gip_sobel(ctx, &src, &s16, &q), GIP_ERR_INVALID_ARGUMENT);
    /* u8, u16 and f32 sources give u8, u16, s16 and f32 (tests/test_ddepth.c); an s16 source
     * and an unknown unsigned_out are refused. */
    GT_STATUS(gip_sobel(ctx, &s16, &f32src, &p), GIP_ERR_UNSUPPORTED);
    q = p, q.unsigned_out = (gip_sobel_unsigned)2;
    GT_STATUS(gip_sobel(ctx, &src, &u16, &q), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel(ctx, &src, &small, &p), GIP_ERR_SHAPE_MISMATCH);
    gip_image c1 = s16;
    c1.channels = 1;
    GT_STATUS(gip_sobel(ctx, &src, &c1, &p), GIP_ERR_SHAPE_MISMATCH);
    gip_image alias = src;
    alias.dtype = GIP_U8;
    GT_STATUS(gip_sobel(ctx, &src, &alias, &p), GIP_ERR_ALIASING);
    gip_image dev = s16;
    dev.memory = GIP_MEM_CUDA;
    GT_STATUS(gip_sobel(ctx, &src, &dev, &p), gip_context_backend(ctx) == GIP_BACKEND_CUDA
                                                  ? GIP_ERR_LOCATION_MISMATCH
                                                  : GIP_ERR_NO_DEVICE);
    /* magnitude */
    GT_STATUS(gip_sobel_magnitude(NULL, &src, &f32, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel_magnitude(ctx, &src, &f32, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel_magnitude(ctx, &src, &s16, &p), GIP_ERR_UNSUPPORTED);
    q = p, q.ksize = 2;
    GT_STATUS(gip_sobel_magnitude(ctx, &src, &f32, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.delta = NAN;
    GT_STATUS(gip_sobel_magnitude(ctx, &src, &f32, &q), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_sobel_magnitude(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    bool untouched = true;
    for (int64_t i = 0; i < 20 * 10 * 3 * 2; i++)
        untouched &= ((uint8_t *)s16.data)[i] == 0x5A;
    GT_CHECK(untouched, "sobel: a refused call wrote into dst");
    gt_free(&src);
    gt_free(&s16);
    gt_free(&f32);
    gt_free(&u16);
    gt_free(&small);
    gt_free(&f32src);
}

/* src through gip_sobel (or gip_sobel_magnitude) into a dst of dtype dt with `pad` bytes of row
 * padding, once as the CPU chooses (its SIMD routes) and once with GIP_NOSIMD=1 (the 2-D engine's
 * scalar path): identical outputs, padding untouched. */
static void simd_vs_scalar(gip_context *ctx, const gip_image *src, gip_dtype dt, int64_t pad,
                           const gip_sobel_params *p, bool mag, const char *what)
{
    gip_image a, b;
    gt_alloc(&a, src->width, src->height, src->channels, dt, pad);
    gt_alloc(&b, src->width, src->height, src->channels, dt, pad);
    gt_unary_fn fn = mag ? run_mag : run_sobel;
    bool ok = GT_OK(fn(ctx, src, &a, p));
    gt_setenv("GIP_NOSIMD", "1");
    ok = ok && GT_OK(fn(ctx, src, &b, p));
    gt_setenv("GIP_NOSIMD", NULL);
    char label[240];
    snprintf(label, sizeof label,
             "%s %lldx%lld u8c%d->%s dx%d dy%d k%d %s scale %g delta %g, stride %lld: SIMD route "
             "vs scalar engine",
             what, (long long)src->width, (long long)src->height, (int)src->channels,
             gip_dtype_name(dt), (int)p->dx, (int)p->dy, (int)p->ksize,
             gip_border_name(p->border.mode), p->scale, p->delta, (long long)a.stride);
    if (ok)
        gt_compare(&a, &b, 0, 0, label);
    GT_CHECK(gt_padding_intact(&a), "%s: padding written", label);
    gt_free(&a);
    gt_free(&b);
}

/* The CPU's fused 3x3 route (AVX-512BW or AVX2; Sobel ksize 3 with dx, dy <= 1 of u8 sources,
 * unit scale, no delta, and the ksize 3 magnitude of u8 sources): row lengths around its 32- and
 * 16-element vectors (every element by the scalar loop below one vector + 2C, the first and last
 * vectors overlapping), odd and even heights (it steps two rows at a time), every border, 1, 3 and
 * 4 channels; s16, u8 and f32 against the reference, and the magnitude's f32 and u8, with and
 * without scale and delta, also bit for bit against the 2-D engine's scalar path. */
static void fused_path(gip_context *ctx)
{
    static const gt_size sizes[] = {{2, 1},  {11, 2},  {17, 3}, {18, 2},  {19, 4}, {24, 5},
                                    {33, 3}, {34, 4},  {35, 5}, {36, 7},  {45, 6}, {49, 6},
                                    {66, 3}, {67, 10}, {97, 2}, {130, 5}, {700, 9}};
    static const gip_dtype dts[] = {GIP_S16, GIP_U8, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    static const struct {
        int32_t dx, dy;
    } orders[] = {{1, 0}, {0, 1}, {1, 1}};
    const bool on_cpu = gip_context_backend(ctx) == GIP_BACKEND_CPU;
    uint64_t seed = 9100;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (int ci = 0; ci < 3; ci++, seed++) {
                sobel_case(ctx, sizes[s], GIP_U8, dts[seed / 3 % 3], chans[ci], orders[seed % 3].dx,
                           orders[seed % 3].dy, 3, (gip_border)b, seed % 4 ? 0.0f : 1.0f, 0.0f,
                           seed);
                const bool u8 = seed % 2 == 0, affine = seed / 2 % 3 == 0;
                const float scale = affine ? 0.7f : seed % 4 == 1 ? 1.0f : 0.0f;
                const float delta = affine ? (u8 ? -2.5f : 3.0f) : 0.0f;
                /* Against the double reference, u8 only without scale and delta: with them the
                 * float value can round the other way at a half (the engine comparison below
                 * takes every case). */
                if (!(u8 && affine))
                    mag_case(ctx, sizes[s], GIP_U8, u8 ? GIP_U8 : GIP_F32, chans[(ci + b) % 3], 3,
                             (gip_border)b, scale, delta, seed);
                if (on_cpu) {
                    gip_image src;
                    gt_alloc(&src, sizes[s].w, sizes[s].h, chans[ci], GIP_U8, seed % 3);
                    gt_fill_random(&src, seed, 0, 0);
                    gip_sobel_params p = {.ksize = 3, .scale = scale, .delta = delta};
                    p.border.mode = (gip_border)b;
                    p.border.value[0] = 17, p.border.value[1] = 255, p.border.value[2] = 3;
                    p.border.value[3] = 128;
                    simd_vs_scalar(ctx, &src, u8 ? GIP_U8 : GIP_F32, (int64_t)(seed % 5), &p, true,
                                   "sobel magnitude");
                    gt_free(&src);
                }
            }
}

static void suite(gip_context *ctx)
{
    sweep(ctx);
    tile_edges(ctx);
    packed_path(ctx);
    ring_path(ctx);
    fused_path(ctx);
    stored_cv2(ctx);
    bad_inputs(ctx);
}

/* Destinations large enough for the streaming stores of the separable and fused CPU routes, with
 * rows of a stride that is a multiple of 64 bytes (the fused route streams two rows at a time
 * only then) and of an odd stride (some rows aligned and some not): identical to the 2-D engine's
 * scalar path. */
static void large_simd_vs_scalar(gip_context *ctx)
{
    static const struct {
        gip_dtype dt;
        int64_t h;
        bool aligned; /* rows a multiple of 64 bytes, else 5 bytes of padding (rounded up to a
                       * whole element) */
        int32_t dx, dy, ksize; /* dx = dy = 0: the magnitude */
        float scale, delta;
    } cases[] = {
        {GIP_S16, 1001, false, 1, 0, 3, 0, 0},       {GIP_F32, 1001, true, 1, 0, 3, 0, 0},
        {GIP_U8, 2000, true, 0, 1, 3, 0, 0},         {GIP_S16, 1001, true, 1, 1, 3, 0, 0},
        {GIP_U8, 1001, false, 0, 1, 3, 0, 0},        {GIP_F32, 1001, false, 1, 0, GIP_SCHARR, 0, 0},
        {GIP_F32, 1001, true, 0, 0, 3, 0, 0},        {GIP_U8, 2000, true, 0, 0, 3, 0.3f, 1.5f},
        {GIP_F32, 1001, false, 0, 0, 3, 0.5f, -4.0f}};
    const int nc = (int)(sizeof cases / sizeof cases[0]);
    gip_image src;
    gt_alloc(&src, 2900, 2000, 3, GIP_U8, 3);
    gt_fill_random(&src, 4242, 0, 255);
    for (int i = 0; i < nc; i++) {
        const bool mag = cases[i].dx + cases[i].dy == 0;
        gip_sobel_params p = {.dx = cases[i].dx,
                              .dy = cases[i].dy,
                              .ksize = cases[i].ksize,
                              .scale = cases[i].scale,
                              .delta = cases[i].delta};
        p.border.mode = (gip_border)(i % (GIP_BORDER_WRAP + 1));
        p.border.value[0] = 7, p.border.value[1] = 200, p.border.value[2] = 31;
        gip_image s = src;
        s.height = cases[i].h;
        const int64_t row = s.width * 3 * (int64_t)gip_dtype_size(cases[i].dt);
        simd_vs_scalar(ctx, &s, cases[i].dt, cases[i].aligned ? (64 - row % 64) % 64 : 5, &p, mag,
                       mag ? "sobel magnitude" : "sobel");
    }
    gt_free(&src);
}

/* The fused route's width and its switch, so that the GIP_NOAVX512 run below takes the AVX2 body
 * where the first took the 512-bit one: 512 with AVX-512F/BW, 256 with AVX2 and FMA alone or
 * with GIP_NOAVX512=1, 0 without AVX2. */
static void width_switch(void)
{
    int full = 0;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        full = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") ? 512 : 256;
#endif
    const int capped = full ? 256 : 0;
    printf("fused 3x3 route: %d-bit body, %d-bit with GIP_NOAVX512=1\n", full, capped);
    GT_CHECK(gip__fused3_width() == full, "width %d, expected %d", gip__fused3_width(), full);
    gt_setenv("GIP_NOAVX512", "1");
    GT_CHECK(gip__fused3_width() == capped, "GIP_NOAVX512=1: width %d, expected %d",
             gip__fused3_width(), capped);
    gt_setenv("GIP_NOAVX512", "0");
    GT_CHECK(gip__fused3_width() == full, "GIP_NOAVX512=0: width %d, expected %d",
             gip__fused3_width(), full);
    gt_setenv("GIP_NOAVX512", NULL);
}

static void body(gip_context *ctx)
{
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu_ctx)))
            return;
        suite(ctx);
        gip_context_destroy(cpu_ctx);
        return;
    }
    suite(ctx);
    large_simd_vs_scalar(ctx);
    width_switch();
    /* Where the CPU has AVX-512BW the 512-bit loops of the separable and fused routes ran
     * above; their AVX2 ones run now (elsewhere this repeats the same routes). */
    printf("again with GIP_NOAVX512=1 (the AVX2 loops of the separable and fused routes)\n");
    gt_setenv("GIP_NOAVX512", "1");
    suite(ctx);
    large_simd_vs_scalar(ctx);
    gt_setenv("GIP_NOAVX512", NULL);
    printf("again with GIP_NOSIMD=1 (the scalar path)\n");
    gt_setenv("GIP_NOSIMD", "1");
    suite(ctx);
    gt_setenv("GIP_NOSIMD", NULL);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "sobel", body);
}
