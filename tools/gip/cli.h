/* SPDX-License-Identifier: MIT */
/* Shared pieces of the gip CLI: subcommands, the option parser, the single-operation runner, the
 * output files, the commands made from the operation registry and the batch progress printers. */
#ifndef GIP_CLI_H
#define GIP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "gip/gip.h"
#include "gip/op.h"
#include "gip/pipeline.h"

/* Exit statuses of the tool. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_RUNTIME                                                                           \
    1                    /* the library or the system failed: file missing, corrupt, no GPU ...    \
                          */
#define CLI_EXIT_USAGE 2 /* the command line was wrong */
#define CLI_HELP (-1)    /* the parser printed help: exit 0 */

/** One subcommand: its name, a one-line summary for `gip --help`, the function running it and the
 *  text `gip NAME --help` prints before the common options (its first line is the usage line). */
typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(const struct cli_command *cmd, int argc, char **argv); /* argv[0] is the name */
    const char *help;
    unsigned common;         /* CLI_COMMON_* groups of common options it accepts */
    void (*more_help)(void); /* prints generated help after `help`; may be NULL */
    const gip_op *op;        /* the registered operation of a generated command, else NULL */
    const char *example;     /* one typical command line, printed last by --help; may be NULL */
} cli_command;

/* Groups of common options, written once in options.c. */
#define CLI_COMMON_DEVICE 1u    /* --device, --threads, --repeat, --time, -v, --max-memory */
#define CLI_COMMON_SAVE 4u      /* --quality */
#define CLI_COMMON_UNCHANGED 8u /* --color (8-bit RGB), --unchanged (as stored, the default) */
#define CLI_COMMON_OUTPUT 16u   /* --overwrite: replace a read-only output */

/** Values of the common options after parsing (the parser sets defaults). */
typedef struct cli_common {
    gip_backend backend; /* from --device; AUTO by default */
    int32_t device;      /* CUDA ordinal from cuda:N */
    int32_t threads;     /* 0 = the library's default */
    int32_t quality;     /* 0 = the library's default (95) */
    int64_t repeat;      /* >= 1 */
    int time;
    int verbose;
    int color;     /* --color: load 8-bit RGB (the op's load_mode) instead of as stored */
    int overwrite; /* --overwrite */
} cli_common;

/** A subcommand's own option: the parser stores the raw value string (or "1" for a flag); the
 *  subcommand reads it by name with cli_opt_value() and converts it with the cli_parse_* helpers,
 *  which name the option in their messages. */
typedef struct cli_opt {
    const char *name;    /* "--ksize" */
    const char *metavar; /* "N|WxH"; NULL for a flag */
    const char *value;   /* out: the value given last, NULL when absent */
    unsigned flags;      /* CLI_OPT_* */
} cli_opt;

/* A flag that also takes 0|1 (or true|false): "--name" gives "1"; "--name=V" and "--name V",
 * the latter only when V is true, false or a number, give V. */
#define CLI_OPT_BOOL 1u

/** The options of a subcommand: a table of n. */
typedef struct cli_opts {
    cli_opt *v;
    int n;
} cli_opts;
#define CLI_OPTS(table) ((cli_opts){(table), (int)(sizeof(table) / sizeof((table)[0]))})
#define CLI_NO_OPTS ((cli_opts){NULL, 0})

/**
 * Parses argv[1..argc-1] of subcommand `cmd`: the common options of cmd->common, the options of
 * `opts`, and between min_pos and max_pos positional arguments stored in pos[] (count in *npos).
 * "--name value" and "--name=value" are accepted; "--" ends the options.
 * Returns 0, CLI_HELP after printing the help for -h/--help, or CLI_EXIT_USAGE after printing a
 * message to stderr.
 */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_opts opts, cli_common *common,
              const char **pos, int min_pos, int max_pos, int *npos);

/** The value option `name` of `opts` was given (NULL when absent). `name` must be one of the
 *  table's: another is a bug in the subcommand, reported and aborted. */
const char *cli_opt_value(cli_opts opts, const char *name);

/** Prints "gip NAME: message" and a pointer to --help on stderr; returns CLI_EXIT_USAGE. */
int cli_usage(const cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Prints "gip NAME: message" on stderr; returns CLI_EXIT_RUNTIME. */
int cli_runtime_error(const cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Copies a library message to `out` in the command line's terms: without the C function's
 *  "gip_xxx: " prefix and with C-level remedies ("set params->format") replaced by options.
 *  cli_usage(), cli_runtime_error(), cli_lib_error() and cli_op_error() apply it. */
void cli_clean_message(const char *in, char *out, size_t size);

/** Prints "gip NAME: <gip_last_error()>" on stderr; returns CLI_EXIT_RUNTIME. */
int cli_lib_error(const char *name, gip_status status);

/** An operation's own failure: a parameter the library refuses is a usage error (exit 2),
 *  anything else a runtime one; the message as cli_lib_error() (a registered command's in its
 *  option names, see cli_op_message()). */
int cli_op_error(const cli_command *cmd, gip_status status);

/** Prints the help of one subcommand (its text, then its common options) on stdout. */
void cli_print_help(const cli_command *cmd);

/** Prints one option line of a help text: "  --name METAVAR   help", continuation lines of the
 *  help ('\n' in it) aligned under its first character. */
void cli_print_opt(FILE *f, const char *alias, const char *name, const char *metavar,
                   const char *help);

/* Strict conversions of an option value; on error they print a message naming `opt` and what is
 * accepted (`accepted`) and return CLI_EXIT_USAGE; 0 on success. */
int cli_parse_int(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                  const char *accepted, int64_t *out);
int cli_parse_double(const cli_command *cmd, const char *opt, const char *s, double min, double max,
                     const char *accepted, double *out);
/** Parses "A,B" (two integers in [min, max]). */
int cli_parse_pair(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                   const char *accepted, int32_t *a, int32_t *b);
/** Parses a byte count (gip_parse_bytes: 256M, 4GiB), as GIP_MAX_MEMORY. */
int cli_parse_bytes(const cli_command *cmd, const char *opt, const char *s, int64_t *out);

/** Seconds on CLOCK_MONOTONIC. */
double cli_now(void);

/* ---- the single-operation runner (image_runner.c) -------------------------------------------- */

/** What a subcommand computes on one image. shape() gives the result's shape for an input (NULL:
 *  the input's), prepare() may allocate scratch or load more inputs in src's memory (NULL:
 *  nothing), run() computes once, release() frees what prepare() made. */
typedef struct cli_op {
    gip_load_mode load_mode; /* with --color; otherwise images load as stored */
    gip_status (*shape)(const gip_shape *in, gip_shape *out, void *data);
    gip_status (*prepare)(gip_context *ctx, const gip_image *src, void *data);
    gip_status (*run)(gip_context *ctx, const gip_image *src, gip_image *dst, void *data);
    void (*release)(gip_context *ctx, void *data);
    void *data;
    unsigned flags; /* CLI_OP_* */
    /* a registered operation's arguments: IN, a JPEG, is shrunk on load as it declares
     * (gip_op_load_reduce()); NULL: loaded whole */
    const gip_args *shrink;
} cli_op;

/* 8-bit results are computed from 8-bit data: a 16-bit input whose result is 8-bit is reduced to
 * 8 bits (x >> 8) first, and a note says so on stderr. */
#define CLI_OP_8BIT 1u

/**
 * Creates the context from the common options, loads `in`, uploads it when the context is a CUDA
 * one, runs op common->repeat times (synchronising after each run), downloads, saves `out`
 * atomically, and prints the timings with --time. Returns an exit status.
 */
int cli_run_image(const cli_command *cmd, const cli_common *common, const cli_op *op,
                  const char *in, const char *out);

/** Creates a context from the common options, printing the device line to stderr with -v. */
int cli_context(const cli_command *cmd, const cli_common *common, gip_context **ctx);

/** Copies a host image into a new image on the context's device, waiting for the copy;
 *  *seconds receives how long it took. */
gip_status cli_upload(gip_context *ctx, const gip_image *host, gip_image *dev, double *seconds);
/** Copies a device image into a new host image, waiting for the copy; *seconds receives how long
 *  it took. On failure nothing is left allocated. */
gip_status cli_download(gip_context *ctx, const gip_image *dev, gip_image *host, double *seconds);

/** Loads `path` with `lp` into *host for an operation on src: uploaded into *dev when src is on
 *  the device. *use is the copy in src's memory. What it allocated stays for the caller to free,
 *  on failure too. */
gip_status cli_load_beside(gip_context *ctx, const gip_image *src, const char *path,
                           const gip_load_params *lp, gip_image *host, gip_image *dev,
                           const gip_image **use);

/** The times of one command, printed by --time. runs holds `repeat` compute times. */
typedef struct cli_timings {
    double load, upload, download, save;
    double *runs;
    int64_t repeat;
} cli_timings;

/** Makes t->runs room for `repeat` times. 0, or the exit status once the message is printed. */
int cli_timings_alloc(const cli_command *cmd, cli_timings *t, int64_t repeat);

/** Prints the --time report: the device, then load (of `in`, described by `what`), upload,
 *  compute (median and min of t->runs, which it sorts), download and save (of `out`). */
void cli_print_times(const cli_command *cmd, gip_context *ctx, const char *in, const char *what,
                     const char *out, cli_timings *t);

/* ---- output files (output.c) ----------------------------------------------------------------- */

/**
 * Before any work: a usage-independent check that `out` may be written. An existing read-only
 * file needs --overwrite (a message naming it, CLI_EXIT_RUNTIME); a folder is refused. 0 when
 * writing may go on.
 */
int cli_check_output(const cli_command *cmd, const cli_common *common, const char *out);

/**
 * Saves the host image `img` to `out` with --quality and --overwrite. Where the format of `out`
 * cannot hold the image (JPEG: 8 bits, no alpha; PPM/PGM: no alpha) a copy is converted (alpha
 * dropped, 16 bits reduced to 8 as x >> 8) and a note on stderr says what was converted. `extra`
 * (may be NULL) adds save parameters (JPEG progressive, subsampling). Returns an exit status.
 */
int cli_save(const cli_command *cmd, const cli_common *common, const char *out,
             const gip_image *img, const gip_save_params *extra);

/** Non-zero when a file of format f (pnm_kind as gip_format_from_path) can hold channels x
 *  dtype. */
int cli_format_holds(gip_format f, int pnm_kind, int32_t channels, gip_dtype dtype);

/** Reduces a host u16 image to u8 (x >> 8) into a new host image (in place of *img). */
gip_status cli_to_8bit(gip_image *img);

/** Prints v as a JSON number, null where it is not finite (the --json reports). */
void cli_json_num(double v);
/** Prints s as a JSON string (quotes, backslashes and control characters escaped), null where s
 *  is NULL. */
void cli_json_str(const char *s);

/* ---- commands made from the operation registry (cmd_op.c, op_text.c, op_extras.c) ------------ */

/** The command of registered operation `op` (its help generated from the descriptor) into *cmd;
 *  free with cli_op_command_free(). */
int cli_op_command(const gip_op *op, cli_command *cmd);
void cli_op_command_free(cli_command *cmd);

/** `msg`, a library message about registered operation `op`, as the command line says it: the
 *  leading "NAME: " dropped and each parameter name written as its option (dx -> --dx,
 *  border_value -> --border-value), outside quotes. */
void cli_op_message(const gip_op *op, const char *msg, char *buf, size_t size);

/** Registry text shared by `gip ops`, the generated commands and `gip run --help`. */
const char *cli_param_type_name(gip_param_type type);
/** What a parameter accepts: "integer 0..6", "N or WxH, odd 0..1023", "reflect101, reflect". */
void cli_param_accepts(const gip_param *p, char *buf, size_t size);
/** The dtypes and channel counts an operation takes: "u8, u16, f32" and "1, 3, 4". */
void cli_op_dtypes(const gip_op *op, char *buf, size_t size);
void cli_op_channels(const gip_op *op, char *buf, size_t size);
/** The pipeline step's usage: "gaussian [[ksize=]ksize] [[sigma=]sigma] [border=V] ...". */
void cli_op_step_usage(const gip_op *op, char *buf, size_t size);

/** A flag the CLI keeps for an operation: `option` means `param`=`value`. */
typedef struct cli_op_alias {
    const char *option; /* "--unnormalized" */
    const char *param;  /* "normalize" */
    const char *value;  /* "0" */
} cli_op_alias;

/** What the CLI adds to a registered operation beyond its descriptor (most have nothing). */
typedef struct cli_op_extra {
    const char *name;            /* the operation */
    unsigned flags;              /* CLI_OP_* for the runner */
    const cli_op_alias *aliases; /* ended by {NULL}; may be NULL */
    int32_t max_inputs;          /* inputs before OUT (IN, IN2 ...); 0 means 1 */
    const char *help;            /* a paragraph for the help text; may be NULL */
    /* Called with the parsed arguments and the inputs before the run: may change the common
     * options and replace op's callbacks (the extra inputs of map). Returns an exit status. */
    int (*setup)(const cli_command *cmd, cli_common *common, const gip_args *args,
                 const char *const *inputs, int32_t n_inputs, cli_op *op);
    void (*cleanup)(cli_op *op); /* frees what setup() made; may be NULL */
} cli_op_extra;

/** The CLI's additions to operation `name`, or NULL. */
const cli_op_extra *cli_op_extra_find(const char *name);

/* ---- batch progress (progress.c) ---------------------------------------------------------------
 */

/** The state of a progress display for gip_batch_options.on_progress. */
typedef struct cli_progress {
    FILE *stream; /* stderr usually */
    int tty;      /* non-zero: redraw one line (isatty() of the stream) */
    double last;  /* when the last plain line was printed */
    int drawn;    /* a bar is on screen */
} cli_progress;

/** On a terminal, redraws one line "[####....] 37/120  31%  12.4 img/s  ETA 0:07  (1 failed)";
 *  otherwise prints a plain line at most every 5 s. */
void cli_progress_print(cli_progress *p, const gip_batch_progress *progress);
/** Clears a bar left on screen (call before printing other lines on a terminal). */
void cli_progress_clear(cli_progress *p);
/** Prints the batch summary: counts, wall time, images/s, and per-stage time per image. */
void cli_batch_summary(FILE *stream, const gip_batch_stats *stats);

/* ---- the hand-written subcommands (one file per group) ----------------------------------------
 */
extern const cli_command cli_cmd_devices; /* cmd_system.c */
extern const cli_command cli_cmd_info;    /* cmd_io.c */
extern const cli_command cli_cmd_convert; /* cmd_io.c */
extern const cli_command cli_cmd_fft;     /* cmd_fft.c */
extern const cli_command cli_cmd_ifft;    /* cmd_fft.c */
extern const cli_command cli_cmd_kernel;  /* cmd_kernel.c */
extern const cli_command cli_cmd_style;   /* cmd_style.c */
extern const cli_command cli_cmd_run;     /* cmd_run.c */
extern const cli_command cli_cmd_ops;     /* cmd_ops.c */
extern const cli_command cli_cmd_stats;   /* cmd_stats.c */
extern const cli_command cli_cmd_hist;    /* cmd_stats.c */

extern const cli_command cli_cmd_loader_bench; /* cmd_loader.c */

/* cmd_analysis.c */
extern const cli_command cli_cmd_components;
extern const cli_command cli_cmd_match;

#endif
