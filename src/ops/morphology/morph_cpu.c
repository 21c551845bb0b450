/* SPDX-License-Identifier: MIT */
/* Morphology on the CPU: one erosion or dilation pass and the element-wise steps of the
 * compositions. An all-ones element is a row OP (straight from the source row, by doubling:
 * ceil(log2 kw) + 1 passes; van Herk / Gil-Werman from 96 columns) then a column OP: under 8 rows
 * over a ring of the last kh row results, from 8 rows by van Herk over blocks of rows, so that
 * the cost does not grow with the size and no intermediate image is made. Other elements are
 * cut into runs of ones along their rows (a row's OP over each run length is taken once), or
 * taken tap by tap where no run is longer than one. Loops run over a row's contiguous elements
 * so that the compiler vectorises the min/max. */
#if defined(__GNUC__) && !defined(__clang__)
/* Float comparisons may then become vector min and max (the values are the same; only exception
 * flags, which gip never reads, could differ). */
#pragma GCC optimize("no-trapping-math")
#endif

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "ops/morphology/morph.h"

/* Column strip of the column pass's van Herk buffers, in elements. */
#define STRIP 1024

/* The row loops built for x86-64-v3 (AVX2) and the baseline, chosen when first called. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MORPH_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MORPH_CLONES
#endif

/* An element as runs of consecutive ones along its rows: run i covers padded columns
 * [x0, x0 + len[li]) of the padded row dy below the output row (dy relative to the anchor). */
typedef struct morph_run {
    int32_t dy, x0, li;
} morph_run;

typedef struct morph_runs {
    int32_t nruns, nlen, levels; /* levels: powers of two up to the longest run (1, 2, 4 ...) */
    int32_t pad_needed; /* a run of one pixel off the anchor's column: rows are padded whole */
    morph_run *run;
    int32_t *len; /* the distinct lengths */
} morph_runs;

typedef struct pass_job {
    const gip__morph_pass *p;
    const gip_image *src; /* the pass's input */
    gip_image *dst;
    const int32_t *xmap; /* padded column -> source column, -1 outside (constant) */
    const morph_runs *runs;
    atomic_int failed;
} pass_job;

/* Whether all n buffers of a range function were allocated; where one was not, frees them all and
 * marks the pass failed. */
static bool got_buffers(pass_job *j, void *const *buf, int n)
{
    for (int i = 0; i < n; i++)
        if (!buf[i]) {
            for (int k = 0; k < n; k++)
                free(buf[k]);
            atomic_store(&j->failed, 1);
            return false;
        }
    return true;
}

/* The keys of a ring of kh rows, none held yet (slot ring_slot(y, kh) holds row y while its key is
 * y); NULL when out of memory. */
static int64_t *ring_keys(int32_t kh)
{
    int64_t *held = malloc((size_t)kh * sizeof *held);
    if (held)
        for (int32_t i = 0; i < kh; i++)
            held[i] = INT64_MIN;
    return held;
}

/* The slot of row y (of either sign) in a ring of kh rows. */
static inline int64_t ring_slot(int64_t y, int32_t kh)
{
    return ((y % kh) + kh) % kh;
}

#define ROW(img, T, y) ((T *)((uint8_t *)(img)->data + (int64_t)(y) * (img)->stride))

/* The locals every range function of a pass starts from: the job j and its pass p, the channels
 * c, the source's width w and height h, a row's elements rl and a padded row's elements pw. */
#define PASS_LOCALS(arg)                                                                           \
    pass_job *j = (arg);                                                                           \
    const gip__morph_pass *p = j->p;                                                               \
    const int c = j->src->channels;                                                                \
    const int64_t w = j->src->width, h = j->src->height, rl = w * c;                               \
    const int64_t pw = (w + p->kw - 1) * c

/* Everything below is written once per element type and operation. */
#define MORPH_IMPL(SFX, T, OP)                                                                     \
    /* out = n pixels of c channels of the border value. */                                        \
    static void fill_border_##SFX(const gip__morph_pass *p, int c, T *out, int64_t n)              \
    {                                                                                              \
        for (int64_t e = 0; e < n * c; e++)                                                        \
            out[e] = (T)p->border_value[e % c];                                                    \
    }                                                                                              \
                                                                                                   \
    /* Padded columns [x0, x1) of source row s (through the border map) into out. */               \
    static void pad_cols_##SFX(const pass_job *j, const T *s, int64_t x0, int64_t x1, T *out)      \
    {                                                                                              \
        const int c = j->src->channels;                                                            \
        T bv[4];                                                                                   \
        for (int ch = 0; ch < 4; ch++)                                                             \
            bv[ch] = (T)j->p->border_value[ch];                                                    \
        for (int64_t x = x0; x < x1; x++) {                                                        \
            const int32_t sx = j->xmap[x];                                                         \
            for (int ch = 0; ch < c; ch++)                                                         \
                out[(x - x0) * c + ch] = sx < 0 ? bv[ch] : s[(int64_t)sx * c + ch];                \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* The padded row of source row `y` (-1: a constant row): (w + kw - 1) pixels. */              \
    static void pad_row_##SFX(const pass_job *j, int64_t y, T *pr)                                 \
    {                                                                                              \
        const gip__morph_pass *p = j->p;                                                           \
        const int c = j->src->channels;                                                            \
        const int64_t w = j->src->width, n = w + p->kw - 1;                                        \
        if (y < 0) {                                                                               \
            fill_border_##SFX(p, c, pr, n);                                                        \
            return;                                                                                \
        }                                                                                          \
        const T *s = ROW(j->src, const T, y);                                                      \
        pad_cols_##SFX(j, s, 0, p->ax, pr);                                                        \
        memcpy(pr + (int64_t)p->ax * c, s, (size_t)(w * c) * sizeof(T));                           \
        pad_cols_##SFX(j, s, p->ax + w, n, pr + (p->ax + w) * c);                                  \
    }                                                                                              \
                                                                                                   \
    /* out[e] = OP over i < k of in[e + i * step], e < n; g, h: n + (k - 1) * step elements. */    \
    MORPH_CLONES static void line_##SFX(const T *in, T *out, int64_t n, int64_t step, int32_t k,   \
                                        T *g, T *h)                                                \
    {                                                                                              \
        if (k < GIP__MORPH_VHGW_CPU_ROW) {                                                         \
            if (k == 1) {                                                                          \
                memcpy(out, in, (size_t)n * sizeof(T));                                            \
                return;                                                                            \
            }                                                                                      \
            if (k <= 3) { /* one pass */                                                           \
                const T *b = in + step, *c2 = in + 2 * step;                                       \
                if (k == 2)                                                                        \
                    for (int64_t e = 0; e < n; e++)                                                \
                        out[e] = OP(in[e], b[e]);                                                  \
                else                                                                               \
                    for (int64_t e = 0; e < n; e++)                                                \
                        out[e] = OP(OP(in[e], b[e]), c2[e]);                                       \
                return;                                                                            \
            }                                                                                      \
            /* by doubling: the OP over 2, 4, ... S <= k elements, then two overlapping windows    \
             * of S (ceil(log2 k) + 1 vector passes) */                                            \
            const T *lo = in;                                                                      \
            T *ping[2] = {g, h};                                                                   \
            int64_t span = 1, valid = n + (int64_t)(k - 1) * step;                                 \
            for (int b = 0; 2 * span <= k; b ^= 1, span *= 2) {                                    \
                T *o = ping[b];                                                                    \
                valid -= span * step;                                                              \
                for (int64_t e = 0; e < valid; e++)                                                \
                    o[e] = OP(lo[e], lo[e + span * step]);                                         \
                lo = o;                                                                            \
            }                                                                                      \
            const T *hi = lo + (k - span) * step;                                                  \
            for (int64_t e = 0; e < n; e++)                                                        \
                out[e] = OP(lo[e], hi[e]);                                                         \
            return;                                                                                \
        }                                                                                          \
        /* Blocks of k positions: g is the running OP from a block's start, h from its end; the    \
         * window [x, x + k) spans at most two blocks, so out = OP(h[x], g[x + k - 1]). */         \
        const int64_t m = n / step + k - 1; /* padded positions */                                 \
        for (int64_t b = 0; b < m; b += k) {                                                       \
            /* the block's elements [e0, e1) as one run: each reads the element a step back */     \
            const int64_t e0 = b * step, e1 = (b + k < m ? b + k : m) * step;                      \
            for (int64_t i = e0; i < e0 + step; i++)                                               \
                g[i] = in[i];                                                                      \
            for (int64_t i = e0 + step; i < e1; i++)                                               \
                g[i] = OP(g[i - step], in[i]);                                                     \
            for (int64_t i = e1 - step; i < e1; i++)                                               \
                h[i] = in[i];                                                                      \
            for (int64_t i = e1 - step - 1; i >= e0; i--)                                          \
                h[i] = OP(h[i + step], in[i]);                                                     \
        }                                                                                          \
        const T *gk = g + (int64_t)(k - 1) * step;                                                 \
        for (int64_t e = 0; e < n; e++)                                                            \
            out[e] = OP(h[e], gk[e]);                                                              \
    }                                                                                              \
                                                                                                   \
    /* d = the OP of n rows s[0..n) (n >= 1), three rows in the first pass, two a pass after. */   \
    static inline __attribute__((always_inline)) void combine_##SFX(T *d, const T **s, int32_t n,  \
                                                                    int64_t rl)                    \
    {                                                                                              \
        int32_t i;                                                                                 \
        if (n == 1) {                                                                              \
            memcpy(d, s[0], (size_t)rl * sizeof(T));                                               \
            return;                                                                                \
        }                                                                                          \
        if (n == 2) {                                                                              \
            for (int64_t e = 0; e < rl; e++)                                                       \
                d[e] = OP(s[0][e], s[1][e]);                                                       \
            return;                                                                                \
        }                                                                                          \
        for (int64_t e = 0; e < rl; e++)                                                           \
            d[e] = OP(OP(s[0][e], s[1][e]), s[2][e]);                                              \
        for (i = 3; i + 1 < n; i += 2)                                                             \
            for (int64_t e = 0; e < rl; e++)                                                       \
                d[e] = OP(d[e], OP(s[i][e], s[i + 1][e]));                                         \
        if (i < n)                                                                                 \
            for (int64_t e = 0; e < rl; e++)                                                       \
                d[e] = OP(d[e], s[i][e]);                                                          \
    }                                                                                              \
                                                                                                   \
    /* out = the row OP over the kw columns of source row y (y >= 0): the interior straight from   \
     * the source row, the few pixels whose window leaves it from a small padded copy (edge:       \
     * 2 kw pixels); g, h: the line's scratch (a padded row each). */                              \
    static void line_row_##SFX(const pass_job *j, int64_t y, T *out, T *g, T *h, T *edge)          \
    {                                                                                              \
        const gip__morph_pass *p = j->p;                                                           \
        const int c = j->src->channels;                                                            \
        const int64_t w = j->src->width, k = p->kw, ax = p->ax, ni = w - k + 1;                    \
        const T *s = ROW(j->src, const T, y);                                                      \
        if (ni <= 0) { /* the window is wider than the row: all of it through the padding */       \
            T *pr = g + (w + k - 1) * c; /* g's second half: the padded row */                     \
            pad_row_##SFX(j, y, pr);                                                               \
            line_##SFX(pr, out, w *c, c, p->kw, g, h);                                             \
            return;                                                                                \
        }                                                                                          \
        line_##SFX(s, out + ax * c, ni * c, c, p->kw, g, h);                                       \
        /* the first ax pixels and the last k - 1 - ax: padded columns [x0, x0 + n + k - 1) */     \
        for (int side = 0; side < 2; side++) {                                                     \
            const int64_t x0 = side ? ni + ax : 0, n = side ? k - 1 - ax : ax;                     \
            if (n <= 0)                                                                            \
                continue;                                                                          \
            pad_cols_##SFX(j, s, x0, x0 + n + k - 1, edge);                                        \
            line_##SFX(edge, out + x0 * c, n * c, c, p->kw, g, h);                                 \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Rect with fewer than GIP__MORPH_VHGW_CPU rows, in one pass: each thread keeps the row       \
     * pass of the last kh source rows (a slot per row, source row mod kh) and takes the column    \
     * OP from them; no intermediate image. */                                                     \
    MORPH_CLONES static void rect_small_##SFX(void *arg, int64_t y0, int64_t y1)                   \
    {                                                                                              \
        PASS_LOCALS(arg);                                                                          \
        const int32_t k = p->kh;                                                                   \
        T *buf = malloc((size_t)(pw * 3 + rl * (k + 1) + 2 * (int64_t)p->kw * c) * sizeof(T));     \
        int64_t *held = ring_keys(k);                                                              \
        if (!got_buffers(j, (void *const[]){buf, held}, 2))                                        \
            return;                                                                                \
        T *ring = buf + pw * 3, *crow = ring + rl * k, *edge = crow + rl;                          \
        fill_border_##SFX(p, c, crow, w);                                                          \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            T *d = ROW(j->dst, T, y);                                                              \
            const T *s[GIP__MORPH_VHGW_CPU];                                                       \
            for (int32_t i = 0; i < k; i++) {                                                      \
                const int64_t sy = gip__border_index(y - p->ay + i, h, p->border);                 \
                s[i] = crow;                                                                       \
                if (sy >= 0) {                                                                     \
                    const int64_t slot = ring_slot(sy, k);                                         \
                    T *r = ring + slot * rl;                                                       \
                    if (held[slot] != sy) {                                                        \
                        line_row_##SFX(j, sy, r, buf, buf + 2 * pw, edge);                         \
                        held[slot] = sy;                                                           \
                    }                                                                              \
                    s[i] = r;                                                                      \
                }                                                                                  \
            }                                                                                      \
            /* (no row of the window evicts another: with the borders morphology takes             \
             * (constant, replicate, reflect, reflect101) a window's source rows are consecutive   \
             * or mirrored into fewer than kh consecutive rows, so equal slots hold equal rows) */ \
            combine_##SFX(d, s, k, rl);                                                            \
        }                                                                                          \
        free(buf);                                                                                 \
        free(held);                                                                                \
    }                                                                                              \
                                                                                                   \
    /* Rect with GIP__MORPH_VHGW_CPU rows or more: blocks of output rows [ya, yz) at a time (the   \
     * buffers stay in cache). A block's source rows [ya - ay, yz - ay + k - 1) get their row OP   \
     * into a block buffer, then the column OP by van Herk / Gil-Werman, a strip of columns at a   \
     * time: the window of output row y is block rows [y - ya, y - ya + k). */                     \
    MORPH_CLONES static void rect_big_##SFX(void *arg, int64_t y0, int64_t y1)                     \
    {                                                                                              \
        PASS_LOCALS(arg);                                                                          \
        const int32_t k = p->kh;                                                                   \
        const int64_t yb = 4 * (int64_t)k > 64 ? 4 * (int64_t)k : 64, mb = yb + k - 1;             \
        const int64_t sw = rl < STRIP ? rl : STRIP;                                                \
        /* the row OPs of a block, the constant row, van Herk's g and h, the line scratch */       \
        T *rows = malloc((size_t)(mb * rl + rl + mb * sw * 2 + pw * 3 + 2 * (int64_t)p->kw * c) *  \
                         sizeof(T));                                                               \
        const T **rp = malloc((size_t)mb * sizeof *rp);                                            \
        if (!got_buffers(j, (void *const[]){rows, rp}, 2))                                         \
            return;                                                                                \
        T *crow = rows + mb * rl, *g = crow + rl, *scratch = g + mb * sw * 2;                      \
        fill_border_##SFX(p, c, crow, w);                                                          \
        for (int64_t ya = y0; ya < y1; ya += yb) {                                                 \
            const int64_t yz = ya + yb < y1 ? ya + yb : y1, m = yz - ya + k - 1;                   \
            for (int64_t q = 0; q < m; q++) {                                                      \
                const int64_t sy = gip__border_index(ya - p->ay + q, h, p->border);                \
                if (sy < 0) {                                                                      \
                    rp[q] = crow;                                                                  \
                    continue;                                                                      \
                }                                                                                  \
                line_row_##SFX(j, sy, rows + q * rl, scratch, scratch + 2 * pw, scratch + 3 * pw); \
                rp[q] = rows + q * rl;                                                             \
            }                                                                                      \
            T *hb = g + m * sw;                                                                    \
            /* van Herk's segments start at source rows that are multiples of k whatever the       \
             * block (and the thread's band) starts at, so that every output takes its OPs in      \
             * the same grouping on any number of threads (it matters for NaN, whose min and       \
             * max depend on the order). */                                                        \
            const int64_t o = ((ya - p->ay) % k + k) % k;                                          \
            for (int64_t x0 = 0; x0 < rl; x0 += sw) {                                              \
                const int64_t n = rl - x0 < sw ? rl - x0 : sw;                                     \
                for (int64_t b = 0, e; b < m; b = e) {                                             \
                    e = b ? b + k : o ? k - o : k;                                                 \
                    e = e < m ? e : m;                                                             \
                    memcpy(g + b * sw, rp[b] + x0, (size_t)n * sizeof(T));                         \
                    for (int64_t q = b + 1; q < e; q++) {                                          \
                        const T *s = rp[q] + x0;                                                   \
                        T *gq = g + q * sw;                                                        \
                        for (int64_t s2 = 0; s2 < n; s2++)                                         \
                            gq[s2] = OP(gq[s2 - sw], s[s2]);                                       \
                    }                                                                              \
                    memcpy(hb + (e - 1) * sw, rp[e - 1] + x0, (size_t)n * sizeof(T));              \
                    for (int64_t q = e - 2; q >= b; q--) {                                         \
                        const T *s = rp[q] + x0;                                                   \
                        T *hq = hb + q * sw;                                                       \
                        for (int64_t s2 = 0; s2 < n; s2++)                                         \
                            hq[s2] = OP(hq[s2 + sw], s[s2]);                                       \
                    }                                                                              \
                }                                                                                  \
                for (int64_t y = ya; y < yz; y++) {                                                \
                    T *d = ROW(j->dst, T, y) + x0;                                                 \
                    const T *hq = hb + (y - ya) * sw, *gq = g + (y - ya + k - 1) * sw;             \
                    for (int64_t s2 = 0; s2 < n; s2++)                                             \
                        d[s2] = OP(hq[s2], gq[s2]);                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        free(rows);                                                                                \
        free(rp);                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* Any element: dst row y = OP over the taps of the padded rows around it. */                  \
    MORPH_CLONES static void taps_##SFX(void *arg, int64_t y0, int64_t y1)                         \
    {                                                                                              \
        PASS_LOCALS(arg);                                                                          \
        /* a ring of kh padded rows: slot (y + dy) mod kh holds row y + dy once padded */          \
        T *ring = malloc((size_t)(pw * p->kh) * sizeof(T));                                        \
        int64_t *held = ring_keys(p->kh);                                                          \
        if (!got_buffers(j, (void *const[]){ring, held}, 2))                                       \
            return;                                                                                \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            T *d = ROW(j->dst, T, y);                                                              \
            for (int32_t t = 0; t < p->ntaps; t++) {                                               \
                const gip__morph_tap tp = p->taps[t];                                              \
                const int64_t sy = y + tp.dy, slot = ring_slot(sy, p->kh);                         \
                T *pr = ring + slot * pw;                                                          \
                if (held[slot] != sy) {                                                            \
                    pad_row_##SFX(j, gip__border_index(sy, h, p->border), pr);                     \
                    held[slot] = sy;                                                               \
                }                                                                                  \
                const T *s = pr + (int64_t)(tp.dx + p->ax) * c;                                    \
                if (!t)                                                                            \
                    memcpy(d, s, (size_t)rl * sizeof(T));                                          \
                else                                                                               \
                    for (int64_t e = 0; e < rl; e++)                                               \
                        d[e] = OP(d[e], s[e]);                                                     \
            }                                                                                      \
        }                                                                                          \
        free(ring);                                                                                \
        free(held);                                                                                \
    }                                                                                              \
                                                                                                   \
    /* Any element as runs: a padded row's OP over each run length is taken once (lengths 2, 4,    \
     * ... by doubling, a run of L as two overlapping powers of two) and kept in a ring of kh      \
     * rows; an output row is the OP of one such row per run. */                                   \
    MORPH_CLONES static void runs_##SFX(void *arg, int64_t y0, int64_t y1)                         \
    {                                                                                              \
        PASS_LOCALS(arg);                                                                          \
        const morph_runs *r = j->runs;                                                             \
        const int64_t slot_len = pw * (1 + r->nlen);                                               \
        /* ring slot: the padded row, then one row per distinct length; then the powers */         \
        T *ring = malloc((size_t)(slot_len * p->kh + pw * r->levels) * sizeof(T));                 \
        int64_t *held = ring_keys(p->kh);                                                          \
        const T **sr = malloc((size_t)(r->nruns + p->kh) * sizeof *sr);                            \
        if (!got_buffers(j, (void *const[]){ring, held, sr}, 3))                                   \
            return;                                                                                \
        T *pow2 = ring + slot_len * p->kh; /* level l: the OP over 2^l, l >= 1 */                  \
        const T **srow = sr + r->nruns;    /* a slot's source row, where it is read directly */    \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            T *d = ROW(j->dst, T, y);                                                              \
            /* the runs' rows first (keyed by the logical row, kh consecutive ones: no run's row   \
             * evicts another's), then their OP, two rows a pass */                                \
            for (int32_t i = 0; i < r->nruns; i++) {                                               \
                const morph_run ru = r->run[i];                                                    \
                const int64_t sy = y + ru.dy, slot = ring_slot(sy, p->kh);                         \
                T *pr = ring + slot * slot_len;                                                    \
                if (held[slot] != sy) {                                                            \
                    const int64_t py = gip__border_index(sy, h, p->border);                        \
                    const T *s = py < 0 ? NULL : ROW(j->src, const T, py);                         \
                    /* pow2 level l holds positions e < pw - (2^l - 1) c */                        \
                    const T *lo = pr;                                                              \
                    int32_t l0 = 1;                                                                \
                    srow[slot] = NULL;                                                             \
                    if (s && !r->pad_needed) {                                                     \
                        /* level 1 straight from the source row (only the kw - 1 pixels whose      \
                         * pair leaves the row through the border map); the runs of one pixel      \
                         * read the source row itself */                                           \
                        T *o = pow2;                                                               \
                        const int64_t ax = p->ax, wp = w + p->kw - 1;                              \
                        for (int64_t e = 0; e < (w - 1) * c; e++)                                  \
                            o[ax * c + e] = OP(s[e], s[e + c]);                                    \
                        for (int64_t px = 0; px < wp - 1; px++) {                                  \
                            if (px == ax && w > 1)                                                 \
                                px = ax + w - 1;                                                   \
                            if (px >= wp - 1)                                                      \
                                break;                                                             \
                            for (int ch = 0; ch < c; ch++) {                                       \
                                const int32_t a0 = j->xmap[px], a1 = j->xmap[px + 1];              \
                                const T v0 =                                                       \
                                    a0 < 0 ? (T)p->border_value[ch] : s[(int64_t)a0 * c + ch];     \
                                const T v1 =                                                       \
                                    a1 < 0 ? (T)p->border_value[ch] : s[(int64_t)a1 * c + ch];     \
                                o[px * c + ch] = OP(v0, v1);                                       \
                            }                                                                      \
                        }                                                                          \
                        lo = o;                                                                    \
                        l0 = 2;                                                                    \
                        srow[slot] = s;                                                            \
                    } else {                                                                       \
                        pad_row_##SFX(j, py, pr);                                                  \
                    }                                                                              \
                    for (int32_t l = l0; l < r->levels; l++) {                                     \
                        T *o = pow2 + (int64_t)(l - 1) * pw;                                       \
                        const int64_t half = ((int64_t)1 << (l - 1)) * c;                          \
                        const int64_t n = pw - (((int64_t)1 << l) - 1) * c;                        \
                        for (int64_t e = 0; e < n; e++)                                            \
                            o[e] = OP(lo[e], lo[e + half]);                                        \
                        lo = o;                                                                    \
                    }                                                                              \
                    for (int32_t li = 0; li < r->nlen; li++) {                                     \
                        const int32_t len = r->len[li];                                            \
                        if (len == 1)                                                              \
                            continue; /* the padded row itself */                                  \
                        int32_t l = 0;                                                             \
                        while ((2 << l) <= len)                                                    \
                            l++;                                                                   \
                        const T *pl = l ? pow2 + (int64_t)(l - 1) * pw : pr;                       \
                        const int64_t off = (int64_t)(len - (1 << l)) * c;                         \
                        const int64_t n = pw - (int64_t)(len - 1) * c;                             \
                        T *o = pr + (int64_t)(1 + li) * pw;                                        \
                        for (int64_t e = 0; e < n; e++)                                            \
                            o[e] = OP(pl[e], pl[e + off]);                                         \
                    }                                                                              \
                    held[slot] = sy;                                                               \
                }                                                                                  \
                if (r->len[ru.li] != 1)                                                            \
                    sr[i] = pr + (int64_t)(1 + ru.li) * pw + (int64_t)ru.x0 * c;                   \
                else /* (x0 is the anchor's column where the source row stands in) */              \
                    sr[i] = srow[slot] ? srow[slot] : pr + (int64_t)ru.x0 * c;                     \
            }                                                                                      \
            combine_##SFX(d, sr, r->nruns, rl);                                                    \
        }                                                                                          \
        free(sr);                                                                                  \
        free(ring);                                                                                \
        free(held);                                                                                \
    }

#define MIN_OP(a, b) ((b) < (a) ? (b) : (a))
#define MAX_OP(a, b) ((a) < (b) ? (b) : (a))

MORPH_IMPL(u8_min, uint8_t, MIN_OP)
MORPH_IMPL(u8_max, uint8_t, MAX_OP)
MORPH_IMPL(u16_min, uint16_t, MIN_OP)
MORPH_IMPL(u16_max, uint16_t, MAX_OP)
MORPH_IMPL(s16_min, int16_t, MIN_OP)
MORPH_IMPL(s16_max, int16_t, MAX_OP)
MORPH_IMPL(f32_min, float, MIN_OP)
MORPH_IMPL(f32_max, float, MAX_OP)

typedef struct pass_fns {
    gip__range_fn rect_big, taps, runs, rect_small;
} pass_fns;

static pass_fns fns_of(gip_dtype dt, bool dilate)
{
#define FNS(SFX)                                                                                   \
    {                                                                                              \
        rect_big_##SFX, taps_##SFX, runs_##SFX, rect_small_##SFX                                   \
    }
    static const pass_fns table[4][2] = {
        {FNS(u8_min), FNS(u8_max)},
        {FNS(u16_min), FNS(u16_max)},
        {FNS(s16_min), FNS(s16_max)},
        {FNS(f32_min), FNS(f32_max)},
    };
#undef FNS
    const int i = dt == GIP_U8 ? 0 : dt == GIP_U16 ? 1 : dt == GIP_S16 ? 2 : 3;
    return table[i][dilate ? 1 : 0];
}

/* The element's runs (its taps are in raster order). Returns non-zero where tap by tap is as
 * good (no run longer than one tap) or the runs' rows would not fit in a modest ring. */
static int runs_of(const gip__morph_pass *p, morph_runs *r)
{
    if (p->ntaps < 2)
        return 1;
    r->run = malloc((size_t)p->ntaps * sizeof *r->run);
    r->len = malloc((size_t)p->kw * sizeof *r->len);
    if (!r->run || !r->len)
        return 1;
    int32_t longest = 1;
    for (int32_t t = 0; t < p->ntaps;) {
        int32_t e = t + 1;
        while (e < p->ntaps && p->taps[e].dy == p->taps[t].dy &&
               p->taps[e].dx == p->taps[e - 1].dx + 1)
            e++;
        const int32_t len = e - t;
        int32_t li = 0;
        while (li < r->nlen && r->len[li] != len)
            li++;
        if (li == r->nlen)
            r->len[r->nlen++] = len;
        longest = len > longest ? len : longest;
        r->run[r->nruns++] = (morph_run){p->taps[t].dy, p->taps[t].dx + p->ax, li};
        r->pad_needed |= len == 1 && p->taps[t].dx != 0;
        t = e;
    }
    while ((1 << r->levels) <= longest)
        r->levels++;
    /* worth it when runs replace taps; the ring holds kh (1 + nlen) padded rows */
    return r->nruns == p->ntaps || r->nlen > 8;
}

gip_status gip__morph_pass_cpu(gip_context *ctx, const gip__morph_pass *p, const gip_image *src,
                               gip_image *dst)
{
    pass_job j = {.p = p, .src = src, .dst = dst};
    atomic_init(&j.failed, 0);
    int32_t *xmap = gip__border_map(src->width + p->kw - 1, p->ax, src->width, p->border);
    if (!xmap)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "morphology: out of memory");
    j.xmap = xmap;
    const pass_fns f = fns_of(src->dtype, p->dilate);
    gip_status st = GIP_OK;
    if (p->rect && p->kh < GIP__MORPH_VHGW_CPU) {
        gip__parallel_for(ctx, src->height, 8, f.rect_small, &j);
    } else if (p->rect) {
        /* blocks of at least 4 kh rows, so that a block's extra k - 1 source rows cost little */
        gip__parallel_for(ctx, src->height, 4 * (int64_t)p->kh > 64 ? 4 * (int64_t)p->kh : 64,
                          f.rect_big, &j);
    } else {
        morph_runs runs = {0};
        if (!runs_of(p, &runs)) {
            j.runs = &runs;
            gip__parallel_for(ctx, src->height, 4, f.runs, &j);
        } else {
            gip__parallel_for(ctx, src->height, 4, f.taps, &j);
        }
        free(runs.run);
        free(runs.len);
    }
    free(xmap);
    if (!st && atomic_load(&j.failed))
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "morphology: out of memory for row buffers");
    return st;
}

/* ---- element-wise steps ------------------------------------------------------------------ */

typedef struct ew_job {
    gip__morph_ew op;
    const gip_image *a, *b;
    gip_image *dst;
} ew_job;

#define SUB_LOOP(T, SAT)                                                                           \
    for (int64_t e = 0; e < n; e++)                                                                \
        ((T *)d)[e] = SAT((int32_t)((const T *)a)[e] - (int32_t)((const T *)b)[e]);

static void ew_rows(void *arg, int64_t y0, int64_t y1)
{
    const ew_job *j = arg;
    const int64_t n = j->a->width * j->a->channels;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *a = (const uint8_t *)j->a->data + y * j->a->stride;
        const uint8_t *b = j->b ? (const uint8_t *)j->b->data + y * j->b->stride : NULL;
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        switch (j->op) {
        case GIP__MORPH_SUB:
            switch (j->a->dtype) {
            case GIP_U8:
                SUB_LOOP(uint8_t, gip__sat_u8_i32);
                break;
            case GIP_U16:
                SUB_LOOP(uint16_t, gip__sat_u16_i32);
                break;
            case GIP_S16:
                SUB_LOOP(int16_t, gip__sat_s16_i32);
                break;
            default:
                for (int64_t e = 0; e < n; e++)
                    ((float *)d)[e] = ((const float *)a)[e] - ((const float *)b)[e];
            }
            break;
        case GIP__MORPH_AND:
            for (int64_t e = 0; e < n; e++)
                d[e] = a[e] & b[e];
            break;
        case GIP__MORPH_NOT:
            for (int64_t e = 0; e < n; e++)
                d[e] = (uint8_t)(255 - a[e]);
            break;
        case GIP__MORPH_COPY:
            memmove(d, a, (size_t)n * gip_dtype_size(j->a->dtype));
            break;
        }
    }
}

gip_status gip__morph_ew_cpu(gip_context *ctx, gip__morph_ew op, const gip_image *a,
                             const gip_image *b, gip_image *dst)
{
    ew_job j = {op, a, b, dst};
    gip__parallel_for(ctx, a->height, 16, ew_rows, &j);
    return GIP_OK;
}
