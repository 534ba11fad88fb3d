// SPDX-License-Identifier: MIT
/* The switch fabric of a sweep's nodes, from Slurm, a simple file or ibnetdiscover (fabric.h). */
#include "sweep/fabric.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "common/fail.h"
#include "common/lp.h"

#define HOSTLIST_MAX 1000000

const char *const lp_fabric_format_names[] = { "none", "slurm", "simple", "ibnetdiscover", NULL };

void lp_fabric_free(struct lp_fabric *f)
{
	free(f->port);
	free(f->leaf);
	free(f->leaf_parent);
	free(f->rail);
	memset(f, 0, sizeof(*f));
}

int lp_fabric_name_index(char (**tab)[LP_FABRIC_NAME], int *n, const char *name)
{
	char(*p)[LP_FABRIC_NAME];

	for (int i = 0; i < *n; i++)
		if (!strcmp((*tab)[i], name))
			return i;
	p = realloc(*tab, (size_t)(*n + 1) * sizeof(*p));
	if (!p)
		return -1;
	*tab = p;
	snprintf(p[*n], LP_FABRIC_NAME, "%s", name);
	return (*n)++;
}

static int leaf_index(struct lp_fabric *f, const char *name)
{
	int i = lp_fabric_name_index(&f->leaf, &f->nleaf_all, name);
	int *p;

	if (i < 0 || i < f->nleaf_all - 1)
		return i;
	p = realloc(f->leaf_parent, (size_t)f->nleaf_all * sizeof(*p));
	if (!p)
		return -1;
	f->leaf_parent = p;
	p[i] = -1;
	return i;
}

static int add_port(struct lp_fabric *f, const char *host, const char *dev, int leaf, int rail)
{
	struct lp_fabric_port *p;

	for (int i = 0; i < f->nport; i++)
		if (!strcmp(f->port[i].host, host) && !strcmp(f->port[i].dev, dev))
			return 0; /* a second port of one device: the first one's switch */
	p = realloc(f->port, (size_t)(f->nport + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	f->port = p;
	p += f->nport++;
	snprintf(p->host, sizeof(p->host), "%s", host);
	snprintf(p->dev, sizeof(p->dev), "%s", dev ? dev : "");
	p->leaf = leaf;
	p->rail = rail;
	return 0;
}

/* ---- Slurm hostlists ---- */

struct expand {
	int (*cb)(void *arg, const char *name);
	void *arg;
	long count;
};

/* Expand the brackets of item (no top-level comma) after the prefix done so far. */
static int expand_item(struct expand *x, const char *done, const char *rest)
{
	const char *open = strchr(rest, '['), *close, *p;
	char buf[512];

	if (!open) {
		if (strchr(rest, ']'))
			return -EINVAL;
		if (snprintf(buf, sizeof(buf), "%s%s", done, rest) >= (int)sizeof(buf) ||
		    ++x->count > HOSTLIST_MAX)
			return -EINVAL;
		return x->cb(x->arg, buf);
	}
	close = strchr(open, ']');
	if (!close || memchr(rest, ']', (size_t)(open - rest)) ||
	    memchr(open + 1, '[', (size_t)(close - open - 1)))
		return -EINVAL;
	for (p = open + 1; p < close;) {
		char *end;
		const char *lo_s = p;
		unsigned long lo = strtoul(p, &end, 10), hi;
		int width = (int)(end - lo_s), rc;

		if (end == lo_s || !isdigit((unsigned char)*lo_s))
			return -EINVAL;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo || hi - lo > HOSTLIST_MAX)
				return -EINVAL;
		}
		if (end != close && *end != ',')
			return -EINVAL;
		for (unsigned long v = lo; v <= hi; v++) {
			if (snprintf(buf, sizeof(buf), "%s%.*s%0*lu", done, (int)(open - rest),
				     rest, width, v) >= (int)sizeof(buf))
				return -EINVAL;
			rc = expand_item(x, buf, close + 1);
			if (rc)
				return rc;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int lp_fabric_hostlist(const char *list, int (*cb)(void *arg, const char *name), void *arg)
{
	struct expand x = { cb, arg, 0 };
	char item[512];
	int depth = 0, rc;
	size_t k = 0;

	for (const char *p = list;; p++) {
		if (*p == '[')
			depth++;
		if (*p == ']' && --depth < 0)
			return -EINVAL;
		if (*p && (*p != ',' || depth)) {
			if (k + 1 >= sizeof(item))
				return -EINVAL;
			item[k++] = *p;
			continue;
		}
		if (depth)
			return -EINVAL;
		item[k] = 0;
		if (k && (rc = expand_item(&x, "", item)))
			return rc;
		k = 0;
		if (!*p)
			return 0;
	}
}

/* ---- Slurm topology.conf ---- */

struct slurm_leaf {
	struct lp_fabric *f;
	int leaf;
};

static int slurm_node(void *arg, const char *name)
{
	struct slurm_leaf *s = arg;

	return add_port(s->f, name, "", s->leaf, -1);
}

static int slurm_child(void *arg, const char *name)
{
	struct slurm_leaf *s = arg;
	int c = leaf_index(s->f, name);

	if (c < 0)
		return -ENOMEM;
	s->f->leaf_parent[c] = s->leaf;
	return 0;
}

/* One logical line "SwitchName=S Nodes=... Switches=..." (comments and continuations gone). */
static int slurm_line(struct lp_fabric *f, char *line, int lineno, struct lp_fail *fail)
{
	char *name = NULL, *nodes = NULL, *switches = NULL, *save = NULL;
	struct slurm_leaf s = { f, -1 };
	int rc;

	for (char *tok = strtok_r(line, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return lp_fail_set(fail, -EINVAL, "line %d: \"%s\" is not KEY=VALUE",
					   lineno, tok);
		*eq = 0;
		if (!strcasecmp(tok, "SwitchName") || !strcasecmp(tok, "BlockName"))
			name = eq + 1;
		else if (!strcasecmp(tok, "Nodes"))
			nodes = eq + 1;
		else if (!strcasecmp(tok, "Switches"))
			switches = eq + 1;
		else if (strcasecmp(tok, "LinkSpeed") && strcasecmp(tok, "BlockSizes"))
			return lp_fail_set(fail, -EINVAL, "line %d: unknown key %s", lineno, tok);
	}
	if (!name && (nodes || switches))
		return lp_fail_set(fail, -EINVAL,
				   "line %d: %s without SwitchName= or BlockName=", lineno,
				   nodes ? "Nodes=" : "Switches=");
	if (!name)
		return 0; /* BlockSizes=..., a global line */
	if (!*name)
		return lp_fail_set(fail, -EINVAL, "line %d: empty switch name", lineno);
	s.leaf = leaf_index(f, name);
	if (s.leaf < 0)
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		const char *list = k ? switches : nodes;

		rc = list ? lp_fabric_hostlist(list, k ? slurm_child : slurm_node, &s) : 0;
		if (rc == -EINVAL)
			lp_fail_set(fail, rc, "line %d: bad hostlist \"%s\"", lineno, list);
		if (rc)
			return rc;
	}
	return 0;
}

/* Switches hosts hang off (leaves) first in leaf[], their parents after: a permutation. */
static int order_leaves(struct lp_fabric *f)
{
	int n = f->nleaf_all, *to = malloc((size_t)(n + 1) * sizeof(int)), k = 0;
	char(*names)[LP_FABRIC_NAME] = malloc((size_t)(n + 1) * sizeof(*names));
	int *parent = malloc((size_t)(n + 1) * sizeof(int));
	bool *leaf = calloc((size_t)n + 1, sizeof(bool));

	if (!to || !names || !parent || !leaf) {
		free(to), free(names), free(parent), free(leaf);
		return -ENOMEM;
	}
	for (int i = 0; i < f->nport; i++)
		leaf[f->port[i].leaf] = true;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (leaf[i] == !pass)
				to[i] = k++;
	for (int i = 0; i < n; i++) {
		memcpy(names[to[i]], f->leaf[i], LP_FABRIC_NAME);
		parent[to[i]] = f->leaf_parent[i] < 0 ? -1 : to[f->leaf_parent[i]];
		f->nleaf += leaf[i];
	}
	for (int i = 0; i < f->nport; i++)
		f->port[i].leaf = to[f->port[i].leaf];
	free(f->leaf);
	free(f->leaf_parent);
	f->leaf = names;
	f->leaf_parent = parent;
	free(to);
	free(leaf);
	return 0;
}

static int parse_slurm(struct lp_fabric *f, char *text, struct lp_fail *fail)
{
	char *line = text, *next;
	int lineno = 1, rc = 0;

	for (; line && !rc; line = next) {
		int first = lineno;
		char *hash;

		/* a "\" at the end joins the next line */
		for (next = strchr(line, '\n'); next && next > line && next[-1] == '\\';
		     next = strchr(next + 1, '\n')) {
			next[-1] = next[0] = ' ';
			lineno++;
		}
		if (next)
			*next++ = 0;
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		rc = slurm_line(f, line, first, fail);
	}
	if (!rc && !f->nport) {
		rc = lp_fail_set(fail, -EINVAL, "no SwitchName= or BlockName= line with Nodes=");
	}
	return rc ? rc : order_leaves(f);
}

/* ---- the simple file: HOST LEAF [RAIL] ---- */

struct simple_row {
	struct lp_fabric *f;
	int leaf, rail;
};

static int simple_host(void *arg, const char *name)
{
	struct simple_row *s = arg;

	return add_port(s->f, name, "", s->leaf, s->rail);
}

static int parse_simple(struct lp_fabric *f, char *text, struct lp_fail *fail)
{
	char *save = NULL;
	int lineno = 0;

	for (char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char buf[1024], *tok[4], *hash;
		int nt = 0, rc;
		size_t l = strcspn(line, "\n");
		struct simple_row s = { f, -1, -1 };

		lineno++;
		if (l >= sizeof(buf))
			return lp_fail_set(fail, -EINVAL, "line %d: longer than %zu characters",
					   lineno, sizeof(buf) - 1);
		memcpy(buf, line, l);
		buf[l] = 0;
		hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		for (char *t = strtok_r(buf, " \t\r", &save); t && nt < 4;
		     t = strtok_r(NULL, " \t\r", &save))
			tok[nt++] = t;
		if (!nt)
			continue;
		if (nt < 2 || nt > 3)
			return lp_fail_set(fail, -EINVAL,
					   "line %d: expected HOST LEAF [RAIL], got %d field(s)",
					   lineno, nt);
		if (strcmp(tok[1], "-") && (s.leaf = leaf_index(f, tok[1])) < 0)
			return -ENOMEM;
		if (nt == 3 && strcmp(tok[2], "-") &&
		    (s.rail = lp_fabric_name_index(&f->rail, &f->nrail, tok[2])) < 0)
			return -ENOMEM;
		rc = lp_fabric_hostlist(tok[0], simple_host, &s);
		if (rc == -EINVAL)
			lp_fail_set(fail, rc, "line %d: bad hostlist \"%s\"", lineno, tok[0]);
		if (rc)
			return rc;
	}
	f->nleaf = f->nleaf_all;
	if (!f->nport)
		return lp_fail_set(fail, -EINVAL, "no host in the file");
	return 0;
}

/* ---- ibnetdiscover ---- */

struct ib_sw {
	char id[24];		   /* "S-0002c90000001d50" */
	char desc[LP_FABRIC_NAME]; /* its NodeDescription */
};

struct ib_ca {
	char desc[2 * LP_FABRIC_NAME]; /* "host dev" */
	char sw[24];		       /* the switch its port is cabled to */
};

struct ib_parse {
	struct ib_sw *sw;
	int nsw;
	struct ib_ca *ca;
	int nca;
};

/* The n-th "..." string of line (0-based) into buf; false when there is none. */
static bool quoted(const char *line, int n, char *buf, size_t len)
{
	const char *p = line;

	for (int i = 0;; i++) {
		const char *q = strchr(p, '"'), *e = q ? strchr(q + 1, '"') : NULL;

		if (!e)
			return false;
		if (i == n) {
			snprintf(buf, len, "%.*s", (int)(e - q - 1), q + 1);
			return true;
		}
		p = e + 1;
	}
}

static int ib_add_ca(struct ib_parse *ib, const char *desc, const char *sw)
{
	struct ib_ca *p;

	for (int i = 0; i < ib->nca; i++)
		if (!strcmp(ib->ca[i].desc, desc))
			return 0;
	p = realloc(ib->ca, (size_t)(ib->nca + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	ib->ca = p;
	snprintf(p[ib->nca].desc, sizeof(p->desc), "%s", desc);
	snprintf(p[ib->nca].sw, sizeof(p->sw), "%s", sw);
	ib->nca++;
	return 0;
}

/*
 * One line of ibnetdiscover's output. A node line ("Switch\t36 "S-guid"\t\t#
 * "desc" ...", "Ca\t1 "H-guid"\t\t# "desc"") opens a block; a port line
 * ("[3]\t"H-guid"[1](portguid) \t\t# "host mlx5_0" lid 5 4xNDR" under a
 * switch, "[1](portguid) \t"S-guid"[3]\t\t# lid 5 lmc 0 "desc" ..." under a
 * CA) names what the port is cabled to.
 */
static int ib_line(struct ib_parse *ib, const char *line, char *cur, char *cur_desc, int lineno,
		   struct lp_fail *fail)
{
	char id[64], desc[2 * LP_FABRIC_NAME];
	const char *hash = strstr(line, "# \"");

	if (!strncmp(line, "Switch\t", 7) || !strncmp(line, "Ca\t", 3) ||
	    !strncmp(line, "Rt\t", 3)) {
		if (!quoted(line, 0, id, sizeof(id)) || !hash ||
		    !quoted(hash, 0, cur_desc, 2 * LP_FABRIC_NAME))
			return lp_fail_set(fail, -EINVAL,
					   "line %d: a node line without \"ID\" # \"description\"",
					   lineno);
		snprintf(cur, 64, "%s", id);
		if (id[0] == 'S') {
			struct ib_sw *p = realloc(ib->sw, (size_t)(ib->nsw + 1) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			ib->sw = p;
			snprintf(p[ib->nsw].id, sizeof(p->id), "%s", id);
			snprintf(p[ib->nsw].desc, sizeof(p->desc), "%s", cur_desc);
			ib->nsw++;
		}
		return 0;
	}
	if (line[0] != '[' || !cur[0])
		return 0;
	if (!quoted(line, 0, id, sizeof(id)))
		return lp_fail_set(fail, -EINVAL,
				   "line %d: a port line without the \"ID\" it is cabled to",
				   lineno);
	if (cur[0] == 'S' && id[0] == 'H' && hash && quoted(hash, 0, desc, sizeof(desc)))
		return ib_add_ca(ib, desc, cur); /* a host on this switch */
	if (cur[0] == 'H' && id[0] == 'S')
		return ib_add_ca(ib, cur_desc, id); /* this host's port on that switch */
	return 0;
}

/* A leaf's name: its description, or its ID when another switch has the same one. */
static const char *ib_sw_name(const struct ib_parse *ib, const char *id)
{
	for (int i = 0; i < ib->nsw; i++) {
		if (strcmp(ib->sw[i].id, id))
			continue;
		for (int k = 0; k < ib->nsw; k++)
			if (k != i && !strcmp(ib->sw[k].desc, ib->sw[i].desc))
				return id;
		return ib->sw[i].desc[0] ? ib->sw[i].desc : id;
	}
	return id;
}

static int parse_ibnet(struct lp_fabric *f, char *text, struct lp_fail *fail)
{
	struct ib_parse ib = { 0 };
	char cur[64] = "", cur_desc[2 * LP_FABRIC_NAME] = "";
	int lineno = 0, rc = 0;

	for (char *line = text; line && !rc;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		rc = ib_line(&ib, line, cur, cur_desc, ++lineno, fail);
		line = nl ? nl + 1 : NULL;
	}
	for (int i = 0; i < ib.nca && !rc; i++) {
		char host[LP_FABRIC_NAME] = "", dev[LP_FABRIC_NAME] = "";
		int leaf, rail = -1;

		sscanf(ib.ca[i].desc, "%63s %63s", host, dev);
		leaf = leaf_index(f, ib_sw_name(&ib, ib.ca[i].sw));
		if (dev[0])
			rail = lp_fabric_name_index(&f->rail, &f->nrail, dev);
		rc = leaf < 0 || (dev[0] && rail < 0) ? -ENOMEM
						      : add_port(f, host, dev, leaf, rail);
	}
	free(ib.sw);
	free(ib.ca);
	f->nleaf = f->nleaf_all;
	if (!rc && !f->nport) {
		rc = lp_fail_set(fail, -EINVAL,
				 "ibnetdiscover output without a host (CA) cabled to a switch");
	}
	return rc;
}

/* ---- the entry points ---- */

static enum lp_fabric_format detect(const char *text)
{
	for (const char *line = text; line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line + strspn(line, " \t");

		if (!strncmp(line, "Switch\t", 7) || !strncmp(line, "Ca\t", 3) ||
		    !strncmp(line, "switchguid=", 11) || !strncmp(line, "caguid=", 7))
			return LP_FABRIC_IBNET;
		if (!strncasecmp(p, "SwitchName=", 11) || !strncasecmp(p, "BlockName=", 10))
			return LP_FABRIC_SLURM;
	}
	return LP_FABRIC_SIMPLE;
}

int lp_fabric_parse(struct lp_fabric *f, const char *text, const char *source, struct lp_fail *fail)
{
	char *copy = strdup(text);
	int rc;

	memset(f, 0, sizeof(*f));
	if (!copy)
		return -ENOMEM;
	snprintf(f->source, sizeof(f->source), "%s", source ? source : "");
	f->format = detect(copy);
	rc = f->format == LP_FABRIC_IBNET   ? parse_ibnet(f, copy, fail)
	     : f->format == LP_FABRIC_SLURM ? parse_slurm(f, copy, fail)
					    : parse_simple(f, copy, fail);
	free(copy);
	if (rc == -ENOMEM)
		lp_fail_set(fail, rc, "out of memory");
	return rc;
}

/* All of in into *text_p (malloc'ed, NUL-terminated, its length in *len_p). 0, -ENOMEM, -EIO. */
static int slurp(FILE *in, char **text_p, size_t *len_p)
{
	char *text = NULL;
	size_t cap = 0, n = 0, got;

	do {
		if (n + 4096 + 1 > cap) {
			char *p = realloc(text, cap = 2 * cap + 65536);

			if (!p) {
				free(text);
				return -ENOMEM;
			}
			text = p;
		}
		got = fread(text + n, 1, cap - n - 1, in);
		n += got;
	} while (got);
	text[n] = 0;
	*text_p = text;
	*len_p = n;
	return ferror(in) ? -EIO : 0;
}

int lp_fabric_read(struct lp_fabric *f, const char *path, struct lp_fail *fail)
{
	FILE *in = fopen(path, "r");
	char *text = NULL;
	size_t n = 0;
	int rc;

	memset(f, 0, sizeof(*f));
	if (!in) {
		return lp_fail_set(fail, -errno, "%s", strerror(errno));
	}
	rc = slurp(in, &text, &n);
	fclose(in);
	if (rc) {
		lp_fail_set(fail, rc, "%s", rc == -ENOMEM ? "out of memory" : "read error");
	} else if (memchr(text, 0, n)) {
		rc = lp_fail_set(fail, -EINVAL, "a binary file, not a topology");
	} else {
		rc = lp_fabric_parse(f, text, path, fail);
	}
	free(text);
	return rc;
}

const char *lp_fabric_slurm_path(void)
{
	static char path[4096];
	const char *conf = getenv("SLURM_CONF");
	const char *slash = conf ? strrchr(conf, '/') : NULL;
	FILE *t;

	if (slash)
		snprintf(path, sizeof(path), "%.*s/topology.conf", (int)(slash - conf), conf);
	else
		snprintf(path, sizeof(path), "/etc/slurm/topology.conf");
	t = fopen(path, "r");
	if (!t)
		return NULL;
	fclose(t);
	return path;
}

/* Host names compared without their domain. */
static bool same_host(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");

	return la == lb && !strncmp(a, b, la);
}

const struct lp_fabric_port *lp_fabric_find(const struct lp_fabric *f, const char *host,
					    const char *dev)
{
	const struct lp_fabric_port *any = NULL;

	for (int i = 0; i < f->nport; i++) {
		const struct lp_fabric_port *p = &f->port[i];

		if (!same_host(p->host, host))
			continue;
		if (dev && dev[0] && !strcmp(p->dev, dev))
			return p;
		if (!any)
			any = p;
	}
	return any;
}

int lp_fabric_ibnetdiscover(struct lp_fabric *f, struct lp_fail *fail)
{
	FILE *p = popen("timeout 120 ibnetdiscover 2>/dev/null", "r");
	char *text = NULL;
	size_t n;
	int status, rc, code;

	memset(f, 0, sizeof(*f));
	if (!p) {
		return lp_fail_set(fail, -errno, "cannot run ibnetdiscover: %s", strerror(errno));
	}
	rc = slurp(p, &text, &n);
	status = pclose(p);
	code = status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
	if (!rc && code) {
		rc = code == 127 ? -ENOENT : -EIO;
		lp_fail_set(
			fail, rc, "%s",
			code == 127 ? "ibnetdiscover not found (Debian: infiniband-diags)"
			: code == 124
				? "ibnetdiscover did not finish in 120 s"
				: "ibnetdiscover failed (it needs umad access: root, or rdma group rights)");
	} else if (rc) {
		lp_fail_set(fail, rc, "%s", rc == -ENOMEM ? "out of memory" : "read error");
	} else {
		rc = lp_fabric_parse(f, text, "ibnetdiscover", fail);
	}
	free(text);
	return rc;
}
