// SPDX-License-Identifier: MIT
/* The accuracy benchmark's scenarios and scoring (diag-bench.h). */
#include "diag-bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/stats.h"

const char *const bench_kind_names[] = { "none", "src",	   "dst",  "both", "link", "two",
					 "leaf", "uplink", "path", "rail", "fail", NULL };

#define BLIP_LO	   0.3
#define BLIP_HI	   0.8
#define CONGEST_AT 0.8
#define FAIL_SHARE 0.03
#define BW_BASE	   100.0 /* Gb/s */
#define LAT_BASE   2.0	 /* us */

double bench_uni(struct bench_rng *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return ((g->s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct bench_rng *g)
{
	return sqrt(-2 * log(bench_uni(g))) * cos(2 * M_PI * bench_uni(g));
}

/* A hash of (key, x, y) in [0, 1): the same answer for the same cell (ECMP, congestion). */
static double hash01(uint64_t key, uint64_t x, uint64_t y)
{
	uint64_t h = key ^ (x * 0x9E3779B97F4A7C15ull) ^ (y * 0xC2B2AE3D27D4EB4Full);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (h >> 11) / 9007199254740992.0;
}

void bench_setting_default(struct bench_setting *s)
{
	*s = (struct bench_setting){ .n = 8,
				     .rails = 1,
				     .leaf_size = 4,
				     .topo = true,
				     .cv = 0.05,
				     .sev = 0.8,
				     .share = 0.25,
				     .metrics = 1,
				     .trials = 100,
				     .retest_rounds = 3,
				     .seed = 1 };
}

int bench_node(const struct bench_setting *s, int r)
{
	return r / s->rails;
}

int bench_rail(const struct bench_setting *s, int r)
{
	return r % s->rails;
}

int bench_leaf(const struct bench_setting *s, int r)
{
	return s->leaf_size > 0 ? bench_node(s, r) / s->leaf_size : 0;
}

bool bench_cell_on(const struct bench_setting *s, int a, int b)
{
	return a != b && bench_rail(s, a) == bench_rail(s, b);
}

static int leaves(const struct bench_setting *s)
{
	return s->leaf_size > 0 ? (s->n + s->leaf_size - 1) / s->leaf_size : 1;
}

/* A random rank not yet used (with rails: of rail 0, so that links stay within a rail). */
static int pick(const struct bench_trial *t, struct bench_rng *g, bool *used)
{
	int r, tries = 0;

	do
		r = (int)(bench_uni(g) * t->s->n) * t->s->rails;
	while (used[r] && ++tries < 1000);
	used[r] = true;
	return r;
}

/* One simple fault (node or link) of kind k. */
static void simple_fault(struct bench_trial *t, struct bench_rng *g, bool *used, int k, double sev)
{
	struct bench_fault *f = &t->f[t->nf++];

	f->kind = k;
	f->sev = sev;
	f->a = pick(t, g, used);
	f->b = k == BK_LINK ? pick(t, g, used) : f->a;
}

int bench_trial_make(struct bench_trial *t, const struct bench_setting *s, struct bench_rng *g,
		     double sev)
{
	int nl = leaves(s);
	bool *used;

	memset(t, 0, sizeof(*t));
	t->s = s;
	t->nranks = s->n * s->rails;
	t->key = (uint64_t)(bench_uni(g) * 9007199254740992.0) + 1;
	t->failed = calloc((size_t)t->nranks * t->nranks, 1);
	used = calloc((size_t)t->nranks, 1);
	if (!t->failed || !used) {
		free(used);
		return -ENOMEM;
	}
	switch (s->kind) {
	case BK_SRC:
	case BK_DST:
	case BK_BOTH:
	case BK_LINK:
		simple_fault(t, g, used, s->kind, sev);
		break;
	case BK_TWO:
		for (int i = 0; i < 2; i++)
			simple_fault(t, g, used, BK_SRC + (int)(bench_uni(g) * 4), sev);
		break;
	case BK_FAIL:
		simple_fault(t, g, used, BK_BOTH, sev);
		for (size_t x = 0; x < (size_t)t->nranks * t->nranks; x++)
			t->failed[x] = bench_uni(g) < FAIL_SHARE;
		break;
	case BK_LEAF:
	case BK_UPLINK:
	case BK_PATH:
		t->f[0] = (struct bench_fault){ s->kind, (int)(bench_uni(g) * nl), -1, sev };
		if (s->kind == BK_PATH)
			t->f[0].b = (t->f[0].a + 1 + (int)(bench_uni(g) * (nl - 1))) % nl;
		t->nf = nl > 1 ? 1 : 0;
		break;
	case BK_RAIL:
		t->f[0] = (struct bench_fault){ BK_RAIL, (int)(bench_uni(g) * s->rails), -1, sev };
		t->nf = s->rails > 1 ? 1 : 0;
		break;
	default:
		break;
	}
	free(used);
	return 0;
}

void bench_trial_free(struct bench_trial *t)
{
	free(t->failed);
	memset(t, 0, sizeof(*t));
}

/* Does fault f touch cell a -> b? */
static bool touches(const struct bench_trial *t, const struct bench_fault *f, int a, int b)
{
	const struct bench_setting *s = t->s;
	int la = bench_leaf(s, a), lb = bench_leaf(s, b);

	switch (f->kind) {
	case BK_SRC:
		return a == f->a;
	case BK_DST:
		return b == f->a;
	case BK_BOTH:
		return a == f->a || b == f->a;
	case BK_LINK:
		return a == f->a && b == f->b;
	case BK_LEAF:
		return (la == f->a) != (lb == f->a);
	case BK_UPLINK:
		return la == f->a && lb != f->a &&
		       hash01(t->key, (uint64_t)a, (uint64_t)b) < s->share;
	case BK_PATH:
		return (la == f->a && lb == f->b) || (la == f->b && lb == f->a);
	case BK_RAIL:
		return bench_rail(s, a) == f->a;
	default:
		return false;
	}
}

double bench_factor(const struct bench_trial *t, int a, int b, bool lat)
{
	double f = 1;

	if (t->s->lat_only && !lat)
		return 1;
	for (int i = 0; i < t->nf; i++)
		if (touches(t, &t->f[i], a, b))
			f *= t->f[i].sev;
	return f;
}

double bench_draw(const struct bench_trial *t, struct bench_rng *g, int a, int b, bool lat,
		  int sweep_round)
{
	const struct bench_setting *s = t->s;
	double z = gauss(g), good;

	if (s->tail_df > 2) { /* Student-t of tail_df, unit variance */
		double chi = 0;

		for (int i = 0; i < (int)s->tail_df; i++) {
			double u = gauss(g);

			chi += u * u;
		}
		z = z / sqrt(chi / (int)s->tail_df) *
		    sqrt(((int)s->tail_df - 2.0) / (int)s->tail_df);
	}
	good = bench_factor(t, a, b, lat) * exp(log1p(s->cv) * z);
	if (bench_uni(g) < s->blip)
		good *= BLIP_LO + (BLIP_HI - BLIP_LO) * bench_uni(g);
	if (sweep_round >= 0 && hash01(t->key ^ 0x5bd1e995, (uint64_t)sweep_round, 7) < s->congest)
		good *= CONGEST_AT;
	if (t->failed[(size_t)a * t->nranks + b])
		return NAN;
	return lat ? LAT_BASE / good : BW_BASE * good;
}

/* The run's fabric: node n%d on leaf%d (and, with rails, device mlx5_RAIL on rail RAIL). */
static int fabric_setup(const struct bench_setting *s, struct lp_sweep_run *r)
{
	struct lp_fabric *f = calloc(1, sizeof(*f));
	int nl = leaves(s);

	if (!f)
		return -ENOMEM;
	f->format = LP_FABRIC_SIMPLE;
	snprintf(f->source, sizeof(f->source), "diag-bench");
	f->port = calloc((size_t)s->n + 1, sizeof(*f->port));
	f->leaf = calloc((size_t)nl + 1, LP_FABRIC_NAME);
	if (!f->port || !f->leaf) {
		lp_fabric_free(f);
		free(f);
		return -ENOMEM;
	}
	for (int l = 0; l < nl; l++)
		snprintf(f->leaf[l], LP_FABRIC_NAME, "leaf%d", l);
	f->nleaf = f->nleaf_all = nl;
	for (int i = 0; i < s->n; i++) {
		snprintf(f->port[i].host, sizeof(f->port[i].host), "n%d", i);
		f->port[i].leaf = bench_leaf(s, i * s->rails);
		f->port[i].rail = -1;
	}
	f->nport = s->n;
	r->fabric = f;
	return 0;
}

int bench_run_setup(const struct bench_trial *t, struct lp_sweep_run *r)
{
	const struct bench_setting *s = t->s;
	int rc = lp_sweep_run_init(r, t->nranks);

	for (int i = 0; !rc && i < t->nranks; i++) {
		struct lp_sweep_node *nd = &r->nodes[i];

		snprintf(nd->host, sizeof(nd->host), "n%d", bench_node(s, i));
		if (s->rails > 1)
			snprintf(nd->name, sizeof(nd->name), "n%d/%d", bench_node(s, i),
				 bench_rail(s, i));
		else
			snprintf(nd->name, sizeof(nd->name), "n%d", i);
		snprintf(nd->dev.name, sizeof(nd->dev.name), "mlx5_%d", bench_rail(s, i));
		nd->rank = i;
		nd->rail = bench_rail(s, i);
	}
	r->rails = s->rails > 1 ? s->rails : 0;
	r->retest_max = 1000000; /* the engine's default: no cap but time */
	r->retest_rounds = s->retest_rounds;
	if (!rc && (s->metrics == 2 || !s->lat))
		rc = lp_sweep_add_metric(r, "write_bw", 0, false, 1 << 20) < 0;
	if (!rc && (s->metrics == 2 || s->lat))
		rc = lp_sweep_add_metric(r, "write_lat", 0, true, 8) < 0;
	if (!rc && s->topo && s->leaf_size > 0)
		rc = fabric_setup(s, r);
	return rc ? -ENOMEM : 0;
}

/* ---- the scenario as a model for lp-sweep --model (linkperf.model/1) ---- */

static void model_fault(const struct bench_trial *t, const struct bench_fault *f, FILE *o,
			bool more)
{
	static const char *const roles[] = {
		[BK_SRC] = "client", [BK_DST] = "server", [BK_BOTH] = "both"
	};
	const char *metrics = t->s->lat_only ? "lat" : "all";

	switch (f->kind) {
	case BK_SRC:
	case BK_DST:
	case BK_BOTH:
		fprintf(o, "    {\"node\": %d, \"role\": \"%s\"", bench_node(t->s, f->a),
			roles[f->kind]);
		break;
	case BK_LINK:
		fprintf(o, "    {\"link\": [%d, %d]", f->a, f->b);
		break;
	case BK_LEAF:
		fprintf(o, "    {\"leaf\": %d", f->a);
		break;
	case BK_UPLINK: /* one uplink of several under ECMP: "share" (not in linkperf.model/1 yet) */
		fprintf(o, "    {\"leaf\": %d, \"direction\": \"out\", \"share\": %g", f->a,
			t->s->share);
		break;
	case BK_PATH:
		fprintf(o, "    {\"uplink\": [%d, %d]", f->a, f->b);
		break;
	default:
		fprintf(o, "    {\"rail\": %d", f->a);
		break;
	}
	fprintf(o, ", \"factor\": %.6g, \"metrics\": \"%s\"}%s\n", f->sev, metrics,
		more ? "," : "");
}

int bench_write_model(const struct bench_trial *t, FILE *o)
{
	const struct bench_setting *s = t->s;

	fprintf(o, "{\n  \"schema\": \"linkperf.model/1\",\n  \"seed\": %llu,\n",
		(unsigned long long)(t->key & ((1ull << 53) - 1)));
	fprintf(o,
		"  \"nodes\": %d,\n  \"rails\": %d,\n  \"leaf_size\": %d,\n  \"names\": \"n%%d\",\n",
		s->n, s->rails, s->leaf_size);
	fprintf(o, "  \"base\": {\"lat_us\": %g, \"bw_gbps\": %g},\n", LAT_BASE, BW_BASE);
	if (s->tail_df > 2)
		fprintf(o, "  \"noise\": {\"cv\": %g, \"tail\": \"t\", \"df\": %g},\n", s->cv,
			s->tail_df);
	else
		fprintf(o, "  \"noise\": {\"cv\": %g},\n", s->cv);
	fprintf(o, "  \"blips\": {\"rate\": %g, \"factor\": [%g, %g]},\n", s->blip, BLIP_LO,
		BLIP_HI);
	fprintf(o, "  \"congested\": {\"rate\": %g, \"factor\": %g},\n", s->congest, CONGEST_AT);
	fprintf(o, "  \"failures\": {\"rate\": %g},\n", s->kind == BK_FAIL ? FAIL_SHARE : 0.0);
	fprintf(o, "  \"faults\": [\n");
	for (int i = 0; i < t->nf; i++)
		model_fault(t, &t->f[i], o, i + 1 < t->nf);
	fprintf(o, "  ]\n}\n");
	return ferror(o) ? -EIO : 0;
}

int bench_write_topology(const struct bench_setting *s, FILE *o)
{
	fprintf(o, "# diag-bench: node leaf (lp-sweep --topology)\n");
	for (int i = 0; i < s->n; i++)
		fprintf(o, "n%d leaf%d\n", i, bench_leaf(s, i * s->rails));
	return ferror(o) ? -EIO : 0;
}

/* ---- scoring ---- */

static bool confident(const struct lp_verdict *v)
{
	switch (v->kind) {
	case LP_VERDICT_NODE_SLOW:
	case LP_VERDICT_LINK_SLOW:
	case LP_VERDICT_SWITCH_SLOW:
	case LP_VERDICT_UPLINK_SLOW:
	case LP_VERDICT_RAIL_SLOW:
	case LP_VERDICT_GROUP_SUSPECT:
		return true;
	default:
		return false;
	}
}

/* Are v's members exactly leaf l's nodes? */
static bool members_are_leaf(const struct bench_trial *t, const struct lp_verdict *v, int l)
{
	int k = 0;

	for (int r = 0; r < t->nranks; r++)
		k += bench_leaf(t->s, r) == l;
	if (v->nmembers != k)
		return false;
	for (int i = 0; i < v->nmembers && i < LP_VERDICT_MEMBERS; i++)
		if (bench_leaf(t->s, v->members[i]) != l)
			return false;
	return true;
}

static bool is_group(const struct lp_verdict *v, const char *name)
{
	return !strcmp(v->group, name);
}

/* Does verdict v name fault f exactly (kind and target)? */
static bool names(const struct bench_trial *t, const struct lp_verdict *v,
		  const struct bench_fault *f)
{
	char g[64], g2[64];
	unsigned role = f->kind == BK_SRC   ? LP_NODE_SLOW_SRC
			: f->kind == BK_DST ? LP_NODE_SLOW_DST
					    : LP_NODE_SLOW_SRC | LP_NODE_SLOW_DST;

	switch (f->kind) {
	case BK_SRC:
	case BK_DST:
	case BK_BOTH:
		return v->kind == LP_VERDICT_NODE_SLOW && v->a == f->a && (v->dirs & 3u) == role;
	case BK_LINK:
		return v->kind == LP_VERDICT_LINK_SLOW && v->a == LP_MIN(f->a, f->b) &&
		       v->b == LP_MAX(f->a, f->b) &&
		       v->dirs == (f->a < f->b ? LP_DIR_XY : LP_DIR_YX);
	case BK_LEAF:
	case BK_UPLINK:
		snprintf(g, sizeof(g), "leaf%d", f->a);
		/* with two leaves a leaf's cells leaving and entering it are the path between them */
		if (f->kind == BK_LEAF && leaves(t->s) == 2 && v->kind == LP_VERDICT_UPLINK_SLOW &&
		    (is_group(v, "leaf0<->leaf1") || is_group(v, "leaf1<->leaf0")))
			return true;
		return ((v->kind == LP_VERDICT_SWITCH_SLOW || v->kind == LP_VERDICT_UPLINK_SLOW) &&
			is_group(v, g)) ||
		       (v->kind == LP_VERDICT_GROUP_SUSPECT && members_are_leaf(t, v, f->a));
	case BK_PATH:
		snprintf(g, sizeof(g), "leaf%d<->leaf%d", f->a, f->b);
		snprintf(g2, sizeof(g2), "leaf%d<->leaf%d", f->b, f->a);
		if (leaves(t->s) == 2 && v->kind == LP_VERDICT_SWITCH_SLOW &&
		    !strcmp(v->scope, "cross"))
			return true; /* the same cells, as a leaf's */
		return v->kind == LP_VERDICT_UPLINK_SLOW && (is_group(v, g) || is_group(v, g2));
	case BK_RAIL:
		snprintf(g, sizeof(g), "rail%d", f->a);
		return v->kind == LP_VERDICT_RAIL_SLOW && is_group(v, g);
	default:
		return false;
	}
}

static bool cand_has(const struct lp_verdict *v, int kind, int a, int b)
{
	for (int i = 0; i < v->ncand; i++)
		if (v->cand[i].kind == kind && v->cand[i].a == a &&
		    (kind != LP_ITEM_LINK || v->cand[i].b == b))
			return true;
	return false;
}

/*
 * An honest outcome short of the name: candidates with the truth, unconfirmed
 * on it, inconclusive.
 */
static bool honest(const struct bench_trial *t, const struct lp_verdict *v,
		   const struct bench_fault *f)
{
	bool node = f->kind <= BK_BOTH, link = f->kind == BK_LINK;

	(void)t;
	if (v->kind == LP_VERDICT_INCONCLUSIVE)
		return true;
	if (v->kind == LP_VERDICT_AMBIGUOUS || v->kind == LP_VERDICT_PAIR_SLOW)
		return (node &&
			(cand_has(v, LP_ITEM_SRC, f->a, 0) || cand_has(v, LP_ITEM_DST, f->a, 0))) ||
		       (link && cand_has(v, LP_ITEM_LINK, f->a, f->b));
	if (v->kind == LP_VERDICT_UNCONFIRMED)
		return (node && v->a == f->a && v->b == f->a) ||
		       (link && v->a == LP_MIN(f->a, f->b) && v->b == LP_MAX(f->a, f->b));
	return false;
}

int bench_tally_init(struct bench_tally *ty, int trials)
{
	memset(ty, 0, sizeof(*ty));
	for (int k = 0; k < 3; k++)
		if (!(ty->limit[k] = calloc((size_t)trials + 1, sizeof(double))))
			return -ENOMEM;
	return 0;
}

void bench_tally_free(struct bench_tally *ty)
{
	for (int k = 0; k < 3; k++)
		free(ty->limit[k]);
}

/* The first metric's stated limits (NaN none) and the run's retests. */
static void limits(const struct lp_sweep_run *r, struct bench_tally *ty)
{
	const struct lp_diag *d = &r->diag[0];

	ty->retests += (double)r->nretests;
	ty->limit[0][ty->trials - 1] = d->min_node;
	ty->limit[1][ty->trials - 1] = d->min_link;
	ty->limit[2][ty->trials - 1] = d->min_group;
}

/* The median of a limit over the trials (NaN values left out; 0 counts: "cannot"). */
static double median_limit(const struct bench_tally *ty, int k)
{
	double *v = malloc((size_t)ty->trials * sizeof(double) + 1), m;
	size_t n = 0;

	for (long i = 0; v && i < ty->trials; i++)
		if (!isnan(ty->limit[k][i]))
			v[n++] = ty->limit[k][i];
	m = n ? lp_median(v, n) : NAN;
	free(v);
	return m;
}

/* The limit the run stated for fault f's kind (its metric), NaN none. */
static double stated(const struct lp_sweep_run *r, const struct bench_fault *f)
{
	const struct lp_diag *d = &r->diag[r->nmetrics - 1];

	return f->kind == BK_LINK			  ? d->min_link
	       : f->kind >= BK_LEAF && f->kind <= BK_PATH ? d->min_group
							  : d->min_node;
}

/* A miss the run owned up to: the fault milder than the limit it stated for its kind. */
static bool below_limit(const struct lp_sweep_run *r, const struct bench_fault *f)
{
	double lim = stated(r, f);

	return isfinite(lim) && (f->sev > lim || lim == 0); /* 0: it said it could not */
}

void bench_score(const struct bench_trial *t, const struct lp_sweep_run *r, struct bench_tally *ty)
{
	bool misattr = false, any_conf = false, unconf = false, inconcl = false;
	int nconf = 0;

	ty->trials++;
	ty->faults += t->nf;
	for (int i = 0; i < t->nf; i++) {
		bool found = false, fair = false;

		for (int k = 0; k < r->nverdicts; k++) {
			found = found || names(t, &r->verdicts[k], &t->f[i]);
			fair = fair || honest(t, &r->verdicts[k], &t->f[i]);
		}
		ty->found += found;
		ty->honest += found || fair || below_limit(r, &t->f[i]);
		if (stated(r, &t->f[i]) > 0 && t->f[i].sev <= stated(r, &t->f[i])) {
			ty->promised++; /* the run said it would find this */
			ty->kept += found;
		}
	}
	for (int k = 0; k < r->nverdicts; k++) {
		const struct lp_verdict *v = &r->verdicts[k];
		bool match = false;

		unconf = unconf || v->kind == LP_VERDICT_UNCONFIRMED;
		inconcl = inconcl || v->kind == LP_VERDICT_INCONCLUSIVE;
		if (!confident(v))
			continue;
		any_conf = true;
		nconf++;
		for (int i = 0; i < t->nf; i++)
			match = match || names(t, v, &t->f[i]);
		misattr = misattr || !match;
		if (v->kind == LP_VERDICT_NODE_SLOW && !match)
			ty->fp_nodes++;
	}
	ty->healthy_nodes += t->nranks - (t->nf && t->f[0].kind <= BK_BOTH ? t->nf : 0);
	ty->group_one += t->nf == 1 && t->f[0].kind >= BK_LEAF && nconf == 1 && !misattr;
	ty->misattr_runs += misattr;
	ty->confident_runs += any_conf;
	ty->unconf_runs += unconf;
	ty->inconcl_runs += inconcl;
	limits(r, ty);
}

void bench_csv_header(FILE *f)
{
	fprintf(f,
		"transport,n,rails,topology,cv,tail_df,blip,congest,metrics,lat_only,fault,sev,at_limit,"
		"trials,faults,found,honest,promised,kept,group_one,misattr_runs,confident_runs,unconf_runs,"
		"inconcl_runs,fp_node_rate,retests_per_run,limit_node,limit_link,limit_group,"
		"diag_cpu_s_per_run\n");
}

void bench_csv_row(FILE *f, const struct bench_setting *s, const struct bench_tally *ty,
		   const char *transport, bool at_limit)
{
	double t = ty->trials ? (double)ty->trials : 1;

	fprintf(f,
		"%s,%d,%d,%d,%g,%g,%g,%g,%d,%d,%s,%g,%d,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%.6f,"
		"%.1f,%.4f,%.4f,%.4f,%.3f\n",
		transport, s->n, s->rails, s->topo, s->cv, s->tail_df, s->blip, s->congest,
		s->metrics, s->lat_only, bench_kind_names[s->kind],
		s->kind == BK_NONE ? 1.0 : s->sev, at_limit, ty->trials, ty->faults, ty->found,
		ty->honest, ty->promised, ty->kept, ty->group_one, ty->misattr_runs,
		ty->confident_runs, ty->unconf_runs, ty->inconcl_runs,
		ty->healthy_nodes ? (double)ty->fp_nodes / (double)ty->healthy_nodes : 0,
		ty->retests / t, median_limit(ty, 0), median_limit(ty, 1), median_limit(ty, 2),
		ty->diag_s / t);
}
