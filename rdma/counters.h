/* SPDX-License-Identifier: MIT */
/*
 * Port, driver and netdev counters of one RDMA port: snapshots, deltas and
 * the one table that says what each counter means.
 *
 * lp_counters_read() reads, under a root prefix ("" for the live system, a
 * fixture directory in tests; lp_counters_root() gives $LP_SYSFS_ROOT):
 *   <root>/sys/class/infiniband/<dev>/ports/<N>/counters/<name>     LP_CTR_PORT
 *     (the IBA PortCounters / PortCountersExtended; port_xmit_data and
 *      port_rcv_data count 4-byte words)
 *   <root>/sys/class/infiniband/<dev>/ports/<N>/hw_counters/<name>  LP_CTR_HW
 *     (whatever the driver offers: mlx5's out_of_sequence, rxe's rcvd_seq_err ...)
 *   for an Ethernet (RoCE) port, its netdev (gid_attrs/ndevs/0, else
 *   <dev>/device/net/<first>):
 *   <root>/sys/class/net/<netdev>/statistics/<name>                  LP_CTR_NETDEV
 *   and on the live system only (root ""), the netdev's ethtool statistics
 *   whose names mention "pause" or "pfc" (PFC/global pause frames), through
 *   the SIOCETHTOOL ioctl (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS,
 *   ETHTOOL_GSTATS)                                                   LP_CTR_ETHTOOL
 * Reading is about a hundred small open/read/close calls (plus three ioctls
 * for ethtool on RoCE): no fork, no external tool. Entries are sorted by
 * source, then name. The snapshot records what it cost (read_ns).
 */
#ifndef LP_RDMA_COUNTERS_H
#define LP_RDMA_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json.h"
#include "common/record.h"

#define LP_CTR_NAME_LEN 64
#define LP_CTR_MAX	512 /* counters kept per snapshot (more are dropped and counted) */

/* Where a counter comes from. */
enum lp_ctr_src {
	LP_CTR_PORT = 0, /* ports/N/counters */
	LP_CTR_HW,	 /* ports/N/hw_counters */
	LP_CTR_NETDEV,	 /* /sys/class/net/IF/statistics */
	LP_CTR_ETHTOOL,	 /* ethtool -S (pause/PFC entries only) */
	LP_CTR_NSRC,
};

/* What a change of the counter says. */
enum lp_ctr_class {
	LP_CTR_TRAFFIC = 0, /* data moved; informational */
	LP_CTR_ERROR,	    /* something was lost, corrupted or refused */
	LP_CTR_CONGESTION,  /* the fabric pushed back: waits, pauses, ECN/CNP */
};

struct lp_counter {
	char name[LP_CTR_NAME_LEN];
	uint8_t src;   /* enum lp_ctr_src */
	uint8_t reset; /* in a delta: the counter went backwards (reset or wrapped); value = after */
	uint64_t value; /* absolute in a snapshot, after - before in a delta */
};

struct lp_counters {
	char dev[64];	  /* RDMA device name */
	unsigned port;	  /* 1-based */
	char netdev[16];  /* RoCE: the port's netdev; "" for InfiniBand */
	unsigned n;	  /* entries used in c[] */
	unsigned dropped; /* counters that did not fit in c[] */
	uint64_t read_ns; /* wall time lp_counters_read() took */
	struct lp_counter c[LP_CTR_MAX];
};

/* One row of the counter table (docs/METHOD.md "Counters"). */
struct lp_ctr_info {
	const char *name; /* sysfs / ethtool name; a trailing '*' matches a prefix */
	enum lp_ctr_class cls;
	const char *meaning; /* one line */
	const char *cause;   /* what usually makes it move */
};

/* $LP_SYSFS_ROOT, or "" (the live system). */
const char *lp_counters_root(void);

/*
 * Snapshot the counters of dev's port (1-based) under root. Files that cannot
 * be read or parsed are skipped. Returns 0, -ENODEV when the port's directory
 * does not exist, -EINVAL for a bad name or port.
 */
int lp_counters_read(const char *root, const char *dev, unsigned port, struct lp_counters *s);

/*
 * d = after - before, per counter present in both (matched by source and
 * name); a counter that went backwards gets reset = 1 and value = after.
 * d carries after's device, port and netdev. d may not alias the inputs.
 */
void lp_counters_delta(const struct lp_counters *before, const struct lp_counters *after,
		       struct lp_counters *d);

/*
 * The table row for a counter, or the default row for an unknown name: its
 * class then follows from the name (err, drop, discard, invalid -> error;
 * cnp, ecn, pause, pfc, wait -> congestion; anything else traffic).
 * Never NULL; the default row's meaning is "not in linkperf's table".
 */
const struct lp_ctr_info *lp_counter_info(const char *name);
/* The known table (for documentation and tests); *n_p = its length. */
const struct lp_ctr_info *lp_counter_table(unsigned *n_p);

const char *lp_ctr_class_name(enum lp_ctr_class c); /* "traffic", "error", "congestion" */
/* The names of enum lp_ctr_class and enum lp_ctr_src, NULL-terminated (records' enum tables). */
extern const char *const lp_ctr_class_names[];
extern const char *const lp_ctr_src_names[];
const char *lp_ctr_src_name(enum lp_ctr_src s); /* "port", "hw", "netdev", "ethtool" */

/*
 * A retry after an ACK timeout, or the duplicate it causes at the responder
 * (local_ack_timeout_err, completer_retry_err, duplicate_request,
 * roce_adp_retrans_to): error class, but a peer merely slow to answer (a
 * starved host) moves them too, so alone they prove no bad link.
 */
bool lp_counter_is_timeout(const char *name);

/* Non-zero error- or congestion-class entries of a delta. */
unsigned lp_counters_alarms(const struct lp_counters *d);

/*
 * Print as a table (source, name, value, class, meaning); nonzero_only skips
 * zero values (for deltas).
 */
void lp_counters_print(const struct lp_counters *s, bool nonzero_only, FILE *f);

/*
 * Write members "device", "port", "netdev", "read_ns", "dropped" and
 * "counters" (an object per source: {name: value}) into the current JSON
 * object; for a delta (is_delta) also "alarms": [{name, source, delta, class,
 * meaning, cause}] for every moved error/congestion counter, and "reset": [names].
 */
void lp_counters_json(const struct lp_counters *s, bool is_delta, struct lp_json *j);

/*
 * The counters that moved on one side during one test (what lp-rdma reports
 * per test and size, and what the server's RESULT carries): at most
 * LP_CTR_MOVED_MAX non-zero deltas, error/congestion class first.
 */
#define LP_CTR_MOVED_MAX 32
struct lp_ctr_moved {
	bool valid;	 /* counters were read before and after the test */
	char dev[64];	 /* RDMA device */
	unsigned port;	 /* 1-based */
	char netdev[16]; /* RoCE netdev or "" */
	unsigned n;	 /* entries in c[] */
	unsigned more;	 /* moved counters that did not fit (traffic class first left out) */
	struct lp_counter c[LP_CTR_MOVED_MAX];
};

/* Its record: the wire form of the server's counters in RESULT (rdma/proto.c). */
extern const struct lp_record lp_ctr_moved_record;
/* One counter's record (name, src, reset, value), nested by the records above and lp-sweep's cells. */
extern const struct lp_record lp_counter_record;

/* m = the non-zero (or reset) entries of delta d, alarms first; m->valid = true. */
void lp_counters_moved(const struct lp_counters *d, struct lp_ctr_moved *m);
/* Error- or congestion-class entries of m. */
unsigned lp_ctr_moved_alarms(const struct lp_ctr_moved *m);
/*
 * JSON value under key: null when !m->valid, else {device, port, netdev,
 * omitted, moved: [{name, source, delta, class, reset}]}.
 */
void lp_ctr_moved_json(const struct lp_ctr_moved *m, const char *key, struct lp_json *j);
/* An array under key of n counters as {name, source, delta, class, reset} (a delta's entries). */
void lp_counter_list_json(const struct lp_counter *c, unsigned n, const char *key,
			  struct lp_json *j);
/* Whether c is of the error or congestion class (what lp_counters_alarms counts). */
bool lp_counter_is_alarm(const struct lp_counter *c);
/* The source named s ("port", "hw", ...), or -1. */
int lp_ctr_src_parse(const char *s);
/*
 * Print m's alarms as "[, ]<side> <dev> <name> +<delta> (<class>)" items,
 * the first without the comma when sep is false. Returns the items printed.
 */
unsigned lp_ctr_moved_print(const struct lp_ctr_moved *m, const char *side, bool sep, FILE *f);

#endif
