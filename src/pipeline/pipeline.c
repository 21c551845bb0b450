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

/* ---- step list ------------------------------------------------------------------------------ */

static void step_fini(gip__step *s)
{
    free(s->expr);
    free(s->kernel);
    free(s->scalars);
    free(s->scalar_names);
    if (s->custom && atomic_fetch_sub(&s->custom->refs, 1) == 1) {
        if (s->custom->step.release)
            s->custom->step.release(s->custom->step.user);
        free(s->custom->name);
        free(s->custom);
    }
    memset(s, 0, sizeof *s);
}

/* Deep copy of a step (parameters, kernel, expression, scalar names); custom steps are shared. */
static gip_status step_copy(gip__step *dst, const gip__step *src)
{
    *dst = *src;
    dst->expr = NULL;
    dst->kernel = NULL;
    dst->scalars = NULL;
    dst->scalar_names = NULL;
    if (src->expr && !(dst->expr = strdup(src->expr)))
        goto out_oom;
    if (src->kernel) {
        size_t n = (size_t)src->u.f2d.ksize_w * (size_t)src->u.f2d.ksize_h;
        if (!(dst->kernel = malloc(n * sizeof(float))))
            goto out_oom;
        memcpy(dst->kernel, src->kernel, n * sizeof(float));
        dst->u.f2d.kernel = dst->kernel;
    }
    if (src->n_scalars) {
        size_t names = src->scalar_names_size;
        dst->scalars = malloc((size_t)src->n_scalars * sizeof(gip_scalar));
        dst->scalar_names = malloc(names);
        if (!dst->scalars || !dst->scalar_names)
            goto out_oom;
        memcpy(dst->scalar_names, src->scalar_names, names);
        for (int32_t i = 0; i < src->n_scalars; i++) {
            dst->scalars[i].value = src->scalars[i].value;
            dst->scalars[i].name = dst->scalar_names + (src->scalars[i].name - src->scalar_names);
        }
        dst->u.sten.scalars = dst->scalars;
    }
    if (dst->custom)
        atomic_fetch_add(&dst->custom->refs, 1);
    return GIP_OK;
out_oom:
    free(dst->expr);
    free(dst->kernel);
    free(dst->scalars);
    free(dst->scalar_names);
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

static gip_status check_border(gip_pipeline *p, const gip_border_spec *b, const char *op)
{
    if ((unsigned)b->mode > GIP_BORDER_WRAP)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border mode %d is invalid; accepted: GIP_BORDER_REFLECT_101 .. "
                          "GIP_BORDER_WRAP",
                          op, (int)b->mode);
    return GIP_OK;
}

gip_status gip_pipeline_add_invert(gip_pipeline *p, const gip_invert_params *params)
{
    gip_status st = check_p(p, "gip_pipeline_add_invert");
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_INVERT};
    if (params)
        s.u.inv = *params;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_gaussian(gip_pipeline *p, const gip_gaussian_params *params)
{
    static const char op[] = "gip_pipeline_add_gaussian";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    if (!params)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    const gip_gaussian_params *g = params;
    if (g->ksize_w < 0 || g->ksize_h < 0 || g->ksize_w > 1023 || g->ksize_h > 1023 ||
        (g->ksize_w && g->ksize_w % 2 == 0) || (g->ksize_h && g->ksize_h % 2 == 0) ||
        (g->ksize_w == 0 && g->sigma_x <= 0) ||
        (g->ksize_h == 0 && (g->sigma_y > 0 ? g->sigma_y : g->sigma_x) <= 0))
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %dx%d with sigma %g,%g is invalid; accepted: odd sizes "
                          "1..1023, or 0 with a sigma > 0",
                          op, (int)g->ksize_w, (int)g->ksize_h, g->sigma_x, g->sigma_y);
    if ((st = check_border(p, &g->border, op)))
        return st;
    gip__step s = {.kind = GIP__STEP_GAUSSIAN};
    s.u.gauss = *g;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_box(gip_pipeline *p, const gip_box_params *params)
{
    static const char op[] = "gip_pipeline_add_box";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_BOX};
    if (params)
        s.u.box = *params;
    if (s.u.box.ksize_w < 0 || s.u.box.ksize_h < 0 || s.u.box.ksize_w > 1023 ||
        s.u.box.ksize_h > 1023)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %dx%d is invalid; accepted: 1..1023 (0 means 3)", op,
                          (int)s.u.box.ksize_w, (int)s.u.box.ksize_h);
    if ((st = check_border(p, &s.u.box.border, op)))
        return st;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_filter2d(gip_pipeline *p, const gip_filter2d_params *params)
{
    static const char op[] = "gip_pipeline_add_filter2d";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    if (!params || !params->kernel)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !params ? "params" : "params->kernel");
    if (params->ksize_w < 1 || params->ksize_h < 1 || params->ksize_w > 1023 ||
        params->ksize_h > 1023)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel size %dx%d is invalid; accepted: 1..1023 each", op,
                          (int)params->ksize_w, (int)params->ksize_h);
    if ((st = check_border(p, &params->border, op)))
        return st;
    gip__step s = {.kind = GIP__STEP_FILTER2D};
    s.u.f2d = *params;
    size_t n = (size_t)params->ksize_w * (size_t)params->ksize_h;
    if (!(s.kernel = malloc(n * sizeof(float))))
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    memcpy(s.kernel, params->kernel, n * sizeof(float));
    s.u.f2d.kernel = s.kernel;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_sobel(gip_pipeline *p, const gip_sobel_params *params,
                                  gip_dtype dst_dtype)
{
    static const char op[] = "gip_pipeline_add_sobel";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    if (!params)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    if (dst_dtype != GIP_U8 && dst_dtype != GIP_S16 && dst_dtype != GIP_F32)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: dst_dtype %s is invalid; accepted: u8, s16, f32", op,
                          gip_dtype_name(dst_dtype));
    if (params->dx < 0 || params->dy < 0 || params->dx + params->dy == 0)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: dx %d dy %d is invalid; accepted: orders >= 0, not both 0", op,
                          (int)params->dx, (int)params->dy);
    if ((st = check_border(p, &params->border, op)))
        return st;
    gip__step s = {.kind = GIP__STEP_SOBEL};
    s.u.sobel.p = *params;
    s.u.sobel.dtype = dst_dtype;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_edges(gip_pipeline *p, const gip_sobel_params *params)
{
    static const char op[] = "gip_pipeline_add_edges";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_EDGES};
    if (params)
        s.u.sobel.p = *params;
    if ((st = check_border(p, &s.u.sobel.p.border, op)))
        return st;
    s.u.sobel.dtype = GIP_U8;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_gray(gip_pipeline *p)
{
    gip_status st = check_p(p, "gip_pipeline_add_gray");
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_GRAY};
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_convert(gip_pipeline *p, gip_dtype dtype, double scale, double offset)
{
    static const char op[] = "gip_pipeline_add_convert";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    if (dtype != GIP_U8 && dtype != GIP_U16 && dtype != GIP_S16 && dtype != GIP_F32)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: dtype %s is invalid; accepted: u8, u16, s16, f32", op,
                          gip_dtype_name(dtype));
    if (!(scale > -1e30 && scale < 1e30) || !(offset > -1e30 && offset < 1e30))
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: scale %g and offset %g must be finite", op, scale, offset);
    gip__step s = {.kind = GIP__STEP_CONVERT};
    s.u.conv.dtype = dtype;
    s.u.conv.scale = scale;
    s.u.conv.offset = offset;
    return gip__pipeline_append(p, &s);
}

/* Copies an expression and its scalars (names into one buffer) into a step. */
static gip_status copy_expr(gip_pipeline *p, gip__step *s, const char *op, const char *expr,
                            const gip_scalar *scalars, int32_t n)
{
    if (!expr)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: expr is NULL", op);
    if (n < 0 || n > GIP_EXPR_MAX_SCALARS || (n && !scalars))
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %d scalars (array %s) is invalid; accepted: 0..%d", op, (int)n,
                          scalars ? "given" : "NULL", GIP_EXPR_MAX_SCALARS);
    size_t names = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!scalars[i].name)
            return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: scalars[%d].name is NULL", op,
                              (int)i);
        names += strlen(scalars[i].name) + 1;
    }
    if (!(s->expr = strdup(expr)))
        goto out_oom;
    if (n) {
        s->scalars = malloc((size_t)n * sizeof *s->scalars);
        s->scalar_names = malloc(names);
        if (!s->scalars || !s->scalar_names)
            goto out_oom;
        char *q = s->scalar_names;
        for (int32_t i = 0; i < n; i++) {
            size_t len = strlen(scalars[i].name) + 1;
            memcpy(q, scalars[i].name, len);
            s->scalars[i].name = q;
            s->scalars[i].value = scalars[i].value;
            q += len;
        }
        s->scalar_names_size = names;
    }
    s->n_scalars = n;
    return GIP_OK;
out_oom:
    step_fini(s);
    return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
}

gip_status gip_pipeline_add_map(gip_pipeline *p, const char *expr, const gip_scalar *scalars,
                                int32_t n_scalars)
{
    static const char op[] = "gip_pipeline_add_map";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_MAP};
    if ((st = copy_expr(p, &s, op, expr, scalars, n_scalars)))
        return st;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_stencil(gip_pipeline *p, const char *expr,
                                    const gip_stencil_params *params)
{
    static const char op[] = "gip_pipeline_add_stencil";
    gip_status st = check_p(p, op);
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_STENCIL};
    if (params)
        s.u.sten = *params;
    if (s.u.sten.radius < 0 || s.u.sten.radius > GIP_STENCIL_MAX_RADIUS)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: radius %d is invalid; accepted: 0..%d", op, (int)s.u.sten.radius,
                          GIP_STENCIL_MAX_RADIUS);
    if ((st = check_border(p, &s.u.sten.border, op)) ||
        (st = copy_expr(p, &s, op, expr, s.u.sten.scalars, s.u.sten.n_scalars)))
        return st;
    s.u.sten.scalars = s.scalars;
    return gip__pipeline_append(p, &s);
}

gip_status gip_pipeline_add_spectrum(gip_pipeline *p, const gip_spectrum_params *params)
{
    gip_status st = check_p(p, "gip_pipeline_add_spectrum");
    if (st)
        return st;
    gip__step s = {.kind = GIP__STEP_SPECTRUM};
    if (params)
        s.u.spec = *params;
    return gip__pipeline_append(p, &s);
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
    gip__step s = {.kind = GIP__STEP_CUSTOM};
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
    static const char *const names[] = {
        [GIP__STEP_INVERT] = "invert",    [GIP__STEP_GAUSSIAN] = "gaussian",
        [GIP__STEP_BOX] = "box",          [GIP__STEP_FILTER2D] = "filter",
        [GIP__STEP_SOBEL] = "sobel",      [GIP__STEP_EDGES] = "edges",
        [GIP__STEP_GRAY] = "gray",        [GIP__STEP_CONVERT] = "convert",
        [GIP__STEP_MAP] = "map",          [GIP__STEP_STENCIL] = "stencil",
        [GIP__STEP_SPECTRUM] = "spectrum"};
    if (s->kind == GIP__STEP_CUSTOM)
        return s->custom->name;
    return names[s->kind];
}

typedef struct gip__shape shape;

/* The output shape of a step for input `in`; *identity when the step leaves the image as is. */
static gip_status step_shape(gip_pipeline *p, const gip__step *s, shape in, shape *out,
                             bool *identity)
{
    *out = in;
    *identity = false;
    switch (s->kind) {
    case GIP__STEP_SOBEL:
        out->dt = s->u.sobel.dtype;
        break;
    case GIP__STEP_EDGES:
    case GIP__STEP_SPECTRUM:
        out->c = 1;
        out->dt = GIP_U8;
        break;
    case GIP__STEP_GRAY:
        *identity = in.c == 1;
        out->c = 1;
        break;
    case GIP__STEP_CONVERT:
        out->dt = s->u.conv.dtype;
        break;
    case GIP__STEP_CUSTOM: {
        gip_image probe = {0};
        probe.width = in.w;
        probe.height = in.h;
        probe.channels = in.c;
        probe.dtype = in.dt;
        probe.stride = in.w * in.c * (int64_t)gip_dtype_size(in.dt);
        probe.memory =
            p->ctx && gip_context_backend(p->ctx) == GIP_BACKEND_CUDA ? GIP_MEM_CUDA : GIP_MEM_HOST;
        gip_status st = s->custom->step.shape(s->custom->step.user, &probe, &out->w, &out->h,
                                              &out->c, &out->dt);
        if (st)
            return st;
        int64_t rb;
        if (gip_image_size(out->w, out->h, out->c, out->dt, &rb, NULL))
            return gip__error(p->ctx, GIP_ERR_INTERNAL,
                              "pipeline: custom step '%s' gave an invalid output shape %lldx%lld "
                              "c%d %s",
                              s->custom->name, (long long)out->w, (long long)out->h, (int)out->c,
                              gip_dtype_name(out->dt));
        break;
    }
    default:
        break;
    }
    return GIP_OK;
}

/* Pixels read around an output pixel, in x and y; -1 for the whole image. */
static void step_halo(const gip__step *s, int64_t *hx, int64_t *hy)
{
    *hx = *hy = 0;
    switch (s->kind) {
    case GIP__STEP_GAUSSIAN: {
        /* A size derived from sigma: OpenCV's larger (non-8-bit) rule, 4 sigma each side. */
        const gip_gaussian_params *g = &s->u.gauss;
        double sy = g->sigma_y > 0 ? g->sigma_y : g->sigma_x;
        *hx = g->ksize_w ? g->ksize_w / 2 : (int64_t)(g->sigma_x * 4 + 1);
        *hy = g->ksize_h ? g->ksize_h / 2 : (int64_t)(sy * 4 + 1);
        break;
    }
    case GIP__STEP_BOX: {
        int64_t kw = s->u.box.ksize_w ? s->u.box.ksize_w : 3;
        int64_t kh = s->u.box.ksize_h ? s->u.box.ksize_h : 3;
        *hx = s->u.box.has_anchor
                  ? (s->u.box.anchor_x > kw - 1 - s->u.box.anchor_x ? s->u.box.anchor_x
                                                                    : kw - 1 - s->u.box.anchor_x)
                  : kw / 2;
        *hy = s->u.box.has_anchor
                  ? (s->u.box.anchor_y > kh - 1 - s->u.box.anchor_y ? s->u.box.anchor_y
                                                                    : kh - 1 - s->u.box.anchor_y)
                  : kh / 2;
        break;
    }
    case GIP__STEP_FILTER2D: {
        int64_t kw = s->u.f2d.ksize_w, kh = s->u.f2d.ksize_h;
        int64_t ax = s->u.f2d.has_anchor ? s->u.f2d.anchor_x : kw / 2;
        int64_t ay = s->u.f2d.has_anchor ? s->u.f2d.anchor_y : kh / 2;
        *hx = ax > kw - 1 - ax ? ax : kw - 1 - ax;
        *hy = ay > kh - 1 - ay ? ay : kh - 1 - ay;
        break;
    }
    case GIP__STEP_SOBEL:
    case GIP__STEP_EDGES: {
        int32_t k = s->u.sobel.p.ksize;
        *hx = *hy = k == GIP_SCHARR || k <= 3 ? 1 : k / 2;
        break;
    }
    case GIP__STEP_STENCIL:
        *hx = *hy = s->u.sten.radius ? s->u.sten.radius : GIP_STENCIL_MAX_RADIUS;
        break;
    case GIP__STEP_SPECTRUM:
        *hx = *hy = -1;
        break;
    case GIP__STEP_CUSTOM:
        *hx = *hy = s->custom->step.halo;
        break;
    default:
        break;
    }
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

/* Non-zero when an expression names x, y, width or height: its value then depends on the pixel's
 * position and a table indexed by the value cannot replace it. Conservative: any identifier
 * token with one of these names counts, wherever it appears. */
bool gip__expr_uses_position(const char *e)
{
    static const char *const names[] = {"x", "y", "width", "height"};
    for (const char *q = e; *q;) {
        if (isalpha((unsigned char)*q) || *q == '_') {
            const char *b = q;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            size_t len = (size_t)(q - b);
            for (size_t k = 0; k < 4; k++)
                if (strlen(names[k]) == len && strncmp(b, names[k], len) == 0)
                    return true;
        } else if (isdigit((unsigned char)*q) || *q == '.') {
            /* Skip numbers whole so that the exponent of 1e5 is not read as an identifier. */
            while (isalnum((unsigned char)*q) || *q == '.')
                q++;
        } else {
            q++;
        }
    }
    return false;
}

/* A point-wise step whose every output element is a function of the same element of the input
 * and of its channel index only. */
static bool step_lutable(const gip__step *s)
{
    switch (s->kind) {
    case GIP__STEP_INVERT:
    case GIP__STEP_CONVERT:
        return true;
    case GIP__STEP_MAP:
        return !gip__expr_uses_position(s->expr);
    default:
        return false;
    }
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
        gip_status st = step_shape(p, &p->steps[i], cur, &out, &identity);
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
        /* 1. invert | invert on integer images is the identity: both go. */
        int32_t k = 0;
        for (int32_t i = 0; i < m; i++) {
            gip__plan_item *it = &p->plan[i];
            if (k > 0 && p->steps[it->first].kind == GIP__STEP_INVERT &&
                p->steps[p->plan[k - 1].first].kind == GIP__STEP_INVERT &&
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
        if ((st = step_shape(p, &p->steps[i], s_in, &out, &identity)) ||
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
    switch (s->kind) {
    case GIP__STEP_INVERT:
        st = gip_invert(ctx, src, dst, &s->u.inv);
        break;
    case GIP__STEP_GAUSSIAN:
        st = gip_gaussian_blur(ctx, src, dst, &s->u.gauss);
        break;
    case GIP__STEP_BOX:
        st = gip_box_filter(ctx, src, dst, &s->u.box);
        break;
    case GIP__STEP_FILTER2D:
        st = gip_filter2d(ctx, src, dst, &s->u.f2d);
        break;
    case GIP__STEP_SOBEL:
        st = gip_sobel(ctx, src, dst, &s->u.sobel.p);
        break;
    case GIP__STEP_EDGES:
        if (src->channels == 1) {
            st = gip_sobel_magnitude(ctx, src, dst, &s->u.sobel.p);
        } else {
            int32_t slot = -1;
            if (!(st = pool_acquire(p, src->width, src->height, 1, src->dtype, pool_mem(src),
                                    &slot))) {
                gip_image gray = p->pool[slot].img;
                st = gip_cvt_color(ctx, src, &gray,
                                   src->channels == 4 ? GIP_COLOR_RGBA2GRAY : GIP_COLOR_RGB2GRAY);
                if (!st)
                    st = gip_sobel_magnitude(ctx, &gray, dst, &s->u.sobel.p);
            }
            pool_release(p, slot);
        }
        break;
    case GIP__STEP_GRAY:
        st = src->channels == 1
                 ? gip_copy(ctx, src, dst)
                 : gip_cvt_color(ctx, src, dst,
                                 src->channels == 4 ? GIP_COLOR_RGBA2GRAY : GIP_COLOR_RGB2GRAY);
        break;
    case GIP__STEP_CONVERT:
        st = gip_convert(ctx, src, dst, s->u.conv.scale, s->u.conv.offset);
        break;
    case GIP__STEP_MAP:
        st = gip_map(ctx, s->expr, src, 1, s->scalars, s->n_scalars, dst);
        break;
    case GIP__STEP_STENCIL:
        st = gip_stencil(ctx, s->expr, src, dst, &s->u.sten);
        break;
    case GIP__STEP_SPECTRUM:
        st = gip_spectrum(ctx, src, dst, &s->u.spec);
        break;
    case GIP__STEP_CUSTOM:
        st = s->custom->step.run(s->custom->step.user, ctx, src, dst);
        break;
    }
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
                        (s->kind == GIP__STEP_INVERT || s->kind == GIP__STEP_CONVERT);
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
