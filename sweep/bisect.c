// SPDX-License-Identifier: MIT
/*
 * From a slow collective to the guilty part (docs/METHOD.md, "Bisection"):
 * halve the ring along its order, keep the half that is slow against its
 * sibling (the sibling, healthy, is the reference of the next level), and
 * resolve the last two or three nodes by their edges alone: each slow edge
 * against the edges of its ends to a healthy node. A part is named only when
 * its edges stand out beyond the probes' own noise (pooled over every
 * repeated probe), so a noisy fabric gives "inconclusive", never a wrong
 * name. A pure function over the caller's two probes: the engine, the unit
 * tests and the simulation benchmark (tests/sweep/coll-sim.c) run this code.
 */
#include "sweep/coll.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"

#define K_SIGMA 3.0 /* an edge is slow when it is this many standard errors below its level */

struct bis {
	const struct lp_coll_probe_ops *ops;
	void *arg;
	const struct lp_coll_bisect_opts *o;
	const int *order;
	int n;
	struct lp_coll_verdict *v;
	bool stop; /* a probe returned -EINTR */
	double ss; /* pooled squared relative deviations of repeated probes */
	int dof;
};

/* A figure and the probes behind it. */
struct meas {
	double val;
	int n;
};

void lp_coll_bisect_opts_default(struct lp_coll_bisect_opts *o)
{
	*o = (struct lp_coll_bisect_opts){
		.ratio = 0.9, .max_probes = 96, .repeats = 3, .ref_busbw = NAN
	};
}

static bool budget(const struct bis *b)
{
	return !b->stop && b->v->probes < b->o->max_probes;
}

static int dcmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* One probe, kept as evidence; a failed one (the link may be down) counts as 0 GB/s. */
static double probe1(struct bis *b, enum lp_coll_probe_kind kind, int first, int count, int x,
		     int y, double ref)
{
	struct lp_coll_probe p = { .first = first,
				   .count = count,
				   .ref = ref,
				   .a = kind == LP_COLL_PROBE_EDGE ? b->order[x] : -1,
				   .b = kind == LP_COLL_PROBE_EDGE ? b->order[y] : -1 };
	double val = NAN;
	int rc;

	snprintf(p.kind, sizeof(p.kind), "%s", lp_coll_probe_names[kind]);
	b->v->probes++;
	rc = kind == LP_COLL_PROBE_RING ? b->ops->ring(b->arg, b->order + first, count, &val)
					: b->ops->edge(b->arg, b->order[x], b->order[y], &val);
	if (rc == -EINTR)
		b->stop = true;
	if (rc)
		val = NAN;
	p.value = val;
	p.slow = !(val >= b->o->ratio * ref);
	if (b->v->nprobe < LP_COLL_MAX_PROBES)
		b->v->probe[b->v->nprobe++] = p;
	return isfinite(val) ? val : 0;
}

/* The spread of a group of probes of one thing (or of healthy edges) joins the pooled noise. */
static void pool(struct bis *b, const double *v, int n)
{
	double mean = 0;
	int k = 0;

	/* on a log scale: bandwidth noise is a factor, and a 100x slow probe is no outlier of it */
	for (int i = 0; i < n; i++)
		if (v[i] > 0) {
			mean += log(v[i]);
			k++;
		}
	if (k < 2)
		return;
	mean /= k;
	for (int i = 0; i < n; i++)
		if (v[i] > 0)
			b->ss += (log(v[i]) - mean) * (log(v[i]) - mean);
	b->dof += k - 1;
}

/* The probes' noise (standard deviation of their logarithm: ~ the CV); NaN before two probes of one thing. */
static double noise(const struct bis *b)
{
	return b->dof ? sqrt(b->ss / b->dof) : NAN;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A ring's threshold: the descent follows a ring below (1 + ratio) / 2 x its
 * sibling: a ring runs at the slowest of its edges, each with its own noise,
 * so a fault of `ratio` shows in a ring as less than that.
 */
static double descend_ratio(const struct bis *b)
{
	return (1 + b->o->ratio) / 2;
}

/*
 * An edge: probed once when it looks healthy, up to o->repeats times (their
 * median) when it may be slow; v[0..*n) holds the probes made so far (more
 * are added), their spread joins the pooled noise.
 */
static struct meas edge_more(struct bis *b, int x, int y, double level, double *v, int *n, int nmin)
{
	int rep = LP_MIN(LP_MAX(b->o->repeats, 1), 15);
	double m = (1 - b->o->ratio) / 2;

	if (!*n)
		v[(*n)++] = probe1(b, LP_COLL_PROBE_EDGE, 0, 0, x, y, level);
	while (*n < rep && budget(b) && (*n < nmin || !(median(v, *n) >= (1 - m) * level)))
		v[(*n)++] = probe1(b, LP_COLL_PROBE_EDGE, 0, 0, x, y, level);
	pool(b, v, *n);
	return (struct meas){ median(v, *n), *n };
}

/* An edge (nmin: probes at least, where the answer must be firm either way). */
static struct meas edge(struct bis *b, int x, int y, double level, int nmin)
{
	double v[16];
	int n = 0;

	return edge_more(b, x, y, level, v, &n, nmin);
}

/*
 * x is below thr x level, and by more than K_SIGMA standard errors of the
 * probes' noise, on a log scale (unknown noise: the ratio alone).
 */
static bool below(const struct bis *b, struct meas x, struct meas level, double thr)
{
	double s = noise(b);

	if (!(x.val < thr * level.val))
		return false;
	if (!isfinite(s) || !(x.val > 0))
		return true; /* a failed probe: 0 */
	return log(level.val / x.val) > K_SIGMA * s * sqrt(1.0 / x.n + 1.0 / level.n);
}

/* x is clearly above y (the same test the other way round, without a ratio). */
static bool clearly_above(const struct bis *b, struct meas x, struct meas y)
{
	double s = noise(b);

	if (!(x.val > y.val))
		return false;
	return !isfinite(s) || !(y.val > 0) ||
	       log(x.val / y.val) > K_SIGMA * s * sqrt(1.0 / x.n + 1.0 / y.n);
}

static void name(const struct bis *b, char *dst, size_t len, int idx)
{
	int node = idx >= 0 && idx < b->n ? b->order[idx] : -1;

	if (node >= 0 && b->o->names && b->o->names[node])
		snprintf(dst, len, "%s", b->o->names[node]);
	else
		snprintf(dst, len, "node %d", node);
}

static void verdict(struct bis *b, enum lp_coll_guilty kind, int x, int y, double ratio,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void verdict(struct bis *b, enum lp_coll_guilty kind, int x, int y, double ratio,
		    const char *fmt, ...)
{
	struct lp_coll_verdict *v = b->v;
	va_list ap;

	snprintf(v->kind, sizeof(v->kind), "%s", lp_coll_guilty_names[kind]);
	v->a = x >= 0 ? b->order[x] : -1;
	v->b = y >= 0 ? b->order[y] : -1;
	if (x >= 0)
		name(b, v->a_name, sizeof(v->a_name), x);
	if (y >= 0)
		name(b, v->b_name, sizeof(v->b_name), y);
	v->ratio = ratio;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
}

/* ---- the edge view: a slow edge, its ends against healthy nodes ---- */

#define EDGE_PART   8 /* a part this small is resolved by its edges */
#define MAX_HEALTHY 8

/* Nodes (positions) known healthy: taken from each healthy sibling on the way down. */
struct healthy {
	int pos[MAX_HEALTHY];
	int n;
};

/* Up to `want` nodes of [first, first+count), spread over it. */
static void healthy_add(struct healthy *h, int first, int count, int want)
{
	for (int i = 0; i < want && i < count && h->n < MAX_HEALTHY; i++)
		h->pos[h->n++] = first + (int)((long)i * count / LP_MIN(want, count));
}

/* The k-th healthy node other than x and y; -1 none. */
static int witness(const struct healthy *h, int x, int y, int k)
{
	for (int i = 0; i < h->n; i++)
		if (h->pos[i] != x && h->pos[i] != y && k-- == 0)
			return h->pos[i];
	return -1;
}

/*
 * The healthy edge level: pairs of healthy nodes, each both ways, once
 * (eight probes at most); their median, their spread pooled into the noise.
 */
static struct meas edge_level(struct bis *b, const struct healthy *h)
{
	double v[8];
	int n = 0;

	for (int i = 0; i + 1 < h->n && n < 8 && budget(b); i += h->n >= 8 ? 2 : 1)
		for (int d = 0; d < 2 && budget(b); d++)
			v[n++] = probe1(b, LP_COLL_PROBE_EDGE, 0, 0, h->pos[i + d], h->pos[i + !d],
					NAN);
	if (!n)
		return (struct meas){ NAN, 0 };
	pool(b, v, n);
	return (struct meas){ median(v, n), n };
}

struct look {
	int x, y; /* an edge, positions in the order */
	struct meas e;
};

/* One end of a slow edge against two healthy witnesses: 1 slow (both), 0 healthy (both clearly
 * faster than the edge), -1 neither. */
static int end_side(struct bis *b, const struct look *e, bool out, const struct healthy *hh,
		    struct meas level, double *worst)
{
	int u = out ? e->x : e->y, nslow = 0, nfast = 0, nw = 0;

	*worst = INFINITY;
	for (int k = 0; k < 2 && budget(b); k++) {
		int h = witness(hh, e->x, e->y, k);
		struct meas m;

		if (h < 0)
			break;
		m = out ? edge(b, u, h, level.val, b->o->repeats)
			: edge(b, h, u, level.val, b->o->repeats);
		nw++;
		nslow += below(b, m, level, b->o->ratio);
		nfast += clearly_above(b, m, e->e);
		*worst = fmin(*worst, m.val);
	}
	return nw && nslow == nw ? 1 : nw && nfast == nw ? 0 : -1;
}

/*
 * Slow edges x -> y: a node whose egress (x) or ingress (y) to both healthy
 * witnesses is slow too is named; an edge whose ends both reach them clearly
 * faster than it is the link; anything between is inconclusive.
 */
static void resolve_edges(struct bis *b, const struct look *e, int ne, const struct healthy *hh,
			  struct meas level)
{
	double worst_node = INFINITY, worst_link = INFINITY;
	int node = -1, link = -1, amb = -1;
	unsigned dirs = 0;

	for (int i = 0; i < ne && budget(b); i++) {
		double wo, wi;
		int so = end_side(b, &e[i], true, hh, level, &wo),
		    si = end_side(b, &e[i], false, hh, level, &wi);

		if (so == 1 && wo < worst_node) {
			worst_node = wo;
			node = e[i].x;
			dirs = LP_COLL_DIR_OUT;
		}
		if (si == 1 && wi < worst_node) {
			worst_node = wi;
			node = e[i].y;
			dirs = LP_COLL_DIR_IN;
		}
		if (so == 0 && si == 0 && e[i].e.val < worst_link) {
			worst_link = e[i].e.val;
			link = i;
		} else if ((so < 0 || si < 0) && amb < 0) {
			amb = i;
		}
	}
	if (node >= 0) {
		verdict(b, LP_COLL_GUILTY_NODE, node, -1, worst_node / level.val,
			"its %s to two healthy nodes runs at %.2fx the healthy edges (%.3g GB/s, "
			"noise %.1f %%)",
			dirs == LP_COLL_DIR_OUT ? "egress" : "ingress", worst_node / level.val,
			level.val, 100 * noise(b));
		b->v->dirs = dirs;
	} else if (link >= 0) {
		verdict(b, LP_COLL_GUILTY_LINK, e[link].x, e[link].y, worst_link / level.val,
			"this ordered pair runs at %.2fx the healthy edges (%.3g GB/s, noise %.1f "
			"%%) while both ends reach two healthy nodes clearly faster",
			worst_link / level.val, level.val, 100 * noise(b));
	} else if (amb >= 0) {
		verdict(b, LP_COLL_GUILTY_INCONCLUSIVE, e[amb].x, e[amb].y,
			e[amb].e.val / level.val,
			"this ordered pair runs at %.2fx the healthy edges (%.3g GB/s), but the noise "
			"(%.1f %%) cannot tell the link from a node at either end",
			e[amb].e.val / level.val, level.val, 100 * noise(b));
	}
}

/*
 * No edge is slow alone. The part is slow only as a whole when its ring,
 * probed again, stays below ratio x its healthy reference; else nothing
 * stood out beyond the noise.
 */
static void whole_part(struct bis *b, int lo, int cnt, double ref, double edges, const char *what)
{
	char x[LP_COLL_NODE_LEN], y[LP_COLL_NODE_LEN];
	double v[16], val;
	int n = 0, rep = LP_MIN(LP_MAX(b->o->repeats, 1), 15);

	while (n < rep && budget(b))
		v[n++] = probe1(b, LP_COLL_PROBE_RING, lo, cnt, -1, -1, ref);
	val = n ? median(v, n) : NAN;
	name(b, x, sizeof(x), lo);
	name(b, y, sizeof(y), lo + cnt - 1);
	if (!n)
		verdict(b, LP_COLL_GUILTY_INCONCLUSIVE, -1, -1, NAN,
			"the probe budget (%d) ran out at the ring of %s .. %s", b->o->max_probes,
			x, y);
	else if (!(val < b->o->ratio * ref))
		verdict(b, LP_COLL_GUILTY_NONE, -1, -1, val / ref,
			"the ring of %s .. %s (%d nodes) runs at %.2fx %s and none of its edges is "
			"slow alone (healthy edges %.3g GB/s): nothing stands out beyond the noise",
			x, y, cnt, val / ref, what, edges);
	else if (K_SIGMA * noise(b) * sqrt(2) > 1 - b->o->ratio)
		/* no slow edge is no evidence when the probes could not have seen one */
		verdict(b, LP_COLL_GUILTY_INCONCLUSIVE, -1, -1, val / ref,
			"the ring of %s .. %s (%d nodes) runs at %.2fx %s, but the pair probes' noise "
			"(%.1f %%) hides an edge %.0f %% slow: node, link or concurrency cannot be told",
			x, y, cnt, val / ref, what, 100 * noise(b), 100 * (1 - b->o->ratio));
	else
		verdict(b, LP_COLL_GUILTY_CONCURRENCY, -1, -1, val / ref,
			"the ring of %s .. %s (%d nodes) runs at %.2fx %s, but none of its edges is "
			"slow alone (healthy edges %.3g GB/s): the fault shows only under "
			"concurrent traffic",
			x, y, cnt, val / ref, what, edges);
}

/*
 * Three or more slow edges of a part, in a row along the order: the nodes
 * they leave (or, else, enter) share the fault (an uplink, a leaf): named as
 * one, never as one node of them.
 */
static void shared_edges(struct bis *b, const struct look *e, int ne, struct meas level)
{
	int fx = e[0].x, lx = e[0].x, fy = e[0].y, ly = e[0].y;
	double worst = INFINITY;
	bool run_x = true, run_y = true;

	for (int i = 1; i < ne; i++) {
		run_x = run_x && e[i].x == lx + 1;
		run_y = run_y && e[i].y == ly + 1;
		lx = e[i].x;
		ly = e[i].y;
	}
	for (int i = 0; i < ne; i++)
		worst = fmin(worst, e[i].e.val);
	if (!run_x && !run_y)
		return;
	verdict(b, LP_COLL_GUILTY_SHARED, run_x ? fx : fy, run_x ? lx : ly, worst / level.val,
		"every edge %s these %d nodes is slow alike (down to %.2fx the healthy edges, "
		"%.3g GB/s): the fault is what they share",
		run_x ? "out of" : "into", ne, worst / level.val, level.val);
}

/* The edges given, each against the level; the slow ones resolved, else the whole part. */
static void judge_edges(struct bis *b, struct look *e, int ne, const struct healthy *hh, int lo,
			int cnt, double ref, const char *what)
{
	struct meas level = edge_level(b, hh);
	int nslow = 0;

	for (int i = 0; i < ne && budget(b); i++) {
		e[i].e = edge(b, e[i].x, e[i].y, level.val, 1);
		if (below(b, e[i].e, level, b->o->ratio))
			e[nslow++] = e[i];
	}
	if (nslow >= 3)
		shared_edges(b, e, nslow, level);
	if (nslow && !b->v->kind[0])
		resolve_edges(b, e, nslow, hh, level);
	if (!b->v->kind[0])
		whole_part(b, lo, cnt, ref, level.val, what);
}

/* The part [lo, lo+cnt) (EDGE_PART nodes at most) is slow against its healthy sibling: its ring
 * edges alone. */
static void resolve(struct bis *b, int lo, int cnt, const struct healthy *hh, double ref)
{
	struct look e[EDGE_PART];

	for (int i = 0; i < cnt; i++)
		e[i] = (struct look){ lo + i, lo + (i + 1) % cnt, { 0, 0 } };
	judge_edges(b, e, cnt, hh, lo, cnt, ref, "its healthy sibling");
}

/*
 * Neither half of [lo, lo+cnt) stands out, yet the part is slow against ref:
 * the two edges that join the halves in the part's ring, against the part's
 * own nodes (healthy, as both halves are).
 */
static void joins(struct bis *b, int lo, int cnt, int k, double ref)
{
	struct look e[2] = { { lo + k - 1, lo + k, { 0, 0 } }, { lo + cnt - 1, lo, { 0, 0 } } };
	struct healthy hh = { { 0 }, 0 };

	/* away from the joins' ends where the part allows */
	healthy_add(&hh, lo + 1, k - 1, 4);
	healthy_add(&hh, lo + k + 1, cnt - k - 2, 4);
	if (hh.n < 4)
		healthy_add(&hh, lo, cnt, 4);
	judge_edges(b, e, 2, &hh, lo, cnt, ref, "its reference while its halves keep up,");
}

/* ---- N <= 3: no healthy node outside; every ordered pair ---- */

static void resolve_small(struct bis *b)
{
	struct meas v[3][3] = { { { 0, 0 } } }, best = { 0, 1 };
	double raw[3][3][16], r = b->o->ratio;
	int n = b->n, cnt[3][3] = { { 0 } };

	/* every pair once, then again those that may be slow against the best */
	for (int pass = 0; pass < 2; pass++)
		for (int x = 0; x < n; x++)
			for (int y = 0; y < n; y++) {
				if (x == y || !budget(b))
					continue;
				if (!pass)
					raw[x][y][cnt[x][y]++] =
						probe1(b, LP_COLL_PROBE_EDGE, 0, 0, x, y, NAN);
				else
					v[x][y] = edge_more(b, x, y, best.val, raw[x][y],
							    &cnt[x][y], 1);
				if (!pass && raw[x][y][0] > best.val)
					best = (struct meas){ raw[x][y][0], 1 };
			}
	/* a healthy ring runs at its slowest edge: the reference busbw bounds the edges from below */
	if (b->o->ref_busbw > best.val)
		best = (struct meas){ b->o->ref_busbw, 3 };
	for (int u = 0; u < n && n == 3; u++) {
		int w = (u + 1) % 3, z = (u + 2) % 3;
		bool out = below(b, v[u][w], best, r) && below(b, v[u][z], best, r),
		     in = below(b, v[w][u], best, r) && below(b, v[z][u], best, r);
		/* the two edges not touching u are healthy: u is the one */
		bool others = !below(b, v[w][z], best, r) && !below(b, v[z][w], best, r);

		if ((out || in) && others) {
			verdict(b, LP_COLL_GUILTY_NODE, u, -1,
				fmin(out ? v[u][w].val : INFINITY, in ? v[w][u].val : INFINITY) /
					best.val,
				"every edge %s it is slow, the edges between the other two are not",
				out && in ? "out of and into"
				: out	  ? "out of"
					  : "into");
			b->v->dirs = (out ? LP_COLL_DIR_OUT : 0) | (in ? LP_COLL_DIR_IN : 0);
			return;
		}
	}
	for (int x = 0; x < n; x++)
		for (int y = 0; y < n; y++) {
			int nslow = 0;

			if (x == y || !below(b, v[x][y], best, r))
				continue;
			for (int p = 0; p < n; p++)
				for (int q = 0; q < n; q++)
					nslow += p != q && below(b, v[p][q], best, r);
			if (nslow == 1 && n == 3) {
				verdict(b, LP_COLL_GUILTY_LINK, x, y, v[x][y].val / best.val,
					"the only slow edge of the three nodes' six (%.2fx the best)",
					v[x][y].val / best.val);
				return;
			}
			verdict(b, LP_COLL_GUILTY_INCONCLUSIVE, x, y, v[x][y].val / best.val,
				"slow edges (%.2fx the best) among %d nodes: node or link cannot be "
				"told apart without a healthy node outside",
				v[x][y].val / best.val, n);
			return;
		}
	verdict(b, LP_COLL_GUILTY_NONE, -1, -1, NAN,
		"no edge of the %d nodes is slow alone beyond the noise", n);
}

/* ---- the descent ---- */

/* Both halves of the part, again while their comparison is near the threshold. */
static void halves(struct bis *b, int lo, int k, int cnt, double level, double *x_p, double *y_p)
{
	double xs[16], ys[16], rd = descend_ratio(b), m = (1 - b->o->ratio) / 2;
	int n = 0, rep = LP_MIN(LP_MAX(b->o->repeats, 1), 15);

	for (;;) {
		xs[n] = probe1(b, LP_COLL_PROBE_RING, lo, k, -1, -1, level);
		ys[n] = probe1(b, LP_COLL_PROBE_RING, lo + k, cnt - k, -1, -1, level);
		n++;
		*x_p = median(xs, n);
		*y_p = median(ys, n);
		if (n >= rep || !budget(b))
			break;
		/* settled when the slower half is clearly past or clearly short of the threshold */
		if (fabs(fmin(*x_p, *y_p) / fmax(*x_p, *y_p) - rd) >= m * rd &&
		    (!isfinite(level) || fabs(fmin(*x_p, *y_p) / level - rd) >= m * rd))
			break;
	}
}

/* Both halves slow alike against the level: what the part shares. */
static void shared(struct bis *b, int lo, int cnt, double x, double y, double level)
{
	char p[LP_COLL_NODE_LEN], q[LP_COLL_NODE_LEN];

	name(b, p, sizeof(p), lo);
	name(b, q, sizeof(q), lo + cnt - 1);
	verdict(b, LP_COLL_GUILTY_SHARED, cnt == b->n ? -1 : lo, cnt == b->n ? -1 : lo + cnt - 1,
		fmax(x, y) / level,
		"both halves of %s .. %s (%d nodes) are slow alike (%.3g and %.3g GB/s busbw, "
		"%.2fx the reference %.3g): the fault is what they share",
		p, q, cnt, x, y, fmax(x, y) / level, level);
}

/*
 * Both halves of a part below a healthy sibling's level: what they share, if
 * the part's own edges (four, spread over it) run slow against healthy nodes'
 * edges too; else the rings misled the descent (their noise): inconclusive.
 */
static void shared_confirm(struct bis *b, int lo, int cnt, const struct healthy *hh, double x,
			   double y, double ring_level)
{
	struct meas level = edge_level(b, hh);
	int nslow = 0, n = 0;

	for (int i = 0; i < 4 && budget(b); i++) {
		int u = lo + (i * cnt) / 4;
		struct meas e = edge(b, u, lo + (u - lo + 1) % cnt, level.val, 1);

		n++;
		nslow += below(b, e, level, b->o->ratio);
	}
	if (n && nslow == n)
		shared(b, lo, cnt, x, y, ring_level);
	else
		verdict(b, LP_COLL_GUILTY_INCONCLUSIVE, lo, lo + cnt - 1, fmax(x, y) / ring_level,
			"both halves of this part run below its healthy sibling (%.2fx), but %d of "
			"%d of its edges run at the healthy edges' rate (%.3g GB/s, noise %.1f %%)",
			fmax(x, y) / ring_level, n - nslow, n, level.val, 100 * noise(b));
}

int lp_coll_bisect(int n, const int *order, const struct lp_coll_probe_ops *ops, void *arg,
		   const struct lp_coll_bisect_opts *o, struct lp_coll_verdict *v)
{
	struct bis b = { ops, arg, o, order, n, v, false, 0, 0 };
	struct healthy hh = { { 0 }, 0 };
	double level = o->ref_busbw, cur, r = o->ratio, rd;
	int lo = 0, cnt = n;

	memset(v, 0, sizeof(*v));
	v->a = v->b = -1;
	v->ratio = NAN;
	if (n < 2 || !ops || !ops->ring || !ops->edge || !(r > 0 && r < 1) || o->max_probes < 1)
		return -EINVAL;
	rd = descend_ratio(&b);
	cur = probe1(&b, LP_COLL_PROBE_RING, 0, n, -1, -1, level);
	/* against the reference the ring's own threshold: its slowest edge hides part of a fault */
	if (isfinite(level) && cur >= rd * level) {
		verdict(&b, LP_COLL_GUILTY_NONE, -1, -1, cur / level,
			"the ring of all %d nodes reaches %.3g GB/s busbw, %.2fx the reference", n,
			cur, cur / level);
		return b.stop ? -EINTR : 0;
	}
	if (n <= 3) {
		resolve_small(&b);
		return b.stop ? -EINTR : 0;
	}
	/* halve while the part is large, or no healthy node is known yet */
	while ((cnt > EDGE_PART || hh.n < 2) && cnt >= 4 && budget(&b)) {
		int k = cnt / 2;
		double x, y;
		bool fx, fy;

		halves(&b, lo, k, cnt, level, &x, &y);
		/* a half stands out against its sibling and, once known, the healthy level */
		fx = x < rd * y && !(x >= rd * level);
		fy = y < rd * x && !(y >= rd * level);
		if (fx || fy) {
			healthy_add(&hh, fx ? lo + k : lo, fx ? cnt - k : k, 4);
			level = fx ? y : x;
			cur = fx ? x : y;
			lo = fx ? lo : lo + k;
			cnt = fx ? k : cnt - k;
			continue;
		}
		if (isfinite(level) && x < r * level && y < r * level && hh.n >= 2)
			shared_confirm(&b, lo, cnt, &hh, x, y, level);
		else if (isfinite(level) && x < r * level && y < r * level)
			shared(&b, lo, cnt, x, y, level);
		else if (!isfinite(level) && cur >= r * fmin(x, y))
			verdict(&b, LP_COLL_GUILTY_NONE, -1, -1, cur / fmin(x, y),
				"no half stands out and the ring of all %d nodes (%.3g GB/s) keeps "
				"up with its halves (%.3g, %.3g)",
				n, cur, x, y);
		else /* slow, halves fine: the edges that join them, else concurrency */
			joins(&b, lo, cnt, k, isfinite(level) ? level : fmin(x, y));
		return b.stop ? -EINTR : 0;
	}
	if (hh.n < 2 || !budget(&b))
		verdict(&b, LP_COLL_GUILTY_INCONCLUSIVE, -1, -1, NAN,
			"the probe budget (%d) ran out before a part stood out", o->max_probes);
	else
		resolve(&b, lo, cnt, &hh, level);
	return b.stop ? -EINTR : 0;
}

/* ---- the ceiling names slow edges: retest them, and tell node from link by the matrix ---- */

static double median_of(double *v, int n)
{
	return n ? median(v, n) : NAN;
}

/* Node u's measured edges out of it (out) or into it, but the one with w: their median and count. */
static double side_median(const struct lp_coll_fabric *f, int u, int w, bool out, int *n_p)
{
	double *v = malloc(sizeof(double) * (size_t)f->n), m;
	int n = 0;

	if (!v)
		return NAN;
	for (int z = 0; z < f->n; z++) {
		double x = out ? f->bw[(size_t)u * f->n + z] : f->bw[(size_t)z * f->n + u];

		if (z != u && z != w && x > 0)
			v[n++] = x;
	}
	m = median_of(v, n);
	free(v);
	*n_p = n;
	return m;
}

/*
 * The matrix's noise per cell on a log scale: 1.4826 x the median absolute
 * deviation of its measured cells' logarithms, robust to the faulty part (under
 * half of the cells). NaN under three cells.
 */
static double matrix_sigma(const struct lp_coll_fabric *f)
{
	size_t nn = (size_t)f->n * f->n;
	double *v = malloc(sizeof(double) * (nn + 1)), mid, s = NAN;
	int n = 0;

	for (size_t i = 0; v && i < nn; i++)
		if (f->bw[i] > 0)
			v[n++] = log(f->bw[i]);
	if (n >= 3) {
		mid = median(v, n);
		for (int i = 0; i < n; i++)
			v[i] = fabs(v[i] - mid);
		s = 1.4826 * median(v, n);
	}
	free(v);
	return s;
}

/*
 * a against b, medians of na and nb values with noise sigma each: the log of
 * their ratio over its standard error (a median's variance is pi/2 times the
 * mean's). Infinity without noise.
 */
static double median_z(double a, int na, double b, int nb, double sigma)
{
	double se = sigma * sqrt(M_PI / 2 * (1.0 / LP_MAX(na, 1) + 1.0 / LP_MAX(nb, 1)));

	return se > 0 ? log(a / b) / se : (a > b ? INFINITY : a < b ? -INFINITY : 0);
}

/* The typical edge of the ring over order: the median of its measured edges. */
static double ring_typical(const struct lp_coll_fabric *f, const int *order, int k)
{
	double *v = malloc(sizeof(double) * (size_t)k), m;
	int n = 0;

	if (!v)
		return NAN;
	for (int i = 0; i < k; i++) {
		double x = f->bw[(size_t)order[i] * f->n + order[(i + 1) % k]];

		if (x > 0)
			v[n++] = x;
	}
	m = median_of(v, n);
	free(v);
	return m;
}

/* Edge a -> b retested o->repeats times: the median, each probe kept as evidence. */
static double retest(struct bis *b, int a, int z, double typical)
{
	double v[16];
	int n = 0;

	for (int i = 0; i < LP_MIN(LP_MAX(b->o->repeats, 1), 15) && budget(b); i++) {
		struct lp_coll_probe p = { .a = a, .b = z, .ref = typical, .first = 0, .count = 0 };
		double val = NAN;
		int rc = b->ops->edge(b->arg, a, z, &val);

		snprintf(p.kind, sizeof(p.kind), "%s", lp_coll_probe_names[LP_COLL_PROBE_EDGE]);
		b->v->probes++;
		if (rc == -EINTR)
			b->stop = true;
		p.value = rc ? NAN : val;
		p.slow = !(p.value >= b->o->ratio * typical);
		if (b->v->nprobe < LP_COLL_MAX_PROBES)
			b->v->probe[b->v->nprobe++] = p;
		v[n++] = rc ? 0 : val;
	}
	return median_of(v, n);
}

static void name_node(const struct lp_coll_bisect_opts *o, char *dst, size_t len, int node)
{
	if (o->names && node >= 0 && o->names[node])
		snprintf(dst, len, "%s", o->names[node]);
	else
		snprintf(dst, len, "node %d", node);
}

/* A confirmed slow edge a -> z: its sender's other edges out, its receiver's in, say which. */
/*
 * The retested edge a -> z stays slow (m, its retests' median, against the
 * ring's typical edge): the node whose other edges on that side run slow too
 * in the matrix -- below ratio x typical and by K_SIGMA standard errors of the
 * matrix's noise -- else the link when both ends' other edges run clearly
 * faster than it (by ratio and K_SIGMA standard errors), else inconclusive:
 * a noisy matrix never names one where it cannot tell the other.
 */
static void classify(struct bis *b, const struct lp_coll_fabric *f, int a, int z, double m,
		     double typical, double matrix)
{
	struct lp_coll_verdict *v = b->v;
	double r = b->o->ratio, sigma = matrix_sigma(f), out, in;
	int nout, nin, nring = b->n, nrep = LP_MAX(b->o->repeats, 1);
	bool out_slow, in_slow, clear;
	enum lp_coll_guilty kind;
	char an[LP_COLL_NODE_LEN], zn[LP_COLL_NODE_LEN];

	out = side_median(f, a, z, true, &nout);
	in = side_median(f, z, a, false, &nin);
	if (!isfinite(sigma))
		sigma = 0;
	out_slow = out < r * typical && median_z(out, nout, typical, nring, sigma) < -K_SIGMA;
	in_slow = in < r * typical && median_z(in, nin, typical, nring, sigma) < -K_SIGMA;
	clear = r * out > m && r * in > m && median_z(out, nout, m, nrep, sigma) > K_SIGMA &&
		median_z(in, nin, m, nrep, sigma) > K_SIGMA;
	kind = out_slow || in_slow ? LP_COLL_GUILTY_NODE
	       : clear		   ? LP_COLL_GUILTY_LINK
				   : LP_COLL_GUILTY_INCONCLUSIVE;
	if (kind == LP_COLL_GUILTY_NODE)
		v->dirs = out_slow && (!in_slow || out <= in) ? LP_COLL_DIR_OUT : LP_COLL_DIR_IN;
	snprintf(v->kind, sizeof(v->kind), "%s", lp_coll_guilty_names[kind]);
	v->a = kind == LP_COLL_GUILTY_NODE && v->dirs == LP_COLL_DIR_IN ? z : a;
	v->b = kind != LP_COLL_GUILTY_NODE ? z : -1;
	name_node(b->o, v->a_name, sizeof(v->a_name), v->a);
	if (v->b >= 0)
		name_node(b->o, v->b_name, sizeof(v->b_name), v->b);
	v->ratio = m / typical;
	name_node(b->o, an, sizeof(an), a);
	name_node(b->o, zn, sizeof(zn), z);
	snprintf(v->reason, sizeof(v->reason),
		 "the ring's slowest edge %s -> %s runs at %.3g GB/s in the matrix and %.3g in its "
		 "retests, %.2fx the ring's typical edge (%.3g); its sender's other edges out run "
		 "%.3g, its receiver's other edges in %.3g (the matrix's noise %.1f %% a cell): %s",
		 an, zn, matrix, m, m / typical, typical, out, in, 100 * (exp(sigma) - 1),
		 kind == LP_COLL_GUILTY_LINK ? "the pair, not either end"
		 : kind == LP_COLL_GUILTY_NODE
			 ? (v->dirs == LP_COLL_DIR_OUT ? "the sender's egress"
						       : "the receiver's ingress")
			 : "neither end stands out of the noise: node or link "
			   "cannot be told, the edge is named");
}

int lp_coll_targeted(const struct lp_coll_fabric *f, const int *order, int k,
		     const struct lp_coll_ceiling *c, const struct lp_coll_probe_ops *ops,
		     void *arg, const struct lp_coll_bisect_opts *o, struct lp_coll_verdict *v)
{
	struct bis b = { ops, arg, o, order, k, v, false, 0, 0 };
	double typical = ring_typical(f, order, k), worst = INFINITY;
	int wa = -1, wz = -1;
	double wm = NAN;

	memset(v, 0, sizeof(*v));
	v->a = v->b = -1;
	v->ratio = NAN;
	if (k < 2 || !ops || !ops->edge || !(o->ratio > 0 && o->ratio < 1))
		return -EINVAL;
	for (uint32_t i = 0; i < c->nbott && budget(&b); i++) {
		const struct lp_coll_edge *e = &c->bott[i];
		double m;

		if (strcmp(e->limit, "edge") || !(e->gbs < o->ratio * typical))
			continue;
		m = retest(&b, e->a, e->b, typical);
		if (m < worst) {
			worst = m;
			wa = e->a;
			wz = e->b;
			wm = e->gbs;
		}
	}
	if (wa < 0)
		verdict(&b, LP_COLL_GUILTY_NONE, -1, -1, NAN,
			"no edge of the ring runs below %.2fx its typical edge (%.3g GB/s) in the "
			"matrix",
			o->ratio, typical);
	else if (!(worst < o->ratio * typical))
		verdict(&b, LP_COLL_GUILTY_INCONCLUSIVE, -1, -1, worst / typical,
			"the matrix's slowest edge of the ring (%.3g GB/s) ran at %.3g in its "
			"retests, %.2fx the typical edge (%.3g): it did not stay slow",
			wm, worst, worst / typical, typical);
	else
		classify(&b, f, wa, wz, worst, typical, wm);
	return b.stop ? -EINTR : 0;
}
