// SPDX-License-Identifier: MIT
/*
 * Unit tests for the outputs (common/out.c): a document appears whole or not at
 * all, a link at the target is never followed, a failed write is never a
 * success, and the process exits LP_EXIT_OUTPUT when an output or stdout failed.
 */
#include "lp_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/lp.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/lp-out-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static const char *at(const char *name)
{
	static char path[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

/* The whole content of path ("" when it cannot be read). */
static const char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Entries in the directory besides "." and ".."; the first hidden one's name into hidden. */
static int entries(char *hidden, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (hidden)
		hidden[0] = '\0';
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		if (hidden && e->d_name[0] == '.' && !hidden[0])
			snprintf(hidden, len, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

/* Until closed, the target keeps its old content and the new one grows in a hidden temporary. */
static void test_out_atomic(void **state)
{
	const char *p = at("run.json");
	char tmp[64];
	struct stat st;
	mode_t mask;
	FILE *f;

	(void)state;
	f = fopen(p, "w");
	fputs("old\n", f);
	fclose(f);
	f = lp_out_open(p);
	assert_non_null(f);
	fputs("new document\n", f);
	fflush(f);
	assert_string_equal(slurp(p), "old\n");
	assert_int_equal(entries(tmp, sizeof(tmp)), 2);
	assert_int_equal(strncmp(tmp, ".run.json.", 10), 0);
	assert_int_equal(strlen(tmp), strlen(".run.json.") + 6);
	assert_int_equal(lp_out_close(f, p), 0);
	assert_string_equal(slurp(p), "new document\n");
	assert_int_equal(entries(NULL, 0), 1);
	/* created as fopen would: 0666 less the umask */
	mask = umask(0);
	umask(mask);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
}

/* Two outputs to one name have different temporaries (not a pid-derived, predictable name). */
static void test_out_tmp_unpredictable(void **state)
{
	const char *p = at("m.prom");
	char a[64], b[64];
	FILE *f, *g;

	(void)state;
	f = lp_out_open(p);
	assert_non_null(f);
	assert_int_equal(entries(a, sizeof(a)), 1);
	g = lp_out_open(p);
	assert_non_null(g);
	assert_int_equal(entries(NULL, 0), 2);
	assert_int_equal(lp_out_close(f, p), 0);
	assert_int_equal(entries(b, sizeof(b)), 2); /* m.prom and g's temporary */
	assert_string_not_equal(a, b);
	assert_null(strstr(b, ".prom.prom"));
	assert_int_equal(lp_out_close(g, p), 0);
	assert_int_equal(entries(NULL, 0), 1);
}

/* A writer that failed: the target keeps its old content, no temporary is left. */
static void test_out_writer_failed(void **state)
{
	const char *p = at("keep.json");
	FILE *f = fopen(p, "w");

	(void)state;
	fputs("previous run\n", f);
	fclose(f);
	f = lp_out_open(p);
	assert_non_null(f);
	fputs("{\"half\": ", f);
	assert_int_equal(lp_out_end(f, p, -ENOMEM), -ENOMEM);
	assert_string_equal(slurp(p), "previous run\n");
	assert_int_equal(entries(NULL, 0), 1);
	f = lp_out_open(p);
	fputs("whole\n", f);
	assert_int_equal(lp_out_end(f, p, 0), 0);
	assert_string_equal(slurp(p), "whole\n");
}

/* A symbolic link at the target is refused: neither followed nor replaced. */
static void test_out_symlink(void **state)
{
	const char *victim = at("victim"), *link = at("out.json");
	char buf[128];
	FILE *f = fopen(victim, "w");
	ssize_t n;

	(void)state;
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(symlink(victim, link), 0);
	errno = 0;
	assert_null(lp_out_open(link));
	assert_int_equal(errno, ELOOP);
	assert_string_equal(slurp(victim), "precious\n");
	n = readlink(link, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, victim);
	/* a dangling link too (the classic /tmp attack creates the file it points to) */
	assert_int_equal(symlink(at("nowhere"), at("dangling.json")), 0);
	assert_null(lp_out_open(at("dangling.json")));
	assert_int_equal(access(at("nowhere"), F_OK), -1);
}

/* Devices are written in place (never replaced); a full one is a failed close. */
static void test_out_devices(void **state)
{
	FILE *f;

	(void)state;
	f = lp_out_open("/dev/null");
	assert_non_null(f);
	fputs("nothing\n", f);
	assert_int_equal(lp_out_close(f, "/dev/null"), 0);
	f = lp_out_open("/dev/full");
	assert_non_null(f);
	fputs("no room\n", f);
	assert_int_equal(lp_out_close(f, "/dev/full"), -EIO);
	errno = 0;
	assert_null(lp_out_open(dir));
	assert_int_equal(errno, EISDIR);
	assert_null(lp_out_open(at("no/such/dir.json")));
}

/* lp_out_create: new files only, -EEXIST for anything there (a file or a link), not followed. */
static void test_out_create(void **state)
{
	const char *p = at("run.journal");
	FILE *f;

	(void)state;
	assert_int_equal(lp_out_create(p, &f), 0);
	fputs("line 1\n", f);
	assert_int_equal(lp_out_close(f, p), 0);
	assert_string_equal(slurp(p), "line 1\n");
	assert_int_equal(lp_out_create(p, &f), -EEXIST);
	assert_null(f);
	assert_string_equal(slurp(p), "line 1\n");
	assert_int_equal(symlink(at("elsewhere"), at("l.journal")), 0);
	assert_int_equal(lp_out_create(at("l.journal"), &f), -EEXIST);
	assert_int_equal(access(at("elsewhere"), F_OK), -1);
}

/*
 * The exit guard in a child: exits 0 when all is well, LP_EXIT_OUTPUT when
 * stdout went to a full device, or when an output failed, whatever main returned.
 */
static int child(int how)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open(how == 1 ? "/dev/full" : "/dev/null", O_WRONLY);
		FILE *f;

		dup2(fd, 1);
		lp_out_exit_guard();
		printf("a summary\n");
		if (how == 2 && (f = lp_out_open("/dev/full"))) {
			fputs("x\n", f);
			lp_out_close(f, "/dev/full");
		}
		exit(0);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_out_exit_guard(void **state)
{
	(void)state;
	assert_int_equal(child(0), 0);
	assert_int_equal(child(1), LP_EXIT_OUTPUT);
	assert_int_equal(child(2), LP_EXIT_OUTPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: the exit status counts every failure so far, and the tests below fail some */
		cmocka_unit_test(test_out_exit_guard),
		cmocka_unit_test_setup_teardown(test_out_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_tmp_unpredictable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_writer_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_create, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
