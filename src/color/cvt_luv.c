/* SPDX-License-Identifier: MIT */
/* The table of u8 RGB to Luv (cvt_space.h, gip__luv_from_rgb_u8), built once per process as
 * OpenCV's initLabTabs builds its RGB2LuvLUT_s16: per grid point the sRGB gamma in double, then
 * single-precision steps in OpenCV's order with its cube root. OpenCV computes them with its
 * software floating point (softfloat), whose basic operations are IEEE's: the same here with
 * the hardware's, no step contracted into a multiply-add. Its cube root is not IEEE's: a
 * rational approximation whose result is truncated to single precision, another float than the
 * correctly rounded one for about half of all inputs. With a correctly rounded cube root 19 of
 * the table's 107811 entries differ (173 u8 colours convert differently), with every step in
 * double precision 82: OpenCV's cube root is written out below, and no entry needs a hand fix
 * (it also gives Lab's cube-root table, cvt_lab_tables.h, with the two entries fixed there). The
 * gamma values come from the C library's pow: the 33 of them lie at least 3e-9 (relative) from a
 * float's rounding point, so OpenCV's own pow rounds to the same floats. With this table gip's
 * u8 RGB to Luv equals cv2 5.1 on every u8 colour. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "color/cvt_space.h"

static int16_t luv_lut[GIP__LUV_LUT_SIZE];
static pthread_once_t luv_once = PTHREAD_ONCE_INIT;

/* OpenCV's cube root of a positive normal float (softfloat's f32_cbrt, K. Turkowski's): the
 * significand scaled into [1/8, 1) by a power of 8, a quartic rational approximation of its
 * cube root in double, whose top 23 fraction bits (truncated) make the result's, the exponent
 * divided by 3. */
static float luv_cbrt(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    int ex = (int)((bits >> 23) & 0xFF) - 127;
    int sh = ex % 3; /* C's remainder, the sign of ex: -3 .. -1 after the step below */
    sh -= sh >= 0 ? 3 : 0;
    ex = (ex - sh) / 3 - 1;
    uint64_t fb = ((uint64_t)(sh + 1023) << 52) | ((uint64_t)(bits & 0x7FFFFF) << 29);
    double f;
    memcpy(&f, &fb, sizeof f);
    f = ((((45.2548339756803022511987494 * f + 192.2798368355061050458134625) * f +
           119.1654824285581628956914143) *
              f +
          13.43250139086239872172837314) *
             f +
         0.1636161226585754240958355063) /
        ((((14.80884093219134573786480845 * f + 151.9714051044435648658557668) * f +
           168.5254414101568283957668343) *
              f +
          33.9905941350215598754191872) *
             f +
         1.0);
    memcpy(&fb, &f, sizeof fb);
    bits = (bits & 0x80000000u) | ((uint32_t)(ex + 127) << 23) |
           (uint32_t)((fb & 0xFFFFFFFFFFFFFull) >> 29);
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* The linear light of i / 32 (the sRGB transfer function in double, rounded to float). */
static float luv_gamma(int i)
{
    const double c = (double)((float)i / 32.0f);
    return (float)(c <= 809.0 / 20000.0 ? c / (323.0 / 25.0)
                                        : pow((c + 11.0 / 200.0) / (1.0 + 11.0 / 200.0), 2.4));
}

static void luv_build(void)
{
    /* sRGB2XYZ_D65, rows X, Y, Z and columns R, G, B, rounded to float */
    static const double m[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160,
                                0.072169, 0.019334, 0.119193, 0.950227};
    float c[9];
    for (int i = 0; i < 9; i++)
        c[i] = (float)m[i];
    /* 13 u'n and 13 v'n of the white (as gip__rgb_from_luv_u8's): 52 Xn and 117 times
     * 1 / (Xn + 15 + 3 Zn) */
    const float dd = 1.0f / (float)(0.950456 + 15.0 + 1.088754 * 3.0);
    const float un = dd * 52.0f * (float)0.950456, vn = dd * 117.0f;
    const float thresh = 216.0f / 24389.0f, slope = 841.0f / 108.0f, bias = 16.0f / 116.0f;
    float lin[GIP__LUV_DIM];
    for (int i = 0; i < GIP__LUV_DIM; i++)
        lin[i] = luv_gamma(i);
    for (int r = 0; r < GIP__LUV_DIM; r++)
        for (int g = 0; g < GIP__LUV_DIM; g++)
            for (int b = 0; b < GIP__LUV_DIM; b++) {
                const float R = lin[r], G = lin[g], B = lin[b];
                /* blue's term first, as OpenCV's table sums them */
                const float X = B * c[2] + G * c[1] + R * c[0];
                const float Y = B * c[5] + G * c[4] + R * c[3];
                const float Z = B * c[8] + G * c[7] + R * c[6];
                float L = Y < thresh ? fmaf(Y, slope, bias) : luv_cbrt(Y);
                L = L * 116.0f - 16.0f;
                float s = X + 15.0f * Y + 3.0f * Z;
                s = s > 0x1p-23f ? s : 0x1p-23f; /* FLT_EPSILON */
                const float d = 52.0f / s;
                const float u = L * (X * d - un);
                const float v = L * (2.25f * Y * d - vn);
                int16_t *e = luv_lut + 3 * (b + GIP__LUV_DIM * (g + GIP__LUV_DIM * r));
                e[0] = (int16_t)lrintf(16384.0f * L / 100.0f);
                e[1] = (int16_t)lrintf(16384.0f * (u + 134.0f) / 354.0f);
                e[2] = (int16_t)lrintf(16384.0f * (v + 140.0f) / 262.0f);
            }
}

const int16_t *gip__luv_lut(void)
{
    pthread_once(&luv_once, luv_build);
    return luv_lut;
}
