/* SPDX-License-Identifier: MIT */
/* The batch engine: worker threads read, decode, encode and write; one compute thread per pipeline
 * uploads, runs and downloads; bounded queues between them keep memory bounded. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io/io_internal.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"
#include "tuning.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- listing inputs ------------------------------------------------------------------------- */

static bool image_ext(const char *name)
{
    static const char *const exts[] = {".jpg", ".jpeg", ".png", ".ppm", ".pgm", ".pnm"};
    const char *dot = strrchr(name, '.');
    if (!dot)
        return false;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i]) == 0)
            return true;
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct list {
    char **v;
    int64_t n, cap;
} list;

static bool list_add(list *l, const char *s)
{
    if (l->n == l->cap) {
        int64_t cap = l->cap ? l->cap * 2 : 64;
        char **bigger = realloc(l->v, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return false;
        l->v = bigger;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        return false;
    l->n++;
    return true;
}

void gip_batch_free_list(char **paths, int64_t count)
{
    for (int64_t i = 0; paths && i < count; i++)
        free(paths[i]);
    free(paths);
}

gip_status gip_batch_list_inputs(const char *pattern, char ***paths, int64_t *count)
{
    static const char op[] = "gip_batch_list_inputs";
    if (!pattern || !paths || !count)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !pattern ? "pattern" : "paths or count");
    *paths = NULL;
    *count = 0;
    list l = {0};
    struct stat sb;
    bool oom = false;
    if (stat(pattern, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(pattern);
        if (!d)
            return gip__error(NULL, GIP_ERR_IO, "%s: cannot read folder '%s': %s", op, pattern,
                              strerror(errno));
        struct dirent *e;
        size_t plen = strlen(pattern);
        while (!oom && (e = readdir(d))) {
            if (e->d_name[0] == '.' || !image_ext(e->d_name))
                continue;
            char *full = malloc(plen + strlen(e->d_name) + 2);
            if (!full) {
                oom = true;
                break;
            }
            sprintf(full, "%s%s%s", pattern, plen && pattern[plen - 1] == '/' ? "" : "/",
                    e->d_name);
            if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode))
                oom = !list_add(&l, full);
            free(full);
        }
        closedir(d);
    } else {
        glob_t g;
        int rc = glob(pattern, 0, NULL, &g);
        if (rc == GLOB_NOMATCH) {
            if (!strpbrk(pattern, "*?["))
                return gip__error(NULL, GIP_ERR_NOT_FOUND,
                                  "%s: '%s' is neither a folder nor a pattern that matches files",
                                  op, pattern);
            return GIP_OK;
        }
        if (rc != 0)
            return gip__error(NULL, rc == GLOB_NOSPACE ? GIP_ERR_OUT_OF_MEMORY : GIP_ERR_IO,
                              "%s: cannot expand '%s'", op, pattern);
        for (size_t i = 0; !oom && i < g.gl_pathc; i++)
            if (stat(g.gl_pathv[i], &sb) == 0 && S_ISREG(sb.st_mode))
                oom = !list_add(&l, g.gl_pathv[i]);
        globfree(&g);
    }
    if (oom) {
        gip_batch_free_list(l.v, l.n);
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    if (l.n)
        qsort(l.v, (size_t)l.n, sizeof *l.v, cmp_str);
    *paths = l.v;
    *count = l.n;
    return GIP_OK;
}

/* ---- the engine ----------------------------------------------------------------------------- */

#define GIP__BATCH_MAX 64 /* most files in one decode_batch call */

/* The events GIP_BATCH_TRACE records per file, in this order (trace_names). */
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
static const char *const trace_names[GIP__TRACE_N] = {
    "read",     "decode",     "decoded", "compute", "uploaded",
    "computed", "downloaded", "encode",  "encoded", "written"};

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
    bool cuda, inline_cpu;
    gip_pipeline **worker_pipes; /* inline mode: one clone per worker */

    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_compute, cv_space, cv_decode;
    /* Batch decodes allowed at once on a device, and running per device: pipeline q counts in
     * decode_active[dev_first[q]], dev_first[q] being the first pipeline on its device. */
    int32_t decode_calls, *decode_active, *dev_first;
    /* Groups taken and not yet decoding, per device (same index): when decode calls are limited
     * (gated: CUDA, or GIP_BATCH_DECODE_CALLS) a worker takes a group only while fewer than
     * decode_calls wait, so each group's files are read while the group before it decodes rather
     * than all at once (64 files read together delayed the first decode to 14-36 ms on the
     * H200). */
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
static void mark(engine *e, int64_t i, int ev, double t)
{
    if (e->trace)
        e->trace[i][ev] = t - e->t0;
}

static void add_time(engine *e, double *field, double dt)
{
    pthread_mutex_lock(&e->report_mu);
    *field += dt;
    pthread_mutex_unlock(&e->report_mu);
}

/* Records a finished file and calls the callbacks (serialised). */
static void report(engine *e, int64_t index, gip_status status, const char *msg, bool skipped)
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

static void item_free(engine *e, item *it)
{
    gip_context *ctx = gip_pipeline_context(e->pipes[it->pipe]);
    gip_image_free(it->img.memory == GIP_MEM_CUDA ? ctx : NULL, &it->img);
    gip_image_free(it->result.memory == GIP_MEM_CUDA ? ctx : NULL, &it->result);
    free(it);
}

/* Reads the whole file. */
static gip_status read_file(const char *path, void **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gip__error(NULL, errno == ENOENT ? GIP_ERR_NOT_FOUND : GIP_ERR_IO,
                          "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return gip__error(NULL, GIP_ERR_IO, "'%s' is not a regular file", path);
    }
    size_t n = (size_t)sb.st_size;
    void *buf = malloc(n ? n : 1);
    if (!buf) {
        fclose(f);
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "'%s': out of memory for %zu bytes", path,
                          n);
    }
    size_t got = fread(buf, 1, n, f);
    int bad = ferror(f);
    fclose(f);
    if (got != n || bad) {
        free(buf);
        return gip__error(NULL, GIP_ERR_IO, "cannot read '%s'", path);
    }
    *data = buf;
    *size = n;
    return GIP_OK;
}

/* Read + decode into it->img. */
static gip_status decode_item(engine *e, item *it)
{
    void *bytes = NULL;
    size_t size = 0;
    double t = now();
    gip_status st = read_file(e->inputs[it->index], &bytes, &size);
    double t1 = now();
    mark(e, it->index, TR_READ, t);
    mark(e, it->index, TR_DECODE, t1);
    add_time(e, &e->st.t_read, t1 - t);
    if (st)
        return st;
    if (e->o->codec && e->o->codec->decode)
        st = e->o->codec->decode(e->o->codec->user, gip_pipeline_context(e->pipes[it->pipe]), bytes,
                                 size, &e->lp, &it->img);
    else
        st = gip_image_decode(bytes, size, &e->lp, &it->img);
    free(bytes);
    double t2 = now();
    mark(e, it->index, TR_DECODED, t2);
    pthread_mutex_lock(&e->report_mu);
    e->st.t_decode += t2 - t1;
    e->st.decode_calls++;
    pthread_mutex_unlock(&e->report_mu);
    return st;
}

/* Reports the failure of input `index` (items[j], NULL when it could not be allocated) and drops
 * it from the group. */
static void drop_item(engine *e, item **items, int32_t j, int64_t index, gip_status st)
{
    report(e, index, st, gip_last_error(), false);
    if (items[j])
        item_free(e, items[j]);
    items[j] = NULL;
}

/* A group of pipeline q leaves the waiting count (its decode starts, or it has nothing left to
 * decode): another worker may take a group. Called once per group, with e->mu held. */
static void group_started(engine *e, int32_t q)
{
    if (e->gated) {
        e->waiting[e->dev_first[q]]--;
        pthread_cond_broadcast(&e->cv_work);
    }
}

/* The reads of a decode group, for gip__parallel_for: files [begin, end) of the group; a file
 * that cannot be read is reported and its item dropped. */
typedef struct read_job {
    engine *e;
    const int64_t *idx;
    item **items;
    void **bytes;
    size_t *sizes;
} read_job;

static void read_range(void *arg, int64_t begin, int64_t end)
{
    read_job *r = arg;
    for (int64_t j = begin; j < end; j++) {
        mark(r->e, r->idx[j], TR_READ, now());
        gip_status st = r->items[j]
                            ? read_file(r->e->inputs[r->idx[j]], &r->bytes[j], &r->sizes[j])
                            : gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
        if (st)
            drop_item(r->e, r->items, (int32_t)j, r->idx[j], st);
    }
}

/* Read + decode of the inputs idx[0..k-1] bound for compute queue q: items[j] receives each
 * decoded item, or NULL for a file that failed (reported here). With a batch codec, the files read
 * go to one decode_batch call; a file failing there is decoded again alone for its own message. */
static void decode_group(engine *e, int32_t q, const int64_t *idx, int32_t k, item **items)
{
    const gip_batch_codec *c = e->o->codec;
    for (int32_t j = 0; j < k; j++) {
        if ((items[j] = calloc(1, sizeof *items[j]))) {
            items[j]->index = idx[j];
            items[j]->pipe = q;
        }
    }
    if (k == 1 || !c || !c->decode_batch) {
        pthread_mutex_lock(&e->mu);
        group_started(e, q);
        pthread_mutex_unlock(&e->mu);
        for (int32_t j = 0; j < k; j++) {
            gip_status st = items[j]
                                ? decode_item(e, items[j])
                                : gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
            if (st)
                drop_item(e, items, j, idx[j], st);
        }
        return;
    }
    const void *data[GIP__BATCH_MAX];
    size_t sizes[GIP__BATCH_MAX];
    gip_image outs[GIP__BATCH_MAX];
    gip_status sts[GIP__BATCH_MAX];
    int32_t slot[GIP__BATCH_MAX], m = 0;
    /* The files are read at once on the core's threads (one after another they were the first
     * 27 ms of a 64-file run), then compacted. */
    void *bytes[GIP__BATCH_MAX] = {0};
    size_t nbytes[GIP__BATCH_MAX];
    read_job rj = {e, idx, items, bytes, nbytes};
    double t = now();
    gip__parallel_for(NULL, k, 1, read_range, &rj);
    for (int32_t j = 0; j < k; j++) {
        if (items[j]) {
            data[m] = bytes[j];
            sizes[m] = nbytes[j];
            slot[m++] = j;
        }
    }
    double t1 = now();
    add_time(e, &e->st.t_read, t1 - t);
    if (m) {
        gip_context *ctx = gip_pipeline_context(e->pipes[q]);
        /* At most decode_calls batch decodes at once on a device: concurrent calls share its
         * decoder engines (four calls of 16 4K files at once took 88 ms each on an H200; one at
         * a time, 23-37 ms), and a batch finishing early lets the compute and the encoders
         * start. The next group's files are read while waiting. */
        int32_t *active = &e->decode_active[e->dev_first[q]];
        pthread_mutex_lock(&e->mu);
        while (*active >= e->decode_calls)
            pthread_cond_wait(&e->cv_decode, &e->mu);
        (*active)++;
        group_started(e, q);
        pthread_mutex_unlock(&e->mu);
        t1 = now();
        c->decode_batch(c->user, ctx, m, data, sizes, &e->lp, outs, sts);
        pthread_mutex_lock(&e->mu);
        (*active)--;
        pthread_cond_broadcast(&e->cv_decode);
        pthread_mutex_unlock(&e->mu);
        double t2 = now();
        for (int32_t i = 0; i < m; i++) {
            mark(e, items[slot[i]]->index, TR_DECODE, t1);
            mark(e, items[slot[i]]->index, TR_DECODED, t2);
        }
        for (int32_t i = 0; i < m; i++) {
            item *it = items[slot[i]];
            if (!sts[i]) {
                it->img = outs[i];
                continue;
            }
            gip_status st = c->decode ? c->decode(c->user, ctx, data[i], sizes[i], &e->lp, &it->img)
                                      : gip_image_decode(data[i], sizes[i], &e->lp, &it->img);
            if (st)
                drop_item(e, items, slot[i], it->index, st);
        }
        for (int32_t i = 0; i < m; i++)
            free((void *)data[i]);
    } else {
        pthread_mutex_lock(&e->mu);
        group_started(e, q); /* every file of the group failed to read */
        pthread_mutex_unlock(&e->mu);
    }
    pthread_mutex_lock(&e->report_mu);
    e->st.t_decode += now() - t1;
    e->st.decode_calls += m > 0;
    pthread_mutex_unlock(&e->report_mu);
}

/* The format of an output path (make_outputs gave it one of these extensions). */
static gip_format output_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    return !dot                                                            ? GIP_FORMAT_PNM
           : strcasecmp(dot, ".png") == 0                                  ? GIP_FORMAT_PNG
           : strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0 ? GIP_FORMAT_JPEG
                                                                           : GIP_FORMAT_PNM;
}

/* Encode + write of it->result; *skipped when the output appeared meanwhile. */
static gip_status encode_item(engine *e, item *it, bool *skipped)
{
    void *data = NULL;
    size_t size = 0;
    double t = now();
    gip_status st;
    gip_save_params sp = e->sp;
    sp.format = output_format(e->outs[it->index]);
    if (e->o->codec && e->o->codec->encode)
        st = e->o->codec->encode(e->o->codec->user, gip_pipeline_context(e->pipes[it->pipe]),
                                 &it->result, &sp, &data, &size);
    else
        st = gip_image_encode(&it->result, &sp, &data, &size);
    double t1 = now();
    mark(e, it->index, TR_ENCODE, t);
    mark(e, it->index, TR_ENCODED, t1);
    add_time(e, &e->st.t_encode, t1 - t);
    if (st)
        return st;
    st = gip__atomic_write("batch", e->outs[it->index], data, size,
                           e->o->overwrite ? GIP__OUT_OVERWRITE : GIP__OUT_NO_REPLACE, skipped);
    gip_free(data);
    double t2 = now();
    mark(e, it->index, TR_WRITTEN, t2);
    add_time(e, &e->st.t_write, t2 - t1);
    return st;
}

/* Allocates `img` with the shape unless it already has it. */
static gip_status ensure(gip_context *ctx, gip_image *img, int64_t w, int64_t h, int32_t c,
                         gip_dtype dt, gip_memory mem)
{
    if (img->data && img->width == w && img->height == h && img->channels == c && img->dtype == dt)
        return GIP_OK;
    gip_image_free(ctx, img);
    return gip_image_alloc(ctx, img, w, h, c, dt, mem, 0);
}

/* Whether a file of format f holds an image of c channels of dt (gip_image_encode's rules). */
static bool format_holds(gip_format f, int32_t c, gip_dtype dt)
{
    if (dt != GIP_U8 && (dt != GIP_U16 || f == GIP_FORMAT_JPEG))
        return false;
    return c == 1 || c == 3 || (c == 4 && f == GIP_FORMAT_PNG);
}

/* The host image without its alpha channel (c 4 -> 3) and/or in 8 bits (x >> 8, as the loader's
 * 8-bit modes), replacing *img. */
static gip_status reduce_image(gip_image *img, bool no_alpha, bool to_u8)
{
    int32_t dc = no_alpha ? 3 : img->channels;
    gip_dtype dt = to_u8 ? GIP_U8 : img->dtype;
    gip_image d;
    gip_status st = gip_image_alloc(NULL, &d, img->width, img->height, dc, dt, GIP_MEM_HOST, 0);
    if (st)
        return st;
    bool wide = img->dtype == GIP_U16;
    for (int64_t y = 0; y < img->height; y++) {
        const uint8_t *s = (const uint8_t *)img->data + y * img->stride;
        uint8_t *o = (uint8_t *)d.data + y * d.stride;
        for (int64_t x = 0; x < img->width; x++)
            for (int32_t k = 0; k < dc; k++) {
                int64_t i = x * img->channels + k, j = x * dc + k;
                uint32_t v = wide ? ((const uint16_t *)(const void *)s)[i] : s[i];
                if (dt == GIP_U8)
                    o[j] = (uint8_t)(wide ? v >> 8 : v);
                else
                    ((uint16_t *)(void *)o)[j] = (uint16_t)v;
            }
    }
    gip_image_free(NULL, img);
    *img = d;
    return GIP_OK;
}

/* Runs the pipeline on a blank host image of the shape (at most 64x64: steps check dtypes and
 * channels when they run, not all when the shape is asked), giving the result's channels and
 * dtype; the status of a step that refuses. */
static gip_status trial_run(gip_pipeline *p, int64_t w, int64_t h, int32_t c, gip_dtype dt,
                            int32_t *oc, gip_dtype *odt)
{
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

/* With inputs decoded as stored (load_unchanged): where the pipeline refuses a file so, or makes
 * of it what the output's format cannot hold (JPEG: 8-bit gray or RGB; PPM/PGM: no alpha), the
 * decoded image loses its alpha, then its 16 bits, as `gip run` does for one file; it->note
 * says what was converted and why. Otherwise nothing changes and the run reports the refusal. */
static void fit_item(engine *e, gip_pipeline *p, item *it)
{
    gip_image *img = &it->img;
    if (e->lp.mode != GIP_LOAD_UNCHANGED || img->memory == GIP_MEM_CUDA ||
        (img->channels != 4 && img->dtype != GIP_U16))
        return;
    gip_format f = output_format(e->outs[it->index]);
    char why[200] = "";
    for (int k = 0; k < 4; k++) {
        bool no_alpha = (k & 1) && img->channels == 4, to_u8 = (k & 2) && img->dtype == GIP_U16;
        if (k > 0 && !no_alpha && !to_u8)
            continue;
        int32_t c = 0;
        gip_dtype dt = GIP_U8;
        gip_status st = trial_run(p, img->width, img->height, no_alpha ? 3 : img->channels,
                                  to_u8 ? GIP_U8 : img->dtype, &c, &dt);
        bool ok = !st && format_holds(f, c, dt);
        if (k == 0 && !ok)
            snprintf(why, sizeof why,
                     st ? "the pipeline refuses it as stored"
                        : "%s cannot hold the "
                          "pipeline's %d-channel %s result",
                     gip_format_name(f), (int)c, gip_dtype_name(dt));
        gip_clear_error();
        if (!ok)
            continue;
        if (k > 0 && reduce_image(img, no_alpha, to_u8) == GIP_OK)
            snprintf(it->note, sizeof it->note, "'%s' is computed %s%s%s: %s", e->inputs[it->index],
                     no_alpha ? "without alpha" : "", no_alpha && to_u8 ? " and " : "",
                     to_u8 ? "in 8 bits (x >> 8)" : "", why);
        return;
    }
}

/* Compute of one item on pipeline `pi`, with staging buffers `sg` (CUDA). */
static gip_status compute_item(engine *e, gip_pipeline *p, stage *sg, item *it)
{
    gip_context *ctx = gip_pipeline_context(p);
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
    fit_item(e, p, it);
    gip_status st = gip_pipeline_output_shape(p, it->img.width, it->img.height, it->img.channels,
                                              it->img.dtype, &w, &h, &c, &dt);
    if (st)
        return st;
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    bool dev_result = cuda && e->o->codec && e->o->codec->encode_device;
    if ((st = gip_image_alloc(dev_result ? ctx : NULL, &it->result, w, h, c, dt,
                              dev_result ? GIP_MEM_CUDA : GIP_MEM_HOST, 0)))
        return st;
    if (!cuda) {
        double t = now();
        st = gip_pipeline_run(p, &it->img, &it->result);
        double t1 = now();
        mark(e, it->index, TR_COMPUTE, t);
        mark(e, it->index, TR_COMPUTED, t1);
        add_time(e, &e->st.t_compute, t1 - t);
        return st;
    }
    /* Host images above the pipeline's device memory limit: tiles (tile.c). */
    if (!dev_result && it->img.memory != GIP_MEM_CUDA && gip__pipeline_needs_tiles(p, &it->img)) {
        double t = now();
        st = gip_pipeline_run(p, &it->img, &it->result);
        add_time(e, &e->st.t_compute, now() - t);
        return st;
    }
    /* CUDA: pinned staging, asynchronous copies on the pipeline's stream; a sync after each
     * stage so that its time can be told (the other compute threads' streams overlap it). */
    double t = now();
    const gip_image *din = &it->img;
    if (it->img.memory != GIP_MEM_CUDA) {
        const gip_image *s = &it->img;
        if ((st = ensure(ctx, &sg->pin_in, s->width, s->height, s->channels, s->dtype,
                         GIP_MEM_PINNED)) ||
            (st = ensure(ctx, &sg->dev_in, s->width, s->height, s->channels, s->dtype,
                         GIP_MEM_CUDA)) ||
            (st = gip_copy(ctx, s, &sg->pin_in)) ||
            (st = gip_upload(ctx, &sg->pin_in, &sg->dev_in)) || (st = gip_context_sync(ctx)))
            return st;
        din = &sg->dev_in;
    }
    double t1 = now();
    mark(e, it->index, TR_COMPUTE, t);
    mark(e, it->index, TR_UPLOADED, t1);
    add_time(e, &e->st.t_upload, t1 - t);
    gip_image *dout = &it->result;
    if (!dev_result) {
        if ((st = ensure(ctx, &sg->dev_out, w, h, c, dt, GIP_MEM_CUDA)))
            return st;
        dout = &sg->dev_out;
    }
    if ((st = gip_pipeline_run(p, din, dout)) || (st = gip_context_sync(ctx)))
        return st;
    double t2 = now();
    mark(e, it->index, TR_COMPUTED, t2);
    add_time(e, &e->st.t_compute, t2 - t1);
    if (dev_result)
        return GIP_OK;
    if ((st = ensure(ctx, &sg->pin_out, w, h, c, dt, GIP_MEM_PINNED)) ||
        (st = gip_download(ctx, &sg->dev_out, &sg->pin_out)) || (st = gip_context_sync(ctx)) ||
        (st = gip_copy(ctx, &sg->pin_out, &it->result)))
        return st;
    double t3 = now();
    mark(e, it->index, TR_DOWNLOADED, t3);
    add_time(e, &e->st.t_download, t3 - t2);
    return GIP_OK;
}

static void stage_free(gip_context *ctx, stage *sg)
{
    gip_image_free(ctx, &sg->pin_in);
    gip_image_free(ctx, &sg->dev_in);
    gip_image_free(ctx, &sg->dev_out);
    gip_image_free(ctx, &sg->pin_out);
}

/* Takes the next input whose output may be written; reports skipped ones. Returns -1 when none
 * is left. Called with the lock held; may drop it to report. */
static int64_t take_input(engine *e)
{
    while (e->next < e->n) {
        int64_t i = e->next++;
        if (e->collision[i]) {
            char msg[512];
            snprintf(msg, sizeof msg, "output '%s' is also the output of '%s'; skipped", e->outs[i],
                     e->collision[i]);
            pthread_mutex_unlock(&e->mu);
            report(e, i, GIP_ERR_IO, msg, false);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        struct stat sb;
        if (!e->o->overwrite && stat(e->outs[i], &sb) == 0) {
            pthread_mutex_unlock(&e->mu);
            report(e, i, GIP_OK, "output exists (overwrite not requested)", true);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        return i;
    }
    return -1;
}

static void note_in_flight(engine *e, int64_t delta)
{
    e->in_flight += delta;
    if (e->in_flight > e->st.peak_in_flight)
        e->st.peak_in_flight = e->in_flight;
}

/* Encodes, writes and reports an item, then frees it. */
static void finish_item(engine *e, item *it)
{
    bool skipped = false;
    gip_status st = encode_item(e, it, &skipped);
    report(e, it->index, st, st ? gip_last_error() : it->note, skipped);
    item_free(e, it);
}

/* Worker of the inline CPU mode: every stage of an image on this thread. */
static void *inline_worker(void *arg)
{
    void **a = arg;
    engine *e = a[0];
    gip_pipeline *p = a[1];
    pthread_mutex_lock(&e->mu);
    for (;;) {
        int64_t i = take_input(e);
        if (i < 0)
            break;
        note_in_flight(e, 1);
        pthread_mutex_unlock(&e->mu);
        item *it = calloc(1, sizeof *it);
        gip_status st =
            it ? GIP_OK : gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
        if (it) {
            it->index = i;
            stage none = {0};
            if (!(st = decode_item(e, it)) && !(st = compute_item(e, p, &none, it))) {
                finish_item(e, it);
                it = NULL;
            }
        }
        if (st) {
            report(e, i, st, gip_last_error(), false);
            if (it)
                item_free(e, it);
        }
        pthread_mutex_lock(&e->mu);
        note_in_flight(e, -1);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* The compute queue with the most room if it has room for `want` items, else -1. */
static int32_t pick_queue(engine *e, int32_t want)
{
    int32_t best = -1, room = want - 1;
    for (int32_t q = 0; q < e->npipes; q++) {
        int32_t r = e->cq[q].cap - e->cq[q].count - e->reserved[q];
        if (r > room)
            room = r, best = q;
    }
    return best;
}

/* Worker of the staged mode: encodes whatever is ready first (drains the pipeline), else decodes
 * the next input into a reserved slot of a compute queue. */
static void *staged_worker(void *arg)
{
    engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        item *it = gip__ring_pop(&e->eq);
        if (it) {
            pthread_cond_signal(&e->cv_space);
            pthread_mutex_unlock(&e->mu);
            finish_item(e, it);
            pthread_mutex_lock(&e->mu);
            note_in_flight(e, -1);
            continue;
        }
        /* A queue with room for a whole batch (or for what is left of the inputs): the room is
         * reserved before inputs are taken, since take_input may drop the lock. */
        int64_t left = e->n - e->next;
        int32_t want = left < e->batch ? (int32_t)left : e->batch;
        int32_t q = left > 0 ? pick_queue(e, want) : -1;
        if (q >= 0 && e->gated && e->waiting[e->dev_first[q]] >= e->decode_calls)
            q = -1; /* a group already waits for this device's decoder: encode or wait */
        if (q >= 0) {
            if (e->gated)
                e->waiting[e->dev_first[q]]++;
            e->reserved[q] += want;
            int64_t idx[GIP__BATCH_MAX];
            int32_t k = 0;
            for (int64_t i; k < want && (i = take_input(e)) >= 0;)
                idx[k++] = i;
            e->reserved[q] -= want - k;
            if (!k)
                group_started(e, q); /* every input left was skipped */
            if (k) {
                e->decoding += k;
                note_in_flight(e, k);
                pthread_mutex_unlock(&e->mu);
                item *got[GIP__BATCH_MAX];
                decode_group(e, q, idx, k, got);
                pthread_mutex_lock(&e->mu);
                e->reserved[q] -= k;
                e->decoding -= k;
                for (int32_t j = 0; j < k; j++) {
                    if (got[j])
                        gip__ring_push(&e->cq[q], got[j]); /* the reservation guarantees room */
                    else
                        note_in_flight(e, -1);
                }
            }
            pthread_cond_broadcast(&e->cv_compute); /* work, or inputs exhausted: computes end */
            continue;
        }
        if (e->next >= e->n && e->decoding == 0 && e->compute_left == 0 && e->eq.count == 0)
            break;
        pthread_cond_wait(&e->cv_work, &e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    pthread_cond_broadcast(&e->cv_work);
    return NULL;
}

static void *compute_thread(void *arg)
{
    void **a = arg;
    engine *e = a[0];
    int32_t q = (int32_t)(intptr_t)a[1];
    gip_pipeline *p = e->pipes[q];
    stage sg = {0};
    pthread_mutex_lock(&e->mu);
    for (;;) {
        item *it = gip__ring_pop(&e->cq[q]);
        if (it) {
            pthread_cond_broadcast(&e->cv_work); /* room in the queue */
            pthread_mutex_unlock(&e->mu);
            gip_status st = compute_item(e, p, &sg, it);
            if (st) {
                report(e, it->index, st, gip_last_error(), false);
                item_free(e, it);
                it = NULL;
            } else {
                /* The decoded image is not needed any more: free it before queueing. */
                gip_context *ctx = gip_pipeline_context(p);
                gip_image_free(it->img.memory == GIP_MEM_CUDA ? ctx : NULL, &it->img);
            }
            pthread_mutex_lock(&e->mu);
            if (!it) {
                note_in_flight(e, -1);
            } else {
                while (!gip__ring_push(&e->eq, it))
                    pthread_cond_wait(&e->cv_space, &e->mu);
            }
            pthread_cond_broadcast(&e->cv_work);
            continue;
        }
        if (e->next >= e->n && e->decoding == 0)
            break;
        pthread_cond_wait(&e->cv_compute, &e->mu);
    }
    e->compute_left--;
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    stage_free(gip_pipeline_context(p), &sg);
    return NULL;
}

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

/* Orders input indices by output name, then by index. */
static int cmp_out(const void *a, const void *b, void *u)
{
    char **outs = u;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int c = strcmp(outs[x], outs[y]);
    return c ? c : (x > y) - (x < y);
}

/* Output paths: out_dir/<name without extension>.<ext>; collisions recorded. */
static gip_status make_outputs(engine *e, const char *out_dir)
{
    static const char *const ext_of[] = {
        [GIP_FORMAT_JPEG] = "jpg", [GIP_FORMAT_PNG] = "png", [GIP_FORMAT_PNM] = "pnm"};
    size_t dlen = strlen(out_dir);
    for (int64_t i = 0; i < e->n; i++) {
        const char *in = e->inputs[i];
        const char *base = strrchr(in, '/');
        base = base ? base + 1 : in;
        const char *dot = strrchr(base, '.');
        size_t blen = dot && dot != base ? (size_t)(dot - base) : strlen(base);
        const char *ext = "png";
        if (e->o->format) {
            ext = ext_of[e->o->format];
        } else if (dot && image_ext(base)) {
            ext = dot + 1;
        }
        size_t len = dlen + blen + strlen(ext) + 3;
        if (!(e->outs[i] = malloc(len)))
            return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
        snprintf(e->outs[i], len, "%s%s%.*s.%s", out_dir,
                 dlen && out_dir[dlen - 1] == '/' ? "" : "/", (int)blen, base, ext);
    }
    /* Collisions: sort indices by name; every repeat after the first is refused. */
    int64_t *idx = malloc((size_t)(e->n ? e->n : 1) * sizeof *idx);
    if (!idx)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
    for (int64_t i = 0; i < e->n; i++)
        idx[i] = i;
    char **outs = e->outs;
    qsort_r(idx, (size_t)e->n, sizeof *idx, cmp_out, outs);
    for (int64_t k = 1; k < e->n; k++) {
        int64_t j = k;
        while (j > 0 && strcmp(outs[idx[j - 1]], outs[idx[k]]) == 0)
            j--;
        if (j != k)
            e->collision[idx[k]] = (char *)e->inputs[idx[j]];
    }
    free(idx);
    return GIP_OK;
}

gip_status gip_batch_run(gip_pipeline *const *pipes, int32_t npipes, const char *const *inputs,
                         int64_t n_inputs, const char *out_dir, const gip_batch_options *options,
                         gip_batch_stats *stats)
{
    static const char op[] = "gip_batch_run";
    gip_batch_options defaults = {0};
    const gip_batch_options *o = options ? options : &defaults;
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

    engine *e = calloc(1, sizeof *e);
    if (!e)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    gip_status st = GIP_OK;
    e->pipes = pipes;
    e->npipes = npipes;
    e->inputs = inputs;
    e->n = n_inputs;
    e->o = o;
    e->lp = o->load;
    if (e->lp.mode == GIP_LOAD_UNCHANGED && !o->load_unchanged)
        e->lp.mode = GIP_LOAD_COLOR;
    e->sp.quality = o->quality;
    e->cuda = gip_context_backend(gip_pipeline_context(pipes[0])) == GIP_BACKEND_CUDA;
    e->inline_cpu = !e->cuda && o->cpu_mode != GIP_BATCH_CPU_STAGED;
    int32_t cores = gip__core_count();
    int32_t jobs = o->jobs ? o->jobs : cores;
    /* With a device codec (nvJPEG), the workers mostly wait on the GPU's encoder, and more than
     * 8 for one GPU slowed each other (H200, 64 4K JPEGs: 8 workers 432-463 images/s, 16
     * 359-410, 24 317-339; an encode took 5 ms with 8, 17 ms with 16): 8 a device. */
    if (!o->jobs && e->cuda && o->codec && o->codec->encode_device) {
        int32_t ndev = 0;
        for (int32_t q = 0; q < npipes; q++) {
            int32_t dev = gip_context_device(gip_pipeline_context(pipes[q])), seen = 0;
            for (int32_t r = 0; r < q && !seen; r++)
                seen = gip_context_device(gip_pipeline_context(pipes[r])) == dev;
            ndev += !seen;
        }
        if (jobs > 8 * ndev)
            jobs = 8 * ndev;
    }
    int32_t depth = o->queue_depth ? o->queue_depth : 2;
    /* Batches of files for a batch codec on the staged path; each compute queue holds two. */
    e->batch = 1;
    if (o->codec && o->codec->decode_batch && !e->inline_cpu)
        e->batch = o->codec->batch_size ? o->codec->batch_size : 8;
    int32_t cq_depth = depth > 2 * e->batch || e->batch == 1 ? depth : 2 * e->batch;
    e->outs = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof *e->outs);
    e->collision = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof *e->collision);
    e->cq = calloc((size_t)npipes, sizeof *e->cq);
    e->reserved = calloc((size_t)npipes, sizeof *e->reserved);
    e->decode_active = calloc((size_t)npipes, sizeof *e->decode_active);
    e->dev_first = calloc((size_t)npipes, sizeof *e->dev_first);
    e->waiting = calloc((size_t)npipes, sizeof *e->waiting);
    pthread_t *threads = calloc((size_t)(jobs + npipes), sizeof *threads);
    void **args = calloc((size_t)(jobs + npipes) * 2, sizeof *args);
    e->worker_pipes = calloc((size_t)jobs, sizeof *e->worker_pipes);
    int32_t started = 0;
    if (!e->outs || !e->collision || !e->cq || !e->reserved || !e->decode_active || !e->dev_first ||
        !e->waiting || !threads || !args || !e->worker_pipes) {
        st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto out_free;
    }
    if ((st = make_outputs(e, out_dir)))
        goto out_free;
    const char *trace = gip__tuning_get()->batch_trace;
    if (trace[0] && n_inputs) {
        if (!(e->trace = malloc((size_t)n_inputs * sizeof *e->trace))) {
            st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
            goto out_free;
        }
        for (int64_t i = 0; i < n_inputs; i++)
            for (int k = 0; k < GIP__TRACE_N; k++)
                e->trace[i][k] = -1;
    }
    for (int32_t q = 0; q < npipes; q++)
        if ((st = gip__ring_init(&e->cq[q], cq_depth)))
            goto out_free;
    if ((st = gip__ring_init(&e->eq, depth)))
        goto out_free;
    /* Batch decodes at once on a device: one (no limit on the CPU, where a batch codec decodes
     * on the calling thread); GIP_BATCH_DECODE_CALLS=N overrides (tuning). */
    e->decode_calls = e->cuda ? 1 : INT32_MAX;
    for (int32_t q = 0; q < npipes; q++) {
        int32_t dev = gip_context_device(gip_pipeline_context(pipes[q]));
        e->dev_first[q] = q;
        for (int32_t r = 0; r < q; r++)
            if (gip_context_device(gip_pipeline_context(pipes[r])) == dev) {
                e->dev_first[q] = r;
                break;
            }
    }
    if (gip__tuning_get()->batch_decode_calls)
        e->decode_calls = gip__tuning_get()->batch_decode_calls;
    e->gated = e->decode_calls < INT32_MAX && e->batch > 1;
    /* Decode calls at once: each reserves up to a batch of room in a compute queue (and the
     * files are fewer than that at times); encodes: one per worker. With decode_calls 1 a
     * device, one decoder state would do; on the H200 the run was no faster with one (294-372
     * images/s against 377-450 with the states below, runs on different machines of the same
     * kind), so the states stay as the queues allow. */
    int64_t dec = (int64_t)npipes * (cq_depth / e->batch + 1), enc = jobs;
    dec = dec < jobs ? dec : jobs;
    dec = dec < n_inputs ? dec : n_inputs;
    enc = enc < n_inputs ? enc : n_inputs;
    /* The codec's handles and states before the clock: one set per pipeline context. */
    if (o->codec && o->codec->prepare && !e->inline_cpu) {
        double t = now();
        char before[256];
        snprintf(before, sizeof before, "%s", gip_last_error());
        int32_t q = 0;
        for (; q < npipes && !st; q++)
            st = o->codec->prepare(o->codec->user, gip_pipeline_context(pipes[q]), &e->lp, e->batch,
                                   (int32_t)dec, (int32_t)enc);
        e->st.t_setup = now() - t;
        if (st) {
            /* The codec's own message when it set one; otherwise say which call failed. */
            if (strcmp(before, gip_last_error()) == 0)
                gip__error(NULL, st, "%s: the codec's prepare failed on pipeline %d: %s", op,
                           (int)q - 1, gip_status_string(st));
            goto out_free;
        }
    }
    /* Then the codec's warm-up, once per device, on the first input: its states run once so
     * that the first files do not pay for sizing their buffers (H200, 64 4K JPEGs: 412-426
     * images/s without, 637-669 with). Only with more than one group of files: one group pays
     * the same sizing either way. The decoder states warmed are no more than the groups. A
     * failure here is not the batch's: that file is decoded again in its turn and reported.
     * GIP_BATCH_WARM=0 skips it. */
    if (o->codec && o->codec->warm && !e->inline_cpu && n_inputs > e->batch &&
        !gip__tuning_get()->batch_no_warm) {
        int64_t groups = (n_inputs + e->batch - 1) / e->batch;
        dec = dec < groups ? dec : groups;
        double t = now();
        void *bytes = NULL;
        size_t size = 0;
        if (read_file(inputs[0], &bytes, &size) == GIP_OK) {
            gip_save_params sp = e->sp;
            sp.format = output_format(e->outs[0]);
            for (int32_t q = 0; q < npipes; q++)
                if (e->dev_first[q] == q)
                    (void)o->codec->warm(o->codec->user, gip_pipeline_context(pipes[q]), bytes,
                                         size, &e->lp, &sp, e->batch, (int32_t)dec, (int32_t)enc);
            free(bytes);
        }
        e->st.t_setup += now() - t;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->report_mu, NULL);
    pthread_cond_init(&e->cv_work, NULL);
    pthread_cond_init(&e->cv_compute, NULL);
    pthread_cond_init(&e->cv_space, NULL);
    pthread_cond_init(&e->cv_decode, NULL);
    e->compute_left = e->inline_cpu ? 0 : npipes;
    e->st.total = n_inputs;
    e->st.in_flight_bound =
        e->inline_cpu ? jobs : jobs + (int64_t)cq_depth * npipes + depth + npipes;
    if (e->inline_cpu) {
        /* One pipeline per worker; the cores shared among the workers' OpenMP teams. */
        gip_context_desc d = {0};
        d.backend = GIP_BACKEND_CPU;
        d.threads = cores / jobs > 1 ? cores / jobs : 1;
        for (int32_t w = 0; w < jobs; w++)
            if ((st = gip_pipeline_clone(pipes[0], &d, &e->worker_pipes[w])))
                goto out_free;
    }
    e->t0 = now();
    if (e->inline_cpu) {
        /* inline mode reads e->pipes[it->pipe] only for contexts: point them at the clones. */
        for (int32_t w = 0; w < jobs; w++) {
            args[2 * w] = e;
            args[2 * w + 1] = e->worker_pipes[w];
            if (pthread_create(&threads[started], NULL, inline_worker, &args[2 * w]) != 0) {
                st = gip__error(NULL, GIP_ERR_INTERNAL, "%s: cannot start a thread", op);
                break;
            }
            started++;
        }
    } else {
        for (int32_t q = 0; q < npipes; q++) {
            args[2 * (jobs + q)] = e;
            args[2 * (jobs + q) + 1] = (void *)(intptr_t)q;
            if (pthread_create(&threads[started], NULL, compute_thread, &args[2 * (jobs + q)]) !=
                0) {
                st = gip__error(NULL, GIP_ERR_INTERNAL, "%s: cannot start a thread", op);
                pthread_mutex_lock(&e->mu);
                e->compute_left -= npipes - q;
                pthread_mutex_unlock(&e->mu);
                break;
            }
            started++;
        }
        for (int32_t w = 0; !st && w < jobs; w++) {
            if (pthread_create(&threads[started], NULL, staged_worker, e) != 0) {
                st = gip__error(NULL, GIP_ERR_INTERNAL, "%s: cannot start a thread", op);
                break;
            }
            started++;
        }
        if (st) {
            /* Stop feeding: take no more inputs; the started threads drain and end. */
            pthread_mutex_lock(&e->mu);
            e->next = e->n;
            pthread_cond_broadcast(&e->cv_compute);
            pthread_cond_broadcast(&e->cv_work);
            pthread_mutex_unlock(&e->mu);
        }
    }
    for (int32_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    e->st.wall = now() - e->t0;
    if (stats)
        *stats = e->st;
    if (e->trace)
        write_trace(e, trace);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->report_mu);
    pthread_cond_destroy(&e->cv_work);
    pthread_cond_destroy(&e->cv_compute);
    pthread_cond_destroy(&e->cv_space);
    pthread_cond_destroy(&e->cv_decode);
out_free:
    for (int32_t w = 0; e->worker_pipes && w < jobs; w++)
        gip_pipeline_free(e->worker_pipes[w]);
    for (int32_t q = 0; e->cq && q < npipes; q++)
        gip__ring_fini(&e->cq[q]);
    gip__ring_fini(&e->eq);
    for (int64_t i = 0; e->outs && i < n_inputs; i++)
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
    free(threads);
    free(args);
    free(e);
    return st;
}
