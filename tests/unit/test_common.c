// SPDX-License-Identifier: MIT
/* Unit tests for common/: stats, options and sizes, JSON, wire format, units, tables. */
#include "lp_test.h"

#include <errno.h>
#include <unistd.h>

#include "common/fail.h"
#include "common/json.h"
#include "common/lp.h"
#include "common/opt.h"
#include "common/stats.h"
#include "common/table.h"
#include "common/units.h"
#include "common/wire.h"

/* ---- stats ---- */

static void test_stats_basic(void **state)
{
	struct lp_stats s;
	struct lp_summary sum;

	(void)state;
	assert_int_equal(lp_stats_init(&s, 1000), 0);
	for (int i = 1; i <= 100; i++)
		lp_stats_add(&s, i);
	assert_int_equal(lp_stats_summarize(&s, &sum), 0);
	assert_true(sum.exact);
	assert_int_equal(sum.n, 100);
	assert_true(sum.min == 1 && sum.max == 100);
	assert_true(fabs(sum.mean - 50.5) < 1e-12);
	/* sample stdev of 1..100 = sqrt(841.666...) */
	assert_true(fabs(sum.stdev - sqrt(101.0 * 100 / 12)) < 1e-9);
	assert_true(sum.p50 == 50 && sum.p90 == 90 && sum.p99 == 99 && sum.p999 == 100);
	lp_stats_free(&s);
}

/* Sub-microsecond jitter must not vanish (perftest stored deviations in int). */
static void test_stats_small_jitter(void **state)
{
	struct lp_stats s;
	struct lp_summary sum;

	(void)state;
	assert_int_equal(lp_stats_init(&s, 16), 0);
	for (int i = 0; i < 1000; i++)
		lp_stats_add(&s, 1.0 + (i % 2 ? 0.25 : -0.25));
	lp_stats_summarize(&s, &sum);
	assert_false(sum.exact);
	assert_true(fabs(sum.stdev - 0.25) < 0.001);
	assert_true(sum.max == 1.25 && sum.min == 0.75);
	lp_stats_free(&s);
}

/* Past the cap, percentiles come from the histogram within its bucket error. */
static void test_stats_hist_percentiles(void **state)
{
	struct lp_stats s;
	struct lp_summary sum;

	(void)state;
	assert_int_equal(lp_stats_init(&s, 10), 0);
	for (int i = 1; i <= 100000; i++)
		lp_stats_add(&s, 1000 + i);
	lp_stats_summarize(&s, &sum);
	assert_false(sum.exact);
	assert_int_equal(sum.n, 100000);
	assert_true(fabs(sum.p50 - 51000) / 51000 < 1.0 / LP_HIST_SUB);
	assert_true(fabs(sum.p99 - 100000) / 100000 < 1.0 / LP_HIST_SUB);
	assert_true(sum.max == 101000);
	lp_stats_free(&s);
}

static void test_hist_index_bounds(void **state)
{
	(void)state;
	/* Every value falls inside the bounds of its own bucket; indexes increase. */
	unsigned prev = 0;

	for (uint64_t v = 0; v < 200000; v += (v < 1000 ? 1 : 97)) {
		uint64_t lo, hi;
		unsigned idx = lp_hist_index(v);

		lp_hist_bounds(idx, &lo, &hi);
		assert_true(lo <= v && v <= hi);
		assert_true(idx >= prev);
		prev = idx;
	}
	assert_true(lp_hist_index(UINT64_MAX) == LP_HIST_BUCKETS - 1);
}

static void test_median_mad(void **state)
{
	double v[] = { 5, 1, 3, 100, 2 };
	double e[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(lp_median(v, 5) == 3);
	assert_true(lp_mad(v, 5) == 2); /* deviations 2,2,0,97,1 */
	assert_true(lp_median(e, 4) == 2.5);
}

/* ---- options and sizes ---- */

static void test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(lp_parse_size("64", &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(lp_parse_size("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(lp_parse_size("1MiB", &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(lp_parse_size("2g", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(lp_parse_size("4X", &v), -EINVAL);
	assert_int_equal(lp_parse_size("-4", &v), -EINVAL);
	assert_int_equal(lp_parse_size("", &v), -EINVAL);
	assert_int_equal(lp_parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(lp_parse_size("99999999999T", &v), -ERANGE);
}

static void test_parse_sizes(void **state)
{
	struct lp_sizes s;

	(void)state;
	assert_int_equal(lp_parse_sizes("2:8M", &s), 0);
	assert_int_equal(s.n, 23);
	assert_int_equal(s.v[0], 2);
	assert_int_equal(s.v[22], 8 << 20);
	assert_int_equal(lp_parse_sizes("3:16", &s), 0); /* 4, 8, 16 */
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[0], 4);
	assert_int_equal(lp_parse_sizes("64,4K,1M", &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[1], 4096);
	assert_int_equal(lp_parse_sizes("64,,1M", &s), -EINVAL);
	assert_int_equal(lp_parse_sizes("8M:2", &s), -ERANGE);
	assert_int_equal(lp_parse_sizes("0:2", &s), -ERANGE);
	assert_int_equal(lp_parse_sizes("1:1,2", &s), -EINVAL);
}

static void test_parse_seconds(void **state)
{
	double d;

	(void)state;
	assert_int_equal(lp_parse_seconds("2.5", &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(lp_parse_seconds("500ms", &d), 0);
	assert_true(fabs(d - 0.5) < 1e-12);
	assert_int_equal(lp_parse_seconds("2m", &d), 0);
	assert_true(d == 120);
	assert_int_equal(lp_parse_seconds("5x", &d), -EINVAL);
	assert_int_equal(lp_parse_seconds("-1", &d), -EINVAL);
}

static const char *const colors[] = { "red", "green", NULL };

/* Two groups over two structs inside one options struct, as a tool's command has them. */
struct opt_inner {
	uint64_t size;
	struct lp_sizes sizes;
	double secs;
	const char *list;
};

struct opt_fixture {
	bool flag;
	unsigned iters;
	const char *name;
	int color;
	struct opt_inner in;
};

/* clang-format off */
static const struct lp_opt outer_rows[] = {
	{ .name = "flag", .shortname = 'f', LP_OPT_FLAG_AT(struct opt_fixture, flag), .help = "a flag" },
	{ .name = "iters", .shortname = 'n', LP_OPT_UINT_AT(struct opt_fixture, iters), .min = 1,
	  .max = 1000, .metavar = "N", .help = "iterations" },
	{ .name = "name", LP_OPT_STR_AT(struct opt_fixture, name), .metavar = "NAME",
	  .help = "a name" },
	{ .name = "color", LP_OPT_CHOICE_AT(struct opt_fixture, color), .choices = colors,
	  .metavar = "C", .help = "a color", .hint = "perftest's --color is paint" },
	{ 0 },
};

static const struct lp_opt inner_rows[] = {
	{ .name = "size", LP_OPT_SIZE_AT(struct opt_inner, size), .min = 1, .max = 1 << 30,
	  .metavar = "SIZE", .help = "a size" },
	{ .name = "sizes", .shortname = 's', LP_OPT_SIZES_AT(struct opt_inner, sizes), .min = 1,
	  .max = 8 << 20, .metavar = "SIZES", .help = "sizes" },
	{ .name = "time", .shortname = 'D', LP_OPT_SECONDS_AT(struct opt_inner, secs), .min = 0.1,
	  .max = 3600, .metavar = "SECS", .help = "duration" },
	{ .name = "colors", .shortname = 't', LP_OPT_LIST_AT(struct opt_inner, list),
	  .choices = colors, .metavar = "LIST", .help = "colors",
	  .hint = "perftest's -t is the tx depth" },
	{ .shortname = 'e', .kind = LP_OPT_REFUSE, .help = "perftest's -e (events): not here" },
	{ .name = "seed", .kind = LP_OPT_REFUSE, .metavar = "N", .help = "two seeds: say which" },
	{ 0 },
};

static const struct lp_opt_group fixture_groups[] = {
	{ "outer", outer_rows, 0 },
	{ "inner", inner_rows, offsetof(struct opt_fixture, in) },
	{ 0 },
};

static const struct lp_opt_exit fixture_exits[] = {
	{ 0, "fine" },
	{ 3, "inconclusive" },
	{ 0 },
};

static const struct lp_opt_cmd fixture_cmd = {
	.synopsis = "prog [options] HOST\nprog --other",
	.groups = fixture_groups,
	.max_pos = 2,
	.exits = fixture_exits,
};
/* clang-format on */

static int parse(struct opt_fixture *f, int argc, const char **argv, int *npos, const char **pos)
{
	bool help;

	return lp_opt_parse(&fixture_cmd, f, argc, (char **)argv, pos, npos, &help);
}

static void test_opt_parse(void **state)
{
	struct opt_fixture f = { 0 };
	const char *pos[2];
	int npos;
	const char *ok[] = { "prog",	"-f",	   "-n",	  "10",	    "--size=4K",
			     "host",	"--sizes", "2:64",	  "-D",	    "500ms",
			     "--color", "green",   "-tred,green", "--name", "x" };

	(void)state;
	assert_int_equal(parse(&f, LP_ARRAY_SIZE(ok), ok, &npos, pos), 0);
	assert_true(f.flag);
	assert_int_equal(f.iters, 10);
	assert_int_equal(f.in.size, 4096);
	assert_int_equal(f.in.sizes.n, 6);
	assert_true(fabs(f.in.secs - 0.5) < 1e-12);
	assert_int_equal(f.color, 1);
	assert_string_equal(f.in.list, "red,green");
	assert_string_equal(f.name, "x");
	assert_int_equal(npos, 1);
	assert_string_equal(pos[0], "host");
}

static void test_opt_errors(void **state)
{
	struct opt_fixture f = { 0 };
	const char *pos[2];
	int npos;
	const char *bad[][4] = {
		{ "prog", "--bogus", NULL },   { "prog", "-n", "0" },
		{ "prog", "-n", "10x" },       { "prog", "-n", NULL },
		{ "prog", "--color", "blue" }, { "prog", "-t", "red,blue" },
		{ "prog", "-s", "2:16M" },     { "prog", "--flag=1", NULL },
		{ "prog", "-n", "-5" },	       { "prog", "a", "b", "c" },
	};

	(void)state;
	lp_log_set_level(LP_LOG_QUIET); /* expected errors: keep the test output clean */
	for (size_t i = 0; i < LP_ARRAY_SIZE(bad); i++) {
		int argc = bad[i][3] ? 4 : bad[i][2] ? 3 : 2;

		assert_int_not_equal(parse(&f, argc, bad[i], &npos, pos), 0);
	}
	lp_log_set_level(LP_LOG_WARN);
}

/*
 * Refused spellings stop the parse with their own line; a value that does not parse names what
 * perftest means by the letter; an unknown long name suggests the one it resembles.
 */
static void test_opt_refuse_and_hints(void **state)
{
	struct opt_fixture f = { 0 };
	const char *pos[2];
	int npos;
	const char *refuse_e[] = { "prog", "-e" }, *refuse_seed[] = { "prog", "--seed", "4" },
		   *hint_t[] = { "prog", "-t", "128" }, *hint_c[] = { "prog", "--color=RC" },
		   *sugg[] = { "prog", "--siz", "4" }, *sugg2[] = { "prog", "--colorz", "red" };

	(void)state;
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(parse(&f, 2, refuse_e, &npos, pos), -EINVAL);
	assert_string_equal(lp_err_last(), "-e: perftest's -e (events): not here");
	assert_int_equal(parse(&f, 3, refuse_seed, &npos, pos), -EINVAL);
	assert_string_equal(lp_err_last(), "--seed: two seeds: say which");
	assert_int_equal(parse(&f, 3, hint_t, &npos, pos), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "unknown item '128'"));
	assert_non_null(strstr(lp_err_last(), "; perftest's -t is the tx depth"));
	assert_int_equal(parse(&f, 2, hint_c, &npos, pos), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "expected one of red, green; perftest's --color is"));
	assert_int_equal(parse(&f, 3, sugg, &npos, pos), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "did you mean --size?"));
	assert_int_equal(parse(&f, 3, sugg2, &npos, pos), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "did you mean --color?"));
	lp_log_set_level(LP_LOG_WARN);
}

/* A table that spells one option twice is the tool's bug: every parse fails (fault injected). */
static void test_opt_duplicate_rows(void **state)
{
	static const struct lp_opt dup_rows[] = {
		{ .name = "other", .shortname = 'f', LP_OPT_FLAG_AT(struct opt_fixture, flag) },
		{ 0 },
	};
	static const struct lp_opt dup_long[] = {
		{ .name = "iters", LP_OPT_FLAG_AT(struct opt_fixture, flag) },
		{ 0 },
	};
	const struct lp_opt_group groups[] = { { NULL, outer_rows, 0 },
					       { NULL, dup_rows, 0 },
					       { 0 } };
	const struct lp_opt_group groups2[] = { { NULL, outer_rows, 0 },
						{ NULL, dup_long, 0 },
						{ 0 } };
	struct lp_opt_cmd cmd = { .synopsis = "prog", .groups = groups };
	struct opt_fixture f = { 0 };
	const char *argv[] = { "prog" };
	int npos;
	bool help;

	(void)state;
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(lp_opt_parse(&cmd, &f, 1, (char **)argv, NULL, &npos, &help), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "-f"));
	cmd.groups = groups2;
	assert_int_equal(lp_opt_parse(&cmd, &f, 1, (char **)argv, NULL, &npos, &help), -EINVAL);
	assert_non_null(strstr(lp_err_last(), "--iters twice"));
	cmd.groups = fixture_groups;
	assert_int_equal(lp_opt_parse(&cmd, &f, 1, (char **)argv, NULL, &npos, &help), 0);
	lp_log_set_level(LP_LOG_WARN);
}

/* The usage text as cmd prints it, in the format fmt (NULL: text). */
static char *usage_of(const struct lp_opt_cmd *cmd, const char *fmt)
{
	char *buf = NULL;
	size_t len;
	FILE *mf = open_memstream(&buf, &len);

	assert_non_null(mf);
	if (fmt)
		setenv("LP_HELP_FORMAT", fmt, 1);
	lp_opt_usage(cmd, mf);
	unsetenv("LP_HELP_FORMAT");
	fclose(mf);
	return buf;
}

/* --help, the man page and completion: groups, exit statuses, refusals where they belong. */
static void test_opt_usage(void **state)
{
	char *txt = usage_of(&fixture_cmd, NULL), *man = usage_of(&fixture_cmd, "man"),
	     *bash = usage_of(&fixture_cmd, "bash");

	(void)state;
	assert_non_null(strstr(txt, "usage: prog [options] HOST\n       prog --other\n"));
	assert_non_null(strstr(txt, "\nouter options:\n"));
	assert_non_null(strstr(txt, "\ninner options:\n"));
	assert_non_null(strstr(txt, "\nexit status:\n  0    fine\n  3    inconclusive\n"));
	assert_null(strstr(txt, "seed")); /* refusals are not options */
	assert_non_null(strstr(man, ".SS inner options\n"));
	assert_non_null(strstr(man, ".SH EXIT STATUS\n.TP\n.B 0\nfine\n.TP\n.B 3\ninconclusive\n"));
	assert_non_null(strstr(man, ".SS Refused spellings\n"));
	assert_non_null(strstr(man, "\\fB\\-e\\fR\nperftest's \\-e (events): not here\n"));
	assert_non_null(strstr(man, "\\fB\\-\\-seed\\fR \\fIN\\fR\n"));
	assert_non_null(strstr(man, LP_OPT_MAN_END "\n"));
	assert_non_null(strstr(bash, "words: --flag -f --iters -n"));
	assert_null(strstr(bash, "seed"));
	assert_null(strstr(bash, " -e"));
	free(txt);
	free(man);
	free(bash);
}

/*
 * Defaults and set flags come from the table: without the option the value is
 * the row's default (or the command's own for that row) and the flag false;
 * with it, the value given and true; --help prints the default. A default the
 * row's own parser rejects fails the parse (the fault injected here), as a
 * typo in a tool's table would; so does a command default for no row.
 */
struct def_fixture {
	unsigned depth;
	struct lp_sizes sizes;
	const char *mode;
	bool depth_set, sizes_set;
};

static int parse_def(struct def_fixture *f, const char *depth_def, const char *const *defaults,
		     int argc, const char **argv, char **usage_p)
{
	const struct lp_opt tab[] = {
		{ .name = "depth",
		  .shortname = 'T',
		  LP_OPT_UINT_AT(struct def_fixture, depth),
		  LP_OPT_SET_AT(struct def_fixture, depth_set),
		  .min = 1,
		  .max = 8192,
		  .metavar = "N",
		  .help = "WRs in flight",
		  .def = depth_def },
		{ .name = "sizes",
		  .shortname = 's',
		  LP_OPT_SIZES_AT(struct def_fixture, sizes),
		  LP_OPT_SET_AT(struct def_fixture, sizes_set),
		  .min = 1,
		  .max = 1 << 30,
		  .metavar = "SIZES",
		  .help = "sizes",
		  .def = "1M" },
		{ .name = "mode",
		  LP_OPT_STR_AT(struct def_fixture, mode),
		  .metavar = "M",
		  .help = "a mode",
		  .def = "fast" },
		{ 0 },
	};
	const struct lp_opt_group groups[] = { { "test", tab, 0 }, { 0 } };
	const struct lp_opt_cmd cmd = { .synopsis = "prog",
					.groups = groups,
					.defaults = defaults };
	int npos, ret;
	bool help;

	ret = lp_opt_parse(&cmd, f, argc, (char **)argv, NULL, &npos, &help);
	if (usage_p)
		*usage_p = usage_of(&cmd, getenv("LP_TEST_FORMAT"));
	return ret;
}

static void test_opt_defaults(void **state)
{
	struct def_fixture f = { .depth = 99, .depth_set = true };
	const char *none[] = { "prog" }, *given[] = { "prog", "-T", "16", "--sizes=4K,8K" };
	const char *const mine[] = { "sizes=64K", NULL }, *bogus[] = { "nothing=1", NULL };
	char *usage = NULL;

	(void)state;
	assert_int_equal(parse_def(&f, "128", NULL, 1, none, &usage), 0);
	assert_int_equal(f.depth, 128);
	assert_false(f.depth_set);
	assert_int_equal(f.sizes.n, 1);
	assert_int_equal(f.sizes.v[0], 1 << 20);
	assert_false(f.sizes_set);
	assert_string_equal(f.mode, "fast");
	assert_non_null(strstr(usage, "WRs in flight (default 128)\n"));
	assert_non_null(strstr(usage, "sizes (default 1M)\n"));
	free(usage);

	assert_int_equal(parse_def(&f, "128", NULL, LP_ARRAY_SIZE(given), given, NULL), 0);
	assert_int_equal(f.depth, 16);
	assert_true(f.depth_set);
	assert_int_equal(f.sizes.n, 2);
	assert_int_equal(f.sizes.v[1], 8192);
	assert_true(f.sizes_set);

	/* the command's own default replaces the row's, in the value and in --help */
	assert_int_equal(parse_def(&f, "128", mine, 1, none, &usage), 0);
	assert_int_equal(f.sizes.v[0], 64 << 10);
	assert_false(f.sizes_set);
	assert_non_null(strstr(usage, "sizes (default 64K)\n"));
	free(usage);

	/* the man page carries the default too */
	setenv("LP_TEST_FORMAT", "man", 1);
	assert_int_equal(parse_def(&f, "128", NULL, 1, none, &usage), 0);
	unsetenv("LP_TEST_FORMAT");
	assert_non_null(strstr(usage, "WRs in flight (default 128)\n"));
	free(usage);

	/* a default out of the row's range is a bug in the table: the parse fails */
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(parse_def(&f, "0", NULL, 1, none, NULL), -EINVAL);
	assert_int_equal(parse_def(&f, "lots", NULL, 1, none, NULL), -EINVAL);
	assert_int_equal(parse_def(&f, "128", bogus, 1, none, NULL), -EINVAL);
	lp_log_set_level(LP_LOG_WARN);
}

/* ---- JSON writer ---- */

static void test_json_valid(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lp_json j;

	(void)state;
	lp_json_init(&j, f, true);
	lp_json_obj_begin(&j, NULL);
	lp_json_str(&j, "s", "quote\" backslash\\ newline\n tab\t ctl\x01");
	lp_json_int(&j, "neg", -42);
	lp_json_uint(&j, "big", UINT64_MAX);
	lp_json_num(&j, "pi", 3.25);
	lp_json_num(&j, "nan", NAN);
	lp_json_num(&j, "inf", INFINITY);
	lp_json_bool(&j, "t", true);
	lp_json_null(&j, "n");
	lp_json_arr_begin(&j, "a");
	lp_json_num(&j, NULL, 1e-7);
	lp_json_obj_begin(&j, NULL);
	lp_json_obj_end(&j);
	lp_json_arr_begin(&j, NULL);
	lp_json_arr_end(&j);
	lp_json_arr_end(&j);
	lp_json_obj_end(&j);
	assert_int_equal(lp_json_finish(&j), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"nan\": null"));
	assert_non_null(strstr(buf, "\"pi\": 3.25"));
	assert_non_null(strstr(buf, "\\u0001"));
	assert_true(lp_test_json_valid(buf));
	free(buf);
}

static void test_json_misuse(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct lp_json j;

	(void)state;
	lp_json_init(&j, f, false);
	lp_json_obj_begin(&j, NULL);
	lp_json_int(&j, NULL, 1); /* value without key inside an object */
	lp_json_obj_end(&j);
	assert_int_equal(lp_json_finish(&j), -EINVAL);
	fclose(f);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	lp_json_init(&j, f, false);
	lp_json_arr_begin(&j, NULL); /* unbalanced */
	assert_int_equal(lp_json_finish(&j), -EINVAL);
	fclose(f);
	free(buf);
}

/* ---- wire format ---- */

static void test_wire_roundtrip(void **state)
{
	struct lp_wbuf w;
	struct lp_rbuf r;
	char s[16];

	(void)state;
	lp_wbuf_init(&w);
	lp_wbuf_u8(&w, 0xab);
	lp_wbuf_u16(&w, 0x1234);
	lp_wbuf_u32(&w, 0xdeadbeef);
	lp_wbuf_u64(&w, 0x0102030405060708ull);
	lp_wbuf_f64(&w, -2.5);
	lp_wbuf_str(&w, "rxe0");
	assert_int_equal(w.err, 0);
	assert_int_equal(w.data[1], 0x12); /* network byte order */
	lp_rbuf_init(&r, w.data, w.len);
	assert_int_equal(lp_rbuf_u8(&r), 0xab);
	assert_int_equal(lp_rbuf_u16(&r), 0x1234);
	assert_int_equal(lp_rbuf_u32(&r), 0xdeadbeef);
	assert_true(lp_rbuf_u64(&r) == 0x0102030405060708ull);
	assert_true(lp_rbuf_f64(&r) == -2.5);
	lp_rbuf_str(&r, s, sizeof(s));
	assert_string_equal(s, "rxe0");
	assert_int_equal(lp_rbuf_done(&r), 0);
}

static void test_wire_malformed(void **state)
{
	uint8_t hdr[LP_WIRE_HDR_LEN];
	uint16_t type, ver;
	uint32_t len;
	struct lp_rbuf r;
	uint8_t shortbuf[3] = { 0, 10, 'a' };
	char s[16];

	(void)state;
	lp_wire_hdr_encode(hdr, 7, 100);
	assert_int_equal(lp_wire_hdr_decode(hdr, &type, &len, &ver, 4096), 0);
	assert_int_equal(type, 7);
	assert_int_equal(len, 100);
	/* oversize body */
	assert_int_equal(lp_wire_hdr_decode(hdr, &type, &len, &ver, 50), -EPROTO);
	/* bad magic: "GET / HTTP/1.1" */
	memcpy(hdr, "GET / HTTP/1", LP_WIRE_HDR_LEN);
	assert_int_equal(lp_wire_hdr_decode(hdr, &type, &len, &ver, 4096), -EPROTO);
	/* other version */
	lp_wire_hdr_encode(hdr, 7, 1);
	hdr[5] = 99;
	assert_int_equal(lp_wire_hdr_decode(hdr, &type, &len, &ver, 4096), -EPROTONOSUPPORT);
	/* truncated body: string claims 10 bytes, 1 present */
	lp_rbuf_init(&r, shortbuf, sizeof(shortbuf));
	lp_rbuf_str(&r, s, sizeof(s));
	assert_int_equal(lp_rbuf_done(&r), -EPROTO);
	/* read past end */
	lp_rbuf_init(&r, shortbuf, 2);
	(void)lp_rbuf_u32(&r);
	assert_int_equal(r.err, -EPROTO);
	/* trailing bytes are an error too */
	lp_rbuf_init(&r, shortbuf, 3);
	(void)lp_rbuf_u16(&r);
	assert_int_equal(lp_rbuf_done(&r), -EPROTO);
}

static void test_wire_socketpair(void **state)
{
	int sv[2];
	struct lp_wbuf w;
	uint8_t body[LP_WIRE_MAX_BODY];
	size_t len;
	uint16_t type;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	lp_wbuf_init(&w);
	lp_wbuf_u32(&w, 42);
	assert_int_equal(lp_wire_send(sv[0], 3, &w, 1000), 0);
	assert_int_equal(lp_wire_recv(sv[1], &type, body, &len, 1000), 0);
	assert_int_equal(type, 3);
	assert_int_equal(len, 4);
	/* nothing more: bounded wait */
	assert_int_equal(lp_wire_recv(sv[1], &type, body, &len, 50), -ETIMEDOUT);
	/* truncated frame then close */
	assert_int_equal(write(sv[0], "LPWK\0", 5), 5);
	close(sv[0]);
	assert_int_equal(lp_wire_recv(sv[1], &type, body, &len, 1000), -ECONNRESET);
	close(sv[1]);
}

/* ---- units and tables ---- */

static void test_units(void **state)
{
	char buf[32];

	(void)state;
	assert_true(fabs(lp_gbytes_per_s(1e9, 1e9) - 1.0) < 1e-12);
	assert_true(fabs(lp_gbits_per_s(1e9, 1e9) - 8.0) < 1e-12);
	assert_true(fabs(lp_mrate(1e6, 1e9) - 1.0) < 1e-12);
	assert_true(isnan(lp_percent_of(1, 0)));
	assert_true(fabs(lp_percent_of(50, 200) - 25) < 1e-12);
	/* PCIe Gen5 x16: 32 GT/s * 128/130 * 16 / 8 = 63.015 GB/s */
	assert_true(fabs(lp_pcie_gbytes(32, 16) - 63.0154) < 1e-3);
	assert_true(fabs(lp_pcie_gbytes(2.5, 1) - 0.25) < 1e-12);
	assert_int_equal(lp_pcie_gen(16), 4);
	assert_int_equal(lp_pcie_gen(7), 0);
	lp_fmt_size(buf, sizeof(buf), 4096);
	assert_string_equal(buf, "4 KiB");
	lp_fmt_size(buf, sizeof(buf), 2);
	assert_string_equal(buf, "2 B");
	lp_fmt_size(buf, sizeof(buf), 3 << 19);
	assert_string_equal(buf, "1.5 MiB");
}

static void test_table(void **state)
{
	static const char *const hdr[] = { "size", "name" };
	struct lp_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(lp_table_init(&t, 2, hdr), 0);
	for (int i = 0; i < 40; i++) {
		lp_table_row(&t);
		lp_table_set(&t, 0, "%d", i * 1000);
		lp_table_set(&t, 1, "%s", i == 3 ? "a,\"b\"" : "x");
	}
	f = open_memstream(&buf, &len);
	lp_table_csv(&t, f);
	fclose(f);
	assert_non_null(strstr(buf, "size,name\n0,x\n"));
	assert_non_null(strstr(buf, "3000,\"a,\"\"b\"\"\"\n"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	lp_table_print(&t, f);
	fclose(f);
	assert_non_null(strstr(buf, " size   name\n"));
	free(buf);
	lp_table_free(&t);
}

static void test_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(lp_exit_code(0), LP_EXIT_OK);
	assert_int_equal(lp_exit_code(-ENODEV), LP_EXIT_UNSUPPORTED);
	assert_int_equal(lp_exit_code(-EINVAL), LP_EXIT_USAGE);
	assert_int_equal(lp_exit_code(-ETIMEDOUT), LP_EXIT_FAIL);
}

/* The failure record: the first cause wins, context is added in front, the tools' exit code follows the code. */
static int fail_inner(struct lp_fail *f)
{
	return lp_fail_set(f, -ENOENT, "no such thing: %s", "x.json");
}

static void test_fail_record(void **state)
{
	struct lp_fail f = { 0 };

	(void)state;
	assert_true(lp_fail_ok(&f));
	assert_string_equal(lp_fail_msg(&f), "");
	assert_int_equal(lp_fail_report(&f, 0), LP_EXIT_OK);
	assert_int_equal(lp_fail_wrap(&f, "reading"), 0); /* nothing to wrap: stays ok */
	assert_true(lp_fail_ok(&f));

	assert_int_equal(fail_inner(&f), -ENOENT);
	/* a consequence later on is not the cause */
	assert_int_equal(lp_fail_set(&f, -EINVAL, "document incomplete"), -EINVAL);
	assert_false(lp_fail_ok(&f));
	assert_int_equal(lp_fail_code(&f), -ENOENT);
	assert_string_equal(lp_fail_msg(&f), "no such thing: x.json");
	assert_non_null(strstr(f.where, "test_common.c:"));
	assert_int_equal(lp_fail_wrap(&f, "profile %s", "a"), -ENOENT);
	assert_string_equal(lp_fail_msg(&f), "profile a: no such thing: x.json");
	/* a path in front, no separator: the reader's "nodes[3]." before a member's message */
	assert_int_equal(lp_fail_prefix(&f, "runs[%d].", 2), -ENOENT);
	assert_string_equal(lp_fail_msg(&f), "runs[2].profile a: no such thing: x.json");
	assert_int_equal(lp_fail_prefix(NULL, "x"), 0);
	lp_fail_clear(&f);
	assert_int_equal(lp_fail_prefix(&f, "x."), 0); /* nothing to prefix: stays ok */
	assert_true(lp_fail_ok(&f));
	fail_inner(&f);
	lp_fail_wrap(&f, "profile %s", "a");
	lp_log_set_level(LP_LOG_QUIET);
	assert_int_equal(lp_fail_report(&f, 0), LP_EXIT_FAIL);
	assert_string_equal(lp_err_last(), "profile a: no such thing: x.json");

	/* cleared, a usage code without words: strerror; a code of 0 is still a failure */
	lp_fail_clear(&f);
	assert_true(lp_fail_ok(&f));
	lp_fail_set(&f, -EINVAL, "%s", "");
	assert_string_equal(lp_fail_msg(&f), strerror(EINVAL));
	assert_int_equal(lp_fail_report(&f, 0), LP_EXIT_USAGE);
	lp_fail_clear(&f);
	assert_int_equal(lp_fail_set(&f, 0, "line\nbreak"), -EIO);
	assert_string_equal(lp_fail_msg(&f), "line break");
	lp_fail_clear(&f);
	/* a step that failed without words: its code's words, its code's exit */
	assert_int_equal(lp_fail_report(&f, -ENOMEM), LP_EXIT_FAIL);
	assert_string_equal(lp_err_last(), strerror(ENOMEM));
	assert_int_equal(lp_fail_set(&f, -ENODEV, "no GPU"), -ENODEV);
	assert_int_equal(lp_fail_report(&f, 0), LP_EXIT_UNSUPPORTED);

	/* NULL: the caller wants the code only */
	assert_int_equal(lp_fail_set(NULL, -EPERM, "x"), -EPERM);
	assert_true(lp_fail_ok(NULL));
	assert_string_equal(lp_fail_msg(NULL), "");
	lp_log_set_level(LP_LOG_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_basic),
		cmocka_unit_test(test_stats_small_jitter),
		cmocka_unit_test(test_stats_hist_percentiles),
		cmocka_unit_test(test_hist_index_bounds),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_sizes),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_opt_parse),
		cmocka_unit_test(test_opt_errors),
		cmocka_unit_test(test_opt_refuse_and_hints),
		cmocka_unit_test(test_opt_duplicate_rows),
		cmocka_unit_test(test_opt_usage),
		cmocka_unit_test(test_opt_defaults),
		cmocka_unit_test(test_json_valid),
		cmocka_unit_test(test_json_misuse),
		cmocka_unit_test(test_wire_roundtrip),
		cmocka_unit_test(test_wire_malformed),
		cmocka_unit_test(test_wire_socketpair),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_fail_record),
	};

	return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
