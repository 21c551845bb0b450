/* SPDX-License-Identifier: MIT */
/* moments and HuMoments (gip_moments, gip_hu_moments): spatial moments up to the third order on
 * the CPU (integer images exactly per row, rows combined in double in row order, so the result
 * does not depend on the thread count), then OpenCV's central and normalised moments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/stats/stats.h"

/* A row's sums of v, x v, x^2 v, x^3 v. */
typedef struct row_sums {
    double s0, s1, s2, s3;
} row_sums;

/* A row's sums of x^k v (k = 0..3) in ACC. Integer rows are summed in int64_t: exact while the row
 * is short enough that the sum of x^3 |v| fits (width <= 2^13 for u8, 2^11 for u16 and s16:
 * width^4 * max|v| < 2^63); wider rows and f32 rows are summed in double. */
#define ROW_SUMS(NAME, T, ACC)                                                                     \
    static row_sums NAME(const T *s, int64_t w, bool binary)                                       \
    {                                                                                              \
        ACC a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                                        \
        for (int64_t x = 0; x < w; x++) {                                                          \
            ACC v = binary ? (s[x] != 0) : (ACC)s[x];                                              \
            ACC xa = (ACC)x, xv = xa * v, xxv = xa * xv;                                           \
            a0 += v;                                                                               \
            a1 += xv;                                                                              \
            a2 += xxv;                                                                             \
            a3 += xa * xxv;                                                                        \
        }                                                                                          \
        return (row_sums){(double)a0, (double)a1, (double)a2, (double)a3};                         \
    }

ROW_SUMS(row_u16, uint16_t, int64_t)
ROW_SUMS(row_s16, int16_t, int64_t)
ROW_SUMS(drow_u8, uint8_t, double)
ROW_SUMS(drow_u16, uint16_t, double)
ROW_SUMS(drow_s16, int16_t, double)
ROW_SUMS(row_f32, float, double)

/* u8 rows by tiles of 32 pixels: within a tile (x = x0 + i) the sums of v, i v, i^2 v, i^3 v fit
 * 32 bits (31^3 * 255 * 32 < 2^31) and vectorise; the tile's sums of x^k v follow exactly in
 * 64-bit integers by the binomial expansion. Rows up to 2^13 pixels stay exact as row_u8. */
#define TILE 32
#if defined(__SSE2__)
#include <emmintrin.h>
/* i, i^2, i^3 for i < TILE as int16 (16-byte aligned for the loads) */
#define W16(f)                                                                                     \
    {                                                                                              \
        f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8), f(9), f(10), f(11), f(12), f(13),    \
            f(14), f(15), f(16), f(17), f(18), f(19), f(20), f(21), f(22), f(23), f(24), f(25),    \
            f(26), f(27), f(28), f(29), f(30), f(31)                                               \
    }
#define P1(i) (i)
#define P2(i) ((i) * (i))
#define P3(i) ((i) * (i) * (i))
static const int16_t w1[TILE] __attribute__((aligned(16))) = W16(P1);
static const int16_t w2[TILE] __attribute__((aligned(16))) = W16(P2);
static const int16_t w3[TILE] __attribute__((aligned(16))) = W16(P3);

static inline int32_t hsum32(__m128i v)
{
    v = _mm_add_epi32(v, _mm_srli_si128(v, 8));
    v = _mm_add_epi32(v, _mm_srli_si128(v, 4));
    return _mm_cvtsi128_si32(v);
}
#else
static const int32_t i1[TILE] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
#endif

static row_sums row_u8_tiles(const uint8_t *s, int64_t w, bool binary)
{
#if !defined(__SSE2__)
    int32_t i2[TILE], i3[TILE];
    for (int i = 0; i < TILE; i++)
        i2[i] = i * i, i3[i] = i * i * i;
#endif
    int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, x0 = 0;
    for (; x0 + TILE <= w; x0 += TILE) {
        int32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
        const uint8_t *p = s + x0;
#if defined(__SSE2__)
        /* 16-bit products summed in pairs (pmaddwd): i^3 <= 29791 and v <= 255 */
        const __m128i z = _mm_setzero_si128();
        __m128i v0 = _mm_loadu_si128((const __m128i *)p);
        __m128i v1 = _mm_loadu_si128((const __m128i *)(p + 16));
        if (binary) {
            const __m128i one = _mm_set1_epi8(1);
            v0 = _mm_min_epu8(v0, one);
            v1 = _mm_min_epu8(v1, one);
        }
        __m128i sad = _mm_add_epi64(_mm_sad_epu8(v0, z), _mm_sad_epu8(v1, z));
        __m128i q[4] = {_mm_unpacklo_epi8(v0, z), _mm_unpackhi_epi8(v0, z),
                        _mm_unpacklo_epi8(v1, z), _mm_unpackhi_epi8(v1, z)};
        __m128i s1 = z, s2 = z, s3 = z;
        for (int k = 0; k < 4; k++) {
            s1 = _mm_add_epi32(s1, _mm_madd_epi16(q[k], _mm_load_si128((const __m128i *)w1 + k)));
            s2 = _mm_add_epi32(s2, _mm_madd_epi16(q[k], _mm_load_si128((const __m128i *)w2 + k)));
            s3 = _mm_add_epi32(s3, _mm_madd_epi16(q[k], _mm_load_si128((const __m128i *)w3 + k)));
        }
        t0 = _mm_cvtsi128_si32(sad) + _mm_cvtsi128_si32(_mm_srli_si128(sad, 8));
        t1 = hsum32(s1), t2 = hsum32(s2), t3 = hsum32(s3);
#else
        if (binary)
            for (int i = 0; i < TILE; i++) {
                int32_t v = p[i] != 0;
                t0 += v, t1 += i1[i] * v, t2 += i2[i] * v, t3 += i3[i] * v;
            }
        else
            for (int i = 0; i < TILE; i++) {
                int32_t v = p[i];
                t0 += v, t1 += i1[i] * v, t2 += i2[i] * v, t3 += i3[i] * v;
            }
#endif
        int64_t x = x0, xx = x * x;
        a0 += t0;
        a1 += x * t0 + t1;
        a2 += xx * t0 + 2 * x * t1 + t2;
        a3 += xx * x * t0 + 3 * xx * t1 + 3 * x * t2 + t3;
    }
    for (int64_t x = x0; x < w; x++) {
        int64_t v = binary ? (s[x] != 0) : (int64_t)s[x];
        a0 += v, a1 += x * v, a2 += x * x * v, a3 += x * x * x * v;
    }
    return (row_sums){(double)a0, (double)a1, (double)a2, (double)a3};
}

typedef struct mom_job {
    const gip_image *src;
    bool binary;
    double (*rows)[10]; /* per row: the row's contributions m00 .. m03 */
} mom_job;

/* Row y's contributions to m00 .. m03 from its sums of x^k v. */
static void row_contrib(int64_t y, row_sums r, double *o)
{
    double yd = (double)y, yy = yd * yd, yyy = yy * yd;
    o[0] = r.s0;       /* m00 */
    o[1] = r.s1;       /* m10 */
    o[2] = r.s0 * yd;  /* m01 */
    o[3] = r.s2;       /* m20 */
    o[4] = r.s1 * yd;  /* m11 */
    o[5] = r.s0 * yy;  /* m02 */
    o[6] = r.s3;       /* m30 */
    o[7] = r.s2 * yd;  /* m21 */
    o[8] = r.s1 * yy;  /* m12 */
    o[9] = r.s0 * yyy; /* m03 */
}

static row_sums row_any(const gip_image *src, const void *p, bool binary)
{
    const int64_t w = src->width;
    switch (src->dtype) {
    case GIP_U8:
        return w <= 8192 ? row_u8_tiles(p, w, binary) : drow_u8(p, w, binary);
    case GIP_U16:
        return w <= 2048 ? row_u16(p, w, binary) : drow_u16(p, w, binary);
    case GIP_S16:
        return w <= 2048 ? row_s16(p, w, binary) : drow_s16(p, w, binary);
    default:
        return row_f32(p, w, binary);
    }
}

static void mom_rows(void *arg, int64_t y0, int64_t y1)
{
    const mom_job *j = arg;
    for (int64_t y = y0; y < y1; y++) {
        row_sums r = row_any(j->src, (const char *)j->src->data + y * j->src->stride, j->binary);
        row_contrib(y, r, j->rows[y]);
    }
}

/* OpenCV's completion of the moments from the spatial ones. */
static void complete(gip_image_moments *m)
{
    double cx = 0, cy = 0, inv_m00 = 0;
    if (fabs(m->m00) > 2.220446049250313e-16) {
        inv_m00 = 1.0 / m->m00;
        cx = m->m10 * inv_m00;
        cy = m->m01 * inv_m00;
    }
    double mu20 = m->m20 - m->m10 * cx;
    double mu11 = m->m11 - m->m10 * cy;
    double mu02 = m->m02 - m->m01 * cy;
    m->mu20 = mu20;
    m->mu11 = mu11;
    m->mu02 = mu02;
    m->mu30 = m->m30 - cx * (3 * mu20 + cx * m->m10);
    mu11 += mu11;
    m->mu21 = m->m21 - cx * (mu11 + cx * m->m01) - cy * mu20;
    m->mu12 = m->m12 - cy * (mu11 + cy * m->m10) - cx * mu02;
    m->mu03 = m->m03 - cy * (3 * mu02 + cy * m->m01);
    double inv_sqrt_m00 = sqrt(fabs(inv_m00));
    double s2 = inv_m00 * inv_m00, s3 = s2 * inv_sqrt_m00;
    m->nu20 = m->mu20 * s2;
    m->nu11 = m->mu11 * s2;
    m->nu02 = m->mu02 * s2;
    m->nu30 = m->mu30 * s3;
    m->nu21 = m->mu21 * s3;
    m->nu12 = m->mu12 * s3;
    m->nu03 = m->mu03 * s3;
}

gip_status gip_moments(gip_context *ctx, const gip_image *src, int32_t binary, gip_image_moments *m)
{
    static const char op[] = "gip_moments";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if ((st = gip__image_check_ctx(ctx, src, op, "src")))
        return st;
    if (!m)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: m is NULL", op);
    if ((st = gip__check_dtype(ctx, src, GIP__DT_DEPTHS, op, "src")))
        return st;
    if (src->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src has %d channels; one channel is accepted (as cv2.moments)", op,
                          (int)src->channels);
    mom_job j = {.src = src, .binary = binary != 0};
    j.rows = malloc((size_t)src->height * sizeof *j.rows);
    if (!j.rows)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    if (src->memory == GIP_MEM_CUDA) {
#ifdef GIP_HAVE_CUDA
        /* integer rows exact where the CPU's are, so both give the same numbers */
        const bool exact = src->dtype == GIP_U8    ? src->width <= 8192
                           : src->dtype == GIP_F32 ? false
                                                   : src->width <= 2048;
        double *sums = malloc((size_t)src->height * 4 * sizeof *sums + 8);
        if (!sums)
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        else if (!(st = gip__cuda_enter(ctx)))
            st = gip__moments_rows_cuda(ctx, src, j.binary, exact, sums);
        for (int64_t y = 0; !st && y < src->height; y++)
            row_contrib(y,
                        (row_sums){sums[4 * y], sums[4 * y + 1], sums[4 * y + 2], sums[4 * y + 3]},
                        j.rows[y]);
        free(sums);
        if (st) {
            free(j.rows);
            return st;
        }
#else
        free(j.rows);
        return gip__cuda_not_built(ctx, op);
#endif
    } else
        gip__parallel_for(ctx, src->height, 16, mom_rows, &j);
    double a[10] = {0};
    for (int64_t y = 0; y < src->height; y++)
        for (int k = 0; k < 10; k++)
            a[k] += j.rows[y][k];
    free(j.rows);
    gip_image_moments r;
    memset(&r, 0, sizeof r);
    r.m00 = a[0], r.m10 = a[1], r.m01 = a[2], r.m20 = a[3], r.m11 = a[4];
    r.m02 = a[5], r.m30 = a[6], r.m21 = a[7], r.m12 = a[8], r.m03 = a[9];
    complete(&r);
    *m = r;
    return GIP_OK;
}

gip_status gip_hu_moments(const gip_image_moments *m, double hu[7])
{
    if (!m || !hu)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_hu_moments: %s is NULL",
                          !m ? "m" : "hu");
    double t0 = m->nu30 + m->nu12, t1 = m->nu21 + m->nu03;
    double q0 = t0 * t0, q1 = t1 * t1;
    double n4 = 4 * m->nu11;
    double s = m->nu20 + m->nu02, d = m->nu20 - m->nu02;
    hu[0] = s;
    hu[1] = d * d + n4 * m->nu11;
    hu[3] = q0 + q1;
    hu[5] = d * (q0 - q1) + n4 * t0 * t1;
    t0 *= q0 - 3 * q1;
    t1 *= 3 * q0 - q1;
    q0 = m->nu30 - 3 * m->nu12;
    q1 = 3 * m->nu21 - m->nu03;
    hu[2] = q0 * q0 + q1 * q1;
    hu[4] = q0 * t0 + q1 * t1;
    hu[6] = q1 * t0 - q0 * t1;
    return GIP_OK;
}
