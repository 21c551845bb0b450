/* SPDX-License-Identifier: MIT */
/* gip_invert on the CPU: one pass per row band; the loops are plain so that the compiler
 * vectorises them (u8 and u16 inversion is a bitwise NOT). */
#include <stdint.h>

#include "invert.h"

typedef struct invert_job {
    const gip_image *src;
    gip_image *dst;
    float max;
} invert_job;

static void invert_rows(void *arg, int64_t begin, int64_t end)
{
    const invert_job *j = arg;
    int64_t n = j->src->width * j->src->channels;
    for (int64_t y = begin; y < end; y++) {
        const char *s = (const char *)j->src->data + y * j->src->stride;
        char *d = (char *)j->dst->data + y * j->dst->stride;
        switch (j->src->dtype) {
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
            break;
        }
        case GIP_U16: {
            const uint16_t *sp = (const uint16_t *)s;
            uint16_t *dp = (uint16_t *)d;
            for (int64_t i = 0; i < n; i++)
                dp[i] = (uint16_t)~sp[i];
            break;
        }
        default: {
            const float *sp = (const float *)s;
            float *dp = (float *)d;
            float m = j->max;
            for (int64_t i = 0; i < n; i++)
                dp[i] = m - sp[i];
            break;
        }
        }
    }
}

gip_status gip__invert_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, float max)
{
    invert_job job = {src, dst, max};
    /* Rows are independent; 64 KiB of pixels is enough work for a thread to start on. */
    int64_t row = src->width * src->channels * (int64_t)gip_dtype_size(src->dtype);
    int64_t grain = row >= 65536 ? 1 : 65536 / (row > 0 ? row : 1);
    gip__parallel_for(ctx, src->height, grain, invert_rows, &job);
    return GIP_OK;
}
