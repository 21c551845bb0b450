/* SPDX-License-Identifier: MIT */
/* Row streaming of chains that change the image size: the chain is cut into stages, runs of
 * tileable steps (one sub-pipeline each, exact on row bands grown by its halo) and steps that
 * declare row bands (gip_op.band_rows / run_band: resize, thumbnail). The output is made band by
 * band; each band's rows are traced back through the stages to the input rows they need, which
 * a sliding window reads from the file in order, and the band runs forward through the stages
 * on just those rows. The result equals the whole-image run. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io/stream_io.h"
#include "pipeline_internal.h"
#include "pipeline_steps.h"

#define MAX_STAGES 64

typedef struct stage {
    gip_pipeline *sub;   /* a run of tileable steps, or NULL for a banded step */
    const gip__step *bs; /* the banded step */
    gip__shape in, out;  /* the whole image's shape before and after the stage */
    int64_t hy;          /* the sub-pipeline's halo (rows) */
    int64_t cap;         /* the most input rows one band needs here */
    gip_image buf;       /* the stage's output rows */
} stage;

/* The input rows [*a, *b) of stage s that its output rows [a, b) need. */
static gip_status rows_in(const stage *s, int64_t *a, int64_t *b)
{
    if (s->sub) {
        *a = *a - s->hy < 0 ? 0 : *a - s->hy;
        *b = *b + s->hy > s->in.h ? s->in.h : *b + s->hy;
        return GIP_OK;
    }
    const gip_shape in = {s->in.w, s->in.h, s->in.c, s->in.dt};
    int64_t s0, s1;
    gip_status st = s->bs->op->band_rows(s->bs->params, &in, *a, *b, &s0, &s1);
    *a = s0;
    *b = s1;
    return st;
}

/* Traces output rows [o0, o1) back: lo[j], hi[j] are the rows stage j reads (j = n: the
 * output's own). */
static gip_status trace(const stage *st, int32_t n, int64_t o0, int64_t o1, int64_t *lo,
                        int64_t *hi)
{
    lo[n] = o0;
    hi[n] = o1;
    for (int32_t j = n - 1; j >= 0; j--) {
        lo[j] = lo[j + 1];
        hi[j] = hi[j + 1];
        gip_status e = rows_in(&st[j], &lo[j], &hi[j]);
        if (e)
            return e;
    }
    return GIP_OK;
}

bool gip__pipeline_bandable(const gip_pipeline *p)
{
    bool banded = false;
    for (int32_t i = 0; i < p->n; i++)
        if (p->steps[i].op && p->steps[i].op->band_rows && p->steps[i].op->run_band)
            banded = true;
    return banded;
}

gip_status gip__pipeline_stream_stages(gip_pipeline *p, gip__row_reader *rd, const char *out,
                                       const gip_save_params *save, int64_t w, int64_t h, int32_t c,
                                       gip_dtype dt, int64_t limit, int64_t fixed, const char *op)
{
    stage st[MAX_STAGES];
    int32_t n = 0;
    gip_status e = GIP_OK;
    gip_context *cpu = NULL;
    gip_image win = {0};
    gip__row_writer *wr = NULL;
    int64_t *lo = NULL, *hi = NULL;
    memset(st, 0, sizeof st);
    /* The stages and their shapes. */
    gip__shape cur = {w, h, c, dt};
    for (int32_t i = 0; i < p->n && !e;) {
        const gip__step *s = &p->steps[i];
        if (n == MAX_STAGES) {
            e = gip__error(p->ctx, GIP_ERR_UNSUPPORTED, "%s: more than %d stages", op, MAX_STAGES);
            break;
        }
        stage *g = &st[n++];
        g->in = cur;
        if (s->op && s->op->band_rows && s->op->run_band) {
            bool id;
            g->bs = s;
            if ((e = gip__step_shape(p, s, i, cur, &g->out, &id)))
                break;
            i++;
        } else {
            int32_t j = i;
            while (j < p->n &&
                   !(p->steps[j].op && p->steps[j].op->band_rows && p->steps[j].op->run_band))
                j++;
            int64_t hx;
            int32_t oc;
            gip_dtype odt;
            if ((e = gip__pipeline_clone_range(p, NULL, i, j, &g->sub)) ||
                (e = gip__pipeline_tileable(g->sub, cur.w, cur.h, cur.c, cur.dt, false, op)) ||
                (e = gip_pipeline_halo(g->sub, &hx, &g->hy)) ||
                (e = gip_pipeline_output_shape(g->sub, cur.w, cur.h, cur.c, cur.dt, &g->out.w,
                                               &g->out.h, &oc, &odt)))
                break;
            g->out.c = oc;
            g->out.dt = odt;
            i = j;
        }
        cur = g->out;
    }
    if (e)
        goto out;
    const int64_t oh = cur.h;
    if (!(lo = malloc(sizeof *lo * (size_t)(n + 1))) ||
        !(hi = malloc(sizeof *hi * (size_t)(n + 1)))) {
        e = gip__error(p->ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto out;
    }
    /* The band height: the largest (from 256 rows down) whose buffers fit the limit with the
     * codecs; every band is traced once to learn the rows each stage holds at most. */
    int64_t B = oh < 256 ? oh : 256, need = 0;
    for (;; B /= 2) {
        int64_t wcap = 0;
        for (int32_t j = 0; j < n; j++)
            st[j].cap = 0;
        for (int64_t o0 = 0; o0 < oh && !e; o0 += B) {
            e = trace(st, n, o0, o0 + B < oh ? o0 + B : oh, lo, hi);
            for (int32_t j = 0; j < n && !e; j++) {
                /* a sub-pipeline writes all the rows it reads; a banded step the next's */
                const int64_t r = st[j].sub ? hi[j] - lo[j] : hi[j + 1] - lo[j + 1];
                st[j].cap = r > st[j].cap ? r : st[j].cap;
            }
            wcap = hi[0] - lo[0] > wcap ? hi[0] - lo[0] : wcap;
        }
        if (e)
            goto out;
        /* the window, then each stage's output rows (a sub-pipeline's with its intermediates
         * and scratch: its bytes per pixel less the input, which the stage before holds) */
        need = fixed + wcap * w * c * (int64_t)gip_dtype_size(dt);
        for (int32_t j = 0; j < n; j++)
            need +=
                st[j].sub
                    ? st[j].cap * st[j].in.w *
                          (gip__pipeline_bytes_per_pixel(st[j].sub, st[j].in.c, st[j].in.dt) -
                           st[j].in.c * (int64_t)gip_dtype_size(st[j].in.dt))
                    : st[j].cap * st[j].out.w * st[j].out.c * (int64_t)gip_dtype_size(st[j].out.dt);
        if (need <= limit || B == 1)
            break;
    }
    if (need > limit) {
        e = gip__error(p->ctx, GIP_ERR_TOO_LARGE,
                       "%s: %lld bytes cannot hold one output row's band through the chain "
                       "(%lld bytes with the codecs); raise the limit",
                       op, (long long)limit, (long long)need);
        goto out;
    }
    /* The window of input rows and each stage's output rows. */
    int64_t wcap = 0;
    for (int64_t o0 = 0; o0 < oh; o0 += B) {
        if ((e = trace(st, n, o0, o0 + B < oh ? o0 + B : oh, lo, hi)))
            goto out;
        if (hi[0] - lo[0] > wcap)
            wcap = hi[0] - lo[0];
    }
    gip_context_desc cd = {.backend = GIP_BACKEND_CPU, .threads = gip_context_threads(p->ctx)};
    if ((e = gip_context_create(&cd, &cpu)) ||
        (e = gip_image_alloc(NULL, &win, w, wcap, c, dt, GIP_MEM_HOST, 0)))
        goto out;
    for (int32_t j = 0; j < n; j++)
        if ((e = gip_image_alloc(NULL, &st[j].buf, st[j].out.w, st[j].cap, st[j].out.c,
                                 st[j].out.dt, GIP_MEM_HOST, 0)))
            goto out;
    if ((e = gip__row_writer_open(out, cur.w, cur.h, cur.c, cur.dt, save, &wr)))
        goto out;
    int64_t wa = 0, wb = 0; /* the window holds input rows [wa, wb) */
    for (int64_t o0 = 0; o0 < oh && !e; o0 += B) {
        const int64_t o1 = o0 + B < oh ? o0 + B : oh;
        if ((e = trace(st, n, o0, o1, lo, hi)))
            break;
        /* Slide the window to [lo[0], hi[0]): rows below lo[0] are dropped, new ones read (the
         * file is read once, in order: a band never needs rows an earlier one dropped). */
        if (lo[0] < wa) {
            e = gip__error(p->ctx, GIP_ERR_INTERNAL,
                           "%s: output rows [%lld, %lld) need input row %lld, before the window "
                           "(%lld)",
                           op, (long long)o0, (long long)o1, (long long)lo[0], (long long)wa);
            break;
        }
        if (lo[0] > wa) {
            const int64_t keep = wb > lo[0] ? wb - lo[0] : 0;
            if (keep)
                memmove(win.data, (uint8_t *)win.data + (lo[0] - wa) * win.stride,
                        (size_t)(keep * win.stride));
            wa = lo[0];
            wb = lo[0] + keep;
        }
        if (hi[0] > wb) {
            gip_image fresh;
            if ((e = gip_image_roi(&win, 0, wb - wa, w, hi[0] - wb, &fresh)) ||
                (e = gip__row_reader_read(rd, &fresh)))
                break;
            wb = hi[0];
        }
        gip_image band;
        if ((e = gip_image_roi(&win, 0, lo[0] - wa, w, hi[0] - lo[0], &band)))
            break;
        for (int32_t j = 0; j < n && !e; j++) {
            stage *g = &st[j];
            gip_image o;
            if (g->sub) {
                /* the sub-pipeline on the rows it reads, then the rows the next stage needs */
                gip_image full;
                if ((e = gip_image_roi(&g->buf, 0, 0, g->out.w, band.height, &full)) ||
                    (e = gip_pipeline_run(g->sub, &band, &full)) ||
                    (e = gip_image_roi(&full, 0, lo[j + 1] - lo[j], g->out.w, hi[j + 1] - lo[j + 1],
                                       &o)))
                    break;
            } else {
                const gip_shape in = {g->in.w, g->in.h, g->in.c, g->in.dt};
                if ((e = gip_image_roi(&g->buf, 0, 0, g->out.w, hi[j + 1] - lo[j + 1], &o)) ||
                    (e = g->bs->op->run_band(cpu, &band, lo[j], &in, &o, lo[j + 1], g->bs->params)))
                    break;
            }
            band = o;
        }
        if (!e)
            e = gip__row_writer_write(wr, &band);
    }
    if (e)
        gip__row_writer_abort(wr);
    else
        e = gip__row_writer_finish(wr);
    wr = NULL;
out:
    if (wr)
        gip__row_writer_abort(wr);
    for (int32_t j = 0; j < n; j++) {
        gip_pipeline_free(st[j].sub);
        gip_image_free(NULL, &st[j].buf);
    }
    gip_image_free(NULL, &win);
    gip_context_destroy(cpu);
    free(lo);
    free(hi);
    return e;
}
