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

/* How the generated code reads input pixels. */
typedef enum load_mode {
    LOAD_MAP,    /* map: element i of the thread's run, already converted: a<k>[i] */
    LOAD_TILE,   /* tiled stencil: shared-memory tile around the output: gip_s[offset] */
    LOAD_DIRECT, /* untiled stencil, pixel and its neighbourhood inside the image */
    LOAD_BORDER  /* untiled stencil near an edge: the border rule per load */
} load_mode;

typedef struct gen {
    out *o;
    const gip__expr_job *job;
    load_mode mode;
    int tile_w; /* LOAD_TILE: elements per shared-memory row */
} gen;

/* Emits node `id` as a CUDA float expression. */
static void emit(const gen *g, int id)
{
    out *o = g->o;
    const gip__expr_job *job = g->job;
    const gip__expr_node *n = &job->e->node[id];
    const int C = job->dst->channels;
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
            put(o, "%d.0f", C);
            return;
        }
    case GIP__N_LOAD:
        switch (g->mode) {
        case LOAD_MAP:
            put(o, "a%d[i]", (int)n->index);
            return;
        case LOAD_TILE:
            put(o, "gip_s[%d]",
                ((int)n->dy + job->radius) * g->tile_w + ((int)n->dx + job->radius) * C);
            return;
        case LOAD_DIRECT:
            put(o, "gip_cv(__ldg(gip_row(in%d, st%d, y + (%d)) + (e + (%d))))", (int)n->index,
                (int)n->index, (int)n->dy, (int)n->dx * C);
            return;
        case LOAD_BORDER:
            put(o, "gip_bld(in%d, st%d, W, H, x + (%d), y + (%d), c, prm)", (int)n->index,
                (int)n->index, (int)n->dx, (int)n->dy);
            return;
        }
        return;
    default:
        break;
    }
    int op = n->op;
    if (op == GIP__OP_NEG || op == GIP__OP_NOT) {
        put(o, op == GIP__OP_NEG ? "(-(" : "((");
        emit(g, n->a);
        put(o, op == GIP__OP_NEG ? "))" : ") == 0.0f ? 1.0f : 0.0f)");
    } else if (gip__expr_arity(op) == 1) {
        put(o, "%s(", fn1[op]);
        emit(g, n->a);
        put(o, ")");
    } else if (op >= GIP__OP_LT && op <= GIP__OP_NE) {
        put(o, "((");
        emit(g, n->a);
        put(o, ") %s (", cmp[op]);
        emit(g, n->b);
        put(o, ") ? 1.0f : 0.0f)");
    } else if (op == GIP__OP_AND || op == GIP__OP_OR) {
        put(o, "(((");
        emit(g, n->a);
        put(o, ") != 0.0f %s (", op == GIP__OP_AND ? "&&" : "||");
        emit(g, n->b);
        put(o, ") != 0.0f) ? 1.0f : 0.0f)");
    } else if (op == GIP__OP_CLAMP) {
        put(o, "fminf(fmaxf(");
        emit(g, n->a);
        put(o, ", ");
        emit(g, n->b);
        put(o, "), ");
        emit(g, n->c);
        put(o, ")");
    } else if (op == GIP__OP_SELECT) {
        put(o, "((");
        emit(g, n->a);
        put(o, ") != 0.0f ? (");
        emit(g, n->b);
        put(o, ") : (");
        emit(g, n->c);
        put(o, "))");
    } else {
        put(o, "%s(", fn2[op]);
        emit(g, n->a);
        put(o, ", ");
        emit(g, n->b);
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

/* Elements each map thread handles: 16 bytes of the narrowest array, so that every array moves
 * in whole 16-byte vectors. */
static int map_vec(const gip__expr_job *job)
{
    size_t min = gip_dtype_size(job->dst->dtype);
    for (int k = 0; k < job->n_inputs; k++)
        if (gip_dtype_size(job->inputs[k].dtype) < min)
            min = gip_dtype_size(job->inputs[k].dtype);
    return (int)(16 / min);
}

/* Conversions shared by every layout. Integers become floats exactly through the bits of 2^23 + v
 * (an integer add and a float subtract instead of the slower conversion unit); stores round half
 * to even and saturate as the CPU's store_run does: clamping to [0, max] first is equivalent to
 * its clamp to [-1, max + 1], round, clamp (NaN becomes 0 on both: fmaxf returns the number),
 * and adding 1.5 * 2^23 rounds to the nearest integer, ties to even, leaving it in the low bits. */
static void emit_conversions(out *o, gip_dtype odt)
{
    put(o, "__device__ __forceinline__ float gip_cv(unsigned char v) { return "
           "__fsub_rn(__uint_as_float(0x4b000000u | v), 8388608.0f); }\n"
           "__device__ __forceinline__ float gip_cv(unsigned short v) { return "
           "__fsub_rn(__uint_as_float(0x4b000000u | v), 8388608.0f); }\n"
           "__device__ __forceinline__ float gip_cv(float v) { return v; }\n");
    if (odt == GIP_F32) {
        put(o, "__device__ __forceinline__ void gip_st(float *p, float v) { *p = v; }\n");
        return;
    }
    int max = odt == GIP_U8 ? 255 : 65535;
    put(o,
        "__device__ __forceinline__ unsigned int gip_q(float v)\n{\n"
        "    return __float_as_uint(__fadd_rn(fminf(fmaxf(v, 0.0f), %d.0f), 12582912.0f)) & "
        "0x%xu;\n}\n"
        "__device__ __forceinline__ void gip_st(%s *p, float v) { *p = (%s)gip_q(v); }\n",
        max, max, ctype(odt), ctype(odt));
}

/* 16-byte vector loads and stores of V elements, converted to and from floats. */
static void emit_vector_io(out *o, int V, const gip__expr_job *job)
{
    bool used[3] = {false, false, false}; /* u8, u16, f32 inputs */
    for (int k = 0; k < job->n_inputs; k++)
        if (job->e->inputs_used & (1u << k))
            used[job->inputs[k].dtype == GIP_U8    ? 0
                 : job->inputs[k].dtype == GIP_U16 ? 1
                                                   : 2] = true;
    static const char *const word[3] = {"(unsigned char)(w[i / 4] >> (8 * (i % 4)))",
                                        "(unsigned short)(w[i / 2] >> (16 * (i % 2)))",
                                        "__uint_as_float(w[i])"};
    static const char *const type[3] = {"unsigned char", "unsigned short", "float"};
    static const int per_word[3] = {4, 2, 1};
    for (int t = 0; t < 3; t++) {
        if (!used[t])
            continue;
        int nw = V / per_word[t];
        put(o,
            "__device__ __forceinline__ void gip_ldv(const %s *p, float (&f)[%d])\n{\n"
            "    unsigned int w[%d];\n#pragma unroll\n"
            "    for (int k = 0; k < %d; k++) {\n"
            "        const uint4 q = ((const uint4 *)p)[k];\n"
            "        w[4 * k] = q.x, w[4 * k + 1] = q.y, w[4 * k + 2] = q.z, w[4 * k + 3] = q.w;\n"
            "    }\n#pragma unroll\n    for (int i = 0; i < %d; i++)\n        f[i] = gip_cv(",
            type[t], V, nw, nw / 4, V);
        put(o, "%s);\n}\n", word[t]);
    }
    gip_dtype odt = job->dst->dtype;
    int t = odt == GIP_U8 ? 0 : odt == GIP_U16 ? 1 : 2;
    int nw = V / per_word[t];
    put(o,
        "__device__ __forceinline__ void gip_stv(%s *p, const float (&v)[%d])\n{\n"
        "    unsigned int w[%d];\n#pragma unroll\n    for (int k = 0; k < %d; k++)\n"
        "        w[k] = 0;\n#pragma unroll\n    for (int i = 0; i < %d; i++)\n",
        type[t], V, nw, nw, V);
    if (t == 2)
        put(o, "        w[i] = __float_as_uint(v[i]);\n");
    else
        put(o, "        w[i / %d] |= gip_q(v[i]) << (%d * (i %% %d));\n", per_word[t],
            32 / per_word[t], per_word[t]);
    put(o,
        "#pragma unroll\n    for (int k = 0; k < %d; k++)\n"
        "        ((uint4 *)p)[k] = make_uint4(w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + "
        "3]);\n}\n",
        nw / 4);
}

/* The kernel's parameter list (the order expr.h documents). */
static void emit_params(out *o, const gip__expr_job *job, bool restrict_ok)
{
    const char *rk = restrict_ok ? "__restrict__ " : "";
    for (int k = 0; k < job->n_inputs; k++)
        put(o, "const %s *%sin%d, long long st%d, ", ctype(job->inputs[k].dtype), rk, k, k);
    put(o, "%s *%sout, long long sto, int W, int H, gip_params prm", ctype(job->dst->dtype), rk);
}

/* Map: each thread evaluates V consecutive elements of a row, for rows y, y + step ... Kernel
 * gip_expr_vec moves them with 16-byte vectors (the launcher checks that every data pointer and
 * stride is a multiple of 16); gip_expr with element loads. A map may write the image it reads
 * (each thread reads its own elements before writing them), so no restrict and no __ldg. */
static void emit_map(out *o, const gip__expr_job *job, int V)
{
    const gip__expr *e = job->e;
    emit_vector_io(o, V, job);
    put(o, "template <bool VEC> __device__ __forceinline__ void gip_body(");
    emit_params(o, job, false);
    put(o,
        ")\n{\n    const int C = %d;\n    const long long WC = (long long)W * C;\n"
        "    const long long e0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n"
        "    if (e0 >= WC)\n        return;\n"
        "    const bool full = VEC && e0 + %d <= WC;\n"
        "    const long long x0 = e0 / C;\n    const int c0 = (int)(e0 - x0 * C);\n"
        "    for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < H;\n"
        "         y += (long long)gridDim.y * blockDim.y) {\n",
        (int)job->dst->channels, V, V);
    for (int k = 0; k < job->n_inputs; k++) {
        if (!(e->inputs_used & (1u << k)))
            continue;
        put(o,
            "        float a%d[%d];\n"
            "        const %s *r%d = (const %s *)((const char *)in%d + y * st%d) + e0;\n"
            "        if (full)\n            gip_ldv(r%d, a%d);\n        else\n#pragma unroll\n"
            "            for (int i = 0; i < %d; i++)\n"
            "                a%d[i] = e0 + i < WC ? gip_cv(r%d[i]) : 0.0f;\n",
            k, V, ctype(job->inputs[k].dtype), k, ctype(job->inputs[k].dtype), k, k, k, k, V, k, k);
    }
    put(o,
        "        float v[%d];\n        long long x = x0;\n        int c = c0;\n"
        "        (void)x, (void)c;\n#pragma unroll\n"
        "        for (int i = 0; i < %d; i++) {\n            v[i] = ",
        V, V);
    gen g = {o, job, LOAD_MAP, 0};
    emit(&g, e->root);
    put(o,
        ";\n            if (++c == C)\n                c = 0, ++x;\n        }\n"
        "        %s *ro = (%s *)((char *)out + y * sto) + e0;\n"
        "        if (full)\n            gip_stv(ro, v);\n        else\n#pragma unroll\n"
        "            for (int i = 0; i < %d; i++)\n                if (e0 + i < WC)\n"
        "                    gip_st(ro + i, v[i]);\n    }\n}\n",
        ctype(job->dst->dtype), ctype(job->dst->dtype), V);
    static const char *const names[2] = {"gip_expr", "gip_expr_vec"};
    for (int vec = 0; vec < 2; vec++) {
        put(o, "extern \"C\" __global__ void __launch_bounds__(256) %s(", names[vec]);
        emit_params(o, job, false);
        put(o, ")\n{\n    gip_body<%s>(", vec ? "true" : "false");
        for (int k = 0; k < job->n_inputs; k++)
            put(o, "in%d, st%d, ", k, k);
        put(o, "out, sto, W, H, prm);\n}\n");
    }
}

/* Tiled stencil geometry: blocks of TX x TY threads; each thread evaluates EX element columns
 * (TX apart: neighbouring threads read neighbouring shared words) by KY consecutive rows (the
 * loads its rows share are read from shared memory once). */
enum { TILE_TX = 32, TILE_TY = 8, TILE_EX = 4, TILE_KY = 4 };
#define TILE_SHARED_MAX (48 * 1024)

/* Elements per row of the shared tile for radius R and C channels. */
static int tile_width(int R, int C)
{
    return TILE_TX * TILE_EX + 2 * R * C;
}

static bool tile_fits(int R, int C)
{
    return (size_t)tile_width(R, C) * (size_t)(TILE_TY * TILE_KY + 2 * R) * sizeof(float) <=
           TILE_SHARED_MAX;
}

/* Tiled stencil: the block stages its output tile plus the radius halo in shared memory as floats
 * (the border rule applied while staging, only in tiles that reach past an edge), then every
 * output reads its neighbours from there. */
static void emit_tiled(out *o, const gip__expr_job *job)
{
    const int C = job->dst->channels, R = job->radius;
    const int TE = TILE_TX * TILE_EX, TH = TILE_TY * TILE_KY;
    const int SW = tile_width(R, C), SH = TH + 2 * R;
    const char *it = ctype(job->inputs[0].dtype), *ot = ctype(job->dst->dtype);
    /* Six blocks per SM (40 registers) for small expressions: the staging of one block then
     * overlaps the arithmetic of others. Large ones get more registers rather than spill. */
    put(o, "extern \"C\" __global__ void __launch_bounds__(%d, %d) gip_expr(", TILE_TX * TILE_TY,
        job->e->n <= 64 ? 6 : 4);
    emit_params(o, job, true);
    put(o,
        ")\n{\n    __shared__ float gip_sm[%d];\n"
        "    const int C = %d;\n    const long long WC = (long long)W * C;\n"
        "    const long long e0 = (long long)blockIdx.x * %d;\n"
        "    const long long g0 = e0 - %d;\n"
        "    for (long long y0 = (long long)blockIdx.y * %d; y0 < H; y0 += (long long)gridDim.y * "
        "%d) {\n"
        "        const bool inside = g0 >= 0 && g0 + %d <= WC && y0 >= %d && y0 + %d <= H;\n"
        "        __syncthreads();\n"
        "        for (int r = threadIdx.y; r < %d; r += %d) {\n"
        "            float *srow = gip_sm + r * %d;\n"
        "            if (inside) {\n"
        "                const %s *row = gip_row(in0, st0, y0 - %d + r) + g0;\n"
        "                for (int j = threadIdx.x; j < %d; j += %d)\n"
        "                    srow[j] = gip_cv(__ldg(row + j));\n"
        "            } else {\n"
        "                const long long by = gip_bidx(y0 - %d + r, H);\n"
        "                const %s *row = by < 0 ? 0 : gip_row(in0, st0, by);\n"
        "                for (int j = threadIdx.x; j < %d; j += %d) {\n"
        "                    const long long g = g0 + j;\n"
        "                    const long long px = (g >= 0 ? g : g - (C - 1)) / C;\n"
        "                    const int c = (int)(g - px * C);\n"
        "                    const long long bx = row ? gip_bidx(px, W) : -1;\n"
        "                    srow[j] = bx < 0 ? gip_bval(prm, c) : gip_cv(__ldg(row + bx * C + "
        "c));\n"
        "                }\n            }\n        }\n        __syncthreads();\n"
        "#pragma unroll 1\n"
        "        for (int i = 0; i < %d; i++) {\n"
        "            const int le = threadIdx.x + %d * i;\n"
        "            const long long ge = e0 + le;\n"
        "            const long long x = ge / C;\n"
        "            const int c = (int)(ge - x * C);\n"
        "            (void)x, (void)c;\n"
        "            float v[%d];\n#pragma unroll\n"
        "            for (int j = 0; j < %d; j++) {\n"
        "                const int ly = threadIdx.y * %d + j;\n"
        "                const long long y = y0 + ly;\n                (void)y;\n"
        "                const float *gip_s = gip_sm + ly * %d + le;\n"
        "                v[j] = ",
        SW * SH, C, TE, R * C, TH, TH, SW, R, TH + R, SH, TILE_TY, SW, it, R, SW, TILE_TX, R, it,
        SW, TILE_TX, TILE_EX, TILE_TX, TILE_KY, TILE_KY, TILE_KY, SW);
    gen g = {o, job, LOAD_TILE, SW};
    emit(&g, job->e->root);
    put(o,
        ";\n            }\n            if (ge < WC)\n#pragma unroll\n"
        "                for (int j = 0; j < %d; j++)\n"
        "                    if (y0 + threadIdx.y * %d + j < H)\n"
        "                        gip_st((%s *)((char *)out + (y0 + threadIdx.y * %d + j) * sto) + "
        "ge, v[j]);\n"
        "        }\n    }\n}\n",
        TILE_KY, TILE_KY, ot, TILE_KY);
}

/* Untiled stencil, for radii whose tile would not fit in shared memory: one element per thread
 * read from global memory, the border rule only for pixels within the radius of an edge. */
static void emit_direct(out *o, const gip__expr_job *job)
{
    const int C = job->dst->channels, R = job->radius;
    put(o, "extern \"C\" __global__ void gip_expr(");
    emit_params(o, job, true);
    put(o,
        ")\n{\n    const int C = %d;\n"
        "    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (e >= (long long)W * C)\n        return;\n"
        "    const long long x = e / C;\n"
        "    const int c = (int)(e - x * C);\n"
        "    (void)c;\n"
        "    for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < H;\n"
        "         y += (long long)gridDim.y * blockDim.y) {\n"
        "        float v;\n"
        "        if (x >= %d && x < W - %d && y >= %d && y < H - %d)\n            v = ",
        C, R, R, R, R);
    gen g = {o, job, LOAD_DIRECT, 0};
    emit(&g, job->e->root);
    put(o, ";\n        else\n            v = ");
    g.mode = LOAD_BORDER;
    emit(&g, job->e->root);
    put(o, ";\n        gip_st((%s *)((char *)out + y * sto) + e, v);\n    }\n}\n",
        ctype(job->dst->dtype));
}

char *gip__expr_cuda_source(const gip__expr_job *job)
{
    out o = {NULL, 0, 0, false};
    const int C = job->dst->channels;
    /* The first line names the layout and geometry the kernel assumes; the launcher reads it. */
    if (!job->stencil) {
        int V = map_vec(job);
        put(&o, "// gip_expr layout=map vec=%d\n", V);
    } else if (tile_fits(job->radius, C)) {
        put(&o, "// gip_expr layout=tile tile=%dx%d block=%dx%d\n", TILE_TX * TILE_EX,
            TILE_TY * TILE_KY, TILE_TX, TILE_TY);
    } else {
        put(&o, "// gip_expr layout=direct\n");
    }
    put(&o, "struct gip_params {\n    float scalar[%d];\n    float border[4];\n};\n",
        GIP_EXPR_MAX_SCALARS);
    emit_conversions(&o, job->dst->dtype);
    if (!job->stencil) {
        emit_map(&o, job, map_vec(job));
    } else {
        put(&o, "template <typename T> __device__ __forceinline__ const T *gip_row(const T *base, "
                "long long stride, long long y)\n"
                "{\n    return (const T *)((const char *)base + y * stride);\n}\n");
        emit_border(&o, job->border);
        /* The constant border value of channel c by selects: indexing the parameter array with a
         * run-time c would copy the parameters to local memory. */
        put(&o, "__device__ __forceinline__ float gip_bval(const gip_params &prm, int c)\n{\n"
                "    return c == 0 ? prm.border[0] : c == 1 ? prm.border[1] : c == 2 ? "
                "prm.border[2] : prm.border[3];\n}\n");
        if (tile_fits(job->radius, C)) {
            emit_tiled(&o, job);
        } else {
            put(&o,
                "template <typename T> __device__ __forceinline__ float gip_bld(const T *base, "
                "long long stride, int W, int H, long long x, long long y, int c, const "
                "gip_params &prm)\n"
                "{\n    const long long bx = gip_bidx(x, W), by = gip_bidx(y, H);\n"
                "    if (bx < 0 || by < 0)\n        return gip_bval(prm, c);\n"
                "    return gip_cv(__ldg(gip_row(base, stride, by) + (bx * %d + c)));\n}\n",
                C);
            emit_direct(&o, job);
        }
    }
    if (o.oom) {
        free(o.p);
        return NULL;
    }
    return o.p;
}
