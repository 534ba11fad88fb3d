// SPDX-License-Identifier: MIT
/*
 * lp-gpu: copy bandwidth and latency inside one node (host<->GPU, GPU-local,
 * GPU<->GPU), as matrices with the expected ceiling of every path.
 * Thin main: options, then gpu/ does the work and the sinks print.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/meta.h"
#include "common/opt.h"
#include "gpu/gpu.h"
#include "qual/qual.h"

struct lp_gpu_cli {
	struct lp_gpu_params p;
	const char *tests, *gpus;
	bool json, csv, list, verbose, quiet, version;
	struct lp_qual_opts qual;
};

static int report_json(FILE *f, const void *rep)
{
	return lp_gpu_report_json(f, rep);
}

/* What --expect auto matches: the first GPU's name and links; PCIe at the most the GPU and its
 * slot allow, so that a link trained down fails its profile instead of picking a slower one. */
static struct lp_qual_hw qual_hw(const struct lp_gpu_topo *t)
{
	const struct lp_gpu_dev_info *g = &t->gpu[0];

	return (struct lp_qual_hw){ .gpu_name = g->name, .nvlinks = (int)g->nvlink_up,
				    .pcie_gen = (int)g->pcie.max_gen, .pcie_width = (int)g->pcie.max_width };
}

static void lp_gpu_list(FILE *f)
{
	fprintf(f, "tests (select with -t KEY,KEY or a group: all, bw, lat, host, local, p2p):\n");
	for (unsigned i = 0; i < lp_gpu_ntests; i++)
		fprintf(f, "  %-14s %s\n", lp_gpu_tests[i].key, lp_gpu_tests[i].desc);
}

int main(int argc, char **argv)
{
	struct lp_gpu_cli cli = { .tests = "all" };
	const struct lp_gpu_test *sel[64];
	struct lp_gpu_result *res = NULL;
	struct lp_gpu_ctx *ctx = NULL;
	struct lp_host_meta host;
	struct lp_gpu_report rep;
	struct lp_gpu_topo *topo = NULL;
	struct lp_qual_hw hw;
	struct lp_qual q = { 0 };
	unsigned nsel = 0, nres = 0;
	const char *pos[1];
	int npos, ret, rc = LP_EXIT_OK;
	bool help;

	lp_log_set_prog("lp-gpu");
	lp_gpu_params_default(&cli.p);
	const struct lp_opt opts[] = {
		{ "tests", 't', LP_OPT_STR, &cli.tests, 0, 0, NULL, "LIST",
		  "tests or groups, comma separated (default all; --list shows them)" },
		{ "gpus", 'g', LP_OPT_STR, &cli.gpus, 0, 0, NULL, "LIST", "CUDA devices to use, e.g. 0,2,3 (default all)" },
		{ "size", 's', LP_OPT_SIZES, &cli.p.sizes, 16, 64.0 * (1ull << 30), NULL, "SIZES",
		  "bytes per copy: 256M (default), a sweep 4K:1G (powers of two) or a list 64K,1M" },
		{ "iters", 'n', LP_OPT_UINT, &cli.p.iters, 1, 256, NULL, "N", "timed copies per sample (default 16)" },
		{ "warmup", 'w', LP_OPT_UINT, &cli.p.warmup, 0, 64, NULL, "N", "untimed copies before each sample (default 4)" },
		{ "samples", 'r', LP_OPT_UINT, &cli.p.samples, 1, 64, NULL, "N",
		  "samples per cell; median, min and max are reported (default 5)" },
		{ "lat-loads", 0, LP_OPT_UINT, &cli.p.lat_iters, 100, 10000000, NULL, "N",
		  "dependent loads per latency sample (default 20000)" },
		{ "hold-timeout", 0, LP_OPT_SECONDS, &cli.p.hold_timeout_s, 0.1, 600, NULL, "SECONDS",
		  "the spin kernel that holds the streams gives up after this (default 10s)" },
		{ "no-verify", 0, LP_OPT_FLAG, &cli.p.no_verify, 0, 0, NULL, NULL,
		  "skip checking the destination after the timed region" },
		{ "json", 'j', LP_OPT_FLAG, &cli.json, 0, 0, NULL, NULL, "print one JSON document instead of tables" },
		{ "csv", 0, LP_OPT_FLAG, &cli.csv, 0, 0, NULL, NULL, "print CSV (one line per cell) instead of tables" },
		{ "list", 'l', LP_OPT_FLAG, &cli.list, 0, 0, NULL, NULL, "list the tests and exit" },
		{ "verbose", 'v', LP_OPT_FLAG, &cli.verbose, 0, 0, NULL, NULL, "more messages on stderr" },
		{ "quiet", 'q', LP_OPT_FLAG, &cli.quiet, 0, 0, NULL, NULL, "only errors on stderr" },
		{ "version", 0, LP_OPT_FLAG, &cli.version, 0, 0, NULL, NULL, "print the version" },
		LP_QUAL_OPT_ROWS(&cli.qual),
		{ NULL, 0, 0, NULL, 0, 0, NULL, NULL, NULL },
	};

	if (lp_opt_parse(opts, argc, argv, pos, 0, &npos, &help))
		return LP_EXIT_USAGE;
	if (help) {
		lp_opt_usage(stdout, "lp-gpu [options]", opts);
		printf("\nMatrices read row <- column (data flows from the column to the row); GB/s = 1e9 B/s;\n"
		       "each bandwidth is followed by its percent of the expected ceiling (docs/METHOD.md).\n"
		       "Exit: 0 ok, 1 a test failed (CUDA error or verification), 2 usage, 77 no GPU or driver.\n");
		return LP_EXIT_OK;
	}
	if (cli.version) {
		printf("lp-gpu %s\n", LP_VERSION);
		return LP_EXIT_OK;
	}
	if (cli.list) {
		lp_gpu_list(stdout);
		return LP_EXIT_OK;
	}
	if (cli.json && cli.csv) {
		lp_err("--json and --csv: choose one");
		return LP_EXIT_USAGE;
	}
	lp_log_set_level(cli.quiet ? LP_LOG_ERR : cli.verbose ? LP_LOG_DEBUG : LP_LOG_WARN);
	if (cli.gpus && lp_gpu_parse_devs(cli.gpus, cli.p.devs, LP_GPU_MAX, &cli.p.ndevs)) {
		lp_err("-g %s: expected distinct CUDA device numbers, e.g. 0,2,3 (at most %d)", cli.gpus, LP_GPU_MAX);
		return LP_EXIT_USAGE;
	}
	if (lp_gpu_select_tests(cli.tests, sel, LP_ARRAY_SIZE(sel), &nsel))
		return LP_EXIT_USAGE;
	cli.qual.argv = argv;
	if (lp_qual_wanted(&cli.qual) && lp_qual_setup(&q, "lp-gpu", &cli.qual, NULL)) {
		lp_qual_free(&q);
		return LP_EXIT_USAGE;
	}

	topo = calloc(1, sizeof(*topo));
	if (!topo)
		return LP_EXIT_FAIL;
	ret = lp_gpu_topo_probe(topo, cli.p.devs, cli.p.ndevs);
	if (ret == -ENODEV) {
		fprintf(stderr, "lp-gpu: no GPU or no NVIDIA driver here; nothing measured (exit 77 = unsupported)\n");
		rc = LP_EXIT_UNSUPPORTED;
		goto out;
	}
	if (ret) {
		rc = ret == -EINVAL ? LP_EXIT_USAGE : LP_EXIT_FAIL;
		goto out;
	}
	hw = qual_hw(topo);
	if ((ret = lp_qual_auto(&q, &hw))) {
		rc = lp_exit_code(ret);
		goto out;
	}
	if ((ret = lp_gpu_ctx_init(&ctx, &cli.p, topo))) {
		rc = lp_exit_code(ret);
		goto out;
	}
	res = calloc((size_t)nsel * cli.p.sizes.n, sizeof(*res));
	if (!res) {
		rc = LP_EXIT_FAIL;
		goto out;
	}
	for (unsigned i = 0; i < nsel; i++) {
		/* Latency tests chase a fixed region: once, whatever the sizes. */
		unsigned nsz = sel[i]->latency ? 1 : cli.p.sizes.n;

		for (unsigned k = 0; k < nsz; k++) {
			uint64_t size = sel[i]->latency ? LP_GPU_CHASE_BYTES : cli.p.sizes.v[k];

			lp_info("%s, %llu bytes", sel[i]->key, (unsigned long long)size);
			if ((ret = lp_gpu_run_test(ctx, sel[i], size, &res[nres]))) {
				rc = LP_EXIT_FAIL;
				goto out;
			}
			if (res[nres].status == LP_GPU_ERROR)
				rc = LP_EXIT_FAIL;
			if (!cli.json && !cli.csv) {
				if (!nres)
					lp_gpu_report_topo_text(stdout, topo);
				lp_gpu_report_result_text(stdout, &res[nres]);
				fflush(stdout);
			}
			nres++;
		}
	}
	lp_host_meta_collect(&host);
	rep = (struct lp_gpu_report){ .params = &cli.p, .topo = topo, .host = &host, .res = res, .nres = nres };
	if (lp_qual_wanted(&cli.qual)) {
		if (lp_qual_run(&q, report_json, &rep, cli.json ? "-" : NULL))
			rc = LP_EXIT_FAIL;
		else if (!cli.json && !cli.quiet)
			lp_qual_print(&q, stdout);
		if (lp_qual_failed(&q))
			rc = LP_EXIT_FAIL;
	} else if (cli.json && lp_gpu_report_json(stdout, &rep)) {
		rc = LP_EXIT_FAIL;
	}
	if (cli.csv)
		lp_gpu_report_csv(stdout, &rep);
out:
	lp_qual_free(&q);
	for (unsigned i = 0; i < nres; i++)
		lp_gpu_result_free(&res[i]);
	free(res);
	lp_gpu_ctx_free(ctx);
	free(topo);
	return rc;
}
