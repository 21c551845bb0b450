/* SPDX-License-Identifier: MIT */
/* Pipelines: the step list built from C calls (or the parser), the run plan with its fusions, the
 * pool of intermediates, and the runs on one image or one file. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"
#include "registry/registry.h"

/* ---- step list ------------------------------------------------------------------------------ */

static void step_fini(gip__step *s)
{
    if (s->op && s->params && s->op->release)
        s->op->release(s->params);
    free(s->params);
    if (s->custom && atomic_fetch_sub(&s->custom->refs, 1) == 1) {
        if (s->custom->step.release)
            s->custom->step.release(s->custom->step.user);
        free(s->custom->name);
        free(s->custom);
    }
    memset(s, 0, sizeof *s);
}

/* Deep copy of a step (the operation's parameter block); custom steps are shared. */
static gip_status step_copy(gip__step *dst, const gip__step *src)
{
    *dst = *src;
    dst->params = NULL;
    if (src->op) {
        if (!(dst->params = malloc(src->op->params_size ? src->op->params_size : 1)))
            goto out_oom;
        gip_status st = GIP_OK;
        if (src->op->copy)
            st = src->op->copy(dst->params, src->params);
        else
            memcpy(dst->params, src->params, src->op->params_size);
        if (st) {
            free(dst->params);
            memset(dst, 0, sizeof *dst);
            return st;
        }
    }
    if (dst->custom)
        atomic_fetch_add(&dst->custom->refs, 1);
    return GIP_OK;
out_oom:
    memset(dst, 0, sizeof *dst);
    return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory copying a step");
}

/* Frees every buffer of the pool and the plan (device buffers in stream order). */
static void drop_plan(gip_pipeline *p)
{
    for (int32_t i = 0; i < p->npool; i++)
        gip_image_free(p->ctx, &p->pool[i].img);
    free(p->pool);
    p->pool = NULL;
    p->npool = 0;
    free(p->plan);
    p->plan = NULL;
    p->nplan = 0;
    p->plan_valid = false;
}

static void drop_luts(gip_pipeline *p)
{
    for (int32_t i = 0; i < p->nluts; i++)
        gip_image_free(p->ctx, &p->luts[i].table);
    free(p->luts);
    p->luts = NULL;
    p->nluts = 0;
}

gip_pipeline *gip__pipeline_new_bare(void)
{
    return calloc(1, sizeof(gip_pipeline));
}

gip_status gip__pipeline_append(gip_pipeline *p, gip__step *s)
{
    if (p->n == p->cap) {
        int32_t cap = p->cap ? p->cap * 2 : 8;
        gip__step *bigger = realloc(p->steps, (size_t)cap * sizeof *bigger);
        if (!bigger) {
            step_fini(s);
            return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for a step");
        }
        p->steps = bigger;
        p->cap = cap;
    }
    p->steps[p->n++] = *s;
    drop_plan(p);
    drop_luts(p);
    gip_pipeline_free(p->twin); /* the tile lane's clone has the old steps */
    p->twin = NULL;
    return GIP_OK;
}

gip_status gip__pipeline_take_steps(gip_pipeline *dst, gip_pipeline *src)
{
    int32_t need = dst->n + src->n;
    if (need > dst->cap) {
        gip__step *bigger = realloc(dst->steps, (size_t)need * sizeof *bigger);
        if (!bigger)
            return gip__error(dst->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for steps");
        dst->steps = bigger;
        dst->cap = need;
    }
    memcpy(dst->steps + dst->n, src->steps, (size_t)src->n * sizeof(gip__step));
    dst->n = need;
    src->n = 0;
    drop_plan(dst);
    drop_luts(dst);
    gip_pipeline_free(dst->twin);
    dst->twin = NULL;
    return GIP_OK;
}

gip_status gip_pipeline_create(const gip_context_desc *desc, gip_pipeline **out)
{
    if (!out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_create: out is NULL");
    *out = NULL;
    gip_pipeline *p = gip__pipeline_new_bare();
    if (!p)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "gip_pipeline_create: out of memory");
    gip_status st = gip_context_create(desc, &p->ctx);
    if (st) {
        free(p);
        return st;
    }
    *out = p;
    return GIP_OK;
}

void gip_pipeline_free(gip_pipeline *p)
{
    if (!p)
        return;
    drop_plan(p);
    drop_luts(p);
    for (int32_t i = 0; i < p->n; i++)
        step_fini(&p->steps[i]);
    free(p->steps);
    gip_pipeline_free(p->twin);
    gip_context_destroy(p->ctx);
    free(p);
}

gip_status gip_pipeline_clone(const gip_pipeline *p, const gip_context_desc *desc,
                              gip_pipeline **out)
{
    if (!p || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_clone: %s is NULL",
                          !p ? "p" : "out");
    *out = NULL;
    gip_context_desc d = {0};
    if (desc) {
        d = *desc;
    } else if (p->ctx) {
        d.backend = gip_context_backend(p->ctx);
        d.device = d.backend == GIP_BACKEND_CUDA ? gip_context_device(p->ctx) : 0;
        d.threads = gip_context_threads(p->ctx);
    }
    gip_pipeline *c = NULL;
    gip_status st = gip_pipeline_create(&d, &c);
    if (st)
        return st;
    c->flags = p->flags;
    c->mem_limit = p->mem_limit;
    for (int32_t i = 0; i < p->n; i++) {
        gip__step s;
        if ((st = step_copy(&s, &p->steps[i])) || (st = gip__pipeline_append(c, &s))) {
            gip_pipeline_free(c);
            return st;
        }
    }
    *out = c;
    return GIP_OK;
}

gip_context *gip_pipeline_context(const gip_pipeline *p)
{
    return p ? p->ctx : NULL;
}

int32_t gip_pipeline_length(const gip_pipeline *p)
{
    return p ? p->n : 0;
}

gip_status gip_pipeline_set_flags(gip_pipeline *p, uint32_t flags)
{
    if (!p)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_set_flags: p is NULL");
    if (flags & ~GIP_PIPELINE_NO_FUSION)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "gip_pipeline_set_flags: unknown flags 0x%x; accepted: "
                          "GIP_PIPELINE_NO_FUSION",
                          (unsigned)flags);
    p->flags = flags;
    drop_plan(p);
    gip_pipeline_free(p->twin);
    p->twin = NULL;
    return GIP_OK;
}

/* ---- adding steps --------------------------------------------------------------------------- */

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
    gip__step s = {.op = op};
    if (!(s.params = calloc(1, op->params_size ? op->params_size : 1)))
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", api);
    if ((st = gip__op_build(args, s.params))) {
        char msg[GIP__MSG_SIZE];
        snprintf(msg, sizeof msg, "%s", gip_last_error());
        step_fini(&s);
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

/* ---- shapes and halos ----------------------------------------------------------------------- */

const char *gip__step_name(const gip__step *s)
{
    return s->op ? s->op->name : s->custom->name;
}

typedef struct gip__shape shape;

/* The output shape of a step for input `in`; *identity when the step leaves the image as is. */
static gip_status step_shape(gip_pipeline *p, const gip__step *s, int32_t index, shape in,
                             shape *out, bool *identity)
{
    *out = in;
    *identity = false;
    if (s->op) {
        const gip_op *op = s->op;
        if (!gip_op_accepts(op, in.dt, in.c)) {
            char who[96];
            snprintf(who, sizeof who, "pipeline step %d (%s)", (int)index + 1, op->name);
            return gip__op_refuse_input(p->ctx, op, in.dt, in.c, who);
        }
        if (!op->shape)
            return GIP_OK;
        gip_shape i = {in.w, in.h, in.c, in.dt}, o = i;
        int32_t ident = 0;
        gip_status st = op->shape(s->params, &i, &o, &ident);
        if (st)
            return st;
        out->w = o.width, out->h = o.height, out->c = o.channels, out->dt = o.dtype;
        *identity = ident != 0;
        return GIP_OK;
    }
    gip_image probe = {0};
    probe.width = in.w;
    probe.height = in.h;
    probe.channels = in.c;
    probe.dtype = in.dt;
    probe.stride = in.w * in.c * (int64_t)gip_dtype_size(in.dt);
    probe.memory =
        p->ctx && gip_context_backend(p->ctx) == GIP_BACKEND_CUDA ? GIP_MEM_CUDA : GIP_MEM_HOST;
    gip_status st =
        s->custom->step.shape(s->custom->step.user, &probe, &out->w, &out->h, &out->c, &out->dt);
    if (st)
        return st;
    int64_t rb;
    if (gip_image_size(out->w, out->h, out->c, out->dt, &rb, NULL))
        return gip__error(p->ctx, GIP_ERR_INTERNAL,
                          "pipeline: custom step '%s' gave an invalid output shape %lldx%lld "
                          "c%d %s",
                          s->custom->name, (long long)out->w, (long long)out->h, (int)out->c,
                          gip_dtype_name(out->dt));
    return GIP_OK;
}

/* Pixels read around an output pixel, in x and y; -1 for the whole image. */
static void step_halo(const gip__step *s, int64_t *hx, int64_t *hy)
{
    *hx = *hy = 0;
    if (!s->op)
        *hx = *hy = s->custom->step.halo;
    else if (s->op->flags & GIP_OP_WHOLE)
        *hx = *hy = -1;
    else if (s->op->halo)
        s->op->halo(s->params, hx, hy);
}

gip_status gip_pipeline_halo(const gip_pipeline *p, int64_t *halo_x, int64_t *halo_y)
{
    if (!p || !halo_x || !halo_y)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_halo: %s is NULL",
                          !p ? "p" : "halo_x or halo_y");
    int64_t hx = 0, hy = 0;
    for (int32_t i = 0; i < p->n; i++) {
        int64_t x, y;
        step_halo(&p->steps[i], &x, &y);
        if (x < 0 || y < 0) {
            hx = hy = -1;
            break;
        }
        hx += x;
        hy += y;
    }
    *halo_x = hx;
    *halo_y = hy;
    return GIP_OK;
}

/* ---- the plan: shapes, skipped identities and fusions ---------------------------------------- */

/* A point-wise step whose every output element is a function of the same element of the input
 * and of its channel index only. */
static bool step_lutable(const gip__step *s)
{
    return s->op && (s->op->flags & GIP_OP_POINTWISE) &&
           !(s->op->position && s->op->position(s->params));
}

static gip_status build_plan(gip_pipeline *p, shape in)
{
    drop_plan(p);
    p->plan = calloc((size_t)(p->n ? p->n : 1), sizeof *p->plan);
    if (!p->plan)
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for the plan");
    /* Shapes of every step's output, identities dropped. */
    shape cur = in;
    int32_t m = 0;
    for (int32_t i = 0; i < p->n; i++) {
        shape out;
        bool identity;
        gip_status st = step_shape(p, &p->steps[i], i, cur, &out, &identity);
        if (st) {
            drop_plan(p);
            return st;
        }
        if (identity)
            continue;
        gip__plan_item *it = &p->plan[m++];
        it->first = it->last = i;
        it->in_dtype = cur.dt;
        it->w = out.w, it->h = out.h, it->c = out.c, it->dt = out.dt;
        cur = out;
    }
    if (!(p->flags & GIP_PIPELINE_NO_FUSION)) {
        /* 1. An involution twice on integer images (invert | invert) is the identity: both go. */
        int32_t k = 0;
        for (int32_t i = 0; i < m; i++) {
            gip__plan_item *it = &p->plan[i];
            const gip__step *a = &p->steps[p->plan[k > 0 ? k - 1 : 0].first];
            const gip__step *b = &p->steps[it->first];
            if (k > 0 && b->op && b->op == a->op && (b->op->flags & GIP_OP_INVOLUTION) &&
                p->plan[k - 1].first == p->plan[k - 1].last &&
                (it->dt == GIP_U8 || it->dt == GIP_U16)) {
                k--;
                continue;
            }
            p->plan[k++] = *it;
        }
        m = k;
        /* 2. Runs of two or more table-able point-wise steps on a u8 image: one table pass. */
        k = 0;
        for (int32_t i = 0; i < m;) {
            int32_t j = i;
            if (p->plan[i].in_dtype == GIP_U8)
                while (j < m && step_lutable(&p->steps[p->plan[j].first]) &&
                       p->plan[j].dt != GIP_C32)
                    j++;
            if (j - i >= 2) {
                gip__plan_item fused = p->plan[j - 1];
                fused.first = p->plan[i].first;
                fused.in_dtype = GIP_U8;
                fused.lut = true;
                p->plan[k++] = fused;
                i = j;
            } else {
                p->plan[k++] = p->plan[i++];
            }
        }
        m = k;
    }
    p->nplan = m;
    p->plan_in.w = in.w, p->plan_in.h = in.h, p->plan_in.c = in.c, p->plan_in.dt = in.dt;
    p->plan_valid = true;
    return GIP_OK;
}

static gip_status ensure_plan(gip_pipeline *p, shape in)
{
    if (p->plan_valid && p->plan_in.w == in.w && p->plan_in.h == in.h && p->plan_in.c == in.c &&
        p->plan_in.dt == in.dt)
        return GIP_OK;
    return build_plan(p, in);
}

gip_status gip_pipeline_output_shape(gip_pipeline *p, int64_t width, int64_t height,
                                     int32_t channels, gip_dtype dtype, int64_t *out_width,
                                     int64_t *out_height, int32_t *out_channels,
                                     gip_dtype *out_dtype)
{
    static const char op[] = "gip_pipeline_output_shape";
    if (!p || !out_width || !out_height || !out_channels || !out_dtype)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !p ? "p" : "an output pointer");
    gip_status st = gip_image_size(width, height, channels, dtype, NULL, NULL);
    if (st)
        return st;
    shape in = {width, height, channels, dtype};
    if ((st = ensure_plan(p, in)))
        return st;
    if (p->nplan == 0) {
        *out_width = width, *out_height = height, *out_channels = channels, *out_dtype = dtype;
    } else {
        const gip__plan_item *l = &p->plan[p->nplan - 1];
        *out_width = l->w, *out_height = l->h, *out_channels = l->c, *out_dtype = l->dt;
    }
    return GIP_OK;
}

gip_status gip_pipeline_describe(gip_pipeline *p, int32_t channels, gip_dtype dtype, char *buf,
                                 size_t size)
{
    if (!p || !buf || size == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_describe: %s",
                          !p ? "p is NULL" : "buf is NULL or size is 0");
    buf[0] = '\0';
    shape in = {64, 64, channels, dtype};
    gip_status st = ensure_plan(p, in);
    if (st)
        return st;
    size_t len = 0;
    for (int32_t i = 0; i < p->nplan && len < size; i++) {
        const gip__plan_item *it = &p->plan[i];
        len +=
            (size_t)snprintf(buf + len, size - len, "%s%s", i ? " | " : "", it->lut ? "lut[" : "");
        for (int32_t s = it->first; s <= it->last && len < size; s++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", s > it->first ? "," : "",
                                    gip__step_name(&p->steps[s]));
        if (it->lut && len < size)
            len += (size_t)snprintf(buf + len, size - len, "]");
    }
    if (p->nplan == 0)
        snprintf(buf, size, "copy");
    return GIP_OK;
}

/* Memory of pool buffers for images living where `img` lives. */
static gip_memory pool_mem(const gip_image *img)
{
    return img->memory == GIP_MEM_CUDA ? GIP_MEM_CUDA : GIP_MEM_HOST;
}

/* ---- the pool ----------------------------------------------------------------------------- */

/* A free pool buffer of the shape (allocated when none is free); *slot receives its index. */
static gip_status pool_acquire(gip_pipeline *p, int64_t w, int64_t h, int32_t c, gip_dtype dt,
                               gip_memory mem, int32_t *slot)
{
    for (int32_t i = 0; i < p->npool; i++) {
        gip__pool_slot *s = &p->pool[i];
        if (!s->used && s->img.width == w && s->img.height == h && s->img.channels == c &&
            s->img.dtype == dt && s->img.memory == mem) {
            s->used = true;
            *slot = i;
            return GIP_OK;
        }
    }
    gip__pool_slot *bigger = realloc(p->pool, (size_t)(p->npool + 1) * sizeof *bigger);
    if (!bigger)
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for the pool");
    p->pool = bigger;
    gip__pool_slot *s = &p->pool[p->npool];
    memset(s, 0, sizeof *s);
    gip_status st = gip_image_alloc(p->ctx, &s->img, w, h, c, dt, mem, 0);
    if (st)
        return st;
    s->used = true;
    *slot = p->npool++;
    return GIP_OK;
}

static void pool_release(gip_pipeline *p, int32_t slot)
{
    if (slot >= 0)
        p->pool[slot].used = false;
}

int64_t gip__pipeline_pool_count(const gip_pipeline *p)
{
    return p->npool;
}

/* ---- running -------------------------------------------------------------------------------- */

/* The table of a fused run for images of `c` channels, built by running the unfused steps on a
 * 256 x 1 ramp (pixel v holds v in every channel) on the pipeline's own context: each entry is
 * what the unfused chain computes for that value, so the table pass equals the chain bit for bit.
 */
static gip_status get_lut(gip_pipeline *p, const gip__plan_item *it, gip_memory mem,
                          const gip_image **table)
{
    for (int32_t i = 0; i < p->nluts; i++) {
        gip__lut *l = &p->luts[i];
        if (l->first == it->first && l->last == it->last && l->table.channels == it->c &&
            l->table.memory == mem) {
            *table = &l->table;
            return GIP_OK;
        }
    }
    gip__lut *bigger = realloc(p->luts, (size_t)(p->nluts + 1) * sizeof *bigger);
    if (!bigger)
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for a table");
    p->luts = bigger;
    gip_image ramp = {0}, a = {0}, b = {0};
    gip_status st = gip_image_alloc(NULL, &ramp, 256, 1, it->c, GIP_U8, GIP_MEM_HOST, 0);
    if (st)
        return st;
    uint8_t *r = ramp.data;
    for (int32_t v = 0; v < 256; v++)
        for (int32_t c = 0; c < it->c; c++)
            r[v * it->c + c] = (uint8_t)v;
    gip_image *cur = &ramp;
    if (mem == GIP_MEM_CUDA) {
        if ((st = gip_image_alloc(p->ctx, &a, 256, 1, it->c, GIP_U8, mem, 0)) ||
            (st = gip_upload(p->ctx, &ramp, &a)))
            goto out_free;
        cur = &a;
    }
    /* a holds the newest device/host intermediate the steps made (or the uploaded ramp). */
    shape s_in = {256, 1, it->c, GIP_U8};
    for (int32_t i = it->first; i <= it->last; i++) {
        shape out;
        bool identity;
        if ((st = step_shape(p, &p->steps[i], i, s_in, &out, &identity)) ||
            (st = gip_image_alloc(p->ctx, &b, 256, 1, out.c, out.dt, mem, GIP_ALLOC_TIGHT)) ||
            (st = gip__step_run(p, &p->steps[i], i, cur, &b)))
            goto out_free;
        gip_image_free(p->ctx, &a);
        a = b;
        memset(&b, 0, sizeof b);
        cur = &a;
        s_in = out;
    }
    gip__lut *l = &p->luts[p->nluts];
    l->first = it->first;
    l->last = it->last;
    l->table = a;
    memset(&a, 0, sizeof a);
    p->nluts++;
    *table = &l->table;
out_free:
    gip_image_free(p->ctx, &a);
    gip_image_free(p->ctx, &b);
    gip_image_free(NULL, &ramp);
    return st;
}

static gip_status lut_run(gip_pipeline *p, const gip__plan_item *it, const gip_image *src,
                          gip_image *dst)
{
    const gip_image *table = NULL;
    gip_status st = get_lut(p, it, pool_mem(src), &table);
    if (st)
        return st;
    int32_t esize = (int32_t)gip_dtype_size(dst->dtype);
#ifdef GIP_HAVE_CUDA
    if (src->memory == GIP_MEM_CUDA)
        return gip__lut_apply_cuda(p->ctx, src, dst, table->data, esize);
#endif
    gip__lut_apply_cpu(p->ctx, src, dst, table->data, esize);
    return GIP_OK;
}

/* Runs one step; a failure's message is prefixed with the step's number and name. */
gip_status gip__step_run(gip_pipeline *p, const gip__step *s, int32_t index, const gip_image *src,
                         gip_image *dst)
{
    gip_context *ctx = p->ctx;
    gip_status st = GIP_OK;
    if (s->op)
        st = s->op->run(ctx, src, dst, s->params);
    else
        st = s->custom->step.run(s->custom->step.user, ctx, src, dst);
    if (st) {
        char msg[GIP__MSG_SIZE];
        snprintf(msg, sizeof msg, "%s", gip_last_error());
        return gip__error(ctx, st, "pipeline step %d (%s): %s", (int)index + 1, gip__step_name(s),
                          msg);
    }
    return GIP_OK;
}

/* Runs the plan from src (in the context's memory) into dst (same memory). */
static gip_status run_plan(gip_pipeline *p, const gip_image *src, gip_image *dst)
{
    if (p->nplan == 0)
        return gip_copy(p->ctx, src, dst);
    /* Views are copied by value: the pool's array may move when it grows. */
    gip_image cur = *src;
    int32_t cur_slot = -1;
    gip_status st = GIP_OK;
    for (int32_t i = 0; i < p->nplan && !st; i++) {
        const gip__plan_item *it = &p->plan[i];
        gip_image out = *dst;
        int32_t out_slot = -1;
        bool last = i == p->nplan - 1;
        const gip__step *s = &p->steps[it->first];
        bool in_place = !it->lut && cur_slot >= 0 && it->dt == cur.dtype && it->c == cur.channels &&
                        s->op && (s->op->flags & GIP_OP_IN_PLACE);
        if (!last && in_place) {
            out_slot = cur_slot;
            out = cur;
        } else if (!last) {
            if ((st = pool_acquire(p, it->w, it->h, it->c, it->dt, pool_mem(src), &out_slot)))
                break;
            out = p->pool[out_slot].img;
        }
        st = it->lut ? lut_run(p, it, &cur, &out) : gip__step_run(p, s, it->first, &cur, &out);
        /* Device work is stream-ordered: the consumed buffer can serve the next step at once. */
        if (out_slot != cur_slot)
            pool_release(p, cur_slot);
        cur = out;
        cur_slot = out_slot;
    }
    pool_release(p, cur_slot);
    return st;
}

gip_status gip__pipeline_check_run(gip_pipeline *p, const gip_image *src, const gip_image *dst,
                                   const char *op)
{
    if (!p || !src || !dst)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !p     ? "p"
                          : !src ? "src"
                                 : "dst");
    if (!p->ctx)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: p has no context", op);
    gip_status st;
    if ((st = gip__ctx_check(p->ctx, op)) || (st = gip_image_check(src, "src")) ||
        (st = gip_image_check(dst, "dst")))
        return st;
    bool src_host = gip_image_on_host(src), dst_host = gip_image_on_host(dst);
    if (src_host != dst_host)
        return gip__error(p->ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src is in %s memory and dst in %s memory; both must be host or "
                          "both on the pipeline's device",
                          op, src_host ? "host" : "device", dst_host ? "host" : "device");
    if (!src_host && ((st = gip__image_check_ctx(p->ctx, src, op, "src")) ||
                      (st = gip__image_check_ctx(p->ctx, dst, op, "dst"))))
        return st;
    if (gip__images_overlap(src, dst))
        return gip__error(p->ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; give a separate dst",
                          op);
    shape in = {src->width, src->height, src->channels, src->dtype};
    if ((st = ensure_plan(p, in)))
        return st;
    shape want = in;
    if (p->nplan) {
        const gip__plan_item *l = &p->plan[p->nplan - 1];
        want = (shape){l->w, l->h, l->c, l->dt};
    }
    if (dst->width != want.w || dst->height != want.h || dst->channels != want.c ||
        dst->dtype != want.dt)
        return gip__error(p->ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %lldx%lld c%d %s but the pipeline makes %lldx%lld c%d %s "
                          "from this src",
                          op, (long long)dst->width, (long long)dst->height, (int)dst->channels,
                          gip_dtype_name(dst->dtype), (long long)want.w, (long long)want.h,
                          (int)want.c, gip_dtype_name(want.dt));
    return GIP_OK;
}

gip_status gip_pipeline_run(gip_pipeline *p, const gip_image *src, gip_image *dst)
{
    static const char op[] = "gip_pipeline_run";
    gip_status st = gip__pipeline_check_run(p, src, dst, op);
    if (st)
        return st;
    bool src_host = gip_image_on_host(src);
    bool cuda = gip_context_backend(p->ctx) == GIP_BACKEND_CUDA;
    shape in = {src->width, src->height, src->channels, src->dtype};
    shape want = {dst->width, dst->height, dst->channels, dst->dtype};
    /* Host images above the device memory limit run in tiles (tile.c). */
    if (src_host && cuda && gip__pipeline_needs_tiles(p, src))
        return gip__pipeline_run_tiles(p, src, dst, 0, 0, 0, op);
    if (!(src_host && cuda))
        return run_plan(p, src, dst);
    /* Host images on a CUDA pipeline: stage through pool buffers on the device. */
    int32_t in_slot = -1, out_slot = -1;
    if ((st = pool_acquire(p, in.w, in.h, in.c, in.dt, GIP_MEM_CUDA, &in_slot)) ||
        (st = pool_acquire(p, want.w, want.h, want.c, want.dt, GIP_MEM_CUDA, &out_slot)))
        goto out_release;
    /* Copies of the views: run_plan may grow (move) the pool array. */
    gip_image din = p->pool[in_slot].img, dout = p->pool[out_slot].img;
    if (!(st = gip_upload(p->ctx, src, &din)) && !(st = run_plan(p, &din, &dout)) &&
        !(st = gip_download(p->ctx, &dout, dst)))
        st = gip_context_sync(p->ctx);
out_release:
    pool_release(p, in_slot);
    pool_release(p, out_slot);
    return st;
}

gip_status gip_pipeline_run_file(gip_pipeline *p, const char *in, const char *out,
                                 const gip_load_params *load, const gip_save_params *save)
{
    static const char op[] = "gip_pipeline_run_file";
    if (!p || !in || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !p    ? "p"
                          : !in ? "in"
                                : "out");
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_COLOR;
    if (load)
        lp = *load;
    gip_image src = {0}, dst = {0};
    gip_status st = gip_image_load(in, &lp, &src);
    if (st)
        return st;
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
    if (!(st = gip_pipeline_output_shape(p, src.width, src.height, src.channels, src.dtype, &w, &h,
                                         &c, &dt)) &&
        !(st = gip_image_alloc(NULL, &dst, w, h, c, dt, GIP_MEM_HOST, 0)) &&
        !(st = gip_pipeline_run(p, &src, &dst)))
        st = gip_image_save(out, &dst, save);
    gip_image_free(NULL, &dst);
    gip_image_free(NULL, &src);
    return st;
}
