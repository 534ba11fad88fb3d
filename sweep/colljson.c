// SPDX-License-Identifier: MIT
/* A run's collectives as the "collectives" object of the sweep document, and as summary lines. */
#include <math.h>
#include <string.h>

#include "common/lp.h"
#include "common/units.h"
#include "sweep/coll.h"
#include "sweep/collimport.h"

/* clang-format off */
const struct lp_record lp_coll_echo_record = LP_RECORD(struct lp_coll_echo,
	LP_REC_STR(struct lp_coll_echo, colls, LP_REC_KEY("collectives")),
	LP_REC_STR(struct lp_coll_echo, paths),
	LP_REC_STR(struct lp_coll_echo, sizes),
	LP_REC_I32(struct lp_coll_echo, warmup),
	LP_REC_I32(struct lp_coll_echo, iters),
	LP_REC_BOOL(struct lp_coll_echo, check),
	LP_REC_STR(struct lp_coll_echo, link_metric),
	LP_REC_STR(struct lp_coll_echo, intra),
	LP_REC_STR(struct lp_coll_echo, mpi_library),
	LP_REC_STR(struct lp_coll_echo, nccl_version),
	LP_REC_STR(struct lp_coll_echo, note),
	LP_REC_F64(struct lp_coll_echo, wall_s));
/* clang-format on */

static const char *node_name(const char *const *names, int n, int i, char *buf, size_t len)
{
	if (names && i >= 0 && i < n && names[i])
		return names[i];
	snprintf(buf, len, "#%d", i);
	return buf;
}

static void json_method(struct lp_json *j)
{
	lp_json_obj_begin(j, "method");
	lp_json_str(j, "conventions",
		    "nccl-tests (doc/PERFORMANCE.md): algbw = size / time; busbw = algbw x "
		    "2(n-1)/n (allreduce), (n-1)/n (allgather, reducescatter, alltoall), 1 "
		    "(broadcast, reduce, sendrecv); time per operation averaged over ranks");
	lp_json_str(j, "units", "GB/s = 1e9 bytes/s; sizes in bytes; times in us");
	lp_json_str(
		j, "ceiling",
		"the busbw the measured pair bandwidths allow a scheme, every flow at once: "
		"max(load / bandwidth) over its edges and over each rank's port (its best pair)");
	lp_json_str(
		j, "paths",
		"mpi: the MPI library's collective on host memory; ring: linkperf's ring "
		"all-reduce over MPI point-to-point in the run's order; nccl: NCCL on GPU memory; "
		"nccl-tests: imported");
	lp_json_obj_end(j);
}

/* What a measured/allowed ratio says. */
static const char *reading(const struct lp_coll_judgement *jd)
{
	if (!isfinite(jd->ratio))
		return "no ceiling: no link of it measured";
	if (jd->above)
		return "above what this scheme allows over these links: another path carried it "
		       "(NVLS, SHARP, a tree) or its links are not the ones measured";
	if (jd->at_limit)
		return "at the links' limit: the bottleneck edges hold it";
	return "below what its links allow: software, configuration or a fault that shows only "
	       "under concurrent traffic";
}

static void json_judgements(struct lp_json *j, const struct lp_coll_run *cr,
			    const char *const *names, int n)
{
	struct lp_coll_judgement jd[256];
	size_t nj = lp_coll_judge(cr, jd, LP_ARRAY_SIZE(jd));

	lp_json_arr_begin(j, "judgements");
	for (size_t i = 0; i < nj; i++) {
		char b1[16], b2[16];

		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "collective", jd[i].res->coll);
		lp_json_str(j, "path", jd[i].res->path);
		lp_json_str(j, "group", jd[i].res->group);
		lp_json_uint(j, "size", jd[i].res->size);
		lp_json_num(j, "busbw", jd[i].res->busbw);
		lp_json_str(j, "scheme", jd[i].ceil ? jd[i].ceil->scheme : NULL);
		lp_json_num(j, "allowed", jd[i].ceil ? jd[i].ceil->busbw : NAN);
		lp_json_num(j, "ratio", jd[i].ratio);
		lp_json_str(j, "reading", reading(&jd[i]));
		if (jd[i].ceil && jd[i].ceil->nbott) {
			const struct lp_coll_edge *e = &jd[i].ceil->bott[0];

			lp_json_str(j, "held_by_from", node_name(names, n, e->a, b1, sizeof(b1)));
			lp_json_str(j, "held_by_to",
				    e->b >= 0 ? node_name(names, n, e->b, b2, sizeof(b2)) : NULL);
		}
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

void lp_coll_json(struct lp_json *j, const struct lp_coll_run *cr, const char *const *names, int n)
{
	if (!cr)
		return;
	lp_json_obj_begin(j, "collectives");
	json_method(j);
	lp_json_obj_begin(j, "run");
	lp_record_json(&lp_coll_echo_record, &cr->echo, j);
	lp_json_num(j, "limit_ratio", cr->limit_ratio);
	lp_json_obj_end(j);
	lp_record_json_array(&lp_coll_result_record, cr->res, cr->nres, sizeof(*cr->res), "results",
			     j);
	lp_record_json_array(&lp_coll_ceiling_record, cr->ceil, cr->nceil, sizeof(*cr->ceil),
			     "ceilings", j);
	json_judgements(j, cr, names, n);
	lp_record_json_array(&lp_coll_verdict_record, cr->verd, cr->nverd, sizeof(*cr->verd),
			     "verdicts", j);
	lp_record_json_array(&lp_coll_claim_record, cr->claim, cr->nclaim, sizeof(*cr->claim),
			     "claims", j);
	lp_json_arr_begin(j, "imports");
	for (int i = 0; i < cr->ntopo; i++) {
		lp_json_obj_begin(j, NULL);
		lp_coll_topo_json(j, cr->topo[i]);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

/* ---- the summary ---- */

/* The #wrong column: the count, or N/A where not checked (nccl-tests -c 0), as nccl-tests prints it. */
static void wrong_text(char *buf, const struct lp_coll_result *r)
{
	if (r && r->wrong >= 0)
		snprintf(buf, 24, "%lld", (long long)r->wrong);
	else
		snprintf(buf, 24, "N/A");
}

static void summary_results(FILE *f, const struct lp_coll_run *cr)
{
	char last[96] = "", w[2][24];

	for (size_t i = 0; i < cr->nres; i++) {
		const struct lp_coll_result *r = &cr->res[i], *ip = NULL;
		char key[96], sz[32];

		if (r->in_place)
			continue;
		for (size_t k = i + 1; k < cr->nres && !ip; k++)
			if (cr->res[k].in_place && cr->res[k].size == r->size &&
			    !strcmp(cr->res[k].coll, r->coll) &&
			    !strcmp(cr->res[k].path, r->path) &&
			    !strcmp(cr->res[k].group, r->group))
				ip = &cr->res[k];
		snprintf(key, sizeof(key), "%s %s over %s (%d ranks)", r->path, r->coll, r->group,
			 r->nranks);
		if (strcmp(key, last)) {
			fprintf(f, "  %s\n    %10s %9s %8s %8s %6s | %9s %8s %8s %6s\n", key,
				"size", "time(us)", "algbw", "busbw", "#wrong", "time(us)", "algbw",
				"busbw", "#wrong");
			snprintf(last, sizeof(last), "%s", key);
		}
		lp_fmt_size(sz, sizeof(sz), r->size);
		if (r->status) {
			fprintf(f, "    %10s  failed: %s\n", sz, r->error);
			continue;
		}
		wrong_text(w[0], r);
		wrong_text(w[1], ip);
		fprintf(f, "    %10s %9.2f %8.2f %8.2f %6s | %9.2f %8.2f %8.2f %6s\n", sz,
			r->time_us, r->algbw, r->busbw, w[0], ip ? ip->time_us : NAN,
			ip ? ip->algbw : NAN, ip ? ip->busbw : NAN, w[1]);
	}
}

static void summary_limit(FILE *f, const struct lp_coll_edge *e, const char *const *names, int n)
{
	char b1[16], b2[16];

	if (!strcmp(e->limit, "edge"))
		fprintf(f, "%s -> %s (%.3g GB/s)", node_name(names, n, e->a, b1, sizeof(b1)),
			node_name(names, n, e->b, b2, sizeof(b2)), e->gbs);
	else
		fprintf(f, "%s's %s (%.3g GB/s, %.3g x S)",
			node_name(names, n, e->a, b1, sizeof(b1)), e->limit, e->gbs, e->load);
}

static void summary_ceilings(FILE *f, const struct lp_coll_run *cr, const char *const *names, int n)
{
	struct lp_coll_judgement jd[256];
	size_t nj = lp_coll_judge(cr, jd, LP_ARRAY_SIZE(jd));

	if (!cr->nceil && cr->nres)
		fprintf(f,
			"what the links allow: no ceiling: no link between these ranks was measured "
			"(a sweep with RDMA devices, or --links lp-gpu.json)\n");
	if (cr->nceil)
		fprintf(f, "what the links allow (busbw, GB/s; pair bandwidths of %s%s%s):\n",
			cr->echo.link_metric[0] ? cr->echo.link_metric : "the run",
			cr->echo.intra[0] ? ", intra-node: " : "", cr->echo.intra);
	for (size_t i = 0; i < cr->nceil; i++) {
		const struct lp_coll_ceiling *c = &cr->ceil[i];

		fprintf(f, "  %-9s %-16s %-9s %8.3g", c->coll, c->group, c->scheme, c->busbw);
		if (c->nbott) {
			fprintf(f, "  held by ");
			summary_limit(f, &c->bott[0], names, n);
			if (c->nbott > 1)
				fprintf(f, " and %u more", c->nbott - 1);
		}
		if (c->unknown)
			fprintf(f, "  (%d of %d edges not measured)", c->unknown, c->nedges);
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < nj; i++)
		if (isfinite(jd[i].ratio))
			fprintf(f, "  measured/allowed: %s %s over %s %.3g / %.3g = %.2f: %s\n",
				jd[i].res->path, jd[i].res->coll, jd[i].res->group,
				jd[i].res->busbw, jd[i].ceil->busbw, jd[i].ratio, reading(&jd[i]));
}

void lp_coll_summary(FILE *f, const struct lp_coll_run *cr, const char *const *names, int n)
{
	if (!cr)
		return;
	fprintf(f,
		"\ncollectives (nccl-tests conventions; GB/s = 1e9 B/s; out of place | in place):\n");
	summary_results(f, cr);
	if (cr->echo.note[0])
		fprintf(f, "  note: %s\n", cr->echo.note);
	summary_ceilings(f, cr, names, n);
	for (size_t i = 0; i < cr->nverd; i++) {
		const struct lp_coll_verdict *v = &cr->verd[i];

		fprintf(f, "collective verdict (%s over %s): %s", v->coll, v->group, v->kind);
		if (v->a >= 0)
			fprintf(f, " %s", v->a_name);
		if (v->b >= 0)
			fprintf(f, " -> %s", v->b_name);
		fprintf(f, ": %s (%d probes, %.1f s)\n", v->reason, v->probes, v->wall_s);
	}
	for (size_t i = 0; i < cr->nclaim; i++)
		fprintf(f, "claim %s: %s: %s\n", cr->claim[i].text, cr->claim[i].verdict,
			cr->claim[i].reason);
	for (int i = 0; i < cr->ntopo; i++)
		lp_coll_topo_summary(f, cr->topo[i]);
}
