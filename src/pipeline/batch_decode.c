/* SPDX-License-Identifier: MIT */
/* The batch engine's first stage: reading and decoding one file, or a group of files through a
 * batch codec (at most decode_calls at once on a device). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_engine.h"

void gip__batch_item_free(engine *e, item *it)
{
    gip_context *ctx = gip_pipeline_context(e->pipes[it->pipe]);
    gip_image_free(it->img.memory == GIP_MEM_CUDA ? ctx : NULL, &it->img);
    gip_image_free(it->result.memory == GIP_MEM_CUDA ? ctx : NULL, &it->result);
    free(it);
}

gip_status gip__batch_read_file(const char *path, void **data, size_t *size)
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

gip_status gip__batch_decode_item(engine *e, item *it)
{
    void *bytes = NULL;
    size_t size = 0;
    double t = now();
    gip_status st = gip__batch_read_file(e->inputs[it->index], &bytes, &size);
    double t1 = now();
    mark_stage(e, it->index, TR_READ, t, TR_DECODE, t1, &e->st.t_read);
    if (st)
        return st;
    gip_load_params lp = e->lp;
    if (e->shrink)
        gip__pipeline_shrink_on_load(e->pipes[it->pipe], NULL, bytes, size, &lp);
    if (e->o->codec && e->o->codec->decode)
        st = e->o->codec->decode(e->o->codec->user, gip_pipeline_context(e->pipes[it->pipe]), bytes,
                                 size, &lp, &it->img);
    else
        st = gip_image_decode(bytes, size, &lp, &it->img);
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
    gip__batch_report(e, index, st, gip_last_error(), false);
    if (items[j])
        gip__batch_item_free(e, items[j]);
    items[j] = NULL;
}

void gip__batch_group_started(engine *e, int32_t q)
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
        gip_status st =
            r->items[j] ? gip__batch_read_file(r->e->inputs[r->idx[j]], &r->bytes[j], &r->sizes[j])
                        : gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
        if (st)
            drop_item(r->e, r->items, (int32_t)j, r->idx[j], st);
    }
}

/* Read + decode of the inputs idx[0..k-1] bound for compute queue q: items[j] receives each
 * decoded item, or NULL for a file that failed (reported here). With a batch codec, the files read
 * go to one decode_batch call; a file failing there is decoded again alone for its own message. */
void gip__batch_decode_group(engine *e, int32_t q, const int64_t *idx, int32_t k, item **items)
{
    const gip_batch_codec *c = e->o->codec;
    for (int32_t j = 0; j < k; j++) {
        if ((items[j] = calloc(1, sizeof *items[j]))) {
            items[j]->index = idx[j];
            items[j]->pipe = q;
        }
    }
    /* Files shrunk on load have loads of their own: decoded one by one. */
    if (k == 1 || !c || !c->decode_batch || e->shrink) {
        pthread_mutex_lock(&e->mu);
        gip__batch_group_started(e, q);
        pthread_mutex_unlock(&e->mu);
        for (int32_t j = 0; j < k; j++) {
            gip_status st = items[j]
                                ? gip__batch_decode_item(e, items[j])
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
    /* The files are read at once on the core's threads (one after another, their reads held up
     * the start of a run), then compacted. */
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
         * decoder engines (four calls at once each took about three times as long as one alone),
         * and a batch finishing early lets the compute and the encoders start. The next group's
         * files are read while waiting. */
        int32_t *active = &e->decode_active[e->dev_first[q]];
        pthread_mutex_lock(&e->mu);
        while (*active >= e->decode_calls)
            pthread_cond_wait(&e->cv_decode, &e->mu);
        (*active)++;
        gip__batch_group_started(e, q);
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
        gip__batch_group_started(e, q); /* every file of the group failed to read */
        pthread_mutex_unlock(&e->mu);
    }
    pthread_mutex_lock(&e->report_mu);
    e->st.t_decode += now() - t1;
    e->st.decode_calls += m > 0;
    pthread_mutex_unlock(&e->report_mu);
}
