// SPDX-License-Identifier: MIT
#include "lp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Logging configuration is process-wide by nature (one stderr); it is set once
 * by main before any work starts, so it is the one piece of static state here.
 */
static const char *log_prog = "linkperf";
static enum lp_log_level log_level = LP_LOG_WARN;
/* The last lp_err() text of this thread, so a server can send its cause to the client (as dlerror). */
static _Thread_local char last_err[LP_ERR_LAST_LEN];

void lp_log_set_prog(const char *prog)
{
	const char *slash = strrchr(prog, '/');

	log_prog = slash ? slash + 1 : prog;
}

void lp_log_set_level(enum lp_log_level level)
{
	log_level = level;
}

enum lp_log_level lp_log_get_level(void)
{
	return log_level;
}

/* Logging never changes errno: a caller may log and then return -errno. */
static void vlog(enum lp_log_level level, const char *tag, const char *fmt, va_list ap)
{
	char line[1024];
	int saved = errno;

	if (level > log_level && level != LP_LOG_ERR)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* Keep the message to one line whatever the caller passed in. */
	for (char *c = line; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (level == LP_LOG_ERR)
		snprintf(last_err, sizeof(last_err), "%s", line);
	if (level > log_level)
		return;
	fprintf(stderr, "%s: %s%s\n", log_prog, tag, line);
	errno = saved;
}

#define LP_DEFINE_LOG(fn, level, tag)                                                              \
	void fn(const char *fmt, ...)                                                              \
	{                                                                                          \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		vlog(level, tag, fmt, ap);                                                         \
		va_end(ap);                                                                        \
	}

LP_DEFINE_LOG(lp_err, LP_LOG_ERR, "error: ")
LP_DEFINE_LOG(lp_warn, LP_LOG_WARN, "warning: ")
LP_DEFINE_LOG(lp_info, LP_LOG_INFO, "")
LP_DEFINE_LOG(lp_debug, LP_LOG_DEBUG, "debug: ")

const char *lp_err_last(void)
{
	return last_err;
}

void lp_err_clear(void)
{
	last_err[0] = '\0';
}

int lp_exit_code(int err)
{
	switch (-err) {
	case 0:
		return LP_EXIT_OK;
	case ENODEV:
	case ENXIO:
	case EOPNOTSUPP:
	case ENOSYS:
		return LP_EXIT_UNSUPPORTED;
	case EINVAL:
	case ERANGE:
	case E2BIG:
		return LP_EXIT_USAGE;
	case EINTR:
		return LP_EXIT_INTERRUPTED;
	default:
		return LP_EXIT_FAIL;
	}
}
