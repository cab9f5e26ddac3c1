/* Runtime._register_rule: a numba @cfunc as a user rule (apo_rule_register, docs/python.md,
 * "User rules"). Only compiled code is taken: the rule is called once per bar from the
 * runtime's worker threads, where a Python callable would take the GIL at every bar. */
#include "binding.h"
#include <string.h>

PyObject *apo_py_register_rule(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"name", "kernel", "rule", NULL};
    apo_py_runtime *self = (apo_py_runtime *)op;
    const char *name = NULL, *kernel = NULL;
    PyObject *rule = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ssO", kwlist, &name, &kernel, &rule))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get(self);
    if (rt == NULL)
        return NULL;
    PyObject *address = PyObject_GetAttrString(rule, "address");
    if (address == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "rule must be a numba @cfunc(apportion.numba_kernels.rule_signature) (or "
                         "have .address), not %R",
                         rule);
        }
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(address);
    Py_DECREF(address);
    if (fn == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "rule.address is 0");
        return NULL;
    }
    apo_rule_desc desc = APO_RULE_DESC_INIT;
    desc.name = name;
    desc.kernel = kernel;
    /* Converting an object pointer to a function pointer is how C receives code from a JIT;
     * POSIX guarantees it works (dlsym relies on it). */
    memcpy(&desc.fn, &fn, sizeof fn);
    /* Kept before registering: once registered, the runtime may call it at any time, and the
     * cfunc's code lives as long as the object. */
    if (PyList_Append(self->kernels, rule) < 0)
        return NULL;
    apo_status st = apo_rule_register(rt, &desc);
    if (st != APO_OK)
        return apo_py_raise(st);
    Py_RETURN_NONE;
}
