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
		{ "flag", 'f', LP_OPT_FLAG, &flag, 0, 0, NULL, NULL, "a flag" },
		{ "uint", 'u', LP_OPT_UINT, &u, 1, 8192, NULL, "N", "an unsigned" },
		{ "u64", 'U', LP_OPT_U64, &u64, 0, 0, NULL, "N", "unchecked u64" },
		{ "int", 'i', LP_OPT_INT, &i, -1, 1023, NULL, "N", "an int" },
		{ "double", 'd', LP_OPT_DOUBLE, &d, 0, 100, NULL, "X", "a double" },
		{ "size", 's', LP_OPT_SIZE, &size_v, 1, 1ull << 32, NULL, "SIZE", "a size" },
		{ "sizes", 'S', LP_OPT_SIZES, &sizes, 1, 1ull << 32, NULL, "SIZES", "sizes" },
		{ "duration", 'D', LP_OPT_SECONDS, &secs, 0, 86400, NULL, "SECS", "seconds" },
		{ "str", 'x', LP_OPT_STR, &str, 0, 0, NULL, "S", "a string" },
		{ "test", 't', LP_OPT_CHOICE, &choice, 0, 0, tests, "TEST", "a choice" },
		{ "tests", 'T', LP_OPT_LIST, &list, 0, 0, tests, "LIST", "a list" },
		{ NULL, 0, 0, NULL, 0, 0, NULL, NULL, NULL },
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
