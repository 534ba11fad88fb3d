/* SPDX-License-Identifier: MIT */
/*
 * Declarative command-line options: one table row per option holds its names,
 * kind, destination, allowed range, unit and help, so parsing, validation and
 * --help come from one place. Values are checked completely (no trailing
 * junk, range enforced); every error is one line naming the option.
 *
 * Numbers accept size suffixes where the kind is LP_OPT_SIZE: K/M/G/T (also
 * KiB/MiB/GiB/TiB, any case) are powers of 1024; a plain number is bytes.
 *
 * A row declares its default (`def`, as it would be written on the command
 * line: parsed into dst before argv, printed by --help, the man page) and can
 * record whether the option was given (`set`), so that a caller never needs a
 * sentinel value to tell "not given" from a value. A default that depends on
 * something else (the test kind, another option) is said in the help text and
 * the row has no `def`.
 */
#ifndef LP_OPT_H
#define LP_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LP_SIZES_MAX 64

/* A list of message sizes in bytes, ascending as given. */
struct lp_sizes {
	unsigned n;
	uint64_t v[LP_SIZES_MAX];
};

enum lp_opt_kind {
	LP_OPT_FLAG,	/* bool *, no argument */
	LP_OPT_UINT,	/* unsigned *, decimal or 0x hex, range [min,max] */
	LP_OPT_U64,	/* uint64_t * */
	LP_OPT_INT,	/* int * */
	LP_OPT_DOUBLE,	/* double * */
	LP_OPT_SIZE,	/* uint64_t *, with size suffixes */
	LP_OPT_SIZES,	/* struct lp_sizes *: "4K", "2:8M" (powers of two), "64,4K,1M" */
	LP_OPT_SECONDS, /* double * seconds: "10", "2.5s", "500ms", "2m" */
	LP_OPT_STR,	/* const char ** (points into argv) */
	LP_OPT_CHOICE,	/* int *: index of the argument in the NULL-terminated `choices` */
	LP_OPT_LIST, /* const char **: comma list kept as given, each item checked against `choices` if set */
};

struct lp_opt {
	const char *name; /* long name without "--" */
	char shortname;	  /* 0 for none */
	enum lp_opt_kind kind;
	void *dst;
	double min, max;	    /* inclusive range for numbers; both 0 = unchecked */
	const char *const *choices; /* for CHOICE and LIST */
	const char *metavar;	    /* e.g. "SIZE" */
	const char *help;	    /* one line, without the default when `def` gives it */
	const char *def; /* the default as command-line text, or NULL (dst keeps its value) */
	bool *set;	 /* if not NULL: false, then true when the option is given */
};

/*
 * Parse argv[1..] against tab (terminated by a row with name == NULL). First
 * every row's `def` is stored in its dst and its `set` flag cleared.
 * "--help"/"-h" sets *help_p and returns 0. Positional arguments are moved to
 * the front of pos[] (at most max_pos, pointers into argv); their count goes to
 * *npos_p. "--" ends option parsing. Returns 0 or -EINVAL after logging one line.
 */
int lp_opt_parse(const struct lp_opt *tab, int argc, char **argv, const char **pos, int max_pos,
		 int *npos_p, bool *help_p);

/*
 * Print "usage: synopsis" and one aligned line per option to f, each help
 * text followed by "(default DEF)" where the row has a `def`.
 * Hidden, for the build: with LP_HELP_FORMAT=man in the environment it prints
 * the table as the roff OPTIONS section of a man page instead (ending with the
 * line LP_OPT_MAN_END), with LP_HELP_FORMAT=bash the words bash completion
 * needs ("words: ..." and "takes: ..." for options with a value).
 */
void lp_opt_usage(FILE *f, const char *synopsis, const struct lp_opt *tab);
#define LP_OPT_MAN_END ".\\\" end of options"

/* Value parsers (0 or -EINVAL / -ERANGE; nothing printed). */
int lp_parse_size(const char *s, uint64_t *out);
int lp_parse_sizes(const char *s, struct lp_sizes *out);
int lp_parse_seconds(const char *s, double *out);
int lp_parse_u64(const char *s, uint64_t *out);
int lp_parse_double(const char *s, double *out);

/* Index of `s` in the NULL-terminated list, or -1. */
int lp_choice_index(const char *const *choices, const char *s);

/* Split a comma list into at most max items (copies into buf of len bytes). */
int lp_split_list(const char *s, char *buf, size_t len, const char **items, int max, int *n_p);

#endif
