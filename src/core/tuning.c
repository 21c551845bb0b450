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

static void read_env(void)
{
    gip__tuning t;
    memset(&t, 0, sizeof t);
    t.nosimd = flag("GIP_NOSIMD");
    t.noavx512 = flag("GIP_NOAVX512");
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

int gip__simd_avx2_fma(void)
{
    if (gip__tuning_get()->nosimd)
        return 0;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

int gip__simd_avx512_vbmi(void)
{
    if (!gip__simd_avx2_fma() || gip__tuning_get()->noavx512)
        return 0;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vbmi");
#else
    return 0;
#endif
}

void gip__tuning_reload(void)
{
    pthread_once(&once, read_env);
    read_env();
}
