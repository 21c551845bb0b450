/* SPDX-License-Identifier: MIT */
/* canny (gip_canny and gip_canny_dxdy, as cv2.Canny): OpenCV's thresholds, the derivatives
 * through gip_sobel() with a replicated border, then magnitudes, non-maximum suppression and
 * hysteresis (on the CPU a stack walk from the strong pixels; on CUDA canny_cuda.cu); the
 * registry entry of the image form (canny_dxdy.c has the other). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gip/edges.h"
#include "gip/filter.h"
#include "ops/filter/canny.h"
#include "ops/op_check.h"
#include "registry/registry.h"

/* ---- CPU ---------------------------------------------------------------------------------- */

/* Map values: 0 not an edge, 1 a weak candidate, 2 an edge. */
typedef struct canny_job {
    const gip_image *dx, *dy;
    int32_t *mag; /* w x h, the magnitude of the channel chosen at each pixel */
    int16_t *sdx; /* that channel's derivatives (several channels; NULL for one) */
    int16_t *sdy;
    uint8_t *map; /* w x h */
    int32_t low, high;
    bool l2;
} canny_job;

/* One channel's magnitudes of a row (a loop that vectorises). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void
mag_row1(const int16_t *restrict gx, const int16_t *restrict gy, int32_t *restrict mag, int64_t w,
         bool l2)
{
    if (l2)
        for (int64_t x = 0; x < w; x++)
            mag[x] = gip__canny_mag(gx[x], gy[x], true);
    else
        for (int64_t x = 0; x < w; x++)
            mag[x] = gip__canny_mag(gx[x], gy[x], false);
}

static void mag_rows(void *arg, int64_t y0, int64_t y1)
{
    const canny_job *j = arg;
    const int64_t w = j->dx->width;
    const int32_t c = j->dx->channels;
    for (int64_t y = y0; y < y1; y++) {
        const int16_t *gx = (const int16_t *)((const uint8_t *)j->dx->data + y * j->dx->stride);
        const int16_t *gy = (const int16_t *)((const uint8_t *)j->dy->data + y * j->dy->stride);
        if (c == 1) { /* the derivatives are read where they are (nms_rows) */
            mag_row1(gx, gy, j->mag + (y + 1) * (w + 2) + 1, w, j->l2);
            continue;
        }
        for (int64_t x = 0; x < w; x++) {
            /* OpenCV: the first channel of the largest magnitude */
            int32_t best = gip__canny_mag(gx[x * c], gy[x * c], j->l2), bi = 0;
            for (int32_t k = 1; k < c; k++) {
                const int32_t m = gip__canny_mag(gx[x * c + k], gy[x * c + k], j->l2);
                if (m > best) {
                    best = m;
                    bi = k;
                }
            }
            j->mag[(y + 1) * (w + 2) + x + 1] = best;
            j->sdx[y * w + x] = gx[x * c + bi];
            j->sdy[y * w + x] = gy[x * c + bi];
        }
    }
}

/* Non-maximum suppression of a row, every comparison made and the direction's chosen by
 * selects (gip__canny_dir()'s rule in unsigned arithmetic, which wraps as OpenCV's int32 does),
 * so that the loop vectorises: 0 below low or not a maximum, 1 a candidate, 2 an edge. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void
nms_row(const int32_t *restrict up, const int32_t *restrict mid, const int32_t *restrict down,
        const int16_t *restrict gx, const int16_t *restrict gy, uint8_t *restrict out, int64_t w,
        int32_t low, int32_t high)
{
    for (int64_t x = 0; x < w; x++) {
        const int32_t m = mid[x], xs = gx[x], ys = gy[x];
        const uint32_t ax = (uint32_t)(xs < 0 ? -xs : xs);
        const int32_t ay = (int32_t)((uint32_t)(ys < 0 ? -ys : ys) << 15);
        const int32_t tg22x = (int32_t)(ax * 13573u);
        const int32_t tg67x = (int32_t)((uint32_t)tg22x + (ax << 16));
        const int32_t horiz = ay < tg22x, vert = !horiz & (ay > tg67x);
        const int32_t same = (xs ^ ys) >= 0; /* the diagonal through (x - 1, y - 1) */
        const int32_t k0 = (m > mid[x - 1]) & (m >= mid[x + 1]);
        const int32_t k1 = (m > up[x]) & (m >= down[x]);
        const int32_t da = same ? up[x - 1] : up[x + 1], db = same ? down[x + 1] : down[x - 1];
        const int32_t k2 = (m > da) & (m > db);
        const int32_t keep = horiz ? k0 : vert ? k1 : k2;
        out[x] = (uint8_t)((m > low) & keep ? (m > high ? 2 : 1) : 0);
    }
}

static void nms_rows(void *arg, int64_t y0, int64_t y1)
{
    const canny_job *j = arg;
    const int64_t w = j->dx->width;
    for (int64_t y = y0; y < y1; y++) {
        const int32_t *mid = j->mag + (y + 1) * (w + 2) + 1;
        const int16_t *gx = j->sdx + y * w, *gy = j->sdy + y * w;
        if (j->dx->channels == 1) {
            gx = (const int16_t *)((const uint8_t *)j->dx->data + y * j->dx->stride);
            gy = (const int16_t *)((const uint8_t *)j->dy->data + y * j->dy->stride);
        }
        nms_row(mid - (w + 2), mid, mid + (w + 2), gx, gy, j->map + y * w, w, j->low, j->high);
    }
}

/* Hysteresis from the (y, x) pairs on a stack: each candidate (1) 8-connected to a popped pixel
 * becomes an edge (2) and is pushed, within rows [y0, y1) of the h. Neighbours in the image's
 * rows just outside go to spill (at most three a pixel of the first and last rows) where it is
 * not NULL, unread: another thread owns those rows. */
static void grow(uint8_t *map, int64_t w, int64_t h, int64_t y0, int64_t y1, int64_t *stack,
                 int64_t top, int64_t *spill, int64_t *nspill)
{
    while (top > 0) {
        const int64_t e = stack[--top], y = e >> 32, x = e & 0xFFFFFFFF;
        for (int64_t yy = y - 1; yy <= y + 1; yy++) {
            if (yy < y0 || yy >= y1) {
                if (spill && yy >= 0 && yy < h)
                    for (int64_t xx = x - 1; xx <= x + 1; xx++)
                        if (xx >= 0 && xx < w)
                            spill[(*nspill)++] = yy << 32 | xx;
                continue;
            }
            uint8_t *row = map + yy * w;
            for (int64_t xx = x - 1; xx <= x + 1; xx++)
                if (xx >= 0 && xx < w && row[xx] == 1) {
                    row[xx] = 2;
                    stack[top++] = yy << 32 | xx;
                }
        }
    }
}

/* Rows a strip of the hysteresis's first pass. */
#define HYST_ROWS 64

typedef struct hyst_job {
    uint8_t *map;
    int64_t w, h, rows, strips;
    int64_t *spill;  /* 6 w entries a strip: the pairs its edges reach in the rows around it */
    int64_t *nspill; /* per strip: how many (-1: no memory for its stack) */
} hyst_job;

static void hyst_strips(void *arg, int64_t t0, int64_t t1)
{
    const hyst_job *hj = arg;
    const int64_t w = hj->w;
    const uint64_t ones = 0x0101010101010101ULL;
    int64_t *stack = malloc((size_t)(hj->rows * w) * sizeof *stack);
    for (int64_t t = t0; t < t1; t++) {
        const int64_t y0 = t * hj->rows, y1 = y0 + hj->rows < hj->h ? y0 + hj->rows : hj->h;
        if (!stack) {
            hj->nspill[t] = -1;
            continue;
        }
        /* the strip's edges, found eight map bytes at a time */
        int64_t top = 0;
        for (int64_t y = y0; y < y1; y++) {
            const uint8_t *row = hj->map + y * w;
            int64_t x = 0;
            for (; x + 8 <= w; x += 8) {
                uint64_t v;
                memcpy(&v, row + x, 8);
                const uint64_t z = v ^ (2 * ones); /* bytes equal to 2 become 0 */
                if (!((z - ones) & ~z & (ones << 7)))
                    continue;
                for (int64_t k = x; k < x + 8; k++)
                    if (row[k] == 2)
                        stack[top++] = y << 32 | k;
            }
            for (; x < w; x++)
                if (row[x] == 2)
                    stack[top++] = y << 32 | x;
        }
        grow(hj->map, w, hj->h, y0, y1, stack, top, hj->spill + t * 6 * w, &hj->nspill[t]);
    }
    free(stack);
}

/* The edges out: 255 where the map holds an edge (2), 0 elsewhere. */
typedef struct edge_job {
    const uint8_t *map;
    gip_image *dst;
} edge_job;

static void edge_rows(void *arg, int64_t y0, int64_t y1)
{
    const edge_job *e = arg;
    const int64_t w = e->dst->width;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *m = e->map + y * w;
        uint8_t *d = (uint8_t *)e->dst->data + y * e->dst->stride;
        for (int64_t x = 0; x < w; x++)
            d[x] = (uint8_t) - (m[x] == 2);
    }
}

gip_status gip__canny_cpu(gip_context *ctx, const gip_image *dx, const gip_image *dy,
                          gip_image *dst, int32_t low, int32_t high, bool l2)
{
    const int64_t w = dx->width, h = dx->height, n = w * h;
    canny_job j = {.dx = dx, .dy = dy, .low = low, .high = high, .l2 = l2};
    j.mag = calloc((size_t)((w + 2) * (h + 2)), sizeof *j.mag);
    const bool pick = dx->channels > 1; /* the chosen channel's derivatives, copied */
    j.sdx = pick ? malloc((size_t)n * sizeof *j.sdx) : NULL;
    j.sdy = pick ? malloc((size_t)n * sizeof *j.sdy) : NULL;
    j.map = malloc((size_t)n);
    int64_t *stack = malloc((size_t)n * sizeof *stack);
    gip_status st = GIP_OK;
    if (!j.mag || (pick && (!j.sdx || !j.sdy)) || !j.map || !stack) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "canny: out of memory for %lldx%lld buffers",
                        (long long)w, (long long)h);
        goto out_free;
    }
    gip__parallel_for(ctx, h, 16, mag_rows, &j);
    gip__parallel_for(ctx, h, 16, nms_rows, &j);
    /* Hysteresis, every candidate 8-connected to an edge becoming one: first within strips of
     * rows on every thread, then one pass over the whole image from what the strips could not
     * take (the result does not depend on the order). */
    hyst_job hj = {j.map, w, h, HYST_ROWS, (h + HYST_ROWS - 1) / HYST_ROWS, NULL, NULL};
    hj.spill = malloc((size_t)hj.strips * 6 * (size_t)w * sizeof *hj.spill);
    hj.nspill = calloc((size_t)hj.strips, sizeof *hj.nspill);
    if (!hj.spill || !hj.nspill) {
        free(hj.spill);
        free(hj.nspill);
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "canny: out of memory for %lldx%lld buffers",
                        (long long)w, (long long)h);
        goto out_free;
    }
    gip__parallel_for(ctx, hj.strips, 1, hyst_strips, &hj);
    int64_t top = 0;
    bool lost = false;
    for (int64_t t = 0; t < hj.strips; t++) {
        lost |= hj.nspill[t] < 0;
        for (int64_t i = 0; i < hj.nspill[t]; i++) {
            const int64_t e = hj.spill[t * 6 * w + i];
            uint8_t *px = j.map + (e >> 32) * w + (e & 0xFFFFFFFF);
            if (*px == 1) {
                *px = 2;
                stack[top++] = e;
            }
        }
    }
    free(hj.spill);
    free(hj.nspill);
    if (lost) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "canny: out of memory for a strip's stack");
        goto out_free;
    }
    grow(j.map, w, h, 0, h, stack, top, NULL, NULL);
    gip__parallel_for(ctx, h, 64, edge_rows, &(edge_job){j.map, dst});
out_free:
    free(j.mag);
    free(j.sdx);
    free(j.sdy);
    free(j.map);
    free(stack);
    return st;
}

/* ---- the typed functions ------------------------------------------------------------------ */

/* OpenCV's integer thresholds. */
static gip_status thresholds(gip_context *ctx, const gip_canny_params *p, int32_t aperture,
                             const char *op, int32_t *low, int32_t *high)
{
    double lo = p->threshold1, hi = p->threshold2;
    if (!isfinite(lo) || !isfinite(hi))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: thresholds must be finite numbers",
                          op);
    if (aperture == 7) { /* OpenCV scales the 7x7 derivatives by 1/16 to keep them in s16 */
        lo /= 16.0;
        hi /= 16.0;
    }
    if (lo > hi) {
        const double t = lo;
        lo = hi;
        hi = t;
    }
    if (p->l2_gradient) {
        lo = lo < 32767.0 ? lo : 32767.0;
        hi = hi < 32767.0 ? hi : 32767.0;
        if (lo > 0)
            lo *= lo;
        if (hi > 0)
            hi *= hi;
    }
    /* cvFloor, clamped to int32 as the comparisons with int32 magnitudes need */
    lo = floor(lo);
    hi = floor(hi);
    *low = lo < -2147483648.0 ? INT32_MIN : lo > 2147483647.0 ? INT32_MAX : (int32_t)lo;
    *high = hi < -2147483648.0 ? INT32_MIN : hi > 2147483647.0 ? INT32_MAX : (int32_t)hi;
    return GIP_OK;
}

static gip_status check_dst(gip_context *ctx, const gip_image *dst, const char *op)
{
    if (dst->dtype != GIP_U8 || dst->channels != 1)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst must be 1-channel u8, got %d-channel %s", op, (int)dst->channels,
                          gip_dtype_name(dst->dtype));
    return GIP_OK;
}

static gip_status stages(gip_context *ctx, const gip_image *dx, const gip_image *dy, gip_image *dst,
                         int32_t low, int32_t high, bool l2, bool on_device, const char *op)
{
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__canny_cuda(ctx, dx, dy, dst, low, high, l2));
    return gip__canny_cpu(ctx, dx, dy, dst, low, high, l2);
}

gip_status gip_canny(gip_context *ctx, const gip_image *src, gip_image *dst,
                     const gip_canny_params *params)
{
    static const char OP[] = "gip_canny";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT(GIP_U8), OP, "src")))
        return st;
    if ((st = check_dst(ctx, dst, OP)))
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", OP);
    const int32_t ap = params->aperture ? params->aperture : 3;
    if (ap != 3 && ap != 5 && ap != 7)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: aperture %d is invalid: 3, 5 or 7 are accepted", OP,
                          (int)params->aperture);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    int32_t low, high;
    if ((st = thresholds(ctx, params, ap, OP, &low, &high)))
        return st;
    gip_image gx = {0}, gy = {0};
    const gip_memory mem = on_device ? GIP_MEM_CUDA : GIP_MEM_HOST;
    if ((st = gip_image_alloc(ctx, &gx, src->width, src->height, src->channels, GIP_S16, mem, 0)))
        return st;
    if ((st = gip_image_alloc(ctx, &gy, src->width, src->height, src->channels, GIP_S16, mem, 0)))
        goto out_free;
    gip_sobel_params sp = {.dx = 1,
                           .ksize = ap,
                           .scale = ap == 7 ? 1.0f / 16 : 1.0f,
                           .border = {GIP_BORDER_REPLICATE, {0}}};
    if ((st = gip_sobel(ctx, src, &gx, &sp)))
        goto out_free;
    sp.dx = 0;
    sp.dy = 1;
    if ((st = gip_sobel(ctx, src, &gy, &sp)))
        goto out_free;
    st = stages(ctx, &gx, &gy, dst, low, high, params->l2_gradient != 0, on_device, OP);
out_free:
    gip_image_free(ctx, &gx);
    gip_image_free(ctx, &gy);
    return st;
}

gip_status gip_canny_dxdy(gip_context *ctx, const gip_image *dx, const gip_image *dy,
                          gip_image *dst, const gip_canny_params *params)
{
    static const char OP[] = "gip_canny_dxdy";
    bool on_device = false, dev2 = false;
    gip_status st = gip__check_unary(ctx, dx, dst, OP, &on_device);
    if (st || (st = gip__check_unary(ctx, dy, dst, OP, &dev2)))
        return st;
    if (dx->dtype != GIP_S16 || dy->dtype != GIP_S16 || dx->channels != dy->channels)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: dx and dy must be s16 with the same channels, got %d-channel %s and "
                          "%d-channel %s",
                          OP, (int)dx->channels, gip_dtype_name(dx->dtype), (int)dy->channels,
                          gip_dtype_name(dy->dtype));
    if ((st = check_dst(ctx, dst, OP)))
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", OP);
    if (gip__images_overlap(dx, dst) || gip__images_overlap(dy, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps dx or dy", OP);
    int32_t low, high;
    if ((st = thresholds(ctx, params, 3, OP, &low, &high)))
        return st;
    return stages(ctx, dx, dy, dst, low, high, params->l2_gradient != 0, on_device, OP);
}

/* ---- the registry entry ------------------------------------------------------------------- */

static const gip_choice apertures[] = {{"3", 3}, {"5", 5}, {"7", 7}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__CANNY_THRESHOLD_PARAMS,
    GIP__PARAM("aperture", GIP_PARAM_CHOICE, 0, 0, 0, 0, apertures, "3",
               "the Sobel aperture (cv2's apertureSize)"),
    GIP__CANNY_L2_PARAM,
};

static gip_status build(const gip_args *a, void *out)
{
    gip_canny_params *p = out;
    p->threshold1 = gip_args_double(a, "threshold1");
    p->threshold2 = gip_args_double(a, "threshold2");
    p->aperture = (int32_t)gip_args_int(a, "aperture");
    p->l2_gradient = (int32_t)gip_args_int(a, "l2");
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_canny(ctx, src, dst, p);
}

const gip_op gip__op_canny = {
    .name = "canny",
    .family = "filter",
    .summary = "Canny edges (0 or 255), as cv2.Canny.",
    .doc = "Sobel derivatives (replicated border), integer magnitudes (|dx| + |dy|, or dx^2 + dy^2 "
           "with l2=1), non-maximum suppression and hysteresis between the two thresholds, as "
           "OpenCV: bit-exact with cv2.Canny on CPU and CUDA (the hysteresis runs on the GPU "
           "there). Colour images take the channel of largest gradient at each pixel. Edges "
           "connect across the whole image, so it is never tiled.",
    .cv_name = "cv2.Canny",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(gip_canny_params),
    .build = build,
    .shape = gip__shape_u8c1,
    .run = run,
};
