/* SPDX-License-Identifier: MIT */
/* The statistics reductions (gip/stats.h): calcHist, minMaxLoc, mean, meanStdDev, sum,
 * countNonZero, norm and PSNR. The Python layer (gip/_stats.py) passes the context, the prepared
 * images (None for an absent mask or second image) and normalised arguments positionally; the
 * results come back as Python numbers and tuples. */
#include <stdbool.h>
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
        ret = gpy_none_or_raise(st, msg);
    }
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
    } else if (!strcmp(what, "minmaxidx")) {
        const bool multi = a && a->channels > 1;
        GIP_PY_RUN(c, st, msg,
                   gip_min_max_idx(c->ctx, a, mk, &x, &y, multi ? NULL : l1, multi ? NULL : l2));
        if (!st && multi)
            ret = Py_BuildValue("(ddOO)", x, y, Py_None, Py_None);
        else if (!st)
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

/* A writable C-contiguous numpy output (uint16, int32, float32 or float64, 2-D or 3-D) as a
 * gip_array; the buffer is held in *b until released. 0, or -1 with an exception set. */
static int out_array(PyObject *obj, const char *what, Py_buffer *b, gip_array *a)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        return -1;
    const char *f = b->format ? b->format : "B";
    while (*f == '<' || *f == '=' || *f == '@' || *f == '|')
        f++;
    int depth = !strcmp(f, "H")                                              ? GIP_DEPTH_U16
                : (!strcmp(f, "i") || (!strcmp(f, "l") && b->itemsize == 4)) ? GIP_DEPTH_S32
                : !strcmp(f, "f")                                            ? GIP_DEPTH_F32
                : !strcmp(f, "d")                                            ? GIP_DEPTH_F64
                                                                             : 0;
    if (!depth || b->ndim < 2 || b->ndim > 3) {
        PyBuffer_Release(b);
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                      "%s must be a 2-D or 3-D uint16, int32, float32 or float64 array", what);
        return -1;
    }
    memset(a, 0, sizeof *a);
    a->data = b->buf;
    a->height = b->shape[0];
    a->width = b->shape[1];
    a->channels = b->ndim == 3 ? (int32_t)b->shape[2] : 1;
    a->depth = depth;
    a->stride = b->strides ? b->strides[0] : a->width * a->channels * b->itemsize;
    return 0;
}

/* compare_hist(h1, h2, method): two C-contiguous float32 buffers of the same length. */
static PyObject *py_compare_hist(PyObject *m, PyObject *args)
{
    PyObject *o1, *o2;
    int method;
    if (!PyArg_ParseTuple(args, "OOi", &o1, &o2, &method))
        return NULL;
    Py_buffer b1, b2;
    if (PyObject_GetBuffer(o1, &b1, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(o2, &b2, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&b1);
        return NULL;
    }
    PyObject *ret = NULL;
    if (gpy_dtype_from_format(b1.format) != GIP_F32 ||
        gpy_dtype_from_format(b2.format) != GIP_F32 || b1.len != b2.len) {
        gpy_raise_fmt(GIP_ERR_SHAPE_MISMATCH,
                      "compareHist: H1 and H2 must be float32 histograms of the same size");
    } else {
        double r = 0;
        gip_status st;
        char msg[1024];
        GIP_PY_RUN(NULL, st, msg,
                   gip_compare_hist(NULL, b1.buf, b2.buf, (int64_t)(b1.len / 4), method, &r));
        ret = st ? gpy_raise_status(st, msg) : PyFloat_FromDouble(r);
    }
    PyBuffer_Release(&b1);
    PyBuffer_Release(&b2);
    return ret;
}

/* integral(ctx, src, sum|None, sqsum|None, tilted|None): numpy outputs of the right shapes. */
static PyObject *py_integral(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *outs[3];
    if (!PyArg_ParseTuple(args, "OOOOO", &co, &src, &outs[0], &outs[1], &outs[2]))
        return NULL;
    ContextObject *c = ctx_of(co);
    if (!c)
        return NULL;
    static const char *const names[3] = {"sum", "sqsum", "tilted"};
    Py_buffer b[3];
    gip_array a[3];
    int have[3] = {0, 0, 0};
    PyObject *ret = NULL;
    for (int i = 0; i < 3; i++) {
        if (outs[i] == Py_None)
            continue;
        if (out_array(outs[i], names[i], &b[i], &a[i]))
            goto out;
        have[i] = 1;
    }
    {
        Views vs;
        PyObject *objs[1] = {src};
        static const char *const sn[1] = {"src"};
        if (resolve_all(c, objs, sn, 1, &vs))
            goto out;
        gip_status st;
        char msg[1024];
        GIP_PY_RUN(c, st, msg,
                   gip_integral(c->ctx, VIEW(vs, 0), have[0] ? &a[0] : NULL, have[1] ? &a[1] : NULL,
                                have[2] ? &a[2] : NULL));
        views_release(&vs);
        ret = gpy_none_or_raise(st, msg);
    }
out:
    for (int i = 0; i < 3; i++)
        if (have[i])
            PyBuffer_Release(&b[i]);
    return ret;
}

/* moments(ctx, src, binary): the 24 moments in gip_image_moments' order. */
static PyObject *py_moments(PyObject *m, PyObject *args)
{
    PyObject *co, *src;
    int binary;
    if (!PyArg_ParseTuple(args, "OOp", &co, &src, &binary))
        return NULL;
    ContextObject *c = ctx_of(co);
    if (!c)
        return NULL;
    Views vs;
    PyObject *objs[1] = {src};
    static const char *const sn[1] = {"src"};
    if (resolve_all(c, objs, sn, 1, &vs))
        return NULL;
    gip_image_moments r;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_moments(c->ctx, VIEW(vs, 0), binary, &r));
    views_release(&vs);
    if (st)
        return gpy_raise_status(st, msg);
    const double *d = &r.m00;
    PyObject *t = PyTuple_New(24);
    if (!t)
        return NULL;
    for (int i = 0; i < 24; i++)
        PyTuple_SET_ITEM(t, i, PyFloat_FromDouble(d[i]));
    return t;
}

/* match_template(ctx, image, templ, method, result, mask|None): result a float32 numpy array. */
static PyObject *py_match_template(PyObject *m, PyObject *args)
{
    PyObject *co, *img, *tpl, *res, *mask = Py_None;
    int method;
    if (!PyArg_ParseTuple(args, "OOOiO|O", &co, &img, &tpl, &method, &res, &mask))
        return NULL;
    ContextObject *c = ctx_of(co);
    if (!c)
        return NULL;
    Views vs;
    PyObject *objs[3] = {img, tpl, mask};
    static const char *const sn[3] = {"image", "templ", "mask"};
    if (resolve_all(c, objs, sn, 3, &vs))
        return NULL;
    View rv;
    if (gpy_resolve(c, res, 1, "result", &rv)) {
        views_release(&vs);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(
        c, st, msg,
        gip_match_template_masked(c->ctx, VIEW(vs, 0), VIEW(vs, 1), VIEW(vs, 2), method, &rv.img));
    gpy_view_release(&rv);
    views_release(&vs);
    return gpy_none_or_raise(st, msg);
}

/* connected_components(ctx, src, connectivity, labels): labels a uint16 or int32 numpy array;
 * returns the number of labels. */
static PyObject *py_connected_components(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *lab;
    int conn;
    if (!PyArg_ParseTuple(args, "OOiO", &co, &src, &conn, &lab))
        return NULL;
    ContextObject *c = ctx_of(co);
    if (!c)
        return NULL;
    Py_buffer b;
    gip_array a;
    if (out_array(lab, "labels", &b, &a))
        return NULL;
    Views vs;
    PyObject *objs[1] = {src};
    static const char *const sn[1] = {"src"};
    if (resolve_all(c, objs, sn, 1, &vs)) {
        PyBuffer_Release(&b);
        return NULL;
    }
    int32_t n = 0;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_connected_components(c->ctx, VIEW(vs, 0), conn, &a, &n));
    views_release(&vs);
    PyBuffer_Release(&b);
    if (st)
        return gpy_raise_status(st, msg);
    return PyLong_FromLong(n);
}

/* cc_stats(labels, n, stats, centroids): stats int32 (n, 5), centroids float64 (n, 2). */
static PyObject *py_cc_stats(PyObject *m, PyObject *args)
{
    PyObject *lab, *so, *co;
    int n;
    if (!PyArg_ParseTuple(args, "OiOO", &lab, &n, &so, &co))
        return NULL;
    Py_buffer b, bs, bc;
    gip_array a, as, ac;
    if (out_array(lab, "labels", &b, &a))
        return NULL;
    if (out_array(so, "stats", &bs, &as)) {
        PyBuffer_Release(&b);
        return NULL;
    }
    if (out_array(co, "centroids", &bc, &ac)) {
        PyBuffer_Release(&b);
        PyBuffer_Release(&bs);
        return NULL;
    }
    gip_status st = GIP_ERR_INVALID_ARGUMENT;
    char msg[1024] = "connectedComponentsWithStats: stats must be int32 (n, 5) and centroids "
                     "float64 (n, 2)";
    if (as.depth == GIP_DEPTH_S32 && as.height == n && as.width == 5 && ac.depth == GIP_DEPTH_F64 &&
        ac.height == n && ac.width == 2)
        GIP_PY_RUN(NULL, st, msg, gip_connected_components_stats(NULL, &a, n, as.data, ac.data));
    PyBuffer_Release(&b);
    PyBuffer_Release(&bs);
    PyBuffer_Release(&bc);
    return gpy_none_or_raise(st, msg);
}

PyMethodDef gpy_stats_methods[] = {
    {"calc_hist", py_calc_hist, METH_VARARGS, NULL},
    {"reduce", py_reduce, METH_VARARGS, NULL},
    {"compare_hist", py_compare_hist, METH_VARARGS, NULL},
    {"integral", py_integral, METH_VARARGS, NULL},
    {"moments", py_moments, METH_VARARGS, NULL},
    {"match_template", py_match_template, METH_VARARGS, NULL},
    {"connected_components", py_connected_components, METH_VARARGS, NULL},
    {"cc_stats", py_cc_stats, METH_VARARGS, NULL},
    {NULL}};
