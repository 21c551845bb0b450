/* SPDX-License-Identifier: MIT */
/* Public entry of raw CUDA modules: argument checks, the typed argument list expanded into kernel
 * parameters, launch geometry; the CUDA work is in module_cuda.cu. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

static gip_status need_device(gip_context *ctx, const char *op)
{
#ifdef GIP_HAVE_CUDA
    return gip__error(ctx, GIP_ERR_NO_DEVICE,
                      "%s: raw CUDA modules need a CUDA device; this context runs on the CPU "
                      "(map and stencil expressions run on both)",
                      op);
#else
    return gip__error(ctx, GIP_ERR_NO_DEVICE,
                      "%s: raw CUDA modules need a CUDA device; this gip was built without CUDA "
                      "(map and stencil expressions run on the CPU)",
                      op);
#endif
}

gip_status gip__module_build(gip_context *ctx, const char *op, const char *source, const char *name,
                             const char *const *options, int32_t n_options,
                             const char *const *include_paths, int32_t n_include_paths,
                             uint32_t flags, gip_module **out)
{
#ifdef GIP_HAVE_CUDA
    gip_module *m = calloc(1, sizeof *m);
    pthread_mutex_t *lock = malloc(sizeof *lock);
    if (!m || !lock) {
        free(m);
        free(lock);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    }
    pthread_mutex_init(lock, NULL);
    m->lock = lock;
    gip_status st = gip__cuda_module_build(ctx, op, source, name, options, n_options, include_paths,
                                           n_include_paths, flags, m);
    if (st) {
        pthread_mutex_destroy(lock);
        free(lock);
        free(m);
        return st;
    }
    *out = m;
    return GIP_OK;
#else
    (void)source, (void)name, (void)options, (void)n_options, (void)include_paths;
    (void)n_include_paths, (void)flags, (void)out;
    return need_device(ctx, op);
#endif
}

gip_status gip_module_compile(gip_context *ctx, const char *source, const char *name_for_errors,
                              const gip_compile_options *options, gip_module **out)
{
    static const char op[] = "gip_module_compile";
    if (out)
        *out = NULL;
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (!out)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: out is NULL", op);
    if (!source)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: source is NULL", op);
    gip_compile_options o = {0};
    if (options)
        o = *options;
    if (o.n_options < 0 || o.n_include_paths < 0 || (o.n_options > 0 && !o.options) ||
        (o.n_include_paths > 0 && !o.include_paths))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: option counts must be >= 0 with non-NULL arrays (%d options, %d "
                          "include paths)",
                          op, (int)o.n_options, (int)o.n_include_paths);
    if (o.n_options > 256 || o.n_include_paths > 256)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: at most 256 options and 256 include "
                          "paths",
                          op);
    for (int32_t i = 0; i < o.n_options; i++) {
        if (!o.options[i])
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: options[%d] is NULL", op, (int)i);
        if (strncmp(o.options[i], "--gpu-architecture", 18) == 0 ||
            strncmp(o.options[i], "-arch", 5) == 0)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: options[%d] '%s': gip chooses the architecture from the "
                              "context's device; leave it out",
                              op, (int)i, o.options[i]);
    }
    for (int32_t i = 0; i < o.n_include_paths; i++)
        if (!o.include_paths[i])
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: include_paths[%d] is NULL", op,
                              (int)i);
    if (o.flags & ~GIP_COMPILE_NO_CACHE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op,
                          (unsigned)(o.flags & ~GIP_COMPILE_NO_CACHE));
    if (ctx->backend != GIP_BACKEND_CUDA)
        return need_device(ctx, op);
    return gip__module_build(ctx, op, source, name_for_errors ? name_for_errors : "kernel.cu",
                             o.options, o.n_options, o.include_paths, o.n_include_paths, o.flags,
                             out);
}

void gip_module_free(gip_module *module)
{
    if (!module)
        return;
#ifdef GIP_HAVE_CUDA
    gip__cuda_module_unload(module);
#endif
    for (gip_kernel *k = module->kernels, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    pthread_mutex_destroy(module->lock);
    free(module->lock);
    free(module);
}

gip_status gip_module_get_info(const gip_module *module, gip_module_info *info)
{
    if (!module || !info)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_module_get_info: %s is NULL",
                          module ? "info" : "module");
    *info = module->info;
    return GIP_OK;
}

gip_status gip__module_kernel(gip_module *m, const char *op, gip_context *ctx, const char *name,
                              gip_kernel **out)
{
    gip_status st = GIP_OK;
    pthread_mutex_lock(m->lock);
    for (gip_kernel *k = m->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) {
            *out = k;
            goto out_unlock;
        }
    size_t len = strlen(name);
    gip_kernel *k = calloc(1, sizeof *k + len + 1);
    if (!k) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out_unlock;
    }
    memcpy(k->name, name, len + 1);
    k->module = m;
#ifdef GIP_HAVE_CUDA
    st = gip__cuda_module_find(m, name, k);
#else
    st = need_device(ctx, op);
#endif
    if (st) {
        free(k);
        goto out_unlock;
    }
    k->next = m->kernels;
    m->kernels = k;
    *out = k;
out_unlock:
    pthread_mutex_unlock(m->lock);
    return st;
}

gip_status gip_module_get_kernel(gip_module *module, const char *name, gip_kernel **out)
{
    static const char op[] = "gip_module_get_kernel";
    if (out)
        *out = NULL;
    if (!module || !name || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !module ? "module"
                          : !name ? "name"
                                  : "out");
    if (!name[0] || strlen(name) > 1024)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel name must be 1..1024 characters", op);
    return gip__module_kernel(module, op, NULL, name, out);
}

/* The parameter values of one launch: every argument expanded, stored in place. */
typedef struct launch_params {
    union {
        void *p;
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
    } value[GIP__MAX_PARAMS];
    void *ptr[GIP__MAX_PARAMS];
    uint32_t size[GIP__MAX_PARAMS];
    int32_t n;
} launch_params;

static gip_status push(gip_context *ctx, const char *op, launch_params *lp, uint32_t size)
{
    if (lp->n >= GIP__MAX_PARAMS)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: arguments expand to more than %d kernel parameters", op,
                          GIP__MAX_PARAMS);
    lp->ptr[lp->n] = &lp->value[lp->n];
    lp->size[lp->n] = size;
    lp->n++;
    return GIP_OK;
}

gip_status gip_kernel_launch(gip_context *ctx, const gip_kernel *kernel,
                             const gip_launch_config *config, const gip_kernel_arg *args,
                             int32_t count)
{
    static const char op[] = "gip_kernel_launch";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (!kernel)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: kernel is NULL", op);
    if (count < 0 || (count > 0 && !args))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: count %d must be >= 0 with a non-NULL args array", op, (int)count);
    if (ctx->backend != GIP_BACKEND_CUDA)
        return need_device(ctx, op);
    gip_launch_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (config)
        cfg = *config;

    launch_params *lp = calloc(1, sizeof *lp);
    if (!lp)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    const gip_image *first_image = NULL;
    for (int32_t i = 0; i < count && !st; i++) {
        const gip_kernel_arg *a = &args[i];
        int32_t at = lp->n;
        switch (a->type) {
        case GIP_ARG_PTR:
            if (!(st = push(ctx, op, lp, sizeof(void *))))
                lp->value[at].p = a->v.ptr;
            break;
        case GIP_ARG_I32:
            if (!(st = push(ctx, op, lp, 4)))
                lp->value[at].i32 = a->v.i32;
            break;
        case GIP_ARG_I64:
            if (!(st = push(ctx, op, lp, 8)))
                lp->value[at].i64 = a->v.i64;
            break;
        case GIP_ARG_F32:
            if (!(st = push(ctx, op, lp, 4)))
                lp->value[at].f32 = a->v.f32;
            break;
        case GIP_ARG_F64:
            if (!(st = push(ctx, op, lp, 8)))
                lp->value[at].f64 = a->v.f64;
            break;
        case GIP_ARG_IMAGE: {
            const gip_image *img = a->v.image;
            if (!img) {
                st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: args[%d] image is NULL", op,
                                (int)i);
                break;
            }
            char what[32];
            snprintf(what, sizeof what, "args[%d]", (int)i);
            if ((st = gip__image_check_ctx(ctx, img, op, what)))
                break;
            if (img->memory != GIP_MEM_CUDA) {
                st = gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                                "%s: args[%d] is a host image; kernels need device images "
                                "(gip_upload() it first)",
                                op, (int)i);
                break;
            }
            if (img->width > INT32_MAX || img->height > INT32_MAX) {
                st = gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: args[%d] is too large", op, (int)i);
                break;
            }
            if (!first_image)
                first_image = img;
            if ((st = push(ctx, op, lp, sizeof(void *))))
                break;
            lp->value[at].p = img->data;
            if ((st = push(ctx, op, lp, 4)))
                break;
            lp->value[at + 1].i32 = (int32_t)img->width;
            if ((st = push(ctx, op, lp, 4)))
                break;
            lp->value[at + 2].i32 = (int32_t)img->height;
            if ((st = push(ctx, op, lp, 8)))
                break;
            lp->value[at + 3].i64 = img->stride;
            if ((st = push(ctx, op, lp, 4)))
                break;
            lp->value[at + 4].i32 = img->channels;
            break;
        }
        default:
            st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                            "%s: args[%d] has type %d: GIP_ARG_PTR, IMAGE, I32, I64, F32 or F64",
                            op, (int)i, (int)a->type);
            break;
        }
    }
    if (st)
        goto out_free;

    uint32_t block[3] = {cfg.block[0], cfg.block[1], cfg.block[2]};
    if (block[0] == 0) {
        if (block[1] || block[2]) {
            st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                            "%s: block[0] is 0 (default 16x16) but block[1..2] are set", op);
            goto out_free;
        }
        block[0] = block[1] = 16;
        block[2] = 1;
    }
    block[1] = block[1] ? block[1] : 1;
    block[2] = block[2] ? block[2] : 1;
    uint32_t grid[3] = {cfg.grid[0], cfg.grid[1], cfg.grid[2]};
    if (grid[0] == 0) {
        const gip_image *size_img = cfg.size_from ? cfg.size_from : first_image;
        if (grid[1] || grid[2]) {
            st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                            "%s: grid[0] is 0 (computed) but grid[1..2] are set", op);
            goto out_free;
        }
        if (!size_img) {
            st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                            "%s: the grid is to be computed from an image but there is none: "
                            "set config->grid, config->size_from or pass a GIP_ARG_IMAGE",
                            op);
            goto out_free;
        }
        if (cfg.size_from && (st = gip_image_check(cfg.size_from, "config->size_from")))
            goto out_free;
        int64_t gx = (size_img->width + block[0] - 1) / block[0];
        int64_t gy = (size_img->height + block[1] - 1) / block[1];
        if (gx > INT32_MAX || gy > 65535) {
            st = gip__error(ctx, GIP_ERR_TOO_LARGE,
                            "%s: a grid of %lld x %lld blocks for a %lld x %lld image exceeds "
                            "CUDA's limits (x < 2^31, y <= 65535); give the grid explicitly",
                            op, (long long)gx, (long long)gy, (long long)size_img->width,
                            (long long)size_img->height);
            goto out_free;
        }
        grid[0] = (uint32_t)gx;
        grid[1] = (uint32_t)gy;
        grid[2] = 1;
    }
    grid[1] = grid[1] ? grid[1] : 1;
    grid[2] = grid[2] ? grid[2] : 1;
#ifdef GIP_HAVE_CUDA
    st = gip__cuda_kernel_launch(ctx, op, kernel, grid, block, cfg.shared_bytes, lp->ptr, lp->size,
                                 lp->n);
#endif
out_free:
    free(lp);
    return st;
}
