/*
 * Output arrays from the runtime's pool of pinned host blocks (apo_cuda_host_acquire,
 * docs/host-pool.md): when the runtime has a GPU, the numpy arrays a call allocates for its
 * outputs lie in pinned memory, which the GPUs write straight into instead of through staging
 * copies. Each such array's base object is a HostBlock, whose end releases the block to the
 * pool (or frees it, once the runtime is closed: the C pool outlives its runtime for that).
 * The HostBlock holds no reference to the Runtime object, so that closing or dropping the
 * runtime never waits for the arrays a caller keeps.
 */
#include "binding.h"

/* Outputs smaller than this are plain numpy arrays: their staging costs microseconds, and a
 * block of the pool would hold pinned memory for little. */
#define APO_PY_POOL_MIN_BYTES ((size_t)1 << 20)

typedef struct {
    PyObject_HEAD void *data;
    size_t nbytes;
    int pinned;
} apo_py_host_block;

static void host_block_dealloc(PyObject *op) {
    apo_py_host_block *self = (apo_py_host_block *)op;
    /* A block of this module's acquire: release cannot refuse it. */
    (void)apo_cuda_host_release(self->data);
    Py_TYPE(op)->tp_free(op);
}

static PyObject *host_block_get_pinned(PyObject *op, void *closure) {
    (void)closure;
    return PyBool_FromLong(((apo_py_host_block *)op)->pinned);
}

static PyObject *host_block_get_nbytes(PyObject *op, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(((apo_py_host_block *)op)->nbytes);
}

static PyGetSetDef host_block_getset[] = {
    {"pinned", host_block_get_pinned, NULL,
     "True when the block is pinned memory of the pool; False when pinning failed or the pool "
     "was at its bound (plain memory, the same bits).",
     NULL},
    {"nbytes", host_block_get_nbytes, NULL, "The bytes the array holds.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject apo_py_host_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apportion._core.HostBlock",
    .tp_basicsize = sizeof(apo_py_host_block),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The base of an output array in a block of the runtime's pinned host pool "
              "(docs/host-pool.md); the block goes back to the pool when the array goes.",
    .tp_dealloc = host_block_dealloc,
    .tp_getset = host_block_getset,
};

PyObject *apo_py_output_array(apo_py_runtime *owner, int ndim, npy_intp *dims) {
    size_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= (size_t)dims[i];
    const size_t nbytes = count * sizeof(double);
    if (!owner->has_gpu || nbytes < APO_PY_POOL_MIN_BYTES)
        return PyArray_EMPTY(ndim, dims, NPY_DOUBLE, 0);
    void *data = NULL;
    int pinned = 0;
    /* Fails only without memory at all (or a GPU): numpy's own allocation then says so. */
    if (apo_cuda_host_acquire(owner->rt, nbytes, &data, &pinned) != APO_OK)
        return PyArray_EMPTY(ndim, dims, NPY_DOUBLE, 0);
    apo_py_host_block *block = PyObject_New(apo_py_host_block, &apo_py_host_block_type);
    if (block == NULL) {
        (void)apo_cuda_host_release(data);
        return NULL;
    }
    block->data = data;
    block->nbytes = nbytes;
    block->pinned = pinned;
    PyObject *arr = PyArray_SimpleNewFromData(ndim, dims, NPY_DOUBLE, data);
    if (arr == NULL) {
        Py_DECREF(block);
        return NULL;
    }
    /* Steals the block's reference, also when it fails. */
    if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)block) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

static PyObject *info_dict(const apo_cuda_host_pool_info *i) {
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:K,s:K,s:K}", "limit_bytes",
                         (Py_ssize_t)i->limit_bytes, "pinned_bytes", (Py_ssize_t)i->pinned_bytes,
                         "idle_bytes", (Py_ssize_t)i->idle_bytes, "blocks_in_use",
                         (Py_ssize_t)i->blocks_in_use, "blocks_idle", (Py_ssize_t)i->blocks_idle,
                         "reused", (unsigned long long)i->reused, "pinned_new",
                         (unsigned long long)i->pinned_new, "plain", (unsigned long long)i->plain);
}

PyObject *apo_py_host_pool(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"limit_bytes", NULL};
    PyObject *limit = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", kwlist, &limit))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    if (limit != Py_None) {
        const size_t bytes = PyLong_AsSize_t(limit);
        if (bytes == (size_t)-1 && PyErr_Occurred())
            return NULL;
        apo_status st = apo_cuda_host_pool_limit(rt, bytes);
        if (st != APO_OK)
            return apo_py_raise(st);
    }
    apo_cuda_host_pool_info info = APO_CUDA_HOST_POOL_INFO_INIT;
    apo_status st = apo_cuda_host_pool_query(rt, &info);
    if (st != APO_OK)
        return apo_py_raise(st);
    return info_dict(&info);
}
