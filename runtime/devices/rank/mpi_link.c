/* The process's link to MPI; see mpi_link.h. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "devices/device.h"
#include "devices/rank/mpi_link.h"

/* Doubles per block of the derived type: messages count blocks, so an int count reaches
 * 2^31 blocks of 8 MiB. */
#define APO_MPI_BLOCK_DOUBLES ((size_t)1 << 20)

static pthread_mutex_t link_mutex = PTHREAD_MUTEX_INITIALIZER;
static int link_open;
static int link_we_initialised;
static int link_rank, link_size;
static MPI_Comm link_comm = MPI_COMM_NULL;
static MPI_Datatype link_block = MPI_DATATYPE_NULL;
static char link_host[MPI_MAX_PROCESSOR_NAME + 1];

/* Every MPI call of the library happens under this lock (see mpi_link.h). */
static pthread_mutex_t call_mutex = PTHREAD_MUTEX_INITIALIZER;

void apo__mpi_lock(void) { pthread_mutex_lock(&call_mutex); }
void apo__mpi_unlock(void) { pthread_mutex_unlock(&call_mutex); }

/* At exit, when apportion started MPI, it also ends it: Open MPI treats a process that
 * leaves without MPI_Finalize as failed and aborts the whole job. */
static void finalize_at_exit(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
        return;
    if (link_block != MPI_DATATYPE_NULL)
        MPI_Type_free(&link_block);
    if (link_comm != MPI_COMM_NULL)
        MPI_Comm_free(&link_comm);
    if (link_we_initialised)
        MPI_Finalize();
}

static apo_status open_locked(char *err, size_t err_size) {
    int initialized = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {
        snprintf(err, err_size, "MPI was finalised already");
        return APO_ERR_IO;
    }
    MPI_Initialized(&initialized);
    int provided = MPI_THREAD_SINGLE;
    if (!initialized) {
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
            snprintf(err, err_size, "MPI_Init_thread failed");
            return APO_ERR_IO;
        }
        link_we_initialised = 1;
    } else {
        MPI_Query_thread(&provided);
    }
    if (link_we_initialised)
        atexit(finalize_at_exit);
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(err, err_size,
                 "MPI gives thread level %d, below MPI_THREAD_SERIALIZED: initialise MPI with "
                 "MPI_Init_thread(MPI_THREAD_MULTIPLE) or let apportion do it",
                 provided);
        return APO_ERR_IO;
    }
    if (MPI_Comm_dup(MPI_COMM_WORLD, &link_comm) != MPI_SUCCESS) {
        snprintf(err, err_size, "MPI_Comm_dup failed");
        return APO_ERR_IO;
    }
    /* A peer that fails must come back as an error code, not abort this process. */
    MPI_Comm_set_errhandler(link_comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(link_comm, &link_rank);
    MPI_Comm_size(link_comm, &link_size);
    MPI_Type_contiguous((int)APO_MPI_BLOCK_DOUBLES, MPI_DOUBLE, &link_block);
    MPI_Type_commit(&link_block);
    int len = 0;
    if (MPI_Get_processor_name(link_host, &len) != MPI_SUCCESS || len <= 0) {
        if (gethostname(link_host, sizeof link_host - 1) != 0)
            snprintf(link_host, sizeof link_host, "unknown");
    }
    link_host[sizeof link_host - 1] = '\0';
    link_open = 1;
    apo__log(APO_LOG_INFO, APO_SUBSYS_INIT, "MPI: rank %d of %d on %s, thread level %d", link_rank,
             link_size, link_host, provided);
    return APO_OK;
}

apo_status apo__mpi_open(char *err, size_t err_size) {
    pthread_mutex_lock(&link_mutex);
    apo_status st = APO_OK;
    if (!link_open) {
        apo__mpi_lock();
        st = open_locked(err, err_size);
        apo__mpi_unlock();
    }
    pthread_mutex_unlock(&link_mutex);
    return st;
}

int apo__mpi_rank(void) { return link_rank; }
int apo__mpi_size(void) { return link_size; }
MPI_Comm apo__mpi_comm(void) { return link_comm; }
const char *apo__mpi_host(void) { return link_host; }

void apo__mpi_backoff(unsigned round) {
    if (round < 64)
        return;
    long ns = 10000L << (round < 70 ? round - 64 : 6); /* 10 us doubling to 640 us */
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

void apo__mpi_yield(void) { sched_yield(); }

int apo__mpi_wait(MPI_Request *reqs, int n, double deadline, apo__mpi_wait_mode mode,
                  size_t bytes) {
    const double spin_until =
        mode == APO_MPI_WAIT_TRANSFER
            ? apo__now() + APO_MPI_SPIN_BASE_S + (double)bytes / APO_MPI_SPIN_BYTES_PER_S
            : 0;
    for (unsigned round = 0;; round++) {
        int done = 0;
        apo__mpi_lock();
        int rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        apo__mpi_unlock();
        if (rc != MPI_SUCCESS)
            return -1;
        if (done)
            return 1;
        if (apo__now() > deadline)
            return 0;
        if (mode == APO_MPI_WAIT_TRANSFER) {
            if (apo__now() >= spin_until)
                apo__mpi_yield();
        } else
            apo__mpi_backoff(round);
    }
}

typedef int (*transfer_fn)(void *buf, int count, MPI_Datatype type, int peer, int tag,
                           MPI_Comm comm, MPI_Request *req);

static int transfer(transfer_fn fn, void *buf, size_t count, int peer, int tag, MPI_Request *reqs) {
    reqs[0] = reqs[1] = MPI_REQUEST_NULL;
    size_t blocks = count / APO_MPI_BLOCK_DOUBLES;
    size_t rest = count % APO_MPI_BLOCK_DOUBLES;
    if (blocks > INT_MAX)
        return MPI_ERR_COUNT;
    /* Both sides post the same messages (the receiver knows the count): the blocks, when
     * there are any, then the rest, so MPI's ordering pairs them. */
    if (blocks > 0) {
        int rc = fn(buf, (int)blocks, link_block, peer, tag, link_comm, &reqs[0]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return fn((double *)buf + blocks * APO_MPI_BLOCK_DOUBLES, (int)rest, MPI_DOUBLE, peer, tag,
              link_comm, &reqs[1]);
}

/* MPI_Isend takes a const buffer (MPI 3); the cast lets one helper serve both directions. */
static int isend_any(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request *req) {
    return MPI_Isend(buf, count, type, peer, tag, comm, req);
}

static int irecv_any(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request *req) {
    return MPI_Irecv(buf, count, type, peer, tag, comm, req);
}

int apo__mpi_isend_doubles(const double *buf, size_t count, int peer, int tag, MPI_Request *reqs) {
    return transfer(isend_any, (void *)buf, count, peer, tag, reqs);
}

int apo__mpi_irecv_doubles(double *buf, size_t count, int peer, int tag, MPI_Request *reqs) {
    return transfer(irecv_any, buf, count, peer, tag, reqs);
}

int apo__mpi_discard_doubles(size_t count, int peer, int tag) {
    int messages = (count / APO_MPI_BLOCK_DOUBLES > 0) + 1;
    double none;
    int ok = 1;
    apo__mpi_lock();
    for (int i = 0; i < messages; i++) {
        /* Truncation is the expected outcome; any other error is not. */
        MPI_Status status;
        int rc = MPI_Recv(&none, 0, MPI_DOUBLE, peer, tag, link_comm, &status);
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        ok &= rc == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE;
    }
    apo__mpi_unlock();
    return ok;
}

/* The buffers of exchanges given up (apo__mpi_keep): a list that only grows. */
typedef struct kept_buffer {
    struct kept_buffer *next;
    void *buf;
} kept_buffer;

static kept_buffer *kept_buffers;

void apo__mpi_keep(void *buf) {
    if (buf == NULL)
        return;
    kept_buffer *k = malloc(sizeof *k);
    pthread_mutex_lock(&link_mutex);
    if (k != NULL) {
        k->buf = buf;
        k->next = kept_buffers;
        kept_buffers = k;
    }
    pthread_mutex_unlock(&link_mutex);
    /* Without memory for the record the buffer is simply never freed: still safe. */
}
