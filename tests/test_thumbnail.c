/* SPDX-License-Identifier: MIT */
/* The thumbnail step: the size that fits the box with the aspect ratio kept (each side rounded,
 * at least 1), shrink_only, and the pixels equal to gip_resize to that size on every dtype and
 * channel count; on CUDA equal to the CPU; bad arguments refused. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gip/geometry.h"
#include "gip/pipeline.h"
#include "testing.h"

static gip_args *thumb_args(const char *size, const char *interp, int shrink_only)
{
    const gip_op *op = gip_op_find("thumbnail");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "thumbnail is not registered") || !GT_OK(gip_args_create(op, &a)))
        return NULL;
    GT_OK(gip_args_set_text(a, "size", size));
    if (interp)
        GT_OK(gip_args_set_text(a, "interpolation", interp));
    GT_OK(gip_args_set_int(a, "shrink_only", shrink_only));
    return a;
}

static void reduced_loads(void);
static void load_reduce_factors(void);
static void shrink_on_load(gip_context *ctx);

static gip_status run_step(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    return gip_op_apply(ctx, a, src, dst);
}

static void body(gip_context *ctx)
{
    static const struct {
        int64_t w, h;
        const char *box;
        int shrink_only;
        int64_t ow, oh;
    } fits[] = {{451, 300, "100", 0, 100, 67},   {300, 451, "100", 0, 67, 100},
                {451, 300, "200x50", 0, 75, 50}, {1, 500, "10", 0, 1, 10},
                {500, 1, "10", 0, 10, 1},        {40, 30, "1000", 0, 1000, 750},
                {40, 30, "1000", 1, 40, 30},     {1, 1, "7x3", 0, 3, 3}};
    static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 3;
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
        for (size_t d = 0; d < 3; d++)
            for (int32_t c = 1; c <= 4; c += c == 1 ? 2 : 1, seed++) {
                if (!gt_case())
                    continue;
                gip_args *a = thumb_args(fits[i].box, i % 2 ? "linear" : NULL, fits[i].shrink_only);
                if (!a)
                    return;
                gip_shape in = {fits[i].w, fits[i].h, c, dtypes[d]}, out;
                if (GT_OK(gip_op_output_shape(a, &in, &out)))
                    GT_CHECK(out.width == fits[i].ow && out.height == fits[i].oh,
                             "thumbnail %s of %lldx%lld: %lldx%lld, expected %lldx%lld",
                             fits[i].box, (long long)fits[i].w, (long long)fits[i].h,
                             (long long)out.width, (long long)out.height, (long long)fits[i].ow,
                             (long long)fits[i].oh);
                gip_image src, dst, exp;
                gt_alloc(&src, fits[i].w, fits[i].h, c, dtypes[d], seed % 2 ? 5 : 0);
                gt_alloc(&dst, fits[i].ow, fits[i].oh, c, dtypes[d], 0);
                gt_alloc(&exp, fits[i].ow, fits[i].oh, c, dtypes[d], 0);
                gt_fill_random(&src, seed, 0, 0);
                gip_context_desc cd = {.backend = GIP_BACKEND_CPU};
                gip_context *cpu = NULL;
                gip_resize_params rp = {i % 2 ? GIP_INTER_LINEAR : GIP_INTER_AREA, 0, 0, 0};
                if (GT_OK(gip_context_create(&cd, &cpu)) &&
                    GT_OK(gt_run_unary(ctx, run_step, &src, &dst, a, 0x5A)) &&
                    GT_OK(gip_resize(cpu, &src, &exp, &rp)))
                    gt_compare(&dst, &exp, 0, 0, "thumbnail vs gip_resize");
                gip_context_destroy(cpu);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
                gip_args_free(a);
            }
    if (gt_case() && gip_context_backend(ctx) == GIP_BACKEND_CPU)
        reduced_loads();
    if (gt_case() && gip_context_backend(ctx) == GIP_BACKEND_CPU)
        load_reduce_factors();
    if (gt_case())
        shrink_on_load(ctx);
    const gip_op *op = gip_op_find("thumbnail");
    gip_args *a = NULL;
    if (gt_case() && op && GT_OK(gip_args_create(op, &a))) {
        GT_STATUS(gip_args_set_text(a, "size", "0"), GIP_ERR_INVALID_ARGUMENT);
        gip_shape in = {10, 10, 1, GIP_U8}, out;
        GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT); /* required */
        GT_OK(gip_args_set_text(a, "size", "5"));
        GT_OK(gip_args_set_text(a, "interpolation", "area"));
        GT_OK(gip_args_set_text(a, "antialias", "1"));
        GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT);
        gip_args_free(a);
    }
}

/* gip_load_params.reduce (cv2's IMREAD_REDUCED_*): JPEG at ceil(w / n) x ceil(h / n) by
 * libjpeg's scaling, PNG resized to (w / n) x (h / n); other values refused. */
static void reduced_loads(void)
{
    gip_image img;
    gt_alloc(&img, 61, 37, 3, GIP_U8, 0);
    gt_fill_random(&img, 7, 0, 0);
    static const gip_format fmts[] = {GIP_FORMAT_JPEG, GIP_FORMAT_PNG};
    for (int f = 0; f < 2; f++) {
        gip_save_params sp = {0};
        sp.format = fmts[f];
        void *buf = NULL;
        size_t n = 0;
        if (!GT_OK(gip_image_encode(&img, &sp, &buf, &n)))
            continue;
        for (int32_t r = 1; r <= 8; r *= 2) {
            gip_load_params lp = {0};
            lp.mode = GIP_LOAD_COLOR;
            lp.reduce = r;
            gip_image out;
            if (GT_OK(gip_image_decode(buf, n, &lp, &out))) {
                const int64_t w = f == 0 ? (61 + r - 1) / r : 61 / r;
                const int64_t h = f == 0 ? (37 + r - 1) / r : 37 / r;
                GT_CHECK(out.width == w && out.height == h,
                         "%s reduce %d: %lldx%lld, expected %lldx%lld", f == 0 ? "jpeg" : "png",
                         (int)r, (long long)out.width, (long long)out.height, (long long)w,
                         (long long)h);
                gip_image_free(NULL, &out);
            }
        }
        gip_load_params lp = {0};
        lp.reduce = 3;
        gip_image out;
        GT_STATUS(gip_image_decode(buf, n, &lp, &out), GIP_ERR_INVALID_ARGUMENT);
        gip_free(buf);
    }
    gt_free(&img);
}

/* gip_op_load_reduce(): the largest of 8, 4, 2 whose JPEG decode still holds the thumbnail,
 * with the EXIF orientation's turn; 1 for other formats, depths, operations and when off. */
static void load_reduce_factors(void)
{
    static const struct {
        const char *box;
        int64_t w, h;
        int32_t orientation, ignore, shrink_only, want;
    } cases[] = {
        {"200", 2048, 1536, 1, 0, 0, 8},     /* 256x192 holds 200x150 */
        {"256", 2048, 1536, 1, 0, 0, 8},     /* exactly: 256x192 */
        {"257", 2048, 1536, 1, 0, 0, 4},     /* 256 < 257 */
        {"600", 2048, 1536, 1, 0, 0, 2},     /* 1024x768; 512 < 600 */
        {"1025", 2048, 1536, 1, 0, 0, 1},    /* 1024 < 1025 */
        {"250x500", 2048, 1536, 6, 0, 0, 4}, /* upright 1536x2048 fits as 250x333: 192 < 250 */
        {"250x500", 2048, 1536, 6, 1, 0, 8}, /* as stored, 250x188: 256x192 holds it */
        {"250x500", 2048, 1536, 3, 0, 0, 8}, /* a half turn keeps the sides */
        {"4000", 2048, 1536, 1, 0, 0, 1},    /* enlarged */
        {"4000", 2048, 1536, 1, 0, 1, 1},    /* kept (shrink_only) */
        {"1", 1, 1, 1, 0, 0, 8},             /* 1x1 stays 1x1 at any scale */
        {"100", 65500, 3, 1, 0, 0, 8},       /* 100x1: 8188x1 holds it */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gip_args *a = thumb_args(cases[i].box, NULL, cases[i].shrink_only);
        if (!a)
            return;
        gip_image_info info = {.format = GIP_FORMAT_JPEG,
                               .width = cases[i].w,
                               .height = cases[i].h,
                               .channels = 3,
                               .bit_depth = 8,
                               .orientation = cases[i].orientation};
        int32_t n = gip_op_load_reduce(a, &info, cases[i].ignore);
        GT_CHECK(n == cases[i].want, "box %s, %lldx%lld, orientation %d%s: reduce %d, expected %d",
                 cases[i].box, (long long)cases[i].w, (long long)cases[i].h,
                 (int)cases[i].orientation, cases[i].ignore ? " ignored" : "", (int)n,
                 (int)cases[i].want);
        if (i == 0) {
            info.format = GIP_FORMAT_PNG;
            GT_CHECK(gip_op_load_reduce(a, &info, 0) == 1, "a PNG is not shrunk on load");
            info.format = GIP_FORMAT_JPEG;
            info.bit_depth = 16;
            GT_CHECK(gip_op_load_reduce(a, &info, 0) == 1, "a 12/16-bit JPEG is not shrunk");
            info.bit_depth = 8;
            GT_CHECK(gip_op_load_reduce(NULL, &info, 0) == 1 && gip_op_load_reduce(a, NULL, 0) == 1,
                     "NULLs give 1");
            GT_OK(gip_args_set_int(a, "shrink_on_load", 0));
            GT_CHECK(gip_op_load_reduce(a, &info, 0) == 1, "shrink_on_load=0 gives 1");
        }
        gip_args_free(a);
    }
    gip_args *g = NULL;
    gip_image_info info = {
        .format = GIP_FORMAT_JPEG, .width = 4096, .height = 4096, .bit_depth = 8};
    if (GT_OK(gip_args_create(gip_op_find("gaussian"), &g)))
        GT_CHECK(gip_op_load_reduce(g, &info, 0) == 1, "gaussian declares no shrink-on-load");
    gip_args_free(g);
    gip_args *t = NULL; /* the required size unset: the arguments do not build */
    if (GT_OK(gip_args_create(gip_op_find("thumbnail"), &t)))
        GT_CHECK(gip_op_load_reduce(t, &info, 0) == 1, "unbuildable arguments give 1");
    gip_args_free(t);
}

/* The image in `path` (PNG) equals `want`. */
static void same_file(const char *path, const gip_image *want, const char *what)
{
    gip_image got;
    gip_load_params lp = {.mode = GIP_LOAD_COLOR};
    if (GT_OK(gip_image_load(path, &lp, &got))) {
        gt_compare(&got, want, 0, 0, what);
        gip_image_free(NULL, &got);
    }
}

/* A JPEG run through 'thumbnail' first, by gip_pipeline_run_file(), its bounded form and the
 * batch engine, is decoded at the reduction gip_op_load_reduce() gives and equals the step on
 * that reduced decode; load.reduce 1 (or shrink_on_load=0) decodes whole. The reduced load also
 * lets a bounded run hold an image the whole decode would not fit, and a streamed chain reads a
 * reduced JPEG by rows exactly as the whole load. */
static void shrink_on_load(gip_context *ctx)
{
    char dir[] = "/tmp/gip_thumb_XXXXXX";
    if (!GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
        return;
    char jpg[64], jpg2[64], out[64], outdir[64];
    snprintf(jpg, sizeof jpg, "%s/in.jpg", dir);
    snprintf(jpg2, sizeof jpg2, "%s/in2.jpg", dir);
    snprintf(out, sizeof out, "%s/out.png", dir);
    snprintf(outdir, sizeof outdir, "%s/o", dir);
    /* A smooth 1000x700 picture (a JPEG of noise would be mostly noise). */
    gip_image src;
    gt_alloc(&src, 1000, 700, 3, GIP_U8, 0);
    for (int64_t y = 0; y < 700; y++)
        for (int64_t x = 0; x < 1000; x++)
            for (int c = 0; c < 3; c++)
                ((uint8_t *)src.data)[y * src.stride + x * 3 + c] =
                    (uint8_t)((x * (c + 1) / 5 + y / (c + 2) + (x * y) / 997) & 255);
    gip_context_desc cd = {.backend = GIP_BACKEND_CPU}, pd = {0};
    pd.backend = gip_context_backend(ctx);
    pd.device = pd.backend == GIP_BACKEND_CUDA ? gip_context_device(ctx) : 0;
    gip_context *cpu = NULL;
    gip_pipeline *p = NULL, *g = NULL;
    gip_args *a = thumb_args("100", NULL, 0);
    if (!a || !GT_OK(gip_image_save(jpg, &src, NULL)) || !GT_OK(gip_context_create(&cd, &cpu)) ||
        !GT_OK(gip_pipeline_create(&pd, &p)) ||
        !GT_OK(gip_pipeline_parse(p, "thumbnail 100", NULL)))
        goto out;
    gip_image_info info;
    GT_OK(gip_image_probe(jpg, &info));
    GT_CHECK(gip_op_load_reduce(a, &info, 0) == 8, "1000x700 into 100: reduce %d, expected 8",
             (int)gip_op_load_reduce(a, &info, 0));
    /* What shrink-on-load must give (the step on the 1/8 decode, 125x88) and the whole
     * decode's. */
    gip_image exp8 = {0}, exp1 = {0};
    for (int32_t r = 1; r <= 8; r += 7) {
        gip_load_params lp = {.mode = GIP_LOAD_COLOR, .reduce = r};
        gip_image dec;
        gip_shape in, o;
        gip_image *e = r == 8 ? &exp8 : &exp1;
        if (!GT_OK(gip_image_load(jpg, &lp, &dec)))
            goto out_exp;
        in = (gip_shape){dec.width, dec.height, 3, GIP_U8};
        if (GT_OK(gip_op_output_shape(a, &in, &o)))
            gt_alloc(e, o.width, o.height, 3, GIP_U8, 0);
        GT_OK(gip_op_apply(cpu, a, &dec, e));
        gip_image_free(NULL, &dec);
    }
    GT_CHECK(exp8.width == 100 && exp8.height == 70 && exp1.width == 100 && exp1.height == 70,
             "thumbnail sizes %lldx%lld and %lldx%lld, expected 100x70", (long long)exp8.width,
             (long long)exp8.height, (long long)exp1.width, (long long)exp1.height);
    bool differ = false; /* else the checks below could not tell the two loads apart */
    for (int64_t y = 0; exp8.data && exp1.data && y < exp8.height && !differ; y++)
        differ = memcmp((uint8_t *)exp8.data + y * exp8.stride,
                        (uint8_t *)exp1.data + y * exp1.stride, (size_t)exp8.width * 3) != 0;
    GT_CHECK(differ, "the 1/8 decode's thumbnail equals the whole decode's");
    if (GT_OK(gip_pipeline_run_file(p, jpg, out, NULL, NULL)))
        same_file(out, &exp8, "run_file shrinks on load");
    gip_load_params whole = {.mode = GIP_LOAD_COLOR, .reduce = 1};
    if (GT_OK(gip_pipeline_run_file(p, jpg, out, &whole, NULL)))
        same_file(out, &exp1, "run_file with reduce 1 decodes whole");
    /* 2 MB holds the 125x88 decode, not the 1000x700 one (2.1 MB). */
    int32_t streamed = -1;
    if (GT_OK(gip_pipeline_run_file_bounded(p, jpg, out, NULL, NULL, 2 << 20, &streamed)))
        same_file(out, &exp8, "bounded run shrinks on load");
    GT_CHECK(gip_pipeline_run_file_bounded(p, jpg, out, &whole, NULL, 2 << 20, NULL) != GIP_OK,
             "the whole decode does not fit 2 MB");
    gip_clear_error();
    /* shrink_on_load=0 in the step itself. */
    if (GT_OK(gip_pipeline_create(&pd, &g)) &&
        GT_OK(gip_pipeline_parse(g, "thumbnail 100 shrink_on_load=0", NULL)) &&
        GT_OK(gip_pipeline_run_file(g, jpg, out, NULL, NULL)))
        same_file(out, &exp1, "shrink_on_load=0 decodes whole");
    gip_pipeline_free(g);
    g = NULL;
    /* A chain streamed by rows from a reduced JPEG equals the same chain on the whole load:
     * 2400x1600 at 1/2 is 1200x800, 23 MB in the whole run, streamed within 14 MB. */
    gip_image big;
    gt_alloc(&big, 2400, 1600, 3, GIP_U8, 0);
    for (int64_t y = 0; y < 1600; y++)
        for (int64_t x = 0; x < 2400 * 3; x++)
            ((uint8_t *)big.data)[y * big.stride + x] =
                (uint8_t)((x / 7 + y / 3 + x * y / 4099) & 255);
    gip_load_params r2 = {.mode = GIP_LOAD_COLOR, .reduce = 2};
    gip_image dec2, blur = {0};
    if (GT_OK(gip_image_save(jpg2, &big, NULL)) && GT_OK(gip_pipeline_create(&pd, &g)) &&
        GT_OK(gip_pipeline_parse(g, "box 5", NULL)) && GT_OK(gip_image_load(jpg2, &r2, &dec2))) {
        gt_alloc(&blur, dec2.width, dec2.height, 3, GIP_U8, 0);
        gip_pipeline *cg = NULL;
        if (GT_OK(gip_pipeline_create(&cd, &cg)) && GT_OK(gip_pipeline_parse(cg, "box 5", NULL)) &&
            GT_OK(gip_pipeline_run(cg, &dec2, &blur))) {
            streamed = -1;
            if (GT_OK(
                    gip_pipeline_run_file_bounded(g, jpg2, out, &r2, NULL, 14 << 20, &streamed))) {
                GT_CHECK(streamed == 1, "a 1200x800 chain in 14 MB is streamed (got %d)",
                         (int)streamed);
                same_file(out, &blur, "a reduced JPEG streamed by rows");
            }
        }
        gip_pipeline_free(cg);
        gip_image_free(NULL, &dec2);
        gt_free(&blur);
    }
    gt_free(&big);
    /* The batch engine: each file at its own reduction (the second is 400x280: reduce 4). */
    char o1[96], o2[96];
    snprintf(o1, sizeof o1, "%s/in.png", outdir);
    snprintf(o2, sizeof o2, "%s/in2.png", outdir);
    gip_image small = src;
    small.width = 400;
    small.height = 280;
    gip_image exp2 = {0};
    gip_load_params lr = {.mode = GIP_LOAD_COLOR, .reduce = 4};
    gip_image d2;
    if (GT_CHECK(mkdir(outdir, 0700) == 0, "mkdir") && GT_OK(gip_image_save(jpg2, &small, NULL)) &&
        GT_OK(gip_image_load(jpg2, &lr, &d2))) {
        gt_alloc(&exp2, 100, 70, 3, GIP_U8, 0);
        GT_OK(gip_op_apply(cpu, a, &d2, &exp2));
        gip_image_free(NULL, &d2);
        const char *inputs[2] = {jpg, jpg2};
        gip_batch_options o = {0};
        o.format = GIP_FORMAT_PNG;
        gip_batch_codec codec;
        if (pd.backend == GIP_BACKEND_CUDA && gip_nvjpeg_codec(&codec) == GIP_OK)
            o.codec = &codec; /* reduced loads decode on the CPU */
        gip_clear_error();
        gip_batch_stats st;
        if (GT_OK(gip_batch_run(&p, 1, inputs, 2, outdir, &o, &st))) {
            GT_CHECK(st.written == 2, "batch wrote %lld", (long long)st.written);
            same_file(o1, &exp8, "batch: 1000x700 at 1/8");
            same_file(o2, &exp2, "batch: 400x280 at 1/4");
        }
        unlink(o1);
        unlink(o2);
        rmdir(outdir);
    }
    gt_free(&exp2);
    rmdir(outdir);
out_exp:
    gt_free(&exp8);
    gt_free(&exp1);
out:
    gip_pipeline_free(g);
    gip_pipeline_free(p);
    gip_args_free(a);
    gip_context_destroy(cpu);
    gt_free(&src);
    unlink(jpg);
    unlink(jpg2);
    unlink(out);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "thumbnail", body);
}
