/* SPDX-License-Identifier: MIT */
/* gip ops: the registered operations, one or all, as text or as the Markdown reference
 * (docs/operations.md is this command's output, checked current by the tests). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *type_name(gip_param_type t)
{
    static const char *const names[] = {"int",  "number", "bool",   "choice",
                                        "size", "list",   "string", "matrix"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* What a parameter accepts, as the library's messages say it. */
static void accepts(const gip_param *p, char *buf, size_t size)
{
    const char *odd = p->flags & GIP_PARAM_ODD ? "odd " : "";
    switch (p->type) {
    case GIP_PARAM_INT:
        snprintf(buf, size, "%sinteger %.0f..%.0f", odd, p->min, p->max);
        break;
    case GIP_PARAM_DOUBLE:
        snprintf(buf, size, "number %g..%g", p->min, p->max);
        break;
    case GIP_PARAM_BOOL:
        snprintf(buf, size, "0 or 1");
        break;
    case GIP_PARAM_CHOICE: {
        size_t len = 0;
        buf[0] = '\0';
        for (const gip_choice *c = p->choices; c->name && len < size; c++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", c == p->choices ? "" : ", ",
                                    c->name);
        break;
    }
    case GIP_PARAM_SIZE:
        snprintf(buf, size, "N or WxH, %s%.0f..%.0f", odd, p->min, p->max);
        break;
    case GIP_PARAM_LIST:
        snprintf(buf, size, "1 to %d numbers %g..%g", (int)p->count, p->min, p->max);
        break;
    case GIP_PARAM_STRING:
        snprintf(buf, size, "text");
        break;
    case GIP_PARAM_MATRIX:
        snprintf(buf, size, "rows 'a,b;c,d', up to %dx%d", (int)p->count, (int)p->count);
        break;
    }
}

static void dtypes_of(const gip_op *op, char *buf, size_t size)
{
    static const gip_dtype all[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (op->dtypes & GIP_DTYPE_BIT(all[i]))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    gip_dtype_name(all[i]));
}

static void channels_of(const gip_op *op, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 1; c <= 4; c++)
        if (op->channels & GIP_CHANNELS_BIT(c))
            len += (size_t)snprintf(buf + len, size - len, "%s%d", len ? ", " : "", c);
}

/* The usage line: gip run 'NAME [p1] [p2] key=value ...'. */
static void usage_of(const gip_op *op, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "%s", op->name);
    for (int32_t k = 0; k < op->nparams && len < size; k++) {
        const gip_param *p = &op->params[k];
        const int req = (p->flags & GIP_PARAM_REQUIRED) != 0;
        if (p->flags & GIP_PARAM_POSITIONAL)
            len += (size_t)snprintf(buf + len, size - len, " %s[%s=]%s%s", req ? "" : "[", p->name,
                                    p->name, req ? "" : "]");
        else
            len += (size_t)snprintf(buf + len, size - len, " %s%s=V%s", req ? "" : "[", p->name,
                                    req ? "" : "]");
    }
    if (op->flags & GIP_OP_SCALARS && len < size)
        snprintf(buf + len, size - len, " [NAME=V ...]");
}

static void print_text(const gip_op *op)
{
    char line[1024], a[400];
    usage_of(op, line, sizeof line);
    printf("%s: %s\n  pipeline step: %s\n", op->name, op->summary, line);
    printf("  %s\n", op->doc);
    if (op->cv_name)
        printf("  follows: %s\n", op->cv_name);
    dtypes_of(op, line, sizeof line);
    channels_of(op, a, sizeof a);
    printf("  input: %s; %s channel(s)%s%s\n", line, a,
           op->flags & GIP_OP_POINTWISE ? "; point-wise" : "",
           op->flags & GIP_OP_WHOLE ? "; reads the whole image" : "");
    for (int32_t k = 0; k < op->nparams; k++) {
        const gip_param *p = &op->params[k];
        accepts(p, a, sizeof a);
        printf("  %-13s %s (%s), %s%s%s: %s\n", p->name, type_name(p->type), a,
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
        char line[1024], a[400];
        (void)family;
        usage_of(op, line, sizeof line);
        printf("\n## %s\n\n%s\n\n%s\n\n", op->name, op->summary, op->doc);
        printf("- pipeline step: `%s`\n", line);
        if (op->cv_name)
            printf("- follows: `%s`\n", op->cv_name);
        dtypes_of(op, line, sizeof line);
        channels_of(op, a, sizeof a);
        printf("- input dtypes: %s; channels: %s\n", line, a);
        if (op->flags & (GIP_OP_POINTWISE | GIP_OP_WHOLE))
            printf("- %s\n", op->flags & GIP_OP_WHOLE
                                 ? "reads the whole image: not tiled or streamed"
                                 : "point-wise: runs of such steps fold into one table pass");
        if (!op->nparams) {
            printf("\nNo parameters.\n");
            continue;
        }
        printf("\n| parameter | type | accepts | default | |\n|---|---|---|---|---|\n");
        for (int32_t k = 0; k < op->nparams; k++) {
            const gip_param *p = &op->params[k];
            accepts(p, a, sizeof a);
            printf("| `%s`%s | %s | ", p->name,
                   p->flags & GIP_PARAM_POSITIONAL ? " (positional)" : "", type_name(p->type));
            md_cell(a);
            printf(" | %s | ", p->def ? (*p->def ? p->def : "''") : "required");
            md_cell(p->doc);
            printf(" |\n");
        }
    }
}

static int run_ops(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {{"--markdown", NULL, NULL}};
    cli_common common;
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, 1, &common, pos, 0, 1, &npos);
    if (rc)
        return rc;
    if (opts[0].value) {
        if (npos)
            return cli_usage(cmd, "--markdown prints every operation; give no name");
        print_markdown();
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
    "ops", "list the operations (pipeline steps) and their parameters", run_ops,
    "Usage: gip ops [NAME] [--markdown]\n"
    "\n"
    "Without a name, lists every registered operation with its summary. With a name, prints\n"
    "its documentation, the dtypes and channels it takes and each parameter with its type,\n"
    "accepted values and default. --markdown prints the whole reference (docs/operations.md).\n",
    0};
