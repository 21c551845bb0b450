/* SPDX-License-Identifier: MIT */
/* Image files and encoded bytes: imread, imdecode, imwrite, imencode (gip/io.h). */
#include <string.h>

#include "gip_py.h"

static PyObject *image_from_loaded(gip_image *img)
{
    ImageObject *im = gpy_image_new(img, img->channels == 1 ? 2 : 3, 1, NULL, NULL);
    if (!im)
        gip_image_free(NULL, img);
    return (PyObject *)im;
}

/* Loads the file at path, or (path NULL) decodes the n bytes at buf, with the arguments that
 * imread and imdecode take after their source: a host Image owning the pixels. */
static PyObject *load(const char *path, const void *buf, size_t n, int mode, int bgr,
                      int keep_depth, int ignore_orientation, int reduce)
{
    const gip_load_params p = {.mode = (gip_load_mode)mode,
                               .bgr = bgr,
                               .keep_depth = keep_depth,
                               .ignore_orientation = ignore_orientation,
                               .reduce = reduce};
    gip_image img = {0};
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(NULL, st, msg,
               path ? gip_image_load(path, &p, &img) : gip_image_decode(buf, n, &p, &img));
    if (st)
        return gpy_raise_status(st, msg);
    return image_from_loaded(&img);
}

/* imread(path, mode, bgr, keep_depth, ignore_orientation=False, reduce=0) -> host Image owning
 * the pixels. */
static PyObject *py_imread(PyObject *m, PyObject *args)
{
    PyObject *path_obj;
    int mode, bgr, keep_depth, ignore_orientation = 0, reduce = 0;
    if (!PyArg_ParseTuple(args, "O&ipp|pi", PyUnicode_FSConverter, &path_obj, &mode, &bgr,
                          &keep_depth, &ignore_orientation, &reduce))
        return NULL;
    PyObject *r = load(PyBytes_AS_STRING(path_obj), NULL, 0, mode, bgr, keep_depth,
                       ignore_orientation, reduce);
    Py_DECREF(path_obj);
    return r;
}

/* imdecode(bytes-like, mode, bgr, keep_depth, ignore_orientation=False, reduce=0) -> host
 * Image. */
static PyObject *py_imdecode(PyObject *m, PyObject *args)
{
    Py_buffer b;
    int mode, bgr, keep_depth, ignore_orientation = 0, reduce = 0;
    if (!PyArg_ParseTuple(args, "y*ipp|pi", &b, &mode, &bgr, &keep_depth, &ignore_orientation,
                          &reduce))
        return NULL;
    PyObject *r =
        load(NULL, b.buf, (size_t)b.len, mode, bgr, keep_depth, ignore_orientation, reduce);
    PyBuffer_Release(&b);
    return r;
}

int gpy_save_params(PyObject *t, gip_save_params *p)
{
    memset(p, 0, sizeof *p);
    int fmt, q, sub, prog, png, bgr;
    if (!PyArg_ParseTuple(t, "iiiiii", &fmt, &q, &sub, &prog, &png, &bgr))
        return -1;
    p->format = (gip_format)fmt;
    p->quality = q;
    p->subsampling = (gip_subsampling)sub;
    p->progressive = prog;
    p->png_compression = png;
    p->bgr = bgr;
    return 0;
}

/* imwrite(path, src, (format, quality, subsampling, progressive, png_compression, bgr)) */
static PyObject *py_imwrite(PyObject *m, PyObject *args)
{
    PyObject *path_obj, *src, *pt;
    if (!PyArg_ParseTuple(args, "O&OO!", PyUnicode_FSConverter, &path_obj, &src, &PyTuple_Type,
                          &pt))
        return NULL;
    gip_save_params p;
    View s;
    if (gpy_save_params(pt, &p) || gpy_resolve(NULL, src, 0, "img", &s)) {
        Py_DECREF(path_obj);
        return NULL;
    }
    gip_status st;
    char msg[1024];
    const char *path = PyBytes_AS_STRING(path_obj);
    GIP_PY_RUN(NULL, st, msg, gip_image_save(path, &s.img, &p));
    gpy_view_release(&s);
    Py_DECREF(path_obj);
    return gpy_none_or_raise(st, msg);
}

/* imencode(src, params tuple) -> bytes */
static PyObject *py_imencode(PyObject *m, PyObject *args)
{
    PyObject *src, *pt;
    if (!PyArg_ParseTuple(args, "OO!", &src, &PyTuple_Type, &pt))
        return NULL;
    gip_save_params p;
    View s;
    if (gpy_save_params(pt, &p) || gpy_resolve(NULL, src, 0, "img", &s))
        return NULL;
    gip_status st;
    char msg[1024];
    void *data = NULL;
    size_t size = 0;
    GIP_PY_RUN(NULL, st, msg, gip_image_encode(&s.img, &p, &data, &size));
    gpy_view_release(&s);
    if (st)
        return gpy_raise_status(st, msg);
    PyObject *r = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
    gip_free(data);
    return r;
}

PyMethodDef gpy_io_methods[] = {{"imread", py_imread, METH_VARARGS, NULL},
                                {"imdecode", py_imdecode, METH_VARARGS, NULL},
                                {"imwrite", py_imwrite, METH_VARARGS, NULL},
                                {"imencode", py_imencode, METH_VARARGS, NULL},
                                {NULL}};
