/* SPDX-License-Identifier: MIT */
/* matchTemplate (gip_match_template) on the CPU: the correlation of the image with the template
 * from filter2D's engines (direct for small templates, the FFT for large ones, by filter2D's
 * measured crossover; the FFT alone past filter2D's largest kernel), the window sums from
 * double-precision integral images, and OpenCV's normalisation of each method. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gip/fft.h"
#include "gip/filter.h"
#include "ops/op_check.h"
#include "ops/stats/stats.h"

/* Largest kernel side gip_filter2d() takes (its engines' limit); larger templates go to the FFT. */
#define TM_F2D_MAX 255

/* Channel c of a host image as a one-channel image of its dtype (into buf). */
static void extract_plane(const gip_image *src, int32_t c, gip_image *plane, void *buf)
{
    const size_t es = gip_dtype_size(src->dtype);
    const int32_t cn = src->channels;
    gip_image_wrap(plane, buf, src->width, src->height, 1, src->dtype, 0, GIP_MEM_HOST, 0);
    for (int64_t y = 0; y < src->height; y++) {
        const char *s = (const char *)src->data + y * src->stride;
        char *d = (char *)buf + y * plane->stride;
        if (es == 1)
            for (int64_t x = 0; x < src->width; x++)
                d[x] = s[x * cn + c];
        else
            for (int64_t x = 0; x < src->width; x++)
                ((float *)d)[x] = ((const float *)s)[x * cn + c];
    }
}

/* The correlation of one-channel `img` with kernel k (kw x kh) at every position, anchor (0, 0),
 * into corr (f32, img's size); only positions where the kernel fits are used. */
static gip_status correlate(gip_context *ctx, const gip_image *img, const float *k, int32_t kw,
                            int32_t kh, gip_image *corr)
{
    gip_filter2d_params p;
    memset(&p, 0, sizeof p);
    p.kernel = k;
    p.ksize_w = kw;
    p.ksize_h = kh;
    p.has_anchor = 1;
    p.border.mode = GIP_BORDER_REFLECT_101;
    p.method = GIP_CONV_AUTO;
    if (kw > TM_F2D_MAX || kh > TM_F2D_MAX)
        return gip_fft_convolve(ctx, img, corr, &p);
    return gip_filter2d(ctx, img, corr, &p);
}

/* The normalisation of rows [y0, y1) of the result from the correlation: window sums of the
 * image and of its squares come from column sums over the template's height, slid down a row at
 * a time, and a running sum across them slid along the row. Integer images' sums are exact
 * (integers in double); f32 sums are kept in double. */
typedef struct tm_job {
    const gip_image *image;
    gip_image *result;
    const float *corr; /* image-sized rows */
    int64_t w, h;
    int method;
    double tmean[4], tsum2, tnorm, inv_area;
    int oom;
} tm_job;

/* Element i of a row of u8 or f32 elements. */
static inline double el(const void *row, bool u8, int64_t i)
{
    return u8 ? ((const uint8_t *)row)[i] : ((const float *)row)[i];
}

static void tm_rows(void *arg, int64_t y0, int64_t y1)
{
    tm_job *j = arg;
    const gip_image *im = j->image;
    const int32_t cn = im->channels;
    const int64_t W = im->width, w = j->w, h = j->h, rw = W - w + 1;
    const int method = j->method;
    const bool coeff = method == GIP_TM_CCOEFF || method == GIP_TM_CCOEFF_NORMED;
    const bool sqdiff = method == GIP_TM_SQDIFF || method == GIP_TM_SQDIFF_NORMED;
    const bool normed = method & 1, need_q = normed || sqdiff;
    if (!coeff && !need_q) { /* CCORR: the correlation itself */
        for (int64_t y = y0; y < y1; y++)
            memcpy((char *)j->result->data + y * j->result->stride, j->corr + y * W,
                   (size_t)rw * sizeof(float));
        return;
    }
    double *cs = malloc((size_t)(W * cn) * 2 * sizeof *cs);
    if (!cs) {
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
        return;
    }
    double *cq = cs + W * cn;
    const bool u8 = im->dtype == GIP_U8;
    const int64_t n = W * cn;
#define ROW(y) ((const char *)im->data + (y)*im->stride)
    memset(cs, 0, (size_t)n * 2 * sizeof *cs);
    for (int64_t k = 0; k < h; k++) {
        const void *r = ROW(y0 + k);
        for (int64_t i = 0; i < n; i++) {
            double v = el(r, u8, i);
            cs[i] += v, cq[i] += v * v;
        }
    }
    for (int64_t y = y0; y < y1; y++) {
        if (y > y0) {
            const void *ra = ROW(y + h - 1), *rs = ROW(y - 1);
            for (int64_t i = 0; i < n; i++) {
                double add = el(ra, u8, i), sub = el(rs, u8, i);
                cs[i] += add - sub;
                cq[i] += add * add - sub * sub;
            }
        }
#undef ROW
        double s[4] = {0}, q = 0;
        for (int64_t i = 0; i < w * cn; i++)
            s[i % cn] += cs[i], q += cq[i];
        const float *cr = j->corr + y * W;
        float *o = (float *)((char *)j->result->data + y * j->result->stride);
        for (int64_t x = 0; x < rw; x++) {
            if (x > 0)
                for (int32_t c = 0; c < cn; c++) {
                    int64_t in = (x + w - 1) * cn + c, out = (x - 1) * cn + c;
                    s[c] += cs[in] - cs[out];
                    q += cq[in] - cq[out];
                }
            double num = cr[x], wmean2 = 0, wsum2 = q;
            if (coeff) {
                for (int32_t c = 0; c < cn; c++) {
                    wmean2 += s[c] * s[c];
                    num -= s[c] * j->tmean[c];
                }
                wmean2 *= j->inv_area;
            }
            if (sqdiff) {
                num = wsum2 - 2 * num + j->tsum2;
                num = num > 0 ? num : 0;
            }
            if (normed) {
                double d = wsum2 - wmean2;
                double t = sqrt(d > 0 ? d : 0) * j->tnorm;
                if (fabs(num) < t)
                    num /= t;
                else if (fabs(num) < t * 1.125)
                    num = num > 0 ? 1 : -1;
                else
                    num = method != GIP_TM_SQDIFF_NORMED ? 0 : 1;
            }
            o[x] = (float)num;
        }
    }
    free(cs);
}

#ifdef GIP_HAVE_CUDA
/* matchTemplate of device images: the correlation from filter2D's CUDA engines (per channel
 * plane for several channels), the window sums from f64 integral images on the device, the
 * normalisation kernel. Queued; device buffers freed in stream order. */
static gip_status match_template_cuda(gip_context *ctx, const gip_image *image, const float *k,
                                      const gip__tm_terms *t, gip_image *result)
{
    const int64_t W = image->width, H = image->height, cn = image->channels;
    const int64_t iw = (W + 1) * cn, isz = iw * (H + 1);
    const bool coeff = t->method == GIP_TM_CCOEFF || t->method == GIP_TM_CCOEFF_NORMED;
    const bool need_q = (t->method & 1) || t->method <= GIP_TM_SQDIFF_NORMED;
    float *corr = NULL, *acc = NULL, *plane = NULL;
    double *isum = NULL, *isq = NULL;
    gip_status st = GIP_OK;
    if (!t->flat) {
        st = gip__cuda_malloc(ctx, (size_t)(W * H) * sizeof(float), (void **)&corr);
        if (!st && cn > 1)
            st = gip__cuda_malloc(ctx, (size_t)(W * H) * sizeof(float), (void **)&acc);
        if (!st && cn > 1)
            st = gip__cuda_malloc(ctx, (size_t)(W * H) * sizeof(float), (void **)&plane);
        if (!st && coeff)
            st = gip__cuda_malloc(ctx, (size_t)isz * sizeof(double), (void **)&isum);
        if (!st && need_q)
            st = gip__cuda_malloc(ctx, (size_t)isz * sizeof(double), (void **)&isq);
    }
    gip_image cimg;
    if (!st && !t->flat) {
        gip_image_wrap(&cimg, corr, W, H, 1, GIP_F32, 0, GIP_MEM_CUDA, ctx->device);
        if (cn == 1)
            st = correlate(ctx, image, k, (int32_t)t->w, (int32_t)t->h, &cimg);
        else {
            gip_image pimg;
            gip_image_wrap(&pimg, plane, W, H, 1, GIP_F32, 0, GIP_MEM_CUDA, ctx->device);
            for (int32_t c = 0; !st && c < cn; c++) {
                if (!(st = gip__tm_plane_cuda(ctx, image, c, plane)) &&
                    !(st = correlate(ctx, &pimg, k + c * t->w * t->h, (int32_t)t->w, (int32_t)t->h,
                                     &cimg)))
                    st = gip__tm_accumulate_cuda(ctx, corr, acc, W * H, c == 0);
            }
        }
    }
    if (!st && (isum || isq)) {
        gip_array s = {isum, W + 1, H + 1, (int32_t)cn, GIP_DEPTH_F64, 0, GIP_MEM_CUDA};
        gip_array q = {isq, W + 1, H + 1, (int32_t)cn, GIP_DEPTH_F64, 0, GIP_MEM_CUDA};
        st = gip__integral_cuda(ctx, image, isum ? &s : NULL, isq ? &q : NULL, NULL);
    }
    if (!st)
        st = gip__tm_normalise_cuda(ctx, cn > 1 ? acc : corr, W, isum, isq, iw, t, result);
    gip__cuda_free(ctx, corr);
    gip__cuda_free(ctx, acc);
    gip__cuda_free(ctx, plane);
    gip__cuda_free(ctx, isum);
    gip__cuda_free(ctx, isq);
    return st;
}
#endif

/* The result: one-channel f32 of rw x rh (the positions of the template in the image). */
static gip_status check_result(gip_context *ctx, const gip_image *result, int64_t rw, int64_t rh,
                               const char *op)
{
    if (result->dtype != GIP_F32 || result->channels != 1 || result->width != rw ||
        result->height != rh)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: result is %lldx%lld %d-channel %s; a %lldx%lld one-channel f32 "
                          "image is needed",
                          op, (long long)result->width, (long long)result->height,
                          (int)result->channels, gip_dtype_name(result->dtype), (long long)rw,
                          (long long)rh);
    return GIP_OK;
}

gip_status gip_match_template(gip_context *ctx, const gip_image *image, const gip_image *templ,
                              int32_t method, gip_image *result)
{
    static const char op[] = "gip_match_template";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if ((st = gip__image_check_ctx(ctx, image, op, "image")) ||
        (st = gip__image_check_ctx(ctx, templ, op, "templ")) ||
        (st = gip__image_check_ctx(ctx, result, op, "result")))
        return st;
    if (method < GIP_TM_SQDIFF || method > GIP_TM_CCOEFF_NORMED)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: method %d is not one of SQDIFF (0), SQDIFF_NORMED (1), CCORR (2), "
                          "CCORR_NORMED (3), CCOEFF (4), CCOEFF_NORMED (5)",
                          op, (int)method);
    const bool dev = image->memory == GIP_MEM_CUDA;
    if ((templ->memory == GIP_MEM_CUDA) != dev || (result->memory == GIP_MEM_CUDA) != dev)
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: image, templ and result must all be in host memory or all in the "
                          "context's device memory",
                          op);
    if ((st = gip__check_cuda_built(ctx, dev, op)))
        return st;
    if ((st = gip__check_dtype(ctx, image, GIP__DT(GIP_U8) | GIP__DT(GIP_F32), op, "image")))
        return st;
    if (templ->dtype != image->dtype || templ->channels != image->channels)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: templ is %d-channel %s but image is %d-channel %s; they must be "
                          "equal",
                          op, (int)templ->channels, gip_dtype_name(templ->dtype),
                          (int)image->channels, gip_dtype_name(image->dtype));
    const int32_t cn = image->channels;
    if (cn != 1 && cn != 3 && cn != 4)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: image has %d channels; 1, 3 or 4 are accepted", op, (int)cn);
    const int64_t W = image->width, H = image->height, w = templ->width, h = templ->height;
    if (w > W || h > H)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: templ is %lldx%lld, larger than image %lldx%lld", op, (long long)w,
                          (long long)h, (long long)W, (long long)H);
    if (w > (1 << 20) || h > (1 << 20))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: templ is %lldx%lld; at most 2^20 a side", op,
                          (long long)w, (long long)h);
    const int64_t rw = W - w + 1, rh = H - h + 1;
    if ((st = check_result(ctx, result, rw, rh, op)))
        return st;
    if (gip__images_overlap(result, image) || gip__images_overlap(result, templ))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: result overlaps image or templ", op);

    const double area = (double)w * (double)h, inv_area = 1.0 / area;
    const bool coeff = method == GIP_TM_CCOEFF || method == GIP_TM_CCOEFF_NORMED;

    /* the template: its coefficients per channel (float) and its mean and variance (double);
     * a device template is read from a host copy */
    float *k = malloc((size_t)(w * h * cn) * sizeof *k);
    double tmean[4] = {0}, tvar[4] = {0};
    if (!k)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    gip_image htpl;
    void *htbuf = NULL;
    if (dev) {
        const size_t es = gip_dtype_size(image->dtype);
        if (!(htbuf = malloc((size_t)(w * h * cn) * es))) {
            free(k);
            return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        }
        gip_image_wrap(&htpl, htbuf, w, h, cn, templ->dtype, 0, GIP_MEM_HOST, 0);
        if ((st = gip_download(ctx, templ, &htpl)) || (st = gip_context_sync(ctx))) {
            free(k);
            free(htbuf);
            return st;
        }
        templ = &htpl;
    }
    for (int32_t c = 0; c < cn; c++) {
        double s = 0, q = 0;
        for (int64_t y = 0; y < h; y++) {
            const char *row = (const char *)templ->data + y * templ->stride;
            for (int64_t x = 0; x < w; x++) {
                double v = templ->dtype == GIP_U8 ? ((const uint8_t *)row)[x * cn + c]
                                                  : ((const float *)row)[x * cn + c];
                k[(c * h + y) * w + x] = (float)v;
                s += v;
                q += v * v;
            }
        }
        tmean[c] = s * inv_area;
        double var = q * inv_area - tmean[c] * tmean[c];
        tvar[c] = var > 0 ? var : 0;
    }
    double tnorm = 0, tsum2 = 0;
    for (int32_t c = 0; c < cn; c++)
        tnorm += tvar[c];
    free(htbuf);
    const bool flat = method == GIP_TM_CCOEFF_NORMED && tnorm < DBL_EPSILON;
#ifdef GIP_HAVE_CUDA
    if (dev) {
        gip__tm_terms t = {.method = method, .cn = cn, .w = w, .h = h, .flat = flat};
        double ts2 = tnorm;
        for (int32_t c = 0; c < cn; c++)
            ts2 += tmean[c] * tmean[c];
        t.tnorm = sqrt(coeff ? tnorm : ts2) * sqrt(area);
        t.tsum2 = ts2 * area;
        t.inv_area = inv_area;
        for (int32_t c = 0; c < cn; c++)
            t.tmean[c] = coeff ? tmean[c] : 0.0;
        st = match_template_cuda(ctx, image, k, &t, result);
        free(k);
        return st;
    }
#endif
    if (flat) {
        /* OpenCV: a flat template matches every window equally */
        for (int64_t y = 0; y < rh; y++) {
            float *o = (float *)((char *)result->data + y * result->stride);
            for (int64_t x = 0; x < rw; x++)
                o[x] = 1.0f;
        }
        free(k);
        return GIP_OK;
    }
    tsum2 = tnorm;
    for (int32_t c = 0; c < cn; c++)
        tsum2 += tmean[c] * tmean[c];
    if (!coeff) {
        memset(tmean, 0, sizeof tmean);
        tnorm = tsum2;
    }
    tsum2 *= area;
    tnorm = sqrt(tnorm) * sqrt(area);

    /* the correlation, summed over the channels */
    float *corr = malloc((size_t)(W * H) * sizeof *corr);
    float *acc = cn > 1 ? malloc((size_t)(W * H) * sizeof *acc) : NULL;
    void *planebuf = cn > 1 ? malloc((size_t)(W * H) * gip_dtype_size(image->dtype)) : NULL;
    if (!corr || (cn > 1 && (!acc || !planebuf))) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out_free;
    }
    gip_image cimg;
    gip_image_wrap(&cimg, corr, W, H, 1, GIP_F32, 0, GIP_MEM_HOST, 0);
    if (cn == 1) {
        if ((st = correlate(ctx, image, k, (int32_t)w, (int32_t)h, &cimg)))
            goto out_free;
    } else {
        gip_image plane;
        for (int32_t c = 0; c < cn; c++) {
            extract_plane(image, c, &plane, planebuf);
            if ((st = correlate(ctx, &plane, k + c * w * h, (int32_t)w, (int32_t)h, &cimg)))
                goto out_free;
            for (int64_t y = 0; y < rh; y++)
                for (int64_t x = 0; x < rw; x++)
                    acc[y * W + x] = c ? acc[y * W + x] + corr[y * W + x] : corr[y * W + x];
        }
        float *t = corr;
        corr = acc;
        acc = t;
    }
    tm_job j = {.image = image,
                .result = result,
                .corr = corr,
                .w = w,
                .h = h,
                .method = method,
                .tsum2 = tsum2,
                .tnorm = tnorm,
                .inv_area = inv_area};
    memcpy(j.tmean, tmean, sizeof tmean);
    gip__parallel_for(ctx, rh, 16, tm_rows, &j);
    if (j.oom) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out_free;
    }
    st = GIP_OK;
out_free:
    free(k);
    free(corr);
    free(acc);
    free(planebuf);
    return st;
}

/* ---- masked ---------------------------------------------------------------------------------
 * OpenCV's masked forms, each window sum a correlation of the image (or of its squares) with a
 * kernel made of the template T and mask M (per channel c):
 *   A = corr(I^2, M^2), B = corr(I, T M^2), E = corr(I, M), F = corr(I, M^2),
 *   D = corr(I, M^2 (T - tm)) with tm = sum(M T) / sum(M), im = E / sum(M) per window;
 *   SQDIFF = A - 2 B + sum((T M)^2), CCORR = B, CCOEFF = D - im sum(M^2 (T - tm)),
 *   the normed forms divided by sqrt(sum((T M)^2) A), or for CCOEFF by
 *   sqrt(sum(M^2 (T - tm)^2) (A - 2 im F + im^2 sum(M^2))), numerators and denominators summed
 *   over the channels. No clamping: OpenCV clamps only the unmasked ratios. */

/* The value of element (x, y, c) of a host image as double. */
static double elem(const gip_image *im, int64_t x, int64_t y, int32_t c)
{
    const char *row = (const char *)im->data + y * im->stride;
    int64_t i = x * im->channels + c;
    return im->dtype == GIP_U8 ? ((const uint8_t *)row)[i] : ((const float *)row)[i];
}

gip_status gip_match_template_masked(gip_context *ctx, const gip_image *image,
                                     const gip_image *templ, const gip_image *mask, int32_t method,
                                     gip_image *result)
{
    static const char op[] = "gip_match_template_masked";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (!mask)
        return gip_match_template(ctx, image, templ, method, result);
    if ((st = gip__image_check_ctx(ctx, mask, op, "mask")) ||
        (st = gip__image_check_ctx(ctx, image, op, "image")) ||
        (st = gip__image_check_ctx(ctx, templ, op, "templ")))
        return st;
    if (image->memory != GIP_MEM_HOST || templ->memory != GIP_MEM_HOST ||
        mask->memory != GIP_MEM_HOST || (result && result->memory != GIP_MEM_HOST))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: the masked forms take host images (device images: without a mask)",
                          op);
    if ((mask->dtype != GIP_U8 && mask->dtype != GIP_F32) ||
        (mask->channels != 1 && mask->channels != templ->channels))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: mask is %d-channel %s; u8 (binary) or f32 (weights), one channel "
                          "or templ's are accepted",
                          op, (int)mask->channels, gip_dtype_name(mask->dtype));
    if (mask->width != templ->width || mask->height != templ->height)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: mask is %lldx%lld but templ is %lldx%lld; they must be equal", op,
                          (long long)mask->width, (long long)mask->height, (long long)templ->width,
                          (long long)templ->height);
    /* the unmasked checks of every other argument, on a one-pixel window: the same messages */
    if (method < GIP_TM_SQDIFF || method > GIP_TM_CCOEFF_NORMED)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: method %d is not one of SQDIFF (0), SQDIFF_NORMED (1), CCORR (2), "
                          "CCORR_NORMED (3), CCOEFF (4), CCOEFF_NORMED (5)",
                          op, (int)method);
    if ((st = gip__image_check_ctx(ctx, result, op, "result")))
        return st;
    if ((st = gip__check_dtype(ctx, image, GIP__DT(GIP_U8) | GIP__DT(GIP_F32), op, "image")))
        return st;
    const int32_t cn = image->channels;
    if (templ->dtype != image->dtype || templ->channels != cn || (cn != 1 && cn != 3 && cn != 4))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: templ is %d-channel %s, image %d-channel %s; equal types of 1, 3 "
                          "or 4 channels are accepted",
                          op, (int)templ->channels, gip_dtype_name(templ->dtype), (int)cn,
                          gip_dtype_name(image->dtype));
    const int64_t W = image->width, H = image->height, w = templ->width, h = templ->height;
    if (w > W || h > H)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: templ is %lldx%lld, larger than image %lldx%lld", op, (long long)w,
                          (long long)h, (long long)W, (long long)H);
    const int64_t rw = W - w + 1, rh = H - h + 1;
    if ((st = check_result(ctx, result, rw, rh, op)))
        return st;
    if (gip__images_overlap(result, image) || gip__images_overlap(result, templ) ||
        gip__images_overlap(result, mask))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: result overlaps an input", op);

    const bool sqdiff = method <= GIP_TM_SQDIFF_NORMED, coeff = method >= GIP_TM_CCOEFF;
    const bool normed = method & 1;
    const int64_t n = w * h, N = W * H;
    /* kernels (5 per channel at most) and their constant sums */
    float *k = malloc((size_t)(n * 5) * sizeof *k);
    float *plane = malloc((size_t)N * sizeof *plane), *sq = malloc((size_t)N * sizeof *sq);
    float *corr = malloc((size_t)N * sizeof *corr);
    double *num = calloc((size_t)(rw * rh), sizeof *num),
           *da = calloc((size_t)(rw * rh), sizeof *da);
    if (!k || !plane || !sq || !corr || !num || !da) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
        goto out_free;
    }
    double tden = 0; /* sum((T M)^2), or sum(M^2 (T - tm)^2) for CCOEFF */
    gip_image pimg, simg, cimg;
    gip_image_wrap(&pimg, plane, W, H, 1, GIP_F32, 0, GIP_MEM_HOST, 0);
    gip_image_wrap(&simg, sq, W, H, 1, GIP_F32, 0, GIP_MEM_HOST, 0);
    gip_image_wrap(&cimg, corr, W, H, 1, GIP_F32, 0, GIP_MEM_HOST, 0);
    for (int32_t c = 0; c < cn; c++) {
        const int32_t mc = mask->channels == 1 ? 0 : c;
        double sm = 0, smt = 0, sm2 = 0;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                double m =
                    mask->dtype == GIP_U8 ? (elem(mask, x, y, mc) != 0) : elem(mask, x, y, mc);
                double t = elem(templ, x, y, c);
                sm += m, smt += m * t, sm2 += m * m;
            }
        const double tm = sm != 0 ? smt / sm : 0;
        double ksum_d = 0; /* sum(M^2 (T - tm)) */
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                double m =
                    mask->dtype == GIP_U8 ? (elem(mask, x, y, mc) != 0) : elem(mask, x, y, mc);
                double t = elem(templ, x, y, c);
                int64_t i = y * w + x;
                k[i] = (float)(m * m);                    /* M^2: A and F */
                k[n + i] = (float)(t * m * m);            /* T M^2: B */
                k[2 * n + i] = (float)m;                  /* M: E */
                k[3 * n + i] = (float)(m * m * (t - tm)); /* D */
                ksum_d += m * m * (t - tm);
                tden += coeff ? m * m * (t - tm) * (t - tm) : t * m * t * m;
            }
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                double v = elem(image, x, y, c);
                plane[y * W + x] = (float)v;
                sq[y * W + x] = (float)(v * v);
            }
        /* A: the windows' sums of (I M)^2 */
        if ((st = correlate(ctx, &simg, k, (int32_t)w, (int32_t)h, &cimg)))
            goto out_free;
        for (int64_t y = 0; y < rh; y++)
            for (int64_t x = 0; x < rw; x++)
                da[y * rw + x] += corr[y * W + x];
        if (!coeff) {
            if ((st = correlate(ctx, &pimg, k + n, (int32_t)w, (int32_t)h, &cimg)))
                goto out_free;
            for (int64_t y = 0; y < rh; y++)
                for (int64_t x = 0; x < rw; x++)
                    num[y * rw + x] += sqdiff ? -2.0 * corr[y * W + x] : corr[y * W + x];
            continue;
        }
        /* CCOEFF: D, E (im), F; the window's sum of I'^2 goes into da (less A, added above) */
        float *e = malloc((size_t)(rw * rh) * 2 * sizeof *e);
        if (!e) {
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
            goto out_free;
        }
        float *f = e + rw * rh;
        if (!(st = correlate(ctx, &pimg, k + 2 * n, (int32_t)w, (int32_t)h, &cimg)))
            for (int64_t y = 0; y < rh; y++)
                for (int64_t x = 0; x < rw; x++)
                    e[y * rw + x] = corr[y * W + x];
        if (!st && !(st = correlate(ctx, &pimg, k, (int32_t)w, (int32_t)h, &cimg)))
            for (int64_t y = 0; y < rh; y++)
                for (int64_t x = 0; x < rw; x++)
                    f[y * rw + x] = corr[y * W + x];
        if (!st && !(st = correlate(ctx, &pimg, k + 3 * n, (int32_t)w, (int32_t)h, &cimg)))
            for (int64_t y = 0; y < rh; y++)
                for (int64_t x = 0; x < rw; x++) {
                    int64_t i = y * rw + x;
                    double im = sm != 0 ? e[i] / sm : 0;
                    num[i] += corr[y * W + x] - im * ksum_d;
                    da[i] += -2.0 * im * f[i] + im * im * sm2;
                }
        free(e);
        if (st)
            goto out_free;
    }
    for (int64_t y = 0; y < rh; y++) {
        float *o = (float *)((char *)result->data + y * result->stride);
        for (int64_t x = 0; x < rw; x++) {
            int64_t i = y * rw + x;
            double v = num[i];
            if (sqdiff)
                v += da[i] + tden;
            if (normed)
                v /= sqrt(tden * da[i]);
            o[x] = (float)v;
        }
    }
    st = GIP_OK;
out_free:
    free(k);
    free(plane);
    free(sq);
    free(corr);
    free(num);
    free(da);
    return st;
}
