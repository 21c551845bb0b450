/* SPDX-License-Identifier: MIT */
/* Tests of gip_map: point expressions against references on every backend, rounding and
 * saturation against the shared helpers, no FMA contraction, CPU and GPU identical, parser errors
 * with their columns, and the bad-input table. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/kernel.h"
#include "saturate.h"
#include "testing.h"

/* Runs gip_map with host images in and out: on a CUDA context through device copies (dst
 * poisoned with 0xCD first); on the CPU directly (dst poisoned too). */
static gip_status run_map(gip_context *ctx, const char *expr, const gip_image *in, int n,
                          const gip_scalar *s, int ns, gip_image *dst)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA) {
        gt_poison(dst, 0xCD);
        return gip_map(ctx, expr, in, n, s, ns, dst);
    }
    gip_image din[GIP_EXPR_MAX_INPUTS], ddst;
    memset(din, 0, sizeof din);
    memset(&ddst, 0, sizeof ddst);
    gip_status st = GIP_OK;
    for (int i = 0; i < n && !st; i++)
        if (!(st = gip_image_alloc(ctx, &din[i], in[i].width, in[i].height, in[i].channels,
                                   in[i].dtype, GIP_MEM_CUDA, 0)))
            st = gip_upload(ctx, &in[i], &din[i]);
    if (!st)
        st = gip_image_alloc(ctx, &ddst, dst->width, dst->height, dst->channels, dst->dtype,
                             GIP_MEM_CUDA, 0);
    if (!st)
        st = gip_image_fill_bytes(ctx, &ddst, 0xCD);
    if (!st)
        st = gip_map(ctx, expr, din, n, s, ns, &ddst);
    if (!st)
        st = gip_download(ctx, &ddst, dst);
    for (int i = 0; i < n; i++)
        gip_image_free(ctx, &din[i]);
    gip_image_free(ctx, &ddst);
    return st;
}

static void test_invert(gip_context *ctx)
{
    static const int32_t chans[] = {1, 3, 4};
    for (int si = 0; si < gt_nsizes; si++)
        for (int ci = 0; ci < 3; ci++) {
            gt_size sz = gt_sizes[si];
            gip_image src, dst, ref;
            gt_alloc(&src, sz.w, sz.h, chans[ci], GIP_U8, 3);
            gt_alloc(&dst, sz.w, sz.h, chans[ci], GIP_U8, 5);
            gt_alloc(&ref, sz.w, sz.h, chans[ci], GIP_U8, 0);
            gt_fill_random(&src, 11 + si, 0, 0);
            for (int64_t y = 0; y < sz.h; y++)
                for (int64_t x = 0; x < sz.w; x++)
                    for (int c = 0; c < chans[ci]; c++)
                        gt_set(&ref, x, y, c, 255.0 - gt_get(&src, x, y, c));
            GT_OK(run_map(ctx, "out = 255 - in", &src, 1, NULL, 0, &dst));
            char label[64];
            snprintf(label, sizeof label, "255 - in %lldx%lld c%d", (long long)sz.w,
                     (long long)sz.h, chans[ci]);
            gt_compare(&dst, &ref, 0, 0, label);
            GT_CHECK(gt_padding_intact(&dst), "%s: padding intact", label);
            gt_free(&src);
            gt_free(&dst);
            gt_free(&ref);
        }
}

static void test_two_inputs(gip_context *ctx)
{
    gip_image in[2], dst, ref;
    gt_alloc(&in[0], 101, 77, 3, GIP_U8, 7);
    gt_alloc(&in[1], 101, 77, 3, GIP_F32, 4);
    gt_alloc(&dst, 101, 77, 3, GIP_U8, 1);
    gt_alloc(&ref, 101, 77, 3, GIP_U8, 0);
    gt_fill_random(&in[0], 5, 0, 0);
    gt_fill_random(&in[1], 6, -100.0f, 400.0f);
    for (int64_t y = 0; y < 77; y++)
        for (int64_t x = 0; x < 101; x++)
            for (int c = 0; c < 3; c++) {
                float a = (float)gt_get(&in[0], x, y, c), b = (float)gt_get(&in[1], x, y, c);
                float v = fminf(fmaxf(a * 0.5f + b * 0.5f, 0.0f), 255.0f);
                gt_set(&ref, x, y, c, v);
            }
    GT_OK(run_map(ctx, "out = clamp(a * 0.5f + b * 0.5f, 0, 255)", in, 2, NULL, 0, &dst));
    gt_compare(&dst, &ref, 0, 0, "clamp(a/2 + b/2)");

    /* Variables and scalars, f32 output (exact small integers). */
    gip_image f;
    gt_alloc(&f, 13, 42, 4, GIP_F32, 8);
    gip_image fref;
    gt_alloc(&fref, 13, 42, 4, GIP_F32, 0);
    gip_scalar s[2] = {{"k", 0.25f}, {"base_", 7.0f}};
    for (int64_t y = 0; y < 42; y++)
        for (int64_t x = 0; x < 13; x++)
            for (int c = 0; c < 4; c++)
                gt_set(&fref, x, y, c, x + y * 13.0 + c * 1000.0 + 0.25 + 7.0 + 42 + 4);
    gip_image u;
    gt_alloc(&u, 13, 42, 4, GIP_U16, 0);
    gt_fill_random(&u, 3, 0, 0);
    GT_OK(
        run_map(ctx, "x + y * width + c * 1000 + k + base_ + height + channels", &u, 1, s, 2, &f));
    gt_compare(&f, &fref, 0, 0, "variables and scalars");
    gt_free(&in[0]);
    gt_free(&in[1]);
    gt_free(&dst);
    gt_free(&ref);
    gt_free(&f);
    gt_free(&fref);
    gt_free(&u);
}

/* Output rounding and saturation equal the shared helpers for every value of a fine sweep. */
static void test_rounding(gip_context *ctx)
{
    const int n = 4000;
    gip_image src, d8, d16;
    gt_alloc(&src, n, 1, 1, GIP_F32, 0);
    gt_alloc(&d8, n, 1, 1, GIP_U8, 0);
    gt_alloc(&d16, n, 1, 1, GIP_U16, 0);
    float *v = src.data;
    for (int i = 0; i < n - 4; i++)
        v[i] = -3.0f + 0.25f * (float)(i % 1100) +
               (i >= 1100 ? 65000.0f + 0.5f * (float)(i - 1100) : 0);
    v[n - 4] = 1e30f;
    v[n - 3] = -1e30f;
    v[n - 2] = INFINITY;
    v[n - 1] = NAN;
    GT_OK(run_map(ctx, "in", &src, 1, NULL, 0, &d8));
    GT_OK(run_map(ctx, "in", &src, 1, NULL, 0, &d16));
    int bad8 = 0, bad16 = 0;
    for (int i = 0; i < n - 1; i++) {
        bad8 += ((uint8_t *)d8.data)[i] != gip__sat_u8_f32(v[i]);
        bad16 += ((uint16_t *)d16.data)[i] != gip__sat_u16_f32(v[i]);
    }
    GT_CHECK(bad8 == 0 && bad16 == 0, "rounding differs from gip__sat_*: %d u8, %d u16", bad8,
             bad16);
    GT_CHECK(((uint8_t *)d8.data)[n - 1] == 0 && ((uint16_t *)d16.data)[n - 1] == 0,
             "NaN stores 0");
    gt_free(&src);
    gt_free(&d8);
    gt_free(&d16);
}

/* a * b - r with a = b = 1 + 2^-12, r = 1 + 2^-11: exactly 0 in float, 2^-24 with an FMA. */
static void test_no_contraction(gip_context *ctx)
{
    gip_image a, d;
    gt_alloc(&a, 3, 2, 1, GIP_F32, 0);
    gt_alloc(&d, 3, 2, 1, GIP_F32, 0);
    for (int i = 0; i < 6; i++)
        ((float *)a.data)[i] = 1.0f + ldexpf(1.0f, -12);
    gip_scalar s[2] = {{"r", 1.0f + ldexpf(1.0f, -11)}, {"q", 1.0f + ldexpf(1.0f, -12)}};
    GT_OK(run_map(ctx, "a * a - r", &a, 1, s, 2, &d));
    GT_CHECK(((float *)d.data)[5] == 0.0f, "a*a - r = %g (an FMA gives 2^-24)",
             (double)((float *)d.data)[5]);
    GT_OK(run_map(ctx, "q * in - r", &a, 1, s, 2, &d));
    GT_CHECK(((float *)d.data)[0] == 0.0f, "q*in - r = %g", (double)((float *)d.data)[0]);
    gt_free(&a);
    gt_free(&d);
}

static void test_in_place(gip_context *ctx)
{
    gip_image a, ref;
    gt_alloc(&a, 33, 9, 3, GIP_U8, 2);
    gt_alloc(&ref, 33, 9, 3, GIP_U8, 0);
    gt_fill_random(&a, 9, 0, 0);
    for (int64_t y = 0; y < 9; y++)
        for (int64_t x = 0; x < 33; x++)
            for (int c = 0; c < 3; c++)
                gt_set(&ref, x, y, c, gt_get(&a, x, y, c) / 2);
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_image d;
        GT_OK(gip_image_alloc(ctx, &d, 33, 9, 3, GIP_U8, GIP_MEM_CUDA, 0));
        GT_OK(gip_upload(ctx, &a, &d));
        GT_OK(gip_map(ctx, "in / 2", &d, 1, NULL, 0, &d));
        GT_OK(gip_download(ctx, &d, &a));
        gip_image_free(ctx, &d);
    } else {
        GT_OK(gip_map(ctx, "in / 2", &a, 1, NULL, 0, &a));
    }
    gt_compare(&a, &ref, 0, 0, "in place");
    gt_free(&a);
    gt_free(&ref);
}

/* The exact operators give identical integer outputs on the GPU and the CPU; the transcendental
 * ones agree within a small tolerance in f32. */
static void test_cpu_vs_gpu(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return;
    gip_context *cpu = NULL;
    gip_context_desc desc = {GIP_BACKEND_CPU, 0, 0, 0};
    GT_OK(gip_context_create(&desc, &cpu));
    static const char *const exact[] = {
        "out = (a * 3 - b / 7) % 50 + min(a, b) - max(a - 9, b * 0.3) + abs(a - b) / 3",
        "a > b ? clamp(a * 1.7, 10, 200) : (a == b || !(b <= 3) && a != 4) * 99 + b / 3.1",
        "floor(a / 3.3) + ceil(b / 7.1) + round(a * 0.37) + sqrt(a * b) - x / 3 + y * 0.1 + c",
        "(a + b + a * 0.1 + b * 0.7) / 2.9 - -a",
    };
    gip_image in[2], g, h;
    gt_alloc(&in[0], 301, 97, 3, GIP_U8, 3);
    gt_alloc(&in[1], 301, 97, 3, GIP_U16, 0);
    gt_fill_random(&in[0], 21, 0, 0);
    gt_fill_random(&in[1], 22, 0, 0);
    gt_alloc(&g, 301, 97, 3, GIP_U8, 0);
    gt_alloc(&h, 301, 97, 3, GIP_U8, 0);
    for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++) {
        GT_OK(run_map(ctx, exact[k], in, 2, NULL, 0, &g));
        GT_OK(run_map(cpu, exact[k], in, 2, NULL, 0, &h));
        gt_compare(&g, &h, 0, 0, exact[k]);
    }
    gip_image gf, hf;
    gt_alloc(&gf, 301, 97, 3, GIP_F32, 0);
    gt_alloc(&hf, 301, 97, 3, GIP_F32, 0);
    const char *trans = "sin(a * 0.05) * 100 + cos(b * 0.001) + exp(a / 100) + log(b + 1) + "
                        "pow(a / 255 + 0.5, 2.3)";
    GT_OK(run_map(ctx, trans, in, 2, NULL, 0, &gf));
    GT_OK(run_map(cpu, trans, in, 2, NULL, 0, &hf));
    gt_compare(&gf, &hf, 1e-4, 1e-5, "transcendental CPU vs GPU");
    gt_free(&gf);
    gt_free(&hf);
    gt_free(&in[0]);
    gt_free(&in[1]);
    gt_free(&g);
    gt_free(&h);
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

static void test_parse_errors(gip_context *ctx)
{
    static const struct {
        const char *expr;
        const char *want1, *want2;
    } cases[] = {
        {"255 - ", "column 7", "expected a number"},
        {"in +* 2", "column 5", "expected a number"},
        {"min(in, 2", "column 10", "expected ',' or ')'"},
        {"sin + 1", "column 5", "expected '(' after the function 'sin'"},
        {"foo + 1", "column 1", "unknown name 'foo'"},
        {"in(1, 0)", "column 3", "needs gip_stencil"},
        {"1 + min(1)", "column 5", "min takes 2 arguments, not 1"},
        {"b + 1", "column 1", "names input 1"},
        {"1 $ 2", "column 3", "unexpected character '$'"},
        {"   ", "column 4", "empty"},
        {"out = in = 3", "column 10", "unexpected '='"},
        {"(in + 1", "column 8", "expected ')'"},
        {"in ? 1", "column 7", "expected ':'"},
        {"in 2", "column 4", "expected an operator or the end"},
        {"x(1)", "column 2", "'x' is a variable"},
    };
    gip_image src, dst;
    gt_alloc(&src, 4, 3, 1, GIP_U8, 0);
    gt_alloc(&dst, 4, 3, 1, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gt_poison(&dst, 0xEE);
        GT_STATUS(gip_map(ctx, cases[k].expr, &src, 1, NULL, 0, &dst), GIP_ERR_INVALID_ARGUMENT);
        const char *m = gip_last_error();
        GT_CHECK(strstr(m, cases[k].want1) && strstr(m, cases[k].want2),
                 "'%s': message lacks '%s' / '%s': %s", cases[k].expr, cases[k].want1,
                 cases[k].want2, m);
        GT_CHECK(poisoned(&dst), "'%s': dst unchanged", cases[k].expr);
    }
    gt_free(&src);
    gt_free(&dst);
}

static void test_bad_input(gip_context *ctx)
{
    gip_image a, b, d, s16, small, c3;
    gt_alloc(&a, 8, 6, 1, GIP_U8, 0);
    gt_alloc(&b, 8, 6, 1, GIP_U8, 0);
    gt_alloc(&d, 8, 6, 1, GIP_U8, 0);
    gt_alloc(&s16, 8, 6, 1, GIP_S16, 0);
    gt_alloc(&small, 7, 6, 1, GIP_U8, 0);
    gt_alloc(&c3, 8, 6, 3, GIP_U8, 0);
    gip_image two[2] = {a, b};
    gip_scalar sx = {"x", 1}, sdup[2] = {{"k", 1}, {"k", 2}}, sbad = {"1k", 1};
    gip_image part = d; /* overlaps d, shifted by one row */
    part.data = (uint8_t *)d.data + d.stride;
    part.height = 5;
    gip_image dpart = d;
    dpart.height = 5;
    gt_poison(&d, 0xEE);
    GT_STATUS(gip_map(NULL, "in", &a, 1, NULL, 0, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, NULL, &a, 1, NULL, 0, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 1, NULL, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", NULL, 1, NULL, 0, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 0, NULL, 0, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 9, NULL, 0, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 1, NULL, 1, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 1, &sx, -1, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 1, &sx, 1, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 1, sdup, 2, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &a, 1, &sbad, 1, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_map(ctx, "in", &s16, 1, NULL, 0, &d), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_map(ctx, "in", &a, 1, NULL, 0, &s16), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_map(ctx, "in", &small, 1, NULL, 0, &d), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_map(ctx, "in", &c3, 1, NULL, 0, &d), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_map(ctx, "a + b", two, 2, NULL, 0, &small), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_map(ctx, "in", &part, 1, NULL, 0, &dpart), GIP_ERR_ALIASING);
    GT_CHECK(poisoned(&d), "bad inputs left dst unchanged");
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_image dev;
        GT_OK(gip_image_alloc(ctx, &dev, 8, 6, 1, GIP_U8, GIP_MEM_CUDA, 0));
        GT_STATUS(gip_map(ctx, "in", &dev, 1, NULL, 0, &d), GIP_ERR_LOCATION_MISMATCH);
        GT_CHECK(poisoned(&d), "host/device mix left dst unchanged");
        gip_image_free(ctx, &dev);
    }
    gt_free(&a);
    gt_free(&b);
    gt_free(&d);
    gt_free(&s16);
    gt_free(&small);
    gt_free(&c3);
}

typedef struct unary_expr {
    const char *expr;
} unary_expr;

static gip_status run_unary_map(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const void *a)
{
    return gip_map(ctx, ((const unary_expr *)a)->expr, src, 1, NULL, 0, dst);
}

/* Widths around the GPU's 16-byte runs (a run is 16 bytes of the narrowest array: 4 to 16
 * elements) with padded strides that are and are not multiples of 16, so that both the vector
 * and the element kernels run, and rows end in partial runs. */
static void test_strides(gip_context *ctx)
{
    static const int64_t widths[] = {1, 3, 4, 5, 15, 16, 17, 33, 255, 257};
    static const int64_t pads[] = {0, 1, 16, 19};
    static const struct {
        gip_dtype in, out;
        int32_t c;
        const char *expr;
    } cases[] = {
        {GIP_U8, GIP_U8, 3, "255 - in + x * 0 + c"},
        {GIP_U8, GIP_U8, 1, "in * 0.5 + 100"},
        {GIP_F32, GIP_F32, 1, "1 - in"},
        {GIP_U8, GIP_F32, 4, "in / 3 + c"},
        {GIP_F32, GIP_U16, 3, "in * 300 - 7"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (size_t pi = 0; pi < sizeof pads / sizeof pads[0]; pi++) {
                int64_t w = widths[wi], h = 5;
                gip_image src, dst, ref;
                gt_alloc(&src, w, h, cases[k].c, cases[k].in, pads[pi]);
                gt_alloc(&dst, w, h, cases[k].c, cases[k].out, pads[(pi + 1) % 4]);
                gt_alloc(&ref, w, h, cases[k].c, cases[k].out, 0);
                gt_fill_random(&src, 70 + wi, 0, 1);
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++)
                        for (int c = 0; c < cases[k].c; c++) {
                            float v = (float)gt_get(&src, x, y, c);
                            float r = k == 0   ? 255.0f - v + (float)c
                                      : k == 1 ? v * 0.5f + 100.0f
                                      : k == 2 ? 1.0f - v
                                      : k == 3 ? v / 3.0f + (float)c
                                               : v * 300.0f - 7.0f;
                            gt_set(&ref, x, y, c, r);
                        }
                unary_expr a = {cases[k].expr};
                GT_OK(gt_run_unary(ctx, run_unary_map, &src, &dst, &a, 0xCD));
                char label[96];
                snprintf(label, sizeof label, "'%s' %lldx%lld pad %lld", cases[k].expr,
                         (long long)w, (long long)h, (long long)pads[pi]);
                gt_compare(&dst, &ref, 0, 0, label);
                GT_CHECK(gt_padding_intact(&dst), "%s: padding intact", label);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&ref);
            }
}

static void body(gip_context *ctx)
{
    test_invert(ctx);
    test_two_inputs(ctx);
    test_rounding(ctx);
    test_no_contraction(ctx);
    test_in_place(ctx);
    test_strides(ctx);
    test_cpu_vs_gpu(ctx);
    test_parse_errors(ctx);
    test_bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "map", body);
}
