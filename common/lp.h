/* SPDX-License-Identifier: MIT */
/*
 * linkperf: project-wide basics shared by every module.
 *
 * Error convention: library functions return 0 on success or a negative errno
 * value; the cause is recorded once, where it is first known, in a struct
 * lp_fail (common/fail.h: the first cause wins). Only the mains in bench/ print
 * it and turn it into an exit code (lp_fail_report(), lp_exit_code()).
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
	LP_EXIT_OK = 0,	   /* measured, nothing wrong */
	LP_EXIT_FAIL = 1,  /* runtime failure, or measured and flagged bad */
	LP_EXIT_USAGE = 2, /* bad option or value */
	LP_EXIT_OUTPUT =
		4, /* an output (a file named on the command line, or stdout) not written */
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
 * Outputs named on the command line. lp_out_open(): "-" is stdout; a file is
 * written to a temporary beside it (".NAME.XXXXXX": created exclusively, its
 * name unpredictable) that lp_out_close() renames over NAME after fsync, so a
 * crash or a failed write leaves the previous NAME (or none), never half a
 * document. A symbolic link at NAME is refused, never followed or replaced
 * (name the file itself; "-" for stdout); a device or FIFO (/dev/null, a named
 * pipe) is written in place. NULL after one lp_err() line naming the path.
 * lp_out_close() commits (stdout: flushed, never closed): 0, or -EIO after one
 * lp_err() line, the temporary removed and NAME untouched (a full disk shows
 * up here). lp_out_end(f, path, err) ends a writer that returned err: when 0
 * as lp_out_close(), else the output is dropped (NAME untouched, one lp_err()
 * line) and err returned.
 *
 * lp_out_create(): PATH created new, exclusively, written in place as it goes
 * (a journal); never follows a link. 0 and *f_p; -EEXIST when anything is at
 * PATH (not logged: the caller refuses or moves it aside), another negative
 * errno after one lp_err() line. Closed with lp_out_close() (fsync'ed, no rename).
 *
 * Every failure of these is remembered: lp_out_exit_guard(), called once at
 * the start of main, makes the process exit LP_EXIT_OUTPUT when an output or
 * stdout (flushed and checked at exit: a summary to a full disk) failed.
 */
FILE *lp_out_open(const char *path);
int lp_out_close(FILE *f, const char *path);
int lp_out_end(FILE *f, const char *path, int err);
int lp_out_create(const char *path, FILE **f_p);
void lp_out_exit_guard(void);

#endif
