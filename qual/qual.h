/* SPDX-License-Identifier: MIT */
/*
 * Qualification: is each measured cell good enough, and did it get worse?
 *
 * A tool turns its results into cells (struct lp_qual_cell: test, size, pair, value with its
 * spread and the link's theoretical ceiling) and hands them to lp_qual_judge(), which
 *  - sets PASS / FAIL with the margin against the limit that applies to the cell: an explicit
 *    floor (--min-gbps / --max-lat-us, per test or for all) or else a rule of a profile
 *    (profiles/README.md: a JSON file per link family, every value with its source; `auto`
 *    picks the profiles whose match fits what the port or GPU reports);
 *  - compares the cells with a baseline run (any linkperf JSON document) cell by cell, and
 *    calls a change a regression only when it is worse by more than the threshold *and* beyond
 *    the noise of both runs (docs/METHOD.md, "Qualification");
 *  - writes the figures and verdicts as a Prometheus textfile (node_exporter textfile collector).
 * Units inside the module: bandwidth in GB/s (1e9 bytes/s), latency in microseconds.
 * Profiles and baselines are read with jansson; without it they fail with -EOPNOTSUPP.
 */
#ifndef LP_QUAL_H
#define LP_QUAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/fail.h"
#include "common/json.h"
#include "common/opt.h"

/* What the hardware says about itself, for --expect auto (unknown: NULL / 0). */
struct lp_qual_hw {
	const char *rdma_dev;	  /* "mlx5_0", "rxe0" (rxe and siw are software: no profile) */
	const char *link_layer;	  /* "InfiniBand", "Ethernet" */
	const char *speed;	  /* "HDR", "NDR", "XDR" (InfiniBand speed name) */
	unsigned width;		  /* lanes */
	double rate_gbps;	  /* port data rate, Gb/s */
	const char *gpu_name;	  /* "NVIDIA H100 80GB HBM3" */
	int nvlinks;		  /* NVLink links of the GPU */
	int pcie_gen, pcie_width; /* the GPU's current PCIe link */
};

/*
 * Port facts from sysfs: <root>/sys/class/infiniband/DEV/ports/PORT/{link_layer,rate}
 * ("400 Gb/sec (4X NDR)"); root "" is the live system. Strings go into buf (len bytes), which
 * must outlive *hw. Returns 0, -ENOENT (no such port) or -EINVAL (an unreadable rate line).
 */
int lp_qual_hw_from_sysfs(const char *root, const char *dev, int port, struct lp_qual_hw *hw,
			  char *buf, size_t len);

enum lp_qual_kind { LP_QUAL_BW, LP_QUAL_LAT };
enum lp_qual_verdict { LP_QUAL_NONE, LP_QUAL_PASS, LP_QUAL_FAIL };
/* Against the baseline: no baseline / cell not in it / within the threshold or within noise /
 * better beyond the threshold / worse beyond the threshold but within noise / regression. */
enum lp_qual_change {
	LP_QUAL_NO_BASE,
	LP_QUAL_NEW,
	LP_QUAL_SAME,
	LP_QUAL_BETTER,
	LP_QUAL_NOISE,
	LP_QUAL_REGRESSION,
};
extern const char *const lp_qual_verdict_names[]; /* "none", "PASS", "FAIL", NULL */
/* "none", "new", "same", "better", "noise", "regression", NULL */
extern const char *const lp_qual_change_names[];

#define LP_QUAL_NAME 48
#define LP_QUAL_PAIR 96

/* One measured cell. The tool fills the first block; lp_qual_judge() the rest. */
struct lp_qual_cell {
	char test[LP_QUAL_NAME]; /* "write_bw", "h2d_ce" */
	uint64_t size;		 /* bytes */
	char pair[LP_QUAL_PAIR]; /* who: "lpnode0>lpnode1", "GPU0<-CPU", "" for the one pair */
	enum lp_qual_kind kind;
	double value;	  /* GB/s or us; NaN: not measured (failed) */
	double spread;	  /* one standard deviation of value (same unit); 0 unknown */
	double ceiling;	  /* theoretical GB/s of the link; 0 unknown */
	double allowance; /* us added to a latency limit: GPU memory's notification (qual/node.h) */
	/* the verdict */
	enum lp_qual_verdict verdict;
	double limit;	    /* the floor (GB/s) or ceiling (us) that applied */
	double margin;	    /* relative: (value - limit) / limit, negated for latency; < 0 fails */
	const char *source; /* where the limit came from (points into struct lp_qual) */
	int rule;	    /* its index in lp_qual's rules, -1 none */
	/* the comparison with the baseline */
	enum lp_qual_change change;
	double base_value, base_spread;
	double delta; /* relative change, positive = better */
};

/* A cell as a tool makes it (the verdict fields cleared); NaN value: the cell failed. */
void lp_qual_cell_set(struct lp_qual_cell *c, const char *test, uint64_t size, const char *pair,
		      enum lp_qual_kind kind, double value, double spread, double ceiling);

/* What the options say; strings point into argv. */
struct lp_qual_opts {
	const char *expect;	/* "auto", a profile FILE, or NULL */
	const char *min_gbps;	/* "V" or "TEST=V,..." in Gb/s ("GB/s" suffix: bytes) */
	const char *max_lat_us; /* "V" or "TEST=V,..." */
	const char *baseline;	/* an earlier run's JSON document */
	const char *prom;	/* Prometheus textfile to write */
	double regress_pct;	/* worse by more than this many percent (and beyond noise) fails */
	double noise_k;		/* ... beyond noise_k standard deviations of the difference */
	char **argv; /* the command line, NULL-terminated (recorded in the JSON); may be NULL */
	/* --min-gbytes-s: as min_gbps, in GB/s ("Gb/s" suffix: bits) */
	const char *min_gbytes_s;
};
#define LP_QUAL_REGRESS_PCT 10.0
#define LP_QUAL_NOISE_K	    2.0

/*
 * Option rows over struct lp_qual_opts (common/opt.h): lp_qual_opt_rows (--expect,
 * --max-lat-us, --baseline, --regress-pct, --prom) with the bandwidth floor in the unit the
 * tool prints: lp_qual_gbps_opt_rows (--min-gbps, Gb/s: lp-rdma, lp-sweep) or
 * lp_qual_gbytes_opt_rows (--min-gbytes-s, GB/s: lp-gpu; --min-gbps refused there).
 */
extern const struct lp_opt lp_qual_opt_rows[], lp_qual_gbps_opt_rows[], lp_qual_gbytes_opt_rows[];

struct lp_qual_rule;

/*
 * Two runs compared as distributions, per test and size (any node sets): this
 * run's cells and the baseline's, median and 5th/95th percentiles.
 */
struct lp_qual_dist {
	char test[LP_QUAL_NAME];
	uint64_t size;
	enum lp_qual_kind kind;
	uint32_t n, base_n;
	double median, p5, p95;
	double base_median, base_p5, base_p95;
	double delta; /* relative change of the median, positive = better */
};

/* The judge: set up once from options and hardware, then judge the run's cells. */
struct lp_qual {
	struct lp_qual_opts opts;
	char tool[32];
	struct lp_qual_rule *rules; /* floors first, then the profiles' rules */
	size_t nrules;
	char profiles[256];	   /* names of the profiles in use, comma separated */
	char note[256];		   /* why no profile applies ("Soft-RoCE: ..."), or "" */
	struct lp_qual_cell *base; /* the baseline's cells, read by lp_qual_setup */
	size_t nbase;
	struct lp_qual_cell *cells; /* the judged cells (a copy) */
	size_t ncells;
	struct lp_qual_cell *missing; /* baseline cells this run lacks */
	size_t nmissing;
	unsigned npass, nfail, nnone, nregress;
	/* as recorded in the document's "qualification" (lp_qual_json) */
	const char *verdict; /* "PASS", "FAIL", "NONE" */
	char expect[256];    /* --expect as given, "" none */
	char command[1024];  /* the command line */
	/* the baseline: matched cell by cell (when at least half of this run's cells are in it)
	 * and as distributions */
	char base_file[256];
	size_t nmatched;
	bool base_compared; /* per-cell judgement made (enough cells matched) */
	char base_why[256]; /* why it was not, "" */
	struct lp_qual_dist *dist;
	size_t ndist;
	/* the first failure of lp_qual_setup, _auto, _judge, _run, _judge_doc in words: the tool
	 * prints it (lp_fail_report) */
	struct lp_fail fail;
};

/*
 * Parse the floors, load the profiles (auto: from hw, if given; see lp_qual_auto) and read the
 * baseline, so that bad input stops a tool before it measures. tool names
 * the program in the Prometheus labels. Returns 0, -EINVAL (bad floor, unreadable or invalid
 * profile or baseline: the cause in q->fail; exit 2) or -EOPNOTSUPP (built without jansson).
 */
int lp_qual_setup(struct lp_qual *q, const char *tool, const struct lp_qual_opts *o,
		  const struct lp_qual_hw *hw);
/* --expect auto: the profiles that match hw (no-op for any other --expect). Tools call
 * lp_qual_setup(..., NULL) right after their options (usage errors before any work), then this
 * once the hardware is known. 0 or -EINVAL. */
int lp_qual_auto(struct lp_qual *q, const struct lp_qual_hw *hw);
/* The floor given for every test of a kind (--min-gbps V: GB/s, --max-lat-us V: us); NaN if none. */
double lp_qual_floor(const struct lp_qual *q, enum lp_qual_kind kind);
/* Whether any qualification was asked for (an expectation, a baseline or a textfile). */
bool lp_qual_wanted(const struct lp_qual_opts *o);

/*
 * Judge n cells (copied into q), compare with the baseline when one is given and write the
 * textfile when asked. Returns 0 or a negative errno (unreadable baseline: -EINVAL; textfile
 * not written: -EIO). lp_qual_failed() then says whether the run fails (exit 1).
 */
int lp_qual_judge(struct lp_qual *q, const struct lp_qual_cell *cells, size_t n);
/* A cell failed or regressed, or the baseline did not match enough cells to compare them. */
bool lp_qual_failed(const struct lp_qual *q);

/* The "qualification" object of a tool's JSON document (key "qualification"), from its records. */
void lp_qual_json(const struct lp_qual *q, struct lp_json *j);
/* lp_qual_json for a document writer's extra members (arg: the struct lp_qual). */
void lp_qual_json_extra(struct lp_json *j, const void *arg);
/* The JSON Schema of the "qualification" member (a property of a document's schema). */
void lp_qual_schema(struct lp_json *j);
/* A table of the judged cells and the verdict line, for people. */
void lp_qual_print(const struct lp_qual *q, FILE *f);
/* The Prometheus text exposition (what --prom writes), to f. */
void lp_qual_prom(const struct lp_qual *q, FILE *f);
void lp_qual_free(struct lp_qual *q);

/*
 * Judge a run through its own document: write(f, arg) prints the JSON document the tool's --json
 * writes; its cells are judged as lp_qual_judge() does, and with json_path the document is
 * written there with a "qualification" object added (lp_qual_json; a recorded "exit_code" of 0
 * becomes 1 when the qualification fails). One reader for live runs, baselines and lp-report.
 * Returns 0 or a negative errno (its cause in q->fail, when it has words: the tool prints it).
 */
int lp_qual_run(struct lp_qual *q, int (*write)(FILE *f, const void *arg), const void *arg,
		const char *json_path);

/*
 * The cells of a linkperf JSON document (lp-rdma, lp-gpu or lp-sweep), as the tools make them:
 * *cells_p is malloc'ed. A sweep document is read by lp-sweep's reader (any schema version) and
 * diagnosed, its cells the resolved values every output shows (lp_qual_sweep_cells). Returns 0,
 * or -EINVAL with the cause in f (not JSON, not linkperf).
 */
int lp_qual_doc_cells(const char *path, struct lp_qual_cell **cells_p, size_t *n_p,
		      struct lp_fail *f);
/*
 * Judge the document at path after the fact (lp-judge): its cells as lp_qual_doc_cells reads
 * them, judged as lp_qual_judge does; with json_path the document is written there with its
 * "qualification" section (and a recorded "exit_code" of 0 raised to 1 on failure). 0 or a
 * negative errno with the cause in q->fail (-EINVAL: not a document, or a baseline that matches
 * under half of its cells: the document is still written).
 */
int lp_qual_judge_doc(struct lp_qual *q, const char *path, const char *json_path);

struct lp_sweep_run;
/*
 * A diagnosed sweep run's cells: per metric and measured ordered pair, the resolved value (the
 * one the diagnosis used; bandwidth in GB/s), its spread from the metric's one noise field
 * (sigma_log: value * (exp(sigma_log) - 1)), the ceiling from both ports' rate. 0, -ENOMEM,
 * -EOPNOTSUPP (built without rdma-core: no sweep).
 */
int lp_qual_sweep_cells(const struct lp_sweep_run *r, struct lp_qual_cell **cells_p, size_t *n_p);

/* Bandwidth in Gb/s or GB/s as the floors take it: "350", "350Gb/s", "44GB/s" -> GB/s. */
int lp_qual_parse_gbps(const char *s, double *gbytes_s_p);

#endif
