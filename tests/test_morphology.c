/* SPDX-License-Identifier: MIT */
/* erode, dilate and morphology (gip_morphology) against a direct reference written here from
 * OpenCV's definitions (min/max over the element's taps through the border; an all-ones element
 * iterated n times as one n times as large; the compositions of cv2.morphologyEx), on every
 * dtype, channel count, awkward size, padded stride, border, op and element kind (rectangles
 * short and long enough for van Herk on both backends, ellipse, cross, diamond, custom kernels);
 * CUDA equal to it, hence to the CPU; structuring elements against cv2's rules; bad input refused
 * with outputs untouched; the registry entries and their halos. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};

/* ---- the reference ------------------------------------------------------------------------ */

typedef struct ref_elem {
    int32_t kw, kh, ax, ay;
    const uint8_t *mask; /* 1 in the element (hitmiss: 1 foreground, 2 background) */
} ref_elem;

static double dt_max(gip_dtype dt)
{
    return dt == GIP_U8 ? 255 : dt == GIP_U16 ? 65535 : dt == GIP_S16 ? 32767 : FLT_MAX;
}
static double dt_min(gip_dtype dt)
{
    return dt == GIP_S16 ? -32768 : dt == GIP_F32 ? -FLT_MAX : 0;
}

/* One pass by the taps of `which`. bv < 0 ... the border value as given (NAN: the default). */
static void ref_pass(const gip_image *src, gip_image *dst, const ref_elem *e, uint8_t which,
                     bool dilate, gip_border border, double bv)
{
    if (isnan(bv))
        bv = dilate ? dt_min(src->dtype) : dt_max(src->dtype);
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < src->channels; c++) {
                double acc = dilate ? -INFINITY : INFINITY;
                for (int32_t j = 0; j < e->kh; j++)
                    for (int32_t i = 0; i < e->kw; i++) {
                        if (e->mask[j * e->kw + i] != which)
                            continue;
                        int64_t sx = gip__border_index(x + i - e->ax, src->width, border);
                        int64_t sy = gip__border_index(y + j - e->ay, src->height, border);
                        double v = sx < 0 || sy < 0 ? bv : gt_get(src, sx, sy, c);
                        acc = dilate ? fmax(acc, v) : fmin(acc, v);
                    }
                gt_set(dst, x, y, c, acc);
            }
}

static void ref_copy(const gip_image *src, gip_image *dst)
{
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < src->channels; c++)
                gt_set(dst, x, y, c, gt_get(src, x, y, c));
}

static void ref_iter(const gip_image *src, gip_image *dst, const ref_elem *e, uint8_t which,
                     bool dilate, int32_t iterations, gip_border border, double bv)
{
    int32_t n = 0;
    for (int32_t i = 0; i < e->kw * e->kh; i++)
        n += e->mask[i] == which;
    if (e->kw * e->kh == 1) {
        ref_copy(src, dst);
        return;
    }
    if (n == e->kw * e->kh && iterations > 1) {
        ref_elem big = {e->kw + (iterations - 1) * (e->kw - 1),
                        e->kh + (iterations - 1) * (e->kh - 1), e->ax * iterations,
                        e->ay * iterations, NULL};
        uint8_t *m = malloc((size_t)big.kw * big.kh);
        memset(m, which, (size_t)big.kw * big.kh);
        big.mask = m;
        ref_pass(src, dst, &big, which, dilate, border, bv);
        free(m);
        return;
    }
    gip_image t;
    gt_alloc(&t, src->width, src->height, src->channels, src->dtype, 0);
    ref_copy(src, &t);
    for (int32_t k = 0; k < iterations; k++) {
        ref_pass(&t, dst, e, which, dilate, border, bv);
        ref_copy(dst, &t);
    }
    gt_free(&t);
}

static void ref_morph(const gip_image *src, gip_image *dst, const ref_elem *e, gip_morph_op op,
                      int32_t iterations, gip_border border, double bv)
{
    gip_image a, b;
    const int64_t w = src->width, h = src->height;
    const int32_t ch = src->channels;
    gt_alloc(&a, w, h, ch, src->dtype, 0);
    gt_alloc(&b, w, h, ch, src->dtype, 0);
    switch (op) {
    case GIP_MORPH_ERODE:
    case GIP_MORPH_DILATE:
        ref_iter(src, dst, e, 1, op == GIP_MORPH_DILATE, iterations, border, bv);
        break;
    case GIP_MORPH_OPEN:
    case GIP_MORPH_CLOSE:
    case GIP_MORPH_TOPHAT:
    case GIP_MORPH_BLACKHAT: {
        const bool close = op == GIP_MORPH_CLOSE || op == GIP_MORPH_BLACKHAT;
        ref_iter(src, &a, e, 1, close, iterations, border, bv);
        ref_iter(&a, &b, e, 1, !close, iterations, border, bv);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int32_t c = 0; c < ch; c++) {
                    double s = gt_get(src, x, y, c), r = gt_get(&b, x, y, c);
                    gt_set(dst, x, y, c,
                           op == GIP_MORPH_TOPHAT     ? s - r
                           : op == GIP_MORPH_BLACKHAT ? r - s
                                                      : r);
                }
        break;
    }
    case GIP_MORPH_GRADIENT:
        ref_iter(src, &a, e, 1, true, iterations, border, bv);
        ref_iter(src, &b, e, 1, false, iterations, border, bv);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                for (int32_t c = 0; c < ch; c++)
                    gt_set(dst, x, y, c, gt_get(&a, x, y, c) - gt_get(&b, x, y, c));
        break;
    default: { /* hitmiss, u8 1-channel */
        bool fg = false, bg = false;
        for (int32_t i = 0; i < e->kw * e->kh; i++) {
            fg |= e->mask[i] == 1;
            bg |= e->mask[i] == 2;
        }
        gip_image inv;
        gt_alloc(&inv, w, h, 1, GIP_U8, 0);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                gt_set(&inv, x, y, 0, 255 - gt_get(src, x, y, 0));
        if (fg)
            ref_iter(src, &a, e, 1, false, iterations, border, bv);
        if (bg)
            ref_iter(&inv, &b, e, 2, false, iterations, border, bv);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int v = !fg && !bg ? (int)gt_get(src, x, y, 0)
                                   : (fg ? (int)gt_get(&a, x, y, 0) : 255) &
                                         (bg ? (int)gt_get(&b, x, y, 0) : 255);
                gt_set(dst, x, y, 0, v);
            }
        gt_free(&inv);
    }
    }
    gt_free(&a);
    gt_free(&b);
}

/* ---- cases -------------------------------------------------------------------------------- */

typedef struct elem_case {
    const char *name;
    gip_morph_shape shape;
    int32_t kw, kh;
    int32_t ax, ay; /* -1: centre */
    bool custom;    /* a random kernel of that size instead of the shape */
} elem_case;

static const elem_case elems[] = {
    {"rect3", GIP_MORPH_RECT, 3, 3, -1, -1, false},
    {"rect5x1", GIP_MORPH_RECT, 5, 1, -1, -1, false},
    {"rect1x4a", GIP_MORPH_RECT, 1, 4, 0, 0, false},
    {"rect21x17", GIP_MORPH_RECT, 21, 17, -1, -1, false},
    {"rect9x33a", GIP_MORPH_RECT, 9, 33, 8, 2, false},
    {"ellipse7x5", GIP_MORPH_ELLIPSE, 7, 5, -1, -1, false},
    {"cross4x6a", GIP_MORPH_CROSS, 4, 6, 0, 5, false},
    {"diamond9", GIP_MORPH_DIAMOND, 9, 9, -1, -1, false},
    {"custom5x3", GIP_MORPH_RECT, 5, 3, 1, 2, true},
    {"ellipse25", GIP_MORPH_ELLIPSE, 25, 25, -1, -1, false},
    {"rect101x3a", GIP_MORPH_RECT, 101, 3, 7, 1, false}, /* rows through van Herk on the CPU */
};
#define NELEMS ((int)(sizeof elems / sizeof elems[0]))

typedef struct border_case {
    int32_t has; /* 0: cv2's default */
    gip_border mode;
    float value;
} border_case;

static const border_case borders[] = {
    {0, GIP_BORDER_CONSTANT, 0},  {1, GIP_BORDER_REFLECT_101, 0}, {1, GIP_BORDER_REFLECT, 0},
    {1, GIP_BORDER_REPLICATE, 0}, {1, GIP_BORDER_CONSTANT, 77},   {1, GIP_BORDER_CONSTANT, -5},
};
#define NBORDERS ((int)(sizeof borders / sizeof borders[0]))

static gip_status run_morph(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const void *params)
{
    return gip_morphology(ctx, src, dst, params);
}

/* One case: element e, op, iterations, border on an image of size w x h. */
static void one(gip_context *ctx, int64_t w, int64_t h, gip_dtype dt, int32_t ch, int ei,
                gip_morph_op op, int32_t iterations, int bi, uint64_t seed)
{
    const elem_case *ec = &elems[ei];
    const border_case *bc = &borders[bi];
    uint8_t *mask = malloc((size_t)ec->kw * ec->kh);
    float *kernel = malloc((size_t)ec->kw * ec->kh * sizeof *kernel);
    uint64_t rs = seed * 31 + 7;
    if (ec->custom) {
        for (int32_t i = 0; i < ec->kw * ec->kh; i++) {
            int r = (int)(gt_rand_u64(&rs) % 3); /* 0, 1 or -1 */
            kernel[i] = r == 2 ? -1.0f : (float)r;
        }
        kernel[0] = 1.0f;
    } else {
        GT_OK(gip_structuring_element(ec->shape, ec->kw, ec->kh, ec->ax, ec->ay, mask));
        for (int32_t i = 0; i < ec->kw * ec->kh; i++)
            kernel[i] = mask[i];
    }
    for (int32_t i = 0; i < ec->kw * ec->kh; i++)
        mask[i] = op == GIP_MORPH_HITMISS ? (kernel[i] == 1.0f    ? 1
                                             : kernel[i] == -1.0f ? 2
                                                                  : 0)
                                          : kernel[i] != 0.0f;
    gip_morph_params p = {.op = op,
                          .kernel = ec->custom ? kernel : NULL,
                          .ksize_w = ec->kw,
                          .ksize_h = ec->kh,
                          .shape = ec->shape,
                          .iterations = iterations};
    if (ec->ax >= 0) {
        p.has_anchor = 1;
        p.anchor_x = ec->ax;
        p.anchor_y = ec->ay;
    }
    p.has_border = bc->has;
    p.border.mode = bc->mode;
    for (int c = 0; c < 4; c++)
        p.border.value[c] = bc->value + 3 * c;
    ref_elem e = {ec->kw, ec->kh, ec->ax >= 0 ? ec->ax : ec->kw / 2,
                  ec->ay >= 0 ? ec->ay : ec->kh / 2, mask};
    gip_image src, dst, exp;
    gt_alloc(&src, w, h, ch, dt, seed % 3 ? 0 : 7);
    gt_alloc(&dst, w, h, ch, dt, seed % 2 ? 0 : 5);
    gt_alloc(&exp, w, h, ch, dt, 0);
    gt_fill_random(&src, seed, -50, 300);
    if (op == GIP_MORPH_HITMISS) /* binary-ish images make hits */
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                gt_set(&src, x, y, 0, gt_get(&src, x, y, 0) < 100 ? 0 : 255);
    /* Per channel border values as the dtype holds them (the reference's one value per call
     * holds for channel 0; other channels differ by 3 c, so the reference runs per channel). */
    for (int32_t c = 0; c < ch; c++) {
        gip_image s1, d1;
        gt_alloc(&s1, w, h, 1, dt, 0);
        gt_alloc(&d1, w, h, 1, dt, 0);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                gt_set(&s1, x, y, 0, gt_get(&src, x, y, c));
        double bv = NAN;
        if (bc->has) {
            gip_image one1;
            gt_alloc(&one1, 1, 1, 1, dt, 0);
            gt_set(&one1, 0, 0, 0, bc->value + 3 * c); /* rounded and saturated as the dtype */
            bv = gt_get(&one1, 0, 0, 0);
            gt_free(&one1);
        }
        ref_morph(&s1, &d1, &e, op, iterations == 0 ? 1 : iterations, bc->mode, bv);
        if (iterations == -1)
            ref_copy(&s1, &d1);
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++)
                gt_set(&exp, x, y, c, gt_get(&d1, x, y, 0));
        gt_free(&s1);
        gt_free(&d1);
    }
    char label[160];
    snprintf(label, sizeof label, "op %d %s it %d border %d %lldx%lld %s c%d", (int)op, ec->name,
             (int)iterations, bi, (long long)w, (long long)h, gip_dtype_name(dt), (int)ch);
    if (GT_OK(gt_run_unary(ctx, run_morph, &src, &dst, &p, 0x5A))) {
        gt_compare(&dst, &exp, 0, 0, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
    free(mask);
    free(kernel);
}

static void cases(gip_context *ctx)
{
    uint64_t seed = 11;
    /* Every size, dtype and channel count, with elements, ops, iterations and borders rotating
     * (large elements on the large image only as rectangles, whose reference stays cheap
     * enough). */
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (int r = 0; r < 3; r++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    int ei = (int)(seed % NELEMS);
                    if (sz.w * sz.h > 100000 && ei != 0 && ei != 1 && ei != 3)
                        ei = (int)(seed % 2);
                    gip_morph_op op = (gip_morph_op)(seed % 7);
                    int32_t it = seed % 5 == 0 ? 2 : 1;
                    one(ctx, sz.w, sz.h, dtypes[d], chans[c], ei, op, it, (int)(seed % NBORDERS),
                        seed);
                }
    /* Every element, op and border on odd sizes, u8 and f32. */
    const gt_size small[] = {{13, 42}, {23, 9}, {1, 30}, {30, 1}};
    for (int ei = 0; ei < NELEMS; ei++)
        for (int op = 0; op <= GIP_MORPH_BLACKHAT; op++)
            for (int bi = 0; bi < NBORDERS; bi++, seed++) {
                if (!gt_case())
                    continue;
                const gt_size sz = small[seed % 4];
                one(ctx, sz.w, sz.h, seed % 2 ? GIP_U8 : GIP_F32, chans[seed % 3], ei,
                    (gip_morph_op)op, seed % 4 == 0 ? 3 : 1, bi, seed);
            }
    /* 3x3 rectangles on u8 around the edges of CUDA's word kernel (a row's first, last and tail
     * words; its 8-row blocks): every width to 13 pixels, heights about multiples of 8. */
    const int32_t r3h[] = {1, 2, 7, 8, 9, 17};
    for (int32_t w = 1; w <= 13; w++)
        for (int hi = 0; hi < 6; hi++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++, seed++)
                if (gt_case())
                    one(ctx, w, r3h[hi], GIP_U8, chans[c], 0,
                        seed % 2 ? GIP_MORPH_DILATE : GIP_MORPH_ERODE, 1, (int)(seed % NBORDERS),
                        seed);
    /* Hit-or-miss: u8 1-channel, custom kernels of 1, -1 and 0, every border. */
    for (int bi = 0; bi < NBORDERS; bi++)
        for (int it = 1; it <= 2; it++, seed++)
            if (gt_case())
                one(ctx, 31, 17, GIP_U8, 1, 8, GIP_MORPH_HITMISS, it, bi, seed);
    /* iterations 0 and -1 (a copy), iterations of a non-rectangle. */
    if (gt_case())
        one(ctx, 19, 11, GIP_U16, 3, 5, GIP_MORPH_ERODE, -1, 0, seed++);
    if (gt_case())
        one(ctx, 19, 11, GIP_S16, 1, 6, GIP_MORPH_DILATE, 4, 1, seed++);
    if (gt_case())
        one(ctx, 64, 48, GIP_U8, 4, 9, GIP_MORPH_GRADIENT, 2, 3, seed++);
    /* A long rectangle on a large image (van Herk both ways) and elements larger than the image. */
    if (gt_case())
        one(ctx, 301, 203, GIP_U8, 3, 3, GIP_MORPH_CLOSE, 3, 1, seed++);
    if (gt_case())
        one(ctx, 5, 4, GIP_U8, 1, 9, GIP_MORPH_DILATE, 1, 2, seed++);
    if (gt_case())
        one(ctx, 7, 3, GIP_F32, 3, 4, GIP_MORPH_ERODE, 2, 1, seed++);
}

/* cv2.getStructuringElement's rules, checked on every size to 40x40 against formulas written from
 * OpenCV's documentation and its outputs (the test of the Python package compares with cv2). */
static void structuring(gip_context *ctx)
{
    (void)ctx;
    uint8_t *m = malloc(40 * 40);
    for (int32_t w = 1; w <= 40; w++)
        for (int32_t h = 1; h <= 40; h++) {
            const int32_t r = h / 2, c = w / 2;
            GT_OK(gip_structuring_element(GIP_MORPH_RECT, w, h, -1, -1, m));
            for (int32_t i = 0; i < w * h; i++)
                GT_CHECK(m[i] == 1, "rect %dx%d", w, h);
            const int32_t ax = (w * 7) % w, ay = (h * 3 + 1) % h;
            GT_OK(gip_structuring_element(GIP_MORPH_CROSS, w, h, ax, ay, m));
            for (int32_t y = 0; y < h; y++)
                for (int32_t x = 0; x < w; x++) {
                    int want = w * h == 1 || y == ay || x == ax;
                    GT_CHECK(m[y * w + x] == want, "cross %dx%d at %d,%d", w, h, x, y);
                }
            GT_OK(gip_structuring_element(GIP_MORPH_ELLIPSE, w, h, -1, -1, m));
            for (int32_t y = 0; y < h; y++) {
                int32_t dy = y - r, dx = 0;
                dx = r ? (int32_t)lrint(c * sqrt((double)(r * r - dy * dy) / ((double)r * r))) : 0;
                for (int32_t x = 0; x < w; x++)
                    GT_CHECK(m[y * w + x] == (w * h == 1 || abs(x - c) <= dx),
                             "ellipse %dx%d at %d,%d", w, h, x, y);
            }
            GT_OK(gip_structuring_element(GIP_MORPH_DIAMOND, w, h, -1, -1, m));
            for (int32_t y = 0; y < h; y++)
                for (int32_t x = 0; x < w; x++)
                    GT_CHECK(m[y * w + x] ==
                                 (w * h == 1 || (abs(x - c) + abs(y - r) <= r && abs(x - c) <= c)),
                             "diamond %dx%d at %d,%d", w, h, x, y);
        }
    /* A few elements written out (cv2.getStructuringElement's outputs). */
    static const uint8_t e75[] = {0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0};
    GT_OK(gip_structuring_element(GIP_MORPH_ELLIPSE, 7, 5, -1, -1, m));
    GT_CHECK(memcmp(m, e75, sizeof e75) == 0, "ellipse 7x5 differs from cv2's");
    static const uint8_t d85[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1,
                                  1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    GT_OK(gip_structuring_element(GIP_MORPH_DIAMOND, 8, 5, -1, -1, m));
    GT_CHECK(memcmp(m, d85, sizeof d85) == 0, "diamond 8x5 differs from cv2's");
    GT_STATUS(gip_structuring_element(GIP_MORPH_RECT, 0, 3, -1, -1, m), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_structuring_element(GIP_MORPH_RECT, 3, 3, -1, -1, NULL),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_structuring_element((gip_morph_shape)4, 3, 3, -1, -1, m),
              GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_structuring_element(GIP_MORPH_CROSS, 3, 3, 3, 0, m), GIP_ERR_INVALID_ARGUMENT);
    free(m);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gip_morph_params p = {.op = GIP_MORPH_OPEN};
    gip_image other = dst;
    other.dtype = GIP_U16;
    other.stride = 9 * 3 * 2;
    GT_STATUS(gip_morphology(ctx, &src, &other, &p), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_morphology(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    GT_STATUS(gip_morphology(ctx, NULL, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    gip_image two = src;
    two.channels = 2;
    GT_STATUS(gip_morphology(ctx, &two, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.op = GIP_MORPH_HITMISS; /* u8 1-channel only */
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_UNSUPPORTED);
    p.op = (gip_morph_op)8;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.op = GIP_MORPH_ERODE;
    p.ksize_w = GIP_MORPH_MAX_KSIZE + 1;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.ksize_w = 3;
    p.has_anchor = 1;
    p.anchor_x = 3;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.has_anchor = 0;
    p.iterations = -2;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.iterations = 5000; /* a rectangle 5000 times as large: past 2^20 */
    p.ksize_h = GIP_MORPH_MAX_KSIZE;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.ksize_h = 3;
    p.iterations = 1;
    p.has_border = 1;
    p.border.mode = GIP_BORDER_WRAP;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "wrap") != NULL, "message: %s", gip_last_error());
    p.has_border = 0;
    const float zeros[9] = {0};
    p.kernel = zeros;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    const float nan9[9] = {1, 1, NAN, 1, 1, 1, 1, 1, 1};
    p.kernel = nan9;
    GT_STATUS(gip_morphology(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 9 * 5 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&src);
    gt_free(&dst);
}

/* The registry entries: arguments, halos, and a pipeline step equal to the typed call. */
static void registry(gip_context *ctx)
{
    const gip_op *er = gip_op_find("erode"), *mo = gip_op_find("morphology");
    if (!GT_CHECK(er && mo && gip_op_find("dilate"), "morphology ops are not registered"))
        return;
    gip_args *a = NULL;
    if (!GT_OK(gip_args_create(mo, &a)))
        return;
    GT_OK(gip_args_set_text(a, "op", "open"));
    GT_OK(gip_args_set_text(a, "ksize", "5x3"));
    GT_OK(gip_args_set_text(a, "iterations", "2"));
    GT_OK(gip_args_set_text(a, "anchor", "0,2"));
    int64_t hx, hy;
    if (GT_OK(gip_op_halo(a, &hx, &hy)))
        GT_CHECK(hx == 16 && hy == 8, "open 5x3 anchor 0,2 x2: halo %lld,%lld, expected 16,8",
                 (long long)hx, (long long)hy);
    GT_OK(gip_args_set_text(a, "shape", "ellipse"));
    GT_OK(gip_args_set_text(a, "border", "reflect"));
    gip_image src, dst, exp;
    gt_alloc(&src, 37, 29, 3, GIP_U8, 0);
    gt_alloc(&dst, 37, 29, 3, GIP_U8, 0);
    gt_alloc(&exp, 37, 29, 3, GIP_U8, 0);
    gt_fill_random(&src, 3, 0, 0);
    gip_morph_params p = {.op = GIP_MORPH_OPEN,
                          .ksize_w = 5,
                          .ksize_h = 3,
                          .shape = GIP_MORPH_ELLIPSE,
                          .has_anchor = 1,
                          .anchor_x = 0,
                          .anchor_y = 2,
                          .iterations = 2,
                          .has_border = 1,
                          .border = {GIP_BORDER_REFLECT, {0}}};
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU && GT_OK(gip_op_apply(ctx, a, &src, &dst)) &&
        GT_OK(gip_morphology(ctx, &src, &exp, &p)))
        gt_compare(&dst, &exp, 0, 0, "registry morphology = gip_morphology");
    /* kernel= with shape= is refused; a matrix kernel works; wrap is not a choice. */
    GT_OK(gip_args_set_text(a, "kernel", "0,1,0;1,1,1;0,1,0"));
    gip_image o2 = dst;
    GT_STATUS(gip_op_apply(ctx, a, &src, &o2), GIP_ERR_INVALID_ARGUMENT);
    gip_args_free(a);
    a = NULL;
    if (GT_OK(gip_args_create(er, &a))) {
        GT_OK(gip_args_set_text(a, "kernel", "0,1,0;1,1,1;0,1,0"));
        GT_STATUS(gip_args_set_text(a, "border", "wrap"), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_args_set_text(a, "iterations", "-1"), GIP_ERR_INVALID_ARGUMENT);
        if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
            const float cross[9] = {0, 1, 0, 1, 1, 1, 0, 1, 0};
            gip_morph_params q = {.kernel = cross, .ksize_w = 3, .ksize_h = 3};
            if (GT_OK(gip_op_apply(ctx, a, &src, &dst)) && GT_OK(gip_erode(ctx, &src, &exp, &q)))
                gt_compare(&dst, &exp, 0, 0, "registry erode kernel= = gip_erode");
            /* border_value given with the default constant border is used as given. */
            GT_OK(gip_args_set_text(a, "border_value", "9"));
            q.has_border = 1;
            q.border.mode = GIP_BORDER_CONSTANT;
            for (int c = 0; c < 4; c++)
                q.border.value[c] = 9;
            if (GT_OK(gip_op_apply(ctx, a, &src, &dst)) && GT_OK(gip_erode(ctx, &src, &exp, &q)))
                gt_compare(&dst, &exp, 0, 0, "registry erode border_value=9");
        }
        gip_args_free(a);
    }
    /* As a pipeline step, tiled or not. */
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *pl = NULL;
    if (GT_OK(gip_pipeline_create(&d, &pl))) {
        GT_OK(gip_pipeline_parse(pl, "erode 5 ellipse | dilate 3 iterations=2", NULL));
        if (GT_OK(gip_pipeline_halo(pl, &hx, &hy)))
            GT_CHECK(hx == 4 && hy == 4, "pipeline halo %lld,%lld, expected 4,4", (long long)hx,
                     (long long)hy);
        gip_pipeline_free(pl);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

/* f32 with NaN and zeros of both signs: min and max of NaN depend on the order of the operands,
 * so the large rectangles' van Herk segments must not move with the threads' bands. The same
 * erosion and dilation on 1 to 4 threads give the same bits (the idle-core rule off, so that the
 * threads run). */
static void threads_nan(gip_context *ctx)
{
    if (gt_current_backend != GT_CPU)
        return;
    gip_image src, out[4];
    gt_alloc(&src, 257, 300, 1, GIP_F32, 0);
    gt_fill_random(&src, 77, -1.0f, 1.0f);
    uint64_t r = 12345;
    for (int64_t y = 0; y < src.height; y++)
        for (int64_t x = 0; x < src.width; x++) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            const unsigned u = (unsigned)(r >> 56);
            if (u < 6)
                gt_set(&src, x, y, 0, NAN);
            else if (u < 18)
                gt_set(&src, x, y, 0, u & 1 ? 0.0 : -0.0);
        }
    const int32_t threads0 = gip_context_threads(ctx);
    gt_setenv("GIP_NO_LOAD_LIMIT", "1");
    for (int dil = 0; dil < 2; dil++)
        for (int kk = 0; kk < 2; kk++) {
            const int32_t k = kk ? 31 : 15;
            gip_morph_params p = {.ksize_w = k, .ksize_h = k, .shape = GIP_MORPH_RECT};
            for (int t = 0; t < 4; t++) {
                gt_alloc(&out[t], src.width, src.height, 1, GIP_F32, 0);
                if (!GT_OK(gip_context_set_threads(ctx, t + 1)))
                    continue;
                GT_OK(dil ? gip_dilate(ctx, &src, &out[t], &p) : gip_erode(ctx, &src, &out[t], &p));
            }
            for (int t = 1; t < 4; t++) {
                int64_t bad = 0;
                for (int64_t y = 0; y < src.height; y++)
                    bad += memcmp((const char *)out[0].data + y * out[0].stride,
                                  (const char *)out[t].data + y * out[t].stride,
                                  (size_t)src.width * sizeof(float)) != 0;
                GT_CHECK(bad == 0, "%s %dx%d with NaN: %lld rows differ between 1 and %d threads",
                         dil ? "dilate" : "erode", k, k, (long long)bad, t + 1);
            }
            for (int t = 0; t < 4; t++)
                gt_free(&out[t]);
        }
    gip_context_set_threads(ctx, threads0);
    gt_setenv("GIP_NO_LOAD_LIMIT", NULL);
    gt_free(&src);
}

static void body(gip_context *ctx)
{
    if (gt_case())
        structuring(ctx);
    cases(ctx);
    if (gt_case())
        bad_input(ctx);
    if (gt_case())
        registry(ctx);
    if (gt_case())
        threads_nan(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "morphology", body);
}
