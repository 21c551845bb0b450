/* SPDX-License-Identifier: MIT */
/* Lanczos-4 warps and remap on the CPU (warp_lanczos.h): the tables, as OpenCV's initInterTab2D
 * makes them (per fraction the 1-D coefficients of interpolateLanczos4, double sines, float
 * results normalised in float; their float products; the products * 2^15 rounded to s16, the
 * central 2x2 corrected so that the 64 integers sum to 2^15; computed once per process), and the
 * rows. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "ops/geometry/warp_lanczos.h"
#include "tuning.h"

/* Double and single precision arithmetic must not be fused into multiply-adds. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

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

/* ---- u8 windows inside the image with AVX2 -------------------------------------------------
 * The 8x8 window read straight from the image, its bytes widened to 16 bits and multiplied by the
 * table's 16-bit weights with pmaddwd (pairs of products added in 32 bits), the 32-bit sums then
 * added: integer arithmetic, so the order of the additions does not change gip__lz_sample()'s
 * result. One channel: two window rows a vector against 16 consecutive weights. Three: each row's
 * 24 bytes split into channels 0 and 1 (one vector against the row's weights twice) and channel
 * 2 (two rows a vector); four: the row's 32 bytes into channels 0, 1 and 2, 3. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define LZ_HAVE_AVX2 1
#define LZ_AVX2 __attribute__((target("avx2")))

LZ_AVX2 static inline __attribute__((always_inline)) uint8_t lz_out(int32_t acc)
{
    return gip__sat_u8_i32((acc + (1 << 14)) >> 15);
}

LZ_AVX2 static inline __attribute__((always_inline)) int32_t lz_hsum(__m256i v)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

LZ_AVX2 static void lz_u8_c1(const uint8_t *p, int64_t st, const int16_t *wi, uint8_t *d)
{
    __m256i acc = _mm256_setzero_si256();
    for (int q = 0; q < 4; q++) {
        const __m128i a = _mm_loadl_epi64((const __m128i *)(p + 2 * q * st));
        const __m128i b = _mm_loadl_epi64((const __m128i *)(p + (2 * q + 1) * st));
        const __m256i v = _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(a, b));
        acc = _mm256_add_epi32(
            acc, _mm256_madd_epi16(v, _mm256_loadu_si256((const __m256i *)(wi + 16 * q))));
    }
    d[0] = lz_out(lz_hsum(acc));
}

LZ_AVX2 static void lz_u8_c3(const uint8_t *p, int64_t st, const int16_t *wi, uint8_t *d)
{
    /* bytes 3k + c of the row: from a = bytes 0..15 and b = bytes 8..23 */
    const __m128i m01a = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1);
    const __m128i m01b =
        _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 10, 13, -1, -1, -1, -1, -1, 8, 11, 14);
    const __m128i m2a = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i m2b =
        _mm_setr_epi8(-1, -1, -1, -1, -1, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i acc01 = _mm256_setzero_si256(), acc2 = _mm256_setzero_si256();
    for (int q = 0; q < 4; q++) {
        __m128i c2[2];
        for (int h = 0; h < 2; h++) {
            const int r = 2 * q + h;
            const __m128i a = _mm_loadu_si128((const __m128i *)(p + r * st));
            const __m128i b = _mm_loadu_si128((const __m128i *)(p + r * st + 8));
            const __m128i x01 = _mm_or_si128(_mm_shuffle_epi8(a, m01a), _mm_shuffle_epi8(b, m01b));
            c2[h] = _mm_or_si128(_mm_shuffle_epi8(a, m2a), _mm_shuffle_epi8(b, m2b));
            const __m256i w =
                _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(wi + 8 * r)));
            acc01 = _mm256_add_epi32(acc01, _mm256_madd_epi16(_mm256_cvtepu8_epi16(x01), w));
        }
        const __m256i v2 = _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(c2[0], c2[1]));
        acc2 = _mm256_add_epi32(
            acc2, _mm256_madd_epi16(v2, _mm256_loadu_si256((const __m256i *)(wi + 16 * q))));
    }
    const __m128i s0 = _mm256_castsi256_si128(acc01), s1 = _mm256_extracti128_si256(acc01, 1);
    const __m128i s2 =
        _mm_add_epi32(_mm256_castsi256_si128(acc2), _mm256_extracti128_si256(acc2, 1));
    /* [c0, c1, c2, c2] of the pairs, then of the quadruples */
    __m128i t = _mm_hadd_epi32(_mm_hadd_epi32(s0, s1), _mm_hadd_epi32(s2, s2));
    d[0] = lz_out(_mm_cvtsi128_si32(t));
    d[1] = lz_out(_mm_extract_epi32(t, 1));
    d[2] = lz_out(_mm_extract_epi32(t, 2));
}

LZ_AVX2 static void lz_u8_c4(const uint8_t *p, int64_t st, const int16_t *wi, uint8_t *d)
{
    /* a lane's four pixels into [c0 x4, c1 x4, c2 x4, c3 x4], then the lanes' dwords paired */
    const __m256i sh = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4,
                                        8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i pm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i acc01 = _mm256_setzero_si256(), acc23 = _mm256_setzero_si256();
    for (int r = 0; r < 8; r++) {
        const __m256i v = _mm256_permutevar8x32_epi32(
            _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(p + r * st)), sh), pm);
        const __m256i w =
            _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(wi + 8 * r)));
        acc01 = _mm256_add_epi32(
            acc01, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)), w));
        acc23 = _mm256_add_epi32(
            acc23, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm256_extracti128_si256(v, 1)), w));
    }
    const __m256i x = _mm256_hadd_epi32(acc01, acc23);
    const __m256i y = _mm256_hadd_epi32(x, x); /* lane 0: c0, c2; lane 1: c1, c3 */
    const __m128i lo = _mm256_castsi256_si128(y), hi = _mm256_extracti128_si256(y, 1);
    d[0] = lz_out(_mm_cvtsi128_si32(lo));
    d[1] = lz_out(_mm_cvtsi128_si32(hi));
    d[2] = lz_out(_mm_extract_epi32(lo, 1));
    d[3] = lz_out(_mm_extract_epi32(hi, 1));
}

/* One channel of u16 or f32: the window's rows times the table's float rows, the 8x8 products
 * transposed so that each row's are added left to right in a lane (gip__lz_sample()'s order),
 * then the rows' sums added in order from 0 (single precision, no fused operations). */
LZ_AVX2 static inline __attribute__((always_inline)) void
lz_flt_c1(const uint8_t *p, int64_t st, const float *wf, uint8_t *drow, int64_t x, int u16)
{
    __m256 c[8];
    for (int r = 0; r < 8; r++) {
        const __m256 v = u16 ? _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(
                                   _mm_loadu_si128((const __m128i *)(p + r * st))))
                             : _mm256_loadu_ps((const float *)(p + r * st));
        c[r] = _mm256_mul_ps(v, _mm256_loadu_ps(wf + 8 * r));
    }
    __m256 t[8], u[8];
    for (int r = 0; r < 8; r += 2) {
        t[r] = _mm256_unpacklo_ps(c[r], c[r + 1]);
        t[r + 1] = _mm256_unpackhi_ps(c[r], c[r + 1]);
    }
    for (int r = 0; r < 8; r += 4) {
        u[r] = _mm256_shuffle_ps(t[r], t[r + 2], 0x44);
        u[r + 1] = _mm256_shuffle_ps(t[r], t[r + 2], 0xee);
        u[r + 2] = _mm256_shuffle_ps(t[r + 1], t[r + 3], 0x44);
        u[r + 3] = _mm256_shuffle_ps(t[r + 1], t[r + 3], 0xee);
    }
    /* column k of the products: lane r holds row r's */
    __m256 row = _mm256_permute2f128_ps(u[0], u[4], 0x20);
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[1], u[5], 0x20));
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[2], u[6], 0x20));
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[3], u[7], 0x20));
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[0], u[4], 0x31));
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[1], u[5], 0x31));
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[2], u[6], 0x31));
    row = _mm256_add_ps(row, _mm256_permute2f128_ps(u[3], u[7], 0x31));
    float rs[8];
    _mm256_storeu_ps(rs, row);
    float sum = 0.f;
    for (int r = 0; r < 8; r++)
        sum += rs[r];
    gip__geo_storef(drow, x, u16 ? GIP_U16 : GIP_F32, sum);
}

LZ_AVX2 static void lz_f32_c1(const uint8_t *p, int64_t st, const float *wf, uint8_t *drow,
                              int64_t x)
{
    lz_flt_c1(p, st, wf, drow, x, 0);
}

LZ_AVX2 static void lz_u16_c1(const uint8_t *p, int64_t st, const float *wf, uint8_t *drow,
                              int64_t x)
{
    lz_flt_c1(p, st, wf, drow, x, 1);
}
#endif

/* The rows of a Lanczos warp (m1 NULL) or remap (float maps m1, m2; fixed-point pairs m1 with
 * fractions m2 or none). */
typedef struct lz_job {
    const gip__warp *w;
    gip__lz_tabs t;
    const gip_image *src, *m1, *m2;
    gip_image *dst;
    int fixed;
    int avx2;          /* the windows inside the image through lz_*_c*() */
    const int64_t *ad; /* affine warps: each column's x terms (OpenCV's adelta, then bdelta) */
} lz_job;

static void lz_rows(void *arg, int64_t y0, int64_t y1)
{
    const lz_job *j = arg;
    const gip_image *d = j->dst;
    const int64_t sw = j->w->sw, sh = j->w->sh, sst = j->src->stride;
    const int32_t cn = j->w->cn;
    const gip_dtype dt = j->w->dtype;
    const int fast = j->avx2 && (dt == GIP_U8 ? cn == 1 || cn == 3 || cn == 4 : cn == 1);
    (void)sw, (void)sh, (void)sst, (void)fast, (void)dt;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *drow = (uint8_t *)d->data + y * d->stride;
        const uint8_t *r1 = j->m1 ? (const uint8_t *)j->m1->data + y * j->m1->stride : NULL;
        const uint8_t *r2 = j->m2 ? (const uint8_t *)j->m2->data + y * j->m2->stride : NULL;
        /* the warps' row terms (gip__lz_pos_warp()'s, hoisted) */
        const double *m = j->w->md, dy = (double)y;
        const int64_t dw = d->width, bh0 = d->height < 16 ? d->height : 16;
        const int64_t bw0 = 1024 / bh0 < dw ? 1024 / bh0 : dw;
        const int64_t AX =
            gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DADD(GIP__LZ_DMUL(m[1], dy), m[2]), 1024.0)) + 16;
        const int64_t AY =
            gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DADD(GIP__LZ_DMUL(m[4], dy), m[5]), 1024.0)) + 16;
        double PX = 0, PY = 0, PW = 0;
        int64_t bx = -1;
        for (int64_t x = 0; x < dw; x++) {
            int32_t ix, iy, f;
            if (!r1 && j->ad) {
                gip__lz_split((AX + j->ad[x]) >> 5, (AY + j->ad[dw + x]) >> 5, &ix, &iy, &f);
            } else if (!r1 && j->w->persp) {
                if (x / bw0 * bw0 != bx) { /* a new block: its origin's terms */
                    bx = x / bw0 * bw0;
                    gip__lz_persp_origin(m, (double)bx, dy, &PX, &PY, &PW);
                }
                gip__lz_persp_pos(m, PX, PY, PW, (double)(x - bx), &ix, &iy, &f);
            } else if (!r1) {
                gip__lz_pos_warp(j->w, d->width, d->height, x, y, &ix, &iy, &f);
            } else if (j->fixed) {
                ix = ((const int16_t *)r1)[2 * x];
                iy = ((const int16_t *)r1)[2 * x + 1];
                f = r2 ? ((const uint16_t *)r2)[x] & 1023 : 0;
            } else {
                gip__lz_split(gip__lz_roundf(((const float *)r1)[x] * 32.f),
                              gip__lz_roundf(((const float *)r2)[x] * 32.f), &ix, &iy, &f);
            }
#ifdef LZ_HAVE_AVX2
            const int64_t sx = (int64_t)ix - 3, sy = (int64_t)iy - 3;
            if (fast && sx >= 0 && sx < sw - 7 && sy >= 0 && sy < sh - 7) {
                const uint8_t *p =
                    (const uint8_t *)j->src->data + sy * sst + sx * cn * gip_dtype_size(dt);
                const int16_t *wi = j->t.i + (int64_t)f * 64;
                if (dt == GIP_F32)
                    lz_f32_c1(p, sst, j->t.f + (int64_t)f * 64, drow, x);
                else if (dt == GIP_U16)
                    lz_u16_c1(p, sst, j->t.f + (int64_t)f * 64, drow, x);
                else if (cn == 1)
                    lz_u8_c1(p, sst, wi, drow + x);
                else if (cn == 3)
                    lz_u8_c3(p, sst, wi, drow + x * 3);
                else
                    lz_u8_c4(p, sst, wi, drow + x * 4);
                continue;
            }
#endif
            gip__lz_sample(j->w, j->t, (const uint8_t *)j->src->data, j->src->stride, drow, x, ix,
                           iy, f);
        }
    }
}

void gip__lanczos_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                      const gip_image *m1, const gip_image *m2, int32_t fixed)
{
    lz_job j = {w, {NULL, NULL}, src, m1, m2, dst, fixed, gip__simd_avx2_fma(), NULL};
    gip__lanczos_tabs(&j.t);
    int64_t *ad = NULL; /* without memory, the positions are found pixel by pixel */
    if (!m1 && !w->persp && (ad = malloc(sizeof(int64_t) * 2 * (size_t)dst->width))) {
        for (int64_t x = 0; x < dst->width; x++) {
            const double dx = (double)x;
            ad[x] = gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DMUL(w->md[0], dx), 1024.0));
            ad[dst->width + x] = gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DMUL(w->md[3], dx), 1024.0));
        }
        j.ad = ad;
    }
    gip__parallel_for(ctx, dst->height, 4, lz_rows, &j);
    free(ad);
}
