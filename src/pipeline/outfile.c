/* SPDX-License-Identifier: MIT */
/* Crash-safe output files for the batch engine: the bytes go to an unnamed file (O_TMPFILE) in the
 * destination folder and get a name only when complete, so even SIGKILL leaves no partial and no
 * temporary file behind (a named temporary would survive a kill). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io/io_internal.h"
#include "pipeline_internal.h"

static const char op[] = "batch";

static void folder_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

static gip_status write_all(int fd, const char *path, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s': %s", op, path,
                              strerror(errno));
        p += w;
        size -= (size_t)w;
    }
    if (fsync(fd) != 0)
        return gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s' (fsync): %s", op, path,
                          strerror(errno));
    return GIP_OK;
}

gip_status gip__write_output(const char *path, const void *data, size_t size, bool overwrite,
                             bool *existed)
{
    *existed = false;
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
            return gip__error(NULL, GIP_ERR_IO, "%s: cannot create a file in folder '%s': %s", op,
                              dir, strerror(errno));
        /* No O_TMPFILE here: the named temporary + rename of gip_image_save(). */
        struct stat sb;
        if (!overwrite && stat(path, &sb) == 0) {
            *existed = true;
            return gip__error(NULL, GIP_ERR_IO, "%s: '%s' exists (use overwrite)", op, path);
        }
        return gip__atomic_write(op, path, data, size);
    }
    gip_status st = write_all(fd, path, data, size);
    if (st)
        goto out_close;
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
        goto out_close;
    if (errno != EEXIST) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot create '%s': %s", op, path, strerror(errno));
        goto out_close;
    }
    if (!overwrite) {
        *existed = true;
        st = gip__error(NULL, GIP_ERR_IO, "%s: '%s' exists (use overwrite)", op, path);
        goto out_close;
    }
    /* Replace: give the complete file a temporary name, then rename it over the old one; only
     * this instant between link and rename could leave a named temporary behind a kill. */
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp) {
        st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto out_close;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(tmp, tlen, "%s.%x%lx.tmp", path, (unsigned)getpid(), (unsigned long)ts.tv_nsec);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) != 0)
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot create '%s': %s", op, tmp, strerror(errno));
    else if (rename(tmp, path) != 0) {
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot replace '%s': %s", op, path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
out_close:
    close(fd);
    return st;
}
