/* SPDX-License-Identifier: MIT */
/* The benchmark's table of gip operations: one row each, with the formats it runs and the public
 * function it times. */
#ifndef GIP_BENCH_OPS_H
#define GIP_BENCH_OPS_H

#include "bench.h"
#include "gip/gip.h"

/* Destination element type of an operation, from the source's. */
typedef enum bench_dst {
    BENCH_DST_SAME, /* the source's dtype */
    BENCH_DST_F32,
    BENCH_DST_S16,
    BENCH_DST_U8,
    BENCH_DST_C32_HALF /* complex c32 of (W/2 + 1) x H: the half spectrum of a real image */
} bench_dst;

typedef struct bench_op {
    const char *name;      /* row name, shared with peers.py and the report */
    const char *what;      /* one line for the JSON */
    const char *symbol;    /* the gip function it times */
    const char *defaults;  /* formats run when --formats is not given */
    const char *supported; /* formats accepted with --formats */
    bench_dst dst;
    int dst_channels; /* 0: the source's */
    gip_status (*run)(gip_context *ctx, const gip_image *src, gip_image *dst);
    int (*available)(void); /* non-zero when `symbol` is in the linked libgip */
    /* Optional (NULL: the defaults). */
    /* The destination's size for a w x h source (default: w x h; the half spectrum's width). */
    void (*dst_size)(int64_t w, int64_t h, int64_t *dw, int64_t *dh);
    /* Called once per buffer set after allocation (src filled, dst zeroed): fills set->aux and may
     * rewrite src (a binary scan, a camera frame); images it allocates go in set->aux. */
    gip_status (*prepare)(gip_context *ctx, bench_set *set);
    /* Replaces `run` when the operation needs set->aux. */
    gip_status (*run_set)(gip_context *ctx, bench_set *set);
    /* Bytes one run reads and writes (default: the source's and the destination's). */
    double (*bytes)(const bench_set *set);
} bench_op;

/* The operation tables, one per family (bench/ops.c, ops_geometry.c, ops_color.c,
 * ops_stats.c), read in that order. */
extern const bench_op bench_ops_core[], bench_ops_geometry[], bench_ops_color[], bench_ops_stats[];
extern const int bench_nops_core, bench_nops_geometry, bench_nops_color, bench_nops_stats;

/* Every operation of every table, in order: count and the i-th. */
int bench_op_count(void);
const bench_op *bench_op_at(int i);

/* The 15-tap Gaussian gip uses for ksize 15, sigma 0 (cv2.getGaussianKernel(15, 0)). */
void bench_gaussian15_taps(float taps[15]);

/* The 3x3 filter2D kernel of the filter2d3 rows (not separable, no zero tap, sum 1), and the
 * same kernel as integers over a divisor (for NPP's integer variant). */
extern const float bench_filter2d_kernel[9];
extern const int bench_filter2d_kernel_int[9];
extern const int bench_filter2d_divisor;

/* The stencil expression of the stencil_mean3 rows: the seed's 3x3 mean (compare box3). */
extern const char bench_stencil_mean3_expr[];
/* The seed's hand-written 3x3 mean as a raw CUDA kernel (reflect101 borders), name "mean3". */
extern const char bench_mean3_cuda_source[];

#endif
