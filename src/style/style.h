/* SPDX-License-Identifier: MIT */
/* Private pieces of style transfer shared by the entry, the network driver, the optimiser and the
 * two backends: the network struct, the backend's primitive table, the evaluator. */
#ifndef GIP_STYLE_PRIVATE_H
#define GIP_STYLE_PRIVATE_H

#include <stdbool.h>

#include "gip/style.h"
#include "internal.h"

#if defined(__CUDACC__)
#define GIP__STYLE_HD __host__ __device__ __forceinline__
#else
#define GIP__STYLE_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define GIP__VGG_LAYERS 13

/* One 3x3 convolution: weights OIHW (cout x cin x 3 x 3), bias (cout). */
typedef struct gip__conv {
    int32_t cin, cout;
    float *w;
    float *b;
} gip__conv;

struct gip_net {
    gip__conv conv[GIP__VGG_LAYERS];
    int random;
};

/* VGG19's layer table: torchvision feature index, channels, pool after. */
extern const int gip__vgg_feature_index[GIP__VGG_LAYERS];
extern const int gip__vgg_cin[GIP__VGG_LAYERS];
extern const int gip__vgg_cout[GIP__VGG_LAYERS];
extern const bool gip__vgg_pool_after[GIP__VGG_LAYERS];

/* Allocates a network with VGG19's topology whose channel counts are divided by `divisor` (1 =
 * VGG19; tests use a slimmer one; input channels of conv1_1 stay 3), weights seeded as
 * gip_net_random(). */
gip_status gip__net_random_slim(uint64_t seed, int divisor, gip_net **out);
/* Allocates the weight arrays of a network of the given divisor (uninitialised). */
gip_status gip__net_alloc(int divisor, gip_net **out);

/* Deterministic generator: splitmix64 and a Box-Muller normal. */
uint64_t gip__style_rand_u64(uint64_t *state);
double gip__style_rand_normal(uint64_t *state);

/* ---- backends ----------------------------------------------------------------------------- */
/* Buffers are float arrays in the backend's memory (host or device); tensors are planar CHW. */
typedef struct gip__style_backend gip__style_backend;

/* A backend's per-call state: uploaded weights, descriptors, scratch. */
typedef struct gip__style_state gip__style_state;

struct gip__style_backend {
    const char *name;
    /* Prepares a run of net on a h x w image (weights uploaded, plans made). */
    gip_status (*create)(gip_context *ctx, const gip_net *net, int last_layer, uint32_t flags,
                         gip__style_state **out);
    void (*destroy)(gip_context *ctx, gip__style_state *st);
    gip_status (*alloc)(gip_context *ctx, gip__style_state *st, int64_t n,
                        float **out); /* n floats, zeroed */
    void (*free)(gip_context *ctx, gip__style_state *st, float *p);
    gip_status (*upload)(gip_context *ctx, gip__style_state *st, float *dst, const float *host,
                         int64_t n);
    gip_status (*download)(gip_context *ctx, gip__style_state *st, float *host, const float *src,
                           int64_t n);
    /* out = relu(conv(in) + b) of layer l on an h x w input */
    gip_status (*conv_fwd)(gip_context *ctx, gip__style_state *st, int l, const float *in,
                           float *out, int64_t h, int64_t w);
    /* gin = gradient of conv l's input from gout (gradient of its pre-activation output) */
    gip_status (*conv_bwd)(gip_context *ctx, gip__style_state *st, int l, const float *gout,
                           float *gin, int64_t h, int64_t w);
    /* g *= (act > 0) */
    gip_status (*relu_bwd)(gip_context *ctx, gip__style_state *st, const float *act, float *g,
                           int64_t n);
    /* 2x2 stride-2 pooling of c x h x w (max: avg = 0), output c x h/2 x w/2 */
    gip_status (*pool_fwd)(gip_context *ctx, gip__style_state *st, int avg, const float *in,
                           float *out, int64_t c, int64_t h, int64_t w);
    /* gin (c x h x w, overwritten) from gout (c x h/2 x w/2); in is the pooling's input */
    gip_status (*pool_bwd)(gip_context *ctx, gip__style_state *st, int avg, const float *in,
                           const float *gout, float *gin, int64_t c, int64_t h, int64_t w);
    /* G = F F^T / (c m), F c x m */
    gip_status (*gram)(gip_context *ctx, gip__style_state *st, const float *f, float *g, int64_t c,
                       int64_t m);
    /* With G = gram(F): loss += coef * sum((G - A)^2) / c^2 into *loss (a slot of the loss
     * buffer), gf += coef * 4 / (c^2 * c * m) * (G - A) F. scratch: c x c floats. */
    gip_status (*style_grad)(gip_context *ctx, gip__style_state *st, const float *f, const float *g,
                             const float *a, float *scratch, int64_t c, int64_t m, double coef,
                             float *gf, double *loss);
    /* loss += coef * sum((f - p)^2) / n; gf += coef * 2 / n * (f - p) */
    gip_status (*content_grad)(gip_context *ctx, gip__style_state *st, const float *f,
                               const float *p, int64_t n, double coef, float *gf, double *loss);
    /* total variation of x (c x h x w): loss += coef * sum of squared neighbour differences /
     * (c h w); gx += its gradient */
    gip_status (*tv_grad)(gip_context *ctx, gip__style_state *st, const float *x, int64_t c,
                          int64_t h, int64_t w, double coef, float *gx, double *loss);
    /* *out = sum(a * b) accumulated in double (host result) */
    gip_status (*dot)(gip_context *ctx, gip__style_state *st, const float *a, const float *b,
                      int64_t n, double *out);
    /* y = alpha * x + beta * y */
    gip_status (*axpby)(gip_context *ctx, gip__style_state *st, double alpha, const float *x,
                        double beta, float *y, int64_t n);
    /* out[r * nv + j] = rows[r] . vecs[j] (host doubles) for nr rows and nv vectors of n floats,
     * each set contiguous (row r at rows + r * n): the dot products of L-BFGS's history in one
     * pass over it. Full fp32 at least (no TF32). */
    gip_status (*rows_dot)(gip_context *ctx, gip__style_state *st, const float *rows, int64_t nr,
                           const float *vecs, int64_t nv, int64_t n, double *out);
    /* y += sum over r of coef[r] * rows[r] (coef: nr host doubles) */
    gip_status (*rows_axpy)(gip_context *ctx, gip__style_state *st, const float *rows, int64_t nr,
                            const double *coef, int64_t n, float *y);
    /* *l1 = sum |a|, *linf = max |a| (host doubles) */
    gip_status (*abs_norms)(gip_context *ctx, gip__style_state *st, const float *a, int64_t n,
                            double *l1, double *linf);
    /* One Adam step (Kingma and Ba, algorithm 1) of step number `step` (1, 2, ...):
     * m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
     * x -= lr * (m / (1 - b1^step)) / (sqrt(v / (1 - b2^step)) + eps). */
    gip_status (*adam)(gip_context *ctx, gip__style_state *st, float *x, const float *g, float *m,
                       float *v, int64_t n, double lr, double b1, double b2, double eps,
                       int32_t step);
    /* mean of squares of a (host double), for the layer normalisation */
    gip_status (*mean_sq)(gip_context *ctx, gip__style_state *st, const float *a, int64_t n,
                          double *out);
    /* Loss slots: a small array of doubles in the backend's memory that the loss primitives add
     * to; read back once per evaluation. */
    gip_status (*loss_alloc)(gip_context *ctx, gip__style_state *st, int n, double **out);
    void (*loss_free)(gip_context *ctx, gip__style_state *st, double *p);
    gip_status (*loss_zero)(gip_context *ctx, gip__style_state *st, double *p, int n);
    gip_status (*loss_read)(gip_context *ctx, gip__style_state *st, const double *p, double *host,
                            int n);
};

extern const gip__style_backend gip__style_cpu;
/* The CUDA backend, or NULL in a build without CUDA or cuDNN. */
const gip__style_backend *gip__style_cuda_backend(void);

/* ---- the evaluator: forward, losses, backward ------------------------------------------- */
typedef struct gip__style_config {
    uint32_t content_layers, style_layers;
    double content_weight, style_weight, tv_weight;
    double layer_weight[GIP__VGG_LAYERS];
    int avg_pool;
    int layer_norm;
    uint32_t flags;
} gip__style_config;

typedef struct gip__style_eval gip__style_eval;

/* Deepest layer a configuration uses. */
int gip__style_last_layer(const gip__style_config *cfg);

/* Builds an evaluator on `be` (state `st`, made by be->create for this net and last layer) for a h
 * x w image: runs the network once on the content image and once on the style image (both
 * normalised planar 3 x h x w / 3 x sh x sw, in the backend's memory) to fix the targets. */
gip_status gip__style_eval_create(gip_context *ctx, const gip__style_backend *be,
                                  gip__style_state *st, const gip_net *net,
                                  const gip__style_config *cfg, const float *content, int64_t h,
                                  int64_t w, const float *style, int64_t sh, int64_t sw,
                                  gip__style_eval **out);
void gip__style_eval_destroy(gip__style_eval *ev);
/* Total loss at x and its gradient into g (both 3 x h x w in the backend's memory); terms[3]
 * receives content, style, tv (may be NULL). */
gip_status gip__style_eval_run(gip__style_eval *ev, const float *x, float *g, double *loss,
                               double terms[3]);

/* ---- optimisers: L-BFGS and Adam -------------------------------------------------------- */
typedef struct gip__lbfgs_params {
    int32_t iterations;
    int32_t history;
    int32_t max_evals_per_iter; /* line-search evaluations per iteration; 0 = 20 (Armijo), 25 */
    int line_search;            /* gip_style_line_search; 0 = Armijo */
    double lr;                  /* fixed step (none), first trial step (strong Wolfe); 0 = 1 */
} gip__lbfgs_params;

/* Evaluation: f(x) and gradient g. Returns a status. */
typedef gip_status (*gip__lbfgs_fn)(void *arg, const float *x, float *g, double *f);
/* Called after each iteration with the best value so far, f, found by evaluation number
 * best_eval (1 = the first); return non-zero to stop. */
typedef int (*gip__lbfgs_iter_fn)(void *arg, int32_t iteration, int32_t evaluations, double f,
                                  int32_t best_eval);

/* Minimises fn from x (n floats in the backend's memory, overwritten with the best point found).
 * *f_out the best value; evals_out the evaluations done (either may be NULL). */
gip_status gip__lbfgs(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                      const gip__lbfgs_params *p, float *x, int64_t n, gip__lbfgs_fn fn,
                      gip__lbfgs_iter_fn iter, void *arg, double *f_out, int32_t *evals_out);

/* Adam with betas 0.9, 0.999 and eps 1e-8 for `iterations` steps of size lr; the point after the
 * last step is evaluated too, and x receives the best point evaluated. Same callbacks as L-BFGS. */
gip_status gip__adam(gip_context *ctx, const gip__style_backend *be, gip__style_state *bs,
                     int32_t iterations, double lr, float *x, int64_t n, gip__lbfgs_fn fn,
                     gip__lbfgs_iter_fn iter, void *arg, double *f_out, int32_t *evals_out);

/* The strong-Wolfe line search of torch.optim.LBFGS (minFunc's), on a function of the step t
 * only, so that it can be tested on any function. phi evaluates f(x + t d) and its directional
 * derivative g(x + t d).d, keeping the gradient in buffer `slot` (0, 1 or 2); the search picks a
 * slot that holds no gradient it may still return. Slot -1 stands for the start point (t = 0). */
typedef gip_status (*gip__phi_fn)(void *arg, double t, int slot, double *f, double *gtd);
typedef struct gip__wolfe_result {
    double t, f, gtd; /* the step returned, its value and directional derivative */
    int slot;         /* where its gradient is (-1: the start point, t = 0) */
    int evals;        /* evaluations of phi done */
} gip__wolfe_result;
/* f0, gtd0: value and slope at t = 0 (gtd0 < 0); t: first trial step; d_norm: max |d| (the
 * search stops when the bracket is narrower than 1e-9 / d_norm); c1, c2: the Wolfe constants
 * (1e-4, 0.9); max_ls: evaluations allowed (25). */
/* Total variation at the pixel p, column x and row y of an h x w plane: adds the squares of its
 * right and lower differences to *s and returns its gradient (before the weight), the same
 * operations in the same order on both backends. */
GIP__STYLE_HD float gip__style_tv_pixel(const float *p, int64_t x, int64_t y, int64_t h, int64_t w,
                                        double *s)
{
    const float v = p[0];
    float acc = 0.0f;
    if (x + 1 < w) {
        float d = p[1] - v;
        *s += (double)d * d;
        acc -= d;
    }
    if (x > 0)
        acc += v - p[-1];
    if (y + 1 < h) {
        float d = p[w] - v;
        *s += (double)d * d;
        acc -= d;
    }
    if (y > 0)
        acc += v - p[-w];
    return acc;
}

gip_status gip__strong_wolfe(gip__phi_fn phi, void *arg, double f0, double gtd0, double t,
                             double d_norm, double c1, double c2, int max_ls,
                             gip__wolfe_result *out);

#ifdef __cplusplus
}
#endif
#endif
