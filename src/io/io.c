/* SPDX-License-Identifier: MIT */
/* Public image I/O: argument checks, reading files, format detection from magic bytes, decoding
 * limits, channel/depth/order conversion on load, and saving through an encoder and an atomic
 * write. The codecs themselves live in jpeg.c, png.c and pnm.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exif.h"
#include "gip/geometry.h"
#include "internal.h"
#include "io_internal.h"
#include "color/cvt_color.h"

const char *gip_format_name(gip_format format)
{
    switch (format) {
    case GIP_FORMAT_JPEG:
        return "jpeg";
    case GIP_FORMAT_PNG:
        return "png";
    case GIP_FORMAT_PNM:
        return "pnm";
    default:
        return "?";
    }
}

/* The codec functions of one format. */
typedef struct codec {
    gip_status (*probe)(const uint8_t *data, size_t size, const char *what, gip_image_info *info);
    gip_status (*decode)(const uint8_t *data, size_t size, const char *what,
                         const gip__load_req *req, gip__raw *raw);
    gip_status (*encode)(const gip_image *img, const gip__save_req *req, const char *what,
                         uint8_t **data, size_t *size);
} codec;

/* The codec of format f: JPEG, PNG, else PNM. */
static const codec *codec_of(gip_format f)
{
    static const codec jpeg = {gip__jpeg_probe, gip__jpeg_decode, gip__jpeg_encode};
    static const codec png = {gip__png_probe, gip__png_decode, gip__png_encode};
    static const codec pnm = {gip__pnm_probe, gip__pnm_decode, gip__pnm_encode};
    return f == GIP_FORMAT_JPEG ? &jpeg : f == GIP_FORMAT_PNG ? &png : &pnm;
}

void gip_free(void *ptr)
{
    free(ptr);
}

bool gip__buf_append(gip__buf *buf, const void *bytes, size_t n)
{
    if (n > SIZE_MAX - buf->size)
        return false;
    if (buf->size + n > buf->cap) {
        size_t cap = buf->cap ? buf->cap : 4096;
        while (cap < buf->size + n)
            cap = cap > SIZE_MAX / 2 ? buf->size + n : cap * 2;
        uint8_t *p = realloc(buf->data, cap);
        if (!p)
            return false;
        buf->data = p;
        buf->cap = cap;
    }
    memcpy(buf->data + buf->size, bytes, n);
    buf->size += n;
    return true;
}

gip_status gip__io_check_limits(const char *what, int64_t width, int64_t height,
                                const gip__load_req *req)
{
    if (width > req->max_dim || height > req->max_dim)
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: image is %lldx%lld, above the limit of %lld pixels per side "
                          "(gip_load_params.max_dim; raise it to load this image)",
                          what, (long long)width, (long long)height, (long long)req->max_dim);
    if (width > GIP_MAX_DIM || height > GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: image is %lldx%lld; gip accepts at most %lld pixels per side", what,
                          (long long)width, (long long)height, (long long)GIP_MAX_DIM);
    if (width > req->max_pixels / height)
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: image is %lldx%lld, above the limit of %lld pixels "
                          "(gip_load_params.max_pixels; raise it to load this image)",
                          what, (long long)width, (long long)height, (long long)req->max_pixels);
    return GIP_OK;
}

/* ---- reading files -------------------------------------------------------------------------- */

/* Reads up to `limit` bytes (0 = all) of a file into a malloc'd buffer (one spare byte so that
 * an empty file still gets a buffer). *complete says whether the whole file was read. */
static gip_status read_file(const char *op, const char *path, size_t limit, uint8_t **data,
                            size_t *size, bool *complete)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        gip_status st = (e == ENOENT || e == ENOTDIR) ? GIP_ERR_NOT_FOUND : GIP_ERR_IO;
        return gip__error(NULL, st, "%s: cannot open '%s': %s", op, path, strerror(e));
    }
    gip_status st = GIP_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot stat '%s': %s", op, path, strerror(errno));
        goto out_close;
    }
    if (S_ISDIR(sb.st_mode)) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: '%s' is a directory, not an image file", op, path);
        goto out_close;
    }
    size_t cap = S_ISREG(sb.st_mode) && sb.st_size > 0 ? (size_t)sb.st_size + 1 : 65536;
    if (limit && cap > limit + 1)
        cap = limit + 1;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory reading '%s' (%zu bytes)",
                        op, path, cap);
        goto out_close;
    }
    size_t n = 0;
    bool eof = false;
    while (!eof && (!limit || n < limit)) {
        if (n == cap) {
            size_t ncap = cap * 2;
            uint8_t *p = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!p) {
                st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory reading '%s'", op,
                                path);
                goto out_free_buf;
            }
            buf = p;
            cap = ncap;
        }
        size_t want = cap - n;
        if (limit && want > limit - n)
            want = limit - n;
        ssize_t r = read(fd, buf + n, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            st =
                gip__error(NULL, GIP_ERR_IO, "%s: cannot read '%s': %s", op, path, strerror(errno));
            goto out_free_buf;
        }
        if (r == 0)
            eof = true;
        n += (size_t)r;
    }
    *data = buf;
    *size = n;
    *complete = eof || (S_ISREG(sb.st_mode) && (off_t)n >= sb.st_size);
    close(fd);
    return GIP_OK;

out_free_buf:
    free(buf);
out_close:
    close(fd);
    return st;
}

/* ---- format detection ----------------------------------------------------------------------- */

static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const uint8_t jpeg_magic[3] = {0xff, 0xd8, 0xff};

bool gip__io_is_jpeg(const uint8_t *d, size_t n)
{
    return n >= sizeof jpeg_magic && memcmp(d, jpeg_magic, sizeof jpeg_magic) == 0;
}

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* True when the n bytes are a proper prefix of the m-byte magic. */
static bool prefix_of(const uint8_t *d, size_t n, const uint8_t *magic, size_t m)
{
    return n < m && memcmp(d, magic, n) == 0;
}

static gip_status detect(const uint8_t *d, size_t n, const char *what, gip_format *format)
{
    if (n == 0)
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: the data is empty (0 bytes)", what);
    if (n >= sizeof png_magic && memcmp(d, png_magic, sizeof png_magic) == 0) {
        *format = GIP_FORMAT_PNG;
        return GIP_OK;
    }
    if (gip__io_is_jpeg(d, n)) {
        *format = GIP_FORMAT_JPEG;
        return GIP_OK;
    }
    if (n >= 3 && d[0] == 'P' && (d[1] == '5' || d[1] == '6') && is_space(d[2])) {
        *format = GIP_FORMAT_PNM;
        return GIP_OK;
    }
    if (prefix_of(d, n, png_magic, sizeof png_magic) ||
        prefix_of(d, n, jpeg_magic, sizeof jpeg_magic) ||
        (d[0] == 'P' && (n == 1 || (n == 2 && (d[1] == '5' || d[1] == '6')))))
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: truncated: only %zu bytes, the start of a PNG, JPEG or PNM "
                          "signature",
                          what, n);
    if (n >= 3 && d[0] == 'P' && (d[1] == '5' || d[1] == '6'))
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: malformed P%c (binary %s) header: the magic 'P%c' must be followed "
                          "by whitespace, found 0x%02x",
                          what, d[1], d[1] == '5' ? "PGM" : "PPM", d[1], d[2]);
    if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7')
        return gip__error(NULL, GIP_ERR_UNKNOWN_FORMAT,
                          "%s: Netpbm variant P%c is not read; gip reads binary PGM (P5) and "
                          "PPM (P6) only",
                          what, d[1]);
    return gip__error(NULL, GIP_ERR_UNKNOWN_FORMAT,
                      "%s: unknown image format (first bytes %02x %02x %02x %02x); gip reads "
                      "JPEG, PNG and binary PGM/PPM (P5/P6)",
                      what, d[0], n > 1 ? d[1] : 0, n > 2 ? d[2] : 0, n > 3 ? d[3] : 0);
}

/* ---- load requests and conversion ----------------------------------------------------------- */

static gip_status load_req_from(const char *op, const gip_load_params *p, gip__load_req *req)
{
    gip__load_req r = {.mode = GIP_LOAD_UNCHANGED,
                       .max_pixels = GIP_DEFAULT_MAX_PIXELS,
                       .max_dim = GIP_DEFAULT_MAX_DIM,
                       .orient = !p || !p->ignore_orientation,
                       .reduce = 1};
    if (p) {
        if (p->mode != GIP_LOAD_UNCHANGED && p->mode != GIP_LOAD_GRAY && p->mode != GIP_LOAD_COLOR)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->mode %d is invalid: GIP_LOAD_UNCHANGED (0), "
                              "GIP_LOAD_GRAY (1) or GIP_LOAD_COLOR (2) are accepted",
                              op, (int)p->mode);
        if (p->max_pixels < 0 || p->max_dim < 0)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->max_pixels (%lld) and params->max_dim (%lld) must be "
                              ">= 0 (0 = default)",
                              op, (long long)p->max_pixels, (long long)p->max_dim);
        r.mode = p->mode;
        r.bgr = p->bgr != 0;
        r.keep_depth = p->keep_depth != 0;
        if (p->max_pixels)
            r.max_pixels = p->max_pixels;
        if (p->max_dim)
            r.max_dim = p->max_dim;
        if (p->reduce != 0 && p->reduce != 1 && p->reduce != 2 && p->reduce != 4 && p->reduce != 8)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->reduce %d is invalid: 1, 2, 4 or 8 are accepted (0 = "
                              "1)",
                              op, (int)p->reduce);
        if (p->reduce > 1)
            r.reduce = p->reduce;
    }
    *req = r;
    return GIP_OK;
}

/* One conversion job: raw image in, requested image out. */
typedef struct convert_job {
    const gip_image *src;
    gip_image *dst;
    int sc, dc;   /* source and destination channels */
    int shift;    /* 8 when reducing u16 to u8, else 0 */
    int ri, bi;   /* source index of red and blue */
    bool dst_bgr; /* destination colour order */
} convert_job;

static inline uint32_t load_el(const uint8_t *row, bool wide, int64_t i)
{
    return wide ? ((const uint16_t *)(const void *)row)[i] : row[i];
}

static inline void store_el(uint8_t *row, bool wide, int64_t i, uint32_t v)
{
    if (wide)
        ((uint16_t *)(void *)row)[i] = (uint16_t)v;
    else
        row[i] = (uint8_t)v;
}

static void convert_rows(void *arg, int64_t begin, int64_t end)
{
    const convert_job *j = arg;
    bool swide = j->src->dtype == GIP_U16, dwide = j->dst->dtype == GIP_U16;
    int sc = j->sc, dc = j->dc;
    for (int64_t y = begin; y < end; y++) {
        const uint8_t *s = (const uint8_t *)j->src->data + y * j->src->stride;
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int64_t x = 0; x < j->src->width; x++) {
            uint32_t v[4] = {0, 0, 0, 0};
            for (int c = 0; c < sc; c++)
                v[c] = load_el(s, swide, x * sc + c) >> j->shift;
            uint32_t r, g, b, a;
            if (sc <= 2) {
                r = g = b = v[0];
                a = v[1];
            } else {
                r = v[j->ri];
                g = v[1];
                b = v[j->bi];
                a = v[3];
            }
            int64_t o = x * dc;
            if (dc == 1) {
                /* The gray rule of gip_cvt_color (OpenCV's RGB2GRAY, 15-bit coefficients,
                 * rounded); 64-bit so that u16 uses the same rule. Gray sources pass through. */
                uint32_t y1 =
                    sc <= 2
                        ? v[0]
                        : (uint32_t)(((uint64_t)r * GIP__GRAY_R15 + (uint64_t)g * GIP__GRAY_G15 +
                                      (uint64_t)b * GIP__GRAY_B15 +
                                      (1u << (GIP__GRAY_SHIFT - 1))) >>
                                     GIP__GRAY_SHIFT);
                store_el(d, dwide, o, y1);
            } else {
                store_el(d, dwide, o + 0, j->dst_bgr ? b : r);
                store_el(d, dwide, o + 1, g);
                store_el(d, dwide, o + 2, j->dst_bgr ? r : b);
                if (dc == 4)
                    store_el(d, dwide, o + 3, a);
            }
        }
    }
}

/* Turns what a codec decoded into what the request asks for. Takes ownership of raw->img: on
 * success it is either handed over as *out or freed; on failure it is freed. */
static gip_status finish_load(gip__raw *raw, const gip__load_req *req, gip_image *out)
{
    const gip_image *src = &raw->img;
    int sc = src->channels;
    int dc = req->mode == GIP_LOAD_GRAY ? 1 : req->mode == GIP_LOAD_COLOR ? 3 : sc == 2 ? 4 : sc;
    gip_dtype dt = (req->mode == GIP_LOAD_UNCHANGED || req->keep_depth) ? src->dtype : GIP_U8;
    bool order_differs = sc >= 3 && raw->bgr != req->bgr;
    if (dc == sc && dt == src->dtype && !(dc >= 3 && order_differs)) {
        *out = raw->img;
        return GIP_OK;
    }
    gip_image dst;
    gip_status st = gip_image_alloc(NULL, &dst, src->width, src->height, dc, dt, GIP_MEM_HOST, 0);
    if (st) {
        gip_image_free(NULL, &raw->img);
        return st;
    }
    convert_job j = {src,
                     &dst,
                     sc,
                     dc,
                     (src->dtype == GIP_U16 && dt == GIP_U8) ? 8 : 0,
                     raw->bgr ? 2 : 0,
                     raw->bgr ? 0 : 2,
                     req->bgr};
    /* One pass over memory that was just decoded on this thread: cheap next to the decoding,
     * which libjpeg/libpng do on one thread, so it runs here too. */
    convert_rows(&j, 0, src->height);
    gip_image_free(NULL, &raw->img);
    *out = dst;
    return GIP_OK;
}

/* ---- probe and load ------------------------------------------------------------------------- */

static gip_status probe_bytes(const uint8_t *d, size_t n, const char *what, gip_image_info *info)
{
    gip_format f = GIP_FORMAT_AUTO;
    gip_status st = detect(d, n, what, &f);
    if (st)
        return st;
    gip_image_info v;
    memset(&v, 0, sizeof v);
    if ((st = codec_of(f)->probe(d, n, what, &v)))
        return st;
    v.format = f;
    if (v.orientation < 1 || v.orientation > 8)
        v.orientation = 1;
    *info = v;
    return GIP_OK;
}

/* img replaced by its (w / n) x (h / n) resize with INTER_LINEAR_EXACT (cv2.imread's
 * IMREAD_REDUCED_* for the formats whose decoder does not scale). */
static gip_status reduce_image(gip_image *img, int32_t n, const char *what)
{
    const int64_t w = img->width / n > 0 ? img->width / n : 1;
    const int64_t h = img->height / n > 0 ? img->height / n : 1;
    gip_image small;
    gip_status st = gip_image_alloc(NULL, &small, w, h, img->channels, img->dtype, GIP_MEM_HOST, 0);
    if (st)
        return st;
    gip_context_desc cd = {.backend = GIP_BACKEND_CPU};
    gip_context *ctx = NULL;
    if ((st = gip_context_create(&cd, &ctx))) {
        gip_image_free(NULL, &small);
        return st;
    }
    gip_resize_params rp = {GIP_INTER_LINEAR_EXACT, 0, 0, 0};
    st = gip_resize(ctx, img, &small, &rp);
    gip_context_destroy(ctx);
    if (st) {
        gip_image_free(NULL, &small);
        return gip__error(NULL, st, "%s: reducing the image: %s", what, gip_last_error());
    }
    gip_image_free(NULL, img);
    *img = small;
    return GIP_OK;
}

static gip_status decode_bytes(const uint8_t *d, size_t n, const char *what,
                               const gip__load_req *req, gip_image *out)
{
    gip_format f = GIP_FORMAT_AUTO;
    gip_status st = detect(d, n, what, &f);
    if (st)
        return st;
    gip__raw raw;
    memset(&raw, 0, sizeof raw);
    if ((st = codec_of(f)->decode(d, n, what, req, &raw)))
        return st;
    gip_image img;
    if ((st = finish_load(&raw, req, &img)))
        return st;
    /* The reduced size of the formats the codec cannot scale, as cv2 makes it. */
    if (req->reduce > 1 && f != GIP_FORMAT_JPEG && (st = reduce_image(&img, req->reduce, what))) {
        gip_image_free(NULL, &img);
        return st;
    }
    /* Upright last, on the fewest channels. */
    if (req->orient && (st = gip__exif_apply(&img, raw.orientation, what))) {
        gip_image_free(NULL, &img);
        return st;
    }
    *out = img;
    return GIP_OK;
}

/* Bytes read first when probing a file; the rest is read only if the header lies beyond. */
#define PROBE_HEAD_BYTES ((size_t)256 * 1024)

gip_status gip_image_probe(const char *path, gip_image_info *info)
{
    static const char op[] = "gip_image_probe";
    if (!path || !info)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !path ? "path" : "info");
    char what[512];
    snprintf(what, sizeof what, "%s: '%s'", op, path);
    uint8_t *d = NULL;
    size_t n = 0;
    bool complete = false;
    gip_status st = read_file(op, path, PROBE_HEAD_BYTES, &d, &n, &complete);
    if (st)
        return st;
    st = probe_bytes(d, n, what, info);
    if (st == GIP_ERR_CORRUPT && !complete) {
        /* The header did not fit in the first bytes (large metadata): read it all. */
        free(d);
        d = NULL;
        if ((st = read_file(op, path, 0, &d, &n, &complete)))
            return st;
        st = probe_bytes(d, n, what, info);
    }
    free(d);
    return st;
}

gip_status gip_image_probe_memory(const void *data, size_t size, gip_image_info *info)
{
    static const char op[] = "gip_image_probe_memory";
    if (!data || !info)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !data ? "data" : "info");
    return probe_bytes(data, size, op, info);
}

/* Bytes of one host image as gip_image_alloc() makes it (rows padded to 64 bytes). */
static double image_bytes(int64_t w, int64_t h, int32_t c, int32_t bytes_per_sample)
{
    int64_t row = (w * c * bytes_per_sample + 63) / 64 * 64; /* w <= GIP_MAX_DIM: no overflow */
    return (double)row * (double)h;
}

/* The memory limit of a load, from the header alone and before any pixel memory exists: the size
 * limits first (the codecs check them again), then the bytes the load allocates, the decoded image
 * and, where the request converts it, the converted copy beside it, against max_memory (0: the
 * default limit). A header the probe cannot read is left to the decoder, whose message says what
 * is wrong with it. */
static gip_status check_memory(const uint8_t *d, size_t n, const char *what,
                               const gip_load_params *params, const gip__load_req *req)
{
    int64_t limit = params ? params->max_memory : 0;
    if (limit < 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: params->max_memory (%lld) must be >= 0 (0 = the default limit)",
                          what, (long long)limit);
    const char *source = "gip_load_params.max_memory";
    if (limit == 0) {
        limit = gip_default_max_memory();
        source = gip__max_memory_env() ? "GIP_MAX_MEMORY, which the CLI's --max-memory sets"
                                       : "the default, a quarter of the memory";
        if (limit < 0)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: GIP_MAX_MEMORY='%s' is not a byte count; accepted: a positive "
                              "integer with an optional K, M, G or T suffix (e.g. 512M)",
                              what, gip__max_memory_env());
    }
    gip_image_info info;
    if (probe_bytes(d, n, what, &info) != GIP_OK) {
        gip_clear_error();
        return GIP_OK;
    }
    if (req->reduce > 1 && info.format == GIP_FORMAT_JPEG) { /* decoded at that size */
        info.width = (info.width + req->reduce - 1) / req->reduce;
        info.height = (info.height + req->reduce - 1) / req->reduce;
    }
    gip_status st = gip__io_check_limits(what, info.width, info.height, req);
    if (st)
        return st;
    const int32_t sc = info.channels, sb = info.bit_depth > 8 ? 2 : 1;
    /* What finish_load() makes of it. Codecs decode as stored or straight into fewer channels; a
     * request that changes the channels, the depth or the colour order gets a converted copy
     * (counted whenever it may). */
    const int32_t dc = req->mode == GIP_LOAD_GRAY    ? 1
                       : req->mode == GIP_LOAD_COLOR ? 3
                       : sc == 2                     ? 4
                                                     : sc;
    const int32_t db = (req->mode == GIP_LOAD_UNCHANGED || req->keep_depth) ? sb : 1;
    double bytes = image_bytes(info.width, info.height, sc > dc ? sc : dc, sb);
    const bool converted = dc != sc || db != sb || (dc >= 3 && req->bgr);
    if (converted)
        bytes += image_bytes(info.width, info.height, dc, db);
    /* EXIF orientations 5..8 transpose the loaded image into a second one (a PNG's eXIf chunk
     * after the pixels is seen by loading only, and not counted here). */
    if (req->orient && info.orientation >= 5) {
        double turned = (converted ? image_bytes(info.width, info.height, dc, db) : bytes) +
                        image_bytes(info.height, info.width, dc, db);
        bytes = turned > bytes ? turned : bytes;
    }
    if (bytes > (double)limit)
        return gip__error(NULL, GIP_ERR_TOO_LARGE,
                          "%s: image is %lldx%lld, %d channel%s of %d bits: loading it takes %.0f "
                          "bytes, above the memory limit of %lld bytes (%s; set "
                          "gip_load_params.max_memory, GIP_MAX_MEMORY or the CLI's --max-memory "
                          "to raise it, or stream the file by rows: gip run, "
                          "gip_pipeline_run_file_bounded)",
                          what, (long long)info.width, (long long)info.height, (int)sc,
                          sc == 1 ? "" : "s", (int)info.bit_depth, bytes, (long long)limit, source);
    return GIP_OK;
}

gip_status gip_image_load(const char *path, const gip_load_params *params, gip_image *out)
{
    static const char op[] = "gip_image_load";
    if (!path || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !path ? "path" : "out");
    gip__load_req req;
    gip_status st = load_req_from(op, params, &req);
    if (st)
        return st;
    char what[512];
    snprintf(what, sizeof what, "%s: '%s'", op, path);
    uint8_t *d = NULL;
    size_t n = 0;
    bool complete = false;
    if ((st = read_file(op, path, 0, &d, &n, &complete)))
        return st;
    if (!(st = check_memory(d, n, what, params, &req)))
        st = decode_bytes(d, n, what, &req, out);
    free(d);
    return st;
}

gip_status gip_image_decode(const void *data, size_t size, const gip_load_params *params,
                            gip_image *out)
{
    static const char op[] = "gip_image_decode";
    if (!data || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !data ? "data" : "out");
    gip__load_req req;
    gip_status st = load_req_from(op, params, &req);
    if (st || (st = check_memory(data, size, op, params, &req)))
        return st;
    return decode_bytes(data, size, op, &req, out);
}

/* ---- save and encode ------------------------------------------------------------------------ */

gip_format gip_format_from_path(const char *path, int32_t *pnm_kind)
{
    int32_t unused;
    if (!pnm_kind)
        pnm_kind = &unused;
    *pnm_kind = 0;
    if (!path)
        return GIP_FORMAT_AUTO;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return GIP_FORMAT_AUTO;
    const char *e = dot + 1;
    if (!strcasecmp(e, "jpg") || !strcasecmp(e, "jpeg"))
        return GIP_FORMAT_JPEG;
    if (!strcasecmp(e, "png"))
        return GIP_FORMAT_PNG;
    if (!strcasecmp(e, "pgm"))
        *pnm_kind = 1;
    else if (!strcasecmp(e, "ppm"))
        *pnm_kind = 3;
    else if (strcasecmp(e, "pnm"))
        return GIP_FORMAT_AUTO;
    return GIP_FORMAT_PNM;
}

/* Checks the image and the parameters for `format` and fills the request. */
static gip_status save_req_from(const char *op, const gip_image *img, const gip_save_params *p,
                                gip_format format, int pnm_kind, gip__save_req *req)
{
    char label[64];
    snprintf(label, sizeof label, "%s: img", op);
    gip_status st = gip_image_check(img, label);
    if (st)
        return st;
    if (img->memory == GIP_MEM_CUDA)
        return gip__error(NULL, GIP_ERR_LOCATION_MISMATCH,
                          "%s: img is in CUDA device memory; download it to host memory first "
                          "(gip_download)",
                          op);
    gip__save_req r = {format, 95, GIP_SUBSAMPLING_420, false, 1, false};
    if (p) {
        if (p->quality < 0 || p->quality > 100)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->quality %d is invalid: 1..100 are accepted (0 = 95)", op,
                              (int)p->quality);
        if (p->subsampling < GIP_SUBSAMPLING_DEFAULT || p->subsampling > GIP_SUBSAMPLING_420)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->subsampling %d is invalid: GIP_SUBSAMPLING_DEFAULT, "
                              "_444, _422 or _420 are accepted",
                              op, (int)p->subsampling);
        if (p->png_compression < 0 || p->png_compression > 9)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->png_compression %d is invalid: 1..9 are accepted "
                              "(0 = 1)",
                              op, (int)p->png_compression);
        if (p->quality)
            r.quality = p->quality;
        if (p->subsampling)
            r.subsampling = p->subsampling;
        r.progressive = p->progressive != 0;
        if (p->png_compression)
            r.png_compression = p->png_compression;
        r.bgr = p->bgr != 0;
    }
    if (img->dtype != GIP_U8 && img->dtype != GIP_U16)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a %s image cannot be saved; convert it to u8 first (or u16 for "
                          "PNG/PNM), e.g. with gip_convert",
                          op, gip_dtype_name(img->dtype));
    if (img->dtype == GIP_U16 && format == GIP_FORMAT_JPEG)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: JPEG stores 8-bit data only; convert the u16 image to u8 first, or "
                          "save it as PNG or PNM",
                          op);
    int c = img->channels;
    if (c == 2)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: 2-channel images cannot be saved; 1, 3 or 4 channels are accepted",
                          op);
    if (format == GIP_FORMAT_JPEG && c == 4)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: JPEG has no alpha channel; 1 or 3 channels are accepted (drop "
                          "alpha first, or save as PNG)",
                          op);
    if (format == GIP_FORMAT_PNM && c == 4)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: PGM/PPM have no alpha channel; 1 (PGM) or 3 (PPM) channels are "
                          "accepted (save as PNG to keep alpha)",
                          op);
    if (pnm_kind && pnm_kind != c)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: a .%s file holds %s images but img has %d channels; use .%s or "
                          ".pnm",
                          op, pnm_kind == 1 ? "pgm" : "ppm", pnm_kind == 1 ? "1-channel" : "RGB", c,
                          c == 1 ? "pgm" : "ppm");
    *req = r;
    return GIP_OK;
}

static gip_status encode_req(const gip_image *img, const gip__save_req *req, const char *what,
                             uint8_t **data, size_t *size)
{
    return codec_of(req->format)->encode(img, req, what, data, size);
}

static bool format_valid(gip_format f)
{
    return f == GIP_FORMAT_JPEG || f == GIP_FORMAT_PNG || f == GIP_FORMAT_PNM;
}

gip_status gip_image_encode(const gip_image *img, const gip_save_params *params, void **data,
                            size_t *size)
{
    static const char op[] = "gip_image_encode";
    if (!params || !data || !size)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !params ? "params (it names the format)"
                          : !data ? "data"
                                  : "size");
    if (!format_valid(params->format))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: params->format %d is invalid: GIP_FORMAT_JPEG, GIP_FORMAT_PNG or "
                          "GIP_FORMAT_PNM are accepted (there is no path to guess it from)",
                          op, (int)params->format);
    gip__save_req req;
    gip_status st = save_req_from(op, img, params, params->format, 0, &req);
    if (st)
        return st;
    uint8_t *d = NULL;
    size_t n = 0;
    if ((st = encode_req(img, &req, op, &d, &n)))
        return st;
    *data = d;
    *size = n;
    return GIP_OK;
}

gip_status gip_image_save(const char *path, const gip_image *img, const gip_save_params *params)
{
    static const char op[] = "gip_image_save";
    if (!path || !img)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !path ? "path" : "img");
    if (!path[0])
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: path is empty", op);
    int32_t pnm_kind = 0;
    gip_format f = gip_format_from_path(path, &pnm_kind);
    if (params && params->format != GIP_FORMAT_AUTO) {
        if (!format_valid(params->format))
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: params->format %d is invalid: GIP_FORMAT_AUTO, _JPEG, _PNG or "
                              "_PNM are accepted",
                              op, (int)params->format);
        if (params->format != f)
            pnm_kind = 0; /* the explicit format wins over whatever the extension says */
        f = params->format;
    } else if (f == GIP_FORMAT_AUTO) {
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: cannot tell the format of '%s' from its extension; use .jpg, "
                          ".jpeg, .png, .ppm, .pgm or .pnm, or set params->format",
                          op, path);
    }
    gip__save_req req;
    gip_status st = save_req_from(op, img, params, f, pnm_kind, &req);
    if (st)
        return st;
    char what[512];
    snprintf(what, sizeof what, "%s: '%s'", op, path);
    uint8_t *d = NULL;
    size_t n = 0;
    if ((st = encode_req(img, &req, what, &d, &n)))
        return st;
    st = gip__atomic_write(op, path, d, n, params && params->overwrite ? GIP__OUT_OVERWRITE : 0,
                           NULL);
    free(d);
    return st;
}

/* ---- entry points for the row streams (stream_read.c, stream_write.c) ------------------------ */

gip_status gip__io_load_req(const char *op, const gip_load_params *params, gip__load_req *req)
{
    return load_req_from(op, params, req);
}

void gip__io_load_shape(int32_t sc, gip_dtype sdt, const gip__load_req *req, int32_t *dc,
                        gip_dtype *ddt)
{
    *dc = req->mode == GIP_LOAD_GRAY ? 1 : req->mode == GIP_LOAD_COLOR ? 3 : sc == 2 ? 4 : sc;
    *ddt = (req->mode == GIP_LOAD_UNCHANGED || req->keep_depth) ? sdt : GIP_U8;
}

void gip__io_convert(const gip_image *src, bool src_bgr, const gip__load_req *req, gip_image *dst)
{
    convert_job j = {src,
                     dst,
                     src->channels,
                     dst->channels,
                     (src->dtype == GIP_U16 && dst->dtype == GIP_U8) ? 8 : 0,
                     src_bgr ? 2 : 0,
                     src_bgr ? 0 : 2,
                     req->bgr};
    convert_rows(&j, 0, src->height);
}

gip_status gip__io_save_req(const char *op, const char *path, const gip_image *img,
                            const gip_save_params *params, gip__save_req *req)
{
    int32_t pnm_kind = 0;
    gip_format f =
        params && params->format ? params->format : gip_format_from_path(path, &pnm_kind);
    if (!format_valid(f))
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "%s: cannot tell the format of '%s' from its extension; accepted: .jpg "
                          ".jpeg .png .ppm .pgm .pnm",
                          op, path);
    return save_req_from(op, img, params, f, pnm_kind, req);
}
