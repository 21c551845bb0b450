/* SPDX-License-Identifier: MIT */
/* calcHist (gip_calc_hist): argument checks, the bin plan (OpenCV's uniform and non-uniform
 * rules, as lookup tables for integer dtypes), and the CPU counter. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/stats/stats.h"
#include "tuning.h"

typedef struct hist_job {
    const gip_image *src, *mask;
    const gip__hist_plan *plan;
    uint32_t *counts;
    gip_status st;
} hist_job;

/* The common case, one dimension of u8: how often each value occurs, in four tables taken in
 * turn (a run of equal values does not wait on one counter), then the values' bins. */
static void u8_counts(const hist_job *j, int64_t y0, int64_t y1, uint32_t *local)
{
    const gip_image *s = j->src;
    const int32_t cn = s->channels;
    const int64_t w = s->width;
    uint32_t t[4][256];
    memset(t, 0, sizeof t);
    for (int64_t y = y0; y < y1; y++) {
        const unsigned char *e =
            (const unsigned char *)s->data + y * s->stride + j->plan->channel[0];
        const unsigned char *m =
            j->mask ? (const unsigned char *)j->mask->data + y * j->mask->stride : NULL;
        int64_t x = 0;
        if (m) {
            for (; x + 4 <= w; x += 4) {
                t[0][e[x * cn]] += m[x] != 0;
                t[1][e[(x + 1) * cn]] += m[x + 1] != 0;
                t[2][e[(x + 2) * cn]] += m[x + 2] != 0;
                t[3][e[(x + 3) * cn]] += m[x + 3] != 0;
            }
            for (; x < w; x++)
                t[0][e[x * cn]] += m[x] != 0;
        } else if (cn == 1) {
            for (; x + 4 <= w; x += 4) {
                t[0][e[x]]++;
                t[1][e[x + 1]]++;
                t[2][e[x + 2]]++;
                t[3][e[x + 3]]++;
            }
            for (; x < w; x++)
                t[0][e[x]]++;
        } else {
            for (; x + 4 <= w; x += 4) {
                t[0][e[x * cn]]++;
                t[1][e[(x + 1) * cn]]++;
                t[2][e[(x + 2) * cn]]++;
                t[3][e[(x + 3) * cn]]++;
            }
            for (; x < w; x++)
                t[0][e[x * cn]]++;
        }
    }
    const int32_t *lut = j->plan->lut[0];
    for (int v = 0; v < 256; v++)
        if (lut[v] >= 0)
            local[lut[v]] += t[0][v] + t[1][v] + t[2][v] + t[3][v];
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HIST_X86 1

/* f32_uniform_counts' rule on a one-channel row, 16 values a step: the bins computed four at a
 * time in double (the same multiply, add and floor; t clamped to [-1, nb] first, which gives the
 * rule's bins for NaN, huge and out-of-int values: min_pd returns nb for a NaN t), then counted
 * in four tables taken in turn. Values outside [lo, hi), or masked out, go to the spare bin nb. */
__attribute__((target("avx2"))) static void
f32_uniform_row_avx2(const float *e, const unsigned char *m, int64_t w, const double k[4],
                     int32_t nb, uint32_t *t0, uint32_t *t1, uint32_t *t2, uint32_t *t3)
{
    const __m256d lo = _mm256_set1_pd(k[0]), hi = _mm256_set1_pd(k[1]);
    const __m256d ka = _mm256_set1_pd(k[2]), kb = _mm256_set1_pd(k[3]);
    const __m256d neg1 = _mm256_set1_pd(-1.0), top = _mm256_set1_pd((double)nb);
    const __m128i spare = _mm_set1_epi32(nb), last = _mm_set1_epi32(nb - 1);
    const __m128i zero = _mm_setzero_si128();
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        int32_t idx[16];
        for (int q = 0; q < 4; q++) {
            const __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(e + x + 4 * q));
            /* kept: !(v < lo) && !(v >= hi), so NaN is kept as the scalar rule keeps it */
            const __m256d keep =
                _mm256_and_pd(_mm256_cmp_pd(v, lo, _CMP_NLT_UQ), _mm256_cmp_pd(v, hi, _CMP_NGE_UQ));
            __m256d t = _mm256_add_pd(_mm256_mul_pd(v, ka), kb);
            t = _mm256_max_pd(_mm256_min_pd(t, top), neg1);
            __m128i b = _mm256_cvttpd_epi32(_mm256_floor_pd(t));
            b = _mm_min_epi32(_mm_max_epi32(b, zero), last);
            __m128i kp = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                _mm256_castpd_si256(keep), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
            if (m) {
                int32_t mm;
                memcpy(&mm, m + x + 4 * q, 4);
                const __m128i mv = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(mm));
                kp = _mm_andnot_si128(_mm_cmpeq_epi32(mv, zero), kp);
            }
            b = _mm_blendv_epi8(spare, b, kp);
            _mm_storeu_si128((__m128i *)(idx + 4 * q), b);
        }
        for (int i = 0; i < 16; i += 4) {
            t0[idx[i]]++;
            t1[idx[i + 1]]++;
            t2[idx[i + 2]]++;
            t3[idx[i + 3]]++;
        }
    }
    for (; x < w; x++) {
        const int32_t i = gip__hist_uniform_bin((double)e[x], k[0], k[1], k[2], k[3], nb);
        t0[(m && !m[x]) || i < 0 ? nb : i]++;
    }
}
#endif

/* One dimension of f32 with uniform bins: gip__hist_bin_f32's uniform rule with the plan's
 * numbers held in registers. */
static void f32_uniform_counts(const hist_job *j, int64_t y0, int64_t y1, uint32_t *local)
{
    const gip_image *s = j->src;
    const gip__hist_plan *p = j->plan;
    const int32_t cn = s->channels, nb = p->bins[0];
    const double lo = p->lo[0], hi = p->hi[0], ka = p->a[0], kb = p->b[0];
#ifdef HIST_X86
    if (cn == 1 && (gip__simd() & GIP__SIMD_AVX2)) {
        /* four tables of nb + 1 (the spare bin last) */
        uint32_t *t = calloc(4 * ((size_t)nb + 1), sizeof *t);
        if (t) {
            const double k[4] = {lo, hi, ka, kb};
            const size_t n1 = (size_t)nb + 1;
            for (int64_t y = y0; y < y1; y++)
                f32_uniform_row_avx2(
                    (const float *)((const unsigned char *)s->data + y * s->stride),
                    j->mask ? (const unsigned char *)j->mask->data + y * j->mask->stride : NULL,
                    s->width, k, nb, t, t + n1, t + 2 * n1, t + 3 * n1);
            for (int32_t b = 0; b < nb; b++)
                local[b] += t[b] + t[n1 + b] + t[2 * n1 + b] + t[3 * n1 + b];
            free(t);
            return;
        }
    }
#endif
    for (int64_t y = y0; y < y1; y++) {
        const float *e =
            (const float *)((const unsigned char *)s->data + y * s->stride) + p->channel[0];
        const unsigned char *m =
            j->mask ? (const unsigned char *)j->mask->data + y * j->mask->stride : NULL;
        for (int64_t x = 0; x < s->width; x++) {
            if (m && !m[x])
                continue;
            const int32_t idx = gip__hist_uniform_bin((double)e[x * cn], lo, hi, ka, kb, nb);
            if (idx >= 0)
                local[idx]++;
        }
    }
}

static void hist_rows(void *arg, int64_t y0, int64_t y1)
{
    hist_job *j = arg;
    const gip__hist_plan *p = j->plan;
    const gip_image *s = j->src;
    uint32_t *local = calloc((size_t)p->total, sizeof *local);
    if (!local) {
        __atomic_store_n(&j->st, GIP_ERR_OUT_OF_MEMORY, __ATOMIC_RELAXED);
        return;
    }
    const int32_t cn = s->channels;
    if (p->dims == 1 && s->dtype == GIP_U8) {
        u8_counts(j, y0, y1, local);
        y1 = y0; /* done */
    } else if (p->dims == 1 && s->dtype == GIP_F32 && !p->non_uniform) {
        f32_uniform_counts(j, y0, y1, local);
        y1 = y0;
    }
    for (int64_t y = y0; y < y1; y++) {
        const unsigned char *row = (const unsigned char *)s->data + y * s->stride;
        const unsigned char *m =
            j->mask ? (const unsigned char *)j->mask->data + y * j->mask->stride : NULL;
        for (int64_t x = 0; x < s->width; x++) {
            if (m && !m[x])
                continue;
            int64_t idx = 0;
            int d = 0;
            for (; d < p->dims; d++) {
                int64_t e = x * cn + p->channel[d];
                int32_t b;
                if (s->dtype == GIP_U8)
                    b = p->lut[d][row[e]];
                else if (s->dtype == GIP_U16)
                    b = p->lut[d][((const uint16_t *)row)[e]];
                else
                    b = gip__hist_bin_f32(p, d, ((const float *)row)[e]);
                if (b < 0)
                    break;
                idx += b * p->stride[d];
            }
            if (d == p->dims)
                local[idx]++;
        }
    }
    for (int64_t i = 0; i < p->total; i++)
        if (local[i])
            __atomic_fetch_add(&j->counts[i], local[i], __ATOMIC_RELAXED);
    free(local);
}

gip_status gip__hist_count_cpu(gip_context *ctx, const gip_image *src, const gip_image *mask,
                               const gip__hist_plan *plan, uint32_t *counts)
{
    hist_job j = {.src = src, .mask = mask, .plan = plan, .counts = counts};
    /* Rows per chunk so that a chunk's private histogram is small against its pixels. */
    int64_t grain = 1 + plan->total / (src->width > 0 ? src->width : 1);
    gip__parallel_for(ctx, src->height, grain < 64 ? 64 : grain, hist_rows, &j);
    if (j.st)
        return gip__error(ctx, j.st, "calcHist: out of host memory");
    return GIP_OK;
}

/* The bin of integer value v along dimension d, as OpenCV's tables give it. */
static int32_t int_bin(const gip__hist_plan *p, int d, int32_t v)
{
    return gip__hist_bin_f32(p, d, (float)v);
}

static void plan_free(gip__hist_plan *p)
{
    for (int d = 0; d < 3; d++) {
        free(p->lut[d]);
        p->lut[d] = NULL;
    }
}

gip_status gip_calc_hist(gip_context *ctx, const gip_image *src, const gip_image *mask,
                         const gip_calc_hist_params *params, float *hist)
{
    static const char op[] = "gip_calc_hist";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (!params || !hist)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          params ? "hist" : "params");
    if ((st = gip__image_check_ctx(ctx, src, op, "src")))
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    const bool dev = src->memory == GIP_MEM_CUDA;
    if ((st = gip__stats_check_mask(ctx, mask, src, op)))
        return st;
    const int32_t dims = params->dims;
    if (dims < 1 || dims > 3)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: dims is %d; 1, 2 or 3 are accepted",
                          op, (int)dims);
    gip__hist_plan p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    p.non_uniform = params->non_uniform != 0;
    p.total = 1;
    for (int d = 0; d < dims; d++) {
        int32_t ch = params->channels[d], bins = params->bins[d];
        if (ch < 0 || ch >= src->channels)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: channel %d of dimension %d is out of range: src has %d "
                              "channels",
                              op, (int)ch, d, (int)src->channels);
        if (bins < 1 || bins > (1 << 24))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: bins of dimension %d is %d; 1 to 16777216 are accepted", op, d,
                              (int)bins);
        p.total *= bins;
        if (p.total > (1 << 24))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: the histogram has more than 16777216 bins", op);
        p.channel[d] = ch;
        p.bins[d] = bins;
        const float *r = params->ranges[d];
        if (p.non_uniform) {
            if (!r)
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: a non-uniform histogram needs %d edges for dimension %d", op,
                                  (int)bins + 1, d);
            for (int32_t k = 0; k <= bins; k++)
                if (!isfinite(r[k]) || (k && !(r[k] > r[k - 1])))
                    return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                      "%s: the edges of dimension %d must be finite and "
                                      "ascending (edge %d is %g)",
                                      op, d, (int)k, (double)r[k]);
            p.edges[d] = r;
        } else {
            double lo = r ? r[0] : 0.0, hi = r ? r[1] : 256.0;
            if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: the range of dimension %d is [%g, %g); it needs low < "
                                  "high, both finite",
                                  op, d, lo, hi);
            p.lo[d] = lo;
            p.hi[d] = hi;
            p.a[d] = bins / (hi - lo);
            p.b[d] = -p.a[d] * lo;
        }
    }
    for (int d = dims - 1, s = 1; d >= 0; s *= p.bins[d], d--)
        p.stride[d] = s;
    if (src->dtype != GIP_F32) {
        int32_t n = src->dtype == GIP_U8 ? 256 : 65536;
        for (int d = 0; d < dims; d++) {
            if (!(p.lut[d] = malloc((size_t)n * sizeof(int32_t)))) {
                plan_free(&p);
                return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
            }
            for (int32_t v = 0; v < n; v++)
                p.lut[d][v] = int_bin(&p, d, v);
        }
    }
    uint32_t *counts = calloc((size_t)p.total, sizeof *counts);
    if (!counts) {
        plan_free(&p);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    }
    bool dev_out = false; /* hist is device memory: counted into on the device */
    if (dev) {
#ifdef GIP_HAVE_CUDA
        st = gip__cuda_enter(ctx);
        int where = st ? 0 : gip__calc_hist_device_ptr(ctx, hist);
        if (where < 0)
            st = gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                            "%s: hist is device memory of another device than the context's", op);
        dev_out = where > 0;
        if (!st && dev_out)
            st = gip__hist_count_cuda_dev(ctx, src, mask, &p, hist, params->accumulate != 0);
        else if (!st)
            st = gip__hist_count_cuda(ctx, src, mask, &p, counts);
#else
        st = gip__cuda_not_built(ctx, op);
#endif
    } else {
        st = gip__hist_count_cpu(ctx, src, mask, &p, counts);
    }
    if (!st && !dev_out)
        for (int64_t i = 0; i < p.total; i++) {
            /* OpenCV accumulates in int: the previous counts rounded half to even. */
            double prev = params->accumulate ? nearbyint((double)hist[i]) : 0.0;
            hist[i] = (float)(prev + (double)counts[i]);
        }
    free(counts);
    plan_free(&p);
    return st;
}
