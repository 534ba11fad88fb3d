// SPDX-License-Identifier: MIT
/*
 * The counters' part of the sweep's diagnosis: what moved on each port during
 * each pair's tests, summed; "errors" verdicts for a node or link whose error
 * counters move while its numbers look normal; and the citation of what moved
 * in every verdict that names a node or link (docs/SWEEP.md "Evidence").
 *
 * Attribution: a pair "moved" when error-class counters moved on either end
 * during its cells, dopts.min_errors events at least (loss on one node's link
 * shows as retries on that node and as sequence errors on its partners: both
 * ends count). Retries after an ACK timeout and the duplicates they cause are
 * cited but do not count: a peer merely slow to answer moves them too (the
 * TCG fabric's starved guests do, tens of times per run, with no fault). A node whose
 * pairs moved with most of its partners is the common element; the pairs it
 * explains are then set aside, so two lossy nodes do not make their common
 * partners look lossy too. A pair that moved and that no node explains is the
 * link's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/lp.h"
#include "common/table.h"
#include "sweep/result.h"

void lp_sweep_ctr_end_fill(struct lp_sweep_ctr_end *e, const struct lp_ctr_moved *m)
{
	memset(e, 0, sizeof(*e));
	e->valid = m->valid;
	e->more = m->more; /* lp_counters_moved left out traffic first: these were never alarms */
	for (unsigned i = 0; m->valid && i < m->n; i++) {
		if (!lp_counter_is_alarm(&m->c[i]))
			continue;
		if (e->n < LP_SWEEP_CELL_CTR)
			e->c[e->n++] = m->c[i];
		else
			e->more++;
	}
}

void lp_sweep_evidence_free(struct lp_sweep_evidence *ev)
{
	free(ev->sums);
	free(ev->partners);
	free(ev->moved);
	memset(ev, 0, sizeof(*ev));
}

static bool is_error(const char *name)
{
	return lp_counter_info(name)->cls == LP_CTR_ERROR;
}

/* An error that proves a bad link: not a retry after a timeout (a slow peer does that too). */
static bool is_link_error(const char *name)
{
	return is_error(name) && !lp_counter_is_timeout(name);
}

/* Add one moved counter of the cell between lo and hi, read on node `on`. */
static int sum_add(struct lp_sweep_evidence *ev, int lo, int hi, int on, const struct lp_counter *c)
{
	struct lp_sweep_ctr_sum *s;

	for (size_t i = 0; i < ev->nsums; i++) {
		s = &ev->sums[i];
		if (s->lo == lo && s->hi == hi && s->on == on && s->src == c->src &&
		    !strcmp(s->name, c->name)) {
			s->delta += c->value;
			s->cells++;
			return 0;
		}
	}
	if (ev->nsums == ev->cap) {
		size_t nc = ev->cap ? 2 * ev->cap : 64;

		s = realloc(ev->sums, nc * sizeof(*s));
		if (!s)
			return -ENOMEM;
		ev->sums = s;
		ev->cap = nc;
	}
	s = &ev->sums[ev->nsums++];
	memset(s, 0, sizeof(*s));
	*s = (struct lp_sweep_ctr_sum){ .lo = lo,
					.hi = hi,
					.on = on,
					.src = c->src,
					.delta = c->value,
					.cells = 1,
					.cls = (uint8_t)lp_counter_info(c->name)->cls };
	snprintf(s->name, sizeof(s->name), "%s", c->name);
	return 0;
}

/*
 * Sums per pair and port, and per ordered cell whether its pair moved error
 * counters (moved, n*n, both directions set: dopts.min_errors events or more
 * over the pair's cells and both ends) and had counters read (read).
 */
static int build_sums(struct lp_sweep_run *r, uint8_t *read, uint8_t *moved)
{
	struct lp_sweep_evidence *ev = &r->ev;
	int n = r->n;

	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];
		const struct lp_sweep_ctr_end *end[2] = { lp_sweep_att_ctr(r, c, 0),
							  lp_sweep_att_ctr(r, c, 1) };
		int on[2] = { c->a, c->b }, lo = LP_MIN(c->a, c->b), hi = LP_MAX(c->a, c->b);

		if (c->a == c->b)
			continue;
		for (int e = 0; e < 2; e++) {
			if (!end[e]->valid)
				continue;
			read[(size_t)lo * n + hi] = read[(size_t)hi * n + lo] = 1;
			for (uint32_t i = 0; i < end[e]->n && i < LP_SWEEP_CELL_CTR; i++) {
				const struct lp_counter *ct = &end[e]->c[i];

				if (ct->reset || !ct->value)
					continue; /* a reset's value is not a delta */
				if (sum_add(ev, lo, hi, on[e], ct))
					return -ENOMEM;
			}
		}
	}
	for (size_t i = 0; i < ev->nsums; i++) {
		const struct lp_sweep_ctr_sum *s = &ev->sums[i];
		double events = 0;

		for (size_t k = 0; k < ev->nsums; k++)
			if (ev->sums[k].lo == s->lo && ev->sums[k].hi == s->hi &&
			    is_link_error(ev->sums[k].name))
				events += (double)ev->sums[k].delta;
		if (events >= r->dopts.min_errors)
			moved[(size_t)s->lo * n + s->hi] = moved[(size_t)s->hi * n + s->lo] = 1;
	}
	return 0;
}

static const struct lp_verdict *find_verdict(const struct lp_sweep_run *r, int a, int b,
					     bool (*kind_ok)(enum lp_verdict_kind))
{
	for (int i = 0; i < r->nverdicts; i++)
		if (r->verdicts[i].a == a && r->verdicts[i].b == b && kind_ok(r->verdicts[i].kind))
			return &r->verdicts[i];
	return NULL;
}

static bool node_bad(enum lp_verdict_kind k)
{
	return k == LP_VERDICT_NODE_SLOW || k == LP_VERDICT_NODE_FAILED;
}

static bool link_bad(enum lp_verdict_kind k)
{
	return k == LP_VERDICT_LINK_SLOW || k == LP_VERDICT_LINK_FAILED ||
	       k == LP_VERDICT_PAIR_SLOW;
}

/*
 * Nodes that explain moved pairs: those already named slow or failed, then,
 * greedily, the node whose moved partners (among pairs no named node explains)
 * are the largest share, while that share is above vote and two at least.
 * expl[i]: 1 named before, 2 named "errors" here.
 */
static void explain_nodes(const struct lp_sweep_run *r, const uint8_t *read, const uint8_t *moved,
			  uint8_t *expl)
{
	int n = r->n;

	for (int i = 0; i < n; i++)
		expl[i] = find_verdict(r, i, i, node_bad) != NULL;
	for (;;) {
		int best = -1;
		double best_share = 0;

		for (int i = 0; i < n; i++) {
			int rd = 0, mv = 0;

			if (expl[i])
				continue;
			for (int j = 0; j < n; j++) {
				size_t x = (size_t)i * n + j;

				if (j == i || expl[j] || !read[x])
					continue;
				rd++;
				mv += moved[x];
			}
			if (mv >= 2 && mv > r->dopts.vote * rd && (double)mv / rd > best_share) {
				best = i;
				best_share = (double)mv / rd;
			}
		}
		if (best < 0)
			return;
		expl[best] = 2;
	}
}

/* ---- citing what moved ---- */

static int ctr_cmp(const void *pa, const void *pb)
{
	const struct lp_verdict_ctr *a = pa, *b = pb;
	bool ea = is_error(a->name), eb = is_error(b->name);

	if (ea != eb)
		return ea ? -1 : 1;
	return a->delta != b->delta ? (a->delta > b->delta ? -1 : 1) : strcmp(a->name, b->name);
}

/* By port (a node's own before its partners), then as ctr_cmp. */
static int ctr_cmp_on(const void *pa, const void *pb)
{
	const struct lp_verdict_ctr *a = pa, *b = pb;

	if (a->on != b->on)
		return (a->on < 0) != (b->on < 0) ? (a->on < 0 ? 1 : -1) : (a->on < b->on ? -1 : 1);
	return ctr_cmp(pa, pb);
}

/* Add s to a list of citations (merged by port owner and counter); the list grows to cap. */
static void cite_add(struct lp_verdict_ctr *l, int *n, int cap, int on,
		     const struct lp_sweep_ctr_sum *s)
{
	for (int i = 0; i < *n; i++)
		if (l[i].on == on && l[i].src == s->src && !strcmp(l[i].name, s->name)) {
			l[i].delta += s->delta;
			l[i].cells += s->cells;
			return;
		}
	if (*n >= cap)
		return;
	l[*n] = (struct lp_verdict_ctr){
		.on = on, .src = s->src, .delta = s->delta, .cells = s->cells, .cls = s->cls
	};
	snprintf(l[*n].name, sizeof(l[*n].name), "%s", s->name);
	(*n)++;
}

/*
 * vd->ctr: for a node, what moved on its port during its tests and on its
 * partners' ports during tests with it (on = -1); for a link or pair, on
 * either end's port during the pair's tests. Errors first, then by size.
 */
static void cite(const struct lp_sweep_run *r, struct lp_verdict *vd)
{
	struct lp_verdict_ctr all[64];
	int n = 0;
	bool node = vd->a == vd->b;

	for (size_t i = 0; i < r->ev.nsums; i++) {
		const struct lp_sweep_ctr_sum *s = &r->ev.sums[i];

		if (node && (s->lo == vd->a || s->hi == vd->a))
			cite_add(all, &n, (int)LP_ARRAY_SIZE(all), s->on == vd->a ? vd->a : -1, s);
		else if (!node && s->lo == LP_MIN(vd->a, vd->b) && s->hi == LP_MAX(vd->a, vd->b))
			cite_add(all, &n, (int)LP_ARRAY_SIZE(all), s->on, s);
	}
	qsort(all, n, sizeof(all[0]), ctr_cmp); /* the strongest evidence is kept */
	vd->nctr = LP_MIN(n, LP_VERDICT_CTR);
	memcpy(vd->ctr, all, vd->nctr * sizeof(all[0]));
	qsort(vd->ctr, vd->nctr, sizeof(all[0]), ctr_cmp_on); /* and shown port by port */
}

/* "counters: node2 completer_retry_err +37; partners rcvd_seq_err +412" after the reason. */
static void cite_reason(const struct lp_sweep_run *r, struct lp_verdict *vd)
{
	int last = -2;

	if (!vd->nctr)
		return;
	lp_strcatf(vd->reason, sizeof(vd->reason),
		   "%scounters during %s tests:", vd->reason[0] ? "; " : "",
		   vd->a == vd->b ? "its" : "the pair's");
	for (int i = 0; i < vd->nctr; i++) {
		const struct lp_verdict_ctr *c = &vd->ctr[i];

		if (c->on != last)
			lp_strcatf(vd->reason, sizeof(vd->reason), "%s %s", last == -2 ? "" : ";",
				   c->on < 0 ? "partners" : r->nodes[c->on].name);
		lp_strcatf(vd->reason, sizeof(vd->reason), "%s %s +%llu", c->on == last ? "," : "",
			   c->name, (unsigned long long)c->delta);
		last = c->on;
	}
}

/* ---- the errors verdicts ---- */

static bool no_kind(enum lp_verdict_kind k)
{
	return k == LP_VERDICT_ERRORS;
}

/* Cells of the pair lo-hi (either direction) that moved an error counter, and their directions. */
static int error_cells(const struct lp_sweep_run *r, int lo, int hi, unsigned *dirs_p)
{
	int k = 0;

	*dirs_p = 0;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_att *c = &r->cells[i];
		const struct lp_sweep_ctr_end *end[2] = { lp_sweep_att_ctr(r, c, 0),
							  lp_sweep_att_ctr(r, c, 1) };
		bool mv = false;

		if (LP_MIN(c->a, c->b) != lo || LP_MAX(c->a, c->b) != hi)
			continue;
		for (int e = 0; e < 2; e++)
			for (uint32_t j = 0; end[e]->valid && j < end[e]->n; j++)
				mv = mv || (end[e]->c[j].value && !end[e]->c[j].reset &&
					    is_link_error(end[e]->c[j].name));
		if (mv) {
			k++;
			*dirs_p |= c->a == lo ? LP_DIR_XY : LP_DIR_YX;
		}
	}
	return k;
}

static int node_errors(struct lp_sweep_run *r, int i)
{
	struct lp_verdict ev;
	char why[256];
	int cells = 0;
	unsigned dirs;

	memset(&ev, 0, sizeof(ev));
	ev.ratio = ev.z = ev.noise_cv = NAN;
	for (int j = 0; j < r->n; j++)
		if (j != i)
			cells += error_cells(r, LP_MIN(i, j), LP_MAX(i, j), &dirs);
	ev.cells = cells;
	ev.agree = r->ev.moved[i];
	snprintf(why, sizeof(why),
		 "error counters moved in its tests with %d of %d partners (%d cells) while its "
		 "numbers look normal: a link about to fail (cable, transceiver, port)",
		 r->ev.moved[i], r->ev.partners[i], cells);
	return lp_sweep_verdict_add(r, LP_VERDICT_ERRORS, i, i, 0, "counters", why, &ev);
}

static int link_errors(struct lp_sweep_run *r, int lo, int hi)
{
	struct lp_verdict ev;
	char why[320];
	unsigned dirs;

	memset(&ev, 0, sizeof(ev));
	ev.ratio = ev.z = ev.noise_cv = NAN;
	ev.cells = error_cells(r, lo, hi, &dirs);
	snprintf(why, sizeof(why),
		 "error counters moved in %d cells of %s<->%s while its numbers look normal%s",
		 ev.cells, r->nodes[lo].name, r->nodes[hi].name,
		 r->n == 2 ? " (two nodes: node or link cannot be told apart)"
			   : "; neither node is named with its other partners: the link between "
			     "them (cable, transceiver, switch port)");
	return lp_sweep_verdict_add(r, LP_VERDICT_ERRORS, lo, hi, dirs, "counters", why, &ev);
}

int lp_sweep_evidence(struct lp_sweep_run *r)
{
	struct lp_sweep_evidence *ev = &r->ev;
	size_t nn = (size_t)r->n * r->n;
	uint8_t *read = calloc(nn, 1), *moved = calloc(nn, 1), *expl = calloc(r->n, 1);
	int n = r->n, rc = -ENOMEM;

	lp_sweep_evidence_free(ev);
	ev->partners = calloc(n, sizeof(int));
	ev->moved = calloc(n, sizeof(int));
	if (!read || !moved || !expl || !ev->partners || !ev->moved || build_sums(r, read, moved))
		goto out;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			ev->partners[i] += read[(size_t)i * n + j];
			ev->moved[i] += moved[(size_t)i * n + j];
		}
	explain_nodes(r, read, moved, expl);
	rc = 0;
	for (int i = 0; i < n && !rc; i++)
		if (expl[i] == 2 && !find_verdict(r, i, i, no_kind))
			rc = node_errors(r, i);
	for (int lo = 0; lo < n && !rc; lo++)
		for (int hi = lo + 1; hi < n && !rc; hi++)
			if (moved[(size_t)lo * n + hi] && !expl[lo] && !expl[hi] &&
			    !find_verdict(r, lo, hi, link_bad) && !find_verdict(r, lo, hi, no_kind))
				rc = link_errors(r, lo, hi);
	for (int i = 0; i < r->nverdicts && !rc; i++) {
		struct lp_verdict *vd = &r->verdicts[i];

		if (vd->a < 0 || vd->b < 0)
			continue;
		cite(r, vd);
		cite_reason(r, vd);
	}
out:
	free(read);
	free(moved);
	free(expl);
	return rc;
}
