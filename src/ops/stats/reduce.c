/* SPDX-License-Identifier: MIT */
/* The reductions (gip_min_max_loc, gip_channel_min_max, gip_mean, gip_mean_std_dev, gip_sum,
 * gip_count_non_zero, gip_norm, gip_psnr): their argument checks, the finishing arithmetic from one
 * per-channel reduction, and its CPU backend. The CPU reduces fixed blocks of rows and combines
 * them in order, so a result does not depend on the thread count. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/stats/stats.h"
#include "tuning.h"

void gip__red_init(gip__red *r)
{
    memset(r, 0, sizeof *r);
    for (int c = 0; c < 4; c++) {
        r->ch[c].mn = HUGE_VAL;
        r->ch[c].mx = -HUGE_VAL;
        r->ch[c].imn = r->ch[c].imx = -1;
    }
}

void gip__red_combine(gip__red *a, const gip__red *b, int32_t channels)
{
    a->count += b->count;
    for (int32_t c = 0; c < channels; c++) {
        gip__red_ch *x = &a->ch[c];
        const gip__red_ch *y = &b->ch[c];
        x->is += y->is;
        x->iq += y->iq;
        x->ia += y->ia;
        x->fs += y->fs;
        x->fq += y->fq;
        x->fa += y->fa;
        x->nz += y->nz;
        if (y->imn >= 0 && (x->imn < 0 || y->mn < x->mn || (y->mn == x->mn && y->imn < x->imn))) {
            x->mn = y->mn;
            x->imn = y->imn;
        }
        if (y->imx >= 0 && (x->imx < 0 || y->mx > x->mx || (y->mx == x->mx && y->imx < x->imx))) {
            x->mx = y->mx;
            x->imx = y->imx;
        }
    }
}

/* ---- CPU backend ------------------------------------------------------------------------- */

#define ROWS_PER_BLOCK 16

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define RED_X86 1
#endif

/* The extremes of an unmasked run of rows (of one channel): each row's smallest and largest value,
 * the first row that holds the run's, and their positions, looked for in that row only (once per
 * image: see gip__reduce_cpu). */
typedef struct flat_pending {
    double mn, mx;
    int64_t ymn, ymx; /* the first row of the run of rows that holds them */
    int64_t nmn, nmx; /* that run's elements */
} flat_pending;

typedef struct red_job {
    const gip_image *a, *b, *mask;
    uint32_t want;
    int avx2;      /* the flat loops' build: 0 plain, 1 AVX2, 2 AVX-512 */
    int vbmi;      /* AVX-512 VBMI and VNNI: the u8 three-channel sums */
    int saturate;  /* extremes only: a block stops once every channel reaches lo and hi */
    double lo, hi; /* the dtype's range */
    int64_t stop;  /* the first block that saturated (atomic), INT64_MAX while none */
    gip__red *parts;
    flat_pending *pend; /* unmasked: each block's pending extremes, 4 a block */
} red_job;

/* One row of one channel: a (minus b where given) at elements c, c + cn, ... of w pixels, where
 * the mask row m (NULL: all) is not zero, folded into ch. Integer dtypes sum in int64 (ACC
 * int64_t), f32 in double; extremes compare in the element type and keep the first position. */
#define RED_ROW(NAME, T, V, ACC, ABS, SUMS)                                                        \
    static void NAME(const T *pa, const T *pb, const unsigned char *m, int64_t w, int32_t cn,      \
                     int32_t c, int64_t base, gip__red_ch *ch)                                     \
    {                                                                                              \
        ACC s = 0, q = 0, a = 0;                                                                   \
        int64_t nz = 0, imn = -1, imx = -1;                                                        \
        V mn = 0, mx = 0;                                                                          \
        for (int64_t x = 0; x < w; x++) {                                                          \
            if (m && !m[x])                                                                        \
                continue;                                                                          \
            V v = (V)pa[x * cn + c];                                                               \
            if (pb)                                                                                \
                v = (V)(v - (V)pb[x * cn + c]);                                                    \
            s += (ACC)v;                                                                           \
            q += (ACC)v * (ACC)v;                                                                  \
            a += (ACC)ABS(v);                                                                      \
            nz += v != 0;                                                                          \
            if (imn < 0 || v < mn) {                                                               \
                if (v == v)                                                                        \
                    mn = v, imn = x;                                                               \
            }                                                                                      \
            if (imx < 0 || v > mx) {                                                               \
                if (v == v)                                                                        \
                    mx = v, imx = x;                                                               \
            }                                                                                      \
        }                                                                                          \
        SUMS;                                                                                      \
        ch->nz += nz;                                                                              \
        /* rows come in order: a later row's extreme replaces only a strictly better one */        \
        if (imn >= 0 && (ch->imn < 0 || (double)mn < ch->mn)) {                                    \
            ch->mn = (double)mn;                                                                   \
            ch->imn = base + imn;                                                                  \
        }                                                                                          \
        if (imx >= 0 && (ch->imx < 0 || (double)mx > ch->mx)) {                                    \
            ch->mx = (double)mx;                                                                   \
            ch->imx = base + imx;                                                                  \
        }                                                                                          \
    }

#define IABS(v) ((v) < 0 ? -(int64_t)(v) : (int64_t)(v))
#define U32ABS(v) ((uint32_t)((v) < 0 ? -(v) : (v)))
#define INT_SUMS ch->is += s, ch->iq += q, ch->ia += a
#define FLT_SUMS ch->fs += s, ch->fq += q, ch->fa += a
RED_ROW(row_u8, uint8_t, int32_t, int64_t, IABS, INT_SUMS)
RED_ROW(row_u16, uint16_t, int32_t, int64_t, IABS, INT_SUMS)
RED_ROW(row_s16, int16_t, int32_t, int64_t, IABS, INT_SUMS)
RED_ROW(row_f32, float, float, double, fabsf, FLT_SUMS)

/* ---- one-channel rows without a mask: flat loops, one quantity at a time ---------------- */

/* Integer sums go in 32-bit lanes over spans of FLAT_SPAN elements (|v| <= 65535, so a span's
 * sum, sum of magnitudes and count fit; squares of u8 fit too, the others' go to 64 bits), then
 * into int64. f32 sums go into 16 double lanes per row (element x in lane x % 16), added in a fixed
 * tree at the row's end: the order depends on the row only, never on the thread count. */
#define FLAT_SPAN 16384

/* OUT += the sum in ACC of EXPR over the span, v each element in int32 (a[x] or a[x] - b[x]); one
 * loop each way, so that neither tests b. */
#define FLAT_INT_LOOP(ACC, EXPR, OUT)                                                              \
    do {                                                                                           \
        ACC s = 0;                                                                                 \
        if (b)                                                                                     \
            for (int64_t x = 0; x < m; x++) {                                                      \
                const int32_t v = (int32_t)a[x] - (int32_t)b[x];                                   \
                s += EXPR;                                                                         \
            }                                                                                      \
        else                                                                                       \
            for (int64_t x = 0; x < m; x++) {                                                      \
                const int32_t v = (int32_t)a[x];                                                   \
                s += EXPR;                                                                         \
            }                                                                                      \
        OUT += (int64_t)s;                                                                         \
    } while (0)

#define FLAT_INT(NAME, ATTR, T, QACC)                                                              \
    ATTR static void NAME(const T *pa, const T *pb, int64_t n, uint32_t want, gip__red_ch *ch)     \
    {                                                                                              \
        for (int64_t x0 = 0; x0 < n; x0 += FLAT_SPAN) {                                            \
            const int64_t m = n - x0 < FLAT_SPAN ? n - x0 : FLAT_SPAN;                             \
            const T *a = pa + x0, *b = pb ? pb + x0 : NULL;                                        \
            if (want & GIP__RED_SUM)                                                               \
                FLAT_INT_LOOP(int32_t, v, ch->is);                                                 \
            if (want & GIP__RED_SQ)                                                                \
                FLAT_INT_LOOP(QACC, (QACC)(U32ABS(v) * U32ABS(v)), ch->iq);                        \
            if (want & GIP__RED_ABS)                                                               \
                FLAT_INT_LOOP(uint32_t, U32ABS(v), ch->ia);                                        \
            if (want & GIP__RED_NZ) {                                                              \
                int32_t s = 0;                                                                     \
                if (b)                                                                             \
                    for (int64_t x = 0; x < m; x++)                                                \
                        s += a[x] != b[x];                                                         \
                else                                                                               \
                    for (int64_t x = 0; x < m; x++)                                                \
                        s += a[x] != 0;                                                            \
                ch->nz += s;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }

/* The f32 sums' lanes: element x of a row goes to lane x % F32_LANES, the lanes are added in a
 * fixed tree at the row's end (lane l with lane l + 8, then l + 4, ...). */
#define F32_LANES 16
static inline double lanes_sum(double *acc)
{
    for (int h = F32_LANES / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; l++)
            acc[l] = acc[l] + acc[l + h];
    return acc[0];
}

/* The f32 value of element x: a[x], or a[x] - b[x] rounded to float as the CUDA kernel does. */
static inline float f32_at(const float *a, const float *b, int64_t x)
{
    return b ? a[x] - b[x] : a[x];
}

/* ACC += the sum of EXPR over the row, v each element's f32 value in double, in F32_LANES lanes. */
#define FLAT_F32_LOOP(ACC, EXPR)                                                                   \
    do {                                                                                           \
        double acc[F32_LANES] = {0};                                                               \
        int64_t x = 0;                                                                             \
        if (b)                                                                                     \
            for (; x + F32_LANES <= n; x += F32_LANES)                                             \
                for (int l = 0; l < F32_LANES; l++) {                                              \
                    double v = (double)(float)(a[x + l] - b[x + l]);                               \
                    acc[l] += EXPR;                                                                \
                }                                                                                  \
        else                                                                                       \
            for (; x + F32_LANES <= n; x += F32_LANES)                                             \
                for (int l = 0; l < F32_LANES; l++) {                                              \
                    double v = (double)a[x + l];                                                   \
                    acc[l] += EXPR;                                                                \
                }                                                                                  \
        for (int l = 0; x < n; x++, l++) {                                                         \
            double v = (double)f32_at(a, b, x);                                                    \
            acc[l] += EXPR;                                                                        \
        }                                                                                          \
        ACC += lanes_sum(acc);                                                                     \
    } while (0)

#define FLAT_F32(NAME, ATTR)                                                                       \
    ATTR static void NAME(const float *a, const float *b, int64_t n, uint32_t want,                \
                          gip__red_ch *ch)                                                         \
    {                                                                                              \
        if (want & GIP__RED_SUM)                                                                   \
            FLAT_F32_LOOP(ch->fs, v);                                                              \
        if (want & GIP__RED_SQ)                                                                    \
            FLAT_F32_LOOP(ch->fq, v *v);                                                           \
        if (want & GIP__RED_ABS)                                                                   \
            FLAT_F32_LOOP(ch->fa, fabs(v));                                                        \
        if (want & GIP__RED_NZ) {                                                                  \
            int64_t s = 0;                                                                         \
            if (b)                                                                                 \
                for (int64_t x = 0; x < n; x++)                                                    \
                    s += (float)(a[x] - b[x]) != 0.0f;                                             \
            else                                                                                   \
                for (int64_t x = 0; x < n; x++)                                                    \
                    s += a[x] != 0.0f;                                                             \
            ch->nz += s;                                                                           \
        }                                                                                          \
    }

/* The row's extremes in the element type (V for differences), then their first positions only
 * where they improve on the earlier rows'. NaNs are skipped: v < mn is false for them. */
/* The extremes of a row in L lanes (element x in lane x % L), folded at the end: the compiler
 * vectorises the lanes where it will not reorder a plain float min/max reduction. */
#define ROW_MINMAX(U, L, LO, HI, GET, OUT_MN, OUT_MX)                                              \
    do {                                                                                           \
        U lo[L], hi[L];                                                                            \
        for (int l = 0; l < L; l++)                                                                \
            lo[l] = HI, hi[l] = LO;                                                                \
        int64_t x = 0;                                                                             \
        for (; x + L <= n; x += L)                                                                 \
            for (int l = 0; l < L; l++) {                                                          \
                U v = GET(x + l);                                                                  \
                lo[l] = v < lo[l] ? v : lo[l];                                                     \
                hi[l] = v > hi[l] ? v : hi[l];                                                     \
            }                                                                                      \
        for (; x < n; x++) {                                                                       \
            U v = GET(x);                                                                          \
            lo[0] = v < lo[0] ? v : lo[0];                                                         \
            hi[0] = v > hi[0] ? v : hi[0];                                                         \
        }                                                                                          \
        for (int l = 1; l < L; l++) {                                                              \
            lo[0] = lo[l] < lo[0] ? lo[l] : lo[0];                                                 \
            hi[0] = hi[l] > hi[0] ? hi[l] : hi[0];                                                 \
        }                                                                                          \
        OUT_MN = (vt)lo[0], OUT_MX = (vt)hi[0];                                                    \
    } while (0)

#define GET_DIFF(x) ((vt)((vt)a[x] - (vt)b[x]))
#define GET_A(x) (a[x])

/* The extremes of a - b in V or of a in T, in L lanes. */
#define MM_LANES(L, T, V, TLO, THI, VLO, VHI, MN, MX)                                              \
    do {                                                                                           \
        if (b)                                                                                     \
            ROW_MINMAX(V, L, VLO, VHI, GET_DIFF, MN, MX);                                          \
        else                                                                                       \
            ROW_MINMAX(T, L, TLO, THI, GET_A, MN, MX);                                             \
    } while (0)

/* Integer extremes: plain loops, which the compiler vectorises. */
#define MM_PLAIN(...) MM_LANES(1, __VA_ARGS__)

/* f32 extremes in vectors of W floats, four of each at a time (min_ps(v, lo) is v < lo ? v : lo,
 * which skips NaNs as the scalar rule does); the differences are the same float subtraction. */
#define MM_F32_VEC(VT, W, P, MN, MX)                                                               \
    do {                                                                                           \
        VT lo[4], hi[4];                                                                           \
        for (int l = 0; l < 4; l++)                                                                \
            lo[l] = P##_set1_ps(INFINITY), hi[l] = P##_set1_ps(-INFINITY);                         \
        /* from a's first vector boundary: loads across cache lines cost more */                   \
        int64_t x0 = (int64_t)((-(uintptr_t)a & (4 * W - 1)) / 4);                                 \
        x0 = x0 < n ? x0 : n;                                                                      \
        int64_t x = x0;                                                                            \
        if (b)                                                                                     \
            for (; x + 4 * W <= n; x += 4 * W)                                                     \
                for (int l = 0; l < 4; l++) {                                                      \
                    VT v = P##_sub_ps(P##_loadu_ps(a + x + l * W), P##_loadu_ps(b + x + l * W));   \
                    lo[l] = P##_min_ps(v, lo[l]);                                                  \
                    hi[l] = P##_max_ps(v, hi[l]);                                                  \
                }                                                                                  \
        else                                                                                       \
            for (; x + 4 * W <= n; x += 4 * W)                                                     \
                for (int l = 0; l < 4; l++) {                                                      \
                    VT v = P##_loadu_ps(a + x + l * W);                                            \
                    lo[l] = P##_min_ps(v, lo[l]);                                                  \
                    hi[l] = P##_max_ps(v, hi[l]);                                                  \
                }                                                                                  \
        float tl[W], th[W];                                                                        \
        P##_storeu_ps(tl, P##_min_ps(P##_min_ps(lo[0], lo[1]), P##_min_ps(lo[2], lo[3])));         \
        P##_storeu_ps(th, P##_max_ps(P##_max_ps(hi[0], hi[1]), P##_max_ps(hi[2], hi[3])));         \
        float fl = INFINITY, fh = -INFINITY;                                                       \
        for (int l = 0; l < W; l++) {                                                              \
            fl = tl[l] < fl ? tl[l] : fl;                                                          \
            fh = th[l] > fh ? th[l] : fh;                                                          \
        }                                                                                          \
        for (int64_t i = 0; i < x0; i++) {                                                         \
            float v = f32_at(a, b, i);                                                             \
            fl = v < fl ? v : fl;                                                                  \
            fh = v > fh ? v : fh;                                                                  \
        }                                                                                          \
        for (; x < n; x++) {                                                                       \
            float v = f32_at(a, b, x);                                                             \
            fl = v < fl ? v : fl;                                                                  \
            fh = v > fh ? v : fh;                                                                  \
        }                                                                                          \
        MN = fl, MX = fh;                                                                          \
    } while (0)
#define MM_F32_SSE(T, V, TLO, THI, VLO, VHI, MN, MX) MM_F32_VEC(__m128, 4, _mm, MN, MX)
#define MM_F32_AVX(T, V, TLO, THI, VLO, VHI, MN, MX) MM_F32_VEC(__m256, 8, _mm256, MN, MX)
#define MM_F32_AVX512(T, V, TLO, THI, VLO, VHI, MN, MX) MM_F32_VEC(__m512, 16, _mm512, MN, MX)

/* The extremes of a row (as doubles, exact for every dtype); 0 where it holds nothing but NaNs. */
#define FLAT_EXT(NAME, ATTR, T, V, MINMAX, TLO, THI, VLO, VHI)                                     \
    ATTR static int NAME(const T *a, const T *b, int64_t n, double *omn, double *omx)              \
    {                                                                                              \
        typedef V vt __attribute__((unused));                                                      \
        V mn, mx;                                                                                  \
        MINMAX(T, V, TLO, THI, VLO, VHI, mn, mx);                                                  \
        if (!(mn <= mx))                                                                           \
            return 0;                                                                              \
        *omn = (double)mn, *omx = (double)mx;                                                      \
        return 1;                                                                                  \
    }

/* The first position in a row of a value equal to val (a value of the row's), and that value
 * (-0 or +0: the first). Compared in the element type; u8 rows through memchr. */
#define FLAT_LOC(NAME, T, V)                                                                       \
    static int64_t NAME(const T *a, const T *b, int64_t n, double val, double *got)                \
    {                                                                                              \
        const V t = (V)val;                                                                        \
        int64_t x = 0;                                                                             \
        if (b) {                                                                                   \
            while (x < n && (V)((V)a[x] - (V)b[x]) != t)                                           \
                x++;                                                                               \
            if (x < n)                                                                             \
                *got = (double)(V)((V)a[x] - (V)b[x]);                                             \
        } else {                                                                                   \
            while (x < n && (V)a[x] != t)                                                          \
                x++;                                                                               \
            if (x < n)                                                                             \
                *got = (double)a[x];                                                               \
        }                                                                                          \
        return x < n ? x : -1;                                                                     \
    }
FLAT_LOC(loc_u8_diff, uint8_t, int32_t)
FLAT_LOC(loc_u16, uint16_t, int32_t)
FLAT_LOC(loc_s16, int16_t, int32_t)
FLAT_LOC(loc_f32, float, float)

static int64_t loc_u8(const uint8_t *a, const uint8_t *b, int64_t n, double val, double *got)
{
    if (b)
        return loc_u8_diff(a, b, n, val, got);
    const uint8_t *p = memchr(a, (int)val, (size_t)n);
    *got = val;
    return p ? p - a : -1;
}

#define FLAT_ALL(SFX, ATTR, F32MM)                                                                 \
    FLAT_INT(flat_u8##SFX, ATTR, uint8_t, uint32_t)                                                \
    FLAT_INT(flat_u16##SFX, ATTR, uint16_t, uint64_t)                                              \
    FLAT_INT(flat_s16##SFX, ATTR, int16_t, uint64_t)                                               \
    FLAT_F32(flat_f32##SFX, ATTR)                                                                  \
    FLAT_EXT(fext_u8##SFX, ATTR, uint8_t, int32_t, MM_PLAIN, 0, UINT8_MAX, INT32_MIN, INT32_MAX)   \
    FLAT_EXT(fext_u16##SFX, ATTR, uint16_t, int32_t, MM_PLAIN, 0, UINT16_MAX, INT32_MIN,           \
             INT32_MAX)                                                                            \
    FLAT_EXT(fext_s16##SFX, ATTR, int16_t, int32_t, MM_PLAIN, INT16_MIN, INT16_MAX, INT32_MIN,     \
             INT32_MAX)                                                                            \
    FLAT_EXT(fext_f32##SFX, ATTR, float, float, F32MM, -INFINITY, INFINITY, -INFINITY, INFINITY)

#ifdef RED_X86
FLAT_ALL(, , MM_F32_SSE)
/* AVX2 without FMA: the f32 squares round before they are added, as in the plain build. */
FLAT_ALL(_avx2, __attribute__((target("avx2"))), MM_F32_AVX)
FLAT_ALL(_avx512, __attribute__((target("avx2,avx512f,avx512bw,avx512vl"))), MM_F32_AVX512)
#else
#define MM_F32_ROW(...) MM_LANES(16, __VA_ARGS__)
FLAT_ALL(, , MM_F32_ROW)
#endif

#ifdef RED_X86
/* u8 sums with AVX2, 64 bytes a step in two independent accumulators: sums and sums of
 * magnitudes through SAD against zero (or the other row), squares through 16-bit multiply-adds
 * into 32-bit lanes (at most FLAT_SPAN elements per lane set, so they cannot overflow; the sum
 * rides along when both are wanted), non-zeros by counting equal bytes. Exact, as the plain
 * loops. */
#define LD(p) _mm256_loadu_si256((const __m256i *)(p))
__attribute__((target("avx2"))) static inline int64_t hsum64(__m256i v)
{
    int64_t t[4];
    _mm256_storeu_si256((__m256i *)t, v);
    return (t[0] + t[1]) + (t[2] + t[3]);
}

/* The body, inlined once per combination of (b given, sum, squares) so that its loops hold no
 * branches. */
__attribute__((target("avx2,popcnt"), always_inline)) static inline void
u8_sums_body(const uint8_t *a, const uint8_t *b, int64_t n, uint32_t want, gip__red_ch *ch,
             const bool sum, const bool sq)
{
    const int64_t nv = n & ~(int64_t)63;
    const __m256i z = _mm256_setzero_si256();
    if (sum || sq) {
        __m256i sa0 = z, sa1 = z, sb0 = z, sb1 = z;
        int64_t qs = 0;
        for (int64_t x0 = 0; x0 < nv; x0 += FLAT_SPAN) {
            const int64_t x1 = nv - x0 < FLAT_SPAN ? nv : x0 + FLAT_SPAN;
            __m256i q0 = z, q1 = z;
            for (int64_t x = x0; x < x1; x += 64) {
                __m256i v0 = LD(a + x), v1 = LD(a + x + 32);
                __m256i u0 = z, u1 = z;
                if (b)
                    u0 = LD(b + x), u1 = LD(b + x + 32);
                if (sum) {
                    sa0 = _mm256_add_epi64(sa0, _mm256_sad_epu8(v0, z));
                    sa1 = _mm256_add_epi64(sa1, _mm256_sad_epu8(v1, z));
                    if (b) {
                        sb0 = _mm256_add_epi64(sb0, _mm256_sad_epu8(u0, z));
                        sb1 = _mm256_add_epi64(sb1, _mm256_sad_epu8(u1, z));
                    }
                }
                if (sq) {
                    if (b) {
                        v0 = _mm256_or_si256(_mm256_subs_epu8(v0, u0), _mm256_subs_epu8(u0, v0));
                        v1 = _mm256_or_si256(_mm256_subs_epu8(v1, u1), _mm256_subs_epu8(u1, v1));
                    }
                    __m256i l0 = _mm256_unpacklo_epi8(v0, z), h0 = _mm256_unpackhi_epi8(v0, z);
                    __m256i l1 = _mm256_unpacklo_epi8(v1, z), h1 = _mm256_unpackhi_epi8(v1, z);
                    q0 = _mm256_add_epi32(
                        q0, _mm256_add_epi32(_mm256_madd_epi16(l0, l0), _mm256_madd_epi16(h0, h0)));
                    q1 = _mm256_add_epi32(
                        q1, _mm256_add_epi32(_mm256_madd_epi16(l1, l1), _mm256_madd_epi16(h1, h1)));
                }
            }
            if (sq) {
                uint32_t t[16];
                _mm256_storeu_si256((__m256i *)t, q0);
                _mm256_storeu_si256((__m256i *)(t + 8), q1);
                for (int l = 0; l < 16; l++)
                    qs += t[l];
            }
        }
        int64_t ss = hsum64(_mm256_add_epi64(sa0, sa1)) - hsum64(_mm256_add_epi64(sb0, sb1));
        for (int64_t x = nv; x < n; x++) {
            int32_t d = (int32_t)a[x] - (b ? (int32_t)b[x] : 0);
            ss += d;
            qs += d * d;
        }
        if (want & GIP__RED_SUM)
            ch->is += ss;
        if (!b && (want & GIP__RED_ABS))
            ch->ia += ss;
        if (sq)
            ch->iq += qs;
    }
    if (b && (want & GIP__RED_ABS)) {
        __m256i s0 = z, s1 = z;
        for (int64_t x = 0; x < nv; x += 64) {
            s0 = _mm256_add_epi64(s0, _mm256_sad_epu8(LD(a + x), LD(b + x)));
            s1 = _mm256_add_epi64(s1, _mm256_sad_epu8(LD(a + x + 32), LD(b + x + 32)));
        }
        int64_t s = hsum64(_mm256_add_epi64(s0, s1));
        for (int64_t x = nv; x < n; x++)
            s += a[x] > b[x] ? a[x] - b[x] : b[x] - a[x];
        ch->ia += s;
    }
    if (want & GIP__RED_NZ) {
        int64_t e0 = 0, e1 = 0;
        for (int64_t x = 0; x < nv; x += 64) {
            __m256i u0 = b ? LD(b + x) : z, u1 = b ? LD(b + x + 32) : z;
            e0 += __builtin_popcount(
                (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(LD(a + x), u0)));
            e1 += __builtin_popcount(
                (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(LD(a + x + 32), u1)));
        }
        int64_t eq = e0 + e1;
        for (int64_t x = nv; x < n; x++)
            eq += a[x] == (b ? b[x] : 0);
        ch->nz += n - eq;
    }
}

/* BODY(B, SUM, SQ) with B (b, or a null pointer to T), SUM and SQ (sum, sq) as constants: each
 * inlined copy of the body holds no branches on them. */
#define BY_CONSTANTS(BODY, T, b, sum, sq)                                                          \
    do {                                                                                           \
        if (b)                                                                                     \
            BY_SUM_SQ(BODY, b, sum, sq);                                                           \
        else                                                                                       \
            BY_SUM_SQ(BODY, (const T *)NULL, sum, sq);                                             \
    } while (0)
#define BY_SUM_SQ(BODY, B, sum, sq)                                                                \
    do {                                                                                           \
        if (sum && sq)                                                                             \
            BODY(B, true, true);                                                                   \
        else if (sum)                                                                              \
            BODY(B, true, false);                                                                  \
        else if (sq)                                                                               \
            BODY(B, false, true);                                                                  \
        else                                                                                       \
            BODY(B, false, false);                                                                 \
    } while (0)

__attribute__((target("avx2,popcnt"))) static void
u8_sums_avx2(const uint8_t *a, const uint8_t *b, int64_t n, uint32_t want, gip__red_ch *ch)
{
    const bool sq = (want & GIP__RED_SQ) != 0;
    /* the signed sum: with the squares when both are wanted */
    const bool sum = (want & GIP__RED_SUM) || (!b && (want & GIP__RED_ABS));
#define U8_BODY(B, SUM, SQ) u8_sums_body(a, B, n, want, ch, SUM, SQ)
    BY_CONSTANTS(U8_BODY, uint8_t, b, sum, sq);
#undef U8_BODY
}

/* Folds the smallest of lo[0 .. n) into *mn and the largest of hi[0 .. n) into *mx. */
static inline void u8_fold_ext(const uint8_t *lo, const uint8_t *hi, int64_t n, uint8_t *mn,
                               uint8_t *mx)
{
    for (int64_t x = 0; x < n; x++) {
        *mn = lo[x] < *mn ? lo[x] : *mn;
        *mx = hi[x] > *mx ? hi[x] : *mx;
    }
}

/* u8 extremes in vectors of W bytes (VT; P: the intrinsics' prefix, BITS: their width), 4 W bytes
 * a step in four pairs of accumulators, from the first ALIGN-byte boundary on (LOAD: the load,
 * aligned where ALIGN is W). */
#define U8_EXT(NAME, ATTR, VT, W, P, BITS, LOAD, ALIGN)                                            \
    ATTR static int NAME(const uint8_t *a, int64_t n, double *omn, double *omx)                    \
    {                                                                                              \
        uint8_t mn = 255, mx = 0;                                                                  \
        int64_t head = (int64_t)(-(uintptr_t)a & (ALIGN - 1));                                     \
        head = head < n ? head : n;                                                                \
        u8_fold_ext(a, a, head, &mn, &mx);                                                         \
        a += head, n -= head;                                                                      \
        const int64_t nv = n & ~(int64_t)(4 * W - 1);                                              \
        VT lo[4], hi[4];                                                                           \
        for (int k = 0; k < 4; k++)                                                                \
            lo[k] = P##_set1_epi8(-1), hi[k] = P##_setzero_si##BITS();                             \
        for (int64_t x = 0; x < nv; x += 4 * W)                                                    \
            for (int k = 0; k < 4; k++) {                                                          \
                VT v = LOAD(a + x + W * k);                                                        \
                lo[k] = P##_min_epu8(lo[k], v);                                                    \
                hi[k] = P##_max_epu8(hi[k], v);                                                    \
            }                                                                                      \
        uint8_t tl[W], th[W];                                                                      \
        P##_storeu_si##BITS((VT *)tl,                                                              \
                            P##_min_epu8(P##_min_epu8(lo[0], lo[1]), P##_min_epu8(lo[2], lo[3]))); \
        P##_storeu_si##BITS((VT *)th,                                                              \
                            P##_max_epu8(P##_max_epu8(hi[0], hi[1]), P##_max_epu8(hi[2], hi[3]))); \
        u8_fold_ext(tl, th, W, &mn, &mx);                                                          \
        u8_fold_ext(a + nv, a + nv, n - nv, &mn, &mx);                                             \
        *omn = mn, *omx = mx;                                                                      \
        return 1;                                                                                  \
    }

/* AVX2: 128 bytes a step, from a itself. AVX-512BW: 256 bytes a step, from the first 64-byte
 * boundary (loads that straddle two cache lines cost more). */
U8_EXT(u8_ext_avx2, __attribute__((target("avx2"))), __m256i, 32, _mm256, 256, LD, 1)
U8_EXT(u8_ext_avx512, __attribute__((target("avx512f,avx512bw"))), __m512i, 64, _mm512, 512,
       _mm512_load_si512, 64)
#undef LD

/* u8 three-channel sums with AVX-512 VBMI and VNNI: 64 pixels (192 bytes) a step split into
 * their channels by byte permutes, each channel's sum a dot product with ones and its squares
 * x (x - 128) (unsigned by signed bytes) plus 128 x. A 32-bit lane gains at most 4 * 32385 a
 * step (x (x - 128) lies in [-4096, 32385]), so spans of U8C3_SPAN steps cannot overflow it.
 * Exact, as the plain loops. n: pixels. */
#define U8C3_SPAN 4096
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni"))) static void
u8c3_sums_vbmi(const uint8_t *a, int64_t n, uint32_t want, gip__red *r)
{
    uint8_t idx[3][64];
    __m512i ix[3];
    __mmask64 km[3];
    for (int c = 0; c < 3; c++) {
        km[c] = 0;
        for (int i = 0; i < 64; i++) {
            idx[c][i] = (uint8_t)((3 * i + c) & 127);
            if (3 * i + c >= 128) /* from the third vector */
                km[c] |= (__mmask64)1 << i;
        }
        ix[c] = _mm512_loadu_si512(idx[c]);
    }
    const __m512i ones = _mm512_set1_epi8(1), bias = _mm512_set1_epi8((char)0x80);
    const int64_t steps = n / 64;
    int64_t s[3] = {0, 0, 0}, q[3] = {0, 0, 0};
    for (int64_t k0 = 0; k0 < steps; k0 += U8C3_SPAN) {
        const int64_t k1 = steps - k0 < U8C3_SPAN ? steps : k0 + U8C3_SPAN;
        __m512i as[3], aq[3];
        for (int c = 0; c < 3; c++)
            as[c] = aq[c] = _mm512_setzero_si512();
        for (int64_t k = k0; k < k1; k++) {
            const uint8_t *p = a + 192 * k;
            const __m512i v0 = _mm512_loadu_si512(p), v1 = _mm512_loadu_si512(p + 64),
                          v2 = _mm512_loadu_si512(p + 128);
            for (int c = 0; c < 3; c++) {
                __m512i t = _mm512_permutex2var_epi8(v0, ix[c], v1);
                t = _mm512_mask_permutexvar_epi8(t, km[c], ix[c], v2);
                as[c] = _mm512_dpbusd_epi32(as[c], t, ones);
                aq[c] = _mm512_dpbusd_epi32(aq[c], t, _mm512_xor_si512(t, bias));
            }
        }
        for (int c = 0; c < 3; c++) {
            s[c] += _mm512_reduce_add_epi64(
                _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(as[c])),
                                 _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(as[c], 1))));
            q[c] += _mm512_reduce_add_epi64(
                _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(aq[c])),
                                 _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(aq[c], 1))));
        }
    }
    for (int c = 0; c < 3; c++)
        q[c] += 128 * s[c];
    for (int64_t x = 64 * steps; x < n; x++)
        for (int c = 0; c < 3; c++) {
            const int64_t v = a[3 * x + c];
            s[c] += v;
            q[c] += v * v;
        }
    for (int c = 0; c < 3; c++) {
        if (want & GIP__RED_SUM)
            r->ch[c].is += s[c];
        if (want & GIP__RED_SQ)
            r->ch[c].iq += q[c];
        if (want & GIP__RED_ABS)
            r->ch[c].ia += s[c];
    }
}
#endif

#ifdef RED_X86
/* Elements x to x + 15 of a (minus b where given, rounded to float) as two vectors of eight
 * floats. */
__attribute__((target("avx2"), always_inline)) static inline void
f32_load16(const float *a, const float *b, int64_t x, __m256 *f0, __m256 *f1)
{
    *f0 = _mm256_loadu_ps(a + x);
    *f1 = _mm256_loadu_ps(a + x + 8);
    if (b) {
        *f0 = _mm256_sub_ps(*f0, _mm256_loadu_ps(b + x));
        *f1 = _mm256_sub_ps(*f1, _mm256_loadu_ps(b + x + 8));
    }
}

/* The same as four vectors of four doubles: lanes 0 to 3, 4 to 7, 8 to 11, 12 to 15. */
__attribute__((target("avx2"), always_inline)) static inline void
f32_load16_pd(const float *a, const float *b, int64_t x, __m256d d[4])
{
    __m256 f0, f1;
    f32_load16(a, b, x, &f0, &f1);
    d[0] = _mm256_cvtps_pd(_mm256_castps256_ps128(f0));
    d[1] = _mm256_cvtps_pd(_mm256_extractf128_ps(f0, 1));
    d[2] = _mm256_cvtps_pd(_mm256_castps256_ps128(f1));
    d[3] = _mm256_cvtps_pd(_mm256_extractf128_ps(f1, 1));
}

/* f32 sums with AVX2 (no FMA: each square rounds before it is added): the same 16 lanes, in
 * four vectors of four doubles, and the same tail and tree as FLAT_F32_LOOP, so the result is
 * the plain loop's bit for bit. */
#define F32_AVX2_PASS(ACC, OP)                                                                     \
    do {                                                                                           \
        __m256d s[4];                                                                              \
        for (int k = 0; k < 4; k++)                                                                \
            s[k] = _mm256_setzero_pd();                                                            \
        int64_t x = 0;                                                                             \
        for (; x + F32_LANES <= n; x += F32_LANES) {                                               \
            __m256d d[4];                                                                          \
            f32_load16_pd(a, b, x, d);                                                             \
            for (int k = 0; k < 4; k++)                                                            \
                s[k] = _mm256_add_pd(s[k], OP(d[k]));                                              \
        }                                                                                          \
        double acc[F32_LANES];                                                                     \
        for (int k = 0; k < 4; k++)                                                                \
            _mm256_storeu_pd(acc + 4 * k, s[k]);                                                   \
        for (int l = 0; x < n; x++, l++) {                                                         \
            __m256d v = _mm256_set1_pd((double)f32_at(a, b, x));                                   \
            acc[l] += _mm256_cvtsd_f64(OP(v));                                                     \
        }                                                                                          \
        ACC += lanes_sum(acc);                                                                     \
    } while (0)
#define F32_ID(d) (d)
#define F32_SQ(d) _mm256_mul_pd(d, d)
#define F32_ABS(d) _mm256_andnot_pd(_mm256_set1_pd(-0.0), d)

__attribute__((target("avx2"))) static void f32_sums_avx2(const float *a, const float *b, int64_t n,
                                                          uint32_t want, gip__red_ch *ch)
{
    if ((want & (GIP__RED_SUM | GIP__RED_SQ)) == (GIP__RED_SUM | GIP__RED_SQ)) {
        /* both in one pass over the row (the same lanes, tail and tree as two passes) */
        __m256d s[4], q[4];
        for (int k = 0; k < 4; k++)
            s[k] = q[k] = _mm256_setzero_pd();
        int64_t x = 0;
        for (; x + F32_LANES <= n; x += F32_LANES) {
            __m256d d[4];
            f32_load16_pd(a, b, x, d);
            for (int k = 0; k < 4; k++) {
                s[k] = _mm256_add_pd(s[k], d[k]);
                q[k] = _mm256_add_pd(q[k], _mm256_mul_pd(d[k], d[k]));
            }
        }
        double as[F32_LANES], aq[F32_LANES];
        for (int k = 0; k < 4; k++) {
            _mm256_storeu_pd(as + 4 * k, s[k]);
            _mm256_storeu_pd(aq + 4 * k, q[k]);
        }
        for (int l = 0; x < n; x++, l++) {
            double v = (double)f32_at(a, b, x);
            as[l] += v;
            aq[l] += _mm256_cvtsd_f64(F32_SQ(_mm256_set1_pd(v)));
        }
        ch->fs += lanes_sum(as);
        ch->fq += lanes_sum(aq);
    } else if (want & GIP__RED_SUM) {
        F32_AVX2_PASS(ch->fs, F32_ID);
    } else if (want & GIP__RED_SQ) {
        F32_AVX2_PASS(ch->fq, F32_SQ);
    }
    if (want & GIP__RED_ABS)
        F32_AVX2_PASS(ch->fa, F32_ABS);
    if (want & GIP__RED_NZ) {
        int64_t s = 0;
        for (int64_t x = 0; x < n; x++)
            s += f32_at(a, b, x) != 0.0f;
        ch->nz += s;
    }
}
/* f32 sums and squares with AVX-512: the same 16 lanes (two vectors of eight doubles), tail
 * and tree as FLAT_F32_LOOP. The squares go through fused multiply-adds, which round as the
 * plain loop's multiply then add: the square of a float's double is exact (24-bit mantissas),
 * so only the addition rounds. The sums are fused multiply-adds by one (the same addition),
 * which run on the multiply ports beside the conversions on the adders. Bit for bit the plain
 * loop's result. */
__attribute__((target("avx512f"), always_inline)) static inline void
f32_sq_body(const float *a, const float *b, int64_t n, gip__red_ch *ch, const bool sum,
            const bool sq)
{
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, q0 = s0, q1 = s0;
    int64_t x = 0;
    for (; x + F32_LANES <= n; x += F32_LANES) {
        __m256 f0, f1;
        f32_load16(a, b, x, &f0, &f1);
        const __m512d d0 = _mm512_cvtps_pd(f0), d1 = _mm512_cvtps_pd(f1);
        if (sum) {
            s0 = _mm512_fmadd_pd(d0, _mm512_set1_pd(1.0), s0);
            s1 = _mm512_fmadd_pd(d1, _mm512_set1_pd(1.0), s1);
        }
        if (sq) {
            q0 = _mm512_fmadd_pd(d0, d0, q0);
            q1 = _mm512_fmadd_pd(d1, d1, q1);
        }
    }
    double as[F32_LANES], aq[F32_LANES];
    _mm512_storeu_pd(as, s0);
    _mm512_storeu_pd(as + 8, s1);
    _mm512_storeu_pd(aq, q0);
    _mm512_storeu_pd(aq + 8, q1);
    for (int l = 0; x < n; x++, l++) {
        const double v = (double)f32_at(a, b, x);
        as[l] += v;
        aq[l] += v * v;
    }
    if (sum)
        ch->fs += lanes_sum(as);
    if (sq)
        ch->fq += lanes_sum(aq);
}

__attribute__((target("avx512f"))) static void
f32_sums_avx512(const float *a, const float *b, int64_t n, uint32_t want, gip__red_ch *ch)
{
    const bool sum = (want & GIP__RED_SUM) != 0, sq = (want & GIP__RED_SQ) != 0;
#define F32_BODY(B, SUM, SQ) f32_sq_body(a, B, n, ch, SUM, SQ)
    if (sum || sq) /* (neither: no pass) */
        BY_CONSTANTS(F32_BODY, float, b, sum, sq);
#undef F32_BODY
    if (want & (GIP__RED_ABS | GIP__RED_NZ))
        f32_sums_avx2(a, b, n, want & (GIP__RED_ABS | GIP__RED_NZ), ch);
}
#endif

/* ---- unmasked rows of 2 to 4 channels: every channel in one loop, CN a constant ---------- */

/* Sums, one quantity at a time, every channel at once (integers exact in int64; f32 in double
 * in the same order as one channel at a time: each channel's elements in turn, from 0 per row). */
#define MC_PASS(V, CN, ACC, OUT, EXPR)                                                             \
    do {                                                                                           \
        for (int64_t x0 = 0; x0 < w; x0 += SPAN) {                                                 \
            const int64_t x1 = w - x0 < SPAN ? w : x0 + SPAN;                                      \
            ACC q[CN] = {0};                                                                       \
            for (int64_t x = x0; x < x1; x++)                                                      \
                for (int c = 0; c < CN; c++) {                                                     \
                    V v = pb ? (V)((V)pa[x * CN + c] - (V)pb[x * CN + c]) : (V)pa[x * CN + c];     \
                    q[c] += EXPR;                                                                  \
                }                                                                                  \
            for (int c = 0; c < CN; c++)                                                           \
                r->ch[c].OUT += q[c];                                                              \
        }                                                                                          \
    } while (0)

/* Integers go in 32-bit lanes (64 for squares of 16-bit values) over spans of FLAT_SPAN pixels;
 * f32 in one double per channel over the whole row (SPAN: INT64_MAX). */
#define MC_SUMS(NAME, T, V, SACC, QACC, AACC, ABS, CN, SUMF, SQF, ABSF, SPAN_)                     \
    static void NAME(const T *pa, const T *pb, int64_t w, uint32_t want, gip__red *r)              \
    {                                                                                              \
        const int64_t SPAN = SPAN_;                                                                \
        if (want & GIP__RED_SUM)                                                                   \
            MC_PASS(V, CN, SACC, SUMF, (SACC)v);                                                   \
        if (want & GIP__RED_SQ)                                                                    \
            MC_PASS(V, CN, QACC, SQF, (QACC)v *(QACC)v);                                           \
        if (want & GIP__RED_ABS)                                                                   \
            MC_PASS(V, CN, AACC, ABSF, (AACC)ABS(v));                                              \
        if (want & GIP__RED_NZ)                                                                    \
            MC_PASS(V, CN, int32_t, nz, v != 0);                                                   \
    }

/* Extremes of every channel at once in the element type, into each channel's pending run
 * (positions are found once per run, by mc_resolve). */
/* f32 extremes of every channel of an interleaved row: CN vectors of four floats a step (lane i
 * of the step holds channel i % CN), then folded per channel. min_ps(v, lo) is v < lo ? v : lo,
 * skipping NaNs as the scalar rule does. */
static void mc_f32_minmax(const float *a, const float *b, int64_t w, int cn, float *mn, float *mx)
{
    const int64_t n = w * cn;
    int64_t x = 0;
    for (int c = 0; c < cn; c++)
        mn[c] = INFINITY, mx[c] = -INFINITY;
#ifdef RED_X86
    const int64_t step = 4 * (int64_t)cn;
    __m128 lo[4], hi[4];
    for (int k = 0; k < cn; k++)
        lo[k] = _mm_set1_ps(INFINITY), hi[k] = _mm_set1_ps(-INFINITY);
    for (; x + step <= n; x += step)
        for (int k = 0; k < cn; k++) {
            __m128 v = _mm_loadu_ps(a + x + 4 * k);
            if (b)
                v = _mm_sub_ps(v, _mm_loadu_ps(b + x + 4 * k));
            lo[k] = _mm_min_ps(v, lo[k]);
            hi[k] = _mm_max_ps(v, hi[k]);
        }
    float tl[16], th[16];
    for (int k = 0; k < cn; k++)
        _mm_storeu_ps(tl + 4 * k, lo[k]), _mm_storeu_ps(th + 4 * k, hi[k]);
    for (int i = 0; i < step; i++) {
        const int c = i % cn;
        mn[c] = tl[i] < mn[c] ? tl[i] : mn[c];
        mx[c] = th[i] > mx[c] ? th[i] : mx[c];
    }
#endif
    for (; x < n; x++) {
        const int c = (int)(x % cn);
        const float v = f32_at(a, b, x);
        mn[c] = v < mn[c] ? v : mn[c];
        mx[c] = v > mx[c] ? v : mx[c];
    }
}

#define MC_EXT(NAME, T, V, LO, HI, CN, FASTF)                                                      \
    static void NAME(const T *pa, const T *pb, int64_t w, int64_t y, flat_pending *p)              \
    {                                                                                              \
        V mn[CN], mx[CN];                                                                          \
        for (int c = 0; c < CN; c++)                                                               \
            mn[c] = HI, mx[c] = LO;                                                                \
        if (FASTF)                                                                                 \
            mc_f32_minmax((const float *)(const void *)pa, (const float *)(const void *)pb, w, CN, \
                          (float *)(void *)mn, (float *)(void *)mx);                               \
        else                                                                                       \
            for (int64_t x = 0; x < w; x++)                                                        \
                for (int c = 0; c < CN; c++) {                                                     \
                    V v = pb ? (V)((V)pa[x * CN + c] - (V)pb[x * CN + c]) : (V)pa[x * CN + c];     \
                    mn[c] = v < mn[c] ? v : mn[c];                                                 \
                    mx[c] = v > mx[c] ? v : mx[c];                                                 \
                }                                                                                  \
        for (int c = 0; c < CN; c++) {                                                             \
            if (!(mn[c] <= mx[c])) /* nothing but NaNs */                                          \
                continue;                                                                          \
            if (p[c].ymn < 0 || (double)mn[c] < p[c].mn)                                           \
                p[c].mn = (double)mn[c], p[c].ymn = y;                                             \
            if (p[c].ymx < 0 || (double)mx[c] > p[c].mx)                                           \
                p[c].mx = (double)mx[c], p[c].ymx = y;                                             \
        }                                                                                          \
    }

#define MC_ALL(CN)                                                                                 \
    MC_SUMS(mcs_u8_##CN, uint8_t, int32_t, int32_t, uint32_t, uint32_t, U32ABS, CN, is, iq, ia,    \
            FLAT_SPAN)                                                                             \
    MC_SUMS(mcs_u16_##CN, uint16_t, int32_t, int32_t, uint64_t, uint32_t, U32ABS, CN, is, iq, ia,  \
            FLAT_SPAN)                                                                             \
    MC_SUMS(mcs_s16_##CN, int16_t, int32_t, int32_t, uint64_t, uint32_t, U32ABS, CN, is, iq, ia,   \
            FLAT_SPAN)                                                                             \
    MC_SUMS(mcs_f32_##CN, float, float, double, double, double, fabsf, CN, fs, fq, fa, INT64_MAX)  \
    MC_EXT(mce_u8_##CN, uint8_t, int32_t, INT32_MIN, INT32_MAX, CN, 0)                             \
    MC_EXT(mce_u16_##CN, uint16_t, int32_t, INT32_MIN, INT32_MAX, CN, 0)                           \
    MC_EXT(mce_s16_##CN, int16_t, int32_t, INT32_MIN, INT32_MAX, CN, 0)                            \
    MC_EXT(mce_f32_##CN, float, float, -INFINITY, INFINITY, CN, 1)
MC_ALL(2)
MC_ALL(3)
MC_ALL(4)

/* X(N, A) for the dtype DT, N its name (u8, u16, s16 or f32): the dispatch to typed loops. */
#define DT_SWITCH(DT, X, A)                                                                        \
    switch (DT) {                                                                                  \
    case GIP_U8:                                                                                   \
        X(u8, A) break;                                                                            \
    case GIP_U16:                                                                                  \
        X(u16, A) break;                                                                           \
    case GIP_S16:                                                                                  \
        X(s16, A) break;                                                                           \
    default:                                                                                       \
        X(f32, A)                                                                                  \
    }

/* One unmasked row of 2 to 4 channels. */
static void mc_row(const red_job *j, const void *ra, const void *rb, int64_t w, int64_t y,
                   uint32_t want, gip__red *r, flat_pending *p)
{
    const uint32_t sums = want & ~GIP__RED_EXTREMES;
    const bool ext = (want & GIP__RED_EXTREMES) != 0;
#define MC_DT(N, CN)                                                                               \
    if (sums)                                                                                      \
        mcs_##N##_##CN(ra, rb, w, sums, r);                                                        \
    if (ext)                                                                                       \
        mce_##N##_##CN(ra, rb, w, y, p);
    switch (j->a->channels) {
    case 2:
        DT_SWITCH(j->a->dtype, MC_DT, 2)
        break;
    case 3:
        DT_SWITCH(j->a->dtype, MC_DT, 3)
        break;
    default:
        DT_SWITCH(j->a->dtype, MC_DT, 4)
    }
#undef MC_DT
}

/* Element i (pixel * channels + channel) of row y: a, or a - b, as the reduction takes it. */
static double mc_elem(const red_job *j, int64_t y, int64_t i)
{
    const unsigned char *ra = (const unsigned char *)j->a->data + y * j->a->stride;
    const unsigned char *rb = j->b ? (const unsigned char *)j->b->data + y * j->b->stride : NULL;
    switch (j->a->dtype) {
    case GIP_U8:
        return (double)((int32_t)ra[i] - (rb ? (int32_t)rb[i] : 0));
    case GIP_U16:
        return (double)((int32_t)((const uint16_t *)ra)[i] -
                        (rb ? (int32_t)((const uint16_t *)rb)[i] : 0));
    case GIP_S16:
        return (double)((int32_t)((const int16_t *)ra)[i] -
                        (rb ? (int32_t)((const int16_t *)rb)[i] : 0));
    default:
        return rb ? (double)(((const float *)ra)[i] - ((const float *)rb)[i])
                  : (double)((const float *)ra)[i];
    }
}

/* Folds each channel's pending run into r (which holds only earlier rows'): the first position
 * in the run's row, where it improves on r. */
static void mc_resolve(const red_job *j, const flat_pending *p, gip__red *r)
{
    const int32_t cn = j->a->channels;
    const int64_t w = j->a->width;
    for (int32_t c = 0; c < cn; c++) {
        gip__red_ch *ch = &r->ch[c];
        for (int e = 0; e < 2; e++) {
            const int64_t y = e ? p[c].ymx : p[c].ymn;
            const double val = e ? p[c].mx : p[c].mn;
            if (y < 0 ||
                (e ? (ch->imx >= 0 && !(val > ch->mx)) : (ch->imn >= 0 && !(val < ch->mn))))
                continue;
            for (int64_t x = 0; x < w; x++) {
                const double v = mc_elem(j, y, x * cn + c);
                if (v == val) {
                    if (e)
                        ch->mx = v, ch->imx = y * w + x;
                    else
                        ch->mn = v, ch->imn = y * w + x;
                    break;
                }
            }
        }
    }
}

/* Whether every channel's pending run holds the dtype's lowest and highest value. */
static bool mc_saturated(const red_job *j, const flat_pending *p)
{
    for (int32_t c = 0; c < j->a->channels; c++)
        if (p[c].ymn < 0 || p[c].mn != j->lo || p[c].mx != j->hi)
            return false;
    return true;
}

/* One unmasked one-channel row through the flat loops: its sums into ch, its extremes into p. */
#ifdef RED_X86
/* The plain u8 sum with AVX-512: SAD against zero, 256 bytes a step in four accumulators (more
 * loads in flight than the AVX2 body's two). Exact. */
__attribute__((target("avx512f,avx512bw"))) static int64_t u8_sum_avx512(const uint8_t *a,
                                                                         int64_t n)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i s0 = z, s1 = z, s2 = z, s3 = z;
    const int64_t nv = n & ~(int64_t)255;
    for (int64_t x = 0; x < nv; x += 256) {
        s0 = _mm512_add_epi64(s0, _mm512_sad_epu8(_mm512_loadu_si512(a + x), z));
        s1 = _mm512_add_epi64(s1, _mm512_sad_epu8(_mm512_loadu_si512(a + x + 64), z));
        s2 = _mm512_add_epi64(s2, _mm512_sad_epu8(_mm512_loadu_si512(a + x + 128), z));
        s3 = _mm512_add_epi64(s3, _mm512_sad_epu8(_mm512_loadu_si512(a + x + 192), z));
    }
    int64_t s = _mm512_reduce_add_epi64(
        _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
    for (int64_t x = nv; x < n; x++)
        s += a[x];
    return s;
}
#endif

static void flat_row(const red_job *j, const void *ra, const void *rb, int64_t w, int64_t y,
                     gip__red_ch *ch, flat_pending *p, uint32_t want)
{
    uint32_t sums = want & ~GIP__RED_EXTREMES;
    bool ext = (want & GIP__RED_EXTREMES) != 0;
    double mn = 0, mx = 0;
    int got = 0;
#define FLAT_DT(N, SFX)                                                                            \
    if (sums)                                                                                      \
        flat_##N##SFX(ra, rb, w, sums, ch);                                                        \
    if (ext)                                                                                       \
        got = fext_##N##SFX(ra, rb, w, &mn, &mx);
#ifdef RED_X86
    if (j->avx2 && j->a->dtype == GIP_U8) {
        if (j->avx2 > 1 && !rb && (sums & ~(GIP__RED_SUM | GIP__RED_ABS)) == 0 && sums) {
            const int64_t s = u8_sum_avx512((const uint8_t *)ra, w);
            if (sums & GIP__RED_SUM)
                ch->is += s;
            if (sums & GIP__RED_ABS)
                ch->ia += s;
        } else if (sums)
            u8_sums_avx2(ra, rb, w, sums, ch);
        sums = 0;
        if (ext && !rb && w > 0) {
            got = j->avx2 > 1 ? u8_ext_avx512(ra, w, &mn, &mx) : u8_ext_avx2(ra, w, &mn, &mx);
            ext = false;
        }
    }
    if (j->avx2 && sums && j->a->dtype == GIP_F32) {
        if (j->avx2 > 1)
            f32_sums_avx512(ra, rb, w, sums, ch);
        else
            f32_sums_avx2(ra, rb, w, sums, ch);
        sums = 0;
    }
    if (j->avx2 > 1) {
        DT_SWITCH(j->a->dtype, FLAT_DT, _avx512)
    } else if (j->avx2) {
        DT_SWITCH(j->a->dtype, FLAT_DT, _avx2)
    } else
#endif
    {
        DT_SWITCH(j->a->dtype, FLAT_DT, )
    }
#undef FLAT_DT
    if (got) {
        if (p->ymn < 0 || mn < p->mn)
            p->mn = mn, p->ymn = y, p->nmn = w;
        if (p->ymx < 0 || mx > p->mx)
            p->mx = mx, p->ymx = y, p->nmx = w;
    }
}

/* Folds the run's extremes into ch (which holds only earlier rows'): positions where they
 * improve on it. A run of several contiguous rows is searched through each row's extremes
 * (vector loops) for the first row that holds the value, then that row element by element;
 * u8 runs through memchr. */
static void flat_resolve(const red_job *j, const flat_pending *p, gip__red_ch *ch)
{
    const gip_image *a = j->a, *b = j->b;
    const int64_t w = a->width;
    for (int e = 0; e < 2; e++) {
        int64_t y = e ? p->ymx : p->ymn, n = e ? p->nmx : p->nmn;
        const double val = e ? p->mx : p->mn;
        if (y < 0 || (e ? (ch->imx >= 0 && !(val > ch->mx)) : (ch->imn >= 0 && !(val < ch->mn))))
            continue;
        if (a->dtype != GIP_U8 && n > w) {
            const int64_t rs = w * (int64_t)gip_dtype_size(a->dtype);
            for (const int64_t y1 = y + n / w; y + 1 < y1; y++) {
                flat_pending q = {0, 0, -1, -1, 0, 0};
                gip__red_ch unused;
                flat_row(j, (const unsigned char *)a->data + y * rs,
                         b ? (const unsigned char *)b->data + y * rs : NULL, w, y, &unused, &q,
                         GIP__RED_EXTREMES);
                if (q.ymn >= 0 && (e ? q.mx : q.mn) == val)
                    break;
            }
            n = w;
        }
        const void *ra = (const unsigned char *)a->data + y * a->stride;
        const void *rb = b ? (const unsigned char *)b->data + y * b->stride : NULL;
        double v = val;
        int64_t x;
        switch (a->dtype) {
        case GIP_U8:
            x = loc_u8(ra, rb, n, val, &v);
            break;
        case GIP_U16:
            x = loc_u16(ra, rb, n, val, &v);
            break;
        case GIP_S16:
            x = loc_s16(ra, rb, n, val, &v);
            break;
        default:
            x = loc_f32(ra, rb, n, val, &v);
        }
        if (e)
            ch->mx = v, ch->imx = y * w + x;
        else
            ch->mn = v, ch->imn = y * w + x;
    }
}

/* Whether every channel of r holds the dtype's lowest and highest value: no later pixel can
 * replace its extremes or their positions. */
static bool saturated(const red_job *j, const gip__red *r)
{
    for (int32_t c = 0; c < j->a->channels; c++)
        if (r->ch[c].imn < 0 || r->ch[c].mn != j->lo || r->ch[c].mx != j->hi)
            return false;
    return true;
}

/* Rows y0 to y1 of block k into r. With j->saturate (extremes only), stops after the row where
 * every channel reaches the dtype's range, or once an earlier block has (the later rows cannot
 * change the result). */
static void red_rows(red_job *j, int64_t k, int64_t y0, int64_t y1, gip__red *r)
{
    const gip_image *a = j->a, *b = j->b, *m = j->mask;
    const int32_t cn = a->channels;
    const int64_t w = a->width;
    if (!m && cn == 1) {
        flat_pending p = {0, 0, -1, -1, 0, 0};
        const int64_t rs = w * (int64_t)gip_dtype_size(a->dtype);
        if (y1 - y0 > 1 && a->stride == rs && (!b || b->stride == rs)) {
            /* Contiguous rows: the integer sums (exact in any grouping) and the extremes over
             * the run at once (their positions are looked for once per image, flat_resolve);
             * f32 sums row by row, their lanes restarting at each row. */
            const bool f32 = a->dtype == GIP_F32;
            const uint32_t run =
                (f32 ? 0 : j->want & ~GIP__RED_EXTREMES) | (j->want & GIP__RED_EXTREMES);
            const uint32_t rows = j->want & ~run;
            const void *ra = (const unsigned char *)a->data + y0 * a->stride;
            const void *rb = b ? (const unsigned char *)b->data + y0 * b->stride : NULL;
            r->count += (y1 - y0) * w;
            if (run)
                flat_row(j, ra, rb, (y1 - y0) * w, y0, &r->ch[0], &p, run);
            if (rows)
                for (int64_t y = y0; y < y1; y++)
                    flat_row(j, (const unsigned char *)ra + (y - y0) * rs,
                             rb ? (const unsigned char *)rb + (y - y0) * rs : NULL, w, y, &r->ch[0],
                             &p, rows);
            j->pend[4 * k] = p;
            return;
        }
        for (int64_t y = y0; y < y1; y++) {
            const void *ra = (const unsigned char *)a->data + y * a->stride;
            const void *rb = b ? (const unsigned char *)b->data + y * b->stride : NULL;
            r->count += w;
            flat_row(j, ra, rb, w, y, &r->ch[0], &p, j->want);
            if (j->saturate && ((p.ymn >= 0 && p.mn == j->lo && p.mx == j->hi) ||
                                k > __atomic_load_n(&j->stop, __ATOMIC_RELAXED)))
                break;
        }
        j->pend[4 * k] = p;
        return;
    }
    if (!m) {
        flat_pending p[4];
        for (int c = 0; c < 4; c++)
            p[c] = (flat_pending){0, 0, -1, -1, 0, 0};
        uint32_t want = j->want;
#ifdef RED_X86
        const uint32_t c3 = want & (GIP__RED_SUM | GIP__RED_SQ | GIP__RED_ABS);
        if (j->vbmi && cn == 3 && a->dtype == GIP_U8 && !b && c3) {
            /* the sums of the block's rows at once where they are contiguous */
            const int64_t rs = 3 * w;
            const uint8_t *ra = (const uint8_t *)a->data + y0 * a->stride;
            if (a->stride == rs)
                u8c3_sums_vbmi(ra, (y1 - y0) * w, c3, r);
            else
                for (int64_t y = y0; y < y1; y++)
                    u8c3_sums_vbmi(ra + (y - y0) * a->stride, w, c3, r);
            want &= ~c3;
            if (!want) {
                r->count += (y1 - y0) * w;
                return;
            }
        }
#endif
        for (int64_t y = y0; y < y1; y++) {
            if (j->saturate &&
                (mc_saturated(j, p) || k > __atomic_load_n(&j->stop, __ATOMIC_RELAXED)))
                break;
            const void *ra = (const unsigned char *)a->data + y * a->stride;
            const void *rb = b ? (const unsigned char *)b->data + y * b->stride : NULL;
            r->count += w;
            mc_row(j, ra, rb, w, y, want, r, p);
        }
        memcpy(&j->pend[4 * k], p, sizeof p);
        return;
    }
    for (int64_t y = y0; y < y1; y++) {
        if (j->saturate && (saturated(j, r) || k > __atomic_load_n(&j->stop, __ATOMIC_RELAXED)))
            break;
        const void *ra = (const unsigned char *)a->data + y * a->stride;
        const void *rb = b ? (const unsigned char *)b->data + y * b->stride : NULL;
        const unsigned char *rm = m ? (const unsigned char *)m->data + y * m->stride : NULL;
        for (int64_t x = 0; x < w; x++)
            r->count += rm[x] != 0;
        for (int32_t c = 0; c < cn; c++) {
            switch (a->dtype) {
            case GIP_U8:
                row_u8(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
                break;
            case GIP_U16:
                row_u16(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
                break;
            case GIP_S16:
                row_s16(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
                break;
            default:
                row_f32(ra, rb, rm, w, cn, c, y * w, &r->ch[c]);
            }
        }
    }
}

static void red_blocks(void *arg, int64_t b0, int64_t b1)
{
    red_job *j = arg;
    for (int64_t k = b0; k < b1; k++) {
        gip__red *r = &j->parts[k];
        gip__red_init(r);
        if (j->pend)
            for (int c = 0; c < 4; c++)
                j->pend[4 * k + c] = (flat_pending){0, 0, -1, -1, 0, 0};
        if (j->saturate && k > __atomic_load_n(&j->stop, __ATOMIC_RELAXED))
            continue;
        int64_t y0 = k * ROWS_PER_BLOCK, y1 = y0 + ROWS_PER_BLOCK;
        red_rows(j, k, y0, y1 < j->a->height ? y1 : j->a->height, r);
        if (j->saturate && (j->mask ? saturated(j, r) : mc_saturated(j, &j->pend[4 * k]))) {
            int64_t cur = __atomic_load_n(&j->stop, __ATOMIC_RELAXED);
            while (k < cur && !__atomic_compare_exchange_n(&j->stop, &cur, k, false,
                                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
        }
    }
}

gip_status gip__reduce_cpu(gip_context *ctx, const gip_image *a, const gip_image *b,
                           const gip_image *mask, uint32_t want, gip__red *r)
{
    int64_t nb = (a->height + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    red_job j = {.a = a,
                 .b = b,
                 .mask = mask,
                 .want = want,
                 .stop = INT64_MAX,
                 .parts = malloc((size_t)nb * sizeof(gip__red))};
#ifdef RED_X86
    /* GIP_NOSIMD and GIP_NOAVX512 cap the build, so that the tests reach the plainer loops */
    const unsigned v = gip__simd();
    j.avx2 = v & GIP__SIMD_AVX512 ? 2 : v & GIP__SIMD_AVX2 ? 1 : 0;
    j.vbmi = (v & GIP__SIMD_VBMI) && (v & GIP__SIMD_VNNI);
#endif
    if (want == GIP__RED_EXTREMES && !b) {
        j.saturate = 1;
        j.lo = a->dtype == GIP_U8 || a->dtype == GIP_U16 ? 0.0
               : a->dtype == GIP_S16                     ? (double)INT16_MIN
                                                         : -HUGE_VAL;
        j.hi = a->dtype == GIP_U8    ? (double)UINT8_MAX
               : a->dtype == GIP_U16 ? (double)UINT16_MAX
               : a->dtype == GIP_S16 ? (double)INT16_MAX
                                     : HUGE_VAL;
    }
    if (!mask)
        j.pend = malloc((size_t)(nb ? nb : 1) * 4 * sizeof *j.pend);
    if (!j.parts || (!mask && !j.pend)) {
        free(j.parts);
        free(j.pend);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "reduction: out of host memory");
    }
    gip__parallel_for(ctx, nb, 1, red_blocks, &j);
    gip__red_init(r);
    for (int64_t k = 0; k < nb; k++)
        gip__red_combine(r, &j.parts[k], a->channels);
    if (j.pend && (want & GIP__RED_EXTREMES)) {
        /* Unmasked blocks left their extremes' positions unresolved: the first block holding
         * each channel's extreme gives its row, where the position is looked for once. */
        flat_pending best[4];
        for (int32_t c = 0; c < a->channels; c++) {
            best[c] = (flat_pending){0, 0, -1, -1, 0, 0};
            for (int64_t k = 0; k < nb; k++) {
                const flat_pending *q = &j.pend[4 * k + c];
                if (q->ymn >= 0 && (best[c].ymn < 0 || q->mn < best[c].mn))
                    best[c].mn = q->mn, best[c].ymn = q->ymn, best[c].nmn = q->nmn;
                if (q->ymx >= 0 && (best[c].ymx < 0 || q->mx > best[c].mx))
                    best[c].mx = q->mx, best[c].ymx = q->ymx, best[c].nmx = q->nmx;
            }
        }
        if (a->channels == 1)
            flat_resolve(&j, &best[0], &r->ch[0]);
        else
            mc_resolve(&j, best, r);
    }
    free(j.parts);
    free(j.pend);
    return GIP_OK;
}

/* ---- checks and dispatch ---------------------------------------------------------------- */

#define STATS_DTYPES GIP__DT_DEPTHS

gip_status gip__stats_check_mask(gip_context *ctx, const gip_image *mask, const gip_image *src,
                                 const char *op)
{
    if (!mask)
        return GIP_OK;
    gip_status st = gip__image_check_ctx(ctx, mask, op, "mask");
    if (st)
        return st;
    if (mask->dtype != GIP_U8 || mask->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: mask is %d-channel %s; a one-channel u8 mask is accepted", op,
                          (int)mask->channels, gip_dtype_name(mask->dtype));
    if (mask->width != src->width || mask->height != src->height)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: mask is %lldx%lld but src is %lldx%lld; they must be equal", op,
                          (long long)mask->width, (long long)mask->height, (long long)src->width,
                          (long long)src->height);
    if ((mask->memory == GIP_MEM_CUDA) != (src->memory == GIP_MEM_CUDA))
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src and mask must both be on the host or both on the device", op);
    return GIP_OK;
}

/* Checks src (and src2, mask where given) for a reduction named op, and reduces them. one_channel:
 * src must have one channel. */
static gip_status reduce(gip_context *ctx, const char *op, const gip_image *a, const gip_image *b,
                         const gip_image *mask, bool one_channel, uint32_t want, gip__red *r)
{
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if ((st = gip__image_check_ctx(ctx, a, op, b ? "src1" : "src")))
        return st;
    if ((st = gip__check_dtype(ctx, a, STATS_DTYPES, op, b ? "src1" : "src")))
        return st;
    if (a->channels < 1 || a->channels > 4 || (one_channel && a->channels != 1))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: src has %d channels; %s accepted", op,
                          (int)a->channels, one_channel ? "only 1 is" : "1 to 4 are");
    const bool dev = a->memory == GIP_MEM_CUDA;
    if (b) {
        if ((st = gip__image_check_ctx(ctx, b, op, "src2")))
            return st;
        if (b->width != a->width || b->height != a->height || b->channels != a->channels ||
            b->dtype != a->dtype)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: src2 is %lldx%lld %d-channel %s but src1 is %lldx%lld "
                              "%d-channel %s; they must be equal",
                              op, (long long)b->width, (long long)b->height, (int)b->channels,
                              gip_dtype_name(b->dtype), (long long)a->width, (long long)a->height,
                              (int)a->channels, gip_dtype_name(a->dtype));
        if ((b->memory == GIP_MEM_CUDA) != dev)
            return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                              "%s: src1 and src2 must both be on the host or both on the device",
                              op);
    }
    if ((st = gip__stats_check_mask(ctx, mask, a, op)))
        return st;
    if (dev) {
#ifdef GIP_HAVE_CUDA
        if ((st = gip__cuda_enter(ctx)))
            return st;
        return gip__reduce_cuda(ctx, a, b, mask, r);
#else
        return gip__cuda_not_built(ctx, op);
#endif
    }
    return gip__reduce_cpu(ctx, a, b, mask, want, r);
}

static double ch_sum(const gip_image *a, const gip__red_ch *c)
{
    return a->dtype == GIP_F32 ? c->fs : (double)c->is;
}
static double ch_sq(const gip_image *a, const gip__red_ch *c)
{
    return a->dtype == GIP_F32 ? c->fq : (double)c->iq;
}
static double ch_abs(const gip_image *a, const gip__red_ch *c)
{
    return a->dtype == GIP_F32 ? c->fa : (double)c->ia;
}

static gip_status need(gip_context *ctx, const char *op, const void *p, const char *what)
{
    if (!p)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
    return GIP_OK;
}

gip_status gip_min_max_loc(gip_context *ctx, const gip_image *src, const gip_image *mask,
                           double *min_val, double *max_val, int64_t min_loc[2], int64_t max_loc[2])
{
    gip__red r;
    gip_status st = reduce(ctx, "gip_min_max_loc", src, NULL, mask, true, GIP__RED_EXTREMES, &r);
    if (st)
        return st;
    const gip__red_ch *c = &r.ch[0];
    const bool none = c->imn < 0;
    if (min_val)
        *min_val = none ? 0.0 : c->mn;
    if (max_val)
        *max_val = none ? 0.0 : c->mx;
    if (min_loc) {
        min_loc[0] = none ? -1 : c->imn % src->width;
        min_loc[1] = none ? -1 : c->imn / src->width;
    }
    if (max_loc) {
        max_loc[0] = none ? -1 : c->imx % src->width;
        max_loc[1] = none ? -1 : c->imx / src->width;
    }
    return GIP_OK;
}

gip_status gip_channel_min_max(gip_context *ctx, const gip_image *src, const gip_image *mask,
                               double min_val[4], double max_val[4])
{
    static const char op[] = "gip_channel_min_max";
    gip_status st = need(ctx, op, min_val, "min_val");
    if (st || (st = need(ctx, op, max_val, "max_val")))
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, mask, false, GIP__RED_EXTREMES, &r)))
        return st;
    for (int c = 0; c < 4; c++) {
        const bool none = c >= src->channels || r.ch[c].imn < 0;
        min_val[c] = none ? 0.0 : r.ch[c].mn;
        max_val[c] = none ? 0.0 : r.ch[c].mx;
    }
    return GIP_OK;
}

gip_status gip_mean_std_dev(gip_context *ctx, const gip_image *src, const gip_image *mask,
                            double mean[4], double stddev[4])
{
    static const char op[] = "gip_mean_std_dev";
    gip_status st = need(ctx, op, mean, "mean");
    if (st || (st = need(ctx, op, stddev, "stddev")))
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, mask, false, GIP__RED_SUM | GIP__RED_SQ, &r)))
        return st;
    const double scale = r.count ? 1.0 / (double)r.count : 0.0;
    for (int c = 0; c < 4; c++) {
        if (c >= src->channels) {
            mean[c] = stddev[c] = 0.0;
            continue;
        }
        double s = ch_sum(src, &r.ch[c]) * scale;
        double q = ch_sq(src, &r.ch[c]) * scale;
        mean[c] = s;
        stddev[c] = sqrt(fmax(q - s * s, 0.0));
    }
    return GIP_OK;
}

gip_status gip_mean(gip_context *ctx, const gip_image *src, const gip_image *mask, double mean[4])
{
    static const char op[] = "gip_mean";
    gip_status st = need(ctx, op, mean, "mean");
    if (st)
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, mask, false, GIP__RED_SUM, &r)))
        return st;
    const double scale = r.count ? 1.0 / (double)r.count : 0.0; /* OpenCV's rounding */
    for (int c = 0; c < 4; c++)
        mean[c] = c < src->channels ? ch_sum(src, &r.ch[c]) * scale : 0.0;
    return GIP_OK;
}

gip_status gip_sum(gip_context *ctx, const gip_image *src, double sum[4])
{
    static const char op[] = "gip_sum";
    gip_status st = need(ctx, op, sum, "sum");
    if (st)
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, NULL, false, GIP__RED_SUM, &r)))
        return st;
    for (int c = 0; c < 4; c++)
        sum[c] = c < src->channels ? ch_sum(src, &r.ch[c]) : 0.0;
    return GIP_OK;
}

gip_status gip_count_non_zero(gip_context *ctx, const gip_image *src, int64_t *count)
{
    static const char op[] = "gip_count_non_zero";
    gip_status st = need(ctx, op, count, "count");
    if (st)
        return st;
    gip__red r;
    if ((st = reduce(ctx, op, src, NULL, NULL, true, GIP__RED_NZ, &r)))
        return st;
    *count = r.ch[0].nz;
    return GIP_OK;
}

/* The INF, L1 or L2 norm over all channels of a reduction. */
static double norm_of(const gip_image *a, const gip__red *r, int32_t type)
{
    double v = 0.0;
    for (int32_t c = 0; c < a->channels; c++) {
        const gip__red_ch *s = &r->ch[c];
        if (type == GIP_NORM_INF) {
            if (s->imn >= 0)
                v = fmax(v, fmax(fabs(s->mn), fabs(s->mx)));
        } else if (type == GIP_NORM_L1) {
            v += ch_abs(a, s);
        } else {
            v += ch_sq(a, s);
        }
    }
    return type == GIP_NORM_L2 ? sqrt(v) : v;
}

gip_status gip_norm(gip_context *ctx, const gip_image *src1, const gip_image *src2,
                    int32_t norm_type, const gip_image *mask, double *result)
{
    static const char op[] = "gip_norm";
    gip_status st = need(ctx, op, result, "result");
    if (st)
        return st;
    const int32_t type = norm_type & ~GIP_NORM_RELATIVE;
    const bool relative = (norm_type & GIP_NORM_RELATIVE) != 0;
    if (type != GIP_NORM_INF && type != GIP_NORM_L1 && type != GIP_NORM_L2)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: norm type %d is not supported: NORM_INF (1), NORM_L1 (2) or "
                          "NORM_L2 (4) are accepted, or-ed with NORM_RELATIVE (8) when src2 is "
                          "given",
                          op, (int)norm_type);
    if (relative && !src2)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: NORM_RELATIVE needs src2 (the norm is divided by src2's)", op);
    const uint32_t want = type == GIP_NORM_INF  ? GIP__RED_EXTREMES
                          : type == GIP_NORM_L1 ? GIP__RED_ABS
                                                : GIP__RED_SQ;
    gip__red r;
    if ((st = reduce(ctx, op, src1, src2, mask, false, want, &r)))
        return st;
    double v = norm_of(src1, &r, type);
    if (relative) {
        gip__red r2;
        if ((st = reduce(ctx, op, src2, NULL, mask, false, want, &r2)))
            return st;
        v /= norm_of(src2, &r2, type) + DBL_EPSILON;
    }
    *result = v;
    return GIP_OK;
}

gip_status gip_psnr(gip_context *ctx, const gip_image *src1, const gip_image *src2, double r,
                    double *result)
{
    static const char op[] = "gip_psnr";
    gip_status st = need(ctx, op, result, "result");
    if (st || (st = need(ctx, op, src2, "src2")))
        return st;
    if (r == 0.0)
        r = 255.0;
    if (!(r > 0.0) || !isfinite(r))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: R must be a positive finite number (0 means 255), got %g", op, r);
    gip__red red;
    if ((st = reduce(ctx, op, src1, src2, NULL, false, GIP__RED_SQ, &red)))
        return st;
    double sq = 0.0;
    for (int32_t c = 0; c < src1->channels; c++)
        sq += ch_sq(src1, &red.ch[c]);
    double diff = sqrt(sq / ((double)src1->width * (double)src1->height * src1->channels));
    *result = 20.0 * log10(r / (diff + DBL_EPSILON));
    return GIP_OK;
}
