/* SPDX-License-Identifier: MIT */
/* Reading PNG (libpng rows), JPEG (libjpeg scanlines) and PPM/PGM (raw rows) a few rows at a
 * time, converted as gip_image_load() converts, so that host memory stays bounded. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

#include "exif.h"
#include "internal.h"
#include "stream_io.h"

typedef enum kind { KIND_PNM, KIND_PNG, KIND_JPEG } kind;

typedef struct jpeg_err {
    struct jpeg_error_mgr pub; /* first: cinfo.err points here */
    jmp_buf jmp;
    gip_status status;
    char msg[JMSG_LENGTH_MAX];
} jpeg_err;

struct gip__row_reader {
    kind kind;
    FILE *f;
    char what[300];
    gip__load_req req;
    int64_t w, h, next; /* size, and the next row to read */
    int32_t sc;         /* channels the codec delivers */
    gip_dtype sdt;
    bool src_bgr;
    int32_t dc; /* channels and dtype after the request's conversion */
    gip_dtype ddt;
    bool convert;
    gip_image raw; /* codec rows when converting (grown to the band's height) */
    /* PNM */
    bool wide;
    /* PNG */
    png_structp png;
    png_infop info;
    char png_msg[256];
    /* JPEG */
    jpeg_err jerr;
    struct jpeg_decompress_struct cinfo;
    bool jpeg_created;
};

/* ---- PNG ------------------------------------------------------------------------------------ */

static void png_on_error(png_structp png, png_const_charp msg)
{
    gip__row_reader *r = png_get_error_ptr(png);
    snprintf(r->png_msg, sizeof r->png_msg, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* The EXIF orientation of an eXIf chunk anywhere in the PNG file f (-1 when there is none),
 * found by walking the chunk headers: one after the pixels would only be seen once every row
 * had been streamed. f is left at its start. */
static int png_scan_orientation(FILE *f)
{
    int o = -1;
    uint8_t head[8];
    if (fseeko(f, 8, SEEK_SET) != 0)
        goto out_rewind;
    while (fread(head, 1, 8, f) == 8) {
        uint32_t n =
            (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        if (memcmp(head + 4, "IEND", 4) == 0 || n > 0x7fffffffu)
            break;
        if (memcmp(head + 4, "eXIf", 4) == 0) {
            size_t want = n < (1u << 20) ? n : (1u << 20);
            uint8_t *exif = malloc(want ? want : 1);
            if (exif) {
                o = gip__exif_orientation(exif, fread(exif, 1, want, f));
                free(exif);
            }
            break;
        }
        if (fseeko(f, (off_t)n + 4, SEEK_CUR) != 0)
            break;
    }
out_rewind:
    rewind(f);
    return o;
}

static gip_status png_open(gip__row_reader *r)
{
    int o = r->req.orient ? png_scan_orientation(r->f) : -1;
    if (o >= 2 && o <= 8)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a PNG with EXIF orientation %d is turned upright as a whole image; "
                          "load it whole",
                          r->what, o);
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, png_on_error, png_on_warning);
    if (!r->png || !(r->info = png_create_info_struct(r->png)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: cannot create a libpng reader",
                          r->what);
    if (setjmp(png_jmpbuf(r->png)))
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt or truncated PNG: %s", r->what,
                          r->png_msg);
    png_structp png = r->png;
    png_infop pi = r->info;
    png_init_io(png, r->f);
    gip__png_read_options(png);
    png_read_info(png, pi);
    r->w = png_get_image_width(png, pi);
    r->h = png_get_image_height(png, pi);
    if (png_get_interlace_type(png, pi) != PNG_INTERLACE_NONE)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: an interlaced PNG cannot be read by rows (each pass touches every "
                          "row); load it whole or re-save it without interlacing",
                          r->what);
    gip_status st = gip__io_check_limits(r->what, r->w, r->h, &r->req);
    if (st)
        return st;
    /* The transforms of png.c's decoder, so that the rows equal gip_image_load()'s. */
    r->src_bgr = gip__png_set_transforms(png, pi, &r->req);
    png_read_update_info(png, pi);
    r->sc = png_get_channels(png, pi);
    r->sdt = png_get_bit_depth(png, pi) == 16 ? GIP_U16 : GIP_U8;
    return GIP_OK;
}

static gip_status png_rows(gip__row_reader *r, gip_image *rows)
{
    if (setjmp(png_jmpbuf(r->png)))
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt or truncated PNG at row %lld: %s",
                          r->what, (long long)r->next, r->png_msg);
    for (int64_t y = 0; y < rows->height; y++)
        png_read_row(r->png, (png_bytep)rows->data + y * rows->stride, NULL);
    if (r->next + rows->height == r->h)
        png_read_end(r->png, NULL); /* CRCs and IEND: truncation is an error */
    return GIP_OK;
}

/* ---- JPEG ----------------------------------------------------------------------------------- */

static void jpeg_on_error_exit(j_common_ptr cinfo)
{
    jpeg_err *e = (jpeg_err *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->msg);
    e->status = gip__jpeg_status_of_code(cinfo->err->msg_code, true);
    longjmp(e->jmp, 1);
}

static void jpeg_on_emit_message(j_common_ptr cinfo, int level)
{
    if (level < 0 && gip__jpeg_warning_is_fatal(cinfo->err->msg_code)) {
        jpeg_err *e = (jpeg_err *)(void *)cinfo->err;
        (*cinfo->err->format_message)(cinfo, e->msg);
        e->status = GIP_ERR_CORRUPT;
        longjmp(e->jmp, 1);
    }
}

static void jpeg_on_output_message(j_common_ptr cinfo)
{
    (void)cinfo;
}

static gip_status jpeg_fail(gip__row_reader *r)
{
    return gip__error(NULL, r->jerr.status, "%s: %s: %s", r->what,
                      r->jerr.status == GIP_ERR_UNSUPPORTED ? "unsupported JPEG"
                                                            : "corrupt or truncated JPEG",
                      r->jerr.msg);
}

static gip_status jpeg_open(gip__row_reader *r)
{
    jpeg_std_error(&r->jerr.pub);
    r->jerr.pub.error_exit = jpeg_on_error_exit;
    r->jerr.pub.emit_message = jpeg_on_emit_message;
    r->jerr.pub.output_message = jpeg_on_output_message;
    r->cinfo.err = &r->jerr.pub;
    if (setjmp(r->jerr.jmp))
        return jpeg_fail(r);
    jpeg_create_decompress(&r->cinfo);
    r->jpeg_created = true;
    jpeg_stdio_src(&r->cinfo, r->f);
    jpeg_save_markers(&r->cinfo, JPEG_APP0 + 1, 0xffff); /* EXIF */
    jpeg_read_header(&r->cinfo, TRUE);
    struct jpeg_decompress_struct *ci = &r->cinfo;
    r->w = ci->image_width;
    r->h = ci->image_height;
    int o = r->req.orient ? gip__jpeg_orientation(ci) : 0;
    if (o >= 2 && o <= 8)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a JPEG with EXIF orientation %d is turned upright as a whole "
                          "image; load it whole",
                          r->what, o);
    if (ci->progressive_mode)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a progressive JPEG cannot be read by rows (libjpeg keeps every "
                          "coefficient of the image); load it whole",
                          r->what);
    if (ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a CMYK JPEG cannot be read by rows; load it whole", r->what);
    if (r->req.reduce > 1) { /* shrink-on-load: libjpeg's scaled inverse DCT, as jpeg.c */
        ci->scale_num = 1;
        ci->scale_denom = (unsigned)r->req.reduce;
    }
    jpeg_calc_output_dimensions(ci);
    r->w = ci->output_width;
    r->h = ci->output_height;
    gip_status st = gip__io_check_limits(r->what, r->w, r->h, &r->req);
    if (st)
        return st;
    /* As jpeg.c: gray straight from libjpeg in GRAY mode, RGB or BGR otherwise. */
    if (r->req.mode == GIP_LOAD_GRAY || ci->num_components == 1) {
        ci->out_color_space = JCS_GRAYSCALE;
        r->sc = 1;
    } else {
        ci->out_color_space = r->req.bgr ? JCS_EXT_BGR : JCS_EXT_RGB;
        r->sc = 3;
        r->src_bgr = r->req.bgr;
    }
    r->sdt = GIP_U8;
    ci->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(ci);
    if (ci->output_components != r->sc)
        return gip__error(NULL, GIP_ERR_INTERNAL,
                          "%s: libjpeg produced %d components where %d were requested", r->what,
                          ci->output_components, r->sc);
    return GIP_OK;
}

static gip_status jpeg_rows(gip__row_reader *r, gip_image *rows)
{
    if (setjmp(r->jerr.jmp))
        return jpeg_fail(r);
    for (int64_t y = 0; y < rows->height; y++) {
        JSAMPROW rp = (JSAMPROW)((uint8_t *)rows->data + y * rows->stride);
        if (jpeg_read_scanlines(&r->cinfo, &rp, 1) != 1)
            return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt JPEG: decoding stalled at row %u",
                              r->what, r->cinfo.output_scanline);
    }
    if (r->next + rows->height == r->h)
        jpeg_finish_decompress(&r->cinfo);
    return GIP_OK;
}

/* ---- PPM / PGM ------------------------------------------------------------------------------ */

static gip_status pnm_open(gip__row_reader *r, const uint8_t *head, size_t n)
{
    int32_t c, maxval;
    size_t offset;
    gip_status st = gip__pnm_header(head, n, r->what, &c, &r->w, &r->h, &maxval, &offset);
    if (st)
        return st;
    if ((st = gip__io_check_limits(r->what, r->w, r->h, &r->req)))
        return st;
    r->sc = c;
    r->wide = maxval > 255;
    r->sdt = r->wide ? GIP_U16 : GIP_U8;
    if (fseeko(r->f, (off_t)offset, SEEK_SET) != 0)
        return gip__error(NULL, GIP_ERR_IO, "%s: cannot seek: %s", r->what, strerror(errno));
    return GIP_OK;
}

static gip_status pnm_rows(gip__row_reader *r, gip_image *rows)
{
    size_t rb = (size_t)gip_image_row_bytes(rows);
    for (int64_t y = 0; y < rows->height; y++) {
        uint8_t *row = (uint8_t *)rows->data + y * rows->stride;
        if (fread(row, 1, rb, r->f) != rb)
            return gip__error(NULL, ferror(r->f) ? GIP_ERR_IO : GIP_ERR_CORRUPT,
                              "%s: truncated PNM: the data end in row %lld of %lld", r->what,
                              (long long)(r->next + y), (long long)r->h);
        if (r->wide && gip__little_endian())
            for (size_t i = 0; i + 1 < rb; i += 2) {
                uint8_t t = row[i];
                row[i] = row[i + 1];
                row[i + 1] = t;
            }
    }
    return GIP_OK;
}

/* ---- the reader ----------------------------------------------------------------------------- */

void gip__row_reader_close(gip__row_reader *r)
{
    if (!r)
        return;
    if (r->png)
        png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
    if (r->jpeg_created)
        jpeg_destroy_decompress(&r->cinfo);
    if (r->f)
        fclose(r->f);
    gip_image_free(NULL, &r->raw);
    free(r);
}

gip_status gip__row_reader_open(const char *path, const gip_load_params *params,
                                gip__row_reader **out, int64_t *width, int64_t *height,
                                int32_t *channels, gip_dtype *dtype)
{
    static const char op[] = "gip_pipeline_stream_file";
    gip__row_reader *r = calloc(1, sizeof *r);
    if (!r)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    snprintf(r->what, sizeof r->what, "%s: '%s'", op, path);
    gip_status st = gip__io_load_req(op, params, &r->req);
    if (st)
        goto out_close;
    if (!(r->f = fopen(path, "rb"))) {
        st = gip__error(NULL, errno == ENOENT ? GIP_ERR_NOT_FOUND : GIP_ERR_IO,
                        "%s: cannot open: %s", r->what, strerror(errno));
        goto out_close;
    }
    /* The header: enough bytes for the magic and a PNM header with comments. */
    uint8_t head[65536];
    size_t n = fread(head, 1, sizeof head, r->f);
    rewind(r->f);
    static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && memcmp(head, png_magic, 8) == 0) {
        r->kind = KIND_PNG;
        st = png_open(r);
    } else if (gip__io_is_jpeg(head, n)) {
        r->kind = KIND_JPEG;
        st = jpeg_open(r);
    } else if (n >= 3 && head[0] == 'P' && (head[1] == '5' || head[1] == '6') &&
               (head[2] == ' ' || head[2] == '\n' || head[2] == '\r' || head[2] == '\t')) {
        r->kind = KIND_PNM;
        st = pnm_open(r, head, n);
    } else {
        st = gip__error(NULL, GIP_ERR_UNKNOWN_FORMAT,
                        "%s: not a file gip reads by rows (PNG, baseline JPEG, binary PPM/PGM)",
                        r->what);
    }
    if (!st && r->req.reduce > 1 && r->kind != KIND_JPEG)
        st = gip__error(NULL, GIP_ERR_UNSUPPORTED,
                        "%s: a reduced load of a PNG or PPM/PGM resizes the whole image; load it "
                        "whole",
                        r->what);
    if (st)
        goto out_close;
    gip__io_load_shape(r->sc, r->sdt, &r->req, &r->dc, &r->ddt);
    bool order_differs = r->sc >= 3 && r->src_bgr != r->req.bgr;
    r->convert = !(r->dc == r->sc && r->ddt == r->sdt && !(r->dc >= 3 && order_differs));
    *width = r->w;
    *height = r->h;
    *channels = r->dc;
    *dtype = r->ddt;
    *out = r;
    return GIP_OK;
out_close:
    gip__row_reader_close(r);
    return st;
}

gip_status gip__row_reader_read(gip__row_reader *r, gip_image *rows)
{
    if (rows->width != r->w || rows->channels != r->dc || rows->dtype != r->ddt ||
        r->next + rows->height > r->h)
        return gip__error(NULL, GIP_ERR_INTERNAL, "%s: a read of %lld rows does not fit", r->what,
                          (long long)rows->height);
    gip_image *into = rows;
    gip_status st;
    if (r->convert) {
        if (r->raw.height < rows->height) {
            gip_image_free(NULL, &r->raw);
            if ((st = gip_image_alloc(NULL, &r->raw, r->w, rows->height, r->sc, r->sdt,
                                      GIP_MEM_HOST, 0)))
                return st;
        }
        into = &r->raw;
    }
    gip_image view = *into;
    view.height = rows->height;
    st = r->kind == KIND_PNG    ? png_rows(r, &view)
         : r->kind == KIND_JPEG ? jpeg_rows(r, &view)
                                : pnm_rows(r, &view);
    if (st)
        return st;
    if (r->convert && r->kind == KIND_PNM && r->sc == 3 && r->dc == 1)
        gip__pnm_gray_rows(&view, rows); /* as pnm.c decodes gray */
    else if (r->convert)
        gip__io_convert(&view, r->src_bgr, &r->req, rows);
    r->next += rows->height;
    return GIP_OK;
}
