/* SPDX-License-Identifier: MIT */
/* Entry points shared by the libFuzzer targets (fuzz/fuzz_*.c) and the crash replay test
 * (tests/test_crashers.c): each takes arbitrary bytes, drives one parser of gip and checks what it
 * returns; a broken promise (a success that is not one, an error without a message, an output
 * changed by a failing call) aborts, so that the fuzzer reports it as a crash. */
#ifndef GIP_FUZZ_ENTRIES_H
#define GIP_FUZZ_ENTRIES_H

#include <stddef.h>
#include <stdint.h>

#include "gip/gip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decoding limits used while fuzzing: small enough that every accepted header decodes in
 * milliseconds under ASan, large enough for every seed. */
#define GIP_FUZZ_MAX_PIXELS ((int64_t)1 << 20)
#define GIP_FUZZ_MAX_DIM ((int64_t)1 << 14)

/** Probes and decodes `data` from memory (gip_image_probe_memory, gip_image_decode) in two load
 *  modes; a small decoded image is encoded again in its format and decoded back (lossless
 *  formats must give the same pixels). `format` != AUTO: data that does not start with that
 *  format's signature gets the signature put in front, so that a target stays in its codec. */
int gip_fuzz_decode(const uint8_t *data, size_t size, gip_format format);

/** Writes `data` to an anonymous in-memory file and loads it as VGG19 safetensors weights
 *  (gip_vgg19_load has no from-memory form; the file is /proc/self/fd/N of a memfd). */
int gip_fuzz_safetensors(const uint8_t *data, size_t size);

/** First byte: map or stencil, dtype, channels, border; the rest: the expression text, run by
 *  gip_map / gip_stencil on small host images with two named scalars (k, t). */
int gip_fuzz_expr(const uint8_t *data, size_t size);

/** The pipeline parser (gip_pipeline_parse) and a run of what it accepts on a small image. */
int gip_fuzz_pipeline(const uint8_t *data, size_t size);

/** Most CLI arguments a fuzz input may give and the bytes they may hold together. */
#define GIP_FUZZ_CLI_MAX_ARGS 24
#define GIP_FUZZ_CLI_MAX_BYTES 4096

/**
 * Splits `data` at newlines into a gip command line: argv[0] = "gip", then one argument per line
 * (at most GIP_FUZZ_CLI_MAX_ARGS). Every '/' becomes '_' so that every path is a name in the
 * current folder (the caller runs in a scratch folder). Returns argc, or -1 when the input is not
 * run: too long, or asking for work whose cost is not bounded by parsing (style transfer without
 * --weights, which would build a random VGG19; --repeat or --threads above 4 or 0). `buf`
 * (size >= size + 8)
 * receives the strings.
 */
int gip_fuzz_cli_argv(const uint8_t *data, size_t size, char *buf, char **argv);

/** Names of the small images gip_fuzz_cli_inputs() writes into the current folder. */
extern const char *const gip_fuzz_cli_input_names[];

/** Writes the CLI's input images (8x6 pixels: in.png, in.jpg, in.pgm, in.ppm, gray.png) into the
 *  current folder. 0 on success. */
int gip_fuzz_cli_inputs(void);

#ifdef __cplusplus
}
#endif
#endif
