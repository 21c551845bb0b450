/* SPDX-License-Identifier: MIT */
/* threshold (gip_threshold, gip_threshold_value): the fixed threshold as a point operation, the
 * histogram methods (Otsu, triangle) as OpenCV computes them, and the registry entry of the fixed
 * threshold (threshold_auto.c registers the histogram methods). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gip/point.h"
#include "ops/op_check.h"
#include "pointwise.h"
#include "registry/registry.h"
#include "threshold.h"

#define DT_THRESH GIP__DT_DEPTHS

/* OpenCV's getThreshVal_Otsu_8u: the level maximising the between-class variance. */
static double otsu(const uint64_t h[256], uint64_t total)
{
    double mu = 0, scale = 1.0 / (double)total;
    for (int i = 0; i < 256; i++)
        mu += i * (double)h[i];
    mu *= scale;
    double mu1 = 0, q1 = 0, max_sigma = 0, max_val = 0;
    for (int i = 0; i < 256; i++) {
        double p_i = (double)h[i] * scale;
        mu1 *= q1;
        q1 += p_i;
        double q2 = 1.0 - q1;
        if (fmin(q1, q2) < FLT_EPSILON || fmax(q1, q2) > 1.0 - FLT_EPSILON)
            continue;
        mu1 = (mu1 + i * p_i) / q1;
        double mu2 = (mu - q1 * mu1) / q2;
        double sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2);
        if (sigma > max_sigma) {
            max_sigma = sigma;
            max_val = i;
        }
    }
    return max_val;
}

/* OpenCV's getThreshVal_Triangle_8u: the level farthest from the line between the histogram's
 * peak and its far end (the histogram flipped when the long side is on the left). */
static double triangle(const uint64_t hist[256])
{
    int64_t h[256];
    for (int i = 0; i < 256; i++)
        h[i] = (int64_t)hist[i];
    int left = 0, right = 0, max_ind = 0;
    int64_t max = 0;
    for (int i = 0; i < 256; i++)
        if (h[i] > 0) {
            left = i;
            break;
        }
    if (left > 0)
        left--;
    for (int i = 255; i > 0; i--)
        if (h[i] > 0) {
            right = i;
            break;
        }
    if (right < 255)
        right++;
    for (int i = 0; i < 256; i++)
        if (h[i] > max) {
            max = h[i];
            max_ind = i;
        }
    bool flipped = false;
    if (max_ind - left < right - max_ind) {
        flipped = true;
        for (int i = 0, j = 255; i < j; i++, j--) {
            int64_t t = h[i];
            h[i] = h[j];
            h[j] = t;
        }
        left = 255 - right;
        max_ind = 255 - max_ind;
    }
    double thresh = left, a = (double)max, b = left - max_ind, dist = 0;
    for (int i = left + 1; i <= max_ind; i++) {
        double d = a * i + b * (double)h[i];
        if (d > dist) {
            dist = d;
            thresh = i;
        }
    }
    thresh--;
    if (flipped)
        thresh = 255 - thresh;
    return thresh;
}

static gip_status hist_value(gip_context *ctx, const gip_image *src, int32_t method, bool on_device,
                             double *out)
{
    uint64_t h[256] = {0};
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        gip_status st = gip__hist_u8_cuda(ctx, src, h);
        if (st)
            return st;
#else
        return gip__cuda_not_built(ctx, "gip_threshold");
#endif
    } else {
        for (int64_t y = 0; y < src->height; y++) {
            const uint8_t *r = (const uint8_t *)src->data + y * src->stride;
            for (int64_t x = 0; x < src->width; x++)
                h[r[x]]++;
        }
    }
    *out = method == GIP_THRESH_OTSU ? otsu(h, (uint64_t)(src->width * src->height)) : triangle(h);
    return GIP_OK;
}

static gip_status check_method(gip_context *ctx, const gip_image *src, int32_t method,
                               const char *op)
{
    if (method != GIP_THRESH_OTSU && method != GIP_THRESH_TRIANGLE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the histogram method must be GIP_THRESH_OTSU (8) or "
                          "GIP_THRESH_TRIANGLE (16), got %d",
                          op, (int)method);
    if (src->dtype != GIP_U8 || src->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: Otsu and triangle thresholds take u8 images with one channel, got "
                          "%d-channel %s",
                          op, (int)src->channels, gip_dtype_name(src->dtype));
    return GIP_OK;
}

gip_status gip_threshold_value(gip_context *ctx, const gip_image *src, int32_t method,
                               double *thresh)
{
    static const char op[] = "gip_threshold_value";
    if (!thresh)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: thresh is NULL", op);
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, src, op, &on_device);
    if (st || (st = check_method(ctx, src, method, op)))
        return st;
    return hist_value(ctx, src, method, on_device, thresh);
}

gip_status gip_threshold(gip_context *ctx, const gip_image *src, gip_image *dst, double thresh,
                         double maxval, int32_t type, double *computed)
{
    static const char op[] = "gip_threshold";
    bool on_device = false;
    gip_status st = gip__pw_check(ctx, src, dst, op, DT_THRESH, -1, false, true, &on_device);
    if (st)
        return st;
    int32_t rule = type & 7, method = type & ~7;
    if (rule > GIP_THRESH_TOZERO_INV ||
        (method != 0 && method != GIP_THRESH_OTSU && method != GIP_THRESH_TRIANGLE))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: type %d is not a threshold type: BINARY (0), BINARY_INV (1), "
                          "TRUNC (2), TOZERO (3) or TOZERO_INV (4), plus OTSU (8) or TRIANGLE "
                          "(16)",
                          op, (int)type);
    if (!isfinite(maxval) || (!method && isnan(thresh)))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: thresh and maxval must be numbers",
                          op);
    if (method) {
        if ((st = check_method(ctx, src, method, op)) ||
            (st = hist_value(ctx, src, method, on_device, &thresh)))
            return st;
    }
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_THRESH;
    p.sub = rule;
    float t, m;
    if (src->dtype == GIP_F32) {
        t = (float)thresh;
        m = (float)maxval;
    } else {
        /* OpenCV: an integer threshold floor(thresh), maxval rounded and saturated to the dtype
         * (TRUNC's maxval is the threshold). Clamped first so that the float compare of the
         * element function sees the same order as the integer compare. */
        double lo = src->dtype == GIP_S16 ? -32769 : -1;
        double hi = src->dtype == GIP_U8 ? 256 : src->dtype == GIP_U16 ? 65536 : 32768;
        thresh = floor(thresh);
        double tc = thresh < lo ? lo : thresh > hi ? hi : thresh;
        t = (float)tc;
        m = gip__pw_scalar_as(src->dtype, maxval);
    }
    for (int c = 0; c < 4; c++)
        p.v[c] = t, p.w[c] = m;
    if (computed)
        *computed = thresh;
    return gip__pw_run(ctx, src, NULL, dst, &p, on_device);
}

/* ---- the registry's threshold ---------------------------------------------------------------- */

const gip_choice gip__thresh_choices[] = {
    {"binary", GIP_THRESH_BINARY},         {"binary_inv", GIP_THRESH_BINARY_INV},
    {"trunc", GIP_THRESH_TRUNC},           {"tozero", GIP_THRESH_TOZERO},
    {"tozero_inv", GIP_THRESH_TOZERO_INV}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("thresh", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e30,
                  1e30, 0, NULL, NULL,
                  "the threshold (floor(thresh) for integer images, as OpenCV)", "128"),
    GIP__PARAM("maxval", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "255",
               "the value of BINARY and BINARY_INV (rounded and saturated for integers)"),
    GIP__PARAM("type", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, gip__thresh_choices,
               "binary", "the rule, cv2.THRESH_*"),
};

typedef struct threshold_step {
    double thresh, maxval;
    int32_t type;
} threshold_step;

static gip_status build(const gip_args *a, void *out)
{
    threshold_step *t = out;
    t->thresh = gip_args_double(a, "thresh");
    t->maxval = gip_args_double(a, "maxval");
    t->type = (int32_t)gip_args_int(a, "type");
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const threshold_step *t = p;
    return gip_threshold(ctx, src, dst, t->thresh, t->maxval, t->type, NULL);
}

const gip_op gip__op_threshold = {
    .name = "threshold",
    .family = "point",
    .summary = "Fixed-level threshold of every element, as cv2.threshold.",
    .doc = "binary: x > thresh ? maxval : 0; binary_inv: x > thresh ? 0 : maxval; trunc: "
           "min(x, thresh); tozero: x > thresh ? x : 0; tozero_inv: x > thresh ? 0 : x. Integer "
           "images compare with floor(thresh) and take maxval rounded and saturated, as OpenCV; "
           "f32 compares in single precision. Otsu and triangle thresholds are threshold_auto.",
    .cv_name = "cv2.threshold",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE,
    .params_size = sizeof(threshold_step),
    .build = build,
    .run = run,
};
