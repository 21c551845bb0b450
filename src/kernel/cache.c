/* SPDX-License-Identifier: MIT */
/* The disk cache of compiled GPU code: FNV-1a keys, atomic writes, entries verified on every read
 * and rebuilt when anything does not match. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "module.h"

/* Entry layout: this header, the key material (key_len bytes), the payload (payload_len bytes).
 * The file size must be exactly their sum. Native byte order: an entry of another byte order
 * fails the version check and is rebuilt. */
#define CACHE_MAGIC "GIPKCACH"
#define CACHE_VERSION 1u
#define CACHE_MAX_FILE ((size_t)1 << 30)

typedef struct cache_header {
    char magic[8];
    uint32_t version;
    uint32_t kind;
    uint64_t key_hash;
    uint64_t key_len;
    uint64_t payload_len;
    uint64_t payload_hash;
    uint64_t header_hash; /* FNV-1a of the fields above */
} cache_header;

static int64_t stat_hits, stat_misses, stat_rejected, stat_stores, stat_store_failures;

static void count(int64_t *counter)
{
    __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

uint64_t gip__fnv1a64(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void gip_kernel_cache_stats(gip_cache_stats *out)
{
    if (!out)
        return;
    out->hits = __atomic_load_n(&stat_hits, __ATOMIC_RELAXED);
    out->misses = __atomic_load_n(&stat_misses, __ATOMIC_RELAXED);
    out->rejected = __atomic_load_n(&stat_rejected, __ATOMIC_RELAXED);
    out->stores = __atomic_load_n(&stat_stores, __ATOMIC_RELAXED);
    out->store_failures = __atomic_load_n(&stat_store_failures, __ATOMIC_RELAXED);
}

void gip_kernel_cache_stats_reset(void)
{
    __atomic_store_n(&stat_hits, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stat_misses, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stat_rejected, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stat_stores, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stat_store_failures, 0, __ATOMIC_RELAXED);
}

void gip__cache_count_miss(void)
{
    count(&stat_misses);
}

bool gip__cache_dir(char *buf, size_t size)
{
    const char *dir = getenv("GIP_CACHE_DIR");
    int n;
    if (dir && dir[0]) {
        n = snprintf(buf, size, "%s", dir);
    } else if ((dir = getenv("XDG_CACHE_HOME")) && dir[0]) {
        n = snprintf(buf, size, "%s/gip", dir);
    } else if ((dir = getenv("HOME")) && dir[0]) {
        n = snprintf(buf, size, "%s/.cache/gip", dir);
    } else {
        if (size)
            buf[0] = '\0';
        return false;
    }
    if (n < 0 || (size_t)n >= size) {
        if (size)
            buf[0] = '\0';
        return false;
    }
    return true;
}

gip_status gip_kernel_cache_dir(char *buf, size_t size)
{
    if (!buf || size == 0)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_kernel_cache_dir: buf is NULL");
    char tmp[4096];
    if (!gip__cache_dir(tmp, sizeof tmp)) {
        buf[0] = '\0';
        return GIP_OK;
    }
    if (strlen(tmp) >= size)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_kernel_cache_dir: buffer of %zu bytes is too small for %zu", size,
                          strlen(tmp) + 1);
    memcpy(buf, tmp, strlen(tmp) + 1);
    return GIP_OK;
}

/* mkdir -p; true when the folder exists afterwards. */
static bool make_dirs(char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *p = '/';
            return false;
        }
        *p = '/';
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return false;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool entry_path(char *buf, size_t size, uint64_t key_hash)
{
    char dir[4096];
    if (!gip__cache_dir(dir, sizeof dir))
        return false;
    int n = snprintf(buf, size, "%s/%016llx.gipk", dir, (unsigned long long)key_hash);
    return n > 0 && (size_t)n < size;
}

static uint64_t header_hash(const cache_header *h)
{
    return gip__fnv1a64(h, offsetof(cache_header, header_hash), GIP__FNV_OFFSET);
}

static bool read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool gip__cache_load(const char *key, size_t key_len, uint32_t kind, void **payload, size_t *len)
{
    uint64_t key_hash = gip__fnv1a64(key, key_len, GIP__FNV_OFFSET);
    char path[4200];
    if (!entry_path(path, sizeof path, key_hash))
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = false;
    char *key_buf = NULL;
    void *data = NULL;
    struct stat st;
    cache_header h;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof h ||
        (uint64_t)st.st_size > CACHE_MAX_FILE)
        goto out_close;
    if (!read_all(fd, &h, sizeof h))
        goto out_close;
    /* Every field is checked before anything else is read or trusted. */
    if (memcmp(h.magic, CACHE_MAGIC, 8) != 0 || h.version != CACHE_VERSION || h.kind != kind ||
        h.header_hash != header_hash(&h) || h.key_hash != key_hash || h.key_len != key_len ||
        h.payload_len == 0 || h.payload_len > CACHE_MAX_FILE ||
        (uint64_t)st.st_size != sizeof h + h.key_len + h.payload_len)
        goto out_close;
    key_buf = malloc(key_len ? key_len : 1);
    data = malloc(h.payload_len + 1);
    if (!key_buf || !data)
        goto out_close;
    if (!read_all(fd, key_buf, key_len) || memcmp(key_buf, key, key_len) != 0)
        goto out_close;
    if (!read_all(fd, data, h.payload_len) ||
        gip__fnv1a64(data, h.payload_len, GIP__FNV_OFFSET) != h.payload_hash)
        goto out_close;
    ((char *)data)[h.payload_len] = '\0'; /* PTX is loaded as a string */
    *payload = data;
    *len = h.payload_len;
    data = NULL;
    ok = true;
out_close:
    close(fd);
    free(key_buf);
    free(data);
    count(ok ? &stat_hits : &stat_rejected);
    return ok;
}

void gip__cache_store(const char *key, size_t key_len, uint32_t kind, const void *payload,
                      size_t len)
{
    static int serial;
    uint64_t key_hash = gip__fnv1a64(key, key_len, GIP__FNV_OFFSET);
    char dir[4096], path[4200], tmp[4300];
    if (!gip__cache_dir(dir, sizeof dir) || !make_dirs(dir) ||
        !entry_path(path, sizeof path, key_hash)) {
        count(&stat_store_failures);
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", path, (long)getpid(),
             __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        count(&stat_store_failures);
        return;
    }
    cache_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.version = CACHE_VERSION;
    h.kind = kind;
    h.key_hash = key_hash;
    h.key_len = key_len;
    h.payload_len = len;
    h.payload_hash = gip__fnv1a64(payload, len, GIP__FNV_OFFSET);
    h.header_hash = header_hash(&h);
    bool ok =
        write_all(fd, &h, sizeof h) && write_all(fd, key, key_len) && write_all(fd, payload, len);
    if (close(fd) != 0)
        ok = false;
    /* rename() replaces any older entry at once: readers see the old file or the new one. */
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok)
        unlink(tmp);
    count(ok ? &stat_stores : &stat_store_failures);
}
