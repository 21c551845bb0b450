/* SPDX-License-Identifier: MIT */
/* Running a pipeline: the pool of intermediates, the tables of fused point-wise runs, one step,
 * the plan on an image (host images on a CUDA pipeline through the transfer engine, or in tiles
 * above the memory limit: tile.c) and on a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"
#include "transfer/host_transfer.h"

typedef struct gip__shape shape;

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
        if ((st = gip__step_shape(p, &p->steps[i], i, s_in, &out, &identity)) ||
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
    static const gip_image *const none[8] = {NULL}; /* optional inputs a step goes without */
    if (s->op && s->op->run_inputs)
        st = s->op->run_inputs(ctx, src, none, dst, s->params);
    else if (s->op)
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

#ifdef GIP_HAVE_CUDA
/* The transfer engine's computation: the plan on a region of device rows. */
static gip_status run_region(void *arg, gip_context *ctx, const gip_image *src, int64_t r0,
                             gip_image *dst)
{
    gip_pipeline *p = arg;
    (void)ctx;
    (void)r0;
    shape in = {src->width, src->height, src->channels, src->dtype};
    gip_status st = gip__pipeline_ensure_plan(p, in);
    return st ? st : run_plan(p, src, dst);
}
#endif

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
    if ((st = gip__pipeline_ensure_plan(p, in)))
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
    /* Host images above the device memory limit run in tiles (tile.c). */
    if (src_host && cuda && gip__pipeline_needs_tiles(p, src))
        return gip__pipeline_run_tiles(p, src, dst, 0, 0, 0, op);
    if (!(src_host && cuda))
        return run_plan(p, src, dst);
#ifdef GIP_HAVE_CUDA
    /* Host images on a CUDA pipeline: through the transfer engine, in row bands where every step
     * allows it (the tiles' rule), else in one band. */
    int64_t hx = -1, hy = -1;
    if (gip__pipeline_tileable(p, src->width, src->height, src->channels, src->dtype, false, op) ||
        gip_pipeline_halo(p, &hx, &hy))
        hy = -1;
    gip__xfer x = {.src = src,
                   .dst = dst,
                   .halo = hy,
                   .run = run_region,
                   .arg = p,
                   .staging = p->xfer_staging};
    return gip__xfer_run(p->ctx, &x);
#else
    return gip__error(p->ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
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
    gip__pipeline_shrink_on_load(p, in, NULL, 0, &lp);
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
