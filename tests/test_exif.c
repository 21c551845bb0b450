/* SPDX-License-Identifier: MIT */
/* EXIF Orientation: the TIFF parser on good, odd and corrupt blocks (every truncation, damaged
 * offsets and counts, random damage; each block sits at the very end of a readable page so that
 * any read past it faults), the flips and transposes against the tag's definition, and loading
 * JPEG files with an APP1 segment with and without ignore_orientation. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/exif.h"
#include "testing.h"

/* ---- blocks ---------------------------------------------------------------------------------- */

static void put16(uint8_t *p, unsigned v, bool le)
{
    p[le ? 0 : 1] = (uint8_t)v;
    p[le ? 1 : 0] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v, bool le)
{
    for (int i = 0; i < 4; i++)
        p[le ? i : 3 - i] = (uint8_t)(v >> (8 * i));
}

static void put_entry(uint8_t *p, unsigned tag, unsigned type, uint32_t count, uint32_t value,
                      bool le)
{
    put16(p, tag, le);
    put16(p + 2, type, le);
    put32(p + 4, count, le);
    if (type == 3) {
        put16(p + 8, value, le);
        put16(p + 10, 0, le);
    } else {
        put32(p + 8, value, le);
    }
}

/* A TIFF block: header, IFD0 at offset 8 with XResolution, Orientation (unless orientation < 0)
 * and ResolutionUnit entries. *at: the offset of the Orientation entry. Returns the size. */
static size_t make_block(uint8_t *b, int orientation, bool le, size_t *at)
{
    memcpy(b, le ? "II" : "MM", 2);
    put16(b + 2, 42, le);
    put32(b + 4, 8, le);
    unsigned n = orientation < 0 ? 2 : 3;
    put16(b + 8, n, le);
    uint8_t *e = b + 10;
    put_entry(e, 0x011A, 5, 1, 0, le);
    e += 12;
    if (orientation >= 0) {
        if (at)
            *at = (size_t)(e - b);
        put_entry(e, 0x0112, 3, 1, (uint32_t)orientation, le);
        e += 12;
    }
    put_entry(e, 0x0128, 3, 1, 2, le);
    e += 12;
    put32(e, 0, le);
    return (size_t)(e + 4 - b);
}

/* Two pages, the second unreadable: a block copied to the end of the first cannot be read past
 * without a fault. */
static uint8_t *guard;
static size_t page;

static int parse_guarded(const uint8_t *b, size_t n)
{
    uint8_t *p = guard + page - n;
    if (n)
        memcpy(p, b, n);
    return gip__exif_orientation(p, n);
}

static void test_parser(void)
{
    uint8_t b[256];
    for (int le = 0; le <= 1; le++) {
        int values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 65535};
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            size_t at = 0, n = make_block(b, values[k], le, &at);
            GT_CHECK(parse_guarded(b, n) == values[k], "%s value %d: got %d", le ? "II" : "MM",
                     values[k], parse_guarded(b, n));
            /* Every truncation: the value is read only when its 2 bytes are there. */
            for (size_t cut = 0; cut < n; cut++) {
                int want = cut >= at + 10 ? values[k] : -1;
                int got = parse_guarded(b, cut);
                GT_CHECK(got == want, "%s value %d cut at %zu of %zu: got %d, expected %d",
                         le ? "II" : "MM", values[k], cut, n, got, want);
            }
        }
        size_t n = make_block(b, -1, le, NULL);
        GT_CHECK(parse_guarded(b, n) == -1, "no Orientation entry: got %d", parse_guarded(b, n));
        /* Entry type LONG: the first 16 bits of the value field, as OpenCV reads it. */
        size_t at = 0;
        n = make_block(b, 6, le, &at);
        put_entry(b + at, 0x0112, 4, 1, le ? 6 : 6u << 16, le);
        GT_CHECK(parse_guarded(b, n) == 6, "LONG entry: got %d", parse_guarded(b, n));
    }
    GT_CHECK(parse_guarded(NULL, 0) == -1, "NULL block");
    /* Damaged headers, offsets and counts. */
    size_t at = 0, n = make_block(b, 6, true, &at);
    uint8_t d[256];
    struct {
        const char *what;
        size_t off;
        int bytes;
        uint32_t value;
    } damage[] = {
        {"byte order IM", 1, 1, 'M'},
        {"byte order ii", 0, 2, 0x6969},
        {"magic 43", 2, 2, 43},
        {"IFD offset n", 4, 4, (uint32_t)n},
        {"IFD offset n - 1", 4, 4, (uint32_t)n - 1},
        {"IFD offset 2^32 - 1", 4, 4, 0xFFFFFFFFu},
        {"IFD offset 2^31", 4, 4, 0x80000000u},
        {"IFD offset 0", 4, 4, 0},
        {"entry count 65535, no tag", 8, 2, 65535},
    };
    for (size_t k = 0; k < sizeof damage / sizeof damage[0]; k++) {
        memcpy(d, b, n);
        if (damage[k].bytes == 1)
            d[damage[k].off] = (uint8_t)damage[k].value;
        else if (damage[k].bytes == 2)
            put16(d + damage[k].off, damage[k].value, true);
        else
            put32(d + damage[k].off, damage[k].value, true);
        if (k == sizeof damage / sizeof damage[0] - 1)
            put16(d + at, 0x0113, true); /* the count runs off the end; no Orientation on the way */
        int got = parse_guarded(d, n);
        GT_CHECK(got == -1, "%s: got %d, expected -1", damage[k].what, got);
    }
    /* Random damage and truncation: any value or -1, never a read past the block. */
    uint64_t rs = 42;
    int found = 0;
    for (int it = 0; it < 200000; it++) {
        int o = (int)(gt_rand_u64(&rs) % 10);
        n = make_block(b, o, gt_rand_u64(&rs) & 1, NULL);
        memcpy(d, b, n);
        int flips = 1 + (int)(gt_rand_u64(&rs) % 4);
        for (int f = 0; f < flips; f++)
            d[gt_rand_u64(&rs) % n] = (uint8_t)gt_rand_u64(&rs);
        size_t len = gt_rand_u64(&rs) % 4 ? n : (size_t)(gt_rand_u64(&rs) % (n + 1));
        int got = parse_guarded(d, len);
        if (!GT_CHECK(got >= -1 && got <= 65535, "random block %d: got %d", it, got))
            break;
        found += got >= 0;
    }
    GT_CHECK(found > 1000, "random damage left the tag readable only %d times", found);
}

/* ---- turning images -------------------------------------------------------------------------- */

/* The stored pixel (sx, sy) that the upright image shows at (x, y) for orientation o, from the
 * tag's definition (which stored corner is the visual top left); w, h: the stored size. */
static void source_of(int o, int64_t x, int64_t y, int64_t w, int64_t h, int64_t *sx, int64_t *sy)
{
    switch (o) {
    case 2: /* mirrored */
        *sx = w - 1 - x, *sy = y;
        break;
    case 3: /* rotated 180 */
        *sx = w - 1 - x, *sy = h - 1 - y;
        break;
    case 4: /* flipped */
        *sx = x, *sy = h - 1 - y;
        break;
    case 5: /* transposed */
        *sx = y, *sy = x;
        break;
    case 6: /* rotate 90 clockwise to view */
        *sx = y, *sy = h - 1 - x;
        break;
    case 7: /* transverse */
        *sx = w - 1 - y, *sy = h - 1 - x;
        break;
    case 8: /* rotate 90 counter-clockwise to view */
        *sx = w - 1 - y, *sy = x;
        break;
    default:
        *sx = x, *sy = y;
        break;
    }
}

static bool check_upright(const gip_image *stored, const gip_image *got, int o, const char *what)
{
    bool swap = o >= 5 && o <= 8;
    int64_t w = swap ? stored->height : stored->width, h = swap ? stored->width : stored->height;
    if (!GT_CHECK(got->width == w && got->height == h && got->channels == stored->channels &&
                      got->dtype == stored->dtype,
                  "%s: orientation %d gave %lldx%lldx%d, expected %lldx%lldx%d", what, o,
                  (long long)got->width, (long long)got->height, got->channels, (long long)w,
                  (long long)h, stored->channels))
        return false;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            int64_t sx, sy;
            source_of(o, x, y, stored->width, stored->height, &sx, &sy);
            for (int c = 0; c < stored->channels; c++)
                if (!GT_CHECK(gt_get(got, x, y, c) == gt_get(stored, sx, sy, c),
                              "%s: orientation %d at x=%lld y=%lld c=%d: got %g, expected %g "
                              "(stored %lld, %lld)",
                              what, o, (long long)x, (long long)y, c, gt_get(got, x, y, c),
                              gt_get(stored, sx, sy, c), (long long)sx, (long long)sy))
                    return false;
        }
    return true;
}

static void test_apply(void)
{
    const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    const int chans[] = {1, 3, 4};
    const int64_t sizes[][2] = {{5, 3}, {1, 7}, {6, 1}, {1, 1}, {67, 45}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int d = 0; d < 3; d++)
            for (int k = 0; k < 3; k++)
                for (int o = 0; o <= 9; o++) {
                    gip_image src, img;
                    gt_alloc(&src, sizes[s][0], sizes[s][1], chans[k], dts[d], 8);
                    for (int64_t y = 0; y < src.height; y++)
                        for (int64_t x = 0; x < src.width; x++)
                            for (int c = 0; c < src.channels; c++)
                                gt_set(&src, x, y, c,
                                       (double)(((y * src.width + x) * src.channels + c) % 251));
                    /* gip__exif_apply takes memory from gip_image_alloc (it may free it). */
                    if (!GT_OK(gip_image_alloc(NULL, &img, src.width, src.height, src.channels,
                                               src.dtype, GIP_MEM_HOST, 0))) {
                        gt_free(&src);
                        continue;
                    }
                    for (int64_t y = 0; y < src.height; y++)
                        memcpy((uint8_t *)img.data + y * img.stride,
                               (const uint8_t *)src.data + y * src.stride,
                               (size_t)gip_image_row_bytes(&src));
                    char what[96];
                    snprintf(what, sizeof what, "%lldx%lldx%d %s", (long long)src.width,
                             (long long)src.height, src.channels, gip_dtype_name(src.dtype));
                    if (GT_OK(gip__exif_apply(&img, o, what)))
                        check_upright(&src, &img, o, what);
                    gip_image_free(NULL, &img);
                    gt_free(&src);
                }
}

/* ---- loading --------------------------------------------------------------------------------- */

/* enc with an APP1 segment holding "Exif\0\0" + block inserted right after SOI. */
static uint8_t *with_app1(const uint8_t *enc, size_t n, const uint8_t *payload, size_t pn,
                          size_t *out_n)
{
    uint8_t *d = malloc(n + pn + 4);
    if (!d)
        return NULL;
    memcpy(d, enc, 2);
    d[2] = 0xFF;
    d[3] = 0xE1;
    d[4] = (uint8_t)((pn + 2) >> 8);
    d[5] = (uint8_t)(pn + 2);
    memcpy(d + 6, payload, pn);
    memcpy(d + 6 + pn, enc + 2, n - 2);
    *out_n = n + pn + 4;
    return d;
}

static void test_load(void)
{
    gip_image src;
    gt_alloc(&src, 13, 7, 3, GIP_U8, 0);
    gt_fill_random(&src, 9, 0, 255);
    gip_save_params sp = {0};
    sp.format = GIP_FORMAT_JPEG;
    sp.quality = 90;
    void *enc = NULL;
    size_t en = 0;
    if (!GT_OK(gip_image_encode(&src, &sp, &enc, &en))) {
        gt_free(&src);
        return;
    }
    for (int gray = 0; gray <= 1; gray++)
        for (int le = 0; le <= 1; le++)
            for (int o = -1; o <= 9; o++) {
                uint8_t payload[300];
                memcpy(payload, "Exif\0\0", 6);
                size_t pn = 6 + make_block(payload + 6, o, le, NULL);
                size_t n = 0;
                uint8_t *file = with_app1(enc, en, payload, pn, &n);
                if (!GT_CHECK(file != NULL, "out of memory"))
                    continue;
                gip_image_info info;
                if (GT_OK(gip_image_probe_memory(file, n, &info)))
                    GT_CHECK(info.orientation == (o >= 1 && o <= 8 ? o : 1) && info.width == 13 &&
                                 info.height == 7,
                             "probe of orientation %d: %d, %lldx%lld", o, info.orientation,
                             (long long)info.width, (long long)info.height);
                gip_load_params lp = {0};
                lp.mode = gray ? GIP_LOAD_GRAY : GIP_LOAD_COLOR;
                lp.ignore_orientation = 1;
                gip_image stored, upright;
                if (GT_OK(gip_image_decode(file, n, &lp, &stored))) {
                    lp.ignore_orientation = 0;
                    if (GT_OK(gip_image_decode(file, n, &lp, &upright))) {
                        char what[64];
                        snprintf(what, sizeof what, "JPEG %s %s", gray ? "gray" : "colour",
                                 le ? "II" : "MM");
                        check_upright(&stored, &upright, o, what);
                        gip_image_free(NULL, &upright);
                    }
                    gip_image_free(NULL, &stored);
                }
                free(file);
            }
    /* A corrupt EXIF block never makes a good JPEG fail to load. */
    uint64_t rs = 3;
    for (int it = 0; it < 300; it++) {
        uint8_t payload[300];
        memcpy(payload, "Exif\0\0", 6);
        size_t pn = 6 + make_block(payload + 6, 6, it & 1, NULL);
        for (int f = 0; f < 3; f++)
            payload[6 + gt_rand_u64(&rs) % (pn - 6)] = (uint8_t)gt_rand_u64(&rs);
        size_t n = 0;
        uint8_t *file = with_app1(enc, en, payload, 6 + gt_rand_u64(&rs) % (pn - 5), &n);
        gip_image img;
        if (file && GT_OK(gip_image_decode(file, n, NULL, &img))) {
            GT_CHECK((img.width == 13 && img.height == 7) || (img.width == 7 && img.height == 13),
                     "damaged EXIF %d: %lldx%lld", it, (long long)img.width, (long long)img.height);
            gip_image_free(NULL, &img);
        }
        free(file);
    }
    gip_free(enc);
    gt_free(&src);
}

static void body(gip_context *ctx)
{
    (void)ctx; /* host-only code: the same checks for either backend */
    page = (size_t)sysconf(_SC_PAGESIZE);
    guard = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!GT_CHECK(guard != MAP_FAILED && mprotect(guard + page, page, PROT_NONE) == 0,
                  "cannot map a guard page"))
        return;
    test_parser();
    test_apply();
    test_load();
    munmap(guard, 2 * page);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "exif", body);
}
