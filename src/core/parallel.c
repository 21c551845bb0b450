/* SPDX-License-Identifier: MIT */
/* The CPU parallel-for that every host operation runs on: gip's own pool of worker threads,
 * which sleep while there is no work, with the calling thread taking part in every job. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tuning.h"

/* Small jobs run on the calling thread. Waking a sleeping worker costs tens of microseconds on
 * an idle machine (a worker still spinning after the last job joins within a microsecond or
 * two) and up to a scheduler time slice per thread on a loaded one (a 64x64 3x3 box took
 * hundreds of times longer on a busy machine than on one thread; idle_cores() keeps such jobs
 * on one thread), so a job whose whole work is estimated below SERIAL_BUDGET_S seconds
 * (50 us) runs where it was called.
 *
 * The arguments say how many items (rows, blocks) there are, not what they cost, so the cost is
 * measured: the first item is timed on the calling thread and the rest estimated from it. That
 * first item also carries the job's fixed costs (a filter band primes kh rows before its first
 * output), so when the estimate is within PROBE_MARGIN budgets, one grain more is timed and the
 * decision taken on its rate instead.
 *
 * A job that turns out big has then spent its first item (and one grain) on one thread before
 * the others start. Two kinds of job are probed, with grains of at most PROBE_MAX_GRAIN items
 * (longer grains mean long band priming):
 * - few chunks: chunks * threads <= PROBE_CHUNK_THREADS (on 2 threads 16 chunks: images up to
 *   128 rows for the 8-row grain of a 3x3 box), with at least PROBE_MIN_ITEMS items or
 *   PROBE_ITEMS_PER_THREAD a thread (jobs of a few heavy blocks are not probed: the probed item
 *   runs alone, at most 1 / 16 of the work on 2 threads). A 16-row image is probed: its 3x3
 *   box, called from Python, spent 3.9 us in the library instead of 11.6 through the pool.
 * - many items: at least PROBE_MANY_PER_THREAD a thread, so that the one probed item is at most
 *   1 / 32 of a thread's share whatever it costs; these take no second probe. On many cores
 *   this keeps a 512x512 image's point operation (tens of microseconds) from waking every
 *   worker.
 * Results do not depend on the split: every caller's fn handles any range. */
#define SERIAL_BUDGET_S 50e-6
#define PROBE_MARGIN 16.0
#define PROBE_CHUNK_THREADS 32
#define PROBE_MIN_ITEMS 32
#define PROBE_ITEMS_PER_THREAD 8
#define PROBE_MAX_GRAIN 16
#define PROBE_MANY_PER_THREAD 32

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

/* ---- the pool ---------------------------------------------------------------------------
 * A job is split into parts that any thread takes in turn (an atomic counter); the caller takes
 * parts too and returns once every part is done, so a job completes even when no worker joins
 * (after fork, or while every worker is busy with another caller's job). Workers sleep on a
 * condition variable between jobs after a short spin (SPIN_NS): on a machine where other
 * processes want the cores, a worker that busy-waits takes time from them and from gip's own
 * threads, and a worker descheduled while it holds a part holds up the whole job. */
#define SPIN_NS 50000
#define MAX_WORKERS 255

typedef struct job {
    gip__range_fn fn;
    void *arg;
    int64_t begin0, m, parts;
    _Atomic int64_t next;     /* the next part to take */
    _Atomic int64_t finished; /* parts done */
    /* Workers inside the job now (changed under the pool lock; the caller also reads it while
     * it spins at the end), and how many may join. */
    _Atomic int helpers;
    int helpers_max;
    struct job *link; /* the pool's list of jobs with parts left */
} job;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a job was queued */
    pthread_cond_t done; /* a job's last part ended, or its last helper left */
    job *jobs;
    /* Written under the lock; read without it by idle_cores(), which counts the awake workers
     * (spinning or running parts) as this process's own, not as other processes' load. */
    _Atomic int workers, sleeping;
    _Atomic unsigned generation; /* bumped on every queued job: what spinning workers watch */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static void run_parts(job *j)
{
    for (;;) {
        int64_t p = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (p >= j->parts)
            return;
        int64_t begin = j->begin0 + j->m * p / j->parts;
        int64_t end = j->begin0 + j->m * (p + 1) / j->parts;
        if (end > begin)
            j->fn(j->arg, begin, end);
        if (atomic_fetch_add_explicit(&j->finished, 1, memory_order_acq_rel) + 1 == j->parts) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_broadcast(&pool.done);
            pthread_mutex_unlock(&pool.mu);
        }
    }
}

/* The first queued job a worker may join (pool lock held). */
static job *joinable(void)
{
    for (job *j = pool.jobs; j; j = j->link)
        if (j->helpers < j->helpers_max &&
            atomic_load_explicit(&j->next, memory_order_relaxed) < j->parts)
            return j;
    return NULL;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *worker(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        job *j = joinable();
        if (!j) {
            /* A short spin outside the lock catches the next job of a sequence of operations
             * without a wake-up; then sleep. */
            unsigned gen = atomic_load_explicit(&pool.generation, memory_order_acquire);
            pthread_mutex_unlock(&pool.mu);
            const int64_t t0 = now_ns();
            while (atomic_load_explicit(&pool.generation, memory_order_acquire) == gen &&
                   now_ns() - t0 < SPIN_NS)
                sched_yield();
            pthread_mutex_lock(&pool.mu);
            if (atomic_load_explicit(&pool.generation, memory_order_acquire) == gen &&
                !joinable()) {
                atomic_fetch_add_explicit(&pool.sleeping, 1, memory_order_relaxed);
                pthread_cond_wait(&pool.work, &pool.mu);
                atomic_fetch_sub_explicit(&pool.sleeping, 1, memory_order_relaxed);
            }
            continue;
        }
        j->helpers++;
        pthread_mutex_unlock(&pool.mu);
        run_parts(j);
        pthread_mutex_lock(&pool.mu);
        if (--j->helpers == 0)
            pthread_cond_broadcast(&pool.done);
    }
    return NULL;
}

/* After fork the child has none of the parent's workers: it starts with an empty pool. */
static void pool_after_fork(void)
{
    pthread_mutex_init(&pool.mu, NULL);
    pthread_cond_init(&pool.work, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.jobs = NULL;
    atomic_store_explicit(&pool.workers, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.sleeping, 0, memory_order_relaxed);
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static void pool_init(void)
{
    pthread_atfork(NULL, NULL, pool_after_fork);
}

/* Grows the pool to `want` workers (pool lock held); fewer when threads cannot be created, which
 * only makes the caller do more of the job itself. */
static void grow(int want)
{
    if (want > MAX_WORKERS)
        want = MAX_WORKERS;
    while (pool.workers < want) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        int r = pthread_create(&t, &a, worker, NULL);
        pthread_attr_destroy(&a);
        if (r != 0)
            return;
        atomic_fetch_add_explicit(&pool.workers, 1, memory_order_relaxed);
    }
}

static _Atomic uint64_t pool_jobs; /* jobs handed to the pool (gip__parallel_pool_jobs) */

uint64_t gip__parallel_pool_jobs(void)
{
    return atomic_load_explicit(&pool_jobs, memory_order_relaxed);
}

static void run_job(gip__range_fn fn, void *arg, int64_t begin0, int64_t m, int64_t parts,
                    int64_t threads)
{
    pthread_once(&pool_once, pool_init);
    atomic_fetch_add_explicit(&pool_jobs, 1, memory_order_relaxed);
    job j = {.fn = fn,
             .arg = arg,
             .begin0 = begin0,
             .m = m,
             .parts = parts,
             .helpers_max = (int)(threads - 1)};
    pthread_mutex_lock(&pool.mu);
    grow((int)(threads - 1));
    j.link = pool.jobs;
    pool.jobs = &j;
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
    if (pool.sleeping)
        pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.mu);

    run_parts(&j);

    pthread_mutex_lock(&pool.mu);
    for (job **pp = &pool.jobs; *pp; pp = &(*pp)->link)
        if (*pp == &j) {
            *pp = j.link;
            break;
        }
    pthread_mutex_unlock(&pool.mu);
    /* The helpers' last parts end within microseconds of the caller's: wait for them spinning a
     * while, as a sleep and wake-up costs about as much as a short job, then sleep. A helper's
     * decrement of j.helpers (under the lock) is its last touch of the job. */
    const int64_t t0 = now_ns();
    while ((atomic_load_explicit(&j.finished, memory_order_acquire) < parts ||
            atomic_load_explicit(&j.helpers, memory_order_acquire) > 0) &&
           now_ns() - t0 < SPIN_NS)
        sched_yield();
    pthread_mutex_lock(&pool.mu);
    while (atomic_load_explicit(&j.finished, memory_order_acquire) < parts || j.helpers > 0)
        pthread_cond_wait(&pool.done, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
}

/* ---- how many threads -------------------------------------------------------------------
 * Where other processes already keep the cores busy, threads beyond the idle cores only queue
 * behind them, and a job waits for its slowest part (a descheduled thread's): a 4K Sobel took
 * several times its one-thread time on two threads of a 2-core machine running two busy
 * processes. So a job uses at most the cores that are not running other tasks, as the kernel's
 * count of runnable tasks (/proc/loadavg, read at most every LOAD_PERIOD_NS) tells, when that
 * count is of the CPUs this process runs on (the affinity mask covers every online CPU). */
#define LOAD_PERIOD_NS 20000000

static int64_t idle_cores(int64_t cores)
{
    static _Atomic int64_t last_ns, last_others = -1;
    static _Atomic int usable = -1;
    int u = atomic_load_explicit(&usable, memory_order_relaxed);
    if (u < 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        u = online > 0 && online == cores;
        atomic_store_explicit(&usable, u, memory_order_relaxed);
    }
    if (!u || gip__tuning_get()->no_load_limit)
        return cores;
    const int64_t t = now_ns();
    int64_t others = atomic_load_explicit(&last_others, memory_order_relaxed);
    if (others < 0 || t - atomic_load_explicit(&last_ns, memory_order_relaxed) >= LOAD_PERIOD_NS) {
        others = 0;
        FILE *f = fopen("/proc/loadavg", "re");
        if (f) {
            double l1, l5, l15;
            long running, total;
            /* "0.52 0.58 0.59 3/250 12345": runnable tasks / all tasks. This thread and the
             * pool's awake workers (spinning between jobs, or running parts) are among the
             * runnable ones: they are this process's, not other load. */
            if (fscanf(f, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running, &total) == 5) {
                const int64_t awake = atomic_load_explicit(&pool.workers, memory_order_relaxed) -
                                      atomic_load_explicit(&pool.sleeping, memory_order_relaxed);
                others = running - 1 - (awake > 0 ? awake : 0);
                if (others < 0)
                    others = 0;
            }
            fclose(f);
        }
        atomic_store_explicit(&last_others, others, memory_order_relaxed);
        atomic_store_explicit(&last_ns, t, memory_order_relaxed);
    }
    return cores - others < 1 ? 1 : cores - others;
}

/* Runs [*done, *done + piece) (clipped to n) timed; returns the estimated seconds of the rest. */
static double probe(gip__range_fn fn, void *arg, int64_t n, int64_t *done, int64_t piece)
{
    int64_t end = n - *done < piece ? n : *done + piece;
    const int64_t t0 = now_ns();
    fn(arg, *done, end);
    double rate = (double)(now_ns() - t0) * 1e-9 / (double)(end - *done);
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
    const bool few = chunks * threads <= PROBE_CHUNK_THREADS &&
                     (n >= PROBE_MIN_ITEMS || n >= PROBE_ITEMS_PER_THREAD * threads);
    const bool many = n >= PROBE_MANY_PER_THREAD * threads;
    if ((few || many) && grain <= PROBE_MAX_GRAIN) {
        double rest = probe(fn, arg, n, &begin0, 1);
        if (few && rest > SERIAL_BUDGET_S && rest <= PROBE_MARGIN * SERIAL_BUDGET_S)
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
    const int64_t idle = idle_cores(gip__core_count());
    if (threads > idle)
        threads = idle;
    if (threads <= 1) {
        fn(arg, begin0, n);
        return;
    }
    /* A few parts per thread balances uneven rows without much scheduling cost. */
    int64_t parts = threads * 4 < chunks ? threads * 4 : chunks;
    run_job(fn, arg, begin0, m, parts, threads);
}
