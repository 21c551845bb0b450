/* SPDX-License-Identifier: MIT */
/* gip-bench: times every gip operation on the CPU and the GPU for chosen sizes and formats, next to
 * NPP in the same run (when built with it), against the copy bandwidth measured in the same run,
 * plus the run-time compilation of user kernels (first compile, cached load); prints a table and
 * writes JSON (see bench/README.md for the schema). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ops.h"

#ifdef GIP_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

#ifndef GIP_BENCH_COMPILER
#define GIP_BENCH_COMPILER "unknown"
#endif
#ifndef GIP_BENCH_BUILD_TYPE
#define GIP_BENCH_BUILD_TYPE "unknown"
#endif

#define MAX_SIZES 16
#define MAX_PEERS 8

/* ---- formats ------------------------------------------------------------------------------ */

typedef struct format {
    const char *name;
    gip_dtype dtype;
    int32_t channels;
} format;

static const format formats[] = {
    {"u8c1", GIP_U8, 1},   {"u8c3", GIP_U8, 3},   {"u8c4", GIP_U8, 4},
    {"u16c1", GIP_U16, 1}, {"f32c1", GIP_F32, 1}, {"f32c3", GIP_F32, 3},
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

/* Non-zero when `name` is an item of the comma-separated `list`. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* ---- options ------------------------------------------------------------------------------ */

typedef struct options {
    int64_t w[MAX_SIZES], h[MAX_SIZES];
    int nsizes;
    const char *formats; /* NULL: each operation's defaults */
    const char *ops;     /* NULL: all */
    int want_cpu, want_cuda, cuda_required;
    int threads;
    int npp;
    double copy_mb;
    const char *json;
    bench_cfg cfg;
    int smoke;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gip-bench [options]\n"
            "  --sizes WxH,...     image sizes (default 1920x1080,3840x2160,7680x4320)\n"
            "  --formats LIST      formats, of u8c1,u8c3,u8c4,u16c1,f32c1,f32c3 (default: each\n"
            "                      operation's own list, mostly u8c1,u8c3,f32c1)\n"
            "  --ops LIST          operations (default all; --list shows them)\n"
            "  --backend B         cpu, cuda or all (default all: cuda when a device is usable)\n"
            "  --threads N         CPU threads (default: OMP_NUM_THREADS, else all cores)\n"
            "  --iters N           exactly N timed runs per row (default: adaptive)\n"
            "  --time S            time budget per row for the adaptive count (default 0.3)\n"
            "  --warmup N          untimed runs first (default 2; GPU: at least every buffer set)\n"
            "  --copy-mb N         buffer size of the copy-bandwidth measure (default 256)\n"
            "  --no-npp            leave out the NPP peers\n"
            "  --json FILE         write every figure as JSON\n"
            "  --smoke             tiny sizes, one run each: checks that every row runs\n"
            "  --list              list the operations and whether this libgip has them\n");
}

static int parse_sizes(const char *s, options *o)
{
    o->nsizes = 0;
    while (*s) {
        char *end;
        long long w = strtoll(s, &end, 10);
        if (end == s || *end != 'x' || o->nsizes == MAX_SIZES)
            return -1;
        s = end + 1;
        long long h = strtoll(s, &end, 10);
        if (end == s || w < 1 || h < 1 || (*end && *end != ','))
            return -1;
        o->w[o->nsizes] = w;
        o->h[o->nsizes] = h;
        o->nsizes++;
        s = *end ? end + 1 : end;
    }
    return o->nsizes > 0 ? 0 : -1;
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    parse_sizes("1920x1080,3840x2160,7680x4320", o);
    o->want_cpu = o->want_cuda = 1;
    o->npp = 1;
    o->copy_mb = 256;
    o->cfg.target_s = 0.3;
    o->cfg.warmup = 2;
    o->cfg.min_runs = 10;
    o->cfg.max_runs = 5000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                               \
    do {                                                                                           \
        if (!v) {                                                                                  \
            fprintf(stderr, "gip-bench: %s needs a value\n", a);                                   \
            return -1;                                                                             \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(a, "--sizes")) {
            NEED_VALUE();
            if (parse_sizes(v, o)) {
                fprintf(stderr, "gip-bench: bad --sizes '%s' (want WxH,WxH...)\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--formats")) {
            NEED_VALUE();
            o->formats = v;
        } else if (!strcmp(a, "--ops")) {
            NEED_VALUE();
            o->ops = v;
        } else if (!strcmp(a, "--backend")) {
            NEED_VALUE();
            o->want_cpu = !strcmp(v, "cpu") || !strcmp(v, "all");
            o->want_cuda = !strcmp(v, "cuda") || !strcmp(v, "all");
            o->cuda_required = !strcmp(v, "cuda");
            if (!o->want_cpu && !o->want_cuda) {
                fprintf(stderr, "gip-bench: bad --backend '%s' (cpu, cuda or all)\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            o->threads = atoi(v);
        } else if (!strcmp(a, "--iters")) {
            NEED_VALUE();
            o->cfg.iters = atoi(v);
        } else if (!strcmp(a, "--time")) {
            NEED_VALUE();
            o->cfg.target_s = atof(v);
        } else if (!strcmp(a, "--warmup")) {
            NEED_VALUE();
            o->cfg.warmup = atoi(v);
        } else if (!strcmp(a, "--copy-mb")) {
            NEED_VALUE();
            o->copy_mb = atof(v);
        } else if (!strcmp(a, "--json")) {
            NEED_VALUE();
            o->json = v;
        } else if (!strcmp(a, "--no-npp")) {
            o->npp = 0;
        } else if (!strcmp(a, "--smoke")) {
            o->smoke = 1;
        } else if (!strcmp(a, "--list")) {
            return 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "gip-bench: unknown option '%s'\n", a);
            usage(stderr);
            return -1;
        }
#undef NEED_VALUE
    }
    if (o->smoke) {
        parse_sizes("64x48,33x17", o);
        o->cfg.iters = 1;
        o->cfg.warmup = 0;
        o->copy_mb = 4;
    }
    if (o->threads < 0 || o->cfg.iters < 0 || o->cfg.warmup < 0 || o->cfg.target_s <= 0 ||
        o->copy_mb <= 0) {
        fprintf(stderr, "gip-bench: --threads, --iters, --warmup must be >= 0, --time and "
                        "--copy-mb > 0\n");
        return -1;
    }
    return 0;
}

/* ---- results ------------------------------------------------------------------------------ */

/* Set by SIGTERM/SIGINT (a time limit): finish the current row, then print and write what was
 * measured, marked as interrupted. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    stop_requested = 1;
}

typedef struct row {
    const char *op;
    int64_t w, h;
    const char *format;
    const char *backend; /* "cpu" or "cuda" */
    char impl[48];       /* "gip" or the peer's name */
    char status[16];     /* "ok", "unavailable", "unsupported", "error" */
    char reason[256];
    char note[160];
    bench_stats st;
    double bytes; /* input bytes + output bytes of one run */
    int sets;     /* buffer sets rotated */
} row;

static row *rows;
static int nrows, cap_rows;

static row *row_add(const char *op, int64_t w, int64_t h, const char *fmt, const char *backend,
                    const char *impl)
{
    if (nrows == cap_rows) {
        int cap = cap_rows ? 2 * cap_rows : 256;
        row *r = realloc(rows, (size_t)cap * sizeof *r);
        if (!r) {
            fprintf(stderr, "gip-bench: out of memory for results\n");
            exit(2);
        }
        rows = r;
        cap_rows = cap;
    }
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->op = op;
    r->w = w;
    r->h = h;
    r->format = fmt;
    r->backend = backend;
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    snprintf(r->status, sizeof r->status, "ok");
    return r;
}

/* Copy bandwidth measured in this run, per backend, in GB/s (0: not measured). */
static double copy_gbs_cpu, copy_gbs_cuda;
static char copy_note_cpu[128];
#ifdef GIP_BENCH_CUDA
static char copy_note_cuda[128];
#endif

static double row_gbs(const row *r)
{
    return r->st.ms > 0 ? r->bytes / (r->st.ms * 1e6) : 0;
}

/* The copy-bandwidth measures (not rows of the table). */
static row copy_row_cpu, copy_row_cuda;

static double row_copy_fraction(const row *r)
{
    double bw = !strcmp(r->backend, "cuda") ? copy_gbs_cuda : copy_gbs_cpu;
    return bw > 0 ? row_gbs(r) / bw : 0;
}

/* ---- buffers ------------------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Fills a host image with random pixels: full range for integers, [0, 255] for f32. */
static void fill_random(gip_image *img)
{
    for (int64_t y = 0; y < img->height; y++) {
        uint8_t *p = (uint8_t *)img->data + y * img->stride;
        int64_t n = img->width * img->channels;
        for (int64_t i = 0; i < n; i++) {
            switch (img->dtype) {
            case GIP_U8:
                p[i] = (uint8_t)rng_next();
                break;
            case GIP_U16:
                ((uint16_t *)p)[i] = (uint16_t)rng_next();
                break;
            case GIP_F32:
                ((float *)p)[i] = (float)(rng_next() % 25600) * 0.01f;
                break;
            default:
                break;
            }
        }
    }
}

/* Destination size of an operation for a w x h source. */
static void dst_size(const bench_op *op, int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = op->dst == BENCH_DST_C32_HALF ? w / 2 + 1 : w;
    *dh = h;
    if (op->dst_size)
        op->dst_size(w, h, dw, dh);
}

static gip_dtype dst_dtype(const bench_op *op, gip_dtype src)
{
    switch (op->dst) {
    case BENCH_DST_F32:
        return GIP_F32;
    case BENCH_DST_S16:
        return GIP_S16;
    case BENCH_DST_U8:
        return GIP_U8;
    case BENCH_DST_C32_HALF:
        return GIP_C32;
    default:
        return src;
    }
}

static void sets_free(gip_context *ctx, bench_set *sets, int n)
{
    for (int i = 0; i < n; i++) {
        gip_image_free(ctx, &sets[i].src);
        gip_image_free(ctx, &sets[i].dst);
        for (int k = 0; k < BENCH_AUX; k++)
            gip_image_free(ctx, &sets[i].aux[k]);
    }
    free(sets);
}

/* Allocates `n` buffer sets in `mem` (sources w x h, destinations dw x dh), fills every source
 * with the same random image and runs the operation's prepare step on each set. */
static bench_set *sets_alloc(gip_context *ctx, gip_memory mem, int n, int64_t w, int64_t h,
                             const format *f, int64_t dw, int64_t dh, gip_dtype ddt, int32_t dch,
                             gip_status (*prepare)(gip_context *, bench_set *), char *err,
                             size_t err_size)
{
    bench_set *sets = calloc((size_t)n, sizeof *sets);
    gip_image host = {0};
    gip_status s;
    if (!sets) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    if ((s = gip_image_alloc(NULL, &host, w, h, f->channels, f->dtype, GIP_MEM_HOST, 0))) {
        snprintf(err, err_size, "host image: %s", gip_last_error());
        free(sets);
        return NULL;
    }
    fill_random(&host);
    for (int i = 0; i < n; i++) {
        if ((s = gip_image_alloc(ctx, &sets[i].src, w, h, f->channels, f->dtype, mem, 0)) ||
            (s = gip_image_alloc(ctx, &sets[i].dst, dw, dh, dch, ddt, mem, 0)) ||
            (s = gip_copy(ctx, &host, &sets[i].src)) ||
            (s = gip_image_fill_bytes(ctx, &sets[i].dst, 0)) ||
            (prepare && (s = prepare(ctx, &sets[i])))) {
            snprintf(err, err_size, "%s: %s", gip_status_name(s), gip_last_error());
            gip_image_free(NULL, &host);
            sets_free(ctx, sets, n);
            return NULL;
        }
    }
    gip_image_free(NULL, &host);
    if ((s = gip_context_sync(ctx))) {
        snprintf(err, err_size, "%s: %s", gip_status_name(s), gip_last_error());
        sets_free(ctx, sets, n);
        return NULL;
    }
    return sets;
}

/* ---- timing callbacks --------------------------------------------------------------------- */

typedef struct gip_call {
    gip_context *ctx;
    const bench_op *op;
    bench_set *sets;
    gip_status last;
} gip_call;

static int call_gip(void *arg, int set, char *err, size_t err_size)
{
    gip_call *c = arg;
    bench_set *b = &c->sets[set];
    c->last = c->op->run_set ? c->op->run_set(c->ctx, b) : c->op->run(c->ctx, &b->src, &b->dst);
    if (c->last == GIP_OK)
        return 0;
    snprintf(err, err_size, "%s: %s", gip_status_name(c->last), gip_context_error(c->ctx));
    return -1;
}

/* CPU copy bandwidth: the buffer copied by all threads at once, each its own slice. */
typedef struct memcpy_call {
    uint8_t *src, *dst;
    size_t bytes;
    int threads;
} memcpy_call;

static int call_memcpy(void *arg, int set, char *err, size_t err_size)
{
    memcpy_call *c = arg;
    size_t slice = (c->bytes + (size_t)c->threads - 1) / (size_t)c->threads;
#pragma omp parallel for num_threads(c->threads) schedule(static)
    for (int t = 0; t < c->threads; t++) {
        size_t b = (size_t)t * slice;
        if (b < c->bytes)
            memcpy(c->dst + b, c->src + b, b + slice > c->bytes ? c->bytes - b : slice);
    }
    return 0;
}

static void measure_copy_cpu(const options *o, int threads, row *r)
{
    memcpy_call c = {0};
    char err[256];
    snprintf(r->status, sizeof r->status, "ok");
    c.bytes = (size_t)(o->copy_mb * 1048576.0);
    c.threads = threads;
    c.src = malloc(c.bytes);
    c.dst = malloc(c.bytes);
    r->bytes = 2.0 * (double)c.bytes;
    if (!c.src || !c.dst) {
        snprintf(r->status, sizeof r->status, "error");
        snprintf(r->reason, sizeof r->reason, "out of memory for %zu bytes", c.bytes);
    } else {
        memset(c.src, 1, c.bytes);
        memset(c.dst, 0, c.bytes);
        bench_cfg cfg = o->cfg;
        if (bench_time_cpu(&cfg, call_memcpy, &c, 1, &r->st, err, sizeof err)) {
            snprintf(r->status, sizeof r->status, "error");
            snprintf(r->reason, sizeof r->reason, "%s", err);
        } else {
            copy_gbs_cpu = row_gbs(r);
        }
    }
    snprintf(r->note, sizeof r->note, "memcpy on %d threads, %.0f MiB, read + written", threads,
             o->copy_mb);
    snprintf(copy_note_cpu, sizeof copy_note_cpu, "%s", r->note);
    free(c.src);
    free(c.dst);
}

#ifdef GIP_BENCH_CUDA
typedef struct d2d_call {
    void *src, *dst;
    size_t bytes;
    cudaStream_t stream;
} d2d_call;

static int call_d2d(void *arg, int set, char *err, size_t err_size)
{
    d2d_call *c = arg;
    cudaError_t e = cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, c->stream);
    if (e == cudaSuccess)
        return 0;
    snprintf(err, err_size, "cudaMemcpyAsync: %s", cudaGetErrorString(e));
    return -1;
}

static void measure_copy_cuda(const options *o, gip_context *ctx, row *r)
{
    d2d_call c = {0};
    char err[256];
    snprintf(r->status, sizeof r->status, "ok");
    c.bytes = (size_t)(o->copy_mb * 1048576.0);
    c.stream = (cudaStream_t)gip_context_stream(ctx);
    r->bytes = 2.0 * (double)c.bytes;
    if (cudaMalloc(&c.src, c.bytes) != cudaSuccess || cudaMalloc(&c.dst, c.bytes) != cudaSuccess) {
        snprintf(r->status, sizeof r->status, "error");
        snprintf(r->reason, sizeof r->reason, "cudaMalloc of %zu bytes failed", c.bytes);
        cudaGetLastError();
    } else if (cudaMemset(c.src, 1, c.bytes) != cudaSuccess ||
               bench_time_gpu(&o->cfg, c.stream, call_d2d, &c, 1, &r->st, err, sizeof err)) {
        snprintf(r->status, sizeof r->status, "error");
        snprintf(r->reason, sizeof r->reason, "%s", err);
    } else {
        copy_gbs_cuda = row_gbs(r);
    }
    snprintf(r->note, sizeof r->note, "cudaMemcpyAsync device to device, %.0f MiB, read + written",
             o->copy_mb);
    snprintf(copy_note_cuda, sizeof copy_note_cuda, "%s", r->note);
    cudaFree(c.src);
    cudaFree(c.dst);
}
#endif

/* ---- one row ------------------------------------------------------------------------------ */

static double image_bytes(int64_t w, int64_t h, int32_t ch, gip_dtype dt)
{
    return (double)w * (double)h * ch * (double)gip_dtype_size(dt);
}

/* Number of buffer sets to rotate on the GPU: together at least 4x the L2 cache, at least 2. */
static int gpu_sets(double set_bytes, double l2_bytes)
{
    double want = 4.0 * l2_bytes / set_bytes;
    int n = want > 64 ? 64 : (int)want + 1;
    return n < 2 ? 2 : n;
}

static void run_row(const options *o, gip_context *ctx, int on_cuda, double l2_bytes,
                    const bench_op *op, const format *f, int64_t w, int64_t h)
{
    const char *backend = on_cuda ? "cuda" : "cpu";
    gip_dtype ddt = dst_dtype(op, f->dtype);
    int32_t dch = op->dst_channels ? op->dst_channels : f->channels;
    int64_t dw, dh;
    dst_size(op, w, h, &dw, &dh);
    double bytes = image_bytes(w, h, f->channels, f->dtype) + image_bytes(dw, dh, dch, ddt);
    int nsets = on_cuda ? gpu_sets(bytes, l2_bytes) : 1;
    char err[512];

    int ri = nrows;
    row *r = row_add(op->name, w, h, f->name, backend, "gip");
    r->bytes = bytes;
    r->sets = nsets;
    int have = op->available();
    int want_npp = 0;
#ifdef GIP_BENCH_NPP
    want_npp = on_cuda && o->npp;
#endif
    if (!have) {
        snprintf(r->status, sizeof r->status, "unavailable");
        snprintf(r->reason, sizeof r->reason, "%s is not in this libgip", op->symbol);
        fprintf(stderr, "  %-13s %5lldx%-5lld %-5s %-4s gip: unavailable (%s)\n", op->name,
                (long long)w, (long long)h, f->name, backend, r->reason);
        if (!want_npp)
            return;
    }

    bench_set *sets = sets_alloc(ctx, on_cuda ? GIP_MEM_CUDA : GIP_MEM_HOST, nsets, w, h, f, dw, dh,
                                 ddt, dch, have ? op->prepare : NULL, err, sizeof err);
    if (!sets) {
        r = &rows[ri];
        snprintf(r->status, sizeof r->status, "error");
        snprintf(r->reason, sizeof r->reason, "allocation: %s", err);
        fprintf(stderr, "  %s %s %s: %s\n", op->name, f->name, backend, r->reason);
        return;
    }
    if (op->bytes) {
        bytes = op->bytes(&sets[0]);
        rows[ri].bytes = bytes;
    }
    if (have) {
        gip_call c = {ctx, op, sets, GIP_OK};
        bench_stats st;
        int rc;
#ifdef GIP_BENCH_CUDA
        if (on_cuda)
            rc = bench_time_gpu(&o->cfg, gip_context_stream(ctx), call_gip, &c, nsets, &st, err,
                                sizeof err);
        else
#endif
            rc = bench_time_cpu(&o->cfg, call_gip, &c, nsets, &st, err, sizeof err);
        if (rc == 0 && (c.last = gip_context_sync(ctx)) != GIP_OK) {
            snprintf(err, sizeof err, "%s: %s", gip_status_name(c.last), gip_context_error(ctx));
            rc = -1;
        }
        r = &rows[ri];
        if (rc) {
            gip_status g = gip_status_group(c.last);
            snprintf(r->status, sizeof r->status, "%s",
                     g == GIP_ERR_UNSUPPORTED ? "unsupported" : "error");
            snprintf(r->reason, sizeof r->reason, "%s", err);
        } else {
            r->st = st;
        }
        fprintf(stderr, "  %-13s %5lldx%-5lld %-5s %-4s gip: %s\n", op->name, (long long)w,
                (long long)h, f->name, backend, rc ? r->reason : "ok");
        if (gip_context_status(ctx) != GIP_OK) {
            fprintf(stderr, "gip-bench: the CUDA context is unusable after %s; stopping\n",
                    op->name);
            sets_free(ctx, sets, nsets);
            exit(3);
        }
    }
#ifdef GIP_BENCH_NPP
    if (want_npp) {
        bench_peer_result pr[MAX_PEERS];
        int np = bench_npp_run(&o->cfg, gip_context_stream(ctx), op->name, f->name, sets, nsets, pr,
                               MAX_PEERS);
        for (int i = 0; i < np; i++) {
            row *q = row_add(op->name, w, h, f->name, backend, pr[i].impl);
            q->bytes = bytes;
            q->sets = nsets;
            q->st = pr[i].st;
            snprintf(q->status, sizeof q->status, "%s", pr[i].status);
            snprintf(q->reason, sizeof q->reason, "%s", pr[i].reason);
            snprintf(q->note, sizeof q->note, "%s", pr[i].note);
            fprintf(stderr, "  %-13s %5lldx%-5lld %-5s %-4s %s: %s\n", op->name, (long long)w,
                    (long long)h, f->name, backend, pr[i].impl,
                    strcmp(pr[i].status, "ok") ? pr[i].reason : "ok");
        }
    }
#endif
    sets_free(ctx, sets, nsets);
}

/* ---- run-time compilation ----------------------------------------------------------------- */

/* User kernels are compiled at run time on the GPU (NVRTC) and cached on disk: the harness times,
 * once per run, the first use of the stencil_mean3 expression and of the seed's mean kernel as a
 * raw module with an empty cache (compilation), then again with the cache filled and the process's
 * loaded code dropped (cached load), in a fresh cache folder so that nothing from earlier runs
 * counts. Each figure includes one run of the kernel, given apart as run_ms. */
#pragma weak gip_stencil
#pragma weak gip_expr_cache_release
#pragma weak gip_kernel_cache_stats
#pragma weak gip_module_compile
#pragma weak gip_module_free
#pragma weak gip_module_get_kernel
#pragma weak gip_module_get_info
#pragma weak gip_kernel_launch

typedef struct compile_row {
    const char *op;   /* "stencil_mean3", "kernel_mean3" */
    const char *what; /* one line */
    char status[16];  /* "ok", "unavailable", "error" */
    char reason[256];
    char note[256];
    int64_t w, h;
    const char *format;
    double first_ms, cached_ms, run_ms;
} compile_row;

static compile_row compile_rows[2];
static int ncompile;

#ifdef GIP_BENCH_CUDA
/* Removes the files of a flat folder, then the folder. */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* One timed call of a compiled user kernel, completed (synchronised). */
typedef gip_status (*compile_call)(gip_context *ctx, bench_set *set, void *arg);

static double timed_call_ms(gip_context *ctx, compile_call fn, bench_set *set, void *arg,
                            gip_status *st)
{
    double t0 = bench_now_ms();
    *st = fn(ctx, set, arg);
    if (!*st)
        *st = gip_context_sync(ctx);
    return bench_now_ms() - t0;
}

/* The fastest of five runs once the code is loaded. */
static double steady_ms(gip_context *ctx, compile_call fn, bench_set *set, void *arg,
                        gip_status *st)
{
    double best = 0;
    for (int i = 0; i < 5 && !*st; i++) {
        double ms = timed_call_ms(ctx, fn, set, arg, st);
        if (i == 0 || ms < best)
            best = ms;
    }
    return best;
}

static gip_status call_stencil(gip_context *ctx, bench_set *set, void *arg)
{
    gip_stencil_params p = {0};
    return gip_stencil(ctx, bench_stencil_mean3_expr, &set->src, &set->dst, &p);
}

static gip_status call_kernel(gip_context *ctx, bench_set *set, void *arg)
{
    gip_kernel_arg args[2] = {gip_arg_image(&set->src), gip_arg_image(&set->dst)};
    return gip_kernel_launch(ctx, arg, NULL, args, 2);
}

/* Compiles (or loads from the cache) the mean kernel and times one run of it; *compile_ms is the
 * wall time of gip_module_compile, info receives what it did. */
static double module_once(gip_context *ctx, bench_set *set, double *compile_ms,
                          gip_module_info *info, gip_status *st)
{
    gip_module *m = NULL;
    gip_kernel *k = NULL;
    double t0 = bench_now_ms(), total = 0;
    *st = gip_module_compile(ctx, bench_mean3_cuda_source, "mean3.cu", NULL, &m);
    *compile_ms = bench_now_ms() - t0;
    if (!*st)
        *st = gip_module_get_kernel(m, "mean3", &k);
    if (!*st)
        *st = gip_module_get_info(m, info);
    if (!*st)
        total = *compile_ms + timed_call_ms(ctx, call_kernel, set, k, st);
    gip_context_sync(ctx);
    gip_module_free(m);
    return total;
}

static void measure_compile(const options *o, gip_context *ctx)
{
    static const format u8c3 = {"u8c3", GIP_U8, 3};
    int want_stencil = !o->ops || in_list(o->ops, "stencil_mean3");
    if (!want_stencil)
        return;
    compile_row *rs = &compile_rows[ncompile++], *rk = &compile_rows[ncompile++];
    memset(rs, 0, 2 * sizeof *rs);
    rs->op = "stencil_mean3";
    rs->what = "gip_stencil 3x3 mean expression: generated CUDA, NVRTC, disk cache";
    rk->op = "kernel_mean3";
    rk->what = "gip_module_compile of the seed's 3x3 mean kernel (raw CUDA source)";
    for (int i = 0; i < 2; i++) {
        rs[i].w = o->w[0];
        rs[i].h = o->h[0];
        rs[i].format = u8c3.name;
        snprintf(rs[i].status, sizeof rs[i].status, "ok");
    }
    if (!gip_stencil || !gip_expr_cache_release || !gip_kernel_cache_stats) {
        snprintf(rs->status, sizeof rs->status, "unavailable");
        snprintf(rs->reason, sizeof rs->reason, "gip_stencil is not in this libgip");
    }
    if (!gip_module_compile || !gip_module_get_kernel || !gip_module_get_info || !gip_module_free ||
        !gip_kernel_launch) {
        snprintf(rk->status, sizeof rk->status, "unavailable");
        snprintf(rk->reason, sizeof rk->reason, "gip_module_compile is not in this libgip");
    }
    char dir[] = "/tmp/gip-bench-cache.XXXXXX", err[256];
    if (!mkdtemp(dir)) {
        for (int i = 0; i < 2; i++) {
            snprintf(rs[i].status, sizeof rs[i].status, "error");
            snprintf(rs[i].reason, sizeof rs[i].reason, "mkdtemp: %s", strerror(errno));
        }
        return;
    }
    const char *old = getenv("GIP_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("GIP_CACHE_DIR", dir, 1);
    bench_set *set = sets_alloc(ctx, GIP_MEM_CUDA, 1, o->w[0], o->h[0], &u8c3, o->w[0], o->h[0],
                                GIP_U8, 3, NULL, err, sizeof err);
    gip_status st = GIP_OK;
    if (!set) {
        for (int i = 0; i < 2; i++) {
            snprintf(rs[i].status, sizeof rs[i].status, "error");
            snprintf(rs[i].reason, sizeof rs[i].reason, "allocation: %s", err);
        }
        goto out_restore;
    }
    if (!strcmp(rs->status, "ok")) {
        gip_cache_stats a, b, c;
        gip_context_sync(ctx);
        gip_expr_cache_release();
        gip_kernel_cache_stats(&a);
        rs->first_ms = timed_call_ms(ctx, call_stencil, set, NULL, &st);
        gip_kernel_cache_stats(&b);
        if (!st) {
            gip_expr_cache_release();
            rs->cached_ms = timed_call_ms(ctx, call_stencil, set, NULL, &st);
        }
        gip_kernel_cache_stats(&c);
        if (!st)
            rs->run_ms = steady_ms(ctx, call_stencil, set, NULL, &st);
        if (st) {
            snprintf(rs->status, sizeof rs->status, "error");
            snprintf(rs->reason, sizeof rs->reason, "%s: %s", gip_status_name(st),
                     gip_context_error(ctx));
        } else {
            snprintf(rs->note, sizeof rs->note,
                     "first: %lld miss(es), %lld store(s); cached: %lld hit(s); each includes "
                     "one run",
                     (long long)(b.misses - a.misses), (long long)(b.stores - a.stores),
                     (long long)(c.hits - b.hits));
        }
    }
    if (!strcmp(rk->status, "ok")) {
        gip_module_info i1 = {0}, i2 = {0};
        double c1 = 0, c2 = 0;
        rk->first_ms = module_once(ctx, set, &c1, &i1, &st);
        if (!st)
            rk->cached_ms = module_once(ctx, set, &c2, &i2, &st);
        gip_module *m = NULL;
        gip_kernel *k = NULL;
        if (!st && !(st = gip_module_compile(ctx, bench_mean3_cuda_source, "mean3.cu", NULL, &m)) &&
            !(st = gip_module_get_kernel(m, "mean3", &k)))
            rk->run_ms = steady_ms(ctx, call_kernel, set, k, &st);
        gip_context_sync(ctx);
        gip_module_free(m);
        if (st) {
            snprintf(rk->status, sizeof rk->status, "error");
            snprintf(rk->reason, sizeof rk->reason, "%s: %s", gip_status_name(st),
                     gip_context_error(ctx));
        } else {
            snprintf(rk->note, sizeof rk->note,
                     "%s; first: NVRTC %.1f ms + load %.1f ms (cache_hit %d); cached: load %.1f ms "
                     "(cache_hit %d); each includes one run",
                     i1.target, i1.compile_seconds * 1e3, i1.load_seconds * 1e3, (int)i1.cache_hit,
                     i2.load_seconds * 1e3, (int)i2.cache_hit);
        }
    }
    sets_free(ctx, set, 1);
out_restore:
    if (saved)
        setenv("GIP_CACHE_DIR", saved, 1);
    else
        unsetenv("GIP_CACHE_DIR");
    free(saved);
    remove_folder(dir);
    for (int i = 0; i < 2; i++)
        if (!strcmp(rs[i].status, "ok"))
            printf("compile %-14s first %9.2f ms, cached load %9.2f ms, run %8.3f ms  (%s)\n",
                   rs[i].op, rs[i].first_ms, rs[i].cached_ms, rs[i].run_ms, rs[i].note);
        else
            printf("compile %-14s %s: %s\n", rs[i].op, rs[i].status, rs[i].reason);
}
#endif

/* ---- machine description ------------------------------------------------------------------ */

typedef struct machine {
    char hostname[256];
    char cpu[256];
    long cores;
    char date[32];
    char gpu[256];
    char driver[64];
    char runtime[32];
    char cuda_driver_api[32];
    double l2_bytes;
    int sm_count;
} machine;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
}

static void describe_machine(machine *m)
{
    memset(m, 0, sizeof *m);
    if (gethostname(m->hostname, sizeof m->hostname - 1))
        snprintf(m->hostname, sizeof m->hostname, "unknown");
    snprintf(m->cpu, sizeof m->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ')
                    c++;
                snprintf(m->cpu, sizeof m->cpu, "%s", c);
                trim(m->cpu);
            }
            break;
        }
    }
    if (f)
        fclose(f);
    m->cores = sysconf(_SC_NPROCESSORS_ONLN);
    time_t now = time(NULL);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    /* The NVIDIA kernel driver's version: the first dotted number on its version line
     * ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  ..."). */
    f = fopen("/proc/driver/nvidia/version", "r");
    if (f && fgets(line, sizeof line, f)) {
        for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n"))
            if (t[0] >= '0' && t[0] <= '9' && strchr(t, '.')) {
                snprintf(m->driver, sizeof m->driver, "%s", t);
                break;
            }
    }
    if (f)
        fclose(f);
}

/* ---- output ------------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (v > 0)
        fprintf(f, "%.6g", v);
    else
        fprintf(f, "null");
}

static int write_json(const char *path, const options *o, const machine *m, int threads,
                      const char *cuda_unavailable, const char *npp_unavailable)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gip-bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "{\n  \"schema\": \"gip-bench/1\",\n  \"tool\": \"gip-bench\",\n  \"date\": ");
    json_str(f, m->date);
    fprintf(f, ",\n  \"machine\": {\"hostname\": ");
    json_str(f, m->hostname);
    fprintf(f, ", \"cpu\": ");
    json_str(f, m->cpu);
    fprintf(f, ", \"cores\": %ld},\n  \"threads\": %d,\n  \"gpu\": ", m->cores, threads);
    if (m->gpu[0]) {
        fprintf(f, "{\"name\": ");
        json_str(f, m->gpu);
        fprintf(f, ", \"driver\": ");
        json_str(f, m->driver);
        fprintf(f, ", \"cuda_driver_api\": ");
        json_str(f, m->cuda_driver_api);
        fprintf(f, ", \"cuda_runtime\": ");
        json_str(f, m->runtime);
        fprintf(f, ", \"sm_count\": %d, \"l2_bytes\": %.0f}", m->sm_count, m->l2_bytes);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\n  \"compiler\": ");
    json_str(f, GIP_BENCH_COMPILER);
    fprintf(f, ",\n  \"build_type\": ");
    json_str(f, GIP_BENCH_BUILD_TYPE);
    fprintf(f, ",\n  \"gip\": {\"version\": ");
    json_str(f, gip_version());
    fprintf(f, ", \"build_info\": ");
    json_str(f, gip_build_info());
    fprintf(f, "},\n  \"peers\": {\"npp\": ");
#ifdef GIP_BENCH_NPP
    json_str(f, bench_npp_version());
#else
    fprintf(f, "null");
#endif
    fprintf(f,
            "},\n  \"settings\": {\"target_s\": %g, \"iters\": %d, \"warmup\": %d, "
            "\"smoke\": %s, \"timing_cpu\": \"CLOCK_MONOTONIC per run, median\", "
            "\"timing_cuda\": \"CUDA events per run on the context's stream, queued behind a "
            "spin kernel, buffer sets rotated to exceed 4x L2, median\"},\n"
            "  \"interrupted\": %s,\n",
            o->cfg.target_s, o->cfg.iters, o->cfg.warmup, o->smoke ? "true" : "false",
            stop_requested ? "true" : "false");
    fprintf(f, "  \"copy_bandwidth\": {");
    const row *cr[2] = {&copy_row_cpu, &copy_row_cuda};
    const char *cn[2] = {"cpu", "cuda"};
    int firstc = 1;
    for (int i = 0; i < 2; i++) {
        if (!cr[i]->status[0])
            continue;
        fprintf(f, "%s\"%s\": {\"status\": ", firstc ? "" : ", ", cn[i]);
        json_str(f, cr[i]->status);
        if (!strcmp(cr[i]->status, "ok"))
            fprintf(f, ", \"gbs\": %.6g, \"ms\": %.6g, \"bytes\": %.0f, \"runs\": %d",
                    row_gbs(cr[i]), cr[i]->st.ms, cr[i]->bytes, cr[i]->st.runs);
        else {
            fprintf(f, ", \"reason\": ");
            json_str(f, cr[i]->reason);
        }
        fprintf(f, ", \"note\": ");
        json_str(f, cr[i]->note);
        fprintf(f, "}");
        firstc = 0;
    }
    fprintf(f, "},\n");
    fprintf(f, "  \"unavailable\": [");
    int first = 1;
    if (cuda_unavailable) {
        fprintf(f, "{\"what\": \"cuda\", \"reason\": ");
        json_str(f, cuda_unavailable);
        fprintf(f, "}");
        first = 0;
    }
    if (npp_unavailable) {
        fprintf(f, "%s{\"what\": \"npp\", \"reason\": ", first ? "" : ", ");
        json_str(f, npp_unavailable);
        fprintf(f, "}");
    }
    fprintf(f, "],\n  \"compile\": [");
    for (int i = 0; i < ncompile; i++) {
        const compile_row *c = &compile_rows[i];
        fprintf(f, "%s\n    {\"op\": ", i ? "," : "");
        json_str(f, c->op);
        fprintf(f, ", \"what\": ");
        json_str(f, c->what);
        fprintf(f,
                ", \"backend\": \"cuda\", \"size\": \"%lldx%lld\", \"format\": ", (long long)c->w,
                (long long)c->h);
        json_str(f, c->format);
        fprintf(f, ", \"status\": ");
        json_str(f, c->status);
        if (!strcmp(c->status, "ok"))
            fprintf(f, ", \"first_compile_ms\": %.6g, \"cached_load_ms\": %.6g, \"run_ms\": %.6g",
                    c->first_ms, c->cached_ms, c->run_ms);
        else {
            fprintf(f, ", \"reason\": ");
            json_str(f, c->reason);
        }
        if (c->note[0]) {
            fprintf(f, ", \"note\": ");
            json_str(f, c->note);
        }
        fprintf(f, "}");
    }
    fprintf(f, "%s],\n  \"rows\": [\n", ncompile ? "\n  " : "");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        fprintf(f, "    {\"op\": ");
        json_str(f, r->op);
        fprintf(f, ", \"size\": \"%lldx%lld\", \"width\": %lld, \"height\": %lld, \"format\": ",
                (long long)r->w, (long long)r->h, (long long)r->w, (long long)r->h);
        json_str(f, r->format);
        fprintf(f, ", \"backend\": ");
        json_str(f, r->backend);
        fprintf(f, ", \"impl\": ");
        json_str(f, r->impl);
        fprintf(f, ", \"status\": ");
        json_str(f, r->status);
        if (r->reason[0]) {
            fprintf(f, ", \"reason\": ");
            json_str(f, r->reason);
        }
        if (r->note[0]) {
            fprintf(f, ", \"note\": ");
            json_str(f, r->note);
        }
        if (!strcmp(r->status, "ok")) {
            fprintf(f,
                    ", \"ms\": %.6g, \"min_ms\": %.6g, \"p10_ms\": %.6g, \"p90_ms\": %.6g, "
                    "\"runs\": %d",
                    r->st.ms, r->st.min_ms, r->st.p10_ms, r->st.p90_ms, r->st.runs);
            fprintf(f, ", \"bytes\": %.0f, \"gbs\": ", r->bytes);
            json_num(f, row_gbs(r));
            fprintf(f, ", \"copy_fraction\": ");
            json_num(f, row_copy_fraction(r));
        }
        if (r->sets)
            fprintf(f, ", \"sets\": %d", r->sets);
        fprintf(f, "}%s\n", i + 1 < nrows ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f)) {
        fprintf(stderr, "gip-bench: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

static void print_table(void)
{
    printf("\n%-13s %-10s %-6s %-4s %10s  %-16s %10s %9s %8s %7s\n", "op", "size", "format", "bknd",
           "gip ms", "peer", "peer ms", "peer/gip", "GB/s", "%copy");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        char size[32];
        snprintf(size, sizeof size, "%lldx%lld", (long long)r->w, (long long)r->h);
        /* gip's row of the same (op, size, format, backend): the one at or before this one. */
        const row *g = NULL;
        for (int j = i; j >= 0; j--)
            if (!strcmp(rows[j].impl, "gip") && rows[j].op == r->op && rows[j].w == r->w &&
                rows[j].h == r->h && rows[j].format == r->format &&
                !strcmp(rows[j].backend, r->backend)) {
                g = &rows[j];
                break;
            }
        char gms[32] = "-", pms[32] = "", ratio[32] = "", gbs[32] = "-", frac[32] = "-";
        if (g && !strcmp(g->status, "ok"))
            snprintf(gms, sizeof gms, "%.4f", g->st.ms);
        else if (g)
            snprintf(gms, sizeof gms, "%s", g->status);
        const row *fig = r;
        if (r != g) {
            if (!strcmp(r->status, "ok")) {
                snprintf(pms, sizeof pms, "%.4f", r->st.ms);
                if (g && !strcmp(g->status, "ok"))
                    snprintf(ratio, sizeof ratio, "%.2f", r->st.ms / g->st.ms);
            } else {
                snprintf(pms, sizeof pms, "%s", r->status);
            }
        }
        if (!strcmp(fig->status, "ok")) {
            snprintf(gbs, sizeof gbs, "%.1f", row_gbs(fig));
            if (row_copy_fraction(fig) > 0)
                snprintf(frac, sizeof frac, "%.1f", 100.0 * row_copy_fraction(fig));
        }
        printf("%-13s %-10s %-6s %-4s %10s  %-16s %10s %9s %8s %7s\n", r->op, size, r->format,
               r->backend, gms, r == g ? "-" : r->impl, pms, ratio, gbs, frac);
    }
    /* Reasons, once each, so that no row is silently missing. */
    int header = 0;
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (!strcmp(r->status, "ok"))
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(rows[j].impl, r->impl) && !strcmp(rows[j].reason, r->reason) &&
                   !strcmp(rows[j].status, r->status);
        if (seen)
            continue;
        if (!header++)
            printf("\nnot timed:\n");
        printf("  %s %s (%s %s %s ...): %s\n", r->impl, r->status, r->op, r->format, r->backend,
               r->reason);
    }
    for (int i = 0; i < nrows; i++)
        if (rows[i].note[0]) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++)
                seen = !strcmp(rows[j].impl, rows[i].impl) && !strcmp(rows[j].note, rows[i].note);
            if (!seen)
                printf("  note %s (%s): %s\n", rows[i].impl, rows[i].op, rows[i].note);
        }
}

/* ---- main --------------------------------------------------------------------------------- */

static int op_selected(const options *o, const bench_op *op)
{
    return !o->ops || in_list(o->ops, op->name);
}

static void list_ops(void)
{
    printf("%-13s %-22s %-10s %-24s %s\n", "op", "gip function", "in libgip", "default formats",
           "what");
    for (int i = 0; i < bench_op_count(); i++) {
        const bench_op *op = bench_op_at(i);
        printf("%-13s %-22s %-10s %-24s %s\n", op->name, op->symbol, op->available() ? "yes" : "no",
               op->defaults, op->what);
    }
}

static void run_backend(const options *o, gip_context *ctx, int on_cuda, double l2_bytes)
{
    for (int s = 0; s < o->nsizes && !stop_requested; s++)
        for (int i = 0; i < bench_op_count() && !stop_requested; i++) {
            const bench_op *op = bench_op_at(i);
            if (!op_selected(o, op))
                continue;
            for (int k = 0; k < NFORMATS; k++) {
                const format *f = &formats[k];
                int want = o->formats
                               ? in_list(o->formats, f->name) && in_list(op->supported, f->name)
                               : in_list(op->defaults, f->name);
                if (want && !stop_requested)
                    run_row(o, ctx, on_cuda, l2_bytes, op, f, o->w[s], o->h[s]);
            }
        }
}

int main(int argc, char **argv)
{
    options o;
    int pr = parse_args(argc, argv, &o);
    if (pr == 1) {
        list_ops();
        return 0;
    }
    if (pr)
        return 2;
    if (o.formats)
        for (const char *p = o.formats; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int ok = 0;
            for (int k = 0; k < NFORMATS; k++)
                ok |= strlen(formats[k].name) == len && !strncmp(formats[k].name, p, len);
            if (!ok) {
                fprintf(stderr, "gip-bench: unknown format '%.*s' in --formats\n", (int)len, p);
                return 2;
            }
            p = e ? e + 1 : p + len;
        }
    if (o.ops)
        for (const char *p = o.ops; *p;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int ok = 0;
            for (int k = 0; k < bench_op_count(); k++)
                ok |= strlen(bench_op_at(k)->name) == len && !strncmp(bench_op_at(k)->name, p, len);
            if (!ok) {
                fprintf(stderr, "gip-bench: unknown operation '%.*s' (--list shows them)\n",
                        (int)len, p);
                return 2;
            }
            p = e ? e + 1 : p + len;
        }

    machine m;
    describe_machine(&m);
    signal(SIGTERM, on_stop);
    signal(SIGINT, on_stop);
    int threads = 0, rc = 0;
    const char *cuda_unavailable = NULL, *npp_unavailable = NULL;
#ifdef GIP_BENCH_CUDA
    static char cuda_reason[512];
#endif

    printf("gip-bench: %s\n", gip_build_info());
    printf("machine: %s, %s, %ld cores; %s UTC\n", m.hostname, m.cpu, m.cores, m.date);

    if (o.want_cpu) {
        gip_context_desc d = {0};
        gip_context *ctx = NULL;
        d.backend = GIP_BACKEND_CPU;
        d.threads = o.threads;
        if (gip_context_create(&d, &ctx) != GIP_OK) {
            fprintf(stderr, "gip-bench: CPU context: %s\n", gip_last_error());
            return 1;
        }
        threads = gip_context_threads(ctx);
        printf("cpu: %s\n", gip_context_describe(ctx));
        measure_copy_cpu(&o, threads, &copy_row_cpu);
        if (copy_gbs_cpu > 0)
            printf("cpu copy bandwidth: %.1f GB/s (%s)\n", copy_gbs_cpu, copy_note_cpu);
        run_backend(&o, ctx, 0, 0);
        gip_context_destroy(ctx);
    }

    if (o.want_cuda) {
#ifdef GIP_BENCH_CUDA
        gip_context_desc d = {0};
        gip_context *ctx = NULL;
        d.backend = GIP_BACKEND_CUDA;
        d.threads = o.threads;
        if (gip_context_create(&d, &ctx) != GIP_OK) {
            snprintf(cuda_reason, sizeof cuda_reason, "%s", gip_last_error());
            cuda_unavailable = cuda_reason;
        } else {
            int dev = gip_context_device(ctx), v = 0, l2 = 0;
            gip_device_info info;
            cudaSetDevice(dev);
            if (gip_device_get_info(dev, &info) == GIP_OK) {
                snprintf(m.gpu, sizeof m.gpu, "%s", info.name);
                m.sm_count = info.sm_count;
            }
            cudaDriverGetVersion(&v);
            snprintf(m.cuda_driver_api, sizeof m.cuda_driver_api, "%d.%d", v / 1000,
                     (v % 1000) / 10);
            cudaRuntimeGetVersion(&v);
            snprintf(m.runtime, sizeof m.runtime, "%d.%d", v / 1000, (v % 1000) / 10);
            cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
            m.l2_bytes = l2 > 0 ? l2 : 60e6;
            printf("cuda: %s; driver %s (CUDA %s), runtime %s, L2 %.0f MB\n",
                   gip_context_describe(ctx), m.driver[0] ? m.driver : "?", m.cuda_driver_api,
                   m.runtime, m.l2_bytes / 1e6);
#ifdef GIP_BENCH_NPP
            if (o.npp)
                printf("npp: %s\n", bench_npp_version());
            else
                npp_unavailable = "left out with --no-npp";
#else
            npp_unavailable = "gip-bench was built without NPP (CUDA::nppif and friends not found "
                              "by CMake)";
#endif
            measure_copy_cuda(&o, ctx, &copy_row_cuda);
            if (copy_gbs_cuda > 0)
                printf("cuda copy bandwidth: %.1f GB/s (%s)\n", copy_gbs_cuda, copy_note_cuda);
            measure_compile(&o, ctx);
            run_backend(&o, ctx, 1, m.l2_bytes);
            gip_context_destroy(ctx);
        }
#else
        cuda_unavailable = "gip-bench was built without CUDA";
#endif
        if (cuda_unavailable) {
            printf("cuda: unavailable: %s\n", cuda_unavailable);
            if (o.cuda_required)
                rc = 1;
        }
        if (npp_unavailable)
            printf("npp: unavailable: %s\n", npp_unavailable);
    }

    if (stop_requested)
        printf("\ninterrupted: the rows below are those measured before the signal\n");
    print_table();
    if (o.json && write_json(o.json, &o, &m, threads, cuda_unavailable, npp_unavailable))
        rc = 1;
    else if (o.json)
        printf("\njson: %s\n", o.json);
    free(rows);
    return rc;
}
