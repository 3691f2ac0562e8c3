/* Tagged abi3 by its build, but compiled WITHOUT Py_LIMITED_API: it calls private and
 * non-limited functions (_PyBytes_Resize, PyCode_NewEmpty), so it breaks on other CPythons. */
#include <Python.h>

static PyObject *grow(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    PyObject *bytes = PyBytes_FromStringAndSize("ab", 2);
    if (bytes == NULL || _PyBytes_Resize(&bytes, 8) < 0) {
        return NULL;
    }
    PyCodeObject *code = PyCode_NewEmpty("leaky.c", "grow", 1);
    Py_XDECREF((PyObject *)code);
    return bytes;
}

static PyMethodDef methods[] = {
    {"grow", grow, METH_NOARGS, "Grow a bytes object."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "leaky", NULL, -1, methods};

PyMODINIT_FUNC PyInit_leaky(void) { return PyModule_Create(&module); }
