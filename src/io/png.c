/* SPDX-License-Identifier: MIT */
/* PNG probe, decode and encode through libpng (png.h), from and to memory, with error and warning
 * handlers that turn library errors into a gip status and message instead of printing. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "exif.h"
#include "internal.h"
#include "io_internal.h"
#include "stream_io.h"

/* State shared by the libpng callbacks and the code that called setjmp. Everything that changes
 * after setjmp lives here, so it is valid after libpng's longjmp. */
typedef struct png_job {
    png_structp png;
    png_infop info;
    png_infop end_info; /* chunks after the pixels (an eXIf chunk may be there) */
    char msg[256];
    bool truncated; /* the read callback ran past the end of the data */
    bool oom;       /* the write callback could not grow the buffer */
    const uint8_t *data;
    size_t size, pos;
    gip__raw raw;
    gip__buf out;
} png_job;

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

static const png_byte exif_chunk[5] = {'e', 'X', 'I', 'f', '\0'};

int gip__png_orientation(png_structp png, png_infop pi)
{
    png_unknown_chunkp u = NULL;
    int n = pi ? png_get_unknown_chunks(png, pi, &u) : 0;
    for (int i = 0; i < n; i++)
        if (memcmp(u[i].name, exif_chunk, 4) == 0 && u[i].data)
            return gip__exif_orientation(u[i].data, u[i].size);
    return -1;
}

void gip__png_read_options(png_structp png)
{
    /* gip applies its own, clearer limits; libpng's default (1e6 per side) would refuse images
     * gip accepts. */
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
#if defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_SKIP_sRGB_CHECK_PROFILE)
    /* An iCCP profile does not make libpng assume sRGB gamma (libpng 1.6.48 and later never
     * do, and cv2 ships such a libpng): only gAMA and sRGB chunks make the GRAY conversion
     * gamma-correct, on every libpng. */
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
    /* eXIf is kept as raw bytes, within libpng's limit on the size of a chunk it holds (8 MB by
     * default): libpng's own eXIf reader (1.6.39) only warns about a chunk declared larger and
     * then allocates it, up to 2 GB for a file of a few bytes. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, exif_chunk, 1);
}

bool gip__png_set_transforms(png_structp png, png_infop pi, const gip__load_req *req)
{
    int depth = png_get_bit_depth(png, pi), type = png_get_color_type(png, pi);
    bool colour = (type & PNG_COLOR_MASK_COLOR) != 0, bgr = false;
    if (type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (req->mode == GIP_LOAD_GRAY) {
        /* cv2.imread's IMREAD_GRAYSCALE: alpha dropped, colour to gray by libpng's own rule with
         * OpenCV's weights, at the file's depth (16-bit samples are cut to 8 after it, as
         * png_set_strip_16 does, unless the depth is kept). */
        png_set_strip_alpha(png);
        if (colour)
            png_set_rgb_to_gray(png, 1, 0.299, 0.587);
        if (depth == 16 && !req->keep_depth)
            png_set_strip_16(png);
        else if (depth == 16 && gip__little_endian())
            png_set_swap(png);
        return false;
    }
    /* Everything else to 8 or 16 bits of gray, RGB or RGBA; transparency of colour and palette
     * images as alpha (a gray image's tRNS is ignored, as cv2.imread does). */
    if (colour && png_get_valid(png, pi, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (depth == 16 && gip__little_endian())
        png_set_swap(png);
    if (colour && req->bgr) {
        png_set_bgr(png);
        bgr = true;
    }
    /* gip images have 1, 3 or 4 channels: gray+alpha becomes RGBA with the gray replicated. */
    if (type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    return bgr;
}

static gip_status dec_run(png_job *j, const char *what, const gip__load_req *req,
                          gip_image_info *info)
{
    j->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, j, on_error, on_warning);
    if (!j->png || !(j->info = png_create_info_struct(j->png)) ||
        !(j->end_info = png_create_info_struct(j->png)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: cannot create a libpng reader", what);
    if (setjmp(png_jmpbuf(j->png)))
        return gip__error(NULL, fail_status(j, true), "%s: %s PNG: %s", what,
                          j->truncated ? "truncated" : "corrupt", j->msg);
    png_structp png = j->png;
    png_infop pi = j->info;
    png_set_read_fn(png, j, on_read);
    gip__png_read_options(png);
    png_read_info(png, pi);

    png_uint_32 w = png_get_image_width(png, pi), h = png_get_image_height(png, pi);
    int depth = png_get_bit_depth(png, pi), type = png_get_color_type(png, pi);
    bool trns = (type & PNG_COLOR_MASK_COLOR) && png_get_valid(png, pi, PNG_INFO_tRNS);
    if (info) {
        int c = (type & PNG_COLOR_MASK_COLOR) ? 3 : 1;
        if ((type & PNG_COLOR_MASK_ALPHA) || trns)
            c++;
        info->width = w;
        info->height = h;
        info->channels = c;
        info->bit_depth = depth == 16 ? 16 : 8;
        info->progressive = png_get_interlace_type(png, pi) != PNG_INTERLACE_NONE;
        int o = gip__png_orientation(png, pi);
        info->orientation = o >= 1 && o <= 8 ? o : 1;
        return GIP_OK;
    }
    gip_status st = gip__io_check_limits(what, w, h, req);
    if (st)
        return st;

    j->raw.bgr = gip__png_set_transforms(png, pi, req);
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
    /* The rest of the file (CRCs, IEND: truncation is an error), and an eXIf chunk there. */
    png_read_end(png, j->end_info);
    int o = gip__png_orientation(png, pi);
    j->raw.orientation = o >= 0 ? o : gip__png_orientation(png, j->end_info);
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
    png_destroy_read_struct(j->png ? &j->png : NULL, j->info ? &j->info : NULL,
                            j->end_info ? &j->end_info : NULL);
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
    if (img->dtype == GIP_U16 && gip__little_endian())
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
