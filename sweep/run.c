// SPDX-License-Identifier: MIT
/* lp-sweep runs: nodes, metrics, cells, the matrices diagnosis sees, and the records ranks send rank 0. */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/table.h"
#include "common/units.h"
#include "sweep/collrun.h"

const char *const lp_sweep_phase_names[] = { "sweep",  "retest",	"loaded", "loader",
					     "incast", "incast_victim", "sizes",  NULL };

int lp_sweep_run_init(struct lp_sweep_run *r, int n)
{
	memset(r, 0, sizeof(*r));
	if (n < 1)
		return -EINVAL;
	r->n = n;
	r->nodes = calloc(n, sizeof(*r->nodes));
	if (!r->nodes)
		return -ENOMEM;
	lp_diag_opts_default(&r->dopts);
	r->sched_name = "round-robin";
	r->attempt = 1;
	r->tclass = -1; /* the device's */
	return 0;
}

void lp_sweep_run_free(struct lp_sweep_run *r)
{
	if (r->diag)
		for (int m = 0; m < r->nmetrics; m++)
			lp_diag_free(&r->diag[m]);
	free(r->diag);
	free(r->verdicts);
	free(r->cells);
	free(r->extra);
	free(r->det);
	free(r->nodes);
	free(r->gates);
	if (r->sched_own)
		lp_sched_free(r->sched_own);
	free(r->sched_own);
	lp_sweep_evidence_free(&r->ev);
	if (r->fabric)
		lp_fabric_free(r->fabric);
	free(r->fabric);
	lp_coll_run_free(r->coll);
	memset(r, 0, sizeof(*r));
}

int lp_sweep_add_metric(struct lp_sweep_run *r, const char *test, int test_id, bool lat,
			uint64_t size)
{
	struct lp_sweep_metric *m;
	char sz[32];

	if (r->nmetrics >= LP_SWEEP_MAX_METRICS)
		return -E2BIG;
	m = &r->metrics[r->nmetrics];
	memset(m, 0, sizeof(*m));
	snprintf(m->test, sizeof(m->test), "%s", test);
	m->test_id = test_id;
	m->lat = lat;
	m->size = size;
	lp_fmt_size(sz, sizeof(sz), size); /* "64 KiB": one way to write a size everywhere */
	snprintf(m->label, sizeof(m->label), "%s %s", test, sz);
	snprintf(m->unit, sizeof(m->unit), "%s", lp_sweep_unit(m));
	return r->nmetrics++;
}

void lp_sweep_cell_init(struct lp_sweep_cell *c, int metric, int a, int b, int phase, int round)
{
	memset(c, 0, sizeof(*c));
	c->metric = metric;
	c->a = a;
	c->b = b;
	c->phase = phase;
	c->round = round;
	c->attempt = 1;
	c->value = NAN;
	c->lat.min = c->lat.max = c->lat.mean = c->lat.stdev = NAN;
	c->lat.p50 = c->lat.p90 = c->lat.p99 = c->lat.p999 = c->lat.p9999 = NAN;
	c->gbytes_s = c->gbits_s = c->mmsg_s = c->pct_link = NAN;
	c->ival_min = c->ival_max = NAN;
}

int lp_sweep_reserve(struct lp_sweep_run *r, size_t n)
{
	size_t nc = r->ncells + n; /* a reader's block: exactly (glibc grows big ones in place) */
	struct lp_sweep_att *p;

	if (nc <= r->cap)
		return 0;
	if (n == 1) /* one by one: doubling */
		nc = LP_MAX(2 * r->cap, (size_t)256);
	p = realloc(r->cells, nc * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->cells = p;
	r->cap = nc;
	return 0;
}

static bool ctr_moved(const struct lp_sweep_ctr_end *e)
{
	return e->n || e->more;
}

/* c's error text and moved counters into r->extra (into *x's entry when it has one): *x. */
static int add_extra(struct lp_sweep_run *r, const struct lp_sweep_cell *c, uint32_t *x)
{
	struct lp_sweep_att_extra *e;

	if (!c->error[0] && !ctr_moved(&c->ctr_client) && !ctr_moved(&c->ctr_server)) {
		*x = 0;
		return 0;
	}
	if (!*x && r->nextra == UINT32_MAX - 1)
		return -E2BIG;
	if (!*x && r->nextra == r->extra_cap) {
		size_t nc = r->extra_cap ? r->extra_cap * 2 : 16;

		e = realloc(r->extra, nc * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->extra = e;
		r->extra_cap = nc;
	}
	if (!*x)
		*x = (uint32_t)++r->nextra;
	e = &r->extra[*x - 1];
	memcpy(e->error, c->error, sizeof(e->error));
	e->ctr_client = c->ctr_client;
	e->ctr_server = c->ctr_server;
	return 0;
}

/* The bytes of each part in r->det, in the order kept (LP_SWEEP_PART_LAT, _BW, _IVAL), and
 * the 8-byte units each takes there. */
static const size_t part_bytes[3] = { sizeof(struct lp_summary), 4 * sizeof(double),
				      2 * sizeof(double) };
#define UNITS(i) ((part_bytes[i] + 7) / 8)

static bool all_nan(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			return false;
	return true;
}

/* The parts of c that hold anything but lp_sweep_cell_init's NaNs, each as its bytes. */
static unsigned cell_parts(const struct lp_sweep_cell *c, const void *src[3])
{
	const struct lp_summary *l = &c->lat;
	const double lat[] = { l->min, l->max, l->mean, l->stdev, l->p50,
			       l->p90, l->p99, l->p999, l->p9999 };
	const double bw[] = { c->gbytes_s, c->gbits_s, c->mmsg_s, c->pct_link };
	const double ival[] = { c->ival_min, c->ival_max };

	src[0] = &c->lat;
	src[1] = &c->gbytes_s; /* gbytes_s, gbits_s, mmsg_s, pct_link: adjacent doubles */
	src[2] = &c->ival_min;
	return (l->n || l->exact || !all_nan(lat, 9) ? LP_SWEEP_PART_LAT : 0) |
	       (all_nan(bw, 4) ? 0 : LP_SWEEP_PART_BW) |
	       (all_nan(ival, 2) ? 0 : LP_SWEEP_PART_IVAL);
}

static size_t parts_units(unsigned parts)
{
	size_t n = 0;

	for (int i = 0; i < 3; i++)
		n += parts >> i & 1 ? UNITS(i) : 0;
	return n;
}

/* c's parts into r->det (over k's own when it kept the same parts): k->parts and k->d. */
static int add_parts(struct lp_sweep_run *r, const struct lp_sweep_cell *c, struct lp_sweep_att *k,
		     bool fresh)
{
	const void *src[3];
	unsigned parts = cell_parts(c, src);
	size_t need = parts_units(parts), at = fresh || parts != k->parts ? r->ndet : k->d;

	if (at == r->ndet && r->ndet + need > UINT32_MAX)
		return -E2BIG;
	if (at == r->ndet && r->ndet + need > r->det_cap) {
		size_t nc = LP_MAX(LP_MAX(2 * r->det_cap, r->ndet + need), (size_t)1024);
		uint64_t *p = realloc(r->det, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->det = p;
		r->det_cap = nc;
	}
	k->parts = (uint8_t)parts;
	k->d = (uint32_t)at;
	for (int i = 0; i < 3; i++)
		if (parts >> i & 1) {
			memcpy(&r->det[at], src[i], part_bytes[i]);
			at += UNITS(i);
		}
	r->ndet = LP_MAX(r->ndet, at);
	return 0;
}

/* The bytes of part p (LP_SWEEP_PART_*) of a kept cell, NULL when it has none. */
static const void *att_part(const struct lp_sweep_run *r, const struct lp_sweep_att *c, unsigned p)
{
	size_t at = c->d;

	if (!(c->parts & p))
		return NULL;
	for (int i = 0; (1u << i) < p; i++)
		at += c->parts >> i & 1 ? UNITS(i) : 0;
	return &r->det[at];
}

/* c packed into k (its extra entry and its parts' room, if any, reused; fresh: k is new). */
static int pack(struct lp_sweep_run *r, const struct lp_sweep_cell *c, struct lp_sweep_att *k,
		bool fresh)
{
	uint32_t x = fresh ? 0 : k->x;
	int rc = add_extra(r, c, &x);

	if (!rc)
		rc = add_parts(r, c, k, fresh);
	if (rc)
		return rc;
	k->metric = (uint8_t)c->metric;
	k->phase = (uint8_t)c->phase;
	k->halved = c->halved;
	k->ctr_valid[0] = c->ctr_client.valid;
	k->ctr_valid[1] = c->ctr_server.valid;
	k->a = c->a;
	k->b = c->b;
	k->round = c->round;
	k->attempt = c->attempt;
	k->status = c->status;
	k->x = x;
	k->value = c->value;
	k->wall_s = c->wall_s;
	k->iters = c->iters;
	return 0;
}

static bool cell_in_range(const struct lp_sweep_run *r, const struct lp_sweep_cell *c)
{
	return c->metric >= 0 && c->metric < r->nmetrics && c->phase >= 0 &&
	       c->phase <= UINT8_MAX && c->a >= 0 && c->a < r->n && c->b >= 0 && c->b < r->n;
}

int lp_sweep_add_cell(struct lp_sweep_run *r, const struct lp_sweep_cell *c)
{
	int rc;

	if (!cell_in_range(r, c))
		return -EINVAL;
	rc = lp_sweep_reserve(r, 1);
	if (rc)
		return rc;
	rc = pack(r, c, &r->cells[r->ncells], true);
	r->ncells += !rc;
	return rc;
}

int lp_sweep_cell_set(struct lp_sweep_run *r, size_t k, const struct lp_sweep_cell *c)
{
	return k < r->ncells && cell_in_range(r, c) ? pack(r, c, &r->cells[k], false) : -EINVAL;
}

const char *lp_sweep_att_error(const struct lp_sweep_run *r, const struct lp_sweep_att *c)
{
	return c->x ? r->extra[c->x - 1].error : "";
}

const struct lp_sweep_ctr_end *lp_sweep_att_ctr(const struct lp_sweep_run *r,
						const struct lp_sweep_att *c, int end)
{
	static const struct lp_sweep_ctr_end unread = { 0 }, still = { .valid = true };

	if (c->x)
		return end ? &r->extra[c->x - 1].ctr_server : &r->extra[c->x - 1].ctr_client;
	return c->ctr_valid[end ? 1 : 0] ? &still : &unread;
}

const struct lp_summary *lp_sweep_att_lat(const struct lp_sweep_run *r,
					  const struct lp_sweep_att *c)
{
	static const struct lp_summary none = { 0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0 };
	const struct lp_summary *l = att_part(r, c, LP_SWEEP_PART_LAT);

	return l ? l : &none;
}

double lp_sweep_att_gbits(const struct lp_sweep_run *r, const struct lp_sweep_att *c)
{
	const double *bw = att_part(r, c, LP_SWEEP_PART_BW);

	return bw ? bw[1] : NAN;
}

void lp_sweep_cell_get(const struct lp_sweep_run *r, size_t k, struct lp_sweep_cell *c)
{
	const struct lp_sweep_att *s = &r->cells[k];
	const double *bw = att_part(r, s, LP_SWEEP_PART_BW),
		     *ival = att_part(r, s, LP_SWEEP_PART_IVAL);

	lp_sweep_cell_init(c, s->metric, s->a, s->b, s->phase, s->round);
	c->attempt = s->attempt;
	c->status = s->status;
	snprintf(c->error, sizeof(c->error), "%s", lp_sweep_att_error(r, s));
	c->value = s->value;
	c->wall_s = s->wall_s;
	c->lat = *lp_sweep_att_lat(r, s);
	c->halved = s->halved;
	if (bw) {
		c->gbytes_s = bw[0];
		c->gbits_s = bw[1];
		c->mmsg_s = bw[2];
		c->pct_link = bw[3];
	}
	c->iters = s->iters;
	if (ival) {
		c->ival_min = ival[0];
		c->ival_max = ival[1];
	}
	c->ctr_client = *lp_sweep_att_ctr(r, s, 0);
	c->ctr_server = *lp_sweep_att_ctr(r, s, 1);
}

/* One successful attempt of a cell, in the order measured (k: its index in r->cells). */
struct attempt {
	size_t x, k;
	double v;
};

static int attempt_cmp(const void *pa, const void *pb)
{
	const struct attempt *a = pa, *b = pb;

	return a->x != b->x ? (a->x < b->x ? -1 : 1) : a->k < b->k ? -1 : a->k > b->k;
}

/* Where node i sits in blk (-1: not in it), for every node of r. */
static int *block_pos(const struct lp_sweep_run *r, const struct lp_sweep_block *blk)
{
	int *pos = malloc(((size_t)r->n + 1) * sizeof(int));

	if (!pos)
		return NULL;
	for (int i = 0; i < r->n; i++)
		pos[i] = -1;
	for (int k = 0; k < blk->nb; k++)
		pos[blk->node[k]] = k;
	return pos;
}

/* Where cell a -> b sits in blk's matrix (its layout's, or nb x nb), SIZE_MAX: not in it. */
static size_t block_x(const struct lp_sweep_block *blk, const int *pos, int a, int b)
{
	if (blk->lay)
		return lp_diag_at(blk->lay, a, b) < blk->lay->ncell ? lp_diag_at(blk->lay, a, b)
								    : SIZE_MAX;
	return pos[a] < 0 || pos[b] < 0 ? SIZE_MAX : (size_t)pos[a] * blk->nb + pos[b];
}

/* Every cell's successful attempts into at (sorted by cell, then as measured); sched and fail set. */
static size_t block_attempts(const struct lp_sweep_run *r, const struct lp_sweep_block *blk,
			     const int *pos, struct attempt *at, uint8_t *fail, uint8_t *sched)
{
	size_t na = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_att *c = &r->cells[i];
		size_t x;

		if (c->metric != blk->metric || c->phase > LP_PHASE_RETEST)
			continue; /* load cells are their own metrics (sweep/load.c) */
		x = block_x(blk, pos, c->a, c->b);
		if (x == SIZE_MAX)
			continue;
		if (!sched[x])
			fail[x] = 1; /* until some attempt succeeds */
		sched[x] = 1;
		if (c->status == 0 && isfinite(c->value) && c->value > 0) {
			fail[x] = 0;
			at[na++] = (struct attempt){ x, i, c->value };
		}
	}
	qsort(at, na, sizeof(*at), attempt_cmp);
	return na;
}

int lp_sweep_block_matrix(const struct lp_sweep_run *r, const struct lp_sweep_block *blk, double *v,
			  uint8_t *fail, uint8_t *sched, uint8_t *att, double *best, double *spread,
			  struct lp_diag_in *rep_p)
{
	size_t nn = blk->lay ? blk->lay->ncell : (size_t)blk->nb * blk->nb, na, nd = 0;
	struct attempt *at = malloc((r->ncells + 1) * sizeof(*at));
	double *vals = malloc((r->ncells + 1) * sizeof(double)),
	       *diffs = malloc((r->ncells + 1) * sizeof(double));
	int *pos = block_pos(r, blk), rc = -ENOMEM;
	bool lat = r->metrics[blk->metric].lat;

	if (!at || !vals || !diffs || !pos)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		v[i] = NAN;
		fail[i] = sched[i] = 0;
		if (att)
			att[i] = 0;
		if (best)
			best[i] = NAN;
		if (spread)
			spread[i] = NAN;
	}
	na = block_attempts(r, blk, pos, at, fail, sched);
	for (size_t i = 0, j; i < na; i = j) {
		size_t k = 0;

		for (j = i; j < na && at[j].x == at[i].x; j++) {
			vals[k++] = at[j].v;
			/* two retests of one cell: the noise between them (the sweep attempt is
			 * left out, it made the cell a suspect by being extreme) */
			if (j > i && r->cells[at[j - 1].k].phase == LP_PHASE_RETEST)
				diffs[nd++] = log(at[j].v / at[j - 1].v);
		}
		v[at[i].x] = lp_diag_combine(vals, k, lat); /* sorts vals */
		if (best)
			best[at[i].x] = lat ? vals[0] : vals[k - 1];
		if (att)
			att[at[i].x] = (uint8_t)LP_MIN(k, 255);
		if (spread)
			spread[at[i].x] = lp_diag_spread(vals, k); /* logs vals */
	}
	if (rep_p) {
		rep_p->rep_pairs = (int)nd;
		rep_p->rep_sigma = lp_diag_rep_sigma(diffs, nd);
	}
	rc = 0;
out:
	free(at);
	free(vals);
	free(diffs);
	free(pos);
	return rc;
}

int lp_sweep_matrix_lay(const struct lp_sweep_run *r, int metric, const struct lp_diag_lay *L,
			double *v, uint8_t *fail, uint8_t *sched, uint8_t *att, double *best,
			double *spread, struct lp_diag_in *rep_p)
{
	struct lp_sweep_block all = { metric, 0, r->n, malloc(((size_t)r->n + 1) * sizeof(int)),
				      L };
	int rc;

	if (!all.node)
		return -ENOMEM;
	for (int i = 0; i < r->n; i++)
		all.node[i] = i;
	rc = lp_sweep_block_matrix(r, &all, v, fail, sched, att, best, spread, rep_p);
	free(all.node);
	return rc;
}

int lp_sweep_matrix(const struct lp_sweep_run *r, int metric, double *v, uint8_t *fail,
		    uint8_t *sched, uint8_t *att, double *best, double *spread,
		    struct lp_diag_in *rep_p)
{
	return lp_sweep_matrix_lay(r, metric, NULL, v, fail, sched, att, best, spread, rep_p);
}

void lp_sweep_blocks_free(struct lp_sweep_block *blocks, int n)
{
	for (int k = 0; blocks && k < n; k++)
		free(blocks[k].node);
	free(blocks);
}

int lp_sweep_blocks(const struct lp_sweep_run *r, struct lp_sweep_block **blocks_p, int *n_p)
{
	int rails = 1, nb = 0;
	struct lp_sweep_block *b;

	for (int i = 0; r->rails && i < r->n; i++)
		rails = LP_MAX(rails, r->nodes[i].rail + 1);
	b = calloc((size_t)r->nmetrics * rails + 1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (int m = 0; m < r->nmetrics; m++)
		for (int rail = 0; rail < rails; rail++, nb++) {
			b[nb] = (struct lp_sweep_block){ m, rail, 0,
							 malloc(((size_t)r->n + 1) * sizeof(int)),
							 NULL };
			if (!b[nb].node) {
				lp_sweep_blocks_free(b, nb + 1);
				return -ENOMEM;
			}
			for (int i = 0; i < r->n; i++)
				if (!r->rails || r->nodes[i].rail == rail)
					b[nb].node[b[nb].nb++] = i;
		}
	*blocks_p = b;
	*n_p = nb;
	return 0;
}

uint64_t lp_sweep_block_implied(void)
{
	static const char *const implied[] = { "metric", "a", "b", "phase", NULL };

	return lp_record_mask(&lp_sweep_cell_record, implied);
}

const char *lp_sweep_unit(const struct lp_sweep_metric *m)
{
	return m->lat ? "us" : "Gb/s";
}

void lp_sweep_fmt_val(char *buf, size_t len, double v, bool lat)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (lat)
		snprintf(buf, len, "%.1f", v);
	else
		lp_fmt_sig(buf, len, v, 3);
}

const struct lp_sweep_att *lp_sweep_find_cell(const struct lp_sweep_run *r, int metric, int a,
					      int b, int phase)
{
	const struct lp_sweep_att *last = NULL;

	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];

		if (c->metric == metric && c->a == a && c->b == b && c->phase == phase)
			last = c;
	}
	return last;
}

/* Isolated retests of metric m among the cells with client a (or any: -1) and server b (or any). */
int lp_sweep_count_retests(const struct lp_sweep_run *r, int m, int a, int b)
{
	int k = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct lp_sweep_att *c = &r->cells[i];

		k += c->metric == m && c->phase == LP_PHASE_RETEST && (a < 0 || c->a == a) &&
		     (b < 0 || c->b == b);
	}
	return k;
}

/* "noise 4.8% per cell (residuals, 41 df; repeats 3.9%, 12 pairs)" */
void lp_sweep_fmt_noise(char *buf, size_t len, const struct lp_diag *d)
{
	snprintf(buf, len, "noise %.1f%% per cell (", 100 * d->cv);
	if (isfinite(d->sigma_fit))
		lp_strcatf(buf, len, "residuals %.1f%%, %d df", 100 * (exp(d->sigma_fit) - 1),
			   d->df);
	else
		lp_strcatf(buf, len, "too few cells for residuals");
	if (isfinite(d->sigma_rep))
		lp_strcatf(buf, len, "; repeats %.1f%%, %d pairs", 100 * (exp(d->sigma_rep) - 1),
			   d->rep_pairs);
	lp_strcatf(buf, len, ")");
}

size_t lp_sweep_missing(const struct lp_sweep_run *r, uint8_t *miss)
{
	size_t n = (size_t)r->n, nm = (size_t)r->nmetrics, cnt = 0;
	uint8_t *have;

	if (!r->sched || !nm)
		return 0;
	have = calloc(n * n * nm, 1);
	if (!have)
		return 0;
	for (size_t i = 0; i < r->ncells; i++)
		have[((size_t)r->cells[i].a * n + (size_t)r->cells[i].b) * nm +
		     (size_t)r->cells[i].metric] = 1;
	if (miss)
		memset(miss, 0, n * n * nm);
	for (size_t i = 0; i < r->sched->nslots; i++) {
		const struct lp_slot *sl = &r->sched->slots[i];

		for (int d = 0; d < 2; d++) {
			size_t a = (size_t)(d ? sl->y : sl->x), b = (size_t)(d ? sl->x : sl->y);

			if (!(sl->dirs & (d ? LP_DIR_YX : LP_DIR_XY)) || a >= n || b >= n)
				continue;
			for (size_t m = 0; m < nm; m++) {
				size_t k = (a * n + b) * nm + m;

				if (have[k] || !lp_sweep_metric_screened(r, (int)m))
					continue; /* --fast: the other sizes only where suspected */
				have[k] = 1;	  /* a pair scheduled twice counts once */
				cnt++;
				if (miss)
					miss[k] = 1;
			}
		}
	}
	free(have);
	return cnt;
}

void lp_sweep_mx_free(struct lp_sweep_mx *mx)
{
	free(mx->v);
	free(mx->fail);
	free(mx->sched);
}

int lp_sweep_mx_alloc(struct lp_sweep_mx *mx, int n)
{
	size_t nn = (size_t)n * n;

	mx->v = malloc(nn * sizeof(double));
	mx->fail = malloc(nn);
	mx->sched = malloc(nn);
	if (mx->v && mx->fail && mx->sched)
		return 0;
	lp_sweep_mx_free(mx);
	return -ENOMEM;
}

int lp_sweep_mx_fill(const struct lp_sweep_run *r, int m, struct lp_sweep_mx *mx)
{
	return lp_sweep_matrix(r, m, mx->v, mx->fail, mx->sched, NULL, NULL, NULL, NULL);
}

/* A link verdict: link slow or failed, or errors on a pair. */
bool lp_sweep_is_link(const struct lp_verdict *vd)
{
	return vd->kind == LP_VERDICT_LINK_SLOW || vd->kind == LP_VERDICT_LINK_FAILED ||
	       ((vd->kind == LP_VERDICT_ERRORS || vd->kind == LP_VERDICT_UNCONFIRMED) &&
		vd->a >= 0 && vd->a != vd->b);
}

/*
 * Each ordered pair with scheduled cells that were never measured (an
 * interrupted or incomplete run): "missing": [{client, server, names, metrics}].
 * cb is called per pair with the metrics' labels joined by ", ".
 */
size_t lp_sweep_each_missing(const struct lp_sweep_run *r,
			     void (*cb)(void *arg, const struct lp_sweep_run *r, int a, int b,
					const char *labels),
			     void *arg)
{
	size_t n = (size_t)r->n, nm = (size_t)r->nmetrics;
	uint8_t *miss = r->sched ? malloc(n * n * nm + 1) : NULL;
	size_t cnt = miss ? lp_sweep_missing(r, miss) : 0;

	for (size_t x = 0; cnt && x < n * n; x++) {
		char labels[LP_SWEEP_MAX_METRICS * 34] = "";

		for (size_t m = 0; m < nm; m++)
			if (miss[x * nm + m])
				snprintf(labels + strlen(labels), sizeof(labels) - strlen(labels),
					 "%s%s", labels[0] ? ", " : "", r->metrics[m].label);
		if (labels[0])
			cb(arg, r, (int)(x / n), (int)(x % n), labels);
	}
	free(miss);
	return cnt;
}

/*
 * Do the rails measure apart: every node on a rail, no idle cell between two rails? (The
 * environment's LP_SWEEP_DIAG_WHOLE=1 keeps the n x n matrix: the check that both give the
 * same document, tests/sweep/test-doc-scale.sh.)
 */
static bool rails_apart(const struct lp_sweep_run *r)
{
	const char *whole = getenv("LP_SWEEP_DIAG_WHOLE");

	if (!r->rails || r->n <= 3 || (whole && !strcmp(whole, "1")))
		return false; /* N <= 3 is searched whole (diag_small.c) */
	for (int i = 0; i < r->n; i++)
		if (r->nodes[i].rail < 0 || r->nodes[i].rail >= r->n)
			return false;
	for (size_t k = 0; k < r->ncells; k++) {
		const struct lp_sweep_att *c = &r->cells[k];

		if (c->phase <= LP_PHASE_RETEST && r->nodes[c->a].rail != r->nodes[c->b].rail)
			return false;
	}
	return true;
}

int lp_sweep_layout(const struct lp_sweep_run *r, struct lp_diag_lay *L)
{
	int *blk = NULL, rc;

	if (rails_apart(r)) {
		blk = malloc(((size_t)r->n + 1) * sizeof(int));
		if (!blk)
			return -ENOMEM;
		for (int i = 0; i < r->n; i++)
			blk[i] = r->nodes[i].rail;
	}
	rc = lp_diag_lay_init(L, r->n, blk);
	free(blk);
	return rc;
}
