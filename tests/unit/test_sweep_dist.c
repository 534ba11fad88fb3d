// SPDX-License-Identifier: MIT
/*
 * Unit tests for sweep/dist.c: Student's t quantiles against printed tables
 * and the closed forms of 1, 2 and 3 degrees of freedom far in the tail (where
 * the first-order Cornish-Fisher expansion the diagnosis used before is off by
 * 40 %), the normal quantile, the binomial tail, Sidak.
 */
#include "lp_test.h"

#include "sweep/dist.h"

static void near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("got %.10g, want %.10g (relative %.2g allowed)", got, want, rel);
}

/* Upper quantiles from the usual printed t table (4 significant digits). */
static void test_t_table(void **state)
{
	static const struct {
		double p, df, t;
	} table[] = {
		{ 0.025, 1, 12.706 },  { 0.025, 2, 4.303 },  { 0.025, 5, 2.571 },
		{ 0.025, 10, 2.228 },  { 0.025, 30, 2.042 }, { 0.025, 120, 1.980 },
		{ 0.005, 1, 63.657 },  { 0.005, 5, 4.032 },  { 0.005, 20, 2.845 },
		{ 0.001, 5, 5.893 },   { 0.001, 10, 4.144 }, { 0.0005, 5, 6.869 },
		{ 0.0005, 30, 3.646 }, { 0.1, 3, 1.638 },    { 0.05, 7, 1.895 },
		{ 0.25, 4, 0.741 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		near(lp_dist_t_isf(table[i].p, table[i].df), table[i].t, 6e-4);
		near(lp_dist_t_sf(table[i].t, table[i].df), table[i].p, 5e-3);
	}
	/* symmetry, the median, the normal as df grows */
	near(lp_dist_t_isf(0.975, 5), -2.571, 6e-4);
	assert_true(lp_dist_t_isf(0.5, 5) == 0);
	near(lp_dist_t_isf(0.001, 1e7), lp_dist_norm_isf(0.001), 1e-5);
	near(lp_dist_t_isf(0.001, INFINITY), 3.090232306, 1e-8);
	assert_true(isnan(lp_dist_t_isf(0, 5)) && isnan(lp_dist_t_isf(0.1, 0)));
}

/*
 * Far tails against closed forms: df 1 (Cauchy: t = cot(pi p)), df 2
 * (t = (1 - 2p) / sqrt(2p(1 - p))), df 3 (P(T > t) by its CDF, solved).
 * The z = 4 one-sided level (3.17e-5) at 5 df is 12.28; the first-order
 * Cornish-Fisher quantile z + (z^3 + z) / (4 df) the diagnosis used gave 7.4.
 */
static void test_t_tails(void **state)
{
	double z4 = lp_dist_norm_sf(4);

	(void)state;
	for (double p = 1e-2; p > 1e-12; p /= 10) {
		near(lp_dist_t_isf(p, 1), 1 / tan(M_PI * p), 1e-9);
		near(lp_dist_t_isf(p, 2), (1 - 2 * p) / sqrt(2 * p * (1 - p)), 1e-9);
	}
	for (double t = 1; t < 300; t *= 3.7) { /* df 3, closed form (it cancels beyond) */
		double x = t / sqrt(3);
		double sf = 0.5 - (atan(x) + x / (1 + x * x)) / M_PI;

		near(lp_dist_t_sf(t, 3), sf, 1e-6); /* the reference cancels at large t */
	}
	near(z4, 3.167124183e-5, 1e-9);
	near(lp_dist_t_isf(z4, 5), 12.28, 1e-3);
	assert_true(fabs((4 + (64.0 + 4) / 20) - lp_dist_t_isf(z4, 5)) > 4); /* CF is far off */
}

static void test_normal_binomial_sidak(void **state)
{
	(void)state;
	near(lp_dist_norm_isf(0.025), 1.959963985, 1e-9);
	near(lp_dist_norm_isf(1e-9), 5.997807015, 1e-8);
	near(lp_dist_norm_isf(0.9), -1.281551566, 1e-8);
	near(lp_dist_norm_sf(lp_dist_norm_isf(1e-15)), 1e-15, 1e-7);
	/* P(X >= 8) for Binomial(10, 0.5) = 56 / 1024; a tail of a rare event */
	near(lp_dist_binom_sf(8, 10, 0.5), 56.0 / 1024, 1e-10);
	near(lp_dist_binom_sf(1, 100, 0.01), 1 - pow(0.99, 100), 1e-10);
	assert_true(lp_dist_binom_sf(0, 10, 0.3) == 1 && lp_dist_binom_sf(11, 10, 0.3) == 0);
	near(lp_dist_ibeta(2, 3, 0.4), 0.5248, 1e-10); /* I_0.4(2,3) = 1 - 0.6^4 - 4*0.4*0.6^3 */
	/* Fisher's exact: 4 of 12 in scope slow, none of 44 outside: C(12,4) / C(56,4) */
	near(lp_dist_hypergeom_sf(4, 56, 4, 12), 495.0 / 367290, 1e-9);
	near(lp_dist_hypergeom_sf(1, 10, 3, 4), 1 - 35.0 / 210, 1e-12); /* 1 - C(7,4)/C(10,4) */
	assert_true(lp_dist_hypergeom_sf(0, 10, 3, 4) == 1 &&
		    lp_dist_hypergeom_sf(4, 10, 3, 4) == 0);
	/* sigma's upper bound from chi-square quantiles (table: chi2_0.1(5) = 1.610, (40) = 29.05) */
	near(lp_dist_sigma_upper(5, 0.1), sqrt(5 / 1.610), 0.01);
	near(lp_dist_sigma_upper(40, 0.1), sqrt(40 / 29.05), 0.002);
	/* Sidak: 1 - (1 - alpha)^(1/m); with m = 1 alpha itself */
	near(lp_dist_sidak(0.01, 1), 0.01, 1e-12);
	near(lp_dist_sidak(0.01, 1000), 1.0050285e-5, 1e-6);
	assert_true(isnan(lp_dist_sidak(0, 3)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_table),
		cmocka_unit_test(test_t_tails),
		cmocka_unit_test(test_normal_binomial_sidak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
