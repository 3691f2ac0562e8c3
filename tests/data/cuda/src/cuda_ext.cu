// A CUDA Python extension built against the limited API (abi3), like torchao's _C.abi3.so.
#define Py_LIMITED_API 0x03090000
#include <Python.h>

__global__ void fill(float *out, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

static PyObject *launch(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    fill<<<1, 32>>>(nullptr, 1.0f, 0);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"launch", launch, METH_NOARGS, "Launch a kernel."},
    {nullptr, nullptr, 0, nullptr},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, methods};

PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&module); }
