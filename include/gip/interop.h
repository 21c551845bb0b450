/* SPDX-License-Identifier: MIT */
/* Working with other CUDA libraries (CuPy, PyTorch, numpy through the Python package): ordering
 * against their streams, finding where a pointer lives, and copying between strided layouts. */
#ifndef GIP_INTEROP_H
#define GIP_INTEROP_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Streams. `stream` is a cudaStream_t passed as void *: NULL is the legacy default stream, and
 * the special handles (void *)1 (cudaStreamLegacy) and (void *)2 (cudaStreamPerThread) are
 * accepted; these are also the values of the "stream" entry of the CUDA array interface and of
 * DLPack's stream argument. Both calls only queue an event record and a wait: neither blocks the
 * host. The stream must belong to the context's device.
 */

/**
 * Makes the work queued on `ctx` after this call wait until the work queued on `stream` so far
 * has finished (cudaEventRecord on `stream`, cudaStreamWaitEvent on the context's stream). Use it
 * before reading data that another library produced on its stream.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL ctx); GIP_ERR_NO_DEVICE (a CPU context);
 *         GIP_ERR_DEVICE (a CUDA call failed, e.g. a stream of another device); GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_context_wait_stream(gip_context *ctx, void *stream);

/**
 * Makes the work queued on `stream` after this call wait until the work queued on `ctx` so far
 * has finished (cudaEventRecord on the context's stream, cudaStreamWaitEvent on `stream`). Use it
 * before another library reads gip's results on its stream (DLPack export), or writes memory gip
 * is still reading. Statuses as gip_context_wait_stream().
 */
GIP_API gip_status gip_context_signal_stream(gip_context *ctx, void *stream);

/**
 * Says where `ptr` lives: GIP_MEM_CUDA with its device ordinal for device (and managed) memory,
 * GIP_MEM_PINNED for page-locked host memory, GIP_MEM_HOST for anything else (also in a build
 * without CUDA, or when no CUDA driver is present). *device is 0 for host memory.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL memory or device).
 */
GIP_API gip_status gip_pointer_location(const void *ptr, gip_memory *memory, int32_t *device);

/** A 3-D array of elements with arbitrary byte strides (numpy's model): element (y, x, c) is at
 *  (char *)data + y * strides[0] + x * strides[1] + c * strides[2]. */
typedef struct gip_strided {
    void *data;         /* address of element (0, 0, 0) */
    int64_t shape[3];   /* rows, columns, channels; each >= 1 */
    int64_t strides[3]; /* bytes, any sign; multiples of the element's alignment (its size, 4 for
                           c32) */
    gip_dtype dtype;    /* u8, u16, s16, f32 or c32 */
    gip_memory memory;
    int32_t device; /* CUDA device ordinal when memory == GIP_MEM_CUDA */
} gip_strided;

/**
 * Copies every element of `src` to the same (y, x, c) of `dst`: both of the same shape and
 * dtype, both on the host (copied on the CPU threads) or both on the context's device (a kernel
 * on the context's stream). Used to make a tight interleaved image of a view whose pixels are not
 * interleaved (a CHW tensor permuted to HWC, a flipped numpy view) and to scatter real values into
 * the real parts of a complex image (dst: a c32 image seen as f32 with strides (stride, 8, 4)).
 * A stride may be 0 in src (broadcast) but not in dst along an axis longer than 1. The byte ranges
 * of src and dst must not intersect.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, shape < 1, bad dtype, misaligned data or
 *         stride, zero dst stride); GIP_ERR_SHAPE_MISMATCH (shapes or dtypes differ);
 *         GIP_ERR_LOCATION_MISMATCH (host and device mixed, or another device);
 *         GIP_ERR_ALIASING (ranges intersect); GIP_ERR_TOO_LARGE; GIP_ERR_NO_DEVICE (device views
 *         on a CPU context); GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_copy_strided(gip_context *ctx, const gip_strided *src,
                                    const gip_strided *dst);

#ifdef __cplusplus
}
#endif
#endif
