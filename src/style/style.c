/* SPDX-License-Identifier: MIT */
/* gip_style_transfer: checks the arguments once, resizes and normalises the images, runs L-BFGS
 * over the evaluator on the backend where the images live, and writes the result. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "saturate.h"
#include "style.h"

#define OP "gip_style_transfer"
#define MAX_SIDE 4096
/* Adam's default step in normalised units (see gip_style_params). */
#define ADAM_LR_DEFAULT 0.05

static const float imagenet_mean[3] = {0.485f, 0.456f, 0.406f};
static const float imagenet_std[3] = {0.229f, 0.224f, 0.225f};

GIP_API gip_status gip_style_output_size(int64_t w, int64_t h, int64_t size, int64_t *out_w,
                                         int64_t *out_h)
{
    if (!out_w || !out_h || w < 1 || h < 1 || size < 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_style_output_size: sizes must be >= 1 and outputs not NULL");
    if (w > GIP_MAX_DIM || h > GIP_MAX_DIM || size > GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_TOO_LARGE, "gip_style_output_size: size above %lld",
                          (long long)GIP_MAX_DIM);
    double s = (double)size / (double)(w < h ? w : h);
    double ow = w < h ? (double)size : floor(w * s + 0.5);
    double oh = w < h ? floor(h * s + 0.5) : (double)size;
    if (ow > (double)GIP_MAX_DIM || oh > (double)GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_TOO_LARGE, "gip_style_output_size: result above %lld",
                          (long long)GIP_MAX_DIM);
    *out_w = ow < 1 ? 1 : (int64_t)ow;
    *out_h = oh < 1 ? 1 : (int64_t)oh;
    return GIP_OK;
}

/* ---- resizing: separable triangle filter widened by the scale when shrinking --------------- */
typedef struct taps {
    int64_t *first; /* per output: first input index */
    int32_t *count; /* per output: number of taps */
    double *w;      /* per output: `stride` weights */
    int32_t stride;
} taps;

static void taps_free(taps *t)
{
    free(t->first);
    free(t->count);
    free(t->w);
}

static int taps_make(int64_t in, int64_t out, taps *t)
{
    double scale = (double)in / (double)out;
    double support = scale > 1.0 ? scale : 1.0;
    t->stride = (int32_t)ceil(support) * 2 + 2;
    t->first = malloc((size_t)out * sizeof *t->first);
    t->count = malloc((size_t)out * sizeof *t->count);
    t->w = malloc((size_t)out * t->stride * sizeof *t->w);
    if (!t->first || !t->count || !t->w) {
        taps_free(t);
        return 0;
    }
    for (int64_t o = 0; o < out; o++) {
        double center = (o + 0.5) * scale;
        int64_t lo = (int64_t)floor(center - support);
        int64_t hi = (int64_t)ceil(center + support);
        lo = lo < 0 ? 0 : lo;
        hi = hi > in ? in : hi;
        double *w = t->w + o * t->stride, sum = 0;
        int32_t n = 0;
        int64_t first = -1;
        for (int64_t i = lo; i < hi && n < t->stride; i++) {
            double d = fabs((i + 0.5 - center) / support);
            double v = d < 1.0 ? 1.0 - d : 0.0;
            if (v <= 0 && first < 0)
                continue;
            if (first < 0)
                first = i;
            w[n++] = v;
            sum += v;
        }
        if (first < 0 || sum <= 0) { /* cannot happen for in, out >= 1; keep a valid tap */
            first = (int64_t)floor(center) < in ? (int64_t)floor(center) : in - 1;
            w[0] = 1.0;
            n = 1;
            sum = 1.0;
        }
        for (int32_t k = 0; k < n; k++)
            w[k] /= sum;
        t->first[o] = first;
        t->count[o] = n;
    }
    return 1;
}

typedef struct resize_job {
    const gip_image *src;
    float *tmp; /* src->height x ow x 3 */
    float *dst; /* 3 x oh x ow, normalised */
    int64_t ow, oh;
    taps tx, ty;
} resize_job;

static void resize_h(void *arg, int64_t begin, int64_t end)
{
    resize_job *j = arg;
    for (int64_t y = begin; y < end; y++) {
        const uint8_t *row = (const uint8_t *)j->src->data + y * j->src->stride;
        float *o = j->tmp + y * j->ow * 3;
        for (int64_t x = 0; x < j->ow; x++) {
            const double *w = j->tx.w + x * j->tx.stride;
            int ch = j->src->channels, c1 = ch >= 3 ? 1 : 0, c2 = ch >= 3 ? 2 : 0;
            const uint8_t *p = row + j->tx.first[x] * ch;
            double a = 0, b = 0, c = 0;
            for (int32_t k = 0; k < j->tx.count[x]; k++) {
                a += w[k] * p[ch * k];
                b += w[k] * p[ch * k + c1];
                c += w[k] * p[ch * k + c2];
            }
            o[3 * x] = (float)a;
            o[3 * x + 1] = (float)b;
            o[3 * x + 2] = (float)c;
        }
    }
}

static void resize_v(void *arg, int64_t begin, int64_t end)
{
    resize_job *j = arg;
    int64_t plane = j->ow * j->oh;
    for (int64_t y = begin; y < end; y++) {
        const double *w = j->ty.w + y * j->ty.stride;
        const float *base = j->tmp + j->ty.first[y] * j->ow * 3;
        for (int64_t x = 0; x < j->ow; x++) {
            double v[3] = {0, 0, 0};
            for (int32_t k = 0; k < j->ty.count[y]; k++)
                for (int c = 0; c < 3; c++)
                    v[c] += w[k] * base[k * j->ow * 3 + 3 * x + c];
            for (int c = 0; c < 3; c++)
                j->dst[c * plane + y * j->ow + x] =
                    (float)((v[c] / 255.0 - imagenet_mean[c]) / imagenet_std[c]);
        }
    }
}

/* Resizes a host u8 RGB image to ow x oh and normalises it into planar floats (host). */
static gip_status prepare(gip_context *ctx, const gip_image *src, int64_t ow, int64_t oh,
                          float *dst)
{
    resize_job j = {src, NULL, dst, ow, oh, {0}, {0}};
    j.tmp = malloc((size_t)(src->height * ow * 3) * sizeof(float));
    if (!j.tmp || !taps_make(src->width, ow, &j.tx)) {
        free(j.tmp);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, OP ": out of memory");
    }
    if (!taps_make(src->height, oh, &j.ty)) {
        taps_free(&j.tx);
        free(j.tmp);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, OP ": out of memory");
    }
    gip__parallel_for(ctx, src->height, 4, resize_h, &j);
    gip__parallel_for(ctx, oh, 4, resize_v, &j);
    taps_free(&j.tx);
    taps_free(&j.ty);
    free(j.tmp);
    return GIP_OK;
}

/* ---- the optimisation ---------------------------------------------------------------------- */
#define TERMS_RING 64 /* > evaluations of one iteration (25 at most) */

typedef struct run_state {
    gip__style_eval *ev;
    double ring[TERMS_RING][3]; /* terms of the recent evaluations, by evaluation number */
    double best[3];             /* terms of the best point so far */
    int32_t evals, best_eval;
    double t0;
    int32_t iterations, every;
    gip_style_progress_fn progress;
    void *user;
    gip_style_progress last; /* the latest iteration, reported or not */
    int32_t reported;        /* iteration last passed to progress; -1 none */
} run_state;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static gip_status eval_fn(void *arg, const float *x, float *g, double *f)
{
    run_state *rs = arg;
    rs->evals++;
    return gip__style_eval_run(rs->ev, x, g, f, rs->ring[rs->evals % TERMS_RING]);
}

static int iter_fn(void *arg, int32_t it, int32_t evals, double f, int32_t best_eval)
{
    run_state *rs = arg;
    /* The best point is found in the iteration that evaluates it, so its terms are recent. */
    if (best_eval != rs->best_eval && rs->evals - best_eval < TERMS_RING) {
        memcpy(rs->best, rs->ring[best_eval % TERMS_RING], sizeof rs->best);
        rs->best_eval = best_eval;
    }
    gip_style_progress p = {it,          rs->iterations, evals,       f,
                            rs->best[0], rs->best[1],    rs->best[2], 0.0};
    rs->last = p;
    if (!rs->progress || (it % rs->every != 0 && it != rs->iterations))
        return 0;
    p.seconds = now_s() - rs->t0;
    rs->reported = it;
    return rs->progress(rs->user, &p);
}

static gip_status check_params(gip_context *ctx, const gip_style_params *p)
{
    const double w[3] = {p->content_weight, p->style_weight, p->tv_weight};
    for (int i = 0; i < 3; i++)
        if (!isfinite(w[i]) || w[i] < 0)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              OP ": weights must be finite and >= 0 (content %g, style %g, tv %g)",
                              w[0], w[1], w[2]);
    for (int l = 0; l < GIP__VGG_LAYERS; l++)
        if (!isfinite(p->style_layer_weight[l]) || p->style_layer_weight[l] < 0)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              OP ": style_layer_weight[%d] = %g; it must be finite and >= 0", l,
                              p->style_layer_weight[l]);
    if (p->iterations < 0 || p->history < 0 || p->history > 1000 || p->progress_every < 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          OP ": iterations (%d) and progress_every (%d) must be >= 0, history (%d) "
                             "in 0..1000",
                          (int)p->iterations, (int)p->progress_every, (int)p->history);
    if ((p->content_layers | p->style_layers) >> GIP__VGG_LAYERS)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          OP ": layer masks have bits beyond conv5_1 (content 0x%x, style 0x%x)",
                          p->content_layers, p->style_layers);
    if ((int)p->pool < 0 || (int)p->pool > GIP_STYLE_POOL_AVG || (int)p->init < 0 ||
        (int)p->init > GIP_STYLE_INIT_NOISE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, OP ": bad pool (%d) or init (%d)",
                          (int)p->pool, (int)p->init);
    if (p->flags & ~(GIP_STYLE_NO_LAYER_NORM | GIP_STYLE_NO_TF32))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, OP ": unknown flags 0x%x", p->flags);
    if ((int)p->optimizer < 0 || (int)p->optimizer > GIP_STYLE_OPT_ADAM)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          OP
                          ": bad optimizer %d (accepted: GIP_STYLE_OPT_LBFGS, GIP_STYLE_OPT_ADAM)",
                          (int)p->optimizer);
    if ((int)p->line_search < 0 || (int)p->line_search > GIP_STYLE_LS_ARMIJO)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          OP ": bad line_search %d (accepted: GIP_STYLE_LS_DEFAULT, _NONE, "
                             "_STRONG_WOLFE, _ARMIJO)",
                          (int)p->line_search);
    if (!isfinite(p->lr) || p->lr < 0 || p->lr > 1e6)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          OP ": lr = %g; it must be finite, >= 0 and at most 1e6 (0 = default)",
                          p->lr);
    return GIP_OK;
}

static gip_status check_image(gip_context *ctx, const gip_image *img, const char *what, int any)
{
    gip_status st = gip__image_check_ctx(ctx, img, OP, what);
    if (st)
        return st;
    if (img->dtype != GIP_U8 || (img->channels != 3 && !any))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          OP ": %s is %s with %d channels; u8 with %s is accepted", what,
                          gip_dtype_name(img->dtype), (int)img->channels,
                          any ? "1, 3 or 4 channels" : "3 channels (RGB)");
    return GIP_OK;
}

/* A host copy of a device image (or the image itself on the host). */
static gip_status host_view(gip_context *ctx, const gip_image *img, gip_image *host, int *owned)
{
    *owned = 0;
    if (gip_image_on_host(img)) {
        *host = *img;
        return GIP_OK;
    }
    gip_status st =
        gip_image_alloc(ctx, host, img->width, img->height, img->channels, GIP_U8, GIP_MEM_HOST, 0);
    if (st)
        return st;
    if ((st = gip_copy(ctx, img, host)) != GIP_OK) {
        gip_image_free(ctx, host);
        return st;
    }
    *owned = 1;
    return GIP_OK;
}

typedef struct out_job {
    const float *x;
    gip_image *img;
} out_job;

static void output_range(void *arg, int64_t begin, int64_t end)
{
    out_job *j = arg;
    int64_t w = j->img->width, plane = w * j->img->height;
    for (int64_t y = begin; y < end; y++) {
        uint8_t *row = (uint8_t *)j->img->data + y * j->img->stride;
        for (int64_t x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                float v =
                    (j->x[c * plane + y * w + x] * imagenet_std[c] + imagenet_mean[c]) * 255.0f;
                row[3 * x + c] = gip__sat_u8_f32(v);
            }
    }
}

GIP_API gip_status gip_style_transfer(gip_context *ctx, const gip_image *content,
                                      const gip_image *style, gip_image *dst,
                                      const gip_style_params *params,
                                      gip_style_progress_fn progress, void *user)
{
    gip_status st = gip__ctx_check(ctx, OP);
    if (st)
        return st;
    if (!content || !style || !dst)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          OP ": content, style and dst must not be NULL");
    if ((st = check_image(ctx, content, "content", 1)) ||
        (st = check_image(ctx, style, "style", 1)) || (st = check_image(ctx, dst, "dst", 0)))
        return st;
    bool dev = dst->memory == GIP_MEM_CUDA;
    if ((content->memory == GIP_MEM_CUDA) != dev || (style->memory == GIP_MEM_CUDA) != dev)
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          OP ": content, style and dst must all be on the host or all on the "
                             "context's device");
    if (dst->width < 16 || dst->height < 16)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          OP ": dst is %lldx%lld; at least 16x16 is needed for VGG's four poolings",
                          (long long)dst->width, (long long)dst->height);
    if (dst->width > MAX_SIDE || dst->height > MAX_SIDE)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, OP ": dst is %lldx%lld; at most %d on a side",
                          (long long)dst->width, (long long)dst->height, MAX_SIDE);
    if (gip__images_overlap(dst, content) || gip__images_overlap(dst, style))
        return gip__error(ctx, GIP_ERR_ALIASING, OP ": dst overlaps content or style");
    gip_style_params p = {0};
    if (params)
        p = *params;
    if ((st = check_params(ctx, &p)) != GIP_OK)
        return st;
    const gip__style_backend *be = &gip__style_cpu;
    if (dev) {
        be = gip__style_cuda_backend();
        if (!be)
            return gip__error(ctx, GIP_ERR_NOT_BUILT,
                              OP ": device images need the cuDNN backend, and this build has none "
                                 "(built without CUDA or without cuDNN); use host images");
    }

    /* Defaults. */
    gip__style_config cfg = {0};
    cfg.content_layers = p.content_layers ? p.content_layers : GIP_STYLE_CONTENT_DEFAULT;
    cfg.style_layers = p.style_layers ? p.style_layers : GIP_STYLE_STYLE_DEFAULT;
    cfg.content_weight = p.content_weight > 0 ? p.content_weight : 1.0;
    cfg.style_weight = p.style_weight > 0 ? p.style_weight : 300.0;
    cfg.tv_weight = p.tv_weight;
    for (int l = 0; l < GIP__VGG_LAYERS; l++)
        cfg.layer_weight[l] = p.style_layer_weight[l] > 0 ? p.style_layer_weight[l] : 1.0;
    cfg.avg_pool = p.pool != GIP_STYLE_POOL_MAX;
    cfg.layer_norm = !(p.flags & GIP_STYLE_NO_LAYER_NORM);
    cfg.flags = p.flags;
    int32_t iterations = p.iterations ? p.iterations : 300;

    /* Sizes: content to dst's size; style's shorter side to dst's shorter side, longer side at
     * most MAX_SIDE. */
    int64_t w = dst->width, h = dst->height, sw, sh;
    int64_t side = w < h ? w : h;
    if ((st = gip_style_output_size(style->width, style->height, side, &sw, &sh)) != GIP_OK)
        return st;
    if (sw > MAX_SIDE || sh > MAX_SIDE) {
        double k = (double)MAX_SIDE / (double)(sw > sh ? sw : sh);
        sw = (int64_t)fmax(16.0, floor(sw * k));
        sh = (int64_t)fmax(16.0, floor(sh * k));
    }

    gip_net *own_net = NULL;
    const gip_net *net = p.net;
    gip_image hc = {0}, hs = {0}, hout = {0};
    int own_c = 0, own_s = 0;
    float *host_x = NULL, *host_s = NULL, *host_c = NULL;
    float *dx = NULL, *dc = NULL, *ds = NULL;
    gip__style_eval *ev = NULL;
    gip__style_state *bst = NULL;
    int64_t n = 3 * w * h;

    if (!net) {
        if ((st = gip_net_random(p.seed, &own_net)) != GIP_OK)
            return st;
        net = own_net;
    }
    if ((st = host_view(ctx, content, &hc, &own_c)) != GIP_OK ||
        (st = host_view(ctx, style, &hs, &own_s)) != GIP_OK)
        goto out_free;
    host_c = malloc((size_t)n * sizeof(float));
    host_s = malloc((size_t)(3 * sw * sh) * sizeof(float));
    host_x = malloc((size_t)n * sizeof(float));
    if (!host_c || !host_s || !host_x) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, OP ": out of memory");
        goto out_free;
    }
    if ((st = prepare(ctx, &hc, w, h, host_c)) != GIP_OK ||
        (st = prepare(ctx, &hs, sw, sh, host_s)) != GIP_OK)
        goto out_free;
    if (p.init == GIP_STYLE_INIT_CONTENT) {
        memcpy(host_x, host_c, (size_t)n * sizeof(float));
    } else if (p.init == GIP_STYLE_INIT_STYLE) {
        if ((st = prepare(ctx, &hs, w, h, host_x)) != GIP_OK)
            goto out_free;
    } else {
        uint64_t state = p.seed ^ UINT64_C(0xA0761D6478BD642F);
        for (int64_t i = 0; i < n; i++)
            host_x[i] = (float)(0.5 * gip__style_rand_normal(&state));
    }
    if ((st = be->create(ctx, net, gip__style_last_layer(&cfg), cfg.flags, &bst)) != GIP_OK ||
        (st = be->alloc(ctx, bst, n, &dc)) != GIP_OK ||
        (st = be->alloc(ctx, bst, 3 * sw * sh, &ds)) != GIP_OK ||
        (st = be->alloc(ctx, bst, n, &dx)) != GIP_OK ||
        (st = be->upload(ctx, bst, dc, host_c, n)) != GIP_OK ||
        (st = be->upload(ctx, bst, ds, host_s, 3 * sw * sh)) != GIP_OK ||
        (st = be->upload(ctx, bst, dx, host_x, n)) != GIP_OK)
        goto out_free;
    if ((st = gip__style_eval_create(ctx, be, bst, net, &cfg, dc, h, w, ds, sh, sw, &ev)) != GIP_OK)
        goto out_free;

    run_state *rs = calloc(1, sizeof *rs);
    if (!rs) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, OP ": out of memory");
        goto out_free;
    }
    rs->ev = ev;
    rs->iterations = iterations;
    rs->every = p.progress_every ? p.progress_every : 10;
    rs->progress = progress;
    rs->user = user;
    rs->reported = -1;
    rs->t0 = now_s();
    if (p.optimizer == GIP_STYLE_OPT_ADAM) {
        st = gip__adam(ctx, be, bst, iterations, p.lr > 0 ? p.lr : ADAM_LR_DEFAULT, dx, n, eval_fn,
                       iter_fn, rs, NULL, NULL);
    } else {
        gip__lbfgs_params lp = {iterations, p.history ? p.history : 10, 0, (int)p.line_search,
                                p.lr};
        st = gip__lbfgs(ctx, be, bst, &lp, dx, n, eval_fn, iter_fn, rs, NULL, NULL);
    }
    /* Stopped early (converged): the final state still goes to the callback once. */
    if (st == GIP_OK && progress && rs->reported != rs->last.iteration) {
        rs->last.seconds = now_s() - rs->t0;
        progress(user, &rs->last);
    }
    free(rs);
    if (st != GIP_OK)
        goto out_free;
    if ((st = be->download(ctx, bst, host_x, dx, n)) != GIP_OK)
        goto out_free;

    /* Everything has worked: only now is dst written. */
    if (dev) {
        if ((st = gip_image_alloc(ctx, &hout, w, h, 3, GIP_U8, GIP_MEM_HOST, 0)) != GIP_OK)
            goto out_free;
    } else {
        hout = *dst;
    }
    out_job oj = {host_x, &hout};
    gip__parallel_for(ctx, h, 8, output_range, &oj);
    if (dev) {
        if ((st = gip_copy(ctx, &hout, dst)) == GIP_OK)
            st = gip_context_sync(ctx);
        gip_image_free(ctx, &hout);
    }
out_free:
    gip__style_eval_destroy(ev);
    if (bst) {
        be->free(ctx, bst, dx);
        be->free(ctx, bst, dc);
        be->free(ctx, bst, ds);
        be->destroy(ctx, bst);
    }
    free(host_x);
    free(host_s);
    free(host_c);
    if (own_c)
        gip_image_free(ctx, &hc);
    if (own_s)
        gip_image_free(ctx, &hs);
    gip_net_free(own_net);
    return st;
}

#if !defined(GIP_HAVE_CUDA)
/* A build without CUDA has no device backend. */
const gip__style_backend *gip__style_cuda_backend(void)
{
    return NULL;
}
#endif
