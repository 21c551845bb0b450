/* SPDX-License-Identifier: MIT */
/* The checks and the CPU backend of pyr_down and pyr_up. The CPU runs the 5-tap filter as two
 * passes over rows: each source row filtered horizontally once into a buffer (kept in a small
 * cache of rows while the output rows that need it are made), then the vertical sum of those
 * buffers an output row, both as plain element loops that the compiler vectorises. Every value
 * is what pyr.h's per-element functions give: integer sums are exact (the order does not
 * matter), the f32 sums are taken in the same order with the same single-precision steps,
 * unfused; the edge columns use pyr.h's functions themselves. */
#include <stdlib.h>

#include "ops/geometry/pyr.h"
#include "ops/op_check.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PYR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PYR_CLONES
#endif
#define PYR_INLINE static inline __attribute__((always_inline))

/* ---- horizontal passes: one source row into n = dst width x cn values ---------------------- */

/* pyrDown, integers: h[x, c] = 6 s[2x] + 4 (s[2x-1] + s[2x+1]) + s[2x-2] + s[2x+2]. */
#define PYD_HI(T, CN, HT)                                                                          \
    PYR_INLINE void pyd_hi_##T##_##CN(const T *restrict s, HT *restrict h, int64_t x0, int64_t x1) \
    {                                                                                              \
        for (int64_t x = x0; x < x1; x++)                                                          \
            for (int c = 0; c < CN; c++) {                                                         \
                const T *e = s + 2 * x * CN + c;                                                   \
                h[x * CN + c] = (HT)((int32_t)e[0] * 6 + ((int32_t)e[-CN] + (int32_t)e[CN]) * 4 +  \
                                     (int32_t)e[-2 * CN] + (int32_t)e[2 * CN]);                    \
            }                                                                                      \
    }
/* pyrDown, f32: ((6 v2 + 4 (v1 + v3)) + v0) + v4, as gip__pyd_hf(). */
#define PYD_HF(CN)                                                                                 \
    PYR_INLINE void pyd_hf_##CN(const float *restrict s, float *restrict h, int64_t x0,            \
                                int64_t x1)                                                        \
    {                                                                                              \
        for (int64_t x = x0; x < x1; x++)                                                          \
            for (int c = 0; c < CN; c++) {                                                         \
                const float *e = s + 2 * x * CN + c;                                               \
                float v = e[0] * 6.f;                                                              \
                v = v + (e[-CN] + e[CN]) * 4.f;                                                    \
                v = v + e[-2 * CN];                                                                \
                h[x * CN + c] = v + e[2 * CN];                                                     \
            }                                                                                      \
    }
PYD_HI(uint8_t, 1, uint16_t)
PYD_HI(uint8_t, 3, uint16_t)
PYD_HI(uint8_t, 4, uint16_t)
PYD_HI(uint16_t, 1, int32_t)
PYD_HI(uint16_t, 3, int32_t)
PYD_HI(uint16_t, 4, int32_t)
PYD_HF(1)
PYD_HF(3)
PYD_HF(4)

/* pyrUp: h[2i] = (s[i-1] + 6 s[i]) + s[i+1] for 0 < i < w-1, h[2i+1] = 4 (s[i] + s[i+1]) for
 * i < w-1, in A (int32_t for integers, exact; float for f32, as gip__pyu_h()). */
#define PYU_H(NAME, T, A, CN)                                                                      \
    PYR_INLINE void pyu_h_##NAME##_##CN(const T *restrict s, A *restrict h, int64_t w)             \
    {                                                                                              \
        for (int64_t i = 1; i < w - 1; i++) /* X = 2i and 2i + 1 together */                       \
            for (int c = 0; c < CN; c++) {                                                         \
                const T *e = s + i * CN + c;                                                       \
                h[2 * i * CN + c] = ((A)e[-CN] + (A)e[0] * 6) + (A)e[CN];                          \
                h[(2 * i + 1) * CN + c] = ((A)e[0] + (A)e[CN]) * 4;                                \
            }                                                                                      \
        for (int c = 0; c < CN; c++) /* X = 1 */                                                   \
            h[CN + c] = ((A)s[c] + (A)s[CN + c]) * 4;                                              \
    }
PYU_H(u8, uint8_t, uint16_t, 1)
PYU_H(u8, uint8_t, uint16_t, 3)
PYU_H(u8, uint8_t, uint16_t, 4)
PYU_H(u16, uint16_t, int32_t, 1)
PYU_H(u16, uint16_t, int32_t, 3)
PYU_H(u16, uint16_t, int32_t, 4)
PYU_H(f32, float, float, 1)
PYU_H(f32, float, float, 3)
PYU_H(f32, float, float, 4)

/* One source row's horizontal values for every output column: uint16_t for u8 (at most 16 x 255),
 * int32_t for u16, float for f32. */
PYR_CLONES static void pyr_hrow(const gip__pyr *p, const uint8_t *row, void *out, int64_t dw)
{
    const int32_t cn = p->cn;
    const int flt = p->dtype == GIP_F32;
    int32_t *hi = out;
    uint16_t *hs = out;
    float *hf = out;
    const int u8 = p->dtype == GIP_U8;
    int64_t e0 = 0, e1 = 0; /* the output columns [e0, e1) done by the loops below */
    if (!p->up) {
        /* 2x - 2 >= 0 and 2x + 2 <= sw - 1 */
        e0 = 1;
        e1 = (p->sw - 1) / 2;
        if (e1 > e0 && cn >= 1 && cn <= 4 && cn != 2) {
#define PYD_CASE(T, CN)                                                                            \
    case CN:                                                                                       \
        pyd_hi_##T##_##CN((const T *)row, out, e0, e1);                                            \
        break;
            if (p->dtype == GIP_U8) {
                switch (cn) {
                    PYD_CASE(uint8_t, 1) PYD_CASE(uint8_t, 3) PYD_CASE(uint8_t, 4)
                }
            } else if (p->dtype == GIP_U16) {
                switch (cn) {
                    PYD_CASE(uint16_t, 1) PYD_CASE(uint16_t, 3) PYD_CASE(uint16_t, 4)
                }
            } else {
                switch (cn) {
                case 1:
                    pyd_hf_1((const float *)row, hf, e0, e1);
                    break;
                case 3:
                    pyd_hf_3((const float *)row, hf, e0, e1);
                    break;
                default:
                    pyd_hf_4((const float *)row, hf, e0, e1);
                }
            }
#undef PYD_CASE
        } else {
            e0 = e1 = 0;
        }
        for (int64_t x = 0; x < dw; x++) {
            if (x == e0 && e1 > e0)
                x = e1;
            if (x >= dw)
                break;
            for (int32_t c = 0; c < cn; c++) {
                if (flt)
                    hf[x * cn + c] = gip__pyd_hf(p, row, x, c);
                else if (u8)
                    hs[x * cn + c] = (uint16_t)gip__pyd_hi(p, row, x, c);
                else
                    hi[x * cn + c] = gip__pyd_hi(p, row, x, c);
            }
        }
        return;
    }
    /* pyrUp: the loops make X in [1, 2w - 2) (w >= 2); the edges X = 0, 2w - 2, 2w - 1 */
    const int64_t w = p->sw;
    if (w >= 2 && cn >= 1 && cn <= 4 && cn != 2) {
#define PYU_CASE(NAME, T, CN)                                                                      \
    case CN:                                                                                       \
        pyu_h_##NAME##_##CN((const T *)row, out, w);                                               \
        break;
        if (p->dtype == GIP_U8) {
            switch (cn) {
                PYU_CASE(u8, uint8_t, 1) PYU_CASE(u8, uint8_t, 3) PYU_CASE(u8, uint8_t, 4)
            }
        } else if (p->dtype == GIP_U16) {
            switch (cn) {
                PYU_CASE(u16, uint16_t, 1)
                PYU_CASE(u16, uint16_t, 3)
                PYU_CASE(u16, uint16_t, 4)
            }
        } else {
            switch (cn) {
                PYU_CASE(f32, float, 1) PYU_CASE(f32, float, 3) PYU_CASE(f32, float, 4)
            }
        }
#undef PYU_CASE
        e0 = 1;
        e1 = 2 * w - 2;
    }
    for (int64_t x = 0; x < dw; x++) {
        if (x == e0 && e1 > e0)
            x = e1;
        for (int32_t c = 0; c < cn; c++) {
            if (flt)
                hf[x * cn + c] = gip__pyu_h(p, row, x, c, 1);
            else if (u8)
                hs[x * cn + c] = (uint16_t)(int32_t)gip__pyu_h(p, row, x, c, 0);
            else
                hi[x * cn + c] = (int32_t)gip__pyu_h(p, row, x, c, 0);
        }
    }
}

/* ---- vertical passes: an output row from the horizontal rows ------------------------------- */

PYR_CLONES static void pyd_v_int(const int32_t *const *h, uint8_t *d, gip_dtype dt, int64_t n)
{
    const int32_t *restrict h0 = h[0], *restrict h1 = h[1], *restrict h2 = h[2],
                            *restrict h3 = h[3], *restrict h4 = h[4];
    if (dt == GIP_U8) {
        uint8_t *restrict o = d;
        for (int64_t i = 0; i < n; i++)
            o[i] = gip__sat_u8_i32((h2[i] * 6 + (h1[i] + h3[i]) * 4 + h0[i] + h4[i] + 128) >> 8);
    } else {
        uint16_t *restrict o = (uint16_t *)d;
        for (int64_t i = 0; i < n; i++)
            o[i] = gip__sat_u16_i32((h2[i] * 6 + (h1[i] + h3[i]) * 4 + h0[i] + h4[i] + 128) >> 8);
    }
}

/* u8 from 16-bit sums: at most 16 x 16 x 255 + 128 = 65408, so the 16-bit result needs no
 * saturation ((v + 128) >> 8 <= 255) and the loop runs in 16-bit lanes. */
PYR_CLONES static void pyd_v_u8(const uint16_t *const *h, uint8_t *restrict o, int64_t n)
{
    const uint16_t *restrict h0 = h[0], *restrict h1 = h[1], *restrict h2 = h[2],
                             *restrict h3 = h[3], *restrict h4 = h[4];
    for (int64_t i = 0; i < n; i++)
        o[i] = (uint8_t)((uint16_t)(h2[i] * 6 + (h1[i] + h3[i]) * 4 + h0[i] + h4[i] + 128) >> 8);
}

PYR_CLONES static void pyd_v_f32(const float *const *h, float *restrict o, int64_t n)
{
    const float *restrict h0 = h[0], *restrict h1 = h[1], *restrict h2 = h[2], *restrict h3 = h[3],
                          *restrict h4 = h[4];
    for (int64_t i = 0; i < n; i++) {
        float s = h2[i] * 6.f;
        s = s + (h1[i] + h3[i]) * 4.f;
        s = s + h0[i];
        s = s + h4[i];
        o[i] = s * (1.f / 256);
    }
}

/* pyrUp: odd rows 4 (h1 + h2), even rows (h0 + 6 h1) + h2. */
PYR_CLONES static void pyu_v_int(const int32_t *const *h, int odd, uint8_t *d, gip_dtype dt,
                                 int64_t n)
{
    const int32_t *restrict h0 = h[0], *restrict h1 = h[1], *restrict h2 = h[2];
    if (dt == GIP_U8) {
        uint8_t *restrict o = d;
        if (odd)
            for (int64_t i = 0; i < n; i++)
                o[i] = gip__sat_u8_i32(((h1[i] + h2[i]) * 4 + 32) >> 6);
        else
            for (int64_t i = 0; i < n; i++)
                o[i] = gip__sat_u8_i32((h0[i] + h1[i] * 6 + h2[i] + 32) >> 6);
    } else {
        uint16_t *restrict o = (uint16_t *)d;
        if (odd)
            for (int64_t i = 0; i < n; i++)
                o[i] = gip__sat_u16_i32(((h1[i] + h2[i]) * 4 + 32) >> 6);
        else
            for (int64_t i = 0; i < n; i++)
                o[i] = gip__sat_u16_i32((h0[i] + h1[i] * 6 + h2[i] + 32) >> 6);
    }
}

/* u8 from 16-bit sums: at most 8 x 8 x 255 + 32 = 16352, (v + 32) >> 6 <= 255. */
PYR_CLONES static void pyu_v_u8(const uint16_t *const *h, int odd, uint8_t *restrict o, int64_t n)
{
    const uint16_t *restrict h0 = h[0], *restrict h1 = h[1], *restrict h2 = h[2];
    if (odd)
        for (int64_t i = 0; i < n; i++)
            o[i] = (uint8_t)((uint16_t)((h1[i] + h2[i]) * 4 + 32) >> 6);
    else
        for (int64_t i = 0; i < n; i++)
            o[i] = (uint8_t)((uint16_t)(h0[i] + h1[i] * 6 + h2[i] + 32) >> 6);
}

PYR_CLONES static void pyu_v_f32(const float *const *h, int odd, float *restrict o, int64_t n)
{
    const float *restrict h0 = h[0], *restrict h1 = h[1], *restrict h2 = h[2];
    if (odd)
        for (int64_t i = 0; i < n; i++)
            o[i] = ((h1[i] + h2[i]) * 4.f) * (1.f / 64);
    else
        for (int64_t i = 0; i < n; i++)
            o[i] = ((h0[i] + h1[i] * 6.f) + h2[i]) * (1.f / 64);
}

/* ---- rows of the output -------------------------------------------------------------------- */

typedef struct pyr_job {
    const gip__pyr *p;
    const gip_image *src;
    gip_image *dst;
} pyr_job;

/* The slow path (out of memory for the row buffers): each element by pyr.h. */
static void pyr_rows_elementwise(const pyr_job *j, int64_t y0, int64_t y1)
{
    const gip__pyr *p = j->p;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < j->dst->width; x++)
            for (int32_t c = 0; c < p->cn; c++) {
                if (p->up)
                    gip__pyr_up(p, j->src->data, j->src->stride, d, y, x, c);
                else
                    gip__pyr_down(p, j->src->data, j->src->stride, d, y, x, c);
            }
    }
}

#define PYR_SLOTS 8 /* cached horizontal rows (an output row needs 5 at most) */

static void pyr_rows(void *arg, int64_t y0, int64_t y1)
{
    const pyr_job *j = arg;
    const gip__pyr *p = j->p;
    const int64_t dw = j->dst->width, n = dw * p->cn;
    const size_t esz = p->dtype == GIP_U8 ? 2 : 4; /* a horizontal value's bytes */
    void *buf = malloc((size_t)n * esz * PYR_SLOTS);
    if (!buf) {
        pyr_rows_elementwise(j, y0, y1);
        return;
    }
    int64_t tag[PYR_SLOTS];
    for (int k = 0; k < PYR_SLOTS; k++)
        tag[k] = -1;
    for (int64_t y = y0; y < y1; y++) {
        int64_t rows[5];
        int nr;
        if (p->up) {
            const int64_t yy = y >> 1, h2 = 2 * p->sh;
            rows[0] = gip__border_index(2 * yy - 2, h2, GIP_BORDER_REFLECT_101) / 2;
            rows[1] = yy;
            rows[2] = gip__border_index(2 * yy + 2, h2, GIP_BORDER_REFLECT_101) / 2;
            nr = 3;
        } else {
            for (int k = 0; k < 5; k++)
                rows[k] = gip__border_index(2 * y - 2 + k, p->sh, (gip_border)p->border);
            nr = 5;
        }
        const void *h[5];
        for (int k = 0; k < nr; k++) {
            int slot = -1;
            for (int s = 0; s < PYR_SLOTS && slot < 0; s++)
                if (tag[s] == rows[k])
                    slot = s;
            if (slot < 0) { /* a slot no row of this output row holds; the oldest first */
                int64_t best = INT64_MAX;
                for (int s = 0; s < PYR_SLOTS; s++) {
                    int used = 0;
                    for (int q = 0; q < nr; q++)
                        used |= tag[s] == rows[q];
                    if (!used && tag[s] < best)
                        best = tag[s], slot = s;
                }
                tag[slot] = rows[k];
                pyr_hrow(p, (const uint8_t *)j->src->data + rows[k] * j->src->stride,
                         (uint8_t *)buf + (size_t)slot * (size_t)n * esz, dw);
            }
            h[k] = (uint8_t *)buf + (size_t)slot * (size_t)n * esz;
        }
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (p->dtype == GIP_F32) {
            if (p->up)
                pyu_v_f32((const float *const *)h, (int)(y & 1), (float *)d, n);
            else
                pyd_v_f32((const float *const *)h, (float *)d, n);
        } else if (p->dtype == GIP_U8) {
            if (p->up)
                pyu_v_u8((const uint16_t *const *)h, (int)(y & 1), d, n);
            else
                pyd_v_u8((const uint16_t *const *)h, d, n);
        } else {
            if (p->up)
                pyu_v_int((const int32_t *const *)h, (int)(y & 1), d, p->dtype, n);
            else
                pyd_v_int((const int32_t *const *)h, d, p->dtype, n);
        }
    }
    free(buf);
}

gip_status gip__pyr_run(gip_context *ctx, const gip_image *src, gip_image *dst, gip__pyr *p,
                        const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair_typed(ctx, src, dst, GIP__DT_IMAGE, op, &on_device);
    if (st)
        return st;
    const int64_t w = p->up ? 2 * src->width : (src->width + 1) / 2;
    const int64_t h = p->up ? 2 * src->height : (src->height + 1) / 2;
    if (dst->width != w || dst->height != h)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %lldx%lld; a %lldx%lld source makes %lldx%lld", op,
                          (long long)dst->width, (long long)dst->height, (long long)src->width,
                          (long long)src->height, (long long)w, (long long)h);
    if (!p->up && (unsigned)p->border > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border %d is unknown", op,
                          (int)p->border);
    if (!p->up && p->border == GIP_BORDER_CONSTANT)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border constant is not supported (as in OpenCV): reflect101, "
                          "reflect, replicate or wrap",
                          op);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    p->cn = src->channels;
    p->dtype = src->dtype;
    p->sw = src->width;
    p->sh = src->height;
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__pyr_cuda(ctx, src, dst, p));
    pyr_job j = {p, src, dst};
    gip__parallel_for(ctx, dst->height, 8, pyr_rows, &j);
    return GIP_OK;
}
