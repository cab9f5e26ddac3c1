/*
 * The split solver: the shares of `total` elements that minimise the predicted makespan
 * max_i (latency_i + n_i * cost_i) over the devices given work, with sum n_i = total.
 *
 * For a set S of devices that all finish together at T, n_i = (T - latency_i) / cost_i,
 * so T = (total + sum_S latency_i / cost_i) / sum_S (1 / cost_i). The optimal set holds
 * exactly the devices whose latency is below its T, so it is a prefix of the devices
 * sorted by latency: the solver tries each prefix and keeps the best. A device left out
 * would not shorten the makespan; that is the CPU-or-GPU decision for small inputs.
 */
#ifndef APO_RUNTIME_BALANCE_SOLVER_H
#define APO_RUNTIME_BALANCE_SOLVER_H

#include <stddef.h>

#include "balance/model.h"

/* n is at most APO_MAX_DEVICES (asserted).
 * Writes shares (summing to 1, zero for devices left out or not usable) and the predicted
 * makespan in seconds. Devices with usable[i] == 0 or an invalid model are left out.
 * Ties (equal latency) are taken in device order. Returns APO_ERR_NO_DEVICE when no device
 * is usable. */
apo_status apo__solve_split(const apo__model *models, const int *usable, size_t n, double total,
                            double *shares, double *makespan_s);

/* apo__solve_split() where device i is worth giving work only from min_elements[i] elements
 * on (NULL: no floor): a GPU whose share would not fill its SMs once is slower than its
 * model says (latency_i + n_i cost_i assumes every SM busy). A device whose share comes out
 * below its floor is left out and the rest re-solved, the one furthest below its floor
 * (relative to it) first, since leaving one out raises the others' shares; the last device
 * left takes it all whatever its floor. */
apo_status apo__solve_split_min(const apo__model *models, const int *usable,
                                const double *min_elements, size_t n, double total, double *shares,
                                double *makespan_s);

#endif
