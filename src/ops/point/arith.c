/* SPDX-License-Identifier: MIT */
/* Element-wise arithmetic with a scalar or a second image (gip_arith), addWeighted,
 * convertScaleAbs, LUT and gamma: argument checks and the translation into the point
 * machinery's element functions (pointwise.h); what the registry entries share (arith.h). */
#include <math.h>
#include <string.h>

#include "arith.h"
#include "pointwise.h"

#define DT_ARITH GIP__DT_DEPTHS
#define DT_INT (GIP__DT(GIP_U8) | GIP__DT(GIP_U16) | GIP__DT(GIP_S16))

/* A second image (src2, mask) against src: a well-formed view where src lives, of its size,
 * with the dtype and channels asked (-1: src's). */
static gip_status check_other(gip_context *ctx, const gip_image *src, const gip_image *o,
                              const gip_image *dst, const char *op, const char *what, int dt,
                              int cn, bool may_be_dst)
{
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, o, op, &on_device);
    if (st)
        return st;
    gip_dtype want = dt < 0 ? src->dtype : (gip_dtype)dt;
    int32_t wc = cn < 0 ? src->channels : cn;
    if (o->dtype != want || o->channels != wc)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: %s is %d-channel %s but must be "
                          "%d-channel %s",
                          op, what, (int)o->channels, gip_dtype_name(o->dtype), (int)wc,
                          gip_dtype_name(want));
    if (gip__images_overlap(o, dst) && !(may_be_dst && gip__images_same(o, dst)))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: %s and dst overlap%s", op, what,
                          may_be_dst ? "; pass the same view for in-place, or disjoint images"
                                     : "");
    return GIP_OK;
}

static const gip__pw_op op_codes[] = {
    [GIP_ARITH_ADD] = GIP__OP_ADD,         [GIP_ARITH_SUBTRACT] = GIP__OP_SUB,
    [GIP_ARITH_MULTIPLY] = GIP__OP_MUL,    [GIP_ARITH_DIVIDE] = GIP__OP_DIV,
    [GIP_ARITH_ABSDIFF] = GIP__OP_ABSDIFF, [GIP_ARITH_MIN] = GIP__OP_MIN,
    [GIP_ARITH_MAX] = GIP__OP_MAX,         [GIP_ARITH_AND] = GIP__OP_AND,
    [GIP_ARITH_OR] = GIP__OP_OR,           [GIP_ARITH_XOR] = GIP__OP_XOR,
};

gip_status gip_arith(gip_context *ctx, const gip_image *src, gip_image *dst,
                     const gip_arith_params *params)
{
    static const char op[] = "gip_arith";
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    const gip_arith_params *ap = params;
    if ((int)ap->op < GIP_ARITH_ADD || (int)ap->op > GIP_ARITH_XOR)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: op %d is not a gip_arith_op (GIP_ARITH_ADD 0 .. GIP_ARITH_XOR 9)",
                          op, (int)ap->op);
    const bool bitwise = ap->op >= GIP_ARITH_AND;
    bool on_device = false;
    gip_status st =
        gip__pw_check(ctx, src, dst, op, bitwise ? DT_INT : DT_ARITH, -1, false, true, &on_device);
    if (st)
        return st;
    if (ap->src2 && (st = check_other(ctx, src, ap->src2, dst, op, "src2", -1, -1, true)))
        return st;
    if (ap->mask && (st = check_other(ctx, src, ap->mask, dst, op, "mask", GIP_U8, 1, false)))
        return st;
    const double scale = ap->scaled ? ap->scale : 1.0;
    if (!isfinite(scale))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: scale must be finite", op);
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_ARITH;
    p.sub = op_codes[ap->op];
    p.a = (float)scale;
    const bool ints = src->dtype != GIP_F32;
    if (ap->src2) {
        p.zero_div = ints;
        return gip__pw_run2(ctx, src, ap->src2, ap->mask, dst, &p, on_device);
    }
    bool integral = true;
    for (int c = 0; c < src->channels; c++) {
        double v = ap->value[c];
        if (isnan(v))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: value[%d] is NaN", op, c);
        integral &= v == floor(v);
        /* OpenCV converts the scalar of min, max and the bitwise operations to the dtype. */
        p.v[c] = ap->op >= GIP_ARITH_MIN ? gip__pw_scalar_as(src->dtype, v) : (float)v;
    }
    if (ap->reverse) {
        if (ap->op == GIP_ARITH_SUBTRACT)
            p.sub = GIP__OP_RSUB;
        else if (ap->op == GIP_ARITH_DIVIDE)
            p.sub = GIP__OP_RDIV;
        else
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: reverse is for SUBTRACT and DIVIDE with a scalar", op);
    }
    /* OpenCV 5 multiplies and divides integer images by a scalar in double precision (f32 in
     * single precision). */
    if (ints && (p.sub == GIP__OP_MUL || p.sub == GIP__OP_DIV || p.sub == GIP__OP_RDIV)) {
        p.sub = p.sub == GIP__OP_MUL   ? GIP__OP_MUL_D
                : p.sub == GIP__OP_DIV ? GIP__OP_DIV_D
                                       : GIP__OP_RDIV_D;
        p.da = scale;
        for (int c = 0; c < src->channels; c++)
            p.dv[c] = ap->value[c];
    }
    /* Integer images: x / 0 is 0; scalar / 0 too when the scalar is an integer (OpenCV's integer
     * path), else the IEEE result saturated. */
    p.zero_div = ints && (p.sub == GIP__OP_DIV_D || integral);
    return gip__pw_run(ctx, src, ap->mask, dst, &p, on_device);
}

gip_status gip_add_weighted(gip_context *ctx, const gip_image *src1, double alpha,
                            const gip_image *src2, double beta, double gamma, gip_image *dst)
{
    static const char op[] = "gip_add_weighted";
    bool on_device = false;
    gip_status st = gip__pw_check(ctx, src1, dst, op, DT_ARITH, -1, false, true, &on_device);
    if (st || (st = check_other(ctx, src1, src2, dst, op, "src2", -1, -1, true)))
        return st;
    if (!isfinite(alpha) || !isfinite(beta) || !isfinite(gamma))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: alpha, beta and gamma must be finite",
                          op);
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_ARITH;
    p.sub = GIP__OP_WEIGHTED;
    p.a = (float)alpha, p.b = (float)beta, p.c = (float)gamma;
    return gip__pw_run2(ctx, src1, src2, NULL, dst, &p, on_device);
}

gip_status gip_convert_scale_abs(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 double alpha, double beta)
{
    static const char op[] = "gip_convert_scale_abs";
    bool on_device = false;
    gip_status st =
        gip__pw_check(ctx, src, dst, op, DT_ARITH, GIP_U8, false, src->dtype == GIP_U8, &on_device);
    if (st)
        return st;
    if (!isfinite(alpha) || !isfinite(beta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: alpha and beta must be finite", op);
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_SCALE_ABS;
    p.a = (float)alpha, p.b = (float)beta;
    return gip__pw_run(ctx, src, NULL, dst, &p, on_device);
}

gip_status gip_lut(gip_context *ctx, const gip_image *src, gip_image *dst, const uint8_t *table,
                   int32_t table_channels)
{
    static const char op[] = "gip_lut";
    bool on_device = false;
    gip_status st = gip__pw_check(ctx, src, dst, op, GIP__DT(GIP_U8), -1, false, true, &on_device);
    if (st)
        return st;
    if (!table)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: table is NULL", op);
    if (table_channels != 1 && table_channels != src->channels)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the table has %d channels; 1 or src's %d are accepted", op,
                          (int)table_channels, (int)src->channels);
    gip__pw p;
    memset(&p, 0, sizeof p);
    p.kind = GIP__PW_LUT;
    for (int c = 0; c < src->channels; c++)
        memcpy(p.table[c], table + (table_channels == 1 ? 0 : c * 256), 256);
    return gip__pw_run(ctx, src, NULL, dst, &p, on_device);
}

gip_status gip_gamma(gip_context *ctx, const gip_image *src, gip_image *dst, double gamma)
{
    static const char op[] = "gip_gamma";
    bool on_device = false;
    gip_status st = gip__pw_check(ctx, src, dst, op, GIP__DT(GIP_U8) | GIP__DT(GIP_F32), -1, false,
                                  true, &on_device);
    if (st)
        return st;
    if (!isfinite(gamma) || gamma <= 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: gamma must be a finite number above 0, got %g", op, gamma);
    gip__pw p;
    memset(&p, 0, sizeof p);
    if (src->dtype == GIP_U8) {
        /* The table in double precision: exact rounding, the same on both backends. */
        p.kind = GIP__PW_LUT;
        for (int v = 0; v < 256; v++) {
            double y = 255.0 * pow(v / 255.0, gamma);
            uint8_t b = gip__sat_u8_i32((int32_t)nearbyint(y));
            for (int c = 0; c < src->channels; c++)
                p.table[c][v] = b;
        }
    } else {
        p.kind = GIP__PW_GAMMA;
        p.a = (float)gamma;
        p.b = 1.0f;
    }
    return gip__pw_run(ctx, src, NULL, dst, &p, on_device);
}

/* ---- what the registry entries share ----------------------------------------------------------
 */

const gip_input gip__arith_inputs[2] = {
    {"src2", GIP_INPUT_OPTIONAL | GIP_INPUT_SAME_SIZE | GIP_INPUT_SAME_TYPE, 0, 0,
     "the second operand (src's shape and dtype); without it, value is"},
    {"mask", GIP_INPUT_OPTIONAL | GIP_INPUT_SAME_SIZE, GIP_DTYPE_BIT(GIP_U8), GIP_CHANNELS_BIT(1),
     "u8, one channel: the result is 0 where the mask is 0"},
};

gip_status gip__arith_build(const gip_args *a, gip__arith_step *s, gip_arith_op op)
{
    const gip_op *o = gip_args_op(a);
    s->op = op;
    s->nvalue = gip_args_list(a, "value", s->value, 4);
    /* A value other than the default 0 next to src2 is an error at run time. */
    s->value_set = 0;
    for (int32_t c = 0; c < s->nvalue; c++)
        s->value_set |= s->value[c] != 0;
    if (gip_op_param(o, "scale")) {
        s->scaled = 1;
        s->scale = gip_args_double(a, "scale");
    }
    if (gip_op_param(o, "reverse"))
        s->reverse = (int32_t)gip_args_int(a, "reverse");
    return GIP_OK;
}

gip_status gip__arith_run(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                          gip_image *dst, const void *params)
{
    const gip__arith_step *s = params;
    if (in[0] && (s->value_set || s->reverse))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "the second operand is src2 or value%s, not both",
                          s->reverse ? " with reverse" : "");
    if (!in[0] && s->nvalue != 1 && s->nvalue != src->channels)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "value takes one number or one per channel (%d), got %d",
                          (int)src->channels, (int)s->nvalue);
    gip_arith_params p;
    memset(&p, 0, sizeof p);
    p.op = (gip_arith_op)s->op;
    p.src2 = in[0];
    p.mask = in[1];
    for (int c = 0; c < 4; c++)
        p.value[c] = s->value[s->nvalue == 1 ? 0 : c];
    p.scaled = s->scaled;
    p.scale = s->scale;
    p.reverse = s->reverse;
    return gip_arith(ctx, src, dst, &p);
}
