/* SPDX-License-Identifier: MIT */
/* The image-analysis subcommands of the statistics family: components (connected components:
 * count, boxes, areas, centroids, optionally the label image) and match (template matching: the
 * best position and its score). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- components ---------------------------------------------------------------------------- */

static int run_components(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--connectivity", "4|8", NULL, 0},
                       {"--labels", "OUT.png", NULL, 0},
                       {"--json", NULL, NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[1];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 1, 1, &npos);
    if (rc)
        return rc;
    int64_t conn = 8;
    const char *cv = cli_opt_value(opts, "--connectivity");
    if (cv && (rc = cli_parse_int(cmd, "--connectivity", cv, 4, 8, "4 or 8", &conn)))
        return rc;
    if (conn != 4 && conn != 8)
        return cli_usage(cmd, "--connectivity is %lld; 4 or 8 is accepted", (long long)conn);
    const char *labels_out = cli_opt_value(opts, "--labels");
    if (labels_out && (rc = cli_check_output(cmd, &common, labels_out)))
        return rc;
    const int json = cli_opt_value(opts, "--json") != NULL;
    gip_context *ctx = NULL;
    if ((rc = cli_context(cmd, &common, &ctx)))
        return rc;
    gip_load_params lp = {.mode = GIP_LOAD_GRAY};
    gip_image src = {0}, lab = {0}, dsrc = {0}, dlab = {0};
    int32_t *stats = NULL;
    double *cen = NULL;
    gip_status st = gip_image_load(pos[0], &lp, &src);
    const int64_t w = src.width, h = src.height;
    /* labels as s32 in a u8 image of 4 w bytes per row (gip images have no s32 dtype) */
    if (!st)
        st = gip_image_alloc(NULL, &lab, 4 * w, h, 1, GIP_U8, GIP_MEM_HOST, GIP_ALLOC_TIGHT);
    int32_t n = 0;
    gip_array la = {lab.data, w, h, 1, GIP_DEPTH_S32, lab.stride, GIP_MEM_HOST};
    if (!st && gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        double secs;
        if (!(st = cli_upload(ctx, &src, &dsrc, &secs)) &&
            !(st = gip_image_alloc(ctx, &dlab, 4 * w, h, 1, GIP_U8, GIP_MEM_CUDA, 0))) {
            gip_array dla = {dlab.data, w, h, 1, GIP_DEPTH_S32, dlab.stride, GIP_MEM_CUDA};
            if (!(st = gip_connected_components(ctx, &dsrc, (int32_t)conn, &dla, &n)))
                st = cli_download(ctx, &dlab, &lab, &secs);
        }
    } else if (!st)
        st = gip_connected_components(ctx, &src, (int32_t)conn, &la, &n);
    if (!st) {
        stats = malloc((size_t)n * 5 * sizeof *stats);
        cen = malloc((size_t)n * 2 * sizeof *cen);
        st = !stats || !cen ? GIP_ERR_OUT_OF_MEMORY
                            : gip_connected_components_stats(ctx, &la, n, stats, cen);
    }
    if (st) {
        rc = cli_lib_error(cmd->name, st);
        goto out;
    }
    if (labels_out) {
        if (n > 65536) {
            rc = cli_runtime_error(cmd, "%d labels do not fit a 16-bit PNG; --labels refused",
                                   (int)n);
            goto out;
        }
        gip_image l16;
        if ((st = gip_image_alloc(NULL, &l16, w, h, 1, GIP_U16, GIP_MEM_HOST, GIP_ALLOC_TIGHT))) {
            rc = cli_lib_error(cmd->name, st);
            goto out;
        }
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int32_t v;
                memcpy(&v, (char *)lab.data + y * lab.stride + 4 * x, 4);
                ((uint16_t *)((char *)l16.data + y * l16.stride))[x] = (uint16_t)v;
            }
        rc = cli_save(cmd, &common, labels_out, &l16, NULL);
        gip_image_free(NULL, &l16);
        if (rc)
            goto out;
        if (!json)
            goto out;
    }
    if (json) {
        printf("{\"width\": %lld, \"height\": %lld, \"connectivity\": %d, \"labels\": %d, "
               "\"components\": [",
               (long long)w, (long long)h, (int)conn, (int)n);
        for (int32_t i = 1; i < n; i++) {
            const int32_t *s = stats + 5 * i;
            printf("%s{\"label\": %d, \"left\": %d, \"top\": %d, \"width\": %d, \"height\": %d, "
                   "\"area\": %d, \"centroid\": [",
                   i > 1 ? ", " : "", (int)i, s[0], s[1], s[2], s[3], s[4]);
            cli_json_num(cen[2 * i]);
            printf(", ");
            cli_json_num(cen[2 * i + 1]);
            printf("]}");
        }
        printf("]}\n");
    } else {
        printf("%s: %lldx%lld, %d components (%d-connected)\n", pos[0], (long long)w, (long long)h,
               (int)(n - 1), (int)conn);
        printf("label   left    top  width height     area   centroid\n");
        for (int32_t i = 1; i < n; i++) {
            const int32_t *s = stats + 5 * i;
            printf("%5d %6d %6d %6d %6d %8d   %.6g %.6g\n", (int)i, s[0], s[1], s[2], s[3], s[4],
                   cen[2 * i], cen[2 * i + 1]);
        }
    }
    rc = CLI_EXIT_OK;
out:
    free(stats);
    free(cen);
    gip_image_free(ctx, &dlab);
    gip_image_free(ctx, &dsrc);
    gip_image_free(NULL, &lab);
    gip_image_free(NULL, &src);
    gip_context_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_components = {
    .name = "components",
    .summary = "count and measure the connected components of an image",
    .run = run_components,
    .help = "Usage: gip components [--connectivity 4|8] [--json] [--labels OUT.png] IMAGE\n"
            "\n"
            "Loads IMAGE as 8-bit gray and labels the connected components of its non-zero\n"
            "pixels (cv2.connectedComponentsWithStats; OpenCV's numbering). Prints the count\n"
            "and, for each component, its label, bounding box (left, top, width, height),\n"
            "area in pixels and centroid (x, y).\n"
            "\n"
            "  --connectivity N  4 or 8 (the default) neighbours\n"
            "  --json            one JSON object: width, height, connectivity, labels (the\n"
            "                    count, background included) and components, a list of\n"
            "                    {label, left, top, width, height, area, centroid}\n"
            "  --labels OUT.png  optional: also write the label image (16-bit, 0 for the\n"
            "                    background); prints nothing else unless --json is given\n",
    .example = "gip components --connectivity 4 --json scan.png",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_OUTPUT,
};

/* ---- match --------------------------------------------------------------------------------- */

static const char *const tm_names[] = {"sqdiff",       "sqdiff_normed", "ccorr",
                                       "ccorr_normed", "ccoeff",        "ccoeff_normed"};

static int run_match(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--method", "NAME", NULL, 0}, {"--json", NULL, NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    int method = GIP_TM_CCOEFF_NORMED;
    const char *mv = cli_opt_value(opts, "--method");
    if (mv) {
        method = -1;
        for (int i = 0; i < 6; i++)
            if (!strcmp(mv, tm_names[i]))
                method = i;
        if (method < 0)
            return cli_usage(cmd,
                             "--method is '%s'; sqdiff, sqdiff_normed, ccorr, ccorr_normed, "
                             "ccoeff or ccoeff_normed is accepted",
                             mv);
    }
    const int json = cli_opt_value(opts, "--json") != NULL;
    gip_context *ctx = NULL;
    if ((rc = cli_context(cmd, &common, &ctx)))
        return rc;
    gip_load_params lp = {0};
    gip_image img = {0}, tpl = {0}, res = {0}, dimg = {0}, dtpl = {0}, dres = {0};
    gip_status st = gip_image_load(pos[0], &lp, &img);
    if (!st)
        st = gip_image_load(pos[1], &lp, &tpl);
    if (!st && (tpl.width > img.width || tpl.height > img.height)) {
        rc = cli_runtime_error(cmd, "the template %s (%lldx%lld) is larger than %s (%lldx%lld)",
                               pos[1], (long long)tpl.width, (long long)tpl.height, pos[0],
                               (long long)img.width, (long long)img.height);
        goto out;
    }
    if (!st)
        st = gip_image_alloc(NULL, &res, img.width - tpl.width + 1, img.height - tpl.height + 1, 1,
                             GIP_F32, GIP_MEM_HOST, 0);
    if (!st && gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        double secs;
        if (!(st = cli_upload(ctx, &img, &dimg, &secs)) &&
            !(st = cli_upload(ctx, &tpl, &dtpl, &secs)) &&
            !(st = gip_image_alloc(ctx, &dres, res.width, res.height, 1, GIP_F32, GIP_MEM_CUDA,
                                   0)) &&
            !(st = gip_match_template(ctx, &dimg, &dtpl, method, &dres)))
            st = cli_download(ctx, &dres, &res, &secs);
    } else if (!st)
        st = gip_match_template(ctx, &img, &tpl, method, &res);
    if (st) {
        rc = cli_lib_error(cmd->name, st);
        goto out;
    }
    /* the best: smallest for the squared differences, largest otherwise; first in row order */
    const bool low = method <= GIP_TM_SQDIFF_NORMED;
    int64_t bx = 0, by = 0;
    double best = ((const float *)res.data)[0];
    for (int64_t y = 0; y < res.height; y++) {
        const float *r = (const float *)((const char *)res.data + y * res.stride);
        for (int64_t x = 0; x < res.width; x++)
            if (low ? r[x] < best : r[x] > best)
                best = r[x], bx = x, by = y;
    }
    if (json) {
        printf("{\"method\": \"%s\", \"result_width\": %lld, \"result_height\": %lld, "
               "\"x\": %lld, \"y\": %lld, \"score\": ",
               tm_names[method], (long long)res.width, (long long)res.height, (long long)bx,
               (long long)by);
        cli_json_num(best);
        printf("}\n");
    } else
        printf("%s in %s: best %s at x=%lld y=%lld, score %.9g\n", pos[1], pos[0], tm_names[method],
               (long long)bx, (long long)by, best);
    rc = CLI_EXIT_OK;
out:
    if (st && !rc)
        rc = cli_lib_error(cmd->name, st);
    gip_image_free(ctx, &dres);
    gip_image_free(ctx, &dtpl);
    gip_image_free(ctx, &dimg);
    gip_image_free(NULL, &res);
    gip_image_free(NULL, &tpl);
    gip_image_free(NULL, &img);
    gip_context_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_match = {
    .name = "match",
    .summary = "find a template in an image",
    .run = run_match,
    .help = "Usage: gip match [--method NAME] [--json] IMAGE TEMPLATE\n"
            "\n"
            "Loads IMAGE and TEMPLATE as stored (same channels and depth: u8 or f32, 1, 3 or 4\n"
            "channels), compares the template with every window of the image\n"
            "(cv2.matchTemplate) and prints the best position (top-left corner, x y) and its\n"
            "score: the smallest for sqdiff and sqdiff_normed, the largest otherwise.\n"
            "\n"
            "  --method NAME  sqdiff, sqdiff_normed, ccorr, ccorr_normed, ccoeff or\n"
            "                 ccoeff_normed (the default)\n"
            "  --json         one JSON object: method, result_width, result_height, x, y, score\n",
    .example = "gip match --method sqdiff_normed board.png piece.png",
    .common = CLI_COMMON_DEVICE,
};
