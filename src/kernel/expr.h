/* SPDX-License-Identifier: MIT */
/* Private side of map and stencil expressions: the syntax tree the parser builds, the float
 * operations both backends evaluate identically, and the backend prototypes. */
#ifndef GIP_KERNEL_EXPR_H
#define GIP_KERNEL_EXPR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "gip/kernel.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GIP__EXPR_MAX_NODES 1024
#define GIP__EXPR_MAX_LEN 8192

typedef enum gip__expr_kind {
    GIP__N_NUM,    /* constant `num` */
    GIP__N_VAR,    /* x, y, width, height, c, channels: `var` */
    GIP__N_SCALAR, /* user scalar number `index` */
    GIP__N_LOAD,   /* pixel of input `index` at offset (dx, dy) */
    GIP__N_OP      /* operator `op` over children a, b, c */
} gip__expr_kind;

typedef enum gip__expr_var {
    GIP__V_X,
    GIP__V_Y,
    GIP__V_WIDTH,
    GIP__V_HEIGHT,
    GIP__V_C,
    GIP__V_CHANNELS
} gip__expr_var;

/* Operators; the arity is given by gip__expr_arity(). */
typedef enum gip__expr_op {
    /* unary */
    GIP__OP_NEG,
    GIP__OP_NOT,
    GIP__OP_ABS,
    GIP__OP_SQRT,
    GIP__OP_EXP,
    GIP__OP_LOG,
    GIP__OP_FLOOR,
    GIP__OP_CEIL,
    GIP__OP_ROUND,
    GIP__OP_SIN,
    GIP__OP_COS,
    /* binary */
    GIP__OP_ADD,
    GIP__OP_SUB,
    GIP__OP_MUL,
    GIP__OP_DIV,
    GIP__OP_MOD,
    GIP__OP_LT,
    GIP__OP_LE,
    GIP__OP_GT,
    GIP__OP_GE,
    GIP__OP_EQ,
    GIP__OP_NE,
    GIP__OP_AND,
    GIP__OP_OR,
    GIP__OP_MIN,
    GIP__OP_MAX,
    GIP__OP_POW,
    /* ternary */
    GIP__OP_CLAMP,  /* clamp(a, b, c) = min(max(a, b), c) */
    GIP__OP_SELECT, /* a != 0 ? b : c */
    GIP__OP_COUNT
} gip__expr_op;

typedef struct gip__expr_node {
    int8_t kind; /* gip__expr_kind */
    int8_t op;   /* gip__expr_op for GIP__N_OP, gip__expr_var for GIP__N_VAR */
    int16_t dx, dy;
    int32_t index;   /* scalar or input number */
    int32_t a, b, c; /* children (node numbers), -1 when absent */
    float num;
} gip__expr_node;

typedef struct gip__expr {
    gip__expr_node node[GIP__EXPR_MAX_NODES];
    int32_t n;
    int32_t root;
    int32_t radius_used;  /* largest |dx| or |dy| of any load */
    uint32_t inputs_used; /* bit i: input i is read */
    uint32_t vars_used;   /* bit v: variable v is read */
} gip__expr;

/* What the parser accepts. */
typedef struct gip__expr_env {
    const char *op;   /* public function name, for messages */
    bool stencil;     /* in(dx, dy) allowed */
    int32_t radius;   /* stencil: the largest |offset| allowed (GIP_STENCIL_MAX_RADIUS when the
                         radius is to be inferred) */
    int32_t n_inputs; /* map: inputs a, b, ...; stencil: 1 */
    const gip_scalar *scalars;
    int32_t n_scalars;
} gip__expr_env;

/* Parses `text` into `e`; syntax and type errors raise GIP_ERR_INVALID_ARGUMENT with the column.
 * Constant sub-expressions are folded with gip__expr_apply(). */
gip_status gip__expr_parse(gip_context *ctx, const gip__expr_env *env, const char *text,
                           gip__expr *e);

/* Number of operands of an operator. */
int gip__expr_arity(int op);

/* Non-zero when an expression names x, y, width or height: its value then depends on the pixel's
 * position (a table indexed by the value cannot replace it; a tile sees other values). */
bool gip__expr_uses_position(const char *e);

/* One operator on floats: the definition both backends follow (the GPU code generator emits the
 * CUDA function with the same IEEE result for every exact operator). */
static inline float gip__expr_apply(int op, float a, float b, float c)
{
    switch (op) {
    case GIP__OP_NEG:
        return -a;
    case GIP__OP_NOT:
        return a == 0.0f ? 1.0f : 0.0f;
    case GIP__OP_ABS:
        return fabsf(a);
    case GIP__OP_SQRT:
        return sqrtf(a);
    case GIP__OP_EXP:
        return expf(a);
    case GIP__OP_LOG:
        return logf(a);
    case GIP__OP_FLOOR:
        return floorf(a);
    case GIP__OP_CEIL:
        return ceilf(a);
    case GIP__OP_ROUND:
        return roundf(a);
    case GIP__OP_SIN:
        return sinf(a);
    case GIP__OP_COS:
        return cosf(a);
    case GIP__OP_ADD:
        return a + b;
    case GIP__OP_SUB:
        return a - b;
    case GIP__OP_MUL:
        return a * b;
    case GIP__OP_DIV:
        return a / b;
    case GIP__OP_MOD:
        return fmodf(a, b);
    case GIP__OP_LT:
        return a < b ? 1.0f : 0.0f;
    case GIP__OP_LE:
        return a <= b ? 1.0f : 0.0f;
    case GIP__OP_GT:
        return a > b ? 1.0f : 0.0f;
    case GIP__OP_GE:
        return a >= b ? 1.0f : 0.0f;
    case GIP__OP_EQ:
        return a == b ? 1.0f : 0.0f;
    case GIP__OP_NE:
        return a != b ? 1.0f : 0.0f;
    case GIP__OP_AND:
        return (a != 0.0f && b != 0.0f) ? 1.0f : 0.0f;
    case GIP__OP_OR:
        return (a != 0.0f || b != 0.0f) ? 1.0f : 0.0f;
    case GIP__OP_MIN:
        return fminf(a, b);
    case GIP__OP_MAX:
        return fmaxf(a, b);
    case GIP__OP_POW:
        return powf(a, b);
    case GIP__OP_CLAMP:
        return fminf(fmaxf(a, b), c);
    case GIP__OP_SELECT:
        return a != 0.0f ? b : c;
    default:
        return 0.0f;
    }
}

/* Everything one evaluation needs, shared by map and stencil and both backends. */
typedef struct gip__expr_job {
    const gip__expr *e;
    const gip_image *inputs; /* n_inputs views */
    int32_t n_inputs;
    gip_image *dst;
    float scalars[GIP_EXPR_MAX_SCALARS];
    int32_t radius;    /* stencil radius (0 for map) */
    gip_border border; /* stencil border mode */
    float border_value[4];
    bool stencil;
} gip__expr_job;

/* expr_cpu.c: the register program and its interpreter. */
gip_status gip__expr_run_cpu(gip_context *ctx, const char *op, const gip__expr_job *job);

/* expr_codegen.c: CUDA source for a job (kernel "gip_expr"); malloc'ed, NULL when out of memory.
 * The parameters are, in order: for each input (T *data, long long stride), the output
 * (T *data, long long stride), int width, int height, and a gip__expr_gpu_params by value. */
typedef struct gip__expr_gpu_params {
    float scalar[GIP_EXPR_MAX_SCALARS];
    float border[4];
} gip__expr_gpu_params;
char *gip__expr_cuda_source(const gip__expr_job *job);

/* expr_cuda.cu: compiles (cached per process and on disk) and launches. */
gip_status gip__expr_run_cuda(gip_context *ctx, const char *op, const gip__expr_job *job);

/* expr_run.c: parses and checks common to map and stencil, dispatches to a backend. */
gip_status gip__expr_dispatch(gip_context *ctx, const char *op, gip__expr_job *job);

#ifdef __cplusplus
}
#endif
#endif
