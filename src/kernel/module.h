/* SPDX-License-Identifier: MIT */
/* Private side of raw CUDA modules: the module and kernel structures, the disk cache of compiled
 * code and the CUDA backend prototypes shared by module.c, module_cuda.cu and the expressions. */
#ifndef GIP_KERNEL_MODULE_H
#define GIP_KERNEL_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gip/kernel.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most parameters a kernel may take (what gip_kernel_launch expands arguments into). */
#define GIP__MAX_PARAMS 128

struct gip_kernel {
    gip_module *module;
    void *handle;     /* cudaKernel_t */
    int32_t n_params; /* from the kernel's signature; -1 when the driver cannot say */
    uint32_t param_size[GIP__MAX_PARAMS];
    struct gip_kernel *next;
    char name[];
};

struct gip_module {
    void *library; /* cudaLibrary_t */
    gip_module_info info;
    gip_kernel *kernels;
    void *lock; /* pthread_mutex_t * guarding kernels */
};

/* ---- cache.c: FNV-1a hashing and the disk cache of compiled code. ---------------------------- */
#define GIP__FNV_OFFSET 0xcbf29ce484222325ull
uint64_t gip__fnv1a64(const void *data, size_t n, uint64_t h);

/* Payload kinds stored in cache entries. */
#define GIP__CACHE_CUBIN 1u
#define GIP__CACHE_PTX 2u

/* Looks up the entry whose key material is `key` (key_len bytes). On a hit returns true with a
 * malloc'ed payload the caller frees. A missing entry returns false; a present but unusable one
 * (corrupt, truncated, foreign, other key) counts as rejected and returns false. */
bool gip__cache_load(const char *key, size_t key_len, uint32_t kind, void **payload, size_t *len);
/* Writes an entry atomically (temporary file + rename); failures only count in the stats. */
void gip__cache_store(const char *key, size_t key_len, uint32_t kind, const void *payload,
                      size_t len);
/* Counts a compilation done because no entry could be used. */
void gip__cache_count_miss(void);
/* Writes the cache folder path into buf; false when none can be derived. */
bool gip__cache_dir(char *buf, size_t size);

/* ---- module_cuda.cu: the CUDA side. ---------------------------------------------------------- */
/* The compute capability of the context's device (entered by the caller). */
gip_status gip__cuda_compute_capability(gip_context *ctx, int *major, int *minor);
/* Compiles (or loads from the cache) `source` for the context's device and fills `m`. `op` names
 * the public function for messages. options: already complete extra NVRTC options. */
gip_status gip__cuda_module_build(gip_context *ctx, const char *op, const char *source,
                                  const char *name, const char *const *options, int32_t n_options,
                                  const char *const *include_paths, int32_t n_include_paths,
                                  uint32_t flags, gip_module *m);
void gip__cuda_module_unload(gip_module *m);
/* Finds kernel `name` and reads its parameter layout into k (k->name is set by the caller). */
gip_status gip__cuda_module_find(gip_module *m, const char *name, gip_kernel *k);
/* Launches k with parameter pointers `params` (n entries of the given sizes) on ctx's stream. */
gip_status gip__cuda_kernel_launch(gip_context *ctx, const char *op, const gip_kernel *k,
                                   const uint32_t grid[3], const uint32_t block[3],
                                   uint32_t shared_bytes, void **params, const uint32_t *sizes,
                                   int32_t n);

/* ---- module.c: shared by the expression backend. --------------------------------------------- */
/* Builds a module: allocates it and calls the CUDA side. */
gip_status gip__module_build(gip_context *ctx, const char *op, const char *source, const char *name,
                             const char *const *options, int32_t n_options,
                             const char *const *include_paths, int32_t n_include_paths,
                             uint32_t flags, gip_module **out);
gip_status gip__module_kernel(gip_module *m, const char *op, gip_context *ctx, const char *name,
                              gip_kernel **out);

#ifdef __cplusplus
}
#endif
#endif
