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

/* A row where it lands: the row and the base of its group's struct in the tool's options. */
struct bound {
	const struct lp_opt *o;
	uint8_t *base;
};

static void *dst_of(struct bound b)
{
	return b.base + b.o->off;
}

static bool is_end(const struct lp_opt *o)
{
	return !o->name && !o->shortname;
}

/* "--name" or "-c" for messages. */
static const char *spelling(const struct lp_opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->shortname);
	return buf;
}

static bool range_ok(const struct lp_opt *o, double v)
{
	if (o->min == 0 && o->max == 0)
		return true;
	return v >= o->min && v <= o->max;
}

static void range_err(const struct lp_opt *o, const char *arg)
{
	char sp[64];

	lp_err("%s %s: out of range [%.15g, %.15g]%s%s", spelling(o, sp, sizeof(sp)), arg, o->min,
	       o->max, o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

/*
 * The value parsers of set_value, one per kind of destination: 0, -EINVAL
 * (set_value says "invalid value") or -ERANGE after logging the range.
 */
static int set_unsigned(const struct lp_opt *o, void *dst, const char *arg)
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
		*(unsigned *)dst = (unsigned)u;
	else
		*(uint64_t *)dst = u;
	return 0;
}

static int set_int(const struct lp_opt *o, void *dst, const char *arg)
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
	*(int *)dst = (int)v;
	return 0;
}

static int set_double(const struct lp_opt *o, void *dst, const char *arg)
{
	double d;
	int ret = o->kind == LP_OPT_DOUBLE ? lp_parse_double(arg, &d) : lp_parse_seconds(arg, &d);

	if (ret)
		return -EINVAL;
	if (!range_ok(o, d)) {
		range_err(o, arg);
		return -ERANGE;
	}
	*(double *)dst = d;
	return 0;
}

static int set_sizes(const struct lp_opt *o, void *dst, const char *arg)
{
	struct lp_sizes *sz = dst;

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

/* "a, b, c" of a NULL-terminated list, cut to fit. */
static void choice_list(const char *const *choices, char *list, size_t len)
{
	list[0] = '\0';
	for (int i = 0; choices[i]; i++) {
		strncat(list, i ? ", " : "", len - strlen(list) - 1);
		strncat(list, choices[i], len - strlen(list) - 1);
	}
}

static int set_choice(const struct lp_opt *o, void *dst, const char *arg)
{
	int idx = lp_choice_index(o->choices, arg);
	char list[256], sp[64];

	if (idx >= 0) {
		*(int *)dst = idx;
		return 0;
	}
	choice_list(o->choices, list, sizeof(list));
	lp_err("%s %s: expected %s%s%s%s", spelling(o, sp, sizeof(sp)), arg,
	       o->choices[1] ? "one of " : "", list, o->hint ? "; " : "", o->hint ? o->hint : "");
	return -ERANGE;
}

static int set_list(const struct lp_opt *o, void *dst, const char *arg)
{
	char buf[512], list[256], sp[64];
	const char *items[64];
	int n;

	if (lp_split_list(arg, buf, sizeof(buf), items, 64, &n))
		return -EINVAL;
	for (int i = 0; o->choices && i < n; i++) {
		if (lp_choice_index(o->choices, items[i]) < 0) {
			choice_list(o->choices, list, sizeof(list));
			lp_err("%s: unknown item '%s' (%s)%s%s", spelling(o, sp, sizeof(sp)),
			       items[i], list, o->hint ? "; " : "", o->hint ? o->hint : "");
			return -ERANGE;
		}
	}
	*(const char **)dst = arg;
	return 0;
}

/* Store arg in b's destination; 0 or a negative errno after one line naming the option. */
static int set_value(struct bound b, const char *arg)
{
	const struct lp_opt *o = b.o;
	void *dst = dst_of(b);
	char sp[64];
	int ret = -EINVAL;

	switch (o->kind) {
	case LP_OPT_FLAG:
		*(bool *)dst = true;
		return 0;
	case LP_OPT_REFUSE:
		lp_err("%s: %s", spelling(o, sp, sizeof(sp)), o->help);
		return -EPERM;
	case LP_OPT_UINT:
	case LP_OPT_U64:
	case LP_OPT_SIZE:
		ret = set_unsigned(o, dst, arg);
		break;
	case LP_OPT_INT:
		ret = set_int(o, dst, arg);
		break;
	case LP_OPT_DOUBLE:
	case LP_OPT_SECONDS:
		ret = set_double(o, dst, arg);
		break;
	case LP_OPT_SIZES:
		ret = set_sizes(o, dst, arg);
		break;
	case LP_OPT_STR:
		if (*arg)
			*(const char **)dst = arg;
		ret = *arg ? 0 : -EINVAL;
		break;
	case LP_OPT_CHOICE:
		ret = set_choice(o, dst, arg);
		break;
	case LP_OPT_LIST:
		ret = set_list(o, dst, arg);
		break;
	}
	/* -ERANGE: the value's own parser said what was wrong */
	if (ret == -EINVAL)
		lp_err("%s: invalid value '%s'%s%s%s%s", spelling(o, sp, sizeof(sp)), arg,
		       o->metavar ? ", expected " : "", o->metavar ? o->metavar : "",
		       o->hint ? "; " : "", o->hint ? o->hint : "");
	return ret;
}

/* ---- the command: its rows across groups ------------------------------------------------ */

#define MAX_ROWS 256

/* Every row of a command, groups in order, each with its struct's base in obj. */
struct rows {
	struct bound r[MAX_ROWS];
	size_t n;
};

/* cmd's rows into rs; a table that names one spelling twice is a bug in the tool. 0 or -EINVAL. */
static int collect(const struct lp_opt_cmd *cmd, void *obj, struct rows *rs)
{
	rs->n = 0;
	for (const struct lp_opt_group *g = cmd->groups; g->rows; g++) {
		for (const struct lp_opt *o = g->rows; !is_end(o); o++) {
			if (rs->n == MAX_ROWS) {
				lp_err("option table: more than %d rows", MAX_ROWS);
				return -EINVAL;
			}
			for (size_t i = 0; i < rs->n; i++) {
				const struct lp_opt *p = rs->r[i].o;

				if ((o->name && p->name && !strcmp(o->name, p->name)) ||
				    (o->shortname && o->shortname == p->shortname)) {
					lp_err("option table: -%c / --%s twice",
					       o->shortname ? o->shortname : '-',
					       o->name ? o->name : "");
					return -EINVAL;
				}
			}
			rs->r[rs->n++] = (struct bound){ o, (uint8_t *)obj + g->off };
		}
	}
	return 0;
}

/* The default of o in this tool: cmd's "NAME=VALUE" where it names o, else the row's. */
static const char *default_of(const struct lp_opt_cmd *cmd, const struct lp_opt *o)
{
	size_t n = o->name ? strlen(o->name) : 0;

	for (const char *const *d = cmd->defaults; d && *d && n; d++)
		if (!strncmp(*d, o->name, n) && (*d)[n] == '=')
			return *d + n + 1;
	return o->def;
}

/* Every row's default into its destination, every set flag cleared. */
static int set_defaults(const struct lp_opt_cmd *cmd, const struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct bound b = rs->r[i];
		const char *def = default_of(cmd, b.o);

		if (b.o->set_off)
			*(bool *)(b.base + b.o->set_off - 1) = false;
		if (def && set_value(b, def)) {
			lp_err("--%s: the built-in default '%s' is invalid", b.o->name, def);
			return -EINVAL;
		}
	}
	for (const char *const *d = cmd->defaults; d && *d; d++) {
		bool found = false;

		for (size_t i = 0; i < rs->n; i++)
			found |= rs->r[i].o->name &&
				 default_of(cmd, rs->r[i].o) == strchr(*d, '=') + 1;
		if (!found) {
			lp_err("option table: a default for no option: %s", *d);
			return -EINVAL;
		}
	}
	return 0;
}

/* The row of "--name" (len bytes of it), or of "-c" when name is NULL; .o = NULL: none. */
static struct bound find(const struct rows *rs, const char *name, size_t len, char c)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct lp_opt *o = rs->r[i].o;

		if (name ? o->name && strlen(o->name) == len && !strncmp(o->name, name, len)
			 : o->shortname == c)
			return rs->r[i];
	}
	return (struct bound){ NULL, NULL };
}

/* An unknown "--name": one line, with the option it most likely meant (--size: --sizes). */
static void unknown_option(const struct rows *rs, const char *arg, size_t len)
{
	const char *name = arg + 2;

	for (size_t i = 0; i < rs->n; i++) {
		const struct lp_opt *o = rs->r[i].o;
		size_t n = o->name ? strlen(o->name) : 0;

		if (n && o->kind != LP_OPT_REFUSE && len >= 3 &&
		    !strncmp(o->name, name, LP_MIN(n, len))) {
			lp_err("unknown option '--%.*s': did you mean --%s? (see --help)", (int)len,
			       name, o->name);
			return;
		}
	}
	lp_err("unknown option '--%.*s' (see --help)", (int)len, name);
}

/* The value of option a (o's row): inline (--x=V, -xV) or the next argument. NULL: said why. */
static const char *value_of(const struct lp_opt *o, const char *inl, int *i, int argc, char **argv)
{
	char sp[64];

	if (o->kind == LP_OPT_FLAG || (o->kind == LP_OPT_REFUSE && !o->metavar)) {
		if (inl && o->kind == LP_OPT_FLAG) {
			lp_err("option %s takes no value", spelling(o, sp, sizeof(sp)));
			return NULL;
		}
		return "";
	}
	if (inl)
		return inl;
	if (*i + 1 >= argc) {
		if (o->kind == LP_OPT_REFUSE)
			return "";
		lp_err("option %s needs a value%s%s", spelling(o, sp, sizeof(sp)),
		       o->metavar ? ": " : "", o->metavar ? o->metavar : "");
		return NULL;
	}
	return argv[++*i];
}

/* One option argument a (argv[*i]): its row found and its value stored. 0 or -EINVAL. */
static int parse_one(const struct rows *rs, int *i, int argc, char **argv)
{
	const char *a = argv[*i], *inl = NULL, *val;
	struct bound b;

	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

		b = find(rs, a + 2, len, 0);
		if (!b.o) {
			unknown_option(rs, a, len);
			return -EINVAL;
		}
		inl = eq ? eq + 1 : NULL;
	} else {
		b = find(rs, NULL, 0, a[1]);
		if (!b.o) {
			lp_err("unknown option '-%c' (see --help)", a[1]);
			return -EINVAL;
		}
		inl = a[2] ? a + 2 : NULL;
	}
	val = value_of(b.o, inl, i, argc, argv);
	if (!val || set_value(b, val))
		return -EINVAL;
	if (b.o->set_off)
		*(bool *)(b.base + b.o->set_off - 1) = true;
	return 0;
}

int lp_opt_parse(const struct lp_opt_cmd *cmd, void *obj, int argc, char **argv, const char **pos,
		 int *npos_p, bool *help_p)
{
	struct rows *rs = malloc(sizeof(*rs));
	bool only_pos = false;
	int npos = 0, ret = 0;

	*help_p = false;
	*npos_p = 0;
	if (!rs)
		return -ENOMEM;
	if (collect(cmd, obj, rs) || set_defaults(cmd, rs))
		ret = -EINVAL;
	for (int i = 1; !ret && !*help_p && i < argc; i++) {
		const char *a = argv[i];

		if (only_pos || a[0] != '-' || !a[1]) {
			if (npos == cmd->max_pos) {
				lp_err("unexpected argument '%s'", a);
				ret = -EINVAL;
			} else {
				pos[npos++] = a;
			}
		} else if (!strcmp(a, "--")) {
			only_pos = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			*help_p = true;
		} else {
			ret = parse_one(rs, &i, argc, argv);
		}
	}
	free(rs);
	*npos_p = npos;
	return ret;
}

/* ---- the output group ---------------------------------------------------------------------- */

/* clang-format off */
const struct lp_opt lp_out_opt_rows[] = {
	{ .name = "json", LP_OPT_STR_AT(struct lp_out_opts, json), .metavar = "FILE",
	  .help = "write the results as one JSON document (- = stdout)" },
	{ .name = "quiet", LP_OPT_FLAG_AT(struct lp_out_opts, quiet),
	  .help = "no tables on stdout, only errors on stderr" },
	{ .name = "verbose", LP_OPT_FLAG_AT(struct lp_out_opts, verbose), .help = "log more" },
	{ 0 },
};

const struct lp_opt lp_out_version_opt_rows[] = {
	{ .name = "version", .shortname = 'V', LP_OPT_FLAG_AT(struct lp_out_opts, version),
	  .help = "print the version" },
	{ 0 },
};

const struct lp_opt lp_out_csv_opt_rows[] = {
	{ .name = "csv", LP_OPT_STR_AT(struct lp_out_opts, csv), .metavar = "FILE",
	  .help = "write the results as CSV, one line per result (- = stdout)" },
	{ 0 },
};

const struct lp_opt lp_out_schema_opt_rows[] = {
	{ .name = "json-schema", LP_OPT_FLAG_AT(struct lp_out_opts, json_schema),
	  .help = "print the JSON Schema of the --json document and exit (docs/schema/)" },
	{ 0 },
};
/* clang-format on */

/* ---- help, man page, completion ------------------------------------------------------------ */

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

/* Group g starts a section of the help: its title differs from the group before it. */
static bool new_title(const struct lp_opt_cmd *cmd, const struct lp_opt_group *g)
{
	const char *a = g->title ? g->title : "", *b = g > cmd->groups ? g[-1].title : NULL;

	return !b || strcmp(a, b);
}

/* "-p, --port PORT" in roff. */
static void man_head(FILE *f, const struct lp_opt *o)
{
	if (o->shortname)
		fprintf(f, "\\fB\\-%c\\fR%s", o->shortname, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", f);
		roff_puts(f, o->name);
		fputs("\\fR", f);
	}
	if (o->kind != LP_OPT_FLAG && (o->kind != LP_OPT_REFUSE || o->metavar)) {
		fputs(" \\fI", f);
		roff_puts(f, o->metavar ? o->metavar : "VAL");
		fputs("\\fR", f);
	}
	fputc('\n', f);
}

/* The OPTIONS section: a subsection per group, one .TP item per row, then the refused
 * spellings; then EXIT STATUS. */
static void usage_man(const struct lp_opt_cmd *cmd, FILE *f)
{
	bool refusals = false;

	fputs(".SH OPTIONS\n", f);
	for (const struct lp_opt_group *g = cmd->groups; g->rows; g++) {
		bool head = !new_title(cmd, g);

		for (const struct lp_opt *o = g->rows; !is_end(o); o++) {
			const char *def = default_of(cmd, o);

			refusals |= o->kind == LP_OPT_REFUSE;
			if (o->kind == LP_OPT_REFUSE)
				continue;
			if (!head && g->title)
				fprintf(f, ".SS %s options\n", g->title);
			head = true;
			fputs(".TP\n", f);
			man_head(f, o);
			roff_puts(f, o->help ? o->help : "");
			if (def) {
				fputs(" (default ", f);
				roff_puts(f, def);
				fputc(')', f);
			}
			fputc('\n', f);
		}
	}
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow this help\n", f);
	if (refusals) {
		fputs(".SS Refused spellings\nEach of these stops the tool with exit status 2 and "
		      "this line, rather than taking another meaning silently:\n",
		      f);
		for (const struct lp_opt_group *g = cmd->groups; g->rows; g++) {
			for (const struct lp_opt *o = g->rows; !is_end(o); o++) {
				if (o->kind != LP_OPT_REFUSE)
					continue;
				fputs(".TP\n", f);
				man_head(f, o);
				roff_puts(f, o->help);
				fputc('\n', f);
			}
		}
	}
	fputs(".SH EXIT STATUS\n", f);
	for (const struct lp_opt_exit *e = cmd->exits; e && e->meaning; e++) {
		fprintf(f, ".TP\n.B %d\n", e->code);
		roff_puts(f, e->meaning);
		fputc('\n', f);
	}
	fputs(LP_OPT_MAN_END "\n", f);
}

/* Bash completion data: the option words, then the ones that take a value. */
static void usage_bash(const struct lp_opt_cmd *cmd, FILE *f)
{
	for (int takes = 0; takes < 2; takes++) {
		fputs(takes ? "takes:" : "words:", f);
		for (const struct lp_opt_group *g = cmd->groups; g->rows; g++) {
			for (const struct lp_opt *o = g->rows; !is_end(o); o++) {
				if (o->kind == LP_OPT_REFUSE || (takes && o->kind == LP_OPT_FLAG))
					continue;
				fprintf(f, " --%s", o->name);
				if (o->shortname)
					fprintf(f, " -%c", o->shortname);
			}
		}
		fputs(takes ? "\n" : " --help -h\n", f);
	}
}

#define HELP_INDENT "                               " /* 31 columns: under the help texts */

static void usage_text(const struct lp_opt_cmd *cmd, FILE *f)
{
	fprintf(f, "usage: ");
	for (const char *s = cmd->synopsis; *s; s++)
		fprintf(f, *s == '\n' ? "\n       " : "%c", *s);
	fputc('\n', f);
	for (const struct lp_opt_group *g = cmd->groups; g->rows; g++) {
		bool head = !new_title(cmd, g);

		for (const struct lp_opt *o = g->rows; !is_end(o); o++) {
			const char *def = default_of(cmd, o);
			char h[64], sn[8] = "    ";

			if (o->kind == LP_OPT_REFUSE)
				continue;
			if (!head)
				fprintf(f, "\n%s options:\n", g->title ? g->title : "other");
			head = true;
			if (o->shortname)
				snprintf(sn, sizeof(sn), "-%c, ", o->shortname);
			snprintf(h, sizeof(h), "%s--%s%s%s", sn, o->name,
				 o->kind == LP_OPT_FLAG ? "" : " ",
				 o->kind == LP_OPT_FLAG ? "" : (o->metavar ? o->metavar : "VAL"));
			/* a head wider than its column puts the help on the next line */
			fprintf(f, "  %-28s%s%s%s%s%s\n", h,
				strlen(h) > 28 ? "\n" HELP_INDENT : " ", o->help ? o->help : "",
				def ? " (default " : "", def ? def : "", def ? ")" : "");
		}
	}
	fprintf(f, "\n  %-28s %s\n", "-h, --help", "show this help");
	if (cmd->notes)
		fprintf(f, "\n%s\n", cmd->notes);
	if (cmd->exits && cmd->exits->meaning)
		fprintf(f, "\nexit status:\n");
	for (const struct lp_opt_exit *e = cmd->exits; e && e->meaning; e++)
		fprintf(f, "  %-4d %s\n", e->code, e->meaning);
}

void lp_opt_usage(const struct lp_opt_cmd *cmd, FILE *f)
{
	const char *fmt = getenv("LP_HELP_FORMAT");

	if (fmt && !strcmp(fmt, "man"))
		usage_man(cmd, f);
	else if (fmt && !strcmp(fmt, "bash"))
		usage_bash(cmd, f);
	else
		usage_text(cmd, f);
}
