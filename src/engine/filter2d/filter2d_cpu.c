/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine on the CPU: each row band keeps a ring of kh border-extended source
 * rows converted to the accumulator type, and accumulates taps over L1-sized chunks of a row with
 * loops the compiler vectorises. Built twice: AVX2+FMA and plain, chosen at run time. */
/* errno is never read here; without it sqrtf in the magnitude loop vectorises. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-math-errno")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif
#include "filter2d.h"
#include "tuning.h"

/* Accumulator elements per chunk of an output row (the chunk's arrays stay in L1). */
#define F2D_CHUNK 1024

#if defined(__GNUC__)
#define F2D_INLINE static inline __attribute__((always_inline))
#else
#define F2D_INLINE static inline
#endif

typedef struct f2d_job {
    const gip__f2d_plan *p;
    const gip_image *src;
    gip_image *dst;
    const int32_t *xmap; /* padded pixel -> source pixel, -1 for the constant border */
    int64_t pwpix;       /* padded row pixels: W + kw - 1 */
    int simd;
    int stream; /* dst is much larger than the caches: direct f32 rows bypass them */
    /* srcdirect: an f32 source read in place by the register kernel in chunks that stay inside
     * the image; the ring rows then hold only padded elements [0, fill_a) and [fill_b, end). */
    int srcdirect;
    int64_t fill_a, fill_b;
    /* srcdirect: the first chunk's length and the last chunk's start (f2d_chunk_len). */
    int64_t chunk0, tail;
    int failed; /* set (atomically) when a band could not get its buffer */
} f2d_job;

/* Round half to even and saturate exactly as gip__sat_*_f32 does, in a form that vectorises:
 * after the clamp |v| <= 65536, where adding and subtracting 1.5 * 2^23 rounds to an integer in
 * the default rounding mode (no -ffast-math here, so the compiler keeps both operations). */
F2D_INLINE float f2d_clamp(float v, float lo, float hi)
{
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
}
F2D_INLINE int32_t f2d_rne(float v)
{
    return (int32_t)((v + 12582912.0f) - 12582912.0f);
}
F2D_INLINE int32_t f2d_clampi(int32_t v, int32_t lo, int32_t hi)
{
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
}

/* ---- filling the ring with border-extended rows ---------------------------------------------- */

#define F2D_FILL_INTERIOR(A, S)                                                                    \
    do {                                                                                           \
        const S *restrict s_ = (const S *)srow;                                                    \
        A *restrict d_ = (A *)out + (int64_t)p->ax * C;                                            \
        for (int64_t i = 0; i < n; i++)                                                            \
            d_[i] = (A)s_[i];                                                                      \
    } while (0)

#define F2D_FILL_PIXEL(A, S)                                                                       \
    do {                                                                                           \
        A *d_ = (A *)out + px * C;                                                                 \
        if (sx < 0)                                                                                \
            for (int32_t c = 0; c < C; c++)                                                        \
                d_[c] = (A)p->border_value[c];                                                     \
        else                                                                                       \
            for (int32_t c = 0; c < C; c++)                                                        \
                d_[c] = (A)((const S *)srow)[sx * C + c];                                          \
    } while (0)

/* Writes logical source row r (any integer), extended by the border on both sides, into out;
 * *srow_out: the source row, or NULL for a constant border row. */
F2D_INLINE void f2d_fill_row(const f2d_job *j, int64_t r, void *out, const char **srow_out)
{
    const gip__f2d_plan *p = j->p;
    const gip_image *src = j->src;
    const int32_t C = src->channels;
    const int64_t W = src->width, n = W * C;
    int64_t sr = gip__border_index(r, src->height, p->border);
    *srow_out = sr < 0 ? NULL : (const char *)src->data + sr * src->stride;
    if (sr < 0) {
        for (int64_t px = 0; px < j->pwpix; px++)
            for (int32_t c = 0; c < C; c++) {
                if (p->int_acc)
                    ((int32_t *)out)[px * C + c] = (int32_t)p->border_value[c];
                else
                    ((float *)out)[px * C + c] = p->border_value[c];
            }
        return;
    }
    const char *srow = (const char *)src->data + sr * src->stride;
    if (p->int_acc) {
        if (src->dtype == GIP_U8)
            F2D_FILL_INTERIOR(int32_t, uint8_t);
        else
            F2D_FILL_INTERIOR(int32_t, uint16_t);
    } else {
        if (src->dtype == GIP_U8)
            F2D_FILL_INTERIOR(float, uint8_t);
        else if (src->dtype == GIP_U16)
            F2D_FILL_INTERIOR(float, uint16_t);
        else if (!j->srcdirect)
            F2D_FILL_INTERIOR(float, float);
        else { /* only what the chunks at the edges read */
            const float *s_ = (const float *)srow;
            float *d_ = (float *)out + (int64_t)p->ax * C;
            int64_t a = j->fill_a - (int64_t)p->ax * C, b = j->fill_b - (int64_t)p->ax * C;
            a = a < n ? a : n;
            b = b > 0 ? b : 0;
            if (a > 0)
                memcpy(d_, s_, (size_t)a * sizeof(float));
            if (b < n)
                memcpy(d_ + b, s_ + b, (size_t)(n - b) * sizeof(float));
        }
    }
    for (int64_t px = 0; px < j->pwpix; px++) {
        if (px == p->ax)
            px += W; /* skip the interior */
        if (px >= j->pwpix)
            break;
        int64_t sx = j->xmap[px];
        if (p->int_acc) {
            if (src->dtype == GIP_U8)
                F2D_FILL_PIXEL(int32_t, uint8_t);
            else
                F2D_FILL_PIXEL(int32_t, uint16_t);
        } else {
            if (src->dtype == GIP_U8)
                F2D_FILL_PIXEL(float, uint8_t);
            else if (src->dtype == GIP_U16)
                F2D_FILL_PIXEL(float, uint16_t);
            else
                F2D_FILL_PIXEL(float, float);
        }
    }
}

/* ---- accumulation ------------------------------------------------------------------------------
 */

/* Up to F2D_GROUP taps per pass over a chunk: each accumulator is loaded and stored once per
 * group instead of once per tap. Float sums still take the taps one fmaf at a time in plan order,
 * so the result is the same bit for bit. first: the accumulator starts at init instead. */
#define F2D_GROUP 4

F2D_INLINE void f2d_acc_int(int32_t *restrict acc, const int32_t *const *rp, const int32_t *k,
                            int g, int64_t n, int first)
{
    const int32_t *restrict r0 = rp[0], *restrict r1 = rp[g > 1], *restrict r2 = rp[(g > 2) * 2],
                            *restrict r3 = rp[(g > 3) * 3];
    for (int64_t i = 0; i < n; i++) {
        int32_t a = first ? 0 : acc[i];
        a += k[0] * r0[i];
        if (g > 1)
            a += k[1] * r1[i];
        if (g > 2)
            a += k[2] * r2[i];
        if (g > 3)
            a += k[3] * r3[i];
        acc[i] = a;
    }
}

F2D_INLINE void f2d_acc_flt(float *restrict acc, const float *const *rp, const float *k, int g,
                            int64_t n, int first, float init)
{
    const float *restrict r0 = rp[0], *restrict r1 = rp[g > 1], *restrict r2 = rp[(g > 2) * 2],
                          *restrict r3 = rp[(g > 3) * 3];
    for (int64_t i = 0; i < n; i++) {
        float a = first ? init : acc[i];
        a = fmaf(k[0], r0[i], a);
        if (g > 1)
            a = fmaf(k[1], r1[i], a);
        if (g > 2)
            a = fmaf(k[2], r2[i], a);
        if (g > 3)
            a = fmaf(k[3], r3[i], a);
        acc[i] = a;
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* Float plans of at most F2D_REG_TAPS taps with AVX2: every tap of 32 elements at a time in
 * registers, one fmadd per tap in plan order, exactly the scalar loop's fmaf chain. The
 * accumulators are read and written once. Returns the elements done. */
#define F2D_REG_TAPS 32

/* The 32-element groups of f2d_acc_flt_regs for a fixed tap count NT: pointers and broadcast taps
 * in locals, which the compiler keeps in registers (in the general loop it loads them again every
 * group, as the stores may alias them). Returns the elements done. */
__attribute__((target("avx2,fma"))) F2D_INLINE int64_t f2d_regs_fixed(float *acc,
                                                                      const float *const *rp,
                                                                      const float *k, const int NT,
                                                                      int64_t n, float init,
                                                                      bool nt_store)
{
    const float *r[9];
    __m256 kk[9];
    for (int t = 0; t < NT; t++) {
        r[t] = rp[t];
        kk[t] = _mm256_set1_ps(k[t]);
    }
    const __m256 a = _mm256_set1_ps(init);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 v[4] = {a, a, a, a};
        for (int t = 0; t < NT; t++)
            for (int u = 0; u < 4; u++)
                v[u] = _mm256_fmadd_ps(kk[t], _mm256_loadu_ps(r[t] + i + 8 * u), v[u]);
        for (int u = 0; u < 4; u++) {
            if (nt_store)
                _mm256_stream_ps(acc + i + 8 * u, v[u]);
            else
                _mm256_storeu_ps(acc + i + 8 * u, v[u]);
        }
    }
    return i;
}

__attribute__((target("avx2,fma"))) static int64_t
f2d_acc_flt_regs(float *acc, const float *const *rp, const float *k, int32_t nt, int64_t n,
                 float init, int stream)
{
    int64_t i = 0;
    /* Streaming stores for large destinations (they need 32-byte alignment). */
    const bool nt_store = stream && ((uintptr_t)acc & 31) == 0;
    const __m256 a = _mm256_set1_ps(init);
    if (nt == 9) /* 3x3 */
        i = f2d_regs_fixed(acc, rp, k, 9, n, init, nt_store);
    else if (nt == 6) /* 3x3 Sobel */
        i = f2d_regs_fixed(acc, rp, k, 6, n, init, nt_store);
    for (; i + 32 <= n; i += 32) {
        __m256 a0 = a, a1 = a, a2 = a, a3 = a;
        for (int32_t t = 0; t < nt; t++) {
            const float *r = rp[t] + i;
            __m256 kk = _mm256_set1_ps(k[t]);
            a0 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r), a0);
            a1 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r + 8), a1);
            a2 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r + 16), a2);
            a3 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r + 24), a3);
        }
        if (nt_store) {
            _mm256_stream_ps(acc + i, a0);
            _mm256_stream_ps(acc + i + 8, a1);
            _mm256_stream_ps(acc + i + 16, a2);
            _mm256_stream_ps(acc + i + 24, a3);
        } else {
            _mm256_storeu_ps(acc + i, a0);
            _mm256_storeu_ps(acc + i + 8, a1);
            _mm256_storeu_ps(acc + i + 16, a2);
            _mm256_storeu_ps(acc + i + 24, a3);
        }
    }
    for (; i + 8 <= n; i += 8) {
        __m256 a0 = a;
        for (int32_t t = 0; t < nt; t++)
            a0 = _mm256_fmadd_ps(_mm256_set1_ps(k[t]), _mm256_loadu_ps(rp[t] + i), a0);
        _mm256_storeu_ps(acc + i, a0);
    }
    return i;
}
#define F2D_HAVE_REGS 1

/* The same sums for u8 outputs of plain plans (no affine step, PLAIN), finished in registers
 * with f2d_store's clamp, rounding and saturation; writes dst[0 .. n) for n a multiple of 32.
 * Against accumulating into a float chunk and converting it in two more loops, this takes about a
 * quarter off filter2D 3x3 with float taps on one thread (u8c1 and u8c3). Streaming stores for
 * large outputs gained nothing. */
__attribute__((target("avx2,fma"))) static void f2d_acc_flt_regs_u8(uint8_t *dst,
                                                                    const float *const *rp,
                                                                    const float *k, int32_t nt,
                                                                    int64_t n, float init)
{
    const __m256 a = _mm256_set1_ps(init), lo = _mm256_set1_ps(-1.0f), hi = _mm256_set1_ps(256.0f),
                 magic = _mm256_set1_ps(12582912.0f);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    /* Nine taps (3x3): pointers and broadcast taps in locals, which the compiler keeps in
     * registers; in the loop below it loads them again every 32 elements (the output stores may
     * alias them as far as it knows). */
    const float *r9[9];
    __m256 k9[9];
    for (int t = 0; t < 9 && nt == 9; t++) {
        r9[t] = rp[t];
        k9[t] = _mm256_set1_ps(k[t]);
    }
    for (int64_t i = 0; i + 32 <= n; i += 32) {
        __m256 v[4] = {a, a, a, a};
        if (nt == 9) {
            for (int t = 0; t < 9; t++)
                for (int u = 0; u < 4; u++)
                    v[u] = _mm256_fmadd_ps(k9[t], _mm256_loadu_ps(r9[t] + i + 8 * u), v[u]);
        } else {
            for (int32_t t = 0; t < nt; t++) {
                const float *r = rp[t] + i;
                const __m256 kk = _mm256_set1_ps(k[t]);
                v[0] = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r), v[0]);
                v[1] = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r + 8), v[1]);
                v[2] = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r + 16), v[2]);
                v[3] = _mm256_fmadd_ps(kk, _mm256_loadu_ps(r + 24), v[3]);
            }
        }
        __m256i q[4];
        for (int u = 0; u < 4; u++) {
            __m256 x = v[u];
            /* f2d_clamp (max and min take the bound when x is NaN, as it does), f2d_rne */
            x = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
            x = _mm256_sub_ps(_mm256_add_ps(x, magic), magic);
            q[u] = _mm256_cvttps_epi32(x);
        }
        /* [-1, 256] to u8 with saturation (f2d_clampi), back in element order */
        const __m256i b =
            _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permutevar8x32_epi32(b, order));
    }
}
#endif

#ifdef F2D_HAVE_REGS
/* The register kernels' row pointers and taps for taps [t0, t1) (at most F2D_REG_TAPS) of output
 * row y, elements [x0, x0 + n): a chunk inside the image reads the source rows in place
 * (srcdirect), others the ring. */
F2D_INLINE void f2d_reg_rows(const f2d_job *j, char *const *rows, const char *const *srows,
                             int64_t y, int64_t x0, int64_t n, int32_t t0, int32_t t1,
                             const float **rp, float *kf)
{
    const gip__f2d_plan *p = j->p;
    const int32_t C = j->src->channels;
    const int inside = j->srcdirect && x0 >= (int64_t)p->ax * C &&
                       x0 + n + (int64_t)(p->kw - 1 - p->ax) * C <= j->src->width * C;
    for (int32_t t = t0; t < t1; t++) {
        const gip__f2d_tap *tp = &p->taps[t];
        int64_t slot = (y + tp->dy + p->ay) % p->kh;
        if (inside && srows[slot])
            rp[t - t0] = (const float *)srows[slot] + x0 + (int64_t)tp->dx * C;
        else
            rp[t - t0] = (const float *)rows[slot] + x0 + (int64_t)(tp->dx + p->ax) * C;
        kf[t - t0] = tp->kf;
    }
}

/* Output row y, elements [x0, x0 + n) (n a multiple of 32) of a float plan to u8, in registers
 * (f2d_acc_flt_regs_u8): the same values as f2d_accumulate then f2d_store. */
F2D_INLINE void f2d_direct_u8(const f2d_job *j, char *const *rows, const char *const *srows,
                              int64_t y, int64_t x0, int64_t n)
{
    const gip__f2d_plan *p = j->p;
    const float *rp[F2D_REG_TAPS];
    float kf[F2D_REG_TAPS];
    f2d_reg_rows(j, rows, srows, y, x0, n, 0, p->ntaps, rp, kf);
    f2d_acc_flt_regs_u8((uint8_t *)j->dst->data + y * j->dst->stride + x0, rp, kf, p->ntaps, n,
                        p->init);
}
#endif

/* Accumulates taps [t0, t1) of the plan for output row y, elements [x0, x0 + n), into acc.
 * stream: acc is the destination row, which may be written past the caches. */
F2D_INLINE void f2d_accumulate(const f2d_job *j, char *const *rows, const char *const *srows,
                               int64_t y, int64_t x0, int64_t n, int32_t t0, int32_t t1, void *acc,
                               int stream)
{
    const gip__f2d_plan *p = j->p;
    const int32_t C = j->src->channels;
    if (t1 <= t0) {
        if (p->int_acc)
            memset(acc, 0, (size_t)n * sizeof(int32_t));
        else
            for (int64_t i = 0; i < n; i++)
                ((float *)acc)[i] = p->init;
        return;
    }
#ifdef F2D_HAVE_REGS
    if (j->simd && !p->int_acc && t1 - t0 <= F2D_REG_TAPS) {
        const float *rp[F2D_REG_TAPS];
        float kf[F2D_REG_TAPS];
        f2d_reg_rows(j, rows, srows, y, x0, n, t0, t1, rp, kf);
        float *a = acc;
        int64_t i = f2d_acc_flt_regs(a, rp, kf, t1 - t0, n, p->init, stream);
        for (; i < n; i++) {
            float v = p->init;
            for (int32_t t = 0; t < t1 - t0; t++)
                v = fmaf(kf[t], rp[t][i], v);
            a[i] = v;
        }
        return;
    }
#endif
    for (int32_t t = t0; t < t1; t += F2D_GROUP) {
        int g = t1 - t < F2D_GROUP ? (int)(t1 - t) : F2D_GROUP, first = t == t0;
        const void *rp[F2D_GROUP];
        int32_t ki[F2D_GROUP];
        float kf[F2D_GROUP];
        for (int u = 0; u < g; u++) {
            const gip__f2d_tap *tp = &p->taps[t + u];
            int64_t off = x0 + (int64_t)(tp->dx + p->ax) * C;
            const char *row = rows[(y + tp->dy + p->ay) % p->kh];
            rp[u] = p->int_acc ? (const void *)((const int32_t *)row + off)
                               : (const void *)((const float *)row + off);
            ki[u] = tp->ki;
            kf[u] = tp->kf;
        }
        /* Constant group sizes let each loop be specialised. */
        if (p->int_acc) {
            const int32_t *const *r = (const int32_t *const *)rp;
            switch (g) {
            case 4:
                f2d_acc_int(acc, r, ki, 4, n, first);
                break;
            case 3:
                f2d_acc_int(acc, r, ki, 3, n, first);
                break;
            case 2:
                f2d_acc_int(acc, r, ki, 2, n, first);
                break;
            default:
                f2d_acc_int(acc, r, ki, 1, n, first);
            }
        } else {
            const float *const *r = (const float *const *)rp;
            switch (g) {
            case 4:
                f2d_acc_flt(acc, r, kf, 4, n, first, p->init);
                break;
            case 3:
                f2d_acc_flt(acc, r, kf, 3, n, first, p->init);
                break;
            case 2:
                f2d_acc_flt(acc, r, kf, 2, n, first, p->init);
                break;
            default:
                f2d_acc_flt(acc, r, kf, 1, n, first, p->init);
            }
        }
    }
}

/* ---- output ---------------------------------------------------------------------------------- */

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* The magnitude with AVX2: the scalar loop's operations (convert, gx * gx, fma, IEEE sqrt) on 8
 * elements at a time; the compiler leaves that loop's sqrtf scalar. Returns the elements done. */
__attribute__((target("avx2,fma"))) static int64_t
f2d_mag_avx2(int int_acc, const void *a0, const void *a1, float *vf, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 gx, gy;
        if (int_acc) {
            gx = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)((const int32_t *)a0 + i)));
            gy = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)((const int32_t *)a1 + i)));
        } else {
            gx = _mm256_loadu_ps((const float *)a0 + i);
            gy = _mm256_loadu_ps((const float *)a1 + i);
        }
        __m256 s = _mm256_fmadd_ps(gy, gy, _mm256_mul_ps(gx, gx));
        _mm256_storeu_ps(vf + i, _mm256_sqrt_ps(s));
    }
    return i;
}
#define F2D_HAVE_MAG_AVX2 1
#endif

/* Converts accumulators to the final float value v (see filter2d.h), in place into vf. */
F2D_INLINE void f2d_finish_float(const gip__f2d_plan *p, int simd, const void *a0, const void *a1,
                                 float *vf, int64_t n)
{
    if (p->post == GIP__F2D_MAG) {
        int64_t i0 = 0;
#ifdef F2D_HAVE_MAG_AVX2
        if (simd)
            i0 = f2d_mag_avx2(p->int_acc, a0, a1, vf, n);
#else
        (void)simd;
#endif
        for (int64_t i = i0; i < n; i++) {
            float gx = p->int_acc ? (float)((const int32_t *)a0)[i] : ((const float *)a0)[i];
            float gy = p->int_acc ? (float)((const int32_t *)a1)[i] : ((const float *)a1)[i];
            float s = gx * gx;
            s = fmaf(gy, gy, s);
            vf[i] = sqrtf(s);
        }
    } else if (p->int_acc) {
        for (int64_t i = 0; i < n; i++)
            vf[i] = (float)((const int32_t *)a0)[i];
    } else if (vf != a0) {
        memcpy(vf, a0, (size_t)n * sizeof *vf);
    }
    if (p->affine) {
        const float sc = p->scale, de = p->delta;
        for (int64_t i = 0; i < n; i++)
            vf[i] = fmaf(vf[i], sc, de);
    }
    if (p->post == GIP__F2D_ABS)
        for (int64_t i = 0; i < n; i++)
            vf[i] = fabsf(vf[i]);
}

F2D_INLINE void f2d_store(const f2d_job *j, int64_t y, int64_t x0, int64_t n, int32_t *ai,
                          float *af, const void *a1)
{
    const gip__f2d_plan *p = j->p;
    char *drow = (char *)j->dst->data + y * j->dst->stride;
    const gip_dtype dt = j->dst->dtype;
    if (p->int_acc && !p->affine && p->post != GIP__F2D_MAG) {
        /* Exact integer results: saturate the sums directly. */
        if (p->post == GIP__F2D_ABS)
            for (int64_t i = 0; i < n; i++)
                ai[i] = ai[i] < 0 ? -ai[i] : ai[i];
    } else {
        const void *a0 = p->int_acc ? (const void *)ai : (const void *)af;
        f2d_finish_float(p, j->simd, a0, a1, af, n);
        if (dt == GIP_F32) {
            memcpy((float *)drow + x0, af, (size_t)n * sizeof(float));
            return;
        }
        /* Round half to even within the clamped range (two simple loops vectorise; one fused
         * loop with the narrowing store does not). */
        const float lo = dt == GIP_S16 ? -32769.0f : -1.0f;
        const float hi = dt == GIP_U8 ? 256.0f : dt == GIP_U16 ? 65536.0f : 32768.0f;
        const float *restrict v = af;
        int32_t *restrict r = ai;
        for (int64_t i = 0; i < n; i++)
            r[i] = f2d_rne(f2d_clamp(v[i], lo, hi));
    }
    const int32_t *restrict s = ai;
    switch (dt) {
    case GIP_U8: {
        uint8_t *restrict d = (uint8_t *)drow + x0;
        for (int64_t i = 0; i < n; i++)
            d[i] = (uint8_t)f2d_clampi(s[i], 0, 255);
        return;
    }
    case GIP_U16: {
        uint16_t *restrict d = (uint16_t *)drow + x0;
        for (int64_t i = 0; i < n; i++)
            d[i] = (uint16_t)f2d_clampi(s[i], 0, 65535);
        return;
    }
    case GIP_S16: {
        int16_t *restrict d = (int16_t *)drow + x0;
        for (int64_t i = 0; i < n; i++)
            d[i] = (int16_t)f2d_clampi(s[i], -32768, 32767);
        return;
    }
    default: {
        float *restrict d = (float *)drow + x0;
        for (int64_t i = 0; i < n; i++)
            d[i] = (float)s[i];
        return;
    }
    }
}

/* The length of the chunk of an output row (n elements) that starts at x0. Chunks of F2D_CHUNK;
 * with srcdirect, a first chunk and a last one just wide enough to hold the columns whose taps
 * reach past the image, so that the ring rows hold little more than those (with 1024-element
 * chunks throughout, a 1920-wide f32 row had no chunk inside the image, and every row was copied
 * into the ring). */
F2D_INLINE int64_t f2d_chunk_len(const f2d_job *j, int64_t x0, int64_t n)
{
    int64_t len = n - x0 < F2D_CHUNK ? n - x0 : F2D_CHUNK;
    if (j->srcdirect) {
        if (x0 == 0 && len > j->chunk0)
            len = j->chunk0;
        else if (x0 < j->tail && x0 + len > j->tail)
            len = j->tail - x0;
    }
    return len;
}

/* ---- one band of rows --------------------------------------------------------------------------
 */

F2D_INLINE void f2d_band(const f2d_job *j, int64_t y0, int64_t y1, char *const *rows, int32_t *ai,
                         float *af, void *a1)
{
    const gip__f2d_plan *p = j->p;
    const int64_t n = j->src->width * j->src->channels;
    const int direct =
        !p->int_acc && !p->affine && p->post == GIP__F2D_PLAIN && j->dst->dtype == GIP_F32;
    const int direct_u8 = j->simd && !p->int_acc && !p->affine && p->post == GIP__F2D_PLAIN &&
                          j->dst->dtype == GIP_U8 && p->ntaps <= F2D_REG_TAPS;
    const char *srows[GIP__F2D_MAX_KSIZE]; /* each ring slot's source row (NULL: constant) */
    for (int64_t r = y0 - p->ay; r < y0 - p->ay + p->kh - 1; r++)
        f2d_fill_row(j, r, rows[(r + p->ay) % p->kh], &srows[(r + p->ay) % p->kh]);
    for (int64_t y = y0; y < y1; y++) {
        int64_t r = y + p->kh - 1 - p->ay;
        f2d_fill_row(j, r, rows[(r + p->ay) % p->kh], &srows[(r + p->ay) % p->kh]);
        for (int64_t x0 = 0, len; x0 < n; x0 += len) {
            len = f2d_chunk_len(j, x0, n);
#ifdef F2D_HAVE_REGS
            if (direct_u8) { /* whole groups of 32 finished in registers, the rest below */
                const int64_t m = len / 32 * 32;
                if (m)
                    f2d_direct_u8(j, rows, srows, y, x0, m);
                if (m == len)
                    continue;
                f2d_accumulate(j, rows, srows, y, x0 + m, len - m, 0, p->ntaps, af, 0);
                f2d_store(j, y, x0 + m, len - m, ai, af, a1);
                continue;
            }
#endif
            if (direct) { /* v = acc: the sums go straight into the f32 row */
                f2d_accumulate(j, rows, srows, y, x0, len, 0, p->ntaps,
                               (float *)((char *)j->dst->data + y * j->dst->stride) + x0,
                               j->stream);
                continue;
            }
            void *a0 = p->int_acc ? (void *)ai : (void *)af;
            f2d_accumulate(j, rows, srows, y, x0, len, 0, p->ntaps, a0, 0);
            if (p->post == GIP__F2D_MAG)
                f2d_accumulate(j, rows, srows, y, x0, len, p->ntaps, p->ntaps + p->ntaps2, a1, 0);
            f2d_store(j, y, x0, len, ai, af, a1);
        }
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx2,fma"))) static void f2d_band_avx2(const f2d_job *j, int64_t y0,
                                                              int64_t y1, char *const *rows,
                                                              int32_t *ai, float *af, void *a1)
{
    f2d_band(j, y0, y1, rows, ai, af, a1);
}
#define F2D_HAVE_AVX2 1
#endif

static void f2d_band_plain(const f2d_job *j, int64_t y0, int64_t y1, char *const *rows, int32_t *ai,
                           float *af, void *a1)
{
    f2d_band(j, y0, y1, rows, ai, af, a1);
}

static void f2d_rows(void *arg, int64_t begin, int64_t end)
{
    f2d_job *j = arg;
    const gip__f2d_plan *p = j->p;
    const int64_t rowel = j->pwpix * j->src->channels;
    /* One block: kh ring rows, then three chunk accumulators (int, float, second kernel). */
    size_t ring_bytes = (size_t)p->kh * (size_t)rowel * 4 + 64;
    char *mem = malloc(ring_bytes + 3 * F2D_CHUNK * 4 + 64 + (size_t)p->kh * sizeof(char *));
    if (!mem) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    char **rows = (char **)mem;
    char *base = mem + (size_t)p->kh * sizeof(char *);
    base += (64 - ((uintptr_t)base & 63)) & 63;
    for (int32_t i = 0; i < p->kh; i++)
        rows[i] = base + (size_t)i * (size_t)rowel * 4;
    int32_t *ai = (int32_t *)(base + ring_bytes);
    float *af = (float *)(ai + F2D_CHUNK);
    void *a1 = af + F2D_CHUNK;
#ifdef F2D_HAVE_AVX2
    if (j->simd)
        f2d_band_avx2(j, begin, end, rows, ai, af, a1);
    else
#endif
        f2d_band_plain(j, begin, end, rows, ai, af, a1);
#ifdef F2D_HAVE_REGS
    if (j->stream)
        _mm_sfence(); /* the streamed rows are visible before the band counts as done */
#endif
    free(mem);
}

gip_status gip__f2d_run_cpu(gip_context *ctx, const gip__f2d_plan *plan, const gip_image *src,
                            gip_image *dst)
{
    f2d_job job = {0};
    job.p = plan;
    job.src = src;
    job.dst = dst;
    job.pwpix = src->width + plan->kw - 1;
    job.simd = gip__simd_avx2_fma();
    job.stream = job.simd && gip__image_span(dst) >= GIP__STREAM_BYTES;
#ifdef F2D_HAVE_REGS
    job.srcdirect = job.simd && !plan->int_acc && src->dtype == GIP_F32 &&
                    plan->ntaps <= F2D_REG_TAPS && plan->ntaps2 <= F2D_REG_TAPS;
#endif
    if (job.srcdirect) {
        const int64_t C = src->channels, n = src->width * C;
        const int64_t l = (int64_t)plan->ax * C, r = (int64_t)(plan->kw - 1 - plan->ax) * C;
        job.chunk0 = (l + 31) / 32 * 32;
        job.chunk0 = job.chunk0 < 32 ? 32 : job.chunk0 > F2D_CHUNK ? F2D_CHUNK : job.chunk0;
        job.tail = n - (r + 31) / 32 * 32;
    }
    {
        /* Chunks that read only image columns form a middle run; the ring rows must hold what
         * the chunks before it ([0, fill_a)) and after it ([fill_b, end)) read. */
        const int64_t C = src->channels, n = src->width * C, end = job.pwpix * C;
        const int64_t lo = (int64_t)plan->ax * C, hi = n - (int64_t)(plan->kw - 1 - plan->ax) * C;
        int seen = 0;
        job.fill_a = 0, job.fill_b = end;
        for (int64_t x0 = 0, len; x0 < n; x0 += len) {
            len = f2d_chunk_len(&job, x0, n);
            if (x0 >= lo && x0 + len <= hi)
                seen = 1;
            else if (!seen)
                job.fill_a = x0 + len + (int64_t)(plan->kw - 1) * C;
            else if (job.fill_b == end)
                job.fill_b = x0;
        }
    }
    int32_t *xmap = gip__border_map(job.pwpix, plan->ax, src->width, plan->border);
    if (!xmap)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "2-D filter: cannot allocate %lld bytes",
                          (long long)job.pwpix * 4);
    job.xmap = xmap;
    /* A band re-reads kh - 1 halo rows; keep bands at least a few kernel heights tall. */
    int64_t grain = 4 * (int64_t)plan->kh;
    gip__parallel_for(ctx, src->height, grain, f2d_rows, &job);
    free(xmap);
    if (job.failed)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "2-D filter: cannot allocate the row buffers of a %dx%d kernel on a "
                          "%lld-pixel-wide image",
                          (int)plan->kw, (int)plan->kh, (long long)src->width);
    return GIP_OK;
}
