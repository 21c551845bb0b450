/* SPDX-License-Identifier: MIT */
/* The numbers gip reads as text, one grammar everywhere (pipelines, parameters, expressions, the
 * command line, the environment): decimal numbers and byte counts. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

double gip_strtod(const char *s, char **end)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    const char *digits = p;
    while (isdigit((unsigned char)*p))
        p++;
    bool whole = p > digits;
    if (*p == '.') {
        const char *frac = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        if (!whole && p == frac) {
            *end = (char *)s;
            return 0.0;
        }
    } else if (!whole) {
        *end = (char *)s;
        return 0.0;
    }
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-')
            q++;
        if (isdigit((unsigned char)*q)) {
            while (isdigit((unsigned char)*q))
                q++;
            p = q;
        }
    }
    *end = (char *)p;
    /* "0x..." would make strtod read a hex float past the scanned "0" (only a lone 0 can start
     * one: "10x" or "2.5x" stop where scanned). */
    if ((*p == 'x' || *p == 'X') && p - digits == 1 && *digits == '0')
        return *s == '-' ? -0.0 : 0.0;
    char *stop;
    double v = strtod(s, &stop);
    if (stop != p)
        *end = (char *)s;
    return v;
}

int32_t gip_parse_bytes(const char *s, int64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return 0;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    int shift = 0;
    if (*end) {
        static const char units[] = "kmgt";
        const char *u = strchr(units, *end | 0x20);
        const char *rest = end + 1;
        shift = u ? 10 * (int)(u - units + 1) : -1;
        if (*rest == 'i')
            rest++;
        if (*rest == 'B' || *rest == 'b')
            rest++;
        if (*rest)
            shift = -1;
    }
    if (errno || shift < 0 || v <= 0 || v > (INT64_MAX >> shift))
        return 0;
    *out = (int64_t)v << shift;
    return 1;
}
