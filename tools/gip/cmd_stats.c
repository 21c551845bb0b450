/* SPDX-License-Identifier: MIT */
/* The statistics subcommands: stats (min, max, mean and standard deviation per channel) and hist
 * (the histogram per channel, as text, JSON or a picture). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A loaded image and where the context computes on it. */
typedef struct loaded {
    gip_context *ctx;
    gip_image host, dev;
    const gip_image *src;
} loaded;

static void loaded_free(loaded *l)
{
    gip_image_free(l->ctx, &l->dev);
    gip_image_free(NULL, &l->host);
    gip_context_destroy(l->ctx);
}

/* Loads `in` as stored and uploads it where the context computes. */
static int load(const cli_command *cmd, const cli_common *common, const char *in, loaded *l)
{
    memset(l, 0, sizeof *l);
    int rc = cli_context(cmd, common, &l->ctx);
    if (rc)
        return rc;
    gip_load_params lp = {0};
    gip_status st = gip_image_load(in, &lp, &l->host);
    if (st) {
        rc = cli_lib_error(cmd->name, st);
        loaded_free(l);
        return rc;
    }
    l->src = &l->host;
    if (gip_context_backend(l->ctx) == GIP_BACKEND_CUDA) {
        double secs;
        if ((st = cli_upload(l->ctx, &l->host, &l->dev, &secs))) {
            rc = cli_lib_error(cmd->name, st);
            loaded_free(l);
            return rc;
        }
        l->src = &l->dev;
    }
    return 0;
}

/* ---- stats -------------------------------------------------------------------------------- */

static int run_stats(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--json", NULL, NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[1];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 1, 1, &npos);
    if (rc)
        return rc;
    const int json = cli_opt_value(opts, "--json") != NULL;
    loaded l;
    if ((rc = load(cmd, &common, pos[0], &l)))
        return rc;
    double mn[4], mx[4], mean[4], sd[4];
    gip_status st;
    if ((st = gip_channel_min_max(l.ctx, l.src, NULL, mn, mx)) ||
        (st = gip_mean_std_dev(l.ctx, l.src, NULL, mean, sd))) {
        rc = cli_lib_error(cmd->name, st);
        loaded_free(&l);
        return rc;
    }
    const gip_image *s = &l.host;
    if (json) {
        printf("{\"file\": ");
        cli_json_str(pos[0]);
        printf(", \"width\": %lld, \"height\": %lld, \"channels\": %d, \"dtype\": \"%s\", "
               "\"stats\": [",
               (long long)s->width, (long long)s->height, (int)s->channels,
               gip_dtype_name(s->dtype));
        for (int c = 0; c < s->channels; c++) {
            printf("%s{\"channel\": %d, \"min\": ", c ? ", " : "", c);
            cli_json_num(mn[c]);
            printf(", \"max\": ");
            cli_json_num(mx[c]);
            printf(", \"mean\": ");
            cli_json_num(mean[c]);
            printf(", \"std\": ");
            cli_json_num(sd[c]);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("%s: %lldx%lld, %d channel%s, %s\n", pos[0], (long long)s->width,
               (long long)s->height, (int)s->channels, s->channels == 1 ? "" : "s",
               gip_dtype_name(s->dtype));
        printf("channel %14s %14s %14s %14s\n", "min", "max", "mean", "std");
        for (int c = 0; c < s->channels; c++)
            printf("%7d %14.6g %14.6g %14.6g %14.6g\n", c, mn[c], mx[c], mean[c], sd[c]);
    }
    loaded_free(&l);
    return CLI_EXIT_OK;
}

const cli_command cli_cmd_stats = {
    .name = "stats",
    .summary = "print min, max, mean and standard deviation per channel",
    .run = run_stats,
    .example = "gip stats --json in.png",
    .help = "Usage: gip stats [--json] IMAGE\n"
            "\n"
            "Loads IMAGE as stored (channels and depth) and prints, for each channel, the\n"
            "smallest and largest value, the mean and the population standard deviation\n"
            "(cv2.minMaxLoc, cv2.meanStdDev), computed on the chosen device.\n"
            "\n"
            "  --json  one JSON object: file, width, height, channels, dtype and stats, a list\n"
            "          of {channel, min, max, mean, std}\n",
    .common = CLI_COMMON_DEVICE,
};

/* ---- hist --------------------------------------------------------------------------------- */

/* Draws the histograms (channels of `bins` counts each) as bars on black, one colour per channel
 * (red, green, blue, white for the fourth; white for one channel; overlaps add), into a new
 * width x height RGB u8 host image. */
static gip_status draw(const float *h, int channels, int bins, int64_t width, int64_t height,
                       gip_image *img)
{
    gip_status st = gip_image_alloc(NULL, img, width, height, 3, GIP_U8, GIP_MEM_HOST, 0);
    if (st)
        return st;
    for (int64_t y = 0; y < height; y++)
        memset((unsigned char *)img->data + y * img->stride, 0, (size_t)width * 3);
    float top = 0;
    for (int i = 0; i < channels * bins; i++)
        top = h[i] > top ? h[i] : top;
    for (int c = 0; c < channels; c++)
        for (int64_t x = 0; x < width; x++) {
            const int b = (int)(x * bins / width);
            const float v = h[c * bins + b];
            const int64_t bar = top > 0 ? (int64_t)llround(v / top * (double)height) : 0;
            for (int64_t y = height - bar; y < height; y++) {
                unsigned char *px = (unsigned char *)img->data + y * img->stride + x * 3;
                if (channels == 1 || c == 3) {
                    px[0] = px[1] = px[2] = 255;
                } else {
                    px[c] = 255;
                }
            }
        }
    return GIP_OK;
}

static int run_hist(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--json", NULL, NULL, 0},
                       {"--bins", "N", NULL, 0},
                       {"--range", "LO,HI", NULL, 0},
                       {"--plot", "OUT.png", NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[1];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 1, 1, &npos);
    if (rc)
        return rc;
    const int json = cli_opt_value(opts, "--json") != NULL;
    const char *plot = cli_opt_value(opts, "--plot");
    int64_t bins = 256;
    if (cli_opt_value(opts, "--bins") &&
        (rc = cli_parse_int(cmd, "--bins", cli_opt_value(opts, "--bins"), 1, 65536, "1..65536",
                            &bins)))
        return rc;
    double lo = NAN, hi = NAN;
    const char *range = cli_opt_value(opts, "--range");
    if (range) {
        char *end = NULL;
        lo = gip_strtod(range, &end);
        if (end == range || *end != ',' || (hi = gip_strtod(end + 1, &end), *end != '\0') ||
            !(hi > lo) || !isfinite(lo) || !isfinite(hi))
            return cli_usage(cmd, "--range: '%s' is not LO,HI with LO < HI (e.g. 0,256)", range);
    }
    if (plot && (rc = cli_check_output(cmd, &common, plot)))
        return rc;
    loaded l;
    if ((rc = load(cmd, &common, pos[0], &l)))
        return rc;
    const gip_image *s = &l.host;
    if (!range) { /* the dtype's range: every level of an integer image */
        lo = 0;
        hi = s->dtype == GIP_U8 ? 256 : s->dtype == GIP_U16 ? 65536 : 1;
    }
    const int cn = s->channels;
    float *h = calloc((size_t)cn * (size_t)bins, sizeof *h);
    if (!h) {
        loaded_free(&l);
        return cli_runtime_error(cmd, "out of memory for %d x %lld bins", cn, (long long)bins);
    }
    const float r[2] = {(float)lo, (float)hi};
    gip_status st = GIP_OK;
    for (int c = 0; c < cn && !st; c++) {
        gip_calc_hist_params p = {
            .dims = 1, .channels = {c}, .bins = {(int32_t)bins}, .ranges = {r}};
        st = gip_calc_hist(l.ctx, l.src, NULL, &p, h + (size_t)c * bins);
    }
    if (st) {
        rc = cli_lib_error(cmd->name, st);
        goto out_free;
    }
    if (json) {
        printf("{\"width\": %lld, \"height\": %lld, \"channels\": %d, \"dtype\": \"%s\", "
               "\"bins\": %lld, \"range\": [%.17g, %.17g], \"hist\": [",
               (long long)s->width, (long long)s->height, cn, gip_dtype_name(s->dtype),
               (long long)bins, lo, hi);
        for (int c = 0; c < cn; c++) {
            printf("%s[", c ? ", " : "");
            for (int64_t b = 0; b < bins; b++)
                printf("%s%.0f", b ? ", " : "", h[(size_t)c * bins + b]);
            printf("]");
        }
        printf("]}\n");
    } else if (!plot) {
        printf("# %s: %lldx%lld, %d channel%s, %s; %lld bins over [%g, %g)\n# bin low", pos[0],
               (long long)s->width, (long long)s->height, cn, cn == 1 ? "" : "s",
               gip_dtype_name(s->dtype), (long long)bins, lo, hi);
        for (int c = 0; c < cn; c++)
            printf(" c%d", c);
        printf("\n");
        for (int64_t b = 0; b < bins; b++) {
            printf("%lld %.9g", (long long)b, lo + (hi - lo) * (double)b / (double)bins);
            for (int c = 0; c < cn; c++)
                printf(" %.0f", h[(size_t)c * bins + b]);
            printf("\n");
        }
    }
    if (plot) {
        gip_image pic = {0};
        int64_t w = bins <= 512 ? 512 / bins * bins : bins;
        if ((st = draw(h, cn, (int)bins, w < 64 ? 64 : w, 256, &pic))) {
            rc = cli_lib_error(cmd->name, st);
            goto out_free;
        }
        rc = cli_save(cmd, &common, plot, &pic, NULL);
        gip_image_free(NULL, &pic);
        if (rc)
            goto out_free;
    }
    rc = CLI_EXIT_OK;
out_free:
    free(h);
    loaded_free(&l);
    return rc;
}

const cli_command cli_cmd_hist = {
    .name = "hist",
    .summary = "print or draw the histogram of each channel",
    .run = run_hist,
    .example = "gip hist --bins 32 --plot hist.png in.png",
    .help = "Usage: gip hist [--bins N] [--range LO,HI] [--json] [--plot OUT.png] IMAGE\n"
            "\n"
            "Counts the values of each channel of IMAGE (loaded as stored) in N bins (256 by\n"
            "default) spread evenly over [LO, HI): by default every level of a u8 image\n"
            "(0,256), of a u16 image (0,65536), and [0, 1) for f32 (cv2.calcHist). Prints one\n"
            "line per bin (index, its low edge, the count of each channel).\n"
            "\n"
            "  --json          one JSON object instead: width, height, channels, dtype, bins,\n"
            "                  range and hist, a list of one count list per channel\n"
            "  --plot OUT.png  draw the histograms as bars (red, green, blue, white; white for\n"
            "                  one channel), scaled to the largest count; prints nothing else\n"
            "                  unless --json is given (default: no picture)\n",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_OUTPUT,
};
