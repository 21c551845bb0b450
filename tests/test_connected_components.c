/* SPDX-License-Identifier: MIT */
/* gip_connected_components and gip_connected_components_stats (cv2.connectedComponentsWithStats)
 * against a flood-fill reference that numbers the components in OpenCV's scan order (row-major
 * for 4-connectivity, 2x2 blocks two rows at a time for 8), on random images of every density,
 * awkward sizes and padded strides, s32 and u16 labels; stats and centroids exact; bad input
 * refused with the outputs untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

/* Labels by flood fill; components numbered in the order `order` visits their first pixel. */
static int32_t ref_label(const gip_image *src, int conn, int32_t *lab)
{
    const int64_t w = src->width, h = src->height;
    int64_t *stack = malloc((size_t)(w * h) * sizeof *stack + 8);
    if (!stack)
        abort();
    memset(lab, 0, (size_t)(w * h) * sizeof *lab);
    int32_t n = 1;
    for (int64_t by = 0; by < h; by += conn == 8 ? 2 : 1)
        for (int64_t bx = 0; bx < w; bx += conn == 8 ? 2 : 1)
            for (int k = 0; k < (conn == 8 ? 4 : 1); k++) {
                int64_t x = bx + (k & 1), y = by + (k >> 1);
                if (x >= w || y >= h || lab[y * w + x] || gt_get(src, x, y, 0) == 0)
                    continue;
                int64_t sp = 0;
                stack[sp++] = y * w + x;
                lab[y * w + x] = n;
                while (sp) {
                    int64_t p = stack[--sp], px = p % w, py = p / w;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            if ((!dx && !dy) || (conn == 4 && dx && dy))
                                continue;
                            int64_t qx = px + dx, qy = py + dy;
                            if (qx < 0 || qy < 0 || qx >= w || qy >= h || lab[qy * w + qx] ||
                                gt_get(src, qx, qy, 0) == 0)
                                continue;
                            lab[qy * w + qx] = n;
                            stack[sp++] = qy * w + qx;
                        }
                }
                n++;
            }
    free(stack);
    return n;
}

/* density < 0: 30x20 rectangles 40x30 apart and specks of one pixel in 2000 (few labels) */
static void check_one(gip_context *ctx, int64_t w, int64_t h, double density, int conn,
                      int32_t depth, uint64_t seed)
{
    gip_image src;
    gt_alloc(&src, w, h, 1, GIP_U8, seed % 2 ? 3 : 0);
    uint64_t st = seed;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            if (density < 0)
                gt_set(&src, x, y, 0,
                       (x % 40 < 30 && y % 30 < 20) || gt_rand_unit(&st) < 0.0005 ? 255 : 0);
            else
                gt_set(&src, x, y, 0,
                       gt_rand_unit(&st) < density ? 1 + (double)(gt_rand_u64(&st) % 255) : 0);
    int32_t *ref = malloc((size_t)(w * h) * sizeof *ref + 4);
    if (!ref)
        abort();
    int32_t nref = ref_label(&src, conn, ref);
    const size_t es = depth == GIP_DEPTH_S32 ? 4 : 2;
    const int64_t pad = seed % 3 ? 2 : 0, stride = (w + pad) * (int64_t)es;
    void *buf = malloc((size_t)(stride * h));
    if (!buf)
        abort();
    memset(buf, 0xA5, (size_t)(stride * h));
    gip_array lab = {buf, w, h, 1, depth, stride};
    int32_t n = -1;
    char label[96];
    snprintf(label, sizeof label, "%lldx%lld density %.2f %d-connected %s", (long long)w,
             (long long)h, density, conn, depth == GIP_DEPTH_S32 ? "s32" : "u16");
    if (depth == GIP_DEPTH_U16 && nref > 65536) { /* too many for u16: refused */
        GT_STATUS(gip_connected_components(ctx, &src, conn, &lab, &n), GIP_ERR_TOO_LARGE);
        goto out;
    }
    if (!GT_OK(gip_connected_components(ctx, &src, conn, &lab, &n)))
        goto out;
    GT_CHECK(n == nref, "%s: %d labels, expected %d", label, (int)n, (int)nref);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            const char *row = (const char *)buf + y * stride;
            int64_t g =
                depth == GIP_DEPTH_S32 ? ((const int32_t *)row)[x] : ((const uint16_t *)row)[x];
            if (!GT_CHECK(g == ref[y * w + x], "%s: label at x=%lld y=%lld is %lld, expected %d",
                          label, (long long)x, (long long)y, (long long)g, (int)ref[y * w + x]))
                goto out;
        }
    for (int64_t y = 0; y < h; y++) /* padding untouched */
        for (int64_t b = w * (int64_t)es; b < stride; b++)
            if (!GT_CHECK(((unsigned char *)buf)[y * stride + b] == 0xA5, "%s: padding written",
                          label))
                goto out;
    {
        int32_t *stats = malloc((size_t)n * 5 * sizeof *stats);
        double *cen = malloc((size_t)n * 2 * sizeof *cen);
        int64_t *e = calloc((size_t)n * 7, sizeof *e);
        if (!stats || !cen || !e)
            abort();
        for (int32_t i = 0; i < n; i++)
            e[7 * i] = e[7 * i + 1] = INT64_MAX, e[7 * i + 2] = e[7 * i + 3] = -1;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t *c = e + 7 * ref[y * w + x];
                c[0] = x < c[0] ? x : c[0];
                c[1] = y < c[1] ? y : c[1];
                c[2] = x > c[2] ? x : c[2];
                c[3] = y > c[3] ? y : c[3];
                c[4]++, c[5] += x, c[6] += y;
            }
        if (GT_OK(gip_connected_components_stats(ctx, &lab, n, stats, cen)))
            for (int32_t i = 0; i < n; i++) {
                const int64_t *c = e + 7 * i;
                int32_t want[5] = {(int32_t)c[0], (int32_t)c[1], (int32_t)(c[2] - c[0] + 1),
                                   (int32_t)(c[3] - c[1] + 1), (int32_t)c[4]};
                if (!c[4]) /* OpenCV's entry for a label without pixels (an all-set image) */
                    want[0] = -1, want[1] = INT32_MAX, want[2] = want[3] = 0;
                bool ok = !memcmp(stats + 5 * i, want, sizeof want);
                double cx = (double)c[5] / (double)c[4], cy = (double)c[6] / (double)c[4];
                ok &= c[4] ? cen[2 * i] == cx && cen[2 * i + 1] == cy
                           : isnan(cen[2 * i]) && isnan(cen[2 * i + 1]);
                if (!GT_CHECK(ok,
                              "%s: stats of label %d: %d %d %d %d %d (%g, %g), expected %d %d "
                              "%d %d %d (%g, %g)",
                              label, (int)i, stats[5 * i], stats[5 * i + 1], stats[5 * i + 2],
                              stats[5 * i + 3], stats[5 * i + 4], cen[2 * i], cen[2 * i + 1],
                              want[0], want[1], want[2], want[3], want[4], cx, cy))
                    break;
            }
        free(stats), free(cen), free(e);
    }
out:
    free(buf);
    free(ref);
    gt_free(&src);
}

/* On CUDA: device src and labels against the CPU's labels (the same numbering, OpenCV's). */
static void cuda_vs_cpu(gip_context *ctx, int64_t w, int64_t h, double density, int conn,
                        int32_t depth, uint64_t seed)
{
    gip_context *cpu = NULL;
    gip_context_desc desc = {.backend = GIP_BACKEND_CPU};
    if (!GT_OK(gip_context_create(&desc, &cpu)))
        return;
    gip_image src, dsrc, dlab, hlab;
    gt_alloc(&src, w, h, 1, GIP_U8, 0);
    uint64_t st = seed;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            gt_set(&src, x, y, 0, gt_rand_unit(&st) < density ? 1 : 0);
    const size_t es = depth == GIP_DEPTH_S32 ? 4 : 2;
    int32_t *ref = malloc((size_t)(w * h) * es + 8);
    gt_alloc(&hlab, w * (int64_t)es, h, 1, GIP_U8, 0);
    gip_array href = {ref, w, h, 1, depth, 0, GIP_MEM_HOST};
    int32_t nref = -1, n = -2;
    gip_status sref = gip_connected_components(cpu, &src, conn, &href, &nref);
    if (GT_OK(gip_image_alloc(ctx, &dsrc, w, h, 1, GIP_U8, GIP_MEM_CUDA, 0))) {
        if (GT_OK(gip_image_alloc(ctx, &dlab, w * (int64_t)es, h, 1, GIP_U8, GIP_MEM_CUDA, 0))) {
            gip_array dl = {dlab.data, w, h, 1, depth, dlab.stride, GIP_MEM_CUDA};
            GT_OK(gip_upload(ctx, &src, &dsrc));
            gip_status sd = gip_connected_components(ctx, &dsrc, conn, &dl, &n);
            GT_CHECK(sd == sref, "CUDA status %d, CPU %d", (int)sd, (int)sref);
            if (!sd && !sref && GT_OK(gip_download(ctx, &dlab, &hlab))) {
                GT_CHECK(n == nref, "CUDA %d labels, CPU %d", (int)n, (int)nref);
                for (int64_t y = 0; y < h; y++)
                    if (!GT_CHECK(!memcmp((char *)hlab.data + y * hlab.stride,
                                          (char *)ref + y * w * (int64_t)es, (size_t)w * es),
                                  "CUDA labels %lldx%lld %d-connected differ from the CPU's in "
                                  "row %lld",
                                  (long long)w, (long long)h, conn, (long long)y))
                        break;
            }
            gip_image_free(ctx, &dlab);
        }
        gip_image_free(ctx, &dsrc);
    }
    free(ref);
    gt_free(&hlab);
    gt_free(&src);
    gip_context_destroy(cpu);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, f32;
    gt_alloc(&src, 6, 5, 1, GIP_U8, 0);
    gt_alloc(&f32, 6, 5, 1, GIP_F32, 0);
    gt_fill_random(&src, 3, 0, 0);
    int32_t buf[30];
    memset(buf, 0x5A, sizeof buf);
    gip_array lab = {buf, 6, 5, 1, GIP_DEPTH_S32, 0};
    int32_t n = -7;
    GT_STATUS(gip_connected_components(ctx, &src, 6, &lab, &n), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_connected_components(ctx, &f32, 8, &lab, &n), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_connected_components(ctx, &src, 8, NULL, &n), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_connected_components(ctx, &src, 8, &lab, NULL), GIP_ERR_INVALID_ARGUMENT);
    lab.depth = GIP_DEPTH_F32;
    GT_STATUS(gip_connected_components(ctx, &src, 8, &lab, &n), GIP_ERR_INVALID_ARGUMENT);
    lab.depth = GIP_DEPTH_S32;
    lab.height = 4;
    GT_STATUS(gip_connected_components(ctx, &src, 8, &lab, &n), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(n == -7 && buf[0] == 0x5A5A5A5A, "a refused call wrote its outputs");
    /* a label past n_labels */
    lab.height = 5;
    memset(buf, 0, sizeof buf);
    buf[7] = 3;
    int32_t stats[15];
    GT_STATUS(gip_connected_components_stats(ctx, &lab, 3, stats, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_connected_components_stats(ctx, &lab, 0, stats, NULL), GIP_ERR_INVALID_ARGUMENT);
    /* more labels than u16 holds */
    gip_image big;
    gt_alloc(&big, 600, 600, 1, GIP_U8, 0);
    memset(big.data, 0, (size_t)(big.stride * 600));
    for (int64_t y = 0; y < 600; y += 2)
        for (int64_t x = 0; x < 600; x += 2)
            ((uint8_t *)big.data)[y * big.stride + x] = 1;
    uint16_t *l16 = malloc(600 * 600 * 2);
    gip_array a16 = {l16, 600, 600, 1, GIP_DEPTH_U16, 0};
    GT_STATUS(gip_connected_components(ctx, &big, 8, &a16, &n), GIP_ERR_TOO_LARGE);
    free(l16);
    gt_free(&big);
    gt_free(&src);
    gt_free(&f32);
}

static void all(gip_context *ctx)
{
    static const double dens[] = {0.0, 0.2, 0.45, 0.6, 1.0};
    uint64_t seed = 1;
    for (int i = 0; i < gt_nsizes; i++)
        for (int d = 0; d < 5; d++)
            for (int conn = 4; conn <= 8; conn += 4)
                for (int k = 0; k < 2; k++) {
                    if (!gt_case())
                        continue;
                    check_one(ctx, gt_sizes[i].w, gt_sizes[i].h, dens[d], conn,
                              k ? GIP_DEPTH_U16 : GIP_DEPTH_S32, seed++);
                }
    static const gt_size odd[] = {{2, 2}, {3, 3}, {5, 1}, {1, 5}, {7, 4}, {4, 7}};
    for (int i = 0; i < 6; i++)
        for (int conn = 4; conn <= 8; conn += 4)
            if (gt_case())
                check_one(ctx, odd[i].w, odd[i].h, 0.5, conn, GIP_DEPTH_S32, seed++);
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA)
        for (int i = 0; i < gt_nsizes; i++)
            for (int d = 0; d < 5; d++)
                for (int conn = 4; conn <= 8; conn += 4)
                    if (gt_case())
                        cuda_vs_cpu(ctx, gt_sizes[i].w, gt_sizes[i].h, dens[d], conn,
                                    d % 2 ? GIP_DEPTH_U16 : GIP_DEPTH_S32, seed++);
    bad_input(ctx);
}

/* Labels of 16 MiB and more (GIP__STREAM_BYTES) are written with streaming stores where rows
 * allow (seed % 3: padded rows, whose steps the CPU shifts to align the stores). */
static void big(gip_context *ctx)
{
    check_one(ctx, 2048, 2100, 0.3, 8, GIP_DEPTH_S32, 3);
    check_one(ctx, 2050, 2101, 0.45, 8, GIP_DEPTH_S32, 4);
    check_one(ctx, 2897, 2896, -1, 8, GIP_DEPTH_U16, 6);
    check_one(ctx, 2896, 2897, -1, 8, GIP_DEPTH_U16, 7);
}

static void body(gip_context *ctx)
{
    all(ctx);
    if (gt_current_backend == GT_CPU) {
        big(ctx);
        /* 8-connectivity's narrower vector loops, then the plain ones */
        printf("connected_components: again with GIP_NOAVX512=1, then GIP_NOSIMD=1\n");
        gt_setenv("GIP_NOAVX512", "1");
        all(ctx);
        big(ctx);
        gt_setenv("GIP_NOAVX512", NULL);
        gt_setenv("GIP_NOSIMD", "1");
        all(ctx);
        gt_setenv("GIP_NOSIMD", NULL);
    }
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "connected_components", body);
}
