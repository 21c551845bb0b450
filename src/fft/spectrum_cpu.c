/* SPDX-License-Identifier: MIT */
/* The spectrum image on the CPU: gray into a float buffer, FFTW real-to-complex, one pass over the
 * half spectrum for the log magnitude and its finite range, one pass normalising the half to
 * levels, one pass gathering the shifted full image from the half by Hermitian symmetry. */
#include <math.h>
#include <pthread.h>

#include "fft.h"

typedef struct spec_arg {
    const gip_image *src;
    gip_image *dst;
    float *real;       /* W x H gray, then (W/2+1) x H log magnitude */
    const float *spec; /* (W/2+1) x H complex */
    uint8_t *q;        /* (W/2+1) x H normalised levels (over the spectrum once it is used) */
    int64_t w, h, hw;
    int mode;
    bool bgr;
    pthread_mutex_t lock;
    float lo, hi;
    bool any;
    gip__norm_coeffs c;
} spec_arg;

static void gray_rows(void *arg, int64_t y0, int64_t y1)
{
    const spec_arg *a = arg;
    const gip_image *s = a->src;
    int32_t cn = s->channels;
    bool rf = !a->bgr;
    for (int64_t y = y0; y < y1; y++) {
        const char *row = (const char *)s->data + y * s->stride;
        float *out = a->real + y * a->w;
        for (int64_t x = 0; x < a->w; x++) {
            int64_t i = x * cn;
            switch (s->dtype) {
            case GIP_U8: {
                const uint8_t *p = (const uint8_t *)row + i;
                out[x] = cn == 1 ? p[0] : gip__gray_int(p[0], p[1], p[2], rf);
                break;
            }
            case GIP_U16: {
                const uint16_t *p = (const uint16_t *)row + i;
                out[x] = cn == 1 ? p[0] : gip__gray_int(p[0], p[1], p[2], rf);
                break;
            }
            default: {
                const float *p = (const float *)row + i;
                out[x] = cn == 1 ? p[0] : gip__gray_f32(p[0], p[1], p[2], rf);
                break;
            }
            }
        }
    }
}

static void log_rows(void *arg, int64_t y0, int64_t y1)
{
    spec_arg *a = arg;
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t y = y0; y < y1; y++) {
        const float *s = a->spec + 2 * y * a->hw;
        float *d = a->real + y * a->hw;
        for (int64_t x = 0; x < a->hw; x++) {
            float v = gip__mag_value(s[2 * x], s[2 * x + 1], a->mode);
            d[x] = v;
            if (isfinite(v)) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    }
    if (lo > hi)
        return;
    pthread_mutex_lock(&a->lock);
    if (!a->any || lo < a->lo)
        a->lo = lo;
    if (!a->any || hi > a->hi)
        a->hi = hi;
    a->any = true;
    pthread_mutex_unlock(&a->lock);
}

/* Levels of the half: each normalised once, though most appear twice in the full image. */
static void quant_rows(void *arg, int64_t y0, int64_t y1)
{
    const spec_arg *a = arg;
    for (int64_t y = y0; y < y1; y++) {
        const float *l = a->real + y * a->hw;
        uint8_t *q = a->q + y * a->hw;
        for (int64_t x = 0; x < a->hw; x++)
            q[x] = gip__norm_apply(l[x], a->c);
    }
}

/* dst(x, y) = Q(kx, ky) with (kx, ky) = ((x + ceil(W/2)) mod W, (y + ceil(H/2)) mod H), and the
 * full spectrum's Q(kx, ky) = half(kx, ky) for kx <= W/2, else half(W - kx, (H - ky) mod H). */
static void write_rows(void *arg, int64_t y0, int64_t y1)
{
    const spec_arg *a = arg;
    int64_t w = a->w, h = a->h, cw = w - w / 2, ch = h - h / 2;
    for (int64_t y = y0; y < y1; y++) {
        int64_t ky = y + ch >= h ? y + ch - h : y + ch;
        int64_t kyc = ky == 0 ? 0 : h - ky;
        const uint8_t *direct = a->q + ky * a->hw, *mirror = a->q + kyc * a->hw;
        uint8_t *d = (uint8_t *)a->dst->data + y * a->dst->stride;
        for (int64_t x = 0; x < w; x++) {
            int64_t kx = x + cw >= w ? x + cw - w : x + cw;
            d[x] = kx < a->hw ? direct[kx] : mirror[w - kx];
        }
    }
}

gip_status gip__spectrum_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                             bool bgr)
{
    int64_t w = src->width, h = src->height, hw = w / 2 + 1;
    size_t real_bytes = gip__fft_round((size_t)(w * h) * sizeof(float));
    size_t spec_bytes = gip__fft_round((size_t)(hw * h) * 2 * sizeof(float));
    gip__fft_scratch s;
    gip_status st = gip__fft_scratch_acquire(ctx, false, real_bytes + spec_bytes, &s);
    if (st)
        return st;
    float *real = s.ptr, *spec = (float *)((char *)s.ptr + real_bytes);
    uintptr_t plan;
    if ((st = gip__fftw_plan(ctx, GIP__FFT_R2C, w, h, 0, real, spec, &plan)))
        goto out_release;
    spec_arg a = {.src = src,
                  .dst = dst,
                  .real = real,
                  .spec = spec,
                  .w = w,
                  .h = h,
                  .hw = hw,
                  .mode = mode,
                  .bgr = bgr,
                  .lock = PTHREAD_MUTEX_INITIALIZER};
    gip__parallel_for(ctx, h, 16, gray_rows, &a);
    gip__fftw_execute(plan, GIP__FFT_R2C, real, spec);
    /* The half's log magnitudes overwrite the gray input ((W/2+1) * H <= W * H floats). */
    gip__parallel_for(ctx, h, 16, log_rows, &a);
    a.c = gip__norm_make(a.lo, a.hi, a.any);
    a.q = (uint8_t *)spec;
    gip__parallel_for(ctx, h, 16, quant_rows, &a);
    gip__parallel_for(ctx, h, 16, write_rows, &a);
    pthread_mutex_destroy(&a.lock);
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
