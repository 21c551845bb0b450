/* SPDX-License-Identifier: MIT */
/* Shared libraries opened on first use: where they are looked for, and their symbols. */
#include "dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *open_in(const char *dir, size_t len, const char *soname)
{
    char path[1024];
    if (len == 0 || len >= sizeof path - 2 - strlen(soname))
        return NULL;
    snprintf(path, sizeof path, "%.*s/%s", (int)len, dir, soname);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* The folders of GIP_CUDA_LIBRARY_PATH (colon-separated) first: the Python package sets it to
 * the lib folders of the nvidia-* wheels installed beside it, which a wheel user asked for by
 * installing them. Then the loader's search path (LD_LIBRARY_PATH, the system CUDA), then the
 * folder the library was found in when gip was built. */
static void load(gip__dynlib *lib)
{
    void *h = NULL;
    const char *env = getenv("GIP_CUDA_LIBRARY_PATH");
    for (const char *p = env; p && *p && !h;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        h = open_in(p, len, lib->soname);
        p = end ? end + 1 : p + len;
    }
    if (!h)
        h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h && lib->dir && lib->dir[0])
        h = open_in(lib->dir, strlen(lib->dir), lib->soname);
    if (!h) {
        const char *why = dlerror();
        snprintf(lib->reason, sizeof lib->reason, "%s", why ? why : "not found");
        return;
    }
    /* Every symbol is looked up before any slot is written: a failure leaves them all NULL. */
    for (int i = 0; lib->names[i]; i++) {
        if (!dlsym(h, lib->names[i])) {
            snprintf(lib->reason, sizeof lib->reason, "%s has no symbol %s", lib->soname,
                     lib->names[i]);
            dlclose(h);
            return;
        }
    }
    for (int i = 0; lib->names[i]; i++) {
        void *f = dlsym(h, lib->names[i]);
        memcpy(lib->slots[i], &f, sizeof f);
    }
    lib->ok = 1;
}

bool gip__dynlib_ready(gip__dynlib *lib)
{
    pthread_mutex_lock(&lock);
    if (!lib->tried) {
        load(lib);
        lib->tried = 1;
    }
    const int ok = lib->ok;
    pthread_mutex_unlock(&lock);
    return ok;
}

gip_status gip__dynlib_load(gip_context *ctx, const char *op, gip__dynlib *lib)
{
    if (gip__dynlib_ready(lib))
        return GIP_OK;
    return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: cannot load %s: %s", op, lib->soname,
                      lib->reason);
}
