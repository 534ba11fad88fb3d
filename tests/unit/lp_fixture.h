/* SPDX-License-Identifier: MIT */
/*
 * sysfs fixture trees for the unit tests: text manifests (tests/fixtures/<set>/
 * *.txt, format in tests/fixtures/topo/README.md) expanded into a directory.
 * Directives, one a line ('#' starts a comment line):
 *   file PATH CONTENT   CONTENT plus a newline into PATH (parents created; overwrites)
 *   link PATH TARGET    symlink(TARGET, PATH)
 *   dir  PATH           an empty directory
 *   acs  PATH CTRL      a 4 KiB PCIe config space at PATH: AER at 0x100, then an ACS
 *                       capability at 0x148 with control register CTRL (hex);
 *                       CTRL "none": AER only, no ACS capability
 *   rm   PATH           remove PATH (a file, link or whole directory) if it exists
 *   vpd  PATH SPEC      PCI VPD bytes at PATH (lp_fx_vpd): SPEC "Product name|PN=...|SN=...";
 *                       a last item "!badsum" writes a wrong RV checksum, "!cut" drops the tail
 * Include after lp_test.h (cmocka asserts).
 */
#ifndef LP_FIXTURE_H
#define LP_FIXTURE_H

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

static int lp_fx_mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

static void lp_fx_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	assert_non_null(slash);
	*slash = '\0';
	assert_int_equal(lp_fx_mkdir_p(dir), 0);
}

static int lp_fx_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void lp_fx_rmtree(const char *dir)
{
	assert_int_equal(nftw(dir, lp_fx_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Extended config space: AER (id 0x0001) at 0x100 -> ACS (0x000d) at 0x148 with control ctrl. */
static void lp_fx_config(const char *path, const char *arg)
{
	unsigned char cfg[4096] = { 0 };
	FILE *f;

	cfg[0x100] = 0x01; /* AER, version 2, next 0x148 */
	cfg[0x102] = 0x82;
	cfg[0x103] = 0x14;
	if (strcmp(arg, "none")) {
		unsigned long ctrl = strtoul(arg, NULL, 16);

		cfg[0x148] = 0x0d; /* ACS, version 1, last */
		cfg[0x14a] = 0x01;
		cfg[0x14c] = 0x5f; /* capability: SV TB RR CR UF EC(no) DT */
		cfg[0x14e] = (unsigned char)ctrl;
		cfg[0x14f] = (unsigned char)(ctrl >> 8);
	} else {
		cfg[0x103] = 0x00; /* AER is the last capability */
	}
	lp_fx_parent(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(cfg, 1, sizeof(cfg), f), sizeof(cfg));
	fclose(f);
}

/*
 * VPD as the PCI spec lays it out: an Identifier String (large resource 0x82, 16-bit LE length),
 * a VPD-R resource (0x90) of keywords (two letters, a length byte, the data) ending with RV,
 * whose first byte makes every byte from offset 0 through it sum to zero, then the End Tag 0x78.
 */
static void lp_fx_vpd(const char *path, const char *spec)
{
	unsigned char v[1024] = { 0 }, sum = 0;
	char copy[512], *save = NULL, *item;
	size_t n = 0, ro, rv = 0;
	int badsum = 0, cut = 0;
	FILE *f;

	snprintf(copy, sizeof(copy), "%s", spec);
	item = strtok_r(copy, "|", &save);
	assert_non_null(item);
	v[n++] = 0x82;
	v[n++] = (unsigned char)strlen(item);
	v[n++] = 0;
	memcpy(v + n, item, strlen(item));
	n += strlen(item);
	ro = n;
	v[n++] = 0x90;
	n += 2; /* length below */
	while ((item = strtok_r(NULL, "|", &save))) {
		if (!strcmp(item, "!badsum") || !strcmp(item, "!cut")) {
			badsum |= !strcmp(item, "!badsum");
			cut |= !strcmp(item, "!cut");
			continue;
		}
		assert_true(strlen(item) > 3 && item[2] == '=');
		v[n++] = (unsigned char)item[0];
		v[n++] = (unsigned char)item[1];
		v[n++] = (unsigned char)strlen(item + 3);
		memcpy(v + n, item + 3, strlen(item + 3));
		n += strlen(item + 3);
	}
	v[n++] = 'R';
	v[n++] = 'V';
	v[n++] = 4; /* checksum byte + 3 reserved */
	rv = n;
	n += 4;
	v[ro + 1] = (unsigned char)((n - ro - 3) & 0xff);
	v[ro + 2] = (unsigned char)((n - ro - 3) >> 8);
	for (size_t i = 0; i < rv; i++)
		sum = (unsigned char)(sum + v[i]);
	v[rv] = (unsigned char)(0x100 - sum) + (badsum ? 1 : 0);
	v[n++] = 0x78; /* End Tag */
	lp_fx_parent(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(v, 1, cut ? n / 2 : n, f), cut ? n / 2 : n);
	fclose(f);
}

/* Expand manifest text (one directive a line) under dir. */
static void lp_fx_expand_text(const char *dir, const char *text)
{
	char *copy = strdup(text), *save = NULL;

	assert_non_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[8], rel[PATH_MAX], path[PATH_MAX + 64];
		int off = 0;
		const char *arg;

		if (line[0] == '#' || line[0] == '\0')
			continue;
		assert_int_equal(sscanf(line, "%7s %4095s %n", kind, rel, &off) >= 2, 1);
		arg = line + off;
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		if (!strcmp(kind, "dir")) {
			assert_int_equal(lp_fx_mkdir_p(path), 0);
		} else if (!strcmp(kind, "file")) {
			FILE *f;

			lp_fx_parent(path);
			f = fopen(path, "w");
			assert_non_null(f);
			fprintf(f, "%s\n", arg);
			fclose(f);
		} else if (!strcmp(kind, "link")) {
			lp_fx_parent(path);
			unlink(path);
			assert_int_equal(symlink(arg, path), 0);
		} else if (!strcmp(kind, "rm")) {
			struct stat st;

			if (!lstat(path, &st))
				lp_fx_rmtree(path);
		} else if (!strcmp(kind, "acs")) {
			lp_fx_config(path, arg);
		} else if (!strcmp(kind, "vpd")) {
			lp_fx_vpd(path, arg);
		} else {
			fail_msg("bad manifest line: %s", line);
		}
	}
	free(copy);
}

/* tests/fixtures/<name> whole (NULL when absent and !must); free() it. */
static char *lp_fx_read(const char *name, int must)
{
	const char *top = getenv("LP_ROOT"); /* set by tests/run-all.sh */
	char path[PATH_MAX], *text;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top ? top : ".", name);
	f = fopen(path, "r");
	if (!f && !must)
		return NULL;
	if (!f)
		fail_msg("fixture %s: %s (run from the repository root)", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return text;
}

/* Expand tests/fixtures/<name> ("topo/dgx-h100.txt") under dir. */
static void lp_fx_expand(const char *dir, const char *name)
{
	char *text = lp_fx_read(name, 1);

	lp_fx_expand_text(dir, text);
	free(text);
}

/*
 * A stand-in for lp_cmd_capture (common/cmd.h): the recorded output of a command line, the
 * file tests/fixtures/<lp_fx_cmd_dir>/<argv joined by '_'>.txt ("dcb_-N_pfc_show_dev_eth0.txt");
 * a first line "#exit N" gives its exit status (else 0); no file: -ENOENT, as a program that is
 * not installed.
 */
static const char *lp_fx_cmd_dir = "check/cmd";

__attribute__((unused)) static int lp_fx_cmd(char *const argv[], char *out, size_t len,
					     int timeout_ms)
{
	char name[PATH_MAX], *text, *body;
	size_t used;
	int rc = 0;

	(void)timeout_ms;
	used = (size_t)snprintf(name, sizeof(name), "%s/", lp_fx_cmd_dir);
	for (int i = 0; argv[i] && used < sizeof(name); i++)
		used += (size_t)snprintf(name + used, sizeof(name) - used, "%s%s", i ? "_" : "",
					 argv[i]);
	snprintf(name + used, used < sizeof(name) ? sizeof(name) - used : 0, ".txt");
	text = lp_fx_read(name, 0);
	if (len)
		out[0] = '\0';
	if (!text)
		return -ENOENT;
	body = text;
	if (sscanf(text, "#exit %d", &rc) == 1)
		body = strchr(text, '\n') ? strchr(text, '\n') + 1 : text + strlen(text);
	if (len)
		snprintf(out, len, "%s", body);
	free(text);
	return rc;
}

#endif
