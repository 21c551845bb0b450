/* SPDX-License-Identifier: MIT */
/* normalize (gip_normalize): the reduction on the CPU, the scale and shift as OpenCV computes
 * them, the conversion by gip_convert(), and its registry entry. */
#include <float.h>
#include <stdatomic.h>
#include <math.h>
#include <string.h>

#include "gip/color.h"
#include "gip/point.h"
#include "normalize.h"
#include "ops/op_check.h"
#include "ops/stats/stats.h"
#include "pointwise.h"
#include "registry/registry.h"
#include "tuning.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MM_CLONES
#endif

/* The smallest and largest of n integer elements, into *mn and *mx (which hold the values so far):
 * loops the compiler turns into vector min and max. */
#define MINMAX_ROW(NAME, T)                                                                        \
    MM_CLONES static void NAME(const T *restrict s, int64_t n, int32_t *mn, int32_t *mx)           \
    {                                                                                              \
        T lo = (T)*mn, hi = (T)*mx;                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            lo = s[i] < lo ? s[i] : lo;                                                            \
            hi = s[i] > hi ? s[i] : hi;                                                            \
        }                                                                                          \
        *mn = lo, *mx = hi;                                                                        \
    }
MINMAX_ROW(minmax_u8, uint8_t)
MINMAX_ROW(minmax_u16, uint16_t)
MINMAX_ROW(minmax_s16, int16_t)

/* The same for f32, skipping NaN as the statistics do (v < mn is false for it; x86's min and max
 * return their second operand, the running value, for it); *mn and *mx start at +inf and -inf. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MM_X86 1
__attribute__((target("avx2"))) static void minmax_f32_avx2(const float *s, int64_t n, float *mn,
                                                            float *mx)
{
    __m256 lo = _mm256_set1_ps(*mn), hi = _mm256_set1_ps(*mx), lo2 = lo, hi2 = hi;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(s + i), b = _mm256_loadu_ps(s + i + 8);
        lo = _mm256_min_ps(a, lo), hi = _mm256_max_ps(a, hi);
        lo2 = _mm256_min_ps(b, lo2), hi2 = _mm256_max_ps(b, hi2);
    }
    float l[8], h[8];
    _mm256_storeu_ps(l, _mm256_min_ps(lo, lo2));
    _mm256_storeu_ps(h, _mm256_max_ps(hi, hi2));
    float m0 = *mn, m1 = *mx;
    for (int k = 0; k < 8; k++) {
        m0 = l[k] < m0 ? l[k] : m0;
        m1 = h[k] > m1 ? h[k] : m1;
    }
    for (; i < n; i++) {
        m0 = s[i] < m0 ? s[i] : m0;
        m1 = s[i] > m1 ? s[i] : m1;
    }
    *mn = m0, *mx = m1;
}
#endif

static void minmax_f32(const float *s, int64_t n, float *mn, float *mx)
{
#ifdef MM_X86
    if (gip__simd_avx2_fma()) {
        minmax_f32_avx2(s, n, mn, mx);
        return;
    }
#endif
    float m0 = *mn, m1 = *mx;
    for (int64_t i = 0; i < n; i++) {
        m0 = s[i] < m0 ? s[i] : m0;
        m1 = s[i] > m1 ? s[i] : m1;
    }
    *mn = m0, *mx = m1;
}

enum { MM_BANDS = 64 };

typedef struct minmax_job {
    const gip_image *src;
    int64_t bands;
    int32_t mn[MM_BANDS], mx[MM_BANDS];
    float fmn[MM_BANDS], fmx[MM_BANDS]; /* f32 */
    _Atomic int32_t
        full; /* a band met both ends of the dtype's range: the rest has nothing to add */
} minmax_job;

static void minmax_bands(void *arg, int64_t b0, int64_t b1)
{
    minmax_job *j = arg;
    const gip_image *s = j->src;
    const int64_t n = s->width * s->channels;
    const int32_t lo = s->dtype == GIP_S16 ? -32768 : 0;
    const int32_t hi = s->dtype == GIP_U8 ? 255 : s->dtype == GIP_U16 ? 65535 : 32767;
    for (int64_t b = b0; b < b1; b++) {
        const int64_t y0 = s->height * b / j->bands, y1 = s->height * (b + 1) / j->bands;
        if (s->dtype == GIP_F32) {
            float fmn = INFINITY, fmx = -INFINITY;
            for (int64_t y = y0; y < y1; y++)
                minmax_f32((const float *)((const char *)s->data + y * s->stride), n, &fmn, &fmx);
            j->fmn[b] = fmn, j->fmx[b] = fmx;
            continue;
        }
        int32_t mn = hi, mx = lo;
        for (int64_t y = y0; y < y1 && !atomic_load_explicit(&j->full, memory_order_relaxed); y++) {
            const void *r = (const char *)s->data + y * s->stride;
            if (s->dtype == GIP_U8)
                minmax_u8(r, n, &mn, &mx);
            else if (s->dtype == GIP_U16)
                minmax_u16(r, n, &mn, &mx);
            else
                minmax_s16(r, n, &mn, &mx);
            if (mn == lo && mx == hi) /* as IPP's min and max: nothing can widen the range */
                atomic_store_explicit(&j->full, 1, memory_order_relaxed);
        }
        j->mn[b] = mn, j->mx[b] = mx;
    }
}

/* min and max over every element of an image without a mask, all channels together (what
 * NORM_MINMAX and NORM_INF read): one pass of vector min and max instead of the statistics'
 * per-channel sums, which for integers stops where a row range has met both ends of the dtype's
 * range. */
static void minmax_cpu(gip_context *ctx, const gip_image *src, gip__reduce *r)
{
    minmax_job j;
    j.src = src;
    atomic_init(&j.full, 0);
    j.bands = src->height < MM_BANDS ? src->height : MM_BANDS;
    gip__parallel_for(ctx, j.bands, 1, minmax_bands, &j);
    if (src->dtype == GIP_F32) { /* all NaN: +inf above -inf, no element (as the statistics) */
        float mn = INFINITY, mx = -INFINITY;
        for (int64_t b = 0; b < j.bands; b++) {
            mn = j.fmn[b] < mn ? j.fmn[b] : mn;
            mx = j.fmx[b] > mx ? j.fmx[b] : mx;
        }
        r->min = mn > mx ? DBL_MAX : mn, r->max = mn > mx ? -DBL_MAX : mx, r->l1 = 0, r->l2 = 0;
        return;
    }
    int32_t mn = j.mn[0], mx = j.mx[0];
    /* bands cut short keep what they saw; one band reached both ends, so the result is exact */
    for (int64_t b = 1; b < j.bands; b++) {
        mn = j.mn[b] < mn ? j.mn[b] : mn;
        mx = j.mx[b] > mx ? j.mx[b] : mx;
    }
    r->min = mn, r->max = mx, r->l1 = 0, r->l2 = 0;
}

/* min, max, sum of |x| and sum of x^2 over every element where mask is not 0, through the
 * statistics family's per-channel reduction (exact integer sums, double for f32). */
static gip_status reduce_cpu(gip_context *ctx, const gip_image *src, const gip_image *mask,
                             gip__reduce *r)
{
    gip__red red;
    gip_status st =
        gip__reduce_cpu(ctx, src, NULL, mask, GIP__RED_EXTREMES | GIP__RED_SQ | GIP__RED_ABS, &red);
    if (st)
        return st;
    r->min = DBL_MAX, r->max = -DBL_MAX, r->l1 = 0, r->l2 = 0;
    for (int32_t c = 0; c < src->channels; c++) {
        const gip__red_ch *ch = &red.ch[c];
        if (ch->imn >= 0 && ch->mn < r->min)
            r->min = ch->mn;
        if (ch->imx >= 0 && ch->mx > r->max)
            r->max = ch->mx;
        r->l1 += src->dtype == GIP_F32 ? ch->fa : (double)ch->ia;
        r->l2 += src->dtype == GIP_F32 ? ch->fq : (double)ch->iq;
    }
    return GIP_OK;
}

/* dst = src * scale + shift as gip_convert() computes it; u8 into u8 on the CPU through a table
 * of convert's own arithmetic (fmaf of the single-precision scale and shift, rounded half to even
 * and saturated; a copy where OpenCV's noScale holds), which the point operations' table pass
 * runs 64 elements an instruction. */
static gip_status convert(gip_context *ctx, const gip_image *src, gip_image *dst, double scale,
                          double shift, bool on_device)
{
    if (on_device || src->dtype != GIP_U8 || dst->dtype != GIP_U8 || fabs(scale) > FLT_MAX ||
        fabs(shift) > FLT_MAX)
        return gip_convert(ctx, src, dst, scale, shift);
    const bool plain = fabs(scale - 1.0) < DBL_EPSILON && fabs(shift) < DBL_EPSILON;
    if (plain && gip__images_same(src, dst))
        return GIP_OK;
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_LUT;
    const float a = (float)scale, b = (float)shift;
    for (int32_t v = 0; v < 256; v++)
        p.table[0][v] = plain ? (uint8_t)v : gip__pw_u8(fmaf((float)v, a, b));
    for (int32_t c = 1; c < src->channels; c++)
        memcpy(p.table[c], p.table[0], 256);
    return gip__pw_run(ctx, src, NULL, dst, &p, false);
}

gip_status gip_normalize(gip_context *ctx, const gip_image *src, gip_image *dst, double alpha,
                         double beta, gip_norm_type norm, const gip_image *mask)
{
    static const char op[] = "gip_normalize";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    const unsigned dts = GIP__DT_DEPTHS;
    if ((st = gip__check_dtype(ctx, src, dts, op, "src")) ||
        (st = gip__check_dtype(ctx, dst, dts, op, "dst")))
        return st;
    if (dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH, "%s: dst has %d channels, src %d", op,
                          (int)dst->channels, (int)src->channels);
    if (norm != GIP_NORM_INF && norm != GIP_NORM_L1 && norm != GIP_NORM_L2 &&
        norm != GIP_NORM_MINMAX)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: norm %d: GIP_NORM_INF (1), GIP_NORM_L1 (2), GIP_NORM_L2 (4) or "
                          "GIP_NORM_MINMAX (32)",
                          op, (int)norm);
    if (!isfinite(alpha) || !isfinite(beta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: alpha and beta must be finite", op);
    if (gip__images_overlap(src, dst) && !gip__images_same(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    if (mask) {
        bool md = false;
        if ((st = gip__check_unary(ctx, src, mask, op, &md)))
            return st;
        if (mask->dtype != GIP_U8 || mask->channels != 1)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: mask is %d-channel %s but must be 1-channel u8", op,
                              (int)mask->channels, gip_dtype_name(mask->dtype));
        if (gip__images_overlap(mask, dst))
            return gip__error(ctx, GIP_ERR_ALIASING, "%s: mask and dst overlap", op);
    }
    gip__reduce r;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        if ((st = gip__normalize_reduce_cuda(ctx, src, mask, &r)))
            return st;
#else
        return gip__cuda_not_built(ctx, op);
#endif
    } else if (!mask && src->width > 0 && src->height > 0 &&
               (norm == GIP_NORM_MINMAX || norm == GIP_NORM_INF)) {
        minmax_cpu(ctx, src, &r);
    } else if ((st = reduce_cpu(ctx, src, mask, &r))) {
        return st;
    }
    double scale, shift;
    if (r.min > r.max) { /* no pixel under the mask */
        scale = 0;
        shift = norm == GIP_NORM_MINMAX ? fmin(alpha, beta) : 0;
    } else if (norm == GIP_NORM_MINMAX) {
        /* OpenCV: the range of the source onto [min(a, b), max(a, b)]. */
        double dmin = fmin(alpha, beta), dmax = fmax(alpha, beta);
        scale = (dmax - dmin) * (r.max - r.min > DBL_EPSILON ? 1.0 / (r.max - r.min) : 0);
        shift = dmin - r.min * scale;
    } else {
        double n = norm == GIP_NORM_INF  ? fmax(fabs(r.min), fabs(r.max))
                   : norm == GIP_NORM_L1 ? r.l1
                                         : sqrt(r.l2);
        scale = n > DBL_EPSILON ? alpha / n : 0.0;
        shift = 0;
    }
    if ((st = convert(ctx, src, dst, scale, shift, on_device)) || !mask)
        return st;
    /* Zero where the mask is 0: dst + 0 under the mask, in place. */
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_ARITH;
    p.sub = GIP__OP_ADD;
    return gip__pw_run(ctx, dst, mask, dst, &p, on_device);
}

static const gip_choice norms[] = {{"minmax", GIP_NORM_MINMAX},
                                   {"inf", GIP_NORM_INF},
                                   {"l1", GIP_NORM_L1},
                                   {"l2", GIP_NORM_L2},
                                   {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM("alpha", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "1",
               "minmax: one end of the range; inf, l1, l2: the norm of the result"),
    GIP__PARAM("beta", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "0",
               "minmax: the other end of the range"),
    GIP__PARAM("norm", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, norms, "minmax",
               "cv2.NORM_MINMAX, NORM_INF, NORM_L1 or NORM_L2"),
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__ddepth_choices, "same",
               "the result's dtype"),
};

static const gip_input inputs[] = {
    {"mask", GIP_INPUT_OPTIONAL | GIP_INPUT_SAME_SIZE, GIP_DTYPE_BIT(GIP_U8), GIP_CHANNELS_BIT(1),
     "u8, one channel: only these pixels count, and the result is 0 elsewhere"},
};

typedef struct normalize_step {
    double alpha, beta;
    int32_t norm, dtype;
} normalize_step;

static gip_status build(const gip_args *a, void *out)
{
    normalize_step *s = out;
    s->alpha = gip_args_double(a, "alpha");
    s->beta = gip_args_double(a, "beta");
    s->norm = (int32_t)gip_args_int(a, "norm");
    s->dtype = (int32_t)gip_args_int(a, "dtype");
    return GIP_OK;
}

static gip_status run_inputs(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                             gip_image *dst, const void *p)
{
    const normalize_step *s = p;
    return gip_normalize(ctx, src, dst, s->alpha, s->beta, (gip_norm_type)s->norm, in[0]);
}

const gip_op gip__op_normalize = {
    .name = "normalize",
    .family = "point",
    .summary = "Scales to a range or a norm, as cv2.normalize.",
    .doc = "minmax maps [min, max] of the image onto [min(alpha, beta), max(alpha, beta)]; inf, "
           "l1 and l2 scale it so that its norm is alpha. The scale and shift are OpenCV's (in "
           "double precision), applied as convert applies them (single precision, rounded half "
           "to even). With a mask, only its pixels count and the result is 0 elsewhere.",
    .cv_name = "cv2.normalize",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE | GIP_OP_IN_PLACE,
    .params_size = sizeof(normalize_step),
    .build = build,
    .dtype_at = GIP_OP_AT(normalize_step, dtype),
    GIP__INPUTS(inputs),
    .run_inputs = run_inputs,
};
