/* SPDX-License-Identifier: MIT */
/* The vector body of the fused 3x3 route, written once for both widths: fused3_cpu.c includes it
 * twice, after defining the vector type and operations of AVX-512BW (32 16-bit lanes) and then of
 * AVX2 (16 lanes). Every function's name ends in F3_FN's suffix. The macros it expects:
 *
 *   F3_T            the functions' target attribute
 *   F3_FN(name)     name with the width's suffix
 *   F3_N            16-bit lanes of a vector (its bytes: 2 F3_N)
 *   F3V, F3F        the integer and float vector types; F3H half an F3V
 *   F3_LDW(p)       F3_N u8 at p widened to 16 bits
 *   F3_COMB(a, b, c, kind)  gip__comb32 or gip__comb16
 *   F3_ABS, F3_MULHI_U, F3_ADDS_U, F3_SRL, F3_SET16   16-bit lane operations
 *   F3_LO(x), F3_HI(x)      the halves of x
 *   F3_CVTF(h)      the 16-bit lanes of h as floats
 *   F3_SQRT, F3_FMA, F3_MULF, F3_MINF, F3_MAXF, F3_SET1F     float operations
 *   F3_CVTI(f), F3_MAXI32, F3_ZERO  float to int32 by the rounding mode, its max, zero
 *   F3_MAG_U8(q0, q1)       two vectors of int32 in [0, 256] as F3_N u8 (saturated)
 *   F3_PUT(d, e, s, dt, stream)       gip__put32's job at the width
 *   F3_STORE_F2(o, a, b, stream)      two float vectors at o
 *   F3_STORE_U8H(o, v, stream)        F3_N bytes at o
 *   F3_PACK2(a, b)          two vectors of u8 values in 16-bit lanes as 2 F3_N bytes in order
 *   F3_STOREV(o, v, stream) one vector at o
 *
 * It undefines them at its end. */

/* The horizontal factor (kind hk) of source row r at elements [e, e + F3_N). */
F3_T static inline F3V F3_FN(hrow)(const uint8_t *r, int64_t e, int32_t C, int hk)
{
    F3V a = F3_LDW(r + e - C), c = F3_LDW(r + e + C);
    return F3_COMB(a, hk == GIP__F3_DERIV ? a : F3_LDW(r + e), c, hk);
}

/* QUANT's scaling of sums s >= 0 (min(hi + qr, 65535) >> qt, hi = (s qm) >> 16). */
F3_T static inline F3V F3_FN(quant)(const f3_job *j, F3V s)
{
    const F3V hi = F3_MULHI_U(s, F3_SET16((short)j->f->qm));
    return F3_SRL(F3_ADDS_U(hi, F3_SET16((short)j->f->qr)), _mm_cvtsi32_si128(j->f->qt));
}

/* gip_sobel_magnitude's value of half a vector's elements from their gx and gy with the 2-D
 * engine's operations (f2d_finish_float): gx * gx, then an fma with gy * gy, the IEEE square
 * root, then an fma with scale and delta when they apply. The sums are integers below 2^11, so
 * the squares and their sum are exact in float. */
F3_T static inline F3F F3_FN(mag)(const f3_job *j, F3H gx, F3H gy)
{
    const F3F fx = F3_CVTF(gx), fy = F3_CVTF(gy);
    F3F v = F3_SQRT(F3_FMA(fy, fy, F3_MULF(fx, fx)));
    if (j->affine)
        v = F3_FMA(v, F3_SET1F(j->f->scale), F3_SET1F(j->f->delta));
    return v;
}

/* Stores the magnitude of F3_N elements at element e of row d: f32, or u8 as the 2-D engine
 * rounds (f2d_store: clamped to [-1, 256], half to even, saturated to [0, 255]). */
F3_T static inline void F3_FN(putmag)(const f3_job *j, void *d, int64_t e, F3V gx, F3V gy,
                                      gip_dtype dt, int stream)
{
    const F3F v0 = F3_FN(mag)(j, F3_LO(gx), F3_LO(gy)), v1 = F3_FN(mag)(j, F3_HI(gx), F3_HI(gy));
    if (dt == GIP_F32) {
        F3_STORE_F2((float *)d + e, v0, v1, stream);
        return;
    }
    const F3F lo = F3_SET1F(-1.0f), hi = F3_SET1F(256.0f);
    /* cvtps rounds half to even (the default MXCSR mode), as f2d_rne does in this range. */
    const F3V q0 = F3_MAXI32(F3_CVTI(F3_MINF(F3_MAXF(v0, lo), hi)), F3_ZERO);
    const F3V q1 = F3_MAXI32(F3_CVTI(F3_MINF(F3_MAXF(v1, lo), hi)), F3_ZERO);
    F3_STORE_U8H((uint8_t *)d + e, F3_MAG_U8(q0, q1), stream);
}

/* Source row r at elements [e, e + F3_N): [-1 0 1] into *hd and [1 2 1] into *hs. */
F3_T static inline void F3_FN(hboth)(const uint8_t *r, int64_t e, int32_t C, F3V *hd, F3V *hs)
{
    const F3V a = F3_LDW(r + e - C), b = F3_LDW(r + e), c = F3_LDW(r + e + C);
    *hd = F3_COMB(a, b, c, GIP__F3_DERIV);
    *hs = F3_COMB(a, b, c, GIP__F3_SMOOTH);
}

/* Elements [e, e + F3_N) of output row d0 from source rows r0..r2 and of d1 from r1..r3. */
F3_T static inline __attribute__((always_inline)) void
F3_FN(fusedv)(const f3_job *j, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
              const uint8_t *r3, void *d0, void *d1, int64_t e, int32_t C, int hk, int vk,
              gip__f3_post post, gip_dtype dt, int stream)
{
    if (post == GIP__F3_MAG) {
        F3V d[4], s[4];
        F3_FN(hboth)(r0, e, C, &d[0], &s[0]);
        F3_FN(hboth)(r1, e, C, &d[1], &s[1]);
        F3_FN(hboth)(r2, e, C, &d[2], &s[2]);
        F3_FN(putmag)
        (j, d0, e, F3_COMB(d[0], d[1], d[2], GIP__F3_SMOOTH),
         F3_COMB(s[0], s[1], s[2], GIP__F3_DERIV), dt, stream);
        F3_FN(hboth)(r3, e, C, &d[3], &s[3]);
        F3_FN(putmag)
        (j, d1, e, F3_COMB(d[1], d[2], d[3], GIP__F3_SMOOTH),
         F3_COMB(s[1], s[2], s[3], GIP__F3_DERIV), dt, stream);
        return;
    }
    F3V h0 = F3_FN(hrow)(r0, e, C, hk), h1 = F3_FN(hrow)(r1, e, C, hk),
        h2 = F3_FN(hrow)(r2, e, C, hk);
    F3V s0 = F3_COMB(h0, h1, h2, vk), s1 = F3_COMB(h1, h2, F3_FN(hrow)(r3, e, C, hk), vk);
    if (post == GIP__F3_QUANT) /* then in [0, 255]: F3_PUT's |s| and saturation keep it */
        s0 = F3_FN(quant)(j, s0), s1 = F3_FN(quant)(j, s1);
    F3_PUT(d0, e, s0, dt, stream);
    F3_PUT(d1, e, s1, dt, stream);
}

/* fusedv for u8 (SUM or QUANT) on 2 F3_N elements, each row's two vectors packed into one store
 * (one vector's bytes at a time made Sobel to u8 4-9% slower with AVX-512, one thread). */
F3_T static inline __attribute__((always_inline)) void
F3_FN(fused2u8)(const f3_job *j, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                const uint8_t *r3, void *d0, void *d1, int64_t e, int32_t C, int hk, int vk,
                gip__f3_post post, int stream)
{
    F3V s[2][2];
    for (int h = 0; h < 2; h++) {
        const int64_t x = e + F3_N * h;
        const F3V a0 = F3_FN(hrow)(r0, x, C, hk), a1 = F3_FN(hrow)(r1, x, C, hk),
                  a2 = F3_FN(hrow)(r2, x, C, hk), a3 = F3_FN(hrow)(r3, x, C, hk);
        s[0][h] = F3_COMB(a0, a1, a2, vk);
        s[1][h] = F3_COMB(a1, a2, a3, vk);
        for (int row = 0; row < 2; row++)
            s[row][h] = post == GIP__F3_QUANT ? F3_FN(quant)(j, s[row][h]) : F3_ABS(s[row][h]);
    }
    F3_STOREV((uint8_t *)d0 + e, F3_PACK2(s[0][0], s[0][1]), stream);
    F3_STOREV((uint8_t *)d1 + e, F3_PACK2(s[1][0], s[1][1]), stream);
}

/* Elements [0, n) of the output rows d[0] (from source rows r[0..2]) and d[1] (from r[1..3]).
 * Vectors cover the elements whose left and right neighbours are in the row ([C, n - C)), the
 * first and the last ones overlapping their neighbours so that the others store whole aligned units
 * of d[0] (what a step stores in a row, up to 64 bytes: a store across two cache lines made Sobel
 * to f32 of u8c1 5% slower than the separable route at 1920x1080 with AVX-512), streamed where d[1]
 * is aligned too. The row pointers are locals: stores through d may alias r[] and d[] as far as the
 * compiler knows. */
F3_T static inline __attribute__((always_inline)) void
F3_FN(fused_rows)(const f3_job *j, const uint8_t *const *r, void *const *d, int64_t n, int32_t C,
                  int hk, int vk, gip__f3_post post, gip_dtype dt)
{
    const int64_t lo = C, hi = n - C;
    if (hi - lo < F3_N) {
        for (int64_t e = 0; e < n; e++)
            fused1(j, r, d, e, C, dt);
        return;
    }
    const uint8_t *const r0 = r[0], *const r1 = r[1], *const r2 = r[2], *const r3 = r[3];
    void *const d0 = d[0], *const d1 = d[1];
    /* u8 2 F3_N at a time (fused2u8), the magnitude's u8 F3_N at a time */
    const int wide = dt == GIP_U8 && post != GIP__F3_MAG;
    const uintptr_t es = dt == GIP_U8 ? 1 : dt == GIP_S16 ? 2 : 4;
    /* The unit: what a step stores in a row, up to a cache line. AVX2's f32 (64 bytes a step in
     * two 32-byte stores) aligned to 32 rather than 64 bytes made streamed Sobel to f32 a fifth
     * slower on one thread. */
    const uintptr_t step = (uintptr_t)F3_N * (wide ? 2 : es), al = step < 64 ? step : 64;
    const uintptr_t a0 = (uintptr_t)d0 + (uintptr_t)lo * es;
    int64_t e = lo, w = lo; /* w: the end of what the plain stores below wrote */
    /* Up to the first aligned element: al / es - 1 elements away at most, less than two vectors
     * (al is at most a step's bytes). */
    if (a0 % al && a0 % es == 0) {
        const int64_t t = lo + (int64_t)((al - a0 % al) / es), stop = t < hi ? t : hi;
        F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, lo, C, hk, vk, post, dt, 0);
        if (stop - lo > F3_N)
            F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, stop - F3_N, C, hk, vk, post, dt, 0);
        e = stop;
        w = lo + F3_N > stop ? lo + F3_N : stop;
    }
    /* Streamed: whole units from the first one at or past w, to at least a vector before hi. A
     * plain store into a line that streaming stores write, or the other way round, waits on
     * memory; at both ends of every row that made streaming slower than plain stores
     * (docs/design/cpu.md). */
    if (j->stream && d1 != d0 && (a0 + (uintptr_t)(e - lo) * es) % al == 0 &&
        ((uintptr_t)d1 - (uintptr_t)d0) % al == 0) {
        const int64_t ue = (int64_t)(al / es), s = e + (w - e + ue - 1) / ue * ue;
        if (s + F3_N <= hi) {
            for (; e + F3_N <= s; e += F3_N)
                F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, dt, 0);
            if (e < s)
                F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, s - F3_N, C, hk, vk, post, dt, 0);
            e = s;
            if (wide)
                for (; e + 3 * F3_N <= hi; e += 2 * F3_N)
                    F3_FN(fused2u8)(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, 1);
            else
                for (; e + 2 * F3_N <= hi; e += F3_N)
                    F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, dt, 1);
        }
    }
    if (wide)
        for (; e + 2 * F3_N <= hi; e += 2 * F3_N)
            F3_FN(fused2u8)(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, 0);
    for (; e + F3_N <= hi; e += F3_N)
        F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, dt, 0);
    if (e < hi)
        F3_FN(fusedv)(j, r0, r1, r2, r3, d0, d1, hi - F3_N, C, hk, vk, post, dt, 0);
    for (e = 0; e < lo; e++)
        fused1(j, r, d, e, C, dt);
    for (e = hi; e < n; e++)
        fused1(j, r, d, e, C, dt);
}

/* fused_rows for SUM with the kinds and the dtype as constants. */
F3_T static inline __attribute__((always_inline)) void F3_FN(sum_rows)(const f3_job *j,
                                                                       const uint8_t *const *r,
                                                                       void *const *d, int64_t n,
                                                                       int32_t C, int hk, int vk)
{
    switch (j->dst->dtype) {
    case GIP_S16:
        F3_FN(fused_rows)(j, r, d, n, C, hk, vk, GIP__F3_SUM, GIP_S16);
        break;
    case GIP_F32:
        F3_FN(fused_rows)(j, r, d, n, C, hk, vk, GIP__F3_SUM, GIP_F32);
        break;
    default:
        F3_FN(fused_rows)(j, r, d, n, C, hk, vk, GIP__F3_SUM, GIP_U8);
        break;
    }
}

/* One pair of output rows, every case specialised (f3_pair_fn). */
F3_T static void F3_FN(fused_pair)(const f3_job *j, const uint8_t *const *r, void *const *d,
                                   int64_t n, int32_t C)
{
    const gip__fused3 *f = j->f;
    if (f->post == GIP__F3_MAG) {
        if (j->dst->dtype == GIP_F32)
            F3_FN(fused_rows)(j, r, d, n, C, 0, 0, GIP__F3_MAG, GIP_F32);
        else
            F3_FN(fused_rows)(j, r, d, n, C, 0, 0, GIP__F3_MAG, GIP_U8);
        return;
    }
    if (f->post == GIP__F3_QUANT) { /* the box ([1 1 1] both ways) or the Gaussian ([1 2 1]) */
        if (f->hk == GIP__F3_ONES)
            F3_FN(fused_rows)(j, r, d, n, C, GIP__F3_ONES, GIP__F3_ONES, GIP__F3_QUANT, GIP_U8);
        else
            F3_FN(fused_rows)(j, r, d, n, C, GIP__F3_SMOOTH, GIP__F3_SMOOTH, GIP__F3_QUANT, GIP_U8);
        return;
    }
    switch (f->hk * 4 + f->vk) {
    case GIP__F3_DERIV * 4 + GIP__F3_DERIV:
        F3_FN(sum_rows)(j, r, d, n, C, GIP__F3_DERIV, GIP__F3_DERIV);
        break;
    case GIP__F3_DERIV * 4 + GIP__F3_SMOOTH:
        F3_FN(sum_rows)(j, r, d, n, C, GIP__F3_DERIV, GIP__F3_SMOOTH);
        break;
    case GIP__F3_SMOOTH * 4 + GIP__F3_DERIV:
        F3_FN(sum_rows)(j, r, d, n, C, GIP__F3_SMOOTH, GIP__F3_DERIV);
        break;
    case GIP__F3_ONES * 4 + GIP__F3_ONES: /* the unnormalised box */
        F3_FN(sum_rows)(j, r, d, n, C, GIP__F3_ONES, GIP__F3_ONES);
        break;
    default:
        F3_FN(sum_rows)(j, r, d, n, C, f->hk, f->vk); /* the rest, kinds not constant */
        break;
    }
}

#undef F3_T
#undef F3_FN
#undef F3_N
#undef F3V
#undef F3F
#undef F3H
#undef F3_LDW
#undef F3_COMB
#undef F3_ABS
#undef F3_MULHI_U
#undef F3_ADDS_U
#undef F3_SRL
#undef F3_SET16
#undef F3_LO
#undef F3_HI
#undef F3_CVTF
#undef F3_SQRT
#undef F3_FMA
#undef F3_MULF
#undef F3_MINF
#undef F3_MAXF
#undef F3_SET1F
#undef F3_CVTI
#undef F3_MAXI32
#undef F3_ZERO
#undef F3_MAG_U8
#undef F3_PUT
#undef F3_STORE_F2
#undef F3_STORE_U8H
#undef F3_PACK2
#undef F3_STOREV
