/* SPDX-License-Identifier: MIT */
/* compareHist (gip_compare_hist) and minMaxIdx (gip_min_max_idx): a comparison of two histograms
 * in host memory with OpenCV's formulas, and minMaxLoc's positions given as (row, column). */
#include <float.h>
#include <math.h>

#include "ops/stats/stats.h"

gip_status gip_compare_hist(gip_context *ctx, const float *h1, const float *h2, int64_t n,
                            int32_t method, double *result)
{
    static const char op[] = "gip_compare_hist";
    if (!h1 || !h2 || !result)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !h1   ? "h1"
                          : !h2 ? "h2"
                                : "result");
    if (n < 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the histograms have %lld bins; at least 1 is needed", op,
                          (long long)n);
    double r = 0.0;
    switch (method) {
    case GIP_HISTCMP_CORREL: {
        double s1 = 0, s2 = 0, s11 = 0, s12 = 0, s22 = 0;
        for (int64_t i = 0; i < n; i++) {
            double a = h1[i], b = h2[i];
            s1 += a;
            s2 += b;
            s11 += a * a;
            s12 += a * b;
            s22 += b * b;
        }
        double scale = 1.0 / (double)n;
        double num = s12 - s1 * s2 * scale;
        double denom2 = (s11 - s1 * s1 * scale) * (s22 - s2 * s2 * scale);
        r = fabs(denom2) > DBL_EPSILON ? num / sqrt(denom2) : 1.0;
        break;
    }
    case GIP_HISTCMP_CHISQR:
    case GIP_HISTCMP_CHISQR_ALT:
        for (int64_t i = 0; i < n; i++) {
            double a = (double)h1[i] - (double)h2[i];
            double b = method == GIP_HISTCMP_CHISQR ? (double)h1[i] : (double)h1[i] + h2[i];
            if (fabs(b) > DBL_EPSILON)
                r += a * a / b;
        }
        if (method == GIP_HISTCMP_CHISQR_ALT)
            r *= 2;
        break;
    case GIP_HISTCMP_INTERSECT:
        for (int64_t i = 0; i < n; i++)
            r += h1[i] < h2[i] ? h1[i] : h2[i];
        break;
    case GIP_HISTCMP_BHATTACHARYYA: {
        double s1 = 0, s2 = 0;
        for (int64_t i = 0; i < n; i++) {
            double a = h1[i], b = h2[i];
            r += sqrt(a * b);
            s1 += a;
            s2 += b;
        }
        s1 *= s2;
        s1 = fabs(s1) > FLT_EPSILON ? 1.0 / sqrt(s1) : 1.0;
        r = 1.0 - r * s1;
        r = sqrt(r > 0 ? r : 0);
        break;
    }
    case GIP_HISTCMP_KL_DIV:
        for (int64_t i = 0; i < n; i++) {
            double p = h1[i], q = h2[i];
            if (fabs(p) <= DBL_EPSILON)
                continue;
            if (fabs(q) <= DBL_EPSILON)
                q = 1e-10;
            r += p * log(p / q);
        }
        break;
    default:
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: method %d is not one of CORREL (0), CHISQR (1), INTERSECT (2), "
                          "BHATTACHARYYA (3), CHISQR_ALT (4), KL_DIV (5)",
                          op, (int)method);
    }
    *result = r;
    return GIP_OK;
}

gip_status gip_min_max_idx(gip_context *ctx, const gip_image *src, const gip_image *mask,
                           double *min_val, double *max_val, int64_t min_idx[2], int64_t max_idx[2])
{
    static const char op[] = "gip_min_max_idx";
    if (src && src->channels > 1) {
        if (mask || min_idx || max_idx)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: src has %d channels; positions and a mask need one channel "
                              "(OpenCV's rule)",
                              op, (int)src->channels);
        double mn[4], mx[4];
        gip_status st = gip_channel_min_max(ctx, src, NULL, mn, mx);
        if (st)
            return st;
        double a = mn[0], b = mx[0];
        for (int32_t c = 1; c < src->channels; c++) {
            a = mn[c] < a ? mn[c] : a;
            b = mx[c] > b ? mx[c] : b;
        }
        if (min_val)
            *min_val = a;
        if (max_val)
            *max_val = b;
        return GIP_OK;
    }
    double a, b;
    int64_t la[2], lb[2];
    gip_status st = gip_min_max_loc(ctx, src, mask, &a, &b, la, lb);
    if (st)
        return st;
    if (min_val)
        *min_val = a;
    if (max_val)
        *max_val = b;
    if (min_idx)
        min_idx[0] = la[1], min_idx[1] = la[0];
    if (max_idx)
        max_idx[0] = lb[1], max_idx[1] = lb[0];
    return GIP_OK;
}
