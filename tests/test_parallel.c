/* SPDX-License-Identifier: MIT */
/* The CPU parallel-for (src/core/parallel.c): every item runs exactly once whatever the split,
 * and a small job runs on the calling thread instead of waking the pool (a 16-row image's 3x3
 * box spent 11.6 us in the library through two threads, 3.9 us on the caller). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testing.h"

typedef struct count_job {
    _Atomic int32_t *hits; /* per item */
    pthread_t caller;
    _Atomic int32_t elsewhere; /* ranges run on another thread than the caller */
    int64_t n;
    _Atomic int32_t bad_range;
} count_job;

static void count_range(void *arg, int64_t begin, int64_t end)
{
    count_job *j = arg;
    if (begin < 0 || end > j->n || begin >= end)
        atomic_store(&j->bad_range, 1);
    for (int64_t i = begin; i < end && i < j->n; i++)
        if (i >= 0)
            atomic_fetch_add(&j->hits[i], 1);
    if (!pthread_equal(pthread_self(), j->caller))
        atomic_fetch_add(&j->elsewhere, 1);
}

static gip_context *cpu_context(int32_t threads)
{
    gip_context_desc d = {.backend = GIP_BACKEND_CPU, .threads = threads};
    gip_context *ctx = NULL;
    if (gip_context_create(&d, &ctx) != GIP_OK) {
        printf("cannot create a CPU context of %d threads: %s\n", (int)threads, gip_last_error());
        exit(1);
    }
    return ctx;
}

/* Runs count_range over n items in grains of `grain`; returns the ranges run elsewhere. */
static int32_t run_count(gip_context *ctx, int64_t n, int64_t grain)
{
    count_job j = {.caller = pthread_self(), .n = n};
    j.hits = calloc((size_t)(n > 0 ? n : 1), sizeof *j.hits);
    if (!j.hits) {
        printf("out of memory\n");
        exit(1);
    }
    gip__parallel_for(ctx, n, grain, count_range, &j);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; i++)
        wrong += atomic_load(&j.hits[i]) != 1;
    GT_CHECK(wrong == 0 && !atomic_load(&j.bad_range),
             "n %lld grain %lld on %d threads: %lld items not run exactly once, bad range %d",
             (long long)n, (long long)grain, (int)gip_context_threads(ctx), (long long)wrong,
             (int)atomic_load(&j.bad_range));
    free(j.hits);
    return atomic_load(&j.elsewhere);
}

static void test_coverage(void)
{
    static const int64_t ns[] = {0, 1, 2, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4097};
    static const int64_t grains[] = {0, 1, 3, 8, 16, 64};
    static const int32_t threads[] = {1, 2, 3, 4, 8};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        gip_context *ctx = cpu_context(threads[t]);
        for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
            for (size_t g = 0; g < sizeof grains / sizeof *grains; g++)
                run_count(ctx, ns[a], grains[g]);
        gip_context_destroy(ctx);
    }
}

/* Jobs of almost no work on 2 threads are probed and run where they were called, without waking
 * the pool. Before, jobs under 32 items, and jobs of more than 16 chunks, were not probed and went
 * to the pool whenever a core was idle. Timing decides (a preempted probe can send a job to the
 * pool), so most runs must stay on the caller, not every one. */
static void test_small_job_stays(void)
{
    /* Threads as if every core were idle: otherwise a busy machine would keep the job on the
     * caller whatever its size, and the check could not fail. */
    gt_setenv("GIP_NO_LOAD_LIMIT", "1");
    gip_context *ctx = cpu_context(2);
    int32_t stayed = 0;
    const int32_t runs = 20;
    /* 16 items: few chunks (probed since jobs of 8 items a thread are); 512 items in grains of
     * 8: many items (probed since jobs of 32 items a thread are). */
    static const int64_t sizes[][2] = {{16, 8}, {512, 8}};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (int32_t r = 0; r < runs; r++) {
            const uint64_t before = gip__parallel_pool_jobs();
            const int32_t elsewhere = run_count(ctx, sizes[k][0], sizes[k][1]);
            stayed += elsewhere == 0 && gip__parallel_pool_jobs() == before;
        }
        GT_CHECK(stayed >= runs - 3,
                 "a %lld-item job of no work stayed on the calling thread in %d of %d runs",
                 (long long)sizes[k][0], (int)stayed, (int)runs);
        stayed = 0;
    }
    gip_context_destroy(ctx);
    gt_setenv("GIP_NO_LOAD_LIMIT", NULL);
}

/* A big job goes to the pool (with the load limit off: on a busy machine it would rightly stay). */
static void test_big_job_spreads(void)
{
    gt_setenv("GIP_NO_LOAD_LIMIT", "1");
    gip_context *ctx = cpu_context(2);
    const uint64_t before = gip__parallel_pool_jobs();
    run_count(ctx, 1 << 20, 1);
    GT_CHECK(gip__parallel_pool_jobs() > before, "a job of 2^20 items did not go to the pool");
    gip_context_destroy(ctx);
    gt_setenv("GIP_NO_LOAD_LIMIT", NULL);
}

static void body(gip_context *ctx)
{
    (void)ctx;
    test_coverage();
    test_small_job_stays();
    test_big_job_spreads();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        printf("SKIP: parallel: the CPU parallel-for (no CUDA part)\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "parallel", body);
}
