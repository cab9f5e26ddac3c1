/*
 * Joining an MPI job and leaving it (docs/cluster.md). Rank 0 collects one hello from each
 * other rank and opens a rank device for each that is ready; servers say hello with a
 * summary of their devices. Leaving, rank 0 says goodbye to every other rank, which ends
 * their apo_cluster_serve().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/log.h"
#include "cluster/cluster.h"
#include "devices/rank/mpi_link.h"
#include "devices/rank/mpi_proto.h"
#include "devices/rank/rank_device.h"

/* A server's hello: the summary of the devices it serves with. */
static void make_hello(const apo__device_set *set, apo_status open_status, apo__hello *h) {
    memset(h, 0, sizeof *h);
    h->version = APO_PROTO_VERSION;
    h->header_bytes = sizeof(apo__task_header);
    h->ok = open_status == APO_OK && set->n_devices > 0;
    snprintf(h->host, sizeof h->host, "%s", apo__mpi_host());
    if (!h->ok) {
        snprintf(h->devices, sizeof h->devices, "%s", apo_last_error());
        return;
    }
    h->n_devices = (uint32_t)set->n_devices;
    h->all_virtual = 1;
    size_t used = 0;
    for (size_t i = 0; i < set->n_devices; i++) {
        const apo__device *d = &set->devices[i];
        h->all_virtual &= d->info.kind == APO_DEVICE_SIM && d->virtual_clock;
        h->any_sim |= d->info.kind == APO_DEVICE_SIM;
        int n = snprintf(h->devices + used, sizeof h->devices - used, "%s%s", i ? ", " : "",
                         d->info.kind == APO_DEVICE_CPU ? d->info.label : d->info.id);
        used = n < 0 || used + (size_t)n >= sizeof h->devices ? sizeof h->devices - 1
                                                              : used + (size_t)n;
    }
    h->memory_total_bytes = set->devices[0].info.memory_total_bytes;
    h->memory_free_bytes = set->devices[0].info.memory_free_bytes;
}

static void say_hello(apo__device_set *set, apo_status open_status, double timeout_s) {
    apo__hello h;
    make_hello(set, open_status, &h);
    MPI_Request req;
    apo__mpi_lock();
    int rc = MPI_Isend(&h, (int)sizeof h, MPI_BYTE, 0, APO_TAG_HELLO, apo__mpi_comm(), &req);
    apo__mpi_unlock();
    int done = rc == MPI_SUCCESS
                   ? apo__mpi_wait(&req, 1, apo__now() + timeout_s, APO_MPI_WAIT_IDLE, 0)
                   : -1;
    if (done != 1) {
        if (done == 0) {
            apo__mpi_lock();
            MPI_Cancel(&req);
            MPI_Request_free(&req);
            apo__mpi_unlock();
        }
        apo__warn(set->warnings, "MPI rank %d could not say hello to rank 0 (%s)", apo__mpi_rank(),
                  done == 0 ? "timed out" : "MPI error");
    }
}

/* Rank 0: one hello from every other rank, until the deadline. */
static void collect_hellos(apo__device_set *set, apo__cluster *c) {
    int ranks = c->ranks;
    apo__hello *hellos = calloc((size_t)ranks, sizeof *hellos);
    int *heard = calloc((size_t)ranks, sizeof *heard);
    if (hellos == NULL || heard == NULL) {
        apo__warn(set->warnings, "no memory to join the MPI job of %d ranks", ranks);
        free(hellos);
        free(heard);
        return;
    }
    int missing = ranks - 1;
    double deadline = apo__now() + c->timeout_s;
    for (unsigned round = 0; missing > 0 && apo__now() < deadline; round++) {
        int flag = 0;
        MPI_Status status;
        apo__mpi_lock();
        int rc = MPI_Iprobe(MPI_ANY_SOURCE, APO_TAG_HELLO, apo__mpi_comm(), &flag, &status);
        if (rc == MPI_SUCCESS && flag) {
            apo__hello h;
            rc = MPI_Recv(&h, (int)sizeof h, MPI_BYTE, status.MPI_SOURCE, APO_TAG_HELLO,
                          apo__mpi_comm(), MPI_STATUS_IGNORE);
            int from = status.MPI_SOURCE;
            if (rc == MPI_SUCCESS && from > 0 && from < ranks && !heard[from]) {
                hellos[from] = h;
                heard[from] = 1;
                missing--;
            }
        }
        apo__mpi_unlock();
        if (rc != MPI_SUCCESS)
            break;
        if (!flag)
            apo__mpi_backoff(round);
    }
    for (int r = 1; r < ranks; r++) {
        apo__hello *h = &hellos[r];
        h->host[sizeof h->host - 1] = '\0';
        h->devices[sizeof h->devices - 1] = '\0';
        if (!heard[r]) {
            apo__warn(set->warnings, "MPI rank %d did not say hello within %.3g s; left out", r,
                      c->timeout_s);
        } else if (h->version != APO_PROTO_VERSION || h->header_bytes != sizeof(apo__task_header)) {
            apo__warn(set->warnings,
                      "MPI rank %d on %s runs another build of libapportion (protocol %u); left "
                      "out",
                      r, h->host, h->version);
        } else if (!h->ok) {
            apo__warn(set->warnings, "MPI rank %d on %s could not open its devices (%s); left out",
                      r, h->host, h->devices);
        } else if (set->n_devices == APO_MAX_DEVICES) {
            apo__warn(set->warnings, "MPI rank %d left out: more than %d devices", r,
                      APO_MAX_DEVICES);
        } else if (apo__rank_device_open(&set->devices[set->n_devices], r, h, c->timeout_s) ==
                   APO_OK) {
            set->n_devices++;
            c->joined++;
        } else {
            apo__warn(set->warnings, "MPI rank %d left out: no memory for its device", r);
        }
    }
    free(hellos);
    free(heard);
}

apo__cluster *apo__cluster_join(const apo__cluster_settings *s, apo__device_set *set,
                                apo_status open_status) {
    int want = s->mpi == APO_SWITCH_ON || (s->mpi == APO_SWITCH_UNSET && s->launched);
    if (!want)
        return NULL;
    char err[256] = "";
    if (apo__mpi_open(err, sizeof err) != APO_OK) {
        apo__warn(set->warnings, "not joining the MPI job: %s; this process runs alone", err);
        return NULL;
    }
    apo__cluster *c = calloc(1, sizeof *c);
    if (c == NULL) {
        apo__warn(set->warnings, "not joining the MPI job: out of memory");
        return NULL;
    }
    c->rank = apo__mpi_rank();
    c->ranks = apo__mpi_size();
    c->timeout_s = s->timeout_s;
    c->role = c->rank == 0 ? APO_CLUSTER_COORDINATOR : APO_CLUSTER_SERVER;
    if (c->role == APO_CLUSTER_COORDINATOR)
        collect_hellos(set, c);
    else
        say_hello(set, open_status, c->timeout_s);
    return c;
}

void apo__cluster_leave(apo__cluster *c, apo__device *devices, size_t n_devices) {
    if (c == NULL)
        return;
    if (c->role == APO_CLUSTER_COORDINATOR && !c->said_goodbye && c->ranks > 1) {
        c->said_goodbye = 1;
        size_t n = (size_t)c->ranks;
        apo__task_header *bye = calloc(n, sizeof *bye);
        MPI_Request *reqs = malloc(n * sizeof *reqs);
        if (bye != NULL && reqs != NULL) {
            /* Every other rank, joined or not: one that said hello late is serving too. */
            apo__mpi_lock();
            reqs[0] = MPI_REQUEST_NULL;
            for (size_t r = 1; r < n; r++) {
                bye[r].op = APO_OP_GOODBYE;
                if (MPI_Isend(&bye[r], (int)sizeof bye[r], MPI_BYTE, (int)r, APO_TAG_TASK,
                              apo__mpi_comm(), &reqs[r]) != MPI_SUCCESS)
                    reqs[r] = MPI_REQUEST_NULL;
            }
            apo__mpi_unlock();
            /* Ranks given up on may still answer: their late replies are taken (and
             * dropped) for up to one more timeout, so that they can see their goodbye. */
            double deadline = apo__now() + c->timeout_s;
            for (size_t i = 0; i < n_devices; i++)
                if (devices[i].info.kind == APO_DEVICE_RANK)
                    apo__rank_device_drain(&devices[i], deadline);
            if (apo__mpi_wait(reqs, (int)n, apo__now() + c->timeout_s, APO_MPI_WAIT_IDLE, 0) == 1) {
                free(bye);
            } else {
                /* Goodbyes still in flight keep their buffers: MPI may yet read them. */
                apo__log(APO_LOG_WARN, APO_SUBSYS_INIT,
                         "some MPI ranks did not take their goodbye in time");
                apo__mpi_lock();
                for (size_t r = 1; r < n; r++)
                    if (reqs[r] != MPI_REQUEST_NULL)
                        MPI_Request_free(&reqs[r]);
                apo__mpi_unlock();
                apo__mpi_keep(bye);
            }
        } else {
            free(bye);
        }
        free(reqs);
    }
    free(c);
}

void apo__cluster_info_fill(const apo__cluster *c, apo_cluster_info *info) {
    info->built_with_mpi = 1;
    info->ranks = 1;
    if (c != NULL) {
        info->role = c->role;
        info->rank = c->rank;
        info->ranks = c->ranks;
        info->joined = c->joined;
        snprintf(info->host, sizeof info->host, "%s", apo__mpi_host());
    }
}
