/* SPDX-License-Identifier: MIT */
/* The CLI's option parser, written once: common options, strict number parsing, usage messages. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

enum common_id {
    OPT_DEVICE,
    OPT_THREADS,
    OPT_REPEAT,
    OPT_TIME,
    OPT_VERBOSE,
    OPT_MAX_MEMORY,
    OPT_QUALITY,
    OPT_UNCHANGED,
    OPT_COLOR,
    OPT_OVERWRITE,
    OPT_COUNT
};

/* The common options: name, short alias, metavar (NULL for flags), group, help. */
static const struct common_opt {
    const char *name;
    const char *alias;
    const char *metavar;
    unsigned group;
    const char *help;
} common_opts[OPT_COUNT] = {
    [OPT_DEVICE] = {"--device", NULL, "auto|cpu|cuda|cuda:N", CLI_COMMON_DEVICE,
                    "where to compute (default auto: the first usable CUDA\n"
                    "device, else the CPU)"},
    [OPT_THREADS] = {"--threads", NULL, "N", CLI_COMMON_DEVICE,
                     "CPU threads, 0..4096 (default 0: OMP_NUM_THREADS where\n"
                     "set, else one per core)"},
    [OPT_REPEAT] = {"--repeat", NULL, "N", CLI_COMMON_DEVICE,
                    "run the operation N times, 1..1000000 (default 1)"},
    [OPT_TIME] = {"--time", NULL, NULL, CLI_COMMON_DEVICE,
                  "print the device line and the load, upload, compute (median\n"
                  "and min over the runs), download and save times"},
    [OPT_VERBOSE] = {"--verbose", "-v", NULL, CLI_COMMON_DEVICE,
                     "print the device in use on stderr"},
    [OPT_MAX_MEMORY] = {"--max-memory", NULL, "BYTES", CLI_COMMON_DEVICE,
                        "host memory a whole image may take, e.g. 512M or 4G\n"
                        "(default: GIP_MAX_MEMORY, else a quarter of the memory);\n"
                        "an image above it is refused from its header, before\n"
                        "loading (gip run streams it by rows instead)"},
    [OPT_QUALITY] = {"--quality", NULL, "N", CLI_COMMON_SAVE,
                     "JPEG quality of the output, 1..100 (default 95)"},
    [OPT_UNCHANGED] = {"--unchanged", NULL, NULL, CLI_COMMON_UNCHANGED,
                       "keep channels and depth as stored (gray, RGB, RGBA;\n"
                       "8 or 16 bits): the default"},
    [OPT_COLOR] = {"--color", NULL, NULL, CLI_COMMON_UNCHANGED,
                   "load as 8-bit RGB instead (cv2.IMREAD_COLOR: gray\n"
                   "replicated, alpha dropped, 16 bits reduced to 8)"},
    [OPT_OVERWRITE] = {"--overwrite", NULL, NULL, CLI_COMMON_OUTPUT,
                       "replace an existing output even when it is read-only\n"
                       "(without it a read-only output is refused)"},
};

/* Library messages name the C function that found the problem ("gip_image_load: ...") and
 * sometimes a C-level remedy ("set params->format"); a command's user knows neither. These are
 * the remedies written in the command's own terms. */
static const struct {
    const char *from, *to;
} cli_phrases[] = {
    {", or set params->format", ""},
    {"GIP_MAX_MEMORY, which the CLI's --max-memory sets", "--max-memory or GIP_MAX_MEMORY"},
    {"; set gip_load_params.max_memory, GIP_MAX_MEMORY or the CLI's --max-memory to raise it, or "
     "stream the file by rows: gip run, gip_pipeline_run_file_bounded)",
     "; raise it with --max-memory, or stream the file by rows with gip run)"},
};

/* Copies `in` to `out` without "gip_xxx: " function prefixes and with cli_phrases replaced. */
void cli_clean_message(const char *in, char *out, size_t size)
{
    size_t o = 0;
    while (*in && o + 1 < size) {
        if (strncmp(in, "gip_", 4) == 0 && (o == 0 || out[o - 1] == ' ')) {
            const char *e = in + 4;
            while ((*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9') || *e == '_')
                e++;
            if (e[0] == ':' && e[1] == ' ') {
                in = e + 2;
                continue;
            }
        }
        size_t k = 0;
        for (; k < sizeof cli_phrases / sizeof cli_phrases[0]; k++) {
            size_t n = strlen(cli_phrases[k].from);
            if (strncmp(in, cli_phrases[k].from, n) == 0) {
                for (const char *t = cli_phrases[k].to; *t && o + 1 < size; t++)
                    out[o++] = *t;
                in += n;
                break;
            }
        }
        if (k == sizeof cli_phrases / sizeof cli_phrases[0])
            out[o++] = *in++;
    }
    out[o] = '\0';
}

static void cli_vreport(const cli_command *cmd, const char *fmt, va_list ap)
{
    char raw[16384], msg[16384];
    vsnprintf(raw, sizeof raw, fmt, ap);
    cli_clean_message(raw, msg, sizeof msg);
    fprintf(stderr, "gip %s: %s\n", cmd->name, msg);
}

int cli_usage(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vreport(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'gip %s --help'.\n", cmd->name);
    return CLI_EXIT_USAGE;
}

int cli_runtime_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vreport(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_RUNTIME;
}

int cli_lib_error(const char *name, gip_status status)
{
    const char *msg = gip_last_error();
    char clean[4096];
    if (!msg || !*msg)
        msg = gip_status_string(status);
    cli_clean_message(msg, clean, sizeof clean);
    fprintf(stderr, "gip %s: %s\n", name, clean);
    return CLI_EXIT_RUNTIME;
}

int cli_op_error(const cli_command *cmd, gip_status status)
{
    if (cmd->op) {
        char msg[1024];
        const char *m = gip_last_error();
        char clean[1024];
        cli_op_message(cmd->op, m && *m ? m : gip_status_string(status), msg, sizeof msg);
        cli_clean_message(msg, clean, sizeof clean);
        fprintf(stderr, "gip %s: %s\n", cmd->name, clean);
    } else {
        cli_lib_error(cmd->name, status);
    }
    return gip_status_group(status) == GIP_ERR_INVALID_ARGUMENT ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
}

void cli_print_opt(FILE *f, const char *alias, const char *name, const char *metavar,
                   const char *help)
{
    char left[96];
    snprintf(left, sizeof left, "%s%s%s%s%s", alias ? alias : "", alias ? ", " : "", name,
             metavar ? " " : "", metavar ? metavar : "");
    if (strlen(left) <= 20)
        fprintf(f, "  %-20s ", left);
    else
        fprintf(f, "  %s\n  %-20s ", left, "");
    /* Continuation lines of the help start under its first character. */
    for (const char *p = help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "  %-20s ", "");
    }
    fputc('\n', f);
}

/* True when the subcommand's own help lists option `name` ("\n  --name "): its own option of that
 * name, which cli_parse() prefers to the common one. */
static int lists_own(const cli_command *cmd, const char *name)
{
    for (const char *p = cmd->help; (p = strstr(p, name)); p++)
        if (p - cmd->help >= 3 && strncmp(p - 3, "\n  ", 3) == 0 &&
            (p[strlen(name)] == ' ' || p[strlen(name)] == '\n'))
            return 1;
    return 0;
}

void cli_print_help(const cli_command *cmd)
{
    fputs(cmd->help, stdout);
    if (cmd->more_help)
        cmd->more_help();
    printf("\nCommon options:\n");
    for (int i = 0; i < OPT_COUNT; i++)
        if ((cmd->common & common_opts[i].group) && !lists_own(cmd, common_opts[i].name))
            cli_print_opt(stdout, common_opts[i].alias, common_opts[i].name, common_opts[i].metavar,
                          common_opts[i].help);
    cli_print_opt(stdout, "-h", "--help", NULL, "show this help and exit");
    if (cmd->example)
        printf("\nExample:\n  %s\n", cmd->example);
}

/* The longest number text the option parser reads, with its NUL. */
#define NUMBER_TEXT 64

/* Copies the characters s[0..len) of a number to buf as a string; false when they are none,
 * start with white space (which strtoll and strtod would skip) or do not fit. */
static int number_text(const char *s, size_t len, char buf[NUMBER_TEXT])
{
    if (len == 0 || len >= NUMBER_TEXT || isspace((unsigned char)s[0]))
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return 1;
}

/* Converts the characters s[0..len) to an integer; false unless all of them form one. */
static int to_ll(const char *s, size_t len, long long *out)
{
    char buf[NUMBER_TEXT];
    if (!number_text(s, len, buf))
        return 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

/* Converts s[0..len) to a finite double; false unless all of them form one. */
static int to_double(const char *s, size_t len, double *out)
{
    char buf[NUMBER_TEXT];
    if (!number_text(s, len, buf))
        return 0;
    char *end;
    errno = 0;
    double v = gip_strtod(buf, &end);
    if (errno || end == buf || *end != '\0' || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

int cli_parse_int(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                  const char *accepted, int64_t *out)
{
    long long v;
    if (!to_ll(s, strlen(s), &v))
        return cli_usage(cmd, "%s: '%s' is not an integer; accepted: %s", opt, s, accepted);
    if (v < min || v > max)
        return cli_usage(cmd, "%s: %lld is out of range; accepted: %s", opt, v, accepted);
    *out = v;
    return 0;
}

int cli_parse_double(const cli_command *cmd, const char *opt, const char *s, double min, double max,
                     const char *accepted, double *out)
{
    double v;
    if (!to_double(s, strlen(s), &v))
        return cli_usage(cmd, "%s: '%s' is not a finite number; accepted: %s", opt, s, accepted);
    if (v < min || v > max)
        return cli_usage(cmd, "%s: %g is out of range; accepted: %s", opt, v, accepted);
    *out = v;
    return 0;
}

int cli_parse_pair(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                   const char *accepted, int32_t *a, int32_t *b)
{
    size_t split = strcspn(s, ",");
    long long va = 0, vb = 0;
    if (s[split] == '\0' || !to_ll(s, split, &va) ||
        !to_ll(s + split + 1, strlen(s + split + 1), &vb))
        return cli_usage(cmd, "%s: '%s' is malformed; accepted: %s", opt, s, accepted);
    if (va < min || va > max || vb < min || vb > max)
        return cli_usage(cmd, "%s: '%s' is out of range; accepted: %s", opt, s, accepted);
    *a = (int32_t)va;
    *b = (int32_t)vb;
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_parse_bytes(const cli_command *cmd, const char *opt, const char *text, int64_t *out)
{
    if (!gip_parse_bytes(text, out))
        return cli_usage(cmd,
                         "%s: '%s' is not a byte count; accepted: a positive integer with an "
                         "optional K, M, G or T suffix (e.g. 512M)",
                         opt, text);
    return 0;
}

/* Converts the raw values of the common options into `common`. */
static int convert_common(const cli_command *cmd, const char *const raw[OPT_COUNT],
                          cli_common *common)
{
    int64_t v;
    int rc;
    const char *s;
    if ((s = raw[OPT_DEVICE])) {
        static const char accepted[] = "auto, cpu, cuda or cuda:N (N = device index 0..1023)";
        if (strcmp(s, "auto") == 0) {
            common->backend = GIP_BACKEND_AUTO;
        } else if (strcmp(s, "cpu") == 0) {
            common->backend = GIP_BACKEND_CPU;
        } else if (strcmp(s, "cuda") == 0) {
            common->backend = GIP_BACKEND_CUDA;
        } else if (strncmp(s, "cuda:", 5) == 0) {
            if ((rc = cli_parse_int(cmd, "--device", s + 5, 0, 1023, accepted, &v)))
                return rc;
            common->backend = GIP_BACKEND_CUDA;
            common->device = (int32_t)v;
        } else {
            return cli_usage(cmd, "--device: unknown device '%s'; accepted: %s", s, accepted);
        }
    }
    if (raw[OPT_THREADS]) {
        if ((rc = cli_parse_int(cmd, "--threads", raw[OPT_THREADS], 0, 4096,
                                "0 (one per core) or 1..4096", &v)))
            return rc;
        common->threads = (int32_t)v;
    }
    if (raw[OPT_REPEAT]) {
        if ((rc = cli_parse_int(cmd, "--repeat", raw[OPT_REPEAT], 1, 1000000, "1..1000000", &v)))
            return rc;
        common->repeat = v;
    }
    common->time = raw[OPT_TIME] != NULL;
    common->verbose = raw[OPT_VERBOSE] != NULL;
    if (raw[OPT_MAX_MEMORY]) {
        /* The library's default limit (gip_default_max_memory()) for every load of this run. */
        if ((rc = cli_parse_bytes(cmd, "--max-memory", raw[OPT_MAX_MEMORY], &v)))
            return rc;
        char bytes[32];
        snprintf(bytes, sizeof bytes, "%lld", (long long)v);
        setenv("GIP_MAX_MEMORY", bytes, 1);
    }
    if (raw[OPT_UNCHANGED] && raw[OPT_COLOR])
        return cli_usage(cmd, "--unchanged and --color exclude each other");
    common->color = raw[OPT_COLOR] != NULL;
    common->overwrite = raw[OPT_OVERWRITE] != NULL;
    if (raw[OPT_QUALITY]) {
        if ((rc = cli_parse_int(cmd, "--quality", raw[OPT_QUALITY], 1, 100, "1..100", &v)))
            return rc;
        common->quality = (int32_t)v;
    }
    return 0;
}

/* Finds a common option accepted by `cmd` by name or alias; -1 when none, -2 when it exists but
 * does not apply to this subcommand. */
static int find_common(const cli_command *cmd, const char *name, size_t len)
{
    for (int i = 0; i < OPT_COUNT; i++) {
        const struct common_opt *o = &common_opts[i];
        int match = (strlen(o->name) == len && strncmp(o->name, name, len) == 0) ||
                    (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0);
        if (match)
            return (cmd->common & o->group) ? i : -2;
    }
    return -1;
}

/* Whether the argument after a CLI_OPT_BOOL option is its value: true or false, or a number
 * (which the option's own check refuses unless it is 0 or 1), not an image path. */
static int bool_value(const char *s)
{
    char *end;
    if (!strcmp(s, "true") || !strcmp(s, "false"))
        return 1;
    gip_strtod(s, &end);
    return end != s && *end == '\0';
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_opts opts, cli_common *common,
              const char **pos, int min_pos, int max_pos, int *npos)
{
    memset(common, 0, sizeof *common);
    common->repeat = 1;
    for (int i = 0; i < opts.n; i++)
        opts.v[i].value = NULL;
    *npos = 0;

    /* Help wins over every other mistake on the line. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_print_help(cmd);
            return CLI_HELP;
        }

    const char *raw[OPT_COUNT] = {0};
    int options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = 1;
            continue;
        }
        /* "-" and negative numbers ("-1", "-.5") are arguments: no option starts so. */
        if (options_done || a[0] != '-' || a[1] == '\0' || isdigit((unsigned char)a[1]) ||
            a[1] == '.') {
            if (*npos == max_pos)
                return cli_usage(cmd, "unexpected argument '%s' (takes %d)", a, max_pos);
            pos[(*npos)++] = a;
            continue;
        }
        /* An option: "--name", "--name=value" or "-v". */
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const cli_opt *own = NULL;
        const char **slot = NULL;
        const char *metavar = NULL;
        int c = -1;
        /* A subcommand's own option wins over a common one of the same name (run's
         * --max-memory, which also streams). */
        for (int k = 0; k < opts.n; k++)
            if (strlen(opts.v[k].name) == len && strncmp(opts.v[k].name, a, len) == 0) {
                own = &opts.v[k];
                metavar = own->metavar;
                slot = &opts.v[k].value;
                break;
            }
        if (!slot && (c = find_common(cmd, a, len)) >= 0) {
            metavar = common_opts[c].metavar;
            slot = &raw[c];
        }
        if (!slot) {
            if (c == -2)
                return cli_usage(cmd, "option '%.*s' does not apply to this subcommand", (int)len,
                                 a);
            return cli_usage(cmd, "unknown option '%.*s'", (int)len, a);
        }
        if (own && (own->flags & CLI_OPT_BOOL)) {
            if (eq)
                *slot = eq + 1;
            else if (i + 1 < argc && bool_value(argv[i + 1]))
                *slot = argv[++i];
            else
                *slot = "1";
        } else if (!metavar) {
            if (eq)
                return cli_usage(cmd, "option '%.*s' takes no value", (int)len, a);
            *slot = "1";
        } else if (eq) {
            *slot = eq + 1;
        } else if (i + 1 < argc) {
            *slot = argv[++i];
        } else {
            return cli_usage(cmd, "option '%s' needs a value: %s", a, metavar);
        }
    }
    if (*npos < min_pos) {
        /* The help text's first line is the usage line. */
        const char *nl = strchr(cmd->help, '\n');
        int ulen = nl ? (int)(nl - cmd->help) : (int)strlen(cmd->help);
        return cli_usage(cmd, "missing argument (%d given, %d needed)\n%.*s", *npos, min_pos, ulen,
                         cmd->help);
    }
    return convert_common(cmd, raw, common);
}

const char *cli_opt_value(cli_opts opts, const char *name)
{
    for (int k = 0; k < opts.n; k++)
        if (strcmp(opts.v[k].name, name) == 0)
            return opts.v[k].value;
    fprintf(stderr, "gip: internal error: option %s is not declared\n", name);
    abort();
}
