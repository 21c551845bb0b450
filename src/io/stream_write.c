/* SPDX-License-Identifier: MIT */
/* Writing PNG (libpng rows), JPEG (libjpeg scanlines) and PPM/PGM a few rows at a time into an
 * output file (atomic_write.c) that gets the destination's name only when complete. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

#include "internal.h"
#include "stream_io.h"

typedef struct jpeg_err {
    struct jpeg_error_mgr pub; /* first: cinfo.err points here */
    jmp_buf jmp;
    char msg[JMSG_LENGTH_MAX];
} jpeg_err;

struct gip__row_writer {
    gip__save_req req;
    gip__outfile out;
    FILE *f; /* over a duplicate of out.fd */
    char what[300];
    int64_t w, h, next;
    int32_t c;
    gip_dtype dt;
    uint8_t *row; /* one row, for PNM byte swaps */
    png_structp png;
    png_infop info;
    char png_msg[256];
    jpeg_err jerr;
    struct jpeg_compress_struct cinfo;
    bool jpeg_created;
};

static void png_on_error(png_structp png, png_const_charp msg)
{
    gip__row_writer *w = png_get_error_ptr(png);
    snprintf(w->png_msg, sizeof w->png_msg, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void jpeg_on_error_exit(j_common_ptr cinfo)
{
    jpeg_err *e = (jpeg_err *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->msg);
    longjmp(e->jmp, 1);
}

static void jpeg_on_output_message(j_common_ptr cinfo)
{
    (void)cinfo;
}

static gip_status io_fail(gip__row_writer *w)
{
    return gip__error(NULL, GIP_ERR_IO, "%s: cannot write: %s", w->what,
                      strerror(errno ? errno : EIO));
}

static void writer_free(gip__row_writer *w)
{
    if (w->png)
        png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
    if (w->jpeg_created)
        jpeg_destroy_compress(&w->cinfo);
    if (w->f)
        fclose(w->f);
    gip__outfile_abort(&w->out);
    free(w->row);
    free(w);
}

void gip__row_writer_abort(gip__row_writer *w)
{
    if (w)
        writer_free(w);
}

static gip_status png_start(gip__row_writer *w)
{
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, png_on_error, png_on_warning);
    if (!w->png || !(w->info = png_create_info_struct(w->png)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: cannot create a libpng writer",
                          w->what);
    if (setjmp(png_jmpbuf(w->png)))
        return gip__error(NULL, GIP_ERR_IO, "%s: PNG encoder failed: %s", w->what, w->png_msg);
    png_init_io(w->png, w->f);
    png_set_user_limits(w->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    int type = w->c == 1   ? PNG_COLOR_TYPE_GRAY
               : w->c == 3 ? PNG_COLOR_TYPE_RGB
                           : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(w->png, w->info, (png_uint_32)w->w, (png_uint_32)w->h, w->dt == GIP_U16 ? 16 : 8,
                 type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(w->png, w->req.png_compression);
    png_write_info(w->png, w->info);
    if (w->dt == GIP_U16 && gip__little_endian())
        png_set_swap(w->png);
    if (w->req.bgr && w->c >= 3)
        png_set_bgr(w->png);
    return GIP_OK;
}

static gip_status jpeg_start(gip__row_writer *w)
{
    jpeg_std_error(&w->jerr.pub);
    w->jerr.pub.error_exit = jpeg_on_error_exit;
    w->jerr.pub.output_message = jpeg_on_output_message;
    w->cinfo.err = &w->jerr.pub;
    if (setjmp(w->jerr.jmp))
        return gip__error(NULL, GIP_ERR_IO, "%s: JPEG encoder failed: %s", w->what, w->jerr.msg);
    jpeg_create_compress(&w->cinfo);
    w->jpeg_created = true;
    jpeg_stdio_dest(&w->cinfo, w->f);
    /* The settings of jpeg.c's encoder, so that the bytes equal gip_image_save()'s. */
    struct jpeg_compress_struct *ci = &w->cinfo;
    ci->image_width = (JDIMENSION)w->w;
    ci->image_height = (JDIMENSION)w->h;
    ci->input_components = w->c;
    ci->in_color_space = w->c == 1 ? JCS_GRAYSCALE : (w->req.bgr ? JCS_EXT_BGR : JCS_EXT_RGB);
    jpeg_set_defaults(ci);
    jpeg_set_quality(ci, w->req.quality, TRUE);
    if (w->c == 3) {
        int h = w->req.subsampling == GIP_SUBSAMPLING_444 ? 1 : 2;
        int v = w->req.subsampling == GIP_SUBSAMPLING_420 ? 2 : 1;
        ci->comp_info[0].h_samp_factor = h;
        ci->comp_info[0].v_samp_factor = v;
        for (int k = 1; k < 3; k++)
            ci->comp_info[k].h_samp_factor = ci->comp_info[k].v_samp_factor = 1;
    }
    jpeg_start_compress(ci, TRUE);
    return GIP_OK;
}

gip_status gip__row_writer_open(const char *path, int64_t width, int64_t height, int32_t channels,
                                gip_dtype dtype, const gip_save_params *params,
                                gip__row_writer **out)
{
    static const char op[] = "gip_pipeline_stream_file";
    /* Only the shape of `probe` is read by the checks. */
    static uint8_t dummy[1];
    gip_image probe = {0};
    probe.data = dummy;
    probe.width = width;
    probe.height = height;
    probe.channels = channels;
    probe.dtype = dtype;
    probe.stride = width * channels * (int64_t)gip_dtype_size(dtype);
    probe.memory = GIP_MEM_HOST;
    gip__save_req req;
    gip_status st = gip__io_save_req(op, path, &probe, params, &req);
    if (st)
        return st;
    if (req.format == GIP_FORMAT_JPEG && req.progressive)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a progressive JPEG cannot be written by rows (libjpeg keeps every "
                          "coefficient); write a baseline JPEG",
                          op);
    if (req.format == GIP_FORMAT_JPEG &&
        (width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION))
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: JPEG stores at most %ld pixels per side; the image is %lldx%lld "
                          "(save it as PNG)",
                          op, (long)JPEG_MAX_DIMENSION, (long long)width, (long long)height);
    gip__row_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    w->req = req;
    w->out.fd = -1;
    w->w = width, w->h = height, w->c = channels, w->dt = dtype;
    snprintf(w->what, sizeof w->what, "%s: '%s'", op, path);
    w->row = malloc((size_t)probe.stride);
    if (!w->row) {
        writer_free(w);
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    if ((st = gip__outfile_open(op, path, params && params->overwrite ? GIP__OUT_OVERWRITE : 0,
                                &w->out))) {
        writer_free(w);
        return st;
    }
    /* stdio gets a duplicate: closing it leaves out.fd (and its lock) for the commit. */
    int fd = dup(w->out.fd);
    if (fd < 0 || !(w->f = fdopen(fd, "wb"))) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s': %s", op, path, strerror(errno));
        if (fd >= 0)
            close(fd);
        writer_free(w);
        return st;
    }
    if (req.format == GIP_FORMAT_PNG) {
        st = png_start(w);
    } else if (req.format == GIP_FORMAT_JPEG) {
        st = jpeg_start(w);
    } else if (fprintf(w->f, "P%c\n%lld %lld\n%d\n", channels == 1 ? '5' : '6', (long long)width,
                       (long long)height, dtype == GIP_U16 ? 65535 : 255) < 0) {
        st = io_fail(w);
    }
    if (st) {
        gip__row_writer_abort(w);
        return st;
    }
    *out = w;
    return GIP_OK;
}

static gip_status pnm_rows(gip__row_writer *w, const gip_image *rows)
{
    size_t rb = (size_t)gip_image_row_bytes(rows);
    bool swap_rb = w->req.bgr && w->c == 3, wide = w->dt == GIP_U16;
    size_t es = wide ? 2 : 1;
    for (int64_t y = 0; y < rows->height; y++) {
        const uint8_t *s = (const uint8_t *)rows->data + y * rows->stride;
        if (swap_rb || (wide && gip__little_endian())) {
            memcpy(w->row, s, rb);
            if (swap_rb)
                for (size_t i = 0; i < rb; i += 3 * es)
                    for (size_t b = 0; b < es; b++) {
                        uint8_t t = w->row[i + b];
                        w->row[i + b] = w->row[i + 2 * es + b];
                        w->row[i + 2 * es + b] = t;
                    }
            if (wide && gip__little_endian())
                for (size_t i = 0; i + 1 < rb; i += 2) {
                    uint8_t t = w->row[i];
                    w->row[i] = w->row[i + 1];
                    w->row[i + 1] = t;
                }
            s = w->row;
        }
        if (fwrite(s, 1, rb, w->f) != rb)
            return io_fail(w);
    }
    return GIP_OK;
}

gip_status gip__row_writer_write(gip__row_writer *w, const gip_image *rows)
{
    if (rows->width != w->w || rows->channels != w->c || rows->dtype != w->dt ||
        w->next + rows->height > w->h)
        return gip__error(NULL, GIP_ERR_INTERNAL, "%s: a write of %lld rows does not fit", w->what,
                          (long long)rows->height);
    if (w->req.format == GIP_FORMAT_PNG) {
        if (setjmp(png_jmpbuf(w->png)))
            return gip__error(NULL, GIP_ERR_IO, "%s: PNG encoder failed: %s", w->what, w->png_msg);
        for (int64_t y = 0; y < rows->height; y++)
            png_write_row(w->png, (png_const_bytep)rows->data + y * rows->stride);
    } else if (w->req.format == GIP_FORMAT_JPEG) {
        if (setjmp(w->jerr.jmp))
            return gip__error(NULL, GIP_ERR_IO, "%s: JPEG encoder failed: %s", w->what,
                              w->jerr.msg);
        for (int64_t y = 0; y < rows->height; y++) {
            JSAMPROW rp = (JSAMPROW)((uint8_t *)rows->data + y * rows->stride);
            jpeg_write_scanlines(&w->cinfo, &rp, 1);
        }
    } else {
        gip_status st = pnm_rows(w, rows);
        if (st)
            return st;
    }
    w->next += rows->height;
    return GIP_OK;
}

gip_status gip__row_writer_finish(gip__row_writer *w)
{
    gip_status st = GIP_OK;
    if (w->next != w->h) {
        st = gip__error(NULL, GIP_ERR_INTERNAL, "%s: %lld of %lld rows were written", w->what,
                        (long long)w->next, (long long)w->h);
    } else if (w->req.format == GIP_FORMAT_PNG) {
        if (setjmp(png_jmpbuf(w->png)))
            st = gip__error(NULL, GIP_ERR_IO, "%s: PNG encoder failed: %s", w->what, w->png_msg);
        else
            png_write_end(w->png, w->info);
    } else if (w->req.format == GIP_FORMAT_JPEG) {
        if (setjmp(w->jerr.jmp))
            st = gip__error(NULL, GIP_ERR_IO, "%s: JPEG encoder failed: %s", w->what, w->jerr.msg);
        else
            jpeg_finish_compress(&w->cinfo);
    }
    errno = 0;
    if (!st) {
        int rc = fclose(w->f);
        w->f = NULL;
        if (rc != 0)
            st = io_fail(w);
        else
            st = gip__outfile_commit(&w->out);
    }
    if (st) {
        gip__row_writer_abort(w);
        return st;
    }
    writer_free(w);
    return GIP_OK;
}
