/* SPDX-License-Identifier: MIT */
/* Output files that appear only complete, for gip_image_save(), the row streams and the batch
 * engine: the bytes go to an unnamed file (O_TMPFILE) in the destination folder, or where the file
 * system lacks it to a locked temporary "PATH.gip.tmp" that the next write of PATH removes if a
 * killed run left it; the file gets its name only when complete. New files get 0666 & ~umask,
 * replaced ones keep their permission bits, and a read-only file is replaced only on request. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "io_internal.h"
#include "tuning.h"

/* Temporary names of one output: "PATH.gip.tmp", then "PATH.gip-1.tmp" .. "PATH.gip-7.tmp" when
 * that one is held by another live writer of the same output. */
#define TMP_SLOTS 8

static void slot_name(const char *path, int slot, char *buf, size_t size)
{
    if (slot == 0)
        snprintf(buf, size, "%s.gip.tmp", path);
    else
        snprintf(buf, size, "%s.gip-%d.tmp", path, slot);
}

/* The folder part of path ("." when there is none), for O_TMPFILE, messages and the fsync. */
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

/* Removes `name` when it is a temporary file that no live writer holds: writers keep an exclusive
 * flock on their temporary until it is renamed, and the kernel drops that lock when a writer dies,
 * even by SIGKILL. Returns true when the name is free now. */
static bool remove_stale(const char *name)
{
    int fd = open(name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) /* a leftover of a read-only replacement */
        fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    struct stat a, b;
    bool removed = false;
    if (fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        lstat(name, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        removed = unlink(name) == 0;
    close(fd);
    return removed;
}

/* Claims one of the temporary names of f->path for f, removing stale ones left by killed runs:
 * claim(f, name) returns a result >= 0 when it took `name`, -1 with errno when it could not
 * (EEXIST: the name exists), or -2 when the name went away under it and is worth another try.
 * The name goes to f->tmp. Returns claim's result, or -1 with errno (EBUSY when live writers
 * hold every name). */
static int claim_temp_name(gip__outfile *f, int (*claim)(gip__outfile *f, const char *name))
{
    size_t size = strlen(f->path) + 16;
    char *name = malloc(size);
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    for (int slot = 0; slot < TMP_SLOTS; slot++) {
        slot_name(f->path, slot, name, size);
        for (int attempt = 0; attempt < 4; attempt++) {
            int r = claim(f, name);
            if (r >= 0) {
                f->tmp = name;
                return r;
            }
            if (r == -2)
                continue;
            if (errno != EEXIST) {
                free(name);
                return -1;
            }
            if (!remove_stale(name))
                break; /* a live writer holds this slot */
        }
    }
    free(name);
    errno = EBUSY;
    return -1;
}

/* Creates and locks the file `name`: its descriptor, -1 with errno, or -2 when a cleaner removed
 * the name between the create and the lock. */
static int create_locked(gip__outfile *f, const char *name)
{
    (void)f;
    int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    struct stat a, b;
    (void)flock(fd, LOCK_EX);
    if (fstat(fd, &a) == 0 && lstat(name, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return fd;
    close(fd);
    return -2;
}

/* Creates and locks a named temporary for `path`; the name goes to f->tmp. -1 with errno when
 * none could be made. */
static int open_named(gip__outfile *f)
{
    return claim_temp_name(f, create_locked);
}

/* Non-zero when the permission bits keep the caller from writing `sb`'s file: a read-only output,
 * which cp would refuse to write into and rm would ask about. For root, only a file without any
 * write bit counts. */
static bool read_only(const char *path, const struct stat *sb)
{
    if (geteuid() == 0)
        return (sb->st_mode & 0222) == 0;
    return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0 && errno == EACCES;
}

static gip_status refuse_existing(gip__outfile *f, const struct stat *sb)
{
    f->existed = true;
    if (f->flags & GIP__OUT_NO_REPLACE)
        return gip__error(NULL, GIP_ERR_IO, "%s: '%s' exists (use overwrite)", f->op, f->path);
    return gip__error(NULL, GIP_ERR_IO,
                      "%s: '%s' is read-only (mode %04o): it is replaced only with overwrite",
                      f->op, f->path, (unsigned)(sb->st_mode & 07777));
}

/* GIP_OK when an existing `path` may be replaced under f's flags; sets f->existed, f->mode. */
static gip_status check_existing(gip__outfile *f)
{
    struct stat sb;
    if (stat(f->path, &sb) != 0)
        return GIP_OK;
    if (S_ISDIR(sb.st_mode))
        return gip__error(NULL, GIP_ERR_IO, "%s: '%s' is a directory; give a file path", f->op,
                          f->path);
    if (f->flags & GIP__OUT_NO_REPLACE)
        return refuse_existing(f, &sb);
    if (S_ISREG(sb.st_mode)) {
        if (!(f->flags & GIP__OUT_OVERWRITE) && read_only(f->path, &sb))
            return refuse_existing(f, &sb);
        f->replacing = true;
        f->mode = sb.st_mode & 07777;
    }
    return GIP_OK;
}

void gip__outfile_abort(gip__outfile *f)
{
    if (f->fd >= 0) {
        if (f->tmp)
            unlink(f->tmp);
        close(f->fd);
        f->fd = -1;
    }
    free(f->tmp);
    free(f->path);
    f->tmp = f->path = NULL;
}

gip_status gip__outfile_open(const char *op, const char *path, unsigned flags, gip__outfile *f)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->op = op;
    f->flags = flags;
    if (!(f->path = strdup(path)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    gip_status st = check_existing(f);
    if (st)
        goto out_abort;
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    /* Leftovers of killed runs writing this output go first, whichever way this run writes. */
    size_t size = strlen(path) + 16;
    char *name = malloc(size);
    if (!name) {
        st = gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto out_abort;
    }
    for (int slot = 0; slot < TMP_SLOTS; slot++) {
        slot_name(path, slot, name, size);
        (void)remove_stale(name);
    }
    free(name);
    /* O_TMPFILE needs /proc/self/fd to give the file its name later. GIP_NO_TMPFILE=1 takes
     * the named temporary of file systems without O_TMPFILE, so that tests reach it. */
    if (!gip__tuning_get()->no_tmpfile && access("/proc/self/fd", X_OK) == 0)
        f->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (f->fd >= 0) {
        (void)flock(f->fd, LOCK_EX);
    } else if ((f->fd = open_named(f)) < 0) {
        st = gip__error(NULL, GIP_ERR_IO,
                        "%s: cannot create a file in folder '%s' to write '%s': %s", op, dir, path,
                        errno == EBUSY ? "every temporary name is held by another writer"
                                       : strerror(errno));
        goto out_abort;
    }
    if (f->replacing)
        (void)fchmod(f->fd, f->mode);
    return GIP_OK;

out_abort:
    gip__outfile_abort(f);
    return st;
}

/* Gives the unnamed file (O_TMPFILE) the name `name`. */
static int link_unnamed(int fd, const char *name)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

static int link_unnamed_claim(gip__outfile *f, const char *name)
{
    return link_unnamed(f->fd, name);
}

/* Gives the unnamed file a temporary name (f->tmp), for the rename over an existing file. It is
 * locked already, so no other writer's cleanup takes it for a leftover. -1 with errno. */
static int link_unnamed_temp(gip__outfile *f)
{
    return claim_temp_name(f, link_unnamed_claim);
}

/* Names the complete file: f->path, replacing an existing file where the flags allow it. */
static gip_status name_file(gip__outfile *f)
{
    struct stat sb;
    if (!f->tmp) {
        if (!f->replacing) {
            if (link_unnamed(f->fd, f->path) == 0)
                return GIP_OK;
            if (errno != EEXIST)
                return gip__error(NULL, GIP_ERR_IO, "%s: cannot create '%s': %s", f->op, f->path,
                                  strerror(errno));
            /* The output appeared since the open: the flags decide again. */
            if (stat(f->path, &sb) == 0 && ((f->flags & GIP__OUT_NO_REPLACE) ||
                                            (!(f->flags & GIP__OUT_OVERWRITE) &&
                                             S_ISREG(sb.st_mode) && read_only(f->path, &sb))))
                return refuse_existing(f, &sb);
        }
        if (link_unnamed_temp(f) != 0)
            return gip__error(NULL, GIP_ERR_IO, "%s: cannot replace '%s': %s", f->op, f->path,
                              errno == EBUSY ? "every temporary name is held by another writer"
                                             : strerror(errno));
    } else if (f->flags & GIP__OUT_NO_REPLACE) {
        /* link() never replaces; file systems without hard links fall back to check + rename. */
        if (link(f->tmp, f->path) == 0) {
            unlink(f->tmp);
            return GIP_OK;
        }
        if (errno == EEXIST || stat(f->path, &sb) == 0) {
            (void)stat(f->path, &sb);
            return refuse_existing(f, &sb);
        }
    }
    if (rename(f->tmp, f->path) != 0)
        return gip__error(NULL, GIP_ERR_IO, "%s: cannot replace '%s' (rename from '%s'): %s", f->op,
                          f->path, f->tmp, strerror(errno));
    free(f->tmp);
    f->tmp = NULL; /* named now: nothing for an abort to remove */
    return GIP_OK;
}

gip_status gip__outfile_commit(gip__outfile *f)
{
    gip_status st = GIP_OK;
    if (fsync(f->fd) != 0)
        st = gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s' (fsync): %s", f->op, f->path,
                        strerror(errno));
    else
        st = name_file(f);
    if (st) {
        gip__outfile_abort(f);
        return st;
    }
    /* Make the name durable; failure here loses nothing already visible. */
    char dir[4096];
    folder_of(f->path, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    int rc = close(f->fd);
    f->fd = -1;
    free(f->tmp);
    free(f->path);
    f->tmp = f->path = NULL;
    (void)rc; /* the data were fsync'd before the name was given */
    return GIP_OK;
}

gip_status gip__atomic_write(const char *op, const char *path, const void *data, size_t size,
                             unsigned flags, bool *existed)
{
    gip__outfile f;
    if (existed)
        *existed = false;
    gip_status st = gip__outfile_open(op, path, flags, &f);
    if (st) {
        if (existed)
            *existed = f.existed;
        return st;
    }
    const uint8_t *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t w = write(f.fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            st = gip__error(NULL, GIP_ERR_IO, "%s: cannot write '%s': %s", op, path,
                            strerror(errno));
            gip__outfile_abort(&f);
            return st;
        }
        p += w;
        left -= (size_t)w;
    }
    bool was = false;
    st = gip__outfile_commit(&f);
    was = f.existed;
    if (existed)
        *existed = was;
    return st;
}
