/* SPDX-License-Identifier: MIT */
/* connectedComponents (gip_connected_components, gip_connected_components_stats) on the CPU: a
 * two-pass labelling with a union-find whose roots are the smallest provisional label of their
 * set. Provisional labels are made in the order of OpenCV's scan (runs of pixels in row order
 * for 4-connectivity, 2x2 blocks two rows at a time for 8-connectivity), so that numbering the
 * roots in order gives OpenCV's labels, not only the same partition. Both scans read the image
 * as one bit a pixel. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/stats/stats.h"
#include "tuning.h"

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

typedef struct cc_scan {
    const gip_image *src;
    int32_t *p;   /* union-find parents */
    int32_t next; /* the next provisional label */
} cc_scan;

/* ---- 8-connectivity ----------------------------------------------------------------------
 * By 2x2 blocks, as OpenCV's block-based scans: the foreground pixels of a block are 8-connected,
 * so a block takes one label, joined with the blocks left, upper-left, above and upper-right of
 * it where a foreground pixel of each touches one of its own. Labels are made in block order, so
 * each component's smallest label is its first block's in that order, which is OpenCV's
 * numbering. The scan reads one bit a pixel (rows of 64-bit words, the pixels past the width
 * zero) and visits only the blocks that hold foreground; a background block's label is never
 * read, so it is never written. */

/* The words of a row's bit mask: the width's, and one of zeros past it (the scan reads x + 2). */
static inline int64_t cc_words(int64_t w)
{
    return (w + 63) / 64 + 1;
}

typedef struct cc_masks {
    const gip_image *src;
    uint64_t *bits; /* h rows of cc_words(w) words, bit x of a row: pixel x is not zero */
    int64_t nw;
    int simd; /* 2: AVX-512BW, 1: SSE2, 0: bytes */
} cc_masks;

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CC_X86 1
__attribute__((target("avx512f,avx512bw"))) static void mask_row_avx512(const uint8_t *r, int64_t w,
                                                                        uint64_t *o)
{
    int64_t x = 0, k = 0;
    for (; x + 64 <= w; x += 64, k++) {
        const __m512i v = _mm512_loadu_si512(r + x);
        o[k] = _mm512_test_epi8_mask(v, v);
    }
    if (x < w) {
        const __m512i v = _mm512_maskz_loadu_epi8(~0ULL >> (64 - (w - x)), r + x);
        o[k] = _mm512_test_epi8_mask(v, v);
    }
}
#endif

static void mask_rows(void *arg, int64_t y0, int64_t y1)
{
    const cc_masks *m = arg;
    const int64_t w = m->src->width;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *r = (const uint8_t *)m->src->data + y * m->src->stride;
        uint64_t *o = m->bits + y * m->nw;
        memset(o, 0, (size_t)m->nw * sizeof *o);
#ifdef CC_X86
        if (m->simd == 2) {
            mask_row_avx512(r, w, o);
            continue;
        }
#endif
        int64_t x = 0;
#if defined(__SSE2__)
        if (m->simd)
            for (; x + 16 <= w; x += 16) {
                const __m128i v = _mm_loadu_si128((const __m128i *)(r + x));
                const unsigned z =
                    (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
                o[x >> 6] |= (uint64_t)(~z & 0xFFFFu) << (x & 63);
            }
#endif
        for (; x < w; x++)
            o[x >> 6] |= (uint64_t)(r[x] != 0) << (x & 63);
    }
}

static inline int bit(const uint64_t *m, int64_t x)
{
    return (int)(m[x >> 6] >> (x & 63)) & 1;
}

/* Labels after each block row's last: the vector relabelling reads 16 blocks at a time. */
#define CC_BLOCK_PAD 16

/* The joins of the block at column x (word k of the row masks; a and b its top pixels) with the
 * block row above (labels bu, the pixel row above mu), as the scan makes them: upper-left through
 * (x - 1, y - 1) and a, above through (x, y - 1) or (x + 1, y - 1) and a or b, upper-right
 * through (x + 2, y - 1) and b. l: the block's label so far (0: none). Returns its label. */
static inline int32_t join_above(int32_t *p, int32_t l, const uint64_t *mu, const int32_t *bu,
                                 int64_t x, int64_t k, int a, int b)
{
    const int64_t bx = x >> 1;
    if (a && x && bit(mu, x - 1))
        l = l ? uf_union(p, l, bu[bx - 1]) : bu[bx - 1];
    if ((a | b) && ((mu[k] >> (x & 63)) & 3))
        l = l ? uf_union(p, l, bu[bx]) : bu[bx];
    if (b && bit(mu, x + 2))
        l = l ? uf_union(p, l, bu[bx + 1]) : bu[bx + 1];
    return l;
}

/* The foreground blocks of a block row: calls BODY with x (the block's first column), k (its
 * word), a, b (its top pixels) and c (its bottom-left pixel). */
#define CC_BLOCKS(m0, m1, words, BODY)                                                             \
    for (int64_t k = 0; k < (words); k++) {                                                        \
        const uint64_t px_ = (m0)[k] | (m1)[k];                                                    \
        uint64_t blocks_ = (px_ | px_ >> 1) & 0x5555555555555555ULL;                               \
        while (blocks_) {                                                                          \
            const int64_t x = 64 * k + __builtin_ctzll(blocks_);                                   \
            blocks_ &= blocks_ - 1;                                                                \
            const uint64_t w0_ = (m0)[k] >> (x & 63), w1_ = (m1)[k] >> (x & 63);                   \
            const int a = (int)(w0_ & 1), b = (int)(w0_ >> 1) & 1, c = (int)(w1_ & 1);             \
            BODY                                                                                   \
        }                                                                                          \
    }

/* The block scan of 8-connectivity over strips of block rows, each strip on its own (its first
 * row as if the image's first) with labels from its own range: strip t's labels start at 1 + its
 * first block's index, so that labels still grow in block order across strips. The strips are
 * then joined at their borders (join_above), and each set's root is still its smallest label:
 * its first block's in block order, OpenCV's numbering, whatever the strips. */
typedef struct scan8_job {
    const gip_image *src;
    int32_t *p;
    const uint64_t *bits, *zero;
    int64_t nw, bp, rows; /* mask row words, label row pitch, block rows a strip */
    int32_t *blab;
    int32_t *next; /* per strip: the label after its last */
} scan8_job;

static void scan8_strips(void *arg, int64_t t0, int64_t t1)
{
    const scan8_job *j = arg;
    const int64_t h = j->src->height, bh = (h + 1) / 2, bw = (j->src->width + 1) / 2;
    const int64_t words = j->nw - 1;
    int32_t *p = j->p;
    for (int64_t t = t0; t < t1; t++) {
        const int64_t by0 = t * j->rows, by1 = by0 + j->rows < bh ? by0 + j->rows : bh;
        int32_t next = (int32_t)(1 + by0 * bw);
        for (int64_t by = by0; by < by1; by++) {
            const int64_t y = 2 * by;
            const uint64_t *m0 = j->bits + y * j->nw, *m1 = y + 1 < h ? m0 + j->nw : j->zero;
            const uint64_t *mu = by > by0 ? m0 - j->nw : j->zero; /* the row above */
            int32_t *bl = j->blab + by * j->bp;
            const int32_t *bu = by > by0 ? bl - j->bp : NULL;
            /* the row's padding, which the vector relabelling reads (and never uses) */
            memset(bl + bw, 0, CC_BLOCK_PAD * sizeof *bl);
            CC_BLOCKS(m0, m1, words, {
                int32_t l = 0;
                /* left block: its right column (x - 1) against a or c */
                if (x && (a | c) && (bit(m0, x - 1) | bit(m1, x - 1)))
                    l = bl[(x >> 1) - 1];
                if (bu)
                    l = join_above(p, l, mu, bu, x, k, a, b);
                if (!l) {
                    l = next++;
                    p[l] = l;
                }
                bl[x >> 1] = l;
            })
        }
        j->next[t] = next;
    }
}

/* Scans, joins the strips, numbers the roots in order (p[i] then holds label i's final number);
 * returns the number of labels, background included, or -1 where memory ran out. */
static int32_t scan8_label(gip_context *ctx, const gip_image *src, int32_t *p, const uint64_t *bits,
                           int64_t nw, const uint64_t *zero, int32_t *blab, int64_t bp)
{
    const int64_t h = src->height, bh = (h + 1) / 2, bw = (src->width + 1) / 2;
    const int64_t rows = 64, strips = (bh + rows - 1) / rows;
    int32_t *next = malloc((size_t)(strips ? strips : 1) * sizeof *next);
    if (!next)
        return -1;
    scan8_job j = {src, p, bits, zero, nw, bp, rows, blab, next};
    gip__parallel_for(ctx, strips, 1, scan8_strips, &j);
    const int64_t words = nw - 1;
    for (int64_t t = 1; t < strips; t++) {
        const int64_t by = t * rows, y = 2 * by;
        const uint64_t *m0 = bits + y * nw, *m1 = y + 1 < h ? m0 + nw : zero, *mu = m0 - nw;
        int32_t *bl = blab + by * bp;
        const int32_t *bu = bl - bp;
        CC_BLOCKS(m0, m1, words, {
            (void)c;
            join_above(p, bl[x >> 1], mu, bu, x, k, a, b);
        })
    }
    int32_t n = 1;
    for (int64_t t = 0; t < strips; t++)
        for (int32_t i = (int32_t)(1 + t * rows * bw); i < next[t]; i++)
            p[i] = p[i] < i ? p[p[i]] : n++;
    free(next);
    return n;
}

/* The final labels of 8-connectivity, a block row at a time: its foreground blocks' labels
 * through the numbering of the roots (p), then each of its pixel rows, the block's label on
 * foreground pixels. Destinations of GIP__STREAM_BYTES or more go out through streaming stores
 * where the vector loop can align them. */
typedef struct relabel8_job {
    gip_array *labels;
    const uint64_t *bits, *zero;
    int64_t nw;
    int32_t *blab;
    const int32_t *p;
    int64_t bp, os; /* block row pitch (labels), label row stride (bytes) */
    int simd;
    bool stream;
} relabel8_job;

#ifdef CC_X86
/* 16 pixels a step from x: each pixel's block label (pixel x + i in block (x + i) / 2) where it
 * is foreground, else 0, stored as s32 or u16 (streamed where whole and aligned). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
relabel8_row_avx512(const uint64_t *m, const int32_t *bl, char *o, int64_t w, bool s32, bool stream)
{
    const __m512i dup0 = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
    const __m512i dup1 = _mm512_set_epi32(8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0);
    const int64_t es = s32 ? 4 : 2;
    /* pixels of a short first step after which the steps' stores start on 16 * es bytes (0:
     * none) */
    int64_t first = 0;
    if (stream && (uintptr_t)o % (uintptr_t)es == 0) {
        first = (int64_t)((-(uintptr_t)o & (uintptr_t)(16 * es - 1)) / (uintptr_t)es);
        first = first < w ? first : w;
    } else {
        stream = false;
    }
    for (int64_t x = 0; x < w;) {
        const int64_t n = first ? first : (w - x < 16 ? w - x : 16);
        const __mmask16 valid = n == 16 ? 0xFFFF : (__mmask16)((1u << n) - 1);
        const int64_t sh = x & 63;
        uint64_t word = m[x >> 6] >> sh;
        if (sh > 48)
            word |= m[(x >> 6) + 1] << (64 - sh);
        const __mmask16 fg = (__mmask16)word & valid;
        __m512i v = _mm512_setzero_si512();
        if (fg)
            v = _mm512_maskz_permutexvar_epi32(fg, x & 1 ? dup1 : dup0,
                                               _mm512_loadu_si512(bl + (x >> 1)));
        if (s32) {
            if (stream && n == 16 && !first)
                _mm512_stream_si512((void *)(o + 4 * x), v);
            else
                _mm512_mask_storeu_epi32(o + 4 * x, valid, v);
        } else {
            const __m256i v16 = _mm512_cvtepi32_epi16(v);
            if (stream && n == 16 && !first)
                _mm256_stream_si256((__m256i *)(void *)(o + 2 * x), v16);
            else
                _mm256_mask_storeu_epi16(o + 2 * x, valid, v16);
        }
        x += n;
        first = 0;
    }
}
#endif

static void relabel8_rows(void *arg, int64_t b0, int64_t b1)
{
    const relabel8_job *j = arg;
    const int64_t w = j->labels->width, h = j->labels->height, words = j->nw - 1;
    const bool s32 = j->labels->depth == GIP_DEPTH_S32;
    for (int64_t by = b0; by < b1; by++) {
        const int64_t y = 2 * by;
        const uint64_t *m0 = j->bits + y * j->nw, *m1 = y + 1 < h ? m0 + j->nw : j->zero;
        int32_t *bl = j->blab + by * j->bp;
        for (int64_t k = 0; k < words; k++) {
            const uint64_t px = m0[k] | m1[k];
            for (uint64_t f = (px | px >> 1) & 0x5555555555555555ULL; f; f &= f - 1) {
                const int64_t bx = (64 * k + __builtin_ctzll(f)) >> 1;
                bl[bx] = j->p[bl[bx]];
            }
        }
        for (int64_t r = y; r < y + 2 && r < h; r++) {
            const uint64_t *m = r == y ? m0 : m1;
            char *o = (char *)j->labels->data + r * j->os;
#ifdef CC_X86
            if (j->simd == 2) {
                relabel8_row_avx512(m, bl, o, w, s32, j->stream);
                continue;
            }
#endif
            memset(o, 0, (size_t)w * (s32 ? 4 : 2));
            for (int64_t k = 0; k < words; k++)
                for (uint64_t f = m[k]; f; f &= f - 1) {
                    const int64_t x = 64 * k + __builtin_ctzll(f);
                    if (s32)
                        memcpy(o + 4 * x, &bl[x >> 1], 4);
                    else
                        ((uint16_t *)o)[x] = (uint16_t)bl[x >> 1];
                }
        }
    }
#ifdef CC_X86
    if (j->stream)
        _mm_sfence();
#endif
}

/* ---- 4-connectivity ----------------------------------------------------------------------
 * By runs of foreground pixels in a row, from the row masks: a run takes one label, joined with
 * the labels of the runs of the row above that share a column with it. A component's first run
 * in row order makes its smallest label, at its first pixel in row order: OpenCV's numbering. */
typedef struct cc_runs {
    int32_t *start, *end, *label; /* each run's columns [start, end) and provisional label */
    int64_t *row;                 /* row y's runs are [row[y], row[y + 1]) */
} cc_runs;

/* The first column from x on whose bit is `set`, or words * 64. */
static inline int64_t next_bit(const uint64_t *m, int64_t x, int64_t words, bool set)
{
    int64_t k = x >> 6;
    if (k >= words)
        return words * 64;
    uint64_t v = (set ? m[k] : ~m[k]) >> (x & 63);
    if (v)
        return x + __builtin_ctzll(v);
    for (k++; k < words; k++)
        if ((v = set ? m[k] : ~m[k]))
            return 64 * k + __builtin_ctzll(v);
    return words * 64;
}

static void scan4_runs(cc_scan *s, const uint64_t *bits, int64_t nw, cc_runs *r)
{
    const int64_t w = s->src->width, h = s->src->height, words = nw - 1;
    int32_t *p = s->p, next = s->next;
    int64_t n = 0;
    for (int64_t y = 0; y < h; y++) {
        const uint64_t *m = bits + y * nw;
        int64_t q = y ? r->row[y - 1] : 0; /* the row above's runs: [q, qe) */
        const int64_t qe = n;
        r->row[y] = n;
        for (int64_t x = next_bit(m, 0, words, true); x < w;) {
            const int64_t e = next_bit(m, x, words, false); /* the run is [x, e) */
            while (q < qe && r->end[q] <= x)
                q++;
            int32_t l = 0;
            for (int64_t t = q; t < qe && r->start[t] < e; t++)
                l = !l ? r->label[t] : l == r->label[t] ? l : uf_union(p, l, r->label[t]);
            if (!l) {
                l = next++;
                p[l] = l;
            }
            r->start[n] = (int32_t)x, r->end[n] = (int32_t)e, r->label[n] = l;
            n++;
            x = next_bit(m, e, words, true);
        }
    }
    r->row[h] = n;
    s->next = next;
}

/* The final labels of 4-connectivity: each run filled with its label's number, zeros between. */
typedef struct relabel4_job {
    gip_array *labels;
    const cc_runs *r;
    const int32_t *p;
    int64_t os;
} relabel4_job;

static void relabel4_rows(void *arg, int64_t y0, int64_t y1)
{
    const relabel4_job *j = arg;
    const int64_t w = j->labels->width;
    const bool s32 = j->labels->depth == GIP_DEPTH_S32;
    for (int64_t y = y0; y < y1; y++) {
        char *o = (char *)j->labels->data + y * j->os;
        memset(o, 0, (size_t)w * (s32 ? 4 : 2));
        for (int64_t t = j->r->row[y]; t < j->r->row[y + 1]; t++) {
            const int32_t v = j->p[j->r->label[t]];
            const int64_t e = j->r->end[t];
            if (s32)
                for (int64_t x = j->r->start[t]; x < e; x++)
                    memcpy(o + 4 * x, &v, 4);
            else
                for (int64_t x = j->r->start[t]; x < e; x++)
                    ((uint16_t *)o)[x] = (uint16_t)v;
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
        return gip__cuda_not_built(ctx, op);
#endif
    }
    cc_scan s = {.src = src, .next = 1};
    const int64_t ostride = gip__array_stride(labels);
    const int64_t bw = (w + 1) / 2, nw = cc_words(w);
    int32_t *blab = NULL, *runs = NULL;
    cc_runs rr = {0};
    uint64_t *bits = malloc((size_t)((h + 1) * nw) * sizeof *bits); /* and a row of zeros */
    if (connectivity == 8) {
        blab = malloc((size_t)((bw + CC_BLOCK_PAD) * ((h + 1) / 2)) * sizeof *blab);
    } else {
        /* at most one run per provisional label */
        runs = malloc((size_t)cap * 3 * sizeof *runs);
        rr.row = malloc((size_t)(h + 1) * sizeof *rr.row);
        rr.start = runs, rr.end = runs ? runs + cap : NULL, rr.label = runs ? runs + 2 * cap : NULL;
    }
    s.p = malloc((size_t)cap * sizeof *s.p);
    st = GIP_OK;
    int32_t n = 1;
    if (!s.p || !bits || (connectivity == 8 ? !blab : !runs || !rr.row)) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out;
    }
    s.p[0] = 0;
    /* GIP_NOSIMD and GIP_NOAVX512 cap the vector loops, so that the tests reach the others */
    int simd = gip__tuning_get()->nosimd ? 0 : 1;
#ifdef CC_X86
    if (gip__simd() & GIP__SIMD_AVX512)
        simd = 2;
#endif
    cc_masks cm = {src, bits, nw, simd};
    memset(bits + h * nw, 0, (size_t)nw * sizeof *bits);
    gip__parallel_for(ctx, h, 64, mask_rows, &cm);
    if (connectivity == 8) {
        n = scan8_label(ctx, src, s.p, bits, nw, bits + h * nw, blab, bw + CC_BLOCK_PAD);
    } else {
        scan4_runs(&s, bits, nw, &rr);
        /* number the roots in order: p[i] < i already holds its final number */
        for (int32_t i = 1; i < s.next; i++)
            s.p[i] = s.p[i] < i ? s.p[s.p[i]] : n++;
    }
    if (n < 0) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out;
    }
    if (labels->depth == GIP_DEPTH_U16 && n > 65536) {
        st = gip__error(ctx, GIP_ERR_TOO_LARGE,
                        "%s: %d labels do not fit u16 labels; ask for s32 labels", op, (int)n);
        goto out;
    }
    if (connectivity == 8) {
        relabel8_job rj = {labels,
                           bits,
                           bits + h * nw,
                           nw,
                           blab,
                           s.p,
                           bw + CC_BLOCK_PAD,
                           ostride,
                           simd,
                           ostride * h >= GIP__STREAM_BYTES};
        gip__parallel_for(ctx, (h + 1) / 2, 16, relabel8_rows, &rj);
    } else {
        relabel4_job rj = {labels, &rr, s.p, ostride};
        gip__parallel_for(ctx, h, 32, relabel4_rows, &rj);
    }
    *n_labels = n;
out:
    free(s.p);
    free(bits);
    free(blab);
    free(runs);
    free(rr.row);
    return st;
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
