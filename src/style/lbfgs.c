/* SPDX-License-Identifier: MIT */
/* L-BFGS over the backend's vectors: two-loop recursion, history m, backtracking Armijo line search
 * with safeguarded quadratic interpolation; only scalars come back to the host. */
#include <math.h>
#include <stdlib.h>

#include "style.h"

#define ARMIJO_C1 1e-4

typedef struct lbfgs_mem {
    float **s, **y;
    double *rho, *alpha;
    int m, count, head; /* ring of the last `count` pairs; head is the next slot */
} lbfgs_mem;

/* d = -H g by the two-loop recursion (Nocedal and Wright, algorithm 7.4). */
static gip_status direction(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                            lbfgs_mem *mem, const float *g, float *d, int64_t n)
{
    gip_status st;
    if ((st = be->axpby(ctx, bs, 1.0, g, 0.0, d, n)) != GIP_OK)
        return st;
    for (int k = 0; k < mem->count; k++) {
        int i = (mem->head - 1 - k + mem->m) % mem->m;
        double sq;
        if ((st = be->dot(ctx, bs, mem->s[i], d, n, &sq)) != GIP_OK)
            return st;
        mem->alpha[i] = mem->rho[i] * sq;
        if ((st = be->axpby(ctx, bs, -mem->alpha[i], mem->y[i], 1.0, d, n)) != GIP_OK)
            return st;
    }
    if (mem->count > 0) {
        int last = (mem->head - 1 + mem->m) % mem->m;
        double yy;
        if ((st = be->dot(ctx, bs, mem->y[last], mem->y[last], n, &yy)) != GIP_OK)
            return st;
        double gamma = yy > 0 ? 1.0 / (mem->rho[last] * yy) : 1.0; /* s.y / y.y */
        if ((st = be->axpby(ctx, bs, 0.0, NULL, gamma, d, n)) != GIP_OK)
            return st;
    }
    for (int k = mem->count - 1; k >= 0; k--) {
        int i = (mem->head - 1 - k + mem->m) % mem->m;
        double yq;
        if ((st = be->dot(ctx, bs, mem->y[i], d, n, &yq)) != GIP_OK)
            return st;
        double beta = mem->rho[i] * yq;
        if ((st = be->axpby(ctx, bs, mem->alpha[i] - beta, mem->s[i], 1.0, d, n)) != GIP_OK)
            return st;
    }
    return be->axpby(ctx, bs, 0.0, NULL, -1.0, d, n);
}

gip_status gip__lbfgs(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                      const gip__lbfgs_params *p, float *x0, int64_t n, gip__lbfgs_fn fn,
                      gip__lbfgs_iter_fn iter, void *arg, double *f_out, int32_t *evals_out)
{
    int m = p->history > 0 ? p->history : 10;
    int max_ls = p->max_evals_per_iter > 0 ? p->max_evals_per_iter : 20;
    lbfgs_mem mem = {0};
    mem.m = m;
    float *g = NULL, *d = NULL, *xn = NULL, *gn = NULL;
    float *x = x0;
    int32_t evals = 0;
    double f = 0;
    gip_status st = GIP_OK;
    mem.s = calloc((size_t)m, sizeof *mem.s);
    mem.y = calloc((size_t)m, sizeof *mem.y);
    mem.rho = calloc((size_t)m, sizeof *mem.rho);
    mem.alpha = calloc((size_t)m, sizeof *mem.alpha);
    if (!mem.s || !mem.y || !mem.rho || !mem.alpha) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
        goto out_free;
    }
    if ((st = be->alloc(ctx, bs, n, &g)) != GIP_OK || (st = be->alloc(ctx, bs, n, &d)) != GIP_OK ||
        (st = be->alloc(ctx, bs, n, &xn)) != GIP_OK || (st = be->alloc(ctx, bs, n, &gn)) != GIP_OK)
        goto out_free;
    for (int i = 0; i < m; i++)
        if ((st = be->alloc(ctx, bs, n, &mem.s[i])) != GIP_OK ||
            (st = be->alloc(ctx, bs, n, &mem.y[i])) != GIP_OK)
            goto out_free;

    if ((st = fn(arg, x, g, &f)) != GIP_OK)
        goto out_free;
    evals++;
    if (iter && iter(arg, 0, evals, f))
        goto out_done;
    for (int32_t it = 1; it <= p->iterations; it++) {
        double gtd, gg;
        int restarted = 0;
    retry:
        if ((st = direction(ctx, be, bs, &mem, g, d, n)) != GIP_OK ||
            (st = be->dot(ctx, bs, g, d, n, &gtd)) != GIP_OK ||
            (st = be->dot(ctx, bs, g, g, n, &gg)) != GIP_OK)
            goto out_free;
        if (gg == 0.0)
            goto out_done; /* stationary point */
        if (!(gtd < 0.0)) {
            /* Not a descent direction (curvature information went stale): steepest descent. */
            mem.count = 0;
            if ((st = be->axpby(ctx, bs, -1.0, g, 0.0, d, n)) != GIP_OK)
                goto out_free;
            gtd = -gg;
        }
        /* Without history the step is scaled to unit length, as PyTorch's first step is. */
        double t = mem.count == 0 ? fmin(1.0, 1.0 / sqrt(gg)) : 1.0;
        double fn_val = 0;
        int accepted = 0;
        for (int ls = 0; ls < max_ls; ls++) {
            if ((st = be->axpby(ctx, bs, 1.0, x, 0.0, xn, n)) != GIP_OK ||
                (st = be->axpby(ctx, bs, t, d, 1.0, xn, n)) != GIP_OK ||
                (st = fn(arg, xn, gn, &fn_val)) != GIP_OK)
                goto out_free;
            evals++;
            if (isfinite(fn_val) && fn_val <= f + ARMIJO_C1 * t * gtd) {
                accepted = 1;
                break;
            }
            /* Minimiser of the quadratic through f, the slope gtd and fn_val, kept in
             * [0.1 t, 0.5 t]; plain halving when fn_val is not finite. */
            double tn = 0.5 * t;
            if (isfinite(fn_val)) {
                double den = 2.0 * (fn_val - f - gtd * t);
                if (den > 0)
                    tn = -gtd * t * t / den;
                tn = fmin(fmax(tn, 0.1 * t), 0.5 * t);
            }
            t = tn;
        }
        if (!accepted) {
            if (mem.count > 0 && !restarted) {
                mem.count = 0;
                restarted = 1;
                goto retry;
            }
            break; /* no decrease along steepest descent either: converged in float precision */
        }
        /* s = xn - x = t d, y = gn - g; keep the pair when the curvature is positive. */
        int slot = mem.head;
        double sy, yy;
        if ((st = be->axpby(ctx, bs, t, d, 0.0, mem.s[slot], n)) != GIP_OK ||
            (st = be->axpby(ctx, bs, 1.0, gn, 0.0, mem.y[slot], n)) != GIP_OK ||
            (st = be->axpby(ctx, bs, -1.0, g, 1.0, mem.y[slot], n)) != GIP_OK ||
            (st = be->dot(ctx, bs, mem.s[slot], mem.y[slot], n, &sy)) != GIP_OK ||
            (st = be->dot(ctx, bs, mem.y[slot], mem.y[slot], n, &yy)) != GIP_OK)
            goto out_free;
        if (sy > 1e-10 * yy && sy > 0) {
            mem.rho[slot] = 1.0 / sy;
            mem.head = (mem.head + 1) % m;
            if (mem.count < m)
                mem.count++;
        }
        float *tmp = x;
        x = xn;
        xn = tmp;
        tmp = g;
        g = gn;
        gn = tmp;
        f = fn_val;
        if (iter && iter(arg, it, evals, f))
            break;
    }
out_done:
    if (x != x0 && (st = be->axpby(ctx, bs, 1.0, x, 0.0, x0, n)) != GIP_OK)
        goto out_free;
    if (f_out)
        *f_out = f;
    if (evals_out)
        *evals_out = evals;
out_free:
    /* x0 is the caller's; whichever of the two point buffers is not x0 is ours. */
    if (x != x0)
        xn = x;
    be->free(ctx, bs, g);
    be->free(ctx, bs, d);
    be->free(ctx, bs, xn);
    be->free(ctx, bs, gn);
    for (int i = 0; i < m; i++) {
        if (mem.s)
            be->free(ctx, bs, mem.s[i]);
        if (mem.y)
            be->free(ctx, bs, mem.y[i]);
    }
    free(mem.s);
    free(mem.y);
    free(mem.rho);
    free(mem.alpha);
    return st;
}
