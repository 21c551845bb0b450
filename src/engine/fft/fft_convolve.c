/* SPDX-License-Identifier: MIT */
/* Public entry of correlation through the frequency domain (filter2D semantics), the choice of
 * transform sizes, and the crossover that decides when the filters switch to it. */
#include <math.h>

#include "fft.h"
#include "engine/separable/separable.h"

int64_t gip__fft_good_size(int64_t n)
{
    for (int64_t m = n < 1 ? 1 : n;; m++) {
        int64_t r = m;
        static const int primes[] = {2, 3, 5};
        for (int i = 0; i < 3; i++)
            while (r % primes[i] == 0)
                r /= primes[i];
        if (r == 1)
            return m;
    }
}

/* Crossovers in kernel taps (kw * kh; kw + kh for separable kernels) above which the FFT path is
 * faster, at 1920x1080 f32, 1 channel. CPU, 2-D (tests/perf/fft_timing.c): the FFT correlation
 * costs about the same whatever the kernel, direct 2-D correlation grows by the tap, and they meet
 * near 13x13. CPU, separable: the separable Gaussian (method DIRECT against FFT, sigma (k - 1) / 6)
 * meets the FFT correlation near k = 97 at 3840x2160; 200 taps, scaled below (x 1.26 / 1.2 at
 * that size), switches from k = 105 on. The 2-D value predates the faster FFT correlation (row and
 * column blocks, 5-smooth sizes) and errs towards the direct path. GPU, separable: the tiled direct
 * kernel takes kernels up to 63 taps a side; beyond, the direct path is one thread per output and
 * hundreds of times slower than the FFT (a 121x121 Gaussian at 3840x2160 and 7680x4320), so the FFT
 * is taken as soon as a side exceeds the tiled kernel's limit (GIP__SEP_CUDA_FUSED_MAX_K), and
 * below it the direct path stays. GPU, 2-D: the CPU's value, not timed on a GPU. The FFT cost grows
 * like M*N*log2(M*N) and the direct one like W*H*taps, so the threshold is scaled by the ratio of
 * those to the measured configuration's. */
#define GIP__XOVER_CPU_TAPS 180.0
#define GIP__XOVER_CPU_SEP_TAPS 200.0
#define GIP__XOVER_GPU_TAPS 180.0

static bool fft_worth(gip_backend backend, int64_t w, int64_t h, int32_t kw, int32_t kh,
                      bool separable)
{
    if (w < 1 || h < 1 || kw < 1 || kh < 1)
        return false;
    bool gpu = backend == GIP_BACKEND_CUDA;
    if (gpu && separable)
        return kw > GIP__SEP_CUDA_FUSED_MAX_K || kh > GIP__SEP_CUDA_FUSED_MAX_K;
    /* Direct cost per pixel: taps; FFT cost per pixel: proportional to log2 of the transform size
     * relative to the reference size (2048 x 1200 for 1920x1080 with a mid-size kernel). */
    double m = (double)gip__fft_good_size(w + kw - 1), n = (double)gip__fft_good_size(h + kh - 1);
    double ref_log = 21.2288; /* log2(2048 * 1200) */
    double fft_per_px = (m * n) / ((double)w * (double)h);
    double lg = 0;
    for (double s = m * n; s > 1; s /= 2)
        lg += 1;
    double fft_rel = fft_per_px * lg / ref_log;
    double taps = separable ? (double)kw + (double)kh : (double)kw * (double)kh;
    double xover =
        separable ? GIP__XOVER_CPU_SEP_TAPS : (gpu ? GIP__XOVER_GPU_TAPS : GIP__XOVER_CPU_TAPS);
    /* The reference configuration's padding overhead is about 1.2x. */
    return taps > xover * fft_rel / 1.2;
}

gip_status gip__fft_conv_choose(gip_context *ctx, gip_conv_method method, gip_dtype out,
                                bool on_device, int64_t w, int64_t h, int32_t kw, int32_t kh,
                                bool separable, const char *op, bool *use_fft)
{
    if (method != GIP_CONV_AUTO && method != GIP_CONV_DIRECT && method != GIP_CONV_FFT)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: method %d is invalid: AUTO (0), DIRECT (1) or FFT (2)", op,
                          (int)method);
    *use_fft = method == GIP_CONV_FFT ||
               (method == GIP_CONV_AUTO && out == GIP_F32 &&
                fft_worth(on_device ? GIP_BACKEND_CUDA : GIP_BACKEND_CPU, w, h, kw, kh, separable));
    return GIP_OK;
}

void gip__fft_twiddles(int64_t len, double *table)
{
    const double two_pi = 6.283185307179586476925286766559;
    for (int64_t t = 0; t < len; t++) {
        table[2 * t] = cos(two_pi * (double)t / (double)len);
        table[2 * t + 1] = sin(two_pi * (double)t / (double)len);
    }
}

void gip__fft_taps_spectrum(const float *k, int32_t klen, int64_t len, int64_t count,
                            const double *table, float *out)
{
    for (int64_t u = 0; u < count; u++) {
        double re = 0, im = 0;
        int64_t step = u % len, t = 0; /* t = u * i mod len, kept exact in integers */
        for (int32_t i = 0; i < klen; i++) {
            re += (double)k[i] * table[2 * t];
            im += (double)k[i] * table[2 * t + 1];
            t += step;
            if (t >= len)
                t -= len;
        }
        out[2 * u] = (float)re;
        out[2 * u + 1] = (float)im;
    }
}

/* The checks shared by both entries, and the run. `params` carries the border, delta, anchor and
 * either the 2-D kernel (kx NULL) or the sizes of the separable factors kx, ky. */
static gip_status fft_convolve(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const gip_filter2d_params *params, const float *kx, const float *ky,
                               const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if (!params || (!kx && !params->kernel))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          params ? "params->kernel" : "params");
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != src->dtype && dst->dtype != GIP_F32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: dst dtype %s is not supported: the source's (%s) or f32", op,
                          gip_dtype_name(dst->dtype), gip_dtype_name(src->dtype));
    if (dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src has %d channels but dst %d; they must be equal", op,
                          (int)src->channels, (int)dst->channels);
    const gip_filter2d_params *p = params;
    if (p->ksize_w < 1 || p->ksize_h < 1 || p->ksize_w > 1 << 20 || p->ksize_h > 1 << 20)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel size %dx%d is invalid: each side 1..1048576", op,
                          (int)p->ksize_w, (int)p->ksize_h);
    gip__fftconv_plan cp = {.kernel = kx ? NULL : p->kernel,
                            .kx = kx,
                            .ky = ky,
                            .kw = p->ksize_w,
                            .kh = p->ksize_h,
                            .ax = p->ksize_w / 2,
                            .ay = p->ksize_h / 2,
                            .delta = p->delta,
                            .border = p->border};
    for (int c = 0; c < 4; c++)
        cp.border.value[c] = gip__border_value_as(src->dtype, p->border.value[c]);
    if (p->has_anchor) {
        if (p->anchor_x < 0 || p->anchor_x >= p->ksize_w || p->anchor_y < 0 ||
            p->anchor_y >= p->ksize_h)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: anchor (%d, %d) is outside the %dx%d kernel", op,
                              (int)p->anchor_x, (int)p->anchor_y, (int)p->ksize_w, (int)p->ksize_h);
        cp.ax = p->anchor_x;
        cp.ay = p->anchor_y;
    }
    if ((unsigned)p->border.mode > (unsigned)GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border mode %d is invalid: reflect101 (0), reflect (1), replicate "
                          "(2), constant (3) or wrap (4)",
                          op, (int)p->border.mode);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    cp.m = gip__fft_good_size(src->width + cp.kw - 1);
    cp.n = gip__fft_good_size(src->height + cp.kh - 1);
    if (cp.m > 0x7FFFFFFF || cp.n > 0x7FFFFFFF || cp.m * cp.n > ((int64_t)1 << 40))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: the padded transform %lldx%lld is too large",
                          op, (long long)cp.m, (long long)cp.n);
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__fft_convolve_cuda(ctx, src, dst, &cp);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__fft_convolve_cpu(ctx, src, dst, &cp);
}

gip_status gip_fft_convolve(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip_filter2d_params *params)
{
    return fft_convolve(ctx, src, dst, params, NULL, NULL, "gip_fft_convolve");
}

gip_status gip__fft_convolve_sep(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const float *kx, int32_t kw, const float *ky, int32_t kh,
                                 const gip_border_spec *border, const char *op)
{
    if (!kx || !ky || !border)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: NULL separable kernel or border", op);
    gip_filter2d_params p = {.ksize_w = kw, .ksize_h = kh, .border = *border};
    return fft_convolve(ctx, src, dst, &p, kx, ky, op);
}
