// SPDX-License-Identifier: MIT
/* A helper program's output, bounded in time (common/cmd.h). */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read the pipe until EOF or the deadline; 0 or -ETIMEDOUT. */
static int drain(int fd, char *out, size_t len, int64_t deadline)
{
	size_t used = 0;
	char sink[512];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - ms_now();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
		if (!p.revents)
			continue;
		if (used + 1 < len)
			n = read(fd, out + used, len - 1 - used);
		else
			n = read(fd, sink, sizeof(sink)); /* cut: keep the pipe moving */
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0 && used + 1 < len) {
			used += (size_t)n;
			out[used] = '\0';
		}
	}
}

int lp_cmd_capture(char *const argv[], char *out, size_t len, int timeout_ms)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], st = 0, ret;
	pid_t pid;

	if (len)
		out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (ret) {
		close(pipefd[0]);
		return -ret;
	}
	ret = drain(pipefd[0], out, len, ms_now() + timeout_ms);
	close(pipefd[0]);
	if (ret)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (ret)
		return ret;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
