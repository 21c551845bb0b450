/* SPDX-License-Identifier: MIT */
/* Tests of include/gip/interop.h: strided copies (transposed, flipped, channel-reversed, real into
 * complex) on both backends, pointer location, stream ordering, and the bad-input table. */
#include <stdlib.h>
#include <string.h>

#include "gip/interop.h"
#include "testing.h"

/* An H x W x C u16 array in a host buffer with element (y, x, c) = y * 1000 + x * 10 + c. */
static uint16_t *make_source(int64_t h, int64_t w, int64_t c)
{
    uint16_t *a = malloc((size_t)(h * w * c) * sizeof *a);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            for (int64_t k = 0; k < c; k++)
                a[(y * w + x) * c + k] = (uint16_t)(y * 1000 + x * 10 + k);
    return a;
}

/* Copies host `src` (described by its strides, inside the `count` elements at `base`) into a tight
 * device/host image and checks every element against the formula read through the strided view. */
static void check_gather(gip_context *ctx, bool dev, const uint16_t *base, int64_t count,
                         const gip_strided *sv, const char *what)
{
    int64_t h = sv->shape[0], w = sv->shape[1], c = sv->shape[2];
    gip_image host, d = {0}, out;
    gt_alloc(&host, w, h, (int32_t)c, GIP_U16, 3);
    gt_poison(&host, 0xAB);
    gip_strided s = *sv;
    if (dev) {
        /* Upload the whole backing array so that the strides stay valid on the device. */
        gip_image all, all_d;
        int64_t n = count;
        GT_OK(gip_image_wrap(&all, (void *)base, n, 1, 1, GIP_U16, 0, GIP_MEM_HOST, 0));
        GT_OK(gip_image_alloc(ctx, &all_d, n, 1, 1, GIP_U16, GIP_MEM_CUDA, GIP_ALLOC_TIGHT));
        GT_OK(gip_upload(ctx, &all, &all_d));
        s.data = (char *)all_d.data + ((const char *)sv->data - (const char *)base);
        s.memory = GIP_MEM_CUDA;
        s.device = gip_context_device(ctx);
        GT_OK(gip_image_alloc(ctx, &d, w, h, (int32_t)c, GIP_U16, GIP_MEM_CUDA, 0));
        gip_strided dv = {d.data, {h, w, c}, {d.stride, c * 2, 2}, GIP_U16, GIP_MEM_CUDA, d.device};
        GT_OK(gip_copy_strided(ctx, &s, &dv));
        GT_OK(gip_download(ctx, &d, &host));
        GT_OK(gip_context_sync(ctx));
        gip_image_free(ctx, &d);
        gip_image_free(ctx, &all_d);
    } else {
        gip_strided dv = {host.data, {h, w, c}, {host.stride, c * 2, 2}, GIP_U16, GIP_MEM_HOST, 0};
        GT_OK(gip_copy_strided(ctx, &s, &dv));
    }
    gt_alloc(&out, w, h, (int32_t)c, GIP_U16, 0);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            for (int64_t k = 0; k < c; k++)
                gt_set(&out, x, y, (int32_t)k,
                       *(const uint16_t *)((const char *)sv->data + y * sv->strides[0] +
                                           x * sv->strides[1] + k * sv->strides[2]));
    gt_compare(&host, &out, 0, 0, what);
    GT_CHECK(gt_padding_intact(&host), "%s: padding written", what);
    gt_free(&host);
    gt_free(&out);
}

static void test_gather(gip_context *ctx, bool dev)
{
    const int64_t H = 13, W = 42, C = 3;
    uint16_t *a = make_source(H, W, C);
    int64_t rs = W * C * 2, ps = C * 2;
    /* transposed (W x H x C) */
    gip_strided t = {a, {W, H, C}, {ps, rs, 2}, GIP_U16, GIP_MEM_HOST, 0};
    check_gather(ctx, dev, a, H * W * C, &t, "transposed");
    /* vertically flipped: negative row stride */
    gip_strided f = {(char *)a + (H - 1) * rs, {H, W, C}, {-rs, ps, 2}, GIP_U16, GIP_MEM_HOST, 0};
    check_gather(ctx, dev, a, H * W * C, &f, "flipped");
    /* channels reversed (BGR <-> RGB view) */
    gip_strided r = {(char *)a + 4, {H, W, C}, {rs, ps, -2}, GIP_U16, GIP_MEM_HOST, 0};
    check_gather(ctx, dev, a, H * W * C, &r, "channels reversed");
    /* planar CHW seen as HWC: channel stride H*W */
    gip_strided p = {a, {H, 14, C}, {14 * 2, 2, H * 14 * 2}, GIP_U16, GIP_MEM_HOST, 0};
    check_gather(ctx, dev, a, H * W * C, &p, "planar");
    /* broadcast along x (stride 0 in the source) */
    gip_strided b = {a, {H, W, 1}, {rs, 0, 2}, GIP_U16, GIP_MEM_HOST, 0};
    check_gather(ctx, dev, a, H * W * C, &b, "broadcast");
    free(a);
}

/* f32 values into the real parts of a c32 image (the Python fft2 of a real image). */
static void test_real_into_complex(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 17, 5, 1, GIP_F32, 1);
    gt_alloc(&dst, 17, 5, 1, GIP_C32, 2);
    gt_fill_random(&src, 3, -4.0f, 4.0f);
    memset(dst.data, 0, (size_t)(dst.stride * dst.height));
    gip_strided s = {src.data, {5, 17, 1}, {src.stride, 4, 4}, GIP_F32, GIP_MEM_HOST, 0};
    gip_strided d = {dst.data, {5, 17, 1}, {dst.stride, 8, 4}, GIP_F32, GIP_MEM_HOST, 0};
    GT_OK(gip_copy_strided(ctx, &s, &d));
    for (int64_t y = 0; y < 5; y++)
        for (int64_t x = 0; x < 17; x++) {
            const float *z = (const float *)((char *)dst.data + y * dst.stride) + 2 * x;
            GT_CHECK(z[0] == (float)gt_get(&src, x, y, 0) && z[1] == 0.0f,
                     "complex (%lld, %lld) = (%g, %g)", (long long)x, (long long)y, z[0], z[1]);
        }
    gt_free(&src);
    gt_free(&dst);
}

static void test_bad_inputs(gip_context *ctx)
{
    uint16_t a[64] = {0}, b[64];
    memset(b, 0x5A, sizeof b);
    gip_strided s = {a, {4, 4, 1}, {8, 2, 2}, GIP_U16, GIP_MEM_HOST, 0};
    gip_strided d = {b, {4, 4, 1}, {8, 2, 2}, GIP_U16, GIP_MEM_HOST, 0};
    gip_strided x;
    GT_STATUS(gip_copy_strided(NULL, &s, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_copy_strided(ctx, NULL, &d), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_copy_strided(ctx, &s, NULL), GIP_ERR_INVALID_ARGUMENT);
    x = s, x.data = NULL;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_INVALID_ARGUMENT);
    x = s, x.shape[1] = 0;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_INVALID_ARGUMENT);
    x = s, x.dtype = (gip_dtype)9;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_INVALID_ARGUMENT);
    x = s, x.strides[1] = 3;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_INVALID_ARGUMENT);
    x = s, x.data = (char *)a + 1;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_INVALID_ARGUMENT);
    x = d, x.strides[0] = 0;
    GT_STATUS(gip_copy_strided(ctx, &s, &x), GIP_ERR_INVALID_ARGUMENT);
    x = s, x.shape[0] = 3;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_SHAPE_MISMATCH);
    x = s, x.dtype = GIP_S16;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_SHAPE_MISMATCH);
    x = d, x.data = a + 2;
    GT_STATUS(gip_copy_strided(ctx, &s, &x), GIP_ERR_ALIASING);
    x = s, x.memory = GIP_MEM_CUDA;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_LOCATION_MISMATCH);
    x = s, x.memory = (gip_memory)7;
    GT_STATUS(gip_copy_strided(ctx, &x, &d), GIP_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < 64; i++)
        GT_CHECK(b[i] == 0x5A5A, "a refused copy wrote element %d", i);

    gip_memory mem = GIP_MEM_CUDA;
    int32_t dev = 5;
    GT_OK(gip_pointer_location(a, &mem, &dev));
    GT_CHECK(mem == GIP_MEM_HOST && dev == 0, "host pointer located as %d/%d", (int)mem, dev);
    GT_STATUS(gip_pointer_location(a, NULL, &dev), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_context_wait_stream(NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_context_signal_stream(NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
}

static void body(gip_context *ctx)
{
    bool dev = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    test_gather(ctx, dev);
    test_real_into_complex(ctx);
    test_bad_inputs(ctx);
    if (dev) {
        /* Ordering with the legacy default stream and the context's own stream. */
        GT_OK(gip_context_wait_stream(ctx, NULL));
        GT_OK(gip_context_signal_stream(ctx, (void *)1));
        GT_OK(gip_context_wait_stream(ctx, gip_context_stream(ctx)));
        GT_OK(gip_context_sync(ctx));
        gip_image img;
        GT_OK(gip_image_alloc(ctx, &img, 4, 4, 1, GIP_U8, GIP_MEM_CUDA, 0));
        gip_memory mem;
        int32_t d;
        GT_OK(gip_pointer_location(img.data, &mem, &d));
        GT_CHECK(mem == GIP_MEM_CUDA && d == gip_context_device(ctx), "device pointer: %d/%d",
                 (int)mem, d);
        gip_image_free(ctx, &img);
    } else {
        GT_STATUS(gip_context_wait_stream(ctx, NULL), GIP_ERR_NO_DEVICE);
        GT_STATUS(gip_context_signal_stream(ctx, NULL), GIP_ERR_NO_DEVICE);
    }
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "interop", body);
}
