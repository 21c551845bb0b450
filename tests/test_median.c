/* SPDX-License-Identifier: MIT */
/* median (gip_median_blur) against a sorted-window reference with a replicated border (cv2's):
 * ksize 1, 3 and 5 on every dtype, 7 .. 255 on u8 (windows larger than the image included),
 * every awkward size, padded strides, 1/3/4 channels; CUDA equal to it, hence to the CPU; bad
 * input refused with outputs untouched; the registry entry and its halo. */
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void reference(const gip_image *src, gip_image *dst, int32_t k)
{
    const int32_t r = k / 2;
    double *win = malloc((size_t)k * k * sizeof *win);
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < src->channels; c++) {
                int32_t n = 0;
                for (int32_t dy = -r; dy <= r; dy++)
                    for (int32_t dx = -r; dx <= r; dx++) {
                        int64_t sx = x + dx, sy = y + dy;
                        sx = sx < 0 ? 0 : sx >= src->width ? src->width - 1 : sx;
                        sy = sy < 0 ? 0 : sy >= src->height ? src->height - 1 : sy;
                        win[n++] = gt_get(src, sx, sy, c);
                    }
                if (src->dtype == GIP_U8) { /* counting: the big windows stay cheap */
                    int32_t hist[256] = {0}, m = 0, below = 0;
                    for (int32_t i = 0; i < n; i++)
                        hist[(int)win[i]]++;
                    while (below + hist[m] <= n / 2)
                        below += hist[m++];
                    gt_set(dst, x, y, c, m);
                    continue;
                }
                qsort(win, (size_t)n, sizeof *win, cmp_double);
                gt_set(dst, x, y, c, win[n / 2]);
            }
    free(win);
}

static gip_status run_median(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const void *params)
{
    return gip_median_blur(ctx, src, dst, *(const int32_t *)params);
}

static void one(gip_context *ctx, int64_t w, int64_t h, gip_dtype dt, int32_t ch, int32_t k,
                uint64_t seed)
{
    gip_image src, dst, exp;
    gt_alloc(&src, w, h, ch, dt, seed % 3 ? 0 : 7);
    gt_alloc(&dst, w, h, ch, dt, seed % 2 ? 0 : 5);
    gt_alloc(&exp, w, h, ch, dt, 0);
    gt_fill_random(&src, seed, -100, 100);
    if (seed % 4 == 0) /* few distinct values: ties everywhere */
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int32_t c = 0; c < ch; c++)
                    gt_set(&src, x, y, c, ((int64_t)gt_get(&src, x, y, c) & 3) * 10);
    reference(&src, &exp, k);
    char label[96];
    snprintf(label, sizeof label, "median %d %lldx%lld %s c%d", (int)k, (long long)w, (long long)h,
             gip_dtype_name(dt), (int)ch);
    if (GT_OK(gt_run_unary(ctx, run_median, &src, &dst, &k, 0x5A))) {
        gt_compare(&dst, &exp, 0, 0, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

static void cases(gip_context *ctx)
{
    uint64_t seed = 3;
    static const int32_t small_k[] = {1, 3, 5};
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t k = 0; k < 3; k++, seed++)
                    if (gt_case())
                        one(ctx, gt_sizes[s].w, gt_sizes[s].h, dtypes[d], chans[c], small_k[k],
                            seed);
    /* 3x3 on u8 around the edges of CUDA's word kernel (a row's first, last and tail words; its
     * 8-row blocks): every width to 13 pixels, heights about multiples of 8. */
    const int32_t h3[] = {1, 2, 7, 8, 9, 17};
    for (int32_t w = 1; w <= 13; w++)
        for (int hi = 0; hi < 6; hi++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++, seed++)
                if (gt_case())
                    one(ctx, w, h3[hi], GIP_U8, chans[c], 3, seed);
    /* u8 histogram windows, up to 255 and larger than the image. */
    static const int32_t large_k[] = {7, 9, 15, 31, 101, 255};
    const gt_size sizes[] = {{1, 1}, {1, 17}, {17, 1}, {13, 42}, {64, 48}, {301, 97}};
    for (size_t k = 0; k < sizeof large_k / sizeof large_k[0]; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++, seed++) {
                if (!gt_case() || (large_k[k] > 31 && sizes[s].w * sizes[s].h > 1000))
                    continue;
                one(ctx, sizes[s].w, sizes[s].h, GIP_U8, chans[c], large_k[k], seed);
            }
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 3, GIP_F32, 0);
    gt_alloc(&dst, 9, 5, 3, GIP_F32, 0);
    gt_fill_random(&src, 1, 0, 1);
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_median_blur(ctx, &src, &dst, 7), GIP_ERR_INVALID_ARGUMENT); /* u8 only */
    GT_CHECK(strstr(gip_last_error(), "u8") != NULL, "message: %s", gip_last_error());
    GT_STATUS(gip_median_blur(ctx, &src, &dst, 4), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_median_blur(ctx, &src, &dst, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_median_blur(ctx, &src, &dst, 257), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_median_blur(ctx, &src, &src, 3), GIP_ERR_ALIASING);
    GT_STATUS(gip_median_blur(ctx, NULL, &dst, 3), GIP_ERR_INVALID_ARGUMENT);
    gip_image u8 = dst;
    u8.dtype = GIP_U8;
    GT_STATUS(gip_median_blur(ctx, &src, &u8, 3), GIP_ERR_SHAPE_MISMATCH);
    for (int64_t i = 0; i < 9 * 5 * 3 * 4; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&src);
    gt_free(&dst);
    /* The registry entry: ksize required and odd, halo ksize/2, replicate border. */
    const gip_op *op = gip_op_find("median");
    gip_args *a = NULL;
    if (GT_CHECK(op != NULL, "median is not registered") && GT_OK(gip_args_create(op, &a))) {
        GT_STATUS(gip_args_set_text(a, "ksize", "4"), GIP_ERR_INVALID_ARGUMENT);
        GT_OK(gip_args_set_text(a, "ksize", "9"));
        int64_t hx, hy;
        if (GT_OK(gip_op_halo(a, &hx, &hy)))
            GT_CHECK(hx == 4 && hy == 4, "halo %lld,%lld", (long long)hx, (long long)hy);
        gip_args_free(a);
    }
}

/* The 3x3 and 5x5 kernels of every vector width: where the CPU has AVX-512BW the cases above took
 * the 64-byte ones; the 32-byte (AVX2) and 16-byte (SSE2) ones run now (elsewhere this repeats
 * the same path). */
static void small_widths(gip_context *ctx)
{
    static const char *const vars[] = {"GIP_NOAVX512", "GIP_NOSIMD"};
    /* the awkward sizes but the largest, and rows of 1 to 3 vectors of each width with tails */
    const gt_size sizes[] = {{1, 1}, {1, 17}, {17, 1}, {13, 42}, {64, 48}, {129, 5}, {301, 7}};
    uint64_t seed = 1000;
    for (int v = 0; v < 2; v++) {
        printf("median: 3x3 and 5x5 again with %s=1\n", vars[v]);
        gt_setenv(vars[v], "1");
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
                for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                    for (int32_t k = 3; k <= 5; k += 2, seed++)
                        if (gt_case())
                            one(ctx, sizes[s].w, sizes[s].h, dtypes[d], chans[c], k, seed);
        gt_setenv(vars[v], NULL);
    }
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_current_backend == GT_CPU)
        small_widths(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "median", body);
}
