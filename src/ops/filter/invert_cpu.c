/* SPDX-License-Identifier: MIT */
/* gip_invert on the CPU: one pass per row band. u8 and u16 inversion is a bitwise NOT of the
 * row's bytes, f32 is max - x. With AVX2 (the CPU switch gip__simd_avx2_fma) 32 bytes
 * at a time, and destinations too large for the caches are written with streaming stores; the
 * plain loops, which the compiler vectorises for the baseline ISA, are always built. */
#include <stdint.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define INV_X86 1
#endif
#include "tuning.h"
#include "invert.h"

typedef struct invert_job {
    const gip_image *src;
    gip_image *dst;
    float max;
    int simd;
    int stream; /* dst spans GIP__STREAM_BYTES or more and is not the source */
} invert_job;

#ifdef INV_X86
/* NOT of n bytes; stream: from d's first 32-byte boundary on, past the caches. s may equal d
 * (each 32-byte block is loaded before it is stored). */
__attribute__((target("avx2"))) static void inv_bytes_avx2(const uint8_t *s, uint8_t *d, int64_t n,
                                                           int stream)
{
    int64_t i = 0;
    const __m256i ones = _mm256_set1_epi8(-1);
    if (stream)
        for (; i < n && ((uintptr_t)(d + i) & 31); i++)
            d[i] = (uint8_t)~s[i];
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s + i)), ones);
        if (stream)
            _mm256_stream_si256((__m256i *)(d + i), v);
        else
            _mm256_storeu_si256((__m256i *)(d + i), v);
    }
    for (; i < n; i++)
        d[i] = (uint8_t)~s[i];
}

/* m - x of n floats, the same IEEE subtraction as the plain loop. */
__attribute__((target("avx2"))) static void inv_f32_avx2(const float *s, float *d, int64_t n,
                                                         float m, int stream)
{
    int64_t i = 0;
    const __m256 mm = _mm256_set1_ps(m);
    stream = stream && ((uintptr_t)d & 3) == 0;
    if (stream)
        for (; i < n && ((uintptr_t)(d + i) & 31); i++)
            d[i] = m - s[i];
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_sub_ps(mm, _mm256_loadu_ps(s + i));
        if (stream)
            _mm256_stream_ps(d + i, v);
        else
            _mm256_storeu_ps(d + i, v);
    }
    for (; i < n; i++)
        d[i] = m - s[i];
}
#endif

static void inv_row_plain(gip_dtype dt, const char *s, char *d, int64_t n, float m)
{
    switch (dt) {
    case GIP_U8: {
        const uint8_t *restrict sp = (const uint8_t *)s;
        uint8_t *restrict dp = (uint8_t *)d;
        if (sp == dp) {
            for (int64_t i = 0; i < n; i++)
                dp[i] = (uint8_t)~dp[i];
        } else {
            for (int64_t i = 0; i < n; i++)
                dp[i] = (uint8_t)~sp[i];
        }
        return;
    }
    case GIP_U16: {
        const uint16_t *sp = (const uint16_t *)s;
        uint16_t *dp = (uint16_t *)d;
        for (int64_t i = 0; i < n; i++)
            dp[i] = (uint16_t)~sp[i];
        return;
    }
    default: {
        const float *sp = (const float *)s;
        float *dp = (float *)d;
        for (int64_t i = 0; i < n; i++)
            dp[i] = m - sp[i];
        return;
    }
    }
}

static void invert_rows(void *arg, int64_t begin, int64_t end)
{
    const invert_job *j = arg;
    const gip_dtype dt = j->src->dtype;
    const int64_t n = j->src->width * j->src->channels;
    for (int64_t y = begin; y < end; y++) {
        const char *s = (const char *)j->src->data + y * j->src->stride;
        char *d = (char *)j->dst->data + y * j->dst->stride;
#ifdef INV_X86
        if (j->simd) {
            if (dt == GIP_F32)
                inv_f32_avx2((const float *)s, (float *)d, n, j->max, j->stream);
            else
                inv_bytes_avx2((const uint8_t *)s, (uint8_t *)d, n * gip_dtype_size(dt), j->stream);
            continue;
        }
#endif
        inv_row_plain(dt, s, d, n, j->max);
    }
#ifdef INV_X86
    if (j->stream)
        _mm_sfence(); /* the streamed rows are visible before the band counts as done */
#endif
}

gip_status gip__invert_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, float max)
{
    invert_job job = {src, dst, max, gip__simd_avx2_fma(), 0};
    /* Streaming pays where the lines would otherwise be read for nothing: not in place (on two
     * threads it took a fifth to a third off large u8c3 images). */
    job.stream =
        job.simd && !gip__images_same(src, dst) && gip__image_span(dst) >= GIP__STREAM_BYTES;
    /* Rows are independent; 64 KiB of pixels is enough work for a thread to start on. */
    int64_t row = src->width * src->channels * (int64_t)gip_dtype_size(src->dtype);
    int64_t grain = row >= 65536 ? 1 : 65536 / (row > 0 ? row : 1);
    gip__parallel_for(ctx, src->height, grain, invert_rows, &job);
    return GIP_OK;
}
