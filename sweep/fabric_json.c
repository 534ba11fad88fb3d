// SPDX-License-Identifier: MIT
/*
 * The run's topology in its JSON document: where each node sits (leaf switch,
 * rail) as the diagnosis used it, written with the document and read back by
 * `lp-sweep --diagnose`, so that a re-diagnosis sees the same groups.
 *
 *   "topology": {"format": "slurm", "source": "/etc/slurm/topology.conf",
 *                "leaves": [{"name": "leaf1"}, ...], "rails": [{"name": "mlx5_0"}],
 *                "leaf": [0, 0, 1, ...], "rail": [-1, ...]}
 *   (null when the run had no topology; the record: sweep/records.c)
 */
#include "sweep/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

#ifdef LP_HAVE_JANSSON
#include <jansson.h>
#endif

/* The run's topology as the document holds it (t: the nodes mapped). 0 or -ENOMEM. */
static int topo_doc(const struct lp_sweep_run *r, const struct lp_sweep_topo *t,
		    struct lp_sweep_topo_doc *doc)
{
	*doc = (struct lp_sweep_topo_doc){ .nleaf = (uint32_t)t->nleaf,
					   .nrail = (uint32_t)t->nrail,
					   .n = (uint32_t)r->n };
	snprintf(doc->format, sizeof(doc->format), "%s",
		 r->fabric ? lp_fabric_format_names[r->fabric->format] : "rails");
	snprintf(doc->source, sizeof(doc->source), "%s", r->fabric ? r->fabric->source : "--rails");
	doc->leaves = calloc((size_t)t->nleaf + 1, sizeof(*doc->leaves));
	doc->rails = calloc((size_t)t->nrail + 1, sizeof(*doc->rails));
	doc->leaf = malloc(((size_t)r->n + 1) * sizeof(int));
	doc->rail = malloc(((size_t)r->n + 1) * sizeof(int));
	if (!doc->leaves || !doc->rails || !doc->leaf || !doc->rail)
		return -ENOMEM;
	for (int i = 0; i < t->nleaf; i++)
		snprintf(doc->leaves[i].name, LP_FABRIC_NAME, "%s", t->leaf_name[i]);
	for (int i = 0; i < t->nrail; i++)
		snprintf(doc->rails[i].name, LP_FABRIC_NAME, "%s", t->rail_name[i]);
	for (int i = 0; i < r->n; i++) {
		doc->leaf[i] = t->leaf ? t->leaf[i] : -1;
		doc->rail[i] = t->rail ? t->rail[i] : -1;
	}
	return 0;
}

void lp_sweep_topology_json(struct lp_json *j, const struct lp_sweep_run *r)
{
	struct lp_sweep_topo_doc doc = { 0 };
	struct lp_sweep_topo t;

	if ((!r->fabric && r->rails <= 0) || lp_sweep_topo_map(r, &t)) {
		lp_json_null(j, "topology");
		return;
	}
	if (!t.leaf && !t.rail)
		lp_json_null(j, "topology");
	else if (topo_doc(r, &t, &doc))
		j->err = j->err ? j->err : -ENOMEM;
	else {
		lp_json_obj_begin(j, "topology");
		lp_record_json(&lp_sweep_topo_record, &doc, j);
		lp_json_obj_end(j);
	}
	lp_record_free(&lp_sweep_topo_record, &doc);
	lp_sweep_topo_free(&t);
}

#ifdef LP_HAVE_JANSSON
/* A name table (sweep/fabric.h's form) from the document's names. NULL: -ENOMEM. */
static char (*names_of(const struct lp_sweep_topo_name *nm, uint32_t n))[LP_FABRIC_NAME]
{
	char(*tab)[LP_FABRIC_NAME] = calloc((size_t)n + 1, LP_FABRIC_NAME);

	for (uint32_t i = 0; tab && i < n; i++)
		snprintf(tab[i], LP_FABRIC_NAME, "%s", nm[i].name);
	return tab;
}

/* doc (read, checked) as r's fabric: one port per node, keyed by its name. */
static int topo_fabric(struct lp_sweep_run *r, const struct lp_sweep_topo_doc *doc)
{
	struct lp_fabric *f = calloc(1, sizeof(*f));

	if (!f || !(f->leaf = names_of(doc->leaves, doc->nleaf)) ||
	    !(f->rail = names_of(doc->rails, doc->nrail)) ||
	    !(f->port = calloc((size_t)r->n + 1, sizeof(*f->port)))) {
		if (f)
			lp_fabric_free(f);
		free(f);
		return -ENOMEM;
	}
	f->nleaf = f->nleaf_all = (int)doc->nleaf;
	f->nrail = (int)doc->nrail;
	for (int k = 0; lp_fabric_format_names[k]; k++)
		if (!strcmp(doc->format, lp_fabric_format_names[k]))
			f->format = (enum lp_fabric_format)k;
	snprintf(f->source, sizeof(f->source), "%s", doc->source);
	for (int i = 0; i < r->n; i++) {
		struct lp_fabric_port *p = &f->port[f->nport++];

		/* keyed by the node's name (a model run's hosts are all this machine) */
		snprintf(p->host, sizeof(p->host), "%.*s", (int)strcspn(r->nodes[i].name, "/#"),
			 r->nodes[i].name);
		snprintf(p->dev, sizeof(p->dev), "%s", r->nodes[i].dev.name);
		p->leaf = doc->leaf[i];
		p->rail = doc->rail[i];
	}
	if (r->fabric)
		lp_fabric_free(r->fabric);
	free(r->fabric);
	r->fabric = f;
	return 0;
}

int lp_sweep_topology_read(struct lp_sweep_run *r, const json_t *topo, struct lp_fail *f)
{
	struct lp_sweep_topo_doc doc = { 0 };
	int rc;

	if (!topo || json_is_null(topo))
		return 0;
	rc = lp_record_read_json(&lp_sweep_topo_record, &doc, topo, f);
	if (!rc && doc.n != (uint32_t)r->n)
		rc = lp_fail_set(f, -EINVAL, "%u nodes, the run has %d", doc.n, r->n);
	if (rc == -EINVAL)
		lp_fail_prefix(f, "topology.");
	/* --rails alone: the nodes' rails say it again */
	if (!rc && strcmp(doc.format, "rails"))
		rc = topo_fabric(r, &doc);
	lp_record_free(&lp_sweep_topo_record, &doc);
	return rc;
}
#endif
