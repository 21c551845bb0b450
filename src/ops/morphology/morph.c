/* SPDX-License-Identifier: MIT */
/* Morphology shared by erode, dilate and morphology: structuring elements as
 * cv2.getStructuringElement, the checks and element of a call, erosions and dilations repeated
 * and composed as cv2.morphologyEx composes them, and the parameter reading of the three registry
 * entries. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/morphology/morph.h"
#include "ops/op_check.h"
#include "ops/op_step.h"
#include "registry/registry.h"

gip_status gip_structuring_element(gip_morph_shape shape, int32_t width, int32_t height,
                                   int32_t anchor_x, int32_t anchor_y, uint8_t *out)
{
    static const char OP[] = "gip_structuring_element";
    if (!out)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: out is NULL", OP);
    if (width < 1 || height < 1 || width > GIP_MORPH_MAX_KSIZE || height > GIP_MORPH_MAX_KSIZE)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: size %dx%d is invalid: 1..%d each",
                          OP, (int)width, (int)height, GIP_MORPH_MAX_KSIZE);
    if ((unsigned)shape > GIP_MORPH_DIAMOND)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: unknown shape %d: rect (0), cross (1), ellipse (2) or diamond (3)",
                          OP, (int)shape);
    if (anchor_x == -1)
        anchor_x = width / 2;
    if (anchor_y == -1)
        anchor_y = height / 2;
    if (anchor_x < 0 || anchor_x >= width || anchor_y < 0 || anchor_y >= height)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: anchor (%d, %d) is outside the %dx%d element", OP, (int)anchor_x,
                          (int)anchor_y, (int)width, (int)height);
    if (width == 1 && height == 1)
        shape = GIP_MORPH_RECT;
    const int32_t r = height / 2, c = width / 2;
    const double inv_r2 = r ? 1.0 / ((double)r * r) : 0.0;
    for (int32_t i = 0; i < height; i++) {
        int32_t j1 = 0, j2 = 0;
        if (shape == GIP_MORPH_RECT || (shape == GIP_MORPH_CROSS && i == anchor_y)) {
            j2 = width;
        } else if (shape == GIP_MORPH_CROSS) {
            j1 = anchor_x;
            j2 = j1 + 1;
        } else if (shape == GIP_MORPH_ELLIPSE) {
            const int32_t dy = i - r;
            if (abs(dy) <= r) {
                /* OpenCV's row half-width: saturate_cast<int>, i.e. rounded half to even. */
                const int32_t dx = (int32_t)lrint(c * sqrt((double)(r * r - dy * dy) * inv_r2));
                j1 = c - dx > 0 ? c - dx : 0;
                j2 = c + dx + 1 < width ? c + dx + 1 : width;
            }
        } else {
            const int32_t ady = abs(i - r), dx = r - ady < c ? r - ady : c;
            j1 = c - dx > 0 ? c - dx : 0;
            j2 = c + dx + 1 < width ? c + dx + 1 : width;
        }
        uint8_t *row = out + (size_t)i * (size_t)width;
        memset(row, 0, (size_t)width);
        if (j2 > j1)
            memset(row + j1, 1, (size_t)(j2 - j1));
    }
    return GIP_OK;
}

/* ---- one call's element and passes ------------------------------------------------------- */

typedef struct morph_call {
    gip_context *ctx;
    bool on_device;
    const char *op;
    int32_t kw, kh, ax, ay;
    int32_t iterations; /* >= 1 */
    uint8_t *mask;      /* kw x kh: 1 in the element; HITMISS: 1 foreground, 2 background */
    gip__morph_tap *taps;
    gip_border border;
    bool default_value;
    float value[4]; /* a given constant border's value, as the dtype holds it */
} morph_call;

static gip_status alloc_like(const morph_call *m, const gip_image *src, gip_image *img)
{
    return gip_image_alloc(m->ctx, img, src->width, src->height, src->channels, src->dtype,
                           m->on_device ? GIP_MEM_CUDA : GIP_MEM_HOST, 0);
}

static gip_status run_pass(const morph_call *m, const gip__morph_pass *p, const gip_image *src,
                           gip_image *dst)
{
    if (m->on_device)
        return GIP__CUDA_CALL(m->ctx, m->op, gip__morph_pass_cuda(m->ctx, p, src, dst));
    return gip__morph_pass_cpu(m->ctx, p, src, dst);
}

static gip_status run_ew(const morph_call *m, gip__morph_ew op, const gip_image *a,
                         const gip_image *b, gip_image *dst)
{
    if (m->on_device)
        return GIP__CUDA_CALL(m->ctx, m->op, gip__morph_ew_cuda(m->ctx, op, a, b, dst));
    return gip__morph_ew_cpu(m->ctx, op, a, b, dst);
}

/* The constant border value an erosion (dilate false) or dilation uses for dtype dt. */
static void border_values(const morph_call *m, bool dilate, gip_dtype dt, float v[4])
{
    for (int c = 0; c < 4; c++) {
        if (!m->default_value) {
            v[c] = m->value[c];
            continue;
        }
        switch (dt) {
        case GIP_U8:
            v[c] = dilate ? 0.0f : 255.0f;
            break;
        case GIP_U16:
            v[c] = dilate ? 0.0f : 65535.0f;
            break;
        case GIP_S16:
            v[c] = dilate ? -32768.0f : 32767.0f;
            break;
        default:
            v[c] = dilate ? -FLT_MAX : FLT_MAX;
        }
    }
}

/* dst = `iterations` erosions or dilations of src by the element of `which` mask value. */
static gip_status erode_dilate(const morph_call *m, bool dilate, uint8_t which,
                               const gip_image *src, gip_image *dst)
{
    gip__morph_pass p = {.dilate = dilate, .border = m->border};
    border_values(m, dilate, src->dtype, p.border_value);
    int32_t n = 0;
    for (int32_t i = 0; i < m->kw * m->kh; i++)
        if (m->mask[i] == which)
            m->taps[n++] = (gip__morph_tap){i % m->kw - m->ax, i / m->kw - m->ay};
    int32_t iterations = m->iterations;
    p.kw = m->kw;
    p.kh = m->kh;
    p.ax = m->ax;
    p.ay = m->ay;
    p.taps = m->taps;
    p.ntaps = n;
    p.rect = n == m->kw * m->kh;
    if (m->kw * m->kh == 1)
        return run_ew(m, GIP__MORPH_COPY, src, NULL, dst);
    if (p.rect && iterations > 1) {
        /* OpenCV: n passes of a rectangle are one pass of the rectangle n times as large. */
        if ((int64_t)(iterations - 1) * (m->kw > m->kh ? m->kw - 1 : m->kh - 1) > (1 << 20))
            return gip__error(m->ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: %d iterations of a %dx%d rectangle make one over 2^20 pixels "
                              "wide; use fewer",
                              m->op, (int)iterations, (int)m->kw, (int)m->kh);
        p.kw = m->kw + (iterations - 1) * (m->kw - 1);
        p.kh = m->kh + (iterations - 1) * (m->kh - 1);
        p.ax = m->ax * iterations;
        p.ay = m->ay * iterations;
        iterations = 1;
    }
    if (iterations == 1)
        return run_pass(m, &p, src, dst);
    gip_image tmp = {0};
    gip_status st = alloc_like(m, src, &tmp);
    if (st)
        return st;
    /* Alternate so that the last pass writes dst. */
    gip_image *bufs[2] = {dst, &tmp};
    int32_t t = iterations % 2 ? 0 : 1;
    const gip_image *in = src;
    for (int32_t i = 0; i < iterations && !st; i++, t ^= 1) {
        st = run_pass(m, &p, in, bufs[t]);
        in = bufs[t];
    }
    gip_image_free(m->ctx, &tmp);
    return st;
}

static gip_status open_close(const morph_call *m, bool close, const gip_image *src, gip_image *dst)
{
    gip_image tmp = {0};
    gip_status st = alloc_like(m, src, &tmp);
    if (st)
        return st;
    if (!(st = erode_dilate(m, close, 1, src, &tmp)))
        st = erode_dilate(m, !close, 1, &tmp, dst);
    gip_image_free(m->ctx, &tmp);
    return st;
}

static gip_status compose(const morph_call *m, gip_morph_op op, const gip_image *src,
                          gip_image *dst)
{
    gip_image tmp = {0};
    gip_status st;
    switch (op) {
    case GIP_MORPH_ERODE:
    case GIP_MORPH_DILATE:
        return erode_dilate(m, op == GIP_MORPH_DILATE, 1, src, dst);
    case GIP_MORPH_OPEN:
    case GIP_MORPH_CLOSE:
        return open_close(m, op == GIP_MORPH_CLOSE, src, dst);
    case GIP_MORPH_TOPHAT:
        if (!(st = open_close(m, false, src, dst)))
            st = run_ew(m, GIP__MORPH_SUB, src, dst, dst);
        return st;
    case GIP_MORPH_BLACKHAT:
        if (!(st = open_close(m, true, src, dst)))
            st = run_ew(m, GIP__MORPH_SUB, dst, src, dst);
        return st;
    case GIP_MORPH_GRADIENT:
        if ((st = alloc_like(m, src, &tmp)))
            return st;
        if (!(st = erode_dilate(m, true, 1, src, &tmp)) &&
            !(st = erode_dilate(m, false, 1, src, dst)))
            st = run_ew(m, GIP__MORPH_SUB, &tmp, dst, dst);
        gip_image_free(m->ctx, &tmp);
        return st;
    case GIP_MORPH_HITMISS:
    default: {
        /* OpenCV: erode(src, kernel == 1) & erode(~src, kernel == -1), a missing half 255. */
        bool fg = false, bg = false;
        for (int32_t i = 0; i < m->kw * m->kh; i++) {
            fg |= m->mask[i] == 1;
            bg |= m->mask[i] == 2;
        }
        if (!fg && !bg)
            return run_ew(m, GIP__MORPH_COPY, src, NULL, dst);
        if (fg && (st = erode_dilate(m, false, 1, src, dst)))
            return st;
        if (!bg)
            return GIP_OK;
        gip_image inv = {0};
        if ((st = alloc_like(m, src, &tmp)))
            return st;
        if (!(st = alloc_like(m, src, &inv)) &&
            !(st = run_ew(m, GIP__MORPH_NOT, src, NULL, &inv)) &&
            !(st = erode_dilate(m, false, 2, &inv, &tmp)))
            st = fg ? run_ew(m, GIP__MORPH_AND, dst, &tmp, dst)
                    : run_ew(m, GIP__MORPH_COPY, &tmp, NULL, dst);
        gip_image_free(m->ctx, &inv);
        gip_image_free(m->ctx, &tmp);
        return st;
    }
    }
}

static gip_status morph(gip_context *ctx, const gip_image *src, gip_image *dst,
                        const gip_morph_params *params, gip_morph_op op, const char *OP)
{
    morph_call m = {.ctx = ctx, .op = OP};
    gip_status st = gip__check_unary_typed(ctx, src, dst, GIP__DT_DEPTHS, OP, &m.on_device);
    if (st)
        return st;
    if ((unsigned)op > GIP_MORPH_HITMISS)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: unknown op %d: erode (0), dilate, open, close, gradient, tophat, "
                          "blackhat or hitmiss (7)",
                          OP, (int)op);
    if (op == GIP_MORPH_HITMISS && (src->dtype != GIP_U8 || src->channels != 1))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: hitmiss takes 1-channel u8 images (as cv2), src is %d-channel %s",
                          OP, (int)src->channels, gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    gip_morph_params p;
    if (params)
        p = *params;
    else
        memset(&p, 0, sizeof p);
    m.kw = p.ksize_w ? p.ksize_w : 3;
    m.kh = p.ksize_h ? p.ksize_h : 3;
    if (m.kw < 1 || m.kh < 1 || m.kw > GIP_MORPH_MAX_KSIZE || m.kh > GIP_MORPH_MAX_KSIZE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: element size %dx%d is invalid: 1..%d each (0 means 3)", OP,
                          (int)p.ksize_w, (int)p.ksize_h, GIP_MORPH_MAX_KSIZE);
    m.ax = m.kw / 2;
    m.ay = m.kh / 2;
    if (p.has_anchor) {
        if (p.anchor_x < 0 || p.anchor_x >= m.kw || p.anchor_y < 0 || p.anchor_y >= m.kh)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: anchor (%d, %d) is outside the %dx%d element", OP,
                              (int)p.anchor_x, (int)p.anchor_y, (int)m.kw, (int)m.kh);
        m.ax = p.anchor_x;
        m.ay = p.anchor_y;
    }
    if (p.iterations < -1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: iterations %d is invalid: >= 1, 0 (1) or -1 (a copy)", OP,
                          (int)p.iterations);
    m.iterations = p.iterations ? p.iterations : 1;
    m.border = GIP_BORDER_CONSTANT;
    m.default_value = true;
    if (p.has_border) {
        if ((unsigned)p.border.mode > GIP_BORDER_CONSTANT)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: border mode %d is not accepted: reflect101, reflect, replicate "
                              "or constant (OpenCV's morphology refuses wrap)",
                              OP, (int)p.border.mode);
        m.border = p.border.mode;
        m.default_value = false;
        for (int c = 0; c < 4; c++) {
            float v = p.border.value[c];
            if (src->dtype == GIP_S16)
                v = (float)gip__sat_s16_i32(gip__round_f32(gip__clampf(v, -65536.0f, 65536.0f)));
            else
                v = gip__border_value_as(src->dtype, v);
            m.value[c] = v;
        }
    }
    const size_t area = (size_t)m.kw * (size_t)m.kh;
    m.mask = malloc(area);
    m.taps = malloc(area * sizeof *m.taps);
    if (!m.mask || !m.taps) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", OP);
        goto out_free;
    }
    if (p.kernel) {
        for (size_t i = 0; i < area; i++) {
            const float v = p.kernel[i];
            if (!isfinite(v)) {
                st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                "%s: kernel value %zu is not a finite number", OP, i);
                goto out_free;
            }
            m.mask[i] = op == GIP_MORPH_HITMISS ? (v == 1.0f ? 1 : v == -1.0f ? 2 : 0) : v != 0;
        }
    } else if ((st = gip_structuring_element(p.shape, m.kw, m.kh, m.ax, m.ay, m.mask))) {
        st = gip__error(ctx, st, "%s: %s", OP, gip_last_error());
        goto out_free;
    }
    bool any = false;
    for (size_t i = 0; i < area; i++)
        any |= m.mask[i] != 0;
    if (p.iterations == -1) {
        st = run_ew(&m, GIP__MORPH_COPY, src, NULL, dst);
        goto out_free;
    }
    if (!any && op != GIP_MORPH_HITMISS) {
        st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                        "%s: the kernel has no non-zero value: an element needs at least one", OP);
        goto out_free;
    }
    st = compose(&m, op, src, dst);
out_free:
    free(m.mask);
    free(m.taps);
    return st;
}

gip_status gip_morphology(gip_context *ctx, const gip_image *src, gip_image *dst,
                          const gip_morph_params *params)
{
    return morph(ctx, src, dst, params, params ? params->op : GIP_MORPH_ERODE, "gip_morphology");
}

gip_status gip_erode(gip_context *ctx, const gip_image *src, gip_image *dst,
                     const gip_morph_params *params)
{
    return morph(ctx, src, dst, params, GIP_MORPH_ERODE, "gip_erode");
}

gip_status gip_dilate(gip_context *ctx, const gip_image *src, gip_image *dst,
                      const gip_morph_params *params)
{
    return morph(ctx, src, dst, params, GIP_MORPH_DILATE, "gip_dilate");
}

/* ---- the registry entries' shared part ---------------------------------------------------- */

const gip_choice gip__morph_shape_choices[] = {
    {"rect", GIP_MORPH_RECT},
    {"cross", GIP_MORPH_CROSS},
    {"ellipse", GIP_MORPH_ELLIPSE},
    {"diamond", GIP_MORPH_DIAMOND},
    {NULL, 0},
};

const gip_choice gip__morph_border_choices[] = {
    {"constant", GIP_BORDER_CONSTANT},
    {"reflect101", GIP_BORDER_REFLECT_101},
    {"reflect", GIP_BORDER_REFLECT},
    {"replicate", GIP_BORDER_REPLICATE},
    {NULL, 0},
};

gip_status gip__morph_build(const gip_args *a, gip__morph_step *s, gip_morph_op op)
{
    gip_morph_params *p = &s->p;
    p->op = op;
    const char *name = gip_args_op(a)->name;
    const bool given = gip_args_is_set(a, "kernel");
    if (given && (gip_args_is_set(a, "ksize") || gip_args_is_set(a, "shape")))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: give either kernel= or shape=/ksize=, not both", name);
    if (given) {
        int32_t rows, cols;
        const float *k = gip_args_matrix(a, "kernel", &rows, &cols);
        float *copy = malloc((size_t)rows * (size_t)cols * sizeof *copy);
        if (!copy)
            return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
        memcpy(copy, k, (size_t)rows * (size_t)cols * sizeof *copy);
        p->kernel = copy;
        p->ksize_w = cols;
        p->ksize_h = rows;
        bool any = false;
        for (int32_t i = 0; i < rows * cols; i++)
            any |= copy[i] != 0.0f;
        if (!any && op != GIP_MORPH_HITMISS)
            return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                              "%s: the kernel has no non-zero value: an element needs at least one",
                              name);
    } else {
        gip_args_size(a, "ksize", &p->ksize_w, &p->ksize_h);
        p->shape = (gip_morph_shape)gip_args_int(a, "shape");
    }
    gip_status st =
        gip__args_anchor(a, p->ksize_w, p->ksize_h, &p->has_anchor, &p->anchor_x, &p->anchor_y);
    if (st)
        return st;
    const int64_t it = gip_args_int(a, "iterations");
    p->iterations = it == 0 ? -1 : (int32_t)it;
    const int32_t mode = (int32_t)gip_args_int(a, "border");
    if (mode != GIP_BORDER_CONSTANT || gip_args_is_set(a, "border_value")) {
        p->has_border = 1;
        p->border.mode = (gip_border)mode;
        double v[4];
        int32_t n = gip_args_list(a, "border_value", v, 4);
        for (int c = 0; c < 4; c++)
            p->border.value[c] = (float)v[n == 1 ? 0 : c < n ? c : n - 1];
    }
    return GIP_OK;
}

void gip__morph_release(void *params)
{
    gip_morph_params *p = &((gip__morph_step *)params)->p;
    free((void *)p->kernel);
    p->kernel = NULL;
}

gip_status gip__morph_copy(void *dst, const void *src)
{
    *(gip__morph_step *)dst = *(const gip__morph_step *)src;
    gip_morph_params *d = &((gip__morph_step *)dst)->p;
    const gip_morph_params *s = &((const gip__morph_step *)src)->p;
    return gip__step_copy_floats(s->kernel, (size_t)s->ksize_w * (size_t)s->ksize_h, "morphology",
                                 &d->kernel);
}

void gip__morph_halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_morph_params *p = &((const gip__morph_step *)params)->p;
    const int32_t kw = p->ksize_w ? p->ksize_w : 3, kh = p->ksize_h ? p->ksize_h : 3;
    /* Each erosion or dilation reaches this far; open, close, tophat and blackhat chain two
     * runs of `iterations` of them. */
    int64_t n = p->iterations < 1 ? (p->iterations == 0 ? 1 : 0) : p->iterations;
    if (p->op == GIP_MORPH_OPEN || p->op == GIP_MORPH_CLOSE || p->op == GIP_MORPH_TOPHAT ||
        p->op == GIP_MORPH_BLACKHAT)
        n *= 2;
    *hx = n * gip__window_reach(kw, p->has_anchor, p->anchor_x);
    *hy = n * gip__window_reach(kh, p->has_anchor, p->anchor_y);
}

int32_t gip__morph_border(const void *params)
{
    const gip_morph_params *p = &((const gip__morph_step *)params)->p;
    return p->has_border ? (int32_t)p->border.mode : GIP_BORDER_CONSTANT;
}
