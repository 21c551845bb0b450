/* SPDX-License-Identifier: MIT */
/* Pipelines (gip/pipeline.h): a handle that owns a gip_pipeline and is also a Context (a subtype
 * of _gip.Context viewing the pipeline's own context), so device images allocated for it keep the
 * pipeline alive and the usual resolve and keep-alive rules apply. Steps are registered
 * operations with their arguments (registry.c) or pipeline text. */
#include <string.h>

#include "gip_py.h"

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

PyTypeObject gpy_PipelineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.PipelineHandle",
    .tp_basicsize = sizeof(PipelineObject),
    .tp_dealloc = (destructor)Pipeline_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libgip pipeline and its context (see gip.Pipeline).",
};

PipelineObject *gpy_as_pipeline(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &gpy_PipelineType)) {
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
    PipelineObject *self = PyObject_New(PipelineObject, &gpy_PipelineType);
    if (!self)
        return NULL;
    self->p = NULL;
    self->base.ctx = NULL;
    gip_context_desc desc;
    if (gpy_context_start(&self->base, backend, device, threads, &desc)) {
        Py_DECREF(self);
        return NULL;
    }
    gip_pipeline *p = NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_pipeline_create(&desc, &p));
    if (!st && no_fusion && (st = gip_pipeline_set_flags(p, GIP_PIPELINE_NO_FUSION)))
        gpy_copy_error(st, msg, sizeof msg);
    if (st) {
        gip_pipeline_free(p);
        Py_DECREF(self);
        return gpy_raise_status(st, msg);
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
    PipelineObject *po = gpy_as_pipeline(h);
    if (!po)
        return NULL;
    gip_parse_error err;
    memset(&err, 0, sizeof err);
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(&po->base, st, msg, gip_pipeline_parse(po->p, text, &err));
    if (!st)
        Py_RETURN_NONE;
    gpy_raise_status(st, msg);
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

/* pipeline_add_op(handle, args): appends a registered operation with its arguments (an Args of
 * registry.c), checked and copied by gip_pipeline_add_op(). */
static PyObject *py_pipeline_add_op(PyObject *m, PyObject *args)
{
    PyObject *h, *ao;
    if (!PyArg_ParseTuple(args, "OO", &h, &ao))
        return NULL;
    PipelineObject *po = gpy_as_pipeline(h);
    const gip_args *a = po ? gpy_args_of(ao) : NULL;
    if (!a)
        return NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(&po->base, st, msg, gip_pipeline_add_op(po->p, a));
    return gpy_none_or_raise(st, msg);
}

/* pipeline_info(handle) -> (steps, halo_x, halo_y) */
static PyObject *py_pipeline_info(PyObject *m, PyObject *h)
{
    PipelineObject *po = gpy_as_pipeline(h);
    if (!po)
        return NULL;
    int64_t hx = 0, hy = 0;
    gip_status st = gip_pipeline_halo(po->p, &hx, &hy);
    if (st)
        return gpy_raise_status(st, gip_last_error());
    return Py_BuildValue("(iLL)", (int)gip_pipeline_length(po->p), (long long)hx, (long long)hy);
}

/* pipeline_describe(handle, channels, dtype) -> str */
static PyObject *py_pipeline_describe(PyObject *m, PyObject *args)
{
    PyObject *h;
    int ch, dtype;
    if (!PyArg_ParseTuple(args, "Oii", &h, &ch, &dtype))
        return NULL;
    PipelineObject *po = gpy_as_pipeline(h);
    if (!po)
        return NULL;
    char buf[2048];
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(&po->base, st, msg,
               gip_pipeline_describe(po->p, (int32_t)ch, (gip_dtype)dtype, buf, sizeof buf));
    if (st)
        return gpy_raise_status(st, msg);
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
    PipelineObject *po = gpy_as_pipeline(h);
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
        return gpy_raise_status(st, msg);
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
    PipelineObject *po = gpy_as_pipeline(h);
    if (!po)
        return NULL;
    ContextObject *c = &po->base;
    View s, d;
    if (gpy_resolve_pair(c, src, dst, &s, &d))
        return NULL;
    gip_context *other = NULL;
    if (PyObject_TypeCheck(src, &gpy_ImageType)) {
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
    return gpy_finish_pair(st, msg, src, dst, &s, &d);
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
    PipelineObject *po = gpy_as_pipeline(h);
    gip_save_params sp;
    if (!po || gpy_save_params(pt, &sp))
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
        gpy_raise_status(st, msg);
    else
        ret = PyLong_FromLong(streamed);
out_paths:
    Py_DECREF(in_obj);
    Py_DECREF(out_obj);
    return ret;
}

PyMethodDef gpy_pipeline_methods[] = {
    {"pipeline_create", py_pipeline_create, METH_VARARGS, NULL},
    {"pipeline_parse", py_pipeline_parse, METH_VARARGS, NULL},
    {"pipeline_add_op", py_pipeline_add_op, METH_VARARGS, NULL},
    {"pipeline_info", py_pipeline_info, METH_O, NULL},
    {"pipeline_describe", py_pipeline_describe, METH_VARARGS, NULL},
    {"pipeline_output_shape", py_pipeline_output_shape, METH_VARARGS, NULL},
    {"pipeline_run", py_pipeline_run, METH_VARARGS, NULL},
    {"pipeline_run_file", py_pipeline_run_file, METH_VARARGS, NULL},
    {NULL}};
