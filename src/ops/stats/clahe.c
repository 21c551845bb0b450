/* SPDX-License-Identifier: MIT */
/* clahe (gip_clahe): contrast limited adaptive histogram equalisation as cv2.createCLAHE().apply:
 * the checks, the tile geometry and tables (shared with the CUDA backend), the CPU backend, and
 * its registry entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/stats/stats.h"
#include "registry/registry.h"
#include "tuning.h"

/* The vector interpolation multiplies and adds as the scalar one, never fused. */
#pragma GCC optimize("fp-contract=off")

/* OpenCV's reflect101 index for a position p beyond [0, n). */
static int64_t reflect101(int64_t p, int64_t n)
{
    if (n == 1)
        return 0;
    while (p < 0 || p >= n)
        p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

void gip__clahe_lut(const gip__clahe_plan *p, int32_t *hist, void *lut, gip_dtype dt)
{
    const int32_t n = p->hist_size;
    if (p->clip > 0) {
        int64_t clipped = 0;
        for (int32_t i = 0; i < n; i++)
            if (hist[i] > p->clip) {
                clipped += hist[i] - p->clip;
                hist[i] = p->clip;
            }
        int32_t batch = (int32_t)(clipped / n);
        int32_t residual = (int32_t)(clipped - (int64_t)batch * n);
        for (int32_t i = 0; i < n; i++)
            hist[i] += batch;
        if (residual) {
            int32_t step = n / residual > 1 ? n / residual : 1;
            for (int32_t i = 0; i < n && residual > 0; i += step, residual--)
                hist[i]++;
        }
    }
    int32_t sum = 0;
    const int32_t top = dt == GIP_U8 ? 255 : 65535;
    for (int32_t i = 0; i < n; i++) {
        sum += hist[i];
        long v = lrintf((float)sum * p->lut_scale);
        v = v < 0 ? 0 : v > top ? top : v;
        if (dt == GIP_U8)
            ((uint8_t *)lut)[i] = (uint8_t)v;
        else
            ((uint16_t *)lut)[i] = (uint16_t)v;
    }
}

typedef struct clahe_job {
    const gip_image *src;
    gip_image *dst;
    const gip__clahe_plan *p;
    void *luts;                 /* tiles_y * tiles_x tables of hist_size entries */
    int oom;                    /* set when a chunk could not get its histogram */
    const int32_t *ind1, *ind2; /* per x: the left and right tile columns' table offsets */
    const float *xa;            /* per x: the weight of the right column (64 zeros after) */
    const int64_t *spans;       /* u8 with VBMI: the x where (ind1, ind2) change, then width */
    int32_t nspans;             /* 0: the scalar rows */
} clahe_job;

/* The histograms and tables of tiles [t0, t1) (row-major), over the image extended by
 * reflect101 to the grid's multiple. */
static void clahe_tiles(void *arg, int64_t t0, int64_t t1)
{
    const clahe_job *j = arg;
    const gip__clahe_plan *p = j->p;
    const gip_image *s = j->src;
    const size_t es = gip_dtype_size(s->dtype);
    int32_t *h = malloc((size_t)p->hist_size * sizeof *h);
    if (!h) {
        __atomic_store_n(&((clahe_job *)arg)->oom, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t t = t0; t < t1; t++) {
        memset(h, 0, (size_t)p->hist_size * sizeof *h);
        int64_t ty = t / p->tiles_x, tx = t % p->tiles_x;
        const int64_t xa = tx * p->tile_w, xb = (tx + 1) * p->tile_w;
        const int64_t xin = xb < s->width ? xb : s->width; /* the columns inside the image */
        /* u8: four tables taken in turn, so that a run of equal values does not wait on one
         * count */
        uint32_t q[4][256];
        if (es == 1)
            memset(q, 0, sizeof q);
        for (int64_t y = ty * p->tile_h; y < (ty + 1) * p->tile_h; y++) {
            const unsigned char *row =
                (const unsigned char *)s->data + reflect101(y, s->height) * s->stride;
            int64_t x = xa;
            if (es == 1) {
                for (; x + 4 <= xin; x += 4) {
                    q[0][row[x]]++;
                    q[1][row[x + 1]]++;
                    q[2][row[x + 2]]++;
                    q[3][row[x + 3]]++;
                }
                for (; x < xb; x++)
                    q[0][row[x < s->width ? x : reflect101(x, s->width)]]++;
                continue;
            }
            for (; x < xb; x++) {
                int64_t sx = x < s->width ? x : reflect101(x, s->width);
                h[((const uint16_t *)row)[sx]]++;
            }
        }
        if (es == 1)
            for (int v = 0; v < 256; v++)
                h[v] = (int32_t)(q[0][v] + q[1][v] + q[2][v] + q[3][v]);
        gip__clahe_lut(p, h, (unsigned char *)j->luts + (size_t)t * p->hist_size * es, s->dtype);
    }
    free(h);
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CLAHE_X86 1

/* 64 lookups of a 256-byte table held in four vectors. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) static inline __m512i
lut64(const __m512i *t, __m512i v)
{
    const __m512i lo = _mm512_permutex2var_epi8(t[0], v, t[1]);
    const __m512i hi = _mm512_permutex2var_epi8(t[2], v, t[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi);
}

/* Lanes 16 k .. 16 k + 15 of 64 bytes as floats. */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline __m512
quarter_ps(__m512i b, int k)
{
    /* the lane as a literal in each case: builds that do not unroll the callers' loops (the
     * sanitizer build) cannot fold k into the instruction's immediate */
    __m128i q;
    switch (k) {
    case 0:
        q = _mm512_extracti32x4_epi32(b, 0);
        break;
    case 1:
        q = _mm512_extracti32x4_epi32(b, 1);
        break;
    case 2:
        q = _mm512_extracti32x4_epi32(b, 2);
        break;
    default:
        q = _mm512_extracti32x4_epi32(b, 3);
        break;
    }
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(q));
}

/* A u8 row with AVX-512 VBMI: over each span of x where the two tile columns stay, their four
 * tables (rows ty1 and ty2) in registers, 64 pixels a step looked up by byte permutes, then the
 * scalar rows' float arithmetic in the same order, rounded to nearest even as lrintf. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void
clahe_row_vbmi(const clahe_job *j, const uint8_t *srow, uint8_t *drow, const uint8_t *l1,
               const uint8_t *l2, float ya, float ya1)
{
    const __m512 vya = _mm512_set1_ps(ya), vya1 = _mm512_set1_ps(ya1), one = _mm512_set1_ps(1.0f);
    const __m512i zero = _mm512_setzero_si512(), top = _mm512_set1_epi32(255);
    for (int32_t sp = 0; sp < j->nspans; sp++) {
        const int64_t x0 = j->spans[sp], x1 = j->spans[sp + 1];
        __m512i t11[4], t12[4], t21[4], t22[4];
        for (int k = 0; k < 4; k++) {
            t11[k] = _mm512_loadu_si512(l1 + j->ind1[x0] + 64 * k);
            t12[k] = _mm512_loadu_si512(l1 + j->ind2[x0] + 64 * k);
            t21[k] = _mm512_loadu_si512(l2 + j->ind1[x0] + 64 * k);
            t22[k] = _mm512_loadu_si512(l2 + j->ind2[x0] + 64 * k);
        }
        for (int64_t x = x0; x < x1; x += 64) {
            const int64_t n = x1 - x < 64 ? x1 - x : 64;
            const __mmask64 m = n == 64 ? ~0ULL : (1ULL << n) - 1;
            const __m512i v = _mm512_maskz_loadu_epi8(m, srow + x);
            const __m512i b11 = lut64(t11, v), b12 = lut64(t12, v);
            const __m512i b21 = lut64(t21, v), b22 = lut64(t22, v);
            __m512i r[4];
            for (int k = 0; k < 4; k++) {
                const __m512 xa = _mm512_loadu_ps(j->xa + x + 16 * k);
                const __m512 xa1 = _mm512_sub_ps(one, xa);
                const __m512 a = _mm512_add_ps(_mm512_mul_ps(quarter_ps(b11, k), xa1),
                                               _mm512_mul_ps(quarter_ps(b12, k), xa));
                const __m512 b = _mm512_add_ps(_mm512_mul_ps(quarter_ps(b21, k), xa1),
                                               _mm512_mul_ps(quarter_ps(b22, k), xa));
                const __m512 res = _mm512_add_ps(_mm512_mul_ps(a, vya1), _mm512_mul_ps(b, vya));
                r[k] = _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(res), zero), top);
            }
            const __m512i packed = _mm512_inserti64x4(
                _mm512_castsi256_si512(
                    _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(r[0])),
                                            _mm512_cvtepi32_epi8(r[1]), 1)),
                _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(r[2])),
                                        _mm512_cvtepi32_epi8(r[3]), 1),
                1);
            _mm512_mask_storeu_epi8(drow + x, m, packed);
        }
    }
}
#endif

static void clahe_rows(void *arg, int64_t y0, int64_t y1)
{
    const clahe_job *j = arg;
    const gip__clahe_plan *p = j->p;
    const float inv_th = 1.0f / (float)p->tile_h;
    const bool u8 = j->src->dtype == GIP_U8;
    for (int64_t y = y0; y < y1; y++) {
        float tyf = (float)y * inv_th - 0.5f;
        int32_t ty1 = (int32_t)floorf(tyf), ty2 = ty1 + 1;
        float ya = tyf - (float)ty1, ya1 = 1.0f - ya;
        ty1 = ty1 > 0 ? ty1 : 0;
        ty2 = ty2 < p->tiles_y - 1 ? ty2 : p->tiles_y - 1;
        const int64_t plane = (int64_t)p->tiles_x * p->hist_size;
        const unsigned char *srow = (const unsigned char *)j->src->data + y * j->src->stride;
        unsigned char *drow = (unsigned char *)j->dst->data + y * j->dst->stride;
#ifdef CLAHE_X86
        if (j->nspans) {
            clahe_row_vbmi(j, srow, drow, (const uint8_t *)j->luts + ty1 * plane,
                           (const uint8_t *)j->luts + ty2 * plane, ya, ya1);
            continue;
        }
#endif
        for (int64_t x = 0; x < j->src->width; x++) {
            const float xa = j->xa[x], xa1 = 1.0f - xa;
            int32_t v = u8 ? srow[x] : ((const uint16_t *)srow)[x];
            int64_t i1 = j->ind1[x] + v, i2 = j->ind2[x] + v;
            float l11, l12, l21, l22;
            if (u8) {
                const uint8_t *l1 = (const uint8_t *)j->luts + ty1 * plane;
                const uint8_t *l2 = (const uint8_t *)j->luts + ty2 * plane;
                l11 = l1[i1], l12 = l1[i2], l21 = l2[i1], l22 = l2[i2];
            } else {
                const uint16_t *l1 = (const uint16_t *)j->luts + ty1 * plane;
                const uint16_t *l2 = (const uint16_t *)j->luts + ty2 * plane;
                l11 = l1[i1], l12 = l1[i2], l21 = l2[i1], l22 = l2[i2];
            }
            float res = (l11 * xa1 + l12 * xa) * ya1 + (l21 * xa1 + l22 * xa) * ya;
            long r = lrintf(res);
            if (u8)
                drow[x] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
            else
                ((uint16_t *)drow)[x] = (uint16_t)(r < 0 ? 0 : r > 65535 ? 65535 : r);
        }
    }
}

static gip_status clahe_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip__clahe_plan *p)
{
    const int64_t ntiles = (int64_t)p->tiles_x * p->tiles_y;
    const size_t es = gip_dtype_size(src->dtype);
    clahe_job j = {.src = src, .dst = dst, .p = p};
    j.luts = malloc((size_t)ntiles * p->hist_size * es);
    int32_t *ind = malloc((size_t)src->width * 2 * sizeof(int32_t));
    float *xa = calloc((size_t)src->width + 64, sizeof(float));
    int64_t *spans = malloc(((size_t)src->width + 1) * sizeof *spans);
    gip_status st = GIP_OK;
    if (!j.luts || !ind || !xa || !spans) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_clahe: out of host memory");
        goto out_free;
    }
    const float inv_tw = 1.0f / (float)p->tile_w;
    for (int64_t x = 0; x < src->width; x++) {
        float txf = (float)x * inv_tw - 0.5f;
        int32_t tx1 = (int32_t)floorf(txf), tx2 = tx1 + 1;
        xa[x] = txf - (float)tx1;
        tx1 = tx1 > 0 ? tx1 : 0;
        tx2 = tx2 < p->tiles_x - 1 ? tx2 : p->tiles_x - 1;
        ind[x] = tx1 * p->hist_size;
        ind[src->width + x] = tx2 * p->hist_size;
    }
    j.ind1 = ind;
    j.ind2 = ind + src->width;
    j.xa = xa;
    j.spans = spans;
#ifdef CLAHE_X86
    if (src->dtype == GIP_U8 && (gip__simd() & GIP__SIMD_VBMI)) {
        for (int64_t x = 0; x < src->width; x++)
            if (!x || ind[x] != ind[x - 1] || j.ind2[x] != j.ind2[x - 1])
                spans[j.nspans++] = x;
        spans[j.nspans] = src->width;
    }
#endif
    gip__parallel_for(ctx, ntiles, 1, clahe_tiles, &j);
    if (j.oom) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_clahe: out of host memory");
        goto out_free;
    }
    gip__parallel_for(ctx, src->height, 8, clahe_rows, &j);
out_free:
    free(j.luts);
    free(ind);
    free(xa);
    free(spans);
    return st;
}

gip_status gip_clahe(gip_context *ctx, const gip_image *src, gip_image *dst,
                     const gip_clahe_params *params)
{
    static const char op[] = "gip_clahe";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT(GIP_U8) | GIP__DT(GIP_U16), op, "src")))
        return st;
    if (src->channels != 1 || dst->channels != 1 || dst->dtype != src->dtype)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src is %d-channel %s and dst %d-channel %s; both must be the same "
                          "one-channel dtype",
                          op, (int)src->channels, gip_dtype_name(src->dtype), (int)dst->channels,
                          gip_dtype_name(dst->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    double clip = params ? params->clip_limit : 0.0;
    int32_t tx = params && params->tiles_x ? params->tiles_x : 8;
    int32_t ty = params && params->tiles_y ? params->tiles_y : 8;
    if (!isfinite(clip))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: clip_limit must be finite", op);
    if (tx < 1 || ty < 1 || tx > 256 || ty > 256)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the tile grid is %dx%d; 1 to 256 tiles each way are accepted", op,
                          (int)tx, (int)ty);
    if (clip == 0.0 && !(params && params->no_clip))
        clip = 40.0;
    gip__clahe_plan p;
    p.tiles_x = tx;
    p.tiles_y = ty;
    /* OpenCV extends both ways by grid - size % grid as soon as either size is not a multiple,
     * a whole extra tile row or column where that size is one. */
    if (src->width % tx == 0 && src->height % ty == 0) {
        p.tile_w = src->width / tx;
        p.tile_h = src->height / ty;
    } else {
        p.tile_w = (src->width + tx - src->width % tx) / tx;
        p.tile_h = (src->height + ty - src->height % ty) / ty;
    }
    p.hist_size = src->dtype == GIP_U8 ? 256 : 65536;
    const int64_t area = p.tile_w * p.tile_h;
    if (area > INT32_MAX / 2)
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "%s: a tile of %lldx%lld pixels is too large for 32-bit counts; use "
                          "more tiles",
                          op, (long long)p.tile_w, (long long)p.tile_h);
    p.clip = 0;
    if (clip > 0.0 && !(params && params->no_clip)) {
        double c = clip * (double)area / p.hist_size;
        p.clip = c >= 2147483647.0 ? INT32_MAX : (int32_t)c;
        p.clip = p.clip > 1 ? p.clip : 1;
    }
    p.lut_scale = (float)(p.hist_size - 1) / (float)area;
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__clahe_cuda(ctx, src, dst, &p));
    return clahe_cpu(ctx, src, dst, &p);
}

typedef struct clahe_step {
    gip_clahe_params p;
} clahe_step;

static const gip_param decl[] = {
    GIP__PARAM("clip_limit", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, 0, 1e6, 0, NULL, "40",
               "the contrast limit: a bin of a tile's histogram holds at most clip_limit times "
               "the tile's mean count (0: no limit)"),
    GIP__PARAM("tiles", GIP_PARAM_SIZE, 0, 1, 256, 0, NULL, "8",
               "the tile grid, cv2's tileGridSize: columns x rows"),
};

static gip_status build(const gip_args *a, void *out)
{
    clahe_step *s = out;
    s->p.clip_limit = gip_args_double(a, "clip_limit");
    s->p.no_clip = s->p.clip_limit == 0.0;
    gip_args_size(a, "tiles", &s->p.tiles_x, &s->p.tiles_y);
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_clahe(ctx, src, dst, &((const clahe_step *)p)->p);
}

const gip_op gip__op_clahe = {
    .name = "clahe",
    .family = "statistics",
    .summary = "Contrast limited adaptive histogram equalisation, as cv2.createCLAHE().apply.",
    .doc = "Equalises each tile of a grid (tiles, 8x8 by default) with its own histogram, "
           "clipped at clip_limit times the tile's mean bin count and the excess spread over "
           "all bins, and blends the four nearest tiles' tables bilinearly: "
           "cv2.createCLAHE(clipLimit, tileGridSize).apply(src), bit for bit. One-channel u8 or "
           "u16 (65536 bins). Sizes that are not a multiple of the grid are extended by "
           "reflect101 for the tables, as OpenCV. Reads the whole image, so it is never tiled.",
    .cv_name = "cv2.createCLAHE",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16),
    .channels = GIP_CHANNELS_BIT(1),
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(clahe_step),
    .build = build,
    .run = run,
};
