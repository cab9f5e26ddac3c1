/* Configurations and the guard; see configurations.h. */
#include <math.h>
#include <string.h>

#include "balance/configurations.h"
#include "balance/solver.h"

/* Device d's predicted seconds for `n` elements with model m: a share below a full wave
 * costs the wave. */
static double device_time(const apo__model *m, const apo__shape *s, size_t d, double n) {
    double work = n;
    if (s->wave_elements[d] > 0 && work < s->wave_elements[d])
        work = s->wave_elements[d];
    return m->latency_s + work * m->cost_s;
}

/* The elements device d can finish by T with model m (0 when even its least share cannot). */
static double capacity(const apo__model *m, const apo__shape *s, size_t d, double T) {
    if (!(T > device_time(m, s, d, 0)))
        return 0;
    return (T - m->latency_s) / m->cost_s;
}

/* Fills the devices with at most what each can finish by T, those that move the fewest host
 * bytes per element first, while the bus can move the bytes in T. Returns the elements
 * placed, amount[] each device's. */
static double fill(const apo__model *m, const int *use, const apo__shape *s, size_t n, double T,
                   double *amount) {
    size_t order[APO_MAX_DEVICES], k = 0;
    for (size_t d = 0; d < n; d++) {
        amount[d] = 0;
        if (!use[d])
            continue;
        size_t j = k++;
        for (; j > 0 && s->host_bytes[order[j - 1]] > s->host_bytes[d]; j--)
            order[j] = order[j - 1];
        order[j] = d;
    }
    double budget = s->bus_bytes_s * T, placed = 0;
    for (size_t j = 0; j < k; j++) {
        const size_t d = order[j];
        double take = capacity(&m[d], s, d, T);
        const double h = s->host_bytes[d];
        if (h > 0 && take * h > budget)
            take = budget / h;
        budget -= take * h;
        amount[d] = take;
        placed += take;
    }
    return placed;
}

/* The split re-solved with the bus: the least T at which the devices given work by the
 * plain split can place every element within the bus's bytes (bisection: what can be placed
 * grows with T). */
static double bus_split(const apo__model *m, const int *use, const apo__shape *s, size_t n,
                        double *shares) {
    double amount[APO_MAX_DEVICES];
    double lo = 0, hi = 1e-6;
    while (fill(m, use, s, n, hi, amount) < s->elements && hi < 1e9)
        hi *= 2;
    for (int it = 0; it < 200 && hi - lo > hi * 1e-12; it++) {
        const double mid = (lo + hi) / 2;
        if (fill(m, use, s, n, mid, amount) >= s->elements)
            hi = mid;
        else
            lo = mid;
    }
    const double placed = fill(m, use, s, n, hi, amount);
    for (size_t d = 0; d < n; d++)
        shares[d] = placed > 0 ? amount[d] / placed : 0;
    return hi;
}

/* Seconds the split's shares keep the bus busy. */
static double bus_time(const apo__shape *s, const double *shares, size_t n) {
    double bytes = 0;
    for (size_t d = 0; d < n; d++)
        bytes += shares[d] * s->elements * s->host_bytes[d];
    return s->bus_bytes_s > 0 ? bytes / s->bus_bytes_s : 0;
}

/* Device d alone: its alone model, else its model sped up; never faster than its bytes. */
static double alone_time(const apo__model *model, const apo__model *alone, const apo__shape *s,
                         size_t d) {
    double t;
    if (alone != NULL && alone->valid) {
        t = device_time(alone, s, d, s->elements);
    } else {
        apo__model faster = *model;
        const double speedup = s->alone_speedup[d] > 0 ? s->alone_speedup[d] : 1.0;
        faster.cost_s /= speedup;
        t = device_time(&faster, s, d, s->elements);
    }
    if (s->bus_bytes_s > 0 && s->host_bytes[d] > 0)
        t = fmax(t, model->latency_s + s->elements * s->host_bytes[d] / s->bus_bytes_s);
    return t;
}

/* How far from the sizes a configuration was measured at its measurement still stands: a
 * makespan line from calls of one size says little of calls ten times larger (a latency
 * taken for a cost, or the reverse), where the devices' models know better. */
#define MEASURED_REACH 2.0

/* Whether measured configuration c stands for calls of n elements: measured within
 * APO_CONFIG_STALE_CALLS learning calls, and its window (the calls it was measured at, or the
 * sizes stored with it) holds a size within MEASURED_REACH of n. */
static int measured_at(const apo__model *measured, const unsigned *age, size_t c, double n) {
    const apo__model *m = &measured[c];
    if (!m->valid || (age != NULL && age[c] > APO_CONFIG_STALE_CALLS))
        return 0;
    double ns[APO_MODEL_WINDOW], ts[APO_MODEL_WINDOW];
    const unsigned count = apo__model_window(m, ns, ts);
    for (unsigned i = 0; i < count; i++)
        if (n <= ns[i] * MEASURED_REACH && n * MEASURED_REACH >= ns[i])
            return 1;
    return 0;
}

/* The split over the devices in use: the solver's shares, and their makespan with a share of
 * less than a wave costing the wave; re-solved for the bus where it holds them up. */
static apo_status solve_split(const apo__model *models, const int *use, size_t n,
                              const apo__shape *shape, double *shares, double *makespan_s,
                              int *bus_bound) {
    double solved;
    apo_status st =
        apo__solve_split_min(models, use, shape->min_elements, n, shape->elements, shares, &solved);
    if (st != APO_OK)
        return st;
    double split = 0;
    for (size_t d = 0; d < n; d++)
        if (shares[d] > 0)
            split = fmax(split, device_time(&models[d], shape, d, shares[d] * shape->elements));
    *bus_bound = 0;
    if (shape->bus_bytes_s > 0 && bus_time(shape, shares, n) > split) {
        int in_split[APO_MAX_DEVICES];
        for (size_t d = 0; d < n; d++)
            in_split[d] = shares[d] > 0;
        split = bus_split(models, in_split, shape, n, shares);
        *bus_bound = 1;
    }
    *makespan_s = split;
    return APO_OK;
}

apo_status apo__choose_configuration(const apo__model *models, const apo__model *alone_models,
                                     const apo__model *measured, const unsigned *measured_age,
                                     const int *usable, size_t n, const apo__shape *shape,
                                     double *shares, apo__config_choice *choice) {
    int use[APO_MAX_DEVICES] = {0};
    size_t candidates = 0;
    for (size_t d = 0; d < n; d++) {
        use[d] = usable[d] && models[d].valid && models[d].cost_s > 0;
        candidates += (size_t)use[d];
    }
    choice->alone = -1;
    choice->unmeasured_alone = -1;
    choice->config_probe = 0;
    choice->bus_bound = 0;
    choice->split_s = INFINITY;
    for (size_t d = 0; d < n; d++)
        choice->alone_s[d] = INFINITY;
    double split;
    apo_status st = solve_split(models, use, n, shape, shares, &split, &choice->bus_bound);
    if (st != APO_OK)
        return st;
    size_t given = 0;
    for (size_t d = 0; d < n; d++)
        given += shares[d] > 0;
    choice->split_s = split;
    choice->predicted_s = split;
    /* One device: there is nothing to choose. */
    if (candidates < 2)
        return APO_OK;

    /* Each device alone, predicted. */
    for (size_t d = 0; d < n; d++)
        if (use[d])
            choice->alone_s[d] =
                alone_time(&models[d], alone_models != NULL ? &alone_models[d] : NULL, shape, d);
    /* A split that gives one device everything is that device alone (a cpu then runs on
     * every core). */
    if (given == 1)
        for (size_t d = 0; d < n; d++)
            if (shares[d] > 0)
                choice->split_s = choice->alone_s[d];
    choice->predicted_s = choice->split_s;

    /* The guard: a device alone where it is predicted faster; and where both the split and
     * the device alone were measured, the measurements decide between the two (a call's
     * makespan holds what no device's busy time does: waits, hand-overs, the bus). */
    const int split_measured =
        measured != NULL && measured_at(measured, measured_age, 0, shape->elements) && given > 1;
    const double split_measured_s =
        split_measured ? apo__model_predict(&measured[0], shape->elements) : NAN;
    for (size_t d = 0; d < n; d++) {
        /* A device on another device's model is not run alone on that guess: the split gives
         * it a share, whose time teaches it its own model. */
        if (!use[d] || models[d].borrowed || (given == 1 && shares[d] > 0))
            continue;
        /* By prediction, the split must gain more than the models can tell apart. */
        int faster = choice->alone_s[d] < choice->split_s * (1.0 + APO_SPLIT_MIN_GAIN);
        if (split_measured && measured_at(measured, measured_age, 1 + d, shape->elements) &&
            choice->alone < 0) {
            const double alone_measured_s = apo__model_predict(&measured[1 + d], shape->elements);
            faster = alone_measured_s < split_measured_s;
            if (faster)
                choice->alone_s[d] = alone_measured_s;
        }
        if (faster && (choice->alone < 0 || choice->alone_s[d] < choice->predicted_s)) {
            choice->predicted_s = choice->alone_s[d];
            choice->alone = (int)d;
        }
    }
    if (choice->alone >= 0) {
        for (size_t d = 0; d < n; d++)
            shares[d] = (int)d == choice->alone ? 1.0 : 0.0;
        return APO_OK;
    }
    /* The split stands: the best device alone is worth a measurement now and then where its
     * configuration is not the split's part of it. */
    int differs = shape->bus_bytes_s > 0;
    for (size_t d = 0; d < n; d++)
        differs |= use[d] && (shape->alone_speedup[d] > 1 || shape->wave_elements[d] > 0);
    if (given > 1 && differs) {
        size_t best = n;
        for (size_t d = 0; d < n; d++)
            if (use[d] && !models[d].borrowed &&
                (best == n || choice->alone_s[d] < choice->alone_s[best]))
                best = d;
        if (best < n &&
            (measured == NULL || !measured_at(measured, measured_age, 1 + best, shape->elements)))
            choice->unmeasured_alone = (int)best;
    }
    return APO_OK;
}

double apo__split_configuration(const apo__model *models, const int *usable, size_t n,
                                const apo__shape *shape, double *shares) {
    int use[APO_MAX_DEVICES] = {0};
    for (size_t d = 0; d < n; d++)
        use[d] = usable[d] && models[d].valid && models[d].cost_s > 0;
    double split;
    int bus_bound;
    return solve_split(models, use, n, shape, shares, &split, &bus_bound) == APO_OK ? split : NAN;
}
