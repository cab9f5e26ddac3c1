/* Running a workload from Python: arrays in, arrays out, the GIL released around
 * apo_distribute_workload(). Checks here are those that keep the C call memory-safe
 * (dtype, contiguity, sizes); what the library validates itself (kernel, parameters,
 * shapes, ratios) is left to it, so that its message reaches the caller unchanged. */
#include "binding.h"

#include <string.h>
#include <time.h>

static int add_ref(apo_py_args *a, PyObject *o) {
    int rc = PyList_Append(a->refs, o);
    Py_DECREF(o);
    return rc;
}

/* A parameter name as UTF-8 that lives as long as `a->refs`. */
static const char *name_of(apo_py_args *a, PyObject *key) {
    if (!PyUnicode_Check(key)) {
        PyErr_Format(PyExc_TypeError, "parameter names must be str, not %R", key);
        return NULL;
    }
    Py_INCREF(key);
    if (add_ref(a, key) < 0)
        return NULL;
    return PyUnicode_AsUTF8(key);
}

apo_workload apo_py_workload_of(const char *kernel, size_t rows, size_t cols,
                                const apo_py_args *a) {
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    w.rows = rows;
    w.cols = cols;
    w.params = a->params;
    w.n_params = a->n_params;
    w.sweep = a->n_grid > 0 ? &a->sweep : NULL;
    return w;
}

int apo_py_args_fill(apo_py_args *a, PyObject *params, PyObject *grid) {
    memset(a, 0, sizeof *a);
    a->refs = PyList_New(0);
    if (a->refs == NULL)
        return -1;
    if (params != NULL && params != Py_None) {
        if (!PyDict_Check(params)) {
            PyErr_SetString(PyExc_TypeError, "params must be a dict {name: value}");
            return -1;
        }
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(params, &pos, &key, &value)) {
            if (a->n_params == APO_PY_MAX_PARAMS) {
                PyErr_Format(PyExc_ValueError, "more than %d parameters", APO_PY_MAX_PARAMS);
                return -1;
            }
            const char *name = name_of(a, key);
            if (name == NULL)
                return -1;
            double v = PyFloat_AsDouble(value);
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Format(PyExc_TypeError, "parameter %s: a number is needed, not %R", name,
                             value);
                return -1;
            }
            a->params[a->n_params].name = name;
            a->params[a->n_params++].value = v;
        }
    }
    if (grid == NULL || grid == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(grid, "grid must be a sequence of (name, values) pairs");
    if (seq == NULL || add_ref(a, seq) < 0)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > APO_PY_MAX_PARAMS) {
        PyErr_Format(PyExc_ValueError, "more than %d swept parameters", APO_PY_MAX_PARAMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *key, *values;
        if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "OO", &key, &values)) {
            PyErr_SetString(PyExc_TypeError, "grid must be a sequence of (name, values) pairs");
            return -1;
        }
        const char *name = name_of(a, key);
        if (name == NULL)
            return -1;
        PyObject *arr = PyArray_FROMANY(values, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
        if (arr == NULL || add_ref(a, arr) < 0)
            return -1;
        a->grid[i].name = name;
        a->grid[i].values = (const double *)PyArray_DATA((PyArrayObject *)arr);
        a->grid[i].n_values = (size_t)PyArray_SIZE((PyArrayObject *)arr);
    }
    a->n_grid = (size_t)n;
    a->sweep = (apo_sweep)APO_SWEEP_INIT;
    a->sweep.grid = a->grid;
    a->sweep.n_grid = a->n_grid;
    return 0;
}

void apo_py_args_release(apo_py_args *a) { Py_CLEAR(a->refs); }

/* An array the library may read (writable: write into) as rows*cols doubles in place. */
static int check_array(PyObject *o, const char *what, Py_ssize_t i, int writable) {
    if (!PyArray_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s %zd is not a numpy array", what, i);
        return -1;
    }
    PyArrayObject *arr = (PyArrayObject *)o;
    if (PyArray_TYPE(arr) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(arr)) {
        PyErr_Format(PyExc_TypeError, "%s %zd has dtype %R; float64 is needed", what, i,
                     (PyObject *)PyArray_DESCR(arr));
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS(arr) || !PyArray_ISALIGNED(arr)) {
        PyErr_Format(PyExc_ValueError, "%s %zd is not C-contiguous and aligned", what, i);
        return -1;
    }
    if (writable && !PyArray_ISWRITEABLE(arr)) {
        PyErr_Format(PyExc_ValueError, "%s %zd is read-only", what, i);
        return -1;
    }
    return 0;
}

/* Where a call's arrays live (docs/python.md, "Device arrays"): all on the host (numpy) or
 * all on one GPU (arrays handed in by other libraries, or DeviceArrays), with the device
 * views to release once the call is done. */
typedef struct {
    int on_device; /* -1: not known yet (no array seen); 0: host; 1: one GPU */
    size_t device; /* the GPU, when on_device */
    void *stream;  /* the caller's stream from an array interface (v3), NULL: none */
    apo_py_device_view views[2 * APO_MAX_IO];
    size_t n_views;
} call_place;

#define CALL_PLACE_INIT                                                                            \
    { -1, 0, NULL, {{0}}, 0 }

/* A DLPack deleter may run Python code (a producer's reference dropped): the exception of a
 * failed call is kept aside meanwhile. */
static void call_place_release(call_place *p) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    for (size_t i = 0; i < p->n_views; i++)
        apo_py_device_view_release(&p->views[i]);
    p->n_views = 0;
    PyErr_Restore(type, value, traceback);
}

/* Which side array `o` is on, checked against the call's others: 0 host (left for
 * check_array), 1 a device array read into *view, -1 with an exception. */
static int take_place(apo_runtime *rt, call_place *p, PyObject *o, const char *what, Py_ssize_t i,
                      int writable, const apo_py_device_view **view) {
    const int device = apo_py_is_device_object(o);
    if (p->on_device >= 0 && p->on_device != device) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd is a %s array and the call's others are %s arrays: one call takes "
                     "its arrays all on the host or all on one GPU (DeviceArray.copy_to_host(), "
                     "Runtime.to_device() move them)",
                     what, i, device ? "device" : "host", device ? "host" : "device");
        return -1;
    }
    p->on_device = device;
    if (!device)
        return 0;
    apo_py_device_view *v = &p->views[p->n_views];
    if (apo_py_device_view_take(rt, o, what, i, v) < 0)
        return -1;
    p->n_views++;
    if (writable && v->readonly) {
        PyErr_Format(PyExc_ValueError, "%s %zd is a read-only device array", what, i);
        return -1;
    }
    if (p->n_views > 1 && v->device != p->device) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd is on device %zu, the call's other arrays on device %zu: one call "
                     "takes its device arrays on one GPU",
                     what, i, v->device, p->device);
        return -1;
    }
    p->device = v->device;
    if (v->stream != NULL && p->stream != NULL && v->stream != p->stream) {
        PyErr_Format(PyExc_ValueError,
                     "%s %zd names another CUDA stream than the call's other arrays: the call "
                     "comes after one stream (synchronise them first)",
                     what, i);
        return -1;
    }
    if (v->stream != NULL)
        p->stream = v->stream;
    *view = v;
    return 1;
}

/* Fills w->kernel, rows, cols and the input pointers from `inputs` (a sequence of 1-D or
 * 2-D float64 arrays of one shape; 1-D is one row). */
static int take_inputs(apo_runtime *rt, call_place *p, PyObject *inputs, apo_workload *w,
                       const double **ptrs) {
    if (!PyTuple_Check(inputs) && !PyList_Check(inputs)) {
        PyErr_SetString(PyExc_TypeError, "inputs must be a tuple or list of arrays");
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(inputs);
    if (n < 1 || n > APO_MAX_IO) {
        PyErr_Format(PyExc_ValueError, "%zd inputs; a kernel takes 1 to %d", n, APO_MAX_IO);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(inputs, i);
        const apo_py_device_view *v = NULL;
        const int side = p != NULL ? take_place(rt, p, o, "input", i, 0, &v) : 0;
        if (side < 0)
            return -1;
        size_t rows, cols;
        if (side == 1) {
            rows = v->rows;
            cols = v->cols;
            ptrs[i] = v->data;
        } else {
            if (check_array(o, "input", i, 0) < 0)
                return -1;
            PyArrayObject *arr = (PyArrayObject *)o;
            int nd = PyArray_NDIM(arr);
            if (nd != 1 && nd != 2) {
                PyErr_Format(PyExc_ValueError, "input %zd has %d dimensions; 1 or 2 are accepted",
                             i, nd);
                return -1;
            }
            rows = nd == 2 ? (size_t)PyArray_DIM(arr, 0) : 1;
            cols = (size_t)PyArray_DIM(arr, nd - 1);
            ptrs[i] = (const double *)PyArray_DATA(arr);
        }
        if (i == 0) {
            w->rows = rows;
            w->cols = cols;
        } else if (rows != w->rows || cols != w->cols) {
            PyErr_Format(PyExc_ValueError, "input %zd is %zu x %zu, input 0 is %zu x %zu", i, rows,
                         cols, w->rows, w->cols);
            return -1;
        }
    }
    w->inputs = ptrs;
    w->n_inputs = (size_t)n;
    return 0;
}

/* out= array k, which must hold `count` values: a writable numpy array, or a writable
 * device array (then *view) on the GPU of the call's other arrays. 0, or -1 with an
 * exception. */
static int take_given_output(apo_runtime *rt, call_place *p, PyObject *arr, size_t k, size_t count,
                             const char *name, const apo_py_device_view **view) {
    const int side = p != NULL ? take_place(rt, p, arr, "out", (Py_ssize_t)k, 1, view) : 0;
    if (side < 0 || (side == 0 && check_array(arr, "out", (Py_ssize_t)k, 1) < 0))
        return -1;
    size_t held =
        side == 1 ? (*view)->rows * (*view)->cols : (size_t)PyArray_SIZE((PyArrayObject *)arr);
    if (held != count) {
        PyErr_Format(PyExc_ValueError, "out %zu (%s) holds %zu values; %zu are needed", k, name,
                     held, count);
        return -1;
    }
    return 0;
}

/* Allocates the outputs (outputs None) or checks the caller's (out=), as (rows, cols)
 * arrays, or as (cols,) when `flat` and they have one row (a 1-D input: no reshaping left
 * for Python to do); returns a new tuple. */
static PyObject *take_outputs(apo_py_runtime *self, call_place *p, apo_workload *w,
                              PyObject *outputs, double **ptrs, int flat) {
    apo_runtime *rt = self->rt;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    apo_status st = apo_kernel_get(rt, w->kernel, &info);
    if (st != APO_OK)
        return apo_py_raise(st);
    PyObject *given = NULL;
    if (outputs != NULL && outputs != Py_None) {
        if (!PyTuple_Check(outputs) && !PyList_Check(outputs)) {
            PyErr_SetString(PyExc_TypeError, "out must be a tuple or list of arrays");
            return NULL;
        }
        given = outputs;
        if ((size_t)PySequence_Fast_GET_SIZE(given) != info.n_outputs) {
            PyErr_Format(PyExc_ValueError, "out has %zd arrays; kernel %s has %zu outputs",
                         PySequence_Fast_GET_SIZE(given), info.name, info.n_outputs);
            return NULL;
        }
    }
    PyObject *result = PyTuple_New((Py_ssize_t)info.n_outputs);
    if (result == NULL)
        return NULL;
    for (size_t k = 0; k < info.n_outputs; k++) {
        size_t rows = 0, cols = 0;
        st = apo_output_shape(rt, w, k, &rows, &cols);
        if (st != APO_OK) {
            Py_DECREF(result);
            return apo_py_raise(st);
        }
        PyObject *arr;
        int one_row = flat && rows == 1;
        if (given != NULL) {
            arr = PySequence_Fast_GET_ITEM(given, (Py_ssize_t)k);
            const apo_py_device_view *v = NULL;
            if (take_given_output(rt, p, arr, k, rows * cols, info.output_names[k], &v) < 0) {
                Py_DECREF(result);
                return NULL;
            }
            Py_INCREF(arr);
            ptrs[k] = v != NULL ? v->data : (double *)PyArray_DATA((PyArrayObject *)arr);
        } else if (p != NULL && p->on_device == 1) {
            arr = apo_py_device_array_new(self, p->device, one_row ? 1 : 2, rows, cols);
            if (arr == NULL) {
                Py_DECREF(result);
                return NULL;
            }
            ptrs[k] = ((apo_py_device_array *)arr)->data;
        } else {
            npy_intp dims[2] = {(npy_intp)rows, (npy_intp)cols};
            arr = apo_py_output_array(self, one_row ? 1 : 2, one_row ? dims + 1 : dims);
            if (arr == NULL) {
                Py_DECREF(result);
                return NULL;
            }
            ptrs[k] = (double *)PyArray_DATA((PyArrayObject *)arr);
        }
        PyTuple_SET_ITEM(result, (Py_ssize_t)k, arr);
    }
    w->outputs = ptrs;
    w->n_outputs = info.n_outputs;
    return result;
}

/* An optional 1-D argument (None: absent) as a C array of numpy type `type`, held in *held
 * for the call; *data NULL and *n 0 when absent. */
static int take_vector(PyObject *o, int type, PyObject **held, const void **data, size_t *n) {
    *held = NULL;
    *data = NULL;
    *n = 0;
    if (o == NULL || o == Py_None)
        return 0;
    PyObject *arr = PyArray_FROMANY(o, type, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (arr == NULL)
        return -1;
    *held = arr;
    *data = PyArray_DATA((PyArrayObject *)arr);
    *n = (size_t)PyArray_SIZE((PyArrayObject *)arr);
    return 0;
}

int apo_py_take_ratios(PyObject *ratios, PyObject **held, apo_workload *w) {
    const void *data;
    if (take_vector(ratios, NPY_DOUBLE, held, &data, &w->n_ratios) < 0)
        return -1;
    w->ratios = data;
    return 0;
}

/* Ragged rows (docs/api.md, "Ragged rows"): one length a row, as size_t; the library reads
 * w->rows of them, so the binding checks the count. */
_Static_assert(sizeof(npy_uintp) == sizeof(size_t), "numpy's uintp is not size_t");
static int take_row_lengths(PyObject *lengths, PyObject **held, apo_workload *w) {
    const void *data;
    size_t n;
    if (take_vector(lengths, NPY_UINTP, held, &data, &n) < 0)
        return -1;
    if (data != NULL && n != w->rows) {
        PyErr_Format(PyExc_ValueError, "row_lengths has %zu lengths for %zu rows", n, w->rows);
        return -1;
    }
    w->row_lengths = data;
    return 0;
}

/* A scored call's ranges (docs/scores.md, "Ranges"): an array of n x 2 bar numbers, each row
 * begin, end, held as apo_range (two size_t) for the call; the library checks them. */
_Static_assert(sizeof(apo_range) == 2 * sizeof(size_t), "apo_range is not two size_t");
static int take_ranges(PyObject *ranges, PyObject **held, apo_workload *w) {
    const void *data;
    size_t n;
    if (take_vector(ranges, NPY_UINTP, held, &data, &n) < 0)
        return -1;
    if (data != NULL && n % 2 != 0) {
        PyErr_Format(PyExc_ValueError, "ranges holds %zu numbers: a begin and an end each", n);
        return -1;
    }
    w->ranges = data;
    w->n_ranges = n / 2;
    return 0;
}

/* The least work a piece of a sweep computes (docs/python.md, "Interrupting a call"): enough
 * that a piece's own cost (a library call) does not show, little enough that a piece takes
 * a fraction of a second, which is how long Ctrl-C waits. */
#define PIECE_ELEMENTS ((size_t)1 << 22)

/* The most sets of a scored sweep a piece keeps together so that they share a pass: the
 * most the library runs as one (devices/worker_pool.c). */
#define SHARED_BLOCK_MAX 64

/* The fewest sets a piece of a scored sweep takes (whole blocks, as below): two rounds of the
 * widest path's lanes (avx512's 8), so that the sets a pass leaves over from its full rounds
 * share rounds with other passes' (bollinger's periods, docs/scores.md "Sets of several
 * periods"): a piece of one period's 5 widths folds two rounds for them, one of 20 sets of
 * four periods five rounds. The CLI's scored calls follow the same rule (cli/sweep_sets.c,
 * cli_score_call_sets). */
#define SCORED_PIECE_MIN_SETS 16

/* The sweep's sets a piece runs, and in [*first, *end) the sets the call runs
 * (apo_sweep.first_set and n_sets_run); 0 when the call runs whole (no sweep, a sweep of
 * one piece, or sizes or a range of sets the library is left to refuse). */
static size_t piece_sets(const apo_workload *w, size_t *first, size_t *end) {
    if (w->sweep == NULL || w->sweep->n_grid == 0)
        return 0;
    size_t sets = 1;
    for (size_t i = 0; i < w->sweep->n_grid; i++) {
        if (w->sweep->grid[i].n_values == 0 || sets > APO_MAX_SWEEP_SETS)
            return 0;
        sets *= w->sweep->grid[i].n_values;
    }
    if (sets > APO_MAX_SWEEP_SETS || w->cols == 0)
        return 0;
    *first = w->sweep->first_set;
    *end = w->sweep->n_sets_run == 0 ? sets : *first + w->sweep->n_sets_run;
    if (*first >= sets || *end > sets || *end <= *first)
        return 0;
    /* A set that is a piece's worth already is a piece alone: a grid of large sets then
     * stops within one set, and each call has a deadline of its own, learnt from the ones
     * before (docs/env.md, "Deadlines and quarantine"). */
    size_t piece = w->rows > PIECE_ELEMENTS / w->cols ? 1 : PIECE_ELEMENTS / (w->rows * w->cols);
    /* A scored sweep's sets (a rule in apo_workload.score, or a kernel named
     * "<kernel>:<rule>") that differ only in the grid's last parameters (band widths, cost)
     * share one pass of the indicator when they run in one call (docs/kernels.md,
     * "Scores"): a piece takes whole blocks of them, up to SHARED_BLOCK_MAX sets, rather
     * than computing the pass once per piece. */
    if (w->score != NULL || (w->kernel != NULL && strchr(w->kernel, ':') != NULL)) {
        size_t block = 1;
        for (size_t i = w->sweep->n_grid; i-- > 1;)
            if (block * w->sweep->grid[i].n_values <= SHARED_BLOCK_MAX)
                block *= w->sweep->grid[i].n_values;
            else
                break;
        const size_t least = (SCORED_PIECE_MIN_SETS + block - 1) / block * block;
        piece = piece < least ? least : piece / block * block;
    }
    return piece < *end - *first ? piece : 0;
}

/* A call on device arrays: apo_distribute_workload_cuda() with the inputs and outputs on
 * the GPU that holds them, ordered after the caller's stream (array interface v3) or, without
 * one, after the legacy default stream, to which a DLPack producer ordered its work (it was
 * handed stream=1). Run whole: the call returns once the GPUs are done. */
static apo_cuda_placement placement_of(const call_place *p) {
    apo_cuda_placement where = APO_CUDA_PLACEMENT_INIT;
    where.inputs_device = (int)p->device;
    where.outputs_device = (int)p->device;
    where.stream = p->stream;
    return where;
}

static apo_status run_on_device(apo_runtime *rt, const apo_workload *w, const call_place *p,
                                apo_report *report) {
    const apo_cuda_placement where = placement_of(p);
    apo_status st;
    Py_BEGIN_ALLOW_THREADS
        st = apo_distribute_workload_cuda(rt, w, &where, report);
    Py_END_ALLOW_THREADS
    return st;
}

/* Runs the call with the GIL released. A sweep of more than a piece's worth runs as pieces
 * of consecutive sets (apo_sweep.first_set, n_sets_run: each set is bitwise what it is in
 * one call, docs/api.md "Sweeps"), written where the whole call would write them, and
 * between pieces the GIL is taken back to run Python's signal handlers: Ctrl-C (a
 * KeyboardInterrupt, or whatever the SIGINT handler raises) stops the call after the
 * current piece, and *interrupted says so with the exception set. Only a call without a
 * report wanted is split, as a report describes one library call; the report's count of
 * non-finite outputs is summed over the pieces. */
static apo_status run_call(apo_runtime *rt, apo_workload *w, PyObject *outs, apo_report *report,
                           int may_split, int *interrupted) {
    apo_status st = APO_OK;
    size_t from = 0, end = 0;
    const size_t piece = may_split ? piece_sets(w, &from, &end) : 0;
    *interrupted = 0;
    if (piece == 0) {
        Py_BEGIN_ALLOW_THREADS
            st = apo_distribute_workload(rt, w, report);
        Py_END_ALLOW_THREADS
        return st;
    }
    apo_sweep sweep = *w->sweep;
    double *base[APO_MAX_IO], *ptrs[APO_MAX_IO];
    size_t set_size[APO_MAX_IO];
    for (size_t k = 0; k < w->n_outputs; k++) {
        base[k] = w->outputs[k];
        set_size[k] =
            (size_t)PyArray_SIZE((PyArrayObject *)PyTuple_GET_ITEM(outs, k)) / (end - from);
        ptrs[k] = base[k];
    }
    w->sweep = &sweep;
    w->outputs = ptrs;
    uint64_t nonfinite = 0;
    for (size_t first = from; first < end; first += piece) {
        sweep.first_set = first;
        sweep.n_sets_run = end - first < piece ? end - first : piece;
        for (size_t k = 0; k < w->n_outputs; k++)
            ptrs[k] = base[k] + (first - from) * set_size[k];
        Py_BEGIN_ALLOW_THREADS
            st = apo_distribute_workload(rt, w, report);
        Py_END_ALLOW_THREADS
        if (st != APO_OK)
            break;
        if (report != NULL)
            nonfinite += report->nonfinite_outputs;
        if (first + piece < end && PyErr_CheckSignals() < 0) {
            *interrupted = 1;
            break;
        }
    }
    if (st == APO_OK && report != NULL)
        report->nonfinite_outputs = nonfinite;
    return st;
}

PyObject *apo_py_run(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"kernel",      "inputs",    "outputs",    "params", "grid",   "seed",
                             "ratios",      "tag",       "split",      "learn",  "report", "flat",
                             "row_lengths", "first_set", "n_sets_run", "ranges", NULL};
    apo_py_runtime *self = (apo_py_runtime *)op;
    const char *kernel = NULL, *tag = NULL;
    PyObject *inputs = NULL, *outputs = Py_None, *params = Py_None, *grid = Py_None,
             *ratios = Py_None, *row_lengths = Py_None, *ranges = Py_None;
    unsigned long long seed = 0;
    int split = 0, learn = 0, want_report = 0, flat = 0;
    Py_ssize_t first_set = 0, n_sets_run = 0; /* apo_sweep's: every set, as without them */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|OOOKOziippOnnO", kwlist, &kernel, &inputs,
                                     &outputs, &params, &grid, &seed, &ratios, &tag, &split, &learn,
                                     &want_report, &flat, &row_lengths, &first_set, &n_sets_run,
                                     &ranges))
        return NULL;
    if (first_set < 0 || n_sets_run < 0) {
        PyErr_SetString(PyExc_ValueError, "first_set and n_sets_run must be >= 0");
        return NULL;
    }
    apo_runtime *rt = apo_py_runtime_get(self);
    if (rt == NULL)
        return NULL;

    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    w.seed = (uint64_t)seed;
    w.tag = tag;
    w.split = (apo_split)split;
    w.learn = (apo_switch)learn;
    const double *in_ptrs[APO_MAX_IO];
    double *out_ptrs[APO_MAX_IO];
    apo_py_args a;
    PyObject *held_ratios = NULL, *held_lengths = NULL, *held_ranges = NULL, *outs = NULL,
             *report_dict = NULL;
    apo_report *report = NULL;
    uint64_t nonfinite = 0;
    call_place place = CALL_PLACE_INIT;
    if (apo_py_args_fill(&a, params, grid) < 0 ||
        take_inputs(rt, &place, inputs, &w, in_ptrs) < 0 ||
        apo_py_take_ratios(ratios, &held_ratios, &w) < 0 ||
        take_row_lengths(row_lengths, &held_lengths, &w) < 0 ||
        take_ranges(ranges, &held_ranges, &w) < 0)
        goto done;
    w.params = a.params;
    w.n_params = a.n_params;
    w.sweep = a.n_grid > 0 ? &a.sweep : NULL;
    if (w.sweep == NULL && (first_set > 0 || n_sets_run > 0)) {
        PyErr_SetString(PyExc_TypeError, "first_set and n_sets_run choose sets of a sweep; give "
                                         "a list, range or array of values for a parameter");
        goto done;
    }
    if (w.sweep != NULL) {
        a.sweep.first_set = (size_t)first_set;
        a.sweep.n_sets_run = (size_t)n_sets_run;
    }
    outs = take_outputs(self, &place, &w, outputs, out_ptrs, flat);
    if (outs == NULL)
        goto done;
    /* Always a report, as the CLI asks for one: its count of outputs that are not finite
     * although their inputs are is what the caller is warned about (runtime.py). */
    report = PyMem_RawCalloc(1, sizeof *report);
    if (report == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    report->size = sizeof *report;
    int interrupted = 0;
    self->busy++;
    apo_status st = place.on_device == 1
                        ? run_on_device(rt, &w, &place, report)
                        : run_call(rt, &w, outs, report, !want_report, &interrupted);
    self->busy--;
    if (interrupted) {
        Py_CLEAR(self->kernel_error);
        Py_CLEAR(outs);
        goto done;
    }
    if (st != APO_OK) {
        apo_py_raise(st);
        apo_py_chain_kernel_error(self);
        Py_CLEAR(outs);
        goto done;
    }
    Py_CLEAR(self->kernel_error); /* a kernel that failed on one device and not on another */
    if (want_report) {
        report_dict = apo_py_report_dict(report);
        if (report_dict == NULL) {
            Py_CLEAR(outs);
            goto done;
        }
    } else {
        report_dict = Py_None;
        Py_INCREF(report_dict);
    }
done:
    call_place_release(&place);
    if (report != NULL)
        nonfinite = report->nonfinite_outputs;
    PyMem_RawFree(report);
    Py_XDECREF(held_ratios);
    Py_XDECREF(held_lengths);
    Py_XDECREF(held_ranges);
    apo_py_args_release(&a);
    if (outs == NULL) {
        Py_XDECREF(report_dict);
        return NULL;
    }
    PyObject *r = Py_BuildValue("(OOK)", outs, report_dict, (unsigned long long)nonfinite);
    Py_DECREF(outs);
    Py_DECREF(report_dict);
    return r;
}

PyObject *apo_py_output_shapes(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"kernel", "rows", "cols", "params", "grid", NULL};
    const char *kernel = NULL;
    Py_ssize_t rows = 0, cols = 0;
    PyObject *params = Py_None, *grid = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "snn|OO", kwlist, &kernel, &rows, &cols, &params,
                                     &grid))
        return NULL;
    apo_runtime *rt = apo_py_runtime_for_shape(op, rows, cols);
    if (rt == NULL)
        return NULL;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    apo_status st = apo_kernel_get(rt, kernel, &info);
    if (st != APO_OK)
        return apo_py_raise(st);
    apo_py_args a;
    PyObject *result = NULL;
    if (apo_py_args_fill(&a, params, grid) < 0)
        goto done;
    apo_workload w = apo_py_workload_of(kernel, (size_t)rows, (size_t)cols, &a);
    result = PyTuple_New((Py_ssize_t)info.n_outputs);
    for (size_t k = 0; result != NULL && k < info.n_outputs; k++) {
        size_t r = 0, c = 0;
        st = apo_output_shape(rt, &w, k, &r, &c);
        if (st != APO_OK) {
            Py_CLEAR(result);
            apo_py_raise(st);
            break;
        }
        PyObject *shape = Py_BuildValue("(nn)", (Py_ssize_t)r, (Py_ssize_t)c);
        if (shape == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyTuple_SET_ITEM(result, (Py_ssize_t)k, shape);
    }
done:
    apo_py_args_release(&a);
    return result;
}

/* For the bench (bench/python): `repeats` calls of apo_distribute_workload() in a C loop on
 * the same arrays, without the binding in between; returns the seconds per call, so that
 * the binding's own cost per call is the difference from a Python loop. Device arrays
 * (bench_device_arrays.py) go to apo_distribute_workload_cuda() as run_on_device() passes
 * them, into outputs allocated once. */
PyObject *apo_py_time_c_calls(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"kernel", "inputs", "params", "repeats", NULL};
    apo_py_runtime *self = (apo_py_runtime *)op;
    const char *kernel = NULL;
    PyObject *inputs = NULL, *params = Py_None;
    Py_ssize_t repeats = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOOn", kwlist, &kernel, &inputs, &params,
                                     &repeats))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get(self);
    if (rt == NULL)
        return NULL;
    if (repeats < 1) {
        PyErr_SetString(PyExc_ValueError, "repeats must be >= 1");
        return NULL;
    }
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    const double *in_ptrs[APO_MAX_IO];
    double *out_ptrs[APO_MAX_IO];
    apo_py_args a;
    PyObject *outs = NULL, *result = NULL;
    call_place place = CALL_PLACE_INIT;
    if (apo_py_args_fill(&a, params, Py_None) < 0 ||
        take_inputs(rt, &place, inputs, &w, in_ptrs) < 0)
        goto done;
    w.params = a.params;
    w.n_params = a.n_params;
    outs = take_outputs(self, &place, &w, Py_None, out_ptrs, 0);
    if (outs == NULL)
        goto done;
    apo_status st = APO_OK;
    const apo_cuda_placement where = placement_of(&place);
    struct timespec t0, t1;
    self->busy++;
    Py_BEGIN_ALLOW_THREADS
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (Py_ssize_t i = 0; i < repeats && st == APO_OK; i++)
            st = place.on_device == 1 ? apo_distribute_workload_cuda(rt, &w, &where, NULL)
                                      : apo_distribute_workload(rt, &w, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
    Py_END_ALLOW_THREADS
    self->busy--;
    if (st != APO_OK) {
        apo_py_raise(st);
        goto done;
    }
    result = PyFloat_FromDouble(
        ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) /
        (double)repeats);
done:
    call_place_release(&place);
    Py_XDECREF(outs);
    apo_py_args_release(&a);
    return result;
}
