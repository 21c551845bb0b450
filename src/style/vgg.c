/* SPDX-License-Identifier: MIT */
/* The style-transfer evaluator: VGG19 forward to the deepest layer in use, content and Gram-matrix
 * style losses (and total variation), backpropagation to the image; written once over the backend
 * primitive table so the CPU and the GPU run the same math. */
#include <stdlib.h>
#include <string.h>

#include "style.h"

struct gip__style_eval {
    gip_context *ctx;
    const gip__style_backend *be;
    const gip_net *net;
    gip__style_config cfg;
    gip__style_state *st;
    int last;                                       /* deepest layer used */
    int64_t h[GIP__VGG_LAYERS], w[GIP__VGG_LAYERS]; /* input size of each layer */
    float *act[GIP__VGG_LAYERS];                    /* post-ReLU outputs */
    float *pooled[GIP__VGG_LAYERS];                 /* pooled outputs where a pool follows */
    float *target[GIP__VGG_LAYERS];                 /* content features P_l or style Gram A_l */
    float *gram_target[GIP__VGG_LAYERS];
    double content_coef[GIP__VGG_LAYERS], style_coef[GIP__VGG_LAYERS];
    float *gbuf[2]; /* gradient ping-pong, largest activation */
    float *gpool;   /* pool gradient input scratch */
    float *gram;    /* c x c */
    float *scratch; /* c x c */
    double *loss;   /* 3 slots */
};

int gip__style_last_layer(const gip__style_config *cfg)
{
    uint32_t used = cfg->content_layers | cfg->style_layers;
    int last = 0;
    for (int l = 0; l < GIP__VGG_LAYERS; l++)
        if (used & (1u << l))
            last = l;
    return last;
}

static int64_t act_size(const gip_net *net, int l, const int64_t *h, const int64_t *w)
{
    return (int64_t)net->conv[l].cout * h[l] * w[l];
}

static void layer_sizes(int64_t h, int64_t w, int64_t *hs, int64_t *ws)
{
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        hs[l] = h;
        ws[l] = w;
        if (gip__vgg_pool_after[l]) {
            h /= 2;
            w /= 2;
        }
    }
}

/* Runs the network on x (3 x h x w) up to layer last, into act[] and pooled[]. */
static gip_status forward(gip__style_eval *ev, const float *x, float **act, float **pooled,
                          const int64_t *hs, const int64_t *ws)
{
    const float *in = x;
    for (int l = 0; l <= ev->last; l++) {
        gip_status st = ev->be->conv_fwd(ev->ctx, ev->st, l, in, act[l], hs[l], ws[l]);
        if (st != GIP_OK)
            return st;
        in = act[l];
        if (gip__vgg_pool_after[l] && l < ev->last) {
            st = ev->be->pool_fwd(ev->ctx, ev->st, ev->cfg.avg_pool, act[l], pooled[l],
                                  ev->net->conv[l].cout, hs[l], ws[l]);
            if (st != GIP_OK)
                return st;
            in = pooled[l];
        }
    }
    return GIP_OK;
}

static void free_acts(gip__style_eval *ev, float **act, float **pooled)
{
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        ev->be->free(ev->ctx, ev->st, act[l]);
        ev->be->free(ev->ctx, ev->st, pooled[l]);
        act[l] = pooled[l] = NULL;
    }
}

static gip_status alloc_acts(gip__style_eval *ev, float **act, float **pooled, const int64_t *hs,
                             const int64_t *ws)
{
    for (int l = 0; l <= ev->last; l++) {
        int64_t c = ev->net->conv[l].cout;
        gip_status st = ev->be->alloc(ev->ctx, ev->st, c * hs[l] * ws[l], &act[l]);
        if (st == GIP_OK && gip__vgg_pool_after[l] && l < ev->last)
            st = ev->be->alloc(ev->ctx, ev->st, c * (hs[l] / 2) * (ws[l] / 2), &pooled[l]);
        if (st != GIP_OK) {
            free_acts(ev, act, pooled);
            return st;
        }
    }
    return GIP_OK;
}

void gip__style_eval_destroy(gip__style_eval *ev)
{
    if (!ev)
        return;
    free_acts(ev, ev->act, ev->pooled);
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        ev->be->free(ev->ctx, ev->st, ev->target[l]);
        ev->be->free(ev->ctx, ev->st, ev->gram_target[l]);
    }
    ev->be->free(ev->ctx, ev->st, ev->gbuf[0]);
    ev->be->free(ev->ctx, ev->st, ev->gbuf[1]);
    ev->be->free(ev->ctx, ev->st, ev->gpool);
    ev->be->free(ev->ctx, ev->st, ev->gram);
    ev->be->free(ev->ctx, ev->st, ev->scratch);
    if (ev->loss)
        ev->be->loss_free(ev->ctx, ev->st, ev->loss);
    free(ev);
}

gip_status gip__style_eval_create(gip_context *ctx, const gip__style_backend *be,
                                  gip__style_state *state, const gip_net *net,
                                  const gip__style_config *cfg, const float *content, int64_t h,
                                  int64_t w, const float *style, int64_t sh, int64_t sw,
                                  gip__style_eval **out)
{
    gip__style_eval *ev = calloc(1, sizeof *ev);
    if (!ev)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    ev->ctx = ctx;
    ev->be = be;
    ev->st = state;
    ev->net = net;
    ev->cfg = *cfg;
    ev->last = gip__style_last_layer(cfg);
    layer_sizes(h, w, ev->h, ev->w);
    int64_t shs[GIP__VGG_LAYERS], sws[GIP__VGG_LAYERS];
    layer_sizes(sh, sw, shs, sws);
    float *sact[GIP__VGG_LAYERS] = {0}, *spooled[GIP__VGG_LAYERS] = {0};

    gip_status st;
    int64_t gmax = 0, cmax = 0;
    for (int l = 0; l <= ev->last; l++) {
        int64_t s = act_size(net, l, ev->h, ev->w);
        int64_t in = (int64_t)net->conv[l].cin * ev->h[l] * ev->w[l];
        gmax = s > gmax ? s : gmax;
        gmax = in > gmax ? in : gmax;
        cmax = net->conv[l].cout > cmax ? net->conv[l].cout : cmax;
    }
    if ((st = alloc_acts(ev, ev->act, ev->pooled, ev->h, ev->w)) != GIP_OK ||
        (st = be->alloc(ctx, ev->st, gmax, &ev->gbuf[0])) != GIP_OK ||
        (st = be->alloc(ctx, ev->st, gmax, &ev->gbuf[1])) != GIP_OK ||
        (st = be->alloc(ctx, ev->st, gmax, &ev->gpool)) != GIP_OK ||
        (st = be->alloc(ctx, ev->st, cmax * cmax, &ev->gram)) != GIP_OK ||
        (st = be->alloc(ctx, ev->st, cmax * cmax, &ev->scratch)) != GIP_OK ||
        (st = be->loss_alloc(ctx, ev->st, 3, &ev->loss)) != GIP_OK)
        goto out_fail;

    /* Content targets P_l: the content image's features. */
    if ((st = forward(ev, content, ev->act, ev->pooled, ev->h, ev->w)) != GIP_OK)
        goto out_fail;
    for (int l = 0; l <= ev->last; l++) {
        if (!(cfg->content_layers & (1u << l)))
            continue;
        int64_t n = act_size(net, l, ev->h, ev->w);
        double norm = 1.0;
        if ((st = be->alloc(ctx, ev->st, n, &ev->target[l])) != GIP_OK ||
            (st = be->axpby(ctx, ev->st, 1.0, ev->act[l], 0.0, ev->target[l], n)) != GIP_OK)
            goto out_fail;
        if (cfg->layer_norm && (st = be->mean_sq(ctx, ev->st, ev->target[l], n, &norm)) != GIP_OK)
            goto out_fail;
        ev->content_coef[l] = cfg->content_weight / (norm > 0 ? norm : 1.0);
    }
    /* Style targets A_l: the style image's Gram matrices, at the style image's own size. */
    if ((st = alloc_acts(ev, sact, spooled, shs, sws)) != GIP_OK ||
        (st = forward(ev, style, sact, spooled, shs, sws)) != GIP_OK)
        goto out_fail;
    for (int l = 0; l <= ev->last; l++) {
        if (!(cfg->style_layers & (1u << l)))
            continue;
        int64_t c = net->conv[l].cout;
        double norm = 1.0;
        if ((st = be->alloc(ctx, ev->st, c * c, &ev->gram_target[l])) != GIP_OK ||
            (st = be->gram(ctx, ev->st, sact[l], ev->gram_target[l], c, shs[l] * sws[l])) != GIP_OK)
            goto out_fail;
        if (cfg->layer_norm &&
            (st = be->mean_sq(ctx, ev->st, ev->gram_target[l], c * c, &norm)) != GIP_OK)
            goto out_fail;
        ev->style_coef[l] = cfg->style_weight * cfg->layer_weight[l] / (norm > 0 ? norm : 1.0);
    }
    free_acts(ev, sact, spooled);
    *out = ev;
    return GIP_OK;
out_fail:
    free_acts(ev, sact, spooled);
    gip__style_eval_destroy(ev);
    return st;
}

gip_status gip__style_eval_run(gip__style_eval *ev, const float *x, float *g, double *loss,
                               double terms[3])
{
    const gip__style_backend *be = ev->be;
    gip_context *ctx = ev->ctx;
    const gip_net *net = ev->net;
    gip_status st;
    if ((st = be->loss_zero(ctx, ev->st, ev->loss, 3)) != GIP_OK ||
        (st = forward(ev, x, ev->act, ev->pooled, ev->h, ev->w)) != GIP_OK)
        return st;
    int cur = 0;
    float *gl = ev->gbuf[cur]; /* gradient with respect to act[l] */
    if ((st = be->axpby(ctx, ev->st, 0.0, NULL, 0.0, gl, act_size(net, ev->last, ev->h, ev->w))) !=
        GIP_OK)
        return st;
    for (int l = ev->last; l >= 0; l--) {
        int64_t c = net->conv[l].cout, m = ev->h[l] * ev->w[l];
        if (ev->target[l] &&
            (st = be->content_grad(ctx, ev->st, ev->act[l], ev->target[l], c * m,
                                   ev->content_coef[l], gl, &ev->loss[0])) != GIP_OK)
            return st;
        if (ev->gram_target[l] &&
            ((st = be->gram(ctx, ev->st, ev->act[l], ev->gram, c, m)) != GIP_OK ||
             (st = be->style_grad(ctx, ev->st, ev->act[l], ev->gram, ev->gram_target[l],
                                  ev->scratch, c, m, ev->style_coef[l], gl, &ev->loss[1])) !=
                 GIP_OK))
            return st;
        if ((st = be->relu_bwd(ctx, ev->st, ev->act[l], gl, c * m)) != GIP_OK)
            return st;
        if (l == 0) {
            if ((st = be->conv_bwd(ctx, ev->st, 0, gl, g, ev->h[0], ev->w[0])) != GIP_OK)
                return st;
            break;
        }
        /* Gradient with respect to the conv's input: directly act[l-1]'s, or the pool's output. */
        float *gin = gip__vgg_pool_after[l - 1] ? ev->gpool : ev->gbuf[1 - cur];
        if ((st = be->conv_bwd(ctx, ev->st, l, gl, gin, ev->h[l], ev->w[l])) != GIP_OK)
            return st;
        cur = 1 - cur;
        gl = ev->gbuf[cur];
        if (gip__vgg_pool_after[l - 1] &&
            (st = be->pool_bwd(ctx, ev->st, ev->cfg.avg_pool, ev->act[l - 1], ev->gpool, gl,
                               net->conv[l - 1].cout, ev->h[l - 1], ev->w[l - 1])) != GIP_OK)
            return st;
    }
    if (ev->cfg.tv_weight > 0 && (st = be->tv_grad(ctx, ev->st, x, 3, ev->h[0], ev->w[0],
                                                   ev->cfg.tv_weight, g, &ev->loss[2])) != GIP_OK)
        return st;
    double t[3];
    if ((st = be->loss_read(ctx, ev->st, ev->loss, t, 3)) != GIP_OK)
        return st;
    *loss = t[0] + t[1] + t[2];
    if (terms)
        memcpy(terms, t, sizeof t);
    return GIP_OK;
}
