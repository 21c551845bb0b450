/* SPDX-License-Identifier: MIT */
/* The CPU backend of map and stencil expressions: the syntax tree compiled to a register program
 * whose every instruction works on a run of up to 256 values of a row, interpreted on the
 * context's threads (row bands). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "expr.h"

#define LANES 256
#define MAX_REGS 48

/* Opcodes beyond the operators of expr.h. */
enum { I_LOAD = GIP__OP_COUNT, I_ADD_LOAD };

typedef struct insn {
    uint8_t op;
    uint8_t d, a, b, c;
    uint8_t input;
    int16_t dx, dy;
} insn;

typedef struct program {
    insn code[GIP__EXPR_MAX_NODES];
    int32_t n_code;
    int32_t n_regs;
    int32_t result;
    /* Registers holding one value for the whole run: filled once per band. */
    int32_t n_uniform;
    uint8_t uniform_reg[MAX_REGS];
    float uniform_val[MAX_REGS];
    int8_t uniform_scalar[MAX_REGS]; /* scalar index, or -1 for a constant */
    int32_t reg_x, reg_y, reg_c;     /* -1 when unused */
} program;

typedef struct compiler {
    program *p;
    const gip__expr *e;
    const gip__expr_job *job;
    uint64_t temp_busy; /* bit r: temporary register r holds a live value */
    bool overflow;
} compiler;

static int alloc_reg(compiler *cc)
{
    for (int r = 0; r < MAX_REGS; r++) {
        bool uniform = false;
        for (int k = 0; k < cc->p->n_uniform; k++)
            uniform |= cc->p->uniform_reg[k] == r;
        if (uniform || r == cc->p->reg_x || r == cc->p->reg_y || r == cc->p->reg_c)
            continue;
        if (!(cc->temp_busy & (1ull << r))) {
            cc->temp_busy |= 1ull << r;
            if (r + 1 > cc->p->n_regs)
                cc->p->n_regs = r + 1;
            return r;
        }
    }
    cc->overflow = true;
    return 0;
}

static void free_reg(compiler *cc, int r)
{
    cc->temp_busy &= ~(1ull << r);
}

static bool is_temp(const compiler *cc, int r)
{
    return (cc->temp_busy >> r) & 1;
}

/* A register holding a run-wide value: a constant (deduplicated by bits) or scalar. */
static int uniform_reg(compiler *cc, float v, int scalar)
{
    program *p = cc->p;
    for (int k = 0; k < p->n_uniform; k++)
        if (p->uniform_scalar[k] == scalar &&
            (scalar >= 0 || memcmp(&p->uniform_val[k], &v, sizeof v) == 0))
            return p->uniform_reg[k];
    if (p->n_uniform >= MAX_REGS) {
        cc->overflow = true;
        return 0;
    }
    int r = alloc_reg(cc);
    free_reg(cc, r); /* uniform registers are never temporaries */
    int k = p->n_uniform++;
    p->uniform_reg[k] = (uint8_t)r;
    p->uniform_val[k] = v;
    p->uniform_scalar[k] = (int8_t)scalar;
    return r;
}

static void emit(compiler *cc, insn i)
{
    if (cc->p->n_code >= GIP__EXPR_MAX_NODES) {
        cc->overflow = true;
        return;
    }
    cc->p->code[cc->p->n_code++] = i;
}

static int gen(compiler *cc, int id)
{
    const gip__expr_node *n = &cc->e->node[id];
    const gip__expr_job *job = cc->job;
    switch (n->kind) {
    case GIP__N_NUM:
        return uniform_reg(cc, n->num, -1);
    case GIP__N_SCALAR:
        return uniform_reg(cc, job->scalars[n->index], n->index);
    case GIP__N_VAR:
        switch (n->op) {
        case GIP__V_X:
            return cc->p->reg_x;
        case GIP__V_Y:
            return cc->p->reg_y;
        case GIP__V_C:
            return cc->p->reg_c;
        case GIP__V_WIDTH:
            return uniform_reg(cc, (float)job->dst->width, -1);
        case GIP__V_HEIGHT:
            return uniform_reg(cc, (float)job->dst->height, -1);
        default:
            return uniform_reg(cc, (float)job->dst->channels, -1);
        }
    case GIP__N_LOAD: {
        int d = alloc_reg(cc);
        insn i = {I_LOAD, (uint8_t)d, 0, 0, 0, (uint8_t)n->index, n->dx, n->dy};
        emit(cc, i);
        return d;
    }
    default: {
        int arity = gip__expr_arity(n->op);
        int a = gen(cc, n->a);
        int b = arity >= 2 ? gen(cc, n->b) : a;
        int c = arity >= 3 ? gen(cc, n->c) : a;
        /* The destination differs from every operand so that the loops may assume no overlap. */
        int d = alloc_reg(cc);
        insn i = {(uint8_t)n->op, (uint8_t)d, (uint8_t)a, (uint8_t)b, (uint8_t)c, 0, 0, 0};
        emit(cc, i);
        if (is_temp(cc, a))
            free_reg(cc, a);
        if (is_temp(cc, b))
            free_reg(cc, b);
        if (is_temp(cc, c))
            free_reg(cc, c);
        return d;
    }
    }
}

/* Fuses "t = load; d = s + t" (either operand order) into d = s + load, the stencil's sum: one
 * pass over the run instead of two. The tree is compiled without sharing, so t is read by that
 * addition only. The sum order is unchanged (addition is commutative in IEEE
 * arithmetic), so the result is bit-identical. */
static void fuse(program *p)
{
    int out = 0;
    for (int k = 0; k < p->n_code; k++) {
        insn i = p->code[k];
        if (k + 1 < p->n_code && i.op == I_LOAD && p->code[k + 1].op == GIP__OP_ADD) {
            insn add = p->code[k + 1];
            int other = add.a == i.d ? add.b : add.b == i.d ? add.a : -1;
            if (other >= 0 && other != i.d) {
                insn f = {I_ADD_LOAD, add.d, (uint8_t)other, 0, 0, i.input, i.dx, i.dy};
                p->code[out++] = f;
                k++;
                continue;
            }
        }
        p->code[out++] = i;
    }
    p->n_code = out;
}

static void collect_uniforms(compiler *cc, int id)
{
    const gip__expr_node *n = &cc->e->node[id];
    if (n->kind == GIP__N_OP) {
        collect_uniforms(cc, n->a);
        if (n->b >= 0)
            collect_uniforms(cc, n->b);
        if (n->c >= 0)
            collect_uniforms(cc, n->c);
    } else if (n->kind != GIP__N_LOAD) {
        if (!(n->kind == GIP__N_VAR &&
              (n->op == GIP__V_X || n->op == GIP__V_Y || n->op == GIP__V_C)))
            (void)gen(cc, id);
    }
}

static bool compile(const gip__expr_job *job, program *p)
{
    memset(p, 0, sizeof *p);
    p->reg_x = p->reg_y = p->reg_c = -1;
    compiler cc = {p, job->e, job, 0, false};
    /* Coordinates get fixed registers (filled per run or per row). */
    int next = 0;
    if (job->e->vars_used & (1u << GIP__V_X))
        p->reg_x = next++;
    if (job->e->vars_used & (1u << GIP__V_Y))
        p->reg_y = next++;
    if (job->e->vars_used & (1u << GIP__V_C))
        p->reg_c = next++;
    p->n_regs = next;
    /* Run-wide values first, so that no temporary ever used their registers (they are filled
     * once per band, not per run). */
    collect_uniforms(&cc, job->e->root);
    p->result = gen(&cc, job->e->root);
    if (cc.overflow)
        return false;
    fuse(p);
    return true;
}

/* ---- interpreter ---------------------------------------------------------------------------- */

typedef struct band_state {
    const gip__expr_job *job;
    const program *prog;
    int64_t width, height, wc;
    int32_t channels;
} band_state;

static void convert(float *restrict d, const void *src, gip_dtype dt, int n)
{
    if (dt == GIP_U8) {
        const uint8_t *s = src;
        for (int i = 0; i < n; i++)
            d[i] = (float)s[i];
    } else if (dt == GIP_U16) {
        const uint16_t *s = src;
        for (int i = 0; i < n; i++)
            d[i] = (float)s[i];
    } else {
        memcpy(d, src, (size_t)n * sizeof(float));
    }
}

static void convert_add(float *restrict d, const float *restrict a, const void *src, gip_dtype dt,
                        int n)
{
    if (dt == GIP_U8) {
        const uint8_t *s = src;
        for (int i = 0; i < n; i++)
            d[i] = a[i] + (float)s[i];
    } else if (dt == GIP_U16) {
        const uint16_t *s = src;
        for (int i = 0; i < n; i++)
            d[i] = a[i] + (float)s[i];
    } else {
        const float *s = src;
        for (int i = 0; i < n; i++)
            d[i] = a[i] + s[i];
    }
}

static float element(const void *row, gip_dtype dt, int64_t i)
{
    if (dt == GIP_U8)
        return (float)((const uint8_t *)row)[i];
    if (dt == GIP_U16)
        return (float)((const uint16_t *)row)[i];
    return ((const float *)row)[i];
}

/* Loads the run [e0, e0 + n) of row y's elements of input k displaced by (dx, dy) into d, with the
 * border rule where the displaced pixel is outside the image. `row` is the input's row y + dy after
 * the border rule, NULL for a constant border row. With `add`, d = add + value instead. */
static void load_run(const band_state *s, float *restrict d, const float *add, int k,
                     const void *row, int64_t e0, int n, int dx)
{
    const gip__expr_job *job = s->job;
    gip_dtype dt = job->inputs[k].dtype;
    int32_t C = s->channels;
    int64_t px0 = e0 / C, px1 = (e0 + n - 1) / C;
    size_t es = gip_dtype_size(dt);
    if (row && px0 + dx >= 0 && px1 + dx < s->width) {
        const char *src = (const char *)row + (size_t)(e0 + (int64_t)dx * C) * es;
        if (add)
            convert_add(d, add, src, dt, n);
        else
            convert(d, src, dt, n);
        return;
    }
    int64_t px = px0;
    int32_t c = (int32_t)(e0 - px0 * C);
    for (int i = 0; i < n; i++) {
        float v;
        int64_t bx = row ? gip__border_index(px + dx, s->width, job->border) : -1;
        v = bx < 0 ? job->border_value[c] : element(row, dt, bx * C + c);
        d[i] = add ? add[i] + v : v;
        if (++c == C) {
            c = 0;
            px++;
        }
    }
}

/* v rounded half to even and saturated to 0..max, as gip__sat_u8_f32 / gip__sat_u16_f32 do, but
 * in a form the compiler vectorises (lrintf is a library call): after clamping to [-1, max + 1],
 * adding and subtracting 1.5 * 2^23 rounds to the nearest integer, ties to even, in the default
 * rounding mode. NaN becomes 0. A test compares this with the shared helpers value by value. */
static inline int32_t round_sat(float v, int32_t max)
{
    const float magic = 12582912.0f;
    float f = v > -1.0f ? v : -1.0f;
    f = f < (float)(max + 1) ? f : (float)(max + 1);
    int32_t r = (int32_t)((f + magic) - magic);
    return r < 0 ? 0 : r > max ? max : r;
}

/* Stores n values to a row of dt: u8 and u16 through round_sat(), f32 as they are. */
static void store_run(void *dst, gip_dtype dt, const float *restrict v, int n)
{
    if (dt == GIP_U8) {
        uint8_t *d = dst;
        for (int i = 0; i < n; i++)
            d[i] = (uint8_t)round_sat(v[i], 255);
    } else if (dt == GIP_U16) {
        uint16_t *d = dst;
        for (int i = 0; i < n; i++)
            d[i] = (uint16_t)round_sat(v[i], 65535);
    } else {
        memcpy(dst, v, (size_t)n * sizeof(float));
    }
}

#define CASE1(OP)                                                                                  \
    case OP:                                                                                       \
        for (int i = 0; i < n; i++)                                                                \
            d[i] = gip__expr_apply(OP, a[i], 0.0f, 0.0f);                                          \
        break;
#define CASE2(OP)                                                                                  \
    case OP:                                                                                       \
        for (int i = 0; i < n; i++)                                                                \
            d[i] = gip__expr_apply(OP, a[i], b[i], 0.0f);                                          \
        break;
#define CASE3(OP)                                                                                  \
    case OP:                                                                                       \
        for (int i = 0; i < n; i++)                                                                \
            d[i] = gip__expr_apply(OP, a[i], b[i], c[i]);                                          \
        break;

static void run_band(void *arg, int64_t y0, int64_t y1)
{
    const band_state *s = arg;
    const gip__expr_job *job = s->job;
    const program *p = s->prog;
    int R = job->radius;
    float regs[MAX_REGS][LANES] __attribute__((aligned(64)));
    /* Row pointers of each input for each dy in [-R, R], after the border rule (NULL: constant). */
    const void *rows[GIP_EXPR_MAX_INPUTS][2 * GIP_STENCIL_MAX_RADIUS + 1];

    for (int k = 0; k < p->n_uniform; k++) {
        float v =
            p->uniform_scalar[k] >= 0 ? job->scalars[p->uniform_scalar[k]] : p->uniform_val[k];
        for (int i = 0; i < LANES; i++)
            regs[p->uniform_reg[k]][i] = v;
    }
    for (int64_t y = y0; y < y1; y++) {
        if (p->reg_y >= 0)
            for (int i = 0; i < LANES; i++)
                regs[p->reg_y][i] = (float)y;
        for (int k = 0; k < job->n_inputs; k++) {
            if (!(job->e->inputs_used & (1u << k)))
                continue;
            const gip_image *in = &job->inputs[k];
            for (int dy = -R; dy <= R; dy++) {
                int64_t ry = gip__border_index(y + dy, s->height, job->border);
                rows[k][dy + R] = ry < 0 ? NULL : (const char *)in->data + ry * in->stride;
            }
        }
        char *drow = (char *)job->dst->data + y * job->dst->stride;
        size_t des = gip_dtype_size(job->dst->dtype);
        for (int64_t e0 = 0; e0 < s->wc; e0 += LANES) {
            int n = (int)(s->wc - e0 < LANES ? s->wc - e0 : LANES);
            if (p->reg_x >= 0 || p->reg_c >= 0) {
                int64_t px = e0 / s->channels;
                int32_t c = (int32_t)(e0 - px * s->channels);
                for (int i = 0; i < n; i++) {
                    if (p->reg_x >= 0)
                        regs[p->reg_x][i] = (float)px;
                    if (p->reg_c >= 0)
                        regs[p->reg_c][i] = (float)c;
                    if (++c == s->channels) {
                        c = 0;
                        px++;
                    }
                }
            }
            for (int k = 0; k < p->n_code; k++) {
                const insn *in = &p->code[k];
                float *restrict d = regs[in->d];
                const float *a = regs[in->a], *b = regs[in->b], *c = regs[in->c];
                switch (in->op) {
                case I_LOAD:
                    load_run(s, d, NULL, in->input, rows[in->input][in->dy + R], e0, n, in->dx);
                    break;
                case I_ADD_LOAD:
                    load_run(s, d, a, in->input, rows[in->input][in->dy + R], e0, n, in->dx);
                    break;
                    CASE1(GIP__OP_NEG)
                    CASE1(GIP__OP_NOT)
                    CASE1(GIP__OP_ABS)
                    CASE1(GIP__OP_SQRT)
                    CASE1(GIP__OP_EXP)
                    CASE1(GIP__OP_LOG)
                    CASE1(GIP__OP_FLOOR)
                    CASE1(GIP__OP_CEIL)
                    CASE1(GIP__OP_ROUND)
                    CASE1(GIP__OP_SIN)
                    CASE1(GIP__OP_COS)
                    CASE2(GIP__OP_ADD)
                    CASE2(GIP__OP_SUB)
                    CASE2(GIP__OP_MUL)
                    CASE2(GIP__OP_DIV)
                    CASE2(GIP__OP_MOD)
                    CASE2(GIP__OP_LT)
                    CASE2(GIP__OP_LE)
                    CASE2(GIP__OP_GT)
                    CASE2(GIP__OP_GE)
                    CASE2(GIP__OP_EQ)
                    CASE2(GIP__OP_NE)
                    CASE2(GIP__OP_AND)
                    CASE2(GIP__OP_OR)
                    CASE2(GIP__OP_MIN)
                    CASE2(GIP__OP_MAX)
                    CASE2(GIP__OP_POW)
                    CASE3(GIP__OP_CLAMP)
                    CASE3(GIP__OP_SELECT)
                default:
                    break;
                }
            }
            store_run(drow + (size_t)e0 * des, job->dst->dtype, regs[p->result], n);
        }
    }
}

gip_status gip__expr_run_cpu(gip_context *ctx, const char *op, const gip__expr_job *job)
{
    program *p = malloc(sizeof *p);
    if (!p)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    if (!compile(job, p)) {
        free(p);
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "%s: the expression needs more than %d registers or instructions; "
                          "split it",
                          op, MAX_REGS);
    }
    band_state s = {job,
                    p,
                    job->dst->width,
                    job->dst->height,
                    job->dst->width * job->dst->channels,
                    job->dst->channels};
    /* About 64K values per band keeps the scheduling cost small next to the work. */
    int64_t grain = 65536 / (s.wc > 0 ? s.wc : 1);
    gip__parallel_for(ctx, job->dst->height, grain < 1 ? 1 : grain, run_band, &s);
    free(p);
    return GIP_OK;
}
