/* SPDX-License-Identifier: MIT */
/* Tests of style transfer: convolution forward and input gradient and the Gram matrix against
 * double references, a finite-difference check of the total loss's gradient, L-BFGS on a convex
 * quadratic and on Rosenbrock's function with each step rule, the strong-Wolfe search on functions
 * of the step, Adam's first steps in closed form, the optimisers' backend primitives, the
 * safetensors reader's bad-input table, the public
 * function's bad-input table, and small end-to-end runs (loss falls with every optimiser,
 * deterministic; on CUDA it also agrees with the CPU). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gip/style.h"
#include "ref_style.h"
#include "style/style.h"
#include "testing.h"

static const gip__style_backend *backend_for(gip_context *ctx)
{
    return gip_context_backend(ctx) == GIP_BACKEND_CUDA ? gip__style_cuda_backend()
                                                        : &gip__style_cpu;
}

static void fill_normal(float *a, int64_t n, uint64_t seed, double sd)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++)
        a[i] = (float)(sd * gip__style_rand_normal(&s));
}

/* Buffer in the backend's memory holding host values. */
static float *to_backend(gip_context *ctx, const gip__style_backend *be, gip__style_state *st,
                         const float *host, int64_t n)
{
    float *d = NULL;
    if (!GT_OK(be->alloc(ctx, st, n, &d)))
        return NULL;
    GT_OK(be->upload(ctx, st, d, host, n));
    return d;
}

/* Largest |got - exp| / (atol + rtol |exp|); <= 1 passes. */
static double worst(const float *got, const double *exp, int64_t n, double atol, double rtol,
                    int64_t *at)
{
    double wv = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(got[i] - exp[i]) / (atol + rtol * fabs(exp[i]));
        if (!(e <= wv)) {
            wv = isnan(e) ? INFINITY : e;
            *at = i;
        }
    }
    return wv;
}

/* ---- convolution and Gram against the references ------------------------------------------ */
static void test_conv_gram(gip_context *ctx, const gip__style_backend *be)
{
    gip_net *net;
    if (!GT_OK(gip__net_random_slim(7, 16, &net)))
        return;
    /* Non-zero biases so the bias path is checked. */
    for (int l = 0; l < 3; l++)
        fill_normal(net->conv[l].b, net->conv[l].cout, 100 + l, 0.3);
    gip__style_state *st;
    if (!GT_OK(be->create(ctx, net, 2, GIP_STYLE_NO_TF32, &st))) {
        gip_net_free(net);
        return;
    }
    const int64_t sizes[][2] = {{1, 1}, {13, 11}, {5, 40}, {33, 17}};
    for (int si = 0; si < 4; si++)
        for (int l = 0; l < 3; l += 2) {
            int64_t h = sizes[si][0], w = sizes[si][1];
            const gip__conv *c = &net->conv[l];
            int64_t nin = (int64_t)c->cin * h * w, nout = (int64_t)c->cout * h * w;
            float *in = malloc(nin * sizeof(float)), *gout = malloc(nout * sizeof(float));
            int64_t nmax = nin > nout ? nin : nout;
            nmax = nmax > (int64_t)c->cout * c->cout ? nmax : (int64_t)c->cout * c->cout;
            float *got = malloc(nmax * sizeof(float));
            double *exp = malloc(nmax * sizeof(double));
            fill_normal(in, nin, 11 + si, 1.0);
            fill_normal(gout, nout, 21 + si, 1.0);
            float *din = to_backend(ctx, be, st, in, nin),
                  *dgo = to_backend(ctx, be, st, gout, nout);
            float *dout = NULL, *dgin = NULL;
            GT_OK(be->alloc(ctx, st, nout, &dout));
            GT_OK(be->alloc(ctx, st, nin, &dgin));
            int64_t at = 0;
            /* Tolerance: float sums of up to 9 * cin = 36 products of unit-scale terms. */
            GT_OK(be->conv_fwd(ctx, st, l, din, dout, h, w));
            GT_OK(be->download(ctx, st, got, dout, nout));
            ref_conv3x3(in, c->w, c->b, c->cin, c->cout, h, w, 1, exp);
            double e = worst(got, exp, nout, 1e-5, 1e-4, &at);
            GT_CHECK(e <= 1.0, "conv_fwd layer %d %lldx%lld: element %lld got %g expected %g", l,
                     (long long)w, (long long)h, (long long)at, got[at], exp[at]);
            GT_OK(be->conv_bwd(ctx, st, l, dgo, dgin, h, w));
            GT_OK(be->download(ctx, st, got, dgin, nin));
            ref_conv3x3_bwd_data(gout, c->w, c->cin, c->cout, h, w, exp);
            e = worst(got, exp, nin, 1e-5, 1e-4, &at);
            GT_CHECK(e <= 1.0, "conv_bwd layer %d %lldx%lld: element %lld got %g expected %g", l,
                     (long long)w, (long long)h, (long long)at, got[at], exp[at]);
            /* Gram of the forward output (c x hw). */
            float *dg = NULL;
            int64_t cc = c->cout;
            GT_OK(be->alloc(ctx, st, cc * cc, &dg));
            GT_OK(be->gram(ctx, st, dout, dg, cc, h * w));
            float *fo = malloc(nout * sizeof(float));
            GT_OK(be->download(ctx, st, fo, dout, nout));
            GT_OK(be->download(ctx, st, got, dg, cc * cc));
            ref_gram(fo, cc, h * w, exp);
            e = worst(got, exp, cc * cc, 1e-6, 1e-4, &at);
            GT_CHECK(e <= 1.0, "gram %lldx%lld: element %lld got %g expected %g", (long long)w,
                     (long long)h, (long long)at, got[at], exp[at]);
            free(fo);
            be->free(ctx, st, dg);
            be->free(ctx, st, din);
            be->free(ctx, st, dgo);
            be->free(ctx, st, dout);
            be->free(ctx, st, dgin);
            free(in);
            free(gout);
            free(got);
            free(exp);
        }
    be->destroy(ctx, st);
    gip_net_free(net);
}

/* ---- finite-difference check of the total loss ------------------------------------------- */
static void test_gradient(gip_context *ctx, const gip__style_backend *be, int avg)
{
    gip_net *net;
    if (!GT_OK(gip__net_random_slim(3, 16, &net)))
        return;
    const int64_t h = 20, w = 24, n = 3 * h * w;
    float *c = malloc(n * sizeof(float)), *s = malloc(n * sizeof(float));
    float *x = malloc(n * sizeof(float)), *g = malloc(n * sizeof(float));
    float *d = malloc(n * sizeof(float)), *xp = malloc(n * sizeof(float));
    fill_normal(c, n, 1, 1.0);
    fill_normal(s, n, 2, 1.0);
    fill_normal(x, n, 3, 1.0);
    gip__style_config cfg = {0};
    cfg.content_layers = GIP_STYLE_CONTENT_DEFAULT | GIP_VGG_BIT(GIP_VGG_CONV1_2);
    cfg.style_layers = GIP_STYLE_STYLE_DEFAULT;
    cfg.content_weight = 1.0;
    cfg.style_weight = 5.0;
    cfg.tv_weight = 0.5;
    for (int l = 0; l < GIP__VGG_LAYERS; l++)
        cfg.layer_weight[l] = 1.0 + 0.1 * l;
    cfg.avg_pool = avg;
    cfg.layer_norm = 1;
    cfg.flags = GIP_STYLE_NO_TF32;
    gip__style_state *st = NULL;
    gip__style_eval *ev = NULL;
    float *dc = NULL, *ds = NULL, *dx = NULL, *dg = NULL;
    if (!GT_OK(be->create(ctx, net, gip__style_last_layer(&cfg), cfg.flags, &st)))
        goto out;
    dc = to_backend(ctx, be, st, c, n);
    ds = to_backend(ctx, be, st, s, n);
    dx = to_backend(ctx, be, st, x, n);
    GT_OK(be->alloc(ctx, st, n, &dg));
    if (!GT_OK(gip__style_eval_create(ctx, be, st, net, &cfg, dc, h, w, ds, h, w, &ev)))
        goto out;
    double f0, terms[3];
    GT_OK(gip__style_eval_run(ev, dx, dg, &f0, terms));
    GT_OK(be->download(ctx, st, g, dg, n));
    GT_CHECK(terms[0] > 0 && terms[1] > 0 && terms[2] > 0, "every loss term is positive: %g %g %g",
             terms[0], terms[1], terms[2]);
    /* Directional derivatives along random directions: central differences with a step small
     * against the features' scale (ReLU kinks and max-pool switches are rarely crossed). The
     * tolerance: 5 % for the curvature left in a central difference on this very non-linear random
     * network, plus the loss's float rounding (about 1e-7 relative) divided by the step. */
    const double eps = 2e-4;
    const double noise = 1e-7 * fabs(f0) / eps;
    for (int k = 0; k < 4; k++) {
        fill_normal(d, n, 40 + k, 1.0);
        double gd = 0, fp, fm;
        for (int64_t i = 0; i < n; i++)
            gd += (double)g[i] * d[i];
        for (int64_t i = 0; i < n; i++)
            xp[i] = x[i] + (float)(eps * d[i]);
        GT_OK(be->upload(ctx, st, dx, xp, n));
        GT_OK(gip__style_eval_run(ev, dx, dg, &fp, NULL));
        for (int64_t i = 0; i < n; i++)
            xp[i] = x[i] - (float)(eps * d[i]);
        GT_OK(be->upload(ctx, st, dx, xp, n));
        GT_OK(gip__style_eval_run(ev, dx, dg, &fm, NULL));
        double fd = (fp - fm) / (2 * eps);
        GT_CHECK(fabs(fd - gd) <= 5e-2 * fabs(gd) + noise,
                 "%s pool, direction %d: finite difference %.6g, gradient %.6g (loss %.6g)",
                 avg ? "avg" : "max", k, fd, gd, f0);
    }
    /* Single pixels: central differences with a ten times larger step. */
    for (int k = 0; k < 6; k++) {
        int64_t i = (int64_t)((k * 2654435761u) % (uint64_t)n);
        double fp, fm;
        memcpy(xp, x, n * sizeof(float));
        xp[i] = x[i] + (float)(10 * eps);
        GT_OK(be->upload(ctx, st, dx, xp, n));
        GT_OK(gip__style_eval_run(ev, dx, dg, &fp, NULL));
        xp[i] = x[i] - (float)(10 * eps);
        GT_OK(be->upload(ctx, st, dx, xp, n));
        GT_OK(gip__style_eval_run(ev, dx, dg, &fm, NULL));
        double fd = (fp - fm) / (20 * eps);
        GT_CHECK(fabs(fd - g[i]) <= 5e-2 * fabs(g[i]) + noise / 10,
                 "%s pool, pixel %lld: finite difference %.6g, gradient %.6g", avg ? "avg" : "max",
                 (long long)i, fd, g[i]);
    }
out:
    gip__style_eval_destroy(ev);
    if (st) {
        be->free(ctx, st, dc);
        be->free(ctx, st, ds);
        be->free(ctx, st, dx);
        be->free(ctx, st, dg);
        be->destroy(ctx, st);
    }
    free(c);
    free(s);
    free(x);
    free(g);
    free(d);
    free(xp);
    gip_net_free(net);
}

/* ---- L-BFGS ------------------------------------------------------------------------------- */
typedef struct quad {
    int64_t n;
    double a[64], c[64];
} quad;

static gip_status quad_fn(void *arg, const float *x, float *g, double *f)
{
    quad *q = arg;
    double s = 0;
    for (int64_t i = 0; i < q->n; i++) {
        double d = x[i] - q->c[i];
        s += 0.5 * q->a[i] * d * d;
        g[i] = (float)(q->a[i] * d);
    }
    *f = s;
    return GIP_OK;
}

static gip_status rosen_fn(void *arg, const float *x, float *g, double *f)
{
    double a = x[0], b = x[1];
    *f = (1 - a) * (1 - a) + 100 * (b - a * a) * (b - a * a);
    g[0] = (float)(-2 * (1 - a) - 400 * a * (b - a * a));
    g[1] = (float)(200 * (b - a * a));
    return GIP_OK;
}

static double last_f;
static int32_t iters_seen;
static int monotone_ok;
static int track_iter(void *arg, int32_t it, int32_t evals, double f, int32_t best_eval)
{
    if (it > 0 && f > last_f)
        monotone_ok = 0;
    last_f = f;
    iters_seen = it;
    return 0;
}

static int stop_at_five(void *arg, int32_t it, int32_t evals, double f, int32_t best_eval)
{
    iters_seen = it;
    return it >= 5;
}

static void test_lbfgs(gip_context *ctx)
{
    const gip__style_backend *be = &gip__style_cpu;
    quad q = {50, {0}, {0}};
    uint64_t s = 5;
    for (int i = 0; i < 50; i++) {
        q.a[i] = 1.0 + 99.0 * (double)(gip__style_rand_u64(&s) >> 11) / 9007199254740992.0;
        q.c[i] = gip__style_rand_normal(&s);
    }
    float x[64] = {0};
    gip__lbfgs_params p = {100, 10, 20};
    double f;
    int32_t evals;
    monotone_ok = 1;
    GT_OK(gip__lbfgs(ctx, be, NULL, &p, x, 50, quad_fn, track_iter, &q, &f, &evals));
    double err = 0;
    for (int i = 0; i < 50; i++)
        err = fmax(err, fabs(x[i] - q.c[i]));
    GT_CHECK(err < 1e-4 && f < 1e-7, "quadratic: max |x - c| = %g, f = %g after %d evaluations",
             err, f, (int)evals);
    GT_CHECK(monotone_ok, "quadratic: accepted values never rise");

    float r[2] = {-1.2f, 1.0f};
    gip__lbfgs_params pr = {200, 10, 30};
    monotone_ok = 1;
    GT_OK(gip__lbfgs(ctx, be, NULL, &pr, r, 2, rosen_fn, track_iter, NULL, &f, &evals));
    GT_CHECK(fabs(r[0] - 1) < 2e-3 && fabs(r[1] - 1) < 4e-3,
             "Rosenbrock: reached (%g, %g), f = %g, expected (1, 1)", r[0], r[1], f);
    GT_CHECK(monotone_ok, "Rosenbrock: accepted values never rise");
    /* A stop request from the callback ends the run after that iteration. */
    float r2[2] = {-1.2f, 1.0f};
    GT_OK(gip__lbfgs(ctx, be, NULL, &pr, r2, 2, rosen_fn, stop_at_five, NULL, &f, &evals));
    GT_CHECK(iters_seen == 5, "stopped after iteration %d, expected 5", (int)iters_seen);
}

/* ---- the optimisers' backend primitives against double references ------------------------- */
static void test_opt_primitives(gip_context *ctx, const gip__style_backend *be)
{
    gip_net *net;
    if (!GT_OK(gip__net_random_slim(3, 16, &net)))
        return;
    gip__style_state *st;
    if (!GT_OK(be->create(ctx, net, 0, GIP_STYLE_NO_TF32, &st))) {
        gip_net_free(net);
        return;
    }
    const int64_t ns[] = {1, 37, 70001};
    for (int k = 0; k < 3; k++) {
        int64_t n = ns[k], nr = 7, nv = 3;
        float *rows = malloc(nr * n * sizeof(float)), *y = malloc(n * sizeof(float));
        float *yg = malloc(n * sizeof(float));
        double coef[7], out[21];
        fill_normal(rows, nr * n, 10 + k, 1.0);
        fill_normal(y, n, 20 + k, 1.0);
        for (int r = 0; r < nr; r++)
            coef[r] = 0.3 * r - 1.0;
        float *drows = to_backend(ctx, be, st, rows, nr * n), *dy = to_backend(ctx, be, st, y, n);
        if (drows && dy) {
            /* rows . vecs with the vecs the first three rows (as L-BFGS uses it). */
            if (GT_OK(be->rows_dot(ctx, st, drows, nr, drows, nv, n, out))) {
                double wv = 0;
                for (int r = 0; r < nr; r++)
                    for (int j = 0; j < nv; j++) {
                        double e = 0, mag = 0;
                        for (int64_t i = 0; i < n; i++) {
                            e += (double)rows[r * n + i] * rows[j * n + i];
                            mag += fabs((double)rows[r * n + i] * rows[j * n + i]);
                        }
                        /* double accumulation: rounding of the sum only */
                        wv = fmax(wv, fabs(out[r * nv + j] - e) / (1e-12 + 1e-12 * mag));
                    }
                GT_CHECK(wv <= 1.0, "%s rows_dot n=%lld: error %g of the tolerance", be->name,
                         (long long)n, wv);
            }
            if (GT_OK(be->rows_axpy(ctx, st, drows, nr, coef, n, dy)) &&
                GT_OK(be->download(ctx, st, yg, dy, n))) {
                double wv = 0;
                for (int64_t i = 0; i < n; i++) {
                    double e = y[i], mag = fabs(y[i]);
                    for (int r = 0; r < nr; r++) {
                        e += coef[r] * rows[r * n + i];
                        mag += fabs(coef[r] * rows[r * n + i]);
                    }
                    wv = fmax(wv, fabs(yg[i] - e) / (1e-6 * mag + 1e-30));
                }
                GT_CHECK(wv <= 1.0, "%s rows_axpy n=%lld: error %g of the tolerance", be->name,
                         (long long)n, wv);
            }
            double l1, linf, e1 = 0, einf = 0;
            for (int64_t i = 0; i < n; i++) {
                e1 += fabs((double)rows[i]);
                einf = fmax(einf, fabs((double)rows[i]));
            }
            if (GT_OK(be->abs_norms(ctx, st, drows, n, &l1, &linf)))
                GT_CHECK(fabs(l1 - e1) <= 1e-12 * e1 && linf == einf,
                         "%s abs_norms n=%lld: %.17g %.9g, expected %.17g %.9g", be->name,
                         (long long)n, l1, linf, e1, einf);
        }
        be->free(ctx, st, drows);
        be->free(ctx, st, dy);
        free(rows);
        free(y);
        free(yg);
    }
    /* One Adam step on the backend against the formula in double. */
    {
        int64_t n = 1001;
        float *h = malloc(4 * n * sizeof(float)), *got = malloc(3 * n * sizeof(float));
        fill_normal(h, 4 * n, 77, 1.0);
        for (int64_t i = 0; i < n; i++)
            h[3 * n + i] = fabsf(h[3 * n + i]); /* v >= 0 */
        float *dx = to_backend(ctx, be, st, h, n), *dg = to_backend(ctx, be, st, h + n, n);
        float *dm = to_backend(ctx, be, st, h + 2 * n, n);
        float *dv = to_backend(ctx, be, st, h + 3 * n, n);
        if (dx && dg && dm && dv &&
            GT_OK(be->adam(ctx, st, dx, dg, dm, dv, n, 0.01, 0.9, 0.999, 1e-8, 3)) &&
            GT_OK(be->download(ctx, st, got, dx, n)) &&
            GT_OK(be->download(ctx, st, got + n, dm, n)) &&
            GT_OK(be->download(ctx, st, got + 2 * n, dv, n))) {
            double wv = 0;
            for (int64_t i = 0; i < n; i++) {
                double g = h[n + i];
                double m = 0.9 * h[2 * n + i] + 0.1 * g, v = 0.999 * h[3 * n + i] + 0.001 * g * g;
                double x =
                    h[i] - 0.01 * (m / (1 - pow(0.9, 3))) / (sqrt(v / (1 - pow(0.999, 3))) + 1e-8);
                /* float rounding of each term: relative to the terms' magnitudes */
                double mm = 0.9 * fabs(h[2 * n + i]) + 0.1 * fabs(g);
                wv = fmax(wv, fabs(got[i] - x) / (1e-6 * (fabs(h[i]) + 0.01 * fabs(m / sqrt(v)))));
                wv = fmax(wv, fabs(got[n + i] - m) / (1e-6 * mm + 1e-30));
                wv = fmax(wv, fabs(got[2 * n + i] - v) / (1e-6 * v + 1e-30));
            }
            GT_CHECK(wv <= 1.0, "%s adam step: error %g of the tolerance", be->name, wv);
        }
        be->free(ctx, st, dx);
        be->free(ctx, st, dg);
        be->free(ctx, st, dm);
        be->free(ctx, st, dv);
        free(h);
        free(got);
    }
    be->destroy(ctx, st);
    gip_net_free(net);
}

/* ---- strong Wolfe on functions of the step --------------------------------------------------- */
typedef struct line_fn {
    int kind; /* 0: quadratic 0.5 a (t - c)^2 + f_off; 1: a smooth non-convex curve */
    double a, c;
    double slot_t[3];
    int calls;
} line_fn;

static void line_value(const line_fn *l, double t, double *f, double *gtd)
{
    if (l->kind == 0) {
        *f = 0.5 * l->a * (t - l->c) * (t - l->c);
        *gtd = l->a * (t - l->c);
    } else { /* f(t) = -t exp(-t / c) + 0.05 t^2, minimum near t = c */
        double e = exp(-t / l->c);
        *f = -t * e + 0.05 * t * t;
        *gtd = -e + t / l->c * e + 0.1 * t;
    }
}

static gip_status phi_test(void *arg, double t, int slot, double *f, double *gtd)
{
    line_fn *l = arg;
    GT_CHECK(slot >= 0 && slot < 3, "slot %d in 0..2", slot);
    if (slot >= 0 && slot < 3)
        l->slot_t[slot] = t;
    l->calls++;
    line_value(l, t, f, gtd);
    return GIP_OK;
}

static void test_strong_wolfe(void)
{
    const struct {
        int kind;
        double a, c, t0;
    } cases[] = {
        {0, 2.0, 1.0, 1.0},  {0, 2.0, 1.0, 1e-3}, /* tiny first step: the bracket grows */
        {0, 2.0, 1.0, 50.0},                      /* far too long: zoom */
        {0, 1e4, 1e-3, 1.0}, {0, 0.5, 7.0, 0.3},  {1, 0, 2.0, 0.01},
        {1, 0, 2.0, 1.0},    {1, 0, 2.0, 40.0},   {1, 0, 0.5, 3.0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        line_fn l = {cases[k].kind, cases[k].a, cases[k].c, {NAN, NAN, NAN}, 0};
        double f0, g0;
        line_value(&l, 0.0, &f0, &g0);
        gip__wolfe_result r;
        if (!GT_OK(gip__strong_wolfe(phi_test, &l, f0, g0, cases[k].t0, 1.0, 1e-4, 0.9, 25, &r)))
            continue;
        double f, g;
        line_value(&l, r.t, &f, &g);
        GT_CHECK(r.slot >= 0 && r.t > 0, "case %zu: a step was taken (t = %g, slot %d)", k, r.t,
                 r.slot);
        GT_CHECK(f <= f0 + 1e-4 * r.t * g0, "case %zu: sufficient decrease: f(%g) = %g, bound %g",
                 k, r.t, f, f0 + 1e-4 * r.t * g0);
        GT_CHECK(fabs(g) <= 0.9 * fabs(g0), "case %zu: curvature: |phi'(%g)| = %g > 0.9 * %g", k,
                 r.t, fabs(g), fabs(g0));
        GT_CHECK(r.f == f && r.gtd == g, "case %zu: returned f, slope %g %g, expected %g %g", k,
                 r.f, r.gtd, f, g);
        GT_CHECK(r.slot < 0 || l.slot_t[r.slot] == r.t,
                 "case %zu: slot %d holds the gradient of t = %g, returned t = %g", k, r.slot,
                 r.slot >= 0 ? l.slot_t[r.slot] : 0.0, r.t);
        GT_CHECK(r.evals == l.calls && r.evals <= 25, "case %zu: %d evaluations reported, %d made",
                 k, r.evals, l.calls);
    }
}

/* ---- Adam's first steps in closed form --------------------------------------------------------
 */
static double adam_f[8];
static int adam_it;
static int adam_record(void *arg, int32_t it, int32_t evals, double f, int32_t best_eval)
{
    if (it < 8)
        adam_f[it] = f;
    adam_it = it;
    GT_CHECK(evals == it + 1 && best_eval == it + 1, "Adam: iteration %d, %d evaluations, best %d",
             (int)it, (int)evals, (int)best_eval);
    return 0;
}

static void test_adam(gip_context *ctx)
{
    quad q = {6, {0}, {0}};
    for (int i = 0; i < 6; i++) {
        q.a[i] = 0.5 + i;
        q.c[i] = 1.0 - 0.7 * i;
    }
    for (int steps = 1; steps <= 3; steps++) {
        float x[6] = {0};
        double f;
        int32_t evals;
        const double lr = 0.01;
        if (!GT_OK(gip__adam(ctx, &gip__style_cpu, NULL, steps, lr, x, 6, quad_fn, adam_record, &q,
                             &f, &evals)))
            continue;
        /* Closed form: step 1 moves every coordinate by lr * g / (|g| + eps), i.e. lr against the
         * sign of its gradient; later steps by the bias-corrected moment ratio. */
        double xe[6] = {0}, m[6] = {0}, v[6] = {0};
        for (int t = 1; t <= steps; t++)
            for (int i = 0; i < 6; i++) {
                double g = q.a[i] * (xe[i] - q.c[i]);
                m[i] = 0.9 * m[i] + 0.1 * g;
                v[i] = 0.999 * v[i] + 0.001 * g * g;
                xe[i] -=
                    lr * (m[i] / (1 - pow(0.9, t))) / (sqrt(v[i] / (1 - pow(0.999, t))) + 1e-8);
            }
        double wv = 0;
        for (int i = 0; i < 6; i++)
            wv = fmax(wv, fabs(x[i] - xe[i]));
        if (steps == 1)
            for (int i = 0; i < 6; i++)
                wv = fmax(wv, fabs(x[i] - (q.c[i] > 0 ? lr : -lr)));
        GT_CHECK(wv < 1e-7, "Adam after %d steps: max |x - closed form| = %g", steps, wv);
        GT_CHECK(evals == steps + 1 && adam_it == steps, "Adam: %d evaluations for %d steps",
                 (int)evals, steps);
    }
}

/* ---- L-BFGS with each step rule -------------------------------------------------------------- */
static void test_lbfgs_rules(gip_context *ctx)
{
    const gip__style_backend *be = &gip__style_cpu;
    quad q = {50, {0}, {0}};
    uint64_t s = 9;
    for (int i = 0; i < 50; i++) {
        q.a[i] = 1.0 + 99.0 * (double)(gip__style_rand_u64(&s) >> 11) / 9007199254740992.0;
        q.c[i] = gip__style_rand_normal(&s);
    }
    const int rules[] = {GIP_STYLE_LS_NONE, GIP_STYLE_LS_STRONG_WOLFE, GIP_STYLE_LS_ARMIJO};
    const int hist[] = {3, 10, 100};
    for (int r = 0; r < 3; r++)
        for (int h = 0; h < 3; h++) {
            float x[64] = {0};
            gip__lbfgs_params p = {200, hist[h], 0, rules[r], 0};
            double f;
            int32_t evals;
            monotone_ok = 1;
            if (!GT_OK(gip__lbfgs(ctx, be, NULL, &p, x, 50, quad_fn, track_iter, &q, &f, &evals)))
                continue;
            double err = 0;
            for (int i = 0; i < 50; i++)
                err = fmax(err, fabs(x[i] - q.c[i]));
            GT_CHECK(err < 1e-3 && f < 1e-6,
                     "quadratic, rule %d, history %d: max |x - c| = %g, f = %g (%d evaluations)",
                     rules[r], hist[h], err, f, (int)evals);
            /* Reported values are the best so far: never rising, for every rule. */
            GT_CHECK(monotone_ok, "rule %d, history %d: reported values never rise", rules[r],
                     hist[h]);
        }
    /* Rosenbrock needs a line search. */
    for (int r = 1; r < 3; r++) {
        float x[2] = {-1.2f, 1.0f};
        gip__lbfgs_params p = {300, 10, 0, rules[r], 0};
        double f;
        int32_t evals;
        if (GT_OK(gip__lbfgs(ctx, be, NULL, &p, x, 2, rosen_fn, NULL, NULL, &f, &evals)))
            GT_CHECK(fabs(x[0] - 1) < 2e-3 && fabs(x[1] - 1) < 4e-3,
                     "Rosenbrock, rule %d: reached (%g, %g), f = %g, expected (1, 1)", rules[r],
                     x[0], x[1], f);
    }
    /* No line search: torch's first step, t = min(1, 1 / |g|_1) lr along -g. */
    {
        float x[64] = {0};
        gip__lbfgs_params p = {1, 10, 0, GIP_STYLE_LS_NONE, 0.5};
        double f, l1 = 0;
        int32_t evals;
        for (int i = 0; i < 50; i++)
            l1 += fabs(q.a[i] * q.c[i]);
        if (GT_OK(gip__lbfgs(ctx, be, NULL, &p, x, 50, quad_fn, NULL, &q, &f, &evals))) {
            double t = fmin(1.0, 1.0 / l1) * 0.5, wv = 0;
            for (int i = 0; i < 50; i++)
                wv = fmax(wv, fabs(x[i] - t * q.a[i] * q.c[i]));
            GT_CHECK(wv < 1e-6 && evals == 2, "first fixed step: max error %g, %d evaluations", wv,
                     (int)evals);
        }
    }
}

/* ---- safetensors ------------------------------------------------------------------------- */
static const char *st_path = "style_test_weights.safetensors";

enum mutation {
    M_NONE,
    M_DTYPE,       /* features.5.weight F16 */
    M_SHAPE,       /* features.7.weight [128, 64, 3, 3] */
    M_OUTSIDE,     /* features.28.bias ends beyond the data */
    M_OVERLAP,     /* features.2.bias starts inside features.2.weight */
    M_MISSING,     /* features.28.bias left out */
    M_UNKNOWN,     /* classifier.0.weight */
    M_SIZE,        /* features.0.bias spans 4 bytes too many */
    M_EXTRA_FIELD, /* features.0.weight has "foo" */
    M_METADATA,    /* valid, with __metadata__ and escapes */
    M_MANY_META,   /* valid, with MANY_META distinct keys in __metadata__ */
    M_DUP_META     /* MANY_META keys in __metadata__, the last one a duplicate of the first */
};

/* Near the reader's limit of 65536 members: a scan per key would make about 2e9 comparisons. */
#define MANY_META 65000

/* Writes a VGG19 file (13 layers, zero weights except marked values) with one mutation. */
static int64_t write_st(enum mutation mut, const char *raw_header, int64_t raw_len)
{
    int many = mut == M_MANY_META || mut == M_DUP_META;
    char *json =
        malloc(raw_header ? (size_t)raw_len : (size_t)(1 << 16) + (many ? 16 * MANY_META : 0));
    int64_t len = 0, off = 0;
    if (!json)
        return -1;
    if (raw_header) {
        memcpy(json, raw_header, (size_t)raw_len);
        len = raw_len;
    } else {
        len += sprintf(json + len, "{");
        if (mut == M_METADATA)
            len += sprintf(json + len,
                           "\"__metadata__\":{\"format\":\"pt\",\"n\\u00e9\":\"a\\\"b\"},");
        if (many) {
            len += sprintf(json + len, "\"__metadata__\":{");
            for (int i = 0; i < MANY_META; i++)
                len += sprintf(json + len, "%s\"m%d\":\"\"", i ? "," : "",
                               mut == M_DUP_META && i == MANY_META - 1 ? 0 : i);
            len += sprintf(json + len, "},");
        }
        for (int l = 0; l < GIP__VGG_LAYERS; l++) {
            int fi = gip__vgg_feature_index[l], ci = gip__vgg_cin[l], co = gip__vgg_cout[l];
            int64_t wb = (int64_t)co * ci * 9 * 4, bb = (int64_t)co * 4;
            const char *dt = mut == M_DTYPE && fi == 5 ? "F16" : "F32";
            int ci_shape = mut == M_SHAPE && fi == 7 ? 64 : ci;
            len +=
                sprintf(json + len,
                        "%s\"features.%d.weight\":{\"dtype\":\"%s\",\"shape\":[%d,%d,3,3],"
                        "\"data_offsets\":[%lld,%lld]%s}",
                        l ? "," : "", fi, dt, co, ci_shape, (long long)off, (long long)(off + wb),
                        mut == M_EXTRA_FIELD && fi == 0 ? ",\"foo\":1" : "");
            off += wb;
            if (mut == M_MISSING && fi == 28)
                continue;
            int64_t b0 = mut == M_OVERLAP && fi == 2 ? off - 8 : off;
            int64_t b1 = b0 + bb + (mut == M_SIZE && fi == 0 ? 4 : 0);
            if (mut == M_OUTSIDE && fi == 28)
                b1 = b0 + bb + 4000, b0 += 4000;
            len += sprintf(json + len,
                           ",\"features.%d.bias\":{\"dtype\":\"F32\",\"shape\":[%d],"
                           "\"data_offsets\":[%lld,%lld]}",
                           fi, co, (long long)b0, (long long)b1);
            off += bb + (mut == M_SIZE && fi == 0 ? 4 : 0);
        }
        if (mut == M_UNKNOWN)
            len += sprintf(json + len, ",\"classifier.0.weight\":{\"dtype\":\"F32\",\"shape\":[1],"
                                       "\"data_offsets\":[0,4]}");
        len += sprintf(json + len, "}   "); /* trailing spaces pad headers in real files */
    }
    FILE *f = fopen(st_path, "wb");
    if (!f) {
        free(json);
        return -1;
    }
    unsigned char l8[8];
    for (int i = 0; i < 8; i++)
        l8[i] = (unsigned char)((uint64_t)len >> (8 * i));
    fwrite(l8, 1, 8, f);
    fwrite(json, 1, (size_t)len, f);
    fclose(f);
    free(json);
    if (!raw_header) {
        /* The data: zeros (a sparse file), with marked values at the first weight and the last
         * bias of conv5_1 (features.28.bias is the last tensor written). */
        if (truncate(st_path, 8 + len + off) != 0)
            return -1;
        f = fopen(st_path, "r+b");
        float one = 1.5f, two = -2.25f;
        fseek(f, 8 + (long)len, SEEK_SET);
        fwrite(&one, 4, 1, f);
        fseek(f, 8 + (long)len + (long)off - 4, SEEK_SET);
        fwrite(&two, 4, 1, f);
        fclose(f);
    }
    return len;
}

static void expect_load(gip_status want, const char *needle, const char *label)
{
    gip_net *net = (gip_net *)(uintptr_t)1;
    gip_status got = gip_vgg19_load(st_path, &net);
    GT_CHECK(got == want, "%s: gip_vgg19_load returned %s, expected %s (%s)", label,
             gip_status_name(got), gip_status_name(want), gip_last_error());
    if (want != GIP_OK) {
        GT_CHECK(net == NULL, "%s: out is NULL on failure", label);
        GT_CHECK(!needle || strstr(gip_last_error(), needle),
                 "%s: message '%s' should mention '%s'", label, gip_last_error(), needle);
    }
    gip_net_free(net == (gip_net *)(uintptr_t)1 ? NULL : net);
}

/* A guard against quadratic parsing, not a timing: these loads take milliseconds when linear and
 * minutes when not, so a call still running after ST_GUARD_S seconds ends the test with a message.
 */
#define ST_GUARD_S 10
static volatile const char *st_guarded;

static void st_guard_fired(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: a safetensors load ran past the 10 s guard (quadratic?): ";
    ssize_t r = write(2, msg, sizeof msg - 1);
    r = write(2, (const char *)st_guarded, strlen((const char *)st_guarded));
    r = write(2, "\n", 1);
    (void)r;
    _exit(1);
}

static void st_guard(const char *label)
{
    st_guarded = label;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = label ? st_guard_fired : SIG_DFL;
    sigaction(SIGALRM, &sa, NULL);
    alarm(label ? ST_GUARD_S : 0);
}

/* Headers of many members: the 1,000,000-key header of the issue (9.9 MB, once minutes in the
 * duplicate-key scan) is refused at the member limit; 65000 keys, just under it, load, and a
 * duplicate among them is found. */
static void test_safetensors_many_keys(void)
{
    const int64_t nkeys = 1000000;
    char *json = malloc((size_t)nkeys * 12 + 8);
    if (!GT_CHECK(json != NULL, "out of memory"))
        return;
    int64_t len = 0;
    json[len++] = '{';
    for (int64_t i = 0; i < nkeys; i++)
        len += sprintf(json + len, "%s\"%lld\":1", i ? "," : "", (long long)i);
    json[len++] = '}';
    GT_CHECK(len > 9000000 && len < 16 * 1024 * 1024, "1M-key header of %lld bytes",
             (long long)len);
    if (write_st(M_NONE, json, len) >= 0) {
        st_guard("1,000,000 keys");
        expect_load(GIP_ERR_TOO_LARGE, "65536 members", "1,000,000 keys");
        st_guard(NULL);
    }
    /* Arrays count too: one shape of 70000 items. */
    len = sprintf(json, "{\"features.0.bias\":{\"dtype\":\"F32\",\"shape\":[");
    for (int i = 0; i < 70000; i++)
        len += sprintf(json + len, "%s1", i ? "," : "");
    len += sprintf(json + len, "],\"data_offsets\":[0,4]}}");
    if (write_st(M_NONE, json, len) >= 0)
        expect_load(GIP_ERR_TOO_LARGE, "65536 members", "an array of 70000 items");
    free(json);

    if (write_st(M_MANY_META, NULL, 0) >= 0) {
        st_guard("65000 metadata keys");
        expect_load(GIP_OK, NULL, "65000 metadata keys");
        st_guard(NULL);
    }
    if (write_st(M_DUP_META, NULL, 0) >= 0) {
        st_guard("65000 metadata keys, one duplicate");
        expect_load(GIP_ERR_CORRUPT, "duplicate key 'm0'", "65000 metadata keys, one duplicate");
        st_guard(NULL);
    }
    unlink(st_path);
}

static void test_safetensors(void)
{
    gip_net *net = NULL;
    if (write_st(M_NONE, NULL, 0) < 0) {
        GT_CHECK(0, "cannot write %s", st_path);
        return;
    }
    if (GT_OK(gip_vgg19_load(st_path, &net))) {
        GT_CHECK(net->conv[0].w[0] == 1.5f && net->conv[12].b[511] == -2.25f &&
                     net->conv[5].w[7] == 0.0f,
                 "weights read from their offsets");
        GT_CHECK(!gip_net_is_random(net), "a loaded network is not random");
        gip_net_free(net);
    }
    write_st(M_METADATA, NULL, 0);
    expect_load(GIP_OK, NULL, "metadata with escapes");
    write_st(M_DTYPE, NULL, 0);
    expect_load(GIP_ERR_UNSUPPORTED, "features.5.weight", "wrong dtype");
    write_st(M_SHAPE, NULL, 0);
    expect_load(GIP_ERR_UNSUPPORTED, "features.7.weight", "wrong shape");
    write_st(M_OUTSIDE, NULL, 0);
    expect_load(GIP_ERR_CORRUPT, "features.28.bias", "offsets outside the data");
    write_st(M_OVERLAP, NULL, 0);
    expect_load(GIP_ERR_CORRUPT, "overlap", "overlapping offsets");
    write_st(M_MISSING, NULL, 0);
    expect_load(GIP_ERR_CORRUPT, "features.28.bias", "missing key");
    write_st(M_UNKNOWN, NULL, 0);
    expect_load(GIP_ERR_UNSUPPORTED, "classifier.0.weight", "unknown key");
    write_st(M_SIZE, NULL, 0);
    expect_load(GIP_ERR_CORRUPT, "features.0.bias", "size not matching the shape");
    write_st(M_EXTRA_FIELD, NULL, 0);
    expect_load(GIP_ERR_CORRUPT, "foo", "unknown field");
    const char *bad_json[] = {"{\"features.0.weight\": tru}",
                              "{\"a\":1.5}",
                              "{\"a\":[1,2}",
                              "{\"a\":\"x\\q\"}",
                              "{\"a\":1}{}",
                              "[1,2]",
                              "{\"a\":1,\"a\":2}",
                              "{\"a\":\"\\ud800\"}",
                              "{\"a\":01}",
                              "{\"a\":99999999999999999999}",
                              "{a:1}",
                              "{\"a\":\"\x01\"}"};
    for (size_t i = 0; i < sizeof bad_json / sizeof bad_json[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "bad JSON %zu", i);
        write_st(M_NONE, bad_json[i], (int64_t)strlen(bad_json[i]));
        expect_load(GIP_ERR_CORRUPT, NULL, label);
    }
    /* Truncated: shorter than the length field; header length beyond the file; zero. */
    FILE *f = fopen(st_path, "wb");
    fwrite("\x10\x00\x00", 1, 3, f);
    fclose(f);
    expect_load(GIP_ERR_CORRUPT, "truncated", "file of 3 bytes");
    f = fopen(st_path, "wb");
    fwrite("\xff\x00\x00\x00\x00\x00\x00\x00{}", 1, 10, f);
    fclose(f);
    expect_load(GIP_ERR_CORRUPT, "header length", "header length beyond the file");
    f = fopen(st_path, "wb");
    fwrite("\x00\x00\x00\x00\x00\x00\x00\x80{}", 1, 10, f);
    fclose(f);
    expect_load(GIP_ERR_CORRUPT, "header length", "huge header length");
    /* A valid header whose data section was cut. */
    int64_t hl = write_st(M_NONE, NULL, 0);
    if (hl > 0 && truncate(st_path, 8 + hl + 1000) == 0)
        expect_load(GIP_ERR_CORRUPT, NULL, "truncated data section");
    unlink(st_path);
    expect_load(GIP_ERR_NOT_FOUND, NULL, "missing file");
    GT_STATUS(gip_vgg19_load(NULL, &net), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_vgg19_load(st_path, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_net_random(1, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_net_free(NULL);
    /* Random networks: same seed, same weights. */
    gip_net *a, *b;
    if (GT_OK(gip_net_random(9, &a)) && GT_OK(gip_net_random(9, &b))) {
        GT_CHECK(memcmp(a->conv[4].w, b->conv[4].w, 256 * 128 * 9 * sizeof(float)) == 0 &&
                     gip_net_is_random(a),
                 "gip_net_random is deterministic");
        gip_net_free(a);
        gip_net_free(b);
    }
    gip_vgg_layer layer;
    GT_OK(gip_vgg_layer_parse("conv4_2", &layer));
    GT_CHECK(layer == GIP_VGG_CONV4_2 && strcmp(gip_vgg_layer_name(layer), "conv4_2") == 0,
             "layer names round-trip");
    GT_STATUS(gip_vgg_layer_parse("conv6_1", &layer), GIP_ERR_INVALID_ARGUMENT);
}

/* ---- the public function -------------------------------------------------------------------- */
static void load_pair(gip_image *content, gip_image *style)
{
    gip_status a = gip_image_load(GIP_DATA_DIR "/chelsea.png", NULL, content);
    gip_status b = gip_image_load(GIP_DATA_DIR "/gravel.png", NULL, style);
    GT_CHECK(a == GIP_OK && b == GIP_OK, "sample images load: %s", gip_last_error());
}

typedef struct curve {
    double loss[64];
    int n;
} curve;

static int record(void *user, const gip_style_progress *p)
{
    curve *c = user;
    if (c->n < 64)
        c->loss[c->n++] = p->loss;
    return 0;
}

/* Runs a small transfer on ctx's backend with host images in and out. */
static gip_status run_small(gip_context *ctx, const gip_image *content, const gip_image *style,
                            gip_image *out, const gip_style_params *p, curve *cv)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_style_transfer(ctx, content, style, out, p, record, cv);
    gip_image dc, ds, dd;
    gip_status st;
    if ((st = gip_image_alloc(ctx, &dc, content->width, content->height, 3, GIP_U8, GIP_MEM_CUDA,
                              0)))
        return st;
    gip_image_alloc(ctx, &ds, style->width, style->height, style->channels, GIP_U8, GIP_MEM_CUDA,
                    0);
    gip_image_alloc(ctx, &dd, out->width, out->height, 3, GIP_U8, GIP_MEM_CUDA, 0);
    gip_upload(ctx, content, &dc);
    gip_upload(ctx, style, &ds);
    st = gip_style_transfer(ctx, &dc, &ds, &dd, p, record, cv);
    if (st == GIP_OK)
        st = gip_download(ctx, &dd, out);
    gip_image_free(ctx, &dc);
    gip_image_free(ctx, &ds);
    gip_image_free(ctx, &dd);
    return st;
}

static void test_end_to_end(gip_context *ctx)
{
    gip_image content = {0}, style = {0}, a, b;
    load_pair(&content, &style);
    if (!content.data || !style.data)
        return;
    gt_alloc(&a, 64, 64, 3, GIP_U8, 5);
    gt_alloc(&b, 64, 64, 3, GIP_U8, 0);
    /* VGG19's topology with a quarter of its channels keeps the test fast. */
    gip_net *net = NULL;
    GT_OK(gip__net_random_slim(42, 4, &net));
    gip_style_params p = {0};
    p.net = net;
    p.iterations = 8;
    p.progress_every = 1;
    p.seed = 42;
    p.tv_weight = 1.0;
    p.flags = GIP_STYLE_NO_TF32;
    curve c1 = {{0}, 0}, c2 = {{0}, 0};
    if (GT_OK(run_small(ctx, &content, &style, &a, &p, &c1))) {
        /* L-BFGS accepts a step only when the Armijo condition lowers the loss, so the curve never
         * rises; 8 iterations from the content image must at least halve it. */
        int mono = c1.n == 9;
        for (int i = 1; i < c1.n; i++)
            mono &= c1.loss[i] <= c1.loss[i - 1];
        GT_CHECK(mono, "loss curve of %d points never rises", c1.n);
        GT_CHECK(c1.n == 9 && c1.loss[8] < 0.5 * c1.loss[0], "loss falls from %g to %g", c1.loss[0],
                 c1.loss[c1.n - 1]);
        GT_CHECK(gt_padding_intact(&a), "dst padding intact");
        /* Deterministic: the same call gives the same bytes (on the CPU also with one thread). */
        if (gip_context_backend(ctx) == GIP_BACKEND_CPU)
            gip_context_set_threads(ctx, 1);
        if (GT_OK(run_small(ctx, &content, &style, &b, &p, &c2)))
            gt_compare(&b, &a, 0, 0, "same seed, same result");
        gip_context_set_threads(ctx, 0);
    }
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA && c1.n == 9) {
        /* The same run on the CPU: TF32 off, so the first evaluation agrees to float rounding of
         * different summation orders (1e-4 relative); later points follow slightly different
         * L-BFGS paths, so 2 % after 8 iterations; the images within 4 levels on average. */
        gip_context *cpu;
        gip_context_desc d = {GIP_BACKEND_CPU, 0, 0, 0};
        curve c3 = {{0}, 0};
        if (GT_OK(gip_context_create(&d, &cpu)) &&
            GT_OK(gip_style_transfer(cpu, &content, &style, &b, &p, record, &c3))) {
            GT_CHECK(fabs(c3.loss[0] - c1.loss[0]) <= 1e-4 * c3.loss[0],
                     "initial loss: GPU %.8g, CPU %.8g", c1.loss[0], c3.loss[0]);
            GT_CHECK(c3.n == 9 && fabs(c3.loss[8] - c1.loss[8]) <= 2e-2 * c3.loss[8],
                     "loss after 8 iterations: GPU %.8g, CPU %.8g", c1.loss[8], c3.loss[c3.n - 1]);
            double mad = 0;
            for (int64_t y = 0; y < 64; y++)
                for (int64_t x = 0; x < 64 * 3; x++)
                    mad += fabs((double)((uint8_t *)a.data)[y * a.stride + x] -
                                ((uint8_t *)b.data)[y * b.stride + x]);
            mad /= 64.0 * 64 * 3;
            GT_CHECK(mad <= 4.0, "GPU and CPU images differ by %.2f levels on average", mad);
        }
        gip_context_destroy(cpu);
    }
    gip_net_free(net);
    gt_free(&a);
    gt_free(&b);
    gip_image_free(NULL, &content);
    gip_image_free(NULL, &style);
}

/* ---- the public function with each optimiser ---------------------------------------------- */
static void test_optimizers(gip_context *ctx)
{
    gip_image content = {0}, style = {0}, a;
    load_pair(&content, &style);
    if (!content.data || !style.data)
        return;
    gt_alloc(&a, 48, 40, 3, GIP_U8, 2);
    gip_net *net = NULL;
    GT_OK(gip__net_random_slim(5, 8, &net));
    const struct {
        gip_style_optimizer opt;
        gip_style_line_search ls;
        double lr;
        double factor; /* the loss after 8 iterations is below factor * the first */
    } cases[] = {
        {GIP_STYLE_OPT_LBFGS, GIP_STYLE_LS_NONE, 0, 0.5},
        {GIP_STYLE_OPT_LBFGS, GIP_STYLE_LS_STRONG_WOLFE, 0, 0.5},
        {GIP_STYLE_OPT_LBFGS, GIP_STYLE_LS_ARMIJO, 0, 0.5},
        {GIP_STYLE_OPT_ADAM, GIP_STYLE_LS_DEFAULT, 0, 0.8},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gip_style_params p = {0};
        p.net = net;
        p.iterations = 8;
        p.progress_every = 1;
        p.history = 100;
        p.optimizer = cases[k].opt;
        p.line_search = cases[k].ls;
        p.lr = cases[k].lr;
        p.flags = GIP_STYLE_NO_TF32;
        curve c = {{0}, 0};
        gt_poison(&a, 0x5A);
        if (!GT_OK(run_small(ctx, &content, &style, &a, &p, &c)))
            continue;
        int mono = c.n == 9;
        for (int i = 1; i < c.n; i++)
            mono &= c.loss[i] <= c.loss[i - 1];
        GT_CHECK(mono, "optimiser case %zu: reported (best) loss never rises over %d points", k,
                 c.n);
        GT_CHECK(c.n == 9 && c.loss[8] < cases[k].factor * c.loss[0],
                 "optimiser case %zu: loss falls from %g to %g (below %g x)", k, c.loss[0],
                 c.loss[c.n - 1], cases[k].factor);
        GT_CHECK(gt_padding_intact(&a), "optimiser case %zu: dst padding intact", k);
    }
    gip_net_free(net);
    gt_free(&a);
    gip_image_free(NULL, &content);
    gip_image_free(NULL, &style);
}

static void test_bad_input(gip_context *ctx)
{
    gip_image c, s, d, g2, f32, small, big;
    gt_alloc(&c, 20, 20, 3, GIP_U8, 0);
    gt_alloc(&s, 20, 20, 1, GIP_U8, 0);
    gt_alloc(&d, 20, 20, 3, GIP_U8, 3);
    gt_alloc(&g2, 20, 20, 1, GIP_U8, 0);
    gt_alloc(&f32, 20, 20, 3, GIP_F32, 0);
    gt_alloc(&small, 15, 20, 3, GIP_U8, 0);
    gt_fill_random(&c, 1, 0, 0);
    gt_fill_random(&s, 2, 0, 0);
    gt_poison(&d, 0x5A);
    gip_style_params p = {0};
    p.iterations = 1;
    const gip_style_params *P = &p;
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
        GT_STATUS(gip_style_transfer(NULL, &c, &s, &d, P, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_style_transfer(ctx, NULL, &s, &d, P, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_style_transfer(ctx, &c, NULL, &d, P, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_style_transfer(ctx, &c, &s, NULL, P, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &g2, P, NULL, NULL), GIP_ERR_UNSUPPORTED);
        GT_STATUS(gip_style_transfer(ctx, &f32, &s, &d, P, NULL, NULL), GIP_ERR_UNSUPPORTED);
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &small, P, NULL, NULL), GIP_ERR_SHAPE_MISMATCH);
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &c, P, NULL, NULL), GIP_ERR_ALIASING);
        gip_image bad = c;
        bad.width = -1;
        GT_STATUS(gip_style_transfer(ctx, &bad, &s, &d, P, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        big = d;
        big.width = 5000;
        big.stride = 5000 * 3;
        big.data = malloc(5000 * 3 * 20);
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &big, P, NULL, NULL), GIP_ERR_TOO_LARGE);
        free(big.data);
        const struct {
            const char *what;
            void (*set)(gip_style_params *);
        } *unused = NULL;
        (void)unused;
        gip_style_params q;
        q = p, q.content_weight = -1;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.style_weight = NAN;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.tv_weight = -0.5;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.style_layer_weight[3] = -2;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.iterations = -1;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.history = 5000;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.style_layers = 1u << 13;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.pool = (gip_style_pool)7;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.init = (gip_style_init)-1;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.flags = 0x100;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.lr = -0.1;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_CHECK(strstr(gip_last_error(), "lr") != NULL, "negative lr: message names lr: %s",
                 gip_last_error());
        q = p, q.lr = INFINITY;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.lr = NAN, q.optimizer = GIP_STYLE_OPT_ADAM;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        q = p, q.optimizer = (gip_style_optimizer)2;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_CHECK(strstr(gip_last_error(), "optimizer") != NULL,
                 "bad optimizer: message names it: %s", gip_last_error());
        q = p, q.line_search = (gip_style_line_search)4;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_CHECK(strstr(gip_last_error(), "line_search") != NULL,
                 "bad line search: message names it: %s", gip_last_error());
        q = p, q.line_search = (gip_style_line_search)-1;
        GT_STATUS(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
        /* dst untouched by every failure above. */
        int untouched = 1;
        for (int64_t y = 0; y < d.height; y++)
            for (int64_t x = 0; x < d.width * 3; x++)
                untouched &= ((uint8_t *)d.data)[y * d.stride + x] == 0x5A;
        GT_CHECK(untouched && gt_padding_intact(&d), "dst unchanged by refused calls");
        int64_t ow, oh;
        GT_OK(gip_style_output_size(451, 300, 512, &ow, &oh));
        GT_CHECK(ow == 770 && oh == 512, "output size 451x300 -> %lldx%lld, expected 770x512",
                 (long long)ow, (long long)oh);
        GT_STATUS(gip_style_output_size(0, 300, 512, &ow, &oh), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_style_output_size(10, 10, 512, NULL, &oh), GIP_ERR_INVALID_ARGUMENT);
        /* The gray style image and every init mode run. */
        gip_net *slim = NULL;
        GT_OK(gip__net_random_slim(1, 8, &slim));
        for (int init = 0; init < 3; init++) {
            q = p, q.iterations = 3, q.init = (gip_style_init)init, q.net = slim;
            gt_poison(&d, 0x5A);
            GT_OK(gip_style_transfer(ctx, &c, &s, &d, &q, NULL, NULL));
        }
        gip_net_free(slim);
    } else {
        /* Host and device images mixed. */
        gip_image dd;
        if (GT_OK(gip_image_alloc(ctx, &dd, 20, 20, 3, GIP_U8, GIP_MEM_CUDA, 0))) {
            GT_STATUS(gip_style_transfer(ctx, &c, &s, &dd, P, NULL, NULL),
                      GIP_ERR_LOCATION_MISMATCH);
            gip_image_free(ctx, &dd);
        }
    }
    gt_free(&c);
    gt_free(&s);
    gt_free(&d);
    gt_free(&g2);
    gt_free(&f32);
    gt_free(&small);
}

static int stop_at_two(void *user, const gip_style_progress *p)
{
    *(int32_t *)user = p->iteration;
    return p->iteration >= 2;
}

static void test_stop(gip_context *ctx)
{
    gip_image c, d;
    gt_alloc(&c, 32, 24, 3, GIP_U8, 0);
    gt_alloc(&d, 32, 24, 3, GIP_U8, 0);
    gt_fill_random(&c, 3, 0, 0);
    gip_net *net = NULL;
    GT_OK(gip__net_random_slim(2, 8, &net));
    gip_style_params p = {0};
    p.net = net;
    p.iterations = 50;
    p.progress_every = 1;
    p.init = GIP_STYLE_INIT_NOISE; /* content = style: from the content the loss would be 0 */
    /* A stop request from the callback still writes the image and returns GIP_OK. */
    int32_t last = -1;
    gt_poison(&d, 0x5A);
    if (GT_OK(gip_style_transfer(ctx, &c, &c, &d, &p, stop_at_two, &last))) {
        GT_CHECK(last == 2, "stopped at iteration %d, expected 2", (int)last);
        int written = 0;
        for (int64_t y = 0; y < d.height; y++)
            for (int64_t x = 0; x < d.width * 3; x++)
                written |= ((uint8_t *)d.data)[y * d.stride + x] != 0x5A;
        GT_CHECK(written, "the image was written after the stop");
    }
    gip_net_free(net);
    gt_free(&c);
    gt_free(&d);
}

static void body(gip_context *ctx)
{
    const gip__style_backend *be = backend_for(ctx);
    if (!be) {
        printf("SKIP (cuda parts): built without cuDNN\n");
        return;
    }
    /* Each group below is one case of a sliced run (GIP_TEST_SLICE, testing.h). */
    if (gt_case())
        test_conv_gram(ctx, be);
    if (gt_case())
        test_gradient(ctx, be, 1);
    if (gt_case())
        test_gradient(ctx, be, 0);
    if (gt_case())
        test_opt_primitives(ctx, be);
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU && gt_case()) {
        test_lbfgs(ctx);
        test_lbfgs_rules(ctx);
        test_strong_wolfe();
        test_adam(ctx);
        test_safetensors();
        test_safetensors_many_keys();
    }
    if (gt_case())
        test_bad_input(ctx);
    if (gt_case())
        test_stop(ctx);
    if (gt_case())
        test_end_to_end(ctx);
    if (gt_case())
        test_optimizers(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "style", body);
}
