/* SPDX-License-Identifier: MIT */
/* gip._gip.Loader and LoaderBatch: the batch loader (gip/loader.h) for gip.Loader
 * (gip/_loader.py). A LoaderBatch exports its memory once through DLPack (torch, CuPy, numpy,
 * JAX take it without a copy); the consumer's deleter frees it, holding the loader alive until
 * then. The loader runs on a context of its own, so it shares no lock with the rest of gip. */
#include <string.h>

#include "dlpack.h"
#include "gip_py.h"

typedef struct {
    PyObject_HEAD gip_loader *l;
    gip_context *ctx;
    PyObject *keep; /* the buffers (bytes) a memory loader reads */
} LoaderObject;

typedef struct {
    PyObject_HEAD LoaderObject *owner;
    gip_loader_batch b; /* data NULL once exported or freed */
    int64_t shape[4];
} BatchObject;

static PyTypeObject LoaderType, BatchType;

/* ---- LoaderBatch ------------------------------------------------------------------------------
 */

typedef struct {
    DLManagedTensor m;
    gip_loader_batch b;
    int64_t shape[4];
    PyObject *owner; /* the LoaderObject */
} export_t;

static void export_deleter(DLManagedTensor *m)
{
    export_t *e = (export_t *)m->manager_ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    /* The consumer may still have work queued on its own streams that reads the batch: cudaFree
     * (a NULL loader) waits for the device, as gip.Image's exported memory is freed. */
    gip_loader_batch_free(NULL, &e->b);
    Py_DECREF(e->owner);
    PyMem_RawFree(e);
    PyGILState_Release(g);
}

static void capsule_destructor(PyObject *cap)
{
    /* a capsule nobody consumed still owns its tensor */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    }
}

static PyObject *batch_dlpack(BatchObject *self, PyObject *args, PyObject *kw)
{
    (void)args;
    (void)kw; /* stream, max_version, dl_device, copy: the batch is complete, any stream reads it */
    if (!self->b.data)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                             "this loader batch was already exported (DLPack hands it over once)");
    export_t *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    e->b = self->b;
    memcpy(e->shape, self->shape, sizeof e->shape);
    e->owner = (PyObject *)self->owner;
    Py_INCREF(e->owner);
    DLTensor *t = &e->m.dl_tensor;
    t->data = e->b.data;
    t->device.device_type = e->b.memory == GIP_MEM_CUDA ? kDLCUDA : kDLCPU;
    t->device.device_id = e->b.memory == GIP_MEM_CUDA ? e->b.device : 0;
    t->ndim = 4;
    switch (e->b.dtype) {
    case GIP_LOADER_F16:
        t->dtype = (DLDataType){kDLFloat, 16, 1};
        break;
    case GIP_LOADER_BF16:
        t->dtype = (DLDataType){4 /* kDLBfloat */, 16, 1};
        break;
    case GIP_LOADER_F32:
        t->dtype = (DLDataType){kDLFloat, 32, 1};
        break;
    default:
        t->dtype = (DLDataType){kDLUInt, 8, 1};
    }
    t->shape = e->shape;
    t->strides = NULL;
    t->byte_offset = 0;
    e->m.manager_ctx = e;
    e->m.deleter = export_deleter;
    PyObject *cap = PyCapsule_New(&e->m, "dltensor", capsule_destructor);
    if (!cap) {
        Py_DECREF(e->owner);
        PyMem_RawFree(e);
        return NULL;
    }
    memset(&self->b, 0, sizeof self->b); /* the capsule owns the memory now */
    return cap;
}

static PyObject *batch_dlpack_device(BatchObject *self, PyObject *unused)
{
    const int cuda = self->b.memory == GIP_MEM_CUDA;
    return Py_BuildValue("(ii)", cuda ? kDLCUDA : kDLCPU, cuda ? (int)self->b.device : 0);
}

static void batch_dealloc(BatchObject *self)
{
    if (self->b.data || self->b.indices)
        gip_loader_batch_free(self->owner ? self->owner->l : NULL, &self->b);
    Py_XDECREF(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *batch_shape(BatchObject *self, void *unused)
{
    return Py_BuildValue("(LLLL)", (long long)self->shape[0], (long long)self->shape[1],
                         (long long)self->shape[2], (long long)self->shape[3]);
}

static PyMethodDef batch_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))batch_dlpack, METH_VARARGS | METH_KEYWORDS,
     "The batch as a DLPack capsule (once: the consumer then owns the memory)."},
    {"__dlpack_device__", (PyCFunction)batch_dlpack_device, METH_NOARGS, NULL},
    {NULL}};

static PyGetSetDef batch_getset[] = {
    {"shape", (getter)batch_shape, NULL, "(n, c, h, w) for NCHW, (n, h, w, c) for NHWC", NULL},
    {NULL}};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.LoaderBatch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One batch of a gip.Loader: export it with torch/cupy/numpy .from_dlpack().",
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_methods = batch_methods,
    .tp_getset = batch_getset,
};

/* ---- Loader -----------------------------------------------------------------------------------
 */

static int seq_doubles(PyObject *o, double *out, int n, const char *what)
{
    PyObject *f = PySequence_Fast(o, what);
    if (!f)
        return -1;
    if (PySequence_Fast_GET_SIZE(f) != n) {
        Py_DECREF(f);
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: expected %d numbers", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(f, i));
        if (out[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
    }
    Py_DECREF(f);
    return 0;
}

/* Stops and joins the worker threads, without the GIL, once: later calls do nothing. */
static void loader_stop(LoaderObject *self)
{
    gip_loader *l = self->l;
    self->l = NULL;
    if (l) {
        Py_BEGIN_ALLOW_THREADS;
        gip_loader_destroy(l);
        Py_END_ALLOW_THREADS;
    }
}

static void loader_dealloc(LoaderObject *self)
{
    PyObject_GC_UnTrack(self);
    loader_stop(self);
    gip_context_destroy(self->ctx);
    Py_CLEAR(self->keep);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int loader_traverse(LoaderObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->keep);
    return 0;
}

/* Loader(backend, device, sources, labels, batch_size, size, resize, mode, scale, ratio, fill,
 *        hflip, (brightness, contrast, saturation), mean, std, layout, dtype, seed, shuffle,
 *        rank, world, drop_last, prefetch, threads, on_error, decoder)
 * sources: a list of str paths or a list of bytes; labels: a list of ints or None. */
static PyObject *loader_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    int backend, device, batch_size, size, resize, mode, fill, layout, dtype, shuffle, rank, world,
        drop_last, prefetch, threads, on_error, decoder;
    unsigned long long seed;
    PyObject *sources, *labels, *scale, *ratio, *jit, *mean, *sd;
    double hflip;
    if (!PyArg_ParseTuple(args, "iiOOiiiiOOidOOOiiKiiiiiiii", &backend, &device, &sources, &labels,
                          &batch_size, &size, &resize, &mode, &scale, &ratio, &fill, &hflip, &jit,
                          &mean, &sd, &layout, &dtype, &seed, &shuffle, &rank, &world, &drop_last,
                          &prefetch, &threads, &on_error, &decoder))
        return NULL;
    gip_loader_desc d;
    memset(&d, 0, sizeof d);
    double j3[3];
    if (seq_doubles(scale, d.scale, 2, "scale") || seq_doubles(ratio, d.ratio, 2, "ratio") ||
        seq_doubles(jit, j3, 3, "jitter") || seq_doubles(mean, d.mean, 3, "mean") ||
        seq_doubles(sd, d.std, 3, "std"))
        return NULL;
    d.brightness = j3[0];
    d.contrast = j3[1];
    d.saturation = j3[2];
    d.batch_size = batch_size;
    d.size = size;
    d.resize = resize;
    d.mode = (gip_loader_mode)mode;
    d.fill = fill;
    d.hflip = hflip;
    d.layout = (gip_loader_layout)layout;
    d.dtype = (gip_loader_dtype)dtype;
    d.seed = seed;
    d.shuffle = shuffle;
    d.rank = rank;
    d.world = world;
    d.drop_last = drop_last;
    d.prefetch = prefetch;
    d.threads = threads;
    d.on_error = (gip_loader_on_error)on_error;
    d.decoder = (gip_loader_decoder)decoder;

    LoaderObject *self = (LoaderObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    PyObject *list = PySequence_List(sources);
    const char **paths = NULL;
    const void **bufs = NULL;
    size_t *sizes = NULL;
    int64_t *labs = NULL;
    if (!list)
        goto out_fail;
    const Py_ssize_t n = PyList_GET_SIZE(list);
    d.n = n;
    const int bytes_mode = n > 0 && PyBytes_Check(PyList_GET_ITEM(list, 0));
    if (bytes_mode) {
        bufs = PyMem_Calloc((size_t)n + 1, sizeof *bufs);
        sizes = PyMem_Calloc((size_t)n + 1, sizeof *sizes);
    } else {
        paths = PyMem_Calloc((size_t)n + 1, sizeof *paths);
    }
    if (bytes_mode ? !bufs || !sizes : !paths) {
        PyErr_NoMemory();
        goto out_fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyList_GET_ITEM(list, i);
        if (bytes_mode && PyBytes_Check(it)) {
            bufs[i] = PyBytes_AS_STRING(it);
            sizes[i] = (size_t)PyBytes_GET_SIZE(it);
        } else if (!bytes_mode && PyUnicode_Check(it)) {
            if (!(paths[i] = PyUnicode_AsUTF8(it)))
                goto out_fail;
        } else {
            gpy_raise_type(bytes_mode
                               ? "sources: item %zd is %s; a list holds all paths or all bytes"
                               : "sources: item %zd is %s; expected a path (str) or bytes",
                           i, Py_TYPE(it)->tp_name);
            goto out_fail;
        }
    }
    if (bytes_mode) {
        d.buffers = bufs;
        d.buffer_sizes = sizes;
        self->keep = list; /* the bytes stay alive with the loader */
        Py_INCREF(list);
    } else {
        d.files = paths;
    }
    if (labels != Py_None) {
        PyObject *lf = PySequence_Fast(labels, "labels must be a sequence of ints");
        if (!lf)
            goto out_fail;
        if (PySequence_Fast_GET_SIZE(lf) != n) {
            Py_DECREF(lf);
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "labels: %zd given for %zd files",
                          PySequence_Fast_GET_SIZE(lf), n);
            goto out_fail;
        }
        labs = PyMem_Calloc((size_t)n + 1, sizeof *labs);
        if (!labs) {
            Py_DECREF(lf);
            PyErr_NoMemory();
            goto out_fail;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            labs[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(lf, i));
            if (labs[i] == -1 && PyErr_Occurred()) {
                Py_DECREF(lf);
                goto out_fail;
            }
        }
        Py_DECREF(lf);
        d.labels = labs;
    }
    gip_context_desc cd = {0};
    cd.backend = (gip_backend)backend;
    cd.device = device;
    gip_status st;
    char msg[1024];
    Py_BEGIN_ALLOW_THREADS;
    gip_clear_error();
    st = gip_context_create(&cd, &self->ctx);
    if (!st)
        st = gip_loader_create(self->ctx, &d, &self->l);
    if (st)
        gpy_copy_error(st, msg, sizeof msg);
    Py_END_ALLOW_THREADS;
    if (st) {
        gpy_raise_status(st, msg);
        goto out_fail;
    }
    PyMem_Free(paths);
    PyMem_Free(bufs);
    PyMem_Free(sizes);
    PyMem_Free(labs);
    Py_DECREF(list);
    return (PyObject *)self;
out_fail:
    PyMem_Free(paths);
    PyMem_Free(bufs);
    PyMem_Free(sizes);
    PyMem_Free(labs);
    Py_XDECREF(list);
    Py_DECREF(self);
    return NULL;
}

static int loader_usable(LoaderObject *self)
{
    if (!self->l) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "the loader is closed");
        return 0;
    }
    return 1;
}

/* next() -> (batch, indices bytes, labels bytes or None, skipped, message, epoch, number); at
 * the end of an epoch None, or (None, None, None, skipped, ...) when files of the last batches
 * were skipped. */
static PyObject *loader_next(LoaderObject *self, PyObject *unused)
{
    if (!loader_usable(self))
        return NULL;
    BatchObject *bo = PyObject_New(BatchObject, &BatchType);
    if (!bo)
        return NULL;
    bo->owner = self;
    Py_INCREF(self);
    memset(&bo->b, 0, sizeof bo->b);
    gip_status st;
    char msg[1024];
    Py_BEGIN_ALLOW_THREADS;
    gip_clear_error();
    st = gip_loader_next(self->l, &bo->b);
    if (st)
        gpy_copy_error(st, msg, sizeof msg);
    Py_END_ALLOW_THREADS;
    if (st) {
        Py_DECREF(bo);
        return gpy_raise_status(st, msg);
    }
    if (bo->b.n == 0) { /* the end of the epoch; files of skipped last batches may be counted */
        const long long skipped = (long long)bo->b.skipped;
        PyObject *r =
            skipped ? Py_BuildValue("(OOOLsLL)", Py_None, Py_None, Py_None, skipped, bo->b.message,
                                    (long long)bo->b.epoch, (long long)bo->b.number)
                    : (Py_INCREF(Py_None), Py_None);
        Py_DECREF(bo);
        return r;
    }
    const gip_loader_batch *b = &bo->b;
    bo->shape[0] = b->n;
    if (b->layout == GIP_LOADER_NCHW) {
        bo->shape[1] = b->channels;
        bo->shape[2] = b->height;
        bo->shape[3] = b->width;
    } else {
        bo->shape[1] = b->height;
        bo->shape[2] = b->width;
        bo->shape[3] = b->channels;
    }
    PyObject *idx = PyBytes_FromStringAndSize((const char *)b->indices,
                                              (Py_ssize_t)(b->n * (int64_t)sizeof(int64_t)));
    PyObject *lab = b->labels
                        ? PyBytes_FromStringAndSize((const char *)b->labels,
                                                    (Py_ssize_t)(b->n * (int64_t)sizeof(int64_t)))
                        : (Py_INCREF(Py_None), Py_None);
    if (!idx || !lab) {
        Py_XDECREF(idx);
        Py_XDECREF(lab);
        Py_DECREF(bo);
        return NULL;
    }
    return Py_BuildValue("(NNNLsLL)", (PyObject *)bo, idx, lab, (long long)b->skipped, b->message,
                         (long long)b->epoch, (long long)b->number);
}

static PyObject *loader_set_epoch(LoaderObject *self, PyObject *arg)
{
    if (!loader_usable(self))
        return NULL;
    long long e = PyLong_AsLongLong(arg);
    if (e == -1 && PyErr_Occurred())
        return NULL;
    gip_status st;
    char msg[1024];
    Py_BEGIN_ALLOW_THREADS;
    st = gip_loader_set_epoch(self->l, (int64_t)e);
    if (st)
        gpy_copy_error(st, msg, sizeof msg);
    Py_END_ALLOW_THREADS;
    return gpy_none_or_raise(st, msg);
}

static PyObject *loader_len(LoaderObject *self, PyObject *unused)
{
    if (!loader_usable(self))
        return NULL;
    return Py_BuildValue("(LL)", (long long)gip_loader_len(self->l),
                         (long long)gip_loader_samples(self->l));
}

static PyObject *loader_stats(LoaderObject *self, PyObject *unused)
{
    if (!loader_usable(self))
        return NULL;
    gip_loader_stats s;
    gip_loader_get_stats(self->l, &s);
    return Py_BuildValue("{s:L,s:L,s:L,s:d,s:d,s:d,s:d}", "images", (long long)s.images, "skipped",
                         (long long)s.skipped, "batches", (long long)s.batches, "read", s.read,
                         "decode", s.decode, "transform", s.transform, "handover", s.handover);
}

/* close(): stops and joins the worker threads. Batches already handed out stay valid: they
 * hold this object (and its context) and free their memory without the C loader. */
static PyObject *loader_close(LoaderObject *self, PyObject *unused)
{
    (void)unused;
    loader_stop(self);
    Py_RETURN_NONE;
}

static PyMethodDef loader_methods[] = {{"next", (PyCFunction)loader_next, METH_NOARGS, NULL},
                                       {"set_epoch", (PyCFunction)loader_set_epoch, METH_O, NULL},
                                       {"lengths", (PyCFunction)loader_len, METH_NOARGS, NULL},
                                       {"stats", (PyCFunction)loader_stats, METH_NOARGS, NULL},
                                       {"close", (PyCFunction)loader_close, METH_NOARGS, NULL},
                                       {NULL}};

static PyTypeObject LoaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Loader",
    .tp_basicsize = sizeof(LoaderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The C batch loader (use gip.Loader).",
    .tp_new = loader_new,
    .tp_dealloc = (destructor)loader_dealloc,
    .tp_traverse = (traverseproc)loader_traverse,
    .tp_methods = loader_methods,
};

int gpy_loader_init(PyObject *m)
{
    if (PyType_Ready(&LoaderType) < 0 || PyType_Ready(&BatchType) < 0)
        return -1;
    Py_INCREF(&LoaderType);
    if (PyModule_AddObject(m, "Loader", (PyObject *)&LoaderType) < 0) {
        Py_DECREF(&LoaderType);
        return -1;
    }
    Py_INCREF(&BatchType);
    if (PyModule_AddObject(m, "LoaderBatch", (PyObject *)&BatchType) < 0) {
        Py_DECREF(&BatchType);
        return -1;
    }
    return 0;
}
