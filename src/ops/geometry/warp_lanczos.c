/* SPDX-License-Identifier: MIT */
/* Lanczos-4 warps and remap on the CPU (warp_lanczos.h): the tables, as OpenCV's initInterTab2D
 * makes them (per fraction the 1-D coefficients of interpolateLanczos4, double sines, float
 * results normalised in float; their float products; the products * 2^15 rounded to s16, the
 * central 2x2 corrected so that the 64 integers sum to 2^15; computed once per process), and the
 * rows. */
#include <math.h>
#include <pthread.h>

#include "ops/geometry/warp_lanczos.h"

static float tab_f[1024 * 64];
static int16_t tab_i[1024 * 64];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void coeffs(float x, float *c)
{
    static const double s45 = 0.70710678118654752440084436210485;
    static const double cs[8][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                                    {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
    const double pi = 3.14159265358979323846;
    float sum = 0;
    const double y0 = -(double)(x + 3) * pi * 0.25, s0 = sin(y0), c0 = cos(y0);
    for (int i = 0; i < 8; i++) {
        const float yi = x + 3 - (float)i;
        if (fabsf(yi) >= 1e-6f) {
            const double y = -(double)yi * pi * 0.25;
            c[i] = (float)((cs[i][0] * s0 + cs[i][1] * c0) / (y * y));
        } else {
            c[i] = 1e30f;
        }
        sum += c[i];
    }
    sum = 1.f / sum;
    for (int i = 0; i < 8; i++)
        c[i] *= sum;
}

static void build(void)
{
    float c1[32][8];
    for (int k = 0; k < 32; k++)
        coeffs((float)k / 32.f, c1[k]);
    for (int fy = 0; fy < 32; fy++)
        for (int fx = 0; fx < 32; fx++) {
            float *tf = tab_f + (fy * 32 + fx) * 64;
            int16_t *ti = tab_i + (fy * 32 + fx) * 64;
            int sum = 0;
            for (int r = 0; r < 8; r++)
                for (int k = 0; k < 8; k++) {
                    const float v = c1[fy][r] * c1[fx][k];
                    tf[r * 8 + k] = v;
                    const long q = lrintf(v * 32768.f);
                    ti[r * 8 + k] = (int16_t)(q < -32768 ? -32768 : q > 32767 ? 32767 : q);
                    sum += ti[r * 8 + k];
                }
            if (sum != 32768) { /* the largest or smallest of the central four takes the rest */
                const int diff = sum - 32768;
                int mk = 4 * 8 + 4, big = 4 * 8 + 4;
                for (int r = 4; r < 6; r++)
                    for (int k = 4; k < 6; k++) {
                        if (ti[r * 8 + k] < ti[mk])
                            mk = r * 8 + k;
                        else if (ti[r * 8 + k] > ti[big])
                            big = r * 8 + k;
                    }
                if (diff < 0)
                    ti[big] = (int16_t)(ti[big] - diff);
                else
                    ti[mk] = (int16_t)(ti[mk] - diff);
            }
        }
}

void gip__lanczos_tabs(gip__lz_tabs *t)
{
    pthread_once(&once, build);
    t->f = tab_f;
    t->i = tab_i;
}

/* The rows of a Lanczos warp (m1 NULL) or remap (float maps m1, m2; fixed-point pairs m1 with
 * fractions m2 or none). */
typedef struct lz_job {
    const gip__warp *w;
    gip__lz_tabs t;
    const gip_image *src, *m1, *m2;
    gip_image *dst;
    int fixed;
} lz_job;

static void lz_rows(void *arg, int64_t y0, int64_t y1)
{
    const lz_job *j = arg;
    const gip_image *d = j->dst;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *drow = (uint8_t *)d->data + y * d->stride;
        const uint8_t *r1 = j->m1 ? (const uint8_t *)j->m1->data + y * j->m1->stride : NULL;
        const uint8_t *r2 = j->m2 ? (const uint8_t *)j->m2->data + y * j->m2->stride : NULL;
        for (int64_t x = 0; x < d->width; x++) {
            int32_t ix, iy, f;
            if (!r1) {
                gip__lz_pos_warp(j->w, d->width, d->height, x, y, &ix, &iy, &f);
            } else if (j->fixed) {
                ix = ((const int16_t *)r1)[2 * x];
                iy = ((const int16_t *)r1)[2 * x + 1];
                f = r2 ? ((const uint16_t *)r2)[x] & 1023 : 0;
            } else {
                gip__lz_split(gip__lz_roundf(((const float *)r1)[x] * 32.f),
                              gip__lz_roundf(((const float *)r2)[x] * 32.f), &ix, &iy, &f);
            }
            gip__lz_sample(j->w, j->t, (const uint8_t *)j->src->data, j->src->stride, drow, x, ix,
                           iy, f);
        }
    }
}

void gip__lanczos_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                      const gip_image *m1, const gip_image *m2, int32_t fixed)
{
    lz_job j = {w, {NULL, NULL}, src, m1, m2, dst, fixed};
    gip__lanczos_tabs(&j.t);
    gip__parallel_for(ctx, dst->height, 4, lz_rows, &j);
}
