/* SPDX-License-Identifier: MIT */
/* gip_moments and gip_hu_moments (cv2.moments, cv2.HuMoments): spatial, central and normalised
 * moments against long double sums of their definitions on every dtype, awkward size and padded
 * stride, plain and binary; the Hu invariants against their textbook formulas; bad input
 * refused with the output untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static const int P[10] = {0, 1, 0, 2, 1, 0, 3, 2, 1, 0}, Q[10] = {0, 0, 1, 0, 1, 2, 0, 1, 2, 3};

static void check_one(gip_context *ctx, gip_dtype dt, int64_t w, int64_t h, bool binary,
                      uint64_t seed)
{
    gip_image src;
    gt_alloc(&src, w, h, 1, dt, seed % 2 ? 5 : 0);
    gt_fill_random(&src, seed, -2.0f, 3.0f);
    for (int64_t i = 0; i < w * h; i += 7) /* zeros, for the binary case */
        gt_set(&src, i % w, i / w, 0, 0.0);
    long double m[10] = {0}, a[10] = {0};
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            long double v = gt_get(&src, x, y, 0);
            if (binary)
                v = v != 0;
            for (int k = 0; k < 10; k++) {
                long double t = v * powl((long double)x, P[k]) * powl((long double)y, Q[k]);
                m[k] += t;
                a[k] += fabsl(t);
            }
        }
    long double cx = m[0] != 0 ? m[1] / m[0] : 0, cy = m[0] != 0 ? m[2] / m[0] : 0;
    long double mu[10] = {0}, ma[10] = {0};
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            long double v = gt_get(&src, x, y, 0);
            if (binary)
                v = v != 0;
            for (int k = 3; k < 10; k++) {
                long double t = v * powl(x - cx, P[k]) * powl(y - cy, Q[k]);
                mu[k] += t;
                ma[k] += fabsl(t);
            }
        }
    gip_image_moments r;
    char label[96];
    snprintf(label, sizeof label, "%s %lldx%lld%s", gip_dtype_name(dt), (long long)w, (long long)h,
             binary ? " binary" : "");
    if (!GT_OK(gip_moments(ctx, &src, binary, &r))) {
        gt_free(&src);
        return;
    }
    const double *sp = &r.m00, *ce = &r.mu20, *nu = &r.nu20;
    static const char *const names[10] = {"m00", "m10", "m01", "m20", "m11",
                                          "m02", "m30", "m21", "m12", "m03"};
    /* integer images are summed exactly per row: only double rounding of the rows' combination
     * (f32: of every term) */
    for (int k = 0; k < 10; k++)
        GT_CHECK(fabsl(sp[k] - m[k]) <= 1e-13L * a[k], "%s %s: got %.17g, expected %.17Lg", label,
                 names[k], sp[k], m[k]);
    /* central moments are differences of the spatial ones (OpenCV's formulas): their error is
     * relative to the spatial sums of magnitudes they come from */
    for (int k = 3; k < 10; k++) {
        long double tol = 1e-12L * (a[k] + ma[k]) + 1e-300L;
        GT_CHECK(fabsl(ce[k - 3] - mu[k]) <= tol, "%s mu%d%d: got %.17g, expected %.17Lg", label,
                 P[k], Q[k], ce[k - 3], mu[k]);
        long double s = m[0] != 0 ? powl(fabsl(m[0]), 1.0L + (P[k] + Q[k]) / 2.0L) : 0;
        long double want = s != 0 ? mu[k] / s : 0;
        GT_CHECK(fabsl(nu[k - 3] - want) <= (s != 0 ? tol / s : 0) * 2,
                 "%s nu%d%d: got %.17g, expected %.17Lg", label, P[k], Q[k], nu[k - 3], want);
    }
    gt_free(&src);
}

static void hu_check(void)
{
    gip_image_moments m = {0};
    double *nu = &m.nu20;
    uint64_t st = 9;
    for (int k = 0; k < 7; k++)
        nu[k] = gt_rand_unit(&st) - 0.4;
    double n20 = m.nu20, n11 = m.nu11, n02 = m.nu02, n30 = m.nu30, n21 = m.nu21, n12 = m.nu12,
           n03 = m.nu03;
    double a = n30 + n12, b = n21 + n03, c = n30 - 3 * n12, d = 3 * n21 - n03;
    double want[7] = {n20 + n02,
                      (n20 - n02) * (n20 - n02) + 4 * n11 * n11,
                      c * c + d * d,
                      a * a + b * b,
                      c * a * (a * a - 3 * b * b) + d * b * (3 * a * a - b * b),
                      (n20 - n02) * (a * a - b * b) + 4 * n11 * a * b,
                      d * a * (a * a - 3 * b * b) - c * b * (3 * a * a - b * b)};
    double hu[7];
    if (GT_OK(gip_hu_moments(&m, hu)))
        for (int k = 0; k < 7; k++)
            GT_CHECK(fabs(hu[k] - want[k]) <= 1e-14 * (1 + fabs(want[k])),
                     "hu[%d]: got %.17g, expected %.17g", k, hu[k], want[k]);
    GT_STATUS(gip_hu_moments(NULL, hu), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_hu_moments(&m, NULL), GIP_ERR_INVALID_ARGUMENT);
}

static void bad_input(gip_context *ctx)
{
    gip_image_moments m, before;
    memset(&m, 0x5A, sizeof m);
    before = m;
    gip_image c3, c64;
    gt_alloc(&c3, 4, 4, 3, GIP_U8, 0);
    gt_alloc(&c64, 4, 4, 1, GIP_DTYPE_NONE + 5, 0);
    GT_STATUS(gip_moments(ctx, &c3, 0, &m), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_moments(ctx, &c64, 0, &m), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_moments(ctx, NULL, 0, &m), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(!memcmp(&m, &before, sizeof m), "a refused call wrote its output");
    GT_STATUS(gip_moments(ctx, &c3, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    gt_free(&c3);
    gt_free(&c64);
}

/* On CUDA: a device image's moments against a CPU context's on the same pixels: integer images
 * identical (both exact per row, rows combined in the same order), f32 within 1e-12 relative to
 * the sums of magnitudes. */
static void cuda_vs_cpu(gip_context *ctx, gip_dtype dt, int64_t w, int64_t h, bool binary,
                        uint64_t seed)
{
    gip_context *cpu = NULL;
    gip_context_desc desc = {.backend = GIP_BACKEND_CPU};
    if (!GT_OK(gip_context_create(&desc, &cpu)))
        return;
    gip_image src, dev;
    gt_alloc(&src, w, h, 1, dt, 0);
    gt_fill_random(&src, seed, -2.0f, 3.0f);
    if (GT_OK(gip_image_alloc(ctx, &dev, w, h, 1, dt, GIP_MEM_CUDA, 0))) {
        gip_image_moments a, b;
        if (GT_OK(gip_upload(ctx, &src, &dev)) && GT_OK(gip_moments(ctx, &dev, binary, &a)) &&
            GT_OK(gip_moments(cpu, &src, binary, &b))) {
            const double *x = &a.m00, *y = &b.m00;
            for (int k = 0; k < 24; k++) {
                double tol = dt == GIP_F32 ? 1e-12 * (fabs(y[k]) + fabs(y[0]) + 1) : 0.0;
                if (k >= 10 && dt == GIP_F32) /* central: differences of large sums */
                    tol = 1e-9 * (fabs(y[3]) + fabs(y[6]) + fabs(y[0]) + 1);
                GT_CHECK(fabs(x[k] - y[k]) <= tol, "CUDA %s %lldx%lld moment %d: %.17g, CPU %.17g",
                         gip_dtype_name(dt), (long long)w, (long long)h, k, x[k], y[k]);
            }
        }
        gip_image_free(ctx, &dev);
    }
    gt_free(&src);
    gip_context_destroy(cpu);
}

static void body(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    uint64_t seed = 1;
    for (int d = 0; d < 4; d++)
        for (int i = 0; i < gt_nsizes; i++)
            for (int b = 0; b < 2; b++)
                if (gt_case())
                    check_one(ctx, dts[d], gt_sizes[i].w, gt_sizes[i].h, b, seed++);
    /* rows past the exact integer path (u8 8192 wide, u16 and s16 2048) */
    if (gt_case())
        check_one(ctx, GIP_U8, 9000, 3, false, 99);
    if (gt_case())
        check_one(ctx, GIP_U16, 3000, 5, false, 98);
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA)
        for (int d = 0; d < 4; d++)
            for (int i = 0; i < gt_nsizes; i++)
                if (gt_case())
                    cuda_vs_cpu(ctx, dts[d], gt_sizes[i].w, gt_sizes[i].h, i % 2, seed++);
    hu_check();
    bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "moments", body);
}
