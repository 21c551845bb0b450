/* SPDX-License-Identifier: MIT */
/* Process-wide cache of FFT plans and scratch buffers keyed by context, behind one mutex (which
 * also serialises FFTW's planner, whose calls are not thread-safe). A context's entries go when
 * the context is destroyed: the cache registers context_release() with it when it first keeps
 * something for it. */
#include <pthread.h>
#include <stdlib.h>

#include "fft_cache.h"

typedef struct plan_entry {
    gip__fft_key key;
    uintptr_t plan;
    void (*destroy)(uintptr_t plan);
    struct plan_entry *next;
} plan_entry;

typedef struct scratch_entry {
    const gip_context *ctx;
    bool device;
    int32_t device_ordinal;
    void *ptr;
    size_t bytes;
    bool busy;
    struct scratch_entry *next;
} scratch_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static plan_entry *plans;
static scratch_entry *scratches;

static void context_release(gip_context *ctx);

static bool key_equal(const gip__fft_key *a, const gip__fft_key *b)
{
    return a->ctx == b->ctx && a->backend == b->backend && a->device == b->device &&
           a->threads == b->threads && a->kind == b->kind && a->w == b->w && a->h == b->h &&
           a->flags == b->flags && a->stride == b->stride;
}

gip_status gip__fft_plan_get(gip_context *ctx, const gip__fft_key *key, gip__fft_plan_make make,
                             void *arg, uintptr_t *plan)
{
    gip_status st = GIP_OK;
    pthread_mutex_lock(&cache_lock);
    for (plan_entry *e = plans; e; e = e->next)
        if (key_equal(&e->key, key)) {
            *plan = e->plan;
            goto out_unlock;
        }
    plan_entry *e = calloc(1, sizeof *e);
    if (!e) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "FFT plan cache: out of host memory");
        goto out_unlock;
    }
    e->key = *key;
    if ((st = gip__context_on_release(ctx, context_release)) ||
        (st = make(ctx, key, arg, &e->plan, &e->destroy))) {
        free(e);
        goto out_unlock;
    }
    e->next = plans;
    plans = e;
    *plan = e->plan;
out_unlock:
    pthread_mutex_unlock(&cache_lock);
    return st;
}

void gip__fft_locked(void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&cache_lock);
    fn(arg);
    pthread_mutex_unlock(&cache_lock);
}

static gip_status scratch_alloc(gip_context *ctx, bool device, size_t bytes, void **ptr)
{
    if (device)
        return gip__cuda_malloc(ctx, bytes, ptr);
    *ptr = gip__fftw_malloc(bytes);
    if (!*ptr)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "FFT: out of host memory allocating %zu bytes of scratch", bytes);
    return GIP_OK;
}

static void scratch_free(gip_context *ctx, bool device, void *ptr)
{
    if (!ptr)
        return;
    if (device)
        gip__cuda_free(ctx, ptr);
    else
        gip__fftw_free(ptr);
}

gip_status gip__fft_scratch_acquire(gip_context *ctx, bool device, size_t bytes,
                                    gip__fft_scratch *out)
{
    gip_status st = GIP_OK;
    if (bytes == 0)
        bytes = 64;
    out->ptr = NULL;
    out->bytes = bytes;
    out->device = device;
    out->owned = false;
    out->entry = NULL;
    pthread_mutex_lock(&cache_lock);
    scratch_entry *e = scratches;
    for (; e; e = e->next)
        if (e->ctx == ctx && e->device == device && e->device_ordinal == ctx->device)
            break;
    if (e && e->busy) {
        /* Another thread uses this context's buffer right now: a private one for this call. */
        pthread_mutex_unlock(&cache_lock);
        out->owned = true;
        return scratch_alloc(ctx, device, bytes, &out->ptr);
    }
    if (!e) {
        if ((st = gip__context_on_release(ctx, context_release)))
            goto out_unlock;
        e = calloc(1, sizeof *e);
        if (!e) {
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "FFT scratch: out of host memory");
            goto out_unlock;
        }
        e->ctx = ctx;
        e->device = device;
        e->device_ordinal = ctx->device;
        e->next = scratches;
        scratches = e;
    }
    if (e->bytes < bytes) {
        /* Grow: device frees wait for queued work that may still use the old buffer. */
        scratch_free(ctx, device, e->ptr);
        e->ptr = NULL;
        e->bytes = 0;
        if ((st = scratch_alloc(ctx, device, bytes, &e->ptr)))
            goto out_unlock;
        e->bytes = bytes;
    }
    e->busy = true;
    out->ptr = e->ptr;
    out->entry = e;
out_unlock:
    pthread_mutex_unlock(&cache_lock);
    return st;
}

void gip__fft_scratch_release(gip_context *ctx, gip__fft_scratch *s)
{
    if (s->owned) {
        scratch_free(ctx, s->device, s->ptr);
    } else if (s->entry) {
        pthread_mutex_lock(&cache_lock);
        ((scratch_entry *)s->entry)->busy = false;
        pthread_mutex_unlock(&cache_lock);
    }
    s->ptr = NULL;
    s->entry = NULL;
    s->owned = false;
}

/* Frees every plan and scratch buffer cached for ctx: gip_context_destroy() runs it before the
 * context's stream goes. */
static void context_release(gip_context *ctx)
{
    if (!ctx)
        return;
    pthread_mutex_lock(&cache_lock);
    for (plan_entry **pp = &plans; *pp;) {
        plan_entry *e = *pp;
        if (e->key.ctx == ctx) {
            if (e->key.backend == GIP_BACKEND_CUDA)
                gip__cuda_enter(ctx);
            e->destroy(e->plan);
            *pp = e->next;
            free(e);
        } else {
            pp = &e->next;
        }
    }
    for (scratch_entry **pp = &scratches; *pp;) {
        scratch_entry *e = *pp;
        if (e->ctx == ctx) {
            scratch_free(ctx, e->device, e->ptr);
            *pp = e->next;
            free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&cache_lock);
}
