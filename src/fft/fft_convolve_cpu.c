/* SPDX-License-Identifier: MIT */
/* Frequency-domain correlation on the CPU: kernel spectrum once (a 2-D transform, or for a
 * separable kernel two 1-D spectra whose product is formed on the fly), then per channel the
 * border-padded plane, a real-to-complex transform, the product with the kernel's spectrum and
 * the way back. */
#include <string.h>

#include "border.h"
#include "fft.h"

typedef struct conv_arg {
    const gip_image *src;
    gip_image *dst;
    const gip__fftconv_plan *p;
    float *real;
    float *spec;
    const float *kspec; /* m/2+1 x n kernel spectrum, or NULL for a separable kernel: */
    const float *kxs;   /* its 1-D spectra, m/2+1 and n complex values */
    const float *kys;
    const int64_t *mapx; /* padded column u -> source column, -1 for the constant */
    int64_t hm;          /* m/2 + 1 */
    int32_t c;           /* channel in work */
    float scale;         /* 1 / (m n) */
} conv_arg;

static float src_value(const gip_image *s, int64_t x, int64_t y, int32_t c)
{
    const char *row = (const char *)s->data + y * s->stride;
    int64_t i = x * s->channels + c;
    switch (s->dtype) {
    case GIP_U8:
        return ((const uint8_t *)row)[i];
    case GIP_U16:
        return ((const uint16_t *)row)[i];
    default:
        return ((const float *)row)[i];
    }
}

static void pad_rows(void *arg, int64_t v0, int64_t v1)
{
    const conv_arg *a = arg;
    const gip__fftconv_plan *p = a->p;
    int64_t w = a->src->width, h = a->src->height, wp = w + p->kw - 1, hp = h + p->kh - 1;
    float cval = p->border.value[a->c < 4 ? a->c : 0];
    for (int64_t v = v0; v < v1; v++) {
        float *out = a->real + v * p->m;
        int64_t sy = v < hp ? gip__border_index(v - p->ay, h, p->border.mode) : -2;
        if (sy == -2) {
            memset(out, 0, (size_t)p->m * sizeof(float));
            continue;
        }
        for (int64_t u = 0; u < wp; u++) {
            int64_t sx = a->mapx[u];
            out[u] = sy < 0 || sx < 0 ? cval : src_value(a->src, sx, sy, a->c);
        }
        for (int64_t u = wp; u < p->m; u++)
            out[u] = 0.0f;
    }
}

static void multiply_rows(void *arg, int64_t v0, int64_t v1)
{
    const conv_arg *a = arg;
    for (int64_t v = v0; v < v1; v++) {
        float *s = a->spec + 2 * v * a->hm;
        if (!a->kspec) {
            float yr = a->kys[2 * v], yi = a->kys[2 * v + 1];
            for (int64_t i = 0; i < a->hm; i++) {
                float xr = a->kxs[2 * i], xi = a->kxs[2 * i + 1];
                float kr = xr * yr - xi * yi, ki = xr * yi + xi * yr;
                float sr = s[2 * i], si = s[2 * i + 1];
                s[2 * i] = (sr * kr - si * ki) * a->scale;
                s[2 * i + 1] = (sr * ki + si * kr) * a->scale;
            }
            continue;
        }
        const float *k = a->kspec + 2 * v * a->hm;
        for (int64_t i = 0; i < a->hm; i++) {
            float sr = s[2 * i], si = s[2 * i + 1], kr = k[2 * i], ki = k[2 * i + 1];
            s[2 * i] = (sr * kr - si * ki) * a->scale;
            s[2 * i + 1] = (sr * ki + si * kr) * a->scale;
        }
    }
}

static void out_rows(void *arg, int64_t y0, int64_t y1)
{
    const conv_arg *a = arg;
    const gip_image *d = a->dst;
    int32_t cn = d->channels;
    for (int64_t y = y0; y < y1; y++) {
        const float *in = a->real + y * a->p->m;
        char *row = (char *)d->data + y * d->stride;
        for (int64_t x = 0; x < d->width; x++) {
            float v = in[x] + a->p->delta;
            int64_t i = x * cn + a->c;
            switch (d->dtype) {
            case GIP_U8:
                ((uint8_t *)row)[i] = gip__sat_u8_f32(v);
                break;
            case GIP_U16:
                ((uint16_t *)row)[i] = gip__sat_u16_f32(v);
                break;
            default:
                ((float *)row)[i] = v;
                break;
            }
        }
    }
}

gip_status gip__fft_convolve_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const gip__fftconv_plan *p)
{
    int64_t m = p->m, n = p->n, hm = m / 2 + 1, w = src->width;
    int64_t wp = w + p->kw - 1;
    size_t real_bytes = gip__fft_round((size_t)(m * n) * sizeof(float));
    size_t spec_bytes = gip__fft_round((size_t)(hm * n) * 2 * sizeof(float));
    size_t map_bytes = gip__fft_round((size_t)wp * sizeof(int64_t));
    bool sep = p->kx != NULL;
    /* Separable: two 1-D spectra and the twiddles of the longer side instead of a 2-D one. */
    int64_t tlen = m > n ? m : n;
    size_t k_bytes = sep ? gip__fft_round((size_t)(hm + n) * 2 * sizeof(float)) +
                               gip__fft_round((size_t)tlen * 2 * sizeof(double))
                         : spec_bytes;
    gip__fft_scratch s;
    gip_status st =
        gip__fft_scratch_acquire(ctx, false, real_bytes + spec_bytes + k_bytes + map_bytes, &s);
    if (st)
        return st;
    char *base = s.ptr;
    float *real = (float *)base, *spec = (float *)(base + real_bytes);
    float *kspec = (float *)(base + real_bytes + spec_bytes);
    int64_t *mapx = (int64_t *)(base + real_bytes + spec_bytes + k_bytes);
    uintptr_t r2c, c2r;
    if ((st = gip__fftw_plan(ctx, GIP__FFT_R2C, m, n, 0, real, spec, &r2c)) ||
        (st = gip__fftw_plan(ctx, GIP__FFT_C2R, m, n, 0, spec, real, &c2r)))
        goto out_release;

    /* The kernel, flipped around the origin with wrap-around, so that the circular convolution
     * of the padded plane with it is the correlation: out(x, y) = sum k(i, j) P(x + i, y + j). */
    float *kxs = NULL, *kys = NULL;
    if (sep) {
        kxs = kspec;
        kys = kspec + 2 * hm;
        double *table = (double *)((char *)kspec + gip__fft_round((size_t)(hm + n) * 2 * 4));
        gip__fft_twiddles(m, table);
        gip__fft_taps_spectrum(p->kx, p->kw, m, hm, table, kxs);
        gip__fft_twiddles(n, table);
        gip__fft_taps_spectrum(p->ky, p->kh, n, n, table, kys);
        kspec = NULL;
    } else {
        memset(real, 0, (size_t)(m * n) * sizeof(float));
        for (int64_t j = 0; j < p->kh; j++)
            for (int64_t i = 0; i < p->kw; i++)
                real[((n - j) % n) * m + (m - i) % m] = p->kernel[j * p->kw + i];
        gip__fftw_execute(r2c, GIP__FFT_R2C, real, kspec);
    }
    for (int64_t u = 0; u < wp; u++)
        mapx[u] = gip__border_index(u - p->ax, w, p->border.mode);

    conv_arg a = {src, dst, p,    real, spec, kspec,
                  kxs, kys, mapx, hm,   0,    (float)(1.0 / ((double)m * n))};
    for (int32_t c = 0; c < src->channels; c++) {
        a.c = c;
        gip__parallel_for(ctx, n, 16, pad_rows, &a);
        gip__fftw_execute(r2c, GIP__FFT_R2C, real, spec);
        gip__parallel_for(ctx, n, 16, multiply_rows, &a);
        gip__fftw_execute(c2r, GIP__FFT_C2R, spec, real);
        gip__parallel_for(ctx, src->height, 16, out_rows, &a);
    }
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
