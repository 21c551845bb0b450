/* SPDX-License-Identifier: MIT */
/* bilateral (gip_bilateral_filter, as cv2.bilateralFilter): OpenCV's disc of taps and float
 * weight tables built once, the CPU backend (float sums tap by tap in the plan's order, the
 * operations the CUDA kernel repeats, so that u8 results are identical), and the registry's
 * description. */
#if defined(__GNUC__) && !defined(__clang__)
/* No FMA contraction in the AVX2 clone below: the sums keep the CUDA kernel's roundings. */
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <stdatomic.h>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define BIL_HAVE_AVX2 1
#endif
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "gip/smoothing.h"
#include "ops/filter/bilateral.h"
#include "ops/op_check.h"
#include "registry/registry.h"
#include "tuning.h"

static const char OP[] = "gip_bilateral_filter";

/* Pixels of a row a chunk: the sums of a chunk (four floats a pixel) stay in L1 over the taps. */
#define BIL_CHUNK 512

/* Every tap over pixels [0, x1) of a row, a block of pixels at a time with its sums in
 * registers: the colour weight of each pixel's difference (the sum of the channels' absolute
 * differences) times the tap's space weight, added to the weighted sums and the weight sum in tap
 * order, each as a separate multiply and add (the scalar loop's and the CUDA kernel's roundings).
 * q[k] is tap k's plane-0 pointer for pixel 0, s0 the centre's; planes are pp apart. The sums go
 * to sum (c planes of w) and wsum once a block. Returns the first pixel not done. */
#ifdef BIL_HAVE_AVX2
/* 8 pixels of plane pointer QP at X: their values as floats (QF), their absolute difference to
 * the centre's (S, as int32) added to DIFF. */
#define BIL_LOAD8(QP, X, S, QF, DIFF)                                                              \
    do {                                                                                           \
        const __m256i a_ = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)((QP) + (X))));   \
        DIFF = _mm256_add_epi32(DIFF, _mm256_abs_epi32(_mm256_sub_epi32(a_, S)));                  \
        QF = _mm256_cvtepi32_ps(a_);                                                               \
    } while (0)
#define BIL_CENTRE8(P) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(P)))

__attribute__((target("avx2"))) static int64_t row_avx2(const uint8_t *const *q, int32_t ntaps,
                                                        const float *space, const uint8_t *s0,
                                                        int64_t pp, int32_t c, const float *color,
                                                        float *sum, float *wsum, int64_t w)
{
    int64_t x = 0;
    if (c == 1) { /* 16 pixels: two gathers a tap */
        for (; x + 16 <= w; x += 16) {
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, w0 = a0, w1 = a0;
            const __m256i c0 = BIL_CENTRE8(s0 + x), c1 = BIL_CENTRE8(s0 + x + 8);
            for (int32_t k = 0; k < ntaps; k++) {
                const __m256 vsw = _mm256_set1_ps(space[k]);
                __m256i d0 = _mm256_setzero_si256(), d1 = _mm256_setzero_si256();
                __m256 f0, f1;
                BIL_LOAD8(q[k], x, c0, f0, d0);
                BIL_LOAD8(q[k], x + 8, c1, f1, d1);
                const __m256 k0 = _mm256_mul_ps(vsw, _mm256_i32gather_ps(color, d0, 4));
                const __m256 k1 = _mm256_mul_ps(vsw, _mm256_i32gather_ps(color, d1, 4));
                a0 = _mm256_add_ps(a0, _mm256_mul_ps(f0, k0));
                a1 = _mm256_add_ps(a1, _mm256_mul_ps(f1, k1));
                w0 = _mm256_add_ps(w0, k0);
                w1 = _mm256_add_ps(w1, k1);
            }
            _mm256_storeu_ps(sum + x, a0);
            _mm256_storeu_ps(sum + x + 8, a1);
            _mm256_storeu_ps(wsum + x, w0);
            _mm256_storeu_ps(wsum + x + 8, w1);
        }
        return x;
    }
    for (; x + 8 <= w; x += 8) { /* three channels: 8 pixels */
        __m256 a = _mm256_setzero_ps(), b = a, cc = a, ws = a;
        const __m256i ca = BIL_CENTRE8(s0 + x), cb = BIL_CENTRE8(s0 + pp + x),
                      cz = BIL_CENTRE8(s0 + 2 * pp + x);
        for (int32_t k = 0; k < ntaps; k++) {
            const __m256 vsw = _mm256_set1_ps(space[k]);
            __m256i d = _mm256_setzero_si256();
            __m256 fa, fb, fc;
            BIL_LOAD8(q[k], x, ca, fa, d);
            BIL_LOAD8(q[k] + pp, x, cb, fb, d);
            BIL_LOAD8(q[k] + 2 * pp, x, cz, fc, d);
            const __m256 wk = _mm256_mul_ps(vsw, _mm256_i32gather_ps(color, d, 4));
            a = _mm256_add_ps(a, _mm256_mul_ps(fa, wk));
            b = _mm256_add_ps(b, _mm256_mul_ps(fb, wk));
            cc = _mm256_add_ps(cc, _mm256_mul_ps(fc, wk));
            ws = _mm256_add_ps(ws, wk);
        }
        _mm256_storeu_ps(sum + x, a);
        _mm256_storeu_ps(sum + w + x, b);
        _mm256_storeu_ps(sum + 2 * w + x, cc);
        _mm256_storeu_ps(wsum + x, ws);
    }
    return x;
}
#endif

#ifdef BIL_HAVE_AVX2
/* The output pixels [0, 8k) of a row: each sum times 1 / wsum, rounded half to even and
 * saturated, as the scalar loop (the same IEEE division and product; cvtps rounds as lrintf in
 * the default mode). Returns the first pixel not done. */
__attribute__((target("avx2"))) static int64_t out_avx2(const float *sum, const float *wsum,
                                                        int64_t w, int32_t c, uint8_t *d)
{
    int64_t x = 0;
    for (; x + 8 <= w; x += 8) {
        const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_loadu_ps(wsum + x));
        uint8_t px[3][16];
        for (int32_t ch = 0; ch < c; ch++) {
            const __m256i v =
                _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(sum + ch * w + x), inv));
            const __m128i v16 =
                _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
            _mm_storeu_si128((__m128i *)px[ch], _mm_packus_epi16(v16, v16));
        }
        if (c == 1) {
            memcpy(d + x, px[0], 8);
        } else {
            for (int32_t i = 0; i < 8; i++) {
                d[(x + i) * 3] = px[0][i];
                d[(x + i) * 3 + 1] = px[1][i];
                d[(x + i) * 3 + 2] = px[2][i];
            }
        }
    }
    return x;
}
#endif

typedef struct bil_job {
    const gip__bilateral_plan *p;
    const gip_image *src;
    gip_image *dst;
    const int32_t *xmap; /* padded column (x + r) -> source column, -1 outside (constant) */
    atomic_int failed;
} bil_job;

/* u8: for each output row, the 2r + 1 bordered source rows padded by r pixels each side (three
 * channels as planes), then every tap for a block of pixels (row_avx2), the rest tap by tap over
 * chunks of the row in loops the compiler vectorises (compiled for x86-64-v3 too); each pixel's
 * sums in tap order either way, as on CUDA. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void
rows_u8(void *arg, int64_t y0, int64_t y1)
{
    bil_job *j = arg;
    const gip__bilateral_plan *p = j->p;
    const int64_t w = j->src->width, h = j->src->height;
    const int32_t c = j->src->channels, r = p->radius, nr = 2 * r + 1;
    const int64_t pp = w + 2 * r, pw = pp * c; /* a padded plane, a padded row */
    uint8_t *pad = malloc((size_t)(pw * nr));
    int64_t *tag = malloc((size_t)nr * sizeof *tag);
    const uint8_t **rowp = malloc((size_t)nr * sizeof *rowp);
    const uint8_t **qk = malloc((size_t)p->ntaps * sizeof *qk); /* each tap's row pointer */
    float *sum = malloc((size_t)(w * c) * sizeof *sum), *wsum = malloc((size_t)w * sizeof *wsum);
    if (!pad || !tag || !rowp || !qk || !sum || !wsum) {
        free(pad);
        free(tag);
        free(rowp);
        free(qk);
        free(sum);
        free(wsum);
        atomic_store(&j->failed, 1);
        return;
    }
    for (int32_t i = 0; i < nr; i++)
        tag[i] = INT64_MIN;
#ifdef BIL_HAVE_AVX2
    const int avx2 = (gip__simd() & GIP__SIMD_AVX2) != 0;
#endif
    for (int64_t y = y0; y < y1; y++) {
        /* the padded row of source row u (unclamped) stays in slot u mod nr while the window
         * slides down, so each is built once per band */
        for (int32_t i = 0; i < nr; i++) {
            const int64_t u = y + i - r, slot = ((u % nr) + nr) % nr;
            uint8_t *q = pad + slot * pw;
            rowp[i] = q;
            if (tag[slot] == u)
                continue;
            tag[slot] = u;
            const int64_t sy = gip__border_index(u, h, p->border);
            const uint8_t *s = sy < 0 ? NULL : (const uint8_t *)j->src->data + sy * j->src->stride;
            if (!s) {
                memset(q, 0, (size_t)pw);
                continue;
            }
            if (c == 1) {
                memcpy(q + r, s, (size_t)w);
                for (int32_t e = 0; e < 2 * r; e++) { /* the r border pixels on each side */
                    const int64_t x = e < r ? e : w + e;
                    q[x] = j->xmap[x] >= 0 ? s[j->xmap[x]] : 0;
                }
            } else { /* planar: channel ch at q + ch * pp */
                uint8_t *q0 = q + r, *q1 = q + pp + r, *q2 = q + 2 * pp + r;
                for (int64_t x = 0; x < w; x++) /* the row itself */
                    q0[x] = s[3 * x], q1[x] = s[3 * x + 1], q2[x] = s[3 * x + 2];
                for (int32_t e = 0; e < 2 * r; e++) { /* the r border pixels on each side */
                    const int64_t x = e < r ? e : w + e;
                    for (int32_t ch = 0; ch < 3; ch++)
                        q[ch * pp + x] = j->xmap[x] >= 0 ? s[(int64_t)j->xmap[x] * 3 + ch] : 0;
                }
            }
        }
        const uint8_t *s0 = rowp[r] + r;
        for (int32_t k = 0; k < p->ntaps; k++)
            qk[k] = rowp[p->dy[k] + r] + p->dx[k] + r;
        int64_t xs = 0; /* the pixels the AVX2 loop leaves (it stores their sums whole) */
#ifdef BIL_HAVE_AVX2
        if (avx2)
            xs = row_avx2(qk, p->ntaps, p->space, s0, pp, c, p->color, sum, wsum, w);
#endif
        for (int32_t ch = 0; ch < c; ch++)
            memset(sum + ch * w + xs, 0, (size_t)(w - xs) * sizeof *sum);
        memset(wsum + xs, 0, (size_t)(w - xs) * sizeof *wsum);
        /* the rest a chunk at a time, tap by tap, so that its sums stay in L1 across the taps */
        for (int64_t x0 = xs; x0 < w; x0 += BIL_CHUNK) {
            const int64_t x1 = x0 + BIL_CHUNK < w ? x0 + BIL_CHUNK : w;
            for (int32_t k = 0; k < p->ntaps; k++) {
                const uint8_t *q = qk[k];
                const float sw = p->space[k];
                if (c == 1) {
                    for (int64_t x = x0; x < x1; x++) {
                        const float wk = sw * p->color[abs((int32_t)q[x] - (int32_t)s0[x])];
                        sum[x] += (float)q[x] * wk;
                        wsum[x] += wk;
                    }
                } else {
                    const uint8_t *q1 = q + pp, *q2 = q + 2 * pp, *s1 = s0 + pp, *s2 = s0 + 2 * pp;
                    float *sum1 = sum + w, *sum2 = sum + 2 * w;
                    for (int64_t x = x0; x < x1; x++) {
                        const int32_t diff = abs((int32_t)q[x] - (int32_t)s0[x]) +
                                             abs((int32_t)q1[x] - (int32_t)s1[x]) +
                                             abs((int32_t)q2[x] - (int32_t)s2[x]);
                        const float wk = sw * p->color[diff];
                        sum[x] += (float)q[x] * wk;
                        sum1[x] += (float)q1[x] * wk;
                        sum2[x] += (float)q2[x] * wk;
                        wsum[x] += wk;
                    }
                }
            }
        }
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        int64_t xo = 0; /* the pixels the AVX2 loop leaves */
#ifdef BIL_HAVE_AVX2
        if (avx2)
            xo = out_avx2(sum, wsum, w, c, d);
#endif
        for (int64_t x = xo; x < w; x++) {
            const float inv = 1.0f / wsum[x];
            for (int32_t ch = 0; ch < c; ch++)
                d[x * c + ch] = gip__sat_u8_i32(gip__round_f32(sum[ch * w + x] * inv));
        }
    }
    free(pad);
    free(tag);
    free(rowp);
    free(qk);
    free(sum);
    free(wsum);
}

static void rows_f32(void *arg, int64_t y0, int64_t y1)
{
    bil_job *j = arg;
    const gip__bilateral_plan *p = j->p;
    const int64_t w = j->src->width, h = j->src->height;
    const int32_t c = j->src->channels, r = p->radius;
    const float **rows = malloc((size_t)(2 * r + 1) * sizeof *rows);
    float *zero = calloc((size_t)(w + 2 * r) * (size_t)c, sizeof *zero);
    if (!rows || !zero) {
        free(rows);
        free(zero);
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t y = y0; y < y1; y++) {
        for (int32_t i = -r; i <= r; i++) {
            const int64_t sy = gip__border_index(y + i, h, p->border);
            rows[i + r] =
                sy < 0 ? NULL
                       : (const float *)((const uint8_t *)j->src->data + sy * j->src->stride);
        }
        float *d = (float *)((uint8_t *)j->dst->data + y * j->dst->stride);
        const float *s0 = rows[r];
        for (int64_t x = 0; x < w; x++) {
            float sum[3] = {0, 0, 0}, wsum = 0;
            for (int32_t k = 0; k < p->ntaps; k++) {
                const float *row = rows[p->dy[k] + r];
                const int32_t sx = j->xmap[x + p->dx[k] + r];
                const float *px = row && sx >= 0 ? row + (int64_t)sx * c : zero;
                float diff = 0;
                for (int32_t ch = 0; ch < c; ch++)
                    diff += fabsf(px[ch] - s0[x * c + ch]);
                const float wk = p->space[k] * expf(diff * diff * p->color_coeff);
                for (int32_t ch = 0; ch < c; ch++)
                    sum[ch] += px[ch] * wk;
                wsum += wk;
            }
            const float inv = 1.0f / wsum;
            for (int32_t ch = 0; ch < c; ch++)
                d[x * c + ch] = sum[ch] * inv;
        }
    }
    free(rows);
    free(zero);
}

gip_status gip_bilateral_filter(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const gip_bilateral_params *params)
{
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT(GIP_U8) | GIP__DT(GIP_F32), OP, "src")))
        return st;
    if (src->channels != 1 && src->channels != 3)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src has %d channels; 1 or 3 are accepted (as cv2)", OP,
                          (int)src->channels);
    if ((st = gip__check_same_type(ctx, src, dst, OP)))
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", OP);
    if (!isfinite(params->sigma_color) || !isfinite(params->sigma_space))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: sigmas must be finite numbers", OP);
    if ((unsigned)params->border > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: unknown border mode %d: reflect101, reflect, replicate, constant "
                          "or wrap",
                          OP, (int)params->border);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    const double sc = params->sigma_color > 0 ? params->sigma_color : 1;
    const double ss = params->sigma_space > 0 ? params->sigma_space : 1;
    const double rd = params->d > 0 ? params->d / 2 : nearbyint(ss * 1.5);
    if (rd > 127)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: radius %.0f (d %d, sigma_space %g) is too large: 127 at most", OP,
                          rd, (int)params->d, ss);
    gip__bilateral_plan p = {.radius = rd < 1 ? 1 : (int32_t)rd, .border = params->border};
    const int32_t r = p.radius, n = (2 * r + 1) * (2 * r + 1);
    p.dx = malloc((size_t)n * sizeof *p.dx);
    p.dy = malloc((size_t)n * sizeof *p.dy);
    p.space = malloc((size_t)n * sizeof *p.space);
    int32_t *xmap = NULL;
    if (!p.dx || !p.dy || !p.space) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", OP);
        goto out_free;
    }
    const double gc = -0.5 / (sc * sc), gs = -0.5 / (ss * ss);
    for (int32_t i = 0; i < 256 * src->channels; i++)
        p.color[i] = (float)exp((double)i * i * gc);
    p.color_coeff = (float)gc;
    for (int32_t i = -r; i <= r; i++)
        for (int32_t k = -r; k <= r; k++) {
            const double dist = sqrt((double)i * i + (double)k * k);
            if (dist > r)
                continue;
            p.space[p.ntaps] = (float)exp(dist * dist * gs);
            p.dx[p.ntaps] = k;
            p.dy[p.ntaps] = i;
            p.ntaps++;
        }
    if (on_device) {
        st = GIP__CUDA_CALL(ctx, OP, gip__bilateral_cuda(ctx, &p, src, dst));
        goto out_free;
    }
    if (!(xmap = gip__border_map(src->width + 2 * r, r, src->width, p.border))) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", OP);
        goto out_free;
    }
    bil_job j = {.p = &p, .src = src, .dst = dst, .xmap = xmap};
    atomic_init(&j.failed, 0);
    gip__parallel_for(ctx, src->height, 2, src->dtype == GIP_U8 ? rows_u8 : rows_f32, &j);
    if (atomic_load(&j.failed))
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory for row buffers", OP);
out_free:
    free(p.dx);
    free(p.dy);
    free(p.space);
    free(xmap);
    return st;
}

static const gip_param decl[] = {
    GIP__PARAM_EX(
        "d", GIP_PARAM_INT, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1, 255, 0, NULL, NULL,
        "the window's diameter (its radius d/2, at least 1); <= 0: from sigma_space", "9"),
    GIP__PARAM_EX("sigma_color", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e30,
                  1e30, 0, NULL, NULL, "the value difference of half weight, about (<= 0 means 1)",
                  "75"),
    GIP__PARAM_EX("sigma_space", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e30,
                  1e30, 0, NULL, NULL, "the spatial Gaussian's sigma (<= 0 means 1)", "75"),
    GIP__PARAM("border", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__border_choices, "reflect101",
               "how pixels outside the image are made (constant: 0, as cv2)"),
};

static gip_status build(const gip_args *a, void *out)
{
    gip_bilateral_params *p = out;
    p->d = (int32_t)gip_args_int(a, "d");
    p->sigma_color = gip_args_double(a, "sigma_color");
    p->sigma_space = gip_args_double(a, "sigma_space");
    p->border = (gip_border)gip_args_int(a, "border");
    const double ss = p->sigma_space > 0 ? p->sigma_space : 1;
    if (p->d <= 0 && nearbyint(ss * 1.5) > 127)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "bilateral: sigma_space %g makes a radius above 127; give d", ss);
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_bilateral_params *p = params;
    const double ss = p->sigma_space > 0 ? p->sigma_space : 1;
    const int64_t r = p->d > 0 ? p->d / 2 : (int64_t)nearbyint(ss * 1.5);
    *hx = *hy = r < 1 ? 1 : r;
}

static int32_t border(const void *params)
{
    return (int32_t)((const gip_bilateral_params *)params)->border;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_bilateral_filter(ctx, src, dst, p);
}

const gip_op gip__op_bilateral = {
    .name = "bilateral",
    .family = "filter",
    .summary = "Edge-preserving bilateral filter, as cv2.bilateralFilter.",
    .doc = "The mean over a disc weighted by distance (sigma_space) and by value difference "
           "(sigma_color), with OpenCV's taps and weight tables: u8 results identical on CPU "
           "and CUDA and within one level of cv2.bilateralFilter's; f32 within 1e-3 of the "
           "value range. 1 or 3 channels, as cv2.",
    .cv_name = "cv2.bilateralFilter",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3),
    .params_size = sizeof(gip_bilateral_params),
    .build = build,
    .halo = halo,
    .border = border,
    .run = run,
};
