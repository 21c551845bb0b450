/* SPDX-License-Identifier: MIT */
/* A pipeline's plan for an input shape: each step's output shape and halo, identities skipped,
 * and the fusions (an involution twice on integer images is dropped; runs of table-able
 * point-wise steps on u8 images become one table pass); the output shape and the description. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline_steps.h"
#include "registry/registry.h"

/* ---- shapes and halos ----------------------------------------------------------------------- */

const char *gip__step_name(const gip__step *s)
{
    return s->op ? s->op->name : s->custom->name;
}

typedef struct gip__shape shape;

gip_status gip__step_shape(gip_pipeline *p, const gip__step *s, int32_t index, shape in, shape *out,
                           bool *identity)
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
        gip_shape i = {in.w, in.h, in.c, in.dt}, o = i;
        int32_t ident = 0;
        gip_status st = gip__op_shape(op, s->params, &i, &o, &ident);
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
    gip_clear_error();
    gip_status st =
        s->custom->step.shape(s->custom->step.user, &probe, &out->w, &out->h, &out->c, &out->dt);
    if (st) {
        /* The callback's own message, or one saying what it refused: never a bare status. */
        char msg[GIP__MSG_SIZE];
        snprintf(msg, sizeof msg, "%s", gip_last_error());
        if (!*msg)
            return gip__error(p->ctx, st,
                              "pipeline step %d (%s): the custom step refuses a %lldx%lld "
                              "%d-channel %s input (%s)",
                              (int)index + 1, s->custom->name, (long long)in.w, (long long)in.h,
                              (int)in.c, gip_dtype_name(in.dt), gip_status_name(st));
        return gip__error(p->ctx, st, "pipeline step %d (%s): %s", (int)index + 1, s->custom->name,
                          msg);
    }
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
    gip__pipeline_drop_plan(p);
    p->plan = calloc((size_t)(p->n ? p->n : 1), sizeof *p->plan);
    if (!p->plan)
        return gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory for the plan");
    /* Shapes of every step's output, identities dropped. */
    shape cur = in;
    int32_t m = 0;
    for (int32_t i = 0; i < p->n; i++) {
        shape out;
        bool identity;
        gip_status st = gip__step_shape(p, &p->steps[i], i, cur, &out, &identity);
        if (st) {
            gip__pipeline_drop_plan(p);
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

gip_status gip__pipeline_ensure_plan(gip_pipeline *p, shape in)
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
    if ((st = gip__pipeline_ensure_plan(p, in)))
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
    gip_status st = gip__pipeline_ensure_plan(p, in);
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

gip_status gip_pipeline_try(gip_pipeline *p, int64_t w, int64_t h, int32_t c, gip_dtype dt,
                            int32_t *oc, gip_dtype *odt)
{
    if (!p || !oc || !odt)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_try: %s is NULL",
                          !p ? "p" : "an output pointer");
    w = w < 64 ? w : 64;
    h = h < 64 ? h : 64;
    int64_t ow, oh;
    gip_image src = {0}, dst = {0};
    gip_status st = gip_pipeline_output_shape(p, w, h, c, dt, &ow, &oh, oc, odt);
    if (!st && !(st = gip_image_alloc(NULL, &src, w, h, c, dt, GIP_MEM_HOST, 0)) &&
        !(st = gip_image_alloc(NULL, &dst, ow, oh, *oc, *odt, GIP_MEM_HOST, 0))) {
        for (int64_t y = 0; y < h; y++)
            memset((uint8_t *)src.data + y * src.stride, 0, (size_t)gip_image_row_bytes(&src));
        st = gip_pipeline_run(p, &src, &dst);
    }
    gip_image_free(NULL, &dst);
    gip_image_free(NULL, &src);
    return st;
}
