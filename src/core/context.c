/* SPDX-License-Identifier: MIT */
/* Contexts (backend choice, CPU threads, CUDA stream), version and device queries. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GIP__STR2(x) #x
#define GIP__STR(x) GIP__STR2(x)

const char *gip_version(void)
{
    return GIP__STR(GIP_VERSION_MAJOR) "." GIP__STR(GIP_VERSION_MINOR) "." GIP__STR(
        GIP_VERSION_PATCH);
}

/* What the build holds, the CPU's libraries first: "gip 0.1.0 (CPU: FFTW3, libjpeg-turbo, libpng;
 * CUDA 13.0: cuFFT, NVRTC, nvJPEG)", or "...; no CUDA backend)" where CUDA was not built. */
#ifdef GIP_HAVE_NVJPEG
#define GIP__BUILD_NVJPEG ", nvJPEG"
#else
#define GIP__BUILD_NVJPEG ""
#endif
#ifdef GIP_HAVE_CUDA
#define GIP__BUILD_CUDA "CUDA " GIP__STR(GIP_CUDA_VERSION_STRING) ": cuFFT, NVRTC" GIP__BUILD_NVJPEG
#else
#define GIP__BUILD_CUDA "no CUDA backend"
#endif

const char *gip_build_info(void)
{
    return "gip " GIP__STR(GIP_VERSION_MAJOR) "." GIP__STR(GIP_VERSION_MINOR) "." GIP__STR(
        GIP_VERSION_PATCH) " (CPU: FFTW3, libjpeg-turbo, libpng; " GIP__BUILD_CUDA ")";
}

static char unavailable_reason[256];

gip_status gip_device_count(int32_t *count)
{
    if (!count)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_device_count: count is NULL");
    char reason[256] = "";
    gip_status st = gip__cuda_probe(count, reason, sizeof reason);
    if (st)
        return st;
    if (*count == 0) {
        snprintf(unavailable_reason, sizeof unavailable_reason, "%s", reason);
        return GIP_OK;
    }
    /* Devices exist; say why none is usable if that is the case. */
    unavailable_reason[0] = '\0';
    for (int32_t i = 0; i < *count; i++) {
        gip_device_info info;
        if (gip__cuda_device_info(i, &info) == GIP_OK && info.usable)
            return GIP_OK;
        if (!unavailable_reason[0])
            snprintf(unavailable_reason, sizeof unavailable_reason, "device %d (%s): %s", (int)i,
                     info.name, info.reason);
    }
    return GIP_OK;
}

gip_status gip_device_get_info(int32_t index, gip_device_info *info)
{
    if (!info)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_device_get_info: info is NULL");
    int32_t count = 0;
    gip_status st = gip_device_count(&count);
    if (st)
        return st;
    if (index < 0 || index >= count)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_device_get_info: device %d does not exist (%d CUDA devices%s%s)",
                          (int)index, (int)count, count ? "" : ": ",
                          count ? "" : unavailable_reason);
    return gip__cuda_device_info(index, info);
}

const char *gip_device_unavailable_reason(void)
{
    int32_t count;
    gip_device_count(&count);
    return unavailable_reason;
}

gip_status gip_context_create(const gip_context_desc *desc, gip_context **out)
{
    static const char op[] = "gip_context_create";
    if (!out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: out is NULL", op);
    *out = NULL;
    gip_context_desc d = {0};
    if (desc)
        d = *desc;
    if (d.backend != GIP_BACKEND_AUTO && d.backend != GIP_BACKEND_CPU &&
        d.backend != GIP_BACKEND_CUDA)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: backend %d is invalid: AUTO (0), CPU (1) or CUDA (2)", op,
                          (int)d.backend);
    if (d.device < 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: device %d is negative", op,
                          (int)d.device);
    if (d.threads < 0 || d.threads > 4096)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: threads %d is invalid: 0 (default) or 1..4096", op, (int)d.threads);
    if (d.flags)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: flags must be 0", op);

    gip_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    ctx->threads = d.threads ? d.threads : gip__default_threads();
    ctx->device = -1;

    char why_cpu[256] = "";
    if (d.backend != GIP_BACKEND_CPU) {
        int32_t count = 0;
        gip_status st = gip__cuda_probe(&count, why_cpu, sizeof why_cpu);
        gip_device_info info;
        if (st == GIP_OK && count > 0) {
            if (d.device >= count) {
                snprintf(why_cpu, sizeof why_cpu, "device %d requested but only %d present",
                         (int)d.device, (int)count);
            } else if ((st = gip__cuda_device_info(d.device, &info)) == GIP_OK && !info.usable) {
                snprintf(why_cpu, sizeof why_cpu, "device %d (%s): %s", (int)d.device, info.name,
                         info.reason);
            } else if (st == GIP_OK) {
                ctx->backend = GIP_BACKEND_CUDA;
                ctx->device = d.device;
                st = gip__cuda_context_init(ctx);
                if (st) {
                    if (d.backend == GIP_BACKEND_CUDA) {
                        free(ctx);
                        return st;
                    }
                    snprintf(why_cpu, sizeof why_cpu, "%s", gip_last_error());
                    ctx->backend = GIP_BACKEND_CPU;
                    ctx->device = -1;
                }
            }
        }
        if (ctx->backend != GIP_BACKEND_CUDA && d.backend == GIP_BACKEND_CUDA) {
            free(ctx);
#ifdef GIP_HAVE_CUDA
            return gip__error(NULL, GIP_ERR_NO_DEVICE,
                              "%s: CUDA backend requested but no usable CUDA device: %s", op,
                              why_cpu);
#else
            return gip__error(NULL, GIP_ERR_NOT_BUILT,
                              "%s: CUDA backend requested but gip was built without CUDA", op);
#endif
        }
    }
    if (ctx->backend != GIP_BACKEND_CUDA) {
        ctx->backend = GIP_BACKEND_CPU;
        if (d.backend == GIP_BACKEND_AUTO)
            snprintf(ctx->describe, sizeof ctx->describe, "CPU, %d threads (no CUDA device: %s)",
                     (int)ctx->threads, why_cpu);
        else
            snprintf(ctx->describe, sizeof ctx->describe, "CPU, %d threads", (int)ctx->threads);
    }
    *out = ctx;
    return GIP_OK;
}

/* Guards every context's list of release hooks (registrations are rare: once per cache). */
static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;

gip_status gip__context_on_release(gip_context *ctx, gip__release_fn fn)
{
    if (!ctx || !fn)
        return GIP_OK;
    gip_status st = GIP_OK;
    pthread_mutex_lock(&release_lock);
    int32_t i = 0;
    while (i < ctx->nrelease && ctx->release[i] != fn)
        i++;
    if (i == ctx->nrelease) {
        if (i < GIP__RELEASE_HOOKS)
            ctx->release[ctx->nrelease++] = fn;
        else
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                            "context: more than %d caches keep state for one context",
                            GIP__RELEASE_HOOKS);
    }
    pthread_mutex_unlock(&release_lock);
    return st;
}

void gip_context_destroy(gip_context *ctx)
{
    if (!ctx)
        return;
    /* Cached plans and buffers first: they may need the stream. */
    pthread_mutex_lock(&release_lock);
    int32_t n = ctx->nrelease;
    ctx->nrelease = 0;
    pthread_mutex_unlock(&release_lock);
    while (n > 0)
        ctx->release[--n](ctx);
    if (ctx->backend == GIP_BACKEND_CUDA)
        gip__cuda_context_fini(ctx);
    free(ctx);
}

gip_backend gip_context_backend(const gip_context *ctx)
{
    return ctx ? ctx->backend : GIP_BACKEND_CPU;
}

int32_t gip_context_device(const gip_context *ctx)
{
    return ctx ? ctx->device : -1;
}

int32_t gip_context_threads(const gip_context *ctx)
{
    return ctx ? ctx->threads : gip__default_threads();
}

gip_status gip_context_set_threads(gip_context *ctx, int32_t threads)
{
    if (!ctx)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_context_set_threads: ctx is NULL");
    if (threads < 0 || threads > 4096)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "gip_context_set_threads: threads %d is invalid: 0 or 1..4096",
                          (int)threads);
    ctx->threads = threads ? threads : gip__default_threads();
    if (ctx->backend == GIP_BACKEND_CPU) {
        /* Keep the description's thread count true. */
        char *paren = strstr(ctx->describe, " threads");
        char tail[384];
        snprintf(tail, sizeof tail, "%s", paren ? paren : " threads");
        snprintf(ctx->describe, sizeof ctx->describe, "CPU, %d%s", (int)ctx->threads, tail);
    }
    return GIP_OK;
}

const char *gip_context_describe(const gip_context *ctx)
{
    return ctx ? ctx->describe : "(no context)";
}

const char *gip_context_error(const gip_context *ctx)
{
    return ctx ? ctx->error : "";
}

void *gip_context_stream(const gip_context *ctx)
{
    return ctx ? ctx->stream : NULL;
}

gip_status gip_context_sync(gip_context *ctx)
{
    gip_status st = gip__ctx_check(ctx, "gip_context_sync");
    if (st)
        return st;
    if (ctx->backend != GIP_BACKEND_CUDA)
        return GIP_OK;
    if ((st = gip__cuda_enter(ctx)))
        return st;
    return gip__cuda_sync(ctx);
}

gip_status gip_context_set_device_memory_limit(gip_context *ctx, int64_t bytes)
{
    static const char op[] = "gip_context_set_device_memory_limit";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (bytes < 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: bytes is %lld; give a size >= 0 (0 removes the limit)", op,
                          (long long)bytes);
    if (ctx->backend != GIP_BACKEND_CUDA)
        return gip__error(ctx, GIP_ERR_NO_DEVICE, "%s: the context is a CPU context (%s)", op,
                          ctx->describe);
    if (!ctx->pool)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: device %d has no stream-ordered memory pools, so gip cannot count "
                          "its allocations",
                          op, (int)ctx->device);
    ctx->device_memory_limit = bytes;
    return GIP_OK;
}

int64_t gip_context_device_memory_used(const gip_context *ctx)
{
    return ctx && ctx->backend == GIP_BACKEND_CUDA ? gip__cuda_memory_used(ctx) : 0;
}

gip_status gip_context_status(const gip_context *ctx)
{
    if (!ctx)
        return GIP_ERR_INVALID_ARGUMENT;
    return ctx->bad ? GIP_ERR_BAD_STATE : GIP_OK;
}
