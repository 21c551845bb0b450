/* SPDX-License-Identifier: MIT */
/* The context's device memory: the stream-ordered pool (freed blocks reused, nothing held after
 * the frees), the configurable limit (allocations and operations past it fail with
 * GIP_ERR_DEVICE_OUT_OF_MEMORY, change nothing and leave the context usable), and the bad-input
 * table of gip_context_set_device_memory_limit / gip_context_device_memory_used. */
#include <string.h>

#include "testing.h"

static void test_bad_input(gip_context *ctx, bool cuda)
{
    GT_STATUS(gip_context_set_device_memory_limit(NULL, 1 << 20), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(gip_context_device_memory_used(NULL) == 0, "NULL context uses nothing");
    GT_STATUS(gip_context_set_device_memory_limit(ctx, -1), GIP_ERR_INVALID_ARGUMENT);
    if (!cuda) {
        GT_STATUS(gip_context_set_device_memory_limit(ctx, 1 << 20), GIP_ERR_NO_DEVICE);
        GT_CHECK(gip_context_device_memory_used(ctx) == 0, "a CPU context uses no device memory");
    }
}

/* Used bytes once the stream has run the queued frees. */
static int64_t used_after_sync(gip_context *ctx)
{
    GT_OK(gip_context_sync(ctx));
    return gip_context_device_memory_used(ctx);
}

static void test_pool(gip_context *ctx)
{
    int64_t base = used_after_sync(ctx);
    gip_image a = {0};
    GT_OK(gip_image_alloc(ctx, &a, 1000, 1000, 4, GIP_F32, GIP_MEM_CUDA, 0));
    int64_t bytes = a.stride * a.height;
    GT_CHECK(gip_context_device_memory_used(ctx) >= base + bytes, "used counts the image: %lld",
             (long long)gip_context_device_memory_used(ctx));
    void *first = a.data;
    gip_image_free(ctx, &a);
    GT_CHECK(used_after_sync(ctx) == base, "used back to %lld after the free: %lld",
             (long long)base, (long long)gip_context_device_memory_used(ctx));
    /* A loop of same-size images reuses the cached block. */
    bool reused = false;
    for (int i = 0; i < 50; i++) {
        GT_OK(gip_image_alloc(ctx, &a, 1000, 1000, 4, GIP_F32, GIP_MEM_CUDA, 0));
        reused |= a.data == first;
        GT_OK(gip_image_fill_bytes(ctx, &a, (uint8_t)i));
        gip_image_free(ctx, &a);
    }
    GT_CHECK(reused, "the pool hands the freed block out again");
    GT_CHECK(used_after_sync(ctx) == base, "nothing held after the loop: %lld",
             (long long)gip_context_device_memory_used(ctx));
}

static void test_limit(gip_context *ctx)
{
    int64_t base = used_after_sync(ctx);
    const int64_t mb = 1 << 20;
    GT_OK(gip_context_set_device_memory_limit(ctx, base + 4 * mb));

    gip_image keep, img;
    memset(&keep, 0x5A, sizeof keep);
    img = keep;
    GT_STATUS(gip_image_alloc(ctx, &img, 2048, 2048, 3, GIP_U8, GIP_MEM_CUDA, 0),
              GIP_ERR_DEVICE_OUT_OF_MEMORY);
    GT_CHECK(strstr(gip_context_error(ctx), "limit") != NULL, "the message names the limit: %s",
             gip_context_error(ctx));
    GT_CHECK(memcmp(&img, &keep, sizeof img) == 0,
             "a refused allocation leaves the view as it was");
    GT_CHECK(gip_context_status(ctx) == GIP_OK, "the context stays usable");

    /* Inside the limit: an operation runs; one whose output passes it fails cleanly. */
    gip_image hsrc, hdst, dsrc = {0}, ddst = {0}, big;
    gt_alloc(&hsrc, 512, 512, 3, GIP_U8, 0);
    gt_alloc(&hdst, 512, 512, 3, GIP_U8, 0);
    gt_fill_random(&hsrc, 7, -1, 1);
    GT_OK(gip_image_alloc(ctx, &dsrc, 512, 512, 3, GIP_U8, GIP_MEM_CUDA, 0));
    GT_OK(gip_image_alloc(ctx, &ddst, 512, 512, 3, GIP_U8, GIP_MEM_CUDA, 0));
    GT_OK(gip_upload(ctx, &hsrc, &dsrc));
    gip_gaussian_params gp = {.ksize_w = 15, .ksize_h = 15};
    GT_OK(gip_gaussian_blur(ctx, &dsrc, &ddst, &gp));
    GT_OK(gip_download(ctx, &ddst, &hdst));
    GT_OK(gip_context_sync(ctx));

    big = keep;
    GT_OK(gip_context_set_device_memory_limit(ctx, used_after_sync(ctx) + mb));
    GT_STATUS(gip_image_alloc(ctx, &big, 1024, 1024, 3, GIP_U8, GIP_MEM_CUDA, 0),
              GIP_ERR_DEVICE_OUT_OF_MEMORY);
    GT_OK(gip_image_alloc(ctx, &big, 512, 512, 3, GIP_U8, GIP_MEM_CUDA, 0));
    gip_image_free(ctx, &big);
    GT_OK(gip_context_set_device_memory_limit(ctx, 0));

    gip_image_free(ctx, &dsrc);
    gip_image_free(ctx, &ddst);
    gt_free(&hsrc);
    gt_free(&hdst);
    GT_CHECK(used_after_sync(ctx) == base, "no device memory leaked: %lld against %lld",
             (long long)gip_context_device_memory_used(ctx), (long long)base);
}

static void test_limit_fft(gip_context *ctx)
{
    /* A Gaussian through the FFT, whose padded spectra do not fit in what is left: it must fail
     * with the out-of-memory status and leave its output unchanged; without the limit it runs, and
     * a second run holds no more memory than the first (its plans and scratch are cached). */
    gip_image fsrc = {0}, fdst = {0}, hf;
    GT_OK(gip_image_alloc(ctx, &fsrc, 400, 300, 1, GIP_F32, GIP_MEM_CUDA, 0));
    GT_OK(gip_image_alloc(ctx, &fdst, 400, 300, 1, GIP_F32, GIP_MEM_CUDA, 0));
    GT_OK(gip_image_fill_bytes(ctx, &fsrc, 0x3F));
    GT_OK(gip_image_fill_bytes(ctx, &fdst, 0xC1));
    GT_OK(gip_context_set_device_memory_limit(ctx, used_after_sync(ctx) + 64 * 1024));
    gip_gaussian_params big_k = {
        .ksize_w = 121, .ksize_h = 121, .sigma_x = 20, .method = GIP_CONV_FFT};
    GT_STATUS(gip_gaussian_blur(ctx, &fsrc, &fdst, &big_k), GIP_ERR_DEVICE_OUT_OF_MEMORY);
    GT_CHECK(gip_context_status(ctx) == GIP_OK, "usable after the refused FFT");
    gt_alloc(&hf, 400, 300, 1, GIP_F32, 0);
    GT_OK(gip_download(ctx, &fdst, &hf));
    GT_OK(gip_context_sync(ctx));
    bool unchanged = true;
    for (int64_t y = 0; y < 300; y++) {
        const uint8_t *row = (const uint8_t *)hf.data + y * hf.stride;
        for (int64_t x = 0; x < 400 * 4; x++)
            unchanged &= row[x] == 0xC1;
    }
    GT_CHECK(unchanged, "the refused operation left its output unchanged");
    GT_OK(gip_context_set_device_memory_limit(ctx, 0));
    GT_OK(gip_gaussian_blur(ctx, &fsrc, &fdst, &big_k));
    int64_t after_one = used_after_sync(ctx);
    GT_OK(gip_gaussian_blur(ctx, &fsrc, &fdst, &big_k));
    GT_CHECK(used_after_sync(ctx) == after_one, "a repeated FFT holds no more: %lld against %lld",
             (long long)gip_context_device_memory_used(ctx), (long long)after_one);
    gip_image_free(ctx, &fsrc);
    gip_image_free(ctx, &fdst);
    gt_free(&hf);
}

static void body(gip_context *ctx)
{
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    test_bad_input(ctx, cuda);
    if (cuda) {
        test_pool(ctx);
        test_limit(ctx);
        test_limit_fft(ctx);
    }
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "device_memory", body);
}
