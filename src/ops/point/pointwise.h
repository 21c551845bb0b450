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

#include "internal.h"
#include "saturate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one element becomes. */
typedef enum gip__pw_kind {
    GIP__PW_THRESH = 0,    /* sub: gip_thresh_type; v: threshold, w: maxval (per channel) */
    GIP__PW_ARITH = 1,     /* sub: gip__pw_op; v: the scalar (per channel); a: scale */
    GIP__PW_SCALE_ABS = 2, /* |x * a + b| */
    GIP__PW_AFFINE = 3,    /* x * a + b (convertTo) */
    GIP__PW_GAMMA = 4,     /* range * (x / range) ^ a, range = b */
    GIP__PW_LUT = 5,       /* table (u8 sources only) */
} gip__pw_kind;

/* Arithmetic with a scalar s (per channel) or with a second image's element s. */
typedef enum gip__pw_op {
    GIP__OP_ADD = 0,     /* x + s */
    GIP__OP_SUB = 1,     /* x - s */
    GIP__OP_RSUB = 2,    /* s - x */
    GIP__OP_MUL = 3,     /* (x * scale) * s */
    GIP__OP_DIV = 4,     /* (x * scale) / s, 0 where s is 0 */
    GIP__OP_RDIV = 5,    /* s * scale / x (cv2.divide(scalar, image)): IEEE division */
    GIP__OP_ABSDIFF = 6, /* |x - s| */
    GIP__OP_MIN = 7,
    GIP__OP_MAX = 8,
    GIP__OP_AND = 9, /* bitwise, on the element's bytes */
    GIP__OP_OR = 10,
    GIP__OP_XOR = 11,
    GIP__OP_WEIGHTED = 12, /* x * a + s * b + c (two images, addWeighted) */
    GIP__OP_ADAPT = 13,    /* adaptiveThreshold: s is the local mean; sub2: binary or inverse;
                              v[0]: -idelta, w[0]: maxval */
    GIP__OP_COUNT = 14
} gip__pw_op;

typedef struct gip__pw {
    int32_t kind, sub;
    float v[4], w[4]; /* per channel */
    float a, b, c;
    int32_t inv; /* GIP__OP_ADAPT: binary inverse */
    uint8_t table[4][256];
} gip__pw;

#if defined(__CUDACC__)
#define GIP__PWF __host__ __device__ __forceinline__
#else
#define GIP__PWF static inline
#endif

/* IEEE single-precision operations that nvcc may not contract into FMAs, so that the device
 * computes what the host computes. */
GIP__PWF float gip__pw_mul(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fmul_rn(x, y);
#else
    return x * y;
#endif
}
GIP__PWF float gip__pw_add(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(x, y);
#else
    return x + y;
#endif
}
GIP__PWF float gip__pw_div(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(x, y);
#else
    return x / y;
#endif
}
GIP__PWF float gip__pw_fma(float x, float y, float z)
{
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(x, y, z);
#else
    return fmaf(x, y, z);
#endif
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
GIP__PWF float gip__pw_arith(int op, float x, float s, float scale)
{
    switch (op) {
    case GIP__OP_ADD:
        return gip__pw_add(x, s);
    case GIP__OP_SUB:
        return gip__pw_add(x, -s);
    case GIP__OP_RSUB:
        return gip__pw_add(s, -x);
    case GIP__OP_MUL:
        return gip__pw_mul(gip__pw_mul(x, scale), s);
    case GIP__OP_DIV:
        return s == 0.0f ? 0.0f : gip__pw_div(gip__pw_mul(x, scale), s);
    case GIP__OP_RDIV:
        return gip__pw_div(gip__pw_mul(s, scale), x);
    case GIP__OP_ABSDIFF:
        return gip__pw_abs(gip__pw_add(x, -s));
    case GIP__OP_MIN:
        return x < s ? x : s;
    case GIP__OP_MAX:
        return x > s ? x : s;
    case GIP__OP_AND:
        return (float)((uint32_t)(int32_t)x & (uint32_t)(int32_t)s & 0xFFFFu);
    case GIP__OP_OR:
        return (float)(((uint32_t)(int32_t)x | (uint32_t)(int32_t)s) & 0xFFFFu);
    default:
        return (float)(((uint32_t)(int32_t)x ^ (uint32_t)(int32_t)s) & 0xFFFFu);
    }
}

/* The value of a unary point operation for element x of channel c, before the destination's
 * rounding and saturation. */
GIP__PWF float gip__pw_eval(const gip__pw *p, int c, float x)
{
    switch (p->kind) {
    case GIP__PW_THRESH:
        return gip__pw_thresh(p->sub, x, p->v[c], p->w[c]);
    case GIP__PW_ARITH:
        return gip__pw_arith(p->sub, x, p->v[c], p->a);
    case GIP__PW_SCALE_ABS:
        return gip__pw_abs(gip__pw_add(gip__pw_mul(x, p->a), p->b));
    case GIP__PW_AFFINE:
        return gip__pw_add(gip__pw_mul(x, p->a), p->b);
    case GIP__PW_GAMMA:
        return (float)((double)p->b * pow((double)x / (double)p->b, (double)p->a));
    default:
        return x;
    }
}

/* The value of a two-image operation for elements x (src) and s (src2) of channel c. addWeighted
 * is fma(x, a, fma(s, b, c)) as OpenCV's vector code computes it. */
GIP__PWF float gip__pw_eval2(const gip__pw *p, float x, float s)
{
    if (p->sub == GIP__OP_WEIGHTED)
        return gip__pw_fma(x, p->a, gip__pw_fma(s, p->b, p->c));
    if (p->sub == GIP__OP_ADAPT) {
        float d = gip__pw_add(x, -s);
        return p->inv ? (d <= p->v[0] ? p->w[0] : 0.0f) : (d > p->v[0] ? p->w[0] : 0.0f);
    }
    return gip__pw_arith(p->sub, x, s, p->a);
}

/* Runs p from src into dst (same size and channels; dst's dtype may differ: convertScaleAbs).
 * u8 sources into u8 go through p->table, which gip__pw_run fills for the kinds other than LUT.
 * Arguments are checked by the caller (sizes, location, aliasing: the same view or disjoint). */
gip_status gip__pw_run(gip_context *ctx, const gip_image *src, gip_image *dst, gip__pw *p,
                       bool on_device);
/* Two-image form: src2 has src's shape and dtype; mask (may be NULL) is u8 with one channel
 * (elements where it is 0 keep dst's value). */
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

/* The backends (arguments checked, tables built). */
void gip__pw_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__pw *p);
void gip__pw2_cpu(gip_context *ctx, const gip_image *src, const gip_image *src2,
                  const gip_image *mask, gip_image *dst, const gip__pw *p);
void gip__pw_in_range_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const float *lo,
                          const float *hi);
gip_status gip__pw_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__pw *p);
gip_status gip__pw2_cuda(gip_context *ctx, const gip_image *src, const gip_image *src2,
                         const gip_image *mask, gip_image *dst, const gip__pw *p);
gip_status gip__pw_in_range_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const float *lo, const float *hi);

#ifdef __cplusplus
}
#endif
#endif
