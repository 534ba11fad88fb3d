/* SPDX-License-Identifier: MIT */
/*
 * The one error channel: a failure record, the first cause wins.
 *
 * A library function that can fail for a reason worth words takes a
 * `struct lp_fail *f` (NULL: the caller wants the code only) and returns 0 or
 * a negative errno; where the failure is first known it records it once with
 * lp_fail_set(f, -ERRNO, "what went wrong", ...). The first set keeps its
 * message, its code and where it was set: what fails afterwards is a
 * consequence and is ignored (an unwinding path may call lp_fail_set freely).
 * A caller that knows what was being done when it happened adds it with
 * lp_fail_wrap(f, "reading %s", path): "reading x.json: line 3: ...".
 *
 * Libraries never print a failure: the tools (bench/) print the one line
 * "TOOL: error: MESSAGE" with lp_fail_report(f, err), which returns the exit code
 * the record's code maps to (lp_exit_code()).
 */
#ifndef LP_FAIL_H
#define LP_FAIL_H

#include <stdarg.h>
#include <stdbool.h>

#define LP_FAIL_MSG_LEN 256

struct lp_fail {
	int err;	   /* 0, or the first failure's negative errno */
	bool from_peer;	   /* the cause is the peer's own ERROR (rdma/: not sent back to it) */
	const char *where; /* "file.c:123" of the first lp_fail_set, NULL when none */
	char msg[LP_FAIL_MSG_LEN]; /* the cause in words, one line ("" when err is 0) */
};

#define LP_FAIL_STR_(x) #x
#define LP_FAIL_STR(x)	LP_FAIL_STR_(x)
#define LP_FAIL_HERE	__FILE__ ":" LP_FAIL_STR(__LINE__)

/*
 * Record err (negative errno) and its cause unless f already holds one;
 * returns err either way, so `return lp_fail_set(f, -EINVAL, "...")` reads as
 * the failure it is. f may be NULL (nothing recorded). An err of 0 is taken as
 * -EIO (a failure always has a code).
 */
#define lp_fail_set(f, err, ...)      lp_fail_at((f), LP_FAIL_HERE, (err), __VA_ARGS__)
#define lp_fail_vset(f, err, fmt, ap) lp_fail_vat((f), LP_FAIL_HERE, (err), (fmt), (ap))
__attribute__((format(printf, 4, 5))) int lp_fail_at(struct lp_fail *f, const char *where, int err,
						     const char *fmt, ...);
__attribute__((format(printf, 4, 0))) int lp_fail_vat(struct lp_fail *f, const char *where, int err,
						      const char *fmt, va_list ap);
/*
 * Context from a caller: the message becomes "CONTEXT: message" (what was
 * being done while the first cause happened); the code and where stay. Does
 * nothing when f is NULL or holds no failure. Returns f's code (0 when none).
 */
__attribute__((format(printf, 2, 3))) int lp_fail_wrap(struct lp_fail *f, const char *fmt, ...);
/*
 * The same with no ": " between: the context written as the path in front of
 * a message that continues it ("nodes[3]." + "rank: a string where ...").
 */
__attribute__((format(printf, 2, 3))) int lp_fail_prefix(struct lp_fail *f, const char *fmt, ...);

/*
 * f takes from's failure (code, message, where) unless f already holds one: a
 * step's own record handed to its caller's. Returns f's code (from's when f
 * is NULL).
 */
int lp_fail_take(struct lp_fail *f, const struct lp_fail *from);
/* Forget the record (a retried step, a new test on the same record). */
void lp_fail_clear(struct lp_fail *f);
/* No failure recorded. */
bool lp_fail_ok(const struct lp_fail *f);
/* The first failure's negative errno, 0 when none. */
int lp_fail_code(const struct lp_fail *f);
/* The cause in words: "" when none; strerror of the code when set without words. */
const char *lp_fail_msg(const struct lp_fail *f);

/*
 * For the tools only: a step returned err (0: none) with its cause in f. Prints
 * the one line "PROG: error: MESSAGE" (lp_err; where it was recorded as a debug
 * line): f's message, or strerror(err) when f holds none (a step that failed
 * without words, -ENOMEM). Returns the exit code: lp_exit_code() of f's code,
 * else of err; 0 and no line when neither holds a failure.
 */
int lp_fail_report(const struct lp_fail *f, int err);

#endif
