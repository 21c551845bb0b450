/* SPDX-License-Identifier: MIT */
/* The CPU backend of style transfer: convolutions as im2col + sgemm (OpenBLAS, one BLAS thread per
 * gip thread), Gram matrices with sgemm, elementwise passes and reductions on gip's threads. Block
 * sizes depend only on the shapes, so results do not depend on the thread count.
 *
 * OpenBLAS is loaded when a style transfer first runs on the CPU (dlopen), not linked: a process
 * that loads a pthreads OpenBLAS gets its worker threads at once, and they spin for about 0.1 s
 * (2^28 cycles) before they sleep. On a 2-core machine that made gip's own first calls 4-7x slower
 * for the first 100 ms of every process (not with OPENBLAS_NUM_THREADS=1), the CLI's and
 * Python's included, although gip calls BLAS only here. Without a loadable OpenBLAS the sgemm is
 * a plain loop nest (correct, slow). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(GIP_BLAS_DLOPEN)
#include <dlfcn.h>
#endif

#include "style.h"

/* Elements per reduction block: partial sums per block, then a fixed-order sum. */
#define RED_BLOCK 65536
/* Target size of one im2col block in bytes. */
#define COL_BYTES (3 << 20)

struct gip__style_state {
    const gip_net *net;
    float *wt[GIP__VGG_LAYERS]; /* backward weights: cin x (cout * 9), flipped */
};

/* ---- BLAS, loaded on first use (see the top) ------------------------------------------------ */
/* CBLAS's enum values (cblas.h): row-major 101, no transpose 111, transpose 112. */
typedef void (*blas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                              const float *a, int lda, const float *b, int ldb, float beta,
                              float *c, int ldc);
static blas_sgemm_fn blas_sgemm;
static int (*blas_get_threads)(void);
static void (*blas_set_threads)(int);
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

static void blas_load(void)
{
#if defined(GIP_BLAS_DLOPEN)
    static const char *const names[] = {"libopenblas.so.0", "libopenblas.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !blas_sgemm; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        blas_sgemm = (blas_sgemm_fn)dlsym(h, "cblas_sgemm");
        blas_get_threads = (int (*)(void))dlsym(h, "openblas_get_num_threads");
        blas_set_threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
        if (!blas_sgemm || !blas_get_threads || !blas_set_threads) {
            blas_sgemm = NULL;
            dlclose(h);
        }
    }
#endif
}

/* ---- GEMM: row-major C = alpha * A op(B) + beta * C ----------------------------------------- */
static void sgemm(int trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                  int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
    if (blas_sgemm) { /* loaded by cpu_create */
        blas_sgemm(101, 111, trans_b ? 112 : 111, (int)m, (int)n, (int)k, alpha, a, (int)lda, b,
                   (int)ldb, beta, c, (int)ldc);
        return;
    }
    /* No OpenBLAS to load: a plain loop nest with the same interface (slow but correct). */
    for (int64_t i = 0; i < m; i++) {
        float *ci = c + i * ldc;
        for (int64_t j = 0; j < n; j++)
            ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
        for (int64_t p = 0; p < k; p++) {
            float av = alpha * a[i * lda + p];
            if (trans_b)
                for (int64_t j = 0; j < n; j++)
                    ci[j] += av * b[j * ldb + p];
            else
                for (int64_t j = 0; j < n; j++)
                    ci[j] += av * b[p * ldb + j];
        }
    }
}

/* ---- memory --------------------------------------------------------------------------------- */
static gip_status cpu_alloc(gip_context *ctx, gip__style_state *st, int64_t n, float **out)
{
    *out = calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    if (!*out)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "gip_style_transfer: out of memory (%lld floats)", (long long)n);
    return GIP_OK;
}

static void cpu_free(gip_context *ctx, gip__style_state *st, float *p)
{
    free(p);
}

static gip_status cpu_copy(gip_context *ctx, gip__style_state *st, float *dst, const float *src,
                           int64_t n)
{
    memcpy(dst, src, (size_t)n * sizeof(float));
    return GIP_OK;
}

/* OpenBLAS's thread count is process-wide: the first style transfer running on the CPU sets it to
 * one (gip's own threads split the work) and the last one to finish restores the caller's value,
 * so concurrent calls neither undo each other's setting nor leave it changed. */
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_users, blas_saved;

static void blas_serial_enter(void)
{
    pthread_mutex_lock(&blas_lock);
    if (blas_users++ == 0 && blas_sgemm) {
        blas_saved = blas_get_threads();
        blas_set_threads(1);
    }
    pthread_mutex_unlock(&blas_lock);
}

static void blas_serial_leave(void)
{
    pthread_mutex_lock(&blas_lock);
    if (--blas_users == 0 && blas_sgemm)
        blas_set_threads(blas_saved);
    pthread_mutex_unlock(&blas_lock);
}

static gip_status cpu_create(gip_context *ctx, const gip_net *net, int last, uint32_t flags,
                             gip__style_state **out)
{
    gip__style_state *st = calloc(1, sizeof *st);
    if (!st)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    st->net = net;
    for (int l = 0; l <= last; l++) {
        const gip__conv *c = &net->conv[l];
        st->wt[l] = malloc((size_t)c->cin * c->cout * 9 * sizeof(float));
        if (!st->wt[l]) {
            for (int k = 0; k < l; k++)
                free(st->wt[k]);
            free(st);
            return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
        }
        /* The input gradient is a convolution of the output gradient with the weights transposed
         * (in <-> out) and rotated by 180 degrees. */
        for (int co = 0; co < c->cout; co++)
            for (int ci = 0; ci < c->cin; ci++)
                for (int k = 0; k < 9; k++)
                    st->wt[l][((int64_t)ci * c->cout + co) * 9 + (8 - k)] =
                        c->w[((int64_t)co * c->cin + ci) * 9 + k];
    }
    pthread_once(&blas_once, blas_load);
    blas_serial_enter();
    *out = st;
    return GIP_OK;
}

static void cpu_destroy(gip_context *ctx, gip__style_state *st)
{
    if (!st)
        return;
    blas_serial_leave();
    for (int l = 0; l < GIP__VGG_LAYERS; l++)
        free(st->wt[l]);
    free(st);
}

/* ---- convolution: im2col blocks of rows, one sgemm per block -------------------------------- */
typedef struct conv_job {
    const float *in;
    float *out;
    const float *wm;   /* cout x (cin * 9) */
    const float *bias; /* NULL: none, no ReLU */
    int64_t cin, cout, h, w, rows;
    int failed;
} conv_job;

static void im2col(const float *in, int64_t cin, int64_t h, int64_t w, int64_t y0, int64_t y1,
                   float *col)
{
    int64_t nb = (y1 - y0) * w;
    for (int64_t c = 0; c < cin; c++)
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
                float *dst = col + ((c * 9) + ky * 3 + kx) * nb;
                for (int64_t y = y0; y < y1; y++, dst += w) {
                    int64_t sy = y + ky - 1;
                    if (sy < 0 || sy >= h) {
                        memset(dst, 0, (size_t)w * sizeof(float));
                        continue;
                    }
                    const float *src = in + (c * h + sy) * w;
                    if (kx == 0) {
                        dst[0] = 0.0f;
                        memcpy(dst + 1, src, (size_t)(w - 1) * sizeof(float));
                    } else if (kx == 1) {
                        memcpy(dst, src, (size_t)w * sizeof(float));
                    } else {
                        memcpy(dst, src + 1, (size_t)(w - 1) * sizeof(float));
                        dst[w - 1] = 0.0f;
                    }
                }
            }
}

static void conv_range(void *arg, int64_t begin, int64_t end)
{
    conv_job *j = arg;
    int64_t k = j->cin * 9;
    float *col = malloc((size_t)(k * j->rows * j->w) * sizeof(float));
    if (!col) {
        j->failed = 1;
        return;
    }
    for (int64_t b = begin; b < end; b++) {
        int64_t y0 = b * j->rows, y1 = y0 + j->rows < j->h ? y0 + j->rows : j->h;
        int64_t nb = (y1 - y0) * j->w;
        im2col(j->in, j->cin, j->h, j->w, y0, y1, col);
        float *o = j->out + y0 * j->w;
        sgemm(0, j->cout, nb, k, 1.0f, j->wm, k, col, nb, 0.0f, o, j->h * j->w);
        if (j->bias)
            for (int64_t co = 0; co < j->cout; co++) {
                float *oc = o + co * j->h * j->w, bv = j->bias[co];
                for (int64_t i = 0; i < nb; i++) {
                    float v = oc[i] + bv;
                    oc[i] = v > 0.0f ? v : 0.0f;
                }
            }
    }
    free(col);
}

static gip_status conv_run(gip_context *ctx, const float *in, float *out, const float *wm,
                           const float *bias, int64_t cin, int64_t cout, int64_t h, int64_t w)
{
    int64_t k = cin * 9;
    int64_t rows = COL_BYTES / (k * w * (int64_t)sizeof(float));
    int64_t cap = (h + 7) / 8; /* at least 8 blocks where the image has the rows */
    if (rows > cap)
        rows = cap;
    if (rows < 1)
        rows = 1;
    conv_job j = {in, out, wm, bias, cin, cout, h, w, rows, 0};
    gip__parallel_for(ctx, (h + rows - 1) / rows, 1, conv_range, &j);
    if (j.failed)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    return GIP_OK;
}

static gip_status cpu_conv_fwd(gip_context *ctx, gip__style_state *st, int l, const float *in,
                               float *out, int64_t h, int64_t w)
{
    const gip__conv *c = &st->net->conv[l];
    return conv_run(ctx, in, out, c->w, c->b, c->cin, c->cout, h, w);
}

static gip_status cpu_conv_bwd(gip_context *ctx, gip__style_state *st, int l, const float *gout,
                               float *gin, int64_t h, int64_t w)
{
    const gip__conv *c = &st->net->conv[l];
    return conv_run(ctx, gout, gin, st->wt[l], NULL, c->cout, c->cin, h, w);
}

/* ---- elementwise and pooling ---------------------------------------------------------------- */
typedef struct ew_job {
    const float *a, *b;
    float *y;
    double alpha, beta;
    int64_t n;
    double *partial;
    int avg;
    int64_t h, w;
} ew_job;

#define EW_BLOCK 16384

static void relu_bwd_range(void *arg, int64_t begin, int64_t end)
{
    ew_job *j = arg;
    for (int64_t i = begin * EW_BLOCK; i < end * EW_BLOCK && i < j->n; i++)
        if (!(j->a[i] > 0.0f))
            j->y[i] = 0.0f;
}

static gip_status cpu_relu_bwd(gip_context *ctx, gip__style_state *st, const float *act, float *g,
                               int64_t n)
{
    ew_job j = {.a = act, .y = g, .n = n};
    gip__parallel_for(ctx, (n + EW_BLOCK - 1) / EW_BLOCK, 1, relu_bwd_range, &j);
    return GIP_OK;
}

static void axpby_range(void *arg, int64_t begin, int64_t end)
{
    ew_job *j = arg;
    float al = (float)j->alpha, be = (float)j->beta;
    int64_t e = end * EW_BLOCK < j->n ? end * EW_BLOCK : j->n;
    if (!j->a || al == 0.0f) {
        for (int64_t i = begin * EW_BLOCK; i < e; i++)
            j->y[i] = be == 0.0f ? 0.0f : be * j->y[i];
    } else if (be == 0.0f) {
        for (int64_t i = begin * EW_BLOCK; i < e; i++)
            j->y[i] = al * j->a[i];
    } else {
        for (int64_t i = begin * EW_BLOCK; i < e; i++)
            j->y[i] = al * j->a[i] + be * j->y[i];
    }
}

static gip_status cpu_axpby(gip_context *ctx, gip__style_state *st, double alpha, const float *x,
                            double beta, float *y, int64_t n)
{
    ew_job j = {.a = x, .y = y, .alpha = alpha, .beta = beta, .n = n};
    gip__parallel_for(ctx, (n + EW_BLOCK - 1) / EW_BLOCK, 1, axpby_range, &j);
    return GIP_OK;
}

static void pool_fwd_range(void *arg, int64_t begin, int64_t end)
{
    ew_job *j = arg;
    int64_t h = j->h, w = j->w, oh = h / 2, ow = w / 2;
    for (int64_t c = begin; c < end; c++)
        for (int64_t y = 0; y < oh; y++) {
            const float *r0 = j->a + (c * h + 2 * y) * w, *r1 = r0 + w;
            float *o = j->y + (c * oh + y) * ow;
            for (int64_t x = 0; x < ow; x++) {
                float a = r0[2 * x], b = r0[2 * x + 1], cc = r1[2 * x], d = r1[2 * x + 1];
                if (j->avg) {
                    o[x] = 0.25f * ((a + b) + (cc + d));
                } else {
                    float m = a;
                    m = b > m ? b : m;
                    m = cc > m ? cc : m;
                    o[x] = d > m ? d : m;
                }
            }
        }
}

static gip_status cpu_pool_fwd(gip_context *ctx, gip__style_state *st, int avg, const float *in,
                               float *out, int64_t c, int64_t h, int64_t w)
{
    ew_job j = {.a = in, .y = out, .avg = avg, .h = h, .w = w};
    gip__parallel_for(ctx, c, 1, pool_fwd_range, &j);
    return GIP_OK;
}

static void pool_bwd_range(void *arg, int64_t begin, int64_t end)
{
    ew_job *j = arg;
    int64_t h = j->h, w = j->w, oh = h / 2, ow = w / 2;
    for (int64_t c = begin; c < end; c++) {
        memset(j->y + c * h * w, 0, (size_t)(h * w) * sizeof(float));
        for (int64_t y = 0; y < oh; y++) {
            const float *r0 = j->a + (c * h + 2 * y) * w, *r1 = r0 + w;
            float *g0 = j->y + (c * h + 2 * y) * w, *g1 = g0 + w;
            const float *go = j->b + (c * oh + y) * ow;
            for (int64_t x = 0; x < ow; x++) {
                if (j->avg) {
                    float v = 0.25f * go[x];
                    g0[2 * x] = g0[2 * x + 1] = g1[2 * x] = g1[2 * x + 1] = v;
                } else {
                    /* The first maximum in row-major order takes the gradient, as in PyTorch. */
                    float a = r0[2 * x], b = r0[2 * x + 1], cc = r1[2 * x], d = r1[2 * x + 1];
                    float *t = &g0[2 * x];
                    float m = a;
                    if (b > m) {
                        m = b;
                        t = &g0[2 * x + 1];
                    }
                    if (cc > m) {
                        m = cc;
                        t = &g1[2 * x];
                    }
                    if (d > m)
                        t = &g1[2 * x + 1];
                    *t = go[x];
                }
            }
        }
    }
}

static gip_status cpu_pool_bwd(gip_context *ctx, gip__style_state *st, int avg, const float *in,
                               const float *gout, float *gin, int64_t c, int64_t h, int64_t w)
{
    ew_job j = {.a = in, .b = gout, .y = gin, .avg = avg, .h = h, .w = w};
    gip__parallel_for(ctx, c, 1, pool_bwd_range, &j);
    return GIP_OK;
}

/* ---- reductions ----------------------------------------------------------------------------- */
typedef struct red_job {
    const float *a, *b;
    float *g;
    double coef2; /* content: gradient factor */
    int64_t n;
    int kind; /* 0 dot, 1 content (sum (a-b)^2, g += coef2 (a-b)) */
    double *partial;
} red_job;

static void red_range(void *arg, int64_t begin, int64_t end)
{
    red_job *j = arg;
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t i0 = blk * RED_BLOCK, i1 = i0 + RED_BLOCK < j->n ? i0 + RED_BLOCK : j->n;
        double s = 0;
        if (j->kind == 0) {
            for (int64_t i = i0; i < i1; i++)
                s += (double)j->a[i] * j->b[i];
        } else {
            float k = (float)j->coef2;
            for (int64_t i = i0; i < i1; i++) {
                float d = j->a[i] - j->b[i];
                s += (double)d * d;
                j->g[i] += k * d;
            }
        }
        j->partial[blk] = s;
    }
}

static gip_status reduce(gip_context *ctx, red_job *j, double *out)
{
    int64_t nblk = (j->n + RED_BLOCK - 1) / RED_BLOCK;
    double stack[64];
    j->partial = nblk <= 64 ? stack : malloc((size_t)nblk * sizeof(double));
    if (!j->partial)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    gip__parallel_for(ctx, nblk, 1, red_range, j);
    double s = 0;
    for (int64_t i = 0; i < nblk; i++)
        s += j->partial[i];
    if (j->partial != stack)
        free(j->partial);
    *out = s;
    return GIP_OK;
}

static gip_status cpu_dot(gip_context *ctx, gip__style_state *st, const float *a, const float *b,
                          int64_t n, double *out)
{
    red_job j = {.a = a, .b = b, .n = n, .kind = 0};
    return reduce(ctx, &j, out);
}

static gip_status cpu_mean_sq(gip_context *ctx, gip__style_state *st, const float *a, int64_t n,
                              double *out)
{
    double s;
    gip_status r = cpu_dot(ctx, st, a, a, n, &s);
    if (r == GIP_OK)
        *out = n > 0 ? s / (double)n : 0.0;
    return r;
}

static gip_status cpu_content_grad(gip_context *ctx, gip__style_state *st, const float *f,
                                   const float *p, int64_t n, double coef, float *gf, double *loss)
{
    red_job j = {.a = f, .b = p, .g = gf, .coef2 = 2.0 * coef / (double)n, .n = n, .kind = 1};
    double s;
    gip_status r = reduce(ctx, &j, &s);
    if (r == GIP_OK)
        *loss += coef * s / (double)n;
    return r;
}

/* ---- Gram matrices -------------------------------------------------------------------------- */
#define GRAM_ROWS 16
#define GRAD_COLS 16384

typedef struct gram_job {
    const float *f, *d;
    float *out;
    int64_t c, m;
    float alpha;
    int64_t ncb; /* column blocks (gradient) */
} gram_job;

static void gram_range(void *arg, int64_t begin, int64_t end)
{
    gram_job *j = arg;
    for (int64_t b = begin; b < end; b++) {
        int64_t r0 = b * GRAM_ROWS, r = j->c - r0 < GRAM_ROWS ? j->c - r0 : GRAM_ROWS;
        sgemm(1, r, j->c, j->m, j->alpha, j->f + r0 * j->m, j->m, j->f, j->m, 0.0f,
              j->out + r0 * j->c, j->c);
    }
}

static gip_status cpu_gram(gip_context *ctx, gip__style_state *st, const float *f, float *g,
                           int64_t c, int64_t m)
{
    gram_job j = {f, NULL, g, c, m, (float)(1.0 / ((double)c * (double)m)), 0};
    gip__parallel_for(ctx, (c + GRAM_ROWS - 1) / GRAM_ROWS, 1, gram_range, &j);
    return GIP_OK;
}

static void grad_range(void *arg, int64_t begin, int64_t end)
{
    gram_job *j = arg;
    for (int64_t b = begin; b < end; b++) {
        int64_t rb = b / j->ncb, cb = b % j->ncb;
        int64_t r0 = rb * GRAM_ROWS, r = j->c - r0 < GRAM_ROWS ? j->c - r0 : GRAM_ROWS;
        int64_t c0 = cb * GRAD_COLS, nc = j->m - c0 < GRAD_COLS ? j->m - c0 : GRAD_COLS;
        sgemm(0, r, nc, j->c, j->alpha, j->d + r0 * j->c, j->c, j->f + c0, j->m, 1.0f,
              j->out + r0 * j->m + c0, j->m);
    }
}

static gip_status cpu_style_grad(gip_context *ctx, gip__style_state *st, const float *f,
                                 const float *g, const float *a, float *scratch, int64_t c,
                                 int64_t m, double coef, float *gf, double *loss)
{
    double s = 0;
    for (int64_t i = 0; i < c * c; i++) {
        float d = g[i] - a[i];
        scratch[i] = d;
        s += (double)d * d;
    }
    *loss += coef * s / ((double)c * c);
    /* d loss / d F = coef * 2 (G - A) / c^2 * 2 F / (c m) (G - A is symmetric). */
    gram_job j = {f,
                  scratch,
                  gf,
                  c,
                  m,
                  (float)(coef * 4.0 / ((double)c * c * (double)c * (double)m)),
                  (m + GRAD_COLS - 1) / GRAD_COLS};
    gip__parallel_for(ctx, ((c + GRAM_ROWS - 1) / GRAM_ROWS) * j.ncb, 1, grad_range, &j);
    return GIP_OK;
}

/* ---- total variation ------------------------------------------------------------------------ */
typedef struct tv_job {
    const float *x;
    float *g;
    int64_t h, w;
    float k;
    double *partial; /* per row (c * h) */
} tv_job;

static void tv_range(void *arg, int64_t begin, int64_t end)
{
    tv_job *j = arg;
    int64_t h = j->h, w = j->w;
    for (int64_t r = begin; r < end; r++) {
        int64_t y = r % h;
        const float *row = j->x + r * w;
        float *gr = j->g + r * w;
        double s = 0;
        for (int64_t x = 0; x < w; x++)
            gr[x] += j->k * gip__style_tv_pixel(row + x, x, y, h, w, &s);
        j->partial[r] = s;
    }
}

static gip_status cpu_tv_grad(gip_context *ctx, gip__style_state *st, const float *x, int64_t c,
                              int64_t h, int64_t w, double coef, float *gx, double *loss)
{
    double n = (double)c * h * w;
    tv_job j = {x, gx, h, w, (float)(2.0 * coef / n), malloc((size_t)(c * h) * sizeof(double))};
    if (!j.partial)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    gip__parallel_for(ctx, c * h, 8, tv_range, &j);
    double s = 0;
    for (int64_t r = 0; r < c * h; r++)
        s += j.partial[r];
    free(j.partial);
    *loss += coef * s / n;
    return GIP_OK;
}

/* ---- loss slots ------------------------------------------------------------------------------ */
static gip_status cpu_loss_alloc(gip_context *ctx, gip__style_state *st, int n, double **out)
{
    *out = calloc((size_t)n, sizeof(double));
    return *out ? GIP_OK
                : gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
}

static void cpu_loss_free(gip_context *ctx, gip__style_state *st, double *p)
{
    free(p);
}

static gip_status cpu_loss_zero(gip_context *ctx, gip__style_state *st, double *p, int n)
{
    memset(p, 0, (size_t)n * sizeof(double));
    return GIP_OK;
}

static gip_status cpu_loss_read(gip_context *ctx, gip__style_state *st, const double *p,
                                double *host, int n)
{
    memcpy(host, p, (size_t)n * sizeof(double));
    return GIP_OK;
}

/* ---- optimiser primitives ------------------------------------------------------------------- */
typedef struct rows_job {
    const float *rows, *vecs;
    int64_t nr, nv, n;
    const double *coef;
    double *out;
    float *y;
    double *partial; /* abs_norms: per block sum and max */
} rows_job;

/* One row per task, summed in double in index order: independent of the thread count. */
static void rows_dot_range(void *arg, int64_t begin, int64_t end)
{
    rows_job *j = arg;
    for (int64_t r = begin; r < end; r++) {
        const float *a = j->rows + r * j->n;
        for (int64_t v = 0; v < j->nv; v++) {
            const float *b = j->vecs + v * j->n;
            double s = 0;
            for (int64_t i = 0; i < j->n; i++)
                s += (double)a[i] * b[i];
            j->out[r * j->nv + v] = s;
        }
    }
}

static gip_status cpu_rows_dot(gip_context *ctx, gip__style_state *st, const float *rows,
                               int64_t nr, const float *vecs, int64_t nv, int64_t n, double *out)
{
    rows_job j = {.rows = rows, .vecs = vecs, .nr = nr, .nv = nv, .n = n, .out = out};
    gip__parallel_for(ctx, nr, 1, rows_dot_range, &j);
    return GIP_OK;
}

static void rows_axpy_range(void *arg, int64_t begin, int64_t end)
{
    rows_job *j = arg;
    int64_t e = end * EW_BLOCK < j->n ? end * EW_BLOCK : j->n;
    for (int64_t r = 0; r < j->nr; r++) {
        float c = (float)j->coef[r];
        if (c == 0.0f)
            continue;
        const float *a = j->rows + r * j->n;
        for (int64_t i = begin * EW_BLOCK; i < e; i++)
            j->y[i] += c * a[i];
    }
}

static gip_status cpu_rows_axpy(gip_context *ctx, gip__style_state *st, const float *rows,
                                int64_t nr, const double *coef, int64_t n, float *y)
{
    rows_job j = {.rows = rows, .nr = nr, .n = n, .coef = coef, .y = y};
    gip__parallel_for(ctx, (n + EW_BLOCK - 1) / EW_BLOCK, 1, rows_axpy_range, &j);
    return GIP_OK;
}

static void abs_range(void *arg, int64_t begin, int64_t end)
{
    rows_job *j = arg;
    for (int64_t blk = begin; blk < end; blk++) {
        int64_t i0 = blk * RED_BLOCK, i1 = i0 + RED_BLOCK < j->n ? i0 + RED_BLOCK : j->n;
        double s = 0, m = 0;
        for (int64_t i = i0; i < i1; i++) {
            double v = fabs((double)j->rows[i]);
            s += v;
            m = v > m ? v : m;
        }
        j->partial[2 * blk] = s;
        j->partial[2 * blk + 1] = m;
    }
}

static gip_status cpu_abs_norms(gip_context *ctx, gip__style_state *st, const float *a, int64_t n,
                                double *l1, double *linf)
{
    int64_t nblk = (n + RED_BLOCK - 1) / RED_BLOCK;
    rows_job j = {.rows = a, .n = n};
    j.partial = malloc((size_t)(nblk > 0 ? 2 * nblk : 1) * sizeof(double));
    if (!j.partial)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_style_transfer: out of memory");
    gip__parallel_for(ctx, nblk, 1, abs_range, &j);
    double s = 0, m = 0;
    for (int64_t b = 0; b < nblk; b++) {
        s += j.partial[2 * b];
        m = j.partial[2 * b + 1] > m ? j.partial[2 * b + 1] : m;
    }
    free(j.partial);
    *l1 = s;
    *linf = m;
    return GIP_OK;
}

typedef struct adam_job {
    float *x, *m, *v;
    const float *g;
    int64_t n;
    float lr, b1, b2, omb1, omb2, eps, c1, c2; /* omb = 1 - b rounded from double */
} adam_job;

static void adam_range(void *arg, int64_t begin, int64_t end)
{
    adam_job *j = arg;
    int64_t e = end * EW_BLOCK < j->n ? end * EW_BLOCK : j->n;
    for (int64_t i = begin * EW_BLOCK; i < e; i++) {
        float gi = j->g[i];
        float mi = j->b1 * j->m[i] + j->omb1 * gi;
        float vi = j->b2 * j->v[i] + j->omb2 * gi * gi;
        j->m[i] = mi;
        j->v[i] = vi;
        j->x[i] -= j->lr * (mi / j->c1) / (sqrtf(vi / j->c2) + j->eps);
    }
}

static gip_status cpu_adam(gip_context *ctx, gip__style_state *st, float *x, const float *g,
                           float *m, float *v, int64_t n, double lr, double b1, double b2,
                           double eps, int32_t step)
{
    adam_job j = {x,
                  m,
                  v,
                  g,
                  n,
                  (float)lr,
                  (float)b1,
                  (float)b2,
                  (float)(1.0 - b1),
                  (float)(1.0 - b2),
                  (float)eps,
                  (float)(1.0 - pow(b1, step)),
                  (float)(1.0 - pow(b2, step))};
    gip__parallel_for(ctx, (n + EW_BLOCK - 1) / EW_BLOCK, 1, adam_range, &j);
    return GIP_OK;
}

const gip__style_backend gip__style_cpu = {
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .conv_fwd = cpu_conv_fwd,
    .conv_bwd = cpu_conv_bwd,
    .relu_bwd = cpu_relu_bwd,
    .pool_fwd = cpu_pool_fwd,
    .pool_bwd = cpu_pool_bwd,
    .gram = cpu_gram,
    .style_grad = cpu_style_grad,
    .content_grad = cpu_content_grad,
    .tv_grad = cpu_tv_grad,
    .dot = cpu_dot,
    .axpby = cpu_axpby,
    .mean_sq = cpu_mean_sq,
    .rows_dot = cpu_rows_dot,
    .rows_axpy = cpu_rows_axpy,
    .abs_norms = cpu_abs_norms,
    .adam = cpu_adam,
    .loss_alloc = cpu_loss_alloc,
    .loss_free = cpu_loss_free,
    .loss_zero = cpu_loss_zero,
    .loss_read = cpu_loss_read,
};
