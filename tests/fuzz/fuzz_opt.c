// SPDX-License-Identifier: MIT
/*
 * The option parser with a table holding every option kind (the tools' own
 * tables live in their mains). The input is an argument vector: arguments are
 * separated by NUL bytes.
 */
#include "tests/fuzz/fuzz.h"

#include "common/opt.h"

LP_FUZZ_QUIET_INIT

#define MAX_ARGS 32

static const char *const tests[] = { "write_lat", "read_lat", "write_bw", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1] = { "fuzz" };
	const char *pos[4], *str = NULL, *list = NULL;
	struct lp_sizes sizes = { 0 };
	bool flag = false, help = false;
	unsigned u = 0;
	uint64_t u64 = 0, size_v = 0;
	int i = 0, choice = 0, argc = 1, npos = 0;
	double d = 0, secs = 0;
	const struct lp_opt tab[] = {
		{ .name = "flag",
		  .shortname = 'f',
		  .kind = LP_OPT_FLAG,
		  .dst = &flag,
		  .help = "a flag" },
		{ .name = "uint",
		  .shortname = 'u',
		  .kind = LP_OPT_UINT,
		  .dst = &u,
		  .min = 1,
		  .max = 8192,
		  .metavar = "N",
		  .help = "an unsigned" },
		{ .name = "u64",
		  .shortname = 'U',
		  .kind = LP_OPT_U64,
		  .dst = &u64,
		  .metavar = "N",
		  .help = "unchecked u64" },
		{ .name = "int",
		  .shortname = 'i',
		  .kind = LP_OPT_INT,
		  .dst = &i,
		  .min = -1,
		  .max = 1023,
		  .metavar = "N",
		  .help = "an int" },
		{ .name = "double",
		  .shortname = 'd',
		  .kind = LP_OPT_DOUBLE,
		  .dst = &d,
		  .max = 100,
		  .metavar = "X",
		  .help = "a double" },
		{ .name = "size",
		  .shortname = 's',
		  .kind = LP_OPT_SIZE,
		  .dst = &size_v,
		  .min = 1,
		  .max = 1ull << 32,
		  .metavar = "SIZE",
		  .help = "a size" },
		{ .name = "sizes",
		  .shortname = 'S',
		  .kind = LP_OPT_SIZES,
		  .dst = &sizes,
		  .min = 1,
		  .max = 1ull << 32,
		  .metavar = "SIZES",
		  .help = "sizes" },
		{ .name = "duration",
		  .shortname = 'D',
		  .kind = LP_OPT_SECONDS,
		  .dst = &secs,
		  .max = 86400,
		  .metavar = "SECS",
		  .help = "seconds" },
		{ .name = "str",
		  .shortname = 'x',
		  .kind = LP_OPT_STR,
		  .dst = &str,
		  .metavar = "S",
		  .help = "a string" },
		{ .name = "test",
		  .shortname = 't',
		  .kind = LP_OPT_CHOICE,
		  .dst = &choice,
		  .choices = tests,
		  .metavar = "TEST",
		  .help = "a choice" },
		{ .name = "tests",
		  .shortname = 'T',
		  .kind = LP_OPT_LIST,
		  .dst = &list,
		  .choices = tests,
		  .metavar = "LIST",
		  .help = "a list" },
		{ 0 },
	};

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t off = 0; off <= size && argc < MAX_ARGS; argc++) {
		argv[argc] = buf + off;
		off += strlen(buf + off) + 1;
	}
	argv[argc] = NULL;
	if (lp_opt_parse(tab, argc, argv, pos, 4, &npos, &help) == 0) {
		if (npos < 0 || npos > 4 || sizes.n > LP_SIZES_MAX)
			abort();
		for (unsigned k = 0; k < sizes.n; k++)
			if (sizes.v[k] < 1 || sizes.v[k] > 1ull << 32)
				abort();
		if (choice < 0 || choice > 2 || (u && (u < 1 || u > 8192)))
			abort();
	}
	free(buf);
	return 0;
}
