/* SPDX-License-Identifier: MIT */
/* What every CUDA file of gip shares: checking CUDA calls and launches against the context
 * (sticky errors poison it), launch geometry, and compile-time dtype traits. */
#ifndef GIP_CORE_CUDA_UTIL_CUH
#define GIP_CORE_CUDA_UTIL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "internal.h"
#include "saturate.h"

/* Converts a CUDA error into a gip status with a message naming `what`. Sticky errors (the CUDA
 * context is corrupted: illegal address, launch failure ...) mark ctx bad; non-sticky ones are
 * cleared so that later calls do not see them. Returns GIP_OK for cudaSuccess. */
extern "C" gip_status gip__cuda_status(gip_context *ctx, cudaError_t err, const char *what);

/* Checks the last launch on this thread. Call right after every <<<>>> launch. */
#define GIP__LAUNCH_CHECK(ctx, name) gip__cuda_status((ctx), cudaGetLastError(), (name))

/* The stream of a context as a cudaStream_t. */
static inline cudaStream_t gip__stream(const gip_context *ctx)
{
    return (cudaStream_t)ctx->stream;
}

static inline unsigned gip__div_up(int64_t a, int64_t b)
{
    return (unsigned)((a + b - 1) / b);
}

/* The grid of a kernel whose blocks of `threads` cover `units` per row (at least one) in x and
 * loop over the rows in y: enough blocks to fill the device several times over (about 8192),
 * each a few rows. */
static inline dim3 gip__row_grid(int64_t units, int64_t threads, int64_t rows)
{
    const int64_t bx = ((units > 0 ? units : 1) + threads - 1) / threads;
    int64_t by = 8192 / bx;
    if (by < 1)
        by = 1;
    if (by > rows)
        by = rows;
    return dim3((unsigned)(bx < 65535 ? bx : 65535), (unsigned)by);
}

/* cp.async: a 16-byte (bypassing L1), 8-byte or 4-byte copy from global to shared memory that holds
 * no registers while in flight; commit closes a group, wait<N> waits until at most N of this
 * thread's groups are pending (other threads' copies need a barrier after it). The s forms take
 * the shared-memory address as a 32-bit shared-window address (what __cvta_generic_to_shared
 * gives), for kernels that keep such addresses in registers; the 4-byte copy is predicated on
 * `on` (no branch), as is the 16-byte gip__cp_async16s_if. */
__device__ __forceinline__ void gip__cp_async16s(unsigned s, const void *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g) : "memory");
}

__device__ __forceinline__ void gip__cp_async8s(unsigned s, const void *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(g) : "memory");
}

__device__ __forceinline__ void gip__cp_async16(void *smem, const void *g)
{
    gip__cp_async16s((unsigned)__cvta_generic_to_shared(smem), g);
}

__device__ __forceinline__ void gip__cp_async4s_if(bool on, unsigned s, const void *g)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
                 "@p cp.async.ca.shared.global [%0], [%1], 4;\n}\n" ::"r"(s),
                 "l"(g), "r"((int)on)
                 : "memory");
}

__device__ __forceinline__ void gip__cp_async16s_if(bool on, unsigned s, const void *g)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
                 "@p cp.async.cg.shared.global [%0], [%1], 16;\n}\n" ::"r"(s),
                 "l"(g), "r"((int)on)
                 : "memory");
}

/* Shared-memory loads and stores by 32-bit shared-window address; volatile, so that they keep
 * their order against the cp.async waits and the barriers around them. */
__device__ __forceinline__ uint4 gip__lds128(unsigned s)
{
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(s)
                 : "memory");
    return v;
}

__device__ __forceinline__ uint32_t gip__lds32(unsigned s)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(s) : "memory");
    return v;
}

__device__ __forceinline__ void gip__sts128(unsigned s, uint4 v)
{
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(s), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w)
                 : "memory");
}

__device__ __forceinline__ void gip__sts32(unsigned s, uint32_t v)
{
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(s), "r"(v) : "memory");
}

__device__ __forceinline__ void gip__cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void gip__cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* The aligned 4-byte word at p through the read-only path, reading no byte outside [beg, end)
 * (the row it belongs to: the bytes around a row may be another allocation's, or padding never
 * written): one load where the word lies in it, else its bytes in it one by one, the others 0. */
__device__ __forceinline__ uint32_t gip__ldg_word(const uint32_t *p, const uint8_t *beg,
                                                  const uint8_t *end)
{
    const uint8_t *b = reinterpret_cast<const uint8_t *>(p);
    if (b >= beg && b + 4 <= end)
        return __ldg(p);
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < 4; k++)
        if (b + k >= beg && b + k < end)
            v |= (uint32_t)__ldg(b + k) << (8 * k);
    return v;
}

/* NB consecutive bytes of a row from a (any alignment) into v[(NB + 3) / 4], byte i at bits
 * 8 * (i % 4) of word i / 4. When whole (the caller's one test that the row holds the bytes from
 * a - 3 to a + NB + 2, so that every aligned word holding one of them lies in the row: see
 * GIP__WHOLE_WORDS), those words loaded through the read-only path (none past the last) and
 * realigned by funnel shifts; otherwise, near the row's end, the NB bytes one by one. */
template <int NB>
__device__ __forceinline__ void gip__load_bytes(const uint8_t *a, bool whole, uint32_t *v)
{
    constexpr int NV = (NB + 3) / 4;
    if (!whole) {
#pragma unroll
        for (int i = 0; i < NV; i++)
            v[i] = 0;
#pragma unroll
        for (int i = 0; i < NB; i++)
            v[i >> 2] |= (uint32_t)__ldg(a + i) << (8 * (i & 3));
        return;
    }
    const uint32_t lead = (uint32_t)(uintptr_t)a & 3u;
    const uint32_t *wp = reinterpret_cast<const uint32_t *>(a - lead);
    uint32_t w[NV + 1];
    w[0] = __ldg(wp);
#pragma unroll
    for (int i = 1; i <= NV; i++)
        w[i] = 4 * i <= (int)lead + NB - 1 ? __ldg(wp + i) : 0u;
#pragma unroll
    for (int i = 0; i < NV; i++)
        v[i] = __funnelshift_r(w[i], w[i + 1], 8 * lead);
}

/* Whether gip__load_bytes may load whole words for nb bytes at byte x of a row of rb bytes: the
 * aligned words holding them start at most 3 bytes before x and end at most 3 after its last. */
#define GIP__WHOLE_WORDS(x, nb, rb) ((x) >= 3 && (x) + (nb) + 3 <= (rb))

/* Four pixels of CN u8 channels (o: 4 * CN bytes, in registers) stored at d as CN 32-bit words,
 * or, for four channels with vec >= 2, as one 16-byte store. d is 4-byte aligned (16-byte when
 * vec >= 2). */
template <int CN>
__device__ __forceinline__ void gip__store_4px_u8(uint8_t *d, const uint8_t *o, int32_t vec)
{
    uint32_t w[CN];
#pragma unroll
    for (int k = 0; k < CN; k++)
        w[k] = (uint32_t)o[4 * k] | (uint32_t)o[4 * k + 1] << 8 | (uint32_t)o[4 * k + 2] << 16 |
               (uint32_t)o[4 * k + 3] << 24;
    if (CN == 4 && vec >= 2) {
        *reinterpret_cast<uint4 *>(d) = make_uint4(w[0], w[1 % CN], w[2 % CN], w[3 % CN]);
    } else {
#pragma unroll
        for (int k = 0; k < CN; k++)
            reinterpret_cast<uint32_t *>(d)[k] = w[k];
    }
}

/* Element type for a dtype value, usable in templates: gip__dtype_of<T>::value. */
template <typename T> struct gip__dtype_of;
template <> struct gip__dtype_of<uint8_t> {
    static constexpr gip_dtype value = GIP_U8;
};
template <> struct gip__dtype_of<uint16_t> {
    static constexpr gip_dtype value = GIP_U16;
};
template <> struct gip__dtype_of<int16_t> {
    static constexpr gip_dtype value = GIP_S16;
};
template <> struct gip__dtype_of<float> {
    static constexpr gip_dtype value = GIP_F32;
};

/* Converts a float to T as OpenCV's saturate_cast<T> does (float stays float). */
template <typename T> __host__ __device__ __forceinline__ T gip__saturate(float v);
template <> __host__ __device__ __forceinline__ uint8_t gip__saturate<uint8_t>(float v)
{
    return gip__sat_u8_f32(v);
}
template <> __host__ __device__ __forceinline__ uint16_t gip__saturate<uint16_t>(float v)
{
    return gip__sat_u16_f32(v);
}
template <> __host__ __device__ __forceinline__ int16_t gip__saturate<int16_t>(float v)
{
    return gip__sat_s16_f32(v);
}
template <> __host__ __device__ __forceinline__ float gip__saturate<float>(float v)
{
    return v;
}

/* Calls f(T{}) with T the element type of dtype (u8, u16, s16, f32); returns GIP_ERR_UNSUPPORTED
 * for others. The one dtype switch of the CUDA side. */
template <typename F> gip_status gip__dispatch_dtype(gip_dtype dtype, F &&f)
{
    switch (dtype) {
    case GIP_U8:
        return f(uint8_t{});
    case GIP_U16:
        return f(uint16_t{});
    case GIP_S16:
        return f(int16_t{});
    case GIP_F32:
        return f(float{});
    default:
        return GIP_ERR_UNSUPPORTED;
    }
}

/* Row pointer of a pitched image. */
template <typename T> __device__ __forceinline__ T *gip__row(void *base, int64_t stride, int64_t y)
{
    return reinterpret_cast<T *>(static_cast<char *>(base) + y * stride);
}
template <typename T>
__device__ __forceinline__ const T *gip__row(const void *base, int64_t stride, int64_t y)
{
    return reinterpret_cast<const T *>(static_cast<const char *>(base) + y * stride);
}

#endif
