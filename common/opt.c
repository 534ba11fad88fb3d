// SPDX-License-Identifier: MIT
#include "opt.h"
#include "lp.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int lp_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int lp_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int lp_parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {
		{ "", 0 },     { "b", 0 },  { "k", 10 },   { "kib", 10 }, { "m", 20 },
		{ "mib", 20 }, { "g", 30 }, { "gib", 30 }, { "t", 40 },	  { "tib", 40 },
	};
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	for (size_t i = 0; i < LP_ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (units[i].shift && v > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		*out = (uint64_t)v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

int lp_parse_sizes(const char *s, struct lp_sizes *out)
{
	char buf[512];
	const char *items[LP_SIZES_MAX];
	const char *colon;
	int n, ret;

	out->n = 0;
	colon = strchr(s, ':');
	if (colon) {
		char lo_s[64];
		uint64_t lo, hi;

		if ((size_t)(colon - s) >= sizeof(lo_s) || strchr(s, ','))
			return -EINVAL;
		memcpy(lo_s, s, (size_t)(colon - s));
		lo_s[colon - s] = '\0';
		if ((ret = lp_parse_size(lo_s, &lo)) || (ret = lp_parse_size(colon + 1, &hi)))
			return ret;
		if (!lo || lo > hi)
			return -ERANGE;
		/* Powers of two from lo (rounded up to one) to hi inclusive. */
		for (uint64_t v = 1; v && v <= hi; v <<= 1) {
			if (v < lo)
				continue;
			if (out->n == LP_SIZES_MAX)
				return -E2BIG;
			out->v[out->n++] = v;
		}
		return out->n ? 0 : -ERANGE;
	}
	ret = lp_split_list(s, buf, sizeof(buf), items, LP_SIZES_MAX, &n);
	if (ret)
		return ret;
	for (int i = 0; i < n; i++) {
		ret = lp_parse_size(items[i], &out->v[i]);
		if (ret)
			return ret;
	}
	out->n = (unsigned)n;
	return 0;
}

int lp_parse_seconds(const char *s, double *out)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = { { "", 1 },      { "s", 1 },  { "ms", 1e-3 },
		      { "us", 1e-6 }, { "m", 60 }, { "h", 3600 } };
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(v))
		return -EINVAL;
	for (size_t i = 0; i < LP_ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*out = v * units[i].scale;
			return 0;
		}
	}
	return -EINVAL;
}

int lp_choice_index(const char *const *choices, const char *s)
{
	for (int i = 0; choices && choices[i]; i++)
		if (!strcmp(choices[i], s))
			return i;
	return -1;
}

int lp_split_list(const char *s, char *buf, size_t len, const char **items, int max, int *n_p)
{
	char *save = NULL, *tok;
	int n = 0;

	if (strlen(s) >= len)
		return -E2BIG;
	strcpy(buf, s);
	/* Reject empty items ("a,,b", trailing comma): strtok would hide them. */
	if (!*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return -EINVAL;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			return -E2BIG;
		items[n++] = tok;
	}
	*n_p = n;
	return 0;
}

static bool range_ok(const struct lp_opt *o, double v)
{
	if (o->min == 0 && o->max == 0)
		return true;
	return v >= o->min && v <= o->max;
}

static void range_err(const struct lp_opt *o, const char *arg)
{
	lp_err("--%s %s: out of range [%.15g, %.15g]%s%s", o->name, arg, o->min, o->max,
	       o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

/*
 * The value parsers of set_value, one per kind of destination: 0, -EINVAL
 * (set_value says "invalid value") or -ERANGE after logging the range.
 */
static int set_unsigned(const struct lp_opt *o, const char *arg)
{
	uint64_t u;
	int ret = o->kind == LP_OPT_SIZE ? lp_parse_size(arg, &u) : lp_parse_u64(arg, &u);

	if (ret)
		return -EINVAL;
	if (!range_ok(o, (double)u) || (o->kind == LP_OPT_UINT && u > UINT32_MAX)) {
		range_err(o, arg);
		return -ERANGE;
	}
	if (o->kind == LP_OPT_UINT)
		*(unsigned *)o->dst = (unsigned)u;
	else
		*(uint64_t *)o->dst = u;
	return 0;
}

static int set_int(const struct lp_opt *o, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (!*arg || *end || errno)
		return -EINVAL;
	if (!range_ok(o, (double)v) || v < INT32_MIN || v > INT32_MAX) {
		range_err(o, arg);
		return -ERANGE;
	}
	*(int *)o->dst = (int)v;
	return 0;
}

static int set_double(const struct lp_opt *o, const char *arg)
{
	double d;
	int ret = o->kind == LP_OPT_DOUBLE ? lp_parse_double(arg, &d) : lp_parse_seconds(arg, &d);

	if (ret)
		return -EINVAL;
	if (!range_ok(o, d)) {
		range_err(o, arg);
		return -ERANGE;
	}
	*(double *)o->dst = d;
	return 0;
}

static int set_sizes(const struct lp_opt *o, const char *arg)
{
	struct lp_sizes *sz = o->dst;

	if (lp_parse_sizes(arg, sz))
		return -EINVAL;
	for (unsigned i = 0; i < sz->n; i++) {
		if (!range_ok(o, (double)sz->v[i])) {
			range_err(o, arg);
			return -ERANGE;
		}
	}
	return 0;
}

static int set_choice(const struct lp_opt *o, const char *arg)
{
	int idx = lp_choice_index(o->choices, arg);
	char list[256] = "";

	if (idx >= 0) {
		*(int *)o->dst = idx;
		return 0;
	}
	for (int i = 0; o->choices[i]; i++) {
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, o->choices[i], sizeof(list) - strlen(list) - 1);
	}
	lp_err("--%s %s: expected one of %s", o->name, arg, list);
	return -ERANGE;
}

static int set_list(const struct lp_opt *o, const char *arg)
{
	char buf[512];
	const char *items[64];
	int n;

	if (lp_split_list(arg, buf, sizeof(buf), items, 64, &n))
		return -EINVAL;
	for (int i = 0; o->choices && i < n; i++) {
		if (lp_choice_index(o->choices, items[i]) < 0) {
			lp_err("--%s: unknown item '%s'", o->name, items[i]);
			return -ERANGE;
		}
	}
	*(const char **)o->dst = arg;
	return 0;
}

/* Store arg in o's destination; 0 or a negative errno after one line naming the option. */
static int set_value(const struct lp_opt *o, const char *arg)
{
	int ret = -EINVAL;

	switch (o->kind) {
	case LP_OPT_FLAG:
		*(bool *)o->dst = true;
		return 0;
	case LP_OPT_UINT:
	case LP_OPT_U64:
	case LP_OPT_SIZE:
		ret = set_unsigned(o, arg);
		break;
	case LP_OPT_INT:
		ret = set_int(o, arg);
		break;
	case LP_OPT_DOUBLE:
	case LP_OPT_SECONDS:
		ret = set_double(o, arg);
		break;
	case LP_OPT_SIZES:
		ret = set_sizes(o, arg);
		break;
	case LP_OPT_STR:
		if (*arg)
			*(const char **)o->dst = arg;
		ret = *arg ? 0 : -EINVAL;
		break;
	case LP_OPT_CHOICE:
		ret = set_choice(o, arg);
		break;
	case LP_OPT_LIST:
		ret = set_list(o, arg);
		break;
	}
	/* -ERANGE: the value's own parser said what was wrong */
	if (ret == -EINVAL)
		lp_err("--%s: invalid value '%s'%s%s", o->name, arg,
		       o->metavar ? ", expected " : "", o->metavar ? o->metavar : "");
	return ret;
}

/* Every row's default into its destination, every set flag cleared. */
static int set_defaults(const struct lp_opt *tab)
{
	for (const struct lp_opt *o = tab; o->name; o++) {
		if (o->set)
			*o->set = false;
		if (o->def && set_value(o, o->def)) {
			lp_err("--%s: the built-in default '%s' is invalid", o->name, o->def);
			return -EINVAL;
		}
	}
	return 0;
}

static const struct lp_opt *find_long(const struct lp_opt *tab, const char *name, size_t len)
{
	for (const struct lp_opt *o = tab; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct lp_opt *find_short(const struct lp_opt *tab, char c)
{
	for (const struct lp_opt *o = tab; o->name; o++)
		if (o->shortname && o->shortname == c)
			return o;
	return NULL;
}

int lp_opt_parse(const struct lp_opt *tab, int argc, char **argv, const char **pos, int max_pos,
		 int *npos_p, bool *help_p)
{
	int npos = 0;
	bool only_pos = false;

	*help_p = false;
	if (set_defaults(tab))
		return -EINVAL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct lp_opt *o;

		if (only_pos || a[0] != '-' || !a[1]) {
			if (npos == max_pos) {
				lp_err("unexpected argument '%s'", a);
				return -EINVAL;
			}
			pos[npos++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			*help_p = true;
			return 0;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			o = find_long(tab, a + 2, len);
			if (eq)
				val = eq + 1;
		} else {
			o = find_short(tab, a[1]);
			if (o && a[2])
				val = a + 2;
		}
		if (!o) {
			lp_err("unknown option '%s' (see --help)", a);
			return -EINVAL;
		}
		if (o->kind == LP_OPT_FLAG) {
			if (val) {
				lp_err("option --%s takes no value", o->name);
				return -EINVAL;
			}
		} else if (!val) {
			if (i + 1 >= argc) {
				lp_err("option --%s needs a value%s%s", o->name,
				       o->metavar ? ": " : "", o->metavar ? o->metavar : "");
				return -EINVAL;
			}
			val = argv[++i];
		}
		if (set_value(o, val))
			return -EINVAL;
		if (o->set)
			*o->set = true;
	}
	*npos_p = npos;
	return 0;
}

/* Roff text: backslashes and minus signs escaped, a leading dot or quote made literal. */
static void roff_puts(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* The OPTIONS section of a man page: one .TP item per row, then -h/--help. */
static void usage_man(FILE *f, const struct lp_opt *tab)
{
	fputs(".SH OPTIONS\n", f);
	for (const struct lp_opt *o = tab; o->name; o++) {
		fputs(".TP\n", f);
		if (o->shortname)
			fprintf(f, "\\fB\\-%c\\fR, ", o->shortname);
		fputs("\\fB\\-\\-", f);
		roff_puts(f, o->name);
		fputs("\\fR", f);
		if (o->kind != LP_OPT_FLAG) {
			fputs(" \\fI", f);
			roff_puts(f, o->metavar ? o->metavar : "VAL");
			fputs("\\fR", f);
		}
		fputc('\n', f);
		roff_puts(f, o->help ? o->help : "");
		if (o->def) {
			fputs(" (default ", f);
			roff_puts(f, o->def);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow this help\n", f);
	fputs(LP_OPT_MAN_END "\n", f);
}

/* Bash completion data: the option words, then the ones that take a value. */
static void usage_bash(FILE *f, const struct lp_opt *tab)
{
	for (int takes = 0; takes < 2; takes++) {
		fputs(takes ? "takes:" : "words:", f);
		for (const struct lp_opt *o = tab; o->name; o++) {
			if (takes && o->kind == LP_OPT_FLAG)
				continue;
			fprintf(f, " --%s", o->name);
			if (o->shortname)
				fprintf(f, " -%c", o->shortname);
		}
		fputs(takes ? "\n" : " --help -h\n", f);
	}
}

void lp_opt_usage(FILE *f, const char *synopsis, const struct lp_opt *tab)
{
	const char *fmt = getenv("LP_HELP_FORMAT");

	if (fmt && !strcmp(fmt, "man")) {
		usage_man(f, tab);
		return;
	}
	if (fmt && !strcmp(fmt, "bash")) {
		usage_bash(f, tab);
		return;
	}
	fprintf(f, "usage: %s\n\noptions:\n", synopsis);
	for (const struct lp_opt *o = tab; o->name; o++) {
		char head[64], sn[8] = "    ";

		if (o->shortname)
			snprintf(sn, sizeof(sn), "-%c, ", o->shortname);
		snprintf(head, sizeof(head), "%s--%s%s%s", sn, o->name,
			 o->kind == LP_OPT_FLAG ? "" : " ",
			 o->kind == LP_OPT_FLAG ? "" : (o->metavar ? o->metavar : "VAL"));
		fprintf(f, "  %-28s %s%s%s%s\n", head, o->help ? o->help : "",
			o->def ? " (default " : "", o->def ? o->def : "", o->def ? ")" : "");
	}
	fprintf(f, "  %-28s %s\n", "-h, --help", "show this help");
}
