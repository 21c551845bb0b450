/* SPDX-License-Identifier: MIT */
/* 2-D transforms on the CPU with FFTW3 (single precision, threaded): plans cached per context,
 * inputs packed (and u8/u16 converted) into an aligned scratch buffer, results scaled out. */
#include <fftw3.h>
#include <pthread.h>
#include <string.h>

#include "fft.h"

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static int threads_ok;

static void init_threads(void)
{
    threads_ok = fftwf_init_threads();
}

void *gip__fftw_malloc(size_t bytes)
{
    return fftwf_malloc(bytes);
}

void gip__fftw_free(void *p)
{
    fftwf_free(p);
}

typedef struct plan_arg {
    void *in, *out;
} plan_arg;

static void destroy_fftw(uintptr_t plan)
{
    fftwf_destroy_plan((fftwf_plan)plan);
}

/* Runs with the cache lock held: FFTW's planner is not thread-safe. */
static gip_status make_fftw(gip_context *ctx, const gip__fft_key *key, void *arg, uintptr_t *plan,
                            void (**destroy)(uintptr_t plan))
{
    plan_arg *a = arg;
    pthread_once(&threads_once, init_threads);
    if (threads_ok)
        fftwf_plan_with_nthreads(key->threads);
    unsigned fl = (key->flags & GIP_FFT_MEASURE) ? FFTW_MEASURE : FFTW_ESTIMATE;
    int n0 = (int)key->h, n1 = (int)key->w, st = (int)key->stride;
    fftwf_plan p = NULL;
    switch ((gip__fft_kind)key->kind) {
    case GIP__FFT_ROWS_R2C:
        p = fftwf_plan_many_dft_r2c(1, &n1, n0, a->in, NULL, 1, 2 * st, a->out, NULL, 1, st, fl);
        break;
    case GIP__FFT_BATCH_C2C:
        p = fftwf_plan_many_dft(1, &n1, n0, a->in, NULL, 1, st, a->out, NULL, 1, st, FFTW_FORWARD,
                                fl);
        break;
    case GIP__FFT_ROWS_C2R:
        p = fftwf_plan_many_dft_c2r(1, &n1, n0, a->in, NULL, 1, st, a->out, NULL, 1, 2 * st,
                                    fl | FFTW_DESTROY_INPUT);
        break;
    case GIP__FFT_BATCH_C2C_INV:
        p = fftwf_plan_many_dft(1, &n1, n0, a->in, NULL, 1, st, a->out, NULL, 1, st, FFTW_BACKWARD,
                                fl);
        break;
    case GIP__FFT_R2C:
        p = fftwf_plan_dft_r2c_2d(n0, n1, a->in, a->out, fl);
        break;
    case GIP__FFT_C2R:
        p = fftwf_plan_dft_c2r_2d(n0, n1, a->in, a->out, fl | FFTW_DESTROY_INPUT);
        break;
    case GIP__FFT_C2C_FWD:
        p = fftwf_plan_dft_2d(n0, n1, a->in, a->out, FFTW_FORWARD, fl);
        break;
    case GIP__FFT_C2C_INV:
        p = fftwf_plan_dft_2d(n0, n1, a->in, a->out, FFTW_BACKWARD, fl);
        break;
    }
    if (!p)
        return gip__error(ctx, GIP_ERR_INTERNAL, "FFTW could not plan a %lldx%lld transform",
                          (long long)key->w, (long long)key->h);
    *plan = (uintptr_t)p;
    *destroy = destroy_fftw;
    return GIP_OK;
}

gip_status gip__fftw_plan(gip_context *ctx, gip__fft_kind kind, int64_t w, int64_t h,
                          uint32_t flags, void *in, void *out, uintptr_t *plan)
{
    if (w > 0x7FFFFFFF || h > 0x7FFFFFFF)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "FFT: %lldx%lld exceeds FFTW's int sizes",
                          (long long)w, (long long)h);
    /* Threads only pay off above about a quarter megapixel. */
    int32_t threads = w * h >= (1 << 18) ? ctx->threads : 1;
    gip__fft_key key = {ctx, GIP_BACKEND_CPU,         -1, threads, (int32_t)kind, w,
                        h,   flags & GIP_FFT_MEASURE, 0};
    plan_arg a = {in, out};
    return gip__fft_plan_get(ctx, &key, make_fftw, &a, plan);
}

gip_status gip__fftw_plan_batch(gip_context *ctx, gip__fft_kind kind, int64_t n, int64_t howmany,
                                int64_t stride, void *buf, uintptr_t *plan)
{
    if (n > 0x7FFFFFFF || howmany > 0x7FFFFFFF || stride > 0x3FFFFFFF)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "FFT: %lld transforms of %lld exceed FFTW's ints",
                          (long long)howmany, (long long)n);
    /* One thread per plan: the caller runs blocks of the batch on its threads. */
    gip__fft_key key = {ctx, GIP_BACKEND_CPU, -1, 1, (int32_t)kind, n, howmany, 0, stride};
    plan_arg a = {buf, buf};
    return gip__fft_plan_get(ctx, &key, make_fftw, &a, plan);
}

void gip__fftw_execute(uintptr_t plan, gip__fft_kind kind, void *in, void *out)
{
    fftwf_plan p = (fftwf_plan)plan;
    switch (kind) {
    case GIP__FFT_R2C:
    case GIP__FFT_ROWS_R2C:
        fftwf_execute_dft_r2c(p, in, out);
        break;
    case GIP__FFT_C2R:
    case GIP__FFT_ROWS_C2R:
        fftwf_execute_dft_c2r(p, in, out);
        break;
    case GIP__FFT_C2C_FWD:
    case GIP__FFT_C2C_INV:
    case GIP__FFT_BATCH_C2C:
    case GIP__FFT_BATCH_C2C_INV:
        fftwf_execute_dft(p, in, out);
        break;
    }
}

/* Rows of an image to or from a tight float buffer of `n` floats per row, converting u8/u16 and
 * scaling on the way out. */
typedef struct rows_arg {
    const gip_image *img;
    float *buf;
    int64_t n;
    float scale;
} rows_arg;

static void pack_rows(void *arg, int64_t y0, int64_t y1)
{
    const rows_arg *a = arg;
    for (int64_t y = y0; y < y1; y++) {
        const char *row = (const char *)a->img->data + y * a->img->stride;
        float *out = a->buf + y * a->n;
        switch (a->img->dtype) {
        case GIP_U8:
            for (int64_t i = 0; i < a->n; i++)
                out[i] = ((const uint8_t *)row)[i];
            break;
        case GIP_U16:
            for (int64_t i = 0; i < a->n; i++)
                out[i] = ((const uint16_t *)row)[i];
            break;
        default:
            memcpy(out, row, (size_t)a->n * sizeof(float));
            break;
        }
    }
}

static void unpack_rows(void *arg, int64_t y0, int64_t y1)
{
    const rows_arg *a = arg;
    for (int64_t y = y0; y < y1; y++) {
        float *row = (float *)((char *)a->img->data + y * a->img->stride);
        const float *in = a->buf + y * a->n;
        if (a->scale == 1.0f)
            memcpy(row, in, (size_t)a->n * sizeof(float));
        else
            for (int64_t i = 0; i < a->n; i++)
                row[i] = in[i] * a->scale;
    }
}

gip_status gip__fft2_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, gip__fft_kind kind,
                         float scale, uint32_t flags)
{
    /* Floats per row of the input and output buffers. */
    int64_t nin = src->width * (src->dtype == GIP_C32 ? 2 : 1);
    int64_t nout = dst->width * (dst->dtype == GIP_C32 ? 2 : 1);
    int64_t w = kind == GIP__FFT_C2R ? dst->width : src->width, h = src->height;
    size_t in_bytes = gip__fft_round((size_t)(nin * h) * sizeof(float));
    size_t out_bytes = gip__fft_round((size_t)(nout * h) * sizeof(float));
    gip__fft_scratch s;
    gip_status st = gip__fft_scratch_acquire(ctx, false, in_bytes + out_bytes, &s);
    if (st)
        return st;
    float *in = s.ptr, *out = (float *)((char *)s.ptr + in_bytes);
    uintptr_t plan;
    if ((st = gip__fftw_plan(ctx, kind, w, h, flags, in, out, &plan)))
        goto out_release;
    rows_arg pa = {src, in, nin, 1.0f};
    gip__parallel_for(ctx, h, 16, pack_rows, &pa);
    gip__fftw_execute(plan, kind, in, out);
    rows_arg ua = {dst, out, nout, scale};
    gip__parallel_for(ctx, h, 16, unpack_rows, &ua);
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
