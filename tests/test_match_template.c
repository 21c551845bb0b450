/* SPDX-License-Identifier: MIT */
/* gip_match_template (cv2.matchTemplate): every method on u8 and f32, 1, 3 and 4 channels,
 * awkward sizes, padded strides, templates from 1x1 to the image's size (direct correlation, the
 * FFT past filter2D's crossover, the FFT alone past its largest kernel), against a long double
 * reference of OpenCV's formulas. The correlation is single precision, as OpenCV's: results are
 * held to the exact value within TM_ULPS units of f32 rounding of the largest correlation a window
 * could give (area * channels * max|image| * max|templ|), divided by the normalising denominator
 * for the normed methods. On CUDA the same cases run on device copies (the correlation from
 * filter2D's CUDA engines, window sums from device integral images). Bad input is refused with
 * the result untouched. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

#define TM_ULPS 8.0

/* Runs gip_match_template where the context computes: on CUDA with device copies of the images
 * (the result downloaded into res), on the CPU directly. */
static gip_status run_tm(gip_context *ctx, const gip_image *img, const gip_image *tpl, int method,
                         gip_image *res)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_match_template(ctx, img, tpl, method, res);
    gip_image di, dt, dr;
    gip_status st = gip_image_alloc(ctx, &di, img->width, img->height, img->channels, img->dtype,
                                    GIP_MEM_CUDA, 0);
    if (st)
        return st;
    if (!(st = gip_image_alloc(ctx, &dt, tpl->width, tpl->height, tpl->channels, tpl->dtype,
                               GIP_MEM_CUDA, 0))) {
        if (!(st = gip_image_alloc(ctx, &dr, res->width, res->height, 1, GIP_F32, GIP_MEM_CUDA,
                                   0))) {
            if (!(st = gip_upload(ctx, img, &di)) && !(st = gip_upload(ctx, tpl, &dt)) &&
                !(st = gip_match_template(ctx, &di, &dt, method, &dr)) &&
                !(st = gip_download(ctx, &dr, res)))
                st = gip_context_sync(ctx);
            gip_image_free(ctx, &dr);
        }
        gip_image_free(ctx, &dt);
    }
    gip_image_free(ctx, &di);
    return st;
}

static void check_one(gip_context *ctx, gip_dtype dt, int32_t cn, int64_t W, int64_t H, int64_t w,
                      int64_t h, int method, bool cut, uint64_t seed)
{
    gip_image img, tpl, res;
    gt_alloc(&img, W, H, cn, dt, seed % 2 ? 5 : 0);
    gt_alloc(&tpl, w, h, cn, dt, seed % 3 ? 0 : 3);
    gt_fill_random(&img, seed, -2.0f, 3.0f);
    gt_fill_random(&tpl, seed + 1000, -2.0f, 3.0f);
    const int64_t ox = (W - w) / 3, oy = (H - h) / 2;
    if (cut) /* a template cut from the image: a perfect match at (ox, oy) */
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int32_t c = 0; c < cn; c++)
                    gt_set(&tpl, x, y, c, gt_get(&img, ox + x, oy + y, c));
    const int64_t rw = W - w + 1, rh = H - h + 1;
    gt_alloc(&res, rw, rh, 1, GIP_F32, 4);
    gt_poison(&res, 0xFF);
    char label[128];
    snprintf(label, sizeof label, "method %d %s c%d image %lldx%lld templ %lldx%lld", method,
             gip_dtype_name(dt), (int)cn, (long long)W, (long long)H, (long long)w, (long long)h);
    if (!GT_OK(run_tm(ctx, &img, &tpl, method, &res)))
        goto out;
    GT_CHECK(gt_padding_intact(&res), "%s: padding written", label);
    long double ts[4] = {0}, tq = 0, mi = 1, mt = 1;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            for (int32_t c = 0; c < cn; c++) {
                long double v = gt_get(&tpl, x, y, c);
                ts[c] += v, tq += v * v;
                mt = fabsl(v) > mt ? fabsl(v) : mt;
            }
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++)
            for (int32_t c = 0; c < cn; c++)
                mi = fabsl(gt_get(&img, x, y, c)) > mi ? fabsl(gt_get(&img, x, y, c)) : mi;
    const long double area = (long double)w * h;
    const long double unit = area * cn * mi * mt * ldexpl(1.0L, -24);
    long double tvar = tq;
    for (int32_t c = 0; c < cn; c++)
        tvar -= ts[c] * ts[c] / area;
    for (int64_t ry = 0; ry < rh; ry++)
        for (int64_t rx = 0; rx < rw; rx++) {
            long double cr = 0, s[4] = {0}, q = 0;
            for (int64_t y = 0; y < h; y++)
                for (int64_t x = 0; x < w; x++)
                    for (int32_t c = 0; c < cn; c++) {
                        long double a = gt_get(&img, rx + x, ry + y, c);
                        cr += a * gt_get(&tpl, x, y, c);
                        s[c] += a, q += a * a;
                    }
            long double num, den = 1;
            if (method <= 1)
                num = fmaxl(q - 2 * cr + tq, 0), den = sqrtl(q * tq);
            else if (method <= 3)
                num = cr, den = sqrtl(q * tq);
            else {
                num = cr;
                long double m2 = 0;
                for (int32_t c = 0; c < cn; c++)
                    num -= s[c] * ts[c] / area, m2 += s[c] * s[c] / area;
                den = sqrtl(fmaxl(q - m2, 0) * tvar);
            }
            long double want = num, tol = TM_ULPS * unit;
            if (method & 1) {
                if (method == 5 && tvar < area * DBL_EPSILON * (1 + tq / area))
                    want = 1, tol = 0; /* a flat template: OpenCV's 1 everywhere */
                else {
                    tol = den > 0 ? tol / den : INFINITY;
                    long double r = den > 0 ? num / den : 0, a = fabsl(r);
                    /* OpenCV clamps ratios beyond 1 by rounding; near 1 and 1.125 rounding
                     * decides the branch */
                    if (fabsl(a - 1) <= tol || fabsl(a - 1.125L) <= tol)
                        continue;
                    want = a < 1 ? r : a < 1.125L ? (r > 0 ? 1 : -1) : (method == 1 ? 1 : 0);
                }
            }
            double g = gt_get(&res, rx, ry, 0);
            if (!GT_CHECK(fabsl(g - want) <= tol,
                          "%s at x=%lld y=%lld: got %.9g, expected %.9Lg "
                          "(tolerance %.3Lg)",
                          label, (long long)rx, (long long)ry, g, want, tol))
                goto out;
        }
    if (cut && (method == 1 || method == 3 || method == 5)) { /* the cut scores a match */
        GT_CHECK(fabs(gt_get(&res, ox, oy, 0) - (method == 1 ? 0.0 : 1.0)) < 1e-3,
                 "%s: the cut position scores %g", label, gt_get(&res, ox, oy, 0));
    }
out:
    gt_free(&img), gt_free(&tpl), gt_free(&res);
}

static void bad_input(gip_context *ctx)
{
    gip_image img, tpl, res, u16;
    gt_alloc(&img, 10, 8, 1, GIP_U8, 0);
    gt_alloc(&tpl, 3, 3, 1, GIP_U8, 0);
    gt_alloc(&res, 8, 6, 1, GIP_F32, 0);
    gt_alloc(&u16, 10, 8, 1, GIP_U16, 0);
    gt_fill_random(&img, 1, 0, 0);
    gt_fill_random(&tpl, 2, 0, 0);
    gt_poison(&res, 0x5A);
    GT_STATUS(gip_match_template(ctx, &img, &tpl, 6, &res), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_match_template(ctx, &img, &tpl, -1, &res), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_match_template(ctx, &tpl, &img, 0, &res), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_match_template(ctx, &u16, &tpl, 0, &res), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_match_template(ctx, NULL, &tpl, 0, &res), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_match_template(ctx, &img, &tpl, 0, NULL), GIP_ERR_INVALID_ARGUMENT);
    res.width = 7;
    GT_STATUS(gip_match_template(ctx, &img, &tpl, 0, &res), GIP_ERR_SHAPE_MISMATCH);
    res.width = 8;
    bool same = true;
    for (int64_t i = 0; i < 8 * 6 * 4; i++)
        same &= ((uint8_t *)res.data)[i] == 0x5A;
    GT_CHECK(same, "a refused call wrote its result");
    gt_free(&img), gt_free(&tpl), gt_free(&res), gt_free(&u16);
}

/* gip_match_template_masked against OpenCV's masked formulas in long double, window by window,
 * with the tolerance of single-precision correlations (TM_ULPS units of f32 rounding of
 * area * channels * max(|I|, |T|)^2 * max|M|^2, divided by the denominator when normed). */
static void masked_case(gip_context *ctx, gip_dtype dt, int32_t cn, int32_t mcn, gip_dtype mdt,
                        int64_t W, int64_t H, int64_t w, int64_t h, int method, uint64_t seed)
{
    gip_image img, tpl, msk, res;
    gt_alloc(&img, W, H, cn, dt, 3);
    gt_alloc(&tpl, w, h, cn, dt, 0);
    gt_alloc(&msk, w, h, mcn, mdt, 1);
    gt_alloc(&res, W - w + 1, H - h + 1, 1, GIP_F32, 0);
    gt_fill_random(&img, seed, -2.0f, 3.0f);
    gt_fill_random(&tpl, seed + 1, -2.0f, 3.0f);
    gt_fill_random(&msk, seed + 2, 0.0f, 1.0f);
    gt_set(&msk, 0, 0, 0, 1.0);
    char label[128];
    snprintf(label, sizeof label, "masked method %d %s c%d mask %s c%d %lldx%lld templ %lldx%lld",
             method, gip_dtype_name(dt), (int)cn, gip_dtype_name(mdt), (int)mcn, (long long)W,
             (long long)H, (long long)w, (long long)h);
    if (GT_OK(gip_match_template_masked(ctx, &img, &tpl, &msk, method, &res))) {
        long double mi = 1, mm = 1, sm[4] = {0}, smt[4] = {0};
#define MV(x, y, c)                                                                                \
    (mdt == GIP_U8 ? (long double)(gt_get(&msk, x, y, mcn == 1 ? 0 : c) != 0)                      \
                   : (long double)gt_get(&msk, x, y, mcn == 1 ? 0 : c))
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int32_t c = 0; c < cn; c++) {
                    sm[c] += MV(x, y, c);
                    smt[c] += MV(x, y, c) * gt_get(&tpl, x, y, c);
                    mi = fmaxl(mi, fabsl(gt_get(&tpl, x, y, c)));
                    mm = fmaxl(mm, fabsl(MV(x, y, c)));
                }
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++)
                for (int32_t c = 0; c < cn; c++)
                    mi = fmaxl(mi, fabsl(gt_get(&img, x, y, c)));
        const long double unit = (long double)w * h * cn * mi * mi * mm * mm * ldexpl(1, -24);
        for (int64_t ry = 0; ry <= H - h; ry++)
            for (int64_t rx = 0; rx <= W - w; rx++) {
                long double num = 0, a = 0, b = 0, im[4] = {0};
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++)
                        for (int32_t c = 0; c < cn; c++)
                            im[c] += MV(x, y, c) * gt_get(&img, rx + x, ry + y, c) / sm[c];
                for (int64_t y = 0; y < h; y++)
                    for (int64_t x = 0; x < w; x++)
                        for (int32_t c = 0; c < cn; c++) {
                            long double m = MV(x, y, c), t = gt_get(&tpl, x, y, c),
                                        i = gt_get(&img, rx + x, ry + y, c);
                            if (method <= 1)
                                num += (t - i) * m * (t - i) * m;
                            else if (method <= 3)
                                num += t * m * i * m;
                            else
                                num += m * (t - smt[c] / sm[c]) * m * (i - im[c]);
                            if (method >= 4)
                                a += m * m * (t - smt[c] / sm[c]) * (t - smt[c] / sm[c]),
                                    b += m * m * (i - im[c]) * (i - im[c]);
                            else
                                a += t * m * t * m, b += i * m * i * m;
                        }
                long double want = num, tol = TM_ULPS * unit;
                if (method & 1)
                    want = num / sqrtl(a * b), tol /= sqrtl(a * b);
                double g = gt_get(&res, rx, ry, 0);
                if (!GT_CHECK(fabsl(g - want) <= tol,
                              "%s at x=%lld y=%lld: got %.9g, expected "
                              "%.9Lg (tolerance %.3Lg)",
                              label, (long long)rx, (long long)ry, g, want, tol))
                    goto out;
            }
#undef MV
    }
out:
    gt_free(&img), gt_free(&tpl), gt_free(&msk), gt_free(&res);
}

static void masked_bad_input(gip_context *ctx)
{
    gip_image img, tpl, msk, m16, res;
    gt_alloc(&img, 10, 8, 1, GIP_U8, 0);
    gt_alloc(&tpl, 3, 3, 1, GIP_U8, 0);
    gt_alloc(&msk, 3, 2, 1, GIP_U8, 0);
    gt_alloc(&m16, 3, 3, 1, GIP_U16, 0);
    gt_alloc(&res, 8, 6, 1, GIP_F32, 0);
    gt_poison(&res, 0x5A);
    GT_STATUS(gip_match_template_masked(ctx, &img, &tpl, &msk, 0, &res), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_match_template_masked(ctx, &img, &tpl, &m16, 0, &res), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_match_template_masked(ctx, &img, &tpl, &m16, 9, &res), GIP_ERR_UNSUPPORTED);
    bool same = true;
    for (int64_t i = 0; i < 8 * 6 * 4; i++)
        same &= ((uint8_t *)res.data)[i] == 0x5A;
    GT_CHECK(same, "a refused masked call wrote its result");
    gt_free(&img), gt_free(&tpl), gt_free(&msk), gt_free(&m16), gt_free(&res);
}

static void body(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_F32};
    static const int32_t cns[] = {1, 3, 4};
    uint64_t seed = 1;
    for (int method = 0; method < 6; method++)
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < 3; k++)
                for (int i = 0; i < gt_nsizes; i++) {
                    const gt_size sz = gt_sizes[i];
                    const int64_t tw[] = {1, 3, 7, sz.w}, th[] = {1, 5, 7, sz.h};
                    for (int t = 0; t < 4; t++) {
                        if (tw[t] > sz.w || th[t] > sz.h || !gt_case())
                            continue;
                        if (sz.w * sz.h > 100000 && (t == 3 || cns[k] > 1 || d))
                            continue; /* the large image once per method, small templates */
                        check_one(ctx, dts[d], cns[k], sz.w, sz.h, tw[t], th[t], method, t == 2,
                                  seed++);
                    }
                }
    /* a template past filter2D's FFT crossover, and one past its largest kernel (FFT alone) */
    for (int method = 0; method < 6; method++) {
        if (gt_case())
            check_one(ctx, GIP_U8, 1, 200, 150, 64, 60, method, true, seed++);
        if (gt_case())
            check_one(ctx, GIP_F32, 3, 90, 80, 64, 60, method, false, seed++);
        if (gt_case())
            check_one(ctx, GIP_U8, 1, 300, 290, 270, 260, method, true, seed++);
    }
    for (int method = 0; method < 6; method++)
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < 3; k++)
                for (int md = 0; md < 2; md++) {
                    if (!gt_case())
                        continue;
                    const int32_t cn = k ? 3 : 1, mcn = k == 2 ? 3 : 1;
                    masked_case(ctx, dts[d], cn, mcn, md ? GIP_F32 : GIP_U8, 23, 20, 5, 4, method,
                                seed++);
                    masked_case(ctx, dts[d], cn, mcn, md ? GIP_F32 : GIP_U8, 9, 9, 9, 9, method,
                                seed++);
                }
    bad_input(ctx);
    masked_bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "match_template", body);
}
