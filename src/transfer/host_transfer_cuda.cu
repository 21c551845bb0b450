/* SPDX-License-Identifier: MIT */
/* The transfer engine (host_transfer.h). One run:
 *
 *   host src --(CPU threads)--> pinned slot --(upload stream)--> device src, chunk by chunk
 *   device src rows of band b (+ halo) --(run(), compute stream)--> device band slot
 *   device band slot, inner rows --(download stream)--> pinned slot --(CPU threads)--> host dst
 *
 * Events order the three streams: band b computes once the chunk holding its last halo row is up,
 * a band slot is reused once its earlier band is down, a pinned slot once its copy has finished.
 * The calling thread fills and drains the pinned slots (with gip's CPU threads) while the copy
 * engines and the device work on other chunks. Page-locked sources and destinations skip their
 * slots. Per context the engine keeps its two streams, events and slots (released with the
 * context); one run at a time uses them. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"
#include "host_transfer.h"

#define NIN GIP__XFER_SLOTS             /* pinned upload slots */
#define NOUT GIP__XFER_SLOTS            /* pinned download slots */
#define NDEV 3                          /* device band slots */
#define CHUNK_MIN ((int64_t)256 << 10)  /* smaller images: 8 chunks of at least this size */
#define COPY_GRAIN ((int64_t)256 << 10) /* bytes of a host copy worth a CPU thread */

typedef struct xfer_state {
    gip_context *ctx;
    pthread_mutex_t lock; /* held for a whole run */
    cudaStream_t up, down;
    void *in[NIN], *out[NOUT];
    size_t in_bytes, out_bytes; /* each slot's size */
    cudaEvent_t *ev;
    int32_t nev;
    struct xfer_state *next;
} xfer_state;

static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static xfer_state *states;

static void state_free(xfer_state *s)
{
    if (s->up)
        cudaStreamSynchronize(s->up);
    if (s->down)
        cudaStreamSynchronize(s->down);
    for (int i = 0; i < NIN; i++)
        gip__cuda_release_pinned(s->in[i]);
    for (int i = 0; i < NOUT; i++)
        gip__cuda_release_pinned(s->out[i]);
    for (int32_t i = 0; i < s->nev; i++)
        cudaEventDestroy(s->ev[i]);
    free(s->ev);
    if (s->up)
        cudaStreamDestroy(s->up);
    if (s->down)
        cudaStreamDestroy(s->down);
    (void)cudaGetLastError();
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static void context_release(gip_context *ctx)
{
    pthread_mutex_lock(&states_lock);
    xfer_state **pp = &states, *s = NULL;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->ctx == ctx) {
            s = *pp;
            *pp = s->next;
            break;
        }
    pthread_mutex_unlock(&states_lock);
    if (s && gip__cuda_enter(ctx) == GIP_OK)
        state_free(s);
    else if (s)
        free(s); /* the device is gone: nothing of it can be released */
}

/* The context's state, locked for the caller. */
static gip_status state_get(gip_context *ctx, xfer_state **out)
{
    gip_status st = GIP_OK;
    pthread_mutex_lock(&states_lock);
    xfer_state *s = states;
    while (s && s->ctx != ctx)
        s = s->next;
    if (!s) {
        if ((st = gip__context_on_release(ctx, context_release)))
            goto out;
        s = (xfer_state *)calloc(1, sizeof *s);
        if (!s) {
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "transfer: out of host memory");
            goto out;
        }
        s->ctx = ctx;
        pthread_mutex_init(&s->lock, NULL);
        if ((st = gip__cuda_status(ctx, cudaStreamCreateWithFlags(&s->up, cudaStreamNonBlocking),
                                   "cudaStreamCreate")) ||
            (st = gip__cuda_status(ctx, cudaStreamCreateWithFlags(&s->down, cudaStreamNonBlocking),
                                   "cudaStreamCreate"))) {
            state_free(s);
            goto out;
        }
        s->next = states;
        states = s;
    }
out:
    pthread_mutex_unlock(&states_lock);
    if (!st) {
        pthread_mutex_lock(&s->lock);
        *out = s;
    }
    return st;
}

static gip_status ensure_events(gip_context *ctx, xfer_state *s, int64_t n)
{
    if (n <= s->nev)
        return GIP_OK;
    cudaEvent_t *ev = (cudaEvent_t *)realloc(s->ev, (size_t)n * sizeof *ev);
    if (!ev)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "transfer: out of host memory");
    s->ev = ev;
    while (s->nev < n) {
        gip_status st =
            gip__cuda_status(ctx, cudaEventCreateWithFlags(&s->ev[s->nev], cudaEventDisableTiming),
                             "cudaEventCreate");
        if (st)
            return st;
        s->nev++;
    }
    return GIP_OK;
}

/* The chunk of a run: the configured one, within the run's staging budget. */
static int64_t base_chunk(int64_t staging)
{
    int64_t chunk = gip__xfer_chunk_bytes();
    if (staging > 0) {
        int64_t cap = staging / (2 * GIP__XFER_SLOTS);
        cap = cap > 4096 ? cap : 4096;
        chunk = cap < chunk ? cap : chunk;
    }
    return chunk;
}

static size_t slot_bytes(int64_t need, int64_t base)
{
    return (size_t)(need > base ? need : base);
}

static gip_status ensure_slots(gip_context *ctx, void **slots, int n, size_t *have, size_t bytes)
{
    if (bytes <= *have)
        return GIP_OK;
    for (int i = 0; i < n; i++) {
        gip__cuda_release_pinned(slots[i]);
        slots[i] = NULL;
    }
    *have = 0;
    for (int i = 0; i < n; i++) {
        gip_status st = gip__cuda_malloc_pinned(ctx, bytes, &slots[i]);
        if (st)
            return st;
    }
    *have = bytes;
    return GIP_OK;
}

/* ---- host copies on gip's CPU threads ----------------------------------------------------- */
typedef struct rows_copy {
    char *dst;
    int64_t dpitch;
    const char *src;
    int64_t spitch, row;
} rows_copy;

static void copy_rows(void *arg, int64_t begin, int64_t end)
{
    const rows_copy *c = (const rows_copy *)arg;
    if (c->dpitch == c->row && c->spitch == c->row) {
        memcpy(c->dst + begin * c->row, c->src + begin * c->row, (size_t)((end - begin) * c->row));
        return;
    }
    for (int64_t y = begin; y < end; y++)
        memcpy(c->dst + y * c->dpitch, c->src + y * c->spitch, (size_t)c->row);
}

static void host_copy(gip_context *ctx, void *dst, int64_t dpitch, const void *src, int64_t spitch,
                      int64_t row, int64_t rows)
{
    rows_copy c = {(char *)dst, dpitch, (const char *)src, spitch, row};
    int64_t grain = COPY_GRAIN / (row > 0 ? row : 1);
    gip__parallel_for(ctx, rows, grain > 0 ? grain : 1, copy_rows, &c);
}

static bool page_locked(const gip_image *img)
{
    return img->memory == GIP_MEM_PINNED || gip__cuda_is_pinned(img->data);
}

/* ---- one run -------------------------------------------------------------------------------- */
typedef struct run {
    gip_context *ctx;
    xfer_state *s;
    cudaStream_t cs;
    const gip_image *src;
    gip_image *dst;
    bool src_locked, dst_locked;
    gip_image dsrc, dout;                 /* device source, device result (or band slots) */
    int64_t h, sw, dw, U, T, D, RR, halo; /* rows, row bytes, chunk/band/piece/region rows */
    int64_t nup, nb, np;
    int64_t base; /* the run's configured chunk: slots have at least this size */
    bool banded;
    cudaEvent_t *ev_up, *ev_comp, *ev_down;
    int64_t *piece_y, *piece_n; /* dst rows of each download piece */
    int64_t *band_end;          /* one past the last download piece of each band */
    int64_t drained;            /* pieces copied into dst */
} run;

#define CU(r, call, what)                                                                          \
    do {                                                                                           \
        gip_status st_ = gip__cuda_status((r)->ctx, (call), (what));                               \
        if (st_)                                                                                   \
            return st_;                                                                            \
    } while (0)

static char *dev_row(const gip_image *img, int64_t y)
{
    return (char *)img->data + y * img->stride;
}

/* Upload chunk k of the source (rows [k U, k U + n)). */
static gip_status upload_chunk(run *r, int64_t k)
{
    int64_t y = k * r->U, n = r->h - y < r->U ? r->h - y : r->U;
    const char *from = (const char *)r->src->data + y * r->src->stride;
    int64_t pitch = r->src->stride;
    if (!r->src_locked) {
        int slot = (int)(k % NIN);
        if (k >= NIN)
            CU(r, cudaEventSynchronize(r->ev_up[k - NIN]), "cudaEventSynchronize");
        host_copy(r->ctx, r->s->in[slot], r->sw, from, pitch, r->sw, n);
        from = (const char *)r->s->in[slot];
        pitch = r->sw;
    }
    CU(r,
       cudaMemcpy2DAsync(dev_row(&r->dsrc, y), (size_t)r->dsrc.stride, from, (size_t)pitch,
                         (size_t)r->sw, (size_t)n, cudaMemcpyHostToDevice, r->s->up),
       "cudaMemcpy2DAsync (upload)");
    CU(r, cudaEventRecord(r->ev_up[k], r->s->up), "cudaEventRecord");
    return GIP_OK;
}

/* Copies download piece j from its pinned slot into dst. */
static gip_status drain(run *r, int64_t j)
{
    CU(r, cudaEventSynchronize(r->ev_down[j]), "cudaEventSynchronize");
    if (!r->dst_locked)
        host_copy(r->ctx, (char *)r->dst->data + r->piece_y[j] * r->dst->stride, r->dst->stride,
                  r->s->out[j % NOUT], r->dw, r->dw, r->piece_n[j]);
    r->drained = j + 1;
    return GIP_OK;
}

/* Band b: computes it once its rows are up, then queues its download in pieces starting at
 * piece *j. */
static gip_status band(run *r, int64_t b, gip__xfer_fn fn, void *arg, int64_t *j)
{
    int64_t y0, y1, r0, r1;
    gip_image sv, dv;
    if (r->banded) {
        y0 = b * r->T;
        y1 = y0 + r->T < r->h ? y0 + r->T : r->h;
        r0 = y0 - r->halo > 0 ? y0 - r->halo : 0;
        r1 = y1 + r->halo < r->h ? y1 + r->halo : r->h;
    } else {
        y0 = 0;
        y1 = r->dst->height;
        r0 = 0;
        r1 = r->h;
    }
    CU(r, cudaStreamWaitEvent(r->cs, r->ev_up[(r1 - 1) / r->U], 0), "cudaStreamWaitEvent");
    sv = r->dsrc;
    sv.data = dev_row(&r->dsrc, r0);
    sv.height = r1 - r0;
    dv = r->dout;
    int64_t off = 0; /* row of dv that holds dst row y0 */
    if (r->banded) {
        int64_t slot = b % NDEV;
        if (b >= NDEV) /* the slot's earlier band must be down */
            CU(r, cudaStreamWaitEvent(r->cs, r->ev_down[r->band_end[b - NDEV] - 1], 0),
               "cudaStreamWaitEvent");
        dv.data = dev_row(&r->dout, slot * r->RR);
        dv.height = r1 - r0;
        off = y0 - r0;
    }
    gip_status st = fn(arg, r->ctx, &sv, r0, &dv);
    if (st)
        return st;
    CU(r, cudaEventRecord(r->ev_comp[b], r->cs), "cudaEventRecord");
    CU(r, cudaStreamWaitEvent(r->s->down, r->ev_comp[b], 0), "cudaStreamWaitEvent");
    for (int64_t y = y0; y < y1; y += r->D, (*j)++) {
        int64_t n = y1 - y < r->D ? y1 - y : r->D;
        r->piece_y[*j] = y;
        r->piece_n[*j] = n;
        const char *from = dev_row(&dv, off + (y - y0));
        if (r->dst_locked) {
            CU(r,
               cudaMemcpy2DAsync((char *)r->dst->data + y * r->dst->stride, (size_t)r->dst->stride,
                                 from, (size_t)dv.stride, (size_t)r->dw, (size_t)n,
                                 cudaMemcpyDeviceToHost, r->s->down),
               "cudaMemcpy2DAsync (download)");
        } else {
            if (*j >= NOUT && r->drained <= *j - NOUT)
                for (int64_t k = r->drained; k <= *j - NOUT; k++)
                    if ((st = drain(r, k)))
                        return st;
            CU(r,
               cudaMemcpy2DAsync(r->s->out[*j % NOUT], (size_t)r->dw, from, (size_t)dv.stride,
                                 (size_t)r->dw, (size_t)n, cudaMemcpyDeviceToHost, r->s->down),
               "cudaMemcpy2DAsync (download)");
        }
        CU(r, cudaEventRecord(r->ev_down[*j], r->s->down), "cudaEventRecord");
    }
    r->band_end[b] = *j;
    return GIP_OK;
}

static int64_t div_up(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Sizes the run: chunks, bands, pieces, slots. */
static void plan(run *r, const gip__xfer *x, int64_t chunk)
{
    const gip_image *s = x->src, *d = x->dst;
    r->h = s->height;
    r->sw = gip_image_row_bytes(s);
    r->dw = gip_image_row_bytes(d);
    /* Images of less than 8 chunks move in 8 smaller ones (down to CHUNK_MIN), so that the CPU's
     * copies, the transfers and the computation still overlap. */
    r->base = chunk;
    int64_t eighth = r->sw * r->h / 8 > CHUNK_MIN ? r->sw * r->h / 8 : CHUNK_MIN;
    if (eighth < chunk)
        chunk = eighth;
    r->U = chunk / r->sw > 0 ? chunk / r->sw : 1;
    r->nup = div_up(r->h, r->U);
    r->D = chunk / r->dw > 0 ? chunk / r->dw : 1;
    r->halo = x->halo;
    r->banded = x->halo >= 0 && !x->reads_dst && d->width == s->width && d->height == s->height;
    /* A band reads 2 halo more rows than it gives: at least 8 halos, so that the overlap costs at
     * most a quarter more work. */
    r->T = r->U > 8 * x->halo ? r->U : 8 * x->halo;
    if (r->banded && r->T >= r->h)
        r->banded = false;
    r->nb = r->banded ? div_up(r->h, r->T) : 1;
    r->RR = r->banded ? (r->T + 2 * r->halo < r->h ? r->T + 2 * r->halo : r->h) : 0;
    r->np = r->banded ? 0 : div_up(d->height, r->D);
    if (r->banded)
        for (int64_t b = 0; b < r->nb; b++) {
            int64_t y0 = b * r->T, y1 = y0 + r->T < r->h ? y0 + r->T : r->h;
            r->np += div_up(y1 - y0, r->D);
        }
}

static gip_status run_all(run *r, const gip__xfer *x)
{
    gip_context *ctx = r->ctx;
    gip_status st;
    const gip_image *s = x->src;
    gip_image *d = x->dst;
    if ((st = gip_image_alloc(ctx, &r->dsrc, s->width, s->height, s->channels, s->dtype,
                              GIP_MEM_CUDA, 0)) ||
        (st = gip_image_alloc(ctx, &r->dout, d->width, r->banded ? NDEV * r->RR : d->height,
                              d->channels, d->dtype, GIP_MEM_CUDA, 0)))
        return st;
    /* The pool's blocks are ready on the compute stream; the copy streams wait for them. */
    cudaEvent_t ready = r->ev_up[r->nup]; /* a spare event (see the count below) */
    CU(r, cudaEventRecord(ready, r->cs), "cudaEventRecord");
    CU(r, cudaStreamWaitEvent(r->s->up, ready, 0), "cudaStreamWaitEvent");
    CU(r, cudaStreamWaitEvent(r->s->down, ready, 0), "cudaStreamWaitEvent");
    if (x->reads_dst) /* one band: dst's pixels under the result first, on the compute stream */
        CU(r,
           cudaMemcpy2DAsync(r->dout.data, (size_t)r->dout.stride, d->data, (size_t)d->stride,
                             (size_t)r->dw, (size_t)d->height, cudaMemcpyHostToDevice, r->cs),
           "cudaMemcpy2DAsync (dst)");
    int64_t k = 0, j = 0;
    for (int64_t b = 0; b < r->nb; b++) {
        /* Up to the chunk of the band's last halo row, and one chunk ahead. */
        int64_t need = r->banded ? b * r->T + r->T + r->halo : r->h;
        need = (need < r->h ? need : r->h) - 1;
        int64_t last = need / r->U + (r->banded ? 1 : 0);
        last = last < r->nup - 1 ? last : r->nup - 1;
        while (k <= last)
            if ((st = upload_chunk(r, k++)))
                return st;
        if ((st = band(r, b, x->run, x->arg, &j)))
            return st;
    }
    if (r->dst_locked)
        return gip__cuda_status(ctx, cudaStreamSynchronize(r->s->down), "cudaStreamSynchronize");
    for (int64_t i = r->drained; i < r->np; i++)
        if ((st = drain(r, i)))
            return st;
    return GIP_OK;
}

extern "C" gip_status gip__xfer_run(gip_context *ctx, const gip__xfer *x)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    xfer_state *s;
    if ((st = state_get(ctx, &s)))
        return st;
    run r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.s = s;
    r.cs = gip__stream(ctx);
    r.src = x->src;
    r.dst = x->dst;
    r.src_locked = page_locked(x->src);
    r.dst_locked = page_locked(x->dst);
    plan(&r, x, base_chunk(x->staging));
    /* Events: nup uploads + 1 spare, nb computations, np downloads. */
    r.piece_y = (int64_t *)malloc((size_t)(2 * r.np + r.nb) * sizeof(int64_t));
    if (!r.piece_y) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "transfer: out of host memory");
        goto out;
    }
    r.piece_n = r.piece_y + r.np;
    r.band_end = r.piece_n + r.np;
    /* Slots of a whole chunk at least, so that they are made once per context. */
    if ((st = ensure_events(ctx, s, r.nup + 1 + r.nb + r.np)) ||
        (!r.src_locked &&
         (st = ensure_slots(ctx, s->in, NIN, &s->in_bytes,
                            slot_bytes(r.sw * (r.U < r.h ? r.U : r.h), r.base)))) ||
        (!r.dst_locked &&
         (st = ensure_slots(ctx, s->out, NOUT, &s->out_bytes, slot_bytes(r.dw * r.D, r.base)))))
        goto out;
    r.ev_up = s->ev;
    r.ev_comp = s->ev + r.nup + 1;
    r.ev_down = r.ev_comp + r.nb;
    st = run_all(&r, x);
out:
    /* Whatever happened, nothing queued may outlive the run: its slots serve the next one. */
    if (s->up)
        cudaStreamSynchronize(s->up);
    if (s->down)
        cudaStreamSynchronize(s->down);
    cudaError_t e = cudaStreamSynchronize(r.cs);
    if (!st)
        st = gip__cuda_status(ctx, e, "cudaStreamSynchronize");
    (void)cudaGetLastError();
    gip_image_free(ctx, &r.dsrc);
    gip_image_free(ctx, &r.dout);
    free(r.piece_y);
    pthread_mutex_unlock(&s->lock);
    return st;
}

extern "C" gip_status gip__xfer_upload(gip_context *ctx, const gip_image *host, gip_image *dev)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    gip_image d = {0};
    if ((st = gip_image_alloc(ctx, &d, host->width, host->height, host->channels, host->dtype,
                              GIP_MEM_CUDA, 0)))
        return st;
    if (page_locked(host)) {
        st = gip__cuda_copy2d(ctx, d.data, d.stride, GIP_MEM_CUDA, host->data, host->stride,
                              GIP_MEM_PINNED, gip_image_row_bytes(host), host->height);
    } else {
        /* Through the staging, chunk by chunk on the compute stream (the extra inputs are seldom
         * large; the source of a run overlaps its chunks on the upload stream). */
        xfer_state *s;
        if (!(st = state_get(ctx, &s))) {
            int64_t row = gip_image_row_bytes(host), chunk = gip__xfer_chunk_bytes();
            int64_t U = chunk / row > 0 ? chunk / row : 1;
            if (U > host->height)
                U = host->height;
            if (!(st = ensure_slots(ctx, s->in, NIN, &s->in_bytes,
                                    slot_bytes(row * U, base_chunk(0)))) &&
                !(st = ensure_events(ctx, s, NIN))) {
                for (int64_t y = 0, k = 0; y < host->height && !st; y += U, k++) {
                    int64_t n = host->height - y < U ? host->height - y : U;
                    int slot = (int)(k % NIN);
                    if (k >= NIN && (st = gip__cuda_status(ctx, cudaEventSynchronize(s->ev[slot]),
                                                           "cudaEventSynchronize")))
                        break;
                    host_copy(ctx, s->in[slot], row, (const char *)host->data + y * host->stride,
                              host->stride, row, n);
                    if (!(st = gip__cuda_status(
                              ctx,
                              cudaMemcpy2DAsync(dev_row(&d, y), (size_t)d.stride, s->in[slot],
                                                (size_t)row, (size_t)row, (size_t)n,
                                                cudaMemcpyHostToDevice, gip__stream(ctx)),
                              "cudaMemcpy2DAsync (upload)")))
                        st = gip__cuda_status(ctx, cudaEventRecord(s->ev[slot], gip__stream(ctx)),
                                              "cudaEventRecord");
                }
                /* The slots are free again only once their copies have run. */
                cudaError_t e = cudaStreamSynchronize(gip__stream(ctx));
                if (!st)
                    st = gip__cuda_status(ctx, e, "cudaStreamSynchronize");
            }
            pthread_mutex_unlock(&s->lock);
        }
    }
    if (st) {
        gip_image_free(ctx, &d);
        return st;
    }
    *dev = d;
    return GIP_OK;
}
