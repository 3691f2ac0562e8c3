// Small kernels for fatbin fixtures (scripts/build_cuda_fixtures.sh).
__global__ void add(float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += b[i];
}

__global__ void scale(float *a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= s;
}

extern "C" void launch(float *a, const float *b, int n) {
    add<<<(n + 255) / 256, 256>>>(a, b, n);
    scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n);
}
