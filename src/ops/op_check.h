/* SPDX-License-Identifier: MIT */
/* The device branch that many operations share: what a build without CUDA answers for device
 * views, in one place. */
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

#endif
