/* SPDX-License-Identifier: MIT */
/* What many operations check alike: the argument checks of an operation whose dst has src's type,
 * and what a build without CUDA answers for device views. */
#ifndef GIP_OPS_OP_CHECK_H
#define GIP_OPS_OP_CHECK_H

#include <stdbool.h>

#include "internal.h"

/* GIP_ERR_NOT_BUILT, naming op: device views reached a build without CUDA. */
static inline gip_status gip__cuda_not_built(gip_context *ctx, const char *op)
{
    return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
}

/* The device branch of an operation: `call` (a gip_status expression) in a build with CUDA,
 * gip__cuda_not_built() in one without, where `call` is not compiled (the CUDA entry points are
 * declared only with CUDA). */
#ifdef GIP_HAVE_CUDA
#define GIP__CUDA_CALL(ctx, op, call) (call)
#else
#define GIP__CUDA_CALL(ctx, op, call) gip__cuda_not_built(ctx, op)
#endif

/* gip__cuda_not_built() for device views in a build without CUDA, GIP_OK otherwise: for an
 * operation whose device work is queued further on, after more checks. */
static inline gip_status gip__check_cuda_built(gip_context *ctx, bool on_device, const char *op)
{
#ifdef GIP_HAVE_CUDA
    (void)ctx;
    (void)on_device;
    (void)op;
    return GIP_OK;
#else
    return on_device ? gip__cuda_not_built(ctx, op) : GIP_OK;
#endif
}

/* Src's dtype among `accepted`, then dst of src's dtype and channels (gip__check_same_type()). */
static inline gip_status gip__check_src_typed(gip_context *ctx, const gip_image *src,
                                              const gip_image *dst, unsigned accepted,
                                              const char *op)
{
    gip_status st = gip__check_dtype(ctx, src, accepted, op, "src");
    return st ? st : gip__check_same_type(ctx, src, dst, op);
}

/* The checks of an operation whose dst has src's type at its own size (resize, pyramids):
 * gip__check_pair(), then gip__check_src_typed(). Sets *on_device. */
static inline gip_status gip__check_pair_typed(gip_context *ctx, const gip_image *src,
                                               const gip_image *dst, unsigned accepted,
                                               const char *op, bool *on_device)
{
    gip_status st = gip__check_pair(ctx, src, dst, op, on_device);
    return st ? st : gip__check_src_typed(ctx, src, dst, accepted, op);
}

/* The same at src's size (gip__check_unary()): a filter whose dst has src's type (median,
 * morphology, unsharp). */
static inline gip_status gip__check_unary_typed(gip_context *ctx, const gip_image *src,
                                                const gip_image *dst, unsigned accepted,
                                                const char *op, bool *on_device)
{
    gip_status st = gip__check_unary(ctx, src, dst, op, on_device);
    return st ? st : gip__check_src_typed(ctx, src, dst, accepted, op);
}

#endif
