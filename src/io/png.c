/* SPDX-License-Identifier: MIT */
/* PNG probe, decode and encode through libpng (png.h), from and to memory, with error and warning
 * handlers that turn library errors into a gip status and message instead of printing. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "internal.h"
#include "io_internal.h"

/* State shared by the libpng callbacks and the code that called setjmp. Everything that changes
 * after setjmp lives here, so it is valid after libpng's longjmp. */
typedef struct png_job {
    png_structp png;
    png_infop info;
    char msg[256];
    bool truncated; /* the read callback ran past the end of the data */
    bool oom;       /* the write callback could not grow the buffer */
    const uint8_t *data;
    size_t size, pos;
    gip__raw raw;
    gip__buf out;
} png_job;

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static void on_error(png_structp png, png_const_charp msg)
{
    png_job *j = png_get_error_ptr(png);
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    png_longjmp(png, 1); /* never return: libpng would print and longjmp itself */
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* warnings (bad ancillary chunks) do not stop decoding and are never printed */
    (void)msg;
}

static gip_status fail_status(const png_job *j, bool decoding)
{
    if (j->oom || strstr(j->msg, "ut of memory"))
        return GIP_ERR_OUT_OF_MEMORY;
    if (j->truncated || decoding)
        return GIP_ERR_CORRUPT;
    return GIP_ERR_INTERNAL;
}

/* ---- decoding ------------------------------------------------------------------------------- */

static void on_read(png_structp png, png_bytep dst, size_t n)
{
    png_job *j = png_get_io_ptr(png);
    if (n > j->size - j->pos) {
        j->truncated = true;
        png_error(png, "unexpected end of data (the file is truncated)");
    }
    memcpy(dst, j->data + j->pos, n);
    j->pos += n;
}

static gip_status dec_run(png_job *j, const char *what, const gip__load_req *req,
                          gip_image_info *info)
{
    j->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, j, on_error, on_warning);
    if (!j->png || !(j->info = png_create_info_struct(j->png)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: cannot create a libpng reader", what);
    if (setjmp(png_jmpbuf(j->png)))
        return gip__error(NULL, fail_status(j, true), "%s: %s PNG: %s", what,
                          j->truncated ? "truncated" : "corrupt", j->msg);
    png_structp png = j->png;
    png_infop pi = j->info;
    png_set_read_fn(png, j, on_read);
    /* gip applies its own, clearer limits below; libpng's default (1e6 per side) would refuse
     * images gip accepts. */
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_read_info(png, pi);

    png_uint_32 w = png_get_image_width(png, pi), h = png_get_image_height(png, pi);
    int depth = png_get_bit_depth(png, pi), type = png_get_color_type(png, pi);
    bool trns = png_get_valid(png, pi, PNG_INFO_tRNS) != 0;
    if (info) {
        int c = (type & PNG_COLOR_MASK_COLOR) ? 3 : 1;
        if ((type & PNG_COLOR_MASK_ALPHA) || trns)
            c++;
        info->width = w;
        info->height = h;
        info->channels = c;
        info->bit_depth = depth == 16 ? 16 : 8;
        info->progressive = png_get_interlace_type(png, pi) != PNG_INTERLACE_NONE;
        return GIP_OK;
    }
    gip_status st = gip__io_check_limits(what, w, h, req);
    if (st)
        return st;

    /* Everything to 8 or 16 bits of gray, gray+alpha, RGB or RGBA; transparency as alpha. */
    if (type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (trns)
        png_set_tRNS_to_alpha(png);
    if (depth == 16 && host_little_endian())
        png_set_swap(png);
    bool colour = (type & PNG_COLOR_MASK_COLOR) != 0;
    if (colour && req->bgr) {
        png_set_bgr(png);
        j->raw.bgr = true;
    }
    /* gip images have 1, 3 or 4 channels: gray+alpha becomes RGBA with the gray replicated (its
     * RGB2GRAY is the gray value exactly, so GRAY mode is unaffected). */
    if (type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, pi);

    int channels = png_get_channels(png, pi);
    gip_dtype dt = png_get_bit_depth(png, pi) == 16 ? GIP_U16 : GIP_U8;
    if ((st = gip_image_alloc(NULL, &j->raw.img, w, h, channels, dt, GIP_MEM_HOST, 0)))
        return st;
    if ((int64_t)png_get_rowbytes(png, pi) != gip_image_row_bytes(&j->raw.img))
        return gip__error(
            NULL, GIP_ERR_INTERNAL, "%s: libpng rows are %zu bytes where %lld were expected", what,
            (size_t)png_get_rowbytes(png, pi), (long long)gip_image_row_bytes(&j->raw.img));
    /* Interlaced images: each pass writes its own pixels into the rows ("sparkle"), so after the
     * last pass every row is complete. */
    for (int p = 0; p < passes; p++)
        for (png_uint_32 y = 0; y < h; y++)
            png_read_row(png, (png_bytep)j->raw.img.data + (int64_t)y * j->raw.img.stride, NULL);
    png_read_end(png, NULL); /* checks the rest of the file (CRCs, IEND): truncation is an error */
    return GIP_OK;
}

static gip_status dec_main(const uint8_t *data, size_t size, const char *what,
                           const gip__load_req *req, gip_image_info *info, gip__raw *raw)
{
    png_job *j = calloc(1, sizeof *j);
    if (!j)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    j->data = data;
    j->size = size;
    gip_status st = dec_run(j, what, req, info);
    png_destroy_read_struct(j->png ? &j->png : NULL, j->info ? &j->info : NULL, NULL);
    if (st)
        gip_image_free(NULL, &j->raw.img);
    else if (raw)
        *raw = j->raw;
    free(j);
    return st;
}

gip_status gip__png_probe(const uint8_t *data, size_t size, const char *what, gip_image_info *info)
{
    return dec_main(data, size, what, NULL, info, NULL);
}

gip_status gip__png_decode(const uint8_t *data, size_t size, const char *what,
                           const gip__load_req *req, gip__raw *raw)
{
    return dec_main(data, size, what, req, NULL, raw);
}

/* ---- encoding ------------------------------------------------------------------------------- */

static void on_write(png_structp png, png_bytep src, size_t n)
{
    png_job *j = png_get_io_ptr(png);
    if (!gip__buf_append(&j->out, src, n)) {
        j->oom = true;
        png_error(png, "out of memory growing the output buffer");
    }
}

static void on_flush(png_structp png)
{
    (void)png; /* the output is memory */
}

static gip_status enc_run(png_job *j, const gip_image *img, const gip__save_req *req,
                          const char *what)
{
    j->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, j, on_error, on_warning);
    if (!j->png || !(j->info = png_create_info_struct(j->png)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: cannot create a libpng writer", what);
    if (setjmp(png_jmpbuf(j->png)))
        return gip__error(NULL, fail_status(j, false), "%s: PNG encoder failed: %s", what, j->msg);
    png_structp png = j->png;
    png_infop pi = j->info;
    png_set_write_fn(png, j, on_write, on_flush);
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    int type = img->channels == 1   ? PNG_COLOR_TYPE_GRAY
               : img->channels == 3 ? PNG_COLOR_TYPE_RGB
                                    : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, pi, (png_uint_32)img->width, (png_uint_32)img->height,
                 img->dtype == GIP_U16 ? 16 : 8, type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, req->png_compression);
    png_write_info(png, pi);
    if (img->dtype == GIP_U16 && host_little_endian())
        png_set_swap(png);
    if (req->bgr && img->channels >= 3)
        png_set_bgr(png);
    for (int64_t y = 0; y < img->height; y++)
        png_write_row(png, (png_const_bytep)img->data + y * img->stride);
    png_write_end(png, pi);
    return GIP_OK;
}

gip_status gip__png_encode(const gip_image *img, const gip__save_req *req, const char *what,
                           uint8_t **data, size_t *size)
{
    if (img->width > PNG_UINT_31_MAX || img->height > PNG_UINT_31_MAX)
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: PNG stores at most %lu pixels per side; the image is %lldx%lld",
                          what, (unsigned long)PNG_UINT_31_MAX, (long long)img->width,
                          (long long)img->height);
    png_job *j = calloc(1, sizeof *j);
    if (!j)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    gip_status st = enc_run(j, img, req, what);
    png_destroy_write_struct(j->png ? &j->png : NULL, j->info ? &j->info : NULL);
    if (st) {
        free(j->out.data);
    } else {
        *data = j->out.data;
        *size = j->out.size;
    }
    free(j);
    return st;
}
