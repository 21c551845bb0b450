/* SPDX-License-Identifier: MIT */
/* Coefficient preparation of the separable-filter engine (fixed-point kernels, border values) and
 * the dispatch between its CPU and CUDA backends. */
#include <math.h>

#include "separable.h"
#include "saturate.h"

void gip__sep_fixed_kernel(const double *k, int32_t n, int32_t *out)
{
    /* As OpenCV: error diffusion over the left half, mirrored, centre takes the remainder. */
    const double one = 256.0;
    int32_t half = n / 2;
    double err = 0.0;
    int64_t sum = 0;
    for (int32_t i = 0; i < half; i++) {
        double adj = k[i] * one + err;
        int64_t v = (int64_t)nearbyint(adj); /* half to even, like cvRound */
        err = adj - (double)v;
        out[i] = out[n - 1 - i] = (int32_t)v;
        sum += v;
    }
    out[half] = (int32_t)(256 - 2 * sum);
}

void gip__sep_set_border(gip__sep_plan *plan, const gip_border_spec *spec, gip_dtype src_dtype)
{
    plan->border = spec ? spec->mode : GIP_BORDER_REFLECT_101;
    for (int c = 0; c < 4; c++) {
        plan->border_value[c] = gip__border_value_as(src_dtype, spec ? spec->value[c] : 0.0f);
    }
}

gip_status gip__sep_run(gip_context *ctx, const gip__sep_plan *plan, const gip_image *src,
                        gip_image *dst, bool on_device)
{
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__sep_run_cuda(ctx, plan, src, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "filter: this gip was built without CUDA");
#endif
    }
    return gip__sep_run_cpu(ctx, plan, src, dst);
}

#ifndef GIP_HAVE_CUDA
void gip__sep_mma_segments(int m)
{
    (void)m; /* the tensor-core kernel is CUDA's */
}
#endif
