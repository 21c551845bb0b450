/* SPDX-License-Identifier: MIT */
/* The u8 table lookup of point-wise operations on the CPU: dst[i] = table[src[i]] over a row,
 * with AVX-512 VBMI's byte permutes where the CPU has them (the 256-entry table in four
 * registers, 64 lookups in three instructions) and an unrolled scalar loop elsewhere. */
#ifndef GIP_ENGINE_LUT_U8_H
#define GIP_ENGINE_LUT_U8_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = table[src[i]] for i < n. src and dst may be the same row. */
void gip__lut_u8_row(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n);

/* The same for n pixels of cn interleaved channels, channel k through tables[k]; one pass of
 * gip__lut_u8_row() where every channel's table is the same. */
void gip__lut_u8_row_cn(const uint8_t *const tables[], int32_t cn, const uint8_t *src, uint8_t *dst,
                        int64_t n);

#ifdef __cplusplus
}
#endif
#endif
