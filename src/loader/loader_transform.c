/* SPDX-License-Identifier: MIT */
/* The batch loader's per-image work on the CPU: the crop policy (torchvision's Resize +
 * CenterCrop, RandomResizedCrop, letterbox), colour jitter as torchvision's ColorJitter on u8
 * images, and the fused flip + normalise + layout + dtype pass into the batch. */
#include <math.h>
#include <string.h>

#include "gip/geometry.h"
#include "loader/loader_internal.h"
#include "ops/geometry/resize.h"

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

gip__loader_rng gip__loader_rng_make(uint64_t seed, int64_t epoch, int64_t index, int purpose)
{
    uint64_t k = mix64(seed);
    k = mix64(k ^ (uint64_t)epoch);
    k = mix64(k ^ (uint64_t)index);
    k = mix64(k ^ (uint64_t)purpose);
    gip__loader_rng r = {k, 0};
    return r;
}

static uint64_t next_u64(gip__loader_rng *r)
{
    return mix64(r->key + 0xd1b54a32d192ed03ull * ++r->ctr);
}

double gip__loader_uniform(gip__loader_rng *r)
{
    return (double)(next_u64(r) >> 11) * 0x1p-53;
}

int64_t gip__loader_randint(gip__loader_rng *r, int64_t n)
{
    return (int64_t)(((unsigned __int128)next_u64(r) * (uint64_t)n) >> 64);
}

void gip__loader_rrc_params(const gip__loader_cfg *cfg, int64_t width, int64_t height,
                            gip__loader_rng *r, int64_t *x, int64_t *y, int64_t *cw, int64_t *ch)
{
    const double area = (double)width * (double)height;
    for (int t = 0; t < 10; t++) {
        const double target =
            area * (cfg->scale[0] + (cfg->scale[1] - cfg->scale[0]) * gip__loader_uniform(r));
        const double aspect = exp(cfg->log_ratio[0] +
                                  (cfg->log_ratio[1] - cfg->log_ratio[0]) * gip__loader_uniform(r));
        /* Python's round(): half to even, the default rounding mode of nearbyint */
        const int64_t w = (int64_t)nearbyint(sqrt(target * aspect));
        const int64_t h = (int64_t)nearbyint(sqrt(target / aspect));
        if (w > 0 && w <= width && h > 0 && h <= height) {
            *y = gip__loader_randint(r, height - h + 1);
            *x = gip__loader_randint(r, width - w + 1);
            *cw = w;
            *ch = h;
            return;
        }
    }
    const double in_ratio = (double)width / (double)height;
    int64_t w, h;
    if (in_ratio < cfg->ratio[0]) {
        w = width;
        h = (int64_t)nearbyint((double)w / cfg->ratio[0]);
    } else if (in_ratio > cfg->ratio[1]) {
        h = height;
        w = (int64_t)nearbyint((double)h * cfg->ratio[1]);
    } else {
        w = width;
        h = height;
    }
    *y = (height - h) / 2;
    *x = (width - w) / 2;
    *cw = w;
    *ch = h;
}

/* gip_resize with antialias (bilinear; the triangle widened by the shrink factor). */
static gip_status resize_aa(gip_context *cpu, const gip_image *src, gip_image *dst)
{
    gip_resize_params p = {GIP_INTER_LINEAR, 1, 0.0, 0.0};
    return gip_resize(cpu, src, dst, &p);
}

/* torchvision v2's _blend on u8: clamp(x * f + other * (1 - f), 0, 255) truncated, in float. */
static inline uint8_t blend(float x, float f, float other_term)
{
    float v = x * f + other_term;
    v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
    return (uint8_t)v;
}

/* torchvision's _rgb_to_grayscale_image on u8, floored: r * 0.2989 + g * 0.587 + b * 0.114. */
static inline float gray_of(const uint8_t *p)
{
    volatile float g = (float)p[0] * 0.2989f; /* one rounding per step, as torch's ops */
    g = g + (float)p[1] * 0.587f;
    g = g + (float)p[2] * 0.114f;
    return floorf(g);
}

static void jitter(const gip__loader_cfg *cfg, uint8_t *img, int64_t npx, gip__loader_rng *r)
{
    int ops[3], k = 0;
    if (cfg->brightness > 0)
        ops[k++] = 0;
    if (cfg->contrast > 0)
        ops[k++] = 1;
    if (cfg->saturation > 0)
        ops[k++] = 2;
    if (!k)
        return;
    /* the order: a random permutation, as ColorJitter's randperm */
    for (int i = k - 1; i > 0; i--) {
        int j = (int)gip__loader_randint(r, i + 1);
        int t = ops[i];
        ops[i] = ops[j];
        ops[j] = t;
    }
    for (int i = 0; i < k; i++) {
        const double v = ops[i] == 0   ? cfg->brightness
                         : ops[i] == 1 ? cfg->contrast
                                       : cfg->saturation;
        const double lo = v < 1 ? 1 - v : 0, hi = 1 + v;
        const double fd = lo + (hi - lo) * gip__loader_uniform(r);
        const float f = (float)fd, nf = (float)(1.0 - fd);
        if (ops[i] == 0) {
            for (int64_t p = 0; p < npx * 3; p++)
                img[p] = blend(img[p], f, 0.0f);
        } else if (ops[i] == 1) {
            double sum = 0;
            for (int64_t p = 0; p < npx; p++)
                sum += gray_of(img + 3 * p);
            const float mean = (float)(sum / (double)npx);
            const float other = mean * nf;
            for (int64_t p = 0; p < npx * 3; p++)
                img[p] = blend(img[p], f, other);
        } else {
            for (int64_t p = 0; p < npx; p++) {
                uint8_t *q = img + 3 * p;
                const float other = gray_of(q) * nf;
                q[0] = blend(q[0], f, other);
                q[1] = blend(q[1], f, other);
                q[2] = blend(q[2], f, other);
            }
        }
    }
}

/* Where an image's pixels go: the source rectangle (x, y, w, h) is resized to rw x rh; TRAIN
 * writes that straight to the output, EVAL crops size x size at (ox, oy) of it, LETTERBOX places
 * it at (ox, oy) of a `fill` output. */
typedef struct crop_plan {
    int64_t x, y, w, h, rw, rh, ox, oy;
} crop_plan;

static gip_status plan_crop(const gip__loader_cfg *cfg, int64_t width, int64_t height,
                            int64_t epoch, int64_t index, crop_plan *p)
{
    const int64_t S = cfg->size;
    memset(p, 0, sizeof *p);
    p->w = width;
    p->h = height;
    if (cfg->mode == GIP_LOADER_TRAIN) {
        gip__loader_rng r = gip__loader_rng_make(cfg->seed, epoch, index, GIP__LOADER_CROP);
        gip__loader_rrc_params(cfg, width, height, &r, &p->x, &p->y, &p->w, &p->h);
        p->rw = p->rh = S;
    } else if (cfg->mode == GIP_LOADER_EVAL) {
        /* torchvision's Resize(int): the shorter side to resize, the longer to
         * int(resize * long / short); then CenterCrop's int(round((h - size) / 2.0)) */
        const int64_t R = cfg->resize;
        if (width <= height) {
            p->rw = R;
            p->rh = (int64_t)((double)R * (double)height / (double)width);
        } else {
            p->rh = R;
            p->rw = (int64_t)((double)R * (double)width / (double)height);
        }
        if (p->rw < S || p->rh < S)
            return gip__error(NULL, GIP_ERR_INTERNAL, "loader: resized %lldx%lld below the crop",
                              (long long)p->rw, (long long)p->rh);
        p->oy = (int64_t)nearbyint((double)(p->rh - S) / 2.0);
        p->ox = (int64_t)nearbyint((double)(p->rw - S) / 2.0);
    } else {
        const double sc = fmin((double)S / (double)width, (double)S / (double)height);
        int64_t nw = (int64_t)nearbyint((double)width * sc);
        int64_t nh = (int64_t)nearbyint((double)height * sc);
        p->rw = nw < 1 ? 1 : nw > S ? S : nw;
        p->rh = nh < 1 ? 1 : nh > S ? S : nh;
        p->ox = (S - p->rw) / 2;
        p->oy = (S - p->rh) / 2;
    }
    return GIP_OK;
}

static int draw_flip(const gip__loader_cfg *cfg, int64_t epoch, int64_t index)
{
    gip__loader_rng fr = gip__loader_rng_make(cfg->seed, epoch, index, GIP__LOADER_FLIP);
    return cfg->hflip > 0 && gip__loader_uniform(&fr) < cfg->hflip;
}

/* EVAL's whole resize into the scratch image, then the centre crop copied out. */
static gip_status resize_then_crop(const gip__loader_cfg *cfg, gip__loader_scratch *s,
                                   const gip_image *src, const crop_plan *pp, uint8_t *out)
{
    const crop_plan p = *pp;
    const int64_t S = cfg->size;
    gip_status st;
    if (s->resized.width != p.rw || s->resized.height != p.rh) {
        const int64_t need = p.rw * 3 * p.rh;
        if (!s->resized.data || s->resized.stride * s->resized.height < need) {
            gip_image_free(NULL, &s->resized);
            if ((st = gip_image_alloc(NULL, &s->resized, p.rw, p.rh, 3, GIP_U8, GIP_MEM_HOST,
                                      GIP_ALLOC_TIGHT)))
                return st;
        }
        s->resized.width = p.rw;
        s->resized.height = p.rh;
        s->resized.stride = p.rw * 3;
    }
    if ((st = resize_aa(s->cpu, src, &s->resized)))
        return st;
    for (int64_t yy = 0; yy < S; yy++)
        memcpy(out + yy * S * 3,
               (const uint8_t *)s->resized.data + (p.oy + yy) * s->resized.stride + p.ox * 3,
               (size_t)(S * 3));
    return GIP_OK;
}

/* The steps after the crop: the flip drawn, the colour jitter applied. */
static gip_status finish(const gip__loader_cfg *cfg, int64_t epoch, int64_t index, uint8_t *out,
                         int *flip)
{
    const int64_t S = cfg->size;
    *flip = draw_flip(cfg, epoch, index);
    gip__loader_rng jr = gip__loader_rng_make(cfg->seed, epoch, index, GIP__LOADER_JITTER);
    jitter(cfg, out, S * S, &jr);
    return GIP_OK;
}

gip_status gip__loader_transform(const gip__loader_cfg *cfg, gip__loader_scratch *s,
                                 const gip_image *src, int64_t epoch, int64_t index, uint8_t *out,
                                 int *flip)
{
    return gip__loader_transform_part(cfg, s, src, NULL, epoch, index, out, flip);
}

gip_status gip__loader_source_rect(const gip__loader_cfg *cfg, int64_t width, int64_t height,
                                   int64_t epoch, int64_t index, gip__rs_part *need)
{
    crop_plan p;
    gip_status st = plan_crop(cfg, width, height, epoch, index, &p);
    if (st)
        return st;
    if (cfg->mode == GIP_LOADER_TRAIN) {
        *need = (gip__rs_part){p.x, p.y, p.w, p.h};
        return GIP_OK;
    }
    if (cfg->mode != GIP_LOADER_EVAL)
        return GIP_ERR_UNSUPPORTED;
    const gip_shape in = {width, height, 3, GIP_U8};
    return gip__resize_window_source(&in, p.rw, p.rh, p.ox, p.oy, cfg->size, cfg->size,
                                     GIP_INTER_LINEAR, 1, need);
}

gip_status gip__loader_transform_part(const gip__loader_cfg *cfg, gip__loader_scratch *s,
                                      const gip_image *part, const gip__rs_part *where,
                                      int64_t epoch, int64_t index, uint8_t *out, int *flip)
{
    const int64_t S = cfg->size;
    const gip__rs_part whole = {0, 0, part->width, part->height}, *w = where ? where : &whole;
    gip_image dst;
    gip_status st = gip_image_wrap(&dst, out, S, S, 3, GIP_U8, S * 3, GIP_MEM_HOST, 0);
    crop_plan p;
    if (st || (st = plan_crop(cfg, w->w, w->h, epoch, index, &p)))
        return st;
    if (cfg->mode == GIP_LOADER_TRAIN) {
        gip_image roi;
        if ((st = gip_image_roi(part, p.x - w->x, p.y - w->y, p.w, p.h, &roi)) ||
            (st = resize_aa(s->cpu, &roi, &dst)))
            return st;
    } else if (cfg->mode == GIP_LOADER_EVAL) {
        /* Only the centre crop's window of the resize is computed where the resize is separable
         * (with antialias it always is); else the whole resize, then the crop. */
        st = gip__resize_window(s->cpu, part, where, &dst, p.rw, p.rh, p.ox, p.oy, GIP_INTER_LINEAR,
                                1);
        if (st == GIP_ERR_UNSUPPORTED && !where)
            st = resize_then_crop(cfg, s, part, &p, out);
        if (st)
            return st;
    } else {
        if (where)
            return gip__error(NULL, GIP_ERR_INTERNAL,
                              "loader: the letterbox needs the whole image");
        memset(out, cfg->fill, (size_t)(S * S * 3));
        gip_image roi;
        if ((st = gip_image_roi(&dst, p.ox, p.oy, p.rw, p.rh, &roi)) ||
            (st = resize_aa(s->cpu, part, &roi)))
            return st;
    }
    return finish(cfg, epoch, index, out, flip);
}

gip_status gip__loader_transform_device(const gip__loader_cfg *cfg, gip_context *dctx,
                                        const gip_image *src, int64_t epoch, int64_t index,
                                        uint8_t *out, int *flip)
{
    const int64_t S = cfg->size;
    gip_image dst;
    gip_status st = gip_image_wrap(&dst, out, S, S, 3, GIP_U8, S * 3, GIP_MEM_CUDA, src->device);
    crop_plan p;
    if (st || (st = plan_crop(cfg, src->width, src->height, epoch, index, &p)))
        return st;
    gip_image roi;
    if (cfg->mode == GIP_LOADER_TRAIN) {
        if ((st = gip_image_roi(src, p.x, p.y, p.w, p.h, &roi)) ||
            (st = resize_aa(dctx, &roi, &dst)))
            return st;
    } else if (cfg->mode == GIP_LOADER_EVAL) {
        gip_image full = {0};
        if ((st = gip_image_alloc(dctx, &full, p.rw, p.rh, 3, GIP_U8, GIP_MEM_CUDA, 0)))
            return st;
        if (!(st = resize_aa(dctx, src, &full)) &&
            !(st = gip_image_roi(&full, p.ox, p.oy, S, S, &roi)))
            st = gip_copy(dctx, &roi, &dst);
        gip_image_free(dctx, &full); /* stream-ordered: after the copy */
        if (st)
            return st;
    } else {
        if ((st = gip_image_fill_bytes(dctx, &dst, (uint8_t)cfg->fill)) ||
            (st = gip_image_roi(&dst, p.ox, p.oy, p.rw, p.rh, &roi)) ||
            (st = resize_aa(dctx, src, &roi)))
            return st;
    }
    *flip = draw_flip(cfg, epoch, index);
    return GIP_OK;
}

uint16_t gip__loader_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) /* inf, nan */
        return (uint16_t)(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0));
    if (x >= 0x477ff000u) /* rounds to >= 65520: overflow */
        return (uint16_t)(sign | 0x7c00u);
    if (x < 0x38800000u) {   /* below the smallest normal half: subnormal or zero */
        if (x < 0x33000000u) /* below half the smallest subnormal */
            return (uint16_t)sign;
        const uint32_t e = x >> 23, m = (x & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e; /* 14..24 */
        uint32_t h = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((x >> 13) - (112u << 10));
    const uint32_t rem = x & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

uint16_t gip__loader_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* One output row per source row, the channels split into planes (NCHW) or kept (NHWC); the
 * source pixel read walks backwards when flipped. */
#define NORM_NCHW(T, table)                                                                        \
    do {                                                                                           \
        T *o0 = (T *)dst, *o1 = o0 + plane, *o2 = o1 + plane;                                      \
        for (int64_t y = 0; y < S; y++) {                                                          \
            const uint8_t *row = img + y * S * 3;                                                  \
            const int64_t step = flip ? -3 : 3;                                                    \
            const uint8_t *p = flip ? row + (S - 1) * 3 : row;                                     \
            T *r0 = o0 + y * S, *r1 = o1 + y * S, *r2 = o2 + y * S;                                \
            for (int64_t x = 0; x < S; x++, p += step) {                                           \
                r0[x] = table[0][p[0]];                                                            \
                r1[x] = table[1][p[1]];                                                            \
                r2[x] = table[2][p[2]];                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#define NORM_NHWC(T, table)                                                                        \
    do {                                                                                           \
        T *o = (T *)dst;                                                                           \
        for (int64_t y = 0; y < S; y++) {                                                          \
            const uint8_t *row = img + y * S * 3;                                                  \
            const int64_t step = flip ? -3 : 3;                                                    \
            const uint8_t *p = flip ? row + (S - 1) * 3 : row;                                     \
            T *r = o + y * S * 3;                                                                  \
            for (int64_t x = 0; x < S; x++, p += step) {                                           \
                r[3 * x] = table[0][p[0]];                                                         \
                r[3 * x + 1] = table[1][p[1]];                                                     \
                r[3 * x + 2] = table[2][p[2]];                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void gip__loader_make_lut(gip__loader_cfg *cfg)
{
    for (int c = 0; c < 3; c++)
        for (int v = 0; v < 256; v++) {
            const float o = fmaf((float)v, cfg->a[c], cfg->b[c]);
            switch (cfg->dtype) {
            case GIP_LOADER_F16:
                cfg->lut.u16[c][v] = gip__loader_f16(o);
                break;
            case GIP_LOADER_BF16:
                cfg->lut.u16[c][v] = gip__loader_bf16(o);
                break;
            case GIP_LOADER_F32:
                cfg->lut.f32[c][v] = o;
                break;
            default:
                cfg->lut.u8[c][v] = (uint8_t)v;
            }
        }
}

void gip__loader_normalize_cpu(const gip__loader_cfg *cfg, const uint8_t *img, int flip, void *dst)
{
    const int64_t S = cfg->size, plane = S * S;
    if (cfg->layout == GIP_LOADER_NCHW) {
        switch (cfg->esize) {
        case 1:
            NORM_NCHW(uint8_t, cfg->lut.u8);
            break;
        case 2:
            NORM_NCHW(uint16_t, cfg->lut.u16);
            break;
        default:
            NORM_NCHW(float, cfg->lut.f32);
        }
    } else {
        switch (cfg->esize) {
        case 1:
            NORM_NHWC(uint8_t, cfg->lut.u8);
            break;
        case 2:
            NORM_NHWC(uint16_t, cfg->lut.u16);
            break;
        default:
            NORM_NHWC(float, cfg->lut.f32);
        }
    }
}
