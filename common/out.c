// SPDX-License-Identifier: MIT
/*
 * Outputs named on the command line (lp.h): written beside the target and
 * renamed over it once complete, so that a crash or a full disk never leaves
 * half a document under the name a user or a collector reads; and remembered
 * when they fail, so that the process exits LP_EXIT_OUTPUT, not "ok".
 */
#include "lp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Whether any output failed: process-wide by nature (the exit status is one per
 * process), read once by the exit guard. Set from any thread.
 */
static atomic_int out_failed;

static void *failed(const char *path, int err, const char *why)
{
	lp_err("cannot write %s: %s", path, why ? why : strerror(err));
	atomic_store(&out_failed, 1);
	errno = err;
	return NULL;
}

/* The directory part of path ("." when none) into dir; the last component is returned. */
static const char *split(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, len, ".");
		return path;
	}
	snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return slash + 1;
}

/*
 * The temporaries of target NAME are ".NAME." plus six random characters, in
 * NAME's directory: never NAME.prom-like (a textfile collector reads *.prom),
 * hidden, and one NAME's temporaries are told from another's by the prefix.
 */
static int tmp_prefix(const char *base, char *buf, size_t len)
{
	return snprintf(buf, len, ".%.*s.", NAME_MAX - 8, base);
}

/* Six characters no other process can predict (getrandom; the clock only where it fails). */
static void tmp_suffix(char *s)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^
		    (uint64_t)ts.tv_sec;
		for (size_t i = 0; i < sizeof(r); i++, x >>= 8)
			r[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		s[i] = abc[r[i] % (sizeof(abc) - 1)];
	s[sizeof(r)] = '\0';
}

/* An exclusive, new temporary beside path: its descriptor, or -1 with errno set. */
static int tmp_create(const char *path)
{
	char dir[PATH_MAX], name[PATH_MAX];
	const char *base = split(path, dir, sizeof(dir));
	int n = snprintf(name, sizeof(name), "%s/", dir);

	n += tmp_prefix(base, name + n, sizeof(name) - (size_t)n);
	if (n + 7 > (int)sizeof(name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (int tries = 0; tries < 100; tries++) {
		int fd;

		tmp_suffix(name + n);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

FILE *lp_out_open(const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdout;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return failed(path, errno, NULL);
		st.st_mode = S_IFREG; /* a new file */
	}
	if (S_ISLNK(st.st_mode))
		return failed(
			path, ELOOP,
			"it is a symbolic link, not followed (name the file itself, or - for standard output)");
	if (S_ISDIR(st.st_mode))
		return failed(path, EISDIR, NULL);
	if (S_ISREG(st.st_mode))
		fd = tmp_create(path);
	else /* a device or a FIFO (/dev/null, a named pipe) cannot be replaced: written in place */
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return failed(path, errno, NULL);
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		return failed(path, err, NULL);
	}
	return f;
}

int lp_out_create(const char *path, FILE **f_p)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);

	*f_p = NULL;
	if (fd < 0) {
		int err = errno;

		if (err != EEXIST)
			failed(path, err, NULL);
		return -err;
	}
	*f_p = fdopen(fd, "w");
	if (!*f_p) {
		int err = errno;

		close(fd);
		failed(path, err, NULL);
		return -err;
	}
	return 0;
}

/*
 * The temporary f writes, found beside path by its device and inode (no table
 * of open outputs to keep): its name into tmp, 1; or 0 when f writes in place.
 */
static int tmp_find(FILE *f, const char *path, char *tmp, size_t len)
{
	char dir[PATH_MAX], prefix[NAME_MAX + 2];
	const char *base = split(path, dir, sizeof(dir));
	struct stat me, st;
	struct dirent *e;
	size_t plen;
	int found = 0;
	DIR *d;

	if (fstat(fileno(f), &me) || !S_ISREG(me.st_mode))
		return 0;
	plen = (size_t)tmp_prefix(base, prefix, sizeof(prefix));
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		found = !strncmp(e->d_name, prefix, plen) && strlen(e->d_name) == plen + 6 &&
			!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			st.st_dev == me.st_dev && st.st_ino == me.st_ino;
		if (found)
			snprintf(tmp, len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	return found;
}

/* The directory entry of a rename on disk too (best effort: not every file system syncs a directory). */
static void dir_sync(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	split(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int lp_out_close(FILE *f, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	int temp, err = 0;

	if (f == stdout) {
		if (fflush(f) || ferror(f)) {
			failed(path, errno ? errno : EIO, NULL);
			return -EIO;
		}
		return 0;
	}
	temp = tmp_find(f, path, tmp, sizeof(tmp));
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	else if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && fsync(fileno(f)))
		err = errno;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (!err && temp && rename(tmp, path))
		err = errno;
	if (err) {
		if (temp)
			unlink(tmp);
		failed(path, err, NULL);
		return -EIO;
	}
	if (temp)
		dir_sync(path);
	return 0;
}

/* An output whose writer failed: dropped, NAME left as it was, and remembered as not written. */
static void discard(FILE *f, const char *path, int err)
{
	char tmp[PATH_MAX];
	int temp;

	if (f == stdout) {
		fflush(f);
	} else {
		temp = tmp_find(f, path, tmp, sizeof(tmp));
		fclose(f);
		if (temp)
			unlink(tmp);
	}
	failed(path, -err, "the document could not be made: not written");
}

int lp_out_end(FILE *f, const char *path, int err)
{
	if (err) {
		discard(f, path, err);
		return err;
	}
	return lp_out_close(f, path);
}

/* At exit: stdout flushed and checked (a summary to a full disk), then the verdict on outputs. */
static void exit_guard(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		lp_err("writing standard output: %s", strerror(errno ? errno : EIO));
		atomic_store(&out_failed, 1);
	}
	if (atomic_load(&out_failed))
		_exit(LP_EXIT_OUTPUT);
}

void lp_out_exit_guard(void)
{
	atexit(exit_guard);
}
