/* SPDX-License-Identifier: MIT */
/* Frequency-domain correlation on the CPU, per channel, with the row/column blocking of the
 * spectrum (spectrum_cpu.c): blocks of padded rows transformed in place (real to complex), then
 * blocks of columns transposed into contiguous rows, transformed, multiplied by the kernel's
 * spectrum, transformed back and transposed back, then the output rows transformed back (complex
 * to real) and written. Rows of the padded plane past the image and its halo are zero, so their
 * transform is zero and is not computed; only the image's rows are transformed back. The kernel's
 * spectrum is a 2-D transform made by the same passes (kept transposed: [u][v]), or for a
 * separable kernel the product of two 1-D spectra formed on the fly. */
#include <string.h>

#include "border.h"
#include "fft.h"

enum { ROW_BLOCK = 8, COL_BLOCK = 16 };

typedef struct conv_arg {
    const gip_image *src;
    gip_image *dst;
    const gip__fftconv_plan *p;
    float *plane;        /* n rows of hs complex: the padded rows, then their transforms */
    float *tbuf;         /* per part: COL_BLOCK rows of nt complex */
    float *kspec;        /* 2-D kernels: hm rows (u) of nt complex (v); NULL when separable */
    const float *kxs;    /* separable: hm complex */
    const float *kys;    /* separable: n complex */
    const int64_t *mapx; /* padded column u -> source column, -1 for the constant */
    int64_t m, n, hm, hs;
    int64_t nt;       /* row stride (complex) of tbuf and kspec: n rounded up to 8, for alignment */
    int64_t rows;     /* rows of the plane that hold data (h + kh - 1, at most n) */
    int64_t parts;    /* column parts (threads) */
    int32_t c;        /* channel in work */
    bool kernel_pass; /* building kspec from the kernel plane instead of convolving */
    float scale;      /* 1 / (m n) */
    uintptr_t row_fwd, row_fwd1, row_inv, row_inv1, col_fwd, col_fwd_rest, col_inv, col_inv_rest;
} conv_arg;

static float src_value(const gip_image *s, int64_t x, int64_t y, int32_t c)
{
    return gip__elem_f32((const char *)s->data + y * s->stride, s->dtype, x * s->channels + c);
}

/* Padded row v (< a->rows) of the current channel into `out` (m floats). */
static void pad_row(const conv_arg *a, int64_t v, float *out)
{
    const gip__fftconv_plan *p = a->p;
    int64_t w = a->src->width, h = a->src->height, wp = w + p->kw - 1;
    float cval = p->border.value[a->c < 4 ? a->c : 0];
    int64_t sy = gip__border_index(v - p->ay, h, p->border.mode);
    for (int64_t u = 0; u < wp; u++) {
        int64_t sx = a->mapx[u];
        out[u] = sy < 0 || sx < 0 ? cval : src_value(a->src, sx, sy, a->c);
    }
    for (int64_t u = wp; u < a->m; u++)
        out[u] = 0.0f;
}

/* Blocks of ROW_BLOCK rows: fill (padded image rows, or for the kernel pass its flipped and
 * wrapped taps), then the forward row transforms in place. Rows from a->rows on are zero. */
static void fwd_rows(void *arg, int64_t b0, int64_t b1)
{
    const conv_arg *a = arg;
    const gip__fftconv_plan *p = a->p;
    for (int64_t b = b0; b < b1; b++) {
        int64_t y0 = b * ROW_BLOCK, y1 = y0 + ROW_BLOCK < a->n ? y0 + ROW_BLOCK : a->n;
        for (int64_t v = y0; v < y1; v++) {
            float *row = a->plane + 2 * v * a->hs;
            if (a->kernel_pass) {
                memset(row, 0, (size_t)a->m * sizeof(float));
                /* Tap (i, j) at ((m - i) mod m, (n - j) mod n): row v holds tap row j. */
                int64_t j = v == 0 ? 0 : a->n - v;
                if (j < p->kh)
                    for (int64_t i = 0; i < p->kw; i++)
                        row[(a->m - i) % a->m] = p->kernel[j * p->kw + i];
            } else if (v < a->rows) {
                pad_row(a, v, row);
            }
        }
        bool zero_tail = !a->kernel_pass && y1 > a->rows;
        float *q = a->plane + 2 * y0 * a->hs;
        if (y1 - y0 == ROW_BLOCK && !zero_tail) {
            gip__fftw_execute(a->row_fwd, GIP__FFT_ROWS_R2C, q, q);
            continue;
        }
        for (int64_t v = y0; v < y1; v++, q += 2 * a->hs) {
            if (!a->kernel_pass && v >= a->rows)
                memset(q, 0, (size_t)a->hm * 2 * sizeof(float));
            else
                gip__fftw_execute(a->row_fwd1, GIP__FFT_ROWS_R2C, q, q);
        }
    }
}

/* Column blocks split among the parts: transpose COL_BLOCK columns into rows, forward
 * transforms; then either keep them as the kernel's spectrum (kernel pass) or multiply by it,
 * transform back and transpose back into the plane. */
static void col_parts(void *arg, int64_t p0, int64_t p1)
{
    const conv_arg *a = arg;
    int64_t nb = (a->hm + COL_BLOCK - 1) / COL_BLOCK, n = a->n, nt = a->nt;
    for (int64_t part = p0; part < p1; part++) {
        float *t = a->tbuf + part * COL_BLOCK * nt * 2;
        for (int64_t b = nb * part / a->parts; b < nb * (part + 1) / a->parts; b++) {
            int64_t x0 = b * COL_BLOCK, cnt = a->hm - x0 < COL_BLOCK ? a->hm - x0 : COL_BLOCK;
            bool full = cnt == COL_BLOCK;
            float *dst = a->kernel_pass ? a->kspec + 2 * x0 * nt : t;
            for (int64_t v = 0; v < n; v++) {
                const float *s = a->plane + 2 * (v * a->hs + x0);
                for (int64_t i = 0; i < cnt; i++) {
                    dst[2 * (i * nt + v)] = s[2 * i];
                    dst[2 * (i * nt + v) + 1] = s[2 * i + 1];
                }
            }
            gip__fftw_execute(full ? a->col_fwd : a->col_fwd_rest, GIP__FFT_BATCH_C2C, dst, dst);
            if (a->kernel_pass)
                continue;
            for (int64_t i = 0; i < cnt; i++) {
                float *sp = t + 2 * i * nt;
                if (a->kspec) {
                    const float *k = a->kspec + 2 * (x0 + i) * nt;
                    for (int64_t v = 0; v < n; v++) {
                        float sr = sp[2 * v], si = sp[2 * v + 1], kr = k[2 * v], ki = k[2 * v + 1];
                        sp[2 * v] = (sr * kr - si * ki) * a->scale;
                        sp[2 * v + 1] = (sr * ki + si * kr) * a->scale;
                    }
                } else {
                    float xr = a->kxs[2 * (x0 + i)], xi = a->kxs[2 * (x0 + i) + 1];
                    for (int64_t v = 0; v < n; v++) {
                        float yr = a->kys[2 * v], yi = a->kys[2 * v + 1];
                        float kr = xr * yr - xi * yi, ki = xr * yi + xi * yr;
                        float sr = sp[2 * v], si = sp[2 * v + 1];
                        sp[2 * v] = (sr * kr - si * ki) * a->scale;
                        sp[2 * v + 1] = (sr * ki + si * kr) * a->scale;
                    }
                }
            }
            gip__fftw_execute(full ? a->col_inv : a->col_inv_rest, GIP__FFT_BATCH_C2C_INV, t, t);
            /* Only the image's rows are transformed back along x. */
            for (int64_t v = 0; v < a->src->height; v++) {
                float *d = a->plane + 2 * (v * a->hs + x0);
                for (int64_t i = 0; i < cnt; i++) {
                    d[2 * i] = t[2 * (i * nt + v)];
                    d[2 * i + 1] = t[2 * (i * nt + v) + 1];
                }
            }
        }
    }
}

/* Blocks of output rows: the inverse row transforms in place, then the channel written. */
static void inv_rows(void *arg, int64_t b0, int64_t b1)
{
    const conv_arg *a = arg;
    const gip_image *d = a->dst;
    int64_t h = d->height;
    int32_t cn = d->channels;
    for (int64_t b = b0; b < b1; b++) {
        int64_t y0 = b * ROW_BLOCK, y1 = y0 + ROW_BLOCK < h ? y0 + ROW_BLOCK : h;
        float *q = a->plane + 2 * y0 * a->hs;
        if (y1 - y0 == ROW_BLOCK)
            gip__fftw_execute(a->row_inv, GIP__FFT_ROWS_C2R, q, q);
        else
            for (int64_t y = y0; y < y1; y++)
                gip__fftw_execute(a->row_inv1, GIP__FFT_ROWS_C2R, a->plane + 2 * y * a->hs,
                                  a->plane + 2 * y * a->hs);
        for (int64_t y = y0; y < y1; y++) {
            const float *in = a->plane + 2 * y * a->hs;
            char *row = (char *)d->data + y * d->stride;
            for (int64_t x = 0; x < d->width; x++)
                gip__elem_store_f32(row, d->dtype, x * cn + a->c, in[x] + a->p->delta);
        }
    }
}

gip_status gip__fft_convolve_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const gip__fftconv_plan *p)
{
    int64_t m = p->m, n = p->n, hm = m / 2 + 1, w = src->width, h = src->height;
    int64_t wp = w + p->kw - 1;
    /* Rows a multiple of 8 complex keep row and column blocks aligned for FFTW's SIMD. */
    int64_t hs = (hm + 7) & ~(int64_t)7;
    bool sep = p->kx != NULL;
    int64_t nb = (hm + COL_BLOCK - 1) / COL_BLOCK;
    int64_t parts = ctx->threads < nb ? ctx->threads : nb;
    int64_t tlen = m > n ? m : n, nt = (n + 7) & ~(int64_t)7;
    size_t plane_bytes = gip__fft_round((size_t)(hs * n) * 2 * sizeof(float));
    size_t t_bytes = gip__fft_round((size_t)(parts * COL_BLOCK * nt) * 2 * sizeof(float));
    size_t k_bytes =
        sep ? gip__fft_round((size_t)(hm + n) * 2 * sizeof(float)) +
                  gip__fft_round((size_t)tlen * 2 * sizeof(double))
            : gip__fft_round((size_t)(((hm + COL_BLOCK - 1) / COL_BLOCK * COL_BLOCK) * nt) * 2 *
                             sizeof(float));
    size_t map_bytes = gip__fft_round((size_t)wp * sizeof(int64_t));
    gip__fft_scratch s;
    gip_status st =
        gip__fft_scratch_acquire(ctx, false, plane_bytes + t_bytes + k_bytes + map_bytes, &s);
    if (st)
        return st;
    char *base = s.ptr;
    conv_arg a = {.src = src,
                  .dst = dst,
                  .p = p,
                  .plane = (float *)base,
                  .tbuf = (float *)(base + plane_bytes),
                  .m = m,
                  .n = n,
                  .hm = hm,
                  .hs = hs,
                  .nt = nt,
                  .rows = h + p->kh - 1 < n ? h + p->kh - 1 : n,
                  .parts = parts,
                  .scale = (float)(1.0 / ((double)m * (double)n))};
    float *kbuf = (float *)(base + plane_bytes + t_bytes);
    int64_t *mapx = (int64_t *)(base + plane_bytes + t_bytes + k_bytes);
    int64_t col_rest = hm % COL_BLOCK;
    if ((n >= ROW_BLOCK && (st = gip__fftw_plan_batch(ctx, GIP__FFT_ROWS_R2C, m, ROW_BLOCK, hs,
                                                      a.plane, &a.row_fwd))) ||
        (st = gip__fftw_plan_batch(ctx, GIP__FFT_ROWS_R2C, m, 1, hs, a.plane, &a.row_fwd1)) ||
        (h >= ROW_BLOCK && (st = gip__fftw_plan_batch(ctx, GIP__FFT_ROWS_C2R, m, ROW_BLOCK, hs,
                                                      a.plane, &a.row_inv))) ||
        (st = gip__fftw_plan_batch(ctx, GIP__FFT_ROWS_C2R, m, 1, hs, a.plane, &a.row_inv1)) ||
        (hm >= COL_BLOCK && ((st = gip__fftw_plan_batch(ctx, GIP__FFT_BATCH_C2C, n, COL_BLOCK, nt,
                                                        a.tbuf, &a.col_fwd)) ||
                             (st = gip__fftw_plan_batch(ctx, GIP__FFT_BATCH_C2C_INV, n, COL_BLOCK,
                                                        nt, a.tbuf, &a.col_inv)))) ||
        (col_rest && ((st = gip__fftw_plan_batch(ctx, GIP__FFT_BATCH_C2C, n, col_rest, nt, a.tbuf,
                                                 &a.col_fwd_rest)) ||
                      (st = gip__fftw_plan_batch(ctx, GIP__FFT_BATCH_C2C_INV, n, col_rest, nt,
                                                 a.tbuf, &a.col_inv_rest)))))
        goto out_release;

    for (int64_t u = 0; u < wp; u++)
        mapx[u] = gip__border_index(u - p->ax, w, p->border.mode);
    a.mapx = mapx;
    if (sep) {
        float *kxs = kbuf, *kys = kbuf + 2 * hm;
        double *table = (double *)((char *)kbuf + gip__fft_round((size_t)(hm + n) * 2 * 4));
        gip__fft_twiddles(m, table);
        gip__fft_taps_spectrum(p->kx, p->kw, m, hm, table, kxs);
        gip__fft_twiddles(n, table);
        gip__fft_taps_spectrum(p->ky, p->kh, n, n, table, kys);
        a.kxs = kxs;
        a.kys = kys;
    } else {
        /* The kernel's 2-D spectrum, transposed ([u][v]), by the same passes. */
        a.kspec = kbuf;
        a.kernel_pass = true;
        gip__parallel_for(ctx, (n + ROW_BLOCK - 1) / ROW_BLOCK, 1, fwd_rows, &a);
        gip__parallel_for(ctx, parts, 1, col_parts, &a);
        a.kernel_pass = false;
    }
    for (int32_t c = 0; c < src->channels; c++) {
        a.c = c;
        gip__parallel_for(ctx, (n + ROW_BLOCK - 1) / ROW_BLOCK, 1, fwd_rows, &a);
        gip__parallel_for(ctx, parts, 1, col_parts, &a);
        gip__parallel_for(ctx, (h + ROW_BLOCK - 1) / ROW_BLOCK, 1, inv_rows, &a);
    }
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
