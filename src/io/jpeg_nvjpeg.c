/* SPDX-License-Identifier: MIT */
/* GPU JPEG through nvJPEG: decode into device images (the GPU's hardware JPEG decoder through the
 * batched API where the GPU has one, else the GPU hybrid backend; libjpeg-turbo and an upload
 * for what nvJPEG refuses) and encode from device images, plus the batch-engine codec built on
 * them. Without nvJPEG in the build every entry returns GIP_ERR_NOT_BUILT. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dynlib.h"
#include "internal.h"
#include "io/jpeg_nvjpeg.h"

/* Images decoded by each path (gip_nvjpeg_decode_counts). */
static struct {
    _Atomic int64_t hw, hybrid, cpu;
} counts;

void gip_nvjpeg_decode_counts(int64_t *hardware, int64_t *hybrid, int64_t *cpu)
{
    if (hardware)
        *hardware = counts.hw;
    if (hybrid)
        *hybrid = counts.hybrid;
    if (cpu)
        *cpu = counts.cpu;
}

#ifdef GIP_HAVE_NVJPEG
#include <cuda_runtime_api.h>
#include <nvjpeg.h>

/* nvJPEG, opened when a device's handles are first made (core/dynlib.h): a process that never
 * touches GPU JPEG never maps it, and a missing or unreadable library is an error of the call
 * that needs it, not of the program's start. */
static struct {
    __typeof__(&nvjpegCreateEx) CreateEx;
    __typeof__(&nvjpegDecode) Decode;
    __typeof__(&nvjpegDecodeBatched) DecodeBatched;
    __typeof__(&nvjpegDecodeBatchedInitialize) DecodeBatchedInitialize;
    __typeof__(&nvjpegDecodeBatchedSupported) DecodeBatchedSupported;
    __typeof__(&nvjpegEncodeImage) EncodeImage;
    __typeof__(&nvjpegEncodeRetrieveBitstream) EncodeRetrieveBitstream;
    __typeof__(&nvjpegEncodeYUV) EncodeYUV;
    __typeof__(&nvjpegEncoderParamsCreate) EncoderParamsCreate;
    __typeof__(&nvjpegEncoderParamsDestroy) EncoderParamsDestroy;
    __typeof__(&nvjpegEncoderParamsSetQuality) EncoderParamsSetQuality;
    __typeof__(&nvjpegEncoderParamsSetSamplingFactors) EncoderParamsSetSamplingFactors;
    __typeof__(&nvjpegEncoderStateCreate) EncoderStateCreate;
    __typeof__(&nvjpegEncoderStateDestroy) EncoderStateDestroy;
    __typeof__(&nvjpegGetImageInfo) GetImageInfo;
    __typeof__(&nvjpegJpegStateCreate) JpegStateCreate;
    __typeof__(&nvjpegJpegStateDestroy) JpegStateDestroy;
    __typeof__(&nvjpegJpegStreamCreate) JpegStreamCreate;
    __typeof__(&nvjpegJpegStreamDestroy) JpegStreamDestroy;
    __typeof__(&nvjpegJpegStreamParseHeader) JpegStreamParseHeader;
} nvj;
static const char *const nvj_names[] = {"nvjpegCreateEx",
                                        "nvjpegDecode",
                                        "nvjpegDecodeBatched",
                                        "nvjpegDecodeBatchedInitialize",
                                        "nvjpegDecodeBatchedSupported",
                                        "nvjpegEncodeImage",
                                        "nvjpegEncodeRetrieveBitstream",
                                        "nvjpegEncodeYUV",
                                        "nvjpegEncoderParamsCreate",
                                        "nvjpegEncoderParamsDestroy",
                                        "nvjpegEncoderParamsSetQuality",
                                        "nvjpegEncoderParamsSetSamplingFactors",
                                        "nvjpegEncoderStateCreate",
                                        "nvjpegEncoderStateDestroy",
                                        "nvjpegGetImageInfo",
                                        "nvjpegJpegStateCreate",
                                        "nvjpegJpegStateDestroy",
                                        "nvjpegJpegStreamCreate",
                                        "nvjpegJpegStreamDestroy",
                                        "nvjpegJpegStreamParseHeader",
                                        NULL};
static void *const nvj_slots[] = {
    &nvj.CreateEx,
    &nvj.Decode,
    &nvj.DecodeBatched,
    &nvj.DecodeBatchedInitialize,
    &nvj.DecodeBatchedSupported,
    &nvj.EncodeImage,
    &nvj.EncodeRetrieveBitstream,
    &nvj.EncodeYUV,
    &nvj.EncoderParamsCreate,
    &nvj.EncoderParamsDestroy,
    &nvj.EncoderParamsSetQuality,
    &nvj.EncoderParamsSetSamplingFactors,
    &nvj.EncoderStateCreate,
    &nvj.EncoderStateDestroy,
    &nvj.GetImageInfo,
    &nvj.JpegStateCreate,
    &nvj.JpegStateDestroy,
    &nvj.JpegStreamCreate,
    &nvj.JpegStreamDestroy,
    &nvj.JpegStreamParseHeader,
};
static gip__dynlib nvj_lib = {GIP_NVJPEG_SONAME, GIP_NVJPEG_DIR, nvj_names, nvj_slots, 0, 0, ""};

/* Handles per device: nvJPEG binds handles (and the states made from them) to the device that was
 * current when they were created. For each device, the hardware handle (NULL when the GPU has no
 * JPEG decoder) and the hybrid one, which also encodes; created on the device's first use.
 * Handles are thread-safe; states are not (see dec_state). */
#define NV_MAX_DEVICES 64
typedef struct nv_handles {
    _Atomic int ready;
    nvjpegHandle_t hw, hybrid;
    nvjpegStatus_t err;
} nv_handles;

static nv_handles nv_dev[NV_MAX_DEVICES];
static pthread_mutex_t nv_dev_mu = PTHREAD_MUTEX_INITIALIZER;

/* The handles of `dev`, created on first use (the caller's current device is kept); NULL for a
 * device number beyond the table. */
static nv_handles *handles_of(int dev)
{
    if (dev < 0 || dev >= NV_MAX_DEVICES || !gip__dynlib_ready(&nvj_lib))
        return NULL;
    nv_handles *h = &nv_dev[dev];
    if (atomic_load_explicit(&h->ready, memory_order_acquire))
        return h;
    pthread_mutex_lock(&nv_dev_mu);
    if (!atomic_load_explicit(&h->ready, memory_order_relaxed)) {
        int prev = -1;
        if (cudaGetDevice(&prev) != cudaSuccess)
            prev = -1;
        if (cudaSetDevice(dev) == cudaSuccess) {
            if (nvj.CreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, NVJPEG_FLAGS_DEFAULT, &h->hw) !=
                NVJPEG_STATUS_SUCCESS)
                h->hw = NULL;
            h->err =
                nvj.CreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, NVJPEG_FLAGS_DEFAULT, &h->hybrid);
            if (h->err != NVJPEG_STATUS_SUCCESS)
                h->hybrid = NULL;
        } else {
            h->err = NVJPEG_STATUS_EXECUTION_FAILED;
        }
        (void)cudaGetLastError();
        if (prev >= 0)
            cudaSetDevice(prev);
        atomic_store_explicit(&h->ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&nv_dev_mu);
    return h;
}

static gip_status nv_status(gip_context *ctx, nvjpegStatus_t s, const char *what, const char *call)
{
    gip_status st = s == NVJPEG_STATUS_ALLOCATOR_FAILURE    ? GIP_ERR_DEVICE_OUT_OF_MEMORY
                    : s == NVJPEG_STATUS_BAD_JPEG           ? GIP_ERR_CORRUPT
                    : s == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ? GIP_ERR_UNSUPPORTED
                                                            : GIP_ERR_DEVICE;
    return gip__error(ctx, st, "%s: %s failed (nvJPEG status %d)", what, call, (int)s);
}

/* The handles of ctx's device, or an error when nvJPEG cannot start there. */
static gip_status handles(gip_context *ctx, const char *what, nv_handles **out)
{
    gip_status st = gip__dynlib_load(ctx, what, &nvj_lib);
    if (st)
        return st;
    int dev = gip_context_device(ctx);
    nv_handles *h = handles_of(dev);
    if (!h)
        return gip__error(ctx, GIP_ERR_DEVICE, "%s: device %d is beyond nvJPEG's table of %d", what,
                          dev, NV_MAX_DEVICES);
    if (!h->hybrid)
        return gip__error(ctx, GIP_ERR_DEVICE,
                          "%s: nvJPEG could not start on device %d (nvjpegCreateEx status %d)",
                          what, dev, (int)h->err);
    *out = h;
    return GIP_OK;
}

/* The backend of the calling thread's current device. */
const char *gip__nvjpeg_backend_name(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return "";
    }
    nv_handles *h = handles_of(dev);
    return !h ? "" : h->hw ? "hardware" : h->hybrid ? "gpu-hybrid" : "";
}

/* Idle decoder and encoder states, kept per device in process-wide free lists: each state
 * struct starts with this link. */
typedef struct pool_link {
    struct pool_link *next;
    int device;
} pool_link;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

/* Takes an idle state of `device` from *head, or NULL. */
static void *pool_take(pool_link **head, int device)
{
    pthread_mutex_lock(&pool_mu);
    pool_link *found = NULL;
    for (pool_link **pp = head; *pp; pp = &(*pp)->next) {
        if ((*pp)->device == device) {
            found = *pp;
            *pp = found->next;
            found->next = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&pool_mu);
    return found;
}

static void pool_put(pool_link **head, pool_link *s)
{
    pthread_mutex_lock(&pool_mu);
    s->next = *head;
    *head = s;
    pthread_mutex_unlock(&pool_mu);
}

/* Decoder state: one of each kind, a parsed-stream object for the hardware check, a stream of its
 * own (decodes on worker threads must not wait for the pipelines' compute) and an event that
 * orders the decode after the allocation of its outputs on the context's stream. Creating a
 * state allocates pinned and device buffers (and waits for the device), so states are kept in a
 * process-wide free list per device and reused; a state is used by one call at a time. */
typedef struct dec_state {
    pool_link link; /* first: the pool's view of the state */
    nv_handles *h;  /* its device's handles */
    nvjpegJpegState_t hw, hybrid;
    nvjpegJpegStream_t js;
    cudaStream_t stream;
    cudaEvent_t ready;
    int hw_batch;                /* batch size the hardware state was initialised for, 0 = none */
    nvjpegOutputFormat_t hw_fmt; /* and its output format */
} dec_state;

static pool_link *dec_pool; /* idle decoder states, any device */

static void dec_state_free(dec_state *s)
{
    if (s->js)
        nvj.JpegStreamDestroy(s->js);
    if (s->hw)
        nvj.JpegStateDestroy(s->hw);
    if (s->hybrid)
        nvj.JpegStateDestroy(s->hybrid);
    if (s->ready)
        cudaEventDestroy(s->ready);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

/* An idle state of ctx's device from the pool, or a new one. */
static gip_status dec_state_acquire(gip_context *ctx, dec_state **out, const char *what)
{
    int dev = gip_context_device(ctx);
    if ((*out = pool_take(&dec_pool, dev)))
        return GIP_OK;
    nv_handles *h = NULL;
    gip_status st = handles(ctx, what, &h);
    if (st)
        return st;
    dec_state *s = calloc(1, sizeof *s);
    if (!s)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    s->link.device = dev;
    s->h = h;
    nvjpegStatus_t e;
    if (cudaSetDevice(dev) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        dec_state_free(s);
        return gip__error(ctx, GIP_ERR_DEVICE, "%s: cannot create a CUDA stream and event", what);
    }
    if ((e = nvj.JpegStateCreate(h->hybrid, &s->hybrid)) != NVJPEG_STATUS_SUCCESS ||
        (h->hw && ((e = nvj.JpegStateCreate(h->hw, &s->hw)) != NVJPEG_STATUS_SUCCESS ||
                   (e = nvj.JpegStreamCreate(h->hw, &s->js)) != NVJPEG_STATUS_SUCCESS))) {
        dec_state_free(s);
        return nv_status(ctx, e, what, "nvjpegJpegStateCreate");
    }
    *out = s;
    return GIP_OK;
}

static void dec_state_release(dec_state *s)
{
    pool_put(&dec_pool, &s->link);
}

/* CPU decode and upload: what nvJPEG refuses (CMYK, 12-bit, odd layouts) and corrupt data, whose
 * precise message libjpeg gives. */
static gip_status decode_cpu(gip_context *ctx, const void *data, size_t size,
                             const gip_load_params *params, gip_image *out)
{
    gip_image host = {0}, dev = {0};
    gip_status st = gip_image_decode(data, size, params, &host);
    if (st)
        return st;
    if (!(st = gip_image_alloc(ctx, &dev, host.width, host.height, host.channels, host.dtype,
                               GIP_MEM_CUDA, 0)) &&
        !(st = gip_upload(ctx, &host, &dev)) && !(st = gip_context_sync(ctx)))
        *out = dev;
    else
        gip_image_free(ctx, &dev);
    gip_image_free(NULL, &host);
    return st;
}

/* Makes the state's stream wait for the work queued so far on ctx's stream: the outputs come
 * from the context's stream-ordered pool. */
static gip_status order_after_ctx(gip_context *ctx, dec_state *s, const char *what)
{
    if (cudaEventRecord(s->ready, (cudaStream_t)gip_context_stream(ctx)) != cudaSuccess ||
        cudaStreamWaitEvent(s->stream, s->ready, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return gip__error(ctx, GIP_ERR_DEVICE,
                          "%s: cannot order the decode after the context's "
                          "stream",
                          what);
    }
    return GIP_OK;
}

static nvjpegOutputFormat_t output_format(const gip_load_params *lp)
{
    return lp->mode == GIP_LOAD_GRAY ? NVJPEG_OUTPUT_Y
           : lp->bgr                 ? NVJPEG_OUTPUT_BGRI
                                     : NVJPEG_OUTPUT_RGBI;
}

/* Initialises s's hardware state for batches of n in format fmt unless it already is. */
static nvjpegStatus_t hw_init(dec_state *s, int32_t n, nvjpegOutputFormat_t fmt)
{
    if (s->hw_batch == n && s->hw_fmt == fmt)
        return NVJPEG_STATUS_SUCCESS;
    s->hw_batch = 0;
    nvjpegStatus_t e = nvj.DecodeBatchedInitialize(s->h->hw, s->hw, n, 1, fmt);
    if (e == NVJPEG_STATUS_SUCCESS) {
        s->hw_batch = n;
        s->hw_fmt = fmt;
    }
    return e;
}

/* Decodes images[0..n-1] with nvJPEG into outs (allocated here on ctx); *fallback[i] is set for
 * images nvJPEG did not decode (left for the CPU). */
static gip_status decode_nv(gip_context *ctx, dec_state *s, int32_t n, const uint8_t *const *data,
                            const size_t *sizes, const gip_load_params *params, gip_image *outs,
                            bool *fallback, const char *what)
{
    gip_load_params lp = {0};
    if (params)
        lp = *params;
    bool gray = lp.mode == GIP_LOAD_GRAY;
    nvjpegOutputFormat_t fmt = output_format(&lp);
    int32_t ch = gray ? 1 : 3;
    int64_t max_px = lp.max_pixels ? lp.max_pixels : GIP_DEFAULT_MAX_PIXELS;
    int64_t max_dim = lp.max_dim ? lp.max_dim : GIP_DEFAULT_MAX_DIM;
    gip_status st = GIP_OK;
    for (int32_t i = 0; i < n; i++) {
        fallback[i] = true;
        memset(&outs[i], 0, sizeof outs[i]);
    }
    /* Which images the hardware takes (baseline, supported subsampling): one batched call. */
    int32_t nhw = 0;
    const unsigned char **hw_data = calloc((size_t)n, sizeof *hw_data);
    size_t *hw_sizes = calloc((size_t)n, sizeof *hw_sizes);
    nvjpegImage_t *hw_out = calloc((size_t)n, sizeof *hw_out);
    if (!hw_data || !hw_sizes || !hw_out) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
        goto out_free;
    }
    for (int32_t i = 0; lp.reduce <= 1 && i < n; i++) { /* shrink-on-load: libjpeg's scaling */
        /* A stream without its EOI marker near the end is truncated: libjpeg reports it. */
        bool eoi = false;
        for (size_t k = sizes[i] >= 2 ? sizes[i] - 2 : 0, stop = k > 256 ? k - 256 : 0;
             k > stop && !eoi; k--)
            eoi = data[i][k] == 0xFF && data[i][k + 1] == 0xD9;
        if (!eoi)
            continue;
        gip_image_info info;
        /* The header through libjpeg: CMYK, 12-bit and limits are decided on the CPU. */
        if (gip_image_probe_memory(data[i], sizes[i], &info) != GIP_OK ||
            info.format != GIP_FORMAT_JPEG || info.bit_depth != 8)
            continue;
        if (info.width > max_dim || info.height > max_dim || info.width * info.height > max_px)
            continue; /* the CPU path reports the limit */
        if (info.orientation != 1 && !lp.ignore_orientation)
            continue; /* the CPU path turns it upright by its EXIF orientation */
        int nc = 0;
        nvjpegChromaSubsampling_t css;
        int w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT];
        if (nvj.GetImageInfo(s->h->hybrid, data[i], sizes[i], &nc, &css, w, h) !=
                NVJPEG_STATUS_SUCCESS ||
            (nc != 1 && nc != 3) || w[0] != info.width || h[0] != info.height)
            continue;
        /* Gray files in colour modes: libjpeg's gray replicated, as gip_image_decode(). */
        if (nc == 1 && !gray)
            continue;
        if ((st = gip_image_alloc(ctx, &outs[i], w[0], h[0], ch, GIP_U8, GIP_MEM_CUDA, 0)))
            goto out_free;
        nvjpegImage_t dst;
        memset(&dst, 0, sizeof dst);
        dst.channel[0] = outs[i].data;
        dst.pitch[0] = (size_t)outs[i].stride;
        int hw_ok = 0;
        if (s->h->hw && s->js && !info.progressive) {
            /* nvjpegDecodeBatchedSupported needs a parsed stream; the header is enough. */
            if (nvj.JpegStreamParseHeader(s->h->hw, data[i], sizes[i], s->js) ==
                    NVJPEG_STATUS_SUCCESS &&
                nvj.DecodeBatchedSupported(s->h->hw, s->js, &hw_ok) == NVJPEG_STATUS_SUCCESS)
                hw_ok = hw_ok == 0; /* 0 means supported */
            else
                hw_ok = 0;
        }
        if (hw_ok) {
            hw_data[nhw] = data[i];
            hw_sizes[nhw] = sizes[i];
            hw_out[nhw] = dst;
            nhw++;
            fallback[i] = false;
            continue;
        }
        if ((st = order_after_ctx(ctx, s, what)))
            goto out_free;
        if (nvj.Decode(s->h->hybrid, s->hybrid, data[i], sizes[i], fmt, &dst, s->stream) ==
                NVJPEG_STATUS_SUCCESS &&
            cudaStreamSynchronize(s->stream) == cudaSuccess) {
            fallback[i] = false;
            counts.hybrid++;
        } else {
            cudaStreamSynchronize(s->stream); /* nothing of it still running, then free */
            (void)cudaGetLastError();
            gip_image_free(ctx, &outs[i]);
        }
    }
    if (nhw && (st = order_after_ctx(ctx, s, what)))
        goto out_free;
    if (nhw) {
        /* Initialising the hardware state allocates its buffers: only when the batch changes. */
        nvjpegStatus_t e = hw_init(s, nhw, fmt);
        if (e != NVJPEG_STATUS_SUCCESS ||
            (e = nvj.DecodeBatched(s->h->hw, s->hw, hw_data, hw_sizes, hw_out, s->stream)) !=
                NVJPEG_STATUS_SUCCESS) {
            /* The whole hardware batch goes to the CPU (after whatever was queued). */
            cudaStreamSynchronize(s->stream);
            s->hw_batch = 0;
            for (int32_t i = 0, k = 0; i < n && k < nhw; i++)
                if (!fallback[i] && outs[i].data == hw_out[k].channel[0]) {
                    gip_image_free(ctx, &outs[i]);
                    fallback[i] = true;
                    k++;
                }
        } else if (cudaStreamSynchronize(s->stream) != cudaSuccess) {
            st = gip__error(ctx, GIP_ERR_DEVICE, "%s: nvJPEG hardware decode failed on the device",
                            what);
        } else {
            counts.hw += nhw;
        }
    }
out_free:
    free(hw_data);
    free(hw_sizes);
    free(hw_out);
    return st;
}

gip_status gip_jpeg_decode_device_batch(gip_context *ctx, int32_t n, const void *const *data,
                                        const size_t *sizes, const gip_load_params *params,
                                        gip_image *outs, gip_status *statuses)
{
    static const char op[] = "gip_jpeg_decode_device_batch";
    if (!ctx || !data || !sizes || !outs || !statuses || n < 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s", op,
                          n < 1 ? "n must be >= 1"
                                : "ctx, data, sizes, outs and statuses must be "
                                  "non-NULL");
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip__error(ctx, GIP_ERR_NO_DEVICE,
                          "%s: the context is a CPU context; nvJPEG decodes into a CUDA device's "
                          "memory",
                          op);
    dec_state *s = NULL;
    gip_status st = dec_state_acquire(ctx, &s, op);
    if (st)
        return st;
    bool *fallback = calloc((size_t)n, sizeof *fallback);
    if (!fallback) {
        dec_state_release(s);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    st = decode_nv(ctx, s, n, (const uint8_t *const *)data, sizes, params, outs, fallback, op);
    for (int32_t i = 0; i < n; i++) {
        if (st) {
            gip_image_free(ctx, &outs[i]);
            statuses[i] = st;
        } else if (fallback[i]) {
            statuses[i] = decode_cpu(ctx, data[i], sizes[i], params, &outs[i]);
            counts.cpu += statuses[i] == GIP_OK;
        } else {
            statuses[i] = GIP_OK;
        }
    }
    free(fallback);
    /* A state whose decode failed on the device may hold a broken stream: not reused. */
    if (st == GIP_ERR_DEVICE)
        dec_state_free(s);
    else
        dec_state_release(s);
    return st;
}

gip_status gip_jpeg_decode_device(gip_context *ctx, const void *data, size_t size,
                                  const gip_load_params *params, gip_image *out)
{
    if (!out)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "gip_jpeg_decode_device: out is NULL");
    gip_image img;
    gip_status one;
    gip_status st = gip_jpeg_decode_device_batch(ctx, 1, &data, &size, params, &img, &one);
    if (st)
        return st;
    if (one)
        return one;
    *out = img;
    return GIP_OK;
}

/* Encoder state and parameters with a stream and an event of their own, pooled per device as the
 * decoder states are (creating them allocates device buffers, which waits for the device). */
typedef struct enc_state {
    pool_link link; /* first: the pool's view of the state */
    nv_handles *h;  /* its device's handles */
    nvjpegEncoderState_t state;
    nvjpegEncoderParams_t params;
    cudaStream_t stream;
    cudaEvent_t ready;
} enc_state;

static pool_link *enc_pool; /* idle encoder states, any device */

static void enc_state_free(enc_state *s)
{
    if (s->params)
        nvj.EncoderParamsDestroy(s->params);
    if (s->state)
        nvj.EncoderStateDestroy(s->state);
    if (s->ready)
        cudaEventDestroy(s->ready);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

static gip_status enc_state_acquire(gip_context *ctx, enc_state **out, const char *what)
{
    int dev = gip_context_device(ctx);
    if ((*out = pool_take(&enc_pool, dev)))
        return GIP_OK;
    nv_handles *h = NULL;
    gip_status st = handles(ctx, what, &h);
    if (st)
        return st;
    enc_state *s = calloc(1, sizeof *s);
    if (!s)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    s->link.device = dev;
    s->h = h;
    if (cudaSetDevice(dev) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        enc_state_free(s);
        return gip__error(ctx, GIP_ERR_DEVICE, "%s: cannot create a CUDA stream and event", what);
    }
    nvjpegStatus_t e;
    const char *call = "nvjpegEncoderStateCreate";
    if ((e = nvj.EncoderStateCreate(h->hybrid, &s->state, s->stream)) != NVJPEG_STATUS_SUCCESS ||
        (call = "nvjpegEncoderParamsCreate",
         (e = nvj.EncoderParamsCreate(h->hybrid, &s->params, s->stream)) !=
             NVJPEG_STATUS_SUCCESS)) {
        enc_state_free(s);
        return nv_status(ctx, e, what, call);
    }
    *out = s;
    return GIP_OK;
}

static void enc_state_release(enc_state *s)
{
    pool_put(&enc_pool, &s->link);
}

static gip_status encode_on(gip_context *ctx, enc_state *es, const gip_image *img, int32_t quality,
                            gip_subsampling sub, bool bgr, void **data, size_t *size, bool *broken,
                            const char *op);

gip_status gip_jpeg_encode_device(gip_context *ctx, const gip_image *img,
                                  const gip_save_params *params, void **data, size_t *size)
{
    static const char op[] = "gip_jpeg_encode_device";
    if (!ctx || !img || !data || !size)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !ctx   ? "ctx"
                          : !img ? "img"
                                 : "data or size");
    gip_status st;
    if ((st = gip__ctx_check(ctx, op)) || (st = gip_image_check(img, "img")))
        return st;
    if (img->memory != GIP_MEM_CUDA || gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: img must be in the CUDA memory of ctx's device; use "
                          "gip_image_encode() for host images",
                          op);
    if ((st = gip__image_check_ctx(ctx, img, op, "img")))
        return st;
    if (img->dtype != GIP_U8 || (img->channels != 1 && img->channels != 3))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: JPEG stores u8 images of 1 or 3 channels; img is %s with %d "
                          "channels",
                          op, gip_dtype_name(img->dtype), (int)img->channels);
    int32_t quality = params && params->quality ? params->quality : 95;
    gip_subsampling sub = params && params->subsampling ? params->subsampling : GIP_SUBSAMPLING_420;
    if (quality < 1 || quality > 100 || sub < 0 || sub > GIP_SUBSAMPLING_420)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: quality %d / subsampling %d is invalid; accepted: 1..100 (0 = 95) "
                          "and a gip_subsampling",
                          op, (int)quality, (int)sub);
    if (params && params->progressive)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: nvJPEG writes baseline JPEG only; encode progressive files on the "
                          "CPU (gip_image_encode)",
                          op);
    if (img->width > 65500 || img->height > 65500)
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "%s: JPEG stores at most 65500 pixels per side; img is %lldx%lld", op,
                          (long long)img->width, (long long)img->height);
    enc_state *es = NULL;
    if ((st = enc_state_acquire(ctx, &es, op)))
        return st;
    bool broken = false;
    st = encode_on(ctx, es, img, quality, sub, params && params->bgr, data, size, &broken, op);
    if (broken)
        enc_state_free(es);
    else
        enc_state_release(es);
    return st;
}

/* Encodes img (validated: u8, 1 or 3 channels, CUDA memory of ctx) with state es into a malloc'd
 * buffer; *broken when the state must not be reused (a device error). */
static gip_status encode_on(gip_context *ctx, enc_state *es, const gip_image *img, int32_t quality,
                            gip_subsampling sub, bool bgr, void **data, size_t *size, bool *broken,
                            const char *op)
{
    gip_status st = GIP_OK;
    cudaStream_t stream = es->stream;
    nvjpegStatus_t e;
    const char *call = "cudaStreamWaitEvent";
    unsigned char *buf = NULL;
    size_t len = 0;
    nvjpegImage_t src;
    memset(&src, 0, sizeof src);
    src.channel[0] = img->data;
    src.pitch[0] = (size_t)img->stride;
    nvjpegChromaSubsampling_t css = img->channels == 1           ? NVJPEG_CSS_GRAY
                                    : sub == GIP_SUBSAMPLING_444 ? NVJPEG_CSS_444
                                    : sub == GIP_SUBSAMPLING_422 ? NVJPEG_CSS_422
                                                                 : NVJPEG_CSS_420;
    /* The image is produced on the context's stream: the encoder's stream waits for it. */
    if (cudaEventRecord(es->ready, (cudaStream_t)gip_context_stream(ctx)) != cudaSuccess ||
        cudaStreamWaitEvent(stream, es->ready, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        st = gip__error(ctx, GIP_ERR_DEVICE,
                        "%s: cannot order the encode after the context's "
                        "stream",
                        op);
        goto out_free;
    }
    call = "nvjpegEncoderParamsSetQuality";
    if ((e = nvj.EncoderParamsSetQuality(es->params, quality, stream)) != NVJPEG_STATUS_SUCCESS ||
        (call = "nvjpegEncoderParamsSetSamplingFactors",
         (e = nvj.EncoderParamsSetSamplingFactors(es->params, css, stream)) !=
             NVJPEG_STATUS_SUCCESS))
        goto out_nv;
    call = img->channels == 1 ? "nvjpegEncodeYUV" : "nvjpegEncodeImage";
    e = img->channels == 1
            ? nvj.EncodeYUV(es->h->hybrid, es->state, es->params, &src, NVJPEG_CSS_GRAY,
                            (int)img->width, (int)img->height, stream)
            : nvj.EncodeImage(es->h->hybrid, es->state, es->params, &src,
                              bgr ? NVJPEG_INPUT_BGRI : NVJPEG_INPUT_RGBI, (int)img->width,
                              (int)img->height, stream);
    if (e != NVJPEG_STATUS_SUCCESS)
        goto out_nv;
    call = "nvjpegEncodeRetrieveBitstream";
    if ((e = nvj.EncodeRetrieveBitstream(es->h->hybrid, es->state, NULL, &len, stream)) !=
        NVJPEG_STATUS_SUCCESS)
        goto out_nv;
    if (!(buf = malloc(len ? len : 1))) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", op, len);
        goto out_free;
    }
    if ((e = nvj.EncodeRetrieveBitstream(es->h->hybrid, es->state, buf, &len, stream)) !=
        NVJPEG_STATUS_SUCCESS)
        goto out_nv;
    if (cudaStreamSynchronize(stream) != cudaSuccess) {
        st = gip__error(ctx, GIP_ERR_DEVICE, "%s: the encode failed on the device", op);
        goto out_free;
    }
    *data = buf;
    *size = len;
    buf = NULL;
    goto out_free;
out_nv:
    st = nv_status(ctx, e, op, call);
out_free:
    free(buf);
    /* Whatever was queued finishes before the state goes back (or away, after a device error). */
    if (cudaStreamSynchronize(stream) != cudaSuccess || st == GIP_ERR_DEVICE) {
        (void)cudaGetLastError();
        *broken = true;
    }
    return st;
}

#else /* !GIP_HAVE_NVJPEG */

static gip_status not_built(gip_context *ctx, const char *op)
{
    return gip__error(ctx, GIP_ERR_NOT_BUILT,
                      "%s: gip was built without nvJPEG (configure with nvjpeg.h and libnvjpeg "
                      "found, e.g. NVJPEG_ROOT=.../site-packages/nvidia/cu13); decode on the CPU "
                      "with gip_image_decode()",
                      op);
}

const char *gip__nvjpeg_backend_name(void)
{
    return "";
}

gip_status gip_jpeg_decode_device_batch(gip_context *ctx, int32_t n, const void *const *data,
                                        const size_t *sizes, const gip_load_params *params,
                                        gip_image *outs, gip_status *statuses)
{
    return not_built(ctx, "gip_jpeg_decode_device_batch");
}

gip_status gip_jpeg_decode_device(gip_context *ctx, const void *data, size_t size,
                                  const gip_load_params *params, gip_image *out)
{
    return not_built(ctx, "gip_jpeg_decode_device");
}

gip_status gip_jpeg_encode_device(gip_context *ctx, const gip_image *img,
                                  const gip_save_params *params, void **data, size_t *size)
{
    return not_built(ctx, "gip_jpeg_encode_device");
}

#endif

/* ---- the batch codec ------------------------------------------------------------------------ */
#ifdef GIP_HAVE_NVJPEG

static gip_status codec_decode(void *user, gip_context *ctx, const void *data, size_t size,
                               const gip_load_params *params, gip_image *out)
{
    gip_image_info info;
    /* nvJPEG for JPEG on a CUDA pipeline; everything else decodes on the CPU as usual. */
    gip_load_mode mode = params ? params->mode : GIP_LOAD_UNCHANGED;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA &&
        gip_image_probe_memory(data, size, &info) == GIP_OK && info.format == GIP_FORMAT_JPEG &&
        !(mode == GIP_LOAD_UNCHANGED && info.channels == 1))
        return gip_jpeg_decode_device(ctx, data, size, params, out);
    return gip_image_decode(data, size, params, out);
}

/* A batch: the JPEG files nvJPEG takes in one gip_jpeg_decode_device_batch() call, the others
 * one by one through codec_decode(). */
static gip_status codec_decode_batch(void *user, gip_context *ctx, int32_t n,
                                     const void *const *data, const size_t *sizes,
                                     const gip_load_params *params, gip_image *outs,
                                     gip_status *statuses)
{
    const void *jd[64];
    size_t js[64];
    int32_t where[64], m = 0;
    gip_load_mode mode = params ? params->mode : GIP_LOAD_UNCHANGED;
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    for (int32_t i = 0; i < n; i++) {
        gip_image_info info;
        memset(&outs[i], 0, sizeof outs[i]);
        if (cuda && m < 64 && gip_image_probe_memory(data[i], sizes[i], &info) == GIP_OK &&
            info.format == GIP_FORMAT_JPEG && !(mode == GIP_LOAD_UNCHANGED && info.channels == 1)) {
            jd[m] = data[i];
            js[m] = sizes[i];
            where[m++] = i;
            continue;
        }
        statuses[i] = codec_decode(user, ctx, data[i], sizes[i], params, &outs[i]);
    }
    if (!m)
        return GIP_OK;
    gip_image got[64];
    gip_status gs[64];
    gip_status st = gip_jpeg_decode_device_batch(ctx, m, jd, js, params, got, gs);
    for (int32_t k = 0; k < m; k++) {
        outs[where[k]] = got[k];
        statuses[where[k]] = gs[k];
    }
    return st;
}

/* Before a batch: the handles, `decoders` decoder states (hardware part initialised for batches
 * of batch_size in the output format of params) and `encoders` encoder states in the pools (at
 * most 32 of each: more are created when needed). */
static gip_status codec_prepare(void *user, gip_context *ctx, const gip_load_params *params,
                                int32_t batch_size, int32_t decoders, int32_t encoders)
{
    static const char op[] = "gip_batch_run (nvJPEG)";
    (void)user;
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return GIP_OK;
    gip_status st = GIP_OK;
    gip_load_params lp = {0};
    if (params)
        lp = *params;
    dec_state *ds[32] = {0};
    enc_state *es[32] = {0};
    int32_t nd = decoders < 0 ? 0 : decoders > 32 ? 32 : decoders;
    int32_t ne = encoders < 0 ? 0 : encoders > 32 ? 32 : encoders;
    for (int32_t i = 0; i < nd && !st; i++)
        if (!(st = dec_state_acquire(ctx, &ds[i], op)) && ds[i]->hw &&
            hw_init(ds[i], batch_size, output_format(&lp)) != NVJPEG_STATUS_SUCCESS)
            ds[i]->hw_batch = 0; /* decode_nv initialises it again (and reports a failure) */
    for (int32_t i = 0; i < ne && !st; i++)
        st = enc_state_acquire(ctx, &es[i], op);
    for (int32_t i = 0; i < 32; i++) {
        if (ds[i])
            dec_state_release(ds[i]);
        if (es[i])
            enc_state_release(es[i]);
    }
    return st;
}

/* One encoder state's warm-up encode, on a thread of its own. */
typedef struct warm_job {
    gip_context *ctx;
    enc_state *es;
    const gip_image *img;
    int32_t quality;
    gip_subsampling sub;
    bool bgr, broken;
} warm_job;

static void *warm_encode(void *arg)
{
    warm_job *w = arg;
    void *data = NULL;
    size_t size = 0;
    if (encode_on(w->ctx, w->es, w->img, w->quality, w->sub, w->bgr, &data, &size, &w->broken,
                  "gip_batch_run (nvJPEG warm-up)") == GIP_OK)
        free(data);
    return NULL;
}

/* Before a batch's clock: each of `decoders` decoder states decodes the first file as a batch of
 * batch_size copies (sizing its hardware buffers for such files: a state's first call takes
 * nearly twice as long as the next ones), then each of `encoders` encoder states encodes the
 * decoded image once, all at once on as many threads (a state's first encode is ten times slower
 * or more than the next ones). */
static gip_status codec_warm(void *user, gip_context *ctx, const void *data, size_t size,
                             const gip_load_params *params, const gip_save_params *save,
                             int32_t batch_size, int32_t decoders, int32_t encoders)
{
    static const char op[] = "gip_batch_run (nvJPEG warm-up)";
    (void)user;
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA || !data || !size)
        return GIP_OK;
    gip_load_params lp = {0};
    if (params)
        lp = *params;
    int32_t nd = decoders < 0 ? 0 : decoders > 32 ? 32 : decoders;
    int32_t ne = encoders < 0 ? 0 : encoders > 32 ? 32 : encoders;
    int32_t n = batch_size < 1 ? 1 : batch_size > 64 ? 64 : batch_size;
    const uint8_t *d[64];
    size_t sz[64];
    gip_image outs[64], sample = {0};
    bool fb[64];
    for (int32_t k = 0; k < n; k++) {
        d[k] = data;
        sz[k] = size;
    }
    gip_status st = GIP_OK;
    dec_state *ds[32] = {0};
    for (int32_t i = 0; i < nd && !st; i++)
        st = dec_state_acquire(ctx, &ds[i], op);
    for (int32_t i = 0; i < nd && ds[i] && !st; i++) {
        st = decode_nv(ctx, ds[i], n, d, sz, &lp, outs, fb, op);
        for (int32_t k = 0; k < n; k++) {
            if (!st && !sample.data && !fb[k])
                sample = outs[k];
            else
                gip_image_free(ctx, &outs[k]);
        }
    }
    for (int32_t i = 0; i < nd; i++) {
        if (ds[i] && st == GIP_ERR_DEVICE)
            dec_state_free(ds[i]);
        else if (ds[i])
            dec_state_release(ds[i]);
    }
    /* Encoders only for what codec_encode gives nvJPEG: baseline JPEG. */
    if (st || !sample.data || !save || save->format != GIP_FORMAT_JPEG || save->progressive ||
        !ne) {
        gip_image_free(ctx, &sample);
        return st;
    }
    enc_state *es[32] = {0};
    warm_job jobs[32] = {0};
    pthread_t th[32];
    bool started[32] = {0};
    for (int32_t i = 0; i < ne && !st; i++)
        st = enc_state_acquire(ctx, &es[i], op);
    for (int32_t i = 0; i < ne && es[i]; i++) {
        jobs[i] = (warm_job){ctx,
                             es[i],
                             &sample,
                             save->quality ? save->quality : 95,
                             save->subsampling ? save->subsampling : GIP_SUBSAMPLING_420,
                             save->bgr != 0,
                             false};
        started[i] = pthread_create(&th[i], NULL, warm_encode, &jobs[i]) == 0;
        if (!started[i])
            warm_encode(&jobs[i]);
    }
    for (int32_t i = 0; i < ne && es[i]; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        if (jobs[i].broken)
            enc_state_free(es[i]);
        else
            enc_state_release(es[i]);
    }
    gip_image_free(ctx, &sample);
    return st;
}

static gip_status codec_encode(void *user, gip_context *ctx, const gip_image *img,
                               const gip_save_params *params, void **data, size_t *size)
{
    if (img->memory == GIP_MEM_CUDA) {
        if (params->format == GIP_FORMAT_JPEG && img->dtype == GIP_U8 &&
            (img->channels == 1 || img->channels == 3) && !params->progressive)
            return gip_jpeg_encode_device(ctx, img, params, data, size);
        /* Other formats: download and encode on the CPU. */
        gip_image host = {0};
        gip_status st;
        if (!(st = gip_image_alloc(NULL, &host, img->width, img->height, img->channels, img->dtype,
                                   GIP_MEM_HOST, 0)) &&
            !(st = gip_download(ctx, img, &host)) && !(st = gip_context_sync(ctx)))
            st = gip_image_encode(&host, params, data, size);
        gip_image_free(NULL, &host);
        return st;
    }
    return gip_image_encode(img, params, data, size);
}
#endif

gip_status gip_nvjpeg_codec(gip_batch_codec *codec)
{
    if (!codec)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_nvjpeg_codec: codec is NULL");
#ifndef GIP_HAVE_NVJPEG
    return not_built(NULL, "gip_nvjpeg_codec");
#else
    memset(codec, 0, sizeof *codec);
    codec->decode = codec_decode;
    codec->encode = codec_encode;
    codec->encode_device = 1;
    codec->decode_batch = codec_decode_batch;
    codec->batch_size = 16; /* 8 and 32 gave a fifth fewer images/s (64 4K files) */
    codec->prepare = codec_prepare;
    codec->warm = codec_warm;
    return GIP_OK;
#endif
}

const char *gip_nvjpeg_backend(void)
{
    return gip__nvjpeg_backend_name();
}
