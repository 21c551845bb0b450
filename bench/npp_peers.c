/* SPDX-License-Identifier: MIT */
/* NPP peers of gip-bench: the NPP function doing each row's work, on the same device buffers and
 * the same stream as gip's row (the *_Ctx API), timed by the same function (bench_time_gpu). */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <npp.h>

#include "bench.h"
#include "ops.h"

#include "npp_peers.h"

/* clang-format off */
static NppStatus copy_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiCopy_8u_C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
static NppStatus copy_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiCopy_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
static NppStatus copy_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiCopy_32f_C1R_Ctx(SRC(Npp32f), DST(Npp32f), ROI, c); }
static NppStatus conv_8u32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiConvert_8u32f_C1R_Ctx(SRC(Npp8u), DST(Npp32f), ROI, c); }
static NppStatus conv_8u32f_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiConvert_8u32f_C3R_Ctx(SRC(Npp8u), DST(Npp32f), ROI, c); }
static NppStatus gray_8u(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiRGBToGray_8u_C3C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
static NppStatus not_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiNot_8u_C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
static NppStatus not_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiNot_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
static NppStatus not_8u_c4(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiNot_8u_C4R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
static NppStatus box_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBoxBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, BOX3, b, c); }
static NppStatus box_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBoxBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, BOX3, b, c); }
static NppStatus box_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBoxBorder_32f_C1R_Ctx(BSRC(Npp32f), DST(Npp32f), ROI, BOX3, b, c); }
static NppStatus f2d32f_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBorder32f_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, t->filter32f, BOX3, b, c); }
static NppStatus f2d32f_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBorder32f_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, t->filter32f, BOX3, b, c); }
static NppStatus f2d_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, t->filter32s, BOX3, bench_filter2d_divisor, b, c); }
static NppStatus f2d_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, t->filter32s, BOX3, bench_filter2d_divisor, b, c); }
static NppStatus f2d_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterBorder_32f_C1R_Ctx(BSRC(Npp32f), DST(Npp32f), ROI, t->filter32f, BOX3, b, c); }
static NppStatus sobv_8u16s_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelVertBorder_8u16s_C1R_Ctx(BSRC(Npp8u), DST(Npp16s), ROI, NPP_MASK_SIZE_3_X_3, b, c); }
static NppStatus sobh_8u16s_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelHorizBorder_8u16s_C1R_Ctx(BSRC(Npp8u), DST(Npp16s), ROI, NPP_MASK_SIZE_3_X_3, b, c); }
static NppStatus sobv_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelVertBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, b, c); }
static NppStatus sobh_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelHorizBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, b, c); }
static NppStatus sobv_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelVertBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, b, c); }
static NppStatus sobh_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelHorizBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, b, c); }
static NppStatus sobv_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelVertBorder_32f_C1R_Ctx(BSRC(Npp32f), DST(Npp32f), ROI, b, c); }
static NppStatus sobh_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterSobelHorizBorder_32f_C1R_Ctx(BSRC(Npp32f), DST(Npp32f), ROI, b, c); }
static NppStatus gauss_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterGaussBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_MASK_SIZE_15_X_15, b, c); }
static NppStatus gauss_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterGaussBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, NPP_MASK_SIZE_15_X_15, b, c); }
static NppStatus gauss_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterGaussBorder_32f_C1R_Ctx(BSRC(Npp32f), DST(Npp32f), ROI, NPP_MASK_SIZE_15_X_15, b, c); }
static NppStatus gadv_8u_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, 15, t->gauss15, b, c); }
static NppStatus gadv_8u_c3(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterGaussAdvancedBorder_8u_C3R_Ctx(BSRC(Npp8u), DST(Npp8u), ROI, 15, t->gauss15, b, c); }
static NppStatus gadv_32f_c1(const bench_set *s, NppiBorderType b, const npp_taps *t, NppStreamContext c) { return nppiFilterGaussAdvancedBorder_32f_C1R_Ctx(BSRC(Npp32f), DST(Npp32f), ROI, 15, t->gauss15, b, c); }

#define GAUSS_NOTE "NPP's fixed 15x15 taps (sigma 0.4 + 7 * 0.6 = 4.6), not gip's sigma 2.6"
#define SOBV_NOTE "nppiFilterSobelVertBorder: the x derivative, as gip's dx=1"
#define SOBH_NOTE "nppiFilterSobelHorizBorder: the y derivative; same cost, the issue's reference figure"
#define SOBU8_NOTE ", u8 output by NPP's own rule (gip: convertScaleAbs)"

static const npp_peer bench_npp_core[] = {
    {"copy", "u8c1", "npp_copy", 0, copy_8u_c1, "nppiCopy"},
    {"copy", "u8c3", "npp_copy", 0, copy_8u_c3, "nppiCopy"},
    {"copy", "f32c1", "npp_copy", 0, copy_32f_c1, "nppiCopy"},
    {"convert_f32", "u8c1", "npp_convert", 0, conv_8u32f_c1, "nppiConvert_8u32f"},
    {"convert_f32", "u8c3", "npp_convert", 0, conv_8u32f_c3, "nppiConvert_8u32f"},
    {"rgb2gray", "u8c3", "npp_rgb2gray", 0, gray_8u, "nppiRGBToGray (NPP's own rounding)"},
    {"invert", "u8c1", "npp_not", 0, not_8u_c1, "nppiNot"},
    {"invert", "u8c3", "npp_not", 0, not_8u_c3, "nppiNot"},
    {"invert", "u8c4", "npp_not", 0, not_8u_c4, "nppiNot"},
    {"box3", "u8c1", "npp_box", 1, box_8u_c1, "nppiFilterBoxBorder"},
    {"box3", "u8c3", "npp_box", 1, box_8u_c3, "nppiFilterBoxBorder"},
    {"box3", "f32c1", "npp_box", 1, box_32f_c1, "nppiFilterBoxBorder"},
    {"filter2d3", "u8c1", "npp_filter32f", 1, f2d32f_8u_c1, "nppiFilterBorder32f (float taps, as gip)"},
    {"filter2d3", "u8c3", "npp_filter32f", 1, f2d32f_8u_c3, "nppiFilterBorder32f (float taps, as gip)"},
    {"filter2d3", "u8c1", "npp_filter", 1, f2d_8u_c1, "nppiFilterBorder (integer taps / 20)"},
    {"filter2d3", "u8c3", "npp_filter", 1, f2d_8u_c3, "nppiFilterBorder (integer taps / 20)"},
    {"filter2d3", "f32c1", "npp_filter", 1, f2d_32f_c1, "nppiFilterBorder"},
    {"sobel_s16", "u8c1", "npp_sobel_vert", 1, sobv_8u16s_c1, SOBV_NOTE},
    {"sobel_s16", "u8c1", "npp_sobel_horiz", 1, sobh_8u16s_c1, SOBH_NOTE},
    {"sobel_u8", "u8c1", "npp_sobel_vert", 1, sobv_8u_c1, SOBV_NOTE SOBU8_NOTE},
    {"sobel_u8", "u8c1", "npp_sobel_horiz", 1, sobh_8u_c1, SOBH_NOTE SOBU8_NOTE},
    {"sobel_u8", "u8c3", "npp_sobel_vert", 1, sobv_8u_c3, SOBV_NOTE SOBU8_NOTE},
    {"sobel_u8", "u8c3", "npp_sobel_horiz", 1, sobh_8u_c3, SOBH_NOTE SOBU8_NOTE},
    {"sobel_f32", "f32c1", "npp_sobel_vert", 1, sobv_32f_c1, SOBV_NOTE},
    {"sobel_f32", "f32c1", "npp_sobel_horiz", 1, sobh_32f_c1, SOBH_NOTE},
    {"gaussian15", "u8c1", "npp_gauss", 1, gauss_8u_c1, GAUSS_NOTE},
    {"gaussian15", "u8c3", "npp_gauss", 1, gauss_8u_c3, GAUSS_NOTE},
    {"gaussian15", "f32c1", "npp_gauss", 1, gauss_32f_c1, GAUSS_NOTE},
    {"gaussian15", "u8c1", "npp_gauss_adv", 1, gadv_8u_c1, "nppiFilterGaussAdvancedBorder with gip's 15 taps"},
    {"gaussian15", "u8c3", "npp_gauss_adv", 1, gadv_8u_c3, "nppiFilterGaussAdvancedBorder with gip's 15 taps"},
    {"gaussian15", "f32c1", "npp_gauss_adv", 1, gadv_32f_c1, "nppiFilterGaussAdvancedBorder with gip's 15 taps"},
};
/* clang-format on */
#define NCORE ((int)(sizeof bench_npp_core / sizeof bench_npp_core[0]))

/* Every table's i-th peer, in order (core, geometry, colour, morphology, statistics). */
static const npp_peer *peer_at(int i)
{
    const npp_peer *t[] = {bench_npp_core, bench_npp_geometry, bench_npp_color, bench_npp_morph,
                           bench_npp_stats};
    const int n[] = {NCORE, bench_npp_ngeometry, bench_npp_ncolor, bench_npp_nmorph,
                     bench_npp_nstats};
    for (int k = 0; k < 5; k++) {
        if (i < n[k])
            return &t[k][i];
        i -= n[k];
    }
    return NULL;
}

const char *bench_npp_version(void)
{
    static char v[32];
    const NppLibraryVersion *lv = nppGetLibVersion();
    if (lv)
        snprintf(v, sizeof v, "%d.%d.%d", lv->major, lv->minor, lv->build);
    else
        snprintf(v, sizeof v, "unknown");
    return v;
}

/* The stream context NPP's *_Ctx functions need, filled as NPP's documentation shows. */
static int stream_context(cudaStream_t stream, NppStreamContext *c, char *err, size_t err_size)
{
    struct cudaDeviceProp p;
    memset(c, 0, sizeof *c);
    c->hStream = stream;
    if (cudaGetDevice(&c->nCudaDeviceId) != cudaSuccess ||
        cudaGetDeviceProperties(&p, c->nCudaDeviceId) != cudaSuccess ||
        cudaStreamGetFlags(stream, &c->nStreamFlags) != cudaSuccess) {
        snprintf(err, err_size, "NppStreamContext: %s", cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    c->nMultiProcessorCount = p.multiProcessorCount;
    c->nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    c->nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    c->nSharedMemPerBlock = p.sharedMemPerBlock;
    c->nCudaDevAttrComputeCapabilityMajor = p.major;
    c->nCudaDevAttrComputeCapabilityMinor = p.minor;
    return 0;
}

typedef struct npp_call {
    const npp_peer *peer;
    bench_set *sets;
    NppiBorderType border;
    const npp_taps *taps;
    NppStreamContext sc;
} npp_call;

static int call_npp(void *arg, int set, char *err, size_t err_size)
{
    npp_call *c = arg;
    NppStatus st = c->peer->fn(&c->sets[set], c->border, c->taps, c->sc);
    if (st >= 0)
        return 0;
    snprintf(err, err_size, "%s returned NPP status %d", c->peer->impl, (int)st);
    return -1;
}

static void taps_free(npp_taps *t)
{
    cudaFree(t->gauss15);
    cudaFree(t->filter32f);
    cudaFree(t->filter32s);
    memset(t, 0, sizeof *t);
}

static int taps_upload(npp_taps *t, char *err, size_t err_size)
{
    float g[15];
    bench_gaussian15_taps(g);
    memset(t, 0, sizeof *t);
    if (cudaMalloc((void **)&t->gauss15, sizeof g) != cudaSuccess ||
        cudaMalloc((void **)&t->filter32f, 9 * sizeof(Npp32f)) != cudaSuccess ||
        cudaMalloc((void **)&t->filter32s, 9 * sizeof(Npp32s)) != cudaSuccess ||
        cudaMemcpy(t->gauss15, g, sizeof g, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(t->filter32f, bench_filter2d_kernel, 9 * sizeof(Npp32f),
                   cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(t->filter32s, bench_filter2d_kernel_int, 9 * sizeof(Npp32s),
                   cudaMemcpyHostToDevice) != cudaSuccess) {
        snprintf(err, err_size, "coefficients: %s", cudaGetErrorString(cudaGetLastError()));
        taps_free(t);
        return -1;
    }
    return 0;
}

int bench_npp_run(const bench_cfg *cfg, void *stream, const char *op, const char *format,
                  bench_set *sets, int nsets, bench_peer_result *out, int max)
{
    int n = 0;
    npp_taps taps;
    NppStreamContext sc;
    int have_taps = 0;
    const npp_peer *p;
    for (int i = 0; (p = peer_at(i)) != NULL && n < max; i++) {
        if (strcmp(p->op, op) || strcmp(p->format, format))
            continue;
        bench_peer_result *r = &out[n++];
        memset(r, 0, sizeof *r);
        snprintf(r->impl, sizeof r->impl, "%s", p->impl);
        snprintf(r->note, sizeof r->note, "%s", p->note);
        if (!have_taps) {
            if (taps_upload(&taps, r->reason, sizeof r->reason)) {
                snprintf(r->status, sizeof r->status, "error");
                return n;
            }
            have_taps = 1;
            if (stream_context((cudaStream_t)stream, &sc, r->reason, sizeof r->reason)) {
                snprintf(r->status, sizeof r->status, "error");
                taps_free(&taps);
                return n;
            }
        }
        npp_call c = {p, sets, NPP_BORDER_MIRROR, &taps, sc};
        /* Mirror is gip's default border (reflect101); where NPP refuses it, replicate. */
        if (p->bordered) {
            NppStatus st = p->fn(&sets[0], NPP_BORDER_MIRROR, &taps, c.sc);
            if (st < 0) {
                c.border = NPP_BORDER_REPLICATE;
                snprintf(r->note, sizeof r->note,
                         "%s; border replicate (NPP refuses mirror "
                         "here; gip uses reflect101)",
                         p->note);
            } else {
                snprintf(r->note, sizeof r->note, "%s; border mirror (= reflect101, as gip)",
                         p->note);
            }
            cudaStreamSynchronize((cudaStream_t)stream);
        }
        if (bench_time_gpu(cfg, stream, call_npp, &c, nsets, &r->st, r->reason, sizeof r->reason)) {
            snprintf(r->status, sizeof r->status, "error");
            cudaGetLastError(); /* a failed launch inside NPP must not fail the next row */
        } else {
            snprintf(r->status, sizeof r->status, "ok");
        }
    }
    if (have_taps) {
        cudaStreamSynchronize((cudaStream_t)stream);
        taps_free(&taps);
    }
    return n;
}
