/* SPDX-License-Identifier: MIT */
/* Adding steps to a pipeline: gip_pipeline_add_op() from the registry's arguments, the typed
 * gip_pipeline_add_*() functions (their parameters become the operation's arguments, so that the
 * registry's checks serve them too) and caller-defined steps. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline_steps.h"
#include "registry/registry.h"

static gip_status check_p(gip_pipeline *p, const char *op)
{
    if (!p)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: p is NULL", op);
    return GIP_OK;
}

gip_status gip_pipeline_add_op(gip_pipeline *p, const gip_args *args)
{
    static const char api[] = "gip_pipeline_add_op";
    gip_status st = check_p(p, api);
    if (st)
        return st;
    if (!args)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: args is NULL", api);
    const gip_op *op = gip_args_op(args);
    for (int32_t i = 0; i < op->ninputs; i++)
        if (!(op->inputs[i].flags & GIP_INPUT_OPTIONAL))
            return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: %s reads a second image (%s), which a pipeline step cannot be "
                              "given; run it alone (gip_op_apply_inputs(), --%s FILE on the "
                              "command line, %s=array in Python)",
                              api, op->name, op->inputs[i].name, op->inputs[i].name,
                              op->inputs[i].name);
    gip__step s = {.op = op};
    if (!(s.params = calloc(1, op->params_size ? op->params_size : 1)))
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", api);
    if ((st = gip__op_build(args, s.params))) {
        char msg[GIP__MSG_SIZE];
        snprintf(msg, sizeof msg, "%s", gip_last_error());
        gip__step_fini(&s);
        return gip__error(p->ctx, st, "%s", msg);
    }
    return gip__pipeline_append(p, &s);
}

/* The typed gip_pipeline_add_*() functions: their parameters become the operation's arguments,
 * so that one set of checks (the registry's) serves the typed API, the parser, the CLI and
 * Python. */
typedef struct typed_args {
    gip_pipeline *p;
    const char *api;
    gip_args *args;
    gip_status st;
} typed_args;

static typed_args typed_begin(gip_pipeline *p, const char *api, const char *name)
{
    typed_args t = {p, api, NULL, check_p(p, api)};
    if (t.st)
        return t;
    const gip_op *op = gip_op_find(name);
    t.st = op ? gip_args_create(op, &t.args)
              : gip__error(NULL, GIP_ERR_INTERNAL, "%s: %s is not registered", api, name);
    return t;
}

static void t_int(typed_args *t, const char *name, int64_t v)
{
    if (!t->st)
        t->st = gip_args_set_int(t->args, name, v);
}

static void t_double(typed_args *t, const char *name, double v)
{
    if (!t->st)
        t->st = gip_args_set_double(t->args, name, v);
}

static void t_list(typed_args *t, const char *name, const double *v, int32_t n)
{
    if (!t->st)
        t->st = gip_args_set_list(t->args, name, v, n);
}

static void t_border(typed_args *t, const gip_border_spec *b)
{
    t_int(t, "border", (int64_t)b->mode);
    if (b->mode == GIP_BORDER_CONSTANT) {
        double v[4] = {b->value[0], b->value[1], b->value[2], b->value[3]};
        t_list(t, "border_value", v, 4);
    }
}

static void t_anchor(typed_args *t, int32_t has, int32_t x, int32_t y)
{
    if (has) {
        double v[2] = {x, y};
        t_list(t, "anchor", v, 2);
    }
}

/* Appends the step, or reports the first failure under the typed function's name. */
static gip_status typed_end(typed_args *t)
{
    if (!t->st)
        t->st = gip_pipeline_add_op(t->p, t->args);
    gip_args_free(t->args);
    if (t->st && t->p) {
        char msg[GIP__MSG_SIZE];
        snprintf(msg, sizeof msg, "%s", gip_last_error());
        return gip__error(t->p->ctx, t->st, "%s: %s", t->api, msg);
    }
    return t->st;
}

gip_status gip_pipeline_add_invert(gip_pipeline *p, const gip_invert_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_invert", "invert");
    if (params)
        t_double(&t, "max", params->max);
    return typed_end(&t);
}

gip_status gip_pipeline_add_gaussian(gip_pipeline *p, const gip_gaussian_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_gaussian", "gaussian");
    if (!t.st && !params)
        t.st = gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "params is NULL");
    if (!t.st) {
        const double sigma[2] = {params->sigma_x, params->sigma_y};
        if (!t.st)
            t.st = gip_args_set_size(t.args, "ksize", params->ksize_w, params->ksize_h);
        t_list(&t, "sigma", sigma, 2);
        t_border(&t, &params->border);
    }
    return typed_end(&t);
}

gip_status gip_pipeline_add_box(gip_pipeline *p, const gip_box_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_box", "box");
    if (params) {
        if (!t.st)
            t.st = gip_args_set_size(t.args, "ksize", params->ksize_w ? params->ksize_w : 3,
                                     params->ksize_h ? params->ksize_h : 3);
        t_int(&t, "normalize", !params->unnormalized);
        t_anchor(&t, params->has_anchor, params->anchor_x, params->anchor_y);
        t_border(&t, &params->border);
    }
    return typed_end(&t);
}

gip_status gip_pipeline_add_filter2d(gip_pipeline *p, const gip_filter2d_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_filter2d", "filter");
    if (!t.st && (!params || !params->kernel))
        t.st = gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s is NULL",
                          !params ? "params" : "params->kernel");
    if (!t.st) {
        t.st =
            gip_args_set_matrix(t.args, "kernel", params->kernel, params->ksize_h, params->ksize_w);
        t_double(&t, "delta", params->delta);
        t_anchor(&t, params->has_anchor, params->anchor_x, params->anchor_y);
        t_border(&t, &params->border);
    }
    return typed_end(&t);
}

static void t_sobel(typed_args *t, const gip_sobel_params *s)
{
    t_int(t, "ksize", s->ksize ? s->ksize : 3);
    t_double(t, "scale", s->scale != 0 ? s->scale : 1.0);
    t_double(t, "delta", s->delta);
    t_border(t, &s->border);
}

gip_status gip_pipeline_add_sobel(gip_pipeline *p, const gip_sobel_params *params,
                                  gip_dtype dst_dtype)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_sobel", "sobel");
    if (!t.st && !params)
        t.st = gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "params is NULL");
    if (!t.st) {
        t_int(&t, "dx", params->dx);
        t_int(&t, "dy", params->dy);
        t_sobel(&t, params);
        t_int(&t, "dtype", dst_dtype);
        t_int(&t, "saturate", params->unsigned_out == GIP_SOBEL_SATURATE);
    }
    return typed_end(&t);
}

gip_status gip_pipeline_add_edges(gip_pipeline *p, const gip_sobel_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_edges", "edges");
    if (params)
        t_sobel(&t, params);
    return typed_end(&t);
}

gip_status gip_pipeline_add_gray(gip_pipeline *p)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_gray", "gray");
    return typed_end(&t);
}

gip_status gip_pipeline_add_convert(gip_pipeline *p, gip_dtype dtype, double scale, double offset)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_convert", "convert");
    t_int(&t, "dtype", dtype);
    t_double(&t, "scale", scale);
    t_double(&t, "offset", offset);
    return typed_end(&t);
}

static void t_expr(typed_args *t, const char *expr, const gip_scalar *scalars, int32_t n)
{
    if (t->st)
        return;
    if (!expr) {
        t->st = gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "expr is NULL");
        return;
    }
    if (n < 0 || n > GIP_EXPR_MAX_SCALARS || (n && !scalars)) {
        t->st = gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                           "%d scalars (array %s) is invalid; accepted: 0..%d", (int)n,
                           scalars ? "given" : "NULL", GIP_EXPR_MAX_SCALARS);
        return;
    }
    t->st = gip_args_set_string(t->args, "expr", expr);
    for (int32_t i = 0; i < n && !t->st; i++)
        t->st = scalars[i].name ? gip_args_set_scalar(t->args, scalars[i].name, scalars[i].value)
                                : gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                                             "scalars[%d].name is NULL", (int)i);
}

gip_status gip_pipeline_add_map(gip_pipeline *p, const char *expr, const gip_scalar *scalars,
                                int32_t n_scalars)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_map", "map");
    t_expr(&t, expr, scalars, n_scalars);
    return typed_end(&t);
}

gip_status gip_pipeline_add_stencil(gip_pipeline *p, const char *expr,
                                    const gip_stencil_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_stencil", "stencil");
    gip_stencil_params d = {0};
    if (!params)
        params = &d;
    t_expr(&t, expr, params->scalars, params->n_scalars);
    t_int(&t, "radius", params->radius);
    t_border(&t, &params->border);
    return typed_end(&t);
}

gip_status gip_pipeline_add_spectrum(gip_pipeline *p, const gip_spectrum_params *params)
{
    typed_args t = typed_begin(p, "gip_pipeline_add_spectrum", "spectrum");
    if (params)
        t_int(&t, "log1p", params->log1p != 0);
    return typed_end(&t);
}

gip_status gip_pipeline_add_step(gip_pipeline *p, const gip_pipeline_step *step)
{
    static const char op[] = "gip_pipeline_add_step";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    if (!step || !step->shape || !step->run)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !step          ? "step"
                          : !step->shape ? "step->shape"
                                         : "step->run");
    if (step->halo < -1)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: halo %d is invalid; accepted: -1 (whole image) or >= 0", op,
                          (int)step->halo);
    gip__step s = {0};
    s.custom = calloc(1, sizeof *s.custom);
    if (!s.custom || !(s.custom->name = strdup(step->name ? step->name : "custom"))) {
        free(s.custom);
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    s.custom->step = *step;
    s.custom->step.name = s.custom->name;
    atomic_init(&s.custom->refs, 1);
    return gip__pipeline_append(p, &s);
}
