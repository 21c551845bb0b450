/* SPDX-License-Identifier: MIT */
/* The typed calls of what is not (yet) a registered operation: conv2d, the Sobel magnitude in
 * f32, cvtColor's codes, the FFT family, map of several inputs and stencil to another dtype. The
 * registered operations run through registry.c; the Python layer passes every argument here
 * positionally, already normalised. */
#include <string.h>

#include "gip_py.h"

typedef gip_status (*unary_fn)(gip_context *, const gip_image *, gip_image *, const void *);

static PyObject *run_unary(PyObject *co, PyObject *src, PyObject *dst, unary_fn fn,
                           const void *params)
{
    if (!PyObject_TypeCheck(co, &gpy_ContextType)) {
        PyErr_SetString(PyExc_TypeError, "expected a _gip.Context");
        return NULL;
    }
    ContextObject *c = (ContextObject *)co;
    View s, d;
    if (gpy_resolve_pair(c, src, dst, &s, &d))
        return NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, fn(c->ctx, &s.img, &d.img, params));
    return gpy_finish_pair(st, msg, src, dst, &s, &d);
}

static gip_status f_conv2d(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_conv2d(x, s, d, p);
}
static gip_status f_sobel_mag(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel_magnitude(x, s, d, p);
}
static gip_status f_cvt(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_cvt_color(x, s, d, *(const gip_color_code *)p);
}
static gip_status f_fft2(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_fft2(x, s, d, p);
}
static gip_status f_ifft2(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_ifft2(x, s, d, p);
}
static gip_status f_fftshift(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return *(const int *)p ? gip_ifftshift(x, s, d) : gip_fftshift(x, s, d);
}
static gip_status f_magnitude(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_magnitude(x, s, d);
}
static gip_status f_log_magnitude(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_log_magnitude(x, s, d, p);
}
static gip_status f_normalize(gip_context *x, const gip_image *s, gip_image *d, const void *p)
{
    return gip_normalize_minmax(x, s, d);
}
static gip_border_spec border_spec(int mode, double value)
{
    gip_border_spec b;
    b.mode = (gip_border)mode;
    for (int i = 0; i < 4; i++)
        b.value[i] = (float)value;
    return b;
}

/* Reads a C-contiguous float32 buffer of exactly n values. */
static int float_buffer(PyObject *o, Py_ssize_t n, const char *what, Py_buffer *b)
{
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (gpy_dtype_from_format(b->format) != GIP_F32 || b->len != n * 4) {
        PyBuffer_Release(b);
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "%s: expected %zd float32 values", what, n);
        return -1;
    }
    return 0;
}

/* conv2d(ctx, src, dst, weight, bias|None, out_ch, in_ch, kh, kw, ph, pw) */
static PyObject *py_conv2d(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d, *w, *bias;
    int oc, ic, kh, kw, ph, pw;
    if (!PyArg_ParseTuple(args, "OOOOOiiiiii", &c, &s, &d, &w, &bias, &oc, &ic, &kh, &kw, &ph, &pw))
        return NULL;
    if (oc < 1 || ic < 1 || kh < 1 || kw < 1)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "conv2d: weight shape must be positive");
    Py_buffer wb, bb;
    if (float_buffer(w, (Py_ssize_t)oc * ic * kh * kw, "conv2d: weight", &wb))
        return NULL;
    int has_bias = bias != Py_None;
    if (has_bias && float_buffer(bias, oc, "conv2d: bias", &bb)) {
        PyBuffer_Release(&wb);
        return NULL;
    }
    gip_conv2d_params p = {0};
    p.weight = wb.buf;
    p.bias = has_bias ? bb.buf : NULL;
    p.kh = kh;
    p.kw = kw;
    p.pad_h = ph;
    p.pad_w = pw;
    PyObject *r = run_unary(c, s, d, f_conv2d, &p);
    PyBuffer_Release(&wb);
    if (has_bias)
        PyBuffer_Release(&bb);
    return r;
}

/* sobel_magnitude(ctx, src, dst, ksize, scale, delta, border, bval): sqrt(dx^2 + dy^2) of the
 * first derivatives into f32 or u8 (gip_sobel_magnitude()). */
static PyObject *py_sobel_magnitude(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int ksize, border;
    double scale, delta, bval;
    if (!PyArg_ParseTuple(args, "OOOiddid", &c, &s, &d, &ksize, &scale, &delta, &border, &bval))
        return NULL;
    gip_sobel_params p = {0};
    p.dx = 1;
    p.dy = 1;
    p.ksize = ksize;
    p.scale = (float)scale;
    p.delta = (float)delta;
    p.border = border_spec(border, bval);
    if (scale == 0.0)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "sobel_magnitude: scale must not be 0");
    return run_unary(c, s, d, f_sobel_mag, &p);
}

static PyObject *py_cvt_color(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int code;
    if (!PyArg_ParseTuple(args, "OOOi", &c, &s, &d, &code))
        return NULL;
    gip_color_code cc = (gip_color_code)code;
    return run_unary(c, s, d, f_cvt, &cc);
}

static PyObject *py_fft2(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int norm, inverse;
    if (!PyArg_ParseTuple(args, "OOOip", &c, &s, &d, &norm, &inverse))
        return NULL;
    gip_fft_params p = {(gip_fft_norm)norm, 0};
    return run_unary(c, s, d, inverse ? f_ifft2 : f_fft2, &p);
}

static PyObject *py_fftshift(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int inverse;
    if (!PyArg_ParseTuple(args, "OOOp", &c, &s, &d, &inverse))
        return NULL;
    return run_unary(c, s, d, f_fftshift, &inverse);
}

static PyObject *py_magnitude(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    int log, log1p;
    if (!PyArg_ParseTuple(args, "OOOpp", &c, &s, &d, &log, &log1p))
        return NULL;
    gip_log_magnitude_params p = {log1p};
    return run_unary(c, s, d, log ? f_log_magnitude : f_magnitude, &p);
}

static PyObject *py_normalize_minmax(PyObject *m, PyObject *args)
{
    PyObject *c, *s, *d;
    if (!PyArg_ParseTuple(args, "OOO", &c, &s, &d))
        return NULL;
    return run_unary(c, s, d, f_normalize, NULL);
}

/* Fills up to GIP_EXPR_MAX_SCALARS scalars from a dict {name: float}; names stay owned by the
 * dict's keys. Returns the count or -1. */
static int parse_scalars(PyObject *dict, gip_scalar *out)
{
    if (dict == Py_None)
        return 0;
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "scalars must be a dict {name: number}");
        return -1;
    }
    if (PyDict_Size(dict) > GIP_EXPR_MAX_SCALARS) {
        gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "at most %d scalars", GIP_EXPR_MAX_SCALARS);
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    int n = 0;
    while (PyDict_Next(dict, &pos, &k, &v)) {
        if (!PyUnicode_Check(k)) {
            PyErr_SetString(PyExc_TypeError, "scalar names must be strings");
            return -1;
        }
        out[n].name = PyUnicode_AsUTF8(k);
        double x = PyFloat_AsDouble(v);
        if (!out[n].name || (x == -1.0 && PyErr_Occurred()))
            return -1;
        out[n].value = (float)x;
        n++;
    }
    return n;
}

/* map(ctx, expr, inputs tuple, dst, scalars dict|None) */
static PyObject *py_map(PyObject *m, PyObject *args)
{
    PyObject *co, *inputs, *dst, *scal;
    const char *expr;
    if (!PyArg_ParseTuple(args, "O!sO!OO", &gpy_ContextType, &co, &expr, &PyTuple_Type, &inputs,
                          &dst, &scal))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    if (n < 1 || n > GIP_EXPR_MAX_INPUTS)
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT, "map: 1 to %d inputs, got %zd",
                             GIP_EXPR_MAX_INPUTS, n);
    gip_scalar sc[GIP_EXPR_MAX_SCALARS];
    int ns = parse_scalars(scal, sc);
    if (ns < 0)
        return NULL;
    View vs[GIP_EXPR_MAX_INPUTS], d;
    gip_image imgs[GIP_EXPR_MAX_INPUTS];
    Py_ssize_t got = 0;
    PyObject *ret = NULL;
    for (; got < n; got++) {
        if (gpy_resolve(c, PyTuple_GET_ITEM(inputs, got), 0, "input", &vs[got]))
            goto out_release;
        imgs[got] = vs[got].img;
    }
    if (gpy_resolve(c, dst, 1, "dst", &d))
        goto out_release;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_map(c->ctx, expr, imgs, (int32_t)n, sc, ns, &d.img));
    if (!st)
        for (Py_ssize_t i = 0; i < n; i++)
            gpy_keep_alive(dst, PyTuple_GET_ITEM(inputs, i), &vs[i]);
    gpy_view_release(&d);
    ret = gpy_none_or_raise(st, msg);
out_release:
    for (Py_ssize_t i = 0; i < got; i++)
        gpy_view_release(&vs[i]);
    return ret;
}

/* stencil(ctx, expr, src, dst, radius, border, bval, scalars) */
static PyObject *py_stencil(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *dst, *scal;
    const char *expr;
    int radius, border;
    double bval;
    if (!PyArg_ParseTuple(args, "O!sOOiidO", &gpy_ContextType, &co, &expr, &src, &dst, &radius,
                          &border, &bval, &scal))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    gip_scalar sc[GIP_EXPR_MAX_SCALARS];
    int ns = parse_scalars(scal, sc);
    if (ns < 0)
        return NULL;
    gip_stencil_params p = {0};
    p.radius = radius;
    p.border = border_spec(border, bval);
    p.scalars = ns ? sc : NULL;
    p.n_scalars = ns;
    View s, d;
    if (gpy_resolve_pair(c, src, dst, &s, &d))
        return NULL;
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_stencil(c->ctx, expr, &s.img, &d.img, &p));
    return gpy_finish_pair(st, msg, src, dst, &s, &d);
}

/* real_to_complex(ctx, src f32, dst c32): dst = src + 0j (numpy.fft.fft2's real input). */
static PyObject *py_real_to_complex(PyObject *m, PyObject *args)
{
    PyObject *co, *src, *dst;
    if (!PyArg_ParseTuple(args, "O!OO", &gpy_ContextType, &co, &src, &dst))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    View s, d;
    if (gpy_resolve_pair(c, src, dst, &s, &d))
        return NULL;
    gip_status st;
    char msg[1024];
    if (s.img.dtype != GIP_F32 || s.img.channels != 1 || d.img.dtype != GIP_C32 ||
        s.img.width != d.img.width || s.img.height != d.img.height) {
        gpy_view_release(&s);
        gpy_view_release(&d);
        return gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                             "real_to_complex: src must be 1-channel float32 and dst complex64 of "
                             "the same size");
    }
    gip_strided sv = {s.img.data,           {s.img.height, s.img.width, 1},
                      {s.img.stride, 4, 4}, GIP_F32,
                      s.img.memory,         s.img.device};
    gip_strided dv = {d.img.data,           {d.img.height, d.img.width, 1},
                      {d.img.stride, 8, 4}, GIP_F32,
                      d.img.memory,         d.img.device};
    GIP_PY_RUN(c, st, msg, gip_image_fill_bytes(c->ctx, &d.img, 0));
    if (!st)
        GIP_PY_RUN(c, st, msg, gip_copy_strided(c->ctx, &sv, &dv));
    return gpy_finish_pair(st, msg, src, dst, &s, &d);
}

/* threshold_value(ctx, src, method) -> float: the level of cv2's THRESH_OTSU (8) or
 * THRESH_TRIANGLE (16) for a u8 one-channel image (gip_threshold_value()). */
static PyObject *py_threshold_value(PyObject *m, PyObject *args)
{
    PyObject *co, *src;
    int method;
    if (!PyArg_ParseTuple(args, "O!Oi", &gpy_ContextType, &co, &src, &method))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    View s;
    if (gpy_resolve(c, src, 0, "src", &s))
        return NULL;
    gip_status st;
    char msg[1024];
    double t = 0;
    GIP_PY_RUN(c, st, msg, gip_threshold_value(c->ctx, &s.img, method, &t));
    gpy_view_release(&s);
    if (st)
        return gpy_raise_status(st, msg);
    return PyFloat_FromDouble(t);
}

/* convert_maps(ctx, map1, map2|None, dst1, dst2|None) */
static PyObject *py_convert_maps(PyObject *m, PyObject *args)
{
    PyObject *co, *o[4];
    if (!PyArg_ParseTuple(args, "O!OOOO", &gpy_ContextType, &co, &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    ContextObject *c = (ContextObject *)co;
    static const char *const names[4] = {"map1", "map2", "dst1", "dst2"};
    View v[4];
    const gip_image *img[4] = {NULL, NULL, NULL, NULL};
    int got = 0;
    PyObject *ret = NULL;
    for (; got < 4; got++) {
        if (o[got] == Py_None)
            continue;
        if (gpy_resolve(c, o[got], got >= 2, names[got], &v[got]))
            goto out_release;
        img[got] = &v[got].img;
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg,
               gip_convert_maps(c->ctx, img[0], img[1], (gip_image *)img[2], (gip_image *)img[3]));
    if (st) {
        gpy_raise_status(st, msg);
        goto out_release;
    }
    for (int d = 2; d < 4; d++)
        for (int i = 0; i < 2; i++)
            if (img[d] && img[i])
                gpy_keep_alive(o[d], o[i], &v[i]);
    Py_INCREF(Py_None);
    ret = Py_None;
out_release:
    for (int i = 0; i < got; i++)
        if (img[i])
            gpy_view_release(&v[i]);
    return ret;
}

PyMethodDef gpy_ops_methods[] = {{"convert_maps", py_convert_maps, METH_VARARGS, NULL},
                                 {"real_to_complex", py_real_to_complex, METH_VARARGS, NULL},
                                 {"conv2d", py_conv2d, METH_VARARGS, NULL},
                                 {"sobel_magnitude", py_sobel_magnitude, METH_VARARGS, NULL},
                                 {"cvt_color", py_cvt_color, METH_VARARGS, NULL},
                                 {"fft2", py_fft2, METH_VARARGS, NULL},
                                 {"fftshift", py_fftshift, METH_VARARGS, NULL},
                                 {"magnitude", py_magnitude, METH_VARARGS, NULL},
                                 {"normalize_minmax", py_normalize_minmax, METH_VARARGS, NULL},
                                 {"map", py_map, METH_VARARGS, NULL},
                                 {"stencil", py_stencil, METH_VARARGS, NULL},
                                 {"threshold_value", py_threshold_value, METH_VARARGS, NULL},
                                 {NULL}};
