/* SPDX-License-Identifier: MIT */
/* Tests of gip_cvt_color: every code for u8, u16 and f32 on awkward sizes and padded strides, in
 * place for the swaps, cv2 outputs, and the bad-input table. Integer results and every f32 result
 * but gray are exact; f32 gray is within 1e-6 relative of the double reference (three float
 * roundings of non-negative terms: at most about 2e-7). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color/cvt_color_cpu.h"
#include "ref_color.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};

static const struct {
    gip_color_code code;
    const char *name;
    int scn, dcn;
} codes[] = {
    {GIP_COLOR_RGB2BGR, "RGB2BGR", 3, 3},     {GIP_COLOR_RGBA2BGRA, "RGBA2BGRA", 4, 4},
    {GIP_COLOR_RGB2RGBA, "RGB2RGBA", 3, 4},   {GIP_COLOR_RGBA2RGB, "RGBA2RGB", 4, 3},
    {GIP_COLOR_RGB2BGRA, "RGB2BGRA", 3, 4},   {GIP_COLOR_RGBA2BGR, "RGBA2BGR", 4, 3},
    {GIP_COLOR_RGB2GRAY, "RGB2GRAY", 3, 1},   {GIP_COLOR_BGR2GRAY, "BGR2GRAY", 3, 1},
    {GIP_COLOR_RGBA2GRAY, "RGBA2GRAY", 4, 1}, {GIP_COLOR_BGRA2GRAY, "BGRA2GRAY", 4, 1},
    {GIP_COLOR_GRAY2RGB, "GRAY2RGB", 1, 3},   {GIP_COLOR_GRAY2RGBA, "GRAY2RGBA", 1, 4},
};
static const int ncodes = (int)(sizeof codes / sizeof codes[0]);

static gip_status run_cvt(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_cvt_color(ctx, src, dst, *(const gip_color_code *)p);
}

static bool is_gray(gip_color_code code)
{
    return code >= GIP_COLOR_RGB2GRAY && code <= GIP_COLOR_BGRA2GRAY;
}

/* f32 gray: 1e-6 relative; with inputs in [-1, 1) the terms can cancel, so 1e-6 absolute too
 * (the sum of |terms| is below 1). Everything else exact. */
static void compare(const gip_image *got, const gip_image *exp, gip_color_code code, bool negative,
                    const char *label)
{
    bool tol = got->dtype == GIP_F32 && is_gray(code);
    gt_compare(got, exp, tol && negative ? 1e-6 : 0, tol ? 1e-6 : 0, label);
}

static void test_codes(gip_context *ctx)
{
    int run = 0;
    for (int si = 0; si < gt_nsizes; si++)
        for (int d = 0; d < 3; d++)
            for (int k = 0; k < ncodes; k++, run++) {
                gt_size sz = gt_sizes[si];
                gip_image src, dst, exp;
                gt_alloc(&src, sz.w, sz.h, codes[k].scn, dtypes[d], (run & 1) ? 20 : 0);
                gt_alloc(&dst, sz.w, sz.h, codes[k].dcn, dtypes[d], (run & 2) ? 36 : 0);
                gt_alloc(&exp, sz.w, sz.h, codes[k].dcn, dtypes[d], 0);
                /* f32: [0, 1) as images are, [0, 1000), or [-1, 1) with cancellations. */
                int range = run % 3;
                bool negative = dtypes[d] == GIP_F32 && range == 2;
                gt_fill_random(&src, (uint64_t)run + 3, negative ? -1.0f : 0.0f,
                               range == 1 ? 1000.0f : 1.0f);
                ref_cvt_color(&src, &exp, codes[k].code);
                char label[160];
                snprintf(label, sizeof label, "%s %s %lldx%lld", codes[k].name,
                         gip_dtype_name(dtypes[d]), (long long)sz.w, (long long)sz.h);
                gip_color_code code = codes[k].code;
                if (GT_OK(gt_run_unary(ctx, run_cvt, &src, &dst, &code, 0xC7))) {
                    compare(&dst, &exp, code, negative, label);
                    GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding", label);
                }
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
}

static gip_status run_in_place(gip_context *ctx, gip_image *img, gip_color_code code)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_cvt_color(ctx, img, img, code);
    gip_image d = {0};
    gip_status st = gip_image_alloc(ctx, &d, img->width, img->height, img->channels, img->dtype,
                                    GIP_MEM_CUDA, 0);
    if (st)
        return st;
    if (!(st = gip_upload(ctx, img, &d)) && !(st = gip_cvt_color(ctx, &d, &d, code)))
        st = gip_download(ctx, &d, img);
    gip_image_free(ctx, &d);
    return st;
}

static void test_in_place(gip_context *ctx)
{
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < 2; k++) /* RGB2BGR, RGBA2BGRA */
            for (int si = 3; si < 6; si++) {
                gt_size sz = gt_sizes[si];
                gip_image src, img, exp;
                gt_alloc(&src, sz.w, sz.h, codes[k].scn, dtypes[d], 0);
                gt_alloc(&img, sz.w, sz.h, codes[k].scn, dtypes[d], 16);
                gt_alloc(&exp, sz.w, sz.h, codes[k].dcn, dtypes[d], 0);
                gt_fill_random(&src, 50 + (uint64_t)si, 0.0f, 1.0f);
                GT_OK(gip_copy(ctx, &src, &img));
                ref_cvt_color(&src, &exp, codes[k].code);
                char label[128];
                snprintf(label, sizeof label, "in place %s %s %lldx%lld", codes[k].name,
                         gip_dtype_name(dtypes[d]), (long long)sz.w, (long long)sz.h);
                if (GT_OK(run_in_place(ctx, &img, codes[k].code))) {
                    gt_compare(&img, &exp, 0, 0, label);
                    GT_CHECK(gt_padding_intact(&img), "%s: wrote into the row padding", label);
                }
                gt_free(&src);
                gt_free(&img);
                gt_free(&exp);
            }
}

/* cv2 outputs stored under tests/data/color (see its README). */
static void test_cv2(gip_context *ctx)
{
    char path[1024];
    gip_image rgb, rgb16, rgbf;
    snprintf(path, sizeof path, "%s/color/astronaut_64x48_rgb.ppm", GIP_TEST_DATA_DIR);
    if (!GT_CHECK(ref_read_pnm(path, &rgb) == 0, "cannot read %s", path))
        return;
    gt_alloc(&rgb16, rgb.width, rgb.height, 3, GIP_U16, 0);
    gt_alloc(&rgbf, rgb.width, rgb.height, 3, GIP_F32, 0);
    for (int64_t y = 0; y < rgb.height; y++)
        for (int64_t x = 0; x < rgb.width; x++)
            for (int c = 0; c < 3; c++) {
                double v = gt_get(&rgb, x, y, c);
                gt_set(&rgb16, x, y, c, v * 257 + (double)((7 * x + 13 * y + 5 * c) % 257));
                gt_set(&rgbf, x, y, c, (double)((float)v * (float)(1.0 / 255.0)));
            }
    static const struct {
        const char *file;
        gip_color_code code;
        int input; /* 0 u8, 1 u16, 2 f32 */
    } cases[] = {{"rgb2gray_u8.pgm", GIP_COLOR_RGB2GRAY, 0},
                 {"bgr2gray_u8.pgm", GIP_COLOR_BGR2GRAY, 0},
                 {"rgb2gray_u16.pgm", GIP_COLOR_RGB2GRAY, 1},
                 {"rgb2gray_f32.raw", GIP_COLOR_RGB2GRAY, 2}};
    const gip_image *inputs[] = {&rgb, &rgb16, &rgbf};
    for (int i = 0; i < 4; i++) {
        const gip_image *src = inputs[cases[i].input];
        gip_image expect, dst;
        snprintf(path, sizeof path, "%s/color/%s", GIP_TEST_DATA_DIR, cases[i].file);
        int rc = cases[i].input == 2 ? ref_read_f32(path, src->width, src->height, 1, &expect)
                                     : ref_read_pnm(path, &expect);
        if (!GT_CHECK(rc == 0, "cannot read %s", path))
            continue;
        gt_alloc(&dst, src->width, src->height, 1, src->dtype, 4);
        gip_color_code code = cases[i].code;
        if (GT_OK(gt_run_unary(ctx, run_cvt, src, &dst, &code, 0x11)))
            /* cv2 adds its f32 terms in another order with IPP: 1e-6 relative; integers exact */
            gt_compare(&dst, &expect, 0, src->dtype == GIP_F32 ? 1e-6 : 0, cases[i].file);
        gt_free(&dst);
        gt_free(&expect);
    }
    gt_free(&rgbf);
    gt_free(&rgb16);
    gt_free(&rgb);
}

static void test_bad_inputs(gip_context *ctx)
{
    gip_image src, dst, src4, s16, s16d, c32, dst16, buf;
    gt_alloc(&src, 16, 8, 3, GIP_U8, 0);
    gt_fill_random(&src, 9, 0, 0);
    gt_alloc(&dst, 16, 8, 1, GIP_U8, 8);
    gt_alloc(&src4, 16, 8, 4, GIP_U8, 0);
    gt_alloc(&s16, 16, 8, 3, GIP_S16, 0);
    gt_alloc(&s16d, 16, 8, 1, GIP_S16, 0);
    gt_alloc(&c32, 16, 8, 3, GIP_C32, 0);
    gt_alloc(&dst16, 16, 8, 1, GIP_U16, 0);
    gt_alloc(&buf, 16, 9, 4, GIP_U8, 0);
    gt_poison(&dst, 0x3C);
    gt_poison(&buf, 0x3C);
    size_t dbytes = (size_t)(dst.stride * dst.height);
    unsigned char *snap = malloc(dbytes);
    if (!snap)
        abort();
    memcpy(snap, dst.data, dbytes);
#define DST_UNCHANGED()                                                                            \
    GT_CHECK(memcmp(snap, dst.data, dbytes) == 0, "line %d: dst was written", __LINE__)
    const gip_color_code g = GIP_COLOR_RGB2GRAY;
    gip_image v;

    GT_STATUS(gip_cvt_color(NULL, &src, &dst, g), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_cvt_color(ctx, NULL, &dst, g), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_cvt_color(ctx, &src, NULL, g), GIP_ERR_INVALID_ARGUMENT);
    v = src, v.width = -1;
    GT_STATUS(gip_cvt_color(ctx, &v, &dst, g), GIP_ERR_INVALID_ARGUMENT);
    v = src, v.height = 0;
    GT_STATUS(gip_cvt_color(ctx, &v, &dst, g), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();
    GT_STATUS(gip_cvt_color(ctx, &src, &dst, (gip_color_code)0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_cvt_color(ctx, &src, &dst, (gip_color_code)99), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_cvt_color(ctx, &src, &dst, (gip_color_code)-1), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();
    v = src, v.width = 15;
    GT_STATUS(gip_cvt_color(ctx, &v, &dst, g), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_cvt_color(ctx, &src4, &dst, g), GIP_ERR_SHAPE_MISMATCH); /* 4 for RGB2GRAY */
    GT_STATUS(gip_cvt_color(ctx, &src, &dst, GIP_COLOR_RGBA2GRAY), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_cvt_color(ctx, &src, &dst, GIP_COLOR_RGB2BGR), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_cvt_color(ctx, &dst, &dst, GIP_COLOR_GRAY2RGB), GIP_ERR_SHAPE_MISMATCH);
    DST_UNCHANGED();
    GT_STATUS(gip_cvt_color(ctx, &s16, &s16d, g), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &c32, &dst, g), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &src, &dst16, g), GIP_ERR_UNSUPPORTED); /* dtypes differ */
    DST_UNCHANGED();
    v = dst, v.data = (char *)dst.data + 1, v.width = 15; /* misaligned u16 view */
    v.dtype = GIP_U16, v.width = 7;
    gip_image s7 = src;
    s7.width = 7, s7.dtype = GIP_U16, s7.stride = 16 * 3 * 1; /* a valid u16 view of src */
    GT_STATUS(gip_cvt_color(ctx, &s7, &v, g), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();

    /* Overlaps: a partial one for a swap, and same memory for codes that change channels. */
    size_t bbytes = (size_t)(buf.stride * buf.height);
    unsigned char *bsnap = malloc(bbytes);
    if (!bsnap)
        abort();
    memcpy(bsnap, buf.data, bbytes);
    gip_image top, bottom, as3, gray;
    GT_OK(gip_image_roi(&buf, 0, 0, 16, 8, &top));
    GT_OK(gip_image_roi(&buf, 0, 1, 16, 8, &bottom));
    GT_STATUS(gip_cvt_color(ctx, &top, &bottom, GIP_COLOR_RGBA2BGRA), GIP_ERR_ALIASING);
    as3 = top, as3.channels = 3;
    GT_STATUS(gip_cvt_color(ctx, &as3, &top, GIP_COLOR_RGB2RGBA), GIP_ERR_ALIASING);
    GT_STATUS(gip_cvt_color(ctx, &top, &as3, GIP_COLOR_RGBA2RGB), GIP_ERR_ALIASING);
    gray = top, gray.channels = 1;
    GT_STATUS(gip_cvt_color(ctx, &top, &gray, GIP_COLOR_RGBA2GRAY), GIP_ERR_ALIASING);
    GT_STATUS(gip_cvt_color(ctx, &gray, &top, GIP_COLOR_GRAY2RGBA), GIP_ERR_ALIASING);
    as3.stride = top.stride - 4; /* same data and size as another 3-channel view: not the same */
    GT_STATUS(gip_cvt_color(ctx, &as3,
                            &(gip_image){.data = top.data,
                                         .width = 16,
                                         .height = 8,
                                         .channels = 3,
                                         .dtype = GIP_U8,
                                         .stride = top.stride},
                            GIP_COLOR_RGB2BGR),
              GIP_ERR_ALIASING);
    GT_CHECK(memcmp(bsnap, buf.data, bbytes) == 0, "overlapping dst was written");
    free(bsnap);

    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_image dd = {0}, back;
        if (GT_OK(gip_image_alloc(ctx, &dd, 16, 8, 1, GIP_U8, GIP_MEM_CUDA, 0))) {
            GT_OK(gip_image_fill_bytes(ctx, &dd, 0x3C));
            GT_STATUS(gip_cvt_color(ctx, &src, &dd, g), GIP_ERR_LOCATION_MISMATCH);
            gt_alloc(&back, 16, 8, 1, GIP_U8, 8);
            GT_OK(gip_download(ctx, &dd, &back));
            GT_CHECK(memcmp(back.data, snap, dbytes) == 0, "device dst was written");
            gt_free(&back);
            gip_image_free(ctx, &dd);
        }
    } else {
        v = dst, v.memory = GIP_MEM_CUDA;
        GT_STATUS(gip_cvt_color(ctx, &src, &v, g), GIP_ERR_NO_DEVICE);
        DST_UNCHANGED();
    }
#undef DST_UNCHANGED
    free(snap);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&src4);
    gt_free(&s16);
    gt_free(&s16d);
    gt_free(&c32);
    gt_free(&dst16);
    gt_free(&buf);
}

/* CPU only: the AVX2 gray kernels give the scalar twins' bits (f32 too: same fma order), over
 * widths that end inside a vector and odd row paddings; u8 also over every value. */
static void test_simd_paths(gip_context *ctx)
{
    if (gt_current_backend != GT_CPU)
        return;
    static const int64_t widths[] = {7, 8, 17, 18, 19, 33, 1001};
    static const gip_dtype gdt[] = {GIP_U8, GIP_F32};
    for (int d = 0; d < 2; d++)
        for (int k = 6; k < 10; k++) /* the four gray codes */
            for (int wi = 0; wi < 7; wi++) {
                gip_image src, a, b;
                gt_alloc(&src, widths[wi], 9, codes[k].scn, gdt[d], wi % 3);
                gt_alloc(&a, widths[wi], 9, 1, gdt[d], wi % 2);
                gt_alloc(&b, widths[wi], 9, 1, gdt[d], 0);
                gt_fill_random(&src, (uint64_t)(100 + wi + 10 * k), d ? -300.0f : 0.0f,
                               d ? 1000.0f : 0.0f);
                if (gdt[d] == GIP_U8 && widths[wi] == 1001)
                    for (int64_t i = 0; i < 1001 * codes[k].scn; i++)
                        ((uint8_t *)src.data)[i] = (uint8_t)(i / 4);
                char label[160];
                snprintf(label, sizeof label, "%s %s %lldx9 (AVX2 vs scalar)", codes[k].name,
                         gip_dtype_name(gdt[d]), (long long)widths[wi]);
                gip_color_code code = codes[k].code;
                bool prev = gip__cc_set_simd(true);
                GT_OK(gip_cvt_color(ctx, &src, &a, code));
                gip__cc_set_simd(false);
                GT_CHECK(!gip__cc_simd_active(), "%s: the SIMD switch did not turn off", label);
                GT_OK(gip_cvt_color(ctx, &src, &b, code));
                gip__cc_set_simd(prev);
                gt_compare(&a, &b, 0, 0, label);
                GT_CHECK(gt_padding_intact(&a), "%s: wrote into the row padding", label);
                gt_free(&src);
                gt_free(&a);
                gt_free(&b);
            }
}

static void body(gip_context *ctx)
{
    test_bad_inputs(ctx);
    test_codes(ctx);
    test_in_place(ctx);
    test_cv2(ctx);
    test_simd_paths(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "cvt_color", body);
}
