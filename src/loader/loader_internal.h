/* SPDX-License-Identifier: MIT */
/* The batch loader's private interface between its files: loader.c (object, epochs, shards,
 * threads, hand-over), loader_transform.c (the per-image crop policy, colour jitter and the fused
 * normalise+layout pass on the CPU) and loader_cuda.cu (that pass on the GPU). */
#ifndef GIP_LOADER_INTERNAL_H
#define GIP_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/geometry/resize.h"
#include "gip/loader.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The desc's transform fields with defaults applied and the normalisation folded into
 * out = pixel * a[c] + b[c]. */
typedef struct gip__loader_cfg {
    int32_t size, resize;
    gip_loader_mode mode;
    double scale[2], log_ratio[2], ratio[2];
    int32_t fill;
    double hflip, brightness, contrast, saturation;
    float a[3], b[3];
    gip_loader_layout layout;
    gip_loader_dtype dtype;
    int32_t esize;     /* bytes per output element */
    int64_t img_bytes; /* bytes per output image */
    uint64_t seed;
    /* every output value is a function of (channel, pixel): the CPU pass's table */
    union {
        uint8_t u8[3][256];
        uint16_t u16[3][256];
        float f32[3][256];
    } lut;
} gip__loader_cfg;

/* Counter-based random numbers: draw k of the stream keyed by (seed, epoch, index, purpose) is a
 * pure function of those, whatever thread asks. */
typedef struct gip__loader_rng {
    uint64_t key, ctr;
} gip__loader_rng;

enum {
    GIP__LOADER_SHUFFLE = 1,
    GIP__LOADER_CROP = 2,
    GIP__LOADER_FLIP = 3,
    GIP__LOADER_JITTER = 4
};

gip__loader_rng gip__loader_rng_make(uint64_t seed, int64_t epoch, int64_t index, int purpose);
/* Uniform in [0, 1), 53 bits. */
double gip__loader_uniform(gip__loader_rng *r);
/* Uniform integer in [0, n), n >= 1. */
int64_t gip__loader_randint(gip__loader_rng *r, int64_t n);

/* The crop of a w x h image as RandomResizedCrop.get_params gives it: rows [*y, *y + *h), cols
 * [*x, *x + *w). */
void gip__loader_rrc_params(const gip__loader_cfg *cfg, int64_t w, int64_t h, gip__loader_rng *r,
                            int64_t *x, int64_t *y, int64_t *cw, int64_t *ch);

/* One worker's reusable memory for gip__loader_transform(). */
typedef struct gip__loader_scratch {
    gip_context *cpu;  /* a one-thread CPU context for gip_resize */
    gip_image resized; /* EVAL: the whole image resized before the centre crop */
    uint8_t *u8;       /* size x size x 3, when the pixels do not go straight to staging */
} gip__loader_scratch;

/* Decoded RGB u8 `src` of file `index` in `epoch` -> the size x size x 3 u8 crop (tight, rows
 * size * 3 bytes) in `out`, colour-jittered; *flip says whether the normalise pass mirrors it. */
gip_status gip__loader_transform(const gip__loader_cfg *cfg, gip__loader_scratch *s,
                                 const gip_image *src, int64_t epoch, int64_t index, uint8_t *out,
                                 int *flip);

/* The source rectangle (x, y, width, height) of a width x height image that file `index` in
 * `epoch` needs: TRAIN's RandomResizedCrop rectangle, EVAL's pixels under the centre crop's
 * window of the resize, so that only they need be decoded; GIP_ERR_UNSUPPORTED for LETTERBOX. */
gip_status gip__loader_source_rect(const gip__loader_cfg *cfg, int64_t width, int64_t height,
                                   int64_t epoch, int64_t index, gip__rs_part *need);

/* gip__loader_transform() given only the pixels `part` of the image, which `where` places in it
 * (where->w x where->h is the whole image's size; NULL: part is the whole image): at least the
 * rectangle of gip__loader_source_rect (TRAIN and EVAL; LETTERBOX takes the whole image). */
gip_status gip__loader_transform_part(const gip__loader_cfg *cfg, gip__loader_scratch *s,
                                      const gip_image *part, const gip__rs_part *where,
                                      int64_t epoch, int64_t index, uint8_t *out, int *flip);

/* Fills cfg->lut from a, b, dtype. */
void gip__loader_make_lut(gip__loader_cfg *cfg);

/* gip__loader_transform() for a device image `src` on the CUDA context dctx (queued on its
 * stream), into the device crop `out`; no colour jitter (refused with the device decoder). */
gip_status gip__loader_transform_device(const gip__loader_cfg *cfg, gip_context *dctx,
                                        const gip_image *src, int64_t epoch, int64_t index,
                                        uint8_t *out, int *flip);

/* The fused pass on the CPU: the u8 crop (size x size x 3) -> image slot `dst` of the batch in
 * the output layout and dtype, mirrored when flip. */
void gip__loader_normalize_cpu(const gip__loader_cfg *cfg, const uint8_t *img, int flip, void *dst);

/* Converts float to IEEE half / bfloat16 bits, rounding to nearest even (as CUDA's
 * __float2half_rn and __float2bfloat16_rn). */
uint16_t gip__loader_f16(float f);
uint16_t gip__loader_bf16(float f);

#ifdef GIP_HAVE_CUDA
/* The fused pass on the GPU for n crops: src (device, n x size x size x 3 u8, tight), flip (device,
 * n bytes) -> dst (device, the batch in the output layout and dtype), on ctx's stream. */
gip_status gip__loader_normalize_cuda(gip_context *ctx, const gip__loader_cfg *cfg,
                                      const uint8_t *src, const uint8_t *flip, int64_t n,
                                      void *dst);
#endif

#ifdef __cplusplus
}
#endif
#endif
