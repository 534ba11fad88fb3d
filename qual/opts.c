// SPDX-License-Identifier: MIT
/* The qualification options of every tool (qual/qual.h), one row each. */
#include "common/opt.h"
#include "qual/qual.h"

#define QO struct lp_qual_opts

/* clang-format off */
const struct lp_opt lp_qual_opt_rows[] = {
	{ .name = "expect", LP_OPT_STR_AT(QO, expect), .metavar = "auto|FILE",
	  .help = "judge every cell PASS/FAIL against profiles/ (auto: picked from the port or GPU) "
		  "or a profile file" },
	{ .name = "max-lat-us", LP_OPT_STR_AT(QO, max_lat_us), .metavar = "[TEST=]US,...",
	  .help = "latency ceiling in microseconds, for all tests or per test; overrides a "
		  "profile" },
	{ .name = "baseline", LP_OPT_STR_AT(QO, baseline), .metavar = "OLD.json",
	  .help = "compare cell by cell with an earlier run; a regression beyond the threshold and "
		  "the noise fails" },
	{ .name = "regress-pct", LP_OPT_DOUBLE_AT(QO, regress_pct), .min = 0.1, .max = 1000,
	  .metavar = "PCT", .help = "the regression threshold for --baseline, in percent",
	  .def = "10" },
	{ .name = "prom", LP_OPT_STR_AT(QO, prom), .metavar = "FILE",
	  .help = "write figures and verdicts as a Prometheus textfile (node_exporter textfile "
		  "collector)" },
	{ 0 },
};

const struct lp_opt lp_qual_gbps_opt_rows[] = {
	{ .name = "min-gbps", LP_OPT_STR_AT(QO, min_gbps), .metavar = "[TEST=]GBPS,...",
	  .help = "bandwidth floor in Gb/s (1e9 bit/s; a GB/s suffix for bytes), for all tests or "
		  "per test; overrides a profile" },
	{ 0 },
};

const struct lp_opt lp_qual_gbytes_opt_rows[] = {
	{ .name = "min-gbytes-s", LP_OPT_STR_AT(QO, min_gbytes_s), .metavar = "[TEST=]GB/S,...",
	  .help = "copy bandwidth floor in GB/s (1e9 B/s, the unit of the tables; a Gb/s suffix for "
		  "bits), for all tests or per test; overrides a profile" },
	{ .name = "min-gbps", .kind = LP_OPT_REFUSE, .metavar = "V",
	  .help = "lp-gpu's rates are GB/s: give the floor as --min-gbytes-s (--min-gbps V would "
		  "have been V/8 GB/s)" },
	{ 0 },
};
/* clang-format on */
