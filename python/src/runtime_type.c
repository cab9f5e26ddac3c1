/* The Runtime type: apo_runtime_create() from keyword arguments (apo_config's fields),
 * close(), the context manager, and the read-only queries (devices, kernels, warnings). */
#include "binding.h"

#include <string.h>

apo_runtime *apo_py_runtime_get(apo_py_runtime *self) {
    if (self->rt == NULL) {
        PyErr_SetString(PyExc_ValueError, "this apportion Runtime is closed");
        return NULL;
    }
    return self->rt;
}

apo_runtime *apo_py_runtime_for_shape(PyObject *op, Py_ssize_t rows, Py_ssize_t cols) {
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    if (rows < 0 || cols < 0) {
        PyErr_SetString(PyExc_ValueError, "rows and cols must be >= 0");
        return NULL;
    }
    return rt;
}

/* None -> UNSET; True/"on" -> ON; False/"off" -> OFF. */
static int parse_switch(PyObject *o, const char *field, apo_switch *out) {
    if (o == NULL || o == Py_None) {
        *out = APO_SWITCH_UNSET;
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = o == Py_True ? APO_SWITCH_ON : APO_SWITCH_OFF;
        return 0;
    }
    if (PyUnicode_Check(o)) {
        if (PyUnicode_CompareWithASCIIString(o, "on") == 0) {
            *out = APO_SWITCH_ON;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(o, "off") == 0) {
            *out = APO_SWITCH_OFF;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "%s must be None, True, False, 'on' or 'off', not %R", field, o);
    return -1;
}

static int parse_use_gpu(PyObject *o, apo_use_gpu *out) {
    static const struct {
        const char *name;
        apo_use_gpu value;
    } names[] = {{"auto", APO_USE_GPU_AUTO}, {"yes", APO_USE_GPU_YES}, {"no", APO_USE_GPU_NO}};
    if (o == NULL || o == Py_None) {
        *out = APO_USE_GPU_UNSET;
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = o == Py_True ? APO_USE_GPU_YES : APO_USE_GPU_NO;
        return 0;
    }
    for (size_t i = 0; PyUnicode_Check(o) && i < sizeof names / sizeof names[0]; i++)
        if (PyUnicode_CompareWithASCIIString(o, names[i].name) == 0) {
            *out = names[i].value;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "use_gpu must be None, True, False, 'auto', 'yes' or 'no', not %R", o);
    return -1;
}

static int parse_sim_clock(PyObject *o, apo_sim_clock *out) {
    if (o == NULL || o == Py_None) {
        *out = APO_SIM_CLOCK_UNSET;
        return 0;
    }
    if (PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, "wall") == 0) {
        *out = APO_SIM_CLOCK_WALL;
        return 0;
    }
    if (PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, "virtual") == 0) {
        *out = APO_SIM_CLOCK_VIRTUAL;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "sim_clock must be None, 'wall' or 'virtual', not %R", o);
    return -1;
}

/* A str or os.PathLike (or None) as UTF-8/filesystem bytes kept in `refs`. */
static int parse_text(PyObject *o, PyObject *refs, const char **out) {
    *out = NULL;
    if (o == NULL || o == Py_None)
        return 0;
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(o, &bytes))
        return -1;
    int rc = PyList_Append(refs, bytes);
    *out = PyBytes_AS_STRING(bytes);
    Py_DECREF(bytes);
    return rc;
}

static void runtime_destroy_now(apo_py_runtime *self) {
    apo_runtime *rt = self->rt;
    self->rt = NULL;
    if (rt != NULL) {
        /* Destroy may wait for a worker and for the profile lock: let other threads run. */
        Py_BEGIN_ALLOW_THREADS
            apo_runtime_destroy(rt);
        Py_END_ALLOW_THREADS
    }
}

static int runtime_init(PyObject *op, PyObject *args, PyObject *kwargs) {
    apo_py_runtime *self = (apo_py_runtime *)op;
    static char *kwlist[] = {"devices",
                             "cpu_threads",
                             "use_gpu",
                             "sim_clock",
                             "multigpu_path",
                             "thresholds_path",
                             "profiles",
                             "learn",
                             "persist_interval_s",
                             "gpu_memory_mb",
                             "nccl",
                             "mpi",
                             "mpi_timeout_s",
                             "deadline_factor",
                             "deadline_floor_s",
                             "quarantine_after",
                             NULL};
    PyObject *devices = NULL, *use_gpu = NULL, *sim_clock = NULL, *multigpu_path = NULL,
             *thresholds_path = NULL, *profiles = NULL, *learn = NULL, *nccl = NULL, *mpi = NULL;
    int cpu_threads = 0;
    double persist = 0, mpi_timeout = 0, deadline_factor = 0, deadline_floor = 0;
    Py_ssize_t gpu_memory_mb = 0;
    unsigned int quarantine_after = 0;
    if (self->rt != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Runtime.__init__ called twice");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$iOOOOOOdnOOdddI", kwlist, &devices,
                                     &cpu_threads, &use_gpu, &sim_clock, &multigpu_path,
                                     &thresholds_path, &profiles, &learn, &persist, &gpu_memory_mb,
                                     &nccl, &mpi, &mpi_timeout, &deadline_factor, &deadline_floor,
                                     &quarantine_after))
        return -1;
    if (gpu_memory_mb < 0) {
        PyErr_SetString(PyExc_ValueError, "gpu_memory_mb must be >= 0");
        return -1;
    }
    apo_config cfg = APO_CONFIG_INIT;
    PyObject *refs = PyList_New(0);
    if (refs == NULL)
        return -1;
    if (parse_text(devices, refs, &cfg.devices) < 0 || parse_use_gpu(use_gpu, &cfg.use_gpu) < 0 ||
        parse_sim_clock(sim_clock, &cfg.sim_clock) < 0 ||
        parse_text(multigpu_path, refs, &cfg.multigpu_path) < 0 ||
        parse_text(thresholds_path, refs, &cfg.thresholds_path) < 0 ||
        parse_switch(profiles, "profiles", &cfg.profiles) < 0 ||
        parse_switch(learn, "learn", &cfg.learn) < 0 || parse_switch(nccl, "nccl", &cfg.nccl) < 0 ||
        parse_switch(mpi, "mpi", &cfg.mpi) < 0) {
        Py_DECREF(refs);
        return -1;
    }
    cfg.cpu_threads = cpu_threads;
    cfg.persist_interval_s = persist;
    cfg.gpu_memory_mb = (size_t)gpu_memory_mb;
    cfg.mpi_timeout_s = mpi_timeout;
    cfg.deadline_factor = deadline_factor;
    cfg.deadline_floor_s = deadline_floor;
    cfg.quarantine_after = quarantine_after;

    apo_runtime *rt = NULL;
    apo_status st;
    Py_BEGIN_ALLOW_THREADS
        st = apo_runtime_create(&cfg, &rt);
    Py_END_ALLOW_THREADS
    Py_DECREF(refs);
    if (st != APO_OK) {
        apo_py_raise(st);
        return -1;
    }
    size_t n_warnings = 0;
    (void)apo_runtime_warning_count(rt, &n_warnings);
    PyObject *warnings = PyTuple_New((Py_ssize_t)n_warnings);
    for (size_t i = 0; warnings != NULL && i < n_warnings; i++) {
        const char *text = "";
        (void)apo_runtime_warning(rt, i, &text);
        PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
        if (s == NULL)
            Py_CLEAR(warnings);
        else
            PyTuple_SET_ITEM(warnings, (Py_ssize_t)i, s);
    }
    if (warnings == NULL) {
        apo_runtime_destroy(rt);
        return -1;
    }
    self->rt = rt;
    size_t n_gpus = 0;
    self->has_gpu = apo_gpu_count(rt, &n_gpus) == APO_OK && n_gpus > 0;
    Py_XSETREF(self->warnings, warnings);
    return 0;
}

static PyObject *runtime_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    (void)args;
    (void)kwargs;
    apo_py_runtime *self = (apo_py_runtime *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->kernels = PyList_New(0);
    self->warnings = PyTuple_New(0);
    if (self->kernels == NULL || self->warnings == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void runtime_dealloc(PyObject *op) {
    apo_py_runtime *self = (apo_py_runtime *)op;
    /* No call can be inside: each holds a reference to self while it runs. */
    runtime_destroy_now(self);
    Py_CLEAR(self->kernels);
    Py_CLEAR(self->warnings);
    Py_CLEAR(self->kernel_error);
    Py_TYPE(op)->tp_free(op);
}

static PyObject *runtime_close(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_py_runtime *self = (apo_py_runtime *)op;
    if (self->busy > 0) {
        PyErr_SetString(
            PyExc_RuntimeError,
            "Runtime.close(): calls on this runtime are still running in other threads");
        return NULL;
    }
    runtime_destroy_now(self);
    Py_RETURN_NONE;
}

static PyObject *runtime_enter(PyObject *op, PyObject *noargs) {
    (void)noargs;
    if (apo_py_runtime_get((apo_py_runtime *)op) == NULL)
        return NULL;
    Py_INCREF(op);
    return op;
}

static PyObject *runtime_exit(PyObject *op, PyObject *args) {
    (void)args;
    PyObject *r = runtime_close(op, NULL);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

static PyObject *runtime_devices(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    size_t n = 0;
    apo_status st = apo_device_count(rt, &n);
    if (st != APO_OK)
        return apo_py_raise(st);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list != NULL && i < n; i++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        st = apo_device_get(rt, i, &info);
        if (st != APO_OK) {
            Py_DECREF(list);
            return apo_py_raise(st);
        }
        PyObject *d = apo_py_device_info_dict(&info);
        if (d == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, d);
    }
    return list;
}

static PyObject *runtime_kernels(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    size_t n = 0;
    apo_status st = apo_kernel_count(rt, &n);
    if (st != APO_OK)
        return apo_py_raise(st);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list != NULL && i < n; i++) {
        const char *name = NULL;
        st = apo_kernel_name(rt, i, &name);
        if (st != APO_OK) {
            Py_DECREF(list);
            return apo_py_raise(st);
        }
        PyObject *s = PyUnicode_FromString(name);
        if (s == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, s);
    }
    return list;
}

static PyObject *runtime_kernel_info(PyObject *op, PyObject *args) {
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    apo_status st = apo_kernel_get(rt, name, &info);
    if (st != APO_OK)
        return apo_py_raise(st);
    PyObject *inputs = PyTuple_New((Py_ssize_t)info.n_inputs);
    for (size_t i = 0; inputs != NULL && i < info.n_inputs; i++) {
        PyObject *s = PyUnicode_FromString(info.input_names[i]);
        if (s == NULL) {
            Py_CLEAR(inputs);
            break;
        }
        PyTuple_SET_ITEM(inputs, (Py_ssize_t)i, s);
    }
    PyObject *outputs = PyTuple_New((Py_ssize_t)info.n_outputs);
    PyObject *params = PyDict_New();
    /* Each parameter's accepted range and whether it is a whole number, so that Python's
     * functions of the catalog state them (apportion/catalog.py). */
    PyObject *bounds = PyDict_New();
    for (size_t i = 0; outputs != NULL && i < info.n_outputs; i++) {
        PyObject *s = PyUnicode_FromString(info.output_names[i]);
        if (s == NULL) {
            Py_CLEAR(outputs);
            break;
        }
        PyTuple_SET_ITEM(outputs, (Py_ssize_t)i, s);
    }
    for (size_t i = 0; params != NULL && i < info.n_params; i++) {
        PyObject *v = PyFloat_FromDouble(info.param_defaults[i]);
        if (v == NULL || PyDict_SetItemString(params, info.param_names[i], v) < 0)
            Py_CLEAR(params);
        Py_XDECREF(v);
    }
    for (size_t i = 0; bounds != NULL && i < info.n_params; i++) {
        PyObject *b = Py_BuildValue("(ddO)", info.param_min[i], info.param_max[i],
                                    info.param_integer[i] ? Py_True : Py_False);
        if (b == NULL || PyDict_SetItemString(bounds, info.param_names[i], b) < 0)
            Py_CLEAR(bounds);
        Py_XDECREF(b);
    }
    PyObject *r = NULL;
    if (inputs != NULL && outputs != NULL && params != NULL && bounds != NULL)
        r = Py_BuildValue("{s:s,s:O,s:n,s:O,s:O,s:O,s:O}", "name", info.name, "builtin",
                          info.builtin ? Py_True : Py_False, "n_inputs", (Py_ssize_t)info.n_inputs,
                          "inputs", inputs, "outputs", outputs, "params", params, "bounds", bounds);
    Py_XDECREF(inputs);
    Py_XDECREF(outputs);
    Py_XDECREF(params);
    Py_XDECREF(bounds);
    return r;
}

static PyObject *runtime_gpu_count(PyObject *op, PyObject *noargs) {
    (void)noargs;
    apo_runtime *rt = apo_py_runtime_get((apo_py_runtime *)op);
    if (rt == NULL)
        return NULL;
    size_t n = 0;
    apo_status st = apo_gpu_count(rt, &n);
    if (st != APO_OK)
        return apo_py_raise(st);
    return PyLong_FromSize_t(n);
}

static PyObject *runtime_get_warnings(PyObject *op, void *closure) {
    (void)closure;
    apo_py_runtime *self = (apo_py_runtime *)op;
    Py_INCREF(self->warnings);
    return self->warnings;
}

static PyObject *runtime_get_closed(PyObject *op, void *closure) {
    (void)closure;
    return PyBool_FromLong(((apo_py_runtime *)op)->rt == NULL);
}

static PyMethodDef runtime_methods[] = {
    {"close", runtime_close, METH_NOARGS,
     "Destroys the runtime (apo_runtime_destroy()); later calls raise ValueError."},
    {"__enter__", runtime_enter, METH_NOARGS, NULL},
    {"__exit__", runtime_exit, METH_VARARGS, NULL},
    {"devices", runtime_devices, METH_NOARGS, "The devices, in device order, as dicts."},
    {"kernels", runtime_kernels, METH_NOARGS, "Kernel names: built-ins, then registered ones."},
    {"kernel_info", runtime_kernel_info, METH_VARARGS,
     "kernel_info(name) -> {name, builtin, n_inputs, inputs, outputs, params: {name: default}, "
     "bounds: {name: (min, max, integer)}}; the name in any case."},
    {"gpu_count", runtime_gpu_count, METH_NOARGS, "GPUs found and usable."},
    {"host_pool", (PyCFunction)(void (*)(void))apo_py_host_pool, METH_VARARGS | METH_KEYWORDS,
     "host_pool(limit_bytes=None) -> dict: the pinned host pool that output arrays come from "
     "(apo_cuda_host_pool_query; limit_bytes sets its bound first). NoDeviceError without a "
     "GPU."},
    {"_run", (PyCFunction)(void (*)(void))apo_py_run, METH_VARARGS | METH_KEYWORDS,
     "Low-level workload call (apportion.Runtime.distribute wraps it)."},
    {"_to_device", apo_py_to_device, METH_VARARGS,
     "_to_device(array, device) -> DeviceArray: a copy on runtime device `device`."},
    {"_output_shapes", (PyCFunction)(void (*)(void))apo_py_output_shapes,
     METH_VARARGS | METH_KEYWORDS, "Shapes (rows, cols) of a workload's outputs."},
    {"_time_c_calls", (PyCFunction)(void (*)(void))apo_py_time_c_calls,
     METH_VARARGS | METH_KEYWORDS,
     "Seconds per apo_distribute_workload() in a C loop (the bench)."},
    {"_profile", (PyCFunction)(void (*)(void))apo_py_profile, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_plan", (PyCFunction)(void (*)(void))apo_py_plan, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_set_ratios", (PyCFunction)(void (*)(void))apo_py_set_ratios, METH_VARARGS | METH_KEYWORDS,
     NULL},
    {"_should_use_gpu", (PyCFunction)(void (*)(void))apo_py_should_use_gpu,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_thresholds", apo_py_thresholds, METH_NOARGS, NULL},
    {"_profile_entries", apo_py_profile_entries, METH_NOARGS, NULL},
    {"_profile_files", apo_py_profile_files, METH_NOARGS, NULL},
    {"_profile_save", apo_py_profile_save, METH_NOARGS, NULL},
    {"_record_threshold", (PyCFunction)(void (*)(void))apo_py_record_threshold,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_register_kernel", (PyCFunction)(void (*)(void))apo_py_register_kernel,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_register_rule", (PyCFunction)(void (*)(void))apo_py_register_rule,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef runtime_getset[] = {
    {"warnings", runtime_get_warnings, NULL, "Warnings gathered while the runtime was created.",
     NULL},
    {"closed", runtime_get_closed, NULL, "True once close() ran.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject apo_py_runtime_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "apportion._core.Runtime",
    .tp_basicsize = sizeof(apo_py_runtime),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A libapportion runtime (apo_runtime_create()); apportion.Runtime wraps it.",
    .tp_new = runtime_new,
    .tp_init = runtime_init,
    .tp_dealloc = runtime_dealloc,
    .tp_methods = runtime_methods,
    .tp_getset = runtime_getset,
};
