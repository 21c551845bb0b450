/* SPDX-License-Identifier: MIT */
/* gip.Image: a gip_image view plus an owner that keeps its memory alive, and its exports (the
 * buffer protocol, the array interfaces and DLPack).
 *
 * The memory of an Image belongs to a Memory object (owner). The Image holds one reference to it
 * and every export holds its own: a buffer-protocol view (in Py_buffer.internal), a DLPack
 * capsule (in manager_ctx) and, through the Image they were read from, the array interfaces.
 * The memory is freed only when the last of them is gone, so close() never frees memory that
 * an export still shows: it drops the Image's own reference, unless an array interface was
 * handed out (its consumer keeps the Image, not the owner), in which case the owner stays with
 * the closed Image until that is freed. */
#include <string.h>

#include "dlpack.h"
#include "gip_py.h"

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

PyTypeObject gpy_MemoryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Memory",
    .tp_basicsize = sizeof(MemoryObject),
    .tp_dealloc = (destructor)Memory_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory behind gip.Images and their exports; freed when the last is gone.",
};

/* Python helpers registered by gip/_core.py: download, upload, dtype, device, repr, array. */
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

ImageObject *gpy_image_new(const gip_image *v, int ndim, int owned, ContextObject *ctx,
                           PyObject *base)
{
    MemoryObject *mem = PyObject_New(MemoryObject, &gpy_MemoryType);
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
    ImageObject *self = PyObject_New(ImageObject, &gpy_ImageType);
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

const char *gpy_dtype_typestr(gip_dtype d)
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

int gpy_image_usable(ImageObject *self)
{
    if (self->closed || !self->v.data) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "the gip.Image is closed");
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
    return PyUnicode_FromString(gpy_dtype_typestr(self->v.dtype));
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
    if (!gpy_image_usable(self))
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
                      gpy_dtype_typestr(self->v.dtype), "data", PyLong_FromVoidPtr(self->v.data),
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
    if (!gpy_image_usable(self))
        return NULL;
    if (self->v.memory == GIP_MEM_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "__array_interface__: the image is in device memory; download() it");
        return NULL;
    }
    PyObject *d = Py_BuildValue(
        "{s:N,s:s,s:(NO),s:N,s:i}", "shape", image_shape(self), "typestr",
        gpy_dtype_typestr(self->v.dtype), "data", PyLong_FromVoidPtr(self->v.data),
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
    if (!gpy_image_usable(self))
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
                return gpy_raise_status(st, msg);
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
    if (!gpy_image_usable(self))
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
    return gpy_none_or_raise(st, msg);
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

PyTypeObject gpy_ImageType = {
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

PyMethodDef gpy_image_module_methods[] = {{"_register_helpers", py_register_helpers, METH_O, NULL},
                                          {NULL}};
