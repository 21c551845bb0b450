/* SPDX-License-Identifier: MIT */
/* The point operations' shared machinery on CUDA: one thread per element (grid-stride over rows
 * and columns), the element function of pointwise.h, the u8 tables passed by value. */
#include <string.h>

#include "cuda_util.cuh"
#include "pointwise.h"

static constexpr int PW_THREADS = 256;

template <typename T> __device__ __forceinline__ float pw_load(const char *p)
{
    return (float)*reinterpret_cast<const T *>(p);
}

template <typename T> __device__ __forceinline__ void pw_store(char *p, double v);
template <> __device__ __forceinline__ void pw_store<uint8_t>(char *p, double v)
{
    *reinterpret_cast<uint8_t *>(p) = gip__pw_u8(v);
}
template <> __device__ __forceinline__ void pw_store<uint16_t>(char *p, double v)
{
    *reinterpret_cast<uint16_t *>(p) = gip__pw_u16(v);
}
template <> __device__ __forceinline__ void pw_store<int16_t>(char *p, double v)
{
    *reinterpret_cast<int16_t *>(p) = gip__pw_s16(v);
}
template <> __device__ __forceinline__ void pw_store<float>(char *p, double v)
{
    *reinterpret_cast<float *>(p) = (float)v;
}

static dim3 pw_grid(int64_t units, int64_t rows)
{
    int64_t bx = (units + PW_THREADS - 1) / PW_THREADS;
    if (bx < 1)
        bx = 1;
    if (bx > 65535)
        bx = 65535;
    return dim3((unsigned)bx, (unsigned)(rows < 65535 ? rows : 65535));
}

/* The tables go to shared memory first: indexed by the pixels' values, reads from the kernel's
 * parameter space serialise across a warp (up to 32 ways), reads from shared memory do not. The
 * channel of element i is i mod cn in 32 bits (a row holds far fewer than 2^32 elements). This is
 * the general form (masks, rows that are not 16-byte aligned); pw_lut16_kernel below is the
 * common one. */
__device__ __forceinline__ void pw_table_fill(uint8_t (*table)[256], const gip__pw &p, int ntab)
{
    for (int k = threadIdx.x; k < ntab * 256; k += blockDim.x)
        table[k >> 8][k & 255] = p.table[k >> 8][k & 255];
    __syncthreads();
}

__global__ void pw_lut_kernel(const uint8_t *src, int64_t ss, const uint8_t *mask, int64_t ms,
                              uint8_t *dst, int64_t ds, int64_t n, int64_t rows, int cn, gip__pw p)
{
    __shared__ uint8_t table[4][256];
    pw_table_fill(table, p, cn == 1 ? 1 : cn);
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const uint8_t *s = src + y * ss;
        const uint8_t *m = mask ? mask + y * ms : nullptr;
        uint8_t *d = dst + y * ds;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += (int64_t)gridDim.x * blockDim.x) {
            const uint32_t u = (uint32_t)i, c = cn == 1 ? 0u : u % (uint32_t)cn;
            d[i] = m && !m[cn == 1 ? u : u / (uint32_t)cn] ? 0 : table[c][s[i]];
        }
    }
}

/* 16 elements a thread: one 16-byte load and store, the lookups from shared memory. Rows,
 * strides and both images' data are 16-byte aligned (checked by the caller); the last n mod 16
 * elements of each row go one a thread. CN is the channel count (1 also where every channel has
 * the same table), or 0 for "cn at run time" (the channel of element i is i mod cn; 16 is a
 * multiple of 1, 2 and 4, and 1 mod 3). Blocks take rows in turn, so each fills its table once
 * for several rows. */
template <int CN>
__device__ __forceinline__ uint32_t pw_lut_word(uint32_t v, const uint8_t (*t)[256], uint32_t &c,
                                                uint32_t cn)
{
    uint32_t r = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const uint32_t ch = CN == 1              ? 0u
                            : CN == 2 || CN == 4 ? (uint32_t)(j % CN)
                            : CN == 3            ? (c + (uint32_t)j) % 3u
                                                 : c;
        r |= (uint32_t)t[ch][(v >> (8 * j)) & 255u] << (8 * j);
        if (CN == 0 && ++c == cn)
            c = 0;
    }
    return r;
}

template <int CN>
__global__ void pw_lut16_kernel(const uint8_t *src, int64_t ss, uint8_t *dst, int64_t ds,
                                uint32_t n, uint32_t rows, int cn, gip__pw p)
{
    __shared__ uint8_t table[4][256];
    pw_table_fill(table, p, cn == 1 ? 1 : cn);
    const uint32_t words = n >> 4, tail = n & 15u;
    for (uint32_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const uint8_t *s = src + (int64_t)y * ss;
        uint8_t *d = dst + (int64_t)y * ds;
        for (uint32_t w = blockIdx.x * blockDim.x + threadIdx.x; w < words;
             w += gridDim.x * blockDim.x) {
            const uint4 v = __ldg(reinterpret_cast<const uint4 *>(s) + w);
            /* CN 3: the channel each 4-byte word starts on (16 and 4 are 1 mod 3) */
            const uint32_t c3 = CN == 3 ? w % 3u : 0u, c3b = c3 == 2 ? 0u : c3 + 1,
                           c3c = c3b == 2 ? 0u : c3b + 1;
            uint32_t c = CN == 0 ? (w << 4) % (uint32_t)cn : c3;
            uint4 r;
            r.x = pw_lut_word<CN>(v.x, table, c, (uint32_t)cn);
            if (CN == 3)
                c = c3b;
            r.y = pw_lut_word<CN>(v.y, table, c, (uint32_t)cn);
            if (CN == 3)
                c = c3c;
            r.z = pw_lut_word<CN>(v.z, table, c, (uint32_t)cn);
            if (CN == 3)
                c = c3;
            r.w = pw_lut_word<CN>(v.w, table, c, (uint32_t)cn);
            reinterpret_cast<uint4 *>(d)[w] = r;
        }
        if (blockIdx.x == 0 && threadIdx.x < tail) {
            const uint32_t i = (words << 4) + threadIdx.x;
            d[i] = table[cn == 1 ? 0u : i % (uint32_t)cn][s[i]];
        }
    }
}

static bool pw_aligned16(const gip_image *a, const gip_image *b)
{
    return ((uintptr_t)a->data | (uintptr_t)b->data | (uintptr_t)a->stride | (uintptr_t)b->stride) %
               16 ==
           0;
}

static void pw_lut_launch(const gip_image *src, const gip_image *mask, gip_image *dst,
                          const gip__pw *p, cudaStream_t st)
{
    const int64_t n = src->width * src->channels;
    const int cn = src->channels;
    /* Channels that share one table take the one-table kernel. */
    bool same = true;
    for (int c = 1; c < cn && same; c++)
        same = !memcmp(p->table[c], p->table[0], sizeof p->table[0]);
    if (!mask && pw_aligned16(src, dst) && n < ((int64_t)1 << 31) && src->height < (1u << 31)) {
        const dim3 grid = gip__row_grid(n / 16, PW_THREADS, src->height);
        const uint32_t un = (uint32_t)n, rows = (uint32_t)src->height;
        const uint8_t *s = (const uint8_t *)src->data;
        uint8_t *d = (uint8_t *)dst->data;
        const int kcn = same ? 1 : cn;
        if (kcn == 1)
            pw_lut16_kernel<1>
                <<<grid, PW_THREADS, 0, st>>>(s, src->stride, d, dst->stride, un, rows, kcn, *p);
        else if (kcn == 4)
            pw_lut16_kernel<4>
                <<<grid, PW_THREADS, 0, st>>>(s, src->stride, d, dst->stride, un, rows, kcn, *p);
        else if (kcn == 2)
            pw_lut16_kernel<2>
                <<<grid, PW_THREADS, 0, st>>>(s, src->stride, d, dst->stride, un, rows, kcn, *p);
        else if (kcn == 3)
            pw_lut16_kernel<3>
                <<<grid, PW_THREADS, 0, st>>>(s, src->stride, d, dst->stride, un, rows, kcn, *p);
        else
            pw_lut16_kernel<0>
                <<<grid, PW_THREADS, 0, st>>>(s, src->stride, d, dst->stride, un, rows, kcn, *p);
        return;
    }
    pw_lut_kernel<<<pw_grid(n, src->height), PW_THREADS, 0, st>>>(
        (const uint8_t *)src->data, src->stride, mask ? (const uint8_t *)mask->data : nullptr,
        mask ? mask->stride : 0, (uint8_t *)dst->data, dst->stride, n, src->height, cn, *p);
}

template <typename Ti, typename To>
__global__ void pw_kernel(const char *src, int64_t ss, const uint8_t *mask, int64_t ms, char *dst,
                          int64_t ds, int64_t n, int64_t rows, int cn, gip__pw p)
{
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const char *s = src + y * ss;
        const uint8_t *m = mask ? mask + y * ms : nullptr;
        char *d = dst + y * ds;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += (int64_t)gridDim.x * blockDim.x)
            pw_store<To>(d + i * sizeof(To),
                         m && !m[i / cn]
                             ? 0.0
                             : gip__pw_eval(&p, (int)(i % cn), pw_load<Ti>(s + i * sizeof(Ti))));
    }
}

/* Four elements a thread for rows whose data and strides are aligned to four elements of both
 * types (checked by the caller), no mask: one 4-element load and store, 32-bit indices, blocks
 * taking several rows. The element function and the rounding are the scalar kernel's. */
template <typename T> struct alignas(4 * sizeof(T)) pw_vec4 {
    T e[4];
};

template <typename Ti, typename To>
__global__ void pw4_kernel(const char *src, int64_t ss, char *dst, int64_t ds, uint32_t n,
                           uint32_t rows, int cn, gip__pw p)
{
    const uint32_t quads = n >> 2, tail = n & 3u;
    for (uint32_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const pw_vec4<Ti> *s = reinterpret_cast<const pw_vec4<Ti> *>(src + (int64_t)y * ss);
        pw_vec4<To> *d = reinterpret_cast<pw_vec4<To> *>(dst + (int64_t)y * ds);
        for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < quads;
             q += gridDim.x * blockDim.x) {
            const pw_vec4<Ti> v = s[q];
            pw_vec4<To> r;
            uint32_t c = cn == 1 ? 0u : (q << 2) % (uint32_t)cn;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                pw_store<To>(reinterpret_cast<char *>(&r.e[j]),
                             gip__pw_eval(&p, (int)c, (float)v.e[j]));
                if (cn != 1 && ++c == (uint32_t)cn)
                    c = 0;
            }
            d[q] = r;
        }
        if (blockIdx.x == 0 && threadIdx.x < tail) {
            const uint32_t i = (quads << 2) + threadIdx.x;
            const Ti *si = reinterpret_cast<const Ti *>(s);
            pw_store<To>(reinterpret_cast<char *>(reinterpret_cast<To *>(d) + i),
                         gip__pw_eval(&p, cn == 1 ? 0 : (int)(i % (uint32_t)cn), (float)si[i]));
        }
    }
}

/* The grid of the 4-a-thread kernels. */
static dim3 pw4_grid(int64_t quads, int64_t rows)
{
    return gip__row_grid(quads, PW_THREADS, rows);
}

static bool pw_aligned(const gip_image *a, size_t align)
{
    return ((uintptr_t)a->data | (uintptr_t)a->stride) % align == 0;
}

template <typename Ti, typename To>
static void launch_unary(const gip_image *src, const gip_image *m, gip_image *dst, const gip__pw *p,
                         cudaStream_t st)
{
    const int64_t n = src->width * src->channels;
    if (!m && pw_aligned(src, 4 * sizeof(Ti)) && pw_aligned(dst, 4 * sizeof(To)) &&
        n < ((int64_t)1 << 31) && src->height < ((int64_t)1 << 31)) {
        pw4_kernel<Ti, To><<<pw4_grid(n / 4, src->height), PW_THREADS, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, (uint32_t)n,
            (uint32_t)src->height, src->channels, *p);
        return;
    }
    pw_kernel<Ti, To><<<pw_grid(n, src->height), PW_THREADS, 0, st>>>(
        (const char *)src->data, src->stride, m ? (const uint8_t *)m->data : nullptr,
        m ? m->stride : 0, (char *)dst->data, dst->stride, n, src->height, src->channels, *p);
}

template <typename Ti>
static bool dispatch_out(const gip_image *s, const gip_image *m, gip_image *d, const gip__pw *p,
                         cudaStream_t st)
{
    switch (d->dtype) {
    case GIP_U8:
        launch_unary<Ti, uint8_t>(s, m, d, p, st);
        return true;
    case GIP_U16:
        launch_unary<Ti, uint16_t>(s, m, d, p, st);
        return true;
    case GIP_S16:
        launch_unary<Ti, int16_t>(s, m, d, p, st);
        return true;
    case GIP_F32:
        launch_unary<Ti, float>(s, m, d, p, st);
        return true;
    default:
        return false;
    }
}

extern "C" gip_status gip__pw_cuda(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                   gip_image *dst, const gip__pw *p)
{
    cudaStream_t st = gip__stream(ctx);
    bool ok = true;
    if (p->kind == GIP__PW_LUT) {
        pw_lut_launch(src, mask, dst, p, st);
    } else {
        switch (src->dtype) {
        case GIP_U8:
            ok = dispatch_out<uint8_t>(src, mask, dst, p, st);
            break;
        case GIP_U16:
            ok = dispatch_out<uint16_t>(src, mask, dst, p, st);
            break;
        case GIP_S16:
            ok = dispatch_out<int16_t>(src, mask, dst, p, st);
            break;
        case GIP_F32:
            ok = dispatch_out<float>(src, mask, dst, p, st);
            break;
        default:
            ok = false;
        }
    }
    if (!ok)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "point operation: %s into %s is not built",
                          gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype));
    return GIP__LAUNCH_CHECK(ctx, "point operation kernel");
}

template <typename T>
__global__ void pw2_kernel(const char *a, int64_t as, const char *b, int64_t bs,
                           const uint8_t *mask, int64_t ms, char *dst, int64_t ds, int64_t w,
                           int64_t rows, int cn, gip__pw p)
{
    const int64_t n = w * cn;
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const char *ar = a + y * as, *br = b + y * bs;
        const uint8_t *mr = mask ? mask + y * ms : nullptr;
        char *d = dst + y * ds;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += (int64_t)gridDim.x * blockDim.x) {
            float v = mr && !mr[i / cn] ? 0.0f
                                        : gip__pw_eval2(&p, pw_load<T>(ar + i * sizeof(T)),
                                                        pw_load<T>(br + i * sizeof(T)));
            pw_store<T>(d + i * sizeof(T), v);
        }
    }
}

template <typename T>
__global__ void pw2_4_kernel(const char *a, int64_t as, const char *b, int64_t bs, char *dst,
                             int64_t ds, uint32_t n, uint32_t rows, gip__pw p)
{
    const uint32_t quads = n >> 2, tail = n & 3u;
    for (uint32_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const pw_vec4<T> *ar = reinterpret_cast<const pw_vec4<T> *>(a + (int64_t)y * as);
        const pw_vec4<T> *br = reinterpret_cast<const pw_vec4<T> *>(b + (int64_t)y * bs);
        pw_vec4<T> *d = reinterpret_cast<pw_vec4<T> *>(dst + (int64_t)y * ds);
        for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < quads;
             q += gridDim.x * blockDim.x) {
            const pw_vec4<T> x = ar[q], v = br[q];
            pw_vec4<T> r;
#pragma unroll
            for (int j = 0; j < 4; j++)
                pw_store<T>(reinterpret_cast<char *>(&r.e[j]),
                            gip__pw_eval2(&p, (float)x.e[j], (float)v.e[j]));
            d[q] = r;
        }
        if (blockIdx.x == 0 && threadIdx.x < tail) {
            const uint32_t i = (quads << 2) + threadIdx.x;
            pw_store<T>(reinterpret_cast<char *>(reinterpret_cast<T *>(d) + i),
                        gip__pw_eval2(&p, (float)reinterpret_cast<const T *>(ar)[i],
                                      (float)reinterpret_cast<const T *>(br)[i]));
        }
    }
}

template <typename T>
static void launch_binary(const gip_image *s, const gip_image *s2, const gip_image *m, gip_image *d,
                          const gip__pw *p, cudaStream_t st)
{
    const int64_t n = s->width * s->channels;
    if (!m && pw_aligned(s, 4 * sizeof(T)) && pw_aligned(s2, 4 * sizeof(T)) &&
        pw_aligned(d, 4 * sizeof(T)) && n < ((int64_t)1 << 31) && s->height < ((int64_t)1 << 31)) {
        pw2_4_kernel<T><<<pw4_grid(n / 4, s->height), PW_THREADS, 0, st>>>(
            (const char *)s->data, s->stride, (const char *)s2->data, s2->stride, (char *)d->data,
            d->stride, (uint32_t)n, (uint32_t)s->height, *p);
        return;
    }
    pw2_kernel<T><<<pw_grid(n, s->height), PW_THREADS, 0, st>>>(
        (const char *)s->data, s->stride, (const char *)s2->data, s2->stride,
        m ? (const uint8_t *)m->data : nullptr, m ? m->stride : 0, (char *)d->data, d->stride,
        s->width, s->height, s->channels, *p);
}

extern "C" gip_status gip__pw2_cuda(gip_context *ctx, const gip_image *src, const gip_image *src2,
                                    const gip_image *mask, gip_image *dst, const gip__pw *p)
{
    cudaStream_t st = gip__stream(ctx);
    switch (src->dtype) {
    case GIP_U8:
        launch_binary<uint8_t>(src, src2, mask, dst, p, st);
        break;
    case GIP_U16:
        launch_binary<uint16_t>(src, src2, mask, dst, p, st);
        break;
    case GIP_S16:
        launch_binary<int16_t>(src, src2, mask, dst, p, st);
        break;
    case GIP_F32:
        launch_binary<float>(src, src2, mask, dst, p, st);
        break;
    default:
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "point operation: %s is not built",
                          gip_dtype_name(src->dtype));
    }
    return GIP__LAUNCH_CHECK(ctx, "two-image point operation kernel");
}

struct pw_bounds {
    float lo[4], hi[4];
};

template <typename T>
__global__ void in_range_kernel(const char *src, int64_t ss, uint8_t *dst, int64_t ds, int64_t w,
                                int64_t rows, int cn, pw_bounds b)
{
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const T *s = reinterpret_cast<const T *>(src + y * ss);
        uint8_t *d = dst + y * ds;
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x) {
            bool in = true;
            for (int c = 0; c < cn; c++) {
                float v = (float)s[x * cn + c];
                in &= b.lo[c] <= v && v <= b.hi[c];
            }
            d[x] = in ? 255 : 0;
        }
    }
}

extern "C" gip_status gip__pw_in_range_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                            const float *lo, const float *hi)
{
    pw_bounds b;
    for (int c = 0; c < 4; c++)
        b.lo[c] = lo[c], b.hi[c] = hi[c];
    cudaStream_t st = gip__stream(ctx);
    dim3 g = pw_grid(src->width, src->height);
    const char *s = (const char *)src->data;
    uint8_t *d = (uint8_t *)dst->data;
    switch (src->dtype) {
    case GIP_U8:
        in_range_kernel<uint8_t><<<g, PW_THREADS, 0, st>>>(
            s, src->stride, d, dst->stride, src->width, src->height, src->channels, b);
        break;
    case GIP_U16:
        in_range_kernel<uint16_t><<<g, PW_THREADS, 0, st>>>(
            s, src->stride, d, dst->stride, src->width, src->height, src->channels, b);
        break;
    case GIP_S16:
        in_range_kernel<int16_t><<<g, PW_THREADS, 0, st>>>(
            s, src->stride, d, dst->stride, src->width, src->height, src->channels, b);
        break;
    default:
        in_range_kernel<float><<<g, PW_THREADS, 0, st>>>(s, src->stride, d, dst->stride, src->width,
                                                         src->height, src->channels, b);
        break;
    }
    return GIP__LAUNCH_CHECK(ctx, "inRange kernel");
}
