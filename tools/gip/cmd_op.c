/* SPDX-License-Identifier: MIT */
/* The commands made from the operation registry: every registered operation NAME is
 * `gip NAME [--PARAM V ...] [REQUIRED ...] IN OUT`, its options, help text and checks read from its
 * descriptor, its values set through gip_args_set_text() and its run through the single-operation
 * runner (gip_op_output_shape(), gip_op_apply()). An operation added to the registry is a command
 * without an edit here. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define OP_COMMON (CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED | CLI_COMMON_OUTPUT)
#define NAME_MAX_LEN 64
#define HELP_WIDTH 92     /* columns of the help's paragraphs */
#define OPT_HELP_WIDTH 68 /* columns of an option's help, right of its name */
#define SCALAR_OPTION "--scalar"

/* ---- names ------------------------------------------------------------------------------- */

/* The option of parameter `param`: "--" and the name with '_' written '-'. */
static void option_name(const char *param, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "--%s", param);
    for (size_t i = 2; i < n && i < size; i++)
        if (buf[i] == '_')
            buf[i] = '-';
}

/* The parameter's name upper case ("KERNEL"), for usage lines and metavars. */
static void upper_name(const char *param, char *buf, size_t size)
{
    size_t i = 0;
    for (; param[i] && i + 1 < size; i++)
        buf[i] = (char)toupper((unsigned char)param[i]);
    buf[i] = '\0';
}

/* What follows a parameter's option in help and usage: "N|WxH", "0|1", "1|3|5|7|scharr". */
static void metavar_of(const gip_param *p, char *buf, size_t size)
{
    switch (p->type) {
    case GIP_PARAM_INT:
        snprintf(buf, size, "N");
        return;
    case GIP_PARAM_DOUBLE:
        snprintf(buf, size, "X");
        return;
    case GIP_PARAM_BOOL:
        snprintf(buf, size, "0|1");
        return;
    case GIP_PARAM_CHOICE: {
        size_t len = 0;
        for (const gip_choice *c = p->choices; c->name && len < size; c++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", c == p->choices ? "" : "|",
                                    c->name);
        if (len <= 20)
            return;
        break; /* too long for the option column: the name stands for it */
    }
    case GIP_PARAM_SIZE:
        snprintf(buf, size, "N|WxH");
        return;
    case GIP_PARAM_LIST:
        snprintf(buf, size, p->count == 1 ? "X" : p->count == 2 ? "X[,X]" : "X[,X...]");
        return;
    case GIP_PARAM_MATRIX:
        snprintf(buf, size, "ROWS");
        return;
    case GIP_PARAM_STRING:
        break;
    }
    upper_name(p->name, buf, size);
}

static int required_positional(const gip_param *p)
{
    return (p->flags & (GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED)) ==
           (GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED);
}

/* The parameter of `op` whose name is s[0..len), or NULL. */
static const gip_param *param_named(const gip_op *op, const char *s, size_t len)
{
    for (int32_t k = 0; k < op->nparams; k++)
        if (strlen(op->params[k].name) == len && strncmp(op->params[k].name, s, len) == 0)
            return &op->params[k];
    return NULL;
}

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

void cli_op_message(const gip_op *op, const char *msg, char *buf, size_t size)
{
    size_t n = strlen(op->name), o = 0;
    if (strncmp(msg, op->name, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    int quoted = 0;
    const char *p = msg;
    while (*p && o + 1 < size) {
        if (*p == '\'' && (quoted ? !word_char(p[1]) : p == msg || !word_char(p[-1]))) {
            quoted = !quoted;
            buf[o++] = *p++;
            continue;
        }
        if (quoted || !word_char(*p) || (p > msg && (word_char(p[-1]) || p[-1] == '-'))) {
            buf[o++] = *p++;
            continue;
        }
        size_t len = 0;
        while (word_char(p[len]))
            len++;
        const gip_param *prm = param_named(op, p, len);
        int ends = p[len] == '\0' || strchr(" =,:;)", p[len]) != NULL;
        if (prm && ends) {
            char opt[NAME_MAX_LEN];
            option_name(prm->name, opt, sizeof opt);
            o += (size_t)snprintf(buf + o, size - o, "%s", opt);
            if (o >= size)
                o = size - 1;
        } else {
            size_t copy = len < size - 1 - o ? len : size - 1 - o;
            memcpy(buf + o, p, copy);
            o += copy;
        }
        p += len;
    }
    buf[o] = '\0';
}

/* ---- the options of one operation ---------------------------------------------------------- */

/* The option table of an operation's command: its parameters in declaration order, then the
 * CLI's aliases, then --scalar for operations that take named scalars, then --NAME FILE for
 * each image it reads besides IN. */
typedef struct op_options {
    cli_opt *v;
    int n, nparams, naliases, scalar; /* scalar: the index of --scalar, or -1 */
    int input;                        /* the index of the first input's option */
    char (*names)[NAME_MAX_LEN];
    char (*metavars)[NAME_MAX_LEN];
} op_options;

static void op_options_free(op_options *oo)
{
    free(oo->v);
    free(oo->names);
    free(oo->metavars);
}

static int op_options_make(const gip_op *op, const cli_op_extra *extra, op_options *oo)
{
    memset(oo, 0, sizeof *oo);
    oo->nparams = op->nparams;
    while (extra && extra->aliases && extra->aliases[oo->naliases].option)
        oo->naliases++;
    oo->n = oo->nparams + oo->naliases + (op->flags & GIP_OP_SCALARS ? 1 : 0);
    oo->scalar = op->flags & GIP_OP_SCALARS ? oo->n - 1 : -1;
    oo->input = oo->n;
    oo->n += op->ninputs;
    size_t n = (size_t)(oo->n ? oo->n : 1);
    oo->v = calloc(n, sizeof *oo->v);
    oo->names = calloc(n, sizeof *oo->names);
    oo->metavars = calloc(n, sizeof *oo->metavars);
    if (!oo->v || !oo->names || !oo->metavars) {
        op_options_free(oo);
        return -1;
    }
    for (int k = 0; k < oo->nparams; k++) {
        const gip_param *p = &op->params[k];
        option_name(p->name, oo->names[k], NAME_MAX_LEN);
        metavar_of(p, oo->metavars[k], NAME_MAX_LEN);
        oo->v[k].name = oo->names[k];
        oo->v[k].metavar = oo->metavars[k];
        oo->v[k].flags = p->type == GIP_PARAM_BOOL ? CLI_OPT_BOOL : 0;
    }
    for (int k = 0; k < oo->naliases; k++)
        oo->v[oo->nparams + k].name = extra->aliases[k].option; /* a flag */
    if (oo->scalar >= 0) {
        oo->v[oo->scalar].name = SCALAR_OPTION;
        oo->v[oo->scalar].metavar = "NAME=V[,...]";
    }
    for (int k = 0; k < op->ninputs; k++) {
        option_name(op->inputs[k].name, oo->names[oo->input + k], NAME_MAX_LEN);
        oo->v[oo->input + k].name = oo->names[oo->input + k];
        oo->v[oo->input + k].metavar = "FILE";
    }
    return 0;
}

/* ---- help ---------------------------------------------------------------------------------- */

/* Appends `text` to f, broken at spaces into lines of at most `width` columns; its own line
 * breaks are kept. The first line starts at column 0. */
static void put_wrapped(FILE *f, const char *text, int width)
{
    int col = 0;
    for (const char *p = text; *p;) {
        if (*p == '\n' || *p == ' ') {
            if (*p == '\n') {
                fputc('\n', f);
                col = 0;
            }
            p++;
            continue;
        }
        int word = (int)strcspn(p, " \n");
        if (col > 0 && col + 1 + word > width) {
            fputc('\n', f);
            col = 0;
        }
        if (col > 0) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, (size_t)word, f);
        col += word;
        p += word;
    }
}

/* Prints one parameter's option line: its doc, what it accepts and its default. */
static void print_param_option(FILE *f, const gip_param *p, const cli_opt *o)
{
    char acc[2048], text[3200], upper[NAME_MAX_LEN];
    gip_param_accepts(p, acc, sizeof acc); /* in the words of the registry's messages */
    upper_name(p->name, upper, sizeof upper);
    char required[200];
    snprintf(required, sizeof required, "required%s%s%s",
             required_positional(p) ? "; or give it as " : "", required_positional(p) ? upper : "",
             required_positional(p) ? " before IN" : "");
    if (p->type == GIP_PARAM_CHOICE && strchr(o->metavar, '|'))
        snprintf(text, sizeof text, "%s (%s%s)", p->doc, p->def ? "default " : "",
                 p->def ? p->def : required);
    else if (p->type == GIP_PARAM_CHOICE)
        snprintf(text, sizeof text, "%s; %s (%s%s)", p->doc, acc, p->def ? "default " : "",
                 p->def ? p->def : required);
    else if (!p->def)
        snprintf(text, sizeof text, "%s; %s (%s)", p->doc, acc, required);
    else if (p->type == GIP_PARAM_BOOL)
        snprintf(text, sizeof text, "%s (default %s; %s alone is 1)", p->doc, p->def, o->name);
    else
        snprintf(text, sizeof text, "%s; %s (default %s)", p->doc, acc, *p->def ? p->def : "''");
    char *help = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&help, &len);
    if (m) {
        put_wrapped(m, text, OPT_HELP_WIDTH);
        fclose(m);
    }
    cli_print_opt(f, NULL, o->name, o->metavar, help ? help : text);
    free(help);
}

/* The usage line's arguments after [options]: "KERNEL IN OUT", "EXPR IN [IN2 ...] OUT". */
static void usage_arguments(const gip_op *op, const cli_op_extra *extra, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int32_t k = 0; k < op->nparams && len < size; k++)
        if (required_positional(&op->params[k])) {
            char upper[NAME_MAX_LEN];
            upper_name(op->params[k].name, upper, sizeof upper);
            len += (size_t)snprintf(buf + len, size - len, "%s ", upper);
        }
    if (len < size)
        snprintf(buf + len, size - len, "%s",
                 extra && extra->max_inputs > 1 ? "IN [IN2 ...] OUT" : "IN OUT");
}

static void write_help(FILE *f, const gip_op *op, const cli_op_extra *extra, const op_options *oo)
{
    char line[1024], more[400];
    usage_arguments(op, extra, line, sizeof line);
    fprintf(f, "Usage: gip %s [options] %s\n\n", op->name, line);
    put_wrapped(f, op->summary, HELP_WIDTH);
    fputs("\n\n", f);
    put_wrapped(f, op->doc, HELP_WIDTH);
    fputs("\n\n", f);
    if (extra && extra->help)
        fprintf(f, "%s\n", extra->help);
    if (extra && (extra->flags & CLI_OP_8BIT))
        fputs("An 8-bit result of a 16-bit IN is computed from 8 bits: IN is reduced first\n"
              "(x >> 8), and a note says so.\n\n",
              f);
    /* What it takes and gives, and the same operation as a pipeline step. */
    char *para = NULL;
    size_t plen = 0;
    FILE *m = open_memstream(&para, &plen);
    if (m) {
        cli_op_dtypes(op, line, sizeof line);
        cli_op_channels(op, more, sizeof more);
        fprintf(m, "IN: %s; %s channels.", line, more);
        if (op->cv_name)
            fprintf(m, " Follows %s.", op->cv_name);
        if (op->flags & GIP_OP_WHOLE)
            fprintf(m, " Reads the whole image.");
        fprintf(m, " OUT has IN's size and the channels and depth the operation gives, where "
                   "OUT's format can hold them (else a note says what was converted).");
        for (int32_t k = 0; k < op->nparams; k++)
            if (required_positional(&op->params[k]) && op->params[k].type == GIP_PARAM_STRING) {
                fprintf(m, " An %s starting with '-' goes after '--'.", op->params[k].name);
                break;
            }
        fclose(m);
        put_wrapped(f, para, HELP_WIDTH);
        fputc('\n', f);
    }
    free(para);
    cli_op_step_usage(op, line, sizeof line);
    fprintf(f, "\nThe pipeline step (gip ops %s):\n  gip run '%s'\n", op->name, line);
    if (oo->n == 0)
        return;
    fputs("\nOptions:\n", f);
    char help[256];
    for (int k = 0; k < oo->nparams; k++)
        print_param_option(f, &op->params[k], &oo->v[k]);
    for (int k = 0; k < oo->naliases; k++) {
        const cli_op_alias *a = &extra->aliases[k];
        char opt[NAME_MAX_LEN];
        option_name(a->param, opt, sizeof opt);
        snprintf(help, sizeof help, "the same as %s %s", opt, a->value);
        cli_print_opt(f, NULL, a->option, NULL, help);
    }
    if (oo->scalar >= 0)
        cli_print_opt(f, NULL, SCALAR_OPTION, "NAME=V[,...]",
                      "named constants of the expression, comma-separated, at most 16 "
                      "(default: none)");
    for (int k = 0; k < op->ninputs; k++) {
        const gip_input *in = &op->inputs[k];
        snprintf(help, sizeof help, "%s%s (loaded as stored)", in->doc,
                 in->flags & GIP_INPUT_OPTIONAL ? "; optional" : "; required");
        cli_print_opt(f, NULL, oo->v[oo->input + k].name, "FILE", help);
    }
}

/* ---- running ------------------------------------------------------------------------------ */

/* Prints a library message about the arguments as a usage error in the command's words. */
static int args_error(const cli_command *cmd)
{
    char msg[1024];
    cli_op_message(cmd->op, gip_last_error(), msg, sizeof msg);
    return cli_usage(cmd, "%s", msg);
}

/* Sets the named scalars of --scalar NAME=V[,NAME=V...]. */
static int set_scalars(const cli_command *cmd, gip_args *args, const char *text)
{
    static const char accepted[] = "NAME=V[,NAME=V...], at most 16, V a finite number";
    char *copy = strdup(text);
    if (!copy)
        return cli_runtime_error(cmd, "out of memory");
    int rc = 0;
    for (char *p = copy; !rc;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        char *eq = strchr(p, '=');
        double v;
        if (!eq || eq == p) {
            rc = cli_usage(cmd, "%s: '%s' is malformed; accepted: %s", SCALAR_OPTION, text,
                           accepted);
            break;
        }
        *eq = '\0';
        if ((rc = cli_parse_double(cmd, SCALAR_OPTION, eq + 1, -3.4e38, 3.4e38, accepted, &v)))
            break;
        if (gip_args_set_scalar(args, p, v)) {
            char msg[512];
            cli_op_message(cmd->op, gip_last_error(), msg, sizeof msg);
            rc = cli_usage(cmd, "%s: %s", SCALAR_OPTION, msg);
            break;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    free(copy);
    return rc;
}

/* Sets the arguments from the options given; 0 or an exit status. */
static int set_options(const cli_command *cmd, const cli_op_extra *extra, const op_options *oo,
                       gip_args *args)
{
    const gip_op *op = cmd->op;
    for (int k = 0; k < oo->nparams; k++)
        if (oo->v[k].value && gip_args_set_text(args, op->params[k].name, oo->v[k].value))
            return args_error(cmd);
    for (int k = 0; k < oo->naliases; k++) {
        const cli_op_alias *a = &extra->aliases[k];
        if (!oo->v[oo->nparams + k].value)
            continue;
        if (gip_args_is_set(args, a->param)) {
            char opt[NAME_MAX_LEN];
            option_name(a->param, opt, sizeof opt);
            return cli_usage(cmd, "%s and %s exclude each other", a->option, opt);
        }
        if (gip_args_set_text(args, a->param, a->value))
            return args_error(cmd);
    }
    if (oo->scalar >= 0 && oo->v[oo->scalar].value)
        return set_scalars(cmd, args, oo->v[oo->scalar].value);
    return 0;
}

static gip_status op_shape(const gip_shape *in, gip_shape *out, void *data)
{
    return gip_op_output_shape(data, in, out);
}

static gip_status op_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    return gip_op_apply(ctx, data, src, dst);
}

/* An operation that reads more images (--NAME FILE): they are loaded as stored into IN's memory
 * once IN is, and given to gip_op_apply_inputs(). */
#define MAX_OP_INPUTS 8
typedef struct inputs_job {
    gip_args *args;
    int32_t n;
    const char *paths[MAX_OP_INPUTS]; /* NULL: not given */
    gip_image host[MAX_OP_INPUTS], dev[MAX_OP_INPUTS];
    const gip_image *use[MAX_OP_INPUTS];
} inputs_job;

static gip_status inputs_prepare(gip_context *ctx, const gip_image *src, void *data)
{
    inputs_job *j = data;
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_UNCHANGED;
    for (int32_t i = 0; i < j->n; i++) {
        if (!j->paths[i])
            continue;
        gip_status st =
            cli_load_beside(ctx, src, j->paths[i], &lp, &j->host[i], &j->dev[i], &j->use[i]);
        if (st)
            return st;
    }
    return GIP_OK;
}

static gip_status inputs_shape(const gip_shape *in, gip_shape *out, void *data)
{
    return gip_op_output_shape(((inputs_job *)data)->args, in, out);
}

static gip_status inputs_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    inputs_job *j = data;
    return gip_op_apply_inputs(ctx, j->args, src, j->use, j->n, dst);
}

static void inputs_release(gip_context *ctx, void *data)
{
    inputs_job *j = data;
    for (int32_t i = 0; i < j->n; i++) {
        gip_image_free(ctx, &j->dev[i]);
        gip_image_free(NULL, &j->host[i]);
    }
}

static int run_op(const cli_command *cmd, int argc, char **argv)
{
    const gip_op *op = cmd->op;
    const cli_op_extra *extra = cli_op_extra_find(op->name);
    int max_inputs = extra && extra->max_inputs > 1 ? extra->max_inputs : 1;
    int nreq = 0;
    for (int32_t k = 0; k < op->nparams; k++)
        nreq += required_positional(&op->params[k]);
    op_options oo;
    if (op_options_make(op, extra, &oo))
        return cli_runtime_error(cmd, "out of memory");
    const char **pos = calloc((size_t)(nreq + max_inputs + 1), sizeof *pos);
    gip_args *args = NULL;
    int rc, npos = 0;
    if (!pos || gip_args_create(op, &args)) {
        rc = cli_runtime_error(cmd, "out of memory");
        goto out_free;
    }
    cli_common common;
    if ((rc = cli_parse(cmd, argc, argv, (cli_opts){oo.v, oo.n}, &common, pos, 2,
                        nreq + max_inputs + 1, &npos)) ||
        (rc = set_options(cmd, extra, &oo, args)))
        goto out_free;

    /* Required positional parameters not given as options come first, then IN [IN2 ...] OUT. */
    int first = 0, absent = 0;
    char named[256] = "";
    size_t nlen = 0;
    for (int32_t k = 0; k < op->nparams; k++) {
        const gip_param *p = &op->params[k];
        if (!required_positional(p) || gip_args_is_set(args, p->name))
            continue;
        if (first < npos - 2) {
            if (gip_args_set_text(args, p->name, pos[first])) {
                rc = args_error(cmd);
                goto out_free;
            }
            first++;
            continue;
        }
        absent++;
        nlen += (size_t)snprintf(named + nlen, sizeof named - nlen, "%s %s ", oo.v[k].name,
                                 oo.v[k].metavar);
    }
    if (absent) {
        char usage[256];
        usage_arguments(op, extra, usage, sizeof usage);
        const char *files = strstr(usage, "IN ");
        rc = cli_usage(cmd, "missing argument (%d given, %d needed: %s, or %s%s)", npos,
                       first + absent + 2, usage, named, files ? files : usage);
        goto out_free;
    }
    int n_inputs = npos - first - 1;
    if (n_inputs > max_inputs) {
        rc = cli_usage(cmd, "unexpected argument '%s' (takes %d)", pos[first + max_inputs + 1],
                       first + max_inputs + 1);
        goto out_free;
    }
    /* The parameters' checks against each other run when they are built: before any file is
     * read, through the halo (which builds them). */
    int64_t hx, hy;
    if (!(op->flags & GIP_OP_WHOLE) && gip_op_halo(args, &hx, &hy)) {
        rc = args_error(cmd);
        goto out_free;
    }
    cli_op run = {GIP_LOAD_COLOR,           op_shape, NULL, op_run, NULL, args,
                  extra ? extra->flags : 0, args};
    inputs_job ij = {.args = args, .n = op->ninputs};
    if (op->ninputs > MAX_OP_INPUTS) {
        rc = cli_runtime_error(cmd, "reads %d images; the command line takes at most %d",
                               (int)op->ninputs, MAX_OP_INPUTS);
        goto out_free;
    }
    for (int32_t k = 0; k < op->ninputs; k++) {
        ij.paths[k] = oo.v[oo.input + k].value;
        if (!ij.paths[k] && !(op->inputs[k].flags & GIP_INPUT_OPTIONAL)) {
            rc = cli_usage(cmd, "missing %s FILE: %s", oo.v[oo.input + k].name, op->inputs[k].doc);
            goto out_free;
        }
    }
    if (op->ninputs) {
        run.shape = inputs_shape;
        run.prepare = inputs_prepare;
        run.run = inputs_run;
        run.release = inputs_release;
        run.data = &ij;
    }
    if (extra && extra->setup &&
        (rc = extra->setup(cmd, &common, args, pos + first, n_inputs, &run)))
        goto out_free;
    rc = cli_run_image(cmd, &common, &run, pos[first], pos[npos - 1]);
    if (extra && extra->cleanup)
        extra->cleanup(&run);

out_free:
    gip_args_free(args);
    free(pos);
    op_options_free(&oo);
    return rc;
}

/* Appends one argument to f, in single quotes unless it is a plain word. */
static void put_shell_word(FILE *f, const char *s)
{
    int plain = *s != '\0' && *s != '-';
    for (const char *c = s; *c && plain; c++)
        plain = isalnum((unsigned char)*c) || strchr("._,:+/=", *c);
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* One working command line from the declaration: required positional parameters from their
 * examples, the other parameters that have an example as options, required images as files. */
static char *make_example(const gip_op *op, const cli_op_extra *extra, const op_options *oo)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "gip %s", op->name);
    for (int32_t k = 0; k < op->nparams; k++) {
        const gip_param *p = &op->params[k];
        if (!p->example || required_positional(p))
            continue;
        fprintf(f, " %s ", oo->v[k].name);
        put_shell_word(f, p->example);
    }
    for (int32_t k = 0; k < op->ninputs; k++)
        if (!(op->inputs[k].flags & GIP_INPUT_OPTIONAL))
            fprintf(f, " %s %s.png", oo->v[oo->input + k].name, op->inputs[k].name);
    for (int32_t k = 0; k < op->nparams; k++)
        if (required_positional(&op->params[k])) {
            /* A long value (a 256-entry table) shows as its name in capitals. */
            const char *ex = op->params[k].example;
            char upper[NAME_MAX_LEN];
            if (!ex || strlen(ex) > 60) {
                upper_name(op->params[k].name, upper, sizeof upper);
                ex = upper;
            }
            fputc(' ', f);
            put_shell_word(f, ex);
        }
    (void)extra;
    fputs(" in.png out.png", f);
    fclose(f);
    return text;
}

int cli_op_command(const gip_op *op, cli_command *cmd)
{
    memset(cmd, 0, sizeof *cmd);
    const cli_op_extra *extra = cli_op_extra_find(op->name);
    op_options oo;
    if (op_options_make(op, extra, &oo))
        return -1;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        op_options_free(&oo);
        return -1;
    }
    write_help(f, op, extra, &oo);
    fclose(f);
    char *example = make_example(op, extra, &oo);
    op_options_free(&oo);
    if (!text || !example) {
        free(text);
        free(example);
        return -1;
    }
    cmd->example = example;
    cmd->name = op->name;
    cmd->summary = op->summary;
    cmd->run = run_op;
    cmd->help = text;
    cmd->common = OP_COMMON;
    cmd->op = op;
    return 0;
}

void cli_op_command_free(cli_command *cmd)
{
    free((char *)cmd->help);
    free((char *)cmd->example);
    cmd->help = NULL;
    cmd->example = NULL;
}
