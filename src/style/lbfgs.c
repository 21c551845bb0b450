/* SPDX-License-Identifier: MIT */
/* The optimisers of style transfer over the backend's vectors: L-BFGS with three step-length rules
 * (none and strong Wolfe as torch.optim.LBFGS, backtracking Armijo) and Adam. L-BFGS keeps its
 * history in one block and runs the two-loop recursion on the host over the history's dot
 * products ("vector-free" L-BFGS, Chen et al., NIPS 2014): one pass over the history for the dot
 * products and one for the direction per iteration, only scalars cross to the host. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "style.h"

#define OP "gip_style_transfer"
#define ARMIJO_C1 1e-4
#define WOLFE_C1 1e-4
#define WOLFE_C2 0.9
#define WOLFE_TOL 1e-9      /* torch's tolerance_change inside _strong_wolfe */
#define CURVATURE_MIN 1e-10 /* torch: a pair enters the history when y.s > 1e-10 */

/* ---- strong Wolfe --------------------------------------------------------------------------- */

/* Minimiser of the cubic through (x1, f1, g1), (x2, f2, g2), clamped to [lo, hi] (bounded) or to
 * the interval between x1 and x2; the middle when the cubic has no minimiser (torch's
 * _cubic_interpolate). */
static double cubic_min(double x1, double f1, double g1, double x2, double f2, double g2,
                        int bounded, double lo, double hi)
{
    if (!bounded) {
        lo = x1 <= x2 ? x1 : x2;
        hi = x1 <= x2 ? x2 : x1;
    }
    double d1 = g1 + g2 - 3.0 * (f1 - f2) / (x1 - x2);
    double d2sq = d1 * d1 - g1 * g2;
    if (d2sq >= 0) {
        double d2 = sqrt(d2sq), pos;
        if (x1 <= x2)
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2.0 * d2));
        else
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2.0 * d2));
        return fmin(fmax(pos, lo), hi); /* a NaN position gives lo */
    }
    return 0.5 * (lo + hi);
}

/* A gradient slot that neither a nor b holds. */
static int free_slot(int a, int b)
{
    for (int s = 0; s < 3; s++)
        if (s != a && s != b)
            return s;
    return 0;
}

gip_status gip__strong_wolfe(gip__phi_fn phi, void *arg, double f0, double gtd0, double t,
                             double d_norm, double c1, double c2, int max_ls,
                             gip__wolfe_result *out)
{
    gip_status st;
    double f_new, gtd_new;
    int slot_new = 0;
    if ((st = phi(arg, t, slot_new, &f_new, &gtd_new)) != GIP_OK)
        return st;
    int evals = 1, ls_iter = 0, done = 0, nb = 0;
    double t_prev = 0, f_prev = f0, gtd_prev = gtd0;
    int slot_prev = -1;
    double bt[2] = {0, 0}, bf[2] = {0, 0}, bg[2] = {0, 0};
    int bs[2] = {-1, -1};

    /* Bracketing: grow the step until an interval holds a point meeting the conditions. A value
     * that is not finite counts as too far (torch would carry the NaN on). */
    while (ls_iter < max_ls) {
        if (!isfinite(f_new) || f_new > f0 + c1 * t * gtd0 || (ls_iter > 1 && f_new >= f_prev) ||
            gtd_new >= 0) {
            bt[0] = t_prev, bf[0] = f_prev, bg[0] = gtd_prev, bs[0] = slot_prev;
            bt[1] = t, bf[1] = f_new, bg[1] = gtd_new, bs[1] = slot_new;
            nb = 2;
            break;
        }
        if (fabs(gtd_new) <= -c2 * gtd0) {
            bt[0] = t, bf[0] = f_new, bg[0] = gtd_new, bs[0] = slot_new;
            nb = 1;
            done = 1;
            break;
        }
        double lo = t + 0.01 * (t - t_prev), hi = t * 10.0, tmp = t;
        t = cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, 1, lo, hi);
        t_prev = tmp, f_prev = f_new, gtd_prev = gtd_new, slot_prev = slot_new;
        slot_new = free_slot(slot_prev, -1);
        if ((st = phi(arg, t, slot_new, &f_new, &gtd_new)) != GIP_OK)
            return st;
        evals++;
        ls_iter++;
    }
    if (ls_iter == max_ls) {
        bt[0] = 0, bf[0] = f0, bg[0] = gtd0, bs[0] = -1;
        bt[1] = t, bf[1] = f_new, bg[1] = gtd_new, bs[1] = slot_new;
        nb = 2;
    }

    /* Zoom: shrink the bracket by cubic interpolation until a point meets both conditions. */
    int low = 0, high = 1;
    if (nb == 2 && !(bf[0] <= bf[1]))
        low = 1, high = 0;
    int insufficient = 0;
    while (!done && ls_iter < max_ls) {
        if (fabs(bt[1] - bt[0]) * d_norm < WOLFE_TOL)
            break;
        t = cubic_min(bt[0], bf[0], bg[0], bt[1], bf[1], bg[1], 0, 0, 0);
        double bmax = fmax(bt[0], bt[1]), bmin = fmin(bt[0], bt[1]);
        double eps = 0.1 * (bmax - bmin);
        if (fmin(bmax - t, t - bmin) < eps) {
            /* Too close to an end: after two such steps, or on the end, move 10 % inside. */
            if (insufficient || t >= bmax || t <= bmin) {
                t = fabs(t - bmax) < fabs(t - bmin) ? bmax - eps : bmin + eps;
                insufficient = 0;
            } else {
                insufficient = 1;
            }
        } else {
            insufficient = 0;
        }
        int slot = free_slot(bs[0], bs[1]);
        if ((st = phi(arg, t, slot, &f_new, &gtd_new)) != GIP_OK)
            return st;
        evals++;
        ls_iter++;
        if (!isfinite(f_new) || f_new > f0 + c1 * t * gtd0 || f_new >= bf[low]) {
            bt[high] = t, bf[high] = f_new, bg[high] = gtd_new, bs[high] = slot;
            low = bf[0] <= bf[1] ? 0 : 1;
            high = 1 - low;
        } else {
            if (fabs(gtd_new) <= -c2 * gtd0) {
                done = 1;
            } else if (gtd_new * (bt[high] - bt[low]) >= 0) {
                bt[high] = bt[low], bf[high] = bf[low], bg[high] = bg[low], bs[high] = bs[low];
            }
            bt[low] = t, bf[low] = f_new, bg[low] = gtd_new, bs[low] = slot;
        }
    }
    out->t = bt[low];
    out->f = bf[low];
    out->gtd = bg[low];
    out->slot = bs[low];
    out->evals = evals;
    return GIP_OK;
}

/* ---- L-BFGS -----------------------------------------------------------------------------------
 */

/* The history. `block` holds rows of n floats: rows 0..2 are the staging rows V = (s, y, g) of the
 * last step and the current gradient, then physical slot a has s at row 3 + 2a and y at row
 * 4 + 2a. There are m + 1 physical slots so that a new pair always has a free one. */
typedef struct hist {
    int m, nslots;
    float *block;
    int used;        /* physical slots ever written: rows 3 .. 3 + 2 used are meaningful */
    int count;       /* live pairs */
    int *live;       /* their physical slots, oldest first */
    double *sy, *yy; /* nslots x nslots: sy[a][b] = s_a.y_b, yy[a][b] = y_a.y_b */
    double *sg, *yg; /* s_a.g, y_a.g for the current g */
    double *rho;     /* 1 / s_a.y_a */
    double *res;     /* rows_dot results: (3 + 2 nslots) x 3 */
    double *coef;    /* 2 nslots direction coefficients */
    double *al, *cy, *cs;
} hist;

static float *row(const hist *h, int r, int64_t n)
{
    return h->block + (int64_t)r * n;
}

/* Adds (V0, V1) to the history if its curvature is positive and refreshes s.g, y.g for V2 = g;
 * one pass over the history. */
static gip_status hist_update(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                              hist *h, int64_t n, double *gg)
{
    gip_status st;
    int nr = 3 + 2 * h->used;
    if ((st = be->rows_dot(ctx, bs, h->block, nr, h->block, 3, n, h->res)) != GIP_OK)
        return st;
    const double *R = h->res;
    double ys = R[0 * 3 + 1], yy = R[1 * 3 + 1];
    *gg = R[2 * 3 + 2];
    for (int k = 0; k < h->count; k++) {
        int a = h->live[k];
        h->sg[a] = R[(3 + 2 * a) * 3 + 2];
        h->yg[a] = R[(4 + 2 * a) * 3 + 2];
    }
    if (!(ys > CURVATURE_MIN))
        return GIP_OK;
    if (h->count == h->m) { /* drop the oldest */
        memmove(h->live, h->live + 1, (size_t)(h->m - 1) * sizeof *h->live);
        h->count--;
    }
    int a = 0;
    for (;; a++) { /* the lowest physical slot not live; there is one since count < nslots */
        int taken = 0;
        for (int k = 0; k < h->count; k++)
            taken |= h->live[k] == a;
        if (!taken)
            break;
    }
    /* s and y of a slot are adjacent rows, as V0 and V1 are: one copy of 2n floats. */
    if ((st = be->axpby(ctx, bs, 1.0, row(h, 0, n), 0.0, row(h, 3 + 2 * a, n), 2 * n)) != GIP_OK)
        return st;
    int P = h->nslots;
    for (int k = 0; k < h->count; k++) {
        int b = h->live[k];
        h->sy[a * P + b] = R[(4 + 2 * b) * 3 + 0]; /* s.y_b */
        h->sy[b * P + a] = R[(3 + 2 * b) * 3 + 1]; /* s_b.y */
        h->yy[a * P + b] = h->yy[b * P + a] = R[(4 + 2 * b) * 3 + 1];
    }
    h->sy[a * P + a] = ys;
    h->yy[a * P + a] = yy;
    h->sg[a] = R[0 * 3 + 2];
    h->yg[a] = R[1 * 3 + 2];
    h->rho[a] = 1.0 / ys;
    h->live[h->count++] = a;
    if (a + 1 > h->used)
        h->used = a + 1;
    return GIP_OK;
}

/* d = -H g by the two-loop recursion (Nocedal and Wright, algorithm 7.4, with torch's H0 =
 * s.y / y.y of the newest pair) carried out on coefficients over (g, s_a, y_a), then one pass. */
static gip_status direction(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                            hist *h, const float *g, float *d, int64_t n)
{
    int c = h->count, P = h->nslots;
    if (c == 0)
        return be->axpby(ctx, bs, -1.0, g, 0.0, d, n);
    const int *L = h->live;
    int nw = L[c - 1];
    double H = h->sy[nw * P + nw] / h->yy[nw * P + nw];
    /* q = g - sum a_j y_j: al_i = rho_i s_i.q from the newest down. */
    for (int i = c - 1; i >= 0; i--) {
        double sq = h->sg[L[i]];
        for (int j = i + 1; j < c; j++)
            sq -= h->al[j] * h->sy[L[i] * P + L[j]];
        h->al[i] = h->rho[L[i]] * sq;
    }
    /* r = H q + sum cs_j s_j = H g + sum cy_j y_j + sum cs_j s_j. */
    for (int j = 0; j < c; j++) {
        h->cy[j] = -H * h->al[j];
        h->cs[j] = 0.0;
    }
    for (int i = 0; i < c; i++) {
        int li = L[i];
        double yr = H * h->yg[li];
        for (int j = 0; j < c; j++)
            yr += h->cy[j] * h->yy[li * P + L[j]] + h->cs[j] * h->sy[L[j] * P + li];
        h->cs[i] += h->al[i] - h->rho[li] * yr;
    }
    memset(h->coef, 0, (size_t)(2 * h->used) * sizeof *h->coef);
    for (int j = 0; j < c; j++) {
        h->coef[2 * L[j]] = -h->cs[j];
        h->coef[2 * L[j] + 1] = -h->cy[j];
    }
    gip_status st = be->axpby(ctx, bs, -H, g, 0.0, d, n);
    return st ? st : be->rows_axpy(ctx, bs, row(h, 3, n), 2 * h->used, h->coef, n, d);
}

/* The line-search view of the problem: phi(t) = f(x + t d) with gradients in three slots. */
typedef struct ls_ctx {
    gip_context *ctx;
    const gip__style_backend *be;
    gip__style_state *bs;
    const float *x, *d;
    float *xt;
    float *gs[3];
    int32_t slot_eval[3]; /* evaluation number of each slot's gradient */
    int64_t n;
    gip__lbfgs_fn fn;
    void *arg;
    int32_t *evals;
} ls_ctx;

static gip_status phi_eval(void *arg, double t, int slot, double *f, double *gtd)
{
    ls_ctx *c = arg;
    gip_status st;
    if ((st = c->be->axpby(c->ctx, c->bs, 1.0, c->x, 0.0, c->xt, c->n)) != GIP_OK ||
        (st = c->be->axpby(c->ctx, c->bs, t, c->d, 1.0, c->xt, c->n)) != GIP_OK ||
        (st = c->fn(c->arg, c->xt, c->gs[slot], f)) != GIP_OK)
        return st;
    c->slot_eval[slot] = ++*c->evals;
    return c->be->dot(c->ctx, c->bs, c->gs[slot], c->d, c->n, gtd);
}

gip_status gip__lbfgs(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                      const gip__lbfgs_params *p, float *x0, int64_t n, gip__lbfgs_fn fn,
                      gip__lbfgs_iter_fn iter, void *arg, double *f_out, int32_t *evals_out)
{
    int ls = p->line_search ? p->line_search : GIP_STYLE_LS_ARMIJO;
    int m = p->history > 0 ? p->history : 10;
    int max_ls = p->max_evals_per_iter > 0   ? p->max_evals_per_iter
                 : ls == GIP_STYLE_LS_ARMIJO ? 20
                                             : 25;
    double lr = p->lr > 0 ? p->lr : 1.0;
    int P = m + 1;
    hist h = {0};
    h.m = m;
    h.nslots = P;
    float *d = NULL, *xn = NULL, *xbuf = NULL, *best = NULL, *gs[3] = {NULL, NULL, NULL};
    float *x = x0;
    int32_t evals = 0, best_eval = 1, cur_eval = 1;
    double f = 0, best_f = 0, gg;
    gip_status st = GIP_OK;
    h.live = calloc((size_t)P, sizeof *h.live);
    h.sy = calloc((size_t)P * P, sizeof(double));
    h.yy = calloc((size_t)P * P, sizeof(double));
    h.sg = calloc((size_t)P, sizeof(double));
    h.yg = calloc((size_t)P, sizeof(double));
    h.rho = calloc((size_t)P, sizeof(double));
    h.res = calloc((size_t)(3 + 2 * P) * 3, sizeof(double));
    h.coef = calloc((size_t)(2 * P), sizeof(double));
    h.al = calloc((size_t)P, sizeof(double));
    h.cy = calloc((size_t)P, sizeof(double));
    h.cs = calloc((size_t)P, sizeof(double));
    if (!h.live || !h.sy || !h.yy || !h.sg || !h.yg || !h.rho || !h.res || !h.coef || !h.al ||
        !h.cy || !h.cs) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, OP ": out of memory");
        goto out_free;
    }
    if ((st = be->alloc(ctx, bs, (3 + 2 * (int64_t)P) * n, &h.block)) != GIP_OK ||
        (st = be->alloc(ctx, bs, n, &d)) != GIP_OK || (st = be->alloc(ctx, bs, n, &xbuf)) != GIP_OK)
        goto out_free;
    xn = xbuf;
    for (int i = 0; i < 3; i++)
        if ((st = be->alloc(ctx, bs, n, &gs[i])) != GIP_OK)
            goto out_free;
    if (ls == GIP_STYLE_LS_NONE && (st = be->alloc(ctx, bs, n, &best)) != GIP_OK)
        goto out_free;
    float *g = row(&h, 2, n);

    if ((st = fn(arg, x, g, &f)) != GIP_OK || (st = be->dot(ctx, bs, g, g, n, &gg)) != GIP_OK)
        goto out_free;
    evals = 1;
    best_f = f;
    if (best && (st = be->axpby(ctx, bs, 1.0, x, 0.0, best, n)) != GIP_OK)
        goto out_free;
    if (iter && iter(arg, 0, evals, f, best_eval))
        goto out_done;
    for (int32_t it = 1; it <= p->iterations; it++) {
        double gtd;
        if (gg == 0.0)
            break; /* stationary point */
        if ((st = direction(ctx, be, bs, &h, g, d, n)) != GIP_OK ||
            (st = be->dot(ctx, bs, g, d, n, &gtd)) != GIP_OK)
            goto out_free;
        int restarted = 0;
        if (!(gtd < 0.0)) {
            /* Not a descent direction (curvature information went stale, or float rounding):
             * forget the history and take steepest descent. */
            h.count = 0;
            restarted = 1;
            if ((st = be->axpby(ctx, bs, -1.0, g, 0.0, d, n)) != GIP_OK)
                goto out_free;
            gtd = -gg;
        }
        double t, f_new = 0;
        int slot = 0;
        if (ls == GIP_STYLE_LS_ARMIJO) {
            /* Without history the step is scaled to unit length. */
        retry:
            t = h.count == 0 ? fmin(1.0, 1.0 / sqrt(gg)) : 1.0;
            int accepted = 0;
            for (int k = 0; k < max_ls; k++) {
                if ((st = be->axpby(ctx, bs, 1.0, x, 0.0, xn, n)) != GIP_OK ||
                    (st = be->axpby(ctx, bs, t, d, 1.0, xn, n)) != GIP_OK ||
                    (st = fn(arg, xn, gs[0], &f_new)) != GIP_OK)
                    goto out_free;
                evals++;
                if (isfinite(f_new) && f_new <= f + ARMIJO_C1 * t * gtd) {
                    accepted = 1;
                    break;
                }
                /* Minimiser of the quadratic through f, the slope gtd and f_new, kept in
                 * [0.1 t, 0.5 t]; plain halving when f_new is not finite. */
                double tn = 0.5 * t;
                if (isfinite(f_new)) {
                    double den = 2.0 * (f_new - f - gtd * t);
                    if (den > 0)
                        tn = -gtd * t * t / den;
                    tn = fmin(fmax(tn, 0.1 * t), 0.5 * t);
                }
                t = tn;
            }
            if (!accepted) {
                if (h.count > 0 && !restarted) {
                    h.count = 0;
                    restarted = 1;
                    if ((st = be->axpby(ctx, bs, -1.0, g, 0.0, d, n)) != GIP_OK)
                        goto out_free;
                    gtd = -gg;
                    goto retry;
                }
                break; /* no decrease along steepest descent either: converged in float */
            }
            cur_eval = evals;
        } else {
            /* torch: the very first step is min(1, 1 / |g|_1) lr, later ones lr. */
            t = lr;
            if (it == 1) {
                double l1, linf;
                if ((st = be->abs_norms(ctx, bs, g, n, &l1, &linf)) != GIP_OK)
                    goto out_free;
                t = fmin(1.0, 1.0 / l1) * lr;
            }
            if (ls == GIP_STYLE_LS_NONE) {
                if ((st = be->axpby(ctx, bs, 1.0, x, 0.0, xn, n)) != GIP_OK ||
                    (st = be->axpby(ctx, bs, t, d, 1.0, xn, n)) != GIP_OK ||
                    (st = fn(arg, xn, gs[0], &f_new)) != GIP_OK)
                    goto out_free;
                cur_eval = ++evals;
            } else {
                double l1, d_norm;
                if ((st = be->abs_norms(ctx, bs, d, n, &l1, &d_norm)) != GIP_OK)
                    goto out_free;
                ls_ctx lc = {ctx,       be, bs, x,   d,     xn, {gs[0], gs[1], gs[2]},
                             {0, 0, 0}, n,  fn, arg, &evals};
                gip__wolfe_result wr;
                if ((st = gip__strong_wolfe(phi_eval, &lc, f, gtd, t, d_norm, WOLFE_C1, WOLFE_C2,
                                            max_ls, &wr)) != GIP_OK)
                    goto out_free;
                if (wr.slot < 0)
                    break; /* no step along d lowers the loss: converged in float */
                t = wr.t;
                f_new = wr.f;
                slot = wr.slot;
                cur_eval = lc.slot_eval[slot];
                /* xn holds the last trial; the point returned may be an earlier one. */
                if ((st = be->axpby(ctx, bs, 1.0, x, 0.0, xn, n)) != GIP_OK ||
                    (st = be->axpby(ctx, bs, t, d, 1.0, xn, n)) != GIP_OK)
                    goto out_free;
            }
        }
        /* V = (s, y, g) = (t d, g_new - g, g_new), then the history and s.g, y.g for g_new. */
        float *gn = gs[slot];
        if ((st = be->axpby(ctx, bs, t, d, 0.0, row(&h, 0, n), n)) != GIP_OK ||
            (st = be->axpby(ctx, bs, 1.0, gn, 0.0, row(&h, 1, n), n)) != GIP_OK ||
            (st = be->axpby(ctx, bs, -1.0, g, 1.0, row(&h, 1, n), n)) != GIP_OK ||
            (st = be->axpby(ctx, bs, 1.0, gn, 0.0, g, n)) != GIP_OK)
            goto out_free;
        float *tmp = x;
        x = xn;
        xn = tmp;
        f = f_new;
        if ((st = hist_update(ctx, be, bs, &h, n, &gg)) != GIP_OK)
            goto out_free;
        if (best) {
            /* No line search: the loss may rise; keep the best point. */
            if (f < best_f) {
                best_f = f;
                best_eval = cur_eval;
                if ((st = be->axpby(ctx, bs, 1.0, x, 0.0, best, n)) != GIP_OK)
                    goto out_free;
            }
        } else {
            best_f = f;
            best_eval = cur_eval;
        }
        if (!isfinite(f) && !best)
            break;
        if (iter && iter(arg, it, evals, best_f, best_eval))
            break;
    }
out_done:
    if (best && best_f < f)
        x = best;
    if (x != x0 && (st = be->axpby(ctx, bs, 1.0, x, 0.0, x0, n)) != GIP_OK)
        goto out_free;
    if (f_out)
        *f_out = best ? best_f : f;
    if (evals_out)
        *evals_out = evals;
out_free:
    /* x and xn swap between x0 and xbuf; xbuf is ours. */
    be->free(ctx, bs, h.block);
    be->free(ctx, bs, d);
    be->free(ctx, bs, xbuf);
    be->free(ctx, bs, best);
    for (int i = 0; i < 3; i++)
        be->free(ctx, bs, gs[i]);
    free(h.live);
    free(h.sy);
    free(h.yy);
    free(h.sg);
    free(h.yg);
    free(h.rho);
    free(h.res);
    free(h.coef);
    free(h.al);
    free(h.cy);
    free(h.cs);
    return st;
}

/* ---- Adam -------------------------------------------------------------------------------------
 */
#define ADAM_B1 0.9
#define ADAM_B2 0.999
#define ADAM_EPS 1e-8

gip_status gip__adam(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                     int32_t iterations, double lr, float *x, int64_t n, gip__lbfgs_fn fn,
                     gip__lbfgs_iter_fn iter, void *arg, double *f_out, int32_t *evals_out)
{
    float *g = NULL, *mo = NULL, *vo = NULL, *best = NULL;
    double f, best_f;
    int32_t evals = 0, best_eval = 1;
    gip_status st;
    if ((st = be->alloc(ctx, bs, n, &g)) != GIP_OK || (st = be->alloc(ctx, bs, n, &mo)) != GIP_OK ||
        (st = be->alloc(ctx, bs, n, &vo)) != GIP_OK ||
        (st = be->alloc(ctx, bs, n, &best)) != GIP_OK)
        goto out_free;
    if ((st = fn(arg, x, g, &f)) != GIP_OK ||
        (st = be->axpby(ctx, bs, 1.0, x, 0.0, best, n)) != GIP_OK)
        goto out_free;
    evals = 1;
    best_f = f;
    if (!(iter && iter(arg, 0, evals, best_f, best_eval))) {
        for (int32_t it = 1; it <= iterations; it++) {
            if ((st = be->adam(ctx, bs, x, g, mo, vo, n, lr, ADAM_B1, ADAM_B2, ADAM_EPS, it)) !=
                    GIP_OK ||
                (st = fn(arg, x, g, &f)) != GIP_OK)
                goto out_free;
            evals++;
            if (f < best_f) {
                best_f = f;
                best_eval = evals;
                if ((st = be->axpby(ctx, bs, 1.0, x, 0.0, best, n)) != GIP_OK)
                    goto out_free;
            }
            if (iter && iter(arg, it, evals, best_f, best_eval))
                break;
        }
    }
    if ((st = be->axpby(ctx, bs, 1.0, best, 0.0, x, n)) != GIP_OK)
        goto out_free;
    if (f_out)
        *f_out = best_f;
    if (evals_out)
        *evals_out = evals;
out_free:
    be->free(ctx, bs, g);
    be->free(ctx, bs, mo);
    be->free(ctx, bs, vo);
    be->free(ctx, bs, best);
    return st;
}
