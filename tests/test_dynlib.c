/* SPDX-License-Identifier: MIT */
/* The first-use loader of shared libraries (core/dynlib.h), as cuBLAS, cuFFT and NVRTC go through
 * it: a library that loads fills every slot with the symbol's address; a missing library or
 * symbol gives GIP_ERR_NOT_BUILT naming it, the same on every later call; threads racing on the
 * first load all see it loaded. Runs the same on both backends (no device is involved). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dynlib.h"
#include "testing.h"

typedef double (*fn1)(double);

static fn1 lib_cos, lib_sqrt;
static const char *const m_names[] = {"cos", "sqrt", NULL};
static void *const m_slots[] = {&lib_cos, &lib_sqrt};

static void *race(void *arg)
{
    gip__dynlib *lib = arg;
    return (void *)(intptr_t)gip__dynlib_load(NULL, "race", lib);
}

static void body(gip_context *ctx)
{
    /* libm: the C library's maths, present wherever the tests run. */
    gip__dynlib m = {"libm.so.6", NULL, m_names, m_slots, 0, 0, ""};
    pthread_t th[4];
    int started = 0;
    for (int i = 0; i < 4; i++)
        started += pthread_create(&th[i], NULL, race, &m) == 0;
    GT_CHECK(started == 4, "%d of 4 threads started", started);
    for (int i = 0; i < started; i++) {
        void *ret = NULL;
        pthread_join(th[i], &ret);
        GT_CHECK((intptr_t)ret == GIP_OK, "thread %d: %s", i,
                 gip_status_name((gip_status)(intptr_t)ret));
    }
    if (GT_OK(gip__dynlib_load(ctx, "test", &m)) && GT_CHECK(lib_cos && lib_sqrt, "slots filled")) {
        volatile double x = 2.0;
        GT_CHECK(lib_cos(0.0) == 1.0 && lib_sqrt(x) == sqrt(x), "the loaded functions compute");
    }

    /* A library that is nowhere: found neither by name nor in the folder. */
    fn1 never = NULL;
    static const char *const one[] = {"cos", NULL};
    void *const never_slot[] = {&never};
    gip__dynlib gone = {"libgip-missing-for-test.so.7", "/nonexistent", one, never_slot, 0, 0, ""};
    for (int k = 0; k < 2; k++) {
        GT_STATUS(gip__dynlib_load(ctx, "gip_test_op", &gone), GIP_ERR_NOT_BUILT);
        const char *msg = gip_last_error();
        GT_CHECK(strstr(msg, "gip_test_op") && strstr(msg, "libgip-missing-for-test.so.7"),
                 "call %d: the message names the operation and the library: %s", k + 1, msg);
    }
    GT_CHECK(never == NULL, "no slot written for a missing library");

    /* The library is there, a symbol is not. */
    static const char *const bad[] = {"cos", "gip_no_such_symbol", NULL};
    fn1 a = NULL, b = NULL;
    void *const bad_slots[] = {&a, &b};
    gip__dynlib half = {"libm.so.6", NULL, bad, bad_slots, 0, 0, ""};
    GT_STATUS(gip__dynlib_load(ctx, "gip_test_op", &half), GIP_ERR_NOT_BUILT);
    GT_CHECK(strstr(gip_last_error(), "gip_no_such_symbol") != NULL,
             "the message names the symbol: %s", gip_last_error());
    GT_CHECK(a == NULL && b == NULL, "no slot written when a symbol is missing");

    /* A library only in a folder of GIP_CUDA_LIBRARY_PATH (as the Python package lists the
     * nvidia-* wheels' folders), after an empty entry and a missing folder: libm under another
     * name. Without the variable the same name is not found. */
    Dl_info where;
    char dir[] = "/tmp/gip-dynlib-XXXXXX", link_path[64];
    if (GT_CHECK(lib_cos && dladdr((void *)lib_cos, &where) && where.dli_fname,
                 "libm's path from dladdr") &&
        GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp")) {
        snprintf(link_path, sizeof link_path, "%s/libgip-envtest.so.3", dir);
        GT_CHECK(symlink(where.dli_fname, link_path) == 0, "symlink %s", link_path);
        fn1 via_env = NULL;
        void *const env_slot[] = {&via_env};
        gip__dynlib hidden = {"libgip-envtest.so.3", NULL, one, env_slot, 0, 0, ""};
        unsetenv("GIP_CUDA_LIBRARY_PATH");
        GT_STATUS(gip__dynlib_load(ctx, "gip_test_op", &hidden), GIP_ERR_NOT_BUILT);
        char list[128];
        snprintf(list, sizeof list, "::/nonexistent-gip-folder:%s", dir);
        setenv("GIP_CUDA_LIBRARY_PATH", list, 1);
        gip__dynlib found = {"libgip-envtest.so.3", NULL, one, env_slot, 0, 0, ""};
        if (GT_OK(gip__dynlib_load(ctx, "gip_test_op", &found)))
            GT_CHECK(via_env && via_env(0.0) == 1.0, "the function found through the folder");
        unsetenv("GIP_CUDA_LIBRARY_PATH");
        unlink(link_path);
        rmdir(dir);
    }
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "dynlib", body);
}
