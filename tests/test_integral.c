/* SPDX-License-Identifier: MIT */
/* gip_integral (cv2.integral3): sum, squared sum and tilted integral images against exact
 * references (64-bit integers, or long double sums of the definition) on every dtype, channel
 * count, awkward size, padded source stride and padded output stride; s32 results wrapping as
 * OpenCV's, f32 results within their summation bound; every depth combination cv2 refuses is
 * refused with the outputs untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

typedef struct arr {
    gip_array a;
    void *buf;
} arr;

static size_t esize(int32_t depth)
{
    return depth == GIP_DEPTH_F64 ? 8 : 4;
}

static void arr_alloc(arr *r, int64_t w, int64_t h, int32_t cn, int32_t depth, int64_t pad)
{
    int64_t stride = w * cn * (int64_t)esize(depth) + pad * (int64_t)esize(depth);
    r->buf = malloc((size_t)(stride * h) + 8);
    if (!r->buf)
        abort();
    memset(r->buf, 0xA5, (size_t)(stride * h));
    r->a = (gip_array){r->buf, w, h, cn, depth, stride};
}

static double arr_get(const arr *r, int64_t x, int64_t y, int32_t c)
{
    const char *row = (const char *)r->a.data + y * r->a.stride;
    int64_t i = x * r->a.channels + c;
    switch (r->a.depth) {
    case GIP_DEPTH_S32:
        return ((const int32_t *)row)[i];
    case GIP_DEPTH_F32:
        return ((const float *)row)[i];
    default:
        return ((const double *)row)[i];
    }
}

/* The exact value of a sum given as long double, as the depth holds it: s32 wraps mod 2^32. */
static double as_depth(long double v, int32_t depth)
{
    if (depth == GIP_DEPTH_S32)
        return (double)(int32_t)(uint32_t)(uint64_t)(int64_t)v;
    return (double)v;
}

/* Compares `got` with exact sums `ex` (and `ab`, the sums of magnitudes, for the f32 bound). */
static void compare(const arr *got, const long double *ex, const long double *ab, int64_t w1,
                    int64_t h1, int32_t cn, double ulps, const char *what, const char *label)
{
    for (int64_t y = 0; y < h1; y++)
        for (int64_t x = 0; x < w1; x++)
            for (int32_t c = 0; c < cn; c++) {
                int64_t i = (y * w1 + x) * cn + c;
                double g = arr_get(got, x, y, c), e = as_depth(ex[i], got->a.depth);
                double tol = got->a.depth == GIP_DEPTH_F32 ? ulps * ldexp(1.0, -24) * (double)ab[i]
                             : got->a.depth == GIP_DEPTH_F64
                                 ? ulps * ldexp(1.0, -53) * (double)ab[i]
                                 : 0.0;
                if (!GT_CHECK(fabs(g - e) <= tol,
                              "%s %s at x=%lld y=%lld c=%d: got %.17g, expected %.17g", label, what,
                              (long long)x, (long long)y, (int)c, g, e))
                    return;
            }
}

static void run_case(gip_context *ctx, gip_dtype dt, int32_t cn, int64_t w, int64_t h, int32_t sd,
                     int32_t qd, bool tilted, uint64_t seed)
{
    gip_image src;
    gt_alloc(&src, w, h, cn, dt, seed % 3 ? 7 : 0);
    gt_fill_random(&src, seed, -2.0f, 3.0f);
    const int64_t w1 = w + 1, h1 = h + 1, n = w1 * h1 * cn;
    long double *es = calloc((size_t)n, sizeof *es), *eq = calloc((size_t)n, sizeof *eq);
    long double *as = calloc((size_t)n, sizeof *as), *et = NULL, *at = NULL;
    if (!es || !eq || !as)
        abort();
    for (int64_t y = 1; y < h1; y++)
        for (int64_t x = 1; x < w1; x++)
            for (int32_t c = 0; c < cn; c++) {
                long double v = gt_get(&src, x - 1, y - 1, c);
                int64_t i = (y * w1 + x) * cn + c, l = i - cn, u = i - w1 * cn, ul = u - cn;
                es[i] = v + es[l] + es[u] - es[ul];
                eq[i] = v * v + eq[l] + eq[u] - eq[ul];
                as[i] = fabsl(v) + as[l] + as[u] - as[ul];
            }
    if (tilted) { /* the definition, summed directly */
        et = calloc((size_t)n, sizeof *et);
        at = calloc((size_t)n, sizeof *at);
        if (!et || !at)
            abort();
        for (int64_t Y = 0; Y < h1; Y++)
            for (int64_t X = 0; X < w1; X++)
                for (int64_t y = 0; y < Y; y++)
                    for (int64_t x = X - 1 - (Y - 1 - y); x <= X - 1 + (Y - 1 - y); x++)
                        if (x >= 0 && x < w)
                            for (int32_t c = 0; c < cn; c++) {
                                long double v = gt_get(&src, x, y, c);
                                et[(Y * w1 + X) * cn + c] += v;
                                at[(Y * w1 + X) * cn + c] += fabsl(v);
                            }
    }
    arr s, q, t = {0};
    arr_alloc(&s, w1, h1, cn, sd, seed % 2 ? 3 : 0);
    arr_alloc(&q, w1, h1, cn, qd, seed % 2 ? 0 : 5);
    if (tilted)
        arr_alloc(&t, w1, h1, cn, sd, 1);
    char label[160];
    snprintf(label, sizeof label, "%s c%d %lldx%lld sdepth %d sqdepth %d", gip_dtype_name(dt),
             (int)cn, (long long)w, (long long)h, (int)sd, (int)qd);
    if (GT_OK(gip_integral(ctx, &src, &s.a, &q.a, tilted ? &t.a : NULL))) {
        /* a running row sum plus the column above: at most w + h roundings of partial sums */
        double ulps = (double)(w + h + 2);
        compare(&s, es, as, w1, h1, cn, ulps, "sum", label);
        compare(&q, eq, eq, w1, h1, cn, ulps, "sqsum", label);
        if (tilted) /* the recurrence adds four terms per step, h steps down */
            compare(&t, et, at, w1, h1, cn, 8.0 * (double)(w + h + 2), "tilted", label);
    }
    free(s.buf), free(q.buf), free(t.buf);
    free(es), free(eq), free(as), free(et), free(at);
    gt_free(&src);
}

/* The s32 sum alone of a one-channel u8 image (cv2.integral's default, a route of its own on
 * the CPU) against a uint32 reference, every pixel; padded source rows and output rows padded
 * by any number of elements (rows that start anywhere against the vector steps). */
static void sum_only_case(gip_context *ctx, int64_t w, int64_t h, int64_t pad, uint64_t seed)
{
    gip_image src;
    gt_alloc(&src, w, h, 1, GIP_U8, seed % 2 ? 5 : 0);
    gt_fill_random(&src, seed, 0.0f, 0.0f);
    if (seed % 3 == 0) /* white: the largest sums */
        for (int64_t y = 0; y < h; y++)
            memset((char *)src.data + y * src.stride, 255, (size_t)w);
    const int64_t w1 = w + 1, h1 = h + 1;
    uint32_t *ref = calloc((size_t)(w1 * h1), sizeof *ref);
    if (!ref)
        abort();
    for (int64_t y = 1; y < h1; y++) {
        uint32_t r = 0;
        for (int64_t x = 1; x < w1; x++) {
            r += ((const uint8_t *)src.data)[(y - 1) * src.stride + x - 1];
            ref[y * w1 + x] = ref[(y - 1) * w1 + x] + r;
        }
    }
    arr s;
    arr_alloc(&s, w1, h1, 1, GIP_DEPTH_S32, pad);
    if (GT_OK(gip_integral(ctx, &src, &s.a, NULL, NULL))) {
        for (int64_t y = 0; y < h1; y++)
            for (int64_t x = 0; x < w1; x++) {
                const uint32_t g = ((const uint32_t *)((const char *)s.a.data + y * s.a.stride))[x];
                if (!GT_CHECK(g == ref[y * w1 + x],
                              "sum only %lldx%lld pad %lld: x=%lld y=%lld got %u, expected %u",
                              (long long)w, (long long)h, (long long)pad, (long long)x,
                              (long long)y, g, ref[y * w1 + x]))
                    goto out;
            }
        for (int64_t y = 0; y < h1; y++) /* padding untouched */
            for (int64_t b = w1 * 4; b < s.a.stride; b++)
                if (!GT_CHECK(((const unsigned char *)s.a.data)[y * s.a.stride + b] == 0xA5,
                              "sum only %lldx%lld pad %lld: padding written", (long long)w,
                              (long long)h, (long long)pad))
                    goto out;
    }
out:
    free(s.buf);
    free(ref);
    gt_free(&src);
}

static void sum_only(gip_context *ctx)
{
    static const gt_size more[] = {{31, 3}, {32, 2}, {33, 4}, {63, 5}, {64, 1}, {95, 7}, {200, 9}};
    uint64_t seed = 500;
    for (int i = 0; i < gt_nsizes; i++)
        for (int64_t pad = 0; pad < 4; pad++, seed++)
            if (gt_case())
                sum_only_case(ctx, gt_sizes[i].w, gt_sizes[i].h, pad * 5, seed);
    for (int i = 0; i < 7; i++)
        for (int64_t pad = 0; pad < 3; pad++, seed++)
            if (gt_case())
                sum_only_case(ctx, more[i].w, more[i].h, pad, seed);
}

/* On CUDA: device src and outputs against a CPU context on the same pixels. Integer sources into
 * s32 or f64 and every tilted image are identical (exact, or the same order of additions); f32
 * sums are scanned in another order: within (w + h + 2) units of f32 rounding of the largest
 * value. */
static void cuda_vs_cpu(gip_context *ctx, gip_dtype dt, int32_t cn, int64_t w, int64_t h,
                        int32_t sd, int32_t qd, uint64_t seed)
{
    gip_context *cpu = NULL;
    gip_context_desc desc = {.backend = GIP_BACKEND_CPU};
    if (!GT_OK(gip_context_create(&desc, &cpu)))
        return;
    gip_image src, dsrc, dbuf[3], hbuf[3];
    gt_alloc(&src, w, h, cn, dt, 0);
    gt_fill_random(&src, seed, -2.0f, 3.0f);
    const int32_t depth[3] = {sd, qd, sd};
    arr ref[3];
    gip_array dev[3];
    bool ok = GT_OK(gip_image_alloc(ctx, &dsrc, w, h, cn, dt, GIP_MEM_CUDA, 0)) &&
              GT_OK(gip_upload(ctx, &src, &dsrc));
    for (int k = 0; k < 3; k++) {
        arr_alloc(&ref[k], w + 1, h + 1, cn, depth[k], 0);
        int64_t rb = (w + 1) * cn * (int64_t)esize(depth[k]);
        ok = ok && GT_OK(gip_image_alloc(ctx, &dbuf[k], rb, h + 1, 1, GIP_U8, GIP_MEM_CUDA, 0));
        gt_alloc(&hbuf[k], rb, h + 1, 1, GIP_U8, 0);
        dev[k] = (gip_array){ok ? dbuf[k].data : NULL, w + 1,       h + 1, cn, depth[k],
                             ok ? dbuf[k].stride : 0,  GIP_MEM_CUDA};
    }
    if (ok && GT_OK(gip_integral(cpu, &src, &ref[0].a, &ref[1].a, &ref[2].a)) &&
        GT_OK(gip_integral(ctx, &dsrc, &dev[0], &dev[1], &dev[2])))
        for (int k = 0; k < 3; k++) {
            if (!GT_OK(gip_download(ctx, &dbuf[k], &hbuf[k])))
                break;
            arr got = {{hbuf[k].data, w + 1, h + 1, cn, depth[k], hbuf[k].stride, 0}, NULL};
            const bool exact = k == 2 || (dt != GIP_F32 && depth[k] != GIP_DEPTH_F32);
            double mx = 0;
            for (int64_t y = 0; y <= h; y++)
                for (int64_t x = 0; x <= w; x++)
                    for (int32_t c = 0; c < cn; c++)
                        mx = fmax(mx, fabs(arr_get(&ref[k], x, y, c)));
            double tol = exact ? 0 : (double)(w + h + 2) * ldexp(1.0, -24) * mx;
            bool same = true;
            for (int64_t y = 0; y <= h && same; y++)
                for (int64_t x = 0; x <= w && same; x++)
                    for (int32_t c = 0; c < cn && same; c++) {
                        double g = arr_get(&got, x, y, c), e = arr_get(&ref[k], x, y, c);
                        same = GT_CHECK(fabs(g - e) <= tol,
                                        "CUDA integral %s c%d %lldx%lld output %d at x=%lld "
                                        "y=%lld: %.17g, CPU %.17g",
                                        gip_dtype_name(dt), (int)cn, (long long)w, (long long)h, k,
                                        (long long)x, (long long)y, g, e);
                    }
        }
    for (int k = 0; k < 3; k++) {
        if (ok)
            gip_image_free(ctx, &dbuf[k]);
        gt_free(&hbuf[k]);
        free(ref[k].buf);
    }
    if (ok)
        gip_image_free(ctx, &dsrc);
    gt_free(&src);
    gip_context_destroy(cpu);
}

static void bad_input(gip_context *ctx)
{
    gip_image src;
    gt_alloc(&src, 5, 4, 1, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    arr s, q;
    arr_alloc(&s, 6, 5, 1, GIP_DEPTH_F64, 0);
    arr_alloc(&q, 6, 5, 1, GIP_DEPTH_F32, 0);
    unsigned char before[240];
    memcpy(before, s.buf, sizeof before);
    /* cv2 refuses an f32 squared sum with an f64 sum */
    GT_STATUS(gip_integral(ctx, &src, &s.a, &q.a, NULL), GIP_ERR_UNSUPPORTED);
    GT_CHECK(!memcmp(before, s.buf, sizeof before), "a refused call wrote its output");
    GT_STATUS(gip_integral(ctx, &src, NULL, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_integral(ctx, NULL, &s.a, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    s.a.width = 5; /* one column short */
    GT_STATUS(gip_integral(ctx, &src, &s.a, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    s.a.width = 6;
    s.a.depth = 3;
    GT_STATUS(gip_integral(ctx, &src, &s.a, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    s.a.depth = GIP_DEPTH_S32; /* s32 sums of u16 are refused by cv2 */
    gip_image u16;
    gt_alloc(&u16, 5, 4, 1, GIP_U16, 0);
    GT_STATUS(gip_integral(ctx, &u16, &s.a, NULL, NULL), GIP_ERR_UNSUPPORTED);
    s.a.data = NULL;
    GT_STATUS(gip_integral(ctx, &src, &s.a, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    gt_free(&u16);
    gt_free(&src);
    free(s.buf), free(q.buf);
}

static void body(gip_context *ctx)
{
    static const struct {
        gip_dtype dt;
        int32_t sd, qd;
    } combos[] = {
        {GIP_U8, GIP_DEPTH_S32, GIP_DEPTH_S32},  {GIP_U8, GIP_DEPTH_S32, GIP_DEPTH_F32},
        {GIP_U8, GIP_DEPTH_S32, GIP_DEPTH_F64},  {GIP_U8, GIP_DEPTH_F32, GIP_DEPTH_F32},
        {GIP_U8, GIP_DEPTH_F32, GIP_DEPTH_F64},  {GIP_U8, GIP_DEPTH_F64, GIP_DEPTH_F64},
        {GIP_F32, GIP_DEPTH_F32, GIP_DEPTH_F32}, {GIP_F32, GIP_DEPTH_F32, GIP_DEPTH_F64},
        {GIP_F32, GIP_DEPTH_F64, GIP_DEPTH_F64}, {GIP_U16, GIP_DEPTH_F64, GIP_DEPTH_F64},
        {GIP_S16, GIP_DEPTH_F64, GIP_DEPTH_F64},
    };
    uint64_t seed = 1;
    for (size_t k = 0; k < sizeof combos / sizeof combos[0]; k++)
        for (int32_t cn = 1; cn <= 4; cn += cn == 1 ? 2 : 1)
            for (int i = 0; i < gt_nsizes; i++) {
                if (!gt_case())
                    continue;
                const gt_size sz = gt_sizes[i];
                /* the tilted definition is summed directly: small sizes only */
                bool tilted = sz.w * sz.h <= 64 * 48;
                if (sz.w * sz.h > 64 * 48 && cn > 1 && k % 3)
                    continue; /* the large size once per source dtype and depth pair is enough */
                run_case(ctx, combos[k].dt, cn, sz.w, sz.h, combos[k].sd, combos[k].qd, tilted,
                         seed++);
            }
    /* s32 sums that wrap: cv2's int arithmetic modulo 2^32 (a 4100x4100 white image's sum) */
    if (gt_case()) {
        gip_image big;
        gt_alloc(&big, 4100, 4100, 1, GIP_U8, 0);
        memset(big.data, 255, (size_t)(big.stride * big.height));
        arr s;
        arr_alloc(&s, 4101, 4101, 1, GIP_DEPTH_S32, 0);
        if (GT_OK(gip_integral(ctx, &big, &s.a, NULL, NULL))) {
            int64_t exact = (int64_t)4100 * 4100 * 255;
            GT_CHECK(arr_get(&s, 4100, 4100, 0) == (double)(int32_t)(uint32_t)exact,
                     "the wrapped s32 sum is %.0f, expected %d", arr_get(&s, 4100, 4100, 0),
                     (int)(int32_t)(uint32_t)exact);
        }
        free(s.buf);
        gt_free(&big);
    }
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA)
        for (size_t k = 0; k < sizeof combos / sizeof combos[0]; k++)
            for (int i = 0; i < gt_nsizes; i++)
                if (gt_case())
                    cuda_vs_cpu(ctx, combos[k].dt, i % 2 ? 1 : 3, gt_sizes[i].w, gt_sizes[i].h,
                                combos[k].sd, combos[k].qd, seed++);
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        /* one-channel rows of several 1024-value chunks (a carry across them) and bands of
         * several rows */
        static const struct {
            gip_dtype dt;
            int64_t w, h;
            int32_t sd, qd;
        } wide[] = {
            {GIP_U8, 2600, 700, GIP_DEPTH_S32, GIP_DEPTH_F64},
            {GIP_U8, 1025, 3, GIP_DEPTH_S32, GIP_DEPTH_F32},
            {GIP_F32, 2049, 530, GIP_DEPTH_F32, GIP_DEPTH_F64},
            {GIP_U16, 3000, 270, GIP_DEPTH_F64, GIP_DEPTH_F64},
        };
        for (size_t k = 0; k < sizeof wide / sizeof wide[0]; k++)
            if (gt_case())
                cuda_vs_cpu(ctx, wide[k].dt, 1, wide[k].w, wide[k].h, wide[k].sd, wide[k].qd,
                            seed++);
    }
    sum_only(ctx);
    if (gt_current_backend == GT_CPU) {
        printf("integral: the sum alone again with GIP_NOAVX512=1 (the SSE2 route)\n");
        gt_setenv("GIP_NOAVX512", "1");
        sum_only(ctx);
        gt_setenv("GIP_NOAVX512", NULL);
    }
    bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "integral", body);
}
