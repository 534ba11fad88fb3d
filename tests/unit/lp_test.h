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

#endif
