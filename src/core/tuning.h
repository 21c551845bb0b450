/* SPDX-License-Identifier: MIT */
/* The environment switches of the library's engines, read once: the SIMD caps that the tests use
 * to run every CPU path, and the batch engine's and the CUDA 2-D engine's tuning knobs. */
#ifndef GIP_CORE_TUNING_H
#define GIP_CORE_TUNING_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__tuning {
    /* GIP_NOSIMD set to anything but "" or "0": the CPU's portable loops, no AVX2 or AVX-512. */
    bool nosimd;
    /* GIP_NOAVX512 (same rule): 256-bit bodies where the CPU also has 512-bit ones. */
    bool noavx512;
    /* gip__simd()'s bits: the CPU's, less those the two switches above turn off. */
    unsigned simd;
    /* GIP_F2D_RING_ROWS=N (1..64): rows a band of the CUDA 2-D engine's ring kernel; 0 when
     * unset or out of range (the kernel's own rule). */
    int32_t f2d_ring_rows;
    /* GIP_BATCH_DECODE_CALLS=N (1..1024): batch decodes at once on a device; 0 when unset or out
     * of range (the batch engine's rule). */
    int32_t batch_decode_calls;
    /* GIP_BATCH_WARM=0: the batch engine skips the codec's warm-up. */
    bool batch_no_warm;
    /* GIP_BATCH_TRACE=FILE: the batch engine writes each file's stage times there; "" when unset
     * (or longer than the buffer). */
    char batch_trace[4096];
    /* GIP_NO_TMPFILE=1: outputs are written through a named temporary, never O_TMPFILE (the path
     * of file systems without it, for the tests). */
    bool no_tmpfile;
    /* GIP_NO_LOAD_LIMIT=1: CPU jobs use the context's threads whatever the other processes keep
     * busy (by default a job uses at most the idle cores, core/parallel.c). */
    bool no_load_limit;
} gip__tuning;

/* The switches, read from the environment at the first call (thread-safe); later changes to the
 * environment are not seen, except through gip__tuning_reload(). */
const gip__tuning *gip__tuning_get(void);

/* The vector instruction sets that the CPU kernels may use, as bits: what the CPU has, less what
 * GIP_NOSIMD (all of them: the portable loops) and GIP_NOAVX512 (the AVX-512 ones) switch off.
 * Each bit implies the ones above it. One load a call: the switches take effect after
 * gip__tuning_reload(). */
enum {
    GIP__SIMD_SSSE3 = 1u << 0,
    GIP__SIMD_AVX2 = 1u << 1,   /* AVX2 and FMA */
    GIP__SIMD_AVX512 = 1u << 2, /* AVX-512 F, BW, VL and DQ */
    GIP__SIMD_VBMI = 1u << 3,   /* AVX-512 VBMI (byte permutes) */
    GIP__SIMD_VNNI = 1u << 4,   /* AVX-512 VNNI (byte dot products) */
};
unsigned gip__simd(void);

/* gip__simd() has GIP__SIMD_AVX2: the switch of the CPU's AVX2 paths of the 2-D engine, Sobel's
 * separable route, invert and Conv2d. */
int gip__simd_avx2_fma(void);

/* An engine's switch of its AVX2 paths, for the tests' hooks (gip__sep_set_simd() and its kind):
 * state -1 follows gip__simd(), 0 holds the paths off. */
typedef struct gip__simd_switch {
    int state;
} gip__simd_switch;
#define GIP__SIMD_SWITCH_INIT                                                                      \
    {                                                                                              \
        -1                                                                                         \
    }
/* Whether the engine's AVX2 paths run: gip__simd() has GIP__SIMD_AVX2 and the switch is on. */
bool gip__simd_switch_active(const gip__simd_switch *s);
/* Turns the switch on or off; returns whether the paths ran before. */
bool gip__simd_switch_set(gip__simd_switch *s, bool enable);

/* Test hook: reads the environment again (after setenv). Not thread-safe: call it while no
 * library work runs. */
void gip__tuning_reload(void);

#ifdef __cplusplus
}
#endif
#endif
