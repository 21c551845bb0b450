/* SPDX-License-Identifier: MIT */
/* gip_pyr_down and gip_pyr_up against a reference written here (the 5x5 binomial sum with
 * OpenCV's borders and its rounding, exact for integers) on every dtype, channel count, awkward
 * size, padded stride and border; on CUDA equal to the CPU bit for bit; bad input refused. */
#include <math.h>
#include <string.h>

#include "gip/geometry.h"
#include "ref_filter.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const gip_border borders[] = {GIP_BORDER_REFLECT_101, GIP_BORDER_REFLECT,
                                     GIP_BORDER_REPLICATE, GIP_BORDER_WRAP};
static const double k5[5] = {1, 4, 6, 4, 1};

/* The exact sum, then OpenCV's rounding ((v + half) >> bits for integers). */
static void store(gip_image *exp, int64_t x, int64_t y, int32_t c, double sum, int bits)
{
    if (exp->dtype == GIP_F32)
        gt_set(exp, x, y, c, sum / (1 << bits));
    else
        gt_set(exp, x, y, c, floor((sum + (1 << (bits - 1))) / (1 << bits)));
}

static void ref_down(const gip_image *s, gip_image *e, gip_border b)
{
    for (int64_t y = 0; y < e->height; y++)
        for (int64_t x = 0; x < e->width; x++)
            for (int32_t c = 0; c < s->channels; c++) {
                double v = 0;
                for (int j = 0; j < 5; j++)
                    for (int i = 0; i < 5; i++)
                        v += k5[j] * k5[i] *
                             gt_get(s, ref_border_map(2 * x - 2 + i, s->width, b),
                                    ref_border_map(2 * y - 2 + j, s->height, b), c);
                store(e, x, y, c, v, 8);
            }
}

/* pyrUp: the zero-inserted 2w x 2h image, reflect101 in that space, times 4 each way. */
static double up_sample(const gip_image *s, int64_t X, int64_t Y, int32_t c)
{
    X = ref_border_map(X, 2 * s->width, GIP_BORDER_REFLECT_101);
    Y = ref_border_map(Y, 2 * s->height, GIP_BORDER_REFLECT_101);
    if ((X & 1) || (Y & 1))
        return 0;
    return gt_get(s, X / 2, Y / 2, c);
}

static void ref_up(const gip_image *s, gip_image *e)
{
    for (int64_t y = 0; y < e->height; y++)
        for (int64_t x = 0; x < e->width; x++)
            for (int32_t c = 0; c < s->channels; c++) {
                double v = 0;
                for (int j = 0; j < 5; j++)
                    for (int i = 0; i < 5; i++)
                        v += 4 * k5[j] * k5[i] * up_sample(s, x - 2 + i, y - 2 + j, c);
                store(e, x, y, c, v, 8);
            }
}

typedef struct pyr_case {
    int up;
    gip_border border;
} pyr_case;

static gip_status run_pyr(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    const pyr_case *p = a;
    return p->up ? gip_pyr_up(ctx, src, dst) : gip_pyr_down(ctx, src, dst, p->border);
}

static void cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    uint64_t seed = 31;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t b = 0; b <= sizeof borders / sizeof borders[0]; b++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    const int big = sz.w * sz.h > 100000;
                    if (big && (c != 1 || b > 1))
                        continue; /* kept short: the big size once per dtype and direction */
                    pyr_case p = {b == sizeof borders / sizeof borders[0],
                                  borders[b % (sizeof borders / sizeof borders[0])]};
                    const int64_t dw = p.up ? 2 * sz.w : (sz.w + 1) / 2;
                    const int64_t dh = p.up ? 2 * sz.h : (sz.h + 1) / 2;
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                    gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                    gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                    gt_fill_random(&src, seed, 0, 0);
                    char label[96];
                    snprintf(label, sizeof label, "%s %lldx%lld %s c%d %s",
                             p.up ? "pyr_up" : "pyr_down", (long long)sz.w, (long long)sz.h,
                             gip_dtype_name(dtypes[d]), (int)chans[c],
                             p.up ? "" : gip_border_name(p.border));
                    if (GT_OK(gt_run_unary(ctx, run_pyr, &src, &dst, &p, 0x5A))) {
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                        if (cpu) {
                            if (GT_OK(run_pyr(cpu, &src, &exp, &p)))
                                gt_compare(&dst, &exp, 0, 0, label);
                        } else {
                            if (p.up)
                                ref_up(&src, &exp);
                            else
                                ref_down(&src, &exp, p.border);
                            /* f32: single-precision sums of values below 256 */
                            gt_compare(&dst, &exp, 1e-4, 1e-6, label);
                        }
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
    gip_context_destroy(cpu);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 5, 3, 3, GIP_U8, 0);
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_pyr_down(ctx, &src, &dst, GIP_BORDER_CONSTANT), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pyr_down(ctx, &src, &dst, (gip_border)9), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pyr_up(ctx, &src, &dst), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_pyr_down(ctx, NULL, &dst, GIP_BORDER_REFLECT_101), GIP_ERR_INVALID_ARGUMENT);
    gip_image small = dst;
    small.width = 4;
    GT_STATUS(gip_pyr_down(ctx, &src, &small, GIP_BORDER_REFLECT_101), GIP_ERR_SHAPE_MISMATCH);
    for (int64_t i = 0; i < 5 * 3 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&src);
    gt_free(&dst);
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "pyr_down", body);
}
