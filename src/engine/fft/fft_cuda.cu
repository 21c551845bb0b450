/* SPDX-License-Identifier: MIT */
/* 2-D transforms on the GPU with cuFFT on the context's stream: plans cached per context, inputs
 * packed into tight scratch when they are strided, converted or would be overwritten (C2R), results
 * scaled or copied out in one pass. */
#include <cufft.h>

#include "dynlib.h"
#include "fft_cuda.cuh"

/* cuFFT, opened when the first plan is made (core/dynlib.h). */
static struct {
    decltype(&cufftCreate) create;
    decltype(&cufftDestroy) destroy;
    decltype(&cufftMakePlanMany64) make_plan_many64;
    decltype(&cufftSetStream) set_stream;
    decltype(&cufftExecR2C) exec_r2c;
    decltype(&cufftExecC2R) exec_c2r;
    decltype(&cufftExecC2C) exec_c2c;
} fft;
static const char *const fft_names[] = {
    "cufftCreate",  "cufftDestroy", "cufftMakePlanMany64", "cufftSetStream",
    "cufftExecR2C", "cufftExecC2R", "cufftExecC2C",        NULL};
static void *const fft_slots[] = {&fft.create,     &fft.destroy,  &fft.make_plan_many64,
                                  &fft.set_stream, &fft.exec_r2c, &fft.exec_c2r,
                                  &fft.exec_c2c};
static gip__dynlib fft_lib = {GIP_CUFFT_SONAME, GIP_CUFFT_DIR, fft_names, fft_slots, 0, 0, ""};

static gip_status cufft_status(gip_context *ctx, cufftResult r, const char *what)
{
    if (r == CUFFT_SUCCESS)
        return GIP_OK;
    /* A failed launch inside cuFFT may have poisoned the CUDA context: let the core see it. */
    gip_status st = gip__cuda_status(ctx, cudaGetLastError(), what);
    if (st)
        return st;
    if (r == CUFFT_ALLOC_FAILED)
        return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY, "%s: cuFFT is out of device memory",
                          what);
    return gip__error(ctx, GIP_ERR_DEVICE, "%s failed: cufftResult %d", what, (int)r);
}

static void destroy_cufft(uintptr_t plan)
{
    fft.destroy((cufftHandle)plan);
}

static gip_status make_cufft(gip_context *ctx, const gip__fft_key *key, void *arg, uintptr_t *plan,
                             void (**destroy)(uintptr_t plan))
{
    cufftHandle h;
    gip_status st = gip__dynlib_load(ctx, "cuFFT plan", &fft_lib);
    if (st || (st = cufft_status(ctx, fft.create(&h), "cufftCreate")))
        return st;
    long long n[2] = {key->h, key->w};
    cufftType t = key->kind == GIP__FFT_R2C   ? CUFFT_R2C
                  : key->kind == GIP__FFT_C2R ? CUFFT_C2R
                                              : CUFFT_C2C;
    size_t work = 0;
    st = cufft_status(ctx, fft.make_plan_many64(h, 2, n, NULL, 1, 0, NULL, 1, 0, t, 1, &work),
                      "cufftMakePlanMany64");
    if (st) {
        fft.destroy(h);
        return st;
    }
    *plan = (uintptr_t)h;
    *destroy = destroy_cufft;
    return GIP_OK;
}

extern "C" gip_status gip__cufft_plan(gip_context *ctx, gip__fft_kind kind, int64_t w, int64_t h,
                                      uintptr_t *plan)
{
    gip__fft_key key = {ctx, GIP_BACKEND_CUDA, ctx->device, 0, (int32_t)kind, w, h, 0, 0};
    return gip__fft_plan_get(ctx, &key, make_cufft, NULL, plan);
}

extern "C" gip_status gip__cufft_exec(gip_context *ctx, uintptr_t plan, gip__fft_kind kind,
                                      void *in, void *out)
{
    cufftHandle h = (cufftHandle)plan;
    gip_status st = cufft_status(ctx, fft.set_stream(h, gip__stream(ctx)), "cufftSetStream");
    if (st)
        return st;
    cufftResult r;
    switch (kind) {
    case GIP__FFT_R2C:
        r = fft.exec_r2c(h, (cufftReal *)in, (cufftComplex *)out);
        break;
    case GIP__FFT_C2R:
        r = fft.exec_c2r(h, (cufftComplex *)in, (cufftReal *)out);
        break;
    case GIP__FFT_C2C_FWD:
        r = fft.exec_c2c(h, (cufftComplex *)in, (cufftComplex *)out, CUFFT_FORWARD);
        break;
    default:
        r = fft.exec_c2c(h, (cufftComplex *)in, (cufftComplex *)out, CUFFT_INVERSE);
        break;
    }
    if ((st = cufft_status(ctx, r, "cufftExec")))
        return st;
    return GIP__LAUNCH_CHECK(ctx, "cufftExec");
}

/* Rows of n scalars of type T (a float pair counts as two floats) into a tight float buffer. */
template <typename T>
__global__ void pack_kernel(const void *src, int64_t stride, int64_t n, int64_t h, float *out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y)
        out[y * n + i] = (float)gip__row<T>(src, stride, y)[i];
}

__global__ void unpack_kernel(const float *in, int64_t n, int64_t h, float scale, void *dst,
                              int64_t stride)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y)
        gip__row<float>(dst, stride, y)[i] = in[y * n + i] * scale;
}

/* Packs rows of an image (u8, u16, f32, c32 as float pairs) into a tight float buffer. */
static gip_status pack(gip_context *ctx, const gip_image *img, float *out)
{
    int64_t n = img->width * img->channels * (img->dtype == GIP_C32 ? 2 : 1);
    dim3 grid, block;
    gip__fft_grid(n, img->height, &grid, &block);
    cudaStream_t s = gip__stream(ctx);
    switch (img->dtype) {
    case GIP_U8:
        pack_kernel<uint8_t><<<grid, block, 0, s>>>(img->data, img->stride, n, img->height, out);
        break;
    case GIP_U16:
        pack_kernel<uint16_t><<<grid, block, 0, s>>>(img->data, img->stride, n, img->height, out);
        break;
    default:
        pack_kernel<float><<<grid, block, 0, s>>>(img->data, img->stride, n, img->height, out);
        break;
    }
    return GIP__LAUNCH_CHECK(ctx, "fft pack_kernel");
}

extern "C" gip_status gip__fft2_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     gip__fft_kind kind, float scale)
{
    int64_t h = src->height;
    int64_t w = kind == GIP__FFT_C2R ? dst->width : src->width;
    int64_t nin = src->width * (src->dtype == GIP_C32 ? 2 : 1);
    int64_t nout = dst->width * (dst->dtype == GIP_C32 ? 2 : 1);
    bool float_src = src->dtype == GIP_F32 || src->dtype == GIP_C32;
    /* cuFFT reads the source in place when it is tight floats and not destroyed (C2R is). */
    bool direct_in = float_src && src->stride == nin * 4 && kind != GIP__FFT_C2R &&
                     (uintptr_t)src->data % 16 == 0;
    bool direct_out = dst->stride == nout * 4 && (uintptr_t)dst->data % 16 == 0;
    size_t in_bytes = direct_in ? 0 : gip__fft_round((size_t)(nin * h) * 4);
    size_t out_bytes = direct_out ? 0 : gip__fft_round((size_t)(nout * h) * 4);
    uintptr_t plan;
    gip_status st = gip__cufft_plan(ctx, kind, w, h, &plan);
    if (st)
        return st;
    gip__fft_scratch s = {};
    if (in_bytes + out_bytes &&
        (st = gip__fft_scratch_acquire(ctx, true, in_bytes + out_bytes, &s)))
        return st;
    float *in = direct_in ? (float *)src->data : (float *)s.ptr;
    float *out = direct_out ? (float *)dst->data : (float *)((char *)s.ptr + in_bytes);
    if (!direct_in && (st = pack(ctx, src, in)))
        goto out_release;
    if ((st = gip__cufft_exec(ctx, plan, kind, in, out)))
        goto out_release;
    if (!direct_out || scale != 1.0f) {
        dim3 grid, block;
        gip__fft_grid(nout, h, &grid, &block);
        unpack_kernel<<<grid, block, 0, gip__stream(ctx)>>>(out, nout, h, scale, dst->data,
                                                            dst->stride);
        st = GIP__LAUNCH_CHECK(ctx, "fft unpack_kernel");
    }
out_release:
    if (s.ptr)
        gip__fft_scratch_release(ctx, &s);
    return st;
}
