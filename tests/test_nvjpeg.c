/* SPDX-License-Identifier: MIT */
/* Tests of GPU JPEG (nvJPEG): decode of the bundled JPEGs against libjpeg-turbo within the IDCT
 * bound, encode -> CPU decode round trip PSNR, corrupt and truncated files give a clear error,
 * the batch decode, the batch codec and its warm-up, and bad input. The CPU run checks the refusals
 * on a CPU context; the CUDA run skips (exit 77) when gip was built without nvJPEG. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gip/pipeline.h"
#include "testing.h"

/* nvJPEG's IDCT and chroma upsampling are not libjpeg's ISLOW and fancy upsampling: these
 * bounds hold for the bundled photographs (measured values are printed on every run). */
#define MAX_ABS_DIFF 48
#define MEAN_ABS_DIFF 1.5
/* q90 4:2:0 round trip of a photograph; the CPU encoder's PSNR is printed next to it. */
#define MIN_PSNR 32.0

static const char *const files[] = {GIP_DATA_DIR "/hubble_deep_field.jpg",
                                    GIP_DATA_DIR "/rocket.jpg"};

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)len);
    *n = d ? fread(d, 1, (size_t)len, f) : 0;
    fclose(f);
    return d;
}

static void diff_stats(const gip_image *a, const gip_image *b, int *max, double *mean)
{
    int64_t sum = 0, n = a->width * a->height * a->channels;
    *max = 0;
    for (int64_t y = 0; y < a->height; y++) {
        const uint8_t *p = (const uint8_t *)a->data + y * a->stride;
        const uint8_t *q = (const uint8_t *)b->data + y * b->stride;
        for (int64_t i = 0; i < a->width * a->channels; i++) {
            int d = abs((int)p[i] - (int)q[i]);
            sum += d;
            *max = d > *max ? d : *max;
        }
    }
    *mean = (double)sum / (double)n;
}

static double psnr(const gip_image *a, const gip_image *b)
{
    double se = 0;
    int64_t n = a->width * a->height * a->channels;
    for (int64_t y = 0; y < a->height; y++) {
        const uint8_t *p = (const uint8_t *)a->data + y * a->stride;
        const uint8_t *q = (const uint8_t *)b->data + y * b->stride;
        for (int64_t i = 0; i < a->width * a->channels; i++)
            se += ((double)p[i] - q[i]) * ((double)p[i] - q[i]);
    }
    return se == 0 ? 99.0 : 10.0 * log10(255.0 * 255.0 * (double)n / se);
}

static gip_status download(gip_context *ctx, const gip_image *dev, gip_image *host)
{
    gt_alloc(host, dev->width, dev->height, dev->channels, dev->dtype, 0);
    gip_status st = gip_download(ctx, dev, host);
    return st ? st : gip_context_sync(ctx);
}

static void decode_vs_cpu(gip_context *ctx, const char *path, gip_load_mode mode, int bgr)
{
    size_t n = 0;
    uint8_t *bytes = read_all(path, &n);
    if (!GT_CHECK(bytes != NULL, "cannot read %s", path))
        return;
    gip_load_params lp = {0};
    lp.mode = mode;
    lp.bgr = bgr;
    gip_image cpu = {0}, dev = {0}, got = {0};
    if (GT_OK(gip_image_decode(bytes, n, &lp, &cpu)) &&
        GT_OK(gip_jpeg_decode_device(ctx, bytes, n, &lp, &dev)) &&
        GT_OK(download(ctx, &dev, &got))) {
        GT_CHECK(got.width == cpu.width && got.height == cpu.height &&
                     got.channels == cpu.channels && got.dtype == GIP_U8,
                 "%s: shape %lldx%lld c%d, CPU %lldx%lld c%d", path, (long long)got.width,
                 (long long)got.height, (int)got.channels, (long long)cpu.width,
                 (long long)cpu.height, (int)cpu.channels);
        if (got.width == cpu.width && got.channels == cpu.channels) {
            int max;
            double mean;
            diff_stats(&got, &cpu, &max, &mean);
            printf("  %s mode %d bgr %d (%s): max |nvJPEG - libjpeg| %d, mean %.3f\n", path,
                   (int)mode, bgr, gip_nvjpeg_backend(), max, mean);
            GT_CHECK(max <= MAX_ABS_DIFF && mean <= MEAN_ABS_DIFF,
                     "%s: max %d (bound %d), mean %.3f (bound %.3f)", path, max, MAX_ABS_DIFF, mean,
                     MEAN_ABS_DIFF);
        }
    }
    gip_image_free(NULL, &cpu);
    gip_image_free(ctx, &dev);
    gt_free(&got);
    free(bytes);
}

static void round_trip(gip_context *ctx, const char *path, gip_subsampling sub)
{
    gip_image src = {0}, dev = {0}, back = {0}, cpu_back = {0};
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_COLOR;
    gip_save_params sp = {0};
    sp.quality = 90;
    sp.subsampling = sub;
    sp.format = GIP_FORMAT_JPEG;
    void *enc = NULL, *cpu_enc = NULL;
    size_t n = 0, cpu_n = 0;
    if (GT_OK(gip_image_load(path, &lp, &src)) &&
        GT_OK(gip_image_alloc(ctx, &dev, src.width, src.height, 3, GIP_U8, GIP_MEM_CUDA, 0)) &&
        GT_OK(gip_upload(ctx, &src, &dev)) &&
        GT_OK(gip_jpeg_encode_device(ctx, &dev, &sp, &enc, &n)) &&
        GT_OK(gip_image_decode(enc, n, &lp, &back)) &&
        GT_OK(gip_image_encode(&src, &sp, &cpu_enc, &cpu_n)) &&
        GT_OK(gip_image_decode(cpu_enc, cpu_n, &lp, &cpu_back))) {
        double p = psnr(&back, &src), pc = psnr(&cpu_back, &src);
        printf("  %s q90 subsampling %d: nvJPEG %zu bytes PSNR %.2f dB; libjpeg %zu bytes PSNR "
               "%.2f dB\n",
               path, (int)sub, n, p, cpu_n, pc);
        GT_CHECK(p >= MIN_PSNR, "%s: PSNR %.2f below %.1f", path, p, MIN_PSNR);
    }
    gip_free(enc);
    gip_free(cpu_enc);
    gip_image_free(NULL, &src);
    gip_image_free(ctx, &dev);
    gip_image_free(NULL, &back);
    gip_image_free(NULL, &cpu_back);
}

static void corrupt(gip_context *ctx)
{
    size_t n = 0;
    uint8_t *bytes = read_all(files[0], &n);
    if (!GT_CHECK(bytes != NULL, "cannot read %s", files[0]))
        return;
    gip_image out = {0};
    /* Truncated at half, at 10 bytes; header garbage; all checked for a status and message. */
    GT_STATUS(gip_jpeg_decode_device(ctx, bytes, n / 2, NULL, &out), GIP_ERR_CORRUPT);
    GT_CHECK(strstr(gip_last_error(), "JPEG") != NULL, "message: %s", gip_last_error());
    GT_CHECK(out.data == NULL, "out written on failure");
    GT_STATUS(gip_jpeg_decode_device(ctx, bytes, 10, NULL, &out), GIP_ERR_CORRUPT);
    uint8_t *bad = malloc(n);
    memcpy(bad, bytes, n);
    memset(bad + 4, 0xFF, 200 < n - 4 ? 200 : n - 4);
    gip_status st = gip_jpeg_decode_device(ctx, bad, n, NULL, &out);
    GT_CHECK(st == GIP_ERR_CORRUPT || st == GIP_ERR_UNKNOWN_FORMAT, "garbage header: %s",
             gip_status_name(st));
    GT_CHECK(out.data == NULL, "out written on failure");
    /* Batch with a good and a truncated file: one status each. */
    const void *data[2] = {bytes, bytes};
    size_t sizes[2] = {n, n / 3};
    gip_image outs[2];
    gip_status sts[2];
    if (GT_OK(gip_jpeg_decode_device_batch(ctx, 2, data, sizes, NULL, outs, sts))) {
        GT_CHECK(sts[0] == GIP_OK && outs[0].data, "batch: good file %s", gip_status_name(sts[0]));
        GT_CHECK(sts[1] == GIP_ERR_CORRUPT && !outs[1].data, "batch: truncated file %s",
                 gip_status_name(sts[1]));
        gip_image_free(ctx, &outs[0]);
    }
    free(bad);
    free(bytes);
}

/* Runs `gaussian 5` over the JPEGs of in_dir into out_dir with the codec (4 workers, q90). */
static void batch(gip_context *ctx, gip_batch_codec *codec, const char *in_dir, const char *out_dir,
                  int64_t expect)
{
    gip_context_desc d = {0};
    d.backend = GIP_BACKEND_CUDA;
    d.device = gip_context_device(ctx);
    gip_pipeline *p = NULL;
    char **inputs = NULL;
    int64_t n = 0;
    if (GT_OK(gip_pipeline_create(&d, &p)) && GT_OK(gip_pipeline_parse(p, "gaussian 5", NULL)) &&
        GT_OK(gip_batch_list_inputs(in_dir, &inputs, &n))) {
        gip_batch_options o = {0};
        o.jobs = 4;
        o.codec = codec;
        o.format = GIP_FORMAT_JPEG;
        o.quality = 90;
        gip_batch_stats st;
        if (GT_OK(gip_batch_run(&p, 1, (const char *const *)inputs, n, out_dir, &o, &st)))
            GT_CHECK(st.written == expect && st.failed == 0, "batch: %lld written, %lld failed",
                     (long long)st.written, (long long)st.failed);
    }
    gip_batch_free_list(inputs, n);
    gip_pipeline_free(p);
}

/* The codec's warm-up returns GIP_OK on a sample and on junk (nothing decodable: nothing to
 * encode); a batch of 20 copies of a sample (more than one group of 16, so the engine warms the
 * states) writes the same bytes as with GIP_BATCH_WARM=0. */
static void warm(gip_context *ctx, gip_batch_codec *codec)
{
    size_t n = 0;
    uint8_t *bytes = read_all(files[1], &n);
    if (!GT_CHECK(bytes != NULL, "cannot read %s", files[1]))
        return;
    gip_load_params lp = {0};
    lp.mode = GIP_LOAD_COLOR;
    gip_save_params sp = {0};
    sp.format = GIP_FORMAT_JPEG;
    sp.quality = 90;
    GT_OK(codec->prepare(codec->user, ctx, &lp, 4, 2, 2));
    GT_OK(codec->warm(codec->user, ctx, bytes, n, &lp, &sp, 4, 2, 2));
    uint8_t junk[64] = {0xFF, 0xD8, 0xFF};
    GT_OK(codec->warm(codec->user, ctx, junk, sizeof junk, &lp, &sp, 4, 2, 2));
    char dir[] = "/tmp/gip_nvjpeg_XXXXXX", path[400], in[300], out[2][300];
    if (!GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp")) {
        free(bytes);
        return;
    }
    snprintf(in, sizeof in, "%s/in", dir);
    mkdir(in, 0777);
    enum { COPIES = 20 };
    for (int i = 0; i < COPIES; i++) {
        snprintf(path, sizeof path, "%s/f%02d.jpg", in, i);
        FILE *f = fopen(path, "wb");
        GT_CHECK(f && fwrite(bytes, 1, n, f) == n, "cannot write %s", path);
        if (f)
            fclose(f);
    }
    for (int w = 0; w < 2; w++) {
        snprintf(out[w], sizeof out[w], "%s/out%d", dir, w);
        mkdir(out[w], 0777);
        if (w == 0)
            gt_setenv("GIP_BATCH_WARM", "0");
        batch(ctx, codec, in, out[w], COPIES);
        gt_setenv("GIP_BATCH_WARM", NULL);
    }
    int same = 0;
    for (int i = 0; i < COPIES; i++) {
        size_t na = 0, nb = 0;
        snprintf(path, sizeof path, "%s/f%02d.jpg", out[0], i);
        uint8_t *a = read_all(path, &na);
        remove(path);
        snprintf(path, sizeof path, "%s/f%02d.jpg", out[1], i);
        uint8_t *b = read_all(path, &nb);
        remove(path);
        same += a && b && na == nb && na > 0 && memcmp(a, b, na) == 0;
        free(a);
        free(b);
        snprintf(path, sizeof path, "%s/f%02d.jpg", in, i);
        remove(path);
    }
    GT_CHECK(same == COPIES, "warm-up changed the output: %d of %d files equal", same, COPIES);
    rmdir(out[0]);
    rmdir(out[1]);
    rmdir(in);
    rmdir(dir);
    free(bytes);
}

static void bad_input(gip_context *ctx)
{
    gip_image out = {0}, host = {0};
    void *d = NULL;
    size_t n = 0;
    uint8_t x = 0;
    GT_STATUS(gip_jpeg_decode_device(ctx, &x, 1, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_jpeg_encode_device(ctx, NULL, NULL, &d, &n), GIP_ERR_INVALID_ARGUMENT);
    gt_alloc(&host, 8, 8, 3, GIP_U8, 0);
    GT_STATUS(gip_jpeg_encode_device(ctx, &host, NULL, &d, &n), GIP_ERR_LOCATION_MISMATCH);
    gip_image dev = {0};
    if (GT_OK(gip_image_alloc(ctx, &dev, 8, 8, 4, GIP_U8, GIP_MEM_CUDA, 0))) {
        GT_STATUS(gip_jpeg_encode_device(ctx, &dev, NULL, &d, &n), GIP_ERR_UNSUPPORTED);
        gip_image_free(ctx, &dev);
    }
    gt_free(&host);
    (void)out;
}

static void body(gip_context *ctx)
{
    gip_batch_codec codec;
    gip_status built = gip_nvjpeg_codec(&codec);
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA) {
        /* CPU context: decoding into device memory is refused (or not built). */
        uint8_t x = 0;
        gip_image out = {0};
        gip_status st = gip_jpeg_decode_device(ctx, &x, 1, NULL, &out);
        GT_CHECK(st == (built ? GIP_ERR_NOT_BUILT : GIP_ERR_NO_DEVICE), "CPU context: %s",
                 gip_status_name(st));
        if (built) {
            GT_CHECK(strstr(gip_last_error(), "built without nvJPEG") != NULL, "message: %s",
                     gip_last_error());
            GT_STATUS(gip_nvjpeg_codec(&codec), GIP_ERR_NOT_BUILT);
        }
        return;
    }
    if (built == GIP_ERR_NOT_BUILT) {
        printf("SKIP: gip was built without nvJPEG\n");
        exit(GT_SKIP);
    }
    printf("  nvJPEG backend: %s\n", gip_nvjpeg_backend());
    int64_t hw0, hy0, cpu0;
    gip_nvjpeg_decode_counts(&hw0, &hy0, &cpu0);
    for (int f = 0; f < 2; f++) {
        if (gt_case())
            decode_vs_cpu(ctx, files[f], GIP_LOAD_COLOR, 0);
        if (gt_case())
            decode_vs_cpu(ctx, files[f], GIP_LOAD_COLOR, 1);
        if (gt_case())
            decode_vs_cpu(ctx, files[f], GIP_LOAD_GRAY, 0);
        if (gt_case())
            round_trip(ctx, files[f], GIP_SUBSAMPLING_420);
        if (gt_case())
            round_trip(ctx, files[f], GIP_SUBSAMPLING_444);
    }
    /* Every decode above went through one of the three paths; baseline colour files through a
     * GPU one (the CPU path is for what nvJPEG refuses). */
    int64_t hw, hy, cpu;
    gip_nvjpeg_decode_counts(&hw, &hy, &cpu);
    printf("  decodes: %lld hardware, %lld GPU hybrid, %lld CPU\n", (long long)(hw - hw0),
           (long long)(hy - hy0), (long long)(cpu - cpu0));
    if (!gt_sliced()) { /* counts over every decode above */
        GT_CHECK(hw - hw0 + hy - hy0 >= 4,
                 "the baseline samples were decoded on the GPU: %lld + %lld", (long long)(hw - hw0),
                 (long long)(hy - hy0));
        if (strcmp(gip_nvjpeg_backend(), "hardware") == 0)
            GT_CHECK(hw > hw0, "a GPU with a JPEG decoder decoded the baseline samples with it");
    }
    if (gt_case())
        corrupt(ctx);
    if (gt_case())
        warm(ctx, &codec);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "nvjpeg", body);
}
