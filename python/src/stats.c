/* SPDX-License-Identifier: MIT */
/* The statistics reductions (gip/stats.h): calcHist, minMaxLoc, mean, meanStdDev, sum,
 * countNonZero, norm and PSNR. The Python layer (gip/_stats.py) passes the context, the prepared
 * images (None for an absent mask or second image) and normalised arguments positionally; the
 * results come back as Python numbers and tuples. */
#include <string.h>

#include "gip_py.h"

/* The prepared images of one call: up to three views, None allowed where `optional` says. */
typedef struct {
    View v[3];
    int have[3];
    int n;
} Views;

static void views_release(Views *vs)
{
    for (int i = 0; i < vs->n; i++)
        if (vs->have[i])
            gpy_view_release(&vs->v[i]);
}

static ContextObject *ctx_of(PyObject *co)
{
    if (!PyObject_TypeCheck(co, &gpy_ContextType)) {
        PyErr_SetString(PyExc_TypeError, "expected a _gip.Context");
        return NULL;
    }
    return (ContextObject *)co;
}

/* Resolves objs[i] (None gives no view) into vs. 0, or -1 with an exception set. */
static int resolve_all(ContextObject *c, PyObject *const *objs, const char *const *names, int n,
                       Views *vs)
{
    memset(vs, 0, sizeof *vs);
    for (int i = 0; i < n; i++, vs->n++) {
        if (objs[i] == Py_None)
            continue;
        if (gpy_resolve(c, objs[i], 0, names[i], &vs->v[i])) {
            views_release(vs);
            return -1;
        }
        vs->have[i] = 1;
    }
    return 0;
}

#define VIEW(vs, i) ((vs).have[i] ? &(vs).v[i].img : NULL)

static PyObject *tuple4(const double *v)
{
    return Py_BuildValue("(dddd)", v[0], v[1], v[2], v[3]);
}

/* calc_hist(ctx, src, mask|None, channels, bins, ranges, non_uniform, hist, accumulate): counts
 * into hist, a writable C-contiguous float32 buffer of prod(bins) values. ranges: one sequence
 * of floats per dimension ({low, high} or bins + 1 edges). */
static PyObject *py_calc_hist(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *mask, *chans, *bins, *ranges, *hist;
    int non_uniform, accumulate;
    if (!PyArg_ParseTuple(args, "OOOOOOpOp", &co, &src, &mask, &chans, &bins, &ranges, &non_uniform,
                          &hist, &accumulate))
        return NULL;
    ContextObject *c = ctx_of(co);
    if (!c)
        return NULL;
    gip_calc_hist_params p;
    memset(&p, 0, sizeof p);
    Py_ssize_t dims = PySequence_Size(chans);
    if (dims < 1 || dims > 3 || PySequence_Size(bins) != dims || PySequence_Size(ranges) != dims)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                             "calcHist: channels, histSize and ranges must each have 1 to 3 "
                             "entries, one per dimension");
    p.dims = (int32_t)dims;
    p.non_uniform = non_uniform;
    p.accumulate = accumulate;
    float *edges[3] = {NULL, NULL, NULL};
    PyObject *ret = NULL;
    Py_buffer hb = {0};
    int have_hb = 0;
    for (Py_ssize_t d = 0; d < dims; d++) {
        PyObject *ci = PySequence_GetItem(chans, d), *bi = PySequence_GetItem(bins, d);
        long cv = ci ? PyLong_AsLong(ci) : -1, bv = bi ? PyLong_AsLong(bi) : -1;
        Py_XDECREF(ci);
        Py_XDECREF(bi);
        if (PyErr_Occurred())
            goto out;
        p.channels[d] = cv < -1 || cv > 1000 ? -1 : (int32_t)cv;
        p.bins[d] = bv < 0 || bv > (1L << 30) ? 0 : (int32_t)bv;
        PyObject *r = PySequence_GetItem(ranges, d);
        if (!r)
            goto out;
        PyObject *fast = PySequence_Fast(r, "calcHist: each range must be a sequence of numbers");
        Py_DECREF(r);
        if (!fast)
            goto out;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        Py_ssize_t need = non_uniform ? (Py_ssize_t)p.bins[d] + 1 : 2;
        if (n != need || !(edges[d] = PyMem_Malloc(sizeof(float) * (size_t)(n ? n : 1)))) {
            Py_DECREF(fast);
            if (n == need)
                PyErr_NoMemory();
            else
                gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                              "calcHist: dimension %d needs %zd range values (%s), got %zd", (int)d,
                              need, non_uniform ? "bins + 1 edges" : "low, high", n);
            goto out;
        }
        for (Py_ssize_t k = 0; k < n; k++)
            edges[d][k] = (float)PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, k));
        Py_DECREF(fast);
        if (PyErr_Occurred())
            goto out;
        p.ranges[d] = edges[d];
    }
    if (PyObject_GetBuffer(hist, &hb, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto out;
    have_hb = 1;
    {
        long long total = 1;
        for (int d = 0; d < dims; d++)
            total *= p.bins[d] > 0 ? p.bins[d] : 1;
        if (gpy_dtype_from_format(hb.format) != GIP_F32 || hb.len != total * 4) {
            gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                          "calcHist: hist must be a float32 array of %lld values", total);
            goto out;
        }
    }
    {
        PyObject *objs[2] = {src, mask};
        static const char *const names[2] = {"src", "mask"};
        Views vs;
        if (resolve_all(c, objs, names, 2, &vs))
            goto out;
        gip_status st;
        char msg[1024];
        GIP_PY_RUN(c, st, msg, gip_calc_hist(c->ctx, VIEW(vs, 0), VIEW(vs, 1), &p, hb.buf));
        views_release(&vs);
        if (st) {
            gpy_raise_status(st, msg);
            goto out;
        }
    }
    ret = Py_None;
    Py_INCREF(ret);
out:
    if (have_hb)
        PyBuffer_Release(&hb);
    for (int d = 0; d < 3; d++)
        PyMem_Free(edges[d]);
    return ret;
}

/* reduce(ctx, what, src, src2|None, mask|None, norm_type, r): what is one of "minmaxloc",
 * "mean", "meanstddev", "sum", "countnonzero", "norm", "psnr". */
static PyObject *py_reduce(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *src2, *mask;
    const char *what;
    int norm_type;
    double r;
    if (!PyArg_ParseTuple(args, "OsOOOid", &co, &what, &src, &src2, &mask, &norm_type, &r))
        return NULL;
    ContextObject *c = ctx_of(co);
    if (!c)
        return NULL;
    PyObject *objs[3] = {src, src2, mask};
    static const char *const names[3] = {"src", "src2", "mask"};
    Views vs;
    if (resolve_all(c, objs, names, 3, &vs))
        return NULL;
    const gip_image *a = VIEW(vs, 0), *b = VIEW(vs, 1), *mk = VIEW(vs, 2);
    gip_status st = GIP_ERR_INVALID_ARGUMENT;
    char msg[1024] = "";
    double v1[4] = {0}, v2[4] = {0}, x = 0, y = 0;
    int64_t l1[2] = {0}, l2[2] = {0}, n = 0;
    PyObject *ret = NULL;
    if (!strcmp(what, "minmaxloc")) {
        GIP_PY_RUN(c, st, msg, gip_min_max_loc(c->ctx, a, mk, &x, &y, l1, l2));
        if (!st)
            ret = Py_BuildValue("(dd(LL)(LL))", x, y, (long long)l1[0], (long long)l1[1],
                                (long long)l2[0], (long long)l2[1]);
    } else if (!strcmp(what, "mean")) {
        GIP_PY_RUN(c, st, msg, gip_mean(c->ctx, a, mk, v1));
        if (!st)
            ret = tuple4(v1);
    } else if (!strcmp(what, "meanstddev")) {
        GIP_PY_RUN(c, st, msg, gip_mean_std_dev(c->ctx, a, mk, v1, v2));
        if (!st)
            ret = Py_BuildValue("(NN)", tuple4(v1), tuple4(v2));
    } else if (!strcmp(what, "sum")) {
        GIP_PY_RUN(c, st, msg, gip_sum(c->ctx, a, v1));
        if (!st)
            ret = tuple4(v1);
    } else if (!strcmp(what, "countnonzero")) {
        GIP_PY_RUN(c, st, msg, gip_count_non_zero(c->ctx, a, &n));
        if (!st)
            ret = PyLong_FromLongLong((long long)n);
    } else if (!strcmp(what, "norm")) {
        GIP_PY_RUN(c, st, msg, gip_norm(c->ctx, a, b, norm_type, mk, &x));
        if (!st)
            ret = PyFloat_FromDouble(x);
    } else if (!strcmp(what, "psnr")) {
        GIP_PY_RUN(c, st, msg, gip_psnr(c->ctx, a, b, r, &x));
        if (!st)
            ret = PyFloat_FromDouble(x);
    } else {
        views_release(&vs);
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "unknown reduction %s", what);
    }
    views_release(&vs);
    if (st)
        return gpy_raise_status(st, msg);
    return ret;
}

PyMethodDef gpy_stats_methods[] = {{"calc_hist", py_calc_hist, METH_VARARGS, NULL},
                                   {"reduce", py_reduce, METH_VARARGS, NULL},
                                   {NULL}};
