/* SPDX-License-Identifier: MIT */
/* The colour subcommands: gray (cv2.cvtColor to gray). */
#include "cli.h"

static gip_status gray_prepare(gip_context *ctx, const gip_image *src, int32_t *channels,
                               gip_dtype *dtype, void *data)
{
    *channels = 1;
    return GIP_OK;
}

static gip_status gray_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    /* Images load in RGB(A) order; a gray input is copied as it is. */
    switch (src->channels) {
    case 1:
        return gip_copy(ctx, src, dst);
    case 4:
        return gip_cvt_color(ctx, src, dst, GIP_COLOR_RGBA2GRAY);
    default:
        return gip_cvt_color(ctx, src, dst, GIP_COLOR_RGB2GRAY);
    }
}

static int run_gray(const cli_command *cmd, int argc, char **argv)
{
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, NULL, 0, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    cli_op op = {GIP_LOAD_COLOR, gray_prepare, gray_run, NULL, NULL, 0};
    return cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
}

const cli_command cli_cmd_gray = {
    "gray", "convert to gray, as cv2.cvtColor(..., COLOR_RGB2GRAY)", run_gray,
    "Usage: gip gray [options] IN OUT\n"
    "\n"
    "Converts to one gray channel: 0.299 R + 0.587 G + 0.114 B with OpenCV's fixed-point\n"
    "rounding (cv2.COLOR_RGB2GRAY; alpha is dropped). 16-bit inputs stay 16-bit (a JPEG\n"
    "OUT is 8-bit; a note says so); gray inputs are copied.\n",
    CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED | CLI_COMMON_OUTPUT};
