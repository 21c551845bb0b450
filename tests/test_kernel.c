/* SPDX-License-Identifier: MIT */
/* Tests of raw CUDA modules: the seed program's 3x3 mean written correctly (it gets the size and
 * replicates the border) against a reference and against the stencil, NVRTC errors with their
 * line, kernel lookup and argument checks, and the disk cache (hit, corrupt, truncated and foreign
 * entries rebuilt, unwritable folder). Without a device: the clear "needs a CUDA device" error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gip/kernel.h"
#include "kernel/module.h"
#include "testing.h"

static char cache_dir[256];

static const char mean_source[] =
    "// the seed's 3x3 mean, given its size and clamping at the borders\n"
    "extern \"C\" __global__ void mean3(const unsigned char *src, int w, int h, long long "
    "sstride,\n"
    "                                   int c, unsigned char *dst, int dw, int dh,\n"
    "                                   long long dstride, int dc)\n"
    "{\n"
    "    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + "
    "threadIdx.y;\n"
    "    if (x >= w || y >= h || x >= dw || y >= dh)\n"
    "        return;\n"
    "    for (int ch = 0; ch < c; ch++) {\n"
    "        int s = 0;\n"
    "        for (int dy = -1; dy <= 1; dy++)\n"
    "            for (int dx = -1; dx <= 1; dx++) {\n"
    "                int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);\n"
    "                s += src[yy * sstride + xx * c + ch];\n"
    "            }\n"
    "        dst[y * dstride + x * dc + ch] = (unsigned char)__float2int_rn(s / 9.0f * SCALE);\n"
    "    }\n"
    "}\n";

/* Counts the entries of the cache folder and applies `fn` to each. */
static int each_entry(void (*fn)(const char *path))
{
    DIR *d = opendir(cache_dir);
    int n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".gipk") != 0)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        if (fn)
            fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void flip_middle_byte(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size - 100, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size - 100, SEEK_SET);
    fputc(c ^ 0x5A, f);
    fclose(f);
}

static void truncate_entry(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        GT_CHECK(truncate(path, st.st_size / 2) == 0, "truncate %s", path);
}

/* ---- the disk cache itself (any backend) ------------------------------------------------- */
static void test_cache_unit(void)
{
    const char key_a[] = "key material A", key_b[] = "key material B";
    const char payload[] = "payload bytes that stand for a cubin";
    gip_cache_stats s0, s1;
    gip_kernel_cache_stats_reset();
    void *got = NULL;
    size_t len = 0;
    GT_CHECK(!gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len), "empty: miss");
    gip__cache_store(key_a, sizeof key_a, GIP__CACHE_CUBIN, payload, sizeof payload);
    gip_kernel_cache_stats(&s0);
    GT_CHECK(s0.stores == 1 && s0.rejected == 0, "one store (%lld), no rejection",
             (long long)s0.stores);
    GT_CHECK(gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len) &&
                 len == sizeof payload && memcmp(got, payload, len) == 0,
             "hit returns the payload");
    free(got);
    GT_CHECK(!gip__cache_load(key_a, sizeof key_a, GIP__CACHE_PTX, &got, &len),
             "another payload kind is not a hit");
    /* Corrupt payload, truncated file, foreign entry: rejected, never returned. */
    GT_CHECK(each_entry(flip_middle_byte) == 1, "one entry on disk");
    GT_CHECK(!gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len),
             "corrupt entry rejected");
    gip__cache_store(key_a, sizeof key_a, GIP__CACHE_CUBIN, payload, sizeof payload);
    each_entry(truncate_entry);
    GT_CHECK(!gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len),
             "truncated entry rejected");
    gip__cache_store(key_b, sizeof key_b, GIP__CACHE_CUBIN, payload, sizeof payload);
    /* Put B's entry where A's belongs: a valid file with another key. */
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/%016llx.gipk", cache_dir,
             (unsigned long long)gip__fnv1a64(key_a, sizeof key_a, GIP__FNV_OFFSET));
    snprintf(pb, sizeof pb, "%s/%016llx.gipk", cache_dir,
             (unsigned long long)gip__fnv1a64(key_b, sizeof key_b, GIP__FNV_OFFSET));
    GT_CHECK(rename(pb, pa) == 0, "move entry B over A");
    GT_CHECK(!gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len),
             "foreign entry rejected");
    gip_kernel_cache_stats(&s1);
    GT_CHECK(s1.rejected == 4 && s1.hits == 1, "stats: %lld rejected (4), %lld hits (1)",
             (long long)s1.rejected, (long long)s1.hits);
    gip__cache_store(key_a, sizeof key_a, GIP__CACHE_CUBIN, payload, sizeof payload);
    GT_CHECK(gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len),
             "rebuilt entry is a hit");
    free(got);

    /* An unusable folder (its parent is a file) disables the cache quietly. */
    char file[300], bad[340];
    snprintf(file, sizeof file, "%s/plainfile", cache_dir);
    FILE *f = fopen(file, "w");
    if (f)
        fclose(f);
    snprintf(bad, sizeof bad, "%s/sub", file);
    setenv("GIP_CACHE_DIR", bad, 1);
    gip_kernel_cache_stats(&s0);
    gip__cache_store(key_a, sizeof key_a, GIP__CACHE_CUBIN, payload, sizeof payload);
    gip_kernel_cache_stats(&s1);
    GT_CHECK(s1.store_failures == s0.store_failures + 1, "unwritable folder: store failure");
    GT_CHECK(!gip__cache_load(key_a, sizeof key_a, GIP__CACHE_CUBIN, &got, &len),
             "unwritable folder: miss");
    char dir[512];
    GT_OK(gip_kernel_cache_dir(dir, sizeof dir));
    GT_CHECK(strcmp(dir, bad) == 0, "cache dir %s", dir);
    GT_STATUS(gip_kernel_cache_dir(dir, 4), GIP_ERR_INVALID_ARGUMENT);
    unsetenv("GIP_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    GT_OK(gip_kernel_cache_dir(dir, sizeof dir));
    GT_CHECK(strcmp(dir, "/tmp/xdg/gip") == 0, "XDG cache dir %s", dir);
    unsetenv("XDG_CACHE_HOME");
    setenv("GIP_CACHE_DIR", cache_dir, 1);
    unlink(file);
}

/* ---- without a device ---------------------------------------------------------------------- */
static void test_cpu_context(gip_context *ctx)
{
    gip_module *m = (gip_module *)(uintptr_t)1;
    GT_STATUS(gip_module_compile(ctx, mean_source, "mean.cu", NULL, &m), GIP_ERR_NO_DEVICE);
    GT_CHECK(strstr(gip_last_error(), "raw CUDA modules need a CUDA device") != NULL, "message: %s",
             gip_last_error());
    GT_CHECK(m == NULL, "out cleared on failure");
    GT_STATUS(gip_module_compile(ctx, NULL, "x.cu", NULL, &m), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_module_compile(NULL, mean_source, "x.cu", NULL, &m), GIP_ERR_INVALID_ARGUMENT);
    gip_module_free(NULL);
    gip_module_info info;
    GT_STATUS(gip_module_get_info(NULL, &info), GIP_ERR_INVALID_ARGUMENT);
    gip_kernel *k = NULL;
    GT_STATUS(gip_module_get_kernel(NULL, "mean3", &k), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_kernel_launch(ctx, NULL, NULL, NULL, 0), GIP_ERR_INVALID_ARGUMENT);
}

/* ---- on a device --------------------------------------------------------------------------- */
static void ref_mean_replicate(const gip_image *src, gip_image *ref)
{
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int c = 0; c < src->channels; c++) {
                double s = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int64_t xx = x + dx < 0             ? 0
                                     : x + dx >= src->width ? src->width - 1
                                                            : x + dx;
                        int64_t yy = y + dy < 0              ? 0
                                     : y + dy >= src->height ? src->height - 1
                                                             : y + dy;
                        s += gt_get(src, xx, yy, c);
                    }
                gt_set(ref, x, y, c, s / 9.0);
            }
}

static const char *const scale_opt[] = {"-DSCALE=1"};

static gip_status compile_mean(gip_context *ctx, gip_module **m, gip_module_info *info)
{
    gip_compile_options o = {0};
    o.options = scale_opt;
    o.n_options = 1;
    gip_status st = gip_module_compile(ctx, mean_source, "mean.cu", &o, m);
    if (!st)
        gip_module_get_info(*m, info);
    return st;
}

static void run_mean(gip_context *ctx, gip_module *m, int64_t w, int64_t h, int32_t ch,
                     const char *label)
{
    gip_kernel *k = NULL;
    if (!GT_OK(gip_module_get_kernel(m, "mean3", &k)))
        return;
    gip_image src, out, ref, dsrc, ddst;
    gt_alloc(&src, w, h, ch, GIP_U8, 3);
    gt_alloc(&out, w, h, ch, GIP_U8, 0);
    gt_alloc(&ref, w, h, ch, GIP_U8, 0);
    gt_fill_random(&src, (uint64_t)(w * 31 + h), 0, 0);
    ref_mean_replicate(&src, &ref);
    GT_OK(gip_image_alloc(ctx, &dsrc, w, h, ch, GIP_U8, GIP_MEM_CUDA, 0));
    GT_OK(gip_image_alloc(ctx, &ddst, w, h, ch, GIP_U8, GIP_MEM_CUDA, 0));
    GT_OK(gip_upload(ctx, &src, &dsrc));
    GT_OK(gip_image_fill_bytes(ctx, &ddst, 0xCD));
    gip_kernel_arg args[2] = {gip_arg_image(&dsrc), gip_arg_image(&ddst)};
    GT_OK(gip_kernel_launch(ctx, k, NULL, args, 2));
    GT_OK(gip_download(ctx, &ddst, &out));
    gt_compare(&out, &ref, 0, 0, label);
    /* The same mean as a stencil with a replicated border gives the same bytes. */
    gip_stencil_params p = {0};
    p.border.mode = GIP_BORDER_REPLICATE;
    GT_OK(gip_image_fill_bytes(ctx, &ddst, 0xCD));
    GT_OK(gip_stencil(ctx,
                      "(in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in + in(1,0) + in(-1,1) + "
                      "in(0,1) + in(1,1)) / 9",
                      &dsrc, &ddst, &p));
    GT_OK(gip_download(ctx, &ddst, &out));
    gt_compare(&out, &ref, 0, 0, "stencil mean vs raw module mean");
    gip_image_free(ctx, &dsrc);
    gip_image_free(ctx, &ddst);
    gt_free(&src);
    gt_free(&out);
    gt_free(&ref);
}

static void test_module(gip_context *ctx)
{
    gip_module *m = NULL;
    gip_module_info info;
    gip_cache_stats s0, s1;
    gip_kernel_cache_stats(&s0);
    if (!GT_OK(compile_mean(ctx, &m, &info)))
        return;
    GT_CHECK(!info.cache_hit && info.compile_seconds > 0, "first compile is a miss (%s, %.3f s)",
             info.target, info.compile_seconds);
    printf("compiled for %s in %.3f s, loaded in %.4f s\n", info.target, info.compile_seconds,
           info.load_seconds);
    for (int si = 0; si < gt_nsizes; si++) {
        char label[64];
        snprintf(label, sizeof label, "module mean3 %lldx%lld", (long long)gt_sizes[si].w,
                 (long long)gt_sizes[si].h);
        run_mean(ctx, m, gt_sizes[si].w, gt_sizes[si].h, si % 2 ? 3 : 1, label);
    }
    gip_module_free(m);

    GT_OK(compile_mean(ctx, &m, &info));
    GT_CHECK(info.cache_hit && info.compile_seconds == 0, "second compile is a hit");
    printf("cached load in %.4f s\n", info.load_seconds);
    gip_kernel_cache_stats(&s1);
    GT_CHECK(s1.hits == s0.hits + 1, "stats count the hit");
    run_mean(ctx, m, 64, 48, 4, "module mean3 from the cache");
    gip_module_free(m);

    GT_CHECK(each_entry(flip_middle_byte) >= 1, "entries on disk");
    gip_kernel_cache_stats(&s0);
    GT_OK(compile_mean(ctx, &m, &info));
    gip_kernel_cache_stats(&s1);
    GT_CHECK(!info.cache_hit && s1.rejected > s0.rejected, "corrupt entry rejected and rebuilt");
    run_mean(ctx, m, 13, 42, 3, "module mean3 after a corrupt entry");
    gip_module_free(m);
    each_entry(truncate_entry);
    GT_OK(compile_mean(ctx, &m, &info));
    GT_CHECK(!info.cache_hit, "truncated entry rebuilt");
    gip_module_free(m);
    GT_OK(compile_mean(ctx, &m, &info));
    GT_CHECK(info.cache_hit, "rebuilt entry is a hit");

    /* Lookup and argument checks. */
    gip_kernel *k = NULL, *k2 = NULL;
    GT_STATUS(gip_module_get_kernel(m, "mean", &k), GIP_ERR_NOT_FOUND);
    GT_CHECK(strstr(gip_last_error(), "mean3") != NULL, "lists the kernels: %s", gip_last_error());
    GT_OK(gip_module_get_kernel(m, "mean3", &k));
    GT_OK(gip_module_get_kernel(m, "mean3", &k2));
    GT_CHECK(k == k2, "same kernel twice");
    gip_image dimg, himg;
    GT_OK(gip_image_alloc(ctx, &dimg, 16, 16, 1, GIP_U8, GIP_MEM_CUDA, 0));
    gt_alloc(&himg, 16, 16, 1, GIP_U8, 0);
    gip_kernel_arg one[1] = {gip_arg_image(&dimg)};
    GT_STATUS(gip_kernel_launch(ctx, k, NULL, one, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "takes 10 parameters") != NULL, "%s", gip_last_error());
    gip_kernel_arg wrong[2] = {gip_arg_image(&dimg), gip_arg_image(&dimg)};
    wrong[1].v.image = &dimg;
    gip_kernel_arg mixed[6] = {gip_arg_image(&dimg), gip_arg_ptr(dimg.data), gip_arg_i32(16),
                               gip_arg_i32(16),      gip_arg_i32(16),        gip_arg_i32(1)};
    GT_STATUS(gip_kernel_launch(ctx, k, NULL, mixed, 6), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "parameter 8") != NULL, "size mismatch named: %s",
             gip_last_error());
    gip_kernel_arg host[2] = {gip_arg_image(&himg), gip_arg_image(&dimg)};
    GT_STATUS(gip_kernel_launch(ctx, k, NULL, host, 2), GIP_ERR_LOCATION_MISMATCH);
    gip_launch_config cfg = {{1, 1, 1}, {2048, 1, 1}, 0, NULL};
    GT_STATUS(gip_kernel_launch(ctx, k, &cfg, wrong, 2), GIP_ERR_INVALID_ARGUMENT);
    /* An explicit grid and block (z 0 counts as 1) on defined input into another image. */
    gip_image dout;
    GT_OK(gip_image_alloc(ctx, &dout, 16, 16, 1, GIP_U8, GIP_MEM_CUDA, 0));
    GT_OK(gip_image_fill_bytes(ctx, &dimg, 90));
    gip_kernel_arg fine[2] = {gip_arg_image(&dimg), gip_arg_image(&dout)};
    gip_launch_config ok = {{4, 4, 0}, {4, 4, 0}, 0, NULL};
    GT_OK(gip_kernel_launch(ctx, k, &ok, fine, 2));
    GT_OK(gip_download(ctx, &dout, &himg));
    GT_CHECK(gt_get(&himg, 0, 0, 0) == 90 && gt_get(&himg, 15, 15, 0) == 90,
             "the explicit launch covered the image: %g %g", gt_get(&himg, 0, 0, 0),
             gt_get(&himg, 15, 15, 0));
    gip_kernel_arg bad_type = {(gip_arg_type)42, {0}};
    GT_STATUS(gip_kernel_launch(ctx, k, NULL, &bad_type, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_kernel_launch(ctx, k, NULL, NULL, 3), GIP_ERR_INVALID_ARGUMENT);
    GT_OK(gip_context_sync(ctx));
    gip_image_free(ctx, &dimg);
    gip_image_free(ctx, &dout);
    gt_free(&himg);
    gip_module_free(m);
}

static void test_compile_errors(gip_context *ctx)
{
    const char bad[] = "extern \"C\" __global__ void k(int *p)\n"
                       "{\n"
                       "    *p = undefined_thing;\n"
                       "}\n";
    gip_module *m = NULL;
    GT_STATUS(gip_module_compile(ctx, bad, "bad.cu", NULL, &m), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "bad.cu(3)") != NULL &&
                 strstr(gip_last_error(), "undefined_thing") != NULL,
             "NVRTC log with file and line: %s", gip_last_error());
    GT_CHECK(m == NULL, "no module");
    const char *const arch[] = {"--gpu-architecture=sm_50"};
    gip_compile_options o = {arch, 1, NULL, 0, 0};
    GT_STATUS(gip_module_compile(ctx, bad, "bad.cu", &o, &m), GIP_ERR_INVALID_ARGUMENT);
    const char *const bogus[] = {"--no-such-option"};
    gip_compile_options o2 = {bogus, 1, NULL, 0, GIP_COMPILE_NO_CACHE};
    GT_STATUS(gip_module_compile(ctx, "", "empty.cu", &o2, &m), GIP_ERR_INVALID_ARGUMENT);
    gip_compile_options o3 = {NULL, 1, NULL, 0, 0};
    GT_STATUS(gip_module_compile(ctx, "", "empty.cu", &o3, &m), GIP_ERR_INVALID_ARGUMENT);

    /* Include paths: a header in a folder of the test. */
    char inc[300], hdr[340];
    snprintf(inc, sizeof inc, "%s/include", cache_dir);
    mkdir(inc, 0700);
    snprintf(hdr, sizeof hdr, "%s/twice.h", inc);
    FILE *f = fopen(hdr, "w");
    if (f) {
        fputs("#define TWICE(v) ((v) * 2)\n", f);
        fclose(f);
    }
    const char src[] = "#include \"twice.h\"\n"
                       "extern \"C\" __global__ void twice(int *p, int v) { *p = TWICE(v); }\n";
    const char *const incs[] = {inc};
    gip_compile_options o4 = {NULL, 0, incs, 1, 0};
    if (GT_OK(gip_module_compile(ctx, src, "twice.cu", &o4, &m))) {
        gip_kernel *k = NULL;
        gip_image d;
        GT_OK(gip_module_get_kernel(m, "twice", &k));
        GT_OK(gip_image_alloc(ctx, &d, 1, 1, 1, GIP_F32, GIP_MEM_CUDA, 0));
        gip_kernel_arg a[2] = {gip_arg_ptr(d.data), gip_arg_i32(21)};
        gip_launch_config one = {{1, 0, 0}, {1, 0, 0}, 0, NULL};
        GT_OK(gip_kernel_launch(ctx, k, &one, a, 2));
        int32_t v = 0;
        gip_image h;
        gip_image_wrap(&h, &v, 1, 1, 1, GIP_F32, 0, GIP_MEM_HOST, 0);
        GT_OK(gip_download(ctx, &d, &h));
        GT_CHECK(v == 42, "TWICE(21) = %d", (int)v);
        gip_image_free(ctx, &d);
        gip_module_free(m);
    }
}

static void body(gip_context *ctx)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/gip-test-kernel-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        GT_CHECK(false, "mkdtemp");
        return;
    }
    setenv("GIP_CACHE_DIR", cache_dir, 1);
    test_cache_unit();
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA) {
        test_cpu_context(ctx);
    } else {
        test_module(ctx);
        test_compile_errors(ctx);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    GT_CHECK(system(cmd) == 0, "remove %s", cache_dir);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "kernel", body);
}
