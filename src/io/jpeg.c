/* SPDX-License-Identifier: MIT */
/* JPEG probe, decode and encode through libjpeg-turbo (jpeglib.h), from and to memory, with an
 * error manager that turns every library error (and the warnings that mean corrupt or truncated
 * data) into a gip status and message instead of exit() or printing. */
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "codec_gray.h"
#include "exif.h"
#include "internal.h"
#include "io_internal.h"

/* More scans than this in a progressive file is treated as an attack on decoding time (the
 * djpeg -maxscans guard); real files have a few dozen at most. */
#define JPEG_MAX_SCANS 1000

/* State shared by the error manager and the code that called setjmp. Everything that changes
 * after setjmp lives here (never in the setjmp caller's locals), so it is valid after longjmp. */
typedef struct jpeg_err {
    struct jpeg_error_mgr pub; /* first: cinfo->err points here */
    jmp_buf jmp;
    gip_status status;
    char msg[JMSG_LENGTH_MAX];
} jpeg_err;

static gip_status status_of_code(int code, bool decoding)
{
    if (code == JERR_OUT_OF_MEMORY)
        return GIP_ERR_OUT_OF_MEMORY;
    if (!decoding)
        return GIP_ERR_INTERNAL;
    if (code == JERR_BAD_PRECISION)
        return GIP_ERR_UNSUPPORTED; /* 12/16-bit JPEG: this libjpeg is built for 8 bits */
    return GIP_ERR_CORRUPT;
}

static void on_error_exit(j_common_ptr cinfo)
{
    jpeg_err *e = (jpeg_err *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->msg);
    e->status = status_of_code(cinfo->err->msg_code, cinfo->is_decompressor);
    longjmp(e->jmp, 1);
}

/* Warnings that mean the data are truncated or corrupt. libjpeg only warns about them and goes
 * on with invented data (a fake EOI, zeroed coefficients); gip refuses such input. Other warnings
 * (unknown JFIF revision, extraneous bytes between markers, a bad ICC marker) are about metadata
 * and are ignored, as other readers do. */
static bool warning_is_fatal(int code)
{
    switch (code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
        return true;
    default:
        return false;
    }
}

static void on_emit_message(j_common_ptr cinfo, int level)
{
    if (level < 0 && warning_is_fatal(cinfo->err->msg_code)) {
        jpeg_err *e = (jpeg_err *)(void *)cinfo->err;
        (*cinfo->err->format_message)(cinfo, e->msg);
        e->status = GIP_ERR_CORRUPT;
        longjmp(e->jmp, 1);
    }
    if (level < 0)
        cinfo->err->num_warnings++;
}

static void on_output_message(j_common_ptr cinfo)
{
    (void)cinfo; /* never print: messages reach the caller through the gip status */
}

static void err_init(jpeg_err *e)
{
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error_exit;
    e->pub.emit_message = on_emit_message;
    e->pub.output_message = on_output_message;
    e->status = GIP_OK;
    e->msg[0] = '\0';
}

/* ---- decoding ------------------------------------------------------------------------------- */

typedef struct dec_job {
    jpeg_err err;
    struct jpeg_progress_mgr progress;
    struct jpeg_decompress_struct cinfo;
    bool created;
    uint8_t *cmyk_row; /* one row of CMYK samples, for CMYK/YCCK files */
    gip__raw raw;
} dec_job;

static void on_progress(j_common_ptr cinfo)
{
    if (!cinfo->is_decompressor)
        return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > JPEG_MAX_SCANS) {
        jpeg_err *e = (jpeg_err *)(void *)cinfo->err;
        snprintf(e->msg, sizeof e->msg, "more than %d progressive scans", JPEG_MAX_SCANS);
        e->status = GIP_ERR_CORRUPT;
        longjmp(e->jmp, 1);
    }
}

static gip_status dec_error(dec_job *j, const char *what)
{
    const char *kind = j->err.status == GIP_ERR_UNSUPPORTED     ? "unsupported JPEG"
                       : j->err.status == GIP_ERR_OUT_OF_MEMORY ? "out of memory decoding JPEG"
                                                                : "corrupt or truncated JPEG";
    return gip__error(NULL, j->err.status, "%s: %s: %s", what, kind, j->err.msg);
}

/* Adobe CMYK (stored inverted) to RGB or BGR, OpenCV's icvCvt_CMYK2BGR_8u_C4C3R rule, or with
 * gray to its icvCvt_CMYK2Gray_8u_C4C1R (the codecs' gray rule of those RGB values). */
static void cmyk_to_rgb(const uint8_t *s, uint8_t *d, int64_t w, bool bgr, bool gray)
{
    for (int64_t x = 0; x < w; x++, s += 4) {
        int c = s[0], m = s[1], y = s[2], k = s[3];
        int r = k - ((255 - c) * k >> 8);
        int g = k - ((255 - m) * k >> 8);
        int b = k - ((255 - y) * k >> 8);
        if (gray) {
            *d++ = (uint8_t)gip__codec_gray((uint32_t)r, (uint32_t)g, (uint32_t)b);
            continue;
        }
        d[0] = (uint8_t)(bgr ? b : r);
        d[1] = (uint8_t)g;
        d[2] = (uint8_t)(bgr ? r : b);
        d += 3;
    }
}

/* Creates j's decompressor over data (after err_init and its setjmp). */
static void dec_open(dec_job *j, const uint8_t *data, size_t size)
{
    j->created = true;
    jpeg_create_decompress(&j->cinfo);
    jpeg_mem_src(&j->cinfo, data, (unsigned long)size);
}

/* Runs the decoder on j; everything it allocates is recorded in j for dec_cleanup(). With
 * info != NULL only the header is read. */
static gip_status dec_run(dec_job *j, const uint8_t *data, size_t size, const char *what,
                          const gip__load_req *req, gip_image_info *info)
{
    err_init(&j->err);
    j->cinfo.err = &j->err.pub;
    if (setjmp(j->err.jmp))
        return dec_error(j, what);
    dec_open(j, data, size);
    jpeg_save_markers(&j->cinfo, JPEG_APP0 + 1, 0xffff); /* EXIF */
    jpeg_read_header(&j->cinfo, TRUE);

    struct jpeg_decompress_struct *ci = &j->cinfo;
    bool cmyk = ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK;
    int orientation = gip__jpeg_orientation(ci);
    if (info) {
        info->width = ci->image_width;
        info->height = ci->image_height;
        /* CMYK files are reported as the RGB they load as. */
        info->channels = ci->num_components == 1 ? 1 : 3;
        info->bit_depth = 8;
        info->progressive = ci->progressive_mode ? 1 : 0;
        info->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
        return GIP_OK;
    }
    j->raw.orientation = orientation;
    if (req->reduce > 1) { /* shrink-on-load: libjpeg's scaled inverse DCT */
        ci->scale_num = 1;
        ci->scale_denom = (unsigned)req->reduce;
    }
    jpeg_calc_output_dimensions(ci);
    gip_status st = gip__io_check_limits(what, ci->output_width, ci->output_height, req);
    if (st)
        return st;

    int channels;
    if (cmyk) {
        ci->out_color_space = JCS_CMYK; /* YCCK is turned into CMYK by libjpeg */
        channels = req->mode == GIP_LOAD_GRAY ? 1 : 3;
        j->raw.bgr = req->bgr;
    } else if (req->mode == GIP_LOAD_GRAY || ci->num_components == 1) {
        /* GRAY mode lets libjpeg output the luma channel directly, as cv2.imread does for
         * JPEG (so this is Y, not the RGB2GRAY rule applied to decoded RGB). */
        ci->out_color_space = JCS_GRAYSCALE;
        channels = 1;
    } else {
        ci->out_color_space = req->bgr ? JCS_EXT_BGR : JCS_EXT_RGB;
        channels = 3;
        j->raw.bgr = req->bgr;
    }
    ci->dct_method = JDCT_ISLOW; /* libjpeg's default, and what cv2 uses */
    j->progress.progress_monitor = on_progress;
    ci->progress = &j->progress;

    jpeg_start_decompress(ci);
    int expect = cmyk ? 4 : channels;
    if (ci->output_components != expect)
        return gip__error(NULL, GIP_ERR_INTERNAL,
                          "%s: libjpeg produced %d components where %d were requested", what,
                          ci->output_components, expect);
    if ((st = gip_image_alloc(NULL, &j->raw.img, ci->output_width, ci->output_height, channels,
                              GIP_U8, GIP_MEM_HOST, 0)))
        return st;
    if (cmyk && !(j->cmyk_row = malloc((size_t)ci->output_width * 4)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory decoding JPEG", what);
    while (ci->output_scanline < ci->output_height) {
        uint8_t *row =
            (uint8_t *)j->raw.img.data + (int64_t)ci->output_scanline * j->raw.img.stride;
        JSAMPROW rp = cmyk ? j->cmyk_row : row;
        if (jpeg_read_scanlines(ci, &rp, 1) != 1)
            return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt JPEG: decoding stalled at row %u",
                              what, ci->output_scanline);
        if (cmyk)
            cmyk_to_rgb(j->cmyk_row, row, ci->output_width, req->bgr, channels == 1);
    }
    jpeg_finish_decompress(ci);
    return GIP_OK;
}

static void dec_cleanup(dec_job *j, gip_status st)
{
    if (j->created)
        jpeg_destroy_decompress(&j->cinfo);
    free(j->cmyk_row);
    if (st)
        gip_image_free(NULL, &j->raw.img);
}

gip_status gip__jpeg_probe(const uint8_t *data, size_t size, const char *what, gip_image_info *info)
{
    dec_job *j = calloc(1, sizeof *j);
    if (!j)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    gip_status st = dec_run(j, data, size, what, NULL, info);
    dec_cleanup(j, st);
    free(j);
    return st;
}

gip_status gip__jpeg_decode(const uint8_t *data, size_t size, const char *what,
                            const gip__load_req *req, gip__raw *raw)
{
    dec_job *j = calloc(1, sizeof *j);
    if (!j)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    gip_status st = dec_run(j, data, size, what, req, NULL);
    if (!st)
        *raw = j->raw;
    dec_cleanup(j, st);
    free(j);
    return st;
}

static gip_status region_run(dec_job *j, const uint8_t *data, size_t size, const char *what,
                             bool bgr, int64_t x, int64_t y, int64_t w, int64_t h, int64_t *dx)
{
    err_init(&j->err);
    j->cinfo.err = &j->err.pub;
    if (setjmp(j->err.jmp))
        return dec_error(j, what);
    dec_open(j, data, size);
    jpeg_read_header(&j->cinfo, TRUE);
    struct jpeg_decompress_struct *ci = &j->cinfo;
    if (ci->num_components != 3 ||
        (ci->jpeg_color_space != JCS_YCbCr && ci->jpeg_color_space != JCS_RGB))
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a region is decoded from colour files only", what);
    if (x < 0 || y < 0 || w < 1 || h < 1 || x + w > (int64_t)ci->image_width ||
        y + h > (int64_t)ci->image_height)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: region %lldx%lld at (%lld, %lld) is not inside %ux%u", what,
                          (long long)w, (long long)h, (long long)x, (long long)y, ci->image_width,
                          ci->image_height);
    const gip__load_req limits = {.max_pixels = GIP_DEFAULT_MAX_PIXELS,
                                  .max_dim = GIP_DEFAULT_MAX_DIM};
    gip_status st = gip__io_check_limits(what, ci->image_width, ci->image_height, &limits);
    if (st)
        return st;
    ci->out_color_space = bgr ? JCS_EXT_BGR : JCS_EXT_RGB;
    ci->dct_method = JDCT_ISLOW;
    j->progress.progress_monitor = on_progress;
    ci->progress = &j->progress;
    jpeg_start_decompress(ci);
    /* Chroma upsampling at the edges of a cropped or skipped-to region replicates its edge
     * samples where the whole decode reads their neighbours: decoded with a margin of one iMCU
     * (16 pixels, the largest) on the left, right and top, the region's own pixels equal the
     * whole decode's. The rows of the top margin are read and dropped. */
    const int64_t M = 16, W = ci->image_width;
    const int64_t xm = x < M ? 0 : x - M, ym = y < M ? 0 : y - M;
    const int64_t xe = x + w + M > W ? W : x + w + M;
    JDIMENSION xo = (JDIMENSION)xm, wo = (JDIMENSION)(xe - xm);
    jpeg_crop_scanline(ci, &xo, &wo);
    *dx = x - (int64_t)xo;
    if ((st = gip_image_alloc(NULL, &j->raw.img, ci->output_width, h, 3, GIP_U8, GIP_MEM_HOST, 0)))
        return st;
    if (ym > 0 && jpeg_skip_scanlines(ci, (JDIMENSION)ym) != (JDIMENSION)ym)
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt JPEG: skipping stalled at row %u",
                          what, ci->output_scanline);
    for (int64_t r = ym - y; r < h; r++) { /* r < 0: the top margin, read into row 0, dropped */
        JSAMPROW rp = (uint8_t *)j->raw.img.data + (r < 0 ? 0 : r) * j->raw.img.stride;
        if (jpeg_read_scanlines(ci, &rp, 1) != 1)
            return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt JPEG: decoding stalled at row %u",
                              what, ci->output_scanline);
    }
    jpeg_abort_decompress(ci); /* the rows below are not needed */
    return GIP_OK;
}

gip_status gip__jpeg_decode_region(const uint8_t *data, size_t size, const char *what, bool bgr,
                                   int64_t x, int64_t y, int64_t w, int64_t h, gip_image *out,
                                   int64_t *dx)
{
    dec_job *j = calloc(1, sizeof *j);
    if (!j)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    gip_status st = region_run(j, data, size, what, bgr, x, y, w, h, dx);
    if (!st)
        *out = j->raw.img;
    dec_cleanup(j, st);
    free(j);
    return st;
}

/* ---- encoding ------------------------------------------------------------------------------- */

typedef struct enc_job {
    jpeg_err err;
    struct jpeg_compress_struct cinfo;
    bool created;
    unsigned char *out; /* malloc'd by jpeg_mem_dest, grown by libjpeg */
    unsigned long out_size;
} enc_job;

static gip_status enc_run(enc_job *j, const gip_image *img, const gip__save_req *req,
                          const char *what)
{
    err_init(&j->err);
    j->cinfo.err = &j->err.pub;
    if (setjmp(j->err.jmp))
        return gip__error(NULL, j->err.status, "%s: JPEG encoder failed: %s", what, j->err.msg);
    j->created = true;
    jpeg_create_compress(&j->cinfo);
    jpeg_mem_dest(&j->cinfo, &j->out, &j->out_size);

    struct jpeg_compress_struct *ci = &j->cinfo;
    ci->image_width = (JDIMENSION)img->width;
    ci->image_height = (JDIMENSION)img->height;
    ci->input_components = img->channels;
    ci->in_color_space =
        img->channels == 1 ? JCS_GRAYSCALE : (req->bgr ? JCS_EXT_BGR : JCS_EXT_RGB);
    jpeg_set_defaults(ci);
    jpeg_set_quality(ci, req->quality, TRUE);
    if (img->channels == 3) {
        int h = req->subsampling == GIP_SUBSAMPLING_444 ? 1 : 2;
        int v = req->subsampling == GIP_SUBSAMPLING_420 ? 2 : 1;
        ci->comp_info[0].h_samp_factor = h;
        ci->comp_info[0].v_samp_factor = v;
        for (int c = 1; c < 3; c++)
            ci->comp_info[c].h_samp_factor = ci->comp_info[c].v_samp_factor = 1;
    }
    if (req->progressive)
        jpeg_simple_progression(ci);
    jpeg_start_compress(ci, TRUE);
    while (ci->next_scanline < ci->image_height) {
        JSAMPROW rp = (JSAMPROW)((uint8_t *)img->data + (int64_t)ci->next_scanline * img->stride);
        jpeg_write_scanlines(ci, &rp, 1);
    }
    jpeg_finish_compress(ci);
    return GIP_OK;
}

gip_status gip__jpeg_encode(const gip_image *img, const gip__save_req *req, const char *what,
                            uint8_t **data, size_t *size)
{
    if (img->width > JPEG_MAX_DIMENSION || img->height > JPEG_MAX_DIMENSION)
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: JPEG stores at most %ld pixels per side; the image is %lldx%lld "
                          "(save it as PNG)",
                          what, (long)JPEG_MAX_DIMENSION, (long long)img->width,
                          (long long)img->height);
    enc_job *j = calloc(1, sizeof *j);
    if (!j)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    gip_status st = enc_run(j, img, req, what);
    if (j->created)
        jpeg_destroy_compress(&j->cinfo);
    if (st) {
        free(j->out);
    } else {
        *data = j->out;
        *size = j->out_size;
    }
    free(j);
    return st;
}

/* OpenCV's rule: every APP1 segment that starts with "Exif\0\0" is read in order and the first
 * that holds an Orientation tag decides. */
int gip__jpeg_orientation(struct jpeg_decompress_struct *ci)
{
    for (jpeg_saved_marker_ptr m = ci->marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length <= 6 || memcmp(m->data, "Exif\0\0", 6))
            continue;
        int o = gip__exif_orientation(m->data + 6, m->data_length - 6);
        if (o >= 0)
            return o;
    }
    return 0;
}

/* For the row streams: the same rules for library messages. */
bool gip__jpeg_warning_is_fatal(int code)
{
    return warning_is_fatal(code);
}

gip_status gip__jpeg_status_of_code(int code, bool decoding)
{
    return status_of_code(code, decoding);
}
