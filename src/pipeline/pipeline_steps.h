/* SPDX-License-Identifier: MIT */
/* The pipeline structure shared by pipeline.c (build, plan, run) and parse.c (text to steps). */
#ifndef GIP_PIPELINE_STEPS_H
#define GIP_PIPELINE_STEPS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "gip/pipeline.h"

typedef struct gip__shape {
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
} gip__shape;

typedef enum gip__step_kind {
    GIP__STEP_INVERT,
    GIP__STEP_GAUSSIAN,
    GIP__STEP_BOX,
    GIP__STEP_FILTER2D,
    GIP__STEP_SOBEL,
    GIP__STEP_EDGES,
    GIP__STEP_GRAY,
    GIP__STEP_CONVERT,
    GIP__STEP_MAP,
    GIP__STEP_STENCIL,
    GIP__STEP_SPECTRUM,
    GIP__STEP_CUSTOM
} gip__step_kind;

/* A caller-defined step, shared by the clones of a pipeline (reference counted). */
typedef struct gip__custom {
    gip_pipeline_step step;
    char *name;
    atomic_int refs;
} gip__custom;

typedef struct gip__step {
    gip__step_kind kind;
    union {
        gip_invert_params inv;
        gip_gaussian_params gauss;
        gip_box_params box;
        gip_filter2d_params f2d; /* kernel points at `kernel` */
        struct {
            gip_sobel_params p;
            gip_dtype dtype;
        } sobel; /* also edges */
        struct {
            gip_dtype dtype;
            double scale, offset;
        } conv;
        gip_stencil_params sten; /* scalars point at `scalars` */
        gip_spectrum_params spec;
    } u;
    char *expr;          /* map, stencil */
    gip_scalar *scalars; /* names point into scalar_names */
    char *scalar_names;
    size_t scalar_names_size;
    int32_t n_scalars;
    float *kernel; /* filter2d */
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
};

/* A pipeline without context, to collect the parser's steps before they are appended. */
gip_pipeline *gip__pipeline_new_bare(void);
/* Appends a step, taking ownership of its allocations (freed on failure). */
gip_status gip__pipeline_append(gip_pipeline *p, gip__step *s);
/* Moves every step of src to the end of dst (src is left empty). */
gip_status gip__pipeline_take_steps(gip_pipeline *dst, gip_pipeline *src);
const char *gip__step_name(const gip__step *s);
gip_status gip__step_run(gip_pipeline *p, const gip__step *s, int32_t index, const gip_image *src,
                         gip_image *dst);
/* Buffers held by the pool (tests check reuse). */
int64_t gip__pipeline_pool_count(const gip_pipeline *p);

#endif
