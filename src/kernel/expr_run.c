/* SPDX-License-Identifier: MIT */
/* What map and stencil share after their checks: the choice of backend for a parsed expression. */
#include "expr.h"

#ifndef GIP_HAVE_CUDA
void gip_expr_cache_release(void) {}
#endif

gip_status gip__expr_dispatch(gip_context *ctx, const char *op, gip__expr_job *job)
{
    if (job->dst->memory != GIP_MEM_CUDA)
        return gip__expr_run_cpu(ctx, op, job);
#ifdef GIP_HAVE_CUDA
    return gip__expr_run_cuda(ctx, op, job);
#else
    return gip__error(ctx, GIP_ERR_NO_DEVICE, "%s: device images need a CUDA build", op);
#endif
}
