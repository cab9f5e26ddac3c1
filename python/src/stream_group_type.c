/* The StreamGroup type: apo_stream_group_* from Python (docs/python.md, "Groups of streams";
 * docs/streaming.md, "Groups"). It holds the Stream objects it feeds, so that none is freed
 * under the C group, and checks before every call that each is still open: Stream.close()
 * frees the C stream, which the C group would otherwise go on pointing at. The C layer takes
 * the named inputs already packed (series after series, one array a name) and gives each
 * stream's outputs as Stream._update gives them; apportion/stream_group.py turns the
 * caller's blocks into that layout and back. */
#include "binding.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The most outputs a member gives: a rule's stream gives APO_LIVE_N_OUTPUTS, more than a
 * kernel's APO_MAX_IO. */
#define MEMBER_OUTPUTS_MAX (APO_LIVE_N_OUTPUTS > APO_MAX_IO ? APO_LIVE_N_OUTPUTS : APO_MAX_IO)

typedef struct {
    PyObject_HEAD apo_stream_group *g;
    PyObject *streams; /* tuple of Stream objects, in the group's order */
    /* Each stream's C stream when the group was made: a stream closed since (and so a
     * pointer the C group must not follow) is found by comparing with it. */
    apo_stream **members;
    size_t n_streams, n_series;
    /* n_new of the last call (every series the same count), as a Stream keeps it. */
    size_t *n_new;
    size_t n_new_fill;
    /* A call is inside the library with the GIL released (the C group, like a stream,
     * serves one thread at a time). */
    int busy;
} apo_py_stream_group;

/* Stream j of the group as the group's call may feed it: open, on an open runtime, with no
 * other thread inside, and the C stream the group was made with. NULL with an exception. */
static apo_py_stream *member_get(apo_py_stream_group *self, size_t j) {
    apo_py_stream *m = (apo_py_stream *)PyTuple_GET_ITEM(self->streams, (Py_ssize_t)j);
    if (apo_py_stream_get(m) == NULL) {
        /* Say which member; the stream's own message says why. */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        PyErr_Format(type, "stream %zu (%U) of the group: %S", j, m->kernel, value);
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        return NULL;
    }
    /* The C stream of a Python Stream changes only by close(), which leaves it NULL. */
    assert(m->s == self->members[j]);
    return m;
}

/* _core.StreamGroup(streams, bind): streams a tuple of Stream objects, bind None or a tuple
 * with one entry a stream: None (the stream reads its inputs under their own names) or a
 * tuple of names, one for each of its kernel's inputs in the kernel's order. */
static int group_init(PyObject *op, PyObject *args, PyObject *kwargs) {
    apo_py_stream_group *self = (apo_py_stream_group *)op;
    static char *kwlist[] = {"streams", "bind", NULL};
    PyObject *streams, *bind = Py_None;
    if (self->g != NULL || self->streams != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "StreamGroup.__init__ called twice");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|O", kwlist, &PyTuple_Type, &streams, &bind))
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(streams);
    if (n < 1 || n > APO_STREAM_GROUP_MAX) {
        PyErr_Format(PyExc_ValueError, "a group holds 1 to %d streams, not %zd",
                     APO_STREAM_GROUP_MAX, n);
        return -1;
    }
    if (bind != Py_None && (!PyTuple_Check(bind) || PyTuple_GET_SIZE(bind) != n)) {
        PyErr_Format(PyExc_TypeError, "bind is None or a tuple of %zd entries, one a stream", n);
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++)
        if (!PyObject_TypeCheck(PyTuple_GET_ITEM(streams, j), &apo_py_stream_type)) {
            PyErr_Format(PyExc_TypeError, "stream %zd of the group is %R, not an apportion Stream",
                         j, PyTuple_GET_ITEM(streams, j));
            return -1;
        }
    self->streams = Py_NewRef(streams);
    self->n_streams = (size_t)n;
    self->members = PyMem_Calloc((size_t)n, sizeof *self->members);
    /* The names, pointing into bind's strings, which live until the create has copied them. */
    const char **names = PyMem_Calloc((size_t)n * APO_MAX_IO, sizeof *names);
    const char *const **binds = PyMem_Calloc((size_t)n, sizeof *binds);
    int rc = -1;
    if (self->members == NULL || names == NULL || binds == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t j = 0; j < self->n_streams; j++) {
        apo_py_stream *m = (apo_py_stream *)PyTuple_GET_ITEM(streams, (Py_ssize_t)j);
        if (apo_py_stream_get(m) == NULL)
            goto done;
        self->members[j] = m->s;
        PyObject *b = bind != Py_None ? PyTuple_GET_ITEM(bind, (Py_ssize_t)j) : Py_None;
        if (b == Py_None)
            continue;
        if (!PyTuple_Check(b) || (size_t)PyTuple_GET_SIZE(b) != m->n_inputs) {
            PyErr_Format(PyExc_TypeError,
                         "bind of stream %zu (%U): None or a tuple of %zu names, one an input", j,
                         m->kernel, m->n_inputs);
            goto done;
        }
        for (size_t i = 0; i < m->n_inputs; i++) {
            PyObject *name = PyTuple_GET_ITEM(b, (Py_ssize_t)i);
            if (!PyUnicode_Check(name)) {
                PyErr_Format(PyExc_TypeError, "bind of stream %zu (%U): %R is not a str", j,
                             m->kernel, name);
                goto done;
            }
            if ((names[j * APO_MAX_IO + i] = PyUnicode_AsUTF8(name)) == NULL)
                goto done;
        }
        binds[j] = names + j * APO_MAX_IO;
    }
    self->n_series = ((apo_py_stream *)PyTuple_GET_ITEM(streams, 0))->n_series;
    apo_status st = apo_stream_group_create(self->members, self->n_streams,
                                            bind != Py_None ? binds : NULL, &self->g);
    if (st != APO_OK) {
        apo_py_raise(st);
        goto done;
    }
    rc = 0;
done:
    PyMem_Free(names);
    PyMem_Free((void *)binds);
    return rc;
}

static void group_dealloc(PyObject *op) {
    apo_py_stream_group *self = (apo_py_stream_group *)op;
    /* Frees the group only (apo_stream_group_destroy() touches no stream), so it is safe
     * whether or not its streams are still open. */
    apo_stream_group_destroy(self->g);
    self->g = NULL;
    PyMem_Free(self->members);
    PyMem_Free(self->n_new);
    Py_CLEAR(self->streams);
    Py_TYPE(op)->tp_free(op);
}

/* _update(inputs, bars) and _peek: inputs a tuple of (name, array) pairs, each array the
 * name's new bars packed series after series, `bars` a series. Returns a list with one
 * entry a stream: the tuple of its outputs, shaped as Stream._update gives them. */
static PyObject *group_feed(PyObject *op, PyObject *args, int peek) {
    apo_py_stream_group *self = (apo_py_stream_group *)op;
    PyObject *inputs;
    Py_ssize_t bars;
    if (!PyArg_ParseTuple(args, "O!n", &PyTuple_Type, &inputs, &bars))
        return NULL;
    if (self->g == NULL) {
        PyErr_SetString(PyExc_ValueError, "this apportion StreamGroup is closed");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this apportion StreamGroup is in use by another thread; a group serves "
                        "one thread at a time");
        return NULL;
    }
    if (bars < 0) {
        PyErr_Format(PyExc_ValueError, "bars is %zd; 0 or more are needed", bars);
        return NULL;
    }
    size_t n_sets_max = 1;
    for (size_t j = 0; j < self->n_streams; j++) {
        apo_py_stream *m = member_get(self, j);
        if (m == NULL)
            return NULL;
        if (m->n_sets > n_sets_max)
            n_sets_max = m->n_sets;
    }
    if ((size_t)bars > (size_t)PY_SSIZE_T_MAX / sizeof(double) / self->n_series / n_sets_max) {
        PyErr_Format(PyExc_OverflowError, "%zd bars of %zu series overflow", bars, self->n_series);
        return NULL;
    }
    size_t count = (size_t)bars * self->n_series;
    size_t n_inputs = (size_t)PyTuple_GET_SIZE(inputs);
    apo_named_input *named = PyMem_Calloc(n_inputs > 0 ? n_inputs : 1, sizeof *named);
    double **out_ptrs = PyMem_Calloc(self->n_streams * MEMBER_OUTPUTS_MAX, sizeof *out_ptrs);
    double *const **outs = PyMem_Calloc(self->n_streams, sizeof *outs);
    PyObject *result = PyList_New((Py_ssize_t)self->n_streams);
    if (named == NULL || out_ptrs == NULL || outs == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (result == NULL)
        goto fail;
    for (size_t a = 0; a < n_inputs; a++) {
        PyObject *pair = PyTuple_GET_ITEM(inputs, (Py_ssize_t)a), *name, *arr;
        if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "UO", &name, &arr)) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "input %zu is not a (name, array) pair", a);
            }
            goto fail;
        }
        if ((named[a].name = PyUnicode_AsUTF8(name)) == NULL)
            goto fail;
        char what[96];
        snprintf(what, sizeof what, "input %.80s", named[a].name);
        if (apo_py_check_packed(arr, what, count) < 0)
            goto fail;
        named[a].bars = (const double *)PyArray_DATA((PyArrayObject *)arr);
    }
    for (size_t j = 0; j < self->n_streams; j++) {
        apo_py_stream *m = (apo_py_stream *)PyTuple_GET_ITEM(self->streams, (Py_ssize_t)j);
        PyObject *tuple = PyTuple_New((Py_ssize_t)m->n_outputs);
        if (tuple == NULL)
            goto fail;
        PyList_SET_ITEM(result, (Py_ssize_t)j, tuple);
        npy_intp dims[3] = {(npy_intp)m->n_sets, (npy_intp)self->n_series, (npy_intp)bars};
        const int sweep = m->sets != NULL;
        for (size_t k = 0; k < m->n_outputs; k++) {
            PyObject *arr = PyArray_EMPTY(sweep ? 3 : 2, sweep ? dims : dims + 1, NPY_DOUBLE, 0);
            if (arr == NULL)
                goto fail;
            out_ptrs[j * MEMBER_OUTPUTS_MAX + k] = (double *)PyArray_DATA((PyArrayObject *)arr);
            PyTuple_SET_ITEM(tuple, (Py_ssize_t)k, arr);
        }
        outs[j] = out_ptrs + j * MEMBER_OUTPUTS_MAX;
    }
    if (self->n_new == NULL) {
        if ((self->n_new = PyMem_Calloc(self->n_series, sizeof *self->n_new)) == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        self->n_new_fill = 0;
    }
    if (self->n_new_fill != (size_t)bars) {
        for (size_t r = 0; r < self->n_series; r++)
            self->n_new[r] = (size_t)bars;
        self->n_new_fill = (size_t)bars;
    }
    /* Every stream is marked in use, so that no other thread feeds, saves or closes one
     * while the group is inside it, and every runtime counts the call, so that none is
     * closed under it (the same runtime once a stream on it). */
    self->busy = 1;
    for (size_t j = 0; j < self->n_streams; j++) {
        apo_py_stream *m = (apo_py_stream *)PyTuple_GET_ITEM(self->streams, (Py_ssize_t)j);
        m->busy = 1;
        m->runtime->busy++;
    }
    apo_status st;
    apo_stream_group *g = self->g;
    Py_BEGIN_ALLOW_THREADS
        st = peek ? apo_stream_group_peek(g, self->n_new, named, n_inputs, outs)
                  : apo_stream_group_update(g, self->n_new, named, n_inputs, outs);
    Py_END_ALLOW_THREADS
    for (size_t j = 0; j < self->n_streams; j++) {
        apo_py_stream *m = (apo_py_stream *)PyTuple_GET_ITEM(self->streams, (Py_ssize_t)j);
        m->busy = 0;
        m->runtime->busy--;
    }
    self->busy = 0;
    if (st != APO_OK) {
        apo_py_raise(st);
        /* A Python user kernel's exception becomes the cause; each runtime clears its own. */
        for (size_t j = 0; j < self->n_streams; j++)
            apo_py_chain_kernel_error(
                ((apo_py_stream *)PyTuple_GET_ITEM(self->streams, (Py_ssize_t)j))->runtime);
        goto fail;
    }
    PyMem_Free(named), PyMem_Free(out_ptrs), PyMem_Free((void *)outs);
    return result;
fail:
    PyMem_Free(named), PyMem_Free(out_ptrs), PyMem_Free((void *)outs);
    Py_XDECREF(result);
    return NULL;
}

static PyObject *group_update(PyObject *op, PyObject *args) { return group_feed(op, args, 0); }

static PyObject *group_peek(PyObject *op, PyObject *args) { return group_feed(op, args, 1); }

static PyObject *group_close(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_py_stream_group *self = (apo_py_stream_group *)op;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "StreamGroup.close(): the group is in use by another thread");
        return NULL;
    }
    apo_stream_group_destroy(self->g);
    self->g = NULL;
    Py_RETURN_NONE;
}

static PyObject *group_get_streams(PyObject *op, void *closure) {
    (void)closure;
    PyObject *s = ((apo_py_stream_group *)op)->streams;
    return Py_NewRef(s != NULL ? s : Py_None);
}

static PyObject *group_get_n_series(PyObject *op, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(((apo_py_stream_group *)op)->n_series);
}

static PyObject *group_get_closed(PyObject *op, void *closure) {
    (void)closure;
    return PyBool_FromLong(((apo_py_stream_group *)op)->g == NULL);
}

static PyMethodDef group_methods[] = {
    {"_update", group_update, METH_VARARGS,
     "_update(inputs, bars): apo_stream_group_update() of `bars` bars a series, inputs a tuple "
     "of (name, packed array) pairs; returns one tuple of outputs a stream "
     "(apportion.StreamGroup.update wraps it)."},
    {"_peek", group_peek, METH_VARARGS,
     "_peek(inputs, bars): as _update, through apo_stream_group_peek(): every stream left as it "
     "was (apportion.StreamGroup.peek wraps it)."},
    {"close", group_close, METH_NOARGS,
     "Frees the group (apo_stream_group_destroy()), not its streams; later calls raise "
     "ValueError."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef group_getset[] = {
    {"_streams", group_get_streams, NULL, "The group's Stream objects, in its order.", NULL},
    {"n_series", group_get_n_series, NULL, "The number of series every stream follows.", NULL},
    {"closed", group_get_closed, NULL, "True once close() ran.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject apo_py_stream_group_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apportion._core.StreamGroup",
    .tp_basicsize = sizeof(apo_py_stream_group),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A libapportion stream group (apo_stream_group_create()); apportion.StreamGroup "
              "wraps it.",
    .tp_new = PyType_GenericNew,
    .tp_init = group_init,
    .tp_dealloc = group_dealloc,
    .tp_methods = group_methods,
    .tp_getset = group_getset,
};
