/* SPDX-License-Identifier: MIT */
/* gip._gip: the CPython extension under the gip package. Contexts, images, zero-copy import and
 * export of arrays (buffer protocol, CUDA array interface v3, DLPack) and one thin wrapper per
 * libgip operation; the cv2-style argument handling lives in gip/__init__.py.
 *
 * numpy is reached only through the buffer protocol and __array_interface__, never through its C
 * headers, so one build works with numpy 1.x and 2.x. Every library call runs with the GIL
 * released, under a per-context lock (a gip_context is not meant for two threads at once). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gip/gip.h"
#include "gip/interop.h"

/* ============================================================================================
 * DLPack (https://dmlc.github.io/dlpack/latest/c_api.html), written from the public spec.
 * ========================================================================================== */
typedef enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 } DLDeviceType;
typedef struct {
    int32_t device_type; /* DLDeviceType (an enum: int sized) */
    int32_t device_id;
} DLDevice;
typedef enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5 } DLDataTypeCode;
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL = compact row-major */
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#define DLPACK_FLAG_BITMASK_READ_ONLY (1ULL << 0)

/* ============================================================================================
 * Errors: gip/_errors.py registers {status code: exception class}; libgip's message is the text.
 * ========================================================================================== */
static PyObject *error_map; /* dict, owned */

static PyObject *raise_status(gip_status st, const char *msg)
{
    PyObject *cls = NULL;
    if (error_map) {
        PyObject *key = PyLong_FromLong((long)st);
        if (!key)
            return NULL;
        cls = PyDict_GetItemWithError(error_map, key);
        Py_DECREF(key);
        if (!cls && !PyErr_Occurred()) {
            key = PyLong_FromLong((long)gip_status_group(st));
            if (!key)
                return NULL;
            cls = PyDict_GetItemWithError(error_map, key);
            Py_DECREF(key);
        }
        if (PyErr_Occurred())
            return NULL;
    }
    if (!cls)
        cls = PyExc_RuntimeError;
    PyObject *exc = PyObject_CallFunction(cls, "s", msg && *msg ? msg : gip_status_string(st));
    if (!exc)
        return NULL;
    PyObject *name = PyUnicode_FromString(gip_status_name(st));
    PyObject *code = PyLong_FromLong((long)st);
    if (name && code) {
        PyObject_SetAttrString(exc, "status", name);
        PyObject_SetAttrString(exc, "code", code);
    }
    Py_XDECREF(name);
    Py_XDECREF(code);
    if (!PyErr_Occurred())
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

/* Raises a gip error detected here (not by libgip), with a formatted message. */
static PyObject *raise_fmt(gip_status st, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return raise_status(st, msg);
}

static void copy_error(gip_status st, char *buf, size_t size)
{
    const char *m = gip_last_error();
    snprintf(buf, size, "%s", m && *m ? m : gip_status_string(st));
}

/* ============================================================================================
 * Contexts.
 * ========================================================================================== */
typedef struct {
    PyObject_HEAD gip_context *ctx;
    PyThread_type_lock lock;
} ContextObject;

static PyTypeObject ContextType;

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
            copy_error((st), (msg), sizeof(msg));                                                  \
        if (run_c_)                                                                                \
            PyThread_release_lock(run_c_->lock);                                                   \
        Py_END_ALLOW_THREADS;                                                                      \
    } while (0)

static PyObject *Context_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"backend", "device", "threads", NULL};
    int backend = 0, device = 0, threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|iii", kwlist, &backend, &device, &threads))
        return NULL;
    ContextObject *self = (ContextObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    gip_context_desc desc = {0};
    desc.backend = (gip_backend)backend;
    desc.device = device;
    desc.threads = threads;
    gip_status st;
    char msg[1024];
    gip_context *ctx = NULL;
    GIP_PY_RUN(NULL, st, msg, gip_context_create(&desc, &ctx));
    if (st) {
        Py_DECREF(self);
        return raise_status(st, msg);
    }
    self->ctx = ctx;
    return (PyObject *)self;
}

static void Context_dealloc(ContextObject *self)
{
    if (self->ctx) {
        gip_context *ctx = self->ctx;
        self->ctx = NULL;
        Py_BEGIN_ALLOW_THREADS;
        gip_context_destroy(ctx);
        Py_END_ALLOW_THREADS;
    }
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Context_describe(ContextObject *self, void *unused)
{
    return PyUnicode_FromString(gip_context_describe(self->ctx));
}
static PyObject *Context_backend(ContextObject *self, void *unused)
{
    return PyUnicode_FromString(gip_context_backend(self->ctx) == GIP_BACKEND_CUDA ? "cuda"
                                                                                   : "cpu");
}
static PyObject *Context_device(ContextObject *self, void *unused)
{
    return PyLong_FromLong(gip_context_device(self->ctx));
}
static PyObject *Context_stream(ContextObject *self, void *unused)
{
    return PyLong_FromVoidPtr(gip_context_stream(self->ctx));
}
static PyObject *Context_get_threads(ContextObject *self, void *unused)
{
    return PyLong_FromLong(gip_context_threads(self->ctx));
}
static int Context_set_threads(ContextObject *self, PyObject *value, void *unused)
{
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "threads cannot be deleted");
        return -1;
    }
    long n = PyLong_AsLong(value);
    if (n == -1 && PyErr_Occurred())
        return -1;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self, st, msg, gip_context_set_threads(self->ctx, (int32_t)n));
    if (st) {
        raise_status(st, msg);
        return -1;
    }
    return 0;
}

static PyObject *Context_sync(ContextObject *self, PyObject *unused)
{
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self, st, msg, gip_context_sync(self->ctx));
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

static PyObject *Context_set_memory_limit(ContextObject *self, PyObject *arg)
{
    long long bytes = PyLong_AsLongLong(arg);
    if (bytes == -1 && PyErr_Occurred())
        return NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self, st, msg, gip_context_set_device_memory_limit(self->ctx, (int64_t)bytes));
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

static PyObject *Context_memory_used(ContextObject *self, void *unused)
{
    return PyLong_FromLongLong((long long)gip_context_device_memory_used(self->ctx));
}

static PyObject *Context_status(ContextObject *self, PyObject *unused)
{
    return PyUnicode_FromString(gip_status_name(gip_context_status(self->ctx)));
}

static PyObject *Context_order(ContextObject *self, PyObject *arg, int wait)
{
    void *stream = PyLong_AsVoidPtr(arg);
    if (!stream && PyErr_Occurred())
        return NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self, st, msg,
               wait ? gip_context_wait_stream(self->ctx, stream)
                    : gip_context_signal_stream(self->ctx, stream));
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}
static PyObject *Context_wait_stream(ContextObject *self, PyObject *arg)
{
    return Context_order(self, arg, 1);
}
static PyObject *Context_signal_stream(ContextObject *self, PyObject *arg)
{
    return Context_order(self, arg, 0);
}

static PyMethodDef Context_methods[] = {
    {"sync", (PyCFunction)Context_sync, METH_NOARGS, "Waits for all work queued on the context."},
    {"status", (PyCFunction)Context_status, METH_NOARGS,
     "'GIP_OK', or 'GIP_ERR_BAD_STATE' after a sticky device error."},
    {"wait_stream", (PyCFunction)Context_wait_stream, METH_O,
     "wait_stream(stream: int): later work of the context waits for the stream's work so far."},
    {"set_memory_limit", (PyCFunction)Context_set_memory_limit, METH_O,
     "set_memory_limit(bytes: int): caps the device memory the context's allocations may hold "
     "(0: no cap); MemoryError past it."},
    {"signal_stream", (PyCFunction)Context_signal_stream, METH_O,
     "signal_stream(stream: int): later work on the stream waits for the context's work so far."},
    {NULL}};

static PyGetSetDef Context_getset[] = {
    {"describe", (getter)Context_describe, NULL, "One line saying what the context uses.", NULL},
    {"backend", (getter)Context_backend, NULL, "'cpu' or 'cuda'.", NULL},
    {"device", (getter)Context_device, NULL, "CUDA device ordinal, -1 on the CPU.", NULL},
    {"stream", (getter)Context_stream, NULL, "The context's cudaStream_t as an int (0 on CPU).",
     NULL},
    {"threads", (getter)Context_get_threads, (setter)Context_set_threads, "CPU threads.", NULL},
    {"memory_used", (getter)Context_memory_used, NULL,
     "Device memory the context's allocations hold now, in bytes (0 on the CPU).", NULL},
    {NULL}};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(backend=0, device=0, threads=0): a libgip context (0 auto, 1 cpu, 2 cuda).",
    .tp_methods = Context_methods,
    .tp_getset = Context_getset,
    .tp_new = Context_new,
};

/* ============================================================================================
 * Images: a gip_image view plus an owner that keeps its memory alive.
 *
 * The memory of an Image belongs to a Memory object (owner). The Image holds one reference to it
 * and every export holds its own: a buffer-protocol view (in Py_buffer.internal), a DLPack
 * capsule (in manager_ctx) and, through the Image they were read from, the array interfaces.
 * The memory is freed only when the last of them is gone, so close() never frees memory that
 * an export still shows: it drops the Image's own reference, unless an array interface was
 * handed out (its consumer keeps the Image, not the owner), in which case the owner stays with
 * the closed Image until that is freed.
 * ========================================================================================== */
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

static PyTypeObject MemoryType;

static void Memory_dealloc(MemoryObject *self)
{
    if (self->owned && self->v.data) {
        /* Device memory is freed in stream order on its context; memory another library may
         * still be using on its own streams is freed synchronously instead. */
        gip_context *ctx = self->ctx && !self->exported ? self->ctx->ctx : NULL;
        gip_image v = self->v;
        Py_BEGIN_ALLOW_THREADS;
        gip_image_free(ctx, &v);
        Py_END_ALLOW_THREADS;
    }
    memset(&self->v, 0, sizeof self->v);
    if (self->has_buf)
        PyBuffer_Release(&self->buf);
    self->has_buf = 0;
    Py_CLEAR(self->base);
    Py_CLEAR(self->keep);
    Py_CLEAR(self->ctx);
    PyObject_Free(self);
}

static PyTypeObject MemoryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Memory",
    .tp_basicsize = sizeof(MemoryObject),
    .tp_dealloc = (destructor)Memory_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory behind gip.Images and their exports; freed when the last is gone.",
};

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

/* Python helpers registered by gip/__init__.py: download, upload, dtype, device, repr. */
static PyObject *helpers;

static PyObject *call_helper(const char *name, PyObject *first, PyObject *args, PyObject *kwds)
{
    PyObject *fn = helpers ? PyDict_GetItemString(helpers, name) : NULL;
    if (!fn) {
        PyErr_Format(PyExc_RuntimeError, "gip helper %s is not registered", name);
        return NULL;
    }
    Py_ssize_t n = args ? PyTuple_GET_SIZE(args) : 0;
    PyObject *full = PyTuple_New(n + 1);
    if (!full)
        return NULL;
    Py_INCREF(first);
    PyTuple_SET_ITEM(full, 0, first);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        Py_INCREF(a);
        PyTuple_SET_ITEM(full, i + 1, a);
    }
    PyObject *r = PyObject_Call(fn, full, kwds);
    Py_DECREF(full);
    return r;
}

static PyTypeObject ImageType;

/* A new Image of the memory v. owned: gip allocated it (freed with the owner, on ctx for device
 * memory); base: the object that owns borrowed memory. On failure an owned v is NOT freed. */
static ImageObject *image_new(const gip_image *v, int ndim, int owned, ContextObject *ctx,
                              PyObject *base)
{
    MemoryObject *mem = PyObject_New(MemoryObject, &MemoryType);
    if (!mem)
        return NULL;
    mem->v = *v;
    mem->owned = 0; /* set once the Image exists, so that a failure below frees nothing */
    mem->exported = 0;
    mem->ctx = ctx;
    Py_XINCREF(ctx);
    mem->base = base;
    Py_XINCREF(base);
    mem->keep = NULL;
    mem->has_buf = 0;
    ImageObject *self = PyObject_New(ImageObject, &ImageType);
    if (!self) {
        Py_DECREF(mem);
        return NULL;
    }
    mem->owned = owned;
    self->v = *v;
    self->ndim = ndim;
    self->closed = 0;
    self->readonly = 0;
    self->iface_given = 0;
    self->ctx = ctx;
    Py_XINCREF(ctx);
    self->mem = mem;
    self->pstream = NULL;
    self->has_pstream = 0;
    return self;
}

static void Image_dealloc(ImageObject *self)
{
    Py_CLEAR(self->mem);
    Py_CLEAR(self->ctx);
    PyObject_Free(self);
}

static const char *dtype_typestr(gip_dtype d)
{
    switch (d) {
    case GIP_U8:
        return "|u1";
    case GIP_U16:
        return "<u2";
    case GIP_S16:
        return "<i2";
    case GIP_F32:
        return "<f4";
    case GIP_C32:
        return "<c8";
    default:
        return "";
    }
}

static int image_usable(ImageObject *self)
{
    if (self->closed || !self->v.data) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "the gip.Image is closed");
        return 0;
    }
    return 1;
}

static PyObject *image_shape(ImageObject *self)
{
    if (self->ndim == 2)
        return Py_BuildValue("(LL)", (long long)self->v.height, (long long)self->v.width);
    return Py_BuildValue("(LLi)", (long long)self->v.height, (long long)self->v.width,
                         (int)self->v.channels);
}

static PyObject *image_strides(ImageObject *self)
{
    long long isz = (long long)gip_dtype_size(self->v.dtype);
    if (self->ndim == 2)
        return Py_BuildValue("(LL)", (long long)self->v.stride, isz);
    return Py_BuildValue("(LLL)", (long long)self->v.stride, isz * self->v.channels, isz);
}

static PyObject *Image_shape(ImageObject *self, void *unused)
{
    return image_shape(self);
}
static PyObject *Image_strides(ImageObject *self, void *unused)
{
    return image_strides(self);
}
static PyObject *Image_typestr(ImageObject *self, void *unused)
{
    return PyUnicode_FromString(dtype_typestr(self->v.dtype));
}
static PyObject *Image_ndim(ImageObject *self, void *unused)
{
    return PyLong_FromLong(self->ndim);
}
static PyObject *Image_ptr(ImageObject *self, void *unused)
{
    return PyLong_FromVoidPtr(self->v.data);
}
static PyObject *Image_is_cuda(ImageObject *self, void *unused)
{
    return PyBool_FromLong(self->v.memory == GIP_MEM_CUDA);
}
static PyObject *Image_device_index(ImageObject *self, void *unused)
{
    return PyLong_FromLong(self->v.memory == GIP_MEM_CUDA ? self->v.device : -1);
}
static PyObject *Image_closed(ImageObject *self, void *unused)
{
    return PyBool_FromLong(self->closed);
}
static PyObject *Image_context(ImageObject *self, void *unused)
{
    if (!self->ctx)
        Py_RETURN_NONE;
    Py_INCREF(self->ctx);
    return (PyObject *)self->ctx;
}

/* __cuda_array_interface__ (v3): device images only; AttributeError for host images so that
 * hasattr() answers False for them. The consumer keeps this Image (not the owner), so the Image
 * keeps its owner past close() from now on. */
static PyObject *Image_cai(ImageObject *self, void *unused)
{
    if (!image_usable(self))
        return NULL;
    if (self->v.memory != GIP_MEM_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "__cuda_array_interface__: the image is in host memory");
        return NULL;
    }
    PyObject *stream = self->ctx ? PyLong_FromVoidPtr(gip_context_stream(self->ctx->ctx))
                                 : (Py_INCREF(Py_None), Py_None);
    if (!stream)
        return NULL;
    PyObject *d =
        Py_BuildValue("{s:N,s:s,s:(NO),s:N,s:i,s:N}", "shape", image_shape(self), "typestr",
                      dtype_typestr(self->v.dtype), "data", PyLong_FromVoidPtr(self->v.data),
                      self->readonly ? Py_True : Py_False, "strides", image_strides(self),
                      "version", 3, "stream", stream);
    if (d) {
        self->mem->exported = 1;
        self->iface_given = 1;
    }
    return d;
}

/* __array_interface__ (v3): host images only. numpy itself takes the buffer protocol first;
 * other consumers keep this Image, so the Image keeps its owner past close() from now on. */
static PyObject *Image_ai(ImageObject *self, void *unused)
{
    if (!image_usable(self))
        return NULL;
    if (self->v.memory == GIP_MEM_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "__array_interface__: the image is in device memory; download() it");
        return NULL;
    }
    PyObject *d = Py_BuildValue(
        "{s:N,s:s,s:(NO),s:N,s:i}", "shape", image_shape(self), "typestr",
        dtype_typestr(self->v.dtype), "data", PyLong_FromVoidPtr(self->v.data),
        self->readonly ? Py_True : Py_False, "strides", image_strides(self), "version", 3);
    if (d)
        self->iface_given = 1;
    return d;
}

/* ---- buffer protocol (host images) --------------------------------------------------------- */
typedef struct {
    MemoryObject *owner; /* kept until the view is released */
    Py_ssize_t shape[3], strides[3];
} BufferHold;

static const char *dtype_format(gip_dtype d)
{
    switch (d) {
    case GIP_U8:
        return "B";
    case GIP_U16:
        return "H";
    case GIP_S16:
        return "h";
    case GIP_F32:
        return "f";
    default:
        return "Zf";
    }
}

static int Image_getbuffer(ImageObject *self, Py_buffer *view, int flags)
{
    view->obj = NULL;
    if (self->closed || !self->v.data) {
        PyErr_SetString(PyExc_BufferError, "the gip.Image is closed");
        return -1;
    }
    if (self->v.memory == GIP_MEM_CUDA) {
        PyErr_SetString(PyExc_BufferError,
                        "the gip.Image is in device memory; download() it or use DLPack or the "
                        "CUDA array interface");
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && self->readonly) {
        PyErr_SetString(PyExc_BufferError, "the gip.Image is read-only");
        return -1;
    }
    int64_t isz = (int64_t)gip_dtype_size(self->v.dtype);
    int64_t row = self->v.width * self->v.channels * isz;
    int contiguous = self->v.height == 1 || self->v.stride == row;
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !contiguous) {
        PyErr_SetString(PyExc_BufferError,
                        "the gip.Image has padded rows: ask for a strided buffer");
        return -1;
    }
    BufferHold *h = PyMem_Malloc(sizeof *h);
    if (!h) {
        PyErr_NoMemory();
        return -1;
    }
    h->owner = self->mem;
    Py_INCREF(h->owner);
    h->shape[0] = (Py_ssize_t)self->v.height;
    h->shape[1] = (Py_ssize_t)self->v.width;
    h->shape[2] = (Py_ssize_t)self->v.channels;
    h->strides[0] = (Py_ssize_t)(self->v.height == 1 ? row : self->v.stride);
    h->strides[1] = (Py_ssize_t)(self->ndim == 3 ? self->v.channels * isz : isz);
    h->strides[2] = (Py_ssize_t)isz;
    view->buf = self->v.data;
    view->obj = (PyObject *)self;
    Py_INCREF(self);
    view->len = (Py_ssize_t)(self->v.height * row);
    view->readonly = self->readonly;
    view->itemsize = (Py_ssize_t)isz;
    view->format =
        (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char *)dtype_format(self->v.dtype) : NULL;
    view->ndim = self->ndim;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? h->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? h->strides : NULL;
    view->suboffsets = NULL;
    view->internal = h;
    return 0;
}

static void Image_releasebuffer(ImageObject *self, Py_buffer *view)
{
    BufferHold *h = view->internal;
    if (h) {
        Py_DECREF(h->owner);
        PyMem_Free(h);
        view->internal = NULL;
    }
}

static PyBufferProcs Image_as_buffer = {
    (getbufferproc)Image_getbuffer,
    (releasebufferproc)Image_releasebuffer,
};

/* ---- DLPack export ---------------------------------------------------------------------- */
typedef struct {
    DLManagedTensor m;
    int64_t shape[3], strides[3];
} ExportLegacy;
typedef struct {
    DLManagedTensorVersioned m;
    int64_t shape[3], strides[3];
} ExportVersioned;

static void export_legacy_deleter(DLManagedTensor *m)
{
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF((PyObject *)m->manager_ctx);
    PyMem_RawFree(m);
    PyGILState_Release(g);
}
static void export_versioned_deleter(DLManagedTensorVersioned *m)
{
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF((PyObject *)m->manager_ctx);
    PyMem_RawFree(m);
    PyGILState_Release(g);
}

/* A capsule nobody consumed still owns its tensor: delete it (the spec's rule). */
static void export_capsule_destructor(PyObject *cap)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter)
            m->deleter(m);
    }
    PyErr_Restore(et, ev, tb);
}

static void fill_dltensor(ImageObject *self, DLTensor *t, int64_t *shape, int64_t *strides)
{
    int64_t isz = (int64_t)gip_dtype_size(self->v.dtype);
    t->data = self->v.data;
    t->device.device_type = self->v.memory == GIP_MEM_CUDA     ? kDLCUDA
                            : self->v.memory == GIP_MEM_PINNED ? kDLCUDAHost
                                                               : kDLCPU;
    t->device.device_id = self->v.memory == GIP_MEM_CUDA ? self->v.device : 0;
    t->ndim = self->ndim;
    switch (self->v.dtype) {
    case GIP_U8:
        t->dtype = (DLDataType){kDLUInt, 8, 1};
        break;
    case GIP_U16:
        t->dtype = (DLDataType){kDLUInt, 16, 1};
        break;
    case GIP_S16:
        t->dtype = (DLDataType){kDLInt, 16, 1};
        break;
    case GIP_F32:
        t->dtype = (DLDataType){kDLFloat, 32, 1};
        break;
    default:
        t->dtype = (DLDataType){kDLComplex, 64, 1};
        break;
    }
    shape[0] = self->v.height;
    shape[1] = self->v.width;
    shape[2] = self->v.channels;
    /* DLPack strides are in elements: gip requires element-aligned row strides. */
    strides[0] = self->v.stride / isz;
    strides[1] = self->ndim == 3 ? self->v.channels : 1;
    strides[2] = 1;
    t->shape = shape;
    t->strides = strides;
    t->byte_offset = 0;
}

static PyObject *Image_dlpack(ImageObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO", kwlist, &stream, &max_version,
                                     &dl_device, &copy))
        return NULL;
    if (!image_usable(self))
        return NULL;
    if (copy != Py_None && PyObject_IsTrue(copy)) {
        PyErr_SetString(PyExc_BufferError, "gip.Image.__dlpack__: copy=True is not supported; "
                                           "gip exports its memory without a copy");
        return NULL;
    }
    int is_cuda = self->v.memory == GIP_MEM_CUDA;
    if (dl_device != Py_None) {
        int dt = 0, di = 0;
        if (!PyArg_ParseTuple(dl_device, "ii", &dt, &di))
            return NULL;
        int my_t = is_cuda ? kDLCUDA : kDLCPU, my_i = is_cuda ? self->v.device : 0;
        if (dt != my_t || di != my_i) {
            PyErr_SetString(PyExc_BufferError,
                            "gip.Image.__dlpack__: dl_device differs from the image's device");
            return NULL;
        }
    }
    if (is_cuda && self->ctx) {
        /* The consumer's stream waits for the work queued on the context (stream None means
         * the legacy default stream, -1 means the consumer asks for no synchronisation). */
        long long s = 1;
        if (stream != Py_None) {
            s = PyLong_AsLongLong(stream);
            if (s == -1 && PyErr_Occurred())
                return NULL;
        }
        if (s == 0) {
            PyErr_SetString(PyExc_ValueError, "__dlpack__: stream 0 is ambiguous for CUDA");
            return NULL;
        }
        if (s != -1) {
            gip_status st;
            char msg[1024];
            GIP_PY_RUN(self->ctx, st, msg,
                       gip_context_signal_stream(self->ctx->ctx, (void *)(uintptr_t)s));
            if (st)
                return raise_status(st, msg);
        }
    } else if (!is_cuda && stream != Py_None) {
        PyErr_SetString(PyExc_ValueError, "__dlpack__: stream must be None for a host image");
        return NULL;
    }
    int versioned = 0;
    if (max_version != Py_None) {
        int major = 0, minor = 0;
        if (!PyArg_ParseTuple(max_version, "ii", &major, &minor))
            return NULL;
        versioned = major >= 1;
    }
    if (versioned) {
        ExportVersioned *e = PyMem_RawCalloc(1, sizeof *e);
        if (!e)
            return PyErr_NoMemory();
        e->m.version.major = 1;
        e->m.version.minor = 0;
        e->m.flags = self->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
        self->mem->exported |= self->v.memory == GIP_MEM_CUDA;
        fill_dltensor(self, &e->m.dl_tensor, e->shape, e->strides);
        e->m.manager_ctx = self->mem; /* the tensor keeps the memory, not the Image */
        e->m.deleter = export_versioned_deleter;
        Py_INCREF(self->mem);
        PyObject *cap = PyCapsule_New(&e->m, "dltensor_versioned", export_capsule_destructor);
        if (!cap) {
            Py_DECREF(self->mem);
            PyMem_RawFree(e);
        }
        return cap;
    }
    ExportLegacy *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    self->mem->exported |= self->v.memory == GIP_MEM_CUDA;
    fill_dltensor(self, &e->m.dl_tensor, e->shape, e->strides);
    e->m.manager_ctx = self->mem; /* the tensor keeps the memory, not the Image */
    e->m.deleter = export_legacy_deleter;
    Py_INCREF(self->mem);
    PyObject *cap = PyCapsule_New(&e->m, "dltensor", export_capsule_destructor);
    if (!cap) {
        Py_DECREF(self->mem);
        PyMem_RawFree(e);
    }
    return cap;
}

static PyObject *Image_dlpack_device(ImageObject *self, PyObject *unused)
{
    if (!image_usable(self))
        return NULL;
    if (self->v.memory == GIP_MEM_CUDA)
        return Py_BuildValue("(ii)", (int)kDLCUDA, (int)self->v.device);
    if (self->v.memory == GIP_MEM_PINNED)
        return Py_BuildValue("(ii)", (int)kDLCUDAHost, 0);
    return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}

/* Drops the Image's view and its reference to the memory: the memory is freed now unless an
 * export still shows it (then when the last export is released). */
static PyObject *Image_close(ImageObject *self, PyObject *unused)
{
    memset(&self->v, 0, sizeof self->v);
    self->closed = 1;
    if (!self->iface_given)
        Py_CLEAR(self->mem);
    Py_RETURN_NONE;
}

static PyObject *Image_download(ImageObject *self, PyObject *args, PyObject *kwds)
{
    return call_helper("download", (PyObject *)self, args, kwds);
}
static PyObject *Image_upload(PyObject *cls, PyObject *args, PyObject *kwds)
{
    return call_helper("upload", cls, args, kwds);
}
static PyObject *Image_sync(ImageObject *self, PyObject *unused)
{
    if (!self->ctx)
        Py_RETURN_NONE;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self->ctx, st, msg, gip_context_sync(self->ctx->ctx));
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}
static PyObject *Image_dtype(ImageObject *self, void *unused)
{
    return call_helper("dtype", (PyObject *)self, NULL, NULL);
}
static PyObject *Image_device(ImageObject *self, void *unused)
{
    return call_helper("device", (PyObject *)self, NULL, NULL);
}
static PyObject *Image_repr(ImageObject *self)
{
    return call_helper("repr", (PyObject *)self, NULL, NULL);
}
static PyObject *Image_array(ImageObject *self, PyObject *args, PyObject *kwds)
{
    return call_helper("array", (PyObject *)self, args, kwds);
}

static PyMethodDef Image_methods[] = {
    {"download", (PyCFunction)(void (*)(void))Image_download, METH_VARARGS | METH_KEYWORDS,
     "download(out=None) -> numpy.ndarray: copies the image to host memory (waits for it)."},
    {"upload", (PyCFunction)(void (*)(void))Image_upload, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "Image.upload(array, device='cuda') -> Image: copies a host array to a device image."},
    {"sync", (PyCFunction)Image_sync, METH_NOARGS,
     "Waits for the work queued on the image's context."},
    {"__dlpack__", (PyCFunction)(void (*)(void))Image_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): a DLPack capsule "
     "of the image (no copy); the consumer's stream is made to wait for gip's queued work."},
    {"__dlpack_device__", (PyCFunction)Image_dlpack_device, METH_NOARGS,
     "(device_type, device_id): (2, N) for CUDA device N, (1, 0) for host memory."},
    {"__array__", (PyCFunction)(void (*)(void))Image_array, METH_VARARGS | METH_KEYWORDS,
     "__array__(dtype=None, copy=None) -> numpy.ndarray viewing a host image; device and closed "
     "images raise (download() a device image)."},
    {"close", (PyCFunction)Image_close, METH_NOARGS,
     "Drops the image's memory: memory gip allocated is freed now, a borrowed array is let go, "
     "unless an export (numpy view, memoryview, DLPack tensor, array interface consumer) still "
     "shows it; then it is freed when the last of those is. Any later use of the image raises "
     "gip.InvalidArgument."},
    {NULL}};

static PyGetSetDef Image_getset[] = {
    {"shape", (getter)Image_shape, NULL, "(H, W) or (H, W, C).", NULL},
    {"dtype", (getter)Image_dtype, NULL, "numpy dtype of the elements.", NULL},
    {"device", (getter)Image_device, NULL, "'cuda:N' or 'cpu'.", NULL},
    {"strides", (getter)Image_strides, NULL, "Byte strides, as numpy's.", NULL},
    {"typestr", (getter)Image_typestr, NULL, "numpy type string ('|u1', '<f4' ...).", NULL},
    {"ndim", (getter)Image_ndim, NULL, "2 or 3.", NULL},
    {"ptr", (getter)Image_ptr, NULL, "Address of the first pixel.", NULL},
    {"is_cuda", (getter)Image_is_cuda, NULL, "True for device memory.", NULL},
    {"device_index", (getter)Image_device_index, NULL, "CUDA ordinal, -1 on the host.", NULL},
    {"closed", (getter)Image_closed, NULL, "True after close().", NULL},
    {"context", (getter)Image_context, NULL, "The _gip.Context the image belongs to, or None.",
     NULL},
    {"__cuda_array_interface__", (getter)Image_cai, NULL, "CUDA array interface v3.", NULL},
    {"__array_interface__", (getter)Image_ai, NULL, "numpy array interface (host images).", NULL},
    {NULL}};

static PyTypeObject ImageType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Image",
    .tp_basicsize = sizeof(ImageObject),
    .tp_dealloc = (destructor)Image_dealloc,
    .tp_repr = (reprfunc)Image_repr,
    .tp_as_buffer = &Image_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "An image in host or CUDA device memory: gip's GpuMat. Results of operations on device "
        "arrays; exports the buffer protocol (host), __cuda_array_interface__ (v3) and __dlpack__ "
        "without copies. Exports keep the memory alive past close().",
    .tp_methods = Image_methods,
    .tp_getset = Image_getset,
};

/* ============================================================================================
 * Turning Python objects into gip_image views.
 * ========================================================================================== */
typedef struct {
    char *data;
    int ndim;
    int64_t shape[3];
    int64_t strides[3]; /* bytes */
    gip_dtype dtype;
    gip_memory memory;
    int32_t device;
    int readonly;
} Layout;

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

static void view_release(View *v)
{
    if (v->has_stream && v->c) {
        /* The producer's later work (overwriting or freeing the input) waits for gip's reads. */
        gip_status st;
        char msg[1024];
        GIP_PY_RUN(v->c, st, msg, gip_context_signal_stream(v->c->ctx, v->stream));
        (void)st;
    }
    if (v->has_buf)
        PyBuffer_Release(&v->buf);
    v->has_buf = 0;
    v->has_stream = 0;
    Py_CLEAR(v->hold);
}

static gip_dtype dtype_from_format(const char *f)
{
    if (!f)
        return GIP_U8;
    if (*f == '<' || *f == '=' || *f == '@' || *f == '|')
        f++;
    if (!strcmp(f, "B"))
        return GIP_U8;
    if (!strcmp(f, "H"))
        return GIP_U16;
    if (!strcmp(f, "h"))
        return GIP_S16;
    if (!strcmp(f, "f"))
        return GIP_F32;
    if (!strcmp(f, "Zf"))
        return GIP_C32;
    return GIP_DTYPE_NONE;
}

static gip_dtype dtype_from_typestr(const char *t)
{
    if (!strcmp(t, "|u1") || !strcmp(t, "<u1"))
        return GIP_U8;
    if (!strcmp(t, "<u2"))
        return GIP_U16;
    if (!strcmp(t, "<i2"))
        return GIP_S16;
    if (!strcmp(t, "<f4"))
        return GIP_F32;
    if (!strcmp(t, "<c8"))
        return GIP_C32;
    return GIP_DTYPE_NONE;
}

static gip_dtype dtype_from_dl(DLDataType t)
{
    if (t.lanes != 1)
        return GIP_DTYPE_NONE;
    if (t.code == kDLUInt && t.bits == 8)
        return GIP_U8;
    if (t.code == kDLUInt && t.bits == 16)
        return GIP_U16;
    if (t.code == kDLInt && t.bits == 16)
        return GIP_S16;
    if (t.code == kDLFloat && t.bits == 32)
        return GIP_F32;
    if (t.code == kDLComplex && t.bits == 64)
        return GIP_C32;
    return GIP_DTYPE_NONE;
}

#define UNSUPPORTED_DTYPE_MSG "uint8, uint16, int16, float32 and complex64 are accepted"

/* Makes v->img from a layout: a view when the pixels are interleaved (channel stride = element
 * size, pixel stride = channels * element size, positive aligned row stride), otherwise (inputs
 * only) a tight copy made with gip_copy_strided where the data live. */
static int view_from_layout(ContextObject *c, const Layout *L, int writable, const char *what,
                            View *v)
{
    if (L->dtype == GIP_DTYPE_NONE) {
        raise_fmt(GIP_ERR_UNSUPPORTED, "%s: unsupported element type; " UNSUPPORTED_DTYPE_MSG,
                  what);
        return -1;
    }
    if (L->ndim != 2 && L->ndim != 3) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                  "%s: expected a 2-D (H, W) or 3-D (H, W, C) array, got %d dimensions", what,
                  L->ndim);
        return -1;
    }
    int64_t h = L->shape[0], w = L->shape[1], ch = L->ndim == 3 ? L->shape[2] : 1;
    if (h < 1 || w < 1) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: empty array (%lld x %lld)", what, (long long)h,
                  (long long)w);
        return -1;
    }
    if (ch != 1 && ch != 3 && ch != 4) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: %lld channels; 1, 3 or 4 are accepted", what,
                  (long long)ch);
        return -1;
    }
    if (L->dtype == GIP_C32 && ch != 1) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: complex images have one channel", what);
        return -1;
    }
    if (writable && L->readonly) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the array is read-only", what);
        return -1;
    }
    if (L->memory == GIP_MEM_CUDA) {
        if (!c || gip_context_backend(c->ctx) != GIP_BACKEND_CUDA ||
            gip_context_device(c->ctx) != L->device) {
            raise_fmt(GIP_ERR_LOCATION_MISMATCH,
                      "%s: the array is on CUDA device %d but the operation runs on %s", what,
                      (int)L->device,
                      c && gip_context_backend(c->ctx) == GIP_BACKEND_CUDA ? "another device"
                                                                           : "the CPU");
            return -1;
        }
    }
    int64_t isz = (int64_t)gip_dtype_size(L->dtype);
    int64_t align = L->dtype == GIP_C32 ? 4 : isz;
    int64_t row = w * ch * isz;
    int interleaved = (ch == 1 || L->ndim == 2 || L->strides[2] == isz) &&
                      (w == 1 || L->strides[1] == ch * isz) &&
                      (h == 1 || (L->strides[0] >= row && L->strides[0] % align == 0)) &&
                      ((uintptr_t)L->data % (uintptr_t)align == 0);
    if (interleaved) {
        int64_t stride = h == 1 ? row : L->strides[0];
        gip_status st = gip_image_wrap(&v->img, L->data, w, h, (int32_t)ch, L->dtype, stride,
                                       L->memory, L->device);
        if (st) {
            char msg[1024];
            copy_error(st, msg, sizeof msg);
            raise_status(st, msg);
            return -1;
        }
        v->ndim = L->ndim;
        return 0;
    }
    if (writable) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                  "%s: output pixels must be interleaved (strides[-1] == itemsize, strides[1] == "
                  "channels * itemsize, positive row stride); got strides (%lld, %lld%s%lld)",
                  what, (long long)L->strides[0], (long long)L->strides[1],
                  L->ndim == 3 ? ", " : "", L->ndim == 3 ? (long long)L->strides[2] : 0LL);
        return -1;
    }
    /* Copy into a tight image where the data live. */
    gip_context *ctx = c ? c->ctx : NULL;
    gip_image tight = {0};
    gip_status st;
    char msg[1024];
    int host = L->memory != GIP_MEM_CUDA;
    GIP_PY_RUN(c, st, msg,
               gip_image_alloc(host ? NULL : ctx, &tight, w, h, (int32_t)ch, L->dtype,
                               host ? GIP_MEM_HOST : GIP_MEM_CUDA, GIP_ALLOC_TIGHT));
    if (st) {
        raise_status(st, msg);
        return -1;
    }
    ImageObject *copy = image_new(&tight, L->ndim, 1, host ? NULL : c, NULL);
    if (!copy) {
        gip_image_free(host ? NULL : ctx, &tight);
        return -1;
    }
    gip_strided s = {
        L->data,  {h, w, ch}, {L->strides[0], L->strides[1], L->ndim == 3 ? L->strides[2] : isz},
        L->dtype, L->memory,  L->device};
    gip_strided d = {tight.data, {h, w, ch},   {tight.stride, ch * isz, isz},
                     L->dtype,   tight.memory, tight.device};
    gip_context *tmp = NULL;
    if (!ctx) {
        /* Host data with no context given: a CPU context just for the copy. */
        gip_context_desc desc = {GIP_BACKEND_CPU, 0, 0, 0};
        if ((st = gip_context_create(&desc, &tmp))) {
            copy_error(st, msg, sizeof msg);
            Py_DECREF(copy);
            raise_status(st, msg);
            return -1;
        }
    }
    GIP_PY_RUN(c, st, msg, gip_copy_strided(ctx ? ctx : tmp, &s, &d));
    gip_context_destroy(tmp);
    if (st) {
        Py_DECREF(copy);
        raise_status(st, msg);
        return -1;
    }
    v->img = tight;
    v->ndim = L->ndim;
    v->hold = (PyObject *)copy;
    return 0;
}

static int view_from_buffer(ContextObject *c, PyObject *obj, int writable, const char *what,
                            View *v)
{
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &v->buf, flags) < 0) {
        PyErr_Clear();
        if (writable && PyObject_GetBuffer(obj, &v->buf, PyBUF_STRIDES | PyBUF_FORMAT) == 0) {
            PyBuffer_Release(&v->buf);
            raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the array is read-only", what);
        } else {
            PyErr_Clear();
            raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the object's buffer cannot be read", what);
        }
        return -1;
    }
    v->has_buf = 1;
    Layout L = {0};
    L.data = v->buf.buf;
    L.ndim = v->buf.ndim;
    L.dtype = dtype_from_format(v->buf.format);
    if (L.dtype != GIP_DTYPE_NONE && (int64_t)gip_dtype_size(L.dtype) != v->buf.itemsize)
        L.dtype = GIP_DTYPE_NONE;
    for (int i = 0; i < L.ndim && i < 3; i++) {
        L.shape[i] = v->buf.shape[i];
        L.strides[i] = v->buf.strides[i];
    }
    L.memory = GIP_MEM_HOST;
    L.readonly = v->buf.readonly;
    if (L.dtype == GIP_DTYPE_NONE) {
        raise_fmt(GIP_ERR_UNSUPPORTED,
                  "%s: element type '%s' is not supported; " UNSUPPORTED_DTYPE_MSG, what,
                  v->buf.format ? v->buf.format : "?");
        return -1;
    }
    return view_from_layout(c, &L, writable, what, v);
}

/* Owner capsule of an imported DLPack tensor: calls the producer's deleter when released. */
static void dl_owner_legacy(PyObject *cap)
{
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "gip.dlpack_owner");
    if (m && m->deleter)
        m->deleter(m);
}
static void dl_owner_versioned(PyObject *cap)
{
    DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "gip.dlpack_owner_v");
    if (m && m->deleter)
        m->deleter(m);
}

static int view_from_dlpack(ContextObject *c, PyObject *obj, int writable, const char *what,
                            View *v)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (!dev)
        return -1;
    int dtype_ = 0, did = 0;
    if (!PyArg_ParseTuple(dev, "ii", &dtype_, &did)) {
        Py_DECREF(dev);
        return -1;
    }
    Py_DECREF(dev);
    int is_cuda = dtype_ == kDLCUDA || dtype_ == kDLCUDAManaged;
    if (!is_cuda && dtype_ != kDLCPU && dtype_ != kDLCUDAHost) {
        raise_fmt(GIP_ERR_LOCATION_MISMATCH,
                  "%s: DLPack device type %d is neither CUDA nor host memory", what, dtype_);
        return -1;
    }
    if (is_cuda && (!c || gip_context_backend(c->ctx) != GIP_BACKEND_CUDA ||
                    gip_context_device(c->ctx) != did)) {
        raise_fmt(GIP_ERR_LOCATION_MISMATCH,
                  "%s: the array is on CUDA device %d but the operation runs on %s", what, did,
                  c && gip_context_backend(c->ctx) == GIP_BACKEND_CUDA ? "another device"
                                                                       : "the CPU");
        return -1;
    }
    PyObject *kw = PyDict_New();
    if (!kw)
        return -1;
    if (is_cuda) {
        /* The producer makes our stream wait for its work (DLPack's stream argument). */
        PyObject *s = PyLong_FromVoidPtr(gip_context_stream(c->ctx));
        if (!s || PyDict_SetItemString(kw, "stream", s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(kw);
            return -1;
        }
        Py_DECREF(s);
    }
    PyObject *mv = Py_BuildValue("(ii)", 1, 0);
    PyObject *empty = PyTuple_New(0);
    if (!mv || !empty || PyDict_SetItemString(kw, "max_version", mv) < 0) {
        Py_XDECREF(mv);
        Py_XDECREF(empty);
        Py_DECREF(kw);
        return -1;
    }
    Py_DECREF(mv);
    PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
    PyObject *cap = meth ? PyObject_Call(meth, empty, kw) : NULL;
    if (!cap && meth && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* A producer from before DLPack 1.0 does not know max_version. */
        PyErr_Clear();
        PyDict_DelItemString(kw, "max_version");
        cap = PyObject_Call(meth, empty, kw);
    }
    Py_XDECREF(meth);
    Py_DECREF(empty);
    Py_DECREF(kw);
    if (!cap)
        return -1;
    DLTensor *t = NULL;
    int readonly = 0;
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m->version.major != 1) {
            Py_DECREF(cap);
            raise_fmt(GIP_ERR_UNSUPPORTED, "%s: DLPack major version %u is not supported (1)", what,
                      (unsigned)m->version.major);
            return -1;
        }
        PyCapsule_SetName(cap, "used_dltensor_versioned");
        v->hold = PyCapsule_New(m, "gip.dlpack_owner_v", dl_owner_versioned);
        if (!v->hold) {
            if (m->deleter)
                m->deleter(m);
            Py_DECREF(cap);
            return -1;
        }
        t = &m->dl_tensor;
        readonly = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        PyCapsule_SetName(cap, "used_dltensor");
        v->hold = PyCapsule_New(m, "gip.dlpack_owner", dl_owner_legacy);
        if (!v->hold) {
            if (m->deleter)
                m->deleter(m);
            Py_DECREF(cap);
            return -1;
        }
        t = &m->dl_tensor;
    } else {
        Py_DECREF(cap);
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: __dlpack__ did not return a DLPack capsule", what);
        return -1;
    }
    Py_DECREF(cap);
    Layout L = {0};
    L.data = (char *)t->data + t->byte_offset;
    L.ndim = t->ndim;
    L.dtype = dtype_from_dl(t->dtype);
    L.readonly = readonly;
    if (L.ndim == 2 || L.ndim == 3) {
        int64_t isz = L.dtype ? (int64_t)gip_dtype_size(L.dtype) : 1;
        int64_t compact = isz;
        for (int i = L.ndim - 1; i >= 0; i--) {
            L.shape[i] = t->shape[i];
            L.strides[i] = t->strides ? t->strides[i] * isz : compact;
            compact *= t->shape[i];
        }
    }
    L.memory = is_cuda ? GIP_MEM_CUDA : dtype_ == kDLCUDAHost ? GIP_MEM_PINNED : GIP_MEM_HOST;
    L.device = is_cuda ? did : 0;
    return view_from_layout(c, &L, writable, what, v);
}

static int64_t dict_int(PyObject *o, int *err)
{
    long long x = PyLong_AsLongLong(o);
    if (x == -1 && PyErr_Occurred())
        *err = 1;
    return (int64_t)x;
}

static int view_from_cai(ContextObject *c, PyObject *obj, int writable, const char *what, View *v)
{
    PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (!d)
        return -1;
    int ret = -1, err = 0;
    Layout L = {0};
    if (!PyDict_Check(d)) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: __cuda_array_interface__ is not a dict", what);
        goto out_decref;
    }
    PyObject *shape = PyDict_GetItemString(d, "shape");
    PyObject *typestr = PyDict_GetItemString(d, "typestr");
    PyObject *data = PyDict_GetItemString(d, "data");
    PyObject *strides = PyDict_GetItemString(d, "strides");
    PyObject *stream = PyDict_GetItemString(d, "stream");
    PyObject *mask = PyDict_GetItemString(d, "mask");
    if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data ||
        !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                  "%s: __cuda_array_interface__ lacks shape, typestr or data", what);
        goto out_decref;
    }
    if (mask && mask != Py_None) {
        raise_fmt(GIP_ERR_UNSUPPORTED, "%s: masked CUDA arrays are not supported", what);
        goto out_decref;
    }
    L.ndim = (int)PyTuple_GET_SIZE(shape);
    L.dtype = dtype_from_typestr(PyUnicode_AsUTF8(typestr));
    L.data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (!L.data && PyErr_Occurred())
        goto out_decref;
    L.readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (L.ndim == 2 || L.ndim == 3) {
        int64_t isz = L.dtype ? (int64_t)gip_dtype_size(L.dtype) : 1, compact = isz;
        for (int i = L.ndim - 1; i >= 0; i--) {
            L.shape[i] = dict_int(PyTuple_GET_ITEM(shape, i), &err);
            if (strides && strides != Py_None) {
                if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != L.ndim) {
                    raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                              "%s: __cuda_array_interface__ strides do not match the shape", what);
                    goto out_decref;
                }
                L.strides[i] = dict_int(PyTuple_GET_ITEM(strides, i), &err);
            } else {
                L.strides[i] = compact;
            }
            compact *= L.shape[i];
        }
        if (err)
            goto out_decref;
    }
    if (L.data) {
        gip_memory mem;
        int32_t dev;
        gip_pointer_location(L.data, &mem, &dev);
        L.memory = mem;
        L.device = dev;
        if (mem != GIP_MEM_CUDA) {
            raise_fmt(GIP_ERR_LOCATION_MISMATCH,
                      "%s: __cuda_array_interface__ points at memory that is not CUDA device "
                      "memory",
                      what);
            goto out_decref;
        }
    } else {
        L.memory = GIP_MEM_CUDA;
    }
    if (stream && stream != Py_None) {
        long long s = PyLong_AsLongLong(stream);
        if (s == -1 && PyErr_Occurred())
            goto out_decref;
        if (s == 0) {
            raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                      "%s: __cuda_array_interface__ stream 0 is not allowed (v3)", what);
            goto out_decref;
        }
        if (view_from_layout(c, &L, writable, what, v))
            goto out_decref;
        gip_status st;
        char msg[1024];
        GIP_PY_RUN(c, st, msg, gip_context_wait_stream(c->ctx, (void *)(uintptr_t)s));
        if (st) {
            raise_status(st, msg);
            goto out_decref;
        }
        v->stream = (void *)(uintptr_t)s;
        v->has_stream = 1;
        ret = 0;
        goto out_decref;
    }
    ret = view_from_layout(c, &L, writable, what, v);
out_decref:
    Py_DECREF(d);
    return ret;
}

/* Resolves obj (gip Image, buffer, DLPack or CUDA array interface object) into v for context c
 * (may be NULL for host-only use). 0 or -1 with an exception set; on -1 v holds nothing. */
static PyObject *py_where(PyObject *m, PyObject *obj);

static int resolve(ContextObject *c, PyObject *obj, int writable, const char *what, View *v)
{
    memset(v, 0, sizeof *v);
    v->c = c;
    int r;
    if (PyObject_TypeCheck(obj, &ImageType)) {
        ImageObject *im = (ImageObject *)obj;
        if (!image_usable(im))
            return -1;
        if (writable && im->readonly) {
            raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the image is read-only", what);
            return -1;
        }
        v->img = im->v;
        v->ndim = im->ndim;
        /* The call holds the memory: another thread may close the Image while it runs. */
        v->hold = (PyObject *)im->mem;
        Py_INCREF(v->hold);
        return 0;
    }
    /* Device arrays first: some (CuPy >= 14) also expose the buffer protocol, only to refuse it. */
    int dl = PyObject_HasAttrString(obj, "__dlpack__") &&
             PyObject_HasAttrString(obj, "__dlpack_device__");
    int on_device = PyObject_HasAttrString(obj, "__cuda_array_interface__");
    if (!on_device && dl) {
        PyObject *w = py_where(NULL, obj);
        if (!w)
            return -1;
        on_device = strcmp(PyUnicode_AsUTF8(PyTuple_GET_ITEM(w, 0)), "cuda") == 0;
        Py_DECREF(w);
    }
    if (PyObject_CheckBuffer(obj) && !on_device)
        r = view_from_buffer(c, obj, writable, what, v);
    else if (dl)
        r = view_from_dlpack(c, obj, writable, what, v);
    else if (PyObject_HasAttrString(obj, "__cuda_array_interface__"))
        r = view_from_cai(c, obj, writable, what, v);
    else {
        raise_fmt(GIP_ERR_UNSUPPORTED,
                  "%s: expected a numpy array, a gip.Image or an object with "
                  "__dlpack__/__cuda_array_interface__, got %s",
                  what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (r)
        view_release(v);
    return r;
}

/* Keeps src (and what its view holds) alive as long as dst when dst is a device image: queued
 * GPU work may still read it after the call returns. */
static void keep_alive(PyObject *dst, PyObject *src, View *sv)
{
    if (PyObject_TypeCheck(src, &ImageType)) {
        ImageObject *si = (ImageObject *)src;
        if (si->has_pstream && sv->c) {
            /* The producer's later work on its stream waits for the reads just queued. */
            gip_status st;
            char msg[1024];
            GIP_PY_RUN(sv->c, st, msg, gip_context_signal_stream(sv->c->ctx, si->pstream));
            (void)st;
        }
    }
    if (!PyObject_TypeCheck(dst, &ImageType))
        return;
    ImageObject *d = (ImageObject *)dst;
    if (d->v.memory != GIP_MEM_CUDA || src == dst || !d->mem)
        return;
    MemoryObject *dm = d->mem;
    if (!dm->keep && !(dm->keep = PyList_New(0))) {
        PyErr_Clear();
        return;
    }
    if (PyList_Append(dm->keep, src) < 0 || (sv->hold && PyList_Append(dm->keep, sv->hold) < 0))
        PyErr_Clear();
}

/* ============================================================================================
 * Module functions: images.
 * ========================================================================================== */
static ContextObject *opt_ctx(PyObject *o)
{
    if (o == Py_None)
        return NULL;
    if (!PyObject_TypeCheck(o, &ContextType)) {
        PyErr_SetString(PyExc_TypeError, "expected a _gip.Context or None");
        return NULL;
    }
    return (ContextObject *)o;
}

/* empty(ctx, h, w, channels, dtype, ndim, device_memory) -> Image of gip-allocated memory. */
static PyObject *py_empty(PyObject *m, PyObject *args)
{
    PyObject *co;
    long long h, w;
    int ch, dtype, ndim, on_device;
    if (!PyArg_ParseTuple(args, "OLLiiip", &co, &h, &w, &ch, &dtype, &ndim, &on_device))
        return NULL;
    ContextObject *c = opt_ctx(co);
    if (!c && PyErr_Occurred())
        return NULL;
    if (on_device && !c)
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT, "empty: device memory needs a context");
    gip_image img = {0};
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg,
               gip_image_alloc(on_device ? c->ctx : NULL, &img, w, h, ch, (gip_dtype)dtype,
                               on_device ? GIP_MEM_CUDA : GIP_MEM_HOST, 0));
    if (st)
        return raise_status(st, msg);
    ImageObject *im = image_new(&img, ndim, 1, on_device ? c : NULL, NULL);
    if (!im)
        gip_image_free(on_device ? c->ctx : NULL, &img);
    return (PyObject *)im;
}

/* asimage(ctx, obj) -> Image viewing obj's memory without a copy (or a tight copy of a view
 * whose pixels are not interleaved). */
static PyObject *py_asimage(PyObject *m, PyObject *args)
{
    PyObject *co, *obj;
    if (!PyArg_ParseTuple(args, "OO", &co, &obj))
        return NULL;
    ContextObject *c = opt_ctx(co);
    if (!c && PyErr_Occurred())
        return NULL;
    if (PyObject_TypeCheck(obj, &ImageType)) {
        Py_INCREF(obj);
        return obj;
    }
    View v;
    if (resolve(c, obj, 0, "array", &v))
        return NULL;
    ImageObject *im;
    if (v.hold && PyObject_TypeCheck(v.hold, &ImageType)) {
        im = (ImageObject *)v.hold; /* a tight copy */
        Py_INCREF(im);
    } else {
        im = image_new(&v.img, v.ndim, 0, v.img.memory == GIP_MEM_CUDA ? c : NULL,
                       v.hold ? v.hold : obj);
        if (im && v.hold && PyObject_TypeCheck(v.hold, &PyCapsule_Type)) {
            /* Keep the original object too (its producer may track it). */
            im->mem->keep = PyList_New(0);
            if (!im->mem->keep || PyList_Append(im->mem->keep, obj) < 0)
                PyErr_Clear();
        }
    }
    if (im) {
        int ro = 0;
        if (v.has_buf) {
            ro = v.buf.readonly;
            if (im->mem->base == obj) {
                /* The memory keeps the buffer export, not only the object: the exporter may
                 * not move or resize its memory while it is shown. */
                im->mem->buf = v.buf;
                im->mem->has_buf = 1;
                v.has_buf = 0;
            }
        }
        im->readonly = ro;
        if (v.has_stream) {
            /* Signalled after each operation that reads the image (after_read), not now. */
            im->pstream = v.stream;
            im->has_pstream = 1;
            v.has_stream = 0;
        }
    }
    view_release(&v);
    return (PyObject *)im;
}

/* copy(ctx, src, dst): gip_copy between any host/device combination (upload, download). */
static PyObject *py_copy(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *dst;
    if (!PyArg_ParseTuple(args, "OOO", &co, &src, &dst))
        return NULL;
    ContextObject *c = opt_ctx(co);
    if (!c && PyErr_Occurred())
        return NULL;
    View s, d;
    if (resolve(c, src, 0, "src", &s))
        return NULL;
    if (resolve(c, dst, 1, "dst", &d)) {
        view_release(&s);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    gip_context *tmp = NULL;
    if (!c) {
        gip_context_desc desc = {GIP_BACKEND_CPU, 0, 0, 0};
        st = gip_context_create(&desc, &tmp);
        if (st) {
            copy_error(st, msg, sizeof msg);
            goto out_release;
        }
    }
    GIP_PY_RUN(c, st, msg, gip_copy(c ? c->ctx : tmp, &s.img, &d.img));
    gip_context_destroy(tmp);
    if (!st)
        keep_alive(dst, src, &s);
out_release:
    view_release(&s);
    view_release(&d);
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* real_to_complex(ctx, src f32, dst c32): dst = src + 0j (numpy.fft.fft2's real input). */
static PyObject *py_real_to_complex(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *dst;
    if (!PyArg_ParseTuple(args, "O!OO", &ContextType, &co, &src, &dst))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    View s, d;
    if (resolve(c, src, 0, "src", &s))
        return NULL;
    if (resolve(c, dst, 1, "dst", &d)) {
        view_release(&s);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    if (s.img.dtype != GIP_F32 || s.img.channels != 1 || d.img.dtype != GIP_C32 ||
        s.img.width != d.img.width || s.img.height != d.img.height) {
        view_release(&s);
        view_release(&d);
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                         "real_to_complex: src must be 1-channel float32 and dst complex64 of "
                         "the same size");
    }
    gip_strided sv = {s.img.data,           {s.img.height, s.img.width, 1},
                      {s.img.stride, 4, 4}, GIP_F32,
                      s.img.memory,         s.img.device};
    gip_strided dv = {d.img.data,           {d.img.height, d.img.width, 1},
                      {d.img.stride, 8, 4}, GIP_F32,
                      d.img.memory,         d.img.device};
    GIP_PY_RUN(c, st, msg, gip_image_fill_bytes(c->ctx, &d.img, 0));
    if (!st)
        GIP_PY_RUN(c, st, msg, gip_copy_strided(c->ctx, &sv, &dv));
    if (!st)
        keep_alive(dst, src, &s);
    view_release(&s);
    view_release(&d);
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* ============================================================================================
 * Operations. The Python layer passes every argument positionally, already normalised.
 * ========================================================================================== */
typedef gip_status (*unary_fn)(gip_context *, const gip_image *, gip_image *, const void *);

static PyObject *run_unary(PyObject *co, PyObject *src, PyObject *dst, unary_fn fn,
                           const void *params)
{
    if (!PyObject_TypeCheck(co, &ContextType)) {
        PyErr_SetString(PyExc_TypeError, "expected a _gip.Context");
        return NULL;
    }
    ContextObject *c = (ContextObject *)co;
    View s, d;
    if (resolve(c, src, 0, "src", &s))
        return NULL;
    if (resolve(c, dst, 1, "dst", &d)) {
        view_release(&s);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, fn(c->ctx, &s.img, &d.img, params));
    if (!st)
        keep_alive(dst, src, &s);
    view_release(&s);
    view_release(&d);
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

static gip_status f_invert(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_invert(x, s, d, p);
}
static gip_status f_box(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_box_filter(x, s, d, p);
}
static gip_status f_filter2d(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_filter2d(x, s, d, p);
}
static gip_status f_fft_convolve(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft_convolve(x, s, d, p);
}
static gip_status f_conv2d(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_conv2d(x, s, d, p);
}
static gip_status f_sobel(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel(x, s, d, p);
}
static gip_status f_sobel_mag(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel_magnitude(x, s, d, p);
}
static gip_status f_gaussian(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_gaussian_blur(x, s, d, p);
}
static gip_status f_cvt(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_cvt_color(x, s, d, *(const gip_color_code *)p);
}
static gip_status f_convert(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    const double *sc = p;
    return gip_convert(x, s, d, sc[0], sc[1]);
}
static gip_status f_fft2(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft2(x, s, d, p);
}
static gip_status f_ifft2(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_ifft2(x, s, d, p);
}
static gip_status f_fftshift(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return *(const int *)p ? gip_ifftshift(x, s, d) : gip_fftshift(x, s, d);
}
static gip_status f_magnitude(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_magnitude(x, s, d);
}
static gip_status f_log_magnitude(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_log_magnitude(x, s, d, p);
}
static gip_status f_normalize(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_normalize_minmax(x, s, d);
}
static gip_status f_spectrum(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_spectrum(x, s, d, p);
}

static gip_border_spec border_spec(int mode, double value)
{
    gip_border_spec b;
    b.mode = (gip_border)mode;
    for (int i = 0; i < 4; i++)
        b.value[i] = (float)value;
    return b;
}

static PyObject *py_invert(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    float mx;
    if (!PyArg_ParseTuple(args, "OOOf", &c, &s, &d, &mx))
        return NULL;
    gip_invert_params p = {mx};
    return run_unary(c, s, d, f_invert, &p);
}

static PyObject *py_box_filter(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int kw, kh, ax, ay, normalize, border;
    double bval;
    if (!PyArg_ParseTuple(args, "OOOiiiipid", &c, &s, &d, &kw, &kh, &ax, &ay, &normalize, &border,
                          &bval))
        return NULL;
    gip_box_params p = {0};
    p.ksize_w = kw;
    p.ksize_h = kh;
    p.has_anchor = ax >= 0 || ay >= 0;
    p.anchor_x = ax < 0 ? kw / 2 : ax;
    p.anchor_y = ay < 0 ? kh / 2 : ay;
    p.unnormalized = !normalize;
    p.border = border_spec(border, bval);
    if (kw < 1 || kh < 1)
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT, "box_filter: ksize (%d, %d) must be >= 1", kw,
                         kh);
    return run_unary(c, s, d, f_box, &p);
}

/* Reads a C-contiguous float32 buffer of exactly n values. */
static int float_buffer(PyObject *o, Py_ssize_t n, const char *what, Py_buffer *b)
{
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (dtype_from_format(b->format) != GIP_F32 || b->len != n * 4) {
        PyBuffer_Release(b);
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: expected %zd float32 values", what, n);
        return -1;
    }
    return 0;
}

/* filter2d(ctx, src, dst, kernel, kw, kh, ax, ay, delta, border, bval, method, fft_only) */
static PyObject *py_filter2d(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d, *k;
    int kw, kh, ax, ay, border, method, fft_only;
    double delta, bval;
    if (!PyArg_ParseTuple(args, "OOOOiiiididip", &c, &s, &d, &k, &kw, &kh, &ax, &ay, &delta,
                          &border, &bval, &method, &fft_only))
        return NULL;
    if (kw < 1 || kh < 1)
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT, "filter2d: kernel shape (%d, %d) is empty", kh,
                         kw);
    Py_buffer kb;
    if (float_buffer(k, (Py_ssize_t)kw * kh, "filter2d: kernel", &kb))
        return NULL;
    gip_filter2d_params p = {0};
    p.kernel = kb.buf;
    p.ksize_w = kw;
    p.ksize_h = kh;
    p.has_anchor = ax >= 0 || ay >= 0;
    p.anchor_x = ax < 0 ? kw / 2 : ax;
    p.anchor_y = ay < 0 ? kh / 2 : ay;
    p.delta = (float)delta;
    p.border = border_spec(border, bval);
    p.method = (gip_conv_method)method;
    PyObject *r = run_unary(c, s, d, fft_only ? f_fft_convolve : f_filter2d, &p);
    PyBuffer_Release(&kb);
    return r;
}

/* conv2d(ctx, src, dst, weight, bias|None, out_ch, in_ch, kh, kw, ph, pw) */
static PyObject *py_conv2d(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d, *w, *bias;
    int oc, ic, kh, kw, ph, pw;
    if (!PyArg_ParseTuple(args, "OOOOOiiiiii", &c, &s, &d, &w, &bias, &oc, &ic, &kh, &kw, &ph, &pw))
        return NULL;
    if (oc < 1 || ic < 1 || kh < 1 || kw < 1)
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT, "conv2d: weight shape must be positive");
    Py_buffer wb, bb;
    if (float_buffer(w, (Py_ssize_t)oc * ic * kh * kw, "conv2d: weight", &wb))
        return NULL;
    int has_bias = bias != Py_None;
    if (has_bias && float_buffer(bias, oc, "conv2d: bias", &bb)) {
        PyBuffer_Release(&wb);
        return NULL;
    }
    gip_conv2d_params p = {0};
    p.weight = wb.buf;
    p.bias = has_bias ? bb.buf : NULL;
    p.kh = kh;
    p.kw = kw;
    p.pad_h = ph;
    p.pad_w = pw;
    PyObject *r = run_unary(c, s, d, f_conv2d, &p);
    PyBuffer_Release(&wb);
    if (has_bias)
        PyBuffer_Release(&bb);
    return r;
}

/* sobel(ctx, src, dst, dx, dy, ksize, scale, delta, border, bval, magnitude) */
static PyObject *py_sobel(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int dx, dy, ksize, border, magnitude;
    double scale, delta, bval;
    if (!PyArg_ParseTuple(args, "OOOiiiddidp", &c, &s, &d, &dx, &dy, &ksize, &scale, &delta,
                          &border, &bval, &magnitude))
        return NULL;
    gip_sobel_params p = {0};
    p.dx = dx;
    p.dy = dy;
    p.ksize = ksize;
    p.scale = (float)scale;
    p.delta = (float)delta;
    p.border = border_spec(border, bval);
    if (scale == 0.0)
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT, "sobel: scale must not be 0");
    return run_unary(c, s, d, magnitude ? f_sobel_mag : f_sobel, &p);
}

/* gaussian_blur(ctx, src, dst, kw, kh, sx, sy, border, bval, method) */
static PyObject *py_gaussian_blur(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int kw, kh, border, method;
    double sx, sy, bval;
    if (!PyArg_ParseTuple(args, "OOOiiddidi", &c, &s, &d, &kw, &kh, &sx, &sy, &border, &bval,
                          &method))
        return NULL;
    gip_gaussian_params p = {0};
    p.ksize_w = kw;
    p.ksize_h = kh;
    p.sigma_x = sx;
    p.sigma_y = sy;
    p.border = border_spec(border, bval);
    p.method = (gip_conv_method)method;
    return run_unary(c, s, d, f_gaussian, &p);
}

static PyObject *py_cvt_color(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int code;
    if (!PyArg_ParseTuple(args, "OOOi", &c, &s, &d, &code))
        return NULL;
    gip_color_code cc = (gip_color_code)code;
    return run_unary(c, s, d, f_cvt, &cc);
}

static PyObject *py_convert(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    double sc[2];
    if (!PyArg_ParseTuple(args, "OOOdd", &c, &s, &d, &sc[0], &sc[1]))
        return NULL;
    return run_unary(c, s, d, f_convert, sc);
}

static PyObject *py_fft2(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int norm, inverse;
    if (!PyArg_ParseTuple(args, "OOOip", &c, &s, &d, &norm, &inverse))
        return NULL;
    gip_fft_params p = {(gip_fft_norm)norm, 0};
    return run_unary(c, s, d, inverse ? f_ifft2 : f_fft2, &p);
}

static PyObject *py_fftshift(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int inverse;
    if (!PyArg_ParseTuple(args, "OOOp", &c, &s, &d, &inverse))
        return NULL;
    return run_unary(c, s, d, f_fftshift, &inverse);
}

static PyObject *py_magnitude(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int log, log1p;
    if (!PyArg_ParseTuple(args, "OOOpp", &c, &s, &d, &log, &log1p))
        return NULL;
    gip_log_magnitude_params p = {log1p};
    return run_unary(c, s, d, log ? f_log_magnitude : f_magnitude, &p);
}

static PyObject *py_normalize_minmax(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    if (!PyArg_ParseTuple(args, "OOO", &c, &s, &d))
        return NULL;
    return run_unary(c, s, d, f_normalize, NULL);
}

static PyObject *py_spectrum(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int log1p, bgr;
    if (!PyArg_ParseTuple(args, "OOOpp", &c, &s, &d, &log1p, &bgr))
        return NULL;
    gip_spectrum_params p = {log1p, bgr};
    return run_unary(c, s, d, f_spectrum, &p);
}

/* Fills up to GIP_EXPR_MAX_SCALARS scalars from a dict {name: float}; names stay owned by the
 * dict's keys. Returns the count or -1. */
static int parse_scalars(PyObject *dict, gip_scalar *out)
{
    if (dict == Py_None)
        return 0;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "scalars must be a dict {name: number}");
        return -1;
    }
    if (PyDict_Size(dict) > GIP_EXPR_MAX_SCALARS) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "at most %d scalars", GIP_EXPR_MAX_SCALARS);
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    int n = 0;
    while (PyDict_Next(dict, &pos, &k, &v)) {
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "scalar names must be strings");
            return -1;
        }
        out[n].name = PyUnicode_AsUTF8(k);
        double x = PyFloat_AsDouble(v);
        if (!out[n].name || (x == -1.0 && PyErr_Occurred()))
            return -1;
        out[n].value = (float)x;
        n++;
    }
    return n;
}

/* map(ctx, expr, inputs tuple, dst, scalars dict|None) */
static PyObject *py_map(PyObject *m, PyObject *args)
{
    PyObject *co, *inputs, *dst, *scal;
    const char *expr;
    if (!PyArg_ParseTuple(args, "O!sO!OO", &ContextType, &co, &expr, &PyTuple_Type, &inputs, &dst,
                          &scal))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    if (n < 1 || n > GIP_EXPR_MAX_INPUTS)
        return raise_fmt(GIP_ERR_INVALID_ARGUMENT, "map: 1 to %d inputs, got %zd",
                         GIP_EXPR_MAX_INPUTS, n);
    gip_scalar sc[GIP_EXPR_MAX_SCALARS];
    int ns = parse_scalars(scal, sc);
    if (ns < 0)
        return NULL;
    View vs[GIP_EXPR_MAX_INPUTS], d;
    gip_image imgs[GIP_EXPR_MAX_INPUTS];
    Py_ssize_t got = 0;
    PyObject *ret = NULL;
    for (; got < n; got++) {
        if (resolve(c, PyTuple_GET_ITEM(inputs, got), 0, "input", &vs[got]))
            goto out_release;
        imgs[got] = vs[got].img;
    }
    if (resolve(c, dst, 1, "dst", &d))
        goto out_release;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_map(c->ctx, expr, imgs, (int32_t)n, sc, ns, &d.img));
    if (!st)
        for (Py_ssize_t i = 0; i < n; i++)
            keep_alive(dst, PyTuple_GET_ITEM(inputs, i), &vs[i]);
    view_release(&d);
    if (st)
        raise_status(st, msg);
    else {
        Py_INCREF(Py_None);
        ret = Py_None;
    }
out_release:
    for (Py_ssize_t i = 0; i < got; i++)
        view_release(&vs[i]);
    return ret;
}

/* stencil(ctx, expr, src, dst, radius, border, bval, scalars) */
static PyObject *py_stencil(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *dst, *scal;
    const char *expr;
    int radius, border;
    double bval;
    if (!PyArg_ParseTuple(args, "O!sOOiidO", &ContextType, &co, &expr, &src, &dst, &radius, &border,
                          &bval, &scal))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    gip_scalar sc[GIP_EXPR_MAX_SCALARS];
    int ns = parse_scalars(scal, sc);
    if (ns < 0)
        return NULL;
    gip_stencil_params p = {0};
    p.radius = radius;
    p.border = border_spec(border, bval);
    p.scalars = ns ? sc : NULL;
    p.n_scalars = ns;
    View s, d;
    if (resolve(c, src, 0, "src", &s))
        return NULL;
    if (resolve(c, dst, 1, "dst", &d)) {
        view_release(&s);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_stencil(c->ctx, expr, &s.img, &d.img, &p));
    if (!st)
        keep_alive(dst, src, &s);
    view_release(&s);
    view_release(&d);
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* ============================================================================================
 * Files.
 * ========================================================================================== */
static PyObject *image_from_loaded(gip_image *img)
{
    ImageObject *im = image_new(img, img->channels == 1 ? 2 : 3, 1, NULL, NULL);
    if (!im)
        gip_image_free(NULL, img);
    return (PyObject *)im;
}

/* imread(path, mode, bgr, keep_depth, ignore_orientation=False) -> host Image owning the
 * pixels. */
static PyObject *py_imread(PyObject *m, PyObject *args)
{
    PyObject *path_obj;
    int mode, bgr, keep_depth, ignore_orientation = 0;
    if (!PyArg_ParseTuple(args, "O&ipp|p", PyUnicode_FSConverter, &path_obj, &mode, &bgr,
                          &keep_depth, &ignore_orientation))
        return NULL;
    gip_load_params p = {0};
    p.mode = (gip_load_mode)mode;
    p.bgr = bgr;
    p.keep_depth = keep_depth;
    p.ignore_orientation = ignore_orientation;
    gip_image img = {0};
    gip_status st;
    char msg[1024];
    const char *path = PyBytes_AS_STRING(path_obj);
    GIP_PY_RUN(NULL, st, msg, gip_image_load(path, &p, &img));
    Py_DECREF(path_obj);
    if (st)
        return raise_status(st, msg);
    return image_from_loaded(&img);
}

/* imdecode(bytes-like, mode, bgr, keep_depth, ignore_orientation=False) -> host Image. */
static PyObject *py_imdecode(PyObject *m, PyObject *args)
{
    Py_buffer b;
    int mode, bgr, keep_depth, ignore_orientation = 0;
    if (!PyArg_ParseTuple(args, "y*ipp|p", &b, &mode, &bgr, &keep_depth, &ignore_orientation))
        return NULL;
    gip_load_params p = {0};
    p.mode = (gip_load_mode)mode;
    p.bgr = bgr;
    p.keep_depth = keep_depth;
    p.ignore_orientation = ignore_orientation;
    gip_image img = {0};
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_image_decode(b.buf, (size_t)b.len, &p, &img));
    PyBuffer_Release(&b);
    if (st)
        return raise_status(st, msg);
    return image_from_loaded(&img);
}

static int save_params(PyObject *t, gip_save_params *p)
{
    memset(p, 0, sizeof *p);
    int fmt, q, sub, prog, png, bgr;
    if (!PyArg_ParseTuple(t, "iiiiii", &fmt, &q, &sub, &prog, &png, &bgr))
        return -1;
    p->format = (gip_format)fmt;
    p->quality = q;
    p->subsampling = (gip_subsampling)sub;
    p->progressive = prog;
    p->png_compression = png;
    p->bgr = bgr;
    return 0;
}

/* imwrite(path, src, (format, quality, subsampling, progressive, png_compression, bgr)) */
static PyObject *py_imwrite(PyObject *m, PyObject *args)
{
    PyObject *path_obj, *src, *pt;
    if (!PyArg_ParseTuple(args, "O&OO!", PyUnicode_FSConverter, &path_obj, &src, &PyTuple_Type,
                          &pt))
        return NULL;
    gip_save_params p;
    View s;
    if (save_params(pt, &p) || resolve(NULL, src, 0, "img", &s)) {
        Py_DECREF(path_obj);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    const char *path = PyBytes_AS_STRING(path_obj);
    GIP_PY_RUN(NULL, st, msg, gip_image_save(path, &s.img, &p));
    view_release(&s);
    Py_DECREF(path_obj);
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* imencode(src, params tuple) -> bytes */
static PyObject *py_imencode(PyObject *m, PyObject *args)
{
    PyObject *src, *pt;
    if (!PyArg_ParseTuple(args, "OO!", &src, &PyTuple_Type, &pt))
        return NULL;
    gip_save_params p;
    View s;
    if (save_params(pt, &p) || resolve(NULL, src, 0, "img", &s))
        return NULL;
    gip_status st;
    char msg[1024];
    void *data = NULL;
    size_t size = 0;
    GIP_PY_RUN(NULL, st, msg, gip_image_encode(&s.img, &p, &data, &size));
    view_release(&s);
    if (st)
        return raise_status(st, msg);
    PyObject *r = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
    gip_free(data);
    return r;
}

/* ============================================================================================
 * Raw CUDA modules.
 * ========================================================================================== */
typedef struct {
    PyObject_HEAD gip_module *mod;
    ContextObject *ctx;
} ModuleObject;

static void Module_dealloc(ModuleObject *self)
{
    if (self->mod) {
        gip_module *mod = self->mod;
        gip_context *ctx = self->ctx->ctx;
        Py_BEGIN_ALLOW_THREADS;
        /* Launches that use the module must be over before it is unloaded. */
        gip_context_sync(ctx);
        gip_module_free(mod);
        Py_END_ALLOW_THREADS;
    }
    Py_CLEAR(self->ctx);
    PyObject_Free(self);
}

static PyTypeObject ModuleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.ModuleHandle",
    .tp_basicsize = sizeof(ModuleObject),
    .tp_dealloc = (destructor)Module_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled CUDA module (see gip.Module).",
};

static int string_list(PyObject *seq, const char ***out, Py_ssize_t *n)
{
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of strings");
    if (!fast)
        return -1;
    *n = PySequence_Fast_GET_SIZE(fast);
    *out = PyMem_Calloc((size_t)*n + 1, sizeof(char *));
    if (!*out) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyUnicode_Check(s) || !((*out)[i] = PyUnicode_AsUTF8(s))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "expected a sequence of strings");
            PyMem_Free(*out);
            Py_DECREF(fast);
            return -1;
        }
    }
    /* The strings live as long as the sequence's items; the caller keeps `seq` alive. */
    Py_DECREF(fast);
    return 0;
}

/* module_compile(ctx, source, name, options, include_paths, no_cache) -> ModuleHandle */
static PyObject *py_module_compile(PyObject *m, PyObject *args)
{
    PyObject *co, *opts, *incs;
    const char *source, *name;
    int no_cache;
    if (!PyArg_ParseTuple(args, "O!ssOOp", &ContextType, &co, &source, &name, &opts, &incs,
                          &no_cache))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    const char **o = NULL, **inc = NULL;
    Py_ssize_t no = 0, ni = 0;
    if (string_list(opts, &o, &no))
        return NULL;
    if (string_list(incs, &inc, &ni)) {
        PyMem_Free(o);
        return NULL;
    }
    gip_compile_options copt = {o, (int32_t)no, inc, (int32_t)ni,
                                no_cache ? GIP_COMPILE_NO_CACHE : 0u};
    gip_module *mod = NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_module_compile(c->ctx, source, name, &copt, &mod));
    PyMem_Free(o);
    PyMem_Free(inc);
    if (st)
        return raise_status(st, msg);
    ModuleObject *mo = PyObject_New(ModuleObject, &ModuleType);
    if (!mo) {
        gip_module_free(mod);
        return NULL;
    }
    mo->mod = mod;
    mo->ctx = c;
    Py_INCREF(c);
    return (PyObject *)mo;
}

static PyObject *py_module_info(PyObject *m, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, &ModuleType)) {
        PyErr_SetString(PyExc_TypeError, "expected a module handle");
        return NULL;
    }
    gip_module_info info;
    gip_status st = gip_module_get_info(((ModuleObject *)arg)->mod, &info);
    if (st)
        return raise_status(st, gip_last_error());
    return Py_BuildValue("{s:O,s:(ii),s:O,s:s,s:d,s:d}", "cache_hit",
                         info.cache_hit ? Py_True : Py_False, "compute_capability", info.cc_major,
                         info.cc_minor, "is_ptx", info.is_ptx ? Py_True : Py_False, "target",
                         info.target, "compile_seconds", info.compile_seconds, "load_seconds",
                         info.load_seconds);
}

/* module_kernel(handle, name) -> capsule of the gip_kernel (valid while the module lives). */
static PyObject *py_module_kernel(PyObject *m, PyObject *args)
{
    PyObject *mo;
    const char *name;
    if (!PyArg_ParseTuple(args, "O!s", &ModuleType, &mo, &name))
        return NULL;
    ModuleObject *mod = (ModuleObject *)mo;
    gip_kernel *k = NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(mod->ctx, st, msg, gip_module_get_kernel(mod->mod, name, &k));
    if (st)
        return raise_status(st, msg);
    return PyCapsule_New(k, "gip.kernel", NULL);
}

/* launch(ctx, kernel capsule, args [(type, value)], grid|None, block|None, shared, size_from) */
static PyObject *py_launch(PyObject *m, PyObject *args)
{
    PyObject *co, *kcap, *list, *grid, *block;
    unsigned shared;
    int size_from;
    if (!PyArg_ParseTuple(args, "O!OO!OOIi", &ContextType, &co, &kcap, &PyList_Type, &list, &grid,
                          &block, &shared, &size_from))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    gip_kernel *k = PyCapsule_GetPointer(kcap, "gip.kernel");
    if (!k)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(list);
    gip_kernel_arg *ka = PyMem_Calloc((size_t)n + 1, sizeof *ka);
    View *views = PyMem_Calloc((size_t)n + 1, sizeof *views);
    gip_image *imgs = PyMem_Calloc((size_t)n + 1, sizeof *imgs);
    PyObject *ret = NULL;
    Py_ssize_t i = 0;
    if (!ka || !views || !imgs) {
        PyErr_NoMemory();
        goto out_free;
    }
    gip_launch_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (grid != Py_None && !PyArg_ParseTuple(grid, "III", &cfg.grid[0], &cfg.grid[1], &cfg.grid[2]))
        goto out_free;
    if (block != Py_None &&
        !PyArg_ParseTuple(block, "III", &cfg.block[0], &cfg.block[1], &cfg.block[2]))
        goto out_free;
    cfg.shared_bytes = shared;
    for (; i < n; i++) {
        int type;
        PyObject *val;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), "iO", &type, &val))
            goto out_release;
        ka[i].type = (gip_arg_type)type;
        switch (type) {
        case GIP_ARG_IMAGE:
            if (resolve(c, val, 0, "kernel argument", &views[i]))
                goto out_release;
            imgs[i] = views[i].img;
            ka[i].v.image = &imgs[i];
            break;
        case GIP_ARG_PTR:
            ka[i].v.ptr = PyLong_AsVoidPtr(val);
            break;
        case GIP_ARG_I32:
            ka[i].v.i32 = (int32_t)PyLong_AsLong(val);
            break;
        case GIP_ARG_I64:
            ka[i].v.i64 = (int64_t)PyLong_AsLongLong(val);
            break;
        case GIP_ARG_F32:
            ka[i].v.f32 = (float)PyFloat_AsDouble(val);
            break;
        case GIP_ARG_F64:
            ka[i].v.f64 = PyFloat_AsDouble(val);
            break;
        default:
            raise_fmt(GIP_ERR_INVALID_ARGUMENT, "kernel argument %zd: bad type %d", i, type);
            goto out_release;
        }
        if (PyErr_Occurred()) {
            i++;
            goto out_release;
        }
    }
    if (size_from >= 0) {
        if (size_from >= n || ka[size_from].type != GIP_ARG_IMAGE) {
            raise_fmt(GIP_ERR_INVALID_ARGUMENT, "size_from must name an image argument");
            goto out_release;
        }
        cfg.size_from = &imgs[size_from];
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_kernel_launch(c->ctx, k, &cfg, ka, (int32_t)n));
    if (st)
        raise_status(st, msg);
    else {
        Py_INCREF(Py_None);
        ret = Py_None;
    }
out_release:
    for (Py_ssize_t j = 0; j < i && j < n; j++)
        if (ka[j].type == GIP_ARG_IMAGE)
            view_release(&views[j]);
out_free:
    PyMem_Free(ka);
    PyMem_Free(views);
    PyMem_Free(imgs);
    return ret;
}

/* ============================================================================================
 * Pipelines (gip/pipeline.h): a handle that owns a gip_pipeline and is also a Context (a
 * subtype of ContextType viewing the pipeline's own context), so device images allocated for it
 * keep the pipeline alive and the usual resolve/keep_alive rules apply. Plus the batch engine.
 * ========================================================================================== */
#include <unistd.h> /* isatty() for the progress bar */

typedef struct {
    ContextObject base; /* base.ctx is gip_pipeline_context(p): borrowed, freed with p */
    gip_pipeline *p;
} PipelineObject;

static PyTypeObject PipelineType;

static void Pipeline_dealloc(PipelineObject *self)
{
    if (self->p) {
        gip_pipeline *p = self->p;
        self->p = NULL;
        self->base.ctx = NULL;
        Py_BEGIN_ALLOW_THREADS;
        gip_pipeline_free(p); /* waits for queued work, frees the pool and the context */
        Py_END_ALLOW_THREADS;
    }
    if (self->base.lock)
        PyThread_free_lock(self->base.lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject PipelineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.PipelineHandle",
    .tp_basicsize = sizeof(PipelineObject),
    .tp_dealloc = (destructor)Pipeline_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libgip pipeline and its context (see gip.Pipeline).",
};

static PipelineObject *as_pipeline(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &PipelineType)) {
        PyErr_SetString(PyExc_TypeError, "expected a pipeline handle");
        return NULL;
    }
    return (PipelineObject *)o;
}

/* pipeline_create(backend, device, threads, no_fusion) -> handle */
static PyObject *py_pipeline_create(PyObject *m, PyObject *args)
{
    int backend, device, threads, no_fusion;
    if (!PyArg_ParseTuple(args, "iiip", &backend, &device, &threads, &no_fusion))
        return NULL;
    PipelineObject *self = PyObject_New(PipelineObject, &PipelineType);
    if (!self)
        return NULL;
    self->p = NULL;
    self->base.ctx = NULL;
    self->base.lock = PyThread_allocate_lock();
    if (!self->base.lock) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    gip_context_desc desc = {0};
    desc.backend = (gip_backend)backend;
    desc.device = device;
    desc.threads = threads;
    gip_pipeline *p = NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_pipeline_create(&desc, &p));
    if (!st && no_fusion && (st = gip_pipeline_set_flags(p, GIP_PIPELINE_NO_FUSION)))
        copy_error(st, msg, sizeof msg);
    if (st) {
        gip_pipeline_free(p);
        Py_DECREF(self);
        return raise_status(st, msg);
    }
    self->p = p;
    self->base.ctx = gip_pipeline_context(p);
    return (PyObject *)self;
}

/* pipeline_parse(handle, text): appends the steps; a ValueError (gip.InvalidArgument) whose
 * message is "pipeline: at N: ..." and whose .position is N on a syntax error. */
static PyObject *py_pipeline_parse(PyObject *m, PyObject *args)
{
    PyObject *h;
    const char *text;
    if (!PyArg_ParseTuple(args, "Os", &h, &text))
        return NULL;
    PipelineObject *po = as_pipeline(h);
    if (!po)
        return NULL;
    gip_parse_error err;
    memset(&err, 0, sizeof err);
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(&po->base, st, msg, gip_pipeline_parse(po->p, text, &err));
    if (!st)
        Py_RETURN_NONE;
    raise_status(st, msg);
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyErr_NormalizeException(&et, &ev, &tb);
    if (ev) {
        PyObject *pos = PyLong_FromLong((long)err.position);
        PyObject *why = PyUnicode_FromString(err.message);
        if (pos && why) {
            PyObject_SetAttrString(ev, "position", pos);
            PyObject_SetAttrString(ev, "reason", why);
        }
        Py_XDECREF(pos);
        Py_XDECREF(why);
        PyErr_Clear();
    }
    PyErr_Restore(et, ev, tb);
    return NULL;
}

/* pipeline_add(handle, kind, ...): one step from the C calls; the arguments are normalised by
 * gip/__init__.py (border as gip_border, dtypes as gip_dtype codes). */
static PyObject *py_pipeline_add(PyObject *m, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n < 2) {
        PyErr_SetString(PyExc_TypeError, "pipeline_add(handle, kind, ...)");
        return NULL;
    }
    PipelineObject *po = as_pipeline(PyTuple_GET_ITEM(args, 0));
    if (!po)
        return NULL;
    const char *kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(args, 1));
    if (!kind)
        return NULL;
    PyObject *rest = PyTuple_GetSlice(args, 2, n);
    if (!rest)
        return NULL;
    gip_pipeline *p = po->p;
    gip_status st = GIP_OK;
    char msg[1024];
    PyObject *ret = NULL;
    int border = 0, ax = -1, ay = -1;
    double bval = 0.0;
    if (!strcmp(kind, "invert")) {
        gip_invert_params q = {0};
        if (!PyArg_ParseTuple(rest, "f", &q.max))
            goto out_rest;
        GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_invert(p, &q));
    } else if (!strcmp(kind, "gaussian")) {
        gip_gaussian_params q = {0};
        int method = 0;
        if (!PyArg_ParseTuple(rest, "iiddidi", &q.ksize_w, &q.ksize_h, &q.sigma_x, &q.sigma_y,
                              &border, &bval, &method))
            goto out_rest;
        q.border = border_spec(border, bval);
        q.method = (gip_conv_method)method;
        GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_gaussian(p, &q));
    } else if (!strcmp(kind, "box")) {
        gip_box_params q = {0};
        int normalize = 1;
        if (!PyArg_ParseTuple(rest, "iiiipid", &q.ksize_w, &q.ksize_h, &ax, &ay, &normalize,
                              &border, &bval))
            goto out_rest;
        q.has_anchor = ax >= 0 || ay >= 0;
        q.anchor_x = ax < 0 ? q.ksize_w / 2 : ax;
        q.anchor_y = ay < 0 ? q.ksize_h / 2 : ay;
        q.unnormalized = !normalize;
        q.border = border_spec(border, bval);
        GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_box(p, &q));
    } else if (!strcmp(kind, "filter2d")) {
        gip_filter2d_params q = {0};
        PyObject *k;
        double delta;
        int method = 0;
        if (!PyArg_ParseTuple(rest, "Oiiiididi", &k, &q.ksize_w, &q.ksize_h, &ax, &ay, &delta,
                              &border, &bval, &method))
            goto out_rest;
        if (q.ksize_w < 1 || q.ksize_h < 1) {
            raise_fmt(GIP_ERR_INVALID_ARGUMENT, "filter2d: kernel shape (%d, %d) is empty",
                      q.ksize_h, q.ksize_w);
            goto out_rest;
        }
        Py_buffer kb;
        if (float_buffer(k, (Py_ssize_t)q.ksize_w * q.ksize_h, "filter2d: kernel", &kb))
            goto out_rest;
        q.kernel = kb.buf;
        q.has_anchor = ax >= 0 || ay >= 0;
        q.anchor_x = ax < 0 ? q.ksize_w / 2 : ax;
        q.anchor_y = ay < 0 ? q.ksize_h / 2 : ay;
        q.delta = (float)delta;
        q.border = border_spec(border, bval);
        q.method = (gip_conv_method)method;
        GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_filter2d(p, &q)); /* copies the kernel */
        PyBuffer_Release(&kb);
    } else if (!strcmp(kind, "sobel") || !strcmp(kind, "edges")) {
        gip_sobel_params q = {0};
        double scale, delta;
        int dtype = GIP_U8;
        if (!PyArg_ParseTuple(rest, "iiiddid|i", &q.dx, &q.dy, &q.ksize, &scale, &delta, &border,
                              &bval, &dtype))
            goto out_rest;
        q.scale = (float)scale;
        q.delta = (float)delta;
        q.border = border_spec(border, bval);
        if (kind[0] == 's')
            GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_sobel(p, &q, (gip_dtype)dtype));
        else
            GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_edges(p, &q));
    } else if (!strcmp(kind, "gray")) {
        if (!PyArg_ParseTuple(rest, ""))
            goto out_rest;
        GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_gray(p));
    } else if (!strcmp(kind, "convert")) {
        int dtype;
        double scale, offset;
        if (!PyArg_ParseTuple(rest, "idd", &dtype, &scale, &offset))
            goto out_rest;
        GIP_PY_RUN(&po->base, st, msg,
                   gip_pipeline_add_convert(p, (gip_dtype)dtype, scale, offset));
    } else if (!strcmp(kind, "map") || !strcmp(kind, "stencil")) {
        const char *expr;
        PyObject *scal;
        int radius = 0;
        if (kind[0] == 'm'
                ? !PyArg_ParseTuple(rest, "sO", &expr, &scal)
                : !PyArg_ParseTuple(rest, "sOiid", &expr, &scal, &radius, &border, &bval))
            goto out_rest;
        gip_scalar sc[GIP_EXPR_MAX_SCALARS];
        int ns = parse_scalars(scal, sc);
        if (ns < 0)
            goto out_rest;
        if (kind[0] == 'm') {
            GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_map(p, expr, ns ? sc : NULL, ns));
        } else {
            gip_stencil_params q = {0};
            q.radius = radius;
            q.border = border_spec(border, bval);
            q.scalars = ns ? sc : NULL;
            q.n_scalars = ns;
            GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_stencil(p, expr, &q));
        }
    } else if (!strcmp(kind, "spectrum")) {
        gip_spectrum_params q = {0};
        if (!PyArg_ParseTuple(rest, "p", &q.log1p))
            goto out_rest;
        GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_spectrum(p, &q));
    } else {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "pipeline: unknown step kind '%s'", kind);
        goto out_rest;
    }
    if (st)
        raise_status(st, msg);
    else {
        Py_INCREF(Py_None);
        ret = Py_None;
    }
out_rest:
    Py_DECREF(rest);
    return ret;
}

/* pipeline_info(handle) -> (steps, halo_x, halo_y) */
static PyObject *py_pipeline_info(PyObject *m, PyObject *h)
{
    PipelineObject *po = as_pipeline(h);
    if (!po)
        return NULL;
    int64_t hx = 0, hy = 0;
    gip_status st = gip_pipeline_halo(po->p, &hx, &hy);
    if (st)
        return raise_status(st, gip_last_error());
    return Py_BuildValue("(iLL)", (int)gip_pipeline_length(po->p), (long long)hx, (long long)hy);
}

/* pipeline_describe(handle, channels, dtype) -> str */
static PyObject *py_pipeline_describe(PyObject *m, PyObject *args)
{
    PyObject *h;
    int ch, dtype;
    if (!PyArg_ParseTuple(args, "Oii", &h, &ch, &dtype))
        return NULL;
    PipelineObject *po = as_pipeline(h);
    if (!po)
        return NULL;
    char buf[2048];
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(&po->base, st, msg,
               gip_pipeline_describe(po->p, (int32_t)ch, (gip_dtype)dtype, buf, sizeof buf));
    if (st)
        return raise_status(st, msg);
    return PyUnicode_FromString(buf);
}

/* pipeline_output_shape(handle, width, height, channels, dtype) -> (w, h, c, dtype) */
static PyObject *py_pipeline_output_shape(PyObject *m, PyObject *args)
{
    PyObject *h;
    long long w, ht;
    int ch, dtype;
    if (!PyArg_ParseTuple(args, "OLLii", &h, &w, &ht, &ch, &dtype))
        return NULL;
    PipelineObject *po = as_pipeline(h);
    if (!po)
        return NULL;
    int64_t ow = 0, oh = 0;
    int32_t oc = 0;
    gip_dtype odt = GIP_DTYPE_NONE;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(&po->base, st, msg,
               gip_pipeline_output_shape(po->p, w, ht, ch, (gip_dtype)dtype, &ow, &oh, &oc, &odt));
    if (st)
        return raise_status(st, msg);
    return Py_BuildValue("(LLii)", (long long)ow, (long long)oh, (int)oc, (int)odt);
}

/* pipeline_run(handle, src, dst): both host, or both device arrays of the pipeline's device.
 * A device gip.Image made on another gip context: the pipeline's stream waits for that
 * context's queued work first, and that context's later work waits for the pipeline's reads. */
static PyObject *py_pipeline_run(PyObject *m, PyObject *args)
{
    PyObject *h, *src, *dst;
    if (!PyArg_ParseTuple(args, "OOO", &h, &src, &dst))
        return NULL;
    PipelineObject *po = as_pipeline(h);
    if (!po)
        return NULL;
    ContextObject *c = &po->base;
    View s, d;
    if (resolve(c, src, 0, "src", &s))
        return NULL;
    if (resolve(c, dst, 1, "dst", &d)) {
        view_release(&s);
        return NULL;
    }
    gip_context *other = NULL;
    if (PyObject_TypeCheck(src, &ImageType)) {
        ImageObject *si = (ImageObject *)src;
        if (si->v.memory == GIP_MEM_CUDA && si->ctx && si->ctx != c &&
            gip_context_backend(si->ctx->ctx) == GIP_BACKEND_CUDA)
            other = si->ctx->ctx;
    }
    gip_status st = GIP_OK;
    char msg[1024];
    if (other)
        GIP_PY_RUN(c, st, msg, gip_context_wait_stream(c->ctx, gip_context_stream(other)));
    if (!st)
        GIP_PY_RUN(c, st, msg, gip_pipeline_run(po->p, &s.img, &d.img));
    if (!st && other)
        GIP_PY_RUN(c, st, msg, gip_context_signal_stream(c->ctx, gip_context_stream(other)));
    if (!st)
        keep_alive(dst, src, &s);
    view_release(&s);
    view_release(&d);
    if (st)
        return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* pipeline_run_file(handle, in, out, (load mode, bgr, keep_depth, ignore_orientation), save
 * params tuple, max_memory) -> 0 whole, 1 streamed by rows, 2 decoded ahead
 * (gip_pipeline_run_file_bounded) */
static PyObject *py_pipeline_run_file(PyObject *m, PyObject *args)
{
    PyObject *h, *in_obj, *out_obj, *pt;
    int mode, bgr, keep, ignore_orientation;
    long long max_memory;
    if (!PyArg_ParseTuple(args, "OO&O&(ippp)O!L", &h, PyUnicode_FSConverter, &in_obj,
                          PyUnicode_FSConverter, &out_obj, &mode, &bgr, &keep, &ignore_orientation,
                          &PyTuple_Type, &pt, &max_memory))
        return NULL;
    PyObject *ret = NULL;
    PipelineObject *po = as_pipeline(h);
    gip_save_params sp;
    if (!po || save_params(pt, &sp))
        goto out_paths;
    gip_load_params lp = {0};
    lp.mode = (gip_load_mode)mode;
    lp.bgr = bgr;
    lp.keep_depth = keep;
    lp.ignore_orientation = ignore_orientation;
    gip_status st;
    char msg[1024];
    int32_t streamed = 0;
    GIP_PY_RUN(&po->base, st, msg,
               gip_pipeline_run_file_bounded(po->p, PyBytes_AS_STRING(in_obj),
                                             PyBytes_AS_STRING(out_obj), &lp, &sp,
                                             (int64_t)max_memory, &streamed));
    if (st)
        raise_status(st, msg);
    else
        ret = PyLong_FromLong(streamed);
out_paths:
    Py_DECREF(in_obj);
    Py_DECREF(out_obj);
    return ret;
}

/* What on_file reports, collected without the GIL (calls are serialised by the engine). */
typedef struct {
    char *in, *out, *message;
    gip_status status;
    int32_t skipped;
} BatchRecord;

/* progress=True: one line redrawn on a terminal, else a plain line at most every 5 s. */
typedef struct {
    FILE *stream;
    int tty, drawn, printed;
    double last;
} ProgressLine;

typedef struct {
    BatchRecord *rec;
    int64_t n, cap;
    int oom;
    ProgressLine bar;
    int progress;
} BatchLog;

static void progress_line_print(ProgressLine *pl, const gip_batch_progress *pr)
{
    double rate = pr->elapsed > 0 ? (double)(pr->done - pr->skipped) / pr->elapsed : 0;
    double eta = rate > 0 ? (double)(pr->total - pr->done) / rate : 0;
    int pct = pr->total ? (int)(100 * pr->done / pr->total) : 100;
    if (!pl->tty) {
        if (pl->printed && pr->done != pr->total && pr->elapsed - pl->last < 5.0)
            return;
        pl->last = pr->elapsed;
        pl->printed = 1;
    }
    fprintf(pl->stream, "%sprogress: %lld/%lld (%d%%), %.1f img/s, ETA %d:%02d, %lld failed%s",
            pl->tty ? "\r\033[K" : "", (long long)pr->done, (long long)pr->total, pct, rate,
            (int)eta / 60, (int)eta % 60, (long long)pr->failed, pl->tty ? "" : "\n");
    pl->drawn = pl->tty;
    fflush(pl->stream);
}

static void progress_line_clear(ProgressLine *pl)
{
    if (pl->drawn) {
        fprintf(pl->stream, "\r\033[K");
        fflush(pl->stream);
        pl->drawn = 0;
    }
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

static void batch_on_file(void *user, const char *in, const char *out, gip_status status,
                          const char *message, int32_t skipped)
{
    BatchLog *log = user;
    if (log->n == log->cap) {
        int64_t cap = log->cap ? log->cap * 2 : 64;
        BatchRecord *r = realloc(log->rec, (size_t)cap * sizeof *r);
        if (!r) {
            log->oom = 1;
            return;
        }
        log->rec = r;
        log->cap = cap;
    }
    BatchRecord *r = &log->rec[log->n];
    r->in = dup_str(in);
    r->out = dup_str(out);
    r->message = dup_str(message);
    r->status = status;
    r->skipped = skipped;
    if (!r->in || !r->out || !r->message) {
        free(r->in);
        free(r->out);
        free(r->message);
        log->oom = 1;
        return;
    }
    log->n++;
}

static void batch_on_progress(void *user, const gip_batch_progress *pr)
{
    BatchLog *log = user;
    if (log->progress)
        progress_line_print(&log->bar, pr);
}

static void batch_log_free(BatchLog *log)
{
    for (int64_t i = 0; i < log->n; i++) {
        free(log->rec[i].in);
        free(log->rec[i].out);
        free(log->rec[i].message);
    }
    free(log->rec);
}

/* batch_run(handle, inputs, out_dir, jobs, queue_depth, format, quality, overwrite, unchanged,
 *           cpu_mode, pipelines, progress, decoder, decode_batch) -> dict: counts, stage times
 * and per-file records [(in, out, status name, message, skipped)]. `pipelines` clones of the
 * handle's pipeline run (one compute thread each; several overlap on one GPU). decoder: 0 auto
 * (nvJPEG on a CUDA pipeline when built with it), 1 the CPU decoders, 2 nvJPEG (an error on a
 * CPU pipeline or without nvJPEG); decode_batch: files per nvJPEG decode call, 0 = default. */
static PyObject *py_batch_run(PyObject *m, PyObject *args)
{
    PyObject *h, *inputs, *dir_obj;
    int jobs, depth, format, quality, overwrite, unchanged, cpu_mode, npipes, progress, decoder,
        decode_batch;
    if (!PyArg_ParseTuple(args, "OOO&iiiippiipii", &h, &inputs, PyUnicode_FSConverter, &dir_obj,
                          &jobs, &depth, &format, &quality, &overwrite, &unchanged, &cpu_mode,
                          &npipes, &progress, &decoder, &decode_batch))
        return NULL;
    PyObject *ret = NULL;
    PipelineObject *po = as_pipeline(h);
    PyObject *fast = NULL;
    char **paths = NULL;
    gip_pipeline **pipes = NULL;
    Py_ssize_t n = 0;
    int made = 0;
    BatchLog log;
    memset(&log, 0, sizeof log);
    if (!po)
        goto out_dir;
    if (npipes < 1 || npipes > 64) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT, "run_batch: streams %d; accepted 1..64", npipes);
        goto out_dir;
    }
    if (decoder < 0 || decoder > 2 || decode_batch < 0 || decode_batch > 64) {
        raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                  "run_batch: decoder %d (0 auto, 1 cpu, 2 nvjpeg), decode_batch %d (0..64)",
                  decoder, decode_batch);
        goto out_dir;
    }
    gip_batch_codec codec;
    int use_codec = 0;
    if (decoder != 1) {
        int cuda = gip_context_backend(po->base.ctx) == GIP_BACKEND_CUDA;
        if (decoder == 2 && !cuda) {
            raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                      "run_batch: decoder 'nvjpeg' needs a CUDA pipeline; this one is on the CPU");
            goto out_dir;
        }
        gip_status cs = cuda ? gip_nvjpeg_codec(&codec) : GIP_ERR_NOT_BUILT;
        if (cs == GIP_OK) {
            use_codec = 1;
            if (decode_batch)
                codec.batch_size = decode_batch;
        } else if (decoder == 2) {
            raise_status(cs, gip_last_error());
            goto out_dir;
        }
    }
    if (!(fast = PySequence_Fast(inputs, "run_batch: inputs must be a sequence of paths")))
        goto out_dir;
    n = PySequence_Fast_GET_SIZE(fast);
    if (!(paths = PyMem_Calloc((size_t)n + 1, sizeof *paths)) ||
        !(pipes = PyMem_Calloc((size_t)npipes, sizeof *pipes))) {
        PyErr_NoMemory();
        goto out_free;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i), &b))
            goto out_free;
        paths[i] = dup_str(PyBytes_AS_STRING(b));
        Py_DECREF(b);
        if (!paths[i]) {
            PyErr_NoMemory();
            goto out_free;
        }
    }
    gip_status st = GIP_OK;
    char msg[1024];
    pipes[0] = po->p;
    for (made = 1; made < npipes; made++) {
        GIP_PY_RUN(NULL, st, msg, gip_pipeline_clone(po->p, NULL, &pipes[made]));
        if (st) {
            raise_status(st, msg);
            goto out_free;
        }
    }
    gip_batch_options o;
    memset(&o, 0, sizeof o);
    o.jobs = jobs;
    o.queue_depth = depth;
    o.format = (gip_format)format;
    o.quality = quality;
    o.overwrite = overwrite;
    o.load_unchanged = unchanged;
    o.cpu_mode = (gip_batch_cpu_mode)cpu_mode;
    o.codec = use_codec ? &codec : NULL;
    o.on_file = batch_on_file;
    o.on_progress = batch_on_progress;
    o.user = &log;
    log.progress = progress;
    log.bar.stream = stderr;
    log.bar.tty = isatty(fileno(stderr));
    gip_batch_stats s;
    memset(&s, 0, sizeof s);
    const char *dir = PyBytes_AS_STRING(dir_obj);
    GIP_PY_RUN(&po->base, st, msg,
               gip_batch_run(pipes, npipes, (const char *const *)paths, n, dir, &o, &s));
    if (progress)
        progress_line_clear(&log.bar);
    if (st) {
        raise_status(st, msg);
        goto out_free;
    }
    if (log.oom) {
        PyErr_NoMemory();
        goto out_free;
    }
    PyObject *files = PyList_New(0);
    for (int64_t i = 0; files && i < log.n; i++) {
        BatchRecord *r = &log.rec[i];
        PyObject *t = Py_BuildValue("(O&O&ssO)", PyUnicode_DecodeFSDefault, r->in,
                                    PyUnicode_DecodeFSDefault, r->out, gip_status_name(r->status),
                                    r->message, r->skipped ? Py_True : Py_False);
        if (!t || PyList_Append(files, t) < 0)
            Py_CLEAR(files);
        Py_XDECREF(t);
    }
    if (!files)
        goto out_free;
    ret = Py_BuildValue("{s:L,s:L,s:L,s:L,s:d,s:{s:d,s:d,s:d,s:d,s:d,s:d,s:d},s:L,s:L,s:N,s:s,"
                        "s:s,s:L,s:d}",
                        "total", (long long)s.total, "written", (long long)s.written, "failed",
                        (long long)s.failed, "skipped", (long long)s.skipped, "wall", s.wall,
                        "stages", "read", s.t_read, "decode", s.t_decode, "upload", s.t_upload,
                        "compute", s.t_compute, "download", s.t_download, "encode", s.t_encode,
                        "write", s.t_write, "peak_in_flight", (long long)s.peak_in_flight,
                        "in_flight_bound", (long long)s.in_flight_bound, "files", files, "device",
                        gip_context_describe(po->base.ctx), "decoder", use_codec ? "nvjpeg" : "cpu",
                        "decode_calls", (long long)s.decode_calls, "setup", s.t_setup);
out_free:
    for (int k = 1; k < made; k++)
        gip_pipeline_free(pipes[k]);
    for (Py_ssize_t i = 0; paths && i < n; i++)
        free(paths[i]);
    PyMem_Free(paths);
    PyMem_Free(pipes);
    Py_XDECREF(fast);
    batch_log_free(&log);
out_dir:
    Py_DECREF(dir_obj);
    return ret;
}

/* batch_list_inputs(pattern) -> sorted list of paths (a folder's images or a glob's files). */
static PyObject *py_batch_list_inputs(PyObject *m, PyObject *arg)
{
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(arg, &b))
        return NULL;
    char **paths = NULL;
    int64_t count = 0;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_batch_list_inputs(PyBytes_AS_STRING(b), &paths, &count));
    Py_DECREF(b);
    if (st)
        return raise_status(st, msg);
    PyObject *list = PyList_New(0);
    for (int64_t i = 0; list && i < count; i++) {
        PyObject *s = PyUnicode_DecodeFSDefault(paths[i]);
        if (!s || PyList_Append(list, s) < 0)
            Py_CLEAR(list);
        Py_XDECREF(s);
    }
    gip_batch_free_list(paths, count);
    return list;
}

/* ============================================================================================
 * Library and devices.
 * ========================================================================================== */
static PyObject *py_register_errors(PyObject *m, PyObject *arg)
{
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict {status code: exception class}");
        return NULL;
    }
    Py_INCREF(arg);
    Py_XSETREF(error_map, arg);
    Py_RETURN_NONE;
}

static PyObject *py_register_helpers(PyObject *m, PyObject *arg)
{
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "expected a dict {name: callable}");
        return NULL;
    }
    Py_INCREF(arg);
    Py_XSETREF(helpers, arg);
    Py_RETURN_NONE;
}

static PyObject *py_raise_status(PyObject *m, PyObject *args)
{
    int st;
    const char *msg;
    if (!PyArg_ParseTuple(args, "is", &st, &msg))
        return NULL;
    return raise_status((gip_status)st, msg);
}

static PyObject *py_devices(PyObject *m, PyObject *unused)
{
    int32_t n = 0;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_device_count(&n));
    if (st)
        return raise_status(st, msg);
    PyObject *list = PyList_New(0);
    for (int32_t i = 0; list && i < n; i++) {
        gip_device_info info;
        if ((st = gip_device_get_info(i, &info))) {
            Py_DECREF(list);
            return raise_status(st, gip_last_error());
        }
        PyObject *d =
            Py_BuildValue("{s:i,s:s,s:(ii),s:i,s:L,s:O,s:s}", "index", info.index, "name",
                          info.name, "compute_capability", info.cc_major, info.cc_minor, "sm_count",
                          info.sm_count, "total_memory", (long long)info.total_memory, "usable",
                          info.usable ? Py_True : Py_False, "reason", info.reason);
        if (!d || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(d);
    }
    return list;
}

static PyObject *py_unavailable_reason(PyObject *m, PyObject *unused)
{
    return PyUnicode_FromString(gip_device_unavailable_reason());
}
static PyObject *py_version(PyObject *m, PyObject *unused)
{
    return PyUnicode_FromString(gip_version());
}
static PyObject *py_build_info(PyObject *m, PyObject *unused)
{
    return PyUnicode_FromString(gip_build_info());
}
static PyObject *py_cache_dir(PyObject *m, PyObject *unused)
{
    char buf[4096];
    if (gip_kernel_cache_dir(buf, sizeof buf))
        return raise_status(GIP_ERR_INVALID_ARGUMENT, gip_last_error());
    return PyUnicode_FromString(buf);
}
static PyObject *py_cache_stats(PyObject *m, PyObject *unused)
{
    gip_cache_stats s;
    gip_kernel_cache_stats(&s);
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L}", "hits", (long long)s.hits, "misses",
                         (long long)s.misses, "rejected", (long long)s.rejected, "stores",
                         (long long)s.stores, "store_failures", (long long)s.store_failures);
}

/* where(obj) -> ('cuda', device) for device arrays, ('cpu', 0) otherwise; no copy, no sync. */
static PyObject *py_where(PyObject *m, PyObject *obj)
{
    if (PyObject_TypeCheck(obj, &ImageType)) {
        ImageObject *im = (ImageObject *)obj;
        if (im->v.memory == GIP_MEM_CUDA)
            return Py_BuildValue("(si)", "cuda", (int)im->v.device);
        return Py_BuildValue("(si)", "cpu", 0);
    }
    if (PyObject_CheckBuffer(obj) && !PyObject_HasAttrString(obj, "__cuda_array_interface__") &&
        !PyObject_HasAttrString(obj, "__dlpack_device__"))
        return Py_BuildValue("(si)", "cpu", 0);
    if (PyObject_HasAttrString(obj, "__dlpack_device__")) {
        PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
        int t = 0, id = 0;
        if (!dev || !PyArg_ParseTuple(dev, "ii", &t, &id)) {
            Py_XDECREF(dev);
            return NULL;
        }
        Py_DECREF(dev);
        if (t == kDLCUDA || t == kDLCUDAManaged)
            return Py_BuildValue("(si)", "cuda", id);
        return Py_BuildValue("(si)", "cpu", 0);
    }
    if (PyObject_HasAttrString(obj, "__cuda_array_interface__")) {
        PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
        PyObject *data = d && PyDict_Check(d) ? PyDict_GetItemString(d, "data") : NULL;
        void *ptr = data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) == 2
                        ? PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0))
                        : NULL;
        Py_XDECREF(d);
        if (PyErr_Occurred())
            return NULL;
        gip_memory mem = GIP_MEM_HOST;
        int32_t dev = 0;
        gip_pointer_location(ptr, &mem, &dev);
        return Py_BuildValue("(si)", "cuda", mem == GIP_MEM_CUDA ? (int)dev : 0);
    }
    return Py_BuildValue("(si)", "cpu", 0);
}

/* ---- style transfer ---------------------------------------------------------------------- */
/* The progress callback: runs the Python callable (if any) with the GIL held, and stops the
 * optimisation on its true result, an exception in it, or a pending signal (Ctrl-C): the best
 * image so far is written and the exception is raised once the call returns. */
typedef struct {
    PyObject *fn; /* callable or NULL */
    int failed;   /* an exception is pending */
} StyleProgress;

static int style_progress(void *user, const gip_style_progress *p)
{
    StyleProgress *sp = user;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = 0;
    if (PyErr_CheckSignals() < 0) {
        sp->failed = 1;
        stop = 1;
    } else if (sp->fn) {
        PyObject *r = PyObject_CallFunction(
            sp->fn, "{s:i,s:i,s:i,s:d,s:d,s:d,s:d,s:d}", "iteration", (int)p->iteration,
            "iterations", (int)p->iterations, "evaluations", (int)p->evaluations, "loss", p->loss,
            "content", p->content, "style", p->style, "tv", p->tv, "seconds", p->seconds);
        if (!r) {
            sp->failed = 1;
            stop = 1;
        } else {
            stop = PyObject_IsTrue(r) > 0;
            Py_DECREF(r);
        }
    }
    PyGILState_Release(g);
    return stop;
}

/* style_output_size(w, h, size) -> (w', h') */
static PyObject *py_style_output_size(PyObject *m, PyObject *args)
{
    long long w, h, size;
    if (!PyArg_ParseTuple(args, "LLL", &w, &h, &size))
        return NULL;
    int64_t ow, oh;
    gip_status st = gip_style_output_size(w, h, size, &ow, &oh);
    if (st) {
        char msg[1024];
        copy_error(st, msg, sizeof msg);
        return raise_status(st, msg);
    }
    return Py_BuildValue("LL", (long long)ow, (long long)oh);
}

/* style_transfer(ctx, content, style, dst, iterations, content_weight, style_weight, tv_weight,
 *                pool, init, seed, history, optimizer, line_search, lr, flags, progress_every,
 *                weights path | None, progress callable | None) */
static PyObject *py_style_transfer(PyObject *m, PyObject *args)
{
    PyObject *co, *content, *style, *dst, *weights, *progress;
    gip_style_params p = {0};
    int pool, init, optimizer, line_search;
    unsigned long long seed;
    unsigned int flags;
    if (!PyArg_ParseTuple(args, "O!OOOidddiiKiiidIiOO", &ContextType, &co, &content, &style, &dst,
                          &p.iterations, &p.content_weight, &p.style_weight, &p.tv_weight, &pool,
                          &init, &seed, &p.history, &optimizer, &line_search, &p.lr, &flags,
                          &p.progress_every, &weights, &progress))
        return NULL;
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError, "progress must be callable or None");
        return NULL;
    }
    p.pool = (gip_style_pool)pool;
    p.init = (gip_style_init)init;
    p.seed = seed;
    p.optimizer = (gip_style_optimizer)optimizer;
    p.line_search = (gip_style_line_search)line_search;
    p.flags = flags;
    ContextObject *c = (ContextObject *)co;
    gip_status st;
    char msg[1024];
    gip_net *net = NULL;
    if (weights != Py_None) {
        PyObject *b = PyUnicode_EncodeFSDefault(weights);
        if (!b)
            return NULL;
        GIP_PY_RUN(NULL, st, msg, gip_vgg19_load(PyBytes_AS_STRING(b), &net));
        Py_DECREF(b);
        if (st)
            return raise_status(st, msg);
        p.net = net;
    }
    View vc, vs, vd;
    if (resolve(c, content, 0, "content", &vc))
        goto out_net;
    if (resolve(c, style, 0, "style", &vs))
        goto out_content;
    if (resolve(c, dst, 1, "dst", &vd))
        goto out_style;
    StyleProgress sp = {progress != Py_None ? progress : NULL, 0};
    GIP_PY_RUN(c, st, msg,
               gip_style_transfer(c->ctx, &vc.img, &vs.img, &vd.img, &p, style_progress, &sp));
    view_release(&vd);
    view_release(&vs);
    view_release(&vc);
    gip_net_free(net);
    if (st) {
        if (sp.failed)
            PyErr_Clear(); /* gip's error is the one to report */
        return raise_status(st, msg);
    }
    if (sp.failed)
        return NULL; /* the callback's exception or KeyboardInterrupt; dst holds the best image */
    Py_RETURN_NONE;
out_style:
    view_release(&vs);
out_content:
    view_release(&vc);
out_net:
    gip_net_free(net);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"_register_errors", py_register_errors, METH_O, NULL},
    {"_raise", py_raise_status, METH_VARARGS, NULL},
    {"_register_helpers", py_register_helpers, METH_O, NULL},
    {"devices", py_devices, METH_NOARGS, NULL},
    {"unavailable_reason", py_unavailable_reason, METH_NOARGS, NULL},
    {"version", py_version, METH_NOARGS, NULL},
    {"build_info", py_build_info, METH_NOARGS, NULL},
    {"cache_dir", py_cache_dir, METH_NOARGS, NULL},
    {"cache_stats", py_cache_stats, METH_NOARGS, NULL},
    {"where", py_where, METH_O, NULL},
    {"empty", py_empty, METH_VARARGS, NULL},
    {"asimage", py_asimage, METH_VARARGS, NULL},
    {"copy", py_copy, METH_VARARGS, NULL},
    {"real_to_complex", py_real_to_complex, METH_VARARGS, NULL},
    {"invert", py_invert, METH_VARARGS, NULL},
    {"box_filter", py_box_filter, METH_VARARGS, NULL},
    {"filter2d", py_filter2d, METH_VARARGS, NULL},
    {"conv2d", py_conv2d, METH_VARARGS, NULL},
    {"sobel", py_sobel, METH_VARARGS, NULL},
    {"gaussian_blur", py_gaussian_blur, METH_VARARGS, NULL},
    {"cvt_color", py_cvt_color, METH_VARARGS, NULL},
    {"convert", py_convert, METH_VARARGS, NULL},
    {"fft2", py_fft2, METH_VARARGS, NULL},
    {"fftshift", py_fftshift, METH_VARARGS, NULL},
    {"magnitude", py_magnitude, METH_VARARGS, NULL},
    {"normalize_minmax", py_normalize_minmax, METH_VARARGS, NULL},
    {"spectrum", py_spectrum, METH_VARARGS, NULL},
    {"map", py_map, METH_VARARGS, NULL},
    {"stencil", py_stencil, METH_VARARGS, NULL},
    {"style_output_size", py_style_output_size, METH_VARARGS, NULL},
    {"style_transfer", py_style_transfer, METH_VARARGS, NULL},
    {"imread", py_imread, METH_VARARGS, NULL},
    {"imdecode", py_imdecode, METH_VARARGS, NULL},
    {"imwrite", py_imwrite, METH_VARARGS, NULL},
    {"imencode", py_imencode, METH_VARARGS, NULL},
    {"module_compile", py_module_compile, METH_VARARGS, NULL},
    {"module_info", py_module_info, METH_O, NULL},
    {"module_kernel", py_module_kernel, METH_VARARGS, NULL},
    {"launch", py_launch, METH_VARARGS, NULL},
    {"pipeline_create", py_pipeline_create, METH_VARARGS, NULL},
    {"pipeline_parse", py_pipeline_parse, METH_VARARGS, NULL},
    {"pipeline_add", py_pipeline_add, METH_VARARGS, NULL},
    {"pipeline_info", py_pipeline_info, METH_O, NULL},
    {"pipeline_describe", py_pipeline_describe, METH_VARARGS, NULL},
    {"pipeline_output_shape", py_pipeline_output_shape, METH_VARARGS, NULL},
    {"pipeline_run", py_pipeline_run, METH_VARARGS, NULL},
    {"pipeline_run_file", py_pipeline_run_file, METH_VARARGS, NULL},
    {"batch_run", py_batch_run, METH_VARARGS, NULL},
    {"batch_list_inputs", py_batch_list_inputs, METH_O, NULL},
    {NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT,
                                       "_gip",
                                       "libgip bindings (use the gip package).",
                                       -1,
                                       module_methods,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL};

PyMODINIT_FUNC PyInit__gip(void)
{
    if (PyType_Ready(&ContextType) < 0 || PyType_Ready(&MemoryType) < 0 ||
        PyType_Ready(&ImageType) < 0 || PyType_Ready(&ModuleType) < 0)
        return NULL;
    PipelineType.tp_base = &ContextType; /* a pipeline handle is usable as its context */
    if (PyType_Ready(&PipelineType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    Py_INCREF(&ContextType);
    Py_INCREF(&ImageType);
    if (PyModule_AddObject(m, "Context", (PyObject *)&ContextType) < 0 ||
        PyModule_AddObject(m, "Image", (PyObject *)&ImageType) < 0 ||
        PyModule_AddIntConstant(m, "ARG_PTR", GIP_ARG_PTR) < 0 ||
        PyModule_AddIntConstant(m, "ARG_IMAGE", GIP_ARG_IMAGE) < 0 ||
        PyModule_AddIntConstant(m, "ARG_I32", GIP_ARG_I32) < 0 ||
        PyModule_AddIntConstant(m, "ARG_I64", GIP_ARG_I64) < 0 ||
        PyModule_AddIntConstant(m, "ARG_F32", GIP_ARG_F32) < 0 ||
        PyModule_AddIntConstant(m, "ARG_F64", GIP_ARG_F64) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
