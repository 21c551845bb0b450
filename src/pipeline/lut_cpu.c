/* SPDX-License-Identifier: MIT */
/* The table pass of fused point-wise runs on the CPU: each u8 element indexes a per-channel table
 * of the destination's dtype (engine/lut: byte tables, and 2- and 4-byte entries). */
#include <string.h>

#include "engine/lut/lut_u8.h"
#include "internal.h"
#include "pipeline_internal.h"

typedef struct lut_job {
    const gip_image *src;
    gip_image *dst;
    const uint8_t *table;
    int32_t esize;
    bool stream;           /* a destination past the caches (and not the source) */
    uint8_t split[4][256]; /* u8 to u8 with channels: the table of each channel */
    gip__lut_wide wide;    /* 2- and 4-byte entries */
} lut_job;

static void lut_rows(void *arg, int64_t y0, int64_t y1)
{
    const lut_job *j = arg;
    const int64_t c = j->src->channels, n = j->src->width * c;
    const int32_t es = j->esize;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *s = (const uint8_t *)j->src->data + y * j->src->stride;
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (es == 1 && c == 1) {
            const uint8_t *t[1] = {j->table};
            gip__lut_u8_row_cn_stream(t, 1, s, d, n, j->stream);
            continue;
        }
        if (es == 1 && c <= 4) {
            const uint8_t *t[4] = {j->split[0], j->split[1], j->split[2], j->split[3]};
            gip__lut_u8_row_cn_stream(t, (int32_t)c, s, d, j->src->width, j->stream);
            continue;
        }
        if ((es == 2 || es == 4) && c <= 4) {
            gip__lut_wide_row(&j->wide, (int32_t)c, s, d, j->src->width, j->stream);
            continue;
        }
        for (int64_t i = 0, ch = 0; i < n; i++) {
            memcpy(d + i * es, j->table + ((size_t)s[i] * (size_t)c + (size_t)ch) * (size_t)es,
                   (size_t)es);
            if (++ch == c)
                ch = 0;
        }
    }
}

void gip__lut_apply_cpu(const gip_context *ctx, const gip_image *src, gip_image *dst,
                        const void *table, int32_t esize)
{
    lut_job j = {.src = src, .dst = dst, .table = table, .esize = esize};
    const int32_t c = src->channels;
    if (esize == 1 && c > 1 && c <= 4)
        for (int32_t v = 0; v < 256; v++)
            for (int32_t ch = 0; ch < c; ch++)
                j.split[ch][v] = ((const uint8_t *)table)[v * c + ch];
    if ((esize == 2 || esize == 4) && c <= 4)
        gip__lut_wide_init(&j.wide, table, c, esize);
    j.stream = !gip__images_same(src, dst) && gip__image_span(dst) >= GIP__STREAM_BYTES;
    gip__parallel_for(ctx, src->height, 16, lut_rows, &j);
}
