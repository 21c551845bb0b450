/* SPDX-License-Identifier: MIT */
/* Tests of pipelines: results equal to the same operations called one by one and to the unfused
 * chain, bit for bit; the parser's errors and positions; the pool, halos, custom steps, run_file
 * and a bad-input table. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gip/pipeline.h"
#include "pipeline/pipeline_steps.h"
#include "testing.h"

static gip_context_desc desc_of(gip_context *ctx)
{
    gip_context_desc d = {0};
    d.backend = gip_context_backend(ctx);
    d.device = d.backend == GIP_BACKEND_CUDA ? gip_context_device(ctx) : 0;
    return d;
}

static gip_pipeline *make(gip_context *ctx, const char *text, uint32_t flags)
{
    gip_context_desc d = desc_of(ctx);
    gip_pipeline *p = NULL;
    gip_parse_error err;
    if (!GT_OK(gip_pipeline_create(&d, &p)))
        return NULL;
    if (!GT_OK(gip_pipeline_parse(p, text, &err))) {
        printf("  parse '%s': at %d: %s\n", text, (int)err.position, err.message);
        gip_pipeline_free(p);
        return NULL;
    }
    GT_OK(gip_pipeline_set_flags(p, flags));
    return p;
}

/* Runs a pipeline on host images, through device views on CUDA (upload, run, download). */
static gip_status run_on_backend(gip_pipeline *p, const gip_image *src, gip_image *dst)
{
    gip_context *ctx = gip_pipeline_context(p);
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_pipeline_run(p, src, dst);
    gip_image ds = {0}, dd = {0};
    gip_status st;
    if (!(st = gip_image_alloc(ctx, &ds, src->width, src->height, src->channels, src->dtype,
                               GIP_MEM_CUDA, 0)) &&
        !(st = gip_image_alloc(ctx, &dd, dst->width, dst->height, dst->channels, dst->dtype,
                               GIP_MEM_CUDA, 0)) &&
        !(st = gip_upload(ctx, src, &ds)) && !(st = gip_image_fill_bytes(ctx, &dd, 0x5A)) &&
        !(st = gip_pipeline_run(p, &ds, &dd)) && !(st = gip_download(ctx, &dd, dst)))
        st = gip_context_sync(ctx);
    gip_image_free(ctx, &ds);
    gip_image_free(ctx, &dd);
    return st;
}

/* ---- the same operations one by one -------------------------------------------------------- */

typedef gip_status (*op_fn)(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *params);
typedef struct op {
    op_fn fn;
    const void *params;
    int32_t c;    /* output channels, 0: the input's */
    gip_dtype dt; /* output dtype, 0: the input's */
} op;

static gip_status f_gauss(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_gaussian_blur(c, s, d, p);
}
static gip_status f_sobel(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel(c, s, d, p);
}
static gip_status f_mag(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel_magnitude(c, s, d, p);
}
static gip_status f_invert(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_invert(c, s, d, p);
}
static gip_status f_gray(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_cvt_color(c, s, d, GIP_COLOR_RGB2GRAY);
}
static gip_status f_convert(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    const double *so = p;
    return gip_convert(c, s, d, so[0], so[1]);
}
static gip_status f_map(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_map(c, p, s, 1, NULL, 0, d);
}
static gip_status f_box(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    return gip_box_filter(c, s, d, p);
}
static gip_status f_stencil(gip_context *c, const gip_image *s, gip_image *d, const void *p)
{
    gip_stencil_params sp = {0};
    sp.radius = 1;
    return gip_stencil(c, p, s, d, &sp);
}

/* Calls the ops one after the other on the context's memory, the result downloaded into dst. */
static gip_status chain(gip_context *ctx, const gip_image *src, const op *ops, int n,
                        gip_image *dst)
{
    bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_memory mem = cuda ? GIP_MEM_CUDA : GIP_MEM_HOST;
    gip_image cur = {0}, next = {0};
    gip_status st =
        gip_image_alloc(ctx, &cur, src->width, src->height, src->channels, src->dtype, mem, 0);
    if (st || (st = gip_copy(ctx, src, &cur)))
        goto out;
    for (int i = 0; i < n && !st; i++) {
        int32_t c = ops[i].c ? ops[i].c : cur.channels;
        gip_dtype dt = ops[i].dt ? ops[i].dt : cur.dtype;
        if ((st = gip_image_alloc(ctx, &next, cur.width, cur.height, c, dt, mem, 0)))
            break;
        st = ops[i].fn(ctx, &cur, &next, ops[i].params);
        gip_image_free(ctx, &cur);
        cur = next;
        memset(&next, 0, sizeof next);
    }
    if (!st && !(st = gip_copy(ctx, &cur, dst)))
        st = gip_context_sync(ctx);
out:
    gip_image_free(ctx, &cur);
    gip_image_free(ctx, &next);
    return st;
}

typedef struct eq_case {
    const char *text;
    op ops[5];
    int nops;
    const char *plan; /* gip_pipeline_describe() for a u8 3-channel input */
} eq_case;

static void equal_to_one_by_one(gip_context *ctx)
{
    static const gip_gaussian_params g15 = {15, 15, 0, 0, {0}, 0};
    static const gip_gaussian_params g3 = {3, 3, 0, 0, {0}, 0};
    static const gip_sobel_params sx = {1, 0, 3, 1, 0, {0}};
    static const gip_sobel_params s3 = {0, 0, 3, 1, 0, {0}};
    static const gip_box_params b5 = {5, 5, 0, 0, 0, 0, {0}};
    static const double cv_half[2] = {0.5, 10}, cv_f32[2] = {1.0 / 255, 0};
    static const eq_case cases[] = {
        {"gaussian 15 | sobel dx=1 | invert",
         {{f_gauss, &g15, 0, 0}, {f_sobel, &sx, 0, GIP_U8}, {f_invert, NULL, 0, 0}},
         3,
         "gaussian | sobel | invert"},
        {"invert | convert u8 scale=0.5 offset=10 | map 'out = in * 1.5 + c * 7'",
         {{f_invert, NULL, 0, 0},
          {f_convert, cv_half, 0, 0},
          {f_map, "out = in * 1.5 + c * 7", 0, 0}},
         3,
         "lut[invert,convert,map]"},
        {"box 5 | invert | invert",
         {{f_box, &b5, 0, 0}, {f_invert, NULL, 0, 0}, {f_invert, NULL, 0, 0}},
         3,
         "box"},
        {"edges", {{f_gray, NULL, 1, 0}, {f_mag, &s3, 1, GIP_U8}}, 2, "edges"},
        {"gray | gaussian ksize=3 | convert f32 scale=0.00392156862745098 | map 'out = in * in'",
         {{f_gray, NULL, 1, 0},
          {f_gauss, &g3, 0, 0},
          {f_convert, cv_f32, 0, GIP_F32},
          {f_map, "out = in * in", 0, 0}},
         4,
         "gray | gaussian | lut[convert,map]"},
        {"map 'out = (x + y) % 256' | invert | stencil radius=1 'out = (in(-1,0) + in(1,0)) / 2'",
         {{f_map, "out = (x + y) % 256", 0, 0},
          {f_invert, NULL, 0, 0},
          {f_stencil, "out = (in(-1,0) + in(1,0)) / 2", 0, 0}},
         3,
         "map | invert | stencil"},
    };
    static const gt_size sizes[] = {{1, 1}, {13, 42}, {64, 48}, {301, 177}};
    uint64_t seed = 7;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const eq_case *cs = &cases[k];
        gip_pipeline *p = make(ctx, cs->text, 0), *pn = make(ctx, cs->text, GIP_PIPELINE_NO_FUSION);
        if (!p || !pn) {
            gip_pipeline_free(p);
            gip_pipeline_free(pn);
            continue;
        }
        char plan[256];
        GT_OK(gip_pipeline_describe(p, 3, GIP_U8, plan, sizeof plan));
        GT_CHECK(strcmp(plan, cs->plan) == 0, "'%s': plan '%s', expected '%s'", cs->text, plan,
                 cs->plan);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (!gt_case()) {
                seed++;
                continue;
            }
            gip_image src, got, unf, exp;
            int64_t w, h;
            int32_t c;
            gip_dtype dt;
            gt_alloc(&src, sizes[s].w, sizes[s].h, 3, GIP_U8, s == 1 ? 5 : 0);
            gt_fill_random(&src, seed++, 0, 0);
            if (!GT_OK(gip_pipeline_output_shape(p, src.width, src.height, 3, GIP_U8, &w, &h, &c,
                                                 &dt))) {
                gt_free(&src);
                continue;
            }
            gt_alloc(&got, w, h, c, dt, s == 2 ? 12 : 0);
            gt_alloc(&unf, w, h, c, dt, 0);
            gt_alloc(&exp, w, h, c, dt, 0);
            char label[200];
            snprintf(label, sizeof label, "'%s' %lldx%lld", cs->text, (long long)w, (long long)h);
            if (GT_OK(run_on_backend(p, &src, &got)) && GT_OK(run_on_backend(pn, &src, &unf)) &&
                GT_OK(chain(ctx, &src, cs->ops, cs->nops, &exp))) {
                gt_compare(&got, &exp, 0, 0, label);
                gt_compare(&unf, &exp, 0, 0, label);
                GT_CHECK(gt_padding_intact(&got), "%s: padding written", label);
            }
            gt_free(&src);
            gt_free(&got);
            gt_free(&unf);
            gt_free(&exp);
        }
        gip_pipeline_free(p);
        gip_pipeline_free(pn);
    }
}

/* Host images on a CUDA pipeline (the staged convenience path) give the device path's result. */
static void host_images(gip_context *ctx)
{
    gip_pipeline *p = make(ctx, "gaussian 5 | invert | convert u8 scale=2", 0);
    if (!p)
        return;
    gip_image src, a, b;
    gt_alloc(&src, 77, 31, 3, GIP_U8, 3);
    gt_alloc(&a, 77, 31, 3, GIP_U8, 0);
    gt_alloc(&b, 77, 31, 3, GIP_U8, 0);
    gt_fill_random(&src, 99, 0, 0);
    GT_OK(gip_pipeline_run(p, &src, &a));
    GT_OK(run_on_backend(p, &src, &b));
    gt_compare(&a, &b, 0, 0, "host images vs backend images");
    gt_free(&src);
    gt_free(&a);
    gt_free(&b);
    gip_pipeline_free(p);
}

/* ---- parser ------------------------------------------------------------------------------- */

static void parser_errors(gip_context *ctx)
{
    static const struct {
        const char *text;
        int32_t pos;
        const char *needle;
    } cases[] = {
        {"", 1, "empty"},
        {"   ", 4, "empty"},
        {"gaussian 15 |", 14, "after '|'"},
        {"gaussian 15 || invert", 14, "step name"},
        {"gausian 15", 1, "unknown step 'gausian'"},
        {"gaussian 14", 10, "odd"},
        {"gaussian", 1, "kernel size or a sigma"},
        {"gaussian 15 | sobel dx=a", 24, "dx"},
        {"gaussian 15 | sobel dx=0 dy=0", 24, "dx or dy"},
        {"sobel ksize=4", 13, "ksize must be one of 1, 3, 5, 7, scharr"},
        {"sobel dx=1 dy=1 ksize=scharr", 10, "scharr"},
        {"sobel foo=1", 7, "unknown argument 'foo'"},
        {"invert 3", 8, "only KEY=VALUE"},
        {"box 3 4", 7, "at most 1 positional"},
        {"box ksize=3 ksize=5", 13, "twice"},
        {"map 'out = in", 5, "unterminated quote"},
        {"gaussian 3 | box 'x'", 19, "ksize"},
        {"map", 1, "expected expr after map"},
        {"map 'out = in * k' k=abc", 22, "scalar 'k'"},
        {"convert f64", 9, "dtype"},
        {"convert", 1, "dtype"},
        {"filter '1,2;3'", 9, "row 2"},
        {"filter", 1, "kernel"},
        {"gaussian 3 border=mirror", 19, "border"},
        {"gaussian 3 border_value=1", 25, "border=constant"},
        {"invert max=", 12, "value after 'max='"},
        {"stencil radius=40 'out = in'", 16, "radius"},
        {"spectrum log1p=2", 16, "0 or 1"},
        {"invert$", 7, "space or '|'"},
        {"invert | 3", 10, "step name"},
    };
    gip_context_desc d = desc_of(ctx);
    gip_pipeline *p = NULL;
    if (!GT_OK(gip_pipeline_create(&d, &p)))
        return;
    GT_OK(gip_pipeline_parse(p, "invert", NULL));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gip_parse_error err;
        GT_STATUS(gip_pipeline_parse(p, cases[i].text, &err), GIP_ERR_INVALID_ARGUMENT);
        GT_CHECK(err.position == cases[i].pos, "'%s': position %d, expected %d (%s)", cases[i].text,
                 (int)err.position, (int)cases[i].pos, err.message);
        GT_CHECK(strstr(err.message, cases[i].needle) != NULL, "'%s': message '%s' lacks '%s'",
                 cases[i].text, err.message, cases[i].needle);
        char at[32];
        snprintf(at, sizeof at, "at %d:", (int)cases[i].pos);
        GT_CHECK(strstr(gip_last_error(), at) != NULL, "'%s': last error '%s' lacks '%s'",
                 cases[i].text, gip_last_error(), at);
        GT_CHECK(gip_pipeline_length(p) == 1, "'%s': a failed parse appended steps", cases[i].text);
    }
    /* Accepted forms. */
    static const char *const good[] = {
        "gaussian 15 | sobel dx=1 | invert",
        "gaussian ksize=15 sigma=2.6",
        "gaussian sigma=2",
        "gaussian 5x3 1.5,2",
        "box 3",
        "box ksize=3x5 normalize=0 border=replicate",
        "filter kernel='0,-1,0;-1,5,-1;0,-1,0' delta=1",
        "filter \"1/9,1/9,1/9;1/9,1/9,1/9;1/9,1/9,1/9\"",
        "edges ksize=scharr",
        "gray",
        "convert f32 scale=2 offset=-1",
        "map 'out = 255 - in'",
        "map expr='out = in * k' k=0.5",
        "stencil radius=1 'out = in(-1,0)' border=constant border_value=3",
        "spectrum log1p=1",
        "sobel dx=0 dy=1 ksize=5 dtype=f32|invert",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int32_t before = gip_pipeline_length(p);
        gip_parse_error err = {0};
        GT_CHECK(gip_pipeline_parse(p, good[i], &err) == GIP_OK, "'%s' refused: at %d: %s", good[i],
                 (int)err.position, err.message);
        GT_CHECK(gip_pipeline_length(p) > before, "'%s' appended nothing", good[i]);
    }
    GT_STATUS(gip_pipeline_parse(NULL, "invert", NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_parse(p, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_pipeline_free(p);
}

/* ---- pool, halo, custom steps ------------------------------------------------------------- */

static int released;
static gip_status add_one_shape(void *user, const gip_image *src, int64_t *w, int64_t *h,
                                int32_t *c, gip_dtype *dt)
{
    *w = src->width, *h = src->height, *c = src->channels, *dt = src->dtype;
    return src->dtype == GIP_U8 ? GIP_OK : GIP_ERR_UNSUPPORTED;
}
static gip_status add_one_run(void *user, gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_map(ctx, "out = in + 1", src, 1, NULL, 0, dst);
}
static void add_one_release(void *user)
{
    released++;
}

static void pool_halo_custom(gip_context *ctx)
{
    gip_pipeline *p = make(ctx, "gaussian 15 | box 3 | sobel | invert", 0);
    if (!p)
        return;
    int64_t hx, hy;
    GT_OK(gip_pipeline_halo(p, &hx, &hy));
    GT_CHECK(hx == 9 && hy == 9, "halo %lld,%lld, expected 9,9", (long long)hx, (long long)hy);
    gip_image src, dst;
    gt_alloc(&src, 40, 30, 3, GIP_U8, 0);
    gt_alloc(&dst, 40, 30, 3, GIP_U8, 0);
    gt_fill_random(&src, 5, 0, 0);
    GT_OK(run_on_backend(p, &src, &dst));
    int64_t n1 = gip__pipeline_pool_count(p);
    GT_OK(run_on_backend(p, &src, &dst));
    GT_CHECK(gip__pipeline_pool_count(p) == n1, "pool grew from %lld to %lld on the same shape",
             (long long)n1, (long long)gip__pipeline_pool_count(p));
    GT_CHECK(n1 <= 4, "pool holds %lld buffers for a 4-step chain (ping-pong needs 2, +2 staging)",
             (long long)n1);
    gt_free(&src);
    gt_free(&dst);
    gip_pipeline_free(p);

    p = make(ctx, "spectrum | invert", 0);
    if (p) {
        GT_OK(gip_pipeline_halo(p, &hx, &hy));
        GT_CHECK(hx == -1 && hy == -1, "spectrum halo %lld, expected -1", (long long)hx);
        gip_pipeline_free(p);
    }

    /* A custom step, shared by a clone, released once. */
    p = make(ctx, "invert", 0);
    if (!p)
        return;
    gip_pipeline_step cs = {"add_one", add_one_shape, add_one_run, add_one_release, NULL, 0};
    released = 0;
    GT_OK(gip_pipeline_add_step(p, &cs));
    GT_OK(gip_pipeline_parse(p, "invert", NULL));
    gip_pipeline *c = NULL;
    GT_OK(gip_pipeline_clone(p, NULL, &c));
    char plan[128];
    GT_OK(gip_pipeline_describe(p, 1, GIP_U8, plan, sizeof plan));
    GT_CHECK(strcmp(plan, "invert | add_one | invert") == 0, "custom plan '%s'", plan);
    gt_alloc(&src, 9, 4, 1, GIP_U8, 0);
    gt_alloc(&dst, 9, 4, 1, GIP_U8, 0);
    gt_fill_random(&src, 3, 0, 0);
    if (c && GT_OK(run_on_backend(c, &src, &dst))) {
        bool ok = true;
        for (int64_t y = 0; y < 4; y++)
            for (int64_t x = 0; x < 9; x++) {
                double v = gt_get(&src, x, y, 0);
                double want = 255 - (256 - v > 255 ? 255 : 256 - v);
                ok &= gt_get(&dst, x, y, 0) == want;
            }
        GT_CHECK(ok, "custom step result wrong");
    }
    gip_image f32src;
    gt_alloc(&f32src, 9, 4, 1, GIP_F32, 0);
    int64_t w, h;
    int32_t ch;
    gip_dtype dt;
    gip_clear_error();
    GT_STATUS(gip_pipeline_output_shape(p, 9, 4, 1, GIP_F32, &w, &h, &ch, &dt),
              GIP_ERR_UNSUPPORTED);
    /* The callback set no message: the pipeline's names the step and what it refused. */
    GT_CHECK(strstr(gip_last_error(), "add_one") && strstr(gip_last_error(), "f32"),
             "custom step refusal message: '%s'", gip_last_error());
    /* gip_pipeline_try: the same refusal from a trial run, the result's type where accepted. */
    GT_STATUS(gip_pipeline_try(p, 9, 4, 1, GIP_F32, &ch, &dt), GIP_ERR_UNSUPPORTED);
    if (GT_OK(gip_pipeline_try(p, 9000, 4, 3, GIP_U8, &ch, &dt)))
        GT_CHECK(ch == 3 && dt == GIP_U8, "gip_pipeline_try: %d-channel %s", (int)ch,
                 gip_dtype_name(dt));
    GT_STATUS(gip_pipeline_try(NULL, 9, 4, 3, GIP_U8, &ch, &dt), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_try(p, 9, 4, 3, GIP_U8, NULL, &dt), GIP_ERR_INVALID_ARGUMENT);
    gt_free(&f32src);
    gt_free(&src);
    gt_free(&dst);
    gip_pipeline_free(p);
    GT_CHECK(released == 0, "custom step released while a clone holds it");
    gip_pipeline_free(c);
    GT_CHECK(released == 1, "custom step released %d times, expected once", released);
}

/* ---- run_file and bad input --------------------------------------------------------------- */

static void run_file(gip_context *ctx)
{
    char dir[] = "/tmp/gip_pipeline_XXXXXX";
    if (!GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp failed"))
        return;
    char in[96], out[96];
    snprintf(in, sizeof in, "%s/in.png", dir);
    snprintf(out, sizeof out, "%s/out.png", dir);
    gip_image src, exp, got = {0};
    gt_alloc(&src, 50, 20, 3, GIP_U8, 0);
    gt_alloc(&exp, 50, 20, 1, GIP_U8, 0);
    gt_fill_random(&src, 11, 0, 0);
    gip_pipeline *p = make(ctx, "gaussian 5 | edges", 0);
    if (p && GT_OK(gip_image_save(in, &src, NULL)) &&
        GT_OK(gip_pipeline_run_file(p, in, out, NULL, NULL)) &&
        GT_OK(gip_pipeline_run(p, &src, &exp))) {
        gip_load_params lp = {GIP_LOAD_UNCHANGED, 0, 0, 0, 0};
        if (GT_OK(gip_image_load(out, &lp, &got)))
            gt_compare(&got, &exp, 0, 0, "run_file");
    }
    GT_STATUS(gip_pipeline_run_file(p, "/nonexistent/x.png", out, NULL, NULL), GIP_ERR_NOT_FOUND);
    GT_STATUS(gip_pipeline_run_file(NULL, in, out, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image_free(NULL, &got);
    gt_free(&src);
    gt_free(&exp);
    gip_pipeline_free(p);
    unlink(in);
    unlink(out);
    rmdir(dir);
}

static void bad_input(gip_context *ctx)
{
    gip_pipeline *p = make(ctx, "gaussian 3 | sobel dtype=s16", 0);
    if (!p)
        return;
    gip_image src, dst, wrong;
    gt_alloc(&src, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_S16, 0);
    gt_alloc(&wrong, 20, 10, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gt_poison(&wrong, 0x77);
    GT_STATUS(gip_pipeline_run(NULL, &src, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_run(p, NULL, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_run(p, &src, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_run(p, &src, &wrong), GIP_ERR_SHAPE_MISMATCH);
    gip_image bad = src;
    bad.width = 0;
    GT_STATUS(gip_pipeline_run(p, &bad, &dst), GIP_ERR_INVALID_ARGUMENT);
    gip_image alias = src;
    alias.dtype = GIP_S16;
    alias.width = 10;
    gip_image alias_src = src;
    alias_src.width = 10;
    alias_src.dtype = GIP_U8;
    /* dst over src's own bytes */
    GT_STATUS(gip_pipeline_run(p, &alias_src, &alias), GIP_ERR_ALIASING);
    /* s16 input, which the Gaussian does not declare: refused before any work, the message
     * names the step */
    gip_image f;
    gt_alloc(&f, 20, 10, 3, GIP_S16, 0);
    gt_fill_random(&f, 2, 0, 0);
    if (GT_STATUS(gip_pipeline_run(p, &f, &dst), GIP_ERR_UNSUPPORTED))
        GT_CHECK(strstr(gip_last_error(), "pipeline step 1 (gaussian)") != NULL,
                 "message does not name the step: %s", gip_last_error());
    /* dst untouched by every refusal */
    gip_image pois;
    gt_alloc(&pois, 20, 10, 3, GIP_S16, 0);
    gt_poison(&pois, 0x77);
    gt_compare(&dst, &pois, 0, 0, "dst after refusals");
    gip_image pois8;
    gt_alloc(&pois8, 20, 10, 3, GIP_U8, 0);
    gt_poison(&pois8, 0x77);
    gt_compare(&wrong, &pois8, 0, 0, "wrong-shape dst after refusal");
    gt_free(&pois8);
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_image dd = {0};
        gip_context *pc = gip_pipeline_context(p);
        if (GT_OK(gip_image_alloc(pc, &dd, 20, 10, 3, GIP_S16, GIP_MEM_CUDA, 0))) {
            GT_STATUS(gip_pipeline_run(p, &src, &dd), GIP_ERR_LOCATION_MISMATCH);
            gip_image_free(pc, &dd);
        }
    } else {
        gip_image dev = dst;
        dev.memory = GIP_MEM_CUDA;
        gip_image dsrc = src;
        dsrc.memory = GIP_MEM_CUDA;
        GT_STATUS(gip_pipeline_run(p, &dsrc, &dev), GIP_ERR_NO_DEVICE);
    }
    /* add_* refusals */
    gip_gaussian_params g = {4, 4, 0, 0, {0}, 0};
    GT_STATUS(gip_pipeline_add_gaussian(p, &g), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_add_gaussian(p, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_add_convert(p, GIP_C32, 1, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_add_map(p, NULL, NULL, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_add_sobel(p, NULL, GIP_U8), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_add_step(p, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_add_invert(NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_pipeline_set_flags(p, 0x80), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(gip_pipeline_length(p) == 2, "refused adds changed the pipeline (%d steps)",
             (int)gip_pipeline_length(p));
    GT_STATUS(gip_pipeline_create(NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_pipeline_free(NULL);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&wrong);
    gt_free(&f);
    gt_free(&pois);
    gip_pipeline_free(p);
}

/* An empty pipeline copies. */
static void empty(gip_context *ctx)
{
    gip_context_desc d = desc_of(ctx);
    gip_pipeline *p = NULL;
    if (!GT_OK(gip_pipeline_create(&d, &p)))
        return;
    gip_image src, dst;
    gt_alloc(&src, 7, 3, 4, GIP_U16, 2);
    gt_alloc(&dst, 7, 3, 4, GIP_U16, 0);
    gt_fill_random(&src, 4, 0, 0);
    if (GT_OK(run_on_backend(p, &src, &dst)))
        gt_compare(&dst, &src, 0, 0, "empty pipeline");
    gt_free(&src);
    gt_free(&dst);
    gip_pipeline_free(p);
}

static void body(gip_context *ctx)
{
    equal_to_one_by_one(ctx);
    /* One case each under GIP_TEST_SLICE. */
    void (*const sections[])(gip_context *) = {host_images, parser_errors, pool_halo_custom,
                                               run_file,    bad_input,     empty};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (gt_case())
            sections[i](ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "pipeline", body);
}
