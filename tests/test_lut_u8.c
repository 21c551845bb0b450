/* SPDX-License-Identifier: MIT */
/* The u8 table engine (engine/lut): every length from 0 to 300 at every offset of a 64-byte
 * line, in place and not, one table and per-channel tables, step tables (a threshold's, looked up
 * by a compare), and tables of 2- and 4-byte entries, on the widest path the CPU has, on AVX2
 * (GIP_NOAVX512) and on the portable one (GIP_NOSIMD), against table[src[i]] written out. A CPU
 * engine: the CUDA run is skipped. */
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

/* Table kinds: 0 random; 1..6 a step (one value below an index, another from it on: a
 * threshold's, looked up by a compare) at 0 (one value throughout), 1, 100, 128, 129, 255; 7 two
 * steps (the permutes again); 8 a step whose values differ in their low bit only. */
static void make_table(int kind, uint8_t table[256])
{
    static const int at[] = {0, 0, 1, 100, 128, 129, 255};
    const uint8_t a = next_u8(), b = kind == 8 ? (uint8_t)(a ^ 1) : (uint8_t)(a ^ 0x5A);
    for (int i = 0; i < 256; i++)
        table[i] = kind == 0   ? next_u8()
                   : kind == 7 ? (i < 40    ? a
                                  : i < 200 ? b
                                            : a)
                   : kind == 8 ? (i < 77 ? a : b)
                               : (i < at[kind] ? a : b);
}

static void rows(void)
{
    uint8_t table[256], src[400], dst[400], want[400];
    for (int kind = 0; kind < 9; kind++) {
        make_table(kind, table);
        for (int off = 0; off < 64; off += 7)
            for (int64_t n = 0; n <= 300; n += (kind == 0 ? 1 : 7)) {
                for (int i = 0; i < 400; i++)
                    src[i] = next_u8(), dst[i] = 0xA5, want[i] = 0xA5;
                for (int64_t i = 0; i < n; i++)
                    want[off + i] = table[src[off + i]];
                gip__lut_u8_row(table, src + off, dst + off, n);
                GT_CHECK(!memcmp(dst, want, sizeof dst), "lut row table kind %d n=%lld offset %d",
                         kind, (long long)n, off);
                memcpy(dst, src, sizeof dst);
                gip__lut_u8_row(table, dst + off, dst + off, n); /* in place */
                for (int i = 0; i < 400; i++)
                    if (i < off || i >= off + n)
                        want[i] = src[i];
                GT_CHECK(!memcmp(dst, want, sizeof dst),
                         "lut row in place table kind %d n=%lld offset %d", kind, (long long)n,
                         off);
            }
        /* every index reaches its entry (both halves of the table, bit 7 set and clear) */
        for (int i = 0; i < 256; i++)
            src[i] = (uint8_t)i;
        gip__lut_u8_row(table, src, dst, 256);
        GT_CHECK(!memcmp(dst, table, 256), "lut row over 0..255, table kind %d", kind);
    }
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

/* 2- and 4-byte entries (the pipeline's table pass into u16, s16 and f32): every channel count,
 * equal and different channel tables, lengths across the vector steps and their tails, every
 * byte offset of the destination, streaming and cached stores; the bytes past the row untouched. */
static void wide(void)
{
    enum { MAXN = 4 * 150, PAD = 80 };
    static uint8_t table[256 * 4 * 4], src[MAXN + 64];
    static uint8_t dst[(MAXN + PAD) * 4 + 64], want[(MAXN + PAD) * 4 + 64];
    for (int32_t es = 2; es <= 4; es += 2)
        for (int32_t cn = 1; cn <= 4; cn++)
            for (int same = 0; same < 2; same++) {
                for (int i = 0; i < 256 * cn * es; i++)
                    table[i] = next_u8();
                if (same) /* every channel's entry of v equal to channel 0's */
                    for (int v = 0; v < 256; v++)
                        for (int k = 1; k < cn; k++)
                            memcpy(table + (v * cn + k) * es, table + v * cn * es, (size_t)es);
                gip__lut_wide w;
                gip__lut_wide_init(&w, table, cn, es);
                GT_CHECK(w.esize == es && (w.cn == 1 || w.cn == cn) && (!same || w.cn == 1),
                         "wide init: esize %d cn %d", (int)w.esize, (int)w.cn);
                for (int64_t n = 0; n <= 150; n += (n < 40 ? 1 : 11))
                    for (int off = 0; off < 64; off += (off < 8 ? 1 : 13))
                        for (int stream = 0; stream < 2; stream++) {
                            const int soff = off % 7;
                            for (int64_t i = 0; i < n * cn; i++)
                                src[soff + i] = next_u8();
                            memset(dst, 0xA5, sizeof dst);
                            memset(want, 0xA5, sizeof want);
                            for (int64_t i = 0; i < n * cn; i++)
                                memcpy(want + off + i * es,
                                       table + ((size_t)src[soff + i] * cn + (size_t)(i % cn)) * es,
                                       (size_t)es);
                            gip__lut_wide_row(&w, cn, src + soff, dst + off, n, stream);
                            GT_CHECK(!memcmp(dst, want, sizeof dst),
                                     "wide lut: %d-byte entries, %d channels (%s), %lld pixels, "
                                     "dst offset %d, %s stores",
                                     (int)es, (int)cn, same ? "equal" : "different", (long long)n,
                                     off, stream ? "streaming" : "cached");
                        }
            }
}

static void body(gip_context *ctx)
{
    (void)ctx;
    static const char *const caps[][2] = {{NULL, NULL}, {NULL, "1"}, {"1", NULL}};
    for (int level = 0; level < 3; level++) {
        /* the widest path, AVX2 under GIP_NOAVX512, the portable one under GIP_NOSIMD */
        gt_setenv("GIP_NOSIMD", caps[level][0]);
        gt_setenv("GIP_NOAVX512", caps[level][1]);
        if (gt_case())
            rows();
        if (gt_case())
            channels();
        if (gt_case())
            wide();
    }
    gt_setenv("GIP_NOSIMD", NULL);
    gt_setenv("GIP_NOAVX512", NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        printf("SKIP: lut_u8: a CPU engine (the CUDA tables are the point operations' tests)\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "lut_u8", body);
}
