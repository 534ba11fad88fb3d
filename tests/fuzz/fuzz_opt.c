// SPDX-License-Identifier: MIT
/*
 * The option parser with a table holding every option kind (the tools' own
 * tables live in their mains and rdma/opts.c). The input is an argument vector: arguments are
 * separated by NUL bytes.
 */
#include "tests/fuzz/fuzz.h"

#include "common/opt.h"

LP_FUZZ_QUIET_INIT

#define MAX_ARGS 32

static const char *const tests[] = { "write_lat", "read_lat", "write_bw", NULL };

struct fuzz_opts {
	struct lp_sizes sizes;
	const char *str, *list;
	bool flag, flag_set;
	unsigned u;
	uint64_t u64, size_v;
	int i, choice;
	double d, secs;
};

#define FO struct fuzz_opts
/* clang-format off */
static const struct lp_opt rows[] = {
	{ .name = "flag", .shortname = 'f', LP_OPT_FLAG_AT(FO, flag), LP_OPT_SET_AT(FO, flag_set),
	  .help = "a flag" },
	{ .name = "uint", .shortname = 'u', LP_OPT_UINT_AT(FO, u), .min = 1, .max = 8192,
	  .metavar = "N", .help = "an unsigned", .def = "4" },
	{ .name = "u64", .shortname = 'U', LP_OPT_U64_AT(FO, u64), .metavar = "N",
	  .help = "unchecked u64" },
	{ .name = "int", .shortname = 'i', LP_OPT_INT_AT(FO, i), .min = -1, .max = 1023,
	  .metavar = "N", .help = "an int" },
	{ .name = "double", .shortname = 'd', LP_OPT_DOUBLE_AT(FO, d), .max = 100, .metavar = "X",
	  .help = "a double" },
	{ .name = "size", .shortname = 's', LP_OPT_SIZE_AT(FO, size_v), .min = 1, .max = 1ull << 32,
	  .metavar = "SIZE", .help = "a size" },
	{ .name = "sizes", .shortname = 'S', LP_OPT_SIZES_AT(FO, sizes), .min = 1,
	  .max = 1ull << 32, .metavar = "SIZES", .help = "sizes" },
	{ .name = "duration", .shortname = 'D', LP_OPT_SECONDS_AT(FO, secs), .max = 86400,
	  .metavar = "SECS", .help = "seconds" },
	{ .name = "str", .shortname = 'x', LP_OPT_STR_AT(FO, str), .metavar = "S",
	  .help = "a string" },
	{ .name = "test", .shortname = 't', LP_OPT_CHOICE_AT(FO, choice), .choices = tests,
	  .metavar = "TEST", .help = "a choice", .hint = "a hint" },
	{ .name = "tests", .shortname = 'T', LP_OPT_LIST_AT(FO, list), .choices = tests,
	  .metavar = "LIST", .help = "a list" },
	{ .shortname = 'e', .kind = LP_OPT_REFUSE, .help = "refused" },
	{ .name = "seed", .kind = LP_OPT_REFUSE, .metavar = "N", .help = "refused" },
	{ 0 },
};
/* clang-format on */

static const struct lp_opt_cmd cmd = {
	.synopsis = "fuzz",
	.groups = (const struct lp_opt_group[]){ { "all", rows, 0 }, { 0 } },
	.defaults = (const char *const[]){ "uint=8", NULL },
	.max_pos = 4,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1] = { "fuzz" };
	const char *pos[4];
	struct fuzz_opts o = { 0 };
	bool help = false;
	int argc = 1, npos = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t off = 0; off <= size && argc < MAX_ARGS; argc++) {
		argv[argc] = buf + off;
		off += strlen(buf + off) + 1;
	}
	argv[argc] = NULL;
	if (lp_opt_parse(&cmd, &o, argc, argv, pos, &npos, &help) == 0) {
		if (npos < 0 || npos > 4 || o.sizes.n > LP_SIZES_MAX)
			abort();
		for (unsigned k = 0; k < o.sizes.n; k++)
			if (o.sizes.v[k] < 1 || o.sizes.v[k] > 1ull << 32)
				abort();
		if (o.choice < 0 || o.choice > 2 || o.u < 1 || o.u > 8192 || o.flag != o.flag_set)
			abort();
	}
	free(buf);
	return 0;
}
