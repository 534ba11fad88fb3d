// SPDX-License-Identifier: MIT
/*
 * coll-sim: a simulation benchmark of the collective bisection
 * (lp_coll_bisect, sweep/bisect.c) over the simulated fabric of
 * tests/sweep/coll_sim.h: per setting (nodes, noise CV, fault kind and
 * factor), `trials` fabrics with the fault planted at a random place, the
 * bisection run on each, and: found (the right kind and place), wrong (a node,
 * link or shared verdict that is not the fault), misses (inconclusive,
 * concurrency, none, or one node of a shared fault's nodes), probes per run
 * (mean, max). scripts/bench-bisect.sh runs
 * the grid; --check asserts the target (found >= 95 % at 0.8x, no
 * wrong name on healthy fabrics).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/opt.h"
#include "sweep/coll.h"
#include "tests/sweep/coll_sim.h"

static const char *const fault_names[] = { "none", "egress", "ingress", "node",
					   "link", "shared", NULL };
enum fault { F_NONE, F_EGRESS, F_INGRESS, F_NODE, F_LINK, F_SHARED };

struct tally {
	int trials, found, wrong, missed, probes_max;
	long probes;
};

/* Plant fault f at factor x in s; where it is goes to *a, *b (link: a -> b on the ring). */
static void plant(struct lp_coll_sim *s, int f, double x, int *a, int *b)
{
	int n = s->n;

	*a = (int)(lp_coll_sim_uniform(s) * n) % n;
	*b = f == F_LINK ? (*a + 1) % n : -1;
	if (f == F_EGRESS || f == F_NODE)
		lp_coll_sim_node(s, *a, x, true, f == F_NODE);
	if (f == F_INGRESS)
		lp_coll_sim_node(s, *a, x, false, true);
	if (f == F_LINK)
		lp_coll_sim_link(s, *a, *b, x);
	if (f == F_SHARED) { /* the nodes behind one uplink: an aligned eighth of them */
		int part = LP_MAX(n / 8, 4);

		*a = (*a / part) * part;
		*b = LP_MIN(*a + part, n) - 1;
		lp_coll_sim_range(s, *a, *b - *a + 1, x);
	}
}

/* A node, or a run of nodes, inside a shared fault's range: part of it, not a wrong name. */
static bool member(const struct lp_coll_verdict *v, int f, int a, int b)
{
	if (f != F_SHARED || v->a < a || v->a > b)
		return false;
	return !strcmp(v->kind, "node") || (!strcmp(v->kind, "shared") && v->b >= a && v->b <= b);
}

/* The busbw a healthy ring of all n nodes reaches: the median of 5 probes of a healthy copy
 * (what another rail, or an earlier run, gives the bisection as its reference). */
static double healthy_ref(int n, double cv, uint64_t seed)
{
	struct lp_coll_sim s;
	double v[5], t;
	int *all = malloc(sizeof(int) * n);

	if (!all || lp_coll_sim_init(&s, n, 50, cv, seed ^ 0x5eed)) {
		free(all);
		return NAN;
	}
	for (int i = 0; i < n; i++)
		all[i] = i;
	for (int i = 0; i < 5; i++)
		lp_coll_sim_ring(&s, all, n, &v[i]);
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	lp_coll_sim_free(&s);
	free(all);
	return v[2];
}

static bool right(const struct lp_coll_verdict *v, int f, int a, int b)
{
	if (f == F_NONE)
		return !strcmp(v->kind, "none");
	if (f == F_LINK)
		return !strcmp(v->kind, "link") && v->a == a && v->b == b;
	if (f == F_SHARED)
		return !strcmp(v->kind, "shared") && v->a == a && v->b == b;
	return !strcmp(v->kind, "node") && v->a == a;
}

static bool named(const struct lp_coll_verdict *v)
{
	return !strcmp(v->kind, "node") || !strcmp(v->kind, "link") || !strcmp(v->kind, "shared");
}

static bool verbose;

static int trial(int n, double cv, int f, double x, uint64_t seed, double ref, struct tally *t)
{
	struct lp_coll_bisect_opts o;
	struct lp_coll_verdict v;
	struct lp_coll_sim s;
	int *order = malloc(sizeof(int) * n), a, b, rc;

	if (!order || lp_coll_sim_init(&s, n, 50, cv, seed)) {
		free(order);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		order[i] = i;
	plant(&s, f, x, &a, &b);
	lp_coll_bisect_opts_default(&o);
	o.ref_busbw = ref;
	rc = lp_coll_bisect(n, order, &lp_coll_sim_ops, &s, &o, &v);
	if (!rc) {
		bool ok = right(&v, f, a, b);

		t->trials++;
		t->found += ok;
		t->wrong += !ok && named(&v) && !member(&v, f, a, b);
		t->missed += !ok && (!named(&v) || member(&v, f, a, b));
		t->probes += v.probes;
		t->probes_max = LP_MAX(t->probes_max, v.probes);
		if (verbose && !ok)
			printf("  seed %llu: planted %s %d -> %d, got %s %d -> %d: %s\n",
			       (unsigned long long)seed, fault_names[f], a, b, v.kind, v.a, v.b,
			       v.reason);
	}
	lp_coll_sim_free(&s);
	free(order);
	return rc;
}

struct cli {
	struct lp_sizes nodes;
	const char *cvs, *faults, *factors;
	unsigned trials;
	bool ref, check, verbose;
};

/* Each value of a comma list of numbers into out (at most max). */
static int numbers(const char *s, double *out, int max, int *n_p)
{
	char buf[256];
	const char *items[32];
	int n;

	if (lp_split_list(s, buf, sizeof(buf), items, LP_MIN(max, 32), &n))
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (lp_parse_double(items[i], &out[i]))
			return -EINVAL;
	*n_p = n;
	return 0;
}

/* One setting: its line; false when --check fails on it. */
static bool setting(const struct cli *o, int n, double cv, int f, double x)
{
	struct tally t = { 0 };
	bool ok;

	for (unsigned i = 0; i < o->trials; i++)
		if (trial(n, cv, f, x, 1000 * (uint64_t)n + i,
			  o->ref ? healthy_ref(n, cv, 1000 * (uint64_t)n + i) : NAN, &t))
			return false;
	printf("%6d %6.3f %-8s %6.2f %6d %7.1f%% %7.1f%% %7.1f%% %7.1f %6d\n", n, cv,
	       fault_names[f], f == F_NONE ? 1.0 : x, t.trials, 100.0 * t.found / t.trials,
	       100.0 * t.wrong / t.trials, 100.0 * t.missed / t.trials, (double)t.probes / t.trials,
	       t.probes_max);
	/* the target: >= 95 % found at 0.8x or stronger; never a wrong name on a healthy fabric */
	ok = f == F_NONE ? t.wrong == 0 : x > 0.8 + 1e-9 || t.found >= 0.95 * t.trials;
	if (!ok)
		printf("  ^ FAILS the target\n");
	return ok;
}

#define CO struct cli
/* clang-format off */
static const struct lp_opt sim_rows[] = {
	{ .name = "nodes", .shortname = 'n', LP_OPT_SIZES_AT(CO, nodes), .min = 2, .max = 1 << 16,
	  .metavar = "N", .help = "nodes, a list", .def = "64" },
	{ .name = "cv", LP_OPT_STR_AT(CO, cvs), .metavar = "LIST",
	  .help = "per-probe noise (coefficient of variation)", .def = "0.02" },
	{ .name = "faults", .shortname = 'f', LP_OPT_LIST_AT(CO, faults), .choices = fault_names,
	  .metavar = "LIST", .help = "fault kinds", .def = "none,egress,ingress,node,link" },
	{ .name = "factor", .shortname = 's', LP_OPT_STR_AT(CO, factors), .metavar = "LIST",
	  .help = "the faulty part's bandwidth factor", .def = "0.8" },
	{ .name = "trials", .shortname = 't', LP_OPT_UINT_AT(CO, trials), .min = 1, .max = 1e6,
	  .metavar = "N", .help = "fabrics per setting", .def = "200" },
	{ .name = "ref", LP_OPT_FLAG_AT(CO, ref),
	  .help = "give the bisection the healthy busbw as its reference" },
	{ .name = "verbose", .shortname = 'v', LP_OPT_FLAG_AT(CO, verbose),
	  .help = "a line per run that missed or named the wrong part" },
	{ .name = "check", LP_OPT_FLAG_AT(CO, check),
	  .help = "exit 1 unless every setting meets the target" },
	{ 0 },
};
/* clang-format on */

static const struct lp_opt_cmd sim_cmd = {
	.synopsis = "coll-sim [options]",
	.groups = (const struct lp_opt_group[]){ { NULL, sim_rows, 0 }, { 0 } },
};

int main(int argc, char **argv)
{
	struct cli o = { 0 };
	bool help;
	double cvs[32], xs[32];
	int ncv, nx, bad = 0;
	char fbuf[128];
	const char *fl[16];
	int nf;

	if (lp_opt_parse(&sim_cmd, &o, argc, argv, NULL, &(int){ 0 }, &help))
		return LP_EXIT_USAGE;
	verbose = o.verbose;
	if (help) {
		lp_opt_usage(&sim_cmd, stdout);
		return LP_EXIT_OK;
	}
	if (numbers(o.cvs, cvs, 32, &ncv) || numbers(o.factors, xs, 32, &nx) ||
	    lp_split_list(o.faults, fbuf, sizeof(fbuf), fl, 16, &nf)) {
		fprintf(stderr, "coll-sim: --cv and --factor take comma lists of numbers\n");
		return LP_EXIT_USAGE;
	}
	printf("%6s %6s %-8s %6s %6s %8s %8s %8s %7s %6s\n", "nodes", "cv", "fault", "factor",
	       "runs", "found", "wrong", "missed", "probes", "max");
	for (unsigned i = 0; i < o.nodes.n; i++)
		for (int c = 0; c < ncv; c++)
			for (int k = 0; k < nf; k++) {
				int f = lp_choice_index(fault_names, fl[k]);

				for (int s = 0; s < (f == F_NONE ? 1 : nx); s++)
					bad += !setting(&o, (int)o.nodes.v[i], cvs[c], f, xs[s]);
			}
	return o.check && bad ? LP_EXIT_FAIL : LP_EXIT_OK;
}
