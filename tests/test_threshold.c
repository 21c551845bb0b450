/* SPDX-License-Identifier: MIT */
/* Tests of the thresholds: gip_threshold (every rule, dtype and channel count, thresholds and
 * maxvals out of range, in place), the Otsu and triangle levels against a brute-force search over
 * the pixels, gip_in_range, gip_adaptive_threshold against a reference written here, and bad
 * input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

typedef struct th_args {
    double thresh, maxval;
    int32_t type;
} th_args;

static gip_status run_th(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const th_args *a = p;
    return gip_threshold(ctx, s, d, a->thresh, a->maxval, a->type, NULL);
}

static double sat(gip_dtype dt, double v)
{
    if (dt == GIP_F32)
        return (double)(float)v;
    double lo = dt == GIP_S16 ? -32768 : 0, hi = dt == GIP_U8 ? 255 : dt == GIP_U16 ? 65535 : 32767;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static double rule(int type, double x, double t, double m)
{
    switch (type) {
    case 0:
        return x > t ? m : 0;
    case 1:
        return x > t ? 0 : m;
    case 2:
        return x > t ? t : x;
    case 3:
        return x > t ? x : 0;
    default:
        return x > t ? 0 : x;
    }
}

static void thresholds(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    static const double ts[] = {127.5, -3, 300, 70000, 0.25};
    uint64_t seed = 7;
    for (int s = 0; s < gt_nsizes; s++)
        for (int d = 0; d < 4; d++)
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < 5; k++) {
                    if (!gt_case())
                        continue;
                    gt_size sz = gt_sizes[s];
                    gip_dtype dt = dts[d];
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], dt, k % 2 ? 12 : 0);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], dt, k % 3 ? 4 : 0);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], dt, 0);
                    float hi = dt == GIP_U8 ? 256 : dt == GIP_F32 ? 1 : 66000;
                    float lo = dt == GIP_S16 ? -40000 : dt == GIP_F32 ? -0.5f : 0;
                    gt_fill_random(&src, seed++, lo, hi);
                    double t = dt == GIP_F32 ? ts[k] / 256 : ts[k];
                    double maxval = dt == GIP_F32 ? 0.75 : 200.5 * (dt == GIP_U8 ? 1 : 150);
                    th_args a = {t, maxval, k};
                    /* Integer images: floor(t) and maxval rounded and saturated, as OpenCV. */
                    double tt = dt == GIP_F32 ? (double)(float)t : floor(t);
                    double mm = sat(dt, maxval);
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < chans[c]; ch++) {
                                double v = gt_get(&src, x, y, ch);
                                gt_set(&exp, x, y, ch, sat(dt, rule(k, v, tt, mm)));
                            }
                    char label[128];
                    snprintf(label, sizeof label, "threshold %lldx%lld %s c%d type %d t %g",
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(dt), chans[c], k, t);
                    if (GT_OK(gt_run_unary(ctx, run_th, &src, &dst, &a, 0x3C))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
}

/* The level maximising the between-class variance, searched over the pixels themselves. */
static int brute_otsu(const gip_image *img)
{
    double best = 0;
    int arg = 0;
    double n = (double)(img->width * img->height);
    for (int t = 0; t < 256; t++) {
        double n0 = 0, s0 = 0, s1 = 0;
        for (int64_t y = 0; y < img->height; y++)
            for (int64_t x = 0; x < img->width; x++) {
                double v = gt_get(img, x, y, 0);
                if (v <= t)
                    n0++, s0 += v;
                else
                    s1 += v;
            }
        double n1 = n - n0;
        if (n0 == 0 || n1 == 0)
            continue;
        double m0 = s0 / n0, m1 = s1 / n1;
        double sigma = (n0 / n) * (n1 / n) * (m0 - m1) * (m0 - m1);
        if (sigma > best * (1 + 1e-12)) {
            best = sigma;
            arg = t;
        }
    }
    return arg;
}

static void histogram_levels(gip_context *ctx)
{
    /* Two clusters and a single peak with a long tail on either side. */
    for (int k = 0; k < 4; k++) {
        gip_image src, dst, dev = {0};
        gt_alloc(&src, 301, 97, 1, GIP_U8, 5);
        gt_alloc(&dst, 301, 97, 1, GIP_U8, 0);
        uint64_t st = 100 + k;
        for (int64_t y = 0; y < 97; y++)
            for (int64_t x = 0; x < 301; x++) {
                double u = gt_rand_unit(&st), v = gt_rand_unit(&st);
                double val = k < 2 ? (u < 0.4 ? 60 + 40 * v : 150 + 60 * v * v)
                                   : (k == 2 ? 30 + 200 * u * u * v : 225 - 200 * u * u * v);
                gt_set(&src, x, y, 0, floor(val));
            }
        bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
        const gip_image *in = &src;
        if (cuda) {
            if (!GT_OK(gip_image_alloc(ctx, &dev, 301, 97, 1, GIP_U8, GIP_MEM_CUDA, 0)) ||
                !GT_OK(gip_upload(ctx, &src, &dev)))
                goto out;
            in = &dev;
        }
        double level = -1;
        if (k != 1 && GT_OK(gip_threshold_value(ctx, in, GIP_THRESH_OTSU, &level)))
            GT_CHECK(level == brute_otsu(&src), "otsu case %d: level %g, the search gives %d", k,
                     level, brute_otsu(&src));
        if (k >= 1 && GT_OK(gip_threshold_value(ctx, in, GIP_THRESH_TRIANGLE, &level))) {
            /* The triangle level lies between the histogram's peak and its far end. */
            uint64_t h[256] = {0};
            for (int64_t y = 0; y < 97; y++)
                for (int64_t x = 0; x < 301; x++)
                    h[(int)gt_get(&src, x, y, 0)]++;
            int peak = 0;
            for (int i = 1; i < 256; i++)
                if (h[i] > h[peak])
                    peak = i;
            GT_CHECK(level >= 0 && level <= 255 && level != peak,
                     "triangle case %d: level %g (peak %d)", k, level, peak);
        }
        /* The computed level is the one the rule used. */
        double used = -1;
        th_args a = {0, 255, GIP_THRESH_BINARY | GIP_THRESH_OTSU};
        if (GT_OK(gip_threshold_value(ctx, in, GIP_THRESH_OTSU, &level)) && !cuda &&
            GT_OK(gip_threshold(ctx, &src, &dst, 0, 255, a.type, &used))) {
            GT_CHECK(used == level, "otsu: computed %g, level %g", used, level);
            bool ok = true;
            for (int64_t y = 0; y < 97; y++)
                for (int64_t x = 0; x < 301; x++)
                    ok &= gt_get(&dst, x, y, 0) == (gt_get(&src, x, y, 0) > level ? 255 : 0);
            GT_CHECK(ok, "otsu case %d: the image is not thresholded at the level", k);
        }
    out:
        if (cuda)
            gip_image_free(ctx, &dev);
        gt_free(&src);
        gt_free(&dst);
    }
}

typedef struct range_args {
    double lo[4], hi[4];
} range_args;

static gip_status run_range(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const range_args *r = p;
    return gip_in_range(ctx, s, d, r->lo, r->hi);
}

static void in_range(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    uint64_t seed = 300;
    for (int s = 0; s < gt_nsizes; s++)
        for (int d = 0; d < 4; d++)
            for (int c = 0; c < 3; c++) {
                gt_size sz = gt_sizes[s];
                gip_dtype dt = dts[d];
                gip_image src, dst, exp;
                gt_alloc(&src, sz.w, sz.h, chans[c], dt, 8);
                gt_alloc(&dst, sz.w, sz.h, 1, GIP_U8, 3);
                gt_alloc(&exp, sz.w, sz.h, 1, GIP_U8, 0);
                double scale = dt == GIP_U8 ? 1 : dt == GIP_F32 ? 1.0 / 256 : 200;
                gt_fill_random(&src, seed++, 0, (float)(256 * scale));
                range_args r = {{20.5 * scale, -4, 100 * scale, 0},
                                {200.5 * scale, 180.5 * scale, 1e6, 250 * scale}};
                double lo[4], hi[4];
                for (int k = 0; k < 4; k++) {
                    lo[k] = dt == GIP_F32 ? (double)(float)r.lo[k] : sat(dt, r.lo[k]);
                    hi[k] = dt == GIP_F32 ? (double)(float)r.hi[k] : sat(dt, r.hi[k]);
                }
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++) {
                        bool in = true;
                        for (int32_t ch = 0; ch < chans[c]; ch++) {
                            double v = gt_get(&src, x, y, ch);
                            in &= lo[ch] <= v && v <= hi[ch];
                        }
                        gt_set(&exp, x, y, 0, in ? 255 : 0);
                    }
                char label[96];
                snprintf(label, sizeof label, "in_range %lldx%lld %s c%d", (long long)sz.w,
                         (long long)sz.h, gip_dtype_name(dt), chans[c]);
                if (GT_OK(gt_run_unary(ctx, run_range, &src, &dst, &r, 0x3C))) {
                    gt_compare(&dst, &exp, 0, 0, label);
                    GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                }
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
}

typedef struct adapt_args {
    int32_t block, type;
    double c, maxval;
} adapt_args;

static gip_status run_adapt(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const adapt_args *a = p;
    return gip_adaptive_threshold(ctx, s, d, a->maxval, GIP_ADAPTIVE_MEAN, (gip_thresh_type)a->type,
                                  a->block, a->c);
}

static int64_t clampi(int64_t v, int64_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* The mean method: the u8 box mean with replicated borders (the block's sum times the single
 * precision 1 / area, rounded half to even), then the rule with OpenCV's rounded delta. */
static void adaptive_mean(gip_context *ctx)
{
    static const int32_t blocks[] = {3, 5, 11, 31};
    uint64_t seed = 500;
    for (int s = 0; s < gt_nsizes; s++)
        for (int b = 0; b < 4; b++)
            for (int type = 0; type < 2; type++) {
                gt_size sz = gt_sizes[s];
                if (sz.w * sz.h > 100000 && b != 1)
                    continue;
                gip_image src, dst, exp;
                gt_alloc(&src, sz.w, sz.h, 1, GIP_U8, 7);
                gt_alloc(&dst, sz.w, sz.h, 1, GIP_U8, 0);
                gt_alloc(&exp, sz.w, sz.h, 1, GIP_U8, 0);
                gt_fill_random(&src, seed++, 0, 256);
                adapt_args a = {blocks[b], type, type ? -2.5 : 3.2, 200.4};
                const int r = blocks[b] / 2;
                const float inv = 1.0f / (float)(blocks[b] * blocks[b]);
                double delta = type ? floor(a.c) : ceil(a.c);
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++) {
                        int64_t sum = 0;
                        for (int dy = -r; dy <= r; dy++)
                            for (int dx = -r; dx <= r; dx++)
                                sum += (int64_t)gt_get(&src, clampi(x + dx, sz.w),
                                                       clampi(y + dy, sz.h), 0);
                        double mean = nearbyint((double)((float)sum * inv));
                        double d = gt_get(&src, x, y, 0) - mean;
                        bool on = type ? d <= -delta : d > -delta;
                        gt_set(&exp, x, y, 0, on ? 200 : 0);
                    }
                char label[96];
                snprintf(label, sizeof label, "adaptive mean %lldx%lld block %d type %d",
                         (long long)sz.w, (long long)sz.h, blocks[b], type);
                if (GT_OK(gt_run_unary(ctx, run_adapt, &src, &dst, &a, 0x3C)))
                    gt_compare(&dst, &exp, 0, 0, label);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
}

static void bad_inputs(gip_context *ctx)
{
    gip_image src, dst, d16, small, rgb, f32;
    gt_alloc(&src, 20, 10, 1, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 1, GIP_U8, 0);
    gt_alloc(&d16, 20, 10, 1, GIP_U16, 0);
    gt_alloc(&small, 20, 9, 1, GIP_U8, 0);
    gt_alloc(&rgb, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&f32, 20, 10, 1, GIP_F32, 0);
    gt_poison(&dst, 0x5A);
    double t = 0, lo[4] = {0}, hi[4] = {255};
    GT_STATUS(gip_threshold(NULL, &src, &dst, 1, 2, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, NULL, &dst, 1, 2, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, &src, NULL, 1, 2, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, &src, &dst, 1, 2, 5, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, &src, &dst, 1, 2, 32, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, &src, &dst, NAN, 2, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, &src, &dst, 1, INFINITY, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold(ctx, &src, &d16, 1, 2, 0, NULL), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_threshold(ctx, &src, &small, 1, 2, 0, NULL), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_threshold(ctx, &f32, &f32, 0, 1, GIP_THRESH_OTSU, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_threshold(ctx, &rgb, &rgb, 0, 1, GIP_THRESH_TRIANGLE, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_threshold_value(ctx, &src, 0, &t), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_threshold_value(ctx, &src, GIP_THRESH_OTSU, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_in_range(ctx, &src, &dst, NULL, hi), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_in_range(ctx, &src, &d16, lo, hi), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_in_range(ctx, &rgb, &rgb, lo, hi), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_in_range(ctx, &src, &src, lo, hi), GIP_ERR_ALIASING);
    GT_STATUS(gip_adaptive_threshold(ctx, &src, &dst, 255, GIP_ADAPTIVE_MEAN, 0, 4, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_adaptive_threshold(ctx, &src, &dst, 255, GIP_ADAPTIVE_MEAN, 0, 1, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_adaptive_threshold(ctx, &src, &dst, 255, (gip_adaptive_method)2, 0, 3, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(
        gip_adaptive_threshold(ctx, &src, &dst, 255, GIP_ADAPTIVE_MEAN, GIP_THRESH_TRUNC, 3, 0),
        GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_adaptive_threshold(ctx, &src, &src, 255, GIP_ADAPTIVE_MEAN, 0, 3, 0),
              GIP_ERR_ALIASING);
    GT_STATUS(gip_adaptive_threshold(ctx, &rgb, &rgb, 255, GIP_ADAPTIVE_MEAN, 0, 3, 0),
              GIP_ERR_ALIASING);
    GT_STATUS(gip_adaptive_threshold(ctx, &f32, &f32, 255, GIP_ADAPTIVE_MEAN, 0, 3, 0),
              GIP_ERR_UNSUPPORTED);
    bool untouched = true;
    for (int64_t i = 0; i < 200; i++)
        untouched &= ((uint8_t *)dst.data)[i] == 0x5A;
    GT_CHECK(untouched, "thresholds: a refused call wrote into dst");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&d16);
    gt_free(&small);
    gt_free(&rgb);
    gt_free(&f32);
}

static void body(gip_context *ctx)
{
    thresholds(ctx);
    histogram_levels(ctx);
    in_range(ctx);
    adaptive_mean(ctx);
    bad_inputs(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "threshold", body);
}
