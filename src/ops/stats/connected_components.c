/* SPDX-License-Identifier: MIT */
/* connectedComponents (gip_connected_components, gip_connected_components_stats) on the CPU: a
 * two-pass labelling with a union-find whose roots are the smallest provisional label of their
 * set. Provisional labels are made in the order OpenCV's scan makes them (pixels in row order for
 * 4-connectivity, 2x2 blocks two rows at a time for 8-connectivity), so numbering the roots in
 * order gives OpenCV's labels, not only the same partition. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/stats/stats.h"

static inline int32_t uf_find(int32_t *p, int32_t i)
{
    while (p[i] < i)
        i = p[i];
    return i;
}

/* Joins the sets of i and j; the smaller root stays the root. Returns it. */
static inline int32_t uf_union(int32_t *p, int32_t i, int32_t j)
{
    int32_t a = uf_find(p, i), b = uf_find(p, j);
    if (a < b) {
        p[b] = a;
        return a;
    }
    p[a] = b;
    return b;
}

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Whether 16 bytes at p are all zero. */
static inline bool zero16(const uint8_t *p)
{
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    return _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) == 0xFFFF;
#else
    uint64_t a, b;
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
    return !(a | b);
#endif
}

typedef struct cc_scan {
    const gip_image *src;
    int32_t *lab; /* provisional labels, w per row, `ls` elements apart */
    int64_t ls;
    int32_t *p;   /* union-find parents */
    int32_t next; /* the next provisional label */
} cc_scan;

#define SRC(s, x, y) (((const uint8_t *)(s)->src->data + (y) * (s)->src->stride)[x])
#define LAB(s, x, y) ((s)->lab[(y) * (s)->ls + (x)])

static void scan4(cc_scan *s)
{
    const int64_t w = s->src->width, h = s->src->height;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            const uint8_t *r = (const uint8_t *)s->src->data + y * s->src->stride;
            while (x + 16 <= w && zero16(r + x)) { /* 16 background pixels at once */
                memset(&LAB(s, x, y), 0, 16 * sizeof(int32_t));
                x += 16;
            }
            if (x >= w)
                break;
            if (!SRC(s, x, y)) {
                LAB(s, x, y) = 0;
                continue;
            }
            int32_t up = y ? LAB(s, x, y - 1) : 0, left = x ? LAB(s, x - 1, y) : 0;
            if (up && left) {
                LAB(s, x, y) = up == left ? up : uf_union(s->p, up, left);
            } else if (up | left) {
                LAB(s, x, y) = up | left;
            } else {
                LAB(s, x, y) = s->next;
                s->p[s->next] = s->next;
                s->next++;
            }
        }
}

/* 8-connectivity by 2x2 blocks, as OpenCV's block-based scans: the foreground pixels of a block
 * are 8-connected, so a block takes one label, joined with the blocks left, upper-left, above
 * and upper-right of it where a foreground pixel of each touches one of its own. Labels are made
 * in block order, OpenCV's. blab: one label per block, bw per block row. */
static void scan8_blocks(cc_scan *s, int32_t *blab, int64_t bw)
{
    const gip_image *src = s->src;
    const int64_t w = src->width, h = src->height;
    for (int64_t y = 0, by = 0; y < h; y += 2, by++) {
        const uint8_t *r0 = (const uint8_t *)src->data + y * src->stride;
        const uint8_t *r1 = y + 1 < h ? r0 + src->stride : NULL;
        const uint8_t *u = y ? r0 - src->stride : NULL; /* the row above the block row */
        int32_t *bl = blab + by * bw, *bu = by ? bl - bw : NULL;
        for (int64_t x = 0, bx = 0; x < w; x += 2, bx++) {
            /* 8 blocks of background at once (text scans are mostly background) */
            while (x + 16 <= w && zero16(r0 + x) && (!r1 || zero16(r1 + x))) {
                memset(bl + bx, 0, 8 * sizeof *bl);
                x += 16, bx += 8;
            }
            if (x >= w)
                break;
            const bool right = x + 1 < w;
            const bool a = r0[x] != 0, b = right && r0[x + 1] != 0;
            const bool c = r1 && r1[x] != 0, d = r1 && right && r1[x + 1] != 0;
            if (!(a | b | c | d)) {
                bl[bx] = 0;
                continue;
            }
            int32_t l = 0;
            /* left block: its right column (x - 1) against a or c */
            if (bx && (a | c) && (r0[x - 1] || (r1 && r1[x - 1])))
                l = bl[bx - 1];
            if (u) {
                /* upper-left block through (x - 1, y - 1) and a */
                if (a && bx && u[x - 1] && bu[bx - 1])
                    l = l ? uf_union(s->p, l, bu[bx - 1]) : bu[bx - 1];
                /* upper block through (x, y - 1) or (x + 1, y - 1) and a or b */
                if ((a | b) && (u[x] || (right && u[x + 1])) && bu[bx])
                    l = l ? uf_union(s->p, l, bu[bx]) : bu[bx];
                /* upper-right block through (x + 2, y - 1) and b */
                if (b && x + 2 < w && u[x + 2] && bu[bx + 1])
                    l = l ? uf_union(s->p, l, bu[bx + 1]) : bu[bx + 1];
            }
            if (!l) {
                l = s->next++;
                s->p[l] = l;
            }
            bl[bx] = l;
        }
    }
}

/* The final labels: each pixel's provisional label (a block's, on its foreground pixels, for
 * 8-connectivity) through the numbering of the roots. */
typedef struct relabel_job {
    const gip_image *src;
    gip_array *labels;
    const cc_scan *s;
    const int32_t *blab;
    int64_t bw, os;
} relabel_job;

static void relabel_rows(void *arg, int64_t y0, int64_t y1)
{
    const relabel_job *j = arg;
    const int32_t *p = j->s->p;
    const int64_t w = j->src->width;
    const bool s32 = j->labels->depth == GIP_DEPTH_S32;
    for (int64_t y = y0; y < y1; y++) {
        char *o = (char *)j->labels->data + y * j->os;
        if (j->blab) { /* blab holds the blocks' final labels (block_final) */
            const uint8_t *r = (const uint8_t *)j->src->data + y * j->src->stride;
            const int32_t *bl = j->blab + (y / 2) * j->bw;
            int64_t x = 0;
            while (x < w) {
                if (x + 16 <= w && zero16(r + x)) {
                    memset(o + x * (s32 ? 4 : 2), 0, s32 ? 64 : 32);
                    x += 16;
                    continue;
                }
                const int64_t e = x + 16 < w ? x + 16 : w;
                if (s32)
                    for (; x < e; x++) {
                        int32_t v = r[x] ? bl[x >> 1] : 0;
                        memcpy(o + 4 * x, &v, 4);
                    }
                else
                    for (; x < e; x++)
                        ((uint16_t *)o)[x] = r[x] ? (uint16_t)bl[x >> 1] : 0;
            }
        } else {
            const int32_t *l = j->s->lab + y * j->s->ls;
            if (s32)
                for (int64_t x = 0; x < w; x++) {
                    int32_t v = p[l[x]];
                    memcpy(o + 4 * x, &v, 4);
                }
            else
                for (int64_t x = 0; x < w; x++)
                    ((uint16_t *)o)[x] = (uint16_t)p[l[x]];
        }
    }
}

gip_status gip_connected_components(gip_context *ctx, const gip_image *src, int32_t connectivity,
                                    gip_array *labels, int32_t *n_labels)
{
    static const char op[] = "gip_connected_components";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if ((st = gip__image_check_ctx(ctx, src, op, "src")))
        return st;
    if (!labels || !n_labels)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !labels ? "labels" : "n_labels");
    if (connectivity != 4 && connectivity != 8)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: connectivity is %d; 4 or 8 is accepted", op, (int)connectivity);
    if ((st = gip__check_dtype(ctx, src, GIP__DT(GIP_U8), op, "src")))
        return st;
    if (src->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: src has %d channels; one is accepted", op,
                          (int)src->channels);
    if ((st = gip__array_check(ctx, labels, src->width, src->height, 1, op, "labels")))
        return st;
    if (labels->depth != GIP_DEPTH_S32 && labels->depth != GIP_DEPTH_U16)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: labels are %s; s32 (4) or u16 (2) is accepted", op,
                          gip__depth_name(labels->depth));
    const int64_t w = src->width, h = src->height;
    /* provisional labels: at most one per run of a row (4) or per 2x2 block (8), plus 0 */
    const int64_t cap = connectivity == 4 ? (w + 1) / 2 * h + 1 : (w + 1) / 2 * ((h + 1) / 2) + 1;
    if (cap > INT32_MAX)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: src is %lldx%lld; too large to label", op,
                          (long long)w, (long long)h);
    if ((labels->memory == GIP_MEM_CUDA) != (src->memory == GIP_MEM_CUDA))
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src and labels must both be in host memory or both in the "
                          "context's device memory",
                          op);
    if (src->memory == GIP_MEM_CUDA) {
#ifdef GIP_HAVE_CUDA
        int64_t es = (int64_t)gip__depth_size(labels->depth);
        if ((uintptr_t)labels->data % (uintptr_t)es || gip__array_stride(labels) % es)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: device labels need data and stride aligned to their element "
                              "size",
                              op);
        if ((st = gip__cuda_enter(ctx)))
            return st;
        return gip__connected_components_cuda(ctx, src, connectivity, labels, n_labels);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    cc_scan s = {.src = src, .next = 1};
    const int64_t ostride = gip__array_stride(labels);
    const bool direct =
        labels->depth == GIP_DEPTH_S32 && ostride % 4 == 0 && (uintptr_t)labels->data % 4 == 0;
    const int64_t bw = (w + 1) / 2;
    int32_t *tmp = NULL, *blab = NULL;
    if (connectivity == 8) {
        blab = malloc((size_t)(bw * ((h + 1) / 2)) * sizeof *blab + 4);
    } else if (direct) {
        s.lab = labels->data;
        s.ls = ostride / 4;
    } else {
        tmp = malloc((size_t)(w * h) * sizeof *tmp + 4);
        s.lab = tmp;
        s.ls = w;
    }
    s.p = malloc((size_t)cap * sizeof *s.p);
    if (!s.p || (connectivity == 8 ? !blab : !direct && !tmp)) {
        free(s.p);
        free(tmp);
        free(blab);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    }
    s.p[0] = 0;
    if (connectivity == 8)
        scan8_blocks(&s, blab, bw);
    else
        scan4(&s);
    /* number the roots in order: p[i] < i already holds its final number */
    int32_t n = 1;
    for (int32_t i = 1; i < s.next; i++)
        s.p[i] = s.p[i] < i ? s.p[s.p[i]] : n++;
    if (labels->depth == GIP_DEPTH_U16 && n > 65536) {
        free(s.p);
        free(tmp);
        free(blab);
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "%s: %d labels do not fit u16 labels; ask for s32 labels", op, (int)n);
    }
    if (blab) /* each block's final label, once */
        for (int64_t i = 0; i < bw * ((h + 1) / 2); i++)
            blab[i] = s.p[blab[i]];
    relabel_job rj = {src, labels, &s, blab, bw, ostride};
    gip__parallel_for(ctx, h, 32, relabel_rows, &rj);
    free(s.p);
    free(tmp);
    free(blab);
    *n_labels = n;
    return GIP_OK;
}

gip_status gip_connected_components_stats(gip_context *ctx, const gip_array *labels,
                                          int32_t n_labels, int32_t *stats, double *centroids)
{
    static const char op[] = "gip_connected_components_stats";
    if (!labels)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: labels is NULL", op);
    if (n_labels < 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: n_labels is %d; at least 1", op,
                          (int)n_labels);
    if (labels->depth != GIP_DEPTH_S32 && labels->depth != GIP_DEPTH_U16)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: labels are %s; s32 (4) or u16 (2) is accepted", op,
                          gip__depth_name(labels->depth));
    gip_status st = gip__array_check(ctx, labels, labels->width, labels->height, 1, op, "labels");
    if (st)
        return st;
    if (labels->memory != GIP_MEM_HOST)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: labels are in device memory; the statistics are computed from host "
                          "labels (download them first)",
                          op);
    typedef struct acc {
        int64_t l, t, r, b, area, sx, sy;
    } acc;
    acc *a = malloc((size_t)n_labels * sizeof *a);
    if (!a)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    for (int32_t i = 0; i < n_labels; i++)
        a[i] = (acc){INT64_MAX, INT64_MAX, -1, -1, 0, 0, 0};
    const int64_t w = labels->width, h = labels->height, ls = gip__array_stride(labels);
    const bool s32 = labels->depth == GIP_DEPTH_S32;
    for (int64_t y = 0; y < h; y++) {
        const char *row = (const char *)labels->data + y * ls;
        for (int64_t x = 0; x < w; x++) {
            int64_t l = s32 ? ((const int32_t *)row)[x] : ((const uint16_t *)row)[x];
            if (l < 0 || l >= n_labels) {
                free(a);
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: label %lld at (%lld, %lld) is not below n_labels %d", op,
                                  (long long)l, (long long)x, (long long)y, (int)n_labels);
            }
            acc *c = &a[l];
            c->l = x < c->l ? x : c->l;
            c->r = x > c->r ? x : c->r;
            c->t = y < c->t ? y : c->t;
            c->b = y;
            c->area++;
            c->sx += x;
            c->sy += y;
        }
    }
    for (int32_t i = 0; i < n_labels; i++) {
        const acc *c = &a[i];
        if (stats) {
            int32_t *o = stats + 5 * (int64_t)i;
            if (c->area) {
                o[GIP_CC_STAT_LEFT] = (int32_t)c->l;
                o[GIP_CC_STAT_TOP] = (int32_t)c->t;
                o[GIP_CC_STAT_WIDTH] = (int32_t)(c->r - c->l + 1);
                o[GIP_CC_STAT_HEIGHT] = (int32_t)(c->b - c->t + 1);
                o[GIP_CC_STAT_AREA] = (int32_t)c->area;
            } else { /* what OpenCV reports for a label without pixels */
                o[0] = -1, o[1] = INT32_MAX, o[2] = 0, o[3] = 0, o[4] = 0;
            }
        }
        if (centroids) {
            centroids[2 * i] = c->area ? (double)c->sx / (double)c->area : NAN;
            centroids[2 * i + 1] = c->area ? (double)c->sy / (double)c->area : NAN;
        }
    }
    free(a);
    return GIP_OK;
}
