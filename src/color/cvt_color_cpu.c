/* SPDX-License-Identifier: MIT */
/* gip_cvt_color on the CPU: per-dtype row functions specialised for each code at compile time,
 * rows spread over the context's threads. */
#include <math.h>

#include "color/cvt_color.h"

#if defined(__GNUC__)
#define GIP__INLINE static inline __attribute__((always_inline))
#else
#define GIP__INLINE static inline
#endif

/* Gray from the first three channels in memory order s0, s1, s2 with weights c0, c1, c2 (c1 is
 * green; c0 and c2 are red and blue in the order of the code). */
GIP__INLINE uint8_t gray_u8(uint8_t s0, uint8_t s1, uint8_t s2, int32_t c0, int32_t c2)
{
    return (uint8_t)((s0 * c0 + s1 * GIP__GRAY_G15 + s2 * c2 + (1 << (GIP__GRAY_SHIFT - 1))) >>
                     GIP__GRAY_SHIFT);
}

GIP__INLINE uint16_t gray_u16(uint16_t s0, uint16_t s1, uint16_t s2, int32_t c0, int32_t c2)
{
    return (uint16_t)((s0 * c0 + s1 * GIP__GRAY_G15 + s2 * c2 + (1 << (GIP__GRAY_SHIFT - 1))) >>
                      GIP__GRAY_SHIFT);
}

/* The fused steps are spelled out so that -ffp-contract cannot change them (see cvt_color.h). */
GIP__INLINE float gray_f32(float s0, float s1, float s2, float c0, float c2)
{
    float y = s0 * c0;
    y = fmaf(s1, GIP__GRAY_GF, y);
    return fmaf(s2, c2, y);
}

/* Row functions of one dtype. Each pixel is read whole before it is written, which makes the
 * in-place swaps safe. scn, dcn and swap are constants at every call, so each use is a loop
 * specialised for its code. */
#define DEFINE_TYPE(TN, T, CT, CR, CB, ALPHA)                                                      \
    GIP__INLINE void reorder_##TN(const T *s, T *d, int64_t w, int scn, int dcn, bool swap)        \
    {                                                                                              \
        for (int64_t x = 0; x < w; x++) {                                                          \
            T v0 = s[x * scn], v1 = s[x * scn + 1], v2 = s[x * scn + 2];                           \
            T v3 = scn == 4 ? s[x * scn + 3] : (T)(ALPHA);                                         \
            d[x * dcn] = swap ? v2 : v0;                                                           \
            d[x * dcn + 1] = v1;                                                                   \
            d[x * dcn + 2] = swap ? v0 : v2;                                                       \
            if (dcn == 4)                                                                          \
                d[x * dcn + 3] = v3;                                                               \
        }                                                                                          \
    }                                                                                              \
    GIP__INLINE void to_gray_##TN(const T *s, T *d, int64_t w, int scn, bool red_first)            \
    {                                                                                              \
        CT c0 = red_first ? (CR) : (CB), c2 = red_first ? (CB) : (CR);                             \
        for (int64_t x = 0; x < w; x++)                                                            \
            d[x] = gray_##TN(s[x * scn], s[x * scn + 1], s[x * scn + 2], c0, c2);                  \
    }                                                                                              \
    GIP__INLINE void from_gray_##TN(const T *s, T *d, int64_t w, int dcn)                          \
    {                                                                                              \
        for (int64_t x = 0; x < w; x++) {                                                          \
            T v = s[x];                                                                            \
            d[x * dcn] = v;                                                                        \
            d[x * dcn + 1] = v;                                                                    \
            d[x * dcn + 2] = v;                                                                    \
            if (dcn == 4)                                                                          \
                d[x * dcn + 3] = (T)(ALPHA);                                                       \
        }                                                                                          \
    }                                                                                              \
    static void row_##TN(const void *s_, void *d_, int64_t w, gip_color_code code)                 \
    {                                                                                              \
        const T *s = (const T *)s_;                                                                \
        T *d = (T *)d_;                                                                            \
        switch (code) {                                                                            \
        case GIP_COLOR_RGB2BGR:                                                                    \
            reorder_##TN(s, d, w, 3, 3, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGBA2BGRA:                                                                  \
            reorder_##TN(s, d, w, 4, 4, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGB2RGBA:                                                                   \
            reorder_##TN(s, d, w, 3, 4, false);                                                    \
            break;                                                                                 \
        case GIP_COLOR_RGBA2RGB:                                                                   \
            reorder_##TN(s, d, w, 4, 3, false);                                                    \
            break;                                                                                 \
        case GIP_COLOR_RGB2BGRA:                                                                   \
            reorder_##TN(s, d, w, 3, 4, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGBA2BGR:                                                                   \
            reorder_##TN(s, d, w, 4, 3, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGB2GRAY:                                                                   \
            to_gray_##TN(s, d, w, 3, true);                                                        \
            break;                                                                                 \
        case GIP_COLOR_BGR2GRAY:                                                                   \
            to_gray_##TN(s, d, w, 3, false);                                                       \
            break;                                                                                 \
        case GIP_COLOR_RGBA2GRAY:                                                                  \
            to_gray_##TN(s, d, w, 4, true);                                                        \
            break;                                                                                 \
        case GIP_COLOR_BGRA2GRAY:                                                                  \
            to_gray_##TN(s, d, w, 4, false);                                                       \
            break;                                                                                 \
        case GIP_COLOR_GRAY2RGB:                                                                   \
            from_gray_##TN(s, d, w, 3);                                                            \
            break;                                                                                 \
        case GIP_COLOR_GRAY2RGBA:                                                                  \
            from_gray_##TN(s, d, w, 4);                                                            \
            break;                                                                                 \
        }                                                                                          \
    }

DEFINE_TYPE(u8, uint8_t, int32_t, GIP__GRAY_R15, GIP__GRAY_B15, 255)
DEFINE_TYPE(u16, uint16_t, int32_t, GIP__GRAY_R15, GIP__GRAY_B15, 65535)
DEFINE_TYPE(f32, float, float, GIP__GRAY_RF, GIP__GRAY_BF, 1.0f)

typedef void (*row_fn)(const void *s, void *d, int64_t w, gip_color_code code);

typedef struct job {
    const gip_image *src;
    gip_image *dst;
    row_fn fn;
    gip_color_code code;
} job;

static void run_rows(void *arg, int64_t y0, int64_t y1)
{
    const job *j = (const job *)arg;
    for (int64_t y = y0; y < y1; y++)
        j->fn((const char *)j->src->data + y * j->src->stride,
              (char *)j->dst->data + y * j->dst->stride, j->src->width, j->code);
}

gip_status gip__cvt_color_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip__cc_params *p)
{
    job j = {src, dst,
             src->dtype == GIP_U8    ? row_u8
             : src->dtype == GIP_U16 ? row_u16
                                     : row_f32,
             p->code};
    /* About 16 K pixels or more per chunk keep scheduling cost negligible. */
    int64_t grain = src->width >= 16384 ? 1 : 16384 / src->width;
    gip__parallel_for(ctx, src->height, grain, run_rows, &j);
    return GIP_OK;
}
