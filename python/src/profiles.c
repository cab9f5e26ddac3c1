/* Balancing and profiles from Python: apo_profile_auto_balance(), apo_plan_workload(),
 * apo_set_ratios(), apo_should_use_gpu(), and the stored entries of both files. */
#include "binding.h"

#include <math.h>
#include <string.h>

static PyObject *str_of(const char *s) {
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* The models of a result or stored entry: a list of dicts. */
static PyObject *models_list(const apo_device_model *models, size_t n) {
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list != NULL && i < n; i++) {
        PyObject *m = apo_py_model_dict(&models[i]);
        if (m == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, m);
    }
    return list;
}

PyObject *apo_py_profile(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tag",   "kernel", "params", "sample_size",
                             "sizes", "runs",   "seed",   NULL};
    apo_py_runtime *self = (apo_py_runtime *)op;
    const char *tag = NULL, *kernel = NULL;
    PyObject *params = Py_None, *sizes = Py_None;
    unsigned long long sample_size = 0, seed = 0;
    unsigned int runs = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|zOKOIK", kwlist, &tag, &kernel, &params,
                                     &sample_size, &sizes, &runs, &seed))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get(self);
    if (rt == NULL)
        return NULL;
    apo_py_args a;
    PyObject *sizes_arr = NULL, *result = NULL;
    apo_profile_result *res = NULL;
    if (apo_py_args_fill(&a, params, Py_None) < 0)
        goto done;
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = tag;
    opt.kernel = kernel;
    opt.params = a.params;
    opt.n_params = a.n_params;
    opt.sample_size = (uint64_t)sample_size;
    opt.runs = runs;
    opt.seed = (uint64_t)seed;
    if (sizes != Py_None) {
        sizes_arr =
            PyArray_FROMANY(sizes, NPY_UINT64, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
        if (sizes_arr == NULL)
            goto done;
        opt.sizes = (const uint64_t *)PyArray_DATA((PyArrayObject *)sizes_arr);
        opt.n_sizes = (size_t)PyArray_SIZE((PyArrayObject *)sizes_arr);
    }
    res = PyMem_RawCalloc(1, sizeof *res);
    if (res == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    res->size = sizeof *res;
    apo_status st;
    self->busy++;
    Py_BEGIN_ALLOW_THREADS
        st = apo_profile_auto_balance(rt, &opt, res);
    Py_END_ALLOW_THREADS
    self->busy--;
    if (st != APO_OK) {
        apo_py_raise(st);
        goto done;
    }
    PyObject *models = models_list(res->devices, res->n_devices);
    if (models != NULL)
        result = Py_BuildValue("{s:N,s:K,s:I,s:d,s:O,s:N}", "tag", str_of(res->tag), "sample_size",
                               (unsigned long long)res->sample_size, "runs", res->runs,
                               "predicted_ms", res->predicted_ms, "written",
                               res->written ? Py_True : Py_False, "devices", models);
done:
    PyMem_RawFree(res);
    Py_XDECREF(sizes_arr);
    apo_py_args_release(&a);
    return result;
}

PyObject *apo_py_plan(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"kernel", "rows", "cols",  "params", "grid",
                             "ratios", "tag",  "split", NULL};
    const char *kernel = NULL, *tag = NULL;
    Py_ssize_t rows = 0, cols = 0;
    PyObject *params = Py_None, *grid = Py_None, *ratios = Py_None;
    int split = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "snn|OOOzi", kwlist, &kernel, &rows, &cols,
                                     &params, &grid, &ratios, &tag, &split))
        return NULL;
    apo_runtime *rt = apo_py_runtime_for_shape(op, rows, cols);
    if (rt == NULL)
        return NULL;
    apo_py_args a;
    PyObject *ratios_arr = NULL, *result = NULL;
    if (apo_py_args_fill(&a, params, grid) < 0)
        goto done;
    apo_workload w = apo_py_workload_of(kernel, (size_t)rows, (size_t)cols, &a);
    w.tag = tag;
    w.split = (apo_split)split;
    if (apo_py_take_ratios(ratios, &ratios_arr, &w) < 0)
        goto done;
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    apo_status st = apo_plan_workload(rt, &w, &plan);
    if (st != APO_OK)
        apo_py_raise(st);
    else
        result = apo_py_plan_dict(&plan, rt);
done:
    Py_XDECREF(ratios_arr);
    apo_py_args_release(&a);
    return result;
}

PyObject *apo_py_set_ratios(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tag", "ratios", NULL};
    const char *tag = NULL;
    PyObject *ratios = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO!", kwlist, &tag, &PyDict_Type, &ratios))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    Py_ssize_t n = PyDict_Size(ratios);
    if (n > APO_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "%zd ratios; a runtime has at most %d devices", n,
                     APO_MAX_DEVICES);
        return NULL;
    }
    const char *ids[APO_MAX_DEVICES];
    double values[APO_MAX_DEVICES];
    PyObject *key, *value;
    Py_ssize_t pos = 0, i = 0;
    while (PyDict_Next(ratios, &pos, &key, &value)) {
        if (!PyUnicode_Check(key)) {
            PyErr_Format(PyExc_TypeError, "device ids must be str, not %R", key);
            return NULL;
        }
        ids[i] = PyUnicode_AsUTF8(key);
        values[i] = PyFloat_AsDouble(value);
        if (ids[i] == NULL || (values[i] == -1.0 && PyErr_Occurred()))
            return NULL;
        i++;
    }
    apo_status st;
    /* It may wait up to 30 s for the lock of multigpu.json. */
    Py_BEGIN_ALLOW_THREADS
        st = apo_set_ratios(rt, tag, ids, values, (size_t)n);
    Py_END_ALLOW_THREADS
    if (st != APO_OK)
        return apo_py_raise(st);
    Py_RETURN_NONE;
}

PyObject *apo_py_should_use_gpu(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"function", "params", "samples", NULL};
    const char *function = NULL;
    PyObject *params = Py_None;
    unsigned long long samples = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOK", kwlist, &function, &params, &samples))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    apo_py_args a;
    if (apo_py_args_fill(&a, params, Py_None) < 0) {
        apo_py_args_release(&a);
        return NULL;
    }
    int use_gpu = 0;
    apo_status st =
        apo_should_use_gpu(rt, function, a.params, a.n_params, (uint64_t)samples, &use_gpu);
    apo_py_args_release(&a);
    if (st == APO_ERR_NOT_FOUND)
        Py_RETURN_NONE; /* no timings for these parameters: the caller decides */
    if (st != APO_OK)
        return apo_py_raise(st);
    return PyBool_FromLong(use_gpu);
}

static PyObject *nan_as_none(double v) {
    if (isnan(v))
        Py_RETURN_NONE;
    return PyFloat_FromDouble(v);
}

/* Row i of a stored table as a dict; NULL with *st set where the library refused the row,
 * or NULL with the exception set. `scratch` is the caller's. */
typedef PyObject *(*stored_row_fn)(apo_runtime *rt, size_t i, void *scratch, apo_status *st);

/* Every row of one stored table of op's runtime (`count` and `row`: thresholds or profile
 * entries) as a list of dicts; NULL with the exception set. A row gone meanwhile (another
 * writer shrank the table) ends the list there. */
static PyObject *stored_rows(PyObject *op, apo_status (*count)(apo_runtime *, size_t *),
                             stored_row_fn row, void *scratch) {
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    size_t n = 0;
    apo_status st = count(rt, &n);
    if (st != APO_OK)
        return apo_py_raise(st);
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list != NULL && i < n; i++) {
        st = APO_OK;
        PyObject *d = row(rt, i, scratch, &st);
        if (st == APO_ERR_NOT_FOUND)
            break;
        if (st != APO_OK) {
            Py_DECREF(list);
            return apo_py_raise(st);
        }
        if (d == NULL || PyList_Append(list, d) < 0)
            Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

static PyObject *threshold_row(apo_runtime *rt, size_t i, void *scratch, apo_status *st) {
    (void)scratch;
    apo_threshold_info t = APO_THRESHOLD_INFO_INIT;
    *st = apo_threshold_get(rt, i, &t);
    if (*st != APO_OK)
        return NULL;
    return Py_BuildValue("{s:N,s:N,s:N,s:K,s:O}", "key", str_of(t.key), "cpu_ms_avg",
                         nan_as_none(t.cpu_ms_avg), "gpu_ms_avg", nan_as_none(t.gpu_ms_avg),
                         "samples", (unsigned long long)t.samples, "simulated",
                         t.simulated ? Py_True : Py_False);
}

PyObject *apo_py_thresholds(PyObject *op, PyObject *noargs) {
    (void)noargs;
    return stored_rows(op, apo_threshold_count, threshold_row, NULL);
}

/* `scratch` is an apo_profile_entry of the heap: too large for the stack. */
static PyObject *profile_entry_row(apo_runtime *rt, size_t i, void *scratch, apo_status *st) {
    apo_profile_entry *e = scratch;
    memset(e, 0, sizeof *e);
    e->size = sizeof *e;
    *st = apo_profile_entry_get(rt, i, e);
    if (*st != APO_OK)
        return NULL;
    PyObject *models = models_list(e->devices, e->n_devices);
    if (models == NULL)
        return NULL;
    return Py_BuildValue("{s:N,s:s,s:N,s:N,s:K,s:I,s:O,s:N,s:N}", "tag", str_of(e->tag), "source",
                         apo_ratio_source_name(e->source), "updated_at", str_of(e->updated_at),
                         "age_s", nan_as_none(e->age_s), "sample_size",
                         (unsigned long long)e->sample_size, "runs", e->runs, "stale",
                         e->stale ? Py_True : Py_False, "stale_reason", str_of(e->stale_reason),
                         "devices", models);
}

PyObject *apo_py_profile_entries(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_profile_entry *e = PyMem_RawMalloc(sizeof *e);
    if (e == NULL)
        return PyErr_NoMemory();
    PyObject *list = stored_rows(op, apo_profile_entry_count, profile_entry_row, e);
    PyMem_RawFree(e);
    return list;
}

PyObject *apo_py_profile_files(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    apo_profile_files *f = PyMem_RawCalloc(1, sizeof *f);
    if (f == NULL)
        return PyErr_NoMemory();
    f->size = sizeof *f;
    apo_status st = apo_profile_files_get(rt, f);
    PyObject *d = NULL;
    if (st != APO_OK)
        apo_py_raise(st);
    else
        d = Py_BuildValue(
            "{s:N,s:s,s:N,s:O,s:N,s:N,s:N,s:s,s:N,s:N}", "multigpu_path", str_of(f->multigpu_path),
            "multigpu_state", apo_profile_state_name(f->multigpu_state), "multigpu_message",
            str_of(f->multigpu_message), "multigpu_threadx",
            f->multigpu_threadx ? Py_True : Py_False, "host", str_of(f->host), "updated_at",
            str_of(f->updated_at), "thresholds_path", str_of(f->thresholds_path),
            "thresholds_state", apo_profile_state_name(f->thresholds_state), "thresholds_message",
            str_of(f->thresholds_message), "thresholds_updated_at",
            str_of(f->thresholds_updated_at));
    PyMem_RawFree(f);
    return d;
}

PyObject *apo_py_profile_save(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    apo_status st;
    Py_BEGIN_ALLOW_THREADS
        st = apo_profile_save(rt);
    Py_END_ALLOW_THREADS
    if (st != APO_OK)
        return apo_py_raise(st);
    Py_RETURN_NONE;
}

PyObject *apo_py_record_threshold(PyObject *op, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"function", "params", "samples", "cpu_ms", "gpu_ms", NULL};
    const char *function = NULL;
    PyObject *params = Py_None;
    unsigned long long samples = 0;
    double cpu_ms = NAN, gpu_ms = NAN;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOKdd", kwlist, &function, &params, &samples,
                                     &cpu_ms, &gpu_ms))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    apo_py_args a;
    if (apo_py_args_fill(&a, params, Py_None) < 0) {
        apo_py_args_release(&a);
        return NULL;
    }
    apo_status st;
    /* It writes thresholds.json under the file's lock. */
    Py_BEGIN_ALLOW_THREADS
        st = apo_threshold_record(rt, function, a.params, a.n_params, (uint64_t)samples, cpu_ms,
                                  gpu_ms);
    Py_END_ALLOW_THREADS
    apo_py_args_release(&a);
    if (st != APO_OK)
        return apo_py_raise(st);
    Py_RETURN_NONE;
}
