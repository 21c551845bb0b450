/* SPDX-License-Identifier: MIT */
/* Included before every source of a manylinux_2_28 build (GIP_GLIBC_COMPAT): glibc 2.33 made
 * stat, fstat and lstat real functions (stat@GLIBC_2.33), which glibc 2.28 does not have; there
 * they are inline wrappers over __xstat, __fxstat and __lxstat, which every x86_64 glibc still
 * exports under GLIBC_2.2.5. The calls go to those instead, so the objects run on glibc 2.28 and
 * on the glibc they were built with alike. The other symbols newer than 2.28 that a build here
 * references (pthread_*, dl*, sem_*, shm_*, log, exp, pow, __libc_start_main) kept their names
 * and meaning and only moved between libraries or versions; packaging/manylinux.py relaxes those
 * in the finished files. */
#ifndef GIP_PACKAGING_GLIBC_COMPAT_H
#define GIP_PACKAGING_GLIBC_COMPAT_H

#include <features.h>

#if defined(__linux__) && defined(__x86_64__) && defined(__GLIBC__) &&                           \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif
/* _STAT_VER_LINUX (1) on x86_64: the kernel's struct stat, which is glibc's. */
extern int __xstat(int, const char *, struct stat *);
extern int __fxstat(int, int, struct stat *);
extern int __lxstat(int, const char *, struct stat *);
__asm__(".symver __xstat,__xstat@GLIBC_2.2.5");
__asm__(".symver __fxstat,__fxstat@GLIBC_2.2.5");
__asm__(".symver __lxstat,__lxstat@GLIBC_2.2.5");
#ifdef __cplusplus
}
#endif

static inline int gip__compat_stat(const char *path, struct stat *buf)
{
    return __xstat(1, path, buf);
}
static inline int gip__compat_fstat(int fd, struct stat *buf)
{
    return __fxstat(1, fd, buf);
}
static inline int gip__compat_lstat(const char *path, struct stat *buf)
{
    return __lxstat(1, path, buf);
}
/* Function-like, so `struct stat` is left alone. */
#define stat(path, buf) gip__compat_stat(path, buf)
#define fstat(fd, buf) gip__compat_fstat(fd, buf)
#define lstat(path, buf) gip__compat_lstat(path, buf)
#endif

#endif
