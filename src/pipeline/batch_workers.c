/* SPDX-License-Identifier: MIT */
/* The batch engine's threads and queues: the inline CPU worker (every stage of an image on one
 * thread), and in the staged mode the workers (decode into a reserved slot of a compute queue,
 * encode what the compute threads queued) and one compute thread per pipeline. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "batch_engine.h"

/* Takes the next input whose output may be written; reports skipped ones. Returns -1 when none
 * is left. Called with the lock held; may drop it to gip__batch_report. */
static int64_t take_input(engine *e)
{
    while (e->next < e->n) {
        int64_t i = e->next++;
        if (e->collision[i]) {
            char msg[512];
            snprintf(msg, sizeof msg, "output '%s' is also the output of '%s'; skipped", e->outs[i],
                     e->collision[i]);
            pthread_mutex_unlock(&e->mu);
            gip__batch_report(e, i, GIP_ERR_IO, msg, false);
            pthread_mutex_lock(&e->mu);
            continue;
        }
        struct stat sb;
        if (!e->o->overwrite && stat(e->outs[i], &sb) == 0) {
            pthread_mutex_unlock(&e->mu);
            gip__batch_report(e, i, GIP_OK, "output exists (overwrite not requested)", true);
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
    gip_status st = gip__batch_encode_item(e, it, &skipped);
    gip__batch_report(e, it->index, st, st ? gip_last_error() : it->note, skipped);
    gip__batch_item_free(e, it);
}

void *gip__batch_inline_worker(void *arg)
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
            if (!(st = gip__batch_decode_item(e, it)) &&
                !(st = gip__batch_compute_item(e, p, &none, it))) {
                finish_item(e, it);
                it = NULL;
            }
        }
        if (st) {
            gip__batch_report(e, i, st, gip_last_error(), false);
            if (it)
                gip__batch_item_free(e, it);
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
void *gip__batch_staged_worker(void *arg)
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
                gip__batch_group_started(e, q); /* every input left was skipped */
            if (k) {
                e->decoding += k;
                note_in_flight(e, k);
                pthread_mutex_unlock(&e->mu);
                item *got[GIP__BATCH_MAX];
                gip__batch_decode_group(e, q, idx, k, got);
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

void *gip__batch_compute_thread(void *arg)
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
            gip_status st = gip__batch_compute_item(e, p, &sg, it);
            if (st) {
                gip__batch_report(e, it->index, st, gip_last_error(), false);
                gip__batch_item_free(e, it);
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
    gip__batch_stage_free(gip_pipeline_context(p), &sg);
    return NULL;
}
