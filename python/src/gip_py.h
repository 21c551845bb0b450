/* SPDX-License-Identifier: MIT */
/* What the files of the gip._gip extension share: the context, memory, image and pipeline
 * objects, the view of a Python array as a gip_image, running a libgip call without the GIL, and
 * raising libgip's statuses as gip.Error subclasses. Each file adds its module functions through
 * a method table declared here.
 *
 * numpy is reached only through the buffer protocol and __array_interface__, never through its C
 * headers, so one build works with numpy 1.x and 2.x. Every library call runs with the GIL
 * released, under a per-context lock (a gip_context is not meant for two threads at once). */
#ifndef GIP_PY_H
#define GIP_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>

#include "gip/gip.h"
#include "gip/interop.h"

/* ---- errors (module.c) --------------------------------------------------------------------- */

/* Raises the gip.Error subclass registered for st (gip/_errors.py) with msg (libgip's message, or
 * the status text when empty). Returns NULL. */
PyObject *gpy_raise_status(gip_status st, const char *msg);
/* None (a new reference) after a libgip call that succeeded; NULL with gpy_raise_status()'s
 * exception after one that failed. */
PyObject *gpy_none_or_raise(gip_status st, const char *msg);
/* Raises a gip error detected in the extension, with a formatted message. Returns NULL. */
PyObject *gpy_raise_fmt(gip_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Raises gip.InvalidType (an InvalidArgument and a TypeError) with msg. Returns NULL. */
PyObject *gpy_raise_type(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Copies the thread's last libgip message (or the status text) into buf. */
void gpy_copy_error(gip_status st, char *buf, size_t size);

/* ---- contexts (context.c) ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD gip_context *ctx;
    PyThread_type_lock lock;
} ContextObject;

extern PyTypeObject gpy_ContextType;

/* A _gip.Context argument or None (NULL without an exception); NULL with TypeError otherwise. */
ContextObject *gpy_opt_ctx(PyObject *o);

/* The first steps of a new context object (a Context's or a pipeline's): c's lock, and in *desc
 * the description of the Python layer's backend, device and threads. 0, or -1 with MemoryError
 * set. */
int gpy_context_start(ContextObject *c, int backend, int device, int threads,
                      gip_context_desc *desc);

/* Runs a libgip call without the GIL and under the context's lock (cobj may be NULL), copying the
 * message of a failure while still on the calling thread. */
#define GIP_PY_RUN(cobj, st, msg, call)                                                            \
    do {                                                                                           \
        ContextObject *run_c_ = (cobj);                                                            \
        Py_BEGIN_ALLOW_THREADS;                                                                    \
        if (run_c_)                                                                                \
            PyThread_acquire_lock(run_c_->lock, WAIT_LOCK);                                        \
        gip_clear_error();                                                                         \
        (st) = (call);                                                                             \
        if ((st) != GIP_OK)                                                                        \
            gpy_copy_error((st), (msg), sizeof(msg));                                              \
        if (run_c_)                                                                                \
            PyThread_release_lock(run_c_->lock);                                                   \
        Py_END_ALLOW_THREADS;                                                                      \
    } while (0)

/* ---- images (image.c) ---------------------------------------------------------------------- */

/* The memory behind Images and their exports (see image.c for the lifetime rules). */
typedef struct {
    PyObject_HEAD gip_image v; /* the memory as it was allocated or wrapped */
    int owned;                 /* from gip_image_alloc/load: freed with the owner */
    int exported; /* CUDA memory handed to another library (CUDA array interface, DLPack): freed
                     by cudaFree, which waits for that library's streams too */
    ContextObject *ctx; /* context of owned device memory (its stream orders the free) */
    PyObject *base;     /* object owning borrowed memory (array, DLPack owner), or NULL */
    PyObject *keep;     /* list of objects kept alive while queued GPU work may read them */
    Py_buffer buf;      /* the buffer export of borrowed host memory, held while it is shown */
    int has_buf;
} MemoryObject;

typedef struct {
    PyObject_HEAD gip_image v;
    int ndim;           /* 2 (H, W) or 3 (H, W, C) as Python sees it */
    int closed;         /* close() was called: the view is gone */
    int readonly;       /* imported read-only memory */
    int iface_given;    /* __array_interface__ or __cuda_array_interface__ was handed out */
    ContextObject *ctx; /* the context results are queued on (device images), or NULL */
    MemoryObject *mem;  /* the owner of the memory; NULL after close() unless iface_given */
    void *pstream;      /* producer stream of an imported CUDA array interface, if has_pstream */
    int has_pstream;
} ImageObject;

extern PyTypeObject gpy_MemoryType, gpy_ImageType;

/* A new Image of the memory v. owned: gip allocated it (freed with the owner, on ctx for device
 * memory); base: the object that owns borrowed memory. On failure an owned v is NOT freed. */
ImageObject *gpy_image_new(const gip_image *v, int ndim, int owned, ContextObject *ctx,
                           PyObject *base);
/* 1, or 0 with gip.InvalidArgument raised for a closed image. */
int gpy_image_usable(ImageObject *self);
/* numpy's type string of a dtype ("|u1", "<f4", ...). */
const char *gpy_dtype_typestr(gip_dtype d);
/* The dtype of a buffer-protocol format string, GIP_DTYPE_NONE when gip has none. */
gip_dtype gpy_dtype_from_format(const char *f);

/* ---- views of Python arrays (interop.c) ---------------------------------------------------- */

typedef struct {
    gip_image img;
    int ndim;
    Py_buffer buf;
    int has_buf;
    PyObject *hold; /* new reference kept while the view is in use (DLPack owner, copy) */
    void *stream;   /* producer stream of a CUDA array interface, when has_stream */
    int has_stream;
    ContextObject *c; /* context the view was resolved for */
} View;

/* Resolves obj (gip Image, buffer, DLPack or CUDA array interface object) into v for context c
 * (may be NULL for host-only use). 0, or -1 with an exception set; on -1 v holds nothing. */
int gpy_resolve(ContextObject *c, PyObject *obj, int writable, const char *what, View *v);
void gpy_view_release(View *v);
/* Keeps src (and what its view holds) alive as long as dst when dst is a device image: queued
 * GPU work may still read it after the call returns. */
void gpy_keep_alive(PyObject *dst, PyObject *src, View *sv);
/* The views of one call: src read, dst written. 0, or -1 with an exception set and nothing held. */
int gpy_resolve_pair(ContextObject *c, PyObject *src, PyObject *dst, View *s, View *d);
/* Ends a call on the views of gpy_resolve_pair(): src kept alive with dst when the call (status
 * st, message msg) succeeded, both released; None, or NULL with st's exception raised. */
PyObject *gpy_finish_pair(gip_status st, const char *msg, PyObject *src, PyObject *dst, View *s,
                          View *d);
/* where(obj) -> ('cuda', device) for device arrays, ('cpu', 0) otherwise. */
PyObject *gpy_where(PyObject *m, PyObject *obj);

/* ---- pipelines (pipeline.c) ---------------------------------------------------------------- */

typedef struct {
    ContextObject base; /* base.ctx is gip_pipeline_context(p): borrowed, freed with p */
    gip_pipeline *p;
} PipelineObject;

extern PyTypeObject gpy_PipelineType;

/* The pipeline handle o, or NULL with TypeError. */
PipelineObject *gpy_as_pipeline(PyObject *o);
/* (format, quality, subsampling, progressive, png_compression, bgr) into p (io.c). */
int gpy_save_params(PyObject *t, gip_save_params *p);

/* ---- registry (registry.c) ----------------------------------------------------------------- */

/* The gip_args of an Args object (registry.c), or NULL with TypeError. */
const gip_args *gpy_args_of(PyObject *o);

/* ---- module functions and types of each file ---------------------------------------------- */

extern PyMethodDef gpy_module_methods[], gpy_image_module_methods[], gpy_interop_methods[],
    gpy_ops_methods[], gpy_registry_methods[], gpy_io_methods[], gpy_kernel_methods[],
    gpy_pipeline_methods[], gpy_batch_methods[], gpy_style_methods[], gpy_stats_methods[];

/* Readies the types a file defines and adds those the module shows. 0 or -1. */
int gpy_registry_init(PyObject *m);
int gpy_kernel_init(PyObject *m);
int gpy_loader_init(PyObject *m); /* loader.c: Loader, LoaderBatch */

#endif
