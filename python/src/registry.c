/* SPDX-License-Identifier: MIT */
/* The operation registry (gip/op.h) in Python: the descriptors as dicts (ops()), an operation's
 * arguments built from Python values (Args: int, float, bool, str, sequences and arrays, with the
 * registry's checks and messages; a value of the wrong Python type raises gip.InvalidType), its
 * output shape and halo, and one generic call that runs any registered operation (op_apply). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gip_py.h"

/* ---- descriptors --------------------------------------------------------------------------- */

static const char *type_name(gip_param_type t)
{
    switch (t) {
    case GIP_PARAM_INT:
        return "int";
    case GIP_PARAM_DOUBLE:
        return "double";
    case GIP_PARAM_BOOL:
        return "bool";
    case GIP_PARAM_CHOICE:
        return "choice";
    case GIP_PARAM_SIZE:
        return "size";
    case GIP_PARAM_LIST:
        return "list";
    case GIP_PARAM_STRING:
        return "string";
    case GIP_PARAM_MATRIX:
        return "matrix";
    }
    return "?";
}

static int has_range(gip_param_type t)
{
    return t == GIP_PARAM_INT || t == GIP_PARAM_DOUBLE || t == GIP_PARAM_SIZE ||
           t == GIP_PARAM_LIST;
}

/* Adds key: value to d, taking value's reference (NULL value: fails). */
static int put(PyObject *d, const char *key, PyObject *value)
{
    if (!value)
        return -1;
    int r = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return r;
}

static PyObject *str_or_none(const char *s)
{
    if (!s)
        Py_RETURN_NONE;
    return PyUnicode_FromString(s);
}

static const char *python_kind(const gip_param *p);

static PyObject *param_dict(const gip_param *p)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    char acc[2048];
    gip_param_accepts(p, acc, sizeof acc);
    PyObject *choices = Py_None;
    Py_INCREF(Py_None);
    if (p->type == GIP_PARAM_CHOICE && p->choices) {
        Py_DECREF(Py_None);
        if (!(choices = PyList_New(0)))
            goto out_fail;
        for (const gip_choice *c = p->choices; c->name; c++) {
            PyObject *t = Py_BuildValue("(si)", c->name, (int)c->value);
            if (!t || PyList_Append(choices, t) < 0) {
                Py_XDECREF(t);
                Py_DECREF(choices);
                goto out_fail;
            }
            Py_DECREF(t);
        }
    }
    int ranged = has_range(p->type);
    int counted = p->type == GIP_PARAM_LIST || p->type == GIP_PARAM_MATRIX;
    if (put(d, "name", PyUnicode_FromString(p->name)) ||
        put(d, "type", PyUnicode_FromString(type_name(p->type))) ||
        put(d, "positional", PyBool_FromLong(p->flags & GIP_PARAM_POSITIONAL)) ||
        put(d, "required", PyBool_FromLong(p->def == NULL)) ||
        put(d, "odd", PyBool_FromLong(p->flags & GIP_PARAM_ODD)) ||
        put(d, "min", ranged ? PyFloat_FromDouble(p->min) : (Py_INCREF(Py_None), Py_None)) ||
        put(d, "max", ranged ? PyFloat_FromDouble(p->max) : (Py_INCREF(Py_None), Py_None)) ||
        put(d, "count", counted ? PyLong_FromLong(p->count) : (Py_INCREF(Py_None), Py_None)) ||
        put(d, "choices", choices) || put(d, "default", str_or_none(p->def)) ||
        put(d, "doc", str_or_none(p->doc)) || put(d, "example", str_or_none(p->example)) ||
        put(d, "accepts", PyUnicode_FromString(acc)) ||
        put(d, "pytype", PyUnicode_FromString(python_kind(p))))
        goto out_fail_d;
    return d;
out_fail:
    Py_DECREF(Py_None);
out_fail_d:
    Py_DECREF(d);
    return NULL;
}

static PyObject *none(void)
{
    Py_INCREF(Py_None);
    return Py_None;
}

/* The dtype names (dtypes) or channel counts (!dtypes) whose bits `mask` holds, as a list. */
static PyObject *bit_list(uint32_t mask, int dtypes)
{
    PyObject *list = PyList_New(0);
    for (int k = dtypes ? 0 : 1; list && k < 32; k++) {
        if (!(mask & (1u << k)))
            continue;
        PyObject *v =
            dtypes ? PyUnicode_FromString(gip_dtype_name((gip_dtype)k)) : PyLong_FromLong(k);
        if (!v || PyList_Append(list, v) < 0)
            Py_CLEAR(list);
        Py_XDECREF(v);
    }
    return list;
}

/* One extra input as a dict: name, optional, same_size, same_type, dtypes and channels (None:
 * src's, or any), doc. */
static PyObject *input_dict(const gip_input *in)
{
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    const int same = (in->flags & GIP_INPUT_SAME_TYPE) != 0;
    if (put(d, "name", PyUnicode_FromString(in->name)) ||
        put(d, "optional", PyBool_FromLong(in->flags & GIP_INPUT_OPTIONAL)) ||
        put(d, "same_size", PyBool_FromLong(in->flags & GIP_INPUT_SAME_SIZE)) ||
        put(d, "same_type", PyBool_FromLong(same)) ||
        put(d, "dtypes", same || !in->dtypes ? none() : bit_list(in->dtypes, 1)) ||
        put(d, "channels", same || !in->channels ? none() : bit_list(in->channels, 0)) ||
        put(d, "doc", str_or_none(in->doc))) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *op_dict(const gip_op *op)
{
    PyObject *d = PyDict_New(), *params = PyList_New(0), *inputs = PyList_New(0),
             *dtypes = bit_list(op->dtypes, 1), *channels = bit_list(op->channels, 0);
    if (!d || !params || !inputs || !dtypes || !channels)
        goto out_fail;
    for (int32_t i = 0; i < op->nparams; i++) {
        PyObject *p = param_dict(&op->params[i]);
        if (!p || PyList_Append(params, p) < 0) {
            Py_XDECREF(p);
            goto out_fail;
        }
        Py_DECREF(p);
    }
    for (int32_t i = 0; i < op->ninputs; i++) {
        PyObject *p = input_dict(&op->inputs[i]);
        if (!p || PyList_Append(inputs, p) < 0) {
            Py_XDECREF(p);
            goto out_fail;
        }
        Py_DECREF(p);
    }
    if (put(d, "name", PyUnicode_FromString(op->name)) ||
        put(d, "family", str_or_none(op->family)) || put(d, "summary", str_or_none(op->summary)) ||
        put(d, "doc", str_or_none(op->doc)) || put(d, "cv_name", str_or_none(op->cv_name)) ||
        PyDict_SetItemString(d, "params", params) || PyDict_SetItemString(d, "inputs", inputs) ||
        PyDict_SetItemString(d, "dtypes", dtypes) ||
        PyDict_SetItemString(d, "channels", channels) ||
        put(d, "pointwise", PyBool_FromLong(op->flags & GIP_OP_POINTWISE)) ||
        put(d, "scalars", PyBool_FromLong(op->flags & GIP_OP_SCALARS)) ||
        put(d, "whole", PyBool_FromLong(op->flags & GIP_OP_WHOLE)) ||
        put(d, "banded", PyBool_FromLong(op->band_rows && op->run_band)) ||
        put(d, "in_place", PyBool_FromLong(op->flags & GIP_OP_IN_PLACE)) ||
        put(d, "involution", PyBool_FromLong(op->flags & GIP_OP_INVOLUTION)))
        goto out_fail;
    Py_DECREF(params);
    Py_DECREF(inputs);
    Py_DECREF(dtypes);
    Py_DECREF(channels);
    return d;
out_fail:
    Py_XDECREF(d);
    Py_XDECREF(params);
    Py_XDECREF(inputs);
    Py_XDECREF(dtypes);
    Py_XDECREF(channels);
    return NULL;
}

/* ops() -> [descriptor dict] in name order */
static PyObject *py_ops(PyObject *m, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    for (int32_t i = 0; list && i < gip_op_count(); i++) {
        PyObject *d = op_dict(gip_op_at(i));
        if (!d || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

/* ---- arguments from Python values -------------------------------------------------------- */

typedef struct {
    PyObject_HEAD gip_args *a;
} ArgsObject;

static PyTypeObject ArgsType;

static void Args_dealloc(ArgsObject *self)
{
    gip_args_free(self->a);
    PyObject_Free(self);
}

const gip_args *gpy_args_of(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &ArgsType)) {
        PyErr_SetString(PyExc_TypeError, "expected a _gip.Args");
        return NULL;
    }
    return ((ArgsObject *)o)->a;
}

/* The registry's message of the last failed gip_args_set_*() call, as the exception. */
static int raise_last(gip_status st)
{
    char msg[1024];
    gpy_copy_error(st, msg, sizeof msg);
    gpy_raise_status(st, msg);
    return -1;
}

static int is_bool(PyObject *v)
{
    const char *t = Py_TYPE(v)->tp_name;
    return PyBool_Check(v) || !strcmp(t, "numpy.bool_") || !strcmp(t, "numpy.bool");
}

static int is_int(PyObject *v)
{
    return !is_bool(v) && !PyFloat_Check(v) && (PyLong_Check(v) || PyIndex_Check(v));
}

static int is_real(PyObject *v)
{
    if (is_bool(v) || PyUnicode_Check(v) || PyBytes_Check(v) || PyComplex_Check(v))
        return 0;
    if (PyFloat_Check(v) || is_int(v))
        return 1;
    PyNumberMethods *nb = Py_TYPE(v)->tp_as_number;
    return nb && nb->nb_float && !PySequence_Check(v);
}

/* The value of an integer object, clamped to int64 (the registry's range check then speaks). */
static int int_value(PyObject *v, int64_t *out)
{
    PyObject *i = PyNumber_Index(v);
    if (!i)
        return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (x == -1 && PyErr_Occurred())
        return -1;
    *out = overflow > 0 ? INT64_MAX : overflow < 0 ? INT64_MIN : (int64_t)x;
    return 0;
}

/* What a parameter of this type takes in Python, for InvalidType messages. */
static const char *python_kind(const gip_param *p)
{
    switch (p->type) {
    case GIP_PARAM_INT:
        return "an integer";
    case GIP_PARAM_DOUBLE:
        return "a number";
    case GIP_PARAM_BOOL:
        return "a bool (or 0 or 1)";
    case GIP_PARAM_CHOICE:
        for (const gip_choice *c = p->choices; c && c->name; c++) {
            char *end;
            strtol(c->name, &end, 10);
            if (end != c->name && !*end)
                return "a str or an int"; /* some choices are numbers: 3, -1 */
        }
        return "a str";
    case GIP_PARAM_SIZE:
        return "an integer or a pair (width, height) of integers";
    case GIP_PARAM_LIST:
        return p->count == 1 ? "a number" : "a number or a sequence of numbers";
    case GIP_PARAM_STRING:
        return "a str";
    case GIP_PARAM_MATRIX:
        return "a 2-D array or a sequence of rows of numbers (or the text form)";
    }
    return "?";
}

static int wrong_type(const gip_op *op, const char *name, const char *kind, PyObject *v)
{
    PyObject *r = PyObject_Repr(v);
    const char *rs = r ? PyUnicode_AsUTF8(r) : NULL;
    if (!rs)
        PyErr_Clear();
    gpy_raise_type("%s: %s must be %s, got %s %.200s", op->name, name, kind, Py_TYPE(v)->tp_name,
                   rs ? rs : "?");
    Py_XDECREF(r);
    return -1;
}

/* Numbers of a LIST parameter: one number or a sequence of them. */
static int set_list(gip_args *a, const gip_param *p, PyObject *v)
{
    const gip_op *op = gip_args_op(a);
    if (is_real(v)) {
        double x = PyFloat_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        gip_status st = gip_args_set_list(a, p->name, &x, 1);
        return st ? raise_last(st) : 0;
    }
    if (PyUnicode_Check(v) || PyBytes_Check(v) || !PySequence_Check(v))
        return wrong_type(op, p->name, python_kind(p), v);
    PyObject *fast = PySequence_Fast(v, "a sequence");
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    double *x = PyMem_Calloc((size_t)n + 1, sizeof *x);
    if (!x) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    int r = 0;
    for (Py_ssize_t i = 0; i < n && !r; i++) {
        PyObject *e = PySequence_Fast_GET_ITEM(fast, i);
        if (!is_real(e))
            r = wrong_type(op, p->name, python_kind(p), v);
        else if ((x[i] = PyFloat_AsDouble(e)) == -1.0 && PyErr_Occurred())
            r = -1;
    }
    if (!r) {
        gip_status st = gip_args_set_list(a, p->name, x, n > INT32_MAX ? INT32_MAX : (int32_t)n);
        if (st)
            r = raise_last(st);
    }
    PyMem_Free(x);
    Py_DECREF(fast);
    return r;
}

/* A kernel: a float32/float64 buffer of 1 or 2 dimensions, or rows of numbers (a 1-D sequence
 * is one row), or the text form. */
static int set_matrix(gip_args *a, const gip_param *p, PyObject *v)
{
    const gip_op *op = gip_args_op(a);
    gip_status st;
    if (PyUnicode_Check(v)) {
        const char *t = PyUnicode_AsUTF8(v);
        if (!t)
            return -1;
        st = gip_args_set_text(a, p->name, t);
        return st ? raise_last(st) : 0;
    }
    Py_buffer b;
    if (PyObject_CheckBuffer(v) &&
        PyObject_GetBuffer(v, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
        const char *f = b.format ? b.format : "B";
        if (*f == '<' || *f == '=' || *f == '@')
            f++;
        int is_f = !strcmp(f, "f") && b.itemsize == 4, is_d = !strcmp(f, "d") && b.itemsize == 8;
        if ((is_f || is_d) && (b.ndim == 1 || b.ndim == 2)) {
            Py_ssize_t rows = b.ndim == 2 ? b.shape[0] : 1, cols = b.shape[b.ndim - 1];
            Py_ssize_t n = rows * cols;
            float *m = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *m);
            if (!m) {
                PyBuffer_Release(&b);
                PyErr_NoMemory();
                return -1;
            }
            for (Py_ssize_t i = 0; i < n; i++)
                m[i] = is_f ? ((const float *)b.buf)[i] : (float)((const double *)b.buf)[i];
            PyBuffer_Release(&b);
            st = gip_args_set_matrix(a, p->name, m, rows > INT32_MAX ? INT32_MAX : (int32_t)rows,
                                     cols > INT32_MAX ? INT32_MAX : (int32_t)cols);
            PyMem_Free(m);
            return st ? raise_last(st) : 0;
        }
        PyBuffer_Release(&b);
    } else {
        PyErr_Clear();
    }
    if (PyBytes_Check(v) || !PySequence_Check(v))
        return wrong_type(op, p->name, python_kind(p), v);
    PyObject *outer = PySequence_Fast(v, "a sequence");
    if (!outer)
        return -1;
    Py_ssize_t rows = PySequence_Fast_GET_SIZE(outer), cols = -1;
    int one_row = rows > 0 && is_real(PySequence_Fast_GET_ITEM(outer, 0));
    PyObject **row_seq = PyMem_Calloc((size_t)rows + 1, sizeof *row_seq);
    float *m = NULL;
    int r = 0;
    if (!row_seq) {
        PyErr_NoMemory();
        r = -1;
        goto out;
    }
    if (one_row) {
        cols = rows;
        rows = 1;
        Py_INCREF(outer);
        row_seq[0] = outer;
    } else {
        for (Py_ssize_t y = 0; y < rows && !r; y++) {
            PyObject *row = PySequence_Fast_GET_ITEM(outer, y);
            if (PyUnicode_Check(row) || PyBytes_Check(row) || !PySequence_Check(row)) {
                r = wrong_type(op, p->name, python_kind(p), v);
                break;
            }
            if (!(row_seq[y] = PySequence_Fast(row, "a sequence"))) {
                r = -1;
                break;
            }
            Py_ssize_t n = PySequence_Fast_GET_SIZE(row_seq[y]);
            if (cols >= 0 && n != cols) {
                char acc[400];
                gip_param_accepts(p, acc, sizeof acc);
                gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                              "%s: %s must be %s, got rows of %zd and %zd numbers", op->name,
                              p->name, acc, cols, n);
                r = -1;
            }
            cols = n;
        }
    }
    if (r)
        goto out;
    if (cols < 0)
        cols = 0;
    if (!(m = PyMem_Malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sizeof *m))) {
        PyErr_NoMemory();
        r = -1;
        goto out;
    }
    for (Py_ssize_t y = 0; y < rows && !r; y++)
        for (Py_ssize_t x = 0; x < cols && !r; x++) {
            PyObject *e = PySequence_Fast_GET_ITEM(row_seq[y], x);
            double d;
            if (!is_real(e))
                r = wrong_type(op, p->name, python_kind(p), v);
            else if ((d = PyFloat_AsDouble(e)) == -1.0 && PyErr_Occurred())
                r = -1;
            else
                m[y * cols + x] = (float)d;
        }
    if (!r) {
        st = gip_args_set_matrix(a, p->name, m, rows > INT32_MAX ? INT32_MAX : (int32_t)rows,
                                 cols > INT32_MAX ? INT32_MAX : (int32_t)cols);
        if (st)
            r = raise_last(st);
    }
out:
    if (row_seq)
        for (Py_ssize_t y = 0; y < rows; y++)
            Py_XDECREF(row_seq[y]);
    PyMem_Free(row_seq);
    PyMem_Free(m);
    Py_DECREF(outer);
    return r;
}

/* Sets one argument from a Python value (None leaves the default). */
static int set_arg(gip_args *a, const char *name, PyObject *v)
{
    const gip_op *op = gip_args_op(a);
    if (v == Py_None)
        return 0;
    const gip_param *p = gip_op_param(op, name);
    gip_status st;
    if (!p) {
        if (!(op->flags & GIP_OP_SCALARS)) {
            st = gip_args_set_text(a, name, ""); /* the registry's "has no parameter" message */
            return raise_last(st ? st : GIP_ERR_INVALID_ARGUMENT);
        }
        if (!is_real(v)) {
            gpy_raise_type("%s: scalar %s must be a number, got %s", op->name, name,
                           Py_TYPE(v)->tp_name);
            return -1;
        }
        double x = PyFloat_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        st = gip_args_set_scalar(a, name, x);
        return st ? raise_last(st) : 0;
    }
    int64_t i;
    switch (p->type) {
    case GIP_PARAM_INT:
        if (!is_int(v))
            return wrong_type(op, name, python_kind(p), v);
        if (int_value(v, &i))
            return -1;
        st = gip_args_set_int(a, name, i);
        break;
    case GIP_PARAM_BOOL:
        if (!is_bool(v) && !is_int(v))
            return wrong_type(op, name, python_kind(p), v);
        if (is_bool(v)) {
            int t = PyObject_IsTrue(v);
            if (t < 0)
                return -1;
            i = t;
        } else if (int_value(v, &i)) {
            return -1;
        }
        st = gip_args_set_int(a, name, i);
        break;
    case GIP_PARAM_DOUBLE: {
        if (!is_real(v))
            return wrong_type(op, name, python_kind(p), v);
        double x = PyFloat_AsDouble(v);
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        st = gip_args_set_double(a, name, x);
        break;
    }
    case GIP_PARAM_CHOICE: {
        char text[32];
        const char *t;
        if (PyUnicode_Check(v)) {
            if (!(t = PyUnicode_AsUTF8(v)))
                return -1;
        } else if (is_int(v)) {
            /* a choice named by a number ("3", "5") */
            if (int_value(v, &i))
                return -1;
            snprintf(text, sizeof text, "%lld", (long long)i);
            t = text;
        } else {
            return wrong_type(op, name, python_kind(p), v);
        }
        st = gip_args_set_string(a, name, t);
        break;
    }
    case GIP_PARAM_SIZE: {
        int64_t w, h;
        if (is_int(v)) {
            if (int_value(v, &w))
                return -1;
            h = w;
        } else if (!PyUnicode_Check(v) && !PyBytes_Check(v) && PySequence_Check(v)) {
            Py_ssize_t n = PySequence_Size(v);
            if (n < 0)
                return -1;
            if (n != 2) {
                gpy_raise_fmt(GIP_ERR_INVALID_ARGUMENT,
                              "%s: %s must be an integer or a pair (width, height), got %zd "
                              "numbers",
                              op->name, name, n);
                return -1;
            }
            PyObject *x = PySequence_GetItem(v, 0), *y = x ? PySequence_GetItem(v, 1) : NULL;
            int r = !x || !y ? -1 : 0;
            if (!r && (!is_int(x) || !is_int(y)))
                r = wrong_type(op, name, python_kind(p), v);
            if (!r && (int_value(x, &w) || int_value(y, &h)))
                r = -1;
            Py_XDECREF(x);
            Py_XDECREF(y);
            if (r)
                return -1;
        } else {
            return wrong_type(op, name, python_kind(p), v);
        }
        st = gip_args_set_size(a, name, w, h);
        break;
    }
    case GIP_PARAM_LIST:
        return set_list(a, p, v);
    case GIP_PARAM_STRING: {
        if (!PyUnicode_Check(v))
            return wrong_type(op, name, python_kind(p), v);
        const char *t = PyUnicode_AsUTF8(v);
        if (!t)
            return -1;
        st = gip_args_set_string(a, name, t);
        break;
    }
    case GIP_PARAM_MATRIX:
        return set_matrix(a, p, v);
    default:
        st = gip_args_set_text(a, name, "");
        break;
    }
    return st ? raise_last(st) : 0;
}

/* op_args(name, params dict | None) -> Args: the operation's arguments, each value checked as it
 * is set; what the values say together (and missing required ones) is checked when the
 * operation's parameters are built: by output_shape(), halo() and op_apply(). */
static PyObject *py_op_args(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *params = Py_None;
    if (!PyArg_ParseTuple(args, "s|O", &name, &params))
        return NULL;
    if (params != Py_None && !PyDict_Check(params)) {
        PyErr_SetString(PyExc_TypeError, "op_args: params must be a dict or None");
        return NULL;
    }
    gip_clear_error();
    const gip_op *op = gip_op_find(name);
    if (!op) {
        raise_last(GIP_ERR_INVALID_ARGUMENT);
        return NULL;
    }
    ArgsObject *self = PyObject_New(ArgsObject, &ArgsType);
    if (!self)
        return NULL;
    self->a = NULL;
    gip_status st = gip_args_create(op, &self->a);
    if (st) {
        raise_last(st);
        Py_DECREF(self);
        return NULL;
    }
    if (params != Py_None) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(params, &pos, &k, &v)) {
            const char *key = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
            if (!key) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "parameter names must be strings");
                Py_DECREF(self);
                return NULL;
            }
            if (set_arg(self->a, key, v) < 0) {
                Py_DECREF(self);
                return NULL;
            }
        }
    }
    return (PyObject *)self;
}

/* Args.output_shape(width, height, channels, dtype) -> (width, height, channels, dtype) */
static PyObject *Args_output_shape(ArgsObject *self, PyObject *args)
{
    long long w, h;
    int c, dt;
    if (!PyArg_ParseTuple(args, "LLii", &w, &h, &c, &dt))
        return NULL;
    gip_shape in = {w, h, c, (gip_dtype)dt}, out;
    gip_clear_error();
    gip_status st = gip_op_output_shape(self->a, &in, &out);
    if (st) {
        raise_last(st);
        return NULL;
    }
    return Py_BuildValue("(LLii)", (long long)out.width, (long long)out.height, (int)out.channels,
                         (int)out.dtype);
}

/* Args.halo() -> (halo_x, halo_y), -1 for an operation that reads the whole image */
static PyObject *Args_halo(ArgsObject *self, PyObject *unused)
{
    int64_t hx, hy;
    gip_clear_error();
    gip_status st = gip_op_halo(self->a, &hx, &hy);
    if (st) {
        raise_last(st);
        return NULL;
    }
    return Py_BuildValue("(LL)", (long long)hx, (long long)hy);
}

/* Args.band_rows(width, height, channels, dtype code, y0, y1) -> (s0, s1) */
static PyObject *Args_band_rows(ArgsObject *self, PyObject *args)
{
    long long w, h, y0, y1;
    int c, dt;
    if (!PyArg_ParseTuple(args, "LLiiLL", &w, &h, &c, &dt, &y0, &y1))
        return NULL;
    gip_shape in = {w, h, c, (gip_dtype)dt};
    int64_t s0, s1;
    gip_clear_error();
    gip_status st = gip_op_band_rows(self->a, &in, y0, y1, &s0, &s1);
    if (st) {
        raise_last(st);
        return NULL;
    }
    return Py_BuildValue("(LL)", (long long)s0, (long long)s1);
}

/* Args.load_reduce(path, ignore_orientation=False) -> 1, 2, 4 or 8 */
static PyObject *Args_load_reduce(ArgsObject *self, PyObject *args)
{
    PyObject *path;
    int ignore = 0;
    if (!PyArg_ParseTuple(args, "O&|p", PyUnicode_FSConverter, &path, &ignore))
        return NULL;
    gip_image_info info;
    int32_t n = 1;
    gip_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = gip_image_probe(PyBytes_AS_STRING(path), &info);
    Py_END_ALLOW_THREADS;
    Py_DECREF(path);
    if (!st)
        n = gip_op_load_reduce(self->a, &info, ignore);
    gip_clear_error(); /* an unreadable file is reported by the load */
    return PyLong_FromLong(n);
}

static PyObject *Args_name(ArgsObject *self, void *unused)
{
    return PyUnicode_FromString(gip_args_op(self->a)->name);
}

static PyMethodDef Args_methods[] = {
    {"output_shape", (PyCFunction)Args_output_shape, METH_VARARGS,
     "output_shape(width, height, channels, dtype code) -> (width, height, channels, dtype "
     "code) of the result for such an input (gip_op_output_shape)."},
    {"band_rows", (PyCFunction)Args_band_rows, METH_VARARGS,
     "band_rows(width, height, channels, dtype code, y0, y1) -> (s0, s1): the input rows that "
     "output rows [y0, y1) read (gip_op_band_rows)."},
    {"load_reduce", (PyCFunction)Args_load_reduce, METH_VARARGS,
     "load_reduce(path, ignore_orientation=False) -> 1, 2, 4 or 8: the reduce factor the "
     "operation, run first, takes for the JPEG file at path (gip_op_load_reduce)."},
    {"halo", (PyCFunction)Args_halo, METH_NOARGS,
     "halo() -> (x, y): pixels read around an output pixel; -1 for the whole image."},
    {NULL}};

static PyGetSetDef Args_getset[] = {
    {"name", (getter)Args_name, NULL, "The operation's name.", NULL}, {NULL}};

static PyTypeObject ArgsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gip._gip.Args",
    .tp_basicsize = sizeof(ArgsObject),
    .tp_dealloc = (destructor)Args_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The checked arguments of one registered operation (see op_args()).",
    .tp_methods = Args_methods,
    .tp_getset = Args_getset,
};

/* ---- running ------------------------------------------------------------------------------- */

/* op_apply(ctx, args, src, dst[, inputs]): runs the operation (gip_op_apply_inputs) from src
 * and the extra input images (a sequence in declaration order, None for an absent optional one)
 * into dst, host views on the CPU, device views on the context's GPU. */
static PyObject *py_op_apply(PyObject *m, PyObject *args)
{
    PyObject *co, *ao, *src, *dst, *more = NULL;
    if (!PyArg_ParseTuple(args, "O!OOO|O", &gpy_ContextType, &co, &ao, &src, &dst, &more))
        return NULL;
    const gip_args *a = gpy_args_of(ao);
    if (!a)
        return NULL;
    const gip_op *op = gip_args_op(a);
    enum { MAX_INPUTS = 8 };
    PyObject *seq = NULL;
    Py_ssize_t n = 0;
    if (more && more != Py_None) {
        if (!(seq = PySequence_Fast(more, "inputs must be a sequence of images")))
            return NULL;
        n = PySequence_Fast_GET_SIZE(seq);
        if (n != op->ninputs || n > MAX_INPUTS) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_TypeError, "%s reads %d extra input%s, %zd given", op->name,
                         (int)op->ninputs, op->ninputs == 1 ? "" : "s", n);
            return NULL;
        }
    }
    ContextObject *c = (ContextObject *)co;
    View s, d, in[MAX_INPUTS];
    const gip_image *use[MAX_INPUTS] = {NULL};
    Py_ssize_t resolved = 0;
    PyObject *result = NULL;
    if (gpy_resolve(c, src, 0, "src", &s)) {
        Py_XDECREF(seq);
        return NULL;
    }
    if (gpy_resolve(c, dst, 1, "dst", &d))
        goto out_src;
    for (; resolved < n; resolved++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, resolved);
        if (o == Py_None) {
            memset(&in[resolved], 0, sizeof in[resolved]);
            continue;
        }
        if (gpy_resolve(c, o, 0, op->inputs[resolved].name, &in[resolved]))
            goto out_inputs;
        use[resolved] = &in[resolved].img;
    }
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(c, st, msg, gip_op_apply_inputs(c->ctx, a, &s.img, use, (int32_t)n, &d.img));
    if (!st) {
        gpy_keep_alive(dst, src, &s);
        for (Py_ssize_t i = 0; i < n; i++)
            if (use[i])
                gpy_keep_alive(dst, PySequence_Fast_GET_ITEM(seq, i), &in[i]);
        Py_INCREF(Py_None);
        result = Py_None;
    } else {
        gpy_raise_status(st, msg);
    }
out_inputs:
    for (Py_ssize_t i = 0; i < resolved; i++)
        if (use[i])
            gpy_view_release(&in[i]);
    gpy_view_release(&d);
out_src:
    gpy_view_release(&s);
    Py_XDECREF(seq);
    return result;
}

/* op_apply_band(ctx, args, src, s0, (width, height, channels, dtype code), dst, y0): output rows
 * [y0, y0 + dst's height) from src, input rows [s0, s0 + src's height) (gip_op_apply_band). */
static PyObject *py_op_apply_band(PyObject *m, PyObject *args)
{
    PyObject *co, *ao, *src, *dst;
    long long s0, y0, w, h;
    int c, dt;
    if (!PyArg_ParseTuple(args, "O!OOL(LLii)OL", &gpy_ContextType, &co, &ao, &src, &s0, &w, &h, &c,
                          &dt, &dst, &y0))
        return NULL;
    const gip_args *a = gpy_args_of(ao);
    if (!a)
        return NULL;
    ContextObject *ctx = (ContextObject *)co;
    View s, d;
    if (gpy_resolve_pair(ctx, src, dst, &s, &d))
        return NULL;
    const gip_shape in = {w, h, c, (gip_dtype)dt};
    gip_status st;
    char msg[1024];
    GIP_PY_RUN(ctx, st, msg, gip_op_apply_band(ctx->ctx, a, &s.img, s0, &in, &d.img, y0));
    return gpy_finish_pair(st, msg, src, dst, &s, &d);
}

PyMethodDef gpy_registry_methods[] = {{"ops", py_ops, METH_NOARGS, NULL},
                                      {"op_apply_band", py_op_apply_band, METH_VARARGS, NULL},
                                      {"op_args", py_op_args, METH_VARARGS, NULL},
                                      {"op_apply", py_op_apply, METH_VARARGS, NULL},
                                      {NULL}};

int gpy_registry_init(PyObject *m)
{
    if (PyType_Ready(&ArgsType) < 0)
        return -1;
    Py_INCREF(&ArgsType);
    if (PyModule_AddObject(m, "Args", (PyObject *)&ArgsType) < 0) {
        Py_DECREF(&ArgsType);
        return -1;
    }
    return 0;
}
