/* SPDX-License-Identifier: MIT */
/* Timing of one benchmark row: CLOCK_MONOTONIC on the CPU, CUDA events on the GPU (one function
 * used for gip's rows and the NPP peers' alike), median and spread of many runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#ifdef GIP_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *v, int n, double p)
{
    int i = (int)(p * (n - 1) + 0.5);
    return v[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

void bench_stats_fill(double *v, int n, bench_stats *st)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    st->runs = n;
    st->min_ms = v[0];
    st->p10_ms = percentile(v, n, 0.10);
    st->p90_ms = percentile(v, n, 0.90);
    st->ms = (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Number of timed runs for an estimated run time: the fixed count when asked, otherwise enough
 * to fill the row's time budget, within [min_runs, max_runs]. */
static int run_count(const bench_cfg *cfg, double est_ms)
{
    if (cfg->iters > 0)
        return cfg->iters;
    double want = est_ms > 0 ? cfg->target_s * 1e3 / est_ms : cfg->max_runs;
    int n = want > cfg->max_runs ? cfg->max_runs : (int)want;
    return n < cfg->min_runs ? cfg->min_runs : n;
}

int bench_time_cpu(const bench_cfg *cfg, bench_call call, void *arg, int nsets, bench_stats *st,
                   char *err, size_t err_size)
{
    double est = 0;
    for (int i = 0; i < cfg->warmup; i++) {
        double t0 = bench_now_ms();
        if (call(arg, i % nsets, err, err_size))
            return -1;
        est = bench_now_ms() - t0;
    }
    if (cfg->warmup == 0 && cfg->iters <= 0) {
        /* No warm-up but an adaptive count: the first run only estimates. */
        double t0 = bench_now_ms();
        if (call(arg, 0, err, err_size))
            return -1;
        est = bench_now_ms() - t0;
    }
    int n = run_count(cfg, est);
    double *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        snprintf(err, err_size, "out of memory for %d timings", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        double t0 = bench_now_ms();
        if (call(arg, i % nsets, err, err_size)) {
            free(v);
            return -1;
        }
        v[i] = bench_now_ms() - t0;
    }
    bench_stats_fill(v, n, st);
    free(v);
    return 0;
}

#ifdef GIP_BENCH_CUDA
/* Runs queued between two spin kernels; well under the launch queue's depth. */
#define CHUNK 128

static int cuda_failed(cudaError_t e, const char *what, char *err, size_t err_size)
{
    if (e == cudaSuccess)
        return 0;
    snprintf(err, err_size, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

int bench_time_gpu(const bench_cfg *cfg, void *stream, bench_call call, void *arg, int nsets,
                   bench_stats *st, char *err, size_t err_size)
{
    cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t ev[CHUNK + 1];
    int nev = 0, rc = -1;
    double *v = NULL;
    for (; nev < CHUNK + 1; nev++)
        if (cuda_failed(cudaEventCreate(&ev[nev]), "cudaEventCreate", err, err_size))
            goto out_events;

    /* Warm-up: every buffer set at least once (first touch, module load), then the estimate. */
    int warm = cfg->warmup > nsets ? cfg->warmup : nsets;
    if (cfg->warmup == 0)
        warm = 1; /* one untimed run so that a failing call is reported before timing */
    for (int i = 0; i < warm; i++)
        if (call(arg, i % nsets, err, err_size))
            goto out_events;
    if (cuda_failed(cudaStreamSynchronize(s), "warm-up", err, err_size))
        goto out_events;

    /* Estimate the run time and the host's time to queue one run. */
    int ne = 5;
    double h0 = bench_now_ms();
    if (cuda_failed(cudaEventRecord(ev[0], s), "cudaEventRecord", err, err_size))
        goto out_events;
    for (int i = 0; i < ne; i++)
        if (call(arg, i % nsets, err, err_size))
            goto out_events;
    double host_ms = (bench_now_ms() - h0) / ne;
    if (cuda_failed(cudaEventRecord(ev[1], s), "cudaEventRecord", err, err_size) ||
        cuda_failed(cudaEventSynchronize(ev[1]), "estimate", err, err_size))
        goto out_events;
    float est = 0;
    cudaEventElapsedTime(&est, ev[0], ev[1]);
    int n = run_count(cfg, est / ne);
    v = malloc((size_t)n * sizeof *v);
    if (!v) {
        snprintf(err, err_size, "out of memory for %d timings", n);
        goto out_events;
    }

    int done = 0;
    while (done < n) {
        int k = n - done < CHUNK ? n - done : CHUNK;
        /* The spin lasts longer than queuing the chunk takes, so the chunk's runs follow each
         * other on the GPU without gaps (capped: a slow host only shortens the lead). */
        double lead_ms = 2.0 * host_ms * k + 0.05;
        if (lead_ms > 50.0)
            lead_ms = 50.0;
        if (bench_gpu_spin(stream, (uint64_t)(lead_ms * 1e6))) {
            snprintf(err, err_size, "spin kernel launch failed");
            goto out_free;
        }
        if (cuda_failed(cudaEventRecord(ev[0], s), "cudaEventRecord", err, err_size))
            goto out_free;
        for (int i = 0; i < k; i++) {
            if (call(arg, (done + i) % nsets, err, err_size))
                goto out_free;
            if (cuda_failed(cudaEventRecord(ev[i + 1], s), "cudaEventRecord", err, err_size))
                goto out_free;
        }
        if (cuda_failed(cudaEventSynchronize(ev[k]), "timed runs", err, err_size))
            goto out_free;
        for (int i = 0; i < k; i++) {
            float ms = 0;
            if (cuda_failed(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), "cudaEventElapsedTime",
                            err, err_size))
                goto out_free;
            v[done + i] = ms;
        }
        done += k;
    }
    bench_stats_fill(v, n, st);
    rc = 0;
out_free:
    free(v);
    cudaStreamSynchronize(s);
out_events:
    while (nev > 0)
        cudaEventDestroy(ev[--nev]);
    return rc;
}
#endif
