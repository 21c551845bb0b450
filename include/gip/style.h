/* SPDX-License-Identifier: MIT */
/* Neural style transfer (Gatys et al.): VGG19 features, content and Gram-matrix style losses,
 * L-BFGS on the image; trained weights from a safetensors file or a seeded random network. CPU:
 * OpenBLAS; GPU: cuDNN and cuBLAS. */
#ifndef GIP_STYLE_H
#define GIP_STYLE_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The network is VGG19's convolution stack up to conv5_1: 13 layers of 3x3 convolutions
 * (padding 1, stride 1) each followed by ReLU, with 2x2 pooling (stride 2, odd rows/columns
 * dropped as PyTorch does) after conv1_2, conv2_2, conv3_4 and conv4_4. Layers are named and
 * numbered as below; features are taken after the ReLU.
 */
typedef enum gip_vgg_layer {
    GIP_VGG_CONV1_1 = 0, /* torchvision features.0   3 ->  64 */
    GIP_VGG_CONV1_2,     /* features.2               64 ->  64, then pool */
    GIP_VGG_CONV2_1,     /* features.5               64 -> 128 */
    GIP_VGG_CONV2_2,     /* features.7              128 -> 128, then pool */
    GIP_VGG_CONV3_1,     /* features.10             128 -> 256 */
    GIP_VGG_CONV3_2,     /* features.12 */
    GIP_VGG_CONV3_3,     /* features.14 */
    GIP_VGG_CONV3_4,     /* features.16, then pool */
    GIP_VGG_CONV4_1,     /* features.19             256 -> 512 */
    GIP_VGG_CONV4_2,     /* features.21 */
    GIP_VGG_CONV4_3,     /* features.23 */
    GIP_VGG_CONV4_4,     /* features.25, then pool */
    GIP_VGG_CONV5_1,     /* features.28             512 -> 512 */
    GIP_VGG_LAYERS       /* 13 */
} gip_vgg_layer;

/** Bit of a layer in the layer masks of gip_style_params. */
#define GIP_VGG_BIT(layer) (1u << (layer))
/** Default content layers: conv4_2. */
#define GIP_STYLE_CONTENT_DEFAULT GIP_VGG_BIT(GIP_VGG_CONV4_2)
/** Default style layers: conv1_1, conv2_1, conv3_1, conv4_1, conv5_1. */
#define GIP_STYLE_STYLE_DEFAULT                                                                    \
    (GIP_VGG_BIT(GIP_VGG_CONV1_1) | GIP_VGG_BIT(GIP_VGG_CONV2_1) | GIP_VGG_BIT(GIP_VGG_CONV3_1) |  \
     GIP_VGG_BIT(GIP_VGG_CONV4_1) | GIP_VGG_BIT(GIP_VGG_CONV5_1))

/** Name of a layer ("conv4_2"), or "?" for a bad value. */
GIP_API const char *gip_vgg_layer_name(gip_vgg_layer layer);
/** Parses a layer name ("conv4_2") into *layer. GIP_ERR_INVALID_ARGUMENT for an unknown name. */
GIP_API gip_status gip_vgg_layer_parse(const char *name, gip_vgg_layer *layer);

/** A network: the weights of the 13 layers in host memory (read-only once made; one network may
 *  serve several contexts and threads at once). */
typedef struct gip_net gip_net;

/**
 * Loads VGG19 weights from a safetensors file with torchvision's key names: features.N.weight
 * (float32, shape [out, in, 3, 3], OIHW) and features.N.bias (float32, [out]) for the 13 layers
 * above (N = 0, 2, 5, 7, 10, 12, 14, 16, 19, 21, 23, 25, 28). The remaining VGG19 convolutions
 * (features.30, .32, .34) may be present and are checked but not kept; "__metadata__" (an object of
 * strings) is allowed; any other key is refused. Convert torchvision's vgg19-dcbb9e9d.pth with
 * `python -m gip.convert_vgg19 IN.pth OUT.safetensors`.
 * The reader checks the 8-byte header length against the file size, parses the JSON header
 * strictly, and checks each tensor's dtype (F32 only), shape (VGG19's) and data_offsets (inside
 * the data section, end >= begin, size = product of the shape * 4, no two tensors overlapping).
 * Limits on the JSON header, far above the few KiB and few hundred members of a real VGG19 file,
 * bound the reader's time and memory on hostile files: at most 16 MiB, nesting depth 16, and
 * 65536 members (object keys plus array items, counted over the whole header). Duplicate keys are
 * refused; the check costs O(n log n) in the keys of an object.
 * @param out  receives the network (free with gip_net_free()); NULL on failure.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL path/out); GIP_ERR_NOT_FOUND; GIP_ERR_IO;
 *         GIP_ERR_CORRUPT (truncated file, bad header length or a header above 16 MiB, bad JSON
 *         or a duplicate key, offsets outside the data or overlapping, a missing tensor, a size
 *         that does not match the shape); GIP_ERR_TOO_LARGE (more than 65536 members in the
 *         header);
 *         GIP_ERR_UNSUPPORTED (a dtype other than F32, a shape other than VGG19's, an unknown
 *         key); GIP_ERR_OUT_OF_MEMORY. The message names the file and the key at fault.
 */
GIP_API gip_status gip_vgg19_load(const char *path, gip_net **out);

/**
 * Makes an untrained VGG19 with seeded random weights ("ranVGG", He, Wang and Hopcroft, NIPS 2016):
 * each layer's weights are drawn from a normal distribution with He's variance 2 / (9 * in),
 * biases zero. Same seed, same weights on every machine. Used when no weights file is given; it
 * pairs with the per-layer loss normalisation of gip_style_params (on by default).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL out); GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_net_random(uint64_t seed, gip_net **out);

/** Frees a network. NULL is a no-op. */
GIP_API void gip_net_free(gip_net *net);

/** Non-zero for a network made by gip_net_random(). */
GIP_API int gip_net_is_random(const gip_net *net);

typedef enum gip_style_pool {
    GIP_STYLE_POOL_DEFAULT = 0, /* average pooling (Gatys et al. prefer it for synthesis) */
    GIP_STYLE_POOL_MAX = 1,
    GIP_STYLE_POOL_AVG = 2
} gip_style_pool;

typedef enum gip_style_init {
    GIP_STYLE_INIT_CONTENT = 0, /* start from the content image (default) */
    GIP_STYLE_INIT_STYLE = 1,   /* from the style image resized to the output size */
    GIP_STYLE_INIT_NOISE = 2    /* from seeded Gaussian noise */
} gip_style_init;

typedef enum gip_style_optimizer {
    GIP_STYLE_OPT_LBFGS = 0, /* L-BFGS (default) */
    GIP_STYLE_OPT_ADAM = 1   /* Adam (Kingma and Ba), betas 0.9 and 0.999, eps 1e-8 */
} gip_style_optimizer;

/** L-BFGS step-length rule. */
typedef enum gip_style_line_search {
    GIP_STYLE_LS_DEFAULT = 0, /* backtracking Armijo (GIP_STYLE_LS_ARMIJO) */
    /* No line search, as torch.optim.LBFGS(line_search_fn=None): a fixed step of lr along the
     * L-BFGS direction, the very first one scaled by min(1, 1 / sum|g|); one evaluation per
     * iteration. The loss may rise on some iterations; the best image is kept. */
    GIP_STYLE_LS_NONE = 1,
    /* Strong Wolfe conditions (c1 = 1e-4, c2 = 0.9) by bracketing and cubic interpolation, at
     * most 25 evaluations per iteration: torch.optim.LBFGS(line_search_fn="strong_wolfe"). First
     * trial step as for GIP_STYLE_LS_NONE. */
    GIP_STYLE_LS_STRONG_WOLFE = 2,
    /* Backtracking from a unit step (from 1 / |g|_2 when there is no curvature history) with
     * safeguarded quadratic interpolation until f(x + t d) <= f(x) + 1e-4 t g.d, at most 20
     * evaluations; a non-descent direction restarts from steepest descent. */
    GIP_STYLE_LS_ARMIJO = 3
} gip_style_line_search;

/** Do not normalise each layer's loss by its target's mean square (see gip_style_params). */
#define GIP_STYLE_NO_LAYER_NORM 1u
/** GPU: no TF32 tensor-core arithmetic in cuDNN and cuBLAS (full fp32; slower). */
#define GIP_STYLE_NO_TF32 2u

/**
 * Parameters of a style transfer. Zero-initialise: zero means default for every field.
 *
 * Loss (x the image being optimised, F_l its features at layer l, C_l channels, M_l pixels):
 *   content = content_weight * sum over content layers of mean((F_l - P_l)^2) / n_l
 *   style   = style_weight * sum over style layers of w_l * mean((G_l - A_l)^2) / s_l
 *   tv      = tv_weight * mean over pixels and channels of the squared differences of
 *             horizontally and vertically adjacent values of x (normalised units)
 * with G_l = F_l F_l^T / (C_l M_l) the normalised Gram matrix, P_l and A_l the content image's
 * features and the style image's Gram matrix. n_l = mean(P_l^2) and s_l = mean(A_l^2) (the
 * per-layer normalisation that makes a random network usable) unless GIP_STYLE_NO_LAYER_NORM is
 * set, then 1. A weight that is negative is refused; to switch a term off give a weight of
 * 1e-30 or, for tv, leave it at zero.
 */
typedef struct gip_style_params {
    const gip_net *net;            /* NULL: gip_net_random(seed) made for this call */
    int32_t iterations;            /* optimiser iterations; 0 = 300 */
    double content_weight;         /* 0 = 1 */
    double style_weight;           /* 0 = 300 (balanced for the layer normalisation) */
    double tv_weight;              /* 0 = no total-variation term */
    double style_layer_weight[13]; /* w_l per layer, 0 = 1 */
    uint32_t content_layers;       /* GIP_VGG_BIT() mask; 0 = GIP_STYLE_CONTENT_DEFAULT */
    uint32_t style_layers;         /* GIP_VGG_BIT() mask; 0 = GIP_STYLE_STYLE_DEFAULT */
    gip_style_pool pool;           /* 0 = average */
    gip_style_init init;           /* 0 = content */
    uint64_t seed;                 /* random network and noise; 0 is a valid seed */
    int32_t history;               /* L-BFGS history size, 1..1000; 0 = 10 (PyTorch: 100) */
    int32_t progress_every;        /* call progress every N iterations; 0 = 10 */
    uint32_t flags;                /* GIP_STYLE_NO_LAYER_NORM | GIP_STYLE_NO_TF32 */
    /* Fields added later; zero keeps the behaviour of a struct without them. */
    gip_style_optimizer optimizer;     /* 0 = L-BFGS */
    gip_style_line_search line_search; /* L-BFGS only; 0 = Armijo */
    double lr; /* step: L-BFGS with line search none (0 = 1, as PyTorch) or the first trial step
                  of strong Wolfe (0 = 1); Adam's learning rate in normalised image units
                  (0 = 0.05). Ignored by Armijo. Must be finite and >= 0. */
} gip_style_params;

/** What the progress callback sees. */
typedef struct gip_style_progress {
    int32_t iteration;               /* iterations done (0 before the first) */
    int32_t iterations;              /* iterations requested */
    int32_t evaluations;             /* loss and gradient evaluations done */
    double loss, content, style, tv; /* terms of the best image so far (weighted) */
    /* The callback is called every progress_every iterations, at the last one, and once more at
     * the end if the optimisation stopped early (converged): then iteration < iterations. */
    double seconds; /* since the optimisation started (preparation excluded) */
} gip_style_progress;

/** Progress callback: return 0 to go on, non-zero to stop (the best image so far is written and
 *  the call returns GIP_OK). Called on the calling thread. */
typedef int (*gip_style_progress_fn)(void *user, const gip_style_progress *progress);

/**
 * Computes the output size for a content image of w x h whose shorter side becomes `size` (the
 * other side rounded to nearest, at least 1): what the CLI's --size does.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL outputs, sizes < 1); GIP_ERR_TOO_LARGE.
 */
GIP_API gip_status gip_style_output_size(int64_t w, int64_t h, int64_t size, int64_t *out_w,
                                         int64_t *out_h);

/**
 * Gatys style transfer: renders `content` in the style of `style` into `dst`.
 * The content image is resized (antialiased bilinear) to dst's size, the style image so that its
 * shorter side equals dst's shorter side; both are normalised with ImageNet's mean and standard
 * deviation (RGB order). The image is optimised with L-BFGS (history `history`, step rule
 * `line_search`) or Adam (`optimizer`) and written de-normalised, rounded and saturated: the best
 * image evaluated (with line search none and Adam the loss may rise on some iterations).
 * - Images: content and style u8 with 1 (gray, used as R = G = B), 3 (RGB) or 4 (RGBA, alpha
 *   ignored) channels, any size; dst u8 3 channels (RGB), from 16x16 (four poolings) to 4096 on
 *   a side. The style image's longer side is limited to 4096 after resizing. All three on the host
 * (CPU: im2col + OpenBLAS, OpenBLAS's own threads set to 1 during the call and restored, gip's
 * threads around it) or all on the context's device (cuDNN convolutions, cuBLAS Gram matrices; the
 * image stays on the GPU during the optimisation). dst must not overlap an input.
 * - Deterministic: the same inputs, parameters and seed give the same output on a given backend
 *   (on the CPU whatever the thread count). CPU and GPU results agree closely but not bit for bit.
 * - Synchronous: returns when dst is written (also on the GPU).
 * @param params    may be NULL (defaults).
 * @param progress  may be NULL; `user` is passed to it.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL ctx/images, malformed view, bad parameter:
 * negative weight or count, bad layer mask or enum, flags); GIP_ERR_UNSUPPORTED (dtype or channels
 * above); GIP_ERR_SHAPE_MISMATCH (dst smaller than 16x16); GIP_ERR_TOO_LARGE; GIP_ERR_ALIASING;
 * GIP_ERR_LOCATION_MISMATCH (host and device mixed); GIP_ERR_NO_DEVICE; GIP_ERR_NOT_BUILT (device
 * images in a build without cuDNN); GIP_ERR_OUT_OF_MEMORY; GIP_ERR_DEVICE_OUT_OF_MEMORY;
 * GIP_ERR_DEVICE; GIP_ERR_BAD_STATE. On error dst is unchanged.
 */
GIP_API gip_status gip_style_transfer(gip_context *ctx, const gip_image *content,
                                      const gip_image *style, gip_image *dst,
                                      const gip_style_params *params,
                                      gip_style_progress_fn progress, void *user);

#ifdef __cplusplus
}
#endif
#endif
