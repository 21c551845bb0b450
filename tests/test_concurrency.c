/* SPDX-License-Identifier: MIT */
/* Concurrency: several contexts on several threads run filters, colour conversion, map
 * expressions (process-wide expression cache), spectra (process-wide FFT plan cache) and image
 * encode/decode at once, and one gip_net serves several threads (style.h allows that); every
 * result must equal the single-threaded run's, byte for byte. Run under TSan by scripts/tsan.sh.
 * core.h does not say a context may be used by several threads at once, so none is shared here. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

#define NTHREADS 4
#define ROUNDS 3
#define NJOBS 8 /* operations per round, see run_job() */

/* What one job made: one image (host, tight) per job. */
typedef struct results {
    gip_image out[NJOBS];
} results;

typedef struct worker {
    int index;
    gip_backend backend;
    int32_t omp_threads;
    const gip_net *net; /* shared network, or NULL to skip style transfer */
    const gip_image *src, *src2;
    results res[ROUNDS];
    gip_image style_out; /* style transfer with the shared network */
    gip_status failed;   /* first failure */
    char msg[256];
} worker;

static gip_status fail(worker *w, gip_status st, const char *what)
{
    if (st && !w->failed) {
        w->failed = st;
        snprintf(w->msg, sizeof w->msg, "%s: %s", what, gip_last_error());
    }
    return st;
}

/* Allocates a tight host image for a result. */
static gip_status out_alloc(gip_image *img, int64_t w, int64_t h, int32_t c, gip_dtype dt)
{
    return gip_image_alloc(NULL, img, w, h, c, dt, GIP_MEM_HOST, GIP_ALLOC_TIGHT);
}

/* One job; the same (job, src) always gives the same output. `out` is allocated here. */
static gip_status run_job(worker *w, gip_context *ctx, int job, gip_image *out)
{
    const gip_image *s = w->src;
    int64_t W = s->width, H = s->height;
    gip_status st = GIP_OK;
    switch (job) {
    case 0: {
        gip_gaussian_params p = {0};
        p.ksize_w = p.ksize_h = 7;
        if (!(st = out_alloc(out, W, H, 3, GIP_U8)))
            st = gip_gaussian_blur(ctx, s, out, &p);
        return fail(w, st, "gaussian");
    }
    case 1: {
        gip_sobel_params p = {0};
        p.dx = 1;
        if (!(st = out_alloc(out, W, H, 3, GIP_S16)))
            st = gip_sobel(ctx, s, out, &p);
        return fail(w, st, "sobel");
    }
    case 2: {
        gip_box_params p = {0};
        p.ksize_w = 5;
        p.ksize_h = 3;
        p.border.mode = GIP_BORDER_WRAP;
        if (!(st = out_alloc(out, W, H, 3, GIP_U8)))
            st = gip_box_filter(ctx, s, out, &p);
        return fail(w, st, "box");
    }
    case 3: {
        gip_image gray = {0};
        if (!(st = out_alloc(&gray, W, H, 1, GIP_U8)) &&
            !(st = gip_cvt_color(ctx, s, &gray, GIP_COLOR_RGB2GRAY)) &&
            !(st = out_alloc(out, W, H, 1, GIP_U8)))
            st = gip_invert(ctx, &gray, out, NULL);
        gip_image_free(NULL, &gray);
        return fail(w, st, "cvt_color + invert");
    }
    case 4: {
        /* A different expression per round and thread as well as a common one: the cache is
         * filled and read concurrently. */
        static const char *const exprs[] = {"clamp(a * 0.5f + b * 0.5f + k, 0, 255)",
                                            "a > b ? a - b : (b - a) * k",
                                            "min(a, b) + max(a, b) / 2 + x % 3"};
        gip_image ins[2] = {*w->src, *w->src2};
        gip_scalar k = {"k", 3.0f};
        const char *e = exprs[(w->index + job) % 3];
        if (!(st = out_alloc(out, W, H, 3, GIP_U8)))
            st = gip_map(ctx, e, ins, 2, &k, 1, out);
        return fail(w, st, "map");
    }
    case 5: {
        gip_stencil_params p = {0};
        p.border.mode = GIP_BORDER_REPLICATE;
        if (!(st = out_alloc(out, W, H, 3, GIP_U8)))
            st = gip_stencil(ctx, "abs(in(1,0) - in(-1,0)) + abs(in(0,1) - in(0,-1))", s, out, &p);
        return fail(w, st, "stencil");
    }
    case 6: {
        if (!(st = out_alloc(out, W, H, 1, GIP_U8)))
            st = gip_spectrum(ctx, s, out, NULL);
        return fail(w, st, "spectrum");
    }
    case 7: {
        /* PNG and JPEG encode then decode; the output is the decoded JPEG. */
        gip_save_params sp = {0};
        void *png = NULL, *jpg = NULL;
        size_t npng = 0, njpg = 0;
        gip_image back = {0};
        sp.format = GIP_FORMAT_PNG;
        if (!(st = gip_image_encode(s, &sp, &png, &npng)) &&
            !(st = gip_image_decode(png, npng, NULL, &back))) {
            if (back.width != W || memcmp(back.data, s->data, (size_t)(W * 3)) != 0)
                st = GIP_ERR_INTERNAL;
            gip_image_free(NULL, &back);
        }
        sp.format = GIP_FORMAT_JPEG;
        if (!st && !(st = gip_image_encode(s, &sp, &jpg, &njpg)))
            st = gip_image_decode(jpg, njpg, NULL, out);
        gip_free(png);
        gip_free(jpg);
        return fail(w, st, "encode/decode");
    }
    default:
        return GIP_ERR_INTERNAL;
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    gip_context_desc desc = {0};
    desc.backend = w->backend;
    desc.threads = w->omp_threads;
    gip_context *ctx = NULL;
    if (fail(w, gip_context_create(&desc, &ctx), "context"))
        return NULL;
    for (int r = 0; r < ROUNDS && !w->failed; r++)
        for (int j = 0; j < NJOBS && !w->failed; j++) {
            /* Threads start at different jobs so that different operations overlap. */
            int job = (j + w->index) % NJOBS;
            run_job(w, ctx, job, &w->res[r].out[job]);
        }
    if (w->net && !w->failed) {
        gip_image dst = {0};
        gip_style_params sp = {0};
        sp.net = w->net;
        sp.iterations = 1;
        gip_image c16 = {0};
        /* 16x16 is the smallest image style transfer takes. */
        if (!fail(w, gip_image_roi(w->src, 0, 0, 16, 16, &c16), "roi") &&
            !fail(w, out_alloc(&dst, 16, 16, 3, GIP_U8), "alloc"))
            fail(w, gip_style_transfer(ctx, &c16, w->src2, &dst, &sp, NULL, NULL), "style");
        w->style_out = dst;
    }
    gip_context_destroy(ctx);
    return NULL;
}

static void free_results(worker *w)
{
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < NJOBS; j++)
            gip_image_free(NULL, &w->res[r].out[j]);
    gip_image_free(NULL, &w->style_out);
}

static void body(gip_context *ctx)
{
    (void)ctx;
    const char *env = getenv("GIP_CONCURRENCY_OMP_THREADS");
    int32_t omp = env ? (int32_t)atoi(env) : 2;
    const char *style_env = getenv("GIP_CONCURRENCY_STYLE");
    bool with_style = !style_env || style_env[0] != '0';

    gip_image src = {0}, src2 = {0};
    gt_alloc(&src, 61, 43, 3, GIP_U8, 0);
    gt_alloc(&src2, 61, 43, 3, GIP_U8, 0);
    gt_fill_random(&src, 11, 0, 0);
    gt_fill_random(&src2, 12, 0, 0);
    gip_net *net = NULL;
    if (with_style && !GT_OK(gip_net_random(7, &net)))
        return;

    /* The single-threaded run: one worker, on this thread. */
    worker ref = {0};
    ref.index = 0;
    ref.backend = GIP_BACKEND_CPU;
    ref.omp_threads = 1;
    ref.net = net;
    ref.src = &src;
    ref.src2 = &src2;
    worker_main(&ref);
    GT_CHECK(ref.failed == GIP_OK, "single-threaded run failed: %s", ref.msg);

    worker ws[NTHREADS];
    pthread_t tids[NTHREADS];
    memset(ws, 0, sizeof ws);
    for (int i = 0; i < NTHREADS; i++) {
        ws[i].index = i;
        ws[i].backend = GIP_BACKEND_CPU;
        ws[i].omp_threads = omp;
        ws[i].net = net;
        ws[i].src = &src;
        ws[i].src2 = &src2;
    }
    for (int i = 0; i < NTHREADS; i++)
        GT_CHECK(pthread_create(&tids[i], NULL, worker_main, &ws[i]) == 0, "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tids[i], NULL);

    /* Every thread, round and job must match the single-threaded result exactly; the map job's
     * expression depends on the thread index, so it is compared with the reference worker's
     * result for the same expression only when they agree (index % 3 == 0). */
    int compared = 0;
    for (int i = 0; i < NTHREADS; i++) {
        if (!GT_CHECK(ws[i].failed == GIP_OK, "thread %d failed: %s", i, ws[i].msg))
            continue;
        for (int r = 0; r < ROUNDS; r++)
            for (int j = 0; j < NJOBS; j++) {
                if (j == 4 && i % 3 != 0)
                    continue;
                const gip_image *got = &ws[i].res[r].out[j], *exp = &ref.res[r].out[j];
                if (!GT_CHECK(got->data && exp->data, "thread %d round %d job %d: no output", i, r,
                              j))
                    continue;
                if (!gt_compare(got, exp, 0, 0, "concurrent"))
                    GT_CHECK(false,
                             "thread %d round %d job %d differs from the single-threaded run", i, r,
                             j);
                compared++;
            }
        if (net) {
            const gip_image *got = &ws[i].style_out, *exp = &ref.style_out;
            if (GT_CHECK(got->data && exp->data, "thread %d: no style output", i) &&
                !gt_compare(got, exp, 0, 0, "style"))
                GT_CHECK(false, "thread %d: style transfer with the shared network differs", i);
            compared++;
        }
    }
    printf("%d concurrent results equal to the single-threaded run (%d threads x %d OpenMP "
           "threads%s)\n",
           compared, NTHREADS, omp, net ? ", shared gip_net" : "");
    for (int i = 0; i < NTHREADS; i++)
        free_results(&ws[i]);
    free_results(&ref);
    gip_net_free(net);
    gt_free(&src2);
    gt_free(&src);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        /* Device concurrency (one stream per context) is what compute-sanitizer's racecheck
         * covers in the GPU run; this test is about host work and the process-wide caches. */
        printf("SKIP: concurrency: host contexts only; concurrency_cpu runs it\n");
        return GT_SKIP;
    }
    return gt_main(argc, argv, "concurrency", body);
}
