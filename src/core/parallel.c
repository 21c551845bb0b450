/* SPDX-License-Identifier: MIT */
/* The CPU parallel-for that every host operation runs on (OpenMP threads of the context). */
#include <omp.h>
#include <stdlib.h>

#include "internal.h"

/* Small jobs run on the calling thread. Waking the pool costs tens of microseconds on an idle
 * machine and up to a scheduler time slice per thread on a loaded one (a 64x64 3x3 box took
 * 8-16 ms on a busy 2-core machine, against 0.045 ms on one thread), so a job whose whole work
 * is estimated below SERIAL_BUDGET_S seconds (0.1 ms) runs where it was called.
 *
 * The arguments say how many items (rows, blocks) there are, not what they cost, so the cost is
 * measured: the first item is timed on the calling thread and the rest estimated from it. That
 * first item also carries the job's fixed costs (a filter band primes kh rows before its first
 * output), so when the estimate is within PROBE_MARGIN budgets, one grain more is timed and the
 * decision taken on its rate instead.
 *
 * A job that turns out big has then spent its first item (and one grain) on one thread before
 * the others start, up to about 1 / chunks of its work. So only jobs of few chunks are probed:
 * chunks * threads <= PROBE_CHUNK_THREADS (on 2 threads 16 chunks: images up to 128 rows for
 * the 8-row grain of a 3x3 box; on 16 threads at most 2 chunks), with at least PROBE_MIN_ITEMS
 * items (jobs of a few heavy blocks are not probed) and grains of at most PROBE_MAX_GRAIN items
 * (longer grains mean long band priming). Such jobs are small unless their rows are very wide;
 * big images have many chunks and start the threads at once, as before. Results do not depend
 * on the split: every caller's fn handles any range. */
#define SERIAL_BUDGET_S 100e-6
#define PROBE_MARGIN 16.0
#define PROBE_CHUNK_THREADS 32
#define PROBE_MIN_ITEMS 32
#define PROBE_MAX_GRAIN 16

int32_t gip__core_count(void)
{
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}

/* OpenMP's default: OMP_NUM_THREADS where it is set (its first value, as omp_get_max_threads
 * reads it), else every core this process may run on. */
int32_t gip__default_threads(void)
{
    const char *e = getenv("OMP_NUM_THREADS");
    if (!e || !*e)
        return gip__core_count();
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
}

/* Runs [*done, *done + piece) (clipped to n) timed; returns the estimated seconds of the rest. */
static double probe(gip__range_fn fn, void *arg, int64_t n, int64_t *done, int64_t piece)
{
    int64_t end = n - *done < piece ? n : *done + piece;
    double t0 = omp_get_wtime();
    fn(arg, *done, end);
    double rate = (omp_get_wtime() - t0) / (double)(end - *done);
    *done = end;
    return rate * (double)(n - end);
}

void gip__parallel_for(const gip_context *ctx, int64_t n, int64_t grain, gip__range_fn fn,
                       void *arg)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int64_t threads = ctx ? ctx->threads : gip__default_threads();
    int64_t chunks = (n + grain - 1) / grain;
    if (threads > chunks)
        threads = chunks;
    if (threads <= 1) {
        fn(arg, 0, n);
        return;
    }
    int64_t begin0 = 0; /* items done on this thread by the probe */
    if (chunks * threads <= PROBE_CHUNK_THREADS && n >= PROBE_MIN_ITEMS &&
        grain <= PROBE_MAX_GRAIN) {
        double rest = probe(fn, arg, n, &begin0, 1);
        if (rest > SERIAL_BUDGET_S && rest <= PROBE_MARGIN * SERIAL_BUDGET_S)
            rest = probe(fn, arg, n, &begin0, grain);
        if (rest <= SERIAL_BUDGET_S) {
            if (begin0 < n)
                fn(arg, begin0, n);
            return;
        }
    }
    int64_t m = n - begin0;
    if (m <= 0)
        return;
    chunks = (m + grain - 1) / grain;
    if (threads > chunks)
        threads = chunks;
    if (threads <= 1) {
        fn(arg, begin0, n);
        return;
    }
    /* A few chunks per thread balances uneven rows without much scheduling cost. */
    int64_t parts = threads * 4 < chunks ? threads * 4 : chunks;
#pragma omp parallel for num_threads((int)threads) schedule(dynamic, 1)
    for (int64_t p = 0; p < parts; p++) {
        int64_t begin = begin0 + m * p / parts;
        int64_t end = begin0 + m * (p + 1) / parts;
        if (end > begin)
            fn(arg, begin, end);
    }
}
