/*
 * apportion._core: the CPython extension over libapportion (docs/python.md). Everything
 * Python-facing that must be fast or must touch C structs lives here; argument sugar
 * (pandas, 1-D inputs, sweeps from ranges) lives in the Python modules beside it.
 *
 * Files: module.c (init), errors.c (apo_status -> exception), runtime_type.c (the Runtime
 * type: create, close, devices, kernels), workload.c (running a workload), report.c (C
 * structs -> dicts), profiles.c (profiling, plans, ratios, thresholds), user_kernels.c
 * (numba cfuncs and Python callables as CPU kernels), stream_type.c (the Stream type over
 * apo_stream_*), stream_group_type.c (the StreamGroup type over apo_stream_group_*),
 * score_positions.c (apo_score_positions() for one series), host_block.c (output arrays
 * in the runtime's pinned host pool).
 */
#ifndef APO_PY_BINDING_H
#define APO_PY_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL apo_py_ARRAY_API
#ifndef APO_PY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <apportion.h>
#include <apportion_cuda.h>

/* A Runtime object. `busy` counts calls that released the GIL with `rt` in use, so that
 * close() (which needs the GIL) never destroys a runtime another thread is inside: the
 * C API forbids destroy racing any other call. `kernels` keeps alive what registered user
 * kernels point to (a numba cfunc, a Python callable) for the runtime's life. */
typedef struct {
    PyObject_HEAD apo_runtime *rt;
    long busy;
    PyObject *kernels;  /* list */
    PyObject *warnings; /* tuple of str, from creation */
    /* The first exception a Python user kernel raised during the current call, kept (under
     * the GIL) to become the __cause__ of the call's KernelFailedError (user_kernels.c). */
    PyObject *kernel_error;
    /* The runtime has a GPU: its calls' output arrays come from the pinned host pool
     * (host_block.c). Set once at creation. */
    int has_gpu;
} apo_py_runtime;

extern PyTypeObject apo_py_runtime_type;
/* stream_type.c: the Stream type (apo_stream_*, docs/python.md "Streams"). Its struct is
 * here because a StreamGroup (stream_group_type.c) feeds the streams it holds. */
typedef struct {
    PyObject_HEAD apo_stream *s;
    /* Held so that the runtime object outlives the stream; its apo_runtime may still be
     * closed under it, which every call checks (the stream refers to the runtime's kernel). */
    apo_py_runtime *runtime;
    PyObject *kernel; /* str */
    /* A rule's stream (apo_stream_desc.score): the rule as given ("rsi_zone",
     * "bands_revert/more"); NULL for the kernel's own outputs. Its params are then those of
     * the scored kernel "<kernel>:<rule>" and its outputs the APO_LIVE_N_OUTPUTS. */
    PyObject *rule;
    PyObject *params; /* dict: name -> float, every parameter of the kernel, resolved */
    /* A sweep: list of such dicts, one a set in the sweep's order; NULL for one set, which
     * keeps an update's outputs without the sets axis. */
    PyObject *sets;
    size_t n_sets; /* 1 without a sweep */
    size_t n_series, n_inputs, n_outputs;
    uint64_t seed;
    /* n_new of the last update (every series the same count), kept so that a stream of one
     * bar at a time does not allocate it on every update. */
    size_t *n_new;
    size_t n_new_fill;
    /* A call is inside the library with the GIL released: one stream serves one thread at a
     * time (the C API's rule), so a second thread is refused rather than let in. */
    int busy;
} apo_py_stream;
extern PyTypeObject apo_py_stream_type;
/* The stream of `self` with its runtime open and no other thread inside it, or NULL with
 * an exception set. */
apo_stream *apo_py_stream_get(apo_py_stream *self);
/* An input of the packed layout: a float64, C-contiguous, aligned numpy array of `count`
 * values; else -1 with an exception naming it as `what` ("input 0", "input close"). */
int apo_py_check_packed(PyObject *o, const char *what, size_t count);
/* stream_group_type.c: the StreamGroup type (apo_stream_group_*, docs/python.md "Groups of
 * streams"). */
extern PyTypeObject apo_py_stream_group_type;
/* arrow_data.c: the ArrowData type and _core.arrow_import(obj) (docs/python.md, "Arrow and
 * polars"). */
extern PyTypeObject apo_py_arrow_type;
PyObject *apo_py_arrow_import(PyObject *module, PyObject *obj);

/* device_array.c: apportion.DeviceArray, float64 values on one GPU of a runtime from
 * apo_cuda_malloc(), owned (docs/python.md, "Device arrays"). */
typedef struct {
    PyObject_HEAD apo_py_runtime *runtime; /* held: the memory is freed through its runtime */
    void *data;
    size_t device; /* index in the runtime's device order */
    int ordinal;   /* its CUDA ordinal, what DLPack names */
    int ndim;      /* 1 or 2 */
    Py_ssize_t shape[2];
} apo_py_device_array;
extern PyTypeObject apo_py_device_array_type;
/* A new DeviceArray of rows x cols (ndim 2) or cols (ndim 1) values, uninitialised. */
PyObject *apo_py_device_array_new(apo_py_runtime *owner, size_t device, int ndim, size_t rows,
                                  size_t cols);
/* Runtime._to_device(array, device): a numpy array copied onto a GPU. */
PyObject *apo_py_to_device(PyObject *op, PyObject *args);

/* device_view.c: an array another library handed in on a GPU, read from its
 * __cuda_array_interface__ or DLPack capsule; `managed` is the DLPack tensor whose deleter
 * apo_py_device_view_release() calls once the call is done with it. */
typedef struct {
    void *data;
    size_t device; /* the runtime's device index of the GPU holding it */
    int ndim;
    size_t rows, cols;
    int readonly;
    void *stream; /* __cuda_array_interface__ v3's stream (a cudaStream_t), NULL: none */
    void *managed;
} apo_py_device_view;
/* Whether `o` is to be read as a device array (no numpy array, an array interface or DLPack). */
int apo_py_is_device_object(PyObject *o);
/* Fills *v from `o` (named `what` i in messages). Returns 0, or -1 with an exception set
 * (the library's APO_ERR_NO_DEVICE without a GPU). */
int apo_py_device_view_take(apo_runtime *rt, PyObject *o, const char *what, Py_ssize_t i,
                            apo_py_device_view *v);
void apo_py_device_view_release(apo_py_device_view *v);

/* host_block.c: the HostBlock type, the base of an output array in a block of the runtime's
 * pinned host pool (docs/host-pool.md). */
extern PyTypeObject apo_py_host_block_type;
/* A new float64 array of `dims` for a call's outputs, uninitialised: in a block of the pool
 * when the runtime has a GPU and the array holds 1 MiB or more, else a plain numpy array. */
PyObject *apo_py_output_array(apo_py_runtime *owner, int ndim, npy_intp *dims);
/* Runtime.host_pool(limit_bytes=None): the pool's figures as a dict, after setting its bound
 * when given (apo_cuda_host_pool_query, apo_cuda_host_pool_limit). */
PyObject *apo_py_host_pool(PyObject *op, PyObject *args, PyObject *kwargs);

/* errors.c: sets the Python exception for a failed status, with apo_last_error()'s text
 * (which must be read on the thread that made the call, before any other apportion call).
 * Returns NULL so that callers can `return apo_py_raise(st);`. */
PyObject *apo_py_raise(apo_status st);
/* Registers the exception classes (status code -> class), from apportion/errors.py. */
PyObject *apo_py_set_error_classes(PyObject *self, PyObject *mapping);
void apo_py_errors_clear(void);

/* user_kernels.c: after a failed call, chains the exception a Python kernel raised in it (if
 * any) as the __cause__ of the exception set for the call; clears what a call left. */
void apo_py_chain_kernel_error(apo_py_runtime *self);

/* runtime_type.c: the runtime of `self`, or NULL with ValueError when it was closed. */
apo_runtime *apo_py_runtime_get(apo_py_runtime *self);
/* The runtime of `op` (as apo_py_runtime_get) for a call over `rows` x `cols`: NULL with
 * ValueError when it was closed or a count is negative. */
apo_runtime *apo_py_runtime_for_shape(PyObject *op, Py_ssize_t rows, Py_ssize_t cols);

/* Parameters and sweeps given as Python objects, held for one C call: the names point into
 * the Python strings they came from, which `refs` keeps alive. */
#define APO_PY_MAX_PARAMS 32
typedef struct {
    apo_param params[APO_PY_MAX_PARAMS];
    size_t n_params;
    apo_sweep_param grid[APO_PY_MAX_PARAMS];
    size_t n_grid;
    apo_sweep sweep;
    PyObject *refs; /* list */
} apo_py_args;

/* workload.c: fills `a` from a {name: value} mapping (or None) and a sequence of
 * (name, values) pairs (or None: no sweep). Returns 0, or -1 with an exception set. */
int apo_py_args_fill(apo_py_args *a, PyObject *params, PyObject *grid);
void apo_py_args_release(apo_py_args *a);
/* workload.c: a workload of `kernel` over rows x cols with the parameters and sweep of `a`
 * (which must outlive it); every other field as APO_WORKLOAD_INIT leaves it. */
apo_workload apo_py_workload_of(const char *kernel, size_t rows, size_t cols, const apo_py_args *a);
/* workload.c: w->ratios and n_ratios from a sequence of shares, or none for None; the array
 * is held in *held (release it after the call). Returns 0, or -1 with an exception set. */
int apo_py_take_ratios(PyObject *ratios, PyObject **held, apo_workload *w);

/* report.c: C structs as dicts. */
PyObject *apo_py_report_dict(const apo_report *r);
PyObject *apo_py_device_info_dict(const apo_device_info *d);
PyObject *apo_py_model_dict(const apo_device_model *m);
PyObject *apo_py_plan_dict(const apo_plan_info *p, const apo_runtime *rt);

/* The Runtime's methods, defined in the file of their concern. */
PyObject *apo_py_run(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_output_shapes(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_time_c_calls(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_profile(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_plan(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_set_ratios(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_should_use_gpu(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_thresholds(PyObject *self, PyObject *noargs);
PyObject *apo_py_profile_entries(PyObject *self, PyObject *noargs);
PyObject *apo_py_profile_files(PyObject *self, PyObject *noargs);
PyObject *apo_py_profile_save(PyObject *self, PyObject *noargs);
PyObject *apo_py_record_threshold(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_register_kernel(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *apo_py_register_rule(PyObject *self, PyObject *args, PyObject *kwargs);
/* score_positions.c: a function of the module, not a method (the fold needs no runtime). */
PyObject *apo_py_score_positions(PyObject *self, PyObject *args, PyObject *kwargs);

#endif
