/* SPDX-License-Identifier: MIT */
/* The file subcommands: info (what an image file holds) and convert (between formats). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* ---- info --------------------------------------------------------------------------------- */

static const char *channel_kind(int32_t channels)
{
    switch (channels) {
    case 1:
        return "gray";
    case 2:
        return "gray+alpha";
    case 3:
        return "RGB";
    case 4:
        return "RGBA";
    }
    return "?";
}

static int run_info(const cli_command *cmd, int argc, char **argv)
{
    cli_common common;
    const char **pos = malloc((size_t)argc * sizeof *pos);
    int npos;
    if (!pos) {
        fprintf(stderr, "gip %s: out of memory\n", cmd->name);
        return CLI_EXIT_RUNTIME;
    }
    int rc = cli_parse(cmd, argc, argv, CLI_NO_OPTS, &common, pos, 1, argc, &npos);
    if (rc) {
        free(pos);
        return rc;
    }
    for (int i = 0; i < npos; i++) {
        gip_image_info info;
        gip_status st = gip_image_probe(pos[i], &info);
        if (st) {
            rc = cli_lib_error(cmd->name, st);
            continue;
        }
        const char *layout = "";
        if (info.format == GIP_FORMAT_JPEG)
            layout = info.progressive ? ", progressive" : ", sequential";
        else if (info.format == GIP_FORMAT_PNG)
            layout = info.progressive ? ", interlaced" : ", not interlaced";
        printf("%s: %s, %lldx%lld, %d channel%s (%s), %d-bit%s\n", pos[i],
               gip_format_name(info.format), (long long)info.width, (long long)info.height,
               (int)info.channels, info.channels == 1 ? "" : "s", channel_kind(info.channels),
               (int)info.bit_depth, layout);
    }
    free(pos);
    return rc;
}

const cli_command cli_cmd_info = {
    .name = "info",
    .summary = "describe image files (format, size, channels, depth)",
    .run = run_info,
    .example = "gip info data/*.png",
    .help = "Usage: gip info IMAGE...\n"
            "\n"
            "Prints, for each file, read from its header only: format, width x height, channels,\n"
            "bits per channel, and whether it is progressive (JPEG) or interlaced (PNG).\n"
            "Exits 1 if any file could not be read (the others are still described).\n"};

/* ---- convert ------------------------------------------------------------------------------ */

/* Non-zero when the output path's extension makes it a PNG file. */
static int png_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot && strcasecmp(dot, ".png") == 0;
}

/* Non-zero when the output path's extension makes it a JPEG file. */
static int jpeg_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    return dot && (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0);
}

static int run_convert(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--gray", NULL, NULL, 0},
                       {"--progressive", NULL, NULL, 0},
                       {"--subsampling", "444|422|420", NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    const char *in = pos[0], *out = pos[1];
    const char *subsampling = cli_opt_value(opts, "--subsampling");
    int gray = cli_opt_value(opts, "--gray") != NULL;
    int jpeg = jpeg_path(out);
    gip_save_params sp = {0};
    sp.quality = common.quality;
    sp.progressive = cli_opt_value(opts, "--progressive") != NULL;
    if (subsampling) {
        const char *s = subsampling;
        if (strcmp(s, "444") == 0)
            sp.subsampling = GIP_SUBSAMPLING_444;
        else if (strcmp(s, "422") == 0)
            sp.subsampling = GIP_SUBSAMPLING_422;
        else if (strcmp(s, "420") == 0)
            sp.subsampling = GIP_SUBSAMPLING_420;
        else
            return cli_usage(cmd, "--subsampling: unknown value '%s'; accepted: 444, 422 or 420",
                             s);
    }
    if (!jpeg && (sp.progressive || subsampling))
        return cli_usage(cmd, "--%s applies only to JPEG outputs (.jpg, .jpeg), not '%s'",
                         sp.progressive ? "progressive" : "subsampling", out);

    if ((rc = cli_check_output(cmd, &common, out)))
        return rc;
    /* As stored; cli_save converts (and says so) where OUT cannot hold it: JPEG has no alpha and
     * no 16 bits, PPM/PGM no alpha. Gray+alpha stays gray there rather than becoming RGB. */
    gip_image_info info;
    gip_status st = gip_image_probe(in, &info);
    if (st)
        return cli_lib_error(cmd->name, st);
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_UNCHANGED;
    if (gray || (info.channels == 2 && !png_path(out))) {
        lp.mode = GIP_LOAD_GRAY;
        lp.keep_depth = 1;
        if (!gray)
            fprintf(stderr,
                    "gip %s: note: '%s' cannot hold alpha: the gray+alpha '%s' is written as "
                    "gray\n",
                    cmd->name, out, in);
    }
    gip_image img = {0};
    if ((st = gip_image_load(in, &lp, &img)))
        return cli_lib_error(cmd->name, st);
    rc = cli_save(cmd, &common, out, &img, &sp);
    gip_image_free(NULL, &img);
    return rc ? rc : CLI_EXIT_OK;
}

const cli_command cli_cmd_convert = {
    .name = "convert",
    .summary = "convert between JPEG, PNG and PPM/PGM",
    .run = run_convert,
    .example = "gip convert --quality 90 --subsampling 444 in.png out.jpg",
    .help =
        "Usage: gip convert [options] IN OUT\n"
        "\n"
        "Reads IN (JPEG, PNG, PPM/PGM, recognised from its bytes) and writes OUT in the format "
        "its\n"
        "extension names (.jpg .jpeg .png .ppm .pgm .pnm), keeping channels and depth where OUT\n"
        "can hold them (JPEG: 8-bit gray or RGB; PPM/PGM: no alpha); a note on stderr says what\n"
        "was converted. OUT is replaced only when complete.\n"
        "\n"
        "Options:\n"
        "  --gray               convert to one gray channel (16-bit inputs stay 16-bit)\n"
        "  --progressive        write a progressive JPEG\n"
        "  --subsampling S      JPEG chroma subsampling: 444, 422 or 420 (default 420)\n",
    .common = CLI_COMMON_SAVE | CLI_COMMON_OUTPUT};
