/* SPDX-License-Identifier: MIT */
/* The CPU parallel-for that every host operation runs on (OpenMP threads of the context). */
#include <omp.h>

#include "internal.h"

int32_t gip__default_threads(void)
{
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
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
    /* A few chunks per thread balances uneven rows without much scheduling cost. */
    int64_t parts = threads * 4 < chunks ? threads * 4 : chunks;
#pragma omp parallel for num_threads((int)threads) schedule(dynamic, 1)
    for (int64_t p = 0; p < parts; p++) {
        int64_t begin = n * p / parts;
        int64_t end = n * (p + 1) / parts;
        if (end > begin)
            fn(arg, begin, end);
    }
}
