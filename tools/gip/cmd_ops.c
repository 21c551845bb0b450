/* SPDX-License-Identifier: MIT */
/* gip ops: the registered operations, one or all, as text, as the Markdown reference
 * (docs/operations.md is this command's output, checked current by the tests) or as JSON for
 * scripts (the documentation's gallery). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void print_text(const gip_op *op)
{
    char line[1024], a[2048];
    cli_op_step_usage(op, line, sizeof line);
    printf("%s: %s\n  pipeline step: %s\n", op->name, op->summary, line);
    printf("  %s\n", op->doc);
    if (op->cv_name)
        printf("  follows: %s\n", op->cv_name);
    cli_op_dtypes(op, line, sizeof line);
    cli_op_channels(op, a, sizeof a);
    printf("  input: %s; %s channel(s)%s%s\n", line, a,
           op->flags & GIP_OP_POINTWISE ? "; point-wise" : "",
           op->flags & GIP_OP_WHOLE ? op->band_rows ? "; changes the size: streamed by output rows"
                                                    : "; reads the whole image"
                                    : "");
    for (int32_t k = 0; k < op->ninputs; k++)
        printf("  %-13s image, %s (--%s FILE; not a pipeline step's): %s\n", op->inputs[k].name,
               op->inputs[k].flags & GIP_INPUT_OPTIONAL ? "optional" : "required",
               op->inputs[k].name, op->inputs[k].doc);
    for (int32_t k = 0; k < op->nparams; k++) {
        const gip_param *p = &op->params[k];
        cli_param_accepts(p, a, sizeof a);
        printf("  %-13s %s (%s), %s%s%s: %s\n", p->name, cli_param_type_name(p->type), a,
               p->def ? "default " : "required", p->def ? (*p->def ? p->def : "''") : "",
               p->flags & GIP_PARAM_POSITIONAL ? ", positional" : "", p->doc);
    }
}

/* Markdown: '|' in a cell would end it. */
static void md_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", stdout);
        else
            putchar(*s);
    }
}

static void print_markdown(void)
{
    printf("# Operations\n\n"
           "Generated from the operation registry by `gip ops --markdown`; do not edit (the "
           "tests check that it is current). Every operation below is a pipeline step "
           "(`gip run 'NAME ARGS | ...'`), a CLI command (`gip NAME --PARAM V IN OUT`), "
           "`gip.apply(\"NAME\", img, PARAM=V)` in Python and `gip_op_apply()` in C.\n\n");
    const char *family = NULL;
    printf("| operation | family | summary |\n|---|---|---|\n");
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        printf("| [%s](#%s) | %s | ", op->name, op->name, op->family);
        md_cell(op->summary);
        printf(" |\n");
    }
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        char line[1024], a[2048];
        (void)family;
        cli_op_step_usage(op, line, sizeof line);
        printf("\n## %s\n\n%s\n\n%s\n\n", op->name, op->summary, op->doc);
        printf("- pipeline step: `%s`\n", line);
        if (op->cv_name)
            printf("- follows: `%s`\n", op->cv_name);
        cli_op_dtypes(op, line, sizeof line);
        cli_op_channels(op, a, sizeof a);
        printf("- input dtypes: %s; channels: %s\n", line, a);
        if (op->flags & (GIP_OP_POINTWISE | GIP_OP_WHOLE))
            printf("- %s\n", op->flags & GIP_OP_WHOLE
                                 ? op->band_rows ? "changes the size: not tiled; row streaming "
                                                   "and gip.dask cut it by output rows"
                                                 : "reads the whole image: not tiled or streamed"
                                 : "point-wise: runs of such steps fold into one table pass");
        if (op->flags & GIP_OP_INEXACT)
            printf("- integer results come from single-precision transforms: the CPU and CUDA "
                   "results may differ by one level\n");
        for (int32_t k = 0; k < op->ninputs; k++) {
            const gip_input *in = &op->inputs[k];
            printf("- reads the image `%s` too (%s; `--%s FILE` on the command line, `%s=` in "
                   "Python, `gip_op_apply_inputs()` in C): ",
                   in->name, in->flags & GIP_INPUT_OPTIONAL ? "optional" : "required", in->name,
                   in->name);
            md_cell(in->doc);
            printf("\n");
        }
        if (!op->nparams) {
            printf("\nNo parameters.\n");
            continue;
        }
        printf("\n| parameter | type | accepts | default | |\n|---|---|---|---|---|\n");
        for (int32_t k = 0; k < op->nparams; k++) {
            const gip_param *p = &op->params[k];
            cli_param_accepts(p, a, sizeof a);
            printf("| `%s`%s | %s | ", p->name,
                   p->flags & GIP_PARAM_POSITIONAL ? " (positional)" : "",
                   cli_param_type_name(p->type));
            md_cell(a);
            printf(" | %s | ", p->def ? (*p->def ? p->def : "''") : "required");
            md_cell(p->doc);
            printf(" |\n");
        }
    }
}

static void print_json(void)
{
    printf("[\n");
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        char line[1024], a[2048];
        printf("  {\"name\": ");
        cli_json_str(op->name);
        printf(", \"family\": ");
        cli_json_str(op->family);
        printf(", \"summary\": ");
        cli_json_str(op->summary);
        printf(", \"cv_name\": ");
        cli_json_str(op->cv_name);
        cli_op_dtypes(op, line, sizeof line);
        cli_op_channels(op, a, sizeof a);
        printf(",\n   \"dtypes\": ");
        cli_json_str(line);
        printf(", \"channels\": ");
        cli_json_str(a);
        printf(", \"pointwise\": %s, \"whole\": %s, \"banded\": %s,\n   \"inputs\": [",
               op->flags & GIP_OP_POINTWISE ? "true" : "false",
               op->flags & GIP_OP_WHOLE ? "true" : "false", op->band_rows ? "true" : "false");
        for (int32_t k = 0; k < op->ninputs; k++) {
            printf("%s{\"name\": ", k ? ", " : "");
            cli_json_str(op->inputs[k].name);
            printf(", \"optional\": %s, \"doc\": ",
                   op->inputs[k].flags & GIP_INPUT_OPTIONAL ? "true" : "false");
            cli_json_str(op->inputs[k].doc);
            printf("}");
        }
        printf("],\n   \"params\": [");
        for (int32_t k = 0; k < op->nparams; k++) {
            const gip_param *p = &op->params[k];
            cli_param_accepts(p, a, sizeof a);
            printf("%s\n    {\"name\": ", k ? "," : "");
            cli_json_str(p->name);
            printf(", \"type\": ");
            cli_json_str(cli_param_type_name(p->type));
            printf(", \"accepts\": ");
            cli_json_str(a);
            printf(", \"positional\": %s, \"default\": ",
                   p->flags & GIP_PARAM_POSITIONAL ? "true" : "false");
            cli_json_str(p->def);
            printf(", \"example\": ");
            cli_json_str(p->example);
            printf(", \"doc\": ");
            cli_json_str(p->doc);
            printf("}");
        }
        printf("]}%s\n", i + 1 < gip_op_count() ? "," : "");
    }
    printf("]\n");
}

static int run_ops(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--markdown", NULL, NULL, 0}, {"--json", NULL, NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 0, 1, &npos);
    if (rc)
        return rc;
    if (cli_opt_value(opts, "--markdown")) {
        if (npos)
            return cli_usage(cmd, "--markdown prints every operation; give no name");
        if (cli_opt_value(opts, "--json"))
            return cli_usage(cmd, "give --markdown or --json, not both");
        print_markdown();
        return CLI_EXIT_OK;
    }
    if (cli_opt_value(opts, "--json")) {
        if (npos)
            return cli_usage(cmd, "--json prints every operation; give no name");
        print_json();
        return CLI_EXIT_OK;
    }
    if (npos) {
        const gip_op *op = gip_op_find(pos[0]);
        if (!op)
            return cli_usage(cmd, "%s", gip_last_error());
        print_text(op);
        return CLI_EXIT_OK;
    }
    for (int32_t i = 0; i < gip_op_count(); i++)
        printf("  %-10s %s\n", gip_op_at(i)->name, gip_op_at(i)->summary);
    return CLI_EXIT_OK;
}

const cli_command cli_cmd_ops = {
    .name = "ops",
    .summary = "list the operations (pipeline steps) and their parameters",
    .run = run_ops,
    .example = "gip ops gaussian",
    .help =
        "Usage: gip ops [NAME] [--markdown | --json]\n"
        "\n"
        "Without a name, lists every registered operation with its summary. With a name, prints\n"
        "its documentation, the dtypes and channels it takes and each parameter with its type,\n"
        "accepted values and default.\n"
        "\n"
        "Options:\n"
        "  --markdown   print the whole reference as Markdown (docs/operations.md); no NAME\n"
        "  --json       print every operation and parameter as JSON (name, family, summary,\n"
        "               dtypes, channels, inputs, params with type, accepts, default, example,\n"
        "               doc); no NAME\n"
        "\n"
        "Example:\n"
        "  gip ops gaussian\n"};
