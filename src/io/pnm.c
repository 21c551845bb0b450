/* SPDX-License-Identifier: MIT */
/* Binary PGM (P5) and PPM (P6) probe, decode and encode: maxval 1..65535, 8-bit samples when
 * maxval < 256, else 16-bit big-endian. Samples are returned as stored (not rescaled to the full
 * range), as cv2.imread does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_gray.h"
#include "internal.h"
#include "io_internal.h"
#include "stream_io.h"

typedef struct pnm_header {
    int channels; /* 1 (P5) or 3 (P6) */
    int64_t width, height;
    int32_t maxval;
    size_t data_offset; /* first byte of the pixels */
} pnm_header;

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Reads one decimal field after whitespace and comments (# to the end of the line). */
static gip_status read_field(const uint8_t *d, size_t n, size_t *pos, const char *field,
                             const char *what, int64_t *value)
{
    size_t p = *pos;
    for (;;) {
        while (p < n && is_space(d[p]))
            p++;
        if (p < n && d[p] == '#') {
            while (p < n && d[p] != '\n' && d[p] != '\r')
                p++;
            continue;
        }
        break;
    }
    if (p == n)
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: truncated PNM header (no %s)", what, field);
    if (d[p] < '0' || d[p] > '9')
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: corrupt PNM header: expected the %s as a decimal number at byte "
                          "%zu, found 0x%02x",
                          what, field, p, d[p]);
    int64_t v = 0;
    while (p < n && d[p] >= '0' && d[p] <= '9') {
        if (v > 100000000000000LL)
            return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt PNM header: the %s is absurd",
                              what, field);
        v = v * 10 + (d[p] - '0');
        p++;
    }
    if (p == n)
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: truncated PNM header (after the %s)", what,
                          field);
    if (!is_space(d[p]) && d[p] != '#')
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: corrupt PNM header: unexpected byte 0x%02x after the %s", what, d[p],
                          field);
    *value = v;
    *pos = p;
    return GIP_OK;
}

static gip_status parse_header(const uint8_t *d, size_t n, const char *what, pnm_header *h)
{
    /* io.c has checked the magic: "P5" or "P6" followed by whitespace. */
    h->channels = d[1] == '5' ? 1 : 3;
    size_t pos = 2;
    int64_t w = 0, ht = 0, maxval = 0;
    gip_status st;
    if ((st = read_field(d, n, &pos, "width", what, &w)) ||
        (st = read_field(d, n, &pos, "height", what, &ht)) ||
        (st = read_field(d, n, &pos, "maxval", what, &maxval)))
        return st;
    if (!is_space(d[pos]))
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: corrupt PNM header: a comment after maxval (one whitespace byte "
                          "must precede the pixels)",
                          what);
    if (w < 1 || ht < 1)
        return gip__error(NULL, GIP_ERR_CORRUPT, "%s: corrupt PNM header: size %lldx%lld", what,
                          (long long)w, (long long)ht);
    if (maxval < 1 || maxval > 65535)
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: corrupt PNM header: maxval %lld (1..65535 are valid)", what,
                          (long long)maxval);
    h->width = w;
    h->height = ht;
    h->maxval = (int32_t)maxval;
    h->data_offset = pos + 1;
    return GIP_OK;
}

gip_status gip__pnm_probe(const uint8_t *data, size_t size, const char *what, gip_image_info *info)
{
    pnm_header h = {0};
    gip_status st = parse_header(data, size, what, &h);
    if (st)
        return st;
    info->width = h.width;
    info->height = h.height;
    info->channels = h.channels;
    info->bit_depth = h.maxval > 255 ? 16 : 8;
    info->progressive = 0;
    return GIP_OK;
}

gip_status gip__pnm_decode(const uint8_t *data, size_t size, const char *what,
                           const gip__load_req *req, gip__raw *raw)
{
    pnm_header h = {0};
    gip_status st = parse_header(data, size, what, &h);
    if (st)
        return st;
    if ((st = gip__io_check_limits(what, h.width, h.height, req)))
        return st;
    bool wide = h.maxval > 255;
    /* Sizes fit: the limits keep width and height <= 2^31 - 1 and their product <= max_pixels. */
    uint64_t row = (uint64_t)h.width * (uint64_t)h.channels * (wide ? 2u : 1u), need;
    if (__builtin_mul_overflow(row, (uint64_t)h.height, &need) ||
        need > (uint64_t)(size - h.data_offset))
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "%s: truncated PNM: %lldx%lld needs %llu bytes of pixels, the data "
                          "hold %zu",
                          what, (long long)h.width, (long long)h.height,
                          (unsigned long long)row * (unsigned long long)h.height,
                          size - h.data_offset);
    gip_image img;
    if ((st = gip_image_alloc(NULL, &img, h.width, h.height, h.channels, wide ? GIP_U16 : GIP_U8,
                              GIP_MEM_HOST, 0)))
        return st;
    const uint8_t *s = data + h.data_offset;
    for (int64_t y = 0; y < h.height; y++, s += row) {
        uint8_t *d = (uint8_t *)img.data + y * img.stride;
        if (!wide) {
            memcpy(d, s, row);
        } else {
            for (uint64_t i = 0; i < row / 2; i++) {
                uint16_t v = (uint16_t)(s[2 * i] << 8 | s[2 * i + 1]);
                memcpy(d + 2 * i, &v, 2);
            }
        }
    }
    if (req->mode == GIP_LOAD_GRAY && h.channels == 3) {
        /* cv2.imread's gray of a PPM: the codecs' rule, after 16-bit samples are cut to 8
         * unless the depth is kept. */
        gip_image gray;
        st = gip_image_alloc(NULL, &gray, h.width, h.height, 1,
                             wide && req->keep_depth ? GIP_U16 : GIP_U8, GIP_MEM_HOST, 0);
        if (st) {
            gip_image_free(NULL, &img);
            return st;
        }
        gip__pnm_gray_rows(&img, &gray);
        gip_image_free(NULL, &img);
        img = gray;
    }
    raw->img = img;
    raw->bgr = false;
    return GIP_OK;
}

void gip__pnm_gray_rows(const gip_image *rgb, gip_image *gray)
{
    bool wide = rgb->dtype == GIP_U16, cut = wide && gray->dtype == GIP_U8;
    for (int64_t y = 0; y < rgb->height; y++) {
        const uint8_t *s = (const uint8_t *)rgb->data + y * rgb->stride;
        uint8_t *d = (uint8_t *)gray->data + y * gray->stride;
        for (int64_t x = 0; x < rgb->width; x++) {
            uint32_t c[3];
            for (int k = 0; k < 3; k++) {
                uint16_t v = 0;
                if (wide)
                    memcpy(&v, s + 2 * (3 * x + k), 2);
                else
                    v = s[3 * x + k];
                c[k] = cut ? v >> 8 : v;
            }
            uint32_t g = gip__codec_gray(c[0], c[1], c[2]);
            if (gray->dtype == GIP_U16) {
                uint16_t g16 = (uint16_t)g;
                memcpy(d + 2 * x, &g16, 2);
            } else {
                d[x] = (uint8_t)g;
            }
        }
    }
}

gip_status gip__pnm_encode(const gip_image *img, const gip__save_req *req, const char *what,
                           uint8_t **data, size_t *size)
{
    bool wide = img->dtype == GIP_U16;
    bool swap = req->bgr && img->channels == 3; /* PPM stores RGB */
    char head[96];
    int hn = snprintf(head, sizeof head, "P%c\n%lld %lld\n%d\n", img->channels == 1 ? '5' : '6',
                      (long long)img->width, (long long)img->height, wide ? 65535 : 255);
    uint64_t row = (uint64_t)gip_image_row_bytes(img), total;
    if (__builtin_mul_overflow(row, (uint64_t)img->height, &total) ||
        total > SIZE_MAX - (uint64_t)hn)
        return gip__error(NULL, GIP_ERR_TOO_LARGE, "%s: the image is too large to encode", what);
    uint8_t *buf = malloc((size_t)total + (size_t)hn);
    if (!buf)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY,
                          "%s: out of memory encoding PNM (%llu bytes)", what,
                          (unsigned long long)total + (unsigned long long)hn);
    memcpy(buf, head, (size_t)hn);
    uint8_t *d = buf + hn;
    for (int64_t y = 0; y < img->height; y++, d += row) {
        const uint8_t *s = (const uint8_t *)img->data + y * img->stride;
        if (!wide) {
            memcpy(d, s, row);
            if (swap)
                for (uint64_t i = 0; i < row; i += 3) {
                    d[i] = s[i + 2];
                    d[i + 2] = s[i];
                }
        } else {
            for (uint64_t i = 0; i < row / 2; i++) {
                /* with swap, element i takes its value from the other end of its pixel */
                uint64_t k = swap ? i - i % 3 + (2 - i % 3) : i;
                uint16_t v;
                memcpy(&v, s + 2 * k, 2); /* rows of any stride: no aligned loads */
                d[2 * i] = (uint8_t)(v >> 8);
                d[2 * i + 1] = (uint8_t)v;
            }
        }
    }
    *data = buf;
    *size = (size_t)total + (size_t)hn;
    return GIP_OK;
}

/* For the row streams: the header of P5/P6 bytes (magic already checked). */
gip_status gip__pnm_header(const uint8_t *data, size_t size, const char *what, int32_t *channels,
                           int64_t *width, int64_t *height, int32_t *maxval, size_t *data_offset)
{
    pnm_header h = {0};
    gip_status st = parse_header(data, size, what, &h);
    if (st)
        return st;
    *channels = h.channels;
    *width = h.width;
    *height = h.height;
    *maxval = h.maxval;
    *data_offset = h.data_offset;
    return GIP_OK;
}
