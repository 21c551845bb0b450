/* SPDX-License-Identifier: MIT */
#include "dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void load(gip__dynlib *lib)
{
    void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h && lib->dir && lib->dir[0]) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", lib->dir, lib->soname);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
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
