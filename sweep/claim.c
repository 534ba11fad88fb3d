// SPDX-License-Identifier: MIT
/*
 * Claims checked against the links (docs/METHOD.md, "Claims"): a quoted
 * all-reduce busbw, a data-parallel scaling efficiency, or the share of a
 * training step spent in AllReduce, each turned into the busbw it implies and
 * held against the best ring or tree these links allow, and against
 * in-network reduction's (SHARP, NVLS: each rank sends and receives S once).
 */
#include "sweep/coll.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/lp.h"
#include "common/opt.h"

const char *const lp_coll_claim_names[] = { "busbw", "efficiency", "share", NULL };
const char *const lp_coll_claim_verdict_names[] = { "deliverable", "needs_innet", "not_deliverable",
						    "unknown", NULL };

/* "14GB" (1e9), "2GiB" (2^30), "512MB", "1e9", "100": bytes. */
static int parse_bytes(const char *s, double *out)
{
	static const struct {
		const char *suf;
		double mul;
	} sufs[] = { { "", 1 },
		     { "B", 1 },
		     { "K", 1e3 },
		     { "KB", 1e3 },
		     { "M", 1e6 },
		     { "MB", 1e6 },
		     { "G", 1e9 },
		     { "GB", 1e9 },
		     { "T", 1e12 },
		     { "TB", 1e12 },
		     { "KiB", 1024.0 },
		     { "MiB", 1048576.0 },
		     { "GiB", 1073741824.0 },
		     { "TiB", 1099511627776.0 } };
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < LP_ARRAY_SIZE(sufs); i++)
		if (!strcmp(end, sufs[i].suf)) {
			*out = v * sufs[i].mul;
			return 0;
		}
	return -EINVAL;
}

/* "380GB/s" (GB/s by default), "3040Gb/s": GB/s. */
static int parse_rate(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	if (!*end || !strcmp(end, "GB/s") || !strcmp(end, "GBps"))
		*out = v;
	else if (!strcmp(end, "Gb/s") || !strcmp(end, "Gbps"))
		*out = v / 8;
	else
		return -EINVAL;
	return 0;
}

/* "0.95", "95%": a fraction in (0, 1]. */
static int parse_fraction(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "%"))
		v /= 100;
	else if (*end)
		return -EINVAL;
	if (!(v > 0 && v <= 1))
		return -ERANGE;
	*out = v;
	return 0;
}

/* "8", "8n", "8nodes": a node count >= 2. */
static int parse_nodes(const char *s, int32_t *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || (*end && strcmp(end, "n") && strcmp(end, "nodes")) || v < 2 || v > 1 << 24)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

/* One "key=value" after the first: compute, step, bytes, nodes. */
static int parse_extra(struct lp_coll_claim *c, const char *key, const char *val,
		       struct lp_fail *fail)
{
	int rc = -EINVAL;

	if (!strcmp(key, "compute"))
		rc = lp_parse_seconds(val, &c->compute_s);
	else if (!strcmp(key, "step"))
		rc = lp_parse_seconds(val, &c->step_s);
	else if (!strcmp(key, "bytes"))
		rc = parse_bytes(val, &c->bytes);
	else if (!strcmp(key, "nodes"))
		rc = parse_nodes(val, &c->nodes);
	else
		return lp_fail_set(fail, -EINVAL, "unknown item '%s' (compute, step, bytes, nodes)",
				   key);
	return rc ? lp_fail_set(fail, -EINVAL, "%s=%s: not a valid value", key, val) : 0;
}

/* What each kind needs besides its value. */
static int check_complete(const struct lp_coll_claim *c, struct lp_fail *fail)
{
	if (!strcmp(c->kind, "efficiency") && (!(c->compute_s > 0) || !(c->bytes > 0)))
		return lp_fail_set(fail, -EINVAL,
				   "efficiency needs compute=SECS and bytes=SIZE (per step)");
	if (!strcmp(c->kind, "share") && (!(c->step_s > 0) || !(c->bytes > 0)))
		return lp_fail_set(fail, -EINVAL,
				   "share needs step=SECS and bytes=SIZE (per step)");
	return 0;
}

static int parse_value(struct lp_coll_claim *c, int kind, char *val, struct lp_fail *fail)
{
	char *at = strchr(val, '@');
	int rc;

	if (at) {
		*at++ = 0;
		if (parse_nodes(at, &c->nodes))
			return lp_fail_set(fail, -EINVAL,
					   "'@%s': expected a node count (8, 8n, 8nodes; >= 2)",
					   at);
	}
	if (kind == LP_COLL_CLAIM_BUSBW)
		rc = parse_rate(val, &c->value);
	else
		rc = parse_fraction(val, &c->value);
	if (rc)
		return lp_fail_set(fail, -EINVAL, "%s=%s: expected %s", lp_coll_claim_names[kind],
				   val,
				   kind == LP_COLL_CLAIM_BUSBW ? "a rate (380GB/s, 3040Gb/s)"
							       : "a fraction (0.95 or 95%)");
	return 0;
}

int lp_coll_claim_parse(const char *s, struct lp_coll_claim *c, struct lp_fail *fail)
{
	char buf[256], *save = NULL, *item;
	int kind = -1, rc = 0;

	memset(c, 0, sizeof(*c));
	c->need_busbw = c->allowed = c->allowed_innet = c->measured = NAN;
	if (!s || strlen(s) >= sizeof(buf) || strlen(s) >= sizeof(c->text))
		return lp_fail_set(fail, -EINVAL, "a claim of 1 to %zu characters expected",
				   sizeof(c->text) - 1);
	snprintf(c->text, sizeof(c->text), "%s", s);
	snprintf(buf, sizeof(buf), "%s", s);
	for (item = strtok_r(buf, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');

		if (!eq)
			return lp_fail_set(fail, -EINVAL, "'%s': expected key=value", item);
		*eq++ = 0;
		if (kind < 0) {
			kind = lp_choice_index(lp_coll_claim_names, item);
			if (kind < 0)
				return lp_fail_set(
					fail, -EINVAL,
					"'%s': a claim starts with busbw=, efficiency= or share=",
					item);
			snprintf(c->kind, sizeof(c->kind), "%s", lp_coll_claim_names[kind]);
			rc = parse_value(c, kind, eq, fail);
		} else {
			rc = parse_extra(c, item, eq, fail);
		}
	}
	if (kind < 0)
		return lp_fail_set(fail, -EINVAL, "an empty claim");
	return rc ? rc : check_complete(c, fail);
}

/* ---- judging ---- */

/* Bytes an all-reduce of `bytes` moves per rank's link over busbw: its time at busbw. */
static double allreduce_s(double bytes, int n, double busbw)
{
	return lp_coll_factor(LP_COLL_ALLREDUCE, n) * bytes / 1e9 / busbw;
}

/* The best ring or tree ceiling of the all-reduce over "all"; *how_p: its scheme and bottleneck. */
static double best_allowed(const struct lp_coll_run *cr, const struct lp_coll_ceiling **how_p)
{
	static const int schemes[] = { LP_COLL_SCHEME_RING, LP_COLL_SCHEME_RING_BEST,
				       LP_COLL_SCHEME_TREE, LP_COLL_SCHEME_RAILS };
	double best = NAN;

	*how_p = NULL;
	for (size_t i = 0; i < LP_ARRAY_SIZE(schemes); i++) {
		const struct lp_coll_ceiling *c = lp_coll_run_ceiling(
			cr, "allreduce", lp_coll_scheme_names[schemes[i]], "all");

		if (c && c->busbw > 0 && !(c->busbw <= best)) {
			best = c->busbw;
			*how_p = c;
		}
	}
	return best;
}

static double best_measured(const struct lp_coll_run *cr)
{
	double best = NAN;

	for (size_t i = 0; i < cr->nres; i++)
		if (!strcmp(cr->res[i].coll, "allreduce") && !strcmp(cr->res[i].group, "all") &&
		    !cr->res[i].status && cr->res[i].busbw > 0 && !(cr->res[i].busbw <= best))
			best = cr->res[i].busbw;
	return best;
}

/* The busbw the claim implies at n ranks; *extra: words on overlap for efficiency claims. */
static double implied(const struct lp_coll_claim *c, int n, char *extra, size_t len)
{
	double f = lp_coll_factor(LP_COLL_ALLREDUCE, n);

	extra[0] = 0;
	if (!strcmp(c->kind, "busbw"))
		return c->value;
	if (!strcmp(c->kind, "share"))
		return f * c->bytes / 1e9 / (c->value * c->step_s);
	/* efficiency e = compute / (compute + exposed all-reduce time) */
	snprintf(extra, len,
		 " (with the all-reduce wholly hidden behind compute it needs only %.3g GB/s)",
		 f * c->bytes / 1e9 / (c->compute_s / c->value));
	if (c->value >= 1)
		return INFINITY; /* linear speed-up with an exposed all-reduce: never */
	return f * c->bytes / 1e9 / (c->compute_s * (1 / c->value - 1));
}

static void set_verdict(struct lp_coll_claim *c, enum lp_coll_claim_verdict v)
{
	snprintf(c->verdict, sizeof(c->verdict), "%s", lp_coll_claim_verdict_names[v]);
}

void lp_coll_claim_judge(struct lp_coll_claim *c, const struct lp_coll_run *cr)
{
	const struct lp_coll_ceiling *how;
	const struct lp_coll_ceiling *innet = lp_coll_run_ceiling(cr, "allreduce", "innet", "all");
	int run_n = 0, n;
	char extra[160], where[200] = "", est[160] = "";
	size_t len;

	c->allowed = best_allowed(cr, &how);
	c->allowed_innet = innet ? innet->busbw : NAN;
	c->measured = best_measured(cr);
	run_n = how ? how->nranks : innet ? innet->nranks : 0;
	n = c->nodes > 0 ? c->nodes : run_n;
	c->need_busbw = implied(c, LP_MAX(n, 2), extra, sizeof(extra));
	if (!(c->allowed > 0)) {
		set_verdict(c, LP_COLL_CLAIM_UNKNOWN);
		snprintf(c->reason, sizeof(c->reason),
			 "needs %.3g GB/s all-reduce busbw; no ceiling: no link of the run was "
			 "measured%s",
			 c->need_busbw, extra);
		return;
	}
	if (how->nbott)
		snprintf(where, sizeof(where), ", held by %s%s%s (%.3g GB/s)",
			 how->bott[0].a_name[0] ? how->bott[0].a_name : "?",
			 how->bott[0].b >= 0 ? " -> " : "'s port",
			 how->bott[0].b >= 0 ? how->bott[0].b_name : "", how->bott[0].gbs);
	if (n > run_n)
		snprintf(est, sizeof(est),
			 "; at %d nodes, an estimate from these %d: a ring over more edges has no "
			 "faster slowest edge",
			 n, run_n);
	if (c->need_busbw <= c->allowed)
		set_verdict(c, LP_COLL_CLAIM_DELIVERABLE);
	else if (c->need_busbw <= c->allowed_innet)
		set_verdict(c, LP_COLL_CLAIM_NEEDS_INNET);
	else
		set_verdict(c, LP_COLL_CLAIM_NOT_DELIVERABLE);
	len = (size_t)snprintf(c->reason, sizeof(c->reason),
			       "needs %.3g GB/s all-reduce busbw; these links allow %.3g (%s%s)%s, "
			       "%.3g with in-network reduction",
			       c->need_busbw, c->allowed, how->scheme, where, est,
			       c->allowed_innet);
	if (len < sizeof(c->reason) && isfinite(c->measured))
		len += (size_t)snprintf(c->reason + len, sizeof(c->reason) - len,
					"; measured here: %.3g", c->measured);
	if (len < sizeof(c->reason) && !strcmp(c->kind, "share") && c->bytes > 0)
		snprintf(c->reason + len, sizeof(c->reason) - len,
			 "; at the ceiling the all-reduce takes %.3g s, %.1f %% of the step",
			 allreduce_s(c->bytes, LP_MAX(n, 2), c->allowed),
			 100 * allreduce_s(c->bytes, LP_MAX(n, 2), c->allowed) / c->step_s);
	else if (len < sizeof(c->reason))
		snprintf(c->reason + len, sizeof(c->reason) - len, "%s", extra);
}
