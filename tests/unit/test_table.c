// SPDX-License-Identifier: MIT
/* Unit tests for the table number formatter: no exponent ever, digits as promised. */
#include "lp_test.h"

#include "common/table.h"

static void assert_fmt(double v, int sig, const char *want)
{
	char buf[64];

	lp_fmt_sig(buf, sizeof(buf), v, sig);
	if (strcmp(buf, want))
		fail_msg("lp_fmt_sig(%g, %d) = \"%s\", want \"%s\"", v, sig, buf, want);
}

static void test_fmt_sig_cases(void **state)
{
	(void)state;
	assert_fmt(5.626e-05, 4, "0.00005626"); /* the guest demo's write_bw, GB/s */
	assert_fmt(1234.56, 4, "1235");
	assert_fmt(123456.7, 4, "123457"); /* past sig digits: a whole number, not 1.235e+05 */
	assert_fmt(12.3456, 4, "12.35");
	assert_fmt(0.5, 4, "0.5000");
	assert_fmt(-0.5, 3, "-0.500");
	assert_fmt(9.99996, 4, "10.00"); /* rounding carries into the next decade */
	assert_fmt(0.099996, 4, "0.1000");
	assert_fmt(1, 1, "1");
	assert_fmt(0, 4, "0");
	assert_fmt(1e9, 4, "1000000000");
}

/* Every magnitude from 1e-9 to 1e12: no exponent, and the text reads back within sig digits. */
static void test_fmt_sig_sweep(void **state)
{
	char buf[64];

	(void)state;
	for (double v = 1e-9; v < 1e12; v *= 1.37) {
		for (int sig = 3; sig <= 6; sig++) {
			double back;

			lp_fmt_sig(buf, sizeof(buf), v, sig);
			if (strpbrk(buf, "eE"))
				fail_msg("%g at %d digits printed as %s", v, sig, buf);
			back = strtod(buf, NULL);
			if (fabs(back - v) > 0.5 * pow(10, floor(log10(v)) + 1 - sig) * 1.0001)
				fail_msg("%g at %d digits printed as %s", v, sig, buf);
		}
	}
	/* Narrow buffers truncate, never overflow. */
	lp_fmt_sig(buf, 4, 5.626e-05, 4);
	assert_string_equal(buf, "0.0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_sig_cases),
		cmocka_unit_test(test_fmt_sig_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
