/* SPDX-License-Identifier: MIT */
/* Canny's stages on CUDA after the derivatives: magnitudes (with the channel choice), suppression
 * into a map (0 none, 1 weak, 2 edge), hysteresis on the device, and the 0/255 output. The
 * hysteresis propagates edges to 8-connected weak pixels within 32x32 tiles in shared memory until
 * a tile is stable, writes back, and is launched again while any tile changed (a flag the host
 * reads every few launches); the fixed point is the closure the CPU's walk computes. */
#include "cuda_util.cuh"
#include "ops/filter/canny.h"

namespace
{

__global__ void mag_kernel(const char *dx, int64_t dxs, const char *dy, int64_t dys, int32_t w,
                           int32_t h, int32_t c, bool l2, int32_t *mag, int16_t *sdx, int16_t *sdy)
{
    const int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const int16_t *gx = gip__row<int16_t>(dx, dxs, y) + (int64_t)x * c;
        const int16_t *gy = gip__row<int16_t>(dy, dys, y) + (int64_t)x * c;
        int32_t best = gip__canny_mag(gx[0], gy[0], l2), bi = 0;
        for (int32_t k = 1; k < c; k++) {
            const int32_t m = gip__canny_mag(gx[k], gy[k], l2);
            if (m > best) {
                best = m;
                bi = k;
            }
        }
        const int64_t i = (int64_t)y * w + x;
        mag[i] = best;
        sdx[i] = gx[bi];
        sdy[i] = gy[bi];
    }
}

__device__ __forceinline__ int32_t mag_at(const int32_t *mag, int32_t w, int32_t h, int32_t x,
                                          int32_t y)
{
    return x < 0 || y < 0 || x >= w || y >= h ? 0 : mag[(int64_t)y * w + x];
}

__global__ void nms_kernel(const int32_t *mag, const int16_t *sdx, const int16_t *sdy, int32_t w,
                           int32_t h, int32_t low, int32_t high, uint8_t *map)
{
    const int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const int64_t i = (int64_t)y * w + x;
        const int32_t m = mag[i];
        uint8_t v = 0;
        if (m > low) {
            int32_t s = 1;
            bool keep;
            switch (gip__canny_dir(sdx[i], sdy[i], &s)) {
            case 0:
                keep = m > mag_at(mag, w, h, x - 1, y) && m >= mag_at(mag, w, h, x + 1, y);
                break;
            case 1:
                keep = m > mag_at(mag, w, h, x, y - 1) && m >= mag_at(mag, w, h, x, y + 1);
                break;
            default:
                keep = m > mag_at(mag, w, h, x - s, y - 1) && m > mag_at(mag, w, h, x + s, y + 1);
            }
            if (keep)
                v = m > high ? 2 : 1;
        }
        map[i] = v;
    }
}

constexpr int TILE = 32;

/* One round of hysteresis: each 32x32 tile with a one-pixel ring of its neighbours' values
 * propagates edges to its weak pixels until it is stable, then writes the changes back. */
__global__ void hysteresis_kernel(uint8_t *map, int32_t w, int32_t h, int32_t tile_y0, int *changed)
{
    __shared__ uint8_t t[TILE + 2][TILE + 2];
    __shared__ int any;
    const int32_t x0 = blockIdx.x * TILE, y0 = (tile_y0 + (int32_t)blockIdx.y) * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y; /* 32 x 8 threads */
    for (int i = ty * TILE + tx; i < (TILE + 2) * (TILE + 2); i += TILE * 8) {
        const int ly = i / (TILE + 2), lx = i - ly * (TILE + 2);
        const int32_t gx = x0 + lx - 1, gy = y0 + ly - 1;
        t[ly][lx] = gx < 0 || gy < 0 || gx >= w || gy >= h ? 0 : map[(int64_t)gy * w + gx];
    }
    if (tx == 0 && ty == 0)
        any = 0;
    __syncthreads();
    bool again;
    do {
        /* Read every neighbour first, write after a barrier: no thread reads a pixel while
         * another writes it (a Jacobi step; the fixed point is the same). */
        bool grow[TILE / 8];
        for (int k = 0; k < TILE / 8; k++) {
            const int ly = ty + 1 + 8 * k, lx = tx + 1;
            grow[k] = t[ly][lx] == 1 &&
                      (t[ly - 1][lx - 1] == 2 || t[ly - 1][lx] == 2 || t[ly - 1][lx + 1] == 2 ||
                       t[ly][lx - 1] == 2 || t[ly][lx + 1] == 2 || t[ly + 1][lx - 1] == 2 ||
                       t[ly + 1][lx] == 2 || t[ly + 1][lx + 1] == 2);
        }
        __syncthreads();
        bool grew = false;
        for (int k = 0; k < TILE / 8; k++)
            if (grow[k]) {
                t[ty + 1 + 8 * k][tx + 1] = 2;
                grew = true;
            }
        again = __syncthreads_or(grew) != 0; /* also the barrier before the next reads */
        if (again && tx == 0 && ty == 0)
            any = 1;
    } while (again);
    if (!any)
        return;
    for (int ly = ty + 1; ly <= TILE; ly += 8) {
        const int32_t gx = x0 + tx, gy = y0 + ly - 1;
        if (gx < w && gy < h) {
            uint8_t *p = map + (int64_t)gy * w + gx;
            if (*p != t[ly][tx + 1])
                *p = t[ly][tx + 1];
        }
    }
    if (tx == 0 && ty == 0)
        *changed = 1;
}

__global__ void out_kernel(const uint8_t *map, int32_t w, int32_t h, char *dst, int64_t ds)
{
    const int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y)
        gip__row<uint8_t>(dst, ds, y)[x] = map[(int64_t)y * w + x] == 2 ? 255 : 0;
}

} // namespace

extern "C" gip_status gip__canny_cuda(gip_context *ctx, const gip_image *dx, const gip_image *dy,
                                      gip_image *dst, int32_t low, int32_t high, bool l2)
{
    const int32_t w = (int32_t)dx->width, h = (int32_t)dx->height;
    const size_t n = (size_t)w * (size_t)h;
    cudaStream_t s = gip__stream(ctx);
    void *buf = NULL;
    /* mag (int32), sdx, sdy (int16), map (u8), the changed flag */
    const size_t bytes = n * 4 + n * 2 * 2 + n + 16;
    gip_status st = gip__cuda_malloc(ctx, bytes, &buf);
    if (st)
        return st;
    int32_t *mag = (int32_t *)buf;
    int16_t *sdx = (int16_t *)(mag + n), *sdy = sdx + n;
    uint8_t *map = (uint8_t *)(sdy + n);
    int *changed = (int *)(((uintptr_t)(map + n) + 3) & ~(uintptr_t)3);
    const dim3 grid(gip__div_up(w, 128), (unsigned)(h < 65535 ? h : 65535));
    mag_kernel<<<grid, 128, 0, s>>>((const char *)dx->data, dx->stride, (const char *)dy->data,
                                    dy->stride, w, h, dx->channels, l2, mag, sdx, sdy);
    if ((st = GIP__LAUNCH_CHECK(ctx, "canny magnitude kernel")))
        goto out_free;
    nms_kernel<<<grid, 128, 0, s>>>(mag, sdx, sdy, w, h, low, high, map);
    if ((st = GIP__LAUNCH_CHECK(ctx, "canny suppression kernel")))
        goto out_free;
    {
        /* grids of at most 65535 tile rows, launched one after another */
        const int32_t ty = (h + TILE - 1) / TILE;
        const dim3 threads(TILE, 8);
        int host_changed = 1;
        /* Rounds until one changes nothing; four rounds a check keep the host's waits few. */
        while (host_changed) {
            if ((st = gip__cuda_status(ctx, cudaMemsetAsync(changed, 0, sizeof(int), s),
                                       "canny hysteresis flag")))
                goto out_free;
            for (int r = 0; r < 4; r++)
                for (int32_t t0 = 0; t0 < ty; t0 += 65535) {
                    const dim3 tiles(gip__div_up(w, TILE),
                                     (unsigned)(ty - t0 < 65535 ? ty - t0 : 65535));
                    hysteresis_kernel<<<tiles, threads, 0, s>>>(map, w, h, t0, changed);
                }
            if ((st = GIP__LAUNCH_CHECK(ctx, "canny hysteresis kernel")))
                goto out_free;
            if ((st = gip__cuda_status(ctx,
                                       cudaMemcpyAsync(&host_changed, changed, sizeof(int),
                                                       cudaMemcpyDeviceToHost, s),
                                       "canny hysteresis flag")) ||
                (st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "canny hysteresis")))
                goto out_free;
        }
    }
    out_kernel<<<grid, 128, 0, s>>>(map, w, h, (char *)dst->data, dst->stride);
    st = GIP__LAUNCH_CHECK(ctx, "canny output kernel");
out_free:
    gip__cuda_free(ctx, buf);
    return st;
}
