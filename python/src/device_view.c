/* Device arrays handed in by other libraries (docs/python.md, "Device arrays"): objects with
 * __cuda_array_interface__ (versions 2 and 3: numba.cuda, CuPy, PyTorch) or DLPack
 * (__dlpack__ / __dlpack_device__ on CUDA memory), read as a pointer, a shape and the GPU
 * that holds them. Every check that keeps the C call memory-safe is here (dtype,
 * contiguity, which GPU); nothing here reads the memory, so a device pointer reaching a
 * build without the CUDA backend is refused by the library's own APO_ERR_NO_DEVICE. */
#include "binding.h"

#include <string.h>

#include "dlpack_abi.h"

/* __dlpack__'s stream argument for the CUDA legacy default stream (the protocol's 1). */
#define DL_LEGACY_STREAM 1

void apo_py_device_view_release(apo_py_device_view *v) {
    dl_managed_tensor *m = v->managed;
    v->managed = NULL;
    if (m != NULL && m->deleter != NULL)
        m->deleter(m); /* the protocol: the consumer that renamed the capsule calls it */
}

/* Rows and columns of a C-contiguous array of `ndim` (1 or 2) dimensions; -1 with an
 * exception for another number of dimensions. */
static int shape_of(int ndim, const int64_t *dims, const char *what, Py_ssize_t i,
                    apo_py_device_view *v) {
    if (ndim != 1 && ndim != 2) {
        PyErr_Format(PyExc_ValueError, "%s %zd has %d dimensions; 1 or 2 are accepted", what, i,
                     ndim);
        return -1;
    }
    for (int d = 0; d < ndim; d++)
        if (dims[d] < 0) {
            PyErr_Format(PyExc_ValueError, "%s %zd has a negative extent", what, i);
            return -1;
        }
    v->ndim = ndim;
    v->rows = ndim == 2 ? (size_t)dims[0] : 1;
    v->cols = (size_t)dims[ndim - 1];
    return 0;
}

/* Whether strides (in units of `unit`, NULL: none given) are those of a C-contiguous array;
 * the stride of an extent of 1 does not matter, as no step is taken along it. */
static int c_contiguous(int ndim, const int64_t *dims, const int64_t *strides, int64_t unit) {
    if (strides == NULL)
        return 1;
    int64_t expect = unit;
    for (int d = ndim - 1; d >= 0; d--) {
        if (dims[d] > 1 && strides[d] != expect)
            return 0;
        expect *= dims[d];
    }
    return 1;
}

static int not_contiguous(const char *what, Py_ssize_t i) {
    PyErr_Format(PyExc_ValueError,
                 "%s %zd is a strided device array; a C-contiguous one is needed (copy it: "
                 "cupy.ascontiguousarray(x), tensor.contiguous())",
                 what, i);
    return -1;
}

/* The runtime device holding v->data, from the runtime (cudaPointerGetAttributes). Without a
 * GPU or the CUDA backend this is APO_ERR_NO_DEVICE, raised as the library words it. */
static int locate(apo_runtime *rt, const char *what, Py_ssize_t i, apo_py_device_view *v) {
    if (v->rows * v->cols == 0) {
        PyErr_Format(PyExc_ValueError, "%s %zd is a device array of no values", what, i);
        return -1;
    }
    if (v->data == NULL) {
        PyErr_Format(PyExc_ValueError, "%s %zd is a device array at address 0", what, i);
        return -1;
    }
    apo_status st = apo_cuda_pointer_device(rt, v->data, &v->device);
    if (st != APO_OK) {
        apo_py_raise(st);
        return -1;
    }
    return 0;
}

/* A tuple of at most two ints into dims; -1 with an exception otherwise. */
static int int_tuple(PyObject *t, const char *field, int64_t *dims, int *n) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) > 2 || PyTuple_GET_SIZE(t) < 1) {
        PyErr_Format(PyExc_ValueError,
                     "__cuda_array_interface__[%s] is %R: a tuple of 1 or 2 ints is accepted",
                     field, t);
        return -1;
    }
    *n = (int)PyTuple_GET_SIZE(t);
    for (int d = 0; d < *n; d++) {
        long long x = PyLong_AsLongLong(PyTuple_GET_ITEM(t, d));
        if (x == -1 && PyErr_Occurred())
            return -1;
        dims[d] = x;
    }
    return 0;
}

static PyObject *field(PyObject *cai, const char *name, int required) {
    PyObject *o = PyDict_GetItemString(cai, name); /* borrowed */
    if (o == NULL && required)
        PyErr_Format(PyExc_ValueError, "__cuda_array_interface__ has no %s", name);
    return o;
}

/* __cuda_array_interface__ (numba's specification, versions 2 and 3). */
static int from_array_interface(apo_runtime *rt, PyObject *cai, const char *what, Py_ssize_t i,
                                apo_py_device_view *v) {
    if (!PyDict_Check(cai)) {
        PyErr_Format(PyExc_TypeError, "%s %zd: __cuda_array_interface__ is not a dict", what, i);
        return -1;
    }
    PyObject *version = field(cai, "version", 1), *shape = field(cai, "shape", 1),
             *typestr = field(cai, "typestr", 1), *data = field(cai, "data", 1);
    if (version == NULL || shape == NULL || typestr == NULL || data == NULL)
        return -1;
    long ver = PyLong_AsLong(version);
    if (ver == -1 && PyErr_Occurred())
        return -1;
    if (ver != 2 && ver != 3) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd: __cuda_array_interface__ version %ld; versions 2 and 3 are read",
                     what, i, ver);
        return -1;
    }
    if (!PyUnicode_Check(typestr) || PyUnicode_CompareWithASCIIString(typestr, "<f8") != 0) {
        PyErr_Format(PyExc_TypeError, "%s %zd has typestr %R; float64 ('<f8') is needed", what, i,
                     typestr);
        return -1;
    }
    int64_t dims[2], strides[2];
    int nd, n_strides;
    if (int_tuple(shape, "shape", dims, &nd) < 0 || shape_of(nd, dims, what, i, v) < 0)
        return -1;
    PyObject *st = field(cai, "strides", 0);
    if (st != NULL && st != Py_None) {
        if (int_tuple(st, "strides", strides, &n_strides) < 0)
            return -1;
        if (n_strides != nd || !c_contiguous(nd, dims, strides, (int64_t)sizeof(double)))
            return not_contiguous(what, i);
    }
    PyObject *mask = field(cai, "mask", 0);
    if (mask != NULL && mask != Py_None) {
        PyErr_Format(PyExc_ValueError, "%s %zd has a mask; masked device arrays are not read", what,
                     i);
        return -1;
    }
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd: __cuda_array_interface__[data] is %R, not "
                     "(pointer, readonly)",
                     what, i, data);
        return -1;
    }
    v->data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    v->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (PyErr_Occurred() || v->readonly < 0)
        return -1;
    PyObject *stream = field(cai, "stream", 0);
    if (stream != NULL && stream != Py_None) {
        void *handle = PyLong_AsVoidPtr(stream);
        if (handle == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError,
                             "%s %zd: __cuda_array_interface__[stream] is 0, which the "
                             "specification forbids (1: the legacy default stream)",
                             what, i);
            return -1;
        }
        v->stream = handle;
    }
    return locate(rt, what, i, v);
}

/* The runtime device of CUDA ordinal `ordinal`; -1 with an exception when the runtime has
 * no GPU (the library's APO_ERR_NO_DEVICE) or not that one. */
static int device_of_ordinal(apo_runtime *rt, int ordinal, const char *what, Py_ssize_t i,
                             size_t *device) {
    size_t n = 0;
    int any_gpu = 0;
    (void)apo_device_count(rt, &n);
    for (size_t d = 0; d < n; d++) {
        int o;
        if (apo_cuda_device_ordinal(rt, d, &o) != APO_OK)
            continue;
        any_gpu = 1;
        if (o == ordinal) {
            *device = d;
            return 0;
        }
    }
    if (!any_gpu) {
        /* Asked of any address, it fails before looking at it: no GPU, or no backend. */
        apo_status st = apo_cuda_pointer_device(rt, &n, device);
        if (st != APO_OK) {
            apo_py_raise(st);
            return -1;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "%s %zd is memory of CUDA device %d, which this runtime does not use", what, i,
                 ordinal);
    return -1;
}

/* The DLPack capsule's tensor, checked: 0, or -1 with an exception. */
static int check_tensor(const dl_tensor *t, int ordinal, const char *what, Py_ssize_t i,
                        apo_py_device_view *v) {
    if (t->device.device_type != DL_CUDA || t->device.device_id != ordinal) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd: the DLPack tensor is on device (%d, %d), __dlpack_device__ said "
                     "(2, %d)",
                     what, i, (int)t->device.device_type, (int)t->device.device_id, ordinal);
        return -1;
    }
    if (t->dtype.code != DL_FLOAT || t->dtype.bits != 64 || t->dtype.lanes != 1) {
        PyErr_Format(PyExc_TypeError,
                     "%s %zd has DLPack dtype (code %d, %d bits, %d lanes); float64 is needed",
                     what, i, (int)t->dtype.code, (int)t->dtype.bits, (int)t->dtype.lanes);
        return -1;
    }
    if (t->shape == NULL) {
        PyErr_Format(PyExc_ValueError, "%s %zd: the DLPack tensor has no shape", what, i);
        return -1;
    }
    if (shape_of((int)t->ndim, t->shape, what, i, v) < 0)
        return -1;
    if (!c_contiguous((int)t->ndim, t->shape, t->strides, 1))
        return not_contiguous(what, i);
    v->data = (char *)t->data + t->byte_offset;
    return 0;
}

/* DLPack: __dlpack_device__() names the GPU, __dlpack__(stream=1) hands over the tensor
 * after the producer ordered its own work before the legacy default stream, which the call
 * then comes after (apo_cuda_placement without a stream). */
static int from_dlpack(apo_runtime *rt, PyObject *o, PyObject *dev_fn, const char *what,
                       Py_ssize_t i, apo_py_device_view *v) {
    PyObject *dev = PyObject_CallNoArgs(dev_fn);
    if (dev == NULL)
        return -1;
    int type = 0, ordinal = 0;
    int ok = PyTuple_Check(dev) && PyArg_ParseTuple(dev, "ii", &type, &ordinal);
    Py_DECREF(dev);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s %zd: __dlpack_device__() is no (type, id) pair", what,
                         i);
        return -1;
    }
    if (type != DL_CUDA) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd is a DLPack array on device type %d; CUDA memory (kDLCUDA, 2) or a "
                     "numpy array is needed",
                     what, i, type);
        return -1;
    }
    if (device_of_ordinal(rt, ordinal, what, i, &v->device) < 0)
        return -1;
    PyObject *kw = Py_BuildValue("{s:i}", "stream", DL_LEGACY_STREAM);
    PyObject *fn = kw != NULL ? PyObject_GetAttrString(o, "__dlpack__") : NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *capsule = fn != NULL && empty != NULL ? PyObject_Call(fn, empty, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(fn);
    Py_XDECREF(empty);
    if (capsule == NULL)
        return -1;
    int rc = -1;
    if (PyCapsule_IsValid(capsule, "used_dltensor")) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd: its DLPack capsule was consumed already (named used_dltensor)", what,
                     i);
    } else if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_Format(PyExc_TypeError, "%s %zd: __dlpack__() gave no dltensor capsule", what, i);
    } else {
        dl_managed_tensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        if (check_tensor(&m->dl_tensor, ordinal, what, i, v) == 0 &&
            PyCapsule_SetName(capsule, "used_dltensor") == 0) {
            /* Ours now: the producer's capsule destructor leaves a renamed capsule alone. */
            v->managed = m;
            rc = 0;
        }
    }
    Py_DECREF(capsule);
    return rc;
}

int apo_py_is_device_object(PyObject *o) {
    if (PyArray_Check(o))
        return 0;
    return PyObject_HasAttrString(o, "__cuda_array_interface__") ||
           PyObject_HasAttrString(o, "__dlpack_device__");
}

int apo_py_device_view_take(apo_runtime *rt, PyObject *o, const char *what, Py_ssize_t i,
                            apo_py_device_view *v) {
    memset(v, 0, sizeof *v);
    /* A DeviceArray of this runtime names its device itself; one of another runtime, whose
     * device order may differ, is read through its interface as any other array. */
    if (PyObject_TypeCheck(o, &apo_py_device_array_type) &&
        ((const apo_py_device_array *)o)->runtime->rt == rt) {
        const apo_py_device_array *a = (const apo_py_device_array *)o;
        v->data = a->data;
        v->device = a->device;
        v->ndim = a->ndim;
        v->rows = a->ndim == 2 ? (size_t)a->shape[0] : 1;
        v->cols = (size_t)a->shape[a->ndim - 1];
        return 0;
    }
    PyObject *cai = PyObject_GetAttrString(o, "__cuda_array_interface__");
    if (cai != NULL) {
        int rc = from_array_interface(rt, cai, what, i, v);
        Py_DECREF(cai);
        return rc;
    }
    PyErr_Clear();
    PyObject *dev_fn = PyObject_GetAttrString(o, "__dlpack_device__");
    if (dev_fn == NULL) {
        PyErr_Format(PyExc_TypeError, "%s %zd is not a numpy array nor a device array", what, i);
        return -1;
    }
    int rc = from_dlpack(rt, o, dev_fn, what, i, v);
    Py_DECREF(dev_fn);
    return rc;
}
