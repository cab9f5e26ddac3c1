/*
 * catalog_reference.h: independent references for the indicator catalog (docs/kernels.md,
 * "The catalog"), written from the definitions: long double, whole series, one window or
 * one sequential pass at a time, nothing shared with kernels/.
 *
 * Each reference writes out[t] (NaN where the definition gives none, with the gap policy
 * of docs/kernels.md) and scale[t], the magnitude the kernel's error is measured against
 * there (the data scale where the definition cancels; 0 where the kernel must be exact).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_H
#define APO_TEST_CATALOG_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* in: the kernel's inputs in its order; p: its parameters in its order. */
typedef void (*apo__cat_ref_fn)(const double *const *in, size_t n, const double *p, double *out,
                                double *scale);

void apo__ref_cat_sma(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_ema(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_wma(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_mom(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_roc(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_stddev(const double *const *in, size_t n, const double *p, double *out,
                         double *scale);
void apo__ref_cat_var(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_max(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_min(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_trange(const double *const *in, size_t n, const double *p, double *out,
                         double *scale);
void apo__ref_cat_atr(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_natr(const double *const *in, size_t n, const double *p, double *out,
                       double *scale);
void apo__ref_cat_dema(const double *const *in, size_t n, const double *p, double *out,
                       double *scale);
void apo__ref_cat_tema(const double *const *in, size_t n, const double *p, double *out,
                       double *scale);
void apo__ref_cat_rsi(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_cmo(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_willr(const double *const *in, size_t n, const double *p, double *out,
                        double *scale);
void apo__ref_cat_cci(const double *const *in, size_t n, const double *p, double *out,
                      double *scale);
void apo__ref_cat_linearreg(const double *const *in, size_t n, const double *p, double *out,
                            double *scale);
void apo__ref_cat_linearreg_slope(const double *const *in, size_t n, const double *p, double *out,
                                  double *scale);
void apo__ref_cat_correl(const double *const *in, size_t n, const double *p, double *out,
                         double *scale);
void apo__ref_cat_beta(const double *const *in, size_t n, const double *p, double *out,
                       double *scale);
void apo__ref_cat_aroondown(const double *const *in, size_t n, const double *p, double *out,
                            double *scale);
void apo__ref_cat_aroonup(const double *const *in, size_t n, const double *p, double *out,
                          double *scale);
void apo__ref_cat_stochf_fastk(const double *const *in, size_t n, const double *p, double *out,
                               double *scale);
void apo__ref_cat_stochf_fastd(const double *const *in, size_t n, const double *p, double *out,
                               double *scale);
void apo__ref_cat_stoch_slowk(const double *const *in, size_t n, const double *p, double *out,
                              double *scale);
void apo__ref_cat_stoch_slowd(const double *const *in, size_t n, const double *p, double *out,
                              double *scale);

/* A random OHLCV walk: close is apo__test_random_walk(seed, n, start, step); high and low
 * lie above and below it by up to 2 steps (high >= close >= low), open within them,
 * volume positive. Any of the pointers may be NULL. */
void apo__ref_ohlcv(uint64_t seed, size_t n, double start, double step, double *open, double *high,
                    double *low, double *close, double *volume);

#endif /* APO_TEST_CATALOG_REFERENCE_H */
