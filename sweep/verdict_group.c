// SPDX-License-Identifier: MIT
/*
 * lp-sweep's shared-fault verdicts: the run's nodes placed on the fabric
 * (leaf switch and rail of each, from r->fabric and --rails), and one verdict
 * per group the diagnosis found (switch_slow, uplink_slow, rail_slow,
 * group_suspect) naming it, its members and its evidence.
 */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/lp.h"
#include "common/table.h"
#include "sweep/dist.h"

void lp_sweep_topo_free(struct lp_sweep_topo *t)
{
	free(t->leaf);
	free(t->rail);
	free(t->leaf_name);
	free(t->rail_name);
	memset(t, 0, sizeof(*t));
}

/*
 * Where node nd is cabled: by its name's host part (a recorded topology is
 * keyed by it; a model run's nodes are "n12", "n12/3" on one real host), else
 * by its host.
 */
static const struct lp_fabric_port *port_of(const struct lp_fabric *f,
					    const struct lp_sweep_node *nd)
{
	char name[sizeof(nd->name)];
	const struct lp_fabric_port *p;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(nd->name, "/#"), nd->name);
	p = lp_fabric_find(f, name, nd->dev.name);
	return p ? p : lp_fabric_find(f, nd->host, nd->dev.name);
}

int lp_sweep_topo_map(const struct lp_sweep_run *r, struct lp_sweep_topo *t)
{
	const struct lp_fabric *f = r->fabric;
	bool fabric_rails = false;

	memset(t, 0, sizeof(*t));
	t->leaf = malloc((size_t)r->n * sizeof(int));
	t->rail = malloc((size_t)r->n * sizeof(int));
	if (!t->leaf || !t->rail)
		goto nomem;
	for (int i = 0; i < r->n; i++) {
		const struct lp_fabric_port *p = f ? port_of(f, &r->nodes[i]) : NULL;
		char rail[LP_FABRIC_NAME];

		t->leaf[i] = t->rail[i] = -1;
		if (p && p->leaf >= 0 &&
		    (t->leaf[i] =
			     lp_fabric_name_index(&t->leaf_name, &t->nleaf, f->leaf[p->leaf])) < 0)
			goto nomem;
		if (p && p->rail >= 0) {
			fabric_rails = true;
			if ((t->rail[i] = lp_fabric_name_index(&t->rail_name, &t->nrail,
							       f->rail[p->rail])) < 0)
				goto nomem;
		} else if (r->rails > 0 && !fabric_rails) {
			snprintf(rail, sizeof(rail), "rail%d", r->nodes[i].rail);
			if ((t->rail[i] = lp_fabric_name_index(&t->rail_name, &t->nrail, rail)) < 0)
				goto nomem;
		}
	}
	if (!t->nleaf) {
		free(t->leaf);
		t->leaf = NULL;
	}
	if (t->nrail < 2) {
		free(t->rail);
		t->rail = NULL;
		t->nrail = 0;
	}
	return 0;
nomem:
	lp_sweep_topo_free(t);
	return -ENOMEM;
}

/* What the scope of a group says in words. */
static const char *scope_words(const struct lp_diag_group *g)
{
	switch (g->scope) {
	case LP_SCOPE_ALL:
		return "every cell through it (its nodes' cells with each other too)";
	case LP_SCOPE_CROSS:
		return "cells leaving and entering it; the cells among its nodes healthy";
	case LP_SCOPE_OUT:
		return "cells from its nodes to the others; into them and among them healthy";
	case LP_SCOPE_IN:
		return "cells from the others into its nodes; out of them and among them healthy";
	case LP_SCOPE_INTRA:
		return g->kind == LP_GROUP_RAIL
			       ? "every cell of the rail, against the other rails"
			       : "the cells among its nodes; with the others healthy";
	case LP_SCOPE_PATH:
		return "cells from the first leaf's nodes to the second's; both leaves fine otherwise";
	default:
		return "cells between the two leaves' nodes, both ways; both fine otherwise";
	}
}

static const char *const scope_names[] = { "all", "cross", "out", "in", "intra", "path", "pair" };

/* The group's name, kind and evidence into ev (members, scope, numbers). */
static enum lp_verdict_kind group_ev(const struct lp_sweep_run *r, const struct lp_diag *d,
				     const struct lp_diag_group *g, const struct lp_sweep_topo *t,
				     struct lp_verdict *ev)
{
	const char *g1 = g->kind == LP_GROUP_RAIL     ? (t->rail_name ? t->rail_name[g->g1] : "?")
			 : g->g1 >= 0 && t->leaf_name ? t->leaf_name[g->g1]
						      : "";

	if ((g->scope == LP_SCOPE_PATH || g->scope == LP_SCOPE_PAIR) && t->leaf_name)
		snprintf(ev->group, sizeof(ev->group), "%s%s%s", g1,
			 g->scope == LP_SCOPE_PAIR ? "<->" : "->", t->leaf_name[g->g2]);
	else
		snprintf(ev->group, sizeof(ev->group), "%s", g1);
	snprintf(ev->scope, sizeof(ev->scope), "%s", scope_names[g->scope]);
	ev->nmembers = g->nmem;
	ev->nlisted = (uint32_t)LP_MIN(g->nmem, LP_VERDICT_MEMBERS);
	for (uint32_t i = 0; i < ev->nlisted; i++)
		ev->members[i] = g->mem[i];
	ev->ratio = g->ratio;
	ev->z = g->z;
	ev->p = isfinite(g->z) ? lp_dist_norm_sf(fabs(g->z)) : NAN;
	ev->level = d->alpha_node;
	ev->noise_cv = d->cv;
	ev->cells = g->cells;
	ev->agree = g->slow;
	ev->partial = g->partial;
	ev->frac = g->frac;
	(void)r;
	return g->kind == LP_GROUP_BLOCK    ? LP_VERDICT_GROUP_SUSPECT
	       : g->kind == LP_GROUP_RAIL   ? LP_VERDICT_RAIL_SLOW
	       : g->kind == LP_GROUP_SWITCH ? LP_VERDICT_SWITCH_SLOW
					    : LP_VERDICT_UPLINK_SLOW;
}

/* "gpu033, gpu034, ... (16 nodes)" */
static void member_names(const struct lp_sweep_run *r, const struct lp_diag_group *g, char *buf,
			 size_t len)
{
	buf[0] = 0;
	for (int i = 0; i < g->nmem; i++) {
		if (i == 8 && g->nmem > 10) {
			lp_strcatf(buf, len, ", ... %s", r->nodes[g->mem[g->nmem - 1]].name);
			break;
		}
		lp_strcatf(buf, len, "%s%s", i ? ", " : "", r->nodes[g->mem[i]].name);
	}
	lp_strcatf(buf, len, " (%d node%s)", g->nmem, g->nmem == 1 ? "" : "s");
}

static int group_verdict(struct lp_sweep_run *r, int m, const struct lp_diag *d,
			 const struct lp_diag_group *g, const struct lp_sweep_topo *t)
{
	const struct lp_sweep_metric *mt = &r->metrics[m];
	char why[768], mem[400], noise[160], what[200];
	struct lp_verdict ev;
	enum lp_verdict_kind kind;

	memset(&ev, 0, sizeof(ev));
	ev.noise_cv = ev.p = ev.level = NAN;
	kind = group_ev(r, d, g, t, &ev);
	member_names(r, g, mem, sizeof(mem));
	lp_sweep_fmt_noise(noise, sizeof(noise), d);
	if (g->kind == LP_GROUP_BLOCK)
		snprintf(what, sizeof(what),
			 "these nodes share a fault: likely their switch%s (no topology: "
			 "--topology names it)",
			 g->scope == LP_SCOPE_OUT  ? "'s uplinks out"
			 : g->scope == LP_SCOPE_IN ? "'s uplinks in"
						   : "");
	else
		snprintf(what, sizeof(what), "%s %s",
			 kind == LP_VERDICT_RAIL_SLOW ? "rail"
			 : g->scope == LP_SCOPE_PATH  ? "path"
						      : "switch",
			 ev.group);
	if (g->partial)
		snprintf(
			why, sizeof(why),
			"%s: %s: %s; %d of %d cells of its scope (%.0f%%) slow, at %.2fx (median), "
			"the others healthy: one of several uplinks (flows hash onto it), %.1f "
			"standard errors of the count; one verdict for %d cells",
			mt->label, what, mem, g->slow, g->cells, 100 * g->frac, g->ratio, g->z,
			g->slow);
	else
		snprintf(why, sizeof(why),
			 "%s: %s: %s; %s: %.2fx, %d cells, %.1f standard errors (per-test level "
			 "%.2g), %s; one verdict instead of one per node or link",
			 mt->label, what, mem, scope_words(g), g->ratio, g->cells, g->z,
			 d->alpha_node, noise);
	return lp_sweep_verdict_add(r, kind, -1, -1, 0, mt->label, why, &ev);
}

int lp_sweep_group_verdicts(struct lp_sweep_run *r, int m, const struct lp_diag *d,
			    const struct lp_sweep_topo *t)
{
	int rc = 0;

	for (int g = 0; g < d->ngroup && !rc; g++)
		rc = group_verdict(r, m, d, &d->group[g], t);
	return rc;
}
