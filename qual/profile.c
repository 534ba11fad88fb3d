// SPDX-License-Identifier: MIT
/* Profiles (profiles/README.md): read, validated key by key, matched against the hardware. */
#include "qual/internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/lp.h"
#include "common/opt.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

#define PROFILE_SCHEMA "linkperf.profile/1"

/* A number >= 0 at key, or def when absent; -1 when present but not a non-negative number. */
static double num_or(const json_t *o, const char *key, double def)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return def;
	return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

/* Every key of o is one of the NULL-terminated names: a typo is an error, not a no-op. */
static const char *unknown_key(const json_t *o, const char *const *names)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)o, key, v)
	{
		if (lp_choice_index(names, key) < 0)
			return key;
	}
	return NULL;
}

static bool match_one(const char *key, const json_t *v, const struct lp_qual_hw *hw)
{
	const char *s = json_string_value(v);
	double n = json_number_value(v);

	if (!strcmp(key, "link_layer"))
		return s && hw->link_layer && !strcasecmp(s, hw->link_layer);
	if (!strcmp(key, "speed"))
		return s && hw->speed && !strcasecmp(s, hw->speed);
	if (!strcmp(key, "gpu"))
		return s && hw->gpu_name && strcasestr(hw->gpu_name, s);
	if (!strcmp(key, "width"))
		return hw->width && n == hw->width;
	if (!strcmp(key, "rate_gbps")) /* within 1 %: sysfs says 100, verbs 100.0 or 96.97 */
		return hw->rate_gbps > 0 && fabs(hw->rate_gbps - n) <= 0.01 * n;
	if (!strcmp(key, "min_nvlinks"))
		return hw->nvlinks > 0 && hw->nvlinks >= n;
	if (!strcmp(key, "pcie_gen"))
		return hw->pcie_gen && n == hw->pcie_gen;
	return hw->pcie_width && n == hw->pcie_width; /* pcie_width (keys are checked before) */
}

static const char *const match_keys[] = { "link_layer", "speed",      "width",
					  "rate_gbps",	"gpu",	      "min_nvlinks",
					  "pcie_gen",	"pcie_width", NULL };
static const char *const profile_keys[] = {
	"schema",  "profile", "description", "match", "theoretical_gbytes_s",
	"sources", "expect",  NULL
};
static const char *const rule_keys[] = { "tests",	 "min_size",   "max_size", "min_fraction",
					 "min_gbytes_s", "max_lat_us", "source",   NULL };

static bool matches(const json_t *match, const struct lp_qual_hw *hw)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)match, key, v)
	{
		if (!match_one(key, v, hw))
			return false;
	}
	return true;
}

/* One entry of "expect": a rule per test named, each with its source's text. */
static const char *rule_add(struct lp_qual *q, const json_t *e, const json_t *doc, const char *name)
{
	const json_t *tests = json_object_get(e, "tests");
	const char *src = json_string_value(json_object_get(e, "source"));
	const char *text =
		src ? json_string_value(json_object_get(json_object_get(doc, "sources"), src))
		    : NULL;
	double frac = num_or(e, "min_fraction", 0), gbs = num_or(e, "min_gbytes_s", 0);
	double lat = num_or(e, "max_lat_us", 0), theo = num_or(doc, "theoretical_gbytes_s", 0);
	double lo = num_or(e, "min_size", 0), hi = num_or(e, "max_size", (double)UINT64_MAX);
	size_t i;
	json_t *t;

	if (!json_is_object(e) || unknown_key(e, rule_keys))
		return "an expect entry has an unknown key (or is not an object)";
	if (!json_is_array(tests) || !json_array_size(tests))
		return "an expect entry has no \"tests\" list";
	if (!text)
		return "an expect entry's \"source\" is not a key of \"sources\"";
	if (frac < 0 || frac > 1 || gbs < 0 || lat < 0 || theo < 0 || lo < 0 || hi < lo)
		return "a value is out of range (fractions 0..1, numbers >= 0, min_size <= max_size)";
	if (!!lat == !!(frac || gbs))
		return "an expect entry needs max_lat_us, or min_fraction/min_gbytes_s, not both";
	json_array_foreach(tests, i, t)
	{
		struct lp_qual_rule *r;

		if (!json_is_string(t) || strlen(json_string_value(t)) >= LP_QUAL_NAME)
			return "\"tests\" holds something other than a test name";
		r = lp_qual_rule_new(q);
		if (!r)
			return "out of memory";
		r->kind = lat ? LP_QUAL_LAT : LP_QUAL_BW;
		snprintf(r->test, sizeof(r->test), "%s", json_string_value(t));
		r->min_size = (uint64_t)lo;
		r->max_size = hi >= (double)INT64_MAX ? INT64_MAX : (uint64_t)hi;
		r->min_fraction = frac;
		r->min_gbytes_s = gbs;
		r->max_lat_us = lat;
		r->theoretical = theo;
		snprintf(r->source, sizeof(r->source), "profile %s: %s", name, text);
	}
	return NULL;
}

static const char *profile_check(const json_t *doc)
{
	const char *bad;

	if (!json_is_object(doc))
		return "not a JSON object";
	if (!json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), PROFILE_SCHEMA))
		return "\"schema\" is not \"" PROFILE_SCHEMA "\"";
	bad = unknown_key(doc, profile_keys);
	if (bad)
		return "an unknown top-level key";
	if (!json_is_string(json_object_get(doc, "profile")))
		return "no \"profile\" name";
	if (!json_is_object(json_object_get(doc, "match")) ||
	    unknown_key(json_object_get(doc, "match"), match_keys))
		return "\"match\" is missing or has an unknown key";
	if (!json_is_object(json_object_get(doc, "sources")))
		return "no \"sources\" object";
	if (!json_is_array(json_object_get(doc, "expect")))
		return "no \"expect\" list";
	return NULL;
}

int lp_qual_profile_load(struct lp_qual *q, const char *path, const struct lp_qual_hw *hw)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr), *e;
	const char *why = doc ? profile_check(doc) : jerr.text, *name;
	size_t i, len;

	if (!why && hw && !matches(json_object_get(doc, "match"), hw)) {
		json_decref(doc);
		return 0;
	}
	name = why ? NULL : json_string_value(json_object_get(doc, "profile"));
	json_array_foreach(why ? NULL : json_object_get(doc, "expect"), i, e)
	{
		why = rule_add(q, e, doc, name);
		if (why)
			break;
	}
	if (why) {
		lp_fail_set(&q->fail, -EINVAL, "profile %s: %s", path, why);
		json_decref(doc);
		return -EINVAL;
	}
	len = strlen(q->profiles);
	snprintf(q->profiles + len, sizeof(q->profiles) - len, "%s%s", len ? "," : "", name);
	json_decref(doc);
	return 1;
}

/* $LP_PROFILE_DIR, else profiles/ beside the build tree or share/linkperf/profiles installed. */
static int profile_dir(char *dir, size_t len)
{
	const char *env = getenv("LP_PROFILE_DIR");
	const char *rel[] = { "../profiles", "../share/linkperf/profiles" };
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(dir, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	for (size_t i = 0; i < LP_ARRAY_SIZE(rel); i++) {
		snprintf(dir, len, "%s/%s", exe, rel[i]);
		if (!access(dir, R_OK))
			return 0;
	}
	return -ENOENT;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int json_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

int lp_qual_profiles_auto(struct lp_qual *q, const struct lp_qual_hw *hw)
{
	struct lp_qual_hw none = { 0 };
	struct dirent **ents;
	char dir[PATH_MAX - 256], path[PATH_MAX];
	int n, err = 0, found = 0;

	if (profile_dir(dir, sizeof(dir)))
		return lp_fail_set(&q->fail, -EINVAL,
				   "--expect auto: no profile directory (set LP_PROFILE_DIR)");
	n = scandir(dir, &ents, json_name, name_cmp);
	if (n < 0)
		return lp_fail_set(&q->fail, -EINVAL, "--expect auto: %s: %s", dir,
				   strerror(errno));
	for (int i = 0; i < n; i++) {
		int rc = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (!err)
			rc = lp_qual_profile_load(q, path, hw ? hw : &none);
		err = rc < 0 ? rc : err;
		found += rc > 0;
		free(ents[i]);
	}
	free(ents);
	if (!err && !found)
		snprintf(
			q->note, sizeof(q->note),
			"no profile in %s matches (%s %s %ux, %g Gb/s; GPU %s, %d NVLinks, PCIe Gen%d x%d): only explicit floors apply",
			dir, hw && hw->link_layer ? hw->link_layer : "-",
			hw && hw->speed ? hw->speed : "-", hw ? hw->width : 0,
			hw ? hw->rate_gbps : 0, hw && hw->gpu_name ? hw->gpu_name : "-",
			hw ? hw->nvlinks : 0, hw ? hw->pcie_gen : 0, hw ? hw->pcie_width : 0);
	return err;
}

#else

int lp_qual_profile_load(struct lp_qual *q, const char *path, const struct lp_qual_hw *hw)
{
	(void)q;
	(void)hw;
	return lp_fail_set(&q->fail, -EOPNOTSUPP,
			   "profile %s: built without a JSON library (libjansson-dev)", path);
}

int lp_qual_profiles_auto(struct lp_qual *q, const struct lp_qual_hw *hw)
{
	return lp_qual_profile_load(q, "auto", hw);
}

#endif
