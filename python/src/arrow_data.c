/*
 * apportion._core.ArrowData: what an Arrow PyCapsule producer hands over (polars, pyarrow,
 * any object with __arrow_c_array__ or __arrow_c_stream__), taken out of its capsules and
 * owned here until the last array read from it is gone (docs/python.md, "Arrow and
 * polars"). Its columns come out as numpy float64 arrays through include/apportion_arrow.h:
 * views of the producer's own buffers where the library reads them in place (the view's
 * base is this object, so the buffers outlive every view), copies otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include <apportion_arrow.h>

#include "binding.h"

typedef struct {
    PyObject_HEAD struct ArrowSchema schema;
    struct ArrowArray *chunks; /* n_chunks arrays, each moved out of its capsule */
    size_t n_chunks;
    size_t length;
    int table; /* the top level is a struct (a frame, a table, a record batch) */
} apo_py_arrow;

static void arrow_dealloc(apo_py_arrow *self) {
    for (size_t c = 0; c < self->n_chunks; c++)
        apo_arrow_array_release(&self->chunks[c]); /* once: it marks each released */
    free(self->chunks);
    apo_arrow_schema_release(&self->schema);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Appends a chunk moved out of `array` (which is left released, so that its owner's
 * destructor does not release it again). */
static int take_chunk(apo_py_arrow *self, struct ArrowArray *array) {
    struct ArrowArray *grown = realloc(self->chunks, (self->n_chunks + 1) * sizeof *grown);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->chunks = grown;
    self->chunks[self->n_chunks++] = *array;
    array->release = NULL;
    return 0;
}

static void *capsule_pointer(PyObject *capsule, const char *name) {
    if (!PyCapsule_IsValid(capsule, name)) {
        PyErr_Format(PyExc_TypeError, "the Arrow producer gave no \"%s\" capsule", name);
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, name);
}

/* obj.__arrow_c_array__(): a (schema, array) pair of capsules. */
static int take_array(apo_py_arrow *self, PyObject *obj) {
    PyObject *pair = PyObject_CallMethod(obj, "__arrow_c_array__", NULL);
    if (pair == NULL)
        return -1;
    int rc = -1;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "__arrow_c_array__() gave no (schema, array) pair");
        goto done;
    }
    struct ArrowSchema *schema = capsule_pointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema");
    if (schema == NULL)
        goto done;
    struct ArrowArray *array = capsule_pointer(PyTuple_GET_ITEM(pair, 1), "arrow_array");
    if (array == NULL)
        goto done;
    self->schema = *schema;
    schema->release = NULL;
    rc = take_chunk(self, array);
done:
    Py_DECREF(pair);
    return rc;
}

static int stream_failed(struct ArrowArrayStream *stream, int code, const char *what) {
    const char *why = stream->get_last_error != NULL ? stream->get_last_error(stream) : NULL;
    PyErr_Format(PyExc_ValueError, "the Arrow stream's %s failed (error %d): %s", what, code,
                 why != NULL ? why : "no message");
    return -1;
}

/* obj.__arrow_c_stream__(): the schema, then every batch until the end of the stream. */
static int take_stream(apo_py_arrow *self, PyObject *obj) {
    PyObject *capsule = PyObject_CallMethod(obj, "__arrow_c_stream__", NULL);
    if (capsule == NULL)
        return -1;
    int rc = -1;
    struct ArrowArrayStream *stream = capsule_pointer(capsule, "arrow_array_stream");
    if (stream == NULL)
        goto done;
    if (stream->release == NULL || stream->get_schema == NULL || stream->get_next == NULL) {
        PyErr_SetString(PyExc_ValueError, "the Arrow stream is released or has no callbacks");
        goto done;
    }
    int code = stream->get_schema(stream, &self->schema);
    if (code != 0) {
        self->schema.release = NULL;
        rc = stream_failed(stream, code, "get_schema");
        goto done;
    }
    for (;;) {
        struct ArrowArray batch;
        memset(&batch, 0, sizeof batch);
        code = stream->get_next(stream, &batch);
        if (code != 0) {
            rc = stream_failed(stream, code, "get_next");
            goto done;
        }
        if (batch.release == NULL)
            break; /* the end of the stream */
        if (take_chunk(self, &batch) < 0) {
            apo_arrow_array_release(&batch);
            goto done;
        }
    }
    rc = 0;
done:
    Py_DECREF(capsule); /* its destructor releases the stream */
    return rc;
}

/* _core.arrow_import(obj): an ArrowData of what obj exports, every chunk checked. */
PyObject *apo_py_arrow_import(PyObject *module, PyObject *obj) {
    (void)module;
    apo_py_arrow *self = PyObject_New(apo_py_arrow, &apo_py_arrow_type);
    if (self == NULL)
        return NULL;
    memset(&self->schema, 0, sizeof self->schema);
    self->chunks = NULL;
    self->n_chunks = 0;
    self->length = 0;
    int by_array = PyObject_HasAttrString(obj, "__arrow_c_array__");
    if ((by_array ? take_array(self, obj) : take_stream(self, obj)) < 0)
        goto fail;
    if (apo_arrow_schema_check(&self->schema) != APO_OK) {
        apo_py_raise(APO_ERR_INVALID_ARGUMENT);
        goto fail;
    }
    for (size_t c = 0; c < self->n_chunks; c++) {
        apo_status st = apo_arrow_array_check(&self->schema, &self->chunks[c]);
        if (st != APO_OK) {
            apo_py_raise(st);
            goto fail;
        }
        self->length += (size_t)self->chunks[c].length;
    }
    self->table = strcmp(self->schema.format, "+s") == 0;
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

/* The chunks of column `index` (of a table; the data itself otherwise) as views, in a
 * malloc'd array the caller frees; *out_schema is its schema. */
static struct ArrowArray *column_chunks(apo_py_arrow *self, Py_ssize_t index,
                                        const struct ArrowSchema **out_schema) {
    if (self->table && (index < 0 || index >= self->schema.n_children)) {
        PyErr_Format(PyExc_IndexError, "column %zd of %lld", index,
                     (long long)self->schema.n_children);
        return NULL;
    }
    struct ArrowArray *views = malloc((self->n_chunks > 0 ? self->n_chunks : 1) * sizeof *views);
    if (views == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t c = 0; c < self->n_chunks; c++) {
        if (!self->table) {
            views[c] = self->chunks[c]; /* borrowed: never released through the copy */
            continue;
        }
        apo_status st =
            apo_arrow_struct_field(&self->schema, &self->chunks[c], (size_t)index, &views[c]);
        if (st != APO_OK) {
            free(views);
            apo_py_raise(st);
            return NULL;
        }
    }
    *out_schema = self->table ? self->schema.children[index] : &self->schema;
    return views;
}

static const struct ArrowArray **pointers_to(struct ArrowArray *views, size_t n) {
    const struct ArrowArray **p = malloc((n > 0 ? n : 1) * sizeof *p);
    for (size_t c = 0; p != NULL && c < n; c++)
        p[c] = &views[c];
    if (p == NULL)
        PyErr_NoMemory();
    return p;
}

/* column(i) -> (float64 array, in_place): in place, a view whose base is this object. */
static PyObject *arrow_column(apo_py_arrow *self, PyObject *arg) {
    Py_ssize_t index = PyLong_AsSsize_t(arg);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    const struct ArrowSchema *schema;
    struct ArrowArray *views = column_chunks(self, index, &schema);
    if (views == NULL)
        return NULL;
    const struct ArrowArray **chunks = pointers_to(views, self->n_chunks);
    PyObject *result = NULL;
    apo_arrow_values v = APO_ARROW_VALUES_INIT;
    if (chunks == NULL)
        goto done;
    apo_status st = apo_arrow_read_f64(schema, chunks, self->n_chunks, &v);
    if (st != APO_OK) {
        apo_py_raise(st);
        goto done;
    }
    npy_intp dims[1] = {(npy_intp)v.length};
    PyObject *arr;
    if (v.in_place) {
        arr = PyArray_New(&PyArray_Type, 1, dims, NPY_FLOAT64, NULL, (void *)v.values, 0,
                          NPY_ARRAY_CARRAY_RO, NULL);
        if (arr != NULL) {
            Py_INCREF(self);
            if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)self) < 0) {
                Py_DECREF(arr);
                arr = NULL;
            }
        }
    } else {
        arr = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
        if (arr != NULL && v.length > 0)
            memcpy(PyArray_DATA((PyArrayObject *)arr), v.values, v.length * sizeof(double));
    }
    if (arr != NULL)
        result = Py_BuildValue("(NO)", arr, v.in_place ? Py_True : Py_False);
    apo_arrow_values_free(&v);
done:
    free(chunks);
    free(views);
    return result;
}

/* runs(i) -> int64 array of the row where each run of column i's key starts, and its
 * length last; with time (another column index), that column increases within each run. */
static PyObject *arrow_runs(apo_py_arrow *self, PyObject *args) {
    Py_ssize_t key_index, time_index = -1;
    if (!PyArg_ParseTuple(args, "n|n", &key_index, &time_index))
        return NULL;
    const struct ArrowSchema *key_schema, *time_schema = NULL;
    struct ArrowArray *keys = column_chunks(self, key_index, &key_schema), *times = NULL;
    const struct ArrowArray **kp = NULL, **tp = NULL;
    size_t *starts = NULL, n_runs = 0;
    PyObject *result = NULL;
    if (keys == NULL || (kp = pointers_to(keys, self->n_chunks)) == NULL)
        goto done;
    if (time_index >= 0 && ((times = column_chunks(self, time_index, &time_schema)) == NULL ||
                            (tp = pointers_to(times, self->n_chunks)) == NULL))
        goto done;
    apo_status st = apo_arrow_key_runs(key_schema, kp, self->n_chunks, &starts, &n_runs);
    if (st == APO_OK && tp != NULL)
        st = apo_arrow_check_increasing(time_schema, tp, self->n_chunks, starts, n_runs);
    if (st != APO_OK) {
        apo_py_raise(st);
        goto done;
    }
    npy_intp dims[1] = {(npy_intp)(n_runs + 1)};
    result = PyArray_SimpleNew(1, dims, NPY_INT64);
    for (size_t r = 0; result != NULL && r <= n_runs; r++)
        ((int64_t *)PyArray_DATA((PyArrayObject *)result))[r] = (int64_t)starts[r];
done:
    free(starts);
    free(kp);
    free(tp);
    free(keys);
    free(times);
    return result;
}

static PyObject *arrow_names(apo_py_arrow *self, void *closure) {
    (void)closure;
    if (!self->table) {
        const char *name = self->schema.name != NULL ? self->schema.name : "";
        return Py_BuildValue("(s)", name);
    }
    PyObject *names = PyTuple_New((Py_ssize_t)self->schema.n_children);
    for (int64_t i = 0; names != NULL && i < self->schema.n_children; i++) {
        const char *name = self->schema.children[i]->name;
        PyObject *s = PyUnicode_DecodeUTF8(name != NULL ? name : "",
                                           name != NULL ? (Py_ssize_t)strlen(name) : 0, "replace");
        if (s == NULL) {
            Py_DECREF(names);
            return NULL;
        }
        PyTuple_SET_ITEM(names, (Py_ssize_t)i, s);
    }
    return names;
}

static PyObject *arrow_formats(apo_py_arrow *self, void *closure) {
    (void)closure;
    if (!self->table)
        return Py_BuildValue("(s)", self->schema.format);
    PyObject *formats = PyTuple_New((Py_ssize_t)self->schema.n_children);
    for (int64_t i = 0; formats != NULL && i < self->schema.n_children; i++)
        PyTuple_SET_ITEM(formats, (Py_ssize_t)i,
                         PyUnicode_FromString(self->schema.children[i]->format));
    return formats;
}

static PyObject *arrow_table(apo_py_arrow *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->table);
}

static PyObject *arrow_length(apo_py_arrow *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->length);
}

static PyObject *arrow_chunks(apo_py_arrow *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->n_chunks);
}

static PyMethodDef arrow_methods[] = {
    {"column", (PyCFunction)arrow_column, METH_O,
     "column(i) -> (float64 array, in_place): column i (the data itself when it is no "
     "table), a view of the producer's buffer where read in place."},
    {"runs", (PyCFunction)arrow_runs, METH_VARARGS,
     "runs(key[, time]) -> int64 array: the rows where each run of the key column starts, "
     "then the length; the time column, when given, increases within each run."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef arrow_getset[] = {
    {"names", (getter)arrow_names, NULL, "the columns' names (the data's own name)", NULL},
    {"formats", (getter)arrow_formats, NULL, "the columns' Arrow format strings", NULL},
    {"table", (getter)arrow_table, NULL, "whether the data is a table (a struct)", NULL},
    {"length", (getter)arrow_length, NULL, "rows", NULL},
    {"n_chunks", (getter)arrow_chunks, NULL, "chunks (record batches)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject apo_py_arrow_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apportion._core.ArrowData",
    .tp_basicsize = sizeof(apo_py_arrow),
    .tp_dealloc = (destructor)arrow_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Arrow data taken from a PyCapsule producer (apportion._core.arrow_import()).",
    .tp_methods = arrow_methods,
    .tp_getset = arrow_getset,
};
