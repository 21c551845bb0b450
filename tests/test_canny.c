/* SPDX-License-Identifier: MIT */
/* canny and canny_dxdy (gip_canny, gip_canny_dxdy) against a reference written here from
 * OpenCV's definition: Sobel to s16 with a replicated border (the 7x7 scaled by 1/16 with the
 * thresholds), the channel of largest magnitude, suppression with OpenCV's integer direction
 * test, and the hysteresis as a repeated sweep until nothing changes (a different algorithm from
 * the library's stack walk and tile propagation). Every aperture, L1 and L2, thresholds that cut
 * weak chains, 1/3/4 channels, awkward sizes, strides; CUDA equal to it; the dx/dy form through
 * the registry's extra input; bad input refused with outputs untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_filter2d.h"
#include "testing.h"

static const int32_t chans[] = {1, 3, 4};

/* What the references produced, so that the cases are known to exercise the hysteresis: edge
 * pixels, and weak candidates the hysteresis left out. */
static int64_t n_edges, n_dropped;

/* s16 derivative of a u8 image as OpenCV's Sobel to CV_16S with `scale` (1 or 1/16). */
static void ref_deriv(const gip_image *src, int32_t dx, int32_t ap, double scale, gip_image *out)
{
    double k[49];
    int32_t kw, kh;
    ref2d_sobel_kernel(dx, 1 - dx, ap, k, &kw, &kh);
    const int64_t n = src->width * src->height * src->channels;
    double *v = malloc((size_t)n * sizeof *v);
    ref2d_correlate(src, k, kw, kh, kw / 2, kh / 2, GIP_BORDER_REPLICATE, NULL, v);
    for (int64_t i = 0; i < n; i++)
        v[i] *= scale;
    ref2d_store(out, v);
    free(v);
}

static int32_t mag_of(int32_t gx, int32_t gy, bool l2)
{
    return l2 ? (int32_t)((uint32_t)(gx * gx) + (uint32_t)(gy * gy)) : abs(gx) + abs(gy);
}

/* The edges of dx, dy into dst (u8 0/255), thresholds already OpenCV's integers. */
static void ref_edges(const gip_image *dx, const gip_image *dy, int32_t low, int32_t high, bool l2,
                      gip_image *dst)
{
    const int64_t w = dx->width, h = dx->height;
    int32_t *mag = calloc((size_t)(w * h), sizeof *mag);
    int32_t *sx = calloc((size_t)(w * h), sizeof *sx), *sy = calloc((size_t)(w * h), sizeof *sy);
    uint8_t *map = calloc((size_t)(w * h), 1);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            int32_t best = -1, bi = 0;
            for (int32_t c = 0; c < dx->channels; c++) {
                int32_t m = mag_of((int32_t)gt_get(dx, x, y, c), (int32_t)gt_get(dy, x, y, c), l2);
                if (c == 0 || m > best) {
                    best = m;
                    bi = c;
                }
            }
            mag[y * w + x] = best;
            sx[y * w + x] = (int32_t)gt_get(dx, x, y, bi);
            sy[y * w + x] = (int32_t)gt_get(dy, x, y, bi);
        }
#define M(yy, xx) ((yy) < 0 || (yy) >= h || (xx) < 0 || (xx) >= w ? 0 : mag[(yy)*w + (xx)])
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            const int32_t m = mag[y * w + x];
            if (m <= low)
                continue;
            /* angle sectors by OpenCV's integer tangents: tan 22.5 = 13573 / 2^15 */
            const int64_t ax = llabs(sx[y * w + x]), ay = llabs(sy[y * w + x]) << 15;
            const int64_t t22 = ax * 13573, t67 = t22 + (ax << 16);
            bool keep;
            if (ay < t22)
                keep = m > M(y, x - 1) && m >= M(y, x + 1);
            else if (ay > t67)
                keep = m > M(y - 1, x) && m >= M(y + 1, x);
            else {
                const int s = (sx[y * w + x] < 0) != (sy[y * w + x] < 0) ? -1 : 1;
                keep = m > M(y - 1, x - s) && m > M(y + 1, x + s);
            }
            if (keep)
                map[y * w + x] = m > high ? 2 : 1;
        }
#undef M
    for (bool changed = true; changed;) {
        changed = false;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                if (map[y * w + x] != 1)
                    continue;
                for (int64_t yy = y - 1; yy <= y + 1; yy++)
                    for (int64_t xx = x - 1; xx <= x + 1; xx++)
                        if (yy >= 0 && yy < h && xx >= 0 && xx < w && map[yy * w + xx] == 2 &&
                            map[y * w + x] == 1) {
                            map[y * w + x] = 2;
                            changed = true;
                        }
            }
    }
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            gt_set(dst, x, y, 0, map[y * w + x] == 2 ? 255 : 0);
            n_edges += map[y * w + x] == 2;
            n_dropped += map[y * w + x] == 1;
        }
    free(mag);
    free(sx);
    free(sy);
    free(map);
}

static void thresholds(double t1, double t2, int32_t ap, bool l2, int32_t *low, int32_t *high)
{
    double lo = fmin(t1, t2) / (ap == 7 ? 16 : 1), hi = fmax(t1, t2) / (ap == 7 ? 16 : 1);
    if (l2) {
        lo = fmin(lo, 32767);
        hi = fmin(hi, 32767);
        lo = lo > 0 ? lo * lo : lo;
        hi = hi > 0 ? hi * hi : hi;
    }
    *low = (int32_t)floor(lo);
    *high = (int32_t)floor(hi);
}

static gip_status run_canny(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *params)
{
    return gip_canny(ctx, src, dst, params);
}

/* A smooth random image: edges along the blobs' rims, with weak chains. */
static void smooth_fill(gip_image *img, uint64_t seed)
{
    gt_fill_random(img, seed, 0, 0);
    for (int pass = 0; pass < 2; pass++)
        for (int64_t y = 0; y < img->height; y++)
            for (int64_t x = 1; x < img->width; x++)
                for (int32_t c = 0; c < img->channels; c++)
                    gt_set(img, x, y, c,
                           (gt_get(img, x - 1, y, c) * 3 + gt_get(img, x, y, c)) / 4 +
                               (y > 0 ? (gt_get(img, x, y - 1, c) - gt_get(img, x, y, c)) / 2 : 0));
}

static void cases(gip_context *ctx)
{
    uint64_t seed = 1;
    static const double ts[][2] = {{50, 150}, {150, 40}, {10, 30}, {400, 1200}, {0, 0}};
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t c = 0; c < 3; c++)
            for (int32_t ap = 3; ap <= 7; ap += 2)
                for (int l2 = 0; l2 <= 1; l2++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    gip_canny_params p = {.threshold1 = ts[seed % 5][0],
                                          .threshold2 = ts[seed % 5][1] * (ap == 7 ? 8 : 1),
                                          .aperture = ap,
                                          .l2_gradient = l2};
                    gip_image src, dst, exp, gx, gy;
                    gt_alloc(&src, sz.w, sz.h, chans[c], GIP_U8, seed % 3 ? 0 : 7);
                    gt_alloc(&dst, sz.w, sz.h, 1, GIP_U8, seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, 1, GIP_U8, 0);
                    gt_alloc(&gx, sz.w, sz.h, chans[c], GIP_S16, 0);
                    gt_alloc(&gy, sz.w, sz.h, chans[c], GIP_S16, 0);
                    if (seed % 4)
                        smooth_fill(&src, seed);
                    else
                        gt_fill_random(&src, seed, 0, 0);
                    const double sc = ap == 7 ? 1.0 / 16 : 1.0;
                    ref_deriv(&src, 1, ap, sc, &gx);
                    ref_deriv(&src, 0, ap, sc, &gy);
                    int32_t low, high;
                    thresholds(p.threshold1, p.threshold2, ap, l2, &low, &high);
                    ref_edges(&gx, &gy, low, high, l2, &exp);
                    char label[96];
                    snprintf(label, sizeof label, "canny ap%d l2=%d %lldx%lld c%d t %g,%g", (int)ap,
                             l2, (long long)sz.w, (long long)sz.h, (int)chans[c], p.threshold1,
                             p.threshold2);
                    if (GT_OK(gt_run_unary(ctx, run_canny, &src, &dst, &p, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                    gt_free(&gx);
                    gt_free(&gy);
                }
}

/* A weak vertical edge down a tall image, strong only in its last rows: the edge must grow up
 * through every band of rows the hysteresis is cut into. */
static void tall_chain(gip_context *ctx)
{
    const int64_t w = 24, h = 700;
    gip_image src, dst, exp, gx, gy;
    gt_alloc(&src, w, h, 1, GIP_U8, 0);
    gt_alloc(&dst, w, h, 1, GIP_U8, 0);
    gt_alloc(&exp, w, h, 1, GIP_U8, 0);
    gt_alloc(&gx, w, h, 1, GIP_S16, 0);
    gt_alloc(&gy, w, h, 1, GIP_S16, 0);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            gt_set(&src, x, y, 0, x < w / 2 ? 100 : y < h - 20 ? 120 : 160);
    gip_canny_params p = {.threshold1 = 50, .threshold2 = 150, .aperture = 3};
    ref_deriv(&src, 1, 3, 1.0, &gx);
    ref_deriv(&src, 0, 3, 1.0, &gy);
    int32_t low, high;
    thresholds(p.threshold1, p.threshold2, 3, false, &low, &high);
    ref_edges(&gx, &gy, low, high, false, &exp);
    int64_t n = 0;
    for (int64_t y = 0; y < h; y++)
        n += gt_get(&exp, w / 2 - 1, y, 0) != 0 || gt_get(&exp, w / 2, y, 0) != 0;
    GT_CHECK(n == h, "tall chain: the reference has edges on %lld of %lld rows", (long long)n,
             (long long)h);
    if (GT_OK(gt_run_unary(ctx, run_canny, &src, &dst, &p, 0x5A)))
        gt_compare(&dst, &exp, 0, 0, "canny, a weak edge grown up 700 rows");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
    gt_free(&gx);
    gt_free(&gy);
}

/* The dx/dy form through the registry (src dx, input dy), on the context's backend. */
static void dxdy(gip_context *ctx)
{
    const gip_op *op = gip_op_find("canny_dxdy");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "canny_dxdy is not registered") || !GT_OK(gip_args_create(op, &a)))
        return;
    GT_OK(gip_args_set_text(a, "threshold1", "30"));
    GT_OK(gip_args_set_text(a, "threshold2", "90"));
    GT_OK(gip_args_set_text(a, "l2", "1"));
    const int64_t w = 97, h = 61;
    gip_image src, gx, gy, dst, exp;
    gt_alloc(&src, w, h, 3, GIP_U8, 0);
    gt_alloc(&gx, w, h, 3, GIP_S16, 6);
    gt_alloc(&gy, w, h, 3, GIP_S16, 0);
    gt_alloc(&dst, w, h, 1, GIP_U8, 0);
    gt_alloc(&exp, w, h, 1, GIP_U8, 0);
    smooth_fill(&src, 77);
    ref_deriv(&src, 1, 5, 1, &gx);
    ref_deriv(&src, 0, 5, 1, &gy);
    ref_edges(&gx, &gy, 900, 8100, true, &exp);
    const bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_image dgx = gx, dgy = gy, ddst = dst;
    gip_status st = GIP_OK;
    if (cuda) {
        st = gip_image_alloc(ctx, &dgx, w, h, 3, GIP_S16, GIP_MEM_CUDA, 0);
        if (!st)
            st = gip_image_alloc(ctx, &dgy, w, h, 3, GIP_S16, GIP_MEM_CUDA, 0);
        if (!st)
            st = gip_image_alloc(ctx, &ddst, w, h, 1, GIP_U8, GIP_MEM_CUDA, 0);
        if (!st && !(st = gip_upload(ctx, &gx, &dgx)))
            st = gip_upload(ctx, &gy, &dgy);
    }
    const gip_image *in[1] = {&dgy};
    if (GT_OK(st) && GT_OK(gip_op_apply_inputs(ctx, a, &dgx, in, 1, &ddst)) &&
        (!cuda || (GT_OK(gip_download(ctx, &ddst, &dst)) && GT_OK(gip_context_sync(ctx)))))
        gt_compare(&dst, &exp, 0, 0, "canny_dxdy l2 aperture-5 derivatives");
    /* dy of another type is refused by the registry */
    gip_image bad = dgy;
    bad.channels = 1;
    const gip_image *in2[1] = {&bad};
    GT_STATUS(gip_op_apply_inputs(ctx, a, &dgx, in2, 1, &ddst), GIP_ERR_SHAPE_MISMATCH);
    if (cuda) {
        gip_image_free(ctx, &dgx);
        gip_image_free(ctx, &dgy);
        gip_image_free(ctx, &ddst);
    }
    gip_args_free(a);
    gt_free(&src);
    gt_free(&gx);
    gt_free(&gy);
    gt_free(&dst);
    gt_free(&exp);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 1, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gip_canny_params p = {.threshold1 = 10, .threshold2 = 20, .aperture = 4};
    GT_STATUS(gip_canny(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.aperture = 3;
    p.threshold2 = NAN;
    GT_STATUS(gip_canny(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.threshold2 = 20;
    GT_STATUS(gip_canny(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    GT_STATUS(gip_canny(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image u16;
    gt_alloc(&u16, 9, 5, 1, GIP_U16, 0);
    GT_STATUS(gip_canny(ctx, &u16, &dst, &p), GIP_ERR_UNSUPPORTED);
    gt_free(&u16);
    gip_image three = dst;
    three.channels = 3;
    three.width = 3;
    gip_image s3 = src;
    s3.width = 3;
    GT_STATUS(gip_canny(ctx, &s3, &three, &p), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_canny_dxdy(ctx, &src, &src, &dst, &p), GIP_ERR_UNSUPPORTED); /* not s16 */
    for (int64_t i = 0; i < 9 * 5; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&src);
    gt_free(&dst);
}

static void body(gip_context *ctx)
{
    cases(ctx);
    /* (a sliced run sees only some cases) */
    GT_CHECK(getenv("GIP_TEST_SLICE") || (n_edges > 1000 && n_dropped > 100),
             "the cases made %lld edge pixels and dropped %lld weak ones: too few to test",
             (long long)n_edges, (long long)n_dropped);
    if (gt_case())
        tall_chain(ctx);
    if (gt_case())
        dxdy(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "canny", body);
}
