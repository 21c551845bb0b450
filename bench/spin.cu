/* SPDX-License-Identifier: MIT */
/* A kernel that keeps the GPU busy for a given time, queued ahead of timed runs so that the host
 * can queue them all before the first one starts (see bench_time_gpu). */
#include <cstdint>

#include <cuda_runtime.h>

__global__ void bench_spin_kernel(uint64_t ns)
{
    uint64_t t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

extern "C" int bench_gpu_spin(void *stream, uint64_t ns)
{
    bench_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(ns);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
