/* The library's result structs as Python dicts, field for field (docs/api.md names them). */
#include "binding.h"

#include <string.h>

/* Sets d[key] = v and drops v; returns -1 (with the exception set) when v is NULL or the
 * insert fails. */
static int put(PyObject *d, const char *key, PyObject *v) {
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

#define PUT_STR(d, k, v) put(d, k, PyUnicode_DecodeUTF8((v), (Py_ssize_t)strlen(v), "replace"))
#define PUT_F(d, k, v) put(d, k, PyFloat_FromDouble(v))
#define PUT_U(d, k, v) put(d, k, PyLong_FromUnsignedLongLong((unsigned long long)(v)))
#define PUT_I(d, k, v) put(d, k, PyLong_FromLong((long)(v)))
#define PUT_B(d, k, v) put(d, k, PyBool_FromLong((v) != 0))

static PyObject *device_report_dict(const apo_device_report *r) {
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (PUT_STR(d, "id", r->id) || PUT_STR(d, "label", r->label) ||
        PUT_STR(d, "kind", apo_device_kind_name(r->kind)) || PUT_B(d, "simulated", r->simulated) ||
        PUT_F(d, "share", r->share) || PUT_U(d, "elements", r->elements) ||
        PUT_U(d, "tiles", r->tiles) || PUT_U(d, "chunks", r->chunks) ||
        PUT_I(d, "threads_offered", r->threads_offered) || PUT_F(d, "wall_ms", r->wall_ms) ||
        PUT_F(d, "h2d_ms", r->h2d_ms) || PUT_F(d, "kernel_ms", r->kernel_ms) ||
        PUT_F(d, "d2h_ms", r->d2h_ms) || PUT_F(d, "host_copy_ms", r->host_copy_ms) ||
        PUT_F(d, "first_touch_ms", r->first_touch_ms) || PUT_F(d, "overlap", r->overlap) ||
        PUT_F(d, "wait_ms", r->wait_ms) || PUT_F(d, "throughput", r->throughput) ||
        PUT_B(d, "failed", r->failed) || PUT_B(d, "deadline_missed", r->deadline_missed) ||
        PUT_F(d, "deadline_ms", r->deadline_ms) || PUT_STR(d, "failure", r->failure) ||
        PUT_U(d, "elements_moved_out", r->elements_moved_out) ||
        PUT_U(d, "elements_moved_in", r->elements_moved_in) ||
        PUT_B(d, "quarantined", r->quarantined) ||
        PUT_STR(d, "quarantine_reason", r->quarantine_reason) ||
        PUT_STR(d, "no_share_reason", r->no_share_reason)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *apo_py_report_dict(const apo_report *r) {
    PyObject *devices = PyList_New((Py_ssize_t)r->n_devices);
    if (devices == NULL)
        return NULL;
    for (size_t i = 0; i < r->n_devices; i++) {
        PyObject *dev = device_report_dict(&r->devices[i]);
        if (dev == NULL) {
            Py_DECREF(devices);
            return NULL;
        }
        PyList_SET_ITEM(devices, (Py_ssize_t)i, dev);
    }
    PyObject *d = PyDict_New();
    if (d == NULL || PUT_STR(d, "kernel", r->kernel) || PUT_U(d, "rows", r->rows) ||
        PUT_U(d, "cols", r->cols) || PUT_U(d, "seed", r->seed) ||
        PUT_U(d, "elements", r->elements) || PUT_U(d, "sets", r->sets) ||
        PUT_U(d, "first_set", r->first_set) || PUT_U(d, "sweep_sets", r->sweep_sets) ||
        PUT_STR(d, "split_axis", apo_split_name(r->split_axis)) ||
        PUT_STR(d, "ratio_source", apo_ratio_source_name(r->ratio_source)) ||
        PUT_U(d, "tile", r->tile) || PUT_U(d, "tiles", r->tiles) ||
        PUT_F(d, "makespan_ms", r->makespan_ms) ||
        PUT_F(d, "balance_efficiency", r->balance_efficiency) ||
        PUT_B(d, "simulated", r->simulated) || PUT_B(d, "virtual_clock", r->virtual_clock) ||
        PUT_STR(d, "gather", apo_gather_name(r->gather)) || PUT_F(d, "gather_ms", r->gather_ms) ||
        PUT_U(d, "failovers", r->failovers) || PUT_U(d, "deadlines_missed", r->deadlines_missed) ||
        PUT_U(d, "quarantined", r->quarantined) ||
        PUT_U(d, "nonfinite_outputs", r->nonfinite_outputs)) {
        Py_XDECREF(d);
        Py_DECREF(devices);
        return NULL;
    }
    if (put(d, "devices", devices) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *apo_py_device_info_dict(const apo_device_info *i) {
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (PUT_STR(d, "id", i->id) || PUT_STR(d, "label", i->label) ||
        PUT_STR(d, "kind", apo_device_kind_name(i->kind)) || PUT_I(d, "threads", i->threads) ||
        PUT_U(d, "memory_total_bytes", i->memory_total_bytes) ||
        PUT_U(d, "memory_free_bytes", i->memory_free_bytes) ||
        PUT_I(d, "compute_capability_major", i->compute_capability_major) ||
        PUT_I(d, "compute_capability_minor", i->compute_capability_minor) ||
        PUT_I(d, "multiprocessors", i->multiprocessors) ||
        PUT_I(d, "copy_engines", i->copy_engines) || PUT_STR(d, "pci_bus_id", i->pci_bus_id) ||
        PUT_F(d, "sim_rate", i->sim_rate) || PUT_F(d, "sim_latency_s", i->sim_latency_s) ||
        PUT_I(d, "mpi_rank", i->mpi_rank) || PUT_STR(d, "host", i->host) ||
        PUT_STR(d, "config", i->config)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *apo_py_model_dict(const apo_device_model *m) {
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    if (PUT_STR(d, "id", m->id) || PUT_STR(d, "label", m->label) || PUT_B(d, "valid", m->valid) ||
        PUT_F(d, "latency_ms", m->latency_ms) || PUT_F(d, "ms_per_melem", m->ms_per_melem) ||
        PUT_F(d, "ratio", m->ratio) || PUT_U(d, "samples", m->samples) ||
        PUT_U(d, "dropped", m->dropped)) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

PyObject *apo_py_plan_dict(const apo_plan_info *p, const apo_runtime *rt) {
    PyObject *shares = PyDict_New();
    PyObject *elements = PyDict_New();
    for (size_t i = 0; shares != NULL && elements != NULL && i < p->n_devices; i++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        if (apo_device_get(rt, i, &info) != APO_OK) {
            Py_CLEAR(shares);
            apo_py_raise(APO_ERR_INTERNAL);
            break;
        }
        if (PUT_F(shares, info.id, p->shares[i]) || PUT_U(elements, info.id, p->device_elements[i]))
            Py_CLEAR(shares);
    }
    PyObject *d = NULL;
    if (shares != NULL && elements != NULL) {
        d = PyDict_New();
        if (d != NULL &&
            (PUT_STR(d, "ratio_source", apo_ratio_source_name(p->ratio_source)) ||
             PUT_STR(d, "split_axis", apo_split_name(p->split_axis)) ||
             PUT_F(d, "predicted_ms", p->predicted_ms) || PUT_U(d, "elements", p->elements) ||
             PUT_U(d, "sets", p->sets) || PUT_U(d, "first_set", p->first_set) ||
             PUT_U(d, "sweep_sets", p->sweep_sets) || PyDict_SetItemString(d, "shares", shares) ||
             PyDict_SetItemString(d, "device_elements", elements)))
            Py_CLEAR(d);
    }
    Py_XDECREF(shares);
    Py_XDECREF(elements);
    return d;
}
