// Source of k_global_sm_80.cubin (nvcc -cubin -arch=sm_80): an uninitialised __device__
// array, so the cubin has a .nv.global section (no file bytes).
__device__ float table[162];
extern "C" __global__ void use(float *a) { a[threadIdx.x] += table[threadIdx.x]; table[threadIdx.x] = 1.0f; }
