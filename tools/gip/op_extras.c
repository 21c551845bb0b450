/* SPDX-License-Identifier: MIT */
/* What the CLI adds to a few registered operations beyond their descriptors, kept from their
 * former hand-written commands: box's --unnormalized, Sobel's and edges' 8-bit results from 8-bit
 * data, and map's further inputs (gip map EXPR IN IN2 ... OUT). Other operations need no entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- map: inputs after the first --------------------------------------------------------- */

typedef struct map_job {
    const char *expr;
    gip_scalar scalars[GIP_EXPR_MAX_SCALARS];
    int32_t n_scalars;
    gip_load_mode load_mode;
    const char *const *more_paths; /* the inputs after the first, loaded by prepare */
    int32_t n_more;
    gip_image host_more[GIP_EXPR_MAX_INPUTS];
    gip_image dev_more[GIP_EXPR_MAX_INPUTS];
    gip_image inputs[GIP_EXPR_MAX_INPUTS];
} map_job;

/* Loads the inputs after the first into the first one's memory. */
static gip_status map_prepare(gip_context *ctx, const gip_image *src, void *data)
{
    map_job *j = data;
    gip_load_params lp = {0};
    lp.mode = j->load_mode;
    for (int32_t i = 0; i < j->n_more; i++) {
        const gip_image *use;
        gip_status st = cli_load_beside(ctx, src, j->more_paths[i], &lp, &j->host_more[i],
                                        &j->dev_more[i], &use);
        if (st)
            return st;
        j->inputs[i + 1] = *use;
    }
    return GIP_OK;
}

static gip_status map_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    map_job *j = data;
    j->inputs[0] = *src;
    return gip_map(ctx, j->expr, j->inputs, 1 + j->n_more, j->n_scalars ? j->scalars : NULL,
                   j->n_scalars, dst);
}

static void map_release(gip_context *ctx, void *data)
{
    map_job *j = data;
    for (int32_t i = 0; i < j->n_more; i++) {
        gip_image_free(ctx, &j->dev_more[i]);
        gip_image_free(NULL, &j->host_more[i]);
    }
}

/* Channels an image of `info` loads with as stored (gray+alpha loads as 4). */
static int32_t stored_channels(const gip_image_info *info)
{
    return info->channels == 2 ? 4 : info->channels;
}

/* Checks from the files' headers, before anything is loaded, that every input has the first
 * one's size: a clear message naming both files rather than the library's about its views.
 * *mixed is set when, loaded as stored, the inputs would differ in channels or depth. */
static int check_sizes(const cli_command *cmd, const char *const *paths, int32_t n, int *mixed)
{
    *mixed = 0;
    gip_image_info first, info;
    gip_status st = gip_image_probe(paths[0], &first);
    if (st)
        return cli_lib_error(cmd->name, st);
    for (int32_t i = 1; i < n; i++) {
        if ((st = gip_image_probe(paths[i], &info)))
            return cli_lib_error(cmd->name, st);
        if (info.width != first.width || info.height != first.height)
            return cli_runtime_error(cmd,
                                     "input %d '%s' is %lldx%lld but input 1 '%s' is %lldx%lld; "
                                     "all inputs must have one size",
                                     (int)i + 1, paths[i], (long long)info.width,
                                     (long long)info.height, paths[0], (long long)first.width,
                                     (long long)first.height);
        if (stored_channels(&info) != stored_channels(&first) || info.bit_depth != first.bit_depth)
            *mixed = 1;
    }
    return 0;
}

/* With more than one input, map runs as gip_map() of all of them (the registered step has one). */
static int map_setup(const cli_command *cmd, cli_common *common, const gip_args *args,
                     const char *const *inputs, int32_t n_inputs, cli_op *op)
{
    if (n_inputs < 2)
        return 0;
    int mixed = 0;
    int rc = check_sizes(cmd, inputs, n_inputs, &mixed);
    if (rc)
        return rc;
    /* Inputs of different kinds (gray and RGB, 8 and 16 bits) meet as 8-bit RGB. */
    if (mixed && !common->color) {
        fprintf(stderr,
                "gip %s: note: the inputs differ in channels or depth: each is loaded as 8-bit "
                "RGB\n",
                cmd->name);
        common->color = 1;
    }
    map_job *j = calloc(1, sizeof *j);
    if (!j)
        return cli_runtime_error(cmd, "out of memory");
    j->expr = gip_args_string(args, "expr");
    j->n_scalars = gip_args_scalar_count(args);
    for (int32_t i = 0; i < j->n_scalars && i < GIP_EXPR_MAX_SCALARS; i++) {
        double v;
        j->scalars[i].name = gip_args_scalar(args, i, &v);
        j->scalars[i].value = (float)v;
    }
    j->load_mode = common->color ? GIP_LOAD_COLOR : GIP_LOAD_UNCHANGED;
    j->more_paths = inputs + 1;
    j->n_more = n_inputs - 1;
    op->shape = NULL; /* the first input's */
    op->prepare = map_prepare;
    op->run = map_run;
    op->release = map_release;
    op->data = j;
    return 0;
}

static void map_cleanup(cli_op *op)
{
    if (op->run == map_run)
        free(op->data);
}

/* ---- the table ---------------------------------------------------------------------------- */

static const cli_op_alias box_aliases[] = {{"--unnormalized", "normalize", "0"},
                                           {NULL, NULL, NULL}};

static const cli_op_extra extras[] = {
    {.name = "box", .aliases = box_aliases},
    {.name = "edges", .flags = CLI_OP_8BIT},
    {.name = "map",
     .max_inputs = GIP_EXPR_MAX_INPUTS,
     .help = "IN2 ... are more inputs of IN's size (up to 8 in all), named in or a (IN), b (IN2),\n"
             "in2 (the third), then d e f g h. Inputs of different kinds (gray and RGB, 8 and 16\n"
             "bits), or any with --color, load as 8-bit RGB. The result has IN's channels and\n"
             "depth; a syntax or type error names its column (exit 2). The language:\n"
             "docs/expressions.md. Examples:\n"
             "  gip map 'out = 255 - in' in.png out.png\n"
             "  gip map 'out = clamp(a * k + b * (1 - k), 0, 255)' --scalar k=0.3 a.png b.png "
             "out.png\n",
     .setup = map_setup,
     .cleanup = map_cleanup},
    {.name = "sobel", .flags = CLI_OP_8BIT},
};

const cli_op_extra *cli_op_extra_find(const char *name)
{
    for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++)
        if (strcmp(extras[i].name, name) == 0)
            return &extras[i];
    return NULL;
}
