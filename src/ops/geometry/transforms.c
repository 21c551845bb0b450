/* SPDX-License-Identifier: MIT */
/* The transform matrices as OpenCV computes them: getRotationMatrix2D, getAffineTransform,
 * getPerspectiveTransform (linear systems solved by LU with partial pivoting, in double) and
 * invertAffineTransform. */
#include <math.h>
#include <string.h>

#include "gip/geometry.h"
#include "internal.h"

void gip_get_rotation_matrix_2d(double cx, double cy, double angle, double scale, double m[6])
{
    if (!m)
        return;
    const double pi = 3.14159265358979323846;
    const double fx = (float)cx, fy = (float)cy; /* OpenCV's Point2f */
    angle *= pi / 180;
    const double alpha = cos(angle) * scale, beta = sin(angle) * scale;
    m[0] = alpha;
    m[1] = beta;
    m[2] = (1 - alpha) * fx - beta * fy;
    m[3] = -beta;
    m[4] = alpha;
    m[5] = beta * fx + (1 - alpha) * fy;
}

void gip_invert_affine_transform(const double m[6], double out[6])
{
    if (!m || !out)
        return;
    double d = m[0] * m[4] - m[1] * m[3];
    d = d != 0 ? 1. / d : 0;
    const double a11 = m[4] * d, a22 = m[0] * d, a12 = -m[1] * d, a21 = -m[3] * d;
    const double b1 = -a11 * m[2] - a12 * m[5];
    const double b2 = -a21 * m[2] - a22 * m[5];
    out[0] = a11;
    out[1] = a12;
    out[2] = b1;
    out[3] = a21;
    out[4] = a22;
    out[5] = b2;
}

/* Solves a x = b (n x n, row-major, both overwritten) by Gaussian elimination with partial
 * pivoting, as OpenCV's LU; 0 when singular. */
static int solve(double *a, double *b, int n)
{
    for (int i = 0; i < n; i++) {
        int k = i;
        for (int j = i + 1; j < n; j++)
            if (fabs(a[j * n + i]) > fabs(a[k * n + i]))
                k = j;
        if (fabs(a[k * n + i]) < 2.220446049250313e-16 * 10)
            return 0;
        if (k != i) {
            for (int j = i; j < n; j++) {
                const double t = a[i * n + j];
                a[i * n + j] = a[k * n + j];
                a[k * n + j] = t;
            }
            const double t = b[i];
            b[i] = b[k];
            b[k] = t;
        }
        const double d = -1 / a[i * n + i];
        for (int j = i + 1; j < n; j++) {
            const double alpha = a[j * n + i] * d;
            for (int c = i + 1; c < n; c++)
                a[j * n + c] += alpha * a[i * n + c];
            b[j] += alpha * b[i];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < n; k++)
            s -= a[i * n + k] * b[k];
        b[i] = s / a[i * n + i];
    }
    return 1;
}

gip_status gip_get_affine_transform(const double src[6], const double dst[6], double m[6])
{
    static const char op[] = "gip_get_affine_transform";
    if (!src || !dst || !m)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: src, dst and m must not be NULL",
                          op);
    double a[36] = {0}, b[6];
    for (int i = 0; i < 3; i++) {
        const double x = (float)src[2 * i], y = (float)src[2 * i + 1];
        const int j = i * 12, k = i * 12 + 6;
        a[j] = a[k + 3] = x;
        a[j + 1] = a[k + 4] = y;
        a[j + 2] = a[k + 5] = 1;
        b[i * 2] = (float)dst[2 * i];
        b[i * 2 + 1] = (float)dst[2 * i + 1];
    }
    if (!solve(a, b, 6)) {
        memset(m, 0, 6 * sizeof *m);
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: the source points are collinear",
                          op);
    }
    memcpy(m, b, 6 * sizeof *m);
    return GIP_OK;
}

gip_status gip_get_perspective_transform(const double src[8], const double dst[8], double m[9])
{
    static const char op[] = "gip_get_perspective_transform";
    if (!src || !dst || !m)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: src, dst and m must not be NULL",
                          op);
    double a[64] = {0}, b[8];
    for (int i = 0; i < 4; i++) {
        const float sx = (float)src[2 * i], sy = (float)src[2 * i + 1];
        const float dx = (float)dst[2 * i], dy = (float)dst[2 * i + 1];
        a[i * 8 + 0] = a[(i + 4) * 8 + 3] = sx;
        a[i * 8 + 1] = a[(i + 4) * 8 + 4] = sy;
        a[i * 8 + 2] = a[(i + 4) * 8 + 5] = 1;
        a[i * 8 + 6] = -sx * dx; /* float products, as OpenCV's Point2f arithmetic */
        a[i * 8 + 7] = -sy * dx;
        a[(i + 4) * 8 + 6] = -sx * dy;
        a[(i + 4) * 8 + 7] = -sy * dy;
        b[i] = dx;
        b[i + 4] = dy;
    }
    if (!solve(a, b, 8)) {
        memset(m, 0, 9 * sizeof *m);
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: the points are degenerate", op);
    }
    memcpy(m, b, 8 * sizeof *m);
    m[8] = 1;
    return GIP_OK;
}
