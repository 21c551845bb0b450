/* SPDX-License-Identifier: MIT */
/* The spectrum image on the CPU in three passes over cache-sized blocks: gray rows straight into
 * the spectrum buffer and their real-to-complex row transforms; column transforms, each block
 * followed by its log magnitude and finite range while it is still in cache; one pass writing the
 * shifted, normalised u8 image from the half by Hermitian symmetry. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "norm_range.h"
#include "spectrum.h"
#include "tuning.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SPEC_X86 1
#define SPEC_AVX2 __attribute__((target("avx2,fma")))
#include <immintrin.h>
#endif

/* Rows per row-transform block, complex columns per column-transform block. A column block of
 * 16 is 128 bytes of each row: 280 KB for 2160 rows, which stays in a 1 MB L2 between its
 * transform and its log magnitude. */
enum { ROW_BLOCK = 8, COL_BLOCK = 16 };

/* ---- SIMD switch ---------------------------------------------------------------------------- */

static gip__simd_switch simd_switch = GIP__SIMD_SWITCH_INIT;

bool gip__spectrum_simd_active(void)
{
    return gip__simd_switch_active(&simd_switch);
}

bool gip__spectrum_set_simd(bool enable)
{
    return gip__simd_switch_set(&simd_switch, enable);
}

/* ---- half log power -------------------------------------------------------------------------- */

/* 0.5 ln(p) for p in [FLT_MIN, FLT_MAX], written so that compilers vectorise it: p = m 2^e with
 * m in [sqrt(1/2), sqrt(2)), ln(m) = x - x^2/2 + x^3 P(x) with x = m - 1 (Cephes logf's
 * minimax polynomial), ln 2 split in two so that e ln 2 adds no rounding of its own. Error
 * against ln in double, checked by test_fft on both code paths over a sweep of every binade: at
 * most 1 unit in the last place of the result plus 3e-8 (largest seen 1.9e-6, at |result| = 44).
 * The spectrum test's slack of 1e-3 levels for float rounding covers it many times over: the
 * level moves by at most 4 * 255 * err / (range of the log magnitudes). */
static inline __attribute__((always_inline)) float half_log(float p)
{
    union {
        float f;
        uint32_t u;
    } c = {p};
    int32_t e = (int32_t)(c.u >> 23) - 126;
    c.u = (c.u & 0x007FFFFFu) | 0x3F000000u; /* m in [0.5, 1) */
    float m = c.f;
    int32_t lt = m < 0.70710678f;
    e -= lt;
    float x = (lt ? m + m : m) - 1.0f;
    float z = x * x;
    float y = 7.0376836292E-2f;
    y = y * x - 1.1514610310E-1f;
    y = y * x + 1.1676998740E-1f;
    y = y * x - 1.2420140846E-1f;
    y = y * x + 1.4249322787E-1f;
    y = y * x - 1.6668057665E-1f;
    y = y * x + 2.0000714765E-1f;
    y = y * x - 2.4999993993E-1f;
    y = y * x + 3.3333331174E-1f;
    y = y * x * z;
    float fe = (float)e;
    y += fe * -2.12194440E-4f;
    y += -0.5f * z;
    float r = x + y;
    r += fe * 0.693359375f;
    return 0.5f * r;
}

/* out[i] = 0.5 ln(re_i^2 + im_i^2) of n interleaved complex values; *lo and *hi take in the
 * finite results. Elements outside the polynomial's range (zero, subnormal, infinite or NaN
 * power) are done again with logf: -inf for a zero bin, as numpy. */
static inline __attribute__((always_inline)) void log_power_body(const float *s, float *out,
                                                                 int64_t n, float *lo, float *hi)
{
    float l = *lo, u = *hi;
    int32_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float re = s[2 * i], im = s[2 * i + 1];
        float p = re * re + im * im;
        float v = half_log(p);
        int32_t ok = p >= FLT_MIN && p <= FLT_MAX;
        out[i] = v;
        bad |= !ok;
        l = ok && v < l ? v : l;
        u = ok && v > u ? v : u;
    }
    if (bad)
        for (int64_t i = 0; i < n; i++) {
            float re = s[2 * i], im = s[2 * i + 1];
            float p = re * re + im * im;
            if (p >= FLT_MIN && p <= FLT_MAX)
                continue;
            float v = gip__mag_value(re, im, GIP__LOG);
            out[i] = v;
            if (isfinite(v)) {
                l = v < l ? v : l;
                u = v > u ? v : u;
            }
        }
    *lo = l;
    *hi = u;
}

static void log_power_portable(const float *s, float *out, int64_t n, float *lo, float *hi)
{
    log_power_body(s, out, n, lo, hi);
}

#ifdef SPEC_X86
/* half_log() on 8 lanes, the same operations in the same order (fused where the portable code
 * may be contracted). */
SPEC_AVX2 static inline __m256 half_log8(__m256 p)
{
    __m256i pi = _mm256_castps_si256(p);
    __m256i e = _mm256_sub_epi32(_mm256_srli_epi32(pi, 23), _mm256_set1_epi32(126));
    __m256 m = _mm256_castsi256_ps(_mm256_or_si256(
        _mm256_and_si256(pi, _mm256_set1_epi32(0x007FFFFF)), _mm256_set1_epi32(0x3F000000)));
    __m256 lt = _mm256_cmp_ps(m, _mm256_set1_ps(0.70710678f), _CMP_LT_OQ);
    e = _mm256_add_epi32(e, _mm256_castps_si256(lt)); /* lt is -1 where true */
    __m256 x = _mm256_sub_ps(_mm256_blendv_ps(m, _mm256_add_ps(m, m), lt), _mm256_set1_ps(1.0f));
    __m256 z = _mm256_mul_ps(x, x);
    __m256 y = _mm256_set1_ps(7.0376836292E-2f);
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-1.1514610310E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.1676998740E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-1.2420140846E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.4249322787E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-1.6668057665E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(2.0000714765E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(-2.4999993993E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(3.3333331174E-1f));
    y = _mm256_mul_ps(_mm256_mul_ps(y, x), z);
    __m256 fe = _mm256_cvtepi32_ps(e);
    y = _mm256_fmadd_ps(fe, _mm256_set1_ps(-2.12194440E-4f), y);
    y = _mm256_fmadd_ps(_mm256_set1_ps(-0.5f), z, y);
    __m256 r = _mm256_add_ps(x, y);
    r = _mm256_fmadd_ps(fe, _mm256_set1_ps(0.693359375f), r);
    return _mm256_mul_ps(_mm256_set1_ps(0.5f), r);
}

SPEC_AVX2 static void log_power_avx2(const float *s, float *out, int64_t n, float *lo, float *hi)
{
    __m256 vl = _mm256_set1_ps(INFINITY), vh = _mm256_set1_ps(-INFINITY);
    __m256 fmin = _mm256_set1_ps(FLT_MIN), fmax = _mm256_set1_ps(FLT_MAX);
    int bad = 0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 c0 = _mm256_loadu_ps(s + 2 * i), c1 = _mm256_loadu_ps(s + 2 * i + 8);
        /* hadd gives p0 p1 p4 p5 | p2 p3 p6 p7: put the 64-bit pairs back in order. */
        __m256 pp = _mm256_hadd_ps(_mm256_mul_ps(c0, c0), _mm256_mul_ps(c1, c1));
        __m256 p = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(pp), 0xD8));
        __m256 v = half_log8(p);
        __m256 ok =
            _mm256_and_ps(_mm256_cmp_ps(p, fmin, _CMP_GE_OQ), _mm256_cmp_ps(p, fmax, _CMP_LE_OQ));
        _mm256_storeu_ps(out + i, v);
        bad |= _mm256_movemask_ps(ok) != 0xFF;
        vl = _mm256_min_ps(vl, _mm256_blendv_ps(_mm256_set1_ps(INFINITY), v, ok));
        vh = _mm256_max_ps(vh, _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), v, ok));
    }
    float l8[8], h8[8];
    _mm256_storeu_ps(l8, vl);
    _mm256_storeu_ps(h8, vh);
    float l = *lo, u = *hi;
    for (int k = 0; k < 8; k++) {
        l = l8[k] < l ? l8[k] : l;
        u = h8[k] > u ? h8[k] : u;
    }
    *lo = l;
    *hi = u;
    /* The tail and any element out of the polynomial's range: the portable code. */
    if (bad)
        log_power_portable(s, out, n, lo, hi);
    else if (i < n)
        log_power_portable(s + 2 * i, out + i, n - i, lo, hi);
}
#endif

void gip__spectrum_log_power(const float *s, float *out, int64_t n, float *lo, float *hi)
{
#ifdef SPEC_X86
    if (gip__spectrum_simd_active()) {
        log_power_avx2(s, out, n, lo, hi);
        return;
    }
#endif
    log_power_portable(s, out, n, lo, hi);
}

/* ---- normalised levels ----------------------------------------------------------------------- */

/* gip__norm_apply() without branches: NaN and -inf give 0, +inf 255, finite values v a + b
 * rounded half to even (the 1.5 * 2^23 trick, exact for the clamped range) and saturated. The
 * product and sum may be fused or not (an f32 rounding of v a: below 2e-5 levels). */
static inline __attribute__((always_inline)) uint8_t level(float v, float a, float b)
{
    float t = v * a + b;
    t = v == INFINITY ? 256.0f : t;
    t = t > -1.0f ? t : -1.0f; /* NaN too */
    t = t < 256.0f ? t : 256.0f;
    t = (t + 12582912.0f) - 12582912.0f;
    int32_t i = (int32_t)t;
    return (uint8_t)(i < 0 ? 0 : i > 255 ? 255 : i);
}

/* One output row from its two half-spectrum rows: d[x] = Q(kx) with kx = (x + ceil(W/2)) mod W,
 * Q(kx) = direct[kx] for kx <= W/2, else mirror[W - kx] (Hermitian symmetry). */
static inline __attribute__((always_inline)) void
levels_body(uint8_t *d, const float *direct, const float *mirror, int64_t w, float a, float b)
{
    int64_t cw = w - w / 2, fw = w / 2, hw = w / 2 + 1;
    int64_t xs = hw - cw < fw ? hw - cw : fw; /* x < xs: kx = x + cw <= W/2 */
    for (int64_t x = 0; x < xs; x++)
        d[x] = level(direct[x + cw], a, b);
    for (int64_t x = xs; x < fw; x++)
        d[x] = level(mirror[w - cw - x], a, b);
    for (int64_t x = fw; x < w; x++)
        d[x] = level(direct[x - fw], a, b);
}

static void levels_portable(uint8_t *d, const float *direct, const float *mirror, int64_t w,
                            float a, float b)
{
    levels_body(d, direct, mirror, w, a, b);
}

#ifdef SPEC_X86
/* level() on 8 lanes, stored as 8 bytes. max_ps(t, -1) returns -1 for a NaN t. */
SPEC_AVX2 static inline void level8(uint8_t *d, __m256 v, __m256 a, __m256 b)
{
    __m256 t = _mm256_fmadd_ps(v, a, b);
    t = _mm256_blendv_ps(t, _mm256_set1_ps(256.0f),
                         _mm256_cmp_ps(v, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
    t = _mm256_max_ps(t, _mm256_set1_ps(-1.0f));
    t = _mm256_min_ps(t, _mm256_set1_ps(256.0f));
    __m256i i =
        _mm256_cvtps_epi32(_mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64((__m128i *)d, _mm_packus_epi16(w16, w16));
}

SPEC_AVX2 static void levels_avx2(uint8_t *d, const float *direct, const float *mirror, int64_t w,
                                  float a, float b)
{
    int64_t cw = w - w / 2, fw = w / 2, hw = w / 2 + 1;
    int64_t xs = hw - cw < fw ? hw - cw : fw;
    __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
    __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    int64_t x = 0;
    for (; x < xs; x++)
        d[x] = level(direct[x + cw], a, b);
    for (; x + 8 <= fw; x += 8) /* mirror[w - cw - x - 7 .. w - cw - x], reversed */
        level8(d + x, _mm256_permutevar8x32_ps(_mm256_loadu_ps(mirror + w - cw - x - 7), rev), va,
               vb);
    for (; x < fw; x++)
        d[x] = level(mirror[w - cw - x], a, b);
    for (; x + 8 <= w; x += 8)
        level8(d + x, _mm256_loadu_ps(direct + x - fw), va, vb);
    for (; x < w; x++)
        d[x] = level(direct[x - fw], a, b);
}
#endif

/* ---- the passes ------------------------------------------------------------------------------ */

typedef struct spec_arg {
    const gip_image *src;
    gip_image *dst;
    float *spec;   /* H rows of `hs` complex: first W gray floats, then the transform */
    float *lg;     /* H rows of `hs` floats: log magnitude of the half spectrum */
    float *tbuf;   /* per part: COL_BLOCK x ht complex, then COL_BLOCK x ht floats */
    int64_t ht;    /* H rounded up to 8 */
    int64_t parts; /* column parts (the context's threads) */
    int64_t w, h;  /* image size */
    int64_t hw;    /* W/2 + 1 */
    int64_t hs;    /* row stride of spec (complex) and lg (floats) */
    uintptr_t row_plan, row_plan1, col_plan, col_plan_rest;
    int mode;
    bool bgr, simd;
    gip__norm_range range;
    gip__norm_coeffs c;
} spec_arg;

static void gray_row(const spec_arg *a, int64_t y, float *out)
{
    const gip_image *s = a->src;
    const char *row = (const char *)s->data + y * s->stride;
    int64_t w = a->w;
    int32_t cn = s->channels;
    bool rf = !a->bgr;
/* the integer dtypes' rows: their values, or their colours' gray */
#define GRAY_INT(T)                                                                                \
    {                                                                                              \
        const T *p = (const T *)row;                                                               \
        if (cn == 1)                                                                               \
            for (int64_t x = 0; x < w; x++)                                                        \
                out[x] = p[x];                                                                     \
        else                                                                                       \
            for (int64_t x = 0; x < w; x++, p += cn)                                               \
                out[x] = gip__gray_int(p[0], p[1], p[2], rf);                                      \
    }
    switch (s->dtype) {
    case GIP_U8:
        GRAY_INT(uint8_t) break;
    case GIP_U16:
        GRAY_INT(uint16_t) break;
#undef GRAY_INT
    default: {
        const float *p = (const float *)row;
        if (cn == 1)
            memcpy(out, p, (size_t)w * sizeof(float));
        else
            for (int64_t x = 0; x < w; x++, p += cn)
                out[x] = gip__gray_f32(p[0], p[1], p[2], rf);
        break;
    }
    }
}

/* Blocks of ROW_BLOCK rows: gray into the spectrum rows, then their row transforms in place. */
static void row_blocks(void *arg, int64_t b0, int64_t b1)
{
    const spec_arg *a = arg;
    for (int64_t b = b0; b < b1; b++) {
        int64_t y0 = b * ROW_BLOCK, y1 = y0 + ROW_BLOCK < a->h ? y0 + ROW_BLOCK : a->h;
        for (int64_t y = y0; y < y1; y++)
            gray_row(a, y, a->spec + 2 * y * a->hs);
        float *p = a->spec + 2 * y0 * a->hs;
        if (y1 - y0 == ROW_BLOCK)
            gip__fftw_execute(a->row_plan, GIP__FFT_ROWS_R2C, p, p);
        else
            for (int64_t y = y0; y < y1; y++, p += 2 * a->hs)
                gip__fftw_execute(a->row_plan1, GIP__FFT_ROWS_R2C, p, p);
    }
}

/* Column blocks, split evenly among the parts (one per thread, each with its own buffers): a
 * block of COL_BLOCK columns is transposed into contiguous rows (FFTW's strided column plans
 * walk one column at a time, about 4x slower), transformed, its log magnitude taken row by row
 * and transposed back into lg; the transformed spectrum itself is never written back. */
static void col_parts(void *arg, int64_t p0, int64_t p1)
{
    spec_arg *a = arg;
    int64_t nb = (a->hw + COL_BLOCK - 1) / COL_BLOCK, h = a->h, ht = a->ht;
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t part = p0; part < p1; part++) {
        float *t = a->tbuf + part * COL_BLOCK * ht * 3; /* COL_BLOCK rows of ht complex */
        float *tl = t + COL_BLOCK * ht * 2;             /* COL_BLOCK rows of ht floats */
        for (int64_t b = nb * part / a->parts; b < nb * (part + 1) / a->parts; b++) {
            int64_t x0 = b * COL_BLOCK, n = a->hw - x0 < COL_BLOCK ? a->hw - x0 : COL_BLOCK;
            for (int64_t y = 0; y < h; y++) {
                const float *s = a->spec + 2 * (y * a->hs + x0);
                for (int64_t i = 0; i < n; i++) {
                    t[2 * (i * ht + y)] = s[2 * i];
                    t[2 * (i * ht + y) + 1] = s[2 * i + 1];
                }
            }
            gip__fftw_execute(n == COL_BLOCK ? a->col_plan : a->col_plan_rest, GIP__FFT_BATCH_C2C,
                              t, t);
            for (int64_t i = 0; i < n; i++) {
                const float *c = t + 2 * i * ht;
                float *l = tl + i * ht;
                if (a->mode == GIP__LOG) {
#ifdef SPEC_X86
                    if (a->simd)
                        log_power_avx2(c, l, h, &lo, &hi);
                    else
#endif
                        log_power_portable(c, l, h, &lo, &hi);
                    continue;
                }
                for (int64_t y = 0; y < h; y++) {
                    float v = gip__mag_value(c[2 * y], c[2 * y + 1], a->mode);
                    l[y] = v;
                    if (isfinite(v)) {
                        lo = v < lo ? v : lo;
                        hi = v > hi ? v : hi;
                    }
                }
            }
            for (int64_t y = 0; y < h; y++) {
                float *l = a->lg + y * a->hs + x0;
                for (int64_t i = 0; i < n; i++)
                    l[i] = tl[i * ht + y];
            }
        }
    }
    gip__norm_range_fold(&a->range, lo, hi);
}

/* dst row y shows spectrum row ky = (y + ceil(H/2)) mod H; columns beyond W/2 come from row
 * (H - ky) mod H, mirrored. */
static void write_rows(void *arg, int64_t y0, int64_t y1)
{
    const spec_arg *a = arg;
    int64_t h = a->h, ch = h - h / 2;
    for (int64_t y = y0; y < y1; y++) {
        int64_t ky = y + ch >= h ? y + ch - h : y + ch;
        int64_t kyc = ky == 0 ? 0 : h - ky;
        uint8_t *d = (uint8_t *)a->dst->data + y * a->dst->stride;
        const float *direct = a->lg + ky * a->hs, *mirror = a->lg + kyc * a->hs;
#ifdef SPEC_X86
        if (a->simd) {
            levels_avx2(d, direct, mirror, a->w, a->c.a, a->c.b);
            continue;
        }
#endif
        levels_portable(d, direct, mirror, a->w, a->c.a, a->c.b);
    }
}

gip_status gip__spectrum_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                             bool bgr)
{
    int64_t w = src->width, h = src->height, hw = w / 2 + 1;
    /* Rows of 64 bytes' multiples keep every row and column block aligned for FFTW's SIMD. */
    int64_t hs = (hw + 7) & ~(int64_t)7;
    size_t spec_bytes = gip__fft_round((size_t)(hs * h) * 2 * sizeof(float));
    size_t lg_bytes = gip__fft_round((size_t)(hs * h) * sizeof(float));
    int64_t ht = (h + 7) & ~(int64_t)7, nb = (hw + COL_BLOCK - 1) / COL_BLOCK;
    int64_t parts = ctx->threads < nb ? ctx->threads : nb;
    size_t t_bytes = (size_t)(parts * COL_BLOCK * ht * 3) * sizeof(float);
    gip__fft_scratch s;
    gip_status st = gip__fft_scratch_acquire(ctx, false, spec_bytes + lg_bytes + t_bytes, &s);
    if (st)
        return st;
    spec_arg a = {.src = src,
                  .dst = dst,
                  .spec = s.ptr,
                  .lg = (float *)((char *)s.ptr + spec_bytes),
                  .tbuf = (float *)((char *)s.ptr + spec_bytes + lg_bytes),
                  .ht = ht,
                  .parts = parts,
                  .w = w,
                  .h = h,
                  .hw = hw,
                  .hs = hs,
                  .mode = mode,
                  .bgr = bgr,
                  .simd = gip__spectrum_simd_active(),
                  .range = GIP__NORM_RANGE_INIT};
    /* Full blocks and the remainders (plans of a batch size are cached; unused ones not made). */
    int64_t col_rest = hw % COL_BLOCK;
    if ((h >= ROW_BLOCK && (st = gip__fftw_plan_batch(ctx, GIP__FFT_ROWS_R2C, w, ROW_BLOCK, hs,
                                                      a.spec, &a.row_plan))) ||
        (h % ROW_BLOCK &&
         (st = gip__fftw_plan_batch(ctx, GIP__FFT_ROWS_R2C, w, 1, hs, a.spec, &a.row_plan1))) ||
        (hw >= COL_BLOCK && (st = gip__fftw_plan_batch(ctx, GIP__FFT_BATCH_C2C, h, COL_BLOCK, ht,
                                                       a.tbuf, &a.col_plan))) ||
        (col_rest && (st = gip__fftw_plan_batch(ctx, GIP__FFT_BATCH_C2C, h, col_rest, ht, a.tbuf,
                                                &a.col_plan_rest))))
        goto out_release;
    gip__parallel_for(ctx, (h + ROW_BLOCK - 1) / ROW_BLOCK, 1, row_blocks, &a);
    gip__parallel_for(ctx, parts, 1, col_parts, &a);
    a.c = gip__norm_make(a.range.lo, a.range.hi, a.range.any);
    gip__parallel_for(ctx, h, 16, write_rows, &a);
    pthread_mutex_destroy(&a.range.lock);
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
