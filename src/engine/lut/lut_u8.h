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

/* gip__lut_u8_row_cn() with streaming stores where stream is set, dst is not src and the vector
 * path runs (a destination too large for the caches); the stores are fenced before it returns. */
void gip__lut_u8_row_cn_stream(const uint8_t *const tables[], int32_t cn, const uint8_t *src,
                               uint8_t *dst, int64_t n, bool stream);

/* A table of 2- or 4-byte entries indexed by u8 elements (the pipeline's fused pass from u8 into
 * u16, s16 or f32): per channel, each entry widened to 32 bits, and the row function chosen by
 * what the CPU has (AVX-512 or AVX2 gathers, a scalar loop; GIP_NOSIMD and GIP_NOAVX512
 * respected when the table is set up). */
typedef struct gip__lut_wide {
    uint32_t t[4][256]; /* channel k's entries, zero-extended */
    int32_t cn;         /* channels of the rows; 1 where every channel's entries are equal */
    int32_t esize;      /* bytes a destination element: 2 or 4 */
    int32_t level;      /* 0: scalar, 1: AVX2, 2: AVX-512 */
} gip__lut_wide;

/* Sets w up from `table`: 256 * cn entries of esize bytes (2 or 4), entry of value v and channel
 * k at (v * cn + k) * esize, as the pipeline's table image holds them. cn is 1 to 4. */
void gip__lut_wide_init(gip__lut_wide *w, const void *table, int32_t cn, int32_t esize);

/* dst element i (esize bytes, host order) = the entry of src[i] for channel i % cn, over n pixels
 * of cn interleaved channels (cn as given to the init, whatever it kept). stream: write with
 * streaming stores where the vector paths can (dst too large for the caches); the row's stores are
 * fenced before the function returns. dst must not overlap src. */
void gip__lut_wide_row(const gip__lut_wide *w, int32_t cn, const uint8_t *src, void *dst, int64_t n,
                       bool stream);

#ifdef __cplusplus
}
#endif
#endif
