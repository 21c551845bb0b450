/* SPDX-License-Identifier: MIT */
/* The batch engine (gip_batch_run) behind gip.run_batch: pipelines over many files, with the
 * per-file records and the progress line of progress=True. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* isatty() for the progress line */

#include "gip_py.h"

/* What on_file reports, collected without the GIL (calls are serialised by the engine). */
typedef struct {
    char *in, *out, *message;
    gip_status status;
    int32_t skipped;
} BatchRecord;

/* progress=True: one line redrawn on a terminal, else a plain line at most every 5 s. */
typedef struct {
    FILE *stream;
    int tty, drawn, printed;
    double last;
} ProgressLine;

typedef struct {
    BatchRecord *rec;
    int64_t n, cap;
    int oom;
    ProgressLine bar;
    int progress;
} BatchLog;

static void progress_line_print(ProgressLine *pl, const gip_batch_progress *pr)
{
    double rate = pr->elapsed > 0 ? (double)(pr->done - pr->skipped) / pr->elapsed : 0;
    double eta = rate > 0 ? (double)(pr->total - pr->done) / rate : 0;
    int pct = pr->total ? (int)(100 * pr->done / pr->total) : 100;
    if (!pl->tty) {
        if (pl->printed && pr->done != pr->total && pr->elapsed - pl->last < 5.0)
            return;
        pl->last = pr->elapsed;
        pl->printed = 1;
    }
    fprintf(pl->stream, "%sprogress: %lld/%lld (%d%%), %.1f img/s, ETA %d:%02d, %lld failed%s",
            pl->tty ? "\r\033[K" : "", (long long)pr->done, (long long)pr->total, pct, rate,
            (int)eta / 60, (int)eta % 60, (long long)pr->failed, pl->tty ? "" : "\n");
    pl->drawn = pl->tty;
    fflush(pl->stream);
}

static void progress_line_clear(ProgressLine *pl)
{
    if (pl->drawn) {
        fprintf(pl->stream, "\r\033[K");
        fflush(pl->stream);
        pl->drawn = 0;
    }
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

static void batch_on_file(void *user, const char *in, const char *out, gip_status status,
                          const char *message, int32_t skipped)
{
    BatchLog *log = user;
    if (log->n == log->cap) {
        int64_t cap = log->cap ? log->cap * 2 : 64;
        BatchRecord *r = realloc(log->rec, (size_t)cap * sizeof *r);
        if (!r) {
            log->oom = 1;
            return;
        }
        log->rec = r;
        log->cap = cap;
    }
    BatchRecord *r = &log->rec[log->n];
    r->in = dup_str(in);
    r->out = dup_str(out);
    r->message = dup_str(message);
    r->status = status;
    r->skipped = skipped;
    if (!r->in || !r->out || !r->message) {
        free(r->in);
        free(r->out);
        free(r->message);
        log->oom = 1;
        return;
    }
    log->n++;
}

static void batch_on_progress(void *user, const gip_batch_progress *pr)
{
    BatchLog *log = user;
    if (log->progress)
        progress_line_print(&log->bar, pr);
}

static void batch_log_free(BatchLog *log)
{
    for (int64_t i = 0; i < log->n; i++) {
        free(log->rec[i].in);
        free(log->rec[i].out);
        free(log->rec[i].message);
    }
    free(log->rec);
}

/* batch_run(handle, inputs, out_dir, jobs, queue_depth, format, quality, overwrite, unchanged,
 *           cpu_mode, pipelines, progress, decoder, decode_batch) -> dict: counts, stage times
 * and per-file records [(in, out, status name, message, skipped)]. `pipelines` clones of the
 * handle's pipeline run (one compute thread each; several overlap on one GPU). decoder: 0 auto
 * (nvJPEG on a CUDA pipeline when built with it), 1 the CPU decoders, 2 nvJPEG (an error on a
 * CPU pipeline or without nvJPEG); decode_batch: files per nvJPEG decode call, 0 = default. */
static PyObject *py_batch_run(PyObject *m, PyObject *args)
{
    PyObject *h, *inputs, *dir_obj;
    int jobs, depth, format, quality, overwrite, unchanged, cpu_mode, npipes, progress, decoder,
        decode_batch;
    if (!PyArg_ParseTuple(args, "OOO&iiiippiipii", &h, &inputs, PyUnicode_FSConverter, &dir_obj,
                          &jobs, &depth, &format, &quality, &overwrite, &unchanged, &cpu_mode,
                          &npipes, &progress, &decoder, &decode_batch))
        return NULL;
    PyObject *ret = NULL;
    PipelineObject *po = gpy_as_pipeline(h);
    PyObject *fast = NULL;
    char **paths = NULL;
    gip_pipeline **pipes = NULL;
    Py_ssize_t n = 0;
    int made = 0;
    BatchLog log;
    memset(&log, 0, sizeof log);
    if (!po)
        goto out_dir;
    if (npipes < 1 || npipes > 64) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "run_batch: streams %d; accepted 1..64", npipes);
        goto out_dir;
    }
    if (decoder < 0 || decoder > 2 || decode_batch < 0 || decode_batch > 64) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                      "run_batch: decoder %d (0 auto, 1 cpu, 2 nvjpeg), decode_batch %d (0..64)",
                      decoder, decode_batch);
        goto out_dir;
    }
    gip_batch_codec codec;
    int use_codec = 0;
    if (decoder != 1) {
        int cuda = gip_context_backend(po->base.ctx) == GIP_BACKEND_CUDA;
        if (decoder == 2 && !cuda) {
            gpy_raise_fmt(
                GIP_ERR_INVALID_ARGUMENT,
                "run_batch: decoder 'nvjpeg' needs a CUDA pipeline; this one is on the CPU");
            goto out_dir;
        }
        gip_status cs = cuda ? gip_nvjpeg_codec(&codec) : GIP_ERR_NOT_BUILT;
        if (cs == GIP_OK) {
            use_codec = 1;
            if (decode_batch)
                codec.batch_size = decode_batch;
        } else if (decoder == 2) {
            gpy_raise_status(cs, gip_last_error());
            goto out_dir;
        }
    }
    if (!(fast = PySequence_Fast(inputs, "run_batch: inputs must be a sequence of paths")))
        goto out_dir;
    n = PySequence_Fast_GET_SIZE(fast);
    if (!(paths = PyMem_Calloc((size_t)n + 1, sizeof *paths)) ||
        !(pipes = PyMem_Calloc((size_t)npipes, sizeof *pipes))) {
        PyErr_NoMemory();
        goto out_free;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i), &b))
            goto out_free;
        paths[i] = dup_str(PyBytes_AS_STRING(b));
        Py_DECREF(b);
        if (!paths[i]) {
            PyErr_NoMemory();
            goto out_free;
        }
    }
    gip_status st = GIP_OK;
    char msg[1024];
    pipes[0] = po->p;
    for (made = 1; made < npipes; made++) {
        GIP_PY_RUN(NULL, st, msg, gip_pipeline_clone(po->p, NULL, &pipes[made]));
        if (st) {
            gpy_raise_status(st, msg);
            goto out_free;
        }
    }
    gip_batch_options o;
    memset(&o, 0, sizeof o);
    o.jobs = jobs;
    o.queue_depth = depth;
    o.format = (gip_format)format;
    o.quality = quality;
    o.overwrite = overwrite;
    o.load_unchanged = unchanged;
    o.cpu_mode = (gip_batch_cpu_mode)cpu_mode;
    o.codec = use_codec ? &codec : NULL;
    o.on_file = batch_on_file;
    o.on_progress = batch_on_progress;
    o.user = &log;
    log.progress = progress;
    log.bar.stream = stderr;
    log.bar.tty = isatty(fileno(stderr));
    gip_batch_stats s;
    memset(&s, 0, sizeof s);
    const char *dir = PyBytes_AS_STRING(dir_obj);
    GIP_PY_RUN(&po->base, st, msg,
               gip_batch_run(pipes, npipes, (const char *const *)paths, n, dir, &o, &s));
    if (progress)
        progress_line_clear(&log.bar);
    if (st) {
        gpy_raise_status(st, msg);
        goto out_free;
    }
    if (log.oom) {
        PyErr_NoMemory();
        goto out_free;
    }
    PyObject *files = PyList_New(0);
    for (int64_t i = 0; files && i < log.n; i++) {
        BatchRecord *r = &log.rec[i];
        PyObject *t = Py_BuildValue("(O&O&ssO)", PyUnicode_DecodeFSDefault, r->in,
                                    PyUnicode_DecodeFSDefault, r->out, gip_status_name(r->status),
                                    r->message, r->skipped ? Py_True : Py_False);
        if (!t || PyList_Append(files, t) < 0)
            Py_CLEAR(files);
        Py_XDECREF(t);
    }
    if (!files)
        goto out_free;
    ret = Py_BuildValue("{s:L,s:L,s:L,s:L,s:d,s:{s:d,s:d,s:d,s:d,s:d,s:d,s:d},s:L,s:L,s:N,s:s,"
                        "s:s,s:L,s:d}",
                        "total", (long long)s.total, "written", (long long)s.written, "failed",
                        (long long)s.failed, "skipped", (long long)s.skipped, "wall", s.wall,
                        "stages", "read", s.t_read, "decode", s.t_decode, "upload", s.t_upload,
                        "compute", s.t_compute, "download", s.t_download, "encode", s.t_encode,
                        "write", s.t_write, "peak_in_flight", (long long)s.peak_in_flight,
                        "in_flight_bound", (long long)s.in_flight_bound, "files", files, "device",
                        gip_context_describe(po->base.ctx), "decoder", use_codec ? "nvjpeg" : "cpu",
                        "decode_calls", (long long)s.decode_calls, "setup", s.t_setup);
out_free:
    for (int k = 1; k < made; k++)
        gip_pipeline_free(pipes[k]);
    for (Py_ssize_t i = 0; paths && i < n; i++)
        free(paths[i]);
    PyMem_Free(paths);
    PyMem_Free(pipes);
    Py_XDECREF(fast);
    batch_log_free(&log);
out_dir:
    Py_DECREF(dir_obj);
    return ret;
}

/* batch_list_inputs(pattern) -> sorted list of paths (a folder's images or a glob's files). */
static PyObject *py_batch_list_inputs(PyObject *m, PyObject *arg)
{
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(arg, &b))
        return NULL;
    char **paths = NULL;
    int64_t count = 0;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_batch_list_inputs(PyBytes_AS_STRING(b), &paths, &count));
    Py_DECREF(b);
    if (st)
        return gpy_raise_status(st, msg);
    PyObject *list = PyList_New(0);
    for (int64_t i = 0; list && i < count; i++) {
        PyObject *s = PyUnicode_DecodeFSDefault(paths[i]);
        if (!s || PyList_Append(list, s) < 0)
            Py_CLEAR(list);
        Py_XDECREF(s);
    }
    gip_batch_free_list(paths, count);
    return list;
}

PyMethodDef gpy_batch_methods[] = {{"batch_run", py_batch_run, METH_VARARGS, NULL},
                                   {"batch_list_inputs", py_batch_list_inputs, METH_O, NULL},
                                   {NULL}};
