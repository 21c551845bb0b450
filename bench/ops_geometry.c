/* SPDX-License-Identifier: MIT */
/* The benchmark's geometry rows (see ops.h): issue 39's resize (linear, area, cubic; down by 2,
 * down by 1.7, up by 2), warpAffine (a 10-degree rotation), warpPerspective, remap, flip and
 * rotate 90. The transforms' matrices and the remap maps are made here and shared with the NPP
 * peers (npp_geometry.c) and, by the same formulas, with bench/peers_geometry.py. */
#include <math.h>
#include <stdlib.h>

#include "ops.h"

#pragma weak gip_resize
#pragma weak gip_warp_affine
#pragma weak gip_warp_perspective
#pragma weak gip_remap
#pragma weak gip_rotate
#pragma weak gip_op_find
#pragma weak gip_op_apply
#pragma weak gip_args_create
#pragma weak gip_args_set_int
#pragma weak gip_args_free

/* ---- shared with npp_geometry.c (declared there) ------------------------------------------- */

/* The warp_affine_rot10 matrix: cv2.getRotationMatrix2D((w / 2, h / 2), 10, 1), the forward
 * (src -> dst) 2x3 transform, row-major, by OpenCV's formula. */
void bench_geometry_rot10(int64_t w, int64_t h, double m[6]);
void bench_geometry_rot10(int64_t w, int64_t h, double m[6])
{
    const double cx = (double)w / 2, cy = (double)h / 2,
                 a = 10 * 3.14159265358979323846 / 180; /* CV_PI */
    const double alpha = cos(a), beta = sin(a);
    m[0] = alpha;
    m[1] = beta;
    m[2] = (1 - alpha) * cx - beta * cy;
    m[3] = -beta;
    m[4] = alpha;
    m[5] = beta * cx + (1 - alpha) * cy;
}

/* The warp_perspective matrix: a fixed mild homography, forward (src -> dst), row-major:
 * x' = (x + 0.05 y) / (1 + 0.1 x / w + 0.05 y / h), y' = (0.03 x + y) / (the same). */
void bench_geometry_homography(int64_t w, int64_t h, double m[9]);
void bench_geometry_homography(int64_t w, int64_t h, double m[9])
{
    m[0] = 1.0;
    m[1] = 0.05;
    m[2] = 0.0;
    m[3] = 0.03;
    m[4] = 1.0;
    m[5] = 0.0;
    m[6] = 0.1 / (double)w;
    m[7] = 0.05 / (double)h;
    m[8] = 1.0;
}

/* ---- resize -------------------------------------------------------------------------------- */

static void size_d2(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = w / 2 > 0 ? w / 2 : 1;
    *dh = h / 2 > 0 ? h / 2 : 1;
}

/* round(w / 1.7) x round(h / 1.7), at least 1x1 (peers_geometry.py: the same). */
static void size_d17(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = (int64_t)floor((double)w / 1.7 + 0.5);
    *dh = (int64_t)floor((double)h / 1.7 + 0.5);
    if (*dw < 1)
        *dw = 1;
    if (*dh < 1)
        *dh = 1;
}

static void size_u2(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = 2 * w;
    *dh = 2 * h;
}

static void size_swap(int64_t w, int64_t h, int64_t *dw, int64_t *dh)
{
    *dw = h;
    *dh = w;
}

/* dst's size gives the factors (fx = fy = 0), as cv2.resize(src, dsize, interpolation=...). */
static gip_status resize(gip_context *ctx, const gip_image *src, gip_image *dst, int inter)
{
    gip_resize_params p = {0};
    p.interpolation = inter;
    return gip_resize(ctx, src, dst, &p);
}

static gip_status op_resize_linear(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return resize(ctx, src, dst, GIP_INTER_LINEAR);
}

static gip_status op_resize_area(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return resize(ctx, src, dst, GIP_INTER_AREA);
}

static gip_status op_resize_cubic(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return resize(ctx, src, dst, GIP_INTER_CUBIC);
}

/* ---- warps and remap ------------------------------------------------------------------------ */

static gip_status op_warp_affine_rot10(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_warp_params p = GIP_WARP_PARAMS_DEFAULT; /* linear, constant 0 */
    double m[6];
    bench_geometry_rot10(src->width, src->height, m);
    return gip_warp_affine(ctx, src, dst, m, &p);
}

static gip_status op_warp_perspective(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip_warp_params p = GIP_WARP_PARAMS_DEFAULT;
    double m[9];
    bench_geometry_homography(src->width, src->height, m);
    return gip_warp_perspective(ctx, src, dst, m, &p);
}

/* The remap_linear maps, f32, dst's size (= src's): a mild barrel distortion about the centre,
 * map(x, y) = c + (p - c) * (1 + 0.08 r^2), r = 1 at the corners; the corners sample outside the
 * image (constant 0 there). Made once on the host per size, copied into every set. */
static gip_image remap_host[2];

static void remap_host_free(void)
{
    gip_image_free(NULL, &remap_host[0]);
    gip_image_free(NULL, &remap_host[1]);
}

static gip_status remap_host_maps(int64_t w, int64_t h)
{
    static int registered;
    if (remap_host[0].data && remap_host[0].width == w && remap_host[0].height == h)
        return GIP_OK;
    remap_host_free();
    gip_status s;
    if ((s = gip_image_alloc(NULL, &remap_host[0], w, h, 1, GIP_F32, GIP_MEM_HOST, 0)) ||
        (s = gip_image_alloc(NULL, &remap_host[1], w, h, 1, GIP_F32, GIP_MEM_HOST, 0))) {
        remap_host_free();
        return s;
    }
    if (!registered++)
        atexit(remap_host_free);
    const double cx = (double)(w - 1) / 2, cy = (double)(h - 1) / 2;
    const double r2 = cx * cx + cy * cy, s2 = r2 > 0 ? 1 / r2 : 0;
    for (int64_t y = 0; y < h; y++) {
        float *mx = (float *)((uint8_t *)remap_host[0].data + y * remap_host[0].stride);
        float *my = (float *)((uint8_t *)remap_host[1].data + y * remap_host[1].stride);
        const double dy = (double)y - cy;
        for (int64_t x = 0; x < w; x++) {
            const double dx = (double)x - cx, f = 1 + 0.08 * ((dx * dx + dy * dy) * s2);
            mx[x] = (float)(cx + dx * f);
            my[x] = (float)(cy + dy * f);
        }
    }
    return GIP_OK;
}

/* set->aux[0], aux[1]: map_x, map_y in the set's memory. */
static gip_status prepare_remap(gip_context *ctx, bench_set *set)
{
    const gip_image *d = &set->dst;
    gip_status s;
    if ((s = remap_host_maps(d->width, d->height)))
        return s;
    for (int k = 0; k < 2; k++)
        if ((s = gip_image_alloc(ctx, &set->aux[k], d->width, d->height, 1, GIP_F32,
                                 set->src.memory, 0)) ||
            (s = gip_copy(ctx, &remap_host[k], &set->aux[k])))
            return s;
    return gip_context_sync(ctx); /* the host maps may change for the next size */
}

static gip_status run_remap(gip_context *ctx, bench_set *set)
{
    gip_warp_params p = GIP_WARP_PARAMS_DEFAULT;
    return gip_remap(ctx, &set->src, &set->dst, &set->aux[0], &set->aux[1], &p);
}

/* The source, the two maps and the destination. */
static double bytes_remap(const bench_set *set)
{
    const gip_image *s = &set->src, *d = &set->dst;
    return (double)s->width * s->height * s->channels * gip_dtype_size(s->dtype) +
           (double)d->width * d->height * d->channels * gip_dtype_size(d->dtype) +
           2.0 * (double)d->width * d->height * sizeof(float);
}

/* ---- flip and rotate ------------------------------------------------------------------------ */

/* flip has no typed C function: it is the registry's operation "flip", run by gip_op_apply with
 * code 1 (left-right, cv2.flip(src, 1)). The arguments are made once. */
static gip_args *flip_args;

static void flip_args_free(void)
{
    gip_args_free(flip_args);
    flip_args = NULL;
}

static gip_status op_flip_h(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    if (!flip_args) {
        const gip_op *op = gip_op_find("flip");
        gip_args *a = NULL;
        gip_status s;
        if (!op)
            return GIP_ERR_UNSUPPORTED;
        if ((s = gip_args_create(op, &a)))
            return s;
        if ((s = gip_args_set_int(a, "code", 1))) {
            gip_args_free(a);
            return s;
        }
        flip_args = a;
        atexit(flip_args_free);
    }
    return gip_op_apply(ctx, flip_args, src, dst);
}

static gip_status op_rotate90(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return gip_rotate(ctx, src, dst, GIP_ROTATE_90_CLOCKWISE);
}

/* set->aux[0] (device sets only): an image of dst's shape, the intermediate of the NPP peer that
 * rotates in two passes (nppiTranspose, then nppiMirror); gip's row does not use it. */
static gip_status prepare_rotate90(gip_context *ctx, bench_set *set)
{
    const gip_image *d = &set->dst;
    if (set->src.memory != GIP_MEM_CUDA)
        return GIP_OK;
    return gip_image_alloc(ctx, &set->aux[0], d->width, d->height, d->channels, d->dtype,
                           GIP_MEM_CUDA, 0);
}

static int have_resize(void)
{
    return gip_resize != NULL;
}
static int have_warp_affine(void)
{
    return gip_warp_affine != NULL;
}
static int have_warp_perspective(void)
{
    return gip_warp_perspective != NULL;
}
static int have_remap(void)
{
    return gip_remap != NULL;
}
static int have_flip(void)
{
    return gip_op_find && gip_op_apply && gip_args_create && gip_args_set_int && gip_args_free &&
           gip_op_find("flip") != NULL;
}
static int have_rotate(void)
{
    return gip_rotate != NULL;
}

#define U8 "u8c1,u8c3"
#define DSIZE " (dsize given, fx = fy = 0)"
#define R17 "round(w/1.7) x round(h/1.7)"
#define FMTS "u8c1,u8c3,u8c4,u16c1,f32c1,f32c3"
#define RESIZE(NAME, WHAT, FN, SIZE)                                                               \
    {                                                                                              \
        .name = NAME, .what = WHAT, .symbol = "gip_resize", .defaults = U8, .supported = FMTS,     \
        .dst = BENCH_DST_SAME, .run = FN, .available = have_resize, .dst_size = SIZE               \
    }

/* clang-format off */
const bench_op bench_ops_geometry[] = {
    RESIZE("resize_linear_d2", "resize INTER_LINEAR to w/2 x h/2" DSIZE, op_resize_linear,
           size_d2),
    RESIZE("resize_linear_d17", "resize INTER_LINEAR to " R17 DSIZE, op_resize_linear, size_d17),
    RESIZE("resize_linear_u2", "resize INTER_LINEAR to 2w x 2h" DSIZE, op_resize_linear, size_u2),
    RESIZE("resize_area_d2", "resize INTER_AREA to w/2 x h/2" DSIZE, op_resize_area, size_d2),
    RESIZE("resize_area_d17", "resize INTER_AREA to " R17 DSIZE, op_resize_area, size_d17),
    RESIZE("resize_area_u2", "resize INTER_AREA to 2w x 2h" DSIZE " (OpenCV's area upscale: a "
           "bilinear of its own)", op_resize_area, size_u2),
    RESIZE("resize_cubic_d2", "resize INTER_CUBIC to w/2 x h/2" DSIZE, op_resize_cubic, size_d2),
    RESIZE("resize_cubic_d17", "resize INTER_CUBIC to " R17 DSIZE, op_resize_cubic, size_d17),
    RESIZE("resize_cubic_u2", "resize INTER_CUBIC to 2w x 2h" DSIZE, op_resize_cubic, size_u2),
    {.name = "warp_affine_rot10",
     .what = "warpAffine: rotation by 10 degrees about (w/2, h/2), scale 1 (getRotationMatrix2D, "
             "forward matrix), linear, constant border 0, dst w x h",
     .symbol = "gip_warp_affine", .defaults = U8, .supported = FMTS,
     .dst = BENCH_DST_SAME, .run = op_warp_affine_rot10, .available = have_warp_affine},
    {.name = "warp_perspective",
     .what = "warpPerspective: fixed mild homography [[1, .05, 0], [.03, 1, 0], [.1/w, .05/h, 1]] "
             "(forward), linear, constant border 0, dst w x h",
     .symbol = "gip_warp_perspective", .defaults = U8, .supported = FMTS,
     .dst = BENCH_DST_SAME, .run = op_warp_perspective, .available = have_warp_perspective},
    {.name = "remap_linear",
     .what = "remap with f32 map_x/map_y (a barrel distortion 1 + 0.08 r^2, made before timing), "
             "linear, constant border 0; bytes include the maps",
     .symbol = "gip_remap", .defaults = U8, .supported = FMTS,
     .dst = BENCH_DST_SAME, .run = NULL, .available = have_remap, .prepare = prepare_remap,
     .run_set = run_remap, .bytes = bytes_remap},
    {.name = "flip_h",
     .what = "flip left-right (cv2.flip code 1), through gip_op_apply: flip has no typed C "
             "function",
     .symbol = "gip_op_apply (flip)", .defaults = U8, .supported = FMTS,
     .dst = BENCH_DST_SAME, .run = op_flip_h, .available = have_flip},
    {.name = "rotate90",
     .what = "rotate 90 degrees clockwise (cv2.ROTATE_90_CLOCKWISE), dst h x w",
     .symbol = "gip_rotate", .defaults = U8, .supported = FMTS,
     .dst = BENCH_DST_SAME, .run = op_rotate90, .available = have_rotate, .dst_size = size_swap,
     .prepare = prepare_rotate90},
};
/* clang-format on */
const int bench_nops_geometry = (int)(sizeof bench_ops_geometry / sizeof bench_ops_geometry[0]);
