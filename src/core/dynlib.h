/* SPDX-License-Identifier: MIT */
/* Shared libraries loaded on first use. cuBLAS, cuFFT and NVRTC cost milliseconds to map at
 * process start (cuBLAS tens of them), more than the whole of a one-file CPU run's filter; gip
 * therefore opens them with dlopen the first time an operation needs one, and a process that
 * never touches them never pays. Each user keeps a table of typed function pointers filled from
 * the symbol names. */
#ifndef GIP_CORE_DYNLIB_H
#define GIP_CORE_DYNLIB_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__dynlib {
    const char *soname;       /* "libcublas.so.13": found through the loader's search path */
    const char *dir;          /* the toolkit's library folder, tried next; NULL for none */
    const char *const *names; /* symbol names, NULL-terminated */
    void *const *slots;       /* slots[i] is the address of the pointer that receives names[i] */
    /* Filled by the first gip__dynlib_load. */
    int tried, ok;
    char reason[512];
} gip__dynlib;

/* Loads `lib` and resolves its symbols on the first call (thread-safe; never unloaded); later
 * calls return the first outcome. On failure raises GIP_ERR_NOT_BUILT naming `op`, the library
 * and the loader's reason. */
gip_status gip__dynlib_load(gip_context *ctx, const char *op, gip__dynlib *lib);

/* Loads `lib` like gip__dynlib_load but raises no error: whether its symbols are available. */
bool gip__dynlib_ready(gip__dynlib *lib);

#ifdef __cplusplus
}
#endif

#endif
