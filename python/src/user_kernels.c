/* User kernels from Python (docs/python.md, "User kernels"): a compiled CPU function given
 * by address (a numba @cfunc's .address, or any C function with the apo_cpu_kernel_fn
 * signature), which runs without the GIL, or a plain Python callable, which each tile
 * calls holding the GIL (so tiles run one at a time: correct, and slow). */
#include "binding.h"

#include <string.h>

/* Arrays over the whole inputs (read-only) and outputs of a call, rows x cols. */
static PyObject *views(const apo_kernel_call *call, int outputs) {
    size_t n = outputs ? call->n_outputs : call->n_inputs;
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    npy_intp dims[2] = {(npy_intp)call->rows, (npy_intp)call->cols};
    for (size_t i = 0; t != NULL && i < n; i++) {
        void *data = outputs ? (void *)call->outputs[i] : (void *)call->inputs[i];
        PyObject *arr = PyArray_SimpleNewFromData(2, dims, NPY_DOUBLE, data);
        if (arr == NULL) {
            Py_CLEAR(t);
            break;
        }
        if (!outputs)
            PyArray_CLEARFLAGS((PyArrayObject *)arr, NPY_ARRAY_WRITEABLE);
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, arr);
    }
    return t;
}

/* A Python callable registered as a kernel, with the runtime whose calls it serves (borrowed:
 * the runtime's `kernels` list holds the capsule that holds this, so it dies first). */
typedef struct {
    PyObject *fn;
    apo_py_runtime *owner;
} py_kernel;

static void py_kernel_free(PyObject *capsule) {
    py_kernel *k = PyCapsule_GetPointer(capsule, "apportion.py_kernel");
    if (k == NULL)
        return;
    Py_XDECREF(k->fn);
    PyMem_Free(k);
}

static PyObject *traceback_module;

/* Keeps the first exception of a call, with its traceback, for apo_py_chain_kernel_error;
 * later ones (other tiles of the same failure) are dropped, so the traceback is shown once,
 * when the caller sees the call's exception, rather than once a tile on stderr. */
static void keep_kernel_error(py_kernel *k) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != NULL && tb != NULL)
        PyException_SetTraceback(value, tb);
    if (k->owner->kernel_error == NULL && value != NULL) {
        /* The frames' locals go: they hold the views of the call's arrays (views()), which
         * must not outlive the call, and a kept traceback would keep them. */
        if (tb != NULL) {
            PyObject *r = PyObject_CallMethod(traceback_module, "clear_frames", "O", tb);
            if (r == NULL)
                PyErr_Clear();
            Py_XDECREF(r);
        }
        k->owner->kernel_error = value;
        value = NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

void apo_py_chain_kernel_error(apo_py_runtime *self) {
    PyObject *cause = self->kernel_error;
    self->kernel_error = NULL;
    if (cause == NULL || !PyErr_Occurred()) {
        Py_XDECREF(cause);
        return;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    /* KeyboardInterrupt or SystemExit in a kernel (Ctrl-C lands in one when the kernel runs
     * on the main thread) is not the kernel's failure: it goes on as itself. */
    if (!PyObject_IsInstance(cause, PyExc_Exception)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_SetObject((PyObject *)Py_TYPE(cause), cause);
        Py_DECREF(cause);
        return;
    }
    if (value != NULL)
        PyException_SetCause(value, cause); /* steals cause; sets __suppress_context__ */
    else
        Py_DECREF(cause);
    PyErr_Restore(type, value, tb);
}

/* The CPU function of a Python callable: fn(inputs, outputs, row, begin, end, params, seed)
 * computes outputs[k][row, begin:end]; it returns None (success) or a status code. A raised
 * exception fails the call and becomes the __cause__ of its KernelFailedError. */
static apo_status python_cpu(const apo_kernel_call *call, void *user) {
    PyGILState_STATE gil = PyGILState_Ensure();
    apo_status st = APO_ERR_KERNEL_FAILED;
    py_kernel *k = user;
    PyObject *fn = k->fn;
    PyObject *ins = views(call, 0), *outs = views(call, 1);
    PyObject *params = PyTuple_New((Py_ssize_t)call->n_params);
    for (size_t i = 0; params != NULL && i < call->n_params; i++) {
        PyObject *v = PyFloat_FromDouble(call->params[i]);
        if (v == NULL)
            Py_CLEAR(params);
        else
            PyTuple_SET_ITEM(params, (Py_ssize_t)i, v);
    }
    PyObject *r = NULL;
    if (ins != NULL && outs != NULL && params != NULL)
        r = PyObject_CallFunction(fn, "OOnnnOK", ins, outs, (Py_ssize_t)call->row,
                                  (Py_ssize_t)call->begin, (Py_ssize_t)call->end, params,
                                  (unsigned long long)call->seed);
    if (r == Py_None) {
        st = APO_OK;
    } else if (r != NULL && PyLong_Check(r)) {
        long v = PyLong_AsLong(r);
        st = (v == -1 && PyErr_Occurred()) ? APO_ERR_KERNEL_FAILED : (apo_status)v;
    }
    if (PyErr_Occurred())
        keep_kernel_error(k);
    Py_XDECREF(r);
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    Py_XDECREF(params);
    PyGILState_Release(gil);
    return st;
}

/* Names from a sequence of str, kept alive by `refs`. */
static int names_of(PyObject *seq_in, PyObject *refs, const char **names, size_t max, size_t *n,
                    const char *what) {
    PyObject *seq = PySequence_Fast(seq_in, "names must be a sequence of str");
    if (seq == NULL || PyList_Append(refs, seq) < 0) {
        Py_XDECREF(seq);
        return -1;
    }
    Py_DECREF(seq);
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count < 0 || (size_t)count > max) {
        PyErr_Format(PyExc_ValueError, "%zd %s; at most %zu", count, what, max);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(s)) {
            PyErr_Format(PyExc_TypeError, "%s must be str, not %R", what, s);
            return -1;
        }
        names[i] = PyUnicode_AsUTF8(s);
        if (names[i] == NULL)
            return -1;
    }
    *n = (size_t)count;
    return 0;
}

PyObject *apo_py_register_kernel(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"name",     "cpu",  "n_inputs", "outputs",     "param_names",
                             "defaults", "halo", "tile",     "input_names", NULL};
    apo_py_runtime *self = (apo_py_runtime *)op;
    const char *name = NULL;
    PyObject *cpu = NULL, *outputs = NULL, *param_names = NULL, *defaults = NULL;
    PyObject *input_names = Py_None;
    Py_ssize_t n_inputs = 1, halo = 0, tile = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOnOOO|nnO", kwlist, &name, &cpu, &n_inputs,
                                     &outputs, &param_names, &defaults, &halo, &tile, &input_names))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get(self);
    if (rt == NULL)
        return NULL;
    if (n_inputs < 0 || halo < 0 || tile < 0) {
        PyErr_SetString(PyExc_ValueError, "n_inputs, halo and tile must be >= 0");
        return NULL;
    }
    apo_kernel_desc desc = APO_KERNEL_DESC_INIT;
    desc.name = name;
    desc.n_inputs = (size_t)n_inputs;
    desc.halo = (size_t)halo;
    desc.tile = (size_t)tile;
    PyObject *holder = NULL; /* what desc.user points into, for a Python callable */

    /* A numba cfunc (or ctypes function) carries the address of compiled code. */
    PyObject *address = PyObject_GetAttrString(cpu, "address");
    if (address != NULL) {
        void *fn = PyLong_AsVoidPtr(address);
        Py_DECREF(address);
        if (fn == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "cpu.address is 0");
            return NULL;
        }
        /* Converting an object pointer to a function pointer is how C receives code from a
         * JIT; POSIX guarantees it works (dlsym relies on it). */
        memcpy(&desc.cpu, &fn, sizeof fn);
        desc.user = NULL;
    } else if (PyErr_ExceptionMatches(PyExc_AttributeError) && PyCallable_Check(cpu)) {
        PyErr_Clear();
        if (traceback_module == NULL &&
            (traceback_module = PyImport_ImportModule("traceback")) == NULL)
            return NULL;
        py_kernel *k = PyMem_Calloc(1, sizeof *k);
        if (k == NULL)
            return PyErr_NoMemory();
        k->fn = cpu;
        Py_INCREF(cpu);
        k->owner = self;
        holder = PyCapsule_New(k, "apportion.py_kernel", py_kernel_free);
        if (holder == NULL) {
            Py_DECREF(cpu);
            PyMem_Free(k);
            return NULL;
        }
        desc.cpu = python_cpu;
        desc.user = k;
    } else {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(
                PyExc_TypeError,
                "cpu must be a numba @cfunc (or have .address) or a Python callable, not %R", cpu);
        }
        return NULL;
    }

    if (holder == NULL) {
        holder = cpu;
        Py_INCREF(holder);
    }
    PyObject *refs = PyList_New(0);
    if (refs == NULL) {
        Py_DECREF(holder);
        return NULL;
    }
    const char *out_names[APO_MAX_IO], *in_names[APO_MAX_IO], *p_names[APO_MAX_PARAMS];
    double p_defaults[APO_MAX_PARAMS];
    size_t n_outputs = 0, n_params = 0, n_in_names = 0;
    PyObject *defaults_arr = NULL;
    if (input_names != Py_None) {
        if (names_of(input_names, refs, in_names, APO_MAX_IO, &n_in_names, "inputs") < 0)
            goto fail;
        if (n_in_names != desc.n_inputs) {
            PyErr_Format(PyExc_ValueError, "%zu input names for %zu inputs", n_in_names,
                         desc.n_inputs);
            goto fail;
        }
        desc.input_names = in_names;
    }
    if (names_of(outputs, refs, out_names, APO_MAX_IO, &n_outputs, "outputs") < 0 ||
        names_of(param_names, refs, p_names, APO_MAX_PARAMS, &n_params, "parameters") < 0)
        goto fail;
    defaults_arr = PyArray_FROMANY(defaults, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (defaults_arr == NULL)
        goto fail;
    if ((size_t)PyArray_SIZE((PyArrayObject *)defaults_arr) != n_params) {
        PyErr_SetString(PyExc_ValueError, "one default a parameter is needed");
        goto fail;
    }
    memcpy(p_defaults, PyArray_DATA((PyArrayObject *)defaults_arr), n_params * sizeof(double));
    desc.n_outputs = n_outputs;
    desc.output_names = out_names;
    desc.n_params = n_params;
    desc.param_names = p_names;
    desc.param_defaults = p_defaults;

    /* Kept before registering: once registered, the runtime may call it at any time. */
    if (PyList_Append(self->kernels, holder) < 0)
        goto fail;
    Py_CLEAR(holder);
    apo_status st = apo_kernel_register(rt, &desc);
    Py_DECREF(defaults_arr);
    Py_DECREF(refs);
    if (st != APO_OK)
        return apo_py_raise(st);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(defaults_arr);
    Py_DECREF(refs);
    Py_XDECREF(holder);
    return NULL;
}
