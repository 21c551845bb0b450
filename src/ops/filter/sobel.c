/* SPDX-License-Identifier: MIT */
/* sobel and edges (gip_sobel and gip_sobel_magnitude, as cv2.Sobel / cv2.Scharr): checks, the
 * derivative kernels built once, and a run of the 2-D engine, whose integer accumulation makes u8
 * and u16 results exact and identical on both backends (on the CPU, u8 sources may take the
 * separable route of sobel_cpu.c, which gives the same results); their registry entries (edges:
 * the magnitude of the gray image). */
#include <math.h>
#include <string.h>

#include "gip/color.h"
#include "gip/filter.h"
#include "engine/filter2d/filter2d.h"
#include "ops/op_check.h"
#include "registry/registry.h"
#include "sobel.h"
#include "tuning.h"

/* One factor of order `order` and size `ksize` (>= order + 1), by OpenCV's recurrence. */
static void deriv_factor(int32_t order, int32_t ksize, int32_t *k)
{
    if (ksize == 1) {
        k[0] = 1;
        return;
    }
    if (ksize == 3) {
        static const int32_t k3[3][3] = {{1, 2, 1}, {-1, 0, 1}, {1, -2, 1}};
        memcpy(k, k3[order], sizeof k3[0]);
        return;
    }
    int32_t t[9] = {1};
    for (int32_t i = 0; i < ksize - order - 1; i++) { /* smoothing: multiply by (1 + z) */
        int32_t prev = t[0];
        for (int32_t j = 1; j <= ksize; j++) {
            int32_t cur = t[j] + t[j - 1];
            t[j - 1] = prev;
            prev = cur;
        }
    }
    for (int32_t i = 0; i < order; i++) { /* differencing: multiply by (z - 1) */
        int32_t prev = -t[0];
        for (int32_t j = 1; j <= ksize; j++) {
            int32_t cur = t[j - 1] - t[j];
            t[j - 1] = prev;
            prev = cur;
        }
    }
    memcpy(k, t, (size_t)ksize * sizeof *k);
}

void gip__sobel_factors(int32_t dx, int32_t dy, int32_t ksize, int32_t *kx, int32_t *nx,
                        int32_t *ky, int32_t *ny)
{
    if (ksize == GIP_SCHARR) {
        static const int32_t smooth[3] = {3, 10, 3}, deriv[3] = {-1, 0, 1};
        memcpy(kx, dx ? deriv : smooth, sizeof smooth);
        memcpy(ky, dy ? deriv : smooth, sizeof smooth);
        *nx = *ny = 3;
        return;
    }
    *nx = ksize == 1 && dx > 0 ? 3 : ksize;
    *ny = ksize == 1 && dy > 0 ? 3 : ksize;
    deriv_factor(dx, *nx, kx);
    deriv_factor(dy, *ny, ky);
}

/* Checks the images (gip__f2d_check_images(), sets *on_device) and the parameters common to both
 * entries; fills *ksize, *scale. */
static gip_status check_args(gip_context *ctx, const gip_image *src, const gip_image *dst,
                             const gip_sobel_params *params, const char *op, bool *on_device,
                             int32_t *ksize, float *scale)
{
    gip_status st = gip__f2d_check_images(ctx, src, dst, op, on_device);
    if (st)
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    int32_t k = params->ksize ? params->ksize : 3;
    if (k != 1 && k != 3 && k != 5 && k != 7 && k != GIP_SCHARR)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %d is invalid: 1, 3, 5, 7 or GIP_SCHARR (-1) are accepted", op,
                          (int)params->ksize);
    if (!isfinite(params->scale) || !isfinite(params->delta))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: scale and delta must be finite numbers", op);
    if ((st = gip__f2d_check_border(ctx, &params->border, op)))
        return st;
    *ksize = k;
    *scale = params->scale != 0.0f ? params->scale : 1.0f;
    return GIP_OK;
}

/* The border of the separable CPU route, its constant converted as the 2-D engine converts it. */
static void sep_border(gip__sobel_sep *sp, const gip_sobel_params *params, gip_dtype src)
{
    gip__f2d_plan bp = {0};
    gip__f2d_plan_border(&bp, &params->border, src);
    sp->border = bp.border;
    memcpy(sp->border_value, bp.border_value, sizeof sp->border_value);
}

/* Adds the taps of kernel ky (rows) x kx (columns), centred, to the plan. */
static void add_taps(gip__f2d_plan *p, const int32_t *kx, int32_t nx, const int32_t *ky, int32_t ny)
{
    for (int32_t y = 0; y < ny; y++)
        for (int32_t x = 0; x < nx; x++) {
            int32_t k = ky[y] * kx[x];
            if (k != 0)
                p->taps[p->ntaps++] = (gip__f2d_tap){x - nx / 2, y - ny / 2, (float)k, 0};
        }
}

static gip_status run_plan(gip_context *ctx, gip__f2d_plan *plan, const gip_image *src,
                           gip_image *dst, bool on_device, const gip_sobel_params *params,
                           float scale)
{
    gip__f2d_plan_border(plan, &params->border, src->dtype);
    gip__f2d_plan_choose_int(plan, src->dtype);
    plan->init = 0.0f;
    plan->scale = scale;
    plan->delta = params->delta;
    plan->affine = scale != 1.0f || params->delta != 0.0f;
    gip_status st;
#ifdef GIP_HAVE_CUDA
    if (on_device)
        st = gip__f2d_run_cuda(ctx, plan, src, dst);
    else
#endif
        st = gip__f2d_run_cpu(ctx, plan, src, dst);
    return st;
}

gip_status gip_sobel(gip_context *ctx, const gip_image *src, gip_image *dst,
                     const gip_sobel_params *params)
{
    static const char op[] = "gip_sobel";
    bool on_device = false;
    int32_t ksize = 3;
    float scale = 1.0f;
    gip_status st = check_args(ctx, src, dst, params, op, &on_device, &ksize, &scale);
    if (st)
        return st;
    /* cv2.Sobel filters through float row and column buffers, which it converts to any
     * destination depth: every source gives every destination. */
    const gip_dtype dt = dst->dtype;
    if ((st = gip__check_dtype(ctx, dst, GIP__DT_DEPTHS, op, "dst")))
        return st;
    if (params->unsigned_out != GIP_SOBEL_ABS && params->unsigned_out != GIP_SOBEL_SATURATE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: unsigned_out %d is invalid: GIP_SOBEL_ABS (0) or GIP_SOBEL_SATURATE "
                          "(1) are accepted",
                          op, (int)params->unsigned_out);
    const bool abs_out = (dt == GIP_U8 || dt == GIP_U16) && params->unsigned_out == GIP_SOBEL_ABS;
    int32_t dx = params->dx, dy = params->dy;
    if (dx < 0 || dy < 0 || dx + dy == 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: derivative orders dx=%d dy=%d are invalid: both >= 0 and at least "
                          "one > 0",
                          op, (int)dx, (int)dy);
    if (ksize == GIP_SCHARR && dx + dy != 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: Scharr needs dx + dy == 1 (got dx=%d dy=%d)", op, (int)dx, (int)dy);
    int32_t lim = ksize == 1 ? 3 : ksize;
    if (ksize != GIP_SCHARR && (dx >= lim || dy >= lim))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: derivative orders dx=%d dy=%d are too high for ksize %d: each must "
                          "be below %d",
                          op, (int)dx, (int)dy, (int)ksize, (int)lim);
    if ((st = gip__check_cuda_built(ctx, on_device, op)))
        return st;

    int32_t kx[9], ky[9], nx, ny;
    gip__sobel_factors(dx, dy, ksize, kx, &nx, ky, &ny);
    /* On the CPU, u8 sources without scale or delta take the separable 16-bit route when it
     * gives the 2-D engine's exact sums (its u8 output is the absolute value); GIP_NOSIMD=1 keeps
     * the engine's scalar path. */
    if (!on_device && scale == 1.0f && params->delta == 0.0f && (dt != GIP_U8 || abs_out) &&
        nx <= GIP__SOBEL_SEP_MAXK && ny <= GIP__SOBEL_SEP_MAXK && gip__simd_avx2_fma()) {
        gip__sobel_sep sp = {.nx = nx, .ny = ny};
        memcpy(sp.kx, kx, (size_t)nx * sizeof *kx);
        memcpy(sp.ky, ky, (size_t)ny * sizeof *ky);
        sep_border(&sp, params, src->dtype);
        if (gip__sobel_sep_fits(&sp, src->dtype, dst->dtype))
            return gip__sobel_sep_run_cpu(ctx, &sp, src, dst);
    }
    gip__f2d_plan plan = {0};
    if ((st = gip__f2d_plan_alloc(ctx, &plan, nx * ny, op)))
        return st;
    plan.kw = nx, plan.kh = ny, plan.ax = nx / 2, plan.ay = ny / 2;
    add_taps(&plan, kx, nx, ky, ny);
    plan.post = abs_out ? GIP__F2D_ABS : GIP__F2D_PLAIN;
    st = run_plan(ctx, &plan, src, dst, on_device, params, scale);
    gip__f2d_plan_free(&plan);
    return st;
}

gip_status gip_sobel_magnitude(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const gip_sobel_params *params)
{
    static const char op[] = "gip_sobel_magnitude";
    bool on_device = false;
    int32_t ksize = 3;
    float scale = 1.0f;
    gip_status st = check_args(ctx, src, dst, params, op, &on_device, &ksize, &scale);
    if (st)
        return st;
    if (dst->dtype != GIP_F32 && dst->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: dst dtype %s is not supported: f32 or u8 are accepted", op,
                          gip_dtype_name(dst->dtype));
    if ((st = gip__check_cuda_built(ctx, on_device, op)))
        return st;

    /* On the CPU, ksize 3 of u8 sources takes the fused route where it runs (AVX2): the 2-D
     * engine's operations, so its results bit for bit; GIP_NOSIMD=1 keeps the engine's scalar
     * path. */
    if (!on_device && ksize == 3 && gip__simd_avx2_fma()) {
        gip__sobel_sep sp = {.magnitude = true, .scale = scale, .delta = params->delta};
        gip__sobel_factors(1, 0, 3, sp.kx, &sp.nx, sp.ky, &sp.ny);
        sep_border(&sp, params, src->dtype);
        if (gip__sobel_sep_fits(&sp, src->dtype, dst->dtype))
            return gip__sobel_sep_run_cpu(ctx, &sp, src, dst);
    }
    int32_t gxx[9], gxy[9], gyx[9], gyy[9], nxx, nxy, nyx, nyy;
    gip__sobel_factors(1, 0, ksize, gxx, &nxx, gxy, &nxy);
    gip__sobel_factors(0, 1, ksize, gyx, &nyx, gyy, &nyy);
    gip__f2d_plan plan = {0};
    if ((st = gip__f2d_plan_alloc(ctx, &plan, nxx * nxy + nyx * nyy, op)))
        return st;
    /* The box holding both kernels (3x3 for ksize 1, where gx is 3x1 and gy 1x3). */
    plan.kw = nxx > nyx ? nxx : nyx;
    plan.kh = nxy > nyy ? nxy : nyy;
    plan.ax = plan.kw / 2, plan.ay = plan.kh / 2;
    add_taps(&plan, gxx, nxx, gxy, nxy);
    int32_t first = plan.ntaps;
    add_taps(&plan, gyx, nyx, gyy, nyy);
    plan.ntaps2 = plan.ntaps - first;
    plan.ntaps = first;
    plan.post = GIP__F2D_MAG;
    st = run_plan(ctx, &plan, src, dst, on_device, params, scale);
    gip__f2d_plan_free(&plan);
    return st;
}

static const gip_choice ksizes[] = {{"1", 1}, {"3", 3}, {"5", 5}, {"7", 7}, {"scharr", GIP_SCHARR},
                                    {NULL, 0}};

#define SOBEL_COMMON                                                                               \
    GIP__PARAM("ksize", GIP_PARAM_CHOICE, 0, 0, 0, 0, ksizes, "3",                                 \
               "aperture: 1, 3, 5, 7, or scharr for the 3x3 Scharr kernel"),                       \
        GIP__PARAM("scale", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "1",                        \
                   "multiplies the derivative (not 0)"),                                           \
        GIP__PARAM("delta", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added to the result")

static const gip_choice sobel_dtypes[] = {
    {"u8", GIP_U8}, {"u16", GIP_U16}, {"s16", GIP_S16}, {"f32", GIP_F32}, {NULL, 0}};

static const gip_param sobel_params[] = {
    GIP__PARAM("dx", GIP_PARAM_INT, 0, 0, 6, 0, NULL, "1",
               "derivative order in x (0 when only dy is given)"),
    GIP__PARAM("dy", GIP_PARAM_INT, 0, 0, 6, 0, NULL, "0", "derivative order in y"),
    SOBEL_COMMON,
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, sobel_dtypes, "u8",
               "the result's dtype (cv2's ddepth); u8 and u16 keep |v| unless saturate=1"),
    GIP__PARAM("saturate", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "u8/u16 results: 1 gives v with negatives 0 (cv2.Sobel to CV_8U), 0 gives |v| "
               "(cv2.convertScaleAbs)"),
    GIP__BORDER_PARAMS,
};

typedef struct sobel_step {
    gip_sobel_params p;
    int32_t dtype;
} sobel_step;

static gip_status common(const gip_args *a, gip_sobel_params *p)
{
    p->ksize = (int32_t)gip_args_int(a, "ksize");
    double scale = gip_args_double(a, "scale");
    if (scale == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: scale must not be 0",
                          gip_args_op(a)->name);
    p->scale = (float)scale;
    p->delta = (float)gip_args_double(a, "delta");
    return gip__args_border(a, &p->border);
}

static gip_status sobel_build(const gip_args *a, void *out)
{
    sobel_step *s = out;
    gip_status st = common(a, &s->p);
    if (st)
        return st;
    s->p.dx = (int32_t)gip_args_int(a, "dx");
    s->p.dy = (int32_t)gip_args_int(a, "dy");
    if (!gip_args_is_set(a, "dx") && gip_args_is_set(a, "dy"))
        s->p.dx = 0;
    s->p.unsigned_out = gip_args_int(a, "saturate") ? GIP_SOBEL_SATURATE : GIP_SOBEL_ABS;
    s->dtype = (int32_t)gip_args_int(a, "dtype");
    const int32_t kmax = s->p.ksize == GIP_SCHARR || s->p.ksize == 1 ? 3 : s->p.ksize;
    if (s->p.dx + s->p.dy == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "sobel: dx or dy must be above 0");
    if (s->p.ksize == GIP_SCHARR && s->p.dx + s->p.dy != 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "sobel: ksize=scharr takes dx=1 dy=0 or dx=0 dy=1");
    if (s->p.dx >= kmax || s->p.dy >= kmax)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "sobel: derivative orders must be below %d for ksize %d", (int)kmax,
                          (int)s->p.ksize);
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    int32_t k = ((const gip_sobel_params *)params)->ksize;
    *hx = *hy = k == GIP_SCHARR || k <= 3 ? 1 : k / 2;
}

static gip_status sobel_run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_sobel(ctx, src, dst, &((const sobel_step *)p)->p);
}

#define ALL_DTYPES GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32)

const gip_op gip__op_sobel = {
    .name = "sobel",
    .family = "filter",
    .summary = "Image derivative, as cv2.Sobel and cv2.Scharr.",
    .doc = "The dx-th derivative in x and dy-th in y with OpenCV's Sobel (or Scharr) kernels, "
           "times scale plus delta, in the dtype asked for: integer results rounded half to even "
           "and saturated, u8 and u16 as |v| (cv2.convertScaleAbs) unless saturate=1.",
    .cv_name = "cv2.Sobel",
    GIP__PARAMS(sobel_params),
    .dtypes = ALL_DTYPES,
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(sobel_step),
    .build = sobel_build,
    .dtype_at = GIP_OP_AT(sobel_step, dtype),
    .halo = halo,
    .border_at = GIP_OP_AT(sobel_step, p.border),
    .run = sobel_run,
};

static const gip_param edges_params[] = {
    SOBEL_COMMON,
    GIP__BORDER_PARAMS,
};

static gip_status edges_build(const gip_args *a, void *out)
{
    return common(a, out);
}

static gip_status edges_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *params)
{
    const gip_sobel_params *p = params;
    if (src->channels == 1)
        return gip_sobel_magnitude(ctx, src, dst, p);
    gip_image gray;
    gip_status st = gip_image_alloc(ctx, &gray, src->width, src->height, 1, src->dtype,
                                    src->memory == GIP_MEM_CUDA ? GIP_MEM_CUDA : GIP_MEM_HOST, 0);
    if (st)
        return st;
    st = gip_cvt_color(ctx, src, &gray,
                       src->channels == 4 ? GIP_COLOR_RGBA2GRAY : GIP_COLOR_RGB2GRAY);
    if (!st)
        st = gip_sobel_magnitude(ctx, &gray, dst, p);
    gip_image_free(ctx, &gray);
    return st;
}

const gip_op gip__op_edges = {
    .name = "edges",
    .family = "filter",
    .summary = "Sobel gradient magnitude of the gray image, 8-bit.",
    .doc = "sqrt(dx^2 + dy^2) of the first derivatives (Sobel or Scharr) of the gray image "
           "(colour inputs are converted as cv2.cvtColor's RGB2GRAY), times scale plus delta, "
           "rounded and saturated to u8: the seed's Sobel edge detector.",
    .cv_name = NULL,
    GIP__PARAMS(edges_params),
    .dtypes = ALL_DTYPES,
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(gip_sobel_params),
    .build = edges_build,
    .shape = gip__shape_u8c1,
    .halo = halo,
    .border_at = GIP_OP_AT(gip_sobel_params, border),
    .run = edges_run,
};
