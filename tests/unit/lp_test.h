/* SPDX-License-Identifier: MIT */
/* Common includes for the cmocka unit tests (cmocka needs these first). */
#ifndef LP_TEST_H
#define LP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/fail.h"
#include "common/json.h"

/* A failure record cleared for the next call: f(..., lp_fresh(&why)), then why.msg. */
static inline struct lp_fail *lp_fresh(struct lp_fail *f)
{
	lp_fail_clear(f);
	return f;
}

/* Run the JSON text in buf through python3's json module; true if it parses. */
static inline int lp_test_json_valid(const char *buf)
{
	char path[] = "/tmp/lp-json-XXXXXX";
	char cmd[128];
	int fd = mkstemp(path), rc;
	FILE *f;

	if (fd < 0)
		return 0;
	f = fdopen(fd, "w");
	fputs(buf, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s",
		 path);
	rc = system(cmd);
	unlink(path);
	return rc == 0;
}

/* The JSON object that emit(j, arg) writes, as a malloc'ed string checked to parse. */
static inline char *lp_test_json_capture(void (*emit)(struct lp_json *j, const void *arg),
					 const void *arg)
{
	struct lp_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	emit(&j, arg);
	lp_json_obj_end(&j);
	assert_int_equal(lp_json_finish(&j), 0);
	fclose(f);
	assert_true(lp_test_json_valid(buf));
	return buf;
}

#endif
