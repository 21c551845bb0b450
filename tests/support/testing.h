/* SPDX-License-Identifier: MIT */
/* The test harness shared by every C test: one executable per operation, run once per backend
 * ("cpu" or "cuda"), seeded random images of awkward sizes and strides, poisoned outputs, whole-
 * image comparison that prints the first mismatch. */
#ifndef GIP_TESTING_H
#define GIP_TESTING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gip/gip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status ctest reads as "skipped" (SKIP_RETURN_CODE). */
#define GT_SKIP 77

typedef enum gt_backend { GT_CPU = 0, GT_CUDA = 1 } gt_backend;

/* State of the running test. */
extern int gt_failures;
extern int gt_checks;
extern gt_backend gt_current_backend;

/* Records a check; prints file:line and the formatted message when it fails. */
bool gt_check(bool ok, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define GT_CHECK(cond, ...) gt_check((cond), __FILE__, __LINE__, __VA_ARGS__)

/* Checks that `expr` returns `expected`; for an error, also that a message was set (the thread's
 * message is not empty). */
bool gt_check_status(gip_status got, gip_status expected, const char *expr, const char *file,
                     int line);
#define GT_STATUS(expr, expected) gt_check_status((expr), (expected), #expr, __FILE__, __LINE__)
#define GT_OK(expr) GT_STATUS((expr), GIP_OK)

/* Runs `body` for the backend named by argv[1] ("cpu" or "cuda"; default cpu). For cuda with no
 * usable device, prints "SKIP: <reason>" and returns GT_SKIP. Returns 0 when every check passed,
 * 1 otherwise. The body gets a context of that backend. */
int gt_main(int argc, char **argv, const char *name, void (*body)(gip_context *ctx));

/* Whether the next case of a sliced test runs. GIP_TEST_SLICE=i/n (0 <= i < n) runs every n-th
 * case starting at case i, so that n processes together run every case once (compute-sanitizer's
 * slow tools run a long test as n short ones); unset, every case runs. A test calls it once per
 * case, in the same order on every run, and skips the case when it returns false. */
bool gt_case(void);

/* Whether GIP_TEST_SLICE splits the cases (n > 1): checks over every case (totals, counters) hold
 * only when it does not. */
bool gt_sliced(void);

/* Whether GIP_TEST_QUICK=1 asks for the quick set (runs under compute-sanitizer and other tools
 * that slow every access by orders of magnitude): tests leave out their largest cases. */
bool gt_quick(void);

/* Awkward sizes every operation is tested on: 1x1, 1x17, 17x1, 13x42, 64x48, 1001x777 (the last
 * is left out when GIP_TEST_QUICK=1). */
typedef struct gt_size {
    int64_t w, h;
} gt_size;
extern const gt_size gt_sizes[];
extern int gt_nsizes;

/* Deterministic random generator (splitmix64). */
uint64_t gt_rand_u64(uint64_t *state);
double gt_rand_unit(uint64_t *state); /* [0, 1) */

/* Allocates a host image whose stride is the tight row size plus `pad` bytes, rounded up to a whole
 * element (pad 0: tight); the
 * padding bytes are poisoned with 0xA5. Aborts the test on allocation failure. Free with
 * gt_free(). */
void gt_alloc(gip_image *img, int64_t w, int64_t h, int32_t c, gip_dtype dt, int64_t pad);
/* The padding that makes a row of w x c elements of dt a whole number of 16-byte units (the packed
 * CUDA 3x3 kernels' case: gt_alloc's buffers start 16-byte aligned). */
int64_t gt_pad16(int64_t w, int32_t c, gip_dtype dt);
/* Sets the environment variable `var` to `value` (NULL unsets it) and has the library read its
 * switches again (src/core/tuning.h: it reads them once, at first use). */
void gt_setenv(const char *var, const char *value);
/* Runs fn(ctx) once more on a CUDA context with the environment variable `var` set to `value` (a
 * tuning knob of a GPU kernel), printing `what`, and unsets it; nothing elsewhere. */
void gt_cuda_with_env(gip_context *ctx, const char *var, const char *value, const char *what,
                      void (*fn)(gip_context *ctx));
void gt_free(gip_image *img);

/* Fills a host image with seeded random values: u8/u16/s16 over their full range, f32 in
 * [lo, hi) (u8-like values 0..255 when lo == hi == 0). */
void gt_fill_random(gip_image *img, uint64_t seed, float lo, float hi);

/* Fills every byte of the image's pixels (not its padding) with `value`. */
void gt_poison(gip_image *img, uint8_t value);

/* True when the padding bytes between rows still hold 0xA5 (nothing wrote outside the pixels). */
bool gt_padding_intact(const gip_image *img);

/* Compares two host images of the same shape. Integer dtypes exactly; f32 with
 * |got - exp| <= atol + rtol * |exp| (NaN never passes). Prints the first mismatch with x, y,
 * channel, got and expected, and the count of mismatches. Returns true when equal. */
bool gt_compare(const gip_image *got, const gip_image *exp, double atol, double rtol,
                const char *label);

/* Element (x, y, c) of a host image as double. */
double gt_get(const gip_image *img, int64_t x, int64_t y, int32_t c);
/* Stores v into element (x, y, c) with the dtype's rounding and saturation (half to even). */
void gt_set(gip_image *img, int64_t x, int64_t y, int32_t c, double v);

/* A unary operation under test, run on whatever memory the views live in. */
typedef gip_status (*gt_unary_fn)(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  const void *params);

/* Runs `fn` on the context's backend with host images in and out: on CUDA, device images with the
 * host views' strides (padded, odd or tight alike), src uploaded, dst uploaded poisoned (byte
 * `poison`, padding as the host has it), run, and the whole dst buffer downloaded back, padding
 * included; on the CPU, poisons dst and runs directly. Returns the operation's status. */
gip_status gt_run_unary(gip_context *ctx, gt_unary_fn fn, const gip_image *src, gip_image *dst,
                        const void *params, uint8_t poison);

/* Runs a registered operation (gip_op_apply_inputs) as gt_run_unary runs fn: on CUDA the extra
 * inputs (n of them, NULL where absent) are uploaded with src. */
gip_status gt_run_op(gip_context *ctx, const gip_args *args, const gip_image *src,
                     const gip_image *const *inputs, int32_t n, gip_image *dst, uint8_t poison);

/* A registered operation's arguments with every parameter that has an example set to it (every
 * required one has one: checked). NULL (and a failed check) when they cannot be made. */
gip_args *gt_example_args(const gip_op *op);

/* The extra input images of op for src, as declared (src's size; src's dtype and channels where
 * the input has src's type, else the widest dtype it accepts and src's channels or the first
 * count it accepts), filled with seeded random values. Returns op->ninputs; free each with
 * gt_free(). */
int32_t gt_make_inputs(const gip_op *op, const gip_image *src, uint64_t seed, gip_image *in);

/* A file's bytes (malloc'd; *len set), or NULL when it cannot be read. */
void *gt_read_file(const char *path, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
