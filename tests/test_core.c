/* SPDX-License-Identifier: MIT */
/* Tests of the core: version, statuses and messages, contexts, image views, allocation, copies
 * between host and device, and the bad-input table of each core function. */
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static void test_version_and_status(void)
{
    GT_CHECK(strcmp(gip_version(), "0.1.0") == 0, "gip_version() = %s", gip_version());
    GT_CHECK(GIP_VERSION == 100, "GIP_VERSION = %d", GIP_VERSION);
    GT_CHECK(strstr(gip_build_info(), "gip 0.1.0") != NULL, "build info: %s", gip_build_info());
    GT_CHECK(strcmp(gip_status_name(GIP_ERR_CORRUPT), "GIP_ERR_CORRUPT") == 0, "status name");
    GT_CHECK(strcmp(gip_status_name((gip_status)12345), "GIP_ERR_UNKNOWN_STATUS") == 0,
             "unknown status name");
    GT_CHECK(gip_status_group(GIP_ERR_BAD_STATE) == GIP_ERR_DEVICE, "group of BAD_STATE");
    GT_CHECK(gip_status_group(GIP_ERR_SHAPE_MISMATCH) == GIP_ERR_INVALID_ARGUMENT,
             "group of SHAPE_MISMATCH");
    GT_CHECK(gip_status_group(GIP_OK) == GIP_OK, "group of OK");
    GT_CHECK(strlen(gip_status_string(GIP_ERR_TOO_LARGE)) > 0, "status string");
    gip_clear_error();
    GT_CHECK(gip_last_error()[0] == '\0', "cleared error");
    GT_STATUS(gip_image_size(0, 1, 1, GIP_U8, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "0x1") != NULL, "message names the size: %s",
             gip_last_error());
}

static void test_sizes(void)
{
    int64_t row = -1, total = -1;
    GT_OK(gip_image_size(13, 42, 3, GIP_F32, &row, &total));
    GT_CHECK(row == 13 * 3 * 4 && total == row * 42, "row %lld total %lld", (long long)row,
             (long long)total);
    GT_STATUS(gip_image_size(-5, 4, 1, GIP_U8, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_size(4, 4, 0, GIP_U8, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_size(4, 4, 5, GIP_U8, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_size(4, 4, 1, (gip_dtype)99, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_size(GIP_MAX_DIM + 1, 4, 1, GIP_U8, NULL, NULL), GIP_ERR_TOO_LARGE);
    /* 2^31-1 squared times 4 channels times 8 bytes overflows 63 bits. */
    GT_STATUS(gip_image_size(GIP_MAX_DIM, GIP_MAX_DIM, 4, GIP_C32, NULL, NULL), GIP_ERR_TOO_LARGE);
    GT_OK(gip_image_size(200000, 200000, 4, GIP_F32, &row, &total));
    GT_CHECK(total == 200000LL * 200000LL * 16, "200000^2 x4 f32 bytes = %lld", (long long)total);
}

static void test_views(void)
{
    uint8_t buf[64 * 10];
    gip_image v, keep;
    memset(&keep, 0x5A, sizeof keep);
    v = keep;
    GT_STATUS(gip_image_wrap(NULL, buf, 4, 4, 1, GIP_U8, 0, GIP_MEM_HOST, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_wrap(&v, NULL, 4, 4, 1, GIP_U8, 0, GIP_MEM_HOST, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_wrap(&v, buf, 4, 4, 1, GIP_U8, 3, GIP_MEM_HOST, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_wrap(&v, buf, 4, 4, 1, GIP_U8, 0, (gip_memory)7, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_wrap(&v, buf, 4, 4, 1, GIP_U8, 0, GIP_MEM_CUDA, -1),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_wrap(&v, buf, 4, 4, 2, GIP_U8, 0, GIP_MEM_HOST, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_wrap(&v, buf, 4, INT64_MAX / 2, 1, GIP_U8, INT64_MAX / 4, GIP_MEM_HOST, 0),
              GIP_ERR_TOO_LARGE);
    GT_CHECK(memcmp(&v, &keep, sizeof v) == 0, "failed wraps left the view unchanged");

    GT_OK(gip_image_wrap(&v, buf, 10, 10, 3, GIP_U8, 64, GIP_MEM_HOST, 0));
    GT_CHECK(v.stride == 64 && v.width == 10 && gip_image_on_host(&v), "wrapped view fields");
    GT_OK(gip_image_wrap(&v, buf, 10, 10, 3, GIP_U8, 0, GIP_MEM_HOST, 0));
    GT_CHECK(v.stride == 30, "tight stride %lld", (long long)v.stride);
    GT_CHECK(gip_image_row_bytes(&v) == 30, "row bytes");
    GT_CHECK(gip_image_pixel(&v, 2, 3) == buf + 3 * 30 + 6, "pixel address");
    gip_image roi;
    GT_OK(gip_image_roi(&v, 2, 3, 5, 4, &roi));
    GT_CHECK(roi.data == buf + 3 * 30 + 6 && roi.width == 5 && roi.height == 4 && roi.stride == 30,
             "roi view");
    GT_STATUS(gip_image_roi(&v, 6, 3, 5, 4, &roi), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_roi(&v, -1, 0, 5, 4, &roi), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_roi(&v, 0, 0, 0, 4, &roi), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_check(NULL, "x"), GIP_ERR_INVALID_ARGUMENT);
    GT_OK(gip_image_check(&v, "x"));
}

static void test_contexts(gip_context *ctx)
{
    gip_context *c = (gip_context *)0x1;
    gip_context_desc d = {0};
    d.backend = (gip_backend)9;
    GT_STATUS(gip_context_create(&d, &c), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(c == NULL, "out set to NULL on failure");
    d.backend = GIP_BACKEND_CPU;
    d.threads = -1;
    GT_STATUS(gip_context_create(&d, &c), GIP_ERR_INVALID_ARGUMENT);
    d.threads = 0;
    d.device = -2;
    GT_STATUS(gip_context_create(&d, &c), GIP_ERR_INVALID_ARGUMENT);
    d.device = 0;
    d.flags = 4;
    GT_STATUS(gip_context_create(&d, &c), GIP_ERR_INVALID_ARGUMENT);
    d.flags = 0;
    GT_STATUS(gip_context_create(&d, NULL), GIP_ERR_INVALID_ARGUMENT);

    d.threads = 3;
    GT_OK(gip_context_create(&d, &c));
    GT_CHECK(gip_context_backend(c) == GIP_BACKEND_CPU && gip_context_device(c) == -1 &&
                 gip_context_threads(c) == 3,
             "CPU context fields");
    GT_CHECK(strcmp(gip_context_describe(c), "CPU, 3 threads") == 0, "describe: %s",
             gip_context_describe(c));
    GT_OK(gip_context_set_threads(c, 2));
    GT_CHECK(strcmp(gip_context_describe(c), "CPU, 2 threads") == 0, "describe: %s",
             gip_context_describe(c));
    GT_STATUS(gip_context_set_threads(c, -4), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(gip_context_stream(c) == NULL, "CPU context has no stream");
    GT_OK(gip_context_sync(c));
    GT_CHECK(gip_context_status(c) == GIP_OK, "usable");
    gip_context_destroy(c);
    gip_context_destroy(NULL);

    /* AUTO: either CUDA, or the CPU with the reason in the description. */
    GT_OK(gip_context_create(NULL, &c));
    int32_t n = 0;
    GT_OK(gip_device_count(&n));
    if (gip_context_backend(c) == GIP_BACKEND_CUDA) {
        GT_CHECK(strncmp(gip_context_describe(c), "CUDA device 0: ", 15) == 0, "describe: %s",
                 gip_context_describe(c));
        GT_CHECK(n >= 1, "a CUDA context implies a device");
    } else {
        GT_CHECK(strstr(gip_context_describe(c), "(no CUDA device: ") != NULL, "describe: %s",
                 gip_context_describe(c));
        GT_CHECK(gip_device_unavailable_reason()[0] != '\0', "reason given");
    }
    gip_context_destroy(c);

    /* CUDA requested: works or fails with a clear status, never crashes. */
    d = (gip_context_desc){.backend = GIP_BACKEND_CUDA};
    gip_status st = gip_context_create(&d, &c);
    GT_CHECK(st == GIP_OK || st == GIP_ERR_NO_DEVICE || st == GIP_ERR_NOT_BUILT,
             "CUDA create status %s", gip_status_name(st));
    if (st == GIP_OK)
        gip_context_destroy(c);
    else
        GT_CHECK(gip_last_error()[0] != '\0', "message for a failed CUDA context");
    d.device = 1000;
    GT_STATUS(gip_context_create(&d, &c), n > 0 ? GIP_ERR_NO_DEVICE : st);

    gip_device_info info;
    GT_STATUS(gip_device_get_info(n, &info), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_device_get_info(0, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_device_count(NULL), GIP_ERR_INVALID_ARGUMENT);
    for (int32_t i = 0; i < n; i++) {
        GT_OK(gip_device_get_info(i, &info));
        GT_CHECK(info.sm_count > 0 && info.total_memory > 0 && info.name[0], "device %d info",
                 (int)i);
    }
    (void)ctx;
}

/* Host and device allocation, copies in every direction, strides, fill. */
static void test_alloc_and_copy(gip_context *ctx)
{
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_image a = {0}, keep;
    memset(&keep, 0x3C, sizeof keep);
    gip_image b = keep;
    GT_STATUS(gip_image_alloc(ctx, NULL, 4, 4, 1, GIP_U8, GIP_MEM_HOST, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_alloc(ctx, &b, 0, 4, 1, GIP_U8, GIP_MEM_HOST, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_alloc(ctx, &b, 4, 4, 1, GIP_U8, GIP_MEM_HOST, 8), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_alloc(ctx, &b, 4, 4, 1, GIP_U8, (gip_memory)5, 0),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_image_alloc(ctx, &b, 200000, 200000, 4, GIP_F32, GIP_MEM_HOST, 0),
              GIP_ERR_OUT_OF_MEMORY);
    GT_CHECK(memcmp(&b, &keep, sizeof b) == 0, "failed allocations left the view unchanged");
    GT_STATUS(gip_image_alloc(NULL, &b, 4, 4, 1, GIP_U8, GIP_MEM_CUDA, 0),
              GIP_ERR_INVALID_ARGUMENT);
    if (!cuda) {
        GT_STATUS(gip_image_alloc(ctx, &b, 4, 4, 1, GIP_U8, GIP_MEM_CUDA, 0), GIP_ERR_NO_DEVICE);
        GT_STATUS(gip_image_alloc(ctx, &b, 4, 4, 1, GIP_U8, GIP_MEM_PINNED, 0), GIP_ERR_NO_DEVICE);
    } else {
        GT_STATUS(gip_image_alloc(ctx, &b, 200000, 200000, 4, GIP_F32, GIP_MEM_CUDA, 0),
                  GIP_ERR_DEVICE_OUT_OF_MEMORY);
        GT_CHECK(gip_context_status(ctx) == GIP_OK, "context usable after device OOM");
    }

    GT_OK(gip_image_alloc(ctx, &a, 13, 42, 3, GIP_U16, GIP_MEM_HOST, 0));
    GT_CHECK(a.stride % 64 == 0 && a.stride >= 13 * 3 * 2, "host stride %lld", (long long)a.stride);
    gip_image_free(ctx, &a);
    GT_CHECK(a.data == NULL, "free zeroes the view");
    gip_image_free(ctx, &a);
    gip_image_free(ctx, NULL);
    GT_OK(gip_image_alloc(NULL, &a, 13, 42, 3, GIP_U16, GIP_MEM_HOST, GIP_ALLOC_TIGHT));
    GT_CHECK(a.stride == 13 * 3 * 2, "tight stride");
    gip_image_free(NULL, &a);
#ifdef __linux__
    /* Images of 4 MiB and more start on a 2 MiB boundary (transparent huge pages asked for), and
     * every byte of them is usable; smaller ones keep 64-byte alignment. */
    GT_OK(gip_image_alloc(NULL, &a, 2049, 1025, 3, GIP_U8, GIP_MEM_HOST, GIP_ALLOC_TIGHT));
    GT_CHECK(((uintptr_t)a.data & ((2u << 20) - 1)) == 0, "a 6.3 MB host image is 2 MiB aligned");
    memset(a.data, 0x5A, (size_t)(a.stride * a.height));
    GT_CHECK(((uint8_t *)a.data)[a.stride * a.height - 1] == 0x5A, "its last byte is usable");
    gip_image_free(NULL, &a);
    GT_OK(gip_image_alloc(NULL, &a, 1000, 1000, 4, GIP_U8, GIP_MEM_HOST, 0));
    GT_CHECK(((uintptr_t)a.data & 63) == 0, "a 4 MB host image is 64-byte aligned");
    gip_image_free(NULL, &a);
#endif

    for (int s = 0; s < gt_nsizes; s++) {
        for (int dt = GIP_U8; dt <= GIP_F32; dt++) {
            int64_t w = gt_sizes[s].w, h = gt_sizes[s].h;
            gip_image src, dst;
            gt_alloc(&src, w, h, 3, (gip_dtype)dt, 5);
            gt_alloc(&dst, w, h, 3, (gip_dtype)dt, 11);
            gt_fill_random(&src, (uint64_t)(s * 10 + dt), -1, 1);
            gt_poison(&dst, 0xEE);
            char label[96];
            snprintf(label, sizeof label, "copy %lldx%lld %s", (long long)w, (long long)h,
                     gip_dtype_name((gip_dtype)dt));
            if (!cuda) {
                GT_OK(gip_copy(ctx, &src, &dst));
            } else {
                /* host -> device (padded) -> device (pinned round trip) -> host */
                gip_image d1, d2, pin;
                GT_OK(gip_image_alloc(ctx, &d1, w, h, 3, (gip_dtype)dt, GIP_MEM_CUDA, 0));
                GT_OK(gip_image_alloc(ctx, &d2, w, h, 3, (gip_dtype)dt, GIP_MEM_CUDA,
                                      GIP_ALLOC_TIGHT));
                GT_OK(gip_image_alloc(ctx, &pin, w, h, 3, (gip_dtype)dt, GIP_MEM_PINNED, 0));
                GT_CHECK(d1.stride % 256 == 0, "device stride");
                GT_OK(gip_image_fill_bytes(ctx, &d2, 0x77));
                GT_OK(gip_upload(ctx, &src, &d1));
                GT_OK(gip_copy(ctx, &d1, &d2));
                GT_OK(gip_download(ctx, &d2, &pin));
                GT_OK(gip_context_sync(ctx));
                GT_OK(gip_copy(ctx, &pin, &dst));
                GT_STATUS(gip_upload(ctx, &d1, &d2), GIP_ERR_LOCATION_MISMATCH);
                GT_STATUS(gip_download(ctx, &src, &dst), GIP_ERR_LOCATION_MISMATCH);
                gip_image other = d1;
                other.device = d1.device + 1;
                GT_STATUS(gip_copy(ctx, &other, &d2), GIP_ERR_LOCATION_MISMATCH);
                gip_image_free(ctx, &pin);
                gip_image_free(ctx, &d2);
                gip_image_free(ctx, &d1);
            }
            gt_compare(&dst, &src, 0, 0, label);
            GT_CHECK(gt_padding_intact(&dst), "%s: padding untouched", label);
            gt_free(&src);
            gt_free(&dst);
        }
    }

    /* Bad copies change nothing. */
    gip_image s1, d1;
    gt_alloc(&s1, 8, 8, 1, GIP_U8, 0);
    gt_alloc(&d1, 8, 8, 3, GIP_U8, 0);
    gt_fill_random(&s1, 1, 0, 0);
    gt_poison(&d1, 0x11);
    GT_STATUS(gip_copy(ctx, &s1, &d1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_copy(NULL, &s1, &d1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_copy(ctx, NULL, &d1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_copy(ctx, &s1, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image overlap = s1;
    overlap.data = (uint8_t *)s1.data + 3;
    overlap.height = 7;
    gip_image s1top = s1;
    s1top.height = 7;
    GT_STATUS(gip_copy(ctx, &s1top, &overlap), GIP_ERR_ALIASING);
    GT_OK(gip_copy(ctx, &s1, &s1));
    gip_image dev = s1; /* claims device memory: refused before any byte moves */
    dev.memory = GIP_MEM_CUDA;
    GT_STATUS(gip_copy(ctx, &dev, &d1), cuda ? GIP_ERR_SHAPE_MISMATCH : GIP_ERR_NO_DEVICE);
    bool unchanged = true;
    for (int64_t i = 0; i < 8 * 8 * 3; i++)
        unchanged &= ((uint8_t *)d1.data)[i] == 0x11;
    GT_CHECK(unchanged, "dst unchanged by failed copies");
    GT_STATUS(gip_image_fill_bytes(NULL, &d1, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_OK(gip_image_fill_bytes(ctx, &d1, 0x22));
    GT_CHECK(((uint8_t *)d1.data)[8 * 8 * 3 - 1] == 0x22, "fill host");
    gt_free(&s1);
    gt_free(&d1);
}

/* The number grammar every text reader shares: decimal numbers and byte counts. */
static void test_numbers(void)
{
    static const struct {
        const char *s;
        double v;
        int used; /* characters read; 0: not a number */
    } nums[] = {{"1.5", 1.5, 3}, {"-2", -2, 2},  {"+.25e1x", 2.5, 6}, {"3.", 3, 2},
                {"1e", 1, 1},    {"0x10", 0, 1}, {"inf", 0, 0},       {" 1", 0, 0},
                {"nan", 0, 0},   {".", 0, 0},    {"-", 0, 0},         {"7e-1,", 0.7, 4}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char *end;
        double v = gip_strtod(nums[i].s, &end);
        GT_CHECK(end - nums[i].s == nums[i].used && (!nums[i].used || v == nums[i].v),
                 "gip_strtod('%s'): %g after %d characters, expected %g after %d", nums[i].s, v,
                 (int)(end - nums[i].s), nums[i].v, nums[i].used);
    }
    static const struct {
        const char *s;
        int64_t v; /* 0: refused */
    } bytes[] = {{"4096", 4096},
                 {"256M", 256LL << 20},
                 {"1GiB", 1LL << 30},
                 {"2tb", 2LL << 40},
                 {"0", 0},
                 {"-1", 0},
                 {"1X", 0},
                 {"1Gx", 0},
                 {"", 0},
                 {"9223372036854775807k", 0}};
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        int64_t v = -7;
        int32_t ok = gip_parse_bytes(bytes[i].s, &v);
        GT_CHECK(bytes[i].v ? ok && v == bytes[i].v : !ok && v == -7,
                 "gip_parse_bytes('%s'): %d, %lld", bytes[i].s, (int)ok, (long long)v);
    }
    GT_CHECK(!gip_parse_bytes(NULL, NULL), "gip_parse_bytes(NULL)");
}

static void body(gip_context *ctx)
{
    if (gt_case())
        test_numbers();
    test_version_and_status();
    test_sizes();
    test_views();
    test_contexts(ctx);
    test_alloc_and_copy(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "core", body);
}
