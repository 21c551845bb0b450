/* SPDX-License-Identifier: MIT */
/* Private interface of the row streams: PNG, JPEG and PPM/PGM files read and written a few rows
 * at a time, so that an image larger than memory can pass through a pipeline in row bands. */
#ifndef GIP_STREAM_IO_H
#define GIP_STREAM_IO_H

#include <stdbool.h>

#include "io_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- helpers in io.c, pnm.c, jpeg.c -------------------------------------------------------- */
gip_status gip__io_load_req(const char *op, const gip_load_params *params, gip__load_req *req);
/* The channels and dtype a load request makes of a decoded sc-channel sdt image. */
void gip__io_load_shape(int32_t sc, gip_dtype sdt, const gip__load_req *req, int32_t *dc,
                        gip_dtype *ddt);
/* Converts decoded rows (src, colour order src_bgr) into the request's rows (dst, same size,
 * shape from gip__io_load_shape()), exactly as gip_image_load() does. */
void gip__io_convert(const gip_image *src, bool src_bgr, const gip__load_req *req, gip_image *dst);
/* The save request for writing img (only its shape is read) to path, as gip_image_save(). */
gip_status gip__io_save_req(const char *op, const char *path, const gip_image *img,
                            const gip_save_params *params, gip__save_req *req);
gip_status gip__pnm_header(const uint8_t *data, size_t size, const char *what, int32_t *channels,
                           int64_t *width, int64_t *height, int32_t *maxval, size_t *data_offset);
/* cv2.imread's gray of PPM rows: 3-channel u8/u16 rgb (host order) into 1-channel u8 (16-bit
 * samples cut to 8 first) or u16 gray of the same size. */
void gip__pnm_gray_rows(const gip_image *rgb, gip_image *gray);
bool gip__jpeg_warning_is_fatal(int code);
gip_status gip__jpeg_status_of_code(int code, bool decoding);
/* Sets png.c's decoding transforms for the request on a reader whose header has been read (before
 * png_read_update_info), so that row readers decode the same pixels. Returns whether the colour
 * channels come out in BGR order. */
struct png_struct_def;
struct png_info_def;
bool gip__png_set_transforms(struct png_struct_def *png, struct png_info_def *info,
                             const gip__load_req *req);
/* png.c's reader options (limits, how colour spaces and eXIf are read), set before
 * png_read_info. */
void gip__png_read_options(struct png_struct_def *png);
/* The EXIF Orientation of an eXIf chunk that a reader set up by gip__png_read_options() has read
 * into info (-1 when there is none). */
int gip__png_orientation(struct png_struct_def *png, struct png_info_def *info);

/* ---- reading by rows ------------------------------------------------------------------------ */
typedef struct gip__row_reader gip__row_reader;

/* Opens `path` (PNG, JPEG or PPM/PGM, from its bytes) and reads its header; rows come out as
 * gip_image_load() with `params` would make them: *width x *height, *channels, *dtype. Refused
 * with GIP_ERR_UNSUPPORTED (the message says why): interlaced PNG, progressive and CMYK JPEG
 * (their decoders hold the whole image). Other statuses as gip_image_load(). */
gip_status gip__row_reader_open(const char *path, const gip_load_params *params,
                                gip__row_reader **out, int64_t *width, int64_t *height,
                                int32_t *channels, gip_dtype *dtype);
/* Reads the next rows->height rows into `rows` (host, the opened shape). GIP_ERR_CORRUPT for
 * truncated or corrupt data. */
gip_status gip__row_reader_read(gip__row_reader *r, gip_image *rows);
/* Closes and frees; NULL is a no-op. */
void gip__row_reader_close(gip__row_reader *r);

/* ---- writing by rows ------------------------------------------------------------------------ */
typedef struct gip__row_writer gip__row_writer;

/* Starts writing a width x height image of the channels and dtype to a temporary file next to
 * `path` (format from params or the extension, as gip_image_save()). Progressive JPEG output is
 * refused (libjpeg would hold every coefficient). */
gip_status gip__row_writer_open(const char *path, int64_t width, int64_t height, int32_t channels,
                                gip_dtype dtype, const gip_save_params *params,
                                gip__row_writer **out);
/* Appends rows (host, the opened width, channels and dtype). */
gip_status gip__row_writer_write(gip__row_writer *w, const gip_image *rows);
/* After the last row: completes the file, fsyncs and renames it over `path`; frees w. A failure
 * removes the temporary file. */
gip_status gip__row_writer_finish(gip__row_writer *w);
/* Removes the temporary file and frees w; NULL is a no-op. */
void gip__row_writer_abort(gip__row_writer *w);

#ifdef __cplusplus
}
#endif
#endif
