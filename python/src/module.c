/* SPDX-License-Identifier: MIT */
/* gip._gip: the CPython extension under the gip package. This file holds the module: raising
 * libgip's statuses as the exceptions of gip/_errors.py, the library and device queries, and the
 * module's creation from the method tables of the other files (context.c, image.c, interop.c,
 * registry.c, ops.c, io.c, kernel.c, pipeline.c, batch.c, style.c). */
#include <stdarg.h>
#include <stdio.h>

#include "gip_py.h"

/* ---- errors: gip/_errors.py registers {status code: exception class}; libgip's message is the
 * text -------------------------------------------------------------------------------------- */
static PyObject *error_map;  /* dict, owned */
static PyObject *type_error; /* gip.InvalidType, owned */

PyObject *gpy_raise_status(gip_status st, const char *msg)
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

PyObject *gpy_none_or_raise(gip_status st, const char *msg)
{
    if (st)
        return gpy_raise_status(st, msg);
    Py_RETURN_NONE;
}

PyObject *gpy_raise_fmt(gip_status st, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gpy_raise_status(st, msg);
}

void gpy_copy_error(gip_status st, char *buf, size_t size)
{
    const char *m = gip_last_error();
    snprintf(buf, size, "%s", m && *m ? m : gip_status_string(st));
}

PyObject *gpy_raise_type(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!type_error) {
        PyErr_SetString(PyExc_TypeError, msg);
        return NULL;
    }
    PyErr_SetString(type_error, msg);
    return NULL;
}

/* ---- library and devices ------------------------------------------------------------------ */
/* _register_errors({status code: exception class}, InvalidType) */
static PyObject *py_register_errors(PyObject *m, PyObject *args)
{
    PyObject *map, *type_cls;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &map, &type_cls))
        return NULL;
    Py_INCREF(map);
    Py_XSETREF(error_map, map);
    Py_INCREF(type_cls);
    Py_XSETREF(type_error, type_cls);
    Py_RETURN_NONE;
}

static PyObject *py_raise_status(PyObject *m, PyObject *args)
{
    int st;
    const char *msg;
    if (!PyArg_ParseTuple(args, "is", &st, &msg))
        return NULL;
    return gpy_raise_status((gip_status)st, msg);
}

static PyObject *py_devices(PyObject *m, PyObject *unused)
{
    int32_t n = 0;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg, gip_device_count(&n));
    if (st)
        return gpy_raise_status(st, msg);
    PyObject *list = PyList_New(0);
    for (int32_t i = 0; list && i < n; i++) {
        gip_device_info info;
        if ((st = gip_device_get_info(i, &info))) {
            Py_DECREF(list);
            return gpy_raise_status(st, gip_last_error());
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
        return gpy_raise_status(GIP_ERR_INVALID_ARGUMENT, gip_last_error());
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

PyMethodDef gpy_module_methods[] = {
    {"_register_errors", py_register_errors, METH_VARARGS, NULL},
    {"_raise", py_raise_status, METH_VARARGS, NULL},
    {"devices", py_devices, METH_NOARGS, NULL},
    {"unavailable_reason", py_unavailable_reason, METH_NOARGS, NULL},
    {"version", py_version, METH_NOARGS, NULL},
    {"build_info", py_build_info, METH_NOARGS, NULL},
    {"cache_dir", py_cache_dir, METH_NOARGS, NULL},
    {"cache_stats", py_cache_stats, METH_NOARGS, NULL},
    {NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT,
                                       "_gip",
                                       "libgip bindings (use the gip package).",
                                       -1,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL};

PyMODINIT_FUNC PyInit__gip(void)
{
    if (PyType_Ready(&gpy_ContextType) < 0 || PyType_Ready(&gpy_MemoryType) < 0 ||
        PyType_Ready(&gpy_ImageType) < 0)
        return NULL;
    gpy_PipelineType.tp_base = &gpy_ContextType; /* a pipeline handle is usable as its context */
    if (PyType_Ready(&gpy_PipelineType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    PyMethodDef *tables[] = {gpy_module_methods, gpy_image_module_methods, gpy_interop_methods,
                             gpy_ops_methods,    gpy_registry_methods,     gpy_io_methods,
                             gpy_kernel_methods, gpy_pipeline_methods,     gpy_batch_methods,
                             gpy_style_methods,  gpy_stats_methods};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (PyModule_AddFunctions(m, tables[i]) < 0)
            goto out_fail;
    Py_INCREF(&gpy_ContextType);
    if (PyModule_AddObject(m, "Context", (PyObject *)&gpy_ContextType) < 0) {
        Py_DECREF(&gpy_ContextType);
        goto out_fail;
    }
    Py_INCREF(&gpy_ImageType);
    if (PyModule_AddObject(m, "Image", (PyObject *)&gpy_ImageType) < 0) {
        Py_DECREF(&gpy_ImageType);
        goto out_fail;
    }
    if (gpy_registry_init(m) < 0 || gpy_kernel_init(m) < 0 || gpy_loader_init(m) < 0)
        goto out_fail;
    return m;
out_fail:
    Py_DECREF(m);
    return NULL;
}
