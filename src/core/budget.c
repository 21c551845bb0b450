/* SPDX-License-Identifier: MIT */
/* The default bound on the host memory of whole-image work: the GIP_MAX_MEMORY environment
 * variable, else a quarter of the memory the process may use (physical memory, or a lower cgroup
 * limit). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "gip/io.h"

/* A limit from a cgroup file ("max" or a byte count); 0 when there is none. */
static int64_t cgroup_limit(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char buf[64] = {0};
    int64_t v = 0;
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (!gip_parse_bytes(buf, &v))
            v = 0;
    }
    fclose(f);
    return v;
}

/* Bytes of memory the process may use: physical memory, or a lower cgroup (v2 or v1) limit. */
static int64_t usable_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    int64_t phys = pages > 0 && size > 0 ? (int64_t)pages * size : 0;
    static const char *const files[] = {"/sys/fs/cgroup/memory.max",
                                        "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int64_t lim = cgroup_limit(files[i]);
        if (lim > 0 && (phys == 0 || lim < phys))
            phys = lim;
    }
    return phys;
}

const char *gip__max_memory_env(void)
{
    return getenv("GIP_MAX_MEMORY");
}

int64_t gip_default_max_memory(void)
{
    const char *env = gip__max_memory_env();
    if (env && *env) {
        int64_t v;
        return gip_parse_bytes(env, &v) ? v : -1;
    }
    int64_t m = usable_memory();
    return m > 0 ? m / 4 : (int64_t)1 << 30;
}
