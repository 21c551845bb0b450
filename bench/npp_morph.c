/* SPDX-License-Identifier: MIT */
/* NPP peers of the morph rows (see npp_peers.h): issue 41's erosion, opening, median, bilateral,
 * Laplacian and Canny. What they need on the device besides the images (the structuring elements,
 * NPP's scratch buffers, the opening's intermediate image) is made on a peer's first call, which
 * is untimed (the border probe or the warm-up), kept while later calls fit in it, and freed at
 * exit: no allocation happens inside a timed run. */
#include <stdlib.h>

#include <cuda_runtime_api.h>
#include <npp.h>

#include "npp_peers.h"

/* A device buffer that grows to the largest size asked for. */
typedef struct scratch {
    void *p;
    size_t size;
} scratch;

/* The structuring elements: 15x15 ones (its first 9 bytes are the 3x3 rectangle) then OpenCV's
 * 5x5 ellipse, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)). */
#define MASK_ONES 0
#define MASK_ELLIPSE5 225
static const Npp8u ellipse5[25] = {0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                   1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0};

static scratch masks, median_buf, canny_buf, open_tmp, morph_buf;
static int atexit_done;

static void free_all(void)
{
    scratch *all[] = {&masks, &median_buf, &canny_buf, &open_tmp, &morph_buf};
    for (int i = 0; i < 5; i++) {
        cudaFree(all[i]->p);
        all[i]->p = NULL;
        all[i]->size = 0;
    }
}

/* The buffer, at least `size` bytes; NULL when the allocation fails. A buffer that must grow is
 * freed once the stream's queued work (which may use it) is done. */
static void *scratch_get(scratch *s, size_t size, cudaStream_t stream)
{
    if (size == 0)
        size = 1;
    if (s->p && s->size >= size)
        return s->p;
    if (!atexit_done) {
        atexit(free_all);
        atexit_done = 1;
    }
    if (s->p) {
        cudaStreamSynchronize(stream);
        cudaFree(s->p);
        s->p = NULL;
        s->size = 0;
    }
    if (cudaMalloc(&s->p, size) != cudaSuccess) {
        cudaGetLastError();
        s->p = NULL;
        return NULL;
    }
    s->size = size;
    return s->p;
}

static const Npp8u *mask_at(int offset, cudaStream_t stream)
{
    if (!masks.p) {
        Npp8u host[225 + 25];
        for (int i = 0; i < 225; i++)
            host[MASK_ONES + i] = 1;
        for (int i = 0; i < 25; i++)
            host[MASK_ELLIPSE5 + i] = ellipse5[i];
        if (!scratch_get(&masks, sizeof host, stream))
            return NULL;
        if (cudaMemcpy(masks.p, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) {
            cudaGetLastError();
            cudaFree(masks.p);
            masks.p = NULL;
            masks.size = 0;
            return NULL;
        }
    }
    return (const Npp8u *)masks.p + offset;
}

/* ---- erosion, opening ---------------------------------------------------------------------- */

/* NPP's morphology takes only a replicated border, which for these elements (symmetric, every
 * row and column of them one run of ones) equals OpenCV's default (the outside never wins). */
static NppStatus erode(const bench_set *s, int k, int ch, NppStreamContext c)
{
    const Npp8u *m = mask_at(MASK_ONES, c.hStream);
    NppiSize ms = {k, k};
    NppiPoint anchor = {k / 2, k / 2};
    if (!m)
        return NPP_MEMORY_ALLOCATION_ERR;
    if (ch == 1)
        return nppiErodeBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, m, ms, anchor,
                                          NPP_BORDER_REPLICATE, c);
    return nppiErodeBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, m, ms, anchor,
                                      NPP_BORDER_REPLICATE, c);
}

static NppStatus open5(const bench_set *s, int ch, NppStreamContext c)
{
    const Npp8u *m = mask_at(MASK_ELLIPSE5, c.hStream);
    Npp8u *tmp = scratch_get(&open_tmp, (size_t)s->src.stride * (size_t)s->src.height, c.hStream);
    NppiSize ms = {5, 5};
    NppiPoint anchor = {2, 2};
    int step = (int)s->src.stride;
    NppStatus st;
    if (!m || !tmp)
        return NPP_MEMORY_ALLOCATION_ERR;
    if (ch == 1) {
        st = nppiErodeBorder_8u_C1R_Ctx(BSRC(Npp8u), tmp, step, ROI, m, ms, anchor,
                                        NPP_BORDER_REPLICATE, c);
        if (st < 0)
            return st;
        return nppiDilateBorder_8u_C1R_Ctx(tmp, step, ROI, ORIGIN, DST(Npp8u), ROI, m, ms, anchor,
                                           NPP_BORDER_REPLICATE, c);
    }
    st = nppiErodeBorder_8u_C3R_Ctx(BSRC(Npp8u), tmp, step, ROI, m, ms, anchor,
                                    NPP_BORDER_REPLICATE, c);
    if (st < 0)
        return st;
    return nppiDilateBorder_8u_C3R_Ctx(tmp, step, ROI, ORIGIN, DST(Npp8u), ROI, m, ms, anchor,
                                       NPP_BORDER_REPLICATE, c);
}

/* nppiMorphOpenBorder: NPP's own opening, its scratch buffer from nppiMorphGetBufferSize. */
static NppStatus morph_open5(const bench_set *s, int ch, NppStreamContext c)
{
    const Npp8u *m = mask_at(MASK_ELLIPSE5, c.hStream);
    NppiSize ms = {5, 5};
    NppiPoint anchor = {2, 2};
    int size = 0;
    NppStatus st = ch == 1 ? nppiMorphGetBufferSize_8u_C1R(ROI, &size)
                           : nppiMorphGetBufferSize_8u_C3R(ROI, &size);
    if (st < 0)
        return st;
    Npp8u *buf = scratch_get(&morph_buf, (size_t)size, c.hStream);
    if (!m || !buf)
        return NPP_MEMORY_ALLOCATION_ERR;
    if (ch == 1)
        return nppiMorphOpenBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, m, ms, anchor, buf,
                                              NPP_BORDER_REPLICATE, c);
    return nppiMorphOpenBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, m, ms, anchor, buf,
                                          NPP_BORDER_REPLICATE, c);
}

/* ---- median -------------------------------------------------------------------------------- */

/* NPP's median has no border handling (it reads outside its ROI): it runs on the interior, the
 * ROI shrunk by the radius on every side, sources and destinations offset alike. */
static NppStatus median(const bench_set *s, int k, int ch, NppStreamContext c)
{
    int r = k / 2;
    NppiSize roi = {(int)s->src.width - 2 * r, (int)s->src.height - 2 * r};
    NppiSize ms = {k, k};
    NppiPoint anchor = {r, r};
    const Npp8u *src = (const Npp8u *)s->src.data + (size_t)r * (size_t)s->src.stride + r * ch;
    Npp8u *dst = (Npp8u *)s->dst.data + (size_t)r * (size_t)s->dst.stride + r * ch;
    Npp32u size = 0;
    NppStatus st;
    if (roi.width < 1 || roi.height < 1)
        return NPP_SIZE_ERROR;
    st = ch == 1 ? nppiFilterMedianGetBufferSize_8u_C1R_Ctx(roi, ms, &size, c)
                 : nppiFilterMedianGetBufferSize_8u_C3R_Ctx(roi, ms, &size, c);
    if (st < 0)
        return st;
    Npp8u *buf = scratch_get(&median_buf, size, c.hStream);
    if (!buf)
        return NPP_MEMORY_ALLOCATION_ERR;
    if (ch == 1)
        return nppiFilterMedian_8u_C1R_Ctx(src, (int)s->src.stride, dst, (int)s->dst.stride, roi,
                                           ms, anchor, buf, c);
    return nppiFilterMedian_8u_C3R_Ctx(src, (int)s->src.stride, dst, (int)s->dst.stride, roi, ms,
                                       anchor, buf, c);
}

/* nppiFilterMedianBorder: the whole image with a replicated border, as gip's and OpenCV's
 * median. Its scratch size is the larger of its own function's and the borderless median's for
 * the same ROI. */
static NppStatus median_border(const bench_set *s, int k, int ch, NppStreamContext c)
{
    NppiSize ms = {k, k};
    NppiPoint anchor = {k / 2, k / 2};
    Npp32u size = 0, plain = 0;
    NppStatus st;
    st = ch == 1 ? nppiFilterMedianBorderGetBufferSize_8u_C1R_Ctx(ROI, ms, &size,
                                                                  NPP_BORDER_REPLICATE, c)
                 : nppiFilterMedianBorderGetBufferSize_8u_C3R_Ctx(ROI, ms, &size,
                                                                  NPP_BORDER_REPLICATE, c);
    if (st < 0)
        return st;
    st = ch == 1 ? nppiFilterMedianGetBufferSize_8u_C1R_Ctx(ROI, ms, &plain, c)
                 : nppiFilterMedianGetBufferSize_8u_C3R_Ctx(ROI, ms, &plain, c);
    if (st < 0)
        return st;
    Npp8u *buf = scratch_get(&median_buf, size > plain ? size : plain, c.hStream);
    if (!buf)
        return NPP_MEMORY_ALLOCATION_ERR;
    if (ch == 1)
        return nppiFilterMedianBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, ms, anchor, buf,
                                                 NPP_BORDER_REPLICATE, c);
    return nppiFilterMedianBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, ms, anchor, buf,
                                             NPP_BORDER_REPLICATE, c);
}

/* ---- Canny --------------------------------------------------------------------------------- */

static NppStatus canny(const bench_set *s, NppStreamContext c)
{
    int size = 0;
    NppStatus st = nppiFilterCannyBorderGetBufferSize(ROI, &size);
    if (st < 0)
        return st;
    Npp8u *buf = scratch_get(&canny_buf, (size_t)size, c.hStream);
    if (!buf)
        return NPP_MEMORY_ALLOCATION_ERR;
    return nppiFilterCannyBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_FILTER_SOBEL,
                                            NPP_MASK_SIZE_3_X_3, 50, 150, nppiNormL2,
                                            NPP_BORDER_REPLICATE, buf, c);
}

/* clang-format off */
static NppStatus erode3_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return erode(s, 3, 1, c); }
static NppStatus erode3_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return erode(s, 3, 3, c); }
static NppStatus erode15_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return erode(s, 15, 1, c); }
static NppStatus erode15_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return erode(s, 15, 3, c); }
static NppStatus erode3x3_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiErode3x3Border_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_BORDER_REPLICATE, c); }
static NppStatus erode3x3_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiErode3x3Border_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_BORDER_REPLICATE, c); }
static NppStatus open5_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return open5(s, 1, c); }
static NppStatus open5_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return open5(s, 3, c); }
static NppStatus mopen5_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return morph_open5(s, 1, c); }
static NppStatus mopen5_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return morph_open5(s, 3, c); }
static NppStatus median3_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median(s, 3, 1, c); }
static NppStatus median3_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median(s, 3, 3, c); }
static NppStatus median5_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median(s, 5, 1, c); }
static NppStatus median5_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median(s, 5, 3, c); }
static NppStatus median15_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median(s, 15, 1, c); }
static NppStatus median15_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median(s, 15, 3, c); }
static NppStatus mb3_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median_border(s, 3, 1, c); }
static NppStatus mb3_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median_border(s, 3, 3, c); }
static NppStatus mb5_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median_border(s, 5, 1, c); }
static NppStatus mb5_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return median_border(s, 5, 3, c); }
static NppStatus bilat_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBilateralGaussBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, 4, 1, 75.0f * 75.0f, 75.0f * 75.0f, b, c); }
static NppStatus bilat_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBilateralGaussBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, 4, 1, 75.0f * 75.0f, 75.0f * 75.0f, b, c); }
static NppStatus lap_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterLaplaceBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_MASK_SIZE_3_X_3, b, c); }
static NppStatus lap_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterLaplaceBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_MASK_SIZE_3_X_3, b, c); }
static NppStatus canny_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return canny(s, c); }

#define MORPH_BORDER "; border replicate (= OpenCV's default for this element)"
#define ERODE_NOTE "nppiErodeBorder, a mask of ones" MORPH_BORDER
#define ERODE3X3_NOTE "nppiErode3x3Border (fixed 3x3 element)" MORPH_BORDER
#define OPEN_NOTE "nppiErodeBorder + nppiDilateBorder, OpenCV's 5x5 ellipse, via a scratch image" MORPH_BORDER
#define MOPEN_NOTE "nppiMorphOpenBorder (one call, scratch buffer made once), OpenCV's 5x5 ellipse" MORPH_BORDER
#define MEDIAN_NOTE "nppiFilterMedian has no border: interior ROI (shrunk by the radius), edge band not written; gip: replicate border, whole image"
#define MEDIANB_NOTE "nppiFilterMedianBorder, whole image, border replicate (as gip and cv2.medianBlur)"
#define BILAT_NOTE "nppiFilterBilateralGaussBorder radius 4, sigma^2 75^2 both, step 1; NPP's own weights"
#define LAP_NOTE "nppiFilterLaplaceBorder 3x3 [-1 -1 -1; -1 8 -1; -1 -1 -1], not cv2's [2 0 2; 0 -8 0; 2 0 2]"
#define CANNY_NOTE "nppiFilterCannyBorder Sobel 3x3, 50/150, L2; border replicate (as OpenCV's Canny); NPP's own suppression and hysteresis"

const npp_peer bench_npp_morph[] = {
    {"erode3", "u8c1", "npp_erode", 0, erode3_c1, ERODE_NOTE},
    {"erode3", "u8c3", "npp_erode", 0, erode3_c3, ERODE_NOTE},
    {"erode3", "u8c1", "npp_erode3x3", 0, erode3x3_c1, ERODE3X3_NOTE},
    {"erode3", "u8c3", "npp_erode3x3", 0, erode3x3_c3, ERODE3X3_NOTE},
    {"erode15", "u8c1", "npp_erode", 0, erode15_c1, ERODE_NOTE},
    {"erode15", "u8c3", "npp_erode", 0, erode15_c3, ERODE_NOTE},
    {"open5_ellipse", "u8c1", "npp_open", 0, open5_c1, OPEN_NOTE},
    {"open5_ellipse", "u8c3", "npp_open", 0, open5_c3, OPEN_NOTE},
    {"open5_ellipse", "u8c1", "npp_morph_open", 0, mopen5_c1, MOPEN_NOTE},
    {"open5_ellipse", "u8c3", "npp_morph_open", 0, mopen5_c3, MOPEN_NOTE},
    {"median3", "u8c1", "npp_median", 0, median3_c1, MEDIAN_NOTE},
    {"median3", "u8c3", "npp_median", 0, median3_c3, MEDIAN_NOTE},
    {"median3", "u8c1", "npp_median_border", 0, mb3_c1, MEDIANB_NOTE},
    {"median3", "u8c3", "npp_median_border", 0, mb3_c3, MEDIANB_NOTE},
    {"median5", "u8c1", "npp_median", 0, median5_c1, MEDIAN_NOTE},
    {"median5", "u8c3", "npp_median", 0, median5_c3, MEDIAN_NOTE},
    {"median5", "u8c1", "npp_median_border", 0, mb5_c1, MEDIANB_NOTE},
    {"median5", "u8c3", "npp_median_border", 0, mb5_c3, MEDIANB_NOTE},
    {"median15", "u8c1", "npp_median", 0, median15_c1, MEDIAN_NOTE},
    {"median15", "u8c3", "npp_median", 0, median15_c3, MEDIAN_NOTE},
    /* No npp_median_border for median15: NPP 13.0.1's nppiFilterMedianBorder with a 15x15 mask
     * made an illegal memory access on an H100 (3840x2160 u8c1, 2026-12-06), which ends the
     * process's CUDA context and every row after it. */
    {"bilateral9", "u8c1", "npp_bilateral", 1, bilat_c1, BILAT_NOTE},
    {"bilateral9", "u8c3", "npp_bilateral", 1, bilat_c3, BILAT_NOTE},
    {"laplacian3", "u8c1", "npp_laplace", 1, lap_c1, LAP_NOTE},
    {"laplacian3", "u8c3", "npp_laplace", 1, lap_c3, LAP_NOTE},
    {"canny3_l2", "u8c1", "npp_canny", 0, canny_c1, CANNY_NOTE},
};
/* clang-format on */
const int bench_npp_nmorph = (int)(sizeof bench_npp_morph / sizeof bench_npp_morph[0]);
