/* SPDX-License-Identifier: MIT */
/* The batch engine's private state, shared by its files: batch.c (gip_batch_run: setup, codec
 * preparation, the threads, the report), batch_inputs.c (listing inputs, naming outputs),
 * batch_decode.c (reading and decoding files), batch_compute.c (computing and encoding one file)
 * and batch_workers.c (the worker and compute threads and their queues). */
#ifndef GIP_PIPELINE_BATCH_ENGINE_H
#define GIP_PIPELINE_BATCH_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "internal.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define GIP__BATCH_MAX 64 /* most files in one decode_batch call */

/* The events GIP_BATCH_TRACE records per file, in this order (batch.c names them). */
enum {
    TR_READ,
    TR_DECODE,
    TR_DECODED,
    TR_COMPUTE,
    TR_UPLOADED,
    TR_COMPUTED,
    TR_DOWNLOADED,
    TR_ENCODE,
    TR_ENCODED,
    TR_WRITTEN,
    GIP__TRACE_N
};

typedef struct item {
    int64_t index;
    int32_t pipe;     /* the compute pipeline it goes to */
    gip_image img;    /* decoded: host (gip_image_alloc(NULL)) or device of pipes[pipe] */
    gip_image result; /* computed: host, or device when the codec encodes on the device */
    char note[320];   /* what fit_item() converted, "" when nothing */
} item;

/* Per compute thread: the pinned and device staging buffers, kept while shapes repeat. */
typedef struct stage {
    gip_image pin_in, dev_in, dev_out, pin_out;
} stage;

typedef struct engine {
    gip_pipeline *const *pipes;
    int32_t npipes;
    const char *const *inputs;
    char **outs;      /* output path per input */
    char **collision; /* non-NULL: the earlier input that has this output name */
    int64_t n;
    const gip_batch_options *o;
    gip_load_params lp;
    gip_save_params sp;
    bool shrink; /* the first step shrinks JPEGs on load: each file's own lp.reduce */
    bool cuda, inline_cpu;
    int32_t cores, jobs;         /* cores this process may use; worker threads */
    int32_t depth, cq_depth;     /* capacity of the encode queue and of each compute queue */
    int64_t decoders, encoders;  /* decode and encode calls that may run at once (the codec's) */
    gip_pipeline **worker_pipes; /* inline mode: one clone per worker */

    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_compute, cv_space, cv_decode;
    /* Batch decodes allowed at once on a device, and running per device: pipeline q counts in
     * decode_active[dev_first[q]], dev_first[q] being the first pipeline on its device. */
    int32_t decode_calls, *decode_active, *dev_first;
    /* Groups taken and not yet decoding, per device (same index): when decode calls are limited
     * (gated: CUDA, or GIP_BATCH_DECODE_CALLS) a worker takes a group only while fewer than
     * decode_calls wait, so each group's files are read while the group before it decodes rather
     * than all at once (64 files read together delay the first decode by tens of ms). */
    int32_t *waiting;
    bool gated;
    gip__ring *cq; /* per pipeline */
    int32_t *reserved;
    gip__ring eq;
    int64_t next, decoding, in_flight;
    int32_t compute_left;
    int32_t batch; /* files a worker decodes at once: codec->batch_size with decode_batch, else 1 */

    pthread_mutex_t report_mu;
    gip_batch_stats st;
    double t0, last_progress;
    double (*trace)[GIP__TRACE_N]; /* GIP_BATCH_TRACE: each file's events, seconds from t0 */
} engine;

/* Records event `ev` of file i at time t (GIP_BATCH_TRACE set; each file is in one stage at a
 * time, so its row has one writer at a time). */
static inline void mark(engine *e, int64_t i, int ev, double t)
{
    if (e->trace)
        e->trace[i][ev] = t - e->t0;
}

static inline void add_time(engine *e, double *field, double dt)
{
    pthread_mutex_lock(&e->report_mu);
    *field += dt;
    pthread_mutex_unlock(&e->report_mu);
}

/* A stage of file i that ran from t0 to t1: events `begin` at t0 and `end` at t1, and t1 - t0
 * added to the stage's total *field. */
static inline void mark_stage(engine *e, int64_t i, int begin, double t0, int end, double t1,
                              double *field)
{
    mark(e, i, begin, t0);
    mark(e, i, end, t1);
    add_time(e, field, t1 - t0);
}

/* ---- batch.c ------------------------------------------------------------------------------ */
/* Records a finished file and calls the callbacks (serialised). */
void gip__batch_report(engine *e, int64_t index, gip_status status, const char *msg, bool skipped);

/* ---- batch_inputs.c ----------------------------------------------------------------------- */
/* Output paths: out_dir/<name without extension>.<ext> into e->outs; collisions recorded in
 * e->collision. */
gip_status gip__batch_make_outputs(engine *e, const char *out_dir);
/* The format of an output path (gip__batch_make_outputs gave it one of these extensions). */
gip_format gip__batch_output_format(const char *path);

/* ---- batch_decode.c ----------------------------------------------------------------------- */
void gip__batch_item_free(engine *e, item *it);
/* Reads the whole file into a malloc'd buffer. */
gip_status gip__batch_read_file(const char *path, void **data, size_t *size);
/* Read + decode of input it->index into it->img. */
gip_status gip__batch_decode_item(engine *e, item *it);
/* A group of pipeline q leaves the waiting count (its decode starts, or it has nothing left to
 * decode): another worker may take a group. Called once per group, with e->mu held. */
void gip__batch_group_started(engine *e, int32_t q);
/* Read + decode of the inputs idx[0..k-1] bound for compute queue q: items[j] receives each
 * decoded item, or NULL for a file that failed (reported here). */
void gip__batch_decode_group(engine *e, int32_t q, const int64_t *idx, int32_t k, item **items);

/* ---- batch_compute.c ---------------------------------------------------------------------- */
/* Compute of one item on pipeline p, with staging buffers sg (CUDA). */
gip_status gip__batch_compute_item(engine *e, gip_pipeline *p, stage *sg, item *it);
void gip__batch_stage_free(gip_context *ctx, stage *sg);
/* Encode + write of it->result; *skipped when the output appeared meanwhile. */
gip_status gip__batch_encode_item(engine *e, item *it, bool *skipped);

/* ---- batch_workers.c: thread bodies (pthread_create) ------------------------------------- */
/* Inline CPU mode: every stage of an image on one thread. arg: {engine *, gip_pipeline *}. */
void *gip__batch_inline_worker(void *arg);
/* Staged mode: encodes what is ready, else decodes the next inputs. arg: the engine. */
void *gip__batch_staged_worker(void *arg);
/* Staged mode: computes the items of one compute queue. arg: {engine *, queue index}. */
void *gip__batch_compute_thread(void *arg);

#endif
