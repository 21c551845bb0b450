/* SPDX-License-Identifier: MIT */
/* The arguments of one call of a registered operation: every declared parameter's value (its
 * default until set), set from text or typed values with the checks the declaration implies,
 * and the named scalars of expression operations. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel/expr.h"
#include "registry/registry.h"

#define LIST_MAX 16
#define SCALARS_MAX 64

typedef struct arg_value {
    int32_t set;
    int64_t i;    /* INT, BOOL, CHOICE */
    double d;     /* DOUBLE */
    int32_t w, h; /* SIZE */
    double list[LIST_MAX];
    int32_t n; /* LIST */
    char *s;   /* STRING */
    float *m;  /* MATRIX */
    int32_t rows, cols;
} arg_value;

struct gip_args {
    const gip_op *op;
    arg_value *v;
    int32_t nscalars;
    char *scalar_names[SCALARS_MAX];
    double scalar_values[SCALARS_MAX];
};

static gip_status bad(const gip_args *a, const gip_param *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static gip_status bad(const gip_args *a, const gip_param *p, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s %s", a->op->name, p->name, msg);
}

/* What a parameter accepts, for messages: "an odd integer in 1..1023". */
void gip__param_accepts(const gip_param *p, char *buf, size_t size)
{
    const char *odd = p->flags & GIP_PARAM_ODD ? "odd " : "";
    switch (p->type) {
    case GIP_PARAM_INT:
        snprintf(buf, size, "an %sinteger in %.0f..%.0f", odd, p->min, p->max);
        break;
    case GIP_PARAM_DOUBLE:
        snprintf(buf, size, "a number in %g..%g", p->min, p->max);
        break;
    case GIP_PARAM_BOOL:
        snprintf(buf, size, "0 or 1");
        break;
    case GIP_PARAM_CHOICE: {
        size_t len = (size_t)snprintf(buf, size, "one of ");
        for (const gip_choice *c = p->choices; c->name && len < size; c++)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", c == p->choices ? "" : ", ",
                                    c->name);
        break;
    }
    case GIP_PARAM_SIZE:
        snprintf(buf, size, "N or WxH, each an %sinteger in %.0f..%.0f", odd, p->min, p->max);
        break;
    case GIP_PARAM_LIST:
        if (p->count == 1)
            snprintf(buf, size, "a number in %g..%g", p->min, p->max);
        else
            snprintf(buf, size, "1 to %d comma-separated numbers in %g..%g", (int)p->count, p->min,
                     p->max);
        break;
    case GIP_PARAM_STRING:
        snprintf(buf, size, "text");
        break;
    case GIP_PARAM_MATRIX:
        snprintf(buf, size,
                 "rows separated by ';' of comma-separated decimal numbers or fractions (1/9), "
                 "all rows of one length, at most %dx%d",
                 (int)p->count, (int)p->count);
        break;
    }
}

void gip_param_accepts(const gip_param *p, char *buf, size_t size)
{
    if (!buf || !size)
        return;
    if (!p) {
        buf[0] = '\0';
        return;
    }
    gip__param_accepts(p, buf, size);
}

static int32_t index_of(const gip_op *op, const char *name)
{
    for (int32_t i = 0; i < op->nparams; i++)
        if (strcmp(op->params[i].name, name) == 0)
            return i;
    return -1;
}

static gip_status unknown(const gip_args *a, const char *name)
{
    char known[400];
    size_t len = 0;
    known[0] = '\0';
    for (int32_t i = 0; i < a->op->nparams && len < sizeof known; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                a->op->params[i].name);
    return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s has no parameter '%s'; it has: %s",
                      a->op->name, name ? name : "(null)", a->op->nparams ? known : "none");
}

/* ---- checks shared by text and typed setters --------------------------------------------- */

static gip_status check_int(const gip_args *a, const gip_param *p, int64_t v)
{
    char acc[200];
    if ((double)v < p->min || (double)v > p->max ||
        (p->flags & GIP_PARAM_ODD && v != 0 && v % 2 == 0) ||
        (p->flags & GIP_PARAM_ODD && v == 0 && p->min > 0)) {
        gip__param_accepts(p, acc, sizeof acc);
        return bad(a, p, "must be %s, got %lld", acc, (long long)v);
    }
    return GIP_OK;
}

static gip_status check_double(const gip_args *a, const gip_param *p, double v)
{
    char acc[200];
    if (!(v >= p->min && v <= p->max)) {
        gip__param_accepts(p, acc, sizeof acc);
        return bad(a, p, "must be %s, got %g", acc, v);
    }
    return GIP_OK;
}

static const gip_choice *choice_by_value(const gip_param *p, int64_t v)
{
    for (const gip_choice *c = p->choices; c->name; c++)
        if (c->value == v)
            return c;
    return NULL;
}

/* ---- setters ------------------------------------------------------------------------------- */

static gip_status set_matrix(gip_args *a, int32_t k, const float *m, int32_t rows, int32_t cols)
{
    const gip_param *p = &a->op->params[k];
    char acc[200];
    if (rows < 1 || cols < 1 || rows > p->count || cols > p->count || !m) {
        gip__param_accepts(p, acc, sizeof acc);
        return bad(a, p, "must be %s, got %dx%d", acc, (int)rows, (int)cols);
    }
    for (int64_t i = 0; i < (int64_t)rows * cols; i++)
        if (!isfinite(m[i]))
            return bad(a, p, "value %lld is not a finite number", (long long)i + 1);
    float *copy = malloc((size_t)rows * (size_t)cols * sizeof *copy);
    if (!copy)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", a->op->name);
    memcpy(copy, m, (size_t)rows * (size_t)cols * sizeof *copy);
    free(a->v[k].m);
    a->v[k].m = copy;
    a->v[k].rows = rows;
    a->v[k].cols = cols;
    a->v[k].set = 1;
    return GIP_OK;
}

/* Kernel rows 'a,b,c;d,e,f' (decimal numbers or fractions A/B). */
static gip_status parse_matrix(gip_args *a, int32_t k, const char *t)
{
    const gip_param *p = &a->op->params[k];
    char acc[200];
    gip__param_accepts(p, acc, sizeof acc);
    int32_t w = 1, h = 1;
    for (const char *q = t; *q && *q != ';'; q++)
        w += *q == ',';
    for (const char *q = t; *q; q++)
        h += *q == ';';
    if (w > p->count || h > p->count)
        return bad(a, p, "must be %s, got %dx%d", acc, (int)w, (int)h);
    float *m = malloc((size_t)w * (size_t)h * sizeof *m);
    if (!m)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", a->op->name);
    const char *q = t;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            char *end;
            while (*q == ' ' || *q == '\t')
                q++;
            double num = gip_strtod(q, &end), den = 1;
            if (end != q && *end == '/') {
                const char *d = end + 1;
                while (*d == ' ' || *d == '\t')
                    d++;
                den = gip_strtod(d, &end);
                if (end == d || den == 0)
                    end = (char *)q;
            }
            while (end != q && (*end == ' ' || *end == '\t'))
                end++;
            const char want = x == w - 1 ? (y == h - 1 ? '\0' : ';') : ',';
            const double v = num / den;
            if (end == q || *end != want || !(v >= -3e38 && v <= 3e38)) {
                free(m);
                return bad(a, p, "value %d of row %d is not a number: must be %s", (int)x + 1,
                           (int)y + 1, acc);
            }
            m[y * w + x] = (float)v;
            q = *end ? end + 1 : end;
        }
    gip_status st = set_matrix(a, k, m, h, w);
    free(m);
    return st;
}

static gip_status parse_number(const char *t, double *out)
{
    char *end;
    while (*t == ' ' || *t == '\t')
        t++;
    double v = gip_strtod(t, &end);
    if (end == t)
        return GIP_ERR_INVALID_ARGUMENT;
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end)
        return GIP_ERR_INVALID_ARGUMENT;
    *out = v;
    return GIP_OK;
}

static gip_status parse_integer(const char *t, int64_t *out)
{
    char *end;
    while (*t == ' ' || *t == '\t')
        t++;
    if (!*t || !(isdigit((unsigned char)*t) || *t == '-' || *t == '+'))
        return GIP_ERR_INVALID_ARGUMENT;
    long long v = strtoll(t, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == t || *end)
        return GIP_ERR_INVALID_ARGUMENT;
    *out = v;
    return GIP_OK;
}

/* "must be <what p accepts>, got 'TEXT'": the message is formatted on failure only. */
static gip_status bad_text(const gip_args *a, const gip_param *p, const char *t)
{
    char acc[200];
    gip__param_accepts(p, acc, sizeof acc);
    return bad(a, p, "must be %s, got '%s'", acc, t);
}

gip_status gip_args_set_text(gip_args *a, const char *name, const char *t)
{
    if (!a || !name || !t)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_text: %s is NULL",
                          !a      ? "args"
                          : !name ? "name"
                                  : "text");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    const gip_param *p = &a->op->params[k];
    switch (p->type) {
    case GIP_PARAM_INT: {
        int64_t v;
        if (parse_integer(t, &v))
            return bad_text(a, p, t);
        return gip_args_set_int(a, name, v);
    }
    case GIP_PARAM_DOUBLE: {
        double v;
        if (parse_number(t, &v))
            return bad_text(a, p, t);
        return gip_args_set_double(a, name, v);
    }
    case GIP_PARAM_BOOL:
        if (!strcmp(t, "1") || !strcmp(t, "true"))
            return gip_args_set_int(a, name, 1);
        if (!strcmp(t, "0") || !strcmp(t, "false"))
            return gip_args_set_int(a, name, 0);
        return bad_text(a, p, t);
    case GIP_PARAM_CHOICE:
        return gip_args_set_string(a, name, t);
    case GIP_PARAM_SIZE: {
        char *end;
        long long x = strtoll(t, &end, 10), y = x;
        bool ok = end != t && isdigit((unsigned char)t[0]);
        if (ok && (*end == 'x' || *end == 'X')) {
            char *b = end + 1;
            ok = isdigit((unsigned char)*b);
            y = strtoll(b, &end, 10);
        }
        if (!ok || *end)
            return bad_text(a, p, t);
        return gip_args_set_size(a, name, x, y);
    }
    case GIP_PARAM_LIST: {
        double v[LIST_MAX];
        int32_t n = 0;
        const char *s = t;
        for (;;) {
            char *end;
            while (*s == ' ' || *s == '\t')
                s++;
            double x = gip_strtod(s, &end);
            while (end != s && (*end == ' ' || *end == '\t'))
                end++;
            if (end == s || (*end && *end != ',') || n == p->count || n == LIST_MAX)
                return bad_text(a, p, t);
            v[n++] = x;
            if (!*end)
                break;
            s = end + 1;
        }
        return gip_args_set_list(a, name, v, n);
    }
    case GIP_PARAM_STRING:
        return gip_args_set_string(a, name, t);
    case GIP_PARAM_MATRIX:
        return parse_matrix(a, k, t);
    }
    return bad(a, p, "has an unknown type");
}

gip_status gip_args_set_int(gip_args *a, const char *name, int64_t v)
{
    if (!a || !name)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_int: %s is NULL",
                          !a ? "args" : "name");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    const gip_param *p = &a->op->params[k];
    gip_status st;
    switch (p->type) {
    case GIP_PARAM_INT:
        if ((st = check_int(a, p, v)))
            return st;
        break;
    case GIP_PARAM_BOOL:
        if (v != 0 && v != 1)
            return bad(a, p, "must be 0 or 1, got %lld", (long long)v);
        break;
    case GIP_PARAM_CHOICE:
        if (!choice_by_value(p, v)) {
            char acc[200];
            gip__param_accepts(p, acc, sizeof acc);
            return bad(a, p, "must be %s, got the value %lld", acc, (long long)v);
        }
        break;
    case GIP_PARAM_DOUBLE:
        return gip_args_set_double(a, name, (double)v);
    case GIP_PARAM_LIST: {
        double d = (double)v;
        return gip_args_set_list(a, name, &d, 1);
    }
    case GIP_PARAM_SIZE:
        return gip_args_set_size(a, name, v, v);
    default:
        return bad(a, p, "is not an integer parameter");
    }
    a->v[k].i = v;
    a->v[k].set = 1;
    return GIP_OK;
}

gip_status gip_args_set_double(gip_args *a, const char *name, double v)
{
    if (!a || !name)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_double: %s is NULL",
                          !a ? "args" : "name");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    const gip_param *p = &a->op->params[k];
    if (p->type == GIP_PARAM_LIST)
        return gip_args_set_list(a, name, &v, 1);
    if (p->type != GIP_PARAM_DOUBLE)
        return bad(a, p, "is not a number parameter");
    gip_status st = check_double(a, p, v);
    if (st)
        return st;
    a->v[k].d = v;
    a->v[k].set = 1;
    return GIP_OK;
}

gip_status gip_args_set_size(gip_args *a, const char *name, int64_t w, int64_t h)
{
    if (!a || !name)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_size: %s is NULL",
                          !a ? "args" : "name");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    const gip_param *p = &a->op->params[k];
    if (p->type != GIP_PARAM_SIZE)
        return bad(a, p, "is not a size parameter");
    gip_status st;
    if ((st = check_int(a, p, w)) || (st = check_int(a, p, h)))
        return st;
    a->v[k].w = (int32_t)w;
    a->v[k].h = (int32_t)h;
    a->v[k].set = 1;
    return GIP_OK;
}

gip_status gip_args_set_list(gip_args *a, const char *name, const double *v, int32_t n)
{
    if (!a || !name || !v)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_list: %s is NULL",
                          !a      ? "args"
                          : !name ? "name"
                                  : "values");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    const gip_param *p = &a->op->params[k];
    if (p->type != GIP_PARAM_LIST)
        return bad(a, p, "is not a list parameter");
    char acc[200];
    if (n < 1 || n > p->count || n > LIST_MAX) {
        gip__param_accepts(p, acc, sizeof acc);
        return bad(a, p, "must be %s, got %d numbers", acc, (int)n);
    }
    for (int32_t i = 0; i < n; i++)
        if (!(v[i] >= p->min && v[i] <= p->max)) {
            gip__param_accepts(p, acc, sizeof acc);
            return bad(a, p, "must be %s, got %g", acc, v[i]);
        }
    memcpy(a->v[k].list, v, (size_t)n * sizeof *v);
    a->v[k].n = n;
    a->v[k].set = 1;
    return GIP_OK;
}

gip_status gip_args_set_string(gip_args *a, const char *name, const char *s)
{
    if (!a || !name || !s)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_string: %s is NULL",
                          !a      ? "args"
                          : !name ? "name"
                                  : "value");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    const gip_param *p = &a->op->params[k];
    if (p->type == GIP_PARAM_CHOICE) {
        for (const gip_choice *c = p->choices; c->name; c++)
            if (strcmp(c->name, s) == 0) {
                a->v[k].i = c->value;
                a->v[k].set = 1;
                return GIP_OK;
            }
        char acc[200];
        gip__param_accepts(p, acc, sizeof acc);
        return bad(a, p, "must be %s, got '%s'", acc, s);
    }
    if (p->type != GIP_PARAM_STRING)
        return gip_args_set_text(a, name, s);
    char *copy = strdup(s);
    if (!copy)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", a->op->name);
    free(a->v[k].s);
    a->v[k].s = copy;
    a->v[k].set = 1;
    return GIP_OK;
}

gip_status gip_args_set_matrix(gip_args *a, const char *name, const float *m, int32_t rows,
                               int32_t cols)
{
    if (!a || !name)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_matrix: %s is NULL",
                          !a ? "args" : "name");
    int32_t k = index_of(a->op, name);
    if (k < 0)
        return unknown(a, name);
    if (a->op->params[k].type != GIP_PARAM_MATRIX)
        return bad(a, &a->op->params[k], "is not a matrix parameter");
    return set_matrix(a, k, m, rows, cols);
}

gip_status gip_args_set_scalar(gip_args *a, const char *name, double v)
{
    if (!a || !name)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_set_scalar: %s is NULL",
                          !a ? "args" : "name");
    if (!(a->op->flags & GIP_OP_SCALARS))
        return unknown(a, name);
    bool ident = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (const char *q = name; *q && ident; q++)
        ident = isalnum((unsigned char)*q) || *q == '_';
    if (!ident || strlen(name) > 63)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: scalar name '%s' must be an identifier of at most 63 characters",
                          a->op->name, name);
    if (!isfinite(v) || fabs(v) > 3.4e38)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: scalar '%s' must be a finite number within float range", a->op->name,
                          name);
    for (int32_t i = 0; i < a->nscalars; i++)
        if (strcmp(a->scalar_names[i], name) == 0) {
            a->scalar_values[i] = v;
            return GIP_OK;
        }
    if (a->nscalars == GIP_EXPR_MAX_SCALARS || a->nscalars == SCALARS_MAX)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: at most %d scalars", a->op->name,
                          GIP_EXPR_MAX_SCALARS);
    char *copy = strdup(name);
    if (!copy)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", a->op->name);
    a->scalar_names[a->nscalars] = copy;
    a->scalar_values[a->nscalars++] = v;
    return GIP_OK;
}

/* ---- life -------------------------------------------------------------------------------- */

gip_status gip_args_create(const gip_op *op, gip_args **out)
{
    if (!op || !out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_args_create: %s is NULL",
                          !op ? "op" : "out");
    *out = NULL;
    gip_args *a = calloc(1, sizeof *a);
    if (!a || !(a->v = calloc((size_t)(op->nparams ? op->nparams : 1), sizeof *a->v))) {
        free(a);
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op->name);
    }
    a->op = op;
    for (int32_t k = 0; k < op->nparams; k++) {
        const gip_param *p = &op->params[k];
        if (!p->def)
            continue;
        gip_status st = gip_args_set_text(a, p->name, p->def);
        if (st) {
            gip_args_free(a);
            return gip__error(NULL, GIP_ERR_INTERNAL, "%s: the default of %s is not valid: %s",
                              op->name, p->name, gip_last_error());
        }
        a->v[k].set = 0;
    }
    *out = a;
    return GIP_OK;
}

void gip_args_free(gip_args *a)
{
    if (!a)
        return;
    for (int32_t k = 0; k < a->op->nparams; k++) {
        free(a->v[k].s);
        free(a->v[k].m);
    }
    for (int32_t i = 0; i < a->nscalars; i++)
        free(a->scalar_names[i]);
    free(a->v);
    free(a);
}

const gip_op *gip_args_op(const gip_args *a)
{
    return a ? a->op : NULL;
}

int32_t gip_args_is_set(const gip_args *a, const char *name)
{
    int32_t k = a && name ? index_of(a->op, name) : -1;
    return k >= 0 && a->v[k].set;
}

gip_status gip__args_check_required(const gip_args *a)
{
    for (int32_t k = 0; k < a->op->nparams; k++) {
        const gip_param *p = &a->op->params[k];
        if (!p->def && !a->v[k].set) {
            char acc[200];
            gip__param_accepts(p, acc, sizeof acc);
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is required (%s)",
                              a->op->name, p->name, acc);
        }
    }
    return GIP_OK;
}

/* ---- getters (names are the operation's own: a wrong one is a bug, reported loudly) ------ */

static const arg_value *get(const gip_args *a, const char *name)
{
    int32_t k = index_of(a->op, name);
    if (k < 0) {
        fprintf(stderr, "gip: internal error: %s has no parameter %s\n", a->op->name, name);
        abort();
    }
    return &a->v[k];
}

int64_t gip_args_int(const gip_args *a, const char *name)
{
    return get(a, name)->i;
}

double gip_args_double(const gip_args *a, const char *name)
{
    const arg_value *v = get(a, name);
    return a->op->params[index_of(a->op, name)].type == GIP_PARAM_LIST ? v->list[0] : v->d;
}

void gip_args_size(const gip_args *a, const char *name, int32_t *w, int32_t *h)
{
    const arg_value *v = get(a, name);
    *w = v->w;
    *h = v->h;
}

int32_t gip_args_list(const gip_args *a, const char *name, double *values, int32_t max)
{
    const arg_value *v = get(a, name);
    for (int32_t i = 0; i < v->n && i < max; i++)
        values[i] = v->list[i];
    return v->n;
}

const char *gip_args_string(const gip_args *a, const char *name)
{
    const arg_value *v = get(a, name);
    return v->s ? v->s : "";
}

const float *gip_args_matrix(const gip_args *a, const char *name, int32_t *rows, int32_t *cols)
{
    const arg_value *v = get(a, name);
    *rows = v->rows;
    *cols = v->cols;
    return v->m;
}

int32_t gip_args_scalar_count(const gip_args *a)
{
    return a ? a->nscalars : 0;
}

const char *gip_args_scalar(const gip_args *a, int32_t i, double *value)
{
    if (!a || i < 0 || i >= a->nscalars)
        return NULL;
    if (value)
        *value = a->scalar_values[i];
    return a->scalar_names[i];
}
