/* SPDX-License-Identifier: MIT */
/* Metadata every result carries: who measured, where, when, with what. */
#ifndef LP_META_H
#define LP_META_H

#include "json.h"
#include "record.h"

struct lp_host_meta {
	char host[256];
	char kernel[128]; /* uname -r */
	char arch[32];
	char cpu[128]; /* model name from /proc/cpuinfo (informational only) */
	char time[32]; /* ISO-8601 UTC at collection */
	unsigned ncpus;
};

void lp_host_meta_collect(struct lp_host_meta *m);
/* Its record: the "host" block of lp-rdma's and lp-gpu's documents. */
extern const struct lp_record lp_host_meta_record;

/* The "method" block every JSON document carries: units and clock. */
void lp_method_json(struct lp_json *j);

/* Read the first line of a small sysfs/proc file into buf (newline stripped). */
int lp_read_line(const char *path, char *buf, size_t len);

/*
 * The entries of directory <root><rel> not starting with '.', sorted by strcmp
 * (PCI addresses and device names in a stable order, whatever the locale).
 * 0 with *names_p NULL and *n_p 0 when the directory is absent or empty;
 * -ENAMETOOLONG or -ENOMEM. Free with lp_dir_free().
 */
int lp_dir_list(const char *root, const char *rel, char ***names_p, int *n_p);
void lp_dir_free(char **names, int n);

#endif
