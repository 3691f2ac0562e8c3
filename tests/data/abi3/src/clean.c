/* An abi3 extension that stays inside the limited API (Py_LIMITED_API = 3.10). */
#define Py_LIMITED_API 0x030A0000
#include <Python.h>

static PyObject *answer(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyLong_FromLong(42);
}

static PyMethodDef methods[] = {
    {"answer", answer, METH_NOARGS, "Return 42."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "clean", NULL, -1, methods};

PyMODINIT_FUNC PyInit_clean(void) { return PyModule_Create(&module); }
