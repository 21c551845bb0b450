/* SPDX-License-Identifier: MIT */
/* NPP peers of the stats rows (see npp_peers.h and ops_stats.c).
 *
 * Outputs: NPP's reductions write device memory (no sync): the histograms, extremes, positions,
 * means and deviations go to the row's small device `dst` (ops_stats.c sizes it for them);
 * gip's calls return host values and synchronise, which the notes say. Scratch buffers: each
 * peer asks NPP for its size once per image size and takes it from a device buffer kept across
 * runs (grown when a row needs more, freed at exit), so no run allocates. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "npp_peers.h"

/* ---- scratch ------------------------------------------------------------------------------ */

enum { SCRATCH_MAIN, SCRATCH_COMPRESS, SCRATCH_LABELS, SCRATCH_N };

static struct {
    void *p;
    size_t cap;
} scratch[SCRATCH_N];
static int scratch_atexit;

static void scratch_free(void)
{
    for (int i = 0; i < SCRATCH_N; i++) {
        cudaFree(scratch[i].p);
        scratch[i].p = NULL;
        scratch[i].cap = 0;
    }
}

/* A device buffer of at least `bytes` (at least 1) in slot `k`; NULL when cudaMalloc fails.
 * Grows only on a row's first (untimed) call: its size never changes within a row. */
static Npp8u *scratch_get(int k, size_t bytes)
{
    if (bytes < 1)
        bytes = 1;
    if (scratch[k].cap < bytes) {
        cudaFree(scratch[k].p); /* waits for the device: no queued run still uses it */
        scratch[k].p = NULL;
        scratch[k].cap = 0;
        if (cudaMalloc(&scratch[k].p, bytes) != cudaSuccess) {
            cudaGetLastError();
            return NULL;
        }
        scratch[k].cap = bytes;
        if (!scratch_atexit)
            scratch_atexit = !atexit(scratch_free);
    }
    return scratch[k].p;
}

/* A scratch size asked once per image size: `sz` keeps the size it was asked for. */
typedef struct size_memo {
    int w, h;
    size_t bytes;
} size_memo;

static int memo_hit(const size_memo *m, NppiSize roi)
{
    return m->w == roi.width && m->h == roi.height && m->w > 0;
}

static void memo_set(size_memo *m, NppiSize roi, size_t bytes)
{
    m->w = roi.width;
    m->h = roi.height;
    m->bytes = bytes;
}

/* Declares `buf`, the scratch of slot K for this row, its size from EXPR (a status; the size in
 * variable n_, of type T) the first time an image size is seen. */
#define SCRATCH(buf, K, T, EXPR)                                                                   \
    static size_memo memo_##buf;                                                                   \
    Npp8u *buf;                                                                                    \
    if (!memo_hit(&memo_##buf, ROI)) {                                                             \
        T n_ = 0;                                                                                  \
        NppStatus st_ = (EXPR);                                                                    \
        if (st_ < 0)                                                                               \
            return st_;                                                                            \
        memo_set(&memo_##buf, ROI, (size_t)n_);                                                    \
    }                                                                                              \
    if (!(buf = scratch_get(K, memo_##buf.bytes)))                                                 \
    return NPP_MEMORY_ALLOCATION_ERR

/* Byte offset `off` into the row's small device destination, as a T pointer. */
#define DST_AT(T, off) ((T *)((Npp8u *)s->dst.data + (off)))

/* ---- histograms --------------------------------------------------------------------------- */

static NppStatus hist_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t,
                            NppStreamContext c)
{
    SCRATCH(buf, SCRATCH_MAIN, size_t, nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(ROI, 257, &n_, c));
    return nppiHistogramEven_8u_C1R_Ctx(SRC(Npp8u), ROI, DST_AT(Npp32s, 0), 257, 0, 256, buf, c);
}

static NppStatus hist_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t,
                            NppStreamContext c)
{
    int levels[3] = {257, 257, 257};
    Npp32s lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
    Npp32s *hist[3];
    for (int k = 0; k < 3; k++)
        hist[k] = DST_AT(Npp32s, k * s->dst.stride); /* a row of 256 counts per channel */
    SCRATCH(buf, SCRATCH_MAIN, size_t,
            nppiHistogramEvenGetBufferSize_8u_C3R_Ctx(ROI, levels, &n_, c));
    return nppiHistogramEven_8u_C3R_Ctx(SRC(Npp8u), ROI, hist, levels, lower, upper, buf, c);
}

/* ---- extremes, mean and deviation --------------------------------------------------------- */

/* dst bytes 0 and 8: min and max; 16 and 24: their positions (NppiPoint x, y). */
static NppStatus minmax_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t,
                              NppStreamContext c)
{
    SCRATCH(buf, SCRATCH_MAIN, size_t, nppiMinMaxIndxGetBufferHostSize_8u_C1R_Ctx(ROI, &n_, c));
    return nppiMinMaxIndx_8u_C1R_Ctx(SRC(Npp8u), ROI, DST_AT(Npp8u, 0), DST_AT(Npp8u, 8),
                                     DST_AT(NppiPoint, 16), DST_AT(NppiPoint, 24), buf, c);
}

static NppStatus minmax_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t,
                               NppStreamContext c)
{
    SCRATCH(buf, SCRATCH_MAIN, size_t, nppiMinMaxIndxGetBufferHostSize_32f_C1R_Ctx(ROI, &n_, c));
    return nppiMinMaxIndx_32f_C1R_Ctx(SRC(Npp32f), ROI, DST_AT(Npp32f, 0), DST_AT(Npp32f, 8),
                                      DST_AT(NppiPoint, 16), DST_AT(NppiPoint, 24), buf, c);
}

/* dst doubles 2k and 2k + 1: mean and standard deviation of channel k. */
static NppStatus meanstd_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t,
                               NppStreamContext c)
{
    SCRATCH(buf, SCRATCH_MAIN, size_t, nppiMeanStdDevGetBufferHostSize_8u_C1R_Ctx(ROI, &n_, c));
    return nppiMean_StdDev_8u_C1R_Ctx(SRC(Npp8u), ROI, buf, DST_AT(Npp64f, 0), DST_AT(Npp64f, 8),
                                      c);
}

static NppStatus meanstd_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t,
                                NppStreamContext c)
{
    SCRATCH(buf, SCRATCH_MAIN, size_t, nppiMeanStdDevGetBufferHostSize_32f_C1R_Ctx(ROI, &n_, c));
    return nppiMean_StdDev_32f_C1R_Ctx(SRC(Npp32f), ROI, buf, DST_AT(Npp64f, 0), DST_AT(Npp64f, 8),
                                       c);
}

/* Three calls, one per channel of interest (NPP has no all-channel Mean_StdDev for C3). */
static NppStatus meanstd_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t,
                               NppStreamContext c)
{
    SCRATCH(buf, SCRATCH_MAIN, size_t, nppiMeanStdDevGetBufferHostSize_8u_C3CR_Ctx(ROI, &n_, c));
    for (int k = 0; k < 3; k++) {
        NppStatus st = nppiMean_StdDev_8u_C3CR_Ctx(
            SRC(Npp8u), ROI, k + 1, buf, DST_AT(Npp64f, 16 * k), DST_AT(Npp64f, 16 * k + 8), c);
        if (st < 0)
            return st;
    }
    return NPP_SUCCESS;
}

/* ---- integral ----------------------------------------------------------------------------- */

/* (W + 1) x (H + 1) s32 with row and column 0 zero, as cv2.integral (nVal 0). */
static NppStatus integral_8u32s(const bench_set *s, NppiBorderType b, const npp_taps *t,
                                NppStreamContext c)
{
    return nppiIntegral_8u32s_C1R_Ctx(SRC(Npp8u), DST(Npp32s), ROI, 0, c);
}

/* ---- matchTemplate CCOEFF_NORMED ---------------------------------------------------------- */

/* The template ops_stats.c cut into aux[0] (absent when gip's row did not prepare the set). */
static NppStatus match_8u32f(const bench_set *s, NppiBorderType b, const npp_taps *t,
                             NppStreamContext c)
{
    if (!s->aux[0].data)
        return NPP_NULL_POINTER_ERROR;
    NppiSize tpl = {(int)s->aux[0].width, (int)s->aux[0].height};
    SCRATCH(buf, SCRATCH_MAIN, size_t,
            nppiValidNormLevelGetBufferHostSize_8u32f_C1R_Ctx(ROI, &n_, c));
    return nppiCrossCorrValid_NormLevel_8u32f_C1R_Ctx(
        SRC(Npp8u), ROI, (const Npp8u *)s->aux[0].data, (int)s->aux[0].stride, tpl, DST(Npp32f),
        buf, c);
}

/* ---- connected components ----------------------------------------------------------------- */

/* NPP wants the labels' pitch to be exactly width * 4: the row's s32 destination where its
 * stride is that (the benchmark's sizes), else a tight buffer of the same size. */
static Npp32u *labels_out(const bench_set *s)
{
    size_t tight = (size_t)s->src.width * sizeof(Npp32u);
    if ((size_t)s->dst.stride == tight)
        return (Npp32u *)s->dst.data;
    return (Npp32u *)scratch_get(SCRATCH_LABELS, tight * (size_t)s->src.height);
}

static NppStatus label_uf(const bench_set *s, NppiBorderType b, const npp_taps *t,
                          NppStreamContext c)
{
    Npp32u *out = labels_out(s);
    if (!out)
        return NPP_MEMORY_ALLOCATION_ERR;
    SCRATCH(buf, SCRATCH_MAIN, int, nppiLabelMarkersUFGetBufferSize_32u_C1R(ROI, &n_));
    return nppiLabelMarkersUF_8u32u_C1R_Ctx((Npp8u *)s->src.data, (int)s->src.stride, out,
                                            ROI.width * (int)sizeof(Npp32u), ROI, nppiNormInf, buf,
                                            c);
}

/* LabelMarkersUF, then CompressMarkerLabelsUF: consecutive labels and their count on the host
 * (a sync), what gip's call returns. */
static NppStatus label_uf_compress(const bench_set *s, NppiBorderType b, const npp_taps *t,
                                   NppStreamContext c)
{
    Npp32u *out = labels_out(s);
    int n = 0, start = ROI.width * ROI.height;
    if (!out)
        return NPP_MEMORY_ALLOCATION_ERR;
    SCRATCH(buf, SCRATCH_MAIN, int, nppiLabelMarkersUFGetBufferSize_32u_C1R(ROI, &n_));
    SCRATCH(cbuf, SCRATCH_COMPRESS, int, nppiCompressMarkerLabelsGetBufferSize_32u_C1R(start, &n_));
    int pitch = ROI.width * (int)sizeof(Npp32u);
    NppStatus st = nppiLabelMarkersUF_8u32u_C1R_Ctx((Npp8u *)s->src.data, (int)s->src.stride, out,
                                                    pitch, ROI, nppiNormInf, buf, c);
    if (st < 0)
        return st;
    return nppiCompressMarkerLabelsUF_32u_C1IR_Ctx(out, pitch, ROI, start, &n, cbuf, c);
}

#define HOST_NOTE "; results left in device memory, no sync (gip: host values, synchronous)"
#define LABEL_NOTE                                                                                 \
    "LabelMarkersUF 8-way (NormInf; per its docs every equal-value region gets a label, "          \
    "background too)"

/* clang-format off */
const npp_peer bench_npp_stats[] = {
    {"hist256", "u8c1", "npp_histeven", 0, hist_8u_c1,
     "nppiHistogramEven 257 levels 0..256, s32 counts" HOST_NOTE},
    {"hist256", "u8c3", "npp_histeven", 0, hist_8u_c3,
     "nppiHistogramEven_C3R, all three channels in one call, s32 counts" HOST_NOTE},
    {"minmax_loc", "u8c1", "npp_minmaxindx", 0, minmax_8u_c1,
     "nppiMinMaxIndx, the same 1..254 source" HOST_NOTE},
    {"minmax_loc", "f32c1", "npp_minmaxindx", 0, minmax_32f_c1, "nppiMinMaxIndx" HOST_NOTE},
    {"meanstd", "u8c1", "npp_mean_stddev", 0, meanstd_8u_c1, "nppiMean_StdDev" HOST_NOTE},
    {"meanstd", "f32c1", "npp_mean_stddev", 0, meanstd_32f_c1, "nppiMean_StdDev" HOST_NOTE},
    {"meanstd", "u8c3", "npp_mean_stddev", 0, meanstd_8u_c3,
     "nppiMean_StdDev_8u_C3CR three times, one call per channel of interest" HOST_NOTE},
    {"integral", "u8c1", "npp_integral", 0, integral_8u32s,
     "nppiIntegral_8u32s, (W+1) x (H+1) as cv2's"},
    {"match32", "u8c1", "npp_crosscorr_normlevel", 0, match_8u32f,
     "nppiCrossCorrValid_NormLevel_8u32f (CCOEFF_NORMED), the same template"},
    {"match256", "u8c1", "npp_crosscorr_normlevel", 0, match_8u32f,
     "nppiCrossCorrValid_NormLevel_8u32f (CCOEFF_NORMED), the same template"},
    {"ccl", "u8c1", "npp_label_uf", 0, label_uf,
     LABEL_NOTE ", sparse u32 ids, no sync"},
    {"ccl", "u8c1", "npp_label_uf_compress", 0, label_uf_compress,
     LABEL_NOTE " + CompressMarkerLabelsUF: dense ids, count to host (sync)"},
};
/* clang-format on */
const int bench_npp_nstats = (int)(sizeof bench_npp_stats / sizeof bench_npp_stats[0]);
