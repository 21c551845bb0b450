/* SPDX-License-Identifier: MIT */
/* The point operations' vector rows (ops/point/pointwise_rows.c) against the element functions
 * they stand for (gip__pw_eval, gip__pw_eval2, rounded half to even and saturated as OpenCV's
 * saturate_cast): every source and destination dtype, every unary kind and two-image operation,
 * lengths across the vector steps, the chunks and their tails, destinations at every element
 * offset of a cache line, streaming and cached stores, and values that test the rounding and the
 * saturation (halves, the ends of each range, NaN, infinities); on the widest path the CPU has,
 * on AVX2 (GIP_NOAVX512) and on the portable one (GIP_NOSIMD). A CPU routine: the CUDA run is
 * skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/point/pointwise.h"
#include "testing.h"

static uint64_t seed = 0x243f6a8885a308d3ull;

static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};

/* A source value of dtype dt: mostly random over the dtype's range, often an edge case. */
static double value(gip_dtype dt)
{
    static const double f32_special[] = {0.5,     1.5,   2.5,   -0.5,    254.5, 255.5,
                                         255.0,   256.0, -1.0,  65535.5, 65536, -32768.5,
                                         32767.5, 1e10,  -1e10, 0.0,     -0.0,  1e30};
    const double u = gt_rand_unit(&seed);
    switch (dt) {
    case GIP_U8:
        return u < 0.1 ? (u < 0.05 ? 0 : 255) : floor(gt_rand_unit(&seed) * 256);
    case GIP_U16:
        return u < 0.1 ? (u < 0.05 ? 0 : 65535) : floor(gt_rand_unit(&seed) * 65536);
    case GIP_S16:
        return u < 0.1 ? (u < 0.05 ? -32768 : 32767) : floor(gt_rand_unit(&seed) * 65536) - 32768;
    default:
        if (u < 0.02)
            return NAN;
        if (u < 0.04)
            return u < 0.03 ? INFINITY : -INFINITY;
        if (u < 0.3)
            return f32_special[gt_rand_u64(&seed) % (sizeof f32_special / sizeof *f32_special)];
        return (gt_rand_unit(&seed) - 0.3) * 400.0;
    }
}

static void put(gip_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case GIP_U8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        return;
    case GIP_U16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        return;
    case GIP_S16:
        ((int16_t *)p)[i] = (int16_t)v;
        return;
    default:
        ((float *)p)[i] = (float)v;
        return;
    }
}

static float get(gip_dtype dt, const void *p, int64_t i)
{
    switch (dt) {
    case GIP_U8:
        return ((const uint8_t *)p)[i];
    case GIP_U16:
        return ((const uint16_t *)p)[i];
    case GIP_S16:
        return ((const int16_t *)p)[i];
    default:
        return ((const float *)p)[i];
    }
}

/* The reference store: what the element loops of pointwise.c write. */
static void ref_store(gip_dtype dt, void *p, int64_t i, double v)
{
    switch (dt) {
    case GIP_U8:
        ((uint8_t *)p)[i] = gip__pw_u8(v);
        return;
    case GIP_U16:
        ((uint16_t *)p)[i] = gip__pw_u16(v);
        return;
    case GIP_S16:
        ((int16_t *)p)[i] = gip__pw_s16(v);
        return;
    default:
        ((float *)p)[i] = (float)v;
        return;
    }
}

enum { MAXN = 1100, ROWS = 2, LINE = 64 };

static const int64_t lengths[] = {0,  1,  2,   7,   31,  32,  33,   63,  64,
                                  65, 97, 383, 384, 385, 767, 1000, 1100};

/* The first differing element, as x, row and byte values. */
static bool same_bytes(const uint8_t *got, const uint8_t *want, size_t n, size_t *at)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            *at = i;
            return false;
        }
    return true;
}

static void fill_pw(gip__pw *p, int32_t kind, int32_t sub, gip_dtype sdt)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->sub = sub;
    for (int c = 0; c < 4; c++) {
        p->v[c] = (float)(sdt == GIP_F32 ? (c + 1) * 37.25 : (c + 1) * 41.0 - 20.0);
        p->w[c] = (float)(200.0 - 13.5 * c);
        p->dv[c] = 1.0 / (c + 3.0) + c;
    }
    p->a = kind == GIP__PW_SCALE_ABS ? 1.7f : 0.3f;
    p->b = kind == GIP__PW_SCALE_ABS ? -10.5f : 0.7f;
    p->c = 5.25f;
    p->da = 1.0 / 255.0;
    p->zero_div = sdt != GIP_F32;
}

static void unary(void)
{
    static uint8_t src[ROWS * (MAXN * 4 + LINE)], got[ROWS * (MAXN * 4 + 2 * LINE)],
        want[sizeof got];
    static const int32_t arith[] = {GIP__OP_ADD, GIP__OP_SUB,   GIP__OP_RSUB,    GIP__OP_MUL,
                                    GIP__OP_DIV, GIP__OP_RDIV,  GIP__OP_ABSDIFF, GIP__OP_MIN,
                                    GIP__OP_MAX, GIP__OP_MUL_D, GIP__OP_DIV_D,   GIP__OP_RDIV_D};
    for (int si = 0; si < 4; si++)
        for (int di = 0; di < 4; di++)
            for (int kk = 0; kk < 5 + 12 + 1; kk++) {
                const gip_dtype sdt = dts[si], ddt = dts[di];
                const int32_t kind = kk < 5    ? GIP__PW_THRESH
                                     : kk < 17 ? GIP__PW_ARITH
                                               : GIP__PW_SCALE_ABS;
                const int32_t sub = kk < 5 ? kk : kk < 17 ? arith[kk - 5] : 0;
                gip__pw p;
                fill_pw(&p, kind, sub, sdt);
                const int64_t ses = (int64_t)gip_dtype_size(sdt),
                              des = (int64_t)gip_dtype_size(ddt);
                bool ok = true;
                for (size_t li = 0; li < sizeof lengths / sizeof *lengths && ok; li++) {
                    const int64_t n = lengths[li];
                    const int32_t cn = 1 + (int32_t)(li % 4);
                    const int64_t m = n - n % cn; /* whole pixels */
                    const int64_t off = (int64_t)(li * 7 % (LINE / des)) * des;
                    const int64_t sstride = m * ses + 8, dstride = m * des + LINE + des * 3;
                    for (int64_t i = 0; i < ROWS * (sstride / ses); i++)
                        put(sdt, src, i, value(sdt));
                    const bool stream = li % 2;
                    memset(got, 0x5A, sizeof got);
                    memset(want, 0x5A, sizeof want);
                    for (int64_t y = 0; y < ROWS; y++)
                        for (int64_t i = 0; i < m; i++)
                            ref_store(
                                ddt, want + off + y * dstride, i,
                                gip__pw_eval(&p, (int)(i % cn), get(sdt, src + y * sstride, i)));
                    GT_CHECK(gip__pw_rows_fast(&p, sdt, ddt, cn, src, sstride, got + off, dstride,
                                               m, ROWS, stream),
                             "rows_fast refused kind %d", (int)kind);
                    size_t at = 0;
                    ok = same_bytes(got, want, sizeof got, &at);
                    GT_CHECK(ok,
                             "unary kind %d op %d %s -> %s, %d channels, %lld elements, dst offset "
                             "%lld, %s: byte %zu got 0x%02x expected 0x%02x",
                             (int)kind, (int)sub, gip_dtype_name(sdt), gip_dtype_name(ddt), (int)cn,
                             (long long)m, (long long)off, stream ? "streamed" : "cached", at,
                             got[at], want[at]);
                }
            }
}

static void binary(void)
{
    static uint8_t a[MAXN * 4], b[MAXN * 4], got[MAXN * 4 + 2 * LINE], want[sizeof got];
    static const int32_t ops[] = {GIP__OP_WEIGHTED, GIP__OP_ADD, GIP__OP_SUB,
                                  GIP__OP_MUL,      GIP__OP_DIV, GIP__OP_ABSDIFF,
                                  GIP__OP_MIN,      GIP__OP_MAX, GIP__OP_ADAPT};
    static const float scales[] = {1.0f, 1.0f / 255.0f, 2.5f};
    for (int si = 0; si < 4; si++)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++)
            for (int sc = 0; sc < 3; sc++) {
                const gip_dtype sdt = dts[si], ddt = sdt;
                gip__pw p;
                fill_pw(&p, GIP__PW_ARITH, ops[oi], sdt);
                p.a = ops[oi] == GIP__OP_WEIGHTED ? 0.6f * (float)(sc + 1) : scales[sc];
                p.b = sc == 2 ? -0.4f : 0.4f;
                p.c = sc == 1 ? 0.0f : 3.5f;
                p.inv = sc == 2;
                const int64_t es = (int64_t)gip_dtype_size(sdt);
                bool ok = true;
                for (size_t li = 0; li < sizeof lengths / sizeof *lengths && ok; li++)
                    for (int64_t off = 0; off < LINE && ok; off += es * (off < 4 * es ? 1 : 5)) {
                        const int64_t n = lengths[li];
                        for (int64_t i = 0; i < n; i++) {
                            put(sdt, a, i, value(sdt));
                            put(sdt, b, i, value(sdt));
                        }
                        const bool stream = (off / es) % 2;
                        memset(got, 0x5A, sizeof got);
                        memset(want, 0x5A, sizeof want);
                        for (int64_t i = 0; i < n; i++)
                            ref_store(ddt, want + off, i,
                                      gip__pw_eval2(&p, get(sdt, a, i), get(sdt, b, i)));
                        gip__pw2_row_fast(&p, sdt, ddt, a, b, got + off, n, stream);
                        size_t at = 0;
                        ok = same_bytes(got, want, sizeof got, &at);
                        GT_CHECK(ok,
                                 "two images op %d (a %g b %g c %g) %s, %lld elements, dst offset "
                                 "%lld, %s: byte %zu got 0x%02x expected 0x%02x",
                                 (int)ops[oi], p.a, p.b, p.c, gip_dtype_name(sdt), (long long)n,
                                 (long long)off, stream ? "streamed" : "cached", at, got[at],
                                 want[at]);
                    }
            }
}

static void body(gip_context *ctx)
{
    (void)ctx;
    static const char *const what[] = {"the widest path the CPU has",
                                       "GIP_NOAVX512=1 (AVX2 at most)",
                                       "GIP_NOSIMD=1 (the portable stores)"};
    for (int level = 0; level < 3; level++) {
        printf("pointwise rows: %s\n", what[level]);
        gt_setenv("GIP_NOAVX512", level == 1 ? "1" : NULL);
        gt_setenv("GIP_NOSIMD", level == 2 ? "1" : NULL);
        if (gt_case())
            unary();
        if (gt_case())
            binary();
    }
    gt_setenv("GIP_NOAVX512", NULL);
    gt_setenv("GIP_NOSIMD", NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        printf("SKIP: pointwise_rows: the CPU rows (the CUDA kernels are the point operations' "
               "tests)\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "pointwise_rows", body);
}
