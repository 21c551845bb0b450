/* SPDX-License-Identifier: MIT */
/* EXIF Orientation: the tag read from a TIFF block (a JPEG's APP1 "Exif" segment) with every
 * offset checked against the block's size, and the flips and transposes that turn a decoded
 * image upright as cv2.imread does. */
#include <stdbool.h>
#include <string.h>

#include "exif.h"
#include "internal.h"

static unsigned rd16(const uint8_t *p, bool le)
{
    return le ? (unsigned)p[0] | (unsigned)p[1] << 8 : (unsigned)p[0] << 8 | (unsigned)p[1];
}

static uint32_t rd32(const uint8_t *p, bool le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

#define TAG_ORIENTATION 0x0112u

int gip__exif_orientation(const uint8_t *t, size_t n)
{
    if (!t || n < 8)
        return -1;
    bool le;
    if (t[0] == 'I' && t[1] == 'I')
        le = true;
    else if (t[0] == 'M' && t[1] == 'M')
        le = false;
    else
        return -1;
    if (rd16(t + 2, le) != 42)
        return -1;
    uint32_t ifd = rd32(t + 4, le);
    if (ifd > n || n - ifd < 2)
        return -1;
    unsigned count = rd16(t + ifd, le);
    size_t pos = (size_t)ifd + 2;
    /* Entries of 12 bytes: tag, type, count, value. Only the tag and the first 16 bits of the
     * value are read, each after checking that they lie inside the block. */
    for (unsigned i = 0; i < count; i++, pos += 12) {
        if (pos > n || n - pos < 2)
            return -1;
        if (rd16(t + pos, le) != TAG_ORIENTATION)
            continue;
        if (n - pos < 10)
            return -1;
        return (int)rd16(t + pos + 8, le);
    }
    return -1;
}

/* One pixel of psz bytes; fixed sizes become plain moves. */
static inline void copy_px(uint8_t *d, const uint8_t *s, size_t psz)
{
    switch (psz) {
    case 1:
        *d = *s;
        break;
    case 2:
        memcpy(d, s, 2);
        break;
    case 3:
        memcpy(d, s, 3);
        break;
    case 4:
        memcpy(d, s, 4);
        break;
    case 8:
        memcpy(d, s, 8);
        break;
    default:
        memcpy(d, s, psz);
        break;
    }
}

/* Swaps n bytes of a and b (distinct rows) through a small buffer. */
static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
    uint8_t tmp[256];
    while (n) {
        size_t k = n < sizeof tmp ? n : sizeof tmp;
        memcpy(tmp, a, k);
        memcpy(a, b, k);
        memcpy(b, tmp, k);
        a += k;
        b += k;
        n -= k;
    }
}

gip_status gip__exif_apply(gip_image *img, int orientation, const char *what)
{
    if (orientation < 2 || orientation > 8)
        return GIP_OK;
    const bool transpose = orientation >= 5;
    const bool flip_h =
        orientation == 2 || orientation == 3 || orientation == 6 || orientation == 7;
    const bool flip_v =
        orientation == 3 || orientation == 4 || orientation == 7 || orientation == 8;
    const int64_t w = img->width, h = img->height;
    const size_t psz = (size_t)img->channels * gip_dtype_size(img->dtype);
    if (!transpose) {
        /* Flips happen in place. */
        if (flip_v)
            for (int64_t y = 0; y < h / 2; y++)
                swap_bytes((uint8_t *)img->data + y * img->stride,
                           (uint8_t *)img->data + (h - 1 - y) * img->stride, (size_t)w * psz);
        if (flip_h)
            for (int64_t y = 0; y < h; y++) {
                uint8_t *row = (uint8_t *)img->data + y * img->stride;
                for (int64_t x = 0; x < w / 2; x++)
                    swap_bytes(row + (size_t)x * psz, row + (size_t)(w - 1 - x) * psz, psz);
            }
        return GIP_OK;
    }
    /* out(r, c) = in(c', r') with r' = flip_v ? oh-1-r : r and c' = flip_h ? ow-1-c : c, where
     * the output is ow = h wide and oh = w high; in tiles so that both sides stay in cache. */
    const int64_t ow = h, oh = w;
    gip_image out;
    gip_status st = gip_image_alloc(NULL, &out, ow, oh, img->channels, img->dtype, GIP_MEM_HOST, 0);
    if (st)
        return gip__error(NULL, st,
                          "%s: out of memory turning the image upright (EXIF "
                          "orientation %d)",
                          what, orientation);
    enum { TILE = 32 };
    for (int64_t r0 = 0; r0 < oh; r0 += TILE)
        for (int64_t c0 = 0; c0 < ow; c0 += TILE) {
            int64_t r1 = r0 + TILE < oh ? r0 + TILE : oh, c1 = c0 + TILE < ow ? c0 + TILE : ow;
            for (int64_t r = r0; r < r1; r++) {
                uint8_t *d = (uint8_t *)out.data + r * out.stride + (size_t)c0 * psz;
                const int64_t sx = flip_v ? oh - 1 - r : r;
                for (int64_t c = c0; c < c1; c++, d += psz) {
                    const int64_t sy = flip_h ? ow - 1 - c : c;
                    copy_px(d, (const uint8_t *)img->data + sy * img->stride + (size_t)sx * psz,
                            psz);
                }
            }
        }
    gip_image_free(NULL, img);
    *img = out;
    return GIP_OK;
}
