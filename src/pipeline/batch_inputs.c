/* SPDX-License-Identifier: MIT */
/* The batch engine's inputs and outputs: listing the files a folder or a pattern names
 * (gip_batch_list_inputs), and naming each input's output in the output folder. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "batch_engine.h"

static bool image_ext(const char *name)
{
    static const char *const exts[] = {".jpg", ".jpeg", ".png", ".ppm", ".pgm", ".pnm"};
    const char *dot = strrchr(name, '.');
    if (!dot)
        return false;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i]) == 0)
            return true;
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct list {
    char **v;
    int64_t n, cap;
} list;

static bool list_add(list *l, const char *s)
{
    if (l->n == l->cap) {
        int64_t cap = l->cap ? l->cap * 2 : 64;
        char **bigger = realloc(l->v, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return false;
        l->v = bigger;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        return false;
    l->n++;
    return true;
}

void gip_batch_free_list(char **paths, int64_t count)
{
    for (int64_t i = 0; paths && i < count; i++)
        free(paths[i]);
    free(paths);
}

gip_status gip_batch_list_inputs(const char *pattern, char ***paths, int64_t *count)
{
    static const char op[] = "gip_batch_list_inputs";
    if (!pattern || !paths || !count)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !pattern ? "pattern" : "paths or count");
    *paths = NULL;
    *count = 0;
    list l = {0};
    struct stat sb;
    bool oom = false;
    if (stat(pattern, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(pattern);
        if (!d)
            return gip__error(NULL, GIP_ERR_IO, "%s: cannot read folder '%s': %s", op, pattern,
                              strerror(errno));
        struct dirent *e;
        size_t plen = strlen(pattern);
        while (!oom && (e = readdir(d))) {
            if (e->d_name[0] == '.' || !image_ext(e->d_name))
                continue;
            char *full = malloc(plen + strlen(e->d_name) + 2);
            if (!full) {
                oom = true;
                break;
            }
            sprintf(full, "%s%s%s", pattern, plen && pattern[plen - 1] == '/' ? "" : "/",
                    e->d_name);
            if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode))
                oom = !list_add(&l, full);
            free(full);
        }
        closedir(d);
    } else {
        glob_t g;
        int rc = glob(pattern, 0, NULL, &g);
        if (rc == GLOB_NOMATCH) {
            if (!strpbrk(pattern, "*?["))
                return gip__error(NULL, GIP_ERR_NOT_FOUND,
                                  "%s: '%s' is neither a folder nor a pattern that matches files",
                                  op, pattern);
            return GIP_OK;
        }
        if (rc != 0)
            return gip__error(NULL, rc == GLOB_NOSPACE ? GIP_ERR_OUT_OF_MEMORY : GIP_ERR_IO,
                              "%s: cannot expand '%s'", op, pattern);
        for (size_t i = 0; !oom && i < g.gl_pathc; i++)
            if (stat(g.gl_pathv[i], &sb) == 0 && S_ISREG(sb.st_mode))
                oom = !list_add(&l, g.gl_pathv[i]);
        globfree(&g);
    }
    if (oom) {
        gip_batch_free_list(l.v, l.n);
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    if (l.n)
        qsort(l.v, (size_t)l.n, sizeof *l.v, cmp_str);
    *paths = l.v;
    *count = l.n;
    return GIP_OK;
}

/* Orders input indices by output name, then by index. */
static int cmp_out(const void *a, const void *b, void *u)
{
    char **outs = u;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int c = strcmp(outs[x], outs[y]);
    return c ? c : (x > y) - (x < y);
}

gip_status gip__batch_make_outputs(engine *e, const char *out_dir)
{
    static const char *const ext_of[] = {
        [GIP_FORMAT_JPEG] = "jpg", [GIP_FORMAT_PNG] = "png", [GIP_FORMAT_PNM] = "pnm"};
    size_t dlen = strlen(out_dir);
    for (int64_t i = 0; i < e->n; i++) {
        const char *in = e->inputs[i];
        const char *base = strrchr(in, '/');
        base = base ? base + 1 : in;
        const char *dot = strrchr(base, '.');
        size_t blen = dot && dot != base ? (size_t)(dot - base) : strlen(base);
        const char *ext = "png";
        if (e->o->format) {
            ext = ext_of[e->o->format];
        } else if (dot && image_ext(base)) {
            ext = dot + 1;
        }
        size_t len = dlen + blen + strlen(ext) + 3;
        if (!(e->outs[i] = malloc(len)))
            return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
        snprintf(e->outs[i], len, "%s%s%.*s.%s", out_dir,
                 dlen && out_dir[dlen - 1] == '/' ? "" : "/", (int)blen, base, ext);
    }
    /* Collisions: sort indices by name; every repeat after the first is refused. */
    int64_t *idx = malloc((size_t)(e->n ? e->n : 1) * sizeof *idx);
    if (!idx)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "batch: out of memory");
    for (int64_t i = 0; i < e->n; i++)
        idx[i] = i;
    char **outs = e->outs;
    qsort_r(idx, (size_t)e->n, sizeof *idx, cmp_out, outs);
    for (int64_t k = 1; k < e->n; k++) {
        int64_t j = k;
        while (j > 0 && strcmp(outs[idx[j - 1]], outs[idx[k]]) == 0)
            j--;
        if (j != k)
            e->collision[idx[k]] = (char *)e->inputs[idx[j]];
    }
    free(idx);
    return GIP_OK;
}

/* The format of an output path (gip__batch_make_outputs gave it one of these extensions). */
gip_format gip__batch_output_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    return !dot                                                            ? GIP_FORMAT_PNM
           : strcasecmp(dot, ".png") == 0                                  ? GIP_FORMAT_PNG
           : strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0 ? GIP_FORMAT_JPEG
                                                                           : GIP_FORMAT_PNM;
}
