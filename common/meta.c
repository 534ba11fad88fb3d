// SPDX-License-Identifier: MIT
#include "meta.h"
#include "clock.h"
#include "lp.h"

#include <errno.h>
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

void lp_host_meta_json(const struct lp_host_meta *m, struct lp_json *j)
{
	lp_json_str(j, "host", m->host);
	lp_json_str(j, "kernel", m->kernel);
	lp_json_str(j, "arch", m->arch);
	lp_json_str(j, "cpu", m->cpu);
	lp_json_uint(j, "ncpus", m->ncpus);
	lp_json_str(j, "time", m->time);
}

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
