/* SPDX-License-Identifier: MIT */
/* flip on CUDA: a block moves a chunk of one row through shared memory, read and written as
 * aligned 32-bit words (the bytes of a view's unaligned ends one by one), the pixels reversed in
 * between; rows on the grid's y. */
#include "cuda_util.cuh"
#include "ops/geometry/flip.h"

/* Threads of a block, and the output pixels a block moves at a time: 1024, or 2048 of three
 * bytes (6 KB: a row of 3840 three-byte pixels in two blocks, not four). */
#define FLIP_THREADS 256
#define FLIP_CHUNK(px) ((px) == 3 ? 2048 : 1024)

/* Output pixels [x0, x0 + n) of row y, n <= FLIP_CHUNK(PX), from source row fy ? h-1-y : y,
 * reversed (dst(x) = src(w-1-x)) when REV. PX is the bytes of a pixel. Words are read only
 * where they hold a byte of the chunk, whole but for a row's first and last word
 * (gip__ldg_word: no byte outside the row is read), written whole only where all four bytes are the
 * chunk's. */
template <int PX, bool REV>
__global__ void __launch_bounds__(FLIP_THREADS)
    flip_rows_kernel(const uint8_t *__restrict__ src, int64_t sstride, uint8_t *__restrict__ dst,
                     int64_t dstride, int32_t w, int32_t h, int32_t fy)
{
    constexpr int32_t CH = FLIP_CHUNK(PX);
    __shared__ uint32_t sm[(CH * PX + 3) / 4 + 2];
    const int32_t x0 = (int32_t)blockIdx.x * CH;
    const int32_t n = w - x0 < CH ? w - x0 : CH;
    const int32_t nb = n * PX; /* bytes of the chunk */
    const int32_t tid = (int32_t)threadIdx.x;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        /* the source bytes: pixels [w - x0 - n, w - x0) reversed, [x0, x0 + n) not */
        const uint8_t *srow = src + (int64_t)(fy ? h - 1 - y : y) * sstride;
        const uint8_t *send = srow + (int64_t)w * PX; /* the row's end */
        const uint8_t *a0 = srow + (int64_t)(REV ? w - x0 - n : x0) * PX;
        const uint32_t *al = reinterpret_cast<const uint32_t *>((uintptr_t)a0 & ~(uintptr_t)3);
        const int32_t off = (int32_t)((uintptr_t)a0 & 3);
        const int32_t nw = (off + nb + 3) >> 2;
        for (int32_t i = tid; i < nw; i += FLIP_THREADS)
            sm[i] = gip__ldg_word(al + i, srow, send);
        __syncthreads();
        const uint8_t *sb = reinterpret_cast<const uint8_t *>(sm) + off;
        uint8_t *d0 = dst + (int64_t)y * dstride + (int64_t)x0 * PX;
        uint32_t *dal = reinterpret_cast<uint32_t *>((uintptr_t)d0 & ~(uintptr_t)3);
        const int32_t doff = (int32_t)((uintptr_t)d0 & 3);
        const int32_t nwo = (doff + nb + 3) >> 2;
        if (PX == 3 && REV && doff == 0 && ((off + nb) & 3) == 0 && (n & 3) == 0) {
            /* Three-byte pixels, the chunk's ends on word boundaries in both rows: four output
             * pixels (three words) from the four source pixels that end them reversed, whose
             * three words lie aligned in sm (the chunk's source bytes end at a word's end). */
            for (int32_t g = tid; g < n / 4; g += FLIP_THREADS) {
                const uint32_t *sw = sm + (((n - 4 - 4 * g) * 3 + off) >> 2);
                const uint32_t w0 = sw[0], w1 = sw[1], w2 = sw[2];
                dal[3 * g] = __byte_perm(w2, w1, 0x6321);
                dal[3 * g + 1] = __byte_perm(__byte_perm(w1, w2, 0x0043), w0, 0x2710);
                dal[3 * g + 2] = __byte_perm(w1, w0, 0x6541);
            }
            __syncthreads();
            continue;
        }
        for (int32_t i = tid; i < nwo; i += FLIP_THREADS) {
            const int32_t b0 = 4 * i - doff; /* the chunk's byte of the word's first byte */
            uint32_t v = 0;
            bool whole = b0 >= 0 && b0 + 4 <= nb;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int32_t ob = b0 + k;
                if (ob < 0 || ob >= nb)
                    continue;
                const int32_t p = ob / PX, c = ob - p * PX;
                const uint8_t byte = REV ? sb[(n - 1 - p) * PX + c] : sb[ob];
                if (whole)
                    v |= (uint32_t)byte << (8 * k);
                else
                    reinterpret_cast<uint8_t *>(dal + i)[k] = byte;
            }
            if (whole)
                dal[i] = v;
        }
        __syncthreads();
    }
}

template <int PX>
static void flip_launch(gip_context *ctx, const gip_image *src, gip_image *dst, int fx, int fy)
{
    const dim3 grid(gip__div_up(src->width, FLIP_CHUNK(PX)),
                    (unsigned)(src->height < 65535 ? src->height : 65535));
    if (fx)
        flip_rows_kernel<PX, true><<<grid, FLIP_THREADS, 0, gip__stream(ctx)>>>(
            (const uint8_t *)src->data, src->stride, (uint8_t *)dst->data, dst->stride,
            (int32_t)src->width, (int32_t)src->height, fy);
    else
        flip_rows_kernel<PX, false><<<grid, FLIP_THREADS, 0, gip__stream(ctx)>>>(
            (const uint8_t *)src->data, src->stride, (uint8_t *)dst->data, dst->stride,
            (int32_t)src->width, (int32_t)src->height, fy);
}

/* ---- the generic kernel (sides of 2^31 pixels and more): one thread per pixel ------------- */

template <typename T>
__global__ void flip_kernel(const char *src, int64_t sstride, char *dst, int64_t dstride, int64_t w,
                            int64_t h, int fx, int fy)
{
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T *s = reinterpret_cast<const T *>(src + (fy ? h - 1 - y : y) * sstride);
        T *d = reinterpret_cast<T *>(dst + y * dstride);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            d[x] = s[fx ? w - 1 - x : x];
    }
}

/* A pixel of n bytes as one copyable unit. */
template <int N> struct bytes {
    unsigned char b[N];
};

template <typename T>
static void launch(gip_context *ctx, const gip_image *src, gip_image *dst, int fx, int fy)
{
    const int threads = 256;
    int64_t bx = (src->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
              (unsigned)(src->height < 65535 ? src->height : 65535));
    flip_kernel<T><<<grid, threads, 0, gip__stream(ctx)>>>((const char *)src->data, src->stride,
                                                           (char *)dst->data, dst->stride,
                                                           src->width, src->height, fx, fy);
}

/* Pixels of PX bytes (T): the row kernel where a row's bytes and the row count stay below 2^30
 * (it counts in 32 bits), the generic kernel beyond. */
template <int PX, typename T>
static gip_status flip_px(gip_context *ctx, const gip_image *src, gip_image *dst, int fx, int fy)
{
    const int64_t lim = (int64_t)1 << 30;
    if (src->width * (int64_t)PX < lim && src->height < lim)
        flip_launch<PX>(ctx, src, dst, fx, fy);
    else
        launch<T>(ctx, src, dst, fx, fy);
    return GIP__LAUNCH_CHECK(ctx, "flip kernel");
}

extern "C" gip_status gip__flip_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int fx,
                                     int fy)
{
    const size_t px = (size_t)src->channels * gip_dtype_size(src->dtype);
    switch (px) {
    case 1:
        return flip_px<1, uint8_t>(ctx, src, dst, fx, fy);
    case 2:
        return flip_px<2, bytes<2>>(ctx, src, dst, fx, fy);
    case 3:
        return flip_px<3, bytes<3>>(ctx, src, dst, fx, fy);
    case 4:
        return flip_px<4, bytes<4>>(ctx, src, dst, fx, fy);
    case 6:
        return flip_px<6, bytes<6>>(ctx, src, dst, fx, fy);
    case 8:
        return flip_px<8, bytes<8>>(ctx, src, dst, fx, fy);
    case 12:
        return flip_px<12, bytes<12>>(ctx, src, dst, fx, fy);
    case 16:
        return flip_px<16, bytes<16>>(ctx, src, dst, fx, fy);
    default:
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "flip: %zu-byte pixels are not supported", px);
    }
}
