/* SPDX-License-Identifier: MIT */
/* gip_compare_hist (cv2.compareHist, every method) against long double evaluations of OpenCV's
 * formulas on random and degenerate histograms, and gip_min_max_idx (cv2::minMaxIdx) against
 * gip_min_max_loc with the positions swapped and a scan of all channels; bad input refused with
 * the outputs untouched. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static long double ref(const float *a, const float *b, int64_t n, int method)
{
    long double r = 0, s1 = 0, s2 = 0, s11 = 0, s12 = 0, s22 = 0;
    for (int64_t i = 0; i < n; i++) {
        long double p = a[i], q = b[i];
        s1 += p, s2 += q, s11 += p * p, s12 += p * q, s22 += q * q;
        switch (method) {
        case 1:
            if (fabsl(p) > DBL_EPSILON)
                r += (p - q) * (p - q) / p;
            break;
        case 2:
            r += p < q ? p : q;
            break;
        case 3:
            r += sqrtl(p * q);
            break;
        case 4:
            if (fabsl(p + q) > DBL_EPSILON)
                r += 2 * (p - q) * (p - q) / (p + q);
            break;
        case 5:
            if (fabsl(p) > DBL_EPSILON)
                r += p * logl(p / (fabsl(q) > DBL_EPSILON ? q : 1e-10L));
            break;
        }
    }
    if (method == 0) {
        long double d = (s11 - s1 * s1 / n) * (s22 - s2 * s2 / n);
        return fabsl(d) > DBL_EPSILON ? (s12 - s1 * s2 / n) / sqrtl(d) : 1;
    }
    if (method == 3) {
        long double s = s1 * s2;
        s = fabsl(s) > FLT_EPSILON ? 1 / sqrtl(s) : 1;
        return sqrtl(fmaxl(1 - r * s, 0));
    }
    return r;
}

static void compare_hist(gip_context *ctx)
{
    enum { N = 300 };
    float a[N], b[N];
    uint64_t st = 5;
    for (int trial = 0; trial < 6; trial++) {
        int64_t n = trial == 5 ? 1 : 17 + trial * 50;
        for (int64_t i = 0; i < n; i++) {
            a[i] = trial == 3 ? 0.0f : (float)floor(gt_rand_unit(&st) * 100);
            b[i] = trial == 4 ? a[i] : (float)(gt_rand_unit(&st) * 50);
            if (i % 9 == 0)
                b[i] = 0;
        }
        for (int m = 0; m < 6; m++) {
            double r = -12345;
            if (!GT_OK(gip_compare_hist(ctx, a, b, n, m, &r)))
                continue;
            long double want = ref(a, b, n, m);
            GT_CHECK(fabsl(r - want) <= 1e-12L * (1 + fabsl(want)),
                     "compareHist method %d, %lld bins: got %.17g, expected %.17Lg", m,
                     (long long)n, r, want);
        }
    }
    double r = 7;
    GT_STATUS(gip_compare_hist(ctx, a, b, 10, 6, &r), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_compare_hist(ctx, a, b, 0, 0, &r), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_compare_hist(ctx, NULL, b, 10, 0, &r), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_compare_hist(ctx, a, b, 10, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(r == 7, "a refused call wrote its result");
}

static void min_max_idx(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    uint64_t seed = 1;
    for (int d = 0; d < 4; d++)
        for (int i = 0; i < gt_nsizes; i++)
            for (int32_t cn = 1; cn <= 4; cn += cn == 1 ? 2 : 1) {
                if (!gt_case())
                    continue;
                gip_image src;
                gt_alloc(&src, gt_sizes[i].w, gt_sizes[i].h, cn, dts[d], 3);
                gt_fill_random(&src, seed++, -5.0f, 5.0f);
                double mn, mx;
                if (cn == 1) {
                    double a, b;
                    int64_t la[2], lb[2], ia[2], ib[2];
                    if (GT_OK(gip_min_max_loc(ctx, &src, NULL, &a, &b, la, lb)) &&
                        GT_OK(gip_min_max_idx(ctx, &src, NULL, &mn, &mx, ia, ib)))
                        GT_CHECK(mn == a && mx == b && ia[0] == la[1] && ia[1] == la[0] &&
                                     ib[0] == lb[1] && ib[1] == lb[0],
                                 "minMaxIdx %s %lldx%lld: (%g %g (%lld,%lld) (%lld,%lld))",
                                 gip_dtype_name(dts[d]), (long long)src.width,
                                 (long long)src.height, mn, mx, (long long)ia[0], (long long)ia[1],
                                 (long long)ib[0], (long long)ib[1]);
                } else {
                    double a = INFINITY, b = -INFINITY;
                    for (int64_t y = 0; y < src.height; y++)
                        for (int64_t x = 0; x < src.width; x++)
                            for (int32_t c = 0; c < cn; c++) {
                                double v = gt_get(&src, x, y, c);
                                a = v < a ? v : a;
                                b = v > b ? v : b;
                            }
                    if (GT_OK(gip_min_max_idx(ctx, &src, NULL, &mn, &mx, NULL, NULL)))
                        GT_CHECK(mn == a && mx == b, "minMaxIdx %s c%d: %g %g, expected %g %g",
                                 gip_dtype_name(dts[d]), (int)cn, mn, mx, a, b);
                    int64_t idx[2] = {-5, -5};
                    GT_STATUS(gip_min_max_idx(ctx, &src, NULL, &mn, &mx, idx, NULL),
                              GIP_ERR_UNSUPPORTED);
                    GT_CHECK(idx[0] == -5, "a refused call wrote its output");
                }
                gt_free(&src);
            }
}

static void body(gip_context *ctx)
{
    compare_hist(ctx);
    min_max_idx(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "compare_hist", body);
}
