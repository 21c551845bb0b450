/* SPDX-License-Identifier: MIT */
/* gip_convert on the CPU: one row function per (source, destination) dtype pair, rows spread over
 * the context's threads. */
#if defined(__GNUC__) && !defined(__clang__)
/* Comparisons as vector selects (only the exception flags, never read, may differ) and no FMA
 * contraction beyond the fmaf written, so that both clones compute the same bits. */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")
#endif

#include <math.h>

#include "color/convert.h"
#include "saturate.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROW_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ROW_CLONES
#endif

/* Float to an integer range, rounded half to even, NaN to 0: gip__sat_u8_f32() and its kin,
 * written as selects so that the loops vectorise (adding and subtracting 1.5 * 2^23 rounds a
 * float under 2^22 in magnitude in the default rounding mode, as lrintf() does). */
static inline __attribute__((always_inline)) float sat_round(float v, float lo, float hi)
{
    v = v == v ? v : 0.0f;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    return (v + 12582912.0f) - 12582912.0f;
}

/* Converts n elements of one row. s and d may be the same row (in place, same dtype). */
typedef void (*row_fn)(const void *s, void *d, int64_t n, float alpha, float beta);

/* Float to each destination dtype as OpenCV's saturate_cast: round half to even, clamp. */
#define SATF_u8(v) ((uint8_t)(int32_t)sat_round((v), 0.0f, 255.0f))
#define SATF_u16(v) ((uint16_t)(int32_t)sat_round((v), 0.0f, 65535.0f))
#define SATF_s16(v) ((int16_t)(int32_t)sat_round((v), -32768.0f, 32767.0f))
#define SATF_f32(v) (v)

/* A source element to each destination dtype without arithmetic (OpenCV's noScale convertTo).
 * Integer sources go through int32_t exactly; float sources round half to even and clamp. */
#define PLAIN_i_u8(v) gip__sat_u8_i32((int32_t)(v))
#define PLAIN_i_u16(v) gip__sat_u16_i32((int32_t)(v))
#define PLAIN_i_s16(v) gip__sat_s16_i32((int32_t)(v))
#define PLAIN_i_f32(v) ((float)(v))
#define PLAIN_f_u8(v) SATF_u8(v)
#define PLAIN_f_u16(v) SATF_u16(v)
#define PLAIN_f_s16(v) SATF_s16(v)
#define PLAIN_f_f32(v) (v)

/* fmaf, not s * alpha + beta: OpenCV's convertTo (cvt_32f) uses v_fma, a fused multiply-add on
 * AVX2 and NEON, and its results match a single rounding (checked against cv2 5.0 on x86-64 with
 * AVX2; an OpenCV build running without FMA rounds twice and can differ by one in the last
 * place). fmaf is correctly rounded whatever -ffp-contract says, and the CUDA side uses
 * __fmaf_rn, so both backends give identical bits. */
#define DEFINE_ROWS(SN, ST, KIND, DN, DT)                                                          \
    ROW_CLONES static void scale_##SN##_##DN(const void *s_, void *d_, int64_t n, float alpha,     \
                                             float beta)                                           \
    {                                                                                              \
        const ST *s = (const ST *)s_;                                                              \
        DT *d = (DT *)d_;                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = SATF_##DN(fmaf((float)s[i], alpha, beta));                                      \
    }                                                                                              \
    ROW_CLONES static void plain_##SN##_##DN(const void *s_, void *d_, int64_t n, float alpha,     \
                                             float beta)                                           \
    {                                                                                              \
        (void)alpha;                                                                               \
        (void)beta;                                                                                \
        const ST *s = (const ST *)s_;                                                              \
        DT *d = (DT *)d_;                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            d[i] = PLAIN_##KIND##_##DN(s[i]);                                                      \
    }

#define DEFINE_SOURCE(SN, ST, KIND)                                                                \
    DEFINE_ROWS(SN, ST, KIND, u8, uint8_t)                                                         \
    DEFINE_ROWS(SN, ST, KIND, u16, uint16_t)                                                       \
    DEFINE_ROWS(SN, ST, KIND, s16, int16_t)                                                        \
    DEFINE_ROWS(SN, ST, KIND, f32, float)

DEFINE_SOURCE(u8, uint8_t, i)
DEFINE_SOURCE(u16, uint16_t, i)
DEFINE_SOURCE(s16, int16_t, i)
DEFINE_SOURCE(f32, float, f)

/* Indexed by dtype - 1 (u8, u16, s16, f32) for source, then destination. */
#define ROW_LINE(PFX, SN)                                                                          \
    {                                                                                              \
        PFX##_##SN##_u8, PFX##_##SN##_u16, PFX##_##SN##_s16, PFX##_##SN##_f32                      \
    }
static const row_fn scale_rows[4][4] = {ROW_LINE(scale, u8), ROW_LINE(scale, u16),
                                        ROW_LINE(scale, s16), ROW_LINE(scale, f32)};
static const row_fn plain_rows[4][4] = {ROW_LINE(plain, u8), ROW_LINE(plain, u16),
                                        ROW_LINE(plain, s16), ROW_LINE(plain, f32)};

typedef struct job {
    const gip_image *src;
    gip_image *dst;
    row_fn fn;
    int64_t n; /* elements per row */
    float alpha, beta;
} job;

static void run_rows(void *arg, int64_t y0, int64_t y1)
{
    const job *j = (const job *)arg;
    for (int64_t y = y0; y < y1; y++)
        j->fn((const char *)j->src->data + y * j->src->stride,
              (char *)j->dst->data + y * j->dst->stride, j->n, j->alpha, j->beta);
}

gip_status gip__convert_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip__convert_params *p)
{
    int si = (int)src->dtype - 1, di = (int)dst->dtype - 1;
    job j = {src,
             dst,
             p->plain ? plain_rows[si][di] : scale_rows[si][di],
             src->width * src->channels,
             p->alpha,
             p->beta};
    /* Rows of about 64 K elements or more per chunk keep scheduling cost negligible. */
    int64_t grain = j.n >= 65536 ? 1 : 65536 / j.n;
    gip__parallel_for(ctx, src->height, grain, run_rows, &j);
    return GIP_OK;
}
