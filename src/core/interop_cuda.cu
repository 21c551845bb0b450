/* SPDX-License-Identifier: MIT */
/* CUDA side of the interop entries: event-based ordering between streams, pointer attributes and
 * the strided element copy kernel. */
#include "cuda_util.cuh"
#include "interop.h"

extern "C" gip_status gip__cuda_stream_order(gip_context *ctx, void *from, void *to, const char *op)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    if (from == to)
        return GIP_OK; /* a stream is ordered with itself */
    cudaEvent_t ev;
    if ((st = gip__cuda_status(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming),
                               "cudaEventCreateWithFlags")))
        return st;
    st = gip__cuda_status(ctx, cudaEventRecord(ev, (cudaStream_t)from), "cudaEventRecord");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamWaitEvent((cudaStream_t)to, ev, 0),
                              "cudaStreamWaitEvent");
    /* Destroying a recorded event is allowed: its resources go once the wait is satisfied. */
    cudaEventDestroy(ev);
    return st;
}

extern "C" gip_status gip__cuda_pointer_location(const void *ptr, gip_memory *memory,
                                                 int32_t *device)
{
    cudaPointerAttributes attr;
    cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    if (err != cudaSuccess) {
        /* No driver, no device or an unregistered pointer: host memory as far as gip goes. */
        (void)cudaGetLastError();
        return GIP_OK;
    }
    switch (attr.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
        *memory = GIP_MEM_CUDA;
        *device = attr.device;
        break;
    case cudaMemoryTypeHost:
        *memory = GIP_MEM_PINNED;
        break;
    default:
        break;
    }
    return GIP_OK;
}

/* Element of 8 bytes with 4-byte alignment: a c32 value, copied as two floats' bits. */
struct gip__pair32 {
    uint32_t a, b;
};

template <typename T>
__global__ void copy_strided_kernel(const char *src, char *dst, int64_t n, int64_t w, int64_t c,
                                    int64_t s0, int64_t s1, int64_t s2, int64_t d0, int64_t d1,
                                    int64_t d2)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t ch = i % c, t = i / c;
        int64_t x = t % w, y = t / w;
        *reinterpret_cast<T *>(dst + y * d0 + x * d1 + ch * d2) =
            *reinterpret_cast<const T *>(src + y * s0 + x * s1 + ch * s2);
    }
}

template <typename T>
static gip_status launch_copy(gip_context *ctx, const gip_strided *s, const gip_strided *d,
                              int64_t n)
{
    const int block = 256;
    int64_t blocks = (n + block - 1) / block;
    if (blocks > (int64_t)1 << 20)
        blocks = (int64_t)1 << 20; /* the grid-stride loop covers the rest */
    copy_strided_kernel<T><<<(unsigned)blocks, block, 0, gip__stream(ctx)>>>(
        (const char *)s->data, (char *)d->data, n, s->shape[1], s->shape[2], s->strides[0],
        s->strides[1], s->strides[2], d->strides[0], d->strides[1], d->strides[2]);
    return GIP__LAUNCH_CHECK(ctx, "copy_strided_kernel");
}

extern "C" gip_status gip__copy_strided_cuda(gip_context *ctx, const gip_strided *src,
                                             const gip_strided *dst, size_t unit, int64_t units)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    switch (unit) {
    case 1:
        return launch_copy<uint8_t>(ctx, src, dst, units);
    case 2:
        return launch_copy<uint16_t>(ctx, src, dst, units);
    case 4:
        return launch_copy<uint32_t>(ctx, src, dst, units);
    default:
        return launch_copy<gip__pair32>(ctx, src, dst, units);
    }
}
