/* SPDX-License-Identifier: MIT */
/* Tests of gip_cvt_color's colour spaces (HSV, HLS, YCrCb, YUV, XYZ, Lab, Luv both ways),
 * gip_yuv_to_rgb gip_rgb_to_yuv and gip_bayer_to_rgb: against double-precision references of the
 * formulas (u8 within the one level OpenCV's fixed point rounds away, f32 within 2e-6 relative; cv2
 * itself is the bit-exact reference of python/tests/test_colorops.py), round trips, the camera
 * formats against their integer rules written here, CUDA equal to the CPU bit for bit, and bad
 * input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color/cvt_color_cpu.h"
#include "color/cvt_space.h"
#include "testing.h"

static gip_context *cpu_ctx; /* the CUDA run's reference */

/* Double-precision colour spaces of r, g, b in 0..1 (hue in degrees), and back. */
static void ref_forward(int space, double r, double g, double b, double *o)
{
    /* OpenCV adds FLT_EPSILON to the divisors of its f32 HSV (a u8 input has no such term to
     * speak of at the test's tolerance) */
    const double eps = 1.1920928955078125e-07;
    double v = fmax(r, fmax(g, b)), m = fmin(r, fmin(g, b)), d = v - m, h = 0;
    double k = 60 / (d + (space == 0 ? eps : 0));
    if (d > 0)
        h = v == r ? (g - b) * k : v == g ? 120 + (b - r) * k : 240 + (r - g) * k;
    if (h < 0)
        h += 360;
    double y = 0.299 * r + 0.587 * g + 0.114 * b;
    switch (space) {
    case 0: /* HSV */
        o[0] = h, o[1] = d / (fabs(v) + eps), o[2] = v;
        return;
    case 1: { /* HLS */
        double l = (v + m) / 2;
        o[0] = h, o[1] = l, o[2] = d > 0 ? (l < 0.5 ? d / (v + m) : d / (2 - v - m)) : 0;
        return;
    }
    case 2: /* YCrCb */
        o[0] = y, o[1] = (r - y) * 0.713 + 0.5, o[2] = (b - y) * 0.564 + 0.5;
        return;
    case 3: /* YUV */
        o[0] = y, o[1] = (b - y) * 0.492 + 0.5, o[2] = (r - y) * 0.877 + 0.5;
        return;
    default:
        o[0] = 0.412453 * r + 0.357580 * g + 0.180423 * b;
        o[1] = 0.212671 * r + 0.715160 * g + 0.072169 * b;
        o[2] = 0.019334 * r + 0.119193 * g + 0.950227 * b;
        return;
    }
}

static void ref_inverse(int space, const double *s, double *rgb)
{
    switch (space) {
    case 0:
    case 1: {
        double h = fmod(s[0], 360) / 60, c, x, m;
        if (space == 0) {
            c = s[2] * s[1];
            m = s[2] - c;
        } else {
            c = (1 - fabs(2 * s[1] - 1)) * s[2];
            m = s[1] - c / 2;
        }
        x = c * (1 - fabs(fmod(h, 2) - 1));
        int k = (int)floor(h) % 6;
        double r[6] = {c, x, 0, 0, x, c}, g[6] = {x, c, c, x, 0, 0}, b[6] = {0, 0, x, c, c, x};
        rgb[0] = r[k] + m, rgb[1] = g[k] + m, rgb[2] = b[k] + m;
        return;
    }
    case 2:
        rgb[0] = s[0] + 1.403 * (s[1] - 0.5);
        rgb[1] = s[0] - 0.714 * (s[1] - 0.5) - 0.344 * (s[2] - 0.5);
        rgb[2] = s[0] + 1.773 * (s[2] - 0.5);
        return;
    case 3:
        rgb[0] = s[0] + 1.140 * (s[2] - 0.5);
        rgb[1] = s[0] - 0.395 * (s[1] - 0.5) - 0.581 * (s[2] - 0.5);
        rgb[2] = s[0] + 2.032 * (s[1] - 0.5);
        return;
    default:
        rgb[0] = 3.240479 * s[0] - 1.53715 * s[1] - 0.498535 * s[2];
        rgb[1] = -0.969256 * s[0] + 1.875991 * s[1] + 0.041556 * s[2];
        rgb[2] = 0.055648 * s[0] - 0.204043 * s[1] + 1.057311 * s[2];
        return;
    }
}

/* The codes of space k (0 HSV, 1 HLS, 2 YCrCb, 3 YUV, 4 XYZ): BGR2X, RGB2X, X2BGR, X2RGB. */
static gip_color_code code_of(int space, int form)
{
    static const int base[5] = {GIP_COLOR_BGR2HSV, GIP_COLOR_BGR2HLS, GIP_COLOR_BGR2YCRCB,
                                GIP_COLOR_BGR2YUV, GIP_COLOR_BGR2XYZ};
    return (gip_color_code)(base[space] + form);
}

/* Runs the conversion on ctx; on a CUDA context, also on the CPU, and requires equal bits. */
static gip_status run_both(gip_context *ctx, const gip_image *src, gip_image *dst,
                           gip_color_code code, const char *label)
{
    gip_status st = GIP_OK;
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_cvt_color(ctx, src, dst, code);
    gip_image ds = {0}, dd = {0}, ref;
    gt_alloc(&ref, dst->width, dst->height, dst->channels, dst->dtype, 0);
    if ((st = gip_image_alloc(ctx, &ds, src->width, src->height, src->channels, src->dtype,
                              GIP_MEM_CUDA, 0)) ||
        (st = gip_image_alloc(ctx, &dd, dst->width, dst->height, dst->channels, dst->dtype,
                              GIP_MEM_CUDA, 0)) ||
        (st = gip_upload(ctx, src, &ds)) || (st = gip_cvt_color(ctx, &ds, &dd, code)) ||
        (st = gip_download(ctx, &dd, dst)) || (st = gip_context_sync(ctx)))
        goto out;
    /* CUDA equals the CPU bit for bit; f32 Lab and Luv within 2e-6 relative (both compute in
     * double, but CUDA's pow and cbrt are not glibc's: where their doubles straddle a float's
     * rounding point the floats are an ulp apart) */
    const bool cie =
        dst->dtype == GIP_F32 && code >= GIP_COLOR_BGR2LAB && code <= GIP_COLOR_LUV2RGB;
    if (GT_OK(gip_cvt_color(cpu_ctx, src, &ref, code)))
        gt_compare(dst, &ref, cie ? 2e-6 : 0, cie ? 2e-6 : 0, label);
out:
    gip_image_free(ctx, &ds);
    gip_image_free(ctx, &dd);
    gt_free(&ref);
    return st;
}

static double hue_diff(double a, double b, double period)
{
    double d = fabs(a - b);
    return fmin(d, period - d);
}

static void spaces(gip_context *ctx)
{
    uint64_t seed = 70;
    for (int si = 0; si < gt_nsizes; si++)
        for (int sp = 0; sp < 5; sp++)
            for (int f32 = 0; f32 < 2; f32++)
                for (int form = 0; form < 4; form++) {
                    gt_size sz = gt_sizes[si];
                    const bool inverse = form >= 2, rgb_order = form & 1;
                    const gip_dtype dt = f32 ? GIP_F32 : GIP_U8;
                    const int32_t cn = !inverse && form == 1 && sp == 2 ? 4 : 3;
                    gip_image src, dst;
                    gt_alloc(&src, sz.w, sz.h, cn, dt, 5);
                    gt_alloc(&dst, sz.w, sz.h, 3, dt, 3);
                    gt_fill_random(&src, seed++, 0, 1);
                    if (inverse && (sp == 0 || sp == 1)) /* a valid hue */
                        for (int64_t y = 0; y < sz.h; y++)
                            for (int64_t x = 0; x < sz.w; x++)
                                gt_set(&src, x, y, 0,
                                       f32 ? gt_get(&src, x, y, 0) * 360
                                           : fmod(gt_get(&src, x, y, 0), 180));
                    char label[128];
                    snprintf(label, sizeof label, "space %d form %d %s %lldx%lld", sp, form,
                             f32 ? "f32" : "u8", (long long)sz.w, (long long)sz.h);
                    if (!GT_OK(run_both(ctx, &src, &dst, code_of(sp, form), label))) {
                        gt_free(&src);
                        gt_free(&dst);
                        continue;
                    }
                    const double k = f32 ? 1 : 255; /* u8 scale of the 0..1 channels */
                    double worst = 0;
                    int64_t wx = 0, wy = 0;
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++) {
                            double in[3], want[3], got[3];
                            for (int c = 0; c < 3; c++) {
                                in[c] = gt_get(&src, x, y, c);
                                got[c] = gt_get(&dst, x, y, c);
                            }
                            double err = 0;
                            if (!inverse) {
                                double r = in[rgb_order ? 0 : 2] / k, g = in[1] / k,
                                       b = in[rgb_order ? 2 : 0] / k;
                                ref_forward(sp, r, g, b, want);
                                for (int c = 0; c < 3; c++) {
                                    bool hue = c == 0 && sp < 2;
                                    double w = hue ? (f32 ? want[0] : want[0] / 2) : want[c] * k;
                                    if (!f32 && c > 0 && (sp == 2 || sp == 3))
                                        w += 0.5; /* the chroma offset is 128, not 127.5 */
                                    if (!f32 && !hue)
                                        w = fmin(255, fmax(0, w)); /* saturated */
                                    double e = hue ? hue_diff(got[0], w, f32 ? 360 : 180)
                                                   : fabs(got[c] - w);
                                    /* f32 hue: times the colour's span max - min, its
                                     * conditioning (grays have no hue to speak of) */
                                    if (hue && f32)
                                        e *= fmax(r, fmax(g, b)) - fmin(r, fmin(g, b));
                                    /* f32: relative, hue in degrees; u8: levels */
                                    err = fmax(err, f32 ? e / fmax(1, fabs(w)) : e);
                                }
                            } else {
                                double s[3] = {sp < 2 ? (f32 ? in[0] : in[0] * 2) : in[0] / k,
                                               in[1] / k, in[2] / k};
                                if (!f32 && (sp == 2 || sp == 3)) /* chroma offset 128 */
                                    s[1] = (in[1] - 128) / k + 0.5, s[2] = (in[2] - 128) / k + 0.5;
                                ref_inverse(sp, s, want);
                                for (int c = 0; c < 3; c++) {
                                    double w = want[rgb_order ? c : 2 - c] * k;
                                    if (!f32)
                                        w = fmin(255, fmax(0, w));
                                    err = fmax(err, f32 ? fabs(got[c] - w) / fmax(1, fabs(w))
                                                        : fabs(got[c] - w));
                                }
                            }
                            if (err > worst)
                                worst = err, wx = x, wy = y;
                        }
                    /* u8: 1 level (the rounding itself, OpenCV's 12- and 14-bit coefficients,
                     * and the rounded Y that Cr/Cb and U/V are taken from), 1.5 for HSV to RGB,
                     * which OpenCV's vector code truncates; f32: 1e-5 relative (single-precision
                     * steps; hue in degrees, where it is well defined). */
                    double tol = f32 ? 1e-5 : sp == 0 && inverse ? 1.5 : 1.0;
                    GT_CHECK(worst <= tol,
                             "%s: %g off the double-precision formula at (%lld, %lld)", label,
                             worst, (long long)wx, (long long)wy);
                    GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    gt_free(&src);
                    gt_free(&dst);
                }
}

/* BGR -> space -> BGR on u8: back within OpenCV's own error (YCrCb, YUV: 2 levels; XYZ: 3). */
static void round_trips(gip_context *ctx)
{
    gip_image src, mid, back;
    gt_alloc(&src, 301, 97, 3, GIP_U8, 0);
    gt_alloc(&mid, 301, 97, 3, GIP_U8, 0);
    gt_alloc(&back, 301, 97, 3, GIP_U8, 0);
    gt_fill_random(&src, 5, 0, 0);
    static const int sp[3] = {2, 3, 4};
    static const double tol[3] = {2, 2, 3};
    for (int k = 0; k < 3; k++) {
        /* YUV and XYZ cannot hold every RGB colour in 8 bits: keep to mid-range colours */
        for (int64_t y = 0; y < 97; y++)
            for (int64_t x = 0; x < 301; x++)
                for (int c = 0; c < 3; c++)
                    gt_set(&src, x, y, c, 64 + fmod(gt_get(&src, x, y, c), 128));
        if (GT_OK(run_both(ctx, &src, &mid, code_of(sp[k], 0), "round trip there")) &&
            GT_OK(run_both(ctx, &mid, &back, code_of(sp[k], 2), "round trip back"))) {
            double worst = 0;
            for (int64_t y = 0; y < 97; y++)
                for (int64_t x = 0; x < 301; x++)
                    for (int c = 0; c < 3; c++)
                        worst = fmax(worst, fabs(gt_get(&back, x, y, c) - gt_get(&src, x, y, c)));
            GT_CHECK(worst <= tol[k], "round trip through space %d: %g levels off", sp[k], worst);
        }
    }
    gt_free(&src);
    gt_free(&mid);
    gt_free(&back);
}

typedef struct cam_args {
    int yuv;
    int32_t layout, bgr;
} cam_args;

static gip_status run_cam(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const cam_args *a = p;
    /* yuv: 1 a YUV frame, 0 a Bayer mosaic (bilinear), 2 a Bayer mosaic (edge-aware) */
    if (a->yuv == 2)
        return gip_bayer_to_rgb_ea(ctx, s, d, (gip_bayer_pattern)a->layout, a->bgr);
    return a->yuv ? gip_yuv_to_rgb(ctx, s, d, (gip_yuv_layout)a->layout, a->bgr)
                  : gip_bayer_to_rgb(ctx, s, d, (gip_bayer_pattern)a->layout, a->bgr);
}

static int sat8(int v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* The frames' BT.601 integer rule, written from the formula: 20-bit coefficients of 1.164,
 * 1.596, 0.391, 0.813 and 2.018. */
static void yuv_frames(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{2, 2}, {36, 24}, {98, 6}, {640, 482}, {4, 2}};
    const double k = 1 << 20;
    const int cy = (int)lround(1.164 * k), cvr = (int)lround(1.596 * k),
              cug = -(int)lround(0.391 * k), cvg = -(int)lround(0.813 * k),
              cub = (int)lround(2.018 * k);
    /* al: odd row paddings and BGR out, or 16-byte aligned rows and RGB out (the CUDA
     * backend's NV12/NV21 path of four columns a thread) */
    for (int s = 0; s < 5; s++)
        for (int lay = GIP_YUV_NV12; lay <= GIP_YUV_YVYU; lay++)
            for (int dcn = 1; dcn <= 4; dcn += (dcn == 1 ? 2 : 1))
                for (int al = 0; al < 2; al++) {
                    const int64_t w = sizes[s][0], h = sizes[s][1];
                    const bool packed = lay >= GIP_YUV_YUY2;
                    gip_image src, dst, exp;
                    const int64_t sw = packed ? 2 * w : w;
                    gt_alloc(&src, sw, packed ? h : h * 3 / 2, 1, GIP_U8,
                             al ? gt_pad16(sw, 1, GIP_U8) : 4);
                    gt_alloc(&dst, w, h, dcn, GIP_U8, al ? gt_pad16(w, dcn, GIP_U8) : 2);
                    gt_alloc(&exp, w, h, dcn, GIP_U8, 0);
                    gt_fill_random(&src, (uint64_t)(s * 10 + lay), 0, 0);
                    for (int64_t y = 0; y < h; y++)
                        for (int64_t x = 0; x < w; x++) {
                            int Y, U, V;
                            if (packed) {
                                int64_t b0 = (x & ~1) * 2;
                                int q[4];
                                for (int i = 0; i < 4; i++)
                                    q[i] = (int)gt_get(&src, b0 + i, y, 0);
                                Y = lay == GIP_YUV_UYVY ? q[1 + 2 * (x & 1)] : q[2 * (x & 1)];
                                U = lay == GIP_YUV_UYVY ? q[0] : lay == GIP_YUV_YUY2 ? q[1] : q[3];
                                V = lay == GIP_YUV_UYVY ? q[2] : lay == GIP_YUV_YUY2 ? q[3] : q[1];
                            } else {
                                Y = (int)gt_get(&src, x, y, 0);
                                if (lay <= GIP_YUV_NV21) {
                                    int a = (int)gt_get(&src, x & ~1, h + y / 2, 0);
                                    int b = (int)gt_get(&src, (x & ~1) + 1, h + y / 2, 0);
                                    U = lay == GIP_YUV_NV12 ? a : b;
                                    V = lay == GIP_YUV_NV12 ? b : a;
                                } else {
                                    /* planar: the chroma planes as contiguous w/2-wide rows */
                                    int64_t iu = (y / 2) * (w / 2) + x / 2,
                                            iv = iu + (w / 2) * (h / 2);
                                    if (lay == GIP_YUV_YV12) {
                                        int64_t t = iu;
                                        iu = iv, iv = t;
                                    }
                                    U = (int)gt_get(&src, iu % w, h + iu / w, 0);
                                    V = (int)gt_get(&src, iv % w, h + iv / w, 0);
                                }
                            }
                            int yy = (Y > 16 ? Y - 16 : 0) * cy, half = 1 << 19;
                            int r = sat8((yy + half + cvr * (V - 128)) >> 20);
                            int g = sat8((yy + half + cvg * (V - 128) + cug * (U - 128)) >> 20);
                            int b = sat8((yy + half + cub * (U - 128)) >> 20);
                            if (dcn == 1) {
                                gt_set(&exp, x, y, 0, Y);
                            } else {
                                gt_set(&exp, x, y, 0, al ? r : b), gt_set(&exp, x, y, 1, g);
                                gt_set(&exp, x, y, 2, al ? b : r);
                                if (dcn == 4)
                                    gt_set(&exp, x, y, 3, 255);
                            }
                        }
                    cam_args a = {1, lay, !al};
                    char label[96];
                    snprintf(label, sizeof label, "yuv layout %d %lldx%lld c%d%s", lay,
                             (long long)w, (long long)h, dcn, al ? " aligned rows, RGB" : "");
                    if (GT_OK(gt_run_unary(ctx, run_cam, &src, &dst, &a, 0x3C))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
}

typedef struct std_args {
    int32_t layout;
    gip_yuv_params yp;
} std_args;

static gip_status run_std(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const std_args *a = p;
    return gip_yuv_to_rgb_ex(ctx, s, d, (gip_yuv_layout)a->layout, 1, &a->yp);
}

/* BT.709 and full range against the standards' matrices in double precision: within half a
 * level plus the 20-bit coefficients' rounding (the fixed point rounds halves up). */
static void yuv_standards(gip_context *ctx)
{
    static const double kr[2] = {0.299, 0.2126}, kb[2] = {0.114, 0.0722};
    for (int std = 0; std < 2; std++)
        for (int full = 0; full < 2; full++)
            for (int li = 0; li < 2; li++) {
                const int lay = li ? GIP_YUV_YUY2 : GIP_YUV_NV12;
                if (std == 0 && !full)
                    continue; /* cv2's: yuv_frames */
                const int64_t w = 98, h = 36;
                const bool packed = lay == GIP_YUV_YUY2;
                gip_image src, dst;
                gt_alloc(&src, packed ? 2 * w : w, packed ? h : h * 3 / 2, 1, GIP_U8, 4);
                gt_alloc(&dst, w, h, 3, GIP_U8, 2);
                gt_fill_random(&src, (uint64_t)(std * 4 + full * 2 + lay), 0, 0);
                std_args a = {lay, {(gip_yuv_standard)std, full}};
                char label[64];
                snprintf(label, sizeof label, "yuv standard %d full %d layout %d", std, full, lay);
                if (!GT_OK(gt_run_unary(ctx, run_std, &src, &dst, &a, 0x3C))) {
                    gt_free(&src);
                    gt_free(&dst);
                    continue;
                }
                const double kg = 1 - kr[std] - kb[std];
                const double sy = full ? 1 : 255.0 / 219, sc = full ? 1 : 255.0 / 224;
                double worst = 0;
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++) {
                        double Y, U, V;
                        if (packed) {
                            const int64_t q = (x & ~1) * 2;
                            Y = gt_get(&src, q + 2 * (x & 1), y, 0);
                            U = gt_get(&src, q + 1, y, 0);
                            V = gt_get(&src, q + 3, y, 0);
                        } else {
                            Y = gt_get(&src, x, y, 0);
                            U = gt_get(&src, x & ~1, h + y / 2, 0);
                            V = gt_get(&src, (x & ~1) + 1, h + y / 2, 0);
                        }
                        const double yy = full ? Y : fmax(Y - 16, 0);
                        const double u = (U - 128) * sc, v = (V - 128) * sc;
                        const double r = yy * sy + 2 * (1 - kr[std]) * v;
                        const double b = yy * sy + 2 * (1 - kb[std]) * u;
                        const double g = (yy * sy - kr[std] * r - kb[std] * b) / kg;
                        const double want[3] = {b, g, r};
                        for (int c = 0; c < 3; c++)
                            worst = fmax(worst,
                                         fabs(gt_get(&dst, x, y, c) - fmin(255, fmax(0, want[c]))));
                    }
                GT_CHECK(worst <= 0.5 + 1e-3, "%s: %g levels off the matrix", label, worst);
                gt_free(&src);
                gt_free(&dst);
            }
    gip_image frame, dst;
    gt_alloc(&frame, 20, 15, 1, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_U8, 0);
    gip_yuv_params bad = {(gip_yuv_standard)2, 0}, badr = {GIP_YUV_BT709, 2};
    GT_STATUS(gip_yuv_to_rgb_ex(ctx, &frame, &dst, GIP_YUV_NV12, 1, &bad),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_yuv_to_rgb_ex(ctx, &frame, &dst, GIP_YUV_NV12, 1, &badr),
              GIP_ERR_INVALID_ARGUMENT);
    gt_free(&frame);
    gt_free(&dst);
}

typedef struct std_enc_args {
    int32_t layout;
    gip_yuv_params yp;
} std_enc_args;

static gip_status run_std_enc(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const std_enc_args *a = p;
    return gip_rgb_to_yuv_ex(ctx, s, d, (gip_yuv_layout)a->layout, 1, &a->yp);
}

/* Encoding with BT.709 and full range against the standards' matrices in double precision:
 * within half a level plus the fixed-point coefficients' rounding (NV12: each 2x2 block's chroma
 * from its top-left pixel; YUY2: from the mean of each pair). */
static void yuv_encode_standards(gip_context *ctx)
{
    static const double kr[2] = {0.299, 0.2126}, kb[2] = {0.114, 0.0722};
    for (int std = 0; std < 2; std++)
        for (int full = 0; full < 2; full++)
            for (int li = 0; li < 2; li++) {
                if (std == 0 && !full)
                    continue; /* cv2's: yuv_encode, yuv_encode_more */
                const int lay = li ? GIP_YUV_YUY2 : GIP_YUV_NV12;
                const int64_t w = 98, h = 36;
                const bool packed = lay == GIP_YUV_YUY2;
                gip_image src, dst;
                gt_alloc(&src, w, h, 3, GIP_U8, 4);
                gt_alloc(&dst, packed ? 2 * w : w, packed ? h : h * 3 / 2, 1, GIP_U8, 2);
                gt_fill_random(&src, (uint64_t)(40 + std * 4 + full * 2 + li), 0, 0);
                std_enc_args a = {lay, {(gip_yuv_standard)std, full}};
                char label[64];
                snprintf(label, sizeof label, "yuv encode standard %d full %d layout %d", std, full,
                         lay);
                if (!GT_OK(gt_run_unary(ctx, run_std_enc, &src, &dst, &a, 0x3C))) {
                    gt_free(&src);
                    gt_free(&dst);
                    continue;
                }
                const double kg = 1 - kr[std] - kb[std];
                const double sy = full ? 1 : 219.0 / 255, sc = full ? 1 : 224.0 / 255;
                const double yo = full ? 0 : 16;
                double worst = 0;
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++) {
                        double px[2][3]; /* b, g, r of x and of the pixel sharing its chroma */
                        const int64_t x0 = x & ~1;
                        for (int c = 0; c < 3; c++) {
                            px[0][c] = gt_get(&src, x, y, c);
                            px[1][c] =
                                packed ? (gt_get(&src, x0, y, c) + gt_get(&src, x0 + 1, y, c)) / 2
                                       : gt_get(&src, x0, y & ~1, c);
                        }
                        double Y = kr[std] * px[0][2] + kg * px[0][1] + kb[std] * px[0][0];
                        double Yc = kr[std] * px[1][2] + kg * px[1][1] + kb[std] * px[1][0];
                        double U = (px[1][0] - Yc) / (2 * (1 - kb[std])) * sc + 128;
                        double V = (px[1][2] - Yc) / (2 * (1 - kr[std])) * sc + 128;
                        double gy, gu, gv;
                        if (packed) {
                            gy = gt_get(&dst, x0 * 2 + 2 * (x & 1), y, 0);
                            gu = gt_get(&dst, x0 * 2 + 1, y, 0);
                            gv = gt_get(&dst, x0 * 2 + 3, y, 0);
                        } else {
                            gy = gt_get(&dst, x, y, 0);
                            gu = gt_get(&dst, x0, h + y / 2, 0);
                            gv = gt_get(&dst, x0 + 1, h + y / 2, 0);
                        }
                        const double want[3] = {Y * sy + yo, U, V}, got[3] = {gy, gu, gv};
                        for (int c = 0; c < 3; c++)
                            worst = fmax(worst, fabs(got[c] - fmin(255, fmax(0, want[c]))));
                    }
                /* half a level of rounding, plus the coefficients' own: 3 x 255 x 2^-21 in
                 * 20 bits (4:2:0), 3 x 510 x 2^-14 in 4:2:2's 13-bit chroma */
                const double tol = 0.5 + (packed ? 3 * 510.0 / 16384 : 3 * 255.0 / 2097152);
                GT_CHECK(worst <= tol, "%s: %g levels off the matrix", label, worst);
                gt_free(&src);
                gt_free(&dst);
            }
    gip_image img, f;
    gt_alloc(&img, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&f, 20, 15, 1, GIP_U8, 0);
    gip_yuv_params bad = {(gip_yuv_standard)2, 0};
    GT_STATUS(gip_rgb_to_yuv_ex(ctx, &img, &f, GIP_YUV_NV12, 1, &bad), GIP_ERR_INVALID_ARGUMENT);
    gt_free(&img);
    gt_free(&f);
}

typedef struct enc_args {
    int32_t layout, bgr;
} enc_args;

static gip_status run_enc(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    const enc_args *a = p;
    return gip_rgb_to_yuv(ctx, s, d, (gip_yuv_layout)a->layout, a->bgr);
}

/* RGB to planar 4:2:0: BT.601 limited range, coefficients 0.257, 0.504, 0.098 (Y), -0.148,
 * -0.291, 0.439 (U), 0.439, -0.368, -0.071 (V) in 20 bits (truncated), chroma from each block's
 * top-left pixel; the U and V planes as half rows after Y. */
static void yuv_encode(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{2, 2}, {36, 24}, {98, 6}, {64, 482}};
    /* OpenCV's ITUR_BT_601_C* constants (0.257 .. 0.071 times 2^20, as it rounds them) */
    const int cy[3] = {269484, 528482, 102760};
    const int cu[3] = {-155188, -305135, 460324};
    const int cv[3] = {460324, -385875, -74448};
    for (int s = 0; s < 4; s++)
        for (int lay = GIP_YUV_I420; lay <= GIP_YUV_YV12; lay++)
            for (int cn = 3; cn <= 4; cn++) {
                const int64_t w = sizes[s][0], h = sizes[s][1];
                gip_image src, dst, exp;
                gt_alloc(&src, w, h, cn, GIP_U8, 5);
                gt_alloc(&dst, w, h * 3 / 2, 1, GIP_U8, 3);
                gt_alloc(&exp, w, h * 3 / 2, 1, GIP_U8, 0);
                gt_fill_random(&src, (uint64_t)(s * 5 + lay + cn), 0, 0);
                uint8_t *e = exp.data; /* tight: the chroma planes are contiguous after Y */
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++) {
                        int b = (int)gt_get(&src, x, y, 0), g = (int)gt_get(&src, x, y, 1),
                            r = (int)gt_get(&src, x, y, 2);
                        int Y = (cy[0] * r + cy[1] * g + cy[2] * b + (1 << 19) + (16 << 20)) >> 20;
                        e[y * w + x] = (uint8_t)sat8(Y);
                        if (x % 2 || y % 2)
                            continue;
                        int U = (cu[0] * r + cu[1] * g + cu[2] * b + (1 << 19) + (128 << 20)) >> 20;
                        int V = (cv[0] * r + cv[1] * g + cv[2] * b + (1 << 19) + (128 << 20)) >> 20;
                        int64_t i = (y / 2) * (w / 2) + x / 2, plane = (w / 2) * (h / 2);
                        e[w * h + i + (lay == GIP_YUV_I420 ? 0 : plane)] = (uint8_t)sat8(U);
                        e[w * h + i + (lay == GIP_YUV_I420 ? plane : 0)] = (uint8_t)sat8(V);
                    }
                enc_args a = {lay, 1};
                char label[96];
                snprintf(label, sizeof label, "yuv encode layout %d %lldx%lld c%d", lay,
                         (long long)w, (long long)h, cn);
                if (GT_OK(gt_run_unary(ctx, run_enc, &src, &dst, &a, 0x3C)))
                    gt_compare(&dst, &exp, 0, 0, label);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
    gip_image odd, f;
    gt_alloc(&odd, 35, 24, 3, GIP_U8, 0);
    gt_alloc(&f, 35, 36, 1, GIP_U8, 0);
    GT_STATUS(gip_rgb_to_yuv(ctx, &odd, &f, GIP_YUV_I420, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_rgb_to_yuv(ctx, &odd, &f, GIP_YUV_NV12, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_rgb_to_yuv(ctx, &odd, &f, (gip_yuv_layout)7, 1), GIP_ERR_INVALID_ARGUMENT);
    gt_free(&odd);
    gt_free(&f);
}

/* RGB to NV12/NV21 (the I420 bytes, U and V interleaved) and to packed 4:2:2 (BT.601 limited
 * range in 14 bits: Y from 0.257, 0.504, 0.098 scaled by 219/256 * 256 / 219 as OpenCV writes
 * them, U and V from the sum of each pair with half of the 0.439, 0.291, 0.148, 0.368, 0.071
 * coefficients), each layout's byte order written out here. */
static void yuv_encode_more(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{2, 2}, {36, 24}, {98, 6}, {64, 482}, {2, 1}, {14, 3}};
    const int cy[3] = {269484, 528482, 102760};
    const int cu[3] = {-155188, -305135, 460324};
    const int cv[3] = {460324, -385875, -74448};
    /* OpenCV's RGB2YUV422 constants: round(c * 2^14) of the Y weights scaled to 16..235 and
     * round(c * 2^13) of the chroma weights (half: they apply to the sum of two pixels) */
    const int y4[3] = {4211, 8258, 1606};
    const int u4[3] = {(int)lround(-0.148 * 8192), (int)lround(-0.291 * 8192),
                       (int)lround(0.439 * 8192)};
    const int v4[3] = {(int)lround(0.439 * 8192), (int)lround(-0.368 * 8192),
                       (int)lround(-0.071 * 8192)};
    for (int s = 0; s < 6; s++)
        for (int lay = GIP_YUV_NV12; lay <= GIP_YUV_YVYU; lay++)
            for (int cn = 3; cn <= 4; cn++) {
                if (lay == GIP_YUV_I420 || lay == GIP_YUV_YV12)
                    continue; /* yuv_encode's */
                const int64_t w = sizes[s][0], h = sizes[s][1];
                const bool packed = lay >= GIP_YUV_YUY2;
                if (!packed && h % 2)
                    continue;
                const int64_t fw = packed ? 2 * w : w, fh = packed ? h : h * 3 / 2;
                const int bgr = cn == 3;
                gip_image src, dst, exp;
                gt_alloc(&src, w, h, cn, GIP_U8, 5);
                gt_alloc(&dst, fw, fh, 1, GIP_U8, 3);
                gt_alloc(&exp, fw, fh, 1, GIP_U8, 0);
                gt_fill_random(&src, (uint64_t)(s * 11 + lay * 3 + cn), 0, 0);
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++) {
                        int b = (int)gt_get(&src, x, y, bgr ? 0 : 2),
                            g = (int)gt_get(&src, x, y, 1),
                            r = (int)gt_get(&src, x, y, bgr ? 2 : 0);
                        if (packed) {
                            int Y =
                                (y4[0] * r + y4[1] * g + y4[2] * b + (1 << 13) + (16 << 14)) >> 14;
                            /* Y0 at byte 0 (YUY2, YVYU) or 1 (UYVY) of the pair, Y1 two on */
                            int64_t at = (x & ~1) * 2 + (lay == GIP_YUV_UYVY) + 2 * (x & 1);
                            gt_set(&exp, at, y, 0, sat8(Y));
                            if (x & 1) {
                                int r0 = (int)gt_get(&src, x - 1, y, bgr ? 2 : 0),
                                    g0 = (int)gt_get(&src, x - 1, y, 1),
                                    b0 = (int)gt_get(&src, x - 1, y, bgr ? 0 : 2);
                                int sr = r + r0, sg = g + g0, sb = b + b0;
                                int U = (u4[0] * sr + u4[1] * sg + u4[2] * sb + (1 << 13) +
                                         (128 << 14)) >>
                                        14;
                                int V = (v4[0] * sr + v4[1] * sg + v4[2] * sb + (1 << 13) +
                                         (128 << 14)) >>
                                        14;
                                int64_t q = (x & ~1) * 2;
                                int64_t ua = lay == GIP_YUV_UYVY ? 0 : lay == GIP_YUV_YUY2 ? 1 : 3;
                                int64_t va = lay == GIP_YUV_UYVY ? 2 : lay == GIP_YUV_YUY2 ? 3 : 1;
                                gt_set(&exp, q + ua, y, 0, sat8(U));
                                gt_set(&exp, q + va, y, 0, sat8(V));
                            }
                            continue;
                        }
                        int Y = (cy[0] * r + cy[1] * g + cy[2] * b + (1 << 19) + (16 << 20)) >> 20;
                        gt_set(&exp, x, y, 0, sat8(Y));
                        if (x % 2 || y % 2)
                            continue;
                        int U = (cu[0] * r + cu[1] * g + cu[2] * b + (1 << 19) + (128 << 20)) >> 20;
                        int V = (cv[0] * r + cv[1] * g + cv[2] * b + (1 << 19) + (128 << 20)) >> 20;
                        const bool nv12 = lay == GIP_YUV_NV12;
                        gt_set(&exp, x + (nv12 ? 0 : 1), h + y / 2, 0, sat8(U));
                        gt_set(&exp, x + (nv12 ? 1 : 0), h + y / 2, 0, sat8(V));
                    }
                enc_args a = {lay, bgr};
                char label[96];
                snprintf(label, sizeof label, "yuv encode layout %d %lldx%lld c%d", lay,
                         (long long)w, (long long)h, cn);
                if (GT_OK(gt_run_unary(ctx, run_enc, &src, &dst, &a, 0x3C))) {
                    gt_compare(&dst, &exp, 0, 0, label);
                    GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                }
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
    gip_image odd, f, g;
    gt_alloc(&odd, 35, 4, 3, GIP_U8, 0);
    gt_alloc(&f, 70, 4, 1, GIP_U8, 0);
    gt_alloc(&g, 35, 4, 1, GIP_U8, 0);
    GT_STATUS(gip_rgb_to_yuv(ctx, &odd, &f, GIP_YUV_YUY2, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_rgb_to_yuv(ctx, &odd, &g, GIP_YUV_UYVY, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_rgb_to_yuv(ctx, &f, &odd, GIP_YUV_YVYU, 1), GIP_ERR_UNSUPPORTED);
    gt_free(&odd);
    gt_free(&f);
    gt_free(&g);
}

/* u16 YCrCb, YUV and XYZ both ways: OpenCV's integer rule with coefficients rounded here from the
 * formulas' constants (14 bits for YCrCb and YUV, 12 for XYZ), chroma offset 32768. */
static void spaces_u16(gip_context *ctx)
{
    static const double fy[3] = {0.299, 0.587, 0.114};
    static const double fc[4] = {0.713, 0.564, 0.877, 0.492}; /* Cr, Cb, V, U */
    static const double ic[2][5] = {{1.403, -0.714, -0.344, 1.773, 0},
                                    {1.140, -0.581, -0.395, 2.032, 0}}; /* R, G(c1/c2), B */
    static const double fx[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160,
                                 0.072169, 0.019334, 0.119193, 0.950227};
    static const double ix[9] = {3.240479, -1.53715, -0.498535, -0.969256, 1.875991,
                                 0.041556, 0.055648, -0.204043, 1.057311};
    uint64_t seed = 300;
    for (int si = 0; si < gt_nsizes; si++)
        for (int sp = 2; sp < 5; sp++)
            for (int form = 0; form < 4; form++) {
                gt_size sz = gt_sizes[si];
                const bool inverse = form >= 2, rgb_order = form & 1;
                const int32_t scn = !inverse && form == 1 ? 4 : 3, dcn = form == 3 ? 4 : 3;
                gip_image src, dst, exp;
                gt_alloc(&src, sz.w, sz.h, scn, GIP_U16, 6);
                gt_alloc(&dst, sz.w, sz.h, dcn, GIP_U16, 2);
                gt_alloc(&exp, sz.w, sz.h, dcn, GIP_U16, 0);
                gt_fill_random(&src, seed++, 0, 0);
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++) {
                        long in[3], out[3];
                        for (int c = 0; c < 3; c++)
                            in[c] = (long)gt_get(&src, x, y, c);
                        const int sh = sp == 4 ? 12 : 14;
                        const long half = 1L << (sh - 1);
                        if (sp == 4) {
                            /* XYZ from R, G, B or R, G, B from X, Y, Z */
                            long a0 = inverse ? in[0] : in[rgb_order ? 0 : 2], a1 = in[1],
                                 a2 = inverse ? in[2] : in[rgb_order ? 2 : 0];
                            const double *m = inverse ? ix : fx;
                            for (int i = 0; i < 3; i++)
                                out[i] = (a0 * lround(m[3 * i] * 4096) +
                                          a1 * lround(m[3 * i + 1] * 4096) +
                                          a2 * lround(m[3 * i + 2] * 4096) + half) >>
                                         sh;
                        } else if (!inverse) {
                            long r = in[rgb_order ? 0 : 2], g = in[1], b = in[rgb_order ? 2 : 0];
                            long Y = (r * lround(fy[0] * 16384) + g * lround(fy[1] * 16384) +
                                      b * lround(fy[2] * 16384) + half) >>
                                     sh;
                            const bool yuv = sp == 3;
                            long d1 = yuv ? b - Y : r - Y, d2 = yuv ? r - Y : b - Y;
                            out[0] = Y;
                            out[1] =
                                (d1 * lround(fc[yuv ? 3 : 0] * 16384) + (32768L << sh) + half) >>
                                sh;
                            out[2] =
                                (d2 * lround(fc[yuv ? 2 : 1] * 16384) + (32768L << sh) + half) >>
                                sh;
                        } else {
                            /* YCrCb: c1 = Cr, c2 = Cb; YUV: c1 = U, c2 = V */
                            const bool yuv = sp == 3;
                            long cr = yuv ? in[2] - 32768 : in[1] - 32768;
                            long cb = yuv ? in[1] - 32768 : in[2] - 32768;
                            const double *k = ic[yuv];
                            out[0] = in[0] + ((cr * lround(k[0] * 16384) + half) >> sh);
                            out[1] =
                                in[0] +
                                ((cr * lround(k[1] * 16384) + cb * lround(k[2] * 16384) + half) >>
                                 sh);
                            out[2] = in[0] + ((cb * lround(k[3] * 16384) + half) >> sh);
                        }
                        for (int c = 0; c < 3; c++) {
                            long v = out[c] < 0 ? 0 : out[c] > 65535 ? 65535 : out[c];
                            /* inverse: R, G, B to the destination's order */
                            int at = inverse ? (c == 1 ? 1 : (rgb_order ? c : 2 - c)) : c;
                            gt_set(&exp, x, y, at, (double)v);
                        }
                        if (dcn == 4)
                            gt_set(&exp, x, y, 3, 65535);
                    }
                char label[96];
                snprintf(label, sizeof label, "u16 space %d form %d %lldx%lld", sp, form,
                         (long long)sz.w, (long long)sz.h);
                if (GT_OK(run_both(ctx, &src, &dst, code_of(sp, form), label))) {
                    gt_compare(&dst, &exp, 0, 0, label);
                    GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                }
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
    gip_image u16;
    gt_alloc(&u16, 9, 5, 3, GIP_U16, 0);
    GT_STATUS(gip_cvt_color(ctx, &u16, &u16, GIP_COLOR_BGR2HLS), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &u16, &u16, GIP_COLOR_BGR2LAB), GIP_ERR_UNSUPPORTED);
    gt_free(&u16);
}

/* Bilinear demosaicing from the pattern's colours, written per site. */
static void bayer(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{13, 42},  {3, 3}, {2, 7}, {100, 3},
                                       {333, 77}, {8, 5}, {9, 4}};
    for (int s = 0; s < 7; s++)
        for (int pat = GIP_BAYER_BG; pat <= GIP_BAYER_GR; pat++)
            for (int u16 = 0; u16 < 12; u16++) {
                /* u16 & 1: u16; u16 & 2: edge-aware; al = u16 / 4: BGR into rows of odd padding,
                 * RGB into 16-byte aligned rows, BGRA into aligned rows (the last two: the CUDA
                 * backend's path of four pixels a thread) */
                const int ea = (u16 >> 1) & 1, al = u16 >> 2, dcn = al == 2 ? 4 : 3;
                if (ea && dcn == 4) /* edge-aware gives 3 channels, as OpenCV's _EA codes */
                    continue;
                const int64_t w = sizes[s][0], h = sizes[s][1];
                const gip_dtype dt = (u16 & 1) ? GIP_U16 : GIP_U8;
                gip_image src, dst, exp;
                gt_alloc(&src, w, h, 1, dt, 6);
                gt_alloc(&dst, w, h, dcn, dt, al ? gt_pad16(w, dcn, dt) : 2);
                gt_alloc(&exp, w, h, dcn, dt, 0);
                gt_fill_random(&src, (uint64_t)(s * 7 + pat + u16), 0, 0);
                /* The colour of site (x, y): the pattern names sites (1, 1) and (2, 1). */
                static const char names[4][2] = {{'B', 'G'}, {'G', 'B'}, {'R', 'G'}, {'G', 'R'}};
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++) {
                        if (w <= 2 || h <= 2) {
                            for (int c = 0; c < dcn; c++)
                                gt_set(&exp, x, y, c, c < 3 ? 0 : dt == GIP_U8 ? 255 : 65535);
                            continue;
                        }
                        int64_t cx = x < 1 ? 1 : x > w - 2 ? w - 2 : x;
                        int64_t cyy = y < 1 ? 1 : y > h - 2 ? h - 2 : y;
                        /* site colour: row parity flips B/R, column parity G */
                        char first = names[pat][(cx - 1) & 1];
                        if ((cyy - 1) & 1)
                            first = first == 'G'
                                        ? (names[pat][0] == 'G' ? names[pat][1] : names[pat][0])
                                        : 'G';
                        if (((cyy - 1) & 1) && first != 'G') /* the other colour row */
                            first = (names[pat][0] == 'G' ? names[pat][1] : names[pat][0]) == 'B'
                                        ? 'R'
                                        : 'B';
                        double c0 = gt_get(&src, cx, cyy, 0);
                        double nsum = gt_get(&src, cx, cyy - 1, 0) + gt_get(&src, cx, cyy + 1, 0);
                        double wsum = gt_get(&src, cx - 1, cyy, 0) + gt_get(&src, cx + 1, cyy, 0);
                        double dsum =
                            gt_get(&src, cx - 1, cyy - 1, 0) + gt_get(&src, cx + 1, cyy - 1, 0) +
                            gt_get(&src, cx - 1, cyy + 1, 0) + gt_get(&src, cx + 1, cyy + 1, 0);
                        double B, G, R;
                        if (first == 'G') {
                            /* the row's other colour is horizontal */
                            char rowc = 0;
                            int64_t nx = cx + 1;
                            char site = names[pat][(nx - 1) & 1];
                            if ((cyy - 1) & 1)
                                site = site == 'G' ? 'X' : 'G';
                            (void)site;
                            /* horizontal neighbours: the colour of this row's non-green sites */
                            char r0 = names[pat][0] == 'G' ? names[pat][1] : names[pat][0];
                            rowc = ((cyy - 1) & 1) ? (r0 == 'B' ? 'R' : 'B') : r0;
                            double hv = floor((wsum + 1) / 2), vv = floor((nsum + 1) / 2);
                            G = c0;
                            B = rowc == 'B' ? hv : vv;
                            R = rowc == 'R' ? hv : vv;
                        } else {
                            double dv = floor((dsum + 2) / 4), cv = floor((nsum + wsum + 2) / 4);
                            if (ea) {
                                /* green along the edge: the pair that differs less */
                                double dh = fabs(gt_get(&src, cx - 1, cyy, 0) -
                                                 gt_get(&src, cx + 1, cyy, 0));
                                double dvv = fabs(gt_get(&src, cx, cyy - 1, 0) -
                                                  gt_get(&src, cx, cyy + 1, 0));
                                cv = dh > dvv ? floor((nsum + 1) / 2) : floor((wsum + 1) / 2);
                            }
                            G = cv;
                            B = first == 'B' ? c0 : dv;
                            R = first == 'R' ? c0 : dv;
                        }
                        gt_set(&exp, x, y, 0, al == 1 ? R : B), gt_set(&exp, x, y, 1, G);
                        gt_set(&exp, x, y, 2, al == 1 ? B : R);
                        if (dcn == 4)
                            gt_set(&exp, x, y, 3, dt == GIP_U8 ? 255 : 65535);
                    }
                cam_args a = {ea ? 2 : 0, pat, al != 1};
                char label[96];
                snprintf(label, sizeof label, "bayer%s %d %lldx%lld %s c%d%s", ea ? " ea" : "", pat,
                         (long long)w, (long long)h, gip_dtype_name(dt), dcn,
                         al == 1 ? " RGB" : "");
                if (GT_OK(gt_run_unary(ctx, run_cam, &src, &dst, &a, 0x3C)))
                    gt_compare(&dst, &exp, 0, 0, label);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
            }
}

static gip_status run_vng(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_bayer_to_rgb_vng(ctx, s, d, *(const gip_bayer_pattern *)p, 1);
}

static gip_status run_bilinear(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_bayer_to_rgb(ctx, s, d, *(const gip_bayer_pattern *)p, 1);
}

/* VNG (cv2 itself is its bit-exact reference, in test_colorops.py): a flat mosaic stays flat, a
 * mosaic of one colour per site gives that colour back away from its edges' neighbours, images
 * under 8 pixels are bilinear, CUDA equals the CPU, bad input is refused. */
static void bayer_vng(gip_context *ctx)
{
    static const int64_t sizes[][2] = {{8, 8}, {13, 42}, {91, 37}, {640, 9}};
    for (int s = 0; s < 4; s++)
        for (int pat = GIP_BAYER_BG; pat <= GIP_BAYER_GR; pat++) {
            const int64_t w = sizes[s][0], h = sizes[s][1];
            gip_image src, dst, flat;
            gt_alloc(&src, w, h, 1, GIP_U8, 3);
            gt_alloc(&dst, w, h, 3, GIP_U8, 1);
            gt_alloc(&flat, w, h, 3, GIP_U8, 0);
            gip_bayer_pattern pp = (gip_bayer_pattern)pat;
            char label[64];
            /* flat: every site 77 */
            for (int64_t y = 0; y < h; y++)
                for (int64_t x = 0; x < w; x++) {
                    gt_set(&src, x, y, 0, 77);
                    for (int c = 0; c < 3; c++)
                        gt_set(&flat, x, y, c, 77);
                }
            snprintf(label, sizeof label, "vng flat %d %lldx%lld", pat, (long long)w, (long long)h);
            if (GT_OK(gt_run_unary(ctx, run_vng, &src, &dst, &pp, 0x3C)))
                gt_compare(&dst, &flat, 0, 0, label);
            /* random: CUDA equals the CPU (gt_run_unary compares them on a CUDA context) */
            gt_fill_random(&src, (uint64_t)(s * 4 + pat), 0, 0);
            snprintf(label, sizeof label, "vng %d %lldx%lld", pat, (long long)w, (long long)h);
            GT_OK(gt_run_unary(ctx, run_vng, &src, &dst, &pp, 0x3C));
            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
            gt_free(&src);
            gt_free(&dst);
            gt_free(&flat);
        }
    /* under 8 pixels: bilinear */
    gip_image small, a, b;
    gt_alloc(&small, 7, 20, 1, GIP_U8, 0);
    gt_alloc(&a, 7, 20, 3, GIP_U8, 0);
    gt_alloc(&b, 7, 20, 3, GIP_U8, 0);
    gt_fill_random(&small, 9, 0, 0);
    gip_bayer_pattern gb = GIP_BAYER_GB;
    if (GT_OK(gt_run_unary(ctx, run_vng, &small, &a, &gb, 0x3C)) &&
        GT_OK(gt_run_unary(ctx, run_bilinear, &small, &b, &gb, 0x3C)))
        gt_compare(&a, &b, 0, 0, "vng under 8 pixels");
    gip_image u16, four;
    gt_alloc(&u16, 20, 10, 1, GIP_U16, 0);
    gt_alloc(&four, 7, 20, 4, GIP_U8, 0);
    GT_STATUS(gip_bayer_to_rgb_vng(ctx, &u16, &u16, GIP_BAYER_BG, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_bayer_to_rgb_vng(ctx, &small, &four, GIP_BAYER_BG, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_bayer_to_rgb_vng(ctx, &small, &a, (gip_bayer_pattern)9, 1),
              GIP_ERR_INVALID_ARGUMENT);
    gt_free(&small);
    gt_free(&a);
    gt_free(&b);
    gt_free(&u16);
    gt_free(&four);
}

/* u8 BGR/RGB to Lab against the CIE formulas in double precision (sRGB gamma, D65): within 2.5
 * levels of L * 255 / 100 and a + 128, b + 128 (OpenCV quantises linear light to 2040 levels
 * before the cube-root table; cv2 itself is the bit-exact reference, in test_colorops.py). */
static double lab_f(double t)
{
    return t > 216.0 / 24389 ? cbrt(t) : t * 841.0 / 108 + 16.0 / 116;
}

static double srgb_lin(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static void lab(gip_context *ctx)
{
    for (int rgb_order = 0; rgb_order < 2; rgb_order++) {
        gip_image src, dst;
        gt_alloc(&src, 257, 131, 3, GIP_U8, 7);
        gt_alloc(&dst, 257, 131, 3, GIP_U8, 1);
        gt_fill_random(&src, 91 + (uint64_t)rgb_order, 0, 0);
        const char *label = rgb_order ? "RGB2Lab" : "BGR2Lab";
        if (!GT_OK(run_both(ctx, &src, &dst, rgb_order ? GIP_COLOR_RGB2LAB : GIP_COLOR_BGR2LAB,
                            label))) {
            gt_free(&src);
            gt_free(&dst);
            continue;
        }
        double worst = 0;
        for (int64_t y = 0; y < 131; y++)
            for (int64_t x = 0; x < 257; x++) {
                double r = srgb_lin(gt_get(&src, x, y, rgb_order ? 0 : 2) / 255);
                double g = srgb_lin(gt_get(&src, x, y, 1) / 255);
                double b = srgb_lin(gt_get(&src, x, y, rgb_order ? 2 : 0) / 255);
                double X = (0.412453 * r + 0.357580 * g + 0.180423 * b) / 0.950456;
                double Y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
                double Z = (0.019334 * r + 0.119193 * g + 0.950227 * b) / 1.088754;
                double want[3] = {(116 * lab_f(Y) - 16) * 255 / 100,
                                  500 * (lab_f(X) - lab_f(Y)) + 128,
                                  200 * (lab_f(Y) - lab_f(Z)) + 128};
                for (int c = 0; c < 3; c++) {
                    double w = fmin(255, fmax(0, want[c]));
                    worst = fmax(worst, fabs(gt_get(&dst, x, y, c) - w));
                }
            }
        GT_CHECK(worst <= 2.5, "%s: %g levels off the CIE formulas", label, worst);
        gt_free(&src);
        gt_free(&dst);
    }
    /* u8 Lab to BGR/RGB(A) against the CIE inverse in double precision: within 3 levels
     * (OpenCV quantises linear light to 4096 levels before its inverse-gamma table, which costs
     * up to 2.6 levels in the darkest tones over all 2^24 Lab triples; cv2 itself is the
     * bit-exact reference, in test_colorops.py) */
    static const double m[9] = {3.240479, -1.53715, -0.498535, -0.969256, 1.875991,
                                0.041556, 0.055648, -0.204043, 1.057311};
    for (int form = 0; form < 4; form++) {
        const int rgb_order = form & 1, dcn = form >= 2 ? 4 : 3;
        gip_image src, dst;
        gt_alloc(&src, 257, 131, 3, GIP_U8, 3);
        gt_alloc(&dst, 257, 131, dcn, GIP_U8, 5);
        gt_fill_random(&src, 191 + (uint64_t)form, 0, 0);
        char label[64];
        snprintf(label, sizeof label, "Lab2%s c%d", rgb_order ? "RGB" : "BGR", dcn);
        if (!GT_OK(run_both(ctx, &src, &dst, rgb_order ? GIP_COLOR_LAB2RGB : GIP_COLOR_LAB2BGR,
                            label))) {
            gt_free(&src);
            gt_free(&dst);
            continue;
        }
        double worst = 0;
        bool alpha = true;
        for (int64_t y = 0; y < 131; y++)
            for (int64_t x = 0; x < 257; x++) {
                double L = gt_get(&src, x, y, 0) * 100 / 255, a = gt_get(&src, x, y, 1) - 128,
                       b = gt_get(&src, x, y, 2) - 128;
                double fy = (L + 16) / 116, f[2] = {fy + a / 500, fy - b / 200}, t[2];
                for (int k = 0; k < 2; k++)
                    t[k] = f[k] > 6.0 / 29 ? f[k] * f[k] * f[k] : (f[k] - 16.0 / 116) * 108 / 841;
                double xyz[3] = {t[0] * 0.950456, L <= 8 ? L / 903.3 : fy * fy * fy,
                                 t[1] * 1.088754};
                for (int c = 0; c < 3; c++) {
                    double v = m[3 * c] * xyz[0] + m[3 * c + 1] * xyz[1] + m[3 * c + 2] * xyz[2];
                    v = fmin(1, fmax(0, v));
                    v = (v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055) * 255;
                    int at = rgb_order ? c : 2 - c;
                    worst = fmax(worst, fabs(gt_get(&dst, x, y, at) - v));
                }
                if (dcn == 4)
                    alpha &= gt_get(&dst, x, y, 3) == 255;
            }
        GT_CHECK(worst <= 3, "%s: %g levels off the CIE inverse", label, worst);
        GT_CHECK(alpha, "%s: alpha is not 255", label);
        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
        gt_free(&src);
        gt_free(&dst);
    }
}

/* Every u8 colour once: a 4096 x 4096 image of 3 channels, pixel y * 4096 + x holding that
 * number's bytes (high to low). */
static void cube_image(gip_image *src)
{
    gt_alloc(src, 4096, 4096, 3, GIP_U8, 7);
    for (int64_t y = 0; y < 4096; y++) {
        uint8_t *row = (uint8_t *)src->data + y * src->stride;
        for (int64_t x = 0; x < 4096; x++) {
            const uint32_t c = (uint32_t)(y * 4096 + x);
            row[3 * x] = (uint8_t)(c >> 16), row[3 * x + 1] = (uint8_t)(c >> 8),
                    row[3 * x + 2] = (uint8_t)c;
        }
    }
}

/* u8 Luv both ways: OpenCV's interpolated table forward, its integer code back (L 0..255, u from
 * -134..220 and v from -140..122 onto 0..255). Fixed colours with cv2 5.1's results, in every
 * form (BGR or RGB, 3 or 4 channels on the RGB side); every colour of the cube against the
 * FNV-1a hash of cv2 5.1's results over it (any changed byte changes it; test_colorops.py
 * compares the cube with cv2 itself); random images against the CIE formulas within the levels
 * OpenCV's quantisation costs. On CUDA each run also equals the CPU's bit for bit (run_both). */
static uint64_t fnv1a(const gip_image *img)
{
    uint64_t h = 1469598103934665603ull;
    for (int64_t y = 0; y < img->height; y++) {
        const uint8_t *row = (const uint8_t *)img->data + y * img->stride;
        for (int64_t i = 0; i < img->width * img->channels; i++)
            h = (h ^ row[i]) * 1099511628211ull;
    }
    return h;
}

static void luv_u8(gip_context *ctx)
{
    /* BGR in, Luv out (cv2.cvtColor(..., COLOR_BGR2Luv)) */
    static const uint8_t fw[][2][3] = {
        {{0, 0, 0}, {0, 96, 136}},       {{255, 255, 255}, {255, 96, 136}},
        {{255, 0, 0}, {82, 90, 10}},     {{0, 255, 0}, {223, 37, 241}},
        {{0, 0, 255}, {135, 222, 173}},  {{128, 128, 128}, {136, 96, 136}},
        {{1, 0, 0}, {0, 96, 136}},       {{255, 0, 255}, {153, 157, 31}},
        {{12, 200, 77}, {182, 56, 219}}, {{250, 3, 129}, {103, 106, 9}},
        {{7, 7, 8}, {5, 97, 136}},       {{60, 180, 240}, {196, 132, 205}},
    };
    /* Luv in, BGR out (COLOR_Luv2BGR); (31, 254, 64) and (31, 254, 65) straddle v's pole, where
     * OpenCV's int product y x would overflow */
    static const uint8_t bw[][2][3] = {
        {{0, 0, 0}, {0, 0, 0}},
        {{255, 96, 136}, {255, 255, 254}},
        {{31, 254, 64}, {0, 46, 0}},
        {{31, 254, 65}, {255, 0, 255}},
        {{128, 128, 128}, {124, 98, 169}},
        {{200, 50, 220}, {60, 222, 70}},
        {{10, 240, 20}, {0, 22, 0}},
        {{255, 255, 255}, {0, 179, 255}},
        {{1, 0, 255}, {0, 2, 0}},
        {{90, 30, 200}, {0, 112, 0}},
        {{170, 140, 40}, {255, 100, 245}},
        {{5, 120, 130}, {25, 0, 90}},
    };
    const int n = (int)(sizeof fw / sizeof fw[0]);
    for (int form = 0; form < 8; form++) {
        const int inverse = form >> 2, rgb_order = form & 1, cn = form & 2 ? 4 : 3;
        const uint8_t(*t)[2][3] = inverse ? bw : fw;
        gip_image src, dst;
        gt_alloc(&src, n, 1, inverse ? 3 : cn, GIP_U8, 0);
        gt_alloc(&dst, n, 1, inverse ? cn : 3, GIP_U8, 0);
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < 3; c++) /* the RGB side in the form's order */
                gt_set(&src, i, 0, c, t[i][0][inverse || !rgb_order ? c : 2 - c]);
            if (!inverse && cn == 4)
                gt_set(&src, i, 0, 3, 37 * i);
        }
        const gip_color_code code =
            (gip_color_code)((inverse ? GIP_COLOR_LUV2BGR : GIP_COLOR_BGR2LUV) + rgb_order);
        char label[64];
        snprintf(label, sizeof label, "u8 %s c%d",
                 inverse ? (rgb_order ? "Luv2RGB" : "Luv2BGR")
                         : (rgb_order ? "RGB2Luv" : "BGR2Luv"),
                 cn);
        if (GT_OK(run_both(ctx, &src, &dst, code, label)))
            for (int i = 0; i < n; i++) {
                /* the source and the expected result in the code's order */
                int in[3], want[3];
                bool ok = true;
                for (int c = 0; c < 3; c++) {
                    in[c] = t[i][0][inverse || !rgb_order ? c : 2 - c];
                    want[c] = t[i][1][!inverse || !rgb_order ? c : 2 - c];
                    ok &= gt_get(&dst, i, 0, c) == want[c];
                }
                if (inverse && cn == 4)
                    ok &= gt_get(&dst, i, 0, 3) == 255;
                GT_CHECK(ok, "%s: (%d, %d, %d) gave (%g, %g, %g), cv2 5.1 (%d, %d, %d)", label,
                         in[0], in[1], in[2], gt_get(&dst, i, 0, 0), gt_get(&dst, i, 0, 1),
                         gt_get(&dst, i, 0, 2), want[0], want[1], want[2]);
            }
        gt_free(&src);
        gt_free(&dst);
    }

    /* the cube: pixel y 4096 + x is (its bits 16..23, 8..15, 0..7) */
    static const struct {
        gip_color_code code;
        uint64_t hash;
    } cube[] = {
        {GIP_COLOR_BGR2LUV, 0x073fb85ffb7538baull},
        {GIP_COLOR_RGB2LUV, 0xb1f53f58ed2c3e54ull},
        {GIP_COLOR_LUV2BGR, 0xa3eb6dccfbd2a00eull},
        {GIP_COLOR_LUV2RGB, 0x54707d115c2989e6ull},
    };
    gip_image src, dst;
    cube_image(&src);
    gt_alloc(&dst, 4096, 4096, 3, GIP_U8, 5);
    for (size_t k = 0; k < sizeof cube / sizeof cube[0]; k++) {
        char label[64];
        snprintf(label, sizeof label, "u8 Luv cube, code %d", (int)cube[k].code);
        if (!GT_OK(run_both(ctx, &src, &dst, cube[k].code, label)))
            continue;
        const uint64_t h = fnv1a(&dst);
        GT_CHECK(h == cube[k].hash, "%s: hash %016llx, cv2 5.1's %016llx", label,
                 (unsigned long long)h, (unsigned long long)cube[k].hash);
        GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding", label);
    }
    gt_free(&src);
    gt_free(&dst);

    /* random images against the CIE formulas: forward within 1.25 levels (cv2 5.1: 1.12 over
     * the cube), back within 2.5 levels where the formula's RGB is inside the gamut (cv2 5.1:
     * 2.1 over those of the cube's triples) */
    const double un = 4 * 0.950456 / (0.950456 + 15 + 3 * 1.088754),
                 vn = 9 / (0.950456 + 15 + 3 * 1.088754);
    static const double m[9] = {3.240479, -1.53715, -0.498535, -0.969256, 1.875991,
                                0.041556, 0.055648, -0.204043, 1.057311};
    for (int form = 0; form < 8; form++) {
        const int inverse = form >> 2, rgb_order = form & 1, cn = form & 2 ? 4 : 3;
        gip_image s, d;
        gt_alloc(&s, 257, 131, inverse ? 3 : cn, GIP_U8, 3);
        gt_alloc(&d, 257, 131, inverse ? cn : 3, GIP_U8, 6);
        gt_fill_random(&s, 777 + (uint64_t)form, 0, 0);
        char label[64];
        snprintf(label, sizeof label, "u8 Luv form %d", form);
        const gip_color_code code =
            (gip_color_code)((inverse ? GIP_COLOR_LUV2BGR : GIP_COLOR_BGR2LUV) + rgb_order);
        if (!GT_OK(run_both(ctx, &s, &d, code, label))) {
            gt_free(&s);
            gt_free(&d);
            continue;
        }
        double worst = 0;
        int64_t checked = 0;
        bool alpha = true;
        for (int64_t y = 0; y < 131; y++)
            for (int64_t x = 0; x < 257; x++) {
                if (!inverse) {
                    double r = srgb_lin(gt_get(&s, x, y, rgb_order ? 0 : 2) / 255);
                    double g = srgb_lin(gt_get(&s, x, y, 1) / 255);
                    double b = srgb_lin(gt_get(&s, x, y, rgb_order ? 2 : 0) / 255);
                    double X = 0.412453 * r + 0.357580 * g + 0.180423 * b;
                    double Y = 0.212671 * r + 0.715160 * g + 0.072169 * b;
                    double Z = 0.019334 * r + 0.119193 * g + 0.950227 * b;
                    double L = 116 * lab_f(Y) - 16, den = fmax(X + 15 * Y + 3 * Z, 1e-30);
                    double want[3] = {L * 255 / 100,
                                      (13 * L * (4 * X / den - un) + 134) * 255 / 354,
                                      (13 * L * (9 * Y / den - vn) + 140) * 255 / 262};
                    for (int c = 0; c < 3; c++)
                        worst =
                            fmax(worst, fabs(gt_get(&d, x, y, c) - fmin(255, fmax(0, want[c]))));
                    checked++;
                    continue;
                }
                double L = gt_get(&s, x, y, 0) * 100 / 255;
                double u = gt_get(&s, x, y, 1) * 354 / 255 - 134;
                double v = gt_get(&s, x, y, 2) * 262 / 255 - 140;
                if (L <= 0)
                    continue;
                double Y = L <= 8 ? L * 27 / 24389 : pow((L + 16) / 116, 3);
                double up = u / (13 * L) + un, vp = v / (13 * L) + vn;
                if (!(vp > 0))
                    continue;
                double xyz[3] = {Y * 9 * up / (4 * vp), Y, Y * (12 - 3 * up - 20 * vp) / (4 * vp)};
                double lin[3];
                bool inside = true;
                for (int c = 0; c < 3; c++) {
                    lin[c] = m[3 * c] * xyz[0] + m[3 * c + 1] * xyz[1] + m[3 * c + 2] * xyz[2];
                    inside &= lin[c] >= 0 && lin[c] <= 1;
                }
                if (!inside)
                    continue;
                for (int c = 0; c < 3; c++) {
                    double want = (lin[c] <= 0.0031308 ? lin[c] * 12.92
                                                       : 1.055 * pow(lin[c], 1 / 2.4) - 0.055) *
                                  255;
                    worst = fmax(worst, fabs(gt_get(&d, x, y, rgb_order ? c : 2 - c) - want));
                }
                checked++;
                if (cn == 4)
                    alpha &= gt_get(&d, x, y, 3) == 255;
            }
        GT_CHECK(checked >= 2000, "%s: only %lld pixels checked", label, (long long)checked);
        GT_CHECK(worst <= (inverse ? 2.5 : 1.25), "%s: %g levels off the CIE formulas", label,
                 worst);
        GT_CHECK(alpha, "%s: alpha is not 255", label);
        GT_CHECK(gt_padding_intact(&d), "%s: padding written", label);
        gt_free(&s);
        gt_free(&d);
    }
}

/* f32 Lab and Luv both ways against the CIE formulas in double precision (D65, sRGB gamma, the
 * XYZ matrices of the other spaces): L, a, b within 5e-5 of max(1, |value|) and u, v of
 * max(1, |value|, 13 L) (single-precision powf, cbrtf and matrix steps); RGB within 2e-5 (Lab)
 * and 5e-5 (Luv, whose inverse divides by 4 v'). */
static void ref_lab_luv(int luv, const double *rgb, double *o)
{
    double lin[3], xyz[3];
    for (int c = 0; c < 3; c++)
        lin[c] = srgb_lin(fmin(1, fmax(0, rgb[c])));
    xyz[0] = 0.412453 * lin[0] + 0.357580 * lin[1] + 0.180423 * lin[2];
    xyz[1] = 0.212671 * lin[0] + 0.715160 * lin[1] + 0.072169 * lin[2];
    xyz[2] = 0.019334 * lin[0] + 0.119193 * lin[1] + 0.950227 * lin[2];
    const double t = 216.0 / 24389, y = xyz[1];
    o[0] = y > t ? 116 * cbrt(y) - 16 : 24389.0 / 27 * y;
    if (!luv) {
        o[1] = 500 * (lab_f(xyz[0] / 0.950456) - lab_f(y));
        o[2] = 200 * (lab_f(y) - lab_f(xyz[2] / 1.088754));
        return;
    }
    const double dn = 0.950456 + 15 + 3 * 1.088754, un = 4 * 0.950456 / dn, vn = 9 / dn;
    const double d = fmax(xyz[0] + 15 * y + 3 * xyz[2], 1.1920928955078125e-07);
    o[1] = 13 * o[0] * (4 * xyz[0] / d - un);
    o[2] = 13 * o[0] * (9 * y / d - vn);
}

static void lab_luv_f32(gip_context *ctx)
{
    for (int luv = 0; luv < 2; luv++)
        for (int form = 0; form < 4; form++) {
            const bool inverse = form >= 2, rgb_order = form & 1;
            const gip_color_code code =
                (gip_color_code)((luv ? GIP_COLOR_BGR2LUV : GIP_COLOR_BGR2LAB) + form);
            gip_image src, dst, rgb;
            gt_alloc(&rgb, 131, 57, 3, GIP_F32, 3);
            gt_alloc(&src, 131, 57, 3, GIP_F32, 5);
            gt_alloc(&dst, 131, 57, 3, GIP_F32, 2);
            gt_fill_random(&rgb, 400 + (uint64_t)(luv * 4 + form), 0, 1);
            /* the inverse's input: the formula's Lab or Luv of random colours */
            for (int64_t y = 0; y < 57; y++)
                for (int64_t x = 0; x < 131; x++) {
                    double c[3] = {gt_get(&rgb, x, y, 0), gt_get(&rgb, x, y, 1),
                                   gt_get(&rgb, x, y, 2)},
                           o[3];
                    ref_lab_luv(luv, c, o);
                    for (int k = 0; k < 3; k++)
                        gt_set(&src, x, y, k, inverse ? o[k] : c[k]);
                }
            char label[64];
            snprintf(label, sizeof label, "f32 %s form %d", luv ? "Luv" : "Lab", form);
            if (!GT_OK(run_both(ctx, &src, &dst, code, label))) {
                gt_free(&src);
                gt_free(&dst);
                gt_free(&rgb);
                continue;
            }
            double worst = 0;
            for (int64_t y = 0; y < 57; y++)
                for (int64_t x = 0; x < 131; x++)
                    for (int k = 0; k < 3; k++) {
                        double want, got = gt_get(&dst, x, y, k);
                        if (inverse) {
                            /* back to the colour, in the destination's order */
                            want = gt_get(&rgb, x, y, rgb_order ? k : 2 - k);
                            worst = fmax(worst, fabs(got - want) / (luv ? 5e-5 : 2e-5));
                        } else {
                            double c[3] = {gt_get(&src, x, y, rgb_order ? 0 : 2),
                                           gt_get(&src, x, y, 1),
                                           gt_get(&src, x, y, rgb_order ? 2 : 0)},
                                   o[3];
                            ref_lab_luv(luv, c, o);
                            want = o[k];
                            /* u and v: 13 L (u' - u'n) cancels, so their error scales with
                             * 13 L */
                            double scale = fmax(1, fabs(want));
                            if (luv && k)
                                scale = fmax(scale, 13 * o[0]);
                            worst = fmax(worst, fabs(got - want) / (5e-5 * scale));
                        }
                    }
            GT_CHECK(worst <= 1, "%s: %g times the tolerance off the CIE formulas", label, worst);
            gt_free(&src);
            gt_free(&dst);
            gt_free(&rgb);
        }
    gip_image u16;
    gt_alloc(&u16, 9, 5, 3, GIP_U16, 0);
    GT_STATUS(gip_cvt_color(ctx, &u16, &u16, GIP_COLOR_BGR2LUV), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &u16, &u16, GIP_COLOR_LUV2RGB), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &u16, &u16, GIP_COLOR_LAB2BGR), GIP_ERR_UNSUPPORTED);
    gt_free(&u16);
}

static void bad_inputs(gip_context *ctx)
{
    gip_image u8, f32, u16, one, dst, frame;
    gt_alloc(&u8, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&f32, 20, 10, 3, GIP_F32, 0);
    gt_alloc(&u16, 20, 10, 3, GIP_U16, 0);
    gt_alloc(&one, 20, 10, 1, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&frame, 20, 15, 1, GIP_U8, 0);
    gt_poison(&dst, 0x5A);
    GT_STATUS(gip_cvt_color(ctx, &u8, &dst, GIP_COLOR_HSV_FULL2BGR), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &u8, &dst, GIP_COLOR_BGR2HLS_FULL), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &u8, &dst, GIP_COLOR_HLS_FULL2RGB), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &u16, &u16, GIP_COLOR_BGR2HSV), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_cvt_color(ctx, &one, &dst, GIP_COLOR_BGR2YCRCB), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_cvt_color(ctx, &u8, &dst, (gip_color_code)99), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_yuv_to_rgb(ctx, &frame, &dst, (gip_yuv_layout)7, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_yuv_to_rgb(ctx, &u8, &dst, GIP_YUV_NV12, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_yuv_to_rgb(ctx, &one, &dst, GIP_YUV_NV12, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_yuv_to_rgb(ctx, &frame, &dst, GIP_YUV_YUY2, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_bayer_to_rgb(ctx, &one, &dst, (gip_bayer_pattern)4, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_bayer_to_rgb(ctx, &u8, &dst, GIP_BAYER_BG, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_bayer_to_rgb(ctx, &one, &f32, GIP_BAYER_BG, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_bayer_to_rgb(ctx, &one, &one, GIP_BAYER_BG, 1), GIP_ERR_ALIASING);
    GT_STATUS(gip_bayer_to_rgb(NULL, &one, &dst, GIP_BAYER_BG, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_bayer_to_rgb_ea(ctx, &one, &one, GIP_BAYER_BG, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_bayer_to_rgb_ea(ctx, &one, &dst, (gip_bayer_pattern)4, 1),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_bayer_to_rgb_ea(ctx, &one, &f32, GIP_BAYER_GR, 1), GIP_ERR_UNSUPPORTED);
    bool untouched = true;
    for (int64_t i = 0; i < 600; i++)
        untouched &= ((uint8_t *)dst.data)[i] == 0x5A;
    GT_CHECK(untouched, "cvt_space: a refused call wrote into dst");
    gt_free(&u8);
    gt_free(&f32);
    gt_free(&u16);
    gt_free(&one);
    gt_free(&dst);
    gt_free(&frame);
}

/* Every u8 colour (a 4096 x 4096 image, rows padded) through the forward u8 codes that have
 * their own CPU rows (HSV, HSV_FULL, YCrCb, YUV, Lab, XYZ; BGR and RGB order), against the
 * per-pixel functions that the CUDA kernels run. */
static void every_colour(gip_context *ctx)
{
    static const struct {
        gip_color_code code;
        int space, bidx;
    } codes[] = {
        {GIP_COLOR_BGR2HSV, GIP__CS_HSV, 0},
        {GIP_COLOR_RGB2HSV, GIP__CS_HSV, 2},
        {GIP_COLOR_BGR2HSV_FULL, GIP__CS_HSV_FULL, 0},
        {GIP_COLOR_RGB2HSV_FULL, GIP__CS_HSV_FULL, 2},
        {GIP_COLOR_BGR2YCRCB, GIP__CS_YCRCB, 0},
        {GIP_COLOR_RGB2YUV, GIP__CS_YUV, 2},
        {GIP_COLOR_BGR2LAB, GIP__CS_LAB, 0},
        {GIP_COLOR_RGB2LAB, GIP__CS_LAB, 2},
        {GIP_COLOR_BGR2XYZ, GIP__CS_XYZ, 0},
    };
    const int64_t n = 4096;
    gip_image src, dst;
    cube_image(&src);
    gt_alloc(&dst, n, n, 3, GIP_U8, 5);
    for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        if (!GT_OK(gip_cvt_color(ctx, &src, &dst, codes[k].code)))
            continue;
        const gip__cs_params p = {codes[k].space, 0, codes[k].bidx, 3};
        int64_t bad = 0;
        for (int64_t y = 0; y < n && !bad; y++) {
            const uint8_t *s = (const uint8_t *)src.data + y * src.stride;
            const uint8_t *d = (const uint8_t *)dst.data + y * dst.stride;
            for (int64_t x = 0; x < n; x++) {
                uint8_t e[3];
                gip__cs_pixel_u8(&p, s + 3 * x, e, x, n);
                for (int c = 0; c < 3; c++)
                    if (d[3 * x + c] != e[c] && !bad++)
                        GT_CHECK(false,
                                 "every colour, code %d: (%lld, %lld) channel %d got %d, "
                                 "expected %d",
                                 (int)codes[k].code, (long long)x, (long long)y, c, d[3 * x + c],
                                 e[c]);
            }
        }
        GT_CHECK(gt_padding_intact(&dst), "every colour, code %d: wrote into the row padding",
                 (int)codes[k].code);
    }
    gt_free(&src);
    gt_free(&dst);
}

/* f32 RGB to HSV and HLS (the codes with CPU rows) on random and special values (zeros of
 * both signs, equal channels, negatives, values over 1, tiny and huge ones) against the
 * per-pixel function, bit for bit, for widths on both sides of the rows' vector steps. */
static void f32_hue_rows(gip_context *ctx)
{
    static const gip_color_code codes[] = {GIP_COLOR_BGR2HSV, GIP_COLOR_RGB2HSV_FULL,
                                           GIP_COLOR_BGR2HLS, GIP_COLOR_RGB2HLS_FULL};
    static const int spaces_of[] = {GIP__CS_HSV, GIP__CS_HSV_FULL, GIP__CS_HLS, GIP__CS_HLS_FULL};
    static const float special[] = {0.0f,  -0.0f,  1.0f, 0.5f,   -0.25f, 2.0f,
                                    1e-8f, 1e-40f, 0.3f, 255.0f, 1e30f,  -1e30f};
    static const int64_t widths[] = {1, 7, 8, 15, 16, 17, 31, 33, 1001};
    uint64_t seed = 4242;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (int k = 0; k < 4; k++) {
            const int64_t w = widths[wi], h = 5;
            gip_image src, dst;
            gt_alloc(&src, w, h, 3, GIP_F32, 3);
            gt_alloc(&dst, w, h, 3, GIP_F32, 2);
            gt_fill_random(&src, seed++, 0, 1);
            for (int64_t y = 1; y < h; y += 2) /* rows of special values */
                for (int64_t i = 0; i < 3 * w; i++)
                    ((float *)((char *)src.data + y * src.stride))[i] =
                        special[gt_rand_u64(&seed) % (sizeof special / sizeof special[0])];
            if (!GT_OK(gip_cvt_color(ctx, &src, &dst, codes[k]))) {
                gt_free(&src);
                gt_free(&dst);
                continue;
            }
            const gip__cs_params p = {spaces_of[k], 0, k & 1 ? 2 : 0, 3};
            bool ok = true;
            for (int64_t y = 0; y < h && ok; y++)
                for (int64_t x = 0; x < w && ok; x++) {
                    const float *s = (const float *)((const char *)src.data + y * src.stride);
                    const float *d = (const float *)((const char *)dst.data + y * dst.stride);
                    float e[3];
                    gip__cs_pixel_f32(&p, s + 3 * x, e, x, w);
                    for (int c = 0; c < 3 && ok; c++)
                        if (memcmp(&d[3 * x + c], &e[c], sizeof(float)))
                            ok = GT_CHECK(false,
                                          "f32 hue rows, code %d width %lld: (%lld, %lld) "
                                          "channel %d got %.9g, expected %.9g",
                                          (int)codes[k], (long long)w, (long long)x, (long long)y,
                                          c, d[3 * x + c], e[c]);
                }
            GT_CHECK(ok, "f32 hue rows, code %d width %lld equal the per-pixel function",
                     (int)codes[k], (long long)w);
            gt_free(&src);
            gt_free(&dst);
        }
}

static void body(gip_context *ctx)
{
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu_ctx)))
            return;
    }
    spaces(ctx);
    round_trips(ctx);
    lab(ctx);
    luv_u8(ctx);
    lab_luv_f32(ctx);
    yuv_frames(ctx);
    yuv_standards(ctx);
    yuv_encode(ctx);
    yuv_encode_more(ctx);
    yuv_encode_standards(ctx);
    spaces_u16(ctx);
    bayer(ctx);
    bayer_vng(ctx);
    bad_inputs(ctx);
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
        every_colour(ctx);
        f32_hue_rows(ctx);
        if (!getenv("GIP_NOAVX512")) {
            /* the AVX2 rows where the AVX-512 ones would run */
            printf("again with GIP_NOAVX512=1\n");
            gt_setenv("GIP_NOAVX512", "1");
            every_colour(ctx);
            lab(ctx);
            yuv_frames(ctx);
            yuv_standards(ctx);
            gt_setenv("GIP_NOAVX512", NULL);
        }
        if (gip__cc_simd_active()) {
            /* the portable rows, which CPUs without AVX2 run */
            printf("again without the AVX2 rows\n");
            const bool prev = gip__cc_set_simd(false);
            spaces(ctx);
            lab(ctx);
            yuv_frames(ctx);
            yuv_standards(ctx);
            bayer(ctx);
            every_colour(ctx);
            f32_hue_rows(ctx);
            gip__cc_set_simd(prev);
        }
    }
    gip_context_destroy(cpu_ctx);
    cpu_ctx = NULL;
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "cvt_space", body);
}
