/* SPDX-License-Identifier: MIT */
/* The output files of the CLI: the checks before any work (read-only outputs, folders) and the
 * save that fits an image to what OUT's format can hold, with a note saying what was converted;
 * and the numbers of the --json reports. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_format_holds(gip_format f, int pnm_kind, int32_t channels, gip_dtype dtype)
{
    switch (f) {
    case GIP_FORMAT_JPEG:
        return dtype == GIP_U8 && (channels == 1 || channels == 3);
    case GIP_FORMAT_PNG:
        return (dtype == GIP_U8 || dtype == GIP_U16) && channels != 2;
    case GIP_FORMAT_PNM:
        return (dtype == GIP_U8 || dtype == GIP_U16) &&
               (pnm_kind ? channels == pnm_kind : channels == 1 || channels == 3);
    default:
        return 1; /* unknown: gip_image_save() says what it accepts */
    }
}

int cli_check_output(const cli_command *cmd, const cli_common *common, const char *out)
{
    struct stat sb;
    if (stat(out, &sb) != 0)
        return 0;
    if (S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "gip %s: '%s' is a directory; give a file path\n", cmd->name, out);
        return CLI_EXIT_RUNTIME;
    }
    if (!S_ISREG(sb.st_mode) || common->overwrite)
        return 0;
    /* The library's rule (gip_image_save): not writable by the caller; for root, no write bit. */
    int read_only = geteuid() == 0
                        ? (sb.st_mode & 0222) == 0
                        : faccessat(AT_FDCWD, out, W_OK, AT_EACCESS) != 0 && errno == EACCES;
    if (read_only) {
        fprintf(stderr,
                "gip %s: '%s' exists and is read-only (mode %04o); --overwrite replaces it\n",
                cmd->name, out, (unsigned)(sb.st_mode & 07777));
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

gip_status cli_to_8bit(gip_image *img)
{
    gip_image d = {0};
    gip_status st =
        gip_image_alloc(NULL, &d, img->width, img->height, img->channels, GIP_U8, GIP_MEM_HOST, 0);
    if (st)
        return st;
    int64_t n = img->width * img->channels;
    for (int64_t y = 0; y < img->height; y++) {
        const uint16_t *s =
            (const uint16_t *)(const void *)((const char *)img->data + y * img->stride);
        uint8_t *o = (uint8_t *)d.data + y * d.stride;
        for (int64_t i = 0; i < n; i++)
            o[i] = (uint8_t)(s[i] >> 8);
    }
    gip_image_free(NULL, img);
    *img = d;
    return GIP_OK;
}

/* Drops the alpha channel of a 4-channel host image (in place of *img). */
static gip_status drop_alpha(gip_image *img)
{
    gip_image d = {0};
    gip_status st =
        gip_image_alloc(NULL, &d, img->width, img->height, 3, img->dtype, GIP_MEM_HOST, 0);
    if (st)
        return st;
    size_t es = (size_t)gip_dtype_size(img->dtype);
    for (int64_t y = 0; y < img->height; y++) {
        const char *s = (const char *)img->data + y * img->stride;
        char *o = (char *)d.data + y * d.stride;
        for (int64_t x = 0; x < img->width; x++)
            memcpy(o + (size_t)x * 3 * es, s + (size_t)x * 4 * es, 3 * es);
    }
    gip_image_free(NULL, img);
    *img = d;
    return GIP_OK;
}

/* A host copy of a view (so that conversions never touch the caller's image). */
static gip_status host_copy(const gip_image *src, gip_image *dst)
{
    gip_status st = gip_image_alloc(NULL, dst, src->width, src->height, src->channels, src->dtype,
                                    GIP_MEM_HOST, 0);
    if (st)
        return st;
    size_t row = (size_t)gip_image_row_bytes(src);
    for (int64_t y = 0; y < src->height; y++)
        memcpy((char *)dst->data + y * dst->stride, (const char *)src->data + y * src->stride, row);
    return GIP_OK;
}

int cli_save(const cli_command *cmd, const cli_common *common, const char *out,
             const gip_image *img, const gip_save_params *extra)
{
    gip_save_params sp = {0};
    if (extra)
        sp = *extra;
    sp.quality = common->quality;
    sp.overwrite = common->overwrite;
    int32_t pnm_kind;
    gip_format f = sp.format ? sp.format : gip_format_from_path(out, &pnm_kind);
    const char *fname = f == GIP_FORMAT_JPEG ? "JPEG" : pnm_kind == 1 ? "PGM" : "PPM";
    bool alpha = img->channels == 4 && (f == GIP_FORMAT_JPEG || f == GIP_FORMAT_PNM);
    bool deep = img->dtype == GIP_U16 && f == GIP_FORMAT_JPEG;
    gip_image fit = {0};
    const gip_image *save = img;
    gip_status st;
    if (alpha || deep) {
        if ((st = host_copy(img, &fit)) || (alpha && (st = drop_alpha(&fit))) ||
            (deep && (st = cli_to_8bit(&fit)))) {
            gip_image_free(NULL, &fit);
            return cli_lib_error(cmd->name, st);
        }
        fprintf(stderr, "gip %s: note: %s holds %s: '%s' is written %s%s%s\n", cmd->name, fname,
                alpha && deep ? "neither alpha nor 16 bits"
                : alpha       ? "no alpha"
                              : "8 bits a channel",
                out, alpha ? "without alpha" : "", alpha && deep ? " and " : "",
                deep ? "as 8-bit (x >> 8)" : "");
        save = &fit;
    }
    st = gip_image_save(out, save, &sp);
    gip_image_free(NULL, &fit);
    return st ? cli_lib_error(cmd->name, st) : 0;
}

void cli_json_str(const char *s)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

void cli_json_num(double v)
{
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}
