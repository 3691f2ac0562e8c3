#include "family.h"

__device__ __noinline__ float helper(float x) { return x * x + 2.0f; }

template <typename T, int N> __global__ void scale_kernel(T* p, int n) {
  int i = THREAD_INDEX() * N;
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (i + k < n) p[i + k] = p[i + k] * T(2) + T(k);
}

// Grows in VERSION 2: more unrolled steps in the same instantiation.
template <typename T> __global__ void grow_kernel(T* p, int n) {
  int i = THREAD_INDEX();
#pragma unroll
  for (int k = 0; k < 4 * VERSION; ++k)
    if (i + k < n) p[i + k] = p[i + k] * T(k + 1) - T(1);
}

__global__ void uses_helper(float* p) { p[LANE()] = helper(p[LANE()]); }

template __global__ void scale_kernel<float, 1>(float*, int);
#if VERSION == 1
template __global__ void scale_kernel<double, 1>(double*, int);  // removed in 2
#else
template __global__ void scale_kernel<int, 2>(int*, int);  // added in 2
template __global__ void scale_kernel<float, 4>(float*, int);  // added in 2
#endif
template __global__ void grow_kernel<float>(float*, int);
template __global__ void dup_kernel<int>(int*, int);
