/* apportion._core: module initialisation (binding.h says what each file holds). */
#define APO_PY_MODULE_C
#include "binding.h"

static PyObject *version(PyObject *self, PyObject *noargs) {
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(apo_version());
}

/* apo_walk_forward(): (ranges as (begin, end) pairs, train_of, test_of), lists of ints. */
static PyObject *walk_forward(PyObject *self, PyObject *args) {
    (void)self;
    Py_ssize_t cols, train, test;
    int anchored;
    if (!PyArg_ParseTuple(args, "nnnp", &cols, &train, &test, &anchored))
        return NULL;
    if (cols < 0 || train < 0 || test < 0) {
        PyErr_SetString(PyExc_ValueError, "walk_forward: bars are counted from 0");
        return NULL;
    }
    enum { CAP = APO_MAX_SCORE_RANGES / 2 };
    apo_range ranges[2 * CAP];
    size_t train_of[CAP], test_of[CAP], n_ranges, n_windows;
    apo_status st = apo_walk_forward((size_t)cols, (size_t)train, (size_t)test, anchored, CAP,
                                     ranges, &n_ranges, train_of, test_of, &n_windows);
    if (st != APO_OK)
        return apo_py_raise(st);
    PyObject *r = PyList_New((Py_ssize_t)n_ranges), *tr = PyList_New((Py_ssize_t)n_windows),
             *te = PyList_New((Py_ssize_t)n_windows);
    for (size_t i = 0; r != NULL && i < n_ranges; i++)
        PyList_SET_ITEM(
            r, (Py_ssize_t)i,
            Py_BuildValue("(nn)", (Py_ssize_t)ranges[i].begin, (Py_ssize_t)ranges[i].end));
    for (size_t i = 0; tr != NULL && te != NULL && i < n_windows; i++) {
        PyList_SET_ITEM(tr, (Py_ssize_t)i, PyLong_FromSize_t(train_of[i]));
        PyList_SET_ITEM(te, (Py_ssize_t)i, PyLong_FromSize_t(test_of[i]));
    }
    if (r == NULL || tr == NULL || te == NULL || PyErr_Occurred()) {
        Py_XDECREF(r), Py_XDECREF(tr), Py_XDECREF(te);
        return NULL;
    }
    return Py_BuildValue("(NNN)", r, tr, te);
}

static PyMethodDef module_methods[] = {
    {"version", version, METH_NOARGS, "The library's version string (apo_version())."},
    {"walk_forward", walk_forward, METH_VARARGS,
     "apo_walk_forward(cols, train, test, anchored): (ranges, train_of, test_of)."},
    {"_set_error_classes", apo_py_set_error_classes, METH_O,
     "Registers {status code: exception class} (apportion/errors.py does it at import)."},
    {"score_positions", (PyCFunction)(void (*)(void))apo_py_score_positions,
     METH_VARARGS | METH_KEYWORDS,
     "score_positions(kernel, rule, close, outputs, params=None) -> (position, returns, equity, "
     "scores): apo_score_positions() for one series."},
    {"arrow_import", apo_py_arrow_import, METH_O,
     "arrow_import(obj) -> ArrowData: what an Arrow PyCapsule producer exports, checked."},
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
        PyType_Ready(&apo_py_stream_group_type) < 0 || PyType_Ready(&apo_py_arrow_type) < 0 ||
        PyType_Ready(&apo_py_device_array_type) < 0 || PyType_Ready(&apo_py_host_block_type) < 0)
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
    Py_INCREF(&apo_py_device_array_type);
    if (PyModule_AddObject(m, "DeviceArray", (PyObject *)&apo_py_device_array_type) < 0) {
        Py_DECREF(&apo_py_device_array_type);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&apo_py_host_block_type);
    if (PyModule_AddObject(m, "HostBlock", (PyObject *)&apo_py_host_block_type) < 0) {
        Py_DECREF(&apo_py_host_block_type);
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
