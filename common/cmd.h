/* SPDX-License-Identifier: MIT */
/*
 * Run a helper program (smpquery, lldpctl, ...) and keep what it prints, bounded in time:
 * the inventory's window on what only such tools can see. No shell: argv as given, PATH
 * searched; stdin /dev/null; stdout and stderr together into out.
 */
#ifndef LP_CMD_H
#define LP_CMD_H

#include <stddef.h>

/*
 * Returns the program's exit status (0..255), -ENOENT when it is not installed, -ETIMEDOUT
 * when it ran past timeout_ms (it is killed), or another negative errno. out (len bytes,
 * NUL-terminated) holds its output, cut to fit.
 */
int lp_cmd_capture(char *const argv[], char *out, size_t len, int timeout_ms);

#endif
