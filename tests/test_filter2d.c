/* SPDX-License-Identifier: MIT */
/* Tests of gip_filter2d: every dtype pair, channel count and border mode on awkward sizes and
 * padded strides against the double reference; CPU and CUDA bit-identical; the 3x3 mean of the
 * seed; stored cv2.filter2D outputs; a bad-input table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_filter2d.h"
#include "testing.h"

static gip_context *cpu_ctx; /* a CPU context for the CUDA-vs-CPU comparison (CUDA runs only) */
/* Set by ring_float: both images get 16-byte row strides (the packed 3x3 CUDA kernels' case). */
static bool align16;

typedef struct kcase {
    const char *name;
    int32_t kw, kh, has_anchor, ax, ay;
    float k[49];
} kcase;

static const kcase kernels[] = {
    {"int3x3", 3, 3, 0, 0, 0, {1, 2, 1, 0, -1, 0, -2, 1, 3}},
    {"float3x3", 3, 3, 0, 0, 0, {0.11f, -0.3f, 0.25f, 0.7f, 0.013f, -0.5f, 0.2f, 0.31f, 0.09f}},
    {"float5x3_anchor",
     5,
     3,
     1,
     0,
     2,
     {0.1f, 0.2f, 0, 0.3f, -0.1f, 0.05f, 0.5f, 0.125f, 0, 0.25f, -0.2f, 0.1f, 0.15f, 0.3f, 0.2f}},
    {"int1x1", 1, 1, 0, 0, 0, {2}},
    {"float1x5", 1, 5, 0, 0, 0, {0.2f, 0.2f, 0.2f, 0.2f, 0.2f}},
    {"float7x7", 7, 7, 0, 0, 0, {0}}, /* filled in body() */
};
static kcase k7;

static bool is_int_kernel(const kcase *k)
{
    for (int i = 0; i < k->kw * k->kh; i++)
        if (k->k[i] != floorf(k->k[i]))
            return false;
    return true;
}

/* Integer outputs of a float kernel: the float accumulation may round differently from the double
 * reference only where the exact value is (nearly) a .5 tie; anything else must be exact. */
static bool compare_near_ties(const gip_image *got, const gip_image *exp, const double *ref,
                              const char *label)
{
    int64_t bad = 0;
    for (int64_t y = 0; y < got->height; y++)
        for (int64_t x = 0; x < got->width; x++)
            for (int32_t c = 0; c < got->channels; c++) {
                double g = gt_get(got, x, y, c), e = gt_get(exp, x, y, c);
                if (g == e)
                    continue;
                double r = ref[(y * got->width + x) * got->channels + c];
                double frac = r - floor(r);
                bool tie = fabs(frac - 0.5) <= 1e-4 * (1 + fabs(r));
                if (fabs(g - e) > 1 || !tie) {
                    if (!bad)
                        fprintf(stderr,
                                "FAIL %s: x=%lld y=%lld c=%d got %g expected %g (ref %.9g)\n",
                                label, (long long)x, (long long)y, c, g, e, r);
                    bad++;
                }
            }
    return GT_CHECK(bad == 0, "%s: %lld elements differ beyond a .5 tie", label, (long long)bad);
}

static gip_status run_f2d(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_filter2d(ctx, s, d, p);
}

static void one_case(gip_context *ctx, const kcase *kc, gt_size sz, gip_dtype st, gip_dtype dt,
                     int32_t ch, gip_border b, float delta, uint64_t seed)
{
    if (!gt_case())
        return;
    gip_image src, dst, exp;
    int64_t spad = seed % 2 ? 5 : 0, dpad = seed % 2 ? 0 : 3 * (int64_t)gip_dtype_size(dt);
    if (align16)
        spad = gt_pad16(sz.w, ch, st), dpad = gt_pad16(sz.w, ch, dt);
    gt_alloc(&src, sz.w, sz.h, ch, st, spad);
    gt_alloc(&dst, sz.w, sz.h, ch, dt, dpad);
    gt_alloc(&exp, sz.w, sz.h, ch, dt, 0);
    gt_fill_random(&src, seed, 0, 0);
    gip_filter2d_params p = {0};
    p.kernel = kc->k;
    p.ksize_w = kc->kw, p.ksize_h = kc->kh;
    p.has_anchor = kc->has_anchor, p.anchor_x = kc->ax, p.anchor_y = kc->ay;
    p.delta = delta;
    p.method = GIP_CONV_DIRECT; /* bit-exact comparisons; the FFT path is tested below */
    p.border.mode = b;
    p.border.value[0] = 7.4f, p.border.value[1] = 300.0f, p.border.value[2] = -3.0f;
    p.border.value[3] = 100.5f;
    char label[200];
    snprintf(label, sizeof label, "filter2d %s %lldx%lld %s->%s c%d %s delta %g", kc->name,
             (long long)sz.w, (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt), ch,
             gip_border_name(b), delta);
    if (!GT_OK(gt_run_unary(ctx, run_f2d, &src, &dst, &p, 0xCD)))
        goto out;
    double kd[49];
    double ksum = 0;
    for (int i = 0; i < kc->kw * kc->kh; i++)
        kd[i] = kc->k[i], ksum += fabs(kc->k[i]);
    double *ref = malloc((size_t)(sz.w * sz.h * ch) * sizeof *ref);
    int ax = kc->has_anchor ? kc->ax : kc->kw / 2, ay = kc->has_anchor ? kc->ay : kc->kh / 2;
    ref2d_correlate(&src, kd, kc->kw, kc->kh, ax, ay, b, p.border.value, ref);
    for (int64_t i = 0; i < sz.w * sz.h * ch; i++)
        ref[i] += delta;
    ref2d_store(&exp, ref);
    if (dt == GIP_F32) {
        double maxv = st == GIP_U16 ? 65535 : 256;
        gt_compare(&dst, &exp, 1e-5 * (ksum * maxv + fabs(delta)), 1e-6, label);
    } else if (is_int_kernel(kc) && delta == floorf(delta)) {
        gt_compare(&dst, &exp, 0, 0, label);
    } else {
        compare_near_ties(&dst, &exp, ref, label);
    }
    GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding", label);
    if (cpu_ctx) {
        /* CUDA against the CPU backend: the same arithmetic, so identical for every dtype. */
        gip_image cpu;
        gt_alloc(&cpu, sz.w, sz.h, ch, dt, 0);
        if (GT_OK(gip_filter2d(cpu_ctx, &src, &cpu, &p))) {
            char l2[240];
            snprintf(l2, sizeof l2, "%s (CUDA vs CPU)", label);
            gt_compare(&dst, &cpu, 0, 0, l2);
        }
        gt_free(&cpu);
    }
    free(ref);
out:
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

static void sweep(gip_context *ctx)
{
    static const gip_dtype pairs[][2] = {{GIP_U8, GIP_U8},
                                         {GIP_U8, GIP_F32},
                                         {GIP_U16, GIP_U16},
                                         {GIP_U16, GIP_F32},
                                         {GIP_F32, GIP_F32}};
    static const int32_t chans[] = {1, 3, 4};
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++) {
        bool big = gt_sizes[s].w * gt_sizes[s].h > 10000;
        for (int k = 0; k < (int)(sizeof kernels / sizeof kernels[0]); k++) {
            const kcase *kc = k == 5 ? &k7 : &kernels[k];
            for (int pi = 0; pi < 5; pi++)
                for (int ci = 0; ci < 3; ci++)
                    for (int b = 0; b <= GIP_BORDER_WRAP; b++) {
                        /* The large image: every dtype and kernel, fewer channel/border mixes. */
                        if (big && (b != (pi + k) % 5 || ci != (pi + k) % 3))
                            continue;
                        float delta = (seed % 3 == 0) ? 0.0f : (seed % 3 == 1 ? 3.0f : -1.25f);
                        one_case(ctx, kc, gt_sizes[s], pairs[pi][0], pairs[pi][1], chans[ci],
                                 (gip_border)b, delta, seed++);
                    }
        }
    }
}

/* Sizes at the edges of the CUDA tiles (32-wide warps, 16-row tiles, 1024-byte and 512-element
 * chunk rows): every border mode on each, kernel, dtypes and channels rotating. */
static const gt_size tile_sizes[] = {
    {31, 7},   {32, 8},   {33, 9},   {63, 15},  {64, 16},  {65, 17},  {129, 7},  {31, 17},
    {33, 15},  {64, 9},   {129, 16}, {4097, 3}, {1023, 8}, {1024, 9}, {1025, 7}, {341, 15},
    {342, 17}, {511, 16}, {512, 15}, {513, 17}, {256, 17}, {257, 8},  {2, 2},    {3, 33}};

static void tile_edges(gip_context *ctx)
{
    static const gip_dtype pairs[][2] = {{GIP_U8, GIP_U8},
                                         {GIP_U8, GIP_F32},
                                         {GIP_U16, GIP_U16},
                                         {GIP_U16, GIP_F32},
                                         {GIP_F32, GIP_F32}};
    static const int32_t chans[] = {1, 3, 4};
    uint64_t seed = 5000;
    int idx = 0;
    for (int s = 0; s < (int)(sizeof tile_sizes / sizeof tile_sizes[0]); s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++, idx++) {
            const int k = idx % 6, pi = (idx / 2) % 5, ci = (idx / 3) % 3;
            const kcase *kc = k == 5 ? &k7 : &kernels[k];
            float delta = (seed % 3 == 0) ? 0.0f : (seed % 3 == 1 ? 3.0f : -1.25f);
            one_case(ctx, kc, tile_sizes[s], pairs[pi][0], pairs[pi][1], chans[ci], (gip_border)b,
                     delta, seed++);
        }
}

/* The seed's 3x3 mean blur done right: filter2D with 1/9 taps equals the rounded box mean
 * (sum / 9 is never within float error of a .5 tie), at every pixel with the same border. */
static void mean3x3(gip_context *ctx)
{
    float k[9];
    for (int i = 0; i < 9; i++)
        k[i] = 1.0f / 9.0f;
    gip_image src, dst, exp;
    gt_alloc(&src, 97, 61, 3, GIP_U8, 0);
    gt_alloc(&dst, 97, 61, 3, GIP_U8, 0);
    gt_alloc(&exp, 97, 61, 3, GIP_U8, 0);
    gt_fill_random(&src, 99, 0, 0);
    gip_filter2d_params p = {.kernel = k, .ksize_w = 3, .ksize_h = 3};
    if (GT_OK(gt_run_unary(ctx, run_f2d, &src, &dst, &p, 0))) {
        double ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        double *ref = malloc(97 * 61 * 3 * sizeof *ref);
        ref2d_correlate(&src, ones, 3, 3, 1, 1, GIP_BORDER_REFLECT_101, NULL, ref);
        for (int i = 0; i < 97 * 61 * 3; i++)
            ref[i] /= 9.0;
        ref2d_store(&exp, ref);
        gt_compare(&dst, &exp, 0, 0, "filter2d 3x3 mean == box mean");
        free(ref);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

/* Stored cv2.filter2D outputs (tests/data/filter2d/README.md says how they were made). */
static void stored_cv2(gip_context *ctx)
{
    size_t n_in = 0, n_out = 0;
    uint8_t *in = gt_read_file(GIP_TEST_DATA_DIR "/filter2d/brick_crop_gray_64x48.u8", &n_in);
    uint8_t *out = gt_read_file(GIP_TEST_DATA_DIR "/filter2d/brick_filter2d_float3x3.u8", &n_out);
    if (GT_CHECK(in && out && n_in == 64 * 48 && n_out == 64 * 48, "stored cv2 filter2d data")) {
        static const float k[9] = {0.0625f, -0.3f, 0.11f, 0.2f, 0.5f, 0.2f, -0.05f, 0.17f, 0.1f};
        gip_image src, dst, exp;
        gip_image_wrap(&src, in, 64, 48, 1, GIP_U8, 0, GIP_MEM_HOST, 0);
        gip_image_wrap(&exp, out, 64, 48, 1, GIP_U8, 0, GIP_MEM_HOST, 0);
        gt_alloc(&dst, 64, 48, 1, GIP_U8, 0);
        gip_filter2d_params p = {.kernel = k, .ksize_w = 3, .ksize_h = 3, .delta = 2.5f};
        if (GT_OK(gt_run_unary(ctx, run_f2d, &src, &dst, &p, 0)))
            gt_compare(&dst, &exp, 0, 0, "filter2d vs stored cv2.filter2D");
        gt_free(&dst);
    }
    free(in);
    free(out);
}

static void bad_inputs(gip_context *ctx)
{
    gip_image src, dst, d16, small;
    gt_alloc(&src, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&d16, 20, 10, 3, GIP_S16, 0);
    gt_alloc(&small, 19, 10, 3, GIP_U8, 0);
    gt_fill_random(&src, 5, 0, 0);
    gt_poison(&dst, 0x5A);
    float k[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    gip_filter2d_params p = {.kernel = k, .ksize_w = 3, .ksize_h = 3};
    gip_filter2d_params q;
    GT_STATUS(gip_filter2d(NULL, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_filter2d(ctx, NULL, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_filter2d(ctx, &src, NULL, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_filter2d(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.kernel = NULL;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.ksize_w = 0;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.ksize_h = -3;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.ksize_w = 256;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.has_anchor = 1, q.anchor_x = 3, q.anchor_y = 0;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.has_anchor = 1, q.anchor_x = 0, q.anchor_y = -1;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.border.mode = (gip_border)9;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.delta = NAN;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    float kn[9] = {1, 1, 1, 1, INFINITY, 1, 1, 1, 1};
    q = p, q.kernel = kn;
    GT_STATUS(gip_filter2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    /* u8 to s16 is accepted (tests/test_ddepth.c), but not through the FFT. */
    q = p, q.method = GIP_CONV_FFT;
    GT_STATUS(gip_filter2d(ctx, &src, &d16, &q), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_filter2d(ctx, &src, &small, &p), GIP_ERR_SHAPE_MISMATCH);
    gip_image c2 = dst;
    c2.channels = 1;
    GT_STATUS(gip_filter2d(ctx, &src, &c2, &p), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_filter2d(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    gip_image part = src;
    part.data = (char *)src.data + 3;
    part.height = 5;
    gip_image srcpart = src;
    srcpart.height = 5;
    GT_STATUS(gip_filter2d(ctx, &srcpart, &part, &p), GIP_ERR_ALIASING);
    gip_image s16 = d16;
    GT_STATUS(gip_filter2d(ctx, &s16, &d16, &p), GIP_ERR_UNSUPPORTED);
    gip_image dev = dst;
    dev.memory = GIP_MEM_CUDA;
    GT_STATUS(gip_filter2d(ctx, &src, &dev, &p), gip_context_backend(ctx) == GIP_BACKEND_CUDA
                                                     ? GIP_ERR_LOCATION_MISMATCH
                                                     : GIP_ERR_NO_DEVICE);
    bool untouched = true;
    for (int64_t i = 0; i < 20 * 10 * 3; i++)
        untouched &= ((uint8_t *)dst.data)[i] == 0x5A;
    GT_CHECK(untouched, "filter2d: a refused call wrote into dst");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&d16);
    gt_free(&small);
}

/* A 31x31 kernel takes the large-kernel path on CUDA (no shared-memory tile). */
static void large_kernel(gip_context *ctx)
{
    static float k[31 * 31];
    uint64_t s = 3;
    for (int i = 0; i < 31 * 31; i++)
        k[i] = (float)(gt_rand_unit(&s) - 0.5) * 0.01f;
    kcase kc = {"float31x31", 31, 31, 0, 0, 0, {0}};
    (void)kc;
    gip_image src, dst, exp;
    gt_alloc(&src, 70, 45, 3, GIP_U8, 0);
    gt_alloc(&dst, 70, 45, 3, GIP_F32, 0);
    gt_alloc(&exp, 70, 45, 3, GIP_F32, 0);
    gt_fill_random(&src, 8, 0, 0);
    gip_filter2d_params p = {.kernel = k, .ksize_w = 31, .ksize_h = 31};
    p.border.mode = GIP_BORDER_WRAP;
    p.method = GIP_CONV_DIRECT;
    if (GT_OK(gt_run_unary(ctx, run_f2d, &src, &dst, &p, 0))) {
        double *kd = malloc(31 * 31 * sizeof *kd), *ref = malloc(70 * 45 * 3 * sizeof *ref);
        for (int i = 0; i < 31 * 31; i++)
            kd[i] = k[i];
        ref2d_correlate(&src, kd, 31, 31, 15, 15, GIP_BORDER_WRAP, NULL, ref);
        ref2d_store(&exp, ref);
        gt_compare(&dst, &exp, 1e-3, 1e-5, "filter2d 31x31");
        if (cpu_ctx) {
            gip_image cpu;
            gt_alloc(&cpu, 70, 45, 3, GIP_F32, 0);
            if (GT_OK(gip_filter2d(cpu_ctx, &src, &cpu, &p)))
                gt_compare(&dst, &cpu, 0, 0, "filter2d 31x31 CUDA vs CPU");
            gt_free(&cpu);
        }
        /* The same correlation through the FFT, forced and automatic (961 taps is past the
         * measured crossover): f32 accuracy against the same double reference. */
        for (int m = 0; m < 2; m++) {
            gip_filter2d_params q = p;
            q.method = m ? GIP_CONV_AUTO : GIP_CONV_FFT;
            if (GT_OK(gt_run_unary(ctx, run_f2d, &src, &dst, &q, 0)))
                gt_compare(&dst, &exp, 1e-3, 1e-5,
                           m ? "filter2d 31x31 auto" : "filter2d 31x31 fft");
        }
        gip_filter2d_params bad = p;
        bad.method = (gip_conv_method)7;
        GT_STATUS(gip_filter2d(ctx, &src, &dst, &bad), GIP_ERR_INVALID_ARGUMENT);
        free(kd);
        free(ref);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

/* u8 and f32 sources with 16-byte aligned rows and float taps within one pixel of the anchor (on
 * CUDA the ring kernel with float accumulators, f2d_ringf): full and sparse 3x3 kernels, a 2x2 and
 * a 1x3 one, u8 to u8 and f32, f32 to f32, with and without delta, every border, 1, 3 and 4
 * channels, row lengths around the kernel's lanes (16 u8 or 4 f32 elements) and warps (512 or
 * 128), heights past its ring of 8 rows. */
static void ring_cases(gip_context *ctx)
{
    static const kcase pk[] = {
        {"bench3x3", 3, 3, 0, 0, 0, {0.05f, 0.1f, 0.05f, 0.1f, 0.4f, 0.1f, 0.05f, 0.1f, 0.05f}},
        {"sparse3x3", 3, 3, 0, 0, 0, {0.25f, 0, -0.5f, 0, 1.1f, 0, 0.3f, 0, 0.2f}},
        {"float2x2", 2, 2, 0, 0, 0, {0.3f, -0.2f, 0.65f, 0.4f}},
        {"float1x3", 3, 1, 0, 0, 0, {0.3f, 0.45f, 0.25f}},
    };
    static const gt_size sizes[] = {{1, 1},    {5, 3},    {16, 2},    {13, 42},  {171, 5},
                                    {512, 17}, {513, 16}, {700, 33},  {2, 40},   {1024, 3},
                                    {33, 9},   {127, 12}, {1500, 70}, {4097, 11}};
    static const int32_t chans[] = {1, 3, 4};
    align16 = true;
    uint64_t seed = 9100;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (int ci = 0; ci < 3; ci++, seed++) {
                const int k = (int)(seed % 5);
                const kcase *kc = k == 4 ? &kernels[1] : &pk[k];
                const int pair = (int)(seed / 5 % 3);
                const gip_dtype st = pair == 2 ? GIP_F32 : GIP_U8;
                const gip_dtype dt = pair == 0 ? GIP_U8 : GIP_F32;
                const float delta = seed % 3 == 0 ? 0.0f : seed % 3 == 1 ? 3.0f : -1.25f;
                one_case(ctx, kc, sizes[s], st, dt, chans[ci], (gip_border)b, delta, seed);
            }
    align16 = false;
}

/* On CUDA three times: through f2d_ringf with its own band lengths, and with bands of 1 and of 7
 * rows (band lengths that the A/Bs try). */
static void ring_float(gip_context *ctx)
{
    printf("aligned rows, float taps: f2d_ringf\n");
    ring_cases(ctx);
    gt_cuda_with_env(ctx, "GIP_F2D_RING_ROWS", "1", "aligned rows, float taps: f2d_ringf",
                     ring_cases);
    gt_cuda_with_env(ctx, "GIP_F2D_RING_ROWS", "7", "aligned rows, float taps: f2d_ringf",
                     ring_cases);
}

static void suite(gip_context *ctx)
{
    sweep(ctx);
    tile_edges(ctx);
    ring_float(ctx);
    mean3x3(ctx);
    stored_cv2(ctx);
    large_kernel(ctx);
    bad_inputs(ctx);
}

/* An f32 destination large enough for the streaming stores of the AVX2 path (rows of odd
 * stride, so that some are aligned and some not): identical to the scalar path bit for bit. */
static void large_simd_vs_scalar(gip_context *ctx)
{
    static const float k3[9] = {0.05f, 0.1f, 0.05f, 0.1f, 0.4f, 0.1f, 0.05f, 0.1f, 0.05f};
    gip_image src, a, b;
    gt_alloc(&src, 2900, 1501, 1, GIP_F32, 3);
    gt_fill_random(&src, 777, -100, 100);
    gt_alloc(&a, 2900, 1501, 1, GIP_F32, 5);
    gt_alloc(&b, 2900, 1501, 1, GIP_F32, 5);
    for (int i = 0; i < 2; i++) {
        gip_filter2d_params p = {
            .kernel = i ? k7.k : k3, .ksize_w = i ? 7 : 3, .ksize_h = i ? 7 : 3};
        p.method = GIP_CONV_DIRECT;
        p.border.mode = i ? GIP_BORDER_CONSTANT : GIP_BORDER_REFLECT_101;
        p.border.value[0] = 2.5f;
        bool ok = GT_OK(gip_filter2d(ctx, &src, &a, &p));
        gt_setenv("GIP_NOSIMD", "1");
        ok = ok && GT_OK(gip_filter2d(ctx, &src, &b, &p));
        gt_setenv("GIP_NOSIMD", NULL);
        const char *label = i ? "filter2d 2900x1501 f32 7x7: SIMD vs scalar"
                              : "filter2d 2900x1501 f32 3x3: SIMD vs scalar";
        if (ok)
            gt_compare(&a, &b, 0, 0, label);
        GT_CHECK(gt_padding_intact(&a), "%s: padding written", label);
    }
    gt_free(&src);
    gt_free(&a);
    gt_free(&b);
}

static void body(gip_context *ctx)
{
    uint64_t s = 11;
    k7 = (kcase){"float7x7", 7, 7, 0, 0, 0, {0}};
    for (int i = 0; i < 49; i++)
        k7.k[i] = (float)(gt_rand_unit(&s) - 0.4) * 0.2f;
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
    printf("again with GIP_NOSIMD=1 (the scalar path)\n");
    gt_setenv("GIP_NOSIMD", "1");
    suite(ctx);
    gt_setenv("GIP_NOSIMD", NULL);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "filter2d", body);
}
