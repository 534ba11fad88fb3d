/* SPDX-License-Identifier: MIT */
/*
 * CHECK(cond, fmt, ...) for the tests/gpu C checks: prints FAIL and counts it in `fails`.
 * WHY: a fresh failure record for one library call (the library never prints); a
 * failing CHECK adds the cause that call recorded.
 */
#ifndef LP_TESTS_GPU_CHECK_H
#define LP_TESTS_GPU_CHECK_H

#include <stdio.h>

#include "common/fail.h"

static struct lp_fail check_why;

#define WHY (lp_fail_clear(&check_why), &check_why)

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			if (!lp_fail_ok(&check_why))                                               \
				fprintf(stderr, " (%s)", lp_fail_msg(&check_why));                 \
			fprintf(stderr, "\n");                                                     \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

#endif
