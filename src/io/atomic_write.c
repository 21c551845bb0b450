/* SPDX-License-Identifier: MIT */
/* Atomic file replacement for gip_image_save(): write a temporary file next to the destination,
 * fsync it, rename it over the destination; on any failure remove it and leave the destination
 * as it was. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io_internal.h"

/* Opens a new file "<path>.XXXXXX.tmp" exclusively (mkstemp's pattern), created with mode 0666
 * so that the process umask applies as for any new file (mkstemp would force 0600). */
static int open_temp(const char *path, char *tmp, size_t tmp_size)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static atomic_uint_fast64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t z = seed + 0x9E3779B97F4A7C15ull * (atomic_fetch_add(&counter, 1) + 1);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        char suffix[7];
        for (int i = 0; i < 6; i++, z /= 62)
            suffix[i] = alphabet[z % 62];
        suffix[6] = '\0';
        snprintf(tmp, tmp_size, "%s.%s.tmp", path, suffix);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* The folder part of path ("." when there is none), for messages and the directory fsync. */
static void folder_of(const char *path, char *dir, size_t dir_size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, dir_size, ".");
    else if (slash == path)
        snprintf(dir, dir_size, "/");
    else
        snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
}

gip_status gip__atomic_write(const char *op, const char *path, const void *data, size_t size)
{
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode))
        return gip__error(NULL, GIP_ERR_IO, "%s: '%s' is a directory; give a file path", op, path);
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    size_t tmp_size = strlen(path) + 16;
    char *tmp = malloc(tmp_size);
    if (!tmp)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    gip_status st = GIP_OK;
    int fd = open_temp(path, tmp, tmp_size);
    if (fd < 0) {
        st = gip__error(NULL, GIP_ERR_IO,
                        "%s: cannot create a file in folder '%s' to write '%s': %s", op, dir, path,
                        strerror(errno));
        goto out_free_tmp;
    }
    /* A replaced file keeps its permission bits. */
    if (exists && S_ISREG(sb.st_mode))
        (void)fchmod(fd, sb.st_mode & 07777);
    const uint8_t *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            st = gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s' (writing '%s'): %s", op, path,
                            tmp, strerror(errno));
            goto out_close;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s' (fsync of '%s'): %s", op, path,
                        tmp, strerror(errno));
        goto out_close;
    }
    int rc = close(fd);
    fd = -1;
    if (rc != 0) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s' (closing '%s'): %s", op, path, tmp,
                        strerror(errno));
        goto out_unlink;
    }
    if (rename(tmp, path) != 0) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot replace '%s' (rename from '%s'): %s", op,
                        path, tmp, strerror(errno));
        goto out_unlink;
    }
    /* Make the rename itself durable; failure here loses nothing already visible. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(tmp);
    return GIP_OK;

out_close:
    if (fd >= 0)
        close(fd);
out_unlink:
    unlink(tmp);
out_free_tmp:
    free(tmp);
    return st;
}
