/* SPDX-License-Identifier: MIT */
/* Neural style transfer (gip/style.h): gip.style_transfer's call, with its progress callback. */
#include "gip_py.h"

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
        gpy_copy_error(st, msg, sizeof msg);
        return gpy_raise_status(st, msg);
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
    if (!PyArg_ParseTuple(args, "O!OOOidddiiKiiidIiOO", &gpy_ContextType, &co, &content, &style,
                          &dst, &p.iterations, &p.content_weight, &p.style_weight, &p.tv_weight,
                          &pool, &init, &seed, &p.history, &optimizer, &line_search, &p.lr, &flags,
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
            return gpy_raise_status(st, msg);
        p.net = net;
    }
    View vc, vs, vd;
    if (gpy_resolve(c, content, 0, "content", &vc))
        goto out_net;
    if (gpy_resolve(c, style, 0, "style", &vs))
        goto out_content;
    if (gpy_resolve(c, dst, 1, "dst", &vd))
        goto out_style;
    StyleProgress sp = {progress != Py_None ? progress : NULL, 0};
    GIP_PY_RUN(c, st, msg,
               gip_style_transfer(c->ctx, &vc.img, &vs.img, &vd.img, &p, style_progress, &sp));
    gpy_view_release(&vd);
    gpy_view_release(&vs);
    gpy_view_release(&vc);
    gip_net_free(net);
    if (st) {
        if (sp.failed)
            PyErr_Clear(); /* gip's error is the one to report */
        return gpy_raise_status(st, msg);
    }
    if (sp.failed)
        return NULL; /* the callback's exception or KeyboardInterrupt; dst holds the best image */
    Py_RETURN_NONE;
out_style:
    gpy_view_release(&vs);
out_content:
    gpy_view_release(&vc);
out_net:
    gip_net_free(net);
    return NULL;
}

PyMethodDef gpy_style_methods[] = {{"style_output_size", py_style_output_size, METH_VARARGS, NULL},
                                   {"style_transfer", py_style_transfer, METH_VARARGS, NULL},
                                   {NULL}};
