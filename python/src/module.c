/* apportion._core: module initialisation (binding.h says what each file holds). */
#define APO_PY_MODULE_C
#include "binding.h"

static PyObject *version(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(apo_version());
}

static PyMethodDef module_methods[] = {
    {"version", version, METH_NOARGS, "The library's version string (apo_version())."},
    {"_set_error_classes", apo_py_set_error_classes, METH_O,
     "Registers {status code: exception class} (apportion/errors.py does it at import)."},
    {"score_positions", (PyCFunction)(void (*)(void))apo_py_score_positions,
     METH_VARARGS | METH_KEYWORDS,
     "score_positions(kernel, rule, close, outputs, params=None) -> (position, returns, equity, "
     "scores): apo_score_positions() for one series."},
    {NULL, NULL, 0, NULL},
};

static void module_free(void *module) {
    (void)module;
    apo_py_errors_clear();
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_core",
    "apportion's extension module over libapportion.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    module_free,
};

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    if (PyType_Ready(&apo_py_runtime_type) < 0 || PyType_Ready(&apo_py_stream_type) < 0 ||
        PyType_Ready(&apo_py_stream_group_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    Py_INCREF(&apo_py_runtime_type);
    if (PyModule_AddObject(m, "Runtime", (PyObject *)&apo_py_runtime_type) < 0) {
        Py_DECREF(&apo_py_runtime_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&apo_py_stream_type);
    if (PyModule_AddObject(m, "Stream", (PyObject *)&apo_py_stream_type) < 0) {
        Py_DECREF(&apo_py_stream_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&apo_py_stream_group_type);
    if (PyModule_AddObject(m, "StreamGroup", (PyObject *)&apo_py_stream_group_type) < 0) {
        Py_DECREF(&apo_py_stream_group_type);
        Py_DECREF(m);
        return NULL;
    }
    /* The status codes by name, from the header's table, so that Python never restates them. */
    PyObject *codes = PyDict_New();
    if (codes == NULL) {
        Py_DECREF(m);
        return NULL;
    }
#define APO_PY_CODE_(name, value, message)                                                         \
    do {                                                                                           \
        PyObject *v_ = PyLong_FromLong(value);                                                     \
        if (v_ == NULL || PyDict_SetItemString(codes, "APO_" #name, v_) < 0) {                     \
            Py_XDECREF(v_);                                                                        \
            Py_DECREF(codes);                                                                      \
            Py_DECREF(m);                                                                          \
            return NULL;                                                                           \
        }                                                                                          \
        Py_DECREF(v_);                                                                             \
    } while (0);
    APO_STATUS_MAP(APO_PY_CODE_)
#undef APO_PY_CODE_
    if (PyModule_AddObject(m, "status_codes", codes) < 0) {
        Py_DECREF(codes);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
