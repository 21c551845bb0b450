/* SPDX-License-Identifier: MIT */
/* Lookups in the table of registered operations and the calls every consumer shares: build an
 * operation's typed parameters from its arguments, its output shape and halo, and running it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "registry/registry.h"

const gip_choice gip__dtype_choices[] = {
    {"u8", GIP_U8}, {"u16", GIP_U16}, {"s16", GIP_S16}, {"f32", GIP_F32}, {NULL, 0}};

const gip_choice gip__ddepth_choices[] = {{"same", -1},     {"u8", GIP_U8},   {"u16", GIP_U16},
                                          {"s16", GIP_S16}, {"f32", GIP_F32}, {NULL, 0}};

const gip_choice gip__method_choices[] = {
    {"auto", GIP_CONV_AUTO}, {"direct", GIP_CONV_DIRECT}, {"fft", GIP_CONV_FFT}, {NULL, 0}};

const gip_choice gip__border_choices[] = {{"reflect101", GIP_BORDER_REFLECT_101},
                                          {"reflect", GIP_BORDER_REFLECT},
                                          {"replicate", GIP_BORDER_REPLICATE},
                                          {"constant", GIP_BORDER_CONSTANT},
                                          {"wrap", GIP_BORDER_WRAP},
                                          {NULL, 0}};

int32_t gip_op_count(void)
{
    return gip__nops;
}

const gip_op *gip_op_at(int32_t i)
{
    return i >= 0 && i < gip__nops ? gip__ops[i] : NULL;
}

const gip_op *gip_op_find(const char *name)
{
    if (name)
        for (int32_t i = 0; i < gip__nops; i++)
            if (strcmp(gip__ops[i]->name, name) == 0)
                return gip__ops[i];
    char known[1024];
    size_t len = 0;
    known[0] = '\0';
    for (int32_t i = 0; i < gip__nops && len < sizeof known; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                gip__ops[i]->name);
    gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "no operation '%s'; the operations are: %s",
               name ? name : "(null)", known);
    return NULL;
}

const gip_param *gip_op_param(const gip_op *op, const char *name)
{
    if (op && name)
        for (int32_t i = 0; i < op->nparams; i++)
            if (strcmp(op->params[i].name, name) == 0)
                return &op->params[i];
    return NULL;
}

int32_t gip_op_accepts(const gip_op *op, gip_dtype dtype, int32_t channels)
{
    return op && (unsigned)dtype < 32 && channels > 0 && channels < 32 &&
           (op->dtypes & GIP_DTYPE_BIT(dtype)) && (op->channels & GIP_CHANNELS_BIT(channels));
}

gip_status gip__args_border(const gip_args *args, gip_border_spec *b)
{
    memset(b, 0, sizeof *b);
    b->mode = (gip_border)gip_args_int(args, "border");
    double v[4];
    int32_t n = gip_args_list(args, "border_value", v, 4);
    if (gip_args_is_set(args, "border_value") && b->mode != GIP_BORDER_CONSTANT)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: border_value needs border=constant",
                          gip_args_op(args)->name);
    for (int c = 0; c < 4; c++)
        b->value[c] = (float)v[n <= 1 ? 0 : c < n ? c : n - 1];
    return GIP_OK;
}

gip_status gip__args_anchor(const gip_args *args, int32_t kw, int32_t kh, int32_t *has, int32_t *x,
                            int32_t *y)
{
    const char *name = gip_args_op(args)->name;
    double an[2] = {-1, -1};
    if (gip_args_list(args, "anchor", an, 2) == 1)
        an[1] = an[0];
    *has = *x = *y = 0;
    if ((an[0] < 0) != (an[1] < 0) || an[0] != (int32_t)an[0] || an[1] != (int32_t)an[1])
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: anchor must be two whole numbers X,Y inside the %dx%d window, or -1",
                          name, (int)kw, (int)kh);
    if (an[0] < 0)
        return GIP_OK;
    if (an[0] >= kw || an[1] >= kh)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: anchor %d,%d is outside the %dx%d window", name, (int)an[0],
                          (int)an[1], (int)kw, (int)kh);
    *has = 1;
    *x = (int32_t)an[0];
    *y = (int32_t)an[1];
    return GIP_OK;
}

int64_t gip__window_reach(int32_t k, int32_t has, int32_t anchor)
{
    int64_t a = has ? anchor : k / 2;
    return a > k - 1 - a ? a : k - 1 - a;
}

gip_status gip__op_build(const gip_args *args, void *params)
{
    const gip_op *op = gip_args_op(args);
    gip_status st = gip__args_check_required(args);
    if (st)
        return st;
    memset(params, 0, op->params_size);
    return op->build(args, params);
}

gip_status gip__op_refuse_input(gip_context *ctx, const gip_op *op, gip_dtype dt, int32_t c,
                                const char *who)
{
    char dts[80] = "", chs[40] = "";
    size_t len = 0;
    for (int d = 0; d < 8; d++)
        if (op->dtypes & GIP_DTYPE_BIT(d))
            len += (size_t)snprintf(dts + len, sizeof dts - len, "%s%s", len ? ", " : "",
                                    gip_dtype_name((gip_dtype)d));
    len = 0;
    for (int k = 1; k < 8; k++)
        if (op->channels & GIP_CHANNELS_BIT(k))
            len += (size_t)snprintf(chs + len, sizeof chs - len, "%s%d", len ? ", " : "", k);
    return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                      "%s: input %s with %d channel%s is not accepted (dtypes %s; channels %s)",
                      who ? who : op->name, gip_dtype_name(dt), (int)c, c == 1 ? "" : "s", dts,
                      chs);
}

static gip_status refuse_input(const gip_op *op, gip_dtype dt, int32_t c)
{
    return gip__op_refuse_input(NULL, op, dt, c, NULL);
}

gip_status gip_op_output_shape(const gip_args *args, const gip_shape *in, gip_shape *out)
{
    if (!args || !in || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_op_output_shape: %s is NULL",
                          !args ? "args"
                          : !in ? "in"
                                : "out");
    const gip_op *op = gip_args_op(args);
    if (!gip_op_accepts(op, in->dtype, in->channels))
        return refuse_input(op, in->dtype, in->channels);
    void *params = calloc(1, op->params_size ? op->params_size : 1);
    if (!params)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op->name);
    gip_status st = gip__op_build(args, params);
    *out = *in;
    if (!st && op->shape) {
        int32_t identity = 0;
        st = op->shape(params, in, out, &identity);
    }
    if (op->release)
        op->release(params);
    free(params);
    return st;
}

gip_status gip_op_halo(const gip_args *args, int64_t *hx, int64_t *hy)
{
    if (!args || !hx || !hy)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_op_halo: %s is NULL",
                          !args ? "args" : "halo_x or halo_y");
    const gip_op *op = gip_args_op(args);
    *hx = *hy = 0;
    if (op->flags & GIP_OP_WHOLE) {
        *hx = *hy = -1;
        return GIP_OK;
    }
    if (!op->halo)
        return GIP_OK;
    void *params = calloc(1, op->params_size ? op->params_size : 1);
    if (!params)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op->name);
    gip_status st = gip__op_build(args, params);
    if (!st)
        op->halo(params, hx, hy);
    if (op->release)
        op->release(params);
    free(params);
    return st;
}

/* Puts the thread's message (raised without a context) on ctx too. */
static gip_status on_ctx(gip_context *ctx, gip_status st)
{
    char msg[GIP__MSG_SIZE];
    snprintf(msg, sizeof msg, "%s", gip_last_error());
    return gip__error(ctx, st, "%s", msg);
}

gip_status gip_op_apply(gip_context *ctx, const gip_args *args, const gip_image *src,
                        gip_image *dst)
{
    if (!ctx || !args || !src || !dst)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "gip_op_apply: %s is NULL",
                          !ctx    ? "ctx"
                          : !args ? "args"
                          : !src  ? "src"
                                  : "dst");
    const gip_op *op = gip_args_op(args);
    if (!gip_op_accepts(op, src->dtype, src->channels))
        return on_ctx(ctx, refuse_input(op, src->dtype, src->channels));
    void *params = calloc(1, op->params_size ? op->params_size : 1);
    if (!params)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op->name);
    gip_status st = gip__op_build(args, params);
    if (st)
        st = on_ctx(ctx, st);
    else
        st = op->run(ctx, src, dst, params);
    if (op->release)
        op->release(params);
    free(params);
    return st;
}
