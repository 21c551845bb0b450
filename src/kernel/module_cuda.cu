/* SPDX-License-Identifier: MIT */
/* The CUDA side of raw modules: NVRTC compilation for the device's compute capability through the
 * disk cache, loading with the runtime's library API (no direct libcuda link), kernel lookup with
 * the parameter layout, and checked launches on the context's stream. */
#include <dirent.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cuda_util.cuh"
#include "dynlib.h"
#include "module.h"

/* NVRTC, opened by the first module build (core/dynlib.h). */
static struct {
    decltype(&nvrtcVersion) version;
    decltype(&nvrtcGetNumSupportedArchs) get_num_supported_archs;
    decltype(&nvrtcGetSupportedArchs) get_supported_archs;
    decltype(&nvrtcCreateProgram) create_program;
    decltype(&nvrtcCompileProgram) compile_program;
    decltype(&nvrtcGetProgramLogSize) get_program_log_size;
    decltype(&nvrtcGetProgramLog) get_program_log;
    decltype(&nvrtcGetPTXSize) get_ptx_size;
    decltype(&nvrtcGetPTX) get_ptx;
    decltype(&nvrtcGetCUBINSize) get_cubin_size;
    decltype(&nvrtcGetCUBIN) get_cubin;
    decltype(&nvrtcDestroyProgram) destroy_program;
    decltype(&nvrtcGetErrorString) get_error_string;
} rtc;
static const char *const rtc_names[] = {"nvrtcVersion",
                                        "nvrtcGetNumSupportedArchs",
                                        "nvrtcGetSupportedArchs",
                                        "nvrtcCreateProgram",
                                        "nvrtcCompileProgram",
                                        "nvrtcGetProgramLogSize",
                                        "nvrtcGetProgramLog",
                                        "nvrtcGetPTXSize",
                                        "nvrtcGetPTX",
                                        "nvrtcGetCUBINSize",
                                        "nvrtcGetCUBIN",
                                        "nvrtcDestroyProgram",
                                        "nvrtcGetErrorString",
                                        NULL};
static void *const rtc_slots[] = {&rtc.version,
                                  &rtc.get_num_supported_archs,
                                  &rtc.get_supported_archs,
                                  &rtc.create_program,
                                  &rtc.compile_program,
                                  &rtc.get_program_log_size,
                                  &rtc.get_program_log,
                                  &rtc.get_ptx_size,
                                  &rtc.get_ptx,
                                  &rtc.get_cubin_size,
                                  &rtc.get_cubin,
                                  &rtc.destroy_program,
                                  &rtc.get_error_string};
static gip__dynlib rtc_lib = {GIP_NVRTC_SONAME, GIP_NVRTC_DIR, rtc_names, rtc_slots, 0, 0, ""};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A growing string (the cache key material). */
typedef struct strbuf {
    char *p;
    size_t len, cap;
    bool oom;
} strbuf;

static void sb_add(strbuf *sb, const char *s, size_t n)
{
    if (sb->oom)
        return;
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 1024;
        while (cap < sb->len + n + 1)
            cap *= 2;
        char *p = (char *)realloc(sb->p, cap);
        if (!p) {
            sb->oom = true;
            return;
        }
        sb->p = p;
        sb->cap = cap;
    }
    memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    sb->p[sb->len] = '\0';
}

static void sb_str(strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

/* Adds every file under `dir` (name, size, modification time) to the key, so that an edited header
 * in an include path invalidates the entry. Depth and count are bounded; returns false when the
 * bound is hit (the caller then skips the cache rather than trust a partial key). */
static bool hash_tree(strbuf *sb, const char *dir, int depth, int *files)
{
    DIR *d = opendir(dir);
    if (!d) {
        sb_str(sb, "(unreadable)\n");
        return true;
    }
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth >= 4)
                ok = false;
            else
                ok = hash_tree(sb, path, depth + 1, files);
        } else if (S_ISREG(st.st_mode)) {
            if (++*files > 4096) {
                ok = false;
                break;
            }
            char line[4300];
            snprintf(line, sizeof line, "%s %lld %lld.%09ld\n", path, (long long)st.st_size,
                     (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
            sb_str(sb, line);
        }
    }
    closedir(d);
    return ok;
}

/* Picks the code target for compute capability cc (major * 10 + minor): a cubin when NVRTC knows
 * the architecture, else PTX for the newest architecture it knows below it. */
static gip_status pick_target(gip_context *ctx, const char *op, int cc, char *target, size_t size,
                              bool *is_ptx)
{
    int n = 0;
    if (rtc.get_num_supported_archs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256)
        return gip__error(ctx, GIP_ERR_INTERNAL, "%s: NVRTC does not list its architectures", op);
    int archs[256];
    if (rtc.get_supported_archs(archs) != NVRTC_SUCCESS)
        return gip__error(ctx, GIP_ERR_INTERNAL, "%s: NVRTC does not list its architectures", op);
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (archs[i] == cc) {
            snprintf(target, size, "sm_%d", cc);
            *is_ptx = false;
            return GIP_OK;
        }
        if (archs[i] < cc && archs[i] > best)
            best = archs[i];
    }
    if (best < 0)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: the device's compute capability %d.%d is older than every "
                          "architecture this NVRTC compiles for (oldest sm_%d)",
                          op, cc / 10, cc % 10, archs[0]);
    snprintf(target, size, "compute_%d", best);
    *is_ptx = true;
    return GIP_OK;
}

/* Runs NVRTC. On a compile error returns GIP_ERR_INVALID_ARGUMENT with the log in the message. */
static gip_status nvrtc_compile(gip_context *ctx, const char *op, const char *source,
                                const char *name, const char *target, bool is_ptx,
                                const char *const *options, int32_t n_options,
                                const char *const *include_paths, int32_t n_include_paths,
                                char **payload, size_t *payload_len)
{
    gip_status st = GIP_OK;
    int n_all = 1 + n_options + n_include_paths;
    const char **all = (const char **)calloc((size_t)n_all, sizeof *all);
    char **owned = (char **)calloc((size_t)n_include_paths + 1, sizeof *owned);
    char arch[64];
    nvrtcProgram prog = NULL;
    nvrtcResult r;
    size_t log_size = 0, size = 0;
    char *log = NULL, *code = NULL;
    if (!all || !owned) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out_free;
    }
    snprintf(arch, sizeof arch, "--gpu-architecture=%s", target);
    all[0] = arch;
    for (int32_t i = 0; i < n_options; i++)
        all[1 + i] = options[i];
    for (int32_t i = 0; i < n_include_paths; i++) {
        size_t len = strlen(include_paths[i]) + 3;
        if (!(owned[i] = (char *)malloc(len))) {
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
            goto out_free;
        }
        snprintf(owned[i], len, "-I%s", include_paths[i]);
        all[1 + n_options + i] = owned[i];
    }
    r = rtc.create_program(&prog, source, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        st = gip__error(ctx,
                        r == NVRTC_ERROR_OUT_OF_MEMORY ? GIP_ERR_OUT_OF_MEMORY : GIP_ERR_INTERNAL,
                        "%s: nvrtcCreateProgram failed: %s", op, rtc.get_error_string(r));
        goto out_free;
    }
    r = rtc.compile_program(prog, n_all, all);
    if (rtc.get_program_log_size(prog, &log_size) == NVRTC_SUCCESS && log_size > 1 &&
        (log = (char *)malloc(log_size + 1)) != NULL) {
        if (rtc.get_program_log(prog, log) != NVRTC_SUCCESS)
            log[0] = '\0';
        log[log_size] = '\0';
    }
    if (r != NVRTC_SUCCESS) {
        st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                        "%s: NVRTC could not compile %s for %s (%s):\n%s", op, name, target,
                        rtc.get_error_string(r), log && log[0] ? log : "(no log)");
        goto out_destroy;
    }
    r = is_ptx ? rtc.get_ptx_size(prog, &size) : rtc.get_cubin_size(prog, &size);
    if (r != NVRTC_SUCCESS || size == 0) {
        st = gip__error(ctx, GIP_ERR_INTERNAL, "%s: NVRTC produced no code for %s: %s", op, target,
                        rtc.get_error_string(r));
        goto out_destroy;
    }
    if (!(code = (char *)malloc(size + 1))) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out_destroy;
    }
    r = is_ptx ? rtc.get_ptx(prog, code) : rtc.get_cubin(prog, code);
    if (r != NVRTC_SUCCESS) {
        free(code);
        st = gip__error(ctx, GIP_ERR_INTERNAL, "%s: NVRTC failed to return the code: %s", op,
                        rtc.get_error_string(r));
        goto out_destroy;
    }
    code[size] = '\0';
    *payload = code;
    *payload_len = size;
out_destroy:
    rtc.destroy_program(&prog);
out_free:
    free(log);
    if (owned)
        for (int32_t i = 0; i < n_include_paths; i++)
            free(owned[i]);
    free(owned);
    free(all);
    return st;
}

extern "C" gip_status gip__cuda_compute_capability(gip_context *ctx, int *major, int *minor)
{
    gip_status st = gip__cuda_status(
        ctx, cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, ctx->device),
        "cudaDeviceGetAttribute");
    if (st)
        return st;
    return gip__cuda_status(
        ctx, cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, ctx->device),
        "cudaDeviceGetAttribute");
}

extern "C" gip_status gip__cuda_module_build(gip_context *ctx, const char *op, const char *source,
                                             const char *name, const char *const *options,
                                             int32_t n_options, const char *const *include_paths,
                                             int32_t n_include_paths, uint32_t flags, gip_module *m)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st || (st = gip__dynlib_load(ctx, op, &rtc_lib)))
        return st;
    int major = 0, minor = 0;
    if ((st = gip__cuda_compute_capability(ctx, &major, &minor)))
        return st;
    char target[32];
    bool is_ptx = false;
    if ((st = pick_target(ctx, op, major * 10 + minor, target, sizeof target, &is_ptx)))
        return st;

    /* The key: everything that changes the compiled code. */
    int nv_major = 0, nv_minor = 0, rt = 0, drv = 0;
    rtc.version(&nv_major, &nv_minor);
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    strbuf key = {NULL, 0, 0, false};
    char line[256];
    snprintf(line, sizeof line,
             "gip kernel cache 1\ntarget %s\nnvrtc %d.%d\nruntime %d\ndriver %d\n", target,
             nv_major, nv_minor, rt, drv);
    sb_str(&key, line);
    sb_str(&key, "name ");
    sb_str(&key, name);
    for (int32_t i = 0; i < n_options; i++) {
        sb_str(&key, "\noption ");
        sb_str(&key, options[i]);
    }
    bool cacheable = !(flags & GIP_COMPILE_NO_CACHE);
    int files = 0;
    for (int32_t i = 0; i < n_include_paths; i++) {
        sb_str(&key, "\ninclude ");
        sb_str(&key, include_paths[i]);
        sb_str(&key, "\n");
        if (!hash_tree(&key, include_paths[i], 0, &files))
            cacheable = false;
    }
    sb_str(&key, "\nsource\n");
    sb_str(&key, source);
    if (key.oom) {
        free(key.p);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    }

    uint32_t kind = is_ptx ? GIP__CACHE_PTX : GIP__CACHE_CUBIN;
    void *payload = NULL;
    size_t payload_len = 0;
    double t0 = now_seconds(), t_compile = 0;
    bool hit = cacheable && gip__cache_load(key.p, key.len, kind, &payload, &payload_len);
    if (!hit) {
        gip__cache_count_miss();
        char *code = NULL;
        st = nvrtc_compile(ctx, op, source, name, target, is_ptx, options, n_options, include_paths,
                           n_include_paths, &code, &payload_len);
        if (st) {
            free(key.p);
            return st;
        }
        payload = code;
        t_compile = now_seconds() - t0;
        if (cacheable)
            gip__cache_store(key.p, key.len, kind, payload, payload_len);
    }
    free(key.p);

    double t1 = now_seconds();
    cudaLibrary_t lib = NULL;
    cudaError_t err = cudaLibraryLoadData(&lib, payload, NULL, NULL, 0, NULL, NULL, 0);
    free(payload);
    if (err != cudaSuccess)
        return gip__cuda_status(ctx, err, "cudaLibraryLoadData (loading the compiled module)");
    m->library = lib;
    memset(&m->info, 0, sizeof m->info);
    m->info.cache_hit = hit;
    m->info.cc_major = major;
    m->info.cc_minor = minor;
    m->info.is_ptx = is_ptx;
    snprintf(m->info.target, sizeof m->info.target, "%s", target);
    m->info.compile_seconds = t_compile;
    m->info.load_seconds = now_seconds() - t1 + (hit ? t1 - t0 : 0);
    return GIP_OK;
}

extern "C" void gip__cuda_module_unload(gip_module *m)
{
    if (m->library)
        cudaLibraryUnload((cudaLibrary_t)m->library);
    m->library = NULL;
}

extern "C" gip_status gip__cuda_module_find(gip_module *m, const char *name, gip_kernel *k)
{
    static const char op[] = "gip_module_get_kernel";
    cudaKernel_t kern = NULL;
    cudaError_t err = cudaLibraryGetKernel(&kern, (cudaLibrary_t)m->library, name);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        /* Say what the module does hold, so that a mangled C++ name is easy to spot. */
        char names[512] = "";
        unsigned int count = 0;
        if (cudaLibraryGetKernelCount(&count, (cudaLibrary_t)m->library) == cudaSuccess &&
            count > 0 && count < 4096) {
            cudaKernel_t *all = (cudaKernel_t *)calloc(count, sizeof *all);
            if (all &&
                cudaLibraryEnumerateKernels(all, count, (cudaLibrary_t)m->library) == cudaSuccess) {
                for (unsigned int i = 0; i < count; i++) {
                    const char *kn = NULL;
                    if (cudaFuncGetName(&kn, (const void *)all[i]) == cudaSuccess && kn) {
                        size_t used = strlen(names);
                        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", kn);
                    }
                }
            }
            free(all);
        }
        (void)cudaGetLastError();
        return gip__error(NULL, GIP_ERR_NOT_FOUND,
                          "%s: the module has no kernel named '%s' (declare it extern \"C\" "
                          "__global__); it has: %s",
                          op, name, names[0] ? names : "(none)");
    }
    k->handle = (void *)kern;
    k->n_params = 0;
    for (int i = 0; i < GIP__MAX_PARAMS; i++) {
        size_t off = 0, size = 0;
        err = cudaFuncGetParamInfo((const void *)kern, (size_t)i, &off, &size);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            /* Invalid value past the last parameter; anything else: the driver cannot tell. */
            if (err != cudaErrorInvalidValue)
                k->n_params = -1;
            break;
        }
        k->param_size[i] = (uint32_t)size;
        k->n_params = i + 1;
    }
    return GIP_OK;
}

extern "C" gip_status gip__cuda_kernel_launch(gip_context *ctx, const char *op, const gip_kernel *k,
                                              const uint32_t grid[3], const uint32_t block[3],
                                              uint32_t shared_bytes, void **params,
                                              const uint32_t *sizes, int32_t n)
{
    if (k->n_params >= 0) {
        if (n != k->n_params)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: kernel '%s' takes %d parameters but the arguments expand to %d "
                              "(an image expands to 5: data, width, height, stride, channels)",
                              op, k->name, (int)k->n_params, (int)n);
        for (int32_t i = 0; i < n; i++)
            if (sizes[i] != k->param_size[i])
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: parameter %d of kernel '%s' is %u bytes but the argument "
                                  "gives %u bytes",
                                  op, (int)i, k->name, k->param_size[i], sizes[i]);
    }
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (threads > 1024 || block[2] > 64 || grid[0] > 0x7fffffffu || grid[1] > 65535 ||
        grid[2] > 65535)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: grid %u x %u x %u, block %u x %u x %u exceed CUDA's limits (block "
                          "<= 1024 threads, block z <= 64, grid y and z <= 65535)",
                          op, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ctx->device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ctx->device);
    const gip_module_info *mi = &k->module->info;
    if (major != mi->cc_major || minor != mi->cc_minor)
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: the module was compiled for compute capability %d.%d but device "
                          "%d is %d.%d; compile it with a context of this device",
                          op, mi->cc_major, mi->cc_minor, (int)ctx->device, major, minor);
    cudaError_t err = cudaLaunchKernel((const void *)k->handle, dim3(grid[0], grid[1], grid[2]),
                                       dim3(block[0], block[1], block[2]), params, shared_bytes,
                                       gip__stream(ctx));
    char what[300];
    snprintf(what, sizeof what, "launching kernel '%s'", k->name);
    if ((st = gip__cuda_status(ctx, err, what)))
        return st;
    return GIP__LAUNCH_CHECK(ctx, what);
}
