/* SPDX-License-Identifier: MIT */
/* The shared C test harness (see testing.h). */
#include "testing.h"

#include "tuning.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int gt_failures;
int gt_checks;
gt_backend gt_current_backend;

const gt_size gt_sizes[] = {{1, 1}, {1, 17}, {17, 1}, {13, 42}, {64, 48}, {1001, 777}};
int gt_nsizes = (int)(sizeof gt_sizes / sizeof gt_sizes[0]);

bool gt_check(bool ok, const char *file, int line, const char *fmt, ...)
{
    gt_checks++;
    if (ok)
        return true;
    gt_failures++;
    fprintf(stderr, "%s:%d: FAIL: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return false;
}

bool gt_check_status(gip_status got, gip_status expected, const char *expr, const char *file,
                     int line)
{
    if (got != expected)
        return gt_check(false, file, line, "%s returned %s, expected %s (message: %s)", expr,
                        gip_status_name(got), gip_status_name(expected), gip_last_error());
    if (expected != GIP_OK)
        return gt_check(gip_last_error()[0] != '\0', file, line,
                        "%s returned %s but set no message", expr, gip_status_name(got));
    return gt_check(true, file, line, "");
}

static int64_t slice_i, slice_n = 1, cases_seen, cases_run;

bool gt_case(void)
{
    bool run = cases_seen++ % slice_n == slice_i;
    cases_run += run;
    return run;
}

bool gt_sliced(void)
{
    return slice_n > 1;
}

/* Reads GIP_TEST_SLICE ("i/n"); false when it is set but malformed. */
static bool read_slice(void)
{
    const char *s = getenv("GIP_TEST_SLICE");
    if (!s || !*s)
        return true;
    long long i, n;
    char end;
    if (sscanf(s, "%lld/%lld%c", &i, &n, &end) != 2 || n < 1 || i < 0 || i >= n)
        return false;
    slice_i = i;
    slice_n = n;
    return true;
}

bool gt_quick(void)
{
    const char *quick = getenv("GIP_TEST_QUICK");
    return quick && quick[0] == '1';
}

int gt_main(int argc, char **argv, const char *name, void (*body)(gip_context *ctx))
{
    if (!read_slice()) {
        fprintf(stderr, "%s: GIP_TEST_SLICE must be i/n with 0 <= i < n, not '%s'\n", name,
                getenv("GIP_TEST_SLICE"));
        return 2;
    }
    const char *b = argc > 1 ? argv[1] : "cpu";
    /* The quick set drops the largest size (1001x777). */
    if (gt_quick())
        gt_nsizes--;
    gip_context_desc desc = {0};
    if (strcmp(b, "cpu") == 0) {
        gt_current_backend = GT_CPU;
        desc.backend = GIP_BACKEND_CPU;
    } else if (strcmp(b, "cuda") == 0) {
        gt_current_backend = GT_CUDA;
        desc.backend = GIP_BACKEND_CUDA;
    } else {
        fprintf(stderr, "usage: %s [cpu|cuda]\n", argv[0]);
        return 2;
    }
    gip_context *ctx = NULL;
    gip_status st = gip_context_create(&desc, &ctx);
    if (st != GIP_OK) {
        if (gt_current_backend == GT_CUDA && (st == GIP_ERR_NO_DEVICE || st == GIP_ERR_NOT_BUILT)) {
            printf("SKIP: %s on cuda: %s\n", name, gip_last_error());
            return GT_SKIP;
        }
        fprintf(stderr, "%s: cannot create a %s context: %s\n", name, b, gip_last_error());
        return 1;
    }
    printf("%s on %s\n", name, gip_context_describe(ctx));
    body(ctx);
    gip_context_destroy(ctx);
    if (slice_n > 1)
        printf("%s: slice %lld/%lld ran %lld of %lld cases\n", name, (long long)slice_i,
               (long long)slice_n, (long long)cases_run, (long long)cases_seen);
    printf("%s: %d checks, %d failed\n", name, gt_checks, gt_failures);
    return gt_failures ? 1 : 0;
}

uint64_t gt_rand_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double gt_rand_unit(uint64_t *s)
{
    return (double)(gt_rand_u64(s) >> 11) * (1.0 / 9007199254740992.0);
}

void gt_alloc(gip_image *img, int64_t w, int64_t h, int32_t c, gip_dtype dt, int64_t pad)
{
    int64_t row = w * c * (int64_t)gip_dtype_size(dt);
    int64_t es = dt == GIP_C32 ? 4 : (int64_t)gip_dtype_size(dt);
    int64_t stride = (row + pad + es - 1) / es * es; /* strides are whole elements */
    void *p = malloc((size_t)(stride * h));
    if (!p) {
        fprintf(stderr, "test: out of memory allocating %lldx%lld\n", (long long)w, (long long)h);
        abort();
    }
    memset(p, 0xA5, (size_t)(stride * h));
    if (gip_image_wrap(img, p, w, h, c, dt, stride, GIP_MEM_HOST, 0) != GIP_OK) {
        fprintf(stderr, "test: gip_image_wrap failed: %s\n", gip_last_error());
        abort();
    }
}

int64_t gt_pad16(int64_t w, int32_t c, gip_dtype dt)
{
    int64_t row = w * c * (int64_t)gip_dtype_size(dt);
    return (row + 15) / 16 * 16 - row;
}

void gt_setenv(const char *var, const char *value)
{
    if (value)
        setenv(var, value, 1);
    else
        unsetenv(var);
    gip__tuning_reload();
}

void gt_cuda_with_env(gip_context *ctx, const char *var, const char *value, const char *what,
                      void (*fn)(gip_context *ctx))
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return;
    printf("%s (%s=%s)\n", what, var, value);
    gt_setenv(var, value);
    fn(ctx);
    gt_setenv(var, NULL);
}

void gt_free(gip_image *img)
{
    free(img->data);
    memset(img, 0, sizeof *img);
}

void gt_fill_random(gip_image *img, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed * 7919 + 17;
    int64_t n = img->width * img->channels;
    for (int64_t y = 0; y < img->height; y++) {
        char *row = (char *)img->data + y * img->stride;
        for (int64_t i = 0; i < n; i++) {
            uint64_t r = gt_rand_u64(&s);
            switch (img->dtype) {
            case GIP_U8:
                ((uint8_t *)row)[i] = (uint8_t)r;
                break;
            case GIP_U16:
                ((uint16_t *)row)[i] = (uint16_t)r;
                break;
            case GIP_S16:
                ((int16_t *)row)[i] = (int16_t)(uint16_t)r;
                break;
            case GIP_F32:
            case GIP_C32: {
                double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
                float v = (lo == hi) ? (float)(u * 256.0) : (float)(lo + u * (hi - lo));
                if (img->dtype == GIP_F32)
                    ((float *)row)[i] = v;
                else
                    ((float *)row)[2 * i] = v, ((float *)row)[2 * i + 1] = (float)(u - 0.5);
                break;
            }
            default:
                break;
            }
        }
    }
}

void gt_poison(gip_image *img, uint8_t value)
{
    int64_t row = gip_image_row_bytes(img);
    for (int64_t y = 0; y < img->height; y++)
        memset((char *)img->data + y * img->stride, value, (size_t)row);
}

bool gt_padding_intact(const gip_image *img)
{
    int64_t row = gip_image_row_bytes(img);
    for (int64_t y = 0; y < img->height; y++) {
        const uint8_t *p = (const uint8_t *)img->data + y * img->stride;
        for (int64_t i = row; i < img->stride; i++)
            if (p[i] != 0xA5)
                return false;
    }
    return true;
}

double gt_get(const gip_image *img, int64_t x, int64_t y, int32_t c)
{
    const char *row = (const char *)img->data + y * img->stride;
    int64_t i = x * img->channels + c;
    switch (img->dtype) {
    case GIP_U8:
        return ((const uint8_t *)row)[i];
    case GIP_U16:
        return ((const uint16_t *)row)[i];
    case GIP_S16:
        return ((const int16_t *)row)[i];
    case GIP_F32:
        return ((const float *)row)[i];
    default:
        return NAN;
    }
}

static double sat(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void gt_set(gip_image *img, int64_t x, int64_t y, int32_t c, double v)
{
    char *row = (char *)img->data + y * img->stride;
    int64_t i = x * img->channels + c;
    switch (img->dtype) {
    case GIP_U8:
        ((uint8_t *)row)[i] = (uint8_t)sat(v, 0, 255);
        break;
    case GIP_U16:
        ((uint16_t *)row)[i] = (uint16_t)sat(v, 0, 65535);
        break;
    case GIP_S16:
        ((int16_t *)row)[i] = (int16_t)sat(v, -32768, 32767);
        break;
    case GIP_F32:
        ((float *)row)[i] = (float)v;
        break;
    default:
        break;
    }
}

bool gt_compare(const gip_image *got, const gip_image *exp, double atol, double rtol,
                const char *label)
{
    gt_checks++;
    if (got->width != exp->width || got->height != exp->height || got->channels != exp->channels ||
        got->dtype != exp->dtype) {
        gt_failures++;
        fprintf(stderr, "FAIL %s: shape %lldx%lldx%d %s vs expected %lldx%lldx%d %s\n", label,
                (long long)got->width, (long long)got->height, got->channels,
                gip_dtype_name(got->dtype), (long long)exp->width, (long long)exp->height,
                exp->channels, gip_dtype_name(exp->dtype));
        return false;
    }
    bool exact = got->dtype != GIP_F32;
    int64_t bad = 0;
    double worst = 0;
    for (int64_t y = 0; y < got->height; y++)
        for (int64_t x = 0; x < got->width; x++)
            for (int32_t c = 0; c < got->channels; c++) {
                double g = gt_get(got, x, y, c), e = gt_get(exp, x, y, c);
                double err = fabs(g - e);
                bool ok = exact ? g == e : (g == e || err <= atol + rtol * fabs(e));
                if (!exact && isnan(g) != isnan(e))
                    ok = false;
                else if (!exact && isnan(g) && isnan(e))
                    ok = true;
                if (!ok) {
                    if (bad == 0)
                        fprintf(stderr,
                                "FAIL %s: first mismatch at x=%lld y=%lld c=%d: got %.9g, "
                                "expected %.9g (%lldx%lldx%d %s)\n",
                                label, (long long)x, (long long)y, c, g, e, (long long)got->width,
                                (long long)got->height, got->channels, gip_dtype_name(got->dtype));
                    bad++;
                    if (err > worst)
                        worst = err;
                }
            }
    if (bad) {
        gt_failures++;
        fprintf(stderr, "FAIL %s: %lld mismatching elements, largest difference %.9g\n", label,
                (long long)bad, worst);
        return false;
    }
    return true;
}

/* A device image with exactly the host view's stride (so that padded and odd strides are tested
 * on the GPU too), backed by one tight byte buffer kept in `raw`. */
static gip_status device_like(gip_context *ctx, const gip_image *host, gip_image *raw,
                              gip_image *dev)
{
    gip_status st = gip_image_alloc(ctx, raw, host->stride, host->height, 1, GIP_U8, GIP_MEM_CUDA,
                                    GIP_ALLOC_TIGHT);
    if (st)
        return st;
    *dev = *host;
    dev->data = raw->data;
    dev->memory = GIP_MEM_CUDA;
    dev->device = gip_context_device(ctx);
    return GIP_OK;
}

gip_status gt_run_unary(gip_context *ctx, gt_unary_fn fn, const gip_image *src, gip_image *dst,
                        const void *params, uint8_t poison)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA) {
        gt_poison(dst, poison);
        return fn(ctx, src, dst, params);
    }
    gip_image rs = {0}, rd = {0}, ds, dd;
    gip_status st = device_like(ctx, src, &rs, &ds);
    if (st)
        return st;
    if ((st = device_like(ctx, dst, &rd, &dd)))
        goto out_free_src;
    /* The whole destination buffer, padding included, starts as the host's: poisoned pixels and
     * 0xA5 padding, so that gt_padding_intact() also checks what the GPU left between rows. */
    gt_poison(dst, poison);
    gip_image hraw = rd;
    hraw.data = dst->data;
    hraw.memory = GIP_MEM_HOST;
    hraw.device = 0;
    hraw.width = dst->stride, hraw.stride = dst->stride;
    if ((st = gip_upload(ctx, src, &ds)) || (st = gip_upload(ctx, &hraw, &rd)))
        goto out_free_dst;
    gip_status op = fn(ctx, &ds, &dd, params);
    if (op) {
        st = op;
        goto out_free_dst;
    }
    st = gip_download(ctx, &rd, &hraw);
out_free_dst:
    gip_image_free(ctx, &rd);
out_free_src:
    gip_image_free(ctx, &rs);
    return st;
}

/* gt_run_op's call: the registry's arguments and the extra inputs, uploaded when src is. */
typedef struct op_call {
    const gip_args *args;
    const gip_image *const *inputs;
    int32_t n;
} op_call;

static gip_status run_op_call(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const void *params)
{
    const op_call *c = params;
    if (src->memory != GIP_MEM_CUDA)
        return gip_op_apply_inputs(ctx, c->args, src, c->inputs, c->n, dst);
    gip_image raw[8] = {{0}}, dev[8];
    const gip_image *use[8] = {NULL};
    gip_status st = c->n > 8 ? GIP_ERR_INVALID_ARGUMENT : GIP_OK;
    int32_t up = 0;
    for (; !st && up < c->n; up++) {
        if (!c->inputs[up])
            continue;
        if ((st = device_like(ctx, c->inputs[up], &raw[up], &dev[up])))
            break;
        st = gip_upload(ctx, c->inputs[up], &dev[up]);
        use[up] = &dev[up];
    }
    if (!st)
        st = gip_op_apply_inputs(ctx, c->args, src, use, c->n, dst);
    gip_status ss = gip_context_sync(ctx); /* the inputs are freed below */
    for (int32_t k = 0; k < up; k++)
        gip_image_free(ctx, &raw[k]);
    return st ? st : ss;
}

gip_status gt_run_op(gip_context *ctx, const gip_args *args, const gip_image *src,
                     const gip_image *const *inputs, int32_t n, gip_image *dst, uint8_t poison)
{
    op_call c = {args, inputs, n};
    return gt_run_unary(ctx, run_op_call, src, dst, &c, poison);
}

gip_args *gt_example_args(const gip_op *op)
{
    gip_args *a = NULL;
    if (!GT_OK(gip_args_create(op, &a)))
        return NULL;
    for (int32_t k = 0; k < op->nparams; k++) {
        const gip_param *p = &op->params[k];
        GT_CHECK(!(p->flags & GIP_PARAM_REQUIRED) || p->example,
                 "%s.%s is required but has no example", op->name, p->name);
        if (p->example)
            GT_OK(gip_args_set_text(a, p->name, p->example));
    }
    return a;
}

int32_t gt_make_inputs(const gip_op *op, const gip_image *src, uint64_t seed, gip_image *in)
{
    for (int32_t k = 0; k < op->ninputs; k++) {
        const gip_input *d = &op->inputs[k];
        gip_dtype dt = src->dtype;
        int32_t ch = src->channels;
        if (!(d->flags & GIP_INPUT_SAME_TYPE)) {
            if (d->dtypes)
                for (dt = GIP_C32; !(d->dtypes & GIP_DTYPE_BIT(dt)); dt = (gip_dtype)(dt - 1))
                    ;
            if (d->channels && !(d->channels & GIP_CHANNELS_BIT(ch)))
                for (ch = 1; !(d->channels & GIP_CHANNELS_BIT(ch)); ch++)
                    ;
        }
        gt_alloc(&in[k], src->width, src->height, ch, dt, 0);
        gt_fill_random(&in[k], seed + (uint64_t)k * 17, 0, dt == GIP_F32 ? 1.0f : 0);
    }
    return op->ninputs;
}

void *gt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    void *p = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc(n ? (size_t)n : 1)) && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return p;
}
