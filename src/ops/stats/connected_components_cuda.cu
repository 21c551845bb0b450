/* SPDX-License-Identifier: MIT */
/* connectedComponents on CUDA: a union-find labelling in the manner of Playne and Hawick (each
 * node joins its earlier neighbours with atomicMin links from the larger root to the smaller),
 * over pixels for 4-connectivity and over 2x2 blocks for 8-connectivity, as the CPU. A set's
 * root is its smallest node index, which is where OpenCV's scan first meets the component, so
 * numbering the roots in index order (counts per chunk, scanned on the host) gives OpenCV's
 * labels, equal to the CPU's. */
#include <stdlib.h>

#include "cuda_util.cuh"
#include "ops/stats/stats.h"

#define CC_THREADS 256
#define CC_CHUNK 1024

struct cc_geom {
    const unsigned char *src;
    int64_t ss, w, h;
    int64_t bw, bh; /* nodes per row and rows of nodes: pixels (4) or blocks (8) */
    int conn;
};

static __device__ __forceinline__ bool px(const cc_geom &g, int64_t x, int64_t y)
{
    return x >= 0 && y >= 0 && x < g.w && y < g.h && g.src[y * g.ss + x] != 0;
}

static __device__ __forceinline__ bool node_fg(const cc_geom &g, int64_t nx, int64_t ny)
{
    if (g.conn == 4)
        return px(g, nx, ny);
    const int64_t x = 2 * nx, y = 2 * ny;
    return px(g, x, y) || px(g, x + 1, y) || px(g, x, y + 1) || px(g, x + 1, y + 1);
}

static __device__ __forceinline__ int find_root(const int *p, int i)
{
    const volatile int *vp = p;
    for (;;) {
        int q = vp[i];
        if (q == i)
            return i;
        i = q;
    }
}

static __device__ void unite(int *p, int a, int b)
{
    for (;;) {
        a = find_root(p, a);
        b = find_root(p, b);
        if (a == b)
            return;
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        int old = atomicMin(&p[b], a);
        if (old == b)
            return;
        b = old;
    }
}

static __global__ void cc_init(cc_geom g, int *p)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.bw * g.bh)
        return;
    p[i] = node_fg(g, i % g.bw, i / g.bw) ? (int)i : -1;
}

static __global__ void cc_merge(cc_geom g, int *p)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.bw * g.bh || p[i] < 0)
        return;
    const int64_t nx = i % g.bw, ny = i / g.bw;
    if (g.conn == 4) {
        if (px(g, nx - 1, ny))
            unite(p, (int)i, (int)(i - 1));
        if (px(g, nx, ny - 1))
            unite(p, (int)i, (int)(i - g.bw));
        return;
    }
    const int64_t x = 2 * nx, y = 2 * ny;
    const bool a = px(g, x, y), b = px(g, x + 1, y), c = px(g, x, y + 1);
    /* the blocks left, upper-left, above, upper-right, through the pixels that touch */
    if (nx && (a || c) && (px(g, x - 1, y) || px(g, x - 1, y + 1)))
        unite(p, (int)i, (int)(i - 1));
    if (ny) {
        if (nx && a && px(g, x - 1, y - 1))
            unite(p, (int)i, (int)(i - g.bw - 1));
        if ((a || b) && (px(g, x, y - 1) || px(g, x + 1, y - 1)))
            unite(p, (int)i, (int)(i - g.bw));
        if (nx + 1 < g.bw && b && px(g, x + 2, y - 1))
            unite(p, (int)i, (int)(i - g.bw + 1));
    }
}

static __global__ void cc_compress(int64_t n, int *p)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && p[i] >= 0)
        p[i] = find_root(p, (int)i);
}

/* Roots per chunk of CC_CHUNK nodes. */
static __global__ void cc_count(int64_t n, const int *p, int *counts)
{
    __shared__ int sh[CC_THREADS];
    int k = 0;
    const int64_t base = (int64_t)blockIdx.x * CC_CHUNK;
    for (int j = threadIdx.x; j < CC_CHUNK; j += CC_THREADS) {
        const int64_t i = base + j;
        k += i < n && p[i] == (int)i;
    }
    sh[threadIdx.x] = k;
    __syncthreads();
    for (int s = CC_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        counts[blockIdx.x] = sh[0];
}

/* rank[i] = 1 + the number of roots before root i (offsets: the chunks' exclusive sums). One
 * block per chunk; the chunk's roots are ranked in index order by a serial pass of one warp's
 * ballots. */
static __global__ void cc_rank(int64_t n, const int *p, const int *offsets, int *rank)
{
    const int64_t base = (int64_t)blockIdx.x * CC_CHUNK;
    if (threadIdx.x >= 32)
        return;
    int run = offsets[blockIdx.x];
    for (int j0 = 0; j0 < CC_CHUNK; j0 += 32) {
        const int64_t i = base + j0 + threadIdx.x;
        const bool root = i < n && p[i] == (int)i;
        const unsigned m = __ballot_sync(0xffffffffu, root);
        if (root)
            rank[i] = run + __popc(m & ((1u << threadIdx.x) - 1)) + 1;
        run += __popc(m);
    }
}

template <typename L>
static __global__ void cc_write(cc_geom g, const int *p, const int *rank, char *out, int64_t os)
{
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= g.w || y >= g.h)
        return;
    L v = 0;
    if (g.src[y * g.ss + x]) {
        const int64_t node = g.conn == 4 ? y * g.w + x : (y >> 1) * g.bw + (x >> 1);
        v = (L)rank[p[node]];
    }
    reinterpret_cast<L *>(out + y * os)[x] = v;
}

extern "C" gip_status gip__connected_components_cuda(gip_context *ctx, const gip_image *src,
                                                     int32_t connectivity, gip_array *labels,
                                                     int32_t *n_labels)
{
    cc_geom g = {
        (const unsigned char *)src->data, src->stride, src->width, src->height, 0, 0, connectivity};
    g.bw = connectivity == 4 ? g.w : (g.w + 1) / 2;
    g.bh = connectivity == 4 ? g.h : (g.h + 1) / 2;
    const int64_t n = g.bw * g.bh, chunks = (n + CC_CHUNK - 1) / CC_CHUNK;
    if (n >= INT32_MAX)
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "gip_connected_components: src is %lldx%lld; too large to label on the "
                          "GPU",
                          (long long)g.w, (long long)g.h);
    cudaStream_t s = gip__stream(ctx);
    int *p = nullptr, *rank = nullptr, *counts = nullptr;
    int *hc = (int *)malloc((size_t)chunks * sizeof(int) + 4);
    if (!hc)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "connected components: out of host memory");
    gip_status st = gip__cuda_malloc(ctx, (size_t)n * sizeof(int), (void **)&p);
    if (!st)
        st = gip__cuda_malloc(ctx, (size_t)n * sizeof(int), (void **)&rank);
    if (!st)
        st = gip__cuda_malloc(ctx, (size_t)chunks * sizeof(int), (void **)&counts);
    const unsigned grid = gip__div_up(n, CC_THREADS);
    if (!st) {
        cc_init<<<grid, CC_THREADS, 0, s>>>(g, p);
        st = GIP__LAUNCH_CHECK(ctx, "connected components init kernel");
    }
    if (!st) {
        cc_merge<<<grid, CC_THREADS, 0, s>>>(g, p);
        st = GIP__LAUNCH_CHECK(ctx, "connected components merge kernel");
    }
    if (!st) {
        cc_compress<<<grid, CC_THREADS, 0, s>>>(n, p);
        st = GIP__LAUNCH_CHECK(ctx, "connected components compress kernel");
    }
    if (!st) {
        cc_count<<<(unsigned)chunks, CC_THREADS, 0, s>>>(n, p, counts);
        st = GIP__LAUNCH_CHECK(ctx, "connected components count kernel");
    }
    if (!st)
        st = gip__cuda_status(
            ctx,
            cudaMemcpyAsync(hc, counts, (size_t)chunks * sizeof(int), cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (component counts)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (components)");
    int64_t total = 0;
    if (!st)
        for (int64_t k = 0; k < chunks; k++) {
            int c = hc[k];
            hc[k] = (int)total;
            total += c;
        }
    if (!st && labels->depth == GIP_DEPTH_U16 && total + 1 > 65536)
        st = gip__error(ctx, GIP_ERR_TOO_LARGE,
                        "gip_connected_components: %lld labels do not fit u16 labels; ask for s32 "
                        "labels",
                        (long long)(total + 1));
    if (!st)
        st = gip__cuda_status(
            ctx,
            cudaMemcpyAsync(counts, hc, (size_t)chunks * sizeof(int), cudaMemcpyHostToDevice, s),
            "cudaMemcpyAsync (component offsets)");
    if (!st) {
        cc_rank<<<(unsigned)chunks, 32, 0, s>>>(n, p, counts, rank);
        st = GIP__LAUNCH_CHECK(ctx, "connected components rank kernel");
    }
    if (!st) {
        const int64_t os = labels->stride ? labels->stride
                                          : labels->width * (int64_t)gip__depth_size(labels->depth);
        dim3 wg(gip__div_up(g.w, 256), (unsigned)g.h);
        if (labels->depth == GIP_DEPTH_S32)
            cc_write<int><<<wg, 256, 0, s>>>(g, p, rank, (char *)labels->data, os);
        else
            cc_write<unsigned short><<<wg, 256, 0, s>>>(g, p, rank, (char *)labels->data, os);
        st = GIP__LAUNCH_CHECK(ctx, "connected components write kernel");
    }
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (components)");
    gip__cuda_free(ctx, p);
    gip__cuda_free(ctx, rank);
    gip__cuda_free(ctx, counts);
    free(hc);
    if (!st)
        *n_labels = (int32_t)(total + 1);
    return st;
}
