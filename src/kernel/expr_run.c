/* SPDX-License-Identifier: MIT */
/* What map and stencil share after their checks: the choice of backend for a parsed expression. */
#include <stdint.h>

#include "expr.h"

#ifdef GIP_HAVE_CUDA
/* The generated kernels read whole elements: a device view must have its rows aligned to them. */
static gip_status check_aligned(gip_context *ctx, const char *op, const gip_image *img,
                                const char *what)
{
    size_t es = gip_dtype_size(img->dtype);
    if ((uintptr_t)img->data % es == 0 && (uint64_t)img->stride % es == 0)
        return GIP_OK;
    return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                      "%s: %s device view: data and stride must be multiples of the %zu-byte "
                      "element on the GPU (stride %lld)",
                      op, what, es, (long long)img->stride);
}
#endif

#ifndef GIP_HAVE_CUDA
void gip_expr_cache_release(void) {}
#endif

gip_status gip__expr_dispatch(gip_context *ctx, const char *op, gip__expr_job *job)
{
    if (job->dst->memory != GIP_MEM_CUDA)
        return gip__expr_run_cpu(ctx, op, job);
#ifdef GIP_HAVE_CUDA
    gip_status st;
    for (int32_t i = 0; i < job->n_inputs; i++)
        if ((st = check_aligned(ctx, op, &job->inputs[i], "an input")))
            return st;
    if ((st = check_aligned(ctx, op, job->dst, "the dst")))
        return st;
    return gip__expr_run_cuda(ctx, op, job);
#else
    return gip__error(ctx, GIP_ERR_NO_DEVICE, "%s: device images need a CUDA build", op);
#endif
}
