/* _core.score_positions: apo_score_positions() for one series (docs/python.md, "The
 * positions of one set"). The fold is the library's; this file only checks what keeps the
 * C call memory-safe (float64 arrays of one length) and leaves the kernel, rule and
 * parameters to the library, so that its message reaches the caller unchanged. */
#include "binding.h"

/* A 1-D C-contiguous float64 array of `o` (a copy when it is not one already), NULL with an
 * exception set otherwise. */
static PyArrayObject *as_doubles(PyObject *o, const char *what) {
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 1, 1,
                                                        NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    if (a == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "score_positions: %s must be one series (1-D)", what);
    }
    return a;
}

PyObject *apo_py_score_positions(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"kernel", "rule", "close", "outputs", "params", NULL};
    const char *kernel = NULL, *rule = NULL;
    PyObject *close_obj = NULL, *outputs_obj = NULL, *params = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ssOO|O", kwlist, &kernel, &rule, &close_obj,
                                     &outputs_obj, &params))
        return NULL;
    PyObject *result = NULL, *seq = NULL;
    PyArrayObject *close = NULL, *outs[APO_MAX_IO] = {0}, *pos = NULL, *ret = NULL, *eq = NULL,
                  *scores = NULL;
    apo_py_args a;
    if (apo_py_args_fill(&a, params, NULL) < 0)
        goto done;
    close = as_doubles(close_obj, "close");
    if (close == NULL)
        goto done;
    const npy_intp n = PyArray_DIM(close, 0);
    seq = PySequence_Fast(outputs_obj, "score_positions: outputs must be a sequence of arrays");
    if (seq == NULL)
        goto done;
    const Py_ssize_t n_outputs = PySequence_Fast_GET_SIZE(seq);
    if (n_outputs > APO_MAX_IO) {
        PyErr_Format(PyExc_ValueError, "score_positions: %zd outputs, more than a kernel has (%d)",
                     n_outputs, APO_MAX_IO);
        goto done;
    }
    const double *out_ptrs[APO_MAX_IO];
    for (Py_ssize_t k = 0; k < n_outputs; k++) {
        outs[k] = as_doubles(PySequence_Fast_GET_ITEM(seq, k), "each output");
        if (outs[k] == NULL)
            goto done;
        if (PyArray_DIM(outs[k], 0) != n) {
            PyErr_Format(PyExc_ValueError,
                         "score_positions: output %zd holds %zd values for the %zd bars of close",
                         k, (Py_ssize_t)PyArray_DIM(outs[k], 0), (Py_ssize_t)n);
            goto done;
        }
        out_ptrs[k] = PyArray_DATA(outs[k]);
    }
    npy_intp dim = n, n_scores = APO_N_SCORES;
    pos = (PyArrayObject *)PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    ret = (PyArrayObject *)PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    eq = (PyArrayObject *)PyArray_SimpleNew(1, &dim, NPY_DOUBLE);
    scores = (PyArrayObject *)PyArray_SimpleNew(1, &n_scores, NPY_DOUBLE);
    if (pos == NULL || ret == NULL || eq == NULL || scores == NULL)
        goto done;
    apo_status st;
    /* The library's error text is per thread, and the call stays on this one. */
    Py_BEGIN_ALLOW_THREADS
        st = apo_score_positions(kernel, rule, PyArray_DATA(close), out_ptrs, (size_t)n_outputs,
                                 (size_t)n, a.params, a.n_params, PyArray_DATA(pos),
                                 PyArray_DATA(ret), PyArray_DATA(eq), PyArray_DATA(scores));
    Py_END_ALLOW_THREADS
    if (st != APO_OK) {
        apo_py_raise(st);
        goto done;
    }
    result = PyTuple_Pack(4, (PyObject *)pos, (PyObject *)ret, (PyObject *)eq, (PyObject *)scores);
done:
    Py_XDECREF(close);
    for (int k = 0; k < APO_MAX_IO; k++)
        Py_XDECREF(outs[k]);
    Py_XDECREF(seq);
    Py_XDECREF(pos);
    Py_XDECREF(ret);
    Py_XDECREF(eq);
    Py_XDECREF(scores);
    apo_py_args_release(&a);
    return result;
}
