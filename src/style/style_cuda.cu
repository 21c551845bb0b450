/* SPDX-License-Identifier: MIT */
/* The GPU backend of style transfer: cuDNN convolutions (forward and backward-data, deterministic
 * algorithms), cuBLAS Gram matrices and gradient GEMMs, fused elementwise kernels and two-pass
 * deterministic reductions, all queued on the context's stream. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"
#include "dynlib.h"
#include "style.h"

#if defined(GIP_HAVE_CUDNN)
#include <cublas_v2.h>
#include <cudnn.h>

#define THREADS 256
#define RED_BLOCKS 512 /* fixed grid for reductions: the summation order never changes */
#define MAX_WORKSPACE ((size_t)1 << 30)
#define ALGO_CACHE 64

/* cuBLAS, opened on the first style transfer (core/dynlib.h). */
static struct {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasSetMathMode) set_math_mode;
    decltype(&cublasSgemm_v2) sgemm;
} blas;
static const char *const blas_names[] = {"cublasCreate_v2",    "cublasDestroy_v2",
                                         "cublasSetStream_v2", "cublasSetMathMode",
                                         "cublasSgemm_v2",     NULL};
static void *const blas_slots[] = {&blas.create, &blas.destroy, &blas.set_stream,
                                   &blas.set_math_mode, &blas.sgemm};
static gip__dynlib blas_lib = {GIP_CUBLAS_SONAME, GIP_CUBLAS_DIR, blas_names, blas_slots, 0, 0, ""};

/* cuDNN, opened when the first style state is made (core/dynlib.h): a process that never runs
 * style transfer never maps it. */
static struct {
    decltype(&cudnnConvolutionBackwardData) ConvolutionBackwardData;
    decltype(&cudnnConvolutionForward) ConvolutionForward;
    decltype(&cudnnCreate) Create;
    decltype(&cudnnCreateConvolutionDescriptor) CreateConvolutionDescriptor;
    decltype(&cudnnCreateFilterDescriptor) CreateFilterDescriptor;
    decltype(&cudnnCreateTensorDescriptor) CreateTensorDescriptor;
    decltype(&cudnnDestroy) Destroy;
    decltype(&cudnnDestroyConvolutionDescriptor) DestroyConvolutionDescriptor;
    decltype(&cudnnDestroyFilterDescriptor) DestroyFilterDescriptor;
    decltype(&cudnnDestroyTensorDescriptor) DestroyTensorDescriptor;
    decltype(&cudnnGetConvolutionBackwardDataAlgorithm_v7) GetConvolutionBackwardDataAlgorithm_v7;
    decltype(&cudnnGetConvolutionForwardAlgorithm_v7) GetConvolutionForwardAlgorithm_v7;
    decltype(&cudnnGetErrorString) GetErrorString;
    decltype(&cudnnSetConvolution2dDescriptor) SetConvolution2dDescriptor;
    decltype(&cudnnSetConvolutionMathType) SetConvolutionMathType;
    decltype(&cudnnSetFilter4dDescriptor) SetFilter4dDescriptor;
    decltype(&cudnnSetStream) SetStream;
    decltype(&cudnnSetTensor4dDescriptor) SetTensor4dDescriptor;
} dnn;
static const char *const dnn_names[] = {"cudnnConvolutionBackwardData",
                                        "cudnnConvolutionForward",
                                        "cudnnCreate",
                                        "cudnnCreateConvolutionDescriptor",
                                        "cudnnCreateFilterDescriptor",
                                        "cudnnCreateTensorDescriptor",
                                        "cudnnDestroy",
                                        "cudnnDestroyConvolutionDescriptor",
                                        "cudnnDestroyFilterDescriptor",
                                        "cudnnDestroyTensorDescriptor",
                                        "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                                        "cudnnGetConvolutionForwardAlgorithm_v7",
                                        "cudnnGetErrorString",
                                        "cudnnSetConvolution2dDescriptor",
                                        "cudnnSetConvolutionMathType",
                                        "cudnnSetFilter4dDescriptor",
                                        "cudnnSetStream",
                                        "cudnnSetTensor4dDescriptor",
                                        NULL};
static void *const dnn_slots[] = {
    &dnn.ConvolutionBackwardData,
    &dnn.ConvolutionForward,
    &dnn.Create,
    &dnn.CreateConvolutionDescriptor,
    &dnn.CreateFilterDescriptor,
    &dnn.CreateTensorDescriptor,
    &dnn.Destroy,
    &dnn.DestroyConvolutionDescriptor,
    &dnn.DestroyFilterDescriptor,
    &dnn.DestroyTensorDescriptor,
    &dnn.GetConvolutionBackwardDataAlgorithm_v7,
    &dnn.GetConvolutionForwardAlgorithm_v7,
    &dnn.GetErrorString,
    &dnn.SetConvolution2dDescriptor,
    &dnn.SetConvolutionMathType,
    &dnn.SetFilter4dDescriptor,
    &dnn.SetStream,
    &dnn.SetTensor4dDescriptor,
};
static gip__dynlib dnn_lib = {GIP_CUDNN_SONAME, GIP_CUDNN_DIR, dnn_names, dnn_slots, 0, 0, ""};

typedef struct algo_entry {
    int layer, bwd;
    int64_t h, w;
    int algo;
    cudnnMathType_t math;
    size_t ws;
} algo_entry;

struct gip__style_state {
    const gip_net *net;
    int last;
    uint32_t flags;
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    cudnnFilterDescriptor_t filt[GIP__VGG_LAYERS];
    cudnnConvolutionDescriptor_t conv;
    cudnnTensorDescriptor_t in_desc, out_desc;
    float *w[GIP__VGG_LAYERS], *b[GIP__VGG_LAYERS];
    void *ws;
    size_t ws_size;
    double *partials; /* RED_BLOCKS doubles */
    double *dresult;  /* one double for host-bound reductions */
    double *hresult;  /* pinned host double */
    double
        *rows_part; /* optimiser scratch: rows_dot partials and results, rows_axpy coefficients */
    size_t rows_part_size;
    algo_entry cache[ALGO_CACHE];
    int ncache;
};

static gip_status dnn_status(gip_context *ctx, cudnnStatus_t s, const char *what)
{
    if (s == CUDNN_STATUS_SUCCESS)
        return GIP_OK;
    if (s == CUDNN_STATUS_ALLOC_FAILED)
        return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY, "gip_style_transfer: %s: %s", what,
                          dnn.GetErrorString(s));
    return gip__error(ctx, GIP_ERR_DEVICE, "gip_style_transfer: %s failed: %s", what,
                      dnn.GetErrorString(s));
}

static gip_status blas_status(gip_context *ctx, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return GIP_OK;
    if (s == CUBLAS_STATUS_ALLOC_FAILED)
        return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY,
                          "gip_style_transfer: %s: out of memory", what);
    return gip__error(ctx, GIP_ERR_DEVICE, "gip_style_transfer: %s failed: cublasStatus %d", what,
                      (int)s);
}

static unsigned grid_for(int64_t n)
{
    int64_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

/* ---- kernels --------------------------------------------------------------------------------- */
__global__ void k_bias_relu(float *out, const float *bias, int64_t hw, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float v = out[i] + bias[i / hw];
        out[i] = v > 0.0f ? v : 0.0f;
    }
}

__global__ void k_relu_bwd(const float *act, float *g, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (!(act[i] > 0.0f))
            g[i] = 0.0f;
}

__global__ void k_axpby(float alpha, const float *x, float beta, float *y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float a = x ? alpha * x[i] : 0.0f;
        y[i] = beta == 0.0f ? a : a + beta * y[i];
    }
}

__global__ void k_pool_fwd(int avg, const float *in, float *out, int64_t c, int64_t h, int64_t w)
{
    int64_t oh = h / 2, ow = w / 2, n = c * oh * ow;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t x = i % ow, y = (i / ow) % oh, ch = i / (ow * oh);
        const float *r0 = in + (ch * h + 2 * y) * w + 2 * x, *r1 = r0 + w;
        float a = r0[0], b = r0[1], cc = r1[0], d = r1[1];
        if (avg) {
            out[i] = 0.25f * ((a + b) + (cc + d));
        } else {
            float m = a;
            m = b > m ? b : m;
            m = cc > m ? cc : m;
            out[i] = d > m ? d : m;
        }
    }
}

/* gin must be zeroed first (odd trailing rows and columns get no gradient). */
__global__ void k_pool_bwd(int avg, const float *in, const float *gout, float *gin, int64_t c,
                           int64_t h, int64_t w)
{
    int64_t oh = h / 2, ow = w / 2, n = c * oh * ow;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t x = i % ow, y = (i / ow) % oh, ch = i / (ow * oh);
        int64_t o0 = (ch * h + 2 * y) * w + 2 * x, o1 = o0 + w;
        float go = gout[i];
        if (avg) {
            float v = 0.25f * go;
            gin[o0] = v;
            gin[o0 + 1] = v;
            gin[o1] = v;
            gin[o1 + 1] = v;
        } else {
            float a = in[o0], b = in[o0 + 1], cc = in[o1], d = in[o1 + 1];
            int64_t t = o0;
            float m = a;
            if (b > m) {
                m = b;
                t = o0 + 1;
            }
            if (cc > m) {
                m = cc;
                t = o1;
            }
            if (d > m)
                t = o1 + 1;
            gin[t] = go;
        }
    }
}

__device__ void block_sum_store(double s, double *dst)
{
    __shared__ double sh[THREADS];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if ((int)threadIdx.x < k)
            sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *dst = sh[0];
}

/* kind 0: sum a*b; kind 1: sum (a-b)^2 and g += k (a-b); kind 2: sum (a-b)^2, g = a-b. */
__global__ void k_reduce(int kind, const float *a, const float *b, float *g, float k, int64_t n,
                         double *partials)
{
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        if (kind == 0) {
            s += (double)a[i] * b[i];
        } else {
            float d = a[i] - b[i];
            s += (double)d * d;
            if (kind == 1)
                g[i] += k * d;
            else
                g[i] = d;
        }
    }
    block_sum_store(s, &partials[blockIdx.x]);
}

__global__ void k_tv(const float *x, float *g, int64_t c, int64_t h, int64_t w, float k,
                     double *partials)
{
    double s = 0;
    int64_t n = c * h * w;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        g[i] += k * gip__style_tv_pixel(x + i, i % w, (i / w) % h, h, w, &s);
    }
    block_sum_store(s, &partials[blockIdx.x]);
}

/* *dst = (accumulate ? *dst : 0) + scale * sum(partials) in a fixed order. */
__global__ void k_final(const double *partials, int n, double scale, double *dst, int accumulate)
{
    double s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += partials[i];
    __shared__ double result;
    block_sum_store(s, &result);
    __syncthreads();
    if (threadIdx.x == 0)
        *dst = (accumulate ? *dst : 0.0) + scale * result;
}

/* ---- optimiser kernels ------------------------------------------------------------------------
 */
#define ROW_CHUNKS 64 /* blocks per row in rows_dot: a fixed split, so a fixed summation order */
#define MAX_VECS 4

/* partials[(row * ROW_CHUNKS + chunk) * nv + j] = sum over the chunk of rows[row] * vecs[j]. */
__global__ void k_rows_dot(const float *rows, const float *vecs, int nv, int64_t n,
                           double *partials)
{
    int64_t row = blockIdx.y, chunk = blockIdx.x;
    int64_t len = (n + ROW_CHUNKS - 1) / ROW_CHUNKS, i0 = chunk * len;
    int64_t i1 = i0 + len < n ? i0 + len : n;
    const float *r = rows + row * n;
    double s[MAX_VECS] = {0, 0, 0, 0};
    for (int64_t i = i0 + threadIdx.x; i < i1; i += blockDim.x) {
        double v = r[i];
        for (int j = 0; j < nv; j++)
            s[j] += v * vecs[j * n + i];
    }
    for (int j = 0; j < nv; j++) {
        block_sum_store(s[j], &partials[(row * ROW_CHUNKS + chunk) * nv + j]);
        __syncthreads();
    }
}

/* out[k] = sum of the ROW_CHUNKS partials of (row, j) = k, in order. */
__global__ void k_rows_final(const double *partials, int nv, int64_t nout, double *out)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nout;
         k += (int64_t)gridDim.x * blockDim.x) {
        int64_t row = k / nv, j = k % nv;
        double s = 0;
        for (int c = 0; c < ROW_CHUNKS; c++)
            s += partials[(row * ROW_CHUNKS + c) * nv + j];
        out[k] = s;
    }
}

/* y += sum over r of coef[r] rows[r] */
__global__ void k_rows_axpy(const float *rows, int nr, const float *coef, int64_t n, float *y)
{
    /* nr + 4 entries, the last ones zero: ptxas may load the unrolled loop's tail (up to three
     * floats past nr) before it tests the count, and those loads must stay inside the array. */
    extern __shared__ float c[];
    for (int r = threadIdx.x; r < nr + 4; r += blockDim.x)
        c[r] = r < nr ? coef[r] : 0.0f;
    __syncthreads();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (int r = 0; r < nr; r++)
            acc += c[r] * rows[(int64_t)r * n + i];
        y[i] += acc;
    }
}

/* partials[block] = sum |a| over the block's elements; maxima[block] = max |a| */
__global__ void k_abs_norms(const float *a, int64_t n, double *partials, double *maxima)
{
    double s = 0, m = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double v = fabs((double)a[i]);
        s += v;
        m = v > m ? v : m;
    }
    block_sum_store(s, &partials[blockIdx.x]);
    __shared__ double sh[THREADS];
    sh[threadIdx.x] = m;
    __syncthreads();
    for (int k = THREADS / 2; k > 0; k >>= 1) {
        if ((int)threadIdx.x < k)
            sh[threadIdx.x] =
                sh[threadIdx.x + k] > sh[threadIdx.x] ? sh[threadIdx.x + k] : sh[threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        maxima[blockIdx.x] = sh[0];
}

/* out[0] = sum of partials, out[1] = max of maxima (RED_BLOCKS each), one thread: rare call */
__global__ void k_abs_final(const double *partials, const double *maxima, double *out)
{
    double s = 0, m = 0;
    for (int i = 0; i < RED_BLOCKS; i++) {
        s += partials[i];
        m = maxima[i] > m ? maxima[i] : m;
    }
    out[0] = s;
    out[1] = m;
}

/* omb1 = 1 - b1 and omb2 = 1 - b2 come rounded from double: 1.0f - 0.999f is 1.3e-5 off. */
__global__ void k_adam(float *x, const float *g, float *m, float *v, int64_t n, float lr, float b1,
                       float b2, float omb1, float omb2, float eps, float c1, float c2)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float gi = g[i];
        float mi = b1 * m[i] + omb1 * gi;
        float vi = b2 * v[i] + omb2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        x[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
    }
}

/* ---- memory --------------------------------------------------------------------------------- */
static gip_status cu_alloc(gip_context *ctx, gip__style_state *st, int64_t n, float **out)
{
    void *p = NULL;
    gip_status s = gip__cuda_malloc(ctx, (size_t)(n > 0 ? n : 1) * sizeof(float), &p);
    if (s)
        return s;
    s = gip__cuda_status(
        ctx, cudaMemsetAsync(p, 0, (size_t)(n > 0 ? n : 1) * sizeof(float), gip__stream(ctx)),
        "cudaMemsetAsync");
    if (s) {
        gip__cuda_free(ctx, p);
        return s;
    }
    *out = (float *)p;
    return GIP_OK;
}

static void cu_free(gip_context *ctx, gip__style_state *st, float *p)
{
    if (p)
        gip__cuda_free(ctx, p);
}

static gip_status cu_upload(gip_context *ctx, gip__style_state *st, float *dst, const float *host,
                            int64_t n)
{
    gip_status s = gip__cuda_status(ctx,
                                    cudaMemcpyAsync(dst, host, (size_t)n * sizeof(float),
                                                    cudaMemcpyHostToDevice, gip__stream(ctx)),
                                    "cudaMemcpyAsync (upload)");
    /* The host buffer may be freed right after: wait for the copy. */
    return s ? s : gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "upload");
}

static gip_status cu_download(gip_context *ctx, gip__style_state *st, float *host, const float *src,
                              int64_t n)
{
    gip_status s = gip__cuda_status(ctx,
                                    cudaMemcpyAsync(host, src, (size_t)n * sizeof(float),
                                                    cudaMemcpyDeviceToHost, gip__stream(ctx)),
                                    "cudaMemcpyAsync (download)");
    return s ? s : gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "download");
}

/* ---- state ---------------------------------------------------------------------------------- */
static void cu_destroy(gip_context *ctx, gip__style_state *st)
{
    if (!st)
        return;
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        if (st->filt[l])
            dnn.DestroyFilterDescriptor(st->filt[l]);
        cu_free(ctx, st, st->w[l]);
        cu_free(ctx, st, st->b[l]);
    }
    if (st->conv)
        dnn.DestroyConvolutionDescriptor(st->conv);
    if (st->in_desc)
        dnn.DestroyTensorDescriptor(st->in_desc);
    if (st->out_desc)
        dnn.DestroyTensorDescriptor(st->out_desc);
    if (st->ws)
        gip__cuda_free(ctx, st->ws);
    if (st->partials)
        gip__cuda_free(ctx, st->partials);
    if (st->dresult)
        gip__cuda_free(ctx, st->dresult);
    if (st->hresult)
        gip__cuda_free_pinned(st->hresult);
    if (st->rows_part)
        gip__cuda_free(ctx, st->rows_part);
    if (st->dnn)
        dnn.Destroy(st->dnn);
    if (st->blas)
        blas.destroy(st->blas);
    free(st);
}

static gip_status cu_create(gip_context *ctx, const gip_net *net, int last, uint32_t flags,
                            gip__style_state **out)
{
    gip_status s = gip__cuda_enter(ctx);
    if (s || (s = gip__dynlib_load(ctx, "gip_style_transfer", &blas_lib)) ||
        (s = gip__dynlib_load(ctx, "gip_style_transfer", &dnn_lib)))
        return s;
    gip__style_state *st = (gip__style_state *)calloc(1, sizeof *st);
    if (!st)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    st->net = net;
    st->last = last;
    st->flags = flags;
    int tf32 = !(flags & GIP_STYLE_NO_TF32);
    if ((s = dnn_status(ctx, dnn.Create(&st->dnn), "cudnnCreate")) ||
        (s = dnn_status(ctx, dnn.SetStream(st->dnn, gip__stream(ctx)), "cudnnSetStream")) ||
        (s = blas_status(ctx, blas.create(&st->blas), "cublasCreate")) ||
        (s = blas_status(ctx, blas.set_stream(st->blas, gip__stream(ctx)), "cublasSetStream")) ||
        (s = blas_status(
             ctx,
             blas.set_math_mode(st->blas, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
             "cublasSetMathMode")) ||
        (s = dnn_status(ctx, dnn.CreateConvolutionDescriptor(&st->conv),
                        "cudnnCreateConvolutionDescriptor")) ||
        (s = dnn_status(ctx,
                        dnn.SetConvolution2dDescriptor(st->conv, 1, 1, 1, 1, 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                        "cudnnSetConvolution2dDescriptor")) ||
        (s = dnn_status(ctx, dnn.CreateTensorDescriptor(&st->in_desc),
                        "cudnnCreateTensorDescriptor")) ||
        (s = dnn_status(ctx, dnn.CreateTensorDescriptor(&st->out_desc),
                        "cudnnCreateTensorDescriptor")))
        goto out_fail;
    for (int l = 0; l <= last; l++) {
        const gip__conv *c = &net->conv[l];
        int64_t nw = (int64_t)c->cout * c->cin * 9;
        if ((s = dnn_status(ctx, dnn.CreateFilterDescriptor(&st->filt[l]),
                            "cudnnCreateFilterDescriptor")) ||
            (s = dnn_status(ctx,
                            dnn.SetFilter4dDescriptor(st->filt[l], CUDNN_DATA_FLOAT,
                                                      CUDNN_TENSOR_NCHW, c->cout, c->cin, 3, 3),
                            "cudnnSetFilter4dDescriptor")) ||
            (s = cu_alloc(ctx, st, nw, &st->w[l])) || (s = cu_alloc(ctx, st, c->cout, &st->b[l])) ||
            (s = cu_upload(ctx, st, st->w[l], c->w, nw)) ||
            (s = cu_upload(ctx, st, st->b[l], c->b, c->cout)))
            goto out_fail;
    }
    void *p;
    if ((s = gip__cuda_malloc(ctx, RED_BLOCKS * sizeof(double), &p)))
        goto out_fail;
    st->partials = (double *)p;
    if ((s = gip__cuda_malloc(ctx, sizeof(double), &p)))
        goto out_fail;
    st->dresult = (double *)p;
    if ((s = gip__cuda_malloc_pinned(ctx, sizeof(double), &p)))
        goto out_fail;
    st->hresult = (double *)p;
    *out = st;
    return GIP_OK;
out_fail:
    cu_destroy(ctx, st);
    return s;
}

static gip_status ensure_ws(gip_context *ctx, gip__style_state *st, size_t bytes)
{
    if (bytes <= st->ws_size)
        return GIP_OK;
    if (st->ws)
        gip__cuda_free(ctx, st->ws);
    st->ws = NULL;
    st->ws_size = 0;
    gip_status s = gip__cuda_malloc(ctx, bytes, &st->ws);
    if (s == GIP_OK)
        st->ws_size = bytes;
    return s;
}

/* fp16 conversion is never accepted; without TF32 only plain fp32 arithmetic. */
static bool math_ok(cudnnMathType_t m, int tf32)
{
    if (m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        return false;
    return tf32 || m == CUDNN_FMA_MATH || m == CUDNN_DEFAULT_MATH;
}

/* e's algorithm, math type and workspace from the first of cuDNN's count proposals perf (forward
 * or backward-data, fastest first) that succeeds deterministically within the workspace limit
 * in an accepted math type; e is left as it is where none does. */
template <typename Perf>
static void take_first(const Perf *perf, int count, int tf32, algo_entry *e)
{
    for (int i = 0; i < count; i++)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= MAX_WORKSPACE &&
            perf[i].determinism == CUDNN_DETERMINISTIC && math_ok(perf[i].mathType, tf32)) {
            e->algo = (int)perf[i].algo;
            e->math = tf32 ? perf[i].mathType : CUDNN_FMA_MATH;
            e->ws = perf[i].memory;
            return;
        }
}

/* Picks (and caches) the fastest deterministic algorithm cuDNN's heuristics propose for layer l
 * on an h x w input, within the workspace limit. */
static gip_status pick_algo(gip_context *ctx, gip__style_state *st, int l, int bwd, int64_t h,
                            int64_t w, algo_entry **out)
{
    for (int i = 0; i < st->ncache; i++) {
        algo_entry *e = &st->cache[i];
        if (e->layer == l && e->bwd == bwd && e->h == h && e->w == w) {
            *out = e;
            return GIP_OK;
        }
    }
    int tf32 = !(st->flags & GIP_STYLE_NO_TF32);
    algo_entry e = {l, bwd, h, w, -1, CUDNN_FMA_MATH, 0};
    gip_status s;
    if ((s = dnn_status(
             ctx, dnn.SetConvolutionMathType(st->conv, tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
             "cudnnSetConvolutionMathType")))
        return s;
    int count = 0;
    if (!bwd) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        if ((s = dnn_status(ctx,
                            dnn.GetConvolutionForwardAlgorithm_v7(
                                st->dnn, st->in_desc, st->filt[l], st->conv, st->out_desc,
                                CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf),
                            "cudnnGetConvolutionForwardAlgorithm_v7")))
            return s;
        take_first(perf, count, tf32, &e);
    } else {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        if ((s = dnn_status(ctx,
                            dnn.GetConvolutionBackwardDataAlgorithm_v7(
                                st->dnn, st->filt[l], st->out_desc, st->conv, st->in_desc,
                                CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf),
                            "cudnnGetConvolutionBackwardDataAlgorithm_v7")))
            return s;
        take_first(perf, count, tf32, &e);
    }
    if (e.algo < 0)
        return gip__error(ctx, GIP_ERR_DEVICE,
                          "gip_style_transfer: cuDNN proposes no deterministic %s algorithm for "
                          "layer %d at %lldx%lld",
                          bwd ? "backward-data" : "forward", l, (long long)w, (long long)h);
    if (st->ncache == ALGO_CACHE)
        st->ncache = 0; /* a full cache restarts: only a long run of new sizes gets here */
    st->cache[st->ncache] = e;
    *out = &st->cache[st->ncache++];
    return GIP_OK;
}

static gip_status set_descs(gip_context *ctx, gip__style_state *st, int l, int64_t h, int64_t w)
{
    const gip__conv *c = &st->net->conv[l];
    gip_status s;
    if ((s = dnn_status(ctx,
                        dnn.SetTensor4dDescriptor(st->in_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                  1, c->cin, (int)h, (int)w),
                        "cudnnSetTensor4dDescriptor")))
        return s;
    return dnn_status(ctx,
                      dnn.SetTensor4dDescriptor(st->out_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                                1, c->cout, (int)h, (int)w),
                      "cudnnSetTensor4dDescriptor");
}

/* Layer l's descriptors at h x w, its algorithm for the direction bwd (*e), the workspace and the
 * math type that algorithm takes: what a forward or backward-data convolution sets up first. */
static gip_status prepare_conv(gip_context *ctx, gip__style_state *st, int l, int bwd, int64_t h,
                               int64_t w, algo_entry **e)
{
    gip_status s;
    if ((s = set_descs(ctx, st, l, h, w)) || (s = pick_algo(ctx, st, l, bwd, h, w, e)) ||
        (s = ensure_ws(ctx, st, (*e)->ws)))
        return s;
    return dnn_status(ctx, dnn.SetConvolutionMathType(st->conv, (*e)->math),
                      "cudnnSetConvolutionMathType");
}

static gip_status cu_conv_fwd(gip_context *ctx, gip__style_state *st, int l, const float *in,
                              float *out, int64_t h, int64_t w)
{
    algo_entry *e;
    gip_status s = prepare_conv(ctx, st, l, 0, h, w, &e);
    if (s)
        return s;
    const float one = 1.0f, zero = 0.0f;
    if ((s = dnn_status(ctx,
                        dnn.ConvolutionForward(st->dnn, &one, st->in_desc, in, st->filt[l],
                                               st->w[l], st->conv,
                                               (cudnnConvolutionFwdAlgo_t)e->algo, st->ws, e->ws,
                                               &zero, st->out_desc, out),
                        "cudnnConvolutionForward")))
        return s;
    int64_t hw = h * w, n = (int64_t)st->net->conv[l].cout * hw;
    k_bias_relu<<<grid_for(n), THREADS, 0, gip__stream(ctx)>>>(out, st->b[l], hw, n);
    return GIP__LAUNCH_CHECK(ctx, "style bias_relu");
}

static gip_status cu_conv_bwd(gip_context *ctx, gip__style_state *st, int l, const float *gout,
                              float *gin, int64_t h, int64_t w)
{
    algo_entry *e;
    gip_status s = prepare_conv(ctx, st, l, 1, h, w, &e);
    if (s)
        return s;
    const float one = 1.0f, zero = 0.0f;
    return dnn_status(ctx,
                      dnn.ConvolutionBackwardData(st->dnn, &one, st->filt[l], st->w[l],
                                                  st->out_desc, gout, st->conv,
                                                  (cudnnConvolutionBwdDataAlgo_t)e->algo, st->ws,
                                                  e->ws, &zero, st->in_desc, gin),
                      "cudnnConvolutionBackwardData");
}

/* ---- elementwise ------------------------------------------------------------------------------
 */
static gip_status cu_relu_bwd(gip_context *ctx, gip__style_state *st, const float *act, float *g,
                              int64_t n)
{
    k_relu_bwd<<<grid_for(n), THREADS, 0, gip__stream(ctx)>>>(act, g, n);
    return GIP__LAUNCH_CHECK(ctx, "style relu_bwd");
}

static gip_status cu_axpby(gip_context *ctx, gip__style_state *st, double alpha, const float *x,
                           double beta, float *y, int64_t n)
{
    k_axpby<<<grid_for(n), THREADS, 0, gip__stream(ctx)>>>((float)alpha, x, (float)beta, y, n);
    return GIP__LAUNCH_CHECK(ctx, "style axpby");
}

static gip_status cu_pool_fwd(gip_context *ctx, gip__style_state *st, int avg, const float *in,
                              float *out, int64_t c, int64_t h, int64_t w)
{
    k_pool_fwd<<<grid_for(c * (h / 2) * (w / 2)), THREADS, 0, gip__stream(ctx)>>>(avg, in, out, c,
                                                                                  h, w);
    return GIP__LAUNCH_CHECK(ctx, "style pool_fwd");
}

static gip_status cu_pool_bwd(gip_context *ctx, gip__style_state *st, int avg, const float *in,
                              const float *gout, float *gin, int64_t c, int64_t h, int64_t w)
{
    gip_status s = gip__cuda_status(
        ctx, cudaMemsetAsync(gin, 0, (size_t)(c * h * w) * sizeof(float), gip__stream(ctx)),
        "cudaMemsetAsync");
    if (s)
        return s;
    k_pool_bwd<<<grid_for(c * (h / 2) * (w / 2)), THREADS, 0, gip__stream(ctx)>>>(avg, in, gout,
                                                                                  gin, c, h, w);
    return GIP__LAUNCH_CHECK(ctx, "style pool_bwd");
}

/* ---- reductions -------------------------------------------------------------------------------
 */
/* Runs k_reduce then k_final into dst (device double). */
static gip_status reduce_to(gip_context *ctx, gip__style_state *st, int kind, const float *a,
                            const float *b, float *g, float k, int64_t n, double scale, double *dst,
                            int accumulate)
{
    k_reduce<<<RED_BLOCKS, THREADS, 0, gip__stream(ctx)>>>(kind, a, b, g, k, n, st->partials);
    gip_status s = GIP__LAUNCH_CHECK(ctx, "style reduce");
    if (s)
        return s;
    k_final<<<1, THREADS, 0, gip__stream(ctx)>>>(st->partials, RED_BLOCKS, scale, dst, accumulate);
    return GIP__LAUNCH_CHECK(ctx, "style reduce final");
}

static gip_status read_result(gip_context *ctx, gip__style_state *st, double *out)
{
    gip_status s = gip__cuda_status(ctx,
                                    cudaMemcpyAsync(st->hresult, st->dresult, sizeof(double),
                                                    cudaMemcpyDeviceToHost, gip__stream(ctx)),
                                    "cudaMemcpyAsync (scalar)");
    if (!s)
        s = gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "style reduction");
    if (!s)
        *out = *st->hresult;
    return s;
}

static gip_status cu_dot(gip_context *ctx, gip__style_state *st, const float *a, const float *b,
                         int64_t n, double *out)
{
    gip_status s = reduce_to(ctx, st, 0, a, b, NULL, 0.0f, n, 1.0, st->dresult, 0);
    return s ? s : read_result(ctx, st, out);
}

static gip_status cu_mean_sq(gip_context *ctx, gip__style_state *st, const float *a, int64_t n,
                             double *out)
{
    gip_status s =
        reduce_to(ctx, st, 0, a, a, NULL, 0.0f, n, n > 0 ? 1.0 / (double)n : 0.0, st->dresult, 0);
    return s ? s : read_result(ctx, st, out);
}

static gip_status cu_content_grad(gip_context *ctx, gip__style_state *st, const float *f,
                                  const float *p, int64_t n, double coef, float *gf, double *loss)
{
    return reduce_to(ctx, st, 1, f, p, gf, (float)(2.0 * coef / (double)n), n, coef / (double)n,
                     loss, 1);
}

static gip_status cu_gram(gip_context *ctx, gip__style_state *st, const float *f, float *g,
                          int64_t c, int64_t m)
{
    /* F is c x m row-major = m x c column-major (ld m); G = F F^T is Fc^T Fc. */
    const float alpha = (float)(1.0 / ((double)c * (double)m)), beta = 0.0f;
    return blas_status(ctx,
                       blas.sgemm(st->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)c, (int)c, (int)m,
                                  &alpha, f, (int)m, f, (int)m, &beta, g, (int)c),
                       "cublasSgemm (Gram)");
}

static gip_status cu_style_grad(gip_context *ctx, gip__style_state *st, const float *f,
                                const float *g, const float *a, float *scratch, int64_t c,
                                int64_t m, double coef, float *gf, double *loss)
{
    gip_status s =
        reduce_to(ctx, st, 2, g, a, scratch, 0.0f, c * c, coef / ((double)c * c), loss, 1);
    if (s)
        return s;
    /* gf (c x m row-major = m x c column-major) += k * Fc D (D = G - A symmetric). */
    const float alpha = (float)(coef * 4.0 / ((double)c * c * (double)c * (double)m)), beta = 1.0f;
    return blas_status(ctx,
                       blas.sgemm(st->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)c, (int)c,
                                  &alpha, f, (int)m, scratch, (int)c, &beta, gf, (int)m),
                       "cublasSgemm (style gradient)");
}

static gip_status cu_tv_grad(gip_context *ctx, gip__style_state *st, const float *x, int64_t c,
                             int64_t h, int64_t w, double coef, float *gx, double *loss)
{
    double n = (double)c * h * w;
    k_tv<<<RED_BLOCKS, THREADS, 0, gip__stream(ctx)>>>(x, gx, c, h, w, (float)(2.0 * coef / n),
                                                       st->partials);
    gip_status s = GIP__LAUNCH_CHECK(ctx, "style tv");
    if (s)
        return s;
    k_final<<<1, THREADS, 0, gip__stream(ctx)>>>(st->partials, RED_BLOCKS, coef / n, loss, 1);
    return GIP__LAUNCH_CHECK(ctx, "style tv final");
}

/* ---- optimiser primitives ------------------------------------------------------------------ */
static gip_status ensure_rows_part(gip_context *ctx, gip__style_state *st, size_t doubles)
{
    if (doubles <= st->rows_part_size)
        return GIP_OK;
    /* Grows geometrically: the history's row count rises by two per iteration at first. */
    if (doubles < 2 * st->rows_part_size)
        doubles = 2 * st->rows_part_size;
    if (st->rows_part)
        gip__cuda_free(ctx, st->rows_part);
    st->rows_part = NULL;
    st->rows_part_size = 0;
    void *p;
    gip_status s = gip__cuda_malloc(ctx, doubles * sizeof(double), &p);
    if (s == GIP_OK) {
        st->rows_part = (double *)p;
        st->rows_part_size = doubles;
    }
    return s;
}

static gip_status cu_rows_dot(gip_context *ctx, gip__style_state *st, const float *rows, int64_t nr,
                              const float *vecs, int64_t nv, int64_t n, double *out)
{
    if (nr <= 0 || nv <= 0)
        return GIP_OK;
    if (nv > MAX_VECS || nr > 65535)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "gip_style_transfer: rows_dot of %lld rows and %lld vectors; at most "
                          "65535 and %d",
                          (long long)nr, (long long)nv, MAX_VECS);
    size_t npart = (size_t)(nr * ROW_CHUNKS * nv), nout = (size_t)(nr * nv);
    gip_status s = ensure_rows_part(ctx, st, npart + nout);
    if (s)
        return s;
    double *part = st->rows_part, *res = st->rows_part + npart;
    k_rows_dot<<<dim3(ROW_CHUNKS, (unsigned)nr), THREADS, 0, gip__stream(ctx)>>>(rows, vecs,
                                                                                 (int)nv, n, part);
    if ((s = GIP__LAUNCH_CHECK(ctx, "style rows_dot")))
        return s;
    k_rows_final<<<grid_for((int64_t)nout), THREADS, 0, gip__stream(ctx)>>>(part, (int)nv,
                                                                            (int64_t)nout, res);
    if ((s = GIP__LAUNCH_CHECK(ctx, "style rows_dot final")))
        return s;
    s = gip__cuda_status(
        ctx,
        cudaMemcpyAsync(out, res, nout * sizeof(double), cudaMemcpyDeviceToHost, gip__stream(ctx)),
        "cudaMemcpyAsync (history dots)");
    return s ? s : gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "style rows_dot");
}

static gip_status cu_rows_axpy(gip_context *ctx, gip__style_state *st, const float *rows,
                               int64_t nr, const double *coef, int64_t n, float *y)
{
    if (nr <= 0)
        return GIP_OK;
    if (nr > 8192)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "gip_style_transfer: rows_axpy of %lld rows; at most 8192",
                          (long long)nr);
    float hc[8192];
    for (int64_t r = 0; r < nr; r++)
        hc[r] = (float)coef[r];
    /* The coefficients go after the space rows_dot uses at most for this many rows. */
    gip_status s = ensure_rows_part(ctx, st, (size_t)nr);
    if (s)
        return s;
    float *dc = (float *)st->rows_part;
    /* From pageable memory: the call returns once hc has been staged, so hc may go. */
    if ((s = gip__cuda_status(ctx,
                              cudaMemcpyAsync(dc, hc, (size_t)nr * sizeof(float),
                                              cudaMemcpyHostToDevice, gip__stream(ctx)),
                              "cudaMemcpyAsync (coefficients)")))
        return s;
    k_rows_axpy<<<grid_for(n), THREADS, (size_t)(nr + 4) * sizeof(float), gip__stream(ctx)>>>(
        rows, (int)nr, dc, n, y);
    return GIP__LAUNCH_CHECK(ctx, "style rows_axpy");
}

static gip_status cu_abs_norms(gip_context *ctx, gip__style_state *st, const float *a, int64_t n,
                               double *l1, double *linf)
{
    gip_status s = ensure_rows_part(ctx, st, RED_BLOCKS + 2);
    if (s)
        return s;
    double *maxima = st->rows_part, *res = st->rows_part + RED_BLOCKS;
    k_abs_norms<<<RED_BLOCKS, THREADS, 0, gip__stream(ctx)>>>(a, n, st->partials, maxima);
    if ((s = GIP__LAUNCH_CHECK(ctx, "style abs_norms")))
        return s;
    k_abs_final<<<1, 1, 0, gip__stream(ctx)>>>(st->partials, maxima, res);
    if ((s = GIP__LAUNCH_CHECK(ctx, "style abs_norms final")))
        return s;
    double h[2];
    s = gip__cuda_status(
        ctx, cudaMemcpyAsync(h, res, sizeof h, cudaMemcpyDeviceToHost, gip__stream(ctx)),
        "cudaMemcpyAsync (norms)");
    if (!s)
        s = gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "style abs_norms");
    if (!s) {
        *l1 = h[0];
        *linf = h[1];
    }
    return s;
}

static gip_status cu_adam(gip_context *ctx, gip__style_state *st, float *x, const float *g,
                          float *m, float *v, int64_t n, double lr, double b1, double b2,
                          double eps, int32_t step)
{
    double c1 = 1.0 - pow(b1, step), c2 = 1.0 - pow(b2, step);
    k_adam<<<grid_for(n), THREADS, 0, gip__stream(ctx)>>>(
        x, g, m, v, n, (float)lr, (float)b1, (float)b2, (float)(1.0 - b1), (float)(1.0 - b2),
        (float)eps, (float)c1, (float)c2);
    return GIP__LAUNCH_CHECK(ctx, "style adam");
}

/* ---- loss slots --------------------------------------------------------------------------------
 */
static gip_status cu_loss_alloc(gip_context *ctx, gip__style_state *st, int n, double **out)
{
    void *p;
    gip_status s = gip__cuda_malloc(ctx, (size_t)n * sizeof(double), &p);
    if (s)
        return s;
    *out = (double *)p;
    return GIP_OK;
}

static void cu_loss_free(gip_context *ctx, gip__style_state *st, double *p)
{
    if (p)
        gip__cuda_free(ctx, p);
}

static gip_status cu_loss_zero(gip_context *ctx, gip__style_state *st, double *p, int n)
{
    return gip__cuda_status(ctx,
                            cudaMemsetAsync(p, 0, (size_t)n * sizeof(double), gip__stream(ctx)),
                            "cudaMemsetAsync");
}

static gip_status cu_loss_read(gip_context *ctx, gip__style_state *st, const double *p,
                               double *host, int n)
{
    gip_status s = gip__cuda_status(ctx,
                                    cudaMemcpyAsync(host, p, (size_t)n * sizeof(double),
                                                    cudaMemcpyDeviceToHost, gip__stream(ctx)),
                                    "cudaMemcpyAsync (losses)");
    return s ? s : gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "style losses");
}

static gip__style_backend make_backend()
{
    gip__style_backend b;
    memset(&b, 0, sizeof b);
    b.name = "cuda";
    b.create = cu_create;
    b.destroy = cu_destroy;
    b.alloc = cu_alloc;
    b.free = cu_free;
    b.upload = cu_upload;
    b.download = cu_download;
    b.conv_fwd = cu_conv_fwd;
    b.conv_bwd = cu_conv_bwd;
    b.relu_bwd = cu_relu_bwd;
    b.pool_fwd = cu_pool_fwd;
    b.pool_bwd = cu_pool_bwd;
    b.gram = cu_gram;
    b.style_grad = cu_style_grad;
    b.content_grad = cu_content_grad;
    b.tv_grad = cu_tv_grad;
    b.dot = cu_dot;
    b.axpby = cu_axpby;
    b.mean_sq = cu_mean_sq;
    b.rows_dot = cu_rows_dot;
    b.rows_axpy = cu_rows_axpy;
    b.abs_norms = cu_abs_norms;
    b.adam = cu_adam;
    b.loss_alloc = cu_loss_alloc;
    b.loss_free = cu_loss_free;
    b.loss_zero = cu_loss_zero;
    b.loss_read = cu_loss_read;
    return b;
}

static const gip__style_backend cuda_backend = make_backend();

extern "C" const gip__style_backend *gip__style_cuda_backend(void)
{
    return &cuda_backend;
}

#else /* built with CUDA but without cuDNN */

extern "C" const gip__style_backend *gip__style_cuda_backend(void)
{
    return NULL;
}

#endif
