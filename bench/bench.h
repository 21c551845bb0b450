/* SPDX-License-Identifier: MIT */
/* Shared declarations of the benchmark harness: timing of one row on the CPU or the GPU, results,
 * and the NPP peers' entry point. */
#ifndef GIP_BENCH_H
#define GIP_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "gip/gip.h"

/* How rows are timed; filled from the command line. */
typedef struct bench_cfg {
    double target_s; /* time budget per row for the adaptive run count */
    int iters;       /* > 0: exactly this many timed runs (no adaptation) */
    int warmup;      /* untimed runs before timing (>= 0) */
    int min_runs, max_runs;
} bench_cfg;

/* Median and spread of the timed runs, in milliseconds. */
typedef struct bench_stats {
    double ms, min_ms, p10_ms, p90_ms;
    int runs;
} bench_stats;

/* Enqueues (GPU) or runs (CPU) one run of an operation on buffer set `set`. Returns 0, or
 * non-zero after writing what failed into err. */
typedef int (*bench_call)(void *arg, int set, char *err, size_t err_size);

/* Times `call` on the CPU with CLOCK_MONOTONIC: warm-up, then runs, median. */
int bench_time_cpu(const bench_cfg *cfg, bench_call call, void *arg, int nsets, bench_stats *st,
                   char *err, size_t err_size);

/* Milliseconds of CLOCK_MONOTONIC. */
double bench_now_ms(void);

/* Sorts `v` and fills the statistics of its n values. */
void bench_stats_fill(double *v, int n, bench_stats *st);

#ifdef GIP_BENCH_CUDA
/* Times `call` on the CUDA stream `stream` with CUDA events: warm-up over every set, then runs
 * in chunks, each chunk queued behind a short spin kernel so that the GPU never waits for the
 * host inside a chunk and every event pair brackets exactly one run. Shared by gip and NPP rows. */
int bench_time_gpu(const bench_cfg *cfg, void *stream, bench_call call, void *arg, int nsets,
                   bench_stats *st, char *err, size_t err_size);

/* Queues a kernel on `stream` that spins for about `ns` nanoseconds (bench/spin.cu). */
int bench_gpu_spin(void *stream, uint64_t ns);
#endif

/* One buffer set: the input and the output of one run, and up to BENCH_AUX further images an
 * operation's prepare step allocates on the set's memory (a second operand, maps, a template,
 * a camera frame); the harness frees them with the set. */
#define BENCH_AUX 3
typedef struct bench_set {
    gip_image src, dst;
    gip_image aux[BENCH_AUX];
} bench_set;

/* What a peer reports back to the harness for one row. */
typedef struct bench_peer_result {
    char impl[48];    /* "npp_gauss" ... */
    char status[16];  /* "ok", "unavailable", "error" */
    char reason[256]; /* why not ok */
    char note[160];   /* what differs from gip's row (border, output) */
    bench_stats st;
} bench_peer_result;

#ifdef GIP_BENCH_NPP
/* Version of the NPP library as "MAJOR.MINOR.BUILD". */
const char *bench_npp_version(void);

/* Runs every NPP peer of (op, format) on the sets (device images shared with gip's row, the same
 * shapes and dtypes) on `stream`; appends up to `max` results. Returns the number appended. */
int bench_npp_run(const bench_cfg *cfg, void *stream, const char *op, const char *format,
                  bench_set *sets, int nsets, bench_peer_result *out, int max);
#endif

#endif
