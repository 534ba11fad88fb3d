/* SPDX-License-Identifier: MIT */
/*
 * linkperf: project-wide basics shared by every module.
 *
 * Error convention: library functions return 0 on success or a negative errno
 * value; the error is logged once, where it is first known, with lp_err().
 * Only the mains in bench/ turn errors into exit codes (lp_exit_code()).
 */
#ifndef LP_H
#define LP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The linkperf version: the release in VERSION plus `git describe` when built
 * from a checkout (the Makefile passes it to common/meta.c), e.g.
 * "0.1.0+git.8b212b4-dirty". Printed by --version and written into every JSON document.
 */
const char *lp_version(void);
#define LP_VERSION lp_version()

/* Exit codes of every linkperf tool (README, docs/METHOD.md). */
enum lp_exit {
	LP_EXIT_OK = 0,		   /* measured, nothing wrong */
	LP_EXIT_FAIL = 1,	   /* runtime failure, or measured and flagged bad */
	LP_EXIT_USAGE = 2,	   /* bad option or value */
	LP_EXIT_UNSUPPORTED = 77,  /* no device / GPU / driver here: N/A, not broken */
	LP_EXIT_INTERRUPTED = 130, /* SIGINT/SIGTERM: what was measured so far is written */
};

#define LP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LP_MIN(a, b)	 ((a) < (b) ? (a) : (b))
#define LP_MAX(a, b)	 ((a) > (b) ? (a) : (b))

/* Greatest common divisor (lp_gcd(a, 0) = a). */
static inline uint64_t lp_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

enum lp_log_level {
	LP_LOG_QUIET = -1,
	LP_LOG_ERR = 0,
	LP_LOG_WARN = 1,
	LP_LOG_INFO = 2,
	LP_LOG_DEBUG = 3,
};

/* Name printed before every message ("lp-rdma: ..."); default "linkperf". */
void lp_log_set_prog(const char *prog);
/* Messages above this level are dropped; default LP_LOG_WARN. */
void lp_log_set_level(enum lp_log_level level);
enum lp_log_level lp_log_get_level(void);

/* One line to stderr, prefixed with the program name; a newline is added. */
void lp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lp_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The text of the last lp_err() on this thread ("" after lp_err_clear() or
 * when none), kept even when the level hides it: a server sends it to the
 * client as the cause of a failure (valid until the next lp_err()).
 */
#define LP_ERR_LAST_LEN 256
const char *lp_err_last(void);
void lp_err_clear(void);

/*
 * Map a negative errno from the library to an exit code: missing hardware or
 * driver (-ENODEV, -ENXIO, -EOPNOTSUPP, -ENOSYS) is LP_EXIT_UNSUPPORTED, bad
 * parameters (-EINVAL, -ERANGE, -E2BIG) are LP_EXIT_USAGE, -EINTR (a signal) is
 * LP_EXIT_INTERRUPTED, the rest LP_EXIT_FAIL.
 */
int lp_exit_code(int err);

/*
 * Open an output named on the command line: "-" is stdout, anything else a
 * file created or truncated. Returns NULL after one lp_err() line naming the
 * path. lp_out_close() flushes and closes (stdout is flushed, never closed)
 * and returns 0 or -EIO after one lp_err() line (a full disk shows up here).
 */
FILE *lp_out_open(const char *path);
int lp_out_close(FILE *f, const char *path);
/*
 * PATH created new, exclusively, written in place as it goes (a journal);
 * never follows a link. 0 and *f_p; -EEXIST when anything is at PATH (not
 * logged: the caller refuses or moves it aside), another negative errno after
 * one lp_err() line.
 */
int lp_out_create(const char *path, FILE **f_p);

#endif
