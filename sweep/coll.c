// SPDX-License-Identifier: MIT
/* Collectives: nccl-tests' conventions, the records, a run's collectives section. */
#include "sweep/coll.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/vec.h"
#include "sweep/collimport.h"

const char *const lp_coll_names[] = { "allreduce", "allgather", "reducescatter", "alltoall",
				      "broadcast", "reduce",	"sendrecv",	 NULL };
const char *const lp_coll_path_names[] = { "mpi", "ring", "nccl", "nccl-tests", NULL };
const char *const lp_coll_scheme_names[] = { "ring",  "ring_best", "tree",   "rails",
					     "innet", "chain",	   "direct", NULL };
const char *const lp_coll_limit_names[] = { "edge", "egress", "ingress", NULL };
const char *const lp_coll_guilty_names[] = { "none",	    "node",	    "link", "shared",
					     "concurrency", "inconclusive", NULL };
const char *const lp_coll_probe_names[] = { "ring", "edge", NULL };

/*
 * Per kind, as nccl-tests has it (src/<coll>.cu): its binary, whether it
 * reduces or has a root, its busbw factor, and whether its per-rank count is
 * the size divided among the ranks (allgather, reducescatter, alltoall).
 */
enum factor { F_ALLREDUCE, F_NM1_N, F_ONE };
static const struct coll_def {
	const char *tests; /* nccl-tests' name without _perf */
	bool reduces, rooted, split;
	enum factor factor;
} defs[LP_COLL_NKINDS] = {
	[LP_COLL_ALLREDUCE] = { "all_reduce", true, false, false, F_ALLREDUCE },
	[LP_COLL_ALLGATHER] = { "all_gather", false, false, true, F_NM1_N },
	[LP_COLL_REDUCESCATTER] = { "reduce_scatter", true, false, true, F_NM1_N },
	[LP_COLL_ALLTOALL] = { "alltoall", false, false, true, F_NM1_N },
	[LP_COLL_BROADCAST] = { "broadcast", false, true, false, F_ONE },
	[LP_COLL_REDUCE] = { "reduce", true, true, false, F_ONE },
	[LP_COLL_SENDRECV] = { "sendrecv", false, false, false, F_ONE },
};

static bool valid_kind(int k)
{
	return k >= 0 && k < LP_COLL_NKINDS;
}

int lp_coll_kind_parse(const char *s)
{
	char buf[32];
	size_t n;

	if (!s)
		return -1;
	n = strlen(s);
	if (n > 5 && !strcmp(s + n - 5, "_perf"))
		n -= 5; /* all_reduce_perf */
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	for (int k = 0; k < LP_COLL_NKINDS; k++)
		if (!strcmp(buf, lp_coll_names[k]) || !strcmp(buf, defs[k].tests))
			return k;
	return -1;
}

const char *lp_coll_nccl_tests_name(enum lp_coll_kind k)
{
	static const char *const bins[LP_COLL_NKINDS] = {
		"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf",
		"broadcast_perf",  "reduce_perf",     "sendrecv_perf",
	};

	return valid_kind((int)k) ? bins[k] : "?";
}

bool lp_coll_reduces(enum lp_coll_kind k)
{
	return valid_kind((int)k) && defs[k].reduces;
}

bool lp_coll_rooted(enum lp_coll_kind k)
{
	return valid_kind((int)k) && defs[k].rooted;
}

double lp_coll_factor(enum lp_coll_kind k, int n)
{
	if (!valid_kind((int)k) || n < 1)
		return NAN;
	switch (defs[k].factor) {
	case F_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case F_NM1_N:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

int lp_coll_shape(enum lp_coll_kind k, uint64_t size, size_t elt, int n, struct lp_coll_shape *s)
{
	uint64_t count, base;

	if (!valid_kind((int)k) || elt == 0 || elt > 16 || (elt & (elt - 1)) || n < 1)
		return -EINVAL;
	count = size / elt;
	memset(s, 0, sizeof(*s));
	if (!defs[k].split) {
		s->send_count = s->recv_count = s->param_count = count;
	} else {
		/* (count/nranks) & ~(16/eltSize - 1): each rank's part a multiple of 16 bytes */
		base = (count / (uint64_t)n) & ~(uint64_t)(16 / elt - 1);
		s->param_count = base;
		s->send_count = k == LP_COLL_ALLGATHER ? base : base * (uint64_t)n;
		s->recv_count = k == LP_COLL_REDUCESCATTER ? base : base * (uint64_t)n;
	}
	s->bytes = LP_MAX(s->send_count, s->recv_count) * elt;
	return 0;
}

void lp_coll_bw(enum lp_coll_kind k, int n, uint64_t bytes, double sec, double *algbw_p,
		double *busbw_p)
{
	double alg = sec > 0 ? (double)bytes / 1e9 / sec : NAN;

	*algbw_p = alg;
	*busbw_p = alg * lp_coll_factor(k, n);
}

float lp_coll_value(int rank, uint64_t i)
{
	return (float)((rank % 16 + 1) * (int)(i % 7 + 1));
}

void lp_coll_fill(int rank, const struct lp_coll_shape *s, float *send)
{
	for (uint64_t i = 0; i < s->send_count; i++)
		send[i] = lp_coll_value(rank, i);
}

int64_t lp_coll_check(enum lp_coll_kind k, int rank, int n, int root, const struct lp_coll_shape *s,
		      const float *res)
{
	uint64_t base = s->param_count, count = k == LP_COLL_ALLGATHER || k == LP_COLL_ALLTOALL
							? base * (uint64_t)n
						: k == LP_COLL_REDUCESCATTER ? base
									     : s->param_count;
	int64_t wrong = 0;
	long tot =
		0; /* the sum over ranks of their factor: a reduction's element i is tot x g(i) */

	if (k == LP_COLL_REDUCE && rank != root)
		return 0;
	for (int r = 0; r < n; r++)
		tot += r % 16 + 1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t p = base ? i / base : 0, j = base ? i % base : i;
		float want;

		switch (k) {
		case LP_COLL_ALLGATHER:
			want = lp_coll_value((int)p, j);
			break;
		case LP_COLL_REDUCESCATTER:
			want = (float)(tot * (long)(((uint64_t)rank * base + i) % 7 + 1));
			break;
		case LP_COLL_ALLTOALL:
			want = lp_coll_value((int)p, (uint64_t)rank * base + j);
			break;
		case LP_COLL_BROADCAST:
			want = lp_coll_value(root, i);
			break;
		case LP_COLL_SENDRECV:
			want = lp_coll_value((rank - 1 + n) % n, i);
			break;
		default: /* allreduce, reduce */
			want = (float)(tot * (long)(i % 7 + 1));
		}
		wrong += res[i] != want;
	}
	return wrong;
}

void lp_coll_result_init(struct lp_coll_result *r, enum lp_coll_kind coll, enum lp_coll_path path,
			 const char *group, int nranks)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->coll, sizeof(r->coll), "%s", valid_kind((int)coll) ? lp_coll_names[coll] : "?");
	snprintf(r->path, sizeof(r->path), "%s",
		 path >= 0 && path < LP_COLL_NPATHS ? lp_coll_path_names[path] : "?");
	snprintf(r->group, sizeof(r->group), "%s", group ? group : "all");
	r->nranks = nranks;
	snprintf(r->type, sizeof(r->type), "float");
	snprintf(r->redop, sizeof(r->redop), "%s", lp_coll_reduces(coll) ? "sum" : "none");
	r->root = lp_coll_rooted(coll) ? 0 : -1;
	r->time_us = r->time_max_us = r->algbw = r->busbw = NAN;
	r->wrong = -1;
}

/* ---- records ---- */

/* clang-format off */
const struct lp_record lp_coll_result_record = LP_RECORD(struct lp_coll_result,
	LP_REC_STR(struct lp_coll_result, coll, LP_REC_KEY("collective")),
	LP_REC_STR(struct lp_coll_result, path),
	LP_REC_STR(struct lp_coll_result, group),
	LP_REC_I32(struct lp_coll_result, nranks, LP_REC_RANGE(0, 1 << 24)),
	LP_REC_U64(struct lp_coll_result, size),
	LP_REC_U64(struct lp_coll_result, count),
	LP_REC_STR(struct lp_coll_result, type),
	LP_REC_STR(struct lp_coll_result, redop),
	LP_REC_I32(struct lp_coll_result, root),
	LP_REC_BOOL(struct lp_coll_result, in_place),
	LP_REC_I32(struct lp_coll_result, warmup),
	LP_REC_I32(struct lp_coll_result, iters),
	LP_REC_F64(struct lp_coll_result, time_us),
	LP_REC_F64(struct lp_coll_result, time_max_us),
	LP_REC_F64(struct lp_coll_result, algbw),
	LP_REC_F64(struct lp_coll_result, busbw),
	LP_REC_I64(struct lp_coll_result, wrong),
	LP_REC_I32(struct lp_coll_result, status),
	LP_REC_STR(struct lp_coll_result, error));

static const struct lp_record edge_record = LP_RECORD(struct lp_coll_edge,
	LP_REC_STR(struct lp_coll_edge, limit),
	LP_REC_I32(struct lp_coll_edge, a),
	LP_REC_I32(struct lp_coll_edge, b),
	LP_REC_STR(struct lp_coll_edge, a_name),
	LP_REC_STR(struct lp_coll_edge, b_name),
	LP_REC_F64(struct lp_coll_edge, gbs),
	LP_REC_F64(struct lp_coll_edge, load),
	LP_REC_F64(struct lp_coll_edge, busbw));

const struct lp_record lp_coll_ceiling_record = LP_RECORD(struct lp_coll_ceiling,
	LP_REC_STR(struct lp_coll_ceiling, coll, LP_REC_KEY("collective")),
	LP_REC_STR(struct lp_coll_ceiling, scheme),
	LP_REC_STR(struct lp_coll_ceiling, group),
	LP_REC_I32(struct lp_coll_ceiling, nranks),
	LP_REC_F64(struct lp_coll_ceiling, algbw),
	LP_REC_F64(struct lp_coll_ceiling, busbw),
	LP_REC_I32(struct lp_coll_ceiling, nedges),
	LP_REC_I32(struct lp_coll_ceiling, unknown),
	LP_REC_U32(struct lp_coll_ceiling, nbott, LP_REC_RANGE(0, LP_COLL_MAX_BOTT)),
	LP_REC_ARRAY_NEST(struct lp_coll_ceiling, bott, nbott, edge_record, LP_REC_KEY("bottleneck")),
	LP_REC_U32(struct lp_coll_ceiling, norder, LP_REC_RANGE(0, LP_COLL_MAX_ORDER)),
	LP_REC_ARRAY(struct lp_coll_ceiling, order, norder, LP_REC_T_I32, int32_t));

static const struct lp_record probe_record = LP_RECORD(struct lp_coll_probe,
	LP_REC_STR(struct lp_coll_probe, kind),
	LP_REC_I32(struct lp_coll_probe, first),
	LP_REC_I32(struct lp_coll_probe, count),
	LP_REC_I32(struct lp_coll_probe, a),
	LP_REC_I32(struct lp_coll_probe, b),
	LP_REC_F64(struct lp_coll_probe, value),
	LP_REC_F64(struct lp_coll_probe, ref),
	LP_REC_BOOL(struct lp_coll_probe, slow));

const struct lp_record lp_coll_verdict_record = LP_RECORD(struct lp_coll_verdict,
	LP_REC_STR(struct lp_coll_verdict, kind),
	LP_REC_STR(struct lp_coll_verdict, coll, LP_REC_KEY("collective")),
	LP_REC_STR(struct lp_coll_verdict, group),
	LP_REC_I32(struct lp_coll_verdict, a),
	LP_REC_I32(struct lp_coll_verdict, b),
	LP_REC_STR(struct lp_coll_verdict, a_name),
	LP_REC_STR(struct lp_coll_verdict, b_name),
	LP_REC_U32(struct lp_coll_verdict, dirs, LP_REC_RANGE(0, 3)),
	LP_REC_F64(struct lp_coll_verdict, ratio),
	LP_REC_I32(struct lp_coll_verdict, probes),
	LP_REC_F64(struct lp_coll_verdict, wall_s),
	LP_REC_STR(struct lp_coll_verdict, reason),
	LP_REC_U32(struct lp_coll_verdict, nprobe, LP_REC_RANGE(0, LP_COLL_MAX_PROBES)),
	LP_REC_ARRAY_NEST(struct lp_coll_verdict, probe, nprobe, probe_record, LP_REC_KEY("evidence")));

const struct lp_record lp_coll_claim_record = LP_RECORD(struct lp_coll_claim,
	LP_REC_STR(struct lp_coll_claim, text, LP_REC_KEY("claim")),
	LP_REC_STR(struct lp_coll_claim, kind),
	LP_REC_F64(struct lp_coll_claim, value),
	LP_REC_I32(struct lp_coll_claim, nodes),
	LP_REC_F64(struct lp_coll_claim, bytes),
	LP_REC_F64(struct lp_coll_claim, compute_s),
	LP_REC_F64(struct lp_coll_claim, step_s),
	LP_REC_F64(struct lp_coll_claim, need_busbw),
	LP_REC_F64(struct lp_coll_claim, allowed),
	LP_REC_F64(struct lp_coll_claim, allowed_innet),
	LP_REC_F64(struct lp_coll_claim, measured),
	LP_REC_STR(struct lp_coll_claim, verdict),
	LP_REC_STR(struct lp_coll_claim, reason));
/* clang-format on */

/* ---- a run's collectives ---- */

struct lp_coll_run *lp_coll_run_new(void)
{
	struct lp_coll_run *cr = calloc(1, sizeof(*cr));

	if (cr)
		cr->limit_ratio = 0.8;
	return cr;
}

void lp_coll_run_free(struct lp_coll_run *cr)
{
	if (!cr)
		return;
	free(cr->res);
	free(cr->ceil);
	free(cr->verd);
	free(cr->claim);
	for (int i = 0; i < cr->ntopo; i++)
		lp_coll_topo_free(cr->topo[i]);
	free(cr);
}

int lp_coll_run_add_result(struct lp_coll_run *cr, const struct lp_coll_result *r)
{
	return lp_vec_push(&cr->res, &cr->nres, &cr->capres, r, sizeof(*r));
}

int lp_coll_run_add_ceiling(struct lp_coll_run *cr, const struct lp_coll_ceiling *c)
{
	return lp_vec_push(&cr->ceil, &cr->nceil, &cr->capceil, c, sizeof(*c));
}

int lp_coll_run_add_verdict(struct lp_coll_run *cr, const struct lp_coll_verdict *v)
{
	return lp_vec_push(&cr->verd, &cr->nverd, &cr->capverd, v, sizeof(*v));
}

int lp_coll_run_add_claim(struct lp_coll_run *cr, const struct lp_coll_claim *c)
{
	return lp_vec_push(&cr->claim, &cr->nclaim, &cr->capclaim, c, sizeof(*c));
}

const struct lp_coll_ceiling *lp_coll_run_ceiling(const struct lp_coll_run *cr, const char *coll,
						  const char *scheme, const char *group)
{
	for (size_t i = 0; cr && i < cr->nceil; i++)
		if (!strcmp(cr->ceil[i].coll, coll) && !strcmp(cr->ceil[i].scheme, scheme) &&
		    !strcmp(cr->ceil[i].group, group))
			return &cr->ceil[i];
	return NULL;
}

enum lp_coll_scheme lp_coll_scheme_of(enum lp_coll_kind coll)
{
	if (coll == LP_COLL_ALLTOALL)
		return LP_COLL_SCHEME_DIRECT;
	if (coll == LP_COLL_BROADCAST || coll == LP_COLL_REDUCE)
		return LP_COLL_SCHEME_CHAIN;
	return LP_COLL_SCHEME_RING;
}

/* The scheme a measured collective is held against (lp_coll_scheme_of), by name. */
static const char *judge_scheme(const char *coll)
{
	int k = lp_coll_kind_parse(coll);

	return lp_coll_scheme_names[lp_coll_scheme_of(k < 0 ? LP_COLL_ALLREDUCE
							    : (enum lp_coll_kind)k)];
}

static bool same_series(const struct lp_coll_result *a, const struct lp_coll_result *b)
{
	return !strcmp(a->coll, b->coll) && !strcmp(a->path, b->path) &&
	       !strcmp(a->group, b->group);
}

size_t lp_coll_judge(const struct lp_coll_run *cr, struct lp_coll_judgement *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; cr && i < cr->nres; i++) {
		const struct lp_coll_result *r = &cr->res[i];
		size_t k;

		if (r->in_place || r->status || !isfinite(r->busbw))
			continue;
		for (k = 0; k < n; k++)
			if (same_series(out[k].res, r))
				break;
		if (k == n) {
			if (n == max)
				continue;
			n++;
		} else if (out[k].res->size > r->size) {
			continue; /* the largest size speaks for the series */
		}
		out[k].res = r;
		out[k].ceil = lp_coll_run_ceiling(cr, r->coll, judge_scheme(r->coll), r->group);
		out[k].ratio =
			out[k].ceil && out[k].ceil->busbw > 0 ? r->busbw / out[k].ceil->busbw : NAN;
		out[k].at_limit = isfinite(out[k].ratio) && out[k].ratio >= cr->limit_ratio;
		out[k].above = isfinite(out[k].ratio) && out[k].ratio > LP_COLL_ABOVE;
	}
	return n;
}

static bool has_verdict(const struct lp_coll_run *cr, enum lp_coll_guilty kind)
{
	for (size_t i = 0; cr && i < cr->nverd; i++)
		if (!strcmp(cr->verd[i].kind, lp_coll_guilty_names[kind]))
			return true;
	return false;
}

bool lp_coll_inconclusive(const struct lp_coll_run *cr)
{
	return has_verdict(cr, LP_COLL_GUILTY_INCONCLUSIVE);
}

bool lp_coll_flagged(const struct lp_coll_run *cr)
{
	if (has_verdict(cr, LP_COLL_GUILTY_NODE) || has_verdict(cr, LP_COLL_GUILTY_LINK) ||
	    has_verdict(cr, LP_COLL_GUILTY_SHARED) || has_verdict(cr, LP_COLL_GUILTY_CONCURRENCY))
		return true;
	for (size_t i = 0; cr && i < cr->nres; i++)
		if (cr->res[i].wrong > 0)
			return true;
	return false;
}
