/* SPDX-License-Identifier: MIT */
/* Files larger than memory: the image is read by rows, passed through the pipeline in row bands
 * grown by the chain's halo (so each band's inner rows equal the whole-image result), and written
 * by rows, with host memory bounded by a limit. Files that fit, on the CPU: the same bands, with
 * the decoding on a second thread running ahead of the pipeline and the encoder. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "io/stream_io.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"
#include "transfer/host_transfer.h"

/* Codec working memory: libjpeg keeps a few MCU rows per component (both directions), libpng a
 * row or two; 96 rows of the widest sample layout covers both, plus a fixed part. */
/* The transfer engine's page-locked staging, which host bands on a CUDA pipeline go through
 * (transfer/host_transfer.h): part of the host memory a bounded run holds. */
static int64_t staging(const gip_pipeline *p)
{
    if (gip_context_backend(p->ctx) != GIP_BACKEND_CUDA)
        return 0;
    return p->xfer_staging ? p->xfer_staging : gip__xfer_staging_bytes();
}

static int64_t codec_overhead(int64_t w, int32_t c, gip_dtype dt)
{
    return ((int64_t)8 << 20) + 96 * w * c * (int64_t)gip_dtype_size(dt);
}

/* Streams an opened reader through p in bands of R rows into the writer. */
static gip_status stream_bands(gip_pipeline *p, gip__row_reader *rd, gip__row_writer *wr, int64_t w,
                               int64_t h, int32_t c, gip_dtype dt, int32_t oc, gip_dtype odt,
                               int64_t R, int64_t hy)
{
    gip_image win = {0}, out = {0};
    gip_status st;
    if ((st = gip_image_alloc(NULL, &win, w, R, c, dt, GIP_MEM_HOST, 0)) ||
        (st = gip_image_alloc(NULL, &out, w, R, oc, odt, GIP_MEM_HOST, 0)))
        goto out_free;
    int64_t B = R == h ? h : R - 2 * hy; /* inner rows per band */
    int64_t wa = 0, wb = 0;              /* the window holds image rows [wa, wb) */
    for (int64_t y0 = 0; y0 < h && !st; y0 += B) {
        int64_t y1 = y0 + B < h ? y0 + B : h;
        int64_t ry = y0 - hy < 0 ? 0 : y0 - hy > h - R ? h - R : y0 - hy;
        if (ry > wa) {
            int64_t keep = wb > ry ? wb - ry : 0;
            if (keep)
                memmove(win.data, (uint8_t *)win.data + (ry - wa) * win.stride,
                        (size_t)(keep * win.stride));
            wa = ry;
            wb = ry + keep;
        }
        if (ry + R > wb) {
            gip_image fresh;
            if ((st = gip_image_roi(&win, 0, wb - wa, w, ry + R - wb, &fresh)) ||
                (st = gip__row_reader_read(rd, &fresh)))
                break;
            wb = ry + R;
        }
        gip_image crop;
        if ((st = gip_pipeline_run(p, &win, &out)) ||
            (st = gip_image_roi(&out, 0, y0 - ry, w, y1 - y0, &crop)) ||
            (st = gip__row_writer_write(wr, &crop)))
            break;
    }
out_free:
    gip_image_free(NULL, &win);
    gip_image_free(NULL, &out);
    return st;
}

/* ---- decoding ahead: one file that fits in memory, on the CPU -------------------------------- */

/* Rows the decoding thread reads at a time (a few libjpeg MCU rows); the pipeline's bands. */
#define AHEAD_CHUNK 32
#define AHEAD_BAND 256

typedef struct ahead {
    gip__row_reader *rd;
    gip_image img; /* the whole decoded image */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t ready; /* rows decoded so far */
    bool cancel;   /* the consumer failed: stop reading */
    gip_status st; /* the reader's failure, with its message (raised on the caller's thread) */
    char msg[GIP__MSG_SIZE];
} ahead;

static void *ahead_main(void *arg)
{
    ahead *a = arg;
    for (int64_t y = 0; y < a->img.height;) {
        pthread_mutex_lock(&a->mu);
        bool cancel = a->cancel;
        pthread_mutex_unlock(&a->mu);
        if (cancel)
            break;
        int64_t n = a->img.height - y < AHEAD_CHUNK ? a->img.height - y : AHEAD_CHUNK;
        gip_image rows;
        gip_status st = gip_image_roi(&a->img, 0, y, a->img.width, n, &rows);
        if (!st)
            st = gip__row_reader_read(a->rd, &rows);
        pthread_mutex_lock(&a->mu);
        if (st) {
            a->st = st;
            snprintf(a->msg, sizeof a->msg, "%s", gip_last_error());
        } else {
            a->ready = y + n;
        }
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (st)
            break;
        y += n;
    }
    return NULL;
}

/* Waits until rows [0, need) are decoded; the reader's failure otherwise. */
static gip_status ahead_wait(gip_context *ctx, ahead *a, int64_t need)
{
    pthread_mutex_lock(&a->mu);
    while (a->ready < need && !a->st)
        pthread_cond_wait(&a->cv, &a->mu);
    gip_status st = a->ready >= need ? GIP_OK : a->st;
    pthread_mutex_unlock(&a->mu);
    return st ? gip__error(ctx, st, "%s", a->msg) : GIP_OK;
}

/* Runs p over the opened reader with the decoding on a second thread: bands of B inner rows
 * (windows of B + 2 hy rows, as stream_bands) start as soon as their rows are decoded, and the
 * encoder writes each band's rows before the next band runs. */
static gip_status run_ahead(gip_pipeline *p, gip__row_reader *rd, gip__row_writer *wr, int64_t w,
                            int64_t h, int32_t c, gip_dtype dt, int32_t oc, gip_dtype odt,
                            int64_t B, int64_t hy)
{
    ahead a = {.rd = rd};
    gip_image out = {0};
    int64_t R = B + 2 * hy < h ? B + 2 * hy : h;
    gip_status st;
    if ((st = gip_image_alloc(NULL, &a.img, w, h, c, dt, GIP_MEM_HOST, 0)) ||
        (st = gip_image_alloc(NULL, &out, w, R, oc, odt, GIP_MEM_HOST, 0))) {
        gip_image_free(NULL, &a.img);
        return st;
    }
    pthread_mutex_init(&a.mu, NULL);
    pthread_cond_init(&a.cv, NULL);
    pthread_t th;
    int e = pthread_create(&th, NULL, ahead_main, &a);
    if (e) {
        st = gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY,
                        "gip_pipeline_run_file_bounded: cannot start the decoding thread: %s",
                        strerror(e));
        goto out_free;
    }
    /* The decoding thread keeps a core busy: the pipeline runs on one thread fewer, so that the
     * two do not share a core (the context is this call's alone while it runs). */
    const int32_t threads = p->ctx->threads;
    if (threads > 1)
        p->ctx->threads = threads - 1;
    for (int64_t y0 = 0; y0 < h && !st; y0 += B) {
        int64_t y1 = y0 + B < h ? y0 + B : h;
        int64_t ry = y0 - hy < 0 ? 0 : y0 - hy > h - R ? h - R : y0 - hy;
        gip_image win, crop;
        if ((st = ahead_wait(p->ctx, &a, ry + R)) ||
            (st = gip_image_roi(&a.img, 0, ry, w, R, &win)) ||
            (st = gip_pipeline_run(p, &win, &out)) ||
            (st = gip_image_roi(&out, 0, y0 - ry, w, y1 - y0, &crop)) ||
            (st = gip__row_writer_write(wr, &crop)))
            break;
    }
    pthread_mutex_lock(&a.mu);
    a.cancel = true;
    pthread_mutex_unlock(&a.mu);
    pthread_join(th, NULL);
    p->ctx->threads = threads;
out_free:
    pthread_cond_destroy(&a.cv);
    pthread_mutex_destroy(&a.mu);
    gip_image_free(NULL, &a.img);
    gip_image_free(NULL, &out);
    return st;
}

static gip_status run_bounded(gip_pipeline *p, const char *in, const char *out,
                              const gip_load_params *load, const gip_save_params *save,
                              int64_t max_memory, int32_t *streamed);

gip_status gip_pipeline_run_file_bounded(gip_pipeline *p, const char *in, const char *out,
                                         const gip_load_params *load, const gip_save_params *save,
                                         int64_t max_memory, int32_t *streamed)
{
    if (!p || !p->ctx || gip_context_backend(p->ctx) != GIP_BACKEND_CUDA || max_memory < 0)
        return run_bounded(p, in, out, load, save, max_memory, streamed);
    /* Host bands on a CUDA pipeline go through the transfer engine's page-locked staging: a
     * 64th of the limit at most (within the engine's default), counted in the limit. */
    int64_t limit = max_memory ? max_memory : gip_default_max_memory();
    int64_t share = limit > 0 ? limit / 64 : 0, saved = p->xfer_staging;
    if (share > 0 && share < gip__xfer_staging_bytes())
        p->xfer_staging = share;
    gip_status st = run_bounded(p, in, out, load, save, max_memory, streamed);
    p->xfer_staging = saved;
    return st;
}

static gip_status run_bounded(gip_pipeline *p, const char *in, const char *out,
                              const gip_load_params *load, const gip_save_params *save,
                              int64_t max_memory, int32_t *streamed)
{
    static const char op[] = "gip_pipeline_run_file_bounded";
    if (!p || !in || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !p    ? "p"
                          : !in ? "in"
                                : "out");
    if (max_memory < 0)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: max_memory %lld is invalid; accepted: 0 (the default limit, "
                          "gip_default_max_memory()) or a byte count",
                          op, (long long)max_memory);
    if (streamed)
        *streamed = 0;
    int64_t limit = max_memory ? max_memory : gip_default_max_memory();
    if (limit < 0)
        return gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: GIP_MAX_MEMORY='%s' is not a byte count; accepted: a positive "
                          "integer with an optional K, M, G or T suffix (e.g. 512M)",
                          op, gip__max_memory_env());
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_COLOR;
    if (load)
        lp = *load;
    /* The whole-image path loads within the same limit. */
    if (!lp.max_memory)
        lp.max_memory = limit;
    gip__pipeline_shrink_on_load(p, in, NULL, 0, &lp);
    gip__row_reader *rd = NULL;
    int64_t w, h;
    int32_t c;
    gip_dtype dt;
    gip_status st = gip__row_reader_open(in, &lp, &rd, &w, &h, &c, &dt);
    if (st == GIP_ERR_UNSUPPORTED || st == GIP_ERR_UNKNOWN_FORMAT) {
        /* Not streamable (interlaced PNG, progressive JPEG): the whole-image path decides. */
        return gip_pipeline_run_file(p, in, out, &lp, save);
    }
    if (st)
        return st;
    int64_t ow, oh;
    int32_t oc;
    gip_dtype odt;
    if ((st = gip_pipeline_output_shape(p, w, h, c, dt, &ow, &oh, &oc, &odt)))
        goto out_close;
    int64_t bpp = gip__pipeline_bytes_per_pixel(p, c, dt);
    /* The whole-image path holds the decoded image, the pipeline's buffers and the encoded
     * output (at most the raw output's size). */
    double whole = (double)w * (double)h * (double)bpp +
                   (double)ow * (double)oh * (double)oc * (double)gip_dtype_size(odt) +
                   (double)staging(p);
    int64_t hx, hy;
    if (whole <= (double)limit) {
        /* On the CPU, a tileable chain on an image of a few bands has its decoding run ahead on
         * a second thread; otherwise (and where the output cannot be written by rows) whole. */
        gip__row_writer *wr = NULL;
        bool can = gip_context_backend(p->ctx) == GIP_BACKEND_CPU && ow == w && oh == h &&
                   !gip__pipeline_tileable(p, w, h, c, dt, false, op) &&
                   !gip_pipeline_halo(p, &hx, &hy);
        int64_t B = can && 8 * hy > AHEAD_BAND ? 8 * hy : AHEAD_BAND;
        if (can && h >= 2 * B) {
            st = gip__row_writer_open(out, ow, oh, oc, odt, save, &wr);
            if (!st && (st = run_ahead(p, rd, wr, w, h, c, dt, oc, odt, B, hy)))
                gip__row_writer_abort(wr);
            else if (!st && !(st = gip__row_writer_finish(wr)) && streamed)
                *streamed = 2;
            if (st != GIP_ERR_UNSUPPORTED || wr) { /* not the writer's refusal */
                gip__row_reader_close(rd);
                return st;
            }
        }
        gip_clear_error();
        gip__row_reader_close(rd);
        return gip_pipeline_run_file(p, in, out, &lp, save);
    }
    if (gip__pipeline_bandable(p)) { /* steps that change the size: by stages */
        int64_t widest = c * (int64_t)gip_dtype_size(dt) > oc * (int64_t)gip_dtype_size(odt)
                             ? c * (int64_t)gip_dtype_size(dt)
                             : oc * (int64_t)gip_dtype_size(odt);
        int64_t widthmax = w > ow ? w : ow;
        if (!(st = gip__pipeline_stream_stages(
                  p, rd, out, save, w, h, c, dt, limit,
                  codec_overhead(widthmax, 1, GIP_U8) + 96 * widthmax * widest + staging(p), op)) &&
            streamed)
            *streamed = 1;
        goto out_close;
    }
    if ((st = gip__pipeline_tileable(p, w, h, c, dt, false, op)) ||
        (st = gip_pipeline_halo(p, &hx, &hy)))
        goto out_close;
    int64_t widest = c * (int64_t)gip_dtype_size(dt) > oc * (int64_t)gip_dtype_size(odt)
                         ? c * (int64_t)gip_dtype_size(dt)
                         : oc * (int64_t)gip_dtype_size(odt);
    int64_t fixed = codec_overhead(w, 1, GIP_U8) + 96 * w * widest + staging(p);
    int64_t R = limit > fixed ? (limit - fixed) / (bpp * w) : 0;
    if (R > h)
        R = h;
    if (R < h && R < 2 * hy + 1) {
        st = gip__error(p->ctx, GIP_ERR_TOO_LARGE,
                        "%s: %lld bytes cannot hold a band of %lld rows of %lld pixels (the "
                        "chain reads %lld rows above and below each row; %lld bytes per pixel "
                        "plus %lld for the codecs); raise the limit",
                        op, (long long)limit, (long long)(2 * hy + 1), (long long)w, (long long)hy,
                        (long long)bpp, (long long)fixed);
        goto out_close;
    }
    gip__row_writer *wr = NULL;
    if ((st = gip__row_writer_open(out, ow, oh, oc, odt, save, &wr)))
        goto out_close;
    if ((st = stream_bands(p, rd, wr, w, h, c, dt, oc, odt, R, hy))) {
        gip__row_writer_abort(wr);
        goto out_close;
    }
    if (!(st = gip__row_writer_finish(wr)) && streamed)
        *streamed = 1;
out_close:
    gip__row_reader_close(rd);
    return st;
}
