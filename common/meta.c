// SPDX-License-Identifier: MIT
#include "meta.h"
#include "clock.h"
#include "lp.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int lp_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		ret = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	if (ret)
		buf[0] = '\0';
	return ret;
}

void lp_host_meta_collect(struct lp_host_meta *m)
{
	struct utsname u;
	char line[256];
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (gethostname(m->host, sizeof(m->host) - 1))
		snprintf(m->host, sizeof(m->host), "unknown");
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(m->cpu, sizeof(m->cpu), "%s", colon + 2);
			m->cpu[strcspn(m->cpu, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	m->ncpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	lp_time_iso8601(m->time, sizeof(m->time));
}

/* clang-format off */
const struct lp_record lp_host_meta_record = LP_RECORD(struct lp_host_meta,
	LP_REC_STR(struct lp_host_meta, host),
	LP_REC_STR(struct lp_host_meta, kernel, LP_REC_DOC("uname -r")),
	LP_REC_STR(struct lp_host_meta, arch),
	LP_REC_STR(struct lp_host_meta, cpu),
	LP_REC_U32(struct lp_host_meta, ncpus),
	LP_REC_STR(struct lp_host_meta, time, LP_REC_DOC("ISO 8601, UTC")));
/* clang-format on */

#ifndef LP_VERSION_STRING
#error "LP_VERSION_STRING comes from the Makefile (VERSION plus git describe)"
#endif

const char *lp_version(void)
{
	return LP_VERSION_STRING;
}

void lp_method_json(struct lp_json *j)
{
	lp_json_obj_begin(j, "units");
	lp_json_str(j, "bandwidth", "GB/s = 1e9 bytes/s; Gb/s = 1e9 bits/s");
	lp_json_str(j, "size", "bytes");
	lp_json_str(j, "latency", "microseconds (us) unless the key says _ns");
	lp_json_str(j, "msg_rate", "million messages per second (Mmsg/s)");
	lp_json_obj_end(j);
	lp_json_str(j, "clock", lp_clock_name());
	lp_json_str(j, "clock_detail", lp_clock_desc());
	lp_json_num(j, "clock_drift_vs_raw", lp_clock_drift());
	lp_json_num(j, "clock_resolution_ns", (double)lp_clock_res_ns());
	lp_json_str(j, "linkperf_version", LP_VERSION);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void lp_dir_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int lp_dir_list(const char *root, const char *rel, char ***names_p, int *n_p)
{
	char path[PATH_MAX], **names;
	struct dirent **ents = NULL;
	int n, k = 0, ret = 0;

	*names_p = NULL;
	*n_p = 0;
	if (snprintf(path, sizeof(path), "%s%s", root ? root : "", rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	n = scandir(path, &ents, NULL, NULL);
	if (n <= 0)
		return 0;
	names = calloc((size_t)n, sizeof(*names));
	for (int i = 0; i < n; i++) {
		if (names && !ret && ents[i]->d_name[0] != '.' &&
		    !(names[k++] = strdup(ents[i]->d_name)))
			ret = -ENOMEM;
		free(ents[i]);
	}
	free(ents);
	if (!names || ret) {
		lp_dir_free(names, k);
		return -ENOMEM;
	}
	qsort(names, (size_t)k, sizeof(*names), str_cmp);
	*names_p = names;
	*n_p = k;
	return 0;
}
