/* SPDX-License-Identifier: MIT */
/*
 * A simulated fabric for lp_coll_bisect (sweep/coll.h): n nodes, every ordered
 * pair's true bandwidth, faults planted on nodes, links or ranges, and the two
 * probes the bisection calls. A ring's busbw is the slowest of its edges, each
 * drawn with its own noise (cv) at every probe, as a ring whose edges all run
 * at once; an edge alone is its true bandwidth with noise. `conc` slows a ring
 * of all n nodes only (a fault that needs every node at once). Used by
 * tests/unit/test_sweep_coll.c and tests/sweep/coll-sim.c (scripts/bench-bisect.sh).
 */
#ifndef LP_TESTS_COLL_SIM_H
#define LP_TESTS_COLL_SIM_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sweep/coll.h"

struct lp_coll_sim {
	int n;
	double *bw;  /* n*n true GB/s */
	double cv;   /* per-probe noise (coefficient of variation) */
	double conc; /* factor on a ring of all n nodes (1: none) */
	uint64_t state;
	int rings, edges;	      /* probes made */
	int fail_edge_a, fail_edge_b; /* this pair's probe fails (-EIO); -1 none */
};

static inline double lp_coll_sim_uniform(struct lp_coll_sim *s)
{
	/* xorshift64* */
	s->state ^= s->state >> 12;
	s->state ^= s->state << 25;
	s->state ^= s->state >> 27;
	return ((s->state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* 1 + cv x a standard normal draw (Box-Muller), kept above 0.05. */
static inline double lp_coll_sim_noise(struct lp_coll_sim *s)
{
	double u = lp_coll_sim_uniform(s), v = lp_coll_sim_uniform(s);
	double g = sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);

	return fmax(0.05, 1 + s->cv * g);
}

static inline int lp_coll_sim_init(struct lp_coll_sim *s, int n, double gbs, double cv,
				   uint64_t seed)
{
	*s = (struct lp_coll_sim){ .n = n,
				   .cv = cv,
				   .conc = 1,
				   .state = seed * 0x9e3779b97f4a7c15ull + 1,
				   .fail_edge_a = -1,
				   .fail_edge_b = -1 };
	s->bw = malloc(sizeof(double) * (size_t)n * n);
	if (!s->bw)
		return -ENOMEM;
	for (int i = 0; i < n * n; i++)
		s->bw[i] = i / n == i % n ? NAN : gbs;
	return 0;
}

static inline void lp_coll_sim_free(struct lp_coll_sim *s)
{
	free(s->bw);
	s->bw = NULL;
}

/* Node u at factor f on its egress (out), ingress, or both. */
static inline void lp_coll_sim_node(struct lp_coll_sim *s, int u, double f, bool out, bool in)
{
	for (int w = 0; w < s->n; w++) {
		if (w == u)
			continue;
		if (out)
			s->bw[u * s->n + w] *= f;
		if (in)
			s->bw[w * s->n + u] *= f;
	}
}

static inline void lp_coll_sim_link(struct lp_coll_sim *s, int a, int b, double f)
{
	s->bw[a * s->n + b] *= f;
}

/* Every edge out of nodes [first, first+count): what they share (an uplink, a rail). */
static inline void lp_coll_sim_range(struct lp_coll_sim *s, int first, int count, double f)
{
	for (int u = first; u < first + count; u++)
		for (int w = 0; w < s->n; w++)
			if (w != u)
				s->bw[u * s->n + w] *= f;
}

static inline int lp_coll_sim_ring(void *arg, const int *nodes, int k, double *busbw_p)
{
	struct lp_coll_sim *s = arg;
	double m = INFINITY;

	s->rings++;
	for (int i = 0; i < k; i++)
		m = fmin(m, s->bw[nodes[i] * s->n + nodes[(i + 1) % k]] * lp_coll_sim_noise(s));
	*busbw_p = k == s->n ? m * s->conc : m;
	return 0;
}

static inline int lp_coll_sim_edge(void *arg, int a, int b, double *gbs_p)
{
	struct lp_coll_sim *s = arg;

	s->edges++;
	if (a == s->fail_edge_a && b == s->fail_edge_b)
		return -EIO;
	*gbs_p = s->bw[a * s->n + b] * lp_coll_sim_noise(s);
	return 0;
}

static const struct lp_coll_probe_ops lp_coll_sim_ops = { lp_coll_sim_ring, lp_coll_sim_edge };

#endif
