/* SPDX-License-Identifier: MIT */
/* CHECK(cond, fmt, ...) for the tests/gpu C checks: prints FAIL and counts it in `fails`. */
#ifndef LP_TESTS_GPU_CHECK_H
#define LP_TESTS_GPU_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			fprintf(stderr, "\n");                                                     \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

#endif
