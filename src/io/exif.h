/* SPDX-License-Identifier: MIT */
/* Private interface of exif.c: the EXIF Orientation tag and turning a decoded image upright. */
#ifndef GIP_IO_EXIF_H
#define GIP_IO_EXIF_H

#include <stddef.h>
#include <stdint.h>

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Orientation (tag 0x0112) of IFD0 in an EXIF block: `tiff` points at the TIFF header
 * ("II*\0" or "MM\0*", what follows "Exif\0\0" in a JPEG APP1 segment), `size` bytes of it.
 * Returns the tag's value (0..65535; only 1..8 mean something), or -1 when the block has no
 * such tag or is malformed or truncated before it: bad data are ignored, nothing past `size` is
 * read. As OpenCV's ExifReader, the value is the 16-bit number at the start of the entry's value
 * field whatever type the entry declares. */
int gip__exif_orientation(const uint8_t *tiff, size_t size);

/* Turns a host image upright for EXIF orientation 2..8 as cv2.imread does (2 mirror, 3 rotate
 * 180, 4 flip, 5 transpose, 6 rotate 90 clockwise, 7 transverse, 8 rotate 90 counter-clockwise);
 * 0 and 1 leave it. Any dtype and channel count. Orientations 5..8 swap width and height: *img
 * is replaced by a new image from gip_image_alloc(NULL, ...) and the old one freed. On failure
 * (GIP_ERR_OUT_OF_MEMORY) *img is unchanged. */
gip_status gip__exif_apply(gip_image *img, int orientation, const char *what);

/* The EXIF Orientation of a JPEG whose header was read with APP1 markers saved
 * (jpeg_save_markers(ci, JPEG_APP0 + 1, 0xffff)): the tag's value (0 when there is none). */
struct jpeg_decompress_struct;
int gip__jpeg_orientation(struct jpeg_decompress_struct *ci);

#ifdef __cplusplus
}
#endif
#endif
