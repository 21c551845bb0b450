/* SPDX-License-Identifier: MIT */
/* _gip.Context: a libgip context (backend, device, stream, threads) with the lock that keeps it
 * to one thread at a time. */
#include "gip_py.h"

int gpy_context_start(ContextObject *c, int backend, int device, int threads,
                      gip_context_desc *desc)
{
    c->lock = PyThread_allocate_lock();
    if (!c->lock) {
        PyErr_NoMemory();
        return -1;
    }
    memset(desc, 0, sizeof *desc);
    desc->backend = (gip_backend)backend;
    desc->device = device;
    desc->threads = threads;
    return 0;
}

static PyObject *Context_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"backend", "device", "threads", NULL};
    int backend = 0, device = 0, threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|iii", kwlist, &backend, &device, &threads))
        return NULL;
    ContextObject *self = (ContextObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    gip_context_desc desc;
    if (gpy_context_start(self, backend, device, threads, &desc)) {
        Py_DECREF(self);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    gip_context *ctx = NULL;
    GIP_PY_RUN(NULL, st, msg, gip_context_create(&desc, &ctx));
    if (st) {
        Py_DECREF(self);
        return gpy_raise_status(st, msg);
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
        gpy_raise_status(st, msg);
        return -1;
    }
    return 0;
}

static PyObject *Context_sync(ContextObject *self, PyObject *unused)
{
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self, st, msg, gip_context_sync(self->ctx));
    return gpy_none_or_raise(st, msg);
}

static PyObject *Context_set_memory_limit(ContextObject *self, PyObject *arg)
{
    long long bytes = PyLong_AsLongLong(arg);
    if (bytes == -1 && PyErr_Occurred())
        return NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(self, st, msg, gip_context_set_device_memory_limit(self->ctx, (int64_t)bytes));
    return gpy_none_or_raise(st, msg);
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
    return gpy_none_or_raise(st, msg);
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

PyTypeObject gpy_ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(backend=0, device=0, threads=0): a libgip context (0 auto, 1 cpu, 2 cuda).",
    .tp_methods = Context_methods,
    .tp_getset = Context_getset,
    .tp_new = Context_new,
};

ContextObject *gpy_opt_ctx(PyObject *o)
{
    if (o == Py_None)
        return NULL;
    if (!PyObject_TypeCheck(o, &gpy_ContextType)) {
        PyErr_SetString(PyExc_TypeError, "expected a _gip.Context or None");
        return NULL;
    }
    return (ContextObject *)o;
}
