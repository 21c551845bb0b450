/* SPDX-License-Identifier: MIT */
/* The statistics family on CUDA: the per-context workspace, the per-channel reduction (one
 * launch, the blocks' partials folded by the last block in a fixed order: the same input gives
 * the same result every run), the histogram counter (integer atomics, in shared memory for small
 * histograms, written to the host or, for a histogram in device memory, to the device). */
#include <pthread.h>
#include <string.h>

#include "cuda_util.cuh"
#include "ops/stats/stats.h"

/* ---- the per-context workspace ---------------------------------------------------------- */

typedef struct ws_entry {
    const gip_context *ctx;
    gip__stats_ws ws;
    struct ws_entry *next;
} ws_entry;

static pthread_mutex_t ws_lock = PTHREAD_MUTEX_INITIALIZER;
static ws_entry *ws_list;

static void ws_release(gip_context *ctx)
{
    pthread_mutex_lock(&ws_lock);
    for (ws_entry **pp = &ws_list; *pp;) {
        ws_entry *e = *pp;
        if (e->ctx == ctx) {
            gip__cuda_free(ctx, e->ws.dev);
            gip__cuda_release_pinned(e->ws.host);
            *pp = e->next;
            free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&ws_lock);
}

extern "C" gip_status gip__stats_ws_get(gip_context *ctx, gip__stats_ws *ws)
{
    gip_status st = GIP_OK;
    int sms = 0;
    pthread_mutex_lock(&ws_lock);
    ws_entry *e = ws_list;
    while (e && e->ctx != ctx)
        e = e->next;
    if (e) {
        *ws = e->ws;
        goto out_unlock;
    }
    if ((st = gip__context_on_release(ctx, ws_release)))
        goto out_unlock;
    if (!(e = (ws_entry *)calloc(1, sizeof *e))) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "statistics workspace: out of host memory");
        goto out_unlock;
    }
    e->ctx = ctx;
    if ((st = gip__cuda_malloc(ctx, GIP__STATS_WS_DEV, (void **)&e->ws.dev)))
        goto out_free_entry;
    if ((st = gip__cuda_status(
             ctx, cudaMemsetAsync(e->ws.dev, 0, GIP__STATS_WS_RESULT, gip__stream(ctx)),
             "cudaMemsetAsync (statistics counters)")))
        goto out_free_dev;
    if ((st = gip__cuda_status(ctx,
                               cudaMemsetAsync(e->ws.dev + GIP__STATS_WS_ACC, 0,
                                               GIP__STATS_WS_ACC_BYTES, gip__stream(ctx)),
                               "cudaMemsetAsync (histogram accumulator)")))
        goto out_free_dev;
    if ((st = gip__cuda_malloc_pinned(ctx, GIP__STATS_WS_HOST, &e->ws.host)))
        goto out_free_dev;
    /* page-locked memory is mapped where the device can (unified addressing) */
    if (cudaHostGetDevicePointer(&e->ws.host_dev, e->ws.host, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        e->ws.host_dev = NULL;
    }
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device) != cudaSuccess) {
        (void)cudaGetLastError();
        sms = 0;
    }
    e->ws.sms = sms > 0 ? sms : 16;
    e->next = ws_list;
    ws_list = e;
    *ws = e->ws;
    goto out_unlock;
out_free_dev:
    gip__cuda_free(ctx, e->ws.dev);
out_free_entry:
    free(e);
out_unlock:
    pthread_mutex_unlock(&ws_lock);
    return st;
}

/* ---- reduction -------------------------------------------------------------------------
 * One launch per call: each block folds its threads' partials in a fixed tree and writes them
 * to the workspace; the last block to finish folds the blocks' partials (thread t takes blocks
 * t, t + blockDim, ... in order, then the same tree) into the result and sets the counter back
 * to zero. The grid depends only on the image and the device, so the same input gives the same
 * result every run. Unmasked u8 images of 1, 3 or 4 channels and f32 one-channel images whose
 * rows are 16-byte aligned read 16-byte vectors (groups of 16 u8 pixels, 4 u8x4 or 4 f32
 * pixels), the rest take the generic kernel, one pixel per thread. */

#define RED_THREADS 128
#define FAST_THREADS 256
#define RED_MAX_WARPS 8

static_assert(sizeof(gip__red) <= GIP__STATS_WS_PART_BYTES, "partials fit the workspace");

__device__ __forceinline__ void ch_init(gip__red_ch &c)
{
    c.is = c.iq = c.ia = 0;
    c.fs = c.fq = c.fa = 0.0;
    c.mn = __longlong_as_double(0x7ff0000000000000LL);             /* +inf */
    c.mx = __longlong_as_double((long long)0xfff0000000000000ULL); /* -inf */
    c.imn = c.imx = -1;
    c.nz = 0;
}

/* Folds y into x; ties keep the smaller pixel index, so the order of folding does not matter
 * for positions, and the fixed tree fixes it for the float sums. */
__device__ __forceinline__ void ch_fold(gip__red_ch &x, const gip__red_ch &y)
{
    x.is += y.is;
    x.iq += y.iq;
    x.ia += y.ia;
    x.fs = __dadd_rn(x.fs, y.fs);
    x.fq = __dadd_rn(x.fq, y.fq);
    x.fa = __dadd_rn(x.fa, y.fa);
    x.nz += y.nz;
    if (y.imn >= 0 && (x.imn < 0 || y.mn < x.mn || (y.mn == x.mn && y.imn < x.imn))) {
        x.mn = y.mn;
        x.imn = y.imn;
    }
    if (y.imx >= 0 && (x.imx < 0 || y.mx > x.mx || (y.mx == x.mx && y.imx < x.imx))) {
        x.mx = y.mx;
        x.imx = y.imx;
    }
}

__device__ __forceinline__ long long shfl_ll(long long v, int o)
{
    return __shfl_down_sync(0xffffffffu, v, o);
}

__device__ __forceinline__ double shfl_d(double v, int o)
{
    return __shfl_down_sync(0xffffffffu, v, o);
}

__device__ __forceinline__ gip__red_ch ch_shfl_down(const gip__red_ch &c, int o)
{
    gip__red_ch r;
    r.is = shfl_ll(c.is, o);
    r.iq = shfl_ll(c.iq, o);
    r.ia = shfl_ll(c.ia, o);
    r.fs = shfl_d(c.fs, o);
    r.fq = shfl_d(c.fq, o);
    r.fa = shfl_d(c.fa, o);
    r.mn = shfl_d(c.mn, o);
    r.mx = shfl_d(c.mx, o);
    r.imn = shfl_ll(c.imn, o);
    r.imx = shfl_ll(c.imx, o);
    r.nz = shfl_ll(c.nz, o);
    return r;
}

/* A partial written by another block of this launch: read through L2. */
__device__ __forceinline__ gip__red_ch ch_load(const gip__red_ch *p)
{
    gip__red_ch r;
    r.is = __ldcg((const long long *)&p->is);
    r.iq = __ldcg((const long long *)&p->iq);
    r.ia = __ldcg((const long long *)&p->ia);
    r.fs = __ldcg(&p->fs);
    r.fq = __ldcg(&p->fq);
    r.fa = __ldcg(&p->fa);
    r.mn = __ldcg(&p->mn);
    r.mx = __ldcg(&p->mx);
    r.imn = __ldcg((const long long *)&p->imn);
    r.imx = __ldcg((const long long *)&p->imx);
    r.nz = __ldcg((const long long *)&p->nz);
    return r;
}

/* Folds every thread's acc and count into thread 0's (a fixed tree: lanes, then warps). */
template <int CN>
__device__ __forceinline__ void block_fold(gip__red_ch (&acc)[CN], long long &count,
                                           gip__red_ch *sh, long long *shc)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        count += shfl_ll(count, o);
#pragma unroll
        for (int c = 0; c < CN; c++)
            ch_fold(acc[c], ch_shfl_down(acc[c], o));
    }
    if (lane == 0) {
        shc[warp] = count;
#pragma unroll
        for (int c = 0; c < CN; c++)
            sh[warp * CN + c] = acc[c];
    }
    __syncthreads();
    if (warp == 0) {
        count = lane < nw ? shc[lane] : 0;
#pragma unroll
        for (int c = 0; c < CN; c++) {
            if (lane < nw)
                acc[c] = sh[lane * CN + c];
            else
                ch_init(acc[c]);
        }
#pragma unroll
        for (int o = RED_MAX_WARPS / 2; o > 0; o >>= 1) {
            count += shfl_ll(count, o);
#pragma unroll
            for (int c = 0; c < CN; c++)
                ch_fold(acc[c], ch_shfl_down(acc[c], o));
        }
    }
}

/* The end of every reduction kernel: the block's partial to parts[blockIdx.x]; the last block
 * folds them all into *result and sets *counter back to zero. */
template <int CN>
__device__ __forceinline__ void red_finish(gip__red_ch (&acc)[CN], long long count, gip__red *parts,
                                           unsigned *counter, gip__red *result)
{
    __shared__ gip__red_ch sh[RED_MAX_WARPS * CN];
    __shared__ long long shc[RED_MAX_WARPS];
    __shared__ bool last;
    block_fold<CN>(acc, count, sh, shc);
    if (threadIdx.x == 0) {
        parts[blockIdx.x].count = count;
#pragma unroll
        for (int c = 0; c < CN; c++)
            parts[blockIdx.x].ch[c] = acc[c];
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    count = 0;
#pragma unroll
    for (int c = 0; c < CN; c++)
        ch_init(acc[c]);
    for (unsigned k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
        count += __ldcg((const long long *)&parts[k].count);
#pragma unroll
        for (int c = 0; c < CN; c++)
            ch_fold(acc[c], ch_load(&parts[k].ch[c]));
    }
    block_fold<CN>(acc, count, sh, shc);
    if (threadIdx.x == 0) {
        result->count = count;
#pragma unroll
        for (int c = 0; c < CN; c++)
            result->ch[c] = acc[c];
        *counter = 0;
    }
}

/* Any dtype, channel count, mask and difference: one pixel per thread, rows by blocks. */
template <typename T, int CN>
__global__ void __launch_bounds__(RED_THREADS)
    reduce_kernel(const char *a, int64_t as, const char *b, int64_t bs, const unsigned char *m,
                  int64_t ms, int64_t w, int64_t h, gip__red *parts, unsigned *counter,
                  gip__red *result)
{
    constexpr bool FL = gip__dtype_of<T>::value == GIP_F32;
    gip__red_ch acc[CN];
    for (int c = 0; c < CN; c++)
        ch_init(acc[c]);
    long long count = 0;
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const T *ra = reinterpret_cast<const T *>(a + y * as);
        const T *rb = b ? reinterpret_cast<const T *>(b + y * bs) : nullptr;
        const unsigned char *rm = m ? m + y * ms : nullptr;
        for (int64_t x = threadIdx.x; x < w; x += RED_THREADS) {
            if (rm && !rm[x])
                continue;
            count++;
            const int64_t idx = y * w + x;
#pragma unroll
            for (int c = 0; c < CN; c++) {
                gip__red_ch &s = acc[c];
                double v;
                if (FL) {
                    float f = (float)ra[x * CN + c];
                    if (rb)
                        f = __fsub_rn(f, (float)rb[x * CN + c]);
                    v = (double)f;
                    s.fs = __dadd_rn(s.fs, v);
                    s.fq = __dadd_rn(s.fq, __dmul_rn(v, v));
                    s.fa = __dadd_rn(s.fa, fabs(v));
                } else {
                    long long iv = (long long)ra[x * CN + c];
                    if (rb)
                        iv -= (long long)rb[x * CN + c];
                    s.is += iv;
                    s.iq += iv * iv;
                    s.ia += iv < 0 ? -iv : iv;
                    v = (double)iv;
                }
                s.nz += v != 0.0;
                /* the first non-NaN value, then strictly better ones (the CPU's rule) */
                if (v < s.mn || (s.imn < 0 && v == v)) {
                    s.mn = v;
                    s.imn = idx;
                }
                if (v > s.mx || (s.imx < 0 && v == v)) {
                    s.mx = v;
                    s.imx = idx;
                }
            }
        }
    }
    red_finish<CN>(acc, count, parts, counter, result);
}

/* The mask of the bytes of word j of a group that hold channel c (element 4 j + l of the group
 * is channel (4 j + l) % CN: groups start at a multiple of CN elements). */
template <int CN> __device__ __forceinline__ constexpr unsigned chmask(int j, int c)
{
    return (((4 * j + 0) % CN == c) ? 0xffu : 0u) | (((4 * j + 1) % CN == c) ? 0xff00u : 0u) |
           (((4 * j + 2) % CN == c) ? 0xff0000u : 0u) |
           (((4 * j + 3) % CN == c) ? 0xff000000u : 0u);
}

__device__ __forceinline__ unsigned byte_of(unsigned w, int l)
{
    return (w >> (8 * l)) & 0xffu;
}

/* Unmasked u8 images of CN = 1, 3 or 4 channels, rows 16-byte aligned. The work items are, row
 * after row, the row's groups of 16 * NV bytes (P pixels) and then, where the row has bytes left,
 * one item for them: a thread's items come in pixel order, so a strictly better extreme is the
 * first one. Sums of bytes and squares by dp4a, extremes by byte-wise min/max; a group that
 * improves an extreme is searched for the first pixel that holds it. */
template <int CN>
__global__ void __launch_bounds__(FAST_THREADS)
    reduce_u8_fast(const unsigned char *a, int64_t as, int64_t w, unsigned gpr, unsigned ipr,
                   unsigned n, gip__red *parts, unsigned *counter, gip__red *result)
{
    constexpr int NV = CN == 3 ? 3 : 1; /* uint4 per group */
    constexpr int NW = 4 * NV;          /* words per group */
    constexpr int P = 16 * NV / CN;     /* pixels per group */
    constexpr int NP = CN == 3 ? 3 : 1; /* distinct channel patterns of the words */
    unsigned long long S[CN], Q[CN], Z[CN];
    int mn[CN], mx[CN];
    long long imn[CN], imx[CN];
#pragma unroll
    for (int c = 0; c < CN; c++) {
        S[c] = Q[c] = Z[c] = 0;
        mn[c] = 256;
        mx[c] = -1;
        imn[c] = imx[c] = -1;
    }
    long long count = 0;
    /* one group: its words, the pixel index of its first pixel */
    auto group = [&](const unsigned(&wd)[NW], long long base) {
        count += P;
        unsigned lo[NP], hi[NP];
#pragma unroll
        for (int j = 0; j < NW; j++) {
            if (j < NP) {
                lo[j] = hi[j] = wd[j];
            } else {
                lo[j % NP] = __vminu4(lo[j % NP], wd[j]);
                hi[j % NP] = __vmaxu4(hi[j % NP], wd[j]);
            }
        }
#pragma unroll
        for (int c = 0; c < CN; c++) {
            unsigned s = 0, q = 0, z = 0;
#pragma unroll
            for (int j = 0; j < NW; j++) {
                const unsigned mk = chmask<CN>(j, c);
                if (!mk)
                    continue;
                const unsigned v = mk == 0xffffffffu ? wd[j] : wd[j] & mk;
                s = __dp4a(v, 0x01010101u, s);
                q = __dp4a(v, v, q);
                z += __popc(__vcmpne4(v, 0u));
            }
            S[c] += s;
            Q[c] += q;
            Z[c] += z >> 3;
            int cmin = 255, cmax = 0;
#pragma unroll
            for (int p = 0; p < NP; p++)
#pragma unroll
                for (int l = 0; l < 4; l++)
                    if ((4 * p + l) % CN == c) {
                        cmin = min(cmin, (int)byte_of(lo[p], l));
                        cmax = max(cmax, (int)byte_of(hi[p], l));
                    }
            if (cmin < mn[c]) {
                int k = -1;
#pragma unroll
                for (int e = c; e < 4 * NW; e += CN)
                    if (k < 0 && (int)byte_of(wd[e >> 2], e & 3) == cmin)
                        k = e / CN;
                mn[c] = cmin;
                imn[c] = base + k;
            }
            if (cmax > mx[c]) {
                int k = -1;
#pragma unroll
                for (int e = c; e < 4 * NW; e += CN)
                    if (k < 0 && (int)byte_of(wd[e >> 2], e & 3) == cmax)
                        k = e / CN;
                mx[c] = cmax;
                imx[c] = base + k;
            }
        }
    };
    /* the rest of row y, from pixel x0 */
    auto rest = [&](unsigned y, int64_t x0) {
        const unsigned char *row = a + (int64_t)y * as;
        for (int64_t x = x0; x < w; x++) {
            count++;
#pragma unroll
            for (int c = 0; c < CN; c++) {
                const int v = row[x * CN + c];
                S[c] += v;
                Q[c] += v * v;
                Z[c] += v != 0;
                if (v < mn[c]) {
                    mn[c] = v;
                    imn[c] = (long long)y * w + x;
                }
                if (v > mx[c]) {
                    mx[c] = v;
                    imx[c] = (long long)y * w + x;
                }
            }
        }
    };
    /* U items in flight a thread (i, i + T, ...: still in pixel order) */
    constexpr int U = NV == 1 ? 2 : 1;
    const unsigned T = gridDim.x * blockDim.x;
    for (unsigned i0 = blockIdx.x * blockDim.x + threadIdx.x; i0 < n; i0 += U * T) {
        unsigned wd[U][NW], yy[U], gg[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const unsigned i = i0 + u * T;
            yy[u] = i < n ? i / ipr : 0;
            gg[u] = i < n ? i - yy[u] * ipr : gpr;
            if (i < n && gg[u] < gpr) {
                const uint4 *src =
                    reinterpret_cast<const uint4 *>(a + (int64_t)yy[u] * as) + (size_t)gg[u] * NV;
#pragma unroll
                for (int v = 0; v < NV; v++) {
                    const uint4 q = __ldg(src + v);
                    wd[u][4 * v] = q.x;
                    wd[u][4 * v + 1] = q.y;
                    wd[u][4 * v + 2] = q.z;
                    wd[u][4 * v + 3] = q.w;
                }
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (i0 + u * T >= n)
                break;
            if (gg[u] < gpr)
                group(wd[u], (long long)yy[u] * w + (long long)gg[u] * P);
            else
                rest(yy[u], (int64_t)gpr * P);
        }
    }
    gip__red_ch acc[CN];
#pragma unroll
    for (int c = 0; c < CN; c++) {
        ch_init(acc[c]);
        acc[c].is = acc[c].ia = (long long)S[c];
        acc[c].iq = (long long)Q[c];
        acc[c].nz = (long long)Z[c];
        if (imn[c] >= 0) {
            acc[c].mn = (double)mn[c];
            acc[c].imn = imn[c];
        }
        if (imx[c] >= 0) {
            acc[c].mx = (double)mx[c];
            acc[c].imx = imx[c];
        }
    }
    red_finish<CN>(acc, count, parts, counter, result);
}

/* f32 one-channel rows, 16-byte aligned: items of 4 pixels (a float4), then the row's rest.
 * Sums in double, one pixel after another in the thread's order (no contraction); extremes as the
 * CPU takes them: the first non-NaN value, then strictly better ones. */
__device__ __forceinline__ void f32_take(float v, long long idx, double &s, double &q, double &fa,
                                         long long &z, float &mn, float &mx, long long &imn,
                                         long long &imx)
{
    const double d = (double)v;
    s = __dadd_rn(s, d);
    q = __dadd_rn(q, __dmul_rn(d, d));
    fa = __dadd_rn(fa, fabs(d));
    z += v != 0.0f;
    if (v < mn || (imn < 0 && v == v)) {
        mn = v;
        imn = idx;
    }
    if (v > mx || (imx < 0 && v == v)) {
        mx = v;
        imx = idx;
    }
}

__global__ void __launch_bounds__(FAST_THREADS)
    reduce_f32_fast(const unsigned char *a, int64_t as, int64_t w, unsigned gpr, unsigned ipr,
                    unsigned n, gip__red *parts, unsigned *counter, gip__red *result)
{
    double s = 0.0, q = 0.0, fa = 0.0;
    long long z = 0, imn = -1, imx = -1, count = 0;
    float mn = __int_as_float(0x7f800000), mx = __int_as_float((int)0xff800000u);
    auto group = [&](const float4 f, long long x0) {
        count += 4;
        const double d0 = (double)f.x, d1 = (double)f.y, d2 = (double)f.z, d3 = (double)f.w;
        s = __dadd_rn(__dadd_rn(__dadd_rn(__dadd_rn(s, d0), d1), d2), d3);
        q = __dadd_rn(q, __dmul_rn(d0, d0));
        q = __dadd_rn(q, __dmul_rn(d1, d1));
        q = __dadd_rn(q, __dmul_rn(d2, d2));
        q = __dadd_rn(q, __dmul_rn(d3, d3));
        fa = __dadd_rn(__dadd_rn(__dadd_rn(__dadd_rn(fa, fabs(d0)), fabs(d1)), fabs(d2)), fabs(d3));
        z += (f.x != 0.0f) + (f.y != 0.0f) + (f.z != 0.0f) + (f.w != 0.0f);
        /* fminf/fmaxf skip NaNs: NaN only when all four are */
        const float gmn = fminf(fminf(f.x, f.y), fminf(f.z, f.w));
        const float gmx = fmaxf(fmaxf(f.x, f.y), fmaxf(f.z, f.w));
        if (gmn < mn || (imn < 0 && gmn == gmn)) {
            /* the first of the four equal to it (0 and -0 compare equal: the first zero) */
            const int k = f.x == gmn ? 0 : f.y == gmn ? 1 : f.z == gmn ? 2 : 3;
            mn = k == 0 ? f.x : k == 1 ? f.y : k == 2 ? f.z : f.w;
            imn = x0 + k;
        }
        if (gmx > mx || (imx < 0 && gmx == gmx)) {
            const int k = f.x == gmx ? 0 : f.y == gmx ? 1 : f.z == gmx ? 2 : 3;
            mx = k == 0 ? f.x : k == 1 ? f.y : k == 2 ? f.z : f.w;
            imx = x0 + k;
        }
    };
    /* two items in flight a thread (i, i + T: still in pixel order) */
    const unsigned T = gridDim.x * blockDim.x;
    for (unsigned i0 = blockIdx.x * blockDim.x + threadIdx.x; i0 < n; i0 += 2 * T) {
        float4 f[2];
        unsigned yy[2], gg[2];
#pragma unroll
        for (int u = 0; u < 2; u++) {
            const unsigned i = i0 + u * T;
            yy[u] = i < n ? i / ipr : 0;
            gg[u] = i < n ? i - yy[u] * ipr : gpr;
            if (i < n && gg[u] < gpr)
                f[u] = __ldg(reinterpret_cast<const float4 *>(a + (int64_t)yy[u] * as) + gg[u]);
        }
#pragma unroll
        for (int u = 0; u < 2; u++) {
            if (i0 + u * T >= n)
                break;
            const long long base = (long long)yy[u] * w;
            if (gg[u] < gpr) {
                group(f[u], base + 4 * (long long)gg[u]);
            } else {
                const float *row = reinterpret_cast<const float *>(a + (int64_t)yy[u] * as);
                for (int64_t x = (int64_t)gpr * 4; x < w; x++) {
                    count++;
                    f32_take(row[x], base + x, s, q, fa, z, mn, mx, imn, imx);
                }
            }
        }
    }
    gip__red_ch acc[1];
    ch_init(acc[0]);
    acc[0].fs = s;
    acc[0].fq = q;
    acc[0].fa = fa;
    acc[0].nz = z;
    if (imn >= 0) {
        acc[0].mn = (double)mn;
        acc[0].imn = imn;
    }
    if (imx >= 0) {
        acc[0].mx = (double)mx;
        acc[0].imx = imx;
    }
    red_finish<1>(acc, count, parts, counter, result);
}

template <typename T>
static void launch_reduce(int cn, int grid, cudaStream_t s, const gip_image *a, const gip_image *b,
                          const gip_image *m, gip__red *parts, unsigned *ctr, gip__red *res)
{
    const char *ap = (const char *)a->data, *bp = b ? (const char *)b->data : nullptr;
    const unsigned char *mp = m ? (const unsigned char *)m->data : nullptr;
    const int64_t bs = b ? b->stride : 0, ms = m ? m->stride : 0;
    switch (cn) {
    case 1:
        reduce_kernel<T, 1><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts, ctr, res);
        break;
    case 2:
        reduce_kernel<T, 2><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts, ctr, res);
        break;
    case 3:
        reduce_kernel<T, 3><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts, ctr, res);
        break;
    default:
        reduce_kernel<T, 4><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts, ctr, res);
    }
}

/* The vector kernels' items for a (groups per row, items per row, all items), false where a
 * takes the generic kernel: a mask or a difference, another dtype or channel count, rows not
 * 16-byte aligned, or more items than 32-bit indices comfortably hold. */
static bool fast_items(const gip_image *a, const gip_image *b, const gip_image *mask, unsigned *gpr,
                       unsigned *ipr, unsigned *n)
{
    if (b || mask || ((uintptr_t)a->data | (uintptr_t)a->stride) % 16)
        return false;
    int64_t p; /* pixels per group */
    if (a->dtype == GIP_U8 && (a->channels == 1 || a->channels == 3))
        p = 16;
    else if (a->dtype == GIP_U8 && a->channels == 4)
        p = 4;
    else if (a->dtype == GIP_F32 && a->channels == 1)
        p = 4;
    else
        return false;
    const int64_t g = a->width / p, per_row = g + (a->width % p != 0);
    if (a->width < 1 || a->height < 1 || per_row > ((int64_t)1 << 30) / a->height)
        return false;
    *gpr = (unsigned)g;
    *ipr = (unsigned)per_row;
    *n = (unsigned)(per_row * a->height);
    return true;
}

extern "C" gip_status gip__reduce_cuda(gip_context *ctx, const gip_image *a, const gip_image *b,
                                       const gip_image *mask, gip__red *r)
{
    gip__stats_ws ws;
    gip_status st = gip__stats_ws_get(ctx, &ws);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    unsigned *ctr = (unsigned *)ws.dev + GIP__STATS_CTR_REDUCE;
    /* the result straight into the mapped host buffer where there is one, else downloaded */
    gip__red *res =
        ws.host_dev ? (gip__red *)ws.host_dev : (gip__red *)(ws.dev + GIP__STATS_WS_RESULT);
    gip__red *parts = (gip__red *)(ws.dev + GIP__STATS_WS_PARTS);
    unsigned gpr, ipr, n;
    if (fast_items(a, b, mask, &gpr, &ipr, &n)) {
        /* one wave: the one-channel kernels fit 4 blocks on a multiprocessor (64 registers a
         * thread), the 3- and 4-channel ones 2 (128) */
        const int64_t per_sm = a->channels == 1 ? 4 : 2;
        int64_t grid = gip__div_up(n, 2 * FAST_THREADS);
        if (grid > per_sm * ws.sms)
            grid = per_sm * ws.sms;
        if (grid > GIP__STATS_WS_BLOCKS)
            grid = GIP__STATS_WS_BLOCKS;
        const unsigned char *ap = (const unsigned char *)a->data;
        if (a->dtype == GIP_F32)
            reduce_f32_fast<<<(int)grid, FAST_THREADS, 0, s>>>(ap, a->stride, a->width, gpr, ipr, n,
                                                               parts, ctr, res);
        else if (a->channels == 1)
            reduce_u8_fast<1><<<(int)grid, FAST_THREADS, 0, s>>>(ap, a->stride, a->width, gpr, ipr,
                                                                 n, parts, ctr, res);
        else if (a->channels == 3)
            reduce_u8_fast<3><<<(int)grid, FAST_THREADS, 0, s>>>(ap, a->stride, a->width, gpr, ipr,
                                                                 n, parts, ctr, res);
        else
            reduce_u8_fast<4><<<(int)grid, FAST_THREADS, 0, s>>>(ap, a->stride, a->width, gpr, ipr,
                                                                 n, parts, ctr, res);
    } else {
        int64_t grid = a->height < GIP__STATS_WS_BLOCKS ? a->height : GIP__STATS_WS_BLOCKS;
        if (grid < 1)
            grid = 1;
        switch (a->dtype) {
        case GIP_U8:
            launch_reduce<uint8_t>(a->channels, (int)grid, s, a, b, mask, parts, ctr, res);
            break;
        case GIP_U16:
            launch_reduce<uint16_t>(a->channels, (int)grid, s, a, b, mask, parts, ctr, res);
            break;
        case GIP_S16:
            launch_reduce<int16_t>(a->channels, (int)grid, s, a, b, mask, parts, ctr, res);
            break;
        default:
            launch_reduce<float>(a->channels, (int)grid, s, a, b, mask, parts, ctr, res);
        }
    }
    st = GIP__LAUNCH_CHECK(ctx, "reduction kernel");
    if (!st && !ws.host_dev)
        st = gip__cuda_status(
            ctx, cudaMemcpyAsync(ws.host, res, sizeof(gip__red), cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (reduction result)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (reduction)");
    if (!st) {
        const gip__red *h = (const gip__red *)ws.host;
        gip__red_init(r);
        r->count = h->count;
        for (int c = 0; c < a->channels; c++)
            r->ch[c] = h->ch[c];
    }
    return st;
}

/* ---- histogram -------------------------------------------------------------------------- */

/* The bin plan in device memory (tables and edges uploaded, concatenated per dimension). */
struct dev_plan {
    int dims;
    int channel[3];
    int bins[3];
    long long stride[3];
    int non_uniform;
    double a[3], b[3], lo[3], hi[3];
    const int32_t *lut; /* dims tables of lut_n entries */
    int lut_n;
    const float *edges; /* dims runs of bins + 1 edges, at edge_off[d] */
    int edge_off[3];
};

/* gip__hist_bin_f32 with every rounding explicit (no contraction). */
__device__ __forceinline__ int bin_f32(const dev_plan &p, int d, float v)
{
    if (p.non_uniform) {
        const float *r = p.edges + p.edge_off[d];
        int idx = -1, sz = p.bins[d];
        while (v >= r[idx + 1] && ++idx < sz)
            ;
        return idx >= 0 && idx < sz ? idx : -1;
    }
    double v0 = (double)v;
    if (v0 < p.lo[d] || v0 >= p.hi[d])
        return -1;
    double t = __dadd_rn(__dmul_rn(v0, p.a[d]), p.b[d]);
    int idx;
    if (!(t > -2147483648.0 && t < 2147483647.0))
        idx = t <= -2147483648.0 ? 0 : p.bins[d] - 1;
    else {
        idx = (int)t;
        idx -= (double)idx > t;
    }
    return idx < 0 ? 0 : idx >= p.bins[d] ? p.bins[d] - 1 : idx;
}

template <typename T>
__device__ __forceinline__ long long flat_bin(const dev_plan &p, const T *row, int64_t x, int cn)
{
    long long idx = 0;
    for (int d = 0; d < p.dims; d++) {
        T v = row[x * cn + p.channel[d]];
        int b;
        if (gip__dtype_of<T>::value == GIP_F32)
            b = bin_f32(p, d, (float)v);
        else
            b = p.lut[d * p.lut_n + (int)v];
        if (b < 0)
            return -1;
        idx += (long long)b * p.stride[d];
    }
    return idx;
}

template <typename T, bool SHARED>
__global__ void hist_kernel(const char *src, int64_t ss, int cn, const unsigned char *m, int64_t ms,
                            int64_t w, int64_t h, dev_plan p, long long total, uint32_t *counts)
{
    extern __shared__ uint32_t sh[];
    if (SHARED) {
        for (long long i = threadIdx.x; i < total; i += blockDim.x)
            sh[i] = 0;
        __syncthreads();
    }
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const T *row = reinterpret_cast<const T *>(src + y * ss);
        const unsigned char *rm = m ? m + y * ms : nullptr;
        for (int64_t x = threadIdx.x; x < w; x += blockDim.x) {
            if (rm && !rm[x])
                continue;
            long long idx = flat_bin<T>(p, row, x, cn);
            if (idx < 0)
                continue;
            if (SHARED)
                atomicAdd(&sh[idx], 1u);
            else
                atomicAdd(&counts[idx], 1u);
        }
    }
    if (SHARED) {
        __syncthreads();
        for (long long i = threadIdx.x; i < total; i += blockDim.x)
            if (sh[i])
                atomicAdd(&counts[i], sh[i]);
    }
}

#define HIST_SHARED_BINS 12288

/* gip_calc_hist's floats in device memory from the counts: the count, or with accumulate the
 * old value rounded half to even plus the count (calc_hist.c's arithmetic). */
__global__ void hist_store_f32(const uint32_t *counts, long long total, float *hist, int accumulate)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const double n = (double)counts[i];
        hist[i] = __double2float_rn(accumulate ? __dadd_rn(rint((double)hist[i]), n) : n);
    }
}

template <typename T>
static void launch_hist(int grid, size_t smem, cudaStream_t s, const gip_image *src,
                        const gip_image *m, const dev_plan &p, long long total, uint32_t *counts)
{
    const unsigned char *mp = m ? (const unsigned char *)m->data : nullptr;
    const int64_t ms = m ? m->stride : 0;
    if (total <= HIST_SHARED_BINS)
        hist_kernel<T, true><<<grid, 256, smem, s>>>((const char *)src->data, src->stride,
                                                     src->channels, mp, ms, src->width, src->height,
                                                     p, total, counts);
    else
        hist_kernel<T, false><<<grid, 256, 0, s>>>((const char *)src->data, src->stride,
                                                   src->channels, mp, ms, src->width, src->height,
                                                   p, total, counts);
}

/* Counts src into counts (host, added to) or, where dev_hist is not NULL, into the device floats
 * dev_hist (hist_store_f32). */
static gip_status hist_count(gip_context *ctx, const gip_image *src, const gip_image *mask,
                             const gip__hist_plan *plan, uint32_t *counts, float *dev_hist,
                             bool accumulate)
{
    /* 256 bins of one u8 channel, bin = value: calc_hist_cuda.cu's kernel, no table */
    bool ident = src->dtype == GIP_U8 && !mask && plan->dims == 1 && plan->bins[0] == 256 &&
                 plan->total == 256 && plan->lut[0];
    for (int v = 0; ident && v < 256; v++)
        ident = plan->lut[0][v] == v;
    if (ident && dev_hist)
        return gip__calc_hist_u8_dev(ctx, src, plan->channel[0], dev_hist, accumulate);
    if (ident) {
        uint64_t h[256];
        gip_status st = gip__hist_u8_channel_cuda(ctx, src, plan->channel[0], h);
        if (!st)
            for (int v = 0; v < 256; v++)
                counts[v] += (uint32_t)h[v];
        return st;
    }
    cudaStream_t s = gip__stream(ctx);
    dev_plan p;
    memset(&p, 0, sizeof p);
    p.dims = plan->dims;
    p.non_uniform = plan->non_uniform;
    size_t lut_bytes = 0, edge_count = 0;
    p.lut_n = src->dtype == GIP_U8 ? 256 : src->dtype == GIP_U16 ? 65536 : 0;
    for (int d = 0; d < plan->dims; d++) {
        p.channel[d] = plan->channel[d];
        p.bins[d] = plan->bins[d];
        p.stride[d] = plan->stride[d];
        p.a[d] = plan->a[d];
        p.b[d] = plan->b[d];
        p.lo[d] = plan->lo[d];
        p.hi[d] = plan->hi[d];
        p.edge_off[d] = (int)edge_count;
        if (plan->non_uniform && src->dtype == GIP_F32)
            edge_count += (size_t)plan->bins[d] + 1;
    }
    lut_bytes = (size_t)plan->dims * p.lut_n * sizeof(int32_t);
    const size_t count_bytes = (size_t)plan->total * sizeof(uint32_t);
    const size_t edge_bytes = edge_count * sizeof(float);
    /* device: counts, tables, edges; page-locked host: the same layout, so that the tables and
     * edges go up in one asynchronous copy and the counts come down in another */
    const size_t bytes = count_bytes + lut_bytes + edge_bytes;
    char *dmem = nullptr, *host = nullptr;
    gip_status st = gip__cuda_malloc(ctx, bytes + 16, (void **)&dmem);
    if (st)
        return st;
    if ((st = gip__cuda_malloc_pinned(ctx, bytes + 16, (void **)&host))) {
        gip__cuda_free(ctx, dmem);
        return st;
    }
    uint32_t *dcounts = (uint32_t *)dmem;
    int32_t *dlut = (int32_t *)(dmem + count_bytes);
    float *dedges = (float *)(dmem + count_bytes + lut_bytes);
    for (int d = 0; d < plan->dims; d++) {
        if (p.lut_n)
            memcpy(host + count_bytes + (size_t)d * p.lut_n * sizeof(int32_t), plan->lut[d],
                   (size_t)p.lut_n * sizeof(int32_t));
        else if (plan->non_uniform && src->dtype == GIP_F32)
            memcpy(host + count_bytes + lut_bytes + (size_t)p.edge_off[d] * sizeof(float),
                   plan->edges[d], ((size_t)plan->bins[d] + 1) * sizeof(float));
    }
    st = gip__cuda_status(ctx, cudaMemsetAsync(dcounts, 0, count_bytes, s), "cudaMemsetAsync");
    if (!st && lut_bytes + edge_bytes)
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(dmem + count_bytes, host + count_bytes,
                                              lut_bytes + edge_bytes, cudaMemcpyHostToDevice, s),
                              "cudaMemcpyAsync (histogram tables)");
    p.lut = dlut;
    p.edges = dedges;
    if (!st) {
        const int grid = (int)(src->height < 1024 ? src->height : 1024);
        const size_t smem = (size_t)plan->total * sizeof(uint32_t);
        switch (src->dtype) {
        case GIP_U8:
            launch_hist<uint8_t>(grid, smem, s, src, mask, p, plan->total, dcounts);
            break;
        case GIP_U16:
            launch_hist<uint16_t>(grid, smem, s, src, mask, p, plan->total, dcounts);
            break;
        default:
            launch_hist<float>(grid, smem, s, src, mask, p, plan->total, dcounts);
        }
        st = GIP__LAUNCH_CHECK(ctx, "histogram kernel");
    }
    if (!st && dev_hist) {
        const int64_t blocks = gip__div_up(plan->total, 256);
        hist_store_f32<<<(int)(blocks < 1024 ? blocks : 1024), 256, 0, s>>>(
            dcounts, (long long)plan->total, dev_hist, accumulate);
        st = GIP__LAUNCH_CHECK(ctx, "histogram store kernel");
    } else if (!st) {
        st = gip__cuda_status(
            ctx, cudaMemcpyAsync(host, dcounts, count_bytes, cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (histogram)");
    }
    /* the page-locked block goes back to the cache only once no copy uses it (after an error
     * too, whose message stays the one the caller sees) */
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (histogram)");
    else if (cudaStreamSynchronize(s) != cudaSuccess)
        (void)cudaGetLastError();
    gip__cuda_free(ctx, dmem);
    if (!st && !dev_hist) {
        const uint32_t *hc = (const uint32_t *)host;
        for (int64_t i = 0; i < plan->total; i++)
            counts[i] += hc[i];
    }
    gip__cuda_free_pinned(host);
    return st;
}

extern "C" gip_status gip__hist_count_cuda(gip_context *ctx, const gip_image *src,
                                           const gip_image *mask, const gip__hist_plan *plan,
                                           uint32_t *counts)
{
    return hist_count(ctx, src, mask, plan, counts, nullptr, false);
}

extern "C" gip_status gip__hist_count_cuda_dev(gip_context *ctx, const gip_image *src,
                                               const gip_image *mask, const gip__hist_plan *plan,
                                               float *hist, bool accumulate)
{
    return hist_count(ctx, src, mask, plan, nullptr, hist, accumulate);
}
