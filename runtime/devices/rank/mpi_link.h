/*
 * The process's link to MPI (docs/cluster.md): initialised once, by the first runtime that
 * joins a job, on a private duplicate of MPI_COMM_WORLD whose errors are returned instead of
 * aborting the job; finalised at exit when apportion was the one that initialised it.
 *
 * Threading: the coordinator's device threads talk to several ranks at once. Every MPI call
 * of the library is made under one process-wide lock (apo__mpi_lock), and waiting is done by
 * polling with MPI_Test between short sleeps, so MPI_THREAD_SERIALIZED is enough and no
 * thread ever blocks inside MPI holding the others up. MPI_THREAD_MULTIPLE is still asked
 * for, for the sake of a program that uses MPI itself from other threads.
 */
#ifndef APO_RUNTIME_DEVICES_RANK_MPI_LINK_H
#define APO_RUNTIME_DEVICES_RANK_MPI_LINK_H

#include <mpi.h>
#include <stddef.h>

#include "apportion.h"

/* Joins MPI (MPI_Init_thread unless the program did it already) and duplicates the world
 * communicator; idempotent. Returns APO_OK, or APO_ERR_IO with the reason in `err` (MPI
 * finalised already, thread support below SERIALIZED, ...). The duplicate is collective:
 * every rank's first joining runtime must get here. */
apo_status apo__mpi_open(char *err, size_t err_size);

/* This process's rank and the job's size (valid after apo__mpi_open). */
int apo__mpi_rank(void);
int apo__mpi_size(void);

/* The library's communicator (valid after apo__mpi_open). */
MPI_Comm apo__mpi_comm(void);

/* The name of this host (MPI_Get_processor_name, else gethostname). */
const char *apo__mpi_host(void);

void apo__mpi_lock(void);
void apo__mpi_unlock(void);

/* How a wait polls. Waiting for a peer to compute, a rank sleeps between polls (backing
 * off), so that it leaves the cores to the ranks computing beside it. Moving data, MPI
 * progresses a large message a fragment per poll on both sides, so a rank polls as fast as
 * it can: without a pause for as long as the bytes would take at
 * APO_MPI_SPIN_BYTES_PER_S, plus APO_MPI_SPIN_BASE_S, then yielding the core between polls.
 * Where the polling thread shares its core with a computing one (rank 0's cpu device), a
 * yield can hand the core over for a scheduler slice, milliseconds, and a yield after every
 * poll made each fragment of a healthy transfer wait for one; past the spin, the peer is
 * slow (throttled, starved), and yielding leaves the core to the computation (docs/
 * cluster.md, "Waiting for a rank"). */
typedef enum apo__mpi_wait_mode { APO_MPI_WAIT_IDLE, APO_MPI_WAIT_TRANSFER } apo__mpi_wait_mode;
#define APO_MPI_SPIN_BYTES_PER_S 1e9
#define APO_MPI_SPIN_BASE_S 200e-6

/* Polls `reqs` until all are complete or apo__now() passes `deadline` (INFINITY: no
 * deadline). `bytes`: with APO_MPI_WAIT_TRANSFER, the bytes the requests move (it sets the
 * spin above); else unused. Returns 1 when all completed, 0 at the deadline, -1 when MPI
 * reports an error. Completed requests become MPI_REQUEST_NULL. */
int apo__mpi_wait(MPI_Request *reqs, int n, double deadline, apo__mpi_wait_mode mode, size_t bytes);

/* Posts a non-blocking send or receive of `count` doubles as at most two messages with the
 * same tag (whole blocks of a derived type, then the rest), so that counts beyond INT_MAX
 * elements travel. Writes the requests to reqs[0..1] (MPI_REQUEST_NULL where unused).
 * Returns the MPI error code (MPI_SUCCESS). The caller holds the lock. */
int apo__mpi_isend_doubles(const double *buf, size_t count, int peer, int tag, MPI_Request *reqs);
int apo__mpi_irecv_doubles(double *buf, size_t count, int peer, int tag, MPI_Request *reqs);

/* Keeps `buf` (malloc'd) for the rest of the process: MPI may still read or write a buffer
 * whose exchange was given up, so it must not be freed or reused; kept reachable here, it is
 * not a leak either. NULL is ignored. */
void apo__mpi_keep(void *buf);

/* Consumes the messages of a send of `count` doubles without keeping them (receives of
 * zero elements: MPI drops a truncated message's data). Returns 1 when consumed, else 0.
 * For a server that cannot hold a task's input: the next task must not read it. */
int apo__mpi_discard_doubles(size_t count, int peer, int tag);

/* Sleeps a little more on each call of a polling loop: spins first (a reply on the same
 * host comes within microseconds), then backs off to at most a millisecond, so an idle rank
 * does not take a core from the ranks computing beside it. `round` counts the polls. */
void apo__mpi_backoff(unsigned round);

/* One poll's pause while data moves: gives the core away if another thread wants it. */
void apo__mpi_yield(void);

#endif
