// SPDX-License-Identifier: MIT
/* The clock's reported resolution is the resolution of the clock in use. */
#include "lp_test.h"

#include <errno.h>
#include <time.h>

#include "common/clock.h"

static void test_res_raw(void **state)
{
	struct timespec ts;

	(void)state;
	assert_int_equal(lp_clock_init("raw"), 0);
	assert_string_equal(lp_clock_name(), "CLOCK_MONOTONIC_RAW");
	assert_int_equal(clock_getres(CLOCK_MONOTONIC_RAW, &ts), 0);
	assert_true(lp_clock_res_ns() == (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec);
}

/*
 * With the TSC in use, the resolution is one tick: the period lp_ticks_to_ns converts with.
 * Where no usable TSC exists (not x86, unstable rate), "tsc" is refused and the raw clock stays.
 */
static void test_res_tsc(void **state)
{
	int rc = lp_clock_init("tsc");

	(void)state;
	if (rc == -EOPNOTSUPP) {
		assert_string_equal(lp_clock_name(), "CLOCK_MONOTONIC_RAW");
		test_res_raw(state);
		return;
	}
	assert_int_equal(rc, 0);
	assert_string_equal(lp_clock_name(), "tsc");
	assert_true(lp_clock_res_ns() > 0);
	assert_true(fabs(lp_clock_res_ns() - lp_ticks_to_ns(1)) < 1e-12);
	/* Any TSC in service ticks faster than 1 GHz: the period is under a nanosecond. */
	assert_true(lp_clock_res_ns() < 1.0);
	assert_int_equal(lp_clock_init("raw"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_res_raw),
		cmocka_unit_test(test_res_tsc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
