/*
 * A serving rank (docs/cluster.md): takes rank 0's tasks one at a time, computes each run of
 * tiles on this runtime's devices (the runner it is handed) and answers with the outputs the
 * tiles wrote and their partials, until rank 0 says goodbye.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/log.h"
#include "catalog/call_span.h"
#include "cluster/cluster.h"
#include "devices/rank/mpi_link.h"
#include "devices/rank/mpi_proto.h"

/* The test hook of cluster.h. */
static void (*test_before_reply)(uint64_t task_no);
static uint64_t tasks_served;

void apo__cluster_test_hook(void (*before_reply)(uint64_t task_no)) {
    test_before_reply = before_reply;
}

typedef struct serve_buffers {
    double *in, *out;
    size_t in_cap, out_cap;
} serve_buffers;

static int grow(double **buf, size_t *cap, size_t need) {
    if (need <= *cap)
        return 1;
    double *b = realloc(*buf, (need > 0 ? need : 1) * sizeof(double));
    if (b == NULL)
        return 0;
    *buf = b;
    *cap = need;
    return 1;
}

/* Waits for rank 0's next header. Returns 1, or 0 when MPI fails. */
static int receive_task(apo__task_header *h) {
    for (unsigned round = 0;; round++) {
        int flag = 0;
        apo__mpi_lock();
        int rc = MPI_Iprobe(0, APO_TAG_TASK, apo__mpi_comm(), &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && flag)
            rc = MPI_Recv(h, (int)sizeof *h, MPI_BYTE, 0, APO_TAG_TASK, apo__mpi_comm(),
                          MPI_STATUS_IGNORE);
        apo__mpi_unlock();
        if (rc != MPI_SUCCESS)
            return 0;
        if (flag)
            return 1;
        apo__mpi_backoff(round);
    }
}

/* Builds the call of a task over views of the staged spans, or says why it cannot. */
static int make_call(apo__registry *reg, const apo__task_header *h, apo__call *call,
                     apo__call_ctx *ctx, char *why, size_t why_size) {
    memset(call, 0, sizeof *call);
    /* Host arrays (the staged spans), no tag of the call's own (rank 0's comes with the
     * task), and rank 0's choice of whether to learn. */
    *ctx = apo__call_ctx_host;
    ctx->learn = h->learn != 0;
    call->ctx = ctx;
    call->kernel = apo__registry_find(reg, h->kernel);
    if (call->kernel == NULL) {
        snprintf(why, why_size,
                 "no kernel named \"%.31s\" on this rank (register it before "
                 "apo_cluster_serve)",
                 h->kernel);
        return 0;
    }
    const apo__kernel *k = call->kernel;
    call->rows = (size_t)h->rows;
    call->cols = (size_t)h->cols;
    call->seed = h->seed;
    memcpy(call->params, h->params, sizeof call->params);
    if (h->n_params != k->n_params || h->n_inputs != k->n_inputs) {
        snprintf(why, why_size,
                 "kernel %s here takes %zu parameters and %zu inputs, rank 0 sent "
                 "%u and %llu",
                 k->name, k->n_params, k->n_inputs, h->n_params, (unsigned long long)h->n_inputs);
        return 0;
    }
    apo__call_grid(call);
    apo__call_span span = {0, 0, 0, 0, 0};
    int grid_ok = call->tile == h->tile && call->tiles == h->tiles && h->first < h->end &&
                  h->end <= call->tiles;
    if (grid_ok)
        apo__call_span_of(call, h->first, h->end, &span);
    if (!grid_ok || span.in_lo != h->in_lo || span.in_hi != h->in_hi || span.out_lo != h->out_lo ||
        span.out_hi != h->out_hi || span.n_written != h->n_written ||
        k->partial_len != h->partial_len) {
        snprintf(why, why_size,
                 "kernel %s here cuts another tile grid than rank 0's (another "
                 "build or another kernel of that name)",
                 k->name);
        return 0;
    }
    return 1;
}

/* How long a reply's sender polls flat out before it backs off. */
#define APO_SERVE_TRANSFER_SPIN_S 0.05

/* What a serving rank has heard from rank 0 besides the task it is serving. */
typedef struct serve_inbox {
    int goodbye;  /* rank 0 said goodbye */
    int has_next; /* `next` holds the next task's header, received early */
    apo__task_header next;
} serve_inbox;

/* Sends the reply (and its data when it succeeded) and waits until rank 0 took it. Rank 0
 * may already have sent its next header (its receive completes before this send does): it
 * is kept in the inbox. A goodbye meanwhile means rank 0 gave up on this rank: the reply is
 * then given a bounded time before it is abandoned. Returns 1 when it was taken, 0 when
 * abandoned (its buffers then belong to MPI for good). */
static int send_reply(const apo__reply_header *r, const double *data, size_t count,
                      double timeout_s, serve_inbox *inbox) {
    MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    apo__mpi_lock();
    int rc = MPI_Isend(r, (int)sizeof *r, MPI_BYTE, 0, APO_TAG_REPLY, apo__mpi_comm(), &reqs[0]);
    if (rc == MPI_SUCCESS && r->status == APO_OK)
        rc = apo__mpi_isend_doubles(data, count, 0, APO_TAG_OUTPUT, &reqs[1]);
    apo__mpi_unlock();
    double deadline = -1, started = apo__now();
    for (unsigned round = 0; rc == MPI_SUCCESS; round++) {
        int done = 0, flag = 0;
        apo__mpi_lock();
        rc = MPI_Testall(3, reqs, &done, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS && !done && !inbox->goodbye && !inbox->has_next)
            rc = MPI_Iprobe(0, APO_TAG_TASK, apo__mpi_comm(), &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && flag) {
            rc = MPI_Recv(&inbox->next, (int)sizeof inbox->next, MPI_BYTE, 0, APO_TAG_TASK,
                          apo__mpi_comm(), MPI_STATUS_IGNORE);
            if (inbox->next.op == APO_OP_GOODBYE) {
                inbox->goodbye = 1;
                deadline = apo__now() + timeout_s;
            } else {
                inbox->has_next = 1;
            }
        }
        apo__mpi_unlock();
        if (done)
            return 1;
        if (inbox->goodbye && apo__now() > deadline)
            break;
        /* Rank 0 takes the data right after the header: move it at full speed, unless it
         * is slow to come (it gave up on this rank and will take it when it leaves). */
        if (apo__now() - started < APO_SERVE_TRANSFER_SPIN_S)
            apo__mpi_yield();
        else
            apo__mpi_backoff(round);
    }
    apo__log(APO_LOG_WARN, APO_SUBSYS_RUN, "MPI rank %d: rank 0 did not take a reply; dropped",
             apo__mpi_rank());
    apo__mpi_lock();
    for (int i = 0; i < 3; i++)
        if (reqs[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&reqs[i]);
    apo__mpi_unlock();
    return 0;
}

/* Serves one task. Returns 0 when the buffers had to be left to MPI (a reply abandoned),
 * so they must not be reused or freed. The early replies carry no data: the buffers are
 * free again whatever came of them. */
typedef struct serve_context {
    apo__registry *reg;
    apo__range_runner run;
    void *ctx;
} serve_context;

static int serve_task(const serve_context *sc, const apo__task_header *h, serve_buffers *b,
                      double timeout_s, serve_inbox *inbox) {
    apo__reply_header reply;
    memset(&reply, 0, sizeof reply);
    reply.task_id = h->task_id;
    size_t in_len = (size_t)(h->in_hi - h->in_lo), out_len = (size_t)(h->out_hi - h->out_lo);
    size_t in_count = (size_t)h->n_inputs * in_len;
    size_t out_count =
        (size_t)h->n_written * out_len + (size_t)(h->end - h->first) * h->partial_len;

    if (!grow(&b->in, &b->in_cap, in_count) || !grow(&b->out, &b->out_cap, out_count)) {
        apo__mpi_discard_doubles(in_count, 0, APO_TAG_INPUT);
        reply.status = APO_ERR_DEVICE_LOST;
        snprintf(reply.message, sizeof reply.message, "out of memory for %zu + %zu doubles",
                 in_count, out_count);
        (void)send_reply(&reply, NULL, 0, timeout_s, inbox);
        return 1;
    }
    MPI_Request reqs[2];
    apo__mpi_lock();
    int rc = apo__mpi_irecv_doubles(b->in, in_count, 0, APO_TAG_INPUT, reqs);
    apo__mpi_unlock();
    if (rc != MPI_SUCCESS || apo__mpi_wait(reqs, 2, apo__now() + timeout_s, APO_MPI_WAIT_TRANSFER,
                                           in_count * sizeof(double)) != 1) {
        reply.status = APO_ERR_DEVICE_LOST;
        snprintf(reply.message, sizeof reply.message, "the task's input did not arrive");
        (void)send_reply(&reply, NULL, 0, timeout_s, inbox);
        return 1;
    }

    apo__call call;
    apo__call_ctx ctx;
    if (!make_call(sc->reg, h, &call, &ctx, reply.message, sizeof reply.message)) {
        reply.status = APO_ERR_DEVICE_LOST;
        (void)send_reply(&reply, NULL, 0, timeout_s, inbox);
        return 1;
    }
    /* Views that index like the whole arrays while only the spans are here (the same
     * biased pointers as the CUDA backend's chunks; kernel.h). */
    const double *inputs[APO_MAX_IO];
    double *outputs[APO_MAX_IO] = {0};
    for (size_t i = 0; i < call.kernel->n_inputs; i++)
        inputs[i] = b->in + i * in_len - h->in_lo;
    for (size_t o = 0; o < h->n_written; o++)
        outputs[o] = b->out + o * out_len - h->out_lo;
    call.inputs = inputs;
    call.outputs = outputs;
    if (h->partial_len > 0)
        call.partials = b->out + h->n_written * out_len - h->first * h->partial_len;

    char tag[APO_TAG_MAX];
    snprintf(tag, sizeof tag, "%.*s", (int)sizeof h->tag - 1, h->tag);
    apo__range_result result;
    apo_status st = sc->run(sc->ctx, &call, tag, h->first, h->end, &result);
    reply.compute_s = result.makespan_s;
    reply.modelled = result.modelled;
    reply.local_failovers = result.failovers;
    if (st == APO_OK) {
        reply.status = APO_OK;
    } else if (st == APO_ERR_ALL_DEVICES_FAILED) {
        reply.status = APO_ERR_DEVICE_LOST;
        snprintf(reply.message, sizeof reply.message, "every device of rank %d failed",
                 apo__mpi_rank());
    } else {
        reply.status = call.kernel->builtin ? APO_ERR_DEVICE_LOST : APO_ERR_KERNEL_FAILED;
        snprintf(reply.message, sizeof reply.message, "the kernel failed with %s",
                 apo_status_name(st));
    }

    tasks_served++;
    if (test_before_reply != NULL)
        test_before_reply(tasks_served);
    return send_reply(&reply, b->out, out_count, timeout_s, inbox);
}

apo_status apo__cluster_serve(const apo__cluster *c, apo__registry *reg, apo__range_runner run,
                              void *ctx) {
    const serve_context sc = {reg, run, ctx};
    serve_buffers b = {NULL, NULL, 0, 0};
    serve_inbox inbox;
    memset(&inbox, 0, sizeof inbox);
    int reusable = 1;
    apo_status status = APO_OK;
    apo__log(APO_LOG_INFO, APO_SUBSYS_RUN, "MPI rank %d serving", c->rank);
    while (!inbox.goodbye) {
        apo__task_header h;
        if (inbox.has_next) {
            h = inbox.next;
            inbox.has_next = 0;
        } else if (!receive_task(&h)) {
            status = apo__fail(APO_ERR_IO, "apo_cluster_serve: MPI failed while waiting for rank "
                                           "0");
            break;
        }
        if (h.op == APO_OP_GOODBYE)
            break;
        if (!reusable) {
            /* The last reply's buffers are still MPI's: serve from new ones. */
            apo__mpi_keep(b.in);
            apo__mpi_keep(b.out);
            memset(&b, 0, sizeof b);
            reusable = 1;
        }
        reusable = serve_task(&sc, &h, &b, c->timeout_s, &inbox);
    }
    if (reusable) {
        free(b.in);
        free(b.out);
    } else {
        apo__mpi_keep(b.in);
        apo__mpi_keep(b.out);
    }
    return status;
}
