/* SPDX-License-Identifier: MIT */
/* The u8 table engine (engine/lut): every length from 0 to 300 at every offset of a 64-byte
 * line, in place and not, one table and per-channel tables, on the widest path the CPU has and
 * on the portable one (GIP_NOSIMD), against table[src[i]] written out. A CPU engine: the CUDA
 * run is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/lut/lut_u8.h"
#include "testing.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint8_t next_u8(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint8_t)(rng >> 24);
}

static void rows(void)
{
    uint8_t table[256], src[400], dst[400], want[400];
    for (int i = 0; i < 256; i++)
        table[i] = next_u8();
    for (int off = 0; off < 64; off += 7)
        for (int64_t n = 0; n <= 300; n++) {
            for (int i = 0; i < 400; i++)
                src[i] = next_u8(), dst[i] = 0xA5, want[i] = 0xA5;
            for (int64_t i = 0; i < n; i++)
                want[off + i] = table[src[off + i]];
            gip__lut_u8_row(table, src + off, dst + off, n);
            GT_CHECK(!memcmp(dst, want, sizeof dst), "lut row n=%lld offset %d", (long long)n, off);
            memcpy(dst, src, sizeof dst);
            gip__lut_u8_row(table, dst + off, dst + off, n); /* in place */
            for (int i = 0; i < 400; i++)
                if (i < off || i >= off + n)
                    want[i] = src[i];
            GT_CHECK(!memcmp(dst, want, sizeof dst), "lut row in place n=%lld offset %d",
                     (long long)n, off);
        }
    /* every index reaches its entry (both halves of the table, bit 7 set and clear) */
    for (int i = 0; i < 256; i++)
        src[i] = (uint8_t)i;
    gip__lut_u8_row(table, src, dst, 256);
    GT_CHECK(!memcmp(dst, table, 256), "lut row over 0..255");
}

static void channels(void)
{
    uint8_t t[4][256], src[4 * 130], dst[4 * 130];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 256; i++)
            t[k][i] = next_u8();
    for (int cn = 1; cn <= 4; cn++)
        for (int same = 0; same < 2; same++) {
            const uint8_t *tables[4];
            for (int k = 0; k < 4; k++)
                tables[k] = same ? t[0] : t[k];
            for (int64_t n = 0; n <= 130; n += 13) {
                for (int i = 0; i < 4 * 130; i++)
                    src[i] = next_u8();
                memset(dst, 0, sizeof dst);
                gip__lut_u8_row_cn(tables, cn, src, dst, n);
                bool ok = true;
                for (int64_t i = 0; i < n * cn; i++)
                    ok &= dst[i] == tables[i % cn][src[i]];
                for (int64_t i = n * cn; i < 4 * 130; i++)
                    ok &= dst[i] == 0;
                GT_CHECK(ok, "lut %d channels (%s tables), %lld pixels", cn,
                         same ? "equal" : "different", (long long)n);
            }
        }
}

static void body(gip_context *ctx)
{
    (void)ctx;
    for (int portable = 0; portable < 2; portable++) {
        gt_setenv("GIP_NOSIMD", portable ? "1" : NULL);
        if (gt_case())
            rows();
        if (gt_case())
            channels();
    }
    gt_setenv("GIP_NOSIMD", NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        printf("SKIP: lut_u8: a CPU engine (the CUDA tables are the point operations' tests)\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "lut_u8", body);
}
