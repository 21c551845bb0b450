/* SPDX-License-Identifier: MIT */
/* The point operations' CPU rows without a mask: a row goes through in chunks of a few hundred
 * elements, each in three loops (load into doubles, the operation, round and saturate into the
 * destination's dtype) with the dtype and the operation chosen outside the loop, so that the
 * compiler vectorises each. Every element gets exactly what gip__pw_eval() and gip__pw_eval2()
 * give it (the same single- or double-precision steps, the same fused multiply-adds, rounding
 * half to even), so the results equal the element loops' and the CUDA kernels'. Compiled twice,
 * for x86-64-v3 (AVX2, FMA) and the baseline, and chosen when first called. */
#if defined(__GNUC__) && !defined(__clang__)
/* Floating-point comparisons may then become vector selects: the values are the same, only the
 * exception flags (which gip never reads) may differ. No contraction into FMAs beyond the ones
 * written, so that every clone computes the same bits. */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")
#endif

#include <math.h>
#include <string.h>

#include "pointwise.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROWS_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ROWS_CLONES
#endif

#define ALWAYS_INLINE __attribute__((always_inline))

/* Elements a chunk: a multiple of 1, 2, 3 and 4 channels, so a chunk starts at channel 0. */
#define CHUNK 384

/* load_<T>: n source elements into the buffer; store_<T>: rounded half to even and saturated
 * (NaN gives 0) into the destination's dtype, as gip__pw_u8() and its kin, written as selects of
 * values so that the loops vectorise: adding and subtracting 1.5 * 2^52 (2^23 for float) rounds
 * a value under 2^51 (2^22) in magnitude to an integer in the default rounding mode, as lrint()
 * does, and every clamped value is under 2^16. */
#define LOAD_STORE(T, MAGIC)                                                                       \
    ALWAYS_INLINE static inline void load_##T(gip_dtype dt, const void *s, T *restrict b,          \
                                              int64_t n)                                           \
    {                                                                                              \
        switch (dt) {                                                                              \
        case GIP_U8:                                                                               \
            for (int64_t i = 0; i < n; i++)                                                        \
                b[i] = ((const uint8_t *)s)[i];                                                    \
            return;                                                                                \
        case GIP_U16:                                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                b[i] = ((const uint16_t *)s)[i];                                                   \
            return;                                                                                \
        case GIP_S16:                                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                b[i] = ((const int16_t *)s)[i];                                                    \
            return;                                                                                \
        default:                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                b[i] = ((const float *)s)[i];                                                      \
            return;                                                                                \
        }                                                                                          \
    }                                                                                              \
    ALWAYS_INLINE static inline T sat_round_##T(T v, T lo, T hi)                                   \
    {                                                                                              \
        v = v == v ? v : (T)0;                                                                     \
        v = v < lo ? lo : v;                                                                       \
        v = v > hi ? hi : v;                                                                       \
        return (v + (T)MAGIC) - (T)MAGIC;                                                          \
    }                                                                                              \
    ALWAYS_INLINE static inline void store_##T(gip_dtype dt, const T *restrict b, void *d,         \
                                               int64_t n)                                          \
    {                                                                                              \
        switch (dt) {                                                                              \
        case GIP_U8:                                                                               \
            for (int64_t i = 0; i < n; i++)                                                        \
                ((uint8_t *)d)[i] = (uint8_t)(int32_t)sat_round_##T(b[i], 0, 255);                 \
            return;                                                                                \
        case GIP_U16:                                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                ((uint16_t *)d)[i] = (uint16_t)(int32_t)sat_round_##T(b[i], 0, 65535);             \
            return;                                                                                \
        case GIP_S16:                                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                ((int16_t *)d)[i] = (int16_t)(int32_t)sat_round_##T(b[i], -32768, 32767);          \
            return;                                                                                \
        default:                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                ((float *)d)[i] = (float)b[i];                                                     \
            return;                                                                                \
        }                                                                                          \
    }
LOAD_STORE(float, 12582912.0f)
LOAD_STORE(double, 6755399441055744.0)

/* One loop of an arithmetic operation OP with the per-element scalars s[] (single precision),
 * the operation a compile-time constant of each case so that gip__pw_arith() folds to it. */
#define ARITH_LOOP(OP)                                                                             \
    case OP:                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                            \
            b[i] = gip__pw_arith(OP, b[i], s[i], p->a, p->zero_div);                               \
        return;

/* b[i] = the unary operation of p on b[i]; s and t hold each element's channel constants. */
ALWAYS_INLINE static inline void apply1(const gip__pw *p, float *restrict b,
                                        const float *restrict s, const float *restrict t, int64_t n)
{
    if (p->kind == GIP__PW_THRESH) {
        for (int64_t i = 0; i < n; i++) { /* every value loaded first: selects, no branches */
            const float x = b[i], th = s[i], m = t[i];
            const float r = p->sub == GIP__TH_BINARY       ? (x > th ? m : 0.0f)
                            : p->sub == GIP__TH_BINARY_INV ? (x > th ? 0.0f : m)
                            : p->sub == GIP__TH_TRUNC      ? (x > th ? th : x)
                            : p->sub == GIP__TH_TOZERO     ? (x > th ? x : 0.0f)
                                                           : (x > th ? 0.0f : x);
            b[i] = r;
        }
        return;
    }
    if (p->kind == GIP__PW_SCALE_ABS) {
        for (int64_t i = 0; i < n; i++)
            b[i] = gip__pw_abs(gip__pw_fma(b[i], p->a, p->b));
        return;
    }
    switch (p->sub) {
        ARITH_LOOP(GIP__OP_ADD)
        ARITH_LOOP(GIP__OP_SUB)
        ARITH_LOOP(GIP__OP_RSUB)
        ARITH_LOOP(GIP__OP_MUL)
        ARITH_LOOP(GIP__OP_DIV)
        ARITH_LOOP(GIP__OP_RDIV)
        ARITH_LOOP(GIP__OP_ABSDIFF)
        ARITH_LOOP(GIP__OP_MIN)
        ARITH_LOOP(GIP__OP_MAX)
    default:
        for (int64_t i = 0; i < n; i++)
            b[i] = gip__pw_arith(p->sub, b[i], s[i], p->a, p->zero_div);
        return;
    }
}

#define ARITH2_LOOP(OP)                                                                            \
    case OP:                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                            \
            b[i] = gip__pw_arith(OP, b[i], b2[i], p->a, p->zero_div);                              \
        return;

/* b[i] = the two-image operation of p on b[i] and b2[i] (gip__pw_eval2). */
ALWAYS_INLINE static inline void apply2(const gip__pw *p, float *restrict b,
                                        const float *restrict b2, int64_t n)
{
    switch (p->sub) {
    case GIP__OP_WEIGHTED:
        for (int64_t i = 0; i < n; i++)
            b[i] = gip__pw_fma(b[i], p->a, gip__pw_fma(b2[i], p->b, p->c));
        return;
    case GIP__OP_ADAPT: {
        const float v0 = p->v[0], w0 = p->w[0];
        if (p->inv)
            for (int64_t i = 0; i < n; i++)
                b[i] = gip__pw_add(b[i], -b2[i]) <= v0 ? w0 : 0.0f;
        else
            for (int64_t i = 0; i < n; i++)
                b[i] = gip__pw_add(b[i], -b2[i]) > v0 ? w0 : 0.0f;
        return;
    }
        ARITH2_LOOP(GIP__OP_ADD)
        ARITH2_LOOP(GIP__OP_SUB)
        ARITH2_LOOP(GIP__OP_MUL)
        ARITH2_LOOP(GIP__OP_DIV)
        ARITH2_LOOP(GIP__OP_ABSDIFF)
        ARITH2_LOOP(GIP__OP_MIN)
        ARITH2_LOOP(GIP__OP_MAX)
    default:
        for (int64_t i = 0; i < n; i++)
            b[i] = gip__pw_eval2(p, b[i], b2[i]);
        return;
    }
}

ROWS_CLONES bool gip__pw_row_fast(const gip__pw *p, gip_dtype sdt, gip_dtype ddt, int32_t cn,
                                  const void *src, void *dst, int64_t n)
{
    if (p->kind != GIP__PW_THRESH && p->kind != GIP__PW_ARITH && p->kind != GIP__PW_SCALE_ABS)
        return false;
    const size_t ses = gip_dtype_size(sdt), des = gip_dtype_size(ddt);
    if (p->kind == GIP__PW_ARITH && p->sub >= GIP__OP_MUL_D) { /* in double precision */
        double b[CHUNK], ds[CHUNK];
        for (int32_t i = 0; i < CHUNK; i++)
            ds[i] = p->dv[i % cn];
        for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
            const int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
            load_double(sdt, (const char *)src + i0 * (int64_t)ses, b, m);
            for (int64_t i = 0; i < m; i++)
                b[i] = gip__pw_arith_d(p->sub, b[i], ds[i], p->da, p->zero_div);
            store_double(ddt, b, (char *)dst + i0 * (int64_t)des, m);
        }
        return true;
    }
    float b[CHUNK], s[CHUNK], t[CHUNK];
    for (int32_t i = 0; i < CHUNK; i++) {
        s[i] = p->v[i % cn];
        t[i] = p->w[i % cn];
    }
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        load_float(sdt, (const char *)src + i0 * (int64_t)ses, b, m);
        apply1(p, b, s, t, m);
        store_float(ddt, b, (char *)dst + i0 * (int64_t)des, m);
    }
    return true;
}

ROWS_CLONES bool gip__pw2_row_fast(const gip__pw *p, gip_dtype sdt, gip_dtype ddt, const void *a,
                                   const void *a2, void *dst, int64_t n)
{
    float b[CHUNK], b2[CHUNK];
    const size_t ses = gip_dtype_size(sdt), des = gip_dtype_size(ddt);
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        load_float(sdt, (const char *)a + i0 * (int64_t)ses, b, m);
        load_float(sdt, (const char *)a2 + i0 * (int64_t)ses, b2, m);
        apply2(p, b, b2, m);
        store_float(ddt, b, (char *)dst + i0 * (int64_t)des, m);
    }
    return true;
}

/* inRange of integer elements: v >= lo and v <= hi are v >= ceil(lo) and v <= floor(hi), so the
 * bounds become integers (an empty range where one is NaN) and the loops compare integers. */
#define IN_RANGE_LOOP(T, CN)                                                                       \
    for (int64_t x = 0; x < w; x++) {                                                              \
        int32_t in = 1;                                                                            \
        for (int32_t c = 0; c < CN; c++) {                                                         \
            const int32_t v = ((const T *)src)[x * CN + c];                                        \
            in &= (v >= ilo[c]) & (v <= ihi[c]);                                                   \
        }                                                                                          \
        dst[x] = (uint8_t)(in ? 255 : 0);                                                          \
    }
#define IN_RANGE_CN(T)                                                                             \
    switch (cn) {                                                                                  \
    case 1:                                                                                        \
        IN_RANGE_LOOP(T, 1) return true;                                                           \
    case 2:                                                                                        \
        IN_RANGE_LOOP(T, 2) return true;                                                           \
    case 3:                                                                                        \
        IN_RANGE_LOOP(T, 3) return true;                                                           \
    case 4:                                                                                        \
        IN_RANGE_LOOP(T, 4) return true;                                                           \
    default:                                                                                       \
        return false;                                                                              \
    }

ROWS_CLONES bool gip__pw_in_range_row_fast(gip_dtype sdt, int32_t cn, const void *src, uint8_t *dst,
                                           int64_t w, const float *lo, const float *hi)
{
    if (sdt == GIP_F32)
        return false;
    int32_t ilo[4], ihi[4];
    for (int32_t c = 0; c < cn && c < 4; c++) {
        const double l = ceil((double)lo[c]), h = floor((double)hi[c]);
        const bool empty = l != l || h != h;
        ilo[c] = empty ? 1 : l < -70000.0 ? -70000 : l > 70000.0 ? 70000 : (int32_t)l;
        ihi[c] = empty ? 0 : h < -70000.0 ? -70000 : h > 70000.0 ? 70000 : (int32_t)h;
    }
    switch (sdt) {
    case GIP_U8:
        IN_RANGE_CN(uint8_t)
    case GIP_U16:
        IN_RANGE_CN(uint16_t)
    default:
        IN_RANGE_CN(int16_t)
    }
}
