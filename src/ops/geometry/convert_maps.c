/* SPDX-License-Identifier: MIT */
/* convert_maps, as cv2.convertMaps: gip_remap()'s maps from one form into another (two f32 maps,
 * f32 x, y pairs, s16 x, y pairs with or without u16 fractions), on the host or the device. */
#include "gip/geometry.h"
#include "ops/geometry/convert_maps.h"
#include "ops/op_check.h"

static const char *const form_names[] = {"two f32 maps", "an f32 map of x, y pairs",
                                         "s16 x, y pairs with u16 fractions",
                                         "s16 x, y pairs (whole pixels)"};

/* The form of (a, b) and the map's width, or an error naming the pair (`what`: "map", "dst"). */
static gip_status form_of(gip_context *ctx, const gip_image *a, const gip_image *b, int32_t *form,
                          int64_t *w, const char *what, const char *op)
{
    if (a->channels != 1 || (b && b->channels != 1))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s1 and %s2 must have one channel (pairs are stored side by side)",
                          op, what, what);
    if (a->dtype == GIP_F32 && b && b->dtype == GIP_F32) {
        *form = GIP__MAP_F32;
        *w = a->width;
        if (b->width != a->width || b->height != a->height)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: %s1 is %lldx%lld but %s2 is %lldx%lld; two f32 maps are of "
                              "one size",
                              op, what, (long long)a->width, (long long)a->height, what,
                              (long long)b->width, (long long)b->height);
        return GIP_OK;
    }
    if (a->dtype == GIP_F32 && !b) {
        *form = GIP__MAP_F32X2;
    } else if (a->dtype == GIP_S16 && b && b->dtype == GIP_U16) {
        *form = GIP__MAP_S16F;
    } else if (a->dtype == GIP_S16 && !b) {
        *form = GIP__MAP_S16;
    } else {
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: %s1 %s with %s2 %s is no map form; accepted: f32 and f32 (x and "
                          "y), f32 alone (x, y pairs), s16 and u16 (x, y pairs and fractions), "
                          "s16 alone",
                          op, what, gip_dtype_name(a->dtype), what,
                          b ? gip_dtype_name(b->dtype) : "NULL");
    }
    if (a->width % 2)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: %s1 holds x, y pairs (%s) but is %lld wide, an odd width", op, what,
                          form_names[*form], (long long)a->width);
    *w = a->width / 2;
    if (b && (b->width != *w || b->height != a->height))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: %s1 holds %lldx%lld x, y pairs but %s2 is %lldx%lld; it must be "
                          "%lldx%lld",
                          op, what, (long long)*w, (long long)a->height, what, (long long)b->width,
                          (long long)b->height, (long long)*w, (long long)a->height);
    return GIP_OK;
}

typedef struct cm_job {
    int32_t from, to;
    const gip_image *m1, *m2;
    gip_image *d1, *d2;
    int64_t w;
} cm_job;

static void cm_rows(void *arg, int64_t y0, int64_t y1)
{
    const cm_job *j = arg;
    for (int64_t y = y0; y < y1; y++) {
        const uint8_t *r1 = (const uint8_t *)j->m1->data + y * j->m1->stride;
        const uint8_t *r2 = j->m2 ? (const uint8_t *)j->m2->data + y * j->m2->stride : NULL;
        uint8_t *d1 = (uint8_t *)j->d1->data + y * j->d1->stride;
        uint8_t *d2 = j->d2 ? (uint8_t *)j->d2->data + y * j->d2->stride : NULL;
        for (int64_t x = 0; x < j->w; x++)
            gip__convert_map_px(j->from, r1, r2, j->to, d1, d2, x);
    }
}

gip_status gip_convert_maps(gip_context *ctx, const gip_image *map1, const gip_image *map2,
                            gip_image *dst1, gip_image *dst2)
{
    static const char op[] = "gip_convert_maps";
    gip_status st;
    bool on_device = false;
    if ((st = gip__check_pair(ctx, map1, dst1, op, &on_device)) ||
        (map2 && (st = gip__image_check_ctx(ctx, map2, op, "map2"))) ||
        (dst2 && (st = gip__image_check_ctx(ctx, dst2, op, "dst2"))))
        return st;
    const gip_image *all[4] = {map1, map2, dst1, dst2};
    for (int i = 1; i < 4; i++)
        if (all[i] && (all[i]->memory == GIP_MEM_CUDA) != on_device)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: the maps and results must all be host or all device memory", op);
    int32_t from, to;
    int64_t w, dw;
    if ((st = form_of(ctx, map1, map2, &from, &w, "map", op)) ||
        (st = form_of(ctx, dst1, dst2, &to, &dw, "dst", op)))
        return st;
    if (dw != w || dst1->height != map1->height)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: the maps are %lldx%lld (%s) but the results %lldx%lld (%s); they "
                          "must be of one size",
                          op, (long long)w, (long long)map1->height, form_names[from],
                          (long long)dw, (long long)dst1->height, form_names[to]);
    for (int i = 0; i < 2; i++)
        for (int k = 2; k < 4; k++)
            if (all[i] && all[k] && gip__images_overlap(all[i], all[k]))
                return gip__error(ctx, GIP_ERR_ALIASING, "%s: %s and %s overlap", op,
                                  i ? "map2" : "map1", k == 2 ? "dst1" : "dst2");
    if (dst2 && gip__images_overlap(dst1, dst2))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst1 and dst2 overlap", op);
    if (w == 0 || map1->height == 0)
        return GIP_OK;
    if (on_device)
        return GIP__CUDA_CALL(
            ctx, op,
            gip__convert_maps_cuda(ctx, from, map1, map2, to, dst1, dst2, w, map1->height));
    cm_job j = {from, to, map1, map2, dst1, dst2, w};
    gip__parallel_for(ctx, map1->height, 16, cm_rows, &j);
    return GIP_OK;
}
