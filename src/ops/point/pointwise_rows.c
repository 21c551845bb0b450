/* SPDX-License-Identifier: MIT */
/* The point operations' CPU rows without a mask: a row goes through in chunks of a few hundred
 * elements, each in three loops (load into floats or doubles, the operation, round and saturate
 * into the destination's dtype) with the dtype and the operation chosen outside the loop, so that
 * the compiler vectorises each; f32 operands are read and written in place, not copied. Every
 * element gets exactly what gip__pw_eval() and gip__pw_eval2() give it (the same single- or
 * double-precision steps, the same fused multiply-adds, rounding half to even), so the results
 * equal the element loops' and the CUDA kernels'. Compiled twice, for x86-64-v3 (AVX2, FMA) and
 * the baseline, and chosen when first called; the integer stores run on AVX2 where the CPU has it
 * and GIP_NOSIMD is not set. */
#if defined(__GNUC__) && !defined(__clang__)
/* Floating-point comparisons may then become vector selects: the values are the same, only the
 * exception flags (which gip never reads) may differ. No contraction into FMAs beyond the ones
 * written, so that every clone computes the same bits. */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")
#endif

#include <math.h>
#include <string.h>

#include "pointwise.h"
#include "tuning.h"

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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PW_X86 1

/* store_float() into u8, u16 and s16, 32 elements a step, returning how many it stored (the rest
 * is store_float()'s). The clamp comes first, in float (min and max return their second operand
 * for NaN, which makes NaN the low end: 0 for u8 and u16; s16 zeroes NaN first), then the
 * conversion in the current rounding mode (half to even, as store_float()'s magic number) and
 * packs that no value reaches the saturation of: the same bits as sat_round_float(). */
__attribute__((target("avx2"))) static int64_t store_int_avx2(gip_dtype dt, const float *b, void *d,
                                                              int64_t n)
{
    const float lo = dt == GIP_S16 ? -32768.0f : 0.0f;
    const float hi = dt == GIP_U8 ? 255.0f : dt == GIP_U16 ? 65535.0f : 32767.0f;
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            __m256 v = _mm256_loadu_ps(b + i + 8 * k);
            if (dt == GIP_S16)
                v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
            v = _mm256_max_ps(_mm256_min_ps(vhi, v), vlo);
            q[k] = _mm256_cvtps_epi32(v);
        }
        if (dt == GIP_U8) {
            const __m256i w =
                _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
            _mm256_storeu_si256(
                (__m256i *)((uint8_t *)d + i),
                _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
        } else {
            for (int k = 0; k < 4; k += 2) {
                const __m256i w = dt == GIP_U16 ? _mm256_packus_epi32(q[k], q[k + 1])
                                                : _mm256_packs_epi32(q[k], q[k + 1]);
                _mm256_storeu_si256((__m256i *)((uint16_t *)d + i + 8 * k),
                                    _mm256_permute4x64_epi64(w, 0xD8));
            }
        }
    }
    return i;
}

/* n bytes from the buffer b to d, the 32-byte-aligned middle with streaming stores (a destination
 * too large for the caches is then written without being read first). */
__attribute__((target("avx2"))) static void copy_stream(const void *b, void *d, int64_t n)
{
    const uint8_t *s = b;
    uint8_t *o = d;
    int64_t i = (int64_t)((32 - (uintptr_t)o % 32) % 32);
    i = i < n ? i : n;
    memcpy(o, s, (size_t)i);
    for (; i + 32 <= n; i += 32)
        _mm256_stream_si256((__m256i *)(o + i), _mm256_loadu_si256((const __m256i *)(s + i)));
    memcpy(o + i, s + i, (size_t)(n - i));
}
#endif

/* addWeighted and multiply of two u8 rows into u8, 32 elements a step in registers (the chunk
 * loops' three passes through buffers made these bound by loads and stores): the same single-
 * precision operations as gip__pw_eval2() (fused multiply-adds for addWeighted, two products for
 * multiply) and the rounding and saturation of store_int_avx2(). Returns the elements done. */
/* One vector of results, NAME() for float vectors PS of intrinsics prefix P. */
#define PAIR_OP_FN(NAME, TARGET, PS, P)                                                            \
    TARGET static inline __attribute__((always_inline)) PS NAME(int op, PS x, PS y, PS ka, PS kb,  \
                                                                PS kc)                             \
    {                                                                                              \
        if (op == GIP__OP_WEIGHTED)                                                                \
            return P##_fmadd_ps(x, ka, P##_fmadd_ps(y, kb, kc));                                   \
        return P##_mul_ps(P##_mul_ps(x, ka), y);                                                   \
    }
/* The row function NAME() over BODY(), the operation and the streaming constants of each loop. */
#define PAIR_ROW_FN(NAME, TARGET, BODY)                                                            \
    TARGET static int64_t NAME(const gip__pw *p, const uint8_t *a, const uint8_t *b, uint8_t *d,   \
                               int64_t n, int stream)                                              \
    {                                                                                              \
        if (p->sub == GIP__OP_WEIGHTED)                                                            \
            return stream ? BODY(GIP__OP_WEIGHTED, p, a, b, d, n, 1)                               \
                          : BODY(GIP__OP_WEIGHTED, p, a, b, d, n, 0);                              \
        return stream ? BODY(GIP__OP_MUL, p, a, b, d, n, 1) : BODY(GIP__OP_MUL, p, a, b, d, n, 0); \
    }
#define PAIR_AVX2 __attribute__((target("avx2,fma")))
#define PAIR_AVX512 __attribute__((target("avx512f,avx512bw,fma")))

PAIR_OP_FN(pair_op, PAIR_AVX2, __m256, _mm256)

PAIR_AVX2 static inline __attribute__((always_inline)) int64_t
pair_u8_body(int op, const gip__pw *p, const uint8_t *a, const uint8_t *b, uint8_t *d, int64_t n,
             int stream)
{
    const __m256 ka = _mm256_set1_ps(p->a), kb = _mm256_set1_ps(p->b), kc = _mm256_set1_ps(p->c);
    const __m256 hi = _mm256_set1_ps(255.0f), lo = _mm256_setzero_ps();
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
        const __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
        const __m128i ah = _mm256_extracti128_si256(va, 1), bh = _mm256_extracti128_si256(vb, 1);
        const __m128i aq[4] = {_mm256_castsi256_si128(va),
                               _mm_srli_si128(_mm256_castsi256_si128(va), 8), ah,
                               _mm_srli_si128(ah, 8)};
        const __m128i bq[4] = {_mm256_castsi256_si128(vb),
                               _mm_srli_si128(_mm256_castsi256_si128(vb), 8), bh,
                               _mm_srli_si128(bh, 8)};
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            const __m256 x = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(aq[k]));
            const __m256 y = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bq[k]));
            const __m256 v = pair_op(op, x, y, ka, kb, kc);
            q[k] = _mm256_cvtps_epi32(_mm256_max_ps(_mm256_min_ps(hi, v), lo));
        }
        const __m256i w = _mm256_permutevar8x32_epi32(
            _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3])),
            order);
        if (stream)
            _mm256_stream_si256((__m256i *)(d + i), w);
        else
            _mm256_storeu_si256((__m256i *)(d + i), w);
    }
    return i;
}

PAIR_ROW_FN(pair_u8_avx2, PAIR_AVX2, pair_u8_body)

/* The same with AVX-512: 64 elements a step, each 16 converted, computed, clamped and narrowed
 * (vpmovdb: the values are already in 0..255) on their own. */
PAIR_OP_FN(pair_op512, PAIR_AVX512, __m512, _mm512)

PAIR_AVX512 static inline __attribute__((always_inline)) int64_t
pair_u8_body512(int op, const gip__pw *p, const uint8_t *a, const uint8_t *b, uint8_t *d, int64_t n,
                int stream)
{
    const __m512 ka = _mm512_set1_ps(p->a), kb = _mm512_set1_ps(p->b), kc = _mm512_set1_ps(p->c);
    const __m512 hi = _mm512_set1_ps(255.0f), lo = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; k++) {
            const __m512 x = _mm512_cvtepi32_ps(
                _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(a + i + 16 * k))));
            const __m512 y = _mm512_cvtepi32_ps(
                _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(b + i + 16 * k))));
            const __m512 v = pair_op512(op, x, y, ka, kb, kc);
            const __m128i r =
                _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(_mm512_max_ps(_mm512_min_ps(hi, v), lo)));
            if (stream)
                _mm_stream_si128((__m128i *)(d + i + 16 * k), r);
            else
                _mm_storeu_si128((__m128i *)(d + i + 16 * k), r);
        }
    return i;
}

PAIR_ROW_FN(pair_u8_avx512, PAIR_AVX512, pair_u8_body512)
#undef PAIR_OP_FN
#undef PAIR_ROW_FN
#undef PAIR_AVX2
#undef PAIR_AVX512

/* Whether the CPU runs the AVX-512 bodies (GIP_NOSIMD and GIP_NOAVX512 unset). */
static int avx512_ok(void)
{
    return (gip__simd() & GIP__SIMD_AVX512) != 0;
}

/* Whether store_out() may use store_int_avx2(). */
static int int_simd(void)
{
#ifdef PW_X86
    return gip__simd_avx2_fma();
#else
    return 0;
#endif
}

/* store_float(), the integer dtypes through store_int_avx2() where simd is set. */
ALWAYS_INLINE static inline void store_int(gip_dtype dt, const float *restrict b, void *d,
                                           int64_t n, int simd)
{
    int64_t k = 0;
#ifdef PW_X86
    if (simd && dt != GIP_F32)
        k = store_int_avx2(dt, b, d, n);
#else
    (void)simd;
#endif
    if (k < n)
        store_float(dt, b + k, (char *)d + k * (int64_t)gip_dtype_size(dt), n - k);
}

/* The chunk o of n results into d as dtype dt: with streaming stores where stream is set (simd
 * too), through the buffer ob of CHUNK f32's bytes. */
ALWAYS_INLINE static inline void store_out(gip_dtype dt, const float *restrict o, void *d,
                                           int64_t n, int simd, int stream, void *ob)
{
#ifdef PW_X86
    if (stream) {
        if (dt != GIP_F32)
            store_int(dt, o, ob, n, simd);
        copy_stream(dt == GIP_F32 ? (const void *)o : ob, d, n * (int64_t)gip_dtype_size(dt));
        return;
    }
#else
    (void)stream;
    (void)ob;
#endif
    store_int(dt, o, d, n, simd);
}

/* The elements of a first chunk that brings the next ones to a 64-byte boundary of d (elements
 * of es bytes), so that their stores do not straddle cache lines (a fifth of the time on large
 * rows) and may stream; 0 where d's elements are not aligned to their size. */
static inline int64_t head(const void *d, int64_t es, int64_t n)
{
    if ((uintptr_t)d % (uintptr_t)es)
        return 0;
    const int64_t h = (int64_t)((64 - (uintptr_t)d % 64) % 64) / es;
    return h < n ? h : n;
}

static inline bool aligned(const void *d, uintptr_t a)
{
    return (uintptr_t)d % a == 0;
}

/* Orders the streaming stores of a band before the band counts as done. */
static void stream_fence(int stream)
{
#ifdef PW_X86
    if (stream)
        _mm_sfence();
#else
    (void)stream;
#endif
}

/* One loop of an arithmetic operation OP with the per-element scalars s[] (single precision),
 * the operation a compile-time constant of each case so that gip__pw_arith() folds to it. */
#define ARITH_LOOP(OP)                                                                             \
    case OP:                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = gip__pw_arith(OP, b[i], s[i], p->a, p->zero_div);                               \
        return;

/* o[i] = the unary operation of p on b[i]; s and t hold each element's channel constants. */
ALWAYS_INLINE static inline void apply1(const gip__pw *p, const float *restrict b,
                                        float *restrict o, const float *restrict s,
                                        const float *restrict t, int64_t n)
{
    if (p->kind == GIP__PW_THRESH) {
        for (int64_t i = 0; i < n; i++) { /* every value loaded first: selects, no branches */
            const float x = b[i], th = s[i], m = t[i];
            const float r = p->sub == GIP__TH_BINARY       ? (x > th ? m : 0.0f)
                            : p->sub == GIP__TH_BINARY_INV ? (x > th ? 0.0f : m)
                            : p->sub == GIP__TH_TRUNC      ? (x > th ? th : x)
                            : p->sub == GIP__TH_TOZERO     ? (x > th ? x : 0.0f)
                                                           : (x > th ? 0.0f : x);
            o[i] = r;
        }
        return;
    }
    if (p->kind == GIP__PW_SCALE_ABS) {
        for (int64_t i = 0; i < n; i++)
            o[i] = gip__pw_abs(gip__rn_fma(b[i], p->a, p->b));
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
            o[i] = gip__pw_arith(p->sub, b[i], s[i], p->a, p->zero_div);
        return;
    }
}

#define ARITH2_LOOP(OP)                                                                            \
    case OP:                                                                                       \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = gip__pw_arith(OP, b[i], b2[i], p->a, p->zero_div);                              \
        return;

/* o[i] = the two-image operation of p on b[i] and b2[i] (gip__pw_eval2). */
ALWAYS_INLINE static inline void apply2(const gip__pw *p, const float *restrict b,
                                        const float *restrict b2, float *restrict o, int64_t n)
{
    switch (p->sub) {
    case GIP__OP_WEIGHTED:
        for (int64_t i = 0; i < n; i++)
            o[i] = gip__rn_fma(b[i], p->a, gip__rn_fma(b2[i], p->b, p->c));
        return;
    case GIP__OP_ADAPT: {
        const float v0 = p->v[0], w0 = p->w[0];
        if (p->inv)
            for (int64_t i = 0; i < n; i++)
                o[i] = gip__rn_add(b[i], -b2[i]) <= v0 ? w0 : 0.0f;
        else
            for (int64_t i = 0; i < n; i++)
                o[i] = gip__rn_add(b[i], -b2[i]) > v0 ? w0 : 0.0f;
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
            o[i] = gip__pw_eval2(p, b[i], b2[i]);
        return;
    }
}

ROWS_CLONES bool gip__pw_rows_fast(const gip__pw *p, gip_dtype sdt, gip_dtype ddt, int32_t cn,
                                   const void *src, int64_t sstride, void *dst, int64_t dstride,
                                   int64_t n, int64_t rows, bool stream)
{
    if (p->kind != GIP__PW_THRESH && p->kind != GIP__PW_ARITH && p->kind != GIP__PW_SCALE_ABS)
        return false;
    const int64_t ses = (int64_t)gip_dtype_size(sdt), des = (int64_t)gip_dtype_size(ddt);
    const int simd = int_simd(), st = stream && simd;
    if (p->kind == GIP__PW_ARITH && p->sub >= GIP__OP_MUL_D) { /* in double precision */
        double b[CHUNK], ds[CHUNK];
        for (int32_t c = 0; c < cn; c++)
            for (int32_t i = c; i < CHUNK; i += cn)
                ds[i] = p->dv[c];
        for (int64_t y = 0; y < rows; y++) {
            const char *sr = (const char *)src + y * sstride;
            char *dr = (char *)dst + y * dstride;
            for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
                const int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
                load_double(sdt, sr + i0 * ses, b, m);
                for (int64_t i = 0; i < m; i++)
                    b[i] = gip__pw_arith_d(p->sub, b[i], ds[i], p->da, p->zero_div);
                store_double(ddt, b, dr + i0 * des, m);
            }
        }
        return true;
    }
    /* s and t one period longer than a chunk: a chunk from element i0 takes them from i0 % cn */
    float b[CHUNK], o[CHUNK], s[CHUNK + 4], t[CHUNK + 4], ob[CHUNK];
    for (int32_t c = 0; c < cn; c++)
        for (int32_t i = c; i < CHUNK + 4; i += cn) {
            s[i] = p->v[c];
            t[i] = p->w[c];
        }
    for (int64_t y = 0; y < rows; y++) {
        const char *sr = (const char *)src + y * sstride;
        char *dr = (char *)dst + y * dstride;
        /* f32 results straight into dst unless it is src or streamed (then through o) */
        const bool direct = ddt == GIP_F32 && (const void *)dr != (const void *)sr && !st;
        const int64_t h = head(dr, des, n);
        for (int64_t i0 = 0, m; i0 < n; i0 += m) {
            m = i0 == 0 && h > 0 ? h : n - i0 < CHUNK ? n - i0 : CHUNK;
            const int64_t ph = i0 % cn;
            const float *in = b;
            if (sdt == GIP_F32)
                in = (const float *)(sr + i0 * ses);
            else
                load_float(sdt, sr + i0 * ses, b, m);
            if (direct) {
                apply1(p, in, (float *)(dr + i0 * des), s + ph, t + ph, m);
            } else {
                apply1(p, in, o, s + ph, t + ph, m);
                store_out(ddt, o, dr + i0 * des, m, simd, st && aligned(dr + i0 * des, 64), ob);
            }
        }
    }
    stream_fence(st);
    return true;
}

/* Elements [i0, i1) of a two-image row through the chunk loops; see gip__pw2_row_fast. */
ALWAYS_INLINE static inline void pw2_chunks(const gip__pw *p, gip_dtype sdt, gip_dtype ddt,
                                            const void *a, const void *a2, void *dst, int64_t i0,
                                            int64_t i1, int simd, int st)
{
    float b[CHUNK], b2[CHUNK], o[CHUNK], ob[CHUNK];
    const int64_t ses = (int64_t)gip_dtype_size(sdt), des = (int64_t)gip_dtype_size(ddt);
    /* f32 results straight into dst unless it is one of the operands or streamed (then through
     * o) */
    const bool direct = ddt == GIP_F32 && (const void *)dst != a && (const void *)dst != a2 && !st;
    const int64_t h = i0 == 0 ? head(dst, des, i1) : 0;
    for (int64_t i = i0, m; i < i1; i += m) {
        m = i == 0 && h > 0 ? h : i1 - i < CHUNK ? i1 - i : CHUNK;
        const float *in = b, *in2 = b2;
        if (sdt == GIP_F32) {
            in = (const float *)((const char *)a + i * ses);
            in2 = (const float *)((const char *)a2 + i * ses);
        } else {
            load_float(sdt, (const char *)a + i * ses, b, m);
            load_float(sdt, (const char *)a2 + i * ses, b2, m);
        }
        char *d = (char *)dst + i * des;
        if (direct) {
            apply2(p, in, in2, (float *)d, m);
        } else {
            apply2(p, in, in2, o, m);
            store_out(ddt, o, d, m, simd, st && aligned(d, 64), ob);
        }
    }
}

ROWS_CLONES bool gip__pw2_row_fast(const gip__pw *p, gip_dtype sdt, gip_dtype ddt, const void *a,
                                   const void *a2, void *dst, int64_t n, bool stream)
{
    const int simd = int_simd(), st = stream && simd;
#ifdef PW_X86
    if (simd && sdt == GIP_U8 && ddt == GIP_U8 &&
        (p->sub == GIP__OP_WEIGHTED || p->sub == GIP__OP_MUL)) {
        /* the first elements up to dst's 64-byte boundary, the body in registers, the tail */
        const int64_t h = head(dst, 1, n);
        pw2_chunks(p, sdt, ddt, a, a2, dst, 0, h, simd, 0);
        const int64_t k = h + (avx512_ok() ? pair_u8_avx512 : pair_u8_avx2)(
                                  p, (const uint8_t *)a + h, (const uint8_t *)a2 + h,
                                  (uint8_t *)dst + h, n - h, st);
        pw2_chunks(p, sdt, ddt, a, a2, dst, k, n, simd, 0);
        stream_fence(st);
        return true;
    }
#endif
    pw2_chunks(p, sdt, ddt, a, a2, dst, 0, n, simd, st);
    stream_fence(st);
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
