/* SPDX-License-Identifier: MIT */
/* Tiled pipeline runs for images larger than the memory they may use: each tile is computed on
 * the tile grown by the chain's halo (clipped to the image, so image edges keep each step's
 * border rule and inner edges read real neighbours) and its inner part is kept, which makes the
 * result identical to the untiled run. Host images on a CUDA pipeline go through two lanes
 * (the pipeline and a clone, each with its own stream) so that one tile's copies overlap the
 * other's compute. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"
#include "registry/registry.h"

/* The border mode a filter step uses, or -1 for steps without one. */
static int step_border(const gip__step *s)
{
    return s->op ? (int)gip__op_border(s->op, s->params) : -1;
}

gip_status gip__pipeline_tileable(gip_pipeline *p, int64_t w, int64_t h, int32_t c, gip_dtype dt,
                                  bool split_x, const char *op)
{
    for (int32_t i = 0; i < p->n; i++) {
        const gip__step *s = &p->steps[i];
        const char *name = gip__step_name(s);
        if (s->op ? (s->op->flags & GIP_OP_WHOLE) != 0 : s->custom->step.halo < 0)
            return gip__error(p->ctx, GIP_ERR_UNSUPPORTED,
                              "%s: the pipeline cannot run in %s: step %d (%s) reads the whole "
                              "image (halo -1); give it more memory or run it untiled",
                              op, split_x ? "tiles" : "row bands", (int)i + 1, name);
        if (step_border(s) == GIP_BORDER_WRAP)
            return gip__error(p->ctx, GIP_ERR_UNSUPPORTED,
                              "%s: the pipeline cannot run in %s: step %d (%s) uses border=wrap, "
                              "which reads the opposite edge of the image; use another border",
                              op, split_x ? "tiles" : "row bands", (int)i + 1, name);
        if (s->op && s->op->position && s->op->position(s->params))
            return gip__error(p->ctx, GIP_ERR_UNSUPPORTED,
                              "%s: the pipeline cannot run in %s: step %d (%s) uses x, y, width "
                              "or height, which differ in a tile",
                              op, split_x ? "tiles" : "row bands", (int)i + 1, name);
    }
    int64_t ow, oh;
    int32_t oc;
    gip_dtype odt;
    gip_status st = gip_pipeline_output_shape(p, w, h, c, dt, &ow, &oh, &oc, &odt);
    if (st)
        return st;
    for (int32_t i = 0; i < p->nplan; i++)
        if (p->plan[i].w != w || p->plan[i].h != h)
            return gip__error(p->ctx, GIP_ERR_UNSUPPORTED,
                              "%s: the pipeline cannot run in %s: step %d (%s) changes the image "
                              "size",
                              op, split_x ? "tiles" : "row bands", (int)p->plan[i].first + 1,
                              gip__step_name(&p->steps[p->plan[i].first]));
    return GIP_OK;
}

int64_t gip__pipeline_bytes_per_pixel(gip_pipeline *p, int32_t c, gip_dtype dt)
{
    int64_t in = c * (int64_t)gip_dtype_size(dt), out = in, big = in;
    for (int32_t i = 0; i < p->nplan; i++) {
        int64_t b = p->plan[i].c * (int64_t)gip_dtype_size(p->plan[i].dt);
        big = b > big ? b : big;
        out = b;
    }
    /* Separable filters keep an f32 row pass per channel: count it as one more intermediate. */
    int64_t scratch = 4 * (int64_t)c > big ? 4 * (int64_t)c : big;
    return in + out + 2 * big + scratch;
}

/* The device memory a run may use: the pipeline's limit, else 3/4 of the device's memory. */
static int64_t device_limit(gip_pipeline *p)
{
    if (p->mem_limit > 0)
        return p->mem_limit;
    gip_device_info info;
    if (gip_device_get_info(gip_context_device(p->ctx), &info) != GIP_OK)
        return INT64_MAX;
    return info.total_memory / 4 * 3;
}

bool gip__pipeline_needs_tiles(gip_pipeline *p, const gip_image *src)
{
    int64_t bpp = gip__pipeline_bytes_per_pixel(p, src->channels, src->dtype);
    int64_t limit = device_limit(p);
    return (double)bpp * (double)src->width * (double)src->height > (double)limit;
}

gip_status gip_pipeline_set_memory_limit(gip_pipeline *p, int64_t bytes)
{
    if (!p)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_pipeline_set_memory_limit: p is NULL");
    if (bytes < 0)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "gip_pipeline_set_memory_limit: %lld bytes is invalid; accepted: 0 (the "
                          "device's memory) or a positive byte count",
                          (long long)bytes);
    p->mem_limit = bytes;
    if (p->twin)
        p->twin->mem_limit = bytes;
    return GIP_OK;
}

int64_t gip_pipeline_memory_limit(const gip_pipeline *p)
{
    return p ? p->mem_limit : 0;
}

/* Chooses the inner tile size for `lanes` tiles in flight within `limit` bytes: full-width bands
 * when a band of at least 16 rows fits, else squares. */
static gip_status choose_tiles(gip_pipeline *p, int64_t w, int64_t h, int64_t hx, int64_t hy,
                               int64_t bpp, int64_t limit, int lanes, const char *op, int64_t *tw,
                               int64_t *th)
{
    double budget = (double)limit / lanes / (double)bpp; /* pixels of one region */
    double band_rows = budget / (double)w;
    if (band_rows >= (double)(2 * hy + 16)) {
        *tw = w;
        *th = (int64_t)band_rows - 2 * hy;
    } else {
        int64_t side = (int64_t)sqrt(budget);
        int64_t hmax = hx > hy ? hx : hy;
        if (side - 2 * hmax < 1)
            return gip__error(p->ctx, GIP_ERR_TOO_LARGE,
                              "%s: a memory limit of %lld bytes cannot hold a tile: the chain "
                              "reads %lld x %lld pixels around each output pixel and needs %lld "
                              "bytes per pixel; raise the limit",
                              op, (long long)limit, (long long)hx, (long long)hy, (long long)bpp);
        *tw = *th = side - 2 * hmax;
    }
    if (*tw > w)
        *tw = w;
    if (*th > h)
        *th = h;
    return GIP_OK;
}

/* One tile: inner rectangle (x, y, w, h) of the output, and where its region starts. */
typedef struct tile {
    int64_t x, y, w, h; /* inner part, in image coordinates */
    int64_t rx, ry;     /* region origin (the region has the fixed size rw x rh) */
} tile;

typedef struct grid {
    int64_t w, h, tw, th, rw, rh, hx, hy, nx, ny;
} grid;

/* Regions all have one size (tile + 2 halo, at most the image), shifted inside the image at its
 * edges: the inner part stays at least a halo away from every region edge that is not an image
 * edge, and one plan and one pool serve every tile. */
static tile grid_tile(const grid *g, int64_t k)
{
    tile t;
    int64_t ix = k % g->nx, iy = k / g->nx;
    t.x = ix * g->tw;
    t.y = iy * g->th;
    t.w = t.x + g->tw <= g->w ? g->tw : g->w - t.x;
    t.h = t.y + g->th <= g->h ? g->th : g->h - t.y;
    t.rx = t.x - g->hx;
    t.ry = t.y - g->hy;
    t.rx = t.rx < 0 ? 0 : t.rx > g->w - g->rw ? g->w - g->rw : t.rx;
    t.ry = t.ry < 0 ? 0 : t.ry > g->h - g->rh ? g->h - g->rh : t.ry;
    return t;
}

/* A lane of a host run on CUDA: its pipeline (own stream), staging and device buffers, and the
 * tile whose result is on its way to pin_out. */
typedef struct lane {
    gip_pipeline *p;
    gip_image pin_in, dev_in, dev_out, pin_out;
    bool busy;
    tile t;
} lane;

static void lane_free(lane *l)
{
    gip_context *ctx = gip_pipeline_context(l->p);
    gip_image_free(ctx, &l->pin_in);
    gip_image_free(ctx, &l->dev_in);
    gip_image_free(ctx, &l->dev_out);
    gip_image_free(ctx, &l->pin_out);
}

/* Waits for the lane's tile and copies its result into dst. */
static gip_status lane_flush(lane *l, gip_image *dst)
{
    if (!l->busy)
        return GIP_OK;
    l->busy = false;
    gip_context *ctx = gip_pipeline_context(l->p);
    gip_image from, to;
    gip_status st;
    if ((st = gip_context_sync(ctx)) ||
        (st = gip_image_roi(&l->pin_out, 0, 0, l->t.w, l->t.h, &from)) ||
        (st = gip_image_roi(dst, l->t.x, l->t.y, l->t.w, l->t.h, &to)))
        return st;
    return gip_copy(ctx, &from, &to);
}

/* Queues tile t on the lane: src region to pinned memory, upload, run, download of the inner
 * part (all asynchronous on the lane's stream). */
static gip_status lane_start(lane *l, const gip_image *src, const grid *g, tile t)
{
    gip_context *ctx = gip_pipeline_context(l->p);
    gip_image region, crop, pin_crop;
    gip_status st;
    if ((st = gip_image_roi(src, t.rx, t.ry, g->rw, g->rh, &region)) ||
        (st = gip_copy(ctx, &region, &l->pin_in)) ||
        (st = gip_upload(ctx, &l->pin_in, &l->dev_in)) ||
        (st = gip_pipeline_run(l->p, &l->dev_in, &l->dev_out)) ||
        (st = gip_image_roi(&l->dev_out, t.x - t.rx, t.y - t.ry, t.w, t.h, &crop)) ||
        (st = gip_image_roi(&l->pin_out, 0, 0, t.w, t.h, &pin_crop)) ||
        (st = gip_download(ctx, &crop, &pin_crop)))
        return st;
    l->t = t;
    l->busy = true;
    return GIP_OK;
}

static gip_status run_lanes(gip_pipeline *p, const gip_image *src, gip_image *dst, const grid *g)
{
    gip_status st = GIP_OK;
    if (!p->twin) {
        gip_context_desc d = {0};
        d.backend = GIP_BACKEND_CUDA;
        d.device = gip_context_device(p->ctx);
        d.threads = gip_context_threads(p->ctx);
        if ((st = gip_pipeline_clone(p, &d, &p->twin)))
            return st;
    }
    lane lanes[2] = {{.p = p}, {.p = p->twin}};
    for (int k = 0; k < 2 && !st; k++) {
        gip_context *ctx = gip_pipeline_context(lanes[k].p);
        if ((st = gip_image_alloc(ctx, &lanes[k].pin_in, g->rw, g->rh, src->channels, src->dtype,
                                  GIP_MEM_PINNED, 0)) ||
            (st = gip_image_alloc(ctx, &lanes[k].dev_in, g->rw, g->rh, src->channels, src->dtype,
                                  GIP_MEM_CUDA, 0)) ||
            (st = gip_image_alloc(ctx, &lanes[k].dev_out, g->rw, g->rh, dst->channels, dst->dtype,
                                  GIP_MEM_CUDA, 0)) ||
            (st = gip_image_alloc(ctx, &lanes[k].pin_out, g->tw, g->th, dst->channels, dst->dtype,
                                  GIP_MEM_PINNED, 0)))
            break;
    }
    for (int64_t k = 0; k < g->nx * g->ny && !st; k++) {
        lane *l = &lanes[k % 2];
        if (!(st = lane_flush(l, dst)))
            st = lane_start(l, src, g, grid_tile(g, k));
    }
    for (int k = 0; k < 2; k++) {
        gip_status s2 = lane_flush(&lanes[k], dst);
        st = st ? st : s2;
        lane_free(&lanes[k]);
    }
    return st;
}

/* One lane in the images' own memory (host on a CPU context, device on a CUDA one). */
static gip_status run_direct(gip_pipeline *p, const gip_image *src, gip_image *dst, const grid *g)
{
    gip_image out = {0};
    gip_memory mem = src->memory == GIP_MEM_CUDA ? GIP_MEM_CUDA : GIP_MEM_HOST;
    gip_status st = gip_image_alloc(mem == GIP_MEM_CUDA ? p->ctx : NULL, &out, g->rw, g->rh,
                                    dst->channels, dst->dtype, mem, 0);
    if (st)
        return st;
    for (int64_t k = 0; k < g->nx * g->ny && !st; k++) {
        tile t = grid_tile(g, k);
        gip_image region, crop, to;
        if (!(st = gip_image_roi(src, t.rx, t.ry, g->rw, g->rh, &region)) &&
            !(st = gip_pipeline_run(p, &region, &out)) &&
            !(st = gip_image_roi(&out, t.x - t.rx, t.y - t.ry, t.w, t.h, &crop)) &&
            !(st = gip_image_roi(dst, t.x, t.y, t.w, t.h, &to)))
            st = gip_copy(p->ctx, &crop, &to);
    }
    gip_image_free(mem == GIP_MEM_CUDA ? p->ctx : NULL, &out);
    return st;
}

gip_status gip__pipeline_run_tiles(gip_pipeline *p, const gip_image *src, gip_image *dst,
                                   int64_t tile_w, int64_t tile_h, int64_t limit, const char *op)
{
    gip_status st =
        gip__pipeline_tileable(p, src->width, src->height, src->channels, src->dtype, true, op);
    if (st)
        return st;
    int64_t hx, hy;
    if ((st = gip_pipeline_halo(p, &hx, &hy)))
        return st;
    bool lanes = gip_image_on_host(src) && gip_context_backend(p->ctx) == GIP_BACKEND_CUDA;
    grid g = {.w = src->width, .h = src->height, .hx = hx, .hy = hy};
    if (tile_w <= 0 || tile_h <= 0) {
        if (limit <= 0)
            limit = gip_context_backend(p->ctx) == GIP_BACKEND_CUDA ? device_limit(p) : INT64_MAX;
        int64_t bpp = gip__pipeline_bytes_per_pixel(p, src->channels, src->dtype);
        int64_t tw = 0, th = 0;
        if ((st = choose_tiles(p, g.w, g.h, hx, hy, bpp, limit, lanes ? 2 : 1, op, &tw, &th)))
            return st;
        tile_w = tile_w > 0 ? tile_w : tw;
        tile_h = tile_h > 0 ? tile_h : th;
    }
    g.tw = tile_w < g.w ? tile_w : g.w;
    g.th = tile_h < g.h ? tile_h : g.h;
    g.rw = g.tw + 2 * hx < g.w ? g.tw + 2 * hx : g.w;
    g.rh = g.th + 2 * hy < g.h ? g.th + 2 * hy : g.h;
    g.nx = (g.w + g.tw - 1) / g.tw;
    g.ny = (g.h + g.th - 1) / g.th;
    return lanes ? run_lanes(p, src, dst, &g) : run_direct(p, src, dst, &g);
}

gip_status gip_pipeline_run_tiled(gip_pipeline *p, const gip_image *src, gip_image *dst,
                                  const gip_tile_params *params)
{
    static const char op[] = "gip_pipeline_run_tiled";
    gip_tile_params tp = {0};
    if (params)
        tp = *params;
    if (p && (tp.tile_width < 0 || tp.tile_height < 0 || tp.memory_limit < 0))
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: tile %lldx%lld with memory limit %lld is invalid; accepted: sizes "
                          ">= 1 (0: from the limit) and a limit >= 0 (0: the device's memory)",
                          op, (long long)tp.tile_width, (long long)tp.tile_height,
                          (long long)tp.memory_limit);
    gip_status st = gip__pipeline_check_run(p, src, dst, op);
    if (st)
        return st;
    return gip__pipeline_run_tiles(p, src, dst, tp.tile_width, tp.tile_height,
                                   tp.memory_limit ? tp.memory_limit : p->mem_limit, op);
}
