/* A stream's state as bytes; see state_format.h and docs/streaming.md, "The state". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/call_span.h"
#include "fnv1a.h"
#include "le_bytes.h"
#include "streaming/state_format.h"
#include "streaming/stream_revise.h"

/* The most doubles a series may carry (a header asking more is malformed): a bound far above
 * any kernel's, so that no count read from a state can make the length sums below wrap. */
#define APO_STREAM_MAX_CARRY 256

static const unsigned char magic[8] = {'A', 'P', 'O', 'S', 'T', 'R', 'M', 0};

/* Header offsets (docs/streaming.md). */
enum {
    OFF_MAGIC = 0,
    OFF_FORMAT = 8,
    OFF_VERSION = 12,
    OFF_KERNEL = 28,
    OFF_N_PARAMS = 60,
    OFF_PARAMS = 64,
    OFF_SEED = 128,
    OFF_TILE = 136,
    OFF_HALO = 144,
    OFF_N_INPUTS = 152,
    OFF_N_OUTPUTS = 156,
    OFF_N_SERIES = 160,
    OFF_TOTAL = 168,
    OFF_CARRY = 176,
    OFF_REVISE = 184 /* from version 3 */
};

/* Bars a series of n bars keeps per input, for a grid of `tile` and `halo` and `revise` bars
 * kept for revises; for a kernel that carries `carry` doubles of its run instead, its last
 * `revise` bars alone (apo__stream_base, which this follows). */
static uint64_t kept_of(uint64_t n, const apo__stream_head *h) {
    if (h->carry > 0)
        return n < h->revise ? n : h->revise;
    if (n < h->revise)
        return n;
    const uint64_t from = n - h->revise, start = from - from % h->tile;
    return n - (start > h->halo ? start - h->halo : 0);
}

static size_t set_state_len(const apo_stream *s) {
    size_t len = APO_STREAM_HEADER_LEN + 8 * s->n_series + 8;
    for (size_t r = 0; r < s->n_series; r++)
        len += apo__stream_kept(s, s->series[r].n) * s->kernel->n_inputs * sizeof(double);
    /* The carried runs' states, and with revise_bars their states K bars back. */
    const size_t runs = s->carry_base != NULL ? 2 : 1;
    return len + runs * s->n_series * apo__stream_carry_len(s->kernel) * sizeof(double);
}

/* Writes each series' `carry` doubles of the states `states` (n_series of s->resume_stride
 * bytes) at p; returns where they end. */
static unsigned char *write_runs(const apo_stream *s, const unsigned char *states, size_t carry,
                                 unsigned char *p) {
    for (size_t r = 0; r < s->n_series; r++) {
        const unsigned char *state = states + r * s->resume_stride;
        for (size_t c = 0; c < carry; c++, p += 8) {
            double v;
            memcpy(&v, state + c * sizeof v, sizeof v);
            apo__put_f64(p, v);
        }
    }
    return p;
}

static void set_state_write(const apo_stream *s, unsigned char *buf) {
    const apo__kernel *k = s->kernel;
    size_t len = set_state_len(s);
    memset(buf, 0, APO_STREAM_HEADER_LEN);
    memcpy(buf + OFF_MAGIC, magic, sizeof magic);
    apo__put_u32(buf + OFF_FORMAT, APO_STREAM_FORMAT_VERSION);
    strncpy((char *)buf + OFF_VERSION, APO_VERSION_STRING, APO_STREAM_VERSION_LEN);
    strncpy((char *)buf + OFF_KERNEL, k->name, APO_NAME_MAX);
    apo__put_u32(buf + OFF_N_PARAMS, (uint32_t)k->n_params);
    for (size_t p = 0; p < k->n_params; p++)
        apo__put_f64(buf + OFF_PARAMS + 8 * p, s->params[p]);
    apo__put_u64(buf + OFF_SEED, s->seed);
    apo__put_u64(buf + OFF_TILE, s->tile);
    apo__put_u64(buf + OFF_HALO, s->halo);
    apo__put_u32(buf + OFF_N_INPUTS, (uint32_t)k->n_inputs);
    apo__put_u32(buf + OFF_N_OUTPUTS, (uint32_t)k->n_outputs);
    apo__put_u64(buf + OFF_N_SERIES, s->n_series);
    apo__put_u64(buf + OFF_TOTAL, len);
    const size_t carry = apo__stream_carry_len(k);
    apo__put_u64(buf + OFF_CARRY, carry);
    apo__put_u64(buf + OFF_REVISE, s->revise);
    unsigned char *p = buf + APO_STREAM_HEADER_LEN;
    for (size_t r = 0; r < s->n_series; r++, p += 8)
        apo__put_u64(p, s->series[r].n);
    for (size_t r = 0; r < s->n_series; r++) {
        const apo__stream_series *se = &s->series[r];
        size_t kept = apo__stream_kept(s, se->n);
        for (size_t i = 0; i < k->n_inputs; i++)
            for (size_t t = 0; t < kept; t++, p += 8)
                apo__put_f64(p, se->in[i * se->cap + t]);
    }
    /* The carried runs: the state is all that holds the series' past (stream.h); with
     * revise_bars, then their states K bars back. */
    p = write_runs(s, s->resume, carry, p);
    if (s->carry_base != NULL)
        p = write_runs(s, s->carry_base, carry, p);
    apo__put_u64(p, apo__fnv1a64(buf, len - 8));
}

/* Reads each series' `carry` doubles into the states `states` (write_runs' layout) from p;
 * returns where they end. */
static const unsigned char *read_runs(apo_stream *s, unsigned char *states, size_t carry,
                                      const unsigned char *p) {
    for (size_t r = 0; r < s->n_series; r++) {
        unsigned char *state = states + r * s->resume_stride;
        for (size_t c = 0; c < carry; c++, p += 8) {
            const double v = apo__get_f64(p);
            memcpy(state + c * sizeof v, &v, sizeof v);
        }
    }
    return p;
}

/* ---- a sweep's state: its sets' states in a container (docs/streaming.md, "Sweeps") ---- */

static const unsigned char sweep_magic[8] = {'A', 'P', 'O', 'S', 'W', 'E', 'P', 0};

enum { SWEEP_OFF_FORMAT = 8, SWEEP_OFF_N_SETS = 16, SWEEP_OFF_TOTAL = 24, SWEEP_HEADER_LEN = 32 };

size_t apo__stream_state_len(const apo_stream *s) {
    if (s->n_sets == 0)
        return set_state_len(s);
    size_t len = SWEEP_HEADER_LEN + 8 * s->n_sets + 8;
    for (size_t j = 0; j < s->n_sets; j++)
        len += set_state_len(s->sets[j]);
    return len;
}

void apo__stream_state_write(const apo_stream *s, unsigned char *buf) {
    if (s->n_sets == 0) {
        set_state_write(s, buf);
        return;
    }
    size_t len = apo__stream_state_len(s);
    memset(buf, 0, SWEEP_HEADER_LEN);
    memcpy(buf, sweep_magic, sizeof sweep_magic);
    apo__put_u32(buf + SWEEP_OFF_FORMAT, APO_STREAM_SWEEP_FORMAT_VERSION);
    apo__put_u64(buf + SWEEP_OFF_N_SETS, s->n_sets);
    apo__put_u64(buf + SWEEP_OFF_TOTAL, len);
    unsigned char *p = buf + SWEEP_HEADER_LEN + 8 * s->n_sets;
    for (size_t j = 0; j < s->n_sets; j++) {
        size_t set_len = set_state_len(s->sets[j]);
        apo__put_u64(buf + SWEEP_HEADER_LEN + 8 * j, set_len);
        set_state_write(s->sets[j], p);
        p += set_len;
    }
    apo__put_u64(p, apo__fnv1a64(buf, len - 8));
}

int apo__stream_state_is_sweep(const void *buf, size_t len) {
    return len >= sizeof sweep_magic && memcmp(buf, sweep_magic, sizeof sweep_magic) == 0;
}

/* A NUL-padded text field of `size` bytes: it must end in at least one NUL. */
static int read_text(const unsigned char *field, size_t size, char *out) {
    if (memchr(field, 0, size) == NULL)
        return 0;
    memcpy(out, field, size);
    return 1;
}

#define BAD(...) apo__fail(APO_ERR_INVALID_ARGUMENT, "apo_stream_load: " __VA_ARGS__)

/* What a set's state and a sweep's container check alike, in this order, after their
 * magic: the format version (at the same offset in every version of each, so that another
 * version is named as such rather than as corrupt), the length against the one the header
 * gives, and the checksum of every byte before it. `sweep`: the container's, whose reasons
 * say so. */
static apo_status check_envelope(const unsigned char *b, size_t len, size_t off_format,
                                 size_t header_len, size_t off_total, int sweep) {
    const char *what = sweep ? "the sweep's state" : "the state";
    const uint32_t reads = sweep ? APO_STREAM_SWEEP_FORMAT_VERSION : APO_STREAM_FORMAT_VERSION;
    const uint32_t oldest = sweep ? APO_STREAM_SWEEP_FORMAT_VERSION : APO_STREAM_FORMAT_OLDEST;
    uint32_t format = apo__get_u32(b + off_format);
    if (format < oldest || format > reads)
        return BAD("%s is of format version %u; this library (%s) reads versions %u to %u only",
                   what, (unsigned)format, APO_VERSION_STRING, (unsigned)oldest, (unsigned)reads);
    if (len < header_len + 8)
        return BAD("truncated: %zu bytes, shorter than the %zu-byte header and checksum%s", len,
                   header_len, sweep ? " of a sweep's state" : "");
    uint64_t total = apo__get_u64(b + off_total);
    if (total != len)
        return BAD("%s: %s says it is %llu bytes long, %zu were given",
                   total > len ? "truncated" : "wrong length", what, (unsigned long long)total,
                   len);
    uint64_t sum = apo__get_u64(b + len - 8), want = apo__fnv1a64(b, len - 8);
    if (sum != want)
        return BAD("corrupt: the checksum%s is %016llx, the bytes give %016llx",
                   sweep ? " of the sweep's state" : "", (unsigned long long)sum,
                   (unsigned long long)want);
    return APO_OK;
}

apo_status apo__stream_sweep_state_read(const void *buf, size_t len, size_t *n_sets,
                                        size_t **offsets) {
    const unsigned char *b = buf;
    *offsets = NULL;
    if (!apo__stream_state_is_sweep(buf, len) || len < 12)
        return BAD("not a sweep's stream state (%zu bytes, without its magic \"APOSWEP\")", len);
    APO_CHECK(check_envelope(b, len, SWEEP_OFF_FORMAT, SWEEP_HEADER_LEN, SWEEP_OFF_TOTAL, 1));
    if (apo__get_u32(b + 12) != 0)
        return BAD("the sweep's reserved field is not 0");
    uint64_t n = apo__get_u64(b + SWEEP_OFF_N_SETS);
    if (n < 1 || n > APO_MAX_SWEEP_SETS || n > (len - SWEEP_HEADER_LEN - 8) / 8)
        return BAD("the sweep's state counts %llu sets", (unsigned long long)n);
    size_t *off = malloc(((size_t)n + 1) * sizeof *off);
    if (off == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_load: no memory for %llu sets",
                         (unsigned long long)n);
    /* The sets' lengths must fill the container exactly; each set is read on its own. */
    uint64_t at = SWEEP_HEADER_LEN + 8 * n;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t set_len = apo__get_u64(b + SWEEP_HEADER_LEN + 8 * i);
        if (set_len > len - 8 - at) {
            free(off);
            return BAD("the sweep's set %llu is %llu bytes, past the state's end",
                       (unsigned long long)i, (unsigned long long)set_len);
        }
        off[i] = (size_t)at;
        at += set_len;
    }
    if (at != len - 8) {
        free(off);
        return BAD("the sweep's sets fill %llu of the %zu bytes before the checksum",
                   (unsigned long long)at, len - 8);
    }
    off[n] = (size_t)at;
    *n_sets = (size_t)n;
    *offsets = off;
    return APO_OK;
}

apo_status apo__stream_state_read(const void *buf, size_t len, apo__stream_head *head) {
    const unsigned char *b = buf;
    /* The magic and the format version sit where every format version keeps them, so that
     * a state of another format is named as such rather than as corrupt. */
    if (len < 12 || memcmp(b + OFF_MAGIC, magic, sizeof magic) != 0)
        return BAD("not a stream state (%zu bytes, without its magic \"APOSTRM\")", len);
    /* A version-2 header ends before the revise field; its layout is otherwise version 3's. */
    const size_t header_len = apo__get_u32(b + OFF_FORMAT) == APO_STREAM_FORMAT_OLDEST
                                  ? APO_STREAM_HEADER_LEN_V2
                                  : APO_STREAM_HEADER_LEN;
    APO_CHECK(check_envelope(b, len, OFF_FORMAT, header_len, OFF_TOTAL, 0));

    memset(head, 0, sizeof *head);
    head->header_len = header_len;
    if (!read_text(b + OFF_VERSION, APO_STREAM_VERSION_LEN, head->version) ||
        !read_text(b + OFF_KERNEL, APO_NAME_MAX, head->kernel))
        return BAD("malformed header: a name field is not NUL-terminated");
    /* The outputs a stream gave so far came from this version's arithmetic; another version
     * going on from them could give a history that matches neither version's batch. */
    if (strcmp(head->version, APO_VERSION_STRING) != 0)
        return BAD("the state was saved by apportion %s; this is %s, and a stream goes on only "
                   "under the version that started it (docs/streaming.md, \"Versions\")",
                   head->version, APO_VERSION_STRING);
    head->n_params = apo__get_u32(b + OFF_N_PARAMS);
    head->seed = apo__get_u64(b + OFF_SEED);
    head->tile = apo__get_u64(b + OFF_TILE);
    head->halo = apo__get_u64(b + OFF_HALO);
    head->n_inputs = apo__get_u32(b + OFF_N_INPUTS);
    head->n_outputs = apo__get_u32(b + OFF_N_OUTPUTS);
    head->n_series = apo__get_u64(b + OFF_N_SERIES);
    head->carry = apo__get_u64(b + OFF_CARRY);
    head->revise = header_len > OFF_REVISE ? apo__get_u64(b + OFF_REVISE) : 0;
    if (head->revise > ((uint64_t)1 << 40))
        return BAD("malformed header: %llu bars kept for revises",
                   (unsigned long long)head->revise);
    if (head->carry > APO_STREAM_MAX_CARRY)
        return BAD("malformed header: each series carries %llu doubles",
                   (unsigned long long)head->carry);
    if (head->n_params > APO_MAX_PARAMS || head->n_inputs < 1 || head->n_inputs > APO_MAX_IO ||
        head->n_outputs < 1 || head->n_outputs > APO_MAX_IO || head->tile < 1 ||
        head->tile > ((uint64_t)1 << 40) || head->halo > ((uint64_t)1 << 40) ||
        head->n_series < 1 || head->n_series > APO_STREAM_MAX_SERIES)
        return BAD("malformed header: %u parameters, %u inputs, %u outputs, tile %llu, halo "
                   "%llu, %llu series",
                   (unsigned)head->n_params, (unsigned)head->n_inputs, (unsigned)head->n_outputs,
                   (unsigned long long)head->tile, (unsigned long long)head->halo,
                   (unsigned long long)head->n_series);
    for (uint32_t p = 0; p < head->n_params; p++)
        head->params[p] = apo__get_f64(b + OFF_PARAMS + 8 * p);

    /* The series' counts must fill the length exactly; every term is bounded above, so no
     * sum below can wrap. */
    uint64_t room = len - header_len - 8;
    if (head->n_series > room / 8)
        return BAD("malformed: %llu series do not fit in %zu bytes",
                   (unsigned long long)head->n_series, len);
    uint64_t need = 8 * head->n_series;
    for (uint64_t r = 0; r < head->n_series; r++) {
        uint64_t n = apo__get_u64(b + header_len + 8 * r);
        need += kept_of(n, head) * head->n_inputs * 8;
        /* A carried run, and with revise_bars its state K bars back. */
        need += head->carry * 8 * (head->revise > 0 ? 2 : 1);
        if (need > room)
            return BAD("malformed: series %llu's bars run past the end of the state",
                       (unsigned long long)r);
    }
    if (need != room)
        return BAD("malformed: the series' bars fill %llu bytes of the %llu there",
                   (unsigned long long)need, (unsigned long long)room);
    return APO_OK;
}

apo_status apo__stream_state_restore(const apo__stream_head *head, const void *buf,
                                     const apo__kernel *k, apo_stream **out) {
    if (head->n_inputs != k->n_inputs || head->n_outputs != k->n_outputs ||
        head->n_params != k->n_params)
        return BAD("the state's %s has %u inputs, %u outputs and %u parameters; this runtime's "
                   "has %zu, %zu and %zu",
                   k->name, (unsigned)head->n_inputs, (unsigned)head->n_outputs,
                   (unsigned)head->n_params, k->n_inputs, k->n_outputs, k->n_params);
    double params[APO_MAX_PARAMS] = {0};
    for (size_t p = 0; p < k->n_params; p++) {
        const apo__param_spec *spec = &k->params[p];
        double v = head->params[p];
        if (!isfinite(v) || v < spec->min || v > spec->max || (spec->integer && v != floor(v)))
            return BAD("the state's %s parameter %s is %g, which the kernel does not accept",
                       k->name, spec->name, v);
        params[p] = v;
    }
    APO_CHECK(apo__stream_check_kernel(k, params));
    APO_CHECK(apo__stream_check_revise((size_t)head->revise, "apo_stream_load"));
    if (head->carry != apo__stream_carry_len(k))
        return BAD("the state's series carry %llu doubles of %s's run; this runtime's carries "
                   "%zu",
                   (unsigned long long)head->carry, k->name, apo__stream_carry_len(k));
    size_t tile = k->tile_len(k, params), halo = apo__kernel_halo(k, params);
    if (tile != head->tile || halo != head->halo)
        return BAD("the state's %s tiles by %llu with a halo of %llu; this runtime's tiles by "
                   "%zu with a halo of %zu, so its outputs would not continue the state's",
                   k->name, (unsigned long long)head->tile, (unsigned long long)head->halo, tile,
                   halo);

    apo_stream *s;
    APO_CHECK(
        apo__stream_new(k, params, (size_t)head->n_series, head->seed, (size_t)head->revise, &s));
    const unsigned char *counts = (const unsigned char *)buf + head->header_len;
    const unsigned char *p = counts + 8 * s->n_series;
    for (size_t r = 0; r < s->n_series; r++) {
        apo__stream_series *se = &s->series[r];
        uint64_t n = apo__get_u64(counts + 8 * r);
        size_t kept = apo__stream_kept(s, n);
        /* Reserved while the series is still empty: there is nothing of it to keep yet. */
        apo_status st = apo__stream_reserve(s, r, kept);
        if (st != APO_OK) {
            apo__stream_free(s);
            return st;
        }
        se->n = n;
        for (size_t i = 0; i < k->n_inputs; i++)
            for (size_t t = 0; t < kept; t++, p += 8)
                se->in[i * se->cap + t] = apo__get_f64(p);
    }
    p = read_runs(s, s->resume, (size_t)head->carry, p);
    if (s->carry_base != NULL)
        p = read_runs(s, s->carry_base, (size_t)head->carry, p);
    *out = s;
    return APO_OK;
}
