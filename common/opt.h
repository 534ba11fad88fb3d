/* SPDX-License-Identifier: MIT */
/*
 * Declarative command-line options, as fio's option table: each option is one
 * static row holding its names, kind, destination (an offset into a struct,
 * type-checked at compile time), allowed range, default and help, so parsing,
 * validation, --help, the man page and bash completion come from one place.
 * Values are checked completely (no trailing junk, range enforced); every
 * error is one line naming the option.
 *
 * Rows come in groups, each over one struct (the plan's options over struct
 * lp_rdma_plan_opts, the device's over struct lp_rdma_devsel, ...). A tool
 * concatenates the groups it takes into a command (struct lp_opt_cmd), each
 * at the offset of its struct inside the tool's own options struct, so two
 * tools taking one group cannot drift apart:
 *
 *	static const struct lp_opt_group groups[] = {
 *		{ "test plan", lp_rdma_plan_opt_rows, offsetof(struct cli, plan) },
 *		{ "output", lp_out_opt_rows, offsetof(struct cli, out) },
 *		{ 0 },
 *	};
 *
 * A row declares its default (`def`, as it would be written on the command
 * line: parsed into the destination before argv, printed by --help, the man
 * page) and can record whether the option was given (LP_OPT_SET_AT), so that
 * a caller never needs a sentinel value to tell "not given" from a value. A
 * tool may replace a group's default with its own (lp_opt_cmd.defaults).
 *
 * Spellings that another tool's users type with another meaning (perftest's
 * letters) are rows of kind LP_OPT_REFUSE: one line naming linkperf's
 * spelling, exit 2, never a silent other meaning. A value that does not parse
 * for a letter perftest reads differently adds the row's `hint`.
 *
 * Numbers accept size suffixes where the kind is LP_OPT_SIZE: K/M/G/T (also
 * KiB/MiB/GiB/TiB, any case) are powers of 1024; a plain number is bytes.
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
	LP_OPT_FLAG,	/* bool, no argument */
	LP_OPT_UINT,	/* unsigned, decimal or 0x hex, range [min,max] */
	LP_OPT_U64,	/* uint64_t */
	LP_OPT_INT,	/* int */
	LP_OPT_DOUBLE,	/* double */
	LP_OPT_SIZE,	/* uint64_t, with size suffixes */
	LP_OPT_SIZES,	/* struct lp_sizes: "4K", "2:8M" (powers of two), "64,4K,1M" */
	LP_OPT_SECONDS, /* double seconds: "10", "2.5s", "500ms", "2m" */
	LP_OPT_STR,	/* const char * (points into argv) */
	LP_OPT_CHOICE,	/* int: index of the argument in the NULL-terminated `choices` */
	LP_OPT_LIST, /* const char *: comma list kept as given, each item checked against `choices` if set */
	LP_OPT_REFUSE, /* no destination: the spelling is refused with `help` as the reason */
};

struct lp_opt {
	const char *name; /* long name without "--"; NULL: a letter only (refusals) */
	char shortname;	  /* 0 for none */
	enum lp_opt_kind kind;
	size_t off;	 /* destination: offset in the group's struct (LP_OPT_*_AT) */
	size_t set_off;	 /* 1 + offset of a bool made true when the option is given; 0: none */
	double min, max; /* inclusive range for numbers; both 0 = unchecked */
	const char *const *choices; /* for CHOICE and LIST */
	const char *metavar;	    /* e.g. "SIZE"; REFUSE: the value it takes, if any */
	const char *help;	    /* one line, without the default when `def` gives it */
	const char *def;  /* the default as command-line text, or NULL (dst keeps its value) */
	const char *hint; /* a value that does not parse: this follows the error line */
};

/* Rows of one struct; a tool's command concatenates groups, each at its struct's offset. */
struct lp_opt_group {
	const char *title;	   /* "test plan", "device", "output" (help, man) */
	const struct lp_opt *rows; /* ends with a row without name and shortname */
	size_t off;		   /* where the rows' struct sits in the tool's options struct */
};

/* An exit status a tool returns, with its meaning (--help, the man page's EXIT STATUS). */
struct lp_opt_exit {
	int code;
	const char *meaning;
};

/* A tool's command line. */
struct lp_opt_cmd {
	const char *synopsis;		   /* after "usage: "; lines separated by "\n" */
	const struct lp_opt_group *groups; /* ends with rows == NULL */
	const char *const
		*defaults; /* "NAME=VALUE": this tool's default for a group's row; NULL-ended */
	int max_pos;	   /* positional arguments taken */
	const char *notes; /* a paragraph after the options in --help, or NULL */
	const struct lp_opt_exit *exits; /* ends with meaning == NULL */
};

/*
 * Parse argv[1..] into obj (the tool's options struct) against cmd. First
 * every row's default (cmd's own where it names one) is stored and every set
 * flag cleared. "--help"/"-h" sets *help_p and returns 0. Positional arguments
 * are moved to pos[] (at most cmd->max_pos; pointers into argv), their count to
 * *npos_p. "--" ends option parsing. Returns 0 or -EINVAL after one line
 * (an unknown option, a bad value, a refused spelling, or a table that names
 * an option twice).
 */
int lp_opt_parse(const struct lp_opt_cmd *cmd, void *obj, int argc, char **argv, const char **pos,
		 int *npos_p, bool *help_p);

/*
 * Print "usage: synopsis", the options group by group (one aligned line each,
 * the help followed by "(default DEF)" where there is one), cmd's notes and
 * its exit statuses. Hidden, for the build: with LP_HELP_FORMAT=man in the
 * environment it prints the roff OPTIONS and EXIT STATUS sections of a man
 * page instead (ending with the line LP_OPT_MAN_END), with LP_HELP_FORMAT=bash
 * the words bash completion needs ("words: ..." and "takes: ..." for options
 * with a value).
 */
void lp_opt_usage(const struct lp_opt_cmd *cmd, FILE *f);
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

/* ---- the output group every tool takes ------------------------------------------------------ */

struct lp_out_opts {
	const char *json; /* --json FILE ('-' = stdout) */
	const char *csv;  /* --csv FILE (lp_out_csv_opt_rows) */
	bool quiet, verbose, version;
	bool json_schema; /* --json-schema (lp_out_schema_opt_rows) */
};
/* --json, --quiet, --verbose (over struct lp_out_opts). */
extern const struct lp_opt lp_out_opt_rows[];
/* -V/--version (over struct lp_out_opts): every tool's, lp-judge's too. */
extern const struct lp_opt lp_out_version_opt_rows[];
/* --csv FILE, for the tools whose CSV is one file (over struct lp_out_opts). */
extern const struct lp_opt lp_out_csv_opt_rows[];
/* --json-schema: print the JSON Schema of the --json document (over struct lp_out_opts). */
extern const struct lp_opt lp_out_schema_opt_rows[];

/* ---- writing rows ---------------------------------------------------------------------------- */

/* The kind and destination of a row: member m of struct type T, which must be of type ctype. */
#define LP_OPT_DST(T, m, k, ctype)                                                                 \
	.kind = (k),                                                                               \
	.off = offsetof(T, m) +                                                                    \
	       0 * sizeof(struct {                                                                 \
		       _Static_assert(__builtin_types_compatible_p(__typeof__(((T *)0)->m),        \
								   ctype),                         \
				      #T "." #m ": not the type its option kind stores");          \
		       int lp_unused;                                                              \
	       })
#define LP_OPT_FLAG_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_FLAG, bool)
#define LP_OPT_UINT_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_UINT, unsigned)
#define LP_OPT_U64_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_U64, uint64_t)
#define LP_OPT_INT_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_INT, int)
#define LP_OPT_DOUBLE_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_DOUBLE, double)
#define LP_OPT_SIZE_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_SIZE, uint64_t)
#define LP_OPT_SIZES_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_SIZES, struct lp_sizes)
#define LP_OPT_SECONDS_AT(T, m) LP_OPT_DST(T, m, LP_OPT_SECONDS, double)
#define LP_OPT_STR_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_STR, const char *)
#define LP_OPT_CHOICE_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_CHOICE, int)
#define LP_OPT_LIST_AT(T, m)	LP_OPT_DST(T, m, LP_OPT_LIST, const char *)
/* A default declared once as a number (a macro) that C code reads too, as the row's text:
 * .def = LP_OPT_DEF(LP_SWEEP_POLL_MS). */
#define LP_OPT_DEF_(x) #x
#define LP_OPT_DEF(x)  LP_OPT_DEF_(x)
/* The row's "was it given" flag: bool member m of T. */
#define LP_OPT_SET_AT(T, m)                                                                        \
	.set_off = 1 + offsetof(T, m) +                                                            \
		   0 * sizeof(struct {                                                             \
			   _Static_assert(__builtin_types_compatible_p(__typeof__(((T *)0)->m),    \
								       bool),                      \
					  #T "." #m ": a set flag is a bool");                     \
			   int lp_unused;                                                          \
		   })

#endif
