/*
 * test_oscillators.c: the catalog's oscillators (kernels/oscillators/: mom, roc, rsi, cmo,
 * willr, cci, stochf, stoch): mom's plain-difference blocks on every vector path, bit for bit
 * against the rule bar by bar. The one gap rule of willr, stochf and stoch is
 * test_catalog_gaps.c's. Every kernel of the catalog is also checked by the cases of
 * common/test_catalog_kernels.c and its slow counterpart (against its reference over lengths
 * 1 to 1e5, at its upper bound, in any tile order, reading only its halo); there too rsi and
 * cmo against TA-Lib's published values, willr and stochf on samples full of ties, and cci's
 * streams' pieces. macd, the built-in, is tested in tests/kernels/test_kernels.c.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "cpu_isa.h"

/* The rule's bits at every bar of one run of mom at period p over x. */
typedef struct mom_rule {
    const double *x;
    size_t p;
} mom_rule;

static void check_mom_against_rule(const path_run *run, size_t n, void *ctx) {
    const mom_rule *m = ctx;
    const double *x = m->x, *got = run->got;
    const size_t p = m->p;
    for (size_t t = 0; t < n; t++) {
        const int finite = t >= p && isfinite(x[t]) && isfinite(x[t - p]);
        const double want = finite ? x[t] - x[t - p] : (double)NAN;
        cr_assert(apo__bits_of(got[t]) == apo__bits_of(want),
                  "mom p %zu on %s in pieces of %zu, output at double %zu of a "
                  "line, at %zu: got %.17g want %.17g",
                  p, apo__cpu_isa_name((apo__cpu_isa)run->isa), run->piece, run->offset, t, got[t],
                  want);
    }
}

/* mom's plain-difference blocks (mom_tile.h) on every path, bit for bit against the rule
 * bar by bar: x[t] - x[t - p] where both samples are finite, else the NAN constant. Gaps of
 * each kind sit at and beside the blocks' edges, where a block reads them only as x[t - p]
 * (periods across the block length), and the row is cut into pieces that start anywhere.
 * The output starts at each of the eight doubles of a 64-byte line: a long piece's first
 * block ends where its outputs reach a line, so the blocks' edges move with it. */
Test(catalog, mom_blocks_on_every_path_with_gaps_at_their_edges) {
    const size_t n = 3000, periods[] = {1, 10, 511, 512, 513, 1500, 2999, 3000};
    series s;
    series_make(&s, 4242, n, 1, 100.0, 0.5, 0);
    const size_t at[] = {0, 511, 512, 1023, 1030, 1536, 2047, 2999};
    const double gap[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        s.close[at[i]] = gap[i % 3];
    s.close[2500] = s.close[2500 - 500] = INFINITY; /* inf - inf, for p 500 */
    static const size_t pieces[] = {1, 7, 600, 1100, 3000};
    for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++) {
        apo__cat_io io;
        memset(&io, 0, sizeof io);
        io.in[0] = s.close;
        io.p[0] = (double)periods[pi];
        io.h = periods[pi];
        mom_rule rule = {s.close, periods[pi]};
        tiles_on_every_path(APO_CAT_MOM, &io, n, pieces, sizeof pieces / sizeof pieces[0],
                            check_mom_against_rule, &rule);
    }
    series_free(&s);
}
