/* SPDX-License-Identifier: MIT */
/* What operation files use to declare themselves (gip/op.h is the public half): the shared
 * parameter declarations (borders, dtypes) and the table the build generates. An operation file
 * defines `const gip_op gip__op_<name> = {...};` at the start of a line; CMake finds every such
 * line under src/ and writes the table, so adding an operation edits no shared file. */
#ifndef GIP_REGISTRY_H
#define GIP_REGISTRY_H

#include <stddef.h>

#include "gip/filter.h"
#include "gip/op.h"

/* The generated table, in name order. */
extern const gip_op *const gip__ops[];
extern const int32_t gip__nops;

#define GIP__COUNT(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

/* Fields of a gip_op most operations fill alike: the parameter and extra-input arrays with
 * their counts, every dtype, and 1, 3 or 4 channels. */
#define GIP__PARAMS(decl) .params = (decl), .nparams = GIP__COUNT(decl)
#define GIP__INPUTS(in) .inputs = (in), .ninputs = GIP__COUNT(in)
#define GIP__DTYPES_ALL                                                                            \
    (GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |                     \
     GIP_DTYPE_BIT(GIP_F32))
#define GIP__CHANNELS_134 (GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4))

/* The dtype and border choices every operation shares. */
extern const gip_choice gip__dtype_choices[];  /* u8, u16, s16, f32 */
extern const gip_choice gip__border_choices[]; /* reflect101, reflect, replicate, constant, wrap */
extern const gip_choice gip__ddepth_choices[]; /* same (-1), u8, u16, s16, f32 */
extern const gip_choice gip__method_choices[]; /* auto, direct, fft: gip_conv_method */

/* A parameter declaration: name, type, flags, min, max, count, choices, default, doc (and an
 * example for GIP__PARAM_EX), as gip_param's fields. */
#define GIP__PARAM(n, t, f, lo, hi, cnt, ch, d, text)                                              \
    {                                                                                              \
        .name = (n), .type = (t), .flags = (f), .min = (lo), .max = (hi), .count = (cnt),          \
        .choices = (ch), .def = (d), .doc = (text)                                                 \
    }
#define GIP__PARAM_EX(n, t, f, lo, hi, cnt, ch, d, text, ex)                                       \
    {                                                                                              \
        .name = (n), .type = (t), .flags = (f), .min = (lo), .max = (hi), .count = (cnt),          \
        .choices = (ch), .def = (d), .doc = (text), .example = (ex)                                \
    }

/* border= and border_value= of a filter: append to its parameters. */
#define GIP__BORDER_PARAMS                                                                         \
    GIP__PARAM("border", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__border_choices, "reflect101",          \
               "how pixels outside the image are made (OpenCV's BORDER_*; REFLECT_101 by "         \
               "default)"),                                                                        \
        GIP__PARAM("border_value", GIP_PARAM_LIST, 0, -3.4e38, 3.4e38, 4, NULL, "0",               \
                   "the value outside the image with border=constant: one number, or one per "     \
                   "channel")

/* The border of a filter from its border and border_value arguments. */
gip_status gip__args_border(const gip_args *args, gip_border_spec *border);

/* anchor= of a window (1 to 2 numbers X[,Y] inside a kw x kh window, or -1: the centre): *has is
 * 0 for the centre. */
gip_status gip__args_anchor(const gip_args *args, int32_t kw, int32_t kh, int32_t *has, int32_t *x,
                            int32_t *y);
/* How far a window of k pixels with this anchor (or its centre) reaches from its anchor. */
int64_t gip__window_reach(int32_t k, int32_t has, int32_t anchor);

/* Every required parameter was set. */
gip_status gip__args_check_required(const gip_args *args);

/* What a parameter accepts, for messages and help: "an odd integer in 1..1023". */
void gip__param_accepts(const gip_param *p, char *buf, size_t size);

/* Raises GIP_ERR_UNSUPPORTED for input op does not declare: "WHO: input s16 with 2 channels is
 * not accepted (dtypes u8, u16, f32; channels 1, 3, 4)"; WHO is op's name when NULL. */
gip_status gip__op_refuse_input(gip_context *ctx, const gip_op *op, gip_dtype dt, int32_t c,
                                const char *who);

/* op's border mode for its built params (border() or border_at), or -1. */
int32_t gip__op_border(const gip_op *op, const void *params);
/* op's output shape for its built params and input `in` (shape() or dtype_at; else in's). */
gip_status gip__op_shape(const gip_op *op, const void *params, const gip_shape *in, gip_shape *out,
                         int32_t *identity);

/* shape() of an operation whose result is one-channel u8 of the input's size (edges, canny,
 * spectrum). */
gip_status gip__shape_u8c1(const void *params, const gip_shape *in, gip_shape *out,
                           int32_t *identity);

/* gip_op_load_reduce() for op's built params: 1 unless op declares load_reduce and info is an
 * 8-bit JPEG. */
struct gip_image_info;
int32_t gip__op_load_reduce(const gip_op *op, const void *params, const struct gip_image_info *info,
                            int32_t ignore_orientation);

/* Builds op's typed parameters from args into params (op->params_size bytes, zeroed first),
 * after the checks every operation shares. */
gip_status gip__op_build(const gip_args *args, void *params);

/* Runs op (parameters built) with host images on a CUDA context through the transfer engine:
 * the result of the same call on device images (apply_host.c). */
gip_status gip__op_apply_host(gip_context *ctx, const gip_op *op, const void *params,
                              const gip_image *src, const gip_image *const *inputs, gip_image *dst);

#endif
