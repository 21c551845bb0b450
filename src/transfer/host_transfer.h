/* SPDX-License-Identifier: MIT */
/* The transfer engine: host images through a computation on a CUDA device at the speed of the
 * bus. Large images move in row chunks through a cached pool of pinned staging buffers, on an
 * upload stream and a download stream beside the context's compute stream, so that the CPU's copy
 * of chunk k + 1 into pinned memory, the upload of chunk k, the computation of an earlier row band
 * (with its halo) and the download of the band before overlap; a page-locked source or
 * destination (cudaMallocHost, cudaHostRegister, PyTorch's pin_memory(), gip's pinned images) is
 * copied directly, without staging. Small images go in one copy each way on the compute stream.
 * The engine knows no operation: the caller gives the computation as a function on device views
 * (the registry's host path, the pipeline's). */
#ifndef GIP_TRANSFER_HOST_TRANSFER_H
#define GIP_TRANSFER_HOST_TRANSFER_H

#include <stdbool.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Computes the rows of the result that src's rows give, on the context's stream: src holds source
 * rows [r0, r0 + src->height) of the whole image (all columns) in device memory; dst (device) has
 * src's row count in a band run, the whole result's shape otherwise. */
typedef gip_status (*gip__xfer_fn)(void *arg, gip_context *ctx, const gip_image *src, int64_t r0,
                                   gip_image *dst);

typedef struct gip__xfer {
    const gip_image *src; /* host memory (pageable or page-locked) */
    gip_image *dst;       /* host memory */
    /* Source rows each output row reads above and below it; -1 when an output row may read any
     * source row (or dst's size differs from src's): then one band, the whole image. */
    int64_t halo;
    bool reads_dst; /* the computation keeps some of dst's pixels: dst goes up first (one band) */
    gip__xfer_fn run;
    void *arg;
    /* Page-locked staging bytes the run may use (its chunk is at most a sixth of it, 4096 bytes
     * at least); 0: gip__xfer_staging_bytes(). */
    int64_t staging;
} gip__xfer;

/* Runs x on ctx (a CUDA context): src up, run() per band, dst down. Returns when dst holds the
 * result. On an error dst may hold part of it; the staging and device buffers are released. */
gip_status gip__xfer_run(gip_context *ctx, const gip__xfer *x);

/* Uploads a host image into a new device image of ctx (gip_image_alloc, GIP_MEM_CUDA) through
 * the staging: the extra inputs of a computation. Ready for work on ctx's stream. */
gip_status gip__xfer_upload(gip_context *ctx, const gip_image *host, gip_image *dev);

/* The chunk an image moves in (4 MiB; GIP_TRANSFER_CHUNK bytes in the environment, at least
 * 4096, for tests and tuning). Images under 8 chunks move in 8 smaller ones. */
#define GIP__XFER_CHUNK ((int64_t)4 << 20)
int64_t gip__xfer_chunk_bytes(void);

/* Pinned staging slots each way, of a chunk each (host_transfer.c). */
#define GIP__XFER_SLOTS 3

/* The page-locked host memory a context's transfers hold at most for images whose rows are
 * shorter than a chunk: what a run bounded in host memory counts for them. */
int64_t gip__xfer_staging_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
