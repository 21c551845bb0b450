/* SPDX-License-Identifier: MIT */
/* gip_mix_channels (cv2.mixChannels): channels of several images copied into channels of
 * others, each pair a strided copy by gip_copy_strided() on the CPU threads or a device kernel;
 * and the registry's mix_channels, one image into a new one. */
#include <stdlib.h>

#include "gip/color.h"
#include "gip/interop.h"
#include "internal.h"
#include "ops/color/channel_view.h"
#include "registry/registry.h"

/* The image holding channel `index` of the concatenated channels of imgs, and its channel. */
static const gip_image *mix_channels_find(const gip_image *imgs, int32_t n, int32_t index,
                                          int32_t *channel)
{
    for (int32_t i = 0; i < n; i++) {
        if (index < imgs[i].channels) {
            *channel = index;
            return &imgs[i];
        }
        index -= imgs[i].channels;
    }
    return NULL;
}

gip_status gip_mix_channels(gip_context *ctx, const gip_image *srcs, int32_t nsrcs, gip_image *dsts,
                            int32_t ndsts, const int32_t *from_to, int32_t npairs)
{
    static const char op[] = "gip_mix_channels";
    if (!srcs || !dsts || !from_to || nsrcs < 1 || ndsts < 1 || npairs < 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: srcs, dsts and from_to must be non-NULL, with at least one "
                          "source, destination and pair (got %d, %d and %d)",
                          op, (int)nsrcs, (int)ndsts, (int)npairs);
    bool on_device = false;
    gip_status st;
    int32_t ns = 0, nd = 0;
    /* every image against the first source: well formed, same place, size and dtype */
    for (int32_t i = 0; i < nsrcs + ndsts; i++) {
        const gip_image *img = i < nsrcs ? &srcs[i] : &dsts[i - nsrcs];
        if ((st = gip__check_unary(ctx, &srcs[0], img, op, &on_device)))
            return st;
        if (img->dtype != srcs[0].dtype || img->dtype == GIP_C32)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: every image must have the first source's dtype (%s, not c32), "
                              "got %s",
                              op, gip_dtype_name(srcs[0].dtype), gip_dtype_name(img->dtype));
        if (i < nsrcs)
            ns += img->channels;
        else
            nd += img->channels;
    }
    for (int32_t i = 0; i < ndsts; i++)
        for (int32_t j = 0; j < nsrcs + ndsts; j++) {
            const gip_image *o = j < nsrcs ? &srcs[j] : &dsts[j - nsrcs];
            if (o != &dsts[i] && gip__images_overlap(&dsts[i], o))
                return gip__error(ctx, GIP_ERR_ALIASING,
                                  "%s: destination %d overlaps %s %d; the images must be "
                                  "disjoint",
                                  op, (int)i, j < nsrcs ? "source" : "destination",
                                  (int)(j < nsrcs ? j : j - nsrcs));
        }
    for (int32_t k = 0; k < npairs; k++) {
        const int32_t s = from_to[2 * k], d = from_to[2 * k + 1];
        if (s < -1 || s >= ns || d < 0 || d >= nd)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: pair %d (%d, %d): the source channel must be in -1..%d (-1: "
                              "zeros) and the destination channel in 0..%d",
                              op, (int)k, (int)s, (int)d, (int)ns - 1, (int)nd - 1);
    }
    /* a zero element for the pairs that fill (-1), broadcast over the channel */
    gip_image zero = {0};
    static const float host_zero[1] = {0.0f};
    bool fills = false;
    for (int32_t k = 0; k < npairs; k++)
        fills |= from_to[2 * k] < 0;
    if (fills && on_device) {
        if ((st = gip_image_alloc(ctx, &zero, 1, 1, 1, srcs[0].dtype, GIP_MEM_CUDA, 0)) ||
            (st = gip_image_fill_bytes(ctx, &zero, 0)))
            goto out_free_zero;
    }
    for (int32_t k = 0; k < npairs; k++) {
        int32_t sc = 0, dc = 0;
        gip_image *d = (gip_image *)mix_channels_find(dsts, ndsts, from_to[2 * k + 1], &dc);
        gip_strided dv = gip__channel_view(d, dc), sv;
        if (from_to[2 * k] >= 0) {
            const gip_image *s = mix_channels_find(srcs, nsrcs, from_to[2 * k], &sc);
            sv = gip__channel_view(s, sc);
        } else {
            sv = dv;
            sv.data = on_device ? zero.data : (void *)host_zero;
            sv.strides[0] = sv.strides[1] = sv.strides[2] = 0;
        }
        if ((st = gip_copy_strided(ctx, &sv, &dv)))
            goto out_free_zero;
    }
    st = GIP_OK;
out_free_zero:
    if (zero.data)
        gip_image_free(ctx, &zero);
    return st;
}

/* ---- the registry's mix_channels ---------------------------------------------------------- */

static const gip_param decl[] = {
    GIP__PARAM_EX("from_to", GIP_PARAM_LIST, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1, 3, 8,
                  NULL, NULL,
                  "pairs of channels: source (-1: zeros), destination; destination channels "
                  "named by no pair are zeros",
                  "0,0,0,1,0,2"),
    GIP__PARAM("channels", GIP_PARAM_INT, 0, 0, 4, 0, NULL, "0",
               "the result's channels (1, 3 or 4); 0: one more than the highest destination"),
};

typedef struct mix_step {
    int32_t npairs, channels;
    int32_t from_to[16];
} mix_step;

static gip_status build(const gip_args *a, void *out)
{
    mix_step *m = out;
    double v[16];
    const int32_t n = gip_args_list(a, "from_to", v, 16);
    if (n % 2)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "mix_channels: from_to holds pairs (source, destination), got %d "
                          "numbers",
                          (int)n);
    int32_t top = -1;
    for (int32_t i = 0; i < n; i++) {
        if (v[i] != (int32_t)v[i])
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "mix_channels: channel %g of from_to is not a whole number", v[i]);
        m->from_to[i] = (int32_t)v[i];
        if (i % 2) {
            if (m->from_to[i] < 0)
                return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                                  "mix_channels: destination channel %d: 0 to 3",
                                  (int)m->from_to[i]);
            top = m->from_to[i] > top ? m->from_to[i] : top;
        }
    }
    m->npairs = n / 2;
    m->channels = (int32_t)gip_args_int(a, "channels");
    if (!m->channels)
        m->channels = top + 1;
    if (m->channels == 2 || top >= m->channels)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "mix_channels: the result has %d channels (1, 3 or 4 are accepted, "
                          "more than the highest destination %d)",
                          (int)m->channels, (int)top);
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)identity;
    const mix_step *m = params;
    for (int32_t k = 0; k < m->npairs; k++)
        if (m->from_to[2 * k] >= in->channels)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "mix_channels: source channel %d is outside the image's 0..%d",
                              (int)m->from_to[2 * k], (int)in->channels - 1);
    out->channels = m->channels;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const mix_step *m = p;
    /* the named pairs, then zeros for the channels no pair names */
    int32_t ft[2 * (8 + 4)], n = 0;
    bool named[4] = {false, false, false, false};
    for (int32_t k = 0; k < m->npairs; k++) {
        ft[2 * n] = m->from_to[2 * k];
        ft[2 * n + 1] = m->from_to[2 * k + 1];
        if (ft[2 * n + 1] >= 0 && ft[2 * n + 1] < 4)
            named[ft[2 * n + 1]] = true;
        n++;
    }
    for (int32_t c = 0; c < dst->channels && c < 4; c++)
        if (!named[c]) {
            ft[2 * n] = -1;
            ft[2 * n + 1] = c;
            n++;
        }
    return gip_mix_channels(ctx, src, 1, dst, 1, ft, n);
}

const gip_op gip__op_mix_channels = {
    .name = "mix_channels",
    .family = "color",
    .summary = "Copies channels into a new image by (source, destination) pairs, as "
               "cv2.mixChannels.",
    .doc = "from_to lists pairs: the source channel (-1 for zeros) and the result's channel it "
           "goes to; later pairs overwrite earlier ones. The result has `channels` channels, "
           "those no pair names are zeros. gip_mix_channels() takes several sources and "
           "destinations, as cv2.mixChannels.",
    .cv_name = "cv2.mixChannels",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(mix_step),
    .build = build,
    .shape = shape,
    .run = run,
};
