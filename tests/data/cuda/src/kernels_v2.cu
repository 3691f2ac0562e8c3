// kernels_v1.cu plus new template instantiations: the "nightly that grew" fixture.
__global__ void add(float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += b[i];
}

__global__ void scale(float *a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= s;
}

template <typename T, int UNROLL>
__global__ void axpy(T *y, const T *x, T alpha, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        if (i + k < n) y[i + k] = alpha * x[i + k] + y[i + k];
    }
}

template __global__ void axpy<float, 1>(float *, const float *, float, int);
template __global__ void axpy<float, 4>(float *, const float *, float, int);
template __global__ void axpy<double, 1>(double *, const double *, double, int);
template __global__ void axpy<double, 4>(double *, const double *, double, int);

extern "C" void launch(float *a, const float *b, int n) {
    add<<<(n + 255) / 256, 256>>>(a, b, n);
    scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n);
}
