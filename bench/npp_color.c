/* SPDX-License-Identifier: MIT */
/* NPP peers of the color rows (see npp_peers.h). NPP has no min-max normalize: that row has no
 * NPP peer; nor has it an addWeighted of two u8 images (its AddWeighted accumulates into f32). */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "npp_peers.h"

/* The LUT rows' table (v*v/255 rounded, as ops_color.c) in device memory: made at the first
 * call (a warm-up run), kept for the process, freed at exit. */
static Npp8u *lut_dev;

static void lut_free(void)
{
    cudaFree(lut_dev);
    lut_dev = NULL;
}

static const Npp8u *lut_table(void)
{
    if (!lut_dev) {
        Npp8u t[256];
        for (int v = 0; v < 256; v++)
            t[v] = (Npp8u)((v * v + 127) / 255);
        if (cudaMalloc((void **)&lut_dev, sizeof t) != cudaSuccess)
            return NULL;
        if (cudaMemcpy(lut_dev, t, sizeof t, cudaMemcpyHostToDevice) != cudaSuccess) {
            lut_free();
            return NULL;
        }
        atexit(lut_free);
    }
    return lut_dev;
}

#define PEER(name)                                                                                 \
    static NppStatus name(const bench_set *s, NppiBorderType b, const npp_taps *t,                 \
                          NppStreamContext c)
#define DSIZE ((NppiSize){(int)s->dst.width, (int)s->dst.height})
#define C3(v) ((const Npp32f[3]){(v), (v), (v)})
#define C3U(v) ((const Npp8u[3]){(v), (v), (v)})

/* clang-format off */
PEER(hsv_8u) { return nppiRGBToHSV_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
PEER(lab_8u) { return nppiBGRToLab_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, c); }
/* The NV12 frame gip's row made in aux[0]: the Y plane, then the interleaved U, V plane. */
PEER(nv12_bgr)
{
    const Npp8u *y = (const Npp8u *)s->aux[0].data;
    if (!y)
        return NPP_NULL_POINTER_ERROR; /* gip's prepare did not run (gip unavailable) */
    const Npp8u *planes[2] = {y, y + s->aux[0].stride * s->dst.height};
    return nppiNV12ToBGR_8u_P2C3R_Ctx(planes, (int)s->aux[0].stride, DST(Npp8u), DSIZE, c);
}
PEER(cfa_8u)
{
    NppiRect r = {0, 0, (int)s->src.width, (int)s->src.height};
    return nppiCFAToRGB_8u_C1C3R_Ctx(SRC(Npp8u), ROI, r, DST(Npp8u), NPPI_BAYER_RGGB,
                                     NPPI_INTER_UNDEFINED, c);
}
PEER(cmp_8u_c1) { return nppiCompareC_8u_C1R_Ctx(SRC(Npp8u), 127, DST(Npp8u), ROI, NPP_CMP_GREATER, c); }
PEER(thr_8u_c1) { return nppiThreshold_LTValGTVal_8u_C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, 127, 0, 127, 255, c); }
PEER(thr_8u_c3) { return nppiThreshold_LTValGTVal_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, C3U(127), C3U(0), C3U(127), C3U(255), c); }
PEER(thr_32f_c1) { return nppiThreshold_LTValGTVal_32f_C1R_Ctx(SRC(Npp32f), DST(Npp32f), ROI, 127.0f, 0.0f, 127.0f, 255.0f, c); }
PEER(addw_32f_c1) { return nppiAddWeighted_32f_C1IR_Ctx(SRC(Npp32f), DST(Npp32f), ROI, 0.6f, c); }
PEER(lut_8u_c1)
{
    const Npp8u *tab = lut_table();
    return tab ? nppiLUTPalette_8u_C1R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, tab, 8, c)
               : NPP_MEMORY_ALLOCATION_ERR;
}
PEER(lut_8u_c3)
{
    const Npp8u *tab = lut_table();
    const Npp8u *tabs[3] = {tab, tab, tab};
    return tab ? nppiLUTPalette_8u_C3R_Ctx(SRC(Npp8u), DST(Npp8u), ROI, tabs, 8, c)
               : NPP_MEMORY_ALLOCATION_ERR;
}
/* point3's steps: u8 -> f32 in 0..1 (x / 255), x * 2 - 0.5, threshold at 0.5 to 1. */
PEER(p3cvt_c1) { return nppiScale_8u32f_C1R_Ctx(SRC(Npp8u), DST(Npp32f), ROI, 0.0f, 1.0f, c); }
PEER(p3cvt_c3) { return nppiScale_8u32f_C3R_Ctx(SRC(Npp8u), DST(Npp32f), ROI, 0.0f, 1.0f, c); }
PEER(p3mad_c1)
{
    NppStatus st = nppiMulC_32f_C1R_Ctx(SRC(Npp32f), 2.0f, DST(Npp32f), ROI, c);
    return st < 0 ? st : nppiAddC_32f_C1IR_Ctx(-0.5f, DST(Npp32f), ROI, c);
}
PEER(p3mad_c3)
{
    NppStatus st = nppiMulC_32f_C3R_Ctx(SRC(Npp32f), C3(2.0f), DST(Npp32f), ROI, c);
    return st < 0 ? st : nppiAddC_32f_C3IR_Ctx(C3(-0.5f), DST(Npp32f), ROI, c);
}
PEER(p3thr_c1) { return nppiThreshold_LTValGTVal_32f_C1R_Ctx(SRC(Npp32f), DST(Npp32f), ROI, 0.5f, 0.0f, 0.5f, 1.0f, c); }
PEER(p3thr_c3) { return nppiThreshold_LTValGTVal_32f_C3R_Ctx(SRC(Npp32f), DST(Npp32f), ROI, C3(0.5f), C3(0.0f), C3(0.5f), C3(1.0f), c); }
PEER(p3_c1)
{
    NppStatus st = nppiScale_8u32f_C1R_Ctx(SRC(Npp8u), DST(Npp32f), ROI, 0.0f, 1.0f, c);
    if (st >= 0)
        st = nppiMulC_32f_C1IR_Ctx(2.0f, DST(Npp32f), ROI, c);
    if (st >= 0)
        st = nppiAddC_32f_C1IR_Ctx(-0.5f, DST(Npp32f), ROI, c);
    if (st >= 0)
        st = nppiThreshold_LTValGTVal_32f_C1IR_Ctx(DST(Npp32f), ROI, 0.5f, 0.0f, 0.5f, 1.0f, c);
    return st;
}
PEER(p3_c3)
{
    NppStatus st = nppiScale_8u32f_C3R_Ctx(SRC(Npp8u), DST(Npp32f), ROI, 0.0f, 1.0f, c);
    if (st >= 0)
        st = nppiMulC_32f_C3IR_Ctx(C3(2.0f), DST(Npp32f), ROI, c);
    if (st >= 0)
        st = nppiAddC_32f_C3IR_Ctx(C3(-0.5f), DST(Npp32f), ROI, c);
    if (st >= 0)
        st = nppiThreshold_LTValGTVal_32f_C3IR_Ctx(DST(Npp32f), ROI, C3(0.5f), C3(0.0f), C3(0.5f), C3(1.0f), c);
    return st;
}

#define THR_NOTE "nppiThreshold_LTValGTVal (x < 127: 0, x > 127: 255; x == 127 stays 127, gip gives 0)"
#define P3THR_NOTE "nppiThreshold_LTValGTVal (x < 0.5: 0, x > 0.5: 1; x == 0.5 stays 0.5, gip gives 0)"

const npp_peer bench_npp_color[] = {
    {"hsv", "u8c3", "npp_rgb2hsv", 0, hsv_8u, "nppiRGBToHSV on the BGR image as given (no channel swap); NPP's hue 0..255, not 0..180; its own rounding"},
    {"lab", "u8c3", "npp_bgr2lab", 0, lab_8u, "nppiBGRToLab (NPP's own u8 Lab scaling and rounding)"},
    {"nv12_bgr", "u8c3", "npp_nv12_bgr", 0, nv12_bgr, "nppiNV12ToBGR on the same frame (NPP's default matrix, range and rounding)"},
    {"bayer_bgr", "u8c1", "npp_cfa", 0, cfa_8u, "nppiCFAToRGB, grid RGGB (= OpenCV's BayerBG), NPPI_INTER_UNDEFINED; RGB order out (gip: BGR), NPP's own borders"},
    {"threshold", "u8c1", "npp_compare", 0, cmp_8u_c1, "nppiCompareC x > 127 (255 where true, else 0): binary threshold's result"},
    {"threshold", "u8c1", "npp_threshold", 0, thr_8u_c1, THR_NOTE},
    {"threshold", "u8c3", "npp_threshold", 0, thr_8u_c3, THR_NOTE},
    {"threshold", "f32c1", "npp_threshold", 0, thr_32f_c1, THR_NOTE},
    {"addweighted", "f32c1", "npp_addweighted", 0, addw_32f_c1, "nppiAddWeighted_32f_C1IR in place: dst = dst * 0.4 + src * 0.6 (dst is the second operand and the output: same bytes)"},
    {"lut", "u8c1", "npp_lut_palette", 0, lut_8u_c1, "nppiLUTPalette, 8 bits, the same 256-entry table in device memory"},
    {"lut", "u8c3", "npp_lut_palette", 0, lut_8u_c3, "nppiLUTPalette, 8 bits, the same table for each channel"},
    {"point3", "u8c1", "npp_4pass", 0, p3_c1, "four NPP passes: nppiScale_8u32f 0..1, nppiMulC 2, nppiAddC -0.5, nppiThreshold_LTValGTVal 0.5 in place"},
    {"point3", "u8c3", "npp_4pass", 0, p3_c3, "four NPP passes: nppiScale_8u32f 0..1, nppiMulC 2, nppiAddC -0.5, nppiThreshold_LTValGTVal 0.5 in place"},
    {"point3_cvt", "u8c1", "npp_scale", 0, p3cvt_c1, "nppiScale_8u32f to 0..1 (x / 255; NPP's own arithmetic)"},
    {"point3_cvt", "u8c3", "npp_scale", 0, p3cvt_c3, "nppiScale_8u32f to 0..1 (x / 255; NPP's own arithmetic)"},
    {"point3_mad", "f32c1", "npp_mulc_addc", 0, p3mad_c1, "two passes: nppiMulC 2, then nppiAddC -0.5 in place"},
    {"point3_mad", "f32c3", "npp_mulc_addc", 0, p3mad_c3, "two passes: nppiMulC 2, then nppiAddC -0.5 in place"},
    {"point3_thr", "f32c1", "npp_threshold", 0, p3thr_c1, P3THR_NOTE},
    {"point3_thr", "f32c3", "npp_threshold", 0, p3thr_c3, P3THR_NOTE},
};
/* clang-format on */
const int bench_npp_ncolor = (int)(sizeof bench_npp_color / sizeof bench_npp_color[0]);
