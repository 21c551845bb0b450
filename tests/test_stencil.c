/* SPDX-License-Identifier: MIT */
/* Tests of gip_stencil: the 3x3 mean (the seed program's kernel) against a double-precision
 * reference and gip_box_filter for every border mode, dtype, channel count and awkward size; CPU
 * and GPU identical; radius and offset rules; the bad-input table. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/kernel.h"
#include "testing.h"

static const char mean3[] = "out = (in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in(0,0) + "
                            "in(1,0) + in(-1,1) + in(0,1) + in(1,1)) / 9";

typedef struct run_args {
    const char *expr;
    gip_stencil_params p;
} run_args;

static gip_status run_fn(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    const run_args *r = a;
    return gip_stencil(ctx, r->expr, src, dst, &r->p);
}

static gip_status run_box(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_box_filter(ctx, src, dst, p);
}

/* OpenCV's borderInterpolate, written out independently of the library's helper. */
static int64_t ref_border(int64_t p, int64_t n, gip_border mode)
{
    if (p >= 0 && p < n)
        return p;
    switch (mode) {
    case GIP_BORDER_CONSTANT:
        return -1;
    case GIP_BORDER_REPLICATE:
        return p < 0 ? 0 : n - 1;
    case GIP_BORDER_WRAP:
        return ((p % n) + n) % n;
    case GIP_BORDER_REFLECT:
        while (p < 0 || p >= n)
            p = p < 0 ? -p - 1 : 2 * n - p - 1;
        return p;
    default:
        if (n == 1)
            return 0;
        while (p < 0 || p >= n)
            p = p < 0 ? -p : 2 * n - p - 2;
        return p;
    }
}

static double ref_at(const gip_image *src, int64_t x, int64_t y, int c, const gip_border_spec *b)
{
    int64_t bx = ref_border(x, src->width, b->mode), by = ref_border(y, src->height, b->mode);
    if (bx < 0 || by < 0)
        return b->value[c];
    return gt_get(src, bx, by, c);
}

static void ref_mean(const gip_image *src, gip_image *ref, const gip_border_spec *b)
{
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int c = 0; c < src->channels; c++) {
                double s = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        s += ref_at(src, x + dx, y + dy, c, b);
                gt_set(ref, x, y, c, s / 9.0);
            }
}

static void test_mean(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    for (int mode = 0; mode <= GIP_BORDER_WRAP; mode++)
        for (int di = 0; di < 3; di++)
            for (int ci = 0; ci < 3; ci++)
                for (int si = 0; si < gt_nsizes; si++) {
                    gt_size sz = gt_sizes[si];
                    /* The largest size for u8 in every mode; for the others once. */
                    if (sz.w * sz.h > 100000 && (di > 0 || ci == 1) && mode != 0)
                        continue;
                    gip_image src, dst, ref;
                    gt_alloc(&src, sz.w, sz.h, chans[ci], dts[di], 5);
                    gt_alloc(&dst, sz.w, sz.h, chans[ci], dts[di], 3);
                    gt_alloc(&ref, sz.w, sz.h, chans[ci], dts[di], 0);
                    gt_fill_random(&src, 100 + si * 7 + mode, 0, 0);
                    run_args a = {mean3, {0}};
                    a.p.radius = 1;
                    a.p.border.mode = (gip_border)mode;
                    for (int c = 0; c < 4; c++)
                        a.p.border.value[c] = 10.0f + 20.0f * c;
                    ref_mean(&src, &ref, &a.p.border);
                    GT_OK(gt_run_unary(ctx, run_fn, &src, &dst, &a, 0xCD));
                    char label[96];
                    snprintf(label, sizeof label, "mean3 %s %s c%d %lldx%lld",
                             gip_border_name((gip_border)mode), gip_dtype_name(dts[di]), chans[ci],
                             (long long)sz.w, (long long)sz.h);
                    gt_compare(&dst, &ref, dts[di] == GIP_F32 ? 1e-5 : 0, 1e-6, label);
                    GT_CHECK(gt_padding_intact(&dst), "%s: padding intact", label);
                    /* The same bytes as gip's own box filter (f32: within rounding). */
                    gip_box_params bp = {0};
                    bp.ksize_w = bp.ksize_h = 3;
                    bp.border = a.p.border;
                    GT_OK(gt_run_unary(ctx, run_box, &src, &ref, &bp, 0xCD));
                    gt_compare(&dst, &ref, dts[di] == GIP_F32 ? 1e-5 : 0, 1e-6, label);
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&ref);
                }
}

/* A derivative with a scalar, u8 in, f32 out; radius inferred from the expression. */
static void test_gradient(gip_context *ctx)
{
    gip_image src, dst, ref;
    gt_alloc(&src, 64, 48, 3, GIP_U8, 0);
    gt_alloc(&dst, 64, 48, 3, GIP_F32, 4);
    gt_alloc(&ref, 64, 48, 3, GIP_F32, 0);
    gt_fill_random(&src, 4, 0, 0);
    gip_scalar k = {"k", 0.5f};
    run_args a = {"k * (in(2, 0) - in(-2, 0)) + (y < 1 ? 1000 : 0)", {0}};
    a.p.border.mode = GIP_BORDER_REPLICATE;
    a.p.scalars = &k;
    a.p.n_scalars = 1;
    gip_border_spec b = a.p.border;
    for (int64_t y = 0; y < 48; y++)
        for (int64_t x = 0; x < 64; x++)
            for (int c = 0; c < 3; c++)
                gt_set(&ref, x, y, c,
                       0.5 * (ref_at(&src, x + 2, y, c, &b) - ref_at(&src, x - 2, y, c, &b)) +
                           (y < 1 ? 1000 : 0));
    GT_OK(gt_run_unary(ctx, run_fn, &src, &dst, &a, 0xCD));
    gt_compare(&dst, &ref, 0, 0, "k * (in(2,0) - in(-2,0))");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&ref);
}

/* Identical integer outputs on the GPU and the CPU, every border mode. */
static void test_cpu_vs_gpu(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return;
    gip_context *cpu = NULL;
    gip_context_desc desc = {GIP_BACKEND_CPU, 0, 0, 0};
    GT_OK(gip_context_create(&desc, &cpu));
    const char *exprs[] = {
        mean3,
        "max(abs(in(1,1) - in(-1,-1)), abs(in(-1,1) - in(1,-1))) * 1.3 + min(in, in(0,2)) / 7",
        "in(2,-2) > in ? (in(-2,2) + in(1,0) * 0.25) % 97 : clamp(in(0,-1) * 3.7 - 40, 0, 250)",
    };
    for (int mode = 0; mode <= GIP_BORDER_WRAP; mode++)
        for (size_t k = 0; k < sizeof exprs / sizeof exprs[0]; k++)
            for (int di = 0; di < 2; di++) {
                gip_dtype dt = di ? GIP_U16 : GIP_U8;
                gip_image src, g, h;
                gt_alloc(&src, 131, 67, 3, dt, 2);
                gt_alloc(&g, 131, 67, 3, dt, 0);
                gt_alloc(&h, 131, 67, 3, dt, 0);
                gt_fill_random(&src, 50 + mode, 0, 0);
                run_args a = {exprs[k], {0}};
                a.p.border.mode = (gip_border)mode;
                a.p.border.value[0] = 7;
                a.p.border.value[2] = 250;
                GT_OK(gt_run_unary(ctx, run_fn, &src, &g, &a, 0xCD));
                GT_OK(gt_run_unary(cpu, run_fn, &src, &h, &a, 0x11));
                char label[64];
                snprintf(label, sizeof label, "CPU vs GPU expr %d %s %s", (int)k,
                         gip_border_name((gip_border)mode), gip_dtype_name(dt));
                gt_compare(&g, &h, 0, 0, label);
                gt_free(&src);
                gt_free(&g);
                gt_free(&h);
            }
    gip_context_destroy(cpu);
}

/* Sizes at the GPU's tile edges (tiles of 128 elements by 32 rows; element, not pixel, columns),
 * odd strides, and radii whose tile only just fits shared memory (11 with 4 channels) or does not
 * (12: the untiled kernel): GPU and CPU identical in every border mode. */
static void test_tile_edges(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return;
    gip_context *cpu = NULL;
    gip_context_desc desc = {GIP_BACKEND_CPU, 0, 0, 0};
    GT_OK(gip_context_create(&desc, &cpu));
    static const struct {
        int64_t w, h;
        int32_t c;
        gip_dtype dt;
        const char *expr;
    } cases[] = {
        {128, 32, 1, GIP_U8, mean3},
        {129, 33, 1, GIP_U8, mean3},
        {127, 31, 1, GIP_F32, mean3},
        {43, 65, 3, GIP_U8, mean3},
        {86, 64, 3, GIP_U16, mean3},
        {257, 97, 4, GIP_U8, "in(-2, 2) * 0.25 + in(2, -1) * 0.75 - x * 0.01 + y + c"},
        {2, 3, 1, GIP_U8, "in(2, -2) + in(-1, 1) * 2"},
        {300, 70, 4, GIP_U8, "(in(11, -11) + in(-11, 11) + in) / 3"},
        {300, 70, 4, GIP_U16, "(in(12, -12) + in(-12, 12) + in(0, 3)) / 3"},
        {40, 9, 1, GIP_F32, "in(32, 0) - in(0, -32) + in(-5, 7)"},
    };
    for (int mode = 0; mode <= GIP_BORDER_WRAP; mode++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            gip_image src, g, h;
            gt_alloc(&src, cases[k].w, cases[k].h, cases[k].c, cases[k].dt, 3);
            gt_alloc(&g, cases[k].w, cases[k].h, cases[k].c, cases[k].dt, 5);
            gt_alloc(&h, cases[k].w, cases[k].h, cases[k].c, cases[k].dt, 0);
            gt_fill_random(&src, 90 + k + mode, 0, 0);
            run_args a = {cases[k].expr, {0}};
            a.p.border.mode = (gip_border)mode;
            for (int c = 0; c < 4; c++)
                a.p.border.value[c] = 3.0f + 50.0f * c;
            GT_OK(gt_run_unary(ctx, run_fn, &src, &g, &a, 0xCD));
            GT_OK(gt_run_unary(cpu, run_fn, &src, &h, &a, 0x11));
            char label[128];
            snprintf(label, sizeof label, "GPU vs CPU '%s' %s %s c%d %lldx%lld", cases[k].expr,
                     gip_border_name((gip_border)mode), gip_dtype_name(cases[k].dt),
                     (int)cases[k].c, (long long)cases[k].w, (long long)cases[k].h);
            gt_compare(&g, &h, 0, 0, label);
            GT_CHECK(gt_padding_intact(&g), "%s: padding intact", label);
            gt_free(&src);
            gt_free(&g);
            gt_free(&h);
        }
    gip_context_destroy(cpu);
}

static bool poisoned(const gip_image *img)
{
    for (int64_t y = 0; y < img->height; y++) {
        const uint8_t *r = (const uint8_t *)img->data + y * img->stride;
        for (int64_t i = 0; i < gip_image_row_bytes(img); i++)
            if (r[i] != 0xEE)
                return false;
    }
    return true;
}

static void test_errors(gip_context *ctx)
{
    gip_image src, dst, s16, c3, small;
    gt_alloc(&src, 9, 7, 1, GIP_U8, 0);
    gt_alloc(&dst, 9, 7, 1, GIP_U8, 0);
    gt_alloc(&s16, 9, 7, 1, GIP_S16, 0);
    gt_alloc(&c3, 9, 7, 3, GIP_U8, 0);
    gt_alloc(&small, 9, 6, 1, GIP_U8, 0);
    gt_fill_random(&src, 2, 0, 0);
    gt_poison(&dst, 0xEE);
    gip_stencil_params p = {0};
    p.radius = 1;
    static const struct {
        const char *expr;
        const char *want1, *want2;
    } cases[] = {
        {"in(2, 0)", "column 4", "offset 2 is beyond the stencil radius 1"},
        {"in(0, -2)", "column 7", "beyond the stencil radius"},
        {"in(x, 0)", "column 4", "expected an integer constant offset"},
        {"in(0.5, 0)", "column 4", "expected an integer constant offset"},
        {"in(1 0)", "column 6", "expected ',' between the offsets"},
        {"in(1, 0", "column 8", "expected ')' after in(dx, dy)"},
        {"b(0, 0)", "column 1", "names input 1"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        GT_STATUS(gip_stencil(ctx, cases[k].expr, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
        const char *m = gip_last_error();
        GT_CHECK(strstr(m, cases[k].want1) && strstr(m, cases[k].want2),
                 "'%s': message lacks '%s' / '%s': %s", cases[k].expr, cases[k].want1,
                 cases[k].want2, m);
    }
    GT_STATUS(gip_stencil(ctx, "in(33, 0)", &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_stencil(NULL, mean3, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_stencil(ctx, NULL, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_stencil(ctx, mean3, NULL, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_stencil(ctx, mean3, &src, NULL, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_stencil(ctx, mean3, &dst, &dst, &p), GIP_ERR_ALIASING);
    GT_STATUS(gip_stencil(ctx, mean3, &s16, &dst, &p), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_stencil(ctx, mean3, &c3, &dst, &p), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_stencil(ctx, mean3, &small, &dst, &p), GIP_ERR_SHAPE_MISMATCH);
    p.radius = -1;
    GT_STATUS(gip_stencil(ctx, mean3, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.radius = GIP_STENCIL_MAX_RADIUS + 1;
    GT_STATUS(gip_stencil(ctx, mean3, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.radius = 1;
    p.border.mode = (gip_border)9;
    GT_STATUS(gip_stencil(ctx, mean3, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.border.mode = GIP_BORDER_REFLECT_101;
    p.n_scalars = 2;
    GT_STATUS(gip_stencil(ctx, mean3, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(poisoned(&dst), "bad inputs left dst unchanged");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&s16);
    gt_free(&c3);
    gt_free(&small);
}

static void body(gip_context *ctx)
{
    test_mean(ctx);
    test_gradient(ctx);
    test_cpu_vs_gpu(ctx);
    test_tile_edges(ctx);
    test_errors(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "stencil", body);
}
