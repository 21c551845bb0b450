/* SPDX-License-Identifier: MIT */
/* Magnitude, log-magnitude and min-max normalisation to u8 on the CPU. */
#include <math.h>
#include <pthread.h>

#include "magnitude.h"
#include "norm_range.h"

typedef struct mag_arg {
    const gip_image *src;
    gip_image *dst;
    int mode;
} mag_arg;

static void mag_rows(void *arg, int64_t y0, int64_t y1)
{
    const mag_arg *a = arg;
    for (int64_t y = y0; y < y1; y++) {
        const float *s = (const float *)((const char *)a->src->data + y * a->src->stride);
        float *d = (float *)((char *)a->dst->data + y * a->dst->stride);
        for (int64_t x = 0; x < a->src->width; x++)
            d[x] = gip__mag_value(s[2 * x], s[2 * x + 1], a->mode);
    }
}

gip_status gip__magnitude_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode)
{
    mag_arg a = {src, dst, mode};
    gip__parallel_for(ctx, src->height, 16, mag_rows, &a);
    return GIP_OK;
}

typedef struct norm_arg {
    const gip_image *src;
    gip_image *dst;
    gip__norm_range range;
    gip__norm_coeffs c;
} norm_arg;

static void range_rows(void *arg, int64_t y0, int64_t y1)
{
    norm_arg *a = arg;
    float lo = INFINITY, hi = -INFINITY;
    int64_t n = a->src->width * a->src->channels;
    for (int64_t y = y0; y < y1; y++) {
        const float *s = (const float *)((const char *)a->src->data + y * a->src->stride);
        for (int64_t i = 0; i < n; i++) {
            float v = s[i];
            if (isfinite(v)) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    }
    gip__norm_range_fold(&a->range, lo, hi);
}

static void write_rows(void *arg, int64_t y0, int64_t y1)
{
    const norm_arg *a = arg;
    int64_t n = a->src->width * a->src->channels;
    for (int64_t y = y0; y < y1; y++) {
        const float *s = (const float *)((const char *)a->src->data + y * a->src->stride);
        uint8_t *d = (uint8_t *)a->dst->data + y * a->dst->stride;
        for (int64_t i = 0; i < n; i++)
            d[i] = gip__norm_apply(s[i], a->c);
    }
}

gip_status gip__normalize_cpu(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    norm_arg a = {src, dst, GIP__NORM_RANGE_INIT, {0.0f, 0.0f}};
    gip__parallel_for(ctx, src->height, 16, range_rows, &a);
    a.c = gip__norm_make(a.range.lo, a.range.hi, a.range.any);
    gip__parallel_for(ctx, src->height, 16, write_rows, &a);
    pthread_mutex_destroy(&a.range.lock);
    return GIP_OK;
}
