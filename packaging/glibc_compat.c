/* SPDX-License-Identifier: MIT */
/* Part of the library in a manylinux_2_28 build (GIP_GLIBC_COMPAT): glibc 2.33 made stat, fstat
 * and lstat exported functions (stat@GLIBC_2.33), which glibc 2.28 does not have; there they are
 * inline wrappers over __xstat, __fxstat and __lxstat, which every x86_64 glibc still exports
 * under GLIBC_2.2.5. These hidden definitions take the library's calls, so that it runs on glibc
 * 2.28 and on the glibc it was built with alike. The other symbols newer than 2.28 that a build
 * here asks for (pthread_*, dl*, sem_*, shm_*, log, exp, pow) kept their names and meaning and
 * only moved between libraries or versions: packaging/glibc228.py relaxes them in the files. */
#include <sys/stat.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "GIP_GLIBC_COMPAT is for x86_64 Linux with glibc"
#endif

/* _STAT_VER_LINUX: the kernel's struct stat, which on x86_64 is glibc's. */
#define GIP__STAT_VER 1

extern int __xstat(int, const char *, struct stat *);
extern int __fxstat(int, int, struct stat *);
extern int __lxstat(int, const char *, struct stat *);
__asm__(".symver __xstat,__xstat@GLIBC_2.2.5");
__asm__(".symver __fxstat,__fxstat@GLIBC_2.2.5");
__asm__(".symver __lxstat,__lxstat@GLIBC_2.2.5");

__attribute__((visibility("hidden"))) int stat(const char *restrict path, struct stat *restrict buf)
{
    return __xstat(GIP__STAT_VER, path, buf);
}

__attribute__((visibility("hidden"))) int fstat(int fd, struct stat *buf)
{
    return __fxstat(GIP__STAT_VER, fd, buf);
}

__attribute__((visibility("hidden"))) int lstat(const char *restrict path,
                                                struct stat *restrict buf)
{
    return __lxstat(GIP__STAT_VER, path, buf);
}
