/* SPDX-License-Identifier: MIT */
/* VGG19's layer table, the network object, the seeded random-weight network (ranVGG) and the
 * layer names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "style.h"

const int gip__vgg_feature_index[GIP__VGG_LAYERS] = {0,  2,  5,  7,  10, 12, 14,
                                                     16, 19, 21, 23, 25, 28};
const int gip__vgg_cin[GIP__VGG_LAYERS] = {3,   64,  64,  128, 128, 256, 256,
                                           256, 256, 512, 512, 512, 512};
const int gip__vgg_cout[GIP__VGG_LAYERS] = {64,  64,  128, 128, 256, 256, 256,
                                            256, 512, 512, 512, 512, 512};
const bool gip__vgg_pool_after[GIP__VGG_LAYERS] = {false, true,  false, true,  false, false, false,
                                                   true,  false, false, false, true,  false};

static const char *const layer_names[GIP__VGG_LAYERS] = {
    "conv1_1", "conv1_2", "conv2_1", "conv2_2", "conv3_1", "conv3_2", "conv3_3",
    "conv3_4", "conv4_1", "conv4_2", "conv4_3", "conv4_4", "conv5_1"};

GIP_API const char *gip_vgg_layer_name(gip_vgg_layer layer)
{
    if ((int)layer < 0 || (int)layer >= GIP__VGG_LAYERS)
        return "?";
    return layer_names[layer];
}

GIP_API gip_status gip_vgg_layer_parse(const char *name, gip_vgg_layer *layer)
{
    if (!name || !layer)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_vgg_layer_parse: name and layer must not be NULL");
    for (int i = 0; i < GIP__VGG_LAYERS; i++)
        if (strcmp(name, layer_names[i]) == 0) {
            *layer = (gip_vgg_layer)i;
            return GIP_OK;
        }
    return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                      "gip_vgg_layer_parse: unknown layer '%s' (accepted: conv1_1, conv1_2, "
                      "conv2_1, conv2_2, conv3_1 .. conv3_4, conv4_1 .. conv4_4, conv5_1)",
                      name);
}

uint64_t gip__style_rand_u64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

double gip__style_rand_normal(uint64_t *state)
{
    /* Box-Muller on two 53-bit uniforms; u1 in (0, 1] so the log is finite. */
    double u1 = ((double)(gip__style_rand_u64(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    double u2 = (double)(gip__style_rand_u64(state) >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

GIP_API void gip_net_free(gip_net *net)
{
    if (!net)
        return;
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        free(net->conv[l].w);
        free(net->conv[l].b);
    }
    free(net);
}

GIP_API int gip_net_is_random(const gip_net *net)
{
    return net && net->random;
}

gip_status gip__net_alloc(int divisor, gip_net **out)
{
    gip_net *net = calloc(1, sizeof *net);
    if (!net)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "style: out of memory for the network");
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        gip__conv *c = &net->conv[l];
        c->cin = l == 0 ? 3 : gip__vgg_cin[l] / divisor;
        c->cout = gip__vgg_cout[l] / divisor;
        c->w = malloc((size_t)c->cout * c->cin * 9 * sizeof(float));
        c->b = malloc((size_t)c->cout * sizeof(float));
        if (!c->w || !c->b) {
            gip_net_free(net);
            return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "style: out of memory for the network");
        }
    }
    *out = net;
    return GIP_OK;
}

gip_status gip__net_random_slim(uint64_t seed, int divisor, gip_net **out)
{
    gip_net *net;
    gip_status st = gip__net_alloc(divisor, &net);
    if (st != GIP_OK)
        return st;
    uint64_t state = seed ^ UINT64_C(0x5EEDF00DCAFEBABE);
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        gip__conv *c = &net->conv[l];
        /* He et al.'s initialisation keeps the activations' scale through ReLU layers. */
        double sd = sqrt(2.0 / (9.0 * c->cin));
        int64_t nw = (int64_t)c->cout * c->cin * 9;
        for (int64_t k = 0; k < nw; k++)
            c->w[k] = (float)(sd * gip__style_rand_normal(&state));
        memset(c->b, 0, (size_t)c->cout * sizeof(float));
    }
    net->random = 1;
    *out = net;
    return GIP_OK;
}

GIP_API gip_status gip_net_random(uint64_t seed, gip_net **out)
{
    if (!out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_net_random: out must not be NULL");
    *out = NULL;
    return gip__net_random_slim(seed, 1, out);
}
