/* SPDX-License-Identifier: MIT */
/* Box filter tests: every dtype (and f32 output), channel count, border, anchor and awkward size
 * against the double correlation in tests/ref, scalar vs AVX2, CPU vs CUDA, stored cv2 outputs,
 * bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "ref_filter.h"
#include "engine/separable/separable.h"

typedef struct bcase {
    int kw, kh, has_anchor, axx, ayy, unnorm;
    bool to_f32;
} bcase;

static const bcase cases[] = {
    {3, 3, 0, 0, 0, 0, false}, {4, 2, 1, 0, 1, 0, false}, {5, 1, 0, 0, 0, 1, false},
    {1, 6, 0, 0, 0, 0, true},  {3, 5, 1, 2, 4, 0, true},  {7, 3, 0, 0, 0, 1, true},
};
static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int chans[] = {1, 3, 4};
static gip_context *cpu_ctx;
/* Set by test_packed: both images get 16-byte row strides (the packed 3x3 CUDA path's case). */
static bool align16;

/* The padding that makes a row of w x cn elements of dt a multiple of 16 bytes (at least `pad`
 * when align16 is off). */
static int64_t row_pad(int64_t w, int cn, gip_dtype dt, int64_t pad)
{
    return align16 ? gt_pad16(w, cn, dt) : pad;
}

static gip_status run_box(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_box_filter(ctx, s, d, p);
}

static void one(gip_context *ctx, gt_size sz, gip_dtype dt, int cn, gip_border mode,
                const bcase *bc, int64_t pad, uint64_t seed)
{
    if (!gt_case())
        return;
    gip_dtype ddt = bc->to_f32 ? GIP_F32 : dt;
    char label[192];
    snprintf(label, sizeof label, "box %lldx%lld %s->%s c%d %s k%dx%d anchor%d(%d,%d)%s pad%lld",
             (long long)sz.w, (long long)sz.h, gip_dtype_name(dt), gip_dtype_name(ddt), cn,
             gip_border_name(mode), bc->kw, bc->kh, bc->has_anchor, bc->axx, bc->ayy,
             bc->unnorm ? " sum" : "", (long long)pad);
    gip_image src, dst, exp_img;
    gt_alloc(&src, sz.w, sz.h, cn, dt, row_pad(sz.w, cn, dt, pad));
    gt_alloc(&dst, sz.w, sz.h, cn, ddt, row_pad(sz.w, cn, ddt, pad + 5));
    gt_alloc(&exp_img, sz.w, sz.h, cn, ddt, 0);
    gt_fill_random(&src, seed, 0, 0);
    gip_box_params p = {
        bc->kw, bc->kh, bc->has_anchor, bc->axx, bc->ayy, bc->unnorm, {mode, {3.6f, 250, 77, 1}}};
    double val[4], *ones = malloc(sizeof(double) * (size_t)(bc->kw * bc->kh));
    for (int c = 0; c < 4; c++) {
        double v = p.border.value[c];
        val[c] = dt == GIP_U8    ? fmin(255, fmax(0, nearbyint(v)))
                 : dt == GIP_U16 ? fmin(65535, fmax(0, nearbyint(v)))
                                 : v;
    }
    for (int i = 0; i < bc->kw * bc->kh; i++)
        ones[i] = 1;
    int ax = bc->has_anchor ? bc->axx : bc->kw / 2, ay = bc->has_anchor ? bc->ayy : bc->kh / 2;
    int64_t n = sz.w * sz.h * cn;
    double *sum = malloc(sizeof(double) * (size_t)n);
    ref_correlate2d(&src, ones, bc->kw, bc->kh, ax, ay, mode, val, 1.0, sum);
    /* Documented rule: the exact sum times (float)(1 / (kw kh)) in float, then rounded half to
     * even and saturated for integer outputs (OpenCV's vectorised 32-bit ColumnSum); u16 -> u16
     * with kw kh > 32768 in double instead (OpenCV sums in double there). */
    double area = (double)bc->kw * bc->kh, scale64 = bc->unnorm ? 1.0 : 1.0 / area;
    float scale = (float)scale64;
    bool f64 = dt == GIP_U16 && ddt == GIP_U16 && area > 32768;
    for (int64_t i = 0; i < n; i++)
        sum[i] = ddt == GIP_F32 || f64 ? sum[i] * scale64 : (double)((float)sum[i] * scale);
    ref_store(sum, &exp_img);
    free(sum);
    free(ones);
    if (GT_OK(gt_run_unary(ctx, run_box, &src, &dst, &p, 0xCD))) {
        gt_compare(&dst, &exp_img, 1e-3, 1e-5, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding", label);
        gip_image d2;
        gt_alloc(&d2, sz.w, sz.h, cn, ddt, 0);
        char l2[240];
        if (gt_current_backend == GT_CPU) {
            bool prev = gip__sep_set_simd(false);
            GT_OK(gt_run_unary(ctx, run_box, &src, &d2, &p, 0x5A));
            gip__sep_set_simd(prev);
            snprintf(l2, sizeof l2, "%s (scalar vs SIMD)", label);
            gt_compare(&d2, &dst, 0, 0, l2);
        } else if (cpu_ctx) {
            GT_OK(gt_run_unary(cpu_ctx, run_box, &src, &d2, &p, 0x5A));
            snprintf(l2, sizeof l2, "%s (CUDA vs CPU)", label);
            gt_compare(&dst, &d2, 0, 0, l2);
        }
        gt_free(&d2);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp_img);
}

static void test_stored(gip_context *ctx)
{
    static const struct {
        const char *in, *out;
        gip_box_params p;
    } t[] = {
        {"astronaut_crop.pgm", "astronaut_box3.pgm", {3, 3, 0, 0, 0, 0, {GIP_BORDER_REFLECT_101}}},
        {"chelsea_crop.ppm",
         "chelsea_box5x3_replicate.ppm",
         {5, 3, 0, 0, 0, 0, {GIP_BORDER_REPLICATE}}},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%s/filter/%s", GIP_TEST_DATA_DIR, t[i].in);
        snprintf(b, sizeof b, "%s/filter/%s", GIP_TEST_DATA_DIR, t[i].out);
        gip_image src, want, dst;
        if (!GT_CHECK(ref_load_pnm(a, &src) == 0, "cannot read %s", a))
            continue;
        if (GT_CHECK(ref_load_pnm(b, &want) == 0, "cannot read %s", b)) {
            gt_alloc(&dst, src.width, src.height, src.channels, GIP_U8, 5);
            if (GT_OK(gt_run_unary(ctx, run_box, &src, &dst, &t[i].p, 0xEE)))
                gt_compare(&dst, &want, 0, 0, t[i].out);
            gt_free(&dst);
            gt_free(&want);
        }
        gt_free(&src);
    }
}

static void test_bad(gip_context *ctx)
{
    gip_image src, dst, d16, d4, dsmall, s16, pz;
    gt_alloc(&src, 16, 12, 3, GIP_U8, 0);
    gt_alloc(&dst, 16, 12, 3, GIP_U8, 0);
    gt_alloc(&d16, 16, 12, 3, GIP_U16, 0);
    gt_alloc(&d4, 16, 12, 4, GIP_U8, 0);
    gt_alloc(&dsmall, 16, 11, 3, GIP_U8, 0);
    gt_alloc(&s16, 16, 12, 3, GIP_S16, 0);
    gt_alloc(&pz, 16, 12, 3, GIP_U8, 0);
    gt_poison(&pz, 0x77);
    gt_fill_random(&src, 3, 0, 0);
    struct {
        gip_box_params p;
        const char *what;
    } badp[] = {
        {{-1, 3, 0, 0, 0, 0, {0}}, "negative ksize"},
        {{3, 1024, 0, 0, 0, 0, {0}}, "ksize above the cap"},
        {{3, 3, 1, 3, 0, 0, {0}}, "anchor x outside"},
        {{3, 3, 1, 0, -1, 0, {0}}, "anchor y negative"},
        {{3, 3, 0, 0, 0, 0, {(gip_border)5}}, "unknown border"},
    };
    for (size_t i = 0; i < sizeof badp / sizeof badp[0]; i++) {
        gt_poison(&dst, 0x77);
        if (!GT_STATUS(gip_box_filter(ctx, &src, &dst, &badp[i].p), GIP_ERR_INVALID_ARGUMENT))
            fprintf(stderr, "  case: %s\n", badp[i].what);
        gt_compare(&dst, &pz, 0, 0, badp[i].what);
    }
    gip_box_params ok = {0};
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_box_filter(NULL, &src, &dst, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_box_filter(ctx, NULL, &dst, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_box_filter(ctx, &src, NULL, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_OK(gip_box_filter(ctx, &src, &d16, &ok)); /* any dtype pair (tests/test_ddepth.c) */
    GT_STATUS(gip_box_filter(ctx, &src, &d4, &ok), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_box_filter(ctx, &src, &dsmall, &ok), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_box_filter(ctx, &s16, &s16, &ok), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_box_filter(ctx, &src, &src, &ok), GIP_ERR_ALIASING);
    gt_compare(&dst, &pz, 0, 0, "dst unchanged after refused calls");
    /* params NULL means the defaults: 3x3 mean, reflect101. */
    gip_image want;
    gt_alloc(&want, 16, 12, 3, GIP_U8, 0);
    GT_OK(gip_box_filter(ctx, &src, &dst, NULL));
    GT_OK(gip_box_filter(ctx, &src, &want, &ok));
    gt_compare(&dst, &want, 0, 0, "NULL params = defaults");
    gt_free(&want);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&d16);
    gt_free(&d4);
    gt_free(&dsmall);
    gt_free(&s16);
    gt_free(&pz);
}

/* u8 images large enough for the CPU's integer form of the u8 -> u8 scaling (checked against the
 * float formula over every reachable sum before use), with several kernel areas; on the CPU one()
 * also compares scalar against SIMD. */
static void test_wide(gip_context *ctx)
{
    static const bcase wide[] = {{5, 5, 0, 0, 0, 0, false},
                                 {7, 7, 0, 0, 0, 0, false},
                                 {11, 3, 1, 10, 0, 0, false},
                                 {2, 2, 0, 0, 0, 0, false},
                                 {6, 1, 0, 0, 0, 0, false}};
    static const gt_size sz = {420, 170};
    uint64_t seed = 500;
    for (int k = 0; k < 5; k++)
        for (int b = 0; b < 2; b++, seed++)
            one(ctx, sz, GIP_U8, 3, b ? GIP_BORDER_CONSTANT : GIP_BORDER_REFLECT_101, &wide[k],
                (seed & 1) ? 9 : 0, seed);
}

/* Sizes around the CUDA tile edges (128 or 192 elements wide, 40 or 64 rows, 16-byte chunks)
 * and kernels from 1 to beyond the tiled maximum (63), anchored anywhere, larger than the image,
 * with every border mode; each dtype and channel count in turn. */
static void test_tiles(gip_context *ctx)
{
    /* Areas stay <= 256 so that u16 sums are exact in float, as the reference assumes. */
    static const bcase kc[] = {
        {1, 1, 0, 0, 0, 0, false}, {31, 7, 1, 30, 6, 0, false}, {7, 31, 1, 0, 0, 0, false},
        {2, 9, 1, 1, 8, 0, true},  {17, 1, 0, 0, 0, 1, false},  {1, 31, 1, 0, 3, 0, false},
        {3, 3, 0, 0, 0, 0, true},  {65, 3, 1, 64, 2, 0, false}, {3, 71, 0, 0, 0, 1, true}};
    static const gt_size sizes[] = {{63, 31},  {64, 32}, {65, 33}, {127, 41}, {129, 3},
                                    {4097, 3}, {1, 33},  {33, 1},  {193, 65}};
    uint64_t seed = 7000;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (size_t k = 0; k < sizeof kc / sizeof kc[0]; k++, seed++) {
                int d = (int)(seed % 3), c = (int)((seed / 3 + s) % 3);
                one(ctx, sizes[s], dtypes[d], chans[c], (gip_border)b, &kc[k], (seed & 4) ? 9 : 0,
                    seed);
            }
}

/* u16 and u8 kernels of areas above 256, whose sums pass 2^24 (where float sums would round):
 * every border mode, on images from smaller than the kernel to wide enough for the AVX2 runs and
 * the in-place interior; 200x200 and 257x257 take the u16 double rule (area > 32768), the scalar
 * vertical pass on the CPU (sums of 2^31 and more) and 64-bit sums (257x257: above 2^32). */
static void test_large_areas(gip_context *ctx)
{
    static const struct {
        bcase k;
        gt_size sz;
        int cn;
    } t[] = {
        {{31, 31, 0, 0, 0, 0, false}, {100, 20}, 3},   {{3, 101, 1, 1, 7, 0, false}, {67, 120}, 1},
        {{101, 3, 0, 0, 0, 0, false}, {173, 20}, 4},   {{65, 65, 0, 0, 0, 0, false}, {130, 12}, 1},
        {{17, 17, 0, 0, 0, 0, false}, {97, 40}, 1},    {{31, 31, 0, 0, 0, 0, true}, {40, 17}, 4},
        {{65, 65, 0, 0, 0, 1, true}, {40, 9}, 1},      {{200, 200, 0, 0, 0, 0, false}, {30, 7}, 1},
        {{257, 257, 1, 3, 250, 0, false}, {17, 5}, 3}, {{257, 257, 0, 0, 0, 0, true}, {20, 4}, 1},
    };
    uint64_t seed = 9100;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (int d = 0; d < 2; d++, seed++) {
                /* u8 for a third of the runs: its integer path beyond box_u8's 257 */
                if (d == 1 && seed % 3)
                    continue;
                one(ctx, t[i].sz, d ? GIP_U8 : GIP_U16, t[i].cn, (gip_border)b, &t[i].k,
                    (seed & 1) ? 9 : 0, seed);
            }
}

/* The 3x3 box on u8 with 16-byte aligned rows (on CUDA the packed integer kernel of the 2-D
 * engine): row lengths around the kernel's 16-element lanes and 512-element warps, every border,
 * 1, 3 and 4 channels, normalised, summed (saturating) and to f32. */
static void test_packed(gip_context *ctx)
{
    static const gt_size sizes[] = {{1, 1},    {5, 3},    {16, 2},   {13, 42}, {171, 5},
                                    {512, 17}, {513, 16}, {700, 33}, {2, 40},  {1024, 3}};
    static const bcase pc[] = {{3, 3, 0, 0, 0, 0, false},
                               {3, 3, 0, 0, 0, 1, false},
                               {3, 3, 0, 0, 0, 0, true},
                               {3, 3, 1, 1, 1, 1, true}};
    align16 = true;
    uint64_t seed = 900;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 0; c < 3; c++)
            for (int b = 0; b <= GIP_BORDER_WRAP; b++, seed++)
                one(ctx, sizes[s], GIP_U8, chans[c], (gip_border)b, &pc[seed % 4], 0, seed);
    align16 = false;
}

/* u8 destinations of GIP__STREAM_BYTES (16 MiB) or more take the CPU's streaming stores where
 * the box's scaling has an integer form (3x3 here; 4x2's 1/8 has none and keeps plain stores);
 * rows 20 bytes longer than the pixels start at every alignment, so rows that cannot stream are
 * mixed in. Against the reference and the scalar path, as every case. */
static void test_streamed(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CPU) {
        printf("box: images over the streaming threshold run on the CPU backend only\n");
        return;
    }
    static const gt_size big3 = {2400, 2400}, big1 = {4200, 4100};
    one(ctx, big3, GIP_U8, 3, GIP_BORDER_REFLECT_101, &cases[0], 0, 801);
    one(ctx, big3, GIP_U8, 3, GIP_BORDER_CONSTANT, &cases[1], 20, 802);
    one(ctx, big1, GIP_U8, 1, GIP_BORDER_REPLICATE, &cases[0], 20, 803);
}

/* The CPU's fused 3x3 route (AVX-512BW or AVX2) takes the centred 3x3 box of u8 (normalised to
 * u8, unnormalised to u8 or f32): row lengths around its vectors (16, 32 and 64 elements; every
 * element by its scalar loop below one vector + 2C), odd and even heights (it steps two rows at a
 * time), every border, 1, 3 and 4 channels, row paddings that move the destination's alignment.
 * Against the reference and the scalar path, as every case. */
static void test_fused(gip_context *ctx)
{
    static const gt_size sizes[] = {{2, 1},  {11, 2},  {17, 3},  {18, 2},  {19, 4},  {24, 5},
                                    {33, 3}, {34, 4},  {35, 5},  {36, 7},  {45, 6},  {49, 6},
                                    {66, 3}, {67, 10}, {97, 2},  {130, 5}, {700, 9}, {96, 1},
                                    {65, 8}, {200, 3}, {257, 11}};
    static const bcase fc[] = {
        {3, 3, 0, 0, 0, 0, false}, {3, 3, 0, 0, 0, 1, false}, {3, 3, 1, 1, 1, 1, true}};
    uint64_t seed = 1300;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 0; c < 3; c++)
            for (int b = 0; b <= GIP_BORDER_WRAP; b++, seed++)
                one(ctx, sizes[s], GIP_U8, chans[c], (gip_border)b, &fc[seed % 3],
                    (int64_t)(seed % 7), seed);
}

static void body(gip_context *ctx)
{
    if (gt_current_backend == GT_CUDA) {
        gip_context_desc d = {GIP_BACKEND_CPU, 0, 0, 0};
        GT_OK(gip_context_create(&d, &cpu_ctx));
    }
    uint64_t seed = 11;
    for (int s = 0; s < gt_nsizes; s++) {
        bool big = gt_sizes[s].w * gt_sizes[s].h > 100000;
        for (int d = 0; d < 3; d++)
            for (int c = 0; c < 3; c++)
                for (int b = 0; b <= GIP_BORDER_WRAP; b++)
                    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
                        if (big && (k > 1 || (b != 0 && b != 3) || chans[c] == 1))
                            continue;
                        one(ctx, gt_sizes[s], dtypes[d], chans[c], (gip_border)b, &cases[k],
                            (seed & 1) ? 9 : 0, seed);
                        seed++;
                    }
    }
    test_packed(ctx);
    test_fused(ctx);
    test_wide(ctx);
    test_tiles(ctx);
    test_large_areas(ctx);
    test_streamed(ctx);
    test_stored(ctx);
    test_bad(ctx);
    if (gt_current_backend == GT_CPU) {
        /* Where the CPU has AVX-512BW the fused route's 512-bit body took the 3x3 u8 boxes
         * above; its AVX2 body runs now (elsewhere this repeats the same path). */
        printf("box: again with GIP_NOAVX512=1 (the fused route's AVX2 body)\n");
        gt_setenv("GIP_NOAVX512", "1");
        test_packed(ctx);
        test_fused(ctx);
        test_streamed(ctx);
        gt_setenv("GIP_NOAVX512", NULL);
    }
    gip_context_destroy(cpu_ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "box", body);
}
