/* SPDX-License-Identifier: MIT */
/* The GPU backend of map and stencil expressions: generated CUDA compiled through NVRTC and the
 * disk cache, kept loaded for the process, launched on the context's stream. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"
#include "expr.h"
#include "module.h"

/* Expression kernels loaded in this process, keyed by generated source and compute capability. */
typedef struct loaded {
    uint64_t hash;
    char *source;
    int cc;
    gip_module *module;
    gip_kernel *kernel;     /* "gip_expr" */
    gip_kernel *kernel_vec; /* map only: "gip_expr_vec", NULL otherwise */
    struct loaded *next;
} loaded;

static pthread_mutex_t loaded_lock = PTHREAD_MUTEX_INITIALIZER;
static loaded *loaded_head;

extern "C" void gip_expr_cache_release(void)
{
    pthread_mutex_lock(&loaded_lock);
    loaded *l = loaded_head;
    loaded_head = NULL;
    pthread_mutex_unlock(&loaded_lock);
    while (l) {
        loaded *next = l->next;
        gip_module_free(l->module);
        free(l->source);
        free(l);
        l = next;
    }
}

static gip_status get_kernel(gip_context *ctx, const char *op, char *source, int cc, bool map,
                             gip_kernel **out, gip_kernel **out_vec)
{
    uint64_t hash = gip__fnv1a64(source, strlen(source), GIP__FNV_OFFSET);
    gip_status st = GIP_OK;
    pthread_mutex_lock(&loaded_lock);
    for (loaded *l = loaded_head; l; l = l->next)
        if (l->hash == hash && l->cc == cc && strcmp(l->source, source) == 0) {
            *out = l->kernel;
            *out_vec = l->kernel_vec;
            free(source);
            goto out_unlock;
        }
    {
        /* FMA contraction off as well as the explicitly rounded intrinsics: the CPU never fuses. */
        static const char *const options[] = {"--fmad=false"};
        gip_module *m = NULL;
        gip_kernel *k = NULL, *kv = NULL;
        loaded *l = (loaded *)calloc(1, sizeof *l);
        if (!l) {
            free(source);
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
            goto out_unlock;
        }
        st = gip__module_build(ctx, op, source, "gip_expr.cu", options, 1, NULL, 0, 0, &m);
        if (!st)
            st = gip__module_kernel(m, op, ctx, "gip_expr", &k);
        if (!st && map)
            st = gip__module_kernel(m, op, ctx, "gip_expr_vec", &kv);
        if (st) {
            gip_module_free(m);
            free(source);
            free(l);
            goto out_unlock;
        }
        l->hash = hash;
        l->source = source;
        l->cc = cc;
        l->module = m;
        l->kernel = k;
        l->kernel_vec = kv;
        l->next = loaded_head;
        loaded_head = l;
        *out = k;
        *out_vec = kv;
    }
out_unlock:
    pthread_mutex_unlock(&loaded_lock);
    return st;
}

extern "C" gip_status gip__expr_run_cuda(gip_context *ctx, const char *op, const gip__expr_job *job)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    int major = 0, minor = 0;
    if ((st = gip__cuda_compute_capability(ctx, &major, &minor)))
        return st;
    char *source = gip__expr_cuda_source(job);
    if (!source)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    /* The generator states the layout on the first line (see expr_codegen.c). */
    char layout[16] = "";
    int vec = 0, tile_w = 0, tile_h = 0, block_w = 0, block_h = 0;
    if (sscanf(source, "// gip_expr layout=%15s", layout) != 1 ||
        (strcmp(layout, "map") == 0 &&
         sscanf(source, "// gip_expr layout=map vec=%d", &vec) != 1) ||
        (strcmp(layout, "tile") == 0 &&
         sscanf(source, "// gip_expr layout=tile tile=%dx%d block=%dx%d", &tile_w, &tile_h,
                &block_w, &block_h) != 4)) {
        free(source);
        return gip__error(ctx, GIP_ERR_INTERNAL, "%s: generated source lacks its layout line", op);
    }
    const bool map = strcmp(layout, "map") == 0;
    gip_kernel *k = NULL, *kv = NULL;
    if ((st = get_kernel(ctx, op, source, major * 10 + minor, map, &k, &kv)))
        return st;

    /* Parameters: (data, stride) per input, (data, stride) of the output, W, H, params. */
    void *ptrs[2 * GIP_EXPR_MAX_INPUTS + 2];
    long long strides[GIP_EXPR_MAX_INPUTS + 1];
    void *params[2 * GIP_EXPR_MAX_INPUTS + 5];
    uint32_t sizes[2 * GIP_EXPR_MAX_INPUTS + 5];
    int n = 0;
    /* 16-byte vectors need every array the kernel touches to start its rows on 16 bytes. */
    bool aligned = true;
    for (int i = 0; i <= job->n_inputs; i++) {
        const gip_image *img = i < job->n_inputs ? &job->inputs[i] : job->dst;
        ptrs[i] = img->data;
        strides[i] = img->stride;
        params[n] = &ptrs[i];
        sizes[n++] = sizeof(void *);
        params[n] = &strides[i];
        sizes[n++] = sizeof(long long);
        if ((i == job->n_inputs || (job->e->inputs_used & (1u << i))) &&
            (((uintptr_t)img->data | (uint64_t)img->stride) & 15) != 0)
            aligned = false;
    }
    int W = (int)job->dst->width, H = (int)job->dst->height;
    gip__expr_gpu_params prm;
    memcpy(prm.scalar, job->scalars, sizeof prm.scalar);
    memcpy(prm.border, job->border_value, sizeof prm.border);
    params[n] = &W;
    sizes[n++] = sizeof(int);
    params[n] = &H;
    sizes[n++] = sizeof(int);
    params[n] = &prm;
    sizes[n++] = sizeof prm;

    int64_t wc = job->dst->width * job->dst->channels;
    uint32_t block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    if (strcmp(layout, "tile") == 0) {
        /* One block per tile_w x tile_h outputs; blocks loop over rows past 65535 tiles. */
        block[0] = (uint32_t)block_w;
        block[1] = (uint32_t)block_h;
        grid[0] = gip__div_up(wc, tile_w);
        int64_t gy = gip__div_up(job->dst->height, tile_h);
        grid[1] = (uint32_t)(gy < 65535 ? gy : 65535);
    } else {
        /* map: a thread per `vec` elements; direct: a thread per element. Narrow rows get
         * several rows per block. */
        int64_t units = map ? (wc + vec - 1) / vec : wc;
        uint32_t bx = units >= 256 ? 256 : (uint32_t)((units + 31) / 32 * 32);
        block[0] = bx;
        block[1] = 256 / bx;
        grid[0] = gip__div_up(units, bx);
        int64_t gy = gip__div_up(job->dst->height, block[1]);
        grid[1] = (uint32_t)(gy < 65535 ? gy : 65535);
    }
    return gip__cuda_kernel_launch(ctx, op, map && aligned ? kv : k, grid, block, 0, params, sizes,
                                   n);
}
