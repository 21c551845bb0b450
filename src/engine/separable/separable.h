/* SPDX-License-Identifier: MIT */
/* The separable-filter engine shared by Gaussian blur and the box filter: a plan (coefficients
 * built once on the host) run by the CPU backend or by one fused CUDA kernel. */
#ifndef GIP_FILTER_SEPARABLE_H
#define GIP_FILTER_SEPARABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "gip/filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest kernel side the engine accepts (Gaussian and box entries refuse larger ones). */
#define GIP__SEP_MAX_K 1023
/* Largest kernel side the fused CUDA kernel handles in shared memory; larger kernels run a direct
 * (unfused, still intermediate-free) CUDA kernel. */
#define GIP__SEP_CUDA_FUSED_MAX_K 63

typedef enum gip__sep_mode {
    /* u8 -> u8 with OpenCV's 8-bit Gaussian arithmetic: H = sum kx*src (8 fraction bits, exact in
     * 16 bits), dst = (sum ky*H + 2^15) >> 16. Kernels are integers summing to 256. */
    GIP__SEP_FIXED_U8 = 0,
    /* Any source dtype, float arithmetic: H = sum kx*src, V = sum ky*H, each summed tap by tap in
     * kernel order (no reassociation, no FMA, so CPU, SIMD and CUDA agree bit for bit), then
     * dst = convert(V * scale) (round half to even and saturate for integer dtypes). */
    GIP__SEP_FLOAT = 1
} gip__sep_mode;

typedef struct gip__sep_plan {
    gip__sep_mode mode;
    int32_t kw, kh; /* kernel width and height, 1..GIP__SEP_MAX_K */
    int32_t ax, ay; /* anchor: output (x, y) reads source columns x - ax .. x - ax + kw - 1 */
    bool symmetric; /* FIXED_U8 only: kx and ky are palindromes with the anchor at the centre */
    float scale;    /* FLOAT only: multiplies V before conversion */
    /* FLOAT with a u8 source and all-ones kernels of area <= 257: the sums are exact in 16-bit
     * integers, so the CPU adds bytes instead of floats (same results as the float path). */
    bool box_u8;
    /* FLOAT with a u8 or u16 source and all-ones kernels that box_u8 does not take: the sums are
     * exact integers (32-bit H, 64-bit V; float sums lose exactness past 2^24), and the output is
     * convert((float)V * scale) as OpenCV's vectorised 32-bit ColumnSum does, except u16 -> u16
     * with kw kh > 32768, where OpenCV sums in double: convert((double)V * scale64). */
    bool box_int;
    double scale64; /* box_int: the scale in double, 1 / (kw kh) or 1 */
    gip_border border;
    /* Border value per channel, already converted to the source dtype's values (as a pixel). */
    float border_value[4];
    float kxf[GIP__SEP_MAX_K], kyf[GIP__SEP_MAX_K];   /* FLOAT */
    int32_t kxi[GIP__SEP_MAX_K], kyi[GIP__SEP_MAX_K]; /* FIXED_U8 */
} gip__sep_plan;

/* OpenCV's fixed-point Gaussian kernel (getGaussianKernelFixedPoint_ED with 8 fraction bits): the
 * side taps k[i] * 256 rounded half to even with the rounding error carried to the next tap, the
 * centre 256 minus the sides, so that the sum is exactly 256. n odd. */
void gip__sep_fixed_kernel(const double *k, int32_t n, int32_t *out);

/* Converts a border value to the source dtype's value as a pixel (rounded and saturated for
 * integer dtypes) and fills plan->border / border_value. */
void gip__sep_set_border(gip__sep_plan *plan, const gip_border_spec *spec, gip_dtype src_dtype);

/* Runs the plan: src and dst have the same size; src dtype u8/u16/f32, dst dtype u8/u16/f32 as the
 * entry decided; channels 1/3/4. Arguments are checked by the caller. */
gip_status gip__sep_run_cpu(gip_context *ctx, const gip__sep_plan *plan, const gip_image *src,
                            gip_image *dst);
#ifdef GIP_HAVE_CUDA
gip_status gip__sep_run_cuda(gip_context *ctx, const gip__sep_plan *plan, const gip_image *src,
                             gip_image *dst);
/* FIXED_U8 plans on the tensor cores (separable_mma_cuda.cu) when the plan and the images fit:
 * u8 taps, kh <= 17 and a window of at most 96 bytes a 16-byte column tile, 16-byte aligned source
 * rows and 8-byte aligned output rows. *done says whether it ran. */
gip_status gip__sep_run_u8_mma_cuda(gip_context *ctx, const gip__sep_plan *plan,
                                    const gip_image *src, const gip_image *dst, bool *done);
#endif

/* Test hook: the segments each column strip of the tensor-core u8 kernel is cut into (one block
 * each), or 0 for as many as fit on the GPU at once. Without CUDA it does nothing. */
void gip__sep_mma_segments(int m);

/* Dispatches to the CPU or CUDA backend by where the images live. */
gip_status gip__sep_run(gip_context *ctx, const gip__sep_plan *plan, const gip_image *src,
                        gip_image *dst, bool on_device);

/* CPU SIMD switch: AVX2 is used when the CPU has it, unless GIP_NOSIMD=1 is set in the environment
 * or gip__sep_set_simd(false) was called (the tests run both paths). Returns the previous
 * setting. gip__sep_simd_active() says whether AVX2 code runs now. */
bool gip__sep_set_simd(bool enable);
bool gip__sep_simd_active(void);

#ifdef __cplusplus
}
#endif
#endif
