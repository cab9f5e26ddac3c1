/*
 * The messages between rank 0 and the serving ranks (docs/cluster.md). All travel on the
 * library's own communicator, as raw bytes of these structs: every rank runs the same build
 * of libapportion (the hello carries the struct version and size, and a mismatch keeps the
 * rank out), on machines of the same byte order.
 *
 * A task: rank 0 sends a task header (APO_TAG_TASK) and then the input elements its tiles
 * read, every input array's span one after the other (APO_TAG_INPUT). The server answers
 * with a reply header (APO_TAG_REPLY) and, when it succeeded, the written outputs' spans one
 * after the other followed by the tiles' partials (APO_TAG_OUTPUT). One task is in flight
 * per rank at a time, and MPI keeps messages between two ranks on one tag in order, so no
 * sequence numbers are needed to pair them; the task id is checked all the same.
 */
#ifndef APO_RUNTIME_DEVICES_RANK_MPI_PROTO_H
#define APO_RUNTIME_DEVICES_RANK_MPI_PROTO_H

#include <stdint.h>

#include "apportion.h"

#define APO_PROTO_VERSION 2u

enum {
    APO_TAG_HELLO = 101, /* server -> 0: apo__hello, once per server runtime */
    APO_TAG_TASK = 102,  /* 0 -> server: apo__task_header (a task or goodbye) */
    APO_TAG_INPUT = 103, /* 0 -> server: input spans */
    APO_TAG_REPLY = 104, /* server -> 0: apo__reply_header */
    APO_TAG_OUTPUT = 105 /* server -> 0: output spans, then partials */
};

typedef struct apo__hello {
    uint32_t version;      /* APO_PROTO_VERSION */
    uint32_t header_bytes; /* sizeof(apo__task_header) on the sender */
    int32_t ok;            /* the server's runtime was created */
    int32_t all_virtual;   /* every local device is a sim device on the virtual clock */
    int32_t any_sim;       /* some local device is simulated */
    uint32_t n_devices;
    uint64_t memory_total_bytes, memory_free_bytes;
    char host[APO_LABEL_MAX];
    char devices[APO_LABEL_MAX]; /* "cpu (2 threads), sim:a", or why the runtime failed */
} apo__hello;

enum { APO_OP_TASK = 1, APO_OP_GOODBYE = 2 };

typedef struct apo__task_header {
    uint32_t op;
    uint32_t n_params;
    uint32_t learn; /* the caller's call learns: the server's own models learn from the task */
    uint32_t reserved;
    uint64_t task_id;
    char kernel[APO_NAME_MAX];
    char tag[APO_TAG_MAX]; /* workload tag: the server's own models learn under it */
    double params[APO_MAX_PARAMS];
    uint64_t rows, cols, seed;
    uint64_t first, end;     /* the tiles to compute */
    uint64_t tile, tiles;    /* the grid rank 0 planned with, checked by the server */
    uint64_t in_lo, in_hi;   /* element span of each input */
    uint64_t out_lo, out_hi; /* element span of each written output */
    uint64_t n_inputs, n_written, partial_len;
} apo__task_header;

typedef struct apo__reply_header {
    uint64_t task_id;
    int32_t status;   /* apo_status of the server's run; APO_OK: data follows */
    int32_t modelled; /* compute_s is modelled time (every local device virtual sim) */
    double compute_s; /* the server's makespan over its devices */
    uint64_t local_failovers;
    char message[APO_LABEL_MAX]; /* why, when it failed */
} apo__reply_header;

#endif
