/* SPDX-License-Identifier: MIT */
/* The gray rule of OpenCV's image codecs, which cv2.imread(IMREAD_GRAYSCALE) uses for PPM and
 * CMYK JPEG files (imgcodecs utils.cpp: 14-bit weights of 0.299, 0.587, 0.114, rounded); it
 * differs from cvtColor's 15-bit rule by a level on some pixels. */
#ifndef GIP_IO_CODEC_GRAY_H
#define GIP_IO_CODEC_GRAY_H

#include <stdint.h>

#define GIP__CODEC_GRAY_SHIFT 14
#define GIP__CODEC_GRAY_R 4899 /* (int)(0.299 * 2^14 + 0.5) */
#define GIP__CODEC_GRAY_G 9617 /* (int)(0.587 * 2^14 + 0.5) */
#define GIP__CODEC_GRAY_B (16384 - GIP__CODEC_GRAY_R - GIP__CODEC_GRAY_G)

/* Gray of 8- or 16-bit r, g, b. */
static inline uint32_t gip__codec_gray(uint32_t r, uint32_t g, uint32_t b)
{
    return (r * GIP__CODEC_GRAY_R + g * GIP__CODEC_GRAY_G + b * GIP__CODEC_GRAY_B +
            (1u << (GIP__CODEC_GRAY_SHIFT - 1))) >>
           GIP__CODEC_GRAY_SHIFT;
}

#endif
