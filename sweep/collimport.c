// SPDX-License-Identifier: MIT
/*
 * nccl-tests' outputs and NCCL's INFO lines, read beside the link matrix.
 * The formats are nccl-tests' src/util.cu (writeDeviceReport,
 * writeResultHeader, writeBenchmarkLinePreamble/Body, writeResultFooter, the
 * JSON writer) and NCCL's src/debug.cc (the line prefix), src/init.cc ("comm
 * %p rank %d nRanks %d ...", "Trees"), src/graph/rings.cc (the ring dump),
 * src/transport/p2p.cc and net.cc ("Channel %02d/%d : %d[%d] -> %d[%d] via
 * ..."), src/transport/net_ib/init.cc ("NET/IB : Using ..."). Every number is
 * checked: a row whose busbw does not follow from its algbw by nccl-tests'
 * factor is refused, not imported.
 */
#include "sweep/collimport.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/vec.h"

const char *const lp_coll_via_names[] = { "p2p", "mnnvl", "shm", "net", "other", NULL };

#define MAX_TOK	     128
#define LINE_MAX_LEN 8192

int lp_coll_tokenize(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return -E2BIG;
		tok[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = 0;
	}
}

/* ---- numbers, strictly: the whole token ---- */

static bool tok_long(const char *s, long *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !*end && !errno;
}

static bool tok_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

static bool tok_double(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	*v = strtod(s, &end);
	return !*end && !isnan(*v) && *v >= 0 && isfinite(*v);
}

/* ---- the topology being read ---- */

void lp_coll_topo_free(struct lp_coll_topo *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nrings; i++)
		free(t->rings[i].order);
	free(t->rings);
	free(t->ranks);
	free(t->edges);
	free(t->trees);
	free(t);
}

/* The record of rank r, grown as ranks are seen; NULL out of range or memory. */
static struct lp_coll_topo_rank *rank_at(struct lp_coll_topo *t, long r)
{
	if (r < 0 || r >= LP_COLL_TOPO_MAX_RANKS)
		return NULL;
	if (r >= t->cap_ranks) {
		int nc = LP_MAX((int)r + 1, t->cap_ranks * 2);
		struct lp_coll_topo_rank *p = realloc(t->ranks, sizeof(*p) * nc);

		if (!p)
			return NULL;
		for (int i = t->cap_ranks; i < nc; i++)
			p[i] = (struct lp_coll_topo_rank){ .dev = -1, .node = -1 };
		t->ranks = p;
		t->cap_ranks = nc;
	}
	if (r >= t->nranks)
		t->nranks = (int)r + 1;
	return &t->ranks[r];
}

static int add_edge(struct lp_coll_topo *t, const struct lp_coll_topo_edge *e)
{
	return lp_vec_push(&t->edges, &t->nedges, &t->cap_edges, e, sizeof(*e));
}

static int add_tree(struct lp_coll_topo *t, const struct lp_coll_topo_tree *tr)
{
	return lp_vec_push(&t->trees, &t->ntrees, &t->cap_trees, tr, sizeof(*tr));
}

/* Ring chan's order (replacing an earlier one of the same channel). */
static int set_ring(struct lp_coll_topo *t, int chan, const int *order, int n)
{
	struct lp_coll_topo_ring *r = NULL;
	int *o = malloc(sizeof(int) * (size_t)n);

	if (!o)
		return -ENOMEM;
	memcpy(o, order, sizeof(int) * (size_t)n);
	for (int i = 0; i < t->nrings; i++)
		if (t->rings[i].chan == chan)
			r = &t->rings[i];
	if (!r) {
		struct lp_coll_topo_ring *p = realloc(t->rings, sizeof(*p) * (t->nrings + 1));

		if (!p) {
			free(o);
			return -ENOMEM;
		}
		t->rings = p;
		r = &t->rings[t->nrings++];
		r->order = NULL;
	}
	free(r->order);
	*r = (struct lp_coll_topo_ring){ chan, n, o };
	return 0;
}

/* ---- NCCL INFO lines ---- */

/* "Channel 00/02 :  0 1 2 3": a channel's ring, as rank 0 dumps it (rings.cc). */
static int nccl_ring_dump(struct lp_coll_topo *t, char **tok, int nt)
{
	int order[MAX_TOK], n = 0;
	long chan, v;

	if (nt < 4 || sscanf(tok[1], "%ld", &chan) != 1 || chan < 0 || chan > 1024)
		return -EINVAL;
	if (!strcmp(tok[nt - 1], "..."))
		return 0; /* NCCL cut the line at 128 characters: the order is not all there */
	for (int i = 3; i < nt; i++) {
		if (!tok_long(tok[i], &v) || v < 0 || v >= LP_COLL_TOPO_MAX_RANKS)
			return -EINVAL;
		order[n++] = (int)v;
	}
	return set_ring(t, (int)chan, order, n);
}

/* "0[0]" (rank, device) or older "0[18000]" (rank, bus id): the rank, and the device if small. */
static bool rank_dev(const char *s, int *rank, int *dev)
{
	char *end;
	long r = strtol(s, &end, 10), d;

	if (end == s || *end != '[' || r < 0 || r >= LP_COLL_TOPO_MAX_RANKS)
		return false;
	*rank = (int)r;
	s = end + 1;
	d = strtol(s, &end, 10);
	if (end == s || strcmp(end, "]"))
		*dev = -1; /* a hex bus id */
	else
		*dev = d >= 0 && d < 4096 ? (int)d : -1;
	return strchr(s, ']') != NULL;
}

static void classify_via(struct lp_coll_topo_edge *e)
{
	const char *h = e->how;

	e->netdev = -1;
	if (!strncmp(h, "P2P/MNNVL", 9))
		e->via = LP_COLL_VIA_MNNVL;
	else if (!strncmp(h, "P2P/", 4))
		e->via = LP_COLL_VIA_P2P;
	else if (!strncmp(h, "SHM", 3))
		e->via = LP_COLL_VIA_SHM;
	else if (!strncmp(h, "NET/", 4)) {
		const char *p = strchr(h + 4, '/');

		e->via = LP_COLL_VIA_NET;
		e->netdev = p ? atoi(p + 1) : -1;
		e->gdr = strstr(h, "/GDRDMA") != NULL;
	} else {
		e->via = LP_COLL_VIA_OTHER;
	}
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA" (p2p.cc, net.cc). */
static int nccl_connection(struct lp_coll_topo *t, char **tok, int nt, const char *host)
{
	struct lp_coll_topo_edge e = { 0 };
	int i = 6;
	long chan, conn = 0;

	if (nt < 8 || sscanf(tok[1], "%ld", &chan) != 1 || strcmp(tok[2], ":") ||
	    strcmp(tok[4], "->") || !rank_dev(tok[3], &e.a, &e.a_dev) ||
	    !rank_dev(tok[5], &e.b, &e.b_dev))
		return -EINVAL;
	if (strchr(tok[1], '/'))
		conn = atol(strchr(tok[1], '/') + 1);
	if (!strcmp(tok[i], "[send]") || !strcmp(tok[i], "[receive]")) {
		snprintf(e.side, sizeof(e.side), "%.*s", (int)strlen(tok[i]) - 2, tok[i] + 1);
		i++;
	}
	if (i + 1 >= nt || strcmp(tok[i], "via"))
		return -EINVAL;
	e.chan = (int)chan;
	e.conn = (int)conn;
	snprintf(e.how, sizeof(e.how), "%s", tok[i + 1]);
	snprintf(e.host, sizeof(e.host), "%s", host);
	classify_via(&e);
	if (!rank_at(t, e.a) || !rank_at(t, e.b))
		return -ENOMEM;
	return add_edge(t, &e);
}

/* "Trees [0] 1/-1/-1->0->-1 [1] 2/-1/-1->0->3" (init.cc): per channel, down/down/down->rank->up. */
static int nccl_trees(struct lp_coll_topo *t, char **tok, int nt)
{
	for (int i = 1; i + 1 < nt; i += 2) {
		struct lp_coll_topo_tree tr;
		int rc;

		if (sscanf(tok[i], "[%d]", &tr.chan) != 1 ||
		    sscanf(tok[i + 1], "%d/%d/%d->%d->%d", &tr.down[0], &tr.down[1], &tr.down[2],
			   &tr.rank, &tr.up) != 5 ||
		    tr.rank < 0 || tr.rank >= LP_COLL_TOPO_MAX_RANKS)
			return -EINVAL;
		rc = add_tree(t, &tr);
		if (rc)
			return rc;
	}
	return 0;
}

/* "comm 0x55d0 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0" (and older spellings). */
static int nccl_comm(struct lp_coll_topo *t, char **tok, int nt, const char *host, int pid, int dev)
{
	long rank = -1, v;
	struct lp_coll_topo_rank *r;

	for (int i = 2; i + 1 < nt; i++) {
		if (!tok_long(tok[i + 1], &v))
			continue;
		if (!strcmp(tok[i], "rank"))
			rank = v;
		else if (!strcasecmp(tok[i], "nRanks") && v >= 1 && !rank_at(t, v - 1))
			return v > LP_COLL_TOPO_MAX_RANKS ? -EINVAL
							  : -ENOMEM; /* every rank has its slot */
		else if (!strcmp(tok[i], "nNodes"))
			t->nnodes = (int)v;
		else if (!strcmp(tok[i], "MNNVL"))
			t->mnnvl = (int)v;
		else if (!strcmp(tok[i], "cudaDev"))
			dev = (int)v;
	}
	r = rank_at(t, rank);
	if (!r)
		return rank < 0 || rank >= LP_COLL_TOPO_MAX_RANKS ? -EINVAL : -ENOMEM;
	r->seen = true;
	snprintf(r->host, sizeof(r->host), "%s", host);
	r->pid = pid;
	r->dev = dev;
	return 0;
}

/* "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>". */
static int nccl_nets(struct lp_coll_topo *t, char **tok, int nt, const char *host)
{
	for (int i = 3; i < nt && t->nnets < LP_COLL_TOPO_MAX_NETS; i++) {
		struct lp_coll_topo_net *n = &t->nets[t->nnets];
		char *slash, *colon;
		int idx, off = -1;

		if (!strcmp(tok[i], "OOB") || tok[i][0] == ';')
			break;
		if (sscanf(tok[i], "[%d]%n", &idx, &off) != 1 || off < 0)
			continue; /* "[RO]", "[RO];", "[3" */
		memset(n, 0, sizeof(*n));
		snprintf(n->host, sizeof(n->host), "%s", host);
		n->idx = idx;
		snprintf(n->dev, sizeof(n->dev), "%s", tok[i] + off);
		slash = strchr(n->dev, '/');
		if (slash) {
			snprintf(n->link, sizeof(n->link), "%s", slash + 1);
			*slash = 0;
		}
		colon = strchr(n->dev, ':');
		if (colon) {
			n->port = atoi(colon + 1);
			*colon = 0;
		}
		n->link[strcspn(n->link, ";")] = 0;
		t->nnets++;
	}
	return 0;
}

/* The message of an NCCL INFO line. -EINVAL: it starts like a known one and does not parse. */
static int nccl_msg(struct lp_coll_topo *t, char **tok, int nt, const char *host, int pid, int dev)
{
	if (nt >= 3 && !strcmp(tok[0], "NCCL") && !strcmp(tok[1], "version")) {
		snprintf(t->nccl_version, sizeof(t->nccl_version), "%s", tok[2]);
		return 0;
	}
	if (nt >= 4 && !strcmp(tok[0], "comm") && !strcmp(tok[2], "rank"))
		return nccl_comm(t, tok, nt, host, pid, dev);
	if (nt >= 3 && !strcmp(tok[0], "Channel") && isdigit((unsigned char)tok[1][0])) {
		for (int i = 3; i < nt; i++)
			if (!strcmp(tok[i], "->"))
				return nccl_connection(t, tok, nt, host);
		return nccl_ring_dump(t, tok, nt);
	}
	if (nt >= 2 && !strcmp(tok[0], "Trees"))
		return nccl_trees(t, tok, nt);
	if (nt >= 3 && !strncmp(tok[0], "NET/", 4) && !strcmp(tok[1], ":") &&
	    !strcmp(tok[2], "Using"))
		return nccl_nets(t, tok, nt, host);
	if (nt >= 3 && !strcmp(tok[0], "Using") && !strcmp(tok[1], "network")) {
		snprintf(t->network, sizeof(t->network), "%s", tok[2]);
		return 0;
	}
	if (nt >= 2 && !strcmp(tok[0], "MNNVL") && isdigit((unsigned char)tok[1][0])) {
		t->mnnvl = atoi(tok[1]);
		return 0;
	}
	return 1; /* another INFO line: not ours */
}

/*
 * "[ts] host:pid:tid [dev] NCCL INFO msg" (debug.cc): 1 when the line is not
 * an NCCL INFO line, else nccl_msg's answer.
 */
static int nccl_line(struct lp_coll_topo *t, char *line)
{
	char *info = strstr(line, " NCCL INFO "), *tok[MAX_TOK], host[64] = "";
	int nt, pid = -1, dev = -1;

	if (!info)
		return 1;
	*info = 0;
	nt = lp_coll_tokenize(line, tok, MAX_TOK);
	if (nt > 0 && sscanf(tok[nt - 1], "[%d]", &dev) == 1)
		nt--;
	if (nt > 0) {
		char *c1 = strchr(tok[nt - 1], ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2) {
			*c1 = 0;
			snprintf(host, sizeof(host), "%s", tok[nt - 1]);
			pid = atoi(c1 + 1);
		}
	}
	nt = lp_coll_tokenize(info + strlen(" NCCL INFO "), tok, MAX_TOK);
	if (nt < 0)
		return nt == -E2BIG ? 1 : nt; /* a ring dump wider than we keep: skipped */
	return nccl_msg(t, tok, nt, host, pid, dev);
}

/* ---- nccl-tests' text ---- */

/* The table's columns, from its header line (or guessed from a row's width). */
struct layout {
	bool known;
	bool root;  /* the root column (nccl-tests >= 2.10) */
	int per;    /* columns per placement: time algbw busbw #wrong [i_min i_max i_p99 i_cv%] */
	int coll;   /* the collective, -1 unknown */
	int nranks; /* from the "# Rank" lines; 0 unknown */
	long warmup, iters;
};

static void header_columns(struct layout *L, char **tok, int nt)
{
	L->known = true;
	L->root = false;
	L->per = 4;
	for (int i = 0; i < nt; i++) {
		if (!strcmp(tok[i], "root"))
			L->root = true;
		if (!strcmp(tok[i], "i_min"))
			L->per = 8;
	}
}

/* "# nThread 1 nGpus 1 minBytes 8 ... warmup iters: 5 iters: 20 agg iters: 1 ...". */
static void header_params(struct layout *L, char **tok, int nt)
{
	for (int i = 1; i + 1 < nt; i++) {
		long v;

		if (!strcmp(tok[i], "iters:") && tok_long(tok[i + 1], &v)) {
			if (!strcmp(tok[i - 1], "warmup"))
				L->warmup = v;
			else if (strcmp(tok[i - 1], "agg"))
				L->iters = v;
		}
	}
}

/* "#  Rank  0 Group  0 Pid  12345 on host device  0 [0000:18:00] NVIDIA H100 80GB HBM3". */
static int tests_rank(struct lp_coll_topo *t, struct layout *L, char **tok, int nt)
{
	struct lp_coll_topo_rank *r = NULL;
	long v;

	for (int i = 1; i + 1 < nt; i++) {
		if (!strcmp(tok[i], "Rank") && tok_long(tok[i + 1], &v)) {
			r = rank_at(t, v);
			if (!r)
				return v < 0 || v >= LP_COLL_TOPO_MAX_RANKS ? -EINVAL : -ENOMEM;
			r->seen = true;
			L->nranks = LP_MAX(L->nranks, (int)v + 1);
		} else if (r && !strcmp(tok[i], "Pid") && tok_long(tok[i + 1], &v)) {
			r->pid = (int)v;
		} else if (r && !strcmp(tok[i], "on")) {
			snprintf(r->host, sizeof(r->host), "%s", tok[i + 1]);
		} else if (r && !strcmp(tok[i], "device") && tok_long(tok[i + 1], &v)) {
			r->dev = (int)v;
			if (i + 2 < nt && tok[i + 2][0] == '[') {
				snprintf(r->busid, sizeof(r->busid), "%.*s",
					 (int)strcspn(tok[i + 2] + 1, "]"), tok[i + 2] + 1);
				for (int k = i + 3, len = 0;
				     k < nt && len < (int)sizeof(r->gpu) - 1; k++)
					len += snprintf(r->gpu + len, sizeof(r->gpu) - len, "%s%s",
							len ? " " : "", tok[k]);
			}
			break;
		}
	}
	return r ? 0 : -EINVAL;
}

/* A comment line of nccl-tests; 1 when it is none of those we read. */
static int tests_comment(struct lp_coll_topo *t, struct layout *L, char **tok, int nt)
{
	double v;

	if (nt >= 4 && !strcmp(tok[1], "nccl-tests") && !strcmp(tok[2], "version")) {
		snprintf(t->tests_version, sizeof(t->tests_version), "%s", tok[3]);
	} else if (nt >= 5 && !strcmp(tok[1], "Collective") && !strcmp(tok[3], "starting:")) {
		snprintf(t->program, sizeof(t->program), "%s", tok[4]);
		L->coll = lp_coll_kind_parse(tok[4]);
	} else if (nt >= 2 && !strcmp(tok[1], "nThread")) {
		header_params(L, tok, nt);
	} else if (nt >= 3 && !strcmp(tok[1], "Rank")) {
		return tests_rank(t, L, tok, nt);
	} else if (nt >= 4 && !strcmp(tok[1], "size") && !strcmp(tok[2], "count")) {
		header_columns(L, tok, nt);
	} else if (nt >= 6 && !strcmp(tok[1], "Avg") && !strcmp(tok[3], "bandwidth")) {
		t->avg_busbw = tok_double(tok[5], &v) ? v : NAN;
	} else if (nt >= 7 && !strcmp(tok[1], "Out") && !strcmp(tok[3], "bounds")) {
		long n;

		t->out_of_bounds = tok_long(tok[6], &n) ? n : -1;
	} else {
		return 1;
	}
	return 0;
}

/* One placement of a row: time algbw busbw #wrong (and the per-iteration columns, not kept). */
struct place {
	double time_us, algbw, busbw;
	int64_t wrong; /* -1: N/A */
	bool exp_time; /* time printed with an exponent (two digits) */
};

struct row {
	uint64_t size, count;
	char type[12], redop[8];
	int root;
	struct place p[2]; /* out of place, in place */
	size_t line;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static bool parse_place(char **tok, struct place *p)
{
	double w;

	if (!tok_double(tok[0], &p->time_us) || !tok_double(tok[1], &p->algbw) ||
	    !tok_double(tok[2], &p->busbw))
		return false;
	p->exp_time = strchr(tok[0], 'e') != NULL;
	if (!strcmp(tok[3], "N/A"))
		p->wrong = -1;
	else if (tok_double(tok[3], &w) && w <= 9e18)
		p->wrong = (int64_t)w;
	else
		return false;
	return true;
}

/* "  8388608  2097152  float  sum  -1  123.4  67.95  127.40  0  120.1  69.84  130.95  0". */
static int tests_row(struct rows *rs, struct layout *L, char **tok, int nt, size_t line)
{
	struct row r = { .root = -1, .line = line };
	int fixed, need;
	long root;

	if (!L->known) { /* no header: the row's width says which layout */
		L->per = nt >= 21 ? 8 : 4;
		L->root = nt == 5 + 2 * L->per || nt == 5 + 2 * L->per + 2;
	}
	fixed = L->root ? 5 : 4;
	need = fixed + 2 * L->per;
	if (nt != need && nt != need + 2) /* + a timestamp (-S) */
		return -EINVAL;
	if (!tok_u64(tok[0], &r.size) || !tok_u64(tok[1], &r.count) || strlen(tok[2]) >= 12 ||
	    strlen(tok[3]) >= 8)
		return -EINVAL;
	snprintf(r.type, sizeof(r.type), "%s", tok[2]);
	snprintf(r.redop, sizeof(r.redop), "%s", tok[3]);
	if (L->root) {
		if (!tok_long(tok[4], &root) || root < -1 || root > INT_MAX)
			return -EINVAL;
		r.root = (int)root;
	}
	if (!parse_place(tok + fixed, &r.p[0]) || !parse_place(tok + fixed + L->per, &r.p[1]))
		return -EINVAL;
	return lp_vec_push(&rs->v, &rs->n, &rs->cap, &r, sizeof(r));
}

/* ---- the text, line by line ---- */

struct reader {
	struct lp_coll_topo *t;
	struct layout L;
	struct rows rows;
	size_t line;
	struct lp_fail *fail;
};

static int bad_line(struct reader *rd, const char *text, const char *what)
{
	return lp_fail_set(rd->fail, -EINVAL, "line %zu: %s: '%.80s'", rd->line, what, text);
}

/* A line's failure: said with its number (a bad line is -EINVAL, anything else as it is). */
static int line_failed(struct reader *rd, int rc, const char *text, const char *what)
{
	if (rc == -EINVAL)
		return bad_line(rd, text, what);
	if (rc < 0)
		lp_fail_set(rd->fail, rc, "line %zu: %s", rd->line, strerror(-rc));
	return rc;
}

static int read_line(struct reader *rd, char *line)
{
	char copy[LINE_MAX_LEN], *tok[MAX_TOK];
	int nt, rc;

	snprintf(copy, sizeof(copy), "%s", line);
	rc = nccl_line(rd->t, line);
	if (rc <= 0)
		return line_failed(rd, rc, copy, "an NCCL INFO line that does not parse");
	snprintf(line, LINE_MAX_LEN, "%s", copy);
	nt = lp_coll_tokenize(line, tok, MAX_TOK);
	if (nt <= 0)
		return 1;
	if (tok[0][0] == '#' && !tok[0][1])
		return line_failed(rd, tests_comment(rd->t, &rd->L, tok, nt), copy,
				   "a nccl-tests header line that does not parse");
	/* two counts first: a row (after the table's header, however short; else at full width) */
	if ((nt >= 12 || rd->L.known) && tok_u64(tok[0], &(uint64_t){ 0 }) &&
	    tok_u64(tok[1], &(uint64_t){ 0 }))
		return line_failed(rd, tests_row(&rd->rows, &rd->L, tok, nt, rd->line), copy,
				   "a nccl-tests row that does not parse");
	return 1;
}

static int read_text(struct reader *rd, const char *text, size_t len)
{
	char line[LINE_MAX_LEN];
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		int rc;

		rd->line++;
		rd->t->lines++;
		if (n >= sizeof(line) || memchr(text + i, 0, n))
			return lp_fail_set(rd->fail, -EINVAL, "line %zu: %s", rd->line,
					   n >= sizeof(line) ? "longer than 8 KiB"
							     : "a NUL byte: not text");
		memcpy(line, text + i, n);
		line[n] = 0;
		if (n && line[n - 1] == '\r')
			line[n - 1] = 0;
		rc = read_line(rd, line);
		if (rc < 0)
			return rc;
		rd->t->lines_used += rc == 0;
		i += n + 1;
	}
	return 0;
}

/* ---- from rows to results: which collective, how many ranks, and every figure checked ---- */

static int median_ratio(const struct rows *rs, double *ratio)
{
	double v[512];
	size_t n = 0;

	for (size_t i = 0; i < rs->n && n < 512; i++)
		for (int p = 0; p < 2; p++)
			if (rs->v[i].p[p].algbw >= 0.1 && n < 512)
				v[n++] = rs->v[i].p[p].busbw / rs->v[i].p[p].algbw;
	if (!n)
		return -ENOENT;
	for (size_t i = 1; i < n; i++) /* insertion sort: n <= 512 */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	*ratio = v[n / 2];
	return 0;
}

/* The collective: nccl-tests' own line, else the file's name, else busbw/algbw with the redop. */
static int which_coll(struct reader *rd, const char *src, double ratio, bool have_ratio)
{
	static const char *const names[] = {
		"all_reduce",	  "allreduce",	   "all_gather", "allgather",
		"reduce_scatter", "reducescatter", "alltoall",	 "broadcast",
		"sendrecv",	  "reduce",	   NULL
	};
	const char *base = strrchr(src, '/');
	bool sum = rd->rows.n && !strcmp(rd->rows.v[0].redop, "sum");

	if (rd->L.coll >= 0)
		return rd->L.coll;
	base = base ? base + 1 : src;
	for (int i = 0; names[i]; i++)
		if (strstr(base, names[i]))
			return lp_coll_kind_parse(names[i]);
	if (have_ratio && ratio > 1.02 && sum)
		return LP_COLL_ALLREDUCE; /* 2(n-1)/n > 1 from n = 3 on */
	if (have_ratio && ratio < 0.98 && sum)
		return LP_COLL_REDUCESCATTER;
	return -1;
}

/* n from busbw/algbw: 2(n-1)/n = r gives n = 2/(2-r); (n-1)/n = r gives n = 1/(1-r). */
static int ranks_from_ratio(int coll, double r)
{
	double f = lp_coll_factor(coll, 2), n;

	if (f == 1.0 && coll != LP_COLL_ALLREDUCE)
		return 0; /* factor 1 whatever n is */
	n = coll == LP_COLL_ALLREDUCE ? 2 / (2 - r) : 1 / (1 - r);
	return isfinite(n) && n >= 1.5 && n < LP_COLL_TOPO_MAX_RANKS ? (int)lround(n) : 0;
}

/* busbw = algbw x factor, and algbw = size / time, within what printing rounds away. */
static int check_place(struct reader *rd, const struct row *r, const struct place *p, int coll,
		       int n)
{
	double f = lp_coll_factor(coll, n), want = p->algbw * f,
	       tol = 0.011 + 0.002 * LP_MAX(p->busbw, want), alg = NAN;

	if (n > 0 && fabs(p->busbw - want) > tol)
		return lp_fail_set(
			rd->fail, -EINVAL,
			"line %zu: busbw %.2f does not follow from algbw %.2f x %.4g (%s over %d "
			"ranks, nccl-tests' factor)",
			r->line, p->busbw, p->algbw, f, lp_coll_names[coll], n);
	if (p->time_us >= 1)
		alg = (double)r->size / (p->time_us * 1e3);
	if (p->algbw >= 1 && isfinite(alg) &&
	    fabs(alg - p->algbw) > 0.011 + (p->exp_time ? 0.06 : 0.011) * p->algbw)
		return lp_fail_set(
			rd->fail, -EINVAL,
			"line %zu: algbw %.2f GB/s does not follow from size %llu B over %.4g us "
			"(%.2f)",
			r->line, p->algbw, (unsigned long long)r->size, p->time_us, alg);
	return 0;
}

static int emit_rows(struct lp_coll_run *cr, struct reader *rd, int coll, int n, const char *group)
{
	for (size_t i = 0; i < rd->rows.n; i++)
		for (int pl = 0; pl < 2; pl++) {
			const struct row *r = &rd->rows.v[i];
			const struct place *p = &r->p[pl];
			struct lp_coll_result res;
			int rc = check_place(rd, r, p, coll, n);

			if (rc)
				return rc;
			lp_coll_result_init(&res, coll, LP_COLL_PATH_IMPORT, group, n);
			res.size = r->size;
			res.count = r->count;
			snprintf(res.type, sizeof(res.type), "%s", r->type);
			snprintf(res.redop, sizeof(res.redop), "%s", r->redop);
			res.root = r->root;
			res.in_place = pl == 1;
			res.warmup = (int32_t)LP_MIN(rd->L.warmup, INT32_MAX);
			res.iters = (int32_t)LP_MIN(rd->L.iters, INT32_MAX);
			res.time_us = p->time_us;
			res.algbw = p->algbw;
			res.busbw = p->busbw;
			res.wrong = p->wrong;
			rc = lp_coll_run_add_result(cr, &res);
			if (rc)
				return rc;
		}
	return 0;
}

static int finish_rows(struct lp_coll_run *cr, struct reader *rd, const char *src,
		       const char *group)
{
	double ratio = NAN;
	bool have = !median_ratio(&rd->rows, &ratio);
	int coll, n;

	if (!rd->rows.n)
		return 0;
	coll = which_coll(rd, src, ratio, have);
	if (coll < 0)
		return lp_fail_set(
			rd->fail, -EINVAL,
			"which collective is this table? keep nccl-tests' '# Collective test "
			"starting' line or name the file after its binary (all_reduce_perf.txt)");
	n = rd->L.nranks > 0 ? rd->L.nranks : have ? ranks_from_ratio(coll, ratio) : 0;
	if (n <= 0 && lp_coll_factor(coll, 2) != 1.0)
		return lp_fail_set(
			rd->fail, -EINVAL,
			"how many ranks? no '# Rank' lines and no row from which busbw/algbw tells");
	if (!rd->t->program[0])
		snprintf(rd->t->program, sizeof(rd->t->program), "%s",
			 lp_coll_nccl_tests_name((enum lp_coll_kind)coll));
	rd->t->nrows = (int)rd->rows.n;
	return emit_rows(cr, rd, coll, n, group);
}

/* Ranks learn their host from the connections they logged (a sender logs P2P and [send]). */
static void hosts_from_edges(struct lp_coll_topo *t)
{
	for (size_t i = 0; i < t->nedges; i++) {
		const struct lp_coll_topo_edge *e = &t->edges[i];
		int r = strcmp(e->side, "receive") ? e->a : e->b;
		int dev = strcmp(e->side, "receive") ? e->a_dev : e->b_dev;

		if (r < t->nranks && e->host[0] && !t->ranks[r].host[0]) {
			snprintf(t->ranks[r].host, sizeof(t->ranks[r].host), "%s", e->host);
			t->ranks[r].seen = true;
			if (t->ranks[r].dev < 0)
				t->ranks[r].dev = dev;
		}
	}
}

static struct lp_coll_topo *topo_new(const char *src)
{
	struct lp_coll_topo *t = calloc(1, sizeof(*t));

	if (t) {
		snprintf(t->src, sizeof(t->src), "%s", src ? src : "-");
		t->avg_busbw = NAN;
		t->out_of_bounds = -1;
	}
	return t;
}

/* The topology joins cr when it holds anything; else it is freed. */
static int keep_topo(struct lp_coll_run *cr, struct lp_coll_topo *t, const char *src)
{
	if (cr->ntopo >= LP_COLL_MAX_IMPORT || cr->nimport >= LP_COLL_MAX_IMPORT) {
		lp_coll_topo_free(t);
		return -E2BIG;
	}
	snprintf(cr->import_src[cr->nimport++], sizeof(cr->import_src[0]), "%s", src);
	cr->topo[cr->ntopo++] = t;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int lp_coll_import_text(struct lp_coll_run *cr, const char *text, size_t len, const char *src,
			const char *label, struct lp_fail *fail)
{
	struct reader rd = { .fail = fail };
	char group[LP_COLL_GROUP_LEN];
	size_t nres = cr->nres;
	int rc;

	if (cr->nimport >= LP_COLL_MAX_IMPORT)
		return lp_fail_set(fail, -E2BIG, "at most %d imports", LP_COLL_MAX_IMPORT);
	rd.t = topo_new(src);
	if (!rd.t)
		return -ENOMEM;
	rd.L = (struct layout){ .coll = -1, .warmup = -1, .iters = -1 };
	snprintf(group, sizeof(group), "%s", label ? label : base_name(rd.t->src));
	rc = read_text(&rd, text, len);
	if (!rc)
		rc = finish_rows(cr, &rd, rd.t->src, group);
	if (!rc && !rd.rows.n && !rd.t->nranks && !rd.t->nedges && !rd.t->nrings)
		rc = lp_fail_set(fail, -EINVAL,
				 "neither a nccl-tests table nor NCCL INFO lines (%zu lines read)",
				 rd.t->lines);
	free(rd.rows.v);
	if (rc) {
		cr->nres = nres; /* nothing of a refused file stays */
		lp_coll_topo_free(rd.t);
		return rc;
	}
	hosts_from_edges(rd.t);
	return keep_topo(cr, rd.t, rd.t->src);
}

/* ---- nccl-tests' JSON (-J) ---- */

#ifdef LP_HAVE_JANSSON
#include <jansson.h>

/* A number, or nccl-tests' "nan" string (NaN); absent: NaN. */
static double jdouble(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int json_place(struct reader *rd, const json_t *o, struct place *p)
{
	const json_t *w = json_object_get(o, "nwrong");

	if (!json_is_object(o))
		return -EINVAL;
	p->time_us = jdouble(o, json_object_get(o, "time") ? "time" : "cpu_time");
	p->algbw = jdouble(o, "alg_bw");
	p->busbw = jdouble(o, "bus_bw");
	p->wrong = json_is_number(w) ? (int64_t)json_number_value(w) : -1;
	p->exp_time = false;
	(void)rd;
	return isfinite(p->time_us) && isfinite(p->algbw) && isfinite(p->busbw) ? 0 : -EINVAL;
}

static int json_rows(struct reader *rd, const json_t *results)
{
	size_t i;
	const json_t *o;

	json_array_foreach(results, i, o)
	{
		struct row r = { .root = -1, .line = i + 1 };
		const char *type = json_string_value(json_object_get(o, "type")),
			   *redop = json_string_value(json_object_get(o, "redop")),
			   *root = json_string_value(json_object_get(o, "root"));
		json_int_t size = json_integer_value(json_object_get(o, "size")),
			   count = json_integer_value(json_object_get(o, "count"));

		if (!json_is_object(o) || size <= 0 || count < 0 || !type || !redop ||
		    json_place(rd, json_object_get(o, "out_of_place"), &r.p[0]) ||
		    json_place(rd, json_object_get(o, "in_place"), &r.p[1]))
			return lp_fail_set(rd->fail, -EINVAL,
					   "results[%zu]: not a nccl-tests result", i);
		r.size = (uint64_t)size;
		r.count = (uint64_t)count;
		snprintf(r.type, sizeof(r.type), "%s", type);
		snprintf(r.redop, sizeof(r.redop), "%s", redop);
		r.root = root ? atoi(root) : -1;
		if (lp_vec_push(&rd->rows.v, &rd->rows.n, &rd->rows.cap, &r, sizeof(r)))
			return -ENOMEM;
	}
	return 0;
}

/* config: iterations, and every rank's device line. */
static void json_config(struct reader *rd, const json_t *cfg)
{
	const json_t *d;
	size_t i;

	rd->L.warmup = json_integer_value(json_object_get(cfg, "warmup_iters"));
	rd->L.iters = json_integer_value(json_object_get(cfg, "iterations"));
	json_array_foreach(json_object_get(cfg, "devices"), i, d)
	{
		json_int_t rank = json_integer_value(json_object_get(d, "rank"));
		struct lp_coll_topo_rank *r = rank_at(rd->t, rank);
		const char *host = json_string_value(json_object_get(d, "hostname")),
			   *hex = json_string_value(json_object_get(d, "device_hex")),
			   *gpu = json_string_value(json_object_get(d, "device_info"));

		if (!r)
			continue;
		r->seen = true;
		r->pid = (int)json_integer_value(json_object_get(d, "pid"));
		r->dev = (int)json_integer_value(json_object_get(d, "device"));
		snprintf(r->host, sizeof(r->host), "%s", host ? host : "");
		snprintf(r->busid, sizeof(r->busid), "%s", hex ? hex : "");
		snprintf(r->gpu, sizeof(r->gpu), "%s", gpu ? gpu : "");
		rd->L.nranks = LP_MAX(rd->L.nranks, (int)rank + 1);
	}
}

static int import_json(struct lp_coll_run *cr, const char *path, const char *label,
		       struct lp_fail *fail)
{
	struct reader rd = { .fail = fail };
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	const json_t *args, *results;
	char group[LP_COLL_GROUP_LEN];
	size_t nres = cr->nres;
	int rc = -EINVAL;

	if (!root)
		return lp_fail_set(fail, -EINVAL, "not JSON: %s (line %d)", err.text, err.line);
	rd.t = topo_new(path);
	if (!rd.t) {
		json_decref(root);
		return -ENOMEM;
	}
	rd.L = (struct layout){ .coll = -1, .warmup = -1, .iters = -1 };
	args = json_object_get(root, "args");
	results = json_object_get(root, "results");
	if (!json_is_array(results) || !json_is_integer(json_object_get(root, "version"))) {
		lp_fail_set(fail, rc, "not a nccl-tests JSON output (version, results)");
		goto out;
	}
	if (json_is_string(json_array_get(args, 0))) {
		const char *prog = base_name(json_string_value(json_array_get(args, 0)));

		snprintf(rd.t->program, sizeof(rd.t->program), "%s", prog);
		rd.L.coll = lp_coll_kind_parse(prog);
	}
	if (json_is_integer(json_object_get(root, "nccl_version"))) {
		json_int_t v = json_integer_value(json_object_get(root, "nccl_version"));

		snprintf(rd.t->nccl_version, sizeof(rd.t->nccl_version), "%lld.%lld.%lld",
			 (long long)(v / 10000), (long long)(v % 10000 / 100),
			 (long long)(v % 100));
	}
	json_config(&rd, json_object_get(root, "config"));
	rd.t->avg_busbw = jdouble(json_object_get(root, "average_bus_bandwidth"), "bandwidth");
	snprintf(group, sizeof(group), "%s", label ? label : base_name(path));
	rc = json_rows(&rd, results);
	if (!rc)
		rc = finish_rows(cr, &rd, path, group);
	if (!rc && !rd.rows.n)
		rc = lp_fail_set(fail, -EINVAL, "a nccl-tests JSON output without results");
out:
	json_decref(root);
	free(rd.rows.v);
	if (rc) {
		cr->nres = nres;
		lp_coll_topo_free(rd.t);
		return rc;
	}
	return keep_topo(cr, rd.t, path);
}
#else
static int import_json(struct lp_coll_run *cr, const char *path, const char *label,
		       struct lp_fail *fail)
{
	(void)cr;
	(void)path;
	(void)label;
	return lp_fail_set(fail, -ENOTSUP, "a JSON file needs a build with libjansson-dev");
}
#endif

int lp_coll_import(struct lp_coll_run *cr, const char *path, const char *label,
		   struct lp_fail *fail)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int rc = 0, c;

	if (!f)
		return lp_fail_set(fail, -errno, "cannot open: %s", strerror(errno));
	while ((c = fgetc(f)) != EOF && isspace(c))
		;
	if (c == '{') {
		fclose(f);
		return import_json(cr, path, label, fail);
	}
	rewind(f);
	do {
		if (len + 65536 > cap) {
			char *p = cap < ((size_t)256 << 20) ? realloc(buf, cap + 65536 * 4) : NULL;

			if (!p) {
				rc = cap ? -E2BIG : -ENOMEM;
				lp_fail_set(fail, rc, "%s",
					    cap ? "larger than 256 MiB" : "out of memory");
				break;
			}
			buf = p;
			cap += 65536 * 4;
		}
		got = fread(buf + len, 1, 65536, f);
		len += got;
	} while (got > 0);
	if (!rc && ferror(f)) {
		rc = lp_fail_set(fail, -EIO, "read error");
	}
	fclose(f);
	if (!rc)
		rc = lp_coll_import_text(cr, buf ? buf : "", len, path, label, fail);
	free(buf);
	return rc;
}

/* ---- beside the matrix ---- */

/* "node7" matches "node7" and "node7.cluster"; "node7.a" matches "node7.b" only when equal. */
static bool same_host(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return *a && (!strcmp(a, b) || (la == lb && !strncmp(a, b, la) && (!a[la] || !b[lb])));
}

int lp_coll_topo_map(struct lp_coll_topo *t, const char *const *hosts, const int *rails, int n)
{
	int mapped = 0;

	for (int r = 0; r < t->nranks; r++) {
		struct lp_coll_topo_rank *rk = &t->ranks[r];

		rk->node = -1;
		for (int i = 0; i < n && rk->host[0]; i++)
			if (hosts[i] && same_host(rk->host, hosts[i]) &&
			    (!rails || rails[i] == rk->dev || (rails[i] == 0 && rk->dev < 0))) {
				rk->node = i;
				break;
			}
		mapped += rk->node >= 0;
	}
	return mapped;
}

int lp_coll_topo_ceiling(const struct lp_coll_topo *t, const struct lp_coll_fabric *f,
			 struct lp_coll_ceiling *c)
{
	struct lp_coll_flow *fl;
	size_t nfl = 0, total = 0;
	int intra = 0, rc;

	struct lp_coll_topo_ring rank_order = { 0, t->nranks, NULL };
	const struct lp_coll_topo_ring *rings = t->rings;
	int nrings = t->nrings;

	if (!nrings &&
	    t->nranks >= 2) { /* no NCCL lines: its ring in rank order, as NCCL's usual */
		rank_order.order = malloc(sizeof(int) * (size_t)t->nranks);
		if (!rank_order.order)
			return -ENOMEM;
		for (int i = 0; i < t->nranks; i++)
			rank_order.order[i] = i;
		rings = &rank_order;
		nrings = 1;
	}
	for (int i = 0; i < nrings; i++)
		total += (size_t)rings[i].n;
	if (!nrings || !total || t->nranks < 2) {
		free(rank_order.order);
		return -ENOENT;
	}
	fl = malloc(sizeof(*fl) * total);
	if (!fl) {
		free(rank_order.order);
		return -ENOMEM;
	}
	for (int i = 0; i < nrings; i++) {
		const struct lp_coll_topo_ring *rg = &rings[i];
		/* every channel carries 1/C of the data: 2(n-1)/n of it over each of its edges */
		double load = lp_coll_factor(LP_COLL_ALLREDUCE, t->nranks) / nrings;

		for (int k = 0; k < rg->n; k++) {
			int a = rg->order[k], b = rg->order[(k + 1) % rg->n];
			int na = a < t->nranks ? t->ranks[a].node : -1,
			    nb = b < t->nranks ? t->ranks[b].node : -1;

			if (na < 0 || nb < 0 || na == nb || na >= f->n || nb >= f->n)
				intra++; /* a hop inside a host, or a rank not on a node of the run */
			else
				fl[nfl++] = (struct lp_coll_flow){ na, nb, load };
		}
	}
	rc = nfl ? lp_coll_ceiling_flows(f, LP_COLL_ALLREDUCE, t->nranks, fl, nfl, c) : -ENOENT;
	free(fl);
	free(rank_order.order);
	if (rc)
		return rc;
	c->unknown += intra;
	c->nedges += intra;
	snprintf(c->group, sizeof(c->group), "%s", base_name(t->src));
	return 0;
}

/* ---- sinks ---- */

static void count_via(const struct lp_coll_topo *t, int *n)
{
	for (int v = 0; v <= LP_COLL_VIA_OTHER; v++)
		n[v] = 0;
	for (size_t i = 0; i < t->nedges; i++)
		n[t->edges[i].via]++;
}

static void json_ranks(struct lp_json *j, const struct lp_coll_topo *t)
{
	lp_json_arr_begin(j, "ranks");
	for (int r = 0; r < t->nranks; r++) {
		const struct lp_coll_topo_rank *rk = &t->ranks[r];

		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "rank", r);
		lp_json_str(j, "host", rk->host[0] ? rk->host : NULL);
		lp_json_int(j, "device", rk->dev);
		lp_json_str(j, "bus_id", rk->busid[0] ? rk->busid : NULL);
		lp_json_str(j, "gpu", rk->gpu[0] ? rk->gpu : NULL);
		if (rk->node >= 0)
			lp_json_int(j, "node", rk->node);
		else
			lp_json_null(j, "node");
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

static void json_graph(struct lp_json *j, const struct lp_coll_topo *t)
{
	lp_json_arr_begin(j, "rings");
	for (int i = 0; i < t->nrings; i++) {
		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "channel", t->rings[i].chan);
		lp_json_arr_begin(j, "order");
		for (int k = 0; k < t->rings[i].n; k++)
			lp_json_int(j, NULL, t->rings[i].order[k]);
		lp_json_arr_end(j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "trees");
	for (size_t i = 0; i < t->ntrees; i++) {
		const struct lp_coll_topo_tree *tr = &t->trees[i];

		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "channel", tr->chan);
		lp_json_int(j, "rank", tr->rank);
		lp_json_int(j, "up", tr->up);
		lp_json_arr_begin(j, "down");
		for (int k = 0; k < 3; k++)
			lp_json_int(j, NULL, tr->down[k]);
		lp_json_arr_end(j);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

static void json_edges(struct lp_json *j, const struct lp_coll_topo *t)
{
	lp_json_arr_begin(j, "connections");
	for (size_t i = 0; i < t->nedges; i++) {
		const struct lp_coll_topo_edge *e = &t->edges[i];

		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "channel", e->chan);
		lp_json_int(j, "from", e->a);
		lp_json_int(j, "to", e->b);
		lp_json_str(j, "via", lp_coll_via_names[e->via]);
		lp_json_str(j, "transport", e->how);
		lp_json_str(j, "side", e->side[0] ? e->side : NULL);
		if (e->via == LP_COLL_VIA_NET) {
			lp_json_int(j, "net_device", e->netdev);
			lp_json_bool(j, "gpudirect_rdma", e->gdr);
		}
		lp_json_str(j, "logged_on", e->host[0] ? e->host : NULL);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_arr_begin(j, "nics");
	for (int i = 0; i < t->nnets; i++) {
		lp_json_obj_begin(j, NULL);
		lp_json_str(j, "host", t->nets[i].host);
		lp_json_int(j, "index", t->nets[i].idx);
		lp_json_str(j, "device", t->nets[i].dev);
		lp_json_int(j, "port", t->nets[i].port);
		lp_json_str(j, "link_layer", t->nets[i].link);
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
}

void lp_coll_topo_json(struct lp_json *j, const struct lp_coll_topo *t)
{
	int n[LP_COLL_VIA_OTHER + 1];

	count_via(t, n);
	lp_json_str(j, "file", t->src);
	lp_json_str(j, "program", t->program[0] ? t->program : NULL);
	lp_json_str(j, "nccl_tests_version", t->tests_version[0] ? t->tests_version : NULL);
	lp_json_int(j, "rows", t->nrows);
	lp_json_num(j, "avg_busbw", t->avg_busbw);
	if (t->out_of_bounds >= 0)
		lp_json_int(j, "out_of_bounds", t->out_of_bounds);
	else
		lp_json_null(j, "out_of_bounds");
	lp_json_str(j, "nccl_version", t->nccl_version[0] ? t->nccl_version : NULL);
	lp_json_str(j, "network", t->network[0] ? t->network : NULL);
	lp_json_int(j, "nranks", t->nranks);
	lp_json_int(j, "nnodes", t->nnodes);
	lp_json_int(j, "mnnvl", t->mnnvl);
	lp_json_obj_begin(j, "connections_by_path");
	for (int v = 0; v <= LP_COLL_VIA_OTHER; v++)
		lp_json_int(j, lp_coll_via_names[v], n[v]);
	lp_json_obj_end(j);
	json_ranks(j, t);
	json_graph(j, t);
	json_edges(j, t);
	lp_json_obj_begin(j, "lines");
	lp_json_uint(j, "read", t->lines);
	lp_json_uint(j, "used", t->lines_used);
	lp_json_obj_end(j);
}

/* What the connections say about the path the bytes took. */
static void summary_paths(FILE *f, const struct lp_coll_topo *t, const int *n)
{
	size_t nogdr = 0;

	for (size_t i = 0; i < t->nedges; i++)
		nogdr += t->edges[i].via == LP_COLL_VIA_NET && !t->edges[i].gdr;
	fprintf(f, "  connections: %d P2P (NVLink/PCIe peer), %d MNNVL, %d SHM, %d NET, %d other\n",
		n[LP_COLL_VIA_P2P], n[LP_COLL_VIA_MNNVL], n[LP_COLL_VIA_SHM], n[LP_COLL_VIA_NET],
		n[LP_COLL_VIA_OTHER]);
	if (nogdr)
		fprintf(f,
			"  note: %zu NET connection(s) without GPUDirect RDMA: their data is staged "
			"through host memory\n",
			nogdr);
	if (n[LP_COLL_VIA_SHM])
		fprintf(f, "  note: %d connection(s) via SHM: no peer access between those GPUs\n",
			n[LP_COLL_VIA_SHM]);
	if (!strcmp(t->network, "Socket"))
		fprintf(f, "  note: NCCL used its socket transport, not RDMA\n");
}

void lp_coll_topo_summary(FILE *f, const struct lp_coll_topo *t)
{
	int n[LP_COLL_VIA_OTHER + 1], mapped = 0;

	count_via(t, n);
	for (int r = 0; r < t->nranks; r++)
		mapped += t->ranks[r].node >= 0;
	fprintf(f, "import %s:", t->src);
	if (t->program[0])
		fprintf(f, " %s", t->program);
	if (t->tests_version[0])
		fprintf(f, " (nccl-tests %s)", t->tests_version);
	if (t->nrows)
		fprintf(f, ", %d rows", t->nrows);
	if (isfinite(t->avg_busbw))
		fprintf(f, ", avg busbw %.2f GB/s", t->avg_busbw);
	fprintf(f, ", %d ranks (%d on nodes of this run)\n", t->nranks, mapped);
	if (t->nccl_version[0] || t->nedges || t->nrings)
		fprintf(f,
			"  NCCL %s, network %s, %d node(s), MNNVL %d, %d ring(s), %zu tree line(s)\n",
			t->nccl_version[0] ? t->nccl_version : "?",
			t->network[0] ? t->network : "?", t->nnodes, t->mnnvl, t->nrings,
			t->ntrees);
	if (t->nedges)
		summary_paths(f, t, n);
}
