/*
 * dmi_stream_lanes.h: a stream's one-bar pieces of ADX, DX, PLUS_DI or MINUS_DI for several
 * series side by side (apo__cpu_catalog_resume_lanes, kernels/dispatch/catalog_dispatch.c;
 * built on each vector path, catalog_entry.h, and only there: the CPU's streams alone take it).
 *
 * A one-bar piece past the seeds is apo__dmi_step's steady branch: the true range and the
 * directional moves, three smoothed sums with a division each, the two DIs' divisions, DX's and
 * ADX's: up to seven divisions, most of them on one series' chain, which one series after another
 * leave the core waiting on. Here the pieces of APO_DMI_LANES series are one call, each step
 * taken in the lanes of the path's vectors (the unused lanes computing zeros), each lane
 * performing apo__dmi_step's operations at that bar in the same order (-ffp-contract=off covers
 * vector code too), so the same bits. A lane whose bar is a gap (a true range or move that is
 * not finite) keeps its state and gives NaN, as the step does; the quotients that the step
 * guards by a test are computed in every lane and picked on the bits, so that no branch is
 * left a lane.
 */
#ifndef APO_KERNELS_DMI_STREAM_LANES_H
#define APO_KERNELS_DMI_STREAM_LANES_H

#include "dmi_tile.h"

#define APO_DMI_LANES 8

/*
 * apo__dmi_run(&io[l], begins[l], ends[l], which, runs[l]) for each of n series of one stream
 * (n <= APO_DMI_LANES; the same parameters): a series whose piece is its one bar at or past
 * `begins[l]`, its sums (and for ADX its average) past their seeds, takes the step there in a
 * lane; any other series runs alone. which: APO_DMI_PLUS, APO_DMI_MINUS, APO_DMI_ADX or
 * APO_DMI_DX (ADXR's stream re-runs its tile: dmi_tile.h).
 */
static APO_CAT_SPECIALISED void apo__dmi_run_lanes(const apo__cat_io *io, const size_t *begins,
                                                   const size_t *ends, apo__cat_run *const *runs,
                                                   size_t n, int which) {
    const size_t p = (size_t)io[0].p[0];
    const double pd = (double)p, keep = pd - 1.0;
    apo__cat_run *lane_run[APO_DMI_LANES];
    double *lane_out[APO_DMI_LANES];
    double tr[APO_DMI_LANES], up[APO_DMI_LANES], down[APO_DMI_LANES];
    double sp[APO_DMI_LANES], sm[APO_DMI_LANES], str[APO_DMI_LANES], adx[APO_DMI_LANES];
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        apo__cat_run *r = runs[k];
        const size_t t = r->t;
        /* Past the sums' seeds (the step's seen above p), and for ADX past its seed (its DX
         * seen above p), so that each takes its steady branch. */
        const int steady = r->n[0] >= p && (which != APO_DMI_ADX || r->n[1] >= p);
        if (apo__cat_one_bar_piece(r, begins[k], ends[k], 1) && steady) {
            const double *high = io[k].in[0], *low = io[k].in[1];
            lane_run[m] = r;
            lane_out[m] = io[k].out[0] + t;
            tr[m] = apo__true_range(high, low, io[k].in[2], t);
            up[m] = high[t] - high[t - 1];
            down[m] = low[t - 1] - low[t];
            sp[m] = r->v[0];
            sm[m] = r->v[1];
            str[m] = r->v[2];
            adx[m] = r->v[3];
            m++;
        } else {
            apo__dmi_run(&io[k], begins[k], ends[k], which, r);
        }
    }
    if (m == 0)
        return;
    for (size_t j = m; j < APO_DMI_LANES; j++)
        tr[j] = up[j] = down[j] = sp[j] = sm[j] = str[j] = adx[j] = 0.0;
    double y[APO_DMI_LANES];
    int counted[APO_DMI_LANES]; /* the bar taken: not a gap */
    /* Selects on the bits (apo_hd.h): a select of a quotient would keep a branch a lane. */
    for (size_t j = 0; j < APO_DMI_LANES; j++) {
        const int ok = apo__finite(tr[j]) & apo__finite(up[j]) & apo__finite(down[j]);
        const double pdm = apo__keep_if(up[j], (up[j] > 0.0) & (up[j] > down[j]));
        const double mdm = apo__keep_if(down[j], (down[j] > 0.0) & (down[j] > up[j]));
        /* APO__DMI_SUMS past the seeds: S - S / p + v, the chains a kernel reads. */
        double sp1 = sp[j], sm1 = sm[j];
        if (which != APO_DMI_MINUS)
            sp1 = sp1 - sp1 / pd + pdm;
        if (which != APO_DMI_PLUS)
            sm1 = sm1 - sm1 / pd + mdm;
        const double str1 = str[j] - str[j] / pd + tr[j];
        const int has_range = str1 != 0.0;
        const double plus = apo__pick_double(has_range, 100.0 * (sp1 / str1), 0.0);
        const double minus = apo__pick_double(has_range, 100.0 * (sm1 / str1), 0.0);
        double out;
        double adx1 = adx[j];
        if (which == APO_DMI_PLUS) {
            out = plus;
        } else if (which == APO_DMI_MINUS) {
            out = minus;
        } else {
            const double sum = minus + plus;
            const int defined = has_range & (sum != 0.0);
            const double dx = apo__pick_double(defined, 100.0 * (fabs(minus - plus) / sum), 0.0);
            if (which == APO_DMI_DX)
                adx1 = apo__pick_double(defined, dx, adx1);
            else
                adx1 = apo__pick_double(defined, (adx1 * keep + dx) / pd, adx1);
            out = adx1;
        }
        counted[j] = ok;
        y[j] = apo__pick_double(ok, apo__canonical_nan(out), (double)NAN);
        sp[j] = apo__pick_double(ok, sp1, sp[j]);
        sm[j] = apo__pick_double(ok, sm1, sm[j]);
        str[j] = apo__pick_double(ok, str1, str[j]);
        adx[j] = apo__pick_double(ok, adx1, adx[j]);
    }
    for (size_t j = 0; j < m; j++) {
        apo__cat_run *r = lane_run[j];
        *lane_out[j] = y[j];
        r->v[0] = sp[j];
        r->v[1] = sm[j];
        r->v[2] = str[j];
        r->v[3] = adx[j];
        /* A gap is not seen: the step returns before it counts the bar. */
        r->n[0] += (size_t)counted[j];
        if (which == APO_DMI_ADX)
            r->n[1] += (size_t)counted[j];
        r->t++;
    }
}

#endif /* APO_KERNELS_DMI_STREAM_LANES_H */
