/* SPDX-License-Identifier: MIT */
/* The pipeline text parser: "gaussian 15 | sobel dx=1 | invert" to steps, with errors that name
 * the 1-based character position and what was expected there. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel/expr.h"
#include "pipeline_steps.h"
#include "registry/registry.h"

#define MAX_ARGS 32

typedef struct arg {
    char *key; /* NULL for a positional value */
    char *val;
    int32_t kpos, vpos; /* 1-based positions of the key and of the value */
} arg;

typedef struct parser {
    const char *text;
    size_t i;
    gip_parse_error *err;
    bool reported; /* fail() ran: the message has a position */
} parser;

static gip_status fail(parser *ps, int32_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static gip_status fail(parser *ps, int32_t pos, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ps->reported = true;
    if (ps->err) {
        ps->err->position = pos;
        snprintf(ps->err->message, sizeof ps->err->message, "%s", msg);
    }
    return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "pipeline: at %d: %s", (int)pos, msg);
}

static gip_status oom(parser *ps)
{
    if (ps->err) {
        ps->err->position = 0;
        snprintf(ps->err->message, sizeof ps->err->message, "out of memory");
    }
    return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "pipeline: out of memory while parsing");
}

static void skip_space(parser *ps)
{
    while (ps->text[ps->i] && isspace((unsigned char)ps->text[ps->i]))
        ps->i++;
}

/* Reads one word: characters up to white space or '|' outside quotes; quoted parts ('...' or
 * "...") are taken literally, quotes removed. An unquoted "ident=" prefix becomes the key. */
static gip_status read_arg(parser *ps, arg *a)
{
    const char *t = ps->text;
    size_t start = ps->i;
    memset(a, 0, sizeof *a);
    a->kpos = a->vpos = (int32_t)start + 1;
    /* key= prefix */
    size_t j = start;
    if (isalpha((unsigned char)t[j]) || t[j] == '_') {
        while (isalnum((unsigned char)t[j]) || t[j] == '_')
            j++;
        if (t[j] == '=') {
            if (!(a->key = strndup(t + start, j - start)))
                return oom(ps);
            ps->i = j + 1;
            a->vpos = (int32_t)ps->i + 1;
        }
    }
    if (t[ps->i] == '\'' || t[ps->i] == '"')
        a->vpos++; /* a quoted value: positions inside it count from its first character */
    size_t cap = strlen(t + ps->i) + 1, len = 0;
    char *v = malloc(cap);
    if (!v)
        return oom(ps);
    while (t[ps->i] && !isspace((unsigned char)t[ps->i]) && t[ps->i] != '|') {
        char q = t[ps->i];
        if (q == '\'' || q == '"') {
            size_t open = ps->i++;
            while (t[ps->i] && t[ps->i] != q)
                v[len++] = t[ps->i++];
            if (!t[ps->i]) {
                free(v);
                free(a->key);
                a->key = NULL;
                return fail(ps, (int32_t)open + 1,
                            "unterminated quote: expected a closing %c before the end", q);
            }
            ps->i++;
        } else {
            v[len++] = t[ps->i++];
        }
    }
    v[len] = '\0';
    a->val = v;
    if (a->key && len == 0) {
        gip_status st = fail(ps, a->vpos, "expected a value after '%s='", a->key);
        free(a->key);
        free(a->val);
        memset(a, 0, sizeof *a);
        return st;
    }
    return GIP_OK;
}

/* ---- steps: every argument goes through the operation's declared parameters ---------------- */

/* A refusal of an argument's value by the registry, reported at the value's position. */
static gip_status at(parser *ps, gip_status st, int32_t pos)
{
    if (st == GIP_OK || st == GIP_ERR_OUT_OF_MEMORY)
        return st == GIP_ERR_OUT_OF_MEMORY ? oom(ps) : st;
    char msg[256];
    snprintf(msg, sizeof msg, "%s", gip_last_error());
    return fail(ps, pos, "%s", msg);
}

/* The i-th positional parameter of op, or NULL. */
static const gip_param *positional(const gip_op *op, int i)
{
    for (int32_t k = 0; k < op->nparams; k++)
        if (op->params[k].flags & GIP_PARAM_POSITIONAL && i-- == 0)
            return &op->params[k];
    return NULL;
}

static void list_params(const gip_op *op, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int32_t k = 0; k < op->nparams && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? ", " : "", op->params[k].name);
    if (!op->nparams)
        snprintf(buf, size, "none");
}

/* Builds one step of `op` from its arguments and appends it to `p`. */
static gip_status build_step(parser *ps, gip_pipeline *p, const gip_op *op, int32_t name_pos,
                             arg *args, int nargs)
{
    gip_args *ga = NULL;
    gip_status st = gip_args_create(op, &ga);
    if (st)
        return at(ps, st, name_pos);
    char names[400];
    int npos = 0;
    const arg *given[64] = {0};
    for (int i = 0; i < nargs && !st; i++) {
        arg *a = &args[i];
        const gip_param *prm;
        if (!a->key) {
            if (!(prm = positional(op, npos++))) {
                list_params(op, names, sizeof names);
                if (npos == 1)
                    st = fail(ps, a->vpos,
                              "unexpected value '%s': %s takes only KEY=VALUE arguments (%s)",
                              a->val, op->name, names);
                else
                    st = fail(ps, a->vpos,
                              "unexpected value '%s': %s takes at most %d positional value%s (%s)",
                              a->val, op->name, npos - 1, npos == 2 ? "" : "s", names);
                break;
            }
        } else if (!(prm = gip_op_param(op, a->key))) {
            if (op->flags & GIP_OP_SCALARS) {
                char *end;
                double v = gip_strtod(a->val, &end);
                if (end == a->val || *end)
                    st = fail(ps, a->vpos, "expected scalar '%s' as a decimal number, got '%s'",
                              a->key, a->val);
                else
                    st = at(ps, gip_args_set_scalar(ga, a->key, v), a->kpos);
                continue;
            }
            list_params(op, names, sizeof names);
            st = fail(ps, a->kpos, "unknown argument '%s' of %s; expected one of: %s", a->key,
                      op->name, names);
            break;
        }
        int32_t k = (int32_t)(prm - op->params);
        if (k < 64 && given[k]) {
            st = fail(ps, a->key ? a->kpos : a->vpos, "%s given twice to %s", prm->name, op->name);
            break;
        }
        if (k < 64)
            given[k] = a;
        st = at(ps, gip_args_set_text(ga, prm->name, a->val), a->vpos);
    }
    if (!st)
        for (int32_t k = 0; k < op->nparams && !st; k++)
            if (op->params[k].flags & GIP_PARAM_REQUIRED &&
                !gip_args_is_set(ga, op->params[k].name)) {
                char acc[200];
                const gip_param *q = &op->params[k];
                gip__param_accepts(q, acc, sizeof acc);
                if (q->example)
                    st = fail(ps, name_pos, "expected %s after %s (%s), e.g. %s '%s'", q->name,
                              op->name, acc, op->name, q->example);
                else
                    st = fail(ps, name_pos, "expected %s after %s (%s)", q->name, op->name, acc);
            }
    if (!st) {
        /* A refusal of the arguments together is reported at the argument named in it, else at
         * the step. */
        st = gip_pipeline_add_op(p, ga);
        if (st && st != GIP_ERR_OUT_OF_MEMORY) {
            int32_t pos = name_pos;
            for (int32_t k = 0; k < op->nparams && k < 64; k++)
                if (given[k] && strstr(gip_last_error(), op->params[k].name)) {
                    pos = given[k]->vpos;
                    break;
                }
            st = at(ps, st, pos);
        }
    }
    gip_args_free(ga);
    return st;
}

static void free_args(arg *args, int n)
{
    for (int i = 0; i < n; i++) {
        free(args[i].key);
        free(args[i].val);
    }
}

gip_status gip_pipeline_parse(gip_pipeline *p, const char *text, gip_parse_error *err)
{
    if (err) {
        err->position = 0;
        err->message[0] = '\0';
    }
    if (!p || !text)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_pipeline_parse: %s is NULL",
                          !p ? "p" : "text");
    parser ps = {text, 0, err, false};
    gip_pipeline *tmp = gip__pipeline_new_bare();
    if (!tmp)
        return oom(&ps);
    gip_status st = GIP_OK;
    for (;;) {
        skip_space(&ps);
        int32_t name_pos = (int32_t)ps.i + 1;
        size_t b = ps.i;
        if (isalpha((unsigned char)text[ps.i]))
            while (isalnum((unsigned char)text[ps.i]) || text[ps.i] == '_')
                ps.i++;
        if (ps.i == b) {
            if (!text[ps.i] && tmp->n == 0 && !strchr(text, '|'))
                st = fail(&ps, name_pos, "expected a step name; the pipeline is empty");
            else if (!text[ps.i])
                st = fail(&ps, name_pos, "expected a step name after '|'");
            else
                st = fail(&ps, name_pos, "expected a step name, got '%c'", text[ps.i]);
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(ps.i - b < 63 ? ps.i - b : 63), text + b);
        const gip_op *op = gip_op_find(name);
        if (!op) {
            char known[512];
            size_t len = 0;
            known[0] = '\0';
            for (int32_t k = 0; k < gip_op_count() && len < sizeof known; k++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", k ? " " : "",
                                        gip_op_at(k)->name);
            st = fail(&ps, name_pos, "unknown step '%.*s'; expected one of: %s", (int)(ps.i - b),
                      text + b, known);
            break;
        }
        if (text[ps.i] && !isspace((unsigned char)text[ps.i]) && text[ps.i] != '|') {
            st = fail(&ps, (int32_t)ps.i + 1, "expected a space or '|' after '%s', got '%c'",
                      op->name, text[ps.i]);
            break;
        }
        arg args[MAX_ARGS];
        int nargs = 0;
        for (;;) {
            skip_space(&ps);
            if (!text[ps.i] || text[ps.i] == '|')
                break;
            if (nargs == MAX_ARGS) {
                st = fail(&ps, (int32_t)ps.i + 1, "expected at most %d arguments", MAX_ARGS);
                break;
            }
            if ((st = read_arg(&ps, &args[nargs])))
                break;
            nargs++;
        }
        if (!st)
            st = build_step(&ps, tmp, op, name_pos, args, nargs);
        free_args(args, nargs);
        if (st)
            break;
        if (!text[ps.i])
            break;
        ps.i++; /* the '|' */
    }
    if (!st)
        st = gip__pipeline_take_steps(p, tmp);
    gip_pipeline_free(tmp);
    return st;
}
