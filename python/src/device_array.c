/* apportion.DeviceArray (docs/python.md, "Device arrays"): float64 memory on one GPU of a
 * runtime, from apo_cuda_malloc(), that the outputs of a device-resident call come back in.
 * It owns the memory (freed on dealloc) and keeps its Runtime object alive, and exports it
 * both ways other libraries take device arrays without a copy: __cuda_array_interface__
 * (version 3) and DLPack. The data is complete when it is handed out (a device-resident
 * call returns once its work is done), so neither export asks the consumer to wait. */
#include "binding.h"
#include "dlpack_abi.h"

#include <stdint.h>
#include <string.h>

/* The exported tensor and the shape it points to, freed together by its deleter. */
typedef struct {
    dl_managed_tensor managed;
    int64_t shape[2];
} dl_export;

PyObject *apo_py_device_array_new(apo_py_runtime *owner, size_t device, int ndim, size_t rows,
                                  size_t cols) {
    apo_runtime *rt = apo_py_runtime_get(owner);
    if (rt == NULL)
        return NULL;
    int ordinal = -1;
    apo_status st = apo_cuda_device_ordinal(rt, device, &ordinal);
    if (st != APO_OK)
        return apo_py_raise(st);
    apo_py_device_array *a = PyObject_New(apo_py_device_array, &apo_py_device_array_type);
    if (a == NULL)
        return NULL;
    a->runtime = owner;
    Py_INCREF(owner);
    a->device = device;
    a->ordinal = ordinal;
    a->ndim = ndim;
    a->shape[0] = ndim == 2 ? (Py_ssize_t)rows : (Py_ssize_t)cols;
    a->shape[1] = ndim == 2 ? (Py_ssize_t)cols : 0;
    a->data = NULL;
    size_t bytes = rows * cols * sizeof(double);
    Py_BEGIN_ALLOW_THREADS
        st = apo_cuda_malloc(rt, device, bytes > 0 ? bytes : sizeof(double), &a->data);
    Py_END_ALLOW_THREADS
    if (st != APO_OK) {
        Py_DECREF(a);
        return apo_py_raise(st);
    }
    return (PyObject *)a;
}

static size_t count_of(const apo_py_device_array *a) {
    return a->ndim == 2 ? (size_t)a->shape[0] * (size_t)a->shape[1] : (size_t)a->shape[0];
}

/* Memory of a runtime closed meanwhile cannot be freed through it: it stays allocated until
 * the process ends (docs/python.md says to drop device arrays before closing). */
static void device_array_dealloc(PyObject *op) {
    apo_py_device_array *a = (apo_py_device_array *)op;
    if (a->data != NULL && a->runtime->rt != NULL)
        (void)apo_cuda_free(a->runtime->rt, a->device, a->data);
    Py_DECREF(a->runtime);
    PyObject_Free(op);
}

static PyObject *shape_tuple(const apo_py_device_array *a) {
    return a->ndim == 2 ? Py_BuildValue("(nn)", a->shape[0], a->shape[1])
                        : Py_BuildValue("(n)", a->shape[0]);
}

static PyObject *get_shape(PyObject *op, void *closure) {
    (void)closure;
    return shape_tuple((apo_py_device_array *)op);
}

static PyObject *get_dtype(PyObject *op, void *closure) {
    (void)op, (void)closure;
    return (PyObject *)PyArray_DescrFromType(NPY_DOUBLE);
}

static PyObject *get_device(PyObject *op, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(((apo_py_device_array *)op)->device);
}

static PyObject *get_runtime(PyObject *op, void *closure) {
    (void)closure;
    PyObject *r = (PyObject *)((apo_py_device_array *)op)->runtime;
    Py_INCREF(r);
    return r;
}

/* Version 3 of the interface; stream None: nothing is pending on the data. */
static PyObject *get_array_interface(PyObject *op, void *closure) {
    (void)closure;
    apo_py_device_array *a = (apo_py_device_array *)op;
    PyObject *shape = shape_tuple(a);
    if (shape == NULL)
        return NULL;
    return Py_BuildValue("{s:N,s:s,s:(NO),s:O,s:i,s:O}", "shape", shape, "typestr", "<f8", "data",
                         PyLong_FromVoidPtr(a->data), Py_False, "strides", Py_None, "version", 3,
                         "stream", Py_None);
}

static PyObject *copy_to_host(PyObject *op, PyObject *unused) {
    (void)unused;
    apo_py_device_array *a = (apo_py_device_array *)op;
    apo_runtime *rt = apo_py_runtime_get(a->runtime);
    if (rt == NULL)
        return NULL;
    npy_intp dims[2] = {a->shape[0], a->shape[1]};
    PyObject *host = PyArray_EMPTY(a->ndim, dims, NPY_DOUBLE, 0);
    if (host == NULL)
        return NULL;
    void *dst = PyArray_DATA((PyArrayObject *)host);
    size_t bytes = count_of(a) * sizeof(double);
    apo_status st;
    Py_BEGIN_ALLOW_THREADS
        st = apo_cuda_memcpy(rt, a->device, dst, a->data, bytes, APO_COPY_DEVICE_TO_HOST);
    Py_END_ALLOW_THREADS
    if (st != APO_OK) {
        Py_DECREF(host);
        return apo_py_raise(st);
    }
    return host;
}

static PyObject *dlpack_device(PyObject *op, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("(ii)", DL_CUDA, ((apo_py_device_array *)op)->ordinal);
}

/* Called by the consumer when it is done with the tensor, on any thread. */
static void dl_release(dl_managed_tensor *m) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF((PyObject *)m->manager_ctx);
    PyMem_RawFree(m); /* the dl_export it begins */
    PyGILState_Release(g);
}

/* A capsule no consumer took (still named "dltensor") is released with it. */
static void capsule_destructor(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, "dltensor"))
        return;
    dl_managed_tensor *m = PyCapsule_GetPointer(capsule, "dltensor");
    if (m != NULL)
        m->deleter(m);
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): an unversioned
 * DLManagedTensor, which every consumer takes. The stream needs nothing: no work is pending
 * on the data. A copy or another device is refused (BufferError, as the protocol says). */
static PyObject *dlpack(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *wanted_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO", kwlist, &stream, &max_version,
                                     &wanted_device, &copy))
        return NULL;
    apo_py_device_array *a = (apo_py_device_array *)op;
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "DeviceArray.__dlpack__: copy=True is not supported");
        return NULL;
    }
    if (wanted_device != Py_None) {
        int type = 0, id = 0;
        if (!PyArg_ParseTuple(wanted_device, "ii", &type, &id))
            return NULL;
        if (type != DL_CUDA || id != a->ordinal) {
            PyErr_Format(PyExc_BufferError, "DeviceArray.__dlpack__: the data is on (2, %d)",
                         a->ordinal);
            return NULL;
        }
    }
    dl_export *e = PyMem_RawCalloc(1, sizeof *e);
    if (e == NULL)
        return PyErr_NoMemory();
    e->shape[0] = a->shape[0];
    e->shape[1] = a->shape[1];
    dl_tensor *t = &e->managed.dl_tensor;
    t->data = a->data;
    t->device = (dl_device){DL_CUDA, a->ordinal};
    t->ndim = a->ndim;
    t->dtype = (dl_data_type){DL_FLOAT, 64, 1};
    t->shape = e->shape;
    e->managed.manager_ctx = op;
    e->managed.deleter = dl_release;
    Py_INCREF(op);
    PyObject *capsule = PyCapsule_New(&e->managed, "dltensor", capsule_destructor);
    if (capsule == NULL) {
        Py_DECREF(op);
        PyMem_RawFree(e);
    }
    return capsule;
}

static PyObject *device_array_repr(PyObject *op) {
    apo_py_device_array *a = (apo_py_device_array *)op;
    PyObject *shape = shape_tuple(a);
    if (shape == NULL)
        return NULL;
    PyObject *r =
        PyUnicode_FromFormat("DeviceArray(shape=%R, dtype=float64, device=%zu)", shape, a->device);
    Py_DECREF(shape);
    return r;
}

static PyMethodDef device_array_methods[] = {
    {"copy_to_host", copy_to_host, METH_NOARGS, "The values as a new numpy array."},
    {"__dlpack__", (PyCFunction)(void (*)(void))dlpack, METH_VARARGS | METH_KEYWORDS,
     "A DLPack capsule of the data (no copy)."},
    {"__dlpack_device__", dlpack_device, METH_NOARGS, "(2, CUDA ordinal): kDLCUDA."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_array_getset[] = {
    {"shape", get_shape, NULL, "(n,) or (rows, cols)", NULL},
    {"dtype", get_dtype, NULL, "numpy.float64, always", NULL},
    {"device", get_device, NULL, "the index of its GPU in Runtime.devices()", NULL},
    {"runtime", get_runtime, NULL, "the Runtime whose GPU holds it", NULL},
    {"__cuda_array_interface__", get_array_interface, NULL, "version 3, no stream pending", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject apo_py_device_array_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apportion.DeviceArray",
    .tp_basicsize = sizeof(apo_py_device_array),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "float64 values on one GPU of a Runtime, owned (docs/python.md, \"Device arrays\").",
    .tp_dealloc = device_array_dealloc,
    .tp_repr = device_array_repr,
    .tp_methods = device_array_methods,
    .tp_getset = device_array_getset,
};

/* Runtime._to_device(array, device): a copy of a float64 C-contiguous numpy array (1-D or
 * 2-D) on runtime device `device`. */
PyObject *apo_py_to_device(PyObject *op, PyObject *args) {
    PyObject *obj;
    Py_ssize_t device;
    if (!PyArg_ParseTuple(args, "On", &obj, &device))
        return NULL;
    if (device < 0) {
        PyErr_SetString(PyExc_ValueError, "device must be >= 0");
        return NULL;
    }
    PyArrayObject *arr =
        (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 1, 2, NPY_ARRAY_IN_ARRAY);
    if (arr == NULL)
        return NULL;
    int nd = PyArray_NDIM(arr);
    size_t rows = nd == 2 ? (size_t)PyArray_DIM(arr, 0) : 1;
    size_t cols = (size_t)PyArray_DIM(arr, nd - 1);
    apo_py_device_array *a = (apo_py_device_array *)apo_py_device_array_new(
        (apo_py_runtime *)op, (size_t)device, nd, rows, cols);
    if (a == NULL) {
        Py_DECREF(arr);
        return NULL;
    }
    apo_status st;
    const void *src = PyArray_DATA(arr);
    size_t bytes = rows * cols * sizeof(double);
    Py_BEGIN_ALLOW_THREADS
        st = apo_cuda_memcpy(a->runtime->rt, a->device, a->data, src, bytes,
                             APO_COPY_HOST_TO_DEVICE);
    Py_END_ALLOW_THREADS
    Py_DECREF(arr);
    if (st != APO_OK) {
        Py_DECREF(a);
        return apo_py_raise(st);
    }
    return (PyObject *)a;
}
