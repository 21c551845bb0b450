/* SPDX-License-Identifier: MIT */
/* Quick timing of the FFT family (not a test, not the benchmark harness): spectrum and fft2 r2c at
 * 3840x2160, and the direct-versus-FFT correlation crossover at 1920x1080 f32.
 * Build against a gip build dir (CPU or CUDA):
 *   cc -O3 -fopenmp -Iinclude tests/perf/fft_timing.c build/libgip.a -lfftw3f_omp -lfftw3f \
 *      -ljpeg -lpng -lm [-L/usr/local/cuda/lib64 -lcufft -lnvrtc -lcudart_static -lstdc++ -ldl
 * -lrt] Run: fft_timing cpu [threads] | fft_timing cuda. Prints medians in ms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gip/gip.h"
#include "gip/fft.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef gip_status (*op_fn)(gip_context *, const gip_image *, gip_image *, const void *);
static gip_status op_spectrum(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_spectrum(c, s, d, p);
}
static gip_status op_fft2(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft2(c, s, d, p);
}
static gip_status op_conv(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft_convolve(c, s, d, p);
}

static double time_op(gip_context *ctx, op_fn fn, const gip_image *s, gip_image *d, const void *p,
                      int reps)
{
    double t[64];
    if (fn(ctx, s, d, p) || gip_context_sync(ctx)) {
        fprintf(stderr, "failed: %s\n", gip_last_error());
        exit(1);
    }
    for (int i = 0; i < reps; i++) {
        double t0 = now_ms();
        fn(ctx, s, d, p);
        gip_context_sync(ctx);
        t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    return t[reps / 2];
}

/* A direct correlation as a tuned filter would do it (padded plane, vectorisable row loops). */
static void direct(const float *pad, int64_t pw, int64_t w, int64_t h, const float *k, int kw,
                   int kh, float *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        float *o = out + y * w;
        memset(o, 0, sizeof(float) * (size_t)w);
        for (int j = 0; j < kh; j++)
            for (int i = 0; i < kw; i++) {
                float kv = k[j * kw + i];
                const float *s = pad + (y + j) * pw + i;
                for (int64_t x = 0; x < w; x++)
                    o[x] += kv * s[x];
            }
    }
}

static void separable(const float *pad, int64_t pw, int64_t w, int64_t h, const float *k, int ks,
                      float *tmp, float *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h + ks - 1; y++) {
        float *o = tmp + y * w;
        memset(o, 0, sizeof(float) * (size_t)w);
        for (int i = 0; i < ks; i++)
            for (int64_t x = 0; x < w; x++)
                o[x] += k[i] * pad[y * pw + x + i];
    }
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        float *o = out + y * w;
        memset(o, 0, sizeof(float) * (size_t)w);
        for (int j = 0; j < ks; j++)
            for (int64_t x = 0; x < w; x++)
                o[x] += k[j] * tmp[(y + j) * w + x];
    }
}

int main(int argc, char **argv)
{
    int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    gip_context_desc desc = {cuda ? GIP_BACKEND_CUDA : GIP_BACKEND_CPU, 0,
                             argc > 2 ? atoi(argv[2]) : 0, 0};
    gip_context *ctx;
    if (gip_context_create(&desc, &ctx)) {
        fprintf(stderr, "%s\n", gip_last_error());
        return 1;
    }
    printf("%s\n", gip_context_describe(ctx));
    gip_memory mem = cuda ? GIP_MEM_CUDA : GIP_MEM_HOST;
    int reps = cuda ? 51 : 5;
    static const int64_t sz[][2] = {{3840, 2160}, {7680, 4320}};
    for (int si = 0; si < (cuda ? 2 : 1); si++) {
        int64_t w = sz[si][0], h = sz[si][1];
        gip_image hu8, u8, f32, out, spec;
        gip_image_alloc(NULL, &hu8, w, h, 1, GIP_U8, GIP_MEM_HOST, 0);
        for (int64_t i = 0; i < hu8.stride * h; i++)
            ((uint8_t *)hu8.data)[i] = (uint8_t)(i * 2654435761u >> 13);
        gip_image_alloc(ctx, &u8, w, h, 1, GIP_U8, mem, 0);
        gip_copy(ctx, &hu8, &u8);
        gip_image_alloc(ctx, &f32, w, h, 1, GIP_F32, mem, GIP_ALLOC_TIGHT);
        gip_image_alloc(ctx, &out, w, h, 1, GIP_U8, mem, 0);
        gip_image_alloc(ctx, &spec, w / 2 + 1, h, 1, GIP_C32, mem, GIP_ALLOC_TIGHT);
        printf("%lldx%lld spectrum u8: %.3f ms\n", (long long)w, (long long)h,
               time_op(ctx, op_spectrum, &u8, &out, NULL, reps));
        gip_fft2(ctx, &u8, &spec, NULL); /* fill f32 via an inverse: any data will do */
        gip_ifft2(ctx, &spec, &f32, NULL);
        printf("%lldx%lld spectrum f32 tight: %.3f ms\n", (long long)w, (long long)h,
               time_op(ctx, op_spectrum, &f32, &out, NULL, reps));
        printf("%lldx%lld fft2 r2c f32 tight: %.3f ms\n", (long long)w, (long long)h,
               time_op(ctx, op_fft2, &f32, &spec, NULL, reps));
        gip_image_free(ctx, &u8);
        gip_image_free(ctx, &f32);
        gip_image_free(ctx, &out);
        gip_image_free(ctx, &spec);
        gip_image_free(NULL, &hu8);
    }

    /* Crossover at 1920x1080 f32. */
    int64_t w = 1920, h = 1080;
    gip_image src, dst;
    gip_image_alloc(ctx, &src, w, h, 1, GIP_F32, mem, 0);
    gip_image_alloc(ctx, &dst, w, h, 1, GIP_F32, mem, 0);
    gip_image_fill_bytes(ctx, &src, 0x3F);
    static const int ks[] = {3, 5, 7, 9, 11, 15, 21, 31, 41, 61, 81, 101, 121};
    float *k = malloc(sizeof(float) * 121 * 121);
    for (int i = 0; i < 121 * 121; i++)
        k[i] = 1.0f / (i + 1);
    int64_t pw = w + 120, ph = h + 120;
    float *pad = NULL, *tmp = NULL, *out = NULL;
    if (!cuda) {
        pad = calloc((size_t)(pw * ph), sizeof(float));
        tmp = malloc(sizeof(float) * (size_t)(w * ph));
        out = malloc(sizeof(float) * (size_t)(w * h));
    }
    printf("1920x1080 f32: k, fft_convolve ms%s\n",
           cuda ? "" : ", direct 2-D ms (measured to 31, then k^2 extrapolated), separable ms");
    double d31 = 0;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        gip_filter2d_params p = {0};
        p.kernel = k;
        p.ksize_w = p.ksize_h = ks[i];
        double tf = time_op(ctx, op_conv, &src, &dst, &p, cuda ? 21 : 3);
        if (cuda) {
            printf("%d %.3f\n", ks[i], tf);
            continue;
        }
        double td, ts, t0;
        if (ks[i] <= 31) {
            t0 = now_ms();
            direct(pad, pw, w, h, k, ks[i], ks[i], out);
            td = now_ms() - t0;
            d31 = td / (31.0 * 31.0) * 0 + td / ((double)ks[i] * ks[i]);
        } else {
            td = d31 * ks[i] * ks[i];
        }
        t0 = now_ms();
        separable(pad, pw, w, h, k, ks[i], tmp, out);
        ts = now_ms() - t0;
        printf("%d %.1f %.1f%s %.1f\n", ks[i], tf, td, ks[i] > 31 ? "*" : "", ts);
    }
    gip_image_free(ctx, &src);
    gip_image_free(ctx, &dst);
    free(k);
    free(pad);
    free(tmp);
    free(out);
    gip_context_destroy(ctx);
    return 0;
}
