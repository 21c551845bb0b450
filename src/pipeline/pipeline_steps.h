/* SPDX-License-Identifier: MIT */
/* The pipeline structure shared by pipeline.c (the step list), pipeline_add.c (adding steps),
 * pipeline_plan.c (shapes, plan, fusions), pipeline_run.c (pool, runs), parse.c (text to steps)
 * and tile.c (tiled runs). */
#ifndef GIP_PIPELINE_STEPS_H
#define GIP_PIPELINE_STEPS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "gip/io.h"
#include "gip/op.h"
#include "gip/pipeline.h"

typedef struct gip__shape {
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
} gip__shape;

/* A caller-defined step, shared by the clones of a pipeline (reference counted). */
typedef struct gip__custom {
    gip_pipeline_step step;
    char *name;
    atomic_int refs;
} gip__custom;

/* A step: a registered operation with its typed parameter block (op->params_size bytes, owned),
 * or a caller-defined step (op NULL). */
typedef struct gip__step {
    const gip_op *op;
    void *params;
    gip__custom *custom;
} gip__step;

/* One pass of a run: steps first..last (more than one only for a fused table pass), its output
 * shape, and the dtype it reads. */
typedef struct gip__plan_item {
    int32_t first, last;
    bool lut;
    gip_dtype in_dtype;
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
} gip__plan_item;

typedef struct gip__pool_slot {
    gip_image img;
    bool used;
} gip__pool_slot;

/* The table of a fused run (steps first..last) for one channel count, in one memory. */
typedef struct gip__lut {
    int32_t first, last;
    gip_image table; /* 256 x 1, the run's channels and output dtype, tight */
} gip__lut;

struct gip_pipeline {
    gip_context *ctx; /* owned; NULL only for the parser's scratch pipeline */
    gip__step *steps;
    int32_t n, cap;
    uint32_t flags;
    /* the plan for the last input shape, and the pool that serves it */
    bool plan_valid;
    struct {
        int64_t w, h;
        int32_t c;
        gip_dtype dt;
    } plan_in;
    gip__plan_item *plan;
    int32_t nplan;
    gip__pool_slot *pool;
    int32_t npool;
    gip__lut *luts;
    int32_t nluts;
    /* tiling (tile.c): the device memory a run may use (0: the device's), and the second lane of
     * tiled host runs on CUDA (a clone with its own stream, made on first use) */
    int64_t mem_limit;
    gip_pipeline *twin;
    /* the page-locked staging the transfer engine may hold for this pipeline's host runs on CUDA
     * (0: the engine's default); a run bounded in host memory sets a share of its limit */
    int64_t xfer_staging;
};

/* A pipeline without context, to collect the parser's steps before they are appended. */
gip_pipeline *gip__pipeline_new_bare(void);
/* Appends a step, taking ownership of its allocations (freed on failure). */
gip_status gip__pipeline_append(gip_pipeline *p, gip__step *s);
/* Moves every step of src to the end of dst (src is left empty). */
gip_status gip__pipeline_take_steps(gip_pipeline *dst, gip_pipeline *src);
/* Frees a step's parameter block and drops its reference to a caller-defined step. */
void gip__step_fini(gip__step *s);
/* Frees every buffer of the pool and the plan (device buffers in stream order). */
void gip__pipeline_drop_plan(gip_pipeline *p);
const char *gip__step_name(const gip__step *s);
/* The output shape of a step for input `in`; *identity when the step leaves the image as is. A
 * step that refuses the input's dtype or channels says so, naming step `index` (from 0). */
gip_status gip__step_shape(gip_pipeline *p, const gip__step *s, int32_t index, gip__shape in,
                           gip__shape *out, bool *identity);
/* Builds the plan for input shape `in` unless the current one is for it. */
gip_status gip__pipeline_ensure_plan(gip_pipeline *p, gip__shape in);
gip_status gip__step_run(gip_pipeline *p, const gip__step *s, int32_t index, const gip_image *src,
                         gip_image *dst);
/* The checks of gip_pipeline_run() (NULLs, views, places, aliasing, dst's shape); builds the plan
 * for src's shape. */
gip_status gip__pipeline_check_run(gip_pipeline *p, const gip_image *src, const gip_image *dst,
                                   const char *op);
/* tile.c: whether a host image on a CUDA pipeline must run in tiles (above the memory limit), and
 * the tiled run itself (tile_w/tile_h 0: chosen from `limit`, which 0 means the device's). */
bool gip__pipeline_needs_tiles(gip_pipeline *p, const gip_image *src);
gip_status gip__pipeline_run_tiles(gip_pipeline *p, const gip_image *src, gip_image *dst,
                                   int64_t tile_w, int64_t tile_h, int64_t limit, const char *op);
/* tile.c: GIP_OK when every step computes an output pixel from a neighbourhood of at most the
 * chain's halo with the same result wherever the image is cut (split_x: cut across x too);
 * GIP_ERR_UNSUPPORTED naming the step otherwise. Builds the plan for `in`. */
gip_status gip__pipeline_tileable(gip_pipeline *p, int64_t w, int64_t h, int32_t c, gip_dtype dt,
                                  bool split_x, const char *op);
/* Bytes per pixel the plan for that input needs: input, output and three of the largest
 * intermediate (scratch of the filters included). */
int64_t gip__pipeline_bytes_per_pixel(gip_pipeline *p, int32_t c, gip_dtype dt);
/* Shrink-on-load: whether the first step declares gip_op.load_reduce; where lp->reduce is 0, its
 * factor for the JPEG file `path` (or the bytes data[0..size-1] when path is NULL) goes into
 * lp->reduce. Anything unreadable leaves lp as it is (the load reports it). */
bool gip__pipeline_shrinks_on_load(const gip_pipeline *p);
void gip__pipeline_shrink_on_load(const gip_pipeline *p, const char *path, const void *data,
                                  size_t size, gip_load_params *lp);
/* stream_stages.c: whether a step of p declares row bands (resize, thumbnail), and the row
 * streaming of such a chain from an opened reader of a w x h image into the file `out`, host
 * memory under `limit` bytes of which `fixed` go to the codecs. */
struct gip__row_reader;
bool gip__pipeline_bandable(const gip_pipeline *p);
gip_status gip__pipeline_stream_stages(gip_pipeline *p, struct gip__row_reader *rd, const char *out,
                                       const gip_save_params *save, int64_t w, int64_t h, int32_t c,
                                       gip_dtype dt, int64_t limit, int64_t fixed, const char *op);
/* A pipeline on a new context made from desc (NULL: like p's) with copies of steps
 * [first, last). */
gip_status gip__pipeline_clone_range(const gip_pipeline *p, const gip_context_desc *desc,
                                     int32_t first, int32_t last, gip_pipeline **out);
/* Buffers held by the pool (tests check reuse). */
int64_t gip__pipeline_pool_count(const gip_pipeline *p);

#endif
