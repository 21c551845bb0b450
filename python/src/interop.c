/* SPDX-License-Identifier: MIT */
/* Turning Python objects into gip_image views: numpy arrays and other buffers, DLPack producers
 * (PyTorch, CuPy, JAX) and __cuda_array_interface__ objects, without copies where the pixels are
 * interleaved; and the module functions that make and copy images (empty, asimage, copy, where). */
#include <stdio.h>
#include <string.h>

#include "dlpack.h"
#include "gip_py.h"

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

void gpy_view_release(View *v)
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

gip_dtype gpy_dtype_from_format(const char *f)
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
        gpy_raise_fmt(GIP_ERR_UNSUPPORTED, "%s: unsupported element type; " UNSUPPORTED_DTYPE_MSG,
                      what);
        return -1;
    }
    if (L->ndim != 2 && L->ndim != 3) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                      "%s: expected a 2-D (H, W) or 3-D (H, W, C) array, got %d dimensions", what,
                      L->ndim);
        return -1;
    }
    int64_t h = L->shape[0], w = L->shape[1], ch = L->ndim == 3 ? L->shape[2] : 1;
    if (h < 1 || w < 1) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: empty array (%lld x %lld)", what, (long long)h,
                      (long long)w);
        return -1;
    }
    if (ch != 1 && ch != 3 && ch != 4) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: %lld channels; 1, 3 or 4 are accepted", what,
                      (long long)ch);
        return -1;
    }
    if (L->dtype == GIP_C32 && ch != 1) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: complex images have one channel", what);
        return -1;
    }
    if (writable && L->readonly) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the array is read-only", what);
        return -1;
    }
    if (L->memory == GIP_MEM_CUDA) {
        if (!c || gip_context_backend(c->ctx) != GIP_BACKEND_CUDA ||
            gip_context_device(c->ctx) != L->device) {
            gpy_raise_fmt(GIP_ERR_LOCATION_MISMATCH,
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
            gpy_copy_error(st, msg, sizeof msg);
            gpy_raise_status(st, msg);
            return -1;
        }
        v->ndim = L->ndim;
        return 0;
    }
    if (writable) {
        gpy_raise_fmt(
            GIP_ERR_INVALID_ARGUMENT,
            "%s: output pixels must be interleaved (strides[-1] == itemsize, strides[1] == "
            "channels * itemsize, positive row stride); got strides (%lld, %lld%s%lld)",
            what, (long long)L->strides[0], (long long)L->strides[1], L->ndim == 3 ? ", " : "",
            L->ndim == 3 ? (long long)L->strides[2] : 0LL);
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
        gpy_raise_status(st, msg);
        return -1;
    }
    ImageObject *copy = gpy_image_new(&tight, L->ndim, 1, host ? NULL : c, NULL);
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
            gpy_copy_error(st, msg, sizeof msg);
            Py_DECREF(copy);
            gpy_raise_status(st, msg);
            return -1;
        }
    }
    GIP_PY_RUN(c, st, msg, gip_copy_strided(ctx ? ctx : tmp, &s, &d));
    gip_context_destroy(tmp);
    if (st) {
        Py_DECREF(copy);
        gpy_raise_status(st, msg);
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
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the array is read-only", what);
        } else {
            PyErr_Clear();
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the object's buffer cannot be read", what);
        }
        return -1;
    }
    v->has_buf = 1;
    Layout L = {0};
    L.data = v->buf.buf;
    L.ndim = v->buf.ndim;
    L.dtype = gpy_dtype_from_format(v->buf.format);
    if (L.dtype != GIP_DTYPE_NONE && (int64_t)gip_dtype_size(L.dtype) != v->buf.itemsize)
        L.dtype = GIP_DTYPE_NONE;
    for (int i = 0; i < L.ndim && i < 3; i++) {
        L.shape[i] = v->buf.shape[i];
        L.strides[i] = v->buf.strides[i];
    }
    L.memory = GIP_MEM_HOST;
    L.readonly = v->buf.readonly;
    if (L.dtype == GIP_DTYPE_NONE) {
        gpy_raise_fmt(GIP_ERR_UNSUPPORTED,
                      "%s: element type '%s' is not supported; " UNSUPPORTED_DTYPE_MSG, what,
                      v->buf.format ? v->buf.format : "?");
        return -1;
    }
    return view_from_layout(c, &L, writable, what, v);
}

/* Owner capsule of an imported DLPack tensor: calls the producer's deleter when released. */
/* Calls the producer's deleter of managed tensor m (a DLManagedTensorVersioned when versioned,
 * else a DLManagedTensor; NULL: nothing). */
static void dl_delete(void *m, int versioned)
{
    if (!m)
        return;
    if (versioned) {
        DLManagedTensorVersioned *t = m;
        if (t->deleter)
            t->deleter(t);
    } else {
        DLManagedTensor *t = m;
        if (t->deleter)
            t->deleter(t);
    }
}
static void dl_owner_legacy(PyObject *cap)
{
    dl_delete(PyCapsule_GetPointer(cap, "gip.dlpack_owner"), 0);
}
static void dl_owner_versioned(PyObject *cap)
{
    dl_delete(PyCapsule_GetPointer(cap, "gip.dlpack_owner_v"), 1);
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
        gpy_raise_fmt(GIP_ERR_LOCATION_MISMATCH,
                      "%s: DLPack device type %d is neither CUDA nor host memory", what, dtype_);
        return -1;
    }
    if (is_cuda && (!c || gip_context_backend(c->ctx) != GIP_BACKEND_CUDA ||
                    gip_context_device(c->ctx) != did)) {
        gpy_raise_fmt(GIP_ERR_LOCATION_MISMATCH,
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
    void *managed = NULL;
    const int versioned = PyCapsule_IsValid(cap, "dltensor_versioned");
    int readonly = 0;
    if (versioned) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m->version.major != 1) {
            Py_DECREF(cap);
            gpy_raise_fmt(GIP_ERR_UNSUPPORTED, "%s: DLPack major version %u is not supported (1)",
                          what, (unsigned)m->version.major);
            return -1;
        }
        managed = m;
        t = &m->dl_tensor;
        readonly = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        managed = m;
        t = &m->dl_tensor;
    } else {
        Py_DECREF(cap);
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: __dlpack__ did not return a DLPack capsule",
                      what);
        return -1;
    }
    /* The tensor is the view's now: the producer's capsule is marked used, as the protocol asks,
     * and the view's own capsule calls the deleter when the view lets it go. */
    PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor");
    v->hold = versioned ? PyCapsule_New(managed, "gip.dlpack_owner_v", dl_owner_versioned)
                        : PyCapsule_New(managed, "gip.dlpack_owner", dl_owner_legacy);
    if (!v->hold) {
        dl_delete(managed, versioned);
        Py_DECREF(cap);
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
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: __cuda_array_interface__ is not a dict", what);
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
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                      "%s: __cuda_array_interface__ lacks shape, typestr or data", what);
        goto out_decref;
    }
    if (mask && mask != Py_None) {
        gpy_raise_fmt(GIP_ERR_UNSUPPORTED, "%s: masked CUDA arrays are not supported", what);
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
                    gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                                  "%s: __cuda_array_interface__ strides do not match the shape",
                                  what);
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
            gpy_raise_fmt(GIP_ERR_LOCATION_MISMATCH,
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
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                          "%s: __cuda_array_interface__ stream 0 is not allowed (v3)", what);
            goto out_decref;
        }
        if (view_from_layout(c, &L, writable, what, v))
            goto out_decref;
        gip_status st;
        char msg[1024];
        GIP_PY_RUN(c, st, msg, gip_context_wait_stream(c->ctx, (void *)(uintptr_t)s));
        if (st) {
            gpy_raise_status(st, msg);
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

int gpy_resolve(ContextObject *c, PyObject *obj, int writable, const char *what, View *v)
{
    memset(v, 0, sizeof *v);
    v->c = c;
    int r;
    if (PyObject_TypeCheck(obj, &gpy_ImageType)) {
        ImageObject *im = (ImageObject *)obj;
        if (!gpy_image_usable(im))
            return -1;
        if (writable && im->readonly) {
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: the image is read-only", what);
            return -1;
        }
        v->img = im->v;
        v->ndim = im->ndim;
        /* The call holds the memory: another thread may close the Image while it runs. */
        v->hold = (PyObject *)im->mem;
        Py_INCREF(v->hold);
        return 0;
    }
    /* A NumPy array (the common case) is host memory behind the buffer protocol: asking it for
     * the device protocols first costs microseconds of attribute lookups and exceptions. */
    if (strcmp(Py_TYPE(obj)->tp_name, "numpy.ndarray") == 0) {
        if ((r = view_from_buffer(c, obj, writable, what, v)))
            gpy_view_release(v);
        return r;
    }
    /* Device arrays first: some (CuPy >= 14) also expose the buffer protocol, only to refuse it. */
    int dl = PyObject_HasAttrString(obj, "__dlpack__") &&
             PyObject_HasAttrString(obj, "__dlpack_device__");
    int on_device = PyObject_HasAttrString(obj, "__cuda_array_interface__");
    if (!on_device && dl) {
        PyObject *w = gpy_where(NULL, obj);
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
        gpy_raise_fmt(GIP_ERR_UNSUPPORTED,
                      "%s: expected a numpy array, a gip.Image or an object with "
                      "__dlpack__/__cuda_array_interface__, got %s",
                      what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (r)
        gpy_view_release(v);
    return r;
}

void gpy_keep_alive(PyObject *dst, PyObject *src, View *sv)
{
    if (PyObject_TypeCheck(src, &gpy_ImageType)) {
        ImageObject *si = (ImageObject *)src;
        if (si->has_pstream && sv->c) {
            /* The producer's later work on its stream waits for the reads just queued. */
            gip_status st;
            char msg[1024];
            GIP_PY_RUN(sv->c, st, msg, gip_context_signal_stream(sv->c->ctx, si->pstream));
            (void)st;
        }
    }
    if (!PyObject_TypeCheck(dst, &gpy_ImageType))
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

/* ---- module functions ---------------------------------------------------------------------- */
/* empty(ctx, h, w, channels, dtype, ndim, memory) -> Image of gip-allocated memory; memory 0
 * (or False): host, 1 (or True): the context's device, 2: page-locked host memory (a CUDA
 * context's; a host Image that the device copies to and from without staging). */
static PyObject *py_empty(PyObject *m, PyObject *args)
{
    PyObject *co;
    long long h, w;
    int ch, dtype, ndim, memory;
    if (!PyArg_ParseTuple(args, "OLLiiii", &co, &h, &w, &ch, &dtype, &ndim, &memory))
        return NULL;
    ContextObject *c = gpy_opt_ctx(co);
    if (!c && PyErr_Occurred())
        return NULL;
    if (memory < 0 || memory > 2)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "empty: memory %d is not 0, 1 or 2", memory);
    if (memory && !c)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "empty: %s memory needs a context",
                             memory == 1 ? "device" : "pinned");
    gip_memory kind = memory == 1 ? GIP_MEM_CUDA : memory == 2 ? GIP_MEM_PINNED : GIP_MEM_HOST;
    gip_image img = {0};
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg,
               gip_image_alloc(memory ? c->ctx : NULL, &img, w, h, ch, (gip_dtype)dtype, kind, 0));
    if (st)
        return gpy_raise_status(st, msg);
    ImageObject *im = gpy_image_new(&img, ndim, 1, memory == 1 ? c : NULL, NULL);
    if (!im)
        gip_image_free(memory == 1 ? c->ctx : NULL, &img);
    return (PyObject *)im;
}

/* asimage(ctx, obj) -> Image viewing obj's memory without a copy (or a tight copy of a view
 * whose pixels are not interleaved). */
static PyObject *py_asimage(PyObject *m, PyObject *args)
{
    PyObject *co, *obj;
    if (!PyArg_ParseTuple(args, "OO", &co, &obj))
        return NULL;
    ContextObject *c = gpy_opt_ctx(co);
    if (!c && PyErr_Occurred())
        return NULL;
    if (PyObject_TypeCheck(obj, &gpy_ImageType)) {
        Py_INCREF(obj);
        return obj;
    }
    View v;
    if (gpy_resolve(c, obj, 0, "array", &v))
        return NULL;
    ImageObject *im;
    if (v.hold && PyObject_TypeCheck(v.hold, &gpy_ImageType)) {
        im = (ImageObject *)v.hold; /* a tight copy */
        Py_INCREF(im);
    } else {
        im = gpy_image_new(&v.img, v.ndim, 0, v.img.memory == GIP_MEM_CUDA ? c : NULL,
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
    gpy_view_release(&v);
    return (PyObject *)im;
}

/* copy(ctx, src, dst): gip_copy between any host/device combination (upload, download). */
static PyObject *py_copy(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *dst;
    if (!PyArg_ParseTuple(args, "OOO", &co, &src, &dst))
        return NULL;
    ContextObject *c = gpy_opt_ctx(co);
    if (!c && PyErr_Occurred())
        return NULL;
    View s, d;
    if (gpy_resolve_pair(c, src, dst, &s, &d))
        return NULL;
    gip_status st;
    char msg[1024];
    gip_context *tmp = NULL;
    if (!c) {
        gip_context_desc desc = {GIP_BACKEND_CPU, 0, 0, 0};
        st = gip_context_create(&desc, &tmp);
        if (st) {
            gpy_copy_error(st, msg, sizeof msg);
            goto out_release;
        }
    }
    GIP_PY_RUN(c, st, msg, gip_copy(c ? c->ctx : tmp, &s.img, &d.img));
    gip_context_destroy(tmp);
out_release:
    return gpy_finish_pair(st, msg, src, dst, &s, &d);
}

/* where(obj) -> ('cuda', device) for device arrays, ('cpu', 0) otherwise; no copy, no sync. */
PyObject *gpy_where(PyObject *m, PyObject *obj)
{
    if (PyObject_TypeCheck(obj, &gpy_ImageType)) {
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

PyMethodDef gpy_interop_methods[] = {{"where", gpy_where, METH_O, NULL},
                                     {"empty", py_empty, METH_VARARGS, NULL},
                                     {"asimage", py_asimage, METH_VARARGS, NULL},
                                     {"copy", py_copy, METH_VARARGS, NULL},
                                     {NULL}};

int gpy_resolve_pair(ContextObject *c, PyObject *src, PyObject *dst, View *s, View *d)
{
    if (gpy_resolve(c, src, 0, "src", s))
        return -1;
    if (gpy_resolve(c, dst, 1, "dst", d)) {
        gpy_view_release(s);
        return -1;
    }
    return 0;
}

PyObject *gpy_finish_pair(gip_status st, const char *msg, PyObject *src, PyObject *dst, View *s,
                          View *d)
{
    if (!st)
        gpy_keep_alive(dst, src, s);
    gpy_view_release(s);
    gpy_view_release(d);
    return gpy_none_or_raise(st, msg);
}
