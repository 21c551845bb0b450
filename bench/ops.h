/* SPDX-License-Identifier: MIT */
/* The benchmark's table of gip operations: one row each, with the formats it runs and the public
 * function it times. */
#ifndef GIP_BENCH_OPS_H
#define GIP_BENCH_OPS_H

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
} bench_op;

extern const bench_op bench_ops[];
extern const int bench_nops;

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
