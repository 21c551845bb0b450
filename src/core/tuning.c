/* SPDX-License-Identifier: MIT */
/* The environment switches of the library's engines (tuning.h), read once at first use, so that
 * no operation reads the environment per call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

static gip__tuning tuning;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Set and not "0". */
static bool flag(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

/* An integer in [lo, hi], or 0. */
static int32_t count(const char *name, int32_t lo, int32_t hi)
{
    const char *v = getenv(name);
    int n = v ? atoi(v) : 0;
    return n >= lo && n <= hi ? (int32_t)n : 0;
}

/* The CPU's instruction sets, as gip__simd()'s bits (each implying those above it). */
static unsigned cpu_simd(void)
{
    unsigned v = 0;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("ssse3"))
        return 0;
    v |= GIP__SIMD_SSSE3;
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return v;
    v |= GIP__SIMD_AVX2;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512dq"))
        return v;
    v |= GIP__SIMD_AVX512;
    if (__builtin_cpu_supports("avx512vbmi"))
        v |= GIP__SIMD_VBMI;
    if (__builtin_cpu_supports("avx512vnni"))
        v |= GIP__SIMD_VNNI;
#endif
    return v;
}

static void read_env(void)
{
    gip__tuning t;
    memset(&t, 0, sizeof t);
    t.nosimd = flag("GIP_NOSIMD");
    t.noavx512 = flag("GIP_NOAVX512");
    t.simd = t.nosimd     ? 0
             : t.noavx512 ? cpu_simd() & (GIP__SIMD_SSSE3 | GIP__SIMD_AVX2)
                          : cpu_simd();
    t.f2d_ring_rows = count("GIP_F2D_RING_ROWS", 1, 64);
    t.batch_decode_calls = count("GIP_BATCH_DECODE_CALLS", 1, 1024);
    const char *warm = getenv("GIP_BATCH_WARM");
    t.batch_no_warm = warm && strcmp(warm, "0") == 0;
    const char *trace = getenv("GIP_BATCH_TRACE");
    if (trace && strlen(trace) < sizeof t.batch_trace)
        snprintf(t.batch_trace, sizeof t.batch_trace, "%s", trace);
    const char *tmp = getenv("GIP_NO_TMPFILE");
    t.no_tmpfile = tmp && tmp[0] == '1';
    t.no_load_limit = flag("GIP_NO_LOAD_LIMIT");
    tuning = t;
}

const gip__tuning *gip__tuning_get(void)
{
    pthread_once(&once, read_env);
    return &tuning;
}

unsigned gip__simd(void)
{
    return gip__tuning_get()->simd;
}

int gip__simd_avx2_fma(void)
{
    return (gip__simd() & GIP__SIMD_AVX2) != 0;
}

bool gip__simd_switch_active(const gip__simd_switch *s)
{
    return __atomic_load_n(&s->state, __ATOMIC_RELAXED) != 0 && gip__simd_avx2_fma();
}

bool gip__simd_switch_set(gip__simd_switch *s, bool enable)
{
    const bool prev = gip__simd_switch_active(s);
    __atomic_store_n(&s->state, enable ? -1 : 0, __ATOMIC_RELAXED);
    return prev;
}

void gip__tuning_reload(void)
{
    pthread_once(&once, read_env);
    read_env();
}
