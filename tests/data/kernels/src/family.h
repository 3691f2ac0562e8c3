// Kernels planted for the kernel-level diff and bloat tests (scripts/build_kernel_fixtures.py).
// Built once as CUDA (nvcc) and once as HIP (clang -x hip, builtins only: no ROCm headers);
// VERSION 1 or 2 picks the build.
#pragma once
#if defined(__HIP__)
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __noinline__ __attribute__((noinline))
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
#define THREAD_INDEX() \
  ((int)(__builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x()))
#define LANE() ((int)__builtin_amdgcn_workitem_id_x())
#else
#define THREAD_INDEX() ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#define LANE() ((int)threadIdx.x)
#endif

// Instantiated in both translation units: two identical copies per architecture.
template <typename T> __global__ void dup_kernel(T* p, int n) {
  int i = THREAD_INDEX();
  if (i < n) p[i] = p[i] * 3 + 1;
}
