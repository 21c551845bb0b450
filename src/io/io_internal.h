/* SPDX-License-Identifier: MIT */
/* Private interface between the I/O entry points (io.c) and the codecs (jpeg.c, png.c, pnm.c). */
#ifndef GIP_IO_INTERNAL_H
#define GIP_IO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gip/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True on a little-endian host: 16-bit PNG, PNM and the row streams store big-endian samples. */
static inline bool gip__little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* A load request with every default filled in. */
typedef struct gip__load_req {
    gip_load_mode mode;
    bool bgr;
    bool keep_depth;
    int64_t max_pixels;
    int64_t max_dim;
    bool orient;    /* turn the image upright by its EXIF Orientation (not ignore_orientation) */
    int32_t reduce; /* 1, 2, 4 or 8: gip_load_params.reduce */
} gip__load_req;

/* What a codec decoded: a host image from gip_image_alloc(NULL, ...) with 1 to 4 channels as the
 * codec produced them (2 = gray+alpha), u8 or u16 in host byte order. A codec may already have
 * applied part of the request (JPEG decodes straight to gray or BGR, PNG to gray by libpng's
 * rule); `bgr` says whether the colour channels are in BGR(A) order. io.c turns it into what the
 * request asks for, then upright by `orientation` when the request says so. */
typedef struct gip__raw {
    gip_image img;
    bool bgr;
    int orientation; /* EXIF Orientation found by the codec (2..8 turn the image), else 0 or 1 */
} gip__raw;

/* A save request with every default filled in and the format resolved. */
typedef struct gip__save_req {
    gip_format format;
    int32_t quality;
    gip_subsampling subsampling;
    bool progressive;
    int32_t png_compression;
    bool bgr;
} gip__save_req;

/* A growing output buffer (malloc'd, so the caller may hand `data` to gip_free()). */
typedef struct gip__buf {
    uint8_t *data;
    size_t size;
    size_t cap;
} gip__buf;

/* Appends n bytes; false when memory ran out (the buffer is unchanged then). */
bool gip__buf_append(gip__buf *buf, const void *bytes, size_t n);

/* GIP_ERR_TOO_LARGE with a message naming the limit when width x height is above the request's
 * limits; called by every codec right after the header, before any pixel memory exists.
 * `what` prefixes the message ("gip_image_load: 'a.png'"). */
gip_status gip__io_check_limits(const char *what, int64_t width, int64_t height,
                                const gip__load_req *req);

/* Codecs. `what` prefixes every message. Decoders return GIP_OK with raw filled, or an error with
 * nothing allocated. Encoders return a malloc'd buffer in *data and *size. The image given to an
 * encoder has been checked by io.c: host memory, a dtype and channel count the format stores. */
gip_status gip__jpeg_probe(const uint8_t *data, size_t size, const char *what,
                           gip_image_info *info);
gip_status gip__jpeg_decode(const uint8_t *data, size_t size, const char *what,
                            const gip__load_req *req, gip__raw *raw);
/* Whether the n bytes at d start with JPEG's signature (FF D8 FF). */
bool gip__io_is_jpeg(const uint8_t *d, size_t n);

/* Rows [y, y + h) of a JPEG with three colour components (YCbCr or RGB) as RGB (BGR with bgr),
 * columns from x, at least w of them: libjpeg skips the inverse DCT and colour conversion of the
 * rows above and of the columns outside (jpeg_crop_scanline widens them to whole iMCUs) and stops
 * after row y + h; the pixels equal the same region of the whole decode. *out is a host image of
 * the widened columns, the requested ones from column *dx. The region must lie inside the image
 * (GIP_ERR_INVALID_ARGUMENT); gray and CMYK files give GIP_ERR_UNSUPPORTED (decode them whole). */
gip_status gip__jpeg_decode_region(const uint8_t *data, size_t size, const char *what, bool bgr,
                                   int64_t x, int64_t y, int64_t w, int64_t h, gip_image *out,
                                   int64_t *dx);
gip_status gip__jpeg_encode(const gip_image *img, const gip__save_req *req, const char *what,
                            uint8_t **data, size_t *size);

gip_status gip__png_probe(const uint8_t *data, size_t size, const char *what, gip_image_info *info);
gip_status gip__png_decode(const uint8_t *data, size_t size, const char *what,
                           const gip__load_req *req, gip__raw *raw);
gip_status gip__png_encode(const gip_image *img, const gip__save_req *req, const char *what,
                           uint8_t **data, size_t *size);

gip_status gip__pnm_probe(const uint8_t *data, size_t size, const char *what, gip_image_info *info);
gip_status gip__pnm_decode(const uint8_t *data, size_t size, const char *what,
                           const gip__load_req *req, gip__raw *raw);
gip_status gip__pnm_encode(const gip_image *img, const gip__save_req *req, const char *what,
                           uint8_t **data, size_t *size);

/* ---- output files (atomic_write.c) ------------------------------------------------------------ *
 * An output is written to an unnamed file in its folder (O_TMPFILE), or where the file system
 * lacks it to "PATH.gip.tmp" ("PATH.gip-N.tmp" while another writer of PATH holds that), locked
 * while it is written so that the next open for PATH removes it if a killed run left it. It gets
 * the name PATH only when complete and fsync'd. New files get 0666 & ~umask; a replaced file's
 * permission bits carry over; an existing read-only file is refused unless GIP__OUT_OVERWRITE. */
#define GIP__OUT_OVERWRITE 1u  /* replace an existing file even when it is read-only */
#define GIP__OUT_NO_REPLACE 2u /* refuse any existing file (the batch's skip) */

typedef struct gip__outfile {
    int fd; /* write the bytes here */
    const char *op;
    char *path;
    char *tmp;      /* the temporary name, NULL while the file has none */
    unsigned flags; /* GIP__OUT_* */
    bool replacing; /* path existed at the open and may be replaced */
    bool existed;   /* refused because path exists (NO_REPLACE) or is read-only */
    unsigned mode;  /* the replaced file's permission bits */
} gip__outfile;

/* Opens an output file for `path`. GIP_ERR_IO (f->existed when the refusal is about an existing
 * file; path a folder; the folder missing or unwritable), GIP_ERR_OUT_OF_MEMORY.
 * On failure nothing is left open. */
gip_status gip__outfile_open(const char *op, const char *path, unsigned flags, gip__outfile *f);
/* fsyncs the written file and gives it the name `path` (see the flags); closes it. On failure the
 * file is removed and an existing `path` is untouched. */
gip_status gip__outfile_commit(gip__outfile *f);
/* Removes the unfinished file and closes it; a no-op after commit or a failed open. */
void gip__outfile_abort(gip__outfile *f);

/* Writes `size` bytes as `path` through an output file. *existed (may be NULL) as f->existed. */
gip_status gip__atomic_write(const char *op, const char *path, const void *data, size_t size,
                             unsigned flags, bool *existed);

#ifdef __cplusplus
}
#endif
#endif
