/* apo_status -> Python exception, carrying apo_last_error()'s text (docs/python.md,
 * "Errors"). The classes are defined in apportion/errors.py and registered here at import;
 * before that (or for a status without a class) RuntimeError stands in. */
#include "binding.h"

static PyObject *error_classes; /* dict: int status -> class */

PyObject *apo_py_set_error_classes(PyObject *self, PyObject *mapping) {
    (void)self;
    if (!PyDict_Check(mapping)) {
        PyErr_SetString(PyExc_TypeError, "_set_error_classes takes a dict");
        return NULL;
    }
    Py_INCREF(mapping);
    Py_XSETREF(error_classes, mapping);
    Py_RETURN_NONE;
}

void apo_py_errors_clear(void) { Py_CLEAR(error_classes); }

PyObject *apo_py_raise(apo_status st) {
    /* Read first: the text is only valid until this thread's next apportion call. */
    const char *detail = apo_last_error();
    const char *message = (detail != NULL && detail[0] != '\0') ? detail : apo_strerror(st);
    PyObject *cls = NULL;
    if (error_classes != NULL) {
        PyObject *key = PyLong_FromLong((long)st);
        if (key == NULL)
            return NULL;
        cls = PyDict_GetItemWithError(error_classes, key); /* borrowed */
        Py_DECREF(key);
        if (cls == NULL && PyErr_Occurred())
            return NULL;
    }
    if (cls == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", apo_status_name(st), message);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(cls, "si", message, (int)st);
    if (exc == NULL)
        return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}
