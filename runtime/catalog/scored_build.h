/*
 * scored_build.h: what the scored kernels' sources share, private to catalog/:
 * scored_kernels.c (the hooks every scored kernel runs, building a kernel from a rule's row),
 * scored_table.c (the table's rules and the lookups by name), scored_launch.c (the CUDA
 * launch) and scored_generic.c (the rules on any output of a built-in indicator,
 * docs/scores.md "Rules on any output", built on first use from a row made for them). The
 * table's lookups fall back on the rules on any output, which are built with
 * scored_kernels.c's builder. It includes none of their headers, so that no file's piece
 * includes another's.
 */
#ifndef APO_RUNTIME_CATALOG_SCORED_BUILD_H
#define APO_RUNTIME_CATALOG_SCORED_BUILD_H

#include <stddef.h>

#include "catalog/kernel.h"

/* A rule's row: the table's (scored_table.c), or one made for a rule on any output. */
typedef struct apo__scored_def {
    const char *indicator;
    const char *rule_name;
    int kind;            /* APO_RULE_* */
    int a, b;            /* the outputs the rule reads (score_tile.h's apo__rule) */
    int thresholds;      /* the rule takes `lower` and `upper` (ZONE, REVERT) */
    double lower, upper; /* their defaults */
    double min, max;     /* the range each may take: the indicator's own */
} apo__scored_def;

/* Builds into k and sc the scored kernel of `ind` and a rule named rule_name (which must
 * outlive it) in view `view` (score_more.h's APO_SCORE_VIEW_*), with thresholds when `d` has
 * them; d NULL: a user's rule, which has none. */
void apo__scored_fill(apo__kernel *k, apo__scoring *sc, const apo__kernel *ind,
                      const char *rule_name, const apo__scored_def *d, int view);

/* scored_launch.c: the GPU side of the built-in rules' kernels in the sum view (a launcher
 * where the build has CUDA), and of the others, which have no launcher: GPUs take no share. */
extern const apo__cuda_impl apo__scored_cuda;
extern const apo__cuda_impl apo__scored_host_only_cuda;
/* Leaves k, a scored kernel, without a GPU launcher: GPUs take no share of it. */
void apo__scored_host_only(apo__kernel *k);

/* 1 when a rule can read `ind` with `extra` parameters of its own after the indicator's
 * (thresholds, cost, periods_per_year, side); else 0 with the reason in err. */
int apo__scored_scorable(const apo__kernel *ind, size_t extra, char *err, size_t err_size);

/* scored_kernels.c: the view a rule's name asks for after its '/' (none: APO_SCORE_VIEW_SUM), or -1
 * for an unknown one; `base` gets the rule's own name. */
int apo__scored_view_of(const char *rule, char *base, size_t base_size);

/* scored_kernels.c: the suffix of view `view` after a rule's '/' ("" for the sum). */
const char *apo__scored_view_name(int view);

/* scored_generic.c: whether the rule's name starts with a kind of the rules on any output
 * (`zone`, `revert`, `cross`, `price_cross`, `signal`), up to its first '.'. */
int apo__scored_generic_kind_known(const char *rule);

/* scored_generic.c: the scored kernel of the rule on any output rule_view (a view may follow
 * its '/') of the built-in indicator ind, built on first use and kept for the process:
 * APO_OK with *out; else APO_ERR_UNKNOWN_KERNEL (an unknown view), APO_ERR_INVALID_ARGUMENT
 * (an output ind lacks, a name too long, an indicator no rule can read, the process's
 * bound of such kernels reached) or APO_ERR_OUT_OF_MEMORY, with the reason in err. */
apo_status apo__scored_generic_kernel(const apo__kernel *ind, const char *rule_view,
                                      const apo__kernel **out, char *err, size_t err_size);

#endif /* APO_RUNTIME_CATALOG_SCORED_BUILD_H */
