/* SPDX-License-Identifier: MIT */
/* The FFT family's per-context state kept outside the context structure: cached transform plans
 * (FFTW and cuFFT) and one reusable scratch buffer per context and memory kind. */
#ifndef GIP_FFT_CACHE_H
#define GIP_FFT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Transform kinds. */
typedef enum gip__fft_kind {
    GIP__FFT_R2C = 0,
    GIP__FFT_C2R = 1,
    GIP__FFT_C2C_FWD = 2,
    GIP__FFT_C2C_INV = 3,
    /* Batches of 1-D transforms on the CPU, in place, executed on parts of one buffer by several
     * threads at once (key: w = length, h = how many, stride = complex elements between rows). */
    GIP__FFT_ROWS_R2C = 4, /* h rows of w reals, each padded to `stride` complex, in place */
    GIP__FFT_BATCH_C2C =
        5, /* h forward transforms of w contiguous complex, `stride` apart, in place */
    GIP__FFT_ROWS_C2R = 6,     /* the inverse of ROWS_R2C: h rows of w/2+1 complex to w reals */
    GIP__FFT_BATCH_C2C_INV = 7 /* as BATCH_C2C, backward (unscaled) */
} gip__fft_kind;

/* What identifies a plan: the context, where it runs, its CPU thread count (FFTW plans bake it
 * in), the transform and its size, and the planning flags. */
typedef struct gip__fft_key {
    const gip_context *ctx;
    int32_t backend; /* GIP_BACKEND_CPU or GIP_BACKEND_CUDA */
    int32_t device;  /* CUDA ordinal, -1 on the CPU */
    int32_t threads;
    int32_t kind; /* gip__fft_kind */
    int64_t w, h;
    uint32_t flags;
    int64_t stride; /* batched kinds only, 0 otherwise */
} gip__fft_key;

/* Builds a plan for `key`; on success stores it in *plan and the function freeing it in
 * *destroy. Called with the cache lock held (which also serialises FFTW's planner). */
typedef gip_status (*gip__fft_plan_make)(gip_context *ctx, const gip__fft_key *key, void *arg,
                                         uintptr_t *plan, void (**destroy)(uintptr_t plan));

/* Returns the cached plan for `key` in *plan, building it with make(ctx, key, arg, ...) the first
 * time. Plans live until ctx is destroyed (the cache registers a release hook with the context). */
gip_status gip__fft_plan_get(gip_context *ctx, const gip__fft_key *key, gip__fft_plan_make make,
                             void *arg, uintptr_t *plan);

/* Runs fn(arg) with the lock that guards FFTW's planner (for FFTW calls that are not thread-safe
 * outside the cache, such as fftwf_plan_with_nthreads). */
void gip__fft_locked(void (*fn)(void *arg), void *arg);

/* A scratch buffer of at least `bytes` (64-byte aligned on the host, device memory on the GPU),
 * reused across calls on the same context. When the context's buffer is in use by another thread
 * a private one is allocated for this call. Give it back with gip__fft_scratch_release(); device
 * buffers may be released as soon as the work using them is queued (later users queue on the
 * same stream). */
typedef struct gip__fft_scratch {
    void *ptr;
    size_t bytes;
    bool device;
    bool owned; /* private allocation freed on release */
    void *entry;
} gip__fft_scratch;
gip_status gip__fft_scratch_acquire(gip_context *ctx, bool device, size_t bytes,
                                    gip__fft_scratch *out);
void gip__fft_scratch_release(gip_context *ctx, gip__fft_scratch *s);

/* ---- backend hooks of the cache (fft_cpu.c, fft_cuda.cu) ------------------------------------ */
void gip__fftw_free(void *p);
void *gip__fftw_malloc(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
