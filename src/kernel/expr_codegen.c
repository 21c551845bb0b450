/* SPDX-License-Identifier: MIT */
/* The GPU code generator of map and stencil expressions: CUDA source for one expression, input
 * and output dtypes, channel count and border mode, evaluating the same float operations in the
 * same order as the CPU interpreter (explicitly rounded intrinsics, so nothing is contracted). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

typedef struct out {
    char *p;
    size_t len, cap;
    bool oom;
} out;

static void put(out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(out *o, const char *fmt, ...)
{
    if (o->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->p ? o->p + o->len : NULL, o->p ? o->cap - o->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->oom = true;
            return;
        }
        if (o->p && o->len + (size_t)n < o->cap) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
}

static const char *ctype(gip_dtype dt)
{
    return dt == GIP_U8 ? "unsigned char" : dt == GIP_U16 ? "unsigned short" : "float";
}

static const char *const fn1[] = {
    [GIP__OP_ABS] = "fabsf",    [GIP__OP_SQRT] = "__fsqrt_rn", [GIP__OP_EXP] = "expf",
    [GIP__OP_LOG] = "logf",     [GIP__OP_FLOOR] = "floorf",    [GIP__OP_CEIL] = "ceilf",
    [GIP__OP_ROUND] = "roundf", [GIP__OP_SIN] = "sinf",        [GIP__OP_COS] = "cosf",
};
static const char *const fn2[] = {
    [GIP__OP_ADD] = "__fadd_rn", [GIP__OP_SUB] = "__fsub_rn", [GIP__OP_MUL] = "__fmul_rn",
    [GIP__OP_DIV] = "__fdiv_rn", [GIP__OP_MOD] = "fmodf",     [GIP__OP_MIN] = "fminf",
    [GIP__OP_MAX] = "fmaxf",     [GIP__OP_POW] = "powf",
};
static const char *const cmp[] = {
    [GIP__OP_LT] = "<",  [GIP__OP_LE] = "<=", [GIP__OP_GT] = ">",
    [GIP__OP_GE] = ">=", [GIP__OP_EQ] = "==", [GIP__OP_NE] = "!=",
};

/* Emits node `id`; `border` selects the loads that apply the border rule. */
static void emit(out *o, const gip__expr_job *job, int id, bool border)
{
    const gip__expr_node *n = &job->e->node[id];
    switch (n->kind) {
    case GIP__N_NUM: {
        uint32_t bits;
        memcpy(&bits, &n->num, sizeof bits);
        put(o, "__int_as_float(0x%08x)", bits);
        return;
    }
    case GIP__N_SCALAR:
        put(o, "prm.scalar[%d]", (int)n->index);
        return;
    case GIP__N_VAR:
        switch (n->op) {
        case GIP__V_X:
            put(o, "(float)x");
            return;
        case GIP__V_Y:
            put(o, "(float)y");
            return;
        case GIP__V_C:
            put(o, "(float)c");
            return;
        case GIP__V_WIDTH:
            put(o, "(float)W");
            return;
        case GIP__V_HEIGHT:
            put(o, "(float)H");
            return;
        default:
            put(o, "%d.0f", (int)job->dst->channels);
            return;
        }
    case GIP__N_LOAD:
        if (border)
            put(o, "gip_bld(in%d, st%d, W, H, x + (%d), y + (%d), c, prm)", (int)n->index,
                (int)n->index, (int)n->dx, (int)n->dy);
        else
            put(o, "gip_ld(gip_row(in%d, st%d, y + (%d)) + (e + (%d)))", (int)n->index,
                (int)n->index, (int)n->dy, (int)n->dx * (int)job->dst->channels);
        return;
    default:
        break;
    }
    int op = n->op;
    if (op == GIP__OP_NEG || op == GIP__OP_NOT) {
        put(o, op == GIP__OP_NEG ? "(-(" : "((");
        emit(o, job, n->a, border);
        put(o, op == GIP__OP_NEG ? "))" : ") == 0.0f ? 1.0f : 0.0f)");
    } else if (gip__expr_arity(op) == 1) {
        put(o, "%s(", fn1[op]);
        emit(o, job, n->a, border);
        put(o, ")");
    } else if (op >= GIP__OP_LT && op <= GIP__OP_NE) {
        put(o, "((");
        emit(o, job, n->a, border);
        put(o, ") %s (", cmp[op]);
        emit(o, job, n->b, border);
        put(o, ") ? 1.0f : 0.0f)");
    } else if (op == GIP__OP_AND || op == GIP__OP_OR) {
        put(o, "(((");
        emit(o, job, n->a, border);
        put(o, ") != 0.0f %s (", op == GIP__OP_AND ? "&&" : "||");
        emit(o, job, n->b, border);
        put(o, ") != 0.0f) ? 1.0f : 0.0f)");
    } else if (op == GIP__OP_CLAMP) {
        put(o, "fminf(fmaxf(");
        emit(o, job, n->a, border);
        put(o, ", ");
        emit(o, job, n->b, border);
        put(o, "), ");
        emit(o, job, n->c, border);
        put(o, ")");
    } else if (op == GIP__OP_SELECT) {
        put(o, "((");
        emit(o, job, n->a, border);
        put(o, ") != 0.0f ? (");
        emit(o, job, n->b, border);
        put(o, ") : (");
        emit(o, job, n->c, border);
        put(o, "))");
    } else {
        put(o, "%s(", fn2[op]);
        emit(o, job, n->a, border);
        put(o, ", ");
        emit(o, job, n->b, border);
        put(o, ")");
    }
}

/* The border rule of src/core/border.h (gip__border_index) for one mode, as CUDA text: generated
 * code is compiled by NVRTC and cannot include the library's private headers. The stencil tests
 * compare the CPU (which calls gip__border_index) and the GPU exactly for every mode. */
static void emit_border(out *o, gip_border mode)
{
    put(o, "__device__ __forceinline__ long long gip_bidx(long long p, long long n)\n{\n"
           "    if ((unsigned long long)p < (unsigned long long)n)\n        return p;\n");
    switch (mode) {
    case GIP_BORDER_CONSTANT:
        put(o, "    return -1;\n");
        break;
    case GIP_BORDER_REPLICATE:
        put(o, "    return p < 0 ? 0 : n - 1;\n");
        break;
    case GIP_BORDER_WRAP:
        put(o, "    p %%= n;\n    return p < 0 ? p + n : p;\n");
        break;
    default:
        put(o,
            "    if (n == 1)\n        return 0;\n"
            "    const long long delta = %d;\n"
            "    const long long period = 2 * n - 2 * delta;\n"
            "    p %%= period;\n    if (p < 0)\n        p += period;\n"
            "    if (p >= n)\n        p = period - p - (1 - delta);\n    return p;\n",
            mode == GIP_BORDER_REFLECT_101 ? 1 : 0);
        break;
    }
    put(o, "}\n");
}

char *gip__expr_cuda_source(const gip__expr_job *job)
{
    out o = {NULL, 0, 0, false};
    const int C = job->dst->channels;
    const int R = job->stencil ? job->e->radius_used : 0;
    put(&o,
        "// gip map/stencil expression kernel (generated)\n"
        "struct gip_params {\n    float scalar[%d];\n    float border[4];\n};\n",
        GIP_EXPR_MAX_SCALARS);
    /* Stencils never run in place, so their loads may use the read-only path; a map may write
     * the image it reads (each thread its own element), so it loads plainly and drops restrict. */
    const char *ld = job->stencil ? "__ldg(p)" : "*p";
    const char *restrict_kw = job->stencil ? "__restrict__ " : "";
    put(&o,
        "__device__ __forceinline__ float gip_ld(const unsigned char *p) { return (float)%s; }\n"
        "__device__ __forceinline__ float gip_ld(const unsigned short *p) { return (float)%s; }\n"
        "__device__ __forceinline__ float gip_ld(const float *p) { return %s; }\n",
        ld, ld, ld);
    put(&o, "template <typename T> __device__ __forceinline__ const T *gip_row(const T *base, "
            "long long stride, long long y)\n"
            "{\n    return (const T *)((const char *)base + y * stride);\n}\n");
    emit_border(&o, job->border);
    put(&o,
        "template <typename T> __device__ __forceinline__ float gip_bld(const T *base, long long "
        "stride, int W, int H, long long x, long long y, int c, const gip_params &prm)\n"
        "{\n    const long long bx = gip_bidx(x, W), by = gip_bidx(y, H);\n"
        "    if (bx < 0 || by < 0)\n        return prm.border[c];\n"
        "    return gip_ld(gip_row(base, stride, by) + (bx * %d + c));\n}\n",
        C);
    /* Output conversion: round half to even, saturate (NaN -> 0), as the CPU's store. */
    gip_dtype odt = job->dst->dtype;
    put(&o, "__device__ __forceinline__ void gip_st(%s *p, float v)\n{\n", ctype(odt));
    if (odt == GIP_F32) {
        put(&o, "    *p = v;\n}\n");
    } else {
        int max = odt == GIP_U8 ? 255 : 65535;
        put(&o,
            "    float f = v > -1.0f ? v : -1.0f;\n    f = f < %d.0f ? f : %d.0f;\n"
            "    int r = __float2int_rn(f);\n    *p = (%s)(r < 0 ? 0 : (r > %d ? %d : r));\n}\n",
            max + 1, max + 1, ctype(odt), max, max);
    }
    put(&o, "extern \"C\" __global__ void gip_expr(");
    for (int k = 0; k < job->n_inputs; k++)
        put(&o, "const %s *%sin%d, long long st%d, ", ctype(job->inputs[k].dtype), restrict_kw, k,
            k);
    put(&o, "%s *%sout, long long sto, int W, int H, gip_params prm)\n{\n", ctype(odt),
        restrict_kw);
    put(&o,
        "    const int C = %d;\n"
        "    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (e >= (long long)W * C)\n        return;\n"
        "    const long long x = e / C;\n"
        "    const int c = (int)(e - x * C);\n"
        "    (void)c;\n"
        "    for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < H;\n"
        "         y += (long long)gridDim.y * blockDim.y) {\n"
        "        float v;\n",
        C);
    if (R > 0) {
        put(&o, "        if (x >= %d && x < W - %d && y >= %d && y < H - %d)\n            v = ", R,
            R, R, R);
        emit(&o, job, job->e->root, false);
        put(&o, ";\n        else\n            v = ");
        emit(&o, job, job->e->root, true);
        put(&o, ";\n");
    } else {
        put(&o, "        v = ");
        emit(&o, job, job->e->root, false);
        put(&o, ";\n");
    }
    put(&o, "        gip_st((%s *)((char *)out + y * sto) + e, v);\n    }\n}\n", ctype(odt));
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    return o.p;
}
