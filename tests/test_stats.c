/* SPDX-License-Identifier: MIT */
/* The statistics family: equalize_hist and clahe (through the registry) against references
 * written here from OpenCV's rules; gip_calc_hist and the reductions (minMaxLoc, mean,
 * meanStdDev, sum, countNonZero, norm, PSNR) against exact or long double references on every
 * dtype, channel count, awkward size and padded stride, with and without a mask; on CUDA the
 * same results (integers exactly, f32 within the stated tolerance), the same every run, and equal
 * to a CPU context's; bad input refused with outputs untouched. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};

/* f32 sums: the backends add the same doubles in different orders. Relative to the sum of
 * magnitudes, a few hundred units of double rounding at these sizes. */
#define F32_RTOL 1e-12

static bool on_cuda(gip_context *ctx)
{
    return gip_context_backend(ctx) == GIP_BACKEND_CUDA;
}

/* A view of host image h where the context computes: h itself on the CPU, an uploaded copy with
 * h's stride on CUDA (freed by release()). */
static gip_image place(gip_context *ctx, const gip_image *h)
{
    if (!h || !on_cuda(ctx))
        return h ? *h : (gip_image){0};
    gip_image d;
    if (!GT_OK(
            gip_image_alloc(ctx, &d, h->width, h->height, h->channels, h->dtype, GIP_MEM_CUDA, 0)))
        abort();
    GT_OK(gip_upload(ctx, h, &d));
    return d;
}

static void release(gip_context *ctx, gip_image *d)
{
    if (on_cuda(ctx) && d->data)
        gip_image_free(ctx, d);
}

/* ---- equalize_hist and clahe ------------------------------------------------------------- */

static gip_args *args_for(const char *name)
{
    const gip_op *op = gip_op_find(name);
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "%s is not registered", name) || !GT_OK(gip_args_create(op, &a)))
        return NULL;
    return a;
}

static void equalize_ref(const gip_image *src, gip_image *exp)
{
    int64_t hist[256] = {0}, total = src->width * src->height;
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            hist[(int)gt_get(src, x, y, 0)]++;
    uint8_t lut[256] = {0};
    int i = 0;
    while (!hist[i])
        i++;
    if (hist[i] == total) {
        memset(lut, i, 256);
    } else {
        float scale = 255.0f / (float)(total - hist[i]);
        int64_t sum = 0;
        for (int k = i + 1; k < 256; k++) {
            sum += hist[k];
            float v = (float)sum * scale;
            lut[k] = (uint8_t)fminf(255.0f, rintf(v));
        }
    }
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            gt_set(exp, x, y, 0, lut[(int)gt_get(src, x, y, 0)]);
}

static int64_t refl(int64_t p, int64_t n)
{
    if (n == 1)
        return 0;
    while (p < 0 || p >= n)
        p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

/* CLAHE written from OpenCV's description: one table per tile of the image extended by
 * reflect101, bilinear weights between tile centres in float. */
static void clahe_ref(const gip_image *src, gip_image *exp, double clip, int tx, int ty)
{
    const int64_t w = src->width, h = src->height;
    const int n = src->dtype == GIP_U8 ? 256 : 65536;
    int64_t tw = w / tx, th = h / ty;
    if (w % tx || h % ty) {
        tw = (w + tx - w % tx) / tx;
        th = (h + ty - h % ty) / ty;
    }
    const int64_t area = tw * th;
    int limit = 0;
    if (clip > 0) {
        limit = (int)(clip * (double)area / n);
        limit = limit < 1 ? 1 : limit;
    }
    const float scale = (float)(n - 1) / (float)area;
    float *lut = malloc(sizeof(float) * (size_t)tx * ty * n);
    int *hist = malloc(sizeof(int) * (size_t)n);
    for (int t = 0; t < tx * ty; t++) {
        memset(hist, 0, sizeof(int) * (size_t)n);
        for (int64_t y = (t / tx) * th; y < (t / tx + 1) * th; y++)
            for (int64_t x = (t % tx) * tw; x < (t % tx + 1) * tw; x++)
                hist[(int)gt_get(src, refl(x, w), refl(y, h), 0)]++;
        if (limit) {
            int clipped = 0;
            for (int i = 0; i < n; i++)
                if (hist[i] > limit) {
                    clipped += hist[i] - limit;
                    hist[i] = limit;
                }
            int batch = clipped / n, residual = clipped % n;
            for (int i = 0; i < n; i++)
                hist[i] += batch;
            if (residual) {
                int step = n / residual > 1 ? n / residual : 1;
                for (int i = 0; i < n && residual > 0; i += step, residual--)
                    hist[i]++;
            }
        }
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += hist[i];
            lut[(size_t)t * n + i] = fminf((float)(n - 1), rintf((float)sum * scale));
        }
    }
    for (int64_t y = 0; y < h; y++) {
        float fy = (float)y * (1.0f / (float)th) - 0.5f;
        int y1 = (int)floorf(fy), y2 = y1 + 1;
        float ya = fy - (float)y1;
        y1 = y1 < 0 ? 0 : y1;
        y2 = y2 > ty - 1 ? ty - 1 : y2;
        for (int64_t x = 0; x < w; x++) {
            float fx = (float)x * (1.0f / (float)tw) - 0.5f;
            int x1 = (int)floorf(fx), x2 = x1 + 1;
            float xa = fx - (float)x1;
            x1 = x1 < 0 ? 0 : x1;
            x2 = x2 > tx - 1 ? tx - 1 : x2;
            int v = (int)gt_get(src, x, y, 0);
#define L(r, c) lut[((size_t)(r)*tx + (c)) * n + v]
            float res = (L(y1, x1) * (1.0f - xa) + L(y1, x2) * xa) * (1.0f - ya) +
                        (L(y2, x1) * (1.0f - xa) + L(y2, x2) * xa) * ya;
#undef L
            gt_set(exp, x, y, 0, rintf(res));
        }
    }
    free(lut);
    free(hist);
}

static void image_ops(gip_context *ctx)
{
    static const char *const grids[] = {"8", "3x5", "1", "11x2"};
    static const char *const clips[] = {"40", "2", "0", "1"};
    uint64_t seed = 11;
    for (int s = 0; s < gt_nsizes; s++)
        for (int dt = 0; dt < 2; dt++)
            for (int k = 0; k < 4; k++, seed++) {
                if (!gt_case())
                    continue;
                const gt_size sz = gt_sizes[s];
                const gip_dtype d = dt ? GIP_U16 : GIP_U8;
                gip_image src, dst, exp;
                gt_alloc(&src, sz.w, sz.h, 1, d, seed % 3 ? 0 : 7);
                gt_alloc(&dst, sz.w, sz.h, 1, d, seed % 2 ? 0 : 6);
                gt_alloc(&exp, sz.w, sz.h, 1, d, 0);
                gt_fill_random(&src, seed, 0, 0);
                if (k == 1) /* a narrow band of levels, as a dark photograph */
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            gt_set(&src, x, y, 0, 40 + fmod(gt_get(&src, x, y, 0), 23));
                char label[128];
                if (d == GIP_U8 && k < 2) {
                    gip_args *a = args_for("equalize_hist");
                    equalize_ref(&src, &exp);
                    snprintf(label, sizeof label, "equalize_hist %lldx%lld", (long long)sz.w,
                             (long long)sz.h);
                    if (a && GT_OK(gt_run_op(ctx, a, &src, NULL, 0, &dst, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gip_args_free(a);
                }
                gip_args *a = args_for("clahe");
                if (a && GT_OK(gip_args_set_text(a, "clip_limit", clips[k])) &&
                    GT_OK(gip_args_set_text(a, "tiles", grids[k]))) {
                    int tx = 8, ty = 8;
                    if (k == 1)
                        tx = 3, ty = 5;
                    else if (k == 2)
                        tx = ty = 1;
                    else if (k == 3)
                        tx = 11, ty = 2;
                    clahe_ref(&src, &exp, atof(clips[k]), tx, ty);
                    snprintf(label, sizeof label, "clahe %s %lldx%lld clip %s tiles %s",
                             gip_dtype_name(d), (long long)sz.w, (long long)sz.h, clips[k],
                             grids[k]);
                    if (GT_OK(gt_run_op(ctx, a, &src, NULL, 0, &dst, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                }
                gip_args_free(a);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
}

/* equalizeHist on views of device-allocated (padded, 16-byte aligned) images: rows of whole
 * 16-byte groups, groups and a rest, the rest alone, one pixel, several histogram blocks; views
 * one pixel in (not aligned); in place; flat images (one level: 0, 200 or 255). */
static void equalize_views(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{64, 5}, {37, 11}, {3, 20}, {1, 1}, {1000, 40}};
    uint64_t seed = 1200;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int sub = 0; sub < 2; sub++)
            for (int mode = 0; mode < 5; mode++, seed++) {
                if (!gt_case())
                    continue;
                /* mode 0: random; 1: in place; 2, 3, 4: one level (0, 200, 255) */
                const int64_t w = sizes[z][0], h = sizes[z][1];
                gip_image a, o, av, ov, exp, got;
                gt_alloc(&a, w + 1, h, 1, GIP_U8, 0);
                gt_alloc(&o, w + 1, h, 1, GIP_U8, 0);
                gt_alloc(&exp, w, h, 1, GIP_U8, 0);
                gt_alloc(&got, w, h, 1, GIP_U8, 0);
                gt_fill_random(&a, seed, 0, 0);
                if (mode >= 2)
                    for (int64_t y = 0; y < h; y++)
                        for (int64_t x = 0; x <= w; x++)
                            gt_set(&a, x, y, 0, mode == 2 ? 0 : mode == 3 ? 200 : 255);
                gt_poison(&o, 0x5A);
                gip_image da = place(ctx, &a), dout = place(ctx, &o);
                char label[128];
                snprintf(label, sizeof label, "equalize_hist view %lldx%lld%s%s mode %d",
                         (long long)w, (long long)h, sub ? " (unaligned)" : "",
                         mode == 1 ? " in place" : "", mode);
                if (GT_OK(gip_image_roi(&da, sub, 0, w, h, &av)) &&
                    GT_OK(gip_image_roi(&dout, sub, 0, w, h, &ov))) {
                    gip_image hv;
                    GT_OK(gip_image_roi(&a, sub, 0, w, h, &hv));
                    equalize_ref(&hv, &exp);
                    gip_image *dst = mode == 1 ? &av : &ov;
                    if (GT_OK(gip_equalize_hist(ctx, &av, dst))) {
                        if (on_cuda(ctx))
                            GT_OK(gip_download(ctx, dst, &got));
                        else
                            GT_OK(gip_copy(ctx, dst, &got));
                        gt_compare(&got, &exp, 0, 0, label);
                        if (mode != 1 && on_cuda(ctx))
                            GT_OK(gip_download(ctx, &dout, &o));
                        if (mode != 1)
                            for (int64_t y = 0; y < h; y++) /* the column outside the view */
                                GT_CHECK(gt_get(&o, sub ? 0 : w, y, 0) == 0x5A,
                                         "%s: written outside dst", label);
                    }
                }
                release(ctx, &da);
                release(ctx, &dout);
                gt_free(&a);
                gt_free(&o);
                gt_free(&exp);
                gt_free(&got);
            }
}

/* ---- reductions -------------------------------------------------------------------------- */

typedef struct ref_stats {
    long double sum[4], sq[4], abs[4];
    double mn[4], mx[4];
    int64_t imn[4], imx[4], nz[4], count;
} ref_stats;

static void ref_reduce(const gip_image *a, const gip_image *b, const gip_image *m, ref_stats *r)
{
    memset(r, 0, sizeof *r);
    for (int c = 0; c < 4; c++) {
        r->mn[c] = HUGE_VAL;
        r->mx[c] = -HUGE_VAL;
        r->imn[c] = r->imx[c] = -1;
    }
    for (int64_t y = 0; y < a->height; y++)
        for (int64_t x = 0; x < a->width; x++) {
            if (m && !gt_get(m, x, y, 0))
                continue;
            r->count++;
            for (int c = 0; c < a->channels; c++) {
                double v = gt_get(a, x, y, c);
                if (b)
                    v = a->dtype == GIP_F32 ? (double)((float)v - (float)gt_get(b, x, y, c))
                                            : v - gt_get(b, x, y, c);
                r->sum[c] += v;
                r->sq[c] += (long double)v * v;
                r->abs[c] += fabs(v);
                r->nz[c] += v != 0;
                if (v < r->mn[c])
                    r->mn[c] = v, r->imn[c] = y * a->width + x;
                if (v > r->mx[c])
                    r->mx[c] = v, r->imx[c] = y * a->width + x;
            }
        }
}

/* got == exp for integer sources, else within F32_RTOL of scale (the sum of magnitudes). */
static bool near(double got, long double exp, long double scale, bool fl)
{
    if (!fl)
        return got == (double)exp;
    return fabsl((long double)got - exp) <= F32_RTOL * (scale + 1.0L);
}

static void reduce_case(gip_context *ctx, gip_context *cpu, const gip_image *a, const gip_image *b,
                        const gip_image *m, const char *label)
{
    const bool fl = a->dtype == GIP_F32;
    ref_stats r;
    ref_reduce(a, NULL, m, &r);
    gip_image da = place(ctx, a), db = place(ctx, b), dm = place(ctx, m);
    const gip_image *pm = m ? &dm : NULL;
    double mean[4], sd[4], sum[4];
    if (GT_OK(gip_mean_std_dev(ctx, &da, pm, mean, sd))) {
        for (int c = 0; c < a->channels; c++) {
            long double em = r.count ? r.sum[c] / r.count : 0;
            long double var = r.count ? r.sq[c] / r.count - em * em : 0;
            long double es = sqrtl(var > 0 ? var : 0);
            long double mag = r.count ? r.abs[c] / r.count : 0;
            GT_CHECK(fabsl(mean[c] - em) <= 1e-12L * (mag + 1),
                     "%s: mean[%d] %.17g, expected %.17Lg", label, c, mean[c], em);
            GT_CHECK(fabsl(sd[c] - es) <= 1e-6L * (mag + 1), "%s: std[%d] %.17g, expected %.17Lg",
                     label, c, sd[c], es);
        }
        double mean2[4];
        if (GT_OK(gip_mean(ctx, &da, pm, mean2)))
            GT_CHECK(memcmp(mean, mean2, sizeof mean) == 0,
                     "%s: gip_mean differs from "
                     "gip_mean_std_dev's mean",
                     label);
    }
    if (!m && GT_OK(gip_sum(ctx, &da, sum)))
        for (int c = 0; c < 4; c++)
            GT_CHECK(c < a->channels ? near(sum[c], r.sum[c], r.abs[c], fl) : sum[c] == 0,
                     "%s: sum[%d] %.17g, expected %.17Lg", label, c, sum[c],
                     c < a->channels ? r.sum[c] : 0.0L);
    if (a->channels == 1) {
        double mn = 7, mx = 7;
        int64_t lmn[2] = {7, 7}, lmx[2] = {7, 7};
        if (GT_OK(gip_min_max_loc(ctx, &da, pm, &mn, &mx, lmn, lmx))) {
            bool none = r.imn[0] < 0;
            GT_CHECK(mn == (none ? 0 : r.mn[0]) && mx == (none ? 0 : r.mx[0]),
                     "%s: min/max %g %g, expected %g %g", label, mn, mx, none ? 0 : r.mn[0],
                     none ? 0 : r.mx[0]);
            GT_CHECK(lmn[0] == (none ? -1 : r.imn[0] % a->width) &&
                         lmn[1] == (none ? -1 : r.imn[0] / a->width) &&
                         lmx[0] == (none ? -1 : r.imx[0] % a->width) &&
                         lmx[1] == (none ? -1 : r.imx[0] / a->width),
                     "%s: locations (%lld,%lld) (%lld,%lld)", label, (long long)lmn[0],
                     (long long)lmn[1], (long long)lmx[0], (long long)lmx[1]);
        }
        int64_t nz = -1;
        if (!m && GT_OK(gip_count_non_zero(ctx, &da, &nz)))
            GT_CHECK(nz == r.nz[0], "%s: countNonZero %lld, expected %lld", label, (long long)nz,
                     (long long)r.nz[0]);
    }
    /* Norms of a and of a - b. */
    for (int withb = 0; withb < 2; withb++) {
        ref_stats q;
        ref_reduce(a, withb ? b : NULL, m, &q);
        long double inf = 0, l1 = 0, l2 = 0;
        for (int c = 0; c < a->channels; c++) {
            if (q.imn[c] >= 0)
                inf = fmaxl(inf, fmaxl(fabsl(q.mn[c]), fabsl(q.mx[c])));
            l1 += q.abs[c];
            l2 += q.sq[c];
        }
        double v;
        const gip_image *pb = withb ? &db : NULL;
        if (GT_OK(gip_norm(ctx, &da, pb, GIP_NORM_INF, pm, &v)))
            GT_CHECK(v == (double)inf, "%s: NORM_INF%s %.17g, expected %.17Lg", label,
                     withb ? " diff" : "", v, inf);
        if (GT_OK(gip_norm(ctx, &da, pb, GIP_NORM_L1, pm, &v)))
            GT_CHECK(near(v, l1, l1, fl), "%s: NORM_L1%s %.17g, expected %.17Lg", label,
                     withb ? " diff" : "", v, l1);
        if (GT_OK(gip_norm(ctx, &da, pb, GIP_NORM_L2, pm, &v)))
            GT_CHECK(fl ? fabsl(v - sqrtl(l2)) <= 1e-12L * (sqrtl(l2) + 1) : v == sqrt((double)l2),
                     "%s: NORM_L2%s %.17g, expected %.17Lg", label, withb ? " diff" : "", v,
                     sqrtl(l2));
        if (withb && !m) {
            double p;
            if (GT_OK(gip_psnr(ctx, &da, &db, 0, &p))) {
                long double n = (long double)a->width * a->height * a->channels;
                long double e = 20 * log10l(255.0L / (sqrtl(l2 / n) + DBL_EPSILON));
                GT_CHECK(fabsl(p - e) <= 1e-9L, "%s: PSNR %.17g, expected %.17Lg", label, p, e);
            }
        }
    }
    /* CUDA: the same result every run, integers equal to the CPU's, f32 within tolerance. */
    if (cpu) {
        double m1[4], s1[4], m2[4], s2[4], m3[4], s3[4];
        if (GT_OK(gip_mean_std_dev(ctx, &da, pm, m1, s1)) &&
            GT_OK(gip_mean_std_dev(ctx, &da, pm, m2, s2)) &&
            GT_OK(gip_mean_std_dev(cpu, a, m, m3, s3))) {
            GT_CHECK(memcmp(m1, m2, sizeof m1) == 0 && memcmp(s1, s2, sizeof s1) == 0,
                     "%s: two CUDA runs differ", label);
            for (int c = 0; c < a->channels; c++)
                GT_CHECK(fl ? fabs(m1[c] - m3[c]) <= 1e-12 * (fabs(m3[c]) + 1) &&
                                  fabs(s1[c] - s3[c]) <= 1e-6 * (fabs(s3[c]) + 1)
                            : m1[c] == m3[c] && s1[c] == s3[c],
                         "%s: CUDA mean/std [%d] %.17g %.17g, CPU %.17g %.17g", label, c, m1[c],
                         s1[c], m3[c], s3[c]);
        }
    }
    release(ctx, &da);
    release(ctx, &db);
    release(ctx, &dm);
}

static void reductions(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (on_cuda(ctx)) {
        gip_context_desc desc = {.backend = GIP_BACKEND_CPU};
        GT_OK(gip_context_create(&desc, &cpu));
    }
    static const int32_t chans[] = {1, 3, 4};
    uint64_t seed = 100;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < 4; d++)
            for (size_t c = 0; c < 3; c++)
                for (int masked = 0; masked < 3; masked++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    gip_image a, b, m;
                    gt_alloc(&a, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 9);
                    gt_alloc(&b, sz.w, sz.h, chans[c], dtypes[d], seed % 2 ? 0 : 4);
                    gt_alloc(&m, sz.w, sz.h, 1, GIP_U8, 3);
                    gt_fill_random(&a, seed, -1000.0f, 1000.0f);
                    gt_fill_random(&b, seed + 7, -1000.0f, 1000.0f);
                    gt_fill_random(&m, seed + 3, 0, 0);
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++) {
                            /* masked 1: about a third of the pixels; 2: none */
                            double v = masked == 2 ? 0 : gt_get(&m, x, y, 0) < 85 ? 255 : 0;
                            gt_set(&m, x, y, 0, v);
                            if ((x * 7 + y) % 5 == 0) /* zeros and repeated extremes */
                                gt_set(&a, x, y, 0, 0);
                        }
                    char label[128];
                    snprintf(label, sizeof label, "%lldx%lld %s c%d mask %d", (long long)sz.w,
                             (long long)sz.h, gip_dtype_name(dtypes[d]), (int)chans[c], masked);
                    reduce_case(ctx, cpu, &a, &b, masked ? &m : NULL, label);
                    gt_free(&a);
                    gt_free(&b);
                    gt_free(&m);
                }
    gip_context_destroy(cpu);
}

/* Views whose rows are not 16-byte aligned (the CUDA kernels' vector paths take aligned rows
 * only) and a tall one-pixel-wide view: the results of the whole image's reduction on the view
 * equal the CPU's on the same pixels (integers exactly, f32 within tolerance), positions
 * included. */
static void reduce_views(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (on_cuda(ctx)) {
        gip_context_desc desc = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&desc, &cpu)))
            return;
    }
    static const struct {
        gip_dtype dt;
        int32_t cn;
    } kinds[] = {{GIP_U8, 1}, {GIP_U8, 3}, {GIP_U8, 4}, {GIP_F32, 1}};
    static const int64_t rects[][4] = {{1, 0, 66, 9}, {3, 2, 40, 5}, {5, 1, 1, 8}};
    uint64_t seed = 900;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t r = 0; r < sizeof rects / sizeof rects[0]; r++, seed++) {
            if (!gt_case())
                continue;
            gip_image h, hv, dv;
            gt_alloc(&h, 67, 10, kinds[k].cn, kinds[k].dt, 0);
            gt_fill_random(&h, seed, -1000.0f, 1000.0f);
            for (int64_t y = 0; y < 10; y++)
                for (int64_t x = 0; x < 67; x++)
                    if ((x * 3 + y) % 7 == 0) /* zeros and repeated extremes */
                        gt_set(&h, x, y, 0, 0);
            gip_image d = place(ctx, &h);
            const int64_t *q = rects[r];
            char label[96];
            snprintf(label, sizeof label, "view %lld,%lld %lldx%lld of %s c%d", (long long)q[0],
                     (long long)q[1], (long long)q[2], (long long)q[3], gip_dtype_name(kinds[k].dt),
                     (int)kinds[k].cn);
            if (GT_OK(gip_image_roi(&h, q[0], q[1], q[2], q[3], &hv)) &&
                GT_OK(gip_image_roi(&d, q[0], q[1], q[2], q[3], &dv))) {
                ref_stats e;
                ref_reduce(&hv, NULL, NULL, &e);
                double mean[4], sd[4];
                const bool fl = kinds[k].dt == GIP_F32;
                if (GT_OK(gip_mean_std_dev(ctx, &dv, NULL, mean, sd)))
                    for (int c = 0; c < kinds[k].cn; c++) {
                        long double em = e.sum[c] / e.count, mag = e.abs[c] / e.count;
                        GT_CHECK(fabsl(mean[c] - em) <= 1e-12L * (mag + 1),
                                 "%s: mean[%d] %.17g, expected %.17Lg", label, c, mean[c], em);
                    }
                if (cpu) {
                    double m2[4], s2[4];
                    if (GT_OK(gip_mean_std_dev(cpu, &hv, NULL, m2, s2)) &&
                        GT_OK(gip_mean_std_dev(ctx, &dv, NULL, mean, sd)))
                        for (int c = 0; c < kinds[k].cn; c++)
                            GT_CHECK(fl ? fabs(mean[c] - m2[c]) <= 1e-12 * (fabs(m2[c]) + 1) &&
                                              fabs(sd[c] - s2[c]) <= 1e-6 * (fabs(s2[c]) + 1)
                                        : mean[c] == m2[c] && sd[c] == s2[c],
                                     "%s: CUDA mean/std [%d] %.17g %.17g, CPU %.17g %.17g", label,
                                     c, mean[c], sd[c], m2[c], s2[c]);
                }
                double mn[4], mx[4];
                if (GT_OK(gip_channel_min_max(ctx, &dv, NULL, mn, mx)))
                    for (int c = 0; c < kinds[k].cn; c++)
                        GT_CHECK(mn[c] == e.mn[c] && mx[c] == e.mx[c],
                                 "%s: channel %d min/max %g %g, expected %g %g", label, c, mn[c],
                                 mx[c], e.mn[c], e.mx[c]);
                if (kinds[k].cn == 1) {
                    double a, b;
                    int64_t la[2], lb[2], nz;
                    if (GT_OK(gip_min_max_loc(ctx, &dv, NULL, &a, &b, la, lb)))
                        GT_CHECK(a == e.mn[0] && b == e.mx[0] && la[1] * q[2] + la[0] == e.imn[0] &&
                                     lb[1] * q[2] + lb[0] == e.imx[0],
                                 "%s: minMaxLoc %g (%lld,%lld) %g (%lld,%lld), expected %g at "
                                 "%lld, %g at %lld",
                                 label, a, (long long)la[0], (long long)la[1], b, (long long)lb[0],
                                 (long long)lb[1], e.mn[0], (long long)e.imn[0], e.mx[0],
                                 (long long)e.imx[0]);
                    if (GT_OK(gip_count_non_zero(ctx, &dv, &nz)))
                        GT_CHECK(nz == e.nz[0], "%s: countNonZero %lld, expected %lld", label,
                                 (long long)nz, (long long)e.nz[0]);
                }
            }
            release(ctx, &d);
            gt_free(&h);
        }
    gip_context_destroy(cpu);
}

/* On CUDA: gip_calc_hist into a histogram in device memory (the floats `init` uploaded first,
 * for accumulate), the context synchronised, the histogram downloaded into got. False (got
 * unchanged) on the CPU or after a failed step. */
static bool hist_on_device(gip_context *ctx, const gip_image *src, const gip_image *mask,
                           const gip_calc_hist_params *p, const float *init, int64_t total,
                           float *got)
{
    if (!on_cuda(ctx))
        return false;
    gip_image hi, ho, d;
    float *out = malloc(sizeof(float) * total);
    bool ok = out &&
              GT_OK(gip_image_wrap(&hi, (void *)init, total, 1, 1, GIP_F32, 0, GIP_MEM_HOST, 0)) &&
              GT_OK(gip_image_wrap(&ho, out, total, 1, 1, GIP_F32, 0, GIP_MEM_HOST, 0));
    if (!ok || !GT_OK(gip_image_alloc(ctx, &d, total, 1, 1, GIP_F32, GIP_MEM_CUDA, 0))) {
        free(out);
        return false;
    }
    ok = GT_OK(gip_upload(ctx, &hi, &d)) && GT_OK(gip_calc_hist(ctx, src, mask, p, d.data)) &&
         GT_OK(gip_context_sync(ctx)) && GT_OK(gip_download(ctx, &d, &ho));
    if (ok)
        memcpy(got, out, sizeof(float) * total);
    gip_image_free(ctx, &d);
    free(out);
    return ok;
}

/* 256-bin histograms of every channel of u8 images of 1, 3 and 4 channels (the CUDA counter's
 * one-channel fast path: rows of whole 16-byte groups, groups and the rest, the rest alone, and
 * views whose rows are not 16-byte aligned) against counts made here. */
static void hist_u8_channels(gip_context *ctx)
{
    static const int32_t chans[] = {1, 3, 4};
    static const int64_t sizes[][2] = {{64, 5}, {37, 11}, {3, 20}, {1, 1}};
    uint64_t seed = 950;
    for (size_t c = 0; c < 3; c++)
        for (size_t z = 0; z < 4; z++)
            for (int sub = 0; sub < 2; sub++, seed++) {
                if (!gt_case())
                    continue;
                const int32_t cn = chans[c];
                const int64_t w = sizes[z][0], h = sizes[z][1];
                gip_image a, av, dv;
                gt_alloc(&a, w + 1, h, cn, GIP_U8, 0);
                gt_fill_random(&a, seed, 0, 0);
                if (z == 0) /* a flat run: many counts in one bin */
                    for (int64_t x = 0; x < w; x++)
                        gt_set(&a, x, 1, 0, 7);
                gip_image d = place(ctx, &a);
                if (GT_OK(gip_image_roi(&a, sub, 0, w, h, &av)) &&
                    GT_OK(gip_image_roi(&d, sub, 0, w, h, &dv)))
                    for (int32_t ch = 0; ch < cn; ch++) {
                        float got[256], exp[256] = {0};
                        float range[2] = {0, 256};
                        gip_calc_hist_params p = {
                            .dims = 1, .bins = {256}, .channels = {ch}, .ranges = {range}};
                        for (int64_t y = 0; y < h; y++)
                            for (int64_t x = 0; x < w; x++)
                                exp[(int)gt_get(&av, x, y, ch)] += 1;
                        if (GT_OK(gip_calc_hist(ctx, &dv, NULL, &p, got))) {
                            int bad = -1;
                            for (int i = 0; i < 256 && bad < 0; i++)
                                if (got[i] != exp[i])
                                    bad = i;
                            GT_CHECK(bad < 0,
                                     "calcHist u8 c%d channel %d %lldx%lld%s: bin %d is %g, "
                                     "expected %g",
                                     (int)cn, (int)ch, (long long)w, (long long)h,
                                     sub ? " (unaligned view)" : "", bad, bad < 0 ? 0 : got[bad],
                                     bad < 0 ? 0 : exp[bad]);
                        }
                        /* CUDA: the same into device memory, then accumulated on top of odd
                         * values (half-way ones round to even first) */
                        float init[256], acc[256];
                        for (int i = 0; i < 256; i++)
                            init[i] = (float)(i % 7) + (i % 3 ? 0.5f : 0.25f);
                        if (hist_on_device(ctx, &dv, NULL, &p, init, 256, got)) {
                            int bad = -1;
                            for (int i = 0; i < 256 && bad < 0; i++)
                                if (got[i] != exp[i])
                                    bad = i;
                            GT_CHECK(bad < 0,
                                     "calcHist into device memory u8 c%d channel %d %lldx%lld%s: "
                                     "bin %d is %g, expected %g",
                                     (int)cn, (int)ch, (long long)w, (long long)h,
                                     sub ? " (unaligned view)" : "", bad, bad < 0 ? 0 : got[bad],
                                     bad < 0 ? 0 : exp[bad]);
                        }
                        p.accumulate = 1;
                        if (hist_on_device(ctx, &dv, NULL, &p, init, 256, acc)) {
                            int bad = -1;
                            for (int i = 0; i < 256 && bad < 0; i++)
                                if (acc[i] != (float)(rint(init[i]) + exp[i]))
                                    bad = i;
                            GT_CHECK(bad < 0,
                                     "calcHist accumulated in device memory u8 c%d channel %d "
                                     "%lldx%lld%s: bin %d is %g, expected %g",
                                     (int)cn, (int)ch, (long long)w, (long long)h,
                                     sub ? " (unaligned view)" : "", bad, bad < 0 ? 0 : acc[bad],
                                     bad < 0 ? 0 : (float)(rint(init[bad]) + exp[bad]));
                        }
                    }
                /* CUDA: every channel queued into one device buffer, back to back with no
                 * synchronisation between the calls, then one sync and one download */
                gip_image hb, db;
                float *all = calloc((size_t)256 * cn, sizeof(float));
                if (on_cuda(ctx) && all &&
                    GT_OK(gip_image_wrap(&hb, all, 256 * cn, 1, 1, GIP_F32, 0, GIP_MEM_HOST, 0)) &&
                    GT_OK(gip_image_alloc(ctx, &db, 256 * cn, 1, 1, GIP_F32, GIP_MEM_CUDA, 0))) {
                    float range[2] = {0, 256};
                    bool ok = true;
                    for (int32_t ch = 0; ch < cn && ok; ch++) {
                        gip_calc_hist_params p = {
                            .dims = 1, .bins = {256}, .channels = {ch}, .ranges = {range}};
                        ok = GT_OK(gip_calc_hist(ctx, &dv, NULL, &p, (float *)db.data + 256 * ch));
                    }
                    if (ok && GT_OK(gip_context_sync(ctx)) && GT_OK(gip_download(ctx, &db, &hb)))
                        for (int32_t ch = 0; ch < cn; ch++) {
                            float exp[256] = {0};
                            for (int64_t y = 0; y < h; y++)
                                for (int64_t x = 0; x < w; x++)
                                    exp[(int)gt_get(&av, x, y, ch)] += 1;
                            int bad = -1;
                            for (int i = 0; i < 256 && bad < 0; i++)
                                if (all[256 * ch + i] != exp[i])
                                    bad = i;
                            GT_CHECK(bad < 0,
                                     "calcHist queued into device memory u8 c%d channel %d "
                                     "%lldx%lld%s: bin %d is %g, expected %g",
                                     (int)cn, (int)ch, (long long)w, (long long)h,
                                     sub ? " (unaligned view)" : "", bad,
                                     bad < 0 ? 0 : all[256 * ch + bad], bad < 0 ? 0 : exp[bad]);
                        }
                    gip_image_free(ctx, &db);
                }
                free(all);
                release(ctx, &d);
                gt_free(&a);
            }
}

/* ---- calcHist ---------------------------------------------------------------------------- */

/* How many of n bins differ from the expected ones; *first: the first that does (-1: none). */
static int64_t bins_differ(const float *got, const float *exp, int64_t n, int64_t *first)
{
    int64_t bad = 0;
    *first = -1;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != exp[i] && !bad++)
            *first = i;
    return bad;
}

static void hist_cases(gip_context *ctx)
{
    static const gip_dtype hd[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 300;
    for (int s = 0; s < gt_nsizes; s++)
        for (int d = 0; d < 3; d++)
            for (int kind = 0; kind < 5; kind++, seed++) {
                if (!gt_case())
                    continue;
                const gt_size sz = gt_sizes[s];
                gip_image a, m;
                gt_alloc(&a, sz.w, sz.h, 3, hd[d], seed % 2 ? 0 : 5);
                gt_alloc(&m, sz.w, sz.h, 1, GIP_U8, 0);
                gt_fill_random(&a, seed, -10.0f, 300.0f);
                gt_fill_random(&m, seed + 1, 0, 0);
                const double top = hd[d] == GIP_U16 ? 65536 : 256;
                /* kind 0: 1-D full range; 1: 2-D partial ranges, masked; 2: 3-D;
                 * 3: non-uniform 1-D, masked, accumulated; 4: 2-D of 20000 bins */
                gip_calc_hist_params p = {0};
                float r0[2] = {0, (float)top}, r1[2] = {(float)(top / 8), (float)(top * 0.7)};
                float r2[2] = {-5.5f, 200.25f};
                float edges[6] = {
                    0, 3, (float)(top / 4), (float)(top / 2), (float)(top * 0.9), (float)top};
                const bool masked = kind == 1 || kind == 3;
                if (kind == 0) {
                    p.dims = 1, p.bins[0] = 256, p.channels[0] = 1, p.ranges[0] = r0;
                } else if (kind == 1) {
                    p.dims = 2, p.bins[0] = 30, p.bins[1] = 17, p.channels[0] = 2;
                    p.ranges[0] = r1, p.ranges[1] = hd[d] == GIP_F32 ? r2 : r0;
                } else if (kind == 2) {
                    p.dims = 3;
                    for (int k = 0; k < 3; k++)
                        p.bins[k] = 8 + k, p.channels[k] = 2 - k, p.ranges[k] = r0;
                } else if (kind == 3) {
                    p.dims = 1, p.bins[0] = 5, p.non_uniform = 1, p.accumulate = 1;
                    p.ranges[0] = edges;
                } else { /* more bins than the CUDA counter keeps in shared memory */
                    p.dims = 2, p.bins[0] = 200, p.bins[1] = 100, p.channels[1] = 1;
                    p.ranges[0] = p.ranges[1] = r0;
                }
                int64_t total = 1;
                for (int k = 0; k < p.dims; k++)
                    total *= p.bins[k];
                float *got = malloc(sizeof(float) * total), *exp = calloc(total, sizeof(float));
                for (int64_t i = 0; i < total; i++)
                    got[i] = exp[i] =
                        kind == 3 ? (float)(i * 2 + 0.5) : 0; /* 0.5: rounds to even */
                if (kind == 3)
                    for (int64_t i = 0; i < total; i++)
                        exp[i] = (float)rint(exp[i]);
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++) {
                        if (masked && gt_get(&m, x, y, 0) < 100)
                            continue;
                        int64_t idx = 0;
                        int k = 0;
                        for (; k < p.dims; k++) {
                            float v = (float)gt_get(&a, x, y, p.channels[k]);
                            int bin = -1;
                            if (p.non_uniform) {
                                for (int e = 0; e < p.bins[k]; e++)
                                    if (v >= p.ranges[k][e] && v < p.ranges[k][e + 1])
                                        bin = e;
                            } else if (v >= p.ranges[k][0] && v < p.ranges[k][1]) {
                                long double t = ((long double)v - p.ranges[k][0]) * p.bins[k] /
                                                ((long double)p.ranges[k][1] - p.ranges[k][0]);
                                bin = (int)floorl(t);
                                bin = bin >= p.bins[k] ? p.bins[k] - 1 : bin;
                            }
                            if (bin < 0)
                                break;
                            idx = idx * p.bins[k] + bin;
                        }
                        if (k == p.dims)
                            exp[idx] += 1;
                    }
                if (masked)
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            gt_set(&m, x, y, 0, gt_get(&m, x, y, 0) < 100 ? 0 : 1);
                gip_image da = place(ctx, &a), dm = place(ctx, &m);
                /* CUDA: into device memory first (the same initial values), then the host */
                float *dgot = malloc(sizeof(float) * total);
                if (hist_on_device(ctx, &da, masked ? &dm : NULL, &p, got, total, dgot)) {
                    int64_t first, bad = bins_differ(dgot, exp, total, &first);
                    GT_CHECK(bad == 0,
                             "calcHist into device memory %lldx%lld %s kind %d: %lld bins differ, "
                             "first %lld: %g, expected %g",
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(hd[d]), kind,
                             (long long)bad, (long long)first, bad ? dgot[first] : 0,
                             bad ? exp[first] : 0);
                }
                free(dgot);
                if (GT_OK(gip_calc_hist(ctx, &da, masked ? &dm : NULL, &p, got))) {
                    int64_t first, bad = bins_differ(got, exp, total, &first);
                    GT_CHECK(bad == 0,
                             "calcHist %lldx%lld %s kind %d: %lld bins differ, first %lld: %g, "
                             "expected %g",
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(hd[d]), kind,
                             (long long)bad, (long long)first, bad ? got[first] : 0,
                             bad ? exp[first] : 0);
                }
                release(ctx, &da);
                release(ctx, &dm);
                free(got);
                free(exp);
                gt_free(&a);
                gt_free(&m);
            }
}

/* One channel of f32 into uniform bins (the CPU's vector rows and their scalar tails, with and
 * without a mask): values at and beside the range's ends, NaN (OpenCV 5 counts it in the last
 * bin), infinities and values far outside, against the rule written out in long double. */
static void hist_f32_edges(gip_context *ctx)
{
    static const int64_t widths[] = {1, 3, 15, 16, 17, 31, 33, 100};
    static const int32_t nbins[] = {1, 7, 256};
    const float lo = -1.25f, hi = 2.5f;
    uint64_t seed = 900;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (size_t bi = 0; bi < sizeof nbins / sizeof nbins[0]; bi++)
            for (int masked = 0; masked < 2; masked++, seed++) {
                const int64_t w = widths[wi], h = 5;
                const int32_t nb = nbins[bi];
                gip_image a, m;
                gt_alloc(&a, w, h, 1, GIP_F32, seed % 2 ? 0 : 3);
                gt_alloc(&m, w, h, 1, GIP_U8, 0);
                gt_fill_random(&a, seed, -2.0f, 3.0f);
                gt_fill_random(&m, seed + 1, 0, 0);
                const float special[] = {NAN,
                                         INFINITY,
                                         -INFINITY,
                                         lo,
                                         hi,
                                         nextafterf(hi, 0.0f),
                                         nextafterf(lo, 0.0f),
                                         nextafterf(lo, -2.0f),
                                         1e30f,
                                         -1e30f,
                                         0.0f};
                for (int64_t i = 0; i < w * h; i += 2)
                    gt_set(&a, i % w, i / w, 0,
                           special[(i / 2) % (int64_t)(sizeof special / sizeof special[0])]);
                float *got = calloc((size_t)nb, sizeof(float)),
                      *exp = calloc((size_t)nb, sizeof(float));
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++) {
                        if (masked && gt_get(&m, x, y, 0) < 100)
                            continue;
                        const float v = (float)gt_get(&a, x, y, 0);
                        if (isnan(v)) {
                            exp[nb - 1] += 1;
                        } else if (v >= lo && v < hi) {
                            long double t = ((long double)v - lo) * nb / ((long double)hi - lo);
                            int b = (int)floorl(t);
                            exp[b >= nb ? nb - 1 : b < 0 ? 0 : b] += 1;
                        }
                    }
                if (masked)
                    for (int64_t y = 0; y < h; y++)
                        for (int64_t x = 0; x < w; x++)
                            gt_set(&m, x, y, 0, gt_get(&m, x, y, 0) < 100 ? 0 : 1);
                float range[2] = {lo, hi};
                gip_calc_hist_params p = {.dims = 1, .bins = {nb}, .ranges = {range}};
                gip_image da = place(ctx, &a), dm = place(ctx, &m);
                if (GT_OK(gip_calc_hist(ctx, &da, masked ? &dm : NULL, &p, got))) {
                    int64_t first, bad = bins_differ(got, exp, nb, &first);
                    GT_CHECK(bad == 0,
                             "calcHist f32 %lld wide, %d bins%s: %lld bins differ, first %lld: %g, "
                             "expected %g",
                             (long long)w, nb, masked ? ", masked" : "", (long long)bad,
                             (long long)first, bad ? got[first] : 0, bad ? exp[first] : 0);
                }
                release(ctx, &da);
                release(ctx, &dm);
                free(got);
                free(exp);
                gt_free(&a);
                gt_free(&m);
            }
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void bad_input(gip_context *ctx)
{
    gip_image a, m, m3, small, f, s16;
    gt_alloc(&a, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&m, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&m3, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&small, 8, 5, 1, GIP_U8, 0);
    gt_alloc(&f, 9, 5, 1, GIP_F32, 0);
    gt_alloc(&s16, 9, 5, 1, GIP_S16, 0);
    gt_fill_random(&a, 1, 0, 0);
    gt_fill_random(&m, 2, 0, 0);
    double v[4] = {7, 7, 7, 7}, sd[4] = {7, 7, 7, 7}, r = 7, mn = 7;
    int64_t n = 7, loc[2] = {7, 7};
    GT_STATUS(gip_mean(ctx, NULL, NULL, v), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mean(ctx, &a, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mean(NULL, &a, NULL, v), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mean(ctx, &a, &small, v), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_mean(ctx, &a, &m3, v), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_mean(ctx, &a, &f, v), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_mean_std_dev(ctx, &a, &small, v, sd), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_mean_std_dev(ctx, &a, NULL, v, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_min_max_loc(ctx, &m3, NULL, &mn, NULL, loc, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_count_non_zero(ctx, &m3, &n), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_norm(ctx, &a, NULL, 3, NULL, &r), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_norm(ctx, &a, NULL, GIP_NORM_L2 | GIP_NORM_RELATIVE, NULL, &r),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_norm(ctx, &a, &f, GIP_NORM_L2, NULL, &r), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_norm(ctx, &a, &small, GIP_NORM_L2, NULL, &r), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_psnr(ctx, &a, &s16, 255, &r), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_psnr(ctx, &a, &a, -1, &r), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_psnr(ctx, &a, NULL, 255, &r), GIP_ERR_INVALID_ARGUMENT);
    gip_image c32;
    gt_alloc(&c32, 4, 5, 1, GIP_C32, 0);
    GT_STATUS(gip_sum(ctx, &c32, v), GIP_ERR_UNSUPPORTED);
    gt_free(&c32);
    GT_CHECK(v[0] == 7 && sd[0] == 7 && r == 7 && mn == 7 && n == 7 && loc[0] == 7,
             "an output changed on a refused call");
    if (on_cuda(ctx)) { /* host views on a CUDA context are fine; mixing is not */
        gip_image dm = place(ctx, &m);
        GT_STATUS(gip_mean(ctx, &a, &dm, v), GIP_ERR_LOCATION_MISMATCH);
        release(ctx, &dm);
    }

    float hist[4] = {7, 7, 7, 7};
    float range[2] = {0, 256}, bad_range[2] = {5, 5}, edges[3] = {0, 10, 5};
    gip_calc_hist_params p = {.dims = 1, .bins = {4}, .ranges = {range}};
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, NULL, hist), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, &p, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_calc_hist(ctx, &s16, NULL, &p, hist), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_calc_hist(ctx, &a, &small, &p, hist), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_calc_hist(ctx, &a, &m3, &p, hist), GIP_ERR_UNSUPPORTED);
    gip_calc_hist_params q = p;
    q.bins[0] = 0;
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, &q, hist), GIP_ERR_INVALID_ARGUMENT);
    q = p;
    q.dims = 4;
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, &q, hist), GIP_ERR_INVALID_ARGUMENT);
    q = p;
    q.channels[0] = 1;
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, &q, hist), GIP_ERR_INVALID_ARGUMENT);
    q = p;
    q.ranges[0] = bad_range;
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, &q, hist), GIP_ERR_INVALID_ARGUMENT);
    q = p;
    q.bins[0] = 2, q.non_uniform = 1, q.ranges[0] = edges;
    GT_STATUS(gip_calc_hist(ctx, &a, NULL, &q, hist), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(hist[0] == 7 && hist[3] == 7, "calcHist: hist changed on a refused call");

    gip_image dst, d16;
    gt_alloc(&dst, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&d16, 9, 5, 1, GIP_U16, 0);
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_equalize_hist(ctx, &m3, &dst), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_equalize_hist(ctx, &a, &d16), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_equalize_hist(ctx, &a, &small), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_equalize_hist(ctx, NULL, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_clahe(ctx, &f, &dst, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_clahe(ctx, &a, &d16, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_clahe(ctx, &a, &a, NULL), GIP_ERR_ALIASING);
    gip_clahe_params cp = {.tiles_x = 300};
    GT_STATUS(gip_clahe(ctx, &a, &dst, &cp), GIP_ERR_INVALID_ARGUMENT);
    cp = (gip_clahe_params){.clip_limit = NAN};
    GT_STATUS(gip_clahe(ctx, &a, &dst, &cp), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t y = 0; y < 5; y++)
        for (int64_t x = 0; x < 9; x++)
            GT_CHECK(gt_get(&dst, x, y, 0) == 0x77, "dst written by a refused call");
    gip_args *ca = args_for("clahe");
    if (ca) {
        GT_STATUS(gip_args_set_text(ca, "tiles", "0"), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_args_set_text(ca, "clip_limit", "-1"), GIP_ERR_INVALID_ARGUMENT);
        gip_args_free(ca);
    }
    gt_free(&a);
    gt_free(&m);
    gt_free(&m3);
    gt_free(&small);
    gt_free(&f);
    gt_free(&s16);
    gt_free(&dst);
    gt_free(&d16);
}

static void body(gip_context *ctx)
{
    image_ops(ctx);
    equalize_views(ctx);
    reductions(ctx);
    reduce_views(ctx);
    hist_cases(ctx);
    hist_u8_channels(ctx);
    hist_f32_edges(ctx);
    bad_input(ctx);
    if (gt_current_backend == GT_CPU) {
        /* the narrower vector builds (CLAHE's scalar rows), and the plain loops */
        printf("stats: CLAHE and the reductions again with GIP_NOAVX512=1, then GIP_NOSIMD=1\n");
        gt_setenv("GIP_NOAVX512", "1");
        image_ops(ctx);
        reductions(ctx);
        gt_setenv("GIP_NOAVX512", NULL);
        gt_setenv("GIP_NOSIMD", "1");
        reductions(ctx);
        hist_f32_edges(ctx);
        gt_setenv("GIP_NOSIMD", NULL);
    }
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "stats", body);
}
