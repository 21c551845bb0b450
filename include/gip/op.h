/* SPDX-License-Identifier: MIT */
/* The operation registry: one description per operation (its name, documentation, parameters
 * with types, defaults, ranges and choices, the dtypes and channel counts it accepts, whether it
 * is point-wise, its halo and output shape), from which the pipeline parser and executor, the
 * command-line tool, the Python package, Dask, the reference documentation and the table-driven
 * tests are made. The typed functions (gip_gaussian_blur(), ...) stay the stable C API; an
 * operation run through the registry calls them. */
#ifndef GIP_OP_H
#define GIP_OP_H

#include <stddef.h>

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- parameters ---------------------------------------------------------------------------- */

/** The type of a parameter, and how its value is written as text (pipelines, the CLI). */
typedef enum gip_param_type {
    GIP_PARAM_INT,    /**< an integer in [min, max]: "3" */
    GIP_PARAM_DOUBLE, /**< a decimal number in [min, max]: "1.5" */
    GIP_PARAM_BOOL,   /**< 0 or 1: "1" (also "true"/"false") */
    GIP_PARAM_CHOICE, /**< one of the named choices: "reflect101" */
    GIP_PARAM_SIZE,   /**< width and height in [min, max]: "15" (square) or "15x9" */
    GIP_PARAM_LIST,   /**< 1 to `count` decimal numbers in [min, max]: "2" or "2,3" */
    GIP_PARAM_STRING, /**< free text (an expression): "out = 255 - in" */
    GIP_PARAM_MATRIX, /**< rows of numbers (a kernel): "1,2,1;2,4,2;1,2,1", fractions allowed */
} gip_param_type;

/** Parameter flags. */
enum {
    GIP_PARAM_POSITIONAL = 1u << 0, /**< may be given without its name, in declaration order */
    GIP_PARAM_REQUIRED = 1u << 1,   /**< has no default */
    GIP_PARAM_ODD = 1u << 2,        /**< INT or SIZE: odd (0 allowed where min is 0) */
};

/** A named value of a CHOICE parameter. */
typedef struct gip_choice {
    const char *name; /**< as written: "reflect101", "scharr", "u8" */
    int32_t value;    /**< the value the operation receives */
} gip_choice;

/** One declared parameter of an operation. */
typedef struct gip_param {
    const char *name; /**< lower case, digits and '_' ("ksize", "border_value") */
    gip_param_type type;
    uint32_t flags;            /**< GIP_PARAM_* */
    double min, max;           /**< INT, DOUBLE, SIZE, LIST: the accepted range */
    int32_t count;             /**< LIST: the most numbers; MATRIX: the most rows and columns */
    const gip_choice *choices; /**< CHOICE: the accepted names, ended by {NULL, 0} */
    const char *def;           /**< the default as text ("" for an empty STRING/MATRIX); NULL
                                    when required */
    const char *doc;           /**< one sentence */
    const char *example;       /**< a typical value as text, given to make a working call where
                                    the default alone does not (required parameters, gaussian's
                                    ksize); the tests use it. May be NULL */
} gip_param;

/* ---- operations ---------------------------------------------------------------------------- */

/** Bits of gip_op.dtypes: 1u << gip_dtype. */
#define GIP_DTYPE_BIT(dt) (1u << (unsigned)(dt))
/** Bits of gip_op.channels: 1u << channels (1, 3 and 4). */
#define GIP_CHANNELS_BIT(c) (1u << (unsigned)(c))

/** Operation flags. */
enum {
    GIP_OP_POINTWISE = 1u << 0,  /**< each output element depends on the same input element only
                                      (and the channel index): foldable into one table pass */
    GIP_OP_SCALARS = 1u << 1,    /**< other NAME=VALUE arguments are named scalars (expressions) */
    GIP_OP_WHOLE = 1u << 2,      /**< reads the whole image (halo -1): never tiled or streamed */
    GIP_OP_IN_PLACE = 1u << 3,   /**< dst may be src (same shape and dtype) */
    GIP_OP_INVOLUTION = 1u << 4, /**< twice in a row on an integer image is the identity */
    GIP_OP_INEXACT = 1u << 5,    /**< integer results are rounded from single-precision
                                      transforms (FFTW, cuFFT) whose rounding differs: the CPU
                                      and CUDA results may differ by one level */
};

typedef struct gip_args gip_args;

/** Input flags. */
enum {
    GIP_INPUT_OPTIONAL = 1u << 0,  /**< may be left out (NULL) */
    GIP_INPUT_SAME_SIZE = 1u << 1, /**< width and height equal src's */
    GIP_INPUT_SAME_TYPE = 1u << 2, /**< dtype and channel count equal src's */
};

/**
 * An image an operation reads besides src: a second operand, a mask, a map. Given to
 * gip_op_apply_inputs() in declaration order; the Python keyword and the CLI option --NAME.
 */
typedef struct gip_input {
    const char *name;  /**< lower case, digits and '_' ("src2", "mask", "map1") */
    uint32_t flags;    /**< GIP_INPUT_* */
    uint32_t dtypes;   /**< accepted dtypes (GIP_DTYPE_BIT) unless SAME_TYPE; 0: any */
    uint32_t channels; /**< accepted channel counts (GIP_CHANNELS_BIT) unless SAME_TYPE; 0: any */
    const char *doc;   /**< one sentence */
} gip_input;

/** The shape of an image: size, channels, dtype. */
typedef struct gip_shape {
    int64_t width, height;
    int32_t channels;
    gip_dtype dtype;
} gip_shape;

/**
 * A registered operation. Read its fields; the function pointers are the registry's own and are
 * called through gip_op_*() and the pipeline, which check the arguments first.
 */
typedef struct gip_op {
    const char *name;    /**< the step and command name: "gaussian" */
    const char *family;  /**< "filter", "color", "fft", "kernel" ...: the docs' grouping */
    const char *summary; /**< one line */
    const char *doc;     /**< a paragraph: semantics, OpenCV's equivalent, constraints */
    const char *cv_name; /**< the OpenCV function it follows ("cv2.GaussianBlur"), or NULL */
    const gip_param *params;
    int32_t nparams;
    uint32_t dtypes;   /**< accepted input dtypes (GIP_DTYPE_BIT) */
    uint32_t channels; /**< accepted input channel counts (GIP_CHANNELS_BIT) */
    uint32_t flags;    /**< GIP_OP_* */
    /* What the registry calls; `params` is the operation's own typed parameter block of
     * params_size bytes, built from the arguments by build(). */
    size_t params_size;
    gip_status (*build)(const gip_args *args, void *params);
    void (*release)(void *params);                  /* frees what build() allocated; may be NULL */
    gip_status (*copy)(void *dst, const void *src); /* deep copy; NULL: bytes copy */
    gip_status (*shape)(const void *params, const gip_shape *in, gip_shape *out,
                        int32_t *identity);                     /* NULL: same shape */
    void (*halo)(const void *params, int64_t *hx, int64_t *hy); /* NULL: 0, 0 */
    int32_t (*border)(const void *params);   /* its gip_border, or -1; NULL: -1 */
    int32_t (*position)(const void *params); /* reads x, y, width or height; NULL: 0 */
    gip_status (*run)(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params);
    /* The images it reads besides src (NULL, 0: none). Such an operation has run_inputs() in
     * place of run(): `inputs` holds ninputs entries, NULL where an optional one is absent,
     * checked against their declarations and to be where src is (host or the context's device). */
    const gip_input *inputs;
    int32_t ninputs;
    gip_status (*run_inputs)(gip_context *ctx, const gip_image *src, const gip_image *const *inputs,
                             gip_image *dst, const void *params);
    /* Shorthands for the common callbacks, read where the callback is NULL: where a field sits
     * in the typed parameters, as GIP_OP_AT(type, field); 0 for none. */
    size_t border_at; /* a gip_border_spec: its mode is border() */
    size_t dtype_at;  /* an int32_t output dtype, -1 for the input's: the output shape */
    /* Shrink-on-load: the largest JPEG DCT scaling (gip_load_params.reduce: 2, 4 or 8) after
     * which this operation, run first on a file whose upright size is width x height, still
     * gives its result from the smaller decode (as vipsthumbnail's); 1 for none. NULL: 1. */
    int32_t (*load_reduce)(const void *params, int64_t width, int64_t height);
    /* Row bands of a step whose output size differs from its input's (resize, thumbnail), which
     * row streaming and gip.dask cut by output rows: band_rows() gives the input rows
     * [*s0, *s1) that output rows [y0, y1) read, for an input of shape `in`; run_band()
     * computes output rows [y0, y0 + dst->height) (all columns) into dst from src, which holds
     * input rows [s0, s0 + src->height) of an image of shape `in`, equal to those rows of
     * run(). NULL: the step is not cut. */
    gip_status (*band_rows)(const void *params, const gip_shape *in, int64_t y0, int64_t y1,
                            int64_t *s0, int64_t *s1);
    gip_status (*run_band)(gip_context *ctx, const gip_image *src, int64_t s0, const gip_shape *in,
                           gip_image *dst, int64_t y0, const void *params);
    /* Non-zero when the result keeps some of dst's pixels (cv2's BORDER_TRANSPARENT): a host
     * dst then goes to the device with its pixels before the run. NULL: 0. */
    int32_t (*reads_dst)(const void *params);
} gip_op;

/** The place of `field` in the parameter block `type`, for gip_op.border_at and dtype_at. */
#define GIP_OP_AT(type, field) (offsetof(type, field) + 1)

/** How many operations are registered. */
GIP_API int32_t gip_op_count(void);
/** The i-th operation in name order (0 <= i < gip_op_count()), else NULL. */
GIP_API const gip_op *gip_op_at(int32_t i);
/** The operation called `name`, or NULL (the thread's last error then names the known ones). */
GIP_API const gip_op *gip_op_find(const char *name);
/** The parameter of `op` called `name`, or NULL. */
GIP_API const gip_param *gip_op_param(const gip_op *op, const char *name);
/** Whether `op` accepts input of `dtype` / `channels`. */
GIP_API int32_t gip_op_accepts(const gip_op *op, gip_dtype dtype, int32_t channels);
/**
 * What parameter `p` accepts, in the words of the registry's messages and help ("an odd integer
 * in 0..1023", "one of reflect101, reflect, ..."), written into buf (always terminated).
 */
GIP_API void gip_param_accepts(const gip_param *p, char *buf, size_t size);

/**
 * Shrink-on-load for running `args` first on a file (gip_op.load_reduce): the gip_load_params.
 * reduce factor, 1, 2, 4 or 8, for an 8-bit JPEG whose header (gip_image_probe()) is `info`,
 * taking its EXIF orientation unless ignore_orientation. 1 for other formats, for operations that
 * declare none (only thumbnail does, unless its shrink_on_load=0) and on error (NULLs, arguments
 * that do not build).
 */
struct gip_image_info; /* gip/io.h */
GIP_API int32_t gip_op_load_reduce(const gip_args *args, const struct gip_image_info *info,
                                   int32_t ignore_orientation);

/* ---- arguments ----------------------------------------------------------------------------- */

/**
 * Creates the arguments of one call of `op`, every parameter at its default.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL); GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_args_create(const gip_op *op, gip_args **out);
/** Frees arguments (NULL is a no-op). */
GIP_API void gip_args_free(gip_args *args);
/** The operation the arguments are for. */
GIP_API const gip_op *gip_args_op(const gip_args *args);

/**
 * Sets parameter `name` from its text form (see gip_param_type), checking type, range, oddness
 * and choices. On error nothing changes and the message names the parameter, what was given and
 * what is accepted.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (unknown name, bad value); GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_args_set_text(gip_args *args, const char *name, const char *text);
/** Sets an INT, BOOL or CHOICE (by value) parameter; DOUBLE and LIST accept it too. */
GIP_API gip_status gip_args_set_int(gip_args *args, const char *name, int64_t value);
/** Sets a DOUBLE (or a one-number LIST) parameter. */
GIP_API gip_status gip_args_set_double(gip_args *args, const char *name, double value);
/** Sets a SIZE parameter. */
GIP_API gip_status gip_args_set_size(gip_args *args, const char *name, int64_t width,
                                     int64_t height);
/** Sets a LIST parameter to n numbers (1 <= n <= the parameter's count). */
GIP_API gip_status gip_args_set_list(gip_args *args, const char *name, const double *values,
                                     int32_t n);
/** Sets a STRING parameter (copied), or a CHOICE parameter by name. */
GIP_API gip_status gip_args_set_string(gip_args *args, const char *name, const char *value);
/** Sets a MATRIX parameter: rows x cols numbers, row-major (copied). */
GIP_API gip_status gip_args_set_matrix(gip_args *args, const char *name, const float *values,
                                       int32_t rows, int32_t cols);
/** Adds a named scalar (operations with GIP_OP_SCALARS: expression constants). */
GIP_API gip_status gip_args_set_scalar(gip_args *args, const char *name, double value);
/** Whether parameter `name` was set (else it holds its default). */
GIP_API int32_t gip_args_is_set(const gip_args *args, const char *name);

/* Reading arguments (the operations' build() functions; names must be declared). */
GIP_API int64_t gip_args_int(const gip_args *args, const char *name);
GIP_API double gip_args_double(const gip_args *args, const char *name);
GIP_API void gip_args_size(const gip_args *args, const char *name, int32_t *width, int32_t *height);
/** The numbers of a LIST parameter (up to 16) and how many were given. */
GIP_API int32_t gip_args_list(const gip_args *args, const char *name, double *values, int32_t max);
GIP_API const char *gip_args_string(const gip_args *args, const char *name);
GIP_API const float *gip_args_matrix(const gip_args *args, const char *name, int32_t *rows,
                                     int32_t *cols);
/** The named scalars: how many, and the i-th's name and value. */
GIP_API int32_t gip_args_scalar_count(const gip_args *args);
GIP_API const char *gip_args_scalar(const gip_args *args, int32_t i, double *value);

/* ---- running ------------------------------------------------------------------------------- */

/**
 * Runs `op` with `args` from src into dst (as the typed function does: host views on the CPU,
 * device views on the context's GPU). dst must have the shape gip_op_output_shape() gives.
 * Host views (src, dst and the extra inputs) on a CUDA context run on the device too, with the
 * same results: the images move through gip's transfer engine, in row bands through pinned
 * staging buffers on two copy streams that overlap the computation (operations with a finite halo
 * that keep the image size), page-locked memory without staging; the call returns when dst
 * holds the result.
 * @return GIP_OK or the typed function's statuses; GIP_ERR_INVALID_ARGUMENT when the arguments
 *         do not go together (the message says why) or the input's dtype or channels are not
 *         accepted.
 */
GIP_API gip_status gip_op_apply(gip_context *ctx, const gip_args *args, const gip_image *src,
                                gip_image *dst);
/**
 * Row bands of an operation that changes the image size and declares them (resize, thumbnail):
 * the input rows [*s0, *s1) that output rows [y0, y1) read, for an input of shape `in`.
 * @return GIP_OK; GIP_ERR_UNSUPPORTED (the operation is not cut in bands, or refuses `in`);
 *         GIP_ERR_INVALID_ARGUMENT (NULLs, rows outside the output, arguments that do not build).
 */
GIP_API gip_status gip_op_band_rows(const gip_args *args, const gip_shape *in, int64_t y0,
                                    int64_t y1, int64_t *s0, int64_t *s1);
/**
 * Output rows [y0, y0 + dst->height) of `op` on an image of shape `in` (all columns, equal to
 * those rows of gip_op_apply()), from src, which holds its rows [s0, s0 + src->height) (at least
 * the rows gip_op_band_rows() names), host views on the CPU, device views on the GPU.
 * @return GIP_OK; as gip_op_band_rows(); GIP_ERR_SHAPE_MISMATCH (src or dst not such a band).
 */
GIP_API gip_status gip_op_apply_band(gip_context *ctx, const gip_args *args, const gip_image *src,
                                     int64_t s0, const gip_shape *in, gip_image *dst, int64_t y0);
/**
 * Runs `op` with `args` from src and the extra input images `inputs` (op->ninputs of them, in
 * declaration order; NULL for an absent optional one) into dst. gip_op_apply() is this with no
 * extra inputs.
 * @return as gip_op_apply(); GIP_ERR_INVALID_ARGUMENT when a required input is missing or
 *         ninputs is not op->ninputs; GIP_ERR_SHAPE_MISMATCH, GIP_ERR_UNSUPPORTED or
 *         GIP_ERR_LOCATION_MISMATCH when an input's size, dtype, channels or memory do not match
 *         its declaration.
 */
GIP_API gip_status gip_op_apply_inputs(gip_context *ctx, const gip_args *args, const gip_image *src,
                                       const gip_image *const *inputs, int32_t ninputs,
                                       gip_image *dst);
/** The extra input of `op` called `name` and its index, or NULL. */
GIP_API const gip_input *gip_op_input(const gip_op *op, const char *name, int32_t *index);
/** The output shape `op` gives for input `in`. */
GIP_API gip_status gip_op_output_shape(const gip_args *args, const gip_shape *in, gip_shape *out);
/** Pixels read around an output pixel in x and y (-1: the whole image). */
GIP_API gip_status gip_op_halo(const gip_args *args, int64_t *halo_x, int64_t *halo_y);

#ifdef __cplusplus
}
#endif

#endif
