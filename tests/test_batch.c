/* SPDX-License-Identifier: MIT */
/* Tests of the batch engine: the bounded queue, a folder with corrupt, truncated, unreadable,
 * missing and too large files (reported and skipped, the others written and equal to a direct
 * run), overwrite, output name collisions, the in-flight bound, both CPU modes, bad options. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gip/pipeline.h"
#include "pipeline/pipeline_internal.h"
#include "testing.h"

static void ring(void)
{
    gip__ring r;
    int v[5];
    if (!GT_OK(gip__ring_init(&r, 3)))
        return;
    GT_CHECK(gip__ring_pop(&r) == NULL, "pop of an empty queue gave an item");
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 3; i++)
            GT_CHECK(gip__ring_push(&r, &v[i]), "push %d refused below capacity", i);
        GT_CHECK(!gip__ring_push(&r, &v[3]), "push beyond capacity 3 accepted");
        GT_CHECK(r.count == 3, "depth %d, limit 3", (int)r.count);
        for (int i = 0; i < 3; i++)
            GT_CHECK(gip__ring_pop(&r) == &v[i], "FIFO order broken at %d", i);
        GT_CHECK(gip__ring_pop(&r) == NULL, "queue not empty after draining");
        GT_CHECK(gip__ring_push(&r, &v[4]) && gip__ring_pop(&r) == &v[4], "wrap-around");
    }
    gip__ring_fini(&r);
    GT_STATUS(gip__ring_init(&r, 0), GIP_ERR_INVALID_ARGUMENT);
}

typedef struct seen {
    int files, failed, skipped;
    char failures[16][256];
} seen;

static void on_file(void *user, const char *in, const char *out, gip_status st, const char *msg,
                    int32_t skipped)
{
    seen *s = user;
    s->files++;
    s->skipped += skipped != 0;
    if (st && !skipped) {
        if (s->failed < 16)
            snprintf(s->failures[s->failed], 256, "%s: %s", in, msg);
        s->failed++;
    }
}

/* A batch codec on the CPU decoders: counts its calls and the largest batch it was given. */
typedef struct batch_probe {
    int calls, largest, prepared, decoders, encoders;
    int active, most; /* calls running now, most at once */
    gip_status fail_prepare;
    int warmed, warm_decoders, warm_encoders, warm_batch; /* warm: calls and their arguments */
    size_t warm_size;
    gip_format warm_format;
} batch_probe;

static gip_status probe_decode_batch(void *user, gip_context *ctx, int32_t n,
                                     const void *const *data, const size_t *sizes,
                                     const gip_load_params *params, gip_image *outs,
                                     gip_status *statuses)
{
    (void)ctx;
    batch_probe *b = user;
    /* the engine's workers call it concurrently */
    __atomic_fetch_add(&b->calls, 1, __ATOMIC_RELAXED);
    int l = __atomic_load_n(&b->largest, __ATOMIC_RELAXED);
    while (n > l && !__atomic_compare_exchange_n(&b->largest, &l, n, false, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED))
        ;
    int a = __atomic_add_fetch(&b->active, 1, __ATOMIC_RELAXED);
    int m = __atomic_load_n(&b->most, __ATOMIC_RELAXED);
    while (a > m &&
           !__atomic_compare_exchange_n(&b->most, &m, a, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    for (int32_t i = 0; i < n; i++)
        statuses[i] = gip_image_decode(data[i], sizes[i], params, &outs[i]);
    usleep(2000); /* long enough for the other worker's call to overlap when it may */
    __atomic_sub_fetch(&b->active, 1, __ATOMIC_RELAXED);
    return GIP_OK;
}

static gip_status probe_prepare(void *user, gip_context *ctx, const gip_load_params *params,
                                int32_t batch_size, int32_t decoders, int32_t encoders)
{
    (void)ctx, (void)params;
    batch_probe *b = user;
    b->prepared++;
    /* A codec outside the library cannot set gip's message: the engine says what failed. */
    b->decoders = decoders;
    b->encoders = encoders;
    return batch_size >= 1 ? b->fail_prepare : GIP_ERR_INTERNAL;
}

/* Warm-up hook: records its arguments; fails (the engine must go on regardless). */
static gip_status probe_warm(void *user, gip_context *ctx, const void *data, size_t size,
                             const gip_load_params *params, const gip_save_params *save,
                             int32_t batch_size, int32_t decoders, int32_t encoders)
{
    (void)ctx;
    batch_probe *b = user;
    b->warmed++;
    b->warm_size = data && params && params->mode == GIP_LOAD_COLOR ? size : 0;
    b->warm_format = save ? save->format : GIP_FORMAT_AUTO;
    b->warm_batch = batch_size;
    b->warm_decoders = decoders;
    b->warm_encoders = encoders;
    return GIP_ERR_DEVICE;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("  could not remove %s\n", dir);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static void folder(gip_context *ctx)
{
    char dir[] = "/tmp/gip_batch_XXXXXX";
    if (!GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
        return;
    char in[300], out[300], path[400];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(in, 0777);
    mkdir(out, 0777);
    gip_context_desc d = {0};
    d.backend = gip_context_backend(ctx);
    d.device = d.backend == GIP_BACKEND_CUDA ? gip_context_device(ctx) : 0;
    gip_pipeline *p = NULL;
    if (!GT_OK(gip_pipeline_create(&d, &p)) ||
        !GT_OK(gip_pipeline_parse(p, "gaussian 5 | invert", NULL)))
        goto out;
    /* 12 good images of varied sizes, PNG (lossless, so outputs compare exactly). */
    enum { NGOOD = 12 };
    gip_image imgs[NGOOD];
    for (int i = 0; i < NGOOD; i++) {
        gt_alloc(&imgs[i], 20 + 7 * (i % 4), 10 + 3 * i, 3, GIP_U8, 0);
        gt_fill_random(&imgs[i], 100 + (uint64_t)i, 0, 0);
        snprintf(path, sizeof path, "%s/good%02d.png", in, i);
        GT_OK(gip_image_save(path, &imgs[i], NULL));
    }
    /* Bad ones: random bytes, a truncated file, an unreadable file, a too large image. */
    char junk[300];
    for (int i = 0; i < 300; i++)
        junk[i] = (char)(i * 37 + 11);
    snprintf(path, sizeof path, "%s/corrupt.jpg", in);
    write_bytes(path, junk, sizeof junk);
    void *enc = NULL;
    size_t enc_n = 0;
    gip_save_params sp = {GIP_FORMAT_PNG, 0, 0, 0, 0, 0};
    if (GT_OK(gip_image_encode(&imgs[NGOOD - 1], &sp, &enc, &enc_n))) {
        snprintf(path, sizeof path, "%s/truncated.png", in);
        write_bytes(path, enc, enc_n / 2);
    }
    gip_free(enc);
    int root = geteuid() == 0;
    snprintf(path, sizeof path, "%s/unreadable.png", in);
    GT_OK(gip_image_save(path, &imgs[0], NULL));
    chmod(path, 0);
    gip_image big;
    gt_alloc(&big, 3000, 2, 1, GIP_U8, 0);
    gt_fill_random(&big, 5, 0, 0);
    snprintf(path, sizeof path, "%s/toolarge.png", in);
    GT_OK(gip_image_save(path, &big, NULL));
    gt_free(&big);

    char **inputs = NULL;
    int64_t n = 0;
    if (!GT_OK(gip_batch_list_inputs(in, &inputs, &n)))
        goto out_imgs;
    GT_CHECK(n == NGOOD + 4, "listed %lld files, expected %d", (long long)n, NGOOD + 4);
    /* A missing file in the list too. */
    char **all = realloc(inputs, (size_t)(n + 1) * sizeof *all);
    if (!all)
        goto out_list;
    inputs = all;
    snprintf(path, sizeof path, "%s/missing.png", in);
    inputs[n++] = strdup(path);

    int expect_failed =
        4 + (root ? 0 : 1); /* corrupt, truncated, too large, missing, (unreadable) */
    /* Modes: inline CPU, staged, staged with a batch codec (batches of 5 files), the same with one
     * decode call at a time (GIP_BATCH_DECODE_CALLS=1: the semaphore and the read gate that CUDA
     * runs use by default). */
    for (int mode = 0; mode < 4; mode++) {
        if (mode == 3) {
            gt_setenv("GIP_BATCH_DECODE_CALLS", "1");
            gt_setenv("GIP_BATCH_WARM", "0");
        } else {
            gt_setenv("GIP_BATCH_DECODE_CALLS", NULL);
            gt_setenv("GIP_BATCH_WARM", NULL);
        }
        seen s = {0};
        gip_batch_options o = {0};
        o.jobs = 2;
        o.load.max_dim = 2048;
        o.cpu_mode = mode == 0 ? GIP_BATCH_CPU_INLINE : GIP_BATCH_CPU_STAGED;
        batch_probe bp = {0};
        gip_batch_codec codec = {0};
        codec.decode_batch = probe_decode_batch;
        codec.prepare = probe_prepare;
        codec.warm = probe_warm;
        codec.batch_size = 5;
        codec.user = &bp;
        if (mode >= 2)
            o.codec = &codec;
        o.format = GIP_FORMAT_PNG;
        o.on_file = on_file;
        o.user = &s;
        gip_batch_stats st;
        if (!GT_OK(gip_batch_run(&p, 1, (const char *const *)inputs, n, out, &o, &st)))
            continue;
        GT_CHECK(st.written == NGOOD + (root ? 1 : 0), "mode %d: %lld written, expected %d", mode,
                 (long long)st.written, NGOOD + root);
        GT_CHECK(st.failed == expect_failed, "mode %d: %lld failed, expected %d", mode,
                 (long long)st.failed, expect_failed);
        GT_CHECK(s.failed == expect_failed && s.files == n, "mode %d: callback saw %d/%d", mode,
                 s.failed, s.files);
        for (int i = 0; i < s.failed && i < 16; i++)
            GT_CHECK(strlen(s.failures[i]) > 20, "failure without a reason: %s", s.failures[i]);
        GT_CHECK(count_files(out) == NGOOD + root, "mode %d: %d files in the output folder", mode,
                 count_files(out));
        GT_CHECK(st.peak_in_flight <= st.in_flight_bound, "peak %lld above bound %lld",
                 (long long)st.peak_in_flight, (long long)st.in_flight_bound);
        if (mode >= 2) {
            /* 17 files (one missing, one unreadable unless root) in batches of at most 5. */
            int readable = (int)n - 1 - (root ? 0 : 1);
            GT_CHECK(bp.prepared == 1, "prepare called %d times for one pipeline", bp.prepared);
            /* 2 workers, one pipeline whose queue holds 10: at most 2 decodes and 2 encodes. */
            GT_CHECK(bp.decoders == 2 && bp.encoders == 2, "prepared for %d decoders, %d encoders",
                     bp.decoders, bp.encoders);
            /* The warm-up: once, on the first input's bytes, with the batch's format and sizes
             * (its failure ignored: every count above holds); none with GIP_BATCH_WARM=0. */
            struct stat sb;
            size_t first = stat(inputs[0], &sb) == 0 ? (size_t)sb.st_size : 0;
            if (mode == 2)
                GT_CHECK(bp.warmed == 1 && bp.warm_size == first && first > 0 &&
                             bp.warm_format == GIP_FORMAT_PNG && bp.warm_batch == 5 &&
                             bp.warm_decoders == 2 && bp.warm_encoders == 2,
                         "warm: %d calls, %zu bytes of %zu, format %d, batch %d, %d/%d states",
                         bp.warmed, bp.warm_size, first, (int)bp.warm_format, bp.warm_batch,
                         bp.warm_decoders, bp.warm_encoders);
            else
                GT_CHECK(bp.warmed == 0, "GIP_BATCH_WARM=0: warm called %d times", bp.warmed);
            GT_CHECK(bp.largest > 1 && bp.largest <= 5, "largest batch %d, expected 2..5",
                     bp.largest);
            GT_CHECK(bp.calls >= (readable + 4) / 5 && bp.calls < readable,
                     "%d batch calls for %d readable files", bp.calls, readable);
            GT_CHECK(st.decode_calls == bp.calls, "stats count %lld decode calls, codec saw %d",
                     (long long)st.decode_calls, bp.calls);
            printf("  mode %d: %d batch decode calls, at most %d at once\n", mode, bp.calls,
                   bp.most);
            if (mode == 3)
                GT_CHECK(bp.most == 1, "%d decode calls ran at once, allowed 1", bp.most);
        } else {
            GT_CHECK(st.decode_calls == n - 1 - (root ? 0 : 1),
                     "mode %d: %lld decode calls for %lld files", mode, (long long)st.decode_calls,
                     (long long)n);
        }
        /* Outputs equal a direct run. */
        for (int i = 0; i < NGOOD; i++) {
            gip_image got = {0}, exp;
            gt_alloc(&exp, imgs[i].width, imgs[i].height, 3, GIP_U8, 0);
            snprintf(path, sizeof path, "%s/good%02d.png", out, i);
            if (GT_OK(gip_pipeline_run(p, &imgs[i], &exp)) &&
                GT_OK(gip_image_load(path, NULL, &got)))
                gt_compare(&got, &exp, 0, 0, path);
            gip_image_free(NULL, &got);
            gt_free(&exp);
        }
        /* Again without overwrite: everything that exists is skipped, nothing rewritten. */
        struct stat before, after;
        snprintf(path, sizeof path, "%s/good00.png", out);
        stat(path, &before);
        seen s2 = {0};
        o.user = &s2;
        if (GT_OK(gip_batch_run(&p, 1, (const char *const *)inputs, n, out, &o, &st))) {
            GT_CHECK(st.skipped == NGOOD + root && st.written == 0,
                     "rerun: %lld skipped %lld written", (long long)st.skipped,
                     (long long)st.written);
            stat(path, &after);
            GT_CHECK(before.st_ino == after.st_ino, "an existing output was replaced");
        }
        o.overwrite = 1;
        if (GT_OK(gip_batch_run(&p, 1, (const char *const *)inputs, n, out, &o, &st))) {
            GT_CHECK(st.written == NGOOD + root && st.skipped == 0,
                     "overwrite: %lld written %lld skipped", (long long)st.written,
                     (long long)st.skipped);
            stat(path, &after);
            GT_CHECK(before.st_ino != after.st_ino, "overwrite did not replace the output");
        }
        GT_CHECK(count_files(out) == NGOOD + root, "after overwrite: %d files (temporaries?)",
                 count_files(out));
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -f %s/*", out);
        if (system(cmd) != 0)
            printf("  cannot clean %s\n", out);
    }
    gt_setenv("GIP_BATCH_DECODE_CALLS", NULL);
    gt_setenv("GIP_BATCH_WARM", NULL);
out_list:
    gip_batch_free_list(inputs, n);
out_imgs:
    for (int i = 0; i < NGOOD; i++)
        gt_free(&imgs[i]);
out:
    gip_pipeline_free(p);
    rm_rf(dir);
}

/* Many inputs through small queues: the in-flight peak stays within the bound; collisions. */
static void bounded(gip_context *ctx)
{
    char dir[] = "/tmp/gip_batchb_XXXXXX";
    if (!GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
        return;
    char path[400], out[300];
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(out, 0777);
    gip_image img;
    gt_alloc(&img, 64, 48, 3, GIP_U8, 0);
    gt_fill_random(&img, 1, 0, 0);
    enum { N = 40 };
    char *inputs[N + 1];
    for (int i = 0; i < N; i++) {
        snprintf(path, sizeof path, "%s/%03d.png", dir, i);
        gip_image_save(path, &img, NULL);
        inputs[i] = strdup(path);
    }
    /* The same name in another folder: collides with 000.png's output. */
    snprintf(path, sizeof path, "%s/sub", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/sub/000.png", dir);
    gip_image_save(path, &img, NULL);
    inputs[N] = strdup(path);
    gip_context_desc d = {0};
    d.backend = gip_context_backend(ctx);
    d.device = d.backend == GIP_BACKEND_CUDA ? gip_context_device(ctx) : 0;
    gip_pipeline *p[2] = {NULL, NULL};
    if (GT_OK(gip_pipeline_create(&d, &p[0])) && GT_OK(gip_pipeline_parse(p[0], "box 3", NULL)) &&
        GT_OK(gip_pipeline_clone(p[0], NULL, &p[1]))) {
        /* Modes: inline, staged on two pipelines, and staged with a batch codec (batches of 4:
         * each compute queue then holds 8). */
        for (int mode = 0; mode < 3; mode++) {
            gip_batch_options o = {0};
            o.jobs = 3;
            o.queue_depth = 1;
            o.overwrite = 1;
            o.cpu_mode = mode ? GIP_BATCH_CPU_STAGED : GIP_BATCH_CPU_INLINE;
            batch_probe bp = {0};
            gip_batch_codec codec = {0};
            codec.decode_batch = probe_decode_batch;
            codec.batch_size = 4;
            codec.user = &bp;
            if (mode == 2)
                o.codec = &codec;
            gip_batch_stats st;
            int np = mode ? 2 : 1;
            if (!GT_OK(gip_batch_run(p, np, (const char *const *)inputs, N + 1, out, &o, &st)))
                continue;
            GT_CHECK(st.written == N && st.failed == 1, "mode %d: %lld written %lld failed", mode,
                     (long long)st.written, (long long)st.failed);
            int64_t bound = d.backend == GIP_BACKEND_CPU && mode == 0 ? 3
                            : mode == 2                               ? 3 + 8 * np + 1 + np
                                                                      : 3 + 1 * (np + 1) + np;
            GT_CHECK(st.in_flight_bound == bound, "mode %d: bound %lld, expected %lld", mode,
                     (long long)st.in_flight_bound, (long long)bound);
            GT_CHECK(st.peak_in_flight >= 1 && st.peak_in_flight <= bound,
                     "mode %d: peak %lld outside 1..%lld", mode, (long long)st.peak_in_flight,
                     (long long)bound);
            GT_CHECK(count_files(out) == N, "mode %d: %d outputs", mode, count_files(out));
        }
    }
    /* Bad arguments. */
    gip_batch_options bad = {0};
    gip_batch_stats st;
    GT_STATUS(gip_batch_run(NULL, 1, (const char *const *)inputs, 1, out, NULL, &st),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_batch_run(p, 0, (const char *const *)inputs, 1, out, NULL, &st),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 1, NULL, NULL, &st),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 1, "/nonexistent/dir", NULL, &st),
              GIP_ERR_NOT_FOUND);
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 1, inputs[0], NULL, &st),
              GIP_ERR_IO);
    bad.jobs = -1;
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 1, out, &bad, &st),
              GIP_ERR_INVALID_ARGUMENT);
    bad.jobs = 0;
    bad.quality = 101;
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 1, out, &bad, &st),
              GIP_ERR_INVALID_ARGUMENT);
    bad.quality = 0;
    batch_probe bp = {0};
    gip_batch_codec codec = {0};
    codec.decode_batch = probe_decode_batch;
    codec.prepare = probe_prepare;
    codec.user = &bp;
    codec.batch_size = 65;
    bad.codec = &codec;
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 1, out, &bad, &st),
              GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(bp.prepared == 0, "prepare called for a refused batch_size");
    /* A codec whose preparation fails: its status, and nothing written. */
    codec.batch_size = 0;
    bp.fail_prepare = GIP_ERR_DEVICE;
    bad.cpu_mode = GIP_BATCH_CPU_STAGED;
    int before = count_files(out);
    GT_STATUS(gip_batch_run(p, 1, (const char *const *)inputs, 2, out, &bad, &st), GIP_ERR_DEVICE);
    /* Two files: never more states than files. */
    GT_CHECK(bp.decoders >= 1 && bp.decoders <= 2 && bp.encoders >= 1 && bp.encoders <= 2,
             "two files: prepared for %d decoders, %d encoders", bp.decoders, bp.encoders);
    GT_CHECK(bp.prepared == 1 && count_files(out) == before,
             "failed prepare: called %d times, %d files written", bp.prepared,
             count_files(out) - before);
    char **l = NULL;
    int64_t ln = 0;
    GT_STATUS(gip_batch_list_inputs("/nonexistent/nothing", &l, &ln), GIP_ERR_NOT_FOUND);
    snprintf(path, sizeof path, "%s/*.png", dir);
    if (GT_OK(gip_batch_list_inputs(path, &l, &ln)))
        GT_CHECK(ln == N, "glob listed %lld, expected %d", (long long)ln, N);
    gip_batch_free_list(l, ln);
    snprintf(path, sizeof path, "%s/*.nomatch", dir);
    if (GT_OK(gip_batch_list_inputs(path, &l, &ln)))
        GT_CHECK(ln == 0, "a pattern matching nothing listed %lld", (long long)ln);
    gip_batch_free_list(l, ln);
    GT_STATUS(gip_batch_list_inputs(NULL, &l, &ln), GIP_ERR_INVALID_ARGUMENT);
    for (int i = 0; i <= N; i++)
        free(inputs[i]);
    gip_pipeline_free(p[0]);
    gip_pipeline_free(p[1]);
    gt_free(&img);
    rm_rf(dir);
}

static void body(gip_context *ctx)
{
    ring();
    folder(ctx);
    bounded(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "batch", body);
}
