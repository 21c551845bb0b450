/* SPDX-License-Identifier: MIT */
/* The safetensors reader for VGG19 weights: header length, a strict JSON parser (objects, strings
 * with escapes, integers, arrays), dtype, shape and offset checks, then the tensors. */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "style.h"

/* Largest JSON header accepted (the real VGG19 header is about 3 KiB). */
#define ST_MAX_HEADER (16 << 20)
#define ST_MAX_DEPTH 16
/* Most members (object keys plus array items, over the whole header) accepted: the real VGG19
 * header has a few hundred. It bounds the parser's memory and time on a header of tiny members,
 * which the byte limit alone leaves at hundreds of MB of nodes. Documented in gip/style.h. */
#define ST_MAX_MEMBERS 65536

/* ---- a strict JSON parser ------------------------------------------------------------------ */
typedef enum jtype { J_OBJECT, J_ARRAY, J_STRING, J_INT } jtype;

typedef struct jval {
    jtype type;
    int64_t num;         /* J_INT */
    char *str;           /* J_STRING (NUL-terminated; embedded NULs refused) */
    int n;               /* members of an object or array */
    char **keys;         /* J_OBJECT */
    struct jval **items; /* J_OBJECT values and J_ARRAY items */
} jval;

typedef struct jparser {
    const char *p, *end, *begin;
    char err[160];
    int oom;
    int too_large; /* more than ST_MAX_MEMBERS members */
    int members;   /* members parsed so far, over the whole header */
} jparser;

static void jfree(jval *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n; i++) {
        if (v->keys)
            free(v->keys[i]);
        jfree(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->str);
    free(v);
}

static jval *jfail(jparser *jp, const char *what)
{
    if (!jp->err[0])
        snprintf(jp->err, sizeof jp->err, "%s at byte %td of the header", what, jp->p - jp->begin);
    return NULL;
}

static void jskip_ws(jparser *jp)
{
    while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
        jp->p++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(jparser *jp, unsigned *out)
{
    if (jp->end - jp->p < 4)
        return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(jp->p[i]);
        if (h < 0)
            return 0;
        v = v * 16 + (unsigned)h;
    }
    jp->p += 4;
    *out = v;
    return 1;
}

/* Parses a string at jp->p (which is at the opening quote) into a new NUL-terminated buffer. */
static char *jstring(jparser *jp)
{
    jp->p++; /* opening quote */
    size_t cap = 32, len = 0;
    char *s = malloc(cap);
    if (!s) {
        jp->oom = 1;
        return (char *)jfail(jp, "out of memory");
    }
    for (;;) {
        if (jp->p >= jp->end) {
            free(s);
            return (char *)jfail(jp, "unterminated string");
        }
        unsigned char c = (unsigned char)*jp->p++;
        char utf8[4];
        int nout = 0;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(s);
            return (char *)jfail(jp, "control character in a string");
        }
        if (c == '\\') {
            if (jp->p >= jp->end) {
                free(s);
                return (char *)jfail(jp, "unterminated escape");
            }
            char e = *jp->p++;
            unsigned cp;
            switch (e) {
            case '"':
                utf8[nout++] = '"';
                break;
            case '\\':
                utf8[nout++] = '\\';
                break;
            case '/':
                utf8[nout++] = '/';
                break;
            case 'b':
                utf8[nout++] = '\b';
                break;
            case 'f':
                utf8[nout++] = '\f';
                break;
            case 'n':
                utf8[nout++] = '\n';
                break;
            case 'r':
                utf8[nout++] = '\r';
                break;
            case 't':
                utf8[nout++] = '\t';
                break;
            case 'u':
                if (!read_hex4(jp, &cp)) {
                    free(s);
                    return (char *)jfail(jp, "bad \\u escape");
                }
                if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair */
                    unsigned lo;
                    if (jp->end - jp->p < 2 || jp->p[0] != '\\' || jp->p[1] != 'u') {
                        free(s);
                        return (char *)jfail(jp, "lone surrogate in \\u escape");
                    }
                    jp->p += 2;
                    if (!read_hex4(jp, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                        free(s);
                        return (char *)jfail(jp, "bad surrogate pair in \\u escape");
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    free(s);
                    return (char *)jfail(jp, "lone surrogate in \\u escape");
                }
                if (cp == 0) {
                    free(s);
                    return (char *)jfail(jp, "\\u0000 in a string");
                }
                if (cp < 0x80) {
                    utf8[nout++] = (char)cp;
                } else if (cp < 0x800) {
                    utf8[nout++] = (char)(0xC0 | (cp >> 6));
                    utf8[nout++] = (char)(0x80 | (cp & 0x3F));
                } else if (cp < 0x10000) {
                    utf8[nout++] = (char)(0xE0 | (cp >> 12));
                    utf8[nout++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    utf8[nout++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    utf8[nout++] = (char)(0xF0 | (cp >> 18));
                    utf8[nout++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                    utf8[nout++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    utf8[nout++] = (char)(0x80 | (cp & 0x3F));
                }
                break;
            default:
                free(s);
                return (char *)jfail(jp, "bad escape in a string");
            }
        } else {
            utf8[nout++] = (char)c;
        }
        if (len + (size_t)nout + 1 > cap) {
            cap *= 2;
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                jp->oom = 1;
                return (char *)jfail(jp, "out of memory");
            }
            s = t;
        }
        memcpy(s + len, utf8, (size_t)nout);
        len += (size_t)nout;
    }
    s[len] = 0;
    return s;
}

static jval *jnew(jparser *jp, jtype t)
{
    jval *v = calloc(1, sizeof *v);
    if (!v) {
        jp->oom = 1;
        return jfail(jp, "out of memory");
    }
    v->type = t;
    return v;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fails on a key that occurs twice in the object v: its keys sorted, neighbours compared, so that
 * the check costs O(n log n) for n keys instead of a scan per key. */
static int jcheck_unique(jparser *jp, const jval *v)
{
    if (v->n < 2)
        return 1;
    char **sorted = malloc((size_t)v->n * sizeof *sorted);
    if (!sorted) {
        jp->oom = 1;
        jfail(jp, "out of memory");
        return 0;
    }
    memcpy(sorted, v->keys, (size_t)v->n * sizeof *sorted);
    qsort(sorted, (size_t)v->n, sizeof *sorted, cmp_key);
    for (int i = 1; i < v->n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            snprintf(jp->err, sizeof jp->err,
                     "duplicate key '%.60s' in the object ending at byte %td of the header",
                     sorted[i], jp->p - jp->begin);
            free(sorted);
            return 0;
        }
    free(sorted);
    return 1;
}

static int jpush(jparser *jp, jval *v, char *key, jval *item)
{
    if ((v->n & (v->n - 1)) == 0) { /* grow at powers of two */
        int cap = v->n ? v->n * 2 : 1;
        jval **items = realloc(v->items, (size_t)cap * sizeof *items);
        if (!items)
            goto out_oom;
        v->items = items;
        if (v->type == J_OBJECT) {
            char **keys = realloc(v->keys, (size_t)cap * sizeof *keys);
            if (!keys)
                goto out_oom;
            v->keys = keys;
        }
    }
    if (v->type == J_OBJECT)
        v->keys[v->n] = key;
    v->items[v->n++] = item;
    return 1;
out_oom:
    jp->oom = 1;
    jfail(jp, "out of memory");
    return 0;
}

static jval *jvalue(jparser *jp, int depth)
{
    jskip_ws(jp);
    if (jp->p >= jp->end)
        return jfail(jp, "unexpected end");
    if (depth > ST_MAX_DEPTH)
        return jfail(jp, "nesting too deep");
    char c = *jp->p;
    if (c == '"') {
        jval *v = jnew(jp, J_STRING);
        if (!v)
            return NULL;
        v->str = jstring(jp);
        if (!v->str) {
            jfree(v);
            return NULL;
        }
        return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        int neg = c == '-';
        if (neg)
            jp->p++;
        if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
            return jfail(jp, "bad number");
        if (*jp->p == '0' && jp->p + 1 < jp->end && jp->p[1] >= '0' && jp->p[1] <= '9')
            return jfail(jp, "number with a leading zero");
        uint64_t v = 0;
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9') {
            unsigned d = (unsigned)(*jp->p - '0');
            if (v > (UINT64_C(9223372036854775807) - d) / 10)
                return jfail(jp, "integer out of range");
            v = v * 10 + d;
            jp->p++;
        }
        if (jp->p < jp->end && (*jp->p == '.' || *jp->p == 'e' || *jp->p == 'E'))
            return jfail(jp, "non-integer number (only integers are accepted)");
        jval *r = jnew(jp, J_INT);
        if (!r)
            return NULL;
        r->num = neg ? -(int64_t)v : (int64_t)v;
        return r;
    }
    if (c == '{' || c == '[') {
        int obj = c == '{';
        char close = obj ? '}' : ']';
        jval *v = jnew(jp, obj ? J_OBJECT : J_ARRAY);
        if (!v)
            return NULL;
        jp->p++;
        jskip_ws(jp);
        if (jp->p < jp->end && *jp->p == close) {
            jp->p++;
            return v;
        }
        for (;;) {
            char *key = NULL;
            if (++jp->members > ST_MAX_MEMBERS) {
                jp->too_large = 1;
                jfree(v);
                snprintf(jp->err, sizeof jp->err,
                         "more than %d members (object keys and array items) at byte %td of the "
                         "header",
                         ST_MAX_MEMBERS, jp->p - jp->begin);
                return NULL;
            }
            if (obj) {
                jskip_ws(jp);
                if (jp->p >= jp->end || *jp->p != '"') {
                    jfree(v);
                    return jfail(jp, "expected a string key");
                }
                key = jstring(jp);
                if (!key) {
                    jfree(v);
                    return NULL;
                }
                jskip_ws(jp);
                if (jp->p >= jp->end || *jp->p != ':') {
                    free(key);
                    jfree(v);
                    return jfail(jp, "expected ':'");
                }
                jp->p++;
            }
            jval *item = jvalue(jp, depth + 1);
            if (!item) {
                free(key);
                jfree(v);
                return NULL;
            }
            if (!jpush(jp, v, key, item)) {
                free(key);
                jfree(item);
                jfree(v);
                return NULL;
            }
            jskip_ws(jp);
            if (jp->p < jp->end && *jp->p == ',') {
                jp->p++;
                continue;
            }
            if (jp->p < jp->end && *jp->p == close) {
                jp->p++;
                if (obj && !jcheck_unique(jp, v)) {
                    jfree(v);
                    return NULL;
                }
                return v;
            }
            jfree(v);
            return jfail(jp, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    return jfail(jp, "unexpected character (only objects, arrays, strings and integers)");
}

static const jval *jget(const jval *obj, const char *key)
{
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

/* ---- VGG19 tensors ----------------------------------------------------------------------- */
/* All 16 VGG19 convolutions: the first 13 are kept, the last 3 only checked. */
static const int all_index[16] = {0, 2, 5, 7, 10, 12, 14, 16, 19, 21, 23, 25, 28, 30, 32, 34};
static const int all_cin[16] = {3,   64,  64,  128, 128, 256, 256, 256,
                                256, 512, 512, 512, 512, 512, 512, 512};
static const int all_cout[16] = {64,  64,  128, 128, 256, 256, 256, 256,
                                 512, 512, 512, 512, 512, 512, 512, 512};

typedef struct st_tensor {
    const char *key;
    int layer; /* 0..15 */
    int is_bias;
    int64_t begin, end;
} st_tensor;

/* Maps "features.N.weight"/"features.N.bias" to (layer, is_bias); 0 when not a VGG19 conv key. */
static int parse_key(const char *key, int *layer, int *is_bias)
{
    if (strncmp(key, "features.", 9) != 0)
        return 0;
    const char *p = key + 9;
    int n = 0, digits = 0;
    while (*p >= '0' && *p <= '9' && digits < 3) {
        n = n * 10 + (*p++ - '0');
        digits++;
    }
    if (digits == 0 || (digits > 1 && key[9] == '0'))
        return 0;
    if (strcmp(p, ".weight") == 0)
        *is_bias = 0;
    else if (strcmp(p, ".bias") == 0)
        *is_bias = 1;
    else
        return 0;
    for (int i = 0; i < 16; i++)
        if (all_index[i] == n) {
            *layer = i;
            return 1;
        }
    return 0;
}

static int cmp_begin(const void *a, const void *b)
{
    const st_tensor *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : 0;
}

/* Checks one tensor entry; fills t. */
static gip_status check_entry(const char *path, const char *key, const jval *e, int64_t data_size,
                              st_tensor *t)
{
    if (e->type != J_OBJECT)
        return gip__error(NULL, GIP_ERR_CORRUPT, "gip_vgg19_load: %s: '%s' is not an object", path,
                          key);
    for (int i = 0; i < e->n; i++)
        if (strcmp(e->keys[i], "dtype") != 0 && strcmp(e->keys[i], "shape") != 0 &&
            strcmp(e->keys[i], "data_offsets") != 0)
            return gip__error(NULL, GIP_ERR_CORRUPT,
                              "gip_vgg19_load: %s: '%s' has an unknown field '%s' (accepted: "
                              "dtype, shape, data_offsets)",
                              path, key, e->keys[i]);
    const jval *dtype = jget(e, "dtype"), *shape = jget(e, "shape"),
               *offs = jget(e, "data_offsets");
    if (!dtype || !shape || !offs)
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "gip_vgg19_load: %s: '%s' lacks dtype, shape or data_offsets", path, key);
    if (dtype->type != J_STRING)
        return gip__error(NULL, GIP_ERR_CORRUPT, "gip_vgg19_load: %s: '%s': dtype is not a string",
                          path, key);
    if (strcmp(dtype->str, "F32") != 0)
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "gip_vgg19_load: %s: '%s' has dtype %s; only F32 is accepted", path, key,
                          dtype->str);
    int64_t want[4] = {all_cout[t->layer], all_cin[t->layer], 3, 3};
    int want_rank = t->is_bias ? 1 : 4;
    if (shape->type != J_ARRAY)
        return gip__error(NULL, GIP_ERR_CORRUPT, "gip_vgg19_load: %s: '%s': shape is not an array",
                          path, key);
    int64_t count = 1;
    int shape_ok = shape->n == want_rank;
    for (int i = 0; i < shape->n; i++) {
        if (shape->items[i]->type != J_INT || shape->items[i]->num < 0)
            return gip__error(
                NULL, GIP_ERR_CORRUPT,
                "gip_vgg19_load: %s: '%s': shape holds a non-integer or negative value", path, key);
        if (i < want_rank && shape->items[i]->num != want[i])
            shape_ok = 0;
    }
    if (!shape_ok) {
        if (t->is_bias)
            return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                              "gip_vgg19_load: %s: '%s' does not have VGG19's shape [%d]", path,
                              key, all_cout[t->layer]);
        return gip__error(NULL, GIP_ERR_UNSUPPORTED,
                          "gip_vgg19_load: %s: '%s' does not have VGG19's shape [%d, %d, 3, 3]",
                          path, key, all_cout[t->layer], all_cin[t->layer]);
    }
    for (int i = 0; i < want_rank; i++)
        count *= want[i];
    if (offs->type != J_ARRAY || offs->n != 2 || offs->items[0]->type != J_INT ||
        offs->items[1]->type != J_INT)
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "gip_vgg19_load: %s: '%s': data_offsets is not [begin, end]", path, key);
    t->begin = offs->items[0]->num;
    t->end = offs->items[1]->num;
    if (t->begin < 0 || t->end < t->begin || t->end > data_size)
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "gip_vgg19_load: %s: '%s': data_offsets [%lld, %lld] lie outside the "
                          "data section of %lld bytes",
                          path, key, (long long)t->begin, (long long)t->end, (long long)data_size);
    if (t->end - t->begin != count * 4)
        return gip__error(NULL, GIP_ERR_CORRUPT,
                          "gip_vgg19_load: %s: '%s': data_offsets span %lld bytes, its shape needs "
                          "%lld",
                          path, key, (long long)(t->end - t->begin), (long long)(count * 4));
    return GIP_OK;
}

static gip_status read_at(const char *path, FILE *f, int64_t offset, void *buf, size_t bytes)
{
    if (fseeko(f, (off_t)offset, SEEK_SET) != 0 || fread(buf, 1, bytes, f) != bytes)
        return gip__error(NULL, GIP_ERR_IO, "gip_vgg19_load: %s: read failed at byte %lld", path,
                          (long long)offset);
    return GIP_OK;
}

GIP_API gip_status gip_vgg19_load(const char *path, gip_net **out)
{
    if (!out || !path) {
        if (out)
            *out = NULL;
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_vgg19_load: path and out must not be NULL");
    }
    *out = NULL;
    gip_status st = GIP_OK;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return gip__error(NULL, GIP_ERR_NOT_FOUND, "gip_vgg19_load: %s: no such file", path);
        return gip__error(NULL, GIP_ERR_IO, "gip_vgg19_load: %s: cannot open: %s", path,
                          strerror(errno));
    }
    char *header = NULL;
    jval *root = NULL;
    gip_net *net = NULL;
    st_tensor tensors[32];
    int ntensors = 0;

    if (fseeko(f, 0, SEEK_END) != 0) {
        st = gip__error(NULL, GIP_ERR_IO, "gip_vgg19_load: %s: cannot seek", path);
        goto out_close;
    }
    int64_t file_size = (int64_t)ftello(f);
    unsigned char len8[8];
    if (file_size < 8) {
        st = gip__error(NULL, GIP_ERR_CORRUPT,
                        "gip_vgg19_load: %s: truncated: %lld bytes, shorter than the 8-byte "
                        "header length",
                        path, (long long)file_size);
        goto out_close;
    }
    if ((st = read_at(path, f, 0, len8, 8)) != GIP_OK)
        goto out_close;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | len8[i];
    if (hlen < 2 || hlen > (uint64_t)(file_size - 8)) {
        st = gip__error(NULL, GIP_ERR_CORRUPT,
                        "gip_vgg19_load: %s: header length %llu does not fit in the file of %lld "
                        "bytes",
                        path, (unsigned long long)hlen, (long long)file_size);
        goto out_close;
    }
    if (hlen > ST_MAX_HEADER) {
        st = gip__error(NULL, GIP_ERR_CORRUPT,
                        "gip_vgg19_load: %s: header length %llu above the %d-byte limit", path,
                        (unsigned long long)hlen, ST_MAX_HEADER);
        goto out_close;
    }
    header = malloc((size_t)hlen);
    if (!header) {
        st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "gip_vgg19_load: out of memory");
        goto out_close;
    }
    if ((st = read_at(path, f, 8, header, (size_t)hlen)) != GIP_OK)
        goto out_free;
    jparser jp = {header, header + hlen, header, "", 0, 0, 0};
    root = jvalue(&jp, 0);
    if (root) {
        jskip_ws(&jp);
        if (jp.p != jp.end) {
            jfail(&jp, "trailing characters after the JSON value");
            jfree(root);
            root = NULL;
        }
    }
    if (!root) {
        st = gip__error(NULL,
                        jp.oom         ? GIP_ERR_OUT_OF_MEMORY
                        : jp.too_large ? GIP_ERR_TOO_LARGE
                                       : GIP_ERR_CORRUPT,
                        "gip_vgg19_load: %s: %s JSON header: %s", path,
                        jp.too_large ? "refused" : "bad", jp.err);
        goto out_free;
    }
    if (root->type != J_OBJECT) {
        st = gip__error(NULL, GIP_ERR_CORRUPT,
                        "gip_vgg19_load: %s: the JSON header is not an object", path);
        goto out_free;
    }
    int64_t data_size = file_size - 8 - (int64_t)hlen;
    for (int i = 0; i < root->n; i++) {
        const char *key = root->keys[i];
        const jval *e = root->items[i];
        if (strcmp(key, "__metadata__") == 0) {
            int ok = e->type == J_OBJECT;
            for (int k = 0; ok && k < e->n; k++)
                ok = e->items[k]->type == J_STRING;
            if (!ok) {
                st = gip__error(NULL, GIP_ERR_CORRUPT,
                                "gip_vgg19_load: %s: __metadata__ is not an object of strings",
                                path);
                goto out_free;
            }
            continue;
        }
        st_tensor *t = &tensors[ntensors];
        if (!parse_key(key, &t->layer, &t->is_bias) || ntensors >= 32) {
            st = gip__error(NULL, GIP_ERR_UNSUPPORTED,
                            "gip_vgg19_load: %s: unknown key '%s' (accepted: features.N.weight and "
                            "features.N.bias of VGG19's convolutions, __metadata__)",
                            path, key);
            goto out_free;
        }
        t->key = key;
        if ((st = check_entry(path, key, e, data_size, t)) != GIP_OK)
            goto out_free;
        ntensors++;
    }
    /* Every kept layer's weight and bias must be there. */
    for (int l = 0; l < GIP__VGG_LAYERS; l++)
        for (int b = 0; b < 2; b++) {
            int found = 0;
            for (int i = 0; i < ntensors; i++)
                found |= tensors[i].layer == l && tensors[i].is_bias == b;
            if (!found) {
                st = gip__error(NULL, GIP_ERR_CORRUPT,
                                "gip_vgg19_load: %s: missing key 'features.%d.%s'", path,
                                all_index[l], b ? "bias" : "weight");
                goto out_free;
            }
        }
    /* No two tensors may share bytes. */
    st_tensor sorted[32];
    memcpy(sorted, tensors, (size_t)ntensors * sizeof *sorted);
    qsort(sorted, (size_t)ntensors, sizeof *sorted, cmp_begin);
    for (int i = 1; i < ntensors; i++)
        if (sorted[i].begin < sorted[i - 1].end) {
            st = gip__error(NULL, GIP_ERR_CORRUPT,
                            "gip_vgg19_load: %s: '%s' and '%s' overlap in the data section", path,
                            sorted[i - 1].key, sorted[i].key);
            goto out_free;
        }
    if ((st = gip__net_alloc(1, &net)) != GIP_OK)
        goto out_free;
    for (int i = 0; i < ntensors; i++) {
        const st_tensor *t = &tensors[i];
        if (t->layer >= GIP__VGG_LAYERS)
            continue;
        float *dst = t->is_bias ? net->conv[t->layer].b : net->conv[t->layer].w;
        if ((st = read_at(path, f, 8 + (int64_t)hlen + t->begin, dst,
                          (size_t)(t->end - t->begin))) != GIP_OK)
            goto out_free;
    }
    /* Non-finite weights would poison every result. */
    for (int l = 0; l < GIP__VGG_LAYERS; l++) {
        const gip__conv *c = &net->conv[l];
        int64_t nw = (int64_t)c->cout * c->cin * 9;
        for (int64_t k = 0; k < nw + c->cout; k++) {
            float v = k < nw ? c->w[k] : c->b[k - nw];
            if (!(v == v) || v > 3.4e38f || v < -3.4e38f) {
                st = gip__error(NULL, GIP_ERR_CORRUPT,
                                "gip_vgg19_load: %s: 'features.%d.%s' holds a non-finite value",
                                path, all_index[l], k < nw ? "weight" : "bias");
                goto out_free;
            }
        }
    }
    *out = net;
    net = NULL;
out_free:
    gip_net_free(net);
    jfree(root);
    free(header);
out_close:
    fclose(f);
    return st;
}
