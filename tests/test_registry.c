/* SPDX-License-Identifier: MIT */
/* The registry, walked as a table: every registered operation's declaration is well formed; each
 * runs through gip_op_apply() on every dtype and channel count it declares, giving what the same
 * step gives in a parsed pipeline, and on CUDA what the CPU gives (integer outputs identical,
 * within one level for operations declared GIP_OP_INEXACT; f32 within 1e-4); every parameter is
 * refused below and above its range, every operation refuses dtypes and channel counts it does not
 * declare, and messages name what was wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static gip_context *cpu_ctx; /* the CPU reference on a CUDA run */

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};

static void declarations(void)
{
    const int32_t n = gip_op_count();
    GT_CHECK(n >= 11, "%d operations registered", (int)n);
    for (int32_t i = 0; i < n; i++) {
        const gip_op *op = gip_op_at(i);
        if (!GT_CHECK(op != NULL, "operation %d is NULL", (int)i))
            continue;
        if (i > 0)
            GT_CHECK(strcmp(gip_op_at(i - 1)->name, op->name) < 0,
                     "table not in name order at %s, %s", gip_op_at(i - 1)->name, op->name);
        GT_CHECK(gip_op_find(op->name) == op, "gip_op_find(%s)", op->name);
        GT_CHECK(op->summary && *op->summary && op->doc && *op->doc && op->family,
                 "%s lacks a summary, doc or family", op->name);
        GT_CHECK(op->dtypes && op->channels && (op->run || op->run_inputs) && op->build,
                 "%s lacks dtypes, channels, run or build", op->name);
        GT_CHECK((op->ninputs > 0) == (op->run_inputs != NULL) && op->ninputs <= 8 &&
                     (op->ninputs == 0) == (op->inputs == NULL),
                 "%s: inputs, ninputs (at most 8) and run_inputs go together", op->name);
        for (int32_t k = 0; k < op->ninputs; k++) {
            const gip_input *in = &op->inputs[k];
            bool name_ok = in->name && *in->name;
            for (const char *q = in->name; name_ok && *q; q++)
                name_ok = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_';
            GT_CHECK(name_ok && in->doc && *in->doc, "%s input %d: a bad name or no doc", op->name,
                     (int)k);
            GT_CHECK(!gip_op_param(op, in->name), "%s: input %s is also a parameter", op->name,
                     in->name);
        }
        for (int32_t k = 0; k < op->nparams; k++) {
            const gip_param *p = &op->params[k];
            bool name_ok = p->name && *p->name;
            for (const char *q = p->name; name_ok && *q; q++)
                name_ok = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_';
            GT_CHECK(name_ok, "%s parameter %d has a bad name", op->name, (int)k);
            GT_CHECK(p->doc && *p->doc, "%s.%s has no doc", op->name, p->name);
            GT_CHECK((p->def == NULL) == ((p->flags & GIP_PARAM_REQUIRED) != 0),
                     "%s.%s: a default exactly when not required", op->name, p->name);
            GT_CHECK(p->type != GIP_PARAM_CHOICE || (p->choices && p->choices[0].name),
                     "%s.%s: a choice without choices", op->name, p->name);
            GT_CHECK(gip_op_param(op, p->name) == p, "%s.%s declared twice", op->name, p->name);
        }
        gip_args *a = gt_example_args(op);
        gip_args_free(a);
    }
    GT_CHECK(gip_op_find("no_such_op") == NULL, "unknown name found");
    GT_CHECK(strstr(gip_last_error(), "no operation 'no_such_op'") &&
                 strstr(gip_last_error(), "gaussian"),
             "unknown operation message: %s", gip_last_error());
    GT_CHECK(gip_op_at(-1) == NULL && gip_op_at(n) == NULL, "out-of-range index");
}

/* Each parameter below and above its range, of the wrong type, and unknown: refused with a
 * message naming it, and the arguments unchanged. */
static void bad_arguments(void)
{
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        gip_args *a = gt_example_args(op);
        if (!a)
            continue;
        for (int32_t k = 0; k < op->nparams; k++) {
            const gip_param *p = &op->params[k];
            char below[64], above[64];
            bool ranged = p->type == GIP_PARAM_INT || p->type == GIP_PARAM_DOUBLE ||
                          p->type == GIP_PARAM_SIZE || p->type == GIP_PARAM_LIST;
            if (ranged) {
                if (p->type == GIP_PARAM_DOUBLE || p->type == GIP_PARAM_LIST) {
                    snprintf(below, sizeof below, "%.17g", p->min - fabs(p->min) * 0.5 - 1);
                    snprintf(above, sizeof above, "%.17g", p->max + fabs(p->max) * 0.5 + 1);
                } else {
                    snprintf(below, sizeof below, "%.0f", p->min - 1);
                    snprintf(above, sizeof above, "%.0f", p->max + 1);
                }
                const char *vals[] = {below, above};
                for (int v = 0; v < 2; v++) {
                    if (p->type == GIP_PARAM_SIZE && vals[v][0] == '-')
                        continue; /* a size's text has no sign: the parse refuses it below */
                    const int32_t was_set = gip_args_is_set(a, p->name);
                    gip_status st = gip_args_set_text(a, p->name, vals[v]);
                    GT_CHECK(st == GIP_ERR_INVALID_ARGUMENT, "%s.%s=%s: status %s", op->name,
                             p->name, vals[v], gip_status_name(st));
                    GT_CHECK(strstr(gip_last_error(), p->name) != NULL,
                             "%s.%s=%s: message '%s' does not name it", op->name, p->name, vals[v],
                             gip_last_error());
                    GT_CHECK(gip_args_is_set(a, p->name) == was_set, "%s.%s set by a refused value",
                             op->name, p->name);
                }
            }
            if (p->type != GIP_PARAM_STRING) {
                gip_status st = gip_args_set_text(a, p->name, "zz");
                GT_CHECK(st == GIP_ERR_INVALID_ARGUMENT, "%s.%s=zz: status %s", op->name, p->name,
                         gip_status_name(st));
            }
            if (p->type == GIP_PARAM_INT && p->flags & GIP_PARAM_ODD) {
                gip_status st = gip_args_set_int(a, p->name, 2);
                GT_CHECK(st == GIP_ERR_INVALID_ARGUMENT, "%s.%s=2 (even): status %s", op->name,
                         p->name, gip_status_name(st));
            }
        }
        GT_STATUS(gip_args_set_text(a, "no_such_param", "1"), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_args_set_text(NULL, "x", "1"), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_args_set_text(a, NULL, "1"), GIP_ERR_INVALID_ARGUMENT);
        gip_args_free(a);
    }
    GT_STATUS(gip_args_create(NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_args_free(NULL);
}

/* Runs op on a host image (and its extra inputs) through gip_op_apply_inputs on ctx (uploading
 * on a CUDA context). With bare, optional inputs are left out, as a pipeline step runs. */
static gip_status apply_inputs(gip_context *ctx, const gip_args *a, const gip_image *src,
                               const gip_image *in, int32_t nin, const gip_shape *os,
                               gip_image *out, bool bare)
{
    gt_alloc(out, os->width, os->height, os->channels, os->dtype, 0);
    const gip_op *op = gip_args_op(a);
    const gip_image *use[8];
    for (int32_t k = 0; k < nin && k < 8; k++)
        use[k] = bare && (op->inputs[k].flags & GIP_INPUT_OPTIONAL) ? NULL : &in[k];
    return gt_run_op(ctx, a, src, use, nin, out, 0xCD);
}

static gip_status apply(gip_context *ctx, const gip_args *a, const gip_image *src,
                        const gip_image *in, int32_t nin, const gip_shape *os, gip_image *out)
{
    return apply_inputs(ctx, a, src, in, nin, os, out, false);
}

/* Whether op reads an image a pipeline cannot give it. */
static bool needs_inputs(const gip_op *op)
{
    for (int32_t k = 0; k < op->ninputs; k++)
        if (!(op->inputs[k].flags & GIP_INPUT_OPTIONAL))
            return true;
    return false;
}

/* The same step through a parsed pipeline (text: the name and the examples). */
static gip_status through_pipeline(gip_context *ctx, const gip_op *op, const gip_image *src,
                                   const gip_shape *os, gip_image *out)
{
    char text[4096]; /* lut's example table is 256 numbers */
    size_t len = (size_t)snprintf(text, sizeof text, "%s", op->name);
    for (int32_t k = 0; k < op->nparams; k++)
        if (op->params[k].example)
            len += (size_t)snprintf(text + len, sizeof text - len, " %s='%s'", op->params[k].name,
                                    op->params[k].example);
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *p = NULL;
    gip_status st = gip_pipeline_create(&d, &p);
    if (st)
        return st;
    gip_parse_error err;
    if (!(st = gip_pipeline_parse(p, text, &err))) {
        gt_alloc(out, os->width, os->height, os->channels, os->dtype, 0);
        st = gip_pipeline_run(p, src, out);
    } else {
        GT_CHECK(needs_inputs(op), "'%s' does not parse: %s", text, err.message);
    }
    gip_pipeline_free(p);
    (void)ctx;
    return st;
}

static void walk(gip_context *ctx)
{
    const bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    uint64_t seed = 99;
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        gip_args *a = gt_example_args(op);
        if (!a)
            continue;
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++, seed++) {
                const gip_dtype dt = dtypes[d];
                const int32_t ch = chans[c];
                if (!gt_case())
                    continue;
                gip_image src;
                gt_alloc(&src, 37, 23, ch, dt, seed % 2 ? 6 : 0);
                gt_fill_random(&src, seed, 0, dt == GIP_F32 ? 1.0f : 0);
                gip_shape in = {src.width, src.height, ch, dt}, os;
                gip_status st = gip_op_output_shape(a, &in, &os);
                if (st == GIP_ERR_SHAPE_MISMATCH) {
                    /* Frame layouts (yuv) take even sizes and heights of 3k: 36x24 fits them. */
                    gt_free(&src);
                    gt_alloc(&src, 36, 24, ch, dt, seed % 2 ? 6 : 0);
                    gt_fill_random(&src, seed, 0, dt == GIP_F32 ? 1.0f : 0);
                    in.width = 36, in.height = 24;
                    st = gip_op_output_shape(a, &in, &os);
                }
                if (!gip_op_accepts(op, dt, ch)) {
                    GT_CHECK(st == GIP_ERR_UNSUPPORTED,
                             "%s on %s c%d (not declared): output_shape status %s", op->name,
                             gip_dtype_name(dt), (int)ch, gip_status_name(st));
                    gip_image dst;
                    gt_alloc(&dst, 37, 23, ch, dt, 0);
                    st = gip_op_apply(cpu_ctx ? cpu_ctx : ctx, a, &src, &dst);
                    GT_CHECK(st == GIP_ERR_UNSUPPORTED && strstr(gip_last_error(), op->name),
                             "%s on %s c%d (not declared): apply status %s, message '%s'", op->name,
                             gip_dtype_name(dt), (int)ch, gip_status_name(st), gip_last_error());
                    gt_free(&dst);
                    gt_free(&src);
                    continue;
                }
                if (!GT_OK(st)) {
                    gt_free(&src);
                    continue;
                }
                char label[160];
                snprintf(label, sizeof label, "%s %s c%d on %s", op->name, gip_dtype_name(dt),
                         (int)ch, cuda ? "cuda" : "cpu");
                gip_image got, exp, more[8];
                const int32_t nin = gt_make_inputs(op, &src, seed * 31, more);
                /* Against the pipeline step, optional inputs (a second operand, a mask) are
                 * left out as the step leaves them out; CUDA against the CPU takes them all. */
                st = apply_inputs(ctx, a, &src, more, nin, &os, &got, !cuda && !needs_inputs(op));
                if (!cuda && needs_inputs(op)) {
                    /* No pipeline reference: the step is refused, naming what it lacks. */
                    GT_CHECK(st == GIP_OK, "%s: %s (%s)", label, gip_status_name(st),
                             gip_last_error());
                    gt_alloc(&exp, os.width, os.height, os.channels, os.dtype, 0);
                    gip_status se = through_pipeline(ctx, op, &src, &os, &exp);
                    GT_CHECK(se == GIP_ERR_INVALID_ARGUMENT, "%s: as a pipeline step: %s", label,
                             gip_status_name(se));
                    gt_free(&exp);
                } else if (GT_CHECK(st == GIP_OK, "%s: %s (%s)", label, gip_status_name(st),
                                    gip_last_error())) {
                    gip_status se = cuda ? apply(cpu_ctx, a, &src, more, nin, &os, &exp)
                                         : through_pipeline(ctx, op, &src, &os, &exp);
                    if (GT_CHECK(se == GIP_OK, "%s: reference run: %s", label, gip_last_error())) {
                        /* f32 within 1e-4; integers equal, or within one level where the
                         * operation declares float transforms under them (GIP_OP_INEXACT). */
                        double atol = os.dtype == GIP_F32                    ? 1e-4
                                      : cuda && (op->flags & GIP_OP_INEXACT) ? 1
                                                                             : 0;
                        gt_compare(&got, &exp, atol, os.dtype == GIP_F32 ? 1e-4 : 0, label);
                    }
                    gt_free(&exp);
                }
                gt_free(&got);
                gt_free(&src);
                for (int32_t k = 0; k < nin; k++)
                    gt_free(&more[k]);
            }
        /* Two channels is never declared. */
        gip_shape two = {8, 8, 2, GIP_U8}, o;
        GT_STATUS(gip_op_output_shape(a, &two, &o), GIP_ERR_UNSUPPORTED);
        gip_args_free(a);
    }
}

static void body(gip_context *ctx)
{
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu_ctx)))
            return;
        walk(ctx);
        gip_context_destroy(cpu_ctx);
        cpu_ctx = NULL;
        return;
    }
    if (gt_case())
        declarations();
    if (gt_case())
        bad_arguments();
    walk(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "registry", body);
}
