/* SPDX-License-Identifier: MIT */
/* Tests of image I/O (include/gip/io.h): round trips, the sample files in every load mode, load
 * conversions, limits, corrupt and truncated input, and atomic saving. Host-only: the same tests
 * run for either backend argument. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "io/io_internal.h"
#include "testing.h"

static char tmpdir[256];

/* ---- helpers -------------------------------------------------------------------------------- */

static void tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static uint8_t *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return d;
}

static void write_bytes(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* Number of "*.tmp" files left in the temporary folder. */
static int count_tmp_files(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static uint32_t crc32_bytes(const uint8_t *d, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= d[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A PNG made of the signature, an IHDR with the given fields, an empty IDAT and IEND, all with
 * valid CRCs (so that only the IHDR values are wrong, if anything). Returns its size. */
static size_t craft_png(uint8_t *out, uint32_t w, uint32_t h, uint8_t depth, uint8_t type)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t n = 0;
    memcpy(out, sig, 8);
    n = 8;
    uint8_t ihdr[17] = {'I', 'H', 'D', 'R'};
    put_be32(ihdr + 4, w);
    put_be32(ihdr + 8, h);
    ihdr[12] = depth;
    ihdr[13] = type;
    put_be32(out + n, 13);
    memcpy(out + n + 4, ihdr, 17);
    put_be32(out + n + 21, crc32_bytes(ihdr, 17));
    n += 25;
    static const char *tail[2] = {"IDAT", "IEND"};
    for (int i = 0; i < 2; i++) {
        put_be32(out + n, 0);
        memcpy(out + n + 4, tail[i], 4);
        put_be32(out + n + 8, crc32_bytes((const uint8_t *)tail[i], 4));
        n += 12;
    }
    return n;
}

/* Offset of the first SOFn marker's segment (the FF byte) in a JPEG, or 0. */
static size_t find_sof(const uint8_t *d, size_t n)
{
    for (size_t i = 2; i + 9 < n; i++)
        if (d[i] == 0xff && (d[i + 1] == 0xc0 || d[i + 1] == 0xc1 || d[i + 1] == 0xc2))
            return i;
    return 0;
}

/* cv2.cvtColor RGB2GRAY (15-bit fixed point), as tests/data/color confirms. */
static int gray_rule(uint32_t r, uint32_t g, uint32_t b)
{
    return (int)(((uint64_t)r * 9798 + (uint64_t)g * 19235 + (uint64_t)b * 3735 + 16384) >> 15);
}

/* What cv2.imread(IMREAD_GRAYSCALE) gives for a colour PNG without gAMA or sRGB chunks:
 * libpng's png_set_rgb_to_gray(png, 1, 0.299, 0.587), 15-bit weights 9797, 19234 and 3737, at
 * the file's depth: truncated for 8-bit files, rounded for 16-bit ones (whose result is cut to
 * 8 bits afterwards unless the depth is kept). */
static uint32_t png_gray_rule(uint32_t r, uint32_t g, uint32_t b, bool sixteen)
{
    return (uint32_t)(((uint64_t)r * 9797 + (uint64_t)g * 19234 + (uint64_t)b * 3737 +
                       (sixteen ? 16384 : 0)) >>
                      15);
}

static gip_status load_mode(const char *path, gip_load_mode mode, int bgr, gip_image *out)
{
    gip_load_params p = {0};
    p.mode = mode;
    p.bgr = bgr;
    return gip_image_load(path, &p, out);
}

static gip_status decode_mode(const void *d, size_t n, gip_load_mode mode, int bgr, int keep_depth,
                              gip_image *out)
{
    gip_load_params p = {0};
    p.mode = mode;
    p.bgr = bgr;
    p.keep_depth = keep_depth;
    return gip_image_decode(d, n, &p, out);
}

/* Mean absolute difference of two same-shaped host images. */
static double mean_abs_diff(const gip_image *a, const gip_image *b)
{
    double s = 0;
    for (int64_t y = 0; y < a->height; y++)
        for (int64_t x = 0; x < a->width; x++)
            for (int c = 0; c < a->channels; c++)
                s += fabs(gt_get(a, x, y, c) - gt_get(b, x, y, c));
    return s / ((double)a->width * (double)a->height * a->channels);
}

/* Copy of img with channels 0 and 2 exchanged. */
static void swapped_copy(const gip_image *img, gip_image *out)
{
    gt_alloc(out, img->width, img->height, img->channels, img->dtype, 0);
    for (int64_t y = 0; y < img->height; y++)
        for (int64_t x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                int sc = c == 0 ? 2 : c == 2 ? 0 : c;
                gt_set(out, x, y, c, gt_get(img, x, y, sc));
            }
}

static bool shape_is(const gip_image *img, int64_t w, int64_t h, int c, gip_dtype dt)
{
    return img->width == w && img->height == h && img->channels == c && img->dtype == dt &&
           img->memory == GIP_MEM_HOST && img->data != NULL;
}

/* ---- round trips ---------------------------------------------------------------------------- */

static const gt_size rt_sizes[] = {{1, 1}, {1, 17}, {17, 1}, {13, 42}, {64, 48}};

static void roundtrip_lossless(gip_format fmt, int c, gip_dtype dt, int64_t w, int64_t h,
                               uint64_t seed)
{
    gip_image src, back;
    gt_alloc(&src, w, h, c, dt, 6);
    gt_fill_random(&src, seed, 0, 0);
    gip_save_params sp = {0};
    sp.format = fmt;
    void *enc = NULL;
    size_t n = 0;
    char label[96];
    snprintf(label, sizeof label, "%s %lldx%lld c%d %s", gip_format_name(fmt), (long long)w,
             (long long)h, c, gip_dtype_name(dt));
    if (GT_OK(gip_image_encode(&src, &sp, &enc, &n))) {
        gip_image_info info;
        if (GT_OK(gip_image_probe_memory(enc, n, &info)))
            GT_CHECK(info.format == fmt && info.width == w && info.height == h &&
                         info.channels == c && info.bit_depth == (dt == GIP_U16 ? 16 : 8),
                     "%s: probe gives %s %lldx%lld c%d %d-bit", label, gip_format_name(info.format),
                     (long long)info.width, (long long)info.height, info.channels, info.bit_depth);
        if (GT_OK(gip_image_decode(enc, n, NULL, &back))) {
            if (GT_CHECK(shape_is(&back, w, h, c, dt), "%s: decoded shape", label))
                gt_compare(&back, &src, 0, 0, label);
            gip_image_free(NULL, &back);
        }
        /* Saved with bgr: loading with bgr gives the same pixels, loading as RGB swaps them. */
        if (c >= 3) {
            void *enc2 = NULL;
            size_t n2 = 0;
            sp.bgr = 1;
            if (GT_OK(gip_image_encode(&src, &sp, &enc2, &n2))) {
                if (GT_OK(decode_mode(enc2, n2, GIP_LOAD_UNCHANGED, 1, 0, &back))) {
                    gt_compare(&back, &src, 0, 0, label);
                    gip_image_free(NULL, &back);
                }
                if (GT_OK(gip_image_decode(enc2, n2, NULL, &back))) {
                    gip_image sw;
                    swapped_copy(&src, &sw);
                    gt_compare(&back, &sw, 0, 0, label);
                    gt_free(&sw);
                    gip_image_free(NULL, &back);
                }
                gip_free(enc2);
            }
        }
        gip_free(enc);
    }
    GT_CHECK(gt_padding_intact(&src), "%s: source padding written", label);
    gt_free(&src);
}

static void test_roundtrips(void)
{
    const gip_dtype dts[2] = {GIP_U8, GIP_U16};
    const int pngc[3] = {1, 3, 4}, pnmc[2] = {1, 3};
    uint64_t seed = 1;
    for (size_t s = 0; s < sizeof rt_sizes / sizeof rt_sizes[0]; s++)
        for (int d = 0; d < 2; d++) {
            for (int i = 0; i < 3; i++)
                roundtrip_lossless(GIP_FORMAT_PNG, pngc[i], dts[d], rt_sizes[s].w, rt_sizes[s].h,
                                   seed++);
            for (int i = 0; i < 2; i++)
                roundtrip_lossless(GIP_FORMAT_PNM, pnmc[i], dts[d], rt_sizes[s].w, rt_sizes[s].h,
                                   seed++);
        }
    roundtrip_lossless(GIP_FORMAT_PNG, 4, GIP_U16, 1001, 777, seed++);
    roundtrip_lossless(GIP_FORMAT_PNM, 3, GIP_U16, 1001, 777, seed++);

    /* Through files, with the format from the extension (case-insensitive). */
    const char *names[] = {"rt.png", "rt.PNG", "rt.ppm", "rt.pnm", "rt.jpg", "rt.JPEG"};
    const gip_format fmts[] = {GIP_FORMAT_PNG, GIP_FORMAT_PNG,  GIP_FORMAT_PNM,
                               GIP_FORMAT_PNM, GIP_FORMAT_JPEG, GIP_FORMAT_JPEG};
    gip_image src;
    gt_alloc(&src, 13, 42, 3, GIP_U8, 3);
    gt_fill_random(&src, 99, 0, 0);
    for (int i = 0; i < 6; i++) {
        char p[512];
        tmp_path(p, sizeof p, names[i]);
        gip_image back;
        gip_image_info info;
        if (!GT_OK(gip_image_save(p, &src, NULL)))
            continue;
        if (GT_OK(gip_image_probe(p, &info)))
            GT_CHECK(info.format == fmts[i], "%s: saved as %s", names[i],
                     gip_format_name(info.format));
        if (GT_OK(gip_image_load(p, NULL, &back))) {
            if (fmts[i] != GIP_FORMAT_JPEG)
                gt_compare(&back, &src, 0, 0, names[i]);
            else
                GT_CHECK(shape_is(&back, 13, 42, 3, GIP_U8), "%s shape", names[i]);
            gip_image_free(NULL, &back);
        }
    }
    /* An explicit format wins over an unknown extension. */
    char p[512];
    tmp_path(p, sizeof p, "explicit.dat");
    gip_save_params sp = {0};
    sp.format = GIP_FORMAT_PNG;
    gip_image_info info;
    if (GT_OK(gip_image_save(p, &src, &sp)) && GT_OK(gip_image_probe(p, &info)))
        GT_CHECK(info.format == GIP_FORMAT_PNG, "explicit format: got %s",
                 gip_format_name(info.format));
    /* New files get 0666 & ~umask; a replaced file keeps its mode. */
    tmp_path(p, sizeof p, "mode.png");
    struct stat sb;
    if (GT_OK(gip_image_save(p, &src, NULL)) && GT_CHECK(stat(p, &sb) == 0, "stat"))
        GT_CHECK((sb.st_mode & 0777) == 0644, "new file mode %o, expected 644",
                 (unsigned)(sb.st_mode & 0777));
    chmod(p, 0600);
    if (GT_OK(gip_image_save(p, &src, NULL)) && GT_CHECK(stat(p, &sb) == 0, "stat"))
        GT_CHECK((sb.st_mode & 0777) == 0600, "replaced file mode %o, expected 600",
                 (unsigned)(sb.st_mode & 0777));
    gt_free(&src);
    GT_CHECK(count_tmp_files() == 0, "temporary files left after successful saves");
}

/* Sampling factors byte of component 0 in the first SOF of a JPEG. */
static int sof_sampling(const uint8_t *d, size_t n)
{
    size_t s = find_sof(d, n);
    return s ? d[s + 11] : -1;
}

static void test_jpeg(void)
{
    gip_image src, back, back_p;
    if (!GT_OK(gip_image_load(GIP_DATA_DIR "/astronaut.png", NULL, &src)))
        return;
    gip_save_params sp = {0};
    sp.format = GIP_FORMAT_JPEG;
    sp.quality = 100;
    sp.subsampling = GIP_SUBSAMPLING_444;
    void *e1 = NULL, *e2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (GT_OK(gip_image_encode(&src, &sp, &e1, &n1))) {
        GT_CHECK(sof_sampling(e1, n1) == 0x11, "4:4:4 sampling byte 0x%02x", sof_sampling(e1, n1));
        if (GT_OK(gip_image_decode(e1, n1, NULL, &back))) {
            /* Tolerance: quality 100 with 4:4:4 loses only rounding in the DCT and colour
             * transforms; a mean absolute error of 1.5 per sample is far below visible. */
            double mae = mean_abs_diff(&back, &src);
            GT_CHECK(shape_is(&back, 512, 512, 3, GIP_U8) && mae < 1.5,
                     "JPEG q100 4:4:4 mean abs error %.3f (limit 1.5)", mae);
            /* Progressive with the same settings codes the same coefficients: same pixels. */
            sp.progressive = 1;
            if (GT_OK(gip_image_encode(&src, &sp, &e2, &n2))) {
                gip_image_info info;
                if (GT_OK(gip_image_probe_memory(e2, n2, &info)))
                    GT_CHECK(info.progressive == 1 && info.format == GIP_FORMAT_JPEG,
                             "progressive flag %d", info.progressive);
                if (GT_OK(gip_image_decode(e2, n2, NULL, &back_p))) {
                    gt_compare(&back_p, &back, 0, 0, "progressive vs baseline decode");
                    gip_image_free(NULL, &back_p);
                }
                gip_free(e2);
            }
            gip_image_free(NULL, &back);
        }
        gip_image_info info;
        if (GT_OK(gip_image_probe_memory(e1, n1, &info)))
            GT_CHECK(info.progressive == 0 && info.channels == 3 && info.bit_depth == 8,
                     "baseline probe");
        gip_free(e1);
    }
    /* Subsampling and quality reach the encoder. */
    const gip_subsampling subs[3] = {GIP_SUBSAMPLING_DEFAULT, GIP_SUBSAMPLING_422,
                                     GIP_SUBSAMPLING_420};
    const int bytes[3] = {0x22, 0x21, 0x22};
    size_t size_q95 = 0;
    for (int i = 0; i < 3; i++) {
        gip_save_params q = {0};
        q.format = GIP_FORMAT_JPEG;
        q.subsampling = subs[i];
        if (GT_OK(gip_image_encode(&src, &q, &e1, &n1))) {
            GT_CHECK(sof_sampling(e1, n1) == bytes[i], "subsampling %d: byte 0x%02x", (int)subs[i],
                     sof_sampling(e1, n1));
            if (i == 0)
                size_q95 = n1;
            gip_free(e1);
        }
    }
    gip_save_params q10 = {0};
    q10.format = GIP_FORMAT_JPEG;
    q10.quality = 10;
    if (GT_OK(gip_image_encode(&src, &q10, &e1, &n1))) {
        GT_CHECK(n1 * 3 < size_q95, "quality 10 gives %zu bytes, quality 95 %zu", n1, size_q95);
        gip_free(e1);
    }
    /* BGR on write: the same file as RGB data saved without the flag. */
    gip_image sw;
    swapped_copy(&src, &sw);
    gip_save_params b = {0};
    b.format = GIP_FORMAT_JPEG;
    b.bgr = 1;
    if (GT_OK(gip_image_encode(&sw, &b, &e1, &n1))) {
        b.bgr = 0;
        if (GT_OK(gip_image_encode(&src, &b, &e2, &n2))) {
            GT_CHECK(n1 == n2 && memcmp(e1, e2, n1) == 0, "JPEG bgr write differs from rgb");
            gip_free(e2);
        }
        gip_free(e1);
    }
    gt_free(&sw);
    gip_image_free(NULL, &src);

    /* Gray JPEG. */
    gip_image g;
    if (GT_OK(gip_image_load(GIP_DATA_DIR "/brick.png", NULL, &g))) {
        if (GT_OK(gip_image_encode(&g, &sp, &e1, &n1))) {
            gip_image_info info;
            if (GT_OK(gip_image_probe_memory(e1, n1, &info)))
                GT_CHECK(info.channels == 1, "gray JPEG probes %d channels", info.channels);
            if (GT_OK(gip_image_decode(e1, n1, NULL, &back))) {
                double mae = mean_abs_diff(&back, &g);
                GT_CHECK(shape_is(&back, 512, 512, 1, GIP_U8) && mae < 1.5,
                         "gray JPEG mean abs error %.3f", mae);
                gip_image_free(NULL, &back);
            }
            gip_free(e1);
        }
        gip_image_free(NULL, &g);
    }
}

/* A flat CMYK JPEG written with libjpeg: loads as RGB with OpenCV's CMYK rule. */
static void test_jpeg_cmyk(void)
{
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr jerr;
    ci.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&ci);
    unsigned char *buf = NULL;
    unsigned long n = 0;
    jpeg_mem_dest(&ci, &buf, &n);
    ci.image_width = 16;
    ci.image_height = 16;
    ci.input_components = 4;
    ci.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&ci);
    jpeg_set_quality(&ci, 100, TRUE);
    jpeg_start_compress(&ci, TRUE);
    uint8_t row[16 * 4];
    for (int x = 0; x < 16; x++) {
        row[4 * x] = 200;
        row[4 * x + 1] = 100;
        row[4 * x + 2] = 50;
        row[4 * x + 3] = 180;
    }
    while (ci.next_scanline < ci.image_height) {
        JSAMPROW rp = row;
        jpeg_write_scanlines(&ci, &rp, 1);
    }
    jpeg_finish_compress(&ci);
    jpeg_destroy_compress(&ci);
    /* R = k - ((255 - c) * k >> 8) etc.: 142, 72, 36. Flat blocks at quality 100 decode to
     * within 2 of the input. */
    const int rgb[3] = {142, 72, 36};
    gip_image img;
    gip_image_info info;
    if (GT_OK(gip_image_probe_memory(buf, n, &info)))
        GT_CHECK(info.channels == 3, "CMYK probes %d channels", info.channels);
    for (int bgr = 0; bgr < 2; bgr++)
        if (GT_OK(decode_mode(buf, n, GIP_LOAD_UNCHANGED, bgr, 0, &img))) {
            if (GT_CHECK(shape_is(&img, 16, 16, 3, GIP_U8), "CMYK shape"))
                for (int c = 0; c < 3; c++) {
                    double v = gt_get(&img, 7, 7, c), want = rgb[bgr ? 2 - c : c];
                    GT_CHECK(fabs(v - want) <= 2, "CMYK channel %d: %g, expected %g", c, v, want);
                }
            gip_image_free(NULL, &img);
        }
    if (GT_OK(decode_mode(buf, n, GIP_LOAD_GRAY, 0, 0, &img))) {
        double want = gray_rule(142, 72, 36);
        GT_CHECK(img.channels == 1 && fabs(gt_get(&img, 3, 3, 0) - want) <= 2,
                 "CMYK gray %g, expected %g", gt_get(&img, 3, 3, 0), want);
        gip_image_free(NULL, &img);
    }
    free(buf);
}

/* ---- the sample files ----------------------------------------------------------------------- */

/* From data/LICENSES.md. */
static const struct sample {
    const char *name;
    int64_t w, h;
    int channels;
    gip_format format;
} samples[] = {
    {"astronaut.png", 512, 512, 3, GIP_FORMAT_PNG},
    {"chelsea.png", 451, 300, 3, GIP_FORMAT_PNG},
    {"coffee.png", 600, 400, 3, GIP_FORMAT_PNG},
    {"rocket.jpg", 640, 427, 3, GIP_FORMAT_JPEG},
    {"hubble_deep_field.jpg", 1000, 872, 3, GIP_FORMAT_JPEG},
    {"gravel.png", 512, 512, 1, GIP_FORMAT_PNG},
    {"brick.png", 512, 512, 1, GIP_FORMAT_PNG},
    {"grass.png", 512, 512, 1, GIP_FORMAT_PNG},
};

static void test_samples(void)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        const struct sample *s = &samples[i];
        char p[512];
        snprintf(p, sizeof p, "%s/%s", GIP_DATA_DIR, s->name);
        gip_image_info info;
        if (GT_OK(gip_image_probe(p, &info)))
            GT_CHECK(info.format == s->format && info.width == s->w && info.height == s->h &&
                         info.channels == s->channels && info.bit_depth == 8,
                     "%s: probe %s %lldx%lld c%d", s->name, gip_format_name(info.format),
                     (long long)info.width, (long long)info.height, info.channels);
        gip_image un, gray, rgb, bgr, mem;
        if (!GT_OK(load_mode(p, GIP_LOAD_UNCHANGED, 0, &un)))
            continue;
        GT_CHECK(shape_is(&un, s->w, s->h, s->channels, GIP_U8), "%s unchanged shape", s->name);
        if (GT_OK(load_mode(p, GIP_LOAD_GRAY, 0, &gray))) {
            GT_CHECK(shape_is(&gray, s->w, s->h, 1, GIP_U8), "%s gray shape", s->name);
            gip_image_free(NULL, &gray);
        }
        if (GT_OK(load_mode(p, GIP_LOAD_COLOR, 0, &rgb))) {
            GT_CHECK(shape_is(&rgb, s->w, s->h, 3, GIP_U8), "%s color shape", s->name);
            if (GT_OK(load_mode(p, GIP_LOAD_COLOR, 1, &bgr))) {
                gip_image sw;
                swapped_copy(&bgr, &sw);
                gt_compare(&sw, &rgb, 0, 0, s->name);
                gt_free(&sw);
                gip_image_free(NULL, &bgr);
            }
            /* GRAY mode as cv2.imread: PNG through libpng's RGB-to-gray (the samples have no
             * gAMA or sRGB chunk, and their iCCP profiles do not count); JPEG takes libjpeg's
             * luma, which differs from the rule on decoded RGB by rounding only. */
            if (GT_OK(load_mode(p, GIP_LOAD_GRAY, 0, &gray))) {
                gip_image want;
                gt_alloc(&want, s->w, s->h, 1, GIP_U8, 0);
                for (int64_t y = 0; y < s->h; y++)
                    for (int64_t x = 0; x < s->w; x++) {
                        uint32_t r = (uint32_t)gt_get(&rgb, x, y, 0),
                                 g = (uint32_t)gt_get(&rgb, x, y, 1),
                                 b = (uint32_t)gt_get(&rgb, x, y, 2);
                        gt_set(&want, x, y, 0,
                               s->format == GIP_FORMAT_PNG ? png_gray_rule(r, g, b, false)
                                                           : (uint32_t)gray_rule(r, g, b));
                    }
                if (s->format == GIP_FORMAT_PNG)
                    gt_compare(&gray, &want, 0, 0, s->name);
                else
                    GT_CHECK(mean_abs_diff(&gray, &want) < 1.0, "%s: JPEG luma vs rule %.3f",
                             s->name, mean_abs_diff(&gray, &want));
                gip_image_free(NULL, &want);
                if (s->channels == 1) {
                    gt_compare(&gray, &un, 0, 0, s->name);
                    gip_image ch;
                    gt_alloc(&ch, s->w, s->h, 1, GIP_U8, 0);
                    for (int c = 0; c < 3; c++) {
                        for (int64_t y = 0; y < s->h; y++)
                            for (int64_t x = 0; x < s->w; x++)
                                gt_set(&ch, x, y, 0, gt_get(&rgb, x, y, c));
                        gt_compare(&ch, &un, 0, 0, "gray replicated to colour");
                    }
                    gt_free(&ch);
                }
                gip_image_free(NULL, &gray);
            }
            gip_image_free(NULL, &rgb);
        }
        /* From memory: the same pixels as from the file. */
        size_t n = 0;
        uint8_t *d = read_bytes(p, &n);
        if (GT_CHECK(d != NULL, "read %s", p)) {
            if (GT_OK(gip_image_decode(d, n, NULL, &mem))) {
                gt_compare(&mem, &un, 0, 0, s->name);
                gip_image_free(NULL, &mem);
            }
            gip_image_info mi;
            if (GT_OK(gip_image_probe_memory(d, n, &mi)))
                GT_CHECK(memcmp(&mi, &info, sizeof mi) == 0, "%s: probe_memory differs", s->name);
            free(d);
        }
        gip_image_free(NULL, &un);
    }
}

/* ---- conversions on load: 16-bit, gray+alpha, palette, low bit depths, interlace ------------ */

/* Encodes a PNG with libpng directly (types gip never writes). rows: w * channels samples per
 * row, 8 or 16 bits (16-bit as host uint16_t); for depth < 8 one sample per byte. */
typedef struct mem_out {
    uint8_t *d;
    size_t n;
} mem_out;

static void mem_write(png_structp png, png_bytep src, size_t n)
{
    mem_out *m = png_get_io_ptr(png);
    m->d = realloc(m->d, m->n + n);
    memcpy(m->d + m->n, src, n);
    m->n += n;
}

static void mem_flush(png_structp png)
{
    (void)png;
}

static mem_out libpng_write(int w, int h, int type, int depth, int interlace, const void *pixels,
                            int channels, const png_color *pal, int npal, const uint8_t *trns,
                            int ntrns)
{
    mem_out m = {NULL, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "libpng_write failed\n");
        exit(1);
    }
    png_set_write_fn(png, &m, mem_write, mem_flush);
    png_set_IHDR(png, info, w, h, depth, type, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (pal)
        png_set_PLTE(png, info, pal, npal);
    if (trns)
        png_set_tRNS(png, info, trns, ntrns, NULL);
    png_write_info(png, info);
    if (depth < 8)
        png_set_packing(png);
    if (depth == 16)
        png_set_swap(png);
    int es = depth == 16 ? 2 : 1;
    int passes = png_set_interlace_handling(png);
    for (int p = 0; p < passes; p++)
        for (int y = 0; y < h; y++)
            png_write_row(png, (png_const_bytep)pixels + (size_t)y * w * channels * es);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return m;
}

static void test_conversions(void)
{
    uint64_t rs = 7;
    /* 16-bit RGBA: depth kept, reduced (v >> 8); gray by libpng's rule at 16 bits, then reduced
     * unless the depth is kept. */
    gip_image src, img;
    gt_alloc(&src, 37, 11, 4, GIP_U16, 0);
    gt_fill_random(&src, 5, 0, 0);
    gip_save_params sp = {0};
    sp.format = GIP_FORMAT_PNG;
    void *e = NULL;
    size_t n = 0;
    if (GT_OK(gip_image_encode(&src, &sp, &e, &n))) {
        struct {
            gip_load_mode mode;
            int keep, bgr, channels;
            gip_dtype dt;
        } cases[] = {{GIP_LOAD_COLOR, 0, 0, 3, GIP_U8},
                     {GIP_LOAD_COLOR, 1, 1, 3, GIP_U16},
                     {GIP_LOAD_GRAY, 0, 0, 1, GIP_U8},
                     {GIP_LOAD_GRAY, 1, 0, 1, GIP_U16},
                     {GIP_LOAD_UNCHANGED, 0, 1, 4, GIP_U16}};
        for (int k = 0; k < 5; k++) {
            if (!GT_OK(decode_mode(e, n, cases[k].mode, cases[k].bgr, cases[k].keep, &img)))
                continue;
            gip_image want;
            gt_alloc(&want, 37, 11, cases[k].channels, cases[k].dt, 0);
            int shift = cases[k].dt == GIP_U8 ? 8 : 0;
            for (int64_t y = 0; y < 11; y++)
                for (int64_t x = 0; x < 37; x++) {
                    uint32_t v[4];
                    for (int c = 0; c < 4; c++)
                        v[c] = (uint32_t)gt_get(&src, x, y, c) >> shift;
                    if (cases[k].channels == 1) {
                        uint32_t r = (uint32_t)gt_get(&src, x, y, 0),
                                 g = (uint32_t)gt_get(&src, x, y, 1),
                                 b = (uint32_t)gt_get(&src, x, y, 2);
                        gt_set(&want, x, y, 0, png_gray_rule(r, g, b, true) >> shift);
                    } else {
                        for (int c = 0; c < cases[k].channels; c++) {
                            int sc = cases[k].bgr && c != 1 && c != 3 ? 2 - c : c;
                            gt_set(&want, x, y, c, v[sc]);
                        }
                    }
                }
            char label[64];
            snprintf(label, sizeof label, "16-bit case %d", k);
            if (GT_CHECK(shape_is(&img, 37, 11, cases[k].channels, cases[k].dt), "%s shape", label))
                gt_compare(&img, &want, 0, 0, label);
            gt_free(&want);
            gip_image_free(NULL, &img);
        }
        gip_free(e);
    }
    gt_free(&src);

    /* Gray+alpha, 8 and 16 bits: 4 channels (g, g, g, a) in UNCHANGED mode. */
    for (int depth = 8; depth <= 16; depth += 8) {
        uint16_t ga16[5 * 3 * 2];
        uint8_t ga8[5 * 3 * 2];
        for (int i = 0; i < 30; i++) {
            ga16[i] = (uint16_t)gt_rand_u64(&rs);
            ga8[i] = (uint8_t)ga16[i];
        }
        mem_out m = libpng_write(5, 3, PNG_COLOR_TYPE_GRAY_ALPHA, depth, PNG_INTERLACE_NONE,
                                 depth == 16 ? (void *)ga16 : (void *)ga8, 2, NULL, 0, NULL, 0);
        gip_image_info info;
        if (GT_OK(gip_image_probe_memory(m.d, m.n, &info)))
            GT_CHECK(info.channels == 2 && info.bit_depth == depth, "GA probe c%d %d-bit",
                     info.channels, info.bit_depth);
        for (int mode = 0; mode < 3; mode++) {
            if (!GT_OK(decode_mode(m.d, m.n, (gip_load_mode)mode, 0, 0, &img)))
                continue;
            int wc = mode == 0 ? 4 : mode == 1 ? 1 : 3;
            gip_dtype wdt = (mode == 0 && depth == 16) ? GIP_U16 : GIP_U8;
            int shift = (depth == 16 && wdt == GIP_U8) ? 8 : 0;
            if (GT_CHECK(shape_is(&img, 5, 3, wc, wdt), "GA%d mode %d shape", depth, mode)) {
                bool ok = true;
                for (int i = 0; i < 15 && ok; i++) {
                    uint32_t g = (depth == 16 ? ga16[2 * i] : ga8[2 * i]) >> shift;
                    uint32_t a = (depth == 16 ? ga16[2 * i + 1] : ga8[2 * i + 1]) >> shift;
                    for (int c = 0; c < wc; c++)
                        ok &= gt_get(&img, i % 5, i / 5, c) == (c == 3 ? a : g);
                }
                GT_CHECK(ok, "GA%d mode %d values", depth, mode);
            }
            gip_image_free(NULL, &img);
        }
        free(m.d);
    }

    /* Palette with transparency: RGBA from the palette and tRNS. */
    png_color pal[3] = {{10, 20, 30}, {40, 50, 60}, {70, 80, 90}};
    uint8_t trns[3] = {0, 128, 255};
    uint8_t idx[4 * 2] = {0, 1, 2, 0, 2, 1, 0, 1};
    mem_out m =
        libpng_write(4, 2, PNG_COLOR_TYPE_PALETTE, 8, PNG_INTERLACE_NONE, idx, 1, pal, 3, trns, 3);
    gip_image_info info;
    if (GT_OK(gip_image_probe_memory(m.d, m.n, &info)))
        GT_CHECK(info.channels == 4, "palette+tRNS probe c%d", info.channels);
    if (GT_OK(decode_mode(m.d, m.n, GIP_LOAD_UNCHANGED, 1, 0, &img))) {
        bool ok = shape_is(&img, 4, 2, 4, GIP_U8);
        for (int i = 0; i < 8 && ok; i++) {
            const png_color *pc = &pal[idx[i]];
            ok &= gt_get(&img, i % 4, i / 4, 0) == pc->blue &&
                  gt_get(&img, i % 4, i / 4, 1) == pc->green &&
                  gt_get(&img, i % 4, i / 4, 2) == pc->red &&
                  gt_get(&img, i % 4, i / 4, 3) == trns[idx[i]];
        }
        GT_CHECK(ok, "palette+tRNS pixels (BGRA)");
        gip_image_free(NULL, &img);
    }
    free(m.d);

    /* 1-bit gray expands to 0/255; interlaced RGB reads back exactly. */
    uint8_t bits[9 * 2];
    for (int i = 0; i < 18; i++)
        bits[i] = (uint8_t)(gt_rand_u64(&rs) & 1);
    m = libpng_write(9, 2, PNG_COLOR_TYPE_GRAY, 1, PNG_INTERLACE_NONE, bits, 1, NULL, 0, NULL, 0);
    if (GT_OK(gip_image_decode(m.d, m.n, NULL, &img))) {
        bool ok = shape_is(&img, 9, 2, 1, GIP_U8);
        for (int i = 0; i < 18 && ok; i++)
            ok &= gt_get(&img, i % 9, i / 9, 0) == (bits[i] ? 255 : 0);
        GT_CHECK(ok, "1-bit gray pixels");
        gip_image_free(NULL, &img);
    }
    free(m.d);
    gt_alloc(&src, 13, 42, 3, GIP_U8, 0);
    gt_fill_random(&src, 11, 0, 0);
    m = libpng_write(13, 42, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_ADAM7, src.data, 3, NULL, 0, NULL,
                     0);
    if (GT_OK(gip_image_probe_memory(m.d, m.n, &info)))
        GT_CHECK(info.progressive == 1, "interlaced PNG probes progressive=%d", info.progressive);
    if (GT_OK(gip_image_decode(m.d, m.n, NULL, &img))) {
        gt_compare(&img, &src, 0, 0, "interlaced PNG");
        gip_image_free(NULL, &img);
    }
    free(m.d);
    gt_free(&src);

    /* PGM with comments, spaces and maxval 1000: 16-bit samples returned as stored. */
    const char head[] = "P5 # comment\n3 # w\n 1\n1000\n";
    uint8_t pgm[sizeof head - 1 + 6];
    memcpy(pgm, head, sizeof head - 1);
    const uint8_t px[6] = {0x03, 0xe8, 0x00, 0x01, 0x01, 0x00};
    memcpy(pgm + sizeof head - 1, px, 6);
    if (GT_OK(gip_image_probe_memory(pgm, sizeof pgm, &info)))
        GT_CHECK(info.bit_depth == 16 && info.channels == 1 && info.width == 3, "PGM probe");
    if (GT_OK(gip_image_decode(pgm, sizeof pgm, NULL, &img))) {
        GT_CHECK(shape_is(&img, 3, 1, 1, GIP_U16) && gt_get(&img, 0, 0, 0) == 1000 &&
                     gt_get(&img, 1, 0, 0) == 1 && gt_get(&img, 2, 0, 0) == 256,
                 "PGM maxval 1000 values");
        gip_image_free(NULL, &img);
    }
    /* PPM load in BGR order. */
    const uint8_t ppm[] = "P6\n2 1\n255\n\x01\x02\x03\x04\x05\x06";
    if (GT_OK(decode_mode(ppm, sizeof ppm - 1, GIP_LOAD_UNCHANGED, 1, 0, &img))) {
        GT_CHECK(shape_is(&img, 2, 1, 3, GIP_U8) && gt_get(&img, 0, 0, 0) == 3 &&
                     gt_get(&img, 0, 0, 2) == 1 && gt_get(&img, 1, 0, 0) == 6,
                 "PPM BGR load");
        gip_image_free(NULL, &img);
    }
}

/* ---- bad input ------------------------------------------------------------------------------ */

/* Decodes bytes from memory and from a file; both must fail with `want`, leave `out` as it was
 * and set a message. */
static void expect_bad(const char *label, const void *d, size_t n, gip_status want)
{
    gip_image out, before;
    memset(&out, 0x5a, sizeof out);
    before = out;
    gip_status st = gip_image_decode(d, n, NULL, &out);
    GT_CHECK(st == want && gip_last_error()[0], "%s: decode returned %s (%s), expected %s", label,
             gip_status_name(st), gip_last_error(), gip_status_name(want));
    char p[512];
    tmp_path(p, sizeof p, "bad.bin");
    write_bytes(p, d, n);
    gip_clear_error();
    st = gip_image_load(p, NULL, &out);
    GT_CHECK(st == want && gip_last_error()[0], "%s: load returned %s (%s), expected %s", label,
             gip_status_name(st), gip_last_error(), gip_status_name(want));
    GT_CHECK(memcmp(&out, &before, sizeof out) == 0, "%s: out changed on error", label);
    if (st == GIP_OK)
        gip_image_free(NULL, &out);
}

static void test_bad_input(void)
{
    gip_image out, before;
    memset(&out, 0x5a, sizeof out);
    before = out;
    gip_image_info info;
    gip_load_params lp = {0};
    char p[512];

    /* NULL and invalid arguments. */
    GT_STATUS(gip_image_load(NULL, NULL, &out), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_load(GIP_DATA_DIR "/rocket.jpg", NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_decode(NULL, 10, NULL, &out), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_decode("x", 1, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_probe(NULL, &info), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_probe(GIP_DATA_DIR "/rocket.jpg", NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_probe_memory(NULL, 3, &info), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_probe_memory("abc", 3, NULL), GIP_ERR_INVALID_ARGUMENT);
    lp.mode = (gip_load_mode)9;
    GT_STATUS(gip_image_load(GIP_DATA_DIR "/rocket.jpg", &lp, &out), GIP_ERR_INVALID_ARGUMENT);
    lp.mode = GIP_LOAD_UNCHANGED;
    lp.max_pixels = -1;
    GT_STATUS(gip_image_load(GIP_DATA_DIR "/rocket.jpg", &lp, &out), GIP_ERR_INVALID_ARGUMENT);
    lp.max_pixels = 0;
    lp.max_dim = -5;
    GT_STATUS(gip_image_decode("abc", 3, &lp, &out), GIP_ERR_INVALID_ARGUMENT);

    /* Files: missing, a directory, empty. */
    GT_STATUS(gip_image_load("/nonexistent-gip-dir/none.png", NULL, &out), GIP_ERR_NOT_FOUND);
    tmp_path(p, sizeof p, "missing.png");
    GT_STATUS(gip_image_load(p, NULL, &out), GIP_ERR_NOT_FOUND);
    GT_CHECK(strstr(gip_last_error(), p) != NULL, "missing-file message names the path: %s",
             gip_last_error());
    GT_STATUS(gip_image_probe(p, &info), GIP_ERR_NOT_FOUND);
    GT_STATUS(gip_image_load(tmpdir, NULL, &out), GIP_ERR_IO);
    GT_STATUS(gip_image_probe(tmpdir, &info), GIP_ERR_IO);
    expect_bad("empty file", "", 0, GIP_ERR_CORRUPT);
    GT_CHECK(memcmp(&out, &before, sizeof out) == 0, "out changed by a failed load");

    /* Unknown formats. */
    expect_bad("GIF", "GIF89a\x01\x00\x01\x00", 10, GIP_ERR_UNKNOWN_FORMAT);
    expect_bad("text", "hello, world", 12, GIP_ERR_UNKNOWN_FORMAT);
    expect_bad("ASCII PPM", "P3\n1 1\n255\n0 0 0\n", 17, GIP_ERR_UNKNOWN_FORMAT);
    expect_bad("JPEG SOI then EOI", "\xff\xd9\xff\xd8", 4, GIP_ERR_UNKNOWN_FORMAT);
    /* P5/P6 with no whitespace after the magic: a malformed header, not another variant. */
    expect_bad("P6 without whitespace", "P6#1 1\n255\n\0\0\0", 14, GIP_ERR_CORRUPT);
    GT_CHECK(strstr(gip_last_error(), "malformed") && !strstr(gip_last_error(), "variant"),
             "P6 without whitespace: message '%s'", gip_last_error());
    expect_bad("P5 without whitespace", "P51 1\n255\n\0", 11, GIP_ERR_CORRUPT);

    /* Truncated JPEG and PNG at several offsets. */
    const char *files[2] = {GIP_DATA_DIR "/rocket.jpg", GIP_DATA_DIR "/chelsea.png"};
    for (int f = 0; f < 2; f++) {
        size_t n = 0;
        uint8_t *d = read_bytes(files[f], &n);
        if (!GT_CHECK(d != NULL, "read %s", files[f]))
            continue;
        const size_t cuts[] = {1,   2,     3,     5,       8,      20,    33,   100,
                               600, n / 4, n / 2, n - 100, n - 12, n - 2, n - 1};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            char label[128];
            snprintf(label, sizeof label, "%s cut at %zu of %zu", files[f], cuts[c], n);
            expect_bad(label, d, cuts[c], GIP_ERR_CORRUPT);
        }
        free(d);
    }

    /* Corrupted PNG header bytes (CRC mismatch), and a valid CRC over invalid values. */
    size_t n = 0;
    uint8_t *d = read_bytes(GIP_DATA_DIR "/chelsea.png", &n);
    if (GT_CHECK(d != NULL, "read chelsea")) {
        const size_t at[] = {12, 16, 19, 24, 25, 29};
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
            d[at[i]] ^= 0x5a;
            char label[64];
            snprintf(label, sizeof label, "PNG byte %zu flipped", at[i]);
            expect_bad(label, d, n, GIP_ERR_CORRUPT);
            d[at[i]] ^= 0x5a;
        }
        free(d);
    }
    uint8_t crafted[128];
    size_t cn = craft_png(crafted, 10, 10, 7, 2);
    expect_bad("PNG bit depth 7", crafted, cn, GIP_ERR_CORRUPT);
    cn = craft_png(crafted, 0, 10, 8, 2);
    expect_bad("PNG width 0", crafted, cn, GIP_ERR_CORRUPT);
    cn = craft_png(crafted, 10, 10, 8, 5);
    expect_bad("PNG colour type 5", crafted, cn, GIP_ERR_CORRUPT);
    cn = craft_png(crafted, 10, 10, 8, 2);
    expect_bad("PNG without image data", crafted, cn, GIP_ERR_CORRUPT);

    /* Corrupted JPEG headers. */
    d = read_bytes(GIP_DATA_DIR "/rocket.jpg", &n);
    size_t sof = d ? find_sof(d, n) : 0;
    if (GT_CHECK(sof > 0, "SOF found in rocket.jpg")) {
        d[sof + 4] = 12; /* precision: this libjpeg decodes 8-bit only */
        expect_bad("JPEG precision 12", d, n, GIP_ERR_UNSUPPORTED);
        d[sof + 4] = 8;
        d[sof + 9] = 0; /* zero components */
        expect_bad("JPEG 0 components", d, n, GIP_ERR_CORRUPT);
        d[sof + 9] = 3;
        d[sof + 2] ^= 0x40; /* segment length */
        expect_bad("JPEG SOF length", d, n, GIP_ERR_CORRUPT);
        d[sof + 2] ^= 0x40;
        d[sof + 5] = d[sof + 6] = 0; /* height 0 */
        expect_bad("JPEG height 0", d, n, GIP_ERR_CORRUPT);
        /* Decompression bomb: 65000 x 65000 declared, refused before allocating. */
        put_be32(d + sof + 5, 0xFDE8FDE8u);
        expect_bad("JPEG 65000x65000", d, n, GIP_ERR_TOO_LARGE);
        GT_CHECK(strstr(gip_last_error(), "max_pixels") != NULL, "limit message: %s",
                 gip_last_error());
        if (GT_OK(gip_image_probe_memory(d, n, &info)))
            GT_CHECK(info.width == 65000 && info.height == 65000, "probe of the bomb header");
    }
    free(d);

    /* Decompression bombs: 200000 x 200000 PNG and PPM headers. */
    cn = craft_png(crafted, 200000, 200000, 8, 2);
    expect_bad("PNG 200000x200000", crafted, cn, GIP_ERR_TOO_LARGE);
    if (GT_OK(gip_image_probe_memory(crafted, cn, &info)))
        GT_CHECK(info.width == 200000 && info.height == 200000 && info.channels == 3,
                 "probe of the PNG bomb header");
    const char bomb[] = "P6\n200000 200000\n255\n0123456789abcdef";
    expect_bad("PPM 200000x200000", bomb, sizeof bomb - 1, GIP_ERR_TOO_LARGE);
    const char bomb2[] = "P5\n2000000 2\n255\n0123456789abcdef";
    expect_bad("PGM 2000000 wide", bomb2, sizeof bomb2 - 1, GIP_ERR_TOO_LARGE);
    GT_CHECK(strstr(gip_last_error(), "max_dim") != NULL, "limit message: %s", gip_last_error());

    /* Caller limits. */
    lp.max_dim = 0;
    lp.max_pixels = 1000;
    GT_STATUS(gip_image_load(GIP_DATA_DIR "/rocket.jpg", &lp, &out), GIP_ERR_TOO_LARGE);
    GT_STATUS(gip_image_load(GIP_DATA_DIR "/coffee.png", &lp, &out), GIP_ERR_TOO_LARGE);
    lp.max_pixels = 0;
    lp.max_dim = 100;
    GT_STATUS(gip_image_load(GIP_DATA_DIR "/coffee.png", &lp, &out), GIP_ERR_TOO_LARGE);
    lp.max_dim = 600;
    lp.max_pixels = 600 * 400;
    if (GT_OK(gip_image_load(GIP_DATA_DIR "/coffee.png", &lp, &out)))
        gip_image_free(NULL, &out);
    memcpy(&out, &before, sizeof out);

    /* Bad PNM headers. */
    struct {
        const char *bytes;
        gip_status want;
    } pnm[] = {
        {"P6\n-5 3\n255\n", GIP_ERR_CORRUPT},
        {"P6\n0 3\n255\n", GIP_ERR_CORRUPT},
        {"P6\n3 3\n70000\n", GIP_ERR_CORRUPT},
        {"P6\n3 3\n0\n", GIP_ERR_CORRUPT},
        {"P6\n3 3\n255\nabcdefghijklmnopqrstuvwxyz", GIP_ERR_CORRUPT}, /* 26 of 27 bytes */
        {"P6\n3", GIP_ERR_CORRUPT},
        {"P5\n3 3x\n255\n", GIP_ERR_CORRUPT},
        {"P5\n99999999999999999999 3\n255\n", GIP_ERR_CORRUPT},
        {"P5", GIP_ERR_CORRUPT},
    };
    for (size_t i = 0; i < sizeof pnm / sizeof pnm[0]; i++)
        expect_bad(pnm[i].bytes, pnm[i].bytes, strlen(pnm[i].bytes), pnm[i].want);
    const char ok_pgm[] = "P5 2 2 255 abcd";
    if (GT_OK(gip_image_decode(ok_pgm, sizeof ok_pgm - 1, NULL, &out)))
        gip_image_free(NULL, &out);
    GT_CHECK(count_tmp_files() == 0, "temporary files left");
}

static void test_bad_save(void)
{
    char p[512], q[512];
    gip_image img;
    gt_alloc(&img, 64, 48, 3, GIP_U8, 0);
    gt_fill_random(&img, 3, 0, 0);
    gip_save_params sp = {0};

    GT_STATUS(gip_image_save(NULL, &img, NULL), GIP_ERR_INVALID_ARGUMENT);
    tmp_path(p, sizeof p, "s.png");
    GT_STATUS(gip_image_save(p, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_save("", &img, NULL), GIP_ERR_INVALID_ARGUMENT);
    tmp_path(q, sizeof q, "s.bmp");
    GT_STATUS(gip_image_save(q, &img, NULL), GIP_ERR_UNSUPPORTED);
    tmp_path(q, sizeof q, "noext");
    GT_STATUS(gip_image_save(q, &img, NULL), GIP_ERR_UNSUPPORTED);
    tmp_path(q, sizeof q, "dir.png/noext");
    GT_STATUS(gip_image_save(q, &img, NULL), GIP_ERR_UNSUPPORTED);
    sp.quality = 101;
    GT_STATUS(gip_image_save(p, &img, &sp), GIP_ERR_INVALID_ARGUMENT);
    sp.quality = -1;
    GT_STATUS(gip_image_save(p, &img, &sp), GIP_ERR_INVALID_ARGUMENT);
    sp.quality = 0;
    sp.subsampling = (gip_subsampling)7;
    GT_STATUS(gip_image_save(p, &img, &sp), GIP_ERR_INVALID_ARGUMENT);
    sp.subsampling = GIP_SUBSAMPLING_DEFAULT;
    sp.png_compression = 10;
    GT_STATUS(gip_image_save(p, &img, &sp), GIP_ERR_INVALID_ARGUMENT);
    sp.png_compression = 0;
    sp.format = (gip_format)9;
    GT_STATUS(gip_image_save(p, &img, &sp), GIP_ERR_INVALID_ARGUMENT);
    sp.format = GIP_FORMAT_AUTO;

    /* Element types and channel counts the format cannot store. */
    gip_image f32, s16, u16, c4, c1, c2;
    gt_alloc(&f32, 8, 8, 3, GIP_F32, 0);
    gt_alloc(&s16, 8, 8, 1, GIP_S16, 0);
    gt_alloc(&u16, 8, 8, 3, GIP_U16, 0);
    gt_alloc(&c4, 8, 8, 4, GIP_U8, 0);
    gt_alloc(&c1, 8, 8, 1, GIP_U8, 0);
    gt_alloc(&c2, 16, 8, 1, GIP_U8, 0);
    c2.width = 8, c2.channels = 2; /* a hand-made view gip does not accept */
    GT_STATUS(gip_image_save(p, &f32, NULL), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "convert") != NULL, "f32 message: %s", gip_last_error());
    GT_STATUS(gip_image_save(p, &s16, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_image_save(p, &c2, NULL), GIP_ERR_INVALID_ARGUMENT);
    tmp_path(q, sizeof q, "s.jpg");
    GT_STATUS(gip_image_save(q, &u16, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_image_save(q, &c4, NULL), GIP_ERR_UNSUPPORTED);
    tmp_path(q, sizeof q, "s.ppm");
    GT_STATUS(gip_image_save(q, &c4, NULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_image_save(q, &c1, NULL), GIP_ERR_UNSUPPORTED);
    tmp_path(q, sizeof q, "s.pgm");
    GT_STATUS(gip_image_save(q, &img, NULL), GIP_ERR_UNSUPPORTED);
    GT_OK(gip_image_save(q, &c1, NULL));
    tmp_path(q, sizeof q, "s.pnm");
    GT_OK(gip_image_save(q, &u16, NULL));

    /* A malformed view and a device view. */
    gip_image bad = img;
    bad.width = 0;
    GT_STATUS(gip_image_save(p, &bad, NULL), GIP_ERR_INVALID_ARGUMENT);
    bad = img;
    bad.data = NULL;
    GT_STATUS(gip_image_save(p, &bad, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image dev;
    GT_OK(gip_image_wrap(&dev, (void *)(uintptr_t)0x1000, 8, 8, 3, GIP_U8, 0, GIP_MEM_CUDA, 0));
    GT_STATUS(gip_image_save(p, &dev, NULL), GIP_ERR_LOCATION_MISMATCH);

    /* Encode: the format must be named; outputs untouched on error. */
    void *data = (void *)&sp;
    size_t size = 12345;
    GT_STATUS(gip_image_encode(&img, NULL, &data, &size), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_encode(&img, &sp, &data, &size), GIP_ERR_INVALID_ARGUMENT);
    sp.format = GIP_FORMAT_PNG;
    GT_STATUS(gip_image_encode(&img, &sp, NULL, &size), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_encode(&img, &sp, &data, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_encode(&f32, &sp, &data, &size), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_image_encode(&dev, &sp, &data, &size), GIP_ERR_LOCATION_MISMATCH);
    GT_CHECK(data == (void *)&sp && size == 12345, "encode outputs changed on error");
    sp.format = GIP_FORMAT_AUTO;

    /* Folders: missing, and a path that is a directory. */
    const char *nodir = "/nonexistent-gip-dir/sub/out.png";
    GT_STATUS(gip_image_save(nodir, &img, NULL), GIP_ERR_IO);
    GT_CHECK(strstr(gip_last_error(), "/nonexistent-gip-dir/sub") != NULL &&
                 strstr(gip_last_error(), strerror(ENOENT)) != NULL,
             "missing-folder message: %s", gip_last_error());
    tmp_path(q, sizeof q, "adir.png");
    mkdir(q, 0755);
    GT_STATUS(gip_image_save(q, &img, NULL), GIP_ERR_IO);
    GT_CHECK(strstr(gip_last_error(), q) != NULL, "directory message: %s", gip_last_error());

    /* A failed save leaves an existing file byte-identical and no temporary file. */
    GT_OK(gip_image_save(p, &img, NULL));
    size_t n0 = 0, n1 = 0;
    uint8_t *before = read_bytes(p, &n0);
    GT_STATUS(gip_image_save(p, &f32, NULL), GIP_ERR_UNSUPPORTED);
    gip_image big;
    gt_alloc(&big, 300, 200, 3, GIP_U8, 0);
    gt_fill_random(&big, 4, 0, 0);
    /* Writing fails half-way: a file size limit (as a full disk would). */
    struct rlimit old, lim;
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096;
    if (GT_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno))) {
        gip_status st = gip_image_save(p, &big, NULL);
        setrlimit(RLIMIT_FSIZE, &old);
        GT_CHECK(st == GIP_ERR_IO && strstr(gip_last_error(), p) != NULL,
                 "save over the size limit: %s (%s)", gip_status_name(st), gip_last_error());
    }
    uint8_t *after = read_bytes(p, &n1);
    GT_CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0,
             "existing file changed by failed saves");
    GT_CHECK(count_tmp_files() == 0, "temporary files left after failed saves");
    free(before);
    free(after);
    gt_free(&big);
    gt_free(&f32);
    gt_free(&s16);
    gt_free(&u16);
    gt_free(&c4);
    gt_free(&c1);
    gt_free(&c2);
    gt_free(&img);
}

/* Output files, on the O_TMPFILE path and (GIP_NO_TMPFILE=1) on the named temporary's: a
 * read-only output is refused unless overwrite, replaced files keep their mode, and a temporary
 * left by a killed save of the same output is removed unless a live writer holds it. */
static void test_output_files(bool named)
{
    if (named)
        gt_setenv("GIP_NO_TMPFILE", "1");
    const char *mode = named ? "named temporary" : "O_TMPFILE";
    gip_image img, other;
    gt_alloc(&img, 40, 30, 3, GIP_U8, 0);
    gt_fill_random(&img, 11, 0, 0);
    gt_alloc(&other, 40, 30, 3, GIP_U8, 0);
    gt_fill_random(&other, 12, 0, 0);
    char p[512], stale[600], held[600];
    struct stat sb;
    tmp_path(p, sizeof p, named ? "ro_named.png" : "ro_tmpfile.png");
    unlink(p);
    if (GT_OK(gip_image_save(p, &img, NULL)) && GT_CHECK(stat(p, &sb) == 0, "stat"))
        GT_CHECK((sb.st_mode & 0777) == 0644, "%s: new file mode %o, expected 644", mode,
                 (unsigned)(sb.st_mode & 0777));
    size_t n0 = 0, n1 = 0;
    uint8_t *before = read_bytes(p, &n0);
    chmod(p, 0444);
    GT_STATUS(gip_image_save(p, &other, NULL), GIP_ERR_IO);
    GT_CHECK(strstr(gip_last_error(), "read-only") && strstr(gip_last_error(), "overwrite"),
             "%s: read-only message: %s", mode, gip_last_error());
    uint8_t *after = read_bytes(p, &n1);
    GT_CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0,
             "%s: a read-only output was replaced without overwrite", mode);
    free(after);
    gip_save_params sp = {0};
    sp.overwrite = 1;
    if (GT_OK(gip_image_save(p, &other, &sp)) && GT_CHECK(stat(p, &sb) == 0, "stat")) {
        GT_CHECK((sb.st_mode & 0777) == 0444, "%s: overwritten read-only file mode %o", mode,
                 (unsigned)(sb.st_mode & 0777));
        after = read_bytes(p, &n1);
        GT_CHECK(after && (n0 != n1 || memcmp(before, after, n0) != 0),
                 "%s: overwrite did not replace the file", mode);
        free(after);
    }
    free(before);
    chmod(p, 0640);
    if (GT_OK(gip_image_save(p, &img, NULL)) && GT_CHECK(stat(p, &sb) == 0, "stat"))
        GT_CHECK((sb.st_mode & 0777) == 0640, "%s: replaced file mode %o, expected 640", mode,
                 (unsigned)(sb.st_mode & 0777));

    /* What a killed save leaves ("PATH.gip.tmp", unlocked) goes with the next save of PATH. */
    snprintf(stale, sizeof stale, "%s.gip.tmp", p);
    write_bytes(stale, "partial", 7);
    GT_OK(gip_image_save(p, &img, NULL));
    GT_CHECK(access(stale, F_OK) != 0, "%s: the stale temporary '%s' survived the next save", mode,
             stale);
    /* A temporary that a live writer holds (flock) is not touched. */
    snprintf(held, sizeof held, "%s.gip.tmp", p);
    int fd = open(held, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (GT_CHECK(fd >= 0, "create %s: %s", held, strerror(errno))) {
        GT_CHECK(flock(fd, LOCK_EX) == 0, "flock: %s", strerror(errno));
        GT_OK(gip_image_save(p, &img, NULL));
        GT_CHECK(access(held, F_OK) == 0, "%s: a live writer's temporary was removed", mode);
        close(fd);
        unlink(held);
    }
    GT_CHECK(count_tmp_files() == 0, "%s: temporary files left", mode);
    gt_setenv("GIP_NO_TMPFILE", NULL);
    gt_free(&other);
    gt_free(&img);
}

/* gip__jpeg_decode_region (the batch loader's random crops): the region's pixels equal the same
 * region of the whole decode, for 4:2:0, 4:2:2 and 4:4:4, baseline and progressive, regions at
 * the edges, off the iMCU grid and one pixel wide; gray files and regions outside are refused. */
static void test_jpeg_region(void)
{
    gip_image full, src;
    if (!GT_OK(gip_image_load(GIP_DATA_DIR "/astronaut.png", NULL, &full)))
        return;
    gip_image odd; /* an odd size, so that the last iMCUs are partial */
    if (!GT_OK(gip_image_roi(&full, 3, 5, 501, 379, &odd)) ||
        !GT_OK(gip_image_alloc(NULL, &src, 501, 379, 3, GIP_U8, GIP_MEM_HOST, 0))) {
        gip_image_free(NULL, &full);
        return;
    }
    for (int64_t y = 0; y < 379; y++)
        memcpy((uint8_t *)src.data + y * src.stride, (const uint8_t *)odd.data + y * odd.stride,
               501 * 3);
    static const gip_subsampling subs[] = {GIP_SUBSAMPLING_420, GIP_SUBSAMPLING_422,
                                           GIP_SUBSAMPLING_444};
    uint64_t rs = 77;
    for (int k = 0; k < 3; k++)
        for (int prog = 0; prog < 2; prog++) {
            gip_save_params sp = {.format = GIP_FORMAT_JPEG, .quality = 90};
            sp.subsampling = subs[k];
            sp.progressive = prog;
            void *enc = NULL;
            size_t n = 0;
            gip_image whole;
            gip_load_params lp = {.mode = GIP_LOAD_COLOR, .ignore_orientation = 1};
            if (!GT_OK(gip_image_encode(&src, &sp, &enc, &n)))
                continue;
            if (!GT_OK(gip_image_decode(enc, n, &lp, &whole))) {
                gip_free(enc);
                continue;
            }
            for (int r = 0; r < 150; r++) {
                int64_t x, y, w, h;
                if (r == 0) {
                    x = y = 0, w = 501, h = 379;
                } else if (r == 1) {
                    x = 500, y = 378, w = h = 1;
                } else if (r == 2) {
                    x = 17, y = 0, w = 1, h = 379;
                } else {
                    x = (int64_t)(gt_rand_unit(&rs) * 500);
                    y = (int64_t)(gt_rand_unit(&rs) * 378);
                    w = 1 + (int64_t)(gt_rand_unit(&rs) * (double)(501 - x - 1));
                    h = 1 + (int64_t)(gt_rand_unit(&rs) * (double)(379 - y - 1));
                }
                gip_image reg;
                int64_t dx = -1;
                if (!GT_OK(gip__jpeg_decode_region(enc, n, "region", false, x, y, w, h, &reg, &dx)))
                    continue;
                int64_t bad = -1;
                GT_CHECK(dx >= 0 && dx + w <= reg.width && reg.height == h,
                         "region %lldx%lld at (%lld, %lld): %lldx%lld from %lld", (long long)w,
                         (long long)h, (long long)x, (long long)y, (long long)reg.width,
                         (long long)reg.height, (long long)dx);
                for (int64_t yy = 0; yy < h && bad < 0 && dx >= 0 && dx + w <= reg.width; yy++)
                    if (memcmp((const uint8_t *)reg.data + yy * reg.stride + dx * 3,
                               (const uint8_t *)whole.data + (y + yy) * whole.stride + x * 3,
                               (size_t)(w * 3)) != 0)
                        bad = yy;
                GT_CHECK(bad < 0,
                         "subsampling %d progressive %d: region %lldx%lld at (%lld, %lld) row "
                         "%lld differs from the whole decode",
                         (int)subs[k], prog, (long long)w, (long long)h, (long long)x, (long long)y,
                         (long long)bad);
                gip_image_free(NULL, &reg);
            }
            gip_image reg = {0};
            int64_t dx = 0;
            GT_STATUS(gip__jpeg_decode_region(enc, n, "region", false, 400, 0, 102, 10, &reg, &dx),
                      GIP_ERR_INVALID_ARGUMENT);
            GT_STATUS(
                gip__jpeg_decode_region(enc, n / 2, "region", false, 0, 300, 50, 70, &reg, &dx),
                GIP_ERR_CORRUPT);
            GT_CHECK(reg.data == NULL, "nothing is returned on error");
            gip_image_free(NULL, &whole);
            gip_free(enc);
        }
    /* gray files: decode them whole */
    gip_image gray;
    if (GT_OK(gip_image_alloc(NULL, &gray, 40, 30, 1, GIP_U8, GIP_MEM_HOST, 0))) {
        memset(gray.data, 90, (size_t)(gray.stride * 30));
        gip_save_params sp = {.format = GIP_FORMAT_JPEG};
        void *enc = NULL;
        size_t n = 0;
        if (GT_OK(gip_image_encode(&gray, &sp, &enc, &n))) {
            gip_image reg = {0};
            int64_t dx = 0;
            GT_STATUS(gip__jpeg_decode_region(enc, n, "region", false, 0, 0, 8, 8, &reg, &dx),
                      GIP_ERR_UNSUPPORTED);
            gip_free(enc);
        }
        gip_image_free(NULL, &gray);
    }
    gip_image_free(NULL, &src);
    gip_image_free(NULL, &full);
}

static void body(gip_context *ctx)
{
    (void)ctx; /* I/O is host-only: the same tests run for either backend */
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gip_test_io.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        GT_CHECK(false, "mkdtemp: %s", strerror(errno));
        return;
    }
    umask(022);
    GT_CHECK(!strcmp(gip_format_name(GIP_FORMAT_JPEG), "jpeg") &&
                 !strcmp(gip_format_name(GIP_FORMAT_PNG), "png") &&
                 !strcmp(gip_format_name(GIP_FORMAT_PNM), "pnm") &&
                 !strcmp(gip_format_name((gip_format)42), "?"),
             "gip_format_name");
    gip_free(NULL);
    test_roundtrips();
    test_jpeg();
    test_jpeg_cmyk();
    test_jpeg_region();
    test_samples();
    test_conversions();
    test_bad_input();
    test_bad_save();
    remove_tree(tmpdir);
}

int main(int argc, char **argv)
{
    test_output_files(false);
    test_output_files(true);
    return gt_main(argc, argv, "io", body);
}
