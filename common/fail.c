// SPDX-License-Identifier: MIT
#include "fail.h"

#include "lp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int lp_fail_vat(struct lp_fail *f, const char *where, int err, const char *fmt, va_list ap)
{
	if (!err)
		err = -EIO;
	if (!f || f->err)
		return err;
	f->err = err;
	f->where = where;
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	/* one line whatever the cause's words held (a peer's text, a file's) */
	for (char *c = f->msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	return err;
}

int lp_fail_at(struct lp_fail *f, const char *where, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = lp_fail_vat(f, where, err, fmt, ap);
	va_end(ap);
	return err;
}

static int fail_vprefix(struct lp_fail *f, const char *sep, const char *fmt, va_list ap)
{
	char ctx[LP_FAIL_MSG_LEN], msg[LP_FAIL_MSG_LEN];

	if (!f || !f->err)
		return 0;
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	snprintf(msg, sizeof(msg), "%s", lp_fail_msg(f));
	snprintf(f->msg, sizeof(f->msg), "%s%s%s", ctx, sep, msg);
	return f->err;
}

int lp_fail_wrap(struct lp_fail *f, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fail_vprefix(f, ": ", fmt, ap);
	va_end(ap);
	return err;
}

int lp_fail_prefix(struct lp_fail *f, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = fail_vprefix(f, "", fmt, ap);
	va_end(ap);
	return err;
}

int lp_fail_take(struct lp_fail *f, const struct lp_fail *from)
{
	if (!f)
		return lp_fail_code(from);
	if (!f->err && from && from->err)
		*f = *from;
	return f->err;
}

void lp_fail_clear(struct lp_fail *f)
{
	if (f)
		*f = (struct lp_fail){ 0 };
}

bool lp_fail_ok(const struct lp_fail *f)
{
	return !f || !f->err;
}

int lp_fail_code(const struct lp_fail *f)
{
	return f ? f->err : 0;
}

const char *lp_fail_msg(const struct lp_fail *f)
{
	if (!f || !f->err)
		return "";
	return f->msg[0] ? f->msg : strerror(-f->err);
}

int lp_fail_report(const struct lp_fail *f, int err)
{
	if (lp_fail_ok(f)) {
		if (err)
			lp_err("%s", strerror(-err));
		return lp_exit_code(err);
	}
	lp_err("%s", lp_fail_msg(f));
	if (f->where)
		lp_debug("(the cause was recorded at %s)", f->where);
	return lp_exit_code(f->err);
}
