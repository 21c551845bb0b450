/* SPDX-License-Identifier: MIT */
/* Tests of the FFT family against a direct double-precision DFT and references: transforms of
 * every kind and normalisation at small and prime sizes, round trips, Parseval, shifts against
 * hand-made numpy cases, magnitude and normalisation rules, the spectrum image, correlation through
 * the FFT against direct correlation, CPU against GPU, and the bad-input table of every function.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/fft/spectrum.h"
#include "gip/fft.h"
#include "ref_fft.h"
#include "testing.h"

/* Single-precision FFT error model: each output element is within
 * FFT_K * 2^-24 * log2(2N) * ||x||_2 of the exact DFT (N = W * H), times the normalisation scale.
 * The rounding error of a radix-2 FFT grows like eps * log2(N) relative to ||x||_2 (Higham,
 * Accuracy and Stability, ch. 24); FFT_K = 8 covers the constant of mixed radices and of the
 * Bluestein transforms used for prime sizes by both FFTW and cuFFT. The largest ratio observed
 * here was under 1 (printed by test_r2c), so 8 is a bound with margin, not a fit. */
#define FFT_K 8.0
#define EPS32 (1.0 / 16777216.0)

static double fft_tol(int64_t n, double norm2)
{
    return FFT_K * EPS32 * log2(2.0 * (double)n) * norm2 + 1e-30;
}

static double max_ratio; /* largest error / (EPS32 * log2(2N) * ||x||), reported */

/* ---- device helpers: run on the context's backend with host images in and out ------------- */

static bool on_cuda(gip_context *ctx)
{
    return gip_context_backend(ctx) == GIP_BACKEND_CUDA;
}

/* A view to compute on: the host image itself on the CPU, a device copy on CUDA. */
static gip_image work_view(gip_context *ctx, const gip_image *host)
{
    if (!on_cuda(ctx))
        return *host;
    gip_image d = {0};
    if (gip_image_alloc(ctx, &d, host->width, host->height, host->channels, host->dtype,
                        GIP_MEM_CUDA, 0) ||
        gip_upload(ctx, host, &d)) {
        fprintf(stderr, "test: device copy failed: %s\n", gip_last_error());
        abort();
    }
    return d;
}

/* Brings a work view back into `host` (CUDA: download and free). */
static void fetch_view(gip_context *ctx, gip_image *work, gip_image *host)
{
    if (!on_cuda(ctx))
        return;
    if (gip_download(ctx, work, host)) {
        fprintf(stderr, "test: download failed: %s\n", gip_last_error());
        abort();
    }
    gip_image_free(ctx, work);
}

static gip_status run_fft2(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft2(c, s, d, p);
}
static gip_status run_ifft2(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_ifft2(c, s, d, p);
}
static gip_status run_shift(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return p ? gip_ifftshift(c, s, d) : gip_fftshift(c, s, d);
}
static gip_status run_mag(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return p ? gip_log_magnitude(c, s, d, p) : gip_magnitude(c, s, d);
}
static gip_status run_norm(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_normalize_minmax(c, s, d);
}
static gip_status run_spectrum(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_spectrum(c, s, d, p);
}
static gip_status run_conv(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft_convolve(c, s, d, p);
}

/* ---- complex images <-> double planes ------------------------------------------------------ */

static void to_plane(const gip_image *img, double *plane)
{
    for (int64_t y = 0; y < img->height; y++) {
        const char *row = (const char *)img->data + y * img->stride;
        for (int64_t x = 0; x < img->width; x++) {
            double *o = plane + 2 * (y * img->width + x);
            if (img->dtype == GIP_C32) {
                o[0] = ((const float *)row)[2 * x];
                o[1] = ((const float *)row)[2 * x + 1];
            } else {
                o[0] = gt_get(img, x, y, 0);
                o[1] = 0;
            }
        }
    }
}

static double plane_norm2(const double *p, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < 2 * n; i++)
        s += p[i] * p[i];
    return sqrt(s);
}

/* Compares a c32 image with columns [0, img->width) of a w-wide double plane times scale. */
static bool cmp_complex(const gip_image *got, const double *exp, int64_t w, double scale,
                        double tol, double norm2, int64_t n, const char *label)
{
    int64_t bad = 0;
    double worst = 0;
    for (int64_t y = 0; y < got->height; y++) {
        const float *row = (const float *)((const char *)got->data + y * got->stride);
        for (int64_t x = 0; x < got->width; x++)
            for (int k = 0; k < 2; k++) {
                double e = exp[2 * (y * w + x) + k] * scale, g = row[2 * x + k];
                double err = fabs(g - e);
                if (!(err <= tol)) {
                    if (!bad)
                        fprintf(stderr, "FAIL %s: at x=%lld y=%lld %s got %.9g expected %.9g\n",
                                label, (long long)x, (long long)y, k ? "im" : "re", g, e);
                    bad++;
                }
                if (err > worst)
                    worst = err;
            }
    }
    if (norm2 > 0 && scale > 0) {
        double r = worst / (scale * EPS32 * log2(2.0 * (double)n) * norm2);
        if (r > max_ratio)
            max_ratio = r;
    }
    return GT_CHECK(bad == 0, "%s: %lld mismatches, largest error %.3g, tolerance %.3g", label,
                    (long long)bad, worst, tol);
}

static const gt_size dft_sizes[] = {{1, 1},   {2, 3},  {3, 2},  {7, 5},  {17, 13},
                                    {31, 37}, {1, 17}, {17, 1}, {64, 48}};
#define N_DFT_SIZES ((int)(sizeof dft_sizes / sizeof dft_sizes[0]))
static const gip_fft_norm norms[] = {GIP_FFT_NORM_BACKWARD, GIP_FFT_NORM_FORWARD,
                                     GIP_FFT_NORM_ORTHO};

static double norm_scale(gip_fft_norm norm, bool inverse, int64_t n)
{
    if (norm == GIP_FFT_NORM_ORTHO)
        return 1.0 / sqrt((double)n);
    if (norm == GIP_FFT_NORM_FORWARD)
        return inverse ? 1.0 : 1.0 / (double)n;
    return inverse ? 1.0 / (double)n : 1.0;
}

/* Real to complex, forward, against the direct DFT: f32, u8 and u16 sources, every norm. */
static void test_r2c(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_F32, GIP_U8, GIP_U16};
    for (int si = 0; si < N_DFT_SIZES; si++)
        for (int di = 0; di < 3; di++)
            for (int ni = 0; ni < 3; ni++) {
                int64_t w = dft_sizes[si].w, h = dft_sizes[si].h, n = w * h;
                gip_image src, dst;
                gt_alloc(&src, w, h, 1, dts[di], 12);
                gt_alloc(&dst, w / 2 + 1, h, 1, GIP_C32, 8);
                gt_fill_random(&src, 100 + si * 7 + di, -1.0f, 1.0f);
                double *x = malloc(sizeof(double) * 2 * (size_t)n);
                double *f = malloc(sizeof(double) * 2 * (size_t)n);
                to_plane(&src, x);
                ref_dft2(x, w, h, 0, f);
                gip_fft_params p = {norms[ni], 0};
                char label[128];
                snprintf(label, sizeof label, "fft2 r2c %lldx%lld %s norm %d", (long long)w,
                         (long long)h, gip_dtype_name(dts[di]), (int)norms[ni]);
                if (GT_OK(gt_run_unary(ctx, run_fft2, &src, &dst, &p, 0xCD))) {
                    double s = norm_scale(norms[ni], false, n), nx = plane_norm2(x, n);
                    cmp_complex(&dst, f, w, s, fft_tol(n, nx) * s, nx, n, label);
                }
                GT_CHECK(gt_padding_intact(&dst), "%s: padding", label);
                free(x);
                free(f);
                gt_free(&src);
                gt_free(&dst);
            }
}

/* Complex to complex, both directions, every norm. */
static void test_c2c(gip_context *ctx)
{
    for (int si = 0; si < N_DFT_SIZES; si++)
        for (int inv = 0; inv < 2; inv++)
            for (int ni = 0; ni < 3; ni++) {
                int64_t w = dft_sizes[si].w, h = dft_sizes[si].h, n = w * h;
                gip_image src, dst;
                gt_alloc(&src, w, h, 1, GIP_C32, 4);
                gt_alloc(&dst, w, h, 1, GIP_C32, 8);
                gt_fill_random(&src, 300 + si, -1.0f, 1.0f);
                double *x = malloc(sizeof(double) * 2 * (size_t)n);
                double *f = malloc(sizeof(double) * 2 * (size_t)n);
                to_plane(&src, x);
                ref_dft2(x, w, h, inv, f);
                gip_fft_params p = {norms[ni], 0};
                char label[128];
                snprintf(label, sizeof label, "%s c2c %lldx%lld norm %d", inv ? "ifft2" : "fft2",
                         (long long)w, (long long)h, (int)norms[ni]);
                if (GT_OK(gt_run_unary(ctx, inv ? run_ifft2 : run_fft2, &src, &dst, &p, 0xCD))) {
                    double s = norm_scale(norms[ni], inv, n), nx = plane_norm2(x, n);
                    cmp_complex(&dst, f, w, s, fft_tol(n, nx) * s, nx, n, label);
                }
                GT_CHECK(gt_padding_intact(&dst), "%s: padding", label);
                free(x);
                free(f);
                gt_free(&src);
                gt_free(&dst);
            }
}

/* Complex (Hermitian half spectrum) to real, every norm: the exact spectrum of a random real image
 * goes in, the image (times N * scale) must come out. */
static void test_c2r(gip_context *ctx)
{
    for (int si = 0; si < N_DFT_SIZES; si++)
        for (int ni = 0; ni < 3; ni++) {
            int64_t w = dft_sizes[si].w, h = dft_sizes[si].h, n = w * h, hw = w / 2 + 1;
            gip_image real, half, out;
            gt_alloc(&real, w, h, 1, GIP_F32, 0);
            gt_alloc(&half, hw, h, 1, GIP_C32, 16);
            gt_alloc(&out, w, h, 1, GIP_F32, 12);
            gt_fill_random(&real, 500 + si, -1.0f, 1.0f);
            double *x = malloc(sizeof(double) * 2 * (size_t)n);
            double *f = malloc(sizeof(double) * 2 * (size_t)n);
            to_plane(&real, x);
            ref_dft2(x, w, h, 0, f);
            for (int64_t y = 0; y < h; y++)
                for (int64_t k = 0; k < hw; k++) {
                    float *e = (float *)((char *)half.data + y * half.stride) + 2 * k;
                    e[0] = (float)f[2 * (y * w + k)];
                    e[1] = (float)f[2 * (y * w + k) + 1];
                }
            gip_image keep;
            gt_alloc(&keep, hw, h, 1, GIP_C32, 16);
            memcpy(keep.data, half.data, (size_t)(half.stride * h));
            gip_fft_params p = {norms[ni], 0};
            char label[128];
            snprintf(label, sizeof label, "ifft2 c2r %lldx%lld norm %d", (long long)w, (long long)h,
                     (int)norms[ni]);
            if (GT_OK(gt_run_unary(ctx, run_ifft2, &half, &out, &p, 0xCD))) {
                double s = norm_scale(norms[ni], true, n) * (double)n;
                /* Error bound from the input's norm, ||X|| = sqrt(N) ||x||, scaled like the
                 * output, plus the float rounding of the spectrum handed in. */
                double tol = fft_tol(n, sqrt((double)n) * plane_norm2(x, n)) *
                             norm_scale(norms[ni], true, n);
                int64_t bad = 0;
                for (int64_t y = 0; y < h; y++)
                    for (int64_t xx = 0; xx < w; xx++) {
                        double e = x[2 * (y * w + xx)] * s, g = gt_get(&out, xx, y, 0);
                        if (!(fabs(g - e) <= tol) && bad++ == 0)
                            fprintf(stderr, "FAIL %s: x=%lld y=%lld got %.9g expected %.9g\n",
                                    label, (long long)xx, (long long)y, g, e);
                    }
                GT_CHECK(bad == 0, "%s: %lld mismatches (tolerance %.3g)", label, (long long)bad,
                         tol);
            }
            GT_CHECK(memcmp(keep.data, half.data, (size_t)(half.stride * h)) == 0,
                     "%s: src was modified", label);
            GT_CHECK(gt_padding_intact(&out), "%s: padding", label);
            free(x);
            free(f);
            gt_free(&keep);
            gt_free(&real);
            gt_free(&half);
            gt_free(&out);
        }
}

/* ifft(fft(x)) = x at a large awkward size, real and complex (complex in place), and Parseval. */
static void test_round_trip(gip_context *ctx)
{
    int64_t w = 1001, h = 777, n = w * h, hw = w / 2 + 1;
    gip_image x, spec, back;
    gt_alloc(&x, w, h, 1, GIP_F32, 4);
    gt_alloc(&spec, hw, h, 1, GIP_C32, 0);
    gt_alloc(&back, w, h, 1, GIP_F32, 0);
    gt_fill_random(&x, 900, -1.0f, 1.0f);
    double nx = 0;
    for (int64_t y = 0; y < h; y++)
        for (int64_t i = 0; i < w; i++)
            nx += gt_get(&x, i, y, 0) * gt_get(&x, i, y, 0);
    nx = sqrt(nx);
    gip_image dx = work_view(ctx, &x), ds = work_view(ctx, &spec), db = work_view(ctx, &back);
    GT_OK(gip_fft2(ctx, &dx, &ds, NULL));
    GT_OK(gip_ifft2(ctx, &ds, &db, NULL));
    fetch_view(ctx, &ds, &spec);
    fetch_view(ctx, &db, &back);
    fetch_view(ctx, &dx, &x);
    /* Two transforms: twice the single-transform bound, relative to ||x|| after the 1/N. */
    double tol = 2 * fft_tol(n, nx);
    GT_CHECK(gt_compare(&back, &x, tol, 0, "round trip r2c/c2r 1001x777"), "round trip real");
    /* Parseval on the half spectrum: sum |X|^2 = N sum x^2, mirrored columns counted twice. */
    double e = 0;
    for (int64_t y = 0; y < h; y++) {
        const float *row = (const float *)((const char *)spec.data + y * spec.stride);
        for (int64_t k = 0; k < hw; k++) {
            double wgt = (k == 0 || (w % 2 == 0 && k == w / 2)) ? 1 : 2;
            e += wgt * ((double)row[2 * k] * row[2 * k] + (double)row[2 * k + 1] * row[2 * k + 1]);
        }
    }
    double rel = fabs(e - (double)n * nx * nx) / ((double)n * nx * nx);
    GT_CHECK(rel < 1e-5, "Parseval r2c 1001x777: relative difference %.3g", rel);

    /* Complex, in place, ortho: unitary, so the energy is kept and the round trip is exact to
     * within the bound. */
    gip_image c, c0;
    gt_alloc(&c, w, h, 1, GIP_C32, 8);
    gt_alloc(&c0, w, h, 1, GIP_C32, 8);
    gt_fill_random(&c, 901, -1.0f, 1.0f);
    memcpy(c0.data, c.data, (size_t)(c.stride * h));
    gip_fft_params ortho = {GIP_FFT_NORM_ORTHO, 0};
    gip_image dc = work_view(ctx, &c);
    GT_OK(gip_fft2(ctx, &dc, &dc, &ortho));
    gip_image mid;
    gt_alloc(&mid, w, h, 1, GIP_C32, 8);
    if (on_cuda(ctx))
        GT_OK(gip_download(ctx, &dc, &mid));
    else
        memcpy(mid.data, c.data, (size_t)(c.stride * h));
    GT_OK(gip_ifft2(ctx, &dc, &dc, &ortho));
    fetch_view(ctx, &dc, &c);
    double e0 = 0, e1 = 0, err = 0;
    for (int64_t y = 0; y < h; y++) {
        const float *a = (const float *)((const char *)c0.data + y * c0.stride);
        const float *b = (const float *)((const char *)c.data + y * c.stride);
        const float *m = (const float *)((const char *)mid.data + y * mid.stride);
        for (int64_t i = 0; i < 2 * w; i++) {
            e0 += (double)a[i] * a[i];
            e1 += (double)m[i] * m[i];
            double d = fabs((double)a[i] - b[i]);
            err = d > err ? d : err;
        }
    }
    GT_CHECK(fabs(e1 - e0) / e0 < 1e-5, "Parseval c2c ortho: %.9g vs %.9g", e1, e0);
    GT_CHECK(err <= 2 * fft_tol(n, sqrt(e0)), "round trip c2c in place: error %.3g", err);
    gt_free(&mid);
    gt_free(&c);
    gt_free(&c0);
    gt_free(&x);
    gt_free(&spec);
    gt_free(&back);
}

/* ---- shifts: hand-made numpy cases ---------------------------------------------------------- */

static void check_shift_case(gip_context *ctx, int64_t w, int64_t h, gip_dtype dt, const float *in,
                             const float *exp_fwd, const float *exp_inv, const char *name)
{
    int per = dt == GIP_C32 ? 2 : 1;
    for (int inv = 0; inv < 2; inv++) {
        gip_image s, d;
        gt_alloc(&s, w, h, 1, dt, 4);
        gt_alloc(&d, w, h, 1, dt, 8);
        for (int64_t y = 0; y < h; y++)
            memcpy((char *)s.data + y * s.stride, in + y * w * per, (size_t)(w * per) * 4);
        int one = 1;
        if (GT_OK(gt_run_unary(ctx, run_shift, &s, &d, inv ? &one : NULL, 0xEE))) {
            const float *e = inv ? exp_inv : exp_fwd;
            bool ok = true;
            for (int64_t y = 0; y < h; y++)
                ok &= memcmp((char *)d.data + y * d.stride, e + y * w * per,
                             (size_t)(w * per) * 4) == 0;
            GT_CHECK(ok, "%s %s differs from numpy's", inv ? "ifftshift" : "fftshift", name);
        }
        GT_CHECK(gt_padding_intact(&d), "%s padding", name);
        gt_free(&s);
        gt_free(&d);
    }
}

static void test_shift(gip_context *ctx)
{
    /* numpy: a = arange(12).reshape(3, 4); fftshift(a), ifftshift(a). */
    static const float a[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    static const float af[] = {10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5};
    static const float ai[] = {6, 7, 4, 5, 10, 11, 8, 9, 2, 3, 0, 1};
    check_shift_case(ctx, 4, 3, GIP_F32, a, af, ai, "4x3 f32");
    /* arange(5) as a 5x1 row: fftshift [3 4 0 1 2], ifftshift [2 3 4 0 1]. */
    static const float r[] = {0, 1, 2, 3, 4}, rf[] = {3, 4, 0, 1, 2}, ri[] = {2, 3, 4, 0, 1};
    check_shift_case(ctx, 5, 1, GIP_F32, r, rf, ri, "5x1 f32");
    check_shift_case(ctx, 1, 5, GIP_F32, r, rf, ri, "1x5 f32");
    /* arange(9).reshape(3, 3) as complex v - v i: fftshift [[8 6 7] [2 0 1] [5 3 4]],
     * ifftshift [[4 5 3] [7 8 6] [1 2 0]]. */
    static const float b[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    static const float bf[] = {8, 6, 7, 2, 0, 1, 5, 3, 4};
    static const float bi[] = {4, 5, 3, 7, 8, 6, 1, 2, 0};
    float c[18], cf[18], ci[18];
    for (int i = 0; i < 9; i++) {
        c[2 * i] = b[i], c[2 * i + 1] = -b[i];
        cf[2 * i] = bf[i], cf[2 * i + 1] = -bf[i];
        ci[2 * i] = bi[i], ci[2 * i + 1] = -bi[i];
    }
    check_shift_case(ctx, 3, 3, GIP_C32, c, cf, ci, "3x3 c32");
    static const float one[] = {42};
    check_shift_case(ctx, 1, 1, GIP_F32, one, one, one, "1x1 f32");

    /* Larger odd sizes, 3 channels: the formula, and ifftshift undoing fftshift exactly. */
    int64_t w = 1001, h = 777;
    gip_image s, d, back;
    gt_alloc(&s, w, h, 3, GIP_F32, 4);
    gt_alloc(&d, w, h, 3, GIP_F32, 8);
    gt_alloc(&back, w, h, 3, GIP_F32, 0);
    gt_fill_random(&s, 77, -5.0f, 5.0f);
    if (GT_OK(gt_run_unary(ctx, run_shift, &s, &d, NULL, 0xEE))) {
        int64_t bad = 0;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int ch = 0; ch < 3; ch++)
                    bad += gt_get(&d, x, y, ch) !=
                           gt_get(&s, (x + (w + 1) / 2) % w, (y + (h + 1) / 2) % h, ch);
        GT_CHECK(bad == 0, "fftshift 1001x777x3: %lld elements differ from the formula",
                 (long long)bad);
        int one_flag = 1;
        if (GT_OK(gt_run_unary(ctx, run_shift, &d, &back, &one_flag, 0xEE)))
            GT_CHECK(gt_compare(&back, &s, 0, 0, "ifftshift(fftshift(x))"), "shift round trip");
    }
    gt_free(&s);
    gt_free(&d);
    gt_free(&back);
}

/* ---- magnitude, log magnitude and normalisation --------------------------------------------- */

static void test_magnitude(gip_context *ctx)
{
    int64_t w = 13, h = 42;
    gip_image s, d;
    gt_alloc(&s, w, h, 1, GIP_C32, 8);
    gt_alloc(&d, w, h, 1, GIP_F32, 4);
    gt_fill_random(&s, 31, -100.0f, 100.0f);
    /* Exact zeros where log|F| must be -inf (log1p: 0). */
    float *z = (float *)s.data;
    z[0] = z[1] = 0.0f;
    z = (float *)((char *)s.data + 5 * s.stride) + 2 * 7;
    z[0] = z[1] = 0.0f;
    for (int mode = 0; mode < 3; mode++) {
        gip_log_magnitude_params lp = {mode == 2};
        if (!GT_OK(gt_run_unary(ctx, run_mag, &s, &d, mode ? &lp : NULL, 0xCD)))
            continue;
        int64_t bad = 0;
        for (int64_t y = 0; y < h; y++) {
            const float *row = (const float *)((const char *)s.data + y * s.stride);
            for (int64_t x = 0; x < w; x++) {
                double m = hypot(row[2 * x], row[2 * x + 1]);
                double e = mode == 0 ? m : mode == 1 ? log(m) : log1p(m);
                double g = gt_get(&d, x, y, 0);
                bool ok = isinf(e) ? (isinf(g) && g < 0) : fabs(g - e) <= 4e-7 * fabs(e) + 1e-6;
                if (!ok && bad++ == 0)
                    fprintf(stderr, "FAIL magnitude mode %d at %lld,%lld: got %.9g expected %.9g\n",
                            mode, (long long)x, (long long)y, g, e);
            }
        }
        GT_CHECK(bad == 0, "magnitude mode %d: %lld mismatches", mode, (long long)bad);
        GT_CHECK(gt_padding_intact(&d), "magnitude padding");
    }
    GT_CHECK(gt_get(&d, 0, 0, 0) == 0.0, "log1p of |0| is 0");
    gt_free(&s);
    gt_free(&d);
}

static void norm_case(gip_context *ctx, const float *v, int64_t n, const uint8_t *exp,
                      const char *name)
{
    gip_image s, d;
    gt_alloc(&s, n, 1, 1, GIP_F32, 0);
    gt_alloc(&d, n, 1, 1, GIP_U8, 3);
    memcpy(s.data, v, (size_t)n * 4);
    if (GT_OK(gt_run_unary(ctx, run_norm, &s, &d, NULL, 0x77))) {
        bool ok = memcmp(d.data, exp, (size_t)n) == 0;
        GT_CHECK(ok, "normalize %s: first value %d (expected %d)", name, ((uint8_t *)d.data)[0],
                 exp[0]);
    }
    GT_CHECK(gt_padding_intact(&d), "normalize %s padding", name);
    gt_free(&s);
    gt_free(&d);
}

static void test_normalize(gip_context *ctx)
{
    /* cv2.normalize([1, 2, 3.5, 4], None, 0, 255, NORM_MINMAX, CV_8U) = [0, 85, 212, 255]
     * (212.5 rounds half to even); non-finite values: -inf and NaN 0, +inf 255, ignored for the
     * range. */
    static const float a[] = {1.0f, 2.0f, 3.5f, 4.0f};
    static const uint8_t ae[] = {0, 85, 212, 255};
    norm_case(ctx, a, 4, ae, "cv2 case");
    const float b[] = {1.0f, -INFINITY, 2.0f, NAN, 3.5f, INFINITY, 4.0f};
    static const uint8_t be[] = {0, 0, 85, 0, 212, 255, 255};
    norm_case(ctx, b, 7, be, "non-finite");
    static const float c[] = {5.0f, 5.0f, 5.0f};
    static const uint8_t ce[] = {0, 0, 0};
    norm_case(ctx, c, 3, ce, "constant");
    const float d[] = {-INFINITY, -INFINITY};
    static const uint8_t de[] = {0, 0};
    norm_case(ctx, d, 2, de, "all -inf");

    /* Random 3-channel image against the double formula: a mismatch is allowed only where the
     * exact value lies within 1e-3 of a rounding boundary (the float coefficients of OpenCV's
     * convertTo carry about 255 * 2^-24 of error). */
    int64_t w = 64, h = 48;
    gip_image s, o;
    gt_alloc(&s, w, h, 3, GIP_F32, 4);
    gt_alloc(&o, w, h, 3, GIP_U8, 5);
    gt_fill_random(&s, 12, -3.0f, 7.0f);
    if (GT_OK(gt_run_unary(ctx, run_norm, &s, &o, NULL, 0x77))) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int ch = 0; ch < 3; ch++) {
                    double v = gt_get(&s, x, y, ch);
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
        int64_t bad = 0;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int ch = 0; ch < 3; ch++) {
                    double e = (gt_get(&s, x, y, ch) - lo) * 255.0 / (hi - lo);
                    double g = gt_get(&o, x, y, ch);
                    double frac = e - floor(e);
                    bool ok =
                        g == nearbyint(e) || (fabs(frac - 0.5) < 1e-3 && fabs(g - e) < 0.5 + 1e-3);
                    bad += !ok;
                }
        GT_CHECK(bad == 0, "normalize 64x48x3: %lld mismatches", (long long)bad);
    }
    gt_free(&s);
    gt_free(&o);
}

/* ---- spectrum ------------------------------------------------------------------------------ */

/* The spectrum image against the double pipeline (gray in double, direct DFT, fftshift, log,
 * min-max). Tolerance: every pixel must lie within 0.5 + d levels of the exact value v before
 * rounding, where d is how far f32 errors can move it: each |F| is within e = FFT_K * 2^-24 *
 * log2(2N) * ||x|| (the transform bound above), so log|F| moves by at most l(m) = log(m / (m - e)),
 * and v = 255 (L - Lmin) / (Lmax - Lmin) by at most 255 (l + lmin) / R + v (lmax + lmin) / R.
 * Plus 1e-3 levels for the float normalisation. The test requires the smallest |F| to exceed
 * 10 e, so that d stays far below one level and a wrong pixel fails. */
static void check_spectrum(gip_context *ctx, const gip_image *src, int bgr, int log1p_mode,
                           const char *name)
{
    int64_t w = src->width, h = src->height, n = w * h;
    gip_image d;
    gt_alloc(&d, w, h, 1, GIP_U8, 7);
    gip_spectrum_params p = {log1p_mode, bgr};
    gip_status st = gt_run_unary(ctx, run_spectrum, src, &d, &p, 0x5A);
    if (!GT_OK(st)) {
        gt_free(&d);
        return;
    }
    double *x = malloc(sizeof(double) * 2 * (size_t)n), *f = malloc(sizeof(double) * 2 * (size_t)n);
    for (int64_t y = 0; y < h; y++)
        for (int64_t i = 0; i < w; i++) {
            x[2 * (y * w + i)] = ref_gray(src, i, y, bgr);
            x[2 * (y * w + i) + 1] = 0;
        }
    ref_dft2(x, w, h, 0, f);
    double e = fft_tol(n, plane_norm2(x, n));
    double mmin = INFINITY, lmin = INFINITY, lmax = -INFINITY, l_at_min = 0, l_at_max = 0;
    for (int64_t i = 0; i < n; i++) {
        double m = hypot(f[2 * i], f[2 * i + 1]);
        double L = log1p_mode ? log1p(m) : log(m);
        mmin = m < mmin ? m : mmin;
        if (L < lmin)
            lmin = L, l_at_min = m;
        if (L > lmax)
            lmax = L, l_at_max = m;
    }
    double R = lmax - lmin;
    GT_CHECK(n == 1 || mmin > 10 * e, "%s: smallest |F| %.3g is not above 10x the error %.3g", name,
             mmin, e);
    double dl_min = log(l_at_min / (l_at_min - e)), dl_max = log(l_at_max / (l_at_max - e));
    int64_t bad = 0;
    for (int64_t y = 0; y < h; y++)
        for (int64_t xx = 0; xx < w; xx++) {
            int64_t kx = (xx + (w + 1) / 2) % w, ky = (y + (h + 1) / 2) % h;
            double m = hypot(f[2 * (ky * w + kx)], f[2 * (ky * w + kx) + 1]);
            double L = log1p_mode ? log1p(m) : log(m);
            double v = R > 0 ? 255.0 * (L - lmin) / R : 0.0;
            double dl = log(m / (m - e));
            double dv = R > 0 ? 255.0 * (dl + dl_min) / R + v * (dl_max + dl_min) / R : 0.0;
            double g = ((uint8_t *)d.data)[y * d.stride + xx];
            if (!(fabs(g - v) <= 0.5 + dv + 1e-3) && bad++ == 0)
                fprintf(stderr, "FAIL spectrum %s at x=%lld y=%lld: got %g, exact %.6f (+-%.3g)\n",
                        name, (long long)xx, (long long)y, g, v, dv);
        }
    GT_CHECK(bad == 0, "spectrum %s: %lld pixels outside the tolerance", name, (long long)bad);
    GT_CHECK(gt_padding_intact(&d), "spectrum %s padding", name);
    free(x);
    free(f);
    gt_free(&d);
}

static void test_spectrum(gip_context *ctx)
{
    static const struct {
        int64_t w, h;
        int32_t c;
        gip_dtype dt;
        int bgr, log1p_mode;
    } cases[] = {{1, 1, 1, GIP_U8, 0, 0},    {13, 42, 1, GIP_U8, 0, 0},  {64, 48, 1, GIP_U8, 0, 1},
                 {37, 31, 3, GIP_U8, 0, 0},  {37, 31, 3, GIP_U8, 1, 0},  {20, 9, 4, GIP_U8, 1, 1},
                 {33, 17, 1, GIP_U16, 0, 0}, {16, 24, 3, GIP_U16, 0, 0}, {29, 23, 1, GIP_F32, 0, 0},
                 {24, 15, 3, GIP_F32, 1, 0}, {257, 131, 1, GIP_U8, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gip_image s;
        gt_alloc(&s, cases[i].w, cases[i].h, cases[i].c, cases[i].dt,
                 cases[i].dt == GIP_F32 ? 8 : 6);
        gt_fill_random(&s, 40 + i, 0.0f, 1.0f);
        char name[96];
        snprintf(name, sizeof name, "%lldx%lldx%d %s%s%s", (long long)cases[i].w,
                 (long long)cases[i].h, (int)cases[i].c, gip_dtype_name(cases[i].dt),
                 cases[i].bgr ? " bgr" : "", cases[i].log1p_mode ? " log1p" : "");
        check_spectrum(ctx, &s, cases[i].bgr, cases[i].log1p_mode, name);
        gt_free(&s);
    }

    /* A single cosine cos(2 pi (5 x / 64 + 3 y / 48)) has exactly two non-zero bins, (5, 3) and
     * (-5, -3): after the shift the two peaks (255) sit at (32 +- 5, 24 +- 3) and every other
     * pixel is darker. */
    int64_t w = 64, h = 48;
    gip_image s, d;
    gt_alloc(&s, w, h, 1, GIP_F32, 0);
    gt_alloc(&d, w, h, 1, GIP_U8, 0);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            gt_set(&s, x, y, 0, 100.0 * cos(2 * M_PI * (5.0 * x / w + 3.0 * y / h)));
    if (GT_OK(gt_run_unary(ctx, run_spectrum, &s, &d, NULL, 0x5A))) {
        const uint8_t *p = d.data;
        int64_t peaks = 0, others_max = 0;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int v = p[y * d.stride + x];
                bool at_peak = (x == 37 && y == 27) || (x == 27 && y == 21);
                if (at_peak)
                    peaks += v == 255;
                else if (v > others_max)
                    others_max = v;
            }
        GT_CHECK(peaks == 2, "cosine: %lld of the two peaks are 255", (long long)peaks);
        GT_CHECK(others_max < 255, "cosine: another pixel reaches %lld", (long long)others_max);
    }
    /* The same through the transform itself: |F| = 100 * N / 2 at (5, 3), about 0 elsewhere. */
    gip_image spec, mag;
    gt_alloc(&spec, w / 2 + 1, h, 1, GIP_C32, 0);
    gt_alloc(&mag, w / 2 + 1, h, 1, GIP_F32, 0);
    gip_image ds = work_view(ctx, &s), dspec = work_view(ctx, &spec), dmag = work_view(ctx, &mag);
    GT_OK(gip_fft2(ctx, &ds, &dspec, NULL));
    GT_OK(gip_magnitude(ctx, &dspec, &dmag));
    fetch_view(ctx, &dmag, &mag);
    fetch_view(ctx, &dspec, &spec);
    fetch_view(ctx, &ds, &s);
    double peak = gt_get(&mag, 5, 3, 0), rest = 0;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w / 2 + 1; x++)
            if (!(x == 5 && y == 3))
                rest = fmax(rest, gt_get(&mag, x, y, 0));
    /* Within the per-element bound of the transform (1e-2 would be below the f32 spacing of
     * 153600, 0.0156: the H200 run gave 153599.984375, one unit in the last place off). */
    double norm = 100.0 * sqrt((double)(w * h) / 2.0), tol = fft_tol(w * h, norm);
    GT_CHECK(fabs(peak - 100.0 * w * h / 2) <= tol, "cosine peak |F| = %.6f (tolerance %.3g)", peak,
             tol);
    GT_CHECK(rest <= tol, "cosine: largest other bin %.3g (tolerance %.3g)", rest, tol);
    gt_free(&spec);
    gt_free(&mag);
    gt_free(&s);
    gt_free(&d);
}

/* ---- correlation through the FFT ----------------------------------------------------------- */

static void check_conv(gip_context *ctx, int64_t w, int64_t h, int32_t cn, gip_dtype sdt,
                       gip_dtype ddt, int32_t kw, int32_t kh, int anchor, gip_border mode,
                       uint64_t seed)
{
    gip_image s, d;
    gt_alloc(&s, w, h, cn, sdt, 4);
    gt_alloc(&d, w, h, cn, ddt, 8);
    gt_fill_random(&s, seed, -10.0f, 10.0f);
    float *k = malloc(sizeof(float) * (size_t)(kw * kh));
    uint64_t r = seed;
    double ksum = 0;
    for (int32_t i = 0; i < kw * kh; i++) {
        k[i] = (float)(gt_rand_unit(&r) - 0.3);
        ksum += fabs(k[i]);
    }
    gip_filter2d_params p = {0};
    p.kernel = k;
    p.ksize_w = kw;
    p.ksize_h = kh;
    p.delta = 0.25f;
    p.border.mode = mode;
    for (int i = 0; i < 4; i++)
        p.border.value[i] = 7.0f + i;
    if (anchor) {
        p.has_anchor = 1;
        p.anchor_x = kw > 1 ? 1 : 0;
        p.anchor_y = kh - 1;
    }
    char label[160];
    snprintf(label, sizeof label, "fft_convolve %lldx%lldx%d %s->%s k%dx%d%s %s", (long long)w,
             (long long)h, (int)cn, gip_dtype_name(sdt), gip_dtype_name(ddt), (int)kw, (int)kh,
             anchor ? " anchored" : "", gip_border_name(mode));
    if (GT_OK(gt_run_unary(ctx, run_conv, &s, &d, &p, 0xCD))) {
        double maxsrc = sdt == GIP_U8 ? 255 : sdt == GIP_U16 ? 65535 : 10;
        if (mode == GIP_BORDER_CONSTANT && maxsrc < 10 + cn)
            maxsrc = 10 + cn;
        int64_t m = 1, n = 1;
        while (m < w + kw - 1)
            m *= 2;
        while (n < h + kh - 1)
            n *= 2;
        /* The forward, product and inverse each within the bound above, with ||x|| replaced by
         * its worst case sum|k| * max|src| * sqrt(MN) spread over MN bins: relative to the output
         * scale sum|k| * max|src| the error is FFT_K * 2^-24 * log2(2MN) per transform, three of
         * them. */
        double tol = 3 * FFT_K * EPS32 * log2(2.0 * (double)(4 * m * n)) * ksum * maxsrc + 1e-6;
        int32_t ax = anchor ? p.anchor_x : kw / 2, ay = anchor ? p.anchor_y : kh / 2;
        int64_t bad = 0;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int32_t c = 0; c < cn; c++) {
                    double e = ref_correlate(&s, c, x, y, k, kw, kh, ax, ay, p.border, p.delta);
                    double g = gt_get(&d, x, y, c);
                    bool ok;
                    if (ddt == GIP_F32) {
                        ok = fabs(g - e) <= tol;
                    } else {
                        double hi = ddt == GIP_U8 ? 255 : 65535;
                        double ec = e < 0 ? 0 : e > hi ? hi : e;
                        ok = fabs(g - ec) <= 0.5 + tol;
                    }
                    if (!ok && bad++ == 0)
                        fprintf(stderr, "FAIL %s at x=%lld y=%lld c=%d: got %.9g expected %.9g\n",
                                label, (long long)x, (long long)y, (int)c, g, e);
                }
        GT_CHECK(bad == 0, "%s: %lld mismatches (tolerance %.3g)", label, (long long)bad, tol);
    }
    GT_CHECK(gt_padding_intact(&d), "%s: padding", label);
    free(k);
    gt_free(&s);
    gt_free(&d);
}

static void test_convolve(gip_context *ctx)
{
    static const gt_size sizes[] = {{1, 1}, {17, 1}, {1, 17}, {13, 42}, {64, 48}};
    static const struct {
        int32_t kw, kh;
        int anchor;
    } ks[] = {{1, 1, 0}, {3, 3, 0}, {5, 7, 1}, {15, 15, 0}, {4, 2, 0}};
    uint64_t seed = 1;
    for (int si = 0; si < 5; si++)
        for (int ki = 0; ki < 5; ki++)
            for (int b = 0; b <= GIP_BORDER_WRAP; b++)
                check_conv(ctx, sizes[si].w, sizes[si].h, 1, GIP_F32, GIP_F32, ks[ki].kw, ks[ki].kh,
                           ks[ki].anchor, (gip_border)b, seed++);
    for (int b = 0; b <= GIP_BORDER_WRAP; b++) {
        check_conv(ctx, 13, 42, 3, GIP_U8, GIP_U8, 5, 7, 1, (gip_border)b, seed++);
        check_conv(ctx, 64, 48, 4, GIP_U16, GIP_U16, 3, 3, 0, (gip_border)b, seed++);
        check_conv(ctx, 64, 48, 3, GIP_U8, GIP_F32, 15, 15, 0, (gip_border)b, seed++);
    }
    check_conv(ctx, 301, 203, 1, GIP_F32, GIP_F32, 31, 31, 0, GIP_BORDER_REFLECT_101, seed++);
}

/* ---- CPU against GPU ----------------------------------------------------------------------- */

static void test_cpu_vs_gpu(gip_context *ctx)
{
    if (!on_cuda(ctx))
        return;
    gip_context_desc cd = {GIP_BACKEND_CPU, 0, 0, 0};
    gip_context *cpu = NULL;
    if (!GT_OK(gip_context_create(&cd, &cpu)))
        return;
    int64_t w = 1001, h = 777, n = w * h;
    gip_image s, a, b;
    gt_alloc(&s, w, h, 1, GIP_U8, 4);
    gt_alloc(&a, w / 2 + 1, h, 1, GIP_C32, 0);
    gt_alloc(&b, w / 2 + 1, h, 1, GIP_C32, 0);
    gt_fill_random(&s, 5, 0, 0);
    GT_OK(gt_run_unary(ctx, run_fft2, &s, &a, NULL, 0xCD));
    GT_OK(gt_run_unary(cpu, run_fft2, &s, &b, NULL, 0xCD));
    double nx = 0;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            nx += gt_get(&s, x, y, 0) * gt_get(&s, x, y, 0);
    /* Norm-wise, as FFT accuracy is stated: ||a - b|| / ||b|| within twice the bound relative to
     * ||x|| (Parseval: ||X|| = sqrt(N) ||x|| for the full spectrum). The per-element bound holds
     * for the small sizes checked against the double DFT; at 1001x777 (factors 7, 11, 13, 37)
     * cuFFT's largest element difference from FFTW was 4.3 against a per-element bound of 2.55 on
     * the H200, so the element-wise form is not a statement either library makes. */
    double diff2 = 0, ref2 = 0;
    for (int64_t y = 0; y < h; y++) {
        const float *pa = (const float *)((char *)a.data + y * a.stride);
        const float *pb = (const float *)((char *)b.data + y * b.stride);
        for (int64_t i = 0; i < 2 * a.width; i++) {
            double d = (double)pa[i] - pb[i];
            diff2 += d * d;
            ref2 += (double)pb[i] * pb[i];
        }
    }
    double rel = sqrt(diff2 / ref2), tol = 2 * fft_tol(n, 1.0);
    GT_CHECK(rel <= tol && ref2 > 0 && (double)n * nx > 0,
             "fft2 1001x777 u8: CPU and GPU differ by %.3g relative (tolerance %.3g)", rel, tol);
    gt_free(&s);
    gt_free(&a);
    gt_free(&b);
    gip_context_destroy(cpu);
}

/* ---- bad input ------------------------------------------------------------------------------ */

/* Calls an operation with bad arguments; checks the status, the message (GT_STATUS) and that dst
 * was not written. */
#define BAD(call, status, dstimg)                                                                  \
    do {                                                                                           \
        gt_poison((dstimg), 0x3C);                                                                 \
        GT_STATUS((call), (status));                                                               \
        GT_CHECK(untouched((dstimg), 0x3C), "%s wrote its output", #call);                         \
    } while (0)

static bool untouched(const gip_image *img, uint8_t v)
{
    int64_t row = gip_image_row_bytes(img);
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t i = 0; i < row; i++)
            if (((const uint8_t *)img->data)[y * img->stride + i] != v)
                return false;
    return true;
}

static void test_bad_input(gip_context *ctx)
{
    gip_image r, r16, s16, c, half, halfw, cw, f3, u8o, f1;
    gt_alloc(&r, 8, 6, 1, GIP_F32, 0);
    gt_alloc(&r16, 8, 6, 1, GIP_U16, 0);
    gt_alloc(&s16, 8, 6, 1, GIP_S16, 0);
    gt_alloc(&c, 8, 6, 1, GIP_C32, 0);
    gt_alloc(&half, 5, 6, 1, GIP_C32, 0);
    gt_alloc(&halfw, 8, 6, 1, GIP_C32, 0); /* full width where a half is needed */
    gt_alloc(&cw, 7, 6, 1, GIP_C32, 0);
    gt_alloc(&f3, 8, 6, 3, GIP_F32, 0);
    gt_alloc(&u8o, 8, 6, 1, GIP_U8, 0);
    gt_alloc(&f1, 8, 6, 1, GIP_F32, 0);
    gt_fill_random(&r, 1, -1, 1);
    gt_fill_random(&c, 2, -1, 1);
    gt_fill_random(&f3, 3, -1, 1);
    gip_fft_params badnorm = {(gip_fft_norm)7, 0}, badflags = {GIP_FFT_NORM_BACKWARD, 0x10};

    /* gip_fft2 */
    BAD(gip_fft2(NULL, &r, &half, NULL), GIP_ERR_INVALID_ARGUMENT, &half);
    BAD(gip_fft2(ctx, NULL, &half, NULL), GIP_ERR_INVALID_ARGUMENT, &half);
    GT_STATUS(gip_fft2(ctx, &r, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    BAD(gip_fft2(ctx, &r, &halfw, NULL), GIP_ERR_SHAPE_MISMATCH, &halfw);
    BAD(gip_fft2(ctx, &c, &half, NULL), GIP_ERR_SHAPE_MISMATCH, &half);
    BAD(gip_fft2(ctx, &r, &f1, NULL), GIP_ERR_UNSUPPORTED, &f1);
    BAD(gip_fft2(ctx, &s16, &half, NULL), GIP_ERR_UNSUPPORTED, &half);
    BAD(gip_fft2(ctx, &f3, &half, NULL), GIP_ERR_SHAPE_MISMATCH, &half);
    BAD(gip_fft2(ctx, &r, &half, &badnorm), GIP_ERR_INVALID_ARGUMENT, &half);
    BAD(gip_fft2(ctx, &r, &half, &badflags), GIP_ERR_INVALID_ARGUMENT, &half);
    {
        /* Half spectrum overlapping the real source. */
        gip_image alias = half;
        alias.data = r.data;
        alias.stride = 5 * 8;
        GT_STATUS(gip_fft2(ctx, &r, &alias, NULL), GIP_ERR_ALIASING);
        gip_image part = c; /* partial overlap of a complex in-place transform */
        part.height = 5;
        gip_image part2 = c;
        part2.height = 5;
        part2.data = (char *)c.data + c.stride;
        GT_STATUS(gip_fft2(ctx, &part, &part2, NULL), GIP_ERR_ALIASING);
        gip_image odd = r; /* misaligned stride for a float image */
        odd.stride = 8 * 4 + 2;
        odd.height = 2;
        gip_image h2 = half;
        h2.height = 2;
        BAD(gip_fft2(ctx, &odd, &h2, NULL), GIP_ERR_INVALID_ARGUMENT, &h2);
        gip_image neg = r;
        neg.width = -1;
        BAD(gip_fft2(ctx, &neg, &half, NULL), GIP_ERR_INVALID_ARGUMENT, &half);
    }
    /* gip_ifft2 */
    BAD(gip_ifft2(ctx, &r, &c, NULL), GIP_ERR_UNSUPPORTED, &c);
    BAD(gip_ifft2(ctx, &c, &u8o, NULL), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_ifft2(ctx, &halfw, &f1, NULL), GIP_ERR_SHAPE_MISMATCH, &f1); /* needs width 5 */
    BAD(gip_ifft2(ctx, &c, &cw, NULL), GIP_ERR_SHAPE_MISMATCH, &cw);
    BAD(gip_ifft2(ctx, &half, &f1, &badnorm), GIP_ERR_INVALID_ARGUMENT, &f1);
    BAD(gip_ifft2(NULL, &half, &f1, NULL), GIP_ERR_INVALID_ARGUMENT, &f1);
    /* shifts */
    BAD(gip_fftshift(ctx, &u8o, &u8o), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_fftshift(ctx, &r, &c), GIP_ERR_SHAPE_MISMATCH, &c);
    BAD(gip_ifftshift(ctx, &r, &f3), GIP_ERR_SHAPE_MISMATCH, &f3);
    BAD(gip_fftshift(ctx, &c, &cw), GIP_ERR_SHAPE_MISMATCH, &cw);
    GT_STATUS(gip_fftshift(ctx, &r, &r), GIP_ERR_ALIASING);
    BAD(gip_fftshift(NULL, &r, &f1), GIP_ERR_INVALID_ARGUMENT, &f1);
    BAD(gip_ifftshift(ctx, NULL, &f1), GIP_ERR_INVALID_ARGUMENT, &f1);
    /* magnitude, log magnitude, normalisation */
    BAD(gip_magnitude(ctx, &r, &f1), GIP_ERR_UNSUPPORTED, &f1);
    BAD(gip_magnitude(ctx, &c, &u8o), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_log_magnitude(ctx, &cw, &f1, NULL), GIP_ERR_SHAPE_MISMATCH, &f1);
    BAD(gip_log_magnitude(NULL, &c, &f1, NULL), GIP_ERR_INVALID_ARGUMENT, &f1);
    BAD(gip_normalize_minmax(ctx, &c, &u8o), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_normalize_minmax(ctx, &r, &f1), GIP_ERR_UNSUPPORTED, &f1);
    BAD(gip_normalize_minmax(ctx, &f3, &u8o), GIP_ERR_SHAPE_MISMATCH, &u8o);
    BAD(gip_normalize_minmax(ctx, &r16, &u8o), GIP_ERR_UNSUPPORTED, &u8o);
    /* spectrum */
    BAD(gip_spectrum(ctx, &c, &u8o, NULL), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_spectrum(ctx, &s16, &u8o, NULL), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_spectrum(ctx, &r, &f1, NULL), GIP_ERR_UNSUPPORTED, &f1);
    BAD(gip_spectrum(ctx, &half, &u8o, NULL), GIP_ERR_SHAPE_MISMATCH, &u8o);
    BAD(gip_spectrum(NULL, &r, &u8o, NULL), GIP_ERR_INVALID_ARGUMENT, &u8o);
    {
        gip_image alias = u8o;
        alias.data = r.data;
        GT_STATUS(gip_spectrum(ctx, &r, &alias, NULL), GIP_ERR_ALIASING);
    }
    /* fft_convolve */
    float k9[9] = {0};
    gip_filter2d_params cp = {0};
    cp.kernel = k9;
    cp.ksize_w = cp.ksize_h = 3;
    BAD(gip_fft_convolve(ctx, &r, &f1, NULL), GIP_ERR_INVALID_ARGUMENT, &f1);
    gip_filter2d_params bp = cp;
    bp.kernel = NULL;
    BAD(gip_fft_convolve(ctx, &r, &f1, &bp), GIP_ERR_INVALID_ARGUMENT, &f1);
    bp = cp;
    bp.ksize_w = 0;
    BAD(gip_fft_convolve(ctx, &r, &f1, &bp), GIP_ERR_INVALID_ARGUMENT, &f1);
    bp = cp;
    bp.has_anchor = 1;
    bp.anchor_x = 3;
    BAD(gip_fft_convolve(ctx, &r, &f1, &bp), GIP_ERR_INVALID_ARGUMENT, &f1);
    bp = cp;
    bp.border.mode = (gip_border)9;
    BAD(gip_fft_convolve(ctx, &r, &f1, &bp), GIP_ERR_INVALID_ARGUMENT, &f1);
    BAD(gip_fft_convolve(ctx, &r, &u8o, &cp), GIP_ERR_UNSUPPORTED, &u8o);
    BAD(gip_fft_convolve(ctx, &c, &f1, &cp), GIP_ERR_UNSUPPORTED, &f1);
    BAD(gip_fft_convolve(ctx, &f3, &f1, &cp), GIP_ERR_SHAPE_MISMATCH, &f1);
    BAD(gip_fft_convolve(ctx, &r, &cw, &cp), GIP_ERR_SHAPE_MISMATCH, &cw);
    GT_STATUS(gip_fft_convolve(ctx, &r, &r, &cp), GIP_ERR_ALIASING);

    /* Host and device mixed. */
    if (on_cuda(ctx)) {
        gip_image dh = {0};
        if (GT_OK(gip_image_alloc(ctx, &dh, 5, 6, 1, GIP_C32, GIP_MEM_CUDA, 0))) {
            GT_STATUS(gip_fft2(ctx, &r, &dh, NULL), GIP_ERR_LOCATION_MISMATCH);
            GT_STATUS(gip_ifft2(ctx, &dh, &f1, NULL), GIP_ERR_LOCATION_MISMATCH);
            gip_image_free(ctx, &dh);
        }
    } else {
        gip_image fake = half; /* device view on a CPU context */
        fake.memory = GIP_MEM_CUDA;
        GT_STATUS(gip_fft2(ctx, &r, &fake, NULL), GIP_ERR_NO_DEVICE);
    }
    gt_free(&r);
    gt_free(&r16);
    gt_free(&s16);
    gt_free(&c);
    gt_free(&half);
    gt_free(&halfw);
    gt_free(&cw);
    gt_free(&f3);
    gt_free(&u8o);
    gt_free(&f1);
}

/* Plans are reused: the second call of a size must give the same result as the first (cached plan
 * on a fresh buffer), and a measured plan the same within the bound. */
static void test_plan_reuse(gip_context *ctx)
{
    int64_t w = 30, h = 20;
    gip_image s, a, b;
    gt_alloc(&s, w, h, 1, GIP_F32, 0);
    gt_alloc(&a, w / 2 + 1, h, 1, GIP_C32, 0);
    gt_alloc(&b, w / 2 + 1, h, 1, GIP_C32, 0);
    gt_fill_random(&s, 8, -1, 1);
    GT_OK(gt_run_unary(ctx, run_fft2, &s, &a, NULL, 0));
    GT_OK(gt_run_unary(ctx, run_fft2, &s, &b, NULL, 0xFF));
    GT_CHECK(memcmp(a.data, b.data, (size_t)(a.stride * h)) == 0, "cached plan: same result");
    gip_fft_params mp = {GIP_FFT_NORM_BACKWARD, GIP_FFT_MEASURE};
    GT_OK(gt_run_unary(ctx, run_fft2, &s, &b, &mp, 0xFF));
    double worst = 0;
    for (int64_t i = 0; i < 2 * (w / 2 + 1) * h; i++)
        worst = fmax(worst, fabs((double)((float *)a.data)[i] - ((float *)b.data)[i]));
    GT_CHECK(worst < 1e-4, "measured plan differs by %.3g", worst);
    gt_free(&s);
    gt_free(&a);
    gt_free(&b);
}

/* The CPU spectrum's vectorised log power against ln in double, on both code paths: a sweep of
 * powers over every binade of the normal range (every 61st float as re, im = 0, so that the power
 * is the float re * re the function computes), then the values the polynomial does not take
 * (zero, subnormal, infinite and NaN power), which must give what logf gives and stay out of the
 * range when not finite. Bound: 1 ulp of the result (2^-23 |ln p / 2|) plus 3e-8, as documented
 * in src/ops/fft/spectrum_cpu.c; the spectrum test's 1e-3 levels of float slack covers it. */
static void test_log_power(void)
{
    bool prev = gip__spectrum_simd_active();
    for (int simd = 0; simd < 2; simd++) {
        gip__spectrum_set_simd(simd);
        enum { N = 4096 };
        static float c[2 * N], out[N];
        double worst = 0, worst_at = 0;
        int64_t bad = 0, k = 0;
        /* re from 1.1e-19 to 1.8e19: re^2 spans FLT_MIN..FLT_MAX. */
        for (uint32_t u = 0x20000000u; u < 0x5F800000u; u += 61) {
            union {
                uint32_t u;
                float f;
            } b = {u};
            c[2 * k] = b.f;
            c[2 * k + 1] = 0.0f;
            if (++k < N && u + 61 < 0x5F800000u)
                continue;
            float lo = INFINITY, hi = -INFINITY;
            gip__spectrum_log_power(c, out, k, &lo, &hi);
            for (int64_t i = 0; i < k; i++) {
                float pw = c[2 * i] * c[2 * i];
                if (!(pw >= FLT_MIN && pw <= FLT_MAX))
                    continue;
                double e = 0.5 * log((double)pw), err = fabs((double)out[i] - e);
                if (!(err <= ldexp(fabs(e), -23) + 3e-8) && bad++ == 0)
                    fprintf(stderr, "FAIL log power (simd %d) of %a: got %.9g, exact %.9g\n", simd,
                            pw, out[i], e);
                if (err > worst)
                    worst = err, worst_at = e;
            }
            k = 0;
        }
        GT_CHECK(bad == 0,
                 "log power (simd %d): %lld values beyond 1 ulp + 3e-8 (worst %.3g at %.3g)", simd,
                 (long long)bad, worst, worst_at);
        /* 17 values: the AVX2 loop's 16 and a tail of one, specials in both. */
        float sp[34] = {0.0f, 0.0f, 1e-20f, 0.0f,  INFINITY, 0.0f,  NAN,  1.0f,
                        3.0f, 4.0f, 1e20f,  1e20f, 0.0f,     -0.0f, 2.0f, 0.0f};
        for (int i = 8; i < 17; i++)
            sp[2 * i] = (float)i, sp[2 * i + 1] = 1.0f;
        sp[32] = sp[33] = 0.0f; /* the tail: zero power */
        float o[17], lo = INFINITY, hi = -INFINITY;
        gip__spectrum_log_power(sp, o, 17, &lo, &hi);
        float sub = 0.5f * logf(1e-20f * 1e-20f);
        GT_CHECK(o[0] == -INFINITY && o[6] == -INFINITY && o[16] == -INFINITY,
                 "log power (simd %d): zero power gives %g, %g, %g, not -inf", simd, o[0], o[6],
                 o[16]);
        GT_CHECK(o[1] == sub && isfinite(sub),
                 "log power (simd %d): subnormal power gives %g, logf %g", simd, o[1], sub);
        GT_CHECK(o[2] == INFINITY && o[5] == INFINITY && isnan(o[3]),
                 "log power (simd %d): inf/overflow/NaN give %g, %g, %g", simd, o[2], o[5], o[3]);
        GT_CHECK(fabs(o[4] - log(5.0)) < 2e-7, "log power (simd %d): |3+4i| gives %.9g", simd,
                 o[4]);
        GT_CHECK(lo == o[1] && hi == o[15],
                 "log power (simd %d): range [%g, %g], expected [%g, %g]", simd, lo, hi, o[1],
                 o[15]);
        printf("log power (simd %d): largest error %.3g\n", simd, worst);
    }
    gip__spectrum_set_simd(prev);
}

static void body(gip_context *ctx)
{
    test_log_power();
    test_r2c(ctx);
    test_c2c(ctx);
    test_c2r(ctx);
    test_round_trip(ctx);
    test_shift(ctx);
    test_magnitude(ctx);
    test_normalize(ctx);
    test_spectrum(ctx);
    if (!on_cuda(ctx)) { /* the CPU spectrum once more on its portable path */
        bool prev = gip__spectrum_set_simd(false);
        test_spectrum(ctx);
        gip__spectrum_set_simd(prev);
    }
    test_convolve(ctx);
    test_cpu_vs_gpu(ctx);
    test_plan_reuse(ctx);
    test_bad_input(ctx);
    printf("largest FFT error seen: %.3f x 2^-24 log2(2N) ||x|| (bound %.0f)\n", max_ratio, FFT_K);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "fft", body);
}
