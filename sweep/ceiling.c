// SPDX-License-Identifier: MIT
/*
 * What the links allow a collective (docs/METHOD.md, "Collectives"): each
 * scheme is a set of flows (a -> b carrying `load` bytes per byte of the
 * collective's size S) over the measured pair matrix. With every flow running
 * at once, one operation takes at least max(load / bandwidth) over the edges,
 * and over each rank's port (its flows out together, or in together, against
 * the best single pair it reached). algbw = S / that time, busbw = algbw x the
 * collective's factor; the limits within 1 % of it are the bottleneck.
 */
#include "sweep/coll.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/vec.h"

struct flows {
	struct lp_coll_flow *v;
	size_t n, cap;
};

static int add_flow(struct flows *fl, int a, int b, double load)
{
	return lp_vec_push(&fl->v, &fl->n, &fl->cap, &(struct lp_coll_flow){ a, b, load },
			   sizeof(*fl->v));
}

static int host_of(const struct lp_coll_fabric *f, int a)
{
	return f->host ? f->host[a] : a;
}

static int local_of(const struct lp_coll_fabric *f, int a)
{
	return f->local ? f->local[a] : 0;
}

static bool same_host(const struct lp_coll_fabric *f, int a, int b)
{
	return host_of(f, a) == host_of(f, b);
}

/* The bandwidth of a -> b measured alone (GB/s), NaN unknown. */
static double edge_bw(const struct lp_coll_fabric *f, int a, int b)
{
	int la = local_of(f, a), lb = local_of(f, b);

	if (a == b)
		return NAN;
	if (f->intra && same_host(f, a, b) && la >= 0 && lb >= 0 && la < f->ng && lb < f->ng)
		return f->intra[(size_t)la * f->ng + lb];
	return f->bw[(size_t)a * f->n + b];
}

/* A rank's port: the best pair it reached out of it (out) or into it, among pairs on its
 * host (intra) or across hosts; NaN when none was measured. */
static double port_bw(const struct lp_coll_fabric *f, int v, bool intra, bool out)
{
	double best = NAN;

	for (int w = 0; w < f->n; w++) {
		double x;

		if (w == v || same_host(f, v, w) != intra)
			continue;
		x = out ? edge_bw(f, v, w) : edge_bw(f, w, v);
		if (x > 0 && !(x <= best))
			best = x;
	}
	return best;
}

/* ---- the schemes' flows ---- */

static double ring_load(enum lp_coll_kind coll, int k)
{
	if (coll == LP_COLL_SENDRECV)
		return 1.0;		/* each rank sends S to the next */
	return lp_coll_factor(coll, k); /* 2(k-1)/k of S per edge for allreduce, (k-1)/k else */
}

static int ring_flows(struct flows *fl, const int *order, int k, double load)
{
	int rc = 0;

	for (int i = 0; i < k && !rc; i++)
		rc = add_flow(fl, order[i], order[(i + 1) % k], load);
	return rc;
}

static int chain_flows(struct flows *fl, enum lp_coll_kind coll, const int *order, int k)
{
	int rc = 0;

	/* broadcast pipelines S down the chain from the root (order[0]); reduce up to it */
	for (int i = 0; i + 1 < k && !rc; i++)
		rc = coll == LP_COLL_REDUCE ? add_flow(fl, order[i + 1], order[i], 1.0)
					    : add_flow(fl, order[i], order[i + 1], 1.0);
	return rc;
}

static int direct_flows(struct flows *fl, const int *order, int k)
{
	int rc = 0;

	if (k > 1024)
		return -E2BIG; /* k^2 flows */
	for (int i = 0; i < k && !rc; i++)
		for (int j = 0; j < k && !rc; j++)
			if (i != j)
				rc = add_flow(fl, order[i], order[j], 1.0 / k);
	return rc;
}

/* NCCL's binary tree (src/graph/trees.cc, ncclGetBtree): the parent of rank r of n, -1 root. */
static int btree_parent(int n, int r)
{
	int bit, up;

	if (r == 0)
		return -1;
	for (bit = 1; bit < n; bit <<= 1)
		if (bit & r)
			break;
	up = (r ^ bit) | (bit << 1);
	if (up >= n)
		up = r ^ bit;
	return up;
}

/* ncclGetDtree's second tree: the first shifted by one rank (n odd) or mirrored (n even). */
static int dtree_parent(int n, int r, int tree)
{
	int u;

	if (tree == 0)
		return btree_parent(n, r);
	if (n % 2) {
		u = btree_parent(n, (r - 1 + n) % n);
		return u < 0 ? -1 : (u + 1) % n;
	}
	u = btree_parent(n, n - 1 - r);
	return u < 0 ? -1 : n - 1 - u;
}

/* Each tree carries half of S: up (reduce) and down (broadcast) every tree edge. */
static int tree_flows(struct flows *fl, const int *order, int k)
{
	int rc = 0;

	for (int t = 0; t < 2; t++)
		for (int r = 0; r < k && !rc; r++) {
			int p = dtree_parent(k, r, t);

			if (p < 0)
				continue;
			rc = add_flow(fl, order[r], order[p], 0.5);
			if (!rc)
				rc = add_flow(fl, order[p], order[r], 0.5);
		}
	return rc;
}

/*
 * NCCL's rail-aligned rings: one channel per local index c, each with 1/G of
 * the data. In every host a channel goes round the host's G ranks c, c+1, ..,
 * c-1 and back to c (the last hop stands for PXN: the data reaches rail c's
 * NIC through GPU c), then over rail c to the next host's rank c. slot maps
 * (host position, local) to an endpoint.
 */
static int rails_flows(struct flows *fl, const int *slot, int nh, int g, double load)
{
	int rc = 0;

	for (int c = 0; c < g; c++)
		for (int h = 0; h < nh && !rc; h++) {
			for (int j = 0; j < g && g > 1 && !rc; j++)
				rc = add_flow(fl, slot[h * g + (c + j) % g],
					      slot[h * g + (c + j + 1) % g], load / g);
			if (!rc && nh > 1)
				rc = add_flow(fl, slot[h * g + c], slot[((h + 1) % nh) * g + c],
					      load / g);
		}
	return rc;
}

/* slot[h*g + l] = the endpoint on the h-th host of the order with local index l; -EINVAL when
 * the hosts do not all have g = (distinct local indices) ranks. *slot_p malloc'ed. */
static int rails_layout(const struct lp_coll_fabric *f, const int *order, int k, int **slot_p,
			int *nh_p, int *g_p)
{
	int *hosts = malloc(sizeof(int) * k), *slot = NULL, nh = 0, g = 0, rc = -EINVAL;

	if (!hosts)
		return -ENOMEM;
	for (int i = 0; i < k; i++) {
		int h = host_of(f, order[i]), j;

		g = LP_MAX(g, local_of(f, order[i]) + 1);
		for (j = 0; j < nh && hosts[j] != h; j++)
			;
		if (j == nh)
			hosts[nh++] = h;
	}
	if (nh * g != k || g < 1)
		goto out;
	slot = malloc(sizeof(int) * k);
	if (!slot) {
		rc = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < k; i++)
		slot[i] = -1;
	for (int i = 0; i < k; i++) {
		int h = 0, l = local_of(f, order[i]);

		while (hosts[h] != host_of(f, order[i]))
			h++;
		if (l < 0 || slot[h * g + l] >= 0)
			goto out;
		slot[h * g + l] = order[i];
	}
	*slot_p = slot;
	slot = NULL;
	*nh_p = nh;
	*g_p = g;
	rc = 0;
out:
	free(slot);
	free(hosts);
	return rc;
}

/* ---- evaluation ---- */

struct limits {
	struct lp_coll_edge *v;
	size_t n, cap;
};

static int add_limit(struct limits *L, enum lp_coll_limit kind, int a, int b, double gbs,
		     double load, double factor)
{
	struct lp_coll_edge e = {
		.a = a, .b = b, .gbs = gbs, .load = load, .busbw = factor * gbs / load
	};

	snprintf(e.limit, sizeof(e.limit), "%s", lp_coll_limit_names[kind]);
	return lp_vec_push(&L->v, &L->n, &L->cap, &e, sizeof(e));
}

static int flow_cmp(const void *x, const void *y)
{
	const struct lp_coll_flow *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static int limit_cmp(const void *x, const void *y)
{
	const struct lp_coll_edge *a = x, *b = y;

	return a->busbw < b->busbw ? -1 : a->busbw > b->busbw;
}

/* Per rank and class (0 across hosts, 1 on its host): load out and in, distinct edges. */
struct port_load {
	double out[2], in[2];
	int nout[2], nin[2];
};

/* The ports of ranks with two or more edges of a class each way: they share the port. */
static int port_limits(const struct lp_coll_fabric *f, const struct port_load *pl, struct limits *L,
		       double factor)
{
	int rc = 0;

	for (int v = 0; v < f->n && !rc; v++)
		for (int c = 0; c < 2 && !rc; c++) {
			double bo, bi;

			if (pl[v].nout[c] >= 2 && (bo = port_bw(f, v, c, true)) > 0)
				rc = add_limit(L, LP_COLL_LIMIT_EGRESS, v, -1, bo, pl[v].out[c],
					       factor);
			if (!rc && pl[v].nin[c] >= 2 && (bi = port_bw(f, v, c, false)) > 0)
				rc = add_limit(L, LP_COLL_LIMIT_INGRESS, v, -1, bi, pl[v].in[c],
					       factor);
		}
	return rc;
}

/* Merge the flows into edges, their limits and the ports'. */
static int edge_limits(const struct lp_coll_fabric *f, struct flows *fl, struct limits *L,
		       double factor, struct lp_coll_ceiling *c)
{
	struct port_load *pl = calloc((size_t)f->n, sizeof(*pl));
	int rc = 0;

	if (!pl)
		return -ENOMEM;
	qsort(fl->v, fl->n, sizeof(*fl->v), flow_cmp);
	for (size_t i = 0, j; i < fl->n && !rc; i = j) {
		double load = 0, bw;
		int a = fl->v[i].a, b = fl->v[i].b, cls = same_host(f, a, b);

		for (j = i; j < fl->n && fl->v[j].a == a && fl->v[j].b == b; j++)
			load += fl->v[j].load;
		c->nedges++;
		pl[a].out[cls] += load;
		pl[a].nout[cls]++;
		pl[b].in[cls] += load;
		pl[b].nin[cls]++;
		bw = edge_bw(f, a, b);
		if (!(bw > 0))
			c->unknown++;
		else
			rc = add_limit(L, LP_COLL_LIMIT_EDGE, a, b, bw, load, factor);
	}
	if (!rc)
		rc = port_limits(f, pl, L, factor);
	free(pl);
	return rc;
}

/* In-network reduction: every rank's port carries S out and S in; no pairwise edge. */
static int innet_limits(const struct lp_coll_fabric *f, const int *order, int k, struct limits *L,
			double factor, struct lp_coll_ceiling *c)
{
	bool one_host = true;
	int rc = 0;

	for (int i = 1; i < k; i++)
		one_host = one_host && same_host(f, order[0], order[i]);
	for (int i = 0; i < k && !rc; i++) {
		double bo = port_bw(f, order[i], one_host, true),
		       bi = port_bw(f, order[i], one_host, false);

		c->nedges += 2;
		c->unknown += !(bo > 0) + !(bi > 0);
		if (bo > 0)
			rc = add_limit(L, LP_COLL_LIMIT_EGRESS, order[i], -1, bo, 1.0, factor);
		if (!rc && bi > 0)
			rc = add_limit(L, LP_COLL_LIMIT_INGRESS, order[i], -1, bi, 1.0, factor);
	}
	return rc;
}

static void name_limit(const struct lp_coll_fabric *f, struct lp_coll_edge *e)
{
	if (!f->names)
		return;
	if (e->a >= 0 && e->a < f->n && f->names[e->a])
		snprintf(e->a_name, sizeof(e->a_name), "%s", f->names[e->a]);
	if (e->b >= 0 && e->b < f->n && f->names[e->b])
		snprintf(e->b_name, sizeof(e->b_name), "%s", f->names[e->b]);
}

/* The ceiling is the slowest limit; the limits within 1 % of it are the bottleneck. */
static void settle(const struct lp_coll_fabric *f, struct limits *L, double factor,
		   struct lp_coll_ceiling *c)
{
	if (L->n == 0)
		return;
	qsort(L->v, L->n, sizeof(*L->v), limit_cmp);
	c->busbw = L->v[0].busbw;
	c->algbw = c->busbw / factor;
	for (size_t i = 0; i < L->n && c->nbott < LP_COLL_MAX_BOTT; i++) {
		if (L->v[i].busbw > c->busbw * 1.01)
			break;
		c->bott[c->nbott] = L->v[i];
		name_limit(f, &c->bott[c->nbott]);
		c->nbott++;
	}
}

/* ---- the ring whose slowest edge is fastest (bottleneck Hamiltonian cycle, exact for k <= 16) -- */

static int best_ring(const struct lp_coll_fabric *f, const int *order, int k, int *best)
{
	size_t states = ((size_t)1 << k) * k;
	double *dp = malloc(states * sizeof(double)), top = -1;
	uint8_t *from = malloc(states);
	int last = -1;

	if (!dp || !from) {
		free(dp);
		free(from);
		return -ENOMEM;
	}
	/* dp[mask*k + v]: the best bottleneck of a path from order[0] over mask ending at v */
	for (size_t i = 0; i < states; i++)
		dp[i] = -1;
	dp[1 * k + 0] = INFINITY;
	for (size_t mask = 1; mask < ((size_t)1 << k); mask += 2)
		for (int v = 0; v < k; v++) {
			double cur = dp[mask * k + v];

			if (cur < 0)
				continue;
			for (int w = 1; w < k; w++) {
				double e = edge_bw(f, order[v], order[w]), x;
				size_t nm = mask | ((size_t)1 << w);

				if ((mask >> w) & 1 || !(e > 0))
					continue;
				x = LP_MIN(cur, e);
				if (x > dp[nm * k + w]) {
					dp[nm * k + w] = x;
					from[nm * k + w] = (uint8_t)v;
				}
			}
		}
	for (int v = 1; v < k; v++) {
		size_t full = ((size_t)1 << k) - 1;
		double e = edge_bw(f, order[v], order[0]), x = LP_MIN(dp[full * k + v], e);

		if (dp[full * k + v] >= 0 && e > 0 && x > top) {
			top = x;
			last = v;
		}
	}
	if (last >= 0) {
		size_t mask = ((size_t)1 << k) - 1;

		for (int i = k - 1, v = last; i >= 0; i--) {
			int pv = from[mask * k + v];

			best[i] = order[v];
			mask &= ~((size_t)1 << v);
			v = pv;
		}
	}
	free(dp);
	free(from);
	return last >= 0 ? 0 : -ENOENT;
}

bool lp_coll_scheme_fits(enum lp_coll_kind coll, enum lp_coll_scheme scheme)
{
	switch (scheme) {
	case LP_COLL_SCHEME_RING:
	case LP_COLL_SCHEME_RING_BEST:
		return coll == LP_COLL_ALLREDUCE || coll == LP_COLL_ALLGATHER ||
		       coll == LP_COLL_REDUCESCATTER || coll == LP_COLL_SENDRECV;
	case LP_COLL_SCHEME_RAILS:
		return coll == LP_COLL_ALLREDUCE || coll == LP_COLL_ALLGATHER ||
		       coll == LP_COLL_REDUCESCATTER;
	case LP_COLL_SCHEME_TREE:
	case LP_COLL_SCHEME_INNET:
		return coll == LP_COLL_ALLREDUCE;
	case LP_COLL_SCHEME_CHAIN:
		return coll == LP_COLL_BROADCAST || coll == LP_COLL_REDUCE;
	case LP_COLL_SCHEME_DIRECT:
		return coll == LP_COLL_ALLTOALL;
	default:
		return false;
	}
}

static int scheme_flows(const struct lp_coll_fabric *f, enum lp_coll_kind coll,
			enum lp_coll_scheme scheme, const int *order, int k, struct flows *fl,
			struct lp_coll_ceiling *c)
{
	int *slot = NULL, nh, g, rc;

	switch (scheme) {
	case LP_COLL_SCHEME_RING:
		return ring_flows(fl, order, k, ring_load(coll, k));
	case LP_COLL_SCHEME_RING_BEST: {
		int best[LP_COLL_BEST_MAX];

		if (k > LP_COLL_BEST_MAX)
			return -E2BIG;
		rc = best_ring(f, order, k, best);
		if (rc == -ENOENT) /* no ring over measured edges: as the order goes */
			memcpy(best, order, sizeof(int) * k);
		else if (rc)
			return rc;
		c->norder = (uint32_t)k;
		for (int i = 0; i < k; i++)
			c->order[i] = best[i];
		return ring_flows(fl, best, k, ring_load(coll, k));
	}
	case LP_COLL_SCHEME_TREE:
		return tree_flows(fl, order, k);
	case LP_COLL_SCHEME_RAILS:
		rc = rails_layout(f, order, k, &slot, &nh, &g);
		if (!rc)
			rc = rails_flows(fl, slot, nh, g, ring_load(coll, k));
		free(slot);
		return rc;
	case LP_COLL_SCHEME_CHAIN:
		return chain_flows(fl, coll, order, k);
	case LP_COLL_SCHEME_DIRECT:
		return direct_flows(fl, order, k);
	default:
		return 0; /* innet: ports only */
	}
}

int lp_coll_ceiling(const struct lp_coll_fabric *f, enum lp_coll_kind coll,
		    enum lp_coll_scheme scheme, const int *order, int k, struct lp_coll_ceiling *c)
{
	struct flows fl = { 0 };
	struct limits L = { 0 };
	double factor = lp_coll_factor(coll, k);
	int rc;

	memset(c, 0, sizeof(*c));
	c->algbw = c->busbw = NAN;
	if (coll < 0 || coll >= LP_COLL_NKINDS || scheme < 0 || scheme >= LP_COLL_NSCHEMES)
		return -EINVAL;
	snprintf(c->coll, sizeof(c->coll), "%s", lp_coll_names[coll]);
	snprintf(c->scheme, sizeof(c->scheme), "%s", lp_coll_scheme_names[scheme]);
	snprintf(c->group, sizeof(c->group), "all");
	c->nranks = k;
	if (k < 2 || !lp_coll_scheme_fits(coll, scheme))
		return -EINVAL;
	for (int i = 0; i < k; i++)
		if (order[i] < 0 || order[i] >= f->n)
			return -EINVAL;
	if (factor == 0)
		factor = 1; /* sendrecv and others keep algbw; none is 0 for k >= 2 */
	rc = scheme_flows(f, coll, scheme, order, k, &fl, c);
	if (!rc)
		rc = scheme == LP_COLL_SCHEME_INNET ? innet_limits(f, order, k, &L, factor, c)
						    : edge_limits(f, &fl, &L, factor, c);
	if (!rc)
		settle(f, &L, factor, c);
	free(fl.v);
	free(L.v);
	return rc;
}

int lp_coll_ceiling_flows(const struct lp_coll_fabric *f, enum lp_coll_kind coll, int nranks,
			  const struct lp_coll_flow *fl, size_t nfl, struct lp_coll_ceiling *c)
{
	struct flows copy = { 0 };
	struct limits L = { 0 };
	double factor = lp_coll_factor(coll, nranks);
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->algbw = c->busbw = NAN;
	if (coll < 0 || coll >= LP_COLL_NKINDS || !(factor > 0))
		return -EINVAL;
	snprintf(c->coll, sizeof(c->coll), "%s", lp_coll_names[coll]);
	snprintf(c->scheme, sizeof(c->scheme), "%s", lp_coll_scheme_names[LP_COLL_SCHEME_RING]);
	snprintf(c->group, sizeof(c->group), "all");
	c->nranks = nranks;
	for (size_t i = 0; i < nfl && !rc; i++)
		rc = fl[i].a < 0 || fl[i].a >= f->n || fl[i].b < 0 || fl[i].b >= f->n
			     ? -EINVAL
			     : add_flow(&copy, fl[i].a, fl[i].b, fl[i].load);
	if (!rc)
		rc = edge_limits(f, &copy, &L, factor, c);
	if (!rc)
		settle(f, &L, factor, c);
	free(copy.v);
	free(L.v);
	return rc;
}
