/* SPDX-License-Identifier: MIT */
/* Tests of gip_convert: every dtype pair, channels 1/3/4, awkward sizes and padded strides, in
 * place, special float values and cv2 outputs, against ref_convert (exact, f32 included: both
 * backends compute one correctly rounded fused multiply-add as the reference does), and the
 * bad-input table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_color.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};

typedef struct coeffs {
    double scale, offset;
} coeffs;

static const coeffs params[] = {
    {1.0, 0.0},         /* plain conversion */
    {0.5, 0.5},         /* many results exactly x.5: half to even */
    {1.0 / 257.0, 0.0}, /* u16 -> u8 */
    {1.0 / 255.0, 0.5}, /* u8 -> [0, 1] */
    {3.7, -12.25},      /* saturates on both sides */
    {-1.3, 100.5},      /* negative scale */
    {255.0, 0.0},       /* [0, 1] -> u8 */
    {2.5, 0.5},         /* */
    {0.999, 0.001},     /* products near x.5 */
    {1e-3, 1e-30},      /* a tiny offset: the single rounding of the fused multiply-add matters */
    {1.0, 1e-20},       /* OpenCV's noScale: |offset| < DBL_EPSILON counts as 0 */
    {0.0, 6.5},         /* constant, half to even: 6 */
    {-1.0, 0.0},        /* negation */
};
static const int nparams = (int)(sizeof params / sizeof params[0]);

/* Exact comparison for every dtype: gt_compare with zero tolerance for integers; for f32 equal
 * values (infinities included, which gt_compare's |got - exp| <= tol cannot pass) or both NaN. */
static bool compare_exact(const gip_image *got, const gip_image *exp, const char *label)
{
    if (got->dtype != GIP_F32)
        return gt_compare(got, exp, 0, 0, label);
    int64_t bad = 0;
    for (int64_t y = 0; y < got->height; y++)
        for (int64_t x = 0; x < got->width; x++)
            for (int32_t c = 0; c < got->channels; c++) {
                double g = gt_get(got, x, y, c), e = gt_get(exp, x, y, c);
                if (g == e || (isnan(g) && isnan(e)))
                    continue;
                if (bad++ == 0)
                    fprintf(stderr,
                            "FAIL %s: first mismatch at x=%lld y=%lld c=%d: got %.9g, "
                            "expected %.9g\n",
                            label, (long long)x, (long long)y, c, g, e);
            }
    if (bad)
        fprintf(stderr, "FAIL %s: %lld mismatching elements\n", label, (long long)bad);
    return GT_CHECK(bad == 0, "%s: f32 results differ from the exact reference", label);
}

static gip_status run_convert(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const void *params_)
{
    const coeffs *p = (const coeffs *)params_;
    return gip_convert(ctx, src, dst, p->scale, p->offset);
}

/* Random source: integers over their full range; f32 over [-400, 70000) or, with halves, values
 * k / 2 in [-300, 300) plus NaN, infinities, -0 and huge values where the image is big enough. */
static void fill_source(gip_image *img, uint64_t seed, bool halves)
{
    if (img->dtype != GIP_F32) {
        gt_fill_random(img, seed, 0, 0);
        return;
    }
    if (!halves) {
        gt_fill_random(img, seed, -400.0f, 70000.0f);
        return;
    }
    gt_fill_random(img, seed, -300.0f, 300.0f);
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t i = 0; i < img->width * img->channels; i++) {
            float *p = (float *)((char *)img->data + y * img->stride) + i;
            *p = floorf(*p * 2.0f) * 0.5f;
        }
    static const float special[] = {NAN,      INFINITY, -INFINITY, -0.0f,    1e30f,    -1e30f,
                                    0.5f,     1.5f,     2.5f,      255.5f,   254.5f,   65535.5f,
                                    65534.5f, -0.5f,    -1.5f,     32767.5f, -32768.5f};
    int64_t n = img->width * img->channels;
    for (int k = 0; k < (int)(sizeof special / sizeof special[0]) && k < n * img->height; k++)
        ((float *)((char *)img->data + (k / n) * img->stride))[k % n] = special[k];
}

static void test_pairs(gip_context *ctx)
{
    int run = 0;
    for (int si = 0; si < gt_nsizes; si++) {
        gt_size sz = gt_sizes[si];
        bool big = sz.w * sz.h > 100000;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int32_t ch = 1; ch <= 4; ch++) {
                    if (ch == 2 || (big && ch != 3))
                        continue;
                    for (int k = 0; k < (big ? 2 : nparams); k++, run++) {
                        gip_image src, dst, exp;
                        /* Pads are multiples of 4 so that every dtype stays aligned. */
                        gt_alloc(&src, sz.w, sz.h, ch, dtypes[a], (run & 1) ? 20 : 0);
                        gt_alloc(&dst, sz.w, sz.h, ch, dtypes[b], (run & 2) ? 36 : 0);
                        gt_alloc(&exp, sz.w, sz.h, ch, dtypes[b], 0);
                        fill_source(&src, (uint64_t)run + 1, (run & 4) != 0);
                        const coeffs *p = &params[k];
                        ref_convert(&src, &exp, p->scale, p->offset);
                        char label[160];
                        snprintf(label, sizeof label,
                                 "convert %s->%s %lldx%lldx%d scale %g offset %g",
                                 gip_dtype_name(dtypes[a]), gip_dtype_name(dtypes[b]),
                                 (long long)sz.w, (long long)sz.h, ch, p->scale, p->offset);
                        if (GT_OK(gt_run_unary(ctx, run_convert, &src, &dst, p, 0xC7))) {
                            compare_exact(&dst, &exp, label);
                            GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding",
                                     label);
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
                }
    }
}

/* Runs gip_convert(img, img) on the context's backend with a host image in and out. */
static gip_status run_in_place(gip_context *ctx, gip_image *img, const coeffs *p)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_convert(ctx, img, img, p->scale, p->offset);
    gip_image d = {0};
    gip_status st = gip_image_alloc(ctx, &d, img->width, img->height, img->channels, img->dtype,
                                    GIP_MEM_CUDA, 0);
    if (st)
        return st;
    if (!(st = gip_upload(ctx, img, &d)) && !(st = gip_convert(ctx, &d, &d, p->scale, p->offset)))
        st = gip_download(ctx, &d, img);
    gip_image_free(ctx, &d);
    return st;
}

static void test_in_place(gip_context *ctx)
{
    static const coeffs ip[] = {{0.5, 0.5}, {3.7, -12.25}, {1.0, 0.0}, {-1.0, 0.0}};
    for (int a = 0; a < 4; a++)
        for (int si = 3; si < 5; si++) /* 13x42 and 64x48 */
            for (int k = 0; k < 4; k++) {
                gip_image img, src, exp;
                gt_alloc(&src, gt_sizes[si].w, gt_sizes[si].h, 3, dtypes[a], 0);
                gt_alloc(&img, gt_sizes[si].w, gt_sizes[si].h, 3, dtypes[a], 12);
                gt_alloc(&exp, gt_sizes[si].w, gt_sizes[si].h, 3, dtypes[a], 0);
                fill_source(&src, 100 + (uint64_t)k, k & 1);
                GT_OK(gip_copy(ctx, &src, &img));
                ref_convert(&src, &exp, ip[k].scale, ip[k].offset);
                char label[128];
                snprintf(label, sizeof label, "in place %s %lldx%lld scale %g offset %g",
                         gip_dtype_name(dtypes[a]), (long long)gt_sizes[si].w,
                         (long long)gt_sizes[si].h, ip[k].scale, ip[k].offset);
                if (GT_OK(run_in_place(ctx, &img, &ip[k]))) {
                    compare_exact(&img, &exp, label);
                    GT_CHECK(gt_padding_intact(&img), "%s: wrote into the row padding", label);
                }
                gt_free(&img);
                gt_free(&src);
                gt_free(&exp);
            }
}

/* cv2 outputs stored under tests/data/color (see its README): equal, pixel for pixel. */
static void test_cv2(gip_context *ctx)
{
    char path[1024];
    gip_image rgb, src16, halves;
    snprintf(path, sizeof path, "%s/color/astronaut_64x48_rgb.ppm", GIP_TEST_DATA_DIR);
    if (!GT_CHECK(ref_read_pnm(path, &rgb) == 0, "cannot read %s", path))
        return;
    gt_alloc(&src16, rgb.width, rgb.height, 3, GIP_U16, 0);
    gt_alloc(&halves, rgb.width, rgb.height, 3, GIP_F32, 0);
    for (int64_t y = 0; y < rgb.height; y++)
        for (int64_t x = 0; x < rgb.width; x++)
            for (int c = 0; c < 3; c++) {
                double v = gt_get(&rgb, x, y, c);
                gt_set(&src16, x, y, c, v * 257 + (double)((7 * x + 13 * y + 5 * c) % 257));
                gt_set(&halves, x, y, c, (double)((float)v * 0.5f));
            }
    snprintf(path, sizeof path, "%s/color/convert_coeffs.txt", GIP_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    if (!GT_CHECK(f != NULL, "cannot read %s", path))
        goto out_free_inputs;
    char name[256];
    double scale, offset;
    int cases = 0;
    while (fscanf(f, "%255s scale=%la offset=%la", name, &scale, &offset) == 3) {
        const gip_image *src = strstr(name, "u16") ? &src16 : strstr(name, "f32") ? &halves : &rgb;
        gip_image expect, dst;
        snprintf(path, sizeof path, "%s/color/%s", GIP_TEST_DATA_DIR, name);
        if (!GT_CHECK(ref_read_pnm(path, &expect) == 0, "cannot read %s", path))
            continue;
        gt_alloc(&dst, src->width, src->height, 3, GIP_U8, 8);
        coeffs p = {scale, offset};
        if (GT_OK(gt_run_unary(ctx, run_convert, src, &dst, &p, 0x11)))
            gt_compare(&dst, &expect, 0, 0, name);
        gt_free(&dst);
        gt_free(&expect);
        cases++;
    }
    fclose(f);
    GT_CHECK(cases == 4, "convert_coeffs.txt: %d cases read, expected 4", cases);
out_free_inputs:
    gt_free(&halves);
    gt_free(&src16);
    gt_free(&rgb);
}

static void test_bad_inputs(gip_context *ctx)
{
    gip_image src, dst, src4, c32, buf, wide;
    gt_alloc(&src, 16, 8, 3, GIP_U8, 0);
    gt_fill_random(&src, 7, 0, 0);
    gt_alloc(&dst, 16, 8, 3, GIP_F32, 8);
    gt_alloc(&src4, 16, 8, 4, GIP_U8, 0);
    gt_alloc(&c32, 16, 8, 3, GIP_C32, 0);
    gt_alloc(&buf, 16, 9, 3, GIP_U8, 0);
    gt_alloc(&wide, 16, 8, 4, GIP_U16, 0);
    gt_poison(&dst, 0x3C);
    gt_poison(&c32, 0x3C);
    gt_poison(&buf, 0x3C);
    gt_poison(&wide, 0x3C);
    size_t dbytes = (size_t)(dst.stride * dst.height);
    unsigned char *snap = malloc(dbytes);
    if (!snap)
        abort();
    memcpy(snap, dst.data, dbytes);
#define DST_UNCHANGED()                                                                            \
    GT_CHECK(memcmp(snap, dst.data, dbytes) == 0, "line %d: dst was written", __LINE__)

    gip_image v;
    GT_STATUS(gip_convert(NULL, &src, &dst, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();
    GT_STATUS(gip_convert(ctx, NULL, &dst, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();
    GT_STATUS(gip_convert(ctx, &src, NULL, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    v = src, v.data = NULL;
    GT_STATUS(gip_convert(ctx, &v, &dst, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    v = src, v.width = 0;
    GT_STATUS(gip_convert(ctx, &v, &dst, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    v = src, v.height = -3;
    GT_STATUS(gip_convert(ctx, &v, &dst, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    v = src, v.dtype = (gip_dtype)99;
    GT_STATUS(gip_convert(ctx, &v, &dst, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();
    v = src, v.width = 15;
    GT_STATUS(gip_convert(ctx, &v, &dst, 2, 0), GIP_ERR_SHAPE_MISMATCH);
    v = src, v.height = 7;
    GT_STATUS(gip_convert(ctx, &v, &dst, 2, 0), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_convert(ctx, &src4, &dst, 2, 0), GIP_ERR_SHAPE_MISMATCH);
    DST_UNCHANGED();
    GT_STATUS(gip_convert(ctx, &c32, &dst, 2, 0), GIP_ERR_UNSUPPORTED);
    DST_UNCHANGED();
    memcpy(snap, c32.data, 64);
    GT_STATUS(gip_convert(ctx, &src, &c32, 2, 0), GIP_ERR_UNSUPPORTED);
    GT_CHECK(memcmp(snap, c32.data, 64) == 0, "c32 dst was written");
    memcpy(snap, dst.data, dbytes);
    GT_STATUS(gip_convert(ctx, &src, &dst, NAN, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_convert(ctx, &src, &dst, 1, INFINITY), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_convert(ctx, &src, &dst, 1e39, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_convert(ctx, &src, &dst, 1, -1e39), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();
    /* Misaligned f32 elements: data one byte in, and a stride that is not a multiple of 4. */
    v = dst, v.data = (char *)dst.data + 1, v.width = 15;
    gip_image s15 = src;
    s15.width = 15;
    GT_STATUS(gip_convert(ctx, &s15, &v, 2, 0), GIP_ERR_INVALID_ARGUMENT);
    v = dst, v.stride = dst.stride - 2, v.height = 7;
    gip_image s7 = src;
    s7.height = 7;
    GT_STATUS(gip_convert(ctx, &s7, &v, 2, 0), GIP_ERR_INVALID_ARGUMENT);
    DST_UNCHANGED();

    /* Partial overlap: rows 0..7 and rows 1..8 of one buffer; and one buffer seen as u8 and u16. */
    size_t bbytes = (size_t)(buf.stride * buf.height);
    unsigned char *bsnap = malloc(bbytes > 1024 ? bbytes : 1024);
    if (!bsnap)
        abort();
    memcpy(bsnap, buf.data, bbytes);
    gip_image top, bottom;
    GT_OK(gip_image_roi(&buf, 0, 0, 16, 8, &top));
    GT_OK(gip_image_roi(&buf, 0, 1, 16, 8, &bottom));
    GT_STATUS(gip_convert(ctx, &top, &bottom, 2, 0), GIP_ERR_ALIASING);
    GT_STATUS(gip_convert(ctx, &bottom, &top, 2, 0), GIP_ERR_ALIASING);
    GT_CHECK(memcmp(bsnap, buf.data, bbytes) == 0, "overlapping dst was written");
    memcpy(bsnap, wide.data, 1024);
    v = wide, v.dtype = GIP_U8, v.stride = 64;
    GT_STATUS(gip_convert(ctx, &v, &wide, 2, 0), GIP_ERR_ALIASING);
    GT_STATUS(gip_convert(ctx, &wide, &v, 2, 0), GIP_ERR_ALIASING);
    GT_CHECK(memcmp(bsnap, wide.data, 1024) == 0, "aliased dst was written");
    free(bsnap);

    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        /* Host src with a device dst: refused, the device dst keeps its poison. */
        gip_image dd = {0}, back;
        if (GT_OK(gip_image_alloc(ctx, &dd, 16, 8, 3, GIP_F32, GIP_MEM_CUDA, 0))) {
            GT_OK(gip_image_fill_bytes(ctx, &dd, 0x3C));
            GT_STATUS(gip_convert(ctx, &src, &dd, 2, 0), GIP_ERR_LOCATION_MISMATCH);
            gt_alloc(&back, 16, 8, 3, GIP_F32, 8);
            GT_OK(gip_download(ctx, &dd, &back));
            GT_CHECK(memcmp(back.data, snap, dbytes) == 0, "device dst was written");
            gt_free(&back);
            gip_image_free(ctx, &dd);
        }
    } else {
        /* A device view on a CPU context. */
        v = dst, v.memory = GIP_MEM_CUDA;
        GT_STATUS(gip_convert(ctx, &src, &v, 2, 0), GIP_ERR_NO_DEVICE);
        DST_UNCHANGED();
    }
#undef DST_UNCHANGED
    free(snap);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&src4);
    gt_free(&c32);
    gt_free(&buf);
    gt_free(&wide);
}

/* The reference's fused multiply-add itself: cases where rounding twice goes wrong, and random
 * triples against the C library's fmaf. */
static void test_reference(void)
{
    /* (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 lies half-way between two floats: the sign of a tiny c
     * decides, and without it the tie goes to even. */
    float a = 1.0f + 0x1p-12f, up = 1.0f + 0x1p-11f + 0x1p-23f, down = 1.0f + 0x1p-11f;
    GT_CHECK(ref_fma_f32(a, a, 0x1p-60f) == up, "ref_fma_f32: tiny positive c must round up");
    GT_CHECK(ref_fma_f32(a, a, -0x1p-60f) == down, "ref_fma_f32: tiny negative c rounds down");
    GT_CHECK(ref_fma_f32(a, a, 0.0f) == down, "ref_fma_f32: tie not to even");
    GT_CHECK(ref_fma_f32(0.5f, 3.0f, 0.25f) == 1.75f, "ref_fma_f32: exact case");
    uint64_t s = 99;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        float x = (float)((gt_rand_unit(&s) - 0.5) * 70000.0);
        float y = (float)ldexp(gt_rand_unit(&s) + 0.5, (int)(gt_rand_u64(&s) % 20) - 10);
        float z = (float)ldexp(gt_rand_unit(&s) - 0.5, (int)(gt_rand_u64(&s) % 80) - 60);
        if (i % 3 == 0)
            x = floorf(x); /* integer sources, as from u8/u16/s16 */
        bad += ref_fma_f32(x, y, z) != fmaf(x, y, z);
    }
    GT_CHECK(bad == 0, "ref_fma_f32 differs from fmaf on %d of 200000 triples", bad);
}

static void body(gip_context *ctx)
{
    test_reference();
    test_bad_inputs(ctx);
    test_pairs(ctx);
    test_in_place(ctx);
    test_cv2(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "convert", body);
}
