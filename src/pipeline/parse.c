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
#include "pipeline_steps.h"

#define MAX_ARGS 32
#define MAX_KEYS 10

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

/* ---- value conversions; each names the position and what is accepted ------------------------ */

static gip_status p_double(parser *ps, const arg *a, const char *name, double lo, double hi,
                           double *out)
{
    char *end;
    double v = strtod(a->val, &end);
    if (end == a->val || *end || !(v >= lo && v <= hi))
        return fail(ps, a->vpos, "expected %s as a number in %g..%g, got '%s'", name, lo, hi,
                    a->val);
    *out = v;
    return GIP_OK;
}

static gip_status p_int(parser *ps, const arg *a, const char *name, long lo, long hi, int32_t *out)
{
    char *end;
    long v = strtol(a->val, &end, 10);
    if (end == a->val || *end || v < lo || v > hi)
        return fail(ps, a->vpos, "expected %s as an integer in %ld..%ld, got '%s'", name, lo, hi,
                    a->val);
    *out = (int32_t)v;
    return GIP_OK;
}

/* "N" or "WxH", each in lo..hi, odd when `odd`. */
static gip_status p_size(parser *ps, const arg *a, const char *name, long lo, long hi, bool odd,
                         int32_t *w, int32_t *h)
{
    char *end;
    long x = strtol(a->val, &end, 10), y = x;
    if (end != a->val && (*end == 'x' || *end == 'X')) {
        char *b = end + 1;
        y = strtol(b, &end, 10);
        if (end == b)
            end = b - 1; /* force the error below */
    }
    if (end == a->val || *end || x < lo || x > hi || y < lo || y > hi ||
        (odd && ((x && x % 2 == 0) || (y && y % 2 == 0))))
        return fail(ps, a->vpos, "expected %s as N or WxH with each %s%ld..%ld, got '%s'", name,
                    odd ? "odd " : "", lo, hi, a->val);
    *w = (int32_t)x;
    *h = (int32_t)y;
    return GIP_OK;
}

/* Up to `max` comma-separated numbers. */
static gip_status p_list(parser *ps, const arg *a, const char *name, int max, double lo, double hi,
                         double *out, int *count)
{
    const char *s = a->val;
    int n = 0;
    for (;;) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || (*end && *end != ',') || n == max || !(v >= lo && v <= hi))
            return fail(ps, a->vpos,
                        "expected %s as 1 to %d comma-separated numbers in %g..%g, got '%s'", name,
                        max, lo, hi, a->val);
        out[n++] = v;
        if (!*end)
            break;
        s = end + 1;
    }
    *count = n;
    return GIP_OK;
}

static gip_status p_dtype(parser *ps, const arg *a, gip_dtype *out, bool sobel)
{
    static const struct {
        const char *name;
        gip_dtype dt;
    } names[] = {{"u8", GIP_U8}, {"u16", GIP_U16}, {"s16", GIP_S16}, {"f32", GIP_F32}};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(a->val, names[i].name) == 0 && !(sobel && names[i].dt == GIP_U16)) {
            *out = names[i].dt;
            return GIP_OK;
        }
    return fail(ps, a->vpos, "expected a dtype: %s, got '%s'",
                sobel ? "u8, s16 or f32" : "u8, u16, s16 or f32", a->val);
}

static gip_status p_bool(parser *ps, const arg *a, const char *name, int32_t *out)
{
    if (strcmp(a->val, "0") && strcmp(a->val, "1"))
        return fail(ps, a->vpos, "expected %s as 0 or 1, got '%s'", name, a->val);
    *out = a->val[0] == '1';
    return GIP_OK;
}

static gip_status p_sobel_ksize(parser *ps, const arg *a, int32_t *out)
{
    if (strcmp(a->val, "scharr") == 0) {
        *out = GIP_SCHARR;
        return GIP_OK;
    }
    if (strcmp(a->val, "1") && strcmp(a->val, "3") && strcmp(a->val, "5") && strcmp(a->val, "7"))
        return fail(ps, a->vpos, "expected ksize 1, 3, 5, 7 or scharr, got '%s'", a->val);
    *out = a->val[0] - '0';
    return GIP_OK;
}

/* Kernel rows 'a,b,c;d,e,f' (numbers or fractions A/B), every row the same length. */
static gip_status p_kernel(parser *ps, const arg *a, float **kernel, int32_t *kw, int32_t *kh)
{
    static const char accepted[] = "rows separated by ';' of comma-separated numbers or fractions "
                                   "(1/9), all rows of one length, at most 255x255";
    int32_t w = 1, h = 1;
    for (const char *q = a->val; *q && *q != ';'; q++)
        w += *q == ',';
    for (const char *q = a->val; *q; q++)
        h += *q == ';';
    if (w > 255 || h > 255)
        return fail(ps, a->vpos, "expected a kernel of %s, got %dx%d", accepted, (int)w, (int)h);
    float *k = malloc((size_t)w * (size_t)h * sizeof *k);
    if (!k)
        return oom(ps);
    const char *q = a->val;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            char *end;
            double num = strtod(q, &end), den = 1;
            if (end != q && *end == '/') {
                const char *d = end + 1;
                den = strtod(d, &end);
                if (end == d || den == 0)
                    end = (char *)q;
            }
            char want = x == w - 1 ? (y == h - 1 ? '\0' : ';') : ',';
            double v = num / den;
            if (end == q || *end != want || !(v >= -3e38 && v <= 3e38)) {
                free(k);
                return fail(ps, a->vpos + (int32_t)(q - a->val),
                            "expected kernel value %d of row %d: %s", (int)x + 1, (int)y + 1,
                            accepted);
            }
            k[y * w + x] = (float)v;
            q = *end ? end + 1 : end;
        }
    *kernel = k;
    *kw = w;
    *kh = h;
    return GIP_OK;
}

/* border= and border_value= of the filters. */
static gip_status p_border(parser *ps, const arg *mode, const arg *value, gip_border_spec *b)
{
    if (mode && gip_border_parse(mode->val, &b->mode)) {
        gip_clear_error();
        return fail(ps, mode->vpos,
                    "expected a border: reflect101, reflect, replicate, constant or wrap, got "
                    "'%s'",
                    mode->val);
    }
    if (value) {
        if (b->mode != GIP_BORDER_CONSTANT)
            return fail(ps, value->kpos, "border_value needs border=constant");
        double v[4];
        int n = 1;
        gip_status st = p_list(ps, value, "border_value", 4, -3e38, 3e38, v, &n);
        if (st)
            return st;
        for (int c = 0; c < 4; c++)
            b->value[c] = (float)v[n == 1 ? 0 : c < n ? c : n - 1];
    }
    return GIP_OK;
}

/* ---- steps ---------------------------------------------------------------------------------- */

typedef struct step_spec {
    const char *name;
    const char *keys[MAX_KEYS]; /* accepted keys; the first npos also positionally, in order */
    int npos;
    bool scalars; /* other KEY=V are expression scalars */
} step_spec;

static const step_spec specs[] = {
    {"invert", {"max"}, 0, false},
    {"gaussian", {"ksize", "sigma", "border", "border_value"}, 2, false},
    {"box", {"ksize", "normalize", "border", "border_value"}, 1, false},
    {"filter", {"kernel", "delta", "border", "border_value"}, 1, false},
    {"sobel", {"dx", "dy", "ksize", "scale", "delta", "dtype", "border", "border_value"}, 0, false},
    {"edges", {"ksize", "scale", "delta", "border", "border_value"}, 0, false},
    {"gray", {NULL}, 0, false},
    {"convert", {"dtype", "scale", "offset"}, 1, false},
    {"map", {"expr"}, 1, true},
    {"stencil", {"expr", "radius", "border", "border_value"}, 1, true},
    {"spectrum", {"log1p"}, 0, false},
};
#define NSPECS (int)(sizeof specs / sizeof specs[0])

static int key_index(const step_spec *sp, const char *key)
{
    for (int k = 0; k < MAX_KEYS && sp->keys[k]; k++)
        if (strcmp(sp->keys[k], key) == 0)
            return k;
    return -1;
}

static void list_keys(const step_spec *sp, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < MAX_KEYS && sp->keys[k] && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? ", " : "", sp->keys[k]);
    if (!sp->keys[0])
        snprintf(buf, size, "none");
}

/* Builds one step from its name and arguments and appends it to `p`. */
static gip_status build_step(parser *ps, gip_pipeline *p, int si, int32_t name_pos, arg *args,
                             int nargs)
{
    const step_spec *sp = &specs[si];
    const arg *kv[MAX_KEYS] = {0};
    gip_scalar scalars[GIP_EXPR_MAX_SCALARS];
    int nsc = 0, npos = 0;
    char keys[160];
    gip_status st;
    for (int i = 0; i < nargs; i++) {
        arg *a = &args[i];
        int k;
        if (!a->key) {
            if (npos >= sp->npos) {
                list_keys(sp, keys, sizeof keys);
                if (sp->npos == 0)
                    return fail(ps, a->vpos,
                                "unexpected value '%s': %s takes only KEY=VALUE arguments (%s)",
                                a->val, sp->name, keys);
                return fail(ps, a->vpos,
                            "unexpected value '%s': %s takes at most %d positional value%s (%s)",
                            a->val, sp->name, sp->npos, sp->npos == 1 ? "" : "s", keys);
            }
            k = npos++;
        } else if ((k = key_index(sp, a->key)) < 0) {
            if (sp->scalars) {
                if (nsc == GIP_EXPR_MAX_SCALARS)
                    return fail(ps, a->kpos, "expected at most %d scalars", GIP_EXPR_MAX_SCALARS);
                double v = 0;
                char what[80];
                snprintf(what, sizeof what, "scalar '%s'", a->key);
                if ((st = p_double(ps, a, what, -3.4e38, 3.4e38, &v)))
                    return st;
                scalars[nsc].name = a->key;
                scalars[nsc++].value = (float)v;
                continue;
            }
            list_keys(sp, keys, sizeof keys);
            return fail(ps, a->kpos, "unknown argument '%s' of %s; expected one of: %s", a->key,
                        sp->name, keys);
        }
        if (kv[k])
            return fail(ps, a->key ? a->kpos : a->vpos, "%s given twice to %s", sp->keys[k],
                        sp->name);
        kv[k] = a;
    }
    gip_border_spec border = {0};
    switch (si) {
    case 0: { /* invert */
        gip_invert_params ip = {0};
        double m = 0;
        if (kv[0] && (st = p_double(ps, kv[0], "max", -3e38, 3e38, &m)))
            return st;
        ip.max = (float)m;
        return gip_pipeline_add_invert(p, &ip);
    }
    case 1: { /* gaussian */
        gip_gaussian_params g = {0};
        if (!kv[0] && !kv[1])
            return fail(ps, name_pos,
                        "expected a kernel size or a sigma after gaussian, e.g. "
                        "'gaussian 15' or 'gaussian sigma=2'");
        if (kv[0] && (st = p_size(ps, kv[0], "ksize", 0, 1023, true, &g.ksize_w, &g.ksize_h)))
            return st;
        if (kv[1]) {
            double s[2];
            int n = 1;
            if ((st = p_list(ps, kv[1], "sigma", 2, 0, 10000, s, &n)))
                return st;
            g.sigma_x = s[0];
            g.sigma_y = n == 2 ? s[1] : 0;
        }
        if ((g.ksize_w == 0 && g.sigma_x <= 0) ||
            (g.ksize_h == 0 && (g.sigma_y > 0 ? g.sigma_y : g.sigma_x) <= 0))
            return fail(ps, kv[0] ? kv[0]->vpos : kv[1]->vpos,
                        "expected an odd ksize or a sigma > 0 (ksize 0 derives the size from "
                        "the sigma)");
        if ((st = p_border(ps, kv[2], kv[3], &g.border)))
            return st;
        return gip_pipeline_add_gaussian(p, &g);
    }
    case 2: { /* box */
        gip_box_params b = {0};
        b.ksize_w = b.ksize_h = 3;
        int32_t norm = 1;
        if (kv[0] && (st = p_size(ps, kv[0], "ksize", 1, 1023, false, &b.ksize_w, &b.ksize_h)))
            return st;
        if (kv[1] && (st = p_bool(ps, kv[1], "normalize", &norm)))
            return st;
        b.unnormalized = !norm;
        if ((st = p_border(ps, kv[2], kv[3], &b.border)))
            return st;
        return gip_pipeline_add_box(p, &b);
    }
    case 3: { /* filter */
        gip_filter2d_params f = {0};
        if (!kv[0])
            return fail(ps, name_pos,
                        "expected a kernel after filter, e.g. "
                        "filter '0,-1,0;-1,5,-1;0,-1,0'");
        double delta = 0;
        if (kv[1] && (st = p_double(ps, kv[1], "delta", -1e30, 1e30, &delta)))
            return st;
        if ((st = p_border(ps, kv[2], kv[3], &f.border)))
            return st;
        float *k = NULL;
        if ((st = p_kernel(ps, kv[0], &k, &f.ksize_w, &f.ksize_h)))
            return st;
        f.kernel = k;
        f.delta = (float)delta;
        st = gip_pipeline_add_filter2d(p, &f);
        free(k);
        return st;
    }
    case 4:   /* sobel */
    case 5: { /* edges */
        bool sobel = si == 4;
        const arg *ks = kv[sobel ? 2 : 0], *sc = kv[sobel ? 3 : 1], *de = kv[sobel ? 4 : 2];
        gip_sobel_params s = {0};
        s.ksize = 3;
        s.scale = 1;
        gip_dtype dt = GIP_U8;
        if (ks && (st = p_sobel_ksize(ps, ks, &s.ksize)))
            return st;
        double v = 0;
        if (sc) {
            if ((st = p_double(ps, sc, "scale", -1e30, 1e30, &v)))
                return st;
            if (v == 0)
                return fail(ps, sc->vpos, "expected a non-zero scale");
            s.scale = (float)v;
        }
        if (de) {
            if ((st = p_double(ps, de, "delta", -1e30, 1e30, &v)))
                return st;
            s.delta = (float)v;
        }
        if ((st = p_border(ps, kv[sobel ? 6 : 3], kv[sobel ? 7 : 4], &s.border)))
            return st;
        if (!sobel)
            return gip_pipeline_add_edges(p, &s);
        if (kv[0] && (st = p_int(ps, kv[0], "dx", 0, 6, &s.dx)))
            return st;
        if (kv[1] && (st = p_int(ps, kv[1], "dy", 0, 6, &s.dy)))
            return st;
        if (!kv[0] && !kv[1])
            s.dx = 1;
        int32_t kmax = s.ksize == GIP_SCHARR || s.ksize == 1 ? 3 : s.ksize;
        int32_t at = kv[0] ? kv[0]->vpos : kv[1] ? kv[1]->vpos : name_pos;
        if (s.dx + s.dy == 0)
            return fail(ps, at, "expected dx or dy above 0");
        if (s.ksize == GIP_SCHARR && s.dx + s.dy != 1)
            return fail(ps, at, "expected dx=1 dy=0 or dx=0 dy=1 with ksize=scharr");
        if (s.dx >= kmax || s.dy >= kmax)
            return fail(ps, at, "expected derivative orders below %d for this ksize", (int)kmax);
        if (kv[5] && (st = p_dtype(ps, kv[5], &dt, true)))
            return st;
        return gip_pipeline_add_sobel(p, &s, dt);
    }
    case 6: /* gray */
        return gip_pipeline_add_gray(p);
    case 7: { /* convert */
        gip_dtype dt = GIP_U8;
        double scale = 1, offset = 0;
        if (!kv[0])
            return fail(ps, name_pos, "expected a dtype after convert: u8, u16, s16 or f32");
        if ((st = p_dtype(ps, kv[0], &dt, false)) ||
            (kv[1] && (st = p_double(ps, kv[1], "scale", -1e30, 1e30, &scale))) ||
            (kv[2] && (st = p_double(ps, kv[2], "offset", -1e30, 1e30, &offset))))
            return st;
        return gip_pipeline_add_convert(p, dt, scale, offset);
    }
    case 8: /* map */
        if (!kv[0])
            return fail(ps, name_pos,
                        "expected a quoted expression after map, e.g. "
                        "map 'out = 255 - in'");
        return gip_pipeline_add_map(p, kv[0]->val, scalars, nsc);
    case 9: { /* stencil */
        gip_stencil_params s = {0};
        if (!kv[0])
            return fail(ps, name_pos,
                        "expected a quoted expression after stencil, e.g. "
                        "stencil radius=1 'out = (in(-1,0) + in(1,0)) / 2'");
        if (kv[1] && (st = p_int(ps, kv[1], "radius", 0, GIP_STENCIL_MAX_RADIUS, &s.radius)))
            return st;
        if ((st = p_border(ps, kv[2], kv[3], &s.border)))
            return st;
        s.scalars = scalars;
        s.n_scalars = nsc;
        return gip_pipeline_add_stencil(p, kv[0]->val, &s);
    }
    case 10: { /* spectrum */
        gip_spectrum_params s = {0};
        if (kv[0] && (st = p_bool(ps, kv[0], "log1p", &s.log1p)))
            return st;
        return gip_pipeline_add_spectrum(p, &s);
    }
    }
    (void)border;
    return gip__error(NULL, GIP_ERR_INTERNAL, "pipeline: step table out of sync");
}

static void free_args(arg *args, int n)
{
    for (int i = 0; i < n; i++) {
        free(args[i].key);
        free(args[i].val);
    }
}

/* A library refusal of a step's parameters (add_* checks) is reported at the step's name. */
static gip_status at_step(parser *ps, gip_status st, int32_t pos)
{
    if (st == GIP_OK || ps->reported)
        return st;
    if (st == GIP_ERR_OUT_OF_MEMORY)
        return st;
    char msg[256];
    snprintf(msg, sizeof msg, "%s", gip_last_error());
    return fail(ps, pos, "%s", msg);
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
        int si = -1;
        for (int k = 0; k < NSPECS; k++)
            if (strlen(specs[k].name) == ps.i - b &&
                strncmp(specs[k].name, text + b, ps.i - b) == 0)
                si = k;
        if (si < 0) {
            st = fail(&ps, name_pos,
                      "unknown step '%.*s'; expected one of: invert gaussian box filter sobel "
                      "edges gray convert map stencil spectrum",
                      (int)(ps.i - b), text + b);
            break;
        }
        if (text[ps.i] && !isspace((unsigned char)text[ps.i]) && text[ps.i] != '|') {
            st = fail(&ps, (int32_t)ps.i + 1, "expected a space or '|' after '%s', got '%c'",
                      specs[si].name, text[ps.i]);
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
            st = at_step(&ps, build_step(&ps, tmp, si, name_pos, args, nargs), name_pos);
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
