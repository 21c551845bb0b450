/* SPDX-License-Identifier: MIT */
/* The batch loader (gip_loader_*) on JPEGs made here: eval, train (whole-image crop) and
 * letterbox outputs against a double-precision reference of crop + antialiased bilinear resize
 * within 1 level of u8; normalisation, dtypes and layouts against the u8 output; flips and
 * brightness jitter by their definitions; the same batches for any thread count and prefetch
 * depth, and on CUDA the same as on the CPU; shards covering every file once per epoch (padded by
 * wrapping); epochs and reshuffling; missing and corrupt files, and bad arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/loader_internal.h"
#include "testing.h"

static char dir[64];
static const int64_t sizes[][2] = {{500, 375}, {375, 500}, {301, 217}, {96, 96},
                                   {260, 259}, {640, 427}, {333, 500}};
#define NFILES 13
static char *paths[NFILES];
static void *bufs[NFILES];
static size_t buf_sizes[NFILES];
static gip_image decoded[NFILES]; /* what the loader decodes: RGB, orientation ignored */

static gip_context *cpu_ctx;

/* A smooth colour picture with some texture, so that resizing has something to average. */
static void make_image(gip_image *img, int64_t w, int64_t h, uint64_t seed)
{
    gip_image_alloc(NULL, img, w, h, 3, GIP_U8, GIP_MEM_HOST, 0);
    uint64_t st = seed;
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            uint8_t *p = gip_image_pixel(img, x, y);
            p[0] = (uint8_t)(127 + 120 * sin(0.031 * x + 0.017 * y + seed));
            p[1] = (uint8_t)(127 + 120 * cos(0.023 * y - 0.011 * x));
            p[2] = (uint8_t)((x * 7 + y * 3) % 256 / 2 + (gt_rand_u64(&st) & 63));
        }
}

static bool make_files(void)
{
    snprintf(dir, sizeof dir, "/tmp/gip-loader-XXXXXX");
    if (!GT_CHECK(mkdtemp(dir) != NULL, "mkdtemp"))
        return false;
    for (int i = 0; i < NFILES; i++) {
        const int64_t *s = sizes[i % (sizeof sizes / sizeof sizes[0])];
        gip_image img;
        make_image(&img, s[0], s[1], (uint64_t)i + 1);
        paths[i] = malloc(128);
        snprintf(paths[i], 128, "%s/img%02d.jpg", dir, i);
        gip_save_params sp = {0};
        sp.format = GIP_FORMAT_JPEG;
        sp.quality = 90;
        if (!GT_OK(gip_image_save(paths[i], &img, &sp)) ||
            !GT_OK(gip_image_encode(&img, &sp, &bufs[i], &buf_sizes[i])))
            return false;
        gip_image_free(NULL, &img);
        gip_load_params lp = {0};
        lp.mode = GIP_LOAD_COLOR;
        lp.ignore_orientation = 1;
        if (!GT_OK(gip_image_decode(bufs[i], buf_sizes[i], &lp, &decoded[i])))
            return false;
    }
    return true;
}

static void remove_files(void)
{
    for (int i = 0; i < NFILES; i++) {
        if (paths[i])
            unlink(paths[i]);
        free(paths[i]);
        gip_free(bufs[i]);
        gip_image_free(NULL, &decoded[i]);
    }
    rmdir(dir);
}

/* ---- the reference: antialiased bilinear (Pillow's triangle, widened when shrinking) ----------
 */

/* Weights of output pixels 0..dn-1 of an axis of sn input pixels from a crop starting at `off`
 * (relative), in double. */
static double ref_weight(int64_t sn, int64_t dn, int64_t o, int64_t i)
{
    const double scale = (double)sn / (double)dn, fs = scale > 1 ? scale : 1;
    const double center = (o + 0.5) * scale;
    const int64_t lo = (int64_t)fmax(floor(center - fs + 0.5), 0);
    const int64_t hi = (int64_t)fmin(floor(center + fs + 0.5), (double)sn);
    if (i < lo || i >= hi)
        return 0;
    double sum = 0, wi = 0;
    for (int64_t k = lo; k < hi; k++) {
        double t = fabs((k - center + 0.5) / fs);
        double w = t < 1 ? 1 - t : 0;
        sum += w;
        if (k == i)
            wi = w;
    }
    return sum > 0 ? wi / sum : 0;
}

/* src's rectangle (x, y, w, h) resized to dw x dh, in double: out[(yy * dw + xx) * 3 + c]. */
static double *ref_resize(const gip_image *src, int64_t x0, int64_t y0, int64_t w, int64_t h,
                          int64_t dw, int64_t dh)
{
    double *tmp = calloc((size_t)(dw * h * 3), sizeof(double));
    double *out = calloc((size_t)(dw * dh * 3), sizeof(double));
    for (int64_t xx = 0; xx < dw; xx++) {
        const double scale = (double)w / (double)dw, fs = scale > 1 ? scale : 1;
        const double center = (xx + 0.5) * scale;
        const int64_t lo = (int64_t)fmax(floor(center - fs + 0.5), 0);
        const int64_t hi = (int64_t)fmin(floor(center + fs + 0.5), (double)w);
        for (int64_t i = lo; i < hi; i++) {
            const double wt = ref_weight(w, dw, xx, i);
            for (int64_t y = 0; y < h; y++) {
                const uint8_t *p = gip_image_pixel(src, x0 + i, y0 + y);
                for (int c = 0; c < 3; c++)
                    tmp[(y * dw + xx) * 3 + c] += wt * p[c];
            }
        }
    }
    for (int64_t yy = 0; yy < dh; yy++) {
        const double scale = (double)h / (double)dh, fs = scale > 1 ? scale : 1;
        const double center = (yy + 0.5) * scale;
        const int64_t lo = (int64_t)fmax(floor(center - fs + 0.5), 0);
        const int64_t hi = (int64_t)fmin(floor(center + fs + 0.5), (double)h);
        for (int64_t i = lo; i < hi; i++) {
            const double wt = ref_weight(h, dh, yy, i);
            for (int64_t xx = 0; xx < dw * 3; xx++)
                out[yy * dw * 3 + xx] += wt * tmp[i * dw * 3 + xx];
        }
    }
    free(tmp);
    return out;
}

/* ---- running a loader ---------------------------------------------------------------------- */

typedef struct epoch_out {
    int64_t n;        /* images */
    int64_t *indices; /* n */
    uint8_t *data;    /* n * img_bytes, on the host */
    int64_t img_bytes, batches;
    int64_t *batch_n; /* images per batch */
} epoch_out;

static void epoch_free(epoch_out *e)
{
    free(e->indices);
    free(e->data);
    free(e->batch_n);
    memset(e, 0, sizeof *e);
}

/* One epoch's batches, downloaded. */
static bool run_epoch(gip_context *ctx, gip_loader *l, epoch_out *e)
{
    memset(e, 0, sizeof *e);
    const int64_t nb = gip_loader_len(l);
    e->batch_n = calloc((size_t)nb + 1, sizeof *e->batch_n);
    for (;;) {
        gip_loader_batch b;
        if (!GT_OK(gip_loader_next(l, &b)))
            return false;
        if (b.n == 0)
            break;
        if (!GT_CHECK(e->batches < nb, "more batches than gip_loader_len() %lld", (long long)nb))
            return false;
        e->batch_n[e->batches++] = b.n;
        e->img_bytes = b.bytes / b.n;
        e->indices = realloc(e->indices, (size_t)(e->n + b.n) * sizeof *e->indices);
        e->data = realloc(e->data, (size_t)((e->n + b.n) * e->img_bytes));
        memcpy(e->indices + e->n, b.indices, (size_t)b.n * sizeof *e->indices);
        if (b.memory == GIP_MEM_CUDA) {
            gip_image dv, hv;
            GT_OK(gip_image_wrap(&dv, b.data, b.bytes, 1, 1, GIP_U8, 0, GIP_MEM_CUDA, b.device));
            GT_OK(gip_image_wrap(&hv, e->data + e->n * e->img_bytes, b.bytes, 1, 1, GIP_U8, 0,
                                 GIP_MEM_HOST, 0));
            GT_OK(gip_download(ctx, &dv, &hv));
        } else {
            memcpy(e->data + e->n * e->img_bytes, b.data, (size_t)b.bytes);
        }
        e->n += b.n;
        gip_loader_batch_free(l, &b);
    }
    GT_CHECK(e->batches == nb, "%lld batches, gip_loader_len() says %lld", (long long)e->batches,
             (long long)nb);
    return true;
}

static gip_loader_desc base_desc(int32_t size, int32_t batch)
{
    gip_loader_desc d;
    memset(&d, 0, sizeof d);
    d.files = (const char *const *)paths;
    d.n = NFILES;
    d.size = size;
    d.batch_size = batch;
    d.dtype = GIP_LOADER_U8;
    d.layout = GIP_LOADER_NHWC;
    d.threads = 2;
    return d;
}

/* Compares an NHWC u8 image with the reference, within 1 level; prints the first mismatch. */
static void compare_ref(const uint8_t *got, const double *ref, int64_t S, const char *label)
{
    double worst = 0;
    int64_t at = -1;
    for (int64_t i = 0; i < S * S * 3; i++) {
        double d = fabs(got[i] - ref[i]);
        if (d > worst) {
            worst = d;
            at = i;
        }
    }
    GT_CHECK(worst <= 1.0, "%s: differs by %.3f at x %lld y %lld c %lld (got %d, reference %.3f)",
             label, worst, (long long)(at / 3 % S), (long long)(at / 3 / S), (long long)(at % 3),
             at >= 0 ? got[at] : 0, at >= 0 ? ref[at] : 0.0);
}

static void eval_mode(gip_context *ctx)
{
    const int32_t S = 64;
    gip_loader_desc d = base_desc(S, 5);
    gip_loader *l = NULL;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)))
        return;
    GT_CHECK(gip_loader_len(l) == 3, "len %lld, expected 3", (long long)gip_loader_len(l));
    epoch_out e;
    if (run_epoch(ctx, l, &e)) {
        GT_CHECK(e.n == NFILES && e.batch_n[0] == 5 && e.batch_n[2] == 3, "batches 5, 5, 3");
        const int64_t R = S * 256 / 224;
        for (int64_t k = 0; k < e.n; k++) {
            GT_CHECK(e.indices[k] == k, "unshuffled order: position %lld holds %lld", (long long)k,
                     (long long)e.indices[k]);
            const gip_image *src = &decoded[e.indices[k]];
            const int64_t w = src->width, h = src->height;
            const int64_t rw = w <= h ? R : (int64_t)((double)R * w / h);
            const int64_t rh = w <= h ? (int64_t)((double)R * h / w) : R;
            double *full = ref_resize(src, 0, 0, w, h, rw, rh);
            const int64_t top = (int64_t)nearbyint((rh - S) / 2.0);
            const int64_t left = (int64_t)nearbyint((rw - S) / 2.0);
            double *crop = malloc((size_t)(S * S * 3) * sizeof *crop);
            for (int64_t y = 0; y < S; y++)
                memcpy(crop + y * S * 3, full + ((top + y) * rw + left) * 3,
                       (size_t)(S * 3) * sizeof *crop);
            char label[96];
            snprintf(label, sizeof label, "eval %lldx%lld", (long long)w, (long long)h);
            compare_ref(e.data + k * e.img_bytes, crop, S, label);
            free(full);
            free(crop);
        }
        epoch_free(&e);
    }
    gip_loader_destroy(l);

    /* memory buffers give what the files give */
    gip_loader_desc dm = base_desc(S, 4);
    dm.files = NULL;
    dm.buffers = (const void *const *)bufs;
    dm.buffer_sizes = buf_sizes;
    epoch_out e2, e3;
    if (GT_OK(gip_loader_create(ctx, &dm, &l)) && run_epoch(ctx, l, &e2)) {
        gip_loader_destroy(l);
        gip_loader_desc df = base_desc(S, 4);
        if (GT_OK(gip_loader_create(ctx, &df, &l)) && run_epoch(ctx, l, &e3)) {
            GT_CHECK(e2.n == e3.n && !memcmp(e2.data, e3.data, (size_t)(e2.n * e2.img_bytes)),
                     "buffers and files give different batches");
            epoch_free(&e3);
        }
        epoch_free(&e2);
    }
    gip_loader_destroy(l);
}

/* Train with scale (1, 1) and the image's own ratio takes the whole image (the first try). */
static void train_whole(gip_context *ctx)
{
    const int32_t S = 48;
    for (int i = 0; i < 3; i++) {
        gip_loader_desc d = base_desc(S, 1);
        d.n = 1;
        d.files = (const char *const *)&paths[i];
        d.mode = GIP_LOADER_TRAIN;
        d.scale[0] = d.scale[1] = 1;
        d.ratio[0] = d.ratio[1] = (double)decoded[i].width / (double)decoded[i].height;
        gip_loader *l = NULL;
        epoch_out e;
        if (!GT_OK(gip_loader_create(ctx, &d, &l)))
            continue;
        if (run_epoch(ctx, l, &e)) {
            double *ref = ref_resize(&decoded[i], 0, 0, decoded[i].width, decoded[i].height, S, S);
            compare_ref(e.data, ref, S, "train whole image");
            free(ref);
            epoch_free(&e);
        }
        gip_loader_destroy(l);
    }
}

static void letterbox(gip_context *ctx)
{
    const int32_t S = 40;
    gip_loader_desc d = base_desc(S, 3);
    d.mode = GIP_LOADER_LETTERBOX;
    d.fill = 114;
    gip_loader *l = NULL;
    epoch_out e;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)))
        return;
    if (run_epoch(ctx, l, &e)) {
        for (int64_t k = 0; k < e.n; k++) {
            const gip_image *src = &decoded[e.indices[k]];
            const double sc = fmin((double)S / src->width, (double)S / src->height);
            const int64_t nw = (int64_t)nearbyint(src->width * sc);
            const int64_t nh = (int64_t)nearbyint(src->height * sc);
            const int64_t ox = (S - nw) / 2, oy = (S - nh) / 2;
            double *in = ref_resize(src, 0, 0, src->width, src->height, nw, nh);
            double *ref = malloc((size_t)(S * S * 3) * sizeof *ref);
            for (int64_t i = 0; i < S * S * 3; i++)
                ref[i] = 114;
            for (int64_t y = 0; y < nh; y++)
                memcpy(ref + ((oy + y) * S + ox) * 3, in + y * nw * 3,
                       (size_t)(nw * 3) * sizeof *ref);
            compare_ref(e.data + k * e.img_bytes, ref, S, "letterbox");
            free(in);
            free(ref);
        }
        epoch_free(&e);
    }
    gip_loader_destroy(l);
}

static float half_to_float(uint16_t h)
{
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return (float)(s ? -v : v);
}

static float bf16_to_float(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Float outputs are (u8 / 255 - mean) / std of the u8 output, in each layout and dtype. */
static void normalise(gip_context *ctx)
{
    const int32_t S = 32;
    const double mean[3] = {0.485, 0.456, 0.406}, sd[3] = {0.229, 0.224, 0.225};
    gip_loader_desc d = base_desc(S, 4);
    d.mode = GIP_LOADER_TRAIN;
    d.hflip = 0.5;
    d.seed = 11;
    gip_loader *l = NULL;
    epoch_out ref;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)) || !run_epoch(ctx, l, &ref)) {
        gip_loader_destroy(l);
        return;
    }
    gip_loader_destroy(l);
    for (int dt = GIP_LOADER_F16; dt <= GIP_LOADER_F32; dt++)
        for (int lay = 0; lay < 2; lay++) {
            gip_loader_desc df = d;
            df.dtype = (gip_loader_dtype)dt;
            df.layout = (gip_loader_layout)lay;
            memcpy(df.mean, mean, sizeof mean);
            memcpy(df.std, sd, sizeof sd);
            epoch_out e;
            if (!GT_OK(gip_loader_create(ctx, &df, &l)) || !run_epoch(ctx, l, &e)) {
                gip_loader_destroy(l);
                continue;
            }
            int bad = 0;
            for (int64_t k = 0; k < e.n && !bad; k++)
                for (int64_t y = 0; y < S && !bad; y++)
                    for (int64_t x = 0; x < S && !bad; x++)
                        for (int c = 0; c < 3 && !bad; c++) {
                            const uint8_t u = ref.data[k * ref.img_bytes + (y * S + x) * 3 + c];
                            const double want = (u / 255.0 - mean[c]) / sd[c];
                            const int64_t o =
                                lay == GIP_LOADER_NCHW ? (c * S + y) * S + x : (y * S + x) * 3 + c;
                            const uint8_t *img = e.data + k * e.img_bytes;
                            double got, tol;
                            if (dt == GIP_LOADER_F32) {
                                got = ((const float *)img)[o];
                                tol = 4e-6;
                            } else if (dt == GIP_LOADER_F16) {
                                got = half_to_float(((const uint16_t *)img)[o]);
                                tol = fabs(want) * 0x1p-11 + 0x1p-24 + 4e-6;
                            } else {
                                got = bf16_to_float(((const uint16_t *)img)[o]);
                                tol = fabs(want) * 0x1p-8 + 4e-6;
                            }
                            if (fabs(got - want) > tol) {
                                GT_CHECK(false,
                                         "dtype %d layout %d image %lld x %lld y %lld c %d: got "
                                         "%.7f, expected %.7f",
                                         dt, lay, (long long)k, (long long)x, (long long)y, c, got,
                                         want);
                                bad = 1;
                            }
                        }
            GT_CHECK(e.n == ref.n && !memcmp(e.indices, ref.indices, (size_t)e.n * 8),
                     "indices differ between dtypes");
            epoch_free(&e);
            gip_loader_destroy(l);
        }
    epoch_free(&ref);
}

/* hflip 1 mirrors what hflip 0 gives; brightness jitter is min(255, floor(p * f)) for one f per
 * image. */
static void flip_and_jitter(gip_context *ctx)
{
    const int32_t S = 32;
    gip_loader_desc d = base_desc(S, 6);
    d.mode = GIP_LOADER_TRAIN;
    d.seed = 3;
    gip_loader *l = NULL;
    epoch_out a, b, c;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)) || !run_epoch(ctx, l, &a))
        goto out;
    gip_loader_destroy(l);
    l = NULL;
    d.hflip = 1;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)) || !run_epoch(ctx, l, &b))
        goto out_a;
    for (int64_t k = 0; k < a.n; k++)
        for (int64_t y = 0; y < S; y++)
            for (int64_t x = 0; x < S; x++)
                if (memcmp(a.data + k * a.img_bytes + (y * S + x) * 3,
                           b.data + k * b.img_bytes + (y * S + S - 1 - x) * 3, 3)) {
                    GT_CHECK(false, "hflip: image %lld x %lld y %lld is not the mirror",
                             (long long)k, (long long)x, (long long)y);
                    k = a.n;
                    y = S;
                    break;
                }
    gip_loader_destroy(l);
    l = NULL;
    d.hflip = 0;
    d.brightness = 0.4;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)) || !run_epoch(ctx, l, &c))
        goto out_b;
    int changed = 0;
    for (int64_t k = 0; k < a.n; k++) {
        double lo = 0.6, hi = 1.4;
        const uint8_t *p = a.data + k * a.img_bytes, *q = c.data + k * c.img_bytes;
        for (int64_t i = 0; i < S * S * 3; i++) {
            changed |= p[i] != q[i];
            if (p[i] == 0) {
                GT_CHECK(q[i] == 0, "brightness: 0 became %d", q[i]);
                continue;
            }
            lo = fmax(lo, q[i] / (double)p[i] - 1e-6);
            if (q[i] < 255)
                hi = fmin(hi, (q[i] + 1) / (double)p[i] + 1e-6);
        }
        GT_CHECK(lo <= hi, "brightness: image %lld is not floor(p * f) for any f in [0.6, 1.4]",
                 (long long)k);
    }
    GT_CHECK(changed, "brightness jitter changed nothing");
    epoch_free(&c);
out_b:
    epoch_free(&b);
out_a:
    epoch_free(&a);
out:
    gip_loader_destroy(l);
}

/* Same seed: same batches for any thread count and prefetch depth (and on CUDA: as on the CPU);
 * another seed: another order. */
static void reproducible(gip_context *ctx)
{
    const int32_t S = 24;
    gip_loader_desc d = base_desc(S, 4);
    d.mode = GIP_LOADER_TRAIN;
    d.hflip = 0.5;
    d.brightness = d.contrast = d.saturation = 0.4;
    d.shuffle = 1;
    d.seed = 42;
    d.dtype = GIP_LOADER_F16;
    d.layout = GIP_LOADER_NCHW;
    d.mean[0] = 0.5;
    d.std[0] = 0.25;
    epoch_out ref;
    gip_loader *l = NULL;
    d.threads = 1;
    d.prefetch = 1;
    if (!GT_OK(gip_loader_create(cpu_ctx, &d, &l)) || !run_epoch(cpu_ctx, l, &ref)) {
        gip_loader_destroy(l);
        return;
    }
    gip_loader_destroy(l);
    const int32_t threads[] = {1, 3, 8}, depths[] = {1, 2, 5};
    for (int t = 0; t < 3; t++) {
        d.threads = threads[t];
        d.prefetch = depths[t];
        epoch_out e;
        if (!GT_OK(gip_loader_create(ctx, &d, &l)) || !run_epoch(ctx, l, &e)) {
            gip_loader_destroy(l);
            continue;
        }
        GT_CHECK(e.n == ref.n && !memcmp(e.indices, ref.indices, (size_t)e.n * 8) &&
                     !memcmp(e.data, ref.data, (size_t)(e.n * e.img_bytes)),
                 "threads %d prefetch %d: batches differ from 1 thread on the CPU", threads[t],
                 depths[t]);
        epoch_free(&e);
        gip_loader_destroy(l);
    }
    d.seed = 43;
    epoch_out o;
    if (GT_OK(gip_loader_create(ctx, &d, &l)) && run_epoch(ctx, l, &o)) {
        GT_CHECK(memcmp(o.indices, ref.indices, (size_t)o.n * 8) != 0,
                 "seeds 42 and 43 give the same order");
        epoch_free(&o);
    }
    gip_loader_destroy(l);
    epoch_free(&ref);
}

/* Every file once per epoch across the shards, the padding wrapping; reshuffled per epoch;
 * set_epoch reproduces an epoch. */
static void shards_and_epochs(gip_context *ctx)
{
    const int32_t world = 4;
    int count[NFILES] = {0};
    int64_t total = 0;
    for (int32_t r = 0; r < world; r++) {
        gip_loader_desc d = base_desc(8, 2);
        d.shuffle = 1;
        d.seed = 5;
        d.rank = r;
        d.world = world;
        gip_loader *l = NULL;
        epoch_out e;
        if (!GT_OK(gip_loader_create(ctx, &d, &l)))
            continue;
        GT_CHECK(gip_loader_samples(l) == 4, "rank %d: %lld samples, expected 4", (int)r,
                 (long long)gip_loader_samples(l));
        if (run_epoch(ctx, l, &e)) {
            for (int64_t k = 0; k < e.n; k++)
                count[e.indices[k]]++;
            total += e.n;
            epoch_free(&e);
        }
        gip_loader_destroy(l);
    }
    GT_CHECK(total == 16, "shards hold %lld files, expected 16 (13 padded)", (long long)total);
    int twice = 0;
    for (int i = 0; i < NFILES; i++) {
        GT_CHECK(count[i] >= 1 && count[i] <= 2, "file %d appears %d times", i, count[i]);
        twice += count[i] == 2;
    }
    GT_CHECK(twice == 3, "%d files padded, expected 3", twice);

    gip_loader_desc d = base_desc(8, 5);
    d.shuffle = 1;
    d.seed = 9;
    d.drop_last = 1;
    gip_loader *l = NULL;
    if (!GT_OK(gip_loader_create(ctx, &d, &l)))
        return;
    GT_CHECK(gip_loader_len(l) == 2, "drop_last: len %lld, expected 2",
             (long long)gip_loader_len(l));
    epoch_out e0, e1, again;
    if (run_epoch(ctx, l, &e0) && run_epoch(ctx, l, &e1)) {
        GT_CHECK(e0.n == 10 && e1.n == 10, "drop_last: %lld and %lld images, expected 10",
                 (long long)e0.n, (long long)e1.n);
        GT_CHECK(memcmp(e0.indices, e1.indices, 80) != 0, "epochs 0 and 1 have the same order");
        /* set_epoch(0) mid-epoch restarts epoch 0 */
        gip_loader_batch b;
        GT_OK(gip_loader_next(l, &b));
        gip_loader_batch_free(l, &b);
        GT_OK(gip_loader_set_epoch(l, 0));
        if (run_epoch(ctx, l, &again)) {
            GT_CHECK(!memcmp(again.indices, e0.indices, 80) &&
                         !memcmp(again.data, e0.data, (size_t)(10 * e0.img_bytes)),
                     "set_epoch(0) does not reproduce epoch 0");
            epoch_free(&again);
        }
        epoch_free(&e0);
        epoch_free(&e1);
    }
    GT_STATUS(gip_loader_set_epoch(l, -1), GIP_ERR_INVALID_ARGUMENT);
    gip_loader_destroy(l);
}

static void errors(gip_context *ctx)
{
    gip_loader *l = (gip_loader *)1;
    gip_loader_desc d = base_desc(16, 4);
    GT_STATUS(gip_loader_create(ctx, NULL, &l), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(l == NULL, "out not cleared on failure");
    GT_STATUS(gip_loader_create(NULL, &d, &l), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_loader_create(ctx, &d, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_loader_desc b;
#define BAD(stmt)                                                                                  \
    do {                                                                                           \
        b = d;                                                                                     \
        stmt;                                                                                      \
        GT_STATUS(gip_loader_create(ctx, &b, &l), GIP_ERR_INVALID_ARGUMENT);                       \
        GT_CHECK(strlen(gip_last_error()) > 20, "%s: no message", #stmt);                          \
    } while (0)
    BAD(b.n = 0);
    BAD(b.files = NULL);
    BAD(b.batch_size = -1);
    BAD(b.batch_size = 70000);
    BAD(b.size = -3);
    BAD(b.mode = 7);
    BAD(b.resize = 10);
    BAD((b.scale[0] = 0.5, b.scale[1] = 0.2));
    BAD((b.ratio[0] = -1, b.ratio[1] = 2));
    BAD(b.hflip = 1.5);
    BAD(b.brightness = -0.1);
    BAD(b.contrast = NAN);
    BAD(b.mean[1] = 0.5); /* with U8 */
    BAD((b.dtype = GIP_LOADER_F32, b.std[2] = -1));
    BAD(b.layout = 2);
    BAD(b.dtype = 9);
    BAD((b.rank = 2, b.world = 2));
    BAD(b.prefetch = 65);
    BAD(b.threads = -1);
    BAD(b.on_error = 3);
    BAD(b.decoder = 2);
#undef BAD
    const char *withnull[2] = {paths[0], NULL};
    b = d;
    b.files = withnull;
    b.n = 2;
    GT_STATUS(gip_loader_create(ctx, &b, &l), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_loader_next(NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_loader_destroy(NULL);
    gip_loader_batch_free(NULL, NULL);

    /* a missing file and a corrupt one among good ones */
    char missing[128], corrupt[128];
    snprintf(missing, sizeof missing, "%s/missing.jpg", dir);
    snprintf(corrupt, sizeof corrupt, "%s/corrupt.jpg", dir);
    FILE *f = fopen(corrupt, "wb");
    if (f) {
        fwrite(bufs[0], 1, buf_sizes[0] / 3, f); /* truncated */
        fclose(f);
    }
    const char *list[6] = {paths[0], paths[1], missing, paths[2], corrupt, paths[3]};
    for (int mode = 0; mode < 2; mode++) {
        b = d;
        b.files = list;
        b.n = 6;
        b.batch_size = 3;
        b.on_error = mode ? GIP_LOADER_SKIP : GIP_LOADER_FAIL;
        b.prefetch = 1; /* each slot is reused before the next batch: messages must survive */
        if (!GT_OK(gip_loader_create(ctx, &b, &l)))
            continue;
        gip_loader_batch bt;
        if (mode == 0) {
            GT_STATUS(gip_loader_next(l, &bt), GIP_ERR_NOT_FOUND);
            GT_CHECK(strstr(gip_last_error(), "missing.jpg") != NULL, "message '%s' lacks the path",
                     gip_last_error());
            GT_CHECK(bt.data == NULL && bt.n == 0, "a failed batch is not zeroed");
            gip_status st = gip_loader_next(l, &bt);
            GT_CHECK(st == GIP_ERR_CORRUPT || st == GIP_ERR_UNKNOWN_FORMAT,
                     "truncated JPEG: status %s", gip_status_name(st));
            GT_CHECK(strstr(gip_last_error(), "corrupt.jpg") != NULL, "message '%s' lacks the path",
                     gip_last_error());
            GT_OK(gip_loader_next(l, &bt));
            GT_CHECK(bt.n == 0, "end of epoch expected after two failed batches");
        } else {
            if (GT_OK(gip_loader_next(l, &bt))) {
                GT_CHECK(bt.n == 2 && bt.skipped == 1 && bt.indices[0] == 0 && bt.indices[1] == 1,
                         "skip: batch of %lld (skipped %lld), expected files 0 and 1",
                         (long long)bt.n, (long long)bt.skipped);
                GT_CHECK(strstr(bt.message, "missing.jpg") != NULL, "skip message '%s'",
                         bt.message);
                gip_loader_batch_free(l, &bt);
            }
            if (GT_OK(gip_loader_next(l, &bt))) {
                GT_CHECK(bt.n == 2 && bt.skipped == 1 && bt.indices[0] == 3 && bt.indices[1] == 5,
                         "skip: second batch of %lld, expected files 3 and 5", (long long)bt.n);
                GT_CHECK(strstr(bt.message, "corrupt.jpg") != NULL, "skip message '%s'",
                         bt.message);
                gip_loader_batch_free(l, &bt);
            }
        }
        gip_loader_stats s;
        GT_OK(gip_loader_get_stats(l, &s));
        GT_CHECK(s.decode > 0 && s.read > 0, "stats: no read or decode time");
        gip_loader_destroy(l);
    }
    /* a batch of failed files only is passed over, its count carried to the next batch */
    const char *bad2[5] = {missing, corrupt, paths[4], missing, corrupt};
    b = d;
    b.files = bad2;
    b.n = 5;
    b.batch_size = 2;
    b.prefetch = 1;
    b.on_error = GIP_LOADER_SKIP;
    if (GT_OK(gip_loader_create(ctx, &b, &l))) {
        gip_loader_batch bt;
        if (GT_OK(gip_loader_next(l, &bt))) {
            GT_CHECK(bt.n == 1 && bt.indices[0] == 2 && bt.skipped == 3,
                     "all-skipped batch: got %lld images (skipped %lld), expected file 2 with 3 "
                     "skipped",
                     (long long)bt.n, (long long)bt.skipped);
            GT_CHECK(strstr(bt.message, "missing.jpg") != NULL, "carried message '%s'", bt.message);
            gip_loader_batch_free(l, &bt);
        }
        if (GT_OK(gip_loader_next(l, &bt)))
            GT_CHECK(bt.n == 0 && bt.skipped == 1 && bt.data == NULL,
                     "end of epoch after a skipped last batch: n %lld skipped %lld",
                     (long long)bt.n, (long long)bt.skipped);
        if (GT_OK(gip_loader_next(l, &bt))) { /* epoch 1 begins: the same again */
            GT_CHECK(bt.n == 1 && bt.epoch == 1, "epoch 1: n %lld epoch %lld", (long long)bt.n,
                     (long long)bt.epoch);
            gip_loader_batch_free(l, &bt);
        }
        gip_loader_destroy(l);
    }
    unlink(corrupt);

    /* destroy while the workers are busy, and with a batch still held */
    b = d;
    b.batch_size = 2;
    b.prefetch = 4;
    if (GT_OK(gip_loader_create(ctx, &b, &l))) {
        gip_loader_batch bt;
        GT_OK(gip_loader_next(l, &bt));
        gip_loader_batch_free(l, &bt);
        gip_loader_destroy(l);
    }
}

/* The float -> half / bfloat16 conversions (the CPU pass's; CUDA's __float2half_rn and
 * __float2bfloat16_rn round the same way) against the compiler's _Float16 and the nearest of the
 * two neighbouring bfloat16 values, over random bit patterns and every normalised u8 level. */
static void conversions(void)
{
    uint64_t st = 99;
    int bad16 = 0, badbf = 0;
    for (int i = 0; i < 2000000; i++) {
        uint32_t bits = (uint32_t)gt_rand_u64(&st);
        if (i < 4096) { /* values near the ones a normalised pixel takes */
            float v = (float)(i % 256) / 255.0f / 0.226f - 2.1f * (float)(i / 256 % 3);
            memcpy(&bits, &v, 4);
        }
        float f;
        memcpy(&f, &bits, 4);
        if (isnan(f))
            continue;
        _Float16 h = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &h, 2);
        if (gip__loader_f16(f) != hb && bad16++ < 3)
            GT_CHECK(false, "f16(%a): 0x%04x, expected 0x%04x", f, gip__loader_f16(f), hb);
        /* bfloat16: the nearer of the truncation and the next value up, ties to the even one */
        const uint32_t lo = bits & 0xffff0000u, hi = lo + 0x10000u;
        float flo, fhi;
        memcpy(&flo, &lo, 4);
        memcpy(&fhi, &hi, 4);
        const double dl = fabs((double)f - flo),
                     dh = isinf(fhi) && !isinf(f) ? INFINITY : fabs((double)f - fhi);
        uint16_t want =
            (uint16_t)((dl < dh || (dl == dh && !((lo >> 16) & 1))) ? lo >> 16 : hi >> 16);
        if ((bits & 0x7f800000u) == 0x7f800000u) /* inf */
            want = (uint16_t)(bits >> 16);
        else if (isinf(fhi) && dh == INFINITY && dl >= ldexp(1.0, 127 - 8)) /* rounds up to inf */
            want = (uint16_t)(hi >> 16);
        if (gip__loader_bf16(f) != want && badbf++ < 3)
            GT_CHECK(false, "bf16(%a): 0x%04x, expected 0x%04x", f, gip__loader_bf16(f), want);
    }
    GT_CHECK(bad16 == 0 && badbf == 0, "%d half and %d bfloat16 conversions differ", bad16, badbf);
}

/* The nvJPEG decoder (CUDA contexts): refused on a CPU context and with colour jitter; on CUDA its
 * crops are the CPU decoder's within nvJPEG's IDCT difference (tests/test_nvjpeg.c's bounds),
 * the same for any thread count, and a missing file is named. */
static void nvjpeg_decoder(gip_context *ctx)
{
    gip_loader_desc d = base_desc(48, 4);
    d.decoder = GIP_LOADER_DECODE_NVJPEG;
    gip_loader *l = NULL;
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA) {
        GT_STATUS(gip_loader_create(ctx, &d, &l), GIP_ERR_INVALID_ARGUMENT);
        GT_CHECK(strstr(gip_last_error(), "CUDA") != NULL, "message '%s'", gip_last_error());
        return;
    }
    gip_loader_desc j = d;
    j.brightness = 0.2;
    GT_STATUS(gip_loader_create(ctx, &j, &l), GIP_ERR_UNSUPPORTED);
    if (!gip_nvjpeg_backend()[0]) {
        printf("nvjpeg_decoder: skipped (gip was built without nvJPEG or it is unusable)\n");
        return;
    }
    for (int mode = 0; mode < 3; mode++) {
        gip_loader_desc dc = base_desc(48, 4), dn;
        dc.mode = (gip_loader_mode)mode;
        dc.hflip = 0.5;
        dc.seed = 17;
        dn = dc;
        dn.decoder = GIP_LOADER_DECODE_NVJPEG;
        epoch_out ec, en;
        if (!GT_OK(gip_loader_create(ctx, &dc, &l)) || !run_epoch(ctx, l, &ec)) {
            gip_loader_destroy(l);
            continue;
        }
        gip_loader_destroy(l);
        if (!GT_OK(gip_loader_create(ctx, &dn, &l)) || !run_epoch(ctx, l, &en)) {
            gip_loader_destroy(l);
            epoch_free(&ec);
            continue;
        }
        gip_loader_destroy(l);
        int maxd = 0;
        double sum = 0;
        for (int64_t i = 0; i < en.n * en.img_bytes; i++) {
            const int dd = abs((int)en.data[i] - (int)ec.data[i]);
            maxd = dd > maxd ? dd : maxd;
            sum += dd;
        }
        const double mean = sum / (double)(en.n * en.img_bytes);
        printf("nvjpeg decoder, mode %d: max %d, mean %.3f against the CPU decoder\n", mode, maxd,
               mean);
        GT_CHECK(en.n == ec.n && !memcmp(en.indices, ec.indices, (size_t)en.n * 8),
                 "mode %d: indices differ from the CPU decoder's", mode);
        GT_CHECK(maxd <= 48 && mean <= 1.5, "mode %d: max %d, mean %.3f from the CPU decoder", mode,
                 maxd, mean);
        /* reproducible for any thread count */
        dn.threads = 5;
        dn.prefetch = 3;
        epoch_out e5;
        if (GT_OK(gip_loader_create(ctx, &dn, &l)) && run_epoch(ctx, l, &e5)) {
            GT_CHECK(!memcmp(e5.data, en.data, (size_t)(en.n * en.img_bytes)),
                     "mode %d: 5 threads differ from 2", mode);
            epoch_free(&e5);
        }
        gip_loader_destroy(l);
        epoch_free(&ec);
        epoch_free(&en);
    }
    char missing[128];
    snprintf(missing, sizeof missing, "%s/missing.jpg", dir);
    const char *list[3] = {paths[0], missing, paths[1]};
    d.files = list;
    d.n = 3;
    if (GT_OK(gip_loader_create(ctx, &d, &l))) {
        gip_loader_batch bt;
        GT_STATUS(gip_loader_next(l, &bt), GIP_ERR_NOT_FOUND);
        GT_CHECK(strstr(gip_last_error(), "missing.jpg") != NULL, "message '%s'", gip_last_error());
        gip_loader_destroy(l);
    }
    d.on_error = GIP_LOADER_SKIP;
    if (GT_OK(gip_loader_create(ctx, &d, &l))) {
        gip_loader_batch bt;
        if (GT_OK(gip_loader_next(l, &bt))) {
            GT_CHECK(bt.n == 2 && bt.indices[1] == 2 && bt.skipped == 1, "nvjpeg skip: %lld images",
                     (long long)bt.n);
            gip_loader_batch_free(l, &bt);
        }
        gip_loader_destroy(l);
    }
}

/* From JPEG files the loader decodes only the region each crop reads: the batches equal those made
 * from PNG copies of the same decoded pixels (decoded whole), byte for byte, over two TRAIN epochs
 * and one EVAL pass. */
static void region_decode(gip_context *ctx)
{
    char *png[NFILES];
    bool ok = true;
    for (int i = 0; i < NFILES; i++) {
        png[i] = malloc(128);
        snprintf(png[i], 128, "%s/img%02d.png", dir, i);
        ok = ok && GT_OK(gip_image_save(png[i], &decoded[i], NULL));
    }
    for (int64_t ep = 0; ok && ep < 3; ep++) { /* epochs 0, 1: TRAIN; 2: EVAL */
        epoch_out e[2];
        bool got[2] = {false, false};
        for (int k = 0; k < 2; k++) {
            gip_loader_desc d = base_desc(40, 4);
            d.mode = ep < 2 ? GIP_LOADER_TRAIN : GIP_LOADER_EVAL;
            d.seed = 9;
            d.hflip = 0.5;
            if (k)
                d.files = (const char *const *)png;
            gip_loader *l = NULL;
            if (!GT_OK(gip_loader_create(ctx, &d, &l)))
                continue;
            if (GT_OK(gip_loader_set_epoch(l, ep)))
                got[k] = run_epoch(ctx, l, &e[k]);
            gip_loader_destroy(l);
        }
        if (got[0] && got[1])
            GT_CHECK(e[0].n == e[1].n && e[0].img_bytes == e[1].img_bytes &&
                         memcmp(e[0].data, e[1].data, (size_t)(e[0].n * e[0].img_bytes)) == 0 &&
                         memcmp(e[0].indices, e[1].indices, sizeof(int64_t) * (size_t)e[0].n) == 0,
                     "pass %lld: JPEG regions and whole PNG decodes give the same batches",
                     (long long)ep);
        for (int k = 0; k < 2; k++)
            if (got[k])
                epoch_free(&e[k]);
    }
    for (int i = 0; i < NFILES; i++) {
        unlink(png[i]);
        free(png[i]);
    }
}

static void body(gip_context *ctx)
{
    gip_context_desc cd = {0};
    cd.backend = GIP_BACKEND_CPU;
    if (!GT_OK(gip_context_create(&cd, &cpu_ctx)))
        return;
    conversions();
    if (make_files()) {
        if (gt_case())
            eval_mode(ctx);
        if (gt_case())
            train_whole(ctx);
        if (gt_case())
            region_decode(ctx);
        if (gt_case())
            letterbox(ctx);
        if (gt_case())
            normalise(ctx);
        if (gt_case())
            flip_and_jitter(ctx);
        if (gt_case())
            reproducible(ctx);
        if (gt_case())
            shards_and_epochs(ctx);
        if (gt_case())
            errors(ctx);
        if (gt_case())
            nvjpeg_decoder(ctx);
    }
    remove_files();
    gip_context_destroy(cpu_ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "loader", body);
}
