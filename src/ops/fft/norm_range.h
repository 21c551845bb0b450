/* SPDX-License-Identifier: MIT */
/* The range of a min-max normalisation gathered by the CPU's row bands (magnitude_cpu.c,
 * spectrum_cpu.c): each band finds its finite extremes and folds them in under a lock. */
#ifndef GIP_OPS_FFT_NORM_RANGE_H
#define GIP_OPS_FFT_NORM_RANGE_H

#include <pthread.h>
#include <stdbool.h>

typedef struct gip__norm_range {
    pthread_mutex_t lock;
    float lo, hi;
    bool any; /* some band found a finite value */
} gip__norm_range;

#define GIP__NORM_RANGE_INIT                                                                       \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, 0.0f, 0.0f, false                                               \
    }

/* Folds a band's extremes lo, hi in (nothing when lo > hi: the band had no finite value). */
static inline void gip__norm_range_fold(gip__norm_range *r, float lo, float hi)
{
    if (lo > hi)
        return;
    pthread_mutex_lock(&r->lock);
    if (!r->any || lo < r->lo)
        r->lo = lo;
    if (!r->any || hi > r->hi)
        r->hi = hi;
    r->any = true;
    pthread_mutex_unlock(&r->lock);
}

#endif
