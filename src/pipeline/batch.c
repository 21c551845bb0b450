/* SPDX-License-Identifier: MIT */
/* The batch engine (gip_batch_run): worker threads read, decode, encode and write; one compute
 * thread per pipeline uploads, runs and downloads; bounded queues between them keep memory
 * bounded. This file sets a batch up (sizes, queues, outputs, the codec's states), runs its
 * threads and reports; the stages and the threads are in the other batch_*.c files. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_engine.h"
#include "tuning.h"

void gip__batch_report(engine *e, int64_t index, gip_status status, const char *msg, bool skipped)
{
    pthread_mutex_lock(&e->report_mu);
    if (skipped)
        e->st.skipped++;
    else if (status)
        e->st.failed++;
    else
        e->st.written++;
    if (e->o->on_file)
        e->o->on_file(e->o->user, e->inputs[index], e->outs[index], status, msg ? msg : "",
                      skipped);
    double t = now();
    int64_t done = e->st.written + e->st.failed + e->st.skipped;
    double every = e->o->progress_interval > 0 ? e->o->progress_interval : 0.2;
    if (e->o->on_progress && (t - e->last_progress >= every || done == e->n)) {
        e->last_progress = t;
        gip_batch_progress pr = {e->n, done, e->st.written, e->st.failed, e->st.skipped, t - e->t0};
        e->o->on_progress(e->o->user, &pr);
    }
    pthread_mutex_unlock(&e->report_mu);
}

static const char *const trace_names[GIP__TRACE_N] = {
    "read",     "decode",     "decoded", "compute", "uploaded",
    "computed", "downloaded", "encode",  "encoded", "written"};

/* GIP_BATCH_TRACE=FILE: every file's events as CSV, milliseconds from the start of the clock
 * (-1: not reached, or a stage the run does not have: no upload or download on the CPU, after a
 * device decode or before a device encode), for finding where a run's time goes. A file that
 * cannot be written is reported on stderr. */
static void write_trace(const engine *e, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gip: GIP_BATCH_TRACE: cannot write '%s': %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "# gip batch trace: %lld files, setup %.1f ms before the clock, wall %.1f ms\nfile",
            (long long)e->n, e->st.t_setup * 1e3, e->st.wall * 1e3);
    for (int k = 0; k < GIP__TRACE_N; k++)
        fprintf(f, ",%s", trace_names[k]);
    fputc('\n', f);
    for (int64_t i = 0; i < e->n; i++) {
        fprintf(f, "%lld", (long long)i);
        for (int k = 0; k < GIP__TRACE_N; k++)
            fprintf(f, e->trace[i][k] < 0 ? ",-1" : ",%.3f", e->trace[i][k] * 1e3);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        fprintf(stderr, "gip: GIP_BATCH_TRACE: cannot write '%s'\n", path);
}

/* The arguments and options, checked before anything is allocated. */
static gip_status check_args(gip_pipeline *const *pipes, int32_t npipes, const char *const *inputs,
                             int64_t n_inputs, const char *out_dir, const gip_batch_options *o,
                             const char *op)
{
    if (!pipes || npipes < 1 || (!inputs && n_inputs) || n_inputs < 0 || !out_dir)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: pipes (%d of them), inputs and out_dir are required", op,
                          (int)npipes);
    for (int32_t i = 0; i < npipes; i++)
        if (!pipes[i] || !gip_pipeline_context(pipes[i]))
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: pipes[%d] is NULL", op, (int)i);
    if (o->jobs < 0 || o->jobs > 1024 || o->queue_depth < 0 || o->queue_depth > 1024 ||
        (unsigned)o->format > GIP_FORMAT_PNM || o->quality < 0 || o->quality > 100 ||
        (unsigned)o->cpu_mode > GIP_BATCH_CPU_STAGED ||
        (o->codec && (o->codec->batch_size < 0 || o->codec->batch_size > GIP__BATCH_MAX)))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: options out of range: jobs 0..1024, queue_depth 0..1024, format "
                          "AUTO/JPEG/PNG/PNM, quality 0..100, cpu_mode AUTO/INLINE/STAGED, "
                          "codec batch_size 0..%d",
                          op, GIP__BATCH_MAX);
    struct stat sb;
    if (stat(out_dir, &sb) != 0)
        return gip__error(NULL, GIP_ERR_NOT_FOUND, "%s: output folder '%s': %s", op, out_dir,
                          strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return gip__error(NULL, GIP_ERR_IO, "%s: '%s' is not a folder", op, out_dir);
    return GIP_OK;
}

/* The batch's sizes: workers, queue capacities, files a decode call takes, decode calls at once
 * a device, and how many decoder and encoder states the codec needs. */
static void size_batch(engine *e)
{
    const gip_batch_options *o = e->o;
    e->cores = gip__core_count();
    e->jobs = o->jobs ? o->jobs : e->cores;
    /* With a device codec (nvJPEG), the workers mostly wait on the GPU's encoder, and more than
     * 8 for one GPU slowed each other down (an encode took three times as long with 16): 8 a
     * device. */
    if (!o->jobs && e->cuda && o->codec && o->codec->encode_device) {
        int32_t ndev = 0;
        for (int32_t q = 0; q < e->npipes; q++) {
            int32_t dev = gip_context_device(gip_pipeline_context(e->pipes[q])), seen = 0;
            for (int32_t r = 0; r < q && !seen; r++)
                seen = gip_context_device(gip_pipeline_context(e->pipes[r])) == dev;
            ndev += !seen;
        }
        if (e->jobs > 8 * ndev)
            e->jobs = 8 * ndev;
    }
    e->depth = e->o->queue_depth ? e->o->queue_depth : 2;
    /* Batches of files for a batch codec on the staged path; each compute queue holds two. */
    e->batch = 1;
    if (o->codec && o->codec->decode_batch && !e->inline_cpu)
        e->batch = o->codec->batch_size ? o->codec->batch_size : 8;
    e->cq_depth = e->depth > 2 * e->batch || e->batch == 1 ? e->depth : 2 * e->batch;
    /* Batch decodes at once on a device: one (no limit on the CPU, where a batch codec decodes
     * on the calling thread); GIP_BATCH_DECODE_CALLS=N overrides (tuning). */
    e->decode_calls = e->cuda ? 1 : INT32_MAX;
    if (gip__tuning_get()->batch_decode_calls)
        e->decode_calls = gip__tuning_get()->batch_decode_calls;
    e->gated = e->decode_calls < INT32_MAX && e->batch > 1;
    /* Decode calls at once: each reserves up to a batch of room in a compute queue (and the
     * files are fewer than that at times); encodes: one per worker. With decode_calls 1 a
     * device, one decoder state would do, but the run was no faster with one, so the states
     * stay as the queues allow. */
    int64_t dec = (int64_t)e->npipes * (e->cq_depth / e->batch + 1), enc = e->jobs;
    dec = dec < e->jobs ? dec : e->jobs;
    e->decoders = dec < e->n ? dec : e->n;
    e->encoders = enc < e->n ? enc : e->n;
}

/* The engine's memory: outputs and their names, queues, per-device counts, the trace. */
static gip_status alloc_engine(engine *e, const char *out_dir, const char *op)
{
    int32_t npipes = e->npipes;
    e->outs = calloc((size_t)(e->n ? e->n : 1), sizeof *e->outs);
    e->collision = calloc((size_t)(e->n ? e->n : 1), sizeof *e->collision);
    e->cq = calloc((size_t)npipes, sizeof *e->cq);
    e->reserved = calloc((size_t)npipes, sizeof *e->reserved);
    e->decode_active = calloc((size_t)npipes, sizeof *e->decode_active);
    e->dev_first = calloc((size_t)npipes, sizeof *e->dev_first);
    e->waiting = calloc((size_t)npipes, sizeof *e->waiting);
    e->worker_pipes = calloc((size_t)e->jobs, sizeof *e->worker_pipes);
    if (!e->outs || !e->collision || !e->cq || !e->reserved || !e->decode_active || !e->dev_first ||
        !e->waiting || !e->worker_pipes)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    gip_status st = gip__batch_make_outputs(e, out_dir);
    if (st)
        return st;
    if (gip__tuning_get()->batch_trace[0] && e->n) {
        if (!(e->trace = malloc((size_t)e->n * sizeof *e->trace)))
            return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        for (int64_t i = 0; i < e->n; i++)
            for (int k = 0; k < GIP__TRACE_N; k++)
                e->trace[i][k] = -1;
    }
    for (int32_t q = 0; q < npipes; q++)
        if ((st = gip__ring_init(&e->cq[q], e->cq_depth)))
            return st;
    if ((st = gip__ring_init(&e->eq, e->depth)))
        return st;
    /* dev_first[q]: the first pipeline on pipeline q's device, which counts its decodes. */
    for (int32_t q = 0; q < npipes; q++) {
        int32_t dev = gip_context_device(gip_pipeline_context(e->pipes[q]));
        e->dev_first[q] = q;
        for (int32_t r = 0; r < q; r++)
            if (gip_context_device(gip_pipeline_context(e->pipes[r])) == dev) {
                e->dev_first[q] = r;
                break;
            }
    }
    return GIP_OK;
}

/* The codec's handles and states, before the clock: one set per pipeline context. */
static gip_status prepare_codec(engine *e, const char *op)
{
    const gip_batch_codec *c = e->o->codec;
    if (!c || !c->prepare || e->inline_cpu)
        return GIP_OK;
    double t = now();
    char before[256];
    snprintf(before, sizeof before, "%s", gip_last_error());
    gip_status st = GIP_OK;
    int32_t q = 0;
    for (; q < e->npipes && !st; q++)
        st = c->prepare(c->user, gip_pipeline_context(e->pipes[q]), &e->lp, e->batch,
                        (int32_t)e->decoders, (int32_t)e->encoders);
    e->st.t_setup = now() - t;
    /* The codec's own message when it set one; otherwise say which call failed. */
    if (st && strcmp(before, gip_last_error()) == 0)
        gip__error(NULL, st, "%s: the codec's prepare failed on pipeline %d: %s", op, (int)q - 1,
                   gip_status_string(st));
    return st;
}

/* Then the codec's warm-up, once per device, on the first input: its states run once so that
 * the first files do not pay for sizing their buffers (a 64-file run of 4K JPEGs was about 1.5x
 * faster with it). Only with more than one group of files: one group pays the same sizing either
 * way. The decoder states warmed are no more than the groups. A failure here is not the batch's:
 * that file is decoded again in its turn and reported. GIP_BATCH_WARM=0 skips it. */
static void warm_codec(engine *e)
{
    const gip_batch_codec *c = e->o->codec;
    if (!c || !c->warm || e->inline_cpu || e->n <= e->batch || gip__tuning_get()->batch_no_warm)
        return;
    int64_t groups = (e->n + e->batch - 1) / e->batch;
    int64_t dec = e->decoders < groups ? e->decoders : groups;
    double t = now();
    void *bytes = NULL;
    size_t size = 0;
    if (gip__batch_read_file(e->inputs[0], &bytes, &size) == GIP_OK) {
        gip_save_params sp = e->sp;
        sp.format = gip__batch_output_format(e->outs[0]);
        for (int32_t q = 0; q < e->npipes; q++)
            if (e->dev_first[q] == q)
                (void)c->warm(c->user, gip_pipeline_context(e->pipes[q]), bytes, size, &e->lp, &sp,
                              e->batch, (int32_t)dec, (int32_t)e->encoders);
        free(bytes);
    }
    e->st.t_setup += now() - t;
}

/* Starts the threads: inline workers, or one compute thread per pipeline and the staged workers.
 * Returns how many started in *started; when one cannot start, the others are told to take no
 * more inputs, so that they drain and end. */
static gip_status start_threads(engine *e, pthread_t *threads, void **args, int32_t *started,
                                const char *op)
{
    gip_status st = GIP_OK;
    int32_t jobs = e->jobs, npipes = e->npipes;
    *started = 0;
    if (e->inline_cpu) {
        for (int32_t w = 0; w < jobs; w++) {
            args[2 * w] = e;
            args[2 * w + 1] = e->worker_pipes[w];
            if (pthread_create(&threads[*started], NULL, gip__batch_inline_worker, &args[2 * w]) !=
                0)
                return gip__error(NULL, GIP_ERR_INTERNAL, "%s: cannot start a thread", op);
            (*started)++;
        }
        return GIP_OK;
    }
    for (int32_t q = 0; q < npipes; q++) {
        args[2 * (jobs + q)] = e;
        args[2 * (jobs + q) + 1] = (void *)(intptr_t)q;
        if (pthread_create(&threads[*started], NULL, gip__batch_compute_thread,
                           &args[2 * (jobs + q)]) != 0) {
            st = gip__error(NULL, GIP_ERR_INTERNAL, "%s: cannot start a thread", op);
            pthread_mutex_lock(&e->mu);
            e->compute_left -= npipes - q;
            pthread_mutex_unlock(&e->mu);
            break;
        }
        (*started)++;
    }
    for (int32_t w = 0; !st && w < jobs; w++) {
        if (pthread_create(&threads[*started], NULL, gip__batch_staged_worker, e) != 0) {
            st = gip__error(NULL, GIP_ERR_INTERNAL, "%s: cannot start a thread", op);
            break;
        }
        (*started)++;
    }
    if (st) {
        pthread_mutex_lock(&e->mu);
        e->next = e->n;
        pthread_cond_broadcast(&e->cv_compute);
        pthread_cond_broadcast(&e->cv_work);
        pthread_mutex_unlock(&e->mu);
    }
    return st;
}

/* The run: the workers' pipeline clones (inline mode), the clock, the threads until they end,
 * then the statistics and the trace. */
static gip_status run(engine *e, gip_batch_stats *stats, const char *op)
{
    int32_t jobs = e->jobs, npipes = e->npipes;
    pthread_t *threads = calloc((size_t)(jobs + npipes), sizeof *threads);
    void **args = calloc((size_t)(jobs + npipes) * 2, sizeof *args);
    if (!threads || !args) {
        free(threads);
        free(args);
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->report_mu, NULL);
    pthread_cond_init(&e->cv_work, NULL);
    pthread_cond_init(&e->cv_compute, NULL);
    pthread_cond_init(&e->cv_space, NULL);
    pthread_cond_init(&e->cv_decode, NULL);
    e->compute_left = e->inline_cpu ? 0 : npipes;
    e->st.total = e->n;
    e->st.in_flight_bound =
        e->inline_cpu ? jobs : jobs + (int64_t)e->cq_depth * npipes + e->depth + npipes;
    gip_status st = GIP_OK;
    if (e->inline_cpu) {
        /* One pipeline per worker; the cores shared among the workers' thread teams (inline mode
         * reads e->pipes[it->pipe] only for contexts). */
        gip_context_desc d = {0};
        d.backend = GIP_BACKEND_CPU;
        d.threads = e->cores / jobs > 1 ? e->cores / jobs : 1;
        for (int32_t w = 0; w < jobs && !st; w++)
            st = gip_pipeline_clone(e->pipes[0], &d, &e->worker_pipes[w]);
    }
    if (!st) {
        e->t0 = now();
        int32_t started = 0;
        st = start_threads(e, threads, args, &started, op);
        for (int32_t t = 0; t < started; t++)
            pthread_join(threads[t], NULL);
        e->st.wall = now() - e->t0;
        if (stats)
            *stats = e->st;
        if (e->trace)
            write_trace(e, gip__tuning_get()->batch_trace);
    }
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->report_mu);
    pthread_cond_destroy(&e->cv_work);
    pthread_cond_destroy(&e->cv_compute);
    pthread_cond_destroy(&e->cv_space);
    pthread_cond_destroy(&e->cv_decode);
    free(threads);
    free(args);
    return st;
}

static void free_engine(engine *e)
{
    for (int32_t w = 0; e->worker_pipes && w < e->jobs; w++)
        gip_pipeline_free(e->worker_pipes[w]);
    for (int32_t q = 0; e->cq && q < e->npipes; q++)
        gip__ring_fini(&e->cq[q]);
    gip__ring_fini(&e->eq);
    for (int64_t i = 0; e->outs && i < e->n; i++)
        free(e->outs[i]);
    free(e->outs);
    free(e->collision);
    free(e->cq);
    free(e->reserved);
    free(e->decode_active);
    free(e->dev_first);
    free(e->waiting);
    free(e->trace);
    free(e->worker_pipes);
    free(e);
}

gip_status gip_batch_run(gip_pipeline *const *pipes, int32_t npipes, const char *const *inputs,
                         int64_t n_inputs, const char *out_dir, const gip_batch_options *options,
                         gip_batch_stats *stats)
{
    static const char op[] = "gip_batch_run";
    gip_batch_options defaults = {0};
    const gip_batch_options *o = options ? options : &defaults;
    gip_status st = check_args(pipes, npipes, inputs, n_inputs, out_dir, o, op);
    if (st)
        return st;
    engine *e = calloc(1, sizeof *e);
    if (!e)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    e->pipes = pipes;
    e->npipes = npipes;
    e->inputs = inputs;
    e->n = n_inputs;
    e->o = o;
    e->lp = o->load;
    if (e->lp.mode == GIP_LOAD_UNCHANGED && !o->load_unchanged)
        e->lp.mode = GIP_LOAD_COLOR;
    e->shrink = e->lp.reduce == 0 && gip__pipeline_shrinks_on_load(pipes[0]);
    e->sp.quality = o->quality;
    e->cuda = gip_context_backend(gip_pipeline_context(pipes[0])) == GIP_BACKEND_CUDA;
    e->inline_cpu = !e->cuda && o->cpu_mode != GIP_BATCH_CPU_STAGED;
    size_batch(e);
    if (!(st = alloc_engine(e, out_dir, op)) && !(st = prepare_codec(e, op))) {
        warm_codec(e);
        st = run(e, stats, op);
    }
    free_engine(e);
    return st;
}
