/* The Stream type: apo_stream_* from Python (docs/python.md, "Streams"). The C layer takes
 * the library's packed layout (each input: series 0's new bars, then series 1's, ...) and
 * gives outputs as (series, bars) arrays; apportion/stream.py turns the caller's blocks
 * (bars x series, DataFrames) into that layout and back. */
#include "binding.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "le_bytes.h"

/* Offsets of the saved state's header that a loaded stream's description is read back from
 * (docs/streaming.md, "The state"): the public API has no getters for them, and the format
 * is documented byte by byte. Read only after apo_stream_load() accepted the state. */
enum {
    STATE_KERNEL = 28,
    STATE_KERNEL_LEN = 32,
    STATE_PARAMS = 64,
    STATE_SEED = 128,
    STATE_N_SERIES = 160,
    /* A sweep's container (docs/streaming.md, "A sweep's state"): its sets' count and their
     * states' lengths, then the states themselves, each with the header above. */
    SWEEP_N_SETS = 16,
    SWEEP_LENGTHS = 32,
    /* A rule's container (docs/streaming.md, "A rule's state"): the scored kernel's name, the
     * sets and series, each set's parameters (APO_MAX_PARAMS doubles), each set and series'
     * fold, then the indicator stream's state's length and the state. */
    RULE_SCORED = 24,
    RULE_N_SETS = 56,
    RULE_N_SERIES = 64,
    RULE_PARAMS = 72,
    RULE_FOLD_LEN = 192,
};

apo_stream *apo_py_stream_get(apo_py_stream *self) {
    if (self->s == NULL) {
        PyErr_SetString(PyExc_ValueError, "this apportion Stream is closed");
        return NULL;
    }
    if (self->runtime == NULL || self->runtime->rt == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "the Runtime of this apportion Stream is closed; the stream needs it");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this apportion Stream is in use by another thread; a stream serves one "
                        "thread at a time");
        return NULL;
    }
    return self->s;
}

/* The kernel's parameters as {name: value}: `values` in the kernel's order. */
static PyObject *params_dict(const apo_kernel_info *info, const double *values) {
    PyObject *d = PyDict_New();
    for (size_t p = 0; d != NULL && p < info->n_params; p++) {
        PyObject *v = PyFloat_FromDouble(values[p]);
        if (v == NULL || PyDict_SetItemString(d, info->param_names[p], v) < 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* The kernel a stream's parameters belong to: `kernel`, or for a rule's stream the scored
 * kernel "<kernel>:<rule>" (docs/streaming.md, "Live rules"). -1 with an exception. */
static int params_kernel(apo_py_stream *self, const char *kernel, const char *rule,
                         apo_kernel_info *info) {
    char scored[2 * APO_NAME_MAX + 2];
    if (rule != NULL)
        snprintf(scored, sizeof scored, "%s:%s", kernel, rule);
    apo_status st = apo_kernel_get(self->runtime->rt, rule != NULL ? scored : kernel, info);
    if (st != APO_OK) {
        apo_py_raise(st);
        return -1;
    }
    return 0;
}

/* Fills the description fields of `self` from the kernel `name` (and `rule`, NULL for the
 * kernel's own outputs) once the stream exists; `values` are its sets' parameters in the
 * order of the kernel's (or the scored kernel's) parameters, APO_MAX_PARAMS a set, and
 * `sweep` says whether they are a sweep's (whose one set still has the sets axis). */
static int describe(apo_py_stream *self, const char *name, const char *rule, const double *values,
                    size_t n_sets, int sweep, size_t n_series, uint64_t seed) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (params_kernel(self, name, rule, &info) < 0)
        return -1;
    self->kernel = PyUnicode_FromString(name);
    if (self->kernel == NULL)
        return -1;
    if (rule != NULL && (self->rule = PyUnicode_FromString(rule)) == NULL)
        return -1;
    self->n_sets = n_sets;
    if (!sweep) {
        self->params = params_dict(&info, values);
    } else {
        /* params: those every set shares; sets: each set whole. */
        if ((self->sets = PyList_New((Py_ssize_t)n_sets)) == NULL)
            return -1;
        for (size_t k = 0; k < n_sets; k++) {
            PyObject *d = params_dict(&info, values + k * APO_MAX_PARAMS);
            if (d == NULL)
                return -1;
            PyList_SET_ITEM(self->sets, (Py_ssize_t)k, d);
        }
        double shared[APO_MAX_PARAMS];
        memcpy(shared, values, sizeof shared);
        self->params = params_dict(&info, shared);
        for (size_t p = 0; self->params != NULL && p < info.n_params; p++)
            for (size_t k = 1; k < n_sets; k++)
                if (memcmp(&values[k * APO_MAX_PARAMS + p], &values[p], sizeof(double)) != 0) {
                    if (PyDict_DelItemString(self->params, info.param_names[p]) < 0)
                        Py_CLEAR(self->params);
                    break;
                }
    }
    if (self->params == NULL)
        return -1;
    self->n_series = n_series;
    self->n_inputs = info.n_inputs;
    self->n_outputs = rule != NULL ? (size_t)APO_LIVE_N_OUTPUTS : info.n_outputs;
    self->seed = seed;
    return 0;
}

/* The parameters of one set's saved state, in the kernel's order, into values[0..
 * APO_MAX_PARAMS). */
static void state_params(const unsigned char *b, double *values) {
    for (size_t p = 0; p < APO_MAX_PARAMS; p++) {
        uint64_t bits = apo__get_u64(b + STATE_PARAMS + 8 * p);
        memcpy(&values[p], &bits, sizeof bits);
    }
}

/* describe() of a rule's state `b` (docs/streaming.md, "A rule's state"), which
 * apo_stream_load() accepted: the scored kernel's name "<kernel>:<rule>", each set's
 * parameters, and the seed of the indicator's state inside it (a set's state, or a sweep's
 * container of them). A rule's stream of several sets is a sweep; of one, not, as a rule's
 * stream of one set keeps its indicator as one set's stream. */
static int describe_rule(apo_py_stream *self, const unsigned char *b) {
    char name[STATE_KERNEL_LEN];
    memcpy(name, b + RULE_SCORED, sizeof name);
    name[sizeof name - 1] = '\0';
    char *colon = strchr(name, ':');
    assert(colon != NULL); /* the load found the scored kernel of this name */
    *colon = '\0';
    size_t n_sets = (size_t)apo__get_u64(b + RULE_N_SETS);
    size_t n_series = (size_t)apo__get_u64(b + RULE_N_SERIES);
    double *values = PyMem_Calloc(n_sets * APO_MAX_PARAMS, sizeof *values);
    if (values == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n_sets * APO_MAX_PARAMS; i++) {
        uint64_t bits = apo__get_u64(b + RULE_PARAMS + 8 * i);
        memcpy(&values[i], &bits, sizeof bits);
    }
    const unsigned char *inner =
        b + RULE_PARAMS + 8 * APO_MAX_PARAMS * n_sets + RULE_FOLD_LEN * n_sets * n_series + 8;
    if (memcmp(inner, "APOSWEP", 8) == 0)
        inner += SWEEP_LENGTHS + 8 * apo__get_u64(inner + SWEEP_N_SETS);
    uint64_t seed = apo__get_u64(inner + STATE_SEED);
    int rc = describe(self, name, colon + 1, values, n_sets, n_sets > 1, n_series, seed);
    PyMem_Free(values);
    return rc;
}

/* A stream from a saved state; with kernel not None, the state must be of that kernel,
 * parameters, series count and seed (apo_stream_load's `expect`). */
static int init_load(apo_py_stream *self, PyObject *state, const apo_stream_desc *expect) {
    Py_buffer view;
    if (PyObject_GetBuffer(state, &view, PyBUF_SIMPLE) < 0)
        return -1;
    apo_runtime *rt = self->runtime->rt;
    apo_stream *s = NULL;
    apo_status st;
    self->runtime->busy++;
    /* A state of a large stream is many megabytes to check and copy. */
    Py_BEGIN_ALLOW_THREADS
        st = apo_stream_load(rt, expect, view.buf, (size_t)view.len, &s);
    Py_END_ALLOW_THREADS
    self->runtime->busy--;
    if (st != APO_OK) {
        PyBuffer_Release(&view);
        apo_py_raise(st);
        return -1;
    }
    self->s = s;
    /* The load checked the header (and a sweep's container), so its fields are what the
     * stream holds. */
    const unsigned char *b = view.buf;
    if (memcmp(b, "APORULE", 8) == 0) {
        int rc = describe_rule(self, b);
        PyBuffer_Release(&view);
        return rc;
    }
    size_t n_sets = 1;
    int sweep = memcmp(b, "APOSWEP", 8) == 0;
    const unsigned char *first = b;
    if (sweep) {
        n_sets = (size_t)apo__get_u64(b + SWEEP_N_SETS);
        first = b + SWEEP_LENGTHS + 8 * n_sets;
    }
    double *values = PyMem_Calloc(n_sets * APO_MAX_PARAMS, sizeof *values);
    if (values == NULL) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    const unsigned char *set = first;
    for (size_t k = 0; k < n_sets; k++) {
        state_params(set, values + k * APO_MAX_PARAMS);
        if (sweep)
            set += apo__get_u64(b + SWEEP_LENGTHS + 8 * k);
    }
    char name[STATE_KERNEL_LEN];
    memcpy(name, first + STATE_KERNEL, sizeof name);
    name[sizeof name - 1] = '\0';
    uint64_t seed = apo__get_u64(first + STATE_SEED);
    size_t n_series = (size_t)apo__get_u64(first + STATE_N_SERIES);
    PyBuffer_Release(&view);
    int rc = describe(self, name, NULL, values, n_sets, sweep, n_series, seed);
    PyMem_Free(values);
    return rc;
}

/* The parameters of every set of a new stream, APO_MAX_PARAMS a set in the kernel's order:
 * the defaults, then the fixed ones given, then the swept values of the grid's set
 * first + k (the grid's first parameter varying slowest, as apo_sweep's sets are numbered).
 * NULL with an exception. */
static double *created_sets(const apo_kernel_info *info, const apo_py_args *a, size_t first,
                            size_t n_sets) {
    double *values = PyMem_Calloc(n_sets * APO_MAX_PARAMS, sizeof *values);
    if (values == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (size_t k = 0; k < n_sets; k++) {
        double *v = values + k * APO_MAX_PARAMS;
        for (size_t p = 0; p < info->n_params; p++) {
            v[p] = info->param_defaults[p];
            for (size_t g = 0; g < a->n_params; g++)
                if (strcmp(a->params[g].name, info->param_names[p]) == 0)
                    v[p] = a->params[g].value;
            size_t stride = 1;
            for (size_t q = a->n_grid; q-- > 0;) {
                const apo_sweep_param *sp = &a->grid[q];
                if (strcmp(sp->name, info->param_names[p]) == 0)
                    v[p] = sp->values[(first + k) / stride % sp->n_values];
                stride *= sp->n_values;
            }
        }
    }
    return values;
}

static int check_input(PyObject *o, Py_ssize_t i, size_t count);

/* apo_stream_resume() of `resume`, a tuple (inputs, first, bars): every series given `bars`
 * bars, packed series after series in each input's array, the first at position `first`.
 * A refusal in Python's checks sets the exception and returns APO_ERR_INVALID_ARGUMENT. */
static apo_status resume_stream(apo_runtime *rt, const apo_stream_desc *desc, PyObject *resume,
                                apo_stream **out) {
    PyObject *inputs;
    unsigned long long first = 0;
    Py_ssize_t bars = 0;
    if (!PyTuple_Check(resume) ||
        !PyArg_ParseTuple(resume, "O!Kn", &PyTuple_Type, &inputs, &first, &bars)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "resume is a tuple (inputs, first, bars)");
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (bars < 0 || PyTuple_GET_SIZE(inputs) > APO_MAX_IO ||
        (size_t)bars > (size_t)PY_SSIZE_T_MAX / sizeof(double) / desc->n_series) {
        PyErr_Format(PyExc_ValueError, "resume: %zd bars of %zu series", bars, desc->n_series);
        return APO_ERR_INVALID_ARGUMENT;
    }
    const double *in[APO_MAX_IO] = {0};
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); i++) {
        PyObject *o = PyTuple_GET_ITEM(inputs, i);
        if (check_input(o, i, (size_t)bars * desc->n_series) < 0)
            return APO_ERR_INVALID_ARGUMENT;
        in[i] = (const double *)PyArray_DATA((PyArrayObject *)o);
    }
    uint64_t *firsts = PyMem_Malloc(desc->n_series * sizeof *firsts);
    size_t *counts = PyMem_Malloc(desc->n_series * sizeof *counts);
    if (firsts == NULL || counts == NULL) {
        PyMem_Free(firsts), PyMem_Free(counts);
        PyErr_NoMemory();
        return APO_ERR_OUT_OF_MEMORY;
    }
    for (size_t r = 0; r < desc->n_series; r++)
        firsts[r] = (uint64_t)first, counts[r] = (size_t)bars;
    apo_status st = apo_stream_resume(rt, desc, firsts, counts, in, out);
    PyMem_Free(firsts), PyMem_Free(counts);
    return st;
}

static int stream_init(PyObject *op, PyObject *args, PyObject *kwargs) {
    apo_py_stream *self = (apo_py_stream *)op;
    static char *kwlist[] = {"runtime", "kernel", "n_series",  "params",     "seed",
                             "state",   "grid",   "first_set", "n_sets_run", "revise_bars",
                             "resume",  "rule",   NULL};
    PyObject *runtime = NULL, *kernel = Py_None, *params = Py_None, *state = Py_None,
             *grid = Py_None, *resume = Py_None, *rule = Py_None;
    Py_ssize_t n_series = 0;
    unsigned long long seed = 0;
    Py_ssize_t first_set = 0, n_sets_run = 0; /* apo_sweep's: every set, as without them */
    Py_ssize_t revise_bars = 0;
    if (self->s != NULL || self->runtime != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Stream.__init__ called twice");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|OnOK$OOnnnOO", kwlist, &apo_py_runtime_type,
                                     &runtime, &kernel, &n_series, &params, &seed, &state, &grid,
                                     &first_set, &n_sets_run, &revise_bars, &resume, &rule))
        return -1;
    if (first_set < 0 || n_sets_run < 0 || revise_bars < 0) {
        PyErr_SetString(PyExc_ValueError, "first_set, n_sets_run and revise_bars must be >= 0");
        return -1;
    }
    Py_INCREF(runtime);
    self->runtime = (apo_py_runtime *)runtime;
    apo_runtime *rt = apo_py_runtime_get(self->runtime);
    if (rt == NULL)
        return -1;
    if (kernel == Py_None && state == Py_None) {
        PyErr_SetString(PyExc_TypeError, "Stream needs a kernel, or a saved state to load");
        return -1;
    }
    apo_stream_desc desc = APO_STREAM_DESC_INIT;
    apo_py_args a;
    memset(&a, 0, sizeof a);
    int rc = -1;
    if (kernel != Py_None) {
        if (!PyUnicode_Check(kernel)) {
            PyErr_Format(PyExc_TypeError, "kernel must be a str, not %R", kernel);
            return -1;
        }
        if (n_series < 1) {
            PyErr_Format(PyExc_ValueError, "a stream follows 1 series or more, not %zd", n_series);
            return -1;
        }
        if (rule != Py_None && !PyUnicode_Check(rule)) {
            PyErr_Format(PyExc_TypeError, "rule must be a str, not %R", rule);
            return -1;
        }
        if (apo_py_args_fill(&a, params, grid) < 0)
            goto done;
        desc.kernel = PyUnicode_AsUTF8(kernel);
        if (desc.kernel == NULL)
            goto done;
        if (rule != Py_None && (desc.score = PyUnicode_AsUTF8(rule)) == NULL)
            goto done;
        desc.n_series = (size_t)n_series;
        desc.params = a.params;
        desc.n_params = a.n_params;
        desc.seed = (uint64_t)seed;
        desc.revise_bars = (size_t)revise_bars;
        desc.sweep = a.n_grid > 0 ? &a.sweep : NULL;
        if (desc.sweep == NULL && (first_set > 0 || n_sets_run > 0)) {
            PyErr_SetString(PyExc_TypeError, "first_set and n_sets_run choose sets of a sweep; "
                                             "give a list, range or array of values for a "
                                             "parameter");
            goto done;
        }
        if (desc.sweep != NULL) {
            a.sweep.first_set = (size_t)first_set;
            a.sweep.n_sets_run = (size_t)n_sets_run;
        }
    }
    if (state != Py_None) {
        rc = init_load(self, state, kernel != Py_None ? &desc : NULL);
        goto done;
    }
    apo_stream *s = NULL;
    apo_status st =
        resume != Py_None ? resume_stream(rt, &desc, resume, &s) : apo_stream_create(rt, &desc, &s);
    if (st != APO_OK) {
        if (!PyErr_Occurred())
            apo_py_raise(st);
        goto done;
    }
    self->s = s;
    /* The parameters as the stream has them: the kernel's (or the scored kernel's)
     * defaults, then those given (the library accepted every name and value, or create would
     * have failed). */
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    if (params_kernel(self, desc.kernel, desc.score, &info) < 0)
        goto done;
    size_t n_sets = 1;
    for (size_t q = 0; q < a.n_grid; q++)
        n_sets *= a.grid[q].n_values; /* create bounded it by APO_MAX_SWEEP_SETS */
    /* The sets run: create checked that they lie in the grid. */
    n_sets = n_sets_run > 0 ? (size_t)n_sets_run : n_sets - (size_t)first_set;
    double *values = created_sets(&info, &a, (size_t)first_set, n_sets);
    if (values == NULL)
        goto done;
    rc = describe(self, desc.kernel, desc.score, values, n_sets, a.n_grid > 0, desc.n_series,
                  desc.seed);
    PyMem_Free(values);
done:
    apo_py_args_release(&a);
    return rc;
}

static void stream_dealloc(PyObject *op) {
    apo_py_stream *self = (apo_py_stream *)op;
    /* No call can be inside: each holds a reference to self while it runs. Freeing a stream
     * touches only its own memory, so it is safe after its runtime was closed. */
    apo_stream_destroy(self->s);
    self->s = NULL;
    PyMem_Free(self->n_new);
    Py_CLEAR(self->runtime);
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->rule);
    Py_CLEAR(self->params);
    Py_CLEAR(self->sets);
    Py_TYPE(op)->tp_free(op);
}

int apo_py_check_packed(PyObject *o, const char *what, size_t count) {
    if (!PyArray_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s is not a numpy array", what);
        return -1;
    }
    PyArrayObject *arr = (PyArrayObject *)o;
    if (PyArray_TYPE(arr) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(arr)) {
        PyErr_Format(PyExc_TypeError, "%s has dtype %R; float64 is needed", what,
                     (PyObject *)PyArray_DESCR(arr));
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS(arr) || !PyArray_ISALIGNED(arr)) {
        PyErr_Format(PyExc_ValueError, "%s is not C-contiguous and aligned", what);
        return -1;
    }
    if ((size_t)PyArray_SIZE(arr) != count) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd values; series x bars = %zu are needed", what,
                     PyArray_SIZE(arr), count);
        return -1;
    }
    return 0;
}

/* apo_py_check_packed() of input i of a stream's call. */
static int check_input(PyObject *o, Py_ssize_t i, size_t count) {
    char what[32];
    snprintf(what, sizeof what, "input %zd", i);
    return apo_py_check_packed(o, what, count);
}

/* What stream_feed calls: apo_stream_update, _peek or _revise, which take the same arguments. */
enum { FEED_UPDATE, FEED_PEEK, FEED_REVISE };

/* _update(inputs, bars): appends `bars` bars to every series. inputs: one array an input, in
 * the kernel's order, each packed series after series. Returns a tuple of (series, bars)
 * arrays, one an output; (sets, series, bars) for a sweep, the library's set-major layout. */
static PyObject *stream_feed(PyObject *op, PyObject *args, int mode) {
    apo_py_stream *self = (apo_py_stream *)op;
    PyObject *inputs;
    Py_ssize_t bars;
    if (!PyArg_ParseTuple(args, "O!n", &PyTuple_Type, &inputs, &bars))
        return NULL;
    apo_stream *s = apo_py_stream_get(self);
    if (s == NULL)
        return NULL;
    if (bars < 0) {
        PyErr_Format(PyExc_ValueError, "bars is %zd; 0 or more are needed", bars);
        return NULL;
    }
    if ((size_t)PyTuple_GET_SIZE(inputs) != self->n_inputs) {
        PyErr_Format(PyExc_TypeError, "kernel %U takes %zu input(s), %zd given", self->kernel,
                     self->n_inputs, PyTuple_GET_SIZE(inputs));
        return NULL;
    }
    if ((size_t)bars > (size_t)PY_SSIZE_T_MAX / sizeof(double) / self->n_series / self->n_sets) {
        PyErr_Format(PyExc_OverflowError, "%zd bars of %zu series overflow", bars, self->n_series);
        return NULL;
    }
    size_t count = (size_t)bars * self->n_series;
    const double *in_ptrs[APO_MAX_IO];
    /* A rule's stream gives APO_LIVE_N_OUTPUTS outputs, more than a kernel's APO_MAX_IO. */
    double *out_ptrs[APO_MAX_IO > APO_LIVE_N_OUTPUTS ? APO_MAX_IO : APO_LIVE_N_OUTPUTS];
    for (size_t i = 0; i < self->n_inputs; i++) {
        PyObject *o = PyTuple_GET_ITEM(inputs, (Py_ssize_t)i);
        if (check_input(o, (Py_ssize_t)i, count) < 0)
            return NULL;
        in_ptrs[i] = (const double *)PyArray_DATA((PyArrayObject *)o);
    }
    if (self->n_new == NULL) {
        self->n_new = PyMem_Calloc(self->n_series, sizeof *self->n_new);
        if (self->n_new == NULL)
            return PyErr_NoMemory();
        self->n_new_fill = 0;
    }
    if (self->n_new_fill != (size_t)bars) {
        for (size_t r = 0; r < self->n_series; r++)
            self->n_new[r] = (size_t)bars;
        self->n_new_fill = (size_t)bars;
    }
    PyObject *outs = PyTuple_New((Py_ssize_t)self->n_outputs);
    if (outs == NULL)
        return NULL;
    npy_intp dims[3] = {(npy_intp)self->n_sets, (npy_intp)self->n_series, (npy_intp)bars};
    const int sweep = self->sets != NULL;
    for (size_t k = 0; k < self->n_outputs; k++) {
        PyObject *arr = PyArray_EMPTY(sweep ? 3 : 2, sweep ? dims : dims + 1, NPY_DOUBLE, 0);
        if (arr == NULL) {
            Py_DECREF(outs);
            return NULL;
        }
        out_ptrs[k] = (double *)PyArray_DATA((PyArrayObject *)arr);
        PyTuple_SET_ITEM(outs, (Py_ssize_t)k, arr);
    }
    apo_status st;
    self->busy = 1;
    self->runtime->busy++;
    Py_BEGIN_ALLOW_THREADS
        st = mode == FEED_PEEK     ? apo_stream_peek(s, self->n_new, in_ptrs, out_ptrs)
             : mode == FEED_REVISE ? apo_stream_revise(s, self->n_new, in_ptrs, out_ptrs)
                                   : apo_stream_update(s, self->n_new, in_ptrs, out_ptrs);
    Py_END_ALLOW_THREADS
    self->runtime->busy--;
    self->busy = 0;
    if (st != APO_OK) {
        Py_DECREF(outs);
        apo_py_raise(st);
        apo_py_chain_kernel_error(self->runtime);
        return NULL;
    }
    return outs;
}

static PyObject *stream_update(PyObject *op, PyObject *args) {
    return stream_feed(op, args, FEED_UPDATE);
}

/* _peek(inputs, bars): as _update, through apo_stream_peek(): the stream is left as it was. */
static PyObject *stream_peek(PyObject *op, PyObject *args) {
    return stream_feed(op, args, FEED_PEEK);
}

/* _revise(inputs, bars): as _update, through apo_stream_revise(): the last `bars` bars of
 * every series replaced. */
static PyObject *stream_revise(PyObject *op, PyObject *args) {
    return stream_feed(op, args, FEED_REVISE);
}

/* _fork() -> a stream of the same type: apo_stream_fork(), the description shared. */
static PyObject *stream_fork(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_py_stream *self = (apo_py_stream *)op;
    apo_stream *s = apo_py_stream_get(self);
    if (s == NULL)
        return NULL;
    apo_stream *copy = NULL;
    apo_status st = apo_stream_fork(s, &copy);
    if (st != APO_OK)
        return apo_py_raise(st);
    apo_py_stream *f = (apo_py_stream *)Py_TYPE(op)->tp_alloc(Py_TYPE(op), 0);
    if (f == NULL) {
        apo_stream_destroy(copy);
        return NULL;
    }
    f->s = copy;
    f->runtime = (apo_py_runtime *)Py_NewRef((PyObject *)self->runtime);
    f->kernel = Py_NewRef(self->kernel);
    f->rule = self->rule != NULL ? Py_NewRef(self->rule) : NULL;
    f->params = PyDict_Copy(self->params);
    f->sets = self->sets != NULL ? PyList_GetSlice(self->sets, 0, PY_SSIZE_T_MAX) : NULL;
    f->n_sets = self->n_sets;
    f->n_series = self->n_series;
    f->n_inputs = self->n_inputs;
    f->n_outputs = self->n_outputs;
    f->seed = self->seed;
    if (f->params == NULL || (self->sets != NULL && f->sets == NULL)) {
        Py_DECREF(f);
        return NULL;
    }
    return (PyObject *)f;
}

/* _save() -> bytes: apo_stream_save(). */
static PyObject *stream_save(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_py_stream *self = (apo_py_stream *)op;
    apo_stream *s = apo_py_stream_get(self);
    if (s == NULL)
        return NULL;
    size_t len = 0;
    apo_status st = apo_stream_save(s, NULL, 0, &len);
    if (st != APO_OK)
        return apo_py_raise(st);
    if (len > (size_t)PY_SSIZE_T_MAX)
        return PyErr_NoMemory();
    PyObject *blob = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
    if (blob == NULL)
        return NULL;
    char *buf = PyBytes_AS_STRING(blob);
    self->busy = 1;
    self->runtime->busy++;
    /* The bytes object is this call's alone until it returns; a large state takes a while. */
    Py_BEGIN_ALLOW_THREADS
        st = apo_stream_save(s, buf, len, &len);
    Py_END_ALLOW_THREADS
    self->runtime->busy--;
    self->busy = 0;
    if (st != APO_OK) {
        Py_DECREF(blob);
        return apo_py_raise(st);
    }
    return blob;
}

static PyObject *stream_close(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_py_stream *self = (apo_py_stream *)op;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Stream.close(): the stream is in use by another thread");
        return NULL;
    }
    apo_stream_destroy(self->s);
    self->s = NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_get_bars(PyObject *op, void *closure) {
    (void)closure;
    apo_py_stream *self = (apo_py_stream *)op;
    apo_stream *s = apo_py_stream_get(self);
    if (s == NULL)
        return NULL;
    npy_intp dims[1] = {(npy_intp)self->n_series};
    PyObject *arr = PyArray_EMPTY(1, dims, NPY_INT64, 0);
    if (arr == NULL)
        return NULL;
    int64_t *out = (int64_t *)PyArray_DATA((PyArrayObject *)arr);
    for (size_t r = 0; r < self->n_series; r++) {
        uint64_t n = 0;
        apo_status st = apo_stream_bars(s, r, &n);
        if (st != APO_OK) {
            Py_DECREF(arr);
            return apo_py_raise(st);
        }
        out[r] = (int64_t)n;
    }
    return arr;
}

static PyObject *stream_get_kernel(PyObject *op, void *closure) {
    (void)closure;
    PyObject *k = ((apo_py_stream *)op)->kernel;
    return Py_NewRef(k != NULL ? k : Py_None);
}

static PyObject *stream_get_rule(PyObject *op, void *closure) {
    (void)closure;
    PyObject *r = ((apo_py_stream *)op)->rule;
    return Py_NewRef(r != NULL ? r : Py_None);
}

static PyObject *stream_get_params(PyObject *op, void *closure) {
    (void)closure;
    PyObject *p = ((apo_py_stream *)op)->params;
    return p != NULL ? PyDict_Copy(p) : Py_NewRef(Py_None);
}

static PyObject *stream_get_sets(PyObject *op, void *closure) {
    (void)closure;
    PyObject *sets = ((apo_py_stream *)op)->sets;
    if (sets == NULL)
        Py_RETURN_NONE;
    /* Copies, so that a caller's change does not change what the stream reports. */
    PyObject *out = PyList_New(PyList_GET_SIZE(sets));
    for (Py_ssize_t k = 0; out != NULL && k < PyList_GET_SIZE(sets); k++) {
        PyObject *d = PyDict_Copy(PyList_GET_ITEM(sets, k));
        if (d == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, k, d);
    }
    return out;
}

static PyObject *stream_get_n_series(PyObject *op, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(((apo_py_stream *)op)->n_series);
}

static PyObject *stream_get_seed(PyObject *op, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(((apo_py_stream *)op)->seed);
}

static PyObject *stream_get_runtime(PyObject *op, void *closure) {
    (void)closure;
    PyObject *r = (PyObject *)((apo_py_stream *)op)->runtime;
    return Py_NewRef(r != NULL ? r : Py_None);
}

static PyObject *stream_get_closed(PyObject *op, void *closure) {
    (void)closure;
    return PyBool_FromLong(((apo_py_stream *)op)->s == NULL);
}

static PyMethodDef stream_methods[] = {
    {"_update", stream_update, METH_VARARGS,
     "_update(inputs, bars): apo_stream_update() of `bars` bars a series, packed series after "
     "series; returns (series, bars) arrays (apportion.Stream.update wraps it)."},
    {"_peek", stream_peek, METH_VARARGS,
     "_peek(inputs, bars): as _update, through apo_stream_peek(): the outputs an update would "
     "give, the stream left as it was (apportion.Stream.peek wraps it)."},
    {"_revise", stream_revise, METH_VARARGS,
     "_revise(inputs, bars): as _update, through apo_stream_revise(): the last `bars` bars of "
     "every series replaced, their corrected outputs returned (apportion.Stream.revise wraps "
     "it)."},
    {"_fork", stream_fork, METH_NOARGS,
     "An independent copy of the stream (apo_stream_fork()); apportion.Stream.fork wraps it."},
    {"_save", stream_save, METH_NOARGS, "The state as bytes (apo_stream_save())."},
    {"close", stream_close, METH_NOARGS,
     "Frees the stream (apo_stream_destroy()); later calls raise ValueError."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"bars", stream_get_bars, NULL, "Bars fed to each series so far (int64 array).", NULL},
    {"kernel", stream_get_kernel, NULL, "The kernel's name.", NULL},
    {"rule", stream_get_rule, NULL,
     "The rule a rule's stream follows (apo_stream_desc.score), as given; None for the "
     "kernel's own outputs.",
     NULL},
    {"params", stream_get_params, NULL,
     "Every parameter of the kernel (of a rule's stream, the scored kernel's: score()'s), as the "
     "stream has it; for a sweep, those every set shares.",
     NULL},
    {"sets", stream_get_sets, NULL,
     "A sweep's parameter sets, each every parameter of the kernel, in the sweep's order; None "
     "for one set.",
     NULL},
    {"n_series", stream_get_n_series, NULL, "The number of series.", NULL},
    {"seed", stream_get_seed, NULL, "The seed given to user kernels.", NULL},
    {"runtime", stream_get_runtime, NULL, "The Runtime whose kernel the stream runs.", NULL},
    {"closed", stream_get_closed, NULL, "True once close() ran.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject apo_py_stream_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apportion._core.Stream",
    .tp_basicsize = sizeof(apo_py_stream),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A libapportion stream (apo_stream_create()); apportion.Stream wraps it.",
    .tp_new = PyType_GenericNew,
    .tp_init = stream_init,
    .tp_dealloc = stream_dealloc,
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
};
