/* SPDX-License-Identifier: MIT */
/* The batch loader: the file list, epochs and their shuffled, sharded order, the worker threads
 * that read, decode and transform images into prefetched batch slots, and the hand-over of each
 * batch (on a CUDA context: one upload and the fused normalise kernel). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gip/io.h"
#include "io/io_internal.h"
#include "loader/loader_internal.h"
#include "pipeline/batch_engine.h" /* gip__batch_read_file, now() */

/* A batch being prepared: batch number `batch` of the epoch, its n images at positions 0..n-1. */
typedef struct slot {
    int64_t batch, n, done;
    int64_t *indices; /* batch_size file indices */
    uint8_t *ok;      /* per image: decoded and transformed */
    uint8_t *flip;    /* per image (CUDA: the kernel mirrors) */
    void *out;        /* CPU: the output batch (malloc, handed over); CUDA: pinned u8 staging */
    uint8_t *dev;     /* DECODE_NVJPEG: the batch's crops on the device */
    gip_status err;   /* the failure of the lowest failing position */
    int64_t err_pos;
    char msg[512];
} slot;

struct gip_loader {
    gip_context *ctx;
    bool cuda;
    gip__loader_cfg cfg;
    int64_t n;
    char **files;
    const void **bufs;
    size_t *sizes;
    int64_t *labels;
    int32_t batch_size, world, rank, depth, nthreads;
    bool shuffle, drop_last, skip, nvjpeg;
    int64_t samples, nbatches, items; /* per epoch on this shard */
    int64_t *order;                   /* this epoch's files on this shard, samples entries */

    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done;
    int64_t epoch, next_item, consumed;
    slot *slots;
    int32_t busy;
    bool pause, quit;
    pthread_t *threads;
    int32_t started;
    gip_loader_stats st;

    pthread_mutex_t ctx_mu;     /* the context: next()'s device work, batch_free */
    uint8_t *dev_u8, *dev_flip; /* CUDA: the batch's staging on the device */
};

static void shard_order(gip_loader *l, int64_t epoch)
{
    /* torch DistributedSampler: permute, pad by wrapping to world * samples, take rank::world */
    int64_t *perm = l->order; /* reused: computed in place when world == 1 */
    int64_t *tmp = NULL;
    if (l->world > 1) {
        tmp = malloc((size_t)l->n * sizeof *tmp);
        if (tmp)
            perm = tmp;
    }
    if (perm == l->order && l->world > 1) {
        /* no memory for the permutation: compute each entry's position instead (slow path) */
        for (int64_t i = 0; i < l->samples; i++)
            l->order[i] = (l->rank + i * l->world) % l->n;
        return;
    }
    for (int64_t i = 0; i < l->n; i++)
        perm[i] = i;
    if (l->shuffle)
        for (int64_t i = l->n - 1; i > 0; i--) {
            gip__loader_rng r = gip__loader_rng_make(l->cfg.seed, epoch, i, GIP__LOADER_SHUFFLE);
            int64_t j = gip__loader_randint(&r, i + 1);
            int64_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    if (tmp) {
        for (int64_t i = 0; i < l->samples; i++)
            l->order[i] = perm[(l->rank + i * l->world) % l->n];
        free(tmp);
    }
}

#define GROUP 16 /* files per nvJPEG decode call */

static void slot_init(gip_loader *l, slot *s, int64_t b)
{
    s->batch = b;
    s->n = l->items - b * l->batch_size;
    if (s->n > l->batch_size)
        s->n = l->batch_size;
    s->done = 0;
    s->err = GIP_OK;
    s->err_pos = INT64_MAX;
    s->msg[0] = 0;
    memcpy(s->indices, l->order + b * l->batch_size, (size_t)s->n * sizeof *s->indices);
    memset(s->ok, 0, (size_t)l->batch_size);
    if (!l->cuda && !s->out) {
        s->out = malloc((size_t)(l->cfg.img_bytes * l->batch_size));
        if (!s->out) {
            s->err = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY,
                                "loader: out of memory for a batch of %lld bytes",
                                (long long)(l->cfg.img_bytes * l->batch_size));
            snprintf(s->msg, sizeof s->msg, "%s", gip_last_error());
            s->err_pos = -1;
        }
    }
}

/* Starts `epoch` from its first batch; l->mu held. Waits for the workers' items in progress. */
static void start_epoch(gip_loader *l, int64_t epoch)
{
    l->pause = true;
    while (l->busy > 0)
        pthread_cond_wait(&l->cv_done, &l->mu);
    l->epoch = epoch;
    shard_order(l, epoch);
    l->next_item = 0;
    l->consumed = 0;
    for (int64_t b = 0; b < l->depth && b < l->nbatches; b++)
        slot_init(l, &l->slots[b], b);
    l->pause = false;
    pthread_cond_broadcast(&l->cv_work);
}

static void record(slot *s, int64_t pos, gip_status st, const char *name)
{
    if (pos < s->err_pos) {
        s->err = st;
        s->err_pos = pos;
        const char *m = gip_last_error();
        if (strstr(m, name)) /* the reader's messages name the file already */
            snprintf(s->msg, sizeof s->msg, "%s", m);
        else
            snprintf(s->msg, sizeof s->msg, "%s: %s", name, m);
    }
}

/* Reads, decodes and transforms the image at position pos of slot s; l->mu not held. */
static gip_status work_item(gip_loader *l, gip__loader_scratch *sc, slot *s, int64_t pos,
                            int64_t epoch, double t[4])
{
    const int64_t idx = s->indices[pos];
    char name[64];
    const char *path = l->files ? l->files[idx] : NULL;
    if (!path) {
        snprintf(name, sizeof name, "buffer %lld", (long long)idx);
        path = name;
    }
    t[0] = now();
    void *data = NULL;
    size_t size = 0;
    gip_status st = GIP_OK;
    if (l->files) {
        st = gip__batch_read_file(path, &data, &size);
    } else {
        data = (void *)l->bufs[idx];
        size = l->sizes[idx];
    }
    t[1] = now();
    gip_image img = {0}, crop = {0};
    bool cropped = false;
    gip__rs_part where;
    /* TRAIN and EVAL from a colour JPEG: only the rectangle the crop reads is decoded (what lies
     * below it not at all, what lies above and beside it without the inverse DCT); its pixels
     * are the whole decode's. Other files, the letterbox and other kinds of JPEG decode whole. */
    if (!st && l->cfg.mode != GIP_LOADER_LETTERBOX && gip__io_is_jpeg(data, size)) {
        gip_image_info info;
        int64_t dx;
        if (gip__jpeg_probe(data, size, path, &info) == GIP_OK &&
            gip__loader_source_rect(&l->cfg, info.width, info.height, epoch, idx, &where) ==
                GIP_OK) {
            gip_status rs = gip__jpeg_decode_region(data, size, path, false, where.x, where.y,
                                                    where.w, where.h, &img, &dx);
            if (rs == GIP_OK) {
                cropped = !(st = gip_image_roi(&img, dx, 0, where.w, where.h, &crop));
                where.w = info.width; /* where the part lies: in the whole image */
                where.h = info.height;
            } else if (rs != GIP_ERR_UNSUPPORTED) {
                st = rs;
            }
        }
    }
    if (!st && !cropped) {
        gip_load_params lp = {0};
        lp.mode = GIP_LOAD_COLOR;
        lp.ignore_orientation = 1;
        gip_clear_error();
        st = gip_image_decode(data, size, &lp, &img);
    }
    if (l->files)
        free(data);
    t[2] = now();
    if (!st) {
        int flip = 0;
        const int64_t S = l->cfg.size;
        uint8_t *u8 = l->cuda ? (uint8_t *)s->out + pos * S * S * 3 : sc->u8;
        st = cropped ? gip__loader_transform_part(&l->cfg, sc, &crop, &where, epoch, idx, u8, &flip)
                     : gip__loader_transform(&l->cfg, sc, &img, epoch, idx, u8, &flip);
        if (!st) {
            if (l->cuda)
                s->flip[pos] = (uint8_t)flip;
            else
                gip__loader_normalize_cpu(&l->cfg, u8, flip,
                                          (uint8_t *)s->out + pos * l->cfg.img_bytes);
        }
    }
    gip_image_free(NULL, &img);
    t[3] = now();
    if (st) {
        pthread_mutex_lock(&l->mu);
        record(s, pos, st, path);
        pthread_mutex_unlock(&l->mu);
    }
    return st;
}

/* DECODE_NVJPEG: reads the files at positions pos..pos+g-1 of slot s, decodes them in one
 * nvJPEG batch on the worker's CUDA context and crops and resizes each into the slot's device
 * crops; st[i] receives each file's status. l->mu not held. */
static void work_group_nvjpeg(gip_loader *l, gip__loader_scratch *sc, slot *s, int64_t pos,
                              int64_t g, int64_t epoch, double t[4], gip_status st[GROUP])
{
    const void *data[GROUP];
    size_t size[GROUP];
    const void *dd[GROUP];
    size_t ds[GROUP];
    int32_t which[GROUP], m = 0;
    gip_image outs[GROUP];
    gip_status dst[GROUP];
    char names[GROUP][64], msgs[GROUP][256];
    const char *path[GROUP];
    const int64_t S = l->cfg.size;
    t[0] = now();
    for (int64_t i = 0; i < g; i++) {
        const int64_t idx = s->indices[pos + i];
        path[i] = l->files ? l->files[idx] : NULL;
        if (!path[i]) {
            snprintf(names[i], sizeof names[i], "buffer %lld", (long long)idx);
            path[i] = names[i];
        }
        msgs[i][0] = 0;
        data[i] = NULL;
        size[i] = 0;
        st[i] = GIP_OK;
        if (l->files) {
            void *buf = NULL;
            st[i] = gip__batch_read_file(path[i], &buf, &size[i]);
            data[i] = buf;
            if (st[i])
                snprintf(msgs[i], sizeof msgs[i], "%s", gip_last_error());
        } else {
            data[i] = l->bufs[idx];
            size[i] = l->sizes[idx];
        }
        if (!st[i]) {
            dd[m] = data[i];
            ds[m] = size[i];
            which[m++] = (int32_t)i;
        }
    }
    t[1] = now();
    memset(outs, 0, sizeof outs);
    if (m > 0) {
        gip_load_params lp = {0};
        lp.mode = GIP_LOAD_COLOR;
        lp.ignore_orientation = 1;
        gip_clear_error();
        gip_status bst = gip_jpeg_decode_device_batch(sc->cpu, m, dd, ds, &lp, outs, dst);
        for (int32_t j = 0; j < m; j++) {
            const int32_t i = which[j];
            st[i] = bst ? bst : dst[j];
            if (st[i])
                snprintf(msgs[i], sizeof msgs[i], "%s",
                         gip_last_error()[0] ? gip_last_error() : gip_status_string(st[i]));
        }
    }
    if (l->files)
        for (int64_t i = 0; i < g; i++)
            free((void *)data[i]);
    t[2] = now();
    for (int32_t j = 0; j < m; j++) {
        const int32_t i = which[j];
        if (st[i])
            continue;
        int flip = 0;
        gip_clear_error();
        st[i] = gip__loader_transform_device(&l->cfg, sc->cpu, &outs[j], epoch, s->indices[pos + i],
                                             s->dev + (pos + i) * S * S * 3, &flip);
        if (st[i])
            snprintf(msgs[i], sizeof msgs[i], "%s", gip_last_error());
        s->flip[pos + i] = (uint8_t)flip;
    }
    gip_status sy = gip_context_sync(sc->cpu);
    for (int32_t j = 0; j < m; j++)
        gip_image_free(sc->cpu, &outs[j]);
    t[3] = now();
    pthread_mutex_lock(&l->mu);
    for (int64_t i = 0; i < g; i++) {
        if (!st[i] && sy) {
            st[i] = sy;
            snprintf(msgs[i], sizeof msgs[i], "loader: the device failed (%s)",
                     gip_status_name(sy));
        }
        if (st[i] && pos + i < s->err_pos) {
            s->err = st[i];
            s->err_pos = pos + i;
            if (strstr(msgs[i], path[i]))
                snprintf(s->msg, sizeof s->msg, "%s", msgs[i]);
            else
                snprintf(s->msg, sizeof s->msg, "%s: %s", path[i], msgs[i]);
        }
    }
    pthread_mutex_unlock(&l->mu);
}

static void *worker(void *arg)
{
    gip_loader *l = arg;
    gip__loader_scratch sc = {0};
    gip_context_desc cd = {0};
    cd.backend = l->nvjpeg ? GIP_BACKEND_CUDA : GIP_BACKEND_CPU;
    cd.device = l->nvjpeg ? gip_context_device(l->ctx) : 0;
    cd.threads = 1;
    gip_status cst = gip_context_create(&cd, &sc.cpu);
    const int64_t S = l->cfg.size;
    if (!cst && !l->cuda && !l->nvjpeg) {
        sc.u8 = malloc((size_t)(S * S * 3));
        if (!sc.u8)
            cst = GIP_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&l->mu);
    while (!l->quit) {
        if (l->pause || l->next_item >= l->items ||
            l->next_item / l->batch_size >= l->consumed + l->depth) {
            pthread_cond_wait(&l->cv_work, &l->mu);
            continue;
        }
        /* one file, or with nvJPEG a group of the batch's files decoded in one call */
        const int64_t k = l->next_item;
        int64_t g = 1;
        if (l->nvjpeg) {
            const int64_t batch_end = (k / l->batch_size + 1) * l->batch_size;
            g = GROUP;
            if (g > batch_end - k)
                g = batch_end - k;
            if (g > l->items - k)
                g = l->items - k;
        }
        l->next_item += g;
        slot *s = &l->slots[(k / l->batch_size) % l->depth];
        const int64_t pos = k % l->batch_size, epoch = l->epoch;
        l->busy++;
        bool usable = (l->nvjpeg ? (void *)s->dev : s->out) != NULL && !cst;
        if (cst && pos < s->err_pos) {
            s->err = gip__error(NULL, cst, "loader: a worker could not start (%s)",
                                gip_status_name(cst));
            s->err_pos = pos;
            snprintf(s->msg, sizeof s->msg, "%s", gip_last_error());
        }
        pthread_mutex_unlock(&l->mu);
        double t[4] = {0, 0, 0, 0};
        gip_status st[GROUP];
        if (!usable)
            for (int64_t i = 0; i < g; i++)
                st[i] = GIP_ERR_OUT_OF_MEMORY;
        else if (l->nvjpeg)
            work_group_nvjpeg(l, &sc, s, pos, g, epoch, t, st);
        else
            st[0] = work_item(l, &sc, s, pos, epoch, t);
        pthread_mutex_lock(&l->mu);
        l->busy--;
        for (int64_t i = 0; i < g; i++)
            s->ok[pos + i] = st[i] == GIP_OK;
        l->st.read += t[1] - t[0];
        l->st.decode += t[2] - t[1];
        l->st.transform += t[3] - t[2];
        s->done += g;
        if (s->done == s->n || (l->pause && l->busy == 0))
            pthread_cond_broadcast(&l->cv_done);
    }
    pthread_mutex_unlock(&l->mu);
    free(sc.u8);
    gip_image_free(NULL, &sc.resized);
    gip_context_destroy(sc.cpu);
    return NULL;
}

static gip_status check_desc(const gip_loader_desc *d)
{
#define BAD(...) gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_loader_create: " __VA_ARGS__)
    if (d->n < 1)
        return BAD("n is %lld: the loader needs at least one file", (long long)d->n);
    if (!d->files && (!d->buffers || !d->buffer_sizes))
        return BAD("neither files nor buffers with buffer_sizes are given");
    for (int64_t i = 0; i < d->n; i++)
        if (d->files ? !d->files[i] : !d->buffers[i])
            return BAD("%s %lld is NULL", d->files ? "file" : "buffer", (long long)i);
    if (d->batch_size < 0 || d->batch_size > 65535)
        return BAD("batch_size %d is outside 1..65535", (int)d->batch_size);
    if (d->size < 0 || d->size > 16384)
        return BAD("size %d is outside 1..16384", (int)d->size);
    if ((unsigned)d->mode > GIP_LOADER_LETTERBOX)
        return BAD("mode %d is not EVAL (0), TRAIN (1) or LETTERBOX (2)", (int)d->mode);
    const int32_t size = d->size ? d->size : 224;
    if (d->resize < 0 || (d->resize && d->resize < size) || d->resize > 65536)
        return BAD("resize %d is below size %d or above 65536 (0: size * 256 / 224)",
                   (int)d->resize, (int)size);
    if (d->scale[0] != 0 || d->scale[1] != 0)
        if (!(d->scale[0] > 0 && d->scale[0] <= d->scale[1] && d->scale[1] <= 1))
            return BAD("scale (%g, %g) is not 0 < lo <= hi <= 1", d->scale[0], d->scale[1]);
    if (d->ratio[0] != 0 || d->ratio[1] != 0)
        if (!(d->ratio[0] > 0 && d->ratio[0] <= d->ratio[1] && isfinite(d->ratio[1])))
            return BAD("ratio (%g, %g) is not 0 < lo <= hi", d->ratio[0], d->ratio[1]);
    if (d->fill < 0 || d->fill > 255)
        return BAD("fill %d is outside 0..255", (int)d->fill);
    if (!(d->hflip >= 0 && d->hflip <= 1))
        return BAD("hflip %g is not a probability in 0..1", d->hflip);
    const double jit[3] = {d->brightness, d->contrast, d->saturation};
    static const char *const jn[3] = {"brightness", "contrast", "saturation"};
    for (int i = 0; i < 3; i++)
        if (!(jit[i] >= 0 && jit[i] <= 1e6))
            return BAD("%s %g is not >= 0", jn[i], jit[i]);
    for (int c = 0; c < 3; c++) {
        if (!isfinite(d->mean[c]) || !(d->std[c] >= 0) || !isfinite(d->std[c]))
            return BAD("mean[%d] %g / std[%d] %g: mean must be finite and std >= 0 (0 = 1)", c,
                       d->mean[c], c, d->std[c]);
        if (d->dtype == GIP_LOADER_U8 && (d->mean[c] != 0 || d->std[c] != 0))
            return BAD("mean and std apply to float outputs; U8 output must leave them 0");
    }
    if ((unsigned)d->layout > GIP_LOADER_NHWC)
        return BAD("layout %d is not NCHW (0) or NHWC (1)", (int)d->layout);
    if ((unsigned)d->dtype > GIP_LOADER_U8)
        return BAD("dtype %d is not F16 (0), BF16 (1), F32 (2) or U8 (3)", (int)d->dtype);
    if (d->world < 0 || d->rank < 0 || d->rank >= (d->world ? d->world : 1))
        return BAD("shard rank %d of world %d: need 0 <= rank < world", (int)d->rank,
                   (int)d->world);
    if (d->prefetch < 0 || d->prefetch > 64)
        return BAD("prefetch %d is outside 1..64", (int)d->prefetch);
    if (d->threads < 0 || d->threads > 1024)
        return BAD("threads %d is outside 1..1024", (int)d->threads);
    if ((unsigned)d->on_error > GIP_LOADER_SKIP)
        return BAD("on_error %d is not FAIL (0) or SKIP (1)", (int)d->on_error);
    if ((unsigned)d->decoder > GIP_LOADER_DECODE_NVJPEG)
        return BAD("decoder %d is not CPU (0) or NVJPEG (1)", (int)d->decoder);
#undef BAD
    return GIP_OK;
}

static void loader_free(gip_loader *l)
{
    if (l->started) {
        pthread_mutex_lock(&l->mu);
        l->quit = true;
        pthread_cond_broadcast(&l->cv_work);
        pthread_mutex_unlock(&l->mu);
        for (int32_t i = 0; i < l->started; i++)
            pthread_join(l->threads[i], NULL);
    }
    if (l->slots)
        for (int32_t i = 0; i < l->depth; i++) {
            slot *s = &l->slots[i];
            free(s->indices);
            free(s->ok);
            free(s->flip);
            if (l->cuda)
#ifdef GIP_HAVE_CUDA
                gip__cuda_release_pinned(s->out); /* kept for the loader's life: past the cache */
#else
                gip__cuda_free_pinned(s->out);
#endif
            else
                free(s->out);
            if (s->dev)
                gip__cuda_free(l->ctx, s->dev);
        }
    if (l->dev_u8 || l->dev_flip || l->nvjpeg) {
        gip__cuda_free(l->ctx, l->dev_u8);
        gip__cuda_free(l->ctx, l->dev_flip);
        gip__cuda_sync(l->ctx);
    }
    if (l->files)
        for (int64_t i = 0; i < l->n; i++)
            free(l->files[i]);
    free(l->files);
    free(l->bufs);
    free(l->sizes);
    free(l->labels);
    free(l->order);
    free(l->slots);
    free(l->threads);
    pthread_mutex_destroy(&l->mu);
    pthread_mutex_destroy(&l->ctx_mu);
    pthread_cond_destroy(&l->cv_work);
    pthread_cond_destroy(&l->cv_done);
    free(l);
}

gip_status gip_loader_create(gip_context *ctx, const gip_loader_desc *desc, gip_loader **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !desc || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_loader_create: ctx, desc and out must not be NULL");
    gip_status st = gip__ctx_check(ctx, "gip_loader_create");
    if (st || (st = check_desc(desc)))
        return st;
    if (desc->decoder == GIP_LOADER_DECODE_NVJPEG) {
        if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "gip_loader_create: the nvJPEG decoder needs a CUDA context (this "
                              "one is %s)",
                              gip_context_describe(ctx));
        if (desc->brightness > 0 || desc->contrast > 0 || desc->saturation > 0)
            return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                              "gip_loader_create: colour jitter runs with the CPU decoder only; "
                              "use decoder CPU or leave brightness, contrast and saturation 0");
    }
    gip_loader *l = calloc(1, sizeof *l);
    if (!l)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "gip_loader_create: out of memory");
    pthread_mutex_init(&l->mu, NULL);
    pthread_mutex_init(&l->ctx_mu, NULL);
    pthread_cond_init(&l->cv_work, NULL);
    pthread_cond_init(&l->cv_done, NULL);
    l->ctx = ctx;
    l->cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    l->n = desc->n;

    gip__loader_cfg *c = &l->cfg;
    c->size = desc->size ? desc->size : 224;
    c->resize = desc->resize ? desc->resize : c->size * 256 / 224;
    if (c->resize < c->size)
        c->resize = c->size;
    c->mode = desc->mode;
    c->scale[0] = desc->scale[0] || desc->scale[1] ? desc->scale[0] : 0.08;
    c->scale[1] = desc->scale[0] || desc->scale[1] ? desc->scale[1] : 1.0;
    c->ratio[0] = desc->ratio[0] || desc->ratio[1] ? desc->ratio[0] : 3.0 / 4.0;
    c->ratio[1] = desc->ratio[0] || desc->ratio[1] ? desc->ratio[1] : 4.0 / 3.0;
    c->log_ratio[0] = log(c->ratio[0]);
    c->log_ratio[1] = log(c->ratio[1]);
    c->fill = desc->fill;
    c->hflip = desc->hflip;
    c->brightness = desc->brightness;
    c->contrast = desc->contrast;
    c->saturation = desc->saturation;
    for (int i = 0; i < 3; i++) {
        const double sd = desc->std[i] ? desc->std[i] : 1.0;
        c->a[i] = (float)(1.0 / (255.0 * sd));
        c->b[i] = (float)(-desc->mean[i] / sd);
    }
    c->layout = desc->layout;
    c->dtype = desc->dtype;
    c->esize = desc->dtype == GIP_LOADER_U8 ? 1 : desc->dtype == GIP_LOADER_F32 ? 4 : 2;
    c->img_bytes = (int64_t)c->size * c->size * 3 * c->esize;
    c->seed = desc->seed;
    gip__loader_make_lut(c);

    l->batch_size = desc->batch_size ? desc->batch_size : 256;
    l->world = desc->world ? desc->world : 1;
    l->rank = desc->rank;
    l->depth = desc->prefetch ? desc->prefetch : 2;
    l->nthreads = desc->threads ? desc->threads : gip__core_count();
    if (l->nthreads < 1)
        l->nthreads = 1;
    l->shuffle = desc->shuffle != 0;
    l->drop_last = desc->drop_last != 0;
    l->skip = desc->on_error == GIP_LOADER_SKIP;
    l->nvjpeg = desc->decoder == GIP_LOADER_DECODE_NVJPEG;
    l->samples = (l->n + l->world - 1) / l->world;
    l->nbatches = l->drop_last ? l->samples / l->batch_size
                               : (l->samples + l->batch_size - 1) / l->batch_size;
    l->items = l->drop_last ? l->nbatches * l->batch_size : l->samples;

    st = GIP_ERR_OUT_OF_MEMORY;
    if (desc->files) {
        if (!(l->files = calloc((size_t)l->n, sizeof *l->files)))
            goto out_free;
        for (int64_t i = 0; i < l->n; i++)
            if (!(l->files[i] = strdup(desc->files[i])))
                goto out_free;
    } else {
        l->bufs = malloc((size_t)l->n * sizeof *l->bufs);
        l->sizes = malloc((size_t)l->n * sizeof *l->sizes);
        if (!l->bufs || !l->sizes)
            goto out_free;
        memcpy(l->bufs, desc->buffers, (size_t)l->n * sizeof *l->bufs);
        memcpy(l->sizes, desc->buffer_sizes, (size_t)l->n * sizeof *l->sizes);
    }
    if (desc->labels) {
        if (!(l->labels = malloc((size_t)l->n * sizeof *l->labels)))
            goto out_free;
        memcpy(l->labels, desc->labels, (size_t)l->n * sizeof *l->labels);
    }
    if (!(l->order = malloc((size_t)(l->samples > l->n ? l->samples : l->n) * sizeof *l->order)))
        goto out_free;
    if (!(l->slots = calloc((size_t)l->depth, sizeof *l->slots)))
        goto out_free;
    const int64_t S = c->size;
    for (int32_t i = 0; i < l->depth; i++) {
        slot *s = &l->slots[i];
        s->batch = -1;
        s->indices = malloc((size_t)l->batch_size * sizeof *s->indices);
        s->ok = malloc((size_t)l->batch_size);
        s->flip = calloc((size_t)l->batch_size, 1);
        if (!s->indices || !s->ok || !s->flip)
            goto out_free;
        if (l->nvjpeg) {
            if ((st = gip__cuda_malloc(ctx, (size_t)(l->batch_size * S * S * 3), (void **)&s->dev)))
                goto out_free;
        } else if (l->cuda && (st = gip__cuda_malloc_pinned(
                                   ctx, (size_t)(l->batch_size * S * S * 3), &s->out))) {
            goto out_free;
        }
        st = GIP_ERR_OUT_OF_MEMORY;
    }
    if (l->cuda) {
        if ((!l->nvjpeg && (st = gip__cuda_malloc(ctx, (size_t)(l->batch_size * S * S * 3),
                                                  (void **)&l->dev_u8))) ||
            (st = gip__cuda_malloc(ctx, (size_t)l->batch_size, (void **)&l->dev_flip)))
            goto out_free;
        /* the workers' streams write the slots' device crops: the allocations must be done */
        if ((st = gip__cuda_sync(ctx)))
            goto out_free;
        st = GIP_ERR_OUT_OF_MEMORY;
    }
    if (!(l->threads = malloc((size_t)l->nthreads * sizeof *l->threads)))
        goto out_free;
    pthread_mutex_lock(&l->mu);
    start_epoch(l, 0);
    pthread_mutex_unlock(&l->mu);
    for (int32_t i = 0; i < l->nthreads; i++) {
        if (pthread_create(&l->threads[i], NULL, worker, l) != 0) {
            st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY,
                            "gip_loader_create: cannot start worker thread %d", (int)i);
            goto out_free;
        }
        l->started++;
    }
    *out = l;
    return GIP_OK;
out_free:
    if (st == GIP_ERR_OUT_OF_MEMORY && !l->started)
        gip__error(NULL, st, "gip_loader_create: out of memory");
    loader_free(l);
    return st;
}

void gip_loader_destroy(gip_loader *l)
{
    if (l)
        loader_free(l);
}

int64_t gip_loader_len(const gip_loader *l)
{
    return l ? l->nbatches : 0;
}

int64_t gip_loader_samples(const gip_loader *l)
{
    return l ? l->samples : 0;
}

gip_status gip_loader_set_epoch(gip_loader *l, int64_t epoch)
{
    if (!l || epoch < 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_loader_set_epoch: %s",
                          l ? "epoch must be >= 0" : "NULL loader");
    pthread_mutex_lock(&l->mu);
    start_epoch(l, epoch);
    pthread_mutex_unlock(&l->mu);
    return GIP_OK;
}

/* Moves the images that were made to the front of the batch (skipped ones leave gaps). */
static int64_t compact(gip_loader *l, slot *s, int64_t bytes_each, int64_t *idx, gip_status *st)
{
    int64_t k = 0;
    *st = GIP_OK;
    for (int64_t j = 0; j < s->n; j++) {
        if (!s->ok[j])
            continue;
        if (k != j) {
            if (l->nvjpeg) { /* the crops are on the device: an earlier block, no overlap */
                if (!*st)
                    *st = gip__cuda_copy2d(l->ctx, s->dev + k * bytes_each, bytes_each,
                                           GIP_MEM_CUDA, s->dev + j * bytes_each, bytes_each,
                                           GIP_MEM_CUDA, bytes_each, 1);
            } else {
                memmove((uint8_t *)s->out + k * bytes_each, (uint8_t *)s->out + j * bytes_each,
                        (size_t)bytes_each);
            }
            s->flip[k] = s->flip[j];
        }
        idx[k++] = s->indices[j];
    }
    return k;
}

/* Hands over the next batch; one whose files were all skipped comes back with n 0 and skipped
 * > 0 (its slot keeps its buffer). */
static gip_status next_once(gip_loader *l, gip_loader_batch *b)
{
    memset(b, 0, sizeof *b);
    const double t0 = now();
    pthread_mutex_lock(&l->mu);
    if (l->consumed >= l->nbatches) {
        b->epoch = l->epoch;
        b->number = l->nbatches;
        start_epoch(l, l->epoch + 1);
        pthread_mutex_unlock(&l->mu);
        return GIP_OK;
    }
    const int64_t bn = l->consumed, epoch = l->epoch;
    slot *s = &l->slots[bn % l->depth];
    while (s->done < s->n)
        pthread_cond_wait(&l->cv_done, &l->mu);
    pthread_mutex_unlock(&l->mu);

    /* The slot is ours until consumed moves on: no worker takes items of batch bn + depth. */
    gip_status st = GIP_OK;
    char msg[512];
    int64_t skipped = 0;
    for (int64_t j = 0; j < s->n; j++)
        skipped += !s->ok[j];
    if (skipped)
        snprintf(b->message, sizeof b->message, "%s", s->msg); /* before the slot is reused */
    if (s->err && (!l->skip || s->err_pos < 0 || s->err == GIP_ERR_OUT_OF_MEMORY)) {
        st = s->err;
        snprintf(msg, sizeof msg, "%s", s->msg);
    }
    int64_t *idx = NULL, *lab = NULL;
    if (!st) {
        idx = malloc((size_t)(s->n ? s->n : 1) * sizeof *idx);
        lab = l->labels ? malloc((size_t)(s->n ? s->n : 1) * sizeof *lab) : NULL;
        if (!idx || (l->labels && !lab)) {
            st = GIP_ERR_OUT_OF_MEMORY;
            snprintf(msg, sizeof msg, "gip_loader_next: out of memory");
        }
    }
    const int64_t S = l->cfg.size;
    int64_t k = 0;
    if (!st) {
        if (l->nvjpeg)
            pthread_mutex_lock(&l->ctx_mu);
        k = compact(l, s, l->cuda ? S * S * 3 : l->cfg.img_bytes, idx, &st);
        if (l->nvjpeg)
            pthread_mutex_unlock(&l->ctx_mu);
        if (st)
            snprintf(msg, sizeof msg, "%s", gip_last_error());
    }
    if (!st) {
        for (int64_t j = 0; lab && j < k; j++)
            lab[j] = l->labels[idx[j]];
        b->bytes = k * l->cfg.img_bytes;
        if (!l->cuda) {
            b->data = k > 0 ? s->out : NULL;
            b->memory = GIP_MEM_HOST;
        } else if (k > 0) {
            pthread_mutex_lock(&l->ctx_mu);
            void *dev = NULL;
            st = gip__cuda_malloc(l->ctx, (size_t)b->bytes, &dev);
            if (!st && !l->nvjpeg)
                st = gip__cuda_copy2d(l->ctx, l->dev_u8, S * S * 3, GIP_MEM_CUDA, s->out, S * S * 3,
                                      GIP_MEM_PINNED, S * S * 3, k);
            if (!st)
                st = gip__cuda_copy2d(l->ctx, l->dev_flip, k, GIP_MEM_CUDA, s->flip, k,
                                      GIP_MEM_PINNED, k, 1);
#ifdef GIP_HAVE_CUDA
            if (!st)
                st = gip__loader_normalize_cuda(l->ctx, &l->cfg, l->nvjpeg ? s->dev : l->dev_u8,
                                                l->dev_flip, k, dev);
#endif
            if (!st)
                st = gip__cuda_sync(l->ctx);
            if (st) {
                snprintf(msg, sizeof msg, "%s", gip_last_error());
                if (dev)
                    gip__cuda_free(l->ctx, dev);
            } else {
                b->data = dev;
                b->memory = GIP_MEM_CUDA;
                b->device = gip_context_device(l->ctx);
            }
            pthread_mutex_unlock(&l->ctx_mu);
        } else {
            b->memory = GIP_MEM_CUDA;
            b->device = gip_context_device(l->ctx);
        }
    }

    pthread_mutex_lock(&l->mu);
    if (!st && !l->cuda && k > 0)
        s->out = NULL; /* handed over */
    if (l->epoch == epoch && l->consumed == bn) {
        l->consumed++;
        if (bn + l->depth < l->nbatches)
            slot_init(l, s, bn + l->depth);
        pthread_cond_broadcast(&l->cv_work);
    }
    l->st.handover += now() - t0;
    if (!st) {
        l->st.batches++;
        l->st.images += k;
        l->st.skipped += skipped;
    }
    pthread_mutex_unlock(&l->mu);

    if (st) {
        free(idx); /* a CPU slot keeps its buffer for its next batch */
        free(lab);
        memset(b, 0, sizeof *b);
        return gip__error(NULL, st, "%s", msg);
    }
    b->n = k;
    b->channels = 3;
    b->height = b->width = S;
    b->layout = l->cfg.layout;
    b->dtype = l->cfg.dtype;
    b->indices = idx;
    b->labels = lab;
    b->epoch = epoch;
    b->number = bn;
    b->skipped = skipped;
    if (k == 0) {
        free(idx);
        free(lab);
        b->indices = b->labels = NULL;
    }
    return GIP_OK;
}

gip_status gip_loader_next(gip_loader *l, gip_loader_batch *b)
{
    if (b)
        memset(b, 0, sizeof *b);
    if (!l || !b)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_loader_next: NULL argument");
    /* A batch whose files were all skipped is passed over: n 0 means the end of the epoch. Its
     * count and first message go with the next batch handed over. */
    int64_t carried = 0;
    char first[sizeof b->message] = "";
    for (;;) {
        gip_status st = next_once(l, b);
        if (st)
            return st;
        if (b->n == 0 && b->skipped > 0) {
            carried += b->skipped;
            if (!first[0])
                snprintf(first, sizeof first, "%s", b->message);
            continue;
        }
        if (carried) {
            b->skipped += carried;
            snprintf(b->message, sizeof b->message, "%s", first);
        }
        return GIP_OK;
    }
}

void gip_loader_batch_free(gip_loader *l, gip_loader_batch *b)
{
    if (!b)
        return;
    if (b->data) {
        if (b->memory == GIP_MEM_CUDA) {
            if (l) {
                pthread_mutex_lock(&l->ctx_mu);
                gip__cuda_free(l->ctx, b->data);
                pthread_mutex_unlock(&l->ctx_mu);
            } else {
                gip__cuda_free(NULL, b->data);
            }
        } else {
            free(b->data);
        }
    }
    free(b->indices);
    free(b->labels);
    memset(b, 0, sizeof *b);
}

gip_status gip_loader_get_stats(const gip_loader *l, gip_loader_stats *stats)
{
    if (!l || !stats)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_loader_get_stats: NULL argument");
    pthread_mutex_lock((pthread_mutex_t *)&l->mu);
    *stats = l->st;
    pthread_mutex_unlock((pthread_mutex_t *)&l->mu);
    return GIP_OK;
}
