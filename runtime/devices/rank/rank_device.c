/*
 * The rank device: another MPI rank seen from rank 0 (docs/cluster.md). A task is a message
 * with the kernel, its parameters, the tile range and the input elements those tiles read;
 * the rank computes the tiles on its own devices and sends back the outputs they wrote and
 * their partials. The tile grid is rank 0's, so the bits are those of a local run.
 *
 * Both directions go through buffers of this device, never the caller's arrays: a rank that
 * stops answering is given up at the deadline while its messages may still be in flight,
 * and MPI must then neither read an input the caller has freed nor write a late reply into
 * outputs that other devices have recomputed. Such a rank is dead for the runtime's life;
 * its buffers stay with the exchange until apo__cluster_leave() drains or abandons it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "catalog/call_span.h"
#include "devices/rank/mpi_link.h"
#include "devices/rank/rank_device.h"

enum { EXCHANGE_IDLE = 0, EXCHANGE_AWAIT_REPLY, EXCHANGE_AWAIT_DATA };

typedef struct rank_state {
    int rank;
    double timeout_s;
    int dead; /* stopped answering: no more tasks */
    uint64_t next_task;
    /* The exchange in flight (at most one per rank). */
    int phase;
    apo__task_header task;
    apo__reply_header reply;
    double *in_buf, *out_buf;
    size_t in_cap, out_cap, out_count;
    MPI_Request sends[3]; /* task header, input blocks, input rest */
    MPI_Request reply_req;
    MPI_Request data[2];
} rank_state;

static int grow(double **buf, size_t *cap, size_t need) {
    if (need <= *cap)
        return 1;
    double *b = realloc(*buf, need * sizeof(double));
    if (b == NULL)
        return 0;
    *buf = b;
    *cap = need;
    return 1;
}

static void mark_dead(apo__device *dev, rank_state *st, const char *why) {
    st->dead = 1;
    apo__log(APO_LOG_WARN, APO_SUBSYS_RUN,
             "%s %s; its tiles go to the other devices and it gets no more tasks", dev->info.id,
             why);
}

/* Posts the receive of the reply's data once the reply said the task succeeded. */
static int post_data(rank_state *st) {
    apo__mpi_lock();
    int rc = apo__mpi_irecv_doubles(st->out_buf, st->out_count, st->rank, APO_TAG_OUTPUT, st->data);
    apo__mpi_unlock();
    st->phase = EXCHANGE_AWAIT_DATA;
    return rc == MPI_SUCCESS;
}

static apo_status rank_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                           uint64_t task_index, apo__task_time *time) {
    (void)task_index;
    rank_state *st = dev->state;
    if (st->dead)
        return APO_ERR_DEVICE_LOST;
    /* A live rank has no exchange left over: each ends answered, or the rank is dead. */
    assert(st->phase == EXCHANGE_IDLE);
    /* Reading the call, and later writing its results, are accesses under the task guard
     * (device.h): the waits for the rank in between are not, so a rank that outlives the
     * call's deadline can be abandoned, and then never touches the caller's arrays. */
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST;
    const apo__kernel *k = call->kernel;
    apo__call_span span;
    apo__call_span_of(call, first, end, &span);
    size_t in_len = span.in_hi - span.in_lo, out_len = span.out_hi - span.out_lo;
    size_t plen = k->partial_len;
    size_t in_count = k->n_inputs * in_len;
    st->out_count = span.n_written * out_len + (size_t)(end - first) * plen;
    if (!grow(&st->in_buf, &st->in_cap, in_count) ||
        !grow(&st->out_buf, &st->out_cap, st->out_count)) {
        apo__task_leave_call(&dev->guard);
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "%s: no memory to stage %zu + %zu doubles",
                 dev->info.id, in_count, st->out_count);
        return APO_ERR_DEVICE_LOST;
    }

    double t0 = apo__now();
    for (size_t i = 0; i < k->n_inputs; i++)
        memcpy(st->in_buf + i * in_len, call->inputs[i] + span.in_lo, in_len * sizeof(double));
    apo__task_header *h = &st->task;
    memset(h, 0, sizeof *h);
    h->op = APO_OP_TASK;
    h->task_id = ++st->next_task;
    snprintf(h->kernel, sizeof h->kernel, "%s", k->name);
    /* The server's own models learn its local split under the caller's workload tag, and
     * only when the caller's call learns (apo_workload.learn, --no-learn). */
    snprintf(h->tag, sizeof h->tag, "%s", call->ctx->tag != NULL ? call->ctx->tag : k->name);
    h->learn = call->ctx->learn != 0;
    h->n_params = (uint32_t)k->n_params;
    memcpy(h->params, call->params, sizeof h->params);
    h->rows = call->rows;
    h->cols = call->cols;
    h->seed = call->seed;
    h->first = first;
    h->end = end;
    h->tile = call->tile;
    h->tiles = call->tiles;
    h->in_lo = span.in_lo;
    h->in_hi = span.in_hi;
    h->out_lo = span.out_lo;
    h->out_hi = span.out_hi;
    h->n_inputs = k->n_inputs;
    h->n_written = span.n_written;
    h->partial_len = plen;
    apo__task_leave_call(&dev->guard);

    apo__mpi_lock();
    int rc = MPI_Isend(h, (int)sizeof *h, MPI_BYTE, st->rank, APO_TAG_TASK, apo__mpi_comm(),
                       &st->sends[0]);
    if (rc == MPI_SUCCESS)
        rc = apo__mpi_isend_doubles(st->in_buf, in_count, st->rank, APO_TAG_INPUT, &st->sends[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Irecv(&st->reply, (int)sizeof st->reply, MPI_BYTE, st->rank, APO_TAG_REPLY,
                       apo__mpi_comm(), &st->reply_req);
    apo__mpi_unlock();
    st->phase = EXCHANGE_AWAIT_REPLY;
    if (rc != MPI_SUCCESS) {
        mark_dead(dev, st, "could not be sent its task (MPI error)");
        return APO_ERR_DEVICE_LOST;
    }

    double deadline = t0 + st->timeout_s;
    int sent = apo__mpi_wait(st->sends, 3, deadline, APO_MPI_WAIT_TRANSFER,
                             sizeof *h + in_count * sizeof(double));
    double t_sent = apo__now();
    int replied =
        sent == 1 ? apo__mpi_wait(&st->reply_req, 1, deadline, APO_MPI_WAIT_IDLE, 0) : sent;
    double t_reply = apo__now();
    if (replied != 1) {
        mark_dead(dev, st, replied == 0 ? "did not answer in time" : "failed in MPI");
        return APO_ERR_DEVICE_LOST;
    }
    if (st->reply.task_id != h->task_id) {
        mark_dead(dev, st, "answered another task (protocol error)");
        return APO_ERR_DEVICE_LOST;
    }
    if (st->reply.status != APO_OK) {
        st->phase = EXCHANGE_IDLE;
        st->reply.message[sizeof st->reply.message - 1] = '\0';
        apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "%s: task over tiles [%llu, %llu) failed there: %s",
                 dev->info.id, (unsigned long long)first, (unsigned long long)end,
                 st->reply.message);
        /* A user kernel's own failure fails the call as it would locally; anything else
         * (its devices all failed, the kernel is not registered there) moves the tiles. */
        return st->reply.status == APO_ERR_KERNEL_FAILED ? APO_ERR_KERNEL_FAILED
                                                         : APO_ERR_DEVICE_LOST;
    }
    int received = post_data(st)
                       ? apo__mpi_wait(st->data, 2, apo__now() + st->timeout_s,
                                       APO_MPI_WAIT_TRANSFER, st->out_count * sizeof(double))
                       : -1;
    if (received != 1) {
        mark_dead(dev, st, received == 0 ? "did not send its results in time" : "failed in MPI");
        return APO_ERR_DEVICE_LOST;
    }
    st->phase = EXCHANGE_IDLE;
    if (!apo__task_enter_call(&dev->guard))
        return APO_ERR_DEVICE_LOST; /* abandoned while the rank worked: its results are dropped */
    for (size_t o = 0; o < span.n_written; o++)
        memcpy(call->outputs[o] + span.out_lo, st->out_buf + o * out_len, out_len * sizeof(double));
    if (plen > 0)
        memcpy(call->partials + first * plen, st->out_buf + span.n_written * out_len,
               (size_t)(end - first) * plen * sizeof(double));
    apo__task_leave_call(&dev->guard);
    double t_end = apo__now();

    if (dev->virtual_clock) {
        /* Its devices are all simulated on the virtual clock: report their modelled time,
         * as a local sim device would, and leave the transfers out of the model. */
        time->kernel_s = st->reply.compute_s;
        time->h2d_s = time->d2h_s = 0;
    } else {
        time->h2d_s = t_sent - t0;
        time->kernel_s = t_reply - t_sent;
        time->d2h_s = t_end - t_reply;
    }
    return APO_OK;
}

/* A rank's share is cut into a few tasks, as a sim device's is: a rank lost mid-share then
 * loses only the task in flight, and the tasks already answered stay. */
#define APO_RANK_TASKS_PER_RUN 4

static uint64_t rank_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev;
    return tiles < APO_RANK_TASKS_PER_RUN ? tiles : APO_RANK_TASKS_PER_RUN;
}

static void cancel_all(MPI_Request *reqs, int n) {
    for (int i = 0; i < n; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        MPI_Cancel(&reqs[i]);
        MPI_Request_free(&reqs[i]);
    }
}

int apo__rank_device_drain(apo__device *dev, double deadline) {
    rank_state *st = dev->state;
    if (st->phase == EXCHANGE_IDLE)
        return 1;
    /* Let the late exchange finish into this device's buffers, then drop it. */
    int ok = apo__mpi_wait(st->sends, 3, deadline, APO_MPI_WAIT_IDLE, 0) == 1;
    if (ok && st->phase == EXCHANGE_AWAIT_REPLY) {
        ok = apo__mpi_wait(&st->reply_req, 1, deadline, APO_MPI_WAIT_IDLE, 0) == 1;
        if (ok && st->reply.status == APO_OK)
            ok = post_data(st);
        else if (ok)
            st->phase = EXCHANGE_IDLE;
    }
    if (ok && st->phase == EXCHANGE_AWAIT_DATA)
        ok = apo__mpi_wait(st->data, 2, deadline, APO_MPI_WAIT_TRANSFER,
                           st->out_count * sizeof(double)) == 1;
    if (ok) {
        st->phase = EXCHANGE_IDLE;
        return 1;
    }
    apo__mpi_lock();
    cancel_all(st->sends, 3);
    cancel_all(&st->reply_req, 1);
    cancel_all(st->data, 2);
    apo__mpi_unlock();
    return 0;
}

static void rank_close(apo__device *dev) {
    rank_state *st = dev->state;
    if (st == NULL)
        return;
    /* An exchange that never finished may still be read or written by MPI after its
     * requests were freed: its buffers (and the headers in `st`) are kept, not freed. */
    if (st->phase == EXCHANGE_IDLE) {
        free(st->in_buf);
        free(st->out_buf);
        free(st);
    } else {
        apo__mpi_keep(st->in_buf);
        apo__mpi_keep(st->out_buf);
        apo__mpi_keep(st);
    }
    dev->state = NULL;
}

static const apo__backend_ops rank_ops = {rank_run, rank_task_count, rank_close,
                                          APO_RUNS_SHARED_NONE};

int apo__rank_device_rank(const apo__device *dev) { return ((const rank_state *)dev->state)->rank; }

apo_status apo__rank_device_open(apo__device *dev, int rank, const apo__hello *hello,
                                 double timeout_s) {
    rank_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return APO_ERR_OUT_OF_MEMORY;
    st->rank = rank;
    st->timeout_s = timeout_s;
    st->sends[0] = st->sends[1] = st->sends[2] = MPI_REQUEST_NULL;
    st->reply_req = st->data[0] = st->data[1] = MPI_REQUEST_NULL;
    dev->state = st;
    dev->ops = &rank_ops;
    dev->virtual_clock = hello->all_virtual;
    dev->simulated = hello->any_sim;
    dev->info.kind = APO_DEVICE_RANK;
    dev->info.mpi_rank = rank;
    dev->info.rank_devices = hello->n_devices;
    snprintf(dev->info.host, sizeof dev->info.host, "%.*s", (int)sizeof hello->host - 1,
             hello->host);
    snprintf(dev->info.id, sizeof dev->info.id, "rank:%d@%.48s", rank, dev->info.host);
    snprintf(dev->info.label, sizeof dev->info.label, "rank:%d %.40s (%.70s)", rank, dev->info.host,
             hello->devices);
    /* What the rank computes with: its devices as it summarised them (the cpu's label
     * carries its threads and vector path). */
    snprintf(dev->info.config, sizeof dev->info.config, "devices=%.*s",
             (int)sizeof dev->info.config - 9, hello->devices);
    dev->info.memory_total_bytes = hello->memory_total_bytes;
    dev->info.memory_free_bytes = hello->memory_free_bytes;
    return APO_OK;
}
