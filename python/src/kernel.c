/* SPDX-License-Identifier: MIT */
/* Runtime CUDA kernels: modules compiled by NVRTC (gip.Module), their kernels and launches. */
#include <string.h>

#include "gip_py.h"

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
    if (!PyArg_ParseTuple(args, "O!ssOOp", &gpy_ContextType, &co, &source, &name, &opts, &incs,
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
        return gpy_raise_status(st, msg);
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
        return gpy_raise_status(st, gip_last_error());
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
        return gpy_raise_status(st, msg);
    return PyCapsule_New(k, "gip.kernel", NULL);
}

/* launch(ctx, kernel capsule, args [(type, value)], grid|None, block|None, shared, size_from) */
static PyObject *py_launch(PyObject *m, PyObject *args)
{
    PyObject *co, *kcap, *list, *grid, *block;
    unsigned shared;
    int size_from;
    if (!PyArg_ParseTuple(args, "O!OO!OOIi", &gpy_ContextType, &co, &kcap, &PyList_Type, &list,
                          &grid, &block, &shared, &size_from))
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
            if (gpy_resolve(c, val, 0, "kernel argument", &views[i]))
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
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "kernel argument %zd: bad type %d", i, type);
            goto out_release;
        }
        if (PyErr_Occurred()) {
            i++;
            goto out_release;
        }
    }
    if (size_from >= 0) {
        if (size_from >= n || ka[size_from].type != GIP_ARG_IMAGE) {
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "size_from must name an image argument");
            goto out_release;
        }
        cfg.size_from = &imgs[size_from];
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_kernel_launch(c->ctx, k, &cfg, ka, (int32_t)n));
    ret = gpy_none_or_raise(st, msg);
out_release:
    for (Py_ssize_t j = 0; j < i && j < n; j++)
        if (ka[j].type == GIP_ARG_IMAGE)
            gpy_view_release(&views[j]);
out_free:
    PyMem_Free(ka);
    PyMem_Free(views);
    PyMem_Free(imgs);
    return ret;
}

PyMethodDef gpy_kernel_methods[] = {{"module_compile", py_module_compile, METH_VARARGS, NULL},
                                    {"module_info", py_module_info, METH_O, NULL},
                                    {"module_kernel", py_module_kernel, METH_VARARGS, NULL},
                                    {"launch", py_launch, METH_VARARGS, NULL},
                                    {NULL}};

int gpy_kernel_init(PyObject *m)
{
    if (PyType_Ready(&ModuleType) < 0)
        return -1;
    if (PyModule_AddIntConstant(m, "ARG_PTR", GIP_ARG_PTR) < 0 ||
        PyModule_AddIntConstant(m, "ARG_IMAGE", GIP_ARG_IMAGE) < 0 ||
        PyModule_AddIntConstant(m, "ARG_I32", GIP_ARG_I32) < 0 ||
        PyModule_AddIntConstant(m, "ARG_I64", GIP_ARG_I64) < 0 ||
        PyModule_AddIntConstant(m, "ARG_F32", GIP_ARG_F32) < 0 ||
        PyModule_AddIntConstant(m, "ARG_F64", GIP_ARG_F64) < 0)
        return -1;
    return 0;
}
