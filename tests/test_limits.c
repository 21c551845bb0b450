/* SPDX-License-Identifier: MIT */
/* Decoding limits against decompression bombs: tiny files whose headers claim huge images are
 * refused with GIP_ERR_TOO_LARGE and a message naming the limit under the default limits (before
 * any pixel memory: the files hold no pixels to read), and gip_load_params.max_pixels/max_dim move
 * the boundary exactly. The memory limit (gip_load_params.max_memory, GIP_MAX_MEMORY) refuses a
 * 20000x20000 PNG of a few hundred bytes from its header, before the decoder runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "testing.h"

typedef struct blob {
    uint8_t d[4096];
    size_t n;
} blob;

static void put(blob *b, const void *p, size_t n)
{
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void put_be32(blob *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, x, 4);
}

static void png_chunk(blob *b, const char *type, const uint8_t *data, uint32_t n)
{
    put_be32(b, n);
    size_t start = b->n;
    put(b, type, 4);
    if (n)
        put(b, data, n);
    put_be32(b, (uint32_t)crc32(0, b->d + start, (uInt)(n + 4)));
}

/* A PNG whose IHDR says w x h RGB 8-bit, with one small IDAT (a few rows of zeros) and IEND. */
static void make_png(blob *b, uint32_t w, uint32_t h)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    b->n = 0;
    put(b, sig, 8);
    uint8_t ihdr[13] = {0};
    for (int i = 0; i < 4; i++) {
        ihdr[i] = (uint8_t)(w >> (24 - 8 * i));
        ihdr[4 + i] = (uint8_t)(h >> (24 - 8 * i));
    }
    ihdr[8] = 8; /* depth */
    ihdr[9] = 2; /* RGB */
    png_chunk(b, "IHDR", ihdr, 13);
    uint8_t zeros[64] = {0}, z[128];
    uLongf zn = sizeof z;
    compress(z, &zn, zeros, sizeof zeros);
    png_chunk(b, "IDAT", z, (uint32_t)zn);
    png_chunk(b, "IEND", NULL, 0);
}

/* A baseline JPEG header (SOI, DQT, SOF0 w x h gray, DHT, SOS) followed by a few bytes of scan. */
static void make_jpeg(blob *b, uint16_t w, uint16_t h)
{
    b->n = 0;
    static const uint8_t soi[2] = {0xff, 0xd8};
    put(b, soi, 2);
    uint8_t dqt[69] = {0xff, 0xdb, 0x00, 0x43, 0x00};
    for (int i = 0; i < 64; i++)
        dqt[5 + i] = 1;
    put(b, dqt, sizeof dqt);
    uint8_t sof[13] = {
        0xff,       0xc0, 0x00, 0x0b, 8, (uint8_t)(h >> 8), (uint8_t)h, (uint8_t)(w >> 8),
        (uint8_t)w, 1,    1,    0x11, 0};
    put(b, sof, sizeof sof);
    /* Two Huffman tables (DC 0 and AC 0), each one code of length 1 for symbol 0. */
    static const uint8_t dht_head[4] = {0xff, 0xc4, 0x00, 2 + 2 * 18};
    put(b, dht_head, 4);
    for (int t = 0; t < 2; t++) {
        uint8_t table[18] = {(uint8_t)(t << 4), 1};
        put(b, table, sizeof table);
    }
    static const uint8_t sos[] = {0xff, 0xda, 0x00, 0x08, 1, 1, 0x00, 0, 63, 0};
    put(b, sos, sizeof sos);
    static const uint8_t scan[] = {0x00, 0x00, 0xff, 0xd9};
    put(b, scan, sizeof scan);
}

static void make_pnm(blob *b, const char *header)
{
    b->n = 0;
    put(b, header, strlen(header));
    static const uint8_t px[16] = {0};
    put(b, px, sizeof px);
}

/* Default limits: TOO_LARGE, a message naming `limit`, and `out` untouched. */
static void check_refused(const blob *b, const gip_load_params *lp, const char *what,
                          const char *limit)
{
    gip_image out;
    memset(&out, 0x5a, sizeof out);
    gip_image before = out;
    GT_STATUS(gip_image_decode(b->d, b->n, lp, &out), GIP_ERR_TOO_LARGE);
    GT_CHECK(strstr(gip_last_error(), limit) != NULL, "%s: the message does not name %s: %s", what,
             limit, gip_last_error());
    GT_CHECK(memcmp(&out, &before, sizeof out) == 0, "%s: out changed on failure", what);
}

/* The byte limit: a 20000x20000 RGB PNG (1.2 GB decoded) of about 100 bytes. Refused from the
 * header with TOO_LARGE, a message naming the limit and where it came from, `out` untouched; had
 * the decoder run, it would have allocated the image and then failed on the missing rows
 * (GIP_ERR_CORRUPT). */
static void memory_limit(void)
{
    blob b;
    make_png(&b, 20000, 20000);
    gip_image out, before;
    memset(&out, 0x5a, sizeof out);
    before = out;
    gip_load_params lp = {0};
    lp.max_memory = (int64_t)64 << 20;
    GT_STATUS(gip_image_decode(b.d, b.n, &lp, &out), GIP_ERR_TOO_LARGE);
    const char *msg = gip_last_error();
    GT_CHECK(strstr(msg, "20000x20000") && strstr(msg, "67108864") &&
                 strstr(msg, "gip_load_params.max_memory"),
             "max_memory: the message names the size and the limit: %s", msg);
    GT_CHECK(memcmp(&out, &before, sizeof out) == 0, "max_memory: out changed on failure");

    /* From a file, through gip_image_load. */
    const char *path = "limits_bomb.png";
    FILE *f = fopen(path, "wb");
    if (GT_CHECK(f != NULL, "cannot write %s", path)) {
        fwrite(b.d, 1, b.n, f);
        fclose(f);
        GT_STATUS(gip_image_load(path, &lp, &out), GIP_ERR_TOO_LARGE);
        GT_CHECK(strstr(gip_last_error(), "limits_bomb.png") != NULL,
                 "load: the message names the file: %s", gip_last_error());
        remove(path);
    }

    /* The default limit from the environment; params NULL and zero alike. */
    setenv("GIP_MAX_MEMORY", "64M", 1);
    GT_CHECK(gip_default_max_memory() == (int64_t)64 << 20, "GIP_MAX_MEMORY=64M gives %lld",
             (long long)gip_default_max_memory());
    GT_STATUS(gip_image_decode(b.d, b.n, NULL, &out), GIP_ERR_TOO_LARGE);
    GT_CHECK(strstr(gip_last_error(), "GIP_MAX_MEMORY") != NULL,
             "env: the message names GIP_MAX_MEMORY: %s", gip_last_error());
    lp.max_memory = 0;
    GT_STATUS(gip_image_decode(b.d, b.n, &lp, &out), GIP_ERR_TOO_LARGE);
    /* An explicit limit wins over the environment: a 2000x2000 header (12 MB) passes 64 MB, and
     * the decoder then finds the rows missing. */
    blob small;
    make_png(&small, 2000, 2000);
    setenv("GIP_MAX_MEMORY", "1M", 1);
    GT_STATUS(gip_image_decode(small.d, small.n, NULL, &out), GIP_ERR_TOO_LARGE);
    lp.max_memory = (int64_t)64 << 20;
    gip_status st = gip_image_decode(small.d, small.n, &lp, &out);
    GT_CHECK(st == GIP_ERR_CORRUPT,
             "2000x2000 with max_memory 64M: %s (%s), expected "
             "GIP_ERR_CORRUPT",
             gip_status_name(st), gip_last_error());
    if (st == GIP_OK)
        gip_image_free(NULL, &out);
    setenv("GIP_MAX_MEMORY", "a lot", 1);
    GT_CHECK(gip_default_max_memory() == -1, "GIP_MAX_MEMORY='a lot' gives %lld",
             (long long)gip_default_max_memory());
    GT_STATUS(gip_image_decode(b.d, b.n, NULL, &out), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "GIP_MAX_MEMORY='a lot'") != NULL,
             "bad env: the message names it: %s", gip_last_error());
    unsetenv("GIP_MAX_MEMORY");
    GT_CHECK(gip_default_max_memory() > 0, "the default limit is %lld",
             (long long)gip_default_max_memory());
    lp.max_memory = -1;
    GT_STATUS(gip_image_decode(b.d, b.n, &lp, &out), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(memcmp(&out, &before, sizeof out) == 0, "out changed on failure");

    /* A real 16x16 RGB image: 1024 bytes decoded (rows of 48 bytes padded to 64); a gray load
     * adds its converted copy (16 rows of 64 bytes). */
    gip_image img = {0};
    gt_alloc(&img, 16, 16, 3, GIP_U8, 0);
    gt_fill_random(&img, 5, 0, 0);
    gip_save_params sp = {0};
    sp.format = GIP_FORMAT_PNG;
    void *enc = NULL;
    size_t n = 0;
    if (GT_OK(gip_image_encode(&img, &sp, &enc, &n))) {
        gip_load_params q = {0};
        q.max_memory = 1024;
        gip_image ok = {0};
        if (GT_OK(gip_image_decode(enc, n, &q, &ok)))
            gip_image_free(NULL, &ok);
        q.max_memory = 1023;
        GT_STATUS(gip_image_decode(enc, n, &q, &ok), GIP_ERR_TOO_LARGE);
        q.mode = GIP_LOAD_GRAY;
        q.max_memory = 2048;
        if (GT_OK(gip_image_decode(enc, n, &q, &ok)))
            gip_image_free(NULL, &ok);
        q.max_memory = 2047;
        GT_STATUS(gip_image_decode(enc, n, &q, &ok), GIP_ERR_TOO_LARGE);
        /* With an eXIf chunk saying Orientation 6 (a quarter turn) before the pixels, loading
         * transposes the image into a second one: 2048 bytes, unless the orientation is
         * ignored. */
        blob t;
        if (GT_CHECK(n + 64 <= sizeof t.d && n > 33, "encoded 16x16 PNG is %zu bytes", n)) {
            static const uint8_t exif[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3,
                                           0,   0,   0, 1,  0, 6, 0, 0, 0, 0, 0,    0,    0, 0};
            t.n = 0;
            put(&t, enc, 33); /* signature and IHDR */
            png_chunk(&t, "eXIf", exif, sizeof exif);
            put(&t, (const uint8_t *)enc + 33, n - 33);
            gip_load_params r = {0};
            r.max_memory = 2048;
            if (GT_OK(gip_image_decode(t.d, t.n, &r, &ok)))
                gip_image_free(NULL, &ok);
            r.max_memory = 2047;
            GT_STATUS(gip_image_decode(t.d, t.n, &r, &ok), GIP_ERR_TOO_LARGE);
            r.max_memory = 1024;
            r.ignore_orientation = 1;
            if (GT_OK(gip_image_decode(t.d, t.n, &r, &ok)))
                gip_image_free(NULL, &ok);
        }
        gip_free(enc);
    }
    gt_free(&img);
}

static void body(gip_context *ctx)
{
    (void)ctx;
    blob b;

    /* PNG: 100000 x 100000 (10 Gpixel, 30 GB of RGB) in about 100 bytes. */
    make_png(&b, 100000, 100000);
    gip_image_info info;
    GT_OK(gip_image_probe_memory(b.d, b.n, &info)); /* probing reads the header only */
    GT_CHECK(info.width == 100000 && info.height == 100000, "probe: %lldx%lld",
             (long long)info.width, (long long)info.height);
    check_refused(&b, NULL, "png 100000x100000", "max_pixels");
    /* PNG: 2^31 - 1 wide, 1 high: the side limit. */
    make_png(&b, 0x7fffffffu, 1);
    check_refused(&b, NULL, "png 2^31-1 x 1", "max_dim");
    /* Just above the default pixel count: 32769 x 32768 > 2^30. */
    make_png(&b, 32769, 32768);
    check_refused(&b, NULL, "png 32769x32768", "max_pixels");

    /* JPEG: 65500 x 65500 (4.3 Gpixel) in about 150 bytes. */
    make_jpeg(&b, 65500, 65500);
    GT_OK(gip_image_probe_memory(b.d, b.n, &info));
    GT_CHECK(info.width == 65500 && info.height == 65500, "jpeg probe: %lldx%lld",
             (long long)info.width, (long long)info.height);
    check_refused(&b, NULL, "jpeg 65500x65500", "max_pixels");

    /* PNM: one side above the default side limit; a size that overflows is corrupt or too large,
     * never a crash. */
    make_pnm(&b, "P5\n1048577 1\n255\n");
    check_refused(&b, NULL, "pgm 1048577x1", "max_dim");
    make_pnm(&b, "P6\n40000 40000\n255\n");
    check_refused(&b, NULL, "ppm 40000x40000", "max_pixels");
    make_pnm(&b, "P5\n99999999999999999999999 99999999999999999999\n255\n");
    gip_image out = {0};
    gip_status st = gip_image_decode(b.d, b.n, NULL, &out);
    GT_CHECK(st == GIP_ERR_CORRUPT || st == GIP_ERR_TOO_LARGE, "overflowing PNM size gave %s",
             gip_status_name(st));

    /* Configured limits move the boundary exactly: 16 x 16 passes with max_pixels = 256 and
     * max_dim = 16, and is refused one below either. The small JPEG and PNG are real files. */
    gip_image img = {0};
    gt_alloc(&img, 16, 16, 3, GIP_U8, 0);
    gt_fill_random(&img, 3, 0, 0);
    for (int f = 0; f < 3; f++) {
        static const gip_format formats[3] = {GIP_FORMAT_PNG, GIP_FORMAT_JPEG, GIP_FORMAT_PNM};
        gip_save_params sp = {0};
        sp.format = formats[f];
        void *enc = NULL;
        size_t n = 0;
        if (!GT_OK(gip_image_encode(&img, &sp, &enc, &n)))
            continue;
        blob e;
        if (!GT_CHECK(n <= sizeof e.d, "encoded 16x16 %s is %zu bytes", gip_format_name(formats[f]),
                      n)) {
            gip_free(enc);
            continue;
        }
        memcpy(e.d, enc, n);
        e.n = n;
        gip_free(enc);
        gip_load_params lp = {0};
        lp.max_pixels = 256;
        lp.max_dim = 16;
        gip_image ok = {0};
        if (GT_OK(gip_image_decode(e.d, e.n, &lp, &ok)))
            GT_CHECK(ok.width == 16 && ok.height == 16, "decoded %lldx%lld", (long long)ok.width,
                     (long long)ok.height);
        gip_image_free(NULL, &ok);
        lp.max_pixels = 255;
        check_refused(&e, &lp, "16x16 with max_pixels 255", "max_pixels");
        lp.max_pixels = 256;
        lp.max_dim = 15;
        check_refused(&e, &lp, "16x16 with max_dim 15", "max_dim");
    }
    gt_free(&img);
    memory_limit();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        printf("SKIP: limits: decoding runs on the host; limits_cpu covers it\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "limits", body);
}
