/* SPDX-License-Identifier: MIT */
/* Pipelines: the step list built from C calls (gip_pipeline_add_*, pipeline_add.c) or the parser
 * (parse.c), creation, cloning and freeing. The plan and its fusions are in pipeline_plan.c, the
 * pool of intermediates and the runs in pipeline_run.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"
#include "registry/registry.h"

/* ---- step list ------------------------------------------------------------------------------ */

void gip__step_fini(gip__step *s)
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

void gip__pipeline_drop_plan(gip_pipeline *p)
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
            gip__step_fini(s);
            return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for a step");
        }
        p->steps = bigger;
        p->cap = cap;
    }
    p->steps[p->n++] = *s;
    gip__pipeline_drop_plan(p);
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
    gip__pipeline_drop_plan(dst);
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
    gip__pipeline_drop_plan(p);
    drop_luts(p);
    for (int32_t i = 0; i < p->n; i++)
        gip__step_fini(&p->steps[i]);
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
    return gip__pipeline_clone_range(p, desc, 0, p->n, out);
}

gip_status gip__pipeline_clone_range(const gip_pipeline *p, const gip_context_desc *desc,
                                     int32_t first, int32_t last, gip_pipeline **out)
{
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
    c->xfer_staging = p->xfer_staging;
    for (int32_t i = first; i < last; i++) {
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
    gip__pipeline_drop_plan(p);
    gip_pipeline_free(p->twin);
    p->twin = NULL;
    return GIP_OK;
}

bool gip__pipeline_shrinks_on_load(const gip_pipeline *p)
{
    return p && p->n >= 1 && p->steps[0].op && p->steps[0].op->load_reduce;
}

void gip__pipeline_shrink_on_load(const gip_pipeline *p, const char *path, const void *data,
                                  size_t size, gip_load_params *lp)
{
    if (!lp || lp->reduce != 0 || !gip__pipeline_shrinks_on_load(p))
        return;
    gip_image_info info;
    if ((path ? gip_image_probe(path, &info) : gip_image_probe_memory(data, size, &info)) !=
        GIP_OK) {
        gip_clear_error();
        return;
    }
    int32_t n =
        gip__op_load_reduce(p->steps[0].op, p->steps[0].params, &info, lp->ignore_orientation);
    if (n > 1)
        lp->reduce = n;
}
