// SPDX-License-Identifier: MIT
/* Expected values: floors from the options, rules from profiles, and the PASS/FAIL of a cell. */
#include "qual/internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/lp.h"
#include "common/opt.h"
#include "common/table.h"

const char *const lp_qual_verdict_names[] = { "none", "PASS", "FAIL", NULL };

bool lp_qual_wanted(const struct lp_qual_opts *o)
{
	return o->expect || o->min_gbps || o->min_gbytes_s || o->max_lat_us || o->baseline ||
	       o->prom;
}

int lp_qual_parse_gbps(const char *s, double *gbytes_s_p)
{
	char num[64];
	size_t n = strcspn(s, "GgB");
	double v;

	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (lp_parse_double(num, &v) || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!s[n] || !strcmp(s + n, "Gb/s") || !strcmp(s + n, "Gbps"))
		*gbytes_s_p = v / 8;
	else if (!strcmp(s + n, "GB/s") || !strcmp(s + n, "GBps"))
		*gbytes_s_p = v;
	else
		return -EINVAL;
	return 0;
}

struct lp_qual_rule *lp_qual_rule_new(struct lp_qual *q)
{
	struct lp_qual_rule *r = realloc(q->rules, (q->nrules + 1) * sizeof(*r));

	if (!r)
		return NULL;
	q->rules = r;
	r += q->nrules++;
	memset(r, 0, sizeof(*r));
	r->max_size = INT64_MAX; /* JSON readers take integers up to 2^63 - 1 */
	return r;
}

/* "V" or "TEST=V,TEST=V" for one kind of floor; per-test rows go before the global one. */
static int floors_parse(struct lp_qual *q, const char *spec, enum lp_qual_kind kind,
			const char *opt)
{
	bool bytes = !strcmp(opt, "min-gbytes-s");
	char buf[512];
	const char *items[32];
	int n, err;

	if (!spec)
		return 0;
	err = lp_split_list(spec, buf, sizeof(buf), items, (int)LP_ARRAY_SIZE(items), &n);
	for (int pass = 0; !err && pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			const char *eq = strchr(items[i], '='), *val = eq ? eq + 1 : items[i];
			struct lp_qual_rule *r;
			double v;

			if (!!eq != (pass == 0))
				continue;
			if (eq && (eq == items[i] || (size_t)(eq - items[i]) >= LP_QUAL_NAME))
				goto bad;
			if (kind == LP_QUAL_BW ? lp_qual_parse_gbps(val, &v)
					       : lp_parse_double(val, &v) || !isfinite(v) || v <= 0)
				goto bad;
			if (bytes &&
			    !strpbrk(val, "GgB")) /* --min-gbytes-s: a plain number is GB/s */
				v *= 8;
			r = lp_qual_rule_new(q);
			if (!r)
				return -ENOMEM;
			r->floor = true;
			r->kind = kind;
			if (eq)
				snprintf(r->test, sizeof(r->test), "%.*s", (int)(eq - items[i]),
					 items[i]);
			if (kind == LP_QUAL_BW)
				r->min_gbytes_s = v;
			else
				r->max_lat_us = v;
			snprintf(r->source, sizeof(r->source), "--%s %s", opt, items[i]);
		}
	}
	if (err)
		goto bad;
	return 0;
bad:
	return lp_fail_set(&q->fail, -EINVAL, "--%s %s: want V or TEST=V,... (%s)", opt, spec,
			   kind == LP_QUAL_LAT ? "microseconds"
			   : bytes	       ? "GB/s, or Gb/s with that suffix"
					       : "Gb/s, or GB/s with that suffix");
}

double lp_qual_floor(const struct lp_qual *q, enum lp_qual_kind kind)
{
	for (size_t i = 0; i < q->nrules; i++) {
		const struct lp_qual_rule *r = &q->rules[i];

		if (r->floor && r->kind == kind && !r->test[0])
			return kind == LP_QUAL_BW ? r->min_gbytes_s : r->max_lat_us;
	}
	return NAN;
}

/* A rule applies to the cell: same kind, its test (or every test), the size in range. */
static bool rule_fits(const struct lp_qual_rule *r, const struct lp_qual_cell *c)
{
	return r->kind == c->kind && (!r->test[0] || !strcmp(r->test, c->test)) &&
	       c->size >= r->min_size && c->size <= r->max_size;
}

/* The limit a rule sets for a cell: the stricter of the fraction of the ceiling and the GB/s. */
static double rule_limit(const struct lp_qual_rule *r, const struct lp_qual_cell *c)
{
	double ceiling = c->ceiling > 0 ? c->ceiling : r->theoretical;
	double lim = r->min_gbytes_s;

	if (c->kind == LP_QUAL_LAT)
		return r->max_lat_us + (c->allowance > 0 ? c->allowance : 0);
	if (r->min_fraction > 0 && ceiling > 0)
		lim = LP_MAX(lim, r->min_fraction * ceiling);
	return lim;
}

/* Floors win over profiles, a per-test floor over a global one (the order of q->rules). */
static const struct lp_qual_rule *rule_find(const struct lp_qual *q, const struct lp_qual_cell *c)
{
	for (size_t i = 0; i < q->nrules; i++)
		if (rule_fits(&q->rules[i], c) && rule_limit(&q->rules[i], c) > 0)
			return &q->rules[i];
	return NULL;
}

void lp_qual_cell_judge(const struct lp_qual *q, struct lp_qual_cell *c)
{
	const struct lp_qual_rule *r = rule_find(q, c);

	c->verdict = LP_QUAL_NONE;
	c->limit = c->margin = NAN;
	c->source = NULL;
	c->rule = -1;
	if (!r)
		return;
	c->limit = rule_limit(r, c);
	c->source = r->source;
	c->rule = (int)(r - q->rules);
	c->margin = (c->kind == LP_QUAL_BW ? c->value - c->limit : c->limit - c->value) / c->limit;
	c->verdict = isfinite(c->margin) && c->margin >= 0 ? LP_QUAL_PASS : LP_QUAL_FAIL;
}

int lp_qual_hw_from_sysfs(const char *root, const char *dev, int port, struct lp_qual_hw *hw,
			  char *buf, size_t len)
{
	char path[PATH_MAX], line[128], x[8] = "", speed[16] = "";
	const char *names[] = { "link_layer", "rate" };
	double gbps;
	unsigned width = 0;

	if (len < 64)
		return -EINVAL;
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/%d/%s", root, dev,
			 port, names[i]);
		f = fopen(path, "r");
		if (!f)
			return -ENOENT;
		if (!fgets(line, sizeof(line), f)) {
			fclose(f);
			return -EINVAL;
		}
		fclose(f);
		line[strcspn(line, "\n")] = '\0';
		if (i == 0)
			snprintf(buf, len / 2, "%s", line);
	}
	/* "400 Gb/sec (4X NDR)"; Ethernet ports report an IB speed name that means nothing. */
	if (sscanf(line, "%lf Gb/sec (%u%7[X] %15[A-Z])", &gbps, &width, x, speed) < 1)
		return -EINVAL;
	memset(hw, 0, sizeof(*hw));
	snprintf(buf + len / 2, len - len / 2, "%s", speed);
	hw->rdma_dev = dev;
	hw->link_layer = buf;
	hw->speed = buf + len / 2;
	hw->width = width;
	hw->rate_gbps = gbps;
	return 0;
}

/* Software RDMA (rxe = Soft-RoCE, siw = soft iWARP) has no link rate worth a profile. */
static bool hw_is_soft(const struct lp_qual_hw *hw)
{
	return hw->rdma_dev &&
	       (!strncmp(hw->rdma_dev, "rxe", 3) || !strncmp(hw->rdma_dev, "siw", 3));
}

int lp_qual_setup(struct lp_qual *q, const char *tool, const struct lp_qual_opts *o,
		  const struct lp_qual_hw *hw)
{
	int err;

	memset(q, 0, sizeof(*q));
	q->opts = *o;
	if (!(q->opts.regress_pct > 0))
		q->opts.regress_pct = LP_QUAL_REGRESS_PCT;
	if (!(q->opts.noise_k > 0))
		q->opts.noise_k = LP_QUAL_NOISE_K;
	snprintf(q->tool, sizeof(q->tool), "%s", tool);
	snprintf(q->expect, sizeof(q->expect), "%s", o->expect ? o->expect : "");
	snprintf(q->base_file, sizeof(q->base_file), "%s", o->baseline ? o->baseline : "");
	for (char **a = o->argv; a && *a; a++)
		lp_strcatf(q->command, sizeof(q->command), "%s%s", a == o->argv ? "" : " ", *a);
	q->verdict = "NONE";
	err = floors_parse(q, o->min_gbps, LP_QUAL_BW, "min-gbps");
	if (!err)
		err = floors_parse(q, o->min_gbytes_s, LP_QUAL_BW, "min-gbytes-s");
	if (!err)
		err = floors_parse(q, o->max_lat_us, LP_QUAL_LAT, "max-lat-us");
	if (!err && o->baseline)
		err = lp_qual_doc_cells(o->baseline, &q->base, &q->nbase, &q->fail);
	if (!err && o->expect && strcmp(o->expect, "auto")) {
		err = lp_qual_profile_load(q, o->expect, NULL);
		return err < 0 ? err : 0;
	}
	if (!err && hw)
		err = lp_qual_auto(q, hw);
	return err;
}

int lp_qual_auto(struct lp_qual *q, const struct lp_qual_hw *hw)
{
	if (!q->opts.expect || strcmp(q->opts.expect, "auto"))
		return 0;
	if (hw_is_soft(hw)) {
		snprintf(
			q->note, sizeof(q->note),
			"%s is software RDMA (Soft-RoCE/siw): no meaningful profile, only explicit floors apply",
			hw->rdma_dev);
		return 0;
	}
	return lp_qual_profiles_auto(q, hw);
}

void lp_qual_free(struct lp_qual *q)
{
	free(q->rules);
	free(q->base);
	free(q->cells);
	free(q->missing);
	free(q->dist);
	memset(q, 0, sizeof(*q));
}
