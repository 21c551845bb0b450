/* SPDX-License-Identifier: MIT */
/* The per-element machinery shared by the point operations (threshold, scalar and two-image
 * arithmetic, convertScaleAbs, LUT, normalize, gamma, inRange, adaptiveThreshold): what each
 * computes for one element, written once for both backends, and the CPU and CUDA loops that apply
 * it. u8 to u8 unary work is a per-channel table built on the host from the same element function,
 * so both backends give the same bytes by construction. */
#ifndef GIP_POINT_POINTWISE_H
#define GIP_POINT_POINTWISE_H

#include <math.h>
#include <stdint.h>

#include "fround.h"
#include "internal.h"
#include "saturate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one element becomes. */
typedef enum gip__pw_kind {
    GIP__PW_THRESH = 0,    /* sub: gip_thresh_type; v: threshold, w: maxval (per channel) */
    GIP__PW_ARITH = 1,     /* sub: gip__pw_op; v: the scalar (per channel); a: scale */
    GIP__PW_SCALE_ABS = 2, /* |fma(x, a, b)| (convertScaleAbs) */
    GIP__PW_GAMMA = 3,     /* range * (x / range) ^ a, range = b */
    GIP__PW_LUT = 4,       /* table (u8 sources only) */
} gip__pw_kind;

/* Arithmetic with a scalar s (per channel) or with a second image's element s. */
typedef enum gip__pw_op {
    GIP__OP_ADD = 0,     /* x + s */
    GIP__OP_SUB = 1,     /* x - s */
    GIP__OP_RSUB = 2,    /* s - x */
    GIP__OP_MUL = 3,     /* (x * scale) * s */
    GIP__OP_DIV = 4,     /* (x * scale) / s; 0 where s is 0 when zero_div */
    GIP__OP_RDIV = 5,    /* (s * scale) / x (cv2.divide(scalar, image)); 0 where x is 0 when
                            zero_div */
    GIP__OP_ABSDIFF = 6, /* |x - s| */
    GIP__OP_MIN = 7,
    GIP__OP_MAX = 8,
    GIP__OP_AND = 9, /* bitwise, on the element's bytes */
    GIP__OP_OR = 10,
    GIP__OP_XOR = 11,
    GIP__OP_WEIGHTED = 12, /* x * a + s * b + c (two images, addWeighted) */
    GIP__OP_ADAPT = 13,    /* adaptiveThreshold: s is the local mean; sub2: binary or inverse;
                              v[0]: -idelta, w[0]: maxval */
    GIP__OP_MUL_D = 14,    /* with a scalar, in double precision as OpenCV: (x * da) * dv */
    GIP__OP_DIV_D = 15,    /* (x * da) / dv */
    GIP__OP_RDIV_D = 16,   /* (dv * da) / x */
    GIP__OP_COUNT = 17
} gip__pw_op;

typedef struct gip__pw {
    int32_t kind, sub;
    float v[4], w[4]; /* per channel */
    float a, b, c;
    double dv[4], da; /* the double-precision scalar operations */
    int32_t inv;      /* GIP__OP_ADAPT: binary inverse */
    int32_t zero_div; /* DIV, RDIV: a zero divisor gives 0 (OpenCV's integer rule), else IEEE */
    uint8_t table[4][256];
} gip__pw;

#if defined(__CUDACC__)
#define GIP__PWF __host__ __device__ __forceinline__
#else
#define GIP__PWF static inline
#endif

/* A scalar as OpenCV converts it to an image's dtype (a Scalar taken to the source's type):
 * clamped to +-1e9, then rounded half to even and saturated for integers; single precision for
 * f32. */
static inline float gip__pw_scalar_as(gip_dtype dt, double v)
{
    float f = (float)(v < -1e9 ? -1e9 : v > 1e9 ? 1e9 : v);
    switch (dt) {
    case GIP_U8:
        return (float)gip__sat_u8_f32(f);
    case GIP_U16:
        return (float)gip__sat_u16_f32(f);
    case GIP_S16:
        return (float)gip__sat_s16_f32(f);
    default:
        return (float)v;
    }
}

GIP__PWF float gip__pw_abs(float x)
{
    return x < 0 ? -x : x;
}

/* Threshold types (gip_thresh_type's values). */
enum { GIP__TH_BINARY = 0, GIP__TH_BINARY_INV, GIP__TH_TRUNC, GIP__TH_TOZERO, GIP__TH_TOZERO_INV };

GIP__PWF float gip__pw_thresh(int type, float x, float t, float m)
{
    switch (type) {
    case GIP__TH_BINARY:
        return x > t ? m : 0.0f;
    case GIP__TH_BINARY_INV:
        return x > t ? 0.0f : m;
    case GIP__TH_TRUNC:
        return x > t ? t : x;
    case GIP__TH_TOZERO:
        return x > t ? x : 0.0f;
    default:
        return x > t ? 0.0f : x;
    }
}

/* Arithmetic in single precision, as OpenCV computes it for u8, u16 and f32 with a scalar and for
 * two images of u8 (the caller saturates). Bitwise operations take integer-valued elements. */
GIP__PWF float gip__pw_arith(int op, float x, float s, float scale, int zero_div)
{
    switch (op) {
    case GIP__OP_ADD:
        return gip__rn_add(x, s);
    case GIP__OP_SUB:
        return gip__rn_add(x, -s);
    case GIP__OP_RSUB:
        return gip__rn_add(s, -x);
    case GIP__OP_MUL:
        return gip__rn_mul(gip__rn_mul(x, scale), s);
    case GIP__OP_DIV:
        return zero_div && s == 0.0f ? 0.0f : gip__rn_div(gip__rn_mul(x, scale), s);
    case GIP__OP_RDIV:
        return zero_div && x == 0.0f ? 0.0f : gip__rn_div(gip__rn_mul(s, scale), x);
    case GIP__OP_ABSDIFF:
        return gip__pw_abs(gip__rn_add(x, -s));
    case GIP__OP_MIN:
        return x < s ? x : s;
    case GIP__OP_MAX:
        return x > s ? x : s;
    case GIP__OP_AND: /* two's complement in 32 bits: u8, u16 and s16 values come back as such */
        return (float)((int32_t)x & (int32_t)s);
    case GIP__OP_OR:
        return (float)((int32_t)x | (int32_t)s);
    default:
        return (float)((int32_t)x ^ (int32_t)s);
    }
}

/* Multiplication and division by a scalar in double precision (OpenCV 5 computes them so). */
GIP__PWF double gip__pw_arith_d(int op, double x, double s, double scale, int zero_div)
{
    if (op == GIP__OP_MUL_D)
        return gip__rn_dmul(gip__rn_dmul(x, scale), s);
    if (op == GIP__OP_DIV_D)
        return zero_div && s == 0.0 ? 0.0 : gip__rn_dmul(x, scale) / s;
    return zero_div && x == 0.0 ? 0.0 : gip__rn_dmul(s, scale) / x;
}

/* The value of a unary point operation for element x of channel c, before the destination's
 * rounding and saturation. */
GIP__PWF double gip__pw_eval(const gip__pw *p, int c, float x)
{
    switch (p->kind) {
    case GIP__PW_THRESH:
        return gip__pw_thresh(p->sub, x, p->v[c], p->w[c]);
    case GIP__PW_ARITH:
        if (p->sub >= GIP__OP_MUL_D)
            return gip__pw_arith_d(p->sub, x, p->dv[c], p->da, p->zero_div);
        return gip__pw_arith(p->sub, x, p->v[c], p->a, p->zero_div);
    case GIP__PW_SCALE_ABS:
        return gip__pw_abs(gip__rn_fma(x, p->a, p->b));
    case GIP__PW_GAMMA:
        return (float)((double)p->b * pow((double)x / (double)p->b, (double)p->a));
    default:
        return x;
    }
}

/* Rounding half to even and saturation of a result (NaN gives 0), as OpenCV's saturate_cast. */
GIP__PWF double gip__pw_clampd(double v, double lo, double hi)
{
    return v != v ? 0.0 : v < lo ? lo : v > hi ? hi : v;
}
GIP__PWF uint8_t gip__pw_u8(double v)
{
    return (uint8_t)gip__round_f64(gip__pw_clampd(v, 0.0, 255.0));
}
GIP__PWF uint16_t gip__pw_u16(double v)
{
    return (uint16_t)gip__round_f64(gip__pw_clampd(v, 0.0, 65535.0));
}
GIP__PWF int16_t gip__pw_s16(double v)
{
    return (int16_t)gip__round_f64(gip__pw_clampd(v, -32768.0, 32767.0));
}

/* The value of a two-image operation for elements x (src) and s (src2) of channel c. addWeighted
 * is fma(x, a, fma(s, b, c)) as OpenCV's vector code computes it. */
GIP__PWF float gip__pw_eval2(const gip__pw *p, float x, float s)
{
    if (p->sub == GIP__OP_WEIGHTED)
        return gip__rn_fma(x, p->a, gip__rn_fma(s, p->b, p->c));
    if (p->sub == GIP__OP_ADAPT) {
        float d = gip__rn_add(x, -s);
        return p->inv ? (d <= p->v[0] ? p->w[0] : 0.0f) : (d > p->v[0] ? p->w[0] : 0.0f);
    }
    return gip__pw_arith(p->sub, x, s, p->a, p->zero_div);
}

/* Runs p from src into dst (same size and channels; dst's dtype may differ: convertScaleAbs).
 * u8 sources into u8 go through p->table, which gip__pw_run fills for the kinds other than LUT.
 * mask (may be NULL): u8 with one channel; elements where it is 0 become 0. Arguments are
 * checked by the caller (sizes, location, aliasing: the same view or disjoint). */
gip_status gip__pw_run(gip_context *ctx, const gip_image *src, const gip_image *mask,
                       gip_image *dst, gip__pw *p, bool on_device);
/* Two-image form: src2 has src's shape and dtype; mask as gip__pw_run's. */
gip_status gip__pw_run2(gip_context *ctx, const gip_image *src, const gip_image *src2,
                        const gip_image *mask, gip_image *dst, const gip__pw *p, bool on_device);
/* inRange: dst (u8, one channel) is 255 where every channel c has lo[c] <= x <= hi[c]. */
gip_status gip__pw_in_range(gip_context *ctx, const gip_image *src, gip_image *dst, const float *lo,
                            const float *hi, bool on_device);

/* The checks of a unary point operation: context and views, same size and location, src's dtype
 * among `dtypes` (GIP__DT bits), dst with src's channels (or one channel when `one_channel`) and
 * dtype `ddt` (-1: src's), and src and dst the same view or disjoint (`in_place`) or disjoint. */
gip_status gip__pw_check(gip_context *ctx, const gip_image *src, const gip_image *dst,
                         const char *op, unsigned dtypes, int ddt, bool one_channel, bool in_place,
                         bool *on_device);

/* `rows` rows of n elements (cn channels interleaved; rows stride bytes apart) of a unary
 * operation without a mask, or a row of a two-image one, through the vectorised chunk loops
 * (pointwise_rows.c); false where the kind has none (tables, gamma), and the caller's element
 * loop runs. stream: a destination too large for the caches, written with streaming stores
 * (fenced before return) where the CPU's vector path runs. */
bool gip__pw_rows_fast(const gip__pw *p, gip_dtype sdt, gip_dtype ddt, int32_t cn, const void *src,
                       int64_t sstride, void *dst, int64_t dstride, int64_t n, int64_t rows,
                       bool stream);
bool gip__pw2_row_fast(const gip__pw *p, gip_dtype sdt, gip_dtype ddt, const void *a,
                       const void *a2, void *dst, int64_t n, bool stream);

/* inRange's row of w pixels of integer elements (false for f32: the element loop runs). */
bool gip__pw_in_range_row_fast(gip_dtype sdt, int32_t cn, const void *src, uint8_t *dst, int64_t w,
                               const float *lo, const float *hi);

/* The backends (arguments checked, tables built). */
void gip__pw_cpu(gip_context *ctx, const gip_image *src, const gip_image *mask, gip_image *dst,
                 const gip__pw *p);
void gip__pw2_cpu(gip_context *ctx, const gip_image *src, const gip_image *src2,
                  const gip_image *mask, gip_image *dst, const gip__pw *p);
void gip__pw_in_range_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const float *lo,
                          const float *hi);
gip_status gip__pw_cuda(gip_context *ctx, const gip_image *src, const gip_image *mask,
                        gip_image *dst, const gip__pw *p);
gip_status gip__pw2_cuda(gip_context *ctx, const gip_image *src, const gip_image *src2,
                         const gip_image *mask, gip_image *dst, const gip__pw *p);
gip_status gip__pw_in_range_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const float *lo, const float *hi);

#ifdef __cplusplus
}
#endif
#endif
