/* SPDX-License-Identifier: MIT */
/* Lookups in the table of registered operations and the calls every consumer shares: build an
 * operation's typed parameters from its arguments, its output shape and halo, and running it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gip/io.h"
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

gip_status gip__shape_u8c1(const void *params, const gip_shape *in, gip_shape *out,
                           int32_t *identity)
{
    (void)params;
    (void)in;
    (void)identity;
    out->channels = 1;
    out->dtype = GIP_U8;
    return GIP_OK;
}

int32_t gip__op_border(const gip_op *op, const void *params)
{
    if (op->border)
        return op->border(params);
    if (op->border_at)
        return (int32_t)((const gip_border_spec *)((const char *)params + op->border_at - 1))->mode;
    return -1;
}

gip_status gip__op_shape(const gip_op *op, const void *params, const gip_shape *in, gip_shape *out,
                         int32_t *identity)
{
    *out = *in;
    *identity = 0;
    if (op->shape)
        return op->shape(params, in, out, identity);
    if (op->dtype_at) {
        int32_t dt;
        memcpy(&dt, (const char *)params + op->dtype_at - 1, sizeof dt);
        if (dt >= 0)
            out->dtype = (gip_dtype)dt;
    }
    return GIP_OK;
}

gip_status gip__op_refuse_input(gip_context *ctx, const gip_op *op, gip_dtype dt, int32_t c,
                                const char *who)
{
    char dts[80] = "", chs[40] = "";
    size_t len = 0;
    for (int d = GIP_U8; d <= GIP_C32; d++) /* the dtypes there are, whatever other bits say */
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
    if (!st) {
        int32_t identity = 0;
        st = gip__op_shape(op, params, in, out, &identity);
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

int32_t gip__op_load_reduce(const gip_op *op, const void *params, const gip_image_info *info,
                            int32_t ignore_orientation)
{
    if (!op || !op->load_reduce || !info || info->format != GIP_FORMAT_JPEG || info->bit_depth != 8)
        return 1;
    int turned = !ignore_orientation && info->orientation >= 5 && info->orientation <= 8;
    int32_t n = op->load_reduce(params, turned ? info->height : info->width,
                                turned ? info->width : info->height);
    return n == 2 || n == 4 || n == 8 ? n : 1;
}

int32_t gip_op_load_reduce(const gip_args *args, const gip_image_info *info,
                           int32_t ignore_orientation)
{
    const gip_op *op = args ? gip_args_op(args) : NULL;
    if (!op || !op->load_reduce || !info)
        return 1;
    void *params = calloc(1, op->params_size ? op->params_size : 1);
    if (!params)
        return 1;
    int32_t n = 1;
    if (gip__op_build(args, params) == GIP_OK)
        n = gip__op_load_reduce(op, params, info, ignore_orientation);
    if (op->release)
        op->release(params);
    gip_clear_error();
    free(params);
    return n;
}

/* Puts the thread's message (raised without a context) on ctx too. */
static gip_status on_ctx(gip_context *ctx, gip_status st)
{
    char msg[GIP__MSG_SIZE];
    snprintf(msg, sizeof msg, "%s", gip_last_error());
    return gip__error(ctx, st, "%s", msg);
}

const gip_input *gip_op_input(const gip_op *op, const char *name, int32_t *index)
{
    if (op && name)
        for (int32_t i = 0; i < op->ninputs; i++)
            if (strcmp(op->inputs[i].name, name) == 0) {
                if (index)
                    *index = i;
                return &op->inputs[i];
            }
    return NULL;
}

/* An extra input against its declaration and src: present unless optional, its size, dtype,
 * channels, and in src's memory. */
static gip_status check_input(gip_context *ctx, const gip_op *op, const gip_input *in,
                              const gip_image *img, const gip_image *src)
{
    if (!img) {
        if (in->flags & GIP_INPUT_OPTIONAL)
            return GIP_OK;
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: input %s is required (%s)", op->name,
                          in->name, in->doc);
    }
    gip_status st = gip__image_check_ctx(ctx, img, op->name, in->name);
    if (st)
        return st;
    if ((img->memory == GIP_MEM_CUDA) != (src->memory == GIP_MEM_CUDA))
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src is in %s memory and %s in %s memory; both must be on the host "
                          "or both on the device",
                          op->name, src->memory == GIP_MEM_CUDA ? "device" : "host", in->name,
                          img->memory == GIP_MEM_CUDA ? "device" : "host");
    if ((in->flags & GIP_INPUT_SAME_SIZE) &&
        (img->width != src->width || img->height != src->height))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src is %lldx%lld but %s is %lldx%lld; they must be equal", op->name,
                          (long long)src->width, (long long)src->height, in->name,
                          (long long)img->width, (long long)img->height);
    if ((in->flags & GIP_INPUT_SAME_TYPE) &&
        (img->dtype != src->dtype || img->channels != src->channels))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src is %d-channel %s but %s is %d-channel %s; they must be equal",
                          op->name, (int)src->channels, gip_dtype_name(src->dtype), in->name,
                          (int)img->channels, gip_dtype_name(img->dtype));
    if (!(in->flags & GIP_INPUT_SAME_TYPE) &&
        ((in->dtypes &&
          ((unsigned)img->dtype >= 32 || !(in->dtypes & GIP_DTYPE_BIT(img->dtype)))) ||
         (in->channels && (img->channels <= 0 || img->channels >= 32 ||
                           !(in->channels & GIP_CHANNELS_BIT(img->channels)))))) {
        char who[96];
        snprintf(who, sizeof who, "%s (%s)", op->name, in->name);
        gip_op decl = *op;
        decl.dtypes = in->dtypes ? in->dtypes : ~0u;
        decl.channels = in->channels ? in->channels : ~0u;
        return gip__op_refuse_input(ctx, &decl, img->dtype, img->channels, who);
    }
    return GIP_OK;
}

gip_status gip_op_apply_inputs(gip_context *ctx, const gip_args *args, const gip_image *src,
                               const gip_image *const *inputs, int32_t ninputs, gip_image *dst)
{
    if (!ctx || !args || !src || !dst)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "gip_op_apply: %s is NULL",
                          !ctx    ? "ctx"
                          : !args ? "args"
                          : !src  ? "src"
                                  : "dst");
    const gip_op *op = gip_args_op(args);
    if (ninputs != 0 && ninputs != op->ninputs)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %d extra input%s given but it reads %d", op->name, (int)ninputs,
                          ninputs == 1 ? "" : "s", (int)op->ninputs);
    if (ninputs && !inputs)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "gip_op_apply_inputs: inputs is NULL");
    if (!gip_op_accepts(op, src->dtype, src->channels))
        return on_ctx(ctx, refuse_input(op, src->dtype, src->channels));
    const gip_image *given[8] = {NULL};
    if (op->ninputs > (int32_t)(sizeof given / sizeof given[0]))
        return gip__error(ctx, GIP_ERR_INTERNAL, "%s: too many inputs declared", op->name);
    for (int32_t i = 0; i < op->ninputs; i++) {
        given[i] = ninputs ? inputs[i] : NULL;
        gip_status st = check_input(ctx, op, &op->inputs[i], given[i], src);
        if (st)
            return st;
    }
    void *params = calloc(1, op->params_size ? op->params_size : 1);
    if (!params)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op->name);
    gip_status st = gip__op_build(args, params);
    if (st)
        st = on_ctx(ctx, st);
#ifdef GIP_HAVE_CUDA
    else if (gip_context_backend(ctx) == GIP_BACKEND_CUDA && gip_image_on_host(src))
        st = gip__op_apply_host(ctx, op, params, src, given, dst);
#endif
    else if (op->run_inputs)
        st = op->run_inputs(ctx, src, given, dst, params);
    else
        st = op->run(ctx, src, dst, params);
    if (op->release)
        op->release(params);
    free(params);
    return st;
}

gip_status gip_op_apply(gip_context *ctx, const gip_args *args, const gip_image *src,
                        gip_image *dst)
{
    return gip_op_apply_inputs(ctx, args, src, NULL, 0, dst);
}

/* The built parameters of args for a band call: op must cut row bands and accept `in`. */
static gip_status band_params(const gip_args *args, const gip_shape *in, void **params,
                              const char *who)
{
    const gip_op *op = gip_args_op(args);
    if (!op->band_rows || !op->run_band)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: %s is not cut in row bands (only steps that change the image "
                          "size and declare it are: resize, thumbnail)",
                          who, op->name);
    if (!gip_op_accepts(op, in->dtype, in->channels))
        return refuse_input(op, in->dtype, in->channels);
    if (in->width < 1 || in->height < 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: the image is %lldx%lld", who,
                          (long long)in->width, (long long)in->height);
    if (!(*params = calloc(1, op->params_size ? op->params_size : 1)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    gip_status st = gip__op_build(args, *params);
    if (st) {
        if (op->release)
            op->release(*params);
        free(*params);
        *params = NULL;
    }
    return st;
}

gip_status gip_op_band_rows(const gip_args *args, const gip_shape *in, int64_t y0, int64_t y1,
                            int64_t *s0, int64_t *s1)
{
    static const char who[] = "gip_op_band_rows";
    if (!args || !in || !s0 || !s1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: a pointer is NULL", who);
    void *params;
    gip_status st = band_params(args, in, &params, who);
    if (st)
        return st;
    const gip_op *op = gip_args_op(args);
    gip_shape out = *in;
    int32_t identity = 0;
    if (!(st = gip__op_shape(op, params, in, &out, &identity))) {
        if (y0 < 0 || y1 <= y0 || y1 > out.height)
            st = gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                            "%s: output rows [%lld, %lld) are not inside 0..%lld", who,
                            (long long)y0, (long long)y1, (long long)out.height);
        else
            st = op->band_rows(params, in, y0, y1, s0, s1);
    }
    if (op->release)
        op->release(params);
    free(params);
    return st;
}

gip_status gip_op_apply_band(gip_context *ctx, const gip_args *args, const gip_image *src,
                             int64_t s0, const gip_shape *in, gip_image *dst, int64_t y0)
{
    static const char who[] = "gip_op_apply_band";
    if (!args || !src || !in || !dst)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: a pointer is NULL", who);
    void *params;
    gip_status st = band_params(args, in, &params, who);
    if (st)
        return on_ctx(ctx, st);
    const gip_op *op = gip_args_op(args);
    if (src->dtype != in->dtype || src->channels != in->channels || s0 < 0 ||
        s0 + src->height > in->height)
        st = gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                        "%s: src (%d-channel %s, rows [%lld, %lld)) is not a band of the %lldx%lld "
                        "%d-channel %s image",
                        who, (int)src->channels, gip_dtype_name(src->dtype), (long long)s0,
                        (long long)(s0 + src->height), (long long)in->width, (long long)in->height,
                        (int)in->channels, gip_dtype_name(in->dtype));
    else
        st = op->run_band(ctx, src, s0, in, dst, y0, params);
    if (op->release)
        op->release(params);
    free(params);
    return st;
}
