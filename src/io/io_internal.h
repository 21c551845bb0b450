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

/* A load request with every default filled in. */
typedef struct gip__load_req {
    gip_load_mode mode;
    bool bgr;
    bool keep_depth;
    int64_t max_pixels;
    int64_t max_dim;
} gip__load_req;

/* What a codec decoded: a host image from gip_image_alloc(NULL, ...) with 1 to 4 channels as the
 * codec produced them (2 = gray+alpha), u8 or u16 in host byte order. A codec may already have
 * applied part of the request (JPEG decodes straight to gray or BGR); `bgr` says whether the
 * colour channels are in BGR(A) order. io.c turns it into what the request asks for. */
typedef struct gip__raw {
    gip_image img;
    bool bgr;
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

/* Writes `size` bytes to `path` atomically: a temporary file "PATH.XXXXXX.tmp" in the same
 * folder, fully written and fsync'd, then renamed over `path`. On failure the temporary file is
 * removed and an existing `path` is untouched. GIP_ERR_IO with the path and strerror. */
gip_status gip__atomic_write(const char *op, const char *path, const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
