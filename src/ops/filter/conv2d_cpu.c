/* SPDX-License-Identifier: MIT */
/* gip_conv2d on the CPU: each row band keeps a ring of kh zero-padded source rows split into float
 * planes (one per input channel), so that every (ky, kx, ci) tap is a contiguous multiply-add
 * over an L1-sized chunk of output pixels. Built twice: AVX2+FMA and plain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d.h"
#include "tuning.h"

#define CONV_CHUNK 512 /* output pixels per chunk: 4 accumulator planes stay in L1 */

#if defined(__GNUC__)
#define CONV_INLINE static inline __attribute__((always_inline))
#else
#define CONV_INLINE static inline
#endif

typedef struct conv_job {
    const gip_image *src;
    gip_image *dst;
    const gip_conv2d_params *p;
    int64_t pwid; /* padded row pixels: W + 2 pad_w */
    int simd;
    int failed;
} conv_job;

/* Padded row rp (0 .. H + 2 pad_h - 1) as Cin float planes of pwid values. */
CONV_INLINE void conv_fill_row(const conv_job *j, int64_t rp, float *out)
{
    const gip_image *s = j->src;
    const int32_t C = s->channels, pw = j->p->pad_w;
    const int64_t W = s->width, sy = rp - j->p->pad_h;
    if (sy < 0 || sy >= s->height) {
        memset(out, 0, (size_t)(C * j->pwid) * sizeof *out);
        return;
    }
    const char *row = (const char *)s->data + sy * s->stride;
    for (int32_t c = 0; c < C; c++) {
        float *restrict d = out + c * j->pwid;
        for (int32_t i = 0; i < pw; i++)
            d[i] = 0.0f, d[pw + W + i] = 0.0f;
        d += pw;
        if (s->dtype == GIP_U8) {
            const uint8_t *restrict r = (const uint8_t *)row + c;
            for (int64_t x = 0; x < W; x++)
                d[x] = (float)r[x * C];
        } else if (s->dtype == GIP_U16) {
            const uint16_t *restrict r = (const uint16_t *)row + c;
            for (int64_t x = 0; x < W; x++)
                d[x] = (float)r[x * C];
        } else {
            const float *restrict r = (const float *)row + c;
            for (int64_t x = 0; x < W; x++)
                d[x] = r[x * C];
        }
    }
}

CONV_INLINE void conv_tap(float *restrict acc, const float *restrict in, float w, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        acc[i] = fmaf(w, in[i], acc[i]);
}

CONV_INLINE float conv_clamp(float v, float lo, float hi)
{
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
}

CONV_INLINE void conv_band(const conv_job *j, int64_t y0, int64_t y1, float *const *rows,
                           float *acc)
{
    const gip_conv2d_params *p = j->p;
    const int32_t Ci = j->src->channels, Co = j->dst->channels, kh = p->kh, kw = p->kw;
    const int64_t ow = j->dst->width;
    for (int64_t rp = y0; rp < y0 + kh - 1; rp++)
        conv_fill_row(j, rp, rows[rp % kh]);
    for (int64_t y = y0; y < y1; y++) {
        conv_fill_row(j, y + kh - 1, rows[(y + kh - 1) % kh]);
        char *drow = (char *)j->dst->data + y * j->dst->stride;
        for (int64_t x0 = 0; x0 < ow; x0 += CONV_CHUNK) {
            int64_t n = ow - x0 < CONV_CHUNK ? ow - x0 : CONV_CHUNK;
            for (int32_t co = 0; co < Co; co++) {
                float *a = acc + co * CONV_CHUNK;
                float b = p->bias ? p->bias[co] : 0.0f;
                for (int64_t i = 0; i < n; i++)
                    a[i] = b;
                for (int32_t ky = 0; ky < kh; ky++) {
                    const float *row = rows[(y + ky) % kh] + x0;
                    for (int32_t kx = 0; kx < kw; kx++)
                        for (int32_t ci = 0; ci < Ci; ci++) {
                            float w = p->weight[(((int64_t)co * Ci + ci) * kh + ky) * kw + kx];
                            conv_tap(a, row + ci * j->pwid + kx, w, n);
                        }
                }
            }
            for (int32_t co = 0; co < Co; co++) {
                const float *a = acc + co * CONV_CHUNK;
                if (j->dst->dtype == GIP_F32) {
                    float *d = (float *)drow + x0 * Co + co;
                    for (int64_t i = 0; i < n; i++)
                        d[i * Co] = a[i];
                } else if (j->dst->dtype == GIP_U8) {
                    uint8_t *d = (uint8_t *)drow + x0 * Co + co;
                    for (int64_t i = 0; i < n; i++) /* clamp, then round half to even */
                        d[i * Co] =
                            (uint8_t)(int32_t)((conv_clamp(a[i], 0.0f, 255.0f) + 12582912.0f) -
                                               12582912.0f);
                } else {
                    uint16_t *d = (uint16_t *)drow + x0 * Co + co;
                    for (int64_t i = 0; i < n; i++)
                        d[i * Co] =
                            (uint16_t)(int32_t)((conv_clamp(a[i], 0.0f, 65535.0f) + 12582912.0f) -
                                                12582912.0f);
                }
            }
        }
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx2,fma"))) static void
conv_band_avx2(const conv_job *j, int64_t y0, int64_t y1, float *const *rows, float *acc)
{
    conv_band(j, y0, y1, rows, acc);
}
#define CONV_HAVE_AVX2 1
#endif

static void conv_band_plain(const conv_job *j, int64_t y0, int64_t y1, float *const *rows,
                            float *acc)
{
    conv_band(j, y0, y1, rows, acc);
}

static void conv_rows(void *arg, int64_t begin, int64_t end)
{
    conv_job *j = arg;
    const int32_t kh = j->p->kh;
    size_t rowf = (size_t)j->src->channels * (size_t)j->pwid;
    float **rows = malloc((size_t)kh * sizeof *rows);
    float *mem = malloc(((size_t)kh * rowf + 4 * CONV_CHUNK) * sizeof *mem);
    if (!rows || !mem) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        free(rows);
        free(mem);
        return;
    }
    for (int32_t i = 0; i < kh; i++)
        rows[i] = mem + (size_t)i * rowf;
    float *acc = mem + (size_t)kh * rowf;
#ifdef CONV_HAVE_AVX2
    if (j->simd)
        conv_band_avx2(j, begin, end, rows, acc);
    else
#endif
        conv_band_plain(j, begin, end, rows, acc);
    free(mem);
    free(rows);
}

gip_status gip__conv2d_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip_conv2d_params *p)
{
    conv_job job = {src, dst, p, src->width + 2 * (int64_t)p->pad_w, gip__simd_avx2_fma(), 0};
    gip__parallel_for(ctx, dst->height, 4 * (int64_t)p->kh, conv_rows, &job);
    if (job.failed)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "gip_conv2d: cannot allocate the row buffers for a %dx%d kernel on a "
                          "%lld-pixel-wide image",
                          (int)p->kw, (int)p->kh, (long long)src->width);
    return GIP_OK;
}
