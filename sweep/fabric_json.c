// SPDX-License-Identifier: MIT
/*
 * The run's topology in its JSON document: where each node sits (leaf switch,
 * rail) as the diagnosis used it, written with the document and read back by
 * `lp-sweep --diagnose`, so that a re-diagnosis sees the same groups.
 *
 *   "topology": {"format": "slurm", "source": "/etc/slurm/topology.conf",
 *                "leaves": ["leaf1", ...], "rails": ["mlx5_0", ...],
 *                "nodes": [{"node": 0, "leaf": 0, "rail": null}, ...]}
 *   (null when the run had no topology)
 */
#include "sweep/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>
#endif

static void names_json(struct lp_json *j, const char *key, char (*names)[LP_FABRIC_NAME], int n)
{
	lp_json_arr_begin(j, key);
	for (int i = 0; i < n; i++)
		lp_json_str(j, NULL, names[i]);
	lp_json_arr_end(j);
}

void lp_sweep_topology_json(struct lp_json *j, const struct lp_sweep_run *r)
{
	struct lp_sweep_topo t;

	if ((!r->fabric && r->rails <= 0) || lp_sweep_topo_map(r, &t) || (!t.leaf && !t.rail)) {
		lp_json_null(j, "topology");
		return;
	}
	lp_json_obj_begin(j, "topology");
	lp_json_str(j, "format", r->fabric ? lp_fabric_format_names[r->fabric->format] : "rails");
	lp_json_str(j, "source", r->fabric ? r->fabric->source : "--rails");
	names_json(j, "leaves", t.leaf_name, t.nleaf);
	names_json(j, "rails", t.rail_name, t.nrail);
	lp_json_arr_begin(j, "nodes");
	for (int i = 0; i < r->n; i++) {
		lp_json_obj_begin(j, NULL);
		lp_json_int(j, "node", i);
		if (t.leaf && t.leaf[i] >= 0)
			lp_json_int(j, "leaf", t.leaf[i]);
		else
			lp_json_null(j, "leaf");
		if (t.rail && t.rail[i] >= 0)
			lp_json_int(j, "rail", t.rail[i]);
		else
			lp_json_null(j, "rail");
		lp_json_obj_end(j);
	}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
	lp_sweep_topo_free(&t);
}

#ifdef LP_HAVE_JANSSON
/* A name table from a JSON array of strings. -ENOMEM or 0. */
static int names_read(const json_t *arr, char (**tab)[LP_FABRIC_NAME], int *n)
{
	size_t i;
	const json_t *v;

	*n = 0;
	*tab = calloc(json_array_size(arr) + 1, LP_FABRIC_NAME);
	if (!*tab)
		return -ENOMEM;
	json_array_foreach(arr, i, v) snprintf((*tab)[(*n)++], LP_FABRIC_NAME, "%s",
					       json_string_value(v) ? json_string_value(v) : "?");
	return 0;
}

/* The index member key of o, -1 when null or out of [0, n). */
static int index_of(const json_t *o, const char *key, int n)
{
	const json_t *v = json_object_get(o, key);
	json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;

	return i >= 0 && i < n ? (int)i : -1;
}

int lp_sweep_topology_read(struct lp_sweep_run *r, const json_t *topo)
{
	const char *format = json_string_value(json_object_get(topo, "format"));
	const json_t *nodes = json_object_get(topo, "nodes"), *v;
	struct lp_fabric *f;
	size_t i;

	if (!json_is_object(topo) || !json_is_array(nodes) || !format || !strcmp(format, "rails"))
		return 0; /* none, or --rails alone: the nodes' rails say it again */
	f = calloc(1, sizeof(*f));
	if (!f || names_read(json_object_get(topo, "leaves"), &f->leaf, &f->nleaf) ||
	    names_read(json_object_get(topo, "rails"), &f->rail, &f->nrail) ||
	    !(f->port = calloc(json_array_size(nodes) + 1, sizeof(*f->port)))) {
		if (f)
			lp_fabric_free(f);
		free(f);
		return -ENOMEM;
	}
	f->nleaf_all = f->nleaf;
	for (int k = 0; lp_fabric_format_names[k]; k++)
		if (!strcmp(format, lp_fabric_format_names[k]))
			f->format = (enum lp_fabric_format)k;
	snprintf(f->source, sizeof(f->source), "%s",
		 json_string_value(json_object_get(topo, "source")) ?: "");
	json_array_foreach(nodes, i, v)
	{
		int node = index_of(v, "node", r->n);
		struct lp_fabric_port *p = &f->port[f->nport];

		if (node < 0)
			continue;
		/* keyed by the node's name (a model run's hosts are all this machine) */
		snprintf(p->host, sizeof(p->host), "%.*s", (int)strcspn(r->nodes[node].name, "/#"),
			 r->nodes[node].name);
		snprintf(p->dev, sizeof(p->dev), "%s", r->nodes[node].dev.name);
		p->leaf = index_of(v, "leaf", f->nleaf);
		p->rail = index_of(v, "rail", f->nrail);
		f->nport++;
	}
	if (r->fabric)
		lp_fabric_free(r->fabric);
	free(r->fabric);
	r->fabric = f;
	return 0;
}
#endif

void lp_sweep_error_control_json(struct lp_json *j, const struct lp_diag *d)
{
	lp_json_obj_begin(j, "error_control");
	lp_json_num(j, "fp_rate", d->fp_rate);
	lp_json_str(j, "rule",
		    "a healthy run names something with at most fp_rate: nodes and groups by "
		    "Sidak over nodes x roles x metrics + group tests (half of it), links by "
		    "Benjamini-Hochberg per metric (the other half), a link only once retests "
		    "confirm it");
	lp_json_int(j, "node_tests", d->ntests);
	lp_json_num(j, "node_level", d->alpha_node);
	lp_json_num(j, "node_t", d->t_node);
	lp_json_num(j, "link_fdr", d->q_link);
	lp_json_num(j, "link_threshold_first", d->thr_first >= 0 ? d->thr_first : NAN);
	lp_json_num(j, "link_threshold_retests", d->thr_conf >= 0 ? d->thr_conf : NAN);
	lp_json_num(j, "transient_rate", d->blip);
	lp_json_int(j, "unconfirmed_cells", d->nunconf);
	lp_json_int(j, "congested_rounds", d->nround_fx);
	lp_json_arr_begin(j, "round_effects"); /* [round, ratio] of the rounds with one */
	for (int t = 0; t < d->nrounds; t++)
		if (d->round_fx && d->round_fx[t] != 1) {
			lp_json_arr_begin(j, NULL);
			lp_json_int(j, NULL, t);
			lp_json_num(j, NULL, d->round_fx[t]);
			lp_json_arr_end(j);
		}
	lp_json_arr_end(j);
	lp_json_obj_end(j);
}

void lp_sweep_verdict_extra_json(struct lp_json *j, const struct lp_sweep_run *r,
				 const struct lp_verdict *vd)
{
	lp_json_num(j, "p", vd->p);
	lp_json_num(j, "level", vd->level);
	if (vd->settle[0])
		lp_json_str(j, "settle", vd->settle);
	if (vd->nmembers) {
		lp_json_str(j, "group", vd->group);
		lp_json_str(j, "scope", vd->scope);
		lp_json_bool(j, "partial", vd->partial);
		lp_json_num(j, "fraction_slow", vd->frac);
		lp_json_int(j, "member_count", vd->nmembers);
		lp_json_arr_begin(j, "members");
		for (int i = 0; i < vd->nmembers && i < LP_VERDICT_MEMBERS; i++)
			lp_json_int(j, NULL, vd->members[i]);
		lp_json_arr_end(j);
		lp_json_arr_begin(j, "member_names");
		for (int i = 0; i < vd->nmembers && i < LP_VERDICT_MEMBERS; i++)
			lp_json_str(j, NULL, r->nodes[vd->members[i]].name);
		lp_json_arr_end(j);
	} else if (vd->partial) {
		lp_json_bool(j, "partial", true);
		lp_json_num(j, "fraction_slow", vd->frac);
	}
}
