// SPDX-License-Identifier: MIT
/*
 * lp-gpu: copy bandwidth and latency inside one node (host<->GPU, GPU-local,
 * GPU<->GPU), as matrices with the expected ceiling of every path.
 * Thin main: options, then gpu/ does the work and the sinks print.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "gpu/gpu.h"
#include "qual/qual.h"

struct lp_gpu_cli {
	struct lp_gpu_params p;
	const char *tests, *gpus;
	bool list;
	struct lp_out_opts out;
	struct lp_qual_opts qual;
	/* derived */
	bool tables;
	const struct lp_gpu_test *sel[64];
	unsigned nsel;
	struct lp_qual q;
};

static void lp_gpu_list(FILE *f)
{
	fprintf(f, "tests (select with -t KEY,KEY or a group: all, bw, lat, host, local, p2p):\n");
	for (unsigned i = 0; i < lp_gpu_ntests; i++)
		fprintf(f, "  %-14s %s\n", lp_gpu_tests[i].key, lp_gpu_tests[i].desc);
}

static int report_json(FILE *f, const void *rep)
{
	return lp_gpu_report_json(f, rep);
}

/* What --expect auto matches: the first GPU's name and links; PCIe at the most the GPU and its
 * slot allow, so that a link trained down fails its profile instead of picking a slower one. */
static struct lp_qual_hw qual_hw(const struct lp_gpu_topo *t)
{
	const struct lp_gpu_dev_info *g = &t->gpu[0];

	return (struct lp_qual_hw){ .gpu_name = g->name,
				    .nvlinks = (int)g->nvlink_up,
				    .pcie_gen = (int)g->pcie.max_gen,
				    .pcie_width = (int)g->pcie.max_width };
}

#define CLI struct lp_gpu_cli
#define REFUSED(c, what)                                                                           \
	{                                                                                          \
		.shortname = (c), .kind = LP_OPT_REFUSE,                                           \
		.help = what " (one spelling in every tool)"                                       \
	}

/* clang-format off */
static const struct lp_opt gpu_rows[] = {
	{ .name = "tests", .shortname = 't', LP_OPT_STR_AT(CLI, tests), .metavar = "LIST",
	  .help = "tests or groups, comma separated (--list shows them)", .def = "all" },
	{ .name = "sizes", .shortname = 's', LP_OPT_SIZES_AT(CLI, p.sizes), .min = 16,
	  .max = 64.0 * (1ull << 30), .metavar = "SIZES",
	  .help = "bytes per copy: one, a sweep 4K:1G (powers of two) or a list 64K,1M",
	  .def = "256M" },
	{ .name = "iters", .shortname = 'n', LP_OPT_UINT_AT(CLI, p.iters), .min = 1, .max = 256,
	  .metavar = "N", .help = "timed copies per sample", .def = "16" },
	{ .name = "warmup", LP_OPT_UINT_AT(CLI, p.warmup), .max = 64, .metavar = "N",
	  .help = "untimed copies before each sample", .def = "4" },
	{ .name = "samples", LP_OPT_UINT_AT(CLI, p.samples), .min = 1, .max = 64, .metavar = "N",
	  .help = "samples per cell; median, min and max are reported", .def = "5" },
	{ .name = "lat-loads", LP_OPT_UINT_AT(CLI, p.lat_iters), .min = 100, .max = 10000000,
	  .metavar = "N", .help = "dependent loads per latency sample", .def = "20000" },
	{ .name = "hold-timeout", LP_OPT_SECONDS_AT(CLI, p.hold_timeout_s), .min = 0.1, .max = 600,
	  .metavar = "SECS", .help = "the spin kernel that holds the streams gives up after this",
	  .def = "10s" },
	{ .name = "no-verify", LP_OPT_FLAG_AT(CLI, p.no_verify),
	  .help = "skip checking the destination after the timed region" },
	{ .name = "gpu", LP_OPT_STR_AT(CLI, gpus), .metavar = "LIST",
	  .help = "CUDA devices to use, e.g. 0,2,3 (default all)" },
	{ .name = "list", LP_OPT_FLAG_AT(CLI, list), .help = "list the tests and exit" },
	REFUSED('g', "the GPUs are --gpu LIST"),
	REFUSED('r', "samples per cell are --samples"),
	REFUSED('l', "the test list is --list"),
	REFUSED('w', "the warm-up is --warmup"),
	REFUSED('q', "no tables is --quiet"),
	REFUSED('v', "more messages is --verbose"),
	REFUSED('J', "JSON output is --json"),
	{ 0 },
};

static const struct lp_opt_group gpu_groups[] = {
	{ "tests", gpu_rows, 0 },
	{ "output", lp_out_csv_opt_rows, offsetof(CLI, out) },
	{ "output", lp_out_opt_rows, offsetof(CLI, out) },
	{ "output", lp_out_version_opt_rows, offsetof(CLI, out) },
	{ "output", lp_out_schema_opt_rows, offsetof(CLI, out) },
	{ "qualification", lp_qual_opt_rows, offsetof(CLI, qual) },
	{ "qualification", lp_qual_gbytes_opt_rows, offsetof(CLI, qual) },
	{ 0 },
};

static const struct lp_opt_exit gpu_exits[] = {
	{ LP_EXIT_OK, "the tests ran (and passed --expect, the floors and --baseline when given)" },
	{ LP_EXIT_FAIL, "a test failed (CUDA error or verification), or a FAIL against --expect "
			"or a floor, or a regression against --baseline" },
	{ LP_EXIT_USAGE, "usage error: a bad option or value, or a baseline matching under half of "
			 "the cells" },
	{ LP_EXIT_OUTPUT, "an output (--json, --csv, --prom) or the standard output could not be "
			  "written (a full disk, a missing directory, a symbolic link at the file); "
			  "the previous file, if any, is left as it was" },
	{ LP_EXIT_UNSUPPORTED, "no GPU or no NVIDIA driver here: nothing measured" },
	{ 0 },
};

static const struct lp_opt_cmd gpu_cmd = {
	.synopsis = "lp-gpu [options]",
	.groups = gpu_groups,
	.notes = "Matrices: rows are the source, columns the destination (data flows from the row "
		 "to the column).\nCopy rates are GB/s = 1e9 B/s, each followed by its percent of "
		 "the expected ceiling (docs/METHOD.md);\nlatencies are ns per load.",
	.exits = gpu_exits,
};
/* clang-format on */

static bool is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

/* Options, help, --list and the test selection; -1 to go on, else the exit code. */
static int parse_cli(struct lp_gpu_cli *cli, int argc, char **argv)
{
	struct lp_gpu_params *p = &cli->p;
	struct lp_fail f = { 0 };
	int npos;
	bool help;

	if (lp_opt_parse(&gpu_cmd, cli, argc, argv, NULL, &npos, &help))
		return LP_EXIT_USAGE;
	if (help || cli->out.version || cli->out.json_schema || cli->list) {
		if (help)
			lp_opt_usage(&gpu_cmd, stdout);
		else if (cli->out.version)
			printf("lp-gpu %s\n", LP_VERSION);
		else if (cli->out.json_schema)
			return lp_gpu_report_schema(stdout) ? LP_EXIT_FAIL : LP_EXIT_OK;
		else
			lp_gpu_list(stdout);
		return LP_EXIT_OK;
	}
	if (is_stdout(cli->out.json) && is_stdout(cli->out.csv)) {
		lp_err("--json - and --csv -: only one of them can have stdout");
		return LP_EXIT_USAGE;
	}
	cli->tables = !cli->out.quiet && !is_stdout(cli->out.json) && !is_stdout(cli->out.csv);
	lp_log_set_level(cli->out.quiet	    ? LP_LOG_ERR
			 : cli->out.verbose ? LP_LOG_DEBUG
					    : LP_LOG_WARN);
	if (cli->gpus && lp_gpu_parse_devs(cli->gpus, p->devs, LP_GPU_MAX, &p->ndevs)) {
		lp_err("--gpu %s: expected distinct CUDA device numbers, e.g. 0,2,3 (at most %d)",
		       cli->gpus, LP_GPU_MAX);
		return LP_EXIT_USAGE;
	}
	if (lp_gpu_select_tests(cli->tests, cli->sel, LP_ARRAY_SIZE(cli->sel), &cli->nsel, &f)) {
		lp_fail_report(&f, 0);
		return LP_EXIT_USAGE;
	}
	cli->qual.argv = argv;
	if (lp_qual_wanted(&cli->qual) && lp_qual_setup(&cli->q, "lp-gpu", &cli->qual, NULL)) {
		lp_fail_report(&cli->q.fail, 0); /* its words (a bad floor, profile, baseline) */
		return LP_EXIT_USAGE;
	}
	return -1;
}

/* A failed cell's reason, once per cell, as the run goes on (its series share it). */
static void say_cell_errors(const struct lp_gpu_result *r)
{
	for (unsigned row = 0; row < r->nrows; row++)
		for (unsigned col = 0; col < r->ncols; col++) {
			const struct lp_gpu_cell *c = lp_gpu_cell_at(r, 0, row, col);

			if (c->status == LP_GPU_ERROR)
				lp_err("%s", c->reason);
		}
}

/*
 * Every selected test at every size into res, the tables printed as they land.
 * 0 (*failed_p when a cell failed), or the error that stopped the run.
 */
static int run_tests(const struct lp_gpu_cli *cli, struct lp_gpu_ctx *ctx,
		     const struct lp_gpu_topo *topo, struct lp_gpu_result *res, unsigned *nres_p,
		     bool *failed_p)
{
	int ret;

	for (unsigned i = 0; i < cli->nsel; i++) {
		const struct lp_gpu_test *t = cli->sel[i];
		/* Latency tests chase a fixed region: once, whatever the sizes. */
		unsigned nsz = t->latency ? 1 : cli->p.sizes.n;

		for (unsigned k = 0; k < nsz; k++) {
			uint64_t size = t->latency ? LP_GPU_CHASE_BYTES : cli->p.sizes.v[k];
			struct lp_gpu_result *r = &res[*nres_p];

			lp_info("%s, %llu bytes", t->key, (unsigned long long)size);
			if ((ret = lp_gpu_run_test(ctx, t, size, r)))
				return ret;
			say_cell_errors(r);
			*failed_p |= r->status == LP_GPU_ERROR;
			if (cli->tables) {
				if (!*nres_p)
					lp_gpu_report_topo_text(stdout, topo);
				lp_gpu_report_result_text(stdout, r);
				fflush(stdout);
			}
			++*nres_p;
		}
	}
	return 0;
}

/* --json and --csv files ('-' = stdout), the qualification when asked; 0 or LP_EXIT_FAIL. */
static int write_outputs(struct lp_gpu_cli *cli, const struct lp_gpu_report *rep)
{
	int rc = LP_EXIT_OK;
	FILE *f;

	if (lp_qual_wanted(&cli->qual)) {
		if (lp_qual_run(&cli->q, report_json, rep, cli->out.json)) {
			lp_fail_report(&cli->q.fail, 0);
			rc = LP_EXIT_FAIL;
		} else if (cli->tables)
			lp_qual_print(&cli->q, stdout);
		if (lp_qual_failed(&cli->q))
			rc = LP_EXIT_FAIL;
	} else if (cli->out.json) {
		f = lp_out_open(cli->out.json);
		if (!f || lp_out_end(f, cli->out.json, lp_gpu_report_json(f, rep)))
			rc = LP_EXIT_FAIL;
	}
	if (cli->out.csv) {
		f = lp_out_open(cli->out.csv);
		if (f)
			lp_gpu_report_csv(f, rep);
		if (!f || lp_out_close(f, cli->out.csv))
			rc = LP_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct lp_gpu_cli cli = { 0 };
	struct lp_gpu_result *res = NULL;
	struct lp_gpu_ctx *ctx = NULL;
	struct lp_gpu_topo *topo = NULL;
	struct lp_host_meta host;
	struct lp_qual_hw hw;
	struct lp_fail f = { 0 };
	unsigned nres = 0;
	bool failed = false;
	int ret, rc;

	lp_out_exit_guard(); /* an output not written (a full disk) exits LP_EXIT_OUTPUT */
	lp_log_set_prog("lp-gpu");
	lp_gpu_params_default(&cli.p);
	rc = parse_cli(&cli, argc, argv);
	if (rc >= 0)
		return rc;
	topo = calloc(1, sizeof(*topo));
	if (!topo)
		return LP_EXIT_FAIL;
	ret = lp_gpu_topo_probe(topo, cli.p.devs, cli.p.ndevs, &f);
	lp_fail_report(&f, 0); /* a bad selection's cause */
	if (ret == -ENODEV)
		fprintf(stderr,
			"lp-gpu: no GPU or no NVIDIA driver here; nothing measured (exit 77 = unsupported)\n");
	if (ret) {
		rc = ret == -ENODEV   ? LP_EXIT_UNSUPPORTED
		     : ret == -EINVAL ? LP_EXIT_USAGE
				      : LP_EXIT_FAIL;
		goto out;
	}
	hw = qual_hw(topo);
	if ((ret = lp_qual_auto(&cli.q, &hw)) || (ret = lp_gpu_ctx_init(&ctx, &cli.p, topo, &f))) {
		lp_fail_report(&cli.q.fail, 0);
		lp_fail_report(&f, 0);
		rc = lp_exit_code(ret);
		goto out;
	}
	res = calloc((size_t)cli.nsel * cli.p.sizes.n, sizeof(*res));
	ret = res ? run_tests(&cli, ctx, topo, res, &nres, &failed) : -ENOMEM;
	rc = ret || failed ? LP_EXIT_FAIL : LP_EXIT_OK;
	if (!ret) {
		struct lp_gpu_report rep = {
			.params = &cli.p, .topo = topo, .host = &host, .res = res, .nres = nres
		};

		lp_host_meta_collect(&host);
		if (write_outputs(&cli, &rep))
			rc = LP_EXIT_FAIL;
	}
out:
	lp_qual_free(&cli.q);
	for (unsigned i = 0; i < nres; i++)
		lp_gpu_result_free(&res[i]);
	free(res);
	lp_gpu_ctx_free(ctx);
	free(topo);
	return rc;
}
