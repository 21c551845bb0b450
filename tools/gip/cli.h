/* SPDX-License-Identifier: MIT */
/* Shared pieces of the gip CLI: the subcommand table, the option parser, the image pipeline. */
#ifndef GIP_CLI_H
#define GIP_CLI_H

#include <stdint.h>

#include "gip/gip.h"

/* Exit statuses of the tool. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_RUNTIME                                                                           \
    1                    /* the library or the system failed: file missing, corrupt, no GPU ...    \
                          */
#define CLI_EXIT_USAGE 2 /* the command line was wrong */
#define CLI_HELP (-1)    /* the parser printed help: exit 0 */

/** One subcommand: its name, a one-line summary for `gip --help`, the function running it and the
 *  text `gip NAME --help` prints before the common options. */
typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(const struct cli_command *cmd, int argc, char **argv); /* argv[0] is the name */
    const char *help;
    unsigned common; /* CLI_COMMON_* groups of common options it accepts */
} cli_command;

/* Groups of common options, written once in options.c. */
#define CLI_COMMON_DEVICE 1u    /* --device, --threads, --repeat, --time, -v/--verbose */
#define CLI_COMMON_BORDER 2u    /* --border, --border-value */
#define CLI_COMMON_SAVE 4u      /* --quality */
#define CLI_COMMON_UNCHANGED 8u /* --color (8-bit RGB), --unchanged (as stored, the default) */
#define CLI_COMMON_OUTPUT 16u   /* --overwrite: replace a read-only output */

/** Values of the common options after parsing (zero-initialise; the parser sets defaults). */
typedef struct cli_common {
    gip_backend backend; /* from --device; AUTO by default */
    int32_t device;      /* CUDA ordinal from cuda:N */
    int32_t threads;     /* 0 = the library's default */
    gip_border_spec border;
    int32_t quality; /* 0 = the library's default (95) */
    int64_t repeat;  /* >= 1 */
    int time;
    int verbose;
    int color;     /* --color: load 8-bit RGB (the op's load_mode) instead of as stored */
    int overwrite; /* --overwrite */
} cli_common;

/** A subcommand's own option: the parser stores the raw value string (or "1" for a flag); the
 *  subcommand converts it with the cli_parse_* helpers, which name the option in their messages. */
typedef struct cli_opt {
    const char *name;    /* "--ksize" */
    const char *metavar; /* "N|WxH"; NULL for a flag */
    const char *value;   /* out: the value given last, NULL when absent */
} cli_opt;

/**
 * Parses argv[1..argc-1] of subcommand `cmd`: the common options of cmd->common, the options in
 * opts[0..nopts-1], and between min_pos and max_pos positional arguments stored in pos[] (count in
 * *npos). "--name value" and "--name=value" are accepted; "--" ends the options.
 * Returns 0, CLI_HELP after printing the help for -h/--help, or CLI_EXIT_USAGE after printing a
 * message to stderr.
 */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_opt *opts, int nopts,
              cli_common *common, const char **pos, int min_pos, int max_pos, int *npos);

/** Prints "gip NAME: message" and a pointer to --help on stderr; returns CLI_EXIT_USAGE. */
int cli_usage(const cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Prints "gip NAME: <gip_last_error()>" on stderr; returns CLI_EXIT_RUNTIME. */
int cli_lib_error(const char *name, gip_status status);

/** Prints the help of one subcommand (its text, then its common options) on stdout. */
void cli_print_help(const cli_command *cmd);

/* Strict conversions of an option value; on error they print a message naming `opt` and what is
 * accepted (`accepted`) and return CLI_EXIT_USAGE; 0 on success. */
int cli_parse_int(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                  const char *accepted, int64_t *out);
int cli_parse_double(const cli_command *cmd, const char *opt, const char *s, double min, double max,
                     const char *accepted, double *out);
/** Parses "N" (square) or "WxH" into two integers in [min, max]. */
int cli_parse_size(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                   const char *accepted, int32_t *w, int32_t *h);
/** Parses "A,B" (two integers in [min, max]). */
int cli_parse_pair(const cli_command *cmd, const char *opt, const char *s, int64_t min, int64_t max,
                   const char *accepted, int32_t *a, int32_t *b);
/** Parses 1..max_count comma-separated finite doubles; *count receives how many. */
int cli_parse_list(const cli_command *cmd, const char *opt, const char *s, int max_count,
                   const char *accepted, double *out, int *count);

/** strtod for the decimal numbers the CLI accepts: [+|-] digits [. [digits]] [e[+|-]digits] or
 *  [+|-] . digits [exponent]; hex floats, inf, nan and leading spaces are not numbers (*end == s
 *  then), as in the expression language (docs/expressions.md). */
double cli_strtod(const char *s, char **end);

/** Seconds on CLOCK_MONOTONIC. */
double cli_now(void);

/* ---- the image pipeline shared by every filter subcommand ----------------------------------- */

/** What a subcommand computes: prepare() says the output's channels and dtype for an input (and
 *  may allocate scratch in src's memory), run() computes once, release() frees the scratch. */
typedef struct cli_op {
    gip_load_mode load_mode; /* with --color; otherwise images load as stored */
    gip_status (*prepare)(gip_context *ctx, const gip_image *src, int32_t *channels,
                          gip_dtype *dtype, void *data);
    gip_status (*run)(gip_context *ctx, const gip_image *src, gip_image *dst, void *data);
    void (*release)(gip_context *ctx, void *data);
    void *data;
    unsigned flags; /* CLI_OP_* */
} cli_op;

/* The operation computes from 8-bit data: a 16-bit input is reduced to 8 bits (x >> 8) first, and
 * a note says so on stderr. */
#define CLI_OP_8BIT 1u

/**
 * Creates the context from the common options, loads `in`, uploads it when the context is a CUDA
 * one, runs op common->repeat times (synchronising after each run), downloads, saves `out`
 * atomically, and prints the timings with --time. Returns an exit status.
 */
int cli_pipeline(const cli_command *cmd, const cli_common *common, const cli_op *op, const char *in,
                 const char *out);

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

/** The format gip_image_save() gives `path` from its extension (*pnm_kind 1 for .pgm, 3 for .ppm,
 *  else 0), GIP_FORMAT_AUTO when none. */
gip_format cli_path_format(const char *path, int *pnm_kind);

/** Non-zero when a file of format f (pnm_kind as cli_path_format) can hold channels x dtype. */
int cli_format_holds(gip_format f, int pnm_kind, int32_t channels, gip_dtype dtype);

/** Reduces a host u16 image to u8 (x >> 8) into a new host image (in place of *img). */
gip_status cli_to_8bit(gip_image *img);

/** Creates a context from the common options, printing the device line to stderr with -v. */
int cli_context(const cli_command *cmd, const cli_common *common, gip_context **ctx);

/* ---- the subcommands (one file per group) --------------------------------------------------- */
extern const cli_command cli_cmd_devices;  /* cmd_system.c */
extern const cli_command cli_cmd_info;     /* cmd_io.c */
extern const cli_command cli_cmd_convert;  /* cmd_io.c */
extern const cli_command cli_cmd_gray;     /* cmd_color.c */
extern const cli_command cli_cmd_invert;   /* cmd_filter.c */
extern const cli_command cli_cmd_box;      /* cmd_filter.c */
extern const cli_command cli_cmd_filter;   /* cmd_filter.c */
extern const cli_command cli_cmd_sobel;    /* cmd_filter.c */
extern const cli_command cli_cmd_edges;    /* cmd_filter.c */
extern const cli_command cli_cmd_gaussian; /* cmd_filter.c */

#endif
