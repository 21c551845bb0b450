/* SPDX-License-Identifier: MIT */
/* gip-nvjpeg-bench: decode and encode throughput of nvJPEG's backends on a folder of JPEGs (the
 * hardware decoder in batches of 1 to 64 and from several host threads, the default backend's
 * batched API, the GPU encoder from several threads), the measurements behind the batch engine's
 * choice of decode path and batch size. Prints one JSON line per case. */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dirent.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_FILES 1024

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int check_nv(nvjpegStatus_t s, const char *what)
{
    if (s != NVJPEG_STATUS_SUCCESS)
        fprintf(stderr, "nvjpeg_bench: %s failed: nvjpeg status %d\n", what, (int)s);
    return s != NVJPEG_STATUS_SUCCESS;
}

static int check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        fprintf(stderr, "nvjpeg_bench: %s failed: %s\n", what, cudaGetErrorString(e));
    return e != cudaSuccess;
}

typedef struct files {
    int n;
    const unsigned char *data[MAX_FILES];
    size_t size[MAX_FILES];
    int w[MAX_FILES], h[MAX_FILES];
    nvjpegImage_t out[MAX_FILES]; /* interleaved RGB on the device, one buffer per file */
    double mpix;
} files;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load(files *f, const char *dir, nvjpegHandle_t h)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    char *names[MAX_FILES];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_FILES) {
        const char *dot = strrchr(e->d_name, '.');
        if (dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg")))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    f->n = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        free(names[i]);
        FILE *fp = fopen(path, "rb");
        struct stat sb;
        if (!fp || fstat(fileno(fp), &sb) != 0) {
            perror(path);
            return 1;
        }
        unsigned char *buf = malloc((size_t)sb.st_size);
        if (!buf || fread(buf, 1, (size_t)sb.st_size, fp) != (size_t)sb.st_size) {
            fprintf(stderr, "nvjpeg_bench: cannot read %s\n", path);
            return 1;
        }
        fclose(fp);
        int nc, ws[NVJPEG_MAX_COMPONENT], hs[NVJPEG_MAX_COMPONENT];
        nvjpegChromaSubsampling_t sub;
        if (check_nv(nvjpegGetImageInfo(h, buf, (size_t)sb.st_size, &nc, &sub, ws, hs),
                     "nvjpegGetImageInfo"))
            return 1;
        int k = f->n++;
        f->data[k] = buf;
        f->size[k] = (size_t)sb.st_size;
        f->w[k] = ws[0];
        f->h[k] = hs[0];
        f->mpix += ws[0] * (double)hs[0] * 1e-6;
        memset(&f->out[k], 0, sizeof f->out[k]);
        f->out[k].pitch[0] = (size_t)ws[0] * 3;
        if (check_cuda(cudaMalloc((void **)&f->out[k].channel[0], (size_t)ws[0] * 3 * hs[0]),
                       "cudaMalloc"))
            return 1;
    }
    return f->n == 0;
}

static void row(const char *name, const char *backend, int batch, int threads, const files *f,
                double seconds)
{
    printf(
        "{\"name\": \"%s\", \"backend\": \"%s\", \"batch\": %d, \"threads\": %d, \"images\": %d, "
        "\"images_per_s\": %.1f, \"mpix_per_s\": %.0f}\n",
        name, backend, batch, threads, f->n, f->n / seconds, f->mpix / seconds);
    fflush(stdout);
}

/* Decodes files [first, first + count) in batches of `batch` on one state. */
static int decode_range(nvjpegHandle_t h, nvjpegJpegState_t st, cudaStream_t s, files *f, int first,
                        int count, int batch)
{
    for (int i = first; i < first + count; i += batch) {
        int b = first + count - i < batch ? first + count - i : batch;
        if (b != batch && check_nv(nvjpegDecodeBatchedInitialize(h, st, b, 1, NVJPEG_OUTPUT_RGBI),
                                   "nvjpegDecodeBatchedInitialize (tail)"))
            return 1;
        if (check_nv(nvjpegDecodeBatched(h, st, &f->data[i], &f->size[i], &f->out[i], s),
                     "nvjpegDecodeBatched"))
            return 1;
        if (b != batch &&
            check_nv(nvjpegDecodeBatchedInitialize(h, st, batch, 1, NVJPEG_OUTPUT_RGBI),
                     "nvjpegDecodeBatchedInitialize"))
            return 1;
    }
    return check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

/* One host thread's share: files [first, first + count), in batches of `batch` (decode). */
typedef struct worker {
    nvjpegHandle_t h;
    files *f;
    int first, count, batch, rc;
    pthread_barrier_t *go;
} worker;

/* Runs fn on `threads` threads over equal shares of the files; the clock starts once every thread
 * has set up (fn waits on the barrier). Returns non-zero on failure; *seconds the elapsed time. */
static int run_threads(nvjpegHandle_t h, files *f, int threads, int batch, void *(*fn)(void *),
                       double *seconds)
{
    pthread_t t[64];
    worker w[64];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){h, f, i * (f->n / threads), f->n / threads, batch, 0, &go};
        pthread_create(&t[i], NULL, fn, &w[i]);
    }
    pthread_barrier_wait(&go);
    double t0 = now();
    int rc = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        rc |= w[i].rc;
    }
    *seconds = now() - t0;
    pthread_barrier_destroy(&go);
    return rc;
}

static void *decode_worker(void *arg)
{
    worker *w = arg;
    nvjpegJpegState_t st = NULL;
    cudaStream_t s = NULL;
    w->rc = check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream") ||
            check_nv(nvjpegJpegStateCreate(w->h, &st), "nvjpegJpegStateCreate") ||
            check_nv(nvjpegDecodeBatchedInitialize(w->h, st, w->batch, 1, NVJPEG_OUTPUT_RGBI),
                     "nvjpegDecodeBatchedInitialize") ||
            decode_range(w->h, st, s, w->f, w->first, w->batch, w->batch); /* warm */
    pthread_barrier_wait(w->go);
    if (!w->rc)
        w->rc = decode_range(w->h, st, s, w->f, w->first, w->count, w->batch);
    if (st)
        nvjpegJpegStateDestroy(st);
    if (s)
        cudaStreamDestroy(s);
    return NULL;
}

/* `threads` host threads, each with its own state, decode an equal share in batches. */
static int threaded(nvjpegHandle_t h, const char *backend, files *f, int threads, int batch)
{
    if (f->n % (threads * batch))
        return 0;
    double dt = 0;
    int rc = run_threads(h, f, threads, batch, decode_worker, &dt);
    if (!rc)
        row("decode", backend, batch, threads, f, dt);
    return rc;
}

static int batches(nvjpegHandle_t h, const char *backend, files *f)
{
    static const int sizes[] = {1, 2, 4, 8, 16, 32, 64};
    nvjpegJpegState_t st;
    cudaStream_t s;
    if (check_nv(nvjpegJpegStateCreate(h, &st), "nvjpegJpegStateCreate") ||
        check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream"))
        return 1;
    int rc = 0;
    for (size_t k = 0; !rc && k < sizeof sizes / sizeof sizes[0]; k++) {
        int b = sizes[k];
        if (b > f->n)
            break;
        if ((rc = check_nv(nvjpegDecodeBatchedInitialize(h, st, b, 1, NVJPEG_OUTPUT_RGBI),
                           "nvjpegDecodeBatchedInitialize")))
            break;
        if ((rc = decode_range(h, st, s, f, 0, b, b))) /* warm */
            break;
        double best = 1e30;
        for (int r = 0; !rc && r < 2; r++) {
            double t0 = now();
            rc = decode_range(h, st, s, f, 0, f->n, b);
            double dt = now() - t0;
            best = dt < best ? dt : best;
        }
        if (!rc)
            row("decode", backend, b, 1, f, best);
    }
    nvjpegJpegStateDestroy(st);
    cudaStreamDestroy(s);
    return rc;
}

static int encode_one(nvjpegHandle_t h, nvjpegEncoderState_t es, nvjpegEncoderParams_t ep,
                      cudaStream_t s, files *f, int i, unsigned char **buf, size_t *cap)
{
    size_t len = 0;
    if (check_nv(nvjpegEncodeImage(h, es, ep, &f->out[i], NVJPEG_INPUT_RGBI, f->w[i], f->h[i], s),
                 "nvjpegEncodeImage") ||
        check_nv(nvjpegEncodeRetrieveBitstream(h, es, NULL, &len, s), "retrieve (size)"))
        return 1;
    if (len > *cap) {
        free(*buf);
        *cap = len;
        if (!(*buf = malloc(len)))
            return 1;
    }
    return check_nv(nvjpegEncodeRetrieveBitstream(h, es, *buf, &len, s), "retrieve");
}

static void *encode_worker(void *arg)
{
    worker *w = arg;
    nvjpegEncoderState_t es = NULL;
    nvjpegEncoderParams_t ep = NULL;
    cudaStream_t s = NULL;
    unsigned char *buf = NULL;
    size_t cap = 0;
    w->rc = check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream") ||
            check_nv(nvjpegEncoderStateCreate(w->h, &es, s), "nvjpegEncoderStateCreate") ||
            check_nv(nvjpegEncoderParamsCreate(w->h, &ep, s), "nvjpegEncoderParamsCreate") ||
            check_nv(nvjpegEncoderParamsSetQuality(ep, 90, s), "quality") ||
            check_nv(nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_420, s), "sampling") ||
            encode_one(w->h, es, ep, s, w->f, w->first, &buf, &cap); /* warm */
    pthread_barrier_wait(w->go);
    for (int i = w->first; !w->rc && i < w->first + w->count; i++)
        w->rc = encode_one(w->h, es, ep, s, w->f, i, &buf, &cap);
    free(buf);
    if (ep)
        nvjpegEncoderParamsDestroy(ep);
    if (es)
        nvjpegEncoderStateDestroy(es);
    if (s)
        cudaStreamDestroy(s);
    return NULL;
}

static int encode_threads(nvjpegHandle_t h, files *f, int threads)
{
    if (f->n % threads)
        return 0;
    double dt = 0;
    int rc = run_threads(h, f, threads, 1, encode_worker, &dt);
    if (!rc)
        row("encode_q90_420", "gpu", 1, threads, f, dt);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gip-nvjpeg-bench FOLDER (of JPEG files, at most %d)\n", MAX_FILES);
        return 2;
    }
    nvjpegHandle_t def, hw = NULL;
    if (check_cuda(cudaFree(NULL), "CUDA initialisation") ||
        check_nv(nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &def), "nvjpegCreateEx"))
        return 1;
    static files f;
    if (load(&f, argv[1], def)) {
        fprintf(stderr, "nvjpeg_bench: no JPEG files read from %s\n", argv[1]);
        return 1;
    }
    int rc = 0;
    if (nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, 0, &hw) == NVJPEG_STATUS_SUCCESS) {
        unsigned engines = 0, cores = 0;
        nvjpegGetHardwareDecoderInfo(hw, &engines, &cores);
        printf("{\"name\": \"hardware_decoder\", \"engines\": %u, \"cores_per_engine\": %u}\n",
               engines, cores);
        rc |= batches(hw, "hardware", &f);
        for (int t = 2; t <= 8; t *= 2)
            rc |= threaded(hw, "hardware", &f, t, 8);
        rc |= threaded(hw, "hardware", &f, 4, 16);
    } else {
        printf("{\"name\": \"hardware_decoder\", \"engines\": 0}\n");
    }
    rc |= batches(def, "default", &f);
    for (int t = 2; t <= 8; t *= 2)
        rc |= threaded(def, "default", &f, t, 8);
    for (int t = 1; t <= 8; t *= 2)
        rc |= encode_threads(def, &f, t);
    if (hw)
        nvjpegDestroy(hw);
    nvjpegDestroy(def);
    return rc;
}
