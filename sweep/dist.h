/* SPDX-License-Identifier: MIT */
/*
 * The distributions the diagnosis tests against (sweep/diag.c): Student's t
 * (exact, through the regularized incomplete beta function), the standard
 * normal quantile, the binomial upper tail, and the Sidak per-test level of a
 * per-run rate. Pure functions of doubles; NaN for arguments out of range.
 *
 * Why not GSL (libgsl-dev has gsl_cdf_tdist_Qinv): it is GPL-3, and linking it
 * would put liblinkperf (MIT) under GPL terms for every binary; these few
 * functions are short, standard (Lentz's continued fraction, Wichura's
 * AS 241) and tested against table values and closed forms
 * (tests/unit/test_sweep_dist.c).
 */
#ifndef LP_SWEEP_DIST_H
#define LP_SWEEP_DIST_H

/* I_x(a, b), the regularized incomplete beta function, a, b > 0, 0 <= x <= 1. */
double lp_dist_ibeta(double a, double b, double x);
/* P(T > t) for Student's t with df > 0 degrees of freedom (df = INFINITY: the normal). */
double lp_dist_t_sf(double t, double df);
/* The t with P(T > t) = p, 0 < p < 1: the upper p quantile (exact to ~1e-12 relative). */
double lp_dist_t_isf(double p, double df);
/* P(Z > z) for the standard normal. */
double lp_dist_norm_sf(double z);
/* The z with P(Z > z) = p (Wichura's AS 241, ~1e-16 relative). */
double lp_dist_norm_isf(double p);
/* P(X >= k) for X ~ Binomial(n, p). */
double lp_dist_binom_sf(long k, long n, double p);
/*
 * P(X >= k) for X hypergeometric: k or more of the n items drawn from a
 * population of total with `marked` marked ones (Fisher's exact test of a
 * 2 x 2 table, one-sided).
 */
double lp_dist_hypergeom_sf(long k, long total, long marked, long n);
/*
 * How much larger than its estimate s a noise sigma can be at confidence
 * 1 - p with df degrees of freedom: sqrt(df / chi2_p(df)), the chi-square's
 * lower p quantile by Wilson and Hilferty's cube root (within 1 % from 3 df).
 */
double lp_dist_sigma_upper(double df, double p);
/* Per-test level that keeps the chance of any false call among m independent tests at
 * alpha: 1 - (1 - alpha)^(1/m) (Sidak; exact for independent tests, conservative for
 * positively dependent ones). */
double lp_dist_sidak(double alpha, double m);

#endif
