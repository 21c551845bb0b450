/* SPDX-License-Identifier: MIT */
/* gip_remap (and the remap step through gip_op_apply_inputs) against a double-precision
 * reference written here (nearest rounded half to even, bilinear, Lanczos-4, OpenCV's borders) on
 * every dtype, channel count, border, awkward size and padded stride; identity maps copy exactly;
 * on CUDA equal to the CPU bit for bit; bad input refused with the output untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/geometry.h"
#include "ref_filter.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const gip_border borders[] = {GIP_BORDER_CONSTANT, GIP_BORDER_REPLICATE, GIP_BORDER_REFLECT,
                                     GIP_BORDER_WRAP, GIP_BORDER_REFLECT_101};

static double tap(const gip_image *s, int64_t x, int64_t y, int32_t c, const gip_border_spec *b)
{
    if (x >= 0 && x < s->width && y >= 0 && y < s->height)
        return gt_get(s, x, y, c);
    if (b->mode == GIP_BORDER_CONSTANT)
        return b->value[c];
    return gt_get(s, ref_border_map(x, s->width, b->mode), ref_border_map(y, s->height, b->mode),
                  c);
}

typedef struct remap_case {
    const gip_image *mx, *my;
    gip_warp_params p;
} remap_case;

static gip_status run_remap(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    const remap_case *r = a;
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_remap(ctx, src, dst, r->mx, r->my, &r->p);
    /* the maps go where the images are */
    gip_image dx, dy;
    gip_status st =
        gip_image_alloc(ctx, &dx, r->mx->width, r->mx->height, 1, GIP_F32, GIP_MEM_CUDA, 0);
    if (st)
        return st;
    if ((st =
             gip_image_alloc(ctx, &dy, r->my->width, r->my->height, 1, GIP_F32, GIP_MEM_CUDA, 0))) {
        gip_image_free(ctx, &dx);
        return st;
    }
    if (!(st = gip_upload(ctx, r->mx, &dx)) && !(st = gip_upload(ctx, r->my, &dy)))
        st = gip_remap(ctx, src, dst, &dx, &dy, &r->p);
    if (!st)
        st = gip_context_sync(ctx);
    gip_image_free(ctx, &dy);
    gip_image_free(ctx, &dx);
    return st;
}

static void cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    uint64_t seed = 41;
    for (int s = 0; s < gt_nsizes; s++) {
        const gt_size sz = gt_sizes[s];
        if (sz.w * sz.h > 100000)
            continue;
        const int64_t dw = sz.w + 4, dh = sz.h + 1;
        gip_image mx, my;
        gt_alloc(&mx, dw, dh, 1, GIP_F32, 12);
        gt_alloc(&my, dw, dh, 1, GIP_F32, 0);
        uint64_t r = 77 + s;
        for (int64_t y = 0; y < dh; y++)
            for (int64_t x = 0; x < dw; x++) {
                gt_set(&mx, x, y, 0, gt_rand_unit(&r) * (sz.w + 6) - 3);
                gt_set(&my, x, y, 0, gt_rand_unit(&r) * (sz.h + 6) - 3);
            }
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t b = 0; b < sizeof borders / sizeof borders[0]; b++)
                    for (int nearest = 0; nearest < 3; nearest++, seed++) { /* 2: lanczos4 */
                        if (!gt_case())
                            continue;
                        remap_case rc = {&mx, &my, GIP_WARP_PARAMS_DEFAULT};
                        rc.p.flags = nearest == 2 ? GIP_INTER_LANCZOS4
                                     : nearest    ? GIP_INTER_NEAREST
                                                  : GIP_INTER_LINEAR;
                        rc.p.border.mode = borders[b];
                        for (int k = 0; k < 4; k++)
                            rc.p.border.value[k] = (float)(3 + k);
                        gip_image src, dst, exp;
                        gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                        gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                        gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                        gt_fill_random(&src, seed, 0, 0);
                        char label[96];
                        snprintf(label, sizeof label, "remap %lldx%lld %s c%d %s %s",
                                 (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                                 (int)chans[c], gip_border_name(borders[b]),
                                 nearest == 2 ? "lanczos4"
                                 : nearest    ? "nearest"
                                              : "linear");
                        if (GT_OK(gt_run_unary(ctx, run_remap, &src, &dst, &rc, 0x5A))) {
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                            if (cpu) {
                                if (GT_OK(gip_remap(cpu, &src, &exp, &mx, &my, &rc.p)))
                                    gt_compare(&dst, &exp, 0, 0, label);
                            } else {
                                /* the maps hold single-precision positions: the reference reads
                                 * the same ones; bilinear weights differ by rounding only */
                                double worst = 0;
                                for (int64_t y = 0; y < dh; y++)
                                    for (int64_t x = 0; x < dw; x++)
                                        for (int32_t ch = 0; ch < chans[c]; ch++) {
                                            const double sx = gt_get(&mx, x, y, 0),
                                                         sy = gt_get(&my, x, y, 0);
                                            double v;
                                            if (nearest == 2) {
                                                /* OpenCV's 1/32-pixel position, the
                                                 * window's double weights */
                                                const int64_t X = (int64_t)nearbyint(sx * 32),
                                                              Y = (int64_t)nearbyint(sy * 32);
                                                double wx[8], wy[8];
                                                ref_lanczos4((X & 31) / 32.0, wx);
                                                ref_lanczos4((Y & 31) / 32.0, wy);
                                                v = 0;
                                                for (int i = 0; i < 8; i++)
                                                    for (int j = 0; j < 8; j++)
                                                        v +=
                                                            wy[i] * wx[j] *
                                                            tap(&src, (X >> 5) - 3 + j,
                                                                (Y >> 5) - 3 + i, ch, &rc.p.border);
                                            } else if (nearest)
                                                v = tap(&src, (int64_t)nearbyint(sx),
                                                        (int64_t)nearbyint(sy), ch, &rc.p.border);
                                            else {
                                                const int64_t ix = (int64_t)floor(sx),
                                                              iy = (int64_t)floor(sy);
                                                const double fx = sx - ix, fy = sy - iy;
                                                v = (1 - fy) * ((1 - fx) * tap(&src, ix, iy, ch,
                                                                               &rc.p.border) +
                                                                fx * tap(&src, ix + 1, iy, ch,
                                                                         &rc.p.border)) +
                                                    fy * ((1 - fx) * tap(&src, ix, iy + 1, ch,
                                                                         &rc.p.border) +
                                                          fx * tap(&src, ix + 1, iy + 1, ch,
                                                                   &rc.p.border));
                                            }
                                            gt_set(&exp, x, y, ch, v);
                                            const double e = fabs(gt_get(&dst, x, y, ch) -
                                                                  gt_get(&exp, x, y, ch));
                                            if (e > worst)
                                                worst = e;
                                        }
                                /* u8/u16: a level (rounding at .5; Lanczos: OpenCV's
                                 * tables); f32: float weights */
                                const double tol = nearest == 1                           ? 0
                                                   : dtypes[d] == GIP_F32                 ? 1e-3
                                                   : dtypes[d] == GIP_U16 && nearest == 2 ? 2
                                                                                          : 1;
                                GT_CHECK(worst <= tol, "%s: largest difference %g > %g", label,
                                         worst, tol);
                            }
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
        gt_free(&mx);
        gt_free(&my);
    }
    gip_context_destroy(cpu);
}

/* Fixed-point maps (cv2.convertMaps' CV_16SC2 + CV_16UC1) through the registry's remap: a
 * reference written here from OpenCV's tables (u8: integer weights, exact; u16 and f32 in double,
 * within a level and 1e-4), every border incl. transparent (a pixel with a tap outside keeps dst),
 * nearest with and without fractions; on CUDA equal to the CPU bit for bit. */
static double fixed_ref(const gip_image *s, int64_t sx, int64_t sy, int32_t fxy, int32_t c,
                        int nearest, int32_t border, const gip_border_spec *b, int *keep)
{
    const int64_t w = s->width, h = s->height;
    const int32_t fx = fxy < 0 ? 0 : fxy & 31, fy = fxy < 0 ? 0 : fxy >> 5;
    *keep = 0;
    if (nearest) {
        sx += fx >= 16;
        sy += fy >= 16;
        const int out = sx < 0 || sx >= w || sy < 0 || sy >= h;
        *keep = out && border == 5;
        return *keep ? 0 : tap(s, sx, sy, c, b);
    }
    const int inside = sx >= 0 && sx < w - 1 && sy >= 0 && sy < h - 1;
    if (!inside && border == 5) {
        *keep = 1;
        return 0;
    }
    if (!inside && border == GIP_BORDER_CONSTANT &&
        (sx >= w || sx + 1 < 0 || sy >= h || sy + 1 < 0))
        return b->value[c];
    const double t[4] = {tap(s, sx, sy, c, b), tap(s, sx + 1, sy, c, b), tap(s, sx, sy + 1, c, b),
                         tap(s, sx + 1, sy + 1, c, b)};
    if (s->dtype == GIP_U8) {
        const long acc = (long)t[0] * (32 - fx) * (32 - fy) * 32 +
                         (long)t[1] * fx * (32 - fy) * 32 + (long)t[2] * (32 - fx) * fy * 32 +
                         (long)t[3] * fx * fy * 32;
        return (double)((acc + (1 << 14)) >> 15);
    }
    const double a = fx / 32.0, e = fy / 32.0;
    return t[0] * (1 - a) * (1 - e) + t[1] * a * (1 - e) + t[2] * (1 - a) * e + t[3] * a * e;
}

static void fixed_cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    static const char *const bnames[] = {"constant", "replicate",  "reflect",
                                         "wrap",     "reflect101", "transparent"};
    static const int32_t bmodes[] = {GIP_BORDER_CONSTANT,    GIP_BORDER_REPLICATE,
                                     GIP_BORDER_REFLECT,     GIP_BORDER_WRAP,
                                     GIP_BORDER_REFLECT_101, 5};
    uint64_t seed = 91;
    for (int s = 0; s < gt_nsizes; s++) {
        const gt_size sz = gt_sizes[s];
        if (sz.w * sz.h > 100000)
            continue;
        const int64_t dw = sz.w + 3, dh = sz.h + 2;
        gip_image mxy, mf;
        gt_alloc(&mxy, 2 * dw, dh, 1, GIP_S16, 6);
        gt_alloc(&mf, dw, dh, 1, GIP_U16, 0);
        uint64_t r = 13 + s;
        for (int64_t y = 0; y < dh; y++)
            for (int64_t x = 0; x < dw; x++) {
                gt_set(&mxy, 2 * x, y, 0, floor(gt_rand_unit(&r) * (sz.w + 6)) - 3);
                gt_set(&mxy, 2 * x + 1, y, 0, floor(gt_rand_unit(&r) * (sz.h + 6)) - 3);
                gt_set(&mf, x, y, 0, floor(gt_rand_unit(&r) * 1024));
            }
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (int b = 0; b < 6; b++)
                    for (int mode = 0; mode < 3; mode++, seed++) { /* linear, nearest, no map2 */
                        if (!gt_case())
                            continue;
                        const int nearest = mode > 0;
                        gip_args *a = NULL;
                        if (!GT_OK(gip_args_create(gip_op_find("remap"), &a)))
                            continue;
                        GT_OK(gip_args_set_size(a, "dsize", dw, dh));
                        GT_OK(gip_args_set_string(a, "interpolation",
                                                  nearest ? "nearest" : "linear"));
                        GT_OK(gip_args_set_string(a, "border", bnames[b]));
                        const double bv[4] = {3, 200, 7, 90};
                        if (b == 0)
                            GT_OK(gip_args_set_list(a, "border_value", bv, 4));
                        gip_border_spec bs = {.mode = (gip_border)(b == 5 ? 0 : bmodes[b])};
                        for (int k = 0; k < 4; k++)
                            bs.value[k] = b == 0 ? (float)bv[k] : 0.f;
                        gip_image src, dst, exp;
                        gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                        gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                        gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                        gt_fill_random(&src, seed, 0, 0);
                        const gip_image *in[2] = {&mxy, mode == 2 ? NULL : &mf};
                        char label[112];
                        snprintf(label, sizeof label, "remap fixed %lldx%lld %s c%d %s %s",
                                 (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                                 (int)chans[c], bnames[b],
                                 mode == 0   ? "linear"
                                 : mode == 1 ? "nearest"
                                             : "nearest, no fractions");
                        if (GT_OK(gt_run_op(ctx, a, &src, in, 2, &dst, 0x5A))) {
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                            gt_poison(&exp, 0x5A); /* what transparent pixels keep */
                            if (cpu) {
                                if (GT_OK(gip_op_apply_inputs(cpu, a, &src, in, 2, &exp)))
                                    gt_compare(&dst, &exp, 0, 0, label);
                            } else {
                                double worst = 0;
                                for (int64_t y = 0; y < dh; y++)
                                    for (int64_t x = 0; x < dw; x++)
                                        for (int32_t ch = 0; ch < chans[c]; ch++) {
                                            int keep;
                                            const double v = fixed_ref(
                                                &src, (int64_t)gt_get(&mxy, 2 * x, y, 0),
                                                (int64_t)gt_get(&mxy, 2 * x + 1, y, 0),
                                                mode == 2 ? -1 : (int32_t)gt_get(&mf, x, y, 0), ch,
                                                nearest, bmodes[b], &bs, &keep);
                                            if (!keep)
                                                gt_set(&exp, x, y, ch, v);
                                            const double e = fabs(gt_get(&dst, x, y, ch) -
                                                                  gt_get(&exp, x, y, ch));
                                            if (e > worst)
                                                worst = e;
                                        }
                                /* u8 and nearest exact; u16 a level (.5 in float); f32 float
                                 * weights */
                                const double tol = nearest || dtypes[d] == GIP_U8 ? 0
                                                   : dtypes[d] == GIP_F32         ? 1e-4
                                                                                  : 1;
                                GT_CHECK(worst <= tol, "%s: largest difference %g > %g", label,
                                         worst, tol);
                            }
                        }
                        gip_args_free(a);
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
        gt_free(&mxy);
        gt_free(&mf);
    }
    gip_context_destroy(cpu);
}

/* gip_convert_maps on ctx: host images in and out, through device copies on CUDA. */
static gip_status convert_on(gip_context *ctx, const gip_image *m1, const gip_image *m2,
                             gip_image *d1, gip_image *d2)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_convert_maps(ctx, m1, m2, d1, d2);
    const gip_image *h[4] = {m1, m2, d1, d2};
    gip_image dev[4] = {{0}};
    gip_status st = GIP_OK;
    for (int i = 0; i < 4 && !st; i++)
        if (h[i] &&
            !(st = gip_image_alloc(ctx, &dev[i], h[i]->width, h[i]->height, 1, h[i]->dtype,
                                   GIP_MEM_CUDA, 0)) &&
            i < 2)
            st = gip_upload(ctx, h[i], &dev[i]);
    if (!st)
        st = gip_convert_maps(ctx, &dev[0], m2 ? &dev[1] : NULL, &dev[2], d2 ? &dev[3] : NULL);
    if (!st)
        st = gip_download(ctx, &dev[2], d1);
    if (!st && d2)
        st = gip_download(ctx, &dev[3], d2);
    for (int i = 0; i < 4; i++)
        gip_image_free(ctx, &dev[i]);
    return st;
}

/* gip_convert_maps against cv2.convertMaps' arithmetic written here: float to fixed-point
 * (x * 32 rounded half to even, held within [-2^31, 2^31]; >> 5 saturated to s16, & 31), to whole
 * pixels, back to float (x + fx / 32), pairs and split maps both ways; bad forms refused. */
static void convert_maps_cases(gip_context *ctx)
{
    const int64_t w = 37, h = 5;
    gip_image fx, fy, pairs, s16, frac, whole, bx, by, bp;
    gt_alloc(&fx, w, h, 1, GIP_F32, 3);
    gt_alloc(&fy, w, h, 1, GIP_F32, 0);
    gt_alloc(&pairs, 2 * w, h, 1, GIP_F32, 0);
    gt_alloc(&s16, 2 * w, h, 1, GIP_S16, 2);
    gt_alloc(&frac, w, h, 1, GIP_U16, 0);
    gt_alloc(&whole, 2 * w, h, 1, GIP_S16, 0);
    gt_alloc(&bx, w, h, 1, GIP_F32, 0);
    gt_alloc(&by, w, h, 1, GIP_F32, 1);
    gt_alloc(&bp, 2 * w, h, 1, GIP_F32, 0);
    uint64_t r = 5;
    static const float special[] = {0.515625f, -0.515625f, 1.5f / 32, 2.5f / 32, -1.f / 64,
                                    1e10f,     -1e10f,     5000.f,    -2000.4f,  1023.99f};
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            float vx = (float)(gt_rand_unit(&r) * 300 - 100),
                  vy = (float)(gt_rand_unit(&r) * 80 - 9);
            if (y == 0 && x < 10) {
                vx = special[x];
                vy = special[9 - x];
            }
            if (y == 1 && x == 0)
                vx = NAN;
            gt_set(&fx, x, y, 0, vx);
            gt_set(&fy, x, y, 0, vy);
        }
    if (GT_OK(convert_on(ctx, &fx, &fy, &s16, &frac)) &&
        GT_OK(convert_on(ctx, &fx, &fy, &whole, NULL)) &&
        GT_OK(convert_on(ctx, &fx, &fy, &pairs, NULL)) &&
        GT_OK(convert_on(ctx, &s16, &frac, &bx, &by)) &&
        GT_OK(convert_on(ctx, &pairs, NULL, &bp, NULL))) {
        int bad = 0;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                const double v[2] = {gt_get(&fx, x, y, 0), gt_get(&fy, x, y, 0)};
                int64_t q[2], n[2];
                for (int k = 0; k < 2; k++) {
                    /* held within [-2^31, 2^31], NaN as 2^31 (cv2's scalar loop) */
                    const double t = isnan(v[k]) ? 4e9 : v[k] * 32, u = isnan(v[k]) ? 4e9 : v[k];
                    q[k] = (int64_t)nearbyint(t < -2147483648.0  ? -2147483648.0
                                              : t > 2147483648.0 ? 2147483648.0
                                                                 : t);
                    n[k] = (int64_t)nearbyint(u < -2147483648.0  ? -2147483648.0
                                              : u > 2147483648.0 ? 2147483648.0
                                                                 : u);
                }
                const double want_f = (double)((q[1] & 31) * 32 + (q[0] & 31));
                bad += gt_get(&frac, x, y, 0) != want_f;
                for (int k = 0; k < 2; k++) {
                    const int64_t ip = q[k] >> 5;
                    bad += gt_get(&s16, 2 * x + k, y, 0) != (double)(ip < -32768  ? -32768
                                                                     : ip > 32767 ? 32767
                                                                                  : ip);
                    bad += gt_get(&whole, 2 * x + k, y, 0) != (double)(n[k] < -32768  ? -32768
                                                                       : n[k] > 32767 ? 32767
                                                                                      : n[k]);
                    const double pv = gt_get(&pairs, 2 * x + k, y, 0);
                    bad += !(pv == v[k] || (isnan(pv) && isnan(v[k])));
                    const double back = gt_get(&s16, 2 * x + k, y, 0) +
                                        ((k ? (int64_t)want_f >> 5 : (int64_t)want_f) & 31) / 32.0;
                    bad += gt_get(k ? &by : &bx, x, y, 0) != back;
                    const double bpv = gt_get(&bp, 2 * x + k, y, 0);
                    bad += !(bpv == pv || (isnan(bpv) && isnan(pv)));
                }
            }
        GT_CHECK(bad == 0, "convert_maps: %d entries differ from cv2.convertMaps' arithmetic", bad);
    }
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
        gt_poison(&bx, 0x33);
        GT_STATUS(gip_convert_maps(ctx, &fx, &frac, &bx, &by), GIP_ERR_UNSUPPORTED); /* f32 + u16 */
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, &bx, &frac), GIP_ERR_UNSUPPORTED);
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, &s16, &by), GIP_ERR_UNSUPPORTED);
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, &pairs, &by), GIP_ERR_SHAPE_MISMATCH);
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, &fy, NULL), GIP_ERR_SHAPE_MISMATCH); /* odd */
        GT_STATUS(gip_convert_maps(ctx, &s16, &fx, &bx, &by), GIP_ERR_UNSUPPORTED);
        GT_STATUS(gip_convert_maps(ctx, NULL, &fy, &bx, &by), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, NULL, &by), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, &fx, &by), GIP_ERR_ALIASING);
        GT_STATUS(gip_convert_maps(ctx, &fx, &fy, &bx, &bx), GIP_ERR_ALIASING);
        GT_CHECK(gt_get(&bx, 0, 0, 0) == gt_get(&bx, 1, 0, 0), "a refusal wrote dst1");
        /* fixed-point remap's refusals */
        gip_image src, dst;
        gt_alloc(&src, 9, 7, 1, GIP_U8, 0);
        gt_alloc(&dst, w, h, 1, GIP_U8, 0);
        gt_fill_random(&src, 9, 0, 0);
        gip_warp_params p = GIP_WARP_PARAMS_DEFAULT;
        gt_poison(&dst, 0x44);
        GT_STATUS(gip_remap(ctx, &src, &dst, &s16, &fy, &p), GIP_ERR_UNSUPPORTED);    /* f32 map2 */
        GT_STATUS(gip_remap(ctx, &src, &dst, &s16, &whole, &p), GIP_ERR_UNSUPPORTED); /* s16 map2 */
        GT_STATUS(gip_remap(ctx, &src, &dst, &frac, &frac, &p), GIP_ERR_UNSUPPORTED); /* u16 map1 */
        p.flags = GIP_INTER_CUBIC;
        GT_STATUS(gip_remap(ctx, &src, &dst, &s16, &frac, &p), GIP_ERR_UNSUPPORTED);
        p.flags = GIP_INTER_LINEAR;
        gip_image narrow = s16;
        narrow.width = 2 * w - 2;
        GT_STATUS(gip_remap(ctx, &src, &dst, &narrow, &frac, &p), GIP_ERR_SHAPE_MISMATCH);
        for (int64_t x = 0; x < w; x++)
            GT_CHECK(((uint8_t *)dst.data)[x] == 0x44, "dst written by a refusal at %lld",
                     (long long)x);
        /* whole-pixel maps: an identity copies */
        gip_image id, cp;
        gt_alloc(&id, 2 * 9, 7, 1, GIP_S16, 0);
        gt_alloc(&cp, 9, 7, 1, GIP_U8, 0);
        for (int64_t y = 0; y < 7; y++)
            for (int64_t x = 0; x < 9; x++) {
                gt_set(&id, 2 * x, y, 0, (double)x);
                gt_set(&id, 2 * x + 1, y, 0, (double)y);
            }
        p.flags = GIP_INTER_NEAREST;
        if (GT_OK(gip_remap(ctx, &src, &cp, &id, NULL, &p)))
            gt_compare(&cp, &src, 0, 0, "fixed-point identity map");
        gt_free(&id);
        gt_free(&cp);
        gt_free(&src);
        gt_free(&dst);
    }
    gip_image *all[] = {&fx, &fy, &pairs, &s16, &frac, &whole, &bx, &by, &bp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        gt_free(all[i]);
}

static void identity_registry_and_bad_input(gip_context *ctx)
{
    gip_image src, dst, mx, my, small;
    gt_alloc(&src, 21, 13, 3, GIP_U8, 3);
    gt_alloc(&dst, 21, 13, 3, GIP_U8, 0);
    gt_alloc(&mx, 21, 13, 1, GIP_F32, 0);
    gt_alloc(&my, 21, 13, 1, GIP_F32, 0);
    gt_alloc(&small, 20, 13, 1, GIP_F32, 0);
    gt_fill_random(&src, 3, 0, 0);
    for (int64_t y = 0; y < 13; y++)
        for (int64_t x = 0; x < 21; x++) {
            gt_set(&mx, x, y, 0, (double)x);
            gt_set(&my, x, y, 0, (double)y);
        }
    remap_case rc = {&mx, &my, GIP_WARP_PARAMS_DEFAULT};
    if (GT_OK(gt_run_unary(ctx, run_remap, &src, &dst, &rc, 0x11)))
        gt_compare(&dst, &src, 0, 0, "identity maps");
    gip_warp_params p = GIP_WARP_PARAMS_DEFAULT;
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
        gt_poison(&dst, 0x77);
        GT_STATUS(gip_remap(ctx, &src, &dst, &small, &my, &p), GIP_ERR_SHAPE_MISMATCH);
        GT_STATUS(gip_remap(ctx, &src, &dst, NULL, &my, &p), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_remap(ctx, &src, &dst, &src, &my, &p), GIP_ERR_UNSUPPORTED);
        p.flags = GIP_INTER_LINEAR | GIP_WARP_INVERSE_MAP;
        GT_STATUS(gip_remap(ctx, &src, &dst, &mx, &my, &p), GIP_ERR_INVALID_ARGUMENT);
        p.flags = GIP_INTER_LINEAR_EXACT; /* resize's only */
        GT_STATUS(gip_remap(ctx, &src, &dst, &mx, &my, &p), GIP_ERR_INVALID_ARGUMENT);
        for (int64_t i = 0; i < 21 * 3; i++)
            GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                     (long long)i);
        /* the registry: maps as inputs */
        const gip_op *op = gip_op_find("remap");
        gip_args *a = NULL;
        if (GT_CHECK(op && op->ninputs == 2, "remap is not registered with two inputs") &&
            GT_OK(gip_args_create(op, &a))) {
            GT_OK(gip_args_set_text(a, "interpolation", "nearest"));
            const gip_image *in[2] = {&mx, &my};
            if (GT_OK(gip_op_apply_inputs(ctx, a, &src, in, 2, &dst)))
                gt_compare(&dst, &src, 0, 0, "remap step, identity maps");
            const gip_image *missing[2] = {&mx, NULL};
            GT_STATUS(gip_op_apply_inputs(ctx, a, &src, missing, 2, &dst),
                      GIP_ERR_INVALID_ARGUMENT);
            gip_args_free(a);
        }
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&mx);
    gt_free(&my);
    gt_free(&small);
}

static void body(gip_context *ctx)
{
    cases(ctx);
    fixed_cases(ctx);
    if (gt_case())
        convert_maps_cases(ctx);
    if (gt_case())
        identity_registry_and_bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "remap", body);
}
