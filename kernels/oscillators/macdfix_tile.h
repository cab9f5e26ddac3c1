/*
 * macdfix_tile.h: MACDFIX(signalperiod), TA-Lib's MACD with its fixed rates: the fast EMA of
 * rate 0.15 and the slow of 0.075 (not 2/13 and 2/27), seeded as MACD(12, 26) seeds them, and
 * the signal line the EMA(signalperiod) of macd; outputs macd, macdsignal, macdhist. The
 * lookback is 25 + (signalperiod - 1).
 *
 * The arithmetic is the built-in macd's (macd_tile.h: its seeds, steps, phases and gap rule,
 * docs/kernels.md "## macd") with these rates, so the two agree on everything but k.
 *
 * Tile: the tile reruns from w0 = max(0, begin - h), h = 25 + (signalperiod - 1) + D(0.075)
 * + D(2 / (signalperiod + 1)) (the table's MACDFIX halo, macd's rule with the slow rate
 * 0.075). Stream: RUN, a start at w0 and a run (apo__macdfix_go), the tile being the two, as
 * the built-in macd's stream resumes its tile (oscillators/macd.c): until its seeds are in, a
 * run seeds again from w0 (macd's phases, apo__macd_prepare, O(the seeds' bars)); from then on
 * it carries the three EMAs in its apo__cat_run and takes its new bars alone. The start reads
 * nothing, so a stream takes the next tile's run ahead (AHEAD). Until 2026-12-08 the stream was
 * NONE: every update ran the tile again from w0.
 *
 * On the CPU a row's tiles take macd's rounds of vector lanes and a lone tile macd's cut into
 * pieces in lanes, checked bit for bit (apo__cpu_macdfix_tiles, dispatch/lanes_dispatch.c;
 * catalog_dispatch.c, builtin_body_tiles, with the measurements), at these rates: the bits of
 * this body, as macd's lanes have macd's.
 */
#ifndef APO_KERNELS_MACDFIX_TILE_H
#define APO_KERNELS_MACDFIX_TILE_H

#include "catalog.h"
#include "macd_tile.h"
#include "run_entries.h"

/* TA-Lib's fixed rates and the periods whose means seed them. */
#define APO_MACDFIX_FAST_RATE 0.15
#define APO_MACDFIX_SLOW_RATE 0.075
#define APO_MACDFIX_FAST 12
#define APO_MACDFIX_SLOW 26

/* The rates at signalperiod `signal`. */
static inline APO_HD apo__macd_rates apo__macdfix_rates(size_t signal) {
    apo__macd_rates r;
    r.kf = APO_MACDFIX_FAST_RATE;
    r.ks = APO_MACDFIX_SLOW_RATE;
    r.kg = 2.0 / ((double)signal + 1.0);
    return r;
}

/*
 * The run of the tile at `begin` from r->t to `end`, the outputs written from `begin`. r->n[0]
 * is 1 once the seeds are in, with the EMAs ef, es, eg in r->v[0..2] at position r->t; until
 * then the run seeds from w0 again up to `end` (apo__macd_prepare without its warm-up steps,
 * which stops at `end` however far `begin` is: a run ahead stops before its tile), rewriting the
 * NaN lead it wrote before with the same values. A run whose seeding ends exactly at `end`
 * counts as unseeded (prepare answers 0 there) and seeds once more at the next update. Then the
 * warm-up steps up to `begin` and the steady steps: apo__macd_tile_at's operations in its order,
 * so a tile that is one start and one run has its bits.
 */
static inline APO_HD void apo__macdfix_go(const apo__cat_io *io, size_t begin, size_t end,
                                          apo__cat_run *r) {
    if (end <= r->t)
        return;
    const size_t signal = (size_t)io->p[0];
    const apo__macd_rates rates = apo__macdfix_rates(signal);
    const apo__in x = apo__in_at(io->in[0]);
    const apo__out macd = apo__out_at(io->out[0]), signal_line = apo__out_at(io->out[1]),
                   hist = apo__out_at(io->out[2]);
    apo__macd_state st;
    if (r->n[0] == 0) {
        if (!apo__macd_prepare(x, begin, end, APO_MACDFIX_FAST, APO_MACDFIX_SLOW, signal, io->h,
                               &rates, 0, macd, signal_line, hist, &st)) {
            r->t = end;
            return;
        }
        r->n[0] = 1;
    } else {
        st.t = r->t;
        st.end = end;
        st.ef = r->v[0];
        st.es = r->v[1];
        st.eg = r->v[2];
        st.macd = macd;
        st.signal_line = signal_line;
        st.hist = hist;
    }
    while (st.t < begin && st.t < end)
        apo__macd_warm_step(x, &rates, &st);
    apo__macd_finish(x, &rates, &st);
    r->t = st.t;
    r->v[0] = st.ef;
    r->v[1] = st.es;
    r->v[2] = st.eg;
}

APO_CAT_RUN_ENTRIES(macdfix, apo__cat_run_from_origin(io, begin, r),
                    apo__macdfix_go(io, begin, end, r))

#endif /* APO_KERNELS_MACDFIX_TILE_H */
