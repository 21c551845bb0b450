/* SPDX-License-Identifier: MIT */
/* The expression parser: a recursive-descent parser building the syntax tree of a map or stencil
 * expression, checking names, arities and offsets, and folding constant sub-expressions. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"

#define MAX_DEPTH 200

typedef enum tok_kind { T_END, T_NUM, T_IDENT, T_PUNCT } tok_kind;

typedef struct token {
    tok_kind kind;
    int pos; /* byte offset of the first character */
    int len;
    char punct[3];
    float num;
} token;

typedef struct parser {
    gip_context *ctx;
    const gip__expr_env *env;
    const char *text;
    gip__expr *e;
    token tok;
    int next; /* byte offset after tok */
    int depth;
    gip_status st;
} parser;

static const struct {
    const char *name;
    int op;
    int arity;
} functions[] = {
    {"abs", GIP__OP_ABS, 1},     {"sqrt", GIP__OP_SQRT, 1},   {"exp", GIP__OP_EXP, 1},
    {"log", GIP__OP_LOG, 1},     {"floor", GIP__OP_FLOOR, 1}, {"ceil", GIP__OP_CEIL, 1},
    {"round", GIP__OP_ROUND, 1}, {"sin", GIP__OP_SIN, 1},     {"cos", GIP__OP_COS, 1},
    {"min", GIP__OP_MIN, 2},     {"max", GIP__OP_MAX, 2},     {"pow", GIP__OP_POW, 2},
    {"clamp", GIP__OP_CLAMP, 3},
};

static const struct {
    const char *name;
    int var;
} variables[] = {
    {"x", GIP__V_X},           {"y", GIP__V_Y}, {"width", GIP__V_WIDTH},
    {"height", GIP__V_HEIGHT}, {"c", GIP__V_C}, {"channels", GIP__V_CHANNELS},
};

int gip__expr_arity(int op)
{
    if (op <= GIP__OP_COS)
        return 1;
    if (op <= GIP__OP_POW)
        return 2;
    return 3;
}

/* Raises a syntax error at the current token, once. */
static int fail(parser *p, int pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(parser *p, int pos, const char *fmt, ...)
{
    if (p->st)
        return -1;
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    p->st = gip__error(p->ctx, GIP_ERR_INVALID_ARGUMENT, "%s: column %d: %s\n  %s\n  %*s^",
                       p->env->op, pos + 1, what, p->text, pos, "");
    return -1;
}

static void describe_tok(const parser *p, char *buf, size_t size)
{
    if (p->tok.kind == T_END)
        snprintf(buf, size, "the end of the expression");
    else
        snprintf(buf, size, "'%.*s'", p->tok.len > 40 ? 40 : p->tok.len, p->text + p->tok.pos);
}

static int expected(parser *p, const char *what)
{
    char found[64];
    describe_tok(p, found, sizeof found);
    return fail(p, p->tok.pos, "expected %s, found %s", what, found);
}

static void lex(parser *p)
{
    const char *s = p->text;
    int i = p->next;
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
        i++;
    token *t = &p->tok;
    memset(t, 0, sizeof *t);
    t->pos = i;
    if (!s[i]) {
        t->kind = T_END;
        p->next = i;
        return;
    }
    if (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
        char *end = NULL;
        t->kind = T_NUM;
        double v = gip_strtod(s + i, &end);
        int j = (int)(end - s);
        if (s[j] == 'f' || s[j] == 'F')
            j++;
        t->len = j - i;
        p->next = j;
        /* A number runs into a name ("0x1p3", "2pi", "1e") or a second point ("1.2.3"): not one
         * of the grammar's numbers; strtod would have taken hex floats. */
        if (end == s + i || isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '.') {
            int k = j;
            while (isalnum((unsigned char)s[k]) || s[k] == '_' || s[k] == '.')
                k++;
            fail(p, i,
                 "'%.*s' is not a number: numbers are decimal, digits [. digits] [e[+|-]digits] "
                 "[f] (no hex floats, inf or nan)",
                 k - i > 40 ? 40 : k - i, s + i);
            return;
        }
        t->num = (float)v;
        if (!isfinite(t->num)) {
            fail(p, i, "'%.*s' is outside the float range (at most about 3.4e38)",
                 t->len > 40 ? 40 : t->len, s + i);
            return;
        }
        return;
    }
    if (isalpha((unsigned char)s[i]) || s[i] == '_') {
        int j = i;
        while (isalnum((unsigned char)s[j]) || s[j] == '_')
            j++;
        t->kind = T_IDENT;
        t->len = j - i;
        p->next = j;
        return;
    }
    static const char *const two[] = {"&&", "||", "==", "!=", "<=", ">="};
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
        if (s[i] == two[k][0] && s[i + 1] == two[k][1]) {
            t->kind = T_PUNCT;
            memcpy(t->punct, two[k], 2);
            t->len = 2;
            p->next = i + 2;
            return;
        }
    t->kind = T_PUNCT;
    t->punct[0] = s[i];
    t->len = 1;
    p->next = i + 1;
    if (!strchr("+-*/%<>!?:(),=", s[i]))
        fail(p, i, "unexpected character '%c'", isprint((unsigned char)s[i]) ? s[i] : '?');
}

static bool is_punct(const parser *p, const char *s)
{
    return p->tok.kind == T_PUNCT && strcmp(p->tok.punct, s) == 0;
}

static bool ident_is(const parser *p, const token *t, const char *s)
{
    return t->kind == T_IDENT && (int)strlen(s) == t->len &&
           strncmp(p->text + t->pos, s, t->len) == 0;
}

static int new_node(parser *p, int kind, int pos)
{
    if (p->st)
        return -1;
    if (p->e->n >= GIP__EXPR_MAX_NODES)
        return fail(p, pos, "the expression is too long (more than %d operations)",
                    GIP__EXPR_MAX_NODES);
    int id = p->e->n++;
    gip__expr_node *n = &p->e->node[id];
    memset(n, 0, sizeof *n);
    n->kind = (int8_t)kind;
    n->a = n->b = n->c = -1;
    return id;
}

static int num_node(parser *p, float v, int pos)
{
    int id = new_node(p, GIP__N_NUM, pos);
    if (id >= 0)
        p->e->node[id].num = v;
    return id;
}

/* An operator node; folded into a constant when every operand is one. */
static int op_node(parser *p, int op, int a, int b, int c, int pos)
{
    if (p->st || a < 0 || (b < 0 && gip__expr_arity(op) >= 2) ||
        (c < 0 && gip__expr_arity(op) >= 3))
        return -1;
    gip__expr_node *na = &p->e->node[a], *nb = b >= 0 ? &p->e->node[b] : NULL,
                   *nc = c >= 0 ? &p->e->node[c] : NULL;
    if (na->kind == GIP__N_NUM && (!nb || nb->kind == GIP__N_NUM) &&
        (!nc || nc->kind == GIP__N_NUM)) {
        float v = gip__expr_apply(op, na->num, nb ? nb->num : 0.0f, nc ? nc->num : 0.0f);
        /* Reuse the first operand's node: the folded-away nodes are simply unreferenced. */
        na->num = v;
        return a;
    }
    int id = new_node(p, GIP__N_OP, pos);
    if (id < 0)
        return -1;
    gip__expr_node *n = &p->e->node[id];
    n->op = (int8_t)op;
    n->a = a;
    n->b = b;
    n->c = c;
    return id;
}

static int parse_expr(parser *p);

/* A constant integer offset of in(dx, dy): optional sign, digits. */
static int parse_offset(parser *p, int *out)
{
    int sign = 1, pos = p->tok.pos;
    if (is_punct(p, "-") || is_punct(p, "+")) {
        sign = is_punct(p, "-") ? -1 : 1;
        lex(p);
    }
    if (p->tok.kind != T_NUM || p->tok.num > 1000.0f)
        return expected(p, "an integer constant offset");
    for (int i = 0; i < p->tok.len; i++)
        if (!isdigit((unsigned char)p->text[p->tok.pos + i]))
            return expected(p, "an integer constant offset");
    int v = sign * (int)p->tok.num;
    if (v < -p->env->radius || v > p->env->radius)
        return fail(p, pos, "offset %d is beyond the stencil radius %d", v, p->env->radius);
    *out = v;
    lex(p);
    return 0;
}

static int load_node(parser *p, int input, int dx, int dy, int pos)
{
    int id = new_node(p, GIP__N_LOAD, pos);
    if (id < 0)
        return -1;
    gip__expr_node *n = &p->e->node[id];
    n->index = input;
    n->dx = (int16_t)dx;
    n->dy = (int16_t)dy;
    p->e->inputs_used |= 1u << input;
    int r = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
    if (r > p->e->radius_used)
        p->e->radius_used = r;
    return id;
}

/* Input number named by an identifier: in, in0..in7, or a letter 'a' + i other than c. */
static int input_of(const parser *p, const token *t)
{
    const char *s = p->text + t->pos;
    if (ident_is(p, t, "in"))
        return 0;
    if (t->len == 3 && strncmp(s, "in", 2) == 0 && s[2] >= '0' && s[2] <= '7')
        return s[2] - '0';
    if (t->len == 1 && s[0] >= 'a' && s[0] < 'a' + GIP_EXPR_MAX_INPUTS && s[0] != 'c')
        return s[0] - 'a';
    return -1;
}

static int parse_primary(parser *p)
{
    if (p->st)
        return -1;
    token t = p->tok;
    if (t.kind == T_NUM) {
        lex(p);
        return num_node(p, t.num, t.pos);
    }
    if (is_punct(p, "(")) {
        lex(p);
        int v = parse_expr(p);
        if (!is_punct(p, ")"))
            return expected(p, "')'");
        lex(p);
        return v;
    }
    if (t.kind != T_IDENT)
        return expected(p, "a number, a name, a function call or '('");
    lex(p);
    const char *name = p->text + t.pos;
    /* Functions. */
    for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++) {
        if (!ident_is(p, &t, functions[k].name))
            continue;
        if (!is_punct(p, "("))
            return fail(p, p->tok.pos, "expected '(' after the function '%s'", functions[k].name);
        lex(p);
        int args[3] = {-1, -1, -1}, n = 0;
        if (!is_punct(p, ")")) {
            for (;;) {
                int v = parse_expr(p);
                if (p->st)
                    return -1;
                if (n < 3)
                    args[n] = v;
                n++;
                if (is_punct(p, ","))
                    lex(p);
                else
                    break;
            }
        }
        if (!is_punct(p, ")"))
            return expected(p, "',' or ')' in the function's arguments");
        if (n != functions[k].arity)
            return fail(p, t.pos, "%s takes %d argument%s, not %d", functions[k].name,
                        functions[k].arity, functions[k].arity > 1 ? "s" : "", n);
        lex(p);
        return op_node(p, functions[k].op, args[0], args[1], args[2], t.pos);
    }
    /* Variables. */
    for (size_t k = 0; k < sizeof variables / sizeof variables[0]; k++) {
        if (!ident_is(p, &t, variables[k].name))
            continue;
        if (is_punct(p, "("))
            return fail(p, p->tok.pos, "'%s' is a variable, not a function", variables[k].name);
        int id = new_node(p, GIP__N_VAR, t.pos);
        if (id >= 0) {
            p->e->node[id].op = (int8_t)variables[k].var;
            p->e->vars_used |= 1u << variables[k].var;
        }
        return id;
    }
    /* Inputs. */
    int input = input_of(p, &t);
    if (input >= 0) {
        if (input >= p->env->n_inputs)
            return fail(p, t.pos, "'%.*s' names input %d but %s %d input%s", t.len, name, input,
                        p->env->stencil ? "a stencil has" : "this map has", (int)p->env->n_inputs,
                        p->env->n_inputs > 1 ? "s" : "");
        if (!is_punct(p, "("))
            return load_node(p, input, 0, 0, t.pos);
        if (!p->env->stencil)
            return fail(p, p->tok.pos,
                        "'%.*s(dx, dy)' reads a neighbour, which needs gip_stencil; in a map write "
                        "'%.*s'",
                        t.len, name, t.len, name);
        lex(p);
        int dx = 0, dy = 0;
        if (parse_offset(p, &dx) < 0)
            return -1;
        if (!is_punct(p, ","))
            return expected(p, "',' between the offsets of in(dx, dy)");
        lex(p);
        if (parse_offset(p, &dy) < 0)
            return -1;
        if (!is_punct(p, ")"))
            return expected(p, "')' after in(dx, dy)");
        lex(p);
        return load_node(p, input, dx, dy, t.pos);
    }
    /* Scalars. */
    for (int32_t k = 0; k < p->env->n_scalars; k++) {
        const char *sn = p->env->scalars[k].name;
        if (!ident_is(p, &t, sn))
            continue;
        if (is_punct(p, "("))
            return fail(p, p->tok.pos, "'%s' is a scalar, not a function", sn);
        int id = new_node(p, GIP__N_SCALAR, t.pos);
        if (id >= 0)
            p->e->node[id].index = k;
        return id;
    }
    return fail(p, t.pos,
                "unknown name '%.*s': expected a variable (x y width height c channels), an input "
                "(in%s), a function or a scalar parameter",
                t.len > 40 ? 40 : t.len, name, p->env->stencil ? ", in(dx, dy)" : ", a, b, in0..");
}

static int parse_unary(parser *p)
{
    if (p->st)
        return -1;
    if (++p->depth > MAX_DEPTH)
        return fail(p, p->tok.pos, "the expression is nested too deeply");
    int pos = p->tok.pos, v;
    if (is_punct(p, "-")) {
        lex(p);
        v = op_node(p, GIP__OP_NEG, parse_unary(p), -1, -1, pos);
    } else if (is_punct(p, "+")) {
        lex(p);
        v = parse_unary(p);
    } else if (is_punct(p, "!")) {
        lex(p);
        v = op_node(p, GIP__OP_NOT, parse_unary(p), -1, -1, pos);
    } else {
        v = parse_primary(p);
    }
    p->depth--;
    return v;
}

/* Binary levels, loosest first. */
static const struct {
    const char *tok[4];
    int op[4];
} levels[] = {
    {{"||"}, {GIP__OP_OR}},
    {{"&&"}, {GIP__OP_AND}},
    {{"==", "!="}, {GIP__OP_EQ, GIP__OP_NE}},
    {{"<", "<=", ">", ">="}, {GIP__OP_LT, GIP__OP_LE, GIP__OP_GT, GIP__OP_GE}},
    {{"+", "-"}, {GIP__OP_ADD, GIP__OP_SUB}},
    {{"*", "/", "%"}, {GIP__OP_MUL, GIP__OP_DIV, GIP__OP_MOD}},
};
#define N_LEVELS ((int)(sizeof levels / sizeof levels[0]))

static int parse_binary(parser *p, int level)
{
    if (level == N_LEVELS)
        return parse_unary(p);
    int a = parse_binary(p, level + 1);
    for (;;) {
        if (p->st)
            return -1;
        int op = -1, pos = p->tok.pos;
        for (int k = 0; k < 4 && levels[level].tok[k]; k++)
            if (is_punct(p, levels[level].tok[k]))
                op = levels[level].op[k];
        if (op < 0)
            return a;
        lex(p);
        int b = parse_binary(p, level + 1);
        a = op_node(p, op, a, b, -1, pos);
    }
}

static int parse_expr(parser *p)
{
    if (p->st)
        return -1;
    if (++p->depth > MAX_DEPTH)
        return fail(p, p->tok.pos, "the expression is nested too deeply");
    int cond = parse_binary(p, 0);
    if (is_punct(p, "?")) {
        int pos = p->tok.pos;
        lex(p);
        int a = parse_expr(p);
        if (!p->st && !is_punct(p, ":"))
            expected(p, "':' of the conditional ?:");
        lex(p);
        int b = parse_expr(p);
        cond = op_node(p, GIP__OP_SELECT, cond, a, b, pos);
    }
    p->depth--;
    return cond;
}

static bool reserved(const char *s)
{
    for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
        if (strcmp(s, functions[k].name) == 0)
            return true;
    for (size_t k = 0; k < sizeof variables / sizeof variables[0]; k++)
        if (strcmp(s, variables[k].name) == 0)
            return true;
    if (strcmp(s, "out") == 0 || strcmp(s, "in") == 0)
        return true;
    if (strlen(s) == 3 && strncmp(s, "in", 2) == 0 && s[2] >= '0' && s[2] <= '9')
        return true;
    return strlen(s) == 1 && s[0] >= 'a' && s[0] < 'a' + GIP_EXPR_MAX_INPUTS;
}

gip_status gip__expr_parse(gip_context *ctx, const gip__expr_env *env, const char *text,
                           gip__expr *e)
{
    if (!text)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: expr is NULL", env->op);
    if (strlen(text) > GIP__EXPR_MAX_LEN)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the expression is longer than %d characters", env->op,
                          GIP__EXPR_MAX_LEN);
    for (int32_t k = 0; k < env->n_scalars; k++) {
        const char *s = env->scalars[k].name;
        bool ok = s && (isalpha((unsigned char)s[0]) || s[0] == '_') && strlen(s) <= 64;
        for (const char *q = s; ok && *q; q++)
            ok = isalnum((unsigned char)*q) || *q == '_';
        if (!ok)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: scalars[%d] name '%s' is not an identifier (a letter or _, then "
                              "letters, digits, _; at most 64)",
                              env->op, (int)k, s ? s : "(NULL)");
        if (reserved(s))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: scalars[%d] name '%s' is reserved (a variable, function, input "
                              "or 'out')",
                              env->op, (int)k, s);
        for (int32_t j = 0; j < k; j++)
            if (strcmp(env->scalars[j].name, s) == 0)
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: scalars[%d] and scalars[%d] are both named '%s'", env->op,
                                  (int)j, (int)k, s);
    }
    memset(e, 0, offsetof(gip__expr, node));
    e->n = 0;
    e->radius_used = 0;
    e->inputs_used = 0;
    e->vars_used = 0;
    parser p = {ctx, env, text, e, {0}, 0, 0, GIP_OK};
    lex(&p);
    /* An optional "out =" in front. */
    if (ident_is(&p, &p.tok, "out")) {
        int save = p.next;
        token t = p.tok;
        lex(&p);
        if (is_punct(&p, "="))
            lex(&p);
        else {
            p.next = save;
            p.tok = t;
        }
    }
    if (p.tok.kind == T_END && !p.st)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: column %d: the expression is empty",
                          env->op, p.tok.pos + 1);
    int root = parse_expr(&p);
    if (!p.st && p.tok.kind != T_END) {
        if (is_punct(&p, "="))
            fail(&p, p.tok.pos,
                 "unexpected '=': only 'out =' may start the expression (compare "
                 "with '==')");
        else
            expected(&p, "an operator or the end of the expression");
    }
    if (p.st)
        return p.st;
    e->root = root;
    return GIP_OK;
}
